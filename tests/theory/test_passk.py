"""theory.passk: estimator vs exact oracles, closed forms vs quadrature, and the numbers of
docs/rlvr.md#sharpening-models-our-analysis."""

from __future__ import annotations

import itertools
import math

import array_api_compat
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from tests.naive import (
    crossing_k_naive,
    pass_at_k_exact_naive,
    pass_at_k_fraction,
    pass_at_k_plugin_fraction,
)
from theory.fits import fit_power_law
from theory.passk import (
    Crossing,
    beta_failure_asymptote,
    beta_logit_affine_failure_asymptote,
    beta_logit_affine_pass_at_k,
    beta_pass_at_k,
    counts_from_samples,
    crossing_k,
    crossing_k_many,
    estimator_expectation,
    fit_logit_affine,
    logit_affine,
    logit_affine_fixed_point,
    pass_at_k,
    pass_at_k_curve,
    pass_at_k_curve_exact,
    pass_at_k_exact,
    pass_at_k_plugin,
    pool_counts,
    sign_changes,
    tilt,
    two_type_pass_at_k,
)

MAX_N = 300  # oracle sizes for hypothesis (exact Fractions stay fast)
LARGE_N = 100_000
POW2_KS = 2 ** np.arange(17)  # k = 1 .. 2^16
# the logit-affine check of docs/rlvr.md: p ~ Beta(0.3, 1.5), α = 2, β = 2
A, B, ALPHA, BETA = 0.3, 1.5, 2.0, 2.0


@st.composite
def count_lists(draw: st.DrawFn, max_n: int = MAX_N) -> tuple[list[int], list[int], int]:
    ns = draw(st.lists(st.integers(1, max_n), min_size=1, max_size=8))
    cs = [draw(st.integers(0, n)) for n in ns]
    return ns, cs, draw(st.integers(1, min(ns)))


def _quad_u(integrand, breaks=(-800, -200, -60, -20, -5, 5, 20, 60)) -> float:
    """Adaptive Gauss-Kronrod over u = logit p, split at fixed break points."""
    return sum(
        integrate.quad(integrand, lo, hi, epsabs=0.0, epsrel=1e-13, limit=500)[0]
        for lo, hi in itertools.pairwise(breaks)
    )


def _logit_affine_failure_quad(a: float, b: float, alpha: float, beta: float, k: float) -> float:
    def integrand(u: float) -> float:
        log_f = a * special.log_expit(u) + b * special.log_expit(-u)
        log_f += k * special.log_expit(-(alpha * u + beta)) - special.betaln(a, b)
        return math.exp(log_f)

    return _quad_u(integrand)


# ---- pass_at_k: exactness -------------------------------------------------------------------


@given(count_lists())
def test_pass_at_k_matches_fraction_oracle(counts: tuple[list[int], list[int], int]) -> None:
    ns, cs, k = counts
    got = pass_at_k(np.array(ns), np.array(cs), k)
    want = np.array([float(pass_at_k_fraction(n, c, k)) for n, c in zip(ns, cs, strict=True)])
    assert got.dtype == np.float64
    assert got.shape == (len(ns),)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("c", "k"),
    [(1, 1), (1, 1000), (100, 1), (3, 50_000), (30_000, 3), (50_000, 2), (99_000, 1_000)],
)
def test_pass_at_k_large_n(c: int, k: int) -> None:
    # rtol 1e-9: the prefix table is a cumulative sum of up to 1e5 log1p terms; its rounding
    # error (~eps·|T|·sqrt(terms), |T| up to ~1e4 for large k) lands in log(ratio), hence in the
    # relative error of 1 - pass@k (observed <= 2e-11).
    want = float(pass_at_k_fraction(LARGE_N, c, k))
    assert float(pass_at_k(LARGE_N, c, k)) == pytest.approx(want, rel=1e-9)


def test_pass_at_k_a_million_problems() -> None:
    rng = np.random.default_rng(0)
    n = rng.integers(64, 2_000, size=1_000_000)
    c = rng.binomial(n, rng.beta(0.3, 1.5, size=n.size))
    got = pass_at_k(n, c, 64)
    assert got.shape == n.shape
    for i in rng.choice(n.size, size=30, replace=False):
        assert got[i] == pytest.approx(float(pass_at_k_fraction(n[i], c[i], 64)), rel=1e-11)


