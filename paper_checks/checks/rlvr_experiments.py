"""Claims of Yue et al. (NeurIPS 2025) checked on the tiny reproduction (rlvr.md §4): Arm A, a
shared-strategy softmax policy trained by GRPO or distilled from a teacher (``sims.rlvr_toy``),
and Arm B, a tiny path-finding transformer (``neural.rlvr_transformer``, torch imported lazily).

In Arm A every pass@k is exact (p_i = Σ_s π(s|x_i) g[i, s], see ``sims.rlvr_toy``); sampled counts
(n = 256 per problem) are drawn only to cross-check the estimator, to count solved sets, and to
write the per-problem ``problem,n,c`` files that ``paper-checks solve passk`` replays.

Assertions and margins are the spec's (rlvr.md §4, "Suggested assertions"); a margin is met when
the mean over seeds minus 3 standard errors clears it (``lower_bound``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy import special, stats

from paper_checks.claims import HistoryEntry, claim
from paper_checks.context import Context
from paper_checks.plotting import THEORY, new_figure, plot_pass_at_k
from paper_checks.results import CheckResult, Verdict
from sims.bootstrap import paired_mean_ci
from sims.rlvr_toy import GRPO_CHECKPOINTS, base_learned, sample_counts, toy_arms_task
from theory import passk
from theory.fits import fit_power_law

SOURCE = "rlvr.md §4 (Arm A: shared-strategy softmax policy), spec's suggested assertions"
KS = 2 ** np.arange(11)  # 1, 2, 4, ..., 1024
KS_FINE = np.unique(np.round(np.logspace(0, 10, 81, base=2)).astype(int))  # 1..1024, 8 per octave
N_SAMPLES = 256  # samples per problem for the estimator, the solved sets and the sample files
RL_ARM = "grpo400"  # "at >= 400 steps" (rlvr.md §4, assertion 2)
PASS1_GAIN = 0.04
PASS256_LOSS = 0.03
CROSSING_RANGE = (2.0, 64.0)
CHECKPOINT_TOL = 0.01
RL_ONLY_MAX = 0.02
DISTILL_GAIN_LARGE_K = 0.05
Z_MAX = 4.0  # estimator vs exact: within 4 exact standard errors at every k <= n
SLOPE_WINDOW = (4.0, 64.0)  # fixed in advance: past pass@1, before the finite-p_min plateau
SLOPE_RTOL = 0.20
FEASIBLE_P = 1e-4  # "solvable at a feasible budget": base p >= 1e-4 (k ≈ 10^4)
TAIL_P = 0.1  # reported: the logit-affine fit on the low-p tail (p < 0.1) vs the bulk
KL_SWEEP = (0.0, 0.001, 0.01, 0.1, 1.0)  # reported: GRPO + KL coefficient (paper's ablation: 0.001)
PAPER_PASS256 = [67.2, 66.3, 65.3, 64.3]  # rlvr.md §2: base, GRPO 150/300/450 steps (Omni-train)
ALL_ARMS = ("grpo", "distill", "tabular")
WORLD = "rlvr.arm_a.world"  # names the stream of Arm A's problem set (``toy_world``)
ARM_ORDER = ("base", "grpo150", "grpo400", "grpo800", "distill", "distill_grpo")


def lower_bound(values: Sequence[float]) -> float:
    """Mean over seeds minus 3 standard errors (the mean itself for a single seed)."""
    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return float(v.mean())
    return float(v.mean() - 3.0 * v.std(ddof=1) / np.sqrt(v.size))


#: RL seeds of every Arm A claim, at every scale. Five, not three, because the margins are judged
#: by mean − 3 s.e. and the standard error of three seeds rests on two degrees of freedom: in a
#: power pilot (20 problem sets from root seeds 1–20, never the claims' root 0, × 20 RL seeds
#: each; GRPO 400 steps, SNR 0) the within-set SD of the pass@1 gain was 0.0042 (spec §6:
#: ≈ 0.005), and on the sets whose mean gain is ≥ 0.05 three seeds cleared the 0.04 margin in
#: 95.4% of draws, five in 99.5%. Cost: ≈ 30 CPU-s for all Arm A claims.
ARM_A_SEEDS = 5

#: The margin reading of every Arm A rule, in words (rlvr.md §4: "a mean difference passes when
#: mean − 3 standard errors of the mean difference ≥ the margin"; ``lower_bound``).
MARGIN_READING = (
    "a margin is met when the mean over the RL seeds of the per-seed paired difference (RL − base "
    "on the same problems) minus 3 standard errors of that mean (sd/√seeds) is ≥ the margin"
)


def _one_problem_set(before: str) -> HistoryEntry:
    """Commit 38c51bd: Arm A's seeds became RL seeds on one problem set per run."""
    return HistoryEntry(
        date="2026-11-30",
        change="Arm A: one problem set per run (toy_world), shared by every claim, and the seeds "
        "are RL seeds on it; before, every seed drew its own problem set",
        reason="the spec's pilot (rlvr.md §4: 'five RL seeds', one base row; §6: 'training-seed "
        "SD in the toy was ≈0.005') uses RL seeds on one benchmark; the world-to-world spread "
        "is reported beside the verdict (independent problem sets)",
        before=before,
    )


def _five_seeds(before: str) -> HistoryEntry:
    """Commit 333e57f: ``ARM_A_SEEDS`` 3 → 5."""
    return HistoryEntry(
        date="2026-11-30",
        change="Arm A: 3 → 5 RL seeds at every scale (ARM_A_SEEDS)",
        reason="power pilot on root seeds 1–20 (never the claims' root 0): with 3 seeds the "
        "mean − 3 s.e. bound rests on 2 degrees of freedom and missed 0.04 in 4.6% of problem "
        "sets whose gain is ≥ 0.05 (5 seeds: 0.5%); made after the quick pass@1 bound had "
        "missed the margin by 0.001",
        before=before,
    )


def toy_world(ctx: Context) -> list[int]:
    """Seed entropy of Arm A's problem set: the run's root seed and a fixed name, the same for
    every Arm A claim. Like a benchmark in the paper, the 400 train and 400 test problems are
    drawn once and the seeds of a sweep are RL (training) seeds (rlvr.md §4: "five RL seeds",
    one base row in the pilot table; §6: "training-seed SD in the toy was ≈0.005")."""
    return ctx.shared_entropy(WORLD)


def _runs(
    ctx: Context,
    name: str = "arms",
    arms: Sequence[str] = ALL_ARMS,
    snrs: Sequence[float] = (0.0,),
    *,
    n_seeds: int | None = None,
    fixed_world: bool = True,
    task: Callable | None = None,
    configs: Sequence[Mapping[str, Any]] = ({},),
    paired_seeds: bool = False,
) -> list:
    """One record per (SNR, config, seed) of ``sims.rlvr_toy.toy_arms_task`` (or ``task``, a
    stand-in with the same record format) with p arrays as numpy; ``configs`` override
    ``ToyConfig`` fields (e.g. ``{"kl": 0.1}``). With ``fixed_world`` every seed trains on the
    problem set of ``toy_world``; without, each seed draws its own problems (the world-to-world
    spread). ``paired_seeds``: every parameter point trains on the same random streams."""
    world = {"world": toy_world(ctx)} if fixed_world else {}
    records = ctx.sweep(
        toy_arms_task if task is None else task,
        [{"snr": float(s), "arms": list(arms), **world, **c} for s in snrs for c in configs],
        name=name,
        n_seeds=ARM_A_SEEDS if n_seeds is None else n_seeds,
        paired_seeds=paired_seeds,
    )
    for r in records:
        for split in ("test", "train"):
            r["result"][split] = {k: np.asarray(v, float) for k, v in r["result"][split].items()}
    return records


def _independent_worlds(ctx: Context, arm: str = RL_ARM, task: Callable | None = None) -> list:
    """SNR 0 on 10 (quick) or 30 (full) independently drawn problem sets, one RL seed each, with
    the training that produces ``arm`` (GRPO, or distillation for the ``distill`` arms): the
    world-to-world spread that another ``--seed`` samples from (reported, not asserted, by the
    claims that use it). ``task`` replaces ``toy_arms_task`` as in ``_runs``."""
    trained = ("distill",) if arm.startswith("distill") else ("grpo",)
    return _runs(
        ctx, "worlds", trained, n_seeds=ctx.pick(quick=10, full=30), fixed_world=False, task=task
    )


def logit_map(p: np.ndarray, q: np.ndarray) -> dict[str, float]:
    """§3's logit-affine model, logit q = α·logit p + β, fitted by least squares
    (``passk.fit_logit_affine``) on all problems with p ≥ ``FEASIBLE_P``, on their low-p tail
    (p < ``TAIL_P``) and on the bulk; NaN for a part with too few usable problems. §3's large-k
    behaviour is set by the tail: q ≈ e^β p^α as p → 0, so a crossing needs α > 1 or β < 0
    there, and α = 1 with β > 0 is the exact tilt, which never crosses. With a tail α > 1,
    ``fixed_point_tail`` is the tail fit's p* = σ(−β/(α − 1)): the problems below it lose p."""
    keep = p >= FEASIBLE_P
    parts = {"": keep, "_tail": keep & (p < TAIL_P), "_bulk": keep & (p >= TAIL_P)}
    out = {}
    for suffix, mask in parts.items():
        try:
            alpha, beta = passk.fit_logit_affine(p[mask], q[mask])
        except ValueError:
            alpha = beta = float("nan")
        out |= {f"alpha{suffix}": alpha, f"beta{suffix}": beta}
    tail_sharpens = out["alpha_tail"] > 1  # False for NaN
    fixed_point = (
        float(passk.logit_affine_fixed_point(out["alpha_tail"], out["beta_tail"]))
        if tail_sharpens
        else float("nan")
    )
    return out | {"n_tail": int(parts["_tail"].sum()), "fixed_point_tail": fixed_point}


