"""Figures of the gated_attention claims: each draws what its check measured on the runs of
:mod:`neural.gated_testbeds` beside the paper's numbers (Table 4, Table 1) and the thresholds of
:mod:`theory.gated_attention` (theory in black). An arm keeps its colour in every figure."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from neural.gated_testbeds import ARM_LABELS, final_stack, shared_final
from paper_checks.plotting import THEORY, new_figure
from theory.gated_attention import (
    DEGRADE_NATS,
    GATE_BELOW_MIN,
    GATE_MEAN_MAX,
    ORDER_WEAK_TOLERANCE,
    PAPER_TABLE4,
    SINK_MIN_RATIO,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from neural.gated_testbeds import LRGrid

__all__ = [
    "arm_colour",
    "gate_sparse_figure",
    "loss_figure",
    "lr_tolerance_figure",
    "massive_activations_figure",
    "plot_over_training",
    "plot_per_layer",
    "plot_sink_references",
    "sink_ordering_figure",
    "sink_removed_figure",
]

Arms = Mapping[str, Sequence[Mapping[str, Any]]]
TRAJECTORY_LABELS = {"gate_mean": "mean gate", "f_attn": "F-Attn", "val_loss": "val loss (nats)"}
PER_LAYER_LABELS = {"m_act_per_layer": "M-Act: max |residual|", "f_attn_per_layer": "F-Attn"}


def arm_colour(gate: str) -> str:
    """The colour of an arm, the same in every figure."""
    return f"C{list(ARM_LABELS).index(gate)}"


def plot_sink_references(ax: Any, uniform: float) -> list[Any]:
    """The uniform first-token weight (H_T − 1)/(T − 1) and the sink threshold 3× uniform."""
    return [
        ax.axhline(uniform, color=THEORY, ls=":", lw=1, label="uniform (H_T−1)/(T−1)"),
        ax.axhline(SINK_MIN_RATIO * uniform, color=THEORY, ls="--", lw=1,
                   label=f"sink threshold {SINK_MIN_RATIO:g}×"),
    ]  # fmt: skip


def plot_per_layer(ax: Any, arms: Arms, gates: list[str], key: str) -> list[Any]:
    """One line per finished run of each arm: the final per-layer ``key`` against the layer
    index (a diverged run has none)."""
    artists = []
    for gate in gates:
        stack = final_stack(arms[gate], key)
        for i, values in enumerate(stack):
            artists += ax.plot(range(len(values)), values, "o-", color=arm_colour(gate), lw=1,
                               alpha=0.7, label=ARM_LABELS[gate] if i == 0 else None)  # fmt: skip
    ax.set_xlabel("layer")
    ax.set_ylabel(PER_LAYER_LABELS[key])
    ax.set_xticks(range(stack.shape[-1]))
    return artists


def plot_over_training(ax: Any, arms: Arms, gates: list[str], key: str) -> list[Any]:
    """One line per run of each arm: ``key`` of the trajectory against the training step (an
    arm keeps its colour in every figure)."""
    artists = []
    for gate in gates:
        colour = arm_colour(gate)
        for i, r in enumerate(arms[gate]):
            steps = [p["step"] for p in r["trajectory"]]
            artists += ax.plot(steps, [p[key] for p in r["trajectory"]], color=colour, lw=1,
                               label=ARM_LABELS[gate] if i == 0 else None)  # fmt: skip
    ax.set_xlabel("training step")
    ax.set_ylabel(TRAJECTORY_LABELS[key])
    return artists


def gate_sparse_figure(arms: Arms, gated_arm: str) -> Figure:
    """The final gate-value histogram of each G1 arm and of NS-sigmoid (mean over seeds) with the
    0.1 line and the paper's mean gate; the mean gate over training against the 0.25 level."""
    fig, (ax_h, ax_t) = new_figure(ncols=2)
    centres = np.linspace(0.025, 0.975, 20)
    gates = [g for g in ("elementwise", "headwise", "ns_sigmoid") if g in arms]
    for gate in gates:
        hist = np.nanmean(final_stack(arms[gate], "gate_hist"), axis=0)
        ax_h.step(centres, hist, where="mid", color=arm_colour(gate), label=ARM_LABELS[gate])
    ax_h.axvline(0.1, color=THEORY, ls="--", lw=1, label=f"0.1: ≥ {GATE_BELOW_MIN:.0%} below")
    ax_h.axvline(
        PAPER_TABLE4[gated_arm]["gate_mean"] or 0.0, color=THEORY, lw=1.2,
        label="paper's mean gate (Table 4)",
    )  # fmt: skip
    ax_h.set_xlabel("gate value σ(x W_θ)")
    ax_h.set_ylabel("share of gate values")
    ax_h.set_yscale("log")
    ax_h.legend(fontsize="small")
    plot_over_training(ax_t, arms, gates, "gate_mean")
    ax_t.axhline(GATE_MEAN_MAX, color=THEORY, ls="--", lw=1,
                 label=f"{GATE_MEAN_MAX:g} (claim: mean at most this)")  # fmt: skip
    ax_t.axhline(PAPER_TABLE4[gated_arm]["gate_mean"] or 0.0, color=THEORY, lw=1.2,
                 label="paper (Table 4)")  # fmt: skip
    ax_t.legend(fontsize="small")
    return fig


