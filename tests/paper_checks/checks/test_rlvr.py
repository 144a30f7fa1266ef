"""The rlvr claims pass with our theory and FAIL when handed a wrong theory."""

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


def test_estimator_unbiased_fails_against_a_wrong_truth(ctx):
    result = rlvr.estimator_unbiased(ctx, truth=lambda p, k: passk.pass_at_k_exact(p, k + 1))
    assert result.verdict is Verdict.FAIL


def test_tilt_never_crosses_passes(ctx):
    result = rlvr.tilt_never_crosses(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["min_delta"] >= -1e-12
    assert result.measured["support_kept"] is True


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


def test_single_crossing_fails_for_a_four_sign_pattern(ctx):
    """(+, −, +, −) perturbations can cross twice: the claim's bound must catch it."""
    result = rlvr.single_crossing(ctx, signs=(1, -1, 1, -1))
    assert result.verdict is Verdict.FAIL
    assert result.measured["max_sign_changes"] >= 2
