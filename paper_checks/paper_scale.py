"""What ``--scale paper`` does, claim by claim: run at the paper's own sizes, or refuse, saying why.

``--scale paper`` is never a silent alias of ``full``. Every claim declares its plan where it is
registered (``@claim(..., paper_plan=...)``, :attr:`paper_checks.claims.Claim.paper_plan`; the
registry refuses a claim without one): a check module states its paper's plan once, a module
constant, and passes it, or the claim's own, at each registration. A plan is one of:

* :class:`PaperSizes`: the claim runs at the paper's sizes. ``sizes`` says what they are and
  ``cpu_hours`` estimates the cost on one CPU core, from ``basis`` (a measurement). A claim whose
  full scale already *is* the paper's setting says so (``same_as_full``): its estimate is the
  full reference run's CPU time.
* :class:`Refused`: the claim cannot run at the paper's sizes here; ``reason`` is the one line
  ``paper-checks run --scale paper`` prints instead of running it.

``paper-checks run ... --scale paper --dry-run`` prints the plan without running anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paper_checks.claims import Claim


@dataclass(frozen=True)
class PaperSizes:
    """The claim runs at ``--scale paper``: ``sizes`` are the paper's, in ``tasks`` sweep tasks;
    ``cpu_hours`` on one core (None: taken from the full reference run when ``same_as_full``)."""

    sizes: str
    basis: str
    cpu_hours: float | None = None
    same_as_full: bool = False
    tasks: int | None = None  # sweep tasks (training runs) at the paper's sizes


@dataclass(frozen=True)
class Refused:
    """``--scale paper`` refuses the claim, printing ``reason``."""

    reason: str


Plan = PaperSizes | Refused


def plan_for(claim: Claim) -> Plan:
    """The claim's plan at ``--scale paper``, as its registration declares it
    (:attr:`~paper_checks.claims.Claim.paper_plan`)."""
    if claim.paper_plan is None:
        raise ValueError(f"claim {claim.id!r} declares no paper_plan")
    return claim.paper_plan


def estimated_cpu_hours(claim: Claim, plan: PaperSizes) -> float | None:
    """``plan.cpu_hours``, or for a plan that is the full scale the CPU (else wall) time of the
    claim's record in the committed full reference run; None when neither is known."""
    if plan.cpu_hours is not None or not plan.same_as_full:
        return plan.cpu_hours
    from paper_checks.reproduce import load_reference_run

    record = (load_reference_run("full") or ({}, {}))[1].get(claim.id)
    if record is None:
        return None
    seconds = record.provenance.get("cpu_time_s") or record.provenance.get("wall_time_s")
    return None if seconds is None else seconds / 3600
