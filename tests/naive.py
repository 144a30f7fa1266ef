"""Slow, obviously correct oracles for the fast kernels (exact arithmetic, plain loops).

Grouped by paper; each oracle follows its paper's definition literally.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, permutations
from math import comb

import numpy as np

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


def crossing_k_naive(ks, base, rl, scale=None, rtol: float = 1e-10):
    """(k*, bracket, number of sign changes) by walking Δ = rl - base entry by entry: skip
    entries with |Δ| <= rtol·scale (scale |Δ| by default), remember the last kept one, and at the
    first kept Δ < 0 after a kept Δ > 0 interpolate linearly in log k. k* and bracket are None
    when there is no such entry."""
    k_star, bracket, changes, last = None, None, 0, None
    for i, (b, r) in enumerate(zip(base, rl, strict=True)):
        d = float(r) - float(b)
        size = abs(d) if scale is None else float(scale[i] if hasattr(scale, "__len__") else scale)
        if not abs(d) > rtol * size:
            continue
        if last is not None and (d > 0) != (last[1] > 0):
            changes += 1
            if d < 0 and k_star is None:
                j, d_j = last
                t = d_j / (d_j - d)
                k_star = math.exp(math.log(ks[j]) + t * (math.log(ks[i]) - math.log(ks[j])))
                bracket = (int(ks[j]), int(ks[i]))
        last = (i, d)
    return k_star, bracket, changes


def bootstrap_pass_at_k_naive(n, c, ks, rng, n_boot: int, level: float) -> dict:
    """The paired bootstrap of pass@k, one draw at a time: exact per-problem estimates
    (``pass_at_k_fraction``), draw b = ``rng.integers(0, P, size=P)``, plain sums over the drawn
    problems of each model's estimates and of the per-problem differences to model 0, the
    crossing (``crossing_k_naive``, ties within 1e-10 of the draw's mean |difference|), then
    percentiles (numpy's linear quantiles; k* over the draws that cross)."""
    models, problems, kk = len(n), len(n[0]), range(len(ks))
    value = [
        [
            [float(pass_at_k_fraction(int(n[m][i]), int(c[m][i]), int(k))) for k in ks]
            for i in range(problems)
        ]
        for m in range(models)
    ]
    delta = [
        [[value[m][i][j] - value[0][i][j] for j in kk] for i in range(problems)]
        for m in range(1, models)
    ]
    curves, diffs, k_star = [], [], []
    for _ in range(n_boot):
        idx = rng.integers(0, problems, size=problems)
        curves.append([[sum(v[i][j] for i in idx) / problems for j in kk] for v in value])
        diffs.append([[sum(d[i][j] for i in idx) / problems for j in kk] for d in delta])
        spread = [[sum(abs(d[i][j]) for i in idx) / problems for j in kk] for d in delta]
        k_star.append(
            [
                crossing_k_naive(ks, [0.0] * len(ks), dm, sm)[0]
                for dm, sm in zip(diffs[-1], spread, strict=True)
            ]
        )
    tail = (1 - level) / 2
    k_ci = []
    for m in range(models - 1):
        crossed = [row[m] for row in k_star if row[m] is not None]
        k_ci.append(tuple(np.quantile(crossed, [tail, 1 - tail])) if crossed else None)
    return {
        "low": np.quantile(curves, tail, axis=0),
        "high": np.quantile(curves, 1 - tail, axis=0),
        "difference_low": np.quantile(diffs, tail, axis=0),
        "difference_high": np.quantile(diffs, 1 - tail, axis=0),
        "crossing_share": [
            sum(row[m] is not None for row in k_star) / n_boot for m in range(models - 1)
        ],
        "k_star_ci": k_ci,
    }


# online learning -------------------------------------------------------------------------------
# A class is a 0/1 matrix (rows = hypotheses, columns = points); version spaces are frozensets of
# row indices. Definitions from docs/online.md#the-game-and-its-value.


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
    """M_tr = max over all orders of the points of the transductive value (orders suffice)."""
    n_points = len(_class_rows(matrix)[0])
    return max(transductive_value_naive(matrix, order) for order in permutations(range(n_points)))


def mtr_pareto_fronts_naive(matrix) -> dict[int, set[tuple[int, ...]]]:
    """For every suffix set S (bitmask over the points), the Pareto-maximal vectors
    (v(cell(h), σ))_h over all orders σ of S, where cell(h) is the hypotheses that agree with h
    outside S (docs/online.md#how-the-solvers-compute, (B)), each cell scored by
    :func:`transductive_value_naive`."""
    rows = _class_rows(matrix)
    n_points = len(rows[0])
    fronts = {}
    for mask in range(1 << n_points):
        inside = [x for x in range(n_points) if mask >> x & 1]
        outside = [x for x in range(n_points) if not mask >> x & 1]
        cells = [[g for g in rows if all(g[x] == r[x] for x in outside)] for r in rows]
        vectors = {
            tuple(transductive_value_naive(cell, order) for cell in cells)
            for order in permutations(inside)
        }
        fronts[mask] = {
            v
            for v in vectors
            if not any(w != v and all(a <= b for a, b in zip(v, w, strict=True)) for w in vectors)
        }
    return fronts


# diffusion: training dynamics of the random-feature score model ----------------------------------
# Definitions from docs/diffusion.md#the-random-features-score-model: B = A/√p, L(B) = 1 + (Δ/d)
# Tr(B U Bᵀ) + (2√Δ/d) Tr(B V), flow dB/dτ = −(2/ψ_p)(Δ B U + √Δ Vᵀ) from B(0) = 0. Dense p × p
# matrices only.


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
# Definitions of docs/hivemind.md (the metrics as the authors' code computes them), as plain loops
# over pairs.


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


def nms_naive(
    boxes, scores, threshold: float, legacy: bool = True, later_first: bool = True
) -> list[int]:
    """Keep boxes in decreasing score order (equal scores: later index first, or earlier with
    ``later_first=False``) unless IoU with a kept box exceeds threshold."""
    order = sorted(range(len(boxes)), key=lambda i: (-scores[i], -i if later_first else i))
    keep: list[int] = []
    for i in order:
        if all(iou_naive(boxes[i], boxes[k], legacy) <= threshold for k in keep):
            keep.append(i)
    return keep


# diffusion: spectrum of the random-feature matrix U -----------------------------------------------
# Definitions from docs/diffusion.md#the-papers-model-and-what-the-checks-use, evaluated literally:
# adaptive scipy quadrature (not Gauss–Hermite) for the constants, the quadratic equation for
# Marchenko–Pastur, and the GE matrix written out term by term.

_GAUSS_CUT = 12.0  # the normal density beyond |z| = 12 holds ~1e-32; every integrand is bounded


def _normal_expectation_naive(f) -> float:
    """E f(z), z ~ N(0, 1), by adaptive ``scipy.integrate.quad`` on [−12, 12]."""
    import math

    from scipy.integrate import quad

    def weighted(z: float) -> float:
        return f(z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    return quad(weighted, -_GAUSS_CUT, _GAUSS_CUT, epsabs=1e-13, epsrel=1e-12, limit=200)[0]


def rf_constants_naive(t: float, activation=None, sigma_x2: float = 1.0) -> dict:
    """The constants of Lemma C.1 (Bonnaire et al. 2025) from their definitions, with c = e^{−t}σ_x,
    h = c u + √Δ_t v: a_t = E[σ(h) u]/c, b_t = E[v σ(h)], v_t² = E[σ(cu + √Δ v) σ(cu + √Δ w)] −
    a_t²c² (v, w independent given u, so the inner pair is the square of E_v σ(cu + √Δ v)), and s_t²
    = E σ(Γ_t z)² − a_t²c² − v_t² − b_t²; every expectation by nested adaptive quadrature. Also
    returns ``second_moment`` = E σ(Γ_t z)² computed on its own."""
    import math

    activation = math.tanh if activation is None else activation
    c = math.exp(-t) * math.sqrt(sigma_x2)
    noise = math.sqrt(1 - math.exp(-2 * t))
    gamma = math.sqrt(c * c + noise * noise)

    def given_u(u: float, g) -> float:  # E_v g(u, v)
        return _normal_expectation_naive(lambda v: g(u, v))

    a = _normal_expectation_naive(
        lambda u: given_u(u, lambda u_, v: activation(c * u_ + noise * v) * u_)
    )
    a /= c
    b = _normal_expectation_naive(
        lambda u: given_u(u, lambda u_, v: v * activation(c * u_ + noise * v))
    )
    both = _normal_expectation_naive(
        lambda u: given_u(u, lambda u_, v: activation(c * u_ + noise * v)) ** 2
    )
    v2 = both - (a * c) ** 2
    second = _normal_expectation_naive(lambda z: activation(gamma * z) ** 2)
    s2 = second - (a * c) ** 2 - v2 - b * b
    return {"a": a, "b": b, "v2": v2, "s2": s2, "second_moment": second}


def rf_constants_monte_carlo(
    t: float, sigma_x2: float = 1.0, samples: int = 500_000, seed: int = 12345
) -> dict:
    """The same definitions as :func:`rf_constants_naive` estimated by sample means over
    ``samples`` draws of independent standard normals u, v, w, z (drawn in that order from
    ``default_rng(seed)``), σ = tanh: the estimator of the reference's spectrum script, whose
    sample size and seed are these defaults."""
    import math

    rng = np.random.default_rng(seed)
    u, v, w, z = (rng.standard_normal(samples) for _ in range(4))
    c = math.exp(-t) * math.sqrt(sigma_x2)
    noise = math.sqrt(-math.expm1(-2 * t))
    gamma = math.sqrt(c * c + noise * noise)
    first, second = np.tanh(c * u + noise * v), np.tanh(c * u + noise * w)  # (samples,)
    a = float(np.mean(first * u)) / c
    b = float(np.mean(v * first))
    v2 = float(np.mean(first * second)) - (a * c) ** 2
    s2 = float(np.mean(np.tanh(gamma * z) ** 2)) - (a * c) ** 2 - v2 - b * b
    return {"a": a, "b": b, "v2": v2, "s2": s2}


def mp_stieltjes_naive(z: complex, ratio: float, variance: float = 1.0) -> complex:
    """The Marchenko–Pastur Stieltjes transform at one z (Im z > 0): the root with Im m > 0 of
    γσ²z m² + (z − σ²(1 − γ)) m + 1 = 0 (Silverstein's equation with a single atom σ²)."""
    import numpy as np

    roots = np.roots([ratio * variance * z, z - variance * (1 - ratio), 1.0])
    return complex(max(roots, key=lambda m: m.imag))


def ge_matrix_naive(sample):
    """U_GE = G Gᵀ/n + b_t² W Wᵀ/d + s_t² I_p with G = e^{−t} a_t W X/√d + v_t Ω (Lemma C.1),
    written term by term from W, X, Ω (not through the factor M)."""
    import math

    import numpy as np

    c = sample.consts
    W, X, Omega = (np.asarray(m) for m in (sample.W, sample.X, sample.Omega))
    p, d = W.shape
    n = X.shape[1]
    G = c.decay * c.a * (W @ X) / math.sqrt(d) + math.sqrt(c.v2) * Omega
    return G @ G.T / n + c.b**2 * (W @ W.T) / d + c.s2 * np.eye(p)


def ge_eigenvalues_factor_gram_naive(sample):
    """U_GE's eigenvalues the old way, through the (n+d) × (n+d) Gram matrix MᵀM of the factor
    M = [G/√n, b_t W/√d] written from W, X, Ω: its top min(p, n+d) eigenvalues + s_t², and the
    count max(0, p − (n+d)) of eigenvalues equal to s_t²."""
    import math

    import numpy as np

    c = sample.consts
    W, X, Omega = (np.asarray(m) for m in (sample.W, sample.X, sample.Omega))
    p, d = W.shape
    n = X.shape[1]
    G = c.decay * c.a * (W @ X) / math.sqrt(d) + math.sqrt(c.v2) * Omega
    M = np.hstack([G / math.sqrt(n), c.b * W / math.sqrt(d)])
    values = np.sort(np.linalg.eigvalsh(M.T @ M))[max(0, n + d - p) :] + c.s2
    return values, max(0, p - n - d)


def nonlinear_u_naive(sample, nodes: int = 100):
    """The true U_ij = (1/n) Σ_ν E_ξ tanh(h_iν) tanh(h_jν), h_iν = m_iν + √Δ_t W_i·ξ/√d with
    m = e^{−t} W X/√d, one entry and one sample at a time: the noise pair
    (W_i·ξ, W_j·ξ)√(Δ_t/d) is written as (α z₁, β z₁ + γ z₂) by a 2 × 2 Cholesky factor of
    Δ_t K_{ij}, K = W Wᵀ/d, and E over (z₁, z₂) is a tensor Gauss–Hermite sum."""
    import math

    import numpy as np

    c = sample.consts
    W, X = np.asarray(sample.W), np.asarray(sample.X)
    p, d = W.shape
    n = X.shape[1]
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / math.sqrt(2 * math.pi)
    Z1, Z2 = np.meshgrid(z, z, indexing="ij")
    weight = np.outer(w, w)
    cov = c.delta * (W @ W.T) / d
    m = c.decay * (W @ X) / math.sqrt(d)
    U = np.zeros((p, p))
    for i in range(p):
        for j in range(p):
            alpha = math.sqrt(cov[i, i])
            beta = cov[i, j] / alpha
            gamma = math.sqrt(max(cov[j, j] - beta * beta, 0.0))
            for nu in range(n):
                both = np.tanh(m[i, nu] + alpha * Z1) * np.tanh(m[j, nu] + beta * Z1 + gamma * Z2)
                U[i, j] += float(np.sum(weight * both)) / n
    return U


# superposition ------------------------------------------------------------------------------
# Definitions from docs/superposition.md#the-papers-model-and-what-the-checks-use, written as
# literally as possible.


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


# RLVR toy (Arm A) --------------------------------------------------------------------------------
# Arm A (docs/rlvr.md#rlvr-tiny-reproduction-arm-a-toy-arm-b-transformer): π(s|x) =
# softmax(logits)_s; GRPO's objective for one prompt is
# (1/G) Σ_j A_j log π(s_j|x), differentiated here one logit at a time by central differences.


def score_objective_gradient_naive(logits, picks, weights, h: float = 1e-6):
    """d/dz_s of (1/G) Σ_j w_j log softmax(z)_{s_j}, per row, by central finite differences."""
    import numpy as np

    def objective(z, row):
        log_pi = z - np.log(np.sum(np.exp(z)))
        return sum(w * log_pi[s] for s, w in zip(picks[row], weights[row], strict=True)) / len(
            picks[row]
        )

    grad = np.zeros_like(logits, dtype=float)
    for row in range(logits.shape[0]):
        for s in range(logits.shape[1]):
            up, down = logits[row].astype(float), logits[row].astype(float)
            up[s] += h
            down[s] -= h
            grad[row, s] = (objective(up, row) - objective(down, row)) / (2 * h)
    return grad


def success_prob_naive(probs, g) -> list[float]:
    """p_i = Σ_s π(s|x_i) g[i, s] by explicit loops."""
    return [sum(probs[i][s] * g[i][s] for s in range(len(g[i]))) for i in range(len(g))]


def solved_regions_naive(counts: dict) -> dict:
    """Venn regions of the solved sets (c > 0), one problem at a time: key = the names of the
    arms that solve it joined by "+", "none" when no arm does."""
    names = list(counts)
    out: dict = {}
    for i in range(len(next(iter(counts.values())))):
        key = "+".join(n for n in names if counts[n][i] > 0) or "none"
        out[key] = out.get(key, 0) + 1
    return out


def path_success_prob_naive(next_probs, adj, start: int, goal: int, max_len: int) -> float:
    """Arm B's exact pass@1 by brute force over every node sequence of length 1..max_len:
    Σ Π_t next_probs(prefix)[v_t] over the sequences the verifier accepts (each step an edge,
    the goal last and not before: sampling stops at the goal). ``next_probs(prefix tuple)``
    gives the model's distribution over the next node."""
    import itertools

    n = len(adj)
    total = 0.0
    for m in range(1, max_len + 1):
        for seq in itertools.product(range(n), repeat=m):
            if seq[-1] != goal or goal in seq[:-1]:
                continue
            steps = zip((start, *seq[:-1]), seq, strict=True)
            if not all(adj[a][b] for a, b in steps):
                continue
            prob = 1.0
            for t, v in enumerate(seq):
                prob *= next_probs(seq[:t])[v]
            total += prob
    return total


def path_kl_k3_naive(logp, ref_logp, valid) -> list[float]:
    """Per path: mean over its valid tokens of e^r − r − 1, r = ref − logp (0 for no tokens)."""
    import math

    out = []
    for lp, rp, ok in zip(logp, ref_logp, valid, strict=True):
        terms = [math.exp(b - a) - (b - a) - 1 for a, b, v in zip(lp, rp, ok, strict=True) if v]
        out.append(sum(terms) / len(terms) if terms else 0.0)
    return out


# gated attention --------------------------------------------------------------------------------
# Definitions of docs/gated_attention.md (F-Attn, M-Act, gate statistics), written with plain
# loops.


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


def truncated_geometric_pmf_naive(horizon: int, gamma: float) -> list[float]:
    """P(k) for k = 1 … horizon, proportional to γ^{k−1}, normalised by an explicit sum."""
    weights = [gamma ** (k - 1) for k in range(1, horizon + 1)]
    total = sum(weights)
    return [w / total for w in weights]


def truncated_geometric_offset_naive(horizon: int, gamma: float, u: float) -> int:
    """The smallest k with P(1) + … + P(k) > u (inverse CDF by a linear scan)."""
    cumulative = 0.0
    for k, p in enumerate(truncated_geometric_pmf_naive(horizon, gamma), start=1):
        cumulative += p
        if cumulative > u:
            return k
    return horizon


def grpo_loss_naive(model, graph, prompts, sample, reference, kl):
    """GRPO's loss copy by copy, from grouped samples (rows, paths, mult): expand every distinct
    path into its copies; per prompt, rewards r_j of its G copies, A_j = (r_j − mean r)/std r (0
    when std = 0); loss = −(1/PG) Σ_copies A · Σ_t log π(v_t) + kl · (1/PG) Σ_copies k3, with k3
    the mean over the copy's tokens of e^ρ − ρ − 1, ρ = log π_ref − log π. Returns (loss, mean
    reward)."""
    import torch

    from neural.rlvr_transformer import _tokens, verify

    rows, paths, mult = sample
    copies: dict[int, list] = {i: [] for i in range(len(prompts))}
    for row, path, m in zip(rows, paths, mult, strict=True):
        copies[int(row)].extend([path] * int(m))

    def token_logps(net, prompt, path):
        tokens = _tokens(
            net, torch.as_tensor(np.array([prompt])), torch.as_tensor(np.array([path]))
        )
        logp = torch.log_softmax(net(tokens)[0, 2:], dim=-1)
        return [logp[t, int(v)] for t, v in enumerate(path) if v >= 0]

    total, rewards, n_copies = 0.0, [], 0
    for i, group in copies.items():
        r = [float(verify(graph, np.array([prompts[i]]), np.array([p]))[0]) for p in group]
        mean = sum(r) / len(r)
        std = math.sqrt(sum((x - mean) ** 2 for x in r) / len(r))
        for path, reward in zip(group, r, strict=True):
            adv = (reward - mean) / std if std > 0 else 0.0
            logps = token_logps(model, prompts[i], path)
            total = total - adv * sum(logps)
            if reference is not None:
                with torch.no_grad():
                    refs = token_logps(reference, prompts[i], path)
                rho = [b - a for a, b in zip(logps, refs, strict=True)]
                total = total + kl * sum(torch.exp(x) - x - 1 for x in rho) / max(len(rho), 1)
            n_copies += 1
        rewards.extend(r)
    return total / n_copies, sum(rewards) / len(rewards)
