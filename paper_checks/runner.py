"""Run claims: give each its context, time it, catch its crash, stamp its provenance."""

from __future__ import annotations

import contextlib
import errno
import functools
import importlib.metadata
import importlib.util
import logging
import os
import platform
import queue
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from paper_checks import _files
from paper_checks._caches import set_aside_unreadable
from paper_checks.claims import PAPERS, Claim, PaperEffect
from paper_checks.context import SCALES, Context
from paper_checks.results import RUN_FOLDERS, CheckResult, UnitsResult, Verdict, write_claim
from sims._backend import get_backend

logger = logging.getLogger(__name__)

_VERSIONED = (
    "paper-checks",
    "numpy",
    "scipy",
    "numba",
    "matplotlib",
    "torch",
    "dask",
    "cupy-cuda12x",
)


@functools.cache
def package_versions() -> dict[str, str]:
    """Versions of Python and of the installed packages a result may depend on."""
    versions = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


#: Where a CPU offers more than AVX2 (AVX-512), torch's own kernels, and MKL's and oneDNN's under
#: them, would pick longer vector loops that sum in another order: a float32 training run then
#: ends in other bits, and a chaotic one (the sink testbed, 2000 steps at LR 2e-2) in another
#: sink. A run holds them to AVX2, which every x86-64 machine of this project has, so that a seed
#: gives the same numbers on either kind (measured: the quick sink runs of root seed 0 on an
#: AVX-512 machine equal the reference's, made on an AVX2 one, only so; the speed is the same to
#: 2%). Each variable is read at its library's first operation, so setting them before any torch
#: operation of the process holds it, and the worker processes a run starts inherit them.
CPU_KERNEL_ENV = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
}


def hold_cpu_kernels() -> None:
    """On x86-64, set each variable of :data:`CPU_KERNEL_ENV` that the environment does not set
    already (``ATEN_CPU_CAPABILITY=default`` lets torch pick again); elsewhere do nothing. Called
    by the CLI before any check computes, and by the test suite; a notebook that wants the
    records' numbers calls it before its first torch operation."""
    if platform.machine().lower() in ("x86_64", "amd64"):
        for name, value in CPU_KERNEL_ENV.items():
            os.environ.setdefault(name, value)


@functools.cache
def cpu_kernels() -> dict[str, str]:
    """The vector instruction set torch's CPU kernels use in this process (``{"torch": "AVX2"}``),
    or {} without a torch that imports (a claim that needs none still runs): a record's
    provenance keeps it, since other kernels give other bits."""
    if importlib.util.find_spec("torch") is None:
        return {}
    try:
        import torch
    except (ImportError, OSError):  # a broken install: the torch claims say so themselves
        return {}
    return {"torch": torch.backends.cpu.get_cpu_capability()}


@functools.cache
def git_sha() -> str | None:
    """The commit of the source tree this package was imported from, if it is the root of a git
    checkout (suffixed ``-dirty`` when it has uncommitted changes); None for an installed wheel,
    even one installed into a virtual environment inside some other repository."""
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():  # a folder in a clone, a file in a git worktree
        return None
    try:
        sha = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return f"{sha}-dirty" if dirty else sha


def provenance(
    ctx: Context, wall_time_s: float, cpu_time_s: float | None = None, code: str | None = None
) -> dict[str, Any]:
    """Where a result came from: seed (and replicate), scale, backend and device, versions, the
    CPU kernels torch used (:func:`cpu_kernels`), git sha, wall and CPU time, and the fingerprint of the code the claim's check can run
    (:func:`claim_fingerprint`), by which a stored result is known to be stale. Where
    ``device`` names the array backend's (a GPU), ``torch_device`` names the torch device."""
    torch_device = {} if ctx.computes_on == ctx.device else {"torch_device": ctx.device}
    return {
        "seed": ctx.seed,
        "replicate": ctx.replicate,
        "scale": ctx.scale,
        "backend": ctx.backend.name,
        "device": ctx.computes_on,
        "versions": package_versions(),
        "cpu_kernels": cpu_kernels(),
        "git_sha": git_sha(),
        "wall_time_s": round(wall_time_s, 3),
        "cpu_time_s": None if cpu_time_s is None else round(cpu_time_s, 3),
        "code": code,
    } | torch_device


#: Modules that record, present or register results but compute none of their numbers: a claim's
#: fingerprint leaves them out, so that editing a report or a plot style does not make every
#: stored result stale. ``paper_checks.decision`` turns a record's stored units into its verdict;
#: every reference verdict is recomputed from its committed units by the tests
#: (test_claim_contract.py), so a change of the decision shows there, not as a stale record.
PRESENTATION_MODULES = frozenset(
    {
        "paper_checks",
        "paper_checks.claims",
        "paper_checks.decision",
        "paper_checks.results",
        "paper_checks.plotting",
        "paper_checks._inputs",
        # how fingerprints are taken computes no number either
        "sims._fingerprint",
        # one figure module per paper: figures draw what a check measured, they compute none of it
        "paper_checks.figures",
        *(f"paper_checks.figures.{paper}" for paper in PAPERS),
    }
)

