"""The claim registry.

A claim is a function ``(ctx) -> CheckResult`` registered with :func:`claim`::

    @claim("rlvr.tilt_never_crosses", paper="rlvr",
           statement="The KL-regularised optimum never falls below the base model at any k.",
           source="Yue et al. 2025 (arXiv 2504.13837), the KL-regularised optimum",
           rule="PASS when min_k pass@k(tilt) − pass@k(base) ≥ −1e-12; FAIL otherwise.",
           stochastic=False, paper_plan=PAPER_PLAN, reproduces_to=0.0)
    def tilt_never_crosses(ctx, *, tilt=passk.tilt) -> CheckResult:
        ...

Keyword-only parameters after ``ctx`` carry the theory under test with our implementation as the
default, so a test can hand the check a wrong theory and see it FAIL. ``paper_plan`` says what
``--scale paper`` does with the claim (:mod:`paper_checks.paper_scale`; a check module declares
its paper's plan once and passes it, or the claim's own, at each registration) and
``reproduces_to`` the tolerance within which its quick check reproduces its committed record.

Every claim states, when it is registered and so before any run, its ``rule`` (what PASSes, what
FAILs and when INCONCLUSIVE is allowed) and whether it is ``stochastic``. A stochastic claim names
the scalar in ``measured`` that decides it (``statistic``), which ``--replicates`` reports under
every root seed. A change of rule, statistic, sizes or seeds made after a verdict had been seen is
recorded in ``history`` (:class:`HistoryEntry`), shown beside the verdict in reports and docs.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paper_checks.context import Context
    from paper_checks.decision import Rule
    from paper_checks.paper_scale import Plan
    from paper_checks.results import CheckResult

CheckFn = Callable[["Context"], "CheckResult"]

#: Paper keys, in the order the README lists the papers.
PAPERS = {
    "online": "Optimal Mistake Bounds for Transductive Online Learning",
    "diffusion": "Why Diffusion Models Don't Memorize",
    "superposition": "Superposition Yields Robust Neural Scaling",
    "gated_attention": "Gated Attention for Large Language Models",
    "deep_crl": "1000 Layer Networks for Self-Supervised RL",
    "rlvr": "Does Reinforcement Learning Really Incentivize Reasoning Capacity in LLMs?",
    "hivemind": "Artificial Hivemind: The Open-Ended Homogeneity of Language Models",
    "faster_rcnn": "Faster R-CNN: Towards Real-Time Object Detection with Region Proposal Networks",
}


@dataclass(frozen=True)
class HistoryEntry:
    """A change to a claim's rule, statistic, sizes or seeds made after a verdict had been seen.

    ``before`` is the verdict (with its deciding number) that the old rule gave.
    """

    date: str
    change: str
    reason: str
    before: str

    def __post_init__(self) -> None:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", self.date):
            raise ValueError(f"history date must be YYYY-MM-DD (got {self.date!r})")
        for name in ("change", "reason", "before"):
            if not getattr(self, name).strip():
                raise ValueError(f"history entry of {self.date} needs a non-empty {name!r}")

    def to_json(self) -> dict[str, str]:
        return {
            "date": self.date,
            "change": self.change,
            "reason": self.reason,
            "before": self.before,
        }


def study_entry(
    date: str,
    scale: str,
    number: int,
    looks: Iterable[int],
    *,
    power: tuple[float, float, float],
    reason: str,
    before: str,
) -> HistoryEntry:
    """The history entry that declares confirmatory study ``number`` at ``scale``
    (:attr:`Claim.studies`), planned to look at ``looks`` root seeds, made when the earlier
    study ended ``before``. ``power``: what the earlier study's units predict for it
    (:func:`paper_checks.calibration.study_power`): the probabilities that it is decided at
    its first look, and that it ends PASS and FAIL (the earlier study's record is kept as the
    pilot in the reference, ``pilots.json``)."""
    counts = ", ".join(map(str, looks))
    first, passes, fails = power
    return HistoryEntry(
        date=date,
        change=f"confirmatory study {number} at {scale}: fresh root seeds (the run's seed + "
        f"{STUDY_SEED_STRIDE:,} × {number - 1}), looks at {counts} root seeds with α spent "
        "evenly over them, declared before any of its units was drawn; the earlier study's "
        "units are not pooled with its own. Planned from them (normal units with their means "
        f"and covariance): decided at the first look with probability {first:.2f}, ending "
        f"PASS {passes:.2f}, FAIL {fails:.2f}",
        reason=reason,
        before=before,
    )


@dataclass(frozen=True)
class PaperEffect:
    """What the paper reports for one deciding ``statistic`` of a claim, shown beside the effect
    an INCONCLUSIVE verdict's interval excludes (:func:`paper_checks.runner.excluded_statement`).

    ``value``: the paper's number in the statistic's own units, or None where the paper has no
    like-for-like number; ``text``: what the paper shows (and, without a value, why it is not in
    the statistic's units); ``source``: the figure or table it comes from. Descriptive: it
    computes nothing and is not part of the claim's fingerprint."""

    statistic: str
    value: float | None
    text: str
    source: str

    def __post_init__(self) -> None:
        for name in ("statistic", "text", "source"):
            if not getattr(self, name).strip():
                raise ValueError(f"a paper effect needs a non-empty {name!r}")
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError(f"paper effect of {self.statistic!r}: value must be finite or None")


@dataclass(frozen=True)
class Claim:
    """A registered, executable claim of a paper.

    ``rule``: what PASSes, what FAILs, when INCONCLUSIVE is allowed, fixed before the run.
    ``stochastic``: the verdict depends on the root seed (simulations, training); exact solvers
    and closed forms are deterministic and are not replicated. ``statistic``: the key of
    ``measured`` whose scalar value decides the verdict (reported per root seed).

    A stochastic claim is one of two kinds. ``decision``: a statistical claim, decided by a
    three-way :class:`~paper_checks.decision.Rule` over independent units (its ``rule`` text is
    generated from it, and with ``--replicates`` the units of every root seed are pooled).
    Without a decision it declares ``exact_over_instances``: an exact check over random
    instances (or a Monte Carlo identity with a family-wise test), where one violation is a
    counterexample (:attr:`exact`): it FAILs when any root seed FAILs and PASSes when every root
    seed PASSes.

    ``looks``: scale -> the root-seed counts at which a decided claim is looked at, in order
    (each look's units include the earlier ones), fixed before the looks they add are made. The
    runner adds root seeds look by look until the claim is decided or the last look is made
    (:func:`paper_checks.runner.run_claims`), and α is spent evenly over the K looks planned at
    that scale (level α/K per look, Bonferroni). A scale not listed has one look.

    ``not_run_at``: scale -> why the claim does not run there (its experiment has no version
    at that size); the runner records it as NOT_RUN without calling the check, shown apart
    from the verdicts.

    ``backends``: the array backends its experiment computes on (``sims._backend.BACKENDS``);
    under any other ``--backend`` the runner gives it numpy and its record says so.

    ``devices``: the torch devices its experiment trains on (``sims._backend.DEVICES``); under
    any other ``--device`` the runner gives it the CPU and its record says so.
    ``paper_effects``: what the paper reports for the statistics of its decision
    (:class:`PaperEffect`), set beside what an INCONCLUSIVE interval excludes.

    ``studies``: scale -> the number k ≥ 2 of the confirmatory study that scale runs, declared
    (with its ``looks`` and a dated :class:`HistoryEntry`) when study k − 1's looks were spent
    undecided. Study k draws its units from root seeds no earlier study drew from: the run's
    seed plus :data:`STUDY_SEED_STRIDE` · (k − 1) (:meth:`root_seed`), so its error rates hold
    whatever the earlier study showed. A scale not listed runs study 1, the run's own seed.

    ``paper_plan``: what ``--scale paper`` does with the claim
    (:class:`~paper_checks.paper_scale.PaperSizes` or
    :class:`~paper_checks.paper_scale.Refused`, :func:`~paper_checks.paper_scale.plan_for`).

    ``reproduces_to``: the relative tolerance on floats within which the claim's quick check
    under root seed 0 reproduces its committed quick reference record on another machine: 0.0
    (bit for bit) unless a number goes through a BLAS kernel, a special function or a numpy SIMD
    loop whose rounding differs between CPUs and library builds (1e-12, absolute below magnitude
    1); None where that is not pinned
    (tests/paper_checks/test_refactor_pins.py).
    """

    id: str
    paper: str
    statement: str
    source: str
    check: CheckFn
    rule: str
    stochastic: bool
    statistic: str | None = None
    history: tuple[HistoryEntry, ...] = ()
    decision: Rule | None = None
    looks: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    not_run_at: Mapping[str, str] = field(default_factory=dict)
    backends: tuple[str, ...] = ("numpy",)
    devices: tuple[str, ...] = ("cpu",)
    paper_effects: tuple[PaperEffect, ...] = ()
    studies: Mapping[str, int] = field(default_factory=dict)
    exact_over_instances: bool = False
    paper_plan: Plan | None = None
    reproduces_to: float | None = None

    @property
    def exact(self) -> bool:
        """A stochastic claim declared ``exact_over_instances``: an exact check over random
        instances, where one violation is a counterexample."""
        return self.stochastic and self.exact_over_instances

    def looks_at(self, scale: str | None) -> tuple[int, ...]:
        """The planned root-seed counts of the looks at ``scale`` (empty: one look)."""
        return tuple(self.looks.get(scale or "", ()))

    def look_count(self, scale: str | None) -> int:
        """K, the number of looks α is spent over at ``scale``: the planned count, else 1."""
        return max(1, len(self.looks_at(scale)))

    def study_at(self, scale: str | None) -> int:
        """The number of the study the claim runs at ``scale`` (1 unless declared)."""
        return self.studies.get(scale or "", 1)

    def root_seed(self, seed: int, scale: str | None) -> int:
        """The root seed the claim's units are drawn from in a run of root seed ``seed`` at
        ``scale``: ``seed + STUDY_SEED_STRIDE · (k − 1)`` for study k there."""
        return seed + STUDY_SEED_STRIDE * (self.study_at(scale) - 1)


#: Root seeds between studies: study k of a claim draws from the run's seed + this · (k − 1), a
#: seed no reference run, test or replicate of an earlier study has used.
STUDY_SEED_STRIDE = 1_000_000

_REGISTRY: dict[str, Claim] = {}


def claim(
    claim_id: str,
    *,
    paper: str,
    statement: str,
    source: str,
    rule: str | None = None,
    stochastic: bool,
    statistic: str | None = None,
    history: Iterable[HistoryEntry] = (),
    decision: Rule | None = None,
    looks: Mapping[str, Iterable[int]] | None = None,
    not_run_at: Mapping[str, str] | None = None,
    backends: Iterable[str] = ("numpy",),
    devices: Iterable[str] = ("cpu",),
    paper_effects: Iterable[PaperEffect] = (),
    studies: Mapping[str, int] | None = None,
    exact_over_instances: bool = False,
    paper_plan: Plan | None = None,
    reproduces_to: float | None = None,
) -> Callable[[CheckFn], CheckFn]:
    """Register the decorated function as the check of claim ``claim_id`` (``<paper>.<name>``).

    ``rule`` must say what PASSes and what FAILs; with a ``decision`` it may be left out (its
    text is generated from the decision's parts and margins, and from its planned ``looks``,
    scale -> increasing root-seed counts, :attr:`Claim.looks`) or give only a preamble. A
    ``stochastic`` claim must name its deciding ``statistic`` and have a ``decision`` or declare
    itself ``exact_over_instances``, an exact check over random instances (:attr:`Claim.exact`).
    ``paper_effects`` name statistics of the ``decision`` (:attr:`Claim.paper_effects`).
    ``studies`` (:attr:`Claim.studies`) name a confirmatory study k ≥ 2 at a scale where the
    claim plans its looks; its rule text says so. Every claim declares its ``paper_plan``
    (:attr:`Claim.paper_plan`); ``reproduces_to`` (:attr:`Claim.reproduces_to`) is None or a
    relative tolerance ≥ 0.
    """
    planned = _planned_looks(claim_id, looks, decision)
    confirmatory = _declared_studies(claim_id, studies, planned, history)
    skipped = dict(not_run_at or {})
    from paper_checks.context import SCALES
    from sims._backend import BACKENDS, DEVICES

    computes_on = tuple(backends)
    if "numpy" not in computes_on or not set(computes_on) <= set(BACKENDS):
        raise ValueError(
            f"claim {claim_id!r}: backends must include 'numpy' and name only {BACKENDS} "
            f"(got {computes_on})"
        )
    trains_on = tuple(devices)
    if "cpu" not in trains_on or not set(trains_on) <= set(DEVICES):
        raise ValueError(
            f"claim {claim_id!r}: devices must include 'cpu' and name only {DEVICES} "
            f"(got {trains_on})"
        )
    for scale, why in skipped.items():
        if scale not in SCALES or not str(why).strip():
            raise ValueError(
                f"claim {claim_id!r}: not_run_at maps a scale of {SCALES} to a reason "
                f"(got {scale!r}: {why!r})"
            )
    if decision is not None:
        text = decision.text(looks=planned) + _studies_text(confirmatory)
        rule = f"{rule.strip()} {text}" if rule else text
        if not stochastic:
            raise ValueError(f"claim {claim_id!r}: a decision over units needs stochastic=True")
        statistic = statistic or decision.statistics[0]
    if rule is None:
        raise ValueError(f"claim {claim_id!r} needs a rule or a decision")
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)} (got {paper!r})")
    if not claim_id.startswith(f"{paper}."):
        raise ValueError(f"claim id {claim_id!r} must start with its paper key {paper!r}")
    if "PASS" not in rule or "FAIL" not in rule:
        raise ValueError(f"the rule of {claim_id!r} must say what PASSes and what FAILs")
    if stochastic and not statistic:
        raise ValueError(f"stochastic claim {claim_id!r} must name its deciding statistic")
    if stochastic and decision is None and not exact_over_instances:
        raise ValueError(
            f"stochastic claim {claim_id!r} needs a decision over units or, as an exact check "
            "over random instances, exact_over_instances=True"
        )
    if exact_over_instances and (not stochastic or decision is not None):
        raise ValueError(
            f"claim {claim_id!r}: exact_over_instances=True declares a stochastic claim without "
            "a decision over units"
        )
    entries = tuple(history)
    effects = tuple(paper_effects)
    unknown = [
        e.statistic for e in effects if decision is None or e.statistic not in decision.statistics
    ]
    if unknown:
        raise ValueError(
            f"claim {claim_id!r}: paper_effects name {unknown}, not statistics of its decision"
        )
    if [e.date for e in entries] != sorted(e.date for e in entries):
        raise ValueError(f"the history of {claim_id!r} must be in date order")
    _check_paper_plan(claim_id, paper_plan)
    if reproduces_to is not None and not (
        isinstance(reproduces_to, float) and math.isfinite(reproduces_to) and reproduces_to >= 0
    ):
        raise ValueError(
            f"claim {claim_id!r}: reproduces_to must be None or a finite float ≥ 0 "
            f"(got {reproduces_to!r})"
        )

    def register(fn: CheckFn) -> CheckFn:
        if claim_id in _REGISTRY and _REGISTRY[claim_id].check is not fn:
            raise ValueError(f"claim {claim_id!r} is registered twice")
        _REGISTRY[claim_id] = Claim(
            claim_id,
            paper,
            statement,
            source,
            fn,
            rule,
            stochastic,
            statistic,
            entries,
            decision,
            planned,
            skipped,
            computes_on,
            trains_on,
            effects,
            confirmatory,
            exact_over_instances,
            paper_plan,
            reproduces_to,
        )
        return fn

    return register


