"""Slow, obviously correct oracles for the fast kernels (exact arithmetic, plain loops).

Grouped by paper; each oracle follows its paper's definition literally.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, permutations
from math import comb

# pass@k ----------------------------------------------------------------------------------------


def pass_at_k_fraction(n: int, c: int, k: int) -> Fraction:
    """1 - C(n-c, k) / C(n, k) exactly (Chen et al. 2021, eq. 1); C(m, k) = 0 for k > m."""
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def pass_at_k_plugin_fraction(n: int, c: int, k: int) -> Fraction:
    """1 - (1 - c/n)^k exactly."""
    return 1 - (1 - Fraction(c, n)) ** k


def pass_at_k_exact_naive(p: float, k: int) -> float:
    """1 - (1 - p)^k in plain floating point (inaccurate for tiny p)."""
    return 1.0 - (1.0 - p) ** k


# online learning -------------------------------------------------------------------------------
# A class is a 0/1 matrix (rows = hypotheses, columns = points); version spaces are frozensets of
# row indices. Definitions from shared/papers/online.md §1.


def _class_rows(matrix) -> list[tuple[int, ...]]:
    return [tuple(int(v) for v in row) for row in matrix]


def littlestone_dim_naive(matrix) -> int:
    """L(∅) = −1; L(V) = max over x splitting V of 1 + min(L(V_x^0), L(V_x^1)), 0 if none."""
    rows = _class_rows(matrix)
    n_points = len(rows[0])
    memo: dict[frozenset[int], int] = {}

    def ldim(version_space: frozenset[int]) -> int:
        if not version_space:
            return -1
        if version_space not in memo:
            best = 0
            for x in range(n_points):
                zeros = frozenset(h for h in version_space if rows[h][x] == 0)
                ones = version_space - zeros
                if zeros and ones:
                    best = max(best, 1 + min(ldim(zeros), ldim(ones)))
            memo[version_space] = best
        return memo[version_space]

    return ldim(frozenset(range(len(rows))))


def vc_dim_naive(matrix) -> int:
    """The largest k such that some k points carry all 2^k label patterns."""
    rows = _class_rows(matrix)
    best = 0
    for k in range(1, len(rows[0]) + 1):
        for points in combinations(range(len(rows[0])), k):
            if len({tuple(r[x] for x in points) for r in rows}) == 2**k:
                best = k
    return best


def threshold_dim_naive(matrix) -> int:
    """The largest k with points x_1..x_k and hypotheses h_0..h_k such that h_i(x_j) = [j ≤ i]."""
    rows = _class_rows(matrix)
    best = 0
    for k in range(1, len(rows[0]) + 1):
        for points in permutations(range(len(rows[0])), k):
            patterns = {tuple(r[x] for x in points) for r in rows}
            if all(tuple(int(j < i) for j in range(k)) in patterns for i in range(k + 1)):
                best = k
                break
    return best


def transductive_value_naive(matrix, sequence) -> int:
    """BKM97's v(V, t): 0 if t > n or |V| ≤ 1; pass-through when one label is realizable at
    x_t; else c(v(V^0), v(V^1)) with c(a, b) = a + 1 if a = b else max(a, b)."""
    rows = _class_rows(matrix)
    sequence = list(sequence)

    def value(version_space: frozenset[int], t: int) -> int:
        if t >= len(sequence) or len(version_space) <= 1:
            return 0
        x = sequence[t]
        zeros = frozenset(h for h in version_space if rows[h][x] == 0)
        ones = version_space - zeros
        if not zeros or not ones:
            return value(version_space, t + 1)
        a, b = value(zeros, t + 1), value(ones, t + 1)
        return a + 1 if a == b else max(a, b)

    return value(frozenset(range(len(rows))), 0)


def mtr_bruteforce(matrix) -> int:
    """M_tr = max over all orders of the points of the transductive value (online.md §1)."""
    n_points = len(_class_rows(matrix)[0])
    return max(transductive_value_naive(matrix, order) for order in permutations(range(n_points)))


# gated attention --------------------------------------------------------------------------------
# Definitions from shared/papers/gated_attention.md §3, written with plain loops.


def causal_attention_naive(q, k, v):
    """softmax(q_i·k_j/√d over j ≤ i) and Σ_j A_ij v_j, one (batch, head, query) at a time."""
    import math

    import numpy as np

    b, h, t, d = q.shape
    weights = np.zeros((b, h, t, t))
    out = np.zeros((b, h, t, v.shape[-1]))
    for bi in range(b):
        for hi in range(h):
            for i in range(t):
                scores = [float(q[bi, hi, i] @ k[bi, hi, j]) / math.sqrt(d) for j in range(i + 1)]
                top = max(scores)
                exps = [math.exp(s - top) for s in scores]
                for j in range(i + 1):
                    weights[bi, hi, i, j] = exps[j] / sum(exps)
                    out[bi, hi, i] += weights[bi, hi, i, j] * v[bi, hi, j]
    return out, weights


def f_attn_naive(attn_per_layer) -> float:
    """F-Attn: mean over layers, heads, batch and queries i ≥ 1 of the weight on key 0."""
    total, count = 0.0, 0
    for attn in attn_per_layer:
        b, h, t, _ = attn.shape
        for bi in range(b):
            for hi in range(h):
                for i in range(1, t):
                    total += float(attn[bi, hi, i, 0])
                    count += 1
    return total / count


def backcopy_bayes_loss_naive(source, tokens) -> float:
    """Mean −log p(x_t | x_<t) under the true Bigram-Backcopy source, over targets t ≥ 1."""
    import math

    v = source.transition.shape[0]
    triggers = set(source.triggers.tolist())
    losses = []
    for row in tokens:
        for t in range(1, len(row)):
            if t == 1:
                losses.append(math.log(v))
            elif t >= 3 and int(row[t - 1]) in triggers:
                losses.append(0.0 if row[t] == row[t - 2] else math.inf)
            else:
                losses.append(-math.log(source.transition[row[t - 1], row[t]]))
    return sum(losses) / len(losses)