def test_pass_at_k_edge_cases() -> None:
    n = np.array([7, 7, 7, 7])
    zero = pass_at_k(n, np.zeros(4, dtype=int), 3)
    np.testing.assert_array_equal(zero, 0.0)
    assert not np.signbit(zero).any()  # 0, not -0
    np.testing.assert_array_equal(pass_at_k(n, np.array([0, 1, 6, 7]), 7), [0.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(pass_at_k(n, np.array([4, 5, 6, 7]), 4), [1.0, 1.0, 1.0, 1.0])
    # n - c = k: exactly one all-wrong k-subset out of C(7, 4) = 35
    assert float(pass_at_k(7, 3, 4)) == pytest.approx(34 / 35, rel=1e-15)


def test_pass_at_k_shapes_and_broadcasting() -> None:
    scalar = pass_at_k(10, 3, 2)
    assert isinstance(scalar, np.ndarray)
    assert scalar.shape == ()
    assert scalar.dtype == np.float64
    grid = pass_at_k(10, np.array([[0, 1, 2], [3, 4, 10]]), 2)
    assert grid.shape == (2, 3)
    assert grid[1, 0] == pytest.approx(float(pass_at_k_fraction(10, 3, 2)), rel=1e-14)
    assert pass_at_k(np.zeros(0, dtype=int), np.zeros(0, dtype=int), 5).shape == (0,)


@pytest.mark.parametrize(
    ("n", "c", "k", "match"),
    [
        ([10.0, 10.0], [1, 2], 1, "n must be integers"),
        ([10, 10], [True, False], 1, "c must be integers"),
        ([5, 5, 3], [1, 2, 5], 1, r"c must satisfy 0 <= c <= n \(got c=5 > n=3 at index 2\)"),
        ([5, 5], [1, -1], 1, r"c must satisfy 0 <= c <= n \(got c=-1 < 0 at index 1\)"),
        ([[5, 5], [3, 5]], [[1, 2], [4, 0]], 1, r"got c=4 > n=3 at index \(1, 0\)"),
        ([8, 12], [1, 2], 10, r"k must satisfy 1 <= k <= min\(n\) \(got k=10, min n=8\)"),
        ([8, 12], [1, 2], 0, r"k must satisfy 1 <= k <= min\(n\) \(got k=0\)"),
        ([8, 12], [1, 2], 2.0, "k must be an integer"),
        ([8, 12], [1, 2], True, "k must be an integer"),
    ],
)
def test_pass_at_k_rejects_bad_input(n, c, k, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError, match=match):
        pass_at_k_plugin(n, c, k)


def test_pass_at_k_curve_is_mean_of_oracle() -> None:
    ns, cs, ks = [20, 30, 25], [0, 7, 25], [1, 2, 5, 20]
    want = [
        np.mean([float(pass_at_k_fraction(n, c, k)) for n, c in zip(ns, cs, strict=True)])
        for k in ks
    ]
    np.testing.assert_allclose(pass_at_k_curve(ns, cs, ks), want, rtol=1e-13)
    with pytest.raises(ValueError, match="ks must be non-empty"):
        pass_at_k_curve(ns, cs, [])
    with pytest.raises(ValueError, match="n must hold at least one problem"):
        pass_at_k_curve([], [], [1])


@given(count_lists(max_n=60))
def test_plugin_matches_fraction_oracle(counts: tuple[list[int], list[int], int]) -> None:
    ns, cs, k = counts
    want = [float(pass_at_k_plugin_fraction(n, c, k)) for n, c in zip(ns, cs, strict=True)]
    np.testing.assert_allclose(pass_at_k_plugin(ns, cs, k), want, rtol=1e-12, atol=1e-14)


# ---- array-API namespaces -------------------------------------------------------------------


def test_array_api_strict_round_trip() -> None:
    xps = pytest.importorskip("array_api_strict")
    n, c, p = [40, 40, 17], [0, 13, 17], [0.0, 0.3, 1.0]

    def check(strict_result, numpy_result) -> None:
        assert array_api_compat.array_namespace(strict_result) is xps
        assert strict_result.dtype == xps.float64
        np.testing.assert_array_equal(np.from_dlpack(strict_result), numpy_result)

    sn, sc, sp = xps.asarray(n), xps.asarray(c), xps.asarray(p)
    check(pass_at_k(sn, sc, 5), pass_at_k(n, c, 5))
    check(pass_at_k(40, sc, 5), pass_at_k(40, c, 5))  # Python scalar joins the namespace
    check(pass_at_k_plugin(sn, sc, 5), pass_at_k_plugin(n, c, 5))
    check(pass_at_k_curve(sn, sc, [1, 4, 17]), pass_at_k_curve(n, c, [1, 4, 17]))
    check(pass_at_k_exact(sp, 3), pass_at_k_exact(p, 3))
    check(pass_at_k_curve_exact(sp, [1, 8]), pass_at_k_curve_exact(p, [1, 8]))


# ---- estimator bias ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 5, 40])
def test_unbiased_estimator_and_biased_plugin(n: int) -> None:
    p = np.array([0.0, 1e-3, 0.1, 0.5, 0.9, 1.0])
    interior = (p > 0) & (p < 1)
    for k in range(1, n + 1):
        exact = pass_at_k_exact(p, k)
        np.testing.assert_allclose(estimator_expectation(pass_at_k, p, n, k), exact, atol=1e-12)
        plugin = estimator_expectation(pass_at_k_plugin, p, n, k)
        if k == 1:
            np.testing.assert_allclose(plugin, exact, atol=1e-12)
        else:
            assert np.all(plugin[interior] <= exact[interior])
            resolved = interior & (exact < 1 - 1e-9)  # both round to 1 when (1-p)^k < eps
            assert np.all(plugin[resolved] < exact[resolved])
            np.testing.assert_allclose(plugin[~interior], exact[~interior], atol=1e-15)


def test_estimator_expectation_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="p must be finite"):
        estimator_expectation(pass_at_k, [0.2, np.nan], 5, 2)
    with pytest.raises(ValueError, match="n must be >= 1"):
        estimator_expectation(pass_at_k, 0.2, 0, 1)


# ---- exact pass@k ---------------------------------------------------------------------------


@given(st.floats(0.0, 1.0), st.integers(1, 10_000))
def test_pass_at_k_exact_matches_naive(p: float, k: int) -> None:
    assert float(pass_at_k_exact(p, k)) == pytest.approx(pass_at_k_exact_naive(p, k), abs=1e-12)


def test_pass_at_k_exact_is_stable_and_broadcasts() -> None:
    assert float(pass_at_k_exact(1e-20, 1000)) == pytest.approx(1e-17, rel=1e-12)
    assert pass_at_k_exact_naive(1e-20, 1000) == 0.0  # what the stable form avoids
    assert float(pass_at_k_exact(1.0, 7)) == 1.0
    grid = pass_at_k_exact(np.array([[0.1], [0.5], [1.0]]), np.array([1, 2, 4, 8]))
    assert grid.shape == (3, 4)
    assert grid[1, 2] == pytest.approx(1 - 0.5**4, rel=1e-15)


@pytest.mark.parametrize(
    ("p", "k", "match"),
    [
        ([0.2, 1.5], 1, r"p must be finite and p >= 0 and p <= 1 \(got p=1.5 at index 1\)"),
        (np.nan, 1, "p must be finite"),
        (0.2, [1, 0], r"k must be integers >= 1 \(got k=0 at index 1\)"),
        (0.2, 2.0, "k must be integers"),
        ([True], 1, "p must be real numbers"),
    ],
)
def test_pass_at_k_exact_rejects_bad_input(p, k, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pass_at_k_exact(p, k)


def test_pass_at_k_curve_exact_weights() -> None:
    p, ks = np.array([0.1, 0.6, 0.0]), [1, 3, 50]
    uniform = pass_at_k_curve_exact(p, ks)
    np.testing.assert_allclose(uniform, pass_at_k_exact(p[:, None], ks).mean(axis=0), rtol=1e-15)
    np.testing.assert_allclose(
        pass_at_k_curve_exact(p, ks, weights=[5.0, 0.0, 0.0]), pass_at_k_exact(0.1, ks)
    )
    np.testing.assert_allclose(pass_at_k_curve_exact(p, ks, weights=[2, 2, 2]), uniform)
    with pytest.raises(ValueError, match="weights must be finite and weights >= 0"):
        pass_at_k_curve_exact(p, ks, weights=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="weights must have a positive sum"):
        pass_at_k_curve_exact(p, ks, weights=[0, 0, 0])
    with pytest.raises(ValueError, match="weights must have one entry per problem"):
        pass_at_k_curve_exact(p, ks, weights=[1, 1])


# ---- pooling and counting -------------------------------------------------------------------


def test_pool_counts_lifts_the_per_run_cap() -> None:
    n = np.full((4, 3), 32)  # 4 seeds × 3 problems
    c = np.array([[0, 3, 32], [0, 5, 30], [1, 4, 31], [0, 2, 32]])
    n_pooled, c_pooled = pool_counts(n, c)
    np.testing.assert_array_equal(n_pooled, [128, 128, 128])
    np.testing.assert_array_equal(c_pooled, [1, 14, 125])
    assert np.issubdtype(n_pooled.dtype, np.integer)
    got = pass_at_k(n_pooled, c_pooled, 100)  # k > per-run n, legal only after pooling
    want = [float(pass_at_k_fraction(128, cc, 100)) for cc in c_pooled]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match="k must satisfy"):
        pass_at_k(n[0], c[0], 100)
    np.testing.assert_array_equal(pool_counts(n, c, axis=1)[1], [35, 35, 36, 34])


def test_pool_counts_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="n and c must have the same shape"):
        pool_counts(np.ones((2, 3), dtype=int), np.ones((3,), dtype=int))
    with pytest.raises(ValueError, match=r"got c=3 > n=2 at index \(1, 0\)"):
        pool_counts([[2, 2], [2, 2]], [[0, 1], [3, 0]])
    with pytest.raises(ValueError, match="n must be integers"):
        pool_counts([[2.0]], [[1]])


