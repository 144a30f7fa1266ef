"""Critical values for families of significance tests, so that a claim judged at many points at
once (a curve over N, a table of entries) keeps its stated error rate as a whole."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from theory import _domain

__all__ = [
    "CurveZTest",
    "binomial_se_percent",
    "curve_z_test",
    "family_wise_t_critical",
    "worst_tolerance_ratio",
]


def family_wise_t_critical(dof: int, n_tests: int, alpha: float = 0.0027) -> float:
    """Critical |t| for ``n_tests`` two-sided Student-t tests with ``dof`` degrees of freedom at
    family-wise error rate ``alpha`` (Bonferroni): t_{dof}^{-1}(1 − α / (2 n_tests)). The default
    α = 0.0027 is the two-sided 3σ rate of one normal test.

    Parameters
    ----------
    dof : int
        Degrees of freedom of each test.
    n_tests : int
        Number of tests.
    alpha : float
        Family-wise error rate.

    Returns
    -------
    float
        The critical |t|.

    Raises
    ------
    ValueError
        Unless ``dof`` and ``n_tests`` are positive integers and 0 < alpha < 1.

    Examples
    --------
    >>> from theory.significance import family_wise_t_critical
    >>> round(family_wise_t_critical(10**6, 1), 3)  # one test, many dof: 3σ
    3.0
    >>> round(family_wise_t_critical(9, 4), 3)
    5.067
    """
    dof = _domain.integer("dof", dof, minimum=1)
    n_tests = _domain.integer("n_tests", n_tests, minimum=1)
    alpha = _domain.real("alpha", alpha, minimum=0.0, maximum=1.0, open_low=True, open_high=True)
    return float(stats.t.ppf(1 - alpha / (2 * n_tests), dof))


def binomial_se_percent(percent: ArrayLike, n: int) -> np.ndarray:
    """Standard error, in percentage points, of a share measured on ``n`` independent draws
    whose true value is ``percent``: 100 · √(p (1 − p) / n) with p = percent / 100.

    Parameters
    ----------
    percent : array_like of float
        True shares, in percent.
    n : int
        Independent draws.

    Returns
    -------
    numpy.ndarray of float
        The standard errors, in percentage points.

    Raises
    ------
    ValueError
        Unless ``percent`` lies in [0, 100] and ``n`` is a positive integer.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.significance import binomial_se_percent
    >>> binomial_se_percent(np.array([50.0, 10.0]), 100)
    array([5., 3.])
    """
    percent = _domain.reals("percent", percent, minimum=0.0, maximum=100.0, nonempty=False)
    n = _domain.integer("n", n, minimum=1)
    return 100.0 * np.sqrt(percent / 100 * (1 - percent / 100) / n)


def worst_tolerance_ratio(*gates: Sequence[ArrayLike]) -> float:
    """The largest |measured − expected| / tolerance over every entry of every gate
    ``(measured, expected, tolerance)``: at most 1 exactly when each gated quantity lies within
    its own tolerance, so one number decides a claim gated on several quantities.

    Parameters
    ----------
    *gates : sequence of array_like
        Each ``(measured, expected, tolerance)``, broadcast against each other.

    Returns
    -------
    float
        The largest ratio.

    Raises
    ------
    ValueError
        Unless there is at least one gate, each a triple of non-empty finite arrays that broadcast
        together, with tolerances > 0.

    Examples
    --------
    >>> from theory.significance import worst_tolerance_ratio
    >>> worst_tolerance_ratio(([1.0, 2.5], [1.0, 2.0], [0.1, 1.0]), (0.3, 0.25, 0.1))
    0.5
    """
    if not gates:
        raise ValueError("gates must hold at least one (measured, expected, tolerance) triple")
    ratios = []
    for i, gate in enumerate(gates):
        if len(gate) != 3:
            raise ValueError(
                f"gates must be (measured, expected, tolerance) triples (got {gate!r})"
            )
        measured = _domain.reals(f"gates[{i}] (measured)", gate[0])
        expected = _domain.reals(f"gates[{i}] (expected)", gate[1])
        tolerance = _domain.reals(f"gates[{i}] (tolerance)", gate[2], minimum=0.0, open_low=True)
        try:
            ratios.append(float(np.max(np.abs(measured - expected) / tolerance)))
        except ValueError:
            raise ValueError(
                f"gates must hold measured, expected and tolerance that broadcast together (got "
                f"shapes {measured.shape}, {expected.shape}, {tolerance.shape})"
            ) from None
    return max(ratios)


@dataclass(frozen=True)
class CurveZTest:
    """A measured curve (the mean of independent sampled curves) against a theory curve, point by
    point, judged as one family."""

    #: (points,): the mean of the sampled curves.
    mean: np.ndarray
    #: (points,): its standard error, sd (ddof 1) / √samples.
    se: np.ndarray
    #: (points,): (mean − theory) / s.e. (s.e. floored at 1e-12).
    z: np.ndarray
    #: the family-wise critical |t| over the points (:func:`family_wise_t_critical`).
    critical: float

    @property
    def max_abs_z(self) -> float:
        """The largest |z| over the points."""
        return float(np.max(np.abs(self.z)))

    @property
    def passed(self) -> bool:
        """Every |z| at most the critical value."""
        return bool(np.all(np.abs(self.z) <= self.critical))


def curve_z_test(samples: np.ndarray, theory: ArrayLike, alpha: float = 0.0027) -> CurveZTest:
    """Compare the mean of ``samples`` (samples, points) with ``theory`` (points,) at every point:
    z = (mean − theory) / s.e. over the samples, against the Bonferroni critical value of the
    Student t with samples − 1 degrees of freedom over the points, family-wise α.

    Parameters
    ----------
    samples : numpy.ndarray of float, (samples, points)
        Independent measurements of the curve.
    theory : array_like of float, (points,)
        The predicted curve.
    alpha : float
        Family-wise error rate.

    Returns
    -------
    CurveZTest
        Mean, standard error and z per point, and the critical |z|.

    Raises
    ------
    ValueError
        Unless ``samples`` is a finite 2-D array of at least 2 samples and ``theory`` finite with
        one value per point.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.significance import curve_z_test
    >>> samples = np.array([[1.0, 2.0], [1.2, 2.1], [0.8, 1.9], [1.0, 2.0]])
    >>> test = curve_z_test(samples, [1.0, 2.0])
    >>> test.z.tolist(), round(test.critical, 2)  # 3 degrees of freedom, 2 points
    ([0.0, 0.0], 11.68)
    """
    samples = _domain.reals("samples", samples, ndim=2)
    n, points = samples.shape
    if n < 2:
        raise ValueError(
            f"samples must hold at least 2 samples (rows) for a standard error (got {n})"
        )
    theory = _domain.reals("theory", theory)
    if theory.shape not in ((), (points,)):
        raise ValueError(
            f"theory must hold one value per point, {points} (got shape {theory.shape})"
        )
    mean = samples.mean(axis=0)
    se = samples.std(axis=0, ddof=1) / np.sqrt(n)
    z = (mean - theory) / np.maximum(se, 1e-12)
    return CurveZTest(mean, se, z, family_wise_t_critical(n - 1, points, alpha))
