"""Numba kernels for :mod:`theory.online.dims` (private; numpy arrays and typed containers only).

Version spaces are bitsets over the hypotheses (rows), as in ``ConceptClass.point_bits``: bit i of
word i // 64 is hypothesis i. Two families of kernels compute the Littlestone dimension by the
memoised recursion of docs/online.md#the-game-and-its-value,

    L(∅) = −1,  L({h}) = 0,  L(V) = max_{x splits V} 1 + min(L(V_x^0), L(V_x^1))  (0 if none),

pruned with L(V) ≤ ⌊log2 |V|⌋ (docs/online.md#how-the-solvers-compute):

* ``*_word``: |H| ≤ 64, a version space is one uint64 and the memo a ``Dict[uint64, int64]``;
* ``*_words``: any |H|, a version space is a (n_words,) uint64 array and the memo is a hash table
  made of a ``Dict[uint64 hash, int64 head]`` plus typed lists (stored keys, values, collision
  chains), so equal hashes of different sets are told apart by comparing the stored words.

The memo containers are created by the caller and may be reused across calls on the same class.
Also here: the VC branch and bound (``largest_shattered_set``) and the threshold-dimension subset
DP (``threshold_chain``).

Recursive kernels must be called with one argument signature only (no literal ints from other
kernels): with ``cache=True``, a second specialisation of a recursive function segfaults when it
is loaded from the cache (numba/numba#6061, numba/numba#6713).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_HASH_SEED = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def popcount64(x):
    """Number of set bits of a uint64 (SWAR)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    x = x + (x >> np.uint64(8))  # byte sums by shifts (no overflowing multiply in pure Python)
    x = x + (x >> np.uint64(16))
    x = x + (x >> np.uint64(32))
    return np.int64(x & np.uint64(0x7F))


@njit(cache=True)
def floor_log2(n):
    """⌊log2 n⌋ for an integer n ≥ 1."""
    r = 0
    while n > 1:
        n >>= 1
        r += 1
    return r


@njit(cache=True)
def lowest_bit(v):
    """Index of the lowest set bit of a nonzero uint64."""
    i = 0
    while (v >> np.uint64(i)) & np.uint64(1) == np.uint64(0):
        i += 1
    return i


# --------------------------------------------------------------------------- one word (|H| ≤ 64)
@njit(cache=True)
def ldim_word(v, bits, memo):
    """L(V) for a single-word version space ``v``; ``bits[x]`` is {h : h(x) = 1}."""
    n = popcount64(v)
    if n <= 1:
        return n - 1
    if v in memo:
        return memo[v]
    bound = floor_log2(n)
    m = bits.shape[0]
    smaller = np.empty(m, dtype=np.int64)
    for x in range(m):
        c1 = popcount64(v & bits[x])
        smaller[x] = min(c1, n - c1)
    order = np.argsort(-smaller, kind="mergesort")  # most balanced splits first (stable)
    best = 0
    for k in range(m):
        x = order[k]
        s = smaller[x]
        # L(smaller side) ≤ ⌊log2 s⌋, and s only decreases along `order`
        if s == 0 or 1 + floor_log2(s) <= best:
            break
        v1 = v & bits[x]
        v0 = v & ~bits[x]
        if popcount64(v1) > popcount64(v0):
            v0, v1 = v1, v0
        la = ldim_word(v1, bits, memo)  # smaller side first: it bounds the min
        if 1 + la <= best:
            continue
        lb = ldim_word(v0, bits, memo)
        val = 1 + min(la, lb)
        if val > best:
            best = val
            if best == bound:
                break
    memo[v] = best
    return best


@njit(cache=True)
def tree_word(v, depth, index, bits, memo, node_points, leaf_rows):
    """Fill a shattered tree of ``depth`` under ``v`` (requires L(v) ≥ depth).

    Nodes are in heap order (root 0, children of i are 2i+1 (label 0) and 2i+2 (label 1));
    ``node_points`` has 2^D − 1 entries and ``leaf_rows`` 2^D for the full depth D.
    """
    if depth == 0:
        leaf_rows[index - node_points.shape[0]] = lowest_bit(v)
        return
    for x in range(bits.shape[0]):
        v1 = v & bits[x]
        v0 = v & ~bits[x]
        if v0 == np.uint64(0) or v1 == np.uint64(0):
            continue
        if ldim_word(v0, bits, memo) >= depth - 1 and ldim_word(v1, bits, memo) >= depth - 1:
            node_points[index] = x
            tree_word(v0, depth - 1, 2 * index + 1, bits, memo, node_points, leaf_rows)
            tree_word(v1, depth - 1, 2 * index + 2, bits, memo, node_points, leaf_rows)
            return
    raise ValueError("tree_word: the version space does not shatter a tree of this depth")


