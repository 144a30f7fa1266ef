"""Deciding a stochastic claim over independent units: three-way rules on skew-robust t bounds.

A *unit* is one independent replicate of a claim's whole experiment (its problem set, data,
initialisation, training and sampling all drawn afresh). A claim has one or more *parts*; each
names its per-unit statistic T, the direction the claim asserts, a pass margin δ_P (the claim's
threshold) and a fail margin δ_F (the value that contradicts it). For a part that asserts
``mean T > δ_P`` ("greater"; "less" mirrors it), over n units with mean m and sd s, at the
one-sided level a = α/(K·p) (Bonferroni over the p parts and over the K planned looks of
:attr:`paper_checks.claims.Claim.looks`, K = 1 for a claim with none; α = 0.025):

    L = m − c · s/√n,      U = m + c · s/√n,
    c = t_{1−a, n−1} · (1 + λ · γ · (2z² + 1) / (6 z √n)),   z = Φ⁻¹(1 − a),  γ = 1,  λ = 1.5

PASS when L > δ_P; FAIL when U < δ_F (δ_F ≤ δ_P; between them lies the claim's indifference
zone); INCONCLUSIVE otherwise. The claim PASSes when every part PASSes, FAILs when any part
FAILs, and is INCONCLUSIVE otherwise, or by declaration with fewer than ``min_units`` units.
An INCONCLUSIVE part reports the units that would decide it at the measured mean and sd
(:func:`units_needed`, which bisects on the same half-width c·s/√n).

**Why c is not Student's t.** Student's t is exact for normal unit values only. Under skewness
γ the one-sided quantiles of the studentised mean move by about γ(2z² + 1)/(6√n) (the first
Cornish–Fisher term; Hall 1992, "The Bootstrap and Edgeworth Expansion", §2.6), so with
right-skewed units the upper bound U falls short of the true mean too often, and a "greater"
part FAILs falsely (measured with plain t: 0.042–0.058 instead of 0.025 at skewness 1, 3 to
30 units). c adds that term, relative to z and at the declared worst case γ = 1, to both
sides, scaled by λ. λ was measured, not derived: over 10⁶–2·10⁷ simulated sets at n = 2…200
and levels 10⁻⁴…0.025, the smallest λ that keeps the false rate at or below the level is 1.29
for gamma units of skewness 1, 1.40 for the two-component normal mixture of skewness 1 and
excess kurtosis 1.5, 1.21 for the inverse Gaussian and 1.16 for the lognormal; λ = 1.5 covers
them with room. For normal units c > t: the rule is conservative there, and that is the power
it gives up (tabled in docs/verdicts.md).

**The declared class.** No bound on a mean holds for every distribution (Bahadur & Savage
1956): a unit value that is nearly always one number and rarely far from it defeats any rule
at 3 units. The error rates are guaranteed for per-unit values whose skewness lies within
±1 and whose tails are at least as heavy as those of the gamma distribution of the same
skewness (excess kurtosis ≥ 1.5·skewness²): normal, gamma, lognormal, inverse-Gaussian and
two-component normal mixtures within those bounds, skewed either way. There, with the true
mean of T on δ_P, P(PASS) ≤ a, and on δ_F, P(FAIL) ≤ a; measured at 3, 5, 10 and 30 units in
tests/paper_checks/test_decision.py and tabled in docs/verdicts.md. Lighter-tailed skewed
values (a share piled against 0 or 1, a count that is nearly always one value) lie outside it,
and so do values whose skewness exceeds 1. So two independent unit sets give PASS and FAIL
with probability at most 2a.

Per-root-seed units are pooled by concatenation (:meth:`Rule.decide` of the joined lists): the
verdict of a run with R root seeds is the rule applied to all their units, not seed 0's verdict.
:meth:`Rule.verdicts` decides many unit sets at once through the same code as
:meth:`Rule.decide` (for measuring error rates). References: Colas, Sigaud & Oudeyer (2018),
"How many random seeds?", arXiv:1806.08295 (Welch t over seeds, power analysis); Schuirmann
(1987) two one-sided tests for equivalence (:func:`within`); Bahadur & Savage (1956), "The
nonexistence of certain statistical procedures in nonparametric problems", Ann. Math. Stat.
27(4).
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
    "SKEW_BOUND",
    "SKEW_STRETCH",
    "Decision",
    "Part",
    "PartDecision",
    "Rule",
    "bounds",
    "critical_value",
    "pool_units",
    "units_needed",
    "within",
]

#: One-sided level of every rule, before Bonferroni over its parts and its planned looks.
ALPHA = 0.025
#: The declared class: per-unit values of skewness within ±SKEW_BOUND (and tails at least as
#: heavy as a gamma's of that skewness). Both sides of every bound are widened for it.
SKEW_BOUND = 1.0
#: λ: the multiple of the relative Cornish–Fisher skewness term added to t's critical value
#: (measured: 1.40 is the most any family of the class needs; see the module docstring).
SKEW_STRETCH = 1.5
#: Units needed are searched up to this count; beyond it a part is reported as undecidable.
MAX_UNITS = 100_000


def critical_value(n: Any, level: float, skew: float = SKEW_BOUND) -> Any:
    """c(n, a) = t_{1−a, n−1} · (1 + λ·skew·(2z² + 1)/(6z√n)), z = Φ⁻¹(1 − a): the multiple of
    s/√n that each one-sided bound lies from the mean of n units (n ≥ 2; an array of counts
    gives an array). ``skew = 0`` gives Student's t."""
    count = np.asarray(n, dtype=float)
    t = stats.t.ppf(1.0 - level, count - 1)
    z = stats.norm.ppf(1.0 - level)
    c = t * (1.0 + SKEW_STRETCH * skew * (2 * z * z + 1) / (6 * z * np.sqrt(count)))
    return float(c) if np.ndim(c) == 0 else c


