"""Claims of "Faster R-CNN: Towards Real-Time Object Detection with Region Proposal Networks" (Ren,
He, Girshick and Sun; NeurIPS 2015, test-of-time award 2025) that are checkable without training:
anchors, anchor counts, parameter counts, translation equivariance and anchor coverage.

arXiv 1506.01497. The expected values come from the paper and from the authors' released code,
``rbgirshick/py-faster-rcnn``, run once to tabulate them; docs/faster_rcnn.md sets out the
conventions and which number comes from where.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

import numpy as np

from neural.rpn import rpn_numel_counts
from paper_checks.claims import claim
from paper_checks.context import Context
from paper_checks.figures.faster_rcnn import (
    anchor_count_figure,
    anchors_figure,
    coverage_figure,
    param_ratio_figure,
    translation_figure,
)
from paper_checks.paper_scale import PaperSizes
from paper_checks.results import CheckResult, Verdict
from sims.boxes import (
    ShiftResponse,
    best_iou_per_band,
    percent_reaching,
    random_boxes,
    shift_response,
    shift_violations,
)
from theory import anchors as an
from theory.significance import binomial_se_percent, worst_tolerance_ratio

#: What ``--scale paper`` does with every claim of this paper
#: (:mod:`paper_checks.paper_scale`).
PAPER_PLAN = PaperSizes(
    sizes="the paper's setting at every scale: VGG-16 stride 16, 3 scales × 3 ratios, "
    "a 1000 × 600 image",
    basis="the full reference run",
    same_as_full=True,
)


#: generate_anchors() of the released code (0-based inclusive), ratio-major: our reference table,
#: tabulated by running it.
SPEC_ANCHORS = np.array(
    [
        [-84, -40, 99, 55], [-176, -88, 191, 103], [-360, -184, 375, 199],
        [-56, -56, 71, 71], [-120, -120, 135, 135], [-248, -248, 263, 263],
        [-36, -80, 51, 95], [-80, -168, 95, 183], [-168, -344, 183, 359],
    ],
    dtype=float,
)  # fmt: skip
#: (height, width) -> (total anchors, fully inside), allowed_border = 0: our reference counts,
#: computed with the released code's rounding (the paper gives only ≈20k / ≈6k for 1000×600).
SPEC_COUNTS = {
    (600, 1000): (21_546, 8_151),
    (600, 800): (17_100, 5_944),
    (600, 600): (12_996, 3_938),
}
#: Output layers, and with the 3×3 layer (MultiBox's total as the paper gives it, §3.1.1).
SPEC_PARAMS = {
    "rpn_output": 27_648,
    "multibox_output": 6_144_000,
    "rpn_head": 2_386_944,
    "multibox_head": 27_820_032,
}
#: Our seed-0 pilot Monte Carlo, run while planning the check (not the paper's numbers): % of
#: boxes whose best anchor IoU reaches .7 / .5 / .3.
SPEC_COVERAGE = {(128, 256): (49, 100, 100), (64, 128): (23, 53, 90), (32, 64): (0, 0, 0)}
SPEC_SMALL_MEDIAN = 0.13
#: IoU of equal squares offset by half a stride (8, 8), a = 128, 256, 512 (computed by hand).
SPEC_HALF_STRIDE = (0.784, 0.884, 0.940)


# ---------------------------------------------------------------------------------- anchors_exact
def _anchors_summary(
    got: np.ndarray, max_diff: float, root_area: np.ndarray, ratio: np.ndarray
) -> str:
    if got.shape != SPEC_ANCHORS.shape:
        return f"generated {got.shape} anchors, expected {SPEC_ANCHORS.shape}"
    return (
        f"max |generated − reference| = {max_diff:g} px over 9 × 4 coordinates; √area "
        + ", ".join(f"{v:.1f}" for v in root_area[::3])
        + f" (×2, ×4); ratio h/w {ratio[0]:.3f}, {ratio[3]:g}, {ratio[6]:g}"
    )


@claim(
    "faster_rcnn.anchors_exact",
    paper="faster_rcnn",
    statement="The 9 reference anchors (scales 128², 256², 512² × ratios 1:2, 1:1, 2:1 on a 16-px "
    "base) are, with the code's rounding, exactly the released code's boxes; their √area is "
    "132.9/128/124.5 "
    "(×2, ×4) and the low ratio 0.522.",
    source="Ren et al. 2015 (NeurIPS 2015; arXiv 1506.01497), §3.1.1 Anchors; generate_anchors.py "
    "of the released py-faster-rcnn",
    rule="PASS when all 9 × 4 generated coordinates equal the table of the released code's "
    "generate_anchors() exactly (0 px); FAIL "
    "when any coordinate differs or the shape is not 9 × 4. Deterministic: never INCONCLUSIVE.",
    stochastic=False,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def anchors_exact(
    ctx: Context, *, generate: Callable[[], np.ndarray] = an.generate_anchors
) -> CheckResult:
    """Every coordinate equals the released code's table (0-based inclusive pixels)."""
    got = np.asarray(generate(), dtype=float)
    same_shape = got.shape == SPEC_ANCHORS.shape
    max_diff = float(np.max(np.abs(got - SPEC_ANCHORS))) if same_shape else float("inf")
    root_area, ratio = an.sqrt_areas_and_ratios(got) if same_shape else (np.array([]), np.array([]))
    fig = anchors_figure(got, SPEC_ANCHORS, max_diff)
    return CheckResult(
        verdict=Verdict.of(max_diff == 0.0),
        summary=_anchors_summary(got, max_diff, root_area, ratio),
        measured={"anchors": got, "sqrt_area": root_area, "ratio": ratio, "max_abs_diff": max_diff},
        expected={
            "anchors": SPEC_ANCHORS,
            "sqrt_area_scale8": [132.9, 128.0, 124.5],
            "low_ratio": 0.522,
            "max_abs_diff": 0.0,
        },
        tolerance="exact (0 px)",
        figures=ctx.save_figure(fig),
        arrays={"anchors": got},
    )


