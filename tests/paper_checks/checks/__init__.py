"""Tests of the claims, one module per paper, and :func:`as_run`, through which a claim's
tests reach its verdict the way ``paper-checks run`` does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from paper_checks.claims import all_claims
from paper_checks.context import Context
from paper_checks.results import CheckResult
from paper_checks.runner import pooled_verdict


def as_run(check: Callable[..., CheckResult], ctx: Context, **theory: Any) -> CheckResult:
    """The headline ``paper-checks run`` makes of one root seed of ``check`` in ``ctx`` with the
    theory under test ``theory``: the runner's application of the claim's rule at ``ctx``'s
    scale (its planned looks there spend α), not the check's own."""
    claim = next(c for c in all_claims() if c.check is check)
    result = check(ctx, **theory)
    return pooled_verdict(claim, [replace(result, provenance={"scale": ctx.scale})])
