"""Sharpening against tilting: pass@k of a base model and of an RL-trained one whose success
probabilities are a map of the base's, on fixed quadrature grids (no sampling).

The KL-regularised optimum for a binary reward tilts each problem's success probability,
logit q = logit p + 1/β, so RL's pass@k stays at or above the base's at every k; a sharpening
map, logit q = α·logit p + β with α > 1, gains at k = 1 and falls below the base at a finite
k* (the behaviour Yue et al. 2025, arXiv 2504.13837, report for RLVR-trained models; the
derivations are set out in docs/rlvr.md). The pass@k formulas are those of :mod:`theory.passk`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from theory import _domain, passk
from theory.fits import PowerLawFit, fit_power_law

__all__ = [
    "PassAtKPair",
    "TiltGaps",
    "beta_sharpening",
    "failure_slopes",
    "logit_affine_sharpening",
    "p_distribution_family",
    "pass_at_k_pair",
    "tilt_gaps",
    "two_type_sharpening",
]


def p_distribution_family(points: int = 2000) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Discrete success-probability distributions ``(label, p, weights)`` for the theory claims:
    Beta laws on a quantile grid, and mixtures with atoms at p = 0 (unsolvable problems) and
    p = 1 (always solved).

    Parameters
    ----------
    points : int
        Quantile points per Beta law.

    Returns
    -------
    list of tuple
        ``(label, p, weights)`` per distribution, weights summing to 1.

    Raises
    ------
    ValueError
        Unless ``points`` is a positive integer.

    Examples
    --------
    >>> from theory.sharpening import p_distribution_family
    >>> family = p_distribution_family(200)
    >>> len(family), family[1][0], round(float(family[1][2].sum()), 6)
    (12, '0.2·δ0 + 0.7·Beta(0.1,1) + 0.1·δ1', 1.0)
    """
    points = _domain.integer("points", points, minimum=1)
    u = (np.arange(points) + 0.5) / points
    family = []
    for a, b in [(0.1, 1.0), (0.3, 1.5), (1.0, 1.0), (2.0, 0.5), (0.5, 5.0), (5.0, 2.0)]:
        p = stats.beta(a, b).ppf(u)
        family.append((f"Beta({a:g},{b:g})", p, np.full(points, 1.0 / points)))
        atoms = np.concatenate([[0.0], p, [1.0]])
        weights = np.concatenate([[0.2], np.full(points, 0.7 / points), [0.1]])
        family.append((f"0.2·δ0 + 0.7·Beta({a:g},{b:g}) + 0.1·δ1", atoms, weights))
    return family


@dataclass(frozen=True)
class TiltGaps:
    """How far a map p → q of success probabilities falls below the base, over a family of
    p distributions and a grid of β."""

    #: (distributions, β): min over k of Δ(k) = pass@k(q) − pass@k(p).
    min_delta: np.ndarray
    #: min over every distribution, β and p of q − p.
    min_lift: float
    #: whether q = 0 exactly where p = 0, for every distribution and β.
    support_kept: bool


def tilt_gaps(
    family: Sequence[tuple[str, np.ndarray, np.ndarray]],
    tilt: Callable[[np.ndarray, float], np.ndarray],
    betas: Sequence[float],
    ks: np.ndarray,
) -> TiltGaps:
    """Apply ``tilt(p, β)`` to every distribution ``(label, p, weights)`` of ``family`` and every
    β of ``betas``, and compare the pass@k curves Σ_i w_i [1 − (1 − q_i)^k] with the base's on
    ``ks``. For the exact tilt, logit q = logit p + 1/β, q ≥ p pointwise, so Δ(k) ≥ 0 at every k
    and p = 0 stays 0.

    Parameters
    ----------
    family : sequence of tuple
        ``(label, p, weights)`` distributions (:func:`p_distribution_family`).
    tilt : callable
        (p, β) → q, e.g. :func:`theory.passk.tilt`.
    betas : sequence of float
        The β applied.
    ks : numpy.ndarray of int
        Budgets.

    Returns
    -------
    TiltGaps
        min over k of Δ(k) per (distribution, β), the smallest lift q − p and whether p = 0
        stayed 0.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import tilt
    >>> from theory.sharpening import p_distribution_family, tilt_gaps
    >>> gaps = tilt_gaps(p_distribution_family(200)[:2], tilt, [0.5, 1.0], np.array([1, 16]))
    >>> bool((gaps.min_delta >= 0).all()), gaps.support_kept  # the tilt never crosses
    (True, True)
    """
    min_delta = np.empty((len(family), len(betas)))
    min_lift = np.inf
    support_kept = True
    for i, (_, p, w) in enumerate(family):
        base = passk.pass_at_k_curve_exact(p, ks, weights=w)
        for j, beta in enumerate(betas):
            q = np.asarray(tilt(p, beta))
            min_delta[i, j] = np.min(passk.pass_at_k_curve_exact(q, ks, weights=w) - base)
            min_lift = min(min_lift, float(np.min(q - p)))
            support_kept &= bool(np.array_equal(q == 0, p == 0))
    return TiltGaps(min_delta, min_lift, support_kept)


