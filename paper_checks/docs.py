"""Documentation generated from the committed reference runs, never typed by hand.

``docs/results/<scale>/results.json`` holds a reference run (``paper-checks run --all --scale
<scale> --replicates R --out docs/results/<scale>``, figures and arrays not committed). The
README's generated blocks, between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->``,
are rebuilt from them by ``paper-checks report --docs``; a test fails when they drift.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from paper_checks.report import format_value, replication_text
from paper_checks.results import CheckResult, load_results

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
#: The committed reference runs, by scale (present ones only).
REFERENCE_RUNS = {
    scale: DOCS / "results" / scale
    for scale in ("quick", "full")
    if (DOCS / "results" / scale / "results.json").is_file()
}


def load_reference(scale: str) -> tuple[dict[str, Any], dict[str, CheckResult]]:
    """(run metadata, claim id -> result) of the committed reference run at ``scale``."""
    if scale not in REFERENCE_RUNS:
        raise ValueError(f"no committed reference run at scale {scale!r} under {DOCS / 'results'}")
    run, results = load_results(REFERENCE_RUNS[scale])
    return run, {r.claim_id: r for r in results}


def _spread(result: CheckResult) -> str:
    rep = result.replication or {}
    if rep.get("statistic_mean") is None:
        return ""
    sd = rep.get("statistic_sd")
    text = format_value(rep["statistic_mean"]) + ("" if sd is None else f" ± {format_value(sd)}")
    return f"`{rep['statistic']}` {text}"


def replication_block(scale: str = "quick") -> str:
    """The replication table of the reference run at ``scale``: per claim, the primary verdict,
    how often it recurs over root seeds, and the deciding statistic's mean ± sd."""
    run, records = load_reference(scale)
    counts: dict[str, int] = {}
    for r in records.values():
        counts[r.verdict.value] = counts.get(r.verdict.value, 0) + 1
    fragile = [r.claim_id for r in records.values() if (r.replication or {}).get("fragile")]
    lines = [
        f"From `docs/results/{scale}/results.json`: `paper-checks run --all --scale {scale} "
        f"--replicates {run.get('replicates', 1)}` at root seed {run['seed']}, commit "
        f"`{_commit(records)}`. {len(records)} claims: "
        + ", ".join(f"{n} {v}" for v, n in counts.items())
        + f"; {len(fragile)} fragile (the verdict recurs under < 80% of root seeds).",
        "",
        "| claim | verdict (primary seed) | over root seeds | deciding statistic, mean ± sd |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{r.claim_id}` | {r.verdict.value} | {replication_text(r) or '-'} | {_spread(r)} |"
        for r in records.values()
    ]
    return "\n".join(lines)


def history_block(scale: str = "quick") -> str:
    """Every recorded change of rule, statistic, sizes or seeds made after a verdict was seen."""
    _, records = load_reference(scale)
    lines = [
        "| claim | date | change | why | verdict under the old rule |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| `{r.claim_id}` | {h['date']} | {h['change']} | {h['reason']} | {h['before']} |"
        for r in records.values()
        for h in r.history
    ]
    return "\n".join(lines)


def _commit(records: dict[str, CheckResult]) -> str:
    shas = {str(r.provenance.get("git_sha", ""))[:12] for r in records.values()}
    return ", ".join(sorted(shas))


BLOCKS = {"replication": replication_block, "history": history_block}


def render_readme(text: str) -> str:
    """``text`` with every generated block rebuilt from the reference runs."""

    def rebuild(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in BLOCKS:
            raise ValueError(f"README has an unknown generated block {name!r}")
        return f"<!-- generated:{name} -->\n{BLOCKS[name]()}\n<!-- /generated:{name} -->"

    return re.sub(
        r"<!-- generated:(\w+) -->\n.*?<!-- /generated:\1 -->", rebuild, text, flags=re.DOTALL
    )


def write_docs() -> list[Path]:
    """Rebuild the README's generated blocks in place; return the files written."""
    README.write_text(render_readme(README.read_text(encoding="utf-8")), encoding="utf-8")
    return [README]
