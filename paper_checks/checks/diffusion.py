"""Claims of "Why Diffusion Models Don't Memorize" (Bonnaire, Urfin, Biroli, Mézard, NeurIPS 2025,
arXiv 2505.17638): the spectrum of the random-feature matrix U and the two training timescales it
sets. The model, Theorem 3.1, Lemma C.1 and the conventions are written out in
docs/diffusion.md#the-papers-model-and-what-the-checks-use.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import paper_checks.claims as registry
from paper_checks import results
from paper_checks.claims import HistoryEntry, claim
from paper_checks.context import Context
from paper_checks.decision import Decision, Part, Rule, within
from paper_checks.figures.diffusion import (
    constants_figure,
    gd_flow_figure,
    nonlinear_figure,
    solver_sanity_figure,
    spectrum_figure,
    threshold_figure,
    timescales_figure,
    two_bulks_figure,
)
from paper_checks.paper_scale import PaperSizes, Refused
from paper_checks.results import CheckResult, Verdict
from sims.diffusion_rf import gd_task, infinite_time_gap_task, score_dynamics_task
from sims.diffusion_units import (
    GapCurve,
    GDPlateaus,
    TimescaleSweep,
    expected_group_counts,
    gap_curve,
    gap_table,
    gd_plateaus,
    group_counts,
    threshold_units,
    unit_exponents,
)
from sims.rmt import ge_spectrum_task, nonlinear_spectrum_task
from theory import rmt

#: What ``--scale paper`` does with each claim (:mod:`paper_checks.paper_scale`): the solver's
#: claims are the paper's setting at every scale; the simulations have their own plans.
SOLVER_PAPER_PLAN = PaperSizes(
    sizes="the paper's setting at every scale: the deterministic equivalent (Thm 3.1) is the "
    "p → ∞ limit the paper plots, solved at ψ_p up to 16,384 (Fig. 4 has 64); the constants by "
    "quadrature, not the reference's 5·10⁵-sample Monte Carlo",
    basis="the full reference run",
    same_as_full=True,
)

GE_FIG4_PAPER_PLAN = PaperSizes(
    sizes="the reference spectrum script's d = 2000: KS draw ψ_p = 8, ψ_n = 2 (p = 16,000, "
    "n = 4,000); counts draw Fig. 4's ψ_p = 64, ψ_n = 8 (p = 128,000, n = 16,000), its "
    "18,000² Gram matrix accumulated 4,000 features at a time (~6 GB peak, not the 18 GB factor)",
    tasks=2,
    basis="CPU of the streamed Gram eigenvalues on one thread at d = 400 (ψ_p = 64: 12.9 s) and "
    "d = 800 (ψ_p = 8: 2.9 s) × (2000/d)³, O(p(n+d)² + (n+d)³) (2026-12-01, shared 2-core "
    "machine, ±30%); the counts task is ~0.45 h of it",
    cpu_hours=0.5,
)

NONLINEAR_PAPER_PLAN = PaperSizes(
    sizes="the Mehler U at the reference script's d = 2000, ψ_p = 8, ψ_n = 2 (dense p = 16,000 "
    "eigvalsh, ~19 GB peak) plus full's d = 100 Monte Carlo cross-check; Fig. 4's ψ_p = 64 "
    "(p = 128,000: 2·10¹⁵ flops, 131 GB per copy of U) is out of reach",
    tasks=3,
    basis="CPU of the Mehler task on one thread at d = 800 (p = 6,400: 58 s, 3.0 GB) × "
    "(2000/800)³, O(p² n + p³), memory × (2000/800)² (2026-12-01, shared 2-core machine, ±30%)",
    cpu_hours=0.3,
)

FLOW_PAPER_PLAN = Refused(
    "the paper does not state Fig. 5's d or ψ_p; at the reference script's d = 2000 and our "
    "ψ_p = 512, each of the 15 GE-flow tasks is the SVD of a 1,024,000 × 130,000 factor "
    "(1.1 TB, ~10¹⁷ flops): out of reach (`--scale full` is our largest)"
)

GAP_PAPER_PLAN = PaperSizes(
    sizes="the reference scripts' d = 2000 on our grid: ψ_p = 16 (p = 32,000), ψ_n = 2-64 "
    "(n = 4,000-128,000), 3 draws as at full; each flow streamed in 4,000-row/column blocks, "
    "~45 GB peak for the ψ_n = 64 task (a 32,000² eigh; ~110 GB with the factor held whole), "
    "~4.6 h for it on one core",
    tasks=27,
    basis="CPU of the 9 streamed tasks of one draw on one thread at d = 160 (38.2 s; unstreamed "
    "37.1 s, 4.8 s at d = 80: × 7.7 per doubling, O(d³)) × (2000/160)³ × 3 draws; peak memory "
    "0.73 GB at d = 240, ψ_n = 64, × (2000/240)² (2026-12-01, shared 2-core machine, ±30%)",
    cpu_hours=62.0,
)

GD_PAPER_PLAN = Refused(
    "at the reference script's d = 2000 (ψ_p = 32: p = 64,000, n up to 16,000) GD to τ = 10⁶ is "
    "~62,000 steps of ~8·10¹² flops (~5·10¹⁷ flops, thousands of CPU-hours) against a 33 GB "
    "dense ξ-averaged U; the CelebA U-Net of Fig. 2 (4M parameters) is not shipped either "
    "(`--scale full` is our largest)"
)


# ============================================================ spectrum of U
# The reference table, computed here by Gauss–Hermite quadrature before the claim was written (tanh,
# σ_x = 1; docs/diffusion.md#gaussian-equivalence-and-its-constants): (a_t, b_t, v_t², s_t²).
SPEC_CONSTANTS = {
    0.01: (0.60571, 0.08523, 0.025542, 0.0018735),
    0.1: (0.60571, 0.2579, 0.01384, 0.01357),
    1.0: (0.60571, 0.5632, 5e-5, 0.02736),
}


def _failed(checks: dict[str, bool]) -> str:
    """The summary's suffix naming the checks that missed ("; failed: a, b"), empty if none did."""
    failed = [k for k, ok in checks.items() if not ok]
    return f"; failed: {', '.join(failed)}" if failed else ""