def bounds(
    values: Any, level: float, skew: float = SKEW_BOUND
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """(mean, sd, lower, upper, c) over the last axis of ``values`` (one unit set per row): the
    one-sided bounds m ∓ c·s/√n at ``level``. With fewer than 2 units the sd and c are NaN and
    the bounds ±inf (nothing is decided)."""
    x = np.asarray(values, dtype=float)
    n = x.shape[-1]
    shape = x.shape[:-1]
    mean = x.mean(axis=-1) if n else np.full(shape, math.nan)
    if n < 2:
        nan = np.full(shape, math.nan)
        return mean, nan, np.full(shape, -math.inf), np.full(shape, math.inf), math.nan
    sd = x.std(axis=-1, ddof=1)
    c = critical_value(n, level, skew)
    half = c * sd / math.sqrt(n)
    return mean, sd, mean - half, mean + half, c


#: Verdict codes of the vectorised decision (:meth:`Rule.verdicts`).
_CODES = (Verdict.INCONCLUSIVE, Verdict.PASS, Verdict.FAIL)
_OPEN, _PASS, _FAIL = 0, 1, 2


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
    """A part's verdict over ``n`` units: mean, sd, the one-sided bounds at ``level`` (each
    ``critical``·sd/√n from the mean, :func:`critical_value`), and ``units_needed`` (None when
    decided, or when no count would decide it)."""

    part: Part
    verdict: Verdict
    n: int
    mean: float
    sd: float
    lower: float
    upper: float
    level: float
    units_needed: int | None
    critical: float = math.nan

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
            "critical": self.critical,
            "units_needed": self.units_needed,
        }

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> PartDecision:
        """A part decision back from :meth:`to_json` (a stored null stands for a non-finite
        number: ±inf for a missing bound, NaN otherwise; the part's text is not stored)."""

        def number(key: str, missing: float = math.nan) -> float:
            value = record.get(key)
            return missing if value is None else float(value)

        part = Part(
            record["statistic"],
            "",
            record["direction"],
            record["pass_margin"],
            record["fail_margin"],
        )
        return cls(
            part,
            Verdict(record["verdict"]),
            record["n"],
            number("mean"),
            number("sd"),
            number("lower", -math.inf),
            number("upper", math.inf),
            record["level"],
            record.get("units_needed"),
            number("critical"),
        )


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

    def excluded(self) -> list[dict[str, Any]]:
        """What the bounds of an INCONCLUSIVE decision exclude ([] when it is decided): per
        statistic with an undecided part, in the parts' order, ``{"statistic", "above",
        "below", "confidence"}``. A part asserting a large mean ("greater") is undecided while
        its lower bound L does not clear δ_P, but its upper bound U says that the mean lies
        below U at one-sided confidence 1 − level: larger means are excluded ("above": U). A
        part asserting a small mean mirrors it ("below": L). A statistic with parts both ways
        (an equivalence, :func:`within`) has both sides. A side is None where nothing is
        excluded: no part that way, or fewer than 2 units (an infinite bound)."""
        if self.verdict is not Verdict.INCONCLUSIVE:
            return []
        open_ = [p for p in self.parts if p.verdict is Verdict.INCONCLUSIVE]
        entries = []
        for name in dict.fromkeys(p.part.statistic for p in open_):
            parts = [p for p in self.parts if p.part.statistic == name]
            above = [p.upper for p in parts if p.part.direction == "greater"]
            below = [p.lower for p in parts if p.part.direction == "less"]
            level = next(p.level for p in open_ if p.part.statistic == name)
            entries.append(
                {
                    "statistic": name,
                    "above": _finite(min(above)) if above else None,
                    "below": _finite(max(below)) if below else None,
                    "confidence": 1.0 - level,
                }
            )
        return entries

    def excluded_text(self) -> str:
        """:meth:`excluded` in words ("" when decided): 'mean T below U at 97.5% one-sided
        (larger values excluded)', '... above L ... (smaller values excluded)', or 'within
        [L, U] ... (values outside excluded)', joined by "; "."""
        entries = self.excluded()
        if entries and all(e["above"] is None and e["below"] is None for e in entries):
            return "fewer than 2 units: no value is excluded"
        return "; ".join(_excluded_phrase(e) for e in entries)

    def to_json(self) -> dict[str, Any]:
        record = {
            "verdict": self.verdict.value,
            "parts": [p.to_json() for p in self.parts],
            "units": self.units,
            "units_needed": self.units_needed,
            "reason": self.reason,
        }
        if self.verdict is Verdict.INCONCLUSIVE:
            record["excluded"] = self.excluded()
        return record

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Decision:
        """A decision back from :meth:`to_json` (a record's ``decision``)."""
        return cls(
            Verdict(record["verdict"]),
            tuple(PartDecision.from_json(p) for p in record["parts"]),
            {k: list(v) for k, v in record.get("units", {}).items()},
            record.get("units_needed"),
            record.get("reason", ""),
        )