def plot_logit_map(ax, p: np.ndarray, q: np.ndarray, fit: dict[str, float], label: str) -> None:
    """logit q against logit p for the problems ``logit_map`` uses, with its overall and tail
    fits (``fit``) as theory lines and the no-change diagonal q = p."""
    keep = (p >= FEASIBLE_P) & (p < 1) & (q > 0) & (q < 1)
    lp, lq = special.logit(p[keep]), special.logit(q[keep])
    ax.plot(lp, lq, ".", ms=3, alpha=0.6, label=f"{label} (measured)")
    xs = np.sort(lp)
    ax.plot(xs, xs, "--", color="0.6", lw=0.8, label="q = p")
    ax.plot(
        xs,
        fit["alpha"] * xs + fit["beta"],
        "-",
        color=THEORY,
        label=f"§3 fit α = {fit['alpha']:.2f}, β = {fit['beta']:+.2f}",
    )
    tail = xs[xs < special.logit(TAIL_P)]
    if np.isfinite(fit["alpha_tail"]) and tail.size:
        ax.plot(
            tail,
            fit["alpha_tail"] * tail + fit["beta_tail"],
            ":",
            color=THEORY,
            label=f"tail fit (p < {TAIL_P:g}) α = {fit['alpha_tail']:.2f}, "
            f"β = {fit['beta_tail']:+.2f}",
        )
    ax.axvline(special.logit(TAIL_P), color="0.8", lw=0.8)
    ax.set_xlabel("logit p (base)")
    ax.set_ylabel(f"logit q ({label})")
    ax.legend(fontsize=6)


def _curve(p: np.ndarray, ks: np.ndarray = KS) -> np.ndarray:
    return np.asarray(passk.pass_at_k_curve_exact(p, ks))


def _estimator_z(p: np.ndarray, c: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """(estimate − exact) / exact standard error of the dataset pass@k at each k, for counts
    c ~ Binomial(N_SAMPLES, p); the variance is E[est²] − E[est]² summed over problems."""
    est = passk.pass_at_k_curve(np.full(p.size, N_SAMPLES), c, ks)
    exact = _curve(p, ks)
    z = []
    for i, k in enumerate(ks):
        second = passk.estimator_expectation(
            lambda n, cc, kk: passk.pass_at_k(n, cc, kk) ** 2, p, N_SAMPLES, int(k)
        )
        var = np.sum(second - passk.pass_at_k_exact(p, int(k)) ** 2) / p.size**2
        z.append((est[i] - exact[i]) / np.sqrt(max(var, 1e-300)))
    return np.asarray(z)


# ------------------------------------------------------------------------------ pass@1 gain
@claim(
    "rlvr.toy_pass1_gain",
    paper="rlvr",
    statement="GRPO raises pass@1 of a shared-parameter policy above the base model's "
    "(toy: by at least 0.04), while the exact and sampled (n = 256) pass@k curves agree.",
    source=SOURCE + " (assertion 1); paper: pass@1 gains in rlvr.md §2",
    rule="PASS when mean − 3 s.e. of pass@1(GRPO 400) − pass@1(base) over the 5 RL seeds (SNR 0, "
    "one problem set) is ≥ 0.04 and the n = 256 estimator is within 4 exact s.e. of the exact "
    "pass@k for base and RL at every k ≤ 256; FAIL otherwise. The spec's 'margin ≥ 3 SD' is "
    "read as: " + MARGIN_READING + ". Never INCONCLUSIVE.",
    stochastic=True,
    statistic="pass1_gain_lower_bound",
    history=[
        _one_problem_set(
            "PASS (quick, 3 seeds each on its own problem set: gain .054, mean − 3 s.e. "
            ".043 ≥ .04); under the new reading FAIL (.039 < .04)"
        ),
        HistoryEntry(
            date="2026-11-30",
            change="the PASS test moved from the claim's arm (GRPO 400 steps) to distillation "
            "followed by GRPO (gain ≈ .1, far above the margin); the claim's own arm and rule "
            "did not change",
            reason="the default arm's quick bound had fallen below 0.04; the test was meant to "
            "check the mechanics, not the toy's margin (since 2026-12-01 near-boundary tests "
            "on hand-made records check the rule on both sides of 0.04)",
            before="FAIL (quick, GRPO 400, 3 RL seeds on one problem set: gain .063/.044/.060, "
            "mean − 3 s.e. .039 < .04)",
        ),
        _five_seeds(
            "FAIL (quick, 3 RL seeds: gain .063/.044/.060, mean .056, mean − 3 s.e. .039 < .04)"
        ),
    ],
)
def toy_pass1_gain(
    ctx: Context, *, rl_arm: str = RL_ARM, task: Callable | None = None
) -> CheckResult:
    """SNR = 0, ``ARM_A_SEEDS`` RL seeds on the run's problem set: the lower bound (mean − 3 s.e.)
    of pass@1(RL) − pass@1(base) is ≥ 0.04, and the n = 256 unbiased estimator is within 4 exact
    s.e. of the exact curve for base and RL at every k ≤ 256. Reported, not asserted: the gain
    over independent problem sets (``_independent_worlds``), whose spread is wider than the
    seeds' (some sets gain less than 0.04). ``task`` replaces ``toy_arms_task`` (same record
    format), e.g. to hand the claim an arm with a known gain."""
    records = _runs(ctx, task=task)
    world_gains = np.array(
        [
            _curve(t[rl_arm])[0] - _curve(t["base"])[0]
            for t in (r["result"]["test"] for r in _independent_worlds(ctx, rl_arm, task))
        ]
    )
    gains, z_max = [], 0.0
    rng = ctx.rng("samples")
    ks_est = KS[KS <= N_SAMPLES]
    for r in records:
        test = r["result"]["test"]
        gains.append(float(_curve(test[rl_arm])[0] - _curve(test["base"])[0]))
        for arm in ("base", rl_arm):
            c = sample_counts(test[arm], N_SAMPLES, rng)
            z_max = max(z_max, float(np.max(np.abs(_estimator_z(test[arm], c, ks_est)))))
    bound = lower_bound(gains)
    passed = bound >= PASS1_GAIN and z_max <= Z_MAX

    test0 = records[0]["result"]["test"]
    exact = {arm: _curve(test0[arm]) for arm in ARM_ORDER if arm in test0}
    sampled = {
        arm: passk.pass_at_k_curve(
            np.full(p.size, N_SAMPLES),
            sample_counts(p, N_SAMPLES, ctx.rng("figure", arm)),
            ks_est,
        )
        for arm, p in test0.items()
        if arm in exact
    }
    cross = passk.crossing_k(KS, exact["base"], exact[rl_arm])
    fig, (ax, ax_g) = new_figure(ncols=2)
    plot_pass_at_k(KS, {}, theory=exact, crossing=cross.k_star, ax=ax)
    for i, values in enumerate(sampled.values()):
        ax.plot(ks_est, values, "o", ms=3, mfc="none", color=f"C{i}")
    ax.set_title("lines: exact pass@k; markers: n = 256 estimator (seed 0)", fontsize="small")
    ax_g.plot(range(len(gains)), gains, "o", label="pass@1(RL) − pass@1(base), per RL seed")
    ax_g.plot(
        np.full(world_gains.size, len(gains) + 1),
        world_gains,
        "x",
        color="0.5",
        label="one RL seed per independent problem set (reported)",
    )
    ax_g.axhline(PASS1_GAIN, color=THEORY, ls="--", label=f"spec margin {PASS1_GAIN}")
    ax_g.axhline(bound, color="C1", ls=":", label=f"mean − 3 s.e. = {bound:.3f}")
    ax_g.set_xticks([*range(len(gains)), len(gains) + 1], [*map(str, range(len(gains))), "sets"])
    ax_g.set_xlabel("RL seed on the run's problem set; independent problem sets")
    ax_g.legend(fontsize="small")
    below = float(np.mean(world_gains < PASS1_GAIN))
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"pass@1 gain {np.mean(gains):.3f} (mean − 3 s.e. {bound:.3f} {'≥' if bound >= PASS1_GAIN else '<'} {PASS1_GAIN}) "
        f"over {len(gains)} RL seeds, SNR = 0, {rl_arm}; estimator vs exact max |z| = {z_max:.2f}; "
        f"reported: over {world_gains.size} independent problem sets gain "
        f"{world_gains.mean():.3f} ± {world_gains.std(ddof=1):.3f}, {below:.0%} below {PASS1_GAIN}",
        measured={
            "pass1_gain_per_seed": gains,
            "pass1_gain_lower_bound": bound,
            "independent_problem_sets": {
                "pass1_gain_per_set": world_gains.tolist(),
                "mean": float(world_gains.mean()),
                "sd": float(world_gains.std(ddof=1)),
                "fraction_below_margin": below,
            },
            "pass1_base": float(exact["base"][0]),
            "pass1_rl": float(exact[rl_arm][0]),
            "estimator_max_abs_z": z_max,
            "seeds": len(gains),
        },
        expected={"pass1_gain_lower_bound": f">= {PASS1_GAIN}", "estimator_max_abs_z": Z_MAX},
        tolerance=f"mean − 3 s.e. of the pass@1 gain ≥ {PASS1_GAIN}; |estimate − exact| ≤ "
        f"{Z_MAX:g} exact s.e. at every k ≤ {N_SAMPLES}",
        figures=ctx.save_figure(fig),
        arrays={"k": KS, **{f"exact_{a}": v for a, v in exact.items()}, "gains": np.array(gains)},
    )


