"""Tests of the claims, one module per paper, and :func:`as_run`, through which a claim's
tests reach its verdict the way ``paper-checks run`` does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from paper_checks.claims import all_claims
from paper_checks.context import Context
from paper_checks.decision import Rule
from paper_checks.results import CheckResult, UnitsResult
from paper_checks.runner import decided, pooled_verdict


def as_run(
    check: Callable[..., CheckResult | UnitsResult],
    ctx: Context,
    rule: Rule | None = None,
    **theory: Any,
) -> CheckResult:
    """The headline ``paper-checks run`` makes of one root seed of ``check`` in ``ctx`` with the
    theory under test ``theory``: the runner's application of the claim's rule at ``ctx``'s
    scale (its planned looks there spend α), not the check's own; ``rule``, a wrong theory's
    rule, takes the place of the registered one (its margins are that theory's)."""
    claim = next(c for c in all_claims() if c.check is check)
    if rule is not None:
        claim = replace(claim, decision=rule)
    result = check(ctx, **theory)
    if isinstance(result, UnitsResult):
        result = decided(claim, ctx, result)
    return pooled_verdict(claim, [replace(result, provenance={"scale": ctx.scale})])
