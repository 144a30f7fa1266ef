"""Theory of the superposition paper: frequencies, weak-regime losses, overlap statistics,
Welch bound and simplex ETF, eq. (8) and its gradient, the LLM arithmetic."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from tests import naive
from theory import superposition as sp


@pytest.mark.parametrize("law", sp.FREQUENCY_LAWS)
@pytest.mark.parametrize("density", [0.5, 1.0, 3.0])
def test_frequencies_sum_to_the_density_and_decrease(law, density):
    p = sp.feature_frequencies(200, 1.3, law=law, density=density)
    assert p.sum() == pytest.approx(density)
    assert np.all(np.diff(p) <= 0)
    assert np.all((p >= 0) & (p <= 1))


def test_power_law_frequencies_follow_i_to_the_minus_alpha():
    p = sp.feature_frequencies(50, 1.5)
    i = np.arange(1, 51)
    np.testing.assert_allclose(p * i**1.5, p[0], rtol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n": 0}, "n must"),
        ({"n": 10, "alpha": -1.0}, "alpha"),
        ({"n": 10, "density": 0.0}, "density"),
        ({"n": 10, "law": "zipf"}, "law"),
        ({"n": 400, "alpha": 1.0, "density": 7.0}, "too large"),  # H_400 ≈ 6.57
    ],
)
def test_frequencies_reject_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sp.feature_frequencies(**kwargs)


def test_weak_ideal_loss_matches_the_naive_sum():
    p = sp.feature_frequencies(60, 1.2)
    ms = np.array([0, 1, 7, 30, 60])
    np.testing.assert_allclose(
        sp.weak_ideal_loss(p, ms), [naive.weak_ideal_loss_naive(p, int(m)) for m in ms], rtol=1e-12
    )


@given(st.integers(1, 80), st.floats(0.0, 3.0), st.floats(0.2, 2.0))
def test_weak_loss_of_the_top_m_is_the_ideal_and_decreases_in_m(n, alpha, density):
    p = sp.feature_frequencies(n, alpha, density=min(density, 1.0))
    ideal = sp.weak_ideal_loss(p, np.arange(n + 1))
    assert np.all(np.diff(ideal) <= 1e-15)
    m = n // 2
    assert sp.weak_loss(p, np.arange(n) < m) == pytest.approx(ideal[m], abs=1e-12)


def test_weak_ideal_exponents_match_the_spec_pilot():
    widths = np.array([10, 15, 25, 39, 63, 100])
    from theory.fits import fit_power_law

    for alpha, expected in {1.25: 0.43, 1.5: 0.61, 1.75: 0.80, 2.0: 1.02}.items():
        loss = sp.weak_ideal_loss(sp.feature_frequencies(1000, alpha), widths)
        assert -fit_power_law(widths, loss, n_boot=0).exponent == pytest.approx(expected, abs=0.01)


@pytest.mark.parametrize("m", [2, 5, 17, 100])
def test_random_overlap_moments_are_those_of_beta(m):
    law = stats.beta(0.5, (m - 1) / 2)
    assert sp.random_overlap_mean(m) == pytest.approx(law.mean())
    assert sp.random_overlap_variance(m) == pytest.approx(law.var())


@pytest.mark.parametrize("m", [1, 2, 3, 8, 25])
def test_simplex_etf_is_an_equiangular_tight_frame_at_the_welch_bound(m):
    frame = sp.simplex_etf(m)
    assert frame.shape == (m + 1, m)
    gram = frame @ frame.T
    np.testing.assert_allclose(np.diag(gram), 1.0, atol=1e-12)
    off = gram[~np.eye(m + 1, dtype=bool)]
    np.testing.assert_allclose(off, -1.0 / m, atol=1e-12)
    np.testing.assert_allclose(frame.T @ frame, (m + 1) / m * np.eye(m), atol=1e-12)  # tight
    assert np.abs(off).max() == pytest.approx(sp.welch_bound(m + 1, m), abs=1e-12)


@given(st.integers(2, 6), st.integers(1, 10), st.integers(0, 2**32 - 1))
def test_no_frame_beats_the_welch_bound(m, extra, seed):
    rows = np.random.default_rng(seed).normal(size=(m + extra, m))
    coherence = np.sqrt(sp.squared_overlaps(rows).max())
    assert coherence >= sp.welch_bound(m + extra, m) - 1e-12


def test_welch_bound_needs_more_vectors_than_dimensions():
    with pytest.raises(ValueError, match="n_vectors"):
        sp.welch_bound(3, 3)


def test_squared_overlaps_match_the_naive_loops():
    rows = np.random.default_rng(0).normal(size=(7, 3))
    rows[2] = 0.0
    np.testing.assert_allclose(
        np.sort(sp.squared_overlaps(rows)), np.sort(naive.squared_overlaps_naive(rows.tolist()))
    )


def _eq8_inputs(seed: int, n: int = 6, m: int = 3):
    rng = np.random.default_rng(seed)
    return (
        rng.normal(size=(n, m)) / np.sqrt(m),
        rng.normal(size=n) * 0.5,
        sp.feature_frequencies(n, 1.1),
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_eq8_loss_matches_quadrature(seed):
    W, b, p = _eq8_inputs(seed)
    assert sp.one_active_loss(W, b, p) == pytest.approx(
        naive.one_active_loss_quad(W.tolist(), b.tolist(), p.tolist()), rel=1e-8
    )


def test_eq8_loss_handles_zero_overlaps():
    W = np.zeros((3, 2))
    b = np.array([0.5, -0.2, 0.0])
    p = np.full(3, 1 / 3)
    # a = 0 everywhere: A(0, c) = ReLU(c)², D(0, c) = 4/3 − 2·ReLU(c) + ReLU(c)²
    relu = np.maximum(b, 0)
    expected = np.mean(
        [4 / 3 - 2 * relu[i] + relu[i] ** 2 + np.sum(np.delete(relu, i) ** 2) for i in range(3)]
    )
    assert sp.one_active_loss(W, b, p) == pytest.approx(expected)


@given(st.integers(0, 2**32 - 1))
def test_eq8_gradient_matches_finite_differences(seed):
    W, b, p = _eq8_inputs(seed)
    _, grad_W, grad_b = sp.one_active_loss_and_grad(W, b, p)
    eps = 1e-6
    for param, grad in ((W, grad_W), (b, grad_b)):
        numeric = np.zeros_like(param)
        for idx in np.ndindex(param.shape):
            step = np.zeros_like(param)
            step[idx] = eps
            plus = (
                sp.one_active_loss(W + step, b, p)
                if param is W
                else sp.one_active_loss(W, b + step, p)
            )
            minus = (
                sp.one_active_loss(W - step, b, p)
                if param is W
                else sp.one_active_loss(W, b - step, p)
            )
            numeric[idx] = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(grad, numeric, atol=1e-6)


def test_chinchilla_width_exponent_reproduces_the_paper():
    est = sp.chinchilla_width_exponent()
    assert est.value == pytest.approx(0.882)
    assert est.sigma_linear == pytest.approx(0.35 * 0.03 + 2.52 * 0.02)
    assert est.sigma == pytest.approx(np.hypot(0.35 * 0.03, 2.52 * 0.02))
    assert est.sigma < est.sigma_linear
