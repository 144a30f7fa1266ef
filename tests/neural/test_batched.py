"""The seed-axis machinery: stacked models give each seed's one-seed output and gradient, a NaN
seed leaves the others alone, per-seed clipping is torch's clipping applied to each seed, and the
batched critic trainer reproduces the one-seed task seed by seed (on CPU; on CUDA when present)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from neural.batched import SeedStack, clip_grad_norm_per_seed_, seed_norms
from neural.deep_crl import VARIANTS, Critic, critic_loss, train_maze_critic
from neural.deep_crl_batched import train_maze_critic_batched

#: Tiny critic runs: 20 Adam steps of batch 32 on 500 pairs.
TINY = {"width": 8, "steps": 20, "batch": 32, "n_pairs": 500, "return_f": True}
#: Batched vs alone, relative: float32 sums in another order (bmm vs mm). Measured max over every
#: output of the runs below: 4e-7 (f; loss curve 1.4e-7, train loss 7e-8); 1e-5 leaves 25× margin.
RTOL = 1e-5


def _critics(n: int, variant: str = "paper") -> list[Critic]:
    out = []
    for k in range(n):
        torch.manual_seed(k)
        out.append(Critic(3, 3, 4, 8, VARIANTS[variant]))
    return out


def _rngs(seed_indices: list[int]) -> list[np.random.Generator]:
    return [np.random.default_rng(np.random.SeedSequence(7, spawn_key=(i,))) for i in seed_indices]


def test_stacked_forward_and_gradient_are_each_seeds_own():
    models = _critics(3)
    stack = SeedStack(models)
    gen = torch.Generator().manual_seed(0)
    sa, g = torch.randn(3, 10, 3, generator=gen), torch.randn(3, 10, 3, generator=gen)
    torch.func.vmap(critic_loss)(stack(sa, g)).sum().backward()
    for k, model in enumerate(models):
        critic_loss(model(sa[k], g[k])).backward()
        for name, p in model.named_parameters():  # entries ~1 summed in another order: ~1e-7
            torch.testing.assert_close(stack.params[name].grad[k], p.grad, rtol=1e-5, atol=1e-6)


def test_a_nan_seed_leaves_the_other_seeds_gradients_unchanged():
    models = _critics(3)
    stack = SeedStack(models)
    with torch.no_grad():
        stack.params["phi.input_layer.dense.weight"][1].fill_(float("nan"))
    gen = torch.Generator().manual_seed(1)
    sa, g = torch.randn(3, 10, 3, generator=gen), torch.randn(3, 10, 3, generator=gen)
    losses = torch.func.vmap(critic_loss)(stack(sa, g))
    losses.sum().backward()
    assert torch.isnan(losses[1])
    assert torch.isfinite(losses[[0, 2]]).all()
    grads = [p.grad for p in stack.parameters()]
    assert all(torch.isfinite(gr[[0, 2]]).all() for gr in grads)
    norms = clip_grad_norm_per_seed_(list(stack.parameters()), 1.0)
    assert torch.isnan(norms[1])
    assert torch.isfinite(norms[[0, 2]]).all()


def test_per_seed_clipping_is_torch_clipping_of_each_seed():
    models = _critics(3)
    gen = torch.Generator().manual_seed(2)
    for k, model in enumerate(models):  # seed 0 is below the threshold, 1 and 2 above
        for p in model.parameters():
            p.grad = torch.randn(p.shape, generator=gen) * (1e-3 if k == 0 else 1.0)
    stack = SeedStack(models)
    for name, p in stack.params.items():
        p.grad = torch.stack([dict(m.named_parameters())[name].grad for m in models])
    names = list(stack.params)
    norms = clip_grad_norm_per_seed_([stack.params[n] for n in names], 1.0)
    for k, model in enumerate(models):
        want = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        torch.testing.assert_close(norms[k], want)
        for n in names:
            torch.testing.assert_close(
                stack.params[n].grad[k], dict(model.named_parameters())[n].grad
            )
    assert seed_norms([p.grad for p in stack.parameters()])[1] == pytest.approx(1.0, rel=1e-5)


def test_load_into_copies_one_seeds_weights():
    models = _critics(2)
    stack = SeedStack(models)
    fresh = stack.load_into(_critics(1)[0], 1)
    for (name, p), q in zip(fresh.named_parameters(), models[1].parameters(), strict=True):
        assert torch.equal(p, q), name
    with pytest.raises(ValueError, match="seed"):
        stack.load_into(fresh, 2)
    with pytest.raises(ValueError, match="models"):
        SeedStack([])


#: The rank correlations (rho_*) are not continuous in f: a change of f by a rounding error can
#: swap two nearly tied goals of a row, which moves that row's Spearman ρ by 12/(m(m²−1)) (m
#: goals scored) and the mean over the maze's rows by about 2e-6 here (measured: 0 in most runs,
#: 3.8e-6 in one). 1e-4 allows a few dozen swaps, far below the ρ differences the claims read.
RHO_ATOL = 1e-4


def _assert_records_close(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        if key.startswith("rho_"):
            assert got[key] == pytest.approx(value, abs=RHO_ATOL), key
        else:
            np.testing.assert_allclose(got[key], value, rtol=RTOL, atol=1e-6, err_msg=key)


@pytest.mark.parametrize(
    ("variant", "depth", "config"),
    [("paper", 4, "cpu"), ("no_res", 4, "cpu"), ("no_ln", 0, "cpu"), ("paper", 4, "reference")],
)
def test_batched_critic_seeds_equal_the_one_seed_task(variant, depth, config):
    params = TINY | {"variant": variant, "depth": depth, "config": config}
    batched = train_maze_critic_batched(params, _rngs([2, 5]), device="cpu")
    for record, rng in zip(batched, _rngs([2, 5]), strict=True):
        _assert_records_close(record, train_maze_critic(params, rng))
    assert not np.allclose(batched[0]["f"], batched[1]["f"])  # two seeds, two critics


def test_batched_critic_rejects_what_it_cannot_run():
    params = TINY | {"variant": "paper", "depth": 4}
    with pytest.raises(ValueError, match="rngs"):
        train_maze_critic_batched(params, [])
    with pytest.raises(ValueError, match="checkpoint_every"):
        train_maze_critic_batched(params | {"checkpoint_every": 5}, _rngs([0]))
    with pytest.raises(ValueError, match="steps"):
        train_maze_critic_batched(params | {"steps": 0}, _rngs([0]))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device for torch")
def test_batched_critic_on_cuda_matches_the_one_seed_task():
    params = TINY | {"variant": "paper", "depth": 4}
    batched = train_maze_critic_batched(params, _rngs([0, 1]), device="cuda")
    for record, rng in zip(batched, _rngs([0, 1]), strict=True):
        want = train_maze_critic(params, rng)
        for (
            key,
            value,
        ) in want.items():  # other kernels: the CPU bound ×10 (not measured here: no GPU)
            np.testing.assert_allclose(record[key], value, rtol=10 * RTOL, atol=1e-5)
