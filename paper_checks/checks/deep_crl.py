"""Claims of "1000 Layer Networks for Self-Supervised RL: Scaling Depth Can Enable New Goal-Reaching
Capabilities" (Wang, Javali, Bortkiewicz, Trzciński, Eysenbach; NeurIPS 2025; arXiv 2503.14858).

The model, the conventions and the paper's numbers are in docs/deep_crl.md. The checks run the
paper's encoder (residual blocks of 4×(Dense→LN→Swish), :mod:`neural.deep_crl`) and its
ablations at CPU scale: signal propagation at initialisation, trainability of the InfoNCE critic
on fixed maze data (the paper's Fig. 5 ablations), whether depth moves the critic from Euclidean
to geodesic distance on a serpentine maze (Fig. 9), and online CRL on a small point-mass maze.
Depth D counts the Dense layers inside the residual blocks (D + 2 in all; D = 0 is one hidden
layer); every figure says so. Torch is imported only inside the checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import paper_checks.claims as registry
from paper_checks import results
from paper_checks.claims import HistoryEntry, claim
from paper_checks.context import Context
from paper_checks.decision import Part, Rule, within
from paper_checks.figures.deep_crl import (
    geodesic_figure,
    online_figure,
    signal_figure,
    trainability_figure,
)
from paper_checks.paper_scale import PaperSizes
from sims.deep_crl_units import (
    SignalStats,
    by_point,
    mean_se,
    signal_arrays,
    signal_entry,
    signal_points,
    signal_statistics,
    signal_units,
    success_by_depth,
    trainability_units,
)
from sims.mazes import U4, U_SMALL, GridMaze, serpentine_layout

if TYPE_CHECKING:
    from neural.deep_crl import RankAgreement

#: CPU seconds per SGD step at width 256, batch 256, one thread (process_time over 2-10 steps after
#: one warm-up step, 2026-12-01, shared 2-core machine, ±15%): the fixed-data critic (φ and ψ) and
#: online CRL's full update (actor, α, critic), by depth D: what ``--scale paper``'s plans
#: (:mod:`paper_checks.paper_scale`) estimate their cost from.
_CRITIC_STEP_S = {0: 0.004, 4: 0.022, 16: 0.082, 32: 0.120, 64: 0.28, 256: 0.98, 1024: 4.67}
_ONLINE_STEP_S = {4: 0.055, 16: 0.183, 64: 0.63, 256: 2.76, 1024: 12.9}

_CRITIC_BASIS = (
    "CPU-s per SGD step at width 256, batch 256, one thread (2026-12-01, ±15%): critic "
    + ", ".join(f"D{d} {s:g}" for d, s in _CRITIC_STEP_S.items())
    + "; × 2,000 steps per task, summed over tasks"
)


def _critic_plan(sizes: str, tasks: int, cpu_hours: float) -> PaperSizes:
    """A fixed-data critic claim at the paper's width (checkpointed every 500 steps)."""
    return PaperSizes(
        sizes=sizes + "; width 256, batch 256, 2,000 steps per task, checkpointed every 500 "
        "steps (a killed task resumes bit-identically)",
        tasks=tasks,
        basis=_CRITIC_BASIS,
        cpu_hours=cpu_hours,
    )


ONLINE_PAPER_PLAN = PaperSizes(
    sizes="Table 1's depths 4 and 64 at width 256 (actor and critic), full's 100 epochs × 64 SGD "
    "steps (6,400) and 3 seeds, for the deciding 'cpu' config and the reported 'reference' one; "
    "the whole state (agent, Adam, replay buffer, random streams) checkpointed every 10 epochs "
    "(a killed run resumes bit-identically)",
    tasks=12,
    basis="CPU-s per online SGD step (actor, α, critic) at width 256, batch 256, one thread "
    "(2026-12-01, ±15%): "
    + ", ".join(f"D{d} {s:g}" for d, s in _ONLINE_STEP_S.items())
    + "; × 6,400 steps, + ≈ 2.5 CPU-s per epoch of rollouts and evaluation at D 64 (measured "
    "on one epoch); D 1024 would take "
    + f"{_ONLINE_STEP_S[1024] * 6_400 / 3600:.0f} CPU-h per run, so it is not in the plan",
    cpu_hours=7.8,
)


#: Our reference table of signal propagation at initialisation (the paper's init, width 128,
#: InfoNCE, 3 seeds), per variant and metric, at depths 4/16/64/256: numbers from a pilot run made
#: while planning these checks, not the paper's (the paper prints no such table).
SPEC_SIGNAL_TABLE: dict[str, dict[str, dict[int, float]]] = {
    "paper": {
        "grad_ratio": {4: 0.22, 16: 0.20, 64: 0.19, 256: 0.24},
        "trunk_gain": {4: 1.5, 16: 2.7, 64: 7.1, 256: 24.0},
        "jacobian_gain": {4: 1.8, 16: 2.9, 64: 4.9, 256: 5.8},
    },
    "relu": {
        "grad_ratio": {4: 0.11, 16: 0.10, 64: 0.10, 256: 0.11},
        "trunk_gain": {4: 1.6, 16: 3.4, 64: 10.0, 256: 37.0},
        "jacobian_gain": {4: 1.9, 16: 2.8, 64: 3.4, 256: 3.7},
    },
    "no_ln": {
        "grad_ratio": {4: 33.0, 16: 33.0, 64: 33.0, 256: 33.0},
        "trunk_gain": {4: 1.0, 16: 1.0, 64: 1.0, 256: 1.0},
        "jacobian_gain": {4: 0.61, 16: 0.61, 64: 0.61, 256: 0.61},
    },
    "no_res": {
        "grad_ratio": {4: 0.13, 16: 0.09, 64: 0.47, 256: 177.0},
        "trunk_gain": {4: 1.0, 16: 1.0, 64: 1.0, 256: 1.0},
        "jacobian_gain": {4: 1.3, 16: 2.0, 64: 12.0, 256: 487.0},
    },
    "no_res_no_ln": {"output_rms": {4: 1e-3, 8: 1e-5, 16: 1e-9}},
}
#: Agreement with the table: within a factor 2.5 (different inputs and batch than the pilot), and
#: three decades for the vanishing outputs of the no-residual, no-LN net. The no-residual entries
#: at D ≥ 64 are chaotic (seeds of the D = 256 Jacobian gain span 485–12,000 here): their
#: geometric means are checked within a factor 10, and their growth between D = 64 and 256
#: against ½·log(E[φ′²]/E[φ²]) per layer within ``RATE_TOL`` (relative).
SIGNAL_FACTOR = 2.5
NO_RES_DEEP_FACTOR = 10.0
VANISHING_FACTOR = 1000.0
RATE_TOL = 0.25
#: The table's width, and seeds per (variant, depth) by scale (tests use fewer).
SIGNAL_WIDTH = 128
SIGNAL_SEEDS = {"quick": 3, "full": 5, "paper": 5}
#: ``--scale paper``: the paper's width 256, and the paper block also at the paper's deepest
#: depth, 1024, where its gradient ratio joins the band bound (the table stops at 256).
PAPER_WIDTH = 256
PAPER_SIGNAL_DEPTHS = (1024,)