# ---------------------------------------------------------------------------------- anchor_count
@claim(
    "faster_rcnn.anchor_count",
    paper="faster_rcnn",
    statement="A 1000×600 image has about 20,000 anchors (≈ 60×40×9), about 6,000 of them fully "
    "inside the image (exactly 21,546 and 8,151 with the code's rounding).",
    source="Ren et al. 2015 (NeurIPS 2015; arXiv 1506.01497), §3.3 Implementation Details",
    rule="PASS when the total and the fully-inside anchor counts equal our reference counts (the "
    "released code's rounding) for 600×1000, "
    "600×800 and 600×600; FAIL when any of the six counts differs. Deterministic: never "
    "INCONCLUSIVE.",
    stochastic=False,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def anchor_count(
    ctx: Context, *, count: Callable[[int, int], an.AnchorCount] = an.anchor_count
) -> CheckResult:
    """Total H'·W'·9 anchors (conv5 side = ⌈·/2⌉ four times) and those fully inside
    (allowed_border 0), for 600×1000, 600×800 and 600×600: each equals the reference count."""
    sizes = list(SPEC_COUNTS)
    got = [count(h, w) for h, w in sizes]
    measured = np.array([[c.total, c.inside] for c in got])
    expected = np.array([SPEC_COUNTS[s] for s in sizes])
    passed = bool(np.array_equal(measured, expected))
    fig = anchor_count_figure(sizes, measured, expected)
    c0 = got[0]
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"600×1000: {c0.feature_height}×{c0.feature_width}×9 = {c0.total:,} anchors, "
        f"{c0.inside:,} inside (reference 21,546 / 8,151; paper ≈20k / ≈6k); 600×800 and 600×600: "
        + ", ".join(f"{t:,}/{i:,}" for t, i in measured[1:]),
        measured={"sizes": sizes, "total": measured[:, 0], "inside": measured[:, 1]},
        expected={"sizes": sizes, "total": expected[:, 0], "inside": expected[:, 1]},
        tolerance="exact",
        figures=ctx.save_figure(fig),
        arrays={"counts": measured},
    )


