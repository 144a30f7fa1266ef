"""Random object boxes for the Faster R-CNN checks, and the experiments run on them: the best
anchor IoU of random boxes per size band (``faster_rcnn.coverage``) and the response of the
anchor labels to shifted objects (``faster_rcnn.translation_equivariance``); Ren et al. 2015
(arXiv 1506.01497), §3.1.1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from theory import _domain
from theory.anchors import STRIDE, best_anchor_iou, label_anchors

__all__ = [
    "ShiftResponse",
    "best_iou_per_band",
    "percent_reaching",
    "random_boxes",
    "shift_response",
    "shift_violations",
]


def random_boxes(
    n: int,
    side_range: tuple[float, float],
    *,
    aspect_range: tuple[float, float] = (0.5, 2.0),
    image: tuple[int, int] = (600, 1000),
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """``n`` boxes ``[x1, y1, x2, y2]`` (continuous coordinates) lying inside a ``height × width``
    image: side s = √(w·h) log-uniform on ``side_range``, aspect a = h/w log-uniform on
    ``aspect_range`` (w = s/√a, h = s·√a), position uniform over the places where the box fits.

    Parameters
    ----------
    n : int
        Boxes.
    side_range : tuple of float
        (low, high) of the side √(w·h), in pixels.
    aspect_range : tuple of float
        (low, high) of the aspect ratio h/w.
    image : tuple of int
        (height, width).
    rng : numpy.random.Generator, int or None
        Source of the draws.

    Returns
    -------
    numpy.ndarray of float, (n, 4)
        The boxes.

    Raises
    ------
    ValueError
        Naming ``n`` unless it is an integer ≥ 0, ``side_range`` or ``aspect_range`` unless it
        is a pair 0 < low ≤ high of finite reals, ``image`` unless it is a pair of integers ≥ 1;
        or if a box of ``side_range`` and ``aspect_range`` can exceed the image.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.boxes import random_boxes
    >>> boxes = random_boxes(3, (32, 64), rng=0)
    >>> sides = np.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))
    >>> bool(((sides >= 32) & (sides <= 64)).all()), bool((boxes[:, 3] <= 600).all())
    (True, True)
    """
    _domain.integer("n", n, minimum=0)
    _domain.reals("side_range", side_range, ndim=1, minimum=0.0, open_low=True)
    if len(side_range) != 2 or side_range[0] > side_range[1]:
        raise ValueError(f"side_range must be a pair (low, high), low ≤ high (got {side_range})")
    _domain.reals("aspect_range", aspect_range, ndim=1, minimum=0.0, open_low=True)
    if len(aspect_range) != 2 or aspect_range[0] > aspect_range[1]:
        raise ValueError(
            f"aspect_range must be a pair (low, high), low ≤ high (got {aspect_range})"
        )
    _domain.integers("image", image, minimum=1)
    if len(image) != 2:
        raise ValueError(f"image must be a pair (height, width) (got {image})")
    _domain.seed("rng", rng)
    rng = np.random.default_rng(rng)
    height, width = image
    side = np.exp(rng.uniform(*np.log(side_range), size=n))
    aspect = np.exp(rng.uniform(*np.log(aspect_range), size=n))
    w, h = side / np.sqrt(aspect), side * np.sqrt(aspect)
    if np.any(w > width) or np.any(h > height):
        raise ValueError(f"side_range {side_range} gives boxes larger than the image {image}")
    x = rng.uniform(0, width - w)
    y = rng.uniform(0, height - h)
    return np.stack([x, y, x + w, y + h], axis=1)  # (n, 4)


def best_iou_per_band(
    anchors: np.ndarray,
    bands: Sequence[tuple[float, float]],
    n: int,
    *,
    rng: Mapping[tuple[float, float], np.random.Generator],
) -> dict[tuple[float, float], np.ndarray]:
    """For each side band (lo, hi), the best IoU with any of ``anchors`` (continuous coordinates)
    of ``n`` :func:`random_boxes` with sides in the band, drawn from that band's own generator
    ``rng[band]`` in a 600 × 1000 image (§3.1.1, multi-scale anchors).

    Parameters
    ----------
    anchors : numpy.ndarray of float, (..., 4)
        The anchors.
    bands : sequence of tuple of float
        Side bands (lo, hi) in pixels.
    n : int
        Boxes per band.
    rng : mapping of band to numpy.random.Generator
        Each band's own generator.

    Returns
    -------
    dict of band to numpy.ndarray of float, (n,)
        Each box's best IoU, per band.

    Raises
    ------
    ValueError
        Naming ``bands`` unless it is a non-empty sequence of pairs 0 < lo ≤ hi of finite
        reals, or ``n`` (:func:`random_boxes`) or ``anchors``
        (:func:`theory.anchors.best_anchor_iou`) outside their domains.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.boxes import best_iou_per_band, percent_reaching
    >>> from theory.anchors import anchor_grid
    >>> band = (128, 256)
    >>> rng = {band: np.random.default_rng(0)}
    >>> best = best_iou_per_band(anchor_grid(600, 1000), [band], 200, rng=rng)
    >>> best[band].shape, percent_reaching(best, [0.7, 0.5]).tolist()
    ((200,), [[54.5, 100.0]])
    """
    _domain.reals("bands", bands, ndim=2, minimum=0.0, open_low=True)
    if np.shape(bands)[1] != 2 or (np.asarray(bands)[:, 0] > np.asarray(bands)[:, 1]).any():
        raise ValueError(f"bands must be pairs (lo, hi) with lo ≤ hi (got {bands})")
    if not all(isinstance(b, tuple) for b in bands) or len(set(bands)) != len(bands):
        raise ValueError(f"bands must be distinct tuples (lo, hi) (got {bands})")
    if not hasattr(rng, "keys") or not all(b in rng for b in bands):
        raise ValueError("rng must map every band (lo, hi) of bands to its own generator")
    return {
        b: best_anchor_iou(random_boxes(n, b, rng=rng[b]), anchors, legacy=False) for b in bands
    }


def percent_reaching(
    best: Mapping[tuple[float, float], np.ndarray], thresholds: Sequence[float]
) -> np.ndarray:
    """``(bands, thresholds)``: the percentage of each band's boxes whose best anchor IoU is at
    least the threshold, 100 · mean(best ≥ t) (the coverage table of ``faster_rcnn.coverage``).

    Parameters
    ----------
    best : mapping of band to numpy.ndarray of float
        Best IoUs per band (:func:`best_iou_per_band`).
    thresholds : sequence of float
        IoU thresholds.

    Returns
    -------
    numpy.ndarray of float, (bands, thresholds)
        Percentages.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.boxes import percent_reaching
    >>> percent_reaching({(32, 64): np.array([0.2, 0.6, 0.8, 0.9])}, [0.7, 0.5])
    array([[50., 75.]])
    """
    _domain.reals("thresholds", thresholds, ndim=1, minimum=0.0, maximum=1.0)
    if not hasattr(best, "items") or any(np.size(best[b]) == 0 for b in best):
        raise ValueError("best must map each band to a non-empty array of best IoUs")
    return np.array([[100.0 * np.mean(best[b] >= t) for t in thresholds] for b in best])


@dataclass(frozen=True)
class ShiftResponse:
    """What shifting the objects by each of ``shift_px`` (both axes) changes, per shift: the
    fraction of anchor labels that differ from the originals rolled by round(s / stride) cells,
    the largest |grid rolled by those cells − (grid + s)| in px, and the largest change of an
    object's best IoU with the anchor grid and with a fixed (MultiBox-like) anchor set."""

    #: The shifts s, in pixels (along both axes).
    shift_px: np.ndarray
    #: Per shift: the fraction of anchor labels that differ from the originals rolled by round(s /
    #: stride) cells.
    label_mismatch: np.ndarray
    #: Per shift: the largest |grid rolled by round(s / stride) cells − (grid + s)|, in pixels.
    grid_error_px: np.ndarray
    #: Per shift: the largest change of an object's best IoU with the anchor grid.
    best_iou_change: np.ndarray
    #: Per shift: the same with the fixed (MultiBox-like) anchor set.
    multibox_best_iou_change: np.ndarray


