"""The rlvr claims pass with our theory and FAIL when handed a wrong theory; the tests marked
``claim_fails`` hand each claim a plausible wrong theory near its threshold."""

from __future__ import annotations

import numpy as np
import pytest

from paper_checks.checks import rlvr
from paper_checks.context import Context
from paper_checks.results import Verdict
from theory import passk


@pytest.fixture
def ctx(tmp_path):
    return Context(scale="quick", seed=0, out_dir=tmp_path, claim_id="rlvr.under_test")


def test_estimator_unbiased_passes(ctx):
    result = rlvr.estimator_unbiased(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert np.max(np.abs(result.measured["z_unbiased"])) <= rlvr.Z_MAX
    assert result.measured["exact_expectation_minus_truth_max"] < 1e-10
    assert (ctx.out_dir / result.figures[0]).is_file()


def test_estimator_unbiased_fails_for_the_plugin_estimator(ctx):
    result = rlvr.estimator_unbiased(ctx, estimator=passk.pass_at_k_plugin)
    assert result.verdict is Verdict.FAIL


@pytest.mark.claim_fails("rlvr.estimator_unbiased")
def test_estimator_unbiased_fails_for_the_estimator_rounded_to_float32(ctx):
    """The right formula evaluated in single precision (a GPU backend's default): its exact
    expectation is off by ≈ 1e-9, ten times the 1e-10 tolerance, far below the Monte Carlo s.e."""
    result = rlvr.estimator_unbiased(
        ctx,
        estimator=lambda n, c, k: np.asarray(passk.pass_at_k(n, c, k), np.float32).astype(float),
    )
    assert result.verdict is Verdict.FAIL
    assert 1e-10 < result.measured["exact_expectation_minus_truth_max"] < 1e-8
    assert result.measured["max_abs_z_unbiased"] <= rlvr.Z_MAX


def test_estimator_unbiased_fails_against_a_wrong_truth(ctx):
    result = rlvr.estimator_unbiased(ctx, truth=lambda p, k: passk.pass_at_k_exact(p, k + 1))
    assert result.verdict is Verdict.FAIL


def test_tilt_never_crosses_passes(ctx):
    result = rlvr.tilt_never_crosses(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["min_delta"] >= -1e-12
    assert result.measured["support_kept"] is True


@pytest.mark.claim_fails("rlvr.tilt_never_crosses")
def test_tilt_never_crosses_fails_for_a_map_ten_percent_sharper_than_the_tilt(ctx):
    """logit q = 1.1·logit p + 1/β (slope 10% above the tilt's 1): below p* = σ(−10/β) the
    problems lose p, so base overtakes at large k."""
    result = rlvr.tilt_never_crosses(ctx, tilt=lambda p, beta: passk.logit_affine(p, 1.1, 1 / beta))
    assert result.verdict is Verdict.FAIL
    assert result.measured["min_delta"] < 0
    assert result.measured["support_kept"] is True


@pytest.mark.claim_fails("rlvr.tilt_never_crosses")
def test_tilt_never_crosses_fails_when_a_numerical_floor_adds_support(ctx):
    """Clipping q to [1e-12, 1] (a common guard before a logit) gives p = 0 problems mass."""
    result = rlvr.tilt_never_crosses(
        ctx, tilt=lambda p, beta: np.clip(passk.tilt(p, beta), 1e-12, 1)
    )
    assert result.verdict is Verdict.FAIL
    assert result.measured["support_kept"] is False


def test_tilt_never_crosses_fails_for_a_sharpening_map(ctx):
    result = rlvr.tilt_never_crosses(ctx, tilt=lambda p, beta: passk.logit_affine(p, 2.0, 1 / beta))
    assert result.verdict is Verdict.FAIL
    assert result.measured["min_delta"] < -0.01


def test_tilt_never_crosses_fails_when_support_is_added(ctx):
    result = rlvr.tilt_never_crosses(
        ctx, tilt=lambda p, beta: np.maximum(passk.tilt(p, beta), 1e-3)
    )
    assert result.verdict is Verdict.FAIL
    assert result.measured["support_kept"] is False


def test_sharpening_crosses_passes_with_the_spec_numbers(ctx):
    result = rlvr.sharpening_crosses(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    m = result.measured
    assert 4 <= m["k_star"] <= 8
    assert m["slope_base"] == pytest.approx(-0.3, rel=0.1)
    assert m["slope_rl"] == pytest.approx(-0.15, rel=0.1)


def test_sharpening_crosses_fails_without_sharpening(ctx):
    result = rlvr.sharpening_crosses(ctx, alpha=1.0)  # exact tilt: no crossing
    assert result.verdict is Verdict.FAIL
    assert result.measured["k_star"] is None


@pytest.mark.claim_fails("rlvr.sharpening_crosses")
def test_sharpening_crosses_fails_with_a_slope_prediction_15_percent_off(ctx):
    """Predicted RL slope −1.15·a/α: the measured −0.149 is 14% from it (tolerance 10%)."""
    result = rlvr.sharpening_crosses(ctx, predicted_rl_slope=lambda a, alpha: -1.15 * a / alpha)
    assert result.verdict is Verdict.FAIL
    assert "slopes within 10%" in result.summary
    assert result.measured["sample_pass1_gain"] > 0


def test_sharpening_crosses_passes_with_a_slope_prediction_5_percent_off(ctx):
    result = rlvr.sharpening_crosses(ctx, predicted_rl_slope=lambda a, alpha: -1.05 * a / alpha)
    assert result.verdict is Verdict.PASS, result.summary


def test_sharpening_crosses_fails_with_a_wrong_slope_prediction(ctx):
    result = rlvr.sharpening_crosses(ctx, predicted_rl_slope=lambda a, alpha: -a)
    assert result.verdict is Verdict.FAIL
    assert "slopes" in result.summary


def test_single_crossing_passes(ctx):
    result = rlvr.single_crossing(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    m = result.measured
    assert m["max_sign_changes"] <= 1
    assert m["crossing_perturbations"] > 0
    assert m["crossings_with_exactly_one_change"] == m["crossing_perturbations"]


@pytest.mark.claim_fails("rlvr.single_crossing")
def test_single_crossing_fails_for_a_four_sign_pattern(ctx):
    """The nearest wrong pattern: (+, −, +, −) perturbations (one sign more than the sketch
    allows) can cross twice, and the search must find one that does."""
    result = rlvr.single_crossing(ctx, signs=(1, -1, 1, -1))
    assert result.verdict is Verdict.FAIL
    assert result.measured["max_sign_changes"] >= 2
