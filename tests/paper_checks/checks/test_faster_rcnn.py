"""The faster_rcnn claims pass with our geometry and FAIL when handed a wrong one."""

from __future__ import annotations

import numpy as np
import pytest

from paper_checks.checks import faster_rcnn
from paper_checks.context import Context
from paper_checks.results import Verdict
from theory import anchors as an


@pytest.fixture
def ctx(tmp_path):
    return Context(scale="quick", seed=0, out_dir=tmp_path, claim_id="faster_rcnn.under_test")


def unrounded_anchors():
    """Anchors with exact (unrounded) shapes: w = 16·s/√r, h = w·r."""
    rows = []
    for r in an.ANCHOR_RATIOS:
        for s in an.ANCHOR_SCALES:
            w = 16 * s / np.sqrt(r)
            h = w * r
            rows.append(
                [7.5 - (w - 1) / 2, 7.5 - (h - 1) / 2, 7.5 + (w - 1) / 2, 7.5 + (h - 1) / 2]
            )
    return np.array(rows)


def test_anchors_exact_passes(ctx):
    result = faster_rcnn.anchors_exact(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert (ctx.out_dir / result.figures[0]).is_file()


@pytest.mark.claim_fails("faster_rcnn.anchors_exact")
def test_anchors_exact_fails_one_pixel_off(ctx):
    # MATLAB's 1-based base box [1, 1, 16, 16]: every coordinate one pixel to the right and down
    result = faster_rcnn.anchors_exact(ctx, generate=lambda: an.generate_anchors() + 1)
    assert result.verdict is Verdict.FAIL
    assert result.measured["max_abs_diff"] == 1.0


def test_anchors_exact_fails_without_the_codes_rounding(ctx):
    assert faster_rcnn.anchors_exact(ctx, generate=unrounded_anchors).verdict is Verdict.FAIL


def test_anchor_count_passes(ctx):
    result = faster_rcnn.anchor_count(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["total"][0] == 21_546


@pytest.mark.claim_fails("faster_rcnn.anchor_count")
def test_anchor_count_fails_one_pixel_short_of_the_border(ctx):
    # "inside" read as x2 < W − 1: the last pixel row and column counted as outside
    result = faster_rcnn.anchor_count(
        ctx, count=lambda h, w: an.anchor_count(h, w, allowed_border=-1)
    )
    assert result.verdict is Verdict.FAIL
    assert result.measured["total"][0] == 21_546  # the totals still agree


def test_anchor_count_fails_with_floor_pooling(ctx):
    def floor_count(h, w):  # conv5 side ⌊·/16⌋: one row and column of cells fewer
        fh, fw = h // 16, w // 16
        grid = an.anchor_grid(h, w)[:fh, :fw]
        return an.AnchorCount(
            h, w, fh, fw, grid[..., 0].size, int(an.inside_image(grid, h, w).sum())
        )

    assert faster_rcnn.anchor_count(ctx, count=floor_count).verdict is Verdict.FAIL


def test_param_ratio_passes(ctx):
    result = faster_rcnn.param_ratio(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["ratio_output"] == pytest.approx(222.2, abs=0.1)


@pytest.mark.claim_fails("faster_rcnn.param_ratio")
def test_param_ratio_fails_when_biases_are_counted(ctx):
    # 27,648 weights + 54 biases = 27,702: 0.2% off the paper's bias-free count
    result = faster_rcnn.param_ratio(ctx, rpn_output=lambda: an.conv_params(512, 54, bias=True))
    assert result.verdict is Verdict.FAIL
    assert result.measured["rpn_output"] == 27_702


def test_param_ratio_fails_with_k_anchors_per_output_miscounted(ctx):
    result = faster_rcnn.param_ratio(ctx, rpn_output=lambda: an.rpn_output_params(k=1))
    assert result.verdict is Verdict.FAIL


def test_translation_equivariance_passes(ctx):
    result = faster_rcnn.translation_equivariance(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["label_mismatch"][4] == 0  # 16 px


@pytest.mark.claim_fails("faster_rcnn.translation_equivariance")
def test_translation_equivariance_fails_for_a_grid_off_the_stride(ctx):
    result = faster_rcnn.translation_equivariance(
        ctx, grid=lambda h, w: an.anchor_grid(h, w, stride=15)
    )
    assert result.verdict is Verdict.FAIL
    assert result.measured["violations"] > 0


def test_coverage_passes(ctx):
    result = faster_rcnn.coverage(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["worst_tolerance_ratio"] <= 1
    assert result.measured["percent_reaching"][2].tolist() == [0, 0, 0]


@pytest.mark.claim_fails("faster_rcnn.coverage")
def test_coverage_fails_with_anchors_ten_percent_larger(ctx):
    # scales 8.8/17.6/35.2 instead of 8/16/32: 64–128 px boxes lose IoU ≥ .7 anchors
    result = faster_rcnn.coverage(ctx, base_anchors=an.generate_anchors(scales=(8.8, 17.6, 35.2)))
    assert result.verdict is Verdict.FAIL
    assert result.measured["worst_tolerance_ratio"] > 1


@pytest.mark.claim_fails("faster_rcnn.coverage")
def test_coverage_fails_with_square_anchors_only(ctx):
    # the paper's 3-scales-1-ratio ablation (Table 8): elongated boxes lose IoU ≥ .7 anchors
    result = faster_rcnn.coverage(ctx, base_anchors=an.generate_anchors(ratios=(1.0,)))
    assert result.verdict is Verdict.FAIL


@pytest.mark.claim_fails("faster_rcnn.coverage")
@pytest.mark.parametrize("ratios", [(1 / 3, 1.0, 3.0), (0.5, 1.0), (1.0, 2.0)])
def test_coverage_fails_with_another_ratio_set(ctx, ratios):
    # ratios 1:3/1:1/3:1, or one of 1:2 and 2:1 missing: boxes of aspect 0.5–2 lose IoU ≥ .7
    # anchors. (A set as close as 0.7/1/1.4 still passes at quick scale: worst ratio 0.61.)
    result = faster_rcnn.coverage(ctx, base_anchors=an.generate_anchors(ratios=ratios))
    assert result.verdict is Verdict.FAIL
    assert result.measured["worst_tolerance_ratio"] > 1


def test_coverage_fails_with_a_single_anchor_scale(ctx):
    result = faster_rcnn.coverage(ctx, base_anchors=an.generate_anchors(scales=(16,)))
    assert result.verdict is Verdict.FAIL