def shift_response(
    anchors: np.ndarray,
    objects: np.ndarray,
    multibox: np.ndarray,
    shifts: np.ndarray,
    stride: int = STRIDE,
) -> ShiftResponse:
    """Shift ``objects`` by s px along both axes for each s in ``shifts`` and compare with s = 0:
    anchors are translation invariant (§3.1.1), so at s = j·stride the grid ``anchors``
    (H', W', k, 4) rolled by j cells equals the grid plus s, the labels of
    :func:`theory.anchors.label_anchors` equal the originals rolled by j cells, and every
    object's best IoU is unchanged; ``multibox``, a fixed anchor set, has no such symmetry.

    Parameters
    ----------
    anchors : numpy.ndarray of float, (H', W', k, 4)
        The anchor grid (:func:`theory.anchors.anchor_grid`).
    objects : numpy.ndarray of float, (N, 4)
        Object boxes.
    multibox : numpy.ndarray of float, (K, 4)
        A fixed anchor set, for contrast.
    shifts : numpy.ndarray of int
        Shifts s in pixels, 0 first.
    stride : int
        The grid's stride.

    Returns
    -------
    ShiftResponse
        Per shift: the share of labels changed, the grid's error against the rolled grid and the
        best-IoU changes of the grid and of the fixed set.

    Raises
    ------
    ValueError
        Naming ``anchors`` unless it is a finite (H', W', k, 4) grid, ``objects`` or
        ``multibox`` unless they are non-empty finite rows [x1, y1, x2, y2] with x2 > x1 and
        y2 > y1, ``stride`` unless it is an integer ≥ 1, or ``shifts`` unless it is whole
        numbers ≥ 0, 0 first, each less than the grid's size in strides.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.boxes import shift_response
    >>> from theory.anchors import anchor_grid, generate_anchors
    >>> objects = np.array([[10.0, 10.0, 40.0, 40.0]])
    >>> fixed, shifts = generate_anchors() + 100, np.array([0, 8, 16])
    >>> response = shift_response(anchor_grid(64, 64), objects, fixed, shifts)
    >>> response.grid_error_px.tolist(), bool(response.label_mismatch[2] == 0)  # a stride: rolled
    ([0.0, 8.0, 0.0], True)
    """
    _domain.reals("anchors", anchors, ndim=4)
    _domain.reals("objects", objects, ndim=2)
    if np.shape(objects)[1] != 4 or (objects[:, 2:] <= objects[:, :2]).any():
        raise ValueError("objects must be rows [x1, y1, x2, y2] with x2 > x1 and y2 > y1")
    _domain.reals("multibox", multibox, ndim=2)
    if np.shape(multibox)[1] != 4 or (multibox[:, 2:] <= multibox[:, :2]).any():
        raise ValueError("multibox must be rows [x1, y1, x2, y2] with x2 > x1 and y2 > y1")
    _domain.integer("stride", stride, minimum=1)
    _domain.counts("shifts", shifts, ndim=1)
    if shifts[0] != 0 or round(max(shifts) / stride) >= min(np.shape(anchors)[:2]):
        raise ValueError(
            f"shifts must start at 0 and stay below the grid's {np.shape(anchors)[:2]} cells "
            f"of stride {stride} (got {shifts})"
        )
    base_labels = label_anchors(anchors, objects)
    base_best = best_anchor_iou(objects, anchors)
    mb_best = best_anchor_iou(objects, multibox)
    label_mismatch, best_change, mb_change, grid_error = [], [], [], []
    for s in shifts:
        j = round(int(s) / stride)
        moved = objects + float(s)
        labels = label_anchors(anchors, moved)
        h, w = anchors.shape[0] - j, anchors.shape[1] - j
        label_mismatch.append(float(np.mean(labels[j:, j:] != base_labels[:h, :w])))
        grid_error.append(float(np.max(np.abs(anchors[j:, j:] - (anchors[:h, :w] + s)))))
        best_change.append(float(np.max(np.abs(best_anchor_iou(moved, anchors) - base_best))))
        mb_change.append(float(np.max(np.abs(best_anchor_iou(moved, multibox) - mb_best))))
    return ShiftResponse(
        np.asarray(shifts),
        np.array(label_mismatch),
        np.array(grid_error),
        np.array(best_change),
        np.array(mb_change),
    )


