"""The ``paper-checks`` command line.

Exit codes: 0 every checked claim passed (or was inconclusive), 1 some claim failed or crashed
(``run --fail-on error``: only crashed; ``never``: never 1), 2 bad usage or bad input (one line on
stderr naming what is wrong, no traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import logging
import math
import os
import shutil
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from paper_checks._files import check_target, write_json
from paper_checks._inputs import ascii_float, ascii_floats, ascii_int, ascii_ints, check_output_path
from paper_checks.claims import PAPERS, Claim, all_claims, select_claims
from paper_checks.context import SCALES, Context
from paper_checks.results import (
    UPDATE_STAGING,
    CheckResult,
    RunInfo,
    RunLock,
    Verdict,
    check_latest,
    check_run_dir,
    check_update,
    load_results,
    tally,
    update_latest,
    update_results,
    write_results,
)
from sims._backend import BACKENDS, DEVICES, check_device, get_backend

PROG = "paper-checks"
RESULTS = Path("results")
#: `run --max-cpu-hours` by default: a day of one core (every claim once: about 5 CPU-minutes
#: at --scale quick, 80 at full, 83 CPU-hours at paper, which therefore needs the option).
MAX_CPU_HOURS = 24.0
#: The most bootstrap resamples `solve hivemind` takes: about a minute per scorer and file.
MAX_HIVEMIND_BOOT = 100_000


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


T = TypeVar("T")


def _parsed(text: str, convert: Callable[[str], T], valid: Callable[[T], bool], expected: str) -> T:
    """``convert(text)`` if it succeeds and is ``valid``; else the one-line argparse error."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not valid(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    return _parsed(text, ascii_int, lambda v: v >= 1, "a positive integer")


def _level(text: str) -> float:
    return _parsed(text, ascii_float, lambda v: 0.0 < v < 1.0, "a level in (0, 1)")


def _seed(text: str) -> int:
    return _parsed(text, ascii_int, lambda v: v >= 0, "a non-negative integer")


def _positive_float(text: str) -> float:
    return _parsed(text, ascii_float, lambda v: v > 0, "a positive number")


def _positive_floats(text: str) -> list[float]:
    return _parsed(
        text,
        ascii_floats,
        lambda vs: all(v > 0 for v in vs),
        "comma-separated positive numbers",
    )


def _positive_ints(text: str) -> list[int]:
    return _parsed(
        text,
        ascii_ints,
        lambda vs: all(v >= 1 for v in vs),
        "comma-separated positive integers",
    )


def _cosine(text: str) -> float:
    return _parsed(text, ascii_float, lambda v: -1.0 <= v <= 1.0, "a cosine in [-1, 1]")


def _path(text: str) -> Path:
    """A file or directory path; an empty one (e.g. an unset shell variable) is a usage error,
    not the current directory."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a path, got an empty string")
    return Path(text)


def _scheduler(text: str) -> str:
    """processes, dask, or tcp://HOST:PORT with a host and a port in [1, 65535] in ASCII digits."""
    if text in ("processes", "dask"):
        return text
    host, _, port = text.removeprefix("tcp://").rpartition(":")
    sound_port = port.isascii() and port.isdigit() and 1 <= int(port) <= 65535
    if text.startswith("tcp://") and host and sound_port:
        return text
    raise argparse.ArgumentTypeError(
        f"expected processes, dask or tcp://HOST:PORT (PORT in 1..65535), got {text!r}"
    )


def _print_table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    widths[-1] = 0  # the last column is free text
    for row in (header, *rows):
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)).rstrip())