# ------------------------------------------------------------------------------- crossing
def _k_star_text(k_star_per_seed: Sequence[float | None]) -> str:
    """ "k* <mean>" when every seed crosses, else "<n> of <seeds> cross"."""
    crossed = [k for k in k_star_per_seed if k is not None]
    if len(crossed) == len(k_star_per_seed):
        return f"k* {np.mean(crossed):.1f}"
    return f"{len(crossed)} of {len(k_star_per_seed)} cross"


def kl_sweep(
    ctx: Context, rl_arm: str = RL_ARM, task: Callable | None = None
) -> dict[float, dict[str, Any]]:
    """GRPO with a KL(π ‖ π_base) penalty (``ToyConfig.kl``) at each coefficient of ``KL_SWEEP``,
    SNR 0, on the run's problem set with paired RL seeds (every coefficient trains on the same
    random streams): per coefficient the mean pass@1 gain, the mean pass@256 loss
    (base − RL) and k* per seed (None: no crossing up to k = 1024). rlvr.md §2 ("KL = 0.001:
    similar pass@1 but lower pass@128"), §6 ("KL is no safeguard"); §3's exact tilt, the KL
    optimum with per-problem freedom, never crosses."""
    records = _runs(
        ctx,
        "kl",
        ("grpo",),
        configs=[{"kl": v} for v in KL_SWEEP],
        paired_seeds=True,
        task=task,
    )
    i256 = int(np.flatnonzero(KS_FINE == 256)[0])
    rows: dict[float, dict[str, list]] = {}
    for r in records:
        test = r["result"]["test"]
        base, rl = _curve(test["base"], KS_FINE), _curve(test[rl_arm], KS_FINE)
        k_star = passk.crossing_k(KS_FINE, base, rl).k_star
        row = rows.setdefault(float(r["params"]["kl"]), {"gain": [], "loss": [], "k": []})
        row["gain"].append(float(rl[0] - base[0]))
        row["loss"].append(float(base[i256] - rl[i256]))
        row["k"].append(None if k_star is None else float(k_star))
    return {
        kl: {
            "pass1_gain": float(np.mean(row["gain"])),
            "pass256_loss": float(np.mean(row["loss"])),
            "k_star_per_seed": row["k"],
        }
        for kl, row in rows.items()
    }


@claim(
    "rlvr.toy_crossing",
    paper="rlvr",
    statement="With poor per-problem routing (SNR ≤ 1) the base model's pass@k overtakes the GRPO "
    "policy's exactly once, at a small k* (toy: k* in [2, 64]), and base leads at k = 256.",
    source=SOURCE + " (assertions 2, 3); paper: crossing k ≈ 4–1024 in rlvr.md §2",
    rule="PASS when, at every asserted SNR (0 and 1; SNR 3 at full is reported only) and for "
    "each of the 5 RL seeds (GRPO 400, one problem set), Δ(k) = pass@k(RL) − pass@k(base) "
    "changes sign exactly once on k = 1..1024 (8 points per octave) with k* in [2, 64], and "
    "mean − 3 s.e. of pass@256(base) − pass@256(RL) over the seeds is ≥ 0.03 ("
    + MARGIN_READING
    + "); FAIL when any seed crosses zero or ≥ 2 times or outside [2, 64], or the bound is "
    "< 0.03. Never INCONCLUSIVE. Deciding statistic: the smallest k* over asserted SNRs and "
    "seeds (the binding side of the window at every scale run so far).",
    stochastic=True,
    statistic="k_star_min",
    history=[
        _one_problem_set(
            "FAIL (quick, 3 seeds each on its own problem set: SNR-0 k* = 2.2, 1.9, 2.9; "
            "k* = 1.88 < 2 in one seed)"
        ),
        _five_seeds("PASS (quick, 3 RL seeds: SNR-0 k* = 2.40, 2.36, 2.16, min 2.16 ≥ 2)"),
    ],
)
def toy_crossing(
    ctx: Context,
    *,
    snrs: Sequence[float] | None = None,
    rl_arm: str = RL_ARM,
    task: Callable | None = None,
) -> CheckResult:
    """For each SNR ≤ 1 and seed: exactly one sign change of Δ(k) = pass@k(RL) − pass@k(base)
    on k = 1..1024 (8 points per octave) with k* in [2, 64]; the lower bound of
    pass@256(base) − pass@256(RL) over seeds is ≥ 0.03. SNRs above 1 (full scale: SNR = 3) are
    reported as the sensitivity knob, not asserted.

    The seeds are RL seeds on one problem set (``toy_world``), as in the spec's pilot ("five RL
    seeds ... crossing bracket 2–4 every time"). Reported, not asserted: k* at SNR = 0 over
    10 (quick) or 30 (full) independently drawn problem sets, one RL seed each: the spread that
    a different ``--seed`` samples from; and the ``kl_sweep`` (SNR 0). ``task`` replaces
    ``toy_arms_task`` in all three sweeps (same record format), e.g. to hand the claim an arm
    with a known crossing."""
    if snrs is None:
        snrs = ctx.pick(quick=(0.0, 1.0), full=(0.0, 1.0, 3.0))
    records = _runs(ctx, "crossing", ("grpo",), snrs, task=task)
    kl_rows = kl_sweep(ctx, rl_arm, task)
    worlds = _independent_worlds(ctx, task=task)
    world_k = []
    for r in worlds:
        test = r["result"]["test"]
        k_star = passk.crossing_k(
            KS_FINE, _curve(test["base"], KS_FINE), _curve(test[rl_arm], KS_FINE)
        ).k_star
        world_k.append(np.nan if k_star is None else k_star)
    world_k = np.asarray(world_k)
    crossed = world_k[np.isfinite(world_k)]
    i256 = int(np.flatnonzero(KS_FINE == 256)[0])
    rows: dict[float, dict[str, list]] = {}
    for r in records:
        test = r["result"]["test"]
        base, rl = _curve(test["base"], KS_FINE), _curve(test[rl_arm], KS_FINE)
        cross = passk.crossing_k(KS_FINE, base, rl)
        row = rows.setdefault(float(r["params"]["snr"]), {"k": [], "n": [], "loss": [], "d": []})
        row["k"].append(np.nan if cross.k_star is None else cross.k_star)
        row["n"].append(cross.n_crossings)
        row["loss"].append(float(base[i256] - rl[i256]))
        row["d"].append(rl - base)
    asserted = [s for s in rows if s <= 1.0]
    k_asserted = np.concatenate([np.asarray(rows[s]["k"], float) for s in asserted])
    k_star_min = float(np.nanmin(k_asserted)) if np.any(np.isfinite(k_asserted)) else None
    failed = []
    for s in asserted:
        k, n = np.asarray(rows[s]["k"]), np.asarray(rows[s]["n"])
        one = bool(np.all(n == 1))
        inside = bool(np.all((k >= CROSSING_RANGE[0]) & (k <= CROSSING_RANGE[1])))
        if not (one and inside):
            failed.append(f"SNR {s:g}: crossings {n.tolist()}, k* {np.round(k, 2).tolist()}")
        if lower_bound(rows[s]["loss"]) < PASS256_LOSS:
            failed.append(f"SNR {s:g}: pass@256 loss bound {lower_bound(rows[s]['loss']):.3f}")

    fig, (ax, ax_w, ax_kl) = new_figure(ncols=3)
    for i, (s, row) in enumerate(sorted(rows.items())):
        d = np.asarray(row["d"])
        ax.plot(KS_FINE, d.mean(axis=0), "-", color=f"C{i}", label=f"SNR {s:g} (mean of seeds)")
        ax.fill_between(KS_FINE, d.min(axis=0), d.max(axis=0), color=f"C{i}", alpha=0.2, lw=0)
        ax.plot(row["k"], np.zeros(len(row["k"])), "|", ms=12, color=f"C{i}")
    ax.axhline(0, color=THEORY, lw=0.8, label="no difference")
    ax.axvspan(*CROSSING_RANGE, color="0.93", label="asserted k* range (SNR ≤ 1)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k")
    ax.set_ylabel(f"pass@k({rl_arm}) − pass@k(base)")
    ax.legend(fontsize="small")
    ax_w.axvspan(*CROSSING_RANGE, color="0.93", zorder=0, label="asserted k* range")
    top = max(4.0, float(np.ceil(crossed.max()))) if crossed.size else 4.0
    ax_w.hist(
        crossed,
        bins=np.arange(1.0, top + 0.01, 0.125),
        color="C0",
        zorder=2,
        label="one RL seed per independent problem set",
    )
    for k in rows.get(0.0, {}).get("k", []):
        ax_w.axvline(k, color="C1", lw=1)
    ax_w.plot([], [], "-", color="C1", label="RL seeds on the run's problem set")
    ax_w.set_xlabel(f"k* at SNR 0 ({world_k.size} independent problem sets, reported)")
    ax_w.set_ylabel("problem sets")
    ax_w.set_xlim(1.0, top)
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
    ax_kl.set_xlabel("KL(π ‖ π_base) coefficient (reported, SNR 0, paired seeds)")
    ax_kl.set_ylabel("mean over RL seeds (measured)")
    ax_kl.legend(fontsize="small")
    kl_text = ", ".join(
        f"{kl:g}: {_k_star_text(v['k_star_per_seed'])}, pass@256 loss {v['pass256_loss']:.3f}"
        for kl, v in kl_rows.items()
    )
    summary_rows = {
        f"snr_{s:g}": {
            "k_star_mean": float(np.nanmean(row["k"])) if np.any(np.isfinite(row["k"])) else None,
            "k_star_per_seed": [None if np.isnan(k) else float(k) for k in row["k"]],
            "n_crossings_per_seed": row["n"],
            "pass256_loss_mean": float(np.mean(row["loss"])),
            "pass256_loss_lower_bound": lower_bound(row["loss"]),
        }
        for s, row in rows.items()
    }
    world_summary = {
        "k_star_per_world": [None if np.isnan(k) else float(k) for k in world_k],
        "k_star_mean": float(crossed.mean()) if crossed.size else None,
        "k_star_sd": float(crossed.std(ddof=1)) if crossed.size > 1 else None,
        "fraction_below_range": float(np.mean(world_k < CROSSING_RANGE[0])),
        "fraction_crossing": crossed.size / world_k.size,
    }
    text = "; ".join(
        f"SNR {s:g}: k* {v['k_star_mean'] or float('nan'):.2f}, pass@256 loss "
        f"{v['pass256_loss_mean']:.3f}"
        for s, v in zip(rows, summary_rows.values(), strict=True)
    )
    return CheckResult(
        verdict=Verdict.of(not failed),
        summary=f"{text} ({ARM_A_SEEDS} RL seeds, one problem set)"
        + (f"; failed: {'; '.join(failed)}" if failed else "")
        + f"; reported: over {world_k.size} independent problem sets (SNR 0) "
        f"{crossed.size} cross, k* = {np.mean(crossed) if crossed.size else np.nan:.2f} ± "
        f"{np.std(crossed, ddof=1) if crossed.size > 1 else np.nan:.2f}, "
        f"{world_summary['fraction_below_range']:.0%} below {CROSSING_RANGE[0]:g}; GRPO + KL "
        f"(SNR 0) {kl_text}",
        measured={
            **summary_rows,
            "k_star_min": k_star_min,
            "independent_problem_sets_snr_0": world_summary,
            "kl_sweep_snr_0": {f"{kl:g}": v for kl, v in kl_rows.items()},
        },
        expected={
            "n_crossings": 1,
            "k_star_range": list(CROSSING_RANGE),
            "pass256_loss_lower_bound": f">= {PASS256_LOSS}",
            "paper_k_star": "≈3–4 (GSM8K) to ≈512–1024 (AIME24)",
        },
        tolerance=f"for every SNR ≤ 1 and seed exactly one crossing with k* in {CROSSING_RANGE}; "
        f"mean − 3 s.e. of pass@256(base) − pass@256(RL) ≥ {PASS256_LOSS}",
        figures=ctx.save_figure(fig),
        arrays={"k": KS_FINE, **{f"delta_snr{s:g}": np.asarray(r["d"]) for s, r in rows.items()}},
    )


