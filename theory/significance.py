"""Critical values for families of significance tests, so that a claim judged at many points at
once (a curve over N, a table of entries) keeps its stated error rate as a whole."""

from __future__ import annotations

from scipy import stats

__all__ = ["family_wise_t_critical"]


def family_wise_t_critical(dof: int, n_tests: int, alpha: float = 0.0027) -> float:
    """Critical |t| for ``n_tests`` two-sided Student-t tests with ``dof`` degrees of freedom at
    family-wise error rate ``alpha`` (Bonferroni): t_{dof}^{-1}(1 − α / (2 n_tests)). The default
    α = 0.0027 is the two-sided 3σ rate of one normal test."""
    if dof < 1 or n_tests < 1:
        raise ValueError(f"dof and n_tests must be >= 1 (got {dof}, {n_tests})")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1) (got {alpha})")
    return float(stats.t.ppf(1 - alpha / (2 * n_tests), dof))