@dataclass(frozen=True)
class PassAtKPair:
    """pass@k of a base model and of an RL-trained one on the same budgets, and where the
    base overtakes (:func:`theory.passk.crossing_k`)."""

    #: (K,): the budgets, strictly increasing.
    k: np.ndarray
    #: (K,): the base model's pass@k.
    base: np.ndarray
    #: (K,): the RL model's pass@k.
    rl: np.ndarray
    #: the first k where base overtakes RL, and how often Δ changes sign.
    crossing: passk.Crossing

    def curves(self, prefix: str = "") -> dict[str, np.ndarray]:
        """``{prefix + "base": base, prefix + "rl": rl}``."""
        return {f"{prefix}base": self.base, f"{prefix}rl": self.rl}

    def at(self, k: int) -> tuple[float, float]:
        """(base, RL) pass@k at budget ``k`` (one of :attr:`k`)."""
        i = int(np.flatnonzero(self.k == k)[0])
        return float(self.base[i]), float(self.rl[i])


def pass_at_k_pair(ks: np.ndarray, base: np.ndarray, rl: np.ndarray) -> PassAtKPair:
    """Bundle the two curves on ``ks`` with their crossing.

    Parameters
    ----------
    ks : numpy.ndarray of int
        Budgets, increasing.
    base, rl : numpy.ndarray of float
        The two pass@k curves on ``ks``.

    Returns
    -------
    PassAtKPair
        The curves and :func:`theory.passk.crossing_k` of them.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.sharpening import pass_at_k_pair
    >>> ks, base, rl = np.array([1, 2, 4]), np.array([0.1, 0.3, 0.5]), np.array([0.2, 0.3, 0.4])
    >>> pair = pass_at_k_pair(ks, base, rl)
    >>> pair.crossing.k_star, pair.crossing.bracket  # the tie at k = 2 is where it turns
    (2.0, (1, 4))
    """
    return PassAtKPair(ks, base, rl, passk.crossing_k(ks, base, rl))


def _check_budgets(ks: np.ndarray) -> None:
    k = _domain.reals("ks", ks, ndim=1, minimum=1.0)
    if np.any(k != np.round(k)):
        raise ValueError(f"ks must be whole numbers of samples (got {ks!r})")


def beta_sharpening(a: float, b: float, alpha: float, beta: float, ks: np.ndarray) -> PassAtKPair:
    """p ~ Beta(a, b) against q = σ(α·logit p + β), by quadrature
    (:func:`theory.passk.beta_pass_at_k`, :func:`theory.passk.beta_logit_affine_pass_at_k`):
    for Beta(0.3, 1.5), α = β = 2, pass@1 0.168 → 0.248 and pass@1024 0.869 → 0.716
    (computed here), crossing once between k = 4 and 8.

    Parameters
    ----------
    a, b : float
        The base's p ~ Beta(a, b).
    alpha, beta : float
        The sharpening q = σ(α·logit p + β).
    ks : numpy.ndarray of int
        Budgets, increasing.

    Returns
    -------
    PassAtKPair
        The two curves on ``ks`` and their crossing.

    Raises
    ------
    ValueError
        Unless ``ks`` is a non-empty 1-D array of whole budgets ≥ 1 (and the parameters as
        :mod:`theory.passk` requires).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.sharpening import beta_sharpening
    >>> pair = beta_sharpening(0.3, 1.5, 2.0, 2.0, 2 ** np.arange(11))
    >>> pair.base[[0, -1]].round(3), pair.rl[[0, -1]].round(3), pair.crossing.bracket
    (array([0.167, 0.869]), array([0.246, 0.715]), (4, 8))
    """
    _check_budgets(ks)
    base = passk.beta_pass_at_k(a, b, ks)
    rl = passk.beta_logit_affine_pass_at_k(a, b, alpha, beta, ks)
    return pass_at_k_pair(ks, base, rl)


