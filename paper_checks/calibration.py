"""Operating characteristics of a three-way rule (paper_checks.decision) at a measured spread.

For a part over n units with sd σ and one-sided level a, the lower bound clears the pass margin
δ_P when T_P = (m − δ_P)/(s/√n) > t_{1−a, n−1}, and the upper bound falls short of the fail
margin δ_F when T_F = (m − δ_F)/(s/√n) < −t_{1−a, n−1} (direction "greater"; "less" mirrors).
For normal units with true mean μ, T_P and T_F are noncentral t with n − 1 degrees of freedom
and noncentrality (μ − δ)√n/σ, so

    P(PASS | μ) = 1 − F_nct(t_c; n − 1, (μ − δ_P)√n/σ),
    P(FAIL | μ) = F_nct(−t_c; n − 1, (μ − δ_F)√n/σ).

The *false-FAIL rate* is P(FAIL) when the claim holds just barely (μ = δ_P), the *false-PASS
rate* P(PASS) when it is just contradicted (μ = δ_F); each is ≤ a by construction and smaller
across an indifference zone. P(PASS) and P(FAIL) at the measured mean say how likely another
unit set of the same size is to give the same verdict. Presentation only: no verdict uses it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from scipy import stats

__all__ = ["operating_characteristics", "part_characteristics"]


def _p_pass(mu: float, margin: float, sd: float, n: int, level: float) -> float:
    crit = stats.t.ppf(1 - level, n - 1)
    nc = (mu - margin) * math.sqrt(n) / sd
    return _finite(stats.nct.sf(crit, n - 1, nc), stats.norm.sf(crit - nc))


def _p_fail(mu: float, margin: float, sd: float, n: int, level: float) -> float:
    crit = stats.t.ppf(1 - level, n - 1)
    nc = (mu - margin) * math.sqrt(n) / sd
    return _finite(stats.nct.cdf(-crit, n - 1, nc), stats.norm.cdf(-crit - nc))


def _finite(value: float, approximation: float) -> float:
    """``value``, or where scipy's noncentral t gives NaN (noncentrality in the hundreds, far in
    a tail) its normal approximation, which is then below any rate worth reporting."""
    value = float(value)
    return value if math.isfinite(value) else float(approximation)


def operating_characteristics(
    direction: str,
    pass_margin: float,
    fail_margin: float,
    sd: float,
    n: int,
    level: float,
    mean: float,
) -> dict[str, float] | None:
    """False-FAIL and false-PASS rates, and P(PASS), P(FAIL) at ``mean``, of one part with ``n``
    normal units of sd ``sd`` at one-sided ``level``; None when n < 2 or sd is not positive."""
    if n < 2 or not sd > 0 or not math.isfinite(sd):
        return None
    s = 1.0 if direction == "greater" else -1.0
    # mirror a "less" part onto "greater" by flipping the sign of the statistic
    dp, df, mu = s * pass_margin, s * fail_margin, s * mean
    return {
        "false_fail": _p_fail(dp, df, sd, n, level),
        "false_pass": _p_pass(df, dp, sd, n, level),
        "p_pass_at_mean": _p_pass(mu, dp, sd, n, level),
        "p_fail_at_mean": _p_fail(mu, df, sd, n, level),
    }


def part_characteristics(part: Mapping[str, Any]) -> dict[str, float] | None:
    """:func:`operating_characteristics` of a part record of ``Decision.to_json()``."""
    if part.get("sd") is None or part.get("n", 0) < 2:
        return None
    return operating_characteristics(
        part["direction"],
        part["pass_margin"],
        part["fail_margin"],
        part["sd"],
        part["n"],
        part["level"],
        part["mean"],
    )
