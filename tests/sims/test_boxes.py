"""The experiments on random boxes: best anchor IoU per size band and the shift response."""

from __future__ import annotations

import numpy as np
import pytest

from sims import boxes as bx
from theory import anchors as an

BANDS = [(128, 256), (32, 64)]


def test_best_iou_per_band_draws_each_band_from_its_own_generator():
    grid = an.anchor_grid(600, 1000)
    best = bx.best_iou_per_band(
        grid, BANDS, 50, rng={b: np.random.default_rng(i) for i, b in enumerate(BANDS)}
    )
    assert list(best) == BANDS
    for i, b in enumerate(BANDS):
        boxes = bx.random_boxes(50, b, rng=np.random.default_rng(i))
        assert np.array_equal(best[b], an.best_anchor_iou(boxes, grid, legacy=False))
        assert np.all((best[b] > 0) & (best[b] <= 1))
    assert np.median(best[(128, 256)]) > np.median(best[(32, 64)])


def test_percent_reaching_counts_shares_at_least_the_threshold():
    best = {(1, 2): np.array([0.2, 0.5, 0.7, 0.9]), (2, 4): np.array([0.1, 0.1])}
    shares = bx.percent_reaching(best, [0.7, 0.5, 0.1])
    assert shares.tolist() == [[50.0, 75.0, 100.0], [0.0, 0.0, 100.0]]


@pytest.fixture
def objects():
    return bx.random_boxes(6, (64, 256), image=(400, 800), rng=np.random.default_rng(3)) + 64


def test_shifts_by_the_stride_leave_every_label_rolled_by_one_cell(objects):
    multibox = bx.random_boxes(100, (32, 400), rng=np.random.default_rng(4))
    shifts = np.arange(0, 33, 4)
    r = bx.shift_response(an.anchor_grid(600, 1000), objects, multibox, shifts)
    on = shifts % 16 == 0
    assert np.all(r.label_mismatch[on] == 0)
    assert np.all(r.grid_error_px[on] == 0)
    assert np.all(r.best_iou_change[on] <= 1e-12)
    assert np.all(r.label_mismatch[~on] > 0)
    assert r.multibox_best_iou_change[shifts == 16][0] > 0
    assert bx.shift_violations(r) == (True, 0)


def test_a_grid_off_the_stride_is_not_equivariant(objects):
    multibox = bx.random_boxes(100, (32, 400), rng=np.random.default_rng(4))
    grid = an.anchor_grid(600, 1000, stride=15)
    holds, violations = bx.shift_violations(
        bx.shift_response(grid, objects, multibox, np.arange(0, 33, 4))
    )
    assert not holds
    assert violations > 0


def test_a_nan_fails_the_test_without_being_counted():
    shifts = np.array([0, 8, 16])
    ok = bx.ShiftResponse(
        shifts, np.array([0.0, 0.1, 0.0]), np.zeros(3), np.zeros(3), np.full(3, 0.1)
    )
    assert bx.shift_violations(ok) == (True, 0)
    nan = bx.ShiftResponse(
        shifts, ok.label_mismatch, np.array([0.0, 0.0, np.nan]), np.zeros(3), np.full(3, 0.1)
    )
    assert bx.shift_violations(nan) == (False, 0)
    bad = bx.ShiftResponse(shifts, np.array([0.0, 0.0, 0.2]), np.zeros(3), np.zeros(3), np.zeros(3))
    assert bx.shift_violations(bad) == (False, 3)
