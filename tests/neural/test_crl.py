"""Online CRL: in-episode truncated-geometric relabeling against a linear-scan oracle, the actor's
tanh-Gaussian log-density, the entropy coefficient moving toward its target, determinism, and a
tiny training run."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from neural.crl import (
    LOG_STD_MAX,
    LOG_STD_MIN,
    Actor,
    Agent,
    EpisodeBuffer,
    far_goals,
    train_online_crl,
    truncated_geometric_offsets,
)
from sims.mazes import U4, U_SMALL, GridMaze
from tests.naive import truncated_geometric_offset_naive, truncated_geometric_pmf_naive


@settings(max_examples=60, deadline=None)
@given(
    horizon=st.integers(1, 200),
    gamma=st.floats(0.5, 0.999),
    u=st.floats(0.0, 1.0, exclude_max=True),
)
def test_offsets_invert_the_truncated_geometric_cdf_like_the_linear_scan(horizon, gamma, u):
    k = int(truncated_geometric_offsets(np.array([horizon]), gamma, np.array([u]))[0])
    assert 1 <= k <= horizon
    pmf = truncated_geometric_pmf_naive(horizon, gamma)
    cdf_before, cdf_at = sum(pmf[: k - 1]), sum(pmf[:k])
    if all(abs(u - c) > 1e-9 for c in (cdf_before, cdf_at)):  # away from a jump of the CDF
        assert k == truncated_geometric_offset_naive(horizon, gamma, u)


@pytest.mark.parametrize(("horizon", "gamma"), [(1, 0.9), (7, 0.6), (60, 0.97)])
def test_offset_frequencies_match_the_truncated_geometric_law(horizon, gamma):
    n = 200_000
    rng = np.random.default_rng(1)
    k = truncated_geometric_offsets(np.full(n, horizon), gamma, rng.random(n))
    freq = np.bincount(k, minlength=horizon + 1)[1:] / n
    pmf = np.array(truncated_geometric_pmf_naive(horizon, gamma))
    se = np.sqrt(pmf * (1 - pmf) / n)
    assert np.all(np.abs(freq - pmf) <= 5 * se + 1e-12)


def test_offsets_reject_bad_input():
    with pytest.raises(ValueError, match="horizon"):
        truncated_geometric_offsets(np.array([0]), 0.9, np.array([0.5]))
    with pytest.raises(ValueError, match="gamma"):
        truncated_geometric_offsets(np.array([3]), 1.0, np.array([0.5]))


@settings(max_examples=30, deadline=None)
@given(
    capacity=st.integers(1, 6),
    n_episodes=st.integers(1, 14),
    horizon=st.integers(1, 12),
    gamma=st.floats(0.3, 0.99),
    seed=st.integers(0, 2**32 - 1),
)
def test_goals_come_from_the_same_episode_at_a_later_step(
    capacity, n_episodes, horizon, gamma, seed
):
    buf = EpisodeBuffer(capacity, horizon, state_dim=2)
    # state = (episode number, step): a goal reveals exactly where it came from
    steps = np.arange(horizon + 1, dtype=float)
    states = np.stack([np.stack([np.full(horizon + 1, e), steps], -1) for e in range(n_episodes)])
    buf.add(states, np.zeros((n_episodes, horizon, 2)))
    assert len(buf) == min(capacity, n_episodes)
    stored = set(range(max(0, n_episodes - capacity), n_episodes))  # FIFO keeps the newest
    assert set(buf.episode_id[: len(buf)].tolist()) == stored
    b = buf.sample(64, gamma, np.random.default_rng(seed))
    assert np.all(b["goal"][:, 0] == b["state"][:, 0])  # same episode
    assert set(b["state"][:, 0].astype(int).tolist()) <= stored
    assert np.all(b["goal"][:, 1] == b["state"][:, 1] + b["k"])
    assert np.all((b["k"] >= 1) & (b["t"] + b["k"] <= horizon))  # later, within the episode


def test_empty_buffer_cannot_be_sampled():
    with pytest.raises(ValueError, match="empty"):
        EpisodeBuffer(2, 5).sample(4, 0.9, np.random.default_rng(0))


def test_actor_log_density_matches_change_of_variables():
    torch.manual_seed(0)
    actor = Actor(5, 4, 16)
    obs = torch.randn(3, 5)
    a, log_pi = actor.sample(obs, torch.Generator().manual_seed(0))
    mean, log_std = actor.distribution(obs)
    u = torch.atanh(a.clamp(-1 + 1e-6, 1 - 1e-6))
    normal = torch.distributions.Normal(mean, log_std.exp())
    expected = (normal.log_prob(u) - torch.log1p(-a.pow(2))).sum(-1)
    assert torch.allclose(log_pi, expected, atol=1e-3)
    assert torch.all((log_std >= -5) & (log_std <= 2))


def _batch(rng, n=64):
    return {
        "state": rng.uniform(-1, 1, (n, 2)),
        "action": rng.uniform(-1, 1, (n, 2)),
        "goal": rng.uniform(-1, 1, (n, 2)),
    }


@pytest.mark.parametrize(("log_std", "direction"), [(0.0, -1), (-4.0, +1)])
def test_entropy_coefficient_moves_toward_the_target_entropy(log_std, direction):
    """A wide policy (entropy above −0.5|A| = −1) lowers α; a narrow one raises it."""
    torch.manual_seed(0)
    agent = Agent.build({"depth": 4, "width": 16, "alpha0": 0.05, "alpha_lr": 3e-2, "lr": 0.0})
    raw = math.atanh(2 * (log_std - LOG_STD_MIN) / (LOG_STD_MAX - LOG_STD_MIN) - 1)
    with torch.no_grad():  # mean 0 and a fixed log σ everywhere; lr 0 keeps the networks fixed
        agent.actor.net.output.weight.zero_()
        agent.actor.net.output.bias.copy_(torch.tensor([0.0, 0.0, raw, raw]))
    rng, gen = np.random.default_rng(0), torch.Generator().manual_seed(0)
    stats = [agent.update(_batch(rng), gen) for _ in range(20)]
    assert (stats[0]["entropy"] > agent.target_entropy) == (direction < 0)
    change = math.log(stats[-1]["alpha"]) - math.log(0.05)
    assert direction * change > 0.1


def test_critic_update_lowers_the_infonce_on_a_fixed_batch():
    torch.manual_seed(0)
    agent = Agent.build({"depth": 4, "width": 32, "lr": 3e-3})
    batch, gen = _batch(np.random.default_rng(0)), torch.Generator().manual_seed(0)
    first = agent.update(batch, gen)["critic_infonce"]
    for _ in range(30):
        last = agent.update(batch, gen)["critic_infonce"]
    assert last < first - 0.3


def test_far_goals_are_behind_the_wall():
    small = GridMaze.from_layout(U_SMALL)
    assert sorted(map(tuple, far_goals(small, 4).tolist())) == [(3, 1), (3, 2), (3, 3)]
    u4 = GridMaze.from_layout(U4)
    assert sorted(map(tuple, far_goals(u4, 8).tolist())) == [(4, 1), (5, 1), (5, 2)]


TINY = {"depth": 4, "width": 16, "epochs": 3, "n_envs": 4, "horizon": 20, "grad_steps": 4,
        "batch": 32, "eval_every": 1, "eval_episodes": 2}  # fmt: skip


def test_same_seed_same_result_and_a_different_seed_differs():
    a = train_online_crl(TINY, np.random.default_rng(5))
    b = train_online_crl(TINY, np.random.default_rng(5))
    c = train_online_crl(TINY, np.random.default_rng(6))
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert not np.array_equal(a["train_critic_infonce"], c["train_critic_infonce"])


def test_tiny_training_run_reports_both_metrics_and_curves():
    r = train_online_crl(TINY | {"epochs": 4, "eval_every": 2}, np.random.default_rng(0))
    assert r["env_steps"].tolist() == [2 * 4 * 20, 4 * 4 * 20]
    assert 0 <= r["final_time_at_goal"] <= r["final_success"] <= 1
    assert r["grad_steps_total"] == 16
    assert len(r["train_alpha"]) == 4
    assert np.all(r["train_alpha"] > 0)
    assert np.isfinite(r["train_critic_infonce"]).all()
    q = r["q_map"]
    assert q.shape == (5 * 4, 5 * 4)
    assert np.isnan(q).any()
    assert np.isfinite(q[~np.isnan(q)]).all()


def test_a_layout_without_far_goals_is_rejected():
    with pytest.raises(ValueError, match="far_moves"):
        train_online_crl(TINY | {"far_moves": 99}, np.random.default_rng(0))


@pytest.mark.parametrize("config", ["cpu", "reference"])
def test_agent_builds_the_configs_networks_and_alpha(config):
    agent = Agent.build({"depth": 4, "width": 16, "config": config})
    one = 1 if config == "cpu" else 0
    assert agent.actor.net.input_layer.dense.in_features == 4 + one
    assert agent.critic.phi.input_layer.dense.in_features == 4 + one
    assert agent.critic.psi.input_layer.dense.in_features == 2 + one
    eps = {m.eps for m in agent.critic.modules() if isinstance(m, torch.nn.LayerNorm)}
    assert eps == ({1e-5} if config == "cpu" else {1e-6})
    assert float(agent.log_alpha.detach().exp()) == pytest.approx(0.05 if config == "cpu" else 1)
    assert agent.opt_alpha.param_groups[0]["lr"] == (3e-3 if config == "cpu" else 3e-4)


@pytest.mark.parametrize("config", ["cpu", "reference"])
def test_alpha_loss_gradient_is_the_configs(config):
    """∂L/∂log α: −(log π + H̄) for the log-α loss; α·(−log π − H̄) for the reference's."""
    agent = Agent.build({"depth": 4, "width": 16, "config": config, "alpha0": 0.5})
    log_pi = torch.tensor([-2.0, 0.5, 1.0])
    agent.alpha_loss(log_pi).backward()
    gap = float((log_pi + agent.target_entropy).mean())  # mean(log π + H̄) = −0.5 + (−1)
    factor = 0.5 if config == "reference" else 1.0
    assert float(agent.log_alpha.grad) == pytest.approx(-factor * gap)


