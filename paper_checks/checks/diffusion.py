"""Claims of "Why Diffusion Models Don't Memorize" (Bonnaire, Urfin, Biroli, Mézard, NeurIPS 2025,
arXiv 2505.17638): the spectrum of the random-feature matrix U and the two training timescales it
sets. The model, Theorem 3.1, Lemma C.1 and the conventions are written out in
docs/diffusion.md#the-papers-model-and-what-the-checks-use.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paper_checks.claims import HistoryEntry, claim
from paper_checks.context import Context
from paper_checks.decision import Part, Rule, within
from paper_checks.plotting import THEORY, new_figure, plot_spectrum_panels
from paper_checks.results import CheckResult, Verdict
from sims.diffusion_rf import gd_task, infinite_time_gap_task, score_dynamics_task
from sims.rmt import ge_spectrum_task, nonlinear_spectrum_task
from theory import rmt
from theory.fits import fit_power_law

# ============================================================ spectrum of U
# The reference table, computed here by Gauss–Hermite quadrature before the claim was written (tanh,
# σ_x = 1; docs/diffusion.md#gaussian-equivalence-and-its-constants): (a_t, b_t, v_t², s_t²).
SPEC_CONSTANTS = {
    0.01: (0.60571, 0.08523, 0.025542, 0.0018735),
    0.1: (0.60571, 0.2579, 0.01384, 0.01357),
    1.0: (0.60571, 0.5632, 5e-5, 0.02736),
}
CONSTANT_NAMES = ("a_t", "b_t", "v_t²", "s_t²")


def _table_tolerance(value: float) -> float:
    """Half a unit in the last printed digit of a table entry (the table is rounded)."""
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0)) * (1 + 1e-9)


def _direct_integrals(k: rmt.RFConstants) -> tuple[float, float]:
    """b_t = E[v σ(cu + √Δ v)] by 2-D quadrature and v_t² = E[σ(cu + √Δ v) σ(cu + √Δ w)] − a_t²c²
    by 3-D quadrature (tanh), on 128 nodes against the 96 of :func:`theory.rmt.rf_constants`
    and without its conditional-mean shortcut."""
    c, noise = k.decay * math.sqrt(k.sigma_x2), math.sqrt(k.delta)
    b = rmt.gaussian_expectation(lambda u, v: v * np.tanh(c * u + noise * v), dims=2, nodes=128)
    both = rmt.gaussian_expectation(
        lambda u, v, w: np.tanh(c * u + noise * v) * np.tanh(c * u + noise * w), dims=3, nodes=128
    )
    return b, both - (k.a * c) ** 2


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
)
def constants(ctx: Context, *, rf_constants: Callable = rmt.rf_constants) -> CheckResult:
    """Each constant against the table within half a unit of its last printed digit; b_t against
    the direct E[v σ(h)] and v_t² against the direct E[σ(cu+√Δv)σ(cu+√Δw)] − a²c² (tensor
    quadrature, independent of the code path that computes them) to 1e-10."""
    rows, worst = [], 0.0
    identity_error = 0.0
    for t, table in SPEC_CONSTANTS.items():
        k = rf_constants(t)
        ours = (k.a, k.b, k.v2, k.s2)
        ok = [abs(o - e) <= _table_tolerance(e) for o, e in zip(ours, table, strict=True)]
        worst = max(
            worst, *(abs(o - e) / _table_tolerance(e) for o, e in zip(ours, table, strict=True))
        )
        b_direct, v2_direct = _direct_integrals(k)
        identity_error = max(identity_error, abs(k.b - b_direct), abs(k.v2 - v2_direct))
        rows.append({"t": t, "ours": ours, "table": table, "within_rounding": ok})
    table_ok = all(all(r["within_rounding"]) for r in rows)
    identities_ok = identity_error < 1e-10

    ts = np.geomspace(1e-3, 3.0, 60)
    curves = np.array([[getattr(rf_constants(t), f) for f in ("a", "b", "v2", "s2")] for t in ts])
    fig, ax = new_figure()
    for j, name in enumerate(CONSTANT_NAMES):
        ax.plot(ts, curves[:, j], "-", color=f"C{j}", label=f"{name} (quadrature)")
        ax.plot(list(SPEC_CONSTANTS), [r["table"][j] for r in rows], "o", mfc="none", color=f"C{j}")
    ax.plot([], [], "o", mfc="none", color=THEORY, label="reference table (ours)")
    ax.set(xscale="log", yscale="log", xlabel="diffusion time t", ylabel="constant (tanh, σ_x = 1)")
    ax.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(table_ok and identities_ok),
        summary=f"{sum(sum(r['within_rounding']) for r in rows)} of 12 table entries within "
        f"rounding (worst {worst:.2f} of a half-unit); "
        f"direct integrals agree to {identity_error:.1e}",
        measured={
            "t": list(SPEC_CONSTANTS),
            "a_b_v2_s2": [r["ours"] for r in rows],
            "worst_fraction_of_rounding": worst,
            "identity_error": identity_error,
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
    masses = _bulk_masses_in_units(spec, psi_p)
    expected_masses = [1.0, psi_n - 1.0, 1.0]
    masses_ok = len(masses) == 3 and all(
        abs(m - e) <= 1e-3 * e for m, e in zip(masses, expected_masses, strict=True)
    )
    q_grid, _, converged = stieltjes(spec.lam, psi_p=psi_p, psi_n=psi_n, t=t)
    min_im = float(np.min(q_grid.imag / np.abs(q_grid)))
    far = 1e3 * spec.lam[-1] * np.exp(1j * np.linspace(0.05, np.pi - 0.05, 9))
    q_far, _, _ = stieltjes(far.real, psi_p=psi_p, psi_n=psi_n, t=t, eta=far.imag)
    far_error = float(np.max(np.abs(1 + far * q_far)))
    s2 = spec.delta_location
    zeta = 1e-9 * s2 * 1j
    q0, _, _ = stieltjes(np.array([s2]), psi_p=psi_p, psi_n=psi_n, t=t, eta=np.array([zeta.imag]))
    residue = float((-zeta * q0[0]).real)
    delta_expected = 1.0 - (1.0 + psi_n) / psi_p

    n_ref = ctx.pick(quick=24, full=120)
    kw = {"psi_p": 8.0, "psi_n": 2.0, "t": t, "spectrum": rmt.DataSpectrum.of([0.5, 1.5])}
    small = spectrum_fn(**kw)
    lam_ref = np.concatenate(
        [np.linspace(b.lower, b.upper, n_ref // len(small.bulks) + 2)[1:-1] for b in small.bulks]
    )
    rho_ref = rmt.rf_density_per_point(lam_ref, **kw)
    q_ours, _, _ = stieltjes(lam_ref, eta=1e-9, **kw)
    rho_ours = q_ours.imag / np.pi
    agreement = float(np.max(np.abs(rho_ours - rho_ref) / np.maximum(1.0, rho_ref)))

    checks = {
        "masses": masses_ok,
        "total_mass": abs(spec.total_mass - 1.0) < 1e-6,
        "herglotz": min_im >= -HERGLOTZ_RTOL and bool(np.all(converged)),
        "q_minus_one_over_z": far_error < 1e-3,
        "delta_residue": abs(residue - delta_expected) < 1e-6,
        "per_point_lm": agreement < 1e-4,
    }
    fig, (ax, ax_ref) = new_figure(ncols=2)
    x = spec.lam - s2
    ax.plot(x, spec.lam * spec.density, color=THEORY, lw=1, label="λρ(λ), grid Newton")
    for b, m in zip(spec.bulks, masses, strict=True):
        ax.axvspan(b.lower - s2, b.upper - s2, alpha=0.15, label=f"bulk, mass {m:.4f}/ψ_p")
    ax.set(xscale="log", yscale="log", xlabel="λ − s_t²", ylabel="λ ρ(λ)")
    ax.set_ylim(1e-8, None)
    ax.set_title(
        f"ψ_p = {psi_p:g}, ψ_n = {psi_n:g}, t = {t:g}; delta {spec.delta_mass:.5f} at s_t²"
    )
    ax.legend(fontsize="x-small")
    ax_ref.plot(small.lam, small.density, color=THEORY, lw=1, label="grid Newton (theory)")
    ax_ref.plot(lam_ref, rho_ref, "o", mfc="none", ms=4, label="per-λ LM, 113 stages")
    ax_ref.set(xscale="log", yscale="log", xlabel="λ", ylabel="ρ(λ)")
    ax_ref.set_title("ψ_p = 8, ψ_n = 2, Σ = {0.5, 1.5}")
    ax_ref.legend(fontsize="small")
    failed = [k for k, ok in checks.items() if not ok]
    return CheckResult(
        verdict=Verdict.of(not failed),
        summary=f"masses {', '.join(f'{m:.4f}' for m in masses)} (units 1/ψ_p; expected 1, "
        f"{psi_n - 1:g}, 1); min Im q/|q| = {min_im:.1e}; |1 + zq| = {far_error:.1e}; "
        f"LM agreement {agreement:.1e}" + (f"; failed: {', '.join(failed)}" if failed else ""),
        measured={
            "bulk_masses_times_psi_p": masses,
            "total_mass": spec.total_mass,
            "min_imag_q_over_abs_q": min_im,
            "far_field_error": far_error,
            "delta_residue": residue,
            "lm_max_relative_difference": agreement,
            "checks": checks,
        },
        expected={
            "bulk_masses_times_psi_p": expected_masses,
            "total_mass": 1.0,
            "delta_residue": delta_expected,
        },
        tolerance="masses rel. 1e-3; total mass 1e-6; Im q ≥ −1e-9·|q| (rounding at edges); |1 + zq| < 1e-3 at 1e3·λ_max; "
        "residue 1e-6; |Δρ| < 1e-4·max(1, ρ) against the per-λ LM",
        figures=ctx.save_figure(fig),
    )


def _group_counts(eigs: NDArray, spec: rmt.Spectrum) -> list[int]:
    """How many eigenvalues fall in each bulk, the boundaries taken halfway across each gap."""
    gaps = [(a.upper + b.lower) / 2 for a, b in itertools.pairwise(spec.bulks)]
    cuts = [-np.inf, *gaps, np.inf]
    return [int(np.sum((eigs > lo) & (eigs <= hi))) for lo, hi in itertools.pairwise(cuts)]


#: ``--scale paper``: the d of the authors' spectrum script plot_spectrum_U.py (p = ψ_p d, n = ψ_n
#: d), whose Fig. 4 case ψ_p = 64, ψ_n = 8 has p = 128,000, n = 16,000.
PAPER_D = 2000
#: Features per block when a paper-scale GE Gram matrix is accumulated (memory O(block·(n+d))).
PAPER_ROW_BLOCK = 4000
GE_KS_TOLERANCE = 0.03  # KS < 0.03 at d = 100 (a pilot run gave 0.0099; KS ≈ 3/k for k eigenvalues)
CUT_ABOVE_FLOOR = 1e-3  # eigenvalues above s_t² + 1e-3 enter the KS (the delta at s_t² is cut)


@claim(
    "diffusion.spectrum_matches_theory",
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
    eigs = np.asarray(ks_run["result"]["eigenvalues"])
    cut = theory.delta_location + CUT_ABOVE_FLOOR
    ks = theory.ks_distance(eigs, above=cut)

    theory_counts = spectrum_fn(psi_p=64.0, psi_n=8.0, t=t, spectrum=spectrum)
    p = int(count_run["result"]["p"])
    sampled = np.asarray(count_run["result"]["eigenvalues"])
    floor = int(count_run["result"]["floor_count"])
    measured_groups = [floor, *_group_counts(sampled, theory_counts)]
    expected_groups = [
        round(theory_counts.delta_mass * p),
        *(round(b.mass * p) for b in theory_counts.bulks),
    ]
    counts_ok = measured_groups == expected_groups

    fig, axes = new_figure(ncols=2, nrows=2, figsize=(8.4, 6.4))
    all_eigs = np.concatenate(
        [eigs, np.full(int(ks_run["result"]["floor_count"]), theory.delta_location)]
    )
    plot_spectrum_panels(theory, all_eigs, int(ks_run["result"]["p"]), axes[0])
    axes[0][0].set_title(
        f"ψ_p = 8, ψ_n = 2, Σ = {{0.5, 1.5}}, d = {d}: KS = {ks:.4f}", fontsize="small"
    )
    plot_spectrum_panels(theory_counts, sampled, p, axes[1])
    axes[1][0].set_title(
        f"ψ_p = 64, ψ_n = 8, d = {counts_d}: groups {measured_groups} (theory {expected_groups})",
        fontsize="small",
    )
    return CheckResult(
        verdict=Verdict.of(ks < GE_KS_TOLERANCE and counts_ok),
        summary=f"KS = {ks:.4f} ({'<' if ks < GE_KS_TOLERANCE else '≥'} {GE_KS_TOLERANCE}) at "
        f"d = {d}; groups {measured_groups} "
        f"vs theory {expected_groups}",
        measured={"ks": ks, "d": d, "group_counts": measured_groups},
        expected={"ks_below": GE_KS_TOLERANCE, "group_counts": expected_groups},
        tolerance=f"KS < {GE_KS_TOLERANCE} on eigenvalues above s_t² + {CUT_ABOVE_FLOOR:g}; "
        "group counts exactly equal",
        figures=ctx.save_figure(fig),
        arrays={"eigenvalues": eigs, "eigenvalues_counts_case": sampled},
    )


@claim(
    "diffusion.nonlinear_matches_theory",
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
    tolerance = 0.6 / math.sqrt(d)
    worst = ks_values[0] / tolerance
    measured: dict[str, Any] = {"d": d, "ks_mehler": ks_values[0]}
    if len(runs) == 3:
        measured |= {"ks_mehler_d100": ks_values[1], "ks_monte_carlo_d100": ks_values[2]}
        worst = max(worst, ks_values[2] / (0.6 / math.sqrt(100)))
    measured["worst_ks_over_tolerance"] = worst
    ok = worst <= 1.0
    fig, axes = new_figure(ncols=2)
    eigs = np.asarray(runs[0]["result"]["eigenvalues"])
    plot_spectrum_panels(theory, eigs, int(runs[0]["result"]["p"]), axes)
    axes[0].set_title(
        f"true nonlinear U (Mehler), d = {d}: KS = {ks_values[0]:.3f}", fontsize="small"
    )
    return CheckResult(
        verdict=Verdict.of(ok),
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


def u_tilde_top_edges(psi_p: float, t: float) -> tuple[float, float]:
    """Edges of the top bulk of Ũ = a_t² W Σ_t Wᵀ/d + (v_t² + s_t²) I (Σ = I), the n → ∞ limit
    of ρ2: the nonzero eigenvalues of W Σ_t Wᵀ/d are ψ_p times a sample covariance with
    population Σ_t = e^{−2t}Σ + Δ_t I and ratio d/p = 1/ψ_p (Silverstein's equation)."""
    k = rmt.rf_constants(t)
    sigma_t = rmt.DataSpectrum.of([k.decay**2 + k.delta])
    bulk = rmt.sample_covariance_spectrum(ratio=1.0 / psi_p, spectrum=sigma_t).bulks[-1]
    shift = k.v2 + k.s2
    return k.a**2 * psi_p * bulk.lower + shift, k.a**2 * psi_p * bulk.upper + shift


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
)
def two_bulks_scaling(ctx: Context, *, spectrum_fn: Callable = rmt.rf_spectrum) -> CheckResult:
    """Σ = I, t = 0.01. (1) ψ_p = 4096, ψ_n ∈ {4, ..., 128}: the exponents of ψ_p/λ_edge(ρ1)
    (lower and upper edge) against ψ_n lie in [0.9, 1.2]; (2) where ψ_p/ψ_n ≥ 64 the ρ1 edges
    are within 1% of s_t² + v_t²(1 ± √(ψ_p/ψ_n))²; (3) at ψ_n = 16 the ρ2 edges divided by ψ_p
    agree within 2% across ψ_p ∈ {1024, 4096, 16384}; (4) the ρ2 edges approach those of Ũ
    monotonically as ψ_n grows."""
    psi_p, t = 4096.0, 0.01
    psi_ns = np.array([4.0, 8.0, 16.0, 32.0, 64.0, 128.0])
    consts = rmt.rf_constants(t)
    rows = []
    for psi_n in psi_ns:
        spec = spectrum_fn(psi_p=psi_p, psi_n=psi_n, t=t)
        masses = np.array([b.mass for b in spec.bulks])
        rho1 = spec.bulks[int(np.argmin(np.abs(masses - (psi_n - 1) / psi_p)))]
        rho2 = spec.bulks[-1]
        rows.append((rho1.lower, rho1.upper, rho2.lower, rho2.upper))
    rho1_lo, rho1_hi, rho2_lo, rho2_hi = np.array(rows).T
    fit_lo = fit_power_law(psi_ns, psi_p / rho1_lo, n_boot=0)
    fit_hi = fit_power_law(psi_ns, psi_p / rho1_hi, n_boot=0)
    ratio = psi_p / psi_ns
    mp_lo = consts.s2 + consts.v2 * (1 - np.sqrt(ratio)) ** 2
    mp_hi = consts.s2 + consts.v2 * (1 + np.sqrt(ratio)) ** 2
    asym = np.tile(ratio >= 64, 2)
    mp_error = float(
        np.max(np.abs(np.concatenate([rho1_lo / mp_lo - 1, rho1_hi / mp_hi - 1])[asym]))
    )
    psi_ps = np.array([1024.0, 4096.0, 16384.0])
    scaled = np.array(
        [
            [b.lower / pp, b.upper / pp]
            for pp in psi_ps
            for b in [spectrum_fn(psi_p=pp, psi_n=16.0, t=t).bulks[-1]]
        ]
    )
    scale_spread = float(np.max(np.ptp(scaled, axis=0) / scaled.min(axis=0)))
    limit = np.array(u_tilde_top_edges(psi_p, t))
    distance = np.max(np.abs(np.array([rho2_lo, rho2_hi]).T / limit - 1), axis=1)
    approaches = bool(np.all(np.diff(distance) < 0))
    lo_range, hi_range = EDGE_EXPONENT_RANGE
    checks = {
        "rho1_exponents": all(lo_range <= f.exponent <= hi_range for f in (fit_lo, fit_hi)),
        "rho1_marchenko_pastur": mp_error <= MP_EDGE_RTOL,
        "rho2_scales_with_psi_p": scale_spread <= RHO2_SCALE_RTOL,
        "rho2_tends_to_u_tilde": approaches,
    }

    fig, (ax, ax_fit) = new_figure(ncols=2)
    ax.fill_between(psi_ns, rho1_lo, rho1_hi, alpha=0.3, label="ρ1 support (solver)")
    ax.plot(psi_ns, mp_lo, "--", color=THEORY, lw=1, label="s² + v²(1 ± √(ψ_p/ψ_n))²")
    ax.plot(psi_ns, mp_hi, "--", color=THEORY, lw=1)
    ax.fill_between(psi_ns, rho2_lo, rho2_hi, alpha=0.3, color="C1", label="ρ2 support (solver)")
    ax.hlines(
        limit, psi_ns[0], psi_ns[-1], colors=THEORY, linestyles=":", lw=1, label="Ũ edges (n → ∞)"
    )
    ax.set(
        xscale="log", yscale="log", xlabel="ψ_n", ylabel="λ", title=f"ψ_p = {psi_p:g}, t = {t:g}"
    )
    ax.legend(fontsize="x-small")
    for values, fit, label in (
        (psi_p / rho1_lo, fit_lo, "lower"),
        (psi_p / rho1_hi, fit_hi, "upper"),
    ):
        ax_fit.plot(
            psi_ns, values, "o", mfc="none", label=f"ψ_p/λ_{label}(ρ1): slope {fit.exponent:.2f}"
        )
        ax_fit.plot(psi_ns, fit.prefactor * psi_ns**fit.exponent, "-", lw=0.8)
    ax_fit.plot(
        psi_ns, psi_ns * (psi_p / rho1_hi[0]) / psi_ns[0], ":", color=THEORY, label="theory slope 1"
    )
    ax_fit.set(xscale="log", yscale="log", xlabel="ψ_n", ylabel="ψ_p / λ  (∝ τ_mem)")
    ax_fit.legend(fontsize="small")
    failed = [k for k, ok in checks.items() if not ok]
    return CheckResult(
        verdict=Verdict.of(not failed),
        summary=f"exponents of ψ_p/λ_edge(ρ1): lower {fit_lo.exponent:.2f}, upper "
        f"{fit_hi.exponent:.2f} (in [{lo_range}, {hi_range}]); MP edges within {mp_error:.2%}; "
        f"ρ2/ψ_p spread {scale_spread:.2%} over ψ_p; distance of ρ2 to Ũ "
        f"{distance[0]:.0%} → {distance[-1]:.0%}"
        + (f"; failed: {', '.join(failed)}" if failed else ""),
        measured={
            "psi_n": psi_ns,
            "exponent_lower_edge": fit_lo.exponent,
            "exponent_upper_edge": fit_hi.exponent,
            "rho1_edges": np.array([rho1_lo, rho1_hi]).T,
            "rho2_edges": np.array([rho2_lo, rho2_hi]).T,
            "mp_edge_max_relative_error": mp_error,
            "rho2_edges_over_psi_p": scaled,
            "rho2_distance_to_u_tilde": distance,
            "checks": checks,
        },
        expected={
            "exponent_range": EDGE_EXPONENT_RANGE,
            "rho1_edges_asymptotic": np.array([mp_lo, mp_hi]).T,
            "u_tilde_edges": limit,
        },
        tolerance=f"exponents in {EDGE_EXPONENT_RANGE}; MP edges within {MP_EDGE_RTOL:.0%} where "
        f"ψ_p/ψ_n ≥ 64; ρ2/ψ_p within {RHO2_SCALE_RTOL:.0%} across ψ_p; distance to Ũ decreasing",
        figures=ctx.save_figure(fig),
    )


