"""The batched online CRL trainer reproduces the one-seed task seed by seed: every number of each
record (training curves, evaluation curves, Q-map), on the CPU, on the meta device up to the
first read-back (the device path without a GPU), and on CUDA when present."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from neural.crl import Actor, EpisodeBuffer, train_online_crl
from neural.crl_batched import _BatchedAgent, _Distribution, _seed_setup, train_online_crl_batched
from tests.neural.test_deep_crl_device import ATOL as CUDA_ATOL
from tests.neural.test_deep_crl_device import ONLINE
from tests.neural.test_deep_crl_device import RTOL as CUDA_RTOL

#: A tiny online run on the small U-maze: 4 epochs of 4 episodes of 20 steps, 4 SGD steps of
#: batch 32 each, evaluated every epoch. With every goal cell counted as far (far_moves 1) and a
#: goal radius of 0.7 cells, some untrained or barely trained policies reach a goal, so the
#: success curves below are not all 0 (seed 1 of the "cpu" config, seeds 0 and 2 of
#: "reference").
TINY = {"depth": 4, "width": 16, "epochs": 4, "n_envs": 4, "horizon": 20, "grad_steps": 4,
        "batch": 32, "eval_every": 1, "eval_episodes": 2, "far_moves": 1,
        "radius": 0.7}  # fmt: skip
#: Batched vs alone: float32 sums in another order (batched matrix products, reductions over a
#: seed axis). Measured over every number of the records below: the largest difference is
#: 1.4e-6 (Q-map values ~ −5), at most 3.2e-7 relative wherever |value| > 1; α and the scores
#: agree exactly; the entropy comes near 0 (0.043), where the difference is 1.4e-7. The bound
#: atol + rtol·|want| is at least 10× the difference everywhere (40× on the Q-maps); the other
#: seed of a pair moves each curve and Q-map by 4e-3 to 3 (its largest change), α the least.
RTOL, ATOL = 1e-5, 1e-6
#: The rollouts feed actions back into the environment, whose wall test compares a position
#: with a cell edge: an action changed by a rounding error flips a step only when a move ends
#: within ~1e-7 of a wall. A flip would change that seed's buffer and every number after it far
#: beyond RTOL; at these sizes and seeds the records agree, so the trajectories do.
SEEDS = {"cpu": [1, 4], "reference": [0, 2]}


def _rngs(seed_indices: list[int]) -> list[np.random.Generator]:
    return [np.random.default_rng(np.random.SeedSequence(7, spawn_key=(i,))) for i in seed_indices]


def _assert_records_close(got: dict, want: dict, rtol: float, atol: float) -> None:
    assert list(got) == list(want)
    for key, value in want.items():
        if isinstance(value, float | np.ndarray):  # NaN (walls of the Q-map) on both or neither
            np.testing.assert_allclose(got[key], value, rtol=rtol, atol=atol, err_msg=key)
        else:
            assert got[key] == value, key


@pytest.mark.parametrize("config", ["cpu", "reference"])
def test_batched_seeds_equal_the_one_seed_task(config):
    params = TINY | {"config": config}
    batched = train_online_crl_batched(params, _rngs(SEEDS[config]))
    for record, rng in zip(batched, _rngs(SEEDS[config]), strict=True):
        alone = train_online_crl(dict(params), rng)
        _assert_records_close(record, alone, RTOL, ATOL)
    assert any(r["success"].any() for r in batched)  # the evaluation is exercised
    assert not np.allclose(batched[0]["train_actor_loss"], batched[1]["train_actor_loss"])


def test_a_seeds_record_does_not_depend_on_the_other_seeds():
    """Seed 4 alone in the stack and beside two others (one of them repeated): same record."""
    with_others = train_online_crl_batched(TINY, _rngs([1, 4, 1]))[1]
    alone_in_stack = train_online_crl_batched(TINY, _rngs([4]))[0]
    _assert_records_close(with_others, alone_in_stack, RTOL, ATOL)


def test_each_seed_draws_its_sample_with_the_one_seed_actors_law():
    """The batched actor's sample for a seed is :meth:`neural.crl.Actor.sample` with that
    seed's distribution and generator: the same numbers as the one-seed actor's own sample."""
    torch.manual_seed(0)
    actor = Actor(5, 4, 16)
    obs = torch.randn(6, 5)
    want = actor.sample(obs, torch.Generator().manual_seed(3))
    got = Actor.sample(
        _Distribution(*actor.distribution(obs)), None, torch.Generator().manual_seed(3)
    )
    for g, w in zip(got, want, strict=True):
        assert torch.equal(g, w)


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="rngs"):
        train_online_crl_batched(TINY, [])
    with pytest.raises(ValueError, match="checkpoint_every"):
        train_online_crl_batched(TINY | {"checkpoint_every": 2}, _rngs([0]))
    with pytest.raises(ValueError, match="device"):
        train_online_crl_batched(TINY | {"device": "cpu"}, _rngs([0]))
    with pytest.raises(ValueError, match="epochs"):
        train_online_crl_batched(TINY | {"epochs": 0}, _rngs([0]))
    with pytest.raises(ValueError, match="far_moves"):
        train_online_crl_batched(TINY | {"far_moves": 99}, _rngs([0]))


def _batched_update_on(device: str) -> None:
    """One SGD step of two seeds (actor, α and critic Adam steps) on ``device``."""
    seeds = [_seed_setup(ONLINE, rng, torch.device(device)) for rng in _rngs([0, 1])]
    batches = []
    for k, seed in enumerate(seeds):
        buffer = EpisodeBuffer(capacity=4, horizon=5)
        buffer.add(np.random.default_rng(k).random((2, 6, 2)), np.zeros((2, 5, 2)))
        batches.append(buffer.sample(8, gamma=0.9, rng=seed.rng))
    _BatchedAgent(seeds, torch.device(device)).update(batches).cpu()


@pytest.mark.parametrize(
    "run_on",
    [
        lambda device: train_online_crl_batched(ONLINE, _rngs([0, 1]), device=device),
        _batched_update_on,
    ],
    ids=["train_online_crl_batched", "update"],
)
def test_every_tensor_follows_the_device_up_to_the_first_read_back(run_on):
    """The "meta" device (shapes, no data) stands in for a GPU, as in
    tests/neural/test_deep_crl_device.py: the task runs set-up, stacking and the first
    rollout step's actor there, the update one whole step of the three optimisers, up to the
    first read-back of a number. A tensor left on the CPU would fail before, with a device
    mismatch."""
    with pytest.raises((RuntimeError, NotImplementedError), match="meta tensor") as failed:
        run_on("meta")
    assert "device" not in str(failed.value)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device for torch")
def test_batched_seeds_on_cuda_match_the_one_seed_task_on_the_cpu():
    """CUDA batched against the CPU alone at the device tests' size (ONLINE: the far goals are
    out of reach in 6 steps, so the scores are 0 by geometry and compare exactly; a wall flip
    needs a move ending within ~1e-7 of a wall, improbable in its ~80 moves), at their
    tolerance (other kernels, TF32 off for matmuls; measured there on the CPU: another seed
    moves every float output by 20 to 20,000 times it)."""
    batched = train_online_crl_batched(ONLINE, _rngs([0, 1]), device="cuda")
    for record, rng in zip(batched, _rngs([0, 1]), strict=True):
        on_cpu = train_online_crl(dict(ONLINE), rng)
        for key in ("final_success", "final_time_at_goal", "success", "time_at_goal"):
            np.testing.assert_array_equal(record[key], 0.0, err_msg=key)
            np.testing.assert_array_equal(on_cpu[key], 0.0, err_msg=key)
        _assert_records_close(record, on_cpu, CUDA_RTOL, CUDA_ATOL)
