"""Training dynamics of the random-feature score model of Bonnaire et al. (NeurIPS 2025, arXiv
2505.17638, §3), written out in docs/diffusion.md#the-random-features-score-model.

The model is s_A(x) = (A/√p) σ(W x/√d) with W ∈ R^{p×d} frozen; B := A/√p (d × p). Its DSM loss at
diffusion time t, with Δ := Δ_t = 1 − e^{−2t}, is the quadratic

    L(B) = 1 + (Δ/d) Tr(B U Bᵀ) + (2√Δ/d) Tr(B V),

with U = E[φ φᵀ], V = E[φ ξᵀ] averaged over the training set (train loss) or over fresh data
(test loss: Ũ, Ṽ). Gradient descent A ← A − η ∇_A L with τ = kη/d² is, in the limit η → 0, the flow
dB/dτ = −(2/ψ_p)(Δ B U + √Δ Vᵀ), B(0) = 0, whose solution is

    B(τ) = −(1/√Δ) Vᵀ U⁻¹ (I − exp(−2Δ U τ/ψ_p)).

:class:`EigenFlow` evaluates it in an eigenbasis Q of U restricted to a subspace that carries
the forcing V: with λ_i the eigenvalues, F = QᵀV (k × d), g_i(τ) = (1 − e^{−2Δλ_iτ/ψ_p})/λ_i and
D = diag(g), B(τ) = −(1/√Δ) Fᵀ D Qᵀ. :func:`ge_flow` builds it for the Gaussian-equivalent (GE)
matrices of Lemma C.1 from the thin SVD of M = [G/√n, b_t W/√d] (U − s_t² I = M Mᵀ and V = b_t W/√d
both live in the span of M, so the p − n − d eigenvalues s_t² of the delta peak never enter);
:func:`dense_flow` builds it from explicit p × p matrices (the true nonlinear U of
``diffusion.gd_matches_flow``).
:func:`noise_averaged_features` and :func:`population_features` compute those true matrices
without Monte Carlo; :func:`gd_fresh_noise` runs the actual discrete GD with fresh noise.

The sweep tasks at the bottom (``fn(params, rng) -> dict``) are what the claims run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from sims.rmt import GESample, _dims, _sample_from_params, stream_ge
from theory import _domain
from theory.rmt import Activation, DataSpectrum, RFConstants, hermite_rule, rf_constants

__all__ = [
    "EigenFlow",
    "GDTrajectory",
    "Timescales",
    "dense_flow",
    "dsm_loss",
    "flow_tau_grid",
    "gd_fresh_noise",
    "gd_task",
    "ge_flow",
    "ge_flow_streamed",
    "infinite_time_gap_task",
    "noise_averaged_features",
    "population_features",
    "score_dynamics_task",
    "timescales",
]

Array = NDArray[np.float64]

#: Mehler order of the noise-averaged U: its terms fall like (Δ K_ii)^k / k!, so order 8 is exact
#: to double precision at every t ≤ 1 (checked against order 14 in the tests).
MEHLER_ORDER = 8


# ------------------------------------------------------------------------------ the closed form
@dataclass(frozen=True)
class EigenFlow:
    """The gradient flow of the DSM loss in an eigenbasis Q (p × k) of the training matrix U.

    Attributes
    ----------
    eigenvalues : (k,)
        λ_i, eigenvalues of U on span(Q); the complement of span(Q) must be U-invariant and
        orthogonal to V, so that B(τ) never leaves span(Q).
    forcing : (k, d)
        F = Qᵀ V, the train forcing in the eigenbasis.
    test_gram : (k, k)
        Qᵀ Ũ Q, the population second moment of the features on span(Q).
    test_forcing : (k, d)
        Qᵀ Ṽ, the population forcing.
    delta : float
        Δ_t.
    psi_p : float
        ψ_p = p/d (the flow's time unit).
    inv_sigma_t_mean : float
        Tr Σ_t⁻¹ / d with Σ_t = e^{−2t}Σ + Δ_t I, the score error of s = 0.

    Notes
    -----
    With D = diag(g(τ)) and f_i = ‖F_i‖² (derived by substituting the flow's B(τ) into the loss):

    - train loss 1 + (1/d) Σ_i f_i (λ_i g_i² − 2 g_i),
    - test loss 1 + (1/d) gᵀ (Qᵀ Ũ Q ∘ F Fᵀ) g − (2/d) Σ_i g_i (F ∘ QᵀṼ)_i·,
    - score error E‖s_A(x) − ∇log P_t(x)‖²/d = (L_test − 1)/Δ + Tr Σ_t⁻¹/d, because for Gaussian
      data E[φ xᵀ] Σ_t⁻¹ = Ṽ/√Δ (Stein's lemma), so the DSM test loss is Δ × score error plus a
      constant (the identity behind DSM).
    """

    eigenvalues: Array
    forcing: Array
    test_gram: Array
    test_forcing: Array
    delta: float
    psi_p: float
    inv_sigma_t_mean: float

    @property
    def d(self) -> int:
        return int(self.forcing.shape[1])

    def gains(self, tau: ArrayLike) -> Array:
        """g_i(τ) = (1 − e^{−2Δλ_iτ/ψ_p})/λ_i, shape (T, k); τ = ∞ gives 1/λ_i (the ridgeless
        minimiser B(∞) = −Vᵀ U⁻¹/√Δ)."""
        tau = np.atleast_1d(np.asarray(tau, dtype=float))[:, None]
        lam = self.eigenvalues[None, :]
        return -np.expm1(-2.0 * self.delta * lam * tau / self.psi_p) / lam

    @cached_property
    def _train_weights(self) -> Array:
        return np.sum(self.forcing**2, axis=1)  # f_i = ‖F_i‖²

    @cached_property
    def _test_quadratic(self) -> Array:
        return self.test_gram * (self.forcing @ self.forcing.T)  # (k, k)

    @cached_property
    def _test_linear(self) -> Array:
        return np.sum(self.forcing * self.test_forcing, axis=1)  # (k,)

    def train_loss(self, tau: ArrayLike) -> Array:
        """L_train(τ) = 1 + (1/d) Σ_i f_i (λ_i g_i² − 2 g_i)."""
        g = self.gains(tau)
        return 1.0 + (g * (self.eigenvalues * g - 2.0)) @ self._train_weights / self.d

    def test_loss(self, tau: ArrayLike) -> Array:
        """L_test(τ) = 1 + (1/d) gᵀ(QᵀŨQ ∘ FFᵀ)g − (2/d) Σ_i g_i (F ∘ QᵀṼ)_i·."""
        g = self.gains(tau)
        quad = np.einsum("ti,ti->t", g @ self._test_quadratic, g)
        return 1.0 + (quad - 2.0 * g @ self._test_linear) / self.d

    def score_error(self, tau: ArrayLike) -> Array:
        """E‖s_A(x) − ∇log P_t(x)‖²/d = (L_test − 1)/Δ + Tr Σ_t⁻¹/d (1 at τ = 0 for Σ = I)."""
        return (self.test_loss(tau) - 1.0) / self.delta + self.inv_sigma_t_mean

    def coefficients(self, tau: float, basis: Array) -> Array:
        """B(τ) = −(1/√Δ) Fᵀ diag(g(τ)) Qᵀ (d × p), given the basis Q (p × k)."""
        g = self.gains(tau)[0]
        return -(self.forcing.T * g) @ basis.T / math.sqrt(self.delta)


def _sigma_t(sigma_diag: Array, t: float) -> Array:
    """The diagonal of Σ_t = e^{−2t} Σ + Δ_t I."""
    return math.exp(-2.0 * t) * sigma_diag - math.expm1(-2.0 * t)


def ge_flow(sample: GESample, *, with_basis: bool = False) -> EigenFlow | tuple[EigenFlow, Array]:
    """The closed-form flow for the GE matrices of a sample (the paper's Lemma C.1; the Gram trick
    of :func:`sims.rmt.ge_eigenvalues`).

    From the thin SVD M = Q S Rᵀ of M = [G/√n, b_t W/√d] (a p × p eigendecomposition, of M Mᵀ,
    only when n + d ≥ p): λ_i = S_i² + s_t²; W_Q = QᵀW (k × d) with k = min(p, n + d);
    F = QᵀV = (b_t/√d) W_Q (V ≅ b_t W/√d is the last d columns of M, so it lies in span Q
    exactly); Qᵀ Ũ Q = (a_t²/d) W_Q Σ_t W_Qᵀ + (v_t² + s_t²) I with the population matrix
    Ũ = a_t² W Σ_t Wᵀ/d + (v_t² + s_t²) I; Ṽ = V (the GE forcing is data-free).
    Costs O(p (n+d) min(p, n+d)).

    Parameters
    ----------
    sample : sims.rmt.GESample
        A GE draw (:func:`sims.rmt.sample_ge`).
    with_basis : bool
        Also return the basis Q.

    Returns
    -------
    EigenFlow or (EigenFlow, numpy.ndarray)
        The flow on its k = min(p, n + d) modes, and Q (p × k) when ``with_basis``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.1, rng=np.random.default_rng(0))  # d, ψ_p, ψ_n, t
    >>> flow, basis = ge_flow(sample, with_basis=True)
    >>> flow.eigenvalues.shape, basis.shape  # k = n + d = 30 < p = 40
    ((30,), (40, 30))
    >>> float(flow.train_loss(0.0)[0])  # B(0) = 0: the loss is 1
    1.0
    """
    from sims._backend import to_numpy

    c = sample.consts
    M = to_numpy(sample.M)
    W = to_numpy(sample.W)
    sigma_t = _sigma_t(to_numpy(sample.sigma_diag), c.t)
    if M.shape[1] >= M.shape[0]:  # n + d ≥ p: the p × p Gram M Mᵀ is the smaller problem
        S2, Q = np.linalg.eigh(M @ M.T)
        S2 = np.maximum(S2, 0.0)
    else:
        Q, S, _ = np.linalg.svd(M, full_matrices=False)  # Q: (p, k)
        S2 = S**2
    flow = _ge_eigenflow(c, S2, Q.T @ W, sigma_t, sample.p)
    return (flow, Q) if with_basis else flow


def _ge_eigenflow(c: RFConstants, S2: Array, WQ: Array, sigma_t: Array, p: int) -> EigenFlow:
    """The GE flow from the squared singular values S² of M and W_Q = QᵀW (k × d), Q the left
    singular vectors: λ = S² + s_t², F = (b_t/√d) W_Q, QᵀŨQ = (a_t²/d) W_Q Σ_t W_Qᵀ + (v_t² + s_t²) I
    (:func:`ge_flow`)."""
    d = WQ.shape[1]
    F = (c.b / math.sqrt(d)) * WQ
    gram = (c.a**2 / d) * (WQ * sigma_t) @ WQ.T + (c.v2 + c.s2) * np.eye(WQ.shape[0])
    return EigenFlow(
        eigenvalues=S2 + c.s2,
        forcing=F,
        test_gram=gram,
        test_forcing=F,
        delta=c.delta,
        psi_p=p / d,
        inv_sigma_t_mean=float(np.mean(1.0 / sigma_t)),
    )


def ge_flow_streamed(params: dict[str, Any], rng: np.random.Generator, block: int) -> EigenFlow:
    """:func:`ge_flow` of a GE draw at ``params`` that never holds Ω or the p × (n+d) factor M
    (another draw order than :func:`sims.rmt.sample_ge`, the same law); ``block`` rows or columns
    at a time. With k = n + d:

    - k ≤ p: a :func:`sims.rmt.stream_ge` draw; MᵀM and MᵀW are accumulated over feature
      blocks, and eigh(MᵀM) = R S² Rᵀ gives Q = M R S⁻¹, so W_Q = QᵀW = S⁻¹ Rᵀ (MᵀW);
    - k > p: W (p × d) and X are drawn whole, then Ω ``block`` samples (columns) at a time, and
      M Mᵀ = b_t² W Wᵀ/d + Σ_b G_b G_bᵀ/n is accumulated; eigh(M Mᵀ) = Q S² Qᵀ, W_Q = QᵀW.

    Memory O(min(p, k)² + block·max(p, k)), against O(p·k) for Ω and M whole: at d = 2000,
    ψ_p = 16, ψ_n = 64 about 40 GB (the 32,000² eigh) instead of ~110 GB.

    Parameters
    ----------
    params : dict
        ``d``, ``psi_p``, ``psi_n``, ``t`` and optionally ``sigma_atoms``, ``weights`` (the data
        spectrum).
    rng : numpy.random.Generator
        Source of the draw.
    block : int
        Rows or columns per block, ≥ 1.

    Returns
    -------
    EigenFlow
        The flow of the draw.

    Raises
    ------
    ValueError
        Unless ``block`` ≥ 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import ge_flow_streamed
    >>> params = {"d": 20, "psi_p": 2.0, "psi_n": 0.5, "t": 0.1}
    >>> flow = ge_flow_streamed(params, np.random.default_rng(0), block=8)
    >>> flow.eigenvalues.shape, flow.d, flow.psi_p
    ((30,), 20, 2.0)
    """
    spectrum = DataSpectrum.of(params.get("sigma_atoms", [1.0]), params.get("weights"))
    d, t = int(params["d"]), float(params["t"])
    p, n = _dims(d, params["psi_p"], params["psi_n"])
    if n + d <= p:
        draw = stream_ge(
            d, params["psi_p"], params["psi_n"], t, rng=rng, spectrum=spectrum, row_block=block
        )
        gram, MW = np.zeros((n + d, n + d)), np.zeros((n + d, d))
        for W_b, M_b in draw.blocks:
            gram += M_b.T @ M_b
            MW += M_b.T @ W_b
        S2, R = np.linalg.eigh(gram)
        WQ = (R.T @ MW) / np.sqrt(S2)[:, None]
        c, sigma_diag = draw.consts, draw.sigma_diag
    else:
        if block < 1:
            raise ValueError(f"block must be >= 1 (got {block})")
        sigma_diag = spectrum.diagonal(d)
        c = rf_constants(t, sigma_x2=float(sigma_diag.mean()))
        W = rng.standard_normal((p, d))
        X = np.sqrt(sigma_diag)[:, None] * rng.standard_normal((d, n))
        MMt = (c.b**2 / d) * (W @ W.T)
        for start in range(0, n, block):
            G = (c.decay * c.a / math.sqrt(d)) * (W @ X[:, start : start + block])
            G += math.sqrt(c.v2) * rng.standard_normal(G.shape)
            MMt += (G @ G.T) / n
        S2, Q = np.linalg.eigh(MMt)
        S2 = np.maximum(S2, 0.0)
        WQ = Q.T @ W
    return _ge_eigenflow(c, S2, WQ, _sigma_t(sigma_diag, t), p)


def dense_flow(
    U: Array,
    V: Array,
    U_test: Array,
    V_test: Array,
    *,
    delta: float,
    inv_sigma_t_mean: float,
    with_basis: bool = False,
) -> EigenFlow | tuple[EigenFlow, Array]:
    """The closed-form flow for explicit p × p matrices U, Ũ and p × d forcings V, Ṽ (the true
    nonlinear model of ``diffusion.gd_matches_flow``), by a dense ``eigh`` of U (for small p
    only); ψ_p = p/d.

    Parameters
    ----------
    U, V : numpy.ndarray of float, (p, p) and (p, d)
        Training matrices (e.g. :func:`noise_averaged_features`).
    U_test, V_test : numpy.ndarray of float, (p, p) and (p, d)
        Population matrices Ũ, Ṽ (e.g. :func:`population_features`).
    delta : float
        Δ_t = 1 − e^{−2t}.
    inv_sigma_t_mean : float
        Tr Σ_t⁻¹/d, the score error's constant.
    with_basis : bool
        Also return the eigenbasis Q of U.

    Returns
    -------
    EigenFlow or (EigenFlow, numpy.ndarray)
        The flow on all p modes, and Q (p × p) when ``with_basis``.

    Raises
    ------
    ValueError
        Naming ``U``, ``V``, ``U_test`` or ``V_test`` unless they are finite matrices of the
        shapes above, ``delta`` unless it lies in (0, 1], or ``inv_sigma_t_mean`` unless it is
        positive.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import dense_flow, dsm_loss, noise_averaged_features
    >>> from sims.diffusion_rf import population_features
    >>> from sims.rmt import sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.1, rng=np.random.default_rng(0))  # d, ψ_p, ψ_n, t
    >>> W, X = np.asarray(sample.W), np.asarray(sample.X)
    >>> U, V = noise_averaged_features(W, X, 0.1)
    >>> U_pop, V_pop = population_features(W, np.asarray(sample.sigma_diag), 0.1)
    >>> delta = sample.consts.delta
    >>> flow, basis = dense_flow(
    ...     U, V, U_pop, V_pop, delta=delta, inv_sigma_t_mean=1.0, with_basis=True
    ... )
    >>> B = flow.coefficients(1.0, basis)  # B(τ = 1)
    >>> bool(np.isclose(dsm_loss(B, U, V, delta), flow.train_loss(1.0)[0]))
    True
    """
    _domain.reals("V", V, ndim=2)
    _domain.reals("U", U, ndim=2)
    if np.shape(U) != (np.shape(V)[0],) * 2:
        raise ValueError(f"U must be p × p with p = {np.shape(V)[0]} (got shape {np.shape(U)})")
    _domain.reals("U_test", U_test, ndim=2)
    if np.shape(U_test) != np.shape(U):
        raise ValueError(f"U_test must have U's shape {np.shape(U)} (got {np.shape(U_test)})")
    _domain.reals("V_test", V_test, ndim=2)
    if np.shape(V_test) != np.shape(V):
        raise ValueError(f"V_test must have V's shape {np.shape(V)} (got {np.shape(V_test)})")
    _domain.real("delta", delta, minimum=0.0, maximum=1.0, open_low=True)
    _domain.real("inv_sigma_t_mean", inv_sigma_t_mean, minimum=0.0, open_low=True)
    lam, Q = np.linalg.eigh(U)
    flow = EigenFlow(
        eigenvalues=lam,
        forcing=Q.T @ V,
        test_gram=Q.T @ U_test @ Q,
        test_forcing=Q.T @ V_test,
        delta=float(delta),
        psi_p=U.shape[0] / V.shape[1],
        inv_sigma_t_mean=float(inv_sigma_t_mean),
    )
    return (flow, Q) if with_basis else flow


def dsm_loss(B: Array, U: Array, V: Array, delta: float) -> float:
    """The DSM loss L(B) = 1 + (Δ/d) Tr(B U Bᵀ) + (2√Δ/d) Tr(B V) for a d × p readout B = A/√p.

    Parameters
    ----------
    B : numpy.ndarray of float, (d, p)
        The readout.
    U : numpy.ndarray of float, (p, p)
        E[φ φᵀ] (train or population).
    V : numpy.ndarray of float, (p, d)
        E[φ ξᵀ].
    delta : float
        Δ_t = 1 − e^{−2t}.

    Returns
    -------
    float
        L(B).

    Raises
    ------
    ValueError
        Naming ``B``, ``U`` or ``V`` unless they are finite matrices of the shapes above, or
        ``delta`` unless it lies in (0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import dsm_loss
    >>> U, V = np.eye(3), np.zeros((3, 2))
    >>> dsm_loss(np.zeros((2, 3)), U, V, 0.5)  # B = 0: the loss is 1
    1.0
    >>> dsm_loss(np.ones((2, 3)), U, V, 0.5)  # 1 + (0.5/2)·Tr(B Bᵀ) = 1 + 0.25·6
    2.5
    """
    _domain.reals("B", B, ndim=2)
    _domain.reals("U", U, ndim=2)
    if np.shape(U) != (np.shape(B)[1],) * 2:
        raise ValueError(f"U must be p × p with p = {np.shape(B)[1]} (got shape {np.shape(U)})")
    _domain.reals("V", V, ndim=2)
    if np.shape(V) != np.shape(B)[::-1]:
        raise ValueError(f"V must be p × d = {np.shape(B)[::-1]} (got shape {np.shape(V)})")
    _domain.real("delta", delta, minimum=0.0, maximum=1.0, open_low=True)
    d = B.shape[0]
    return float(1.0 + (delta * np.sum((B @ U) * B) + 2.0 * math.sqrt(delta) * np.sum(B * V.T)) / d)


# ------------------------------------------------------------------------------ timescales
@dataclass(frozen=True)
class Timescales:
    """The two times of the score error E(τ) (``diffusion.tau_gen_constant_tau_mem_linear``).

    Attributes
    ----------
    score_start : float
        E(0).
    tau_min, score_min : float
        argmin and min of E.
    tau_gen : float
        First τ where E falls halfway from E(0) to its minimum: E = (E(0) + E_min)/2.
    tau_mem : float
        First τ after the minimum where E = 2 E_min; nan if E never doubles.
    """

    score_start: float
    tau_min: float
    score_min: float
    tau_gen: float
    tau_mem: float


def _first_crossing(
    f: Callable[[float], float], log_tau: Array, values: Array, level: float, start: int, up: bool
) -> float:
    """The first τ ≥ log_tau[start] where f crosses ``level`` (upwards if ``up``), refined by
    Brent's method between the bracketing grid points; nan if it never does."""
    above = values[start:] >= level if up else values[start:] <= level
    hits = np.flatnonzero(above)
    if hits.size == 0:
        return math.nan
    j = start + int(hits[0])
    if j == start:
        return math.exp(log_tau[j])
    root = optimize.brentq(lambda s: f(math.exp(s)) - level, log_tau[j - 1], log_tau[j], xtol=1e-10)
    return math.exp(root)


def timescales(score: Callable[[ArrayLike], Array], tau_grid: ArrayLike) -> Timescales:
    """τ_gen, τ_mem and the minimum of a score-error curve (the definitions used here:
    :class:`Timescales`).

    The minimum is refined by a bounded scalar search in log τ around the grid argmin; the
    crossings by Brent's method.

    Parameters
    ----------
    score : callable
        Maps an array of τ to E(τ), e.g. :meth:`EigenFlow.score_error`.
    tau_grid : array_like of float
        Increasing τ > 0 that resolve the curve's shape (e.g. :func:`flow_tau_grid`).

    Returns
    -------
    Timescales
        E(0), the minimum and its τ, τ_gen and τ_mem.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import flow_tau_grid, ge_flow, timescales
    >>> from sims.rmt import sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.1, rng=np.random.default_rng(0))  # d, ψ_p, ψ_n, t
    >>> flow = ge_flow(sample)
    >>> times = timescales(flow.score_error, flow_tau_grid(flow))
    >>> times.score_start, times.tau_gen < times.tau_min < times.tau_mem
    (1.0, True)
    >>> round(times.score_min, 3), round(times.tau_gen, 2), round(times.tau_mem, 1)
    (0.337, 1.67, 17.7)
    """
    tau = np.asarray(tau_grid, dtype=float)
    log_tau = np.log(tau)
    values = np.asarray(score(tau), dtype=float)
    start = float(score(np.array([0.0]))[0])
    i = int(np.argmin(values))
    lo, hi = log_tau[max(i - 1, 0)], log_tau[min(i + 1, tau.size - 1)]
    best = optimize.minimize_scalar(
        lambda s: float(score(np.array([math.exp(s)]))[0]),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-9},
    )
    tau_min, score_min = (math.exp(best.x), float(best.fun))
    if score_min > values[i]:
        tau_min, score_min = float(tau[i]), float(values[i])

    def scalar(x: float) -> float:
        return float(score(np.array([x]))[0])

    tau_gen = _first_crossing(scalar, log_tau, values, 0.5 * (start + score_min), 0, up=False)
    after = int(np.searchsorted(tau, tau_min))
    tau_mem = _first_crossing(scalar, log_tau, values, 2.0 * score_min, after, up=True)
    return Timescales(start, tau_min, score_min, tau_gen, tau_mem)


def flow_tau_grid(flow: EigenFlow, points_per_decade: int = 24) -> Array:
    """A log-spaced τ grid from 1e-2 of the fastest mode's time to 1e2 of the slowest one's,
    τ_λ = ψ_p/(2Δλ) (each mode's relaxation time under the flow).

    Parameters
    ----------
    flow : EigenFlow
        The flow.
    points_per_decade : int
        Grid points per factor 10 of τ.

    Returns
    -------
    numpy.ndarray of float
        The increasing grid.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import flow_tau_grid, ge_flow
    >>> from sims.rmt import sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.1, rng=np.random.default_rng(0))  # d, ψ_p, ψ_n, t
    >>> flow = ge_flow(sample)
    >>> grid = flow_tau_grid(flow)
    >>> slowest = flow.psi_p / (2 * flow.delta * flow.eigenvalues.min())
    >>> bool(np.isclose(grid[-1], 100 * slowest)), bool((np.diff(grid) > 0).all())
    (True, True)
    """
    rates = 2.0 * flow.delta * flow.eigenvalues / flow.psi_p
    lo = math.log10(1e-2 / rates.max())
    hi = math.log10(1e2 / rates.min())
    return np.logspace(lo, hi, max(2, round((hi - lo) * points_per_decade)) + 1)


# ------------------------------------------------------------------------------ true nonlinear U
def _normalized_hermite(z: Array, order: int) -> Array:
    """h_k = He_k/√k! for k = 0..order at z (orthonormal under N(0, 1)), shape (order+1, *z.shape),
    by h_{k+1} = (z h_k − √k h_{k−1})/√(k+1)."""
    out = np.empty((order + 1, *z.shape))
    out[0] = 1.0
    if order >= 1:
        out[1] = z
    for k in range(1, order):
        out[k + 1] = (z * out[k] - math.sqrt(k) * out[k - 1]) / math.sqrt(k + 1)
    return out


def _mehler_gram(
    mean: Array, scale: Array, rho: Array, activation: Activation, order: int, nodes: int
) -> tuple[Array, Array]:
    """(1/n) Σ_ν E[σ(h_iν) σ(h_jν)] for h_iν = mean_iν + scale_i z_i, the z_i standard normals with
    correlation ρ_ij, and the coefficients α_1.

    Mehler's formula E[f(z_i) g(z_j)] = Σ_k ρ^k E[f h_k] E[g h_k] gives
    Σ_{k ≤ order} ρ^{∘k} ∘ α_k α_kᵀ/n with α_k(i, ν) = E_z[σ(mean_iν + scale_i z) h_k(z)]
    (Gauss–Hermite); the diagonal (ρ = 1, where the truncated series converges slowest) is
    (1/n) Σ_ν E σ(h_iν)² exactly.
    Returns the p × p matrix and α_1 (p × n), with α_1 = scale · E σ'(h) by Stein's lemma.
    """
    n = mean.shape[1]
    z, w = hermite_rule(nodes)
    values = activation(mean[..., None] + scale[:, None, None] * z)  # (p, n, nodes)
    alpha = np.einsum("pnq,kq->kpn", values * w, _normalized_hermite(z, order))  # (order+1, p, n)
    gram = np.zeros(rho.shape)
    rho_k = np.ones(rho.shape)
    for k in range(order + 1):
        gram += rho_k * (alpha[k] @ alpha[k].T)
        rho_k = rho_k * rho
    gram /= n
    np.fill_diagonal(gram, (values**2 @ w).mean(axis=1))
    return gram, alpha[1]


def _correlation(C: Array) -> tuple[Array, Array]:
    """(√diag C, the correlation matrix C_ij/√(C_ii C_jj) clipped to [−1, 1])."""
    scale = np.sqrt(np.diag(C))
    return scale, np.clip(C / np.outer(scale, scale), -1.0, 1.0)


def noise_averaged_features(
    W: Array,
    X: Array,
    t: float,
    *,
    activation: Activation = np.tanh,
    order: int = MEHLER_ORDER,
    nodes: int = 64,
) -> tuple[Array, Array]:
    """The true training matrices U = (1/n) Σ_ν E_ξ[φ_ν φ_νᵀ] (p × p) and
    V = (1/n) Σ_ν E_ξ[φ_ν ξᵀ] (p × d) of the nonlinear model, φ_ν = σ(W x_t^ν/√d),
    x_t^ν = e^{−t} x_ν + √Δ ξ, exactly in ξ.

    Given x_ν, the pre-activations are h_iν = m_iν + s_i z_i with m = e^{−t} W X/√d,
    s_i² = Δ K_ii, K = W Wᵀ/d, and the z_i standard normals with correlation
    ρ_ij = K_ij/√(K_ii K_jj): Mehler's expansion in ρ, whose k-th term is O(s^{2k}/k!), so
    ``order`` = 8 is exact to double precision. By Stein's lemma
    V_i· = √Δ (W_i·/√d) (1/n) Σ_ν E σ'(h_iν).

    Parameters
    ----------
    W : numpy.ndarray of float, (p, d)
        The frozen first layer.
    X : numpy.ndarray of float, (d, n)
        The training data, one sample per column.
    t : float
        Diffusion time.
    activation : theory.rmt.Activation
        σ (default tanh).
    order : int
        Terms of Mehler's expansion.
    nodes : int
        Gauss–Hermite nodes of the one-dimensional expectations.

    Returns
    -------
    U : numpy.ndarray of float, (p, p)
        The training Gram matrix.
    V : numpy.ndarray of float, (p, d)
        The training forcing.

    Raises
    ------
    ValueError
        Naming ``W`` or ``X`` unless they are finite matrices (p, d) and (d, n), ``t`` unless
        it is positive, ``order`` unless it is an integer ≥ 0, or ``nodes`` unless it is an
        integer ≥ 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import noise_averaged_features
    >>> from sims.rmt import sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.1, rng=np.random.default_rng(0))  # d, ψ_p, ψ_n, t
    >>> U, V = noise_averaged_features(np.asarray(sample.W), np.asarray(sample.X), 0.1)
    >>> U.shape, V.shape, bool(np.allclose(U, U.T))
    ((40, 40), (40, 20), True)
    """
    _domain.reals("W", W, ndim=2)
    _domain.reals("X", X, ndim=2)
    if np.shape(X)[0] != np.shape(W)[1]:
        raise ValueError(f"X must have d = {np.shape(W)[1]} rows (got shape {np.shape(X)})")
    _domain.real("t", t, minimum=0.0, open_low=True)
    _domain.integer("order", order, minimum=0)
    _domain.integer("nodes", nodes, minimum=1)
    d = W.shape[1]
    delta = -math.expm1(-2.0 * t)
    scale, rho = _correlation(delta * (W @ W.T) / d)
    mean = math.exp(-t) * (W @ X) / math.sqrt(d)  # (p, n)
    U, alpha1 = _mehler_gram(mean, scale, rho, activation, order, nodes)
    V = (math.sqrt(delta / d) * alpha1.mean(axis=1) / scale)[:, None] * W
    return U, V


def population_features(
    W: Array,
    sigma_diag: Array,
    t: float,
    *,
    activation: Activation = np.tanh,
    order: int = 120,
    nodes: int = 240,
) -> tuple[Array, Array]:
    """The population matrices Ũ = E[φ φᵀ] and Ṽ = E[φ ξᵀ] for fresh data, x_t ~ N(0, Σ_t).

    The pre-activations h = W x_t/√d are centred Gaussians with covariance C = W Σ_t Wᵀ/d, so Ũ
    is Mehler's series in the correlations of C with α_k(i) = E[σ(√C_ii z) h_k(z)]; ρ is not
    small here, but off the diagonal its magnitude stays below 1 and the α_k of a smooth σ decay
    fast: with ``order`` = 120 and 240 nodes the entries agree with 2-D quadrature to ~1e-9 for
    tanh, near-duplicate neurons (ρ ≈ 0.99) included (tests), far below what
    ``diffusion.gd_matches_flow`` needs. By Stein's lemma Ṽ_i· = √Δ (W_i·/√d) E σ'(h_i).

    Parameters
    ----------
    W : numpy.ndarray of float, (p, d)
        The frozen first layer.
    sigma_diag : numpy.ndarray of float, (d,)
        The diagonal of the data covariance Σ.
    t : float
        Diffusion time.
    activation : theory.rmt.Activation
        σ (default tanh).
    order : int
        Terms of Mehler's series.
    nodes : int
        Gauss–Hermite nodes.

    Returns
    -------
    U_test : numpy.ndarray of float, (p, p)
        Ũ.
    V_test : numpy.ndarray of float, (p, d)
        Ṽ.

    Raises
    ------
    ValueError
        Naming ``W`` unless it is a finite matrix (p, d), ``sigma_diag`` unless it is d finite
        reals ≥ 0, ``t`` unless it is positive, ``order`` unless it is an integer ≥ 0, or
        ``nodes`` unless it is an integer ≥ 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import population_features
    >>> from sims.rmt import sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.1, rng=np.random.default_rng(0))  # d, ψ_p, ψ_n, t
    >>> U, V = population_features(np.asarray(sample.W), np.asarray(sample.sigma_diag), 0.1)
    >>> U.shape, V.shape, bool(np.allclose(U, U.T))
    ((40, 40), (40, 20), True)
    """
    _domain.reals("W", W, ndim=2)
    _domain.reals("sigma_diag", sigma_diag, ndim=1, minimum=0.0)
    if np.shape(sigma_diag) != np.shape(W)[1:]:
        raise ValueError(f"sigma_diag must hold d = {np.shape(W)[1]} entries")
    _domain.real("t", t, minimum=0.0, open_low=True)
    _domain.integer("order", order, minimum=0)
    _domain.integer("nodes", nodes, minimum=1)
    d = W.shape[1]
    delta = -math.expm1(-2.0 * t)
    sigma_t = _sigma_t(np.asarray(sigma_diag, dtype=float), t)
    scale, rho = _correlation((W * sigma_t) @ W.T / d)
    U, alpha1 = _mehler_gram(np.zeros((W.shape[0], 1)), scale, rho, activation, order, nodes)
    V = (math.sqrt(delta / d) * alpha1[:, 0] / scale)[:, None] * W
    return U, V


# ------------------------------------------------------------------------------ discrete GD
@dataclass(frozen=True)
class GDTrajectory:
    """Discrete GD of the nonlinear model with fresh noise at every step.

    Attributes
    ----------
    tau : (T,)
        τ = kη/d² at the checkpoints.
    readouts : (T, d, p)
        B = A/√p at the checkpoints.
    batch_loss : (T,)
        Mean per-step minibatch loss (1/(dn)) Σ_ν ‖√Δ B φ_ν + ξ_ν‖² since the previous checkpoint
        (what the reference script logs).
    """

    tau: Array
    readouts: Array
    batch_loss: Array


def _tanh_into(x: Array) -> Array:
    """tanh(x) in place as 1 − 2/(e^{2x} + 1) (e^{2x} = ∞ gives 1): about 4× faster than np.tanh."""
    np.multiply(x, 2.0, out=x)
    with np.errstate(over="ignore"):
        np.exp(x, out=x)
    x += 1.0
    np.divide(2.0, x, out=x)
    np.subtract(1.0, x, out=x)
    return x


def gd_fresh_noise(
    W: Array,
    X: Array,
    t: float,
    *,
    lr: float,
    checkpoints: ArrayLike,
    rng: np.random.Generator,
    activation: Activation = np.tanh,
) -> GDTrajectory:
    """GD on A with step η = ``lr`` from A = 0, with fresh noise at every step.

    Each step draws one fresh ξ_ν per sample, forms x_t^ν = e^{−t} x_ν + √Δ ξ_ν,
    φ_ν = σ(W x_t^ν/√d), and takes B ← B − (η/p) ∇_B L̂ with
    L̂ = (1/(dn)) Σ_ν ‖√Δ B φ_ν + ξ_ν‖², ∇_B L̂ = (2√Δ/(dn)) (√Δ B Φ + Ξ) Φᵀ (B = A/√p, so
    ∇_A = ∇_B/√p and B moves by η/p times ∇_B).

    Parameters
    ----------
    W : numpy.ndarray of float, (p, d)
        The frozen first layer.
    X : numpy.ndarray of float, (d, n)
        The training data.
    t : float
        Diffusion time.
    lr : float
        Step η on A.
    checkpoints : array_like of int
        Increasing non-negative step counts at which B is kept.
    rng : numpy.random.Generator
        Source of the noise.
    activation : theory.rmt.Activation
        σ (default tanh).

    Returns
    -------
    GDTrajectory
        τ = kη/d², the readouts and the mean minibatch losses at the checkpoints.

    Raises
    ------
    ValueError
        Naming ``W`` or ``X`` unless they are finite matrices (p, d) and (d, n), ``t`` or ``lr``
        unless they are positive, or ``checkpoints`` unless they are increasing non-negative
        step counts.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import gd_fresh_noise
    >>> from sims.rmt import sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.1, rng=np.random.default_rng(0))  # d, ψ_p, ψ_n, t
    >>> W, X = np.asarray(sample.W), np.asarray(sample.X)
    >>> path = gd_fresh_noise(W, X, 0.1, lr=1.0, checkpoints=[1, 10], rng=np.random.default_rng(1))
    >>> path.tau.tolist(), path.readouts.shape  # τ = kη/d² with d = 20
    ([0.0025, 0.025], (2, 20, 40))
    """
    _domain.reals("W", W, ndim=2)
    _domain.reals("X", X, ndim=2)
    if np.shape(X)[0] != np.shape(W)[1]:
        raise ValueError(f"X must have d = {np.shape(W)[1]} rows (got shape {np.shape(X)})")
    _domain.real("t", t, minimum=0.0, open_low=True)
    _domain.real("lr", lr, minimum=0.0, open_low=True)
    _domain.counts("checkpoints", checkpoints, ndim=1)
    p, d = W.shape
    n = X.shape[1]
    delta = -math.expm1(-2.0 * t)
    root = math.sqrt(delta)
    steps = np.asarray(checkpoints, dtype=np.int64)
    if np.any(np.diff(steps) <= 0):
        raise ValueError(f"checkpoints must be increasing (got {steps.tolist()})")
    signal = math.exp(-t) * (W @ X) / math.sqrt(d)  # (p, n)
    Wn = root * W / math.sqrt(d)
    B = np.zeros((d, p))
    gain = lr / p * 2.0 * root / (d * n)
    apply = _tanh_into if activation is np.tanh else activation
    readouts, batch = [], []
    k = 0
    for target in steps:
        total, count = 0.0, 0
        while k < target:
            xi = rng.standard_normal((d, n))
            phi = apply(signal + Wn @ xi)  # (p, n)
            resid = root * (B @ phi) + xi  # (d, n)
            total += float(np.vdot(resid, resid))
            count += 1
            B -= gain * (resid @ phi.T)
            k += 1
        readouts.append(B.copy())
        batch.append(total / (count * d * n) if count else math.nan)
    return GDTrajectory(steps * lr / d**2, np.asarray(readouts), np.asarray(batch))


# ------------------------------------------------------------------------------ sweep tasks
def score_dynamics_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """``diffusion.tau_gen_constant_tau_mem_linear`` task: the score dynamics of one GE draw under
    the closed-form flow (:func:`ge_flow`).

    Parameters
    ----------
    params : dict
        ``d``, ``psi_p``, ``psi_n``, ``t``, and optionally ``sigma_atoms``, ``weights`` (the data
        spectrum) and ``points_per_decade`` (of the τ grid, default 24).
    rng : numpy.random.Generator
        Source of the draw.

    Returns
    -------
    dict
        ``tau`` (the grid, :func:`flow_tau_grid`), ``train``, ``test`` and ``score`` (the losses
        and the score error on it), ``delta``, and the fields of the score error's
        :class:`Timescales`.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import score_dynamics_task
    >>> params = {"d": 20, "psi_p": 2.0, "psi_n": 0.5, "t": 0.1}
    >>> out = score_dynamics_task(params, np.random.default_rng(0))
    >>> out["tau"].shape == out["score"].shape, round(out["tau_gen"], 2), round(out["tau_mem"], 1)
    (True, 1.67, 17.7)
    """
    flow = ge_flow(_sample_from_params(params, rng))
    tau = flow_tau_grid(flow, int(params.get("points_per_decade", 24)))
    times = timescales(flow.score_error, tau)
    return {
        "tau": tau,
        "train": flow.train_loss(tau),
        "test": flow.test_loss(tau),
        "score": flow.score_error(tau),
        "delta": flow.delta,
        **asdict(times),
    }


def infinite_time_gap_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """``diffusion.memorization_threshold`` task: train and test loss of the ridgeless minimiser
    B(∞) = −VᵀU⁻¹/√Δ for one GE draw.

    Parameters
    ----------
    params : dict
        ``d``, ``psi_p``, ``psi_n``, ``t``, optionally ``sigma_atoms``, ``weights``, and
        ``row_block`` (paper scale: :func:`ge_flow_streamed` in blocks of that size).
    rng : numpy.random.Generator
        Source of the draw.

    Returns
    -------
    dict
        ``train``, ``test``, ``gap`` (test − train) and ``delta``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import infinite_time_gap_task
    >>> params = {"d": 20, "psi_p": 2.0, "psi_n": 0.5, "t": 0.1}  # p = 40 > n = 10: memorises
    >>> out = infinite_time_gap_task(params, np.random.default_rng(0))
    >>> round(out["train"], 3), round(out["gap"], 2)
    (0.432, 1.92)
    """
    if params.get("row_block"):
        flow = ge_flow_streamed(params, rng, int(params["row_block"]))
    else:
        flow = ge_flow(_sample_from_params(params, rng))
    train, test = float(flow.train_loss(math.inf)[0]), float(flow.test_loss(math.inf)[0])
    return {"train": train, "test": test, "gap": test - train, "delta": flow.delta}


def gd_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """``diffusion.gd_matches_flow`` task: discrete GD of the nonlinear model against its flow.

    Draws W (p × d) and X (d × n) as in :func:`sims.rmt.sample_ge` and runs
    :func:`gd_fresh_noise` with step lr_ref = ``lr_factor``·d/Δ_t on the readout B (the
    reference script has ``lr_factor`` = 0.01; η = lr_ref·p on A = √p B, so the paper's
    τ = kη/d² = k·lr_ref·p/d², docs/diffusion.md#conventions-and-units) up to τ = ``tau_end``
    (times the τ of the flow's test-loss minimum if ``tau_end_is_test_min_multiple``). The claim
    converts steps to τ itself.

    Parameters
    ----------
    params : dict
        ``d``, ``psi_p``, ``psi_n``, ``t``, ``lr_factor``, ``tau_end``, ``checkpoints`` (how many
        log-spaced checkpoints), and optionally ``tau_end_is_test_min_multiple``,
        ``sigma_atoms``, ``weights``.
    rng : numpy.random.Generator
        Source of the draw and of the GD noise.

    Returns
    -------
    dict
        ``steps`` (the checkpoints' step counts), ``lr_ref``, ``d``, ``p``, ``delta``;
        ``gd_train``, ``gd_test`` (the exact, ξ-averaged losses of the GD iterates:
        :func:`dsm_loss` with the true U, V and Ũ, Ṽ) and ``gd_batch`` (the minibatch loss); on
        the grid ``tau``, the closed-form flow with the same true matrices (``flow_train``,
        ``flow_test``) and the GE closed form of the same draw (``ge_train``, ``ge_test``); and
        the flow's losses at τ = ∞ (``flow_train_inf``, ``flow_test_inf``).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import gd_task
    >>> params = {"d": 10, "psi_p": 2.0, "psi_n": 1.0, "t": 0.1, "lr_factor": 0.01,
    ...           "tau_end": 1.0, "checkpoints": 4}
    >>> out = gd_task(params, np.random.default_rng(0))
    >>> out["steps"].tolist(), len(out["gd_test"]), out["tau"].shape == out["flow_test"].shape
    ([1, 2, 5, 10], 4, True)
    """
    sample = _sample_from_params(params, rng)
    t, d, p = float(params["t"]), sample.d, sample.p
    W, X = np.asarray(sample.W), np.asarray(sample.X)
    U, V = noise_averaged_features(W, X, t)
    U_pop, V_pop = population_features(W, np.asarray(sample.sigma_diag), t)
    delta = sample.consts.delta
    inv_mean = float(np.mean(1.0 / _sigma_t(np.asarray(sample.sigma_diag), t)))
    flow = dense_flow(U, V, U_pop, V_pop, delta=delta, inv_sigma_t_mean=inv_mean)
    ge = ge_flow(sample)
    lr_ref = float(params["lr_factor"]) * d / delta
    tau_per_step = lr_ref * p / d**2
    tau_end = float(params["tau_end"])
    if params.get("tau_end_is_test_min_multiple"):
        tau = flow_tau_grid(flow)
        tau_end *= float(tau[np.argmin(flow.test_loss(tau))])
    n_steps = max(1, math.ceil(tau_end / tau_per_step))
    steps = np.unique(np.geomspace(1, n_steps, int(params["checkpoints"])).round().astype(np.int64))
    traj = gd_fresh_noise(W, X, t, lr=lr_ref * p, checkpoints=steps, rng=rng)
    covered = [math.log10(tau_per_step / 2), math.log10(2 * n_steps * tau_per_step)]
    grid = np.unique(
        np.concatenate([flow_tau_grid(flow), flow_tau_grid(ge), np.logspace(*covered, 200)])
    )
    return {
        "steps": steps,
        "lr_ref": lr_ref,
        "d": d,
        "p": p,
        "delta": delta,
        "gd_train": [dsm_loss(B, U, V, delta) for B in traj.readouts],
        "gd_test": [dsm_loss(B, U_pop, V_pop, delta) for B in traj.readouts],
        "gd_batch": traj.batch_loss,
        "tau": grid,
        "flow_train": flow.train_loss(grid),
        "flow_test": flow.test_loss(grid),
        "ge_train": ge.train_loss(grid),
        "ge_test": ge.test_loss(grid),
        "flow_train_inf": float(flow.train_loss(math.inf)[0]),
        "flow_test_inf": float(flow.test_loss(math.inf)[0]),
    }
