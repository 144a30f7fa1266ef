"""
How well the anchors cover boxes of every size (Faster R-CNN)
=============================================================

"Faster R-CNN" (Ren, He, Girshick, Sun; NeurIPS 2015, the test-of-time award of 2025), §3.1.1: 9
anchors (3 scales × 3 aspect ratios, :func:`theory.anchors.generate_anchors`) at each of the
38 × 63 cells of a 600 × 1000 image's conv5 map (:func:`theory.anchors.anchor_grid`). A box gets
a positive anchor when its best IoU with any anchor reaches 0.7. Random boxes
(:func:`sims.boxes.random_boxes`: side log-uniform over 16–400 px, aspect ratio log-uniform in
[0.5, 2], uniform position) against the exact envelope for a square centred on a square anchor
of side a, IoU = (min(s, a)/max(s, a))² (:func:`theory.anchors.square_iou_interval`), and the
worst case of an object centred between two anchor positions, half a 16-px stride away
(:func:`theory.anchors.half_stride_iou`).
"""

import matplotlib.pyplot as plt
import numpy as np

from paper_checks.plotting import THEORY, set_log_ticks, style
from sims.boxes import random_boxes
from theory.anchors import anchor_grid, best_anchor_iou, half_stride_iou, square_iou_interval

anchors = anchor_grid(600, 1000)
boxes = random_boxes(3000, (16, 400), rng=0)
best = best_anchor_iou(boxes, anchors, legacy=False)
side = np.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))
sides = (128, 256, 512)
print(
    f"{anchors.shape[0]} × {anchors.shape[1]} cells × {anchors.shape[2]} anchors; "
    f"boxes reaching IoU 0.7: {np.mean(best >= 0.7):.1%}; sides that reach it when centred: "
    + ", ".join(f"[{lo:.0f}, {hi:.0f}]" for lo, hi in (square_iou_interval(a, 0.7) for a in sides))
)

# %%
# Each box's best IoU against its side (dots), the centred-square envelope (black) and the
# half-stride worst case at each anchor scale (crosses).

with style():
    fig, ax = plt.subplots(figsize=(5.2, 3.6), layout="constrained")
    ax.scatter(side, best, s=3, alpha=0.35, color="C0", label="random boxes (best anchor)")
    s = np.geomspace(16, 400, 400)
    envelope = np.max([(np.minimum(s, a) / np.maximum(s, a)) ** 2 for a in sides], axis=0)
    ax.plot(s, envelope, color=THEORY, lw=1.2, label="centred square, nearest scale (exact)")
    ax.plot(
        sides,
        half_stride_iou(sides),
        "x",
        color="C3",
        ms=7,
        mew=1.5,
        label="half-stride offset (exact)",
    )
    ax.axhline(0.7, color="0.4", ls=":", lw=1, label="positive: IoU ≥ 0.7")
    ax.set(
        xscale="log",
        xlabel="box side √(w·h) (px)",
        ylabel="best IoU with an anchor",
        ylim=(0, 1.02),
    )
    set_log_ticks(ax, 16, 400)
    ax.legend(fontsize="small", loc="lower right")
