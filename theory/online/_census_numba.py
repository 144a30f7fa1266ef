"""Numba kernel of the exact 5-point census (see census.py for the reduction and its proof)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _combine(a, b):
    """BKM97's c(a, b) = a + 1 if a = b, else max(a, b)."""
    return a + 1 if a == b else max(a, b)


@njit(cache=True)
def solve5(mask, ldim4, values4, proj, p0, p1):
    """(Ldim, M_tr) of the 5-point class ``mask`` (nonzero, 32 bits) from the 4-point tables.

    ``proj[x, b, j, byte]`` is the 16-bit 4-point mask that byte ``j`` of a class contributes to
    its restriction [x = b] with point x dropped; ``values4[m, k]`` is v(m, σ_k) for the k-th
    order of 4 points; ``ldim4[m]`` is Ldim(m). ``p0``, ``p1``: scratch arrays of 5 ints."""
    if mask & (mask - 1) == 0:
        return 0, 0
    for x in range(5):
        a = 0
        b = 0
        for j in range(4):
            byte = (mask >> (8 * j)) & 0xFF
            a |= proj[x, 0, j, byte]
            b |= proj[x, 1, j, byte]
        p0[x] = a
        p1[x] = b
    ldim = 0
    for x in range(5):
        if p0[x] != 0 and p1[x] != 0:
            ldim = max(ldim, 1 + min(ldim4[p0[x]], ldim4[p1[x]]))
    mtr = 0
    n_orders = values4.shape[1]
    for x in range(5):
        if p0[x] != 0 and p1[x] != 0:
            r0 = values4[p0[x]]
            r1 = values4[p1[x]]
            for k in range(n_orders):
                mtr = max(mtr, _combine(r0[k], r1[k]))
        else:  # x is constant on the class: pass-through
            r = values4[p0[x] | p1[x]]
            for k in range(n_orders):
                mtr = max(mtr, r[k])
    return ldim, mtr


@njit(cache=True)
def solve5_many(masks, ldim4, values4, proj):
    """(Ldim, M_tr) arrays for an array of nonzero 5-point class masks."""
    ldim = np.empty(masks.size, dtype=np.int8)
    mtr = np.empty(masks.size, dtype=np.int8)
    p0, p1 = np.empty(5, dtype=np.int64), np.empty(5, dtype=np.int64)
    for i in range(masks.size):
        ldim[i], mtr[i] = solve5(masks[i], ldim4, values4, proj, p0, p1)
    return ldim, mtr


@njit(cache=True)
def count5(lo, hi, ldim4, values4, proj):
    """Counts of (Ldim, M_tr) over the masks lo..hi−1 (mask 0 skipped), and per pair the smallest
    class: fewest hypotheses, then smallest mask (−1 where the pair does not occur)."""
    counts = np.zeros((6, 6), dtype=np.int64)
    smallest = np.full((6, 6), -1, dtype=np.int64)
    smallest_size = np.full((6, 6), 33, dtype=np.int64)
    p0, p1 = np.empty(5, dtype=np.int64), np.empty(5, dtype=np.int64)
    for mask in range(max(lo, 1), hi):
        ldim, mtr = solve5(mask, ldim4, values4, proj, p0, p1)
        counts[ldim, mtr] += 1
        size = 0
        m = mask
        while m:
            m &= m - 1
            size += 1
        if size < smallest_size[ldim, mtr]:
            smallest_size[ldim, mtr] = size
            smallest[ldim, mtr] = mask
    return counts, smallest