# ============================================================ training dynamics
DYNAMICS_T = 0.01  # diffusion time of the paper's Fig. 5


def _geometric_anchor(x: NDArray[np.float64], y: NDArray[np.float64], slope: float) -> Any:
    """The line y = C x^slope through the geometric means of the points (for theory slopes)."""
    x0, y0 = np.exp(np.mean(np.log(x))), np.exp(np.mean(np.log(y)))
    return lambda xs: y0 * (np.asarray(xs) / x0) ** slope


def _plain_log_ticks(*axes: Any) -> None:
    """Drop minor tick labels on log axes (dozens of mathtext labels per axis, slow to lay out)."""
    from matplotlib.ticker import NullFormatter

    for ax in axes:
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())


# -------------------------------------------------------------- tau_gen_constant_tau_mem_linear
TAU_GEN_TOL = 0.1  # |exponent of τ_gen − theory| (a pilot measured 0.04)
TAU_MEM_TOL = 0.2  # exponent of τ_mem within theory ± 0.2, i.e. [0.8, 1.2] (pilots: 0.85, 0.99)
#: Units (independent seeds of the whole ψ_n sweep) per root seed: quick 4 × ~1.6 CPU-s,
#: full 5 × ~9 CPU-s.
TAU_UNITS = {"quick": 4, "full": 5}


