"""Deterministic equivalents of random matrices: Marchenko–Pastur, the general sample-covariance
(Silverstein) equation, and the spectrum of the random-feature matrix U of "Why Diffusion Models
Don't Memorize" (Bonnaire, Urfin, Biroli, Mézard, NeurIPS 2025, arXiv 2505.17638; Theorem 3.1 and
Lemma C.1, written out in docs/diffusion.md#the-papers-model-and-what-the-checks-use).

Everything here is the p → ∞ limit, computed by solving the self-consistent equations for the
Stieltjes transform q(z) = ∫ ρ(λ) dλ / (λ − z) on a whole grid of z = λ + iη at once (vectorised
complex Newton, warm-started along a decreasing η schedule), never by sampling. The density is
ρ(λ) = lim_{η→0⁺} Im q(λ + iη) / π, on the branch with Im q > 0 (the Herglotz branch).
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from theory import _domain
from theory.fits import PowerLawFit, fit_power_law

__all__ = [
    "DOMAIN_PSI",
    "DOMAIN_T",
    "SELF_CHECK_MASS_TOL",
    "Bulk",
    "ConstantsComparison",
    "DataSpectrum",
    "PerPointComparison",
    "RFConstants",
    "RFSpectrum",
    "Spectrum",
    "SpectrumSelfCheckError",
    "SpectrumSelfCheckWarning",
    "StieltjesSanity",
    "TwoBulks",
    "compare_constants",
    "domain_sample",
    "domain_scan",
    "find_bulks",
    "gaussian_expectation",
    "half_unit_in_last_digit",
    "hermite_rule",
    "marchenko_pastur_density",
    "marchenko_pastur_edges",
    "per_point_comparison",
    "rf_constants",
    "rf_constants_direct",
    "rf_density_per_point",
    "rf_mass_levels",
    "rf_spectrum",
    "rf_stieltjes",
    "rho1_marchenko_pastur_edges",
    "sample_covariance_spectrum",
    "sample_covariance_stieltjes",
    "stieltjes_sanity",
    "two_bulks",
    "u_tilde_top_edges",
]

Activation = Callable[[NDArray[np.float64]], NDArray[np.float64]]

QUADRATURE_NODES = 96  # Gauss–Hermite nodes: exact to ~1e-12 for tanh at every t ≥ 1e-3


# ------------------------------------------------------------------------------ quadrature
#: Most nodes :func:`hermite_rule` builds (the project's quadratures use tens; beyond a thousand
#: the weights of the outer nodes underflow and the eigenproblem only costs time).
MAX_HERMITE_NODES = 1000


@functools.cache
def hermite_rule(nodes: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Nodes and weights of E f(z), z ~ N(0, 1): probabilists' Gauss–Hermite, weights sum to 1
    (cached and read-only).

    Parameters
    ----------
    nodes : int
        Number of nodes n; the rule is exact for polynomials of degree up to 2n − 1.

    Returns
    -------
    x, w : numpy.ndarray of float, each (nodes,)
        The nodes and their weights: E f(z) ≈ Σ_i w_i f(x_i). The same read-only arrays on every
        call with the same ``nodes``.

    Examples
    --------
    >>> from theory.rmt import hermite_rule
    >>> x, w = hermite_rule(8)
    >>> len(x), round(float(w.sum()), 12), round(float(w @ x**2), 12)  # E 1 and E z²
    (8, 1.0, 1.0)
    """
    _domain.integer("nodes", nodes, minimum=1, maximum=MAX_HERMITE_NODES)
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / math.sqrt(2.0 * math.pi)
    x.flags.writeable = False
    w.flags.writeable = False
    return x, w


def gaussian_expectation(
    f: Callable[[NDArray[np.float64]], ArrayLike], *, dims: int = 1, nodes: int = QUADRATURE_NODES
) -> float:
    """E f(z_1, ..., z_dims) for independent standard normals, by tensor Gauss–Hermite quadrature.

    .. math:: E f(z) ≈ Σ_{i_1..i_d} w_{i_1} ⋯ w_{i_d} f(x_{i_1}, ..., x_{i_d})

    on the rule of :func:`hermite_rule`.

    Parameters
    ----------
    f : callable
        Takes one array per dimension (broadcast against each other) and returns values of the
        same shape.
    dims : int
        Number of independent normals, at least 1 (the cost is nodes^dims evaluations).
    nodes : int
        Nodes per dimension.

    Returns
    -------
    float
        The expectation.

    Raises
    ------
    ValueError
        Unless ``dims`` and ``nodes`` are positive integers.

    Examples
    --------
    >>> from theory.rmt import gaussian_expectation
    >>> round(gaussian_expectation(lambda z: z**4), 12)  # E z⁴ = 3
    3.0
    >>> round(gaussian_expectation(lambda u, v: (u * v) ** 2, dims=2), 12)
    1.0
    """
    _domain.integer("dims", dims, minimum=1)
    _domain.integer("nodes", nodes, minimum=1)
    x, w = hermite_rule(nodes)
    grids = np.meshgrid(*([x] * dims), indexing="ij", sparse=True)
    weight = w
    for _ in range(dims - 1):
        weight = np.multiply.outer(weight, w)
    return float(np.sum(weight * np.asarray(f(*grids), dtype=float)))


# ------------------------------------------------------------------------------ data spectrum
#: Largest weight :class:`DataSpectrum` takes before normalising (so that their sum stays finite).
MAX_WEIGHT = 1e300


@dataclass(frozen=True)
class DataSpectrum:
    """A discrete population spectrum ρ_Σ = Σ_k w_k δ(λ − λ_k) (the paper uses Σ = I and
    ½δ(λ − 0.5) + ½δ(λ − 1.5))."""

    #: Eigenvalues λ_k of Σ (positive).
    atoms: tuple[float, ...]
    #: Their weights w_k (normalised to sum to 1).
    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        atoms = np.asarray(self.atoms, dtype=float)
        weights = np.asarray(self.weights, dtype=float)
        if any(isinstance(v, bool | np.bool_ | str | bytes) for v in (*self.atoms, *self.weights)):
            raise ValueError(
                f"atoms and weights must be real numbers (got {self.atoms!r:.40}, {self.weights!r:.40})"
            )
        if atoms.ndim != 1 or atoms.size == 0 or atoms.shape != weights.shape:
            raise ValueError("atoms and weights must be non-empty lists of the same length")
        if not np.all(np.isfinite(atoms) & (atoms > 0)):
            raise ValueError(f"atoms must be positive (got {list(self.atoms)})")
        if not np.all(np.isfinite(weights) & (weights > 0)) or weights.max() > MAX_WEIGHT:
            raise ValueError(
                f"weights must be positive and at most {MAX_WEIGHT:g} (they are normalised to "
                f"sum to 1; got {list(self.weights)})"
            )
        object.__setattr__(self, "atoms", tuple(float(a) for a in atoms))
        object.__setattr__(self, "weights", tuple(float(w) for w in weights / weights.sum()))

    @classmethod
    def identity(cls) -> DataSpectrum:
        """Σ = I."""
        return cls((1.0,), (1.0,))

    @classmethod
    def of(cls, atoms: Sequence[float], weights: Sequence[float] | None = None) -> DataSpectrum:
        """Atoms with the given weights (equal weights by default; normalised to sum to 1)."""
        return cls(tuple(atoms), tuple([1.0] * len(atoms) if weights is None else weights))

    @property
    def mean(self) -> float:
        """σ_x² = Tr Σ / d = Σ_k w_k λ_k."""
        return float(np.dot(self.atoms, self.weights))

    def diagonal(self, d: int) -> NDArray[np.float64]:
        """A length-d diagonal of Σ whose atom counts are the weights times d, rounded so that
        they add up to d (largest remainders first)."""
        _domain.integer("d", d, minimum=1)
        raw = np.asarray(self.weights) * d
        counts = np.floor(raw).astype(int)
        counts[np.argsort(counts - raw)[: d - counts.sum()]] += 1
        return np.repeat(np.asarray(self.atoms), counts)


# ------------------------------------------------------------------------------ constants
@dataclass(frozen=True)
class RFConstants:
    """The Gaussian-equivalence constants of the random-feature score model at diffusion time t
    (the paper's Lemma C.1). With u, v, w, z independent standard normals, c = e^{−t}σ_x and
    h = c·u + √Δ_t·v ~ N(0, Γ_t²):

    - a_t = E[σ(h) u] / c = E σ'(h)  (computed as E[h σ(h)] / Γ_t² by Stein's lemma),
    - b_t = E[v σ(h)] = √Δ_t · a_t,
    - v_t² = E[σ(c u + √Δ_t v) σ(c u + √Δ_t w)] − a_t² c²,
    - s_t² = E σ(Γ_t z)² − a_t² c² − v_t² − b_t².

    Attributes ``t``, ``sigma_x2`` (σ_x² = Tr Σ / d, a variance) and the four constants.
    """

    #: Diffusion time t.
    t: float
    #: σ_x² = Tr Σ / d, the data variance.
    sigma_x2: float
    #: a_t = E σ'(h).
    a: float
    #: b_t = √Δ_t · a_t.
    b: float
    #: v_t², the variance of E[σ(h) | u] beyond its linear part a_t·c·u.
    v2: float
    #: s_t², the location of the delta of U's spectrum.
    s2: float

    @property
    def delta(self) -> float:
        """Δ_t = 1 − e^{−2t}, the noise variance of the forward process."""
        return -math.expm1(-2.0 * self.t)

    @property
    def decay(self) -> float:
        """e^{−t}, the signal factor of the forward process."""
        return math.exp(-self.t)

    @property
    def gamma2(self) -> float:
        """Γ_t² = e^{−2t} σ_x² + Δ_t, the variance of a pre-activation."""
        return self.decay**2 * self.sigma_x2 + self.delta

    @property
    def second_moment(self) -> float:
        """E σ(Γ_t z)², which the four parts a_t²e^{−2t}σ_x² + b_t² + v_t² + s_t² add up to."""
        return self.a**2 * self.decay**2 * self.sigma_x2 + self.b**2 + self.v2 + self.s2


def rf_constants(
    t: float,
    activation: Activation = np.tanh,
    *,
    sigma_x2: float = 1.0,
    nodes: int = QUADRATURE_NODES,
) -> RFConstants:
    """The constants a_t, b_t, v_t², s_t² of :class:`RFConstants` by Gauss–Hermite quadrature.

    Monte Carlo is not an option: s_t² is a small difference of O(1) numbers
    (docs/diffusion.md#the-reference-spectrum-scripts-constants-and-ours).

    Parameters
    ----------
    t : float
        Diffusion time, > 0: x_t = e^{−t} x_0 + √Δ_t ξ with Δ_t = 1 − e^{−2t}.
    activation : callable
        The elementwise activation σ of the random features (default tanh).
    sigma_x2 : float
        σ_x² = Tr Σ / d, the data variance, > 0.
    nodes : int
        Gauss–Hermite nodes per axis (:func:`hermite_rule`).

    Returns
    -------
    RFConstants
        a_t, b_t = √Δ_t·a_t, v_t² and s_t², with ``t`` and ``sigma_x2``.

    Raises
    ------
    ValueError
        Unless ``t`` and ``sigma_x2`` are positive finite reals and ``nodes`` a positive
        integer.

    Examples
    --------
    >>> import math
    >>> from theory.rmt import rf_constants
    >>> c = rf_constants(0.5)
    >>> round(c.a, 4), round(c.b, 4), round(c.v2, 6), round(c.s2, 5)
    (0.6057, 0.4816, 0.001124, 0.02629)
    >>> math.isclose(c.b, math.sqrt(c.delta) * c.a)
    True
    """
    _domain.real("t", t, minimum=0.0, open_low=True)
    _domain.real("sigma_x2", sigma_x2, minimum=0.0, open_low=True)
    _domain.integer("nodes", nodes, minimum=1)
    c = math.exp(-t) * math.sqrt(sigma_x2)
    noise = math.sqrt(-math.expm1(-2.0 * t))
    gamma = math.sqrt(c * c + noise * noise)
    mean_slope = gaussian_expectation(lambda z: z * activation(gamma * z), nodes=nodes) / gamma
    a = mean_slope
    b = noise * a
    x, w = hermite_rule(nodes)
    conditional_mean = activation(c * x[:, None] + noise * x[None, :]) @ w  # E[σ(h) | u]
    v2 = float(w @ conditional_mean**2) - (a * c) ** 2
    second = gaussian_expectation(lambda z: activation(gamma * z) ** 2, nodes=nodes)
    s2 = second - (a * c) ** 2 - v2 - b * b
    return RFConstants(t=float(t), sigma_x2=float(sigma_x2), a=a, b=b, v2=v2, s2=s2)


# ------------------------------------------------------------------------------ the solver
#: Relative imaginary part of z at which densities are read: ρ(λ) ≈ Im q(λ + iη)/π with
#: η = ETA_REL · |λ − λ_floor|: far below every bulk's width (near edges η ≤ 1e-10 is needed),
#: and low enough that the η-tails of Im q outside the support stay below BULK_THRESHOLD.
ETA_REL = 1e-13
#: Decades of η descended per continuation stage, and how often a failing stage may be halved.
DECADES_PER_STAGE = 1.0
MAX_STEP_HALVINGS = 2
#: η never goes below ETA_REL · ETA_FLOOR_REL · (top of the spectrum): closer to a hard edge than
#: that, the density is read at that η (smoothed on a scale ~1e-23 of the spectrum's width).
ETA_FLOOR_REL = 1e-10