def test_counts_from_samples() -> None:
    ids = np.array(["b", "a", "b", "c", "a", "b"])
    ids_out, n, c = counts_from_samples(ids, [1, 0, 1, 0, 1, 0])
    np.testing.assert_array_equal(ids_out, ["a", "b", "c"])
    np.testing.assert_array_equal(n, [2, 3, 1])
    np.testing.assert_array_equal(c, [1, 2, 0])
    _, n_bool, c_bool = counts_from_samples(ids, np.array([1, 0, 1, 0, 1, 0], dtype=bool))
    np.testing.assert_array_equal(c_bool, c)
    np.testing.assert_array_equal(n_bool, n)
    ids_int, _, c_int = counts_from_samples([7, 3, 7], [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(ids_int, [3, 7])
    np.testing.assert_array_equal(c_int, [1, 1])


def test_counts_from_samples_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match=r"correct must be booleans or 0/1 \(got 2 at index 1\)"):
        counts_from_samples([1, 2], [0, 2])
    with pytest.raises(ValueError, match="problem_ids and correct must be 1-D of equal length"):
        counts_from_samples([1, 2, 3], [0, 1])


# ---- sharpening models ----------------------------------------------------------------------

probabilities = st.floats(0.0, 1.0)
kl_betas = st.floats(1e-3, 1e3)


@given(st.lists(probabilities, min_size=2, max_size=20), kl_betas)
def test_tilt_never_below_p_keeps_zero_and_is_monotone(p: list[float], beta: float) -> None:
    p = np.sort(np.array(p))
    q = tilt(p, beta)
    assert np.all(q >= p)
    assert np.all((q == 0) == (p == 0))
    assert np.all(np.diff(q) >= 0)
    assert np.all(q <= 1)


@given(st.floats(1e-6, 1 - 1e-6), st.floats(0.05, 50.0))
def test_tilt_closed_form(p: float, beta: float) -> None:
    e = math.exp(1 / beta)
    assert float(tilt(p, beta)) == pytest.approx(p * e / (1 - p + p * e), rel=1e-12)


@given(st.lists(probabilities, min_size=1, max_size=20), kl_betas)
def test_logit_affine_with_unit_alpha_is_tilt(p: list[float], beta: float) -> None:
    # atol covers subnormal p, where tilt's clip at p differs from expit round-off
    np.testing.assert_allclose(
        logit_affine(p, 1.0, 1.0 / beta), tilt(p, beta), rtol=1e-15, atol=1e-300
    )


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30), st.floats(0.1, 3.0))
def test_tilted_curves_never_cross_below_base(p: list[float], beta: float) -> None:
    ks = 2 ** np.arange(13)
    base, rl = pass_at_k_curve_exact(p, ks), pass_at_k_curve_exact(tilt(p, beta), ks)
    assert np.all(rl >= base)
    assert crossing_k(ks, base, rl).k_star is None


