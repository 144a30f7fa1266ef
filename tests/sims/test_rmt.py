"""Sampled spectra of the random-feature U (sims/rmt.py): the Gram trick against dense eigvalsh,
the group counts of docs/diffusion.md#the-spectrum-of-u-theorem-31, and the true nonlinear U
(Mehler and Monte Carlo) against a per-entry double integral."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import sims.rmt
from sims.rmt import (
    dense_eigenvalues,
    ge_eigenvalues,
    ge_sample_cost,
    ge_spectrum_task,
    nonlinear_spectrum_task,
    nonlinear_u_mehler,
    nonlinear_u_monte_carlo,
    sample_ge,
)
from tests import naive
from theory.rmt import DataSpectrum

TWO_ATOMS = DataSpectrum.of([0.5, 1.5])


@pytest.mark.parametrize(
    ("d", "psi_p", "psi_n", "t", "spectrum"),
    [
        (5, 8, 2, 0.01, None),  # n + d = 15 < p = 40: 25 eigenvalues at s_t²
        (6, 4, 1.5, 0.1, TWO_ATOMS),  # n + d = 15 < p = 24
        (6, 2, 3, 0.1, TWO_ATOMS),  # n + d = 24 > p = 12: no eigenvalue forced to s_t²
    ],
)
def test_gram_trick_equals_dense_eigvalsh(d, psi_p, psi_n, t, spectrum):
    sample = sample_ge(d, psi_p, psi_n, t, rng=np.random.default_rng(4), spectrum=spectrum)
    values, at_floor = ge_eigenvalues(sample)
    assert at_floor == max(0, sample.p - sample.n - sample.d)
    assert len(values) + at_floor == sample.p
    want = np.linalg.eigvalsh(naive.ge_matrix_naive(sample))
    got = np.sort(np.concatenate([values, np.full(at_floor, sample.consts.s2)]))
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(dense_eigenvalues(sample), want, atol=1e-12)
    np.testing.assert_allclose(sample.u_matrix(), naive.ge_matrix_naive(sample), atol=1e-13)


@pytest.mark.parametrize(
    ("d", "psi_p", "psi_n", "block_entries"),
    [
        (6, 2, 3, 12),  # p = 12 < n + d = 24: the p × p route, one sample per block
        (5, 1, 40, 35),  # p = 5, n = 200: seven samples per block, the last one short
        (7, 3, 2, 2**22),  # p = n + d = 21: the p × p route in one block
        (5, 8, 2, 4),  # p = 40 > n + d = 15: the (n+d) × (n+d) route, 25 at s_t²
    ],
)
def test_smaller_gram_equals_the_factor_gram_of_the_same_draw(
    d, psi_p, psi_n, block_entries, monkeypatch
):
    """The same seed gives the same spectrum as the old route through MᵀM (tests/naive.py), up
    to rounding: the nonzero eigenvalues and the count at s_t²."""
    monkeypatch.setattr(sims.rmt, "GRAM_BLOCK_ENTRIES", block_entries)
    sample = sample_ge(d, psi_p, psi_n, 0.1, rng=np.random.default_rng(11), spectrum=TWO_ATOMS)
    values, at_floor = ge_eigenvalues(sample)
    want, want_floor = naive.ge_eigenvalues_factor_gram_naive(
        sample_ge(d, psi_p, psi_n, 0.1, rng=np.random.default_rng(11), spectrum=TWO_ATOMS)
    )
    assert at_floor == want_floor
    assert len(values) == len(want) == min(sample.p, sample.n + sample.d)
    np.testing.assert_allclose(values, want, rtol=1e-12, atol=1e-14)


def test_progress_bar_is_silent_off_a_terminal(capsys):
    sample = sample_ge(4, 2, 8, 0.1, rng=np.random.default_rng(0))
    values, _ = ge_eigenvalues(sample, progress=True)
    assert len(values) == 8
    assert capsys.readouterr().err == ""


def test_sample_cost_bounds_the_measured_peak_and_stays_small_at_large_psi_n():
    """The memory estimate is at least the traced peak of the draw and its spectrum and at most
    three times it; at ψ_n = 1000, d = 200 (the theory's sizes) the p × p route keeps it to
    about 2 GiB and a quarter of a minute, where the (n+d) × (n+d) route needed ~900 GiB."""
    import tracemalloc

    cost = ge_sample_cost(20, 4, 50)  # p = 80, n = 1000
    ge_eigenvalues(sample_ge(2, 1, 1, 0.1, rng=np.random.default_rng(0)))  # imports, caches
    tracemalloc.start()
    values, _ = ge_eigenvalues(sample_ge(20, 4, 50, 0.1, rng=np.random.default_rng(0)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(values) == 80
    assert peak <= cost.bytes <= 3 * peak
    big = ge_sample_cost(200, 4, 1000)
    assert big.bytes < 2.5 * 2**30
    assert big.seconds < 60
    assert ge_sample_cost(20, 4, 1000).bytes < big.bytes


def test_group_counts_at_psi_p_64_psi_n_8():
    """Computed beforehand: ψ_p = 64, ψ_n = 8, d = 50 (p = 3200, n = 400): p − n − d = 2750
    eigenvalues at s_t², then d = 50 in the low bulk, n − d = 350 in ρ1 and d = 50 in ρ2, the groups
    separated by the two widest gaps in log λ."""
    sample = sample_ge(50, 64, 8, 0.01, rng=np.random.default_rng(0))
    values, at_floor = ge_eigenvalues(sample)
    assert at_floor == 2750
    assert values.min() > sample.consts.s2
    gaps = np.diff(np.log(values - sample.consts.s2))
    cuts = np.sort(np.argsort(gaps)[-2:]) + 1
    assert [len(g) for g in np.split(values, cuts)] == [50, 350, 50]


def test_sample_shapes_and_determinism():
    a = sample_ge(7, 3, 2, 0.05, rng=np.random.default_rng(9), spectrum=TWO_ATOMS)
    b = sample_ge(7, 3, 2, 0.05, rng=np.random.default_rng(9), spectrum=TWO_ATOMS)
    assert (a.p, a.d, a.n) == (21, 7, 14)
    assert [m.shape for m in (a.W, a.X, a.Omega, a.G, a.M)] == [
        (21, 7),
        (7, 14),
        (21, 14),
        (21, 14),
        (21, 21),
    ]
    for name in ("W", "X", "Omega", "sigma_diag"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.consts.sigma_x2 == pytest.approx(np.mean(a.sigma_diag))


@pytest.fixture(scope="module")
def tiny():
    """d = 6, p = 6, n = 3, t = 0.3 (noise large enough that the Mehler tail matters), and the
    per-entry 2-D Gauss–Hermite oracle of the true U."""
    sample = sample_ge(6, 1.0, 0.5, 0.3, rng=np.random.default_rng(2))
    return sample, naive.nonlinear_u_naive(sample)


def test_mehler_equals_the_per_entry_double_integral(tiny):
    sample, exact = tiny
    np.testing.assert_allclose(nonlinear_u_mehler(sample, order=16, nodes=96), exact, atol=1e-11)


def test_mehler_converges_in_the_order(tiny):
    sample, exact = tiny
    errors = [
        np.max(np.abs(nonlinear_u_mehler(sample, order=k, nodes=96) - exact)) for k in range(9)
    ]
    assert all(later < earlier for earlier, later in itertools.pairwise(errors))
    assert errors[0] > 1e-2  # the order-0 (mean-only) term alone is visibly wrong
    assert errors[8] < 1e-8
    # diagonal is exact at every order
    np.testing.assert_allclose(
        np.diag(nonlinear_u_mehler(sample, order=0, nodes=96)), np.diag(exact), atol=1e-12
    )


def test_monte_carlo_u_is_close_to_mehler(tiny):
    """Each MC entry is a mean of n·m terms tanh(h_i)tanh(h_j) ∈ [−1, 1] (variance ≤ 1), so its
    error is below 5/√(n m) except with probability < 1e-6 per entry (Chebyshev would give 1/25;
    the terms are bounded, so Hoeffding gives 2e^{−12.5} ≈ 7e-6 for the sum over n·m samples)."""
    sample, exact = tiny
    draws = 4000
    mc = nonlinear_u_monte_carlo(sample, noise_draws=draws, rng=np.random.default_rng(1))
    assert np.max(np.abs(mc - exact)) < 5 / math.sqrt(sample.n * draws)
    again = nonlinear_u_monte_carlo(sample, noise_draws=draws, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(mc, again)


@pytest.mark.parametrize("build", ["mehler", "monte_carlo"])
def test_nonlinear_u_is_symmetric_psd(build):
    sample = sample_ge(10, 2.0, 1.0, 0.05, rng=np.random.default_rng(5))
    if build == "mehler":
        U = nonlinear_u_mehler(sample)
    else:
        U = nonlinear_u_monte_carlo(sample, noise_draws=5, rng=np.random.default_rng(0))
    np.testing.assert_allclose(U, U.T, atol=1e-14)
    assert np.linalg.eigvalsh((U + U.T) / 2).min() > -1e-12


def test_sweep_tasks_reproduce_the_direct_calls():
    params = {"d": 8, "psi_p": 4.0, "psi_n": 2.0, "t": 0.05, "sigma_atoms": [0.5, 1.5]}
    out = ge_spectrum_task(params, np.random.default_rng(3))
    values, at_floor = ge_eigenvalues(
        sample_ge(8, 4.0, 2.0, 0.05, rng=np.random.default_rng(3), spectrum=TWO_ATOMS)
    )
    np.testing.assert_array_equal(out["eigenvalues"], values)
    assert (out["floor_count"], out["p"]) == (at_floor, 32)
    nonlinear = nonlinear_spectrum_task(params, np.random.default_rng(3))
    assert len(nonlinear["eigenvalues"]) == 32
    assert nonlinear["s2"] == out["s2"]
    mc = nonlinear_spectrum_task({**params, "noise_draws": 3}, np.random.default_rng(3))
    assert not np.allclose(mc["eigenvalues"], nonlinear["eigenvalues"])


def test_array_api_strict_gives_the_numpy_results():
    xps = pytest.importorskip("array_api_strict")
    rng_args = (6, 2.0, 1.5, 0.1)
    strict = sample_ge(*rng_args, rng=np.random.default_rng(0), xp=xps, spectrum=TWO_ATOMS)
    plain = sample_ge(*rng_args, rng=np.random.default_rng(0), spectrum=TWO_ATOMS)
    assert type(strict.W).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(ge_eigenvalues(strict)[0], ge_eigenvalues(plain)[0], atol=1e-13)
    assert ge_eigenvalues(strict)[1] == ge_eigenvalues(plain)[1]
    np.testing.assert_allclose(dense_eigenvalues(strict), dense_eigenvalues(plain), atol=1e-13)
    U_strict = nonlinear_u_mehler(strict, activation=xps.tanh)
    assert type(U_strict).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.from_dlpack(U_strict), nonlinear_u_mehler(plain), atol=1e-14)


def test_bad_inputs_name_the_argument():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"^d must"):
        sample_ge(0, 2.0, 2.0, 0.1, rng=rng)
    with pytest.raises(ValueError, match="psi_p"):
        sample_ge(4, -1.0, 2.0, 0.1, rng=rng)
    with pytest.raises(ValueError, match="psi_n"):
        sample_ge(4, 2.0, math.inf, 0.1, rng=rng)
    sample = sample_ge(4, 2.0, 2.0, 0.1, rng=rng)
    with pytest.raises(ValueError, match="order"):
        nonlinear_u_mehler(sample, order=-1)
    with pytest.raises(ValueError, match="noise_draws"):
        nonlinear_u_monte_carlo(sample, noise_draws=0, rng=rng)


GPU_POINT = {"d": 20, "psi_p": 2.0, "psi_n": 0.5, "t": 0.5, "sigma_atoms": [1.0, 3.0]}


def test_the_gram_spectrum_on_a_gpu_backend_is_the_numpy_one(cupy_stand_in):
    """array-api-strict stands in for cupy: the draw is made on the host and moved, the Gram
    trick runs in the backend's namespace, and the spectrum is the numpy one."""
    import array_api_strict

    cpu = ge_spectrum_task(dict(GPU_POINT), np.random.default_rng(4))
    cupy_stand_in(array_api_strict)
    strict = ge_spectrum_task(GPU_POINT | {"backend": "cupy"}, np.random.default_rng(4))
    np.testing.assert_allclose(strict["eigenvalues"], cpu["eigenvalues"], rtol=1e-12)
    assert (strict["floor_count"], strict["p"]) == (cpu["floor_count"], cpu["p"])
    with pytest.raises(ValueError, match="backend"):
        ge_spectrum_task(GPU_POINT | {"backend": "cupy", "row_block": 8}, np.random.default_rng(4))


@pytest.mark.parametrize("noise_draws", [None, 3])
def test_the_nonlinear_spectrum_on_a_gpu_backend_is_the_numpy_one(cupy_stand_in, noise_draws):
    """The GPU branch (draws on the host, U read back) with numpy's namespace standing in for
    cupy's (the activation is a numpy ufunc, which cupy arrays take and array-api-strict's do
    not): the same spectrum."""
    import array_api_compat.numpy as xp_numpy

    point = GPU_POINT | ({} if noise_draws is None else {"noise_draws": noise_draws})
    cpu = nonlinear_spectrum_task(dict(point), np.random.default_rng(4))
    cupy_stand_in(xp_numpy)
    gpu = nonlinear_spectrum_task(point | {"backend": "cupy"}, np.random.default_rng(4))
    np.testing.assert_array_equal(gpu["eigenvalues"], cpu["eigenvalues"])


@pytest.mark.gpu
@pytest.mark.parametrize("task", ["ge", "nonlinear"])
def test_the_spectra_on_cupy_are_the_numpy_ones_up_to_rounding(task):
    """Same draws (made on the host), float64 sums in another order. Not yet run on a GPU."""
    pytest.importorskip("cupy")
    fn = ge_spectrum_task if task == "ge" else nonlinear_spectrum_task
    cpu = fn(dict(GPU_POINT), np.random.default_rng(4))
    gpu = fn(GPU_POINT | {"backend": "cupy"}, np.random.default_rng(4))
    np.testing.assert_allclose(gpu["eigenvalues"], cpu["eigenvalues"], rtol=1e-8, atol=1e-10)