def _check_paper_plan(claim_id: str, paper_plan: Plan | None) -> None:
    """Raise ``ValueError`` unless ``paper_plan`` is a plan: what ``--scale paper`` does with the
    claim (:data:`paper_checks.paper_scale.Plan`)."""
    from paper_checks.paper_scale import PaperSizes, Refused

    if not isinstance(paper_plan, PaperSizes | Refused):
        raise ValueError(  # noqa: TRY004
            f"claim {claim_id!r} needs a paper_plan: PaperSizes (what --scale paper runs) or "
            f"Refused (why it does not) from paper_checks.paper_scale (got {paper_plan!r})"
        )


def _planned_looks(
    claim_id: str, looks: Mapping[str, Iterable[int]] | None, decision: Rule | None
) -> dict[str, tuple[int, ...]]:
    """``looks`` checked: only a claim with a decision has them, each at a known scale, as
    strictly increasing positive root-seed counts."""
    from paper_checks.context import SCALES

    planned = {scale: tuple(counts) for scale, counts in (looks or {}).items()}
    if planned and decision is None:
        raise ValueError(f"claim {claim_id!r}: planned looks need a decision over units")
    for scale, counts in planned.items():
        if scale not in SCALES:
            raise ValueError(f"claim {claim_id!r}: looks at unknown scale {scale!r}")
        ok = all(isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in counts)
        if not counts or not ok or list(counts) != sorted(set(counts)):
            raise ValueError(
                f"claim {claim_id!r}: looks at {scale} must be increasing positive root-seed "
                f"counts (got {counts})"
            )
    return planned