#: The registry's descriptive keywords of :func:`paper_checks.claims.claim`: words about a claim
#: that compute none of its numbers (the record copies them, and the tests hold the copies equal
#: to the registry), left out of its fingerprint like docstrings and comments; likewise its
#: planned ``looks`` (how many root seeds the runner adds, not what a root seed computes) and its
#: confirmatory ``studies`` (which root seeds it draws from: the record's provenance says), its
#: ``exact_over_instances`` (how the runner pools root seeds, not what one computes), its
#: ``paper_plan`` (what ``--scale paper --dry-run`` prints: the paper's sizes themselves are the
#: check's ``ctx.pick``), its ``reproduces_to`` (a test's tolerance), its ``decision`` rule (a
#: check that returns a :class:`~paper_checks.results.UnitsResult` never reads it: the runner
#: decides the stored units by today's rule), every argument of a dated
#: :class:`~paper_checks.claims.HistoryEntry` or of a :class:`~paper_checks.claims.PaperEffect`
#: (what the paper reports), a rule's ``note``, and the
#: ``summary``, ``tolerance`` and ``figures`` of a :class:`~paper_checks.results.CheckResult`
#: (with whatever only they read), so that a claim's words and figures can be corrected without
#: staling its records.
DESCRIPTIVE_KEYWORDS = (
    *(
        ("claim", keyword)
        for keyword in (
            "statement",
            "source",
            "rule",
            "history",
            "looks",
            "not_run_at",
            "backends",
            "devices",
            "paper_effects",
            "studies",
            "exact_over_instances",
            "paper_plan",
            "reproduces_to",
            # the rule: the runner applies it to the stored units (so does `report
            # --redecide`), and the tests recompute every reference verdict from them
            "decision",
        )
    ),
    ("HistoryEntry", "*"),
    ("PaperEffect", "*"),
    ("Rule", "note"),
    # a result's words: its summary and tolerance text describe numbers the record holds
    ("CheckResult", "summary"),
    ("CheckResult", "tolerance"),
    # and its figures, drawn from what it measured (with what only draws them in the check's
    # body: sims._fingerprint.without_drawing)
    ("CheckResult", "figures"),
    # what a claim decided over units returns: its words and how its figure is drawn
    ("UnitsResult", "summary"),
    ("UnitsResult", "draw"),
)


def claim_fingerprint(claim: Claim, scale: str, device: str = "cpu", backend: str = "numpy") -> str:
    """sha256 of the code the claim's check can run at ``scale``: the check function and what it
    reads in its own module (:func:`sims._fingerprint.module_slice`: the definitions, constants
    and imports it uses, transitively), and every project module those import, transitively
    (:func:`sims._fingerprint.code_fingerprint`: comments, docstrings, ``__all__`` and guards
    left out), as a run at ``scale`` reads them (:func:`sims._fingerprint.at_scale`: each
    ``ctx.pick`` by its argument at that scale, each branch on ``ctx.scale`` by the branch
    taken) and on that torch ``device`` and array ``backend`` (:func:`sims._fingerprint.
    at_placement`: what carries a run to a GPU is the identity on the CPU and numpy), less :data:`PRESENTATION_MODULES` and the :data:`DESCRIPTIVE_KEYWORDS` of its
    registration: the code that computes the claim's numbers at that scale (the check, its
    theory, simulations and networks, the context's seeds and sizes, the sweep engine). Editing
    another claim's check in the same module, or another scale's sizes, leaves it as it was. A
    result whose fingerprint differs from today's was made by other code."""
    from sims._fingerprint import code_fingerprint

    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)} (got {scale!r})")
    return code_fingerprint(
        claim.check,
        skip=PRESENTATION_MODULES,
        ignore=DESCRIPTIVE_KEYWORDS,
        sliced=True,
        scale=scale,
        device=device,
        backend=backend,
    )


def placement(claim: Claim, ctx: Context) -> tuple[str, str]:
    """(torch device, array backend) that ``claim`` computes on in a run of ``ctx``: the run's,
    where the claim declares a path on them (:attr:`Claim.devices`, :attr:`Claim.backends`),
    else the CPU and numpy."""
    device = ctx.device if ctx.device in claim.devices else "cpu"
    return device, ctx.backend.name if ctx.backend.name in claim.backends else "numpy"


def made_by_todays_code(claim: Claim, provenance: Mapping[str, Any]) -> bool:
    """Whether a record with this ``provenance`` was made by today's code of ``claim`` at the
    record's own scale, torch device and array backend (:func:`claim_fingerprint`); False for a
    record without code or scale."""
    scale = provenance.get("scale")
    if scale not in SCALES:
        return False
    device = provenance.get("torch_device", provenance.get("device", "cpu"))
    device = "cpu" if device == "cpu" else "cuda"
    backend = provenance.get("backend", "numpy")
    return provenance.get("code") == claim_fingerprint(claim, scale, device, backend)


def run_claim(claim: Claim, ctx: Context, replicates: int = 1) -> CheckResult:
    """Check one claim in its own context and write its ``.json``/``.npz`` to ``ctx.out_dir``.

    A crash becomes an ERROR verdict holding the traceback, so one broken check cannot hide the
    verdicts of the others. With ``replicates = R > 1`` a stochastic claim is also checked under
    ``R - 1`` independent root seeds; its verdict is then theirs together (:func:`pooled_verdict`)
    and the record gains ``replication`` (:func:`replicate_claim`).
    """
    return run_claims([claim], ctx, replicates, concurrency=1)[0]


def _replicate_context(claim: Claim, ctx: Context, r: int) -> Context:
    """Replicate ``r`` of ``claim``: root seed :meth:`Context.root_entropy` of ``r``, run in
    ``out_dir/replicates/r<r>`` (replicate 0 is the run itself) so that its sweeps are cached
    and resume after a kill. The seed is that of the claim's study at the run's scale
    (:meth:`Claim.root_seed`): the run's own but for a confirmatory study."""
    seed = claim.root_seed(ctx.seed, ctx.scale)
    if r == 0:
        return replace(ctx, claim_id=claim.id, seed=seed)
    return replace(
        ctx,
        claim_id=claim.id,
        seed=seed,
        replicate=r,
        out_dir=ctx.out_dir / "replicates" / f"r{r}",
    )