System = Callable[[NDArray[np.complex128], NDArray[np.complex128]], tuple[NDArray, NDArray]]


def _solve_linear(J: NDArray, F: NDArray) -> NDArray:
    """Solve J x = F pointwise for J of shape (k, k, N), F of shape (k, N), k ∈ {1, 2} (Cramer)."""
    if F.shape[0] == 1:
        return F / J[0]
    det = J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]
    return np.stack([J[1, 1] * F[0] - J[0, 1] * F[1], J[0, 0] * F[1] - J[1, 0] * F[0]]) / det


def _residual_norm(F: NDArray, x: NDArray) -> NDArray[np.float64]:
    """max_k |F_k| / (1 + |x_k|): a scale-aware size of the residual per point."""
    return np.max(np.abs(F) / (1.0 + np.abs(x)), axis=0)


#: Newton's target for the scale-aware residual. Next to a square-root edge the Jacobian is
#: singular and the error of q is about the square root of the residual: at 1e-12, Im q outside
#: the support showed rounding bumps up to 4e-6·|q| (ψ_p = 1.05, ψ_n = 1000, t = 0.05), at 1e-14
#: 4e-8·|q|, which moves edges by less than 1e-9 (more iterations only where convergence is
#: slow; a point still counts as converged at residual 1e-10).
NEWTON_TOL = 1e-14


def _newton(
    system: System, x: NDArray, z: NDArray, *, max_iter: int = 60, tol: float = NEWTON_TOL
) -> tuple[NDArray, NDArray[np.bool_]]:
    """Damped complex Newton on every grid point at once; returns (x, converged).

    A step is halved (up to 5 times, per point) until the residual decreases, so iterates never
    jump to a far branch. The equations are holomorphic in x, so the complex Jacobian is exact.
    """
    x = x.copy()
    F, J = system(x, z)
    norm = _residual_norm(F, x)
    active = np.flatnonzero(norm > tol)
    for _ in range(max_iter):
        if active.size == 0:
            break
        step = _solve_linear(J[:, :, active], F[:, active])
        tiny = np.max(np.abs(step) / (1.0 + np.abs(x[:, active])), axis=0) < 1e-15
        active, step = active[~tiny], step[:, ~tiny]  # converged to rounding
        scale = np.ones(active.size)
        pending = np.arange(active.size)
        for _ in range(6):
            idx = active[pending]
            trial = x[:, idx] - scale[pending] * step[:, pending]
            F_trial, J_trial = system(trial, z[idx])
            norm_trial = _residual_norm(F_trial, trial)
            # accept a step that lowers the scale-aware norm, or the plain one |F|: with
            # unknowns of very different size (q ~ 1e7 inside a bulk at scale v_t² ~ 1e-8, ε ~ 1)
            # the scale-aware norm alone rejects every step that trades F₁ for F₂
            plain_drop = np.max(np.abs(F_trial), axis=0) < np.max(np.abs(F[:, idx]), axis=0)
            better = ((norm_trial < norm[idx]) | plain_drop) & np.all(np.isfinite(trial), axis=0)
            good = idx[better]
            x[:, good], F[:, good], J[:, :, good] = (
                trial[:, better],
                F_trial[:, better],
                J_trial[:, :, better],
            )
            norm[good] = norm_trial[better]
            pending = pending[~better]
            if pending.size == 0:
                break
            scale[pending] /= 2.0
        stalled = active[pending]
        active = active[norm[active] > tol]
        active = np.setdiff1d(active, stalled, assume_unique=True)
    return x, norm <= max(tol, 1e-10)


#: A change of unknowns (x ↦ y, y ↦ x) in which the solution behaves like a power of ζ near the
#: real axis; predictions are made in y.
Chart = tuple[Callable[[NDArray], NDArray], Callable[[NDArray], NDArray]]
IDENTITY_CHART: Chart = (lambda x: x, lambda y: y)


def _predictions(
    history: list[tuple[NDArray, NDArray]], zeta_new: NDArray, chart: Chart
) -> list[NDArray]:
    """Starting points for the next stage, best first: a power law y ∝ ζ^α through the last two
    stages (α = −1 next to a delta, −½ at a hard edge, 0 once η is below the local scale), the
    pole law α = −1, and the last solution unmoved."""
    to_y, from_y = chart
    x1, z1 = history[-1]
    y1 = to_y(x1)
    step = np.log(zeta_new / z1)
    guesses = []
    if len(history) > 1:
        x0, z0 = history[-2]
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = np.log(y1 / to_y(x0)) / np.log(z1 / z0)
            guess = from_y(y1 * np.exp(alpha * step))
        guesses.append(np.where(np.isfinite(guess), guess, x1))
    guesses.append(from_y(y1 * np.exp(-step)))
    guesses.append(x1)
    return guesses


def _advance(
    system: System,
    history: list[tuple[NDArray, NDArray]],
    zeta: NDArray,
    chart: Chart,
    depth: int = 0,
) -> tuple[NDArray, NDArray[np.bool_]]:
    """One continuation step to ``zeta`` from the last (one or two) solutions in ``history``:
    Newton from each of :func:`_predictions` in turn, keeping the first that converges at each
    point; points where none does are reached through the geometric midpoint in η, recursively
    (up to :data:`MAX_STEP_HALVINGS` halvings of the step)."""
    x_new = np.empty_like(history[-1][0])
    converged = np.zeros(zeta.shape, dtype=bool)
    for guess in _predictions(history, zeta, chart):
        idx = np.flatnonzero(~converged)
        solved, ok = _newton(system, guess[:, idx], zeta[idx])
        x_new[:, idx] = solved
        converged[idx] = ok
        if converged.all():
            return x_new, converged
    if depth < MAX_STEP_HALVINGS:
        idx = np.flatnonzero(~converged)
        sub = [(x[:, idx], z[idx]) for x, z in history]
        z_last = sub[-1][1]
        z_mid = zeta[idx].real + 1j * np.sqrt(z_last.imag * zeta[idx].imag)
        x_mid, ok_mid = _advance(system, sub, z_mid, chart, depth + 1)
        x_end, ok_end = _advance(system, [sub[-1], (x_mid, z_mid)], zeta[idx], chart, depth + 1)
        x_new[:, idx] = x_end
        converged[idx] = ok_mid & ok_end
    return x_new, converged


def _continuation(
    system: System,
    offset: NDArray[np.float64],
    eta_final: NDArray[np.float64],
    eta_start: float,
    initial: Callable[[NDArray[np.complex128]], NDArray[np.complex128]],
    chart: Chart = IDENTITY_CHART,
) -> tuple[NDArray[np.complex128], NDArray[np.bool_]]:
    """Track the Herglotz solution from ζ = offset + i·eta_start (where ``initial`` is accurate)
    down to ζ = offset + i·eta_final, one decade of η per stage (:func:`_advance`, which shortens
    the step where a stage fails)."""
    decades = np.log10(eta_start / eta_final)
    stages = max(2, int(np.ceil(decades.max() / DECADES_PER_STAGE)) + 1)
    zeta = offset + 1j * eta_start
    x, converged = _newton(system, initial(zeta), zeta)
    history = [(x, zeta)]
    for f in np.linspace(0.0, 1.0, stages)[1:]:
        zeta = offset + 1j * eta_start * (eta_final / eta_start) ** f
        x, converged = _advance(system, history, zeta, chart)
        history = [history[-1], (x, zeta)]
    return x, converged


# ------------------------------------------------------------------------------ sample covariance
def marchenko_pastur_edges(ratio: float, variance: float = 1.0) -> tuple[float, float]:
    """Edges σ²(1 ∓ √γ)² of the Marchenko–Pastur law with ratio γ = p/n.

    Parameters
    ----------
    ratio : float
        γ = p/n, > 0.
    variance : float
        σ², the variance of the entries.

    Returns
    -------
    lower, upper : float
        The edges a = σ²(1 − √γ)² and b = σ²(1 + √γ)² of the bulk.

    Raises
    ------
    ValueError
        Naming ``ratio`` or ``variance`` when it is not a positive finite number.

    Examples
    --------
    >>> from theory.rmt import marchenko_pastur_edges
    >>> marchenko_pastur_edges(0.25)
    (0.25, 2.25)
    >>> marchenko_pastur_edges(4.0, variance=2.0)
    (2.0, 18.0)
    """
    ratio = _domain.real("ratio", ratio, minimum=0.0, open_low=True)
    variance = _domain.real("variance", variance, minimum=0.0, open_low=True)
    root = math.sqrt(ratio)
    return variance * (1.0 - root) ** 2, variance * (1.0 + root) ** 2


def marchenko_pastur_density(x: ArrayLike, ratio: float, variance: float = 1.0) -> NDArray:
    """The absolutely continuous part of the Marchenko–Pastur law of S = σ² Z Zᵀ/n, Z p × n
    i.i.d. standard, γ = p/n:  ρ(x) = √((b − x)(x − a)) / (2π σ² γ x) on [a, b]. (For γ > 1 an atom
    of mass 1 − 1/γ sits at 0.)

    Parameters
    ----------
    x : array_like of float
        Where to evaluate ρ.
    ratio : float
        γ = p/n, > 0.
    variance : float
        σ², > 0.

    Returns
    -------
    numpy.ndarray of float
        ρ(x), the shape of ``x``; 0 outside (a, b) (:func:`marchenko_pastur_edges`).

    Raises
    ------
    ValueError
        If ``ratio`` or ``variance`` is not positive.

    Examples
    --------
    >>> from theory.rmt import marchenko_pastur_density
    >>> marchenko_pastur_density([0.25, 1.0, 3.0], 0.25).round(4).tolist()  # edges 0.25, 2.25
    [0.0, 0.6164, 0.0]
    """
    a, b = marchenko_pastur_edges(ratio, variance)
    x = _domain.reals("x", x, nonempty=False)
    inside = (x > a) & (x < b)
    safe = np.where(inside, x, (a + b) / 2)
    return np.where(
        inside, np.sqrt((b - safe) * (safe - a)) / (2 * np.pi * variance * ratio * safe), 0.0
    )


def _covariance_system(ratio: float, spectrum: DataSpectrum) -> System:
    """Silverstein's equation for the Stieltjes transform m of S = Σ^{1/2} Z Zᵀ Σ^{1/2}/n,
    γ = p/n, ρ_Σ = Σ_k w_k δ_{τ_k}, multiplied through by −z so every term stays O(1) at the
    atom at 0:  F = 1 + Σ_k w_k z/(τ_k(1 − γ − γ z m) − z) · ... = −z m + E_τ[−z/(τ(1−γ−γzm) − z)]."""
    tau = np.asarray(spectrum.atoms)[:, None]
    w = np.asarray(spectrum.weights)[:, None]

    def system(x: NDArray, z: NDArray) -> tuple[NDArray, NDArray]:
        zm = z * x[0]
        inv = 1.0 / (tau * (1.0 - ratio - ratio * zm) - z)
        F = -zm + np.sum(w * z * inv, axis=0)
        dF = -z + np.sum(w * z * inv * inv * tau * ratio * z, axis=0)
        return F[None, :], dF[None, None, :]

    return system


def sample_covariance_stieltjes(
    lam: ArrayLike, *, ratio: float, spectrum: DataSpectrum, eta: ArrayLike | None = None
) -> tuple[NDArray[np.complex128], NDArray[np.bool_]]:
    """m(λ + iη) of the sample covariance with population ρ_Σ and ratio γ = p/n (Silverstein's
    equation m = E_τ 1/(τ(1 − γ − γ z m) − z)), by η-continuation; returns (m, converged).

    Parameters
    ----------
    lam : array_like of float
        Real parts λ of z.
    ratio : float
        γ = p/n.
    spectrum : DataSpectrum
        The population spectrum ρ_Σ (atoms τ_k with weights).
    eta : array_like of float, optional
        Imaginary parts of z (broadcast against ``lam``); default just above the real axis,
        ``ETA_REL · max(|λ|, ETA_FLOOR_REL · scale)``, so that Im m/π is the density.

    Returns
    -------
    m : numpy.ndarray of complex, (len(lam),)
        The Stieltjes transform on the Herglotz branch (Im m > 0).
    converged : numpy.ndarray of bool, (len(lam),)
        Whether Newton converged at each point.

    Raises
    ------
    ValueError
        Unless ``lam`` holds finite reals (at least one), ``ratio`` is a positive finite real
        and ``eta``, when given, holds positive finite reals.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.rmt import DataSpectrum, sample_covariance_stieltjes
    >>> m, ok = sample_covariance_stieltjes([1.0], ratio=0.25, spectrum=DataSpectrum.identity())
    >>> round(float(m[0].imag / np.pi), 4), bool(ok.all())  # Σ = I: Marchenko–Pastur's ρ(1)
    (0.6164, True)
    """
    _domain.reals("lam", lam)
    _domain.real("ratio", ratio, minimum=0.0, open_low=True)
    _domain.reals(
        "eta", ETA_REL if eta is None else eta, minimum=0.0, open_low=True
    )  # None: the default η > 0
    lam = np.atleast_1d(np.asarray(lam, dtype=float))
    scale = max(spectrum.atoms) * (1.0 + math.sqrt(ratio)) ** 2
    if eta is None:
        eta_final = ETA_REL * np.maximum(np.abs(lam), ETA_FLOOR_REL * scale)
    else:
        eta_final = np.broadcast_to(np.asarray(eta, dtype=float), lam.shape)
    x, converged = _continuation(
        _covariance_system(ratio, spectrum),
        lam,
        eta_final,
        10.0 * max(scale, float(np.max(np.abs(lam)))),
        lambda z: (-1.0 / z)[None, :],
    )
    return x[0], converged


