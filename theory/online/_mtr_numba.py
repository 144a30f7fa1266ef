"""Numba kernels of the suffix-set Pareto DP for the transductive mistake bound (see mtr.py)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _cells(rows, mask):
    """Cell id of every hypothesis for suffix set ``mask``: hypotheses agreeing on the points
    outside ``mask`` share a cell. Returns (cell id per hypothesis, number of cells)."""
    keys = rows & ~mask
    order = np.argsort(keys)
    cell = np.empty(rows.size, dtype=np.int64)
    n_cells = 0
    prev = keys[order[0]]
    for i in range(order.size):
        h = order[i]
        if i > 0 and keys[h] != prev:
            n_cells += 1
            prev = keys[h]
        cell[h] = n_cells
    return cell, n_cells + 1


@njit(cache=True)
def _prepend(rows, x, vec, cell, n_cells, a0, a1, out):
    """Value vector after prepending point ``x``: per new cell, c(v0, v1) if both halves are
    nonempty (c(a, b) = a + 1 if a == b else max(a, b)), else the one child passes through."""
    a0[:n_cells] = -1
    a1[:n_cells] = -1
    bit = np.uint64(1) << np.uint64(x)
    for h in range(rows.size):
        if rows[h] & bit:
            a1[cell[h]] = vec[h]
        else:
            a0[cell[h]] = vec[h]
    for c in range(n_cells):
        v0, v1 = a0[c], a1[c]
        if v0 < 0:
            a0[c] = v1
        elif v1 >= 0:
            a0[c] = v0 + 1 if v0 == v1 else max(v0, v1)
    for h in range(rows.size):
        out[h] = a0[cell[h]]


@njit(cache=True)
def _dominated(candidate, vecs, lo, hi):
    """Is ``candidate`` <= some stored vector in vecs[lo:hi] (componentwise)?"""
    for i in range(lo, hi):
        below = True
        for h in range(candidate.size):
            if candidate[h] > vecs[i, h]:
                below = False
                break
        if below:
            return True
    return False


@njit(cache=True)
def _next_subset(mask):
    """Gosper's hack: the next larger integer with the same number of set bits."""
    c = mask & -mask
    r = mask + c
    return (((r ^ mask) >> 2) // c) | r


@njit(cache=True)
def dp_layer(rows, n_points, k, prev_start, prev_count, prev_vecs, start, count):
    """Layer k of the DP: the Pareto front of value vectors for every suffix set of size k.

    ``prev_*`` describe layer k − 1 (``prev_start[mask]``, ``prev_count[mask]`` index rows of
    ``prev_vecs``). Fills ``start``/``count`` for the masks of this layer and returns
    (vecs, parent point, parent row in prev_vecs) for the stored vectors.
    """
    n_h = rows.size
    cap = 1024
    vecs = np.empty((cap, n_h), dtype=np.int16)
    parent_x = np.empty(cap, dtype=np.int8)
    parent_i = np.empty(cap, dtype=np.int64)
    used = 0
    a0 = np.empty(n_h, dtype=np.int16)
    a1 = np.empty(n_h, dtype=np.int16)
    cand = np.empty(n_h, dtype=np.int16)
    mask = (1 << k) - 1
    last = 1 << n_points
    while mask < last:
        cell, n_cells = _cells(rows, np.uint64(mask))
        lo = used
        for x in range(n_points):
            if not (mask >> x) & 1:
                continue
            sub = mask ^ (1 << x)
            for j in range(prev_start[sub], prev_start[sub] + prev_count[sub]):
                _prepend(rows, x, prev_vecs[j], cell, n_cells, a0, a1, cand)
                if _dominated(cand, vecs, lo, used):
                    continue
                # drop stored vectors that the candidate dominates
                keep = lo
                for i in range(lo, used):
                    below = True
                    for h in range(n_h):
                        if vecs[i, h] > cand[h]:
                            below = False
                            break
                    if not below:
                        if keep != i:
                            vecs[keep] = vecs[i]
                            parent_x[keep] = parent_x[i]
                            parent_i[keep] = parent_i[i]
                        keep += 1
                used = keep
                if used == cap:
                    cap *= 2
                    grown = np.empty((cap, n_h), dtype=np.int16)
                    grown[:used] = vecs[:used]
                    vecs = grown
                    gx = np.empty(cap, dtype=np.int8)
                    gx[:used] = parent_x[:used]
                    parent_x = gx
                    gi = np.empty(cap, dtype=np.int64)
                    gi[:used] = parent_i[:used]
                    parent_i = gi
                vecs[used] = cand
                parent_x[used] = x
                parent_i[used] = j
                used += 1
        start[mask] = lo
        count[mask] = used - lo
        mask = _next_subset(mask)
    return vecs[:used], parent_x[:used], parent_i[:used]
