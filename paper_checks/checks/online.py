"""Claims of "Optimal Mistake Bounds for Transductive Online Learning" (Chase, Hanneke, Moran,
Shafer; NeurIPS 2025, arXiv 2512.12567). The model, the paper's results and the values the checks
compare with are written out in docs/online.md#the-papers-model-and-what-the-checks-use.

Exact where exactness is possible: M_tr by the suffix-set Pareto DP, Ldim by the memoised bitset
recursion, the 4-point census by exhaustive tabulation, the 5-point census by an exact reduction
to it; certified lower bounds where the DP cannot reach, always reported as "at least".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import permutations
from pathlib import Path

import mpmath
import numpy as np

from paper_checks.claims import HistoryEntry, claim
from paper_checks.context import Context
from paper_checks.plotting import THEORY, new_figure, plot_learner_weights
from paper_checks.results import CheckResult, Verdict
from sims.online_sweeps import census5_task, random_class_task
from theory.online import ConceptClass, constructions
from theory.online.census import (
    FIVE_POINT_CHUNKS,
    CensusCounts,
    census,
    census5_values,
    class_rows,
    relabel,
)
from theory.online.dims import littlestone_dim
from theory.online.mtr import mtr_by_permutations, transductive_mistake_bound

PAPER_D0 = 800  # Thm B.1: the lower bound is stated for d >= 800
SPEC_D0 = 774  # first d where (1 − ε)^n ≥ 1/2 holds: computed here, the paper states d ≥ 800
LEARNER_CONSTANTS = {"48": 48.0, "48/log2(4/3)": 48.0 / math.log2(4.0 / 3.0)}


def _mtr(H: ConceptClass) -> int:
    return transductive_mistake_bound(H).value


# --------------------------------------------------------------------------------- gadget_gap
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
    masks = (
        np.arange(1, 65_536)
        if n_check == 65_535
        else ctx.rng("sample").choice(np.arange(1, 65_536), size=n_check, replace=False)
    )
    disagree = 0
    for mask in masks:
        H = ConceptClass.from_strings(tables[4].class_rows(int(mask)))
        disagree += int(mtr(H) != tables[4].mtr[mask]) + int(
            littlestone_dim(H) != tables[4].ldim[mask]
        )
    violations = (
        int(w_pair != (3, 2)) + int(gaps4 != {(3, 2): 2880}) + int(small_gaps != 0) + disagree
    )
    passed = violations == 0

    pairs = tables[4].pairs()
    fig, ax = new_figure()
    for (ld, mt), count in sorted(pairs.items()):
        colour = "C1" if mt < ld else "C0"
        ax.scatter(ld, mt, s=30 + 60 * np.log10(count), color=colour, zorder=3)
        ax.annotate(f"{count:,}", (ld, mt), textcoords="offset points", xytext=(8, -4), fontsize=7)
    ax.plot([0, 4], [0, 4], color=THEORY, lw=1, label="M_tr = Ldim")
    ax.scatter([], [], color="C1", label="gap (census)")
    ax.set_xlabel("Ldim(H)")
    ax.set_ylabel("M_tr(H)")
    ax.set_title("all 65,535 classes on 4 points", fontsize="small")
    ax.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"W: (Ldim, M_tr) = {w_pair}; 4-point gaps {gaps4}; gaps on ≤ 3 points: "
        f"{small_gaps}; solver/census disagreements {disagree} of {len(masks)}",
        measured={
            "W_ldim": w_pair[0],
            "W_mtr": w_pair[1],
            "gap_classes_4_points": sum(gaps4.values()),
            "gap_pairs_4_points": [list(p) for p in gaps4],
            "gap_classes_le_3_points": small_gaps,
            "solver_census_disagreements": disagree,
            "classes_cross_checked": len(masks),
            "violations": violations,
        },
        expected={
            "W_ldim": 3,
            "W_mtr": 2,
            "gap_classes_4_points": 2880,
            "gap_pairs_4_points": [[3, 2]],
            "gap_classes_le_3_points": 0,
            "solver_census_disagreements": 0,
            "violations": 0,
        },
        tolerance="exact equality",
        figures=ctx.save_figure(fig),
        arrays={"ldim": tables[4].ldim, "mtr": tables[4].mtr},
    )


# --------------------------------------------------------------------------- census_5_points
#: Sampled 5-point classes: masks k·SAMPLE_STRIDE mod 2^32, k = 1..N (an odd stride: all distinct).
SAMPLE_STRIDE = 2_654_435_761


def _count_grid(counts: dict[tuple[int, int], int], size: int) -> np.ndarray:
    grid = np.zeros((size, size), dtype=np.int64)
    for (ld, mt), n in counts.items():
        grid[ld, mt] = n
    return grid


def _heat_map(ax, grid: np.ndarray, title: str) -> None:
    """(Ldim, M_tr) counts on a log colour scale, each nonzero cell annotated; gaps below the
    diagonal."""
    from matplotlib.colors import LogNorm

    shown = np.ma.masked_equal(grid.T.astype(float), 0)
    image = ax.imshow(shown, origin="lower", cmap="viridis", norm=LogNorm(vmin=1))
    for ld, mt in zip(*np.nonzero(grid), strict=True):
        ax.annotate(
            f"{grid[ld, mt]:,}",
            (ld, mt),
            ha="center",
            va="center",
            fontsize=5.5,
            color="white" if mt < ld else "black",
            bbox={
                "boxstyle": "round,pad=0.15",
                "fc": "C3" if mt < ld else "white",
                "ec": "none",
                "alpha": 0.8,
            },
        )
    top = grid.shape[0] - 1
    ax.plot([-0.5, top + 0.5], [-0.5, top + 0.5], color=THEORY, lw=0.8, label="M_tr = Ldim")
    ax.plot(
        [-0.5, top + 0.5],
        [-1 / 3, 2 * (top + 0.5) / 3],
        color=THEORY,
        lw=0.8,
        ls="--",
        label="M_tr = (2/3)·Ldim (BKM97)",
    )
    ax.legend(fontsize="x-small", loc="upper left", title="red: gaps", title_fontsize="x-small")
    ax.set_xticks(range(top + 1))
    ax.set_yticks(range(top + 1))
    ax.set_xlabel("Ldim(H)")
    ax.set_ylabel("M_tr(H)")
    ax.set_title(title, fontsize="small")
    ax.figure.colorbar(image, ax=ax, shrink=0.8, label="classes (log scale)")


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
    total = CensusCounts(0, {}, {})
    for record in records:
        total = total + CensusCounts.from_dict(record["result"])
    width = (1 << 32) // FIVE_POINT_CHUNKS
    stated = len(chunks) * width - int(0 in chunks)
    coverage = int(total.classes != stated) + int(sum(total.counts.values()) != stated)

    four = census(4)
    sub_mismatch = 0
    for shift in (0, 16):  # point 4 fixed to 0 (functions 0..15), then to 1 (16..31)
        ld, mt = census5_values(np.arange(1, 1 << 16, dtype=np.int64) << shift)
        sub_mismatch += int(np.sum(ld != four.ldim[1:]) + np.sum(mt != four.mtr[1:]))

    n_sample = ctx.pick(quick=300, full=3000)
    masks = (np.arange(1, n_sample + 1, dtype=np.int64) * SAMPLE_STRIDE) % (1 << 32)
    ld, mt = census5_values(masks)
    perms = list(permutations(range(5)))
    moved = [relabel(int(m), 5, perms[k % 120], (7 * k) % 32) for k, m in enumerate(masks)]
    ld_moved, mt_moved = census5_values(np.array(moved, dtype=np.int64))
    sample_mismatch = invariance_mismatch = 0
    for mask, l5, m5, lm, mm in zip(masks, ld, mt, ld_moved, mt_moved, strict=True):
        H = ConceptClass.from_strings(class_rows(int(mask), 5))
        truth = (
            littlestone_dim(H),
            transductive_mistake_bound(H).value,
            mtr_by_permutations(H).value,
        )
        sample_mismatch += int(truth != (l5, m5, m5))
        invariance_mismatch += int((lm, mm) != (l5, m5))
    violations = coverage + sub_mismatch + sample_mismatch + invariance_mismatch

    gaps = total.gaps()
    below = total.below_two_thirds()
    scope = (
        "all 2^32 − 1 classes"
        if len(chunks) == FIVE_POINT_CHUNKS
        else (f"chunks {chunks} of {FIVE_POINT_CHUNKS}: {stated:,} classes")
    )
    fig, axes = new_figure(ncols=2, figsize=(11.0, 4.6))
    _heat_map(axes[0], _count_grid(four.pairs(), 5), "all 65,535 classes on 4 points")
    _heat_map(axes[1], _count_grid(total.counts, 6), f"5 points, {scope}")
    return CheckResult(
        verdict=Verdict.of(violations == 0),
        summary=f"5-point census over {scope}: gaps "
        + (", ".join(f"{p}: {n:,}" for p, n in gaps.items()) or "none")
        + f"; classes with M_tr < (2/3)·Ldim: {sum(below.values())}; 4-point sub-case mismatches "
        f"{sub_mismatch} of 131,070; sampled classes off the solvers {sample_mismatch}, off under "
        f"relabelling {invariance_mismatch} of {n_sample}",
        measured={
            "chunks_counted": len(chunks),  # of FIVE_POINT_CHUNKS: chunk 0 at quick, all at full
            "classes_counted": total.classes,
            "counts": {f"{a},{b}": n for (a, b), n in total.counts.items()},
            "gaps": {f"{a},{b}": n for (a, b), n in gaps.items()},
            "smallest_gap_classes": {
                f"{a},{b}": class_rows(total.smallest[(a, b)], 5) for (a, b) in gaps
            },
            "classes_below_two_thirds": sum(below.values()),
            "coverage_errors": coverage,
            "four_point_mismatches": sub_mismatch,
            "sample_mismatches": sample_mismatch,
            "invariance_mismatches": invariance_mismatch,
            "classes_sampled": n_sample,
            "violations": violations,
        },
        expected={
            "classes_counted": stated,
            "coverage_errors": 0,
            "four_point_mismatches": 0,
            "sample_mismatches": 0,
            "invariance_mismatches": 0,
            "violations": 0,
        },
        tolerance="exact equality",
        figures=ctx.save_figure(fig),
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
)
def two_thirds_line(ctx: Context, *, mtr: Callable[[ConceptClass], int] = _mtr) -> CheckResult:
    ks = list(range(1, ctx.pick(quick=3, full=4) + 1))
    ldims, mtrs = [], []
    for k in ks:
        H = constructions.gadget_power(k)
        ldims.append(littlestone_dim(H))
        mtrs.append(mtr(H))
    passed = ldims == [3 * k for k in ks] and mtrs == [2 * k for k in ks]
    fig, ax = new_figure()
    d = np.array([0, 3 * ks[-1]])
    ax.plot(d, d, color=THEORY, lw=1, label="M_tr = d")
    ax.plot(d, 2 * d / 3, color=THEORY, ls="--", lw=1, label="M_tr = 2d/3 (theory)")
    ax.plot(ldims, mtrs, "o", color="C1", label="W^k, exact (measured)")
    ax.set_xlabel("d = Ldim")
    ax.set_ylabel("M_tr")
    ax.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"W^k for k = 1..{ks[-1]}: Ldim {ldims}, M_tr {mtrs}",
        measured={"k": ks, "ldim": ldims, "mtr": mtrs},
        expected={"k": ks, "ldim": [3 * k for k in ks], "mtr": [2 * k for k in ks]},
        tolerance="exact equality",
        figures=ctx.save_figure(fig),
    )


# ------------------------------------------------------------------------------ mtr_le_ldim
@claim(
    "online.mtr_le_ldim",
    paper="online",
    statement="For every class, VC ≤ M_tr ≤ min(Ldim, ⌊log2|H|⌋), and Ldim ≥ 2 implies M_tr ≥ 2; "
    "the suffix-set DP equals the permutation brute force.",
    source="Chase et al. (2025, arXiv 2512.12567) Fact E.1 (Halving) and the elementary bounds; "
    "Ldim ≥ 2 ⇒ M_tr ≥ 2 is proved in docs/online.md#exact-values-the-checks-compare-with",
    rule="PASS when no random class violates VC ≤ M_tr ≤ min(Ldim, ⌊log2|H|⌋) or Ldim ≥ 2 ⇒ "
    "M_tr ≥ 2, and the DP equals the permutation brute force on every class with ≤ 7 points; FAIL "
    "when any class violates any of them (statistic: the number of violations). Never "
    "INCONCLUSIVE.",
    stochastic=True,
    statistic="violations",
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
    vc = np.array([r["vc"] for r in rows])
    m = np.array([r["mtr"] for r in rows])
    ld = np.array([r["ldim"] for r in rows])
    log_h = np.array([r["floor_log2_h"] for r in rows])
    brute = np.array([r["mtr_bruteforce"] if r["mtr_bruteforce"] is not None else -1 for r in rows])
    violations = {
        "vc > mtr": int(np.sum(vc > m)),
        "mtr > ldim": int(np.sum(m > ld)),
        "mtr > floor log2|H|": int(np.sum(m > log_h)),
        "ldim >= 2 but mtr < 2": int(np.sum((ld >= 2) & (m < 2))),
        "dp != brute force": int(np.sum((brute >= 0) & (brute != m))),
    }
    fig, ax = new_figure()
    pairs, counts = np.unique(np.column_stack([ld, m]), axis=0, return_counts=True)
    ax.scatter(
        pairs[:, 0],
        pairs[:, 1],
        s=20 + 20 * np.log2(counts),
        color="C0",
        label="classes (measured)",
    )
    top = max(int(ld.max()), 1)
    ax.plot([0, top], [0, top], color=THEORY, lw=1, label="M_tr = Ldim (upper bound)")
    ax.set_xlabel("Ldim(H)")
    ax.set_ylabel("M_tr(H)")
    ax.set_title(f"{len(rows)} random classes, |X| ≤ 8", fontsize="small")
    ax.legend(fontsize="small")
    n_brute = int(np.sum(brute >= 0))
    return CheckResult(
        verdict=Verdict.of(not any(violations.values())),
        summary=f"{len(rows)} classes ({n_brute} also by brute force): violations {sum(violations.values())}",
        measured={
            "classes": len(rows),
            "brute_forced": n_brute,
            **violations,
            "violations": sum(violations.values()),
        },
        expected={**dict.fromkeys(violations, 0), "violations": 0},
        tolerance="no violation of any inequality; DP equal to brute force on every class with ≤ 7 points",
        figures=ctx.save_figure(fig),
        arrays={"vc": vc, "mtr": m, "ldim": ld},
    )


# ------------------------------------------------------------------------------ bound_constants
def _lower_bound_holds(d: int, length_bound: Callable[[int], mpmath.mpf]) -> bool:
    """(1 − ε)^n ≥ 1/2 with ε = 2^{−√d/2} (Thm B.1), in 60-digit arithmetic."""
    eps = mpmath.power(2, -mpmath.sqrt(d) / 2)
    return length_bound(d) * mpmath.log1p(-eps) >= -mpmath.log(2)


def paper_length_bound(d: int) -> mpmath.mpf:
    """n_d = (d + 1)·2^{√d/10 + 1}: the sequence length of CONSTRUCTSEQUENCE with M = √d/10
    (Claim B.3)."""
    return (d + 1) * mpmath.power(2, mpmath.sqrt(d) / 10 + 1)


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
)
def bound_constants(
    ctx: Context, *, length_bound: Callable[[int], mpmath.mpf] = paper_length_bound
) -> CheckResult:
    """Evaluate the constants exactly: 60-digit arithmetic for (1 − ε)^n, closed forms for the
    crossings of c·√d with 2d/3 (c√d < 2d/3 ⟺ d > (3c/2)²)."""
    d_max = ctx.pick(quick=20_000, full=200_000)
    with mpmath.workdps(60):
        holds = np.array([_lower_bound_holds(d, length_bound) for d in range(1, 2001)])
        first = int(np.argmax(holds)) + 1 if holds.any() else None
        stays = (
            first is not None
            and bool(holds[first - 1 :].all())
            and all(_lower_bound_holds(d, length_bound) for d in range(2001, d_max + 1, 97))
        )
    crossings = {name: math.floor((1.5 * c) ** 2) + 1 for name, c in LEARNER_CONSTANTS.items()}
    crossing_115_7 = math.floor((1.5 * 115.7) ** 2) + 1
    passed = first == SPEC_D0 and first <= PAPER_D0 and stays and crossings["48"] == 5185

    fig, ax = new_figure()
    d = np.arange(1, 40_001)
    ax.loglog(d, d, color=THEORY, lw=1, label="d (= Ldim)")
    ax.loglog(d, 2 * d / 3, color=THEORY, ls="--", lw=1, label="2d/3 (W^k)")
    ax.loglog(d, 48 * np.sqrt(d), color="C1", label="48√d (Thm D.1)")
    ax.loglog(
        d, LEARNER_CONSTANTS["48/log2(4/3)"] * np.sqrt(d), color="C3", label="115.7√d (3/4 factor)"
    )
    ax.loglog(d, np.sqrt(d) / 10, color="C0", label="√d/10 (Thm B.1)")
    ax.axvline(first or 1, color="0.5", ls=":", label=f"lower bound valid from d = {first}")
    for name, x in crossings.items():
        ax.plot(x, 2 * x / 3, "o", color="C1" if name == "48" else "C3")
    ax.set_xlabel("d = Ldim")
    ax.set_ylabel("mistake bound")
    ax.legend(fontsize=6)
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
            "first_d_115_7_below_two_thirds": crossing_115_7,
            "corrected_constant": LEARNER_CONSTANTS["48/log2(4/3)"],
        },
        expected={
            "first_d_lower_bound": SPEC_D0,
            "paper_d0": PAPER_D0,
            "first_d_48_sqrt_below_two_thirds": 5185,
            "first_d_115_7_below_two_thirds": 30120,
        },
        tolerance="first d equals the spec's 774 and is ≤ the paper's 800, and the inequality holds "
        "for every checked d above it; 48√d < 2d/3 exactly for d > 5184",
        figures=ctx.save_figure(fig),
        arrays={"holds": holds},
    )


# ------------------------------------------------------------------------------- invariances
def _random_small_class(
    rng: np.random.Generator, max_points: int = 5, max_size: int = 20
) -> ConceptClass:
    n = int(rng.integers(1, max_points + 1))
    size = int(rng.integers(1, min(2**n, max_size) + 1))
    codes = rng.choice(2**n, size=size, replace=False)
    return ConceptClass.from_array([[(c >> j) & 1 for j in range(n)] for c in codes])


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
)
def invariances(ctx: Context, *, mtr: Callable[[ConceptClass], int] = _mtr) -> CheckResult:
    rng = ctx.rng("classes")
    n_classes = ctx.pick(quick=120, full=1500)
    violations = dict.fromkeys(
        ["permute", "flip", "duplicate column", "duplicate hypothesis", "subclass", "product"], 0
    )
    product_pairs = []
    for _ in range(n_classes):
        H = _random_small_class(rng)
        m, ld = mtr(H), littlestone_dim(H)
        M = H.matrix
        variants = {
            "permute": M[:, rng.permutation(H.n_points)],
            "flip": np.where(np.arange(H.n_points) == rng.integers(H.n_points), 1 - M, M),
            "duplicate column": np.column_stack([M, M[:, rng.integers(H.n_points)]]),
            "duplicate hypothesis": np.vstack([M, M[rng.integers(H.n_hypotheses)]]),
        }
        for name, variant in variants.items():
            V = ConceptClass.from_array(variant)
            violations[name] += int(mtr(V) != m or littlestone_dim(V) != ld)
        rows = rng.choice(
            H.n_hypotheses, size=int(rng.integers(1, H.n_hypotheses + 1)), replace=False
        )
        sub = H.subclass(np.sort(rows))
        violations["subclass"] += int(mtr(sub) > m or littlestone_dim(sub) > ld)
        G = _random_small_class(rng, max_points=3, max_size=6)
        P = constructions.product(H, G)
        if P.n_points <= 8:
            total, parts = mtr(P), m + mtr(G)
            product_pairs.append((parts, total))
            violations["product"] += int(
                total != parts or littlestone_dim(P) != ld + littlestone_dim(G)
            )
    pairs = np.array(product_pairs)
    fig, ax = new_figure()
    top = int(pairs.max()) if pairs.size else 1
    ax.plot([0, top], [0, top], color=THEORY, lw=1, label="M_tr(H×G) = M_tr(H) + M_tr(G) (theory)")
    jitter = ctx.rng("jitter").uniform(-0.12, 0.12, size=pairs.shape)
    ax.plot(*(pairs + jitter).T, "o", ms=3, alpha=0.5, label="random pairs (measured, jittered)")
    ax.set_xlabel("M_tr(H) + M_tr(G)")
    ax.set_ylabel("M_tr(H × G)")
    ax.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(not any(violations.values())),
        summary=f"{n_classes} classes, {len(product_pairs)} products: violations {sum(violations.values())}",
        measured={
            "classes": n_classes,
            "products": len(product_pairs),
            **violations,
            "violations": sum(violations.values()),
        },
        expected={**dict.fromkeys(violations, 0), "violations": 0},
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
)
def tree_class(ctx: Context, *, mtr: Callable[[ConceptClass], int] = _mtr) -> CheckResult:
    """d ≤ 4 by the exact DP; larger d by a certified lower bound (a sequence forcing d mistakes)
    sandwiched with Ldim = d, which makes it exact too."""
    from theory.online.certificates import mtr_lower_bound

    exact_ds = [1, 2, 3, 4]
    cert_ds = list(range(5, ctx.pick(quick=7, full=9) + 1))
    exact_vals, ldims = [], []
    for d in exact_ds:
        H = constructions.tree_class(d)
        exact_vals.append(mtr(H))
        ldims.append(littlestone_dim(H))
    cert_vals = []
    for d in cert_ds:
        H = constructions.tree_class(d)
        cert_vals.append(mtr_lower_bound(H, rng=ctx.rng(f"cert{d}")).value)
        ldims.append(littlestone_dim(H))
    ds = exact_ds + cert_ds
    # The paper's random upper-bound class: off-path bits Bernoulli(q) (§2.3, Lemma D.2).
    rng = ctx.rng("random_tree_classes")
    n_random = ctx.pick(quick=12, full=60)
    random_rows = []
    for d in (3, 4):
        for q in (0.1, 0.25):
            for _ in range(n_random):
                H = constructions.tree_class(d, q=q, rng=rng)
                random_rows.append((d, q, littlestone_dim(H), mtr(H)))
    random_arr = np.array(random_rows)
    at_d4 = random_arr[random_arr[:, 0] == 4]
    share_below = float(np.mean(at_d4[:, 3] < at_d4[:, 2]))
    violations = (
        sum(a != d for a, d in zip(ldims, ds, strict=True))
        + sum(a != d for a, d in zip(exact_vals + cert_vals, ds, strict=True))
        + int(np.sum(random_arr[:, 3] > random_arr[:, 2]))
        + int(share_below == 0)
    )
    passed = violations == 0
    w_k = [(3 * k, mtr(constructions.gadget_power(k))) for k in (1, 2)]

    fig, ax = new_figure()
    d_line = np.linspace(1, max(ds) + 1, 50)
    ax.plot(d_line, d_line, color=THEORY, lw=1, label="d (= Ldim, upper bound)")
    ax.plot(d_line, 2 * d_line / 3, color=THEORY, ls="--", lw=1, label="2d/3 (W^k line)")
    ax.plot(d_line, np.sqrt(d_line) / 10, color="C0", lw=1, label="√d/10 (Thm B.1)")
    ax.plot(
        d_line,
        np.minimum(48 * np.sqrt(d_line), d_line + 2),
        color="C3",
        lw=1,
        label="48√d (Thm D.1; off the chart)",
    )
    ax.plot(exact_ds, exact_vals, "o", color="C1", label="tree class, exact DP")
    ax.plot(cert_ds, cert_vals, "^", color="C2", label="tree class, certified ≥ (= Ldim)")
    ax.plot(*zip(*w_k, strict=True), "s", color="C4", label="W^k, exact DP")
    for d in (3, 4):
        values, counts = np.unique(random_arr[random_arr[:, 0] == d][:, 3], return_counts=True)
        ax.scatter(np.full(values.size, d + 0.15), values, s=8 + 4 * counts, color="C5", marker="D")
    ax.scatter([], [], color="C5", marker="D", label="random tree classes (q = .1, .25), exact")
    ax.set_xlabel("d = Ldim")
    ax.set_ylabel("M_tr")
    ax.set_ylim(0, max(ds) + 1.5)
    ax.legend(fontsize=6)
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"d = {ds}: Ldim {ldims}; exact M_tr {exact_vals} (d ≤ 4), certified ≥ {cert_vals}; "
        f"random d = 4 classes with M_tr < Ldim: {share_below:.0%}",
        measured={
            "d": ds,
            "ldim": ldims,
            "mtr_exact": exact_vals,
            "mtr_certified_at_least": cert_vals,
            "random_d4_share_mtr_below_ldim": share_below,
            "random_classes": len(random_rows),
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
        "exact); random classes: M_tr ≤ Ldim and some d = 4 class below Ldim (the spec's pilot "
        "saw M_tr = 3 < 4 in about 70%: reported, not a tolerance)",
        figures=ctx.save_figure(fig),
    )


# --------------------------------------------------------------------------- adversary_forces
ADVERSARY_GRID = [(0.05, 1), (0.05, 2), (0.05, 4), (0.1, 2), (0.2, 3), (0.3, 2)]


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
)
def adversary_forces(ctx: Context, *, guaranteed: Callable | None = None) -> CheckResult:
    """Minimal and random tree classes, a grid of (ε, M): the sequence's invariants, g ≤ v ≤ M_tr
    (M_tr exact by DP for d ≤ 4, else its upper bound Ldim = d), the pilot numbers, and real
    learners (SOA, Halving, the paper's learner) each suffering ≥ g forced mistakes."""
    from sims.online import (
        DangerZoneLearner,
        construct_sequence,
        guaranteed_mistakes,
        run_adversary,
    )
    from theory.online.dims import HalvingLearner, SOALearner
    from theory.online.transductive import transductive_value

    guaranteed = guaranteed or guaranteed_mistakes
    rng = ctx.rng("classes")
    classes = [(d, 0.0) for d in range(3, ctx.pick(quick=6, full=8) + 1)]
    classes += [(d, 0.2) for d in (3, 4, 5)]
    rows, failures = [], []
    for d, q in classes:
        H = constructions.tree_class(d, q=q, rng=rng)
        upper = _mtr(H) if d <= 4 else d
        for eps, M in ADVERSARY_GRID:
            seq = construct_sequence(H, eps, M)
            g = guaranteed(H, seq)
            v = transductive_value(H, list(seq.sequence))
            learners = (SOALearner(H), HalvingLearner(H), DangerZoneLearner(H, None, seq.sequence))
            learner_mistakes = [run_adversary(H, seq, lrn)["n_mistakes"] for lrn in learners]
            ok = (
                seq.ancestors_first
                and seq.within_length_bound
                and g <= v <= upper
                and min(learner_mistakes) >= g
            )
            rows.append(
                {
                    "d": d,
                    "q": q,
                    "eps": eps,
                    "M": M,
                    "n": seq.n,
                    "g": g,
                    "v": v,
                    "mtr_upper": upper,
                    "min_learner_mistakes": min(learner_mistakes),
                }
            )
            if not ok:
                failures.append(f"d={d} q={q} eps={eps} M={M}")
    pilot_H = constructions.tree_class(6)
    pilot = construct_sequence(pilot_H, 0.05, 4)
    pilot_g = guaranteed(pilot_H, pilot)
    pilot_v = transductive_value(pilot_H, list(pilot.sequence))
    pilot_ok = (pilot.n, pilot_g, pilot_v) == (47, 5, 5)
    violations = len(failures) + int(not pilot_ok)
    trace = run_adversary(pilot_H, pilot, SOALearner(pilot_H))

    fig, (ax, ax_t) = new_figure(ncols=2)
    g_all = np.array([r["g"] for r in rows])
    v_all = np.array([r["v"] for r in rows])
    up_all = np.array([r["mtr_upper"] for r in rows])
    jitter = ctx.rng("jitter").uniform(-0.1, 0.1, size=g_all.size)
    ax.plot(g_all + jitter, v_all, "o", ms=3.5, mfc="none", label="v(H, x) (measured)")
    ax.plot(g_all + jitter, up_all, "_", ms=8, color="C3", label="M_tr or Ldim (upper)")
    top = int(up_all.max())
    ax.plot([0, top], [0, top], color=THEORY, lw=1, label="v = g (theory: v ≥ g)")
    ax.set_xlabel("g: mistakes the adversary guarantees")
    ax.set_ylabel("value")
    ax.legend(fontsize=6)
    steps = np.arange(trace["log2_size"].size)
    ax_t.step(steps, trace["log2_size"], where="post", label="log2|V_t| vs SOA")
    forced_t = np.flatnonzero(trace["forced"]) + 1
    ax_t.plot(forced_t, trace["log2_size"][forced_t], "x", color="C1", label="forced step")
    ax_t.set_xlabel("t")
    ax_t.set_ylabel("log2 |V_t|")
    ax_t.set_title(f"d = 6, (ε, M) = (.05, 4): n = {pilot.n}, g = {pilot_g}", fontsize="small")
    ax_t.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(violations == 0),
        summary=f"{len(rows)} (class, ε, M) runs, {len(failures)} violating; pilot n, g, v = "
        f"{pilot.n}, {pilot_g}, {pilot_v}",
        measured={
            "runs": len(rows),
            "violations": violations,
            "violating_runs": failures,
            "pilot_n": pilot.n,
            "pilot_g": pilot_g,
            "pilot_v": pilot_v,
            "g": g_all,
            "v": v_all,
        },
        expected={"violations": 0, "pilot_n": 47, "pilot_g": 5, "pilot_v": 5},
        tolerance="every run: ancestors first, n < (d+1)·2^{M+1}, g ≤ v ≤ M_tr (Ldim for d > 4), "
        "every learner ≥ g mistakes; the spec's pilot exactly",
        figures=ctx.save_figure(fig),
        arrays={"d": np.array([r["d"] for r in rows]), "g": g_all, "v": v_all, "upper": up_all},
    )


