"""Faster R-CNN geometry: the expected outputs of docs/faster_rcnn.md and brute-force oracles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from paper_checks.checks.faster_rcnn import SPEC_ANCHORS
from tests import naive
from theory import anchors as an

coords = st.floats(-50, 250, allow_nan=False)


@st.composite
def boxes(draw, max_boxes: int = 8):
    rows = []
    for _ in range(draw(st.integers(1, max_boxes))):
        x, y = draw(coords), draw(coords)
        rows.append([x, y, x + draw(st.floats(1, 200)), y + draw(st.floats(1, 200))])
    return np.array(rows)


def test_reference_anchors_are_the_spec_table():
    assert np.array_equal(an.generate_anchors(), SPEC_ANCHORS)
    w = SPEC_ANCHORS[:, 2] - SPEC_ANCHORS[:, 0] + 1
    h = SPEC_ANCHORS[:, 3] - SPEC_ANCHORS[:, 1] + 1
    assert np.sqrt(w * h)[[0, 3, 6]] == pytest.approx([132.9, 128.0, 124.5], abs=0.05)
    assert (h / w)[0] == pytest.approx(0.522, abs=5e-4)


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        ((600, 1000), (38, 63, 21_546, 8_151)),
        ((600, 800), (38, 50, 17_100, 5_944)),
        ((600, 600), (38, 38, 12_996, 3_938)),
    ],
)
def test_anchor_counts(size, expected):
    c = an.anchor_count(*size)
    assert (c.feature_height, c.feature_width, c.total, c.inside) == expected


def test_feature_map_rounds_up():
    assert [an.feature_map_size(s) for s in (600, 1000, 16, 17)] == [38, 63, 1, 2]


def test_iou_conventions_of_the_spec():
    a, b = [[0, 0, 10, 10]], [[5, 5, 15, 15]]
    assert an.box_iou(a, b)[0, 0] == pytest.approx(0.142857, abs=1e-6)
    assert an.box_iou(a, b, legacy=True)[0, 0] == pytest.approx(0.174757, abs=1e-6)
    half = [an.box_iou([[0, 0, s, s]], [[8, 8, s + 8, s + 8]])[0, 0] for s in (128, 256, 512)]
    assert half == pytest.approx([0.784, 0.884, 0.940], abs=5e-4)


@given(boxes(), boxes(), st.booleans())
def test_iou_matches_the_naive_formula(a, b, legacy):
    fast = an.box_iou(a, b, legacy=legacy)
    slow = [[naive.iou_naive(x, y, legacy) for y in b] for x in a]
    assert np.allclose(fast, slow, atol=1e-12)
    assert np.all((fast >= 0) & (fast <= 1 + 1e-12))


def test_nms_example_of_the_spec():
    b = np.array([[0, 0, 100, 100], [10, 10, 110, 110]])
    s = np.array([0.9, 0.8])
    assert an.box_iou(b[:1], b[1:])[0, 0] == pytest.approx(0.681, abs=5e-4)
    assert an.nms(b, s, 0.7, legacy=False).tolist() == [0, 1]
    assert an.nms(b, s, 0.5, legacy=False).tolist() == [0]


@given(boxes(12), st.floats(0.1, 0.9), st.integers(0, 2**16), st.sampled_from(an.TIE_ORDERS))
def test_nms_matches_the_naive_loop(b, threshold, seed, ties):
    # scores on a coarse grid, so that equal scores are common and the tie order matters
    scores = np.random.default_rng(seed).integers(0, 4, len(b)) / 4
    assert an.nms(b, scores, threshold, ties=ties).tolist() == naive.nms_naive(
        b.tolist(), scores.tolist(), threshold, later_first=ties == "py-faster-rcnn"
    )


def test_descending_orders_ties_as_the_released_argsort():
    scores = np.array([0.5, 0.9, 0.5, 0.1, 0.5])
    # py_cpu_nms's scores.argsort()[::-1] on <= 16 items: ascending stable sort, reversed
    assert an.descending(scores).tolist() == np.argsort(scores)[::-1].tolist() == [1, 4, 2, 0, 3]
    assert an.descending(scores, "stable").tolist() == [1, 0, 2, 4, 3]
    with pytest.raises(ValueError, match="ties"):
        an.descending(scores, "random")


@given(boxes())
def test_decode_inverts_encode(b):
    anchors = an.generate_anchors()[np.arange(len(b)) % 9] + 100
    for convention, legacy in (("inverse", True), ("continuous", False)):
        t = an.encode_boxes(anchors, b, legacy=legacy)
        assert np.allclose(an.decode_boxes(anchors, t, convention=convention), b, atol=1e-9)


@given(boxes())
def test_released_decode_is_the_inverse_shifted_by_one_pixel(b):
    """py-faster-rcnn's bbox_transform_inv does not subtract 1 from x2, y2: its boxes are the
    inverse's with the right and bottom edges one pixel further out."""
    anchors = an.generate_anchors()[np.arange(len(b)) % 9] + 100
    t = an.encode_boxes(anchors, b, legacy=True)
    assert np.allclose(an.decode_boxes(anchors, t), b + np.array([0, 0, 1, 1]), atol=1e-9)


