"""Reports of a run, rebuilt from its JSON alone: ``report.md`` and a self-contained
``report.html`` (verdict table, each claim's statement, measured vs expected, its figure embedded
as a data URI, provenance)."""

from __future__ import annotations

import base64
import html
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from paper_checks._files import write_text
from paper_checks.calibration import part_characteristics
from paper_checks.results import CheckResult, load_results, tally

_MAX_LIST = 6


def format_value(value: Any) -> str:
    """A short human-readable rendering of a JSON value (4 significant digits for floats)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        shown = ", ".join(format_value(v) for v in value[:_MAX_LIST])
        more = f", … ({len(value)} values)" if len(value) > _MAX_LIST else ""
        return f"[{shown}{more}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def comparison_rows(result: CheckResult) -> list[tuple[str, str, str]]:
    """(quantity, measured, expected) rows: shared keys first, side by side."""
    keys = list(result.measured) + [k for k in result.expected if k not in result.measured]
    return [
        (
            k,
            format_value(result.measured[k]) if k in result.measured else "",
            format_value(result.expected[k]) if k in result.expected else "",
        )
        for k in keys
    ]


def _per_seed_counts(rep: dict[str, Any]) -> str:
    """ "PASS 3, INCONCLUSIVE 2": the root seeds' own verdicts, most frequent first."""
    counts = sorted(((n, v) for v, n in rep["counts"].items() if n), key=lambda c: -c[0])
    return ", ".join(f"{v} {n}" for n, v in counts)


def replication_text(result: CheckResult, *, words: bool = False) -> str:
    """How the verdict was reached over root seeds: "5 seeds pooled (each: PASS 3,
    INCONCLUSIVE 2)" (with ``words``: "pooled over 5 root seeds; each alone: PASS 3,
    INCONCLUSIVE 2"), flagged when one root seed PASSes and another FAILs, "deterministic", or
    "" when the run was not replicated."""
    rep = result.replication
    if not rep:
        return ""
    if rep.get("deterministic"):
        return "deterministic"
    each = _per_seed_counts(rep)
    if words:
        text = f"pooled over {rep['n']} root seeds; each alone: {each}"
        return text + (" (root seeds contradict each other)" if rep["fragile"] else "")
    text = f"{rep['n']} seeds (each: {each})"
    return f"CONTRADICTING: {text}" if rep["fragile"] else text


def render_decision(decision: Mapping[str, Any] | None, scale: str) -> list[str]:
    """The decision of a statistical claim, part by part: units, mean, sd, the one-sided bounds
    against the margins, the units that would decide it, the per-unit values, and the rule's
    error rates at the measured spread (:mod:`paper_checks.calibration`)."""
    if not decision:
        return []
    lines = [f"- **Decision at {scale}** ({decision['verdict']}):"]
    for part in decision["parts"]:
        greater = part["direction"] == "greater"
        row = (
            f"  - `{part['statistic']}` over {part['n']} units: mean {format_value(part['mean'])}, "
            f"sd {format_value(part['sd'])}, bounds [{format_value(part['lower'])}, "
            f"{format_value(part['upper'])}] at level {format_value(part['level'])}; PASS needs "
            f"the {'lower' if greater else 'upper'} bound {'>' if greater else '<'} "
            f"{format_value(part['pass_margin'])}, FAIL the {'upper' if greater else 'lower'} "
            f"bound {'<' if greater else '>'} {format_value(part['fail_margin'])}: "
            f"{part['verdict']}"
        )
        if part.get("units_needed"):
            row += f"; about {part['units_needed']} units would decide it"
        if (oc := part_characteristics(part)) is not None:
            row += (
                f". Error rates for normal units at this sd and n: false FAIL {_rate(oc['false_fail'])}, false "
                f"PASS {_rate(oc['false_pass'])}; another {part['n']} units at this mean: PASS "
                f"{_rate(oc['p_pass_at_mean'])}, FAIL {_rate(oc['p_fail_at_mean'])}"
            )
        lines.append(row)
    if decision.get("units_needed"):
        lines.append(f"  - units that would decide the claim: about {decision['units_needed']}")
    units = "; ".join(
        f"`{name}` "
        + ", ".join(format_value(v) for v in values[:SHOWN_UNITS])
        + (f", … ({len(values)} in all)" if len(values) > SHOWN_UNITS else "")
        for name, values in decision.get("units", {}).items()
    )
    if units:
        lines.append(f"  - per-unit values (all of them in the run's results.json): {units}")
    return lines