def replicate_claim(claim: Claim, ctx: Context, runs: list[CheckResult]) -> dict[str, Any]:
    """The replication record of ``claim`` from its ``runs`` under root seeds 0, 1, ..., R − 1
    (``runs[0]`` is the primary): each root seed's own verdict and deciding statistic (a
    diagnostic: the headline verdict is :func:`pooled_verdict`'s), their counts, ``agree`` and
    ``rate``, the root seeds whose own verdict equals the pooled one, and ``fragile``, whether
    one root seed PASSes where another FAILs. A claim decided over units has each root seed's
    verdict from the same rule application as the headline (:func:`decide_units`) and its unit
    count in ``n_units``, so that the pooled units can be split back by root seed.
    Deterministic claims are not rerun."""
    if not claim.stochastic:
        return {"deterministic": True}
    pooled = pooled_verdict(claim, runs)
    rows = []
    for r, run in enumerate(runs):
        row = {
            "replicate": r,
            "root_entropy": _replicate_context(claim, ctx, r).root_entropy(),
            "verdict": run.verdict.value,
            "statistic": _statistic(claim, run),
        }
        if claim.decision is not None and run.verdict is not Verdict.ERROR:
            units = (run.decision or {}).get("units", {})
            own = decide_units(claim, units, ctx.scale)
            row["verdict"] = own.verdict.value
            row["n_units"] = unit_counts(own.units)
        rows.append(row)
    return replication_summary(claim, rows, pooled.verdict)


def unit_counts(units: Mapping[str, list[float]]) -> int | dict[str, int]:
    """The number of units: one count when every statistic has as many, else per statistic."""
    counts = {name: len(values) for name, values in units.items()}
    return next(iter(counts.values())) if len(set(counts.values())) == 1 else counts


def replication_summary(
    claim: Claim, rows: list[dict[str, Any]], verdict: Verdict
) -> dict[str, Any]:
    """The replication record around its per-root-seed ``rows``, against the headline
    ``verdict``: counts, agreement, fragility and the statistic's mean and sd over root
    seeds."""
    values = np.array([row["statistic"] for row in rows if row["statistic"] is not None])
    verdicts = [Verdict(row["verdict"]) for row in rows]
    agree = sum(v is verdict for v in verdicts)
    return {
        "deterministic": False,
        "statistic": claim.statistic,
        "replicates": rows,
        "counts": {v.value: sum(w is v for w in verdicts) for v in Verdict},
        "n": len(rows),
        "agree": agree,
        "rate": agree / len(rows),
        "statistic_mean": float(values.mean()) if values.size else None,
        "statistic_sd": float(values.std(ddof=1)) if values.size > 1 else None,
        "fragile": {Verdict.PASS, Verdict.FAIL} <= set(verdicts),
    }


def decide_units(claim: Claim, units: Mapping[str, list[float]], scale: str | None) -> Any:
    """The :class:`~paper_checks.decision.Decision` of ``claim``'s rule over ``units`` at
    ``scale``: α spent over the claim's planned looks there (:attr:`Claim.looks`). Every
    verdict of a decided claim comes from here: the headline (:func:`pooled_verdict`, one root
    seed or several), each root seed's diagnostic and a re-decision of stored units
    (:mod:`paper_checks.redecide`)."""
    assert claim.decision is not None
    rule = claim.decision
    return rule.decide(
        {s: units.get(s, []) for s in rule.statistics}, looks=claim.look_count(scale)
    )


def decided(claim: Claim, ctx: Context, result: UnitsResult) -> CheckResult:
    """The record of one root seed of a claim decided over units, from what its check returned:
    the claim's rule applied once to the check's units at the level its planned looks leave at
    ``ctx``'s scale (:func:`decide_units`), its figure drawn from that decision, and the check's
    words kept as its summary (a headline's summary is then written from the decision:
    :func:`pooled_verdict`). A check that returns units for a claim without a rule is a
    programming error (TypeError)."""
    if claim.decision is None:
        raise TypeError(f"claim {claim.id!r} returned units but registers no decision rule")
    decision = decide_units(claim, result.units, ctx.scale)
    return CheckResult(
        verdict=decision.verdict,
        summary=result.summary,
        measured=result.measured,
        expected=result.expected,
        figures=[] if result.draw is None else ctx.save_figure(result.draw(decision)),
        arrays=result.arrays,
        decision=decision.to_json(),
    )


def next_look(claim: Claim, scale: str | None, root_seeds: int) -> int | None:
    """The root-seed count of the planned look after one made at ``root_seeds``, or None when
    no later look is planned at ``scale``."""
    return next((n for n in claim.looks_at(scale) if n > root_seeds), None)


def first_look(claim: Claim, scale: str | None, replicates: int) -> int:
    """The root seeds of a decided claim's first look in a run asked for ``replicates``: that
    many, raised to its first planned look at ``scale`` (a look before the first planned one
    would be one more than α is spent over)."""
    planned = claim.looks_at(scale) if claim.decision is not None else ()
    return max(replicates, planned[0]) if planned else replicates