def _declared_studies(
    claim_id: str,
    studies: Mapping[str, int] | None,
    planned: Mapping[str, tuple[int, ...]],
    history: Iterable[HistoryEntry],
) -> dict[str, int]:
    """``studies`` checked: each a study number k ≥ 2 at a scale where the claim plans its looks
    (a confirmatory study states in advance when it stops), declared with a history entry."""
    declared = dict(studies or {})
    for scale, k in declared.items():
        if isinstance(k, bool) or not isinstance(k, int) or k < 2:
            raise ValueError(
                f"claim {claim_id!r}: studies map a scale to a study number ≥ 2 (got {scale!r}: "
                f"{k!r})"
            )
        if scale not in planned:
            raise ValueError(
                f"claim {claim_id!r}: the confirmatory study at {scale} needs its planned looks "
                f"there (looks={{{scale!r}: ...}})"
            )
    if declared and not any("study" in entry.change for entry in history):
        raise ValueError(
            f"claim {claim_id!r}: a confirmatory study needs a history entry whose change "
            "names the study"
        )
    return declared


def _studies_text(studies: Mapping[str, int]) -> str:
    """The rule's sentence on its confirmatory studies ("" without one)."""
    return "".join(
        f" At {scale} this is confirmatory study {k}: its units come from root seeds no earlier "
        f"study drew from (the run's seed + {STUDY_SEED_STRIDE:,} × {k - 1}), and only they "
        "decide it; the earlier study's verdict is in the history."
        for scale, k in sorted(studies.items())
    )


