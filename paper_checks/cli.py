"""The ``paper-checks`` command line.

Exit codes: 0 every checked claim passed (or was inconclusive), 1 some claim failed or crashed,
2 bad usage or bad input (one line on stderr naming what is wrong, no traceback).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from paper_checks.claims import PAPERS, all_claims, select_claims
from paper_checks.context import SCALES, Context
from paper_checks.report import verdict_table, write_reports
from paper_checks.results import RunInfo, Verdict, load_results, update_latest, write_results
from sims._backend import BACKENDS, get_backend

PROG = "paper-checks"
RESULTS = Path("results")


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _scheduler(text: str) -> str:
    if text in ("processes", "dask") or text.startswith("tcp://"):
        return text
    raise argparse.ArgumentTypeError(f"expected processes, dask or tcp://HOST:PORT, got {text!r}")


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
    claims = [c for c in all_claims() if not args.papers or c.paper in args.papers]
    last: dict[str, str] = {}
    latest = args.results / "latest"
    if (latest / "results.json").is_file():
        last = {r.claim_id: r.verdict.value for r in load_results(latest)[1]}
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
    backend = get_backend(args.backend)
    created = datetime.now(UTC)
    run_id = f"{created:%Y%m%d-%H%M%S}-{args.scale}"
    if args.out is None:
        out_dir, suffix = args.results / run_id, 1
        while out_dir.exists():  # two runs in the same second
            suffix += 1
            out_dir = args.results / f"{run_id}-{suffix}"
    else:
        out_dir = args.out
    run_id = out_dir.name
    out_dir.mkdir(parents=True, exist_ok=True)

    from sims.sweep import make_executor

    start = time.perf_counter()
    with make_executor(args.workers, args.scheduler) as executor:
        ctx = Context(args.scale, args.seed, out_dir, executor, backend)
        from paper_checks.runner import run_claims

        results = run_claims(claims, ctx)
    info = RunInfo(
        run_id=run_id,
        created=created.isoformat(timespec="seconds"),
        scale=args.scale,
        seed=args.seed,
        scheduler=args.scheduler,
        workers=args.workers,
        backend=backend.name,
        argv=list(args.argv),
        wall_time_s=round(time.perf_counter() - start, 3),
    )
    write_results(out_dir, info, results)
    _, page = write_reports(out_dir)
    update_latest(out_dir.resolve().parent, out_dir.resolve())
    _print_table(verdict_table(results), ("claim", "verdict", "summary", "s"))
    counts = {v: sum(r.verdict is v for r in results) for v in Verdict}
    print(", ".join(f"{n} {v.value}" for v, n in counts.items() if n) + f"; report: {page}")
    return 1 if counts[Verdict.FAIL] or counts[Verdict.ERROR] else 0


def cmd_report(args: argparse.Namespace) -> int:
    md, page = write_reports(args.run_dir)
    print(f"wrote {md} and {page}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from paper_checks.bench import run_benchmarks

    rows = run_benchmarks(quick=args.quick, out=args.out, only=args.only)
    _print_table(
        [
            (
                r["name"],
                f"{r['ours_s']:.4g}",
                f"{r['baseline_s']:.4g}",
                f"{r['speedup']:.1f}x",
                r["baseline"],
            )
            for r in rows
        ],
        ("benchmark", "ours s", "baseline s", "speedup", "baseline"),
    )
    if args.reach:
        from paper_checks.bench import mtr_reach
        from sims._jsonio import read_json, write_json_atomic

        reach = mtr_reach()
        for r in reach:
            print(
                f"exact M_tr within 60 s at |H| = {r['n_hypotheses']}: |X| = {r['n_points']} "
                f"({r['seconds']:.1f} s)"
            )
        write_json_atomic(args.out, {**read_json(args.out), "mtr_reach": reach})
    print(f"wrote {args.out}")
    return 0


def cmd_solve_passk(args: argparse.Namespace) -> int:
    from paper_checks.solve import solve_passk

    _, lines = solve_passk(args.samples, k_max=args.k_max, plot=args.plot)
    print("\n".join(lines))
    return 0


def cmd_solve_online(args: argparse.Namespace) -> int:
    import json

    from paper_checks.solve import solve_online
    from sims._jsonio import to_jsonable

    out, lines = solve_online(args.class_file, max_n=args.max_n, export_tree=args.export_tree)
    print(json.dumps(to_jsonable(out)) if args.json else "\n".join(lines))
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
    )
    print(json.dumps(to_jsonable(out)) if args.json else "\n".join(lines))
    return 0


def _finite_float(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


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
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser(
        "list", parents=[common], help="list claims with the verdict of the last run"
    )
    p.add_argument("papers", nargs="*", metavar="PAPER", help=f"paper keys ({', '.join(PAPERS)})")
    p.add_argument("--results", type=Path, default=RESULTS, help="results root (default: results)")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("run", parents=[common], help="check claims, write results and reports")
    p.add_argument("targets", nargs="*", metavar="PAPER|CLAIM", help="paper keys or claim ids")
    p.add_argument("--all", action="store_true", help="every registered claim")
    p.add_argument(
        "--scale", choices=SCALES, default="quick", help="problem sizes (default: quick)"
    )
    p.add_argument("--seed", type=_seed, default=0, help="root seed (default: 0)")
    p.add_argument("--workers", type=_positive_int, default=1, help="parallel workers (default: 1)")
    p.add_argument(
        "--scheduler",
        type=_scheduler,
        default="processes",
        help="processes (local pool), dask (LocalCluster) or tcp://HOST:PORT (default: processes)",
    )
    p.add_argument(
        "--backend", choices=BACKENDS, default="numpy", help="array backend (default: numpy)"
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="run directory (default: results/<run-id>); reuse a killed run's directory to resume its sweeps",
    )
    p.add_argument("--results", type=Path, default=RESULTS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "report", parents=[common], help="rebuild report.md and report.html from JSON"
    )
    p.add_argument("run_dir", nargs="?", type=Path, default=RESULTS / "latest", metavar="RUN_DIR")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("bench", parents=[common], help="speed of each core solver vs its baseline")
    p.add_argument("--quick", action="store_true", help="small sizes")
    p.add_argument("--only", nargs="*", metavar="NAME", help="run only these benchmarks")
    p.add_argument(
        "--out", type=Path, default=Path("bench.json"), help="output (default: bench.json)"
    )
    p.add_argument(
        "--reach",
        action="store_true",
        help="also find the largest |X| the exact M_tr DP solves within 60 s (takes minutes)",
    )
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("solve", parents=[common], help="run the numeric core on your own input")
    solvers = p.add_subparsers(dest="solver", required=True, parser_class=_Parser)
    s = solvers.add_parser(
        "passk",
        parents=[common],
        help="pass@k table (and crossing, coverage) from sample files",
        description="FILE is CSV or JSONL with per-problem n,c (optionally problem) or per-sample "
        "problem,correct rows. Two files (base, then RL) add the crossing k and the coverage sets.",
    )
    s.add_argument("--samples", nargs="+", required=True, type=Path, metavar="FILE")
    s.add_argument("--k-max", type=_positive_int, default=None, help="largest k (default: min n)")
    s.add_argument(
        "--plot", type=Path, default=Path("passk.png"), help="figure path (default: passk.png)"
    )
    s.set_defaults(func=cmd_solve_passk)
    s = solvers.add_parser(
        "online",
        parents=[common],
        help="Ldim, VC and the exact transductive mistake bound of a class",
        description="FILE: one hypothesis per line as a 0/1 string (# comments allowed), or JSON: a "
        'list of lists of 0/1, or {"hypotheses": [...], "points": [labels]}.',
    )
    s.add_argument("--class", dest="class_file", required=True, type=Path, metavar="FILE")
    s.add_argument(
        "--max-n", type=_positive_int, default=None, help="M_tr(H, n): sequences of length n"
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument(
        "--export-tree",
        type=Path,
        default=None,
        metavar="OUT",
        help="write the Littlestone tree witness (.graphml or .dot)",
    )
    s.set_defaults(func=cmd_solve_online)
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
        "--backend", choices=BACKENDS, default="numpy", help="array backend (default: numpy)"
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_solve_superposition)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``paper-checks`` (and ``python -m paper_checks``); returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
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
    try:
        return args.func(args)
    except ValueError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
