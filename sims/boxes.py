"""Random object boxes for the Faster R-CNN anchor-coverage check (``faster_rcnn.coverage``)."""

from __future__ import annotations

import numpy as np

__all__ = ["random_boxes"]


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
    ``aspect_range`` (w = s/√a, h = s·√a), position uniform over the places where the box fits."""
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
