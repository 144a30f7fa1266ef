"""Figures of the online claims (``paper_checks.checks.online``): each takes what its check measured
and returns the Figure, with the paper's lines (M_tr = Ldim, BKM97's 2d/3, √d/10, 48√d) drawn in
black beside it. The learner's weights are drawn by :func:`paper_checks.plotting.plot_learner_weights`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paper_checks.plotting import THEORY, new_figure
from sims.online_experiments import closed_share
from theory.online import ConceptClass, constructions
from theory.online.bounds import LEARNER_CONSTANTS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "adversary_forces_figure",
    "below_two_thirds_figure",
    "bound_constants_figure",
    "census_5_points_figure",
    "gadget_gap_figure",
    "invariances_figure",
    "mtr_le_ldim_figure",
    "random_tree_d5_figure",
    "tree_class_figure",
    "two_thirds_line_figure",
]


def gadget_gap_figure(pairs: Mapping[tuple[int, int], int]) -> Figure:
    """The 4-point census: one marker per (Ldim, M_tr) pair, sized by its class count, gaps in
    orange, beside the diagonal M_tr = Ldim."""
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
    return fig


def _count_grid(counts: Mapping[tuple[int, int], int], size: int) -> np.ndarray:
    grid = np.zeros((size, size), dtype=np.int64)
    for (ld, mt), n in counts.items():
        grid[ld, mt] = n
    return grid


def _heat_map(ax: Axes, grid: np.ndarray, title: str) -> None:
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


def census_5_points_figure(
    four_pairs: Mapping[tuple[int, int], int],
    five_counts: Mapping[tuple[int, int], int],
    scope: str,
) -> Figure:
    """Heat maps of the (Ldim, M_tr) counts: all 4-point classes (left), the counted 5-point
    classes (right)."""
    fig, axes = new_figure(ncols=2, figsize=(11.0, 4.6))
    _heat_map(axes[0], _count_grid(four_pairs, 5), "all 65,535 classes on 4 points")
    _heat_map(axes[1], _count_grid(five_counts, 6), f"5 points, {scope}")
    return fig


def two_thirds_line_figure(ldims: Sequence[int], mtrs: Sequence[int], k_max: int) -> Figure:
    """(Ldim, M_tr) of W^k against M_tr = d and BKM97's 2d/3."""
    fig, ax = new_figure()
    d = np.array([0, 3 * k_max])
    ax.plot(d, d, color=THEORY, lw=1, label="M_tr = d")
    ax.plot(d, 2 * d / 3, color=THEORY, ls="--", lw=1, label="M_tr = 2d/3 (theory)")
    ax.plot(ldims, mtrs, "o", color="C1", label="W^k, exact (measured)")
    ax.set_xlabel("d = Ldim")
    ax.set_ylabel("M_tr")
    ax.legend(fontsize="small")
    return fig


def mtr_le_ldim_figure(ld: np.ndarray, m: np.ndarray) -> Figure:
    """The random classes' (Ldim, M_tr) pairs, sized by count, under the diagonal M_tr = Ldim."""
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
    ax.set_title(f"{len(ld)} random classes, |X| ≤ 8", fontsize="small")
    ax.legend(fontsize="small")
    return fig


def bound_constants_figure(first: int | None, crossings: Mapping[str, int]) -> Figure:
    """The mistake bounds against d on log axes: Ldim, 2d/3, 48√d, 115.7√d, √d/10, with the first
    d where the lower bound's inequality holds and the crossings with 2d/3."""
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
    return fig


def invariances_figure(
    product_pairs: Sequence[tuple[int, int]], rng: np.random.Generator
) -> Figure:
    """M_tr of each product against the sum of its factors' (jittered by ``rng``: drawing only)."""
    pairs = np.array(product_pairs)
    fig, ax = new_figure()
    top = int(pairs.max()) if pairs.size else 1
    ax.plot([0, top], [0, top], color=THEORY, lw=1, label="M_tr(H×G) = M_tr(H) + M_tr(G) (theory)")
    jitter = rng.uniform(-0.12, 0.12, size=pairs.shape)
    ax.plot(*(pairs + jitter).T, "o", ms=3, alpha=0.5, label="random pairs (measured, jittered)")
    ax.set_xlabel("M_tr(H) + M_tr(G)")
    ax.set_ylabel("M_tr(H × G)")
    ax.legend(fontsize="small")
    return fig