#: Per-unit values shown per statistic in a report or docs page (the JSON holds all).
SHOWN_UNITS = 15


def _rate(p: float) -> str:
    """A probability for the text: "< 0.001" below 0.001, else 3 decimals."""
    return "< 0.001" if p < 1e-3 else f"{p:.3f}"


def verdict_table(results: list[CheckResult]) -> list[tuple[str, str, str, str, str]]:
    """(claim, verdict, replicated, summary, seconds) rows."""
    return [
        (
            r.claim_id,
            r.verdict.value,
            replication_text(r),
            r.summary,
            f"{r.provenance.get('wall_time_s', 0):.1f}",
        )
        for r in results
    ]


def replication_rows(result: CheckResult) -> list[tuple[str, str, str]]:
    """(root entropy, verdict, statistic) per root seed of a replicated stochastic claim."""
    rep = result.replication or {}
    return [
        (str(row["root_entropy"]), row["verdict"], format_value(row["statistic"]))
        for row in rep.get("replicates", [])
    ]


def replication_line(result: CheckResult) -> str:
    """One sentence: the verdict over R root seeds together, each root seed's own verdict, the
    statistic's mean ± sd over root seeds, and whether two root seeds contradict each other."""
    rep = result.replication
    if not rep:
        return ""
    if rep.get("deterministic"):
        return "Deterministic (exact or closed form): not replicated."
    counts = ", ".join(f"{k} in {n} of {rep['n']}" for k, n in rep["counts"].items() if n)
    spread = ""
    if rep["statistic_mean"] is not None:
        sd = "" if rep["statistic_sd"] is None else f" ± {format_value(rep['statistic_sd'])}"
        spread = f"; {rep['statistic']} = {format_value(rep['statistic_mean'])}{sd} (mean ± sd)"
    how = (
        "the verdict is the rule applied to the units of all of them"
        if result.decision
        else "the verdict FAILs on any root seed's counterexample"
    )
    flag = " CONTRADICTING: one root seed PASSes where another FAILs." if rep["fragile"] else ""
    return (
        f"Replicated over {rep['n']} root seeds ({how}); each root seed alone: "
        f"{counts}{spread}.{flag}"
    )


def history_lines(result: CheckResult) -> list[str]:
    """One line per recorded change of rule, statistic, sizes or seeds."""
    return [
        f"{h['date']}: {h['change']} Why: {h['reason']} Verdict under the old rule: {h['before']}"
        for h in result.history
    ]


def render_markdown(run: dict[str, Any], results: list[CheckResult]) -> str:
    """The run's report as Markdown (figures linked, not embedded)."""
    lines = [
        f"# paper-checks run {run['run_id']}",
        "",
        (
            f"scale `{run['scale']}`, seed {run['seed']}, backend `{run['backend']}`, "
            f"device `{run.get('device', 'cpu')}`, "
            f"{run['workers']} worker(s) via `{run['scheduler']}`, {run['wall_time_s']:.1f} s"
        ),
        "",
        "| claim | verdict | replicated | summary | s |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| `{c}` | **{v}** | {rep} | {s} | {t} |" for c, v, rep, s, t in verdict_table(results)
    ]
    for r in results:
        lines += ["", f"## `{r.claim_id}`: {r.verdict.value}", "", f"> {r.statement}", ""]
        lines += [f"Source: {r.source}", "", f"**{r.summary}**", ""]
        lines += ["| quantity | measured | expected |", "|---|---|---|"]
        lines += [f"| {k} | {m} | {e} |" for k, m, e in comparison_rows(r)]
        lines += ["", f"Rule: {r.rule}", "", f"Tolerance (this run): {r.tolerance}", ""]
        if r.reproduction:
            from paper_checks.reproduce import describe

            lines += [f"Against the committed reference: {describe(r.reproduction)}.", ""]
        if decision := render_decision(r.decision, run["scale"]):
            lines += [*decision, ""]
        if r.replication:
            lines += [replication_line(r), ""]
            if rows := replication_rows(r):
                lines += ["| root entropy | verdict | statistic |", "|---|---|---|"]
                lines += [f"| `{e}` | {v} | {x} |" for e, v, x in rows] + [""]
        if r.history:
            lines += ["History:", ""] + [f"- {h}" for h in history_lines(r)] + [""]
        lines += [f"![{r.claim_id}]({f})" for f in r.figures if f.endswith(".png")]
        if r.error:
            lines += ["", "```", r.error.rstrip(), "```"]
    return "\n".join(lines) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;