def massive_activations_figure(
    arms: Arms, gated_arm: str, m_base: np.ndarray, m_gated: np.ndarray
) -> Figure:
    """M-Act and F-Attn per layer of every run (the Fig. 2 analogue), and each paired seed's
    M-Act, baseline against gated."""
    fig, (ax, ax_f, ax_r) = new_figure(ncols=3)
    plot_per_layer(ax, arms, ["none", gated_arm], "m_act_per_layer")
    ax.set_title(f"paper (Table 4): {PAPER_TABLE4['none']['m_act']:g} → "
                 f"{PAPER_TABLE4[gated_arm]['m_act']:g}", fontsize="small")  # fmt: skip
    ax.legend(fontsize="small")
    plot_per_layer(ax_f, arms, ["none", gated_arm], "f_attn_per_layer")
    ax_f.axhline(shared_final(arms["none"], "uniform"), color=THEORY, ls=":", lw=1, label="uniform")
    ax_f.set_title("Fig. 2 analogue on the text LM", fontsize="small")
    ax_f.legend(fontsize="small")
    seeds = np.arange(len(m_base))
    ax_r.plot(seeds, m_base, "o", label="baseline M-Act")
    ax_r.plot(seeds, m_gated, "s", label=f"{ARM_LABELS[gated_arm]} M-Act")
    ax_r.plot(seeds, m_base, "-", color=THEORY, lw=0.8, label="claim: gated below this line")
    ax_r.set_xlabel("paired seed")
    ax_r.set_ylabel("M-Act (mean over layers)")
    ax_r.set_xticks(seeds)
    ax_r.legend(fontsize="small")
    return fig


def sink_removed_figure(
    arms: Arms,
    gated_arm: str,
    f_base: np.ndarray,
    f_gated: np.ndarray,
    others: Mapping[str, np.ndarray],
    uniform: float,
) -> Figure:
    """Each paired seed's final F-Attn per arm against the uniform value and the sink threshold,
    and F-Attn over training of the baseline and the gated arm."""
    fig, (ax, ax_s) = new_figure(ncols=2)
    seeds = np.arange(len(f_base))
    ax.plot(seeds, f_base, "o", color=arm_colour("none"), label="baseline")
    ax.plot(seeds, f_gated, "s", color=arm_colour(gated_arm), label=ARM_LABELS[gated_arm])
    for j, (gate, values) in enumerate(others.items()):
        ax.plot(seeds, values, "^v<>"[j % 4], color=arm_colour(gate), label=ARM_LABELS[gate])
    plot_sink_references(ax, uniform)
    ax.set_xlabel("paired seed")
    ax.set_ylabel("F-Attn (weight on token 0)")
    ax.set_xticks(seeds)
    ax.legend(fontsize="small")
    plot_over_training(ax_s, arms, ["none", gated_arm], "f_attn")
    ax_s.axhline(uniform, color=THEORY, ls=":", lw=1, label="uniform")
    ax_s.set_title(f"paper (Table 4): {PAPER_TABLE4['none']['f_attn']} → "
                   f"{PAPER_TABLE4[gated_arm]['f_attn']}", fontsize="small")  # fmt: skip
    ax_s.legend(fontsize="small")
    return fig


def loss_figure(arms: Arms, gated_arm: str, diff: np.ndarray, low: float, high: float) -> Figure:
    """Each paired seed's Δ = L(gated) − L(baseline) with the decision's t bounds of the mean and
    the paper's Δ, and the val loss of both arms over training."""
    fig, (ax, ax_c) = new_figure(ncols=2)
    seeds = np.arange(len(diff))
    ax.plot(seeds, diff, "o", label="Δ = L(gated) − L(baseline)")
    ax.axhline(0, color=THEORY, lw=1, label="no difference")
    ax.axhline(math.log(5.761 / 6.026), color=THEORY, ls=":", lw=1, label="paper Δ (Table 1)")
    if math.isfinite(low) and math.isfinite(high):
        ax.axhspan(low, high, color="C0", alpha=0.15, label="t bounds of mean Δ (the decision)")
    ax.set_xlabel("paired seed")
    ax.set_ylabel("Δ val loss (nats/byte)")
    ax.set_xticks(seeds)
    ax.legend(fontsize="small")
    plot_over_training(ax_c, arms, ["none", gated_arm], "val_loss")
    ax_c.legend(fontsize="small")
    return fig


