"""Deciding a stochastic claim over independent units: three-way rules on Student-t bounds.

A *unit* is one independent replicate of a claim's whole experiment (its problem set, data,
initialisation, training and sampling all drawn afresh). A claim has one or more *parts*; each
names its per-unit statistic T, the direction the claim asserts, a pass margin δ_P (the claim's
threshold) and a fail margin δ_F (the value that contradicts it). For a part that asserts
``mean T > δ_P`` ("greater"; "less" mirrors it), over n units with mean m and sd s, at the
one-sided level a = α/m (Bonferroni over the m parts, α = 0.025):

    L = m − t_{1−a, n−1} · s/√n,      U = m + t_{1−a, n−1} · s/√n

PASS when L > δ_P; FAIL when U < δ_F (δ_F ≤ δ_P; between them lies the claim's indifference
zone); INCONCLUSIVE otherwise. The claim PASSes when every part PASSes, FAILs when any part
FAILs, and is INCONCLUSIVE otherwise, or by declaration with fewer than ``min_units`` units.
If the true mean of T is at δ_P, P(PASS) ≤ a; at δ_F, P(FAIL) ≤ a, for normal per-unit values
(the t bounds are exact) and nearly so for sums of many items; right-skewed per-unit values make
the FAIL side of a "greater" part anti-conservative at few units (measured in
tests/paper_checks/test_decision.py). So two independent unit sets give PASS and FAIL with
probability at most 2α. An INCONCLUSIVE part reports the units that would decide it at the
measured mean and sd (:func:`units_needed`).

Per-root-seed units are pooled by concatenation (:meth:`Rule.decide` of the joined lists): the
verdict of a run with R root seeds is the rule applied to all their units, not seed 0's verdict.
References: Colas, Sigaud & Oudeyer (2018), "How many random seeds?", arXiv:1806.08295 (Welch t
over seeds, power analysis); Schuirmann (1987) two one-sided tests for equivalence (:func:`within`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
from scipy import stats

from paper_checks.results import Verdict

__all__ = [
    "ALPHA",
    "Decision",
    "Part",
    "PartDecision",
    "Rule",
    "pool_units",
    "units_needed",
    "within",
]

#: One-sided level of every rule, before Bonferroni over its parts.
ALPHA = 0.025
#: Units needed are searched up to this count; beyond it a part is reported as undecidable.
MAX_UNITS = 100_000


@dataclass(frozen=True)
class Part:
    """One part of a rule: the claim asserts that the mean over units of ``statistic`` lies above
    ``pass_margin`` (``direction="greater"``) or below it (``"less"``); a mean beyond
    ``fail_margin`` on the other side contradicts it. ``text`` says what the statistic is."""

    statistic: str
    text: str
    direction: Literal["greater", "less"]
    pass_margin: float
    fail_margin: float

    def __post_init__(self) -> None:
        if self.direction not in ("greater", "less"):
            raise ValueError(f"direction must be 'greater' or 'less' (got {self.direction!r})")
        if not (math.isfinite(self.pass_margin) and math.isfinite(self.fail_margin)):
            raise ValueError(f"{self.statistic}: margins must be finite")
        if self.sign * (self.pass_margin - self.fail_margin) < 0:
            side = "≤" if self.direction == "greater" else "≥"
            raise ValueError(
                f"{self.statistic}: the fail margin must be {side} the pass margin "
                f"(got pass {self.pass_margin}, fail {self.fail_margin})"
            )

    @property
    def sign(self) -> int:
        """+1 when the claim asserts a large mean, −1 when a small one."""
        return 1 if self.direction == "greater" else -1

    def describe(self) -> str:
        """The part in words: 'mean of T (what it is) > δ_P; FAIL when < δ_F'."""
        op, anti = (">", "<") if self.direction == "greater" else ("<", ">")
        return (
            f"{self.statistic} ({self.text}): PASS when its {_side(self)} bound {op} "
            f"{self.pass_margin:g}, FAIL when its {_side(self, against=True)} bound {anti} "
            f"{self.fail_margin:g}"
        )


def _side(part: Part, against: bool = False) -> str:
    """'lower' or 'upper': the bound that must clear the pass margin (or, ``against``, fall
    short of the fail margin)."""
    lower = (part.direction == "greater") != against
    return "lower" if lower else "upper"


def within(statistic: str, text: str, target: float, tolerance: float) -> tuple[Part, Part]:
    """An equivalence claim |mean T − target| < tolerance as two one-sided parts (TOST): PASS
    when the interval lies inside target ± tolerance, FAIL when it lies wholly outside."""
    lo, hi = target - tolerance, target + tolerance
    return (
        Part(statistic, text, "greater", lo, lo),
        Part(statistic, text, "less", hi, hi),
    )


@dataclass(frozen=True)
class PartDecision:
    """A part's verdict over ``n`` units: mean, sd, the one-sided bounds at ``level``, and
    ``units_needed`` (None when decided, or when no count would decide it)."""

    part: Part
    verdict: Verdict
    n: int
    mean: float
    sd: float
    lower: float
    upper: float
    level: float
    units_needed: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "statistic": self.part.statistic,
            "direction": self.part.direction,
            "pass_margin": self.part.pass_margin,
            "fail_margin": self.part.fail_margin,
            "verdict": self.verdict.value,
            "n": self.n,
            "mean": self.mean,
            "sd": self.sd,
            "lower": self.lower,
            "upper": self.upper,
            "level": self.level,
            "units_needed": self.units_needed,
        }


@dataclass(frozen=True)
class Decision:
    """A rule applied to a set of units: the verdict, each part's decision, the units it used and
    (INCONCLUSIVE) the unit count that would decide it at the measured means and sds."""

    verdict: Verdict
    parts: tuple[PartDecision, ...]
    units: dict[str, list[float]]
    units_needed: int | None
    reason: str = ""

    def summary(self) -> str:
        """One line: each part's mean and bounds against its margins, and the verdict."""
        bits = [
            f"{p.part.statistic} {p.mean:.4g} [{p.lower:.4g}, {p.upper:.4g}] "
            f"(pass {p.part.pass_margin:g}, fail {p.part.fail_margin:g}: {p.verdict.value})"
            for p in self.parts
        ]
        n = min((p.n for p in self.parts), default=0)
        head = f"{self.verdict.value} over {n} units: " + "; ".join(bits)
        if self.units_needed is not None and self.verdict is Verdict.INCONCLUSIVE:
            head += f"; about {self.units_needed} units would decide it"
        elif self.verdict is Verdict.INCONCLUSIVE:
            head += "; no unit count decides it at this mean (indifference zone)"
        return head + (f"; {self.reason}" if self.reason else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict.value,
            "parts": [p.to_json() for p in self.parts],
            "units": self.units,
            "units_needed": self.units_needed,
            "reason": self.reason,
        }