text-align:left;vertical-align:top}th{background:#f3f3f3}code{font-size:.92em}
.PASS{background:#d9f2d9}.FAIL{background:#f8d0d0}.INCONCLUSIVE{background:#fff1c2}
.ERROR{background:#e6d0f5}section{border-top:1px solid #ddd;margin-top:2rem}
img{max-width:100%}blockquote{margin:0;padding-left:1rem;border-left:3px solid #bbb}
pre{background:#f6f6f6;padding:.5rem;overflow:auto;font-size:.85em}
img.thumb{max-width:9rem;max-height:6rem;cursor:zoom-in;margin:1px}
dialog{max-width:95vw;padding:0}dialog img{max-width:95vw;max-height:95vh;display:block}
body.open-only tr[data-verdict=PASS],body.open-only section.paper:not(.has-open){display:none}
tr.detail>td{border-top:none;background:#fcfcfc}p.tally{margin:.2rem 0}
"""


def _png_data(run_dir: Path, figure: str) -> str | None:
    path = run_dir / figure
    return base64.b64encode(path.read_bytes()).decode() if path.is_file() else None


def _thumbnails(run_dir: Path, result: CheckResult) -> str:
    """The claim's PNG figures as thumbnails (a click opens them full size), each embedded once."""
    parts = []
    for figure in (f for f in result.figures if f.endswith(".png")):
        data = _png_data(run_dir, figure)
        if data is None:
            parts.append(f"<em>figure {html.escape(figure)} is missing</em>")
        else:
            parts.append(
                f'<img class="thumb" alt="{html.escape(figure)}" title="click to enlarge" '
                f'src="data:image/png;base64,{data}">'
            )
    return "".join(parts)


def _details(result: CheckResult) -> str:
    """Statement, source, measured vs expected, rule, replication, history, error, provenance."""
    e = html.escape
    comparison = "".join(
        f"<tr><td>{e(k)}</td><td>{e(m)}</td><td>{e(x)}</td></tr>"
        for k, m, x in comparison_rows(result)
    )
    prov = "".join(
        f"<tr><td>{e(k)}</td><td><code>{e(format_value(v))}</code></td></tr>"
        for k, v in result.provenance.items()
    )
    replication = ""
    if result.replication:
        reps = "".join(
            f"<tr><td><code>{e(x)}</code></td><td class='{v}'>{v}</td><td>{e(s)}</td></tr>"
            for x, v, s in replication_rows(result)
        )
        table = (
            f"<table><tr><th>root entropy</th><th>verdict</th><th>statistic</th></tr>{reps}</table>"
            if reps
            else ""
        )
        replication = f"<p>{e(replication_line(result))}</p>{table}"
    history = ""
    if result.history:
        items = "".join(f"<li>{e(h)}</li>" for h in history_lines(result))
        history = f"<p>History (changes made after a verdict was seen):</p><ul>{items}</ul>"
    error = f"<pre>{e(result.error)}</pre>" if result.error else ""
    return (
        f"<blockquote>{e(result.statement)}</blockquote><p>Source: {e(result.source)}</p>"
        f"<table><tr><th>quantity</th><th>measured</th><th>expected</th></tr>{comparison}</table>"
        f"<p>Rule: {e(result.rule)}</p><p>Tolerance (this run): {e(result.tolerance)}</p>"
        f"{replication}{history}{error}"
        f"<details><summary>provenance</summary><table>{prov}</table></details>"
    )


def _tally(results: list[CheckResult]) -> str:
    return tally(r.verdict for r in results)


def _docs_link(run_dir: Path, paper: str) -> str:
    """A relative link to ``docs/<paper>.md`` of the clone the run directory lies in (the
    nearest folder above it with that page, as ``results/<run>`` of a clone has), when there is
    one: the package reads no file of the repository, installed or not."""
    here = run_dir.resolve()
    page = next(
        (p for folder in here.parents if (p := folder / "docs" / f"{paper}.md").is_file()), None
    )
    if page is None:
        return ""
    href = os.path.relpath(page, here)
    return f' · <a href="{html.escape(href)}">docs/{html.escape(paper)}.md</a>'


_SCRIPT = """
document.getElementById('open-only').addEventListener('change', function (ev) {
  document.body.classList.toggle('open-only', ev.target.checked);
});
var zoom = document.getElementById('zoom');
document.querySelectorAll('img.thumb').forEach(function (img) {
  img.addEventListener('click', function () {
    zoom.querySelector('img').src = img.src;
    zoom.showModal();
  });
});
zoom.addEventListener('click', function () { zoom.close(); });
"""


def render_html(run: dict[str, Any], results: list[CheckResult], run_dir: Path) -> str:
    """The run's report as one self-contained HTML page: a section per paper (title, tally, link
    to its docs page) with a row per claim, its figures as thumbnails beside it and its details
    folded below; a filter shows only what did not PASS. No external URL; the inline script only
    toggles the filter and enlarges thumbnails."""
    from paper_checks.claims import PAPERS

    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>paper-checks {e(run['run_id'])}</title><style>{_CSS}</style></head><body>",
        f"<h1>paper-checks run <code>{e(run['run_id'])}</code></h1>",
        (
            f"<p>scale <code>{e(run['scale'])}</code>, seed {run['seed']}, "
            f"{run.get('replicates', 1)} root seed(s) per stochastic claim, backend "
            f"<code>{e(run['backend'])}</code>, device <code>{e(run.get('device', 'cpu'))}</code>, "
            f"{run['workers']} worker(s) via "
            f"<code>{e(run['scheduler'])}</code>, {run['wall_time_s']:.1f} s. "
            f"{_tally(results)}.</p>"
        ),
        (
            '<p><label><input type="checkbox" id="open-only"> show only FAIL, INCONCLUSIVE and '
            "ERROR</label></p>"
        ),
    ]
    papers = list(dict.fromkeys(r.paper for r in results))
    for paper in papers:
        group = [r for r in results if r.paper == paper]
        open_class = "" if all(r.passed for r in group) else " has-open"
        parts.append(
            f'<section class="paper{open_class}" id="paper-{e(paper)}">'
            f"<h2>{e(PAPERS.get(paper, paper))} <code>{e(paper)}</code></h2>"
            f'<p class="tally">{_tally(group)}{_docs_link(run_dir, paper)}</p>'
            "<table><tr><th>claim</th><th>verdict</th><th>over root seeds</th><th>summary</th>"
            "<th>figure</th><th>s</th></tr>"
        )
        for r in group:
            v = r.verdict.value
            parts.append(
                f'<tr class="claim" data-verdict="{v}" id="{e(r.claim_id)}"><td><code>{e(r.claim_id)}</code></td>'
                f'<td class="{v}">{v}</td><td>{e(replication_text(r))}</td>'
                f"<td>{e(r.summary)}</td><td>{_thumbnails(run_dir, r)}</td>"
                f"<td>{r.provenance.get('wall_time_s', 0):.1f}</td></tr>"
                f'<tr class="detail" data-verdict="{v}"><td colspan="6"><details><summary>details of '
                f"<code>{e(r.claim_id)}</code></summary>{_details(r)}</details></td></tr>"
            )
        parts.append("</table></section>")
    parts += [
        '<dialog id="zoom"><img alt="enlarged figure"></dialog>',
        f"<script>{_SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts)


def write_reports(run_dir: str | Path) -> tuple[Path, Path]:
    """(Re)build ``report.md`` and ``report.html`` of ``run_dir`` from its ``results.json``."""
    run_dir = Path(run_dir)
    run, results = load_results(run_dir)
    md = run_dir / "report.md"
    page = run_dir / "report.html"
    markdown, html = render_markdown(run, results), render_html(run, results, run_dir)
    write_text(md, markdown, run_dir)  # inside run_dir, never through a symlink, whole or not
    write_text(page, html, run_dir)
    return md, page