# ---------------------------------------------------------------------------------------- commands
def cmd_list(args: argparse.Namespace) -> int:
    unknown = [p for p in args.papers if p not in PAPERS]
    if unknown:
        raise ValueError(f"no paper named {unknown[0]!r} (papers: {', '.join(PAPERS)})")
    if args.results.exists() and not args.results.is_dir():
        raise ValueError(f"--results: {str(args.results)!r} is not a directory")
    if not args.results.exists() and args.results != RESULTS:  # the default may not exist yet
        raise ValueError(f"--results: {str(args.results)!r} does not exist")
    claims = [c for c in all_claims() if not args.papers or c.paper in args.papers]
    last: dict[str, str] = {}
    # --results names a results root (its `latest` is the last run) or a run directory itself
    # (`run --out DIR` keeps `latest` beside DIR)
    latest = args.results if (args.results / "results.json").exists() else args.results / "latest"
    if (latest / "results.json").exists():
        try:
            last = {r.claim_id: r.verdict.value for r in load_results(latest)[1]}
        except (ValueError, OSError) as err:  # a corrupt last run must not hide the claims
            print(
                f"{PROG}: warning: last run not shown: {' '.join(str(err).split())}",
                file=sys.stderr,
            )
    rows = [(c.id, last.get(c.id, "-"), c.statement) for c in claims]
    if not rows:
        print("no claims yet for " + ", ".join(args.papers))
        return 0
    _print_table(rows, ("claim", "last run", "statement"))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    if not args.targets and not args.all:
        raise ValueError("name paper keys or claim ids to run, or pass --all")
    claims = all_claims() if args.all else select_claims(args.targets)
    if args.dry_run:
        return _print_plan(claims, args.scale, args.replicates, (args.device, args.backend))
    _check_cpu_budget(claims, args)
    if args.scale == "paper":
        from paper_checks.paper_scale import Refused, plan_for

        notes: dict[str, str] = {}
        for c in claims:
            if isinstance(plan := plan_for(c), Refused):
                marker = notes.setdefault(plan.reason, f"[{len(notes) + 1}]")
                _print_line(f"{'REFUSED':<12} {c.id}  {marker}")
        _print_notes(notes)
        claims = [c for c in claims if not isinstance(plan_for(c), Refused)]
        if not claims:
            raise ValueError("--scale paper: every claim named is refused at paper scale")
    backend = get_backend(args.backend)
    check_device(args.device)
    created = datetime.now(UTC)
    run_id = f"{created:%Y%m%d-%H%M%S}-{args.scale}"
    if args.out is None:
        out_dir, suffix = args.results / run_id, 1
        while out_dir.exists():  # two runs in the same second
            suffix += 1
            out_dir = args.results / f"{run_id}-{suffix}"
    else:
        out_dir = args.out
    finished = out_dir / "results.json"
    if args.update:
        if args.out is None or not finished.is_file():
            raise ValueError("--update: name with --out a run directory that holds a results.json")
        check_update(out_dir, args.scale, args.seed)
    elif finished.exists() or finished.is_symlink():
        raise ValueError(
            f"--out {os.fspath(out_dir)!r} holds a finished run ({finished.name}); pass --update "
            "to replace only these claims' records and keep the others, or choose another --out"
        )
    # refuse before anything is written: an unwritable --out, a symlink or FIFO in its files' way
    check_output_path(out_dir, "--out", directory=True)
    store = _store(args.store)
    if out_dir.is_dir():
        check_run_dir(out_dir, [c.id for c in claims])
    if (foreign := check_latest(out_dir.resolve().parent)) is not None:
        print(
            f"{PROG}: warning: {foreign}; it is left alone, not pointed at this run",
            file=sys.stderr,
        )
    run_id = out_dir.resolve().name
    out_dir.mkdir(parents=True, exist_ok=True)

    from paper_checks.reproduce import closing_line, compare, describe, load_reference_run
    from paper_checks.runner import run_executor

    try:
        ref_run, ref_records = load_reference_run(args.scale) or ({}, {})
    except ValueError:  # a broken reference file must not stop a run: nothing to compare with
        ref_run, ref_records = {}, {}

    def reproduction(result: CheckResult) -> dict[str, Any] | None:
        if not ref_run:
            return None
        return compare(result, ref_records.get(result.claim_id), ref_run, args.replicates)

    def show(result: CheckResult) -> None:
        repro = reproduction(result)
        known = repro is not None and ref_records.get(result.claim_id) is not None
        _print_claim_line(result, describe(repro) if known else "")

    with _resumable(out_dir), RunLock(out_dir):  # a second run into --out waits for none
        if not args.update and (finished.exists() or finished.is_symlink()):  # made meanwhile
            raise ValueError(
                f"--out {os.fspath(out_dir)!r} holds a finished run ({finished.name}), written "
                "by another run while this one started; choose another --out"
            )
        check_run_dir(out_dir, [c.id for c in claims])  # again, under the lock
        # an update's checks run in a staging folder: out_dir is untouched until its commit
        check_dir = out_dir / UPDATE_STAGING if args.update else out_dir
        start = time.perf_counter()
        with run_executor(args.workers, args.scheduler, store) as executor:
            ctx = Context(args.scale, args.seed, check_dir, executor, backend, args.device)
            from paper_checks.runner import run_claims

            results = run_claims(
                claims,
                ctx,
                args.replicates,
                on_result=show,
                costs=_reference_costs(args.scale),
                stored=_kept_root_seeds(claims, out_dir, ctx) if args.update else None,
            )
            # the tasks the store served (every check's) and those it could not keep
            served, unkept = getattr(executor, "served", 0), getattr(executor, "unkept", 0)
        results = [replace(r, reproduction=reproduction(r)) for r in results]
        info = RunInfo(
            run_id=run_id,
            created=created.isoformat(timespec="seconds"),
            scale=args.scale,
            seed=args.seed,
            scheduler=args.scheduler,
            workers=args.workers,
            replicates=args.replicates,
            backend=backend.name,
            device=args.device,
            argv=list(args.argv),
            wall_time_s=round(time.perf_counter() - start, 3),
        )
        if args.update:
            update_results(out_dir, info, results, [c.id for c in all_claims()], check_dir)
            shutil.rmtree(check_dir, ignore_errors=True)
        else:
            write_results(out_dir, info, results)
        from paper_checks.report import write_reports

        _, page = write_reports(out_dir)
        update_latest(out_dir.resolve().parent, out_dir.resolve())
    for paper in dict.fromkeys(r.paper for r in results):
        print(f"{paper:<16} {_tally([r for r in results if r.paper == paper])}")
    fragile = [r.claim_id for r in results if (r.replication or {}).get("fragile")]
    if fragile:
        print(f"root seeds contradict (one PASS, another FAIL): {', '.join(fragile)}")
    counts = {v: sum(r.verdict is v for r in results) for v in Verdict}
    findings = counts[Verdict.FAIL] or counts[Verdict.INCONCLUSIVE]
    note = " (FAIL and INCONCLUSIVE are findings: see the report)" if findings else ""
    if ref_run:
        _print_line(closing_line({r.claim_id: r.reproduction for r in results}, args.scale))
    print(f"{len(results)} claim{'s' * (len(results) != 1)}: {_tally(results)}{note}")
    if store is not None:
        kept = f"{unkept} computed could not be kept" if unkept else "every task computed is kept"
        print(f"store {os.fspath(store)!r}: {served} sweep task(s) taken from it; {kept} there")
    print(f"report: {page}")
    failed = {"fail": counts[Verdict.FAIL] + counts[Verdict.ERROR], "error": counts[Verdict.ERROR]}
    return 1 if failed.get(args.fail_on) else 0


def _kept_root_seeds(
    claims: list[Claim], out_dir: Path, ctx: Context
) -> dict[str, dict[int, CheckResult]]:
    """The root seeds that the records in ``out_dir`` (a run ``--update`` refreshes) already
    hold at today's code and this run's seeds, by claim (:func:`paper_checks.runner.
    stored_root_seeds`): the run takes them instead of computing them, and says so."""
    from paper_checks.runner import stored_root_seeds

    records = {r.claim_id: r for r in load_results(out_dir, "--out")[1]}
    kept = {}
    for claim in claims:
        if claim.id in records and (seeds := stored_root_seeds(claim, records[claim.id], ctx)):
            kept[claim.id] = seeds
            print(
                f"{PROG}: {claim.id}: root seeds 1-{max(seeds)} taken from its record in --out "
                "(today's code, the same seeds); root seed 0 and any new ones are computed",
                file=sys.stderr,
            )
    return kept


def _store(asked: Path | None) -> Path | None:
    """The run's store of sweep tasks: ``--store``, else ``$PAPER_CHECKS_STORE`` when set and not
    empty, else none; refused (ValueError naming it) where no folder can be written."""
    from paper_checks.task_store import STORE_ENV

    option = "--store"
    if asked is None:
        text = os.environ.get(STORE_ENV, "")
        if not text.strip():
            return None
        asked, option = Path(text), f"${STORE_ENV}"
    check_output_path(asked, option, directory=True)
    return asked


@contextlib.contextmanager
def _resumable(out_dir: Path) -> Iterator[None]:
    """Tell an interrupted run's one line that ``out_dir`` resumes: the claims and sweep tasks
    that finished are kept there (no results.json is written), and the same command runs the
    rest."""
    try:
        yield
    except KeyboardInterrupt as err:
        err.resume = (  # type: ignore[attr-defined]
            f"; {os.fspath(out_dir)!r} keeps the claims and sweep tasks that finished: run the "
            "same command again to resume"
        )
        raise


def _check_figure_target(plot: Path) -> None:
    """Refuse a --plot whose PNG or PDF could not be replaced, before any work is done."""
    for suffix in (".png", ".pdf"):
        check_target(plot.parent / f"{plot.stem}{suffix}")