def test_decode_rejects_unknown_conventions():
    with pytest.raises(ValueError, match="convention"):
        an.decode_boxes(np.zeros((1, 4)), np.zeros((1, 4)), convention="legacy")


def test_proposals_reproduce_the_released_layer_on_ties():
    """Five anchors, zero deltas, pre_nms = 4. Anchors 1 and 2 overlap (IoU 0.92 > 0.7); anchor 3
    is 15 px wide (inclusive); anchor 4 scores 0.9, the others tie at 0.5.

    Released layer (the defaults): bbox_transform_inv grows every box by 1 px right and bottom, so
    anchor 3 becomes 16 px and passes min_size 16. scores.argsort()[::-1] puts the later of equal
    scores first: [4, 3, 2, 1, 0], and the pre-NMS cut drops anchor 0. NMS re-sorts that list
    (positions 0..3 = anchors 4, 3, 2, 1) the same way, so among the tied positions the later,
    i.e. the earlier anchor, comes first: visit 4, 1, 2, 3; 2 is suppressed by 1. Result [4, 1, 3].

    Exact inverse and stable ties: anchor 3 stays 15 px and is dropped; order [4, 0, 1, 2], no cut;
    NMS keeps 4, 0, 1 and suppresses 2. Result [4, 0, 1]."""
    anchors = np.array(
        [
            [0, 0, 49, 49],
            [100, 0, 149, 49],
            [102, 0, 151, 49],
            [200, 200, 214, 214],
            [0, 200, 49, 249],
        ],
        dtype=float,
    )
    scores = np.array([0.5, 0.5, 0.5, 0.5, 0.9])
    zero = np.zeros_like(anchors)
    boxes_, kept = an.select_proposals(anchors, zero, scores, 300, 300, pre_nms=4)
    assert np.array_equal(boxes_, anchors[[4, 1, 3]] + [0, 0, 1, 1])
    assert kept.tolist() == [0.9, 0.5, 0.5]
    boxes_, _ = an.select_proposals(
        anchors, zero, scores, 300, 300, pre_nms=4, convention="inverse", ties="stable"
    )
    assert np.array_equal(boxes_, anchors[[4, 0, 1]])
    # NMS alone on all five (no pre-sort) visits 4, 3, 2, 1, 0 and suppresses 1 instead
    assert an.nms(anchors, scores, 0.7).tolist() == [4, 3, 2, 0]


def test_labels_mark_the_argmax_anchor_and_thresholds():
    anchors = np.array([[0, 0, 99, 99], [300, 300, 399, 399], [0, 0, 69, 69], [0, 0, 49, 49]])
    # IoU with gt: .68 (positive only as the argmax), 0, .32 (ignored), .21 (negative)
    gt = np.array([[10, 10, 109, 109]])
    assert an.label_anchors(anchors, gt).tolist() == [1, 0, -1, 0]
    assert an.label_anchors(anchors, gt, positive=0.3).tolist() == [1, 0, 1, 0]


