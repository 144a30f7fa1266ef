"""Sharpening against tilting: the distribution family, the tilt's gaps, the curve pairs and
the failure-rate slopes."""

from __future__ import annotations

import numpy as np
import pytest

from theory import passk
from theory.sharpening import (
    beta_sharpening,
    failure_slopes,
    logit_affine_sharpening,
    p_distribution_family,
    pass_at_k_pair,
    tilt_gaps,
    two_type_sharpening,
)

KS = 2 ** np.arange(17)


def test_the_family_holds_six_beta_laws_and_their_mixtures_with_atoms():
    family = p_distribution_family(200)
    assert len(family) == 12
    for label, p, w in family:
        assert w.sum() == pytest.approx(1.0)
        assert np.all((p >= 0) & (p <= 1))
        assert (p[0] == 0.0 and p[-1] == 1.0) == label.startswith("0.2·δ0")


def test_the_exact_tilt_never_falls_below_the_base_and_a_sharpening_map_does():
    family, ks = p_distribution_family(200), np.array([1, 4, 64, 1024])
    gaps = tilt_gaps(family, passk.tilt, (0.3, 3.0), ks)
    assert gaps.min_delta.shape == (12, 2)
    assert gaps.min_delta.min() >= -1e-12
    assert gaps.min_lift >= -1e-12
    assert gaps.support_kept
    sharp = tilt_gaps(family, lambda p, b: passk.logit_affine(p, 2.0, 1 / b), (0.3,), ks)
    assert sharp.min_delta.min() < -0.01


def test_a_floor_on_q_breaks_the_support():
    family = p_distribution_family(50)
    gaps = tilt_gaps(family, lambda p, b: np.maximum(passk.tilt(p, b), 1e-6), (1.0,), KS[:5])
    assert not gaps.support_kept


def test_beta_sharpening_crosses_once_between_4_and_8():
    quad = beta_sharpening(0.3, 1.5, 2.0, 2.0, KS)
    assert quad.crossing.n_crossings == 1
    assert 4 <= quad.crossing.k_star <= 8
    assert quad.at(1) == pytest.approx((0.168, 0.248), abs=0.002)
    assert quad.at(1024) == pytest.approx((0.869, 0.716), abs=0.002)
    assert set(quad.curves("x_")) == {"x_base", "x_rl"}


def test_a_large_sample_follows_the_quadrature():
    p = np.random.default_rng(0).beta(0.3, 1.5, size=50_000)
    sample = logit_affine_sharpening(p, 2.0, 2.0, KS)
    quad = beta_sharpening(0.3, 1.5, 2.0, 2.0, KS)
    assert sample.base == pytest.approx(quad.base, abs=0.01)
    assert sample.rl == pytest.approx(quad.rl, abs=0.01)


def test_two_type_sharpening_is_the_closed_form():
    params = {"frac_improved": 0.5, "p_e": 0.3, "q_e": 0.9, "frac_lost": 0.2, "eps": 0.02}
    two = two_type_sharpening(KS, **params)
    base, rl = passk.two_type_pass_at_k(KS, **params)
    assert np.array_equal(two.base, base)
    assert np.array_equal(two.rl, rl)
    assert two.crossing == passk.crossing_k(KS, base, rl)


def test_failure_slopes_of_pure_power_laws():
    ks = 2.0 ** np.arange(10, 17)
    pair = pass_at_k_pair(ks, 1 - 0.5 * ks**-0.3, 1 - 0.2 * ks**-0.15)
    (fit_base, fit_rl), errors = failure_slopes(pair, (2.0**12, 2.0**16), (-0.3, -0.3))
    assert fit_base.exponent == pytest.approx(-0.3)
    assert fit_rl.exponent == pytest.approx(-0.15)
    assert errors == pytest.approx([0.0, 0.5])
