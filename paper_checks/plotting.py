"""Figures: one packaged style, the object-oriented API, PNG + PDF output.

Helpers take ``ax=None`` and return the artists they draw; nothing here calls ``plt.show()``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from theory.rmt import Spectrum

STYLE = files("paper_checks") / "paper.mplstyle"

#: Colours: theory is drawn in black lines, measurements in coloured markers.
THEORY = "black"


#: matplotlib's style context edits the global rcParams: checks run in threads take turns.
_STYLE_LOCK = threading.RLock()


@contextmanager
def style() -> Iterator[None]:
    """The package's matplotlib style, as a context manager (one thread at a time)."""
    import matplotlib.pyplot as plt

    with _STYLE_LOCK, plt.style.context(str(STYLE)):
        yield


def new_figure(ncols: int = 1, nrows: int = 1, **kwargs: Any) -> tuple[Figure, Any]:
    """A figure (not managed by pyplot's global state) and its axes, in the package style."""
    from matplotlib.figure import Figure

    with style():
        fig = Figure(
            figsize=kwargs.pop("figsize", (4.2 * ncols, 3.4 * nrows)), layout="constrained"
        )
        axes = fig.subplots(nrows, ncols, squeeze=True, **kwargs)
    return fig, axes


def save_figure(
    fig: Figure, directory: Path, stem: str, root: str | os.PathLike[str] | None = None
) -> list[Path]:
    """Write ``fig`` to ``directory/stem.png`` and ``.pdf`` through the one writer
    (:func:`paper_checks._files.save_figure`: rendered into a temporary folder beside the targets,
    each file fsynced and renamed into place, never through a symlink or onto anything but a
    regular file); return both paths (PNG first). ``root`` is the directory the user named,
    which both files must resolve inside: by default ``directory``'s parent, the run directory
    of a check's ``figures/`` (:meth:`paper_checks.context.Context.save_figure`), so a
    ``figures`` symlink leading out of the run is refused."""
    from paper_checks._files import save_figure as publish

    directory = Path(directory)
    return publish(fig, directory, stem, directory.parent if root is None else root)


def render_figure(fig: Figure, directory: Path, stem: str) -> list[Path]:
    """Render ``fig`` to ``directory/stem.png`` and ``.pdf`` directly (no temporary file, no
    checks: the writer renders into its own temporary folder with this); return both paths.

    The figure's constrained layout (which keeps every label inside the canvas, so no tight
    bounding box is needed) is solved once, in the PNG's draw, and kept for the PDF: the layout
    pass and the tight-box draws were most of a figure's cost."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"{stem}.png", directory / f"{stem}.pdf"]
    with style():
        fig.savefig(paths[0])
        engine = fig.get_layout_engine()
        fig.set_layout_engine("none")  # the positions just solved stay
        fig.savefig(paths[1])
        fig.set_layout_engine(engine)
    return paths


def plot_pass_at_k(
    ks: Sequence[float],
    curves: dict[str, Sequence[float]],
    *,
    ax: Axes | None = None,
    theory: dict[str, Sequence[float]] | None = None,
    crossing: float | None = None,
) -> list[Any]:
    """pass@k against k (log2 axis): measured curves as markers, theory as lines (a measured
    curve and a theory curve with the same label share a colour), and an optional vertical line
    at the crossing k*."""
    if ax is None:
        _, ax = new_figure()
    theory = theory or {}
    labels = list(dict.fromkeys([*theory, *curves]))
    colours = {label: f"C{i}" for i, label in enumerate(labels)}
    artists: list[Any] = []
    for label, values in theory.items():
        artists += ax.plot(ks, values, "-", lw=1.2, color=colours[label], label=f"{label} (theory)")
    for label, values in curves.items():
        artists += ax.plot(
            ks, values, "o", ms=3.5, mfc="none", color=colours[label], label=f"{label} (measured)"
        )
    if crossing is not None:
        artists.append(
            ax.axvline(crossing, color="0.4", ls=":", lw=1, label=f"k* ≈ {crossing:.3g}")
        )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    ax.legend(fontsize="small")
    return artists


def plot_bands(
    ks: Sequence[float],
    curves: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float]]],
    *,
    colours: Sequence[str] | dict[str, str] | None = None,
    ax: Axes | None = None,
) -> list[Any]:
    """Each curve ``label: (estimate, low, high)`` as points joined by a line, with the band
    [low, high] shaded in its colour; log2 k axis. Returns the line artists (legend handles)."""
    if ax is None:
        _, ax = new_figure()
    if colours is None:
        colours = [f"C{i}" for i in range(len(curves))]
    if isinstance(colours, dict):
        colours = [colours[label] for label in curves]
    lines: list[Any] = []
    for (label, (estimate, low, high)), colour in zip(curves.items(), colours, strict=True):
        ax.fill_between(ks, low, high, color=colour, alpha=0.2, lw=0)
        lines += ax.plot(ks, estimate, "o-", ms=3.5, lw=1.2, color=colour, label=label)
    ax.set_xscale("log", base=2)
    return lines


def log_ticks(lo: float, hi: float, max_ticks: int = 6) -> list[float]:
    """At most ``max_ticks`` tick positions for a log axis over [lo, hi] (0 < lo < hi), at
    round values: powers of ten when the range holds two or more, else 1-2-5 multiples, else
    every 1..9 multiple, else (a range well inside one decade) evenly spaced round numbers.
    Evenly thinned to ``max_ticks``, so that their labels never crowd one another."""
    from matplotlib.ticker import MaxNLocator

    decades = range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
    ticks: list[float] = []
    for mantissas in ((1,), (1, 2, 5), tuple(range(1, 10))):
        ticks = [m * 10.0**e for e in decades for m in mantissas if lo <= m * 10.0**e <= hi]
        if len(ticks) >= 2:
            break
    if len(ticks) < 2:
        ticks = [v for v in MaxNLocator(nbins=4).tick_values(lo, hi) if lo <= v <= hi]
    step = -(-len(ticks) // max_ticks)  # ceil: keep every step-th
    return [float(v) for v in ticks[::step]]


def _tick_label(value: float, _pos: object = None) -> str:
    """A tick value in at most 3 significant digits, without an exponent where one is not
    needed (0.02, 5, 300; 1e-05)."""
    return f"{value:.3g}"


def set_log_ticks(ax: Axes, lo: float, hi: float) -> None:
    """Label the log x axis of ``ax`` over [lo, hi] at :func:`log_ticks` only (minor ticks
    unlabelled): matplotlib's own log labels overlap on ranges of about one decade."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    ax.xaxis.set_major_locator(FixedLocator(log_ticks(lo, hi)))
    ax.xaxis.set_major_formatter(FuncFormatter(_tick_label))
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_spectrum_panels(
    spec: Spectrum, eigs: Sequence[float], p: int, axes: Sequence[Axes]
) -> None:
    """Fig. 4 of the paper: a density histogram of sampled eigenvalues (normalised over all p,
    the delta included) against the theory density; the bulks near s_t² and the top bulk on
    separate log axes, since one axis cannot resolve both. Each panel runs from the foot of its
    lowest bulk to the last λ where its density is visible (above 1e-3 of its peak, the bottom
    of the y axis), with round, uncrowded tick labels (:func:`set_log_ticks`)."""
    split = (spec.bulks[-2].upper + spec.bulks[-1].lower) / 2 if len(spec.bulks) > 1 else None
    groups = [spec.lam < split, spec.lam >= split] if split is not None else [spec.lam > 0]
    for ax, sel in zip(axes, groups, strict=False):
        lam, rho = spec.lam[sel], spec.density[sel]
        lo = lam[rho > 0].min() * 0.9  # from the foot of the lowest bulk (s_t² nearby)
        hi = lam[rho >= rho.max() * 1e-3].max() * 1.1
        bins = np.geomspace(lo, hi, 45)
        counts, _ = np.histogram(np.asarray(eigs), bins=bins)
        ax.stairs(counts / p / np.diff(bins), bins, fill=True, alpha=0.45, label="sampled")
        ax.plot(lam, rho, color=THEORY, lw=1.2, label="theory ρ(λ)")
        ax.set(xscale="log", yscale="log", xlabel="λ", ylabel="ρ(λ)", xlim=(lo, hi))
        ax.set_ylim(rho.max() * 1e-3, rho.max() * 3)
        set_log_ticks(ax, lo, hi)
    axes[0].legend(fontsize="small")


