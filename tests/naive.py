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


# diffusion: training dynamics of the random-feature score model ----------------------------------
# Definitions from shared/papers/diffusion.md §1: B = A/√p, L(B) = 1 + (Δ/d) Tr(B U Bᵀ) +
# (2√Δ/d) Tr(B V), flow dB/dτ = −(2/ψ_p)(Δ B U + √Δ Vᵀ) from B(0) = 0. Dense p × p matrices only.


def quadratic_dsm_loss_naive(B, U, V, delta: float) -> float:
    """1 + (Δ/d) Σ_ij (B U Bᵀ)_ii + (2√Δ/d) Σ_i (B V)_ii, the traces written out."""
    import numpy as np

    d = B.shape[0]
    quad = sum((B @ U @ B.T)[i, i] for i in range(d))
    lin = sum((B @ V)[i, i] for i in range(d))
    return float(1 + delta / d * quad + 2 * np.sqrt(delta) / d * lin)


def ge_flow_dense_naive(sample, tau: float) -> dict:
    """The GE closed form with dense matrices: U = M Mᵀ + s_t² I, V = b_t W/√d,
    Ũ = a_t² W Σ_t Wᵀ/d + (v_t² + s_t²) I, B(τ) = −(1/√Δ) Vᵀ U⁻¹ (I − expm(−2ΔUτ/ψ_p)) (scipy
    expm); the score error by its definition E‖B φ(x) + Σ_t⁻¹ x‖²/d, with the GE moments
    E[φφᵀ] = Ũ and E[φ xᵀ] = a_t W Σ_t/√d (Stein)."""
    import numpy as np
    from scipy.linalg import expm

    c = sample.consts
    W, d, p = np.asarray(sample.W), sample.d, sample.p
    U = np.asarray(sample.u_matrix())
    V = c.b * W / np.sqrt(d)
    sigma_t = np.exp(-2 * c.t) * np.asarray(sample.sigma_diag) + c.delta
    U_test = c.a**2 * W @ np.diag(sigma_t) @ W.T / d + (c.v2 + c.s2) * np.eye(p)
    psi_p = p / d
    if np.isinf(tau):
        B = -V.T @ np.linalg.inv(U) / np.sqrt(c.delta)
    else:
        B = (
            -V.T @ np.linalg.inv(U) @ (np.eye(p) - expm(-2 * c.delta * U * tau / psi_p))
        ) / np.sqrt(c.delta)
    cross = c.a * W @ np.diag(sigma_t) / np.sqrt(d)  # E[φ xᵀ]
    score = (
        np.trace(B @ U_test @ B.T)
        + 2 * np.trace(B @ cross @ np.diag(1 / sigma_t))
        + np.sum(1 / sigma_t)
    ) / d
    return {
        "B": B,
        "train": quadratic_dsm_loss_naive(B, U, V, c.delta),
        "test": quadratic_dsm_loss_naive(B, U_test, V, c.delta),
        "score": float(score),
        "U": U,
        "V": V,
        "U_test": U_test,
    }


def euler_flow_naive(U, V, delta: float, psi_p: float, tau: float, steps: int):
    """Explicit Euler for dB/dτ = −(2/ψ_p)(Δ B U + √Δ Vᵀ), B(0) = 0, with ``steps`` equal steps."""
    import numpy as np

    B = np.zeros((V.shape[1], U.shape[0]))
    h = tau / steps
    for _ in range(steps):
        B = B - h * (2 / psi_p) * (delta * B @ U + np.sqrt(delta) * V.T)
    return B


def ridgeless_minimum_naive(U, V, delta: float) -> float:
    """min_B L(B): solve the normal equations Δ B U = −√Δ Vᵀ and evaluate the loss there."""
    import numpy as np

    B = np.linalg.solve(U, -np.sqrt(delta) * V).T / delta
    return quadratic_dsm_loss_naive(B, U, V, delta)