@claim(
    "diffusion.constants",
    paper="diffusion",
    statement="The Gaussian-equivalence constants a_t, b_t, v_t², s_t² of the tanh random-feature "
    "model, by quadrature, reproduce a reference table computed beforehand, with b_t = √Δ_t a_t "
    "(Stein) and v_t² from the conditional mean agreeing with a direct three-dimensional integral.",
    source="Bonnaire et al. (2025, arXiv 2505.17638) Lemma C.1 (the constants' definitions); the "
    "table is computed here by Gauss–Hermite quadrature "
    "(docs/diffusion.md#gaussian-equivalence-and-its-constants)",
    rule="PASS when each of the 12 quadrature constants lies within half a unit of the table's "
    "last printed digit and b_t, v_t² agree with the direct 2-D/3-D integrals within 1e-10; FAIL "
    "when any entry or identity misses. No INCONCLUSIVE (deterministic quadrature).",
    stochastic=False,
    paper_plan=SOLVER_PAPER_PLAN,
    reproduces_to=0.0,
)
def constants(ctx: Context, *, rf_constants: Callable = rmt.rf_constants) -> CheckResult:
    """Each constant against the table within half a unit of its last printed digit; b_t against
    the direct E[v σ(h)] and v_t² against the direct E[σ(cu+√Δv)σ(cu+√Δw)] − a²c² (tensor
    quadrature, independent of the code path that computes them) to 1e-10."""
    comparison = rmt.compare_constants(SPEC_CONSTANTS, rf_constants)
    rows, worst = comparison.rows, comparison.worst_fraction_of_rounding
    table_ok = all(all(r["within_rounding"]) for r in rows)
    identities_ok = comparison.identity_error < 1e-10
    fig = constants_figure(rf_constants, comparison)
    return CheckResult(
        verdict=Verdict.of(table_ok and identities_ok),
        summary=f"{comparison.within_rounding} of 12 table entries within "
        f"rounding (worst {worst:.2f} of a half-unit); "
        f"direct integrals agree to {comparison.identity_error:.1e}",
        measured={
            "t": list(SPEC_CONSTANTS),
            "a_b_v2_s2": [r["ours"] for r in rows],
            "worst_fraction_of_rounding": worst,
            "identity_error": comparison.identity_error,
        },
        expected={"t": list(SPEC_CONSTANTS), "a_b_v2_s2": [r["table"] for r in rows]},
        tolerance="|ours − table| ≤ half a unit in the table's last digit; b_t and v_t² against "
        "direct 2-D/3-D quadrature within 1e-10",
        figures=ctx.save_figure(fig),
    )


#: Im q ≥ −HERGLOTZ_RTOL·|q|: Newton stops at residual 1e-12, and next to a square-root edge the
#: error in q is the square root of the residual's, so tiny negative values there are rounding.
HERGLOTZ_RTOL = 1e-9


def _bulk_masses_in_units(spec: rmt.Spectrum, psi_p: float) -> list[float]:
    return [b.mass * psi_p for b in spec.bulks]


SOLVER_TOLERANCE = (
    "masses rel. 1e-3; total mass 1e-6; Im q ≥ −1e-9·|q| (rounding at edges); |1 + zq| < 1e-3 at "
    "1e3·λ_max; residue 1e-6; |Δρ| < 1e-4·max(1, ρ) against the per-λ LM"
)


def _solver_checks(
    measured: dict[str, Any], expected: dict[str, Any], converged: bool
) -> dict[str, bool]:
    """solver_sanity's six checks of the measured numbers against the expected, at the
    tolerances of :data:`SOLVER_TOLERANCE`."""
    got, want = measured["bulk_masses_times_psi_p"], expected["bulk_masses_times_psi_p"]
    return {
        "masses": len(got) == 3
        and all(abs(m - e) <= 1e-3 * e for m, e in zip(got, want, strict=True)),
        "total_mass": abs(measured["total_mass"] - 1.0) < 1e-6,
        "herglotz": measured["min_imag_q_over_abs_q"] >= -HERGLOTZ_RTOL and converged,
        "q_minus_one_over_z": measured["far_field_error"] < 1e-3,
        "delta_residue": abs(measured["delta_residue"] - expected["delta_residue"]) < 1e-6,
        "per_point_lm": measured["lm_max_relative_difference"] < 1e-4,
    }


@claim(
    "diffusion.solver_sanity",
    paper="diffusion",
    statement="The grid solver of Theorem 3.1 returns a Herglotz Stieltjes transform (Im q ≥ 0, "
    "q ~ −1/z), bulk masses 1/ψ_p (low bulk), (ψ_n − 1)/ψ_p (ρ1) and 1/ψ_p (ρ2) beside the "
    "analytic delta, and agrees with the reference-style per-λ Levenberg–Marquardt continuation.",
    source="Bonnaire et al. (2025, arXiv 2505.17638) Theorem 3.1 and its regimes; bulk masses "
    "from the finite-ψ structure computed here (docs/diffusion.md#the-spectrum-of-u-theorem-31)",
    rule="PASS when all six solver checks hold (bulk masses rel. 1e-3, total mass 1e-6, "
    "Im q ≥ −1e-9·|q| with every point converged, |1 + zq| < 1e-3 far out, delta residue 1e-6, "
    "|Δρ| < 1e-4·max(1, ρ) against the per-λ LM); FAIL when any one misses. No INCONCLUSIVE "
    "(deterministic solver).",
    stochastic=False,
    paper_plan=SOLVER_PAPER_PLAN,
    reproduces_to=1e-12,  # numpy's SIMD loops round per CPU model
)
def solver_sanity(
    ctx: Context, *, spectrum_fn: Callable = rmt.rf_spectrum, stieltjes: Callable = rmt.rf_stieltjes
) -> CheckResult:
    """ψ_p = 4096, ψ_n = 16, Σ = I, t = 0.01: masses to relative 1e-3, total mass 1 to 1e-6,
    Im q ≥ −1e-9·|q| on the whole grid, |1 + z q(z)| < 1e-3 at |z| = 1e3 · λ_max, the delta's residue −ζ q(ζ) at
    ζ = 10⁻⁹ s_t² i equal to 1 − (1+ψ_n)/ψ_p to 1e-6; then ψ_p = 8, ψ_n = 2, Σ = {0.5, 1.5}:
    |Δρ| < 1e-4·max(1, ρ) between our Newton and the per-λ LM on a grid of λ (same ε = 1e-9)."""
    psi_p, psi_n, t = 4096.0, 16.0, 0.01
    spec = spectrum_fn(psi_p=psi_p, psi_n=psi_n, t=t)
    sane = rmt.stieltjes_sanity(spec, stieltjes, psi_p=psi_p, psi_n=psi_n, t=t)
    small = {"psi_p": 8.0, "psi_n": 2.0, "t": t, "spectrum": rmt.DataSpectrum.of([0.5, 1.5])}
    lm = rmt.per_point_comparison(spectrum_fn, stieltjes, ctx.pick(quick=24, full=120), **small)
    masses = _bulk_masses_in_units(spec, psi_p)
    measured = {
        "bulk_masses_times_psi_p": masses,
        "total_mass": spec.total_mass,
        "min_imag_q_over_abs_q": sane.min_imag_q_over_abs_q,
        "far_field_error": sane.far_field_error,
        "delta_residue": sane.delta_residue,
        "lm_max_relative_difference": lm.max_relative_difference,
    }
    expected = {
        "bulk_masses_times_psi_p": [1.0, psi_n - 1.0, 1.0],
        "total_mass": 1.0,
        "delta_residue": 1.0 - (1.0 + psi_n) / psi_p,
    }
    checks = _solver_checks(measured, expected, sane.converged)
    fig = solver_sanity_figure(spec, masses, lm, psi_p=psi_p, psi_n=psi_n, t=t)
    return CheckResult(
        verdict=Verdict.of(all(checks.values())),
        summary=f"masses {', '.join(f'{m:.4f}' for m in masses)} (units 1/ψ_p; expected 1, "
        f"{psi_n - 1:g}, 1); min Im q/|q| = {sane.min_imag_q_over_abs_q:.1e}; |1 + zq| = "
        f"{sane.far_field_error:.1e}; LM agreement {lm.max_relative_difference:.1e}"
        + _failed(checks),
        measured={**measured, "checks": checks},
        expected=expected,
        tolerance=SOLVER_TOLERANCE,
        figures=ctx.save_figure(fig),
    )


