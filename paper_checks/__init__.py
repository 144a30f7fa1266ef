"""paper-checks: executable, falsifiable checks of the NeurIPS 2025 award papers' claims.

The product surface: the claim registry (:mod:`paper_checks.claims`), check results and run
directories (:mod:`paper_checks.results`), reports, benchmarks and the ``paper-checks`` CLI.
The numeric core lives in the sibling packages ``theory``, ``sims`` and ``neural``.
"""

from paper_checks.claims import Claim, all_claims, claim, select_claims
from paper_checks.context import Context
from paper_checks.results import CheckResult, Verdict

__all__ = ["CheckResult", "Claim", "Context", "Verdict", "all_claims", "claim", "select_claims"]
__version__ = "0.1.0"