def plot_learner_weights(
    bounds: Sequence[float],
    mistakes: Sequence[int],
    factors: Sequence[float],
    case_totals: dict[str, int],
    weight_factor: float,
) -> Figure:
    """The upper-bound learner's weight argument (``online.learner_invariants``): mistakes
    against the bound log_{1/f}(1/w_true) per run; how many learner mistakes left each fraction
    W_after/W_before of the total weight (one stem per distinct fraction, so a stem at 1/2 is
    exactly 1/2), beside the bound f and the paper's 1/2; the true expert's mistakes by case."""
    fig, (ax, ax_f, ax_c) = new_figure(ncols=3)
    ax.plot(bounds, mistakes, "o", ms=3, mfc="none", label="runs (measured)")
    top = max(bounds)
    ax.plot([0, top], [0, top], color=THEORY, lw=1, label="log_(1/f)(1/w_true) (theory bound)")
    ax.set_xlabel(f"log_(1/f)(1 / weight of the true expert), f = {weight_factor:g}")
    ax.set_ylabel("learner mistakes")
    ax.legend(fontsize="small")
    values, counts = np.unique(np.round(np.asarray(factors, float), 6), return_counts=True)
    ax_f.vlines(values, 0.8, counts, color="C1", lw=1.5)
    ax_f.plot(values, counts, "o", color="C1", ms=4, label="learner mistakes (measured)")
    ax_f.axvline(weight_factor, color=THEORY, lw=1, label=f"bound f = {weight_factor:g} (theory)")
    ax_f.axvline(0.5, color=THEORY, ls=":", lw=1, label="paper's halving, 1/2")
    above = int(np.sum(np.asarray(factors) > 0.5 + 1e-12))
    ax_f.set_title(f"{above} of {len(factors)} mistakes leave more than 1/2", fontsize="small")
    ax_f.set_yscale("log")
    ax_f.set_ylim(0.7, 50 * counts.max())  # headroom for the legend
    ax_f.set_xlim(0, 1)
    ax_f.set_xlabel("W_after / W_before at a learner mistake")
    ax_f.set_ylabel("mistakes")
    ax_f.legend(fontsize="small", loc="upper right")
    ax_c.bar(list(case_totals), list(case_totals.values()), color="C2")
    ax_c.set_ylabel("true expert's mistakes, by case")
    ax_c.tick_params(axis="x", labelsize=7)
    return fig