#: ``--scale paper``: the d of the authors' spectrum script plot_spectrum_U.py (p = ψ_p d, n = ψ_n
#: d), whose Fig. 4 case ψ_p = 64, ψ_n = 8 has p = 128,000, n = 16,000.
PAPER_D = 2000
#: Features per block when a paper-scale GE Gram matrix is accumulated (memory O(block·(n+d))).
PAPER_ROW_BLOCK = 4000
GE_KS_TOLERANCE = 0.03  # KS < 0.03 at d = 100 (a pilot run gave 0.0099; KS ≈ 3/k for k eigenvalues)
CUT_ABOVE_FLOOR = 1e-3  # eigenvalues above s_t² + 1e-3 enter the KS (the delta at s_t² is cut)


@claim(
    "diffusion.spectrum_matches_theory",
    # its draws are sims.rmt.ge_spectrum_task; streamed at paper scale, they compute on numpy only
    backends=("numpy", "cupy"),
    paper="diffusion",
    statement="The eigenvalues of a sampled Gaussian-equivalent U follow the deterministic "
    "equivalent (Fig. 4): small KS distance, and the four eigenvalue groups (delta at s_t², "
    "low bulk, ρ1, ρ2) hold exactly p−n−d, d, n−d and d eigenvalues.",
    source="Bonnaire et al. (2025, arXiv 2505.17638) Fig. 4, Theorem 3.1, Lemma C.1; the four "
    "group counts computed here (docs/diffusion.md#the-spectrum-of-u-theorem-31)",
    rule="PASS when the KS distance of the sampled GE eigenvalues above s_t² + 1e-3 to the "
    "theory CDF is < 0.03 and the four group counts equal the theory's exactly; FAIL when "
    "KS ≥ 0.03 or any count differs. No INCONCLUSIVE.",
    stochastic=True,
    statistic="ks",
    exact_over_instances=True,
    paper_plan=GE_FIG4_PAPER_PLAN,
    reproduces_to=1e-12,  # numpy's SIMD loops round per CPU model
)
def spectrum_matches_theory(
    ctx: Context, *, spectrum_fn: Callable = rmt.rf_spectrum, task: Callable = ge_spectrum_task
) -> CheckResult:
    """KS between GE eigenvalues above s_t² + 1e-3 and the theory CDF conditioned on the same
    cut (ψ_p = 8, ψ_n = 2, Σ = {0.5, 1.5}, t = 0.01, d = 100 quick / 200 full) below 0.03; at
    ψ_p = 64, ψ_n = 8, d = 50 the counts per group equal the theory masses times p exactly. At
    ``--scale paper`` both draws are at the reference script's d = 2000 (:data:`PAPER_D`; the
    counts case is then Fig. 4's own p = 128,000, n = 16,000), their Gram matrices accumulated
    :data:`PAPER_ROW_BLOCK` features at a time."""
    t, atoms = 0.01, [0.5, 1.5]
    d, counts_d = ctx.pick(quick=(100, 50), full=(200, 50), paper=(PAPER_D, PAPER_D))
    streamed = ctx.pick(quick={}, full={}, paper={"row_block": PAPER_ROW_BLOCK})
    base = {"psi_p": 8.0, "psi_n": 2.0, "t": t, "sigma_atoms": atoms}
    counts_case = {"psi_p": 64.0, "psi_n": 8.0, "t": t, "sigma_atoms": atoms, "d": counts_d}
    ks_run, count_run = ctx.sweep(
        task, [{**base, "d": d, **streamed}, {**counts_case, **streamed}], name="ge"
    )
    spectrum = rmt.DataSpectrum.of(atoms)
    theory = spectrum_fn(psi_p=8.0, psi_n=2.0, t=t, spectrum=spectrum)
    theory_counts = spectrum_fn(psi_p=64.0, psi_n=8.0, t=t, spectrum=spectrum)
    eigs = np.asarray(ks_run["result"]["eigenvalues"])
    ks = theory.ks_distance(eigs, above=theory.delta_location + CUT_ABOVE_FLOOR)
    sampled, p = np.asarray(count_run["result"]["eigenvalues"]), int(count_run["result"]["p"])
    groups = [int(count_run["result"]["floor_count"]), *group_counts(sampled, theory_counts)]
    expected_groups = expected_group_counts(theory_counts, p)
    fig = spectrum_figure(
        (theory, theory_counts), (ks_run, count_run), (d, counts_d), ks, (groups, expected_groups)
    )
    return CheckResult(
        verdict=Verdict.of(ks < GE_KS_TOLERANCE and groups == expected_groups),
        summary=f"KS = {ks:.4f} ({'<' if ks < GE_KS_TOLERANCE else '≥'} {GE_KS_TOLERANCE}) at "
        f"d = {d}; groups {groups} vs theory {expected_groups}",
        measured={"ks": ks, "d": d, "group_counts": groups},
        expected={"ks_below": GE_KS_TOLERANCE, "group_counts": expected_groups},
        tolerance=f"KS < {GE_KS_TOLERANCE} on eigenvalues above s_t² + {CUT_ABOVE_FLOOR:g}; "
        "group counts exactly equal",
        figures=ctx.save_figure(fig),
        arrays={"eigenvalues": eigs, "eigenvalues_counts_case": sampled},
    )


def _ks_over_tolerance(ks_values: list[float], d: int) -> dict[str, Any]:
    """nonlinear_matches_theory's measured KS distances and the worst of them over its tolerance
    0.6/√d: the Mehler U at d, and with three runs also the Mehler and Monte Carlo U at d = 100."""
    measured: dict[str, Any] = {"d": d, "ks_mehler": ks_values[0]}
    worst = ks_values[0] / (0.6 / math.sqrt(d))
    if len(ks_values) == 3:
        measured |= {"ks_mehler_d100": ks_values[1], "ks_monte_carlo_d100": ks_values[2]}
        worst = max(worst, ks_values[2] / (0.6 / math.sqrt(100)))
    measured["worst_ks_over_tolerance"] = worst
    return measured


