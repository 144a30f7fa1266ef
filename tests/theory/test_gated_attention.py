"""The statistics of the gated-attention claims: hand-computed values at the thresholds, diverged
runs (NaN) counted where each statistic says, and scipy's paired t."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from theory import gated_attention as gt

UNIFORM = 0.05


def test_sparsity_margin_and_units_at_the_papers_level():
    margins = gt.sparsity_margin(np.array([0.2, 0.26, 0.2, 0.25]), np.array([0.3, 0.3, 0.19, 0.2]))
    np.testing.assert_allclose(margins, [0.2, -0.04, -0.05, 0.0], atol=1e-12)
    units = gt.sparse_units(np.array([0.2, np.nan]), np.array([0.3, np.nan]))
    assert units == {"gate_mean": [0.2, 1.0], "gate_below_0.1": [0.3, 0.0]}  # diverged: not sparse


def test_sparsity_statistics_count_the_seeds_at_the_papers_level():
    got = gt.sparsity_statistics(np.array([0.2, 0.26, 0.25]), np.array([0.3, 0.3, 0.2]))
    np.testing.assert_allclose(got["sparsity_margin"], [0.2, -0.04, 0.0], atol=1e-12)
    assert got["sparsity_margin_min"] == pytest.approx(-0.04)
    assert got["sparsity_margin_max"] == pytest.approx(0.2)
    assert got["seeds_sparse"] == 2  # a margin of exactly 0 is sparse


def test_sink_units_count_only_seeds_with_a_baseline_sink():
    base = np.array([5.0, 1.0, 4.0]) * UNIFORM
    gated = np.array([1.0 * UNIFORM, 0.5 * UNIFORM, np.nan])
    units = gt.sink_units(base, gated, UNIFORM)
    np.testing.assert_allclose(units, [np.log(1 / 5), np.log(1 / (4 * UNIFORM))])
    assert gt.sink_units(np.array([2.0]) * UNIFORM, np.array([1.0]) * UNIFORM, UNIFORM).size == 0


def test_sink_statistics_report_the_ratios_of_every_seed():
    base, gated = np.array([8.0, 2.0, 6.0]) * UNIFORM, np.array([1.0, 1.0, 3.0]) * UNIFORM
    got = gt.sink_statistics(base, gated, UNIFORM)
    np.testing.assert_allclose(got["f_attn_log_ratio"], np.log([1 / 8, 1 / 2]))
    np.testing.assert_allclose(got["baseline_over_uniform"], [8.0, 2.0, 6.0])
    np.testing.assert_allclose(got["gated_over_baseline"], [1 / 8, 1 / 2, 1 / 2])
    assert got["gated_over_baseline_max"] == pytest.approx(0.5)  # over the seeds with a sink
    assert got["seeds_with_sink"] == 2
    none = gt.sink_statistics(np.array([2.0]) * UNIFORM, np.array([1.0]) * UNIFORM, UNIFORM)
    assert math.isnan(none["gated_over_baseline_max"])
    assert none["seeds_with_sink"] == 0


def test_a_baseline_sink_is_a_high_mean_or_a_sink_in_some_head():
    # mean F-Attn below 3× uniform but one head above 0.3 (sink rate > 0): the seed counts
    assert gt.has_baseline_sink([1.5, 3.0, 2.0], [0.0, 0.0, 0.25]).tolist() == [False, True, True]


def test_compare_arms_counts_a_diverged_run_as_all_weight_on_token_zero():
    got = gt.compare_arms(np.array([0.1, np.nan, 0.2]), np.array([0.4, 0.5, np.nan]))
    np.testing.assert_allclose(got, [np.log(4.0), np.log(0.5), np.log(5.0)])


def test_finite_mean_skips_nan_and_is_nan_on_nothing():
    assert gt.finite_mean(np.array([1.0, np.nan, 3.0])) == pytest.approx(2.0)
    assert math.isnan(gt.finite_mean(np.array([np.nan])))


def test_paired_log_ratio_skips_diverged_pairs():
    got = gt.paired_log_ratio(np.array([2.0, 2.0, np.nan]), np.array([1.0, np.nan, 1.0]))
    np.testing.assert_allclose(got, [np.log(0.5)])


def test_paired_t_is_scipys():
    d = np.array([-0.012, -0.004, -0.011, -0.006, -0.010])
    assert gt.paired_t(d) == pytest.approx(stats.ttest_1samp(d, 0.0).statistic)
    assert np.isnan(gt.paired_t(np.array([0.1])))


def test_loss_excess_counts_a_diverged_run_at_the_divergence_level():
    losses = np.array([[2.0, 2.2], [2.0, np.nan], [2.1, 2.0]])  # (seeds, LRs)
    diverged = np.array([[False, False], [False, True], [False, False]])
    np.testing.assert_allclose(gt.loss_excess(losses, diverged, 6.5), [0.2, 4.5, 0])
    np.testing.assert_array_equal(gt.lr_failures(losses, diverged), [True, True, False])
    np.testing.assert_allclose(gt.lr_degradation(losses, diverged), [0.2, np.inf, 0])


def test_lr_grid_statistics_gather_one_arms_grid():
    losses = np.array([[2.0, 2.04], [2.0, 2.3]])
    diverged = np.zeros_like(losses, dtype=bool)
    got = gt.lr_grid_statistics(losses, diverged, 6.5)
    assert got["loss"] is losses
    np.testing.assert_allclose(got["excess"], [0.04, 0.3])
    np.testing.assert_allclose(got["degradation"], [0.04, 0.3])
    assert got["failures"] == 1  # only the second seed degrades by more than 0.05 nats
