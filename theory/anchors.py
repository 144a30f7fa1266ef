"""Region-proposal geometry of Faster R-CNN (Ren, He, Girshick and Sun, NeurIPS 2015, arXiv
1506.01497; TPAMI 2017):
reference anchors, the anchor grid, IoU, box encoding, NMS, proposal selection and the parameter
counts of the proposal layers.

Boxes are ``(..., 4)`` arrays ``[x1, y1, x2, y2]``. Two conventions coexist in the literature and must
never be mixed: ``legacy=True`` is the 0-based inclusive pixel convention of the released Caffe code
(width = x2 − x1 + 1), ``legacy=False`` the continuous one (width = x2 − x1). Section numbers
below (§3.1.1 …) are the paper's; docs/faster_rcnn.md sets out the conventions.

Decoding and the score order follow the released code (py-faster-rcnn, ``bbox_transform_inv`` and
``py_cpu_nms`` / the proposal layer) by default; :data:`DECODE_CONVENTIONS` and :data:`TIE_ORDERS`
name the alternatives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from theory import _domain

__all__ = [
    "ANCHOR_RATIOS",
    "ANCHOR_SCALES",
    "DECODE_CONVENTIONS",
    "STRIDE",
    "TIE_ORDERS",
    "AnchorCount",
    "anchor_count",
    "anchor_grid",
    "best_anchor_iou",
    "box_iou",
    "clip_boxes",
    "conv_params",
    "decode_boxes",
    "descending",
    "encode_boxes",
    "feature_map_size",
    "generate_anchors",
    "half_stride_iou",
    "inside_image",
    "label_anchors",
    "multibox_output_params",
    "nms",
    "rpn_head_params",
    "rpn_output_params",
    "select_proposals",
    "sqrt_areas_and_ratios",
    "square_iou_interval",
]

#: Feature stride of the conv5 map (VGG-16 / ZF): 4 poolings of 2.
STRIDE = 16
#: Anchor sizes (√area) and aspect ratios h/w of the paper (§3.1.1): 3 scales × 3 ratios, k = 9.
ANCHOR_SCALES = (8, 16, 32)  # multiples of the 16-px base box: 128², 256², 512²
ANCHOR_RATIOS = (0.5, 1.0, 2.0)
#: Box decodings of :func:`decode_boxes`.
DECODE_CONVENTIONS = ("py-faster-rcnn", "inverse", "continuous")
#: Orders of equal scores in :func:`nms` and :func:`select_proposals`.
TIE_ORDERS = ("py-faster-rcnn", "stable")


def _widths(boxes: np.ndarray, legacy: bool) -> tuple[np.ndarray, np.ndarray]:
    extra = 1.0 if legacy else 0.0
    return boxes[..., 2] - boxes[..., 0] + extra, boxes[..., 3] - boxes[..., 1] + extra


def _boxes(name: str, boxes: np.ndarray, legacy: bool, *, nonempty: bool = False) -> np.ndarray:
    """Finite boxes ``(..., 4)`` with positive widths and heights in the convention given."""
    b = _domain.reals(name, boxes, nonempty=nonempty)
    if b.ndim == 0 or b.shape[-1] != 4:
        raise ValueError(
            f"{name} must hold [x1, y1, x2, y2] on its last axis (got shape {b.shape})"
        )
    w, h = _widths(b, legacy)
    if (w <= 0).any() or (h <= 0).any():
        raise ValueError(f"{name} must have positive widths and heights (x2, y2 past x1, y1)")
    return b


def _positive_reals(name: str, values: Sequence[float]) -> np.ndarray:
    return _domain.reals(name, values, ndim=1, minimum=0.0, open_low=True)


def generate_anchors(
    base_size: int = STRIDE,
    ratios: Sequence[float] = ANCHOR_RATIOS,
    scales: Sequence[float] = ANCHOR_SCALES,
) -> np.ndarray:
    """The k = len(ratios)·len(scales) reference anchors centred on the first feature cell, as the
    released code builds them (0-based inclusive pixels): start from the box [0, 0, b−1, b−1]; for
    each ratio r = h/w keep its area with w = round(√(b²/r)), h = round(w·r) (numpy's half-to-even
    rounding); multiply w and h by each scale; centre at ((b−1)/2, (b−1)/2).

    Rounding makes the shapes inexact: √area is 132.9, 128 and 124.5 (×2, ×4) and the low ratio is
    12/23 = 0.522, not 0.5. Rows are ordered ratio-major, scale-minor.

    Parameters
    ----------
    base_size : int
        b, the stride of the feature map in pixels.
    ratios : sequence of float
        Aspect ratios h/w.
    scales : sequence of float
        Scales of the base box's side.

    Returns
    -------
    numpy.ndarray of float, (k, 4)
        The reference anchors [x1, y1, x2, y2].

    Examples
    --------
    >>> from theory.anchors import generate_anchors
    >>> anchors = generate_anchors()
    >>> anchors.shape, anchors[4].tolist()  # ratio 1, scale 16: a 256-px square
    ((9, 4), [-120.0, -120.0, 135.0, 135.0])
    """
    base_size = _domain.integer("base_size", base_size, minimum=1)
    ratios, scales = _positive_reals("ratios", ratios), _positive_reals("scales", scales)
    centre = (base_size - 1) / 2.0
    area = float(base_size * base_size)
    rows = []
    for ratio in ratios:
        w = np.round(np.sqrt(area / ratio))
        h = np.round(w * ratio)
        for scale in scales:
            ws, hs = w * scale, h * scale
            rows.append(
                [
                    centre - 0.5 * (ws - 1),
                    centre - 0.5 * (hs - 1),
                    centre + 0.5 * (ws - 1),
                    centre + 0.5 * (hs - 1),
                ]
            )
    return np.array(rows)  # (k, 4)


def feature_map_size(image_size: int, n_poolings: int = 4) -> int:
    """Side of the conv5 map: ⌈·/2⌉ applied ``n_poolings`` times (Caffe's pooling rounds up).

    Parameters
    ----------
    image_size : int
        Side of the image in pixels.
    n_poolings : int
        Poolings of stride 2 (4 in VGG-16 before conv5).

    Returns
    -------
    int
        Side of the conv5 map.

    Examples
    --------
    >>> from theory.anchors import feature_map_size
    >>> feature_map_size(600), feature_map_size(1000)
    (38, 63)
    """
    side = _domain.integer("image_size", image_size, minimum=1)
    n_poolings = _domain.integer("n_poolings", n_poolings, minimum=0)
    for _ in range(n_poolings):
        side = -(-side // 2)
    return side


def anchor_grid(
    height: int,
    width: int,
    *,
    base_anchors: np.ndarray | None = None,
    stride: int = STRIDE,
    offset: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """Every anchor of an image of ``height × width`` pixels, shape ``(H', W', k, 4)``: the reference
    anchors shifted by ``stride·(x, y)`` for each cell of the H'×W' conv5 map (and by ``offset``,
    in pixels, if given). Translation equivariance (§3.1.1) is this one set of shapes at every cell.

    Parameters
    ----------
    height, width : int
        Image size in pixels.
    base_anchors : numpy.ndarray of float, (k, 4), optional
        Reference anchors (default :func:`generate_anchors`).
    stride : int
        Pixels between feature cells.
    offset : tuple of float
        A shift (x, y) of the whole grid, in pixels.

    Returns
    -------
    numpy.ndarray of float, (H', W', k, 4)
        Boxes [x1, y1, x2, y2] in 0-based inclusive pixels.

    Examples
    --------
    >>> from theory.anchors import anchor_grid
    >>> grid = anchor_grid(600, 1000)
    >>> grid.shape, grid[0, 1, 4].tolist()  # the square 256-px anchor of cell (0, 1)
    ((38, 63, 9, 4), [-104.0, -120.0, 151.0, 135.0])
    """
    base = (
        generate_anchors()
        if base_anchors is None
        else _boxes("base_anchors", base_anchors, True, nonempty=True)
    )
    stride = _domain.integer("stride", stride, minimum=1)
    offset = _domain.reals("offset", offset, ndim=1)
    if offset.shape != (2,):
        raise ValueError(f"offset must be a pair (x, y) (got shape {offset.shape})")
    fh = feature_map_size(_domain.integer("height", height, minimum=1))
    fw = feature_map_size(_domain.integer("width", width, minimum=1))
    sy, sx = np.meshgrid(np.arange(fh) * stride, np.arange(fw) * stride, indexing="ij")
    shifts = np.stack([sx, sy, sx, sy], axis=-1).astype(float)  # (H', W', 4)
    shifts += np.array([offset[0], offset[1], offset[0], offset[1]])
    return shifts[:, :, None, :] + base[None, None, :, :]  # (H', W', k, 4)


def inside_image(
    anchors: np.ndarray, height: int, width: int, allowed_border: float = 0
) -> np.ndarray:
    """Anchors lying fully inside the image (the training rule ignores the others, §3.3):
    x1, y1 ≥ −border and x2 < width + border, y2 < height + border (0-based inclusive pixels).

    Parameters
    ----------
    anchors : numpy.ndarray of float, (..., 4)
        Anchors [x1, y1, x2, y2].
    height, width : int
        Image size.
    allowed_border : float
        The border ε.

    Returns
    -------
    numpy.ndarray of bool, ``anchors.shape[:-1]``
        Whether each anchor lies inside.

    Examples
    --------
    >>> from theory.anchors import anchor_grid, inside_image
    >>> int(inside_image(anchor_grid(600, 1000), 600, 1000).sum())  # of 21,546
    8151
    """
    a = _boxes("anchors", anchors, True)
    height = _domain.integer("height", height, minimum=1)
    width = _domain.integer("width", width, minimum=1)
    allowed_border = _domain.real("allowed_border", allowed_border)
    return (
        (a[..., 0] >= -allowed_border)
        & (a[..., 1] >= -allowed_border)
        & (a[..., 2] < width + allowed_border)
        & (a[..., 3] < height + allowed_border)
    )


@dataclass(frozen=True)
class AnchorCount:
    """Anchors of one image size: the conv5 map, the total H'·W'·k and those fully inside."""

    #: Image height in pixels.
    height: int
    #: Image width in pixels.
    width: int
    #: Rows H' of the conv5 feature map (one anchor position per row and column).
    feature_height: int
    #: Columns W' of the conv5 feature map.
    feature_width: int
    #: All anchors, H'·W'·k.
    total: int
    #: Anchors lying wholly inside the image (within ``allowed_border``).
    inside: int


def anchor_count(height: int, width: int, allowed_border: float = 0) -> AnchorCount:
    """Count the anchors of a ``height × width`` image (600×1000: 38·63·9 = 21,546, 8,151 inside).

    Parameters
    ----------
    height, width : int
        Image size in pixels.
    allowed_border : float
        Pixels an anchor may stick out of the image and still count as inside.

    Returns
    -------
    AnchorCount
        The conv5 map's size, all anchors and those inside.

    Raises
    ------
    ValueError
        Unless both sides are positive integers and ``allowed_border`` is finite (negative: a margin
        inside the image).

    Examples
    --------
    >>> from theory.anchors import anchor_count
    >>> count = anchor_count(600, 1000)
    >>> count.feature_height, count.feature_width, count.total, count.inside
    (38, 63, 21546, 8151)
    """
    height = _domain.integer("height", height, minimum=1)
    width = _domain.integer("width", width, minimum=1)
    allowed_border = _domain.real("allowed_border", allowed_border)
    grid = anchor_grid(height, width)
    return AnchorCount(
        height,
        width,
        grid.shape[0],
        grid.shape[1],
        int(np.prod(grid.shape[:3])),
        int(inside_image(grid, height, width, allowed_border).sum()),
    )


def box_iou(boxes_a: np.ndarray, boxes_b: np.ndarray, *, legacy: bool = False) -> np.ndarray:
    """Intersection over union of every pair: ``(N, 4) × (M, 4) → (N, M)``,
    IoU = |A ∩ B| / (|A| + |B| − |A ∩ B|). ``legacy=True`` counts inclusive pixels
    ([0,0,10,10] vs [5,5,15,15]: 36/206 = 0.1748; continuous: 25/175 = 0.1429).

    Parameters
    ----------
    boxes_a : numpy.ndarray of float, (N, 4)
        Boxes [x1, y1, x2, y2].
    boxes_b : numpy.ndarray of float, (M, 4)
        Boxes [x1, y1, x2, y2].
    legacy : bool
        Inclusive pixels (widths x2 − x1 + 1) instead of continuous coordinates.

    Returns
    -------
    numpy.ndarray of float, (N, M)
        The IoU of every pair.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.anchors import box_iou
    >>> a, b = np.array([[0, 0, 10, 10]]), np.array([[5, 5, 15, 15]])
    >>> box_iou(a, b).round(4), box_iou(a, b, legacy=True).round(4)
    (array([[0.1429]]), array([[0.1748]]))
    """
    a = _boxes("boxes_a", boxes_a, legacy).reshape(-1, 4)
    b = _boxes("boxes_b", boxes_b, legacy).reshape(-1, 4)
    return _iou(a, b, legacy)


def _iou(a: np.ndarray, b: np.ndarray, legacy: bool) -> np.ndarray:
    """:func:`box_iou` of checked ``(N, 4)`` and ``(M, 4)`` float arrays."""
    extra = 1.0 if legacy else 0.0
    wa, ha = _widths(a, legacy)
    wb, hb = _widths(b, legacy)
    iw = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]) + extra
    ih = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]) + extra
    inter = np.clip(iw, 0, None) * np.clip(ih, 0, None)  # (N, M)
    return inter / ((wa * ha)[:, None] + (wb * hb)[None, :] - inter)


def label_anchors(
    anchors: np.ndarray,
    gt_boxes: np.ndarray,
    *,
    positive: float = 0.7,
    negative: float = 0.3,
    legacy: bool = True,
) -> np.ndarray:
    """Training labels of anchors (§3.1.2): 1 for the anchor(s) of highest IoU with each
    ground-truth box (ties included, as in the code) or IoU ≥ ``positive`` with any box; 0 when
    IoU < ``negative`` with every box; −1 (ignored) otherwise. Shape: ``anchors.shape[:-1]``.

    Parameters
    ----------
    anchors : numpy.ndarray of float, (..., 4)
        Anchors [x1, y1, x2, y2].
    gt_boxes : numpy.ndarray of float, (G, 4)
        Ground-truth boxes.
    positive, negative : float
        The IoU thresholds.
    legacy : bool
        Inclusive pixels (see :func:`box_iou`).

    Returns
    -------
    numpy.ndarray of int8, ``anchors.shape[:-1]``
        1, 0 or −1 per anchor.

    Raises
    ------
    ValueError
        Unless ``gt_boxes`` holds at least one box and 0 ≤ negative ≤ positive ≤ 1.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.anchors import label_anchors
    >>> anchors = np.array([[0.0, 0, 99, 99], [10, 10, 109, 109], [300, 300, 399, 399]])
    >>> label_anchors(anchors, np.array([[0.0, 0, 99, 99]])).tolist()  # IoU 1, 0.68, 0
    [1, -1, 0]
    """
    anchors = _boxes("anchors", anchors, legacy)
    gt_boxes = _boxes("gt_boxes", gt_boxes, legacy, nonempty=True)
    positive = _domain.real("positive", positive, minimum=0.0, maximum=1.0)
    negative = _domain.real("negative", negative, minimum=0.0, maximum=positive)
    shape = np.shape(anchors)[:-1]
    iou = _iou(anchors.reshape(-1, 4), gt_boxes.reshape(-1, 4), legacy)  # (A, G)
    best = iou.max(axis=1)
    labels = np.full(iou.shape[0], -1, dtype=np.int8)
    labels[best < negative] = 0
    is_argmax = (iou == iou.max(axis=0, keepdims=True)) & (iou > 0)
    labels[is_argmax.any(axis=1) | (best >= positive)] = 1
    return labels.reshape(shape)


def encode_boxes(anchors: np.ndarray, boxes: np.ndarray, *, legacy: bool = True) -> np.ndarray:
    """Regression targets of eq. 2: t_x = (x − x_a)/w_a, t_y = (y − y_a)/h_a, t_w = log(w/w_a),
    t_h = log(h/h_a), with (x, y) box centres.

    Parameters
    ----------
    anchors : numpy.ndarray of float, (N, 4)
        Anchors [x1, y1, x2, y2].
    boxes : numpy.ndarray of float, (N, 4)
        Target boxes, one per anchor.
    legacy : bool
        Inclusive pixels (widths x2 − x1 + 1, the released code) or continuous coordinates.

    Returns
    -------
    numpy.ndarray of float, (N, 4)
        (t_x, t_y, t_w, t_h) per anchor.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.anchors import encode_boxes
    >>> anchor, box = np.array([[0.0, 0.0, 15.0, 15.0]]), np.array([[0.0, 0.0, 31.0, 15.0]])
    >>> encode_boxes(anchor, box).round(4)  # twice as wide: t_x = 1/2, t_w = log 2
    array([[0.5   , 0.    , 0.6931, 0.    ]])
    """
    a = _boxes("anchors", anchors, legacy)
    g = _boxes("boxes", boxes, legacy)
    wa, ha = _widths(a, legacy)
    wg, hg = _widths(g, legacy)
    ax, ay = a[..., 0] + 0.5 * wa, a[..., 1] + 0.5 * ha
    gx, gy = g[..., 0] + 0.5 * wg, g[..., 1] + 0.5 * hg
    return np.stack([(gx - ax) / wa, (gy - ay) / ha, np.log(wg / wa), np.log(hg / ha)], axis=-1)


def decode_boxes(
    anchors: np.ndarray, deltas: np.ndarray, *, convention: str = "py-faster-rcnn"
) -> np.ndarray:
    """Boxes from anchors and regression outputs (t_x, t_y, t_w, t_h), eq. 2 read backwards:
    centre x = x_a + t_x·w_a, y = y_a + t_y·h_a, size w = w_a·exp(t_w), h = h_a·exp(t_h), corners
    at centre ± size/2. The conventions differ only in widths and in the right/bottom corner:

    * ``"py-faster-rcnn"`` (default): inclusive widths w_a = x2 − x1 + 1 and x2 = x + w/2, as the
      released ``bbox_transform_inv`` does. It is not the inverse of :func:`encode_boxes`: zero
      deltas return the anchor grown by one pixel on the right and bottom, so a 15-px anchor
      passes a 16-px minimum size. The default, because the paper's proposals are this code's.
    * ``"inverse"``: inclusive widths and x2 = x + w/2 − 1, the exact inverse of
      ``encode_boxes(..., legacy=True)``.
    * ``"continuous"``: widths x2 − x1 and x2 = x + w/2, the exact inverse of
      ``encode_boxes(..., legacy=False)``.

    Parameters
    ----------
    anchors : numpy.ndarray of float, (N, 4)
        Anchors [x1, y1, x2, y2].
    deltas : numpy.ndarray of float, (N, 4)
        Regression outputs (t_x, t_y, t_w, t_h).
    convention : str
        ``"py-faster-rcnn"``, ``"inverse"`` or ``"continuous"`` (above).

    Returns
    -------
    numpy.ndarray of float, (N, 4)
        The boxes.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.anchors import decode_boxes
    >>> anchor, zero = np.array([[0.0, 0.0, 15.0, 15.0]]), np.zeros((1, 4))
    >>> decode_boxes(anchor, zero).tolist()  # one pixel larger, as the released code
    [[0.0, 0.0, 16.0, 16.0]]
    >>> decode_boxes(anchor, zero, convention="inverse").tolist()
    [[0.0, 0.0, 15.0, 15.0]]
    """
    _domain.choice("convention", convention, DECODE_CONVENTIONS)
    a = _boxes("anchors", anchors, legacy=convention != "continuous")
    t = _domain.reals("deltas", deltas, nonempty=False)
    if t.shape[-1:] != (4,):
        raise ValueError(
            f"deltas must hold (t_x, t_y, t_w, t_h) on its last axis (got shape {t.shape})"
        )
    wa, ha = _widths(a, legacy=convention != "continuous")
    ax, ay = a[..., 0] + 0.5 * wa, a[..., 1] + 0.5 * ha
    x, y = ax + t[..., 0] * wa, ay + t[..., 1] * ha
    w, h = wa * np.exp(t[..., 2]), ha * np.exp(t[..., 3])
    extra = 1.0 if convention == "inverse" else 0.0
    return np.stack([x - 0.5 * w, y - 0.5 * h, x + 0.5 * w - extra, y + 0.5 * h - extra], axis=-1)


def descending(scores: np.ndarray, ties: str = "py-faster-rcnn") -> np.ndarray:
    """Indices of ``scores`` from highest to lowest. ``ties="py-faster-rcnn"`` (default) puts the
    later index first among equal scores: the reverse of an ascending stable sort, which is what
    the released code's ``scores.argsort()[::-1]`` gives (numpy's default sort is stable on the
    short runs it insertion-sorts, ≤ 16 items; on longer ones its tie order is unspecified and
    this is the deterministic reading). ``ties="stable"``: the earlier index first.

    Parameters
    ----------
    scores : numpy.ndarray of float, (N,)
        The scores.
    ties : str
        ``"py-faster-rcnn"`` or ``"stable"``.

    Returns
    -------
    numpy.ndarray of int, (N,)
        The indices by decreasing score.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.anchors import descending
    >>> scores = np.array([0.5, 0.9, 0.5])
    >>> descending(scores).tolist(), descending(scores, ties="stable").tolist()
    ([1, 2, 0], [1, 0, 2])
    """
    _domain.choice("ties", ties, TIE_ORDERS)
    s = _domain.reals("scores", scores, nonempty=False).reshape(-1)
    if ties == "stable":
        return np.argsort(-s, kind="stable")
    return np.argsort(s, kind="stable")[::-1]


def nms(
    boxes: np.ndarray,
    scores: np.ndarray,
    threshold: float,
    *,
    legacy: bool = True,
    ties: str = "py-faster-rcnn",
) -> np.ndarray:
    """Greedy non-maximum suppression: visit boxes by decreasing score (equal scores in the order
    of :func:`descending`) and keep one unless its IoU with an already kept box exceeds
    ``threshold`` (a box at IoU ≤ threshold is kept, as in ``py_cpu_nms``). Returns the kept
    indices in visiting order. A = [0,0,100,100] (.9) and B = [10,10,110,110] (.8), IoU 0.681:
    both kept at 0.7, B removed at 0.5.

    Parameters
    ----------
    boxes : numpy.ndarray of float, (N, 4)
        Boxes [x1, y1, x2, y2].
    scores : numpy.ndarray of float, (N,)
        Their scores.
    threshold : float
        The IoU above which a box is suppressed.
    legacy : bool
        Inclusive pixels (see :func:`box_iou`).
    ties : str
        Order of equal scores (:func:`descending`).

    Returns
    -------
    numpy.ndarray of int
        The kept indices, in visiting order.

    Raises
    ------
    ValueError
        Unless there is one score per box and ``threshold`` is in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from theory.anchors import nms
    >>> boxes, scores = np.array([[0.0, 0, 100, 100], [10, 10, 110, 110]]), np.array([0.9, 0.8])
    >>> nms(boxes, scores, 0.7, legacy=False).tolist()  # IoU 0.681 ≤ 0.7: both kept
    [0, 1]
    >>> nms(boxes, scores, 0.5, legacy=False).tolist()
    [0]
    """
    boxes = _boxes("boxes", boxes, legacy).reshape(-1, 4)
    threshold = _domain.real("threshold", threshold, minimum=0.0, maximum=1.0)
    order = descending(scores, ties)
    if order.size != len(boxes):
        raise ValueError(f"scores must hold one score per box, {len(boxes)} (got {order.size})")
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        overlap = _iou(boxes[i : i + 1], boxes[order[1:]], legacy)[0]
        order = order[1:][overlap <= threshold]
    return np.array(keep, dtype=np.int64)


def clip_boxes(boxes: np.ndarray, height: int, width: int) -> np.ndarray:
    """Clip inclusive-pixel boxes to the image (the test-time rule for cross-boundary proposals).

    Parameters
    ----------
    boxes : numpy.ndarray of float, (N, 4)
        Boxes [x1, y1, x2, y2] in inclusive pixels.
    height, width : int
        Image size.

    Returns
    -------
    numpy.ndarray of float, (N, 4)
        The boxes with x in [0, width − 1] and y in [0, height − 1].

    Examples
    --------
    >>> import numpy as np
    >>> from theory.anchors import clip_boxes
    >>> clip_boxes(np.array([[-5.0, 10.0, 700.0, 200.0]]), 600, 600).tolist()
    [[0.0, 10.0, 599.0, 200.0]]
    """
    b = _domain.reals("boxes", boxes, nonempty=False)
    if b.shape[-1:] != (4,):
        raise ValueError(f"boxes must hold [x1, y1, x2, y2] on its last axis (got shape {b.shape})")
    height = _domain.integer("height", height, minimum=1)
    width = _domain.integer("width", width, minimum=1)
    b[..., 0::2] = np.clip(b[..., 0::2], 0, width - 1)
    b[..., 1::2] = np.clip(b[..., 1::2], 0, height - 1)
    return b


def select_proposals(
    anchors: np.ndarray,
    deltas: np.ndarray,
    scores: np.ndarray,
    height: int,
    width: int,
    *,
    pre_nms: int = 6000,
    post_nms: int = 300,
    nms_threshold: float = 0.7,
    min_size: float = 16,
    convention: str = "py-faster-rcnn",
    ties: str = "py-faster-rcnn",
) -> tuple[np.ndarray, np.ndarray]:
    """The proposal layer (§3.3; training 12000 → 2000, test 6000 → 300, NMS 0.7, minimum side 16):
    decode (``convention``, see :func:`decode_boxes`), clip, drop boxes with a side below
    ``min_size``, keep the ``pre_nms`` best, NMS, keep the ``post_nms`` first kept. Returns (boxes,
    scores).

    Both the pre-NMS sort and the NMS sort order equal scores by ``ties`` (:func:`descending`).
    With the default, as in the released layer, NMS re-sorts the already sorted top list, so the
    two reversals cancel: among equal scores the pre-NMS cut keeps the later anchors, and NMS then
    visits the survivors earlier anchor first.

    Parameters
    ----------
    anchors : numpy.ndarray of float, (N, 4)
        Anchors [x1, y1, x2, y2].
    deltas : numpy.ndarray of float, (N, 4)
        Their regression outputs.
    scores : numpy.ndarray of float, (N,)
        Their objectness scores.
    height, width : int
        Image size.
    pre_nms, post_nms : int
        Boxes kept before and after NMS.
    nms_threshold : float
        NMS's IoU threshold.
    min_size : float
        Smallest side kept, in pixels.
    convention : str
        :func:`decode_boxes`'s convention.
    ties : str
        Order of equal scores (:func:`descending`).

    Returns
    -------
    boxes : numpy.ndarray of float, (P, 4)
        The proposals, P <= ``post_nms``.
    scores : numpy.ndarray of float, (P,)
        Their scores.

    Raises
    ------
    ValueError
        Unless the arrays are finite with one delta and one score per anchor, ``pre_nms`` and
        ``post_nms`` are positive integers, ``nms_threshold`` is in [0, 1] and ``min_size`` > 0.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.anchors import anchor_grid, select_proposals
    >>> anchors = anchor_grid(64, 64).reshape(-1, 4)
    >>> scores = np.linspace(0.0, 1.0, len(anchors))
    >>> boxes, kept = select_proposals(anchors, np.zeros_like(anchors), scores, 64, 64, post_nms=5)
    >>> boxes.shape  # clipped to a 64-px image every anchor covers it: NMS keeps one
    (1, 4)
    """
    legacy = convention != "continuous"
    pre_nms = _domain.integer("pre_nms", pre_nms, minimum=1)
    post_nms = _domain.integer("post_nms", post_nms, minimum=1)
    nms_threshold = _domain.real("nms_threshold", nms_threshold, minimum=0.0, maximum=1.0)
    min_size = _domain.real("min_size", min_size, minimum=0.0, open_low=True)
    anchors = _boxes("anchors", anchors, legacy)
    deltas = _domain.reals("deltas", deltas, nonempty=False)
    if anchors.size != deltas.size:
        raise ValueError(
            f"deltas must hold one row per row of anchors (got {deltas.shape} for {anchors.shape})"
        )
    boxes = clip_boxes(
        decode_boxes(anchors.reshape(-1, 4), deltas.reshape(-1, 4), convention=convention),
        height,
        width,
    )
    scores = _domain.reals("scores", scores, nonempty=False).reshape(-1)
    if scores.size != len(boxes):
        raise ValueError(f"scores must hold one score per anchor, {len(boxes)} (got {scores.size})")
    w, h = _widths(boxes, legacy=legacy)
    big = np.flatnonzero((w >= min_size) & (h >= min_size))
    top = big[descending(scores[big], ties)[:pre_nms]]
    kept = top[nms(boxes[top], scores[top], nms_threshold, legacy=legacy, ties=ties)][:post_nms]
    return boxes[kept], scores[kept]


def best_anchor_iou(boxes: np.ndarray, anchors: np.ndarray, *, legacy: bool = True) -> np.ndarray:
    """For each box, the largest IoU with any anchor (its chance of a positive by IoU ≥ 0.7).

    Parameters
    ----------
    boxes : numpy.ndarray of float, (N, 4)
        Boxes [x1, y1, x2, y2].
    anchors : numpy.ndarray of float, (..., 4)
        Anchors, any leading shape (e.g. :func:`anchor_grid`'s).
    legacy : bool
        Inclusive pixels (True) or continuous coordinates (see :func:`box_iou`).

    Returns
    -------
    numpy.ndarray of float, (N,)
        Each box's best IoU.

    Raises
    ------
    ValueError
        Unless ``anchors`` holds at least one box.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.anchors import anchor_grid, best_anchor_iou
    >>> box = np.array([[0.0, 0.0, 128.0, 128.0]])  # in the corner: no anchor centred on it
    >>> best_anchor_iou(box, anchor_grid(600, 1000), legacy=False).round(3)
    array([0.795])
    """
    flat = _boxes("anchors", anchors, legacy, nonempty=True).reshape(-1, 4)
    boxes = _boxes("boxes", boxes, legacy).reshape(-1, 4)
    best = np.zeros(len(boxes))
    for start in range(0, len(boxes), 256):  # chunks bound the (chunk, anchors) IoU matrix
        best[start : start + 256] = _iou(boxes[start : start + 256], flat, legacy).max(axis=1)
    return best


# ------------------------------------------------------------------------------- parameter counts
def conv_params(in_channels: int, out_channels: int, kernel: int = 1, *, bias: bool = False) -> int:
    """Parameters of a 2-D convolution: k²·C_in·C_out (+ C_out biases).

    Parameters
    ----------
    in_channels, out_channels : int
        C_in and C_out.
    kernel : int
        Side k of the square kernel.
    bias : bool
        Count the C_out biases.

    Returns
    -------
    int
        The parameter count.

    Raises
    ------
    ValueError
        Unless the sizes are positive integers.

    Examples
    --------
    >>> from theory.anchors import conv_params
    >>> conv_params(512, 512, 3), conv_params(512, 18, bias=True)
    (2359296, 9234)
    """
    in_channels = _domain.integer("in_channels", in_channels, minimum=1)
    out_channels = _domain.integer("out_channels", out_channels, minimum=1)
    kernel = _domain.integer("kernel", kernel, minimum=1)
    return kernel * kernel * in_channels * out_channels + (out_channels if bias else 0)


def rpn_output_params(channels: int = 512, k: int = 9) -> int:
    """The RPN output layer: 1×1 convs with 2k scores and 4k coordinates on a C-d feature,
    C·(4 + 2)·k weights = 27,648 for VGG-16 (C = 512), §3.1.1.

    Parameters
    ----------
    channels : int
        C, the feature width.
    k : int
        Anchors per position.

    Returns
    -------
    int
        C·(4 + 2)·k.

    Examples
    --------
    >>> from theory.anchors import rpn_output_params
    >>> rpn_output_params()
    27648
    """
    channels = _domain.integer("channels", channels, minimum=1)
    k = _domain.integer("k", k, minimum=1)
    return conv_params(channels, 2 * k) + conv_params(channels, 4 * k)


def rpn_head_params(channels: int = 512, k: int = 9) -> int:
    """The 3×3 intermediate conv (C → C) plus the output layer: 2,386,944 for VGG-16.

    Parameters
    ----------
    channels : int
        C, the feature width.
    k : int
        Anchors per position.

    Returns
    -------
    int
        9·C² + :func:`rpn_output_params`.

    Examples
    --------
    >>> from theory.anchors import rpn_head_params
    >>> rpn_head_params()
    2386944
    """
    channels = _domain.integer("channels", channels, minimum=1)
    k = _domain.integer("k", k, minimum=1)
    return conv_params(channels, channels, 3) + rpn_output_params(channels, k)


def multibox_output_params(features: int = 1536, n_anchors: int = 800) -> int:
    """MultiBox's fully connected output: features·(4 + 1)·800 = 6,144,000 (§3.1.1).

    Parameters
    ----------
    features : int
        Width of MultiBox's last hidden layer.
    n_anchors : int
        Its anchors (priors).

    Returns
    -------
    int
        The parameter count.

    Examples
    --------
    >>> from theory.anchors import multibox_output_params, rpn_output_params
    >>> multibox_output_params(), multibox_output_params() // rpn_output_params()
    (6144000, 222)
    """
    features = _domain.integer("features", features, minimum=1)
    n_anchors = _domain.integer("n_anchors", n_anchors, minimum=1)
    return features * (4 + 1) * n_anchors


# ------------------------------------------------------------------------------ anchor geometry
def sqrt_areas_and_ratios(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Size √(w·h) and aspect ratio h/w of each box in the code's 0-based inclusive pixels
    (w = x2 − x1 + 1): 132.9, 128, 124.5 (×2, ×4) and 0.522, 1, 2 for the 9 reference anchors
    of §3.1.1 (the rounding of ``generate_anchors``).

    Parameters
    ----------
    boxes : numpy.ndarray of float, (N, 4)
        Boxes [x1, y1, x2, y2] in inclusive pixels.

    Returns
    -------
    sizes, ratios : numpy.ndarray of float, each (N,)
        √(w·h) and h/w per box.

    Examples
    --------
    >>> from theory.anchors import generate_anchors, sqrt_areas_and_ratios
    >>> sizes, ratios = sqrt_areas_and_ratios(generate_anchors()[[0, 3, 6]])  # scale 8
    >>> sizes.round(1), ratios.round(3)
    (array([132.9, 128. , 124.5]), array([0.522, 1.   , 2.   ]))
    """
    boxes = _boxes("boxes", boxes, True)
    if boxes.ndim != 2:
        raise ValueError(f"boxes must be an (N, 4) array (got shape {boxes.shape})")
    w = boxes[:, 2] - boxes[:, 0] + 1
    h = boxes[:, 3] - boxes[:, 1] + 1
    return np.sqrt(w * h), h / w


def square_iou_interval(side: float, threshold: float) -> tuple[float, float]:
    """Sides s of a square concentric with a square anchor of side a that reach IoU ≥ t:
    IoU = (min(s, a)/max(s, a))², so s ∈ [a√t, a/√t] (continuous coordinates; §3.1.1
    multi-scale anchors: [107, 153] px around the 128-px anchor at t = 0.7).

    Parameters
    ----------
    side : float
        The anchor's side a.
    threshold : float
        The IoU t.

    Returns
    -------
    lower, upper : float
        a√t and a/√t.

    Raises
    ------
    ValueError
        Unless ``side`` > 0 and ``threshold`` is in (0, 1].

    Examples
    --------
    >>> from theory.anchors import square_iou_interval
    >>> [round(float(s), 1) for s in square_iou_interval(128, 0.7)]
    [107.1, 153.0]
    """
    side = _domain.real("side", side, minimum=0.0, open_low=True)
    threshold = _domain.fraction("threshold", threshold)
    return side * np.sqrt(threshold), side / np.sqrt(threshold)


def half_stride_iou(sides: Sequence[float], offset: float = 8) -> list[float]:
    """IoU of two equal a × a squares offset by ``offset`` px along both axes (continuous
    coordinates): (a − o)² / (2a² − (a − o)²); half the 16-px stride gives .784, .884, .940 for
    a = 128, 256, 512, the worst an object centred between two anchor positions can do.

    Parameters
    ----------
    sides : sequence of float
        Sides a of the squares, in pixels.
    offset : float
        The offset o along each axis, in pixels.

    Returns
    -------
    list of float
        The IoU for each side.

    Raises
    ------
    ValueError
        Unless the sides are positive and ``offset`` ≥ 0.

    Examples
    --------
    >>> from theory.anchors import half_stride_iou
    >>> [round(iou, 3) for iou in half_stride_iou([128, 256, 512])]
    [0.784, 0.884, 0.94]
    """
    sides = _positive_reals("sides", sides)
    offset = _domain.real("offset", offset, minimum=0.0)
    return [
        float(box_iou([[0, 0, a, a]], [[offset, offset, a + offset, a + offset]])[0, 0])
        for a in sides
    ]