def _factor_rule(variant: str, depth: int) -> float:
    """The agreement factor of a tabled entry."""
    if variant == "no_res_no_ln":
        return VANISHING_FACTOR
    if variant == "no_res" and depth >= 64:
        return NO_RES_DEEP_FACTOR
    return SIGNAL_FACTOR


#: The shape bounds of ``signal_propagation``, as per-unit statistics (direction, margin).
SIGNAL_SHAPES: dict[str, tuple[str, str, float]] = {
    "paper_grad_band": ("ln max/min over depths of the paper block's gradient ratio", "less",
                        math.log(2.0)),
    "no_ln_jacobian_band": ("ln max/min over depths of the no-LN Jacobian gain", "less",
                            math.log(1.3)),
    "no_ln_trunk_max_dev": ("max over depths of |no-LN trunk gain − 1|", "less", 0.01),
    "no_res_jacobian_growth": ("ln no-res Jacobian gain D 256 / D 4", "greater", math.log(30.0)),
    "vanishing_16_over_4": ("log10 no-res-no-LN output rms D 16 / D 4", "less", -3.0),
}  # fmt: skip


def signal_rule(table: Mapping[str, Mapping[str, Mapping[int, float]]] = SPEC_SIGNAL_TABLE) -> Rule:
    """The rule of ``signal_propagation``: an equivalence pair (TOST) per tabled entry on the
    per-seed ln(measured / table) within ± ln(factor), one on the no-res growth rate over theory
    within ± 25%, and one part per shape bound; Bonferroni over all of them."""
    parts: list[Part] = []
    for v, metrics in table.items():
        for metric, by_depth in metrics.items():
            for d, want in sorted(by_depth.items()):
                text = f"ln({v} {metric} at D = {d} / table {want:g})"
                parts += within(signal_entry(v, metric, d), text, 0.0, math.log(_factor_rule(v, d)))
    parts += within("no_res_rate", "no-res ln-gain rate D 64→256 / ½·log(E[φ′²]/E[φ²]) − 1", 0.0,
                    RATE_TOL)  # fmt: skip
    parts += [Part(k, text, way, m, m) for k, (text, way, m) in SIGNAL_SHAPES.items()]
    return Rule(
        unit="one seed index: a fresh initialisation and input batch of every (variant, depth) "
        "point (3 per root seed at quick, 5 at full)",
        parts=tuple(parts),
    )


def _signal_limits(stats: SignalStats) -> dict[str, float]:
    """Each summary of the geometric means over its bound, measured / limit (≤ 1 passes)."""
    shapes = stats.shapes
    return {
        "table": stats.worst,
        "no_res_rate": abs(stats.rates.mean() / stats.rate_theory - 1) / RATE_TOL,
        "paper_grad_band": shapes["paper_grad_band"] / np.log(2),
        "no_ln_jacobian_band": shapes["no_ln_jacobian_band"] / np.log(1.3),
        "no_ln_trunk_max_dev": shapes["no_ln_trunk_max_dev"] / 0.01,
        "no_res_jacobian_growth": 30 / shapes["no_res_jacobian_growth"],
        "vanishing_16_over_4": shapes["vanishing_16_over_4"] / 1e-3,
    }


def _signal_summary(stats: SignalStats, width: int, extra: Sequence[int]) -> str:
    rows, shapes, deep, curve = stats.rows, stats.shapes, stats.deep, stats.curve
    misses = [f"{r[0]} {r[1]} D{r[2]}: {r[3]:.3g} vs {r[5]:.3g}" for r in rows if r[6] > r[7]]
    return (
        f"geometric means: {len(rows) - len(misses)}/{len(rows)} table entries within their "
        "factor"
        + (f" (misses: {'; '.join(misses[:4])})" if misses else "")
        + f"; no-res log-gain rate D 64→256 {stats.rates.mean():.4f}/layer vs theory "
        f"{stats.rate_theory:.4f}; paper grad ratio "
        f"{curve('paper', 'grad_ratio').round(3).tolist()} at D 4–256, "
        f"no-LN Jacobian gain {curve('no_ln', 'jacobian_gain').round(2).tolist()}, "
        f"no-res Jacobian gain ×{shapes['no_res_jacobian_growth']:.0f} from D 4 to 256, "
        f"no-res-no-LN output ×{shapes['vanishing_16_over_4']:.1e} from D 4 to 16"
        + "".join(
            f"; width {width}, paper block at D {d}: grad ratio {deep['grad_ratio'][d]:.3f}, "
            f"trunk gain {deep['trunk_gain'][d]:.3g}, Jacobian gain "
            f"{deep['jacobian_gain'][d]:.3g}"
            for d in extra
        )
    )


def _signal_measured(
    stats: SignalStats, limits: Mapping[str, float], width: int, extra: Sequence[int]
) -> dict[str, Any]:
    beyond = {m: {str(d): v for d, v in by_depth.items()} for m, by_depth in stats.deep.items()}
    return {
        "table": [
            {"variant": r[0], "metric": r[1], "depth": r[2], "geo_mean": r[3], "se_log": r[4]}
            for r in stats.rows
        ],
        **stats.shapes,
        "no_res_rate_per_layer": stats.rates,
        "worst_ratio_over_factor": stats.worst,
        "check_over_limit": limits,
        "worst_check_over_limit": float(max(limits.values())),
    } | ({"width": width, "paper_block_beyond_table": beyond} if extra else {})


def _signal_expected(stats: SignalStats) -> dict[str, Any]:
    return {
        "table": [
            {"variant": r[0], "metric": r[1], "depth": r[2], "value": r[5]} for r in stats.rows
        ],
        "paper_grad_band": f"≤ log 2 = {np.log(2):.3f}",
        "no_ln_jacobian_band": f"≤ log 1.3 = {np.log(1.3):.3f}",
        "no_ln_trunk_max_dev": "≤ 0.01",
        "no_res_jacobian_growth": "≥ 30",
        "no_res_rate_per_layer": stats.rate_theory,
        "vanishing_16_over_4": "≤ 1e-3",
    }