def test_shifting_the_scene_by_the_stride_rolls_labels_by_one_cell():
    grid = an.anchor_grid(320, 320)
    gt = np.array([[100.0, 90.0, 180.0, 200.0], [150.0, 140.0, 260.0, 210.0]])
    before = an.label_anchors(grid, gt)
    after = an.label_anchors(grid, gt + 16)
    assert np.array_equal(after[1:, 1:], before[:-1, :-1])
    assert np.array_equal(grid[1:, 1:], grid[:-1, :-1] + 16)


def test_proposals_are_limited_clipped_and_suppressed():
    rng = np.random.default_rng(0)
    anchors = an.anchor_grid(200, 300)
    deltas = rng.normal(scale=0.1, size=anchors.shape)
    scores = rng.random(anchors.shape[:-1])
    boxes_, kept_scores = an.select_proposals(
        anchors, deltas, scores, 200, 300, pre_nms=500, post_nms=50
    )
    assert len(boxes_) <= 50
    assert np.all(np.diff(kept_scores) <= 0)
    assert boxes_[:, [0, 2]].min() >= 0
    assert boxes_[:, [0, 2]].max() <= 299
    assert boxes_[:, [1, 3]].min() >= 0
    assert boxes_[:, [1, 3]].max() <= 199
    iou = an.box_iou(boxes_, boxes_, legacy=True)
    assert np.all(iou[np.triu_indices(len(boxes_), 1)] <= 0.7)


def test_parameter_counts_match_torch_numel():
    torch = pytest.importorskip("torch")
    conv3 = torch.nn.Conv2d(512, 512, 3, bias=False)
    heads = [torch.nn.Conv2d(512, c, 1, bias=False) for c in (18, 36)]
    out = sum(h.weight.numel() for h in heads)
    assert an.rpn_output_params() == out == 27_648
    assert an.rpn_head_params() == out + conv3.weight.numel() == 2_386_944
    assert an.multibox_output_params() == torch.nn.Linear(1536, 5 * 800, bias=False).weight.numel()
    assert an.conv_params(3, 4, 3, bias=True) == 3 * 3 * 3 * 4 + 4


def test_best_anchor_iou_of_an_anchor_shaped_box_is_one():
    grid = an.anchor_grid(600, 1000)
    box = grid[10, 20, 4]
    assert an.best_anchor_iou(box[None], grid)[0] == pytest.approx(1.0)


def test_sqrt_areas_and_ratios_of_the_reference_anchors():
    root_area, ratio = an.sqrt_areas_and_ratios(an.generate_anchors())
    assert root_area[::3] == pytest.approx([132.9, 128.0, 124.5], abs=0.05)
    assert ratio[[0, 3, 6]] == pytest.approx([0.522, 1.0, 2.0], abs=5e-4)


def test_square_iou_intervals_of_the_spec():
    assert an.square_iou_interval(128, 0.7) == pytest.approx((107.1, 153.0), abs=0.05)
    assert an.square_iou_interval(512, 0.5) == pytest.approx((362.0, 724.1), abs=0.05)
    lo, hi = an.square_iou_interval(256, 0.7)
    for side, inside in [
        (lo + 0.01, True),
        (hi - 0.01, True),
        (lo - 0.5, False),
        (hi + 0.5, False),
    ]:
        iou = an.box_iou([[-side / 2, -side / 2, side / 2, side / 2]], [[-128, -128, 128, 128]])[
            0, 0
        ]
        assert bool(iou >= 0.7) is inside


@pytest.mark.parametrize("offset", [0, 4, 8, 16])
def test_half_stride_iou_is_the_closed_form(offset):
    sides = (128, 256, 512)
    closed = [(a - offset) ** 2 / (2 * a**2 - (a - offset) ** 2) for a in sides]
    assert an.half_stride_iou(sides, offset) == pytest.approx(closed, rel=1e-12)


def test_half_stride_iou_of_the_spec():
    assert an.half_stride_iou((128, 256, 512)) == pytest.approx([0.784, 0.884, 0.940], abs=5e-4)