# ---------------------------------------------------------------------------------- param_ratio
def _param_summary(
    measured: dict[str, int], ratio_out: float, ratio_head: float, numel: object, agree: bool
) -> str:
    torch = "not checked (no torch)" if numel is None else "agrees" if agree else "DISAGREES"
    return (
        f"RPN output {measured['rpn_output']:,} vs MultiBox {measured['multibox_output']:,} "
        f"({ratio_out:.0f}×); with the 3×3 layer {measured['rpn_head']:,} vs 27,820,032 "
        f"({ratio_head:.1f}×); torch numel " + torch
    )


@claim(
    "faster_rcnn.param_ratio",
    paper="faster_rcnn",
    statement="The RPN's output layer has 2.8×10⁴ parameters (512×(4+2)×9 for VGG-16), two orders "
    "of magnitude fewer than MultiBox's 6.1×10⁶ (1536×(4+1)×800).",
    source="Ren et al. 2015 (NeurIPS 2015; arXiv 1506.01497), §3.1.1 Translation-Invariant "
    "Anchors (parameter counts)",
    rule="PASS when the RPN output, MultiBox output and RPN head (with the 3×3 layer) counts equal "
    "27,648, 6,144,000 and 2,386,944 and, where torch is installed, the layers' numel agrees; FAIL "
    "when any count differs. Deterministic: never INCONCLUSIVE.",
    stochastic=False,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def param_ratio(
    ctx: Context,
    *,
    rpn_output: Callable[[], int] = an.rpn_output_params,
    multibox_output: Callable[[], int] = an.multibox_output_params,
    rpn_head: Callable[[], int] = an.rpn_head_params,
) -> CheckResult:
    """Counts from the layer shapes (and from torch ``numel`` when torch is installed) equal
    27,648, 6,144,000 and, with the 3×3 layer, 2,386,944 (vs the paper's 27,820,032 for MultiBox)."""
    measured = {
        "rpn_output": int(rpn_output()),
        "multibox_output": int(multibox_output()),
        "rpn_head": int(rpn_head()),
    }
    numel = rpn_numel_counts()
    agree_numel = numel is None or all(numel[k] == measured[k] for k in numel)
    passed = all(measured[k] == SPEC_PARAMS[k] for k in measured) and agree_numel
    ratio_out = measured["multibox_output"] / measured["rpn_output"]
    ratio_head = SPEC_PARAMS["multibox_head"] / measured["rpn_head"]
    fig = param_ratio_figure(measured, SPEC_PARAMS, ratio_out, ratio_head)
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=_param_summary(measured, ratio_out, ratio_head, numel, agree_numel),
        measured={**measured, "numel": numel, "ratio_output": ratio_out, "ratio_head": ratio_head},
        expected={**SPEC_PARAMS, "ratio_output": 222.2, "ratio_head": 11.7},
        tolerance="exact parameter counts; numel of the torch layers equals the shape formula",
        figures=ctx.save_figure(fig),
    )


# ------------------------------------------------------------------------ translation_equivariance
def _translation_summary(r: ShiftResponse) -> str:
    i16 = int(np.flatnonzero(r.shift_px == 16)[0])
    off = r.label_mismatch[r.shift_px % an.STRIDE != 0]
    return (
        f"shift 16 px: {r.label_mismatch[i16]:.0%} of labels differ from the one-cell roll, "
        f"grid error {r.grid_error_px[i16]:g} px, best-IoU change {r.best_iou_change[i16]:.0e} "
        f"(MultiBox-like {r.multibox_best_iou_change[i16]:.3f}); off-stride shifts change "
        f"{off.min():.2%}–{off.max():.2%} of labels"
    )