@given(
    # α is identified only by p that differ: at least two 0.01 apart (p one ulp apart have
    # the same logit, which the fit refuses: see the test below)
    st.lists(st.floats(0.01, 0.99), min_size=2, max_size=40, unique=True).filter(
        lambda p: max(p) - min(p) >= 0.01
    ),
    st.floats(0.25, 3.0),
    st.floats(-3.0, 3.0),
)
def test_fit_logit_affine_inverts_logit_affine(p: list[float], alpha: float, beta: float) -> None:
    # |logit q| ≤ 3·4.6 + 3, so 1 − q ≥ 5e-8 and logit q keeps ≈ 9 digits in float64
    q = logit_affine(p, alpha, beta)
    assert fit_logit_affine(p, q) == pytest.approx((alpha, beta), rel=1e-6, abs=1e-6)


def test_fit_logit_affine_skips_zero_and_one_and_rejects_too_few_pairs() -> None:
    p = np.array([0.0, 0.1, 0.4, 0.7, 1.0])
    q = logit_affine(p, 2.0, -1.0)
    q[3] = 1.0  # a pair with q at 1: infinite logit, left out
    assert fit_logit_affine(p, q) == pytest.approx((2.0, -1.0))
    with pytest.raises(ValueError, match="at least two pairs"):
        fit_logit_affine([0.0, 0.3, 1.0], [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="at least two pairs"):  # found by make fuzz
        fit_logit_affine([0.010000000000000002, 0.01], [0.01, 0.01])
    with pytest.raises(ValueError, match="same shape"):
        fit_logit_affine([0.1, 0.2], [0.1])


def test_logit_affine_endpoints_fixed_point_and_small_p() -> None:
    np.testing.assert_array_equal(logit_affine([0.0, 1.0], 2.0, 2.0), [0.0, 1.0])
    p_star = float(logit_affine_fixed_point(ALPHA, BETA))
    assert p_star == pytest.approx(special.expit(-2.0), rel=1e-15)
    assert float(logit_affine(p_star, ALPHA, BETA)) == pytest.approx(p_star, rel=1e-12)
    above, below = np.array([0.2, 0.5, 0.99]), np.array([1e-4, 0.01, 0.1])
    assert np.all(logit_affine(above, ALPHA, BETA) > above)
    assert np.all(logit_affine(below, ALPHA, BETA) < below)
    tiny = np.array([1e-8, 1e-6])
    np.testing.assert_allclose(
        logit_affine(tiny, ALPHA, BETA), np.exp(BETA) * tiny**ALPHA, rtol=1e-5
    )
    with pytest.raises(ValueError, match="alpha must differ from 1"):
        logit_affine_fixed_point(1.0, 0.5)
    with pytest.raises(ValueError, match="alpha must be finite and alpha > 0"):
        logit_affine(0.5, 0.0, 1.0)
    with pytest.raises(ValueError, match="beta must be finite"):
        logit_affine(0.5, 1.0, np.inf)
    with pytest.raises(ValueError, match="beta must be finite and beta > 0"):
        tilt(0.5, 0.0)


# ---- Beta-distributed p ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "k"), [(0.3, 1.5, 1), (0.3, 1.5, 37), (2.0, 5.0, 10), (0.7, 0.4, 1000)]
)
def test_beta_pass_at_k_matches_quadrature(a: float, b: float, k: int) -> None:
    # E[1 - (1-p)^k] against the Beta(a, b) density; quad's algebraic weight handles p^{a-1}.
    value, _ = integrate.quad(
        lambda p: float(pass_at_k_exact(p, k)), 0, 1, weight="alg", wvar=(a - 1, b - 1), limit=200
    )
    assert float(beta_pass_at_k(a, b, k)) == pytest.approx(value / special.beta(a, b), rel=1e-9)


