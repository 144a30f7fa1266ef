"""Operating characteristics of a three-way rule (paper_checks.decision): exact for normal units,
and measured over the declared class of skewed ones.

For a part over n units with sd σ, one-sided level a and critical value c = c(n, a)
(:func:`paper_checks.decision.critical_value`), the lower bound clears the pass margin δ_P when
T_P = (m − δ_P)/(s/√n) > c, and the upper bound falls short of the fail margin δ_F when
T_F = (m − δ_F)/(s/√n) < −c (direction "greater"; "less" mirrors). For *normal* units with true
mean μ, T_P and T_F are noncentral t with n − 1 degrees of freedom and noncentrality
(μ − δ)√n/σ, so

    P(PASS | μ) = 1 − F_nct(c; n − 1, (μ − δ_P)√n/σ),
    P(FAIL | μ) = F_nct(−c; n − 1, (μ − δ_F)√n/σ).

These are the normal-units figures (:func:`operating_characteristics`): exact for normal units,
an approximation for others. The *false-FAIL rate* is P(FAIL) when the claim holds just barely
(μ = δ_P), the *false-PASS rate* P(PASS) when it is just contradicted (μ = δ_F); for normal
units each is below a (c exceeds Student's t) and smaller across an indifference zone. P(PASS)
and P(FAIL) at the measured mean say how likely another unit set of the same size is to give the
same verdict. Presentation only: no verdict uses it.

For skewed units the rates are measured by simulation (:func:`error_rates`, :data:`FAMILIES`:
the declared class of the decision module and, for contrast, families outside it), deciding many
synthetic unit sets at once through :meth:`paper_checks.decision.Rule.verdicts`, the code path of
every decision. :func:`power` gives the price of the skew-robust bound for normal units.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from paper_checks.decision import (
    ALPHA,
    SKEW_BOUND,
    Part,
    Rule,
    critical_value,
    units_needed,
)
from paper_checks.results import Verdict

__all__ = [
    "FAMILIES",
    "Family",
    "error_rates",
    "operating_characteristics",
    "part_characteristics",
    "power",
    "sequential_error_rates",
    "study_power",
    "units_to_decide",
]


def _p_pass(mu: float, margin: float, sd: float, n: int, level: float, skew: float) -> float:
    crit = critical_value(n, level, skew)
    nc = (mu - margin) * math.sqrt(n) / sd
    return _finite(stats.nct.sf(crit, n - 1, nc), stats.norm.sf(crit - nc))


def _p_fail(mu: float, margin: float, sd: float, n: int, level: float, skew: float) -> float:
    crit = critical_value(n, level, skew)
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
    skew: float = SKEW_BOUND,
) -> dict[str, float] | None:
    """False-FAIL and false-PASS rates, and P(PASS), P(FAIL) at ``mean``, of one part with ``n``
    *normal* units of sd ``sd`` at one-sided ``level`` (bounds with the critical value of
    ``skew``; 0 gives Student's t); None when n < 2 or sd is not positive."""
    if n < 2 or not sd > 0 or not math.isfinite(sd):
        return None
    s = 1.0 if direction == "greater" else -1.0
    # mirror a "less" part onto "greater" by flipping the sign of the statistic
    dp, df, mu = s * pass_margin, s * fail_margin, s * mean
    return {
        "false_fail": _p_fail(dp, df, sd, n, level, skew),
        "false_pass": _p_pass(df, dp, sd, n, level, skew),
        "p_pass_at_mean": _p_pass(mu, dp, sd, n, level, skew),
        "p_fail_at_mean": _p_fail(mu, df, sd, n, level, skew),
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


# ------------------------------------------------------------------ synthetic unit values
Sampler = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]


@dataclass(frozen=True)
class Family:
    """A distribution of per-unit values, standardised to mean 0 and sd 1: its name, skewness
    and excess kurtosis, whether it lies in the decision module's declared class, and
    ``draw(rng, shape)``."""

    name: str
    skewness: float
    excess_kurtosis: float
    in_class: bool
    draw: Sampler


def _gamma(skew: float) -> Sampler:
    k = 4.0 / skew**2  # skewness 2/√k

    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return (rng.standard_gamma(k, size=shape) - k) / math.sqrt(k)

    return draw


def _lognormal_sigma(skew: float) -> float:
    """σ of the lognormal of skewness ``skew``: (e^{σ²} + 2)·√(e^{σ²} − 1) = skew."""

    def gap(s2: float) -> float:
        return (math.exp(s2) + 2) * math.sqrt(math.expm1(s2)) - skew

    from scipy.optimize import brentq

    return math.sqrt(brentq(gap, 1e-12, 10.0))


def _lognormal(skew: float) -> Sampler:
    sigma = _lognormal_sigma(skew)
    mean = math.exp(sigma**2 / 2)
    sd = math.sqrt(math.expm1(sigma**2)) * mean

    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return (rng.lognormal(0.0, sigma, size=shape) - mean) / sd

    return draw


def _mixture(p: float, d: float) -> Sampler:
    """N(0, 1) with probability 1 − p, N(d, 1) with probability p, standardised."""
    mean, sd = p * d, math.sqrt(1 + p * (1 - p) * d * d)

    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        x = rng.standard_normal(shape) + d * (rng.random(shape) < p)
        return (x - mean) / sd

    return draw


def _mixture_moments(p: float, d: float) -> tuple[float, float]:
    var = 1 + p * (1 - p) * d * d
    m3 = p * (1 - p) * (1 - 2 * p) * d**3
    m4 = 3 + 6 * p * (1 - p) * d * d + p * (1 - p) * (1 - 3 * p + 3 * p * p) * d**4
    return m3 / var**1.5, m4 / var**2 - 3


def _scipy(dist: Any) -> Sampler:
    mean, sd = float(dist.mean()), float(dist.std())

    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return (dist.rvs(size=shape, random_state=rng) - mean) / sd

    return draw


def _mirrored(family: Family) -> Family:
    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return -family.draw(rng, shape)

    return Family(
        f"{family.name}, mirrored",
        -family.skewness,
        family.excess_kurtosis,
        family.in_class,
        draw,
    )


def _families() -> tuple[Family, ...]:
    lognormal_s2 = _lognormal_sigma(1.0) ** 2
    # the two-component mixture of skewness 1 on the gamma line (excess kurtosis 1.5):
    # weight (3 − √6)/6 on a component 2√3 sd away
    p_line, d_line = (3 - math.sqrt(6)) / 6, 2 * math.sqrt(3)
    # a mixture of skewness 1 near a two-point law (excess kurtosis −0.55): outside the class
    p_two, d_two = 0.25, 7.28
    beta_b = 3.7  # beta(1, 3.7): skewness 1, bounded, excess kurtosis 0.53
    skewed = [
        Family("gamma, skewness 1", 1.0, 1.5, True, _gamma(1.0)),
        Family("gamma, skewness 0.5", 0.5, 0.375, True, _gamma(0.5)),
        Family(
            "lognormal, skewness 1",
            1.0,
            math.exp(4 * lognormal_s2)
            + 2 * math.exp(3 * lognormal_s2)
            + 3 * math.exp(2 * lognormal_s2)
            - 6,
            True,
            _lognormal(1.0),
        ),
        Family(
            "normal mixture, skewness 1, excess kurtosis 1.5",
            *_mixture_moments(p_line, d_line),
            True,
            _mixture(p_line, d_line),
        ),
    ]
    outside = [
        Family(
            "skew-normal, skewness 0.99",
            float(stats.skewnorm(20.0).stats(moments="s")),
            float(stats.skewnorm(20.0).stats(moments="k")),
            False,
            _scipy(stats.skewnorm(20.0)),
        ),
        Family(
            "beta(1, 3.7), skewness 1",
            float(stats.beta(1, beta_b).stats(moments="s")),
            float(stats.beta(1, beta_b).stats(moments="k")),
            False,
            _scipy(stats.beta(1, beta_b)),
        ),
        Family(
            "normal mixture near two points, skewness 1",
            *_mixture_moments(p_two, d_two),
            False,
            _mixture(p_two, d_two),
        ),
    ]
    normal = Family("normal", 0.0, 0.0, True, lambda rng, shape: rng.standard_normal(shape))
    return (
        normal,
        *(f for family in skewed for f in (family, _mirrored(family))),
        *outside,
    )


#: The families of per-unit values the decision is measured on: the declared class (normal, and
#: gamma, lognormal and a normal mixture skewed either way) and, marked ``in_class=False``,
#: three right-skewed families outside it (lighter-tailed than a gamma of their skewness).
FAMILIES: tuple[Family, ...] = _families()


def error_rates(
    family: Family,
    n: int,
    *,
    sets: int,
    seed: int,
    direction: str = "greater",
    level: float = ALPHA,
    skew: float = SKEW_BOUND,
) -> dict[str, float]:
    """The worst-case error rates of a one-part rule (``direction``, one-sided ``level``;
    ``skew`` 0 gives Student's t) over ``sets`` synthetic sets of ``n`` units drawn from
    ``family``: ``pass_at_pass_margin``, P(PASS) with the true mean on the pass margin, and
    ``fail_at_fail_margin``, P(FAIL) with it on the fail margin (one sd between the margins),
    each from its own draws, decided by :meth:`Rule.verdicts`. Each is at most ``level`` when
    the rule keeps its promise."""
    greater = direction == "greater"
    pass_margin, fail_margin = (1.0, 0.0) if greater else (0.0, 1.0)
    part = Part("x", "a unit value", direction, pass_margin, fail_margin)
    rule = Rule("synthetic", (part,), alpha=level)
    rng = np.random.default_rng(seed)
    at_pass = pass_margin + family.draw(rng, (sets, n))
    at_fail = fail_margin + family.draw(rng, (sets, n))
    return {
        "pass_at_pass_margin": float(
            np.mean(rule.verdicts({"x": at_pass}, skew=skew) == Verdict.PASS)
        ),
        "fail_at_fail_margin": float(
            np.mean(rule.verdicts({"x": at_fail}, skew=skew) == Verdict.FAIL)
        ),
    }


def sequential_error_rates(
    family: Family,
    looks: tuple[int, ...],
    *,
    sets: int,
    seed: int,
    direction: str = "greater",
    alpha: float = ALPHA,
) -> dict[str, float]:
    """The error rates of a one-part rule decided in sequence, as the runner decides a claim with
    planned looks (:func:`paper_checks.runner.run_claims`): ``sets`` synthetic sequences of
    units drawn from ``family``; look k decides the first ``looks[k]`` units at level
    α/K (K = ``len(looks)``, :meth:`Rule.verdicts` with ``looks=K``), and a sequence stops at
    its first decided look. ``pass_at_pass_margin`` is P(the sequence ends in PASS) with the true
    mean on the pass margin, ``fail_at_fail_margin`` P(it ends in FAIL) on the fail margin (one
    sd between them). By Bonferroni over the looks each is at most ``alpha``, whatever the
    correlation of the looks; the simulation measures how far below."""
    if not looks or list(looks) != sorted(set(looks)) or looks[0] < 1:
        raise ValueError(f"looks must be increasing positive unit counts (got {looks})")
    greater = direction == "greater"
    pass_margin, fail_margin = (1.0, 0.0) if greater else (0.0, 1.0)
    rule = Rule("synthetic", (Part("x", "a unit value", direction, pass_margin, fail_margin),))
    rule = Rule(rule.unit, rule.parts, alpha=alpha, min_units=2)
    rng = np.random.default_rng(seed)
    rates = {}
    for key, margin, wrong in (
        ("pass_at_pass_margin", pass_margin, Verdict.PASS),
        ("fail_at_fail_margin", fail_margin, Verdict.FAIL),
    ):
        draws = margin + family.draw(rng, (sets, looks[-1]))
        final = np.full(sets, Verdict.INCONCLUSIVE, dtype=object)
        for n in looks:
            open_ = final == Verdict.INCONCLUSIVE
            if n >= 2 and open_.any():
                final[open_] = rule.verdicts({"x": draws[open_, :n]}, looks=len(looks))
        rates[key] = float(np.mean(final == wrong))
    return rates


def study_power(
    rule: Rule,
    pilot: Mapping[str, Any],
    looks: tuple[int, ...],
    *,
    sets: int = 20_000,
    seed: int = 0,
) -> dict[str, Any]:
    """What a confirmatory study planned to look at ``looks`` units (increasing) should expect,
    were its units like a pilot's: ``sets`` synthetic studies draw each unit's statistics from
    the normal law with the ``pilot`` units' means and covariance (statistic -> values, the
    same units in every statistic, at least 2), are decided look by look at α/K as the runner
    decides (:meth:`Rule.verdicts`, K = ``len(looks)``) and stop at their first decided look.
    Returns the probability that the study ends PASS, FAIL or INCONCLUSIVE, and that it is
    decided by each look (``decided_by``), as planned before the study's units are drawn."""
    if not looks or list(looks) != sorted(set(looks)) or looks[0] < 1:
        raise ValueError(f"looks must be increasing positive unit counts (got {looks})")
    names = list(rule.statistics)
    rows = np.array([[float(v) for v in pilot[name]] for name in names])
    if rows.ndim != 2 or rows.shape[1] < 2:
        raise ValueError("pilot needs at least 2 units of every statistic of the rule")
    mean, cov = rows.mean(axis=1), np.atleast_2d(np.cov(rows))
    draws = np.random.default_rng(seed).multivariate_normal(
        mean, cov, size=(sets, looks[-1]), method="svd"
    )
    final = np.full(sets, Verdict.INCONCLUSIVE, dtype=object)
    decided_by = []
    for n in looks:
        open_ = final == Verdict.INCONCLUSIVE
        if open_.any():
            units = {name: draws[open_, :n, i] for i, name in enumerate(names)}
            final[open_] = rule.verdicts(units, looks=len(looks))
        decided_by.append(float(np.mean(final != Verdict.INCONCLUSIVE)))
    return {
        "looks": list(looks),
        "decided_by": decided_by,
        **{v.value: float(np.mean(final == v)) for v in (Verdict.PASS, Verdict.FAIL)},
        Verdict.INCONCLUSIVE.value: float(np.mean(final == Verdict.INCONCLUSIVE)),
    }


@functools.cache
def power(effect: float, n: int, level: float = ALPHA, skew: float = SKEW_BOUND) -> float:
    """P(PASS) of a one-part rule over ``n`` normal units whose true mean lies ``effect`` sds
    beyond the pass margin (exact: noncentral t)."""
    return _p_pass(effect, 0.0, 1.0, n, level, skew)


def units_to_decide(effect: float, level: float = ALPHA, skew: float = SKEW_BOUND) -> int | None:
    """The units a one-part rule needs to PASS when the mean lies ``effect`` sds beyond the pass
    margin and the sd is measured exactly (:func:`paper_checks.decision.units_needed`)."""
    part = Part("x", "a unit value", "greater", 0.0, 0.0)
    return units_needed(part, effect, 1.0, level, 3, skew)
