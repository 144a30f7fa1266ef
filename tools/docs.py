"""Documentation generated from the committed reference runs, never typed by hand.

``docs/results/<scale>/results.json`` holds a reference run (``paper-checks run --all --scale
<scale> --replicates R --out docs/results/<scale>``, figures and arrays not committed). The
generated blocks of ``README.md`` and ``docs/<paper>.md``, between ``<!-- generated:NAME -->`` and
``<!-- /generated:NAME -->``, are rebuilt from them by ``python -m tools.docs`` (``make regen``),
run from the root of a clone; a test fails when they drift. Everything outside the markers is
written by hand. The same command writes the reference runs as the package ships them
(:data:`paper_checks.reproduce.PACKAGED_REFERENCE`). A maintainers' tool: not part of the wheel.

README blocks: ``summary`` (one row per claim) and ``history`` (a line pointing to
``docs/history.md``, whose ``history`` block lists every rule change made after a verdict was
seen). Docs page blocks: ``claims`` (per claim: statement, rule, verdicts, summary, replication,
history, figure). The ``render_*`` functions are pure: records in, Markdown out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from paper_checks._files import write_text
from paper_checks.claims import PAPERS
from paper_checks.report import format_value, render_decision, replication_text
from paper_checks.reproduce import packaged_reference
from paper_checks.results import CheckResult, Verdict, load_results, tally
from sims._jsonio import dumps, read_json

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: The file behind :data:`paper_checks.reproduce.PACKAGED_REFERENCE` in the clone.
PACKAGED_REFERENCE = ROOT / "paper_checks" / "reference.json"
README = ROOT / "README.md"
HISTORY = ROOT / "docs" / "history.md"
#: One page per paper key, with a generated ``claims`` block.
PAGES = {paper: DOCS / f"{paper}.md" for paper in PAPERS}
#: The committed reference runs, by scale (present ones only).
REFERENCE_RUNS = {
    scale: DOCS / "results" / scale
    for scale in ("quick", "full")
    if (DOCS / "results" / scale / "results.json").is_file()
}
#: Longest measured phrase in the README's summary table (cut at a word boundary).
PHRASE_CHARS = 90

Records = dict[str, CheckResult]


def load_reference(scale: str) -> tuple[dict[str, Any], Records]:
    """(run metadata, claim id -> result) of the committed reference run at ``scale``."""
    if scale not in REFERENCE_RUNS:
        raise ValueError(f"no committed reference run at scale {scale!r} under {DOCS / 'results'}")
    run, results = load_results(REFERENCE_RUNS[scale])
    return run, {r.claim_id: r for r in results}


def made_at(run: Mapping[str, Any], claim_id: str) -> str:
    """When the reference run's record of ``claim_id`` was made: the latest of the run's and of
    its updates' (``run --update``, ``merge``) creation times that wrote it (ISO 8601)."""
    times = [run["created"]] + [
        u["created"] for u in run.get("updates", []) if claim_id in u.get("claims", [])
    ]
    return max(times)


def superseded_by(record: CheckResult, run: Mapping[str, Any]) -> dict[str, str] | None:
    """The recorded rule change that came after ``record`` was made, when the record is stale
    (made by other code than today's claim): the last history entry dated after the day the
    record was made, or None when the record is fresh, or stale with no such entry (a defect
    the tests catch). An entry of the record's own day does not count: history carries dates
    only, so a record made that day may already follow the new rule and be stale for another
    reason (a refactor) that no rule change explains."""
    from paper_checks.claims import all_claims
    from paper_checks.runner import made_by_todays_code

    claim = next((c for c in all_claims() if c.id == record.claim_id), None)
    if claim is None or made_by_todays_code(claim, record.provenance):
        return None
    made = made_at(run, record.claim_id)[:10]
    later = [h.to_json() for h in claim.history if h.date > made]
    return later[-1] if later else None


def load_references() -> dict[str, tuple[dict[str, Any], Records]]:
    """Every committed reference run, by scale."""
    return {scale: load_reference(scale) for scale in REFERENCE_RUNS}