def shift_violations(r: ShiftResponse, stride: int = STRIDE) -> tuple[bool, int]:
    """(holds, violations): whether every shift by a multiple of ``stride`` leaves 0 labels
    changed, grid error ≤ 1e-9 px and best-IoU change ≤ 1e-12, every other shift changes > 0
    labels and the fixed anchors' best IoU changes at s = 16; and how many of these conditions
    fail (0 ⟺ holds, except that a NaN fails ``holds`` without being counted).

    Parameters
    ----------
    r : ShiftResponse
        A :func:`shift_response`.
    stride : int
        The grid's stride.

    Returns
    -------
    holds : bool
        Whether every condition holds.
    violations : int
        How many fail.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.boxes import shift_response, shift_violations
    >>> from theory.anchors import anchor_grid, generate_anchors
    >>> objects = np.array([[10.0, 10.0, 40.0, 40.0]])
    >>> fixed, shifts = generate_anchors() + 100, np.array([0, 8, 16])
    >>> response = shift_response(anchor_grid(64, 64), objects, fixed, shifts)
    >>> shift_violations(response)
    (True, 0)
    """
    _domain.integer("stride", stride, minimum=1)
    if not (r.shift_px == 16).any():
        raise ValueError(
            f"r must hold the shift of 16 px, a whole stride (got shifts {r.shift_px})"
        )
    on = r.shift_px % stride == 0
    mismatch, grid, best, mb16 = (
        r.label_mismatch,
        r.grid_error_px,
        r.best_iou_change,
        r.multibox_best_iou_change[r.shift_px == 16][0],
    )
    equivariant = (
        np.all(mismatch[on] == 0) and np.all(grid[on] <= 1e-9) and np.all(best[on] <= 1e-12)
    )
    sensitive = bool(np.all(mismatch[~on] > 0)) and mb16 > 0
    violations = (
        int(np.sum(mismatch[on] != 0))
        + int(np.sum(grid[on] > 1e-9))
        + int(np.sum(best[on] > 1e-12))
        + int(np.sum(mismatch[~on] <= 0))
        + int(mb16 <= 0)
    )
    return bool(equivariant and sensitive), violations