def look_note(claim: Claim, scale: str | None, root_seeds: int) -> str:
    """ "" for a claim with one look at ``scale``; else which planned look ``root_seeds`` is. A
    look at a count between two planned ones takes the place of the earlier (the runner then
    looks only at the later planned counts, so no more than K looks are made); a count below
    the first planned one is an unplanned look (its error rates are then not the rule's)."""
    planned = claim.looks_at(scale)
    if len(planned) < 2:
        return ""
    counts = ", ".join(map(str, planned))
    slot = sum(n <= root_seeds for n in planned)
    if slot:
        return (
            f"planned look {slot} of {len(planned)} at {scale} "
            f"(root seeds {counts}; α/{len(planned)} per look)"
        )
    return (
        f"UNPLANNED LOOK: {root_seeds} root seed(s), fewer than the first of the "
        f"{len(planned)} looks planned at {scale} ({counts} root seeds), so the rule's error "
        "rates do not hold"
    )


#: Opens the statement of what an INCONCLUSIVE headline's interval excludes, always the last
#: part of its summary (:func:`excluded_statement`), so that a re-decision can replace it.
AT_THIS_BUDGET = "; at this budget: "


def excluded_statement(decision: Any, effects: Sequence[PaperEffect] = ()) -> str:
    """What an INCONCLUSIVE ``decision`` can and cannot show, beside what the paper reports:
    :data:`AT_THIS_BUDGET`, then the values its interval excludes
    (:meth:`~paper_checks.decision.Decision.excluded_text`), then each of the claim's paper
    ``effects`` (:class:`~paper_checks.claims.PaperEffect`) on an undecided statistic: its value,
    and whether the interval excludes it (where it has a bound), or, without a like-for-like
    number, its text. "" when the decision is PASS or FAIL."""
    entries = {e["statistic"]: e for e in decision.excluded()}
    if not entries:
        return ""
    text = AT_THIS_BUDGET + decision.excluded_text()
    for effect in effects:
        entry = entries.get(effect.statistic)
        if entry is None:
            continue
        if effect.value is None:
            text += f"; the paper: {effect.text} ({effect.source})"
            continue
        above, below = entry["above"], entry["below"]
        out = (above is not None and effect.value > above) or (
            below is not None and effect.value < below
        )
        where = (
            ""
            if above is None and below is None
            else ", which this interval excludes"
            if out
            else ", which this interval does not exclude"
        )
        text += (
            f"; the paper: {effect.statistic} ≈ {effect.value:.4g}{where} "
            f"({effect.text}; {effect.source})"
        )
    return text


def headline_summary(
    decision: Any,
    root_seeds: int,
    note: str,
    detail: str,
    effects: Sequence[PaperEffect] = (),
) -> str:
    """The summary of a decided claim, written from its decision: over several root seeds
    "R root seeds pooled: " and the decision (:func:`_short_summary`); over one, the check's
    ``detail`` (what it reports beside the rule, :attr:`CheckResult.detail`) followed by the
    decision. Then ``note`` (:func:`look_note`), and last, for an INCONCLUSIVE decision, what its
    interval excludes beside the paper's ``effects`` (:func:`excluded_statement`)."""
    if root_seeds > 1:
        text = f"{root_seeds} root seeds pooled: {_short_summary(decision)}"
    else:
        text = "; ".join(part for part in (detail, _short_summary(decision)) if part)
    if note:
        text += f"; {note}"
    return text + excluded_statement(decision, effects)


def pooled_verdict(claim: Claim, runs: list[CheckResult]) -> CheckResult:
    """The headline result of a stochastic claim checked under one or several root seeds: the
    primary run's record with the verdict (and summary) of all root seeds together.

    A claim with a ``decision`` applies its rule to the units of every root seed pooled
    (:func:`paper_checks.decision.pool_units`), at the level its planned looks at the run's
    scale leave (:func:`decide_units`), a single root seed included, so that the headline does
    not depend on the number of root seeds run; a look at a root-seed count that is not planned
    is flagged in the summary; its tolerance is its rule's text (:attr:`Claim.rule`, generated
    from the decision), whatever the check wrote there. An ``exact`` claim (a counterexample is
    a proof) FAILs when any root seed FAILs and PASSes when every one PASSes. A root seed that
    crashed makes the headline ERROR. A claim of neither kind keeps the primary verdict."""
    primary = runs[0]
    crashed = [r for r, run in enumerate(runs) if run.verdict is Verdict.ERROR]
    if crashed:
        if len(runs) == 1:
            return primary
        return replace(
            primary,
            verdict=Verdict.ERROR,
            summary=f"root seed replicate(s) {crashed} crashed; see their records",
        )
    n = len(runs)
    if claim.decision is not None:
        from paper_checks.decision import pool_units

        scale = primary.provenance.get("scale")
        units = pool_units((run.decision or {}).get("units", {}) for run in runs)
        decision = decide_units(claim, units, scale)
        detail = primary.summary if primary.detail is None else primary.detail
        summary = headline_summary(
            decision, n, look_note(claim, scale, n), detail, claim.paper_effects
        )
        return replace(
            primary,
            verdict=decision.verdict,
            summary=summary,
            detail=detail,
            decision=decision.to_json(),
            tolerance=claim.rule,
        )
    if n == 1:
        return primary
    if claim.exact:
        verdicts = [run.verdict for run in runs]
        if Verdict.FAIL in verdicts:
            r = verdicts.index(Verdict.FAIL)
            summary = f"FAIL under root seed replicate {r} (a counterexample): {runs[r].summary}"
            return replace(primary, verdict=Verdict.FAIL, summary=summary)
        if all(v is Verdict.PASS for v in verdicts):
            return replace(primary, summary=f"PASS under all {n} root seeds: {primary.summary}")
        return replace(
            primary,
            verdict=Verdict.INCONCLUSIVE,
            summary=f"no counterexample, but not every root seed decided: {primary.summary}",
        )
    return primary


