"""Reports of a run, rebuilt from its JSON alone: ``report.md`` and a self-contained
``report.html`` (verdict table, each claim's statement, measured vs expected, its figure embedded
as a data URI, provenance)."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from paper_checks.results import CheckResult, Verdict, load_results

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


def verdict_table(results: list[CheckResult]) -> list[tuple[str, str, str, str]]:
    """(claim, verdict, summary, seconds) rows."""
    return [
        (r.claim_id, r.verdict.value, r.summary, f"{r.provenance.get('wall_time_s', 0):.1f}")
        for r in results
    ]


def render_markdown(run: dict[str, Any], results: list[CheckResult]) -> str:
    """The run's report as Markdown (figures linked, not embedded)."""
    lines = [
        f"# paper-checks run {run['run_id']}",
        "",
        (
            f"scale `{run['scale']}`, seed {run['seed']}, backend `{run['backend']}`, "
            f"{run['workers']} worker(s) via `{run['scheduler']}`, {run['wall_time_s']:.1f} s"
        ),
        "",
        "| claim | verdict | summary | s |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{c}` | **{v}** | {s} | {t} |" for c, v, s, t in verdict_table(results)]
    for r in results:
        lines += ["", f"## `{r.claim_id}`: {r.verdict.value}", "", f"> {r.statement}", ""]
        lines += [f"Source: {r.source}", "", f"**{r.summary}**", ""]
        lines += ["| quantity | measured | expected |", "|---|---|---|"]
        lines += [f"| {k} | {m} | {e} |" for k, m, e in comparison_rows(r)]
        lines += ["", f"Tolerance rule: {r.tolerance}", ""]
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
"""


def _embed(run_dir: Path, figure: str) -> str:
    path = run_dir / figure
    if not path.is_file():
        return f"<p><em>figure {html.escape(figure)} is missing</em></p>"
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img alt="{html.escape(figure)}" src="data:image/png;base64,{data}">'


def render_html(run: dict[str, Any], results: list[CheckResult], run_dir: Path) -> str:
    """The run's report as one self-contained HTML page."""
    e = html.escape
    rows = "".join(
        f'<tr><td><a href="#{e(c)}"><code>{e(c)}</code></a></td><td class="{v}">{v}</td>'
        f"<td>{e(s)}</td><td>{t}</td></tr>"
        for c, v, s, t in verdict_table(results)
    )
    counts = ", ".join(f"{sum(r.verdict is v for r in results)} {v.value}" for v in Verdict)
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>paper-checks {e(run['run_id'])}</title><style>{_CSS}</style></head><body>",
        f"<h1>paper-checks run <code>{e(run['run_id'])}</code></h1>",
        (
            f"<p>scale <code>{e(run['scale'])}</code>, seed {run['seed']}, backend "
            f"<code>{e(run['backend'])}</code>, {run['workers']} worker(s) via "
            f"<code>{e(run['scheduler'])}</code>, {run['wall_time_s']:.1f} s. {counts}.</p>"
        ),
        "<table><tr><th>claim</th><th>verdict</th><th>summary</th><th>s</th></tr>",
        rows,
        "</table>",
    ]
    for r in results:
        comparison = "".join(
            f"<tr><td>{e(k)}</td><td>{e(m)}</td><td>{e(x)}</td></tr>"
            for k, m, x in comparison_rows(r)
        )
        figures = "".join(_embed(run_dir, f) for f in r.figures if f.endswith(".png"))
        prov = "".join(
            f"<tr><td>{e(k)}</td><td><code>{e(format_value(v))}</code></td></tr>"
            for k, v in r.provenance.items()
        )
        error = f"<pre>{e(r.error)}</pre>" if r.error else ""
        parts.append(
            f'<section id="{e(r.claim_id)}"><h2><code>{e(r.claim_id)}</code> '
            f'<span class="{r.verdict.value}">{r.verdict.value}</span></h2>'
            f"<blockquote>{e(r.statement)}</blockquote><p>Source: {e(r.source)}</p>"
            f"<p><strong>{e(r.summary)}</strong></p>"
            f"<table><tr><th>quantity</th><th>measured</th><th>expected</th></tr>{comparison}</table>"
            f"<p>Tolerance rule: {e(r.tolerance)}</p>{figures}{error}"
            f"<details><summary>provenance</summary><table>{prov}</table></details></section>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


def write_reports(run_dir: str | Path) -> tuple[Path, Path]:
    """(Re)build ``report.md`` and ``report.html`` of ``run_dir`` from its ``results.json``."""
    run_dir = Path(run_dir)
    run, results = load_results(run_dir)
    md = run_dir / "report.md"
    page = run_dir / "report.html"
    md.write_text(render_markdown(run, results), encoding="utf-8")
    page.write_text(render_html(run, results, run_dir), encoding="utf-8")
    return md, page