# --------------------------------------------------------------------------- signal_propagation
@claim(
    "deep_crl.signal_propagation",
    paper="deep_crl",
    statement="At initialisation the paper's residual LN-Swish block keeps the first/last-layer "
    "gradient ratio in a bounded band up to depth 256; without LN the blocks are near-identity "
    "(flat input-Jacobian gain); without residuals gradients grow exponentially; without both "
    "the signal vanishes.",
    source="Wang et al. 2025 (arXiv 2503.14858), §4 architecture, Fig. 5 and the OpenReview "
    "rebuttal's ablation table; reference values: our own width-128 pilot (docs/deep_crl.md)",
    rule="An equivalence test per tabled entry (factor ×2.5; ×10 for no-res at D ≥ 64; ×1000 for "
    "the vanishing no-res-no-LN outputs), the no-res log-gain rate within 25% of theory, and the "
    "five shape bounds, each on per-seed values. At --scale paper (width 256) the paper "
    "grad-ratio band also covers the paper block at D = 1024.",
    stochastic=True,
    devices=("cpu", "cuda"),  # every sweep task takes params["device"]
    statistic="worst_check_over_limit",
    decision=signal_rule(),
    paper_effects=(
        registry.PaperEffect(
            "no_res_rate",
            None,
            "no signal-propagation numbers are reported, only that deep networks without "
            "residual connections fail; the tabled reference values are our own width-128 pilot",
            "Wang et al. 2025, Fig. 5; docs/deep_crl.md",
        ),
    ),
    # declared 2026-12-02: 5 units per root seed; 111 would decide it
    looks={"full": (1, 25)},
    history=[
        HistoryEntry(
            date="2026-11-30",
            change="seeds summarised by geometric means (were arithmetic); the no-residual "
            "entries at D ≥ 64 taken out of the factor check (shown only) and replaced by the "
            "growth-rate check against ½·log(E[φ′²]/E[φ²]) per layer",
            reason="the no-residual D ≥ 64 entries are chaotic across seeds (D = 256 Jacobian "
            "gain 485–12,000), so an arithmetic mean is dominated by one seed",
            before="not recorded: the change predates the first commit of the check (4f6cdaa) "
            "and no result of the earlier rule is in the README or git",
        ),
        HistoryEntry(
            date="2026-12-01",
            change="the six no-residual entries at D ≥ 64 are checked within ×10 (the factor "
            "the docstring stated) instead of an infinite factor",
            reason="the docstring said ×10 but the code used ∞, so 6 table entries went unchecked",
            before="PASS (45/45 checked entries within their factor; 6 shown only)",
        ),
        HistoryEntry(
            date="2026-12-01",
            change="--scale paper defined: width 256 and the paper block at D = 1024 in the "
            "gradient-ratio band (quick and full unchanged)",
            reason="--scale paper refused every deep-CRL claim",
            before="--scale paper refused; quick and full numbers unchanged",
        ),
        HistoryEntry(
            date="2026-12-02",
            change="rule: from 'the geometric mean over seeds of every entry within its factor, "
            "the rate and the five shape bounds on the seed means (worst measured/limit ≤ 1), else "
            "FAIL' to a three-way decision over seed indices (units): two one-sided tests per "
            "entry on the per-seed ln(measured/table) within ± ln(factor), one on the per-seed "
            "rate over theory within ± 25%, one-sided parts on the per-seed shape statistics, "
            "Bonferroni over all 109 parts, pooled over root seeds (the rule of docs/verdicts.md)",
            reason="these are Monte Carlo measurements of random initialisations against a "
            "tolerance, not an identity: a point estimate against a factor has no stated error "
            "rate, and the chaotic no-res entries at D ≥ 64 (ln sd 1–1.7 over seeds) can flip it",
            before="PASS (quick: worst_check_over_limit 0.570, PASS under 5/5 root seeds, 0.55–"
            "0.79; full PASS: 0.761)",
        ),
    ],
    # reproduces_to not pinned: its quick check costs 11-60 CPU-s
    paper_plan=PaperSizes(
        sizes="width 256 (the paper's) at the table's depths 4-256, and the paper block at "
        "D = 1024 in the gradient-ratio band; 5 seeds per point",
        tasks=100,
        basis="33 CPU-s for one seed of every point, measured (2026-12-01, one thread, ±15%), × 5",
        cpu_hours=0.05,
    ),
)
def signal_propagation(
    ctx: Context, *, table: Mapping[str, Mapping[str, Mapping[int, float]]] = SPEC_SIGNAL_TABLE
) -> results.UnitsResult:
    """Fresh critics (width 128, batch 256 Gaussian inputs, InfoNCE + λ·LSE² loss), 3 seeds per
    (variant, depth), decided over seed indices by :func:`signal_rule` (geometric means shown).
    Each tabled entry must agree within its factor (2.5; 10 for no-res at
    D ≥ 64; 1000 for vanishing outputs), and the shapes must hold: paper-block grad ratio
    max/min over depths ≤ 2; no-LN Jacobian gain max/min ≤ 1.3 and trunk gain within 1% of 1;
    no-res Jacobian gain at D = 256 ≥ 30× that at D = 4, growing between D = 64 and 256 at the
    theory rate ½·log(E[φ′²]/E[φ²]) = 0.032 per layer within 25%; no-res-no-LN output at D = 16
    ≤ 1e-3× that at D = 4."""
    from neural.deep_crl import signal_task

    width = ctx.pick(quick=SIGNAL_WIDTH, full=SIGNAL_WIDTH, paper=PAPER_WIDTH)
    extra = ctx.pick(quick=(), full=(), paper=PAPER_SIGNAL_DEPTHS)  # paper block only, untabled
    n_seeds = SIGNAL_SEEDS[ctx.scale]
    params = signal_points(table, width, extra)
    records = ctx.sweep(signal_task, params, name="init", n_seeds=n_seeds)
    stats = signal_statistics(records, table, extra, factor=_factor_rule)  # geometric means
    return results.UnitsResult(
        units=signal_units(records, table, extra),
        summary=_signal_summary(stats, width, extra),
        measured=_signal_measured(stats, _signal_limits(stats), width, extra),
        expected=_signal_expected(stats),
        arrays=signal_arrays(stats),
        draw=lambda _: signal_figure(stats, width, n_seeds),
    )


