"""theory.passk_stats: statistics of measured p and counts against closed forms and naive tallies."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from tests.naive import solved_regions_naive
from theory.passk import crossing_k, logit_affine, tilt
from theory.passk_stats import (
    accuracy_histogram,
    estimator_z,
    fit_logit_affine_parts,
    log2_k_star,
    solved_regions,
    solved_sets,
)


def test_estimator_z_at_k_1_is_the_binomial_z_of_the_mean_count():
    """At n = k = 1 the estimate is the mean count and its variance Σ p(1 − p) / P²."""
    rng = np.random.default_rng(5)
    p = rng.beta(0.5, 1.5, size=300)
    c = rng.binomial(1, p)
    z = estimator_z(p, c, 1, [1])
    expected = (c.mean() - p.mean()) / np.sqrt(np.sum(p * (1 - p)) / p.size**2)
    assert z == pytest.approx([expected], rel=1e-12)


def test_estimator_z_is_standard_normal_over_redraws_of_the_counts():
    rng = np.random.default_rng(6)
    p = rng.beta(0.4, 1.2, size=200)
    n, ks = 64, [1, 4, 16, 64]
    z = np.array([estimator_z(p, rng.binomial(n, p), n, ks) for _ in range(300)])  # (300, 4)
    assert np.all(np.abs(z.mean(axis=0)) < 4 / np.sqrt(300))
    assert np.all(np.abs(z.std(axis=0) - 1) < 0.15)


def test_log2_k_star_is_censored_at_the_ends_of_the_grid():
    ks = np.array([1, 2, 4, 8])
    base = np.array([0.2, 0.3, 0.4, 0.5])
    assert log2_k_star(ks, base, base + 0.1) == (3.0, 0)  # RL ahead throughout: log2 8
    assert log2_k_star(ks, base, base - 0.1) == (-1.0, 0)  # never ahead: an octave below 1
    assert log2_k_star(ks, base, base + 0.1, none_ahead=10.0) == (10.0, 0)
    log_k, changes = log2_k_star(ks, base, base + np.array([0.1, 0.1, -0.1, -0.1]))
    assert (1.0 < log_k < 2.0, changes) == (True, 1)
    cross = crossing_k(ks, base, base + np.array([0.1, 0.1, -0.1, -0.1]))
    assert log_k == math.log2(cross.k_star)


def test_fit_logit_affine_parts_recovers_the_map_on_the_tail_and_the_bulk():
    p = np.linspace(1e-3, 0.999, 500)
    fit = fit_logit_affine_parts(p, logit_affine(p, 2.0, -1.0), min_p=1e-4, tail_p=0.1)
    for part in ("", "_tail", "_bulk"):
        assert (fit[f"alpha{part}"], fit[f"beta{part}"]) == pytest.approx((2.0, -1.0))
    assert fit["n_tail"] == int(np.sum(p < 0.1))
    assert fit["fixed_point_tail"] == pytest.approx(special.expit(1.0))  # σ(−β/(α − 1))


def test_fit_logit_affine_parts_is_nan_where_a_part_has_too_few_problems():
    p = np.array([1e-6, 0.3, 0.5, 0.7])  # one problem below min_p, none in the tail
    fit = fit_logit_affine_parts(p, tilt(p, 1.0), min_p=1e-4, tail_p=0.1)
    assert (fit["alpha"], fit["alpha_bulk"]) == pytest.approx((1.0, 1.0))
    assert math.isnan(fit["alpha_tail"])
    assert math.isnan(fit["fixed_point_tail"])
    assert fit["n_tail"] == 0


def test_accuracy_histogram_bins_zero_tenths_and_one():
    hist = accuracy_histogram(np.array([0, 1, 26, 128, 255, 256]), 256)
    assert hist.tolist() == [1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1]


def test_solved_regions_match_the_naive_tally():
    rng = np.random.default_rng(3)
    counts = {arm: rng.integers(0, 3, size=200) for arm in ("base", "rl", "distill")}
    regions = solved_regions(counts)
    assert len(regions) == 8
    assert sum(regions.values()) == 200
    assert {k: v for k, v in regions.items() if v} == solved_regions_naive(counts)
    assert next(iter(regions)) == "base+rl+distill"
    assert list(regions)[-1] == "none"


def test_solved_sets_are_the_two_model_regions():
    rng = np.random.default_rng(4)
    base, rl = rng.integers(0, 3, size=100), rng.integers(0, 3, size=100)
    regions = solved_regions({"base": base, "rl": rl})
    assert solved_sets(base, rl) == {
        "both": regions["base+rl"],
        "base_only": regions["base"],
        "rl_only": regions["rl"],
        "neither": regions["none"],
    }
