"""Critical values for families of significance tests, so that a claim judged at many points at
once (a curve over N, a table of entries) keeps its stated error rate as a whole."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

__all__ = ["binomial_se_percent", "family_wise_t_critical", "worst_tolerance_ratio"]


def family_wise_t_critical(dof: int, n_tests: int, alpha: float = 0.0027) -> float:
    """Critical |t| for ``n_tests`` two-sided Student-t tests with ``dof`` degrees of freedom at
    family-wise error rate ``alpha`` (Bonferroni): t_{dof}^{-1}(1 − α / (2 n_tests)). The default
    α = 0.0027 is the two-sided 3σ rate of one normal test."""
    if dof < 1 or n_tests < 1:
        raise ValueError(f"dof and n_tests must be >= 1 (got {dof}, {n_tests})")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1) (got {alpha})")
    return float(stats.t.ppf(1 - alpha / (2 * n_tests), dof))


def binomial_se_percent(percent: ArrayLike, n: int) -> np.ndarray:
    """Standard error, in percentage points, of a share measured on ``n`` independent draws
    whose true value is ``percent``: 100 · √(p (1 − p) / n) with p = percent / 100."""
    percent = np.asarray(percent, dtype=float)
    return 100.0 * np.sqrt(percent / 100 * (1 - percent / 100) / n)


def worst_tolerance_ratio(*gates: Sequence[ArrayLike]) -> float:
    """The largest |measured − expected| / tolerance over every entry of every gate
    ``(measured, expected, tolerance)``: at most 1 exactly when each gated quantity lies within
    its own tolerance, so one number decides a claim gated on several quantities."""
    return max(
        float(np.max(np.abs(np.asarray(measured, dtype=float) - expected) / tolerance))
        for measured, expected, tolerance in gates
    )
