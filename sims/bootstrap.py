"""Percentile bootstrap of a mean of paired differences, shared by the claims that compare two
arms on the same seeds or problems."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["paired_mean_ci"]


def paired_mean_ci(
    diff: ArrayLike, rng: np.random.Generator, *, n_boot: int, level: float
) -> tuple[float, float]:
    """Percentile CI at ``level`` of the mean of ``diff`` (one paired difference per seed or
    problem), resampling its entries with replacement ``n_boot`` times: pairing keeps both arms'
    values of an entry together."""
    diff = np.asarray(diff, dtype=float)
    if diff.ndim != 1 or diff.size == 0:
        raise ValueError("diff must be a non-empty 1-D array of paired differences")
    means = diff[rng.integers(diff.size, size=(n_boot, diff.size))].mean(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))
