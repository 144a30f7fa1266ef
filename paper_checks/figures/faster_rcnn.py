"""Figures of the faster_rcnn claims: each draws what its check measured beside the reference
numbers (theory in black)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paper_checks.plotting import THEORY, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from sims.boxes import ShiftResponse

__all__ = [
    "anchor_count_figure",
    "anchors_figure",
    "coverage_figure",
    "param_ratio_figure",
    "translation_figure",
]


def _rect(box: np.ndarray, **kwargs: Any) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle(
        (box[0], box[1]), box[2] - box[0] + 1, box[3] - box[1] + 1, fill=False, **kwargs
    )


def anchors_figure(got: np.ndarray, spec: np.ndarray, max_diff: float) -> Figure:
    """The generated reference anchors (coloured by ratio) over the reference table (dashed)."""
    fig, ax = new_figure(figsize=(4.6, 4.6))
    for box in spec:
        ax.add_patch(_rect(box, edgecolor=THEORY, ls="--", lw=1.2))
    for i, box in enumerate(got):
        ax.add_patch(_rect(box, edgecolor=f"C{i // 3}", lw=0.8))
    ax.plot([], [], "--", color=THEORY, label="spec table (theory)")
    ax.plot([], [], "-", color="C0", label="generated (measured)")
    ax.set_xlim(-400, 420)
    ax.set_ylim(400, -400)
    ax.set_aspect("equal")
    ax.set_title(f"max |generated − spec| = {max_diff:g} px", fontsize="small")
    ax.legend(fontsize="small", loc="lower right")
    return fig


def anchor_count_figure(
    sizes: Sequence[tuple[int, int]], measured: np.ndarray, expected: np.ndarray
) -> Figure:
    """All and fully-inside anchor counts per image size (bars) against the reference counts (ticks)."""
    fig, ax = new_figure()
    x = np.arange(len(sizes))
    ax.bar(x - 0.2, measured[:, 0], 0.4, label="all anchors (measured)")
    ax.bar(x + 0.2, measured[:, 1], 0.4, label="fully inside (measured)")
    ax.plot(x - 0.2, expected[:, 0], "_", color=THEORY, ms=18, mew=2, label="spec (theory)")
    ax.plot(x + 0.2, expected[:, 1], "_", color=THEORY, ms=18, mew=2)
    ax.axhline(20_000, color="0.5", ls=":", lw=1, label="paper: ≈20k / ≈6k")
    ax.axhline(6_000, color="0.5", ls=":", lw=1)
    ax.set_xticks(x, [f"{h}×{w}" for h, w in sizes])
    ax.set_ylabel("anchors")
    ax.legend(fontsize="small")
    return fig


def param_ratio_figure(
    measured: Mapping[str, int], spec: Mapping[str, int], ratio_out: float, ratio_head: float
) -> Figure:
    """Parameter counts of the RPN and MultiBox layers (log scale) against the reference counts."""
    fig, ax = new_figure()
    names = ["rpn_output", "multibox_output", "rpn_head", "multibox_head"]
    values = [measured.get(k, spec[k]) for k in names]
    ax.bar(
        range(4),
        values,
        0.6,
        color=["C0", "C1", "C0", "C1"],
        label="measured (MultiBox head: paper)",
    )
    ax.plot(
        range(4), [spec[k] for k in names], "_", color=THEORY, ms=22, mew=2, label="spec (theory)"
    )
    ax.set_yscale("log")
    ax.set_xticks(
        range(4), ["RPN out", "MultiBox out", "RPN + 3×3", "MultiBox + proj."], fontsize="small"
    )
    ax.set_ylabel("parameters")
    ax.set_title(
        f"output layers: {ratio_out:.0f}×; with the 3×3 layer: {ratio_head:.1f}×", fontsize="small"
    )
    ax.legend(fontsize="small")
    return fig


def translation_figure(r: ShiftResponse, stride: int) -> Figure:
    """Changed labels and best-IoU changes against the shift, with the stride's multiples."""
    fig, ax = new_figure()
    ax.plot(
        r.shift_px, r.label_mismatch, "o-", mfc="none", label="anchor labels changed (measured)"
    )
    ax.plot(
        r.shift_px, r.multibox_best_iou_change, "s:", mfc="none",
        label="MultiBox-like: max |Δ best IoU|",
    )  # fmt: skip
    ax.plot(r.shift_px, r.best_iou_change, "^", mfc="none", label="RPN anchors: max |Δ best IoU|")
    for s in r.shift_px[r.shift_px % stride == 0]:
        ax.axvline(s, color=THEORY, lw=0.8, ls="--")
    ax.plot([], [], "--", color=THEORY, label="theory: 0 at multiples of 16 px")
    ax.set_xlabel("shift of the objects (px, both axes)")
    ax.set_ylabel("fraction / IoU change")
    ax.legend(fontsize="small")
    return fig


def coverage_figure(
    bands: Sequence[tuple[int, int]],
    thresholds: np.ndarray,
    measured: np.ndarray,
    expected: np.ndarray,
    allowed: np.ndarray,
    best: Mapping[tuple[int, int], np.ndarray],
) -> Figure:
    """Left: % of boxes per band reaching each IoU threshold, against the reference ± tolerance.
    Right: the histograms of the best anchor IoU per band."""
    fig, (ax, ax_h) = new_figure(ncols=2)
    x = np.arange(len(bands))
    for j, t in enumerate(thresholds):
        ax.bar(x + (j - 1) * 0.27, measured[:, j], 0.27, label=f"IoU ≥ {t:g} (measured)")
        ax.errorbar(
            x + (j - 1) * 0.27,
            expected[:, j],
            yerr=allowed[:, j],
            fmt="_",
            color=THEORY,
            ms=10,
            label="spec ± tolerance (theory)" if j == 0 else None,
        )
    ax.set_xticks(x, [f"{lo}–{hi}" for lo, hi in bands])
    ax.set_xlabel("box side √(wh) (px)")
    ax.set_ylabel("% of boxes")
    ax.legend(fontsize="x-small")
    for b in bands:
        ax_h.hist(best[b], bins=40, range=(0, 1), histtype="step", label=f"{b[0]}–{b[1]} px")
    for t in thresholds:
        ax_h.axvline(t, color=THEORY, ls=":", lw=1)
    ax_h.set_xlabel("best IoU with any anchor")
    ax_h.set_ylabel("boxes")
    ax_h.legend(fontsize="small")
    return fig
