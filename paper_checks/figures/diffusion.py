"""Figures of the diffusion claims (``paper_checks.checks.diffusion``): the spectrum of U beside the
deterministic equivalent of Theorem 3.1 (theory in black), and the training dynamics of §3
(Figs. 3 and 5) beside the closed-form flow. Each takes what its check measured and returns the
Figure; a theory curve drawn beside is computed here from ``theory.rmt`` for drawing only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paper_checks.plotting import THEORY, new_figure, plot_spectrum_panels

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from sims.diffusion_units import GapCurve, TimescaleSweep
    from theory.fits import PowerLawFit
    from theory.rmt import ConstantsComparison, PerPointComparison, Spectrum, TwoBulks

__all__ = [
    "constants_figure",
    "gd_flow_figure",
    "nonlinear_figure",
    "solver_sanity_figure",
    "spectrum_figure",
    "threshold_figure",
    "timescales_figure",
    "two_bulks_figure",
]

CONSTANT_NAMES = ("a_t", "b_t", "v_t²", "s_t²")


def _plain_log_ticks(*axes: Any) -> None:
    """Drop minor tick labels on log axes (dozens of mathtext labels per axis, slow to lay out)."""
    from matplotlib.ticker import NullFormatter

    for ax in axes:
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())


def _geometric_anchor(x: np.ndarray, y: np.ndarray, slope: float) -> Any:
    """The line y = C x^slope through the geometric means of the points (for theory slopes)."""
    x0, y0 = np.exp(np.mean(np.log(x))), np.exp(np.mean(np.log(y)))
    return lambda xs: y0 * (np.asarray(xs) / x0) ** slope


def constants_figure(rf_constants: Callable, comparison: ConstantsComparison) -> Figure:
    """The four constants by quadrature (``rf_constants``) against diffusion time, with the
    reference table's entries as circles."""
    ts = np.geomspace(1e-3, 3.0, 60)
    curves = np.array([[getattr(rf_constants(t), f) for f in ("a", "b", "v2", "s2")] for t in ts])
    fig, ax = new_figure()
    table_t = [r["t"] for r in comparison.rows]
    for j, name in enumerate(CONSTANT_NAMES):
        ax.plot(ts, curves[:, j], "-", color=f"C{j}", label=f"{name} (quadrature)")
        ax.plot(table_t, [r["table"][j] for r in comparison.rows], "o", mfc="none", color=f"C{j}")
    ax.plot([], [], "o", mfc="none", color=THEORY, label="reference table (ours)")
    ax.set(xscale="log", yscale="log", xlabel="diffusion time t", ylabel="constant (tanh, σ_x = 1)")
    ax.legend(fontsize="small")
    return fig


def solver_sanity_figure(
    spec: Spectrum,
    masses: Sequence[float],
    per_point: PerPointComparison,
    *,
    psi_p: float,
    psi_n: float,
    t: float,
) -> Figure:
    """Left: λρ(λ) of the grid solver against λ − s_t², its bulks shaded with their masses.
    Right: the small case's density against the per-λ Levenberg–Marquardt points."""
    fig, (ax, ax_ref) = new_figure(ncols=2)
    s2 = spec.delta_location
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
    small = per_point.spectrum
    ax_ref.plot(small.lam, small.density, color=THEORY, lw=1, label="grid Newton (theory)")
    ax_ref.plot(
        per_point.lam, per_point.rho_per_point, "o", mfc="none", ms=4, label="per-λ LM, 113 stages"
    )
    ax_ref.set(xscale="log", yscale="log", xlabel="λ", ylabel="ρ(λ)")
    ax_ref.set_title("ψ_p = 8, ψ_n = 2, Σ = {0.5, 1.5}")
    ax_ref.legend(fontsize="small")
    return fig


def spectrum_figure(
    theories: tuple[Spectrum, Spectrum],
    runs: tuple[dict[str, Any], dict[str, Any]],
    ds: tuple[int, int],
    ks: float,
    groups: tuple[list[int], list[int]],
) -> Figure:
    """Fig. 4's two cases, each a row of :func:`~paper_checks.plotting.plot_spectrum_panels`: the
    KS case and the counts case, their theories, sweep records and d; the first's KS and the
    second's ``groups`` (measured counts, theory's) in the titles. The KS case's histogram counts
    the eigenvalues at the delta too."""
    theory, theory_counts = theories
    ks_result, counts_result = runs[0]["result"], runs[1]["result"]
    d, counts_d = ds
    eigs = np.asarray(ks_result["eigenvalues"])
    all_eigs = np.concatenate([eigs, np.full(int(ks_result["floor_count"]), theory.delta_location)])
    fig, axes = new_figure(ncols=2, nrows=2, figsize=(8.4, 6.4))
    plot_spectrum_panels(theory, all_eigs, int(ks_result["p"]), axes[0])
    axes[0][0].set_title(
        f"ψ_p = 8, ψ_n = 2, Σ = {{0.5, 1.5}}, d = {d}: KS = {ks:.4f}", fontsize="small"
    )
    plot_spectrum_panels(
        theory_counts, np.asarray(counts_result["eigenvalues"]), int(counts_result["p"]), axes[1]
    )
    axes[1][0].set_title(
        f"ψ_p = 64, ψ_n = 8, d = {counts_d}: groups {groups[0]} (theory {groups[1]})",
        fontsize="small",
    )
    return fig


