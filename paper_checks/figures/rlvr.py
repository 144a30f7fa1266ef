"""Figures of the rlvr paper's claims. The functions named ``estimator_*``, ``tilt_*``,
``sharpening_*`` and ``single_*`` draw the pass@k estimator and sharpening-theory checks of
``paper_checks.checks.rlvr``. The functions named ``toy_*`` and ``transformer_*`` draw the
experiments of ``paper_checks.checks.rlvr_experiments`` (Arm A, the toy softmax policy; Arm B,
the tiny transformer; docs/rlvr.md): each takes what its check measured (and the rule's decision,
for the margins) and returns the Figure; the theory curves drawn beside are computed here from
``theory.passk`` for drawing only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special

from paper_checks.plotting import THEORY, new_figure, plot_pass_at_k
from theory import passk

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from paper_checks.decision import Decision
    from sims.rlvr_units import ArmBPool
    from theory.fits import PowerLawFit
    from theory.sharpening import PassAtKPair

__all__ = [
    "estimator_unbiased_figure",
    "logit_map_panel",
    "sharpening_crosses_figure",
    "single_crossing_figure",
    "tilt_never_crosses_figure",
    "toy_controls_figure",
    "toy_coverage_figure",
    "toy_crossing_figure",
    "toy_distillation_figure",
    "toy_pass1_gain_figure",
    "toy_slope_figure",
    "transformer_crossing_figure",
]

_BINS = ["0", *[f"{i / 10:.1f}" for i in range(1, 11)], "1"]  # accuracy_histogram's 12 bins


def logit_map_panel(
    ax: Axes,
    p: np.ndarray,
    q: np.ndarray,
    fit: Mapping[str, float],
    label: str,
    *,
    min_p: float,
    tail_p: float,
) -> None:
    """logit q against logit p for the problems with p ≥ ``min_p`` (the logit-affine model of
    docs/rlvr.md#sharpening-models-our-analysis), with the overall
    and tail fits of ``passk_stats.fit_logit_affine_parts`` (``fit``) as theory lines and the no-change
    diagonal q = p."""
    keep = (p >= min_p) & (p < 1) & (q > 0) & (q < 1)
    lp, lq = special.logit(p[keep]), special.logit(q[keep])
    ax.plot(lp, lq, ".", ms=3, alpha=0.6, label=f"{label} (measured)")
    xs = np.sort(lp)
    ax.plot(xs, xs, "--", color="0.6", lw=0.8, label="q = p")
    ax.plot(
        xs,
        fit["alpha"] * xs + fit["beta"],
        "-",
        color=THEORY,
        label=f"logit-affine fit α = {fit['alpha']:.2f}, β = {fit['beta']:+.2f}",
    )
    tail = xs[xs < special.logit(tail_p)]
    if np.isfinite(fit["alpha_tail"]) and tail.size:
        ax.plot(
            tail,
            fit["alpha_tail"] * tail + fit["beta_tail"],
            ":",
            color=THEORY,
            label=f"tail fit (p < {tail_p:g}) α = {fit['alpha_tail']:.2f}, "
            f"β = {fit['beta_tail']:+.2f}",
        )
    ax.axvline(special.logit(tail_p), color="0.8", lw=0.8)
    ax.set_xlabel("logit p (base)")
    ax.set_ylabel(f"logit q ({label})")
    ax.legend(fontsize=6)


def toy_pass1_gain_figure(
    ks: np.ndarray,
    exact: Mapping[str, np.ndarray],
    sampled: Mapping[str, np.ndarray],
    ks_est: np.ndarray,
    gains: Sequence[float],
    d: Decision,
    rl_arm: str,
) -> Figure:
    """Left: unit 0's exact pass@k of each arm (lines, with the base/RL crossing) and the
    n-sample estimator's curves (markers). Right: the pass@1 gain per unit against the part's
    margins and t bounds."""
    cross = passk.crossing_k(ks, exact["base"], exact[rl_arm])
    fig, (ax, ax_g) = new_figure(ncols=2)
    plot_pass_at_k(ks, {}, theory=dict(exact), crossing=cross.k_star, ax=ax)
    for i, values in enumerate(sampled.values()):
        ax.plot(ks_est, values, "o", ms=3, mfc="none", color=f"C{i}")
    ax.set_title("lines: exact pass@k; markers: n = 256 estimator (unit 0)", fontsize="small")
    part = d.parts[0]
    margin, fail = part.part.pass_margin, part.part.fail_margin
    ax_g.plot(range(len(gains)), gains, "o", label="pass@1(RL) − pass@1(base), per problem set")
    ax_g.axhline(margin, color=THEORY, ls="--", label=f"pass margin {margin:g}")
    ax_g.axhline(fail, color=THEORY, ls=":", label=f"fail margin {fail:g}")
    ax_g.axhspan(part.lower, part.upper, color="C1", alpha=0.2, label="t bounds of the mean")
    ax_g.set_xlabel("unit (problem set) of this root seed")
    ax_g.legend(fontsize="small")
    return fig


def _k_star_text(k_star_per_unit: Sequence[float | None]) -> str:
    """ "k* <mean>" when every unit crosses, else "<n> of <units> cross"."""
    crossed = [k for k in k_star_per_unit if k is not None]
    if len(crossed) == len(k_star_per_unit):
        return f"k* {np.mean(crossed):.1f}"
    return f"{len(crossed)} of {len(k_star_per_unit)} cross"


def toy_crossing_figure(
    ks: np.ndarray,
    rows: Mapping[float, Mapping[str, list]],
    kl_rows: Mapping[float, Mapping[str, Any]],
    d: Decision,
    rl_arm: str,
    kl_units: int,
) -> Figure:
    """Left: Δ(k) = pass@k(RL) − pass@k(base) per SNR (mean and range over units) with the pass
    window of k*. Middle: log2 k* per unit and SNR against the margins, with the t bounds of the
    min and max over SNRs. Right (reported): the KL sweep's mean pass@1 gain and pass@256 loss."""
    low, high = (2**p.part.pass_margin for p in d.parts[1:3])
    fig, (ax, ax_w, ax_kl) = new_figure(ncols=3)
    for i, (s, row) in enumerate(sorted(rows.items())):
        dd = np.asarray(row["d"])
        ax.plot(ks, dd.mean(axis=0), "-", color=f"C{i}", label=f"SNR {s:g} (mean of units)")
        ax.fill_between(ks, dd.min(axis=0), dd.max(axis=0), color=f"C{i}", alpha=0.2, lw=0)
    ax.axhline(0, color=THEORY, lw=0.8, label="no difference")
    ax.axvspan(low, high, color="0.93", label="pass window of k* (SNR ≤ 1)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k")
    ax.set_ylabel(f"pass@k({rl_arm}) − pass@k(base)")
    ax.legend(fontsize="small")
    ax_w.axvspan(np.log2(low), np.log2(high), color="0.93", zorder=0, label="pass window")
    fails = [p.part.fail_margin for p in d.parts[1:3]]
    label = f"fail margins (k* = {2 ** fails[0]:g}, {2 ** fails[1]:g})"
    ax_w.axvline(fails[0], color=THEORY, ls=":", label=label)
    ax_w.axvline(fails[1], color=THEORY, ls=":")
    for i, (_, row) in enumerate(sorted(rows.items())):
        ax_w.plot(row["log_k"], np.full(len(row["log_k"]), i), "o", mfc="none", color=f"C{i}")
    ax_w.set_yticks(range(len(rows)), [f"SNR {s:g}" for s in sorted(rows)])
    for p in d.parts[1:3]:
        ax_w.axvspan(p.lower, p.upper, ymin=0.0, ymax=0.05, color="C1", alpha=0.5)
    ax_w.set_xlabel("log2 k* per problem set (bar: t bounds of min / max over SNRs)")
    ax_w.legend(fontsize="small")
    kls = list(kl_rows)
    ax_kl.plot(kls, [v["pass1_gain"] for v in kl_rows.values()], "o-", label="pass@1 gain")
    ax_kl.plot(
        kls, [v["pass256_loss"] for v in kl_rows.values()], "s-", label="pass@256 loss (base − RL)"
    )
    for kl, v in kl_rows.items():
        ax_kl.annotate(
            _k_star_text(v["k_star_per_seed"]),
            (kl, v["pass256_loss"]),
            fontsize=6,
            xytext=(2, 4),
            va="bottom",
            textcoords="offset points",
        )
    ax_kl.axhline(0, color=THEORY, lw=0.8)
    ax_kl.set_xscale("symlog", linthresh=1e-3)
    ax_kl.set_xlim(0, max(kls) * 2)
    ax_kl.set_xlabel(f"KL(π ‖ π_base) coefficient (reported, SNR 0, {kl_units} problem sets)")
    ax_kl.set_ylabel("mean over problem sets (measured)")
    ax_kl.legend(fontsize="small")
    return fig


def toy_coverage_figure(
    coverage: Mapping[str, Any],
    rl_arms: Sequence[str],
    d: Decision,
    *,
    n: int,
    paper_pass256: Sequence[float],
) -> Figure:
    """Left: exact pass@256 along the checkpoints per unit and their mean, with the claim's
    ceiling (previous + tolerance) and the paper's Omni-train values. Middle: accuracy
    histograms of base and the last checkpoint. Right: the solved sets' Venn counts, with the
    RL-only margin."""
    pass256, hist, venn = coverage["pass256"], coverage["hist"], coverage["venn"]
    tol, rl_only_max = d.parts[0].part.pass_margin, d.parts[1].part.pass_margin
    mean256 = pass256.mean(axis=0)
    fig, (ax, ax_h, ax_v) = new_figure(ncols=3)
    xs = np.arange(pass256.shape[1])  # base, then the checkpoints in order
    for row in pass256:
        ax.plot(xs, row, "o", color="C0", mfc="none", ms=4)
    ax.plot(xs, mean256, "-", color="C0", label="exact pass@256, mean of problem sets")
    ax.plot(
        xs[1:], mean256[:-1] + tol, "_", ms=14, color=THEORY, label=f"claim: ≤ previous + {tol:g}"
    )
    ax.plot(
        np.arange(len(paper_pass256)),
        np.array(paper_pass256) / 100,
        "s",
        color="C3",
        label="paper, Omni-train (base, 150, 300, 450 steps)",
    )
    ax.set_xticks(xs, ["base", *rl_arms], fontsize=7)
    ax.set_ylabel("pass@256")
    ax.legend(fontsize=6)
    width = 0.4
    for j, arm in enumerate(("base", rl_arms[-1])):
        ax_h.bar(np.arange(12) + (j - 0.5) * width, hist[arm], width, label=arm)
    ax_h.set_xticks(range(12), _BINS, fontsize=6)
    ax_h.set_xlabel(f"per-problem accuracy c/{n} (upper bin edge)")
    ax_h.set_ylabel("problems (all units)")
    ax_h.legend(fontsize="small")
    keys = ["both", "base_only", "rl_only", "neither"]
    for j, arm in enumerate(rl_arms):
        ax_v.bar(np.arange(4) + (j - 1) * 0.27, [venn[arm][k] for k in keys], 0.27, label=arm)
    solved = sum(venn[rl_arms[0]].values())  # problems × RL seeds, summed over units
    ax_v.axhline(
        rl_only_max * solved,
        color=THEORY,
        ls="--",
        lw=0.8,
        label=f"{rl_only_max:.0%} of problems",
    )
    ax_v.set_xticks(range(4), keys, fontsize=7)
    ax_v.set_yscale("symlog")
    ax_v.set_ylabel("problems solved (c > 0), all units")
    ax_v.legend(fontsize=6)
    return fig


def toy_distillation_figure(
    ks: np.ndarray,
    curves: Mapping[str, np.ndarray],
    delta: np.ndarray,
    need: np.ndarray,
    d: Decision,
    student_arm: str,
) -> Figure:
    """Left: unit 0's exact pass@k of base, RL and the distilled arms. Right: pass@k(student) −
    pass@k(base) per unit and its mean, against the pass margins per k (``need``) and the fail
    margin."""
    fig, (ax, ax_d) = new_figure(ncols=2)
    plot_pass_at_k(ks, dict(curves), ax=ax)
    ax.set_title("exact pass@k, unit 0, SNR = 0", fontsize="small")
    for row in delta:
        ax_d.plot(ks, row, "o", mfc="none", ms=3.5, color="C0")
    ax_d.plot(ks, delta.mean(axis=0), "-", color="C0", label="mean over problem sets (measured)")
    ax_d.step(ks, need, where="mid", color=THEORY, ls="--", label="pass margins")
    ax_d.axhline(d.parts[0].part.fail_margin, color=THEORY, ls=":", lw=0.8, label="fail margin")
    ax_d.set_xscale("log", base=2)
    ax_d.set_xlabel("k")
    ax_d.set_ylabel(f"pass@k({student_arm}) − pass@k(base)")
    ax_d.legend(fontsize="small")
    return fig


def toy_controls_figure(
    ks: np.ndarray,
    delta: np.ndarray,
    train0: Mapping[str, np.ndarray],
    tilt: Callable,
    d: Decision,
    control_arm: str,
) -> Figure:
    """Left: Δ pass@k of the control per unit, the exact tilt of unit 0's base p at β = 0.3 and 1
    (theory), and the margins. Right: the control's q against the base p on unit 0's training
    problems, with q = p and 10% lost."""
    part = d.parts[0].part
    fig, (ax, ax_p) = new_figure(ncols=2)
    ax.plot(ks, delta.T, "-", color="C0", lw=1)
    ax.plot([], [], "-", color="C0", label=f"{control_arm} − base (measured, per problem set)")
    p0, q0 = train0["base"], train0[control_arm]
    base0 = np.asarray(passk.pass_at_k_curve_exact(p0, ks))
    for beta in (0.3, 1.0):
        tilted = np.asarray(passk.pass_at_k_curve_exact(np.asarray(tilt(p0, beta)), ks))
        ax.plot(
            ks,
            tilted - base0,
            ":",
            color=THEORY,
            label=f"exact tilt β={beta:g} − base (theory, unit 0)",
        )
    ax.axhline(0, color="0.5", lw=0.8)
    ax.axhline(
        part.pass_margin, color=THEORY, ls="--", lw=0.8, label=f"pass margin {part.pass_margin:g}"
    )
    ax.axhline(
        part.fail_margin, color=THEORY, ls="-.", lw=0.8, label=f"fail margin {part.fail_margin:g}"
    )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k")
    ax.set_ylabel("Δ pass@k (training problems)")
    ax.legend(fontsize=6)
    keep = p0 > 0
    ax_p.loglog(p0[keep], q0[keep], ".", ms=3, label=f"{control_arm} (unit 0)")
    line = np.array([p0[keep].min(), 1.0])
    ax_p.loglog(line, line, "-", color=THEORY, lw=0.8, label="q = p")
    ax_p.loglog(line, 0.9 * line, "--", color=THEORY, lw=0.8, label="q = 0.9 p (10% lost)")
    ax_p.set_xlabel("base p")
    ax_p.set_ylabel("control q")
    ax_p.legend(fontsize="small")
    return fig


def toy_slope_figure(
    ks: np.ndarray,
    row0: Mapping[str, Any],
    test0: Mapping[str, np.ndarray],
    rl_arm: str,
    *,
    window: tuple[float, float],
    min_p: float,
    tail_p: float,
) -> Figure:
    """Left: unit 0's measured failure rates 1 − pass@k of base and RL (markers) and the fitted
    model's (lines), with their slopes on ``window``. Right: its logit map (``logit_map_panel``)."""
    fig, (ax, ax_m) = new_figure(ncols=2)
    measured = {"marker": "o", "ls": "none", "mfc": "none", "ms": 3.5}
    for j, arm in enumerate(("base", "rl")):
        for key, style, what in (
            (arm, measured, f"{arm} (measured)"),
            (f"model_{arm}", {"ls": "-", "lw": 1}, "fitted model (theory)"),
        ):
            label = f"{what}, slope {row0[key]:.3f}"
            ax.loglog(ks, row0["curves"][key], color=f"C{j}", label=label, **style)
    ax.axvspan(*window, color="0.93")
    ax.set_xlabel("k")
    ax.set_ylabel("1 − pass@k (base-feasible problems)")
    ax.legend(fontsize=6)
    logit_map_panel(ax_m, test0["base"], test0[rl_arm], row0, rl_arm, min_p=min_p, tail_p=tail_p)
    return fig


def transformer_crossing_figure(
    pool: ArmBPool,
    measured: Mapping[str, Any],
    *,
    min_p: float,
    tail_p: float,
) -> Figure:
    """Arm B in six panels: the pooled pass@k of each arm with the guessing baseline (theory);
    Δ(k) of RL per model and pooled, zoomed; the bootstrap CIs over pooled prompts with the
    per-model means (the units); the accuracy histograms; the Venn counts of the solved sets;
    RL's logit map (with exact p)."""
    ks, k_large, rl_arm, n = pool.ks, pool.k_large, pool.rl_arm, pool.n
    curves, j, kl_arm = pool.curves, pool.j, pool.kl_arm
    ci, kl_ci = measured["ci_over_pooled_prompts"], measured["kl_ablation_ci"]
    units = measured["units"]
    fig, ((ax, ax_k, ax_d), (ax_h, ax_v, ax_m)) = new_figure(ncols=3, nrows=2)
    guess = np.array([np.mean(passk.pass_at_k_exact(pool.chance, int(k))) for k in ks])
    shown = {"base": curves["base"], f"GRPO ({rl_arm})": curves[rl_arm]}
    shown |= {"distill": curves["distill"]}
    shown |= {"GRPO + KL 0.001": curves[kl_arm]} if kl_arm else {}
    plot_pass_at_k(
        ks, shown, theory={"guessing baseline": guess}, crossing=measured["k_star"], ax=ax
    )
    ax.legend(fontsize="small", loc="center right")  # clear of the curves' low-k start
    ax.set_title(
        f"{pool.chance.size} test prompts, {len(pool.models)} seed(s); {_arm_b_how(pool)}",
        fontsize=6,
    )
    for i in range(len(pool.models)):
        mine = pool.model == i
        delta = pool.est[rl_arm][mine].mean(axis=0) - pool.est["base"][mine].mean(axis=0)
        ax_k.plot(ks, delta, "-", lw=0.8, color="0.6", label="per seed" if i == 0 else None)
    ax_k.plot(ks, curves[rl_arm] - curves["base"], "o-", ms=3, color="C1", label="pooled")
    ax_k.axhline(0, color=THEORY, lw=0.8)
    ax_k.axvline(k_large, color="0.4", ls=":", lw=1, label=f"judged at k = {k_large}")
    ax_k.set_xscale("log", base=2)
    ax_k.set_xlabel("k")
    ax_k.set_ylabel(f"pass@k({rl_arm}) − pass@k(base), zoomed to ±0.05")
    ax_k.set_ylim(-0.05, 0.05)
    ax_k.legend(fontsize="small")
    if pool.rl_map and pool.probs is not None:
        logit_map_panel(
            ax_m,
            pool.probs["base"],
            pool.probs[rl_arm],
            pool.rl_map,
            f"GRPO ({rl_arm})",
            min_p=min_p,
            tail_p=tail_p,
        )
    else:
        ax_m.set_axis_off()
        ax_m.text(0.5, 0.5, "no exact p in these records", ha="center", fontsize="small")
    mids = {
        "pass1_gain": curves[rl_arm][0] - curves["base"][0],
        "large_k_loss": curves["base"][j] - curves[rl_arm][j],
        "distill_gain": curves["distill"][j] - curves["base"][j],
    }
    for i, (label, (low, high)) in enumerate(ci.items()):
        mid = mids[label]
        ax_d.errorbar([i], [mid], yerr=[[mid - low], [high - mid]], fmt="o", capsize=4)
    ticks = ["pass@1 gain", f"base − RL, k={k_large}", f"distill − base, k={k_large}"]
    for i, (label, (low, high)) in enumerate(kl_ci.items()):
        col = 0 if label == "pass1" else j
        mid = curves[kl_arm][col] - curves[rl_arm][col]
        ax_d.errorbar([3 + i], [mid], yerr=[[mid - low], [high - mid]], fmt="s", capsize=4)
        ticks.append(f"KL − no KL, k={ks[col]} (reported)")
    for i, name in enumerate(("pass1_gain", "large_k_loss", "distill_gain")):
        ax_d.plot(np.full(len(units[name]), i + 0.15), units[name], "x", color="0.4", ms=4)
    ax_d.axhline(0, color=THEORY, lw=0.8, label="margin 0; x: per-model means (the units)")
    ax_d.set_xticks(range(len(ticks)), ticks, fontsize=6, rotation=20)
    ax_d.set_ylabel("difference (95% bootstrap CI over pooled prompts, reported)")
    ax_d.legend(fontsize="small")
    hist = measured["accuracy_histogram"]
    width = 0.8 / len(hist)
    for i, (arm, h) in enumerate(hist.items()):
        ax_h.bar(np.arange(12) + (i - (len(hist) - 1) / 2) * width, h, width, label=arm)
    ax_h.set_xticks(range(12), _BINS, fontsize=6)
    ax_h.set_xlabel(f"per-problem accuracy c/{n} (upper bin edge)")
    ax_h.set_ylabel("test prompts")
    ax_h.legend(fontsize="small")
    venn = measured["solved_venn"]
    ax_v.bar(range(len(venn)), list(venn.values()), color="C0")
    ax_v.set_xticks(range(len(venn)), list(venn), fontsize=6, rotation=30)
    ax_v.set_yscale("symlog")
    ax_v.set_ylabel(f"test prompts solved (c > 0), {len(pool.models)} seed(s)")
    for i, v in enumerate(venn.values()):
        ax_v.annotate(str(v), (i, v), ha="center", va="bottom", fontsize=6)
    return fig


def _arm_b_how(pool: ArmBPool) -> str:
    """How Arm B's pass@k was computed, for the figure's title."""
    if pool.exact:
        return (
            f"exact p (enumeration); n = {pool.n} estimator within {pool.estimator_gap:.3f} "
            f"for k ≤ {pool.n // 4}"
        )
    return f"n = {pool.n} estimator"


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