# ------------------------------------------------------------------------- many words (any |H|)
@njit(cache=True)
def _hash_words(v):
    """xorshift64 mix of the words (shifts only; collisions are resolved by the chains)."""
    h = _HASH_SEED
    for w in range(v.shape[0]):
        h ^= v[w]
        h ^= h << np.uint64(13)
        h ^= h >> np.uint64(7)
        h ^= h << np.uint64(17)
    return h


@njit(cache=True)
def _memo_find(v, h, index, keys, vals, chain):
    j = index[h] if h in index else -1  # noqa: SIM401 - numba types Dict.get as Optional
    while j != -1:
        key = keys[j]
        same = True
        for w in range(v.shape[0]):
            if key[w] != v[w]:
                same = False
                break
        if same:
            return vals[j]
        j = chain[j]
    return -2  # not stored (every stored value is ≥ 0)


@njit(cache=True)
def count_words(v):
    """|V| for a multi-word bitset."""
    n = 0
    for w in range(v.shape[0]):
        n += popcount64(v[w])
    return n


@njit(cache=True)
def _smaller_sides_words(v, n, bits):
    """min(|V_x^0|, |V_x^1|) for every point x (|V| = n), counting only V's nonzero words."""
    nonzero = np.flatnonzero(v)
    smaller = np.empty(bits.shape[0], dtype=np.int64)
    for x in range(bits.shape[0]):
        c1 = 0
        for k in range(nonzero.shape[0]):
            w = nonzero[k]
            c1 += popcount64(v[w] & bits[x, w])
        smaller[x] = min(c1, n - c1)
    return smaller


@njit(cache=True)
def ldim_words(v, bits, index, keys, vals, chain):
    """L(V) for a multi-word version space ``v`` ((n_words,) uint64); ``bits`` is (|X|, n_words).

    Memo: ``index[hash] = head`` of a chain of entries j (``keys[j]``, ``vals[j]``, next
    ``chain[j]``; −1 ends a chain).
    """
    n = count_words(v)
    if n <= 1:
        return n - 1
    h = _hash_words(v)
    found = _memo_find(v, h, index, keys, vals, chain)
    if found != -2:
        return found
    bound = floor_log2(n)
    m = bits.shape[0]
    smaller = _smaller_sides_words(v, n, bits)
    order = np.argsort(-smaller, kind="mergesort")
    best = 0
    for k in range(m):
        x = order[k]
        s = smaller[x]
        if s == 0 or 1 + floor_log2(s) <= best:
            break
        v1 = v & bits[x]
        v0 = v & ~bits[x]
        if count_words(v1) > count_words(v0):
            v0, v1 = v1, v0
        la = ldim_words(v1, bits, index, keys, vals, chain)
        if 1 + la <= best:
            continue
        lb = ldim_words(v0, bits, index, keys, vals, chain)
        val = 1 + min(la, lb)
        if val > best:
            best = val
            if best == bound:
                break
    keys.append(v.copy())
    vals.append(best)
    chain.append(index[h] if h in index else -1)  # noqa: SIM401 - as in _memo_find
    index[h] = len(keys) - 1
    return best


@njit(cache=True)
def tree_words(v, depth, index_, bits, index, keys, vals, chain, node_points, leaf_rows):
    """Multi-word version of :func:`tree_word` (``index_`` is the heap index of the node)."""
    if depth == 0:
        for w in range(v.shape[0]):
            if v[w] != np.uint64(0):
                leaf_rows[index_ - node_points.shape[0]] = 64 * w + lowest_bit(v[w])
                return
    smaller = _smaller_sides_words(v, count_words(v), bits)
    for x in range(bits.shape[0]):
        if smaller[x] == 0 or floor_log2(smaller[x]) < depth - 1:
            continue  # cannot hold a depth − 1 tree on both sides
        v1 = v & bits[x]
        v0 = v & ~bits[x]
        if (
            ldim_words(v0, bits, index, keys, vals, chain) >= depth - 1
            and ldim_words(v1, bits, index, keys, vals, chain) >= depth - 1
        ):
            node_points[index_] = x
            memo = (index, keys, vals, chain)
            tree_words(v0, depth - 1, 2 * index_ + 1, bits, *memo, node_points, leaf_rows)
            tree_words(v1, depth - 1, 2 * index_ + 2, bits, *memo, node_points, leaf_rows)
            return
    raise ValueError("tree_words: the version space does not shatter a tree of this depth")