@claim(
    "faster_rcnn.translation_equivariance",
    paper="faster_rcnn",
    statement="Anchors are translation invariant: shifting an image by the stride (16 px) shifts "
    "the anchor set, and so every anchor's label, by exactly one feature cell; MultiBox's fixed "
    "anchors are not.",
    source="Ren et al. 2015 (NeurIPS 2015; arXiv 1506.01497), §3.1.1 Translation-Invariant Anchors",
    rule="PASS when, for the random objects, every shift by a multiple of 16 px changes 0 labels "
    "against the one-cell roll with grid error ≤ 1e-9 px and best-IoU change ≤ 1e-12, every other "
    "shift changes > 0 labels, and 800 fixed MultiBox-like anchors change the best IoU at 16 px; "
    "FAIL when any of these conditions fails (statistic: the number that fail). Never INCONCLUSIVE.",
    stochastic=True,
    statistic="violations",
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def translation_equivariance(
    ctx: Context, *, grid: Callable[[int, int], np.ndarray] = an.anchor_grid
) -> CheckResult:
    """Objects (random boxes in the image's middle) are shifted by s = 0, 4, …, 32 px along both
    axes. At s = 16j the anchor grid shifted by j cells equals the grid plus s (to the pixel), the
    training labels (IoU ≥ 0.7 or argmax positive, < 0.3 negative) equal the originals rolled by j
    cells, and each object's best anchor IoU is unchanged; at other s some labels change. A fixed
    set of 800 anchors (MultiBox-like) changes best IoUs even at s = 16."""
    height, width = 600, 1000
    n_obj = ctx.pick(quick=12, full=40)
    objects = (
        random_boxes(n_obj, (64, 256), image=(height - 200, width - 200), rng=ctx.rng("objects"))
        + 64
    )
    multibox = random_boxes(800, (32, 400), image=(height, width), rng=ctx.rng("multibox"))
    anchors = np.asarray(grid(height, width), dtype=float)  # (H', W', k, 4)
    response = shift_response(anchors, objects, multibox, np.arange(0, 33, 4))
    passed, violations = shift_violations(response)  # violations: 0 ⟺ PASS
    fig = translation_figure(response, an.STRIDE)
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=_translation_summary(response),
        measured={**asdict(response), "violations": violations},
        expected={
            "violations": 0,
            "label_mismatch_at_stride_multiples": 0.0,
            "grid_error_px": 0.0,
            "best_iou_change_at_stride_multiples": 0.0,
        },
        tolerance="exactly 0 changed labels, grid error ≤ 1e-9 px and best-IoU change ≤ 1e-12 at "
        "multiples of 16 px; > 0 changed labels at the other shifts",
        figures=ctx.save_figure(fig),
        arrays={"objects": objects, "label_mismatch": response.label_mismatch},
    )


# --------------------------------------------------------------------------------------- coverage
#: The expected values of the coverage claim besides the reference table of shares.
COVERAGE_EXPECTED = {
    "median_best_iou_32_64": SPEC_SMALL_MEDIAN,
    "half_stride_iou": list(SPEC_HALF_STRIDE),
    "square_iou_07_interval": [[107, 153], [214, 306], [428, 612]],
    "square_iou_05_from_to": [90.5, 724],
    "worst_tolerance_ratio": 1.0,
}


def _coverage_summary(
    bands: list[tuple[int, int]], measured: np.ndarray, median_small: float, half: list[float]
) -> str:
    return (
        "best IoU ≥ .7/.5/.3: "
        + "; ".join(
            f"{lo}–{hi} px {m[0]:.0f}/{m[1]:.0f}/{m[2]:.0f}%"
            for (lo, hi), m in zip(bands, measured, strict=True)
        )
        + f" (our pilot 49/100/100, 23/53/90, 0/0/0); median best IoU at 32–64 px {median_small:.3f} "
        f"(pilot .13); half-stride IoU {', '.join(f'{v:.3f}' for v in half)}"
    )


