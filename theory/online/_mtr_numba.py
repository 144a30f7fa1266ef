"""Numba kernels of the suffix-set Pareto DP for the transductive mistake bound (see mtr.py).

Only the *non-singleton* cells of a suffix set carry information: a cell with one hypothesis has
value 0 in every vector (c is only ever applied to two nonempty halves, and then gives ≥ 1). So the
Pareto filtering of a suffix set runs on compact vectors with one entry per non-singleton cell, and
each half-cell is read through one representative hypothesis. The stored vectors stay per
hypothesis (0 on singleton cells) so that the next layer can read any cell of a subset.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _cells(rows, mask, table, bits, first, cell, active):
    """Group the hypotheses by their labels on the points outside ``mask`` (the cells of the
    suffix set) with an open-addressing hash table (``table``: 2^bits ≥ 2|H| slots).
    Sets cell[h] to h's index among the non-singleton cells (−1 for a singleton), lists the
    hypotheses of non-singleton cells in ``active`` and returns (cells, active count)."""
    shift = np.uint64(64 - bits)
    slots = np.uint64(table.size - 1)
    table[:] = -1
    inv = ~mask
    for h in range(rows.size):  # first[h]: the first hypothesis with h's key; cell[first]: count
        key = rows[h] & inv
        slot = (key * np.uint64(0x9E3779B97F4A7C15)) >> shift
        while table[slot] >= 0 and (rows[table[slot]] & inv) != key:
            slot = (slot + np.uint64(1)) & slots
        if table[slot] < 0:
            table[slot] = h
            cell[h] = 0
        first[h] = table[slot]
        cell[first[h]] += 1
    n_cells = 0
    n_active = 0
    for h in range(rows.size):  # a head precedes its cell's other members
        if first[h] != h:
            cell[h] = cell[first[h]]
        elif cell[h] == 1:
            cell[h] = -1
            continue
        else:
            cell[h] = n_cells
            n_cells += 1
        active[n_active] = h
        n_active += 1
    return n_cells, n_active


@njit(cache=True)
def _halves(rows, x, cell, active, n_active, n_cells, rep0, rep1):
    """One representative hypothesis of each half (label 0 / 1 at ``x``) of every non-singleton
    cell, −1 where the half is empty. The halves are cells of the suffix set without ``x``."""
    for c in range(n_cells):
        rep0[c] = -1
        rep1[c] = -1
    bit = np.uint64(1) << np.uint64(x)
    for t in range(n_active):
        h = active[t]
        if rows[h] & bit:
            rep1[cell[h]] = h
        else:
            rep0[cell[h]] = h


@njit(cache=True)
def _prepend(vecs, j, rep0, rep1, n_cells, out):
    """Compact value vector after prepending the point of ``rep0``/``rep1`` to vecs[j]: per
    non-singleton cell, c(v0, v1) if both halves are nonempty (c(a, b) = a + 1 if a == b else
    max(a, b)), else the one half passes through."""
    for c in range(n_cells):
        if rep0[c] < 0:
            out[c] = vecs[j, rep1[c]]
        elif rep1[c] < 0:
            out[c] = vecs[j, rep0[c]]
        else:
            v0, v1 = vecs[j, rep0[c]], vecs[j, rep1[c]]
            out[c] = v0 + 1 if v0 == v1 else max(v0, v1)


@njit(cache=True)
def _planes(values, n_cells, n_planes, n_words, out):
    """Threshold bit-planes of a compact vector: word q of plane t − 1 holds the cells c in
    [64q, 64q + 64) with values[c] ≥ t. u ≤ w componentwise iff every plane of u is a subset of
    the same plane of w, so a dominance test is a few word operations. Writes row 0 of ``out``."""
    for i in range(n_planes * n_words):
        out[0, i] = 0
    for c in range(n_cells):
        if values[c] > 0:
            out[0, (values[c] - 1) * n_words + c // 64] |= np.uint64(1) << np.uint64(c % 64)
    for t in range(n_planes - 2, -1, -1):
        for q in range(n_words):
            out[0, t * n_words + q] |= out[0, (t + 1) * n_words + q]


@njit(cache=True)
def _below(u, ui, w, wi, n):
    """Is every plane of u[ui] a subset of the same plane of w[wi] (componentwise ≤)?"""
    for q in range(n):  # noqa: SIM110 - numba compiles no all() over a generator
        if u[ui, q] & ~w[wi, q]:
            return False
    return True


@njit(cache=True)
def collisions(rows, n_points):
    """has[M] = 1 if some two hypotheses differ only inside M, i.e. suffix set M has a
    non-singleton cell (then every superset has one too): mark the pairwise differences, then
    close upwards with the subset-sum transform. Where there are more pairs than masks the table is
    all ones (no shortcut)."""
    size = 1 << n_points
    n_h = rows.size
    if n_h * (n_h - 1) // 2 > size:
        return np.ones(size, dtype=np.uint8)
    has = np.zeros(size, dtype=np.uint8)
    for a in range(n_h):
        for b in range(a + 1, n_h):
            has[rows[a] ^ rows[b]] = 1
    for x in range(n_points):
        bit = 1 << x
        for high in range(0, size, 2 * bit):
            for low in range(high, high + bit):
                has[low + bit] |= has[low]
    return has


@njit(cache=True)
def _next_subset(mask):
    """Gosper's hack: the next larger integer with the same number of set bits."""
    c = mask & -mask
    r = mask + c
    return (((r ^ mask) >> 2) // c) | r


@njit(cache=True)
def dp_layer(rows, n_points, k, has, prev_index, prev_vecs, index):
    """Layer k of the DP: the Pareto front of value vectors for every suffix set of size k.

    ``prev_*`` describe layer k − 1: the front of a mask is prev_vecs[start : start + count] with
    (start, count) = prev_index[mask] (start and count side by side: one cache line per lookup).
    ``has`` is :func:`collisions`: masks without a non-singleton cell skip the grouping. Fills
    ``index`` for the masks of size k only (other rows are left as they are, so two buffers
    can alternate between layers) and returns (vecs, parent point, parent row in prev_vecs).
    """
    n_h = rows.size
    cap = 1024
    vecs = np.empty((cap, n_h), dtype=np.int8)
    parent_x = np.empty(cap, dtype=np.int8)
    parent_i = np.empty(cap, dtype=np.int64)
    used = 0
    bits = 1
    while (1 << bits) < 2 * n_h:
        bits += 1
    table = np.empty(1 << bits, dtype=np.int64)
    first = np.empty(n_h, dtype=np.int64)
    cell = np.empty(n_h, dtype=np.int64)
    active = np.empty(n_h, dtype=np.int64)
    rep0 = np.empty(n_h, dtype=np.int64)
    rep1 = np.empty(n_h, dtype=np.int64)
    cand = np.empty(n_h, dtype=np.int8)
    n_planes = min(bits, int(prev_vecs.max()) + 1)  # values are <= log2 |H| and grow by <= 1
    max_words = (n_h // 2 + 63) // 64  # a non-singleton cell has >= 2 hypotheses
    cand_planes = np.empty((1, n_planes * max_words), dtype=np.uint64)
    front_cap = 64
    front = np.empty((front_cap, n_h), dtype=np.int8)  # compact vectors of the current mask
    front_planes = np.empty((front_cap, n_planes * max_words), dtype=np.uint64)
    front_x = np.empty(front_cap, dtype=np.int8)
    front_j = np.empty(front_cap, dtype=np.int64)
    mask = (1 << k) - 1
    last = 1 << n_points
    while mask < last:
        n_cells, n_active = 0, 0
        if has[mask]:
            n_cells, n_active = _cells(rows, np.uint64(mask), table, bits, first, cell, active)
        n_words = (n_cells + 63) // 64
        width = n_planes * n_words
        size = 0
        for x in range(n_points):
            if not (mask >> x) & 1:
                continue
            sub = mask ^ (1 << x)
            if prev_index[sub, 1] == 0:
                continue
            if n_cells == 0:  # all cells singletons: the zero vector, first candidate kept
                front_x[0] = x
                front_j[0] = prev_index[sub, 0]
                size = 1
                break
            _halves(rows, x, cell, active, n_active, n_cells, rep0, rep1)
            for j in range(prev_index[sub, 0], prev_index[sub, 0] + prev_index[sub, 1]):
                _prepend(prev_vecs, j, rep0, rep1, n_cells, cand)
                _planes(cand, n_cells, n_planes, n_words, cand_planes)
                dominated = False
                for i in range(size):
                    if _below(cand_planes, 0, front_planes, i, width):
                        dominated = True
                        break
                if dominated:
                    continue
                # drop stored vectors that the candidate dominates
                keep = 0
                for i in range(size):
                    if not _below(front_planes, i, cand_planes, 0, width):
                        if keep != i:
                            for c in range(n_cells):
                                front[keep, c] = front[i, c]
                            for q in range(width):
                                front_planes[keep, q] = front_planes[i, q]
                            front_x[keep] = front_x[i]
                            front_j[keep] = front_j[i]
                        keep += 1
                size = keep
                if size == front_cap:
                    front_cap *= 2
                    grown = np.empty((front_cap, n_h), dtype=np.int8)
                    grown[:size] = front[:size]
                    front = grown
                    gp = np.empty((front_cap, n_planes * max_words), dtype=np.uint64)
                    gp[:size] = front_planes[:size]
                    front_planes = gp
                    gx = np.empty(front_cap, dtype=np.int8)
                    gx[:size] = front_x[:size]
                    front_x = gx
                    gj = np.empty(front_cap, dtype=np.int64)
                    gj[:size] = front_j[:size]
                    front_j = gj
                for c in range(n_cells):
                    front[size, c] = cand[c]
                for q in range(width):
                    front_planes[size, q] = cand_planes[0, q]
                front_x[size] = x
                front_j[size] = j
                size += 1
        if used + size > cap:
            while used + size > cap:
                cap *= 2
            grown = np.empty((cap, n_h), dtype=np.int8)
            grown[:used] = vecs[:used]
            vecs = grown
            gx = np.empty(cap, dtype=np.int8)
            gx[:used] = parent_x[:used]
            parent_x = gx
            gi = np.empty(cap, dtype=np.int64)
            gi[:used] = parent_i[:used]
            parent_i = gi
        index[mask, 0] = used
        index[mask, 1] = size
        for i in range(size):  # back to one value per hypothesis, 0 on singleton cells
            for h in range(n_h):
                vecs[used, h] = 0
            for t in range(n_active):
                h = active[t]
                vecs[used, h] = front[i, cell[h]]
            parent_x[used] = front_x[i]
            parent_i[used] = front_j[i]
            used += 1
        mask = _next_subset(mask)
    return vecs[:used], parent_x[:used], parent_i[:used]
