"""Figures of the superposition claims (Liu, Liu & Gore 2025, arXiv 2505.10465;
docs/superposition.md): each draws what its check measured, with the theory and the paper's
values in black. Fitted power laws are redrawn here from the plotted models, for the eye only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paper_checks.plotting import THEORY, new_figure
from sims.superposition_units import ladder_fit
from theory import superposition as theory

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from sims.superposition_units import KnobUnits, WeakLawUnits
    from theory.superposition import ExponentEstimate

__all__ = [
    "density_figure",
    "geometry_figure",
    "knob_figure",
    "llm_figure",
    "reference_figure",
    "robust_figure",
    "strong_figure",
    "weak_figure",
    "weak_law_figure",
]

Models = list[dict[str, Any]]


def _gap_axes(ax: Any, band: tuple[float, float]) -> None:
    """Axes of L / L_unl − 1 against m, with the tolerance band and the theory line at 0."""
    ax.axhspan(*band, color="0.9", label="tolerance")
    ax.axhline(0, color=THEORY, lw=1, label="L = L_unl (theory)")
    ax.set_xscale("log")
    ax.set_xlabel("m")
    ax.set_ylabel("L / L_unl − 1")
    ax.legend(fontsize=6)


def _loss_vs_m(ax: Any, curves: Mapping[str, Models], window: tuple[float, float]) -> None:
    """Loss against m (log-log) for each labelled ladder, with its power law fitted over
    ``window``."""
    for i, (label, models) in enumerate(curves.items()):
        fit = ladder_fit(models, window)
        widths = np.array([m["m"] for m in models], dtype=float)
        ax.loglog(widths, [m["loss"] for m in models], "o", color=f"C{i}", mfc="none", label=label)
        ax.loglog(
            widths,
            fit.prefactor * widths**fit.exponent,
            "--",
            color=f"C{i}",
            lw=1,
            label=f"fit α_m = {-fit.exponent:.2f}",
        )
    ax.set_xlabel("m (hidden width)")
    ax.set_ylabel("L (summed over features)")
    ax.legend(fontsize=6)


def geometry_figure(
    widths: Sequence[int],
    means: Sequence[float],
    variances: Sequence[float],
    etf_widths: np.ndarray,
    grad_err: float,
) -> Figure:
    """Left: the sampled mean and variance of the squared overlap of random unit vectors against
    1/m and 2(m−1)/(m²(m+2)). Right: the simplex ETF's coherence against the Welch bound, titled
    with the trainer's gradient error."""
    fig, (ax, ax_e) = new_figure(ncols=2)
    ms = np.array(widths, dtype=float)
    grid = np.geomspace(ms[0], ms[-1], 50)
    ax.loglog(grid, 1 / grid, "-", color=THEORY, lw=1, label="1/m (theory)")
    ax.loglog(
        grid,
        theory.random_overlap_variance(grid),
        ":",
        color=THEORY,
        lw=1,
        label="2(m−1)/(m²(m+2)) (theory)",
    )
    ax.loglog(ms, means, "o", mfc="none", label="mean (w·w′)², sampled")
    ax.loglog(ms, variances, "s", mfc="none", label="var (w·w′)², sampled")
    ax.set_xlabel("m")
    ax.set_ylabel("squared overlap of random unit vectors")
    ax.legend(fontsize=6)
    ax_e.plot(etf_widths, 1 / etf_widths, "-", color=THEORY, lw=1, label="Welch bound κ = 1/m")
    ax_e.plot(
        etf_widths,
        [
            np.abs(theory.simplex_etf(int(m)) @ theory.simplex_etf(int(m)).T)[0, 1]
            for m in etf_widths
        ],
        "o",
        mfc="none",
        label="simplex ETF max |w_i·w_j|",
    )
    ax_e.set_xlabel("m (m + 1 vectors)")
    ax_e.set_ylabel("coherence")
    ax_e.set_title(f"trainer gradient rel. error {grad_err:.1e}", fontsize="small")
    ax_e.legend(fontsize=6)
    return fig


def strong_figure(
    units: Sequence[Models],
    rows: Sequence[Mapping[str, Any]],
    predicted_exponent: float,
    window: tuple[float, float],
    overlap_tol: float,
) -> Figure:
    """Left: each unit's loss against m with its fit and the predicted m^−exponent (through the
    first unit's points). Right: the mean squared overlap of the rows with ‖W_i‖ > 1 against
    1/m per unit (filled: the checked widths), with the theory and its tolerance band."""
    fig, (ax, ax_o) = new_figure(ncols=2)
    _loss_vs_m(ax, {f"unit {i}": u for i, u in enumerate(units)}, window)
    widths, losses = rows[0]["widths"], rows[0]["losses"]
    ax.loglog(
        widths,
        np.exp(np.mean(np.log(losses) + predicted_exponent * np.log(widths)))
        * widths**-predicted_exponent,
        "-",
        color=THEORY,
        lw=1,
        label=f"theory ∝ m^−{predicted_exponent:g}",
    )
    ax.legend(fontsize=6)
    inv, predicted = 1 / widths, rows[0]["predicted_overlap"]
    ax_o.plot(inv, predicted, "-", color=THEORY, lw=1, label="1/m (random / ETF-like, theory)")
    ax_o.fill_between(
        inv,
        predicted * (1 - overlap_tol),
        predicted * (1 + overlap_tol),
        color="0.9",
        label=f"±{overlap_tol:.0%}",
    )
    for i, row in enumerate(rows):
        checked = row["checked"]
        ax_o.plot(
            inv[checked], row["overlap"][checked], "o", color=f"C{i}", label=f"unit {i} (checked)"
        )
        ax_o.plot(inv[~checked], row["overlap"][~checked], "o", color=f"C{i}", mfc="none")
    ax_o.set_xlabel("1/m")
    ax_o.set_ylabel("mean (Ŵ_i·Ŵ_j)² of rows with ‖W_i‖ > 1")
    ax_o.legend(fontsize=6)
    return fig


