"""What ``--scale paper`` does, claim by claim: run at the paper's own sizes, or refuse, saying why.

``--scale paper`` is never a silent alias of ``full``. Every registered claim has an entry in
:data:`PLANS` (a test checks it):

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

_THEOREMS = Refused(
    "the paper's statements are theorems without experiments: `--scale full` checks them exactly "
    "on the largest instances we verify (docs/online.md)"
)
_NO_DATA = Refused(
    "the paper's data (Infinity-Chat queries, 70+ models' generations, human ratings) is not "
    "shipped; run `paper-checks solve hivemind` on your own generations instead"
)
_RLVR_LLM = Refused(
    "the paper's models are 7B-32B LLM checkpoints (GRPO zero-RL), out of reach here; its sample "
    "counts n = 128-1024 have no analogue: our toy world and transformer compute pass@k from the "
    "exact success probability p (the n → ∞ limit), so `--scale full` is already past them"
)
_RLVR_THEORY = Refused(
    "a closed-form statement checked exactly at every scale; the paper's sample counts "
    "(n = 256-1024) are a `paper-checks solve passk` input, not a size of this check"
)
_GATED = Refused(
    "the paper trains 1.7B dense and 15B MoE models on 400B-3.5T tokens: out of reach on CPU; "
    "`--scale full` is our largest testbed"
)
_CRL = Refused(
    "the paper's agents (depth up to 1024, width 256) train on JaxGCRL's Humanoid mazes on GPUs; "
    "checkpointed training at those depths is not built yet (`--scale full` is our largest)"
)
_DIFFUSION = Refused(
    "the paper's Fig. 2 trains a 4M-parameter U-Net on CelebA (not shipped); the random-feature "
    "claims' ψ range at the paper's d is not defined yet (`--scale full` is our largest)"
)
_SUPERPOSITION_THEORY = Refused(
    "a quadrature and sampling check of the paper's formulas, not a training run: it has no "
    "paper size (`--scale full` is its largest)"
)


def _exp10(tasks: int, cpu_hours: float) -> PaperSizes:
    """A superposition training claim at exp-10's batch and steps (resumable checkpoints)."""
    return PaperSizes(
        sizes="exp-10's batch 2,048 × 20,000 steps for every training task (checkpointed "
        "every 500 steps: a killed run resumes)",
        tasks=tasks,
        basis="CPU per step on one thread, measured over 200 steps per task shape, × 20,000 "
        "(2026-12-01, shared 2-core machine, ±15%)",
        cpu_hours=cpu_hours,
    )


_RCNN = PaperSizes(
    sizes="the paper's setting at every scale: VGG-16 stride 16, 3 scales × 3 ratios, "
    "a 1000 × 600 image",
    basis="the full reference run",
    same_as_full=True,
)

#: The plan of every claim at ``--scale paper``, by paper key (a claim id overrides its paper).
PLANS: dict[str, Plan] = {
    "online": _THEOREMS,
    "diffusion": _DIFFUSION,
    "superposition": _SUPERPOSITION_THEORY,
    "superposition.strong_inverse_m": _exp10(2, 0.20),
    "superposition.weak_tracks_unlearned": _exp10(4, 0.48),
    "superposition.regime_knob": _exp10(1, 0.10),
    "superposition.strong_robust_to_alpha": _exp10(30, 3.0),
    "superposition.reference_sweep": _exp10(2, 0.58),
    "superposition.weak_law": _exp10(4, 2.1),
    "superposition.density_scaling": _exp10(6, 0.60),
    "gated_attention": _GATED,
    "deep_crl": _CRL,
    "rlvr": _RLVR_LLM,
    "rlvr.estimator_unbiased": _RLVR_THEORY,
    "rlvr.sharpening_crosses": _RLVR_THEORY,
    "rlvr.single_crossing": _RLVR_THEORY,
    "rlvr.tilt_never_crosses": _RLVR_THEORY,
    "hivemind": _NO_DATA,
    "faster_rcnn": _RCNN,
}


def plan_for(claim: Claim) -> Plan:
    """The claim's plan at ``--scale paper`` (its own entry, else its paper's)."""
    return PLANS.get(claim.id) or PLANS[claim.paper]


def estimated_cpu_hours(claim: Claim, plan: PaperSizes) -> float | None:
    """``plan.cpu_hours``, or for a plan that is the full scale the CPU (else wall) time of the
    claim's record in the committed full reference run; None when neither is known."""
    if plan.cpu_hours is not None or not plan.same_as_full:
        return plan.cpu_hours
    from paper_checks.docs import REFERENCE_RUNS, load_reference

    if "full" not in REFERENCE_RUNS:
        return None
    record = load_reference("full")[1].get(claim.id)
    if record is None:
        return None
    seconds = record.provenance.get("cpu_time_s") or record.provenance.get("wall_time_s")
    return None if seconds is None else seconds / 3600