# ------------------------------------------------------------------------- coverage shrinks
def accuracy_histogram(c: np.ndarray, n: int) -> np.ndarray:
    """Counts of problems per accuracy bin {0}, (0, .1], (.1, .2], ..., (.9, 1), {1} of c/n
    (rlvr.md §1, "Accuracy histogram"), (12,)."""
    acc = c / n
    inner = np.clip(np.ceil(acc * 10).astype(int), 1, 10)  # (0, .1] -> 1, ..., (.9, 1) -> 10
    bins = np.where(c == 0, 0, np.where(c == n, 11, inner))
    return np.bincount(bins, minlength=12)


def solved_sets(c_base: np.ndarray, c_rl: np.ndarray) -> dict[str, int]:
    """Venn counts of the solved sets (c > 0): both, base only, RL only, neither."""
    b, r = c_base > 0, c_rl > 0
    return {
        "both": int(np.sum(b & r)),
        "base_only": int(np.sum(b & ~r)),
        "rl_only": int(np.sum(~b & r)),
        "neither": int(np.sum(~b & ~r)),
    }


def solved_regions(counts: dict[str, np.ndarray]) -> dict[str, int]:
    """Venn counts of the solved sets (c > 0) of any number of arms: one entry per combination
    of arms, named by the arms that solve the problem joined with "+" ("none" for no arm), in
    the order of ``counts``; every combination is listed, zeros included."""
    names = list(counts)
    solved = np.stack([np.asarray(c) > 0 for c in counts.values()], axis=1)  # (P, arms)
    code = solved @ (1 << np.arange(len(names)))  # bit j: solved by arm j
    tally = np.bincount(code, minlength=1 << len(names))
    return {
        "+".join(n for j, n in enumerate(names) if m >> j & 1) or "none": int(tally[m])
        for m in range(len(tally) - 1, -1, -1)
    }