@claim(
    "diffusion.nonlinear_matches_theory",
    backends=("numpy", "cupy"),  # its draws are sims.rmt.nonlinear_spectrum_task
    paper="diffusion",
    statement="The spectrum of the true nonlinear random-feature U (E_ξ exact, by Mehler's "
    "expansion) matches the Gaussian-equivalent deterministic equivalent up to the "
    "Gaussian-equivalence corrections, KS ≤ 0.6/√d.",
    source="Bonnaire et al. (2025, arXiv 2505.17638) Lemma C.1 (Gaussian equivalence); the true U "
    "by Mehler's expansion, computed here",
    rule="PASS when every KS distance (Mehler U at d; at full also Monte Carlo U at d = 100) is "
    "≤ 0.6/√d, i.e. worst KS/(0.6/√d) ≤ 1; FAIL when it is > 1. No INCONCLUSIVE.",
    stochastic=True,
    statistic="worst_ks_over_tolerance",
    exact_over_instances=True,
    paper_plan=NONLINEAR_PAPER_PLAN,
    reproduces_to=1e-12,  # numpy's SIMD loops round per CPU model
)
def nonlinear_matches_theory(
    ctx: Context,
    *,
    spectrum_fn: Callable = rmt.rf_spectrum,
    task: Callable = nonlinear_spectrum_task,
) -> CheckResult:
    """ψ_p = 8, ψ_n = 2, Σ = {0.5, 1.5}, t = 0.01, d = 100 quick / 160 full: KS on eigenvalues
    above s_t² + 1e-3 against the theory CDF on the same cut, below 0.6/√d. At full scale a
    Monte Carlo U (400 noise draws per sample, d = 100) is compared with the Mehler U of the same
    draw. At ``--scale paper`` the Mehler U is at the reference script's d = 2000 (:data:`PAPER_D`,
    p = 16,000, a dense eigvalsh); Fig. 4's ψ_p = 64 (p = 128,000) is out of its reach
    (O(p³), 2·10¹⁵ flops and 131 GB per copy of U)."""
    t, atoms = 0.01, [0.5, 1.5]
    d = ctx.pick(quick=100, full=160, paper=PAPER_D)
    base = {"psi_p": 8.0, "psi_n": 2.0, "t": t, "sigma_atoms": atoms}
    params = [{**base, "d": d}]
    if ctx.scale != "quick":
        params += [{**base, "d": 100}, {**base, "d": 100, "noise_draws": 400}]
    runs = ctx.sweep(task, params, name="nonlinear")
    theory = spectrum_fn(psi_p=8.0, psi_n=2.0, t=t, spectrum=rmt.DataSpectrum.of(atoms))
    cut = theory.delta_location + CUT_ABOVE_FLOOR
    ks_values = [theory.ks_distance(run["result"]["eigenvalues"], above=cut) for run in runs]
    measured, tolerance = _ks_over_tolerance(ks_values, d), 0.6 / math.sqrt(d)
    eigs = np.asarray(runs[0]["result"]["eigenvalues"])
    fig = nonlinear_figure(theory, eigs, int(runs[0]["result"]["p"]), d, ks_values[0])
    return CheckResult(
        verdict=Verdict.of(measured["worst_ks_over_tolerance"] <= 1.0),
        summary=f"KS = {ks_values[0]:.4f} ({'≤' if ks_values[0] <= tolerance else '>'} 0.6/√d = "
        f"{tolerance:.3f}) at d = {d}"
        + (f"; Monte Carlo U at d = 100: KS = {ks_values[2]:.4f}" if len(runs) == 3 else ""),
        measured=measured,
        expected={"ks_at_most": tolerance},
        tolerance="KS ≤ 0.6/√d on eigenvalues above s_t² + 1e-3 (Gaussian-equivalence corrections "
        "decay like ~0.5/√d)",
        figures=ctx.save_figure(fig),
        arrays={"eigenvalues": eigs},
    )


EDGE_EXPONENT_RANGE = (0.9, 1.2)  # ρ1's edges gave 1.10 and 0.92 in a pilot solve
MP_EDGE_RTOL = 0.01  # ρ1 edges vs s_t² + v_t²(1 ± √(ψ_p/ψ_n))² when ψ_p/ψ_n ≥ 64
RHO2_SCALE_RTOL = 0.02  # ρ2 edges / ψ_p across ψ_p ∈ {1024, 4096, 16384} at fixed ψ_n
TWO_BULKS_TOLERANCE = (
    f"exponents in {EDGE_EXPONENT_RANGE}; MP edges within {MP_EDGE_RTOL:.0%} where ψ_p/ψ_n ≥ 64; "
    f"ρ2/ψ_p within {RHO2_SCALE_RTOL:.0%} across ψ_p; distance to Ũ decreasing"
)


def _two_bulks_summary(b: rmt.TwoBulks) -> str:
    lo, hi = EDGE_EXPONENT_RANGE
    distance = b.rho2_distance_to_u_tilde
    return (
        f"exponents of ψ_p/λ_edge(ρ1): lower {b.rho1_fits[0].exponent:.2f}, upper "
        f"{b.rho1_fits[1].exponent:.2f} (in [{lo}, {hi}]); MP edges within "
        f"{b.mp_edge_max_relative_error:.2%}; ρ2/ψ_p spread {b.rho2_scale_spread:.2%} over ψ_p; "
        f"distance of ρ2 to Ũ {distance[0]:.0%} → {distance[-1]:.0%}"
    )


