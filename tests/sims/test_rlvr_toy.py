"""Arm A of the RLVR reproduction: problem generator, policy, GRPO and distillation updates."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sims import rlvr_toy as toy
from tests.naive import score_objective_gradient_naive, success_prob_naive

CFG = toy.ToyConfig(n_train=200, n_test=200)


@pytest.fixture(scope="module")
def problems():
    return toy.make_problems(CFG, 400, np.random.default_rng(0))


def test_problems_follow_the_spec_mix(problems):
    g = problems.g
    assert g.shape == (400, CFG.n_strategies) == problems.x.shape
    assert np.all(g[problems.hard, :-1] == 0)  # hard: no base strategy solves
    assert np.all(g[problems.hard, -1] == CFG.new_success)  # ... the new one does
    solving = g[:, :-1][g[:, :-1] > 0]
    assert solving.min() >= CFG.g_low
    assert solving.max() <= 1
    easy = ~problems.hard
    common = (g[easy, : CFG.n_common] > 0).mean()
    rare = (g[easy, CFG.n_common : -1] > 0).mean()
    assert abs(common - CFG.p_common) < 4 * np.sqrt(0.25 / (easy.sum() * CFG.n_common))
    assert abs(rare - CFG.p_rare) < 0.03
    assert abs(problems.hard.mean() - CFG.hard_frac) < 4 * np.sqrt(0.16 / 400)


def test_snr_shifts_the_context_towards_the_solving_strategies():
    loud = toy.make_problems(replace(CFG, snr=3.0), 400, np.random.default_rng(1))
    solves = loud.g > 0
    assert loud.x[solves].mean() - loud.x[~solves].mean() == pytest.approx(3.0, abs=0.1)


def test_base_and_teacher_logits():
    base, teacher = toy.base_policy(CFG), toy.teacher_policy(CFG)
    assert base.theta[0] == 0
    assert base.theta[1] == pytest.approx(-CFG.popularity)
    assert base.theta[-1] == CFG.new_logit
    assert teacher.theta[-1] == CFG.teacher_new_logit
    assert np.array_equal(base.theta[:-1], teacher.theta[:-1])


def test_success_probs_match_the_naive_sum(problems):
    policy = replace(toy.base_policy(CFG), w=np.random.default_rng(2).normal(size=(16, 16)))
    probs = toy.policy_probs(policy, problems)
    expected = success_prob_naive(probs.tolist(), problems.g.tolist())
    np.testing.assert_allclose(toy.success_probs(policy, problems), expected, rtol=1e-12)


def test_sampled_strategies_follow_the_policy():
    probs = np.array([[0.7, 0.2, 0.1, 0.0], [0.0, 0.0, 0.5, 0.5]])
    picks = toy._sample_strategies(probs, 40_000, np.random.default_rng(3))
    freq = np.stack([np.bincount(row, minlength=4) / row.size for row in picks])
    assert np.all(np.abs(freq - probs) <= 4 * np.sqrt(probs * (1 - probs) / 40_000) + 1e-12)


@settings(max_examples=50, deadline=None)
@given(
    rewards=st.lists(st.lists(st.integers(0, 1), min_size=8, max_size=8), min_size=1, max_size=6)
)
def test_group_advantages_are_centred_and_unit_scale_or_zero(rewards):
    a = toy.group_advantages(np.asarray(rewards, float))
    for row_r, row_a in zip(rewards, a, strict=True):
        assert abs(row_a.sum()) < 1e-9
        if len(set(row_r)) == 1:
            assert np.all(row_a == 0)
        else:
            assert row_a.std() == pytest.approx(1.0)


def test_score_gradient_matches_finite_differences():
    rng = np.random.default_rng(4)
    logits = rng.normal(size=(3, 5))
    picks = rng.integers(0, 5, size=(3, 4))
    weights = rng.normal(size=(3, 4))
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    grad = toy._score_gradient(probs, picks, weights)
    np.testing.assert_allclose(
        grad, score_objective_gradient_naive(logits, picks, weights), atol=1e-7
    )


def test_kl_gradient_matches_finite_differences():
    rng = np.random.default_rng(5)
    z, z_ref = rng.normal(size=5), rng.normal(size=5)

    def kl(v):
        p = np.exp(v) / np.exp(v).sum()
        r = np.exp(z_ref) / np.exp(z_ref).sum()
        return np.sum(p * np.log(p / r))

    numeric = [(kl(z + 1e-6 * e) - kl(z - 1e-6 * e)) / 2e-6 for e in np.eye(5)]
    p, r = (np.exp(v)[None] / np.exp(v).sum() for v in (z, z_ref))
    np.testing.assert_allclose(toy._kl_gradient(p, r)[0], numeric, atol=1e-7)


def test_tabular_grpo_moves_only_sampled_logits_of_the_batch(problems):
    """Group-normalised advantages sum to zero, so unsampled strategies keep their logits."""
    start = replace(toy.base_policy(CFG), table=np.zeros(problems.g.shape))
    one_step, _ = toy.grpo(start, problems, CFG, 1, np.random.default_rng(6))
    assert np.array_equal(one_step.theta, start.theta)
    assert np.array_equal(one_step.w, start.w)
    moved = np.abs(one_step.table).sum(axis=1) > 0
    assert 0 < moved.sum() <= CFG.prompts
    # the new strategy (π ≈ 1e-6) is never sampled: it moves only by round-off of Σ_j A_j = 0
    assert np.max(np.abs(one_step.table[:, -1])) < 1e-12


def test_grpo_raises_training_success_and_keeps_checkpoints(problems):
    base = toy.base_policy(CFG)
    final, saved = toy.grpo(base, problems, CFG, 60, np.random.default_rng(7), checkpoints=(30,))
    assert set(saved) == {30}
    assert toy.success_probs(final, problems).mean() > toy.success_probs(base, problems).mean()


def test_kl_penalty_keeps_the_policy_closer_to_the_base(problems):
    base = toy.base_policy(CFG)
    free, _ = toy.grpo(base, problems, CFG, 100, np.random.default_rng(8))
    tied, _ = toy.grpo(base, problems, replace(CFG, kl=1.0), 100, np.random.default_rng(8))
    assert np.abs(tied.theta - base.theta).sum() < np.abs(free.theta - base.theta).sum()


def test_distillation_learns_the_teachers_new_strategy(problems):
    base = toy.base_policy(CFG)
    student = toy.distill(
        base, toy.teacher_policy(CFG), problems, CFG, 100, np.random.default_rng(9)
    )
    hard = problems.hard
    before = toy.success_probs(base, problems)[hard].mean()
    after = toy.success_probs(student, problems)[hard].mean()
    assert before < 1e-5
    assert after > 1e3 * before


def test_arms_task_is_deterministic_and_complete():
    params = {"snr": 0.0, "n_train": 80, "n_test": 60, "arms": ["grpo", "tabular"]}
    a = toy.toy_arms_task(params, np.random.default_rng(10))
    b = toy.toy_arms_task(params, np.random.default_rng(10))
    assert set(a["test"]) == {"base", "grpo150", "grpo400", "grpo800"}
    assert set(a["train"]) == {"base", "grpo", "tabular"}
    assert a["test"]["base"].shape == (60,)
    assert a["train"]["tabular"].shape == (80,)
    for split in ("test", "train"):
        for arm in a[split]:
            np.testing.assert_array_equal(a[split][arm], b[split][arm])


def test_world_fixes_the_problems_while_seeds_vary_training():
    """With ``world`` the seeds share train and test problems (one problem set, several RL seeds,
    as designed) and only training differs; without it each seed draws its own problems."""
    params = {"snr": 0.0, "n_train": 80, "n_test": 60, "arms": ["grpo"]}
    fixed = [
        toy.toy_arms_task({**params, "world": [0, 1]}, np.random.default_rng(s)) for s in (11, 12)
    ]
    free = [toy.toy_arms_task(params, np.random.default_rng(s)) for s in (11, 12)]
    np.testing.assert_array_equal(fixed[0]["test"]["base"], fixed[1]["test"]["base"])
    np.testing.assert_array_equal(fixed[0]["hard_test"], fixed[1]["hard_test"])
    assert not np.array_equal(fixed[0]["test"]["grpo400"], fixed[1]["test"]["grpo400"])
    assert not np.array_equal(free[0]["test"]["base"], free[1]["test"]["base"])


@pytest.mark.parametrize(
    ("base", "chance", "expected"),
    [(0.5, 0.01, True), (0.10, 0.01, False), (0.35, 0.2, False), (0.65, 0.2, True)],
)
def test_base_learned_gate_needs_margin_and_three_times_chance(base, chance, expected):
    assert toy.base_learned(base, chance, 0.10) is expected