def lr_tolerance_figure(
    lrs: Sequence[float], base: LRGrid, gated: LRGrid, gated_arm: str
) -> Figure:
    """Final val loss against the peak LR per seed of the baseline (``base``) and the gated arm,
    with each seed's best loss + 0.05 nats (degraded above), and seed 0's train loss at each
    LR."""
    grids = {"none": base, gated_arm: gated}
    fig, (ax, ax_c) = new_figure(ncols=2)
    for gate, marker in (("none", "o"), (gated_arm, "s")):
        for i, row in enumerate(grids[gate].loss):  # diverged runs (NaN) leave a gap
            ax.plot(lrs, row, marker + "-", color=arm_colour(gate), lw=1,
                    label=ARM_LABELS[gate] if i == 0 else None)  # fmt: skip
    for gate in ("none", gated_arm):
        best = np.fmin.reduce(grids[gate].loss, axis=1)  # (seeds,)
        for i, value in enumerate(best):
            ax.axhline(value + DEGRADE_NATS, color=arm_colour(gate), ls=":", lw=1,
                       label=f"best LR + {DEGRADE_NATS:g}: degraded above" if i == 0 else None)  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("peak learning rate")
    ax.set_ylabel("final val loss (nats/byte)")
    ax.legend(fontsize="small")
    for gate in ("none", gated_arm):
        for lr, r, style in zip(
            lrs, grids[gate].first_seed, ["-", "--", "-.", ":"] * 3, strict=False
        ):
            every = r["settings"]["eval_every"]
            steps = every * (np.arange(len(r["train_loss"])) + 1)
            ax_c.plot(steps, r["train_loss"], style, color=arm_colour(gate), lw=1,
                      label=f"{ARM_LABELS[gate]}, LR {lr:g}")  # fmt: skip
    ax_c.set_xlabel("training step")
    ax_c.set_ylabel("train loss (seed 0; chunk means)")
    ax_c.set_yscale("log")
    ax_c.legend(fontsize="x-small")
    return fig


def _relation_label(name: str) -> str:
    a, op, b = name.split()
    return f"{ARM_LABELS[a]} {op.replace('>=', '≥')} {ARM_LABELS[b]}"


def sink_ordering_figure(
    f_attn: Mapping[str, np.ndarray],
    has_sink: np.ndarray,
    uniform: float,
    relations: Mapping[str, Mapping[str, Any]],
) -> Figure:
    """Each seed's final F-Attn per arm (``f_attn``: arm -> per seed; a seed without a baseline
    sink crossed out) beside Table 4's, and each relation's per-seed log ratio with the mean and
    t bounds of the decision against the margins 0 ('>') and −ln 2 ('≥')."""
    fig, (ax, ax_r) = new_figure(ncols=2, figsize=(10, 3.8))
    shown = list(f_attn)
    x = np.arange(len(shown))
    for i, gate in enumerate(shown):
        values = f_attn[gate]
        jitter = np.linspace(-0.15, 0.15, len(values))
        ax.plot(i + jitter[has_sink], values[has_sink], "o", color=arm_colour(gate),
                label="seed with a baseline sink" if i == 0 else None)  # fmt: skip
        ax.plot(i + jitter[~has_sink], values[~has_sink], "x", color=arm_colour(gate), alpha=0.6,
                label="seed without (not counted)" if i == 0 else None)  # fmt: skip
        paper = PAPER_TABLE4.get(gate, {}).get("f_attn")
        if paper is not None:
            ax.plot(i, paper, "D", mfc="none", color=THEORY,
                    label="paper Table 4 (MoE)" if gate == "none" else None)  # fmt: skip
    plot_sink_references(ax, uniform)
    ax.set_xticks(x, [ARM_LABELS[g] for g in shown], rotation=30, ha="right", fontsize="small")
    ax.set_yscale("log")
    ax.set_ylabel("F-Attn (weight on token 0)")
    ax.legend(fontsize="x-small")
    names = list(relations)
    for j, name in enumerate(names):
        r = relations[name]
        ax_r.plot(r["log_ratio"], np.full(len(r["log_ratio"]), j), "o", mfc="none", color="C0",
                  label="per seed" if j == 0 else None)  # fmt: skip
        low, high = r["bounds"]
        if math.isfinite(low) and math.isfinite(high):
            ax_r.errorbar(
                r["mean"], j, xerr=[[r["mean"] - low], [high - r["mean"]]], fmt="s", color="C3",
                capsize=3, label="mean, t bounds (the decision)" if j == 0 else None,
            )  # fmt: skip
    ax_r.axvline(0, color=THEORY, lw=1.2, label="margin of '>': 0")
    ax_r.axvline(-ORDER_WEAK_TOLERANCE, color=THEORY, ls="--", lw=1, label="margin of '≥': −ln 2")
    ax_r.set_yticks(range(len(names)), [_relation_label(n) for n in names], fontsize="small")
    ax_r.set_xlabel("ln F-Attn(right) / F-Attn(left)  (> 0: left removes more)")
    ax_r.legend(fontsize="x-small")
    return fig
