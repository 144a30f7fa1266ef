"""Numba kernel for :mod:`theory.online.transductive` (private; numpy arrays only).

BKM97's value of the transductive game on a fixed sequence x_1..x_n
(docs/online.md#the-game-and-its-value):

    v(V, t) = 0                                  if t > n or |V| ≤ 1,
    v(V, t) = v(V_{x_t}^b, t + 1)                if only the label b is realizable at x_t,
    v(V, t) = c(v(V^0, t + 1), v(V^1, t + 1))    otherwise,  c(a, b) = a + 1 if a = b else max(a, b).

The version spaces reached at step t are the cells of H cut by the labels of x_1..x_{t−1}, so they
are disjoint: no memo is needed. A version space is a slice ``rows[lo:hi]`` of one permutation of
the hypotheses; splitting it at x_t partitions the slice in place (quicksort style), so one
evaluation costs O(n·|H|) time and no allocation.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def value_on_slice(columns, sequence, rows, lo, hi, t):
    """v(V, t) for V = ``rows[lo:hi]`` (0-based t); ``columns`` is the class transposed, (|X|, |H|).

    Reorders ``rows[lo:hi]`` in place (it stays a permutation of the same rows).
    """
    n = sequence.shape[0]
    while hi - lo > 1 and t < n:
        x = sequence[t]
        i = lo
        j = hi - 1
        while i <= j:  # zeros to the front, ones to the back
            if columns[x, rows[i]] == 0:
                i += 1
            else:
                rows[i], rows[j] = rows[j], rows[i]
                j -= 1
        if i in (lo, hi):  # one label realizable: pass through
            t += 1
            continue
        a = value_on_slice(columns, sequence, rows, lo, i, t + 1)
        b = value_on_slice(columns, sequence, rows, i, hi, t + 1)
        return a + 1 if a == b else max(a, b)
    return 0