def _t_bound(n: int, level: float) -> float:
    """t_{1−level, n−1}."""
    return float(stats.t.ppf(1.0 - level, n - 1))


def units_needed(part: Part, mean: float, sd: float, level: float, min_units: int) -> int | None:
    """The smallest n ≥ ``min_units`` at which a part with this mean and sd is decided (PASS when
    the mean lies beyond the pass margin, FAIL when beyond the fail margin); None when the mean
    lies in the indifference zone or on a margin, or more than :data:`MAX_UNITS` are needed."""
    gap_pass = part.sign * (mean - part.pass_margin)
    gap_fail = part.sign * (part.fail_margin - mean)
    gap = gap_pass if gap_pass > 0 else gap_fail
    if gap <= 0:
        return None
    if sd == 0:
        return min_units

    def decides(n: int) -> bool:  # t_{1−a, n−1}·sd/√n falls with n: bisect for the first n
        return _t_bound(n, level) * sd / math.sqrt(n) < gap

    lo, hi = max(min_units, 2), MAX_UNITS
    if not decides(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if decides(mid) else (mid + 1, hi)
    return lo


def _decide_part(part: Part, values: Sequence[float], level: float) -> PartDecision:
    x = np.asarray(values, dtype=float)
    n = x.size
    mean = float(x.mean()) if n else math.nan
    sd = float(x.std(ddof=1)) if n > 1 else math.nan
    if n < 2:
        lower, upper = -math.inf, math.inf
    else:
        half = _t_bound(n, level) * sd / math.sqrt(n)
        lower, upper = mean - half, mean + half
    if part.direction == "greater":
        passed, failed = lower > part.pass_margin, upper < part.fail_margin
    else:
        passed, failed = upper < part.pass_margin, lower > part.fail_margin
    verdict = Verdict.PASS if passed else Verdict.FAIL if failed else Verdict.INCONCLUSIVE
    return PartDecision(part, verdict, n, mean, sd, lower, upper, level, None)


@dataclass(frozen=True)
class Rule:
    """A claim's three-way rule: its parts, the one-sided level ``alpha`` (split over the parts)
    and the fewest units it decides with (``min_units``; fewer are INCONCLUSIVE by declaration).
    ``unit`` says what one unit is, for the generated rule text."""

    unit: str
    parts: tuple[Part, ...]
    alpha: float = ALPHA
    min_units: int = 3
    note: str = ""
    statistics: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        if not self.parts:
            raise ValueError("a rule needs at least one part")
        if not 0 < self.alpha < 0.5:
            raise ValueError(f"alpha must be in (0, 0.5) (got {self.alpha})")
        if self.min_units < 2:
            raise ValueError(f"min_units must be ≥ 2 (got {self.min_units})")
        object.__setattr__(
            self, "statistics", tuple(dict.fromkeys(p.statistic for p in self.parts))
        )

    @property
    def level(self) -> float:
        """The one-sided level of each part: α / (number of parts)."""
        return self.alpha / len(self.parts)

    def text(self) -> str:
        """The rule in words, generated from its parts and margins."""
        m = len(self.parts)
        level = f"one-sided level {self.alpha:g}" + (f"/{m} (Bonferroni)" if m > 1 else "")
        body = "; ".join(p.describe() for p in self.parts)
        text = (
            f"Units: {self.unit}. Student-t bounds on the mean over units, {level}. {body}. "
            f"The claim PASSes when every part PASSes and FAILs when any part FAILs; otherwise "
            f"INCONCLUSIVE, with the units that would decide it; fewer than {self.min_units} "
            "units are INCONCLUSIVE by declaration. With --replicates the units of all root "
            "seeds are pooled."
        )
        return f"{text} {self.note}".strip()

    def decide(self, units: Mapping[str, Sequence[float]]) -> Decision:
        """The verdict over ``units`` (statistic -> one value per unit). Raises ``ValueError``
        on a missing statistic or a value that is not a finite number."""
        clean: dict[str, list[float]] = {}
        for name in self.statistics:
            if name not in units:
                raise ValueError(f"units lack the statistic {name!r} of the rule")
            values = [float(v) for v in units[name]]
            if not all(math.isfinite(v) for v in values):
                raise ValueError(f"units of {name!r} must be finite numbers (got {values})")
            clean[name] = values
        level = self.level
        parts = [_decide_part(p, clean[p.statistic], level) for p in self.parts]
        n = min(p.n for p in parts)
        parts = [
            replace(
                p,
                verdict=p.verdict if n >= self.min_units else Verdict.INCONCLUSIVE,
                units_needed=_part_units_needed(p, self.min_units),
            )
            for p in parts
        ]
        if n < self.min_units:
            reason = f"{n} unit(s): fewer than the {self.min_units} this rule decides with"
            needed = max(self.min_units, _claim_units_needed(parts) or self.min_units)
            return Decision(Verdict.INCONCLUSIVE, tuple(parts), clean, needed, reason)
        verdicts = [p.verdict for p in parts]
        if Verdict.FAIL in verdicts:
            verdict = Verdict.FAIL
        elif all(v is Verdict.PASS for v in verdicts):
            verdict = Verdict.PASS
        else:
            verdict = Verdict.INCONCLUSIVE
        needed = _claim_units_needed(parts) if verdict is Verdict.INCONCLUSIVE else None
        return Decision(verdict, tuple(parts), clean, needed)


def _part_units_needed(p: PartDecision, min_units: int) -> int | None:
    """:func:`units_needed` of an undecided part with at least two units, else None."""
    if p.verdict is not Verdict.INCONCLUSIVE or p.n < 2:
        return None
    return units_needed(p.part, p.mean, p.sd, p.level, min_units)


def _claim_units_needed(parts: Sequence[PartDecision]) -> int | None:
    """Units that would decide an undecided claim: the fewest that make some part FAIL, if any
    part's mean lies beyond its fail margin; else the most that make every part PASS."""
    undecided = [p for p in parts if p.verdict is Verdict.INCONCLUSIVE]
    to_fail = [
        p.units_needed
        for p in undecided
        if p.units_needed is not None and p.part.sign * (p.part.fail_margin - p.mean) > 0
    ]
    if to_fail:
        return min(to_fail)
    to_pass = [p.units_needed for p in undecided]
    return max(to_pass) if to_pass and None not in to_pass else None  # type: ignore[type-var]


def pool_units(unit_sets: Iterable[Mapping[str, Sequence[float]]]) -> dict[str, list[float]]:
    """The units of several root seeds joined statistic by statistic (their order kept)."""
    pooled: dict[str, list[float]] = {}
    for units in unit_sets:
        for name, values in units.items():
            pooled.setdefault(name, []).extend(float(v) for v in values)
    return pooled