def noise_averaged_features_naive(W, X, t: float, nodes: int = 40):
    """U_ij = (1/n) Σ_ν E_ξ σ(h_iν) σ(h_jν) and V = (1/n) Σ_ν E_ξ[σ(h_ν) ξᵀ] for tanh,
    h_iν = e^{−t} W_i·x_ν/√d + √Δ W_i·ξ/√d, by plain loops: each pair by 2-D Gauss–Hermite in
    (ζ_i, ζ_j) (the noise pre-activations written as a 2-D Gaussian via Cholesky), V by the 1-D
    projection ξ = (W_i/‖W_i‖) z + (orthogonal part, which averages out)."""
    import numpy as np

    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / np.sqrt(2 * np.pi)
    p, d = W.shape
    n = X.shape[1]
    delta = 1 - np.exp(-2 * t)
    cov = delta * W @ W.T / d
    U = np.zeros((p, p))
    V = np.zeros((p, d))
    for nu in range(n):
        m = np.exp(-t) * W @ X[:, nu] / np.sqrt(d)
        for i in range(p):
            norm = np.linalg.norm(W[i])
            slope = sum(
                wk * np.tanh(m[i] + np.sqrt(delta) * norm / np.sqrt(d) * zk) * zk
                for zk, wk in zip(z, w, strict=True)
            )
            V[i] += slope * W[i] / norm / n
            for j in range(p):
                a = np.sqrt(cov[i, i])
                r = cov[i, j] / a
                b = np.sqrt(max(cov[j, j] - r * r, 0.0))
                total = 0.0
                for z1, w1 in zip(z, w, strict=True):
                    for z2, w2 in zip(z, w, strict=True):
                        total += w1 * w2 * np.tanh(m[i] + a * z1) * np.tanh(m[j] + r * z1 + b * z2)
                U[i, j] += total / n
    return U, V


def population_entry_naive(W, sigma_t, i: int, j: int, nodes: int = 200) -> float:
    """E[tanh(h_i) tanh(h_j)] for h = W x/√d, x ~ N(0, diag(σ_t)), by 2-D Gauss–Hermite."""
    import numpy as np

    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / np.sqrt(2 * np.pi)
    d = W.shape[1]
    cov = W @ np.diag(sigma_t) @ W.T / d
    a = np.sqrt(cov[i, i])
    r = cov[i, j] / a
    b = np.sqrt(max(cov[j, j] - r * r, 0.0))
    Z1, Z2 = np.meshgrid(z, z, indexing="ij")
    return float(np.sum(np.outer(w, w) * np.tanh(a * Z1) * np.tanh(r * Z1 + b * Z2)))


def first_crossing_naive(tau, values, level: float, *, start: int = 0, up: bool) -> float:
    """The first grid τ at or after ``start`` where values cross ``level`` (no refinement)."""
    for k in range(start, len(tau)):
        if (values[k] >= level) if up else (values[k] <= level):
            return float(tau[k])
    return float("nan")


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


# Deep CRL --------------------------------------------------------------------------------------


def successor_measure_naive(p, gamma: float, terms: int = 2000):
    """Σ_{k=1}^{terms} (1−γ)γ^{k−1} P^k by repeated multiplication (truncated series)."""
    import numpy as np

    out, power = np.zeros_like(p), np.eye(len(p))
    for k in range(1, terms + 1):
        power = power @ p
        out += (1 - gamma) * gamma ** (k - 1) * power
    return out


def shortest_paths_naive(walls) -> dict:
    """Floyd–Warshall over free cells of a wall grid with unit 4-neighbour edges:
    {(cell_a, cell_b): distance} with cells as (row, col)."""
    cells = [(r, c) for r in range(len(walls)) for c in range(len(walls[0])) if not walls[r][c]]
    inf = float("inf")
    dist = {(a, b): 0 if a == b else inf for a in cells for b in cells}
    for a in cells:
        for b in cells:
            if abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1:
                dist[a, b] = 1
    for k in cells:
        for a in cells:
            for b in cells:
                dist[a, b] = min(dist[a, b], dist[a, k] + dist[k, b])
    return dist


def energy_naive(phi, psi) -> list[list[float]]:
    """F_ij = −sqrt(Σ_k (φ_ik − ψ_jk)² + 1e-6) by explicit loops."""
    import math

    return [
        [-math.sqrt(sum((a - b) ** 2 for a, b in zip(p, q, strict=True)) + 1e-6) for q in psi]
        for p in phi
    ]


def infonce_naive(logits) -> float:
    """mean_i [log Σ_j exp F_ij − F_ii] by explicit loops."""
    import math

    n = len(logits)
    return sum(math.log(sum(math.exp(x) for x in row)) - row[i] for i, row in enumerate(logits)) / n
