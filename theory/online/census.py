"""Exhaustive census of every concept class on a tiny domain (online.md §5).

On n ≤ 4 points there are 2^n functions and 2^(2^n) − 1 nonempty classes (65,535 for n = 4). A
class is a bitmask over the functions, so version spaces are bitmasks too and both quantities can be
tabulated for *all* classes at once, bottom-up:

* Ldim: L(∅) = −1, L({h}) = 0, L(V) = max over x splitting V of 1 + min(L(V ∩ [x=0]), L(V ∩ [x=1]))
  (Littlestone 1987), filled in order of |V|.
* M_tr: for every order σ of the n points, v(V, σ_t..σ_n) is one vectorised pass per position
  (BKM97: pass-through when x splits nothing, else c(v0, v1), c(a, b) = a + 1 if a = b else
  max(a, b)); M_tr(V) = max over the n! orders (online.md §1: orders of X suffice).

This is independent of the general solvers (bitset recursion, suffix-set DP), so it cross-checks
them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import permutations

import numpy as np

MAX_CENSUS_POINTS = 4


@dataclass(frozen=True)
class Census:
    """Ldim and M_tr of every class on ``n_points`` points; index = class bitmask over the 2^n
    functions (bit f set: function f, whose label at point x is bit x of f, is in the class)."""

    n_points: int
    ldim: np.ndarray  # (2^(2^n),) int8, −1 for the empty class
    mtr: np.ndarray  # (2^(2^n),) int8

    def pairs(self) -> Counter[tuple[int, int]]:
        """Counts of (Ldim, M_tr) over the nonempty classes."""
        return Counter(zip(self.ldim[1:].tolist(), self.mtr[1:].tolist(), strict=True))

    def gaps(self) -> dict[tuple[int, int], int]:
        """Counts of the pairs with M_tr < Ldim."""
        return {pair: n for pair, n in sorted(self.pairs().items()) if pair[1] < pair[0]}

    def class_rows(self, mask: int) -> list[str]:
        """The hypotheses of class ``mask`` as 0/1 strings over points 0..n−1."""
        n = self.n_points
        return [
            "".join(str((f >> x) & 1) for x in range(n)) for f in range(1 << n) if (mask >> f) & 1
        ]


def _popcount(a: np.ndarray) -> np.ndarray:
    return np.bitwise_count(a)


def census(n_points: int) -> Census:
    """Tabulate Ldim and M_tr for every class on ``n_points`` (1..4) points."""
    if not isinstance(n_points, int) or not 1 <= n_points <= MAX_CENSUS_POINTS:
        raise ValueError(
            f"n_points must be an integer in 1..{MAX_CENSUS_POINTS} (got {n_points!r})"
        )
    n_funcs = 1 << n_points
    classes = np.arange(1 << n_funcs, dtype=np.int64)
    ones = [sum(1 << f for f in range(n_funcs) if (f >> x) & 1) for x in range(n_points)]
    size = _popcount(classes)

    ldim = np.full(classes.size, -1, dtype=np.int8)
    ldim[size == 1] = 0
    for k in range(2, n_funcs + 1):
        layer = classes[size == k]
        best = np.zeros(layer.size, dtype=np.int8)
        for one in ones:
            v1, v0 = layer & one, layer & ~one & ((1 << n_funcs) - 1)
            splits = (v1 != 0) & (v0 != 0)
            value = 1 + np.minimum(ldim[v1], ldim[v0])
            best = np.where(splits, np.maximum(best, value), best)
        ldim[layer] = best

    mtr = np.zeros(classes.size, dtype=np.int8)
    full = (1 << n_funcs) - 1
    for order in permutations(range(n_points)):
        value = np.zeros(classes.size, dtype=np.int8)  # after the last point: v = 0
        for x in reversed(order):
            v1, v0 = classes & ones[x], classes & ~ones[x] & full
            a, b = value[v1], value[v0]
            combined = np.where(a == b, a + 1, np.maximum(a, b)).astype(np.int8)
            splits = (v1 != 0) & (v0 != 0)
            value = np.where(splits, combined, value)
            value[size <= 1] = 0
        mtr = np.maximum(mtr, value)
    return Census(n_points, ldim, mtr)