# -------------------------------------------------------------------------------- trainability
#: Training state saved every this many SGD steps at ``--scale paper`` (≈ 2.2 CPU-min at
#: D = 64, width 256), so a killed task resumes (:class:`neural.deep_crl.CriticRun`).
PAPER_CHECKPOINT_EVERY = 500
#: Sizes of the fixed-data critic runs per scale (tests shrink these). ``paper``: the paper's
#: width 256 at the depths of its LN/residual ablations (rebuttal table: 4/16/32/64), full's
#: steps, batch and seeds.
TRAIN_SIZES: dict[str, dict[str, Any]] = {
    "quick": {"width": 32, "steps": 600, "batch": 256, "depths": (4, 16), "n_seeds": 3},
    "full": {"width": 64, "steps": 2000, "batch": 256, "depths": (4, 16, 32), "n_seeds": 5},
    "paper": {
        "width": PAPER_WIDTH,
        "steps": 2000,
        "batch": 256,
        "depths": (4, 16, 32, 64),
        "n_seeds": 5,
        "checkpoint_every": PAPER_CHECKPOINT_EVERY,
    },
}
#: "Deeper does not train worse": the mean paired loss increase over D = 4 lies below this (nats).
NOT_WORSE_MARGIN = 0.02
#: The unit of the fixed-data critic claims.
PAIRED_CRITIC_SEED = (
    "one paired seed: a fresh set of 20,000 (state, future) pairs and one initialisation stream, "
    "shared by every variant and depth of that seed (3 per root seed at quick, 5 at full)"
)


def trainability_rule(
    reference: str = "paper", contenders: Sequence[str] = ("no_ln", "no_res")
) -> Rule:
    """The rule of ``trainability``: per contender, its D = 16 loss minus the reference's (> 0);
    and the reference's worst paired increase over D = 4 among the deeper depths (< 0.02)."""
    beats = tuple(
        Part(f"{c}_minus_{reference}", f"final InfoNCE of {c} minus {reference} at D = 16, nats",
             "greater", 0.0, 0.0)
        for c in contenders
    )  # fmt: skip
    deeper = Part(
        "deeper_minus_d4",
        f"max over the deeper depths D > 4 of the {reference} block's final InfoNCE at D minus at "
        "D = 4 (same seed), nats",
        "less", NOT_WORSE_MARGIN, NOT_WORSE_MARGIN,
    )  # fmt: skip
    return Rule(unit=PAIRED_CRITIC_SEED, parts=(*beats, deeper))


def _sizes(ctx: Context, table: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any]:
    return table[ctx.scale]


def _task_sizes(size: Mapping[str, Any]) -> dict[str, Any]:
    """The training-task parameters of a size entry (checkpoint_every only where it is set)."""
    keys = ("width", "steps", "batch", "checkpoint_every")
    return {k: size[k] for k in keys if k in size}


def _critic_points(size: Mapping[str, Any], variants: Sequence[str], **extra: Any) -> list[dict]:
    """The fixed-data critic sweep's points: every variant at every depth of ``size``."""
    return [
        {"variant": v, "depth": d, **_task_sizes(size), **extra}
        for v in variants
        for d in size["depths"]
    ]


def _rule_expected(rule: Rule) -> dict[str, str]:
    """Each part's pass side, e.g. ``{"no_ln_minus_paper": "> 0"}``."""
    return {
        p.statistic: f"{'>' if p.direction == 'greater' else '<'} {p.pass_margin:g}"
        for p in rule.parts
    }


def _trainability_summary(
    size: Mapping[str, Any],
    loss: Mapping[tuple, np.ndarray],
    variants: Sequence[str],
    beats: Mapping[str, bool],
    deeper: Mapping[int, tuple[float, float]],
) -> str:
    at16 = ", ".join(f"{v} {mean_se(loss[(v, 16)])[0]:.3f}" for v in variants)
    return (
        f"width {size['width']}, {size['steps']} steps, {size['n_seeds']} seeds: "
        f"InfoNCE at D = 16: {at16}; {variants[0]} beats "
        + ", ".join(f"{c} in {'every' if b else 'not every'} seed" for c, b in beats.items())
        + "; deeper − D4: "
        + ", ".join(f"D{d} {m:+.3f} ± {se:.3f}" for d, (m, se) in deeper.items())
    )


def _trainability_measured(
    loss: Mapping[tuple, np.ndarray],
    beats: Mapping[str, bool],
    deeper: Mapping[int, tuple[float, float]],
    units: Mapping[str, Sequence[float]],
) -> dict[str, Any]:
    """The losses, the per-seed comparisons and each statistic's mean over the units."""
    return {
        "loss": {f"{v}@{d}": loss[(v, d)] for v, d in loss},
        "beats_every_seed": beats,
        "deeper_minus_d4": {str(d): {"mean": m, "se": se} for d, (m, se) in deeper.items()},
    } | {name: float(np.mean(v)) for name, v in units.items()}