def _reference_costs(scale: str) -> dict[str, float]:
    """CPU seconds per claim in the committed reference run at ``scale``, as the package ships
    it (:func:`paper_checks.reproduce.load_reference_run`; empty when there is none): the runner
    orders the checks by it (:func:`run_claims`)."""
    from paper_checks.reproduce import load_reference_run

    try:
        records = (load_reference_run(scale) or ({}, {}))[1]
    except ValueError:  # a broken reference file must not stop a run
        return {}
    return {
        claim_id: float(r.provenance.get("cpu_time_s") or r.provenance["wall_time_s"])
        for claim_id, r in records.items()
    }


def _tally(results: Sequence[CheckResult]) -> str:
    return tally(r.verdict for r in results)


#: Width of the per-claim lines when stdout is not a terminal.
OFF_TERMINAL_WIDTH = 100


def _print_line(line: str) -> None:
    """``line`` on stdout, cut to the terminal width (:data:`OFF_TERMINAL_WIDTH` off a terminal),
    without breaking a progress bar on stderr."""
    from tqdm.auto import tqdm

    width = (
        shutil.get_terminal_size((OFF_TERMINAL_WIDTH, 24)).columns
        if sys.stdout.isatty()
        else OFF_TERMINAL_WIDTH
    )
    tqdm.write(line if len(line) <= width else line[: width - 1] + "…", file=sys.stdout)


def _print_claim_line(result: CheckResult, reproduces: str = "") -> None:
    """One line per finished claim: verdict, id, replication, whether it reproduces the
    committed reference, and the summary, cut to the line width."""
    from paper_checks.report import replication_text

    rep = replication_text(result)
    line = f"{result.verdict.value:<12} {result.claim_id}" + (f" [{rep}]" if rep else "")
    line += f" ({reproduces})" if reproduces else ""
    _print_line(f"{line}  {result.summary}")


@dataclass(frozen=True)
class PlannedClaim:
    """One line of a run's plan: whether the claim runs, the most root seeds it may run under
    (its first look, :func:`paper_checks.runner.first_look`, to its last planned one), its sweep
    tasks at paper scale, the
    estimated CPU hours on one core of all its root seeds (None: no estimate) and a note."""

    claim_id: str
    refused: bool
    root_seeds: int
    tasks: int | None
    hours: float | None
    note: str


def _plan(claims: Sequence[Claim], scale: str, replicates: int) -> list[PlannedClaim]:
    """The plan of ``run`` at ``scale`` with ``replicates``: each claim's CPU estimate is that of
    one root seed (the paper-scale plan, or the claim's record in the committed reference run
    at that scale, whose provenance times one root seed) times the most root seeds it may run:
    those of its first look, or of its last planned look when it stays undecided until then."""
    from paper_checks.paper_scale import Refused, estimated_cpu_hours, plan_for
    from paper_checks.reproduce import load_reference_run
    from paper_checks.runner import first_look

    records = (load_reference_run(scale) or ({}, {}))[1]
    planned = []
    for c in claims:
        refused, hours, tasks = False, None, None
        if scale == "paper":
            plan = plan_for(c)
            refused = isinstance(plan, Refused)
            hours = None if refused else estimated_cpu_hours(c, plan)
            tasks = None if refused else plan.tasks
            what = plan.reason if refused else plan.sizes
        else:
            record = records.get(c.id)
            if record is not None:
                seconds = record.provenance.get("cpu_time_s") or record.provenance["wall_time_s"]
                hours = seconds / 3600
            what = f"the {scale} sizes" + ("" if record else " (no reference run to estimate from)")
            if c.study_at(scale) > 1:
                what += f"; confirmatory study {c.study_at(scale)}, on fresh root seeds"
        last = max(c.looks_at(scale), default=0)
        seeds = max(first_look(c, scale, replicates), last) if c.stochastic else 1
        if scale in c.not_run_at:
            seeds, hours = 0, 0.0
        planned.append(
            PlannedClaim(
                c.id, refused, seeds, tasks, None if hours is None else hours * seeds, what
            )
        )
    return planned


def gpu_paths(claim: Claim) -> list[str]:
    """The GPU paths ``claim`` declares: ``cuda`` (its torch experiments take ``--device``) and
    ``cupy`` (its array-API sweeps take ``--backend``)."""
    return [p for p in ("cuda", "cupy") if p in (*claim.devices, *claim.backends)]


def _print_plan(
    claims: Sequence[Claim], scale: str, replicates: int, asked: tuple[str, str] = ("cpu", "numpy")
) -> int:
    """``run --dry-run``: per claim, whether it runs, under how many root seeds, the estimated
    CPU time on one core (:func:`_plan`), its GPU paths (:func:`gpu_paths`) and a note: its
    sizes, or why ``--scale paper`` refuses it; then which claims compute on the GPU that the
    run asks for (``asked``: its ``--device`` and ``--backend``). No GPU time is estimated: none
    has been measured. Nothing is run or written."""
    planned = _plan(claims, scale, replicates)
    rows, notes = [], {}
    for c, p in zip(claims, planned, strict=True):
        note = notes.setdefault(p.note, f"[{len(notes) + 1}]")
        cost = "-" if p.hours is None else _hours(p.hours)
        tasks = "-" if p.tasks is None else p.tasks
        plan = "refused" if p.refused else "runs"
        gpu = ", ".join(gpu_paths(c)) or "-"
        rows.append((p.claim_id, plan, "-" if p.refused else p.root_seeds, tasks, cost, gpu, note))
    headers = ("claim", "plan", "root seeds", "tasks", "CPU (1 core)", "GPU path", "note")
    _print_table(rows, headers)
    _print_notes(notes)
    runnable = [c for c, p in zip(claims, planned, strict=True) if not p.refused]
    device, backend = asked
    on_gpu = [
        c
        for c in runnable
        if (device != "cpu" and device in c.devices)
        or (backend != "numpy" and backend in c.backends)
    ]
    if asked != ("cpu", "numpy"):
        print(
            f"--device {device} --backend {backend}: {len(on_gpu)} of the {len(runnable)} claims "
            "that run compute on the GPU, the others on the CPU and numpy (each record says "
            "which); no GPU time is estimated: none has been measured yet"
        )
    running = [p for p in planned if not p.refused]
    unknown = sum(p.hours is None for p in running)
    total = sum(p.hours or 0.0 for p in running)
    tail = f" ({unknown} without an estimate)" if unknown else ""
    print(
        f"{len(running)} of {len(planned)} claims run at --scale {scale}: about {_hours(total)} "
        f"of CPU{tail}"
    )
    return 0