def tau_rule(tau_gen_exponent: float = 0.0, tau_mem_exponent: float = 1.0) -> Rule:
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


def unit_exponents(
    psi: NDArray[np.float64],
    unit: NDArray[np.int64],
    tau_gen: NDArray[np.float64],
    tau_mem: NDArray[np.float64],
    score_min: NDArray[np.float64],
) -> dict[str, list[float]]:
    """Per unit (seed index), the least-squares exponents of τ_gen, τ_mem and the minimal score
    error against ψ_n over that unit's sweep. A unit's τ_mem exponent needs ≥ 3 points with a
    finite τ_mem at ≥ 2 distinct ψ_n (else that unit has none)."""
    out: dict[str, list[float]] = {
        "tau_gen_exponent": [],
        "tau_mem_exponent": [],
        "score_min_exponent": [],
    }
    for u in np.unique(unit):
        sel = unit == u
        out["tau_gen_exponent"].append(fit_power_law(psi[sel], tau_gen[sel], n_boot=0).exponent)
        out["score_min_exponent"].append(fit_power_law(psi[sel], score_min[sel], n_boot=0).exponent)
        ok = sel & np.isfinite(tau_mem)
        if ok.sum() >= 3 and len(set(psi[ok])) >= 2:
            out["tau_mem_exponent"].append(fit_power_law(psi[ok], tau_mem[ok], n_boot=0).exponent)
    return out


