"""paper-checks: executable, falsifiable checks of the NeurIPS 2025 award papers' claims.

The product surface: the claim registry (:mod:`paper_checks.claims`), check results and run
directories (:mod:`paper_checks.results`), reports, benchmarks and the ``paper-checks`` CLI.
The numeric core lives in the sibling packages ``theory``, ``sims`` and ``neural``.

Those three are top-level names that other projects use too (the package index has projects
named ``sims`` and ``neural``), so importing this package first checks that each name resolves
to the folder beside this one, and raises ImportError naming the foreign module otherwise
(:func:`_check_core_packages`).
"""

import importlib.util
from pathlib import Path

__version__ = "0.1.0"

#: The top-level packages of the numeric core, installed beside ``paper_checks``.
_CORE_PACKAGES = ("theory", "sims", "neural")


def _check_core_packages() -> None:
    """Raise ImportError unless each of :data:`_CORE_PACKAGES` is found (without importing it)
    at ``<name>/__init__.py`` beside this package, as the wheel and a clone lay them out: a
    module of the same name earlier on ``sys.path`` (a local ``sims.py``, another project's
    package) would otherwise run in place of this project's numeric core."""
    home = Path(__file__).resolve().parent.parent
    for name in _CORE_PACKAGES:
        spec = importlib.util.find_spec(name)
        found = None if spec is None or spec.origin is None else Path(spec.origin).resolve()
        if found != home / name / "__init__.py":
            where = "nowhere" if found is None else str(found)
            raise ImportError(
                f"paper-checks: the module {name!r} found is not this project's: it is at "
                f"{where}, not {home / name}; rename or uninstall the other {name!r}, or take it "
                "off sys.path"
            )


_check_core_packages()

from paper_checks.claims import Claim, all_claims, claim, select_claims
from paper_checks.context import Context
from paper_checks.results import CheckResult, UnitsResult, Verdict

__all__ = [
    "CheckResult",
    "Claim",
    "Context",
    "UnitsResult",
    "Verdict",
    "all_claims",
    "claim",
    "select_claims",
]