def _check_cpu_budget(claims: Sequence[Claim], args: argparse.Namespace) -> None:
    """Refuse, before anything is written, a run whose estimated CPU time (:func:`_plan`)
    exceeds ``--max-cpu-hours``, with the estimate and the claim that costs most."""
    planned = [p for p in _plan(claims, args.scale, args.replicates) if not p.refused]
    total = sum(p.hours or 0.0 for p in planned)
    if total <= args.max_cpu_hours:
        return
    costliest = max(planned, key=lambda p: p.hours or 0.0)
    raise ValueError(
        f"--max-cpu-hours {args.max_cpu_hours:g}: this run needs about {_hours(total)} of CPU on "
        f"one core ({costliest.claim_id}: {_hours(costliest.hours or 0.0)} under "
        f"{costliest.root_seeds} root seed{'s' * (costliest.root_seeds != 1)}); lower "
        "--replicates, name fewer claims or raise --max-cpu-hours (see --dry-run)"
    )


def _print_notes(notes: dict[str, str]) -> None:
    """Each note text once, after its marker, wrapped to :data:`OFF_TERMINAL_WIDTH` columns."""
    for text, marker in notes.items():
        print(
            textwrap.fill(
                text, OFF_TERMINAL_WIDTH, initial_indent=f"{marker} ", subsequent_indent="    "
            )
        )


def _hours(hours: float) -> str:
    """A CPU time for the plan: seconds, minutes or hours."""
    seconds = hours * 3600
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{hours:.1f} h"


def cmd_report(args: argparse.Namespace) -> int:
    if not str(args.run_dir).strip():
        raise ValueError("RUN_DIR: the path is empty")
    if args.redecide:
        return _redecide(args)
    from paper_checks.report import write_reports

    run_dir = Path(args.run_dir)
    load_results(run_dir, "RUN_DIR")  # a run to report on, before its lock is taken
    check_run_dir(run_dir)
    with RunLock(run_dir):  # a writer too: it waits for no other, and finishes a killed one's
        md, page = write_reports(run_dir)
    print(f"wrote {md} and {page}")
    return 0


def _redecide(args: argparse.Namespace) -> int:
    """``report --redecide RUN_DIR``: the run's stored units decided again under today's rules
    (:mod:`paper_checks.redecide`), one line per decided claim; its reports rebuilt if it has
    them."""
    from paper_checks.redecide import redecide_run

    run_dir = Path(args.run_dir)
    load_results(run_dir, "RUN_DIR")  # a run to re-decide, before its lock is taken
    with RunLock(run_dir):
        outcomes = redecide_run(run_dir, list(args.argv))
        if (run_dir / "report.md").is_file():
            from paper_checks.report import write_reports

            write_reports(run_dir)
    for o in outcomes:
        verdict = o.after if o.before == o.after else f"{o.before} -> {o.after}"
        state = "re-decided" if o.changed else "unchanged"
        notes = f" ({'; '.join(o.notes)})" if o.notes else ""
        print(f"{o.claim_id:<44} {verdict:<26} {state}{notes}")
    changed = sum(o.changed for o in outcomes)
    print(f"{changed} of {len(outcomes)} decided claims re-decided in {run_dir / 'results.json'}")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from paper_checks.results import load_results, merge_results

    src, dst = Path(args.src_dir), Path(args.dst_dir)
    if src.resolve() == dst.resolve():
        raise ValueError("DST_RUN: it is SRC_RUN itself")
    load_results(dst, "DST_RUN")  # a run to merge into, before its lock is taken
    check_run_dir(dst)  # nothing to follow or replace there, the reports included
    with RunLock(dst):
        merged = merge_results(src, dst, [c.id for c in all_claims()])
        from paper_checks.report import write_reports

        write_reports(dst)
    print(f"merged {len(merged)} claim(s) of {src} into {dst / 'results.json'}")
    return 0


def cmd_store(args: argparse.Namespace) -> int:
    from paper_checks.task_store import prune, survey

    if not args.store_dir.is_dir():
        raise ValueError(f"STORE: {os.fspath(args.store_dir)!r} is not a directory")
    if args.prune:
        removed, freed = prune(args.store_dir)
        print(f"removed {removed} file(s), {freed / 1e6:.1f} MB")
    table = survey(args.store_dir)
    rows = [
        (fn, row["tasks"], f"{row['bytes'] / 1e6:.1f}", row["today"], row["stale"], row["other"])
        for fn, row in sorted(table.items())
    ]
    header = ("task function", "files", "MB", "today's code", "stale", "other")
    if rows:
        _print_table(rows, header)
    else:
        print(f"{os.fspath(args.store_dir)!r} holds no task")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from paper_checks.bench import run_benchmarks

    if args.only is not None and not args.only:
        raise ValueError("--only: name at least one benchmark (or leave --only out to run all)")
    check_output_path(args.out, "--out", directory=False)
    check_target(args.out)  # not /dev/null, a FIFO or a symlink: refused before the benchmarks
    if args.conjectures is not None and not 1 <= args.conjectures <= 1000:
        raise ValueError(f"--conjectures: SEEDS must be in [1, 1000] (got {args.conjectures})")
    rows = run_benchmarks(
        quick=args.quick, out=args.out, only=args.only, argv=list(args.argv), gpu=args.gpu
    )
    _print_table(
        [
            (
                r["name"],
                f"{r['ours_s']:.4g}" + (" CPU" if r["clock"] == "cpu" else ""),
                f"{r['baseline_s']:.4g}" + (" CPU" if r["clock"] == "cpu" else ""),
                f"{r['speedup']:.1f}x",
                ("agree" if r["agree"] else "DISAGREE")
                + (f": {r['detail']}" if r["detail"] else ""),
                r["baseline"],
            )
            for r in rows
        ],
        ("benchmark", "ours s", "baseline s", "speedup", "outputs", "baseline"),
    )
    if args.reach:
        import json

        from paper_checks.bench import mtr_reach

        reach = mtr_reach()
        for r in reach:
            print(
                f"exact M_tr within 60 s at |H| = {r['n_hypotheses']}: |X| = {r['n_points']} "
                f"({r['seconds']:.1f} s)"
            )
        written = json.loads(args.out.read_text(encoding="utf-8"))  # what run_benchmarks wrote
        write_json(args.out, {**written, "mtr_reach": reach})
    if args.conjectures is not None:
        import json

        from paper_checks.bench import conjecture_refutation, default_settings_conjectures

        refuted = conjecture_refutation(seeds=args.conjectures)
        for r in refuted:
            first = "-" if r["first_s_max"] is None else f"{r['first_s_max']:.2g} s"
            print(
                f"{r['conjecture']:<40} {r['strategy']:<30} refuted {r['refuted']}/{r['seeds']}"
                f" (first counterexample within {first})"
            )
        fresh = default_settings_conjectures(seeds=args.conjectures)
        for r in fresh:
            errors = ", ".join(f"{n} {kind}" for kind, n in r["errors"].items()) or "no errors"
            print(
                f"{r['conjecture']:<40} fresh process, default settings: passed {r['passed']}/"
                f"{r['seeds']}, refuted {r['refuted']}/{r['seeds']} ({errors})"
            )
        written = json.loads(args.out.read_text(encoding="utf-8"))
        write_json(
            args.out, {**written, "conjecture_refutation": refuted, "default_settings": fresh}
        )
    print(f"wrote {args.out}")
    return 0