@claim(
    "deep_crl.trainability",
    paper="deep_crl",
    source="Wang et al. 2025 (arXiv 2503.14858), Fig. 5 (residuals) and the OpenReview rebuttal's "
    "ablation table (no LN flat at 6.6/13/12/13)",
    statement="With the same data, the paper block at depth 16 reaches a lower InfoNCE loss than "
    "the no-LN and no-residual blocks at depth 16, and deeper paper blocks do not train worse "
    "than depth 4 (by more than 0.02 nats).",
    rule="Final training InfoNCE (mean over the last 10% of steps) on fixed maze data.",
    stochastic=True,
    devices=("cpu", "cuda"),  # every sweep task takes params["device"]
    decision=trainability_rule(),
    # declared 2026-12-05 from the quick reference's 5 root seeds (3 units each): at their mean
    # and sd 6 units decide it, so `make run` (one root seed) looks once, at 2 root seeds
    looks={"quick": (2,)},
    paper_effects=(
        registry.PaperEffect(
            "no_res_minus_paper",
            None,
            "no training losses are reported: without residual connections deep networks fail "
            "to learn (time at goal); no InfoNCE gap to compare",
            "Wang et al. 2025, Fig. 5",
        ),
        registry.PaperEffect(
            "deeper_minus_d4",
            None,
            "the paper block improves with depth in time at goal (13/350/628/673 at depths "
            "4/16/32/64 in the rebuttal's ablation table); no InfoNCE losses by depth",
            "Wang et al. 2025, OpenReview rebuttal ablation table",
        ),
    ),
    history=[
        HistoryEntry(
            date="2026-12-01",
            change="--scale paper defined: width 256, depths 4/16/32/64, checkpointed every 500 steps "
            "(quick and full unchanged)",
            reason="--scale paper refused every deep-CRL claim",
            before="--scale paper refused; quick and full numbers unchanged",
        ),
        HistoryEntry(
            date="2026-12-02",
            change="rule: from 'the paper block beats no-LN and no-res at D = 16 in every seed, "
            "and each deeper depth's mean paired increase over D = 4 ≤ 0.02 + 2 s.e.' to a "
            "three-way decision over paired seeds (units): Student-t bounds on the mean paired "
            "differences no-LN − paper and no-res − paper at D = 16 (> 0) and on the worst "
            "deeper-minus-D4 increase per seed (< 0.02), Bonferroni over the parts, pooled over "
            "root seeds; 'in every seed' left the statement (the rule of docs/verdicts.md)",
            reason="'every seed' decides at the noise level: at full the claim FAILed because one "
            "seed of the paper block lost to no-res (means 3.472 vs 3.474)",
            before="PASS at quick (n_violations 0 under 5/5 root seeds); FAIL at full (the paper "
            "block beat no-res in not every seed; D = 16 means paper 3.472, no-LN 3.564, no-res "
            "3.474; deeper − D4 +0.009 ± 0.007 at D16, +0.006 ± 0.001 at D32)",
        ),
    ],
    # reproduces_to not pinned: its quick check costs 11-60 CPU-s
    paper_plan=_critic_plan(
        "the paper's LN/residual ablation depths 4/16/32/64 (rebuttal table), 3 variants × 5 seeds",
        tasks=60,
        cpu_hours=4.3,
    ),
)
def trainability(
    ctx: Context,
    *,
    reference: str = "paper",
    contenders: Sequence[str] = ("no_ln", "no_res"),
    task: Callable[..., dict[str, Any]] | None = None,
) -> results.UnitsResult:
    """Critics f(s, g) = −‖φ(s) − ψ(g)‖ trained on one fixed set of 20,000 (state, future) pairs
    from the 7-corridor serpentine maze's successor measure (γ 0.95, batch 256, Adam 3e-4); the
    same data and initial seed streams for every variant (paired seeds). Loss = training InfoNCE
    averaged over the last 10% of steps. Decided by :func:`trainability_rule` over paired seeds.
    ``task`` replaces the training run (default :func:`neural.deep_crl.train_maze_critic`)."""
    if task is None:
        from neural.deep_crl import train_maze_critic as task

    size = _sizes(ctx, TRAIN_SIZES)
    variants = (reference, *contenders)
    params = _critic_points(size, sorted(variants))  # any (reference, contenders): one sweep
    records = ctx.sweep(task, params, name="fixed_data", n_seeds=size["n_seeds"], paired_seeds=True)
    loss = {k: np.array(v) for k, v in by_point(records, "train_loss").items()}
    beats = {c: bool(np.all(loss[(reference, 16)] < loss[(c, 16)])) for c in contenders}
    deeper = {
        d: mean_se(loss[(reference, d)] - loss[(reference, 4)]) for d in size["depths"] if d > 4
    }
    units = trainability_units(loss, reference, contenders, size["depths"])
    curves = by_point(records, "loss_curve")
    return results.UnitsResult(
        units=units,
        summary=_trainability_summary(size, loss, variants, beats, deeper),
        measured=_trainability_measured(loss, beats, deeper, units),
        expected=_rule_expected(trainability_rule(reference, contenders)),
        arrays={f"loss.{v}.{d}": loss[(v, d)] for v, d in loss},
        draw=lambda _: trainability_figure(loss, curves, variants, size["depths"], size["batch"]),
    )


# ------------------------------------------------------------------------ critic_learns_geodesic
GEODESIC_SIZES: dict[str, dict[str, Any]] = {
    "quick": {"width": 64, "steps": 600, "batch": 256, "depths": (0, 4), "n_seeds": 3},
    "full": {"width": 64, "steps": 2000, "batch": 256, "depths": (0, 4, 8, 16), "n_seeds": 5},
    # the paper's width, and depth 64 as in Fig. 9 (the U4 Q-maps compare depth 4 with 64)
    "paper": {
        "width": PAPER_WIDTH,
        "steps": 2000,
        "batch": 256,
        "depths": (0, 4, 16, 64),
        "n_seeds": 5,
        "checkpoint_every": PAPER_CHECKPOINT_EVERY,
    },
}
#: Pre-registered in our plan, before any run: ρ_geo(D = 4) − ρ_geo(one hidden layer) ≥ 0.03, and
#: the shortcut index ρ_euc − ρ_geo falls.
MIN_RHO_GAIN = 0.03


def geodesic_rule(min_gain: float = MIN_RHO_GAIN) -> Rule:
    """The rule of ``critic_learns_geodesic``: the paired gain in ρ_geo from D = 0 to D = 4 above
    ``min_gain`` and the paired change of the shortcut index below 0."""
    return Rule(
        unit=PAIRED_CRITIC_SEED.replace("every variant and depth", "every depth"),
        parts=(
            Part("rho_gain", "ρ_geo(D = 4) − ρ_geo(one hidden layer) of the seed", "greater",
                 min_gain, min_gain),
            Part("shortcut_change", "shortcut index ρ_euc − ρ_geo at D = 4 minus at D = 0 of the "
                 "seed", "less", 0.0, 0.0),
        ),
    )  # fmt: skip


SERPENTINE = (
    7,
    13,
)  # 7 corridors of 13 cells: 97 free cells (docs/deep_crl.md, "Networks and mazes")


def _geodesic_summary(size: Mapping[str, Any], ranks: RankAgreement) -> str:
    rho, shortcut, rho_opt = ranks
    return (
        f"serpentine {SERPENTINE[0]}×{SERPENTINE[1]} (97 cells), width {size['width']}, "
        f"{size['steps']} steps, {size['n_seeds']} seeds: ρ_geo "
        + ", ".join(f"D{d} {rho[d].mean():.3f}" for d in rho)
        + f" (optimum {rho_opt:.3f}); shortcut index D0 {shortcut[0].mean():+.3f} → "
        f"D4 {shortcut[4].mean():+.3f}"
    )