@claim(
    "diffusion.two_bulks_scaling",
    paper="diffusion",
    statement="For ψ_p ≫ ψ_n ≫ 1 the spectrum splits into ρ1, a Marchenko–Pastur law in ψ_p/ψ_n "
    "whose scale ψ_p/λ sets τ_mem ∝ ψ_n, and ρ2 at O(ψ_p), whose n → ∞ limit is the spectrum "
    "of Ũ and does not depend on n (it sets τ_gen).",
    source="Bonnaire et al. (2025, arXiv 2505.17638) Theorem 3.1 and its regime ψ_p ≫ ψ_n ≫ 1 "
    "(docs/diffusion.md#the-spectrum-of-u-theorem-31)",
    rule="PASS when both ρ1-edge exponents lie in [0.9, 1.2], the ρ1 edges are within 1% of "
    "the Marchenko–Pastur edges where ψ_p/ψ_n ≥ 64, ρ2/ψ_p spreads ≤ 2% across ψ_p and the ρ2 "
    "edges approach Ũ's monotonically; FAIL when any of the four misses. No INCONCLUSIVE "
    "(deterministic solver).",
    stochastic=False,
    paper_plan=SOLVER_PAPER_PLAN,
    reproduces_to=1e-12,  # numpy's SIMD loops round per CPU model
)
def two_bulks_scaling(ctx: Context, *, spectrum_fn: Callable = rmt.rf_spectrum) -> CheckResult:
    """Σ = I, t = 0.01. (1) ψ_p = 4096, ψ_n ∈ {4, ..., 128}: the exponents of ψ_p/λ_edge(ρ1)
    (lower and upper edge) against ψ_n lie in [0.9, 1.2]; (2) where ψ_p/ψ_n ≥ 64 the ρ1 edges
    are within 1% of s_t² + v_t²(1 ± √(ψ_p/ψ_n))²; (3) at ψ_n = 16 the ρ2 edges divided by ψ_p
    agree within 2% across ψ_p ∈ {1024, 4096, 16384}; (4) the ρ2 edges approach those of Ũ
    monotonically as ψ_n grows."""
    psi_p, t = 4096.0, 0.01
    psi_ns = np.array([4.0, 8.0, 16.0, 32.0, 64.0, 128.0])
    b = rmt.two_bulks(spectrum_fn, psi_p=psi_p, psi_ns=psi_ns, psi_ps=(1024, 4096, 16384), t=t)
    lo_range, hi_range = EDGE_EXPONENT_RANGE
    checks = {
        "rho1_exponents": all(lo_range <= f.exponent <= hi_range for f in b.rho1_fits),
        "rho1_marchenko_pastur": b.mp_edge_max_relative_error <= MP_EDGE_RTOL,
        "rho2_scales_with_psi_p": b.rho2_scale_spread <= RHO2_SCALE_RTOL,
        "rho2_tends_to_u_tilde": bool(np.all(np.diff(b.rho2_distance_to_u_tilde) < 0)),
    }
    fig = two_bulks_figure(psi_ns, b, psi_p=psi_p, t=t)
    return CheckResult(
        verdict=Verdict.of(all(checks.values())),
        summary=_two_bulks_summary(b) + _failed(checks),
        measured={
            "psi_n": psi_ns,
            "exponent_lower_edge": b.rho1_fits[0].exponent,
            "exponent_upper_edge": b.rho1_fits[1].exponent,
            "rho1_edges": b.rho1_edges,
            "rho2_edges": b.rho2_edges,
            "mp_edge_max_relative_error": b.mp_edge_max_relative_error,
            "rho2_edges_over_psi_p": b.rho2_edges_over_psi_p,
            "rho2_distance_to_u_tilde": b.rho2_distance_to_u_tilde,
            "checks": checks,
        },
        expected={
            "exponent_range": EDGE_EXPONENT_RANGE,
            "rho1_edges_asymptotic": b.mp_edges,
            "u_tilde_edges": b.u_tilde_edges,
        },
        tolerance=TWO_BULKS_TOLERANCE,
        figures=ctx.save_figure(fig),
    )


# ============================================================ training dynamics
DYNAMICS_T = 0.01  # diffusion time of the paper's Fig. 5


# -------------------------------------------------------------- tau_gen_constant_tau_mem_linear
TAU_GEN_TOL = 0.1  # |exponent of τ_gen − theory| (a pilot measured 0.04)
TAU_MEM_TOL = 0.2  # exponent of τ_mem within theory ± 0.2, i.e. [0.8, 1.2] (pilots: 0.85, 0.99)
THEORY_TAU_GEN, THEORY_TAU_MEM = 0.0, 1.0  # §3: τ_gen = O(1/Δ_t) flat in ψ_n, τ_mem ∝ ψ_n
#: Units (independent seeds of the whole ψ_n sweep) per root seed: quick 4 × ~1.6 CPU-s,
#: full 5 × ~9 CPU-s.
TAU_UNITS = {"quick": 4, "full": 5}


def tau_rule(
    tau_gen_exponent: float = THEORY_TAU_GEN, tau_mem_exponent: float = THEORY_TAU_MEM
) -> Rule:
    """The three-way rule of the claim over units, for the given theory exponents: τ_gen's
    exponent within ±:data:`TAU_GEN_TOL` of its theory, τ_mem's within ±:data:`TAU_MEM_TOL`
    (both TOST, no indifference zone: the bands fixed before the first run are the claim's
    tolerances), and the
    minimal score error's exponent below 0."""
    return Rule(
        unit="one independent draw of the whole ψ_n sweep (W, X, Ω afresh at every ψ_n), its "
        "exponents fitted by least squares of log τ on log ψ_n over that draw's points",
        parts=(
            *within(
                "tau_gen_exponent",
                "fitted exponent of τ_gen in ψ_n",
                tau_gen_exponent,
                TAU_GEN_TOL,
            ),
            *within(
                "tau_mem_exponent",
                "fitted exponent of τ_mem in ψ_n (the draw's ψ_n where the score error doubles "
                "after its minimum)",
                tau_mem_exponent,
                TAU_MEM_TOL,
            ),
            Part(
                "score_min_exponent",
                "fitted exponent of the minimal score error in ψ_n",
                "less",
                0.0,
                0.0,
            ),
        ),
    )


TAU_RULE = tau_rule()


def _band(decision: Decision, statistic: str) -> tuple[float, float]:
    """The pass margins (low, high) of ``statistic``'s equivalence pair in the rule ``decision``
    was made by: the theory's band."""
    margins = {
        p.part.direction: p.part.pass_margin
        for p in decision.parts
        if p.part.statistic == statistic
    }
    return margins["greater"], margins["less"]


def _tau_summary(gen: float, mem: float, doubled: np.ndarray) -> str:
    summary = (
        f"exponents per unit of τ_gen (theory {gen:g} ± {TAU_GEN_TOL:g}), τ_mem "
        f"(theory {mem:g} ± {TAU_MEM_TOL:g}) and the minimal score error (< 0)"
    )
    if doubled.sum() < doubled.size:
        summary += (
            f"; the score error doubles after its minimum in {doubled.sum()} of {doubled.size} runs"
        )
    return summary