def weak_figure(
    rows: Sequence[Mapping[str, Any]],
    widths: Sequence[int],
    weak_gamma: float,
    window: tuple[float, float],
    band: tuple[float, float],
) -> Figure:
    """Left: the first unit's weak ladders per α with L_unl (theory) and its strong models at
    α = 1.5. Right: L/L_unl − 1 against m per unit and α, with the tolerance band."""
    fig, (ax, ax_r) = new_figure(ncols=2)
    first = rows[0]
    curves = {
        f"unit 0: weak γ = {weak_gamma:g}, α = {a:g}": w for a, (w, _) in first["curves"].items()
    }
    _loss_vs_m(ax, curves, window)
    for i, (_, (weak, unl)) in enumerate(first["curves"].items()):
        ax.loglog(
            [m["m"] for m in weak],
            unl,
            "-",
            color=THEORY,
            lw=0.8,
            label="L_unl (theory)" if i == 0 else None,
        )
    ax.loglog(
        [m["m"] for m in first["strong15"]],
        [m["loss"] for m in first["strong15"]],
        "s",
        color="C2",
        mfc="none",
        label="unit 0: strong γ = −1, α = 1.5",
    )
    ax.legend(fontsize=6)
    for u, row in enumerate(rows):
        for j, (alpha, gap) in enumerate(row["gaps"].items()):
            ax_r.plot(
                widths,
                gap,
                "o-" if j == 0 else "s--",
                color=f"C{u}",
                lw=0.8,
                label=f"unit {u}, α = {alpha:g}",
            )
    _gap_axes(ax_r, band)
    return fig


def knob_figure(knob: KnobUnits, m_over_n: float) -> Figure:
    """φ_1/2 (circles) and φ_1 (squares) against γ per unit, with the theory band and m/n."""
    fig, ax = new_figure()
    gammas, bands = knob.gammas, knob.bands
    ax.fill_between(
        gammas, bands[:, 0], bands[:, 1], color="0.9", step="mid", label="theory band (Figs. 3, 13)"
    )
    for i, (phi, phi_one) in enumerate(zip(knob.phi, knob.phi_one, strict=True)):
        ax.plot(gammas, phi, "o-", color=f"C{i}", label=f"φ_1/2, unit {i}")
        ax.plot(gammas, phi_one, "s--", color=f"C{i}", mfc="none", lw=0.8)
    ax.axhline(m_over_n, color=THEORY, ls=":", lw=1, label="m/n")
    ax.set_xlabel("γ (weight decay; < 0: growth)")
    ax.set_ylabel("fraction of rows (squares: φ_1)")
    ax.legend(fontsize=6)
    return fig


def robust_figure(
    first: Mapping[float, Models],
    per_unit: np.ndarray,
    expected: np.ndarray,
    band: float,
    window: tuple[float, float],
) -> Figure:
    """Left: the first unit's ladders per α (``first``: α → models) with their fits. Right: α_m
    per unit against α, the expected values (Fig. 5) ± ``band`` and the n → ∞ conjecture."""
    fig, (ax, ax_a) = new_figure(ncols=2)
    _loss_vs_m(ax, {f"α = {a:g} (unit 0)": models for a, models in first.items()}, window)
    alphas = np.array(list(first))
    for i, row in enumerate(per_unit):
        ax_a.plot(alphas, row, "o", color=f"C{i}", mfc="none", label=f"unit {i}")
    ax_a.fill_between(alphas, expected - band, expected + band, color="0.9", step="mid")
    ax_a.step(alphas, expected, where="mid", color=THEORY, lw=1, label="expected (Fig. 5)")
    ax_a.plot(
        alphas,
        np.maximum(1, 2 * (alphas - 1)),
        ":",
        color=THEORY,
        lw=1,
        label="max(1, 2(α−1)), n → ∞ conjecture",
    )
    ax_a.set_xlabel("α (p_i ∝ i^−α)")
    ax_a.set_ylabel("α_m")
    ax_a.legend(fontsize=6)
    return fig