def tree_class_figure(
    exact_ds: Sequence[int],
    exact_vals: Sequence[int],
    cert_ds: Sequence[int],
    cert_vals: Sequence[int],
    random_rows: np.ndarray,
    mtr: Callable[[ConceptClass], int],
) -> Figure:
    """M_tr against d: the minimal tree classes (exact and certified), W^k for k = 1, 2 (by
    ``mtr``, the check's solver, for drawing only), and the random tree classes at d = 3, 4,
    beside d, 2d/3, √d/10 and 48√d."""
    w_k = [(3 * k, mtr(constructions.gadget_power(k))) for k in (1, 2)]
    ds = [*exact_ds, *cert_ds]
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
        values, counts = np.unique(random_rows[random_rows[:, 0] == d][:, 3], return_counts=True)
        ax.scatter(np.full(values.size, d + 0.15), values, s=8 + 4 * counts, color="C5", marker="D")
    ax.scatter([], [], color="C5", marker="D", label="random tree classes (q = .1, .25), exact")
    ax.set_xlabel("d = Ldim")
    ax.set_ylabel("M_tr")
    ax.set_ylim(0, max(ds) + 1.5)
    ax.legend(fontsize=6)
    return fig


def adversary_forces_figure(
    g: np.ndarray,
    v: np.ndarray,
    upper: np.ndarray,
    trace: Mapping[str, np.ndarray],
    pilot: tuple[int, int, int],
    rng: np.random.Generator,
) -> Figure:
    """Left: the value v(H, x) and the upper bound against the guaranteed mistakes g, per run
    (jittered by ``rng``: drawing only). Right: log2 |V_t| of the case (n, g, v) = ``pilot``
    played against SOA, with its forced steps."""
    fig, (ax, ax_t) = new_figure(ncols=2)
    jitter = rng.uniform(-0.1, 0.1, size=g.size)
    ax.plot(g + jitter, v, "o", ms=3.5, mfc="none", label="v(H, x) (measured)")
    ax.plot(g + jitter, upper, "_", ms=8, color="C3", label="M_tr or Ldim (upper)")
    top = int(upper.max())
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
    ax_t.set_title(f"d = 6, (ε, M) = (.05, 4): n = {pilot[0]}, g = {pilot[1]}", fontsize="small")
    ax_t.legend(fontsize="small")
    return fig


def below_two_thirds_figure(
    pairs: Mapping[tuple[int, int], int],
    good: Sequence[Mapping[str, Any]],
    restarts: int,
    scored: int,
    cpu: float,
) -> Figure:
    """Every (Ldim, M_tr) the search met (red below the 2/3 line, orange a gap above it), the
    certified witnesses as stars, beside M_tr = Ldim and 2·Ldim/3."""
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
        f"{restarts} annealing restarts, {scored:,} classes on ≤ 10 points, {cpu:.0f} CPU s",
        fontsize="small",
    )
    ax.legend(fontsize=6)
    return fig


def random_tree_d5_figure(
    rows: Sequence[Mapping[str, Any]],
    qs: Sequence[float],
    minimal: Sequence[int],
    n_per_q: int,
) -> Figure:
    """Left: M_tr of the random tree classes per d and q (closed values as markers sized by count,
    open brackets as bars) and of the minimal tree class, beside d and 2d/3. Right: the share of
    closed classes with M_tr = d, d − 1, d − 2."""
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
    ax.plot(range(1, 6), minimal, "o", mfc="none", color="C0", label="minimal tree class (q = 0)")
    ax.set_xlabel("d = Ldim")
    ax.set_ylabel("M_tr")
    ax.legend(fontsize=6)
    width = 0.25
    for j, k in enumerate((2, 1, 0)):  # M_tr = d, d − 1, d − 2
        ax_r.bar(
            np.arange(3) + (j - 1) * width,
            [closed_share(rows, d, None, lambda v, d=d, k=k: v == d - k) for d in (3, 4, 5)],
            width,
            label=f"M_tr = d − {k}" if k else "M_tr = d",
            color=f"C{4 + j}",
        )
    ax_r.set_xticks(np.arange(3), ["d = 3", "d = 4", "d = 5"])
    ax_r.set_ylabel(f"share of closed classes (q = .1 and .25, {n_per_q} each)")
    ax_r.legend(fontsize=6)
    return fig