#: A decision with more parts than this is summarised by counts, the failing and undecided parts
#: named (every part stays in the record's ``decision``).
SUMMARY_PARTS = 4


def _short_summary(decision: Any) -> str:
    """:meth:`Decision.summary`, or for many parts: the verdict, the counts of PASS and FAIL
    parts, the parts that FAIL or are undecided, and the units that would decide it."""
    if len(decision.parts) <= SUMMARY_PARTS:
        return decision.summary()
    by = {v: [p.part.statistic for p in decision.parts if p.verdict is v] for v in Verdict}
    n = min(p.n for p in decision.parts)
    text = (
        f"{decision.verdict.value} over {n} units: {len(by[Verdict.PASS])} of "
        f"{len(decision.parts)} parts PASS, {len(by[Verdict.FAIL])} FAIL"
    )
    for v in (Verdict.FAIL, Verdict.INCONCLUSIVE):
        if by[v]:
            text += f"; {v.value}: {', '.join(dict.fromkeys(by[v]))}"
    if decision.verdict is Verdict.INCONCLUSIVE and decision.units_needed is not None:
        text += f"; about {decision.units_needed} units would decide it"
    return text + (f"; {decision.reason}" if decision.reason else "")


def _statistic(claim: Claim, run: CheckResult) -> float | None:
    """The claim's deciding statistic in one root seed's result: ``measured[statistic]``, or for
    a claim decided over units, the mean over that root seed's units of the named part."""
    value = _scalar(run.measured.get(claim.statistic))
    if value is None and run.decision:
        means = [p["mean"] for p in run.decision["parts"] if p["statistic"] == claim.statistic]
        value = _scalar(means[0]) if means else None
    return value