def _geodesic_measured(
    ranks: RankAgreement, u4_records: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    rho, shortcut, rho_opt = ranks
    return {
        "rho_geo": {str(d): rho[d] for d in rho},
        "shortcut_index": {str(d): shortcut[d] for d in rho},
        "rho_gain_d4_minus_d0": float((rho[4] - rho[0]).mean()),
        "shortcut_change_d4_minus_d0": float(np.mean(shortcut[4] - shortcut[0])),
        "rho_geo_optimum": rho_opt,
        "u4_rho_geo_seed0": {str(r["params"]["depth"]): r["result"]["rho_geo"] for r in u4_records},
    }


def _geodesic_expected() -> dict[str, str]:
    return {
        "rho_gain_d4_minus_d0": f"lower bound > {MIN_RHO_GAIN}",
        "shortcut_change_d4_minus_d0": "upper bound < 0",
    }


def _geodesic_arrays(
    ranks: RankAgreement, u4_records: Sequence[Mapping[str, Any]]
) -> dict[str, np.ndarray]:
    rho, shortcut, _ = ranks
    return (
        {f"rho_geo.{d}": rho[d] for d in rho}
        | {f"shortcut.{d}": shortcut[d] for d in rho}
        | {f"u4_q_row_start.{r['params']['depth']}": r["result"]["q_row_start"] for r in u4_records}
    )


@claim(
    "deep_crl.critic_learns_geodesic",
    paper="deep_crl",
    statement="On a serpentine maze with fixed random-walk data, a deeper critic ranks goals by "
    "geodesic rather than Euclidean distance: ρ(f, −geodesic) rises from one hidden layer to "
    "depth 4 by ≥ 0.03 and the Euclidean shortcut index falls.",
    source="Wang et al. 2025 (arXiv 2503.14858), Fig. 9 (U4 Q-map: depth 4 follows Euclidean "
    "distance through the wall, depth 64 the corridor)",
    rule="Per-state Spearman ρ over goals within 20 moves, averaged over states.",
    stochastic=True,
    devices=("cpu", "cuda"),  # every sweep task takes params["device"]
    statistic="rho_gain_d4_minus_d0",
    decision=geodesic_rule(),
    history=[
        HistoryEntry(
            date="2026-12-01",
            change="--scale paper defined: width 256, depths 0/4/16/64, checkpointed every 500 steps "
            "(quick and full unchanged)",
            reason="--scale paper refused every deep-CRL claim",
            before="--scale paper refused; quick and full numbers unchanged",
        ),
        HistoryEntry(
            date="2026-12-02",
            change="rule: from 'mean gain ≥ 0.03 with a 90% percentile bootstrap CI over seeds "
            "above 0, and the mean shortcut index falls' to a three-way decision over paired "
            "seeds (units): Student-t bounds on the mean gain against 0.03 and on the mean "
            "shortcut change against 0, Bonferroni over the two, pooled over root seeds "
            "(the rule of docs/verdicts.md)",
            reason="a percentile bootstrap over 3 seeds under-covers (75% for a nominal 95%): its "
            "half-width was 0.0025 where the gain's sd over root seeds is 0.008",
            before="PASS (quick: gain +0.223, 90% CI [+0.221, +0.226]; PASS under 5/5 root seeds, "
            "gains 0.202–0.223; full PASS: +0.180, CI [+0.176, +0.184])",
        ),
    ],
    # reproduces_to not pinned: its quick check costs 11-60 CPU-s
    paper_plan=_critic_plan(
        "depths 0/4/16/64 (Fig. 9 compares 4 with 64) × 5 seeds, and the U4 Q-maps at D 0 and 64",
        tasks=22,
        cpu_hours=1.3,
    ),
)
def critic_learns_geodesic(
    ctx: Context,
    *,
    distance: Callable[[GridMaze], np.ndarray] = GridMaze.geodesic_distances,
) -> results.UnitsResult:
    """Paper-block critics (width 64) at D ∈ {0 (one hidden layer), 4, 8, 16}, trained as in
    ``trainability`` on the same data per seed. Per state s, Spearman ρ over goals g within the
    horizon 1/(1−γ) = 20 moves between f(s, g) and −distance(s, g), averaged over s. Theory: the
    InfoNCE optimum f* = log M(s, g)/p(g) (M the exact successor measure) has the ρ drawn as the
    reference line. The figure adds the Q-map of the U4 maze (the paper's Fig. 9 layout) from
    critics trained the same way on U4 random-walk data at the shallowest and deepest depth (one
    seed; shown, not scored). Decided by :func:`geodesic_rule` over paired seeds: the gain
    ρ(D4) − ρ(D0) above 0.03 and the shortcut index ρ_euc − ρ_geo falling."""
    from neural.deep_crl import rank_agreement, train_maze_critic

    size = _sizes(ctx, GEODESIC_SIZES)
    params = _critic_points(size, ["paper"], return_f=True)
    records = ctx.sweep(
        train_maze_critic, params, name="fixed_data", n_seeds=size["n_seeds"], paired_seeds=True
    )
    u4_params = [p | {"layout": U4} for p in (params[0], params[-1])]  # shallowest and deepest
    u4_records = ctx.sweep(train_maze_critic, u4_params, name="u4_fixed_data", n_seeds=1)
    maze = GridMaze.from_layout(serpentine_layout(*SERPENTINE))
    ranks = rank_agreement(records, maze, distance)  # per depth and seed: ρ_geo, shortcut index
    gain, change = ranks.rho[4] - ranks.rho[0], ranks.shortcut[4] - ranks.shortcut[0]
    return results.UnitsResult(
        units={"rho_gain": gain.tolist(), "shortcut_change": change.tolist()},
        summary=_geodesic_summary(size, ranks),
        measured=_geodesic_measured(ranks, u4_records),
        expected=_geodesic_expected(),
        arrays=_geodesic_arrays(ranks, u4_records),
        draw=lambda _: geodesic_figure(ranks, maze, records, u4_records),
    )


# ---------------------------------------------------------------------------------- online_maze
#: Online CRL sizes (full scale only; see :func:`neural.crl.train_online_crl` for the defaults:
#: width 64, 32 envs × T = 100 per epoch, batch 256, γ 0.99, config "cpu": α₀ 0.05, α lr 3e-3).
ONLINE_SIZES: dict[str, Any] = {
    "depths": (4, 16),
    "n_seeds": 3,
    "task": {"epochs": 100, "grad_steps": 64, "eval_every": 10},
}
#: Configurations also trained at both depths and reported beside the verdict, never deciding it
#: (the settings of the authors' code, :data:`neural.deep_crl.CONFIGS`).
ONLINE_REPORTED_CONFIGS = ("reference",)
#: ``--scale paper``: Table 1's depths 4 and 64 at the paper's width 256, full's schedule and seeds,
#: the whole training state saved every 10 epochs (640 SGD steps, ≈ 7 CPU-min at D = 64).
ONLINE_PAPER_SIZES: dict[str, Any] = {
    "depths": (4, 64),
    "n_seeds": 3,
    "task": {**ONLINE_SIZES["task"], "width": PAPER_WIDTH, "checkpoint_every": 10},
}
#: The benefit of depth the claim asserts: far-goal success of the deep agent above the shallow
#: one's by more than this, per paired seed in the mean.
ONLINE_MIN_GAIN = 0.05
FULL_ONLY = "full scale only (run with --scale full)"
#: Table 1, Ant U4, time at goal out of 1000 steps (5 seeds): depth 4 → 64 (not comparable with a
#: point mass; shown as the paper's reference).
PAPER_ANT_U4_TIME_AT_GOAL = {4: 11.4, 64: 286.0}


#: Mean far-goal success at which a depth counts as at the ceiling (or, 1 − this, the floor).
ONLINE_CEILING = 0.9


def _online_caveat(shallow: float, deep: float) -> str:
    """Where the maze cannot separate the depths: both at the ceiling or both at the floor."""
    if min(shallow, deep) >= ONLINE_CEILING:
        return "; both depths at the ceiling: the small U-maze does not separate them at this scale"
    if max(shallow, deep) <= 1 - ONLINE_CEILING:
        return "; both depths at the floor: neither reaches the far goals at this scale"
    return ""


def _reported_text(
    reported: Mapping[str, Mapping[int, np.ndarray]], shallow: int, deep: int
) -> str:
    """The summary's phrase for the reported (not deciding) configurations."""
    return "".join(
        f"; reported, config {config!r}: "
        + ", ".join(
            f"D{d} {v.mean():.2f} [{', '.join(f'{x:.2f}' for x in v)}]" for d, v in by_depth.items()
        )
        + f" (Δ {by_depth[deep].mean() - by_depth[shallow].mean():+.2f})"
        for config, by_depth in reported.items()
    )


ONLINE_RULE = Rule(
    unit="one paired seed: the shallow and the deep agent trained online from one seed stream "
    "(environment resets, exploration, initialisation); full scale only",
    parts=(
        Part("success_gain", "far-goal success of the deep agent minus the shallow one's "
             "(D = 16 − D = 4; D = 64 − D = 4 at --scale paper)", "greater", ONLINE_MIN_GAIN,
             ONLINE_MIN_GAIN),
    ),
    note="Quick scale trains no online agent: INCONCLUSIVE by declaration.",
)  # fmt: skip


def online_units(deep: Sequence[float], shallow: Sequence[float]) -> dict[str, list[float]]:
    """The units of :data:`ONLINE_RULE`: per-seed scores of the deep agent minus the shallow
    one's, paired by seed."""
    return {"success_gain": (np.asarray(deep, float) - np.asarray(shallow, float)).tolist()}


def _online_quick() -> results.UnitsResult:
    """Quick scale trains no online agent (the runner shows NOT_RUN there): no units."""
    return results.UnitsResult(
        units=online_units([], []),
        summary=f"{FULL_ONLY}: 2 depths × 3 seeds of online CRL training",
        measured={"success_diff": None},
        expected={},
    )


def _reported_success(
    ctx: Context, task: Callable[..., dict[str, Any]], params: Sequence[dict], n_seeds: int
) -> dict[str, dict[int, np.ndarray]]:
    """config -> depth -> per-seed far-goal success of :data:`ONLINE_REPORTED_CONFIGS`, each
    trained at the deciding arm's points (reported, never deciding)."""
    return {
        config: success_by_depth(
            ctx.sweep(
                task,
                [{**p, "config": config} for p in params],
                name=f"online-{config}",
                n_seeds=n_seeds,
                paired_seeds=True,
            ),
        )
        for config in ONLINE_REPORTED_CONFIGS
    }


def _online_summary(
    size: Mapping[str, Any],
    runs: Mapping[int, Sequence[Mapping[str, Any]]],
    success: Mapping[int, np.ndarray],
    at_goal: Mapping[int, np.ndarray],
    reported: Mapping[str, Mapping[int, np.ndarray]],
) -> str:
    shallow, deep = size["depths"][0], size["depths"][-1]
    per_seed = {d: ", ".join(f"{v:.2f}" for v in success[d]) for d in runs}
    tag_diff = mean_se(at_goal[deep])[0] - mean_se(at_goal[shallow])[0]
    return (
        f"small U-maze, width {size['task'].get('width', 64)}, "
        f"{runs[shallow][0]['grad_steps_total']} SGD steps, "
        f"{size['n_seeds']} seeds: far-goal success "
        + "; ".join(
            f"D{d} {success[d].mean():.2f} ± {mean_se(success[d])[1]:.2f} [{per_seed[d]}]"
            for d in runs
        )
        + "; time at goal "
        + ", ".join(f"D{d} {at_goal[d].mean():.3f}" for d in runs)
        + f" (Δ {tag_diff:+.3f})"
        + _online_caveat(success[shallow].mean(), success[deep].mean())
        + _reported_text(reported, shallow, deep)
    )


def _online_measured(
    success: Mapping[int, np.ndarray],
    at_goal: Mapping[int, np.ndarray],
    reported: Mapping[str, Mapping[int, np.ndarray]],
    shallow: int,
    deep: int,
) -> dict[str, Any]:
    return {
        "success": {str(d): success[d] for d in success},
        "reported_configs": {
            config: {str(d): v for d, v in by_depth.items()}
            for config, by_depth in reported.items()
        },
        "time_at_goal": {str(d): at_goal[d] for d in success},
        "success_diff": float(success[deep].mean() - success[shallow].mean()),
        "time_at_goal_diff": mean_se(at_goal[deep])[0] - mean_se(at_goal[shallow])[0],
    }


def _online_expected() -> dict[str, Any]:
    """What ``online_maze`` asserts, beside the paper's Ant U4 numbers it shows."""
    return {
        "success_gain": f"lower bound > {ONLINE_MIN_GAIN}",
        "paper_ant_u4_time_at_goal": {str(d): t for d, t in PAPER_ANT_U4_TIME_AT_GOAL.items()},
    }


@claim(
    "deep_crl.online_maze",
    paper="deep_crl",
    statement="Online CRL on the small point-mass U-maze reaches the goals behind the wall more "
    "often with depth-16 (depth-64 at --scale paper) than with depth-4 actor and critic encoders.",
    source="Wang et al. 2025 (arXiv 2503.14858), Table 1 (Ant U4 time at goal 11.4 → 286 from "
    "depth 4 to 64), Fig. 9 (depth 4 stuck at the wall)",
    rule="Far-goal success rate (3 goals behind the wall) under the deterministic policy, mean "
    "of the last 3 evaluations.",
    stochastic=True,
    devices=("cpu", "cuda"),  # every sweep task takes params["device"]
    not_run_at={
        "quick": "2 depths × 3 seeds of online CRL training do not fit quick; run it with --scale full"
    },
    statistic="success_diff",
    decision=ONLINE_RULE,
    paper_effects=(
        registry.PaperEffect(
            "success_gain",
            None,
            "time at goal (steps of 1000 within the goal radius) on Brax ant and humanoid mazes, "
            "e.g. Ant U4 11.4 → 286 from depth 4 to 64 (a gain of 0.27 of the episode), not a "
            "far-goal success rate of a point mass at depth 16: no number in these units",
            "Wang et al. 2025, Table 1",
        ),
    ),
    history=[
        HistoryEntry(
            date="2026-11-30",
            change="full-scale training cut from 150 to 100 epochs (× 64 SGD steps; 6,400 steps, "
            "320k env steps per run)",
            reason="CPU budget (per run ≈ 2.5 CPU-min at D 4 and ≈ 6.5 at D 16, scaled from a "
            "60-epoch pilot)",
            before="not recorded: the change came 2 minutes after the claim was committed "
            "(86677e4 → d8e1b65); no result at 150 epochs is in the README or git",
        ),
        HistoryEntry(
            date="2026-12-01",
            change="FAIL when Δ + 2 s.e. < +0.05 (the interval excludes a 0.05 benefit of depth); "
            "was: FAIL only when Δ < −2 s.e.",
            reason="with 3 seeds the old FAIL needed Δ below about −0.46, so a "
            "difference against the claim read INCONCLUSIVE",
            before="INCONCLUSIVE at full (Δ = −0.12 ± 0.23); the new rule on the same numbers: "
            "interval [−0.59, +0.33] holds +0.05, INCONCLUSIVE",
        ),
        HistoryEntry(
            date="2026-12-01",
            change="at full scale both depths are also trained with config 'reference' (flax "
            "LayerNorm ε, α₀ 1, α lr 3e-4, α-weighted α-loss, no constant input) and reported "
            "beside the verdict; the rule, sizes and seeds of the deciding 'cpu' arm are unchanged",
            reason="the CPU configuration departs from the authors' code; their settings, "
            "reported beside it, show how much that choice matters",
            before="INCONCLUSIVE at full (Δ = −0.12 ± 0.23, 2026-11-30); no 'reference' run yet",
        ),
        HistoryEntry(
            date="2026-12-01",
            change="--scale paper defined: depths 4 and 64 (Table 1) at width 256, full's "
            "schedule and seeds, checkpointed every 10 epochs; the reported 'reference' config "
            "trains at the same sizes (quick and full unchanged)",
            reason="--scale paper refused every deep-CRL claim",
            before="--scale paper refused; quick and full numbers unchanged",
        ),
        HistoryEntry(
            date="2026-12-02",
            change="rule: from Δ ± 2 s.e. over independent seeds (PASS when above 0 with Δ ≥ 0.05, "
            "FAIL when below +0.05) to a three-way decision over paired seeds (units; both depths "
            "now share each seed's stream): Student-t bounds on the mean paired gain against "
            "0.05, pooled over root seeds (the rule of docs/verdicts.md)",
            reason="z = 2 over 3 seeds is not a 95% interval (t_{0.975,2} = 4.3), and a paired "
            "unit removes the seed-to-seed variance both depths share",
            before="INCONCLUSIVE (quick: full scale only; full: Δ −0.21 ± 0.19, interval [−0.59, "
            "+0.16] holds +0.05)",
        ),
    ],
    # reproduces_to not pinned: it is not run at quick
    paper_plan=ONLINE_PAPER_PLAN,
)
def online_maze(
    ctx: Context, *, task: Callable[..., dict[str, Any]] | None = None
) -> results.UnitsResult:
    """Online CRL (:func:`neural.crl.train_online_crl`) on ``#####/#RGG#/###G#/#GGG#/#####``
    with actor and critic at D ∈ {4, 16}, width 64, 3 seeds (``--scale paper``: D ∈ {4, 64},
    width 256, checkpointed every 10 epochs). Training goals: all G cells
    (commanded for acting only; learning uses in-episode relabeled future states). Score: the
    success rate on the three far goals (bottom row, ≥ 4 moves from the start, behind the wall)
    under the deterministic policy, mean over the last 3 evaluations; time at goal is reported
    beside it. Decided by :data:`ONLINE_RULE` on the paired per-seed success gains. ``task``
    replaces the training run (default :func:`neural.crl.train_online_crl`)."""
    if ctx.scale == "quick":
        return _online_quick()
    if task is None:
        from neural.crl import train_online_crl as task

    size = ctx.pick(quick=ONLINE_SIZES, full=ONLINE_SIZES, paper=ONLINE_PAPER_SIZES)
    params = [{"depth": d, **size["task"]} for d in size["depths"]]
    records = ctx.sweep(task, params, name="online", n_seeds=size["n_seeds"], paired_seeds=True)
    runs = {d: [r["result"] for r in records if r["params"]["depth"] == d] for d in size["depths"]}
    success, at_goal = success_by_depth(records), success_by_depth(records, "final_time_at_goal")
    shallow, deep = size["depths"][0], size["depths"][-1]
    reported = _reported_success(ctx, task, params, size["n_seeds"])
    maze = GridMaze.from_layout(size["task"].get("layout", U_SMALL))
    return results.UnitsResult(
        units=online_units(success[deep], success[shallow]),
        summary=_online_summary(size, runs, success, at_goal, reported),
        measured=_online_measured(success, at_goal, reported, shallow, deep),
        expected=_online_expected(),
        arrays={f"success.{d}": success[d] for d in runs}
        | {f"time_at_goal.{d}": at_goal[d] for d in runs},
        draw=lambda _: online_figure(runs, reported, maze, PAPER_ANT_U4_TIME_AT_GOAL),
    )
