"""The declared dependencies (pyproject.toml) are the imported ones: every third-party module that
theory/, sims/, neural/ or paper_checks/ imports is declared (as a dependency or in an extra), and
every core dependency is imported by them."""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("theory", "sims", "neural", "paper_checks")
#: Modules whose distribution may be absent here (no CUDA on this machine): their declared name.
NOT_INSTALLED = {"cupy": "cupy-cuda12x", "cupyx": "cupy-cuda12x"}


def _name(requirement: str) -> tuple[str, list[str]]:
    """(normalised distribution name, its extras) of a requirement such as ``dask[distributed]>=1``."""
    match = re.match(r"\s*([A-Za-z0-9._-]+)\s*(?:\[([^\]]*)\])?", requirement)
    assert match, requirement
    extras = [e.strip() for e in (match.group(2) or "").split(",") if e.strip()]
    return _normalised(match.group(1)), [_normalised(e) for e in extras]


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_third_party() -> set[str]:
    modules = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    modules |= {alias.name.partition(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.partition(".")[0])
    return {m for m in modules if m not in sys.stdlib_module_names} - {*PACKAGES, "__future__"}


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


@functools.cache
def _installed() -> dict[str, list[str]]:
    return packages_distributions()


def _distributions(module: str) -> set[str]:
    if module in NOT_INSTALLED:
        return {NOT_INSTALLED[module]}
    found = _installed().get(module)
    assert found, f"{module} is imported but no installed distribution provides it"
    return {_normalised(d) for d in found}


def test_every_imported_module_is_declared():
    project = _project()
    declared = set()
    for requirement in [
        *project["dependencies"],
        *(r for extra in project["optional-dependencies"].values() for r in extra),
    ]:
        name, extras = _name(requirement)
        declared |= {name, *extras}  # dask[distributed] declares distributed too
    undeclared = {m for m in _imported_third_party() if not _distributions(m) & declared}
    assert not undeclared, f"imported but not declared in pyproject.toml: {sorted(undeclared)}"


def test_every_core_dependency_is_imported():
    imported = set()
    for module in _imported_third_party():
        imported |= _distributions(module)
    core = {_name(r)[0] for r in _project()["dependencies"]}
    assert not core - imported, f"declared but never imported: {sorted(core - imported)}"
