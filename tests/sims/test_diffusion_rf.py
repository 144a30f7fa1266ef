"""The closed-form gradient flow of the random-feature score model (sims/diffusion_rf.py) against
dense oracles, its invariants, the true nonlinear matrices and the fresh-noise GD."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sims.diffusion_rf import (
    dense_flow,
    dsm_loss,
    flow_tau_grid,
    gd_fresh_noise,
    gd_task,
    ge_flow,
    infinite_time_gap_task,
    noise_averaged_features,
    population_features,
    score_dynamics_task,
    timescales,
)
from sims.rmt import nonlinear_u_mehler, sample_ge
from tests import naive
from theory.rmt import DataSpectrum

TAUS = [0.0, 0.3, 10.0, 1e3, 1e6, math.inf]
TWO_ATOMS = DataSpectrum.of([0.5, 1.5])


@pytest.mark.parametrize(
    ("d", "psi_p", "psi_n", "t", "spectrum"),
    [
        (4, 8, 2, 0.01, None),  # n + d < p: thin SVD, a delta peak at s_t²
        (4, 6, 1.5, 0.1, TWO_ATOMS),
        (4, 2, 3, 0.05, None),  # n + d > p: eigh of M Mᵀ, no delta peak
    ],
)
def test_span_flow_matches_dense_expm(d, psi_p, psi_n, t, spectrum):
    sample = sample_ge(d, psi_p, psi_n, t, rng=np.random.default_rng(3), spectrum=spectrum)
    flow, Q = ge_flow(sample, with_basis=True)
    for tau in TAUS:
        ref = naive.ge_flow_dense_naive(sample, tau)
        np.testing.assert_allclose(flow.coefficients(tau, Q), ref["B"], atol=1e-9)
        assert flow.train_loss(tau)[0] == pytest.approx(ref["train"], abs=1e-10)
        assert flow.test_loss(tau)[0] == pytest.approx(ref["test"], abs=1e-10)
        assert flow.score_error(tau)[0] == pytest.approx(ref["score"], rel=1e-9, abs=1e-9)


def test_dense_flow_on_ge_matrices_equals_span_flow():
    sample = sample_ge(5, 4, 2, 0.02, rng=np.random.default_rng(0))
    ref = naive.ge_flow_dense_naive(sample, 0.0)
    sigma_t = np.exp(-2 * sample.consts.t) + sample.consts.delta
    dense = dense_flow(
        ref["U"],
        ref["V"],
        ref["U_test"],
        ref["V"],
        delta=sample.consts.delta,
        inv_sigma_t_mean=1 / sigma_t,
    )
    span = ge_flow(sample)
    tau = np.geomspace(0.1, 1e7, 40)
    np.testing.assert_allclose(dense.train_loss(tau), span.train_loss(tau), atol=1e-10)
    np.testing.assert_allclose(dense.test_loss(tau), span.test_loss(tau), atol=1e-9)
    np.testing.assert_allclose(dense.score_error(tau), span.score_error(tau), atol=1e-7)


def test_closed_form_matches_explicit_euler():
    rng = np.random.default_rng(1)
    p, d, delta = 6, 3, 0.2
    G = rng.standard_normal((p, 2 * p))
    U = G @ G.T / (2 * p) + 0.05 * np.eye(p)
    V = rng.standard_normal((p, d)) * 0.3
    flow, Q = dense_flow(U, V, U, V, delta=delta, inv_sigma_t_mean=1.0, with_basis=True)
    for tau in (0.5, 5.0, 40.0):
        euler = naive.euler_flow_naive(U, V, delta, p / d, tau, steps=20_000)
        np.testing.assert_allclose(flow.coefficients(tau, Q), euler, rtol=2e-3, atol=1e-6)


ge_draws = st.tuples(
    st.integers(2, 6),  # d
    st.floats(1.0, 6.0),  # ψ_p
    st.floats(0.5, 6.0),  # ψ_n
    st.floats(0.005, 1.0),  # t
    st.integers(0, 2**32 - 1),  # seed
    st.booleans(),  # two-atom Σ
)


def _draw(args):
    d, psi_p, psi_n, t, seed, two = args
    return sample_ge(
        d, psi_p, psi_n, t, rng=np.random.default_rng(seed), spectrum=TWO_ATOMS if two else None
    )


@settings(max_examples=25, deadline=None)
@given(ge_draws)
def test_flow_invariants(args):
    sample = _draw(args)
    flow = ge_flow(sample)
    sigma_t = np.exp(-2 * sample.consts.t) * sample.sigma_diag + sample.consts.delta
    # τ = 0: A = 0, so both losses are E‖ξ‖²/d = 1 and the score error is Tr Σ_t⁻¹/d
    assert flow.train_loss(0.0)[0] == pytest.approx(1.0, abs=1e-12)
    assert flow.test_loss(0.0)[0] == pytest.approx(1.0, abs=1e-12)
    assert flow.score_error(0.0)[0] == pytest.approx(np.mean(1 / sigma_t), rel=1e-12)
    # gradient flow on the train loss: non-increasing in τ
    tau = np.concatenate([[0.0], flow_tau_grid(flow, 8), [math.inf]])
    train = flow.train_loss(tau)
    assert np.all(np.diff(train) <= 1e-12 * np.abs(train[:-1]))
    # τ = ∞: the ridgeless minimum of the train loss
    ref = naive.ge_flow_dense_naive(sample, 0.0)
    minimum = naive.ridgeless_minimum_naive(ref["U"], ref["V"], sample.consts.delta)
    assert train[-1] == pytest.approx(minimum, abs=1e-9)
    # the DSM identity: test loss = 1 + Δ (score error − Tr Σ_t⁻¹/d)
    test = flow.test_loss(tau)
    score = flow.score_error(tau)
    np.testing.assert_allclose(
        test, 1 + sample.consts.delta * (score - np.mean(1 / sigma_t)), atol=1e-10
    )
    # the score error is a mean square: never negative
    assert np.all(score >= -1e-9)


def test_dsm_loss_matches_trace_formula():
    rng = np.random.default_rng(2)
    B, U, V = rng.standard_normal((3, 5)), np.eye(5) * 0.4, rng.standard_normal((5, 3))
    assert dsm_loss(B, U, V, 0.3) == pytest.approx(naive.quadratic_dsm_loss_naive(B, U, V, 0.3))


# ------------------------------------------------------------------------------ timescales
def test_timescales_match_a_dense_grid():
    flow = ge_flow(sample_ge(6, 32, 4, 0.01, rng=np.random.default_rng(5)))
    times = timescales(flow.score_error, flow_tau_grid(flow))
    dense = np.geomspace(flow_tau_grid(flow)[0], flow_tau_grid(flow)[-1], 200_001)
    values = flow.score_error(dense)
    i = int(np.argmin(values))
    assert times.score_min <= values[i] + 1e-12
    assert times.tau_min == pytest.approx(dense[i], rel=2e-3)
    assert times.score_start == pytest.approx(1.0)
    level_gen = 0.5 * (times.score_start + times.score_min)
    gen = naive.first_crossing_naive(dense, values, level_gen, up=False)
    mem = naive.first_crossing_naive(dense, values, 2 * times.score_min, start=i, up=True)
    assert times.tau_gen == pytest.approx(gen, rel=2e-4)
    assert times.tau_mem == pytest.approx(mem, rel=2e-4)
    assert times.tau_gen < times.tau_min < times.tau_mem


def test_timescales_without_doubling_give_nan():
    def score(tau):
        return 1.0 / (1.0 + np.asarray(tau)) + 0.5

    times = timescales(score, np.geomspace(0.01, 1e4, 200))
    assert times.tau_min == pytest.approx(1e4)  # decreasing: the minimum is the grid's end
    level = 0.5 * (times.score_start + times.score_min)
    assert times.tau_gen == pytest.approx(1 / (level - 0.5) - 1, rel=1e-8)
    assert math.isnan(times.tau_mem)


# ------------------------------------------------------------------------------ true matrices
def _tiny_draw(seed=0, p=4, d=3, n=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((p, d)), rng.standard_normal((d, n))


def test_noise_averaged_features_match_pairwise_quadrature():
    W, X = _tiny_draw()
    U, V = noise_averaged_features(W, X, 0.05)
    U_ref, V_ref = naive.noise_averaged_features_naive(W, X, 0.05)
    np.testing.assert_allclose(U, U_ref, atol=1e-12)
    np.testing.assert_allclose(V, V_ref, atol=1e-12)


def test_noise_averaged_u_agrees_with_the_spectrum_module():
    sample = sample_ge(8, 4, 2, 0.01, rng=np.random.default_rng(4))
    U, _ = noise_averaged_features(np.asarray(sample.W), np.asarray(sample.X), 0.01)
    np.testing.assert_allclose(U, nonlinear_u_mehler(sample, order=8), atol=1e-12)
    U14, _ = noise_averaged_features(np.asarray(sample.W), np.asarray(sample.X), 0.01, order=14)
    np.testing.assert_allclose(U, U14, atol=1e-13)


def test_population_features_match_2d_quadrature():
    rng = np.random.default_rng(6)
    W = rng.standard_normal((6, 4))
    W[1] = W[0] + 0.2 * rng.standard_normal(4)  # a strongly correlated pair
    sigma = np.array([0.5, 0.5, 1.5, 1.5])
    t = 0.1
    sigma_t = np.exp(-2 * t) * sigma + 1 - np.exp(-2 * t)
    U, V = population_features(W, sigma, t)
    C = W @ np.diag(sigma_t) @ W.T
    rho = C / np.sqrt(np.outer(np.diag(C), np.diag(C)))
    assert rho[0, 1] > 0.98  # near-duplicate neurons: the Mehler series converges slowest
    for i, j in [(0, 0), (0, 1), (2, 5), (3, 4), (0, 2)]:
        assert U[i, j] == pytest.approx(naive.population_entry_naive(W, sigma_t, i, j), abs=1e-8)
    # Ṽ_i· = √Δ (W_i·/√d) E σ'(h_i), E σ' by quadrature of 1 − tanh²
    c = np.sqrt(W[2] @ (sigma_t * W[2]) / 4)
    z, w = np.polynomial.hermite_e.hermegauss(120)
    slope = np.sum(w * (1 - np.tanh(c * z) ** 2)) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(V[2], np.sqrt((1 - np.exp(-2 * t)) / 4) * slope * W[2], rtol=1e-10)


# ------------------------------------------------------------------------------ discrete GD
def test_one_gd_step_is_the_averaged_gradient_step_in_mean():
    W, X = _tiny_draw(p=5, d=3, n=4)
    t, lr, reps = 0.1, 2.0, 4000
    _, V = noise_averaged_features(W, X, t)
    steps = np.array(
        [
            gd_fresh_noise(W, X, t, lr=lr, checkpoints=[1], rng=np.random.default_rng(s)).readouts[
                0
            ]
            for s in range(reps)
        ]
    )
    # from B = 0 the expected step is −(η/p)(2/d)√Δ Vᵀ
    delta = 1 - np.exp(-2 * t)
    expected = -(lr / 5) * (2 / 3) * np.sqrt(delta) * V.T
    se = steps.std(axis=0) / np.sqrt(reps)
    assert np.all(np.abs(steps.mean(axis=0) - expected) <= 4.5 * se)


def _plain_tanh(x):
    """tanh through the generic activation path (not the in-place fast path)."""
    return np.tanh(x)


def test_gd_is_deterministic_and_tau_is_k_eta_over_d2():
    W, X = _tiny_draw(p=5, d=3, n=4)
    runs = [
        gd_fresh_noise(W, X, 0.1, lr=1.5, checkpoints=[1, 4, 9], rng=np.random.default_rng(7))
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0].readouts, runs[1].readouts)
    np.testing.assert_allclose(runs[0].tau, np.array([1, 4, 9]) * 1.5 / 9)
    generic = gd_fresh_noise(
        W,
        X,
        0.1,
        lr=1.5,
        checkpoints=[1, 4, 9],
        rng=np.random.default_rng(7),
        activation=_plain_tanh,
    )
    np.testing.assert_allclose(generic.readouts, runs[0].readouts, atol=1e-13)


def test_gd_rejects_bad_checkpoints():
    W, X = _tiny_draw()
    with pytest.raises(ValueError, match="checkpoints"):
        gd_fresh_noise(W, X, 0.1, lr=1.0, checkpoints=[3, 2], rng=np.random.default_rng(0))


# ------------------------------------------------------------------------------ sweep tasks
def test_tasks_return_finite_results():
    rng = np.random.default_rng(0)
    params = {"d": 4, "psi_p": 16, "psi_n": 2, "t": 0.01}
    dyn = score_dynamics_task(params, rng)
    assert dyn["tau_gen"] < dyn["tau_min"] < dyn["tau_mem"]
    assert np.all(np.isfinite(dyn["score"]))
    gap = infinite_time_gap_task(params, rng)
    assert gap["gap"] == pytest.approx(gap["test"] - gap["train"])
    gd = gd_task(
        {
            "d": 4,
            "psi_p": 4,
            "psi_n": 1,
            "t": 0.01,
            "lr_factor": 1e-3,
            "tau_end": 2.0,
            "tau_end_is_test_min_multiple": True,
            "checkpoints": 10,
        },
        rng,
    )
    assert len(gd["steps"]) == len(gd["gd_train"]) == len(gd["gd_test"])
    assert np.all(np.isfinite(gd["flow_test"]))
    assert gd["gd_train"][-1] < 1.0  # descended (the first noisy step may overshoot)
