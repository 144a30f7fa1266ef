"""The claim registry.

A claim is a function ``(ctx) -> CheckResult`` registered with :func:`claim`::

    @claim("rlvr.tilt_never_crosses", paper="rlvr",
           statement="The KL-regularised optimum never falls below the base model at any k.",
           source="rlvr.md §3 (exact tilt)")
    def tilt_never_crosses(ctx, *, tilt=passk.tilt) -> CheckResult:
        ...

Keyword-only parameters after ``ctx`` carry the theory under test with our implementation as the
default, so a test can hand the check a wrong theory and see it FAIL.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paper_checks.context import Context
    from paper_checks.results import CheckResult

CheckFn = Callable[["Context"], "CheckResult"]

#: Paper keys, in the order of DESIGN.md.
PAPERS = {
    "online": "Optimal Mistake Bounds for Transductive Online Learning",
    "diffusion": "Why Diffusion Models Don't Memorize",
    "superposition": "Superposition Yields Robust Neural Scaling",
    "gated_attention": "Gated Attention for Large Language Models",
    "deep_crl": "1000 Layer Networks for Self-Supervised RL",
    "rlvr": "Does Reinforcement Learning Really Incentivize Reasoning Capacity in LLMs?",
    "hivemind": "Artificial Hivemind: The Open-Ended Homogeneity of Language Models",
    "faster_rcnn": "Faster R-CNN: Towards Real-Time Object Detection with Region Proposal Networks",
}


@dataclass(frozen=True)
class Claim:
    """A registered, executable claim of a paper."""

    id: str
    paper: str
    statement: str
    source: str
    check: CheckFn


_REGISTRY: dict[str, Claim] = {}


def claim(
    claim_id: str, *, paper: str, statement: str, source: str
) -> Callable[[CheckFn], CheckFn]:
    """Register the decorated function as the check of claim ``claim_id`` (``<paper>.<name>``)."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)} (got {paper!r})")
    if not claim_id.startswith(f"{paper}."):
        raise ValueError(f"claim id {claim_id!r} must start with its paper key {paper!r}")

    def register(fn: CheckFn) -> CheckFn:
        if claim_id in _REGISTRY and _REGISTRY[claim_id].check is not fn:
            raise ValueError(f"claim {claim_id!r} is registered twice")
        _REGISTRY[claim_id] = Claim(claim_id, paper, statement, source, fn)
        return fn

    return register


def _load_checks() -> None:
    """Import every module of :mod:`paper_checks.checks` so that its claims register."""
    from paper_checks import checks

    for module in pkgutil.iter_modules(checks.__path__):
        importlib.import_module(f"{checks.__name__}.{module.name}")


def all_claims() -> list[Claim]:
    """Every registered claim, ordered by paper (as in :data:`PAPERS`) then id."""
    _load_checks()
    order = {key: i for i, key in enumerate(PAPERS)}
    return sorted(_REGISTRY.values(), key=lambda c: (order[c.paper], c.id))


def select_claims(selectors: Iterable[str]) -> list[Claim]:
    """The claims named by paper keys or claim ids, in registry order, without repeats.

    Raises ``ValueError`` naming the first selector that matches nothing.
    """
    claims = all_claims()
    chosen: set[str] = set()
    for selector in selectors:
        matched = {c.id for c in claims if selector in (c.id, c.paper)}
        if not matched and selector in PAPERS:
            raise ValueError(f"paper {selector!r} has no claims yet")
        if not matched:
            known = sorted({c.paper for c in claims})
            raise ValueError(
                f"no paper or claim named {selector!r} (papers with claims: {', '.join(known)}; "
                "see 'paper-checks list')"
            )
        chosen |= matched
    return [c for c in claims if c.id in chosen]