def write_sample_file(path: Path, ids: Sequence[str], n: np.ndarray, c: np.ndarray) -> Path:
    """Per-problem ``problem,n,c`` CSV, the format ``paper-checks solve passk`` reads."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["problem,n,c", *(f"{i},{a},{b}" for i, a, b in zip(ids, n, c, strict=True))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@claim(
    "rlvr.toy_coverage_shrinks",
    paper="rlvr",
    statement="Longer GRPO training does not raise pass@256 (coverage), and the problems the RL "
    "policy solves are (up to 2% of problems) a subset of those the base model solves.",
    source=SOURCE + " (assertions 4, 5b); paper: pass@256 66.3/65.3/64.3 at GRPO steps "
    "150/300/450 vs base 67.2, AIME24 RL ⊂ base (rlvr.md §2)",
    rule="PASS when the mean over the 5 RL seeds of exact pass@256 rises by ≤ 0.01 between "
    "consecutive checkpoints (base, GRPO 150, 400, 800; SNR 0) and, for every checkpoint and "
    "seed, the problems solved (c > 0 of n = 256) by RL but not by the base are ≤ 2% of the "
    "problems; FAIL when any rise is > 0.01 or any RL-only share is > 2%. Never INCONCLUSIVE.",
    stochastic=True,
    statistic="max_rise",
    history=[
        _one_problem_set(
            "PASS (quick: pass@256 base → GRPO 150/400/800 .778 → .742 → .678 → .623, max rise "
            "< 0; RL-only ≤ 0.8%)"
        ),
        _five_seeds(
            "PASS (quick, 3 RL seeds: .807 → .770 → .713 → .662, max rise < 0; RL-only ≤ 0.25%)"
        ),
    ],
)
def toy_coverage_shrinks(
    ctx: Context, *, rl_arms: Sequence[str] | None = None, task: Callable | None = None
) -> CheckResult:
    """SNR = 0: mean over seeds of exact pass@256 at base, GRPO 150, 400, 800 steps never rises by
    more than 0.01 from one checkpoint to the next; with n = 256 sampled counts per problem, the
    problems solved (c > 0) by RL but not by base are ≤ 2% of the problems for every checkpoint
    and seed. Writes each seed's ``problem,n,c`` files to ``samples/`` for ``solve passk``.
    ``task`` replaces ``toy_arms_task`` (same record format), e.g. to hand the claim checkpoints
    with a known rise."""
    rl_arms = [f"grpo{s}" for s in GRPO_CHECKPOINTS] if rl_arms is None else list(rl_arms)
    records = _runs(ctx, task=task)
    rng = ctx.rng("samples")
    pass256, rl_only_frac, venn, hist = [], [], {}, {}
    files = []
    for r in records:
        test, seed = r["result"]["test"], r["seed_index"]
        pass256.append([_curve(test[a], np.array([256]))[0] for a in ("base", *rl_arms)])
        counts = {a: sample_counts(test[a], N_SAMPLES, rng) for a in ("base", *rl_arms)}
        ids = [f"s{seed}-{i}" for i in range(test["base"].size)]
        for arm, c in counts.items():
            files.append(
                write_sample_file(
                    ctx.out_dir / "samples" / f"{ctx.claim_id}.seed{seed}.{arm}.csv",
                    ids,
                    np.full(c.size, N_SAMPLES),
                    c,
                )
            )
            hist[arm] = hist.get(arm, 0) + accuracy_histogram(c, N_SAMPLES)
        for arm in rl_arms:
            sets = solved_sets(counts["base"], counts[arm])
            rl_only_frac.append(sets["rl_only"] / c.size)
            venn[arm] = {k: venn.get(arm, {}).get(k, 0) + v for k, v in sets.items()}
    pass256 = np.asarray(pass256)  # (seeds, 1 + checkpoints)
    mean256 = pass256.mean(axis=0)
    max_rise = float(np.max(np.diff(mean256)))
    passed = max_rise <= CHECKPOINT_TOL and max(rl_only_frac) <= RL_ONLY_MAX

    fig, (ax, ax_h, ax_v) = new_figure(ncols=3)
    xs = np.arange(pass256.shape[1])  # base, then the checkpoints in order
    for row in pass256:
        ax.plot(xs, row, "o", color="C0", mfc="none", ms=4)
    ax.plot(xs, mean256, "-", color="C0", label="exact pass@256, mean of seeds (measured)")
    ax.plot(
        xs[1:],
        mean256[:-1] + CHECKPOINT_TOL,
        "_",
        ms=14,
        color=THEORY,
        label=f"claim: ≤ previous + {CHECKPOINT_TOL}",
    )
    ax.plot(
        np.arange(4),
        np.array(PAPER_PASS256) / 100,
        "s",
        color="C3",
        label="paper, Omni-train (base, 150, 300, 450 steps)",
    )
    ax.set_xticks(xs, ["base", *rl_arms], fontsize=7)
    ax.set_ylabel("pass@256")
    ax.legend(fontsize=6)
    labels = ["0", *[f"{i / 10:.1f}" for i in range(1, 11)], "1"]
    width = 0.4
    for j, arm in enumerate(("base", rl_arms[-1])):
        ax_h.bar(np.arange(12) + (j - 0.5) * width, hist[arm], width, label=arm)
    ax_h.set_xticks(range(12), labels, fontsize=6)
    ax_h.set_xlabel(f"per-problem accuracy c/{N_SAMPLES} (upper bin edge)")
    ax_h.set_ylabel("problems (all seeds)")
    ax_h.legend(fontsize="small")
    keys = ["both", "base_only", "rl_only", "neither"]
    for j, arm in enumerate(rl_arms):
        ax_v.bar(np.arange(4) + (j - 1) * 0.27, [venn[arm][k] for k in keys], 0.27, label=arm)
    ax_v.axhline(
        RL_ONLY_MAX * pass256.shape[0] * records[0]["result"]["test"]["base"].size,
        color=THEORY,
        ls="--",
        lw=0.8,
        label="2% of problems",
    )
    ax_v.set_xticks(range(4), keys, fontsize=7)
    ax_v.set_yscale("symlog")
    ax_v.set_ylabel("problems solved (c > 0), all seeds")
    ax_v.legend(fontsize=6)
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"pass@256 base→{'→'.join(rl_arms)}: "
        + " → ".join(f"{v:.3f}" for v in mean256)
        + f" (max rise {max_rise:+.3f} ≤ {CHECKPOINT_TOL}); RL-only solved ≤ "
        f"{100 * max(rl_only_frac):.1f}% of problems (≤ 2%); {len(records)} seeds",
        measured={
            "pass256_mean": mean256,
            "pass256_per_seed": pass256,
            "max_rise": max_rise,
            "rl_only_fraction_max": max(rl_only_frac),
            "venn": venn,
            "accuracy_histogram": {a: h.tolist() for a, h in hist.items()},
            "sample_files": [str(f.relative_to(ctx.out_dir)) for f in files[:4]],
            "seeds": len(records),
        },
        expected={
            "max_rise": f"<= {CHECKPOINT_TOL}",
            "rl_only_fraction_max": f"<= {RL_ONLY_MAX}",
            "paper_pass256_omni_train": PAPER_PASS256,
            "paper_math500_venn": {"both": 462, "base_only": 18, "rl_only": 5, "neither": 15},
        },
        tolerance=f"mean exact pass@256 rises by ≤ {CHECKPOINT_TOL} between consecutive "
        f"checkpoints (base first); RL-only solved set ≤ {RL_ONLY_MAX:.0%} of problems, every "
        "checkpoint and seed",
        figures=ctx.save_figure(fig),
        arrays={"pass256": pass256, **{f"hist_{a}": h for a, h in hist.items()}},
    )


# ---------------------------------------------------------------------- distillation expands
@claim(
    "rlvr.toy_distillation_expands",
    paper="rlvr",
    statement="Distilling a teacher that knows a strategy the base model lacks raises pass@k "
    "above the base at every k (toy: by ≥ 0.05 for k ≥ 64), unlike RL.",
    source=SOURCE + " (assertion 5a); paper: R1-Distill above the base at every k on Minerva "
    "(rlvr.md §2)",
    rule="PASS when mean − 3 s.e. over the 5 seeds of pass@k(distilled) − pass@k(base) (SNR 0, "
    "one problem set) is ≥ 0 at every k = 1, 2, 4, ..., 1024 and ≥ 0.05 at every k ≥ 64 ("
    + MARGIN_READING
    + "); FAIL when the bound misses either at any k. Never INCONCLUSIVE. Deciding statistic: "
    "min over k of (bound − required), PASS iff ≥ 0.",
    stochastic=True,
    statistic="tightest_bound_minus_required",
    history=[
        _one_problem_set("PASS (quick: mean − 3 s.e. ≥ .071 at every k; ≥ .05 needed for k ≥ 64)"),
        _five_seeds(
            "PASS (quick, 3 seeds: mean − 3 s.e. ≥ .034 at every k (tightest at k = 4), "
            "≥ .05 at every k ≥ 64)"
        ),
    ],
)
def toy_distillation_expands(
    ctx: Context, *, student_arm: str = "distill", task: Callable | None = None
) -> CheckResult:
    """SNR = 0: the lower bound over seeds of pass@k(distilled) − pass@k(base) is ≥ 0 at every
    k = 1..1024 and ≥ 0.05 at every k ≥ 64. ``task`` replaces ``toy_arms_task`` (same record
    format), e.g. to hand the claim a student with a known gain."""
    records = _runs(ctx, task=task)
    delta = np.asarray(
        [
            _curve(r["result"]["test"][student_arm]) - _curve(r["result"]["test"]["base"])
            for r in records
        ]
    )  # (seeds, K)
    bounds = np.array([lower_bound(delta[:, j]) for j in range(KS.size)])
    need = np.where(KS >= 64, DISTILL_GAIN_LARGE_K, 0.0)
    passed = bool(np.all(bounds >= need))
    hard = np.asarray(records[0]["result"]["hard_test"], bool)
    test0 = records[0]["result"]["test"]

    fig, (ax, ax_d) = new_figure(ncols=2)
    shown = ("base", RL_ARM, "distill", "distill_grpo", student_arm)
    curves = {arm: _curve(test0[arm]) for arm in dict.fromkeys(shown) if arm in test0}
    plot_pass_at_k(KS, curves, ax=ax)
    ax.set_title("exact pass@k, seed 0, SNR = 0", fontsize="small")
    for row in delta:
        ax_d.plot(KS, row, "o", mfc="none", ms=3.5, color="C0")
    ax_d.plot(KS, bounds, "-", color="C0", label="mean − 3 s.e. (measured)")
    ax_d.step(KS, need, where="mid", color=THEORY, ls="--", label="spec margin")
    ax_d.set_xscale("log", base=2)
    ax_d.set_xlabel("k")
    ax_d.set_ylabel(f"pass@k({student_arm}) − pass@k(base)")
    ax_d.legend(fontsize="small")
    worst = int(np.argmin(bounds - need))
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"distill − base: pass@1 {delta[:, 0].mean():+.3f}, pass@256 "
        f"{delta[:, 8].mean():+.3f}, pass@1024 {delta[:, 10].mean():+.3f}; tightest bound "
        f"{bounds[worst]:.3f} at k = {KS[worst]} (need ≥ {need[worst]:g}); {len(records)} seeds",
        measured={
            "delta_mean": delta.mean(axis=0),
            "delta_lower_bound": bounds,
            "tightest_bound_minus_required": float(bounds[worst] - need[worst]),
            "pass1_distill": float(curves["distill"][0]),
            "pass256_distill": float(curves["distill"][8]),
            "hard_solved_exact_p_mean": float(test0[student_arm][hard].mean()),
            "seeds": len(records),
        },
        expected={"k": KS, "delta_lower_bound": need},
        tolerance="mean − 3 s.e. of the gain ≥ 0 at every k and ≥ "
        f"{DISTILL_GAIN_LARGE_K} for k ≥ 64",
        figures=ctx.save_figure(fig),
        arrays={"k": KS, "delta": delta},
    )


# -------------------------------------------------------------------- controls do not cross
@claim(
    "rlvr.toy_controls_do_not_cross",
    paper="rlvr",
    statement="Without parameter sharing (per-problem tabular logits) GRPO does not cross below "
    "the base, and neither does the exact KL-tilt of the base's success probabilities.",
    source=SOURCE + " (assertion 6) and §3 (exact tilt)",
    rule="PASS when, on the training problems (SNR 0), pass@k(tabular GRPO) − pass@k(base) has "
    "no downward crossing on k = 1..1024 for any of the 5 seeds, no problem loses ≥ 10% of its "
    "base p (max relative loss < 0.10), and the exact tilt of the base p (β ∈ {0.1, 0.3, 1, 3, "
    "10}) has no downward crossing; FAIL when any control crosses or any problem loses ≥ 10%. "
    "Never INCONCLUSIVE.",
    stochastic=True,
    statistic="max_relative_loss_of_p",
    history=[
        _one_problem_set(
            "PASS (quick: no tabular crossing in 3 seeds, no problem loses any p; 0/15 tilts cross)"
        ),
        _five_seeds(
            "PASS (quick, 3 seeds: no tabular crossing, no problem loses any p; 0/15 tilts cross)"
        ),
    ],
)
def toy_controls_do_not_cross(
    ctx: Context,
    *,
    control_arm: str = "tabular",
    tilt: Callable = passk.tilt,
) -> CheckResult:
    """SNR = 0, on the training problems: Δ(k) = pass@k(control) − pass@k(base) has no downward
    crossing on k = 1..1024 for any seed, and no problem loses ≥ 10% of its p; the tilt of the
    base p (β ∈ {0.1, 0.3, 1, 3, 10}) has no downward crossing either."""
    records = _runs(ctx)
    betas = (0.1, 0.3, 1.0, 3.0, 10.0)
    tab_cross, tilt_cross, max_loss, deltas = [], [], 0.0, []
    for r in records:
        train = r["result"]["train"]
        p, q = train["base"], train[control_arm]
        base = _curve(p, KS_FINE)
        deltas.append(_curve(q, KS_FINE) - base)
        tab_cross.append(passk.crossing_k(KS_FINE, base, _curve(q, KS_FINE)).k_star)
        solvable = p > 0
        max_loss = max(max_loss, float(np.max(1 - q[solvable] / p[solvable])))
        for beta in betas:
            tilted = _curve(np.asarray(tilt(p, beta)), KS_FINE)
            tilt_cross.append(passk.crossing_k(KS_FINE, base, tilted).k_star)
    crossed_tab = [k for k in tab_cross if k is not None]
    crossed_tilt = [k for k in tilt_cross if k is not None]
    passed = not crossed_tab and not crossed_tilt and max_loss < 0.10

    fig, (ax, ax_p) = new_figure(ncols=2)
    d = np.asarray(deltas)
    ax.plot(KS_FINE, d.T, "-", color="C0", lw=1)
    ax.plot([], [], "-", color="C0", label=f"{control_arm} − base (measured, per seed)")
    p0 = records[0]["result"]["train"]["base"]
    for beta in (0.3, 1.0):
        ax.plot(
            KS_FINE,
            _curve(np.asarray(tilt(p0, beta)), KS_FINE) - _curve(p0, KS_FINE),
            ":",
            color=THEORY,
            label=f"exact tilt β={beta:g} − base (theory)",
        )
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k")
    ax.set_ylabel("Δ pass@k (training problems)")
    ax.legend(fontsize=6)
    q0 = records[0]["result"]["train"][control_arm]
    keep = p0 > 0
    ax_p.loglog(p0[keep], q0[keep], ".", ms=3, label=f"{control_arm} (seed 0)")
    line = np.array([p0[keep].min(), 1.0])
    ax_p.loglog(line, line, "-", color=THEORY, lw=0.8, label="q = p")
    ax_p.loglog(line, 0.9 * line, "--", color=THEORY, lw=0.8, label="q = 0.9 p (10% lost)")
    ax_p.set_xlabel("base p")
    ax_p.set_ylabel("control q")
    ax_p.legend(fontsize="small")
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"{control_arm}: {len(crossed_tab)}/{len(tab_cross)} seeds cross, max loss of p "
        f"{max_loss:.3f} (< 0.10); tilt: {len(crossed_tilt)}/{len(tilt_cross)} cross; "
        f"train pass@1 {np.mean([_curve(r['result']['train']['base'])[0] for r in records]):.3f} "
        f"→ {np.mean([_curve(r['result']['train'][control_arm])[0] for r in records]):.3f}",
        measured={
            "control_crossings": list(tab_cross),
            "tilt_crossings": len(crossed_tilt),
            "max_relative_loss_of_p": max_loss,
            "min_delta": float(d.min()),
            "seeds": len(records),
        },
        expected={
            "control_crossings": "none",
            "tilt_crossings": 0,
            "max_relative_loss_of_p": "< 0.1",
        },
        tolerance="no downward crossing of pass@k(control) − pass@k(base) on k = 1..1024 for "
        "every seed (tabular) and β (tilt); every problem keeps > 90% of its base p",
        figures=ctx.save_figure(fig),
        arrays={"k": KS_FINE, "delta": d},
    )


# ------------------------------------------------------------------------- slope prediction
@claim(
    "rlvr.toy_slope_prediction",
    paper="rlvr",
    statement="Fitting p ~ Beta(a, b) to the base model and logit q = α·logit p + β to the "
    "per-problem change predicts the failure-rate slopes of base and RL on log–log axes.",
    source="rlvr.md §3 (logit-affine model: slopes −a and −a/α) applied to Arm A (§4)",
    rule="PASS when, for every one of the 5 seeds (SNR 0, base-feasible test problems p ≥ 1e-4), "
    "the measured log–log slopes of 1 − pass@k on k ∈ [4, 64] for base and RL (GRPO 400) are "
    "both within 20% of the slopes of the fitted model (Beta(a, b) by maximum likelihood, "
    "logit q = α·logit p + β by least squares); FAIL when any relative error is > 0.20. Never "
    "INCONCLUSIVE.",
    stochastic=True,
    statistic="max_slope_rel_error",
    history=[
        _one_problem_set("FAIL (quick: base slope −0.87 vs model −1.19, RL −0.23 vs −0.60)"),
        _five_seeds("FAIL (quick, 3 seeds: base slope −0.77 vs model −1.11, RL −0.26 vs −0.57)"),
    ],
)
def toy_slope_prediction(
    ctx: Context, *, rl_arm: str = RL_ARM, task: Callable | None = None
) -> CheckResult:
    """SNR = 0, problems the base solves at a feasible budget (p ≥ 1e-4): fit Beta(a, b) by
    maximum likelihood and (α, β) by least squares of logit q on logit p; the model's
    failure-rate curves (``beta_pass_at_k``, ``beta_logit_affine_pass_at_k``) give predicted
    log–log slopes on k ∈ [4, 64]; the measured (exact) slopes of base and RL on the same
    problems must be within 20% of them, for every seed. ``task`` replaces ``toy_arms_task``
    (same record format), e.g. to hand the claim a world that follows the model.

    Reported, not part of the verdict: (α, β) refitted on the low-p tail (p < ``TAIL_P``) and on
    the bulk. §3's slope −a/α comes from q ≈ e^β p^α as p → 0, so the tail's α is the one that
    sets the large-k slope; a tail α near 1 with β < 0 means RL scales the rare problems' p
    down by a constant factor (§3's two-type picture) instead of raising it to a power."""
    records = _runs(ctx, task=task)
    rows = []
    for r in records:
        test = r["result"]["test"]
        keep = test["base"] >= FEASIBLE_P
        p, q = test["base"][keep], test[rl_arm][keep]
        a, b, _, _ = stats.beta.fit(p, floc=0, fscale=1)
        fit = logit_map(p, q)
        alpha, beta = fit["alpha"], fit["beta"]
        curves = {
            "base": 1 - _curve(p),
            "rl": 1 - _curve(q),
            "model_base": 1 - passk.beta_pass_at_k(a, b, KS),
            "model_rl": 1 - passk.beta_logit_affine_pass_at_k(a, b, alpha, beta, KS),
        }
        slopes = {
            k: fit_power_law(KS, v, window=SLOPE_WINDOW, n_boot=0).exponent
            for k, v in curves.items()
        }
        rows.append({"a": a, "b": b, **fit, "curves": curves, **slopes})
    err = {arm: [abs(r[arm] / r[f"model_{arm}"] - 1) for r in rows] for arm in ("base", "rl")}
    passed = max(err["base"]) <= SLOPE_RTOL and max(err["rl"]) <= SLOPE_RTOL

    fig, (ax, ax_m) = new_figure(ncols=2)
    r0 = rows[0]
    for j, arm in enumerate(("base", "rl")):
        ax.loglog(
            KS,
            r0["curves"][arm],
            "o",
            mfc="none",
            ms=3.5,
            color=f"C{j}",
            label=f"{arm} (measured), slope {r0[arm]:.3f}",
        )
        ax.loglog(
            KS,
            r0["curves"][f"model_{arm}"],
            "-",
            color=f"C{j}",
            lw=1,
            label=f"fitted model (theory), slope {r0[f'model_{arm}']:.3f}",
        )
    ax.axvspan(*SLOPE_WINDOW, color="0.93")
    ax.set_xlabel("k")
    ax.set_ylabel("1 − pass@k (base-feasible problems)")
    ax.legend(fontsize=6)
    test0 = records[0]["result"]["test"]
    plot_logit_map(ax_m, test0["base"], test0[rl_arm], r0, rl_arm)
    mean = {
        k: float(np.mean([r[k] for r in rows]))
        for k in ("base", "rl", "model_base", "model_rl", "a", "alpha")
    }
    mean |= {
        k: float(np.nanmean([r[k] for r in rows]))
        if np.any(np.isfinite([r[k] for r in rows]))
        else float("nan")
        for k in ("alpha_tail", "beta_tail", "alpha_bulk")
    }
    return CheckResult(
        verdict=Verdict.of(passed),
        summary=f"slopes on k ∈ [4, 64]: base {mean['base']:.3f} vs model {mean['model_base']:.3f}, "
        f"RL {mean['rl']:.3f} vs model {mean['model_rl']:.3f} (fitted a = {mean['a']:.2f}, "
        f"α = {mean['alpha']:.2f}); max relative error base {max(err['base']):.2f}, RL "
        f"{max(err['rl']):.2f} (≤ {SLOPE_RTOL}); reported: measured slope ratio base/RL "
        f"{mean['base'] / mean['rl']:.2f} vs α (§3: RL shallower by α); tail (p < {TAIL_P:g}) "
        f"α = {mean['alpha_tail']:.2f}, β = {mean['beta_tail']:.2f}, bulk α = "
        f"{mean['alpha_bulk']:.2f}",
        measured={
            "slope_base": [r["base"] for r in rows],
            "slope_rl": [r["rl"] for r in rows],
            "max_slope_rel_error": float(max(*err["base"], *err["rl"])),
            "slope_ratio_base_over_rl": [r["base"] / r["rl"] for r in rows],
            "fit_a": [r["a"] for r in rows],
            "fit_b": [r["b"] for r in rows],
            "fit_alpha": [r["alpha"] for r in rows],
            "fit_beta": [r["beta"] for r in rows],
            "tail_alpha": [r["alpha_tail"] for r in rows],
            "tail_beta": [r["beta_tail"] for r in rows],
            "bulk_alpha": [r["alpha_bulk"] for r in rows],
            "tail_problems": [r["n_tail"] for r in rows],
            "seeds": len(rows),
        },
        expected={
            "slope_base": [r["model_base"] for r in rows],
            "slope_rl": [r["model_rl"] for r in rows],
            "asymptotic_slopes": [[-r["a"], -r["a"] / r["alpha"]] for r in rows],
            "slope_ratio_base_over_rl": [r["alpha"] for r in rows],
        },
        tolerance=f"measured slopes within {SLOPE_RTOL:.0%} of the fitted model's on k ∈ "
        f"{SLOPE_WINDOW}, every seed",
        figures=ctx.save_figure(fig),
        arrays={"k": KS, **{f"seed0_{k}": v for k, v in r0["curves"].items()}},
    )


# ------------------------------------------------------------------ Arm B: tiny transformer
def kl_large_k_reading(low: float, high: float) -> str:
    """The KL ablation against the paper (rlvr.md §2: KL = 0.001 gives lower pass@128) from the
    95% CI [low, high] of pass@K(GRPO + KL) − pass@K(GRPO) at the large k, K."""
    if high < 0:
        return "KL lowers large-k coverage, as in the paper"
    if low > 0:
        return "KL raises large-k coverage, unlike the paper"
    return "no resolved KL effect at large k (paper: KL lower)"


N_BOOT = 2000
ARM_B_LARGE_K = 256  # with exact p: judged at pass@256 (rlvr.md §4 assertion 2; the paper's ΔSE)
BASE_ABOVE_CHANCE = 0.10  # gate: base pass@1 ≥ chance + 0.10 and ≥ 3 × chance before RL counts


@claim(
    "rlvr.transformer_crossing",
    paper="rlvr",
    statement="On a tiny path-finding transformer, GRPO raises pass@1 but loses at large k, while "
    "distillation from a teacher using edges the base never saw gains at large k.",
    source="rlvr.md §4 (Arm B) and §6 (paired bootstrap over problems; n ≥ 4k); KL ablation: "
    "§2 (KL = 0.001: similar pass@1, lower pass@128)",
    rule="INCONCLUSIVE only when the scale is too small for the base to learn: base pass@1 < "
    "max(chance + 0.10, 3 × chance) (RL is then not interpreted). Otherwise PASS when the 95% "
    "paired-bootstrap CIs over the pooled test prompts of pass@1(RL) − pass@1(base), "
    "pass@256(base) − pass@256(RL) and pass@256(distill) − pass@256(base) all lie above 0; FAIL "
    "when any of the three CIs reaches 0 or below. Deciding statistic: the smallest of the three "
    "CI lower ends, PASS iff > 0.",
    stochastic=True,
    statistic="min_ci_low",
    history=[
        HistoryEntry(
            date="2026-11-30",
            change="large k moved from 64 to 256: exact p per prompt by enumerating edge paths, "
            "exact pass@k to k = 1024, judged at k = 1 and 256; before, the n = 256 estimator "
            "judged at k = n/4 = 64",
            reason="rlvr.md §4 assertion 2 is at pass@256 and §4 says to compute p exactly by "
            "enumeration when the output space is small; k = 64 was a limit of the estimator "
            "(n ≥ 4k, §6), not of the claim",
            before="FAIL (quick, 1 seed: base − RL at k = 64 CI [−.04, .00])",
        ),
        HistoryEntry(
            date="2026-11-30",
            change="seeds 1 → 3 at quick and 3 → 8 at full (prompts of all seeds pooled)",
            reason="the project's ≥ 3 seeds per stochastic claim; one seed's 276 prompts gave "
            "wide CIs at k = 256",
            before="FAIL (quick, 1 seed: base − RL at k = 256 CI [−.033, −.001], RL above the "
            "base; full, 3 seeds: pooled k* ≈ 95)",
        ),
    ],
)
def transformer_crossing(
    ctx: Context,
    *,
    rl_arm: str = "rl",
    params: dict | None = None,
    task: Callable | None = None,
) -> CheckResult:
    """Arm B (``neural.rlvr_transformer``): per test prompt, the exact success probability p of
    base, GRPO and distilled models (enumeration of edge paths, rlvr.md §4: "compute p exactly by
    enumeration when the output space is small") and n = 256 samples; per-problem exact pass@k
    for k ≤ 1024, judged at k = 1 and k = 256 (records without p, from older runs: the unbiased
    estimator for k ≤ n/4, judged at k = n/4), pooled over seeds (problems of different seeds
    are distinct). Gate: the base's pass@1 must be ≥ chance + 0.10 and ≥ 3 × chance (uniform
    random nodes), else INCONCLUSIVE. Then PASS when the 95% paired-bootstrap CIs over problems
    show pass@1(RL) > pass@1(base), pass@K(base) > pass@K(RL) and pass@K(distill) > pass@K(base)
    at the large k, K. ``task`` replaces ``arm_b_task`` (same record
    format), e.g. to hand the claim synthetic counts.

    Reported, not part of the verdict: per-problem accuracy histograms and the Venn counts of
    the solved sets of base, RL and distillation (rlvr.md §1, §2), and the KL ablation: GRPO with
    a KL penalty of 0.001 to the base (arm ``rl_kl``) against GRPO without, paired-bootstrap CIs
    of the differences at k = 1 and the large k (paper, §2: similar pass@1, lower pass@128); with
    exact p, RL's logit map fitted to the pooled prompts (``logit_map``: §3's α and β overall and
    on the low-p tail, which set whether a crossing can happen)."""
    import importlib.util

    if task is None and importlib.util.find_spec("torch") is None:
        return CheckResult(
            verdict=Verdict.INCONCLUSIVE,
            summary="torch is not installed (pip install -e '.[neural]'); Arm B not run",
            measured={},
            expected={},
            tolerance="needs torch",
        )
    if task is None:
        from neural.rlvr_transformer import arm_b_task as task

    run_params = {**(params or {}), "gate_margin": BASE_ABOVE_CHANCE}
    records = ctx.sweep(task, [run_params], name="arm_b", n_seeds=ctx.pick(quick=3, full=8))
    res = [r["result"] for r in records]
    n = int(res[0]["n"])
    chance = np.concatenate([np.asarray(r["chance_pass1"], float) for r in res])
    base_counts = np.concatenate([np.asarray(r["counts"]["base"], np.int64) for r in res])
    base_pass1, chance_pass1 = float(base_counts.mean() / n), float(chance.mean())
    skipped = [i for i, r in enumerate(res) if rl_arm not in r["counts"]]
    if skipped or not base_learned(base_pass1, chance_pass1, run_params["gate_margin"]):
        return CheckResult(
            verdict=Verdict.INCONCLUSIVE,
            summary=f"base never learned: pass@1 {base_pass1:.3f} vs chance {chance_pass1:.3f} "
            f"(gate: ≥ chance + {run_params['gate_margin']:g} and ≥ 3 × chance); RL not run or "
            f"not interpreted ({len(skipped)}/{len(res)} seeds skipped RL)",
            measured={"base_pass1": base_pass1, "chance_pass1": chance_pass1, "seeds": len(res)},
            expected={
                "gate": f"base pass@1 ≥ max(chance + {run_params['gate_margin']:g}, 3 × chance)"
            },
            tolerance="RL is run and judged only above the gate",
        )
    kl_arm = "rl_kl" if all("rl_kl" in r["counts"] for r in res) else None
    arms = ("base", rl_arm, "distill", *([kl_arm] if kl_arm else []))
    counts = {
        arm: np.concatenate([np.asarray(r["counts"][arm], np.int64) for r in res]) for arm in arms
    }
    needs_hidden = np.concatenate([np.asarray(r["needs_hidden"], bool) for r in res])
    sampled_ks = 2 ** np.arange(int(np.log2(n // 4)) + 1)  # k ≤ n/4 (rlvr.md §6: n ≥ 2–4× k)
    sampled = {
        arm: np.stack([passk.pass_at_k(np.full(c.size, n), c, int(k)) for k in sampled_ks], axis=1)
        for arm, c in counts.items()
    }  # arm -> (P, K) per-problem unbiased estimates
    exact = all("p" in r for r in res)
    if exact:  # exact p by enumeration (rlvr.md §4): pass@k at any k, judged at k = 256
        ks, k_large = KS, ARM_B_LARGE_K
        probs = {arm: np.concatenate([np.asarray(r["p"][arm], float) for r in res]) for arm in arms}
        est = {
            arm: np.stack([passk.pass_at_k_exact(p, int(k)) for k in ks], axis=1)
            for arm, p in probs.items()
        }  # arm -> (P, K) per-problem exact pass@k
        estimator_gap = max(
            float(np.max(np.abs(sampled[a].mean(axis=0) - est[a][:, : sampled_ks.size].mean(0))))
            for a in arms
        )
        rl_map = logit_map(probs["base"], probs[rl_arm])
    else:  # counts only (older runs): the estimator, k ≤ n/4
        ks, est, estimator_gap, rl_map = sampled_ks, sampled, None, None
        k_large = int(ks[-1])
    j = int(np.flatnonzero(ks == k_large)[0])
    curves = {arm: e.mean(axis=0) for arm, e in est.items()}
    rng = ctx.rng("bootstrap")
    ci = {
        "pass1_gain": paired_mean_ci(
            est[rl_arm][:, 0] - est["base"][:, 0], rng, n_boot=N_BOOT, level=0.95
        ),
        "large_k_loss": paired_mean_ci(
            est["base"][:, j] - est[rl_arm][:, j], rng, n_boot=N_BOOT, level=0.95
        ),
        "distill_gain": paired_mean_ci(
            est["distill"][:, j] - est["base"][:, j], rng, n_boot=N_BOOT, level=0.95
        ),
    }
    kl_ci = (
        {
            "pass1": paired_mean_ci(
                est[kl_arm][:, 0] - est[rl_arm][:, 0], rng, n_boot=N_BOOT, level=0.95
            ),
            "pass_k_large": paired_mean_ci(
                est[kl_arm][:, j] - est[rl_arm][:, j], rng, n_boot=N_BOOT, level=0.95
            ),
        }
        if kl_arm
        else {}
    )
    cross = passk.crossing_k(ks, curves["base"], curves[rl_arm])
    seed_of = np.concatenate([np.full(len(r["counts"]["base"]), i) for i, r in enumerate(res)])
    seed_k_star = [
        passk.crossing_k(
            ks, est["base"][seed_of == i].mean(axis=0), est[rl_arm][seed_of == i].mean(axis=0)
        ).k_star
        for i in range(len(res))
    ]
    solved = {arm: int(np.sum(c > 0)) for arm, c in counts.items()}
    venn = solved_regions({arm: counts[arm] for arm in ("base", rl_arm, "distill")})
    hist = {arm: accuracy_histogram(c, n) for arm, c in counts.items()}
    hidden_solved = {arm: int(np.sum(c[needs_hidden] > 0)) for arm, c in counts.items()}
    failed = [name for name, (low, _) in ci.items() if low <= 0]
    why = "all three shapes hold" if not failed else f"CI includes 0 for: {', '.join(failed)}"
    files = [
        write_sample_file(
            ctx.out_dir / "samples" / f"{ctx.claim_id}.seed{seed}.{arm}.csv",
            [f"s{seed}-{s}-{g}" for s, g in np.asarray(r["test"])],
            np.full(len(r["test"]), n),
            np.asarray(r["counts"][arm]),
        )
        for seed, r in enumerate(res)
        for arm in counts
    ]

    fig, ((ax, ax_k, ax_d), (ax_h, ax_v, ax_m)) = new_figure(ncols=3, nrows=2)
    guess = np.array([np.mean(passk.pass_at_k_exact(chance, int(k))) for k in ks])
    shown = {"base": curves["base"], f"GRPO ({rl_arm})": curves[rl_arm]}
    shown |= {"distill": curves["distill"]}
    shown |= {"GRPO + KL 0.001": curves[kl_arm]} if kl_arm else {}
    plot_pass_at_k(ks, shown, theory={"guessing baseline": guess}, crossing=cross.k_star, ax=ax)
    ax.legend(fontsize="small", loc="center right")  # clear of the curves' low-k start
    how = (
        f"exact p (enumeration); n = {n} estimator within {estimator_gap:.3f} for k ≤ {n // 4}"
        if exact
        else f"n = {n} estimator"
    )
    ax.set_title(f"{chance.size} test prompts, {len(res)} seed(s); {how}", fontsize=6)
    for i in range(len(res)):
        mine = seed_of == i
        delta = est[rl_arm][mine].mean(axis=0) - est["base"][mine].mean(axis=0)
        ax_k.plot(ks, delta, "-", lw=0.8, color="0.6", label="per seed" if i == 0 else None)
    ax_k.plot(ks, curves[rl_arm] - curves["base"], "o-", ms=3, color="C1", label="pooled")
    ax_k.axhline(0, color=THEORY, lw=0.8)
    ax_k.axvline(k_large, color="0.4", ls=":", lw=1, label=f"judged at k = {k_large}")
    ax_k.set_xscale("log", base=2)
    ax_k.set_xlabel("k")
    ax_k.set_ylabel(f"pass@k({rl_arm}) − pass@k(base), zoomed to ±0.05")
    ax_k.set_ylim(-0.05, 0.05)
    ax_k.legend(fontsize="small")
    if rl_map:
        plot_logit_map(ax_m, probs["base"], probs[rl_arm], rl_map, f"GRPO ({rl_arm})")
    else:
        ax_m.set_axis_off()
        ax_m.text(0.5, 0.5, "no exact p in these records", ha="center", fontsize="small")
    for i, (label, (low, high)) in enumerate(ci.items()):
        mid = {
            "pass1_gain": curves[rl_arm][0] - curves["base"][0],
            "large_k_loss": curves["base"][j] - curves[rl_arm][j],
            "distill_gain": curves["distill"][j] - curves["base"][j],
        }[label]
        ax_d.errorbar([i], [mid], yerr=[[mid - low], [high - mid]], fmt="o", capsize=4)
    ticks = ["pass@1 gain", f"base − RL, k={k_large}", f"distill − base, k={k_large}"]
    for i, (label, (low, high)) in enumerate(kl_ci.items()):
        col = 0 if label == "pass1" else j
        mid = curves[kl_arm][col] - curves[rl_arm][col]
        ax_d.errorbar([3 + i], [mid], yerr=[[mid - low], [high - mid]], fmt="s", capsize=4)
        ticks.append(f"KL − no KL, k={ks[col]} (reported)")
    ax_d.axhline(0, color=THEORY, lw=0.8, label="claim: CI above 0")
    ax_d.set_xticks(range(len(ticks)), ticks, fontsize=6, rotation=20)
    ax_d.set_ylabel("difference (95% paired bootstrap CI)")
    ax_d.legend(fontsize="small")
    width = 0.8 / len(hist)
    for i, (arm, h) in enumerate(hist.items()):
        ax_h.bar(np.arange(12) + (i - (len(hist) - 1) / 2) * width, h, width, label=arm)
    labels = ["0", *[f"{i / 10:.1f}" for i in range(1, 11)], "1"]
    ax_h.set_xticks(range(12), labels, fontsize=6)
    ax_h.set_xlabel(f"per-problem accuracy c/{n} (upper bin edge)")
    ax_h.set_ylabel("test prompts")
    ax_h.legend(fontsize="small")
    ax_v.bar(range(len(venn)), list(venn.values()), color="C0")
    ax_v.set_xticks(range(len(venn)), list(venn), fontsize=6, rotation=30)
    ax_v.set_yscale("symlog")
    ax_v.set_ylabel(f"test prompts solved (c > 0), {len(res)} seed(s)")
    for i, v in enumerate(venn.values()):
        ax_v.annotate(str(v), (i, v), ha="center", va="bottom", fontsize=6)
    kl_reading = kl_large_k_reading(*kl_ci["pass_k_large"]) if kl_arm else None
    kl_text = (
        f"; reported KL 0.001 − no KL: pass@1 CI [{kl_ci['pass1'][0]:+.3f}, "
        f"{kl_ci['pass1'][1]:+.3f}], pass@{k_large} CI [{kl_ci['pass_k_large'][0]:+.3f}, "
        f"{kl_ci['pass_k_large'][1]:+.3f}]: {kl_reading}"
        if kl_arm
        else ""
    )
    map_text = (
        f"; reported: RL's logit map α = {rl_map['alpha']:.2f}, β = {rl_map['beta']:+.2f} (tail "
        f"p < {TAIL_P:g}, {rl_map['n_tail']} prompts: α = {rl_map['alpha_tail']:.2f}, β = "
        f"{rl_map['beta_tail']:+.2f}, prompts below p* = {rl_map['fixed_point_tail']:.1e} lose "
        "p; §3: a crossing needs α > 1 or β < 0 on the tail)"
        if rl_map
        else ""
    )
    return CheckResult(
        verdict=Verdict.of(not failed),
        summary=f"{why}; pass@1 base/RL/distill {curves['base'][0]:.3f}/{curves[rl_arm][0]:.3f}/"
        f"{curves['distill'][0]:.3f}, pass@{k_large} {curves['base'][j]:.3f}/"
        f"{curves[rl_arm][j]:.3f}/{curves['distill'][j]:.3f}, pass@{ks[-1]} "
        f"{curves['base'][-1]:.3f}/{curves[rl_arm][-1]:.3f}/{curves['distill'][-1]:.3f}; k* = "
        f"{'none' if cross.k_star is None else f'{cross.k_star:.2f}'}; {len(res)} seed(s); {how}"
        + kl_text
        + map_text,
        measured={
            "k": ks,
            "k_large": k_large,
            "exact_p": exact,
            "estimator_max_abs_gap": estimator_gap,
            **{f"pass_at_k_{arm}": v for arm, v in curves.items()},
            "chance_pass1": chance_pass1,
            "ci": ci,
            "min_ci_low": float(min(low for low, _ in ci.values())),
            "k_star": cross.k_star,
            "k_star_per_seed": seed_k_star,
            "solved": solved,
            "solved_venn": venn,
            "accuracy_histogram": {a: h.tolist() for a, h in hist.items()},
            "kl_ablation_ci": kl_ci,
            "kl_ablation_reading": kl_reading,
            "rl_logit_map": rl_map,
            "solved_needing_hidden_edges": hidden_solved,
            "prompts_needing_hidden_edges": int(needs_hidden.sum()),
            "base_loss_last": float(res[0]["base_loss"][-1]),
            "rl_reward_last": float(res[0]["rl_reward"][-1]),
            "sample_files": [str(f.relative_to(ctx.out_dir)) for f in files],
            "seeds": len(res),
        },
        expected={
            "gate": f"base pass@1 ≥ max(chance + {BASE_ABOVE_CHANCE}, 3 × chance)",
            "ci_low": "> 0 for pass1_gain, large_k_loss, distill_gain",
        },
        tolerance="95% paired-bootstrap CIs over problems exclude 0 in the stated direction, at "
        f"k = 1 and k = {k_large}",
        figures=ctx.save_figure(fig),
        arrays={"k": ks, **{f"counts_{a}": c for a, c in counts.items()}, "chance": chance},
    )