# ------------------------------------------------------------------------- learner_invariants
def _halving_worst_case(H: ConceptClass, order: np.ndarray) -> int:
    """Mistakes of the Halving learner on ``order`` against its optimal adversary (max over
    targets: a deterministic learner's worst case on a fixed sequence is its worst target)."""
    from theory.online.dims import HalvingLearner

    worst = 0
    for target in range(H.n_hypotheses):
        learner = HalvingLearner(H)
        for x in order:
            learner.predict(int(x))
            learner.update(int(x), int(H.matrix[target, x]))
        worst = max(worst, learner.mistakes)
    return worst


#: Instances of ``learner_invariants``: each tree class is played in BFS order and in this many
#: random orders, with each of these Halving sizes (experts vote by Halving once |V| ≤ size).
LEARNER_RANDOM_ORDERS = 8
LEARNER_HALVING_SIZES = (2, 4, 8)


def _learner_games(rng: np.random.Generator):
    """Yield (d, q, H, order k (0 = BFS), Halving size, target, LearnerRun) for the tree classes
    d = 3, 4, 5, q = 0, 0.25 (thresholds lowered so that experts split at computable d): every
    target on d ≤ 4, 12 drawn targets on d = 5."""
    from sims.online import play_learner

    for d, q in [(d, q) for d in (3, 4, 5) for q in (0.0, 0.25)]:
        H = constructions.tree_class(d, q=q, rng=rng)
        orders = [np.arange(H.n_points)]  # BFS order of the tree nodes, then random ones
        orders += [rng.permutation(H.n_points) for _ in range(LEARNER_RANDOM_ORDERS)]
        targets = range(H.n_hypotheses) if d <= 4 else rng.choice(H.n_hypotheses, 12, False)
        for size in LEARNER_HALVING_SIZES:
            for k, order in enumerate(orders):
                for target in targets:
                    yield d, q, H, k, size, int(target), play_learner(H, order, int(target), size)


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
)
def learner_invariants(ctx: Context, *, weight_factor: float = 0.75) -> CheckResult:
    """Tree classes with lowered thresholds, every target (``_learner_games``): the count of
    consistent experts after each step (Lemma D.4), the total weight's factor W_after/W_before
    at each learner mistake (≤ f, f = 3/4: the caveat to Claim D.8), and learner mistakes ≤
    log_{1/f}(1/w_true); reports the mistakes above the paper's claimed 1/2."""
    from theory.online.transductive import transductive_value

    bad_steps, bound_violations, runs, factors, bounds, mistakes = 0, 0, 0, [], [], []
    case_totals = dict.fromkeys(("halving", "ancestor", "zone_delete", "zone_split"), 0)
    worst: dict[tuple[int, float], dict] = {}
    for d, q, H, k, size, _, run in _learner_games(ctx.rng("classes")):
        bad_steps += run.steps_without_one_true_expert
        factors += run.weight_factors
        bound = math.log(1 / run.true_weight) / math.log(1 / weight_factor)
        bound_violations += int(run.mistakes > bound + 1e-9)
        bounds.append(bound)
        mistakes.append(run.mistakes)
        for case, n in run.true_expert_mistakes.items():
            case_totals[case] += n
        runs += 1
        if d <= 4 and k == 0 and size == 2:  # worst case over targets: the optimal adversary
            order = np.arange(H.n_points)
            w = worst.setdefault((d, q), {"d": d, "q": q, "learner_worst": 0})
            w["learner_worst"] = max(w["learner_worst"], run.mistakes)
            if "value" not in w:
                w |= {"value": transductive_value(H, list(order))}
                w |= {"halving_worst": _halving_worst_case(H, order)}
    worst_cases = list(worst.values())
    factors_over = int(np.sum(np.asarray(factors) > weight_factor + 1e-12))
    over_halving = int(np.sum(np.asarray(factors) > 0.5 + 1e-12))
    below_value = sum(w["learner_worst"] < w["value"] for w in worst_cases)
    violations = bad_steps + factors_over + bound_violations + below_value
    fig = plot_learner_weights(bounds, mistakes, factors, case_totals, weight_factor)
    return CheckResult(
        verdict=Verdict.of(violations == 0),
        summary=f"{runs} runs, {len(factors)} learner mistakes: steps without exactly one true "
        f"expert {bad_steps}; mistakes leaving more than f = {weight_factor:g} of the weight "
        f"{factors_over} (largest factor {max(factors):.3f}; above the paper's 1/2: "
        f"{over_halving}); runs over the weight bound {bound_violations}; worst case vs optimal "
        "adversary (learner/v/Halving): "
        + ", ".join(f"{w['learner_worst']}/{w['value']}/{w['halving_worst']}" for w in worst_cases),
        measured={
            "runs": runs,
            "learner_mistakes": len(factors),
            "steps_without_exactly_one_true_expert": bad_steps,
            "mistakes_over_weight_factor": factors_over,
            "largest_weight_factor": float(max(factors)),
            "mistakes_over_halving": over_halving,
            "runs_over_weight_bound": bound_violations,
            "true_expert_mistakes_by_case": case_totals,
            "worst_case_against_optimal_adversary": worst_cases,
            "classes_where_learner_beats_the_value": below_value,
            "violations": violations,
        },
        expected={
            "steps_without_exactly_one_true_expert": 0,
            "mistakes_over_weight_factor": 0,
            "runs_over_weight_bound": 0,
            "classes_where_learner_beats_the_value": 0,
            "violations": 0,
        },
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


def _search_grid(ctx: Context) -> list[dict]:
    """Annealing restarts: every (points, start kind) the start fits, ``restarts`` times each, and
    the same on ≥ 8 points with Ldim held at ≥ 4 (random and gadget starts)."""
    from sims.online_search import START_KINDS

    sizes, restarts, steps = ctx.pick(quick=((8, 10), 1, 300), full=((6, 7, 8, 9, 10), 3, 1500))
    minimum = {"random": 4, "gadget": 4, "tree": 7}
    free = [
        {"n_points": n, "start": kind, "steps": steps, "restart": r}
        for n in sizes
        for kind in START_KINDS
        if n >= minimum[kind]
        for r in range(restarts)
    ]
    held = [  # Ldim held at ≥ 4 once reached: the search for (4, 2), (5, 3), ...
        {"n_points": n, "start": kind, "steps": steps, "restart": r, "min_ldim": 4}
        for n in sizes
        if n >= 8
        for kind in ("random", "gadget")
        for r in range(restarts)
    ]
    return free + held


@claim(
    "online.below_two_thirds",
    paper="online",
    statement="Search for the first explicit class below BKM's 2/3 line, M_tr < (2/3)·Ldim (e.g. "
    "(Ldim, M_tr) = (4, 2), (5, 3), (7, 4)), on at most 10 points; every claimed witness is "
    "certified by the exact DP and, on ≤ 8 canonical points, by the permutation brute force.",
    source="BKM97's (2/3)·d class (Ben-David, Kushilevitz, Mansour 1997; cited by Chase et al. "
    "2025, arXiv 2512.12567); hill climbing met no (4, 2) class on ≤ 7 points here",
    rule="PASS when at least one witness (shipped in theory/online/data or met by the search) is "
    "certified: exact DP gives 3·M_tr < 2·Ldim and the brute force agrees where it runs; FAIL when "
    "any claimed witness fails certification (not below the line, or DP ≠ brute force); otherwise "
    "INCONCLUSIVE, reporting the searched space (sizes, moves, restarts, classes scored, CPU "
    "seconds): a search that finds nothing is never a proof that no class exists.",
    stochastic=True,
    statistic="certified_witnesses",
)
def below_two_thirds(
    ctx: Context, *, witnesses: Sequence[ConceptClass] | None = None
) -> CheckResult:
    """Simulated-annealing restarts over hypothesis sets (sims/online_search.py) in a resumable
    sweep, then certification of the shipped witnesses (or ``witnesses``, the classes under test)
    and of every class the search met below the line."""
    from sims.online_search import certify, codes_to_class, gap_search_task, write_witness

    records = ctx.sweep(gap_search_task, _search_grid(ctx), name="annealing")
    runs = [r["result"] for r in records]
    claimed = list(shipped_witnesses() if witnesses is None else witnesses)
    met = {
        (r["n_points"], tuple(w["codes"])) for r in runs for w in r["below_line"]
    }  # classes the search met below the line, each certified again
    candidates = [("claimed", H) for H in claimed]
    candidates += [("search", codes_to_class(codes, n)) for n, codes in sorted(met)]
    certs = [(src, certify(H)) for src, H in candidates]
    for i, ((src, H), (_, c)) in enumerate(zip(candidates, certs, strict=True)):
        if src == "search" and c["certified"]:  # for a user to load with `solve online`
            write_witness(H, ctx.out_dir / "witnesses" / f"below_two_thirds_{i}.txt")
    failed = [c for _, c in certs if not c["certified"]]
    good = [c for _, c in certs if c["certified"]]
    if failed:
        verdict = Verdict.FAIL
    elif good:
        verdict = Verdict.PASS
    else:
        verdict = Verdict.INCONCLUSIVE

    pairs: dict[tuple[int, int], int] = {}
    for r in runs:
        for ld, m, count in r["pairs"]:
            pairs[(ld, m)] = pairs.get((ld, m), 0) + count
    cpu = float(sum(r["cpu_seconds"] for r in runs))
    moves = int(sum(r["moves"] for r in runs))
    scored = int(sum(r["classes_scored"] for r in runs))
    best = min(runs, key=lambda r: r["best_energy"])
    line_pairs = sorted(p for p in pairs if 3 * p[1] == 2 * p[0])

    fig, ax = new_figure()
    top = max(ld for ld, _ in pairs) if pairs else 3
    for (ld, m), count in sorted(pairs.items()):
        colour = "C3" if 3 * m < 2 * ld else ("C1" if m < ld else "C0")
        ax.scatter(ld, m, s=10 + 12 * np.log10(count + 1), color=colour, zorder=3)
    ax.plot([0, top], [0, top], color=THEORY, lw=1, label="M_tr = Ldim (upper bound)")
    ax.plot([0, top], [0, 2 * top / 3], color=THEORY, ls="--", lw=1, label="M_tr = 2·Ldim/3 (W^k)")
    ax.fill_between([0, top], [0, 0], [0, 2 * top / 3], color="C3", alpha=0.08)
    ax.scatter([], [], color="C0", label="(Ldim, M_tr) met, no gap")
    ax.scatter([], [], color="C1", label="met, gap above the line")
    for c in good:
        ax.plot(c["ldim"], c["mtr"], "*", ms=14, color="C3")
    ax.plot([], [], "*", color="C3", label="certified witness below the line")
    ax.set_xlabel("Ldim(H)")
    ax.set_ylabel("M_tr(H)")
    ax.set_title(
        f"{len(runs)} annealing restarts, {scored:,} classes on ≤ 10 points, {cpu:.0f} CPU s",
        fontsize="small",
    )
    ax.legend(fontsize=6)
    searched = (
        f"{len(runs)} restarts on {sorted({r['n_points'] for r in runs})} points, {moves:,} moves, "
        f"{scored:,} classes scored, {cpu:.0f} CPU s"
    )
    return CheckResult(
        verdict=verdict,
        summary=f"certified witnesses below 2/3: {len(good)}; failed certification: {len(failed)}; "
        f"best met (Ldim, M_tr) = ({best['best_ldim']}, {best['best_mtr']}); searched {searched}",
        measured={
            "certified_witnesses": len(good),
            "failed_witnesses": len(failed),
            "witnesses": [
                {k: c[k] for k in ("ldim", "mtr", "mtr_bruteforce", "n_points", "n_hypotheses")}
                for c in good + failed
            ],
            "restarts": len(runs),
            "moves": moves,
            "classes_scored": scored,
            "cpu_seconds": cpu,
            "point_counts": sorted({r["n_points"] for r in runs}),
            "best_ldim": best["best_ldim"],
            "best_mtr": best["best_mtr"],
            "pairs_on_the_line": [list(p) for p in line_pairs],
            "pairs_met": [[ld, m, c] for (ld, m), c in sorted(pairs.items())],
        },
        expected={"failed_witnesses": 0, "certified_witnesses": "≥ 1 for PASS (unknown a priori)"},
        tolerance="exact: a witness needs 3·M_tr < 2·Ldim by the exact DP, and the brute force "
        "equal to the DP on ≤ 8 canonical points",
        figures=ctx.save_figure(fig),
    )


# ---------------------------------------------------------------------------- random_tree_d5
def _bracket_ok(H: ConceptClass, b) -> bool:
    """A bracket is consistent when lower ≤ upper ≤ Ldim(H) = d and its sequence, re-scored
    exactly, forces at least ``lower`` mistakes (the lower end's certificate)."""
    from theory.online.transductive import transductive_value

    forced = transductive_value(H, list(b.sequence)) if b.sequence else 0
    return b.lower <= b.upper <= b.ldim and forced >= b.lower


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
)
def random_tree_d5(ctx: Context, *, bracket: Callable | None = None) -> CheckResult:
    """d = 3, 4 exactly by the DP (with the perfect-halving test cross-checked against it); d = 5
    by :func:`theory.online.brackets.mtr_bracket` (certified lower bound, Ldim, and the exact
    perfect-halving test for M_tr = 5 = log2 |H|). ``bracket`` replaces mtr_bracket (a theory
    under test)."""
    from theory.online.brackets import mtr_bracket, perfect_halving_order

    bracket = bracket or mtr_bracket
    n_per_q = ctx.pick(quick=10, full=40)
    qs = (0.1, 0.25)
    rng = ctx.rng("classes")
    rows, violations, halving_mismatch = [], 0, 0
    for d in (3, 4, 5):
        for q in qs:
            for i in range(n_per_q):
                H = constructions.tree_class(d, q=q, rng=rng)
                if d < 5:
                    m, ld = _mtr(H), littlestone_dim(H)
                    halving = perfect_halving_order(H)
                    halving_mismatch += int(
                        halving.decided and (halving.order is not None) != (m == d)
                    )
                    violations += int(m > ld)
                    rows.append({"d": d, "q": q, "ldim": ld, "lower": m, "upper": m})
                    continue
                b = bracket(H, rng=ctx.rng("bracket", str(q), str(i)))
                violations += int(b.ldim != 5 or not _bracket_ok(H, b))
                rows.append({"d": d, "q": q, "ldim": b.ldim, "lower": b.lower, "upper": b.upper})
    violations += halving_mismatch
    d5 = [r for r in rows if r["d"] == 5]
    closed = sum(r["lower"] == r["upper"] for r in d5)
    closed_share = closed / len(d5)
    if violations:
        verdict = Verdict.FAIL
    elif closed_share >= 0.9:
        verdict = Verdict.PASS
    else:
        verdict = Verdict.INCONCLUSIVE

    def share(d: int, q: float | None, value: Callable[[int], bool]) -> float:
        sel = [
            r
            for r in rows
            if r["d"] == d and (q is None or r["q"] == q) and r["lower"] == r["upper"]
        ]
        return sum(value(r["lower"]) for r in sel) / max(len(sel), 1)

    table = {
        f"d{d}_q{q}": {str(k): share(d, q, lambda v, k=k: v == k) for k in range(d - 2, d + 1)}
        for d in (3, 4, 5)
        for q in qs
    }
    below = {f"d{d}": share(d, None, lambda v, d=d: v < d) for d in (3, 4, 5)}

    fig, (ax, ax_r) = new_figure(ncols=2)
    d_line = np.linspace(1, 6, 50)
    ax.plot(d_line, d_line, color=THEORY, lw=1, label="d (= Ldim, upper bound)")
    ax.plot(d_line, 2 * d_line / 3, color=THEORY, ls="--", lw=1, label="2d/3 (W^k line)")
    for j, q in enumerate(qs):
        for d in (3, 4, 5):
            sel = [r for r in rows if r["d"] == d and r["q"] == q]
            vals, counts = np.unique(
                [r["lower"] for r in sel if r["lower"] == r["upper"]], return_counts=True
            )
            ax.scatter(
                d + (j - 0.5) * 0.2 + np.zeros(vals.size),
                vals,
                s=8 + 6 * counts,
                color=f"C{j + 1}",
                zorder=3,
            )
            for r in sel:
                if r["lower"] < r["upper"]:
                    ax.vlines(d + (j - 0.5) * 0.2, r["lower"], r["upper"], color=f"C{j + 1}", lw=1)
        ax.scatter([], [], color=f"C{j + 1}", label=f"random tree classes, q = {q} (exact)")
    minimal = [_mtr(constructions.tree_class(d)) for d in (1, 2, 3, 4)]
    minimal.append(bracket(constructions.tree_class(5), rng=ctx.rng("minimal")).lower)
    ax.plot(range(1, 6), minimal, "o", mfc="none", color="C0", label="minimal tree class (q = 0)")
    ax.set_xlabel("d = Ldim")
    ax.set_ylabel("M_tr")
    ax.legend(fontsize=6)
    width = 0.25
    for j, k in enumerate((2, 1, 0)):  # M_tr = d, d − 1, d − 2
        ax_r.bar(
            np.arange(3) + (j - 1) * width,
            [share(d, None, lambda v, d=d, k=k: v == d - k) for d in (3, 4, 5)],
            width,
            label=f"M_tr = d − {k}" if k else "M_tr = d",
            color=f"C{4 + j}",
        )
    ax_r.set_xticks(np.arange(3), ["d = 3", "d = 4", "d = 5"])
    ax_r.set_ylabel(f"share of closed classes (q = .1 and .25, {n_per_q} each)")
    ax_r.legend(fontsize=6)
    return CheckResult(
        verdict=verdict,
        summary=f"d = 5: {closed}/{len(d5)} brackets closed, violations {violations}; share with "
        f"M_tr < d: d=3 {below['d3']:.0%}, d=4 {below['d4']:.0%}, d=5 {below['d5']:.0%}",
        measured={
            "classes_per_q": n_per_q,
            "d5_closed": closed,
            "d5_classes": len(d5),
            "d5_closed_share": closed_share,
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
        figures=ctx.save_figure(fig),
        arrays={
            "d": np.array([r["d"] for r in rows]),
            "q": np.array([r["q"] for r in rows]),
            "lower": np.array([r["lower"] for r in rows]),
            "upper": np.array([r["upper"] for r in rows]),
        },
    )