@claim(
    "diffusion.tau_gen_constant_tau_mem_linear",
    paper="diffusion",
    statement="Under gradient flow of the random-feature score model, the score error reaches "
    "its generalisation regime at τ_gen independent of n, and memorisation sets in at "
    "τ_mem ∝ n; the minimal score error falls with n.",
    source="Bonnaire et al. (2025, arXiv 2505.17638) §3 and Fig. 5: τ_gen = O(1/Δ_t), τ_mem ~ "
    "ψ_n/Δ_t",
    decision=TAU_RULE,
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
    ],
)
def tau_gen_constant_tau_mem_linear(
    ctx: Context,
    *,
    tau_gen_exponent: float = 0.0,
    tau_mem_exponent: float = 1.0,
    task: Callable = score_dynamics_task,
) -> CheckResult:
    """GE closed-form flow (:func:`sims.diffusion_rf.ge_flow`) at t = 0.01, Σ = I. τ_gen: the
    score error is halfway from E(0) to its minimum; τ_mem: first τ after the minimum with E = 2
    E_min. Per unit (one seed of the whole ψ_n sweep) the exponents of τ ≈ C·ψ_n^s
    (:func:`unit_exponents`), decided by :func:`tau_rule` with the given theory exponents."""
    d, psi_p, psi_ns = ctx.pick(quick=(10, 256, (4, 8, 16, 32)), full=(20, 512, (4, 8, 16, 32, 64)))
    n_seeds = ctx.pick(quick=TAU_UNITS["quick"], full=TAU_UNITS["full"])
    records = ctx.sweep(
        task,
        [{"d": d, "psi_p": psi_p, "psi_n": x, "t": DYNAMICS_T} for x in psi_ns],
        name="dynamics",
        n_seeds=n_seeds,
    )
    psi = np.array([r["params"]["psi_n"] for r in records], dtype=float)
    unit = np.array([r["seed_index"] for r in records], dtype=int)
    res = [r["result"] for r in records]
    tau_gen = np.array([r["tau_gen"] for r in res], dtype=float)
    tau_mem = np.array([r["tau_mem"] for r in res], dtype=float)  # None (JSON null) → nan
    score_min = np.array([r["score_min"] for r in res], dtype=float)
    doubled = np.isfinite(tau_mem)
    units = unit_exponents(psi, unit, tau_gen, tau_mem, score_min)
    decision = tau_rule(tau_gen_exponent, tau_mem_exponent).decide(units)
    # pooled fits over all points: drawn in the figure, not decisive
    fit_gen = fit_power_law(psi, tau_gen, n_boot=0)
    fit_min = fit_power_law(psi, score_min, n_boot=0)
    fit_mem = (
        fit_power_law(psi[doubled], tau_mem[doubled], n_boot=0)
        if len(set(psi[doubled])) >= 2 and doubled.sum() >= 3
        else None
    )
    lo, hi = tau_mem_exponent - TAU_MEM_TOL, tau_mem_exponent + TAU_MEM_TOL
    summary = (
        f"exponents per unit of τ_gen (theory {tau_gen_exponent:g} ± {TAU_GEN_TOL:g}), τ_mem "
        f"(theory {tau_mem_exponent:g} ± {TAU_MEM_TOL:g}) and the minimal score error (< 0): "
        + decision.summary()
    )
    if doubled.sum() < doubled.size:
        summary += (
            f"; the score error doubles after its minimum in {doubled.sum()} of {doubled.size} runs"
        )

    fig, (ax_curve, ax_tau, ax_min) = new_figure(ncols=3)
    first = [i for i, r in enumerate(records) if r["seed_index"] == 0]
    for colour, i in enumerate(first):
        r = res[i]
        line = ax_curve.loglog(r["tau"], r["score"], color=f"C{colour}", lw=1.2)[0]
        if doubled[i]:
            ax_curve.axvspan(tau_gen[i], tau_mem[i], color=line.get_color(), alpha=0.12)
        marks = [(r["tau_gen"], 0.5 * (r["score_start"] + r["score_min"]))]
        if doubled[i]:
            marks.append((tau_mem[i], 2 * score_min[i]))
        ax_curve.plot(*zip(*marks, strict=True), "o", color=line.get_color(), ms=3.5)
        line.set_label(f"ψ_n = {psi[i]:g}")
    ax_curve.set_xlabel("τ = kη/d²")
    ax_curve.set_ylabel("score error E‖s_A − ∇log P_t‖²/d")
    ax_curve.set_title(f"GE flow, d = {d}, ψ_p = {psi_p}, t = {DYNAMICS_T:g}", fontsize="small")
    ax_curve.legend(fontsize="x-small", title="dots, shade: τ_gen, τ_mem", title_fontsize="x-small")
    grid = np.geomspace(psi.min(), psi.max(), 50)
    for label, values, fit, slope, marker in (
        ("τ_gen", tau_gen, fit_gen, tau_gen_exponent, "o"),
        ("τ_mem", tau_mem, fit_mem, tau_mem_exponent, "s"),
    ):
        keep = np.isfinite(values)
        ax_tau.loglog(psi[keep], values[keep], marker, mfc="none", label=f"{label} (measured)")
        if fit is not None:
            ax_tau.plot(grid, fit.prefactor * grid**fit.exponent, "--", lw=1, color="0.5")
            theory = _geometric_anchor(psi[keep], values[keep], slope)
            ax_tau.plot(grid, theory(grid), color=THEORY, lw=1, label=f"slope {slope:g} (theory)")
    ax_tau.set_xlabel("ψ_n = n/d")
    ax_tau.set_ylabel("τ")
    ax_tau.legend(fontsize="x-small")
    ax_min.loglog(psi, score_min, "o", mfc="none", label="min score error (measured)")
    ax_min.plot(grid, fit_min.prefactor * grid**fit_min.exponent, "--", color="0.5", lw=1)
    ax_min.set_xlabel("ψ_n = n/d")
    ax_min.set_ylabel("min_τ score error")
    ax_min.set_title(
        f"pooled fit: ψ_n^{fit_min.exponent:.2f} (our pilot: −0.6 to −0.69)", fontsize="small"
    )
    ax_min.legend(fontsize="x-small")
    inset = ax_tau.inset_axes((0.62, 0.08, 0.35, 0.3))
    mem_units = units["tau_mem_exponent"]
    inset.plot(np.arange(len(mem_units)), mem_units, "s", ms=2.5, mfc="none")
    inset.axhspan(lo, hi, color=THEORY, alpha=0.15)
    inset.set_title("τ_mem exponent per unit", fontsize="xx-small")
    inset.tick_params(labelsize="xx-small")
    _plain_log_ticks(ax_curve, ax_tau, ax_min)
    mean_mem = float(np.mean(mem_units)) if mem_units else None
    return CheckResult(
        verdict=decision.verdict,
        summary=summary,
        measured={
            "psi_n": psi,
            "unit": unit,
            "tau_gen": tau_gen,
            "tau_mem": tau_mem,
            "score_min": score_min,
            "unit_exponents": units,
            "pooled_exponent_tau_gen": fit_gen.exponent,
            "pooled_exponent_tau_mem": None if fit_mem is None else fit_mem.exponent,
            "pooled_exponent_score_min": fit_min.exponent,
            "tau_mem_exponent": mean_mem,
            "part_verdicts": {
                f"{p.part.statistic} {p.part.direction}": p.verdict.value for p in decision.parts
            },
        },
        expected={
            "exponent_tau_gen": tau_gen_exponent,
            "exponent_tau_mem": tau_mem_exponent,
            "exponent_score_min": "< 0 (our pilot −0.6 quick, −0.69 full)",
        },
        tolerance=f"mean over units of the τ_gen exponent within {tau_gen_exponent:g} ± "
        f"{TAU_GEN_TOL:g}, of the τ_mem exponent within [{lo:g}, {hi:g}], of the min-error "
        "exponent < 0 (Student-t bounds, Bonferroni over 5 parts)",
        figures=ctx.save_figure(fig),
        arrays={"psi_n": psi, "tau_gen": tau_gen, "tau_mem": tau_mem, "score_min": score_min},
        decision=decision.to_json(),
    )


