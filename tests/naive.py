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


# superposition ------------------------------------------------------------------------------
# Definitions from shared/papers/superposition.md §1–2, written as literally as possible.


def toy_batch_loss_naive(W, b, x) -> float:
    """(1/B) Σ_b Σ_i (ReLU(Σ_j W_ij Σ_k W_kj x_bk + b_i) − x_bi)² by plain loops (one model)."""
    n_batch, n = len(x), len(W)
    m = len(W[0])
    total = 0.0
    for s in range(n_batch):
        h = [sum(W[k][j] * x[s][k] for k in range(n)) for j in range(m)]
        for i in range(n):
            y = max(0.0, sum(W[i][j] * h[j] for j in range(m)) + b[i])
            total += (y - x[s][i]) ** 2
    return total / n_batch


def weak_ideal_loss_naive(p, m: int) -> float:
    """Σ over all but the m most frequent features of 4/3 p_i − p_i²."""
    ordered = sorted((float(v) for v in p), reverse=True)
    return sum(4.0 / 3.0 * q - q * q for q in ordered[m:])


def one_active_loss_quad(W, b, p) -> float:
    """Eq. (8) by numerical quadrature over v ~ U(0, 2) of every term, pair by pair."""
    from scipy.integrate import quad

    n, m = len(W), len(W[0])
    total_p = sum(p)
    loss = 0.0
    for i in range(n):
        for j in range(n):
            a = sum(W[j][k] * W[i][k] for k in range(m))
            target = (lambda v: v) if i == j else (lambda v: 0.0)
            value, _ = quad(
                lambda v, a=a, c=b[j], t=target: 0.5 * (max(0.0, a * v + c) - t(v)) ** 2,
                0.0,
                2.0,
                points=[min(2.0, max(0.0, -b[j] / a))] if a != 0 else None,
            )
            loss += p[i] / total_p * value
    return loss


def squared_overlaps_naive(rows) -> list[float]:
    """(Ŵ_i·Ŵ_j)² for every pair i < j of non-zero rows."""
    unit = []
    for r in rows:
        norm = sum(v * v for v in r) ** 0.5
        if norm > 0:
            unit.append([v / norm for v in r])
    return [
        sum(a * c for a, c in zip(unit[i], unit[j], strict=True)) ** 2
        for i in range(len(unit))
        for j in range(i + 1, len(unit))
    ]