def test_beta_pass_at_one_is_the_mean() -> None:
    assert float(beta_pass_at_k(A, B, 1)) == pytest.approx(A / (A + B), rel=1e-14)


def test_logit_affine_identity_equals_closed_form() -> None:
    # alpha = 1, beta = 0 leaves p unchanged; compare failure rates relatively for k up to 2^16
    # (scipy's betaln differences are themselves good to ~5e-11 there).
    quadrature = beta_logit_affine_pass_at_k(A, B, 1.0, 0.0, POW2_KS)
    closed = beta_pass_at_k(A, B, POW2_KS)
    np.testing.assert_allclose(quadrature, closed, atol=1e-10)
    np.testing.assert_allclose(1 - quadrature, 1 - closed, rtol=1e-9)


@pytest.mark.parametrize(("a", "b", "alpha", "beta"), [(A, B, ALPHA, BETA), (2.0, 0.5, 0.5, -1.0)])
@pytest.mark.parametrize("k", [1, 7, 64, 1024, 2**16])
def test_logit_affine_failure_matches_adaptive_quadrature(
    a: float, b: float, alpha: float, beta: float, k: int
) -> None:
    failure = 1 - float(beta_logit_affine_pass_at_k(a, b, alpha, beta, k))
    assert failure == pytest.approx(_logit_affine_failure_quad(a, b, alpha, beta, k), rel=1e-8)


