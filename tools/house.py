"""The house measured from its code: lines per package, the length of every claim's check
function, and the longest ones, so that docs/adding-a-claim.md can set today's shape beside a
committed earlier measurement (``docs/results/house-before.json``). A maintainers' tool, run by
``python -m tools.docs``: not part of the wheel.

A check function's length runs from its ``def`` line to its last line (the ``@claim``
registration above it not counted), as ``end_lineno - lineno + 1`` of the AST; a package's lines
are the lines of its ``.py`` files, ``paper_checks/checks`` counted apart from the rest of
``paper_checks``.
"""

from __future__ import annotations

import ast
import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["PACKAGES", "measure", "render_house"]

ROOT = Path(__file__).resolve().parent.parent
#: The packages counted, in the order of the layout (tests are not part of the house).
PACKAGES = ("theory", "sims", "neural", "paper_checks", "paper_checks/checks")
#: How many of the longest check functions the table names.
LONGEST = 5


def _package(path: Path, root: Path) -> str | None:
    parts = path.relative_to(root).parts
    if parts[:2] == ("paper_checks", "checks"):
        return "paper_checks/checks"
    return parts[0] if parts[0] in PACKAGES else None


def _is_claim(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef) and any(
        isinstance(d, ast.Call) and getattr(d.func, "id", None) == "claim"
        for d in node.decorator_list
    )


def measure(root: Path = ROOT) -> dict[str, Any]:
    """Lines per package and the length of every registered check function under ``root``."""
    lines = dict.fromkeys(PACKAGES, 0)
    checks: dict[str, int] = {}
    paths = sorted(p for top in PACKAGES[:4] for p in (root / top).rglob("*.py"))
    for path in paths:
        package = _package(path, root)
        if package is None:
            continue
        text = path.read_text(encoding="utf-8")
        lines[package] += len(text.splitlines())
        if package == "paper_checks/checks":
            for node in ast.parse(text).body:
                if _is_claim(node):
                    assert isinstance(node, ast.FunctionDef)
                    checks[f"{path.stem}.{node.name}"] = node.end_lineno - node.lineno + 1  # type: ignore[operator]
    return {"lines": lines, "checks": checks}


def _summary(house: Mapping[str, Any]) -> dict[str, Any]:
    lines, checks = house["lines"], house["checks"]
    total = sum(lines.values())
    lengths = sorted(checks.values())
    longest = sorted(checks.items(), key=lambda kv: (-kv[1], kv[0]))[:LONGEST]
    return {
        "total": round(total, -2),
        "paper_checks": round(lines["paper_checks"] + lines["paper_checks/checks"], -2),
        "checks": round(lines["paper_checks/checks"], -2),
        "share": lines["paper_checks/checks"] / total,
        "n": len(lengths),
        "median": statistics.median(lengths),
        "over_40": sum(n > 40 for n in lengths),
        "over_60": sum(n > 60 for n in lengths),
        "over_100": sum(n > 100 for n in lengths),
        "longest": ", ".join(f"`{name}` {n}" for name, n in longest),
    }


def render_house(before: Mapping[str, Any], now: Mapping[str, Any]) -> str:
    """A markdown table: the committed earlier measurement beside today's."""
    a, b = _summary(before), _summary(now)
    rows = [
        ("lines of theory, sims, neural, paper_checks (to the hundred)", "total", "{:,}"),
        ("of which paper_checks, checks included", "paper_checks", "{:,}"),
        ("of which paper_checks/checks", "checks", "{:,}"),
        ("paper_checks/checks, share of the code", "share", "{:.0%}"),
        ("check functions", "n", "{}"),
        ("median check function, lines", "median", "{:g}"),
        ("check functions over 40 lines", "over_40", "{}"),
        ("check functions over 60 lines", "over_60", "{}"),
        ("check functions over 100 lines", "over_100", "{}"),
        ("longest check functions", "longest", "{}"),
    ]
    out = [f"| | before ({before['when']}) | now |", "|---|---|---|"]
    out += [
        f"| {label} | {fmt.format(a[key])} | {fmt.format(b[key])} |" for label, key, fmt in rows
    ]
    if before.get("repeated"):
        out.append("")
        out.append(f"Before: {before['repeated']}")
    return "\n".join(out)