def sample_covariance_spectrum(
    *, ratio: float, spectrum: DataSpectrum, points: int = 1000
) -> Spectrum:
    """The limiting spectrum of a sample covariance (Silverstein): an atom at 0 of mass
    max(0, 1 − 1/γ) and the bulks of Im m/π (:func:`sample_covariance_stieltjes`,
    :func:`find_bulks`).

    Parameters
    ----------
    ratio : float
        γ = p/n, > 0.
    spectrum : DataSpectrum
        The population spectrum ρ_Σ.
    points : int
        Points of the log grid on which the bulks are searched.

    Returns
    -------
    Spectrum
        The atom at 0 (``delta_location``, ``delta_mass``), the density on its grid and the bulks.

    Raises
    ------
    ValueError
        Unless ``ratio`` is a positive finite real and ``points`` an integer ≥ 16.

    Examples
    --------
    >>> from theory.rmt import DataSpectrum, sample_covariance_spectrum
    >>> spec = sample_covariance_spectrum(ratio=4.0, spectrum=DataSpectrum.identity())
    >>> spec.delta_mass  # the atom at 0: 1 − 1/γ
    0.75
    >>> [(round(b.mass, 4), round(b.lower, 4), round(b.upper, 4)) for b in spec.bulks]
    [(0.25, 1.0, 9.0)]
    """
    _domain.real("ratio", ratio, minimum=0.0, open_low=True)
    _domain.integer("points", points, minimum=16)

    def density(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return sample_covariance_stieltjes(x, ratio=ratio, spectrum=spectrum)[0].imag / np.pi

    top = 1.5 * max(spectrum.atoms) * (1.0 + math.sqrt(ratio)) ** 2
    return _assemble(0.0, max(0.0, 1.0 - 1.0 / ratio), find_bulks(density, top, points=points))


# ------------------------------------------------------------------------------ random-feature U
def _rf_system(consts: RFConstants, psi_p: float, psi_n: float, spectrum: DataSpectrum) -> System:
    """The self-consistent equations of Theorem 3.1 in the unknowns (q, ε = 1/(1+δ)), as functions
    of ζ = z − s_t² (the solver form 1/q = s_t² − z + v_t² ε + E_λ κ/(1 + ψ_p q κ) of
    docs/diffusion.md#the-spectrum-of-u-theorem-31):

        F₁ = 1 + q ζ − q v_t² ε − E_λ[q κ / D] = 0,
        F₂ = 1 − ε − (ψ_p/ψ_n) q ε (c² a_t² E_λ[λ / D] + v_t²) = 0,

    with κ(λ) = b_t² + c² a_t² λ ε, D = 1 + ψ_p q κ, c = e^{−t}, and E_λ over ρ_Σ. The paper's
    δ = 1/ε − 1 and r = q E_λ[λ/D] are eliminated. Multiplying the q-equation through by q and
    using ε instead of δ keeps every term O(1) next to the delta peak at s_t², where q and δ
    diverge like 1/ζ. Returns (F, J) with J the exact complex Jacobian.
    """
    lam = np.asarray(spectrum.atoms)[:, None]  # (J, 1)
    w = np.asarray(spectrum.weights)[:, None]
    ca2 = consts.decay**2 * consts.a**2
    b2, v2, ratio = consts.b**2, consts.v2, psi_p / psi_n

    def system(x: NDArray, zeta: NDArray) -> tuple[NDArray, NDArray]:
        q, eps = x
        kappa = b2 + ca2 * lam * eps  # (J, N)
        inv_d = 1.0 / (1.0 + psi_p * q * kappa)
        inv_d2 = inv_d * inv_d
        lam_d = np.sum(w * lam * inv_d, axis=0)  # E λ/D
        lam_d2 = np.sum(w * lam * inv_d2, axis=0)  # E λ/D²
        F = np.stack(
            [
                1.0 + q * zeta - q * v2 * eps - q * np.sum(w * kappa * inv_d, axis=0),
                1.0 - eps - ratio * q * eps * (ca2 * lam_d + v2),
            ]
        )
        J = np.stack(
            [
                np.stack(
                    [
                        zeta - v2 * eps - np.sum(w * kappa * inv_d2, axis=0),
                        -q * (v2 + ca2 * lam_d2),
                    ]
                ),
                np.stack(
                    [
                        -ratio * eps * (ca2 * lam_d2 + v2),
                        -1.0
                        - ratio * q * (ca2 * lam_d + v2)
                        + ratio
                        * psi_p
                        * (q * ca2) ** 2
                        * eps
                        * np.sum(w * lam * lam * inv_d2, axis=0),
                    ]
                ),
            ]
        )
        return F, J

    return system


def _rf_initial(
    consts: RFConstants, psi_p: float, psi_n: float, spectrum: DataSpectrum
) -> Callable[[NDArray[np.complex128]], NDArray[np.complex128]]:
    """Large-|ζ| start: q ≈ −1/ζ and ε ≈ 1/(1 + (ψ_p/ψ_n) q (c² a_t² E λ + v_t²))."""
    ca2 = consts.decay**2 * consts.a**2

    def initial(zeta: NDArray[np.complex128]) -> NDArray[np.complex128]:
        q = -1.0 / zeta
        return np.stack([q, 1.0 / (1.0 + (psi_p / psi_n) * q * (ca2 * spectrum.mean + consts.v2))])

    return initial


#: Predict in (q, δ), which both scale like powers of ζ, and solve in (q, ε = 1/(1+δ)).
_RF_CHART: Chart = (
    lambda x: np.stack([x[0], 1.0 / x[1] - 1.0]),
    lambda y: np.stack([y[0], 1.0 / (1.0 + y[1])]),
)


def _rf_spectral_bound(
    consts: RFConstants, psi_p: float, psi_n: float, spectrum: DataSpectrum
) -> float:
    """An upper bound (with margin) on λ_max(U) − s_t², from ‖U − s_t²‖ ≤ ‖G‖²/n + b_t²‖W‖²/d and
    the Bai–Yin edges ‖W/√d‖ ≈ √ψ_p + 1, ‖X/√n‖ ≈ √λ_max(1 + 1/√ψ_n), ‖Ω/√n‖ ≈ √(ψ_p/ψ_n) + 1."""
    w_norm = math.sqrt(psi_p) + 1.0
    x_norm = math.sqrt(max(spectrum.atoms)) * (1.0 + 1.0 / math.sqrt(psi_n))
    g_norm = consts.decay * consts.a * w_norm * x_norm + math.sqrt(consts.v2) * (
        math.sqrt(psi_p / psi_n) + 1.0
    )
    return 1.5 * (g_norm**2 + consts.b**2 * w_norm**2) + 1e-12


def rf_stieltjes(
    lam: ArrayLike,
    *,
    psi_p: float,
    psi_n: float,
    t: float,
    spectrum: DataSpectrum | None = None,
    activation: Activation = np.tanh,
    eta: ArrayLike | None = None,
    consts: RFConstants | None = None,
    x_floor: float | None = None,
    offsets: bool = False,
) -> tuple[NDArray[np.complex128], NDArray[np.complex128], NDArray[np.bool_]]:
    """q(z) and δ(z) of the random-feature U at z = λ + iη on a whole grid (Theorem 3.1).

    η defaults to ``ETA_REL · max(|λ − s_t²|, x_floor)``, x_floor defaulting to
    ``ETA_FLOOR_REL · λ_top``, i.e. just above the real axis. The
    solution is tracked by η-continuation from far above the spectrum, where q ≈ −1/z, so the
    branch is the Herglotz one (Im q > 0). With ``offsets``, ``lam`` holds λ − s_t² (exact
    near the delta, where s_t² + x would round away an x below ulp(s_t²)).

    Parameters
    ----------
    lam : array_like of float
        Real parts λ of z (or λ − s_t² with ``offsets``).
    psi_p, psi_n : float
        ψ_p = p/d features and ψ_n = n/d samples per input dimension.
    t : float
        Diffusion time, > 0.
    spectrum : DataSpectrum, optional
        The data covariance's spectrum ρ_Σ (default Σ = I).
    activation : callable
        The activation σ (default tanh).
    eta : array_like of float, optional
        Imaginary parts of z; default just above the real axis (above).
    consts : RFConstants, optional
        Precomputed :func:`rf_constants` at ``t`` (computed when None).
    x_floor : float, optional
        The smallest |λ − s_t²| that sets η (above).
    offsets : bool
        Whether ``lam`` holds λ − s_t².

    Returns
    -------
    q : numpy.ndarray of complex
        The Stieltjes transform of U's spectrum at each z; ρ(λ) ≈ Im q/π.
    delta : numpy.ndarray of complex
        δ(z) of Theorem 3.1 at each z.
    converged : numpy.ndarray of bool
        Whether Newton converged at each z.

    Raises
    ------
    ValueError
        Unless ``lam`` holds finite reals (at least one), ``psi_p``, ``psi_n`` and ``t`` are
        positive finite reals and ``eta`` and ``x_floor``, when given, are positive and finite.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.rmt import rf_stieltjes
    >>> q, delta, ok = rf_stieltjes([0.5], psi_p=4.0, psi_n=2.0, t=0.5)
    >>> bool(q[0].imag > 0), bool(ok.all()), round(float(q[0].imag / np.pi), 4)  # ρ(0.5)
    (True, True, 0.1468)
    """
    _domain.reals("lam", lam)
    _domain.real("psi_p", psi_p, minimum=0.0, open_low=True)
    _domain.real("psi_n", psi_n, minimum=0.0, open_low=True)
    _domain.real("t", t, minimum=0.0, open_low=True)
    _domain.reals(
        "eta", ETA_REL if eta is None else eta, minimum=0.0, open_low=True
    )  # None: the default η > 0
    _domain.real(
        "x_floor", ETA_FLOOR_REL if x_floor is None else x_floor, minimum=0.0, open_low=True
    )
    spectrum = DataSpectrum.identity() if spectrum is None else spectrum
    consts = rf_constants(t, activation, sigma_x2=spectrum.mean) if consts is None else consts
    lam = np.atleast_1d(np.asarray(lam, dtype=float))
    offset = lam if offsets else lam - consts.s2
    top = _rf_spectral_bound(consts, psi_p, psi_n, spectrum)
    if eta is None:
        floor = ETA_FLOOR_REL * top if x_floor is None else x_floor
        eta_final = ETA_REL * np.maximum(np.abs(offset), floor)
    else:
        eta_final = np.broadcast_to(np.asarray(eta, dtype=float), lam.shape)
    eta_start = 10.0 * max(top, float(np.max(np.abs(offset))))
    x, converged = _continuation(
        _rf_system(consts, psi_p, psi_n, spectrum),
        offset,
        eta_final,
        eta_start,
        _rf_initial(consts, psi_p, psi_n, spectrum),
        _RF_CHART,
    )
    return x[0], 1.0 / x[1] - 1.0, converged


# ------------------------------------------------------------------------------ bulks
#: A grid point belongs to a bulk when the mass per unit log x there, x·ρ, exceeds this. Scale-free:
#: it finds bulks at 1e-8 and at 1e4 alike, and is far above the η-tails of the delta (~1e-11).
BULK_THRESHOLD = 1e-9
EDGE_SUBDIVISIONS = 32  # points per refinement pass of an edge bracket
#: An edge bracket is narrowed until its width is at most EDGE_RTOL·|edge| (x = λ − floor, so the
#: edge in λ is at least as precise): whatever grid found the bracket, the edge is the same to
#: ~1e-10 relative. At most EDGE_MAX_PASSES passes (31¹² ≈ 10¹⁸: any bracket of doubles).
EDGE_RTOL = 1e-10
EDGE_MAX_PASSES = 12
#: A gap is resolved when the points inside on its two sides are more than GAP_RTOL apart
#: (relative): a hundred edge tolerances, so that both of its edges are resolved.
GAP_RTOL = 100 * EDGE_RTOL
MASS_NODES = 256  # tanh-sinh nodes per bulk for its mass


@dataclass(frozen=True)
class Bulk:
    """A connected component of the absolutely continuous spectrum: [lower, upper] and its mass."""

    #: Mass of the bulk (∫ρ over [lower, upper]).
    mass: float
    #: Lower edge λ₋.
    lower: float
    #: Upper edge λ₊.
    upper: float


@dataclass(frozen=True)
class Spectrum:
    """A deterministic-equivalent spectral density: ρ = delta_mass·δ(λ − delta_location) + ρ_ac.

    Attributes
    ----------
    lam, density
        The grid (sorted; log-spaced, with every bulk's quadrature nodes and edges) and ρ_ac on it.
    delta_location, delta_mass
        The atom (mass 0 when there is none).
    bulks
        The bulks, in increasing λ, with masses from Chebyshev-angle quadrature.
    """

    lam: NDArray[np.float64]
    density: NDArray[np.float64]
    delta_location: float
    delta_mass: float
    bulks: tuple[Bulk, ...]

    @property
    def total_mass(self) -> float:
        """delta_mass + Σ bulk masses (1 up to quadrature error when every bulk was found)."""
        return self.delta_mass + sum(b.mass for b in self.bulks)

    def cdf(self, lam: ArrayLike) -> NDArray[np.float64]:
        """The cumulative distribution at ``lam``: the delta plus the trapezoid integral of ρ_ac."""
        lam = np.asarray(lam, dtype=float)
        pieces = np.concatenate(
            [[0.0], np.diff(self.lam) * (self.density[1:] + self.density[:-1]) / 2]
        )
        cum = np.cumsum(pieces)
        cum *= (self.total_mass - self.delta_mass) / cum[-1] if cum[-1] > 0 else 1.0
        return np.interp(lam, self.lam, cum) + self.delta_mass * (lam >= self.delta_location)

    def ks_distance(self, values: ArrayLike, *, above: float | None = None) -> float:
        """Kolmogorov–Smirnov distance between the empirical CDF of sampled eigenvalues and this
        spectrum. With ``above`` set, only values > above count, against the CDF conditioned on
        λ > above (the delta at s_t² is left out by cutting just above it)."""
        _domain.reals("values", values, ndim=1)
        _domain.real("above", 0.0 if above is None else above)
        x = np.sort(np.asarray(values, dtype=float))
        cut = -np.inf if above is None else above
        x = x[x > cut]
        if x.size == 0:
            raise ValueError("no sampled eigenvalues above the cut")
        at_cut = 0.0 if above is None else float(self.cdf(above))
        f = (self.cdf(x) - at_cut) / (1.0 - at_cut)
        k = x.size
        return float(max(np.max(np.arange(1, k + 1) / k - f), np.max(f - np.arange(k) / k)))

    def to_json(self) -> dict:
        """The ``solve rmt --json`` document: lambda, density, delta_location, delta_mass, bulks."""
        return {
            "lambda": self.lam.tolist(),
            "density": self.density.tolist(),
            "delta_location": self.delta_location,
            "delta_mass": self.delta_mass,
            "bulks": [{"mass": b.mass, "lower": b.lower, "upper": b.upper} for b in self.bulks],
        }


def _tanh_sinh_rule(nodes: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Tanh-sinh nodes u ∈ (−1, 1) and weights for ∫_{−1}^{1} f(u) du: u = tanh(π/2 · sinh s) on
    an equispaced s-grid over [−3.2, 3.2] (nodes that round to ±1 are dropped)."""
    s = np.linspace(-3.2, 3.2, nodes)
    h = s[1] - s[0]
    arg = np.pi / 2 * np.sinh(s)
    u = np.tanh(arg)
    w = h * np.pi / 2 * np.cosh(s) / np.cosh(arg) ** 2
    keep = np.abs(u) < 1.0
    return u[keep], w[keep]


DensityFn = Callable[[NDArray[np.float64]], NDArray[np.float64]]


def _inside(x: NDArray[np.float64], rho: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether each point belongs to a bulk: x·ρ(x) > :data:`BULK_THRESHOLD`."""
    return x * rho > BULK_THRESHOLD


def _refine_edges(
    density: DensityFn, outside: NDArray[np.float64], inside: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Narrow each bracket (outside, inside) of an edge, all at once, to the last point outside
    the bulk (:func:`_inside`) before the inside end, :data:`EDGE_SUBDIVISIONS` points per pass,
    until the bracket is narrower than :data:`EDGE_RTOL`·|edge|; returns the refined outside
    ends. The innermost crossing, not the first: next to a square-root edge the solver's
    rounding leaves bumps of Im q just outside (at Newton's former residual 1e-12 they reached
    1e-8 below the edge at ψ_p = 1.05, ψ_n = 1000, t = 0.1), which a first-crossing rule takes
    for the edge. The result
    depends on the bracket only through rounding: edges do not move with the grid that found
    them."""
    lo, hi = outside.astype(float), inside.astype(float)
    frac = np.linspace(0.0, 1.0, EDGE_SUBDIVISIONS + 1)[1:-1]
    n = len(frac)
    for _ in range(EDGE_MAX_PASSES):
        open_ = np.flatnonzero(np.abs(hi - lo) > EDGE_RTOL * np.maximum(np.abs(lo), np.abs(hi)))
        if open_.size == 0:
            break
        a, b = lo[open_], hi[open_]
        pts = a[:, None] + (b - a)[:, None] * frac[None, :]
        out = ~_inside(pts, density(pts.ravel()).reshape(pts.shape))
        # index of the last point outside (−1: none, the bracket's outside end stays)
        last = np.where(out.any(axis=1), n - 1 - np.argmax(out[:, ::-1], axis=1), -1)
        rows = np.arange(open_.size)
        lo[open_] = np.where(last >= 0, pts[rows, np.maximum(last, 0)], a)
        hi[open_] = np.where(last + 1 < n, pts[rows, np.minimum(last + 1, n - 1)], b)
    return lo


def _gaps(
    xs: NDArray[np.float64], rho: NDArray[np.float64]
) -> list[tuple[float, float, float, float]]:
    """The gaps that evaluated points (any order) show inside one interval: runs of points outside
    the bulks (:func:`_inside`) with points inside on both sides, as brackets
    (left inside, left outside, right outside, right inside). A gap between inside points closer
    than :data:`GAP_RTOL` relative is not resolved (a cusp, or rounding next to an edge)."""
    order = np.argsort(xs, kind="stable")
    x, on = xs[order], _inside(xs[order], rho[order])
    idx = np.flatnonzero(on)
    out = []
    for a, b in itertools.pairwise(idx):
        resolved = x[b] - x[a] > GAP_RTOL * max(abs(x[a]), abs(x[b]))
        if b > a + 1 and resolved:
            out.append((float(x[a]), float(x[a + 1]), float(x[b - 1]), float(x[b])))
    return out


def _split_at_gaps(
    density: DensityFn,
    bulk: tuple[float, float],
    gaps: list[tuple[float, float, float, float]],
) -> list[tuple[float, float]]:
    """Cut the interval ``bulk`` = (lower, upper) at ``gaps`` (brackets of :func:`_gaps`), each
    new edge refined by :func:`_refine_edges`; returns the pieces in increasing x."""
    if not gaps:
        return [bulk]
    g = np.array(gaps, dtype=float)
    # the upper edge of the piece left of each gap, then the lower edge of the piece right of it
    edges = _refine_edges(
        density, np.concatenate([g[:, 1], g[:, 2]]), np.concatenate([g[:, 0], g[:, 3]])
    )
    uppers, lowers = edges[: len(gaps)], edges[len(gaps) :]
    starts = [bulk[0], *lowers.tolist()]
    ends = [*uppers.tolist(), bulk[1]]
    return list(zip(starts, ends, strict=True))


#: Adaptive mass quadrature: an interval's tanh-sinh estimate is accepted when its two halves
#: agree with it to MASS_TOL (absolute mass); else each half is refined, at most MASS_LEVELS deep.
#: Needed where a bulk found on the log grid hides a gap narrower than the grid (e.g. ρ1 and ρ2
#: touching at ψ_p ≈ 1 < ψ_n: two square-root edges inside one interval spoil tanh-sinh).
MASS_TOL = 1e-8
MASS_LEVELS = 40
#: At most this many intervals are refined at once; beyond, the rest are accepted as they are (a
#: density that is noise, e.g. from unconverged points, never stops disagreeing with itself).
MASS_MAX_PENDING = 32


def _split_point(lo: NDArray[np.float64], hi: NDArray[np.float64]) -> NDArray[np.float64]:
    """Midpoints: geometric where the interval spans more than a factor 4 (bulks cover decades
    on the offset axis), arithmetic otherwise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        geometric = np.sqrt(lo * hi)
    return np.where((lo > 0) & (hi > 4 * lo), geometric, (lo + hi) / 2)


def _adaptive_mass(
    density: DensityFn, lower: float, upper: float, levels: int = MASS_LEVELS
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """∫ρ over [lower, upper] by breadth-first adaptive tanh-sinh (:data:`MASS_TOL`,
    :data:`MASS_LEVELS`), each level's intervals evaluated in one call of ``density``. Returns
    the mass and the nodes (x, ρ) of the accepted intervals; ``levels=0``: one tanh-sinh
    estimate (the solver before the adaptive step, kept as the bench's baseline)."""
    unit, weight = _tanh_sinh_rule(MASS_NODES)

    def estimate(lo: NDArray, hi: NDArray) -> tuple[NDArray, NDArray, NDArray]:
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        xs = mid[:, None] + half[:, None] * unit[None, :]
        rho = density(xs.ravel()).reshape(xs.shape)
        return (rho * weight[None, :]).sum(axis=1) * half, xs, rho

    lo, hi = np.array([lower]), np.array([upper])
    whole, xs, rho = estimate(lo, hi)
    if levels == 0:
        return float(whole[0]), xs[0], rho[0]
    mass, kept_x, kept_rho = 0.0, [], []
    for level in range(levels + 1):
        if lo.size == 0:
            break
        split = _split_point(lo, hi)
        halves_lo, halves_hi = np.concatenate([lo, split]), np.concatenate([split, hi])
        parts, part_x, part_rho = estimate(halves_lo, halves_hi)
        n = lo.size
        refined = parts[:n] + parts[n:]
        done = (np.abs(refined - whole) <= MASS_TOL) | (level == levels) | (split <= lo)
        done |= split >= hi
        if np.count_nonzero(~done) > MASS_MAX_PENDING:
            done[:] = True
        mass += float(refined[done].sum())
        keep = np.concatenate([done, done])
        kept_x.append(part_x[keep].ravel())
        kept_rho.append(part_rho[keep].ravel())
        go = np.concatenate([~done, ~done])
        lo, hi, whole = halves_lo[go], halves_hi[go], parts[go]
    return mass, np.concatenate(kept_x), np.concatenate(kept_rho)


def _intervals_on_grid(
    density: DensityFn, x: NDArray[np.float64], rho: NDArray[np.float64], *, bottom: float
) -> list[tuple[float, float]]:
    """The runs of a sorted grid where :func:`_inside` holds, as (lower, upper) with each edge
    refined inside its grid cell (:func:`_refine_edges`); a run touching the first grid point
    gets lower edge ``bottom``, one touching the last gets upper edge x[-1]."""
    on = _inside(x, rho)
    starts = np.flatnonzero(on & ~np.concatenate([[False], on[:-1]]))
    ends = np.flatnonzero(on & ~np.concatenate([on[1:], [False]]))
    lower_bracket = [(x[i - 1], x[i]) if i > 0 else (bottom, bottom) for i in starts]
    upper_bracket = [(x[j + 1], x[j]) if j + 1 < x.size else (x[j], x[j]) for j in ends]
    brackets = np.array(lower_bracket + upper_bracket, dtype=float).reshape(-1, 2)
    refine = brackets[:, 0] != brackets[:, 1]
    edges = brackets[:, 1].copy()
    if refine.any():
        edges[refine] = _refine_edges(density, brackets[refine, 0], brackets[refine, 1])
    return list(zip(edges[: len(starts)].tolist(), edges[len(starts) :].tolist(), strict=True))


#: How many times the pieces of a split bulk are searched again for gaps their nodes show.
SPLIT_ROUNDS = 4


def _measure_bulks(
    density: DensityFn, intervals: list[tuple[float, float]], mass_levels: int, rounds: int
) -> tuple[list[Bulk], list[tuple]]:
    """Each interval's mass by :func:`_adaptive_mass`; an interval whose quadrature nodes show a
    gap (:func:`_gaps`: the adaptive quadrature concentrates its nodes where two edges face each
    other inside one interval) is split there and its pieces measured again, up to ``rounds``
    times. Bulks whose mass is at most :data:`MASS_TOL` are dropped: the quadrature accepts each
    interval to MASS_TOL, so such a bulk cannot be told from none (at ψ_p = 1 exactly, points
    next to s_t² give "bulks" of mass ±1e-11)."""
    bulks, nodes = [], []
    for lower, upper in intervals:
        mass, xs, rho = _adaptive_mass(density, lower, upper, mass_levels)
        gaps = _gaps(xs, rho) if rounds > 0 else []
        if gaps:
            pieces = _split_at_gaps(density, (lower, upper), gaps)
            more_bulks, more_nodes = _measure_bulks(density, pieces, mass_levels, rounds - 1)
            bulks += more_bulks
            nodes += more_nodes
        elif mass > MASS_TOL:
            bulks.append(Bulk(mass, lower, upper))
            nodes.append((xs, rho))
    return bulks, nodes


def find_bulks(
    density: DensityFn,
    x_max: float,
    *,
    points: int = 1000,
    x_min_rel: float = ETA_FLOOR_REL,
    mass_levels: int = MASS_LEVELS,
) -> tuple[NDArray[np.float64], NDArray[np.float64], list[Bulk], list[tuple]]:
    """Locate the bulks of a density on x ∈ (0, x_max] (x = λ − λ_floor, so a delta at the floor
    never enters): a log grid of ``points`` over ``x_max·x_min_rel … x_max`` marks where x·ρ(x)
    exceeds :data:`BULK_THRESHOLD` (an absolute, scale-free threshold: a threshold relative to
    max ρ fails when bulks sit 4–5 decades apart), each edge is refined inside its bracket to
    :data:`EDGE_RTOL` (:func:`_refine_edges`), and each mass is ∫ρ on [lower, upper] by adaptive
    tanh-sinh (:func:`_adaptive_mass`: exact enough for square-root and inverse-square-root
    edges, and for a gap inside a bulk that is narrower than the grid, where the bulk is then
    split: :func:`_measure_bulks`). A bulk touching the bottom of the grid gets lower edge 0.

    Parameters
    ----------
    density : callable
        ρ(x) for an array of x > 0, vectorised.
    x_max : float
        Top of the search range, above the highest bulk.
    points : int
        Points of the log grid.
    x_min_rel : float
        Bottom of the grid relative to ``x_max``.
    mass_levels : int
        Levels of the adaptive tanh-sinh quadrature of each mass (0: one estimate).

    Returns
    -------
    grid : numpy.ndarray of float
        The log grid.
    rho : numpy.ndarray of float
        ρ on the grid.
    bulks : list of Bulk
        The bulks in increasing x, with their masses and edges.
    nodes : list of tuple
        Per bulk, the quadrature's (x nodes, ρ at them).

    Examples
    --------
    >>> from theory.rmt import find_bulks, marchenko_pastur_density
    >>> grid, rho, bulks, nodes = find_bulks(lambda x: marchenko_pastur_density(x, 0.25), 3.0)
    >>> [(round(b.mass, 4), round(b.lower, 4), round(b.upper, 4)) for b in bulks]
    [(1.0, 0.25, 2.25)]
    """
    _domain.real("x_max", x_max, minimum=0.0, open_low=True)
    _domain.integer("points", points, minimum=2)
    _domain.real("x_min_rel", x_min_rel, minimum=0.0, maximum=1.0, open_low=True, open_high=True)
    _domain.integer("mass_levels", mass_levels, minimum=0)
    x = np.geomspace(x_max * x_min_rel, x_max, points)
    rho = density(x)
    intervals = _intervals_on_grid(density, x, rho, bottom=0.0)
    bulks, nodes = _measure_bulks(density, intervals, mass_levels, SPLIT_ROUNDS)
    return x, rho, bulks, nodes


#: Points of a local grid (a predicted bulk's window, a zoom towards a predicted gap), and zoom
#: passes: each pass narrows the window around the lowest x·ρ seen to four of its cells.
LOCAL_POINTS = 256
ZOOM_PASSES = 8


def _zoom_to_gap(density: DensityFn, lo: float, hi: float) -> tuple[NDArray, NDArray]:
    """Look for a gap inside [lo, hi] by zooming in on the smallest x·ρ: :data:`ZOOM_PASSES`
    passes of :data:`LOCAL_POINTS` points, each around the previous pass's minimum (between two
    square-root edges x·ρ is V-shaped, so the minimum walks into the gap). Returns every point
    evaluated and its ρ, for :func:`_gaps`."""
    xs, rhos = [], []
    for _ in range(ZOOM_PASSES):
        x = np.linspace(lo, hi, LOCAL_POINTS)
        rho = density(x)
        xs.append(x)
        rhos.append(rho)
        if not np.all(_inside(x, rho)):
            break
        k = int(np.argmin(x * rho))
        lo, hi = x[max(k - 2, 0)], x[min(k + 2, x.size - 1)]
    return np.concatenate(xs), np.concatenate(rhos)


def _node_quantile(nodes: tuple[NDArray, NDArray], fraction: float) -> float:
    """The x below which ``fraction`` of a bulk's mass lies, from its quadrature nodes (x, ρ)
    by the trapezoid rule: where to look for a gap that a predicted mass level puts there."""
    order = np.argsort(nodes[0], kind="stable")
    x, rho = nodes[0][order], nodes[1][order]
    cum = np.concatenate([[0.0], np.cumsum(np.diff(x) * (rho[1:] + rho[:-1]) / 2)])
    return float(np.interp(fraction * cum[-1], cum, x))


def _complete_bulks(
    density: DensityFn,
    grid: tuple[NDArray[np.float64], NDArray[np.float64], list[Bulk], list[tuple]],
    *,
    start_mass: float,
    levels: NDArray[np.float64],
    windows: list[tuple[float, float]],
    mass_levels: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64], list[Bulk], list[tuple]]:
    """Search where theory puts structure that a grid may miss. Each predicted cumulative mass
    level (``levels``, counted from ``start_mass``, the delta) that falls inside a found bulk is
    a place for a gap: the bulk's quantile there is zoomed into (:func:`_zoom_to_gap`) and the
    bulk is split at a gap found. Each of ``windows`` (x ranges where theory puts a bulk) is
    scanned on a local grid of :data:`LOCAL_POINTS`, and bulks there that the grid missed (not
    touching the window's ends, disjoint from the found ones) are added."""
    x, rho, bulks, nodes = grid
    bulks, nodes = list(bulks), list(nodes)
    cum = start_mass
    split_bulks, split_nodes = [], []
    for bulk, node in zip(bulks, nodes, strict=True):
        inner = levels[(levels > cum + LEVEL_TOL) & (levels < cum + bulk.mass - LEVEL_TOL)]
        gaps = []
        for level in inner:
            margin = min(level - cum, cum + bulk.mass - level) / 2
            lo = _node_quantile(node, (level - cum - margin) / bulk.mass)
            hi = _node_quantile(node, (level - cum + margin) / bulk.mass)
            gaps += _gaps(*_zoom_to_gap(density, lo, hi)) if hi > lo else []
        cum += bulk.mass
        if gaps:
            pieces = _split_at_gaps(density, (bulk.lower, bulk.upper), sorted(set(gaps)))
            more, more_nodes = _measure_bulks(density, pieces, mass_levels, SPLIT_ROUNDS)
            split_bulks += more
            split_nodes += more_nodes
        else:
            split_bulks.append(bulk)
            split_nodes.append(node)
    bulks, nodes = split_bulks, split_nodes
    for lo, hi in windows:
        local = np.linspace(lo, hi, LOCAL_POINTS)
        local_rho = density(local)
        found = [
            (a, b)
            for a, b in _intervals_on_grid(density, local, local_rho, bottom=lo)
            if lo < a and b < hi and all(b < k.lower or a > k.upper for k in bulks)
        ]
        more, more_nodes = _measure_bulks(density, found, mass_levels, SPLIT_ROUNDS)
        bulks += more
        nodes += more_nodes
    order = np.argsort([b.lower for b in bulks], kind="stable")
    return x, rho, [bulks[i] for i in order], [nodes[i] for i in order]


def _assemble(
    floor: float,
    delta_mass: float,
    grid: tuple[NDArray[np.float64], NDArray[np.float64], list[Bulk], list[tuple]],
) -> Spectrum:
    """A :class:`Spectrum` in absolute λ from :func:`find_bulks` output on offsets x = λ − floor;
    the plotting grid is the log grid plus every bulk's nodes, with zeros at the edges."""
    x, rho, bulks, nodes = grid
    xs = [x] + [n[0] for n in nodes] + [np.array([b.lower, b.upper]) for b in bulks]
    rhos = [rho] + [n[1] for n in nodes] + [np.zeros(2) for _ in bulks]
    x_all, rho_all = np.concatenate(xs), np.concatenate(rhos)
    order = np.argsort(x_all, kind="stable")
    shifted = tuple(Bulk(b.mass, b.lower + floor, b.upper + floor) for b in bulks)
    return Spectrum(
        lam=x_all[order] + floor,
        density=np.maximum(rho_all[order], 0.0),
        delta_location=float(floor),
        delta_mass=float(delta_mass),
        bulks=shifted,
    )


@dataclass(frozen=True)
class RFSpectrum(Spectrum):
    """The limiting spectrum of the random-feature matrix U (p × p), as :func:`rf_spectrum`
    returns it, with the model it belongs to.

    Conventions. The model has p = ψ_p·d random features and n = ψ_n·d training samples in
    dimension d, in the limit d → ∞ at fixed ψ_p, ψ_n. t is the diffusion time of the forward
    process x_t = e^{−t} x_0 + √Δ_t ξ, with noise variance Δ_t = 1 − e^{−2t}
    (``consts.delta``). The spectrum is normalised per eigenvalue: it is the limit of the
    fraction of U's p eigenvalues, a probability distribution. A share ``delta_mass`` of them
    sits exactly at ``delta_location`` = s_t² (``consts.s2``); ``density`` is the continuous
    part ρ(λ) on the grid ``lam`` and integrates to 1 − ``delta_mass`` over the ``bulks``.
    ``total_mass`` is 1 up to quadrature error (``self_check_passed``: within
    :data:`SELF_CHECK_MASS_TOL`).

    The grid is the field ``lam`` in Python (``lambda`` is a keyword) and the key ``"lambda"`` in
    :meth:`to_json`, the document that ``paper-checks solve rmt --json`` prints.

    >>> from theory.rmt import rf_spectrum
    >>> spec = rf_spectrum(psi_p=4.0, psi_n=2.0, t=0.5)
    >>> spec.self_check_passed, spec.delta_mass  # 1 − (1 + ψ_n)/ψ_p of the eigenvalues at s_t²
    (True, 0.25)
    >>> spec.delta_location == spec.consts.s2
    True
    >>> [round(b.mass, 3) for b in spec.bulks]  # the rest, in two bulks
    [0.5, 0.25]
    >>> sorted(spec.to_json())
    ['bulks', 'delta_location', 'delta_mass', 'density', 'lambda']
    """

    #: The Gaussian-equivalence constants at this t (``consts.s2`` is the delta's location).
    consts: RFConstants = field(default=None)  # type: ignore[assignment]
    #: ψ_p = p/d, features per input dimension.
    psi_p: float = 0.0
    #: ψ_n = n/d, samples per input dimension.
    psi_n: float = 0.0
    #: Evaluation points (log grid, edge refinement and quadrature nodes, counted once per
    #: evaluation) with no converged solution: Newton stopped above residual 1e-10, or the
    #: solution is not finite. Near hard edges in extreme (ψ_p, ψ_n, t); their densities are
    #: approximate (clipped at 0).
    unconverged: int = 0
    #: Evaluation points in all (the denominator of ``unconverged``).
    evaluated: int = 0
    #: Cumulative masses at the gaps between bulks that are none of :func:`rf_mass_levels`
    #: (within :data:`SELF_CHECK_MASS_TOL`): a bulk missed or cut.
    unpredicted_levels: tuple[float, ...] = ()

    @property
    def self_check_passed(self) -> bool:
        """Whether the spectrum is a probability distribution whose bulks theory explains: total
        mass 1 within :data:`SELF_CHECK_MASS_TOL`, the density finite and non-negative on its
        grid, and every gap between bulks at a cumulative mass of :func:`rf_mass_levels`."""
        return bool(
            abs(self.total_mass - 1.0) <= SELF_CHECK_MASS_TOL
            and not self.unpredicted_levels
            and np.all(np.isfinite(self.density))
            and np.all(self.density >= 0)
        )


#: |total mass − 1| beyond which :func:`rf_spectrum` reports a failed self-check.
SELF_CHECK_MASS_TOL = 1e-3


class SpectrumSelfCheckError(RuntimeError):
    """:func:`rf_spectrum` with ``strict=True`` found a spectrum failing its self-check."""


class SpectrumSelfCheckWarning(RuntimeWarning):
    """:func:`rf_spectrum` returned a spectrum whose total mass is not 1 within
    :data:`SELF_CHECK_MASS_TOL` (``RFSpectrum.self_check_passed`` is False)."""


#: Mass resolution of the level search: a predicted level within LEVEL_TOL of a bulk's ends is
#: not searched for inside it (a group of fewer eigenvalues than that is no bulk to find).
LEVEL_TOL = 1e-6


def rf_mass_levels(
    psi_p: float, psi_n: float, spectrum: DataSpectrum | None = None
) -> NDArray[np.float64]:
    """The cumulative masses F(λ) (delta included) at which the spectrum of U can have a gap,
    sorted: the counts of eigenvalues below a gap are those of the groups theory separates
    (exact separation of the Gaussian-equivalent U − s_t² = M Mᵀ, M = [G/√n, b_t W/√d]; the
    groups of docs/diffusion.md#the-spectrum-of-u-theorem-31): the delta of p − n − d eigenvalues at s_t²
    (mass δ₀ = max(0, 1 − (1+ψ_n)/ψ_p)); the low bulk of min(n, d) eigenvalues above it, and its
    parts per atom of ρ_Σ (levels δ₀ + min(1, ψ_n) W_k/ψ_p, W_k the partial sums of the atom
    weights); ρ1, up to the p − d eigenvalues outside the span of W (level 1 − 1/ψ_p); and ρ2,
    the d eigenvalues of W's span, per atom of ρ_Σ (levels 1 − 1/ψ_p + W_k/ψ_p). For ψ_p ≤ 1 the
    span of W is everything and only the atoms' levels W_k remain. Groups may merge (no gap
    then), but a gap elsewhere means a bulk was missed or cut.

    Parameters
    ----------
    psi_p, psi_n : float
        ψ_p = p/d and ψ_n = n/d.
    spectrum : DataSpectrum, optional
        The data covariance's spectrum ρ_Σ (default Σ = I).

    Returns
    -------
    numpy.ndarray of float
        The levels, sorted and distinct, the last one 1.

    Raises
    ------
    ValueError
        Unless ``psi_p`` and ``psi_n`` are positive finite reals.

    Examples
    --------
    >>> from theory.rmt import DataSpectrum, rf_mass_levels
    >>> rf_mass_levels(4.0, 2.0).tolist()  # low bulk to 1/4 + 1/4, ρ1 to 1 − 1/4, ρ2 to 1
    [0.5, 0.75, 1.0]
    >>> rf_mass_levels(4.0, 2.0, DataSpectrum.of([0.5, 1.5])).tolist()  # and per atom of ρ_Σ
    [0.375, 0.5, 0.75, 0.875, 1.0]
    """
    _domain.real("psi_p", psi_p, minimum=0.0, open_low=True)
    _domain.real("psi_n", psi_n, minimum=0.0, open_low=True)
    spectrum = DataSpectrum.identity() if spectrum is None else spectrum
    partial = np.cumsum(spectrum.weights)
    delta = max(0.0, 1.0 - (1.0 + psi_n) / psi_p)
    top = min(1.0, 1.0 / psi_p)  # the mass of the span of W
    levels = np.concatenate(
        [delta + min(1.0, psi_n) / psi_p * partial, [1.0 - top], 1.0 - top + top * partial]
    )
    levels = levels[(levels > delta + LEVEL_TOL) & (levels <= 1.0 + LEVEL_TOL)]
    return np.unique(np.minimum(levels, 1.0))


def _rf_noise_window(consts: RFConstants, psi_p: float, psi_n: float) -> list[tuple[float, float]]:
    """Where (in x = λ − s_t²) theory puts the p − d eigenvalues outside the span of W for
    ψ_p > 1: there U compresses to s_t² + v_t² PΩΩᵀP/n, a Marchenko–Pastur law of ratio
    γ = (ψ_p − 1)/ψ_n and variance v_t², on [v_t²(1 − √γ)², v_t²(1 + √γ)²]; by interlacing,
    U moves at most d of them, so the bulk lies there up to a shift of the order of its width.
    Returns that interval widened by its width on each side ([] for ψ_p ≤ 1)."""
    if psi_p <= 1.0:
        return []
    root = math.sqrt((psi_p - 1.0) / psi_n)
    lo, hi = consts.v2 * (1.0 - root) ** 2, consts.v2 * (1.0 + root) ** 2
    return [(max(lo - (hi - lo), lo / 2), hi + (hi - lo))]


#: ρ = Im q/π is read as 0 where Im q ≤ RESOLUTION_RTOL·|q|: outside the support, Im q is the
#: η-tail η·q′(λ) plus the solver's rounding, which next to a square-root edge (where the
#: Jacobian is singular) reaches ~1e-8·|q| at :data:`NEWTON_TOL`. A larger cut would bias the
#: edges of small bulks, where Im q/|q| is small throughout (ρ2 at ψ_p = 4096 moves by 4e-9 at
#: 1e-7 and by 4e-7 at 1e-6); this one leaves a band of rounding bumps ~1e-10 wide outside an
#: edge, so edges agree to a few 1e-9 relative across grids.
RESOLUTION_RTOL = 1e-8


def rf_spectrum(
    *,
    psi_p: float,
    psi_n: float,
    t: float,
    spectrum: DataSpectrum | None = None,
    activation: Activation = np.tanh,
    points: int = 1000,
    strict: bool = False,
    mass_levels: int = MASS_LEVELS,
) -> RFSpectrum:
    """The limiting eigenvalue density of U (Theorem 3.1): a delta at s_t² of mass
    max(0, 1 − (1+ψ_n)/ψ_p) (the p − n − d directions orthogonal to Ω and W, added analytically)
    plus the bulks found by :func:`find_bulks` on ρ(λ) = Im q(λ + i0⁺)/π.

    A spectrum that fails its self-check (``RFSpectrum.self_check_passed``: total mass 1 within
    :data:`SELF_CHECK_MASS_TOL`, density finite and non-negative) is never returned silently:
    it raises :class:`SpectrumSelfCheckError` with ``strict``, else it is returned with a
    :class:`SpectrumSelfCheckWarning`.

    Parameters
    ----------
    psi_p, psi_n : float
        ψ_p = p/d features and ψ_n = n/d samples per input dimension, > 0.
    t : float
        Diffusion time, > 0.
    spectrum : DataSpectrum, optional
        The data covariance's spectrum ρ_Σ (default Σ = I).
    activation : callable
        The activation σ (default tanh).
    points : int
        Points of the log grid on which the bulks are searched (at least 16).
    strict : bool
        Raise instead of warn when the self-check fails.
    mass_levels : int
        Levels of the adaptive quadrature of each bulk's mass.

    Returns
    -------
    RFSpectrum
        The spectrum with its model (conventions: :class:`RFSpectrum`).

    Raises
    ------
    ValueError
        Unless ``psi_p``, ``psi_n`` and ``t`` are positive finite reals and ``points`` an
        integer ≥ 16.
    SpectrumSelfCheckError
        With ``strict``, if the self-check fails.

    Warns
    -----
    SpectrumSelfCheckWarning
        Without ``strict``, if the self-check fails.

    Examples
    --------
    >>> from theory.rmt import rf_spectrum
    >>> spec = rf_spectrum(psi_p=4.0, psi_n=2.0, t=0.5)
    >>> spec.delta_mass, [round(b.mass, 3) for b in spec.bulks], spec.self_check_passed
    (0.25, [0.5, 0.25], True)
    """
    for name, value in (("psi_p", psi_p), ("psi_n", psi_n)):
        _domain.real(name, value, minimum=0.0, open_low=True)
    _domain.real("t", t, minimum=0.0, open_low=True)
    _domain.integer("points", points, minimum=16)
    spectrum = DataSpectrum.identity() if spectrum is None else spectrum
    consts = rf_constants(t, activation, sigma_x2=spectrum.mean)

    top = _rf_spectral_bound(consts, psi_p, psi_n, spectrum)
    # the smallest structure above s_t²: the low bulk at ~Δ_t v_t² ψ_p/ψ_n, ρ1 at ~v_t²
    floor = min(ETA_FLOOR_REL * top, 1e-4 * consts.v2 * consts.delta * min(1.0, psi_p / psi_n))
    floor = max(floor, 1e-30 * top)
    unconverged = evaluated = 0
    delta_mass = max(0.0, 1.0 - (1.0 + psi_n) / psi_p)

    def density(x: NDArray[np.float64]) -> NDArray[np.float64]:
        nonlocal unconverged, evaluated
        q, _, ok = rf_stieltjes(
            x,
            psi_p=psi_p,
            psi_n=psi_n,
            t=t,
            spectrum=spectrum,
            consts=consts,
            x_floor=floor,
            offsets=True,  # λ − s_t² itself: s_t² + x would round x below ulp(s_t²) ~ 1e-18
        )
        valid = ok & np.isfinite(q)
        unconverged += int(np.count_nonzero(~valid))
        evaluated += int(valid.size)
        rho = q.imag / np.pi
        if delta_mass > 0:  # drop the delta's Lorentzian η/(π(x² + η²)): the bulks are the rest
            eta = ETA_REL * np.maximum(np.abs(x), floor)
            rho = rho - delta_mass * eta / (np.pi * (x * x + eta * eta))
        return np.where(np.pi * rho > RESOLUTION_RTOL * np.abs(q), rho, 0.0)

    decades = math.log10(top / floor)
    grid = find_bulks(
        density,
        top,
        points=max(points, int(60 * decades)),
        x_min_rel=floor / top,
        mass_levels=mass_levels,
    )
    levels = rf_mass_levels(psi_p, psi_n, spectrum)
    grid = _complete_bulks(
        density,
        grid,
        start_mass=delta_mass,
        levels=levels,
        windows=_rf_noise_window(consts, psi_p, psi_n),
        mass_levels=mass_levels,
    )
    cumulative = delta_mass + np.cumsum([b.mass for b in grid[2]])[:-1]
    unpredicted = tuple(
        float(c) for c in cumulative if not np.any(np.abs(levels - c) <= SELF_CHECK_MASS_TOL)
    )
    base = _assemble(consts.s2, delta_mass, grid)
    result = RFSpectrum(
        **vars(base),
        consts=consts,
        psi_p=float(psi_p),
        psi_n=float(psi_n),
        unconverged=unconverged,
        evaluated=evaluated,
        unpredicted_levels=unpredicted,
    )
    if not result.self_check_passed:
        problems = []
        if abs(result.total_mass - 1.0) > SELF_CHECK_MASS_TOL:
            problems.append(
                f"total mass {result.total_mass:.6g}, not 1 within {SELF_CHECK_MASS_TOL:g}"
            )
        if unpredicted:
            problems.append(
                "a gap where theory puts none, below a cumulative mass of "
                + ", ".join(f"{c:.6g}" for c in unpredicted)
                + " (predicted: "
                + ", ".join(f"{c:.6g}" for c in levels)
                + ")"
            )
        if not problems:
            problems.append("the density is not finite and non-negative")
        message = (
            f"rf_spectrum(psi_p={psi_p:g}, psi_n={psi_n:g}, t={t:g}) failed its self-check: "
            + "; ".join(problems)
            + f" ({unconverged} of {evaluated} points unconverged)"
        )
        if strict:
            raise SpectrumSelfCheckError(message)
        warnings.warn(message, SpectrumSelfCheckWarning, stacklevel=2)
    return result


#: ε schedule of the authors' plot_spectrum_U.py per-λ continuation: 100, 99, …, 1, then
#: 0.9, 0.7, 0.5, 0.3, 0.1, then 1e-2 … 1e-9 — 113 warm-started solves per λ.
REFERENCE_EPS_SCHEDULE = tuple(
    [float(e) for e in range(100, 0, -1)]
    + [0.9, 0.7, 0.5, 0.3, 0.1]
    + [10.0**-k for k in range(2, 10)]
)


def rf_density_per_point(
    lam: ArrayLike,
    *,
    psi_p: float,
    psi_n: float,
    t: float,
    spectrum: DataSpectrum | None = None,
    activation: Activation = np.tanh,
) -> NDArray[np.float64]:
    """ρ(λ) the way the authors' script computes it, as an independent baseline: the three
    equations of Theorem 3.1 in (q, r, s),

        s = E_λ 1/(ŝ + λ r̂),  r = E_λ λ/(ŝ + λ r̂),
        ψ_p(s_t² − z) + ψ_p v_t²/(1+δ) + (1 − ψ_p)/q − s/q² = 0,

    δ = (ψ_p/ψ_n)(c² a_t² r + v_t² q), ŝ = b_t² ψ_p + 1/q, r̂ = ψ_p c² a_t²/(1+δ), as six real
    unknowns per λ solved by Levenberg–Marquardt (``scipy.optimize.root``) along the 113-stage
    ε schedule, z = λ + iε (the Herglotz sign; the script's λ − iε with |Im q| hides branches).
    Slow by design: O(113 · LM solves) per point.

    Parameters
    ----------
    lam : array_like of float
        Where to evaluate ρ.
    psi_p, psi_n : float
        ψ_p = p/d and ψ_n = n/d.
    t : float
        Diffusion time, > 0.
    spectrum : DataSpectrum, optional
        The data covariance's spectrum ρ_Σ (default Σ = I).
    activation : callable
        The activation σ (default tanh).

    Returns
    -------
    numpy.ndarray of float
        ρ(λ) = Im q/π at each λ.

    Raises
    ------
    ValueError
        Unless ``lam`` holds finite reals (at least one) and ``psi_p``, ``psi_n`` and ``t`` are
        positive finite reals.

    Examples
    --------
    >>> from theory.rmt import rf_density_per_point
    >>> rf_density_per_point([0.5], psi_p=4.0, psi_n=2.0, t=0.5).round(4).tolist()  # rf_stieltjes
    [0.1468]
    """
    _domain.reals("lam", lam)
    _domain.real("psi_p", psi_p, minimum=0.0, open_low=True)
    _domain.real("psi_n", psi_n, minimum=0.0, open_low=True)
    _domain.real("t", t, minimum=0.0, open_low=True)
    from scipy.optimize import root

    spectrum = DataSpectrum.identity() if spectrum is None else spectrum
    consts = rf_constants(t, activation, sigma_x2=spectrum.mean)
    atoms, weights = np.asarray(spectrum.atoms), np.asarray(spectrum.weights)
    ca2 = consts.decay**2 * consts.a**2
    out = []
    for lam_k in np.atleast_1d(np.asarray(lam, dtype=float)):

        def equations(v: NDArray[np.float64], z: complex) -> NDArray[np.float64]:
            q, r, s = v[0] + 1j * v[1], v[2] + 1j * v[3], v[4] + 1j * v[5]
            delta = psi_p / psi_n * (ca2 * r + consts.v2 * q)
            s_hat, r_hat = consts.b**2 * psi_p + 1.0 / q, psi_p * ca2 / (1.0 + delta)
            den = s_hat + atoms * r_hat
            e = (
                s - np.sum(weights / den),
                r - np.sum(weights * atoms / den),
                psi_p * (consts.s2 - z)
                + psi_p * consts.v2 / (1.0 + delta)
                + (1.0 - psi_p) / q
                - s / q**2,
            )
            return np.array([part for c in e for part in (c.real, c.imag)])

        z0 = lam_k + 1j * REFERENCE_EPS_SCHEDULE[0]
        guess = np.array([(1 / z0).real * -1, (-1 / z0).imag] * 3)
        for eps in REFERENCE_EPS_SCHEDULE:
            guess = root(equations, guess, args=(lam_k + 1j * eps,), method="lm").x
        out.append(guess[1] / np.pi)
    return np.asarray(out)


# ------------------------------------------------------------------------------ domain scan
#: The box ``solve rmt`` advertises (paper_checks/solve.py RMT_PSI_RANGE, RMT_T_RANGE).
DOMAIN_PSI = (1.0, 4096.0)
DOMAIN_T = (1e-3, 3.0)


def domain_sample(
    n: int,
    seed: int = 0,
    *,
    psi_p: tuple[float, float] = DOMAIN_PSI,
    psi_n: tuple[float, float] = DOMAIN_PSI,
    t: tuple[float, float] = DOMAIN_T,
) -> NDArray[np.float64]:
    """``n`` points (ψ_p, ψ_n, t) drawn log-uniformly from the box ψ_p ∈ ``psi_p``, ψ_n ∈
    ``psi_n``, t ∈ ``t`` (default: the whole box :data:`DOMAIN_PSI`² × :data:`DOMAIN_T`; a fixed
    draw for a given seed).

    Parameters
    ----------
    n : int
        Number of points.
    seed : int
        Seed of the draw.
    psi_p, psi_n, t : tuple of float
        (low, high) of each coordinate.

    Returns
    -------
    numpy.ndarray of float, (n, 3)
        One row (ψ_p, ψ_n, t) per point.

    Examples
    --------
    >>> from theory.rmt import DOMAIN_T, domain_sample
    >>> points = domain_sample(3, seed=1)
    >>> points.shape, bool(((points[:, :2] >= 1) & (points[:, :2] <= 4096)).all())
    ((3, 3), True)
    >>> bool(((points[:, 2] >= DOMAIN_T[0]) & (points[:, 2] <= DOMAIN_T[1])).all())
    True
    """
    n = _domain.integer("n", n, minimum=1)
    seed = _domain.integer("seed", seed, minimum=0)
    for name, span in (("psi_p", psi_p), ("psi_n", psi_n), ("t", t)):
        low_high = _domain.reals(name, span, ndim=1, minimum=0.0, open_low=True)
        if low_high.shape != (2,) or low_high[0] > low_high[1]:
            raise ValueError(f"{name} must be a range (low, high) with low ≤ high (got {span!r})")
    rng = np.random.default_rng(seed)
    lo = np.log([psi_p[0], psi_n[0], t[0]])
    hi = np.log([psi_p[1], psi_n[1], t[1]])
    return np.exp(lo + (hi - lo) * rng.random((n, 3)))


def domain_scan(
    points: NDArray[np.float64],
    *,
    spectrum_points: int = 1000,
    mass_levels: int = MASS_LEVELS,
    fine_points: int | None = None,
) -> list[dict]:
    """:func:`rf_spectrum` at each (ψ_p, ψ_n, t) row: its total mass, whether it passed its
    self-check, its unconverged points, its bulks' masses and the CPU seconds it took. With
    ``fine_points``, the same spectrum on a grid of that many points too: its masses
    (``fine_masses``) and whether the bulk structure is the same on both grids
    (``same_structure``: as many bulks, each mass within :data:`SELF_CHECK_MASS_TOL`).

    Parameters
    ----------
    points : numpy.ndarray of float, (N, 3)
        Rows (ψ_p, ψ_n, t), as :func:`domain_sample` draws them.
    spectrum_points : int
        The grid of each :func:`rf_spectrum`.
    mass_levels : int
        Levels of the adaptive quadrature of each bulk's mass.
    fine_points : int, optional
        A second, finer grid to compare with.

    Returns
    -------
    list of dict
        Per row: ``psi_p``, ``psi_n``, ``t``, ``total_mass``, ``passed``, ``unconverged``,
        ``masses`` and ``cpu_s`` (and ``fine_masses``, ``same_structure`` with ``fine_points``).

    Raises
    ------
    ValueError
        Naming ``points`` unless it is an (N, 3) array of positive finite reals (N = 0 gives
        no rows), ``spectrum_points`` or ``fine_points`` unless an integer ≥ 16 (the least grid
        of :func:`rf_spectrum`), or ``mass_levels`` unless an integer ≥ 0.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.rmt import domain_scan
    >>> [row] = domain_scan(np.array([[4.0, 2.0, 0.5]]), spectrum_points=200)
    >>> row["passed"], round(row["total_mass"], 6), [round(m, 4) for m in row["masses"]]
    (True, 1.0, [0.5, 0.25])
    """
    import time

    points = _domain.reals("points", points, ndim=2, minimum=0.0, open_low=True, nonempty=False)
    if points.shape[1] != 3:
        raise ValueError(f"points must hold rows (psi_p, psi_n, t) (got shape {points.shape})")
    spectrum_points = _domain.integer("spectrum_points", spectrum_points, minimum=16)
    mass_levels = _domain.integer("mass_levels", mass_levels, minimum=0)
    if fine_points is not None:
        fine_points = _domain.integer("fine_points", fine_points, minimum=16)

    def solve(psi_p: float, psi_n: float, t: float, grid: int) -> RFSpectrum:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpectrumSelfCheckWarning)
            return rf_spectrum(psi_p=psi_p, psi_n=psi_n, t=t, points=grid, mass_levels=mass_levels)

    rows = []
    for psi_p, psi_n, t in points:
        start = time.process_time()
        spec = solve(psi_p, psi_n, t, spectrum_points)
        row = {
            "psi_p": float(psi_p),
            "psi_n": float(psi_n),
            "t": float(t),
            "total_mass": spec.total_mass,
            "passed": spec.self_check_passed,
            "unconverged": spec.unconverged,
            "masses": [b.mass for b in spec.bulks],
            "cpu_s": time.process_time() - start,
        }
        if fine_points is not None:
            fine = [b.mass for b in solve(psi_p, psi_n, t, fine_points).bulks]
            row["fine_masses"] = fine
            row["same_structure"] = len(fine) == len(row["masses"]) and bool(
                np.all(np.abs(np.subtract(fine, row["masses"])) <= SELF_CHECK_MASS_TOL)
            )
        rows.append(row)
    return rows


# ------------------------------------------------ independent routes to the constants and edges
def rf_constants_direct(consts: RFConstants, *, nodes: int = 128) -> tuple[float, float]:
    """(b_t, v_t²) of Lemma C.1 of Bonnaire et al. (2025) straight from their definitions, for
    tanh: b_t = E[v σ(cu + √Δ v)] by 2-D and v_t² = E[σ(cu + √Δ v) σ(cu + √Δ w)] − a_t²c² by 3-D
    tensor Gauss–Hermite quadrature (u, v, w independent N(0, 1), c = e^{−t}σ_x, Δ = Δ_t), on
    ``nodes`` nodes per axis against the 96 of :func:`rf_constants` and without its
    conditional-mean shortcut: a second route to two of its constants.

    Parameters
    ----------
    consts : RFConstants
        The constants to check (their t, σ_x² and a_t are used).
    nodes : int
        Gauss–Hermite nodes per axis.

    Returns
    -------
    b, v2 : float
        b_t and v_t² by the direct route.

    Examples
    --------
    >>> from theory.rmt import rf_constants, rf_constants_direct
    >>> c = rf_constants(0.5)
    >>> b, v2 = rf_constants_direct(c)
    >>> abs(b - c.b) < 1e-10, abs(v2 - c.v2) < 1e-10
    (True, True)
    """
    c, noise = consts.decay * math.sqrt(consts.sigma_x2), math.sqrt(consts.delta)
    b = gaussian_expectation(lambda u, v: v * np.tanh(c * u + noise * v), dims=2, nodes=nodes)
    both = gaussian_expectation(
        lambda u, v, w: np.tanh(c * u + noise * v) * np.tanh(c * u + noise * w), dims=3, nodes=nodes
    )
    return b, both - (consts.a * c) ** 2


def half_unit_in_last_digit(value: float) -> float:
    """Half a unit in the last printed digit of ``value`` as ``repr`` prints it (0.08523 → 5e-6,
    5e-05 → 5e-6), enlarged by a relative 1e-9: how far a rounded table entry may lie from the
    number it rounds.

    Parameters
    ----------
    value : float
        A table entry.

    Returns
    -------
    float
        Half a unit in its last digit, times 1 + 1e-9.

    Raises
    ------
    ValueError
        Unless ``value`` is a finite real.

    Examples
    --------
    >>> from theory.rmt import half_unit_in_last_digit
    >>> half_unit_in_last_digit(0.08523), half_unit_in_last_digit(5e-05)
    (5.000000005000001e-06, 5.000000005000001e-06)
    """
    _domain.real("value", value)
    mantissa, _, exponent = repr(value).partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0)) * (1 + 1e-9)