def reference_figure(
    units: Sequence[Models],
    phi_one: np.ndarray,
    phi_half: np.ndarray,
    paper_loss: Mapping[int, float],
    window: tuple[float, float],
) -> Figure:
    """Left: each unit's n = 1000 ladder with its fit and the paper's L(10), L(100) (Fig. 14).
    Right: φ_1 (circles) and φ_1/2 (squares) against m per unit, with the paper's φ_1 (Fig. 16)."""
    fig, (ax, ax_p) = new_figure(ncols=2)
    _loss_vs_m(ax, {f"strong, n = 1000, unit {i}": u for i, u in enumerate(units)}, window)
    ax.loglog(
        list(paper_loss), list(paper_loss.values()), "x", color=THEORY, label="paper (Fig. 14)"
    )
    ax.legend(fontsize=6)
    widths = np.array([m["m"] for m in units[0]])
    for i in range(len(units)):
        ax_p.semilogx(widths, phi_one[i], "o-", color=f"C{i}", label=f"φ_1 (‖W_i‖ > 1), unit {i}")
        ax_p.semilogx(widths, phi_half[i], "s--", color=f"C{i}", mfc="none", lw=0.8)
    ax_p.semilogx([10, 100], [0.1, 0.9], "x", color=THEORY, label="paper φ_1 ≈ 0.1 → 0.9 (Fig. 16)")
    ax_p.set_xlabel("m")
    ax_p.set_ylabel("fraction of rows (squares: φ_1/2)")
    ax_p.legend(fontsize=6)
    return fig


def weak_law_figure(
    law: WeakLawUnits,
    widths: np.ndarray,
    ideal_curves: Sequence[np.ndarray],
    loss_tol: float,
    window: tuple[float, float],
) -> Figure:
    """Left: the first unit's weak ladders per (α, γ) with their fits and the finite-n ideals.
    Right: L/L_unl − 1 against m per unit and (α, γ), with the tolerance band."""
    fig, (ax, ax_r) = new_figure(ncols=2)
    for run, (chosen, gap) in zip(law.runs, law.ladders, strict=True):
        label = f"α = {run['alpha']:g}, γ = {run['gamma']:g}"
        if run["unit"] == 0:
            fit = ladder_fit(chosen, window)
            ax.loglog(widths, [m["loss"] for m in chosen], "o", mfc="none", label=label)
            ax.loglog(widths, fit.prefactor * widths**fit.exponent, "--", lw=0.8)
        ax_r.semilogx(widths, gap, "o-", lw=0.8, label=f"unit {run['unit']}, {label}")
    for i, ideal in enumerate(ideal_curves):
        ax.loglog(
            widths, ideal, "-", color=THEORY, lw=1, label="finite-n ideal" if i == 0 else None
        )
    ax.set_xlabel("m (hidden width)")
    ax.set_ylabel("L (summed over features; unit 0)")
    ax.legend(fontsize=6)
    _gap_axes(ax_r, (-loss_tol, loss_tol))
    return fig


def density_figure(
    first: Mapping[float, Models],
    losses: np.ndarray,
    widths: Sequence[int],
    predicted_slope: float,
    window: tuple[float, float],
) -> Figure:
    """Left: the first unit's ladders per E (``first``: E → models) with their fits. Right: its
    losses (E, m) against E per width, with L ∝ E^slope through the E = 1 point."""
    fig, (ax, ax_e) = new_figure(ncols=2)
    _loss_vs_m(ax, {f"E = {e:g} (unit 0)": models for e, models in first.items()}, window)
    densities = list(first)
    for j, m in enumerate(np.array(widths, dtype=float)):
        ax_e.loglog(densities, losses[:, j], "o", color=f"C{j}", mfc="none", label=f"m = {m:g}")
        ax_e.loglog(
            densities,
            losses[0, j] * np.array(densities) ** predicted_slope,
            "-",
            color=THEORY,
            lw=0.6,
        )
    ax_e.set_xlabel("E (activation density)")
    ax_e.set_ylabel("L (unit 0)")
    ax_e.set_title("lines: L ∝ E (theory)", fontsize="small")
    ax_e.legend(fontsize=5)
    return fig


def llm_figure(paper: Mapping[str, float], est: ExponentEstimate) -> Figure:
    """The paper's α_m fitted on 27 LLMs beside Chinchilla's 2.52 × 0.35, with the toy model's 1."""
    fig, ax = new_figure()
    ax.errorbar(
        [0],
        [paper["alpha_m_fit"]],
        yerr=[paper["alpha_m_fit_sigma"]],
        fmt="o",
        label="fitted on 27 LLMs (paper)",
    )
    ax.errorbar(
        [1],
        [est.value],
        yerr=[est.sigma],
        fmt="s",
        color=THEORY,
        label="Chinchilla 2.52 × 0.35 (ours, quadrature)",
    )
    ax.axhline(1.0, ls=":", color="0.5", lw=1, label="toy strong regime: 1")
    ax.set_xticks([0, 1], ["fit", "Chinchilla"])
    ax.set_ylabel("α_m")
    ax.legend(fontsize=6)
    return fig