def _finite(x: float) -> float | None:
    """``x``, or None when it is not finite (a bound of fewer than 2 units)."""
    return x if math.isfinite(x) else None


def _excluded_phrase(entry: Mapping[str, Any]) -> str:
    """One entry of :meth:`Decision.excluded` in words."""
    name, above, below = entry["statistic"], entry["above"], entry["below"]
    confidence = f"{100 * entry['confidence']:.4g}% one-sided"
    if above is not None and below is not None:
        return (
            f"mean {name} within [{below:.4g}, {above:.4g}] at {confidence} each side "
            "(values outside excluded)"
        )
    if above is not None:
        return f"mean {name} below {above:.4g} at {confidence} (larger values excluded)"
    if below is not None:
        return f"mean {name} above {below:.4g} at {confidence} (smaller values excluded)"
    return f"mean {name}: no bound (fewer than 2 units)"


def units_needed(
    part: Part, mean: float, sd: float, level: float, min_units: int, skew: float = SKEW_BOUND
) -> int | None:
    """The smallest n ≥ ``min_units`` at which a part with this mean and sd is decided (PASS when
    the mean lies beyond the pass margin, FAIL when beyond the fail margin), by the half-width
    c(n, level)·sd/√n of :func:`bounds`; None when the mean lies in the indifference zone or on
    a margin, or more than :data:`MAX_UNITS` are needed."""
    gap_pass = part.sign * (mean - part.pass_margin)
    gap_fail = part.sign * (part.fail_margin - mean)
    gap = gap_pass if gap_pass > 0 else gap_fail
    if gap <= 0:
        return None
    if sd == 0:
        return min_units

    def decides(n: int) -> bool:  # c(n)·sd/√n falls with n: bisect for the first n
        return critical_value(n, level, skew) * sd / math.sqrt(n) < gap

    lo, hi = max(min_units, 2), MAX_UNITS
    if not decides(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if decides(mid) else (mid + 1, hi)
    return lo


def _part_codes(part: Part, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Per set: :data:`_PASS` when the bound on the claim's side clears the pass margin,
    :data:`_FAIL` when the other falls short of the fail margin, else :data:`_OPEN`."""
    if part.direction == "greater":
        passed, failed = lower > part.pass_margin, upper < part.fail_margin
    else:
        passed, failed = upper < part.pass_margin, lower > part.fail_margin
    return np.where(passed, _PASS, np.where(failed, _FAIL, _OPEN))


def _combine(codes: Sequence[np.ndarray], n: int, min_units: int) -> np.ndarray:
    """The claim's code per set: FAIL when any part FAILs, PASS when every part PASSes, else
    open; open for every set with fewer than ``min_units`` units."""
    stacked = np.stack(codes)
    claim = np.where(
        (stacked == _FAIL).any(axis=0),
        _FAIL,
        np.where((stacked == _PASS).all(axis=0), _PASS, _OPEN),
    )
    return claim if n >= min_units else np.full_like(claim, _OPEN)


@dataclass(frozen=True)
class Rule:
    """A claim's three-way rule: its parts, the one-sided level ``alpha`` (split over the parts
    and over the planned looks) and the fewest units it decides with (``min_units``; fewer are
    INCONCLUSIVE by declaration). ``unit`` says what one unit is, for the generated rule text."""

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
        """The one-sided level of each part at one look: α / (number of parts)."""
        return self.level_at(1)

    def level_at(self, looks: int) -> float:
        """The one-sided level of each part when α is spent over ``looks`` planned looks:
        α / (looks · number of parts)."""
        if looks < 1:
            raise ValueError(f"looks must be ≥ 1 (got {looks})")
        return self.alpha / (looks * len(self.parts))

    def text(self, looks: Mapping[str, Sequence[int]] | None = None) -> str:
        """The rule in words, generated from its parts and margins, and from the planned looks
        (scale -> root-seed counts, :attr:`paper_checks.claims.Claim.looks`): α spent over
        several, or the one look's root seeds."""
        m = len(self.parts)
        level = f"one-sided level {self.alpha:g}" + (f"/{m} (Bonferroni)" if m > 1 else "")
        planned = [
            f"at {scale} α is spent over {len(counts)} planned looks, at "
            f"{_and(str(c) for c in counts)} root seeds (level {self.alpha:g}/"
            f"{len(counts) * m if m > 1 else len(counts)} per part and look)"
            for scale, counts in sorted((looks or {}).items())
            if len(counts) > 1
        ]
        if planned:
            level += "; " + "; ".join(planned)
            level += "; a run adds the next look's root seeds only while the claim is undecided"
        level += "".join(
            f"; at {scale} one look, at {counts[0]} root seeds or as many as --replicates asks"
            for scale, counts in sorted((looks or {}).items())
            if len(counts) == 1
        )
        body = "; ".join(p.describe() for p in self.parts)
        text = (
            f"Units: {self.unit}. Bounds on the mean over units, m ± c·s/√n, {level}; c is "
            f"Student's t critical value widened for skewed unit values (c = t·(1 + "
            f"{SKEW_STRETCH:g}·(2z² + 1)/(6z√n)), z the normal quantile), so that the error "
            f"rates hold for unit values of skewness within ±{SKEW_BOUND:g} whose tails are at "
            f"least as heavy as a gamma's. {body}. The claim PASSes when every part PASSes and "
            "FAILs when any part FAILs; otherwise INCONCLUSIVE, with the units that would "
            f"decide it; fewer than {self.min_units} units are INCONCLUSIVE by declaration. "
            "With --replicates the units of all root seeds are pooled."
        )
        return f"{text} {self.note}".strip()

    def _clean(self, units: Mapping[str, Sequence[float]]) -> dict[str, list[float]]:
        clean: dict[str, list[float]] = {}
        for name in self.statistics:
            if name not in units:
                raise ValueError(f"units lack the statistic {name!r} of the rule")
            values = [float(v) for v in units[name]]
            if not all(math.isfinite(v) for v in values):
                raise ValueError(f"units of {name!r} must be finite numbers (got {values})")
            clean[name] = values
        return clean

    def _evaluate(
        self, arrays: Mapping[str, np.ndarray], level: float, skew: float = SKEW_BOUND
    ) -> tuple[list[tuple[Any, ...]], np.ndarray, int]:
        """Per part (mean, sd, lower, upper, c, codes) over the rows of ``arrays`` (statistic
        -> sets × units), the claim's code per set, and the fewest units of any statistic."""
        per_part = []
        for part in self.parts:
            mean, sd, lower, upper, c = bounds(arrays[part.statistic], level, skew)
            per_part.append((mean, sd, lower, upper, c, _part_codes(part, lower, upper)))
        n = min(arrays[p.statistic].shape[-1] for p in self.parts)
        return per_part, _combine([p[-1] for p in per_part], n, self.min_units), n

    def verdicts(
        self, units: Mapping[str, Any], looks: int = 1, skew: float = SKEW_BOUND
    ) -> np.ndarray:
        """The verdict of each of many unit sets at once: ``units`` maps each statistic to an
        array of sets × units (one row per set), decided as :meth:`decide` decides one set
        (``skew`` other than :data:`SKEW_BOUND` only to compare, e.g. 0 for Student's t).
        Returns an array of :class:`Verdict`."""
        arrays = {name: np.asarray(units[name], dtype=float) for name in self.statistics}
        _, codes, _ = self._evaluate(arrays, self.level_at(looks), skew)
        return np.asarray(_CODES, dtype=object)[codes]

    def decide(self, units: Mapping[str, Sequence[float]], looks: int = 1) -> Decision:
        """The verdict over ``units`` (statistic -> one value per unit), with α spent over
        ``looks`` planned looks. Raises ``ValueError`` on a missing statistic or a value that is
        not a finite number."""
        clean = self._clean(units)
        level = self.level_at(looks)
        arrays = {name: np.asarray(values, dtype=float)[None, :] for name, values in clean.items()}
        per_part, codes, n = self._evaluate(arrays, level)
        parts = [
            PartDecision(
                part,
                _CODES[int(code[0])] if n >= self.min_units else Verdict.INCONCLUSIVE,
                len(clean[part.statistic]),
                float(mean[0]),
                float(sd[0]),
                float(lower[0]),
                float(upper[0]),
                level,
                None,
                float(c),
            )
            for part, (mean, sd, lower, upper, c, code) in zip(self.parts, per_part, strict=True)
        ]
        parts = [replace(p, units_needed=_part_units_needed(p, self.min_units)) for p in parts]
        verdict = _CODES[int(codes[0])]
        if n < self.min_units:
            reason = f"{n} unit(s): fewer than the {self.min_units} this rule decides with"
            needed = max(self.min_units, _claim_units_needed(parts) or self.min_units)
            return Decision(Verdict.INCONCLUSIVE, tuple(parts), clean, needed, reason)
        needed = _claim_units_needed(parts) if verdict is Verdict.INCONCLUSIVE else None
        return Decision(verdict, tuple(parts), clean, needed)


def _and(items: Iterable[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    words = list(items)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" and {words[-1]}"


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