@dataclass(frozen=True)
class ConstantsComparison:
    """:func:`compare_constants`: per t the constants against the table, and the two worst
    deviations."""

    #: One row per t: ``{"t", "ours": (a, b, v2, s2), "table", "within_rounding": [4 bools]}``.
    rows: list[dict]
    #: Largest |ours − table| in units of :func:`half_unit_in_last_digit` of the table entry.
    worst_fraction_of_rounding: float
    #: Largest |b_t − direct|, |v_t² − direct| (:func:`rf_constants_direct`).
    identity_error: float

    @property
    def within_rounding(self) -> int:
        """How many of the table's entries the constants reproduce within its rounding."""
        return sum(sum(r["within_rounding"]) for r in self.rows)


def compare_constants(
    table: dict[float, tuple[float, float, float, float]],
    constants: Callable[[float], RFConstants] = rf_constants,
) -> ConstantsComparison:
    """``constants(t)``'s (a_t, b_t, v_t², s_t²) against a rounded ``table`` {t: (a, b, v2, s2)},
    each within half a unit of the entry's last printed digit (:func:`half_unit_in_last_digit`),
    and its b_t, v_t² against :func:`rf_constants_direct`.

    Parameters
    ----------
    table : dict of float to tuple of 4 float
        t → (a_t, b_t, v_t², s_t²) as a reference prints them, rounded.
    constants : callable
        t → :class:`RFConstants` (default :func:`rf_constants`).

    Returns
    -------
    ConstantsComparison
        Per t the constants against the table, the worst distance in half-units, and the largest
        difference from the direct route.

    Examples
    --------
    >>> from theory.rmt import compare_constants
    >>> comparison = compare_constants({0.5: (0.6057, 0.4816, 0.0011, 0.0263)})
    >>> comparison.rows[0]["within_rounding"], comparison.worst_fraction_of_rounding < 1
    ([True, True, True, True], True)
    >>> comparison.identity_error < 1e-10
    True
    """
    if not hasattr(table, "items") or not len(table):
        raise ValueError(f"table must map at least one t to its four constants (got {table!r:.60})")
    if any(len(table[t]) != 4 for t in table):
        raise ValueError("table must give four constants (a, b, v², s²) for every t")
    rows, worst, identity_error = [], 0.0, 0.0
    for t, entries in table.items():
        k = constants(t)
        ours = (k.a, k.b, k.v2, k.s2)
        pairs = list(zip(ours, entries, strict=True))
        ok = [abs(o - e) <= half_unit_in_last_digit(e) for o, e in pairs]
        worst = max(worst, *(abs(o - e) / half_unit_in_last_digit(e) for o, e in pairs))
        b_direct, v2_direct = rf_constants_direct(k)
        identity_error = max(identity_error, abs(k.b - b_direct), abs(k.v2 - v2_direct))
        rows.append({"t": t, "ours": ours, "table": entries, "within_rounding": ok})
    return ConstantsComparison(rows, worst, identity_error)