# ------------------------------------------------------------------------------------ VC dimension
@njit(cache=True)
def _vc_search(cells, depth, candidates, bits, path, best, bounds):
    """Depth-first branch and bound over shattered sets (see :func:`largest_shattered_set`).

    ``cells`` are the 2^depth cells of H by its labels on ``path[:depth]`` (a shattered set S);
    ``candidates`` are the points that may extend it; ``bounds = [best size, cap]``.
    """
    if depth > bounds[0]:
        bounds[0] = depth
        best[:depth] = path[:depth]
    if bounds[0] >= bounds[1]:
        return
    n_cells, n_words = cells.shape
    # x extends S iff it splits every cell. If S ∪ T is shattered and x ∈ T, every cell's two
    # halves at x shatter T − {x}, so |T| ≤ rank(x) = 1 + ⌊log2 min_c min(|c ∩ [x=0]|, |c ∩ [x=1]|)⌋;
    # beating the best needs |T| > best − depth, so points of lower rank are dropped (smallest
    # cells are scanned first, over their nonzero words only, to reject points early).
    least_needed = np.int64(1) << max(bounds[0] - depth, 0)
    sizes = np.empty(n_cells, dtype=np.int64)
    for c in range(n_cells):
        sizes[c] = count_words(cells[c])
    order = np.argsort(sizes)
    words = np.empty(n_cells * n_words, dtype=np.int64)  # nonzero words, cell after cell
    starts = np.empty(n_cells + 1, dtype=np.int64)
    n = 0
    for k in range(n_cells):
        starts[k] = n
        for w in range(n_words):
            if cells[order[k], w] != np.uint64(0):
                words[n] = w
                n += 1
    starts[n_cells] = n
    ext = np.empty(candidates.shape[0], dtype=np.int64)
    rank = np.empty(candidates.shape[0], dtype=np.int64)
    n_ext = 0
    for i in range(candidates.shape[0]):
        x = candidates[i]
        least = np.int64(1) << 62
        for k in range(n_cells):
            c = order[k]
            ones = 0
            for q in range(starts[k], starts[k + 1]):
                w = words[q]
                ones += popcount64(cells[c, w] & bits[x, w])
            least = min(least, ones, sizes[c] - ones)
            if least < least_needed or least == 0:
                break
        if least >= least_needed and least > 0:
            ext[n_ext] = x
            rank[n_ext] = 1 + floor_log2(least)
            n_ext += 1
    # suffix[i] = the h-index of rank[i:] (max j with j ranks ≥ j): a superset through ext[i]
    # uses only points of ext[i:], each of rank ≥ the number of points added
    cap = bounds[1] - depth
    suffix = np.zeros(n_ext + 1, dtype=np.int64)
    counts = np.zeros(cap + 2, dtype=np.int64)
    for i in range(n_ext - 1, -1, -1):
        counts[min(rank[i], cap + 1)] += 1
        at_least = 0
        for j in range(cap + 1, 0, -1):
            at_least += counts[j]
            if at_least >= j:
                suffix[i] = j
                break
    if depth + suffix[0] <= bounds[0]:
        return
    for i in range(n_ext):
        if depth + min(suffix[i], rank[i]) <= bounds[0]:
            continue
        x = ext[i]
        child = np.empty((2 * n_cells, n_words), dtype=np.uint64)
        for c in range(n_cells):
            child[c] = cells[c] & ~bits[x]
            child[n_cells + c] = cells[c] & bits[x]
        path[depth] = x
        _vc_search(child, depth + 1, ext[i + 1 : n_ext], bits, path, best, bounds)
        if bounds[0] >= bounds[1]:
            return


