"""Claims of "Optimal Mistake Bounds for Transductive Online Learning" (Chase, Hanneke, Moran,
Shafer; NeurIPS 2025, arXiv 2512.12567). The model, the paper's results and the values the checks
compare with are written out in docs/online.md#the-papers-model-and-what-the-checks-use.

Exact where exactness is possible: M_tr by the suffix-set Pareto DP, Ldim by the memoised bitset
recursion, the 4-point census by exhaustive tabulation, the 5-point census by an exact reduction
to it; certified lower bounds where the DP cannot reach, always reported as "at least".

Each check reads: sizes, experiment (:mod:`sims.online_experiments`, :mod:`sims.online_sweeps`),
statistic, verdict, figure (:mod:`paper_checks.figures.online`), result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from paper_checks.claims import HistoryEntry, claim
from paper_checks.context import Context
from paper_checks.figures.online import (
    adversary_forces_figure,
    below_two_thirds_figure,
    bound_constants_figure,
    census_5_points_figure,
    gadget_gap_figure,
    invariances_figure,
    mtr_le_ldim_figure,
    random_tree_d5_figure,
    tree_class_figure,
    two_thirds_line_figure,
)
from paper_checks.paper_scale import Refused
from paper_checks.plotting import plot_learner_weights
from paper_checks.results import CheckResult, Verdict
from sims.online_experiments import (
    LearnerStats,
    SearchTotals,
    adversary_pilot,
    adversary_runs,
    census5_cross_checks,
    census_disagreements,
    certify_candidates,
    closed_at,
    elementary_bound_violations,
    invariance_trials,
    learner_statistics,
    minimal_tree_mtr,
    minimal_tree_values,
    mtr_distribution,
    random_tree_brackets,
    random_tree_values,
    search_grid,
    search_totals,
    sum_census_counts,
    tree_class_violations,
    write_certified_witnesses,
)
from sims.online_sweeps import census5_task, random_class_task
from theory.online import ConceptClass, constructions
from theory.online.bounds import (
    LEARNER_CONSTANTS,
    first_d_below_two_thirds,
    lower_bound_scan,
    paper_length_bound,
)
from theory.online.brackets import mtr_bracket
from theory.online.census import FIVE_POINT_CHUNKS, census, class_rows
from theory.online.dims import littlestone_dim
from theory.online.mtr import transductive_mistake_bound

#: What ``--scale paper`` does with every claim of this paper
#: (:mod:`paper_checks.paper_scale`).
PAPER_PLAN = Refused(
    "the paper's statements are theorems without experiments: `--scale full` checks them exactly "
    "on the largest instances we verify (docs/online.md)"
)


PAPER_D0 = 800  # Thm B.1: the lower bound is stated for d >= 800
FIRST_D0 = 774  # first d where (1 − ε)^n ≥ 1/2 holds: computed here, the paper states d ≥ 800


def _mtr(H: ConceptClass) -> int:
    return transductive_mistake_bound(H).value


def _with_total(violations: Mapping[str, int]) -> dict[str, int]:
    """The violation counts by kind, and their sum as ``violations``."""
    return {**violations, "violations": sum(violations.values())}


def _none_of(violations: Mapping[str, int]) -> dict[str, int]:
    """The expected counts: 0 of every kind, 0 in all."""
    return {**dict.fromkeys(violations, 0), "violations": 0}


# --------------------------------------------------------------------------------- gadget_gap
#: W (Ldim 3, M_tr 2) and the 4-point census (docs/online.md#exact-values-the-checks-compare-with).
GADGET_EXPECTED = {
    "W_ldim": 3,
    "W_mtr": 2,
    "gap_classes_4_points": 2880,
    "gap_pairs_4_points": [[3, 2]],
    "gap_classes_le_3_points": 0,
    "solver_census_disagreements": 0,
    "violations": 0,
}


@claim(
    "online.gadget_gap",
    paper="online",
    statement="The 4-point gadget W has Ldim 3 but M_tr 2; over all 65,535 nonempty classes on 4 "
    "points the only gap is (Ldim, M_tr) = (3, 2), in exactly 2,880 classes, and there is no gap "
    "on 3 points or fewer.",
    source="BKM97's 2/3 separation (Ben-David, Kushilevitz, Mansour 1997), cited in Chase et al. "
    "(2025, arXiv 2512.12567); the 4-point census is computed here",
    rule="PASS when W has (Ldim, M_tr) = (3, 2), the 4-point census has exactly 2,880 gap classes, "
    "all at (3, 2), none on ≤ 3 points, and the general solvers agree with the census on every "
    "cross-checked class (400 drawn at random at quick, all 65,535 at full); FAIL on any mismatch "
    "(statistic: the number of mismatches). Never INCONCLUSIVE.",
    stochastic=True,
    statistic="violations",
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def gadget_gap(ctx: Context, *, mtr: Callable[[ConceptClass], int] = _mtr) -> CheckResult:
    """Exhaustive census (bitmask tabulation) plus the general solvers on W and on a sample of
    classes (all 65,535 at full scale) that must agree with the census."""
    W = constructions.gadget_w()
    w_pair = (littlestone_dim(W), mtr(W))
    tables = {n: census(n) for n in (1, 2, 3, 4)}
    gaps4 = tables[4].gaps()
    small_gaps = sum(sum(tables[n].gaps().values()) for n in (1, 2, 3))
    n_check = ctx.pick(quick=400, full=65_535)
    disagree, n_checked = census_disagreements(tables[4], n_check, ctx.rng("sample"), mtr=mtr)
    violations = (
        int(w_pair != (3, 2)) + int(gaps4 != {(3, 2): 2880}) + int(small_gaps != 0) + disagree
    )
    return CheckResult(
        verdict=Verdict.of(violations == 0),
        summary=f"W: (Ldim, M_tr) = {w_pair}; 4-point gaps {gaps4}; gaps on ≤ 3 points: "
        f"{small_gaps}; solver/census disagreements {disagree} of {n_checked}",
        measured={
            "W_ldim": w_pair[0],
            "W_mtr": w_pair[1],
            "gap_classes_4_points": sum(gaps4.values()),
            "gap_pairs_4_points": [list(p) for p in gaps4],
            "gap_classes_le_3_points": small_gaps,
            "solver_census_disagreements": disagree,
            "classes_cross_checked": n_checked,
            "violations": violations,
        },
        expected=GADGET_EXPECTED,
        tolerance="exact equality",
        figures=ctx.save_figure(gadget_gap_figure(tables[4].pairs())),
        arrays={"ldim": tables[4].ldim, "mtr": tables[4].mtr},
    )


# --------------------------------------------------------------------------- census_5_points
CENSUS_EXPECTED = {
    "coverage_errors": 0,
    "four_point_mismatches": 0,
    "sample_mismatches": 0,
    "invariance_mismatches": 0,
    "violations": 0,
}


def _census_scope(chunks: Sequence[int], stated: int) -> str:
    if len(chunks) == FIVE_POINT_CHUNKS:
        return "all 2^32 − 1 classes"
    return f"chunks {list(chunks)} of {FIVE_POINT_CHUNKS}: {stated:,} classes"


def _census_summary(
    scope: str, gaps: Mapping[tuple[int, int], int], below: int, mis: Mapping[str, int], n: int
) -> str:
    return (
        f"5-point census over {scope}: gaps "
        + (", ".join(f"{p}: {k:,}" for p, k in gaps.items()) or "none")
        + f"; classes with M_tr < (2/3)·Ldim: {below}; 4-point sub-case mismatches "
        f"{mis['four_point_mismatches']} of 131,070; sampled classes off the solvers "
        f"{mis['sample_mismatches']}, off under relabelling {mis['invariance_mismatches']} of {n}"
    )


def _pair_keys(counts: Mapping[tuple[int, int], Any]) -> dict[str, Any]:
    return {f"{a},{b}": n for (a, b), n in counts.items()}


@claim(
    "online.census_5_points",
    paper="online",
    statement="Every nonempty class on 5 points (2^32 − 1 of them) is solved exactly for (Ldim, "
    "M_tr) by a reduction to the per-order 4-point tables; the tabulation reproduces the 4-point "
    "census on its 4-point sub-classes and the general solvers and the permutation brute force on "
    "sampled classes. Its counts, gaps and smallest gap classes are reported, with whether any "
    "class has M_tr < (2/3)·Ldim.",
    source="Computed here with BKM97's value recursion c(a, b) and Littlestone's Ldim recursion, "
    "as defined in Chase et al. (2025, arXiv 2512.12567); orders of X suffice: "
    "docs/online.md#the-game-and-its-value",
    rule="PASS when the counted classes are exactly the stated ones (every mask 1..2^32 − 1 at "
    "full; chunk 0 of 256, masks 1..2^24 − 1, at quick) with counts summing to their number; the "
    "reduction equals census(4) on all 65,535 4-point classes embedded with point 4 fixed to 0 "
    "and to 1; and on every sampled class (masks k·2,654,435,761 mod 2^32, k = 1..300 quick, "
    "1..3,000 full) it equals the bitset Ldim, the suffix-set DP and the permutation brute force, "
    "and is unchanged under a point permutation with column flips. FAIL on any mismatch "
    "(measured: violations, the number of mismatches). The counts themselves are reported, not "
    "gated. Deterministic: never INCONCLUSIVE.",
    stochastic=False,
    paper_plan=PAPER_PLAN,
)
def census_5_points(ctx: Context) -> CheckResult:
    """Chunks of the 2^32 masks as a resumable sweep (:func:`sims.online_sweeps.census5_task`),
    plus the cross-checks; the reduction is proved in :func:`theory.online.census.census5_values`."""
    chunks = ctx.pick(quick=[0], full=list(range(FIVE_POINT_CHUNKS)))
    records = ctx.sweep(
        census5_task,
        [{"chunk": j, "n_chunks": FIVE_POINT_CHUNKS} for j in chunks],
        name="chunks",
    )
    total = sum_census_counts(records)
    stated = len(chunks) * ((1 << 32) // FIVE_POINT_CHUNKS) - int(0 in chunks)
    coverage = int(total.classes != stated) + int(sum(total.counts.values()) != stated)
    four = census(4)
    n_sample = ctx.pick(quick=300, full=3000)
    mismatches = census5_cross_checks(four, n_sample)
    violations = coverage + sum(mismatches.values())
    gaps, below = total.gaps(), sum(total.below_two_thirds().values())
    scope = _census_scope(chunks, stated)
    return CheckResult(
        verdict=Verdict.of(violations == 0),
        summary=_census_summary(scope, gaps, below, mismatches, n_sample),
        measured={
            "chunks_counted": len(chunks),  # of FIVE_POINT_CHUNKS: chunk 0 at quick, all at full
            "classes_counted": total.classes,
            "counts": _pair_keys(total.counts),
            "gaps": _pair_keys(gaps),
            "smallest_gap_classes": _pair_keys({p: class_rows(total.smallest[p], 5) for p in gaps}),
            "classes_below_two_thirds": below,
            "coverage_errors": coverage,
            **mismatches,
            "classes_sampled": n_sample,
            "violations": violations,
        },
        expected={"classes_counted": stated, **CENSUS_EXPECTED},
        tolerance="exact equality",
        figures=ctx.save_figure(census_5_points_figure(four.pairs(), total.counts, scope)),
    )


# --------------------------------------------------------------------------- two_thirds_line
@claim(
    "online.two_thirds_line",
    paper="online",
    statement="Disjoint products of the gadget W^k have Ldim 3k and M_tr 2k: M_tr/Ldim = 2/3 "
    "(BKM97's separation), exactly, for every k the exact solvers reach.",
    source="BKM97's (2/3)·d class (Ben-David, Kushilevitz, Mansour 1997; cited by Chase et al. "
    "2025, arXiv 2512.12567); products add",
    rule="PASS when W^k has Ldim exactly 3k and M_tr exactly 2k for every k reached (1..3 quick, "
    "1..4 full); FAIL on any other value. Deterministic: never INCONCLUSIVE.",
    stochastic=False,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def two_thirds_line(ctx: Context, *, mtr: Callable[[ConceptClass], int] = _mtr) -> CheckResult:
    ks = list(range(1, ctx.pick(quick=3, full=4) + 1))
    ldims, mtrs = [], []
    for k in ks:
        H = constructions.gadget_power(k)
        ldims.append(littlestone_dim(H))
        mtrs.append(mtr(H))
    passed = ldims == [3 * k for k in ks] and mtrs == [2 * k for k in ks]
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"W^k for k = 1..{ks[-1]}: Ldim {ldims}, M_tr {mtrs}",
        measured={"k": ks, "ldim": ldims, "mtr": mtrs},
        expected={"k": ks, "ldim": [3 * k for k in ks], "mtr": [2 * k for k in ks]},
        tolerance="exact equality",
        figures=ctx.save_figure(two_thirds_line_figure(ldims, mtrs, ks[-1])),
    )


# ------------------------------------------------------------------------------ mtr_le_ldim
@claim(
    "online.mtr_le_ldim",
    paper="online",
    statement="For every class, VC ≤ M_tr ≤ min(Ldim, ⌊log2|H|⌋), and M_tr ≥ 2 when Ldim ≥ 2, "
    "M_tr ≥ 3 when Ldim ≥ 4; the suffix-set DP equals the permutation brute force.",
    source="Chase et al. (2025, arXiv 2512.12567) Fact E.1 (Halving) and the elementary bounds; "
    "the floors 2 and 3 (the BFS order of a Littlestone tree forces them) are proved in "
    "docs/online.md#exact-values-the-checks-compare-with",
    rule="PASS when no random class violates VC ≤ M_tr ≤ min(Ldim, ⌊log2|H|⌋) or M_tr ≥ "
    "tree_order_floor(Ldim) (2 from Ldim 2, 3 from Ldim 4), and the DP equals the permutation "
    "brute force on every class with ≤ 7 points; FAIL when any class violates any of them "
    "(statistic: the number of violations). Never INCONCLUSIVE.",
    stochastic=True,
    statistic="violations",
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
    history=[
        HistoryEntry(
            date="2026-12-06",
            change="added to the rule: M_tr ≥ 3 for every class with Ldim ≥ 4 (the violation "
            "count 'ldim >= 2 but mtr < 2' became 'mtr < tree-order floor of ldim')",
            reason="proved this session (theory.online.certificates.tree_order_floor): the BFS "
            "order of a depth-4 Littlestone tree forces 3 mistakes in every class around it; "
            "about 30% of the random classes have Ldim ≥ 4, so the solver is now held to it",
            before="PASS (quick: 320 classes over 5 root seeds, 0 violations; full: 0 violations)",
        )
    ],
)
def mtr_le_ldim(ctx: Context, *, mtr: Callable[[ConceptClass], int] = _mtr) -> CheckResult:
    """Random classes on up to 8 points (the brute force on up to 7), in a seeded sweep."""
    chunks, per_chunk = ctx.pick(quick=(8, 40), full=(40, 100))
    records = ctx.sweep(
        random_class_task,
        [
            {"max_points": 8, "brute_force_points": 7, "classes": per_chunk, "chunk": j}
            for j in range(chunks)
        ],
        name="random_classes",
    )
    rows = [row for r in records for row in r["result"]["classes"]]
    if mtr is not _mtr:  # a theory under test recomputes M_tr on the same classes
        for row in rows:
            row["mtr"] = mtr(ConceptClass.from_array(row["matrix"]))
    arrays, violations = elementary_bound_violations(rows)
    n_brute = int(np.sum(arrays["brute"] >= 0))
    return CheckResult(
        verdict=Verdict.of(not any(violations.values())),
        summary=f"{len(rows)} classes ({n_brute} also by brute force): violations {sum(violations.values())}",
        measured={"classes": len(rows), "brute_forced": n_brute, **_with_total(violations)},
        expected=_none_of(violations),
        tolerance="no violation of any inequality; DP equal to brute force on every class with ≤ 7 points",
        figures=ctx.save_figure(mtr_le_ldim_figure(arrays["ldim"], arrays["mtr"])),
        arrays={k: arrays[k] for k in ("vc", "mtr", "ldim")},
    )


# ------------------------------------------------------------------------------ bound_constants
@claim(
    "online.bound_constants",
    paper="online",
    statement="The lower bound's potential argument needs (1 − ε)^n ≥ 1/2, which the paper asserts "
    "for d ≥ 800; the O(√d) upper bound 48√d (115.7√d with the corrected 3/4 factor) falls below "
    "BKM's 2d/3 only for d > 5184 (d > ~30,120).",
    source="Chase et al. (2025, arXiv 2512.12567) Thm B.1 (d ≥ 800), Thm D.1 (48√d), Claim D.8 "
    "with the factor 3/4 (docs/online.md#the-learner-and-its-class-upper-bound)",
    rule="PASS when (1 − ε)^n ≥ 1/2 first holds at d = 774 (computed here, ≤ the paper's 800) "
    "and keeps holding at every checked d up to d_max, and 48√d < 2d/3 exactly from d = 5,185; "
    "FAIL when the first d differs, the inequality breaks above it, or the crossing differs. "
    "Deterministic (60-digit arithmetic): never INCONCLUSIVE.",
    stochastic=False,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def bound_constants(
    ctx: Context, *, length_bound: Callable[[int], mpmath.mpf] = paper_length_bound
) -> CheckResult:
    """Evaluate the constants exactly: 60-digit arithmetic for (1 − ε)^n, closed forms for the
    crossings of c·√d with 2d/3 (c√d < 2d/3 ⟺ d > (3c/2)²)."""
    d_max = ctx.pick(quick=20_000, full=200_000)
    scan = lower_bound_scan(d_max, length_bound)
    first, stays = scan.first, scan.stays
    crossings = {name: first_d_below_two_thirds(c) for name, c in LEARNER_CONSTANTS.items()}
    passed = first == FIRST_D0 and first <= PAPER_D0 and stays and crossings["48"] == 5185
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"(1−ε)^n ≥ 1/2 from d = {first} (paper: 800, holds to d = {d_max}: {stays}); "
        f"48√d < 2d/3 from d = {crossings['48']}, 115.65√d from d = {crossings['48/log2(4/3)']}",
        measured={
            "first_d_lower_bound": first,
            "holds_up_to_d_max": stays,
            "d_max_checked": d_max,
            "first_d_48_sqrt_below_two_thirds": crossings["48"],
            "first_d_corrected_constant_below_two_thirds": crossings["48/log2(4/3)"],
            "first_d_115_7_below_two_thirds": first_d_below_two_thirds(115.7),
            "corrected_constant": LEARNER_CONSTANTS["48/log2(4/3)"],
        },
        expected={
            "first_d_lower_bound": FIRST_D0,
            "paper_d0": PAPER_D0,
            "first_d_48_sqrt_below_two_thirds": 5185,
            "first_d_115_7_below_two_thirds": 30120,
        },
        tolerance="first d equals 774 (computed here in 60-digit arithmetic, "
        "docs/online.md#the-adversary-lower-bound) and is ≤ the 800 of Chase et al. (2025, arXiv "
        "2512.12567) Thm B.1, and the inequality holds for every checked d above it; 48√d < 2d/3 "
        "exactly for d > 5184",
        figures=ctx.save_figure(bound_constants_figure(first, crossings)),
        arrays={"holds": scan.holds},
    )


# ------------------------------------------------------------------------------- invariances
@claim(
    "online.invariances",
    paper="online",
    statement="M_tr and Ldim are invariant under permuting points, flipping a column, duplicating "
    "a column or a hypothesis; monotone under taking a subclass; and additive over disjoint products.",
    source="Properties of the definitions of Chase et al. (2025, arXiv 2512.12567) App. A; "
    "products add: docs/online.md#exact-values-the-checks-compare-with",
    rule="PASS when every random class keeps (M_tr, Ldim) under permuting points, flipping or "
    "duplicating a column and duplicating a hypothesis, no subclass exceeds its class, and every "
    "product with ≤ 8 points has exactly the summed M_tr and Ldim; FAIL on any violation "
    "(statistic: the number of violations). Never INCONCLUSIVE.",
    stochastic=True,
    statistic="violations",
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def invariances(ctx: Context, *, mtr: Callable[[ConceptClass], int] = _mtr) -> CheckResult:
    n_classes = ctx.pick(quick=120, full=1500)
    violations, product_pairs = invariance_trials(n_classes, ctx.rng("classes"), mtr=mtr)
    fig = invariances_figure(product_pairs, ctx.rng("jitter"))
    return CheckResult(
        verdict=Verdict.of(not any(violations.values())),
        summary=f"{n_classes} classes, {len(product_pairs)} products: violations {sum(violations.values())}",
        measured={"classes": n_classes, "products": len(product_pairs), **_with_total(violations)},
        expected=_none_of(violations),
        tolerance="exact: every transformed class has the same (M_tr, Ldim); subclasses never more; "
        "products exactly the sum",
        figures=ctx.save_figure(fig),
    )


# -------------------------------------------------------------------------------- tree_class
@claim(
    "online.tree_class",
    paper="online",
    statement="The minimal tree class on T_{d−1} (one hypothesis per leaf path, off-path labels 0) "
    "has M_tr = Ldim = d: the transductive learner gains nothing on it.",
    source="The tree class of Chase et al. (2025, arXiv 2512.12567) §2.3, Lemma D.2, with "
    "off-path labels 0; M_tr = d computed here (exact DP for d ≤ 4, a certified BFS-order "
    "sequence above)",
    rule="PASS when the minimal tree classes have Ldim = d and M_tr = d (exact DP for d ≤ 4, a "
    "certified lower bound equal to d above), every random tree class (q = .1, .25) has M_tr ≤ "
    "Ldim, and some random d = 4 class has M_tr < Ldim; FAIL when any of these fails (statistic: "
    "the number that fail). Never INCONCLUSIVE.",
    stochastic=True,
    statistic="violations",
    history=[
        HistoryEntry(
            date="2026-11-30",
            change="added the paper's random upper-bound classes to the rule: M_tr ≤ Ldim for "
            "every one and some d = 4 class strictly below Ldim",
            reason="the random classes are the paper's upper-bound construction (§2.3, Lemma "
            "D.2); checking only the minimal classes left them out",
            before="PASS (minimal classes d = 1..4 exact M_tr = d, d = 5..7 certified ≥ d)",
        )
    ],
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def tree_class(ctx: Context, *, mtr: Callable[[ConceptClass], int] = _mtr) -> CheckResult:
    """d ≤ 4 by the exact DP; larger d by a certified lower bound (a sequence forcing d mistakes)
    sandwiched with Ldim = d, which makes it exact too."""
    exact_ds, cert_ds = [1, 2, 3, 4], list(range(5, ctx.pick(quick=7, full=9) + 1))
    exact_vals, cert_vals, ldims = minimal_tree_values(
        exact_ds, cert_ds, lambda d: ctx.rng(f"cert{d}"), mtr=mtr
    )
    ds = exact_ds + cert_ds
    random_arr = random_tree_values(
        (3, 4), (0.1, 0.25), ctx.pick(quick=12, full=60), ctx.rng("random_tree_classes"), mtr=mtr
    )
    share_below, violations = tree_class_violations(ds, ldims, exact_vals + cert_vals, random_arr)
    fig = tree_class_figure(exact_ds, exact_vals, cert_ds, cert_vals, random_arr, mtr)
    return CheckResult(
        verdict=Verdict.of(violations == 0),
        summary=f"d = {ds}: Ldim {ldims}; exact M_tr {exact_vals} (d ≤ 4), certified ≥ {cert_vals}; "
        f"random d = 4 classes with M_tr < Ldim: {share_below:.0%}",
        measured={
            "d": ds,
            "ldim": ldims,
            "mtr_exact": exact_vals,
            "mtr_certified_at_least": cert_vals,
            "random_d4_share_mtr_below_ldim": share_below,
            "random_classes": len(random_arr),
            "violations": violations,
        },
        expected={
            "d": ds,
            "ldim": ds,
            "mtr_exact": exact_ds,
            "mtr_certified_at_least": cert_ds,
            "random_d4_share_mtr_below_ldim": 0.7,
            "violations": 0,
        },
        tolerance="exact equality for the minimal classes (a certified lower bound equal to Ldim is "
        "exact); random classes: M_tr ≤ Ldim and some d = 4 class below Ldim (computed here, M_tr "
        "= 3 < 4 in about 70% of draws, docs/online.md#exact-values-the-checks-compare-with: "
        "reported, not a tolerance)",
        figures=ctx.save_figure(fig),
    )


# --------------------------------------------------------------------------- adversary_forces
@claim(
    "online.adversary_forces",
    paper="online",
    statement="CONSTRUCTSEQUENCE(ε, M) outputs ancestors before descendants with n < (d+1)·2^{M+1}, "
    "and its labelling rule guarantees g mistakes against every learner with g ≤ v(H, x) ≤ M_tr.",
    source="Chase et al. (2025, arXiv 2512.12567) Alg. 1–2, Claims B.3–B.5; pilot d = 6, (ε, M) = "
    "(.05, 4): n = 47, g = v = 5 (computed here)",
    rule="PASS when every (class, ε, M) run puts ancestors first with n < (d+1)·2^{M+1}, has g ≤ "
    "v(H, x) ≤ M_tr (Ldim for d > 4), every learner suffers ≥ g mistakes, and the pilot case "
    "computed here beforehand gives (n, g, v) = (47, 5, 5); FAIL otherwise (statistic: violating "
    "runs, plus 1 for a pilot mismatch). Never INCONCLUSIVE.",
    stochastic=True,
    statistic="violations",
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def adversary_forces(ctx: Context, *, guaranteed: Callable | None = None) -> CheckResult:
    """Minimal and random tree classes, a grid of (ε, M): the sequence's invariants, g ≤ v ≤ M_tr
    (M_tr exact by DP for d ≤ 4, else its upper bound Ldim = d), the pilot numbers, and real
    learners (SOA, Halving, the paper's learner) each suffering ≥ g forced mistakes."""
    from sims.online import guaranteed_mistakes

    guaranteed = guaranteed or guaranteed_mistakes
    classes = [(d, 0.0) for d in range(3, ctx.pick(quick=6, full=8) + 1)]
    classes += [(d, 0.2) for d in (3, 4, 5)]
    rows, failures = adversary_runs(classes, ctx.rng("classes"), guaranteed=guaranteed)
    pilot = adversary_pilot(guaranteed)
    violations = len(failures) + int((pilot.n, pilot.g, pilot.v) != (47, 5, 5))
    g_all, v_all, up_all = (np.array([r[k] for r in rows]) for k in ("g", "v", "mtr_upper"))
    fig = adversary_forces_figure(
        g_all, v_all, up_all, pilot.trace, (pilot.n, pilot.g, pilot.v), ctx.rng("jitter")
    )
    return CheckResult(
        verdict=Verdict.of(violations == 0),
        summary=f"{len(rows)} (class, ε, M) runs, {len(failures)} violating; pilot n, g, v = "
        f"{pilot.n}, {pilot.g}, {pilot.v}",
        measured={
            "runs": len(rows),
            "violations": violations,
            "violating_runs": failures,
            "pilot_n": pilot.n,
            "pilot_g": pilot.g,
            "pilot_v": pilot.v,
            "g": g_all,
            "v": v_all,
        },
        expected={"violations": 0, "pilot_n": 47, "pilot_g": 5, "pilot_v": 5},
        tolerance="every run: ancestors first, n < (d+1)·2^{M+1}, g ≤ v ≤ M_tr (Ldim for d > 4), "
        "every learner ≥ g mistakes; exactly (n, g, v) = (47, 5, 5) at d = 6, (ε, M) = (.05, 4), "
        "computed here beforehand (docs/online.md#the-adversary-lower-bound)",
        figures=ctx.save_figure(fig),
        arrays={"d": np.array([r["d"] for r in rows]), "g": g_all, "v": v_all, "upper": up_all},
    )


# ------------------------------------------------------------------------- learner_invariants
LEARNER_EXPECTED = {
    "steps_without_exactly_one_true_expert": 0,
    "mistakes_over_weight_factor": 0,
    "runs_over_weight_bound": 0,
    "classes_where_learner_beats_the_value": 0,
    "violations": 0,
}


def _learner_summary(stats: LearnerStats, f: float, over_f: int, over_half: int) -> str:
    return (
        f"{stats.runs} runs, {len(stats.factors)} learner mistakes: steps without exactly one "
        f"true expert {stats.bad_steps}; mistakes leaving more than f = {f:g} of the weight "
        f"{over_f} (largest factor {max(stats.factors):.3f}; above the paper's 1/2: "
        f"{over_half}); runs over the weight bound {stats.bound_violations}; worst case vs optimal "
        "adversary (learner/v/Halving): "
        + ", ".join(
            f"{w['learner_worst']}/{w['value']}/{w['halving_worst']}" for w in stats.worst_cases
        )
    )


@claim(
    "online.learner_invariants",
    paper="online",
    statement="In the upper-bound learner (weighted majority over splitting danger-zone experts), "
    "exactly one expert makes only true assumptions at every step, and each learner mistake "
    "shrinks the total weight by at least 3/4.",
    source="Chase et al. (2025, arXiv 2512.12567) Alg. 5–7, Lemma D.4, Claim D.8 with the factor "
    "3/4 (docs/online.md#the-learner-and-its-class-upper-bound)",
    rule="PASS when every step has exactly one true expert, every learner mistake leaves at most "
    "f = 3/4 of the total weight, every run's mistakes are ≤ log(1/w_true)/log(1/f), and on "
    "d ≤ 4 (all targets, BFS order, Halving size 2) the learner's worst case is ≥ the game value "
    "v(H, x); FAIL when any of these fails (statistic: the number of failures). Never "
    "INCONCLUSIVE.",
    stochastic=True,
    statistic="violations",
    history=[
        HistoryEntry(
            date="2026-11-30",
            change="added to the rule: on d ≤ 4 the learner's worst case over all targets (the "
            "optimal adversary) is ≥ the game value v(H, x)",
            reason="a learner below the game value would expose a bug in the learner or the "
            "solver; the invariants alone did not test it",
            before="PASS (0 steps without exactly one true expert, 0 runs over the 3/4 bound)",
        ),
        HistoryEntry(
            date="2026-12-02",
            change="added to the rule: every learner mistake leaves at most f = 3/4 of the total "
            "weight (W_after/W_before, measured directly); each class is now also played in 8 "
            "random point orders and with Halving sizes 4 and 8 (before: BFS order, size 2; "
            "the game-value comparison keeps BFS order and size 2)",
            reason="on the old instances no mistake left more than half the weight (141 "
            "mistakes, largest factor 0.5), so the claim could not tell the corrected 3/4 from "
            "the paper's 1/2: a test feeding f = 1/2 saw PASS. Random orders and larger Halving "
            "sizes produce the weighted-majority ties of the caveat (factor 3/4): found by an "
            "exploratory search, then fixed before this rule's first run",
            before="PASS (quick and full: 72 runs, 0 steps without exactly one true expert, 0 "
            "runs over the 3/4 bound, 0 over the halving rate)",
        ),
    ],
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    reproduces_to=0.0,
)
def learner_invariants(ctx: Context, *, weight_factor: float = 0.75) -> CheckResult:
    """Tree classes with lowered thresholds, every target (``_learner_games``): the count of
    consistent experts after each step (Lemma D.4), the total weight's factor W_after/W_before
    at each learner mistake (≤ f, f = 3/4: the caveat to Claim D.8), and learner mistakes ≤
    log_{1/f}(1/w_true); reports the mistakes above the paper's claimed 1/2."""
    stats = learner_statistics(ctx.rng("classes"), weight_factor)
    factors_over, over_halving = stats.factors_over(weight_factor), stats.factors_over(0.5)
    below_value = stats.below_value()
    violations = stats.bad_steps + factors_over + stats.bound_violations + below_value
    fig = plot_learner_weights(
        stats.bounds, stats.mistakes, stats.factors, stats.case_totals, weight_factor
    )
    return CheckResult(
        verdict=Verdict.of(violations == 0),
        summary=_learner_summary(stats, weight_factor, factors_over, over_halving),
        measured={
            "runs": stats.runs,
            "learner_mistakes": len(stats.factors),
            "steps_without_exactly_one_true_expert": stats.bad_steps,
            "mistakes_over_weight_factor": factors_over,
            "largest_weight_factor": float(max(stats.factors)),
            "mistakes_over_halving": over_halving,
            "runs_over_weight_bound": stats.bound_violations,
            "true_expert_mistakes_by_case": stats.case_totals,
            "worst_case_against_optimal_adversary": stats.worst_cases,
            "classes_where_learner_beats_the_value": below_value,
            "violations": violations,
        },
        expected=LEARNER_EXPECTED,
        tolerance="exact counts; W_after/W_before ≤ f = 3/4 at every learner mistake (1e-12); "
        "mistakes ≤ log(1/w_true)/log(1/f); on d ≤ 4 (every target, i.e. the optimal adversary) "
        "the learner's worst case is ≥ the game value v(H, x)",
        figures=ctx.save_figure(fig),
    )


# -------------------------------------------------------------------------- below_two_thirds
#: Shipped witnesses of M_tr < (2/3)·Ldim (files ``below_two_thirds*.txt`` in the ``solve online``
#: text format), next to the solvers that certify them so the package and the claim find them.
WITNESS_DIR = Path(__file__).resolve().parents[2] / "theory" / "online" / "data"


def shipped_witnesses() -> list[ConceptClass]:
    """The witness classes stored under :data:`WITNESS_DIR` (none until one is found)."""
    return [ConceptClass.from_file(p) for p in sorted(WITNESS_DIR.glob("below_two_thirds*.txt"))]


def _search_summary(
    good: Sequence[Any], failed: Sequence[Any], totals: SearchTotals, points: list[int], runs: int
) -> str:
    best = totals.best
    return (
        f"certified witnesses below 2/3: {len(good)}; failed certification: {len(failed)}; "
        f"best met (Ldim, M_tr) = ({best['best_ldim']}, {best['best_mtr']}); searched {runs} "
        f"restarts on {points} points, {totals.moves:,} moves, {totals.scored:,} classes scored, "
        f"{totals.cpu:.0f} CPU s"
    )


_WITNESS_KEYS = ("ldim", "mtr", "mtr_bruteforce", "n_points", "n_hypotheses")


@claim(
    "online.below_two_thirds",
    paper="online",
    statement="Search for the first explicit class below BKM's 2/3 line, M_tr < (2/3)·Ldim (e.g. "
    "(Ldim, M_tr) = (5, 3), (6, 3), (7, 4); (4, 2) is impossible: Ldim ≥ 4 forces M_tr ≥ 3), on "
    "at most 10 points; every claimed witness is certified by the exact DP and, on ≤ 8 canonical "
    "points, by the permutation brute force.",
    source="BKM97's (2/3)·d class (Ben-David, Kushilevitz, Mansour 1997; cited by Chase et al. "
    "2025, arXiv 2512.12567); Ldim ≥ 4 ⇒ M_tr ≥ 3 is proved in "
    "docs/online.md#exact-values-the-checks-compare-with",
    rule="PASS when at least one witness (shipped in theory/online/data or met by the search) is "
    "certified: exact DP gives 3·M_tr < 2·Ldim and the brute force agrees where it runs; FAIL when "
    "any claimed witness fails certification (not below the line, or DP ≠ brute force); otherwise "
    "INCONCLUSIVE, reporting the searched space (sizes, moves, restarts, classes scored, CPU "
    "seconds): a search that finds nothing is never a proof that no class exists.",
    stochastic=True,
    statistic="certified_witnesses",
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
    history=[
        HistoryEntry(
            date="2026-12-06",
            change="the restarts that hold the Ldim floor hold Ldim ≥ 5 instead of ≥ 4 (same "
            "sizes, restarts and moves); the statement no longer names (4, 2)",
            reason="proved this session: every class with Ldim ≥ 4 has M_tr ≥ 3 "
            "(theory.online.certificates.tree_order_floor), so no Ldim-4 class lies below the "
            "line and half of the search's restarts aimed at an empty target",
            before="INCONCLUSIVE (quick: 10 restarts per root seed on 8 and 10 points, no "
            "witness, best met (3, 2); full: 60 restarts on 6..10 points, 90,000 moves, none)",
        )
    ],
)
def below_two_thirds(
    ctx: Context, *, witnesses: Sequence[ConceptClass] | None = None
) -> CheckResult:
    """Simulated-annealing restarts over hypothesis sets (sims/online_search.py) in a resumable
    sweep, then certification of the shipped witnesses (or ``witnesses``, the classes under test)
    and of every class the search met below the line."""
    from sims.online_search import gap_search_task

    sizes, restarts, steps = ctx.pick(quick=((8, 10), 1, 300), full=((6, 7, 8, 9, 10), 3, 1500))
    records = ctx.sweep(gap_search_task, search_grid(sizes, restarts, steps), name="annealing")
    runs = [r["result"] for r in records]
    certs = certify_candidates(list(shipped_witnesses() if witnesses is None else witnesses), runs)
    write_certified_witnesses(certs, ctx.out_dir / "witnesses")
    failed = [c for *_, c in certs if not c["certified"]]
    good = [c for *_, c in certs if c["certified"]]
    verdict = Verdict.FAIL if failed else (Verdict.PASS if good else Verdict.INCONCLUSIVE)
    totals, points = search_totals(runs), sorted({r["n_points"] for r in runs})
    fig = below_two_thirds_figure(totals.pairs, good, len(runs), totals.scored, totals.cpu)
    return CheckResult(
        verdict=verdict,
        summary=_search_summary(good, failed, totals, points, len(runs)),
        measured={
            "certified_witnesses": len(good),
            "failed_witnesses": len(failed),
            "witnesses": [{k: c[k] for k in _WITNESS_KEYS} for c in good + failed],
            "restarts": len(runs),
            "moves": totals.moves,
            "classes_scored": totals.scored,
            "cpu_seconds": totals.cpu,
            "point_counts": points,
            "best_ldim": totals.best["best_ldim"],
            "best_mtr": totals.best["best_mtr"],
            "pairs_on_the_line": [list(p) for p in totals.line_pairs],
            "pairs_met": [[ld, m, c] for (ld, m), c in sorted(totals.pairs.items())],
        },
        expected={"failed_witnesses": 0, "certified_witnesses": "≥ 1 for PASS (unknown a priori)"},
        tolerance="exact: a witness needs 3·M_tr < 2·Ldim by the exact DP, and the brute force "
        "equal to the DP on ≤ 8 canonical points",
        figures=ctx.save_figure(fig),
    )


# ---------------------------------------------------------------------------- random_tree_d5
@claim(
    "online.random_tree_d5",
    paper="online",
    statement="The paper's random tree classes at d = 5 (31 points, 32 hypotheses, off-path bits "
    "Bernoulli(q)) have M_tr ≤ Ldim = 5; their exact M_tr, beside d = 3 and 4, shows how often "
    "the transductive learner beats Ldim.",
    source="The random tree class of Chase et al. (2025, arXiv 2512.12567) §2.3, Lemma D.2; at d "
    "= 4, M_tr = 3 in about 70% of draws (computed here)",
    rule="PASS when every d = 5 class (q = .1, .25) has Ldim 5 and a consistent certified bracket "
    "lower ≤ M_tr ≤ upper ≤ 5 (lower re-scored exactly from its sequence; upper from Ldim, "
    "⌊log2|H|⌋ and the exhaustive perfect-halving search), the perfect-halving test agrees with "
    "the exact DP on every d = 3, 4 class, and at least 90% of the d = 5 brackets are closed; "
    "INCONCLUSIVE when all are consistent but fewer than 90% are closed; FAIL on any "
    "inconsistent bracket, Ldim ≠ 5 or disagreement with the DP (statistic: their number).",
    stochastic=True,
    statistic="violations",
    exact_over_instances=True,
    paper_plan=PAPER_PLAN,
)
def random_tree_d5(ctx: Context, *, bracket: Callable | None = None) -> CheckResult:
    """d = 3, 4 exactly by the DP (with the perfect-halving test cross-checked against it); d = 5
    by :func:`theory.online.brackets.mtr_bracket` (certified lower bound, Ldim, and the exact
    perfect-halving test for M_tr = 5 = log2 |H|). ``bracket`` replaces mtr_bracket (a theory
    under test)."""
    bracket = bracket or mtr_bracket
    n_per_q, qs = ctx.pick(quick=10, full=40), (0.1, 0.25)
    rows, violations, halving_mismatch = random_tree_brackets(
        n_per_q, qs, ctx.rng("classes"), lambda q, i: ctx.rng("bracket", str(q), str(i)), bracket
    )
    d5, closed, share = closed_at(rows, 5)
    verdict = (
        Verdict.FAIL if violations else (Verdict.PASS if share >= 0.9 else Verdict.INCONCLUSIVE)
    )
    table, below = mtr_distribution(rows, qs)
    minimal = minimal_tree_mtr(bracket, ctx.rng("minimal"))
    return CheckResult(
        verdict=verdict,
        summary=f"d = 5: {closed}/{len(d5)} brackets closed, violations {violations}; share with "
        f"M_tr < d: d=3 {below['d3']:.0%}, d=4 {below['d4']:.0%}, d=5 {below['d5']:.0%}",
        measured={
            "classes_per_q": n_per_q,
            "d5_closed": closed,
            "d5_classes": len(d5),
            "d5_closed_share": share,
            "d5_mtr_lower": [r["lower"] for r in d5],
            "d5_mtr_upper": [r["upper"] for r in d5],
            "share_below_d": below,
            "mtr_distribution": table,
            "halving_dp_mismatches": halving_mismatch,
            "minimal_tree_mtr": minimal,
            "violations": violations,
        },
        expected={"violations": 0, "d5_closed_share": "≥ 0.9 for PASS", "halving_dp_mismatches": 0},
        tolerance="exact: every bracket consistent and certified at both ends; ≥ 90% of d = 5 "
        "classes closed",
        figures=ctx.save_figure(random_tree_d5_figure(rows, qs, minimal, n_per_q)),
        arrays={k: np.array([r[k] for r in rows]) for k in ("d", "q", "lower", "upper")},
    )