@dataclass(frozen=True)
class StieltjesSanity:
    """:func:`stieltjes_sanity`: what a Stieltjes transform must satisfy, measured."""

    #: min Im q/|q| over the spectrum's grid (≥ 0 on the Herglotz branch, up to rounding).
    min_imag_q_over_abs_q: float
    #: Whether Newton converged at every grid point.
    converged: bool
    #: max |1 + z q(z)| on a half circle |z| = 10³·λ_max (q ~ −1/z far out).
    far_field_error: float
    #: −ζ q(ζ) at ζ = s_t² + 10⁻⁹ s_t² i: the delta's mass.
    delta_residue: float


def stieltjes_sanity(
    spec: Spectrum, stieltjes: Callable = rf_stieltjes, *, psi_p: float, psi_n: float, t: float
) -> StieltjesSanity:
    """The Herglotz sign of q on ``spec``'s grid, the far field q(z) ≈ −1/z at nine points of
    |z| = 10³·λ_max, and the residue −ζ q(ζ) of the delta at s_t² (ζ = 10⁻⁹ s_t² i above it),
    each from ``stieltjes`` (Theorem 3.1's q).

    Parameters
    ----------
    spec : Spectrum
        A spectrum of U (its grid and delta are read).
    stieltjes : callable
        :func:`rf_stieltjes` or a function with its signature.
    psi_p, psi_n : float
        ψ_p and ψ_n of ``spec``.
    t : float
        Diffusion time of ``spec``.

    Returns
    -------
    StieltjesSanity
        The three measurements and whether Newton converged.

    Examples
    --------
    >>> from theory.rmt import rf_spectrum, stieltjes_sanity
    >>> spec = rf_spectrum(psi_p=4.0, psi_n=2.0, t=0.5)
    >>> sanity = stieltjes_sanity(spec, psi_p=4.0, psi_n=2.0, t=0.5)
    >>> sanity.converged, sanity.min_imag_q_over_abs_q > -1e-12, sanity.far_field_error < 1e-3
    (True, True, True)
    >>> round(sanity.delta_residue, 6)  # the delta's mass, 1 − (1 + ψ_n)/ψ_p
    0.25
    """
    q_grid, _, converged = stieltjes(spec.lam, psi_p=psi_p, psi_n=psi_n, t=t)
    min_im = float(np.min(q_grid.imag / np.abs(q_grid)))
    far = 1e3 * spec.lam[-1] * np.exp(1j * np.linspace(0.05, np.pi - 0.05, 9))
    q_far, _, _ = stieltjes(far.real, psi_p=psi_p, psi_n=psi_n, t=t, eta=far.imag)
    far_error = float(np.max(np.abs(1 + far * q_far)))
    s2 = spec.delta_location
    zeta = 1e-9 * s2 * 1j
    q0, _, _ = stieltjes(np.array([s2]), psi_p=psi_p, psi_n=psi_n, t=t, eta=np.array([zeta.imag]))
    residue = float((-zeta * q0[0]).real)
    return StieltjesSanity(min_im, bool(np.all(converged)), far_error, residue)


