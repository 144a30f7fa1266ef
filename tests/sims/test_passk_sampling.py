"""Sampling for the pass@k checks: count histograms and (+, −, +) perturbations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sims.passk_sampling import (
    count_histograms,
    crossing_search_draws,
    crossing_search_task,
    estimator_exact_bias,
    estimator_mean_and_se,
    estimator_z,
    histogram_tasks,
    plus_minus_plus,
    summed_histograms,
)
from theory import passk
from theory.passk import sign_changes


def test_count_histograms_counts_every_evaluation_and_matches_binomial_means():
    p = np.array([0.0, 0.1, 0.5, 1.0])
    hist = count_histograms(p, n=10, reps=20_000, rng=1)
    assert hist.shape == (4, 11)
    assert np.all(hist.sum(axis=1) == 20_000)
    assert hist[0, 0] == 20_000
    assert hist[3, 10] == 20_000
    mean_c = hist @ np.arange(11) / 20_000
    se = np.sqrt(10 * p * (1 - p) / 20_000)
    assert np.all(np.abs(mean_c - 10 * p) <= 4 * se + 1e-12)


@pytest.mark.parametrize("p", [[-0.1], [1.5], [np.nan]])
def test_count_histograms_rejects_non_probabilities(p):
    with pytest.raises(ValueError, match=r"p must be finite in \[0, 1\]"):
        count_histograms(np.array(p), n=4, reps=2)


@given(seed=st.integers(0, 2**32 - 1), g=st.integers(4, 40))
def test_plus_minus_plus_is_a_zero_mass_feasible_three_block_perturbation(seed, g):
    rng = np.random.default_rng(seed)
    p = np.sort(rng.random(g))
    w = rng.dirichlet(np.ones(g))
    d = plus_minus_plus(p, w, rng)
    assert abs(d.sum()) <= 1e-12
    assert np.all(w + d >= -1e-15)
    signs = np.sign(d[d != 0])
    assert np.count_nonzero(np.diff(signs)) <= 2  # (+, −, +) along p: at most two changes


@settings(max_examples=50)
@given(seed=st.integers(0, 2**32 - 1))
def test_plus_minus_plus_perturbations_cross_at_most_once(seed):
    """The variation-diminishing property of (1 − p)^k (docs/rlvr.md), one random case at a time."""
    rng = np.random.default_rng(seed)
    p = np.sort(rng.uniform(1e-4, 1 - 1e-4, size=16))
    d = plus_minus_plus(p, rng.dirichlet(np.ones(16)), rng)
    ks = np.arange(1, 2049)
    decay = (1 - p[None, :]) ** ks[:, None]
    assert len(sign_changes(-(decay @ d), scale=decay @ np.abs(d))) <= 1


def test_crossing_search_task_reports_per_draw_statistics():
    out = crossing_search_task({"grid": 12, "draws": 5, "k_max": 256}, np.random.default_rng(0))
    assert {len(v) for v in out.values()} == {5}
    assert max(out["n_changes"]) <= 1
    for n, first_k in zip(out["n_changes"], out["first_k"], strict=True):
        assert (first_k > 0) == (n > 0)


def test_histogram_tasks_split_the_evaluations_into_chunks():
    p = np.array([0.2, 0.7])
    tasks = histogram_tasks(p, 8, 1000, 4)
    assert [t["chunk"] for t in tasks] == [0, 1, 2, 3]
    assert all(t["reps"] == 250 and t["n"] == 8 and t["p"] is p for t in tasks)


def test_summed_histograms_add_the_tasks_histograms():
    rng = np.random.default_rng(4)
    parts = [count_histograms(np.array([0.3, 0.6]), 5, 100, rng) for _ in range(3)]
    records = [{"result": {"hist": h.tolist()}} for h in parts]
    total = summed_histograms(records)
    assert total.dtype == np.int64
    assert np.array_equal(total, parts[0] + parts[1] + parts[2])


def test_estimator_mean_and_se_of_the_count_itself():
    """est(n, c, k) = c: the mean is Σ_c h_c·c / R per problem, averaged, and the s.e. is the
    binomial one of that average."""
    p, n, reps = np.array([0.2, 0.5, 0.9]), 6, 50_000
    hist = count_histograms(p, n, reps, rng=5)
    mean, se = estimator_mean_and_se(hist, lambda n_, c, k: c.astype(float), n, [1])
    c_mean = hist @ np.arange(n + 1) / reps
    assert mean[0] == pytest.approx(c_mean.mean())
    assert se[0] == pytest.approx(np.sqrt(np.sum(n * p * (1 - p))) / 3 / np.sqrt(reps), rel=0.02)


def test_estimator_z_is_small_for_the_unbiased_estimator_and_large_for_the_plugin():
    p, n, ks = np.array([0.05, 0.3, 0.8]), 16, [1, 4, 16]
    hist = count_histograms(p, n, 40_000, rng=6)
    truth = np.array([np.mean(passk.pass_at_k_exact(p, k)) for k in ks])
    mean, z = estimator_z(hist, passk.pass_at_k, n, ks, truth)
    assert np.all(np.abs(z) <= 4)
    assert mean == pytest.approx(truth, abs=0.01)
    _, z_plug = estimator_z(hist, passk.pass_at_k_plugin, n, ks, truth)
    assert np.all(z_plug[1:] < -4)


def test_estimator_exact_bias_vanishes_only_for_the_unbiased_estimator():
    p, n, ks = np.array([0.05, 0.3, 0.8]), 16, [1, 4, 16]
    truth = np.array([np.mean(passk.pass_at_k_exact(p, k)) for k in ks])
    assert np.max(np.abs(estimator_exact_bias(passk.pass_at_k, p, n, ks, truth))) < 1e-12
    plug = estimator_exact_bias(passk.pass_at_k_plugin, p, n, ks, truth)
    assert abs(plug[0]) < 1e-12
    assert np.all(plug[1:] < -1e-3)


def test_crossing_search_draws_concatenate_the_tasks_in_order():
    records = [
        {
            "result": crossing_search_task(
                {"grid": 12, "draws": 5, "k_max": 64}, np.random.default_rng(s)
            )
        }
        for s in range(2)
    ]
    draws = crossing_search_draws(records)
    assert draws["n_changes"].dtype.kind == "i"
    assert (
        draws["n_changes"].tolist()
        == records[0]["result"]["n_changes"] + records[1]["result"]["n_changes"]
    )
    assert draws["first_k"].shape == draws["delta_1"].shape == draws["delta_end"].shape == (10,)
