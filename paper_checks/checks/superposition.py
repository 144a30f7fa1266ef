"""Claims of "Superposition Yields Robust Neural Scaling" (Liu, Liu & Gore, NeurIPS 2025).

Spec: ``shared/papers/superposition.md``. K0 (geometry and gradient), Q1–Q3 (quick toy-model
sweeps at n = 400), F1–F4 (full-scale sweeps; INCONCLUSIVE "full scale only" at quick scale) and
the LLM arithmetic of §5. Every size, fit window and tolerance below is fixed before the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from paper_checks.claims import HistoryEntry, claim
from paper_checks.context import Context
from paper_checks.plotting import THEORY, new_figure
from paper_checks.results import CheckResult, Verdict
from sims.superposition import SparseBatch, loss_and_grad, sample_batch, train_task
from theory import superposition as theory
from theory.fits import PowerLawFit, fit_power_law

PAPER = "superposition"

#: Quick sweeps (spec §5 Q1–Q3): n, batch, steps, peak lr, warm-up share and the width ladder.
QUICK = {"n": 400, "batch": 512, "steps": 4000, "lr": 1e-2, "warmup_fraction": 0.1}
QUICK_WIDTHS = (6, 9, 14, 20, 30, 40)
#: The reference widths floor(exp(linspace(ln 10, ln 100, 6))) at n = 1000 (spec §1).
REFERENCE_WIDTHS = (10, 15, 25, 39, 63, 100)
FULL_N1000 = {"n": 1000, "batch": 512, "steps": 6000, "lr": 1e-2, "warmup_fraction": 0.1}
#: ``--scale paper``: the authors' small sweeps (``exp-10``, ``exp-15``; spec §1) train every
#: model on batch 2048 for 20,000 steps (warm-up 2000 = 10%, lr 1e-2 shared by W and b). These
#: replace batch and steps of every training claim; n, widths, α, γ and fit windows stay.
PAPER_RUN = {"batch": 2048, "steps": 20_000}
STRONG_GAMMA = -1.0
WEAK_GAMMA = 0.1
N_BOOT = 1000
FULL_ONLY = "full scale only (run with --scale full)"
FULL_ONLY_RULE = (
    "INCONCLUSIVE only at quick scale, by declaration: quick is too small for this sweep, which "
    "runs at full (and paper) scale only."
)


# ----------------------------------------------------------------------------------- helpers
def _at_scale(ctx: Context, sizes: dict[str, Any]) -> dict[str, Any]:
    """``sizes`` with the paper's batch and steps at ``--scale paper`` (unchanged otherwise)."""
    return {**sizes, **ctx.pick(quick={}, full={}, paper=PAPER_RUN)}


def _aligned_schedule(before: str) -> HistoryEntry:
    """The history entry of every training claim for the schedule alignment of issue 19."""
    return HistoryEntry(
        date="2026-12-01",
        change="schedule aligned with the authors' get_lr (one step); the data stream is drawn "
        "in 500-step segments, each from its own seed (so that a killed run resumes "
        "bit-identically from its checkpoint)",
        reason="issue 19: our cosine ran one step behind exp-10's get_lr (η_t = get_lr(t + 1) "
        "of ours); --scale paper needs resumable 20,000-step tasks",
        before=before,
    )


def _ladder_tasks(
    widths: Sequence[int], gammas: Sequence[float], split_at: int | None, **common: Any
) -> list[dict[str, Any]]:
    """Sweep parameters for every (m, γ) pair: one task, or two (widths below ``split_at`` and
    the rest) so that small and large widths are not padded to the same max m."""
    pairs = [(m, g) for g in gammas for m in widths]
    groups = (
        [pairs]
        if split_at is None
        else [
            [pg for pg in pairs if pg[0] < split_at],
            [pg for pg in pairs if pg[0] >= split_at],
        ]
    )
    return [
        {**common, "widths": [m for m, _ in grp], "gammas": [g for _, g in grp]}
        for grp in groups
        if grp
    ]