def cmd_solve_passk(args: argparse.Namespace) -> int:
    import json

    if args.plot is not None:
        check_output_path(args.plot, "--plot", directory=False)
        _check_figure_target(args.plot)
    from paper_checks.solve import solve_passk
    from sims._jsonio import to_jsonable

    out, lines = solve_passk(
        args.samples,
        k_max=args.k_max,
        ks=args.k,
        plot=args.plot,
        n_boot=args.n_boot,
        ci=args.ci,
        seed=args.seed,
    )
    print(json.dumps(to_jsonable(out)) if args.json else "\n".join(lines))
    return 0


def cmd_solve_online(args: argparse.Namespace) -> int:
    import json

    from paper_checks.solve import solve_online
    from sims._jsonio import to_jsonable

    if args.export_tree is not None:
        check_output_path(args.export_tree, "--export-tree", directory=False)
        check_target(args.export_tree)
    out, lines = solve_online(
        args.class_file,
        max_n=args.max_n,
        export_tree=args.export_tree,
        time_limit=args.time_limit,
    )
    print(json.dumps(to_jsonable(out)) if args.json else "\n".join(lines))
    return 0


def cmd_solve_rmt(args: argparse.Namespace) -> int:
    import json

    from paper_checks.solve import solve_rmt
    from sims._jsonio import to_jsonable

    if args.weights is not None and len(args.weights) != len(args.sigma_atoms):
        print(
            f"paper-checks solve rmt: error: argument --weights: {len(args.weights)} weights for "
            f"{len(args.sigma_atoms)} --sigma-atoms",
            file=sys.stderr,
        )
        return 2
    if args.plot is not None:
        check_output_path(args.plot, "--plot", directory=False)
        _check_figure_target(args.plot)
    doc, lines = solve_rmt(
        psi_p=args.psi_p,
        psi_n=args.psi_n,
        t=args.t,
        sigma_atoms=args.sigma_atoms,
        weights=args.weights,
        activation=args.activation,
        points=args.grid,
        sample_d=args.sample,
        seed=args.seed,
        plot=args.plot,
    )
    print(json.dumps(to_jsonable(doc)) if args.json else "\n".join(lines))
    return 0


def cmd_solve_hivemind(args: argparse.Namespace) -> int:
    from paper_checks.solve import solve_hivemind

    check_output_path(args.out, "--out", directory=True)
    if args.cache is not None:
        check_output_path(args.cache, "--cache", directory=True)
    _, lines = solve_hivemind(
        args.gens,
        ratings=args.ratings,
        embedder=args.embedder,
        out_dir=args.out,
        cache_dir=args.cache,
        include_self_pairs=args.include_self_pairs,
        cutoffs=args.cutoffs,
        n_boot=args.n_boot,
        seed=args.seed,
        pairwise_ties=args.pairwise_ties,
        time_limit=args.time_limit,
    )
    print("\n".join(lines))
    return 0


def cmd_solve_superposition(args: argparse.Namespace) -> int:
    import json

    from paper_checks.solve import solve_superposition
    from sims._jsonio import to_jsonable

    get_backend(args.backend)  # fails early (exit 2) without cupy or a device
    out, lines = solve_superposition(
        n=args.n,
        widths=args.m,
        alpha=args.alpha,
        gamma=args.gamma,
        steps=args.steps,
        batch=args.batch,
        seeds=args.seeds,
        backend=args.backend,
        lr_groups=args.lr_groups,
    )
    print(json.dumps(to_jsonable(out)) if args.json else "\n".join(lines))
    return 0


def _finite_float(text: str) -> float:
    return _parsed(text, ascii_float, math.isfinite, "a finite number")