@claim(
    "diffusion.tau_gen_constant_tau_mem_linear",
    paper="diffusion",
    statement="Under gradient flow of the random-feature score model, the score error reaches "
    "its generalisation regime at τ_gen independent of n, and memorisation sets in at "
    "τ_mem ∝ n; the minimal score error falls with n.",
    source="Bonnaire et al. (2025, arXiv 2505.17638) §3 and Fig. 5: τ_gen = O(1/Δ_t), τ_mem ~ "
    "ψ_n/Δ_t",
    decision=TAU_RULE,
    paper_effects=(
        registry.PaperEffect(
            "tau_mem_exponent",
            1.0,
            "τ_mem ∝ n (τ_mem ~ ψ_n/Δ_t for the random-feature model; the CelebA memorisation "
            "curves collapse against τ/n)",
            "Bonnaire et al. 2025, §3, Figs. 2 and 5",
        ),
    ),
    stochastic=True,
    statistic="tau_mem_exponent",
    history=[
        HistoryEntry(
            date="2026-12-01",
            change="τ_mem FAILs when its point estimate lies outside [0.8, 1.2] and the CI "
            "excludes 1 (was: when the whole CI lies outside [0.8, 1.2]); τ_gen likewise gets an "
            "INCONCLUSIVE band (was: FAIL as soon as |ŝ_gen| ≥ 0.1); the min-error exponent "
            "FAILs only when its CI lies above 0 (was: whenever the CI reaches 0); the "
            "INCONCLUSIVE text is built from the numbers",
            reason="at quick the τ_mem CI is [0.54, 1.32], so the old FAIL (whole CI "
            "outside the window) was out of reach; the rule must be able to FAIL both ways",
            before="PASS at quick (τ_mem exponent 0.87 [0.54, 1.32]; τ_gen 0.037; min error "
            "−0.59) and at full (1.14 [0.93, 1.38]); unchanged under the new rule",
        ),
        HistoryEntry(
            date="2026-12-02",
            change="decided over units: a unit is one independent draw of the whole "
            "ψ_n sweep, its three exponents fitted per unit; Student-t TOST parts |ŝ_gen| < 0.1 "
            "and |ŝ_mem − 1| < 0.2 and a one-sided part ŝ_min < 0 (Bonferroni over 5 parts), "
            "pooled over root seeds; 4 units per root seed at quick (was 2 seeds pooled in one "
            "fit), 5 at full (was 3)",
            reason="the old rule (point estimate of one pooled fit in the band, bootstrap CI "
            "over the points of one root seed) flipped between root seeds: PASS 3, FAIL 1, "
            "INCONCLUSIVE 1 at quick",
            before="quick R=5: headline PASS, per root seed PASS 3, FAIL 1, INCONCLUSIVE 1 "
            "(τ_mem exponent 0.87, 0.34, 0.83, 1.05, 1.29); full R=3: PASS 3 (1.14, 1.09, 0.93)",
        ),
        HistoryEntry(
            date="2026-12-02",
            change="bounds over units widened for skewed unit values: c = t·(1 + 1.5·(2z² + 1)/(6z√n)) "
            "in place of Student's t, for unit values of skewness within ±1 whose tails are at "
            "least as heavy as a gamma's (paper_checks.decision); the stored units re-decided, "
            "nothing rerun",
            reason="Student's t let right-skewed units FAIL a 'greater' part (and left-skewed units PASS "
            "one) falsely at 0.042–0.058 instead of 0.025 at skewness 1, 3 to 30 units "
            "(docs/verdicts.md)",
            before="full R=3: PASS over 15 units (tau_mem_exponent 1.068, upper bound 1.172 < 1.2); "
            "widened 1.209: INCONCLUSIVE, about 17 units would decide it; quick unchanged "
            "(INCONCLUSIVE)",
        ),
        registry.study_entry(
            "2026-12-04",
            "full",
            2,
            (3, 6),
            power=(0.29, 0.91, 0.00),
            reason="study 1 (3 root seeds, one look) ended undecided with about 17 units "
            "wanted; its root seeds cannot be looked at again without spending α twice",
            before="full, study 1: INCONCLUSIVE over 15 units (tau_mem_exponent 1.068, upper "
            "bound 1.209 against 1.2; the other four parts PASS)",
        ),
    ],
    looks={"full": (3, 6)},
    studies={"full": 2},
    paper_plan=FLOW_PAPER_PLAN,
    reproduces_to=1e-12,  # numpy's SIMD loops round per CPU model
)
def tau_gen_constant_tau_mem_linear(
    ctx: Context, *, task: Callable = score_dynamics_task
) -> results.UnitsResult:
    """GE closed-form flow (:func:`sims.diffusion_rf.ge_flow`) at t = 0.01, Σ = I. τ_gen: the
    score error is halfway from E(0) to its minimum; τ_mem: first τ after the minimum with E = 2
    E_min. Per unit (one seed of the whole ψ_n sweep) the exponents of τ ≈ C·ψ_n^s
    (:func:`unit_exponents`), decided by :func:`tau_rule` with the theory exponents (0 and 1;
    another theory's exponents are another rule over the same units)."""
    d, psi_p, psi_ns = ctx.pick(quick=(10, 256, (4, 8, 16, 32)), full=(20, 512, (4, 8, 16, 32, 64)))
    n_seeds = ctx.pick(quick=TAU_UNITS["quick"], full=TAU_UNITS["full"])
    params = [{"d": d, "psi_p": psi_p, "psi_n": x, "t": DYNAMICS_T} for x in psi_ns]
    records = ctx.sweep(task, params, name="dynamics", n_seeds=n_seeds)
    sweep = TimescaleSweep.of(records)
    units = unit_exponents(sweep.psi, sweep.unit, sweep.tau_gen, sweep.tau_mem, sweep.score_min)
    fits = sweep.pooled_fits()  # pooled over all points: drawn in the figure, not decisive
    return results.UnitsResult(
        units=units,
        summary=_tau_summary(THEORY_TAU_GEN, THEORY_TAU_MEM, sweep.doubled),
        measured=sweep.measured(units, fits),
        expected={
            "exponent_tau_gen": THEORY_TAU_GEN,
            "exponent_tau_mem": THEORY_TAU_MEM,
            "exponent_score_min": "< 0 (our pilot −0.6 quick, −0.69 full)",
        },
        arrays=sweep.arrays,
        draw=lambda decision: _timescales_figure(decision, sweep, fits, units, (d, psi_p)),
    )


def _timescales_figure(
    decision: Decision, sweep: TimescaleSweep, fits: Any, units: Any, sizes: tuple[int, int]
) -> Any:
    """The claim's figure, with the theory exponents and τ_mem's band of the rule ``decision``
    was made by."""
    band = _band(decision, "tau_mem_exponent")
    theory = (sum(_band(decision, "tau_gen_exponent")) / 2, sum(band) / 2)
    return timescales_figure(sweep, fits, units, theory, band, (*sizes, DYNAMICS_T))


# ------------------------------------------------------------------------ memorization_threshold
#: Pilot gaps L_test − L_train at τ = ∞ (ψ_p = 16, d = 40, t = 0.01), computed before the claim
#: by an independent pilot solver. They are in the loss's own units (not Δ_t): our closed form
#: reproduces them to a few % at exactly these ψ_n, which is how the pilot's (unrecorded) grid was
#: inferred.
SPEC_GAPS = {2: 26.8, 4: 15.3, 8: 5.8, 12: 2.1, 16: 0.72, 24: 0.16, 32: 0.068, 64: 0.016}
THRESHOLD_PSI_N = (2, 4, 8, 12, 16, 24, 32, 48, 64)  # the pilot's grid plus 48 for the tail fit
DECAY_TOL = 0.8  # the tail must fall at least 0.8× as steeply (in log-log) as the decay exponent
THEORY_DECAY_EXPONENT = -1.0  # §3: beyond the threshold the gap decays like 1/ψ_n


THRESHOLD_UNITS = {"quick": 3, "full": 3, "paper": 3}  # draws of the whole ψ_n sweep per root seed


def threshold_rule(
    threshold_ratio: float = 2.0, decay_exponent: float = THEORY_DECAY_EXPONENT
) -> Rule:
    """The claim's rule over units (one draw of the whole ψ_n sweep), three one-sided parts with
    the statement's thresholds as both margins (the claim states no tolerance band)."""
    return Rule(
        unit="one independent draw of the whole ψ_n sweep (W, X, Ω afresh at every ψ_n), "
        "its gap L_test(∞) − L_train(∞) at every ψ_n",
        parts=(
            Part(
                "max_relative_step",
                "largest relative change (g_{k+1} − g_k)/|g_k| of the draw's gap between "
                "neighbouring ψ_n (< 0: the gap falls at every step)",
                "less",
                0.0,
                0.0,
            ),
            Part(
                "max_gap_over_delta_beyond_threshold",
                f"largest gap/Δ_t of the draw at ψ_n ≥ {threshold_ratio:g}ψ_p",
                "less",
                1.0,
                1.0,
            ),
            Part(
                "tail_slope",
                "log-log slope of the draw's gap over ψ_n ∈ [2ψ_p, 4ψ_p]",
                "less",
                DECAY_TOL * decay_exponent,
                DECAY_TOL * decay_exponent,
            ),
        ),
    )