def test_reference_config_trains_and_rejects_unknown_configs():
    r = train_online_crl(TINY | {"config": "reference"}, np.random.default_rng(0))
    # from α₀ = 1: each of the first 4 Adam steps moves log α by at most ≈ its lr, 3e-4
    assert 0 < abs(math.log(r["train_alpha"][0])) < 4 * 3e-4 * 1.01
    with pytest.raises(ValueError, match="config"):
        Agent.build({"depth": 4, "config": "jax"})


# ------------------------------------------------------------------- checkpoint and resume
class _Killed(Exception):
    """Stands for the process dying (SIGKILL) in a given SGD step."""


def _kill_at(monkeypatch, calls: int) -> None:
    """Make online training die on its ``calls``-th SGD step (agent update)."""
    real, count = Agent.update, {"n": 0}

    def dying(self, *args, **kwargs):
        count["n"] += 1
        if count["n"] == calls:
            raise _Killed
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Agent, "update", dying)


#: 5 epochs of 2 SGD steps, saved every 2 epochs (the last save is the final epoch).
RESUMABLE = TINY | {"epochs": 5, "grad_steps": 2, "eval_every": 2, "checkpoint_every": 2}


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k, value in a.items():
        np.testing.assert_array_equal(value, b[k])


@pytest.mark.parametrize(("killed_at", "saved_epoch"), [(6, 2), (9, 4), (2, None)])
def test_killed_and_resumed_online_training_is_bit_identical(
    tmp_path, monkeypatch, killed_at, saved_epoch
):
    from sims.sweep import _CHECKPOINT_DIR

    uninterrupted = train_online_crl(RESUMABLE, np.random.default_rng(3))
    token = _CHECKPOINT_DIR.set(tmp_path / "task.ckpt")
    path = tmp_path / "task.ckpt" / "online.pt"
    try:
        with monkeypatch.context() as patch:
            _kill_at(patch, killed_at)
            with pytest.raises(_Killed):
                train_online_crl(RESUMABLE, np.random.default_rng(3))
        assert (torch.load(path)["epoch"] if path.exists() else None) == saved_epoch
        _assert_same(train_online_crl(RESUMABLE, np.random.default_rng(3)), uninterrupted)
        assert torch.load(path)["epoch"] == RESUMABLE["epochs"]
        _assert_same(train_online_crl(RESUMABLE, np.random.default_rng(3)), uninterrupted)  # done
        with pytest.raises(ValueError, match="another run"):
            train_online_crl(RESUMABLE, np.random.default_rng(4))
    finally:
        _CHECKPOINT_DIR.reset(token)


def test_online_checkpointing_leaves_the_result_unchanged(tmp_path):
    """Quick and full never checkpoint; with checkpoints the numbers are the same."""
    from sims.sweep import run_sweep

    plain = {k: v for k, v in RESUMABLE.items() if k != "checkpoint_every"}
    a = run_sweep(train_online_crl, [plain], root_seed=2)
    b = run_sweep(train_online_crl, [RESUMABLE], root_seed=2, cache_dir=tmp_path)
    assert a[0]["result"] == b[0]["result"]
