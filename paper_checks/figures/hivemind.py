"""Figures of the hivemind claims: each draws what its check measured beside the exact values
of the constructions (theory in black)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from paper_checks.plotting import THEORY, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from sims.hivemind import OrthogonalModelsMetrics, PlantedMeans
    from theory.significance import CurveZTest

__all__ = [
    "disjoint_models_figure",
    "entropy_values_figure",
    "minilm_paraphrase_figure",
    "similarity_exact_figure",
]


def similarity_exact_figure(
    cs: np.ndarray, ns: Sequence[int], means: PlantedMeans, tolerance: float
) -> Figure:
    """Left: s̄ of planted sets against c. Right: the errors of s̄ and of the fast mean."""
    fig, (ax, ax_e) = new_figure(ncols=2)
    ax.plot([0, 1], [0, 1], "-", color=THEORY, lw=1, label="s̄ = c (theory)")
    for j, n in enumerate(ns):
        ax.plot(cs, means.s_bar[:, j], "o", ms=4, mfc="none", label=f"measured, N = {n}")
    ax.set_xlabel("planted pairwise cosine c")
    ax.set_ylabel("s̄")
    ax.legend(fontsize="small")
    ax_e.semilogy(np.abs(means.fast - means.brute) + 1e-18, "o", ms=3, label="|fast − brute force|")
    ax_e.semilogy(np.abs(means.s_bar - cs[:, None]).ravel() + 1e-18, "s", ms=3, label="|s̄ − c|")
    ax_e.axhline(tolerance, color=THEORY, ls="--", label="tolerance (theory: 0)")
    ax_e.set_xlabel("case")
    ax_e.set_ylabel("absolute error")
    ax_e.legend(fontsize="small")
    return fig


def disjoint_models_figure(
    orth: OrthogonalModelsMetrics,
    ref: np.ndarray,
    test: CurveZTest,
    theory: np.ndarray,
    sizes: tuple[int, int, int],
) -> Figure:
    """Left: the top-N curve of orthogonal models against the disjoint reference. Right: the
    interchangeable models' mean curve ± the family-wise critical s.e. against the
    hypergeometric one; ``sizes`` = (models, responses per model, queries) of the latter."""
    n_models, per_model = len(orth.inter_diag), len(orth.disjoint_curve)
    m_big, n_big, n_queries = sizes
    fig, (ax_d, ax_i) = new_figure(ncols=2)
    ns = np.arange(1, per_model + 1)
    ax_d.plot(ns, ref, "-", color=THEORY, label="disjoint (theory)")
    ax_d.plot(ns, orth.disjoint_curve, "o", mfc="none", label="measured")
    ax_d.set_xlabel("N nearest neighbours")
    ax_d.set_ylabel("distinct models")
    ax_d.set_title(
        f"{n_models} orthogonal models × {per_model}; max |inter off-diag| = "
        f"{orth.inter_offdiag_max_abs:.0e}",
        fontsize="small",
    )
    ax_d.legend(fontsize="small")
    nb = np.arange(1, len(theory) + 1)
    ax_i.plot(nb, theory, "-", color=THEORY, label="hypergeometric (theory)")
    ax_i.errorbar(
        nb, test.mean, yerr=test.critical * test.se, fmt="o", ms=3, mfc="none",
        label=f"measured ± {test.critical:.2f} s.e. (family-wise)",
    )  # fmt: skip
    ax_i.set_xlabel("N nearest neighbours")
    ax_i.set_ylabel("distinct models")
    ax_i.set_title(
        f"interchangeable: {m_big} models × {n_big}, {n_queries} queries", fontsize="small"
    )
    ax_i.legend(fontsize="small")
    return fig


def entropy_values_figure(
    names: Sequence[str],
    measured: Sequence[float],
    expected: Sequence[float],
    ent_all: np.ndarray,
    pd_all: np.ndarray,
) -> Figure:
    """Left: each case's entropy or P_dis against its value by hand. Right: (entropy, P_dis)
    over every split, with the two maxima."""
    fig, (ax, ax_h) = new_figure(ncols=2)
    x = np.arange(len(names))
    ax.bar(x, measured, 0.6, label="measured")
    ax.plot(x, expected, "_", color=THEORY, ms=22, mew=2, label="spec value (theory)")
    ax.set_xticks(x, names, rotation=30, fontsize="small")
    ax.set_ylabel("bits / P_dis")
    ax.legend(fontsize="small")
    shown = np.unique(np.round(np.column_stack([ent_all, pd_all]), 3), axis=0)  # distinct points
    ax_h.scatter(*shown.T, s=2, alpha=0.5, rasterized=True, label=f"all {len(ent_all):,} splits")
    ax_h.axvline(np.log2(5), color=THEORY, ls="--", label="log2 5 (theory max)")
    ax_h.axhline(0.5, color=THEORY, ls=":", label="0.5 (theory max)")
    ax_h.set_xlabel("entropy (bits)")
    ax_h.set_ylabel("P_dis")
    ax_h.legend(fontsize="small")
    return fig


def minilm_paraphrase_figure(para: np.ndarray, unrelated: np.ndarray, embedder_name: str) -> Figure:
    """Histograms of the paraphrase and the unrelated cosines, with the highest unrelated one."""
    fig, ax = new_figure()
    ax.hist(unrelated, bins=20, range=(-0.2, 1.0), alpha=0.7, label="unrelated pairs (measured)")
    ax.hist(para, bins=20, range=(-0.2, 1.0), alpha=0.7, label="paraphrases (measured)")
    ax.axvline(unrelated.max(), color=THEORY, ls="--", label="paraphrases must lie right of this")
    ax.set_xlabel(f"cosine ({embedder_name})")
    ax.set_ylabel("pairs")
    ax.legend(fontsize="small")
    return fig
