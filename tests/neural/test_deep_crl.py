"""The paper's encoder (depth convention, init, switches), the critic's energy and loss against
loop oracles, the signal probes' regimes at tiny sizes, and determinism of the training task."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from neural.deep_crl import (
    CONFIGS,
    VARIANTS,
    Critic,
    Encoder,
    Variant,
    critic_loss,
    energy_matrix,
    get_config,
    infonce_terms,
    rank_agreement,
    signal_at_init,
    spearman_rows,
    train_maze_critic,
    with_constant_feature,
)
from sims.mazes import GridMaze, serpentine_layout, successor_measure
from tests.naive import energy_naive, infonce_naive


@pytest.mark.parametrize(("depth", "width"), [(0, 8), (4, 16), (8, 12)])
def test_parameter_count_follows_the_depth_convention(depth, width):
    n_in, n_out = 5, 3
    enc = Encoder(n_in, n_out, depth, width, VARIANTS["paper"])
    n_dense = sum(isinstance(m, torch.nn.Linear) for m in enc.modules())
    assert n_dense == depth + 2
    expected = (n_in * width + 3 * width) + depth * (width**2 + 3 * width) + width * n_out + n_out
    assert sum(p.numel() for p in enc.parameters()) == expected


def test_biases_are_zero_and_weights_uniform_within_one_over_root_fan_in():
    enc = Encoder(4, 8, 8, 32, VARIANTS["paper"])
    for m in enc.modules():
        if isinstance(m, torch.nn.Linear):
            assert torch.all(m.bias == 0)
            assert m.weight.abs().max() <= 1 / np.sqrt(m.in_features)


@pytest.mark.parametrize("depth", [-4, 6])
def test_depth_must_be_a_multiple_of_four(depth):
    with pytest.raises(ValueError, match="depth"):
        Encoder(2, 2, depth, 8, VARIANTS["paper"])


def test_unknown_activation_is_rejected():
    with pytest.raises(ValueError, match="activation"):
        Encoder(2, 2, 4, 8, Variant(activation="tanh"))


def test_switches_change_the_modules():
    plain = Encoder(2, 2, 4, 8, VARIANTS["no_res_no_ln"])
    assert not any(isinstance(m, torch.nn.LayerNorm) for m in plain.modules())
    relu = Encoder(2, 2, 4, 8, VARIANTS["relu"])
    assert any(isinstance(m, torch.nn.ReLU) for m in relu.modules())
    unit = Encoder(2, 6, 4, 8, VARIANTS["normalized"])(torch.randn(5, 2))
    assert torch.allclose(unit.norm(dim=1), torch.ones(5), atol=1e-6)


def test_residual_adds_the_block_output():
    torch.manual_seed(0)
    enc = Encoder(3, 2, 4, 8, VARIANTS["paper"])
    x = torch.randn(4, 3)
    h_in, h_out = enc.trunk(x)
    assert torch.allclose(h_out, h_in + enc.blocks[0](h_in))


def test_energy_and_infonce_match_loop_oracles():
    gen = torch.Generator().manual_seed(3)
    phi, psi = torch.randn(6, 4, generator=gen), torch.randn(6, 4, generator=gen)
    logits = energy_matrix(phi, psi)
    assert np.allclose(logits.numpy(), energy_naive(phi.tolist(), psi.tolist()), atol=1e-5)
    nce, _ = infonce_terms(logits)
    assert float(nce) == pytest.approx(infonce_naive(logits.tolist()), abs=1e-5)
    lse = torch.logsumexp(logits, 1)
    assert float(critic_loss(logits)) == pytest.approx(float(nce + 0.1 * (lse**2).mean()), 1e-6)


def test_paired_energy_is_the_diagonal_of_the_energy_matrix():
    critic = Critic(3, 2, 4, 8, VARIANTS["paper"])
    sa, g = torch.randn(5, 3), torch.randn(5, 2)
    assert critic.paired(sa, g).shape == (5,)
    assert torch.allclose(critic.paired(sa, g), critic(sa, g).diagonal(), atol=1e-5)


def test_critic_energy_is_minus_the_embedding_distance():
    critic = Critic(3, 2, 4, 8, VARIANTS["paper"])
    sa, g = torch.randn(5, 3), torch.randn(5, 2)
    f = critic(sa, g)
    assert f.shape == (5, 5)
    assert torch.all(f < 0)
    d = torch.cdist(critic.phi(sa), critic.psi(g))
    assert torch.allclose(-f, torch.sqrt(d**2 + 1e-6), atol=1e-5)


def test_signal_probe_regimes_at_small_width():
    rng = np.random.default_rng
    no_ln = [signal_at_init(VARIANTS["no_ln"], d, 32, rng(0), batch=64) for d in (4, 32)]
    assert all(abs(r["trunk_gain"] - 1) < 0.02 for r in no_ln)  # blocks ≈ identity
    paper = [signal_at_init(VARIANTS["paper"], d, 32, rng(0), batch=64) for d in (4, 32)]
    assert paper[1]["trunk_gain"] > 2 * paper[0]["trunk_gain"]  # the trunk grows with blocks
    plain = [signal_at_init(VARIANTS["no_res_no_ln"], d, 32, rng(0), batch=64) for d in (4, 8)]
    assert plain[1]["output_rms"] < 0.05 * plain[0]["output_rms"]  # vanishes
    assert signal_at_init(VARIANTS["paper"], 4, 32, rng(5), batch=64) == signal_at_init(
        VARIANTS["paper"], 4, 32, rng(5), batch=64
    )


def test_spearman_rows_skips_short_rows_and_scores_perfect_rankings():
    f = np.array([[0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0]])
    mask = np.array([[True, True, True, True], [True, True, False, False]])
    assert spearman_rows(f, f * 2, mask) == pytest.approx(1.0)


def test_rank_agreement_scores_geodesic_and_euclidean_critics():
    """Critics whose f is −geodesic (depth 0) and −Euclidean (depth 4), two seeds each: the first
    ranks goals perfectly (ρ = 1) and the shortcut index is negative; the second follows the
    shortcut through the walls (ρ < 1, shortcut index 1 − ρ > 0); log M scores ``rho_opt``."""
    maze = GridMaze.from_layout(serpentine_layout(3, 5))
    geo, euc = maze.geodesic_distances(), maze.euclidean_distances()
    m = successor_measure(maze.transition_matrix(), 0.95)
    records = [{"params": {"depth": d}, "result": {"f": f}} for d, f in [(0, -geo), (4, -euc)] * 2]
    got = rank_agreement(records, maze)
    assert list(got.rho) == [0, 4]
    np.testing.assert_allclose(got.rho[0], [1.0, 1.0])
    assert got.rho[4][0] == got.rho[4][1] < 0.99
    np.testing.assert_allclose(got.shortcut[4], 1 - got.rho[4])
    assert np.all(got.shortcut[0] < 0)
    log_m = rank_agreement([{"params": {"depth": 0}, "result": {"f": np.log(m)}}], maze)
    assert log_m.rho[0][0] == got.rho_opt
    # against Euclidean "theory" the roles swap: the Euclidean critic ranks perfectly
    swapped = rank_agreement(records, maze, distance=GridMaze.euclidean_distances)
    np.testing.assert_allclose(swapped.rho[4], [1.0, 1.0])


def test_constant_feature_is_appended():
    out = with_constant_feature(np.zeros((3, 2)))
    assert out.shape == (3, 3)
    assert np.all(out[:, 2] == 1)


def test_maze_critic_task_is_deterministic_and_learns():
    params = {"variant": "paper", "depth": 4, "width": 16, "steps": 40, "n_pairs": 2000,
              "batch": 64, "lr": 3e-3, "return_f": True}  # fmt: skip
    a = train_maze_critic(params, np.random.default_rng(7))
    b = train_maze_critic(params, np.random.default_rng(7))
    assert a["train_loss"] == b["train_loss"]
    assert np.array_equal(a["f"], b["f"])
    assert a["f"].shape == (97, 97)
    assert a["loss_curve"][-1] < a["loss_curve"][0]


def test_configs_pin_the_cpu_defaults_and_the_reference_settings():
    """ "cpu" (default): torch's LN ε, α₀ 0.05, α lr 3e-3, the log-α loss, a constant input 1.
    "reference" (scaling-crl train.py): flax's LN ε 1e-6, log α₀ = 0, α lr 3e-4, the α-loss with the
    factor α, raw inputs."""
    cpu, ref = CONFIGS["cpu"], CONFIGS["reference"]
    assert (cpu.layer_norm_eps, cpu.alpha0, cpu.alpha_lr) == (1e-5, 0.05, 3e-3)
    assert (cpu.alpha_loss, cpu.constant_feature) == ("log", True)
    assert (ref.layer_norm_eps, ref.alpha0, ref.alpha_lr) == (1e-6, 1.0, 3e-4)
    assert (ref.alpha_loss, ref.constant_feature) == ("alpha", False)
    assert Variant().layer_norm_eps == torch.nn.LayerNorm(4).eps == cpu.layer_norm_eps
    with pytest.raises(ValueError, match="config"):
        get_config("flax")


def test_maze_critic_reference_config_feeds_raw_coordinates_with_flax_eps():
    params = {"variant": "paper", "depth": 4, "width": 16, "steps": 5, "n_pairs": 500,
              "batch": 32, "return_f": True}  # fmt: skip
    cpu = train_maze_critic(params, np.random.default_rng(7))
    ref = train_maze_critic(params | {"config": "reference"}, np.random.default_rng(7))
    assert ref["f"].shape == cpu["f"].shape == (97, 97)
    assert not np.array_equal(ref["f"], cpu["f"])


# ------------------------------------------------------------------- checkpoint and resume
class _Killed(Exception):
    """Stands for the process dying (SIGKILL) at a given SGD step."""


def _kill_at(monkeypatch, calls: int) -> None:
    """Make the critic training die on its ``calls``-th loss evaluation (one per SGD step)."""
    import neural.deep_crl as dc

    real, count = dc.critic_loss, {"n": 0}

    def dying(*args, **kwargs):
        count["n"] += 1
        if count["n"] == calls:
            raise _Killed
        return real(*args, **kwargs)

    monkeypatch.setattr(dc, "critic_loss", dying)


#: The paper-scale task shrunk: 25 steps saved every 10, so the last segment is partial.
SHRUNK = {"variant": "paper", "depth": 4, "width": 8, "steps": 25, "n_pairs": 500, "batch": 16,
          "lr": 3e-3, "return_f": True, "checkpoint_every": 10}  # fmt: skip


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k, value in a.items():
        np.testing.assert_array_equal(value, b[k])


@pytest.mark.parametrize(("killed_at", "saved_step"), [(15, 10), (11, 10), (21, 20), (5, None)])
def test_killed_and_resumed_critic_training_is_bit_identical(
    tmp_path, monkeypatch, killed_at, saved_step
):
    from sims.sweep import _CHECKPOINT_DIR

    uninterrupted = train_maze_critic(SHRUNK, np.random.default_rng(3))
    token = _CHECKPOINT_DIR.set(tmp_path / "task.ckpt")
    try:
        with monkeypatch.context() as patch:
            _kill_at(patch, killed_at)
            with pytest.raises(_Killed):
                train_maze_critic(SHRUNK, np.random.default_rng(3))
        path = tmp_path / "task.ckpt" / "critic.pt"
        assert (torch.load(path)["step"] if path.exists() else None) == saved_step
        _assert_same(train_maze_critic(SHRUNK, np.random.default_rng(3)), uninterrupted)
        assert torch.load(path)["step"] == SHRUNK["steps"]
        _assert_same(train_maze_critic(SHRUNK, np.random.default_rng(3)), uninterrupted)  # done
        with pytest.raises(ValueError, match="another run"):
            train_maze_critic(SHRUNK, np.random.default_rng(4))
    finally:
        _CHECKPOINT_DIR.reset(token)


def test_killed_critic_sweep_resumes_mid_task_and_cleans_up(tmp_path, monkeypatch):
    from sims.sweep import run_sweep

    params = [SHRUNK, SHRUNK | {"variant": "no_ln"}]
    reference = run_sweep(train_maze_critic, params, root_seed=5)
    cache = tmp_path / "sweep"
    with monkeypatch.context() as patch:
        _kill_at(patch, SHRUNK["steps"] + 13)  # task 0 done, task 1 killed at step 13
        with pytest.raises(_Killed):
            run_sweep(train_maze_critic, params, root_seed=5, cache_dir=cache)
    (folder,) = [d for d in cache.iterdir() if d.is_dir()]
    assert (folder / "task-000001.ckpt" / "critic.pt").exists()
    resumed = run_sweep(train_maze_critic, params, root_seed=5, cache_dir=cache)
    assert [r["result"] for r in resumed] == [r["result"] for r in reference]
    assert not (folder / "task-000001.ckpt").exists()


def test_checkpointing_leaves_the_result_unchanged(tmp_path):
    """Quick and full never checkpoint; with checkpoints the numbers are the same."""
    from sims.sweep import run_sweep

    plain = {k: v for k, v in SHRUNK.items() if k != "checkpoint_every"}
    a = run_sweep(train_maze_critic, [plain], root_seed=2)
    b = run_sweep(train_maze_critic, [SHRUNK], root_seed=2, cache_dir=tmp_path)
    assert a[0]["result"] == b[0]["result"]