# ------------------------------------------------------------------------ memorization_threshold
#: Pilot gaps L_test − L_train at τ = ∞ (ψ_p = 16, d = 40, t = 0.01), computed before the claim
#: by an independent pilot solver. They are in the loss's own units (not Δ_t): our closed form
#: reproduces them to a few % at exactly these ψ_n, which is how the pilot's (unrecorded) grid was
#: inferred.
SPEC_GAPS = {2: 26.8, 4: 15.3, 8: 5.8, 12: 2.1, 16: 0.72, 24: 0.16, 32: 0.068, 64: 0.016}
THRESHOLD_PSI_N = (2, 4, 8, 12, 16, 24, 32, 48, 64)  # the pilot's grid plus 48 for the tail fit
DECAY_TOL = 0.8  # the tail must fall at least 0.8× as steeply (in log-log) as the decay exponent


THRESHOLD_UNITS = {"quick": 3, "full": 3, "paper": 3}  # draws of the whole ψ_n sweep per root seed


def threshold_rule(threshold_ratio: float = 2.0, decay_exponent: float = -1.0) -> Rule:
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


def threshold_units(
    psi: NDArray[np.float64],
    gaps: NDArray[np.float64],
    delta: float,
    psi_p: float,
    threshold_ratio: float,
) -> dict[str, list[float]]:
    """Per unit (a column of ``gaps``, shape (ψ_n, units)): the three statistics of
    :func:`threshold_rule`. A draw whose tail gap is not positive gets tail slope +inf clipped
    to 10 (a gap that does not decay contradicts the claim)."""
    beyond = psi >= threshold_ratio * psi_p
    tail = (psi >= 2 * psi_p) & (psi <= 4 * psi_p)
    out: dict[str, list[float]] = {
        "max_relative_step": [],
        "max_gap_over_delta_beyond_threshold": [],
        "tail_slope": [],
    }
    for g in gaps.T:
        out["max_relative_step"].append(float(np.max(np.diff(g) / np.abs(g[:-1]))))
        out["max_gap_over_delta_beyond_threshold"].append(float(np.max(g[beyond]) / delta))
        out["tail_slope"].append(
            fit_power_law(psi[tail], g[tail], n_boot=0).exponent if np.all(g[tail] > 0) else 10.0
        )
    return out


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
)
def memorization_threshold(
    ctx: Context, *, threshold_ratio: float = 2.0, decay_exponent: float = -1.0
) -> CheckResult:
    """Gap L_test(∞) − L_train(∞) of the ridgeless minimiser B(∞) = −VᵀU⁻¹/√Δ (GE closed form, ψ_p =
    16, t = 0.01), per unit = one draw of the whole ψ_n sweep. Margins fixed from the statement
    before measuring, in the loss's units (:func:`threshold_rule`): (a) the gap falls at each step
    of ψ_n; (b) it is below Δ_t at every ψ_n ≥ threshold_ratio·ψ_p; (c) its log-log slope over ψ_n ∈
    [2ψ_p, 4ψ_p] is ≤ 0.8·decay_exponent (at least as steep as ψ_n^{decay_exponent}, within 20%). At
    ``--scale paper``: d = 2000 (:data:`PAPER_D`, p = 32,000, n up to 128,000), 3 draws as at full,
    each flow streamed in blocks of :data:`PAPER_ROW_BLOCK`
    (:func:`sims.diffusion_rf.ge_flow_streamed`).
    """
    d = ctx.pick(quick=40, full=80, paper=PAPER_D)
    n_seeds = ctx.pick(**THRESHOLD_UNITS)
    streamed = ctx.pick(quick={}, full={}, paper={"row_block": PAPER_ROW_BLOCK})
    psi_p = 16
    records = ctx.sweep(
        infinite_time_gap_task,
        [
            {"d": d, "psi_p": psi_p, "psi_n": x, "t": DYNAMICS_T, **streamed}
            for x in THRESHOLD_PSI_N
        ],
        name="gap",
        n_seeds=n_seeds,
    )
    psi = np.array(THRESHOLD_PSI_N, dtype=float)
    gaps = np.full((psi.size, n_seeds), np.nan)
    for r in records:
        gaps[THRESHOLD_PSI_N.index(r["params"]["psi_n"]), r["seed_index"]] = r["result"]["gap"]
    delta = float(records[0]["result"]["delta"])
    units = threshold_units(psi, gaps, delta, psi_p, threshold_ratio)
    decision = threshold_rule(threshold_ratio, decay_exponent).decide(units)
    gap = gaps.mean(axis=1)  # for the figure and the crossing point
    monotone = bool(np.all(np.diff(gap) < 0))
    beyond = psi >= threshold_ratio * psi_p
    below = bool(np.all(gap[beyond] < delta)) if beyond.any() else False
    worst_beyond = float(np.mean(units["max_gap_over_delta_beyond_threshold"]))
    tail = (psi >= 2 * psi_p) & (psi <= 4 * psi_p)
    fit_tail = (
        fit_power_law(psi[tail], np.abs(gap[tail]), n_boot=0) if np.all(gap[tail] > 0) else None
    )
    crossing = np.flatnonzero(gap < delta)
    if crossing.size and crossing[0] > 0:
        j = crossing[0]  # log-log interpolation of the first ψ_n with gap = Δ_t
        frac = np.log(gap[j - 1] / delta) / np.log(gap[j - 1] / gap[j])
        psi_cross = float(np.exp(np.log(psi[j - 1]) + frac * np.log(psi[j] / psi[j - 1])))
    else:
        psi_cross = math.nan
    spec_psi = np.array(sorted(SPEC_GAPS), dtype=float)
    spec_gap = np.array([SPEC_GAPS[int(x)] for x in spec_psi])
    ours_at_spec = gap[np.searchsorted(psi, spec_psi)]
    spec_dev = float(np.max(np.abs(ours_at_spec / spec_gap - 1)))
    at = {float(x): float(g / delta) for x, g in zip(psi, gap, strict=True)}
    summary = (
        f"gap/Δ_t = {at[2.0]:.0f} (ψ_n=2) → {at[16.0]:.1f} (ψ_n=ψ_p) → {at[32.0]:.2f} (2ψ_p) → "
        f"{at[64.0]:.2f} (4ψ_p) (mean over draws; crosses Δ_t at ψ_n ≈ "
        f"{psi_cross / psi_p:.1f}ψ_p; matches our pilot's gaps within {spec_dev:.0%}); "
        + decision.summary()
    )

    fig, ax = new_figure()
    for s in range(n_seeds):
        ax.loglog(psi / psi_p, gaps[:, s] / delta, "o", mfc="none", ms=3, color="C0", alpha=0.5)
    ax.loglog(psi / psi_p, gap / delta, "o-", color="C0", label="GE closed form (mean over draws)")
    ax.loglog(spec_psi / psi_p, spec_gap / delta, "x", color="C1", label="our pilot")
    ax.axhline(1.0, color="0.5", ls=":", lw=1, label="gap = Δ_t")
    ax.axvline(
        threshold_ratio,
        color=THEORY,
        ls="--",
        lw=1,
        label=f"claimed: < Δ_t from {threshold_ratio:g}ψ_p",
    )
    x_tail = np.geomspace(2, psi.max() / psi_p, 20)
    ax.loglog(
        x_tail,
        (gap[psi == 2 * psi_p][0] / delta) * (x_tail / 2) ** decay_exponent,
        color=THEORY,
        lw=1,
        label=f"ψ_n^{decay_exponent:g} (theory tail)",
    )
    ax.set_xlabel("ψ_n / ψ_p = n/p")
    ratios = psi[np.isin(psi, [2, 4, 8, 16, 32, 64])] / psi_p
    ax.set_xticks(ratios, [f"{r:g}" for r in ratios])
    ax.set_ylabel("(L_test − L_train)(τ = ∞) / Δ_t")
    ax.set_title(f"ψ_p = {psi_p}, d = {d}, t = {DYNAMICS_T:g}", fontsize="small")
    ax.legend(fontsize="x-small")
    _plain_log_ticks(ax)
    return CheckResult(
        verdict=decision.verdict,
        summary=summary,
        measured={
            "psi_n": psi,
            "gap": gap,
            "gap_over_delta": gap / delta,
            "monotone": monotone,
            "below_delta_beyond_threshold": below,
            "max_gap_over_delta_beyond_threshold": worst_beyond,
            "psi_n_where_gap_equals_delta": psi_cross,
            "tail_slope": None if fit_tail is None else fit_tail.exponent,
            "spec_gap_max_relative_deviation": spec_dev,
            "units": units,
        },
        expected={
            "delta_t": delta,
            "spec_gap": spec_gap,
            "threshold_psi_n": threshold_ratio * psi_p,
            "tail_slope_at_most": DECAY_TOL * decay_exponent,
        },
        tolerance=f"means over draws: largest relative step of the gap < 0; gap < Δ_t = "
        f"{delta:.4f} for ψ_n ≥ {threshold_ratio:g}ψ_p; log-log slope on [2ψ_p, 4ψ_p] ≤ "
        f"{DECAY_TOL * decay_exponent:g} (Student-t bounds, Bonferroni over 3 parts)",
        figures=ctx.save_figure(fig),
        arrays={"psi_n": psi, "gaps": gaps},
        decision=decision.to_json(),
    )


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


