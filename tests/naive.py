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


# Artificial Hivemind ---------------------------------------------------------------------------
# Definitions from shared/papers/hivemind_faster_rcnn.md §1.3–1.4, as plain loops over pairs.


def inter_model_naive(groups, include_self_pairs: bool = False):
    """Entry (a, b): the mean of e·f over every pair (e of model a, f of model b) of every query
    both answered; for a = b the pair (i, i) is skipped unless include_self_pairs."""
    n_models = max(len(g) for g in groups)
    out = [[None] * n_models for _ in range(n_models)]
    for a in range(n_models):
        for b in range(n_models):
            values = []
            for per_model in groups:
                ea, eb = per_model[a], per_model[b]
                if ea is None or eb is None:
                    continue
                for i, e in enumerate(ea):
                    for j, f in enumerate(eb):
                        if a != b or i != j or include_self_pairs:
                            values.append(float(sum(x * y for x, y in zip(e, f, strict=True))))
            out[a][b] = sum(values) / len(values) if values else float("nan")
    return out


def distinct_models_naive(unit, models, n: int) -> float:
    """Mean over responses of the number of distinct models among its n most similar others
    (ties by position)."""
    r = len(unit)
    counts = []
    for i in range(r):
        sims = [(-sum(x * y for x, y in zip(unit[i], unit[j], strict=True)), j) for j in range(r)]
        order = [j for _, j in sorted(s for s in sims if s[1] != i)]
        counts.append(len({models[j] for j in order[:n]}))
    return sum(counts) / r


def interchangeable_naive(per_model, n: int) -> float:
    """Distinct models among n neighbours drawn uniformly from the others, by enumerating every
    n-subset (tiny sizes only)."""
    labels = [m for m, c in enumerate(per_model) for _ in range(c)]
    total = 0.0
    for i in range(len(labels)):
        others = [labels[j] for j in range(len(labels)) if j != i]
        subsets = list(combinations(others, n))
        total += sum(len(set(s)) for s in subsets) / len(subsets)
    return total / len(labels)


# Faster R-CNN ----------------------------------------------------------------------------------


def iou_naive(a, b, legacy: bool = False) -> float:
    """IoU of two boxes [x1, y1, x2, y2]; legacy counts inclusive pixels (+1)."""
    extra = 1 if legacy else 0
    iw = max(0, min(a[2], b[2]) - max(a[0], b[0]) + extra)
    ih = max(0, min(a[3], b[3]) - max(a[1], b[1]) + extra)
    inter = iw * ih
    area_a = (a[2] - a[0] + extra) * (a[3] - a[1] + extra)
    area_b = (b[2] - b[0] + extra) * (b[3] - b[1] + extra)
    return inter / (area_a + area_b - inter)


def nms_naive(boxes, scores, threshold: float, legacy: bool = True) -> list[int]:
    """Keep boxes in decreasing score order unless IoU with a kept box exceeds threshold."""
    order = sorted(range(len(boxes)), key=lambda i: (-scores[i], i))
    keep: list[int] = []
    for i in order:
        if all(iou_naive(boxes[i], boxes[k], legacy) <= threshold for k in keep):
            keep.append(i)
    return keep