@claim(
    "faster_rcnn.coverage",
    paper="faster_rcnn",
    statement="The 3 scales × 3 ratios cover objects of 128–512 px well but leave small objects "
    "without positive anchors by IoU: 49% / 23% / 0% of boxes with sides 128–256 / 64–128 / 32–64 "
    "reach IoU ≥ 0.7 with some anchor.",
    source="Ren et al. 2015 (NeurIPS 2015; arXiv 1506.01497), §3.1.1 Multi-Scale Anchors; the "
    "shares are our Monte Carlo, not the paper's",
    rule="PASS when every band × IoU-threshold share is within 3 binomial s.e. + 1 point of our "
    "seed-0 pilot (docs/faster_rcnn.md), the median best IoU of 32–64 px boxes within 0.02 of "
    "0.13 and the half-stride IoUs within 5e-4 of .784/.884/.940, i.e. worst |measured − "
    "reference| / tolerance ≤ 1; FAIL when "
    "that worst ratio exceeds 1. Never INCONCLUSIVE.",
    stochastic=True,
    statistic="worst_tolerance_ratio",
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
)
def coverage(ctx: Context, *, base_anchors: np.ndarray | None = None) -> CheckResult:
    """Monte Carlo (sides log-uniform in each band, aspect log-uniform in [0.5, 2], positions
    uniform in 600×1000; continuous IoU against all 21,546 anchors): the share of boxes whose best
    IoU reaches .7/.5/.3 is within 3 s.e. + 1 point (the reference is rounded to whole %) of our
    seed-0 pilot, and the median best IoU of 32–64 px boxes within 0.02 of 0.13. Exact side remarks:
    half-stride offsets give IoU .784/.884/.940, and centred squares reach 0.7 only for sides
    in [a√.7, a/√.7]."""
    anchors = an.anchor_grid(600, 1000, base_anchors=base_anchors)
    n = ctx.pick(quick=1500, full=10_000)
    thresholds, bands, sides = np.array([0.7, 0.5, 0.3]), list(SPEC_COVERAGE), (128, 256, 512)
    best = best_iou_per_band(anchors, bands, n, rng={b: ctx.rng(f"{b}") for b in bands})
    measured = percent_reaching(best, thresholds)  # (bands, thresholds), %
    expected = np.array([SPEC_COVERAGE[b] for b in bands], dtype=float)
    allowed = 3 * binomial_se_percent(expected, n) + 1.0
    median_small, half = float(np.median(best[(32, 64)])), an.half_stride_iou(sides)
    worst_ratio = worst_tolerance_ratio(  # PASS ⟺ every gated quantity within its tolerance
        (measured, expected, allowed),
        (median_small, SPEC_SMALL_MEDIAN, 0.02),
        (half, SPEC_HALF_STRIDE, 5e-4),
    )
    fig = coverage_figure(bands, thresholds, measured, expected, allowed, best)
    return CheckResult(
        verdict=Verdict.of(worst_ratio <= 1.0),
        summary=_coverage_summary(bands, measured, median_small, half),
        measured={
            "bands": bands,
            "percent_reaching": measured,
            "median_best_iou_32_64": median_small,
            "half_stride_iou": half,
            "square_iou_07_interval": [an.square_iou_interval(a, 0.7) for a in sides],
            "square_iou_05_interval": [an.square_iou_interval(a, 0.5) for a in sides],
            "boxes_per_band": n,
            "worst_tolerance_ratio": worst_ratio,
        },
        expected={"percent_reaching": expected, **COVERAGE_EXPECTED},
        tolerance="|measured − pilot| ≤ 3 binomial s.e. + 1 point per cell; median within 0.02; "
        f"half-stride IoU within 5e-4 (worst ratio to its tolerance {worst_ratio:.2f} ≤ 1)",
        figures=ctx.save_figure(fig),
        arrays={f"best_iou_{lo}_{hi}": best[(lo, hi)] for lo, hi in bands},
    )