def _load_checks() -> None:
    """Import every module of :mod:`paper_checks.checks` so that its claims register."""
    from paper_checks import checks

    for module in pkgutil.iter_modules(checks.__path__):
        importlib.import_module(f"{checks.__name__}.{module.name}")


def all_claims() -> list[Claim]:
    """Every registered claim, ordered by paper (as in :data:`PAPERS`) then id."""
    _load_checks()
    order = {key: i for i, key in enumerate(PAPERS)}
    return sorted(_REGISTRY.values(), key=lambda c: (order[c.paper], c.id))


def select_claims(selectors: Iterable[str]) -> list[Claim]:
    """The claims named by paper keys or claim ids, in registry order, without repeats.

    Raises ``ValueError`` naming the first selector that matches nothing.
    """
    claims = all_claims()
    chosen: set[str] = set()
    for selector in selectors:
        matched = {c.id for c in claims if selector in (c.id, c.paper)}
        if not matched and selector in PAPERS:
            raise ValueError(f"paper {selector!r} has no claims yet")
        if not matched:
            known = sorted({c.paper for c in claims})
            raise ValueError(
                f"no paper or claim named {selector!r} (papers with claims: {', '.join(known)}; "
                "see 'paper-checks list')"
            )
        chosen |= matched
    return [c for c in claims if c.id in chosen]
