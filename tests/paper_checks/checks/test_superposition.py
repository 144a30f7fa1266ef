"""The superposition claims pass with our theory and FAIL when handed a wrong one.

The quick sweeps (Q1–Q3) run once per module on two single-threaded worker processes; the FAIL
tests rerun the same claims on the cached sweeps, so only the analysis repeats. The full-scale
claims (F1–F4) are run at full scale with their sizes shrunk (module constants patched) only to
see a wrong theory FAIL: their PASS needs the real sizes (``paper-checks run superposition
--scale full``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from paper_checks.checks import superposition as checks
from paper_checks.context import Context
from paper_checks.results import Verdict
from sims.superposition import loss_and_grad
from sims.sweep import ProcessExecutor
from theory import superposition as theory


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    with ProcessExecutor(2) as executor:
        yield Context(
            scale="quick",
            seed=0,
            out_dir=tmp_path_factory.mktemp("superposition"),
            executor=executor,
        )


def _ctx(base: Context, claim_id: str) -> Context:
    return replace(base, claim_id=claim_id)


# ------------------------------------------------------------------------------------- K0
def test_geometry_passes(quick):
    ctx = _ctx(quick, "superposition.geometry")
    result = checks.geometry(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["gradient_rel_error"] < 1e-6
    assert (ctx.out_dir / result.figures[0]).is_file()


def test_geometry_fails_with_a_wrong_overlap_mean(quick):
    result = checks.geometry(
        _ctx(quick, "superposition.geometry"), overlap_mean=lambda m: 1 / (m + 1)
    )
    assert result.verdict is Verdict.FAIL
    assert "random overlaps" in result.summary


def test_geometry_fails_with_a_wrong_gradient(quick):
    def half_gradient(W, b, batch):  # drops the X^T(RW) term's factor
        loss, grad_W, grad_b = loss_and_grad(W, b, batch)
        return loss, 0.5 * grad_W, grad_b

    result = checks.geometry(_ctx(quick, "superposition.geometry"), gradient=half_gradient)
    assert result.verdict is Verdict.FAIL
    assert "gradient" in result.summary


# ------------------------------------------------------------------------------------- Q1
@pytest.mark.slow
def test_strong_inverse_m_passes(quick):
    result = checks.strong_inverse_m(_ctx(quick, "superposition.strong_inverse_m"))
    assert result.verdict is Verdict.PASS, result.summary
    assert 0.8 <= result.measured["alpha_m"] <= 1.2
    assert np.all(np.asarray(result.measured["phi_half"]) == 1.0)


@pytest.mark.slow
def test_strong_inverse_m_fails_for_the_weak_exponent(quick):
    # the weak regime's n → ∞ law α_m = α − 1 = 0 at α = 1
    result = checks.strong_inverse_m(
        _ctx(quick, "superposition.strong_inverse_m"), predicted_exponent=0.0
    )
    assert result.verdict is Verdict.FAIL
    assert "exponent" in result.summary


@pytest.mark.slow
def test_strong_inverse_m_fails_for_a_welch_squared_overlap(quick):
    result = checks.strong_inverse_m(
        _ctx(quick, "superposition.strong_inverse_m"), overlap_theory=lambda m: 1 / m**1.5
    )
    assert result.verdict is Verdict.FAIL
    assert "overlaps" in result.summary


# ------------------------------------------------------------------------------------- Q2
@pytest.mark.slow
def test_weak_tracks_unlearned_passes(quick):
    result = checks.weak_tracks_unlearned(_ctx(quick, "superposition.weak_tracks_unlearned"))
    assert result.verdict is Verdict.PASS, result.summary
    assert np.all(np.asarray(result.measured["weak_over_strong_alpha1.5"]) >= 1.5)


@pytest.mark.slow
def test_weak_tracks_unlearned_fails_without_the_variance_correction(quick):
    # forgetting that a dropped feature's optimal bias removes ⟨x⟩²: L_unl = Σ 4/3 p_i · 2
    result = checks.weak_tracks_unlearned(
        _ctx(quick, "superposition.weak_tracks_unlearned"),
        unlearned_loss=lambda p, kept: 2 * 4 / 3 * float(np.sum(np.asarray(p)[~np.asarray(kept)])),
    )
    assert result.verdict is Verdict.FAIL
    assert "L ≈ L_unl" in result.summary


# ------------------------------------------------------------------------------------- Q3
@pytest.mark.slow
def test_regime_knob_passes(quick):
    result = checks.regime_knob(_ctx(quick, "superposition.regime_knob"))
    assert result.verdict is Verdict.PASS, result.summary
    phi = np.asarray(result.measured["phi_half"])
    assert phi[0] == 1.0 > phi[-1]


@pytest.mark.slow
def test_regime_knob_fails_if_decay_did_not_matter(quick):
    # "a width-m model represents about m features whatever γ"
    result = checks.regime_knob(
        _ctx(quick, "superposition.regime_knob"), band=lambda gamma, m, n: (0.0, 3 * m / n)
    )
    assert result.verdict is Verdict.FAIL
    assert "bands" in result.summary


# ------------------------------------------------------------------------------------- LLMs
def test_llm_consistency_passes(quick):
    result = checks.llm_consistency(_ctx(quick, "superposition.llm_consistency"))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["alpha_m"] == pytest.approx(0.882)


def test_llm_consistency_fails_with_the_wrong_arithmetic(quick):
    def inverted(**_):  # L ∝ N^−α_N with N ∝ m^k read as α_m = α_N / k
        return theory.ExponentEstimate(0.35 / 2.52, 0.01, 0.01)

    result = checks.llm_consistency(
        _ctx(quick, "superposition.llm_consistency"), width_exponent=inverted
    )
    assert result.verdict is Verdict.FAIL


# ------------------------------------------------------------------------------- full scale
@pytest.mark.parametrize(
    "check",
    [
        checks.strong_robust_to_alpha,
        checks.reference_sweep,
        checks.weak_law,
        checks.density_scaling,
    ],
)
def test_full_claims_are_inconclusive_at_quick_scale(quick, check):
    result = check(_ctx(quick, "superposition.full_only"))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "full scale only" in result.summary


@pytest.fixture
def tiny_full(tmp_path, monkeypatch):
    """Full scale with the sweeps shrunk to seconds (to see wrong theories fail, not to test the
    paper: the real sizes are the module constants)."""
    tiny = {"n": 60, "batch": 64, "steps": 150, "lr": 1e-2, "warmup_fraction": 0.1}
    monkeypatch.setattr(checks, "QUICK", tiny)
    monkeypatch.setattr(checks, "QUICK_WIDTHS", (4, 8, 16))
    monkeypatch.setattr(checks, "Q1_WINDOW", (4.0, 16.0))
    monkeypatch.setattr(checks, "FULL_N1000", {**tiny, "n": 120})
    monkeypatch.setattr(checks, "REFERENCE_WIDTHS", (10, 30, 100))
    monkeypatch.setattr(checks, "ROBUST_ALPHAS", (1.0,))
    monkeypatch.setattr(checks, "ROBUST_SEEDS", 2)
    monkeypatch.setattr(checks, "WEAK_ALPHAS", (2.0,))
    monkeypatch.setattr(checks, "F3_GAMMAS", (0.5,))
    monkeypatch.setattr(checks, "DENSITIES", (1.0, 2.0, 3.0))
    return Context(scale="full", seed=0, out_dir=tmp_path, claim_id="superposition.tiny")


def test_strong_robust_to_alpha_fails_for_the_weak_law(tiny_full):
    result = checks.strong_robust_to_alpha(tiny_full, predicted=lambda alpha: 5.0)
    assert result.verdict is Verdict.FAIL
    assert np.all(np.isfinite(result.measured["alpha_m_mean"]))


def test_reference_sweep_fails_for_a_wrong_exponent(tiny_full):
    result = checks.reference_sweep(tiny_full, predicted_exponent=5.0)
    assert result.verdict is Verdict.FAIL
    assert "exponent" in result.summary


def test_weak_law_fails_for_a_wrong_ideal(tiny_full):
    result = checks.weak_law(tiny_full, ideal_loss=lambda p, m: np.asarray(m, dtype=float) ** -5.0)
    assert result.verdict is Verdict.FAIL


def test_density_scaling_fails_for_a_quadratic_law(tiny_full):
    result = checks.density_scaling(tiny_full, predicted_slope=3.0)
    assert result.verdict is Verdict.FAIL
    assert "L ∝ E" in result.summary
