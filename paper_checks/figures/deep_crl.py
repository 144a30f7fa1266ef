"""Figures of the deep_crl claims (Wang et al. 2025, arXiv 2503.14858; docs/deep_crl.md): each
draws what its check measured, with reference values and theory in black. Depth D counts the
Dense layers inside the residual blocks (D + 2 in all), and every depth axis says so."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paper_checks.plotting import THEORY, new_figure
from sims.deep_crl_units import mean_se
from sims.mazes import U4, GridMaze

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from neural.deep_crl import RankAgreement
    from sims.deep_crl_units import SignalStats

__all__ = [
    "DEPTH_NOTE",
    "geodesic_figure",
    "online_figure",
    "signal_figure",
    "trainability_figure",
]

DEPTH_NOTE = "D = Dense layers inside residual blocks (D + 2 in all)"
#: The legend entry of the signal table's values: our pilot, not the paper's (it prints none).
SIGNAL_TABLE_LABEL = (
    "reference: our width-128 pilot at init, not the paper's\n"
    "(docs/deep_crl.md#the-model-the-measurements-and-the-papers-numbers)"
)


def signal_figure(stats: SignalStats, width: int, n_seeds: int) -> Figure:
    """Gradient ratio, input-Jacobian gain and trunk gain at initialisation against depth per
    variant: seeds (dots), geometric means (circles) and the reference table (crosses, black)."""
    table = stats.table
    fig, axes = new_figure(ncols=3, figsize=(13, 3.8))
    panels = [("grad_ratio", "‖∇W_first‖ / ‖∇W_last‖"), ("jacobian_gain", "input-Jacobian gain"),
              ("trunk_gain", "trunk ‖h_out‖ / ‖h_in‖")]  # fmt: skip
    for ax, (metric, label) in zip(axes, panels, strict=True):
        for k, v in enumerate(v for v in table if metric in table[v]):
            depths = sorted(table[v][metric])
            values = stats.values[metric]
            for d in depths:
                ax.plot([d] * len(values[(v, d)]), values[(v, d)], ".", color=f"C{k}", alpha=0.5)
            ax.plot(depths, stats.curve(v, metric), "o-", color=f"C{k}", mfc="none", label=v)
            ax.plot(depths, [table[v][metric][d] for d in depths], "x--", color=THEORY, lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(f"depth D ({DEPTH_NOTE})", fontsize="small")
        ax.set_ylabel(label)
    axes[0].plot([], [], "x--", color=THEORY, label=SIGNAL_TABLE_LABEL)
    axes[0].legend(fontsize="x-small")
    axes[0].set_title(f"at init, width {width}, {n_seeds} seeds (dots)", fontsize="small")
    return fig


def trainability_figure(
    loss: Mapping[tuple, np.ndarray],
    curves: Mapping[tuple, Sequence[Sequence[float]]],
    variants: Sequence[str],
    depths: Sequence[int],
    batch: int,
) -> Figure:
    """Left: final training InfoNCE per seed (dots) and mean ± s.e. against depth per variant,
    with chance log B. Right: the seed-mean loss curves per (variant, depth)."""
    fig, (ax, ax_c) = new_figure(ncols=2, figsize=(10, 3.8))
    depths = list(depths)
    for k, v in enumerate(variants):
        for j, d in enumerate(depths):
            ax.plot([d] * len(loss[(v, d)]), loss[(v, d)], ".", color=f"C{k}", alpha=0.6)
            ax_c.plot(np.mean(curves[(v, d)], axis=0), color=f"C{k}", ls=["-", "--", ":", "-."][j % 4],
                      label=f"{v}, D = {d}")  # fmt: skip
        stats = [mean_se(loss[(v, d)]) for d in depths]
        ax.errorbar(depths, [s[0] for s in stats], [s[1] for s in stats], fmt="o-",
                    color=f"C{k}", mfc="none", capsize=3, label=f"{v} (mean ± s.e.)")  # fmt: skip
    ax.axhline(np.log(batch), color=THEORY, ls="--", lw=0.8, label="chance, log B")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"depth D ({DEPTH_NOTE})", fontsize="small")
    ax.set_ylabel("final training InfoNCE (nats)")
    ax.legend(fontsize="x-small")
    ax_c.set_xlabel("SGD step / (steps/50)")
    ax_c.set_ylabel("training InfoNCE")
    ax_c.legend(fontsize="x-small", ncol=2)
    return fig


def _f_of(records: Sequence[Mapping[str, Any]], depth: int) -> np.ndarray:
    """f(s_i, g_j) of the first record (seed 0) at ``depth``."""
    return np.asarray(next(r for r in records if r["params"]["depth"] == depth)["result"]["f"])


def geodesic_figure(
    ranks: RankAgreement,
    maze: GridMaze,
    records: Sequence[Mapping[str, Any]],
    u4_records: Sequence[Mapping[str, Any]],
) -> Figure:
    """ρ(f, −geodesic) and the shortcut index (``neural.deep_crl.rank_agreement``) per seed and
    mean ± s.e. against depth, beside the InfoNCE optimum's ρ; then the Q-maps f(start, g) of seed 0 at the shallowest and deepest
    depth on the serpentine maze and on U4 (the paper's Fig. 9 layout)."""
    rho, shortcut, rho_opt = ranks
    fig, (ax, ax_q0, ax_q1, ax_u0, ax_u1) = new_figure(ncols=5, figsize=(20, 3.8))
    depths = list(rho)
    for d in depths:
        ax.plot([d] * len(rho[d]), rho[d], ".", color="C0", alpha=0.6)
        ax.plot([d] * len(shortcut[d]), shortcut[d], ".", color="C1", alpha=0.6)
    for k, (series, label) in enumerate([(rho, "ρ(f, −geodesic)"), (shortcut, "shortcut ρ_euc − ρ_geo")]):  # fmt: skip
        stats = [mean_se(series[d]) for d in depths]
        ax.errorbar(depths, [s[0] for s in stats], [s[1] for s in stats], fmt="o-",
                    color=f"C{k}", mfc="none", capsize=3, label=label)  # fmt: skip
    ax.axhline(rho_opt, color=THEORY, ls="--", lw=0.8, label="optimum f* = log M/p (theory)")
    ax.set_xlabel(f"depth D ({DEPTH_NOTE}; 0 = one hidden layer)", fontsize="small")
    ax.set_ylabel("mean per-state Spearman ρ")
    ax.legend(fontsize="x-small")
    u4 = GridMaze.from_layout(U4)
    for axq, d, grid, recs, where in [
        (ax_q0, depths[0], maze, records, "serpentine"),
        (ax_q1, depths[-1], maze, records, "serpentine"),
        (ax_u0, depths[0], u4, u4_records, "U4, fixed random-walk data"),
        (ax_u1, depths[-1], u4, u4_records, "U4, fixed random-walk data"),
    ]:
        q = np.full(grid.walls.shape, np.nan)
        q[tuple(grid.cells.T)] = _f_of(recs, d)[grid.index[grid.start]]
        axq.imshow(q, cmap="viridis")
        axq.plot(*grid.start[::-1], "r*", ms=10)
        axq.set_title(f"{where}: Q-map f(start, g), D = {d} (seed 0)", fontsize="small")
        axq.set_xticks([])
        axq.set_yticks([])
    return fig


def online_figure(
    runs: Mapping[int, Sequence[Mapping[str, Any]]],
    reported: Mapping[str, Mapping[int, np.ndarray]],
    maze: GridMaze,
    paper_time_at_goal: Mapping[int, float],
) -> Figure:
    """Far-goal success and time at goal against environment steps per seed (thin) and their
    mean per depth, with each reported configuration's final mean (dotted) and the paper's Ant U4
    time at goal (black, not comparable); then the Q-maps of seed 0 at the shallowest and the
    deepest depth."""
    depths = list(runs)
    fig, axes = new_figure(ncols=4, figsize=(16, 3.8))
    for ax, key, label in [(axes[0], "success", "far-goal success rate"),
                           (axes[1], "time_at_goal", "far-goal time at goal / T")]:  # fmt: skip
        for k, d in enumerate(depths):
            for run in runs[d]:
                ax.plot(run["env_steps"], run[key], color=f"C{k}", alpha=0.35, lw=0.8)
            mean = np.mean([run[key] for run in runs[d]], axis=0)
            ax.plot(runs[d][0]["env_steps"], mean, color=f"C{k}", lw=2, label=f"D = {d} (mean)")
        ax.set_xlabel("environment steps")
        ax.set_ylabel(label)
        ax.set_ylim(-0.03, 1.03)
    for k, d in enumerate(depths):
        for config, by_depth in reported.items():
            axes[0].axhline(by_depth[d].mean(), color=f"C{k}", ls=":", lw=1.2,
                            label=f"D = {d}, config {config!r}: final mean")  # fmt: skip
    axes[0].legend(fontsize="x-small", title=DEPTH_NOTE, title_fontsize="xx-small")
    axes[0].set_title(f"{len(runs[depths[0]])} seeds (thin lines), actor = critic depth",
                      fontsize="small")  # fmt: skip
    for d, t in paper_time_at_goal.items():
        axes[1].axhline(t / 1000, color=THEORY, ls="--" if d == 4 else "-", lw=0.8,
                        label=f"paper Ant U4, D = {d}: {t:g}/1000 (not comparable)")  # fmt: skip
    axes[1].legend(fontsize="xx-small")
    for ax, d in zip(axes[2:], (depths[0], depths[-1]), strict=True):
        q = np.asarray(runs[d][0]["q_map"], dtype=float)  # None (JSON) = wall
        ax.imshow(q, cmap="viridis")
        per_cell = q.shape[0] / maze.walls.shape[0]  # q_map pixels per cell
        ax.plot(*((np.array(maze.start[::-1]) + 0.5) * per_cell - 0.5), "r*", ms=10)
        ax.set_title(f"small U-maze Q-map f(start, π̄, g), D = {d} (seed 0)", fontsize="small")
        ax.set_xticks([])
        ax.set_yticks([])
    return fig