def test_beta_logit_affine_pass_at_one_is_mean_q() -> None:
    mean_q, _ = integrate.quad(
        lambda p: float(logit_affine(p, ALPHA, BETA)), 0, 1, weight="alg", wvar=(A - 1, B - 1)
    )
    got = float(beta_logit_affine_pass_at_k(A, B, ALPHA, BETA, 1))
    assert got == pytest.approx(mean_q / special.beta(A, B), rel=1e-10)


def test_beta_logit_affine_is_vectorised_over_k() -> None:
    ks = np.array([[1, 2], [64, 2**16]])
    got = beta_logit_affine_pass_at_k(A, B, ALPHA, BETA, ks)
    assert got.shape == (2, 2)
    for idx in np.ndindex(ks.shape):
        single = float(beta_logit_affine_pass_at_k(A, B, ALPHA, BETA, ks[idx]))
        assert got[idx] == pytest.approx(single, rel=1e-13)
    with pytest.raises(ValueError, match="k must be finite and k >= 1"):
        beta_logit_affine_pass_at_k(A, B, ALPHA, BETA, [1, 0.5])
    with pytest.raises(ValueError, match="a must be finite and a > 0"):
        beta_logit_affine_pass_at_k(0.0, B, ALPHA, BETA, 1)


def test_failure_asymptotes_at_large_k() -> None:
    k = 2.0**16
    base = (1 - beta_pass_at_k(A, B, k)) / beta_failure_asymptote(A, B, k)
    rl = (1 - beta_logit_affine_pass_at_k(A, B, ALPHA, BETA, k)) / (
        beta_logit_affine_failure_asymptote(A, B, ALPHA, BETA, k)
    )
    assert float(base) == pytest.approx(1.0, abs=0.02)
    assert float(rl) == pytest.approx(1.0, abs=0.02)
    # alpha = 1, beta = 0: the two asymptotes agree (Γ(a+b)/Γ(b) = Γ(a)/B(a, b))
    np.testing.assert_allclose(
        beta_logit_affine_failure_asymptote(A, B, 1.0, 0.0, POW2_KS),
        beta_failure_asymptote(A, B, POW2_KS),
        rtol=1e-13,
    )


def test_rlvr_spec_logit_affine_numbers() -> None:
    # docs/rlvr.md: pass@1 .168 → .248, cross at k = 4–8, pass@1024 .869 → .716;
    # slopes −0.299/−0.147.
    # pass@1 is exact here: base a/(a+b) = .1667 and RL E[q] = .2462, so we allow 0.002 (the
    # numbers computed before the claim were read from a sampled run).
    base = beta_pass_at_k(A, B, POW2_KS)
    rl = beta_logit_affine_pass_at_k(A, B, ALPHA, BETA, POW2_KS)
    assert base[0] == pytest.approx(0.168, abs=0.002)
    assert rl[0] == pytest.approx(0.248, abs=0.002)
    assert base[10] == pytest.approx(0.869, abs=0.001)  # k = 1024
    assert rl[10] == pytest.approx(0.716, abs=0.001)
    crossing = crossing_k(POW2_KS, base, rl)
    assert crossing.bracket == (4, 8)
    assert crossing.n_crossings == 1
    assert 4 < crossing.k_star < 8
    window = (2.0**8, 2.0**12)
    slope_base = fit_power_law(POW2_KS, 1 - base, window=window, n_boot=0).exponent
    slope_rl = fit_power_law(POW2_KS, 1 - rl, window=window, n_boot=0).exponent
    assert slope_base == pytest.approx(-0.299, abs=0.001)
    assert slope_rl == pytest.approx(-0.147, abs=0.001)


def test_failure_slopes_approach_prediction() -> None:
    # predicted large-k slopes: -a (base) and -a/α (RL)
    ks = 2.0 ** np.arange(16, 21)
    base = fit_power_law(ks, 1 - beta_pass_at_k(A, B, ks), n_boot=0)
    rl = fit_power_law(ks, 1 - beta_logit_affine_pass_at_k(A, B, ALPHA, BETA, ks), n_boot=0)
    assert base.exponent == pytest.approx(-A, abs=1e-3)
    assert rl.exponent == pytest.approx(-A / ALPHA, abs=2e-3)


# ---- two-type closed form -------------------------------------------------------------------