def short_phrase(text: str, limit: int = PHRASE_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, with "…" when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + " …"


def _text(text: str) -> str:
    """Plain ``text`` (a summary, a rule) with the characters Markdown would read as emphasis,
    strikethrough or math escaped (``k* ... k*`` would otherwise turn italic)."""
    return re.sub(r"([*~$])", r"\\\1", text)


def _cell(text: str) -> str:
    """Plain ``text`` safe inside a Markdown table cell."""
    return _text(text).replace("|", "\\|")


def anchor(claim_id: str) -> str:
    """The GitHub anchor of the ``### `claim_id``` heading on its docs page."""
    return re.sub(r"[^\w-]", "", claim_id.lower())


def replication_phrase(result: CheckResult) -> str:
    """ "PASS in 5 of 5", "PASS in 3 of 5 (fragile)", "deterministic", "not run" for a claim
    that does not run at the run's scale, or "one root seed" when the run was not replicated
    (``--replicates 1``)."""
    if result.verdict is Verdict.NOT_RUN:
        return "not run"
    return replication_text(result, words=True) or "one root seed"


def _shown_argv(argv: list[str]) -> str:
    """A command line as the docs show it: the stored arguments, blanks dropped, and a directory
    outside the checkout shown by its name only (``<elsewhere>/NAME``)."""
    shown = []
    for arg in argv:
        if arg.startswith("/"):
            path = Path(arg)
            inside = path.is_relative_to(ROOT)
            shown.append(str(path.relative_to(ROOT)) if inside else f"<elsewhere>/{path.name}")
        elif arg:
            shown.append(arg)
    return " ".join(shown)


def statistic_phrase(result: CheckResult) -> str:
    """The deciding statistic over root seeds, "`name` mean ± sd", or ""."""
    rep = result.replication or {}
    if rep.get("statistic_mean") is None:
        return ""
    sd = rep.get("statistic_sd")
    spread = "" if sd is None else f" ± {format_value(sd)}"
    return f"`{rep['statistic']}` {format_value(rep['statistic_mean'])}{spread}"


def _commit(records: Records) -> str:
    shas = {str(r.provenance.get("git_sha", ""))[:12] for r in records.values()}
    return ", ".join(sorted(shas))


def render_provenance(scale: str, run: Mapping[str, Any], records: Records) -> str:
    """Which committed run the numbers come from and its tally, then the commands that made and
    updated it, in order, one numbered line each (a command repeated at once counted, not
    repeated; a run made in another directory marked as merged in)."""
    fragile = sum(bool((r.replication or {}).get("fragile")) for r in records.values())
    old = sum(superseded_by(r, run) is not None for r in records.values())
    old_text = f" {old} of them were made under an old rule, rerun pending." if old else ""
    argv = _shown_argv(run.get("argv", [])) or f"run --all --scale {scale}"
    commands = [(f"`paper-checks {argv}`", False)] + [
        (f"`paper-checks {_shown_argv(update['argv'])}`", "merged_from" in update)
        for update in run.get("updates", [])
    ]
    steps: list[list[Any]] = []  # [command, merged, times in a row]
    for command, merged in commands:
        if steps and steps[-1][:2] == [command, merged]:
            steps[-1][2] += 1
        else:
            steps.append([command, merged, 1])
    commits = _commit(records)
    lines = [
        f"**{scale.capitalize()}**: `docs/results/{scale}/results.json`, root seed {run['seed']}, "
        f"{'commits' if ',' in commits else 'commit'} `{commits}`. {len(records)} claims: "
        + tally(r.verdict for r in records.values())
        + f"; on {fragile} a root seed alone PASSes where another FAILs. Stochastic verdicts "
        f"are decided over the units of all root seeds together.{old_text} Made by "
        f"{len(commands)} commands, in order:",
        "",
    ]
    for i, (command, merged, times) in enumerate(steps, start=1):
        notes = ["made elsewhere, copied in by `paper-checks merge`"] if merged else []
        notes += [f"{times} times in a row"] if times > 1 else []
        lines.append(f"{i}. {command}" + (f" ({'; '.join(notes)})" if notes else ""))
    return "\n".join(lines)


def render_reference_line(scale: str, run: Mapping[str, Any], records: Records) -> str:
    """One line on a reference run: where it is, its root seeds and scale, its tally, and where
    its command history is (the full lines are :func:`render_provenance`'s, in
    docs/running.md)."""
    old = sum(superseded_by(r, run) is not None for r in records.values())
    contradicting = sum(bool((r.replication or {}).get("fragile")) for r in records.values())
    verdicts = tally(r.verdict for r in records.values())
    notes = [f"{contradicting} with root seeds contradicting each other"] if contradicting else []
    if old:
        notes.append(f"{old} made under an old rule, rerun pending")
    return (
        f"**{scale.capitalize()}** (`docs/results/{scale}`, root seed {run['seed']}, up to "
        f"{max([run.get('replicates', 1)] + [u.get('replicates', 1) for u in run.get('updates', [])])}"
        f" root seeds pooled per stochastic claim; commands in "
        f"[docs/running.md](docs/running.md#reference-runs-generated)): {len(records)} claims, "
        f"{verdicts}" + (f" ({'; '.join(notes)})" if notes else "") + "."
    )


def not_run_at_full(quick: Records, full: Records) -> str:
    """The claims of the quick run that the full run lacks: whole papers by key, then single
    claims of papers that the full run covers in part."""
    papers = dict.fromkeys(r.paper for r in quick.values())
    absent = [p for p in papers if not any(r.paper == p for r in full.values())]
    single = [c for c, r in quick.items() if c not in full and r.paper not in absent]
    parts = [f"all of {', '.join(absent)}"] if absent else []
    parts += [f"`{c}`" for c in single]
    return "; ".join(parts)


def _full_cell(result: CheckResult | None, old_rule: bool = False) -> str:
    """The full-scale verdict with its root seeds, "old rule: ..." when the record predates a
    recorded rule change, or "-" if not run."""
    if result is None:
        return "-"
    if old_rule:
        return f"old rule: {result.verdict.value}, rerun pending"
    rep = result.replication or {}
    if rep.get("n"):
        flag = ", contradicting" if rep.get("fragile") else ""
        return f"{result.verdict.value} ({rep['n']} seeds pooled{flag})"
    return result.verdict.value


def render_summary(references: Mapping[str, tuple[Mapping[str, Any], Records]]) -> str:
    """The README's table: claim (linked to its docs page), verdict at quick (and full, once a
    full run is committed), the quick verdict over root seeds, and the start of its summary."""
    quick = references["quick"][1]
    full = references["full"][1] if "full" in references else None
    head = "| claim | quick |" + (" full (over root seeds) |" if full is not None else "")
    head += " quick over root seeds | measured (quick) |"
    lines = [render_reference_line(scale, *references[scale]) + "\n" for scale in references]
    if full is not None and (missing := not_run_at_full(quick, full)):
        lines.append(f"Not in the full reference run (CPU budget): {missing}.\n")
    lines += [head, "|---" * head.count(" |") + "|"]
    for r in quick.values():
        link = f"[`{r.claim_id}`](docs/{r.paper}.md#{anchor(r.claim_id)})"
        row = f"| {link} | {r.verdict.value} |"
        if full is not None:
            f = full.get(r.claim_id)
            old = f is not None and superseded_by(f, references["full"][0]) is not None
            row += f" {_full_cell(f, old)} |"
        row += f" {replication_phrase(r)} | {_cell(short_phrase(r.summary))} |"
        lines.append(row)
    return "\n".join(lines)


def render_history_pointer(records: Records) -> str:
    """The README's line on the history: how many changes, on how many claims, and where."""
    changed = [r for r in records.values() if r.history]
    n = sum(len(r.history) for r in changed)
    return (
        f"{n} changes of rule, statistic, sizes or seeds on {len(changed)} claims were made after "
        "a verdict had been seen; [docs/history.md](docs/history.md) lists each with its reason "
        "and the verdict under the old rule (so does each claim's page)."
    )


def render_history(records: Records) -> str:
    """Every recorded change of rule, statistic, sizes or seeds made after a verdict was seen,
    one row per claim (its changes in date order), for ``docs/history.md``."""
    lines = [
        "| claim | changes after a verdict was seen (date: change; verdict under the old rule) |"
    ]
    lines.append("|---|---|")
    lines += [
        f"| [`{r.claim_id}`]({r.paper}.md#{anchor(r.claim_id)}) | "
        + "<br>".join(
            _cell(f"{h['date']}: {h['change']}; before: {h['before']}") for h in r.history
        )
        + " |"
        for r in records.values()
        if r.history
    ]
    return "\n".join(lines)


def render_claim(
    result: CheckResult, full: CheckResult | None = None, full_superseded: dict | None = None
) -> str:
    """One claim's section on its docs page (``full_superseded``: the rule change that came
    after the full record was made; the record is then shown as the old rule's)."""
    lines = [
        f"### `{result.claim_id}`",
        "",
        f"{_text(result.statement)} ({_text(result.source)})",
        "",
        f"- **Rule** (registered before the run): {_text(result.rule)}",
        f"- **Quick verdict: {result.verdict.value}.** {_text(result.summary)}",
    ]
    if full is not None and full_superseded is not None:
        lines.append(
            f"- **Full verdict under the old rule: {full.verdict.value}** (made before the "
            f"change of {full_superseded['date']}; not yet rerun under the current rule). "
            f"{_text(full.summary)}"
        )
    elif full is not None:
        lines.append(
            f"- **Full verdict: {full.verdict.value}** ("
            + (
                f"over root seeds: {rep}"
                if (rep := replication_text(full, words=True))
                else "one root seed"
            )
            + f"). {_text(full.summary)}"
        )
    stat = statistic_phrase(result)
    lines.append(
        f"- **Over root seeds:** {replication_phrase(result)}" + (f"; {stat}" if stat else "")
    )
    lines += render_decision(result.decision, "quick")
    if full is not None and full_superseded is None:
        lines += render_decision(full.decision, "full")
    lines += [
        f"- **History:** {h['date']}: {_text(h['change'])} (why: {_text(h['reason'])}; verdict "
        f"under the old rule: {_text(h['before'])})"
        for h in result.history
    ]
    lines += [
        f"- **Figure** (after `make run`): [results/latest/{fig}](../results/latest/{fig})"
        for fig in result.figures
        if fig.endswith(".png")
    ]
    return "\n".join(lines)


def render_claims(paper: str, references: Mapping[str, tuple[Mapping[str, Any], Records]]) -> str:
    """The ``claims`` block of ``docs/<paper>.md``: every claim of the paper in the quick run."""
    quick = references["quick"][1]
    full = references["full"][1] if "full" in references else {}
    sections = [
        "\n\n".join(
            render_reference_line(scale, *references[scale]).replace(
                "docs/running.md", "running.md"
            )
            for scale in references
        )
    ]
    full_run = references["full"][0] if "full" in references else {}
    sections += [
        render_claim(r, f, None if f is None else superseded_by(f, full_run))
        for r in quick.values()
        if r.paper == paper
        for f in [full.get(r.claim_id)]
    ]
    return "\n\n".join(sections)


def render_blocks(text: str, blocks: Mapping[str, str], where: str) -> str:
    """``text`` with the body of every ``<!-- generated:NAME -->`` block replaced by
    ``blocks[NAME]``; ValueError for a block name ``where`` does not generate."""

    def rebuild(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in blocks:
            raise ValueError(f"{where} has an unknown generated block {name!r}")
        return f"<!-- generated:{name} -->\n{blocks[name]}\n<!-- /generated:{name} -->"

    return re.sub(
        r"<!-- generated:(\w+) -->\n.*?<!-- /generated:\1 -->", rebuild, text, flags=re.DOTALL
    )


#: The census claim whose count table ``docs/online.md`` shows (block ``census``).
CENSUS_CLAIM = "online.census_5_points"


def render_census(references: Mapping[str, tuple[Mapping[str, Any], Records]]) -> str:
    """The (Ldim, M_tr) count table of the 5-point census from the largest committed run that
    holds it (full covers every class, quick one chunk), with each gap's smallest class."""
    scale = next(
        (s for s in ("full", "quick") if CENSUS_CLAIM in references.get(s, ({}, {}))[1]), None
    )
    if scale is None:
        return f"No committed reference run holds `{CENSUS_CLAIM}` yet."
    m = references[scale][1][CENSUS_CLAIM].measured
    head = (
        f"From the {scale} reference run: {m['classes_counted']:,} classes "
        f"({m['chunks_counted']} of 256 chunks); classes below the 2/3 line: "
        f"{m['classes_below_two_thirds']}."
    )
    lines = [
        head,
        "",
        "| (Ldim, M_tr) | classes | smallest class (gaps only; rows are hypotheses over points 0-4) |",
        "|---|---:|---|",
    ]
    smallest = m.get("smallest_gap_classes", {})
    for pair in sorted(m["counts"], key=lambda p: tuple(int(x) for x in p.split(","))):
        rows = smallest.get(pair)
        example = f"{len(rows)} hypotheses: `{' '.join(rows)}`" if rows else ""
        lines.append(f"| ({pair.replace(',', ', ')}) | {m['counts'][pair]:,} | {example} |")
    return "\n".join(lines)


#: The committed timing runs of the main job, before and after the speed-ups that docs/running.md
#: describes (section "Timing of the main job, claim by claim").
TIMING_RUNS = {when: DOCS / "results" / f"timing-{when}" for when in ("before", "after")}
RUNNING = DOCS / "running.md"


def _cpu_seconds(result: CheckResult) -> float:
    """A claim's CPU seconds: ``cpu_time_s`` where recorded, else its wall time (the before run
    was serial, one single-threaded process, so its wall time is its CPU time)."""
    p = result.provenance
    return float(p["cpu_time_s"] if p.get("cpu_time_s") is not None else p["wall_time_s"])


def render_timing(
    before: tuple[Mapping[str, Any], Records], after: tuple[Mapping[str, Any], Records]
) -> str:
    """Per-claim CPU seconds of the main job before and after, their ratio, and the totals with
    each run's command line and wall time (slowest claims first)."""
    (run_b, rec_b), (run_a, rec_a) = before, after
    lines = []
    for name, run, records in (("Before", run_b, rec_b), ("After", run_a, rec_a)):
        total = sum(_cpu_seconds(r) for r in records.values())
        lines.append(
            f"{name}: `paper-checks {' '.join(run['argv'])}` at commit `{_commit(records)}`, "
            f"{run['created']}: {len(records)} claims, {total:.0f} CPU-s in the claims, "
            f"{run['wall_time_s'] / 60:.1f} min of wall time for the run.\n"
        )
    lines += ["| claim | before (CPU s) | after (CPU s) | after / before |", "|---|---|---|---|"]
    ids = sorted(
        set(rec_b) | set(rec_a), key=lambda c: (-_cpu_seconds(rec_b.get(c) or rec_a[c]), c)
    )
    for claim_id in ids:
        b, a = rec_b.get(claim_id), rec_a.get(claim_id)
        cb = "-" if b is None else f"{_cpu_seconds(b):.1f}"
        ca = "-" if a is None else f"{_cpu_seconds(a):.1f}"
        ratio = "-"
        if a is not None and b is not None and _cpu_seconds(b) > 0:
            ratio = f"{_cpu_seconds(a) / _cpu_seconds(b):.2f}"
        lines.append(f"| `{claim_id}` | {cb} | {ca} | {ratio} |")
    return "\n".join(lines)


#: The committed ``paper-checks bench`` run that docs/benchmarks.md is generated from.
BENCH_RUN = DOCS / "results" / "bench.json"
#: The committed run of the batched trainers (K seeds as one model against one at a time).
BATCHED_RUN = DOCS / "results" / "bench-batched.json"
BENCHMARKS = DOCS / "benchmarks.md"
#: The shape of the house: today's measurement beside a committed earlier one.
ADDING = DOCS / "adding-a-claim.md"
HOUSE_BEFORE = DOCS / "results" / "house-before.json"


#: The committed output of scripts/device_check.py on a machine with one NVIDIA GPU (absent
#: until a GPU machine has run it).
DEVICE_CHECK = DOCS / "results" / "device-check.json"


def _pytest_tally(tail: str) -> str:
    """The last pytest tally line in an output tail ("20 passed, 6 skipped in 51.2s"), or
    "no tally" when the output has none (a run stopped before it ended)."""
    tallies = re.findall(r"=+ ([^=\n]*\b(?:passed|failed|skipped|error)[^=\n]*) =+", tail)
    return tallies[-1].strip() if tallies else "no tally"


def render_device_check(report: Mapping[str, Any] | None) -> str:
    """docs/benchmarks.md's GPU section from the committed device check (``report``, the JSON
    :file:`scripts/device_check.py` writes; None when none has run): the machine, each step's
    exit and wall time (the gpu tests' tally), each full claim run's verdict beside the CPU
    reference's and the largest relative difference of its numbers, and the GPU benchmarks."""
    if report is None:
        return (
            "No device check has run yet: no GPU machine has started for this project. "
            "`scripts/device_check.py` ([running.md](running.md#the-device-check)) fills this "
            "section from its `device-check.json`, committed in `docs/results`."
        )
    if missing := report.get("missing"):
        return f"The device check of {report.get('created')} stopped before running anything: " + (
            "; ".join(missing)
        )
    machine = report.get("machine", {})
    facts = ", ".join(
        f"{key} {machine[key]}"
        for key in ("gpu", "gpu_memory_gib", "cpu_count", "python", "torch", "cupy", "numpy")
        if key in machine
    )
    lines = [
        (
            f"From `{DEVICE_CHECK.relative_to(ROOT).as_posix()}` ({report.get('created')}): "
            f"{_cell(facts)}. "
            f"{report.get('timing', '')}."
        ),
        "",
        "| step | exit | wall (s) | result |",
        "|---|---|---|---|",
    ]
    for step in report.get("steps", []):
        if "verdict" in step:
            diff = step.get("against_reference", {})
            where = (
                f", numbers within {diff['largest']:.2g} (largest relative difference, at "
                f"`{diff['at']}`, of {diff['compared']})"
                if diff.get("compared")
                else ""
            )
            result = f"{step['verdict']} (CPU reference: {step.get('reference_verdict')}){where}"
        elif step["step"] == "gpu tests":
            result = _pytest_tally(step.get("output_tail", ""))
        else:
            result = "-"
        lines.append(f"| {_cell(step['step'])} | {step['exit']} | {step['wall_s']} | {result} |")
    for claim_id, why in (report.get("not_run_here") or {}).items():
        lines.append(f"| run {claim_id} | not run | - | {_cell(why)} |")
    if rows := report.get("bench"):
        bench = render_bench({"quick": True, "benchmarks": rows, "provenance": {}}, DEVICE_CHECK)
        lines += ["", *bench.splitlines()[2:]]  # the table, without the bench's own provenance
    return "\n".join(lines)


def render_bench(payload: Mapping[str, Any], path: Path = BENCH_RUN) -> str:
    """A speed table of docs/benchmarks.md from the committed bench JSON at ``path`` (its
    provenance line, then one row per benchmark), and the refutation rates of the false
    conjectures when it has them."""
    prov = payload.get("provenance", {})
    lines = [
        f"From `{path.relative_to(ROOT).as_posix()}`: "
        f"`paper-checks {_shown_argv(prov.get('argv', ['bench']))}`"
        f", {prov.get('created', 'date not recorded')}, commit `{str(prov.get('git_sha'))[:12]}`"
        f", {prov.get('machine', 'machine not recorded')}"
        + (" (`--quick` sizes)" if payload.get("quick") else "")
        + ".",
        "",
        "| benchmark | size | ours (s) | baseline (s) | speedup | outputs | baseline |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in payload["benchmarks"]:
        agree = ("agree" if r["agree"] else "DISAGREE") + (
            f": {r['detail']}" if r["detail"] else ""
        )
        cpu = " CPU" if r.get("clock") == "cpu" else ""  # CPU seconds, not wall-clock
        lines.append(
            f"| `{r['name']}` | {_cell(r['size'])} | {r['ours_s']:.3g}{cpu} | "
            f"{r['baseline_s']:.3g}{cpu} | {r['speedup']:,.1f}x | {_cell(agree)} | "
            f"{_cell(r['baseline'])} |"
        )
    if rows := payload.get("conjecture_refutation"):
        lines += [
            "",
            (
                f"Property-test strategies against three false conjectures, {rows[0]['seeds']} fresh "
                f"hypothesis seeds each (entropy {rows[0]['entropy']}), default settings:"
            ),
            "",
            (
                "| conjecture | strategy | refuted | first counterexample (median / max s) | whole "
                "test, shrinking included (max s) |"
            ),
            "|---|---|---|---|---|",
        ]
        for r in rows:
            first = (
                "-"
                if r["first_s_median"] is None
                else f"{r['first_s_median']:.2g} / {r['first_s_max']:.2g}"
            )
            total = "-" if r["total_s_max"] is None else f"{r['total_s_max']:.2g}"
            lines.append(
                f"| {_cell(r['conjecture'])} | `{r['strategy']}` | {r['refuted']} of {r['seeds']} "
                f"| {first} | {total} |"
            )
    if rows := payload.get("default_settings"):
        lines += [
            "",
            (
                f"A user's test file under hypothesis's default settings (200 ms deadline, 100 "
                f"examples, fresh seed, no example database), one fresh process per seed "
                f"(`paper_checks.bench.default_settings_conjectures`: {rows[0]['seeds']} seeds, "
                f"entropy {rows[0]['entropy']}; {rows[0]['created']}, commit "
                f"`{str(rows[0]['git_sha'])[:12]}`), `{rows[0]['strategy']}`:"
            ),
            "",
            "| conjecture | true? | passed | refuted | other outcomes |",
            "|---|---|---|---|---|",
        ]
        for r in rows:
            errors = ", ".join(f"{n} × {kind}" for kind, n in r["errors"].items()) or "none"
            lines.append(
                f"| {_cell(r['conjecture'])} | {'yes' if r['true'] else 'no'} | {r['passed']} of "
                f"{r['seeds']} | {r['refuted']} of {r['seeds']} | {_cell(errors)} |"
            )
    return "\n".join(lines)


#: docs/verdicts.md: the decision's error rates and power, measured when the docs are built.
VERDICTS = DOCS / "verdicts.md"
#: Unit counts, unit sets per rate and the seed of the measured error-rate table.
RATE_UNITS, RATE_SETS, RATE_SEED = (3, 5, 10, 30), 20_000, 2026


@functools.cache
def render_error_rates() -> str:
    """The error rates of a one-part rule at level 0.025 over :data:`RATE_SETS` synthetic unit
    sets per cell (seeded), for every family of :data:`paper_checks.calibration.FAMILIES`:
    the larger of P(PASS) with the true mean on the pass margin and P(FAIL) with it on the fail
    margin, with the bound used and with Student's t alone (same draws)."""
    from paper_checks.calibration import FAMILIES, error_rates

    se = (0.025 * 0.975 / RATE_SETS) ** 0.5
    lines = [
        (
            f"Each cell: the larger of P(PASS) with the true mean on the pass margin and P(FAIL) "
            f"with it on the fail margin, over {RATE_SETS:,} synthetic unit sets each (one-part "
            f"rule, level 0.025, a part asserting a large mean; a part asserting a small one is the "
            f"mirrored row), with the bound used and, in brackets, with Student's t alone on the same "
            f"draws. Monte Carlo standard error at 0.025: {se:.4f}. Measured when the docs are "
            f"built (`paper_checks.calibration.error_rates`, seed {RATE_SEED})."
        ),
        "",
        "| unit values | skewness | excess kurtosis | in the class | "
        + " | ".join(f"n = {n}" for n in RATE_UNITS)
        + " |",
        "|---|---|---|---|" + "---|" * len(RATE_UNITS),
    ]
    for i, family in enumerate(FAMILIES):
        cells = []
        for n in RATE_UNITS:
            worst = []
            for skew in (None, 0.0):
                kwargs = {} if skew is None else {"skew": skew}
                rates = error_rates(
                    family, n, sets=RATE_SETS, seed=RATE_SEED + 100 * i + n, **kwargs
                )
                worst.append(max(rates.values()))
            cells.append(f"{worst[0]:.3f} ({worst[1]:.3f})")
        lines.append(
            f"| {family.name} | {family.skewness:+.2f} | {family.excess_kurtosis:.2f} | "
            f"{'yes' if family.in_class else '**no**'} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def render_power() -> str:
    """What the skew-robust bound costs on normal units: P(PASS) when the true mean lies
    e standard deviations beyond the pass margin, and the units needed to PASS there, with the
    bound used and with Student's t (exact: noncentral t)."""
    from paper_checks.calibration import power, units_to_decide

    lines = [
        (
            "Normal units, one-part rule at level 0.025: P(PASS) when the true mean lies e standard "
            "deviations beyond the pass margin (exact, noncentral t), with the bound used and, in "
            "brackets, with Student's t; last column: the units that PASS it when the sd is "
            "measured exactly."
        ),
        "",
        "| e | " + " | ".join(f"n = {n}" for n in RATE_UNITS) + " | units to PASS |",
        "|---|" + "---|" * (len(RATE_UNITS) + 1),
    ]
    for effect in (0.5, 1.0, 2.0):
        cells = [f"{power(effect, n):.3f} ({power(effect, n, skew=0.0):.3f})" for n in RATE_UNITS]
        units = f"{units_to_decide(effect)} ({units_to_decide(effect, skew=0.0)})"
        lines.append(f"| {effect:g} | " + " | ".join(cells) + f" | {units} |")
    return "\n".join(lines)


#: The real check shown in docs/adding-a-claim.md as the shape a claim takes.
EXAMPLE_CHECK = ("paper_checks.checks.rlvr_experiments", "toy_controls_do_not_cross")


def render_example_check() -> str:
    """The source of :data:`EXAMPLE_CHECK` from its ``def`` to its end, as a python block."""
    import importlib
    import inspect

    module, name = EXAMPLE_CHECK
    source = inspect.getsource(getattr(importlib.import_module(module), name))
    body = source[source.index(f"def {name}(") :].rstrip()
    where = f"`{module.replace('.', '/')}.py`"
    return (
        f"`{name}` in {where}, as it stands:\n\n"
        "<!-- not-tested: the source of a registered check, shown as it is -->\n"
        f"```python\n{body}\n```"
    )


def generated_files(
    references: Mapping[str, tuple[Mapping[str, Any], Records]] | None = None,
) -> dict[Path, str]:
    """What ``README.md``, every ``docs/<paper>.md`` and ``docs/running.md`` must read, and the
    packaged reference (:func:`paper_checks.reproduce.packaged_reference`): path -> full text."""
    references = load_references() if references is None else references
    packaged = packaged_reference({s: (run, r.values()) for s, (run, r) in references.items()})
    out = {PACKAGED_REFERENCE: dumps(packaged)}
    quick = references["quick"][1]
    readme = {"summary": render_summary(references), "history": render_history_pointer(quick)}
    out[README] = render_blocks(README.read_text(encoding="utf-8"), readme, "README.md")
    history = {"history": render_history(quick)}
    out[HISTORY] = render_blocks(HISTORY.read_text(encoding="utf-8"), history, HISTORY.name)
    for paper, page in PAGES.items():
        blocks = {"claims": render_claims(paper, references)}
        if paper == "online":
            blocks["census"] = render_census(references)
        out[page] = render_blocks(page.read_text(encoding="utf-8"), blocks, page.name)
    if all((d / "results.json").is_file() for d in TIMING_RUNS.values()):
        runs = {when: load_results(d) for when, d in TIMING_RUNS.items()}
        before, after = ((r[0], {x.claim_id: x for x in r[1]}) for r in runs.values())
        blocks = {
            "timing": render_timing(before, after),
            "references": "\n\n".join(
                render_provenance(scale, *references[scale]) for scale in references
            ),
        }
        out[RUNNING] = render_blocks(RUNNING.read_text(encoding="utf-8"), blocks, RUNNING.name)
    if BENCH_RUN.is_file() and BATCHED_RUN.is_file():
        bench = {
            "bench": render_bench(read_json(BENCH_RUN)),
            "bench_batched": render_bench(read_json(BATCHED_RUN), BATCHED_RUN),
            "device_check": render_device_check(
                read_json(DEVICE_CHECK) if DEVICE_CHECK.is_file() else None
            ),
        }
        out[BENCHMARKS] = render_blocks(
            BENCHMARKS.read_text(encoding="utf-8"), bench, "benchmarks.md"
        )
    if HOUSE_BEFORE.is_file():
        from tools.house import measure, render_house

        house = {
            "house": render_house(read_json(HOUSE_BEFORE), measure()),
            "example": render_example_check(),
        }
        out[ADDING] = render_blocks(ADDING.read_text(encoding="utf-8"), house, ADDING.name)
    blocks = {"error_rates": render_error_rates(), "power": render_power()}
    out[VERDICTS] = render_blocks(VERDICTS.read_text(encoding="utf-8"), blocks, VERDICTS.name)
    return out


def write_docs() -> list[Path]:
    """Rebuild the generated blocks of the README and every docs page in place; return the
    files written."""
    files = generated_files()
    for path, text in files.items():
        path.parent.mkdir(exist_ok=True)
        write_text(path, text, ROOT)
    return list(files)


if __name__ == "__main__":
    for written in write_docs():
        print(f"wrote {written}")