def logit_affine_sharpening(
    p: np.ndarray, alpha: float, beta: float, ks: np.ndarray
) -> PassAtKPair:
    """The problems' success probabilities ``p`` against q = σ(α·logit p + β): the mean over
    problems of 1 − (1 − p)^k and of 1 − (1 − q)^k.

    Parameters
    ----------
    p : numpy.ndarray of float
        The problems' base success probabilities.
    alpha, beta : float
        The sharpening.
    ks : numpy.ndarray of int
        Budgets, increasing.

    Returns
    -------
    PassAtKPair
        The two curves on ``ks`` and their crossing.

    Raises
    ------
    ValueError
        As :func:`beta_sharpening` does.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.sharpening import logit_affine_sharpening
    >>> pair = logit_affine_sharpening(np.array([0.1, 0.5]), 2.0, 1.0, np.array([1, 4]))
    >>> pair.base.round(4), pair.rl.round(4), pair.crossing.n_crossings
    (array([0.3   , 0.6407]), array([0.3818, 0.5592]), 1)
    """
    _check_budgets(ks)
    base = passk.pass_at_k_curve_exact(p, ks)
    rl = passk.pass_at_k_curve_exact(passk.logit_affine(p, alpha, beta), ks)
    return pass_at_k_pair(ks, base, rl)


def two_type_sharpening(ks: np.ndarray, **params: float) -> PassAtKPair:
    """The two-type closed form (:func:`theory.passk.two_type_pass_at_k`): a fraction of the
    problems improves p_e → q_e, another drops ε → 0, so a pass@1 gain comes with a crossing.

    Parameters
    ----------
    ks : numpy.ndarray of int
        Budgets, increasing.
    **params : float
        ``frac_improved``, ``p_e``, ``q_e``, ``frac_lost``, ``eps`` of
        :func:`theory.passk.two_type_pass_at_k`.

    Returns
    -------
    PassAtKPair
        The two curves on ``ks`` and their crossing.

    Raises
    ------
    ValueError
        As :func:`beta_sharpening` does.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.sharpening import two_type_sharpening
    >>> pair = two_type_sharpening(
    ...     np.array([1, 16, 256]), frac_improved=0.5, p_e=0.1, q_e=0.6, frac_lost=0.2, eps=0.01
    ... )
    >>> round(pair.crossing.k_star, 1), pair.crossing.bracket
    (32.4, (16, 256))
    """
    _check_budgets(ks)
    base, rl = passk.two_type_pass_at_k(ks, **params)
    return pass_at_k_pair(ks, base, rl)


def failure_slopes(
    pair: PassAtKPair, window: tuple[float, float], predicted: tuple[float, float]
) -> tuple[tuple[PowerLawFit, PowerLawFit], list[float]]:
    """Power-law fits of the failure rates 1 − pass@k of the base and of RL on k in ``window``
    (log–log least squares, :func:`theory.fits.fit_power_law`), and their relative errors
    |fitted slope / predicted slope − 1| against ``predicted`` (base, RL): for p ~ Beta(a, b)
    the failure rates fall as k^−a and, after sharpening with slope α, as k^−a/α.

    Parameters
    ----------
    pair : PassAtKPair
        The curves.
    window : tuple of float
        (low, high) of the k fitted.
    predicted : tuple of float
        The predicted slopes (base, RL), e.g. (−a, −a/α).

    Returns
    -------
    fits : tuple of PowerLawFit
        The base's and RL's fits.
    errors : list of float
        |fitted / predicted − 1| for each.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.sharpening import beta_sharpening, failure_slopes
    >>> pair = beta_sharpening(0.3, 1.5, 2.0, 2.0, 2 ** np.arange(8, 17))
    >>> fits, errors = failure_slopes(pair, (2**10, 2**16), (-0.3, -0.15))
    >>> [round(fit.exponent, 3) for fit in fits], [round(error, 2) for error in errors]
    ([-0.3, -0.149], [0.0, 0.01])
    """
    fits = (
        fit_power_law(pair.k, 1 - pair.base, window=window, n_boot=0),
        fit_power_law(pair.k, 1 - pair.rl, window=window, n_boot=0),
    )
    errors = [abs(fit.exponent / slope - 1) for fit, slope in zip(fits, predicted, strict=True)]
    return fits, errors