def _threshold_summary(curve: GapCurve, psi_p: float) -> str:
    at = {float(x): float(g / curve.delta) for x, g in zip(curve.psi, curve.gap, strict=True)}
    return (
        f"gap/Δ_t = {at[2.0]:.0f} (ψ_n=2) → {at[16.0]:.1f} (ψ_n=ψ_p) → {at[32.0]:.2f} (2ψ_p) → "
        f"{at[64.0]:.2f} (4ψ_p) (mean over draws; crosses Δ_t at ψ_n ≈ "
        f"{curve.psi_n_where_gap_equals_delta / psi_p:.1f}ψ_p; matches our pilot's gaps within "
        f"{curve.pilot_max_relative_deviation:.0%})"
    )


@claim(
    "diffusion.memorization_threshold",
    paper="diffusion",
    statement="At τ = ∞ the random-feature model memorises below a threshold n* ≈ p: the "
    "train–test gap falls monotonically with n, below Δ_t by ψ_n ≈ 2ψ_p, then decays like 1/ψ_n.",
    source="Bonnaire et al. (2025, arXiv 2505.17638) §3 and Fig. 3: no memorisation at τ = ∞ "
    "beyond n* ≈ p in the random-features model",
    decision=threshold_rule(),
    stochastic=True,
    statistic="max_gap_over_delta_beyond_threshold",
    history=[
        HistoryEntry(
            date="2026-12-02",
            change="decided over units: a unit is one draw of the whole ψ_n sweep; "
            "Student-t bounds (Bonferroni over 3 parts) on the mean over units of the largest "
            "relative step of the gap (< 0), the largest gap/Δ_t at ψ_n ≥ 2ψ_p (< 1) and the "
            "tail slope (≤ −0.8), pooled over root seeds; 3 draws per root seed at quick (was "
            "2), 3 at full",
            reason="the old rule decided on the mean gap over the draws of one root seed, "
            "two-way (FAIL whenever not PASS), with no interval over draws",
            before="FAIL at quick (R=5: FAIL 5 of 5, max gap/Δ_t beyond 2ψ_p 3.45, 3.56, 3.58, "
            "3.51, 3.55) and at full (R=3: FAIL 3 of 3, 3.46, 3.52, 3.50)",
        )
    ],
    paper_plan=GAP_PAPER_PLAN,
    reproduces_to=1e-12,  # numpy's SIMD loops round per CPU model
)
def memorization_threshold(ctx: Context, *, threshold_ratio: float = 2.0) -> results.UnitsResult:
    """Gap L_test(∞) − L_train(∞) of the ridgeless minimiser B(∞) = −VᵀU⁻¹/√Δ (GE closed form, ψ_p =
    16, t = 0.01), per unit = one draw of the whole ψ_n sweep. Margins fixed from the statement
    before measuring, in the loss's units (:func:`threshold_rule`): (a) the gap falls at each step
    of ψ_n; (b) it is below Δ_t at every ψ_n ≥ threshold_ratio·ψ_p; (c) its log-log slope over ψ_n ∈
    [2ψ_p, 4ψ_p] is ≤ 0.8·decay_exponent (at least as steep as ψ_n^{decay_exponent}, within 20%):
    the registered rule's theory tail is ψ_n^−1, and another theory's tail is another rule
    (``threshold_rule(threshold_ratio, decay_exponent)``) over the same units. At
    ``--scale paper``: d = 2000 (:data:`PAPER_D`, p = 32,000, n up to 128,000), 3 draws as at full,
    each flow streamed in blocks of :data:`PAPER_ROW_BLOCK`
    (:func:`sims.diffusion_rf.ge_flow_streamed`).
    """
    d = ctx.pick(quick=40, full=80, paper=PAPER_D)
    n_seeds = ctx.pick(**THRESHOLD_UNITS)
    streamed = ctx.pick(quick={}, full={}, paper={"row_block": PAPER_ROW_BLOCK})
    psi_p, psi = 16, np.array(THRESHOLD_PSI_N, dtype=float)
    rows = [
        {"d": d, "psi_p": psi_p, "psi_n": x, "t": DYNAMICS_T, **streamed} for x in THRESHOLD_PSI_N
    ]
    records = ctx.sweep(infinite_time_gap_task, rows, name="gap", n_seeds=n_seeds)
    gaps, delta = gap_table(records, THRESHOLD_PSI_N, n_seeds)
    units = threshold_units(psi, gaps, delta, psi_p, threshold_ratio)
    curve = gap_curve(psi, gaps, delta, psi_p, threshold_ratio, SPEC_GAPS)
    return results.UnitsResult(
        units=units,
        summary=_threshold_summary(curve, psi_p),
        measured=curve.measured(units),
        expected={
            "delta_t": delta,
            "spec_gap": curve.pilot_gap,
            "threshold_psi_n": threshold_ratio * psi_p,
            "tail_slope_at_most": DECAY_TOL * THEORY_DECAY_EXPONENT,
        },
        arrays={"psi_n": psi, "gaps": gaps},
        draw=lambda decision: threshold_figure(
            gaps, curve, (psi_p, d, DYNAMICS_T), threshold_ratio, _decay_exponent(decision)
        ),
    )


def _decay_exponent(decision: Decision) -> float:
    """The theory tail exponent of the rule ``decision`` was made by (its tail part's margin is
    :data:`DECAY_TOL` times it)."""
    tail = next(p.part for p in decision.parts if p.part.statistic == "tail_slope")
    return tail.pass_margin / DECAY_TOL


# ---------------------------------------------------------------------------- gd_matches_flow
GD_REL_TOL = 0.05  # relative 5% on the loss change 1 − L at the plateaus
GD_WINDOW_LR = 1e-5  # lr_ref = 1e-5·d/Δ_t: the SGD noise floor is ~1e-3 of the dip
GD_REFERENCE_LR = 1e-2  # the authors' Training_random_features.py: lr_ref = 0.01·d/Δ_t
GD_LATE_TAU = 1e6


def paper_tau_per_step(lr_ref: float, d: int, p: int) -> float:
    """τ per step, τ = kη/d² with η = lr_ref·p (the reference script trains the readout without
    the 1/√p, so its lr acts on B = A/√p; paper τ = Training_time·p/d²,
    docs/diffusion.md#conventions-and-units)."""
    return lr_ref * p / d**2