# ------------------------------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-v", "--verbose", action="count", default=0, help="more log output (-vv: debug)"
    )
    common.add_argument("-q", "--quiet", action="store_true", help="only errors on the log")
    parser = _Parser(
        prog=PROG,
        parents=[common],
        description="Executable, falsifiable checks of the NeurIPS 2025 award papers' claims.",
    )
    from paper_checks import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser(
        "list", parents=[common], help="list claims with the verdict of the last run"
    )
    p.add_argument("papers", nargs="*", metavar="PAPER", help=f"paper keys ({', '.join(PAPERS)})")
    p.add_argument(
        "--results",
        type=_path,
        default=RESULTS,
        help="results root whose 'latest' is the last run, or a run directory (e.g. a run's "
        "--out) (default: results)",
    )
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("run", parents=[common], help="check claims, write results and reports")
    p.add_argument("targets", nargs="*", metavar="PAPER|CLAIM", help="paper keys or claim ids")
    p.add_argument("--all", action="store_true", help="every registered claim")
    p.add_argument(
        "--scale", choices=SCALES, default="quick", help="problem sizes (default: quick)"
    )
    p.add_argument("--seed", type=_seed, default=0, help="root seed (default: 0)")
    p.add_argument(
        "--workers",
        type=lambda text: _parsed(
            text, ascii_int, lambda v: 1 <= v <= 1024, "an integer in [1, 1024]"
        ),
        default=1,
        help="parallel workers, 1 to 1024 (default: 1)",
    )
    p.add_argument(
        "--replicates",
        type=_positive_int,
        default=1,
        metavar="R",
        help="check each stochastic claim under R root seeds: the run's own and R - 1 independent "
        "children; reports the verdict and statistic under each and flags fragile claims "
        "(default: 1)",
    )
    p.add_argument(
        "--max-cpu-hours",
        type=_positive_float,
        default=MAX_CPU_HOURS,
        metavar="H",
        help="refuse a run whose estimated CPU time on one core (--dry-run shows it: the "
        "reference time of each claim times its root seeds) exceeds H hours, before anything "
        f"is written (default: {MAX_CPU_HOURS:g})",
    )
    p.add_argument(
        "--scheduler",
        type=_scheduler,
        default="processes",
        help="processes (local pool), dask (LocalCluster) or tcp://HOST:PORT (default: processes)",
    )
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="numpy",
        help="array backend of the claims with an array-API path; the others compute on numpy "
        "and their records say so (default: numpy)",
    )
    p.add_argument(
        "--device",
        choices=DEVICES,
        default="cpu",
        help="torch device of the claims with a path on it; the others train on the CPU and "
        "their records say so (default: cpu)",
    )
    p.add_argument(
        "--out",
        type=_path,
        default=None,
        help="run directory (default: results/<run-id>); reuse a killed run's directory to resume its sweeps",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print, per claim, whether it runs at --scale, its sizes (or why --scale paper "
        "refuses it) and its estimated CPU time; run nothing",
    )
    p.add_argument(
        "--store",
        type=_path,
        metavar="DIR",
        help="a store of finished sweep tasks shared by runs (default: $PAPER_CHECKS_STORE, if "
        "set): a task some run computed with the same code, parameters and seed is taken from it "
        "instead of computed, and every task computed is kept there (records count the tasks "
        "taken as tasks_from_store; their CPU time is not counted again)",
    )
    p.add_argument(
        "--update",
        action="store_true",
        help="replace only these claims' records in --out's results.json and keep the others "
        "(refresh a reference run claim by claim; same scale, seed and --replicates)",
    )
    p.add_argument(
        "--fail-on",
        choices=("fail", "error", "never"),
        default="fail",
        help="exit 1 when a claim FAILs or crashes (fail), only when one crashes (error), or "
        "never (default: fail)",
    )
    p.add_argument("--results", type=_path, default=RESULTS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "report", parents=[common], help="rebuild report.md and report.html from JSON"
    )
    p.add_argument("run_dir", nargs="?", type=_path, default=RESULTS / "latest", metavar="RUN_DIR")
    p.add_argument(
        "--redecide",
        action="store_true",
        help="first decide RUN_DIR's stored units again under today's rules and planned looks "
        "(verdicts, bounds, summaries, per-root-seed verdicts; no claim is rerun) and write them "
        "back",
    )
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "merge",
        parents=[common],
        help="copy the claims of one run into another run of the same scale and seed",
    )
    p.add_argument("src_dir", type=_path, metavar="SRC_RUN", help="the run to copy from")
    p.add_argument(
        "dst_dir", type=_path, metavar="DST_RUN", help="the run to update (e.g. docs/results/full)"
    )
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser(
        "store",
        parents=[common],
        help="what a store of sweep tasks (run --store) holds, by task function; --prune",
    )
    p.add_argument("store_dir", type=_path, metavar="STORE", help="the store's folder")
    p.add_argument(
        "--prune",
        action="store_true",
        help="first remove the tasks made by other code than today's (or by a function that no "
        "longer exists), task files that cannot be read, and writers' temporary files older "
        "than a day",
    )
    p.set_defaults(func=cmd_store)

    p = sub.add_parser("bench", parents=[common], help="speed of each core solver vs its baseline")
    p.add_argument("--quick", action="store_true", help="small sizes")
    p.add_argument("--only", nargs="*", metavar="NAME", help="run only these benchmarks")
    p.add_argument(
        "--gpu",
        action="store_true",
        help="run the GPU benchmarks instead: each GPU path against the same code on this "
        "machine's CPU (needs cupy and a CUDA device)",
    )
    p.add_argument(
        "--out", type=_path, default=Path("bench.json"), help="output (default: bench.json)"
    )
    p.add_argument(
        "--reach",
        action="store_true",
        help="also find the largest |X| the exact M_tr DP solves within 60 s (takes minutes)",
    )
    p.add_argument(
        "--conjectures",
        type=_positive_int,
        nargs="?",
        const=20,
        default=None,
        metavar="SEEDS",
        help="also measure how often the concept-class strategies refute three false "
        "conjectures over SEEDS fresh hypothesis seeds, and how a true and two false ones fare "
        "under hypothesis's default settings, one fresh process per seed (default 20; needs "
        "hypothesis)",
    )
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("solve", parents=[common], help="run the numeric core on your own input")
    solvers = p.add_subparsers(dest="solver", required=True, parser_class=_Parser)
    s = solvers.add_parser(
        "passk",
        parents=[common],
        help="pass@k table with bootstrap CIs (and crossing, coverage) from sample files",
        description="FILE is CSV or JSONL with per-problem n,c (optionally problem) or per-sample "
        "problem,correct rows, optionally with a seed (or run) column. Two or more files on the "
        "same problems (base first) add the differences to the base, the crossing k and the "
        "coverage sets; CIs come from a paired percentile bootstrap over problems.",
    )
    s.add_argument("--samples", nargs="+", required=True, type=_path, metavar="FILE")
    budgets = s.add_mutually_exclusive_group()
    budgets.add_argument(
        "--k-max",
        type=_positive_int,
        default=None,
        help="k = 1, 2, 4, ... up to this (default: the fewest samples n of any problem)",
    )
    budgets.add_argument(
        "--k",
        type=_positive_ints,
        default=None,
        metavar="K,K,...",
        help="these k instead of powers of two (each 1 <= k <= the fewest samples n)",
    )
    s.add_argument(
        "--n-boot",
        type=_positive_int,
        default=10_000,
        help="bootstrap resamples of the problems (default: 10000)",
    )
    s.add_argument("--ci", type=_level, default=0.95, help="CI level in (0, 1) (default: 0.95)")
    s.add_argument("--seed", type=_seed, default=0, help="seed of the bootstrap (default: 0)")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument(
        "--plot",
        type=_path,
        default=None,
        metavar="OUT.png",
        help="write the figure there (and its .pdf beside it); no figure without it",
    )
    s.set_defaults(func=cmd_solve_passk)
    s = solvers.add_parser(
        "online",
        parents=[common],
        help="Ldim, VC and the exact transductive mistake bound of a class",
        description="FILE: one hypothesis per line as a 0/1 string (# comments allowed), or JSON: a "
        'list of lists of 0/1, or {"hypotheses": [...], "points": [labels]}.',
    )
    s.add_argument("--class", dest="class_file", required=True, type=_path, metavar="FILE")
    s.add_argument(
        "--max-n", type=_positive_int, default=None, help="M_tr(H, n): sequences of length n"
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument(
        "--time-limit",
        type=_positive_float,
        default=None,
        metavar="S",
        help="stop after S seconds and print certified bounds instead: at least max(VC, 1), at "
        "most min(Ldim, ⌊log2 |H|⌋, points), from what finished (default: no limit for a class "
        "the exact DP solves, whose time is estimated before it starts; 600 s beyond it, where "
        "the searches' time cannot be estimated)",
    )
    s.add_argument(
        "--export-tree",
        type=_path,
        default=None,
        metavar="OUT",
        help="write the Littlestone tree witness (.graphml or .dot)",
    )
    s.set_defaults(func=cmd_solve_online)
    s = solvers.add_parser(
        "hivemind",
        parents=[common],
        help="Artificial Hivemind diversity and calibration metrics on your generations",
        description="--gens: JSONL of {query, model, response, category?, decoding?, prompt?, "
        "embedding?}. --ratings: abs.jsonl {query, response, ratings [1..5], scores {name: x}} "
        "and/or pair.jsonl {query, response_1, response_2, labels [-2..2], scores {name: "
        "[s1, s2]}}. MiniLM cosines are on another scale than the paper's embedder: read the "
        "baseline cut-offs, not only 0.7/0.8/0.9.",
    )
    s.add_argument("--gens", required=True, type=_path, metavar="FILE")
    s.add_argument("--ratings", nargs="+", type=_path, default=None, metavar="FILE")
    s.add_argument(
        "--embedder",
        choices=("minilm", "hash", "vectors"),
        default="hash",
        help="minilm (extra 'minilm'), hash (bag of words, no model) or vectors (the file's "
        "'embedding' keys) (default: hash)",
    )
    s.add_argument(
        "--out",
        type=_path,
        default=Path("hivemind-report"),
        help="output folder (default: hivemind-report)",
    )
    s.add_argument(
        "--cache",
        type=_path,
        default=None,
        help="embedding cache folder (default: OUT/embedding-cache)",
    )
    s.add_argument(
        "--cutoffs",
        nargs="+",
        type=_cosine,
        default=[0.7, 0.8, 0.9],
        metavar="C",
        help="report the share of queries with s̄ above each (default: the paper's 0.7 0.8 0.9)",
    )
    s.add_argument(
        "--include-self-pairs",
        action="store_true",
        help="keep i = j pairs in the inter-model diagonal (the paper's convention)",
    )
    s.add_argument(
        "--pairwise-ties",
        choices=("cut", "keep"),
        default="cut",
        help="pairwise top-fraction subsets: cut = exactly int(f·n) items, the authors' rule; "
        "keep = also every item tied at the cut (default: cut)",
    )
    s.add_argument(
        "--n-boot",
        type=lambda text: _parsed(
            text,
            ascii_int,
            lambda v: 1 <= v <= MAX_HIVEMIND_BOOT,
            f"an integer in [1, {MAX_HIVEMIND_BOOT}]",
        ),
        default=1000,
        help=f"bootstrap resamples, 1 to {MAX_HIVEMIND_BOOT} (each resample of each subset and "
        "scorer takes 0.2 to 3 ms; the estimate is logged before the bootstrap starts when it "
        "passes 5 s) (default: 1000)",
    )
    s.add_argument(
        "--time-limit",
        type=_positive_float,
        default=None,
        metavar="S",
        help="stop after S seconds (exit 2, no report.json), reading included; a bootstrap "
        "estimated to take longer than the time left is refused before it starts (default: no "
        "limit)",
    )
    s.add_argument(
        "--seed", type=_seed, default=0, help="seed of baseline and bootstrap (default: 0)"
    )
    s.set_defaults(func=cmd_solve_hivemind)
    from paper_checks.solve import ACTIVATIONS

    s = solvers.add_parser(
        "rmt",
        parents=[common],
        help="spectrum of the random-feature matrix U (diffusion paper, Thm 3.1)",
        description="Deterministic equivalent of U = (1/n) Σ_ν E_ξ φ_ν φ_νᵀ for p = ψ_p d features, "
        "n = ψ_n d samples x0 ~ N(0, Σ) at diffusion time t: the delta at s_t² and each bulk's "
        "mass and edges. --sample D overlays a sampled Gaussian-equivalent U at dimension D. "
        "Validated domain (where the solver is tested): ψ_p, ψ_n in [1, 4096], t in [1e-3, 3], "
        "Σ atoms in [0.1, 10]; outside it the command exits 2. The spectrum is checked before it "
        "is printed (total mass within 1e-3 of 1, densities finite and >= 0, s_t² > 0); when "
        "that check fails nothing is printed and the exit code is 1 (e.g. ψ_p ≈ ψ_n ≫ 16 at "
        "large t).",
    )
    s.add_argument("--psi-p", required=True, type=_positive_float, help="p/d")
    s.add_argument("--psi-n", required=True, type=_positive_float, help="n/d")
    s.add_argument("--t", required=True, type=_positive_float, help="diffusion time")
    s.add_argument(
        "--sigma-atoms",
        type=_positive_floats,
        default=[1.0],
        metavar="A,B,...",
        help="eigenvalues of the data covariance Σ (default: 1, i.e. Σ = I)",
    )
    s.add_argument(
        "--weights", type=_positive_floats, default=None, metavar="W,...", help="their weights"
    )
    s.add_argument("--activation", choices=ACTIVATIONS, default="tanh")
    s.add_argument(
        "--grid",
        type=lambda text: _parsed(
            text, ascii_int, lambda v: 16 <= v <= 1_000_000, "an integer in [16, 1000000]"
        ),
        default=1000,
        help="log-grid points, 16 to 10^6 (default 1000)",
    )
    s.add_argument(
        "--sample", type=_positive_int, default=None, metavar="D", help="also draw U at d = D"
    )
    s.add_argument("--seed", type=_seed, default=0, help="seed of the --sample draw (default: 0)")
    s.add_argument("--json", action="store_true", help="print the spectrum as one JSON object")
    s.add_argument("--plot", type=_path, default=None, metavar="OUT.png", help="write the figure")
    s.set_defaults(func=cmd_solve_rmt)
    s = solvers.add_parser(
        "superposition",
        parents=[common],
        help="train the toy model of the superposition paper at several widths; fit α_m",
        description="Trains y = ReLU(W Wᵀ x + b) with p_i ∝ i^−α (Σp = 1) at every width of --m "
        "(one batched stack per seed) with the paper's AdamW (γ < 0: row-norm growth, γ > 0: "
        "decay), and prints the loss, φ_1/2, φ_1 and the fitted exponent of L ∝ m^−α_m.",
    )
    s.add_argument("--n", type=_positive_int, required=True, help="number of features")
    s.add_argument("--m", required=True, metavar="M1,M2,...", help="hidden widths, e.g. 10,20,40")
    s.add_argument("--alpha", type=_finite_float, default=1.0, help="p_i ∝ i^-alpha (default 1)")
    s.add_argument("--gamma", type=_finite_float, default=-1.0, help="weight decay (default -1)")
    s.add_argument(
        "--steps", type=_positive_int, default=4000, help="optimiser steps (default 4000)"
    )
    s.add_argument(
        "--batch", type=_positive_int, default=512, help="samples per step (default 512)"
    )
    s.add_argument("--seeds", type=_positive_int, default=1, help="independent seeds (default 1)")
    s.add_argument(
        "--lr-groups",
        choices=("shared", "per-group"),
        default="shared",
        help="peak learning rates: 1e-2 for W and b, as the authors' n = 1000 sweeps (shared, "
        "default), or W 0.02·(8/m)^(1/4) and b 2/m, as their n = 10240 runs (per-group)",
    )
    s.add_argument(
        "--backend", choices=BACKENDS, default="numpy", help="array backend (default: numpy)"
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_solve_superposition)
    return parser


def _fail(message: str) -> int:
    """Print the one-line error (newlines folded) and return exit code 2."""
    line = " ".join(message.split()) or "failed"
    print(f"{PROG}: error: {line}", file=sys.stderr)
    return 2


def _os_error_text(err: OSError) -> str:
    """``'PATH': reason`` for a file-system error (PATH -> PATH2 for a rename)."""
    reason = err.strerror or type(err).__name__
    if err.filename is None:
        return f"{reason} ({err})" if str(err) != reason else reason
    where = repr(os.fspath(err.filename))
    if err.filename2 is not None:
        where += f" -> {os.fspath(err.filename2)!r}"
    return f"{where}: {reason}"


def _quiet_dask_loggers(args: argparse.Namespace, level: int) -> None:
    """Dask's distributed configures its own loggers at INFO when imported (scheduler, workers,
    dashboard: ~50 lines per run); keep them at WARNING (ERROR in the worker processes, through
    the environment variable they inherit) unless -v asked for INFO."""
    if getattr(args, "scheduler", "processes") == "processes":
        return
    # worker processes: errors only (their warnings are Dask's own bookkeeping, such as a task
    # cancelled when a run is interrupted), unless -v asks for more
    name = logging.getLevelName(logging.ERROR if level >= logging.WARNING else level).lower()
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", name)
    try:
        import distributed  # noqa: F401  (sets up its loggers on import)
    except ImportError:
        return
    for logger_name in ("distributed", "dask"):
        logging.getLogger(logger_name).setLevel(max(level, logging.WARNING))


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread as an interrupt is, so that every ``finally`` on the
    way out runs (a solver child is stopped, a lock released) before the one-line end."""


def _raise_terminated(*_: object) -> None:
    raise Terminated


def _devnull_text() -> Any:
    """A text stream to /dev/null that lives as long as the command."""
    return Path(os.devnull).open("w", encoding="utf-8")


class _GuardedStdout:
    """sys.stdout for one command: its printing can never cost a record. Text the stream's
    encoding cannot hold is written with backslash escapes; once the reader is gone (EPIPE, as
    in ``| head -1``) the rest goes to /dev/null, as the Python documentation advises for
    SIGPIPE, and the command goes on: results are written whatever happens to the terminal."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream if stream is not None else _devnull_text()
        self.closed_reader = False

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except UnicodeEncodeError:
            encoding = getattr(self.stream, "encoding", None) or "ascii"
            safe = text.encode(encoding, "backslashreplace").decode(encoding)
            return self._guarded(lambda: self.stream.write(safe)) or len(text)
        except (BrokenPipeError, ValueError):  # the reader is gone, or stdout was closed
            self._drop()
            return len(text)

    def flush(self) -> None:
        self._guarded(self.stream.flush)

    def _guarded(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except (BrokenPipeError, ValueError):
            self._drop()
            return None

    def _drop(self) -> None:
        """Send the rest of the output to /dev/null (the stream's descriptor too, so that the
        interpreter's last flush finds nothing to fail on)."""
        self.closed_reader = True
        with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)
            return
        self.stream = _devnull_text()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _signal_name(err: KeyboardInterrupt) -> tuple[str, int]:
    """(the signal's name, the exit code 128 + its number) of an interrupt."""
    import signal

    number = signal.SIGTERM if isinstance(err, Terminated) else signal.SIGINT
    return signal.Signals(number).name, 128 + number


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``paper-checks`` (and ``python -m paper_checks``); returns the exit code.

    Run as the program (``argv`` None), it also owns the process's ends: SIGTERM ends it as
    Ctrl-C does (one line, exit 143; Ctrl-C 130), its standard output is guarded
    (:class:`_GuardedStdout`), and when the command ends early while threads of it still work
    (a check under way), the process exits without waiting for them."""
    if argv is not None:
        return _main(list(argv))
    import signal
    import threading

    with contextlib.suppress(ValueError):  # only the main thread may set handlers
        signal.signal(signal.SIGTERM, _raise_terminated)
        # SIGINT ends a run in one line even where it was started with SIGINT ignored (a
        # background job of a non-interactive shell), for which Python installs no handler
        signal.signal(signal.SIGINT, signal.default_int_handler)
    guarded = _GuardedStdout(sys.stdout)
    sys.stdout = guarded
    code = _main(sys.argv[1:])
    guarded.flush()
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if code not in (0, 1) and any(not t.daemon for t in others):
        sys.stderr.flush()
        os._exit(code)  # the checks under way write nothing the ended run keeps
    return code


def _main(argv: list[str]) -> int:
    """The command ``argv``; its exit code (see the module docstring)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed
        return int(exc.code or 0)
    args.argv = argv
    level = (
        logging.ERROR
        if args.quiet
        else [logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)]
    )
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    _quiet_dask_loggers(args, level)
    from paper_checks.runner import hold_cpu_kernels
    from paper_checks.solve import SolverCheckFailed

    hold_cpu_kernels()  # before any torch operation: a seed's numbers are the same on any x86-64

    if args.command == "solve":
        from paper_checks._compile_notice import announce_kernel_compiles

        announce_kernel_compiles()

    try:
        return args.func(args)
    except SolverCheckFailed as err:
        print(f"{PROG}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as err:  # a reader that did not name its file
        return _fail(f"input is not UTF-8 text ({err.reason} at byte {err.start})")
    except (ValueError, csv.Error) as err:  # json.JSONDecodeError is a ValueError
        return _fail(str(err))
    except OSError as err:
        return _fail(_os_error_text(err))
    except MemoryError:
        return _fail(
            "out of memory: the sizes chosen need more memory than is available; choose "
            "smaller ones"
        )
    except KeyboardInterrupt as err:  # Ctrl-C, or SIGTERM (Terminated)
        name, code = _signal_name(err)
        resume = getattr(err, "resume", "")
        print(f"{PROG}: stopped by {name}{resume}", file=sys.stderr)
        return code