def _scalar(value: Any) -> float | None:
    """A finite float, or None when ``value`` is not one number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if np.isfinite(number) else None


#: errno values of a full file system (no space, quota, file-size limit): every later write would
#: fail too, so the run ends instead of recording each claim as crashed.
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class DiskFull(OSError):
    """The file system filled while the run wrote ``filename``: the run ends, keeping the claims
    and sweep tasks that finished (the directory resumes when the same command is run again)."""


def disk_full(err: BaseException, run_dir: Path) -> DiskFull | None:
    """A :class:`DiskFull` when ``err``, or an error it was raised from, is an OSError of
    :data:`DISK_FULL_ERRNOS`, else None. It names the file being written: the error's own
    ``filename``, else the innermost ``path`` of the writer that failed (a writer that reports
    ``os.write``'s ENOSPC, which names no file, in a frame of its traceback), else ``run_dir``."""
    if isinstance(err, DiskFull):
        return err
    cause: BaseException | None = err
    while cause is not None and not (
        isinstance(cause, OSError) and cause.errno in DISK_FULL_ERRNOS
    ):
        cause = cause.__cause__ or cause.__context__
    if not isinstance(cause, OSError):
        return None
    where = cause.filename or _path_being_written(cause) or run_dir
    return DiskFull(
        cause.errno,
        f"{cause.strerror or os.strerror(cause.errno)}; the run stopped, keeping in "
        f"{os.fspath(run_dir)!r} the claims and sweep tasks that finished: free some space and "
        "run the same command again to resume",
        os.fspath(where),
    )


def _path_being_written(err: BaseException) -> str | None:
    """The innermost local named ``path`` (a str or path) in the frames that ``err`` unwound."""
    frames, tb = [], err.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        value = frame.f_locals.get("path")
        if isinstance(value, str | os.PathLike):
            return os.fspath(value)
    return None


def _check_once(
    claim: Claim,
    ctx: Context,
    code: tuple[str, str],
    run_dir: Path,
    stopping: threading.Event | None = None,
) -> CheckResult:
    """One check of ``claim`` in ``ctx`` (claim id set), stamped and written to ``ctx.out_dir``,
    made inside the run directory ``run_dir`` without following a link
    (:func:`paper_checks._files.make_dirs`). Its CPU time is this thread's plus that of the
    sweep tasks it ran in worker processes. A claim without a path on the run's backend
    (:attr:`Claim.backends`) computes on numpy, and one without a path on the run's torch device
    (:attr:`Claim.devices`) trains on the CPU: its provenance names what computed, and
    ``backend_asked`` or ``device_asked`` what the run asked for. ``code`` is the claim's
    fingerprint on its placement and on the CPU and numpy: a record made elsewhere keeps the
    latter as ``code_on_cpu``, by which it is compared with a CPU reference.

    A crash is the claim's ERROR record, except a full disk (:func:`disk_full`), which ends the
    run, and a failure once the run is ``stopping`` (its executor closed under it), which
    records nothing."""
    from sims.sweep import CpuMeter

    _files.make_dirs(ctx.out_dir, run_dir)
    asked, asked_device = ctx.backend.name, ctx.device
    device, backend = placement(claim, ctx)  # without a path on the asked one: CPU, numpy
    ctx = replace(ctx, device=device, backend=ctx.backend if backend == asked else get_backend())
    start, cpu_start = time.perf_counter(), time.thread_time()
    served_here = getattr(ctx.executor, "served_here", lambda: 0)  # a task store's count
    served_before = served_here()
    with CpuMeter() as meter:
        try:
            result = _not_run(claim, ctx.scale) or claim.check(ctx)
            if isinstance(result, UnitsResult):
                result = decided(claim, ctx, result)
        except Exception as err:
            if (full := disk_full(err, ctx.out_dir)) is not None:
                raise full from err
            if stopping is not None and stopping.is_set():
                raise
            logger.exception("claim %s crashed", claim.id)
            result = CheckResult(
                verdict=Verdict.ERROR,
                summary=f"check crashed: {type(err).__name__}: {err}",
                measured={},
                expected={},
                tolerance="",
                error=traceback.format_exc(),
            )
    cpu_s = time.thread_time() - cpu_start + meter.remote_s
    served = served_here() - served_before
    result = replace(
        result,
        claim_id=claim.id,
        paper=claim.paper,
        statement=claim.statement,
        source=claim.source,
        rule=claim.rule,
        stochastic=claim.stochastic,
        history=[entry.to_json() for entry in claim.history],
        provenance=provenance(ctx, time.perf_counter() - start, cpu_s, code[0])
        | ({} if code[1] == code[0] else {"code_on_cpu": code[1]})
        | ({} if asked == ctx.backend.name else {"backend_asked": asked})
        | ({} if asked_device == ctx.device else {"device_asked": asked_device})
        | ({"tasks_from_store": served} if served else {}),
    )
    write_claim(ctx.out_dir, result)
    return result


def _not_run(claim: Claim, scale: str) -> CheckResult | None:
    """The NOT_RUN record of a claim that declares it does not run at ``scale``, else None."""
    why = claim.not_run_at.get(scale)
    if why is None:
        return None
    text = f"not run at {scale} scale: {why}"
    return CheckResult(Verdict.NOT_RUN, text, {}, {}, text)


def default_concurrency(ctx: Context) -> int:
    """How many checks run at once: one per worker of a pool whose tasks run in other processes
    (so that the pool stays busy while a check computes in the driver or its sweep has fewer
    tasks than workers), plus one; one check at a time when tasks run in this process."""
    return ctx.executor.workers + 1 if getattr(ctx.executor, "remote", False) else 1


def stored_root_seeds(claim: Claim, record: CheckResult, ctx: Context) -> dict[int, CheckResult]:
    """The root seeds 1, ..., n − 1 of ``claim``'s ``record`` (from the run directory a run
    updates) that a run in ``ctx`` may take instead of computing them again: each its units
    (split back from the pooled ones by its row's ``n_units``:
    :func:`paper_checks.redecide.split_units`), its verdict and its statistic, as
    :func:`pooled_verdict` and :func:`replicate_claim` read a root seed's result.

    Only a claim decided over units, or an exact check over random instances none of whose
    root seeds FAILed (a counterexample's own words are not in the record), whose record was
    made by today's code on the run's scale and placement, with every root seed's row at the
    seeds this run would draw (:meth:`Context.root_entropy` of each replicate) and none
    crashed; otherwise none (the run computes them all), and none from a record whose
    replication rows cannot be read (a record edited by hand). Root seed 0 is never taken: its
    measurements, figures and arrays are the record's own, and the run makes them again."""
    try:
        return _stored_root_seeds(claim, record, ctx)
    except (AttributeError, KeyError, TypeError, ValueError):
        return {}


def _stored_root_seeds(claim: Claim, record: CheckResult, ctx: Context) -> dict[int, CheckResult]:
    from paper_checks.redecide import split_units

    rep = record.replication or {}
    code = claim_fingerprint(claim, ctx.scale, *placement(claim, ctx))
    if (
        not (claim.decision is not None or claim.exact)
        or not claim.stochastic
        or rep.get("deterministic", True)
        or record.verdict in (Verdict.ERROR, Verdict.NOT_RUN)
        or record.provenance.get("scale") != ctx.scale
        or record.provenance.get("code") != code
    ):
        return {}
    rows = list(rep.get("replicates", []))
    if claim.decision is None:  # exact: a root seed is its verdict; a stored counterexample's
        # own words are not in the record, so a record with one is rerun
        shares = [{} for _ in rows]
        if any(row["verdict"] == Verdict.FAIL.value for row in rows):
            return {}
    else:
        shares, _ = split_units(claim, (record.decision or {}).get("units", {}), rows)
    if not rows or shares is None:
        return {}
    kept = {}
    for r, (row, share) in enumerate(zip(rows, shares, strict=True)):
        entropy = _replicate_context(claim, ctx, r).root_entropy()
        if row.get("replicate") != r or row.get("root_entropy") != entropy:
            return {}
        if row["verdict"] == Verdict.ERROR.value:
            return {}
        if r == 0:
            continue
        statistic = row.get("statistic")  # None where the root seed had no unit of it
        kept[r] = CheckResult(
            verdict=Verdict(row["verdict"]),
            summary=f"root seed replicate {r}, taken from the record",
            measured={} if statistic is None else {claim.statistic: statistic},
            expected={},
            tolerance="",
            decision={"units": share, "parts": []} if claim.decision is not None else None,
        )
    return kept


def run_claims(
    claims: list[Claim],
    ctx: Context,
    replicates: int = 1,
    on_result: Callable[[CheckResult], None] | None = None,
    concurrency: int | None = None,
    costs: Mapping[str, float] | None = None,
    stored: Mapping[str, Mapping[int, CheckResult]] | None = None,
) -> list[CheckResult]:
    """Check ``claims`` and return their results in the order given; ``on_result`` is called
    with each claim's result as soon as it (and its replicates) finish.

    Every (claim, replicate) check is a unit; up to ``concurrency`` units run at once in threads
    (default :func:`default_concurrency`), sharing the run's executor, so two checks never
    compute the same sweep (the second waits, then reads the cache). Results do not depend on
    the concurrency: every check draws only from its own seeded streams. ``costs`` (claim id ->
    expected CPU seconds, e.g. from a reference run) orders the units: every thread but one
    takes the longest left, so that no long check is left running alone at the end; with two
    or more threads the last takes the shortest left, so that the short checks (mostly
    statistics and figures, in this process) run while the workers compute the long checks'
    sweeps instead of queuing behind them. Claims without a cost count as 0.

    A stochastic claim runs under ``replicates`` root seeds; a decided claim with planned looks
    at the run's scale (:attr:`Claim.looks`) first under :func:`first_look` of them, and while
    its pooled verdict is INCONCLUSIVE the runner adds the root seeds of its next planned look
    (:func:`next_look`) and decides again, until it is decided or its last look is made. The
    looks made are in the record (``replication.looks``). They depend on the units' values
    only, so the same seed gives the same record on any number of workers.

    ``stored`` (claim id -> root seed -> result, :func:`stored_root_seeds`) holds root seeds a
    record already has: those are taken, not computed, wherever a look asks for them, so that a
    record is extended by the root seeds it lacks; the record is the one a run computing them
    all would make.
    """
    concurrency = max(1, default_concurrency(ctx) if concurrency is None else concurrency)
    costs = costs or {}
    stored = stored or {}
    scale = ctx.scale
    target = {
        i: first_look(claim, scale, replicates)
        if claim.stochastic and scale not in claim.not_run_at
        else 1
        for i, claim in enumerate(claims)
    }
    runs: dict[int, dict[int, CheckResult]] = {i: {} for i in range(len(claims))}

    def to_compute(i: int, start: int, stop: int) -> list[tuple[int, int]]:
        """Root seeds [start, stop) of claim ``i``: the stored ones taken into ``runs``, the
        others returned as units to check, in order."""
        kept = stored.get(claims[i].id, {})
        runs[i].update({r: kept[r] for r in range(start, stop) if r in kept})
        return [(i, r) for r in range(start, stop) if r not in kept]

    units = deque(
        sorted(
            (unit for i in range(len(claims)) for unit in to_compute(i, 0, target[i])),
            key=lambda unit: -costs.get(claims[unit[0]].id, 0.0),
        )
    )
    # fingerprints first, in this thread: ast.parse is not safe in concurrent threads (3.11)
    # each claim's fingerprint on its placement, and on the CPU and numpy, which a GPU record
    # also keeps (``code_on_cpu``) so that it can be compared with a CPU reference
    codes = [
        (claim_fingerprint(claim, scale, *placement(claim, ctx)), claim_fingerprint(claim, scale))
        for claim in claims
    ]
    git_sha()  # the commit of the code that runs now, not of a commit made while it runs
    for note in set_aside_unreadable(ctx.out_dir):
        logger.warning("%s: it is computed again", note)
    # the checks write under these folders (sweep caches, figures, replicates) by plain paths:
    # a link or a special file anywhere there is refused before any check starts
    _files.check_tree(ctx.out_dir, RUN_FOLDERS)
    looked: dict[int, list[dict[str, Any]]] = {i: [] for i in range(len(claims))}
    results: dict[int, CheckResult] = {}
    work, stop, done = threading.Condition(), threading.Event(), queue.SimpleQueue()

    def lane(shortest_first: bool) -> None:
        """Check units, taken from one end of the queue, until every claim has its result or
        the run stops (a lane waits while the queue is empty, for the looks still to come)."""
        while True:
            with work:
                while not units and not stop.is_set():
                    work.wait()
                if stop.is_set():
                    return
                i, r = units.pop() if shortest_first else units.popleft()
            try:
                context = _replicate_context(claims[i], ctx, r)
                check = _check_once(claims[i], context, codes[i], ctx.out_dir, stop)
                done.put((i, r, check, None))
            except BaseException as err:  # noqa: BLE001 - handed to the main thread to raise
                done.put((i, r, None, disk_full(err, ctx.out_dir) or err))
                return

    n_lanes = min(concurrency, len(units))
    threads = [
        threading.Thread(target=lane, args=(k == n_lanes - 1 and k > 0,), name=f"check_{k}")
        for k in range(n_lanes)
    ]
    for thread in threads:
        thread.start()
    bar = tqdm(total=len(claims), desc="claims", unit="claim", disable=None, file=sys.stderr)
    try:
        watch = WorkerWatch(ctx.executor)
        while len(results) < len(claims):
            try:
                i, r, result, err = done.get(timeout=WorkerWatch.POLL_S)
            except queue.Empty:
                watch.check()
                continue
            if err is not None:
                raise err
            runs[i][r] = result
            claim = claims[i]
            if len(runs[i]) < target[i]:
                continue
            waiting = False
            while not waiting:  # looks until one needs root seeds computed, or none is left
                ordered = [runs[i][k] for k in sorted(runs[i])]
                more = _next_look(claim, scale, ordered, looked[i])
                if more is None:
                    break
                todo = to_compute(i, target[i], more)
                target[i] = more
                if todo:
                    with work:  # the next look's root seeds go first: the claim waits for them
                        units.extendleft(reversed(todo))
                        work.notify_all()
                    waiting = True
            if waiting:
                continue
            result = _headline(claim, ctx, ordered, looked[i], replicates > 1)
            logger.info("%s: %s (%s)", claim.id, result.verdict.value, result.summary)
            results[i] = result
            bar.set_postfix_str(claim.id)
            bar.update()
            if on_result is not None:
                on_result(result)
    finally:  # on an interrupt, start nothing new; the checks under way end by themselves
        with work:
            stop.set()
            work.notify_all()
        bar.close()
    return [results[i] for i in range(len(claims))]


#: Seconds a run that ends early (interrupted, a full disk, no workers) waits for its executor
#: to close; past it the run ends anyway (pool workers end by themselves once the driver is gone).
CLOSE_BOUND_S = 10.0


@contextlib.contextmanager
def run_executor(
    workers: int, scheduler: str, store: str | os.PathLike[str] | None = None
) -> Iterator[Any]:
    """:func:`sims.sweep.make_executor`'s executor, closed when the run ends: in full after a
    run that finished, and within :data:`CLOSE_BOUND_S` after one that ends early, whose
    running tasks are no longer wanted: a process pool's workers are terminated first (its
    close would wait for their tasks) and Dask's shutdown warnings are silenced. With
    ``store`` (a folder), sweep tasks are taken from and kept in that store
    (:class:`paper_checks.task_store.StoredExecutor`)."""
    from paper_checks.task_store import StoredExecutor, TaskStore
    from sims.sweep import make_executor

    try:
        executor = make_executor(workers, scheduler)
    except ValueError as err:  # dask missing, or a scheduler that cannot be reached
        raise ValueError(f"--scheduler {scheduler}: {err}") from None
    if store is not None:
        executor = StoredExecutor(executor, TaskStore(store))
    try:
        yield executor
    except BaseException:
        for name in ("distributed", "dask"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        pool = getattr(executor, "_pool", None)  # sims.sweep.ProcessExecutor's, once started
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        closer = threading.Thread(target=executor.close, name="close_executor", daemon=True)
        closer.start()
        closer.join(CLOSE_BOUND_S)
        raise
    executor.close()


class WorkerWatch:
    """The bound on the run's wait for a Dask scheduler's workers: while the checks wait,
    :meth:`check` (every :data:`POLL_S` seconds) asks the scheduler how many workers it has,
    and ends the run with one line once it has had none (or could not be asked) for
    :data:`BOUND_S` seconds (``PAPER_CHECKS_WORKER_WAIT_S`` in the environment sets another
    bound). A killed worker's tasks are moved to the others by Dask; with none left they would
    wait for ever. Other executors run their tasks in this process or in processes this one
    started, and are not watched."""

    POLL_S = 1.0
    BOUND_S = 120.0

    def __init__(self, executor: Any) -> None:
        self.client = getattr(executor, "_client", None)  # sims.sweep.DaskExecutor's client
        self.bound_s = float(os.environ.get("PAPER_CHECKS_WORKER_WAIT_S", self.BOUND_S))
        self.alone_since: float | None = None

    def workers(self) -> int:
        """Workers the scheduler knows now (0 when it cannot be asked)."""
        try:
            info = self.client.run_on_scheduler(_scheduler_worker_count)
        except Exception:  # noqa: BLE001 - the scheduler is gone or unreachable: no workers
            return 0
        return int(info)

    def check(self) -> None:
        if self.client is None:
            return
        now = time.monotonic()
        if self.workers() > 0:
            self.alone_since = None
            return
        self.alone_since = self.alone_since or now
        if now - self.alone_since >= self.bound_s:
            raise WorkersGone(
                f"--scheduler: the Dask scheduler has had no worker for {self.bound_s:g} s "
                "(killed, or never started); finished claims and sweep tasks are kept: start "
                "workers and run the same command again to resume"
            )


def _scheduler_worker_count(dask_scheduler: Any) -> int:
    """Run on the scheduler by :meth:`WorkerWatch.workers`: its number of workers."""
    return len(dask_scheduler.workers)


class WorkersGone(ValueError):
    """The run's Dask scheduler has had no worker for longer than :attr:`WorkerWatch.BOUND_S`."""


def _next_look(
    claim: Claim, scale: str, runs: list[CheckResult], looked: list[dict[str, Any]]
) -> int | None:
    """Record the look made over ``runs`` in ``looked`` and return the root-seed count of the
    next planned look when the claim is still undecided there, else None."""
    if claim.decision is None or len(claim.looks_at(scale)) < 2:
        return None
    if any(run.verdict is Verdict.ERROR for run in runs):
        return None
    headline = pooled_verdict(claim, runs)
    units = (headline.decision or {}).get("units", {})
    looked.append(
        {
            "root_seeds": len(runs),
            "n_units": unit_counts(units) if units else 0,
            "verdict": headline.verdict.value,
        }
    )
    if headline.verdict is not Verdict.INCONCLUSIVE:
        return None
    return next_look(claim, scale, len(runs))


def _headline(
    claim: Claim,
    ctx: Context,
    runs: list[CheckResult],
    looked: list[dict[str, Any]],
    replicated: bool,
) -> CheckResult:
    """The headline result of ``claim`` over its ``runs`` (one per root seed, in order), with
    its replication record (when the run was ``replicated`` or added root seeds) and the looks
    made, written when it differs from the primary run's record."""
    result = runs[0]
    if result.verdict is Verdict.NOT_RUN:
        return result
    if replicated or len(runs) > 1:
        headline = pooled_verdict(claim, runs) if claim.stochastic else result
        replication = replicate_claim(claim, ctx, runs)
        if looked:
            replication = {**replication, "looks": looked}
        result = replace(headline, replication=replication)
        write_claim(ctx.out_dir, result)
    elif claim.decision is not None:  # one root seed: the same rule application
        result = pooled_verdict(claim, [result])
        write_claim(ctx.out_dir, result)
    return result