def _models(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every trained model of a sweep, with its task's α, E and seed index attached."""
    return [
        {
            **model,
            "alpha": record["params"].get("alpha", 1.0),
            "density": record["params"].get("density", 1.0),
            "seed": record["seed_index"],
        }
        for record in records
        for model in record["result"]["models"]
    ]


def _select(models: list[dict[str, Any]], **where: Any) -> list[dict[str, Any]]:
    """The models matching every ``key=value``, sorted by width."""
    chosen = [m for m in models if all(np.isclose(m[k], v) for k, v in where.items())]
    return sorted(chosen, key=lambda m: m["m"])


def _fit(models: list[dict[str, Any]], window: tuple[float, float], rng: Any) -> PowerLawFit:
    widths = np.array([m["m"] for m in models], dtype=float)
    losses = np.array([m["loss"] for m in models])
    return fit_power_law(widths, losses, window=window, n_boot=N_BOOT, rng=rng)


def _strong_ladder(
    ctx: Context,
    widths: Sequence[int],
    split_at: int,
    sizes: dict[str, Any],
    window: tuple[float, float],
) -> tuple[list[dict[str, Any]], PowerLawFit]:
    """Train the strong-regime (γ = −1, α = 1) width ladder and fit L ∝ m^−α_m on ``window``."""
    records = ctx.sweep(
        train_task,
        _ladder_tasks(widths, [STRONG_GAMMA], split_at, alpha=1.0, **_at_scale(ctx, sizes)),
        name="ladder",
    )
    models = _select(_models(records))
    return models, _fit(models, window, ctx.rng("fit"))


def _plot_loss_vs_m(ax: Any, curves: dict[str, tuple[list[dict[str, Any]], PowerLawFit]]) -> None:
    """Loss against m (log-log) with each fitted power law."""
    for i, (label, (models, fit)) in enumerate(curves.items()):
        widths = np.array([m["m"] for m in models], dtype=float)
        ax.loglog(widths, [m["loss"] for m in models], "o", color=f"C{i}", mfc="none", label=label)
        ax.loglog(
            widths,
            fit.prefactor * widths**fit.exponent,
            "--",
            color=f"C{i}",
            lw=1,
            label=f"fit α_m = {-fit.exponent:.2f} [{-fit.ci_high:.2f}, {-fit.ci_low:.2f}]",
        )
    ax.set_xlabel("m (hidden width)")
    ax.set_ylabel("L (summed over features)")
    ax.legend(fontsize=6)


def _relative_gap(models: list[dict[str, Any]], reference: np.ndarray) -> np.ndarray:
    """L / reference − 1 per model (inf where the reference is 0 and L is not)."""
    losses = np.array([m["loss"] for m in models])
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = losses / reference - 1
    return np.where(np.isnan(gap), 0.0, gap)


def _band_ratio(x: Any, lo: float, hi: float) -> float:
    """max |x − (lo + hi)/2| / ((hi − lo)/2): ≤ 1 exactly when every x lies in [lo, hi]."""
    return float(np.max(np.abs(np.asarray(x, dtype=float) - (lo + hi) / 2)) / ((hi - lo) / 2))


def _decide(checks: dict[str, bool]) -> tuple[Verdict, str]:
    """PASS iff every named check holds; the summary suffix names the failed ones."""
    failed = [name for name, ok in checks.items() if not ok]
    return Verdict.of(not failed), (f"; failed: {', '.join(failed)}" if failed else "")


def _plot_gap_axes(ax: Any, band: tuple[float, float]) -> None:
    """Axes of L / L_unl − 1 against m, with the tolerance band and the theory line at 0."""
    ax.axhspan(*band, color="0.9", label="tolerance")
    ax.axhline(0, color=THEORY, lw=1, label="L = L_unl (theory)")
    ax.set_xscale("log")
    ax.set_xlabel("m")
    ax.set_ylabel("L / L_unl − 1")
    ax.legend(fontsize=6)


def _inconclusive_full_only(statement: str) -> CheckResult:
    return CheckResult(
        verdict=Verdict.INCONCLUSIVE,
        summary=f"{FULL_ONLY}: {statement}",
        measured={},
        expected={},
        tolerance=FULL_ONLY,
    )


# ------------------------------------------------------------------------------------- K0
OVERLAP_WIDTHS = (4, 8, 16, 32, 64)
Z_MAX = 3.0


@claim(
    "superposition.geometry",
    paper=PAPER,
    statement="Squared overlaps of random unit vectors in R^m have mean 1/m and the Beta(1/2, "
    "(m−1)/2) variance; the simplex ETF attains the Welch bound; the trainer's gradient is exact.",
    source="§2 / App. A (strong superposition geometry), spec §5 K0",
    rule="PASS when, at every m, the sampled mean squared overlap is within 3 s.e. of 1/m and its "
    "variance within 10% of 2(m−1)/(m²(m+2)), the simplex ETF meets the Welch bound to 1e-12, the "
    "trainer's gradient has rel. error < 1e-3, eq. 8 is within 4 s.e. of Monte Carlo and the "
    "finite-n weak-ideal exponents are within 0.02 of .43/.61/.80/1.02 (worst |deviation| / "
    "tolerance ≤ 1); FAIL when any of them is missed. Never INCONCLUSIVE.",
    stochastic=True,
    statistic="worst_tolerance_ratio",
)
def geometry(
    ctx: Context,
    *,
    overlap_mean: Callable = theory.random_overlap_mean,
    overlap_variance: Callable = theory.random_overlap_variance,
    gradient: Callable = loss_and_grad,
) -> CheckResult:
    """(1) 5·10^4 (quick) pairs of random unit vectors per m: mean of (w·w′)² within 3 s.e. of
    the theory, variance within 10%. (2) simplex ETF, m = 2..16: max|w_i·w_j| equals the Welch
    bound to 1e-12 and every |w_i·w_j| is equal. (3) float64 finite differences of the trainer's
    batch loss against its analytic gradient: relative error < 1e-3. (4) eq. (8)'s loss against a
    Monte Carlo estimate on one-active-feature data: within 4 s.e. (5) the finite-n weak ideal
    fitted on the reference widths at n = 1000 gives α_m = .43/.61/.80/1.02 (±0.02)."""
    rng = ctx.rng("geometry")
    pairs = ctx.pick(quick=50_000, full=1_000_000)
    means, ses, variances, z, var_err = [], [], [], [], []
    for m in OVERLAP_WIDTHS:
        u = rng.normal(size=(pairs, m))
        v = rng.normal(size=(pairs, m))
        sq = (np.sum(u * v, axis=1) ** 2) / (np.sum(u * u, axis=1) * np.sum(v * v, axis=1))
        means.append(sq.mean())
        ses.append(sq.std(ddof=1) / np.sqrt(pairs))
        variances.append(sq.var(ddof=1))
        z.append((means[-1] - overlap_mean(m)) / ses[-1])
        var_err.append(variances[-1] / overlap_variance(m) - 1)
    z, var_err = np.array(z), np.array(var_err)
    overlaps_ok = bool(np.all(np.abs(z) <= Z_MAX) and np.all(np.abs(var_err) <= 0.10))

    etf_widths = np.arange(2, 17)
    etf_gap, etf_spread = [], []
    for m in etf_widths:
        frame = theory.simplex_etf(int(m))
        off = np.abs(frame @ frame.T)[~np.eye(m + 1, dtype=bool)]
        etf_gap.append(abs(off.max() - theory.welch_bound(m + 1, m)))
        etf_spread.append(np.ptp(off))
    etf_ok = bool(max(etf_gap) < 1e-12 and max(etf_spread) < 1e-12)

    grad_err = _gradient_error(gradient, ctx.rng("gradient"))
    eq8 = _eq8_monte_carlo(ctx.rng("eq8"), ctx.pick(quick=200_000, full=2_000_000))
    eq8_ok = abs(eq8["z"]) <= 4.0

    ideal = {1.25: 0.43, 1.5: 0.61, 1.75: 0.80, 2.0: 1.02}  # spec §5 K0 [pilot ±0.01]
    widths = np.array(REFERENCE_WIDTHS)
    ideal_measured = {
        a: -fit_power_law(
            widths, theory.weak_ideal_loss(theory.feature_frequencies(1000, a), widths), n_boot=0
        ).exponent
        for a in ideal
    }
    ideal_ok = all(abs(ideal_measured[a] - v) <= 0.02 for a, v in ideal.items())

    worst = max(
        float(np.max(np.abs(z))) / Z_MAX,
        float(np.max(np.abs(var_err))) / 0.10,
        max(*etf_gap, *etf_spread) / 1e-12,
        grad_err / 1e-3,
        abs(eq8["z"]) / 4.0,
        max(abs(ideal_measured[a] - v) for a, v in ideal.items()) / 0.02,
    )
    checks = {
        "random overlaps": overlaps_ok,
        "simplex ETF": etf_ok,
        "gradient": grad_err < 1e-3,
        "eq. 8": eq8_ok,
        "weak ideal": ideal_ok,
    }
    verdict, failed = _decide(checks)

    fig, (ax, ax_e) = new_figure(ncols=2)
    ms = np.array(OVERLAP_WIDTHS, dtype=float)
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
    return CheckResult(
        verdict=verdict,
        summary=f"max |z| of mean overlap {np.max(np.abs(z)):.2f} (≤ 3), max variance error "
        f"{np.max(np.abs(var_err)):.3f} (≤ 0.10); ETF − Welch {max(etf_gap):.1e}; gradient rel. "
        f"error {grad_err:.1e} (< 1e-3); eq. 8 z = {eq8['z']:.2f}" + failed,
        measured={
            "m": ms,
            "mean_sq_overlap": means,
            "z_mean": z,
            "var_sq_overlap": variances,
            "var_rel_error": var_err,
            "etf_minus_welch_max": max(etf_gap),
            "gradient_rel_error": grad_err,
            "eq8_loss": eq8["exact"],
            "eq8_monte_carlo": eq8["mc"],
            "weak_ideal_exponent": [ideal_measured[a] for a in ideal],
            "worst_tolerance_ratio": worst,
        },
        expected={
            "mean_sq_overlap": [float(overlap_mean(m)) for m in OVERLAP_WIDTHS],
            "var_sq_overlap": [float(overlap_variance(m)) for m in OVERLAP_WIDTHS],
            "etf_minus_welch_max": 0.0,
            "gradient_rel_error": 0.0,
            "weak_ideal_exponent": list(ideal.values()),
            "worst_tolerance_ratio": 1.0,
        },
        tolerance="mean within 3 s.e. and variance within 10% at every m; ETF coherence = Welch "
        "bound ± 1e-12; gradient rel. error < 1e-3 (float64); eq. 8 within 4 s.e. of Monte Carlo; "
        "weak-ideal exponents ± 0.02",
        figures=ctx.save_figure(fig),
        arrays={"m": ms, "mean": np.array(means), "variance": np.array(variances)},
    )


def _gradient_error(gradient: Callable, rng: np.random.Generator) -> float:
    """Max relative error of ``gradient``'s (W, b) against central differences of the exact batch
    loss (dense, float64), on K = 2 models, n = 24, m = 5, B = 48, E = 2."""
    n_models, n, m, n_batch, eps = 2, 24, 5, 48, 1e-6
    W = rng.normal(size=(n_models, n, m)) / np.sqrt(m)
    b = rng.normal(size=(n_models, n)) * 0.5
    batch = sample_batch(theory.feature_frequencies(n, 1.0, density=2.0), n_batch, rng)
    x = batch.dense()

    def loss(W_: np.ndarray, b_: np.ndarray) -> np.ndarray:
        y = np.maximum(np.einsum("bi,kim,kjm->kbj", x, W_, W_) + b_[:, None, :], 0.0)
        return np.sum((y - x) ** 2, axis=(1, 2)) / n_batch  # (K,)

    _, grad_W, grad_b = gradient(W, b, batch)
    errors = []
    for param, grad in ((W, np.asarray(grad_W)), (b, np.asarray(grad_b))):
        numeric = np.zeros_like(param)
        for idx in np.ndindex(param.shape):
            step = np.zeros_like(param)
            step[idx] = eps
            args_plus = (W + step, b) if param is W else (W, b + step)
            args_minus = (W - step, b) if param is W else (W, b - step)
            numeric[idx] = (loss(*args_plus)[idx[0]] - loss(*args_minus)[idx[0]]) / (2 * eps)
        errors.append(np.max(np.abs(numeric - grad)) / np.max(np.abs(numeric)))
    return float(max(errors))


def _eq8_monte_carlo(rng: np.random.Generator, samples: int) -> dict[str, float]:
    """Eq. (8) against the batch loss on data with exactly one active feature (i ~ p/Σp,
    v ~ U(0, 2)), n = 16, m = 4."""
    n, m = 16, 4
    W = rng.normal(size=(1, n, m)) / np.sqrt(m)
    b = rng.normal(size=(1, n)) * 0.3
    p = theory.feature_frequencies(n, 1.2)
    exact = theory.one_active_loss(W[0], b[0], p)
    rows = np.arange(samples)
    cols = rng.choice(n, size=samples, p=p / p.sum())
    batch = SparseBatch(rows, cols, rng.uniform(0, 2, size=samples), (samples, n))
    per_sample = []
    for chunk in np.array_split(rows, 20):
        sub = SparseBatch(rows[chunk] - chunk[0], cols[chunk], batch.values[chunk], (chunk.size, n))
        per_sample.append(float(loss_and_grad(W, b, sub)[0][0]))
    mc, se = float(np.mean(per_sample)), float(np.std(per_sample, ddof=1) / np.sqrt(20))
    return {"exact": exact, "mc": mc, "z": (mc - exact) / se}


# ------------------------------------------------------------------------------------- Q1
Q1_WINDOW = (6.0, 40.0)  # all six widths, fixed in advance (spec §5 Q1)
Q1_BAND = 0.2  # α_m ∈ [0.8, 1.2]
OVERLAP_TOL = 0.15
OVERLAP_MIN_M = 14


@claim(
    "superposition.strong_inverse_m",
    paper=PAPER,
    statement="Under strong superposition (γ = −1) every feature is represented and the loss "
    "falls as 1/m, with the strongly represented rows overlapping like random vectors, (Ŵ_i·Ŵ_j)² ≈ 1/m.",
    source="Figs. 1, 5, 17; spec §5 Q1",
    rule="PASS when φ_1/2 = 1 at every m, L strictly decreases, the OLS exponent α_m on m = 6..40 "
    "(point estimate; the bootstrap CI is reported) lies within ±0.2 of 1, and rows with ‖W_i‖ > 1 "
    "have mean squared overlap within 15% of 1/m for m ≥ 14; FAIL when any of these fails. Never "
    "INCONCLUSIVE.",
    stochastic=True,
    statistic="alpha_m",
    history=[_aligned_schedule("PASS (α_m = 0.905, quick)")],
)
def strong_inverse_m(
    ctx: Context,
    *,
    predicted_exponent: float = 1.0,
    overlap_theory: Callable = theory.random_overlap_mean,
) -> CheckResult:
    """n = 400, B = 512, 4000 steps, α = 1, γ = −1, m = 6..40: φ_{1/2} = 1 at every m; L strictly
    decreasing; α_m (OLS on all six points) within ±0.2 of ``predicted_exponent``; mean squared
    overlap of rows with norm > 1 within 15% of ``overlap_theory(m)`` for m ≥ 14."""
    models, fit = _strong_ladder(ctx, QUICK_WIDTHS, 20, QUICK, Q1_WINDOW)
    widths = np.array([m["m"] for m in models])
    losses = np.array([m["loss"] for m in models])
    phi = np.array([m["phi_half"] for m in models])
    overlap = np.array([m["overlap_strong"]["mean"] or np.nan for m in models])
    predicted = np.array([float(overlap_theory(int(w))) for w in widths])
    overlap_err = overlap / predicted - 1
    checked = widths >= OVERLAP_MIN_M
    alpha_m = -fit.exponent
    checks = {
        "φ_1/2 = 1": bool(np.all(phi == 1.0)),
        "L decreasing": bool(np.all(np.diff(losses) < 0)),
        "exponent": abs(alpha_m - predicted_exponent) <= Q1_BAND,
        "overlaps": bool(np.all(np.abs(overlap_err[checked]) <= OVERLAP_TOL)),
    }
    verdict, failed = _decide(checks)

    fig, (ax, ax_o) = new_figure(ncols=2)
    _plot_loss_vs_m(ax, {"strong (γ = −1), measured": (models, fit)})
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
    _plot_overlaps(ax_o, widths, overlap, predicted, checked)
    return CheckResult(
        verdict=verdict,
        summary=f"α_m = {alpha_m:.3f} [{-fit.ci_high:.2f}, {-fit.ci_low:.2f}] (R² {fit.r2:.3f}; "
        f"predicted {predicted_exponent:g} ± {Q1_BAND:g}); φ_1/2 min {phi.min():.3f}; overlap "
        f"error m ≥ {OVERLAP_MIN_M}: max {np.max(np.abs(overlap_err[checked])):.3f} (≤ {OVERLAP_TOL:g})"
        + failed,
        measured={
            "m": widths,
            "loss": losses,
            "alpha_m": alpha_m,
            "alpha_m_ci": [-fit.ci_high, -fit.ci_low],
            "r2": fit.r2,
            "phi_half": phi,
            "phi_one": [m["phi_one"] for m in models],
            "mean_sq_overlap_strong": overlap,
            "overlap_rel_error": overlap_err,
        },
        expected={
            "alpha_m": predicted_exponent,
            "phi_half": 1.0,
            "mean_sq_overlap_strong": predicted,
        },
        tolerance=f"φ_1/2 = 1 at every m; L strictly decreasing; |α_m − {predicted_exponent:g}| ≤ "
        f"{Q1_BAND:g} (OLS on m = 6..40, fixed window); |overlap·m − 1| ≤ {OVERLAP_TOL:g} for "
        f"m ≥ {OVERLAP_MIN_M}",
        figures=ctx.save_figure(fig),
        arrays={"m": widths, "loss": losses, "norms": np.array([m["norms"] for m in models])},
    )


def _plot_overlaps(
    ax: Any, widths: np.ndarray, overlap: np.ndarray, predicted: np.ndarray, checked: np.ndarray
) -> None:
    inv = 1 / widths
    ax.plot(inv, predicted, "-", color=THEORY, lw=1, label="1/m (random / ETF-like, theory)")
    ax.fill_between(
        inv,
        predicted * (1 - OVERLAP_TOL),
        predicted * (1 + OVERLAP_TOL),
        color="0.9",
        label=f"±{OVERLAP_TOL:.0%}",
    )
    ax.plot(inv[checked], overlap[checked], "o", label="rows with ‖W_i‖ > 1 (checked)")
    ax.plot(inv[~checked], overlap[~checked], "o", mfc="none", label="rows with ‖W_i‖ > 1")
    ax.set_xlabel("1/m")
    ax.set_ylabel("mean (Ŵ_i·Ŵ_j)²")
    ax.legend(fontsize=6)


# ------------------------------------------------------------------------------------- Q2
WEAK_ALPHAS = (1.5, 2.0)
WEAK_BAND = (-0.05, 0.20)
WEAK_OVER_STRONG = 1.5
WEAK_OVER_STRONG_MIN_M = 20


@claim(
    "superposition.weak_tracks_unlearned",
    paper=PAPER,
    statement="Under weak superposition (γ > 0) the loss is the summed variance of the features "
    "the model does not represent, and at α = 1.5 it is well above the strong-superposition loss.",
    source="§3 (weak superposition), Fig. 4; spec §5 Q2",
    rule="PASS when −0.05 ≤ L/L_unl − 1 ≤ 0.2 at every m and α ∈ {1.5, 2}, and L(γ = 0.1) ≥ "
    "1.5 L(γ = −1) at α = 1.5 for m ≥ 20 (worst |deviation from the band's centre| / half-width, "
    "and 1.5 / ratio, ≤ 1); FAIL when any m misses. Never INCONCLUSIVE.",
    stochastic=True,
    statistic="worst_tolerance_ratio",
    history=[
        _aligned_schedule(
            "PASS (worst_tolerance_ratio = 0.780, quick: L/L_unl − 1 in [−0.023, +0.168])"
        )
    ],
)
def weak_tracks_unlearned(
    ctx: Context, *, unlearned_loss: Callable = theory.weak_loss
) -> CheckResult:
    """n = 400, B = 512, 4000 steps, γ = +0.1, α ∈ {1.5, 2}, m = 6..40: with
    L_unl = Σ_{‖W_i‖ ≤ 1/2}(4/3 p_i − p_i²), −0.05 ≤ L/L_unl − 1 ≤ 0.2 at every m; at α = 1.5 and
    m ≥ 20, L(γ = 0.1) ≥ 1.5 L(γ = −1) (same data stream)."""
    strong_widths = tuple(w for w in QUICK_WIDTHS if w >= WEAK_OVER_STRONG_MIN_M)
    params = []
    for alpha in WEAK_ALPHAS:
        params += _ladder_tasks(
            QUICK_WIDTHS, [WEAK_GAMMA], 20, alpha=alpha, **_at_scale(ctx, QUICK)
        )
    params[1]["widths"] += list(strong_widths)  # α = 1.5, m ≥ 20: strong models on the same data
    params[1]["gammas"] += [STRONG_GAMMA] * len(strong_widths)
    models = _models(ctx.sweep(train_task, params, name="ladders"))
    ratios, rows, weak_fits = {}, [], {}
    for alpha in WEAK_ALPHAS:
        weak = _select(models, alpha=alpha, gamma=WEAK_GAMMA)
        p = theory.feature_frequencies(QUICK["n"], alpha)
        unl = np.array([unlearned_loss(p, np.asarray(m["norms"]) > 0.5) for m in weak])
        ratios[alpha] = _relative_gap(weak, unl)
        weak_fits[alpha] = (weak, _fit(weak, Q1_WINDOW, ctx.rng("fit", str(alpha))))
        rows.append((alpha, weak, unl))
    weak15 = {m["m"]: m["loss"] for m in _select(models, alpha=1.5, gamma=WEAK_GAMMA)}
    strong15 = _select(models, alpha=1.5, gamma=STRONG_GAMMA)
    over = np.array([weak15[m["m"]] / m["loss"] for m in strong15])
    all_ratios = np.concatenate(list(ratios.values()))
    worst = max(_band_ratio(all_ratios, *WEAK_BAND), float(np.max(WEAK_OVER_STRONG / over)))
    checks = {
        "L ≈ L_unl": bool(np.all((all_ratios >= WEAK_BAND[0]) & (all_ratios <= WEAK_BAND[1]))),
        "weak ≥ 1.5 strong": bool(np.all(over >= WEAK_OVER_STRONG)),
    }
    verdict, failed = _decide(checks)

    fig, (ax, ax_r) = new_figure(ncols=2)
    _plot_loss_vs_m(ax, {f"weak γ = {WEAK_GAMMA:g}, α = {a:g}": weak_fits[a] for a in WEAK_ALPHAS})
    for i, (alpha, weak, unl) in enumerate(rows):
        ax.loglog(
            [m["m"] for m in weak],
            unl,
            "-",
            color=THEORY,
            lw=0.8,
            label="L_unl (theory)" if i == 0 else None,
        )
        ax_r.plot([m["m"] for m in weak], ratios[alpha], "o-", label=f"α = {alpha:g}")
    ax.loglog(
        [m["m"] for m in strong15],
        [m["loss"] for m in strong15],
        "s",
        color="C2",
        mfc="none",
        label="strong γ = −1, α = 1.5",
    )
    ax.legend(fontsize=6)
    _plot_gap_axes(ax_r, WEAK_BAND)
    return CheckResult(
        verdict=verdict,
        summary=f"L/L_unl − 1 in [{all_ratios.min():+.3f}, {all_ratios.max():+.3f}] (band "
        f"[{WEAK_BAND[0]:+g}, {WEAK_BAND[1]:+g}]); weak/strong at α = 1.5, m ≥ 20: "
        f"{', '.join(f'{r:.2f}' for r in over)} (≥ {WEAK_OVER_STRONG:g})" + failed,
        measured={
            "m": QUICK_WIDTHS,
            **{f"loss_weak_alpha{a:g}": [m["loss"] for m in w] for a, w, _ in rows},
            **{f"loss_unlearned_alpha{a:g}": u for a, _, u in rows},
            **{f"rel_gap_alpha{a:g}": r for a, r in ratios.items()},
            **{f"phi_half_alpha{a:g}": [m["phi_half"] for m in w] for a, w, _ in rows},
            **{f"alpha_m_weak_alpha{a:g}": -f.exponent for a, (_, f) in weak_fits.items()},
            "weak_over_strong_alpha1.5": over,
            "worst_tolerance_ratio": worst,
        },
        expected={
            "rel_gap": 0.0,
            "weak_over_strong_min": WEAK_OVER_STRONG,
            "worst_tolerance_ratio": 1.0,
        },
        tolerance=f"{WEAK_BAND[0]:+g} ≤ L/L_unl − 1 ≤ {WEAK_BAND[1]:+g} at every m and α; "
        f"L_weak / L_strong ≥ {WEAK_OVER_STRONG:g} at α = 1.5, m ≥ {WEAK_OVER_STRONG_MIN_M}",
        figures=ctx.save_figure(fig),
        arrays={"m": np.array(QUICK_WIDTHS), "weak_over_strong": over},
    )


# ------------------------------------------------------------------------------------- Q3
KNOB_GAMMAS = (-1.0, -0.5, 0.0, 0.5)
KNOB_M = 20


def phi_half_band(gamma: float, m: int, n: int) -> tuple[float, float]:
    """The paper's φ_{1/2}(γ) (Figs. 3, 13): 1 for γ ≤ −0.5 (every row pulled to unit norm),
    ≈ m/n for γ ≥ 0.5 (≤ 3m/n allowed), anything in between."""
    if gamma <= -0.5:
        return 1.0, 1.0
    if gamma >= 0.5:
        return 0.0, 3 * m / n
    return 0.0, 1.0


@claim(
    "superposition.regime_knob",
    paper=PAPER,
    statement="Weight decay is the knob between regimes: the fraction of represented features "
    "φ_1/2 falls monotonically as γ goes from growth (−1) to decay (+0.5).",
    source="Figs. 3, 13; spec §5 Q3",
    rule="PASS when φ_1/2 is non-increasing in γ ∈ {−1, −0.5, 0, 0.5}, strictly lower at 0.5 "
    "than at −1, equal to 1 for γ ≤ −0.5 and ≤ 3m/n at γ = 0.5; FAIL when any of these fails "
    "(statistic: the number of failures). Never INCONCLUSIVE.",
    stochastic=True,
    statistic="violations",
    history=[_aligned_schedule("PASS (violations = 0, quick: φ_1/2 = 1, 1, 0.230, 0.037)")],
)
def regime_knob(ctx: Context, *, band: Callable = phi_half_band) -> CheckResult:
    """n = 400, m = 20, α = 1, 3000 steps, γ ∈ {−1, −0.5, 0, 0.5} on one data stream: φ_{1/2}
    non-increasing in γ and strictly lower at 0.5 than at −1, and inside ``band(γ, m, n)``."""
    params = _at_scale(ctx, {**QUICK, "steps": 3000})
    records = ctx.sweep(
        train_task, _ladder_tasks([KNOB_M], KNOB_GAMMAS, None, alpha=1.0, **params), name="gammas"
    )
    models = sorted(_models(records), key=lambda m: m["gamma"])
    gammas = np.array([m["gamma"] for m in models])
    phi = np.array([m["phi_half"] for m in models])
    bands = np.array([band(g, KNOB_M, params["n"]) for g in gammas])
    outside = (phi < bands[:, 0]) | (phi > bands[:, 1])
    violations = int(np.sum(np.diff(phi) > 0)) + int(phi[-1] >= phi[0]) + int(np.sum(outside))
    checks = {
        "monotone": bool(np.all(np.diff(phi) <= 0) and phi[-1] < phi[0]),
        "bands": not bool(np.any(outside)),
    }
    verdict, failed = _decide(checks)

    fig, ax = new_figure()
    ax.fill_between(
        gammas, bands[:, 0], bands[:, 1], color="0.9", step="mid", label="theory band (Figs. 3, 13)"
    )
    ax.plot(gammas, phi, "o-", label="φ_1/2 measured")
    ax.plot(gammas, [m["phi_one"] for m in models], "s--", mfc="none", label="φ_1 measured")
    ax.axhline(KNOB_M / params["n"], color=THEORY, ls=":", lw=1, label="m/n")
    ax.set_xlabel("γ (weight decay; < 0: growth)")
    ax.set_ylabel("fraction of rows")
    ax.legend(fontsize=6)
    return CheckResult(
        verdict=verdict,
        summary="φ_1/2 at γ = "
        + ", ".join(f"{g:g}: {f:.3f}" for g, f in zip(gammas, phi, strict=True))
        + failed,
        measured={
            "gamma": gammas,
            "phi_half": phi,
            "phi_one": [m["phi_one"] for m in models],
            "loss": [m["loss"] for m in models],
            "violations": violations,
        },
        expected={"phi_half_low": bands[:, 0], "phi_half_high": bands[:, 1], "violations": 0},
        tolerance="φ_1/2 non-increasing in γ, φ(0.5) < φ(−1); φ = 1 at γ ≤ −0.5 and ≤ 3m/n at γ = 0.5",
        figures=ctx.save_figure(fig),
        arrays={"gamma": gammas, "phi_half": phi},
    )


# ------------------------------------------------------------------------------------- F1
ROBUST_ALPHAS = (0.0, 0.5, 1.0, 1.5, 2.0)
ROBUST_SEEDS = 3


def strong_exponent_by_alpha(alpha: float) -> float:
    """The strong-regime exponent at n = 400, m ≤ 40 (spec §5 F1, from Fig. 5): ≈ 0.8 for
    α ≤ 0.5, 1.0 at α = 1 and ≈ 1.2 for α ≥ 1.5 (the 2(α − 1) branch needs m²/2 ≪ n)."""
    if alpha <= 0.5:
        return 0.8
    if alpha < 1.5:
        return 1.0
    return 1.2


@claim(
    "superposition.strong_robust_to_alpha",
    paper=PAPER,
    statement="Under strong superposition the width exponent stays near 1 whatever the "
    "frequency exponent α: ≈ 0.8 for α ≤ 0.5, 1 at α = 1, ≈ 1.2 for α = 1.5–2 (at m²/2 ≳ n).",
    source="Fig. 5 (α_m vs α, strong), spec §5 F1",
    rule="PASS when the 3-seed mean α_m (OLS on m = 6..40) lies within ±0.2 of the expected "
    "0.8/0.8/1.0/1.2/1.2 at every α ∈ {0, .5, 1, 1.5, 2}; FAIL when any α misses. "
    + FULL_ONLY_RULE,
    stochastic=True,
    statistic="max_abs_deviation",
    history=[
        _aligned_schedule(
            "INCONCLUSIVE at quick (full scale only); PASS at full by hand in docs/superposition.md "
            "(seed-mean α_m 0.63/0.72/0.92/1.13/1.35, max_abs_deviation = 0.17)"
        )
    ],
)
def strong_robust_to_alpha(
    ctx: Context, *, predicted: Callable[[float], float] = strong_exponent_by_alpha
) -> CheckResult:
    """Full scale: Q1's ladder at α ∈ {0, .5, 1, 1.5, 2} × 3 seeds; the seed-mean α_m (OLS on
    m = 6..40) within ±0.2 of ``predicted(α)``. Quick scale: INCONCLUSIVE (full scale only)."""
    if ctx.scale == "quick":
        return _inconclusive_full_only("15 ladders of 6 widths (about 20 CPU-minutes)")
    params = []
    for alpha in ROBUST_ALPHAS:
        params += _ladder_tasks(
            QUICK_WIDTHS, [STRONG_GAMMA], 20, alpha=alpha, **_at_scale(ctx, QUICK)
        )
    models = _models(ctx.sweep(train_task, params, name="ladders", n_seeds=ROBUST_SEEDS))
    per_seed = np.array(
        [
            [
                -_fit(_select(models, alpha=a, seed=s), Q1_WINDOW, None).exponent
                for s in range(ROBUST_SEEDS)
            ]
            for a in ROBUST_ALPHAS
        ]
    )  # (alphas, seeds); CIs come from the seed spread
    mean = per_seed.mean(axis=1)
    spread = per_seed.std(axis=1, ddof=1)
    expected = np.array([predicted(a) for a in ROBUST_ALPHAS])
    ok = np.abs(mean - expected) <= Q1_BAND
    max_dev = float(np.max(np.abs(mean - expected)))

    fig, (ax, ax_a) = new_figure(ncols=2)
    curves = {}
    for a in ROBUST_ALPHAS:
        chosen = _select(models, alpha=a, seed=0)
        curves[f"α = {a:g} (seed 0)"] = (chosen, _fit(chosen, Q1_WINDOW, ctx.rng("fit", str(a))))
    _plot_loss_vs_m(ax, curves)
    alphas = np.array(ROBUST_ALPHAS)
    ax_a.errorbar(alphas, mean, yerr=spread, fmt="o", label="seed mean ± s.d.")
    ax_a.fill_between(alphas, expected - Q1_BAND, expected + Q1_BAND, color="0.9", step="mid")
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
    return CheckResult(
        verdict=Verdict.of(bool(np.all(ok))),
        summary="seed-mean α_m at α = "
        + ", ".join(
            f"{a:g}: {v:.2f}±{s:.2f} (exp. {e:g})"
            for a, v, s, e in zip(alphas, mean, spread, expected, strict=True)
        ),
        measured={
            "alpha": alphas,
            "alpha_m_mean": mean,
            "alpha_m_sd": spread,
            "alpha_m_per_seed": per_seed,
            "max_abs_deviation": max_dev,
        },
        expected={"alpha_m": expected, "max_abs_deviation": Q1_BAND},
        tolerance=f"|seed-mean α_m − expected| ≤ {Q1_BAND:g} at every α (OLS on m = 6..40)",
        figures=ctx.save_figure(fig),
        arrays={"alpha": alphas, "alpha_m_per_seed": per_seed},
    )


# ------------------------------------------------------------------------------------- F2
F2_WINDOW = (10.0, 100.0)
PAPER_LOSS = {10: 0.7, 100: 0.07}  # Fig. 14/15 at E = 1 (spec §3); reported, not gated


@claim(
    "superposition.reference_sweep",
    paper=PAPER,
    statement="At the paper's small-sweep sizes (n = 1000, m = 10..100, α = 1, γ = −1) the loss "
    "falls as 1/m and the strongly represented fraction φ_1 rises with m.",
    source="Figs. 14–16; spec §5 F2",
    rule="PASS when α_m (OLS on m = 10..100, n = 1000; point estimate) lies within ±0.2 of 1, "
    "φ_1(100) > φ_1(10) and φ_1/2 = 1 at every m; FAIL when any of these fails (the losses are "
    "reported beside the paper's, not gated). " + FULL_ONLY_RULE,
    stochastic=True,
    statistic="alpha_m",
    history=[
        _aligned_schedule(
            "INCONCLUSIVE at quick (full scale only); PASS at full by hand in docs/superposition.md "
            "(α_m = 0.95)"
        )
    ],
)
def reference_sweep(ctx: Context, *, predicted_exponent: float = 1.0) -> CheckResult:
    """Full scale: n = 1000, B = 512, 6000 steps, m ∈ {10, 15, 25, 39, 63, 100}: α_m (OLS on all
    six) within ±0.2 of ``predicted_exponent``; φ_1 higher at m = 100 than at m = 10; φ_1/2 = 1.
    L(10), L(100) are reported beside the paper's 0.7 and 0.07 (not gated: 20–40× fewer samples
    than the reference, spec §7)."""
    if ctx.scale == "quick":
        return _inconclusive_full_only("n = 1000 ladder, 6000 steps")
    models, fit = _strong_ladder(ctx, REFERENCE_WIDTHS, 50, FULL_N1000, F2_WINDOW)
    phi_one = np.array([m["phi_one"] for m in models])
    phi_half = np.array([m["phi_half"] for m in models])
    losses = {m["m"]: m["loss"] for m in models}
    alpha_m = -fit.exponent
    checks = {
        "exponent": abs(alpha_m - predicted_exponent) <= Q1_BAND,
        "φ_1 rises": bool(phi_one[-1] > phi_one[0]),
        "φ_1/2 = 1": bool(np.all(phi_half == 1.0)),
    }
    verdict, failed = _decide(checks)
    fig, (ax, ax_p) = new_figure(ncols=2)
    _plot_loss_vs_m(ax, {"strong, n = 1000": (models, fit)})
    ax.loglog(
        list(PAPER_LOSS), list(PAPER_LOSS.values()), "x", color=THEORY, label="paper (Fig. 14)"
    )
    ax.legend(fontsize=6)
    widths = np.array([m["m"] for m in models])
    ax_p.semilogx(widths, phi_one, "o-", label="φ_1 (‖W_i‖ > 1)")
    ax_p.semilogx(widths, phi_half, "s--", mfc="none", label="φ_1/2")
    ax_p.semilogx([10, 100], [0.1, 0.9], "x", color=THEORY, label="paper φ_1 ≈ 0.1 → 0.9 (Fig. 16)")
    ax_p.set_xlabel("m")
    ax_p.set_ylabel("fraction of rows")
    ax_p.legend(fontsize=6)
    return CheckResult(
        verdict=verdict,
        summary=f"α_m = {alpha_m:.3f} [{-fit.ci_high:.2f}, {-fit.ci_low:.2f}] (R² {fit.r2:.3f}); "
        f"φ_1 {phi_one[0]:.2f} → {phi_one[-1]:.2f}; L(10) = {losses[10]:.3f} (paper 0.7), "
        f"L(100) = {losses[100]:.4f} (paper 0.07)" + failed,
        measured={
            "m": widths,
            "loss": [m["loss"] for m in models],
            "alpha_m": alpha_m,
            "alpha_m_ci": [-fit.ci_high, -fit.ci_low],
            "r2": fit.r2,
            "phi_one": phi_one,
            "phi_half": phi_half,
        },
        expected={
            "alpha_m": predicted_exponent,
            "loss_paper": PAPER_LOSS,
            "phi_one_paper": [0.1, 0.9],
        },
        tolerance=f"|α_m − {predicted_exponent:g}| ≤ {Q1_BAND:g} (OLS on m = 10..100); φ_1(100) > φ_1(10); "
        "φ_1/2 = 1; losses reported, not gated",
        figures=ctx.save_figure(fig),
        arrays={"m": widths, "phi_one": phi_one},
    )


# ------------------------------------------------------------------------------------- F3
F3_GAMMAS = (0.33, 0.56)
F3_BAND = 0.2
F3_LOSS_TOL = 0.15


@claim(
    "superposition.weak_law",
    paper=PAPER,
    statement="Under weak superposition the loss follows the unlearned-frequency sum, so its width "
    "exponent is that of the finite-n ideal Σ_{i>m}(4/3 p_i − p_i²) (→ α − 1 as n → ∞).",
    source="Fig. 4; spec §5 F3 and §7 (finite-n exponent)",
    rule="PASS when, for every (α, γ) ∈ {1.5, 2} × {0.33, 0.56}, α_m (OLS on m = 10..100) lies "
    "within 0.2 of the finite-n ideal's exponent and |L/L_unl − 1| ≤ 0.15 at every m (worst "
    "|deviation| / tolerance ≤ 1); FAIL when any run misses. " + FULL_ONLY_RULE,
    stochastic=True,
    statistic="worst_tolerance_ratio",
    history=[
        _aligned_schedule(
            "INCONCLUSIVE at quick (full scale only); FAIL at full by hand in docs/superposition.md "
            "(α_m 0.53/0.27 at α = 1.5 and 0.87/0.58 at α = 2 against ideals 0.61 and 1.02)"
        )
    ],
)
def weak_law(ctx: Context, *, ideal_loss: Callable = theory.weak_ideal_loss) -> CheckResult:
    """Full scale: n = 1000, B = 512, 6000 steps, γ ∈ {0.33, 0.56}, α ∈ {1.5, 2}, reference widths:
    for every (α, γ), α_m (OLS on m = 10..100) within 0.2 of the exponent of ``ideal_loss`` on the
    same widths, and |L/L_unl − 1| ≤ 0.15 at every m."""
    if ctx.scale == "quick":
        return _inconclusive_full_only("four n = 1000 ladders, 6000 steps")
    params = []
    for alpha in WEAK_ALPHAS:
        params += _ladder_tasks(
            REFERENCE_WIDTHS, F3_GAMMAS, 50, alpha=alpha, **_at_scale(ctx, FULL_N1000)
        )
    models = _models(ctx.sweep(train_task, params, name="ladders"))
    widths = np.array(REFERENCE_WIDTHS, dtype=float)
    rows, ok, curves, worst = [], True, {}, 0.0
    fig, (ax, ax_r) = new_figure(ncols=2)
    for i, alpha in enumerate(WEAK_ALPHAS):
        p = theory.feature_frequencies(FULL_N1000["n"], alpha)
        ideal = np.asarray(ideal_loss(p, widths.astype(int)))
        ideal_exponent = -fit_power_law(widths, ideal, window=F2_WINDOW, n_boot=0).exponent
        ax.loglog(
            widths, ideal, "-", color=THEORY, lw=1, label="finite-n ideal" if i == 0 else None
        )
        for gamma in F3_GAMMAS:
            chosen = _select(models, alpha=alpha, gamma=gamma)
            fit = _fit(chosen, F2_WINDOW, ctx.rng("fit", str(alpha), str(gamma)))
            unl = np.array([theory.weak_loss(p, np.asarray(m["norms"]) > 0.5) for m in chosen])
            gap = _relative_gap(chosen, unl)
            good = abs(-fit.exponent - ideal_exponent) <= F3_BAND and bool(
                np.all(np.abs(gap) <= F3_LOSS_TOL)
            )
            ok &= good
            worst = max(
                worst,
                abs(-fit.exponent - ideal_exponent) / F3_BAND,
                float(np.max(np.abs(gap))) / F3_LOSS_TOL,
            )
            rows.append(
                {
                    "alpha": alpha,
                    "gamma": gamma,
                    "alpha_m": -fit.exponent,
                    "ideal_alpha_m": ideal_exponent,
                    "max_rel_gap": float(np.max(np.abs(gap))),
                    "kept": [int(np.sum(np.asarray(m["norms"]) > 0.5)) for m in chosen],
                }
            )
            curves[f"α = {alpha:g}, γ = {gamma:g}"] = (chosen, fit)
            ax_r.semilogx(widths, gap, "o-", label=f"α = {alpha:g}, γ = {gamma:g}")
    _plot_loss_vs_m(ax, curves)
    _plot_gap_axes(ax_r, (-F3_LOSS_TOL, F3_LOSS_TOL))
    return CheckResult(
        verdict=Verdict.of(ok),
        summary="; ".join(
            f"α={r['alpha']:g} γ={r['gamma']:g}: α_m {r['alpha_m']:.2f} vs ideal {r['ideal_alpha_m']:.2f}, "
            f"max |L/L_unl − 1| {r['max_rel_gap']:.2f}"
            for r in rows
        ),
        measured={"runs": rows, "worst_tolerance_ratio": worst},
        expected={
            "alpha_m": {
                f"{a:g}": r["ideal_alpha_m"] for a, r in zip(WEAK_ALPHAS, rows[::2], strict=True)
            },
            "worst_tolerance_ratio": 1.0,
        },
        tolerance=f"for every (α, γ): |α_m − ideal| ≤ {F3_BAND:g} (OLS on m = 10..100) and "
        f"|L/L_unl − 1| ≤ {F3_LOSS_TOL:g} at every m",
        figures=ctx.save_figure(fig),
        arrays={"m": widths},
    )


# ------------------------------------------------------------------------------------- F4
DENSITIES = (1.0, 3.0, 6.0)  # E ≤ H_400 ≈ 6.57 keeps p_1 ≤ 1 at n = 400
DENSITY_SLOPE = (0.7, 1.5)
DENSITY_SHIFT = 0.2


@claim(
    "superposition.density_scaling",
    paper=PAPER,
    statement="Under strong superposition the loss grows about linearly with the activation density "
    "E = Σ p_i while the width exponent barely moves.",
    source="Figs. 14, 15 (L ∝ E, α_m = 1.1 ± 0.2 across E); spec §5 F4",
    rule="PASS when, at every m, the log-log slope of L in E ∈ {1, 3, 6} lies in [0.7, 1.5] and "
    "α_m moves by < 0.2 from its E = 1 value (worst |deviation| / tolerance ≤ 1); FAIL when any "
    "slope or shift misses. " + FULL_ONLY_RULE,
    stochastic=True,
    statistic="worst_tolerance_ratio",
    history=[
        _aligned_schedule(
            "INCONCLUSIVE at quick (full scale only); FAIL at full by hand in docs/superposition.md "
            "(α_m 0.99/0.88/0.78 at E = 1/3/6: shift 0.21 > 0.2)"
        )
    ],
)
def density_scaling(ctx: Context, *, predicted_slope: float = 1.0) -> CheckResult:
    """Full scale: Q1's ladder (n = 400, α = 1, γ = −1) at E ∈ {1, 3, 6}: at every m the log-log
    slope of L against E lies in [0.7, 1.5] (around ``predicted_slope`` = 1; the paper's m = 63
    numbers give 1.3) and α_m moves by < 0.2 from its E = 1 value."""
    if ctx.scale == "quick":
        return _inconclusive_full_only("three ladders of 6 widths")
    params = []
    for density in DENSITIES:
        params += _ladder_tasks(
            QUICK_WIDTHS, [STRONG_GAMMA], 20, alpha=1.0, density=density, **_at_scale(ctx, QUICK)
        )
    models = _models(ctx.sweep(train_task, params, name="ladders"))
    by_e = {e: _select(models, density=e) for e in DENSITIES}
    losses = np.array([[m["loss"] for m in by_e[e]] for e in DENSITIES])  # (E, m)
    slopes = np.array(
        [
            fit_power_law(np.array(DENSITIES), losses[:, j], n_boot=0).exponent
            for j in range(losses.shape[1])
        ]
    )
    fits = {e: _fit(by_e[e], Q1_WINDOW, ctx.rng("fit", str(e))) for e in DENSITIES}
    exps = np.array([-fits[e].exponent for e in DENSITIES])
    lo, hi = DENSITY_SLOPE[0] * predicted_slope, DENSITY_SLOPE[1] * predicted_slope
    worst = max(_band_ratio(slopes, lo, hi), float(np.max(np.abs(exps - exps[0]))) / DENSITY_SHIFT)
    checks = {
        "L ∝ E": bool(np.all((slopes >= lo) & (slopes <= hi))),
        "α_m stable": bool(np.all(np.abs(exps - exps[0]) < DENSITY_SHIFT)),
    }
    verdict, failed = _decide(checks)
    fig, (ax, ax_e) = new_figure(ncols=2)
    _plot_loss_vs_m(ax, {f"E = {e:g}": (by_e[e], fits[e]) for e in DENSITIES})
    widths = np.array(QUICK_WIDTHS, dtype=float)
    for j, m in enumerate(widths):
        ax_e.loglog(DENSITIES, losses[:, j], "o", color=f"C{j}", mfc="none", label=f"m = {m:g}")
        ax_e.loglog(
            DENSITIES,
            losses[0, j] * np.array(DENSITIES) ** predicted_slope,
            "-",
            color=THEORY,
            lw=0.6,
        )
    ax_e.set_xlabel("E (activation density)")
    ax_e.set_ylabel("L")
    ax_e.set_title("lines: L ∝ E (theory)", fontsize="small")
    ax_e.legend(fontsize=5)
    return CheckResult(
        verdict=verdict,
        summary=f"slopes of L in E: {', '.join(f'{s:.2f}' for s in slopes)} (in [{lo:g}, {hi:g}]); "
        f"α_m at E = {', '.join(f'{e:g}: {x:.2f}' for e, x in zip(DENSITIES, exps, strict=True))}"
        + failed,
        measured={
            "m": widths,
            "density": DENSITIES,
            "loss": losses,
            "slope_in_E": slopes,
            "alpha_m": exps,
            "worst_tolerance_ratio": worst,
        },
        expected={
            "slope_in_E": predicted_slope,
            "alpha_m_shift_max": DENSITY_SHIFT,
            "worst_tolerance_ratio": 1.0,
        },
        tolerance=f"slope of log L on log E in [{lo:g}, {hi:g}] at every m; |α_m(E) − α_m(1)| < "
        f"{DENSITY_SHIFT:g}",
        figures=ctx.save_figure(fig),
        arrays={"loss": losses},
    )


# ------------------------------------------------------------------------------------- LLMs
PAPER_LLM = {
    "alpha_m_fit": 0.91,
    "alpha_m_fit_sigma": 0.04,
    "chinchilla": 0.88,
    "chinchilla_sigma": 0.06,
}


@claim(
    "superposition.llm_consistency",
    paper=PAPER,
    statement="The LLM width exponent fitted on 27 open models, α_m = 0.91 ± 0.04, agrees with the "
    "one implied by Chinchilla, N ∝ m^2.52 and α_N = 0.35, i.e. α_m = 0.88 ± 0.06.",
    source="§5, Fig. 6",
    rule="PASS when 2.52 × 0.35 is within 0.005 of the paper's 0.88, its linearly summed error "
    "within 0.005 of 0.06, and |0.91 − α_m| ≤ the combined σ in quadrature; FAIL when any of "
    "these fails. Deterministic (closed form): never INCONCLUSIVE.",
    stochastic=False,
)
def llm_consistency(
    ctx: Context, *, width_exponent: Callable = theory.chinchilla_width_exponent
) -> CheckResult:
    """α_m = 2.52 × 0.35 with error propagation reproduces the paper's 0.88 ± 0.06 (value within
    0.005; the linear sum of the error terms within 0.005 of 0.06), and differs from the fitted
    0.91 by less than the combined uncertainty (quadrature)."""
    est = width_exponent()
    combined = float(np.hypot(est.sigma, PAPER_LLM["alpha_m_fit_sigma"]))
    diff = abs(est.value - PAPER_LLM["alpha_m_fit"])
    checks = {
        "value": abs(est.value - PAPER_LLM["chinchilla"]) <= 0.005,
        "uncertainty": abs(est.sigma_linear - PAPER_LLM["chinchilla_sigma"]) <= 0.005,
        "consistent": diff <= combined,
    }
    verdict, failed = _decide(checks)
    fig, ax = new_figure()
    ax.errorbar(
        [0],
        [PAPER_LLM["alpha_m_fit"]],
        yerr=[PAPER_LLM["alpha_m_fit_sigma"]],
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
    return CheckResult(
        verdict=verdict,
        summary=f"α_m = {est.value:.3f} ± {est.sigma:.3f} (quadrature; linear {est.sigma_linear:.3f}) vs "
        f"fitted 0.91 ± 0.04: |Δ| = {diff:.3f} ≤ {combined:.3f}" + failed,
        measured={
            "alpha_m": est.value,
            "sigma_quadrature": est.sigma,
            "sigma_linear": est.sigma_linear,
            "difference": diff,
            "combined_sigma": combined,
        },
        expected=PAPER_LLM,
        tolerance="value within 0.005 of 0.88 and linear σ within 0.005 of 0.06; |Δ| ≤ combined σ",
        figures=ctx.save_figure(fig),
    )
