"""Figures of the rlvr claims of the pass@k estimator and the sharpening theory: each draws what
its check measured beside the theory (theory in black)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from paper_checks.plotting import THEORY, new_figure, plot_pass_at_k
from theory import passk

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from theory.fits import PowerLawFit
    from theory.sharpening import PassAtKPair

__all__ = [
    "estimator_unbiased_figure",
    "sharpening_crosses_figure",
    "single_crossing_figure",
    "tilt_never_crosses_figure",
]


def estimator_unbiased_figure(
    ks: np.ndarray,
    means: tuple[np.ndarray, np.ndarray],
    z: tuple[np.ndarray, np.ndarray],
    true_curve: np.ndarray,
    hist: np.ndarray,
    z_max: float,
) -> Figure:
    """Left: the mean estimates against 1 − (1−p)^k. Right: their z against the truth.
    ``means`` and ``z`` hold the unbiased estimator's and the plug-in's, in that order;
    ``hist`` is the count histogram (problems, n + 1) they were computed from."""
    n_problems, n, n_reps = hist.shape[0], hist.shape[1] - 1, int(hist[0].sum())
    fig, (ax, ax_z) = new_figure(ncols=2)
    plot_pass_at_k(
        ks,
        {"unbiased estimator": means[0], "plug-in": means[1]},
        theory={"1 − (1−p)^k": true_curve},
        ax=ax,
    )
    ax.set_title(f"{n_problems} problems, n = {n}, {n_reps:,} evaluations")
    ax_z.axhspan(-z_max, z_max, color="0.9", label="±3 s.e.")
    ax_z.axhline(0, color=THEORY, lw=1, label="unbiased (theory)")
    ax_z.plot(ks, z[0], "o-", label="unbiased estimator")
    ax_z.plot(ks, z[1], "s-", label="plug-in")
    ax_z.set_xscale("log", base=2)
    ax_z.set_xlabel("k")
    ax_z.set_ylabel("(mean estimate − pass@k) / s.e.")
    ax_z.legend(fontsize="small")
    return fig


def tilt_never_crosses_figure(
    ks: np.ndarray,
    family: Sequence[tuple[str, np.ndarray, np.ndarray]],
    tilt: Callable[[np.ndarray, float], np.ndarray],
    betas: Sequence[float],
    min_delta: np.ndarray,
) -> Figure:
    """Left: one distribution's pass@k under two tilts against the base (the lower bound).
    Right: min over k of Δ(k) for every distribution and β."""
    fig, (ax, ax_d) = new_figure(ncols=2)
    label, p, w = family[3]
    shown = {
        f"tilt β={beta:g}": passk.pass_at_k_curve_exact(np.asarray(tilt(p, beta)), ks, weights=w)
        for beta in (0.3, 1.0)
    }
    lower_bound = {"base = lower bound": passk.pass_at_k_curve_exact(p, ks, weights=w)}
    plot_pass_at_k(ks, shown, theory=lower_bound, ax=ax)
    ax.set_title(label, fontsize="small")
    worst = float(min_delta.min())
    im = ax_d.imshow(
        np.minimum(min_delta, 0.0) if worst < 0 else min_delta, aspect="auto", cmap="viridis"
    )
    ax_d.set_xticks(range(len(betas)), [f"{b:g}" for b in betas])
    ax_d.set_yticks(range(len(family)), [f[0] for f in family], fontsize=5)
    ax_d.set_xlabel("β (KL weight)")
    ax_d.set_title("min_k Δ(k); theory: ≥ 0", fontsize="small")
    ax_d.grid(visible=False)
    fig.colorbar(im, ax=ax_d)
    return fig


def sharpening_crosses_figure(
    quad: PassAtKPair,
    sample: PassAtKPair,
    two: PassAtKPair,
    fits: tuple[PowerLawFit, PowerLawFit],
    shape: tuple[float, float, float, float],
    slopes: tuple[float, float],
    window: tuple[float, float],
) -> Figure:
    """Left: the sampled pass@k curves (markers) on the quadrature ones (lines) with k*.
    Middle: the failure rates, their fits and the k^−a, k^−a/α asymptotes on log–log axes.
    Right: the two-type closed form. ``shape`` = (a, b, α, β); ``slopes`` the predicted
    failure-rate slopes of base and RL."""
    a, b, alpha, beta = shape
    slope_rl_expected = slopes[1]
    ks = quad.k
    fig, (ax, ax_f, ax_t) = new_figure(ncols=3)
    plot_pass_at_k(
        ks,
        {"base": sample.base, "RL": sample.rl},
        theory={"base": quad.base, "RL": quad.rl},
        crossing=quad.crossing.k_star,
        ax=ax,
    )
    ax.set_title(f"p ~ Beta({a:g},{b:g}), logit q = {alpha:g}·logit p + {beta:g}", fontsize="small")
    for fit, values, label in ((fits[0], quad.base, "base"), (fits[1], quad.rl, "RL")):
        ax_f.loglog(ks, 1 - values, "o", ms=3.5, mfc="none", label=f"1 − pass@k, {label}")
        ax_f.loglog(
            ks, fit.prefactor * ks**fit.exponent, "--", lw=1, label=f"fit slope {fit.exponent:.3f}"
        )
    ax_f.loglog(
        ks,
        passk.beta_failure_asymptote(a, b, ks),
        "-",
        color=THEORY,
        lw=0.8,
        label=f"theory k^−a, slope {-a:g}",
    )
    ax_f.loglog(
        ks,
        passk.beta_logit_affine_failure_asymptote(a, b, alpha, beta, ks),
        ":",
        color=THEORY,
        lw=1,
        label=f"theory k^−a/α, slope {slope_rl_expected:.3g}",
    )
    ax_f.axvspan(*window, color="0.92")
    ax_f.set_xlabel("k")
    ax_f.set_ylabel("1 − pass@k")
    ax_f.legend(fontsize=6)
    plot_pass_at_k(
        ks,
        {},
        theory={"two-type base": two.base, "two-type RL": two.rl},
        crossing=two.crossing.k_star,
        ax=ax_t,
    )
    ax_t.set_title("two-type closed form", fontsize="small")
    return fig


def single_crossing_figure(counts: np.ndarray, first_k: np.ndarray, crossing: np.ndarray) -> Figure:
    """Left: how many perturbations change the sign of Δ(k) 0, 1, 2, … times. Right: the first
    crossing k* of those with Δ(1) > 0 > Δ(4096)."""
    fig, (ax, ax_k) = new_figure(ncols=2)
    ax.bar(range(counts.size), counts, color="C0", label="measured")
    ax.axvline(1.5, color=THEORY, ls="--", label="theory: at most 1")
    ax.set_yscale("symlog")
    ax.set_xticks(range(counts.size))
    ax.set_xlabel("sign changes of Δ(k), k = 1..4096")
    ax.set_ylabel("perturbations")
    ax.legend(fontsize="small")
    first = first_k[crossing]
    ax_k.hist(np.log2(first[first > 0]), bins=np.arange(0, 13.5, 0.5), color="C1")
    ax_k.set_xlabel("log2 k* (first crossing)")
    ax_k.set_ylabel("perturbations with Δ(1) > 0 > Δ(4096)")
    return fig