@njit(cache=True)
def largest_shattered_set(bits, full, cap):
    """The lexicographically first largest shattered set, searching sets S = {s_1 < ... < s_k}
    depth first in lexicographic order.

    S ∪ {x} is shattered iff x splits each of the 2^|S| cells of H by its labels on S; only the
    parent's extensions can extend a child (shattered sets are closed under subsets). Branch
    and bound: a point x can join only sets of size ≤ rank(x) beyond S (see ``_vc_search``), so at
    most the h-index of the extensions' ranks can be added; the search stops once ``cap``
    (⌊log2 |H|⌋) is reached. ``bits`` is (|X|, n_words).
    """
    cells = np.empty((1, full.shape[0]), dtype=np.uint64)
    cells[0] = full
    path = np.empty(max(cap, 1), dtype=np.int64)
    best = np.empty(max(cap, 1), dtype=np.int64)
    bounds = np.array([0, cap], dtype=np.int64)
    candidates = np.arange(bits.shape[0], dtype=np.int64)
    # depth from an array, not the literal 0: a recursive kernel must keep one signature, or
    # loading it from the cache segfaults (numba/numba#6061, numba/numba#6713)
    _vc_search(cells, bounds[0], candidates, bits, path, best, bounds)
    return best[: bounds[0]].copy()


# ----------------------------------------------------------------------------- threshold dimension
@njit(cache=True)
def _next_same_popcount(s):
    """The next larger integer with the same number of set bits (Gosper's hack)."""
    c = s & -s
    r = s + c
    return (((r ^ s) >> 2) // c) | r


@njit(cache=True)
def _chain_reaches(s, rows, trace, reach):
    """Whether ∅ ⊂ P_1 ⊂ ... ⊂ P_k = s (|P_i| = i) exists with every P_i a trace r ∩ s.

    Marks ``trace[P] = s`` for the traces of the rows on s and ``reach[P] = s`` for the
    traces reachable from ∅ by adding one point at a time (submasks in increasing order).
    """
    k = 0
    q = s
    while q:
        q &= q - 1
        k += 1
    sizes = np.zeros(k + 1, dtype=np.bool_)
    n_sizes = 0
    for i in range(rows.shape[0]):
        p = rows[i] & s
        trace[p] = s
        c = 0
        q = p
        while q:
            q &= q - 1
            c += 1
        if not sizes[c]:
            sizes[c] = True
            n_sizes += 1
    if n_sizes < k + 1:  # a chain needs a trace of every size 0..k
        return False
    reach[0] = s
    p = 0
    while True:
        p = (p - s) & s  # next submask of s
        if p == 0:
            break
        if trace[p] != s:
            continue
        q = p
        while q:
            y = q & -q
            if reach[p ^ y] == s:
                reach[p] = s
                break
            q ^= y
    return reach[s] == s


@njit(cache=True)
def threshold_chain(rows, n):
    """Largest threshold witness by subset DP over point sets s ⊆ {0..n−1} (n ≤ 20).

    ``rows[h]`` is hypothesis h's set of 1-points as an int64 bitmask. The points x_1..x_k with
    hypotheses h_0..h_k, h_i(x_j) = [j ≤ i], exist on s = {x_1..x_k} iff the traces r ∩ s hold a
    saturated chain ∅ = P_0 ⊂ P_1 ⊂ ... ⊂ P_k = s (P_i = {x_1..x_i}). Sizes are tried from the
    largest down, so the first s found is optimal. Returns (points x_1..x_k, rows h_0..h_k).
    """
    size = 1 << n
    trace = np.full(size, -1, dtype=np.int64)
    reach = np.full(size, -1, dtype=np.int64)
    best = np.int64(0)
    for k in range(n, 0, -1):
        s = np.int64((1 << k) - 1)
        while s < size:
            if _chain_reaches(s, rows, trace, reach):
                best = s
                break
            s = _next_same_popcount(s)
        if best != 0:
            break
    # walk the chain down from s, removing x_k, x_{k-1}, ... (the marks for `best` are current)
    k = 0
    q = best
    while q:
        q &= q - 1
        k += 1
    points = np.empty(k, dtype=np.int64)
    chain = np.empty(k + 1, dtype=np.int64)
    p = best
    for i in range(k, 0, -1):
        chain[i] = p
        q = p
        while q:
            y = q & -q
            if reach[p ^ y] == best:
                points[i - 1] = lowest_bit(np.uint64(y))
                p ^= y
                break
            q ^= y
    chain[0] = 0
    hyps = np.empty(k + 1, dtype=np.int64)
    for i in range(k + 1):
        for h in range(rows.shape[0]):
            if rows[h] & best == chain[i]:
                hyps[i] = h
                break
    return points, hyps
