"""Sampling for the pass@k checks: count histograms and (+, −, +) perturbations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sims.passk_sampling import count_histograms, crossing_search_task, plus_minus_plus
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
    with pytest.raises(ValueError, match="p must be probabilities"):
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