#: The plateaus on which GD is compared with the flow: (name, run phase, which τ range).
GD_PLATEAUS = (
    ("window, small lr", "window", "window"),
    ("window, reference lr", "late", "window"),
    ("memorisation, reference lr", "late", "late"),
)


GD_UNITS = {"quick": 3, "full": 3}  # independent draws (W, X, GD noise) per root seed
GD_RULE = Rule(
    unit="one independent draw of the whole experiment (W, X and the GD noise afresh; the "
    "same draw for both learning rates), its worst plateau error over ψ_n, plateaus, train and "
    "test",
    parts=(
        Part(
            "max_relative_error",
            "worst relative error |mean(1 − L_GD) − mean(1 − L_flow)|/|mean(1 − L_flow)| of the "
            "draw over its plateaus",
            "less",
            GD_REL_TOL,
            GD_REL_TOL,
        ),
    ),
)

GD_PHASES = {  # the two GD runs per ψ_n: sweep parameters by phase
    "window": {"lr_factor": GD_WINDOW_LR, "tau_end": 3.0, "tau_end_is_test_min_multiple": True},
    "late": {"lr_factor": GD_REFERENCE_LR, "tau_end": GD_LATE_TAU},
}


def _gd_summary(plateaus: GDPlateaus, psi_ns: tuple[float, ...]) -> str:
    errors = plateaus.first_draw
    per_plateau = "; ".join(
        f"ψ_n={x:g} {name}: train {errors[(x, name, 'train')]:.1%}, "
        f"test {errors[(x, name, 'test')]:.1%}"
        for x in psi_ns
        for name, _, _ in GD_PLATEAUS
    )
    summary = (
        f"worst relative error of 1 − L at the plateaus per draw "
        f"{', '.join(f'{w:.1%}' for w in plateaus.worst_per_unit)} against {GD_REL_TOL:.0%}; "
        f"first draw: {per_plateau}"
    )
    lift = plateaus.reference_lift
    if lift:
        summary += (
            f"; at the reference lr the SGD noise lifts the test loss in the generalisation "
            f"window by {min(lift):.1f}–{max(lift):.1f} Δ_t above the flow"
        )
    return summary


@claim(
    "diffusion.gd_matches_flow",
    paper="diffusion",
    statement="Discrete gradient descent of the tanh random-feature score model with fresh noise "
    "at every step follows the closed-form gradient flow "
    "B(τ) = −Vᵀ U⁻¹(I − e^{−2Δ_t U τ/ψ_p})/√Δ_t once steps are converted to τ = kη/d².",
    source="Bonnaire et al. (2025, arXiv 2505.17638) §3 (gradient flow) and the authors' "
    "Training_random_features.py (docs/diffusion.md#conventions-and-units)",
    rule="Plateaus: train and test, every ψ_n (ψ_n = 2 at quick; 2, 4, 8 at full), the "
    "generalisation window (τ within ×1.5 of the flow's test-loss minimum) at lr_ref = "
    "1e-5·d/Δ_t, and at the reference script's lr_ref = 0.01·d/Δ_t both the generalisation "
    "window and the memorisation phase τ ∈ [τ_end/2, τ_end], τ_end = 1e6.",
    decision=GD_RULE,
    stochastic=True,
    statistic="max_relative_error",
    history=[
        HistoryEntry(
            date="2026-12-01",
            change="decided at the reference script's lr_ref = 0.01·d/Δ_t as well (generalisation "
            "window and memorisation phase), at quick too (quick: ψ_n = 2 at both rates); "
            "before, quick decided on the generalisation window at lr_ref = 1e-5·d/Δ_t only and "
            "the reference rate's window was reported, not decided",
            reason="at 1000× below the reference rate GD traces the flow by "
            "construction; the claim is about the reference script's GD",
            before="PASS at quick (max relative error 0.3% ≤ 5%, small-lr window only) and at "
            "full (≤ 2.9%; the reference lr's window test loss 0.7–2.6 Δ_t above the flow, "
            "reported only)",
        ),
        HistoryEntry(
            date="2026-12-02",
            change="decided over units: a unit is one independent draw of the whole "
            "experiment, its worst plateau error; Student-t bounds on the mean over units "
            "against 5% (PASS when the upper bound is below, FAIL when the lower bound is "
            "above), pooled over root seeds; 3 draws per root seed at quick and full (was 1)",
            reason="the old rule was two-way on the worst error of one draw per root seed",
            before="FAIL at quick (R=5: FAIL 5 of 5, worst error 315%, 271%, 322%, 296%, 306%) "
            "and at full (R=3: FAIL 3 of 3, 315%, 271%, 322%)",
        ),
    ],
    # reproduces_to not pinned: its quick check costs ~11 CPU-s
    paper_plan=GD_PAPER_PLAN,
)
def gd_matches_flow(
    ctx: Context, *, tau_per_step: Callable[[float, int, int], float] = paper_tau_per_step
) -> results.UnitsResult:
    """d = 10, ψ_p = 32, t = 0.01. The closed form uses the true (ξ-exact, Mehler) U, V of the
    draw and its population Ũ, Ṽ; GD iterates are scored with the same exact losses. Two runs per
    ψ_n: GD with lr_ref = 1e-5·d/Δ_t up to 3× the flow's test-loss minimum, and GD with the
    reference lr_ref = 0.01·d/Δ_t up to τ_end = 1e6. Three plateaus (:data:`GD_PLATEAUS`): the
    generalisation window (τ within ×1.5 of the flow's test-loss minimum τ*) of each run, and the
    memorisation phase τ ∈ [τ_end/2, τ_end] of the reference run. On each, the relative error
    |mean(1 − L_GD) − mean(1 − L_flow)|/|mean(1 − L_flow)|; per unit (one draw, both rates)
    the worst of them, decided by :data:`GD_RULE` against 5%."""
    psi_ns = ctx.pick(quick=(2,), full=(2, 4, 8))
    n_seeds = ctx.pick(**GD_UNITS)
    params = [
        {"d": 10, "psi_p": 32, "psi_n": x, "t": DYNAMICS_T, "checkpoints": 60, **GD_PHASES[ph]}
        for x in psi_ns
        for ph in ("window", "late")
    ]
    records = ctx.sweep(gd_task, params, name="gd", n_seeds=n_seeds, paired_seeds=True)
    plateaus = gd_plateaus(records, tau_per_step, window_lr=GD_WINDOW_LR, plateaus=GD_PLATEAUS)
    return results.UnitsResult(
        units={"max_relative_error": plateaus.worst_per_unit},
        summary=_gd_summary(plateaus, psi_ns),
        measured={
            "plateau_relative_error": plateaus.rows,
            "max_relative_error": float(np.mean(plateaus.worst_per_unit)),
            "max_relative_error_per_unit": plateaus.worst_per_unit,
            "reference_lr_window_test_lift_over_delta": plateaus.reference_lift,
        },
        expected={"plateau_relative_error_at_most": GD_REL_TOL},
        draw=lambda _: gd_flow_figure(psi_ns, plateaus.traces),
    )