def test_rlvr_spec_two_type_numbers() -> None:
    # docs/rlvr.md: a=.5, p_e=.3, q_e=.9, b=.2, ε=.02: pass@1 .154 vs .45, k*≈8, pass@256 .70 vs .50
    params = {"frac_improved": 0.5, "p_e": 0.3, "q_e": 0.9, "frac_lost": 0.2, "eps": 0.02}
    base, rl = two_type_pass_at_k([1, 256], **params)
    np.testing.assert_allclose(base, [0.154, 0.70], atol=0.002)
    np.testing.assert_allclose(rl, [0.45, 0.50], atol=1e-12)
    ks = np.arange(1, 1025)
    crossing = crossing_k(ks, *two_type_pass_at_k(ks, **params))
    assert crossing.bracket == (7, 8)
    assert crossing.k_star == pytest.approx(8, abs=0.5)
    assert crossing.n_crossings == 1
    assert crossing_k(POW2_KS, *two_type_pass_at_k(POW2_KS, **params)).bracket == (4, 8)
    base_inf, rl_inf = two_type_pass_at_k(10**5, **params)
    assert float(rl_inf - base_inf) == pytest.approx(-0.2, abs=1e-12)  # Δ(∞) = -b


def test_two_type_rejects_bad_fractions() -> None:
    with pytest.raises(ValueError, match=r"frac_improved \+ frac_lost must be <= 1"):
        two_type_pass_at_k(1, 0.7, 0.3, 0.9, 0.4, 0.02)
    with pytest.raises(ValueError, match="q_e must be finite"):
        two_type_pass_at_k(1, 0.5, 0.3, 1.2, 0.2, 0.02)


# ---- crossings ------------------------------------------------------------------------------


def test_sign_changes() -> None:
    np.testing.assert_array_equal(sign_changes([1.0, -1.0, 2.0]), [1, 2])
    np.testing.assert_array_equal(sign_changes([1.0, 0.0, 0.0, 1.0]), [])
    np.testing.assert_array_equal(sign_changes([1.0, 0.0, -1.0]), [2])
    noisy = np.array([0.5, -1e-13, 2e-14, 0.4])
    np.testing.assert_array_equal(sign_changes(noisy), [1, 2])
    np.testing.assert_array_equal(sign_changes(noisy, scale=1.0, rtol=1e-10), [])
    # the same problems summed in another order: Δ is pure round-off, which the default
    # scale (|Δ|) reads as crossings and a magnitude-aware scale ignores
    rng = np.random.default_rng(0)
    p, ks = rng.uniform(size=1000), 2 ** np.arange(13)
    base, rl = pass_at_k_curve_exact(p, ks), pass_at_k_curve_exact(rng.permutation(p), ks)
    assert sign_changes(rl - base).size >= 2
    assert crossing_k(ks, base, rl).n_crossings >= 2
    assert sign_changes(rl - base, scale=base).size == 0
    assert crossing_k(ks, base, rl, scale=base) == Crossing(None, None, 0)
    with pytest.raises(ValueError, match="scale must be finite and scale >= 0"):
        sign_changes([1.0, -1.0], scale=-1.0)


def test_crossing_k_interpolation_and_no_crossing() -> None:
    halfway = crossing_k([1, 4], [0.0, 1.0], [1.0, 0.0])
    assert halfway.k_star == pytest.approx(2.0, rel=1e-15)  # geometric midpoint of (1, 4)
    assert (halfway.bracket, halfway.n_crossings) == ((1, 4), 1)
    same = np.linspace(0.2, 0.9, 10)
    assert crossing_k(np.arange(1, 11), same, same) == Crossing(None, None, 0)
    assert crossing_k([1, 2, 3], [0.1, 0.2, 0.3], [0.2, 0.3, 0.4]) == Crossing(None, None, 0)
    upward = crossing_k([1, 2, 3], [0.3, 0.3, 0.3], [0.2, 0.25, 0.4])
    assert upward == Crossing(None, None, 1)  # RL overtakes base: not a base-over-RL crossing


def test_crossing_k_skips_negligible_entries() -> None:
    base = np.array([0.1, 0.5, 0.5, 0.9])
    rl = base + np.array([0.1, 1e-18, -1e-18, -0.1])
    crossing = crossing_k([1, 2, 4, 8], base, rl, scale=1.0)
    assert crossing.bracket == (1, 8)
    assert crossing.k_star == pytest.approx(math.sqrt(8))
    assert crossing.n_crossings == 1


def test_crossing_k_counts_multiple_crossings() -> None:
    ks = [1, 2, 4, 8, 16]
    crossing = crossing_k(ks, np.zeros(5), np.array([0.1, -0.1, 0.1, -0.1, 0.2]))
    assert crossing.n_crossings == 4
    assert crossing.bracket == (1, 2)