def _plateau_error(gd: NDArray[np.float64], flow: NDArray[np.float64]) -> float:
    """|mean(1 − L_gd) − mean(1 − L_flow)| / |mean(1 − L_flow)| over a window of checkpoints."""
    return float(abs(np.mean(gd) - np.mean(flow)) / abs(1.0 - np.mean(flow)))


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
)
def gd_matches_flow(
    ctx: Context, *, tau_per_step: Callable[[float, int, int], float] = paper_tau_per_step
) -> CheckResult:
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
    phases = ("window", "late")
    phase_params = {
        "window": {"lr_factor": GD_WINDOW_LR, "tau_end": 3.0, "tau_end_is_test_min_multiple": True},
        "late": {"lr_factor": GD_REFERENCE_LR, "tau_end": GD_LATE_TAU},
    }
    params = [
        {"d": 10, "psi_p": 32, "psi_n": x, "t": DYNAMICS_T, "checkpoints": 60, **phase_params[ph]}
        for x in psi_ns
        for ph in phases
    ]
    records = ctx.sweep(gd_task, params, name="gd", n_seeds=n_seeds, paired_seeds=True)
    rows, errors, reference_lift = [], {}, []
    unit_errors: dict[int, list[float]] = {}
    fig, axes = new_figure(ncols=len(psi_ns))
    axes = np.atleast_1d(axes)
    for r in records:
        res, prm, unit = r["result"], r["params"], r["seed_index"]
        phase = "window" if prm["lr_factor"] == GD_WINDOW_LR else "late"
        ax = axes[psi_ns.index(prm["psi_n"])]
        delta = res["delta"]
        tau = np.asarray(res["steps"]) * tau_per_step(res["lr_ref"], res["d"], res["p"])

        def flow_at(key: str, tau: NDArray[np.float64] = tau, res: dict = res) -> Any:
            return np.interp(np.log(tau), np.log(res["tau"]), res[key])

        tau_star = float(res["tau"][int(np.argmin(res["flow_test"]))])
        ranges = {
            "window": (tau >= tau_star / 1.5) & (tau <= tau_star * 1.5),
            "late": tau >= tau.max() / 2,
        }
        if phase == "late" and ranges["window"].any():  # how far the SGD noise lifts the dip
            lift = (
                np.asarray(res["gd_test"])[ranges["window"]]
                - flow_at("flow_test")[ranges["window"]]
            )
            reference_lift.append(float(np.mean(lift) / delta))
        for name, run_phase, where in GD_PLATEAUS:
            if run_phase != phase:
                continue
            sel = ranges[where]
            for which in ("train", "test"):
                gd = np.asarray(res[f"gd_{which}"])
                flow = flow_at(f"flow_{which}")
                err = _plateau_error(gd[sel], flow[sel]) if sel.any() else 1e6
                unit_errors.setdefault(unit, []).append(err)
                if unit == 0:
                    errors[(prm["psi_n"], name, which)] = err
                rows.append([unit, prm["psi_n"], name, which, err])
        if unit != 0:  # the figure shows the first draw
            continue
        for which, marker in (("train", "o"), ("test", "s")):
            ax.plot(
                tau,
                (np.asarray(res[f"gd_{which}"]) - 1) / delta,
                marker,
                ms=2.5,
                mfc="none",
                alpha=0.8,
                color="C0" if phase == "window" else "C1",
                label=f"GD {which}, lr_ref = {prm['lr_factor']:g}·d/Δ_t",
            )
        for where in ("window", "late") if phase == "late" else ("window",):
            if ranges[where].any():
                ax.axvspan(tau[ranges[where]].min(), tau[ranges[where]].max(), color="0.85",
                           zorder=0)  # fmt: skip
        if phase == "window":
            for key, colour, ls, label in (
                ("flow_train", THEORY, "-", "closed form, true U (train)"),
                ("flow_test", THEORY, "--", "closed form, true U (test)"),
                ("ge_test", "0.6", ":", "GE closed form (test)"),
            ):
                curve = (np.asarray(res[key]) - 1) / delta
                ax.plot(res["tau"], curve, color=colour, ls=ls, lw=1, label=label)
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_xlabel("τ = kη/d²")
        ax.set_ylabel("(L − 1)/Δ_t")
        ax.set_title(f"ψ_n = {prm['psi_n']:g}, ψ_p = 32, d = 10", fontsize="small")
    axes[0].legend(fontsize="xx-small")
    _plain_log_ticks(*axes)
    worst_per_unit = [max(unit_errors[u]) for u in sorted(unit_errors)]
    decision = GD_RULE.decide({"max_relative_error": worst_per_unit})
    per_plateau = "; ".join(
        f"ψ_n={x:g} {name}: train {errors[(x, name, 'train')]:.1%}, "
        f"test {errors[(x, name, 'test')]:.1%}"
        for x in psi_ns
        for name, _, _ in GD_PLATEAUS
    )
    summary = (
        f"worst relative error of 1 − L at the plateaus per draw "
        f"{', '.join(f'{w:.1%}' for w in worst_per_unit)} against {GD_REL_TOL:.0%}: "
        f"{decision.summary()}; first draw: {per_plateau}"
    )
    if reference_lift:
        summary += (
            f"; at the reference lr the SGD noise lifts the test loss in the generalisation "
            f"window by {min(reference_lift):.1f}–{max(reference_lift):.1f} Δ_t above the flow"
        )
    return CheckResult(
        verdict=decision.verdict,
        summary=summary,
        decision=decision.to_json(),
        measured={
            "plateau_relative_error": rows,
            "max_relative_error": float(np.mean(worst_per_unit)),
            "max_relative_error_per_unit": worst_per_unit,
            "reference_lr_window_test_lift_over_delta": reference_lift,
        },
        expected={"plateau_relative_error_at_most": GD_REL_TOL},
        tolerance=f"|mean(1 − L_GD) − mean(1 − L_flow)| ≤ {GD_REL_TOL:.0%}·|mean(1 − L_flow)| on "
        "each plateau (window at lr 1e-5·d/Δ_t; window and memorisation phase at the reference "
        "lr 0.01·d/Δ_t), for train and test",
        figures=ctx.save_figure(fig),
    )