def nonlinear_figure(theory: Spectrum, eigs: np.ndarray, p: int, d: int, ks: float) -> Figure:
    """The Mehler U's eigenvalues against the deterministic equivalent (two panels)."""
    fig, axes = new_figure(ncols=2)
    plot_spectrum_panels(theory, eigs, p, axes)
    axes[0].set_title(f"true nonlinear U (Mehler), d = {d}: KS = {ks:.3f}", fontsize="small")
    return fig


def two_bulks_figure(psi_ns: np.ndarray, bulks: TwoBulks, *, psi_p: float, t: float) -> Figure:
    """Left: the supports of ρ1 and ρ2 against ψ_n, with the Marchenko–Pastur edges of ρ1 and Ũ's
    edges (theory). Right: ψ_p/λ at ρ1's edges (∝ τ_mem) with their fits and the theory slope 1."""
    rho1_lo, rho1_hi = bulks.rho1_edges.T
    rho2_lo, rho2_hi = bulks.rho2_edges.T
    mp_lo, mp_hi = bulks.mp_edges.T
    limit, fits = bulks.u_tilde_edges, bulks.rho1_fits
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
        (psi_p / rho1_lo, fits[0], "lower"),
        (psi_p / rho1_hi, fits[1], "upper"),
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
    return fig


def timescales_figure(
    sweep: TimescaleSweep,
    fits: tuple[PowerLawFit, PowerLawFit | None, PowerLawFit],
    units: dict[str, list[float]],
    slopes: tuple[float, float],
    mem_band: tuple[float, float],
    setup: tuple[int, int, float],
) -> Figure:
    """Left: the first unit's score-error curves with τ_gen (dots) and τ_mem (shade), ``setup`` =
    (d, ψ_p, t) in the title. Middle: τ_gen and τ_mem against ψ_n with the pooled fits and the
    theory ``slopes`` (τ_gen's, τ_mem's), an inset of the per-unit τ_mem exponents against
    ``mem_band``. Right: the minimal score error."""
    mem_units = units["tau_mem_exponent"]
    fit_gen, fit_mem, fit_min = fits
    psi, tau_gen, tau_mem, score_min = sweep.psi, sweep.tau_gen, sweep.tau_mem, sweep.score_min
    doubled = sweep.doubled
    fig, (ax_curve, ax_tau, ax_min) = new_figure(ncols=3)
    first = [i for i, u in enumerate(sweep.unit) if u == 0]
    for colour, i in enumerate(first):
        r = sweep.results[i]
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
    ax_curve.set_title(
        f"GE flow, d = {setup[0]}, ψ_p = {setup[1]}, t = {setup[2]:g}", fontsize="small"
    )
    ax_curve.legend(fontsize="x-small", title="dots, shade: τ_gen, τ_mem", title_fontsize="x-small")
    grid = np.geomspace(psi.min(), psi.max(), 50)
    for label, values, fit, slope, marker in (
        ("τ_gen", tau_gen, fit_gen, slopes[0], "o"),
        ("τ_mem", tau_mem, fit_mem, slopes[1], "s"),
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
    inset.plot(np.arange(len(mem_units)), mem_units, "s", ms=2.5, mfc="none")
    inset.axhspan(*mem_band, color=THEORY, alpha=0.15)
    inset.set_title("τ_mem exponent per unit", fontsize="xx-small")
    inset.tick_params(labelsize="xx-small")
    _plain_log_ticks(ax_curve, ax_tau, ax_min)
    return fig


def threshold_figure(
    gaps: np.ndarray,
    curve: GapCurve,
    setup: tuple[int, int, float],
    threshold_ratio: float,
    decay_exponent: float,
) -> Figure:
    """The τ = ∞ gap over Δ_t against ψ_n/ψ_p: every draw (columns of ``gaps``), their mean, the
    pilot's gaps, the claimed threshold and the theory tail ψ_n^decay_exponent drawn from 2ψ_p;
    ``setup`` = (ψ_p, d, t)."""
    psi_p, d, t = setup
    psi, delta = curve.psi, curve.delta
    title = f"ψ_p = {psi_p}, d = {d}, t = {t:g}"
    fig, ax = new_figure()
    gap = curve.gap
    for s in range(gaps.shape[1]):
        ax.loglog(psi / psi_p, gaps[:, s] / delta, "o", mfc="none", ms=3, color="C0", alpha=0.5)
    ax.loglog(psi / psi_p, gap / delta, "o-", color="C0", label="GE closed form (mean over draws)")
    ax.loglog(
        curve.pilot_psi_n / psi_p, curve.pilot_gap / delta, "x", color="C1", label="our pilot"
    )
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
    ax.set_title(title, fontsize="small")
    ax.legend(fontsize="x-small")
    _plain_log_ticks(ax)
    return fig


def gd_flow_figure(psi_ns: Sequence[float], traces: Sequence[dict[str, Any]]) -> Figure:
    """One panel per ψ_n: the first draw's GD losses (both rates) against τ, beside the closed-form
    flow (true U: train, test) and the GE flow (test), the plateaus shaded. ``traces`` are
    :attr:`sims.diffusion_units.GDPlateaus.traces`."""
    fig, axes = new_figure(ncols=len(psi_ns))
    axes = np.atleast_1d(axes)
    for trace in traces:
        res, prm, phase = trace["result"], trace["params"], trace["phase"]
        tau, ranges = trace["tau"], trace["ranges"]
        ax = axes[psi_ns.index(prm["psi_n"])]
        delta = res["delta"]
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
    return fig