@pytest.mark.parametrize(
    ("ks", "base", "rl", "match"),
    [
        ([1, 1, 2], [0.1] * 3, [0.2] * 3, "ks must be a non-empty 1-D strictly increasing"),
        ([1, 2.5, 4], [0.1] * 3, [0.2] * 3, "ks must be a non-empty 1-D strictly increasing"),
        ([0, 1, 2], [0.1] * 3, [0.2] * 3, "ks must be finite and ks > 0"),
        ([1, 2, 3], [0.1] * 2, [0.2] * 3, "base and rl must match ks's shape"),
        ([1, 2, 3], [0.1] * 3, [0.2, np.nan, 0.2], "rl must be finite"),
    ],
)
def test_crossing_k_rejects_bad_input(ks, base, rl, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        crossing_k(ks, base, rl)


@settings(max_examples=50)
@given(st.floats(0.1, 3.0), st.floats(0.1, 3.0), st.floats(1.0, 4.0), st.floats(-3.0, 3.0))
def test_crossing_k_star_lies_in_bracket(a: float, b: float, alpha: float, beta: float) -> None:
    ks = 2 ** np.arange(14)
    p = stats.beta.ppf(np.linspace(0.0025, 0.9975, 200), a, b)
    base = pass_at_k_curve_exact(p, ks)
    rl = pass_at_k_curve_exact(logit_affine(p, alpha, beta), ks)
    crossing = crossing_k(ks, base, rl)
    if crossing.k_star is not None:
        k_lo, k_hi = crossing.bracket
        assert k_lo < crossing.k_star < k_hi
        lo, hi = np.searchsorted(ks, [k_lo, k_hi])
        assert rl[lo] > base[lo]
        assert rl[hi] < base[hi]


# a few values, so that exact ties, zeros and several sign changes are common
_DELTAS = st.sampled_from([-0.3, -0.1, -1e-13, 0.0, 1e-13, 0.05, 0.2])


@settings(max_examples=60)
@given(st.lists(st.lists(_DELTAS, min_size=6, max_size=6), min_size=1, max_size=12))
def test_crossing_k_many_matches_the_entrywise_walk(deltas: list[list[float]]) -> None:
    ks = np.array([1, 2, 4, 8, 32, 128])
    base = np.linspace(0.2, 0.7, 6)
    rl = base + np.array(deltas)  # (B, 6)
    many = crossing_k_many(ks, base, rl, scale=1.0)
    for b, row in enumerate(rl):
        k_star, bracket, changes = crossing_k_naive(ks, base, row, scale=1.0)
        single = crossing_k(ks, base, row, scale=1.0)
        assert (single.bracket, single.n_crossings) == (bracket, changes)
        assert int(many.n_crossings[b]) == changes
        if k_star is None:
            assert single.k_star is None
            assert np.isnan(many.k_star[b])
            assert tuple(many.bracket[b]) == (0, 0)
        else:
            assert single.k_star == pytest.approx(k_star, rel=1e-14)
            assert many.k_star[b] == pytest.approx(k_star, rel=1e-14)
            assert tuple(many.bracket[b]) == bracket


def test_crossing_k_many_keeps_leading_shape_and_default_scale() -> None:
    ks = [1, 4]
    rl = np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [1.0, -1.0]]])  # (2, 2, 2)
    many = crossing_k_many(ks, np.zeros(2), rl)
    np.testing.assert_allclose(many.k_star, [[np.nan, np.nan], [np.nan, 2.0]])
    assert many.bracket.shape == (2, 2, 2)
    assert many.bracket[1, 1].tolist() == [1, 4]
    assert many.n_crossings.tolist() == [[0, 0], [0, 1]]  # exact zeros are skipped by default


@pytest.mark.parametrize(
    ("ks", "base", "rl", "match"),
    [
        ([1, 1, 2], [0.1] * 3, [0.2] * 3, "ks must be a non-empty 1-D strictly increasing"),
        ([1, 2, 3], [0.1] * 2, [[0.2] * 3], "base and rl must broadcast together"),
        ([1, 2, 3], [0.1] * 2, [0.2] * 2, "last axis of base and rl must run over the 3 ks"),
        ([1, 2, 3], [0.1] * 3, [[0.2, np.inf, 0.2]], "rl must be finite"),
    ],
)
def test_crossing_k_many_rejects_bad_input(ks, base, rl, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        crossing_k_many(ks, base, rl)