@dataclass(frozen=True)
class PerPointComparison:
    """:func:`per_point_comparison`: the grid solver against :func:`rf_density_per_point`."""

    #: The grid solver's spectrum.
    spectrum: Spectrum
    #: The λ compared (inside the bulks).
    lam: NDArray[np.float64]
    #: The per-λ Levenberg–Marquardt density ρ at each of ``lam``.
    rho_per_point: NDArray[np.float64]
    #: max |ρ_grid − ρ_LM| / max(1, ρ_LM).
    max_relative_difference: float


def per_point_comparison(
    spectrum_fn: Callable, stieltjes: Callable, points: int, **model: Any
) -> PerPointComparison:
    """ρ = Im q(λ + 10⁻⁹ i)/π of ``stieltjes`` against the per-λ Levenberg–Marquardt continuation
    :func:`rf_density_per_point` at ``points`` λ spread evenly inside the bulks of
    ``spectrum_fn(**model)`` (Theorem 3.1, two independent solvers of the same equations).

    Parameters
    ----------
    spectrum_fn : callable
        :func:`rf_spectrum` or a function with its signature; its bulks place the λ.
    stieltjes : callable
        :func:`rf_stieltjes` or a function with its signature.
    points : int
        λ compared, spread over the bulks (the same number in each).
    **model
        ``psi_p``, ``psi_n``, ``t`` (and optionally ``spectrum``, ``activation``).

    Returns
    -------
    PerPointComparison
        The spectrum, the λ, the per-point densities and the largest relative difference.

    Examples
    --------
    >>> from theory.rmt import per_point_comparison, rf_spectrum, rf_stieltjes
    >>> comparison = per_point_comparison(rf_spectrum, rf_stieltjes, 2, psi_p=4.0, psi_n=2.0, t=0.5)
    >>> comparison.lam.size, comparison.max_relative_difference < 1e-8
    (2, True)
    """
    small = spectrum_fn(**model)
    lam = np.concatenate(
        [np.linspace(b.lower, b.upper, points // len(small.bulks) + 2)[1:-1] for b in small.bulks]
    )
    rho_ref = rf_density_per_point(lam, **model)
    q_ours, _, _ = stieltjes(lam, eta=1e-9, **model)
    rho_ours = q_ours.imag / np.pi
    agreement = float(np.max(np.abs(rho_ours - rho_ref) / np.maximum(1.0, rho_ref)))
    return PerPointComparison(small, lam, rho_ref, agreement)


def u_tilde_top_edges(psi_p: float, t: float) -> tuple[float, float]:
    """Edges of the top bulk of Ũ = a_t² W Σ_t Wᵀ/d + (v_t² + s_t²) I (Σ = I), the n → ∞ limit
    of ρ2: the nonzero eigenvalues of W Σ_t Wᵀ/d are ψ_p times a sample covariance with
    population Σ_t = e^{−2t}Σ + Δ_t I and ratio d/p = 1/ψ_p (Silverstein's equation).

    Parameters
    ----------
    psi_p : float
        ψ_p = p/d.
    t : float
        Diffusion time, > 0.

    Returns
    -------
    lower, upper : float
        The edges of Ũ's top bulk.

    Raises
    ------
    ValueError
        Unless ``psi_p`` and ``t`` are positive finite reals.

    Examples
    --------
    >>> from theory.rmt import u_tilde_top_edges
    >>> lower, upper = u_tilde_top_edges(64.0, 0.5)
    >>> round(lower, 3), round(upper, 3)
    (18.004, 29.745)
    """
    _domain.real("psi_p", psi_p, minimum=0.0, open_low=True)
    _domain.real("t", t, minimum=0.0, open_low=True)
    k = rf_constants(t)
    sigma_t = DataSpectrum.of([k.decay**2 + k.delta])
    bulk = sample_covariance_spectrum(ratio=1.0 / psi_p, spectrum=sigma_t).bulks[-1]
    shift = k.v2 + k.s2
    return k.a**2 * psi_p * bulk.lower + shift, k.a**2 * psi_p * bulk.upper + shift


def rho1_marchenko_pastur_edges(
    ratio: NDArray[np.float64], t: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The edges s_t² + v_t²(1 ∓ √r)² of ρ1 for r = ψ_p/ψ_n ≫ 1 (Σ = I, Theorem 3.1's regime
    ψ_p ≫ ψ_n ≫ 1): a Marchenko–Pastur law of ratio r and variance v_t², shifted by s_t².

    Parameters
    ----------
    ratio : numpy.ndarray of float
        r = ψ_p/ψ_n.
    t : float
        Diffusion time, > 0.

    Returns
    -------
    lower, upper : numpy.ndarray of float
        The edges, the shape of ``ratio``.

    Raises
    ------
    ValueError
        Unless ``ratio`` holds finite reals ≥ 0 and ``t`` is a positive finite real.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.rmt import rho1_marchenko_pastur_edges
    >>> lower, upper = rho1_marchenko_pastur_edges(np.array([64.0]), 0.5)
    >>> round(float(lower[0]), 4), round(float(upper[0]), 4)  # s_t² + v_t²·49, s_t² + v_t²·81
    (0.0814, 0.1174)
    """
    _domain.reals("ratio", ratio, minimum=0.0, nonempty=False)
    _domain.real("t", t, minimum=0.0, open_low=True)
    consts = rf_constants(t)
    lower = consts.s2 + consts.v2 * (1 - np.sqrt(ratio)) ** 2
    upper = consts.s2 + consts.v2 * (1 + np.sqrt(ratio)) ** 2
    return lower, upper


@dataclass(frozen=True)
class TwoBulks:
    """:func:`two_bulks`: the edges of ρ1 and ρ2 across ψ_n and ψ_p, and the laws they follow."""

    #: (lower, upper) edges of ρ1, one row per ψ_n.
    rho1_edges: NDArray[np.float64]
    #: (lower, upper) edges of ρ2, one row per ψ_n.
    rho2_edges: NDArray[np.float64]
    #: Power laws in ψ_n of ψ_p/λ at ρ1's lower and upper edge (their exponents ≈ 1: τ_mem ∝ ψ_n).
    rho1_fits: tuple[PowerLawFit, PowerLawFit]
    #: :func:`rho1_marchenko_pastur_edges` per ψ_n.
    mp_edges: NDArray[np.float64]
    #: The largest relative distance of ρ1's edges from ``mp_edges`` where ψ_p/ψ_n is large.
    mp_edge_max_relative_error: float
    #: ρ2's edges divided by ψ_p, one row per ψ_p of the scaling sweep.
    rho2_edges_over_psi_p: NDArray[np.float64]
    #: The largest relative spread of ``rho2_edges_over_psi_p`` across ψ_p.
    rho2_scale_spread: float
    #: :func:`u_tilde_top_edges` at the sweep's ψ_p.
    u_tilde_edges: NDArray[np.float64]
    #: Per ψ_n, the largest relative distance of ρ2's edges from ``u_tilde_edges``.
    rho2_distance_to_u_tilde: NDArray[np.float64]


def two_bulks(
    spectrum_fn: Callable,
    *,
    psi_p: float,
    psi_ns: NDArray[np.float64],
    psi_ps: Sequence[float],
    t: float,
    mp_from_ratio: float = 64.0,
) -> TwoBulks:
    """The two bulks of U for ψ_p ≫ ψ_n ≫ 1 (Theorem 3.1's regime), from ``spectrum_fn``
    (:func:`rf_spectrum`'s signature, Σ = I): at ``psi_p`` and each of ``psi_ns``, ρ1 (the bulk
    whose mass is nearest (ψ_n − 1)/ψ_p) and ρ2 (the top bulk); the power laws of ψ_p/λ at ρ1's
    edges in ψ_n; ρ1's edges against :func:`rho1_marchenko_pastur_edges` where
    ψ_p/ψ_n ≥ ``mp_from_ratio``; ρ2's edges over ψ_p at ψ_n = 16 across ``psi_ps``; and ρ2's
    distance to the edges of Ũ (:func:`u_tilde_top_edges`, its n → ∞ limit).

    Parameters
    ----------
    spectrum_fn : callable
        :func:`rf_spectrum` or a function with its signature.
    psi_p : float
        ψ_p of the ψ_n sweep.
    psi_ns : numpy.ndarray of float
        The ψ_n swept (at least 3, for the power-law fits), each with ψ_p ≫ ψ_n ≫ 1.
    psi_ps : sequence of float
        The ψ_p of ρ2's scaling sweep at ψ_n = 16.
    t : float
        Diffusion time, > 0.
    mp_from_ratio : float
        The smallest ψ_p/ψ_n at which ρ1's edges are compared with Marchenko–Pastur's.

    Returns
    -------
    TwoBulks
        The edges of ρ1 and ρ2, the fits and the distances to their limits.

    Examples
    --------
    The claim ``diffusion.two_bulks_scaling`` runs it at ψ_p up to 4096 (a spectrum per ψ_n and
    per ψ_p: seconds, so this example is not run by the doctests):

    >>> import numpy as np
    >>> from theory.rmt import rf_spectrum, two_bulks
    >>> bulks = two_bulks(rf_spectrum, psi_p=4096.0, psi_ns=np.array([16.0, 32.0, 64.0]),
    ...                   psi_ps=[1024.0, 4096.0], t=0.01)  # doctest: +SKIP
    >>> bulks.rho1_fits[0].exponent  # doctest: +SKIP
    """
    _domain.real("psi_p", psi_p, minimum=1.0, open_low=True)
    _domain.reals("psi_ns", psi_ns, ndim=1, minimum=1.0, open_low=True)
    _domain.reals("psi_ps", psi_ps, ndim=1, minimum=1.0, open_low=True)
    _domain.real("mp_from_ratio", mp_from_ratio, minimum=0.0, open_low=True)
    if not isinstance(psi_ns, np.ndarray) or psi_ns.size < 2:
        raise ValueError(f"psi_ns must be a numpy array of ≥ 2 values (got {psi_ns!r:.60})")
    rows = []
    for psi_n in psi_ns:
        spec = spectrum_fn(psi_p=psi_p, psi_n=psi_n, t=t)
        masses = np.array([b.mass for b in spec.bulks])
        rho1 = spec.bulks[int(np.argmin(np.abs(masses - (psi_n - 1) / psi_p)))]
        rho2 = spec.bulks[-1]
        rows.append((rho1.lower, rho1.upper, rho2.lower, rho2.upper))
    rho1_lo, rho1_hi, rho2_lo, rho2_hi = np.array(rows).T
    fit_lo = fit_power_law(psi_ns, psi_p / rho1_lo, n_boot=0)
    fit_hi = fit_power_law(psi_ns, psi_p / rho1_hi, n_boot=0)
    ratio = psi_p / psi_ns
    mp_lo, mp_hi = rho1_marchenko_pastur_edges(ratio, t)
    asym = np.tile(ratio >= mp_from_ratio, 2)
    mp_error = float(
        np.max(np.abs(np.concatenate([rho1_lo / mp_lo - 1, rho1_hi / mp_hi - 1])[asym]))
    )
    scaled = np.array(
        [
            [b.lower / pp, b.upper / pp]
            for pp in np.asarray(psi_ps, dtype=float)
            for b in [spectrum_fn(psi_p=pp, psi_n=16.0, t=t).bulks[-1]]
        ]
    )
    limit = np.array(u_tilde_top_edges(psi_p, t))
    return TwoBulks(
        rho1_edges=np.array([rho1_lo, rho1_hi]).T,
        rho2_edges=np.array([rho2_lo, rho2_hi]).T,
        rho1_fits=(fit_lo, fit_hi),
        mp_edges=np.array([mp_lo, mp_hi]).T,
        mp_edge_max_relative_error=mp_error,
        rho2_edges_over_psi_p=scaled,
        rho2_scale_spread=float(np.max(np.ptp(scaled, axis=0) / scaled.min(axis=0))),
        u_tilde_edges=limit,
        rho2_distance_to_u_tilde=np.max(np.abs(np.array([rho2_lo, rho2_hi]).T / limit - 1), axis=1),
    )
