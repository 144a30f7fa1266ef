"""Theory of "Superposition Yields Robust Neural Scaling" (Liu, Liu & Gore, NeurIPS 2025, arXiv
2505.10465), written out in docs/superposition.md#weak-and-strong-superposition.

The toy model (docs/superposition.md#the-toy-model): x_i = u_i·v_i with u_i ~ Bernoulli(p_i) and
v_i ~ U(0, 2), so ⟨v⟩ = 1 and ⟨v²⟩ = 4/3; y = ReLU(W Wᵀ x + b) with W ∈ R^(n×m); the loss
L = ⟨‖y − x‖²⟩ is summed over features (paper convention; the code's MSE is L / n).

Here: feature-frequency laws normalised to an activation density E = Σ p_i; the weak-regime loss
of a set of kept features and its finite-n ideal (the paper's Fig. 4); statistics of squared
overlaps of random unit vectors (Beta law), the Welch bound and the simplex ETF (Fig. 5); the
semi-analytic one-active-feature loss of eq. (8) with its gradient; and the LLM arithmetic of the
paper's §5 (Fig. 6, Chinchilla). No sampling here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from theory import _domain

__all__ = [
    "FREQUENCY_LAWS",
    "MEAN_V",
    "MEAN_V2",
    "ExponentEstimate",
    "chinchilla_width_exponent",
    "feature_frequencies",
    "one_active_loss",
    "one_active_loss_and_grad",
    "random_overlap_mean",
    "random_overlap_variance",
    "simplex_etf",
    "squared_overlaps",
    "weak_ideal_loss",
    "weak_loss",
    "welch_bound",
]

MEAN_V = 1.0  # ⟨v⟩ for v ~ U(0, 2)
MEAN_V2 = 4.0 / 3.0  # ⟨v²⟩
FREQUENCY_LAWS = ("power", "exponential", "linear")


# --------------------------------------------------------------------------- feature frequencies
def feature_frequencies(
    n: int, alpha: float = 1.0, *, law: str = "power", density: float = 1.0, scale: float = 400.0
) -> NDArray[np.float64]:
    r"""Feature frequencies p_1 ≥ … ≥ p_n normalised to Σ p_i = E (``density``).

    - ``power``: p_i ∝ i^(−α) (paper α; the code's ``alpha`` is α − 1).
    - ``exponential``: p_i ∝ exp(−i/scale) (the paper's large runs use scale 400).
    - ``linear``: p_i ∝ (n − i)/n (so p_n = 0: feature n never fires).

    Parameters
    ----------
    n : int
        Number of features.
    alpha : float
        The paper's exponent α of the power law.
    law : str
        ``power``, ``exponential`` or ``linear``.
    density : float
        E = Σ p_i, the expected number of active features per sample.
    scale : float
        The exponential law's scale.

    Returns
    -------
    numpy.ndarray of float, (n,)
        p_1 ≥ … ≥ p_n.

    Raises
    ------
    ValueError
        If some p_i would exceed 1 (E too large for the law), and unless ``n`` is a positive
        integer, ``alpha`` a finite real ≥ 0, ``density`` and ``scale`` finite and > 0 and
        ``law`` one of :data:`FREQUENCY_LAWS`.

    Examples
    --------
    >>> from theory.superposition import feature_frequencies
    >>> feature_frequencies(4, 1.0).round(4)  # ∝ 1/i, summing to 1
    array([0.48, 0.24, 0.16, 0.12])
    >>> feature_frequencies(4, law="linear", density=0.5).round(4)
    array([0.25  , 0.1667, 0.0833, 0.    ])
    """
    _domain.integer("n", n, minimum=1)
    _domain.real("alpha", alpha, minimum=0.0)
    _domain.real("density", density, minimum=0.0, open_low=True)
    i = np.arange(1, n + 1, dtype=np.float64)
    if law == "power":
        weights = i**-alpha
    elif law == "exponential":
        _domain.real("scale", scale, minimum=0.0, open_low=True)
        weights = np.exp(-i / scale)
    elif law == "linear":
        weights = (n - i) / n if n > 1 else np.ones(1)
    else:
        raise ValueError(f"law must be one of {', '.join(FREQUENCY_LAWS)} (got {law!r})")
    p = density * weights / weights.sum()
    if p[0] > 1.0 + 1e-12:
        raise ValueError(
            f"density={density!r} is too large for this law: p_1 = {p[0]:.3g} > 1 (max E = "
            f"{weights.sum() / weights[0]:.4g})"
        )
    return np.minimum(p, 1.0)


# ------------------------------------------------------------------------------- weak regime
def weak_loss(p: ArrayLike, kept: ArrayLike) -> float:
    r"""Loss of the weak-superposition model that represents exactly the ``kept`` features.

    With perfect reconstruction of kept features and the optimal bias b_i = ⟨x_i⟩ = p_i for the
    dropped ones (the paper's §3), each dropped feature costs Var(x_i) = ⟨v²⟩p_i − ⟨v⟩²p_i²:

    .. math:: L = \sum_{i \notin \text{kept}} \left(\tfrac43 p_i - p_i^2\right).

    ``kept`` is a boolean mask of length n.

    Parameters
    ----------
    p : array_like of float, (n,)
        Feature frequencies.
    kept : array_like of bool, (n,)
        The represented features.

    Returns
    -------
    float
        L.

    Raises
    ------
    ValueError
        Unless ``p`` holds finite frequencies in [0, 1] and ``kept`` is a boolean mask of its
        shape.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.superposition import feature_frequencies, weak_loss
    >>> p = feature_frequencies(4, 1.0)
    >>> round(weak_loss(p, np.array([True, True, False, False])), 4)  # = weak_ideal_loss(p, 2)
    0.3333
    """
    _domain.reals("p", p, minimum=0.0, maximum=1.0, nonempty=False)
    if np.asarray(kept).dtype != np.bool_:
        raise ValueError(f"kept must be a boolean mask (got {kept!r})")
    p = np.asarray(p, dtype=np.float64)
    kept = np.asarray(kept, dtype=bool)
    if kept.shape != p.shape:
        raise ValueError(f"kept must have the shape of p {p.shape} (got {kept.shape})")
    dropped = p[~kept]
    return float(np.sum(MEAN_V2 * dropped - MEAN_V**2 * dropped**2))


def weak_ideal_loss(p: ArrayLike, m: ArrayLike) -> NDArray[np.float64]:
    r"""The finite-n weak ideal: the m most frequent features kept, the rest dropped,

    .. math:: L(m) = \sum_{i > m} \left(\tfrac43 p_i - p_i^2\right)

    for frequencies sorted in decreasing order (the paper's Fig. 4 comparison). Vectorised in m.
    Its log-log slope at finite n is steeper than the n → ∞ value α − 1
    (docs/superposition.md#weak-and-strong-superposition).

    Parameters
    ----------
    p : array_like of float, (n,)
        Feature frequencies (any order).
    m : array_like of int
        Widths, in [0, n].

    Returns
    -------
    numpy.ndarray of float
        L(m), the shape of ``m``.

    Raises
    ------
    ValueError
        Unless ``p`` is a 1-D array of finite frequencies in [0, 1] and every m a whole number
        in [0, n].

    Examples
    --------
    >>> import numpy as np
    >>> from theory.superposition import feature_frequencies, weak_ideal_loss
    >>> weak_ideal_loss(feature_frequencies(4, 1.0), np.array([0, 2, 4])).round(4)
    array([1.0053, 0.3333, 0.    ])
    """
    _domain.reals("p", p, ndim=1, minimum=0.0, maximum=1.0, nonempty=False)
    _domain.reals("m", m, minimum=0.0, nonempty=False)
    if (np.asarray(m) != np.floor(m)).any():
        raise ValueError(f"m must be whole numbers of features (got {m!r})")
    p = np.sort(np.asarray(p, dtype=np.float64))[::-1]
    cost = MEAN_V2 * p - MEAN_V**2 * p**2
    tail = np.concatenate([np.cumsum(cost[::-1])[::-1], [0.0]])  # tail[k] = Σ_{i ≥ k} cost_i
    m = np.asarray(m)
    if np.any(m < 0) or np.any(m > p.size):
        raise ValueError(f"m must lie in [0, n={p.size}] (got {m})")
    return tail[m.astype(np.int64)]


# ------------------------------------------------------------------------ strong regime geometry
def random_overlap_mean(m: ArrayLike) -> NDArray[np.float64] | float:
    r"""E[(w·w′)²] = 1/m for independent uniform unit vectors in R^m ((w·w′)² ~ Beta(1/2, (m−1)/2)).

    Parameters
    ----------
    m : array_like of int
        Dimension, ≥ 1.

    Returns
    -------
    numpy.ndarray of float or float
        1/m.

    Raises
    ------
    ValueError
        Unless every m is a finite real ≥ 1.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.superposition import random_overlap_mean
    >>> random_overlap_mean(np.array([4, 16]))
    array([0.25  , 0.0625])
    """
    _domain.reals("m", m, minimum=1.0, nonempty=False)
    return 1.0 / np.asarray(m, dtype=np.float64)


def random_overlap_variance(m: ArrayLike) -> NDArray[np.float64] | float:
    r"""Var[(w·w′)²] = 2(m−1) / (m²(m+2)), the variance of Beta(1/2, (m−1)/2).

    Parameters
    ----------
    m : array_like of int
        Dimension, ≥ 1.

    Returns
    -------
    numpy.ndarray of float or float
        2(m − 1)/(m²(m + 2)).

    Raises
    ------
    ValueError
        Unless every m is a finite real ≥ 1.

    Examples
    --------
    >>> from theory.superposition import random_overlap_variance
    >>> float(random_overlap_variance(4))  # 2·3/(16·6)
    0.0625
    """
    _domain.reals("m", m, minimum=1.0, nonempty=False)
    m = np.asarray(m, dtype=np.float64)
    return 2.0 * (m - 1.0) / (m**2 * (m + 2.0))


def welch_bound(n_vectors: ArrayLike, m: ArrayLike) -> NDArray[np.float64] | float:
    r"""Welch bound on the coherence of ν unit vectors in R^m (ν > m):

    .. math:: \max_{i \neq j} |w_i\cdot w_j| \;\ge\; \kappa = \sqrt{\frac{\nu - m}{m(\nu - 1)}},

    with equality only for an equiangular tight frame.

    Parameters
    ----------
    n_vectors : array_like of int
        ν, the number of vectors (> m).
    m : array_like of int
        The dimension.

    Returns
    -------
    numpy.ndarray of float or float
        κ.

    Raises
    ------
    ValueError
        Unless ``n_vectors`` and ``m`` are finite reals ≥ 1 with ν > m.

    Examples
    --------
    >>> from theory.superposition import welch_bound
    >>> float(welch_bound(3, 2))  # attained by the simplex ETF: cosines −1/2
    0.5
    """
    _domain.reals("n_vectors", n_vectors, minimum=1.0, nonempty=False)
    _domain.reals("m", m, minimum=1.0, nonempty=False)
    nu = np.asarray(n_vectors, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    if np.any(nu <= m):
        raise ValueError("n_vectors must exceed m for the Welch bound")
    return np.sqrt((nu - m) / (m * (nu - 1.0)))


def simplex_etf(m: int) -> NDArray[np.float64]:
    r"""The regular simplex: m + 1 unit vectors in R^m with w_i·w_j = −1/m for i ≠ j.

    Built as the centred standard basis of R^(m+1), normalised, expressed in an orthonormal basis
    of the hyperplane Σ x = 0 (QR). It is an ETF and attains the Welch bound κ = 1/m.

    Parameters
    ----------
    m : int
        Dimension, ≥ 1.

    Returns
    -------
    numpy.ndarray of float, (m + 1, m)
        The vectors, one per row.

    Examples
    --------
    >>> from theory.superposition import simplex_etf
    >>> w = simplex_etf(2)
    >>> w.shape, (w @ w.T).round(4).tolist()
    ((3, 2), [[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]])
    """
    _domain.integer("m", m, minimum=1)
    centred = np.eye(m + 1) - 1.0 / (m + 1)  # (m+1, m+1), rows sum to 0
    basis, _ = np.linalg.qr(centred[:, :m])  # (m+1, m): orthonormal basis of the hyperplane
    vectors = centred @ basis  # (m+1, m)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def squared_overlaps(rows: ArrayLike) -> NDArray[np.float64]:
    """(Ŵ_i·Ŵ_j)² for i < j, where Ŵ_i = W_i/‖W_i‖ (rows with zero norm are dropped).

    Parameters
    ----------
    rows : array_like of float, (ν, m)
        The vectors W_i, one per row.

    Returns
    -------
    numpy.ndarray of float
        The ν(ν − 1)/2 squared cosines (i < j) of the nonzero rows.

    Raises
    ------
    ValueError
        Unless ``rows`` is a 2-D array of finite reals.

    Examples
    --------
    >>> from theory.superposition import simplex_etf, squared_overlaps
    >>> squared_overlaps(simplex_etf(2)).round(4)  # the Welch bound's κ² = 1/4, three times
    array([0.25, 0.25, 0.25])
    """
    _domain.reals("rows", rows, ndim=2, nonempty=False)
    rows = np.asarray(rows, dtype=np.float64)
    norms = np.linalg.norm(rows, axis=1)
    unit = rows[norms > 0] / norms[norms > 0, None]
    gram = unit @ unit.T
    upper = np.triu_indices(unit.shape[0], k=1)
    return gram[upper] ** 2


# ------------------------------------------------------------------------- eq. (8): one active
def _active_interval(a: NDArray, c: NDArray) -> tuple[NDArray, NDArray]:
    """[lo, hi] ⊂ [0, 2] where a·v + c > 0 (empty: lo = hi)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.where(a != 0, -c / np.where(a != 0, a, 1.0), 0.0)
    root = np.clip(root, 0.0, 2.0)
    lo = np.where(a > 0, root, 0.0)
    hi = np.where(a > 0, 2.0, np.where(a < 0, root, np.where(c > 0, 2.0, 0.0)))
    return lo, np.maximum(hi, lo)


def _relu_moments(a: NDArray, c: NDArray) -> tuple[NDArray, ...]:
    """E ReLU(av+c)², E[v·ReLU(av+c)], E[ReLU(av+c)], E[v²·1_active], E[v·1_active] for
    v ~ U(0, 2) (density 1/2)."""
    lo, hi = _active_interval(a, c)

    def integral(power: int) -> NDArray:  # ½∫_lo^hi v^power dv
        return (hi ** (power + 1) - lo ** (power + 1)) / (2 * (power + 1))

    i0, i1, i2 = (integral(k) for k in range(3))
    sq = a * a * i2 + 2 * a * c * i1 + c * c * i0  # E ReLU(av+c)²
    v_relu = a * i2 + c * i1  # E[v ReLU(av+c)]
    relu = a * i1 + c * i0  # E[ReLU(av+c)]
    return sq, v_relu, relu, i2, i1


def one_active_loss_and_grad(
    W: ArrayLike, b: ArrayLike, p: ArrayLike
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    r"""The semi-analytic loss of eq. (8) and its gradient in (W, b).

    Exactly one feature is active per sample (feature i with probability p_i / Σp). With
    G = W Wᵀ, v ~ U(0, 2):

    .. math:: L = \sum_i \frac{p_i}{\sum p}\Big[\sum_{j \ne i} A(G_{ji}, b_j) + D(G_{ii}, b_i)\Big],
              \quad A(a, c) = E_v\,\mathrm{ReLU}(av + c)^2,
              \quad D(a, c) = E_v(\mathrm{ReLU}(av + c) - v)^2 = \tfrac43 - 2E[v\,\mathrm{ReLU}] + A.

    The integrands vanish at the moving edge of the active interval, so ∂A/∂a = 2E[v ReLU],
    ∂A/∂c = 2E[ReLU], ∂D/∂a = ∂A/∂a − 2E[v²·1_active], ∂D/∂c = ∂A/∂c − 2E[v·1_active].
    Then ∂L/∂W = (S + Sᵀ)W with S_ji = ∂L/∂G_ji. O(n²m) per call, noise-free (the paper's eq. 8).

    Parameters
    ----------
    W : array_like of float, (n, m)
        The weights.
    b : array_like of float, (n,)
        The biases.
    p : array_like of float, (n,)
        The feature frequencies.

    Returns
    -------
    loss : float
        L of eq. (8).
    grad_W : numpy.ndarray of float, (n, m)
        ∂L/∂W.
    grad_b : numpy.ndarray of float, (n,)
        ∂L/∂b.

    Raises
    ------
    ValueError
        Unless ``W`` is a non-empty 2-D array of finite reals and ``b`` and ``p`` hold one
        finite real per row of ``W``, ``p`` frequencies ≥ 0 with a positive sum.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.superposition import one_active_loss_and_grad
    >>> p = np.array([0.5, 0.5])
    >>> loss, grad_W, grad_b = one_active_loss_and_grad(np.eye(2), np.zeros(2), p)
    >>> loss, bool(np.all(grad_W == 0)), bool(np.all(grad_b == 0))  # a minimum
    (0.0, True, True)
    """
    _domain.reals("W", W, ndim=2)
    _domain.reals("b", b, ndim=1)
    _domain.reals("p", p, ndim=1, minimum=0.0)
    if len(b) != len(W):
        raise ValueError(f"b must hold one bias per row of W, {len(W)} (got {len(b)})")
    if len(p) != len(W):
        raise ValueError(f"p must hold one frequency per row of W, {len(W)} (got {len(p)})")
    if sum(p) == 0:
        raise ValueError("p must have a positive sum (got all zeros)")
    W = np.asarray(W, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    q = np.asarray(p, dtype=np.float64)
    q = q / q.sum()
    gram = W @ W.T  # (n, n), G_ji = W_j·W_i
    c = np.broadcast_to(b[:, None], gram.shape)  # bias of the output j (row index)
    sq, v_relu, relu, v2_act, v_act = _relu_moments(gram, c)
    diag = np.eye(gram.shape[0], dtype=bool)
    per_pair = np.where(diag, MEAN_V2 - 2 * v_relu + sq, sq)  # A off the diagonal, D on it
    loss = float(per_pair.sum(axis=0) @ q)  # Σ_i q_i Σ_j A/D(G_ji, b_j)
    d_a = 2 * v_relu - np.where(diag, 2 * v2_act, 0.0)  # ∂/∂G_ji
    d_c = 2 * relu - np.where(diag, 2 * v_act, 0.0)  # ∂/∂b_j
    s = d_a * q[None, :]  # (n, n): S_ji
    grad_W = (s + s.T) @ W
    grad_b = d_c @ q
    return loss, grad_W, grad_b


def one_active_loss(W: ArrayLike, b: ArrayLike, p: ArrayLike) -> float:
    """The eq. (8) loss alone (see :func:`one_active_loss_and_grad`).

    Parameters
    ----------
    W : array_like of float, (n, m)
        The weights.
    b : array_like of float, (n,)
        The biases.
    p : array_like of float, (n,)
        The feature frequencies.

    Returns
    -------
    float
        L of eq. (8).

    Raises
    ------
    ValueError
        As :func:`one_active_loss_and_grad`.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.superposition import one_active_loss
    >>> p = np.array([0.5, 0.5])
    >>> one_active_loss(np.eye(2), np.zeros(2), p)  # both features represented: no loss
    0.0
    >>> round(one_active_loss(np.zeros((2, 1)), np.zeros(2), p), 6)  # none: E v² = 4/3
    1.333333
    """
    return one_active_loss_and_grad(W, b, p)[0]


# -------------------------------------------------------------------------------------- LLMs
@dataclass(frozen=True)
class ExponentEstimate:
    """An exponent with its 1-σ uncertainty, by quadrature and by the linear (worst-case) sum."""

    #: The exponent.
    value: float
    #: Its 1-σ uncertainty, the inputs' errors added in quadrature.
    sigma: float
    #: Its 1-σ uncertainty, the inputs' errors added linearly (worst case).
    sigma_linear: float


def chinchilla_width_exponent(
    width_power: float = 2.52,
    width_power_sigma: float = 0.03,
    alpha_n: float = 0.35,
    alpha_n_sigma: float = 0.02,
) -> ExponentEstimate:
    r"""α_m implied by Chinchilla: if N ∝ m^k and L ∝ N^(−α_N) then L ∝ m^(−k·α_N), so

    .. math:: \alpha_m = k\,\alpha_N, \qquad
              \sigma^2 = (\alpha_N\sigma_k)^2 + (k\,\sigma_{\alpha_N})^2 \text{ (quadrature)},
              \quad \sigma_{lin} = \alpha_N\sigma_k + k\,\sigma_{\alpha_N}.

    Defaults: k = 2.52 ± 0.03 and α_N = 0.35 ± 0.02 (paper §5; the paper quotes 0.88 ± 0.06).

    Parameters
    ----------
    width_power, width_power_sigma : float
        k, the exponent of N ∝ m^k, and its standard error.
    alpha_n, alpha_n_sigma : float
        α_N, Chinchilla's loss exponent in N, and its standard error.

    Returns
    -------
    ExponentEstimate
        α_m = k·α_N with its standard error in quadrature (``sigma``) and linearly added
        (``sigma_linear``).

    Raises
    ------
    ValueError
        Unless the four are finite reals, the two standard errors ≥ 0.

    Examples
    --------
    >>> from theory.superposition import chinchilla_width_exponent
    >>> estimate = chinchilla_width_exponent()
    >>> round(estimate.value, 3), round(estimate.sigma, 3), round(estimate.sigma_linear, 3)
    (0.882, 0.051, 0.061)
    """
    _domain.real("width_power", width_power)
    _domain.real("width_power_sigma", width_power_sigma, minimum=0.0)
    _domain.real("alpha_n", alpha_n)
    _domain.real("alpha_n_sigma", alpha_n_sigma, minimum=0.0)
    value = width_power * alpha_n
    parts = (alpha_n * width_power_sigma, width_power * alpha_n_sigma)
    return ExponentEstimate(value, math.hypot(*parts), sum(parts))
