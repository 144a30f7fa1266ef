"""The per-unit statistics of the diffusion paper's claims (Bonnaire, Urfin, Biroli, Mézard,
NeurIPS 2025, arXiv 2505.17638), read from the records of the sweeps of :mod:`sims.rmt` and
:mod:`sims.diffusion_rf`.

A *unit* is one independent draw of a claim's whole experiment (W, X and Ω afresh): one seed of
the ψ_n sweep for the timescales of Fig. 5 (:func:`unit_exponents`) and the τ = ∞ gap of Fig. 3
(:func:`threshold_units`), one draw of both GD runs against the gradient flow of §3
(:func:`gd_plateaus`). Also the eigenvalue count per bulk of a sampled spectrum
(:func:`group_counts`, Theorem 3.1's four groups). The model and its conventions are written out
in docs/diffusion.md#the-papers-model-and-what-the-checks-use.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from theory import _domain
from theory.fits import PowerLawFit, fit_power_law
from theory.rmt import Spectrum

__all__ = [
    "GDPlateaus",
    "GapCurve",
    "TimescaleSweep",
    "expected_group_counts",
    "gap_curve",
    "gap_table",
    "gd_plateaus",
    "group_counts",
    "plateau_error",
    "threshold_units",
    "unit_exponents",
]

Array = NDArray[np.float64]


# ------------------------------------------------------------------------------ spectrum
def group_counts(eigs: Array, spec: Spectrum) -> list[int]:
    """How many of the eigenvalues ``eigs`` fall in each bulk of ``spec``, the boundaries taken
    halfway across each gap between neighbouring bulks (Theorem 3.1: the bulks hold d, n − d and
    d of the p eigenvalues beside the delta).

    Parameters
    ----------
    eigs : numpy.ndarray of float
        The sampled eigenvalues (those at the delta left out).
    spec : theory.rmt.Spectrum
        The predicted spectrum; its ``bulks`` (``lower``, ``upper``) in increasing order.

    Returns
    -------
    list of int
        One count per bulk.

    Raises
    ------
    ValueError
        Unless ``eigs`` is a 1-D array of finite reals.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_units import group_counts
    >>> from types import SimpleNamespace as Bulk
    >>> spec = Bulk(  # stands in for theory.rmt.rf_spectrum(...) (a second to solve)
    ...     delta_mass=0.25,
    ...     bulks=[Bulk(lower=0.1, upper=1.0, mass=0.5), Bulk(lower=2.0, upper=4.0, mass=0.25)],
    ... )
    >>> group_counts(np.array([0.2, 0.5, 0.9, 1.2, 3.0]), spec)  # cut at 1.5
    [4, 1]
    """
    _domain.reals("eigs", eigs, ndim=1, nonempty=False)
    gaps = [(a.upper + b.lower) / 2 for a, b in itertools.pairwise(spec.bulks)]
    cuts = [-np.inf, *gaps, np.inf]
    return [int(np.sum((eigs > lo) & (eigs <= hi))) for lo, hi in itertools.pairwise(cuts)]


def expected_group_counts(spec: Spectrum, p: int) -> list[int]:
    """The eigenvalue counts per group that ``spec`` predicts for a p × p matrix: the delta's mass
    and each bulk's times p, rounded (the groups of :func:`group_counts`, the delta first).

    Parameters
    ----------
    spec : theory.rmt.Spectrum
        The predicted spectrum (``delta_mass`` and the bulks' ``mass``).
    p : int
        The matrix's size.

    Returns
    -------
    list of int
        The delta's count, then one per bulk.

    Examples
    --------
    >>> from sims.diffusion_units import expected_group_counts
    >>> from types import SimpleNamespace as Bulk
    >>> spec = Bulk(  # stands in for theory.rmt.rf_spectrum(...) (a second to solve)
    ...     delta_mass=0.25,
    ...     bulks=[Bulk(lower=0.1, upper=1.0, mass=0.5), Bulk(lower=2.0, upper=4.0, mass=0.25)],
    ... )
    >>> expected_group_counts(spec, 200)
    [50, 100, 50]
    """
    return [round(spec.delta_mass * p), *(round(b.mass * p) for b in spec.bulks)]


# ------------------------------------------------------------------------------ timescales
@dataclass(frozen=True)
class TimescaleSweep:
    """The ψ_n sweep of ``score_dynamics_task`` (Fig. 5), one entry per record: ψ_n, the unit
    (seed index), τ_gen, τ_mem (nan where the score error never doubles after its minimum) and
    the minimal score error; ``results`` are the records' results (the curves, for a figure)."""

    #: ψ_n of each record.
    psi: Array
    #: The unit (seed index) of each record.
    unit: NDArray[np.int64]
    #: τ_gen of each record.
    tau_gen: Array
    #: τ_mem of each record (nan where the score error never doubles after its minimum).
    tau_mem: Array
    #: The minimal score error of each record.
    score_min: Array
    #: The records' results (the curves, for a figure).
    results: list[dict[str, Any]]

    @classmethod
    def of(cls, records: Sequence[dict[str, Any]]) -> TimescaleSweep:
        """The sweep's records (``{"params", "seed_index", "result"}``) as columns."""
        res = [r["result"] for r in records]
        return cls(
            psi=np.array([r["params"]["psi_n"] for r in records], dtype=float),
            unit=np.array([r["seed_index"] for r in records], dtype=int),
            tau_gen=np.array([r["tau_gen"] for r in res], dtype=float),
            tau_mem=np.array([r["tau_mem"] for r in res], dtype=float),  # None (JSON null) → nan
            score_min=np.array([r["score_min"] for r in res], dtype=float),
            results=res,
        )

    @property
    def doubled(self) -> NDArray[np.bool_]:
        """Where the score error doubled after its minimum (τ_mem is finite)."""
        return np.isfinite(self.tau_mem)

    @property
    def arrays(self) -> dict[str, Array]:
        """ψ_n, τ_gen, τ_mem and the minimal score error, by name."""
        return {
            "psi_n": self.psi,
            "tau_gen": self.tau_gen,
            "tau_mem": self.tau_mem,
            "score_min": self.score_min,
        }

    def pooled_fits(self) -> tuple[PowerLawFit, PowerLawFit | None, PowerLawFit]:
        """Power laws in ψ_n fitted over all points of all units: τ_gen, τ_mem (None unless ≥ 3
        finite τ_mem at ≥ 2 distinct ψ_n) and the minimal score error."""
        doubled = self.doubled
        fit_gen = fit_power_law(self.psi, self.tau_gen, n_boot=0)
        fit_min = fit_power_law(self.psi, self.score_min, n_boot=0)
        fit_mem = (
            fit_power_law(self.psi[doubled], self.tau_mem[doubled], n_boot=0)
            if len(set(self.psi[doubled])) >= 2 and doubled.sum() >= 3
            else None
        )
        return fit_gen, fit_mem, fit_min

    def measured(
        self,
        units: dict[str, list[float]],
        fits: tuple[PowerLawFit, PowerLawFit | None, PowerLawFit],
    ) -> dict[str, Any]:
        """The sweep's columns, the exponents per unit (:meth:`unit_exponents`), the pooled
        exponents (:meth:`pooled_fits`) and the mean τ_mem exponent over units (None without
        one)."""
        fit_gen, fit_mem, fit_min = fits
        mem_units = units["tau_mem_exponent"]
        return {
            "psi_n": self.psi,
            "unit": self.unit,
            "tau_gen": self.tau_gen,
            "tau_mem": self.tau_mem,
            "score_min": self.score_min,
            "unit_exponents": units,
            "pooled_exponent_tau_gen": fit_gen.exponent,
            "pooled_exponent_tau_mem": None if fit_mem is None else fit_mem.exponent,
            "pooled_exponent_score_min": fit_min.exponent,
            "tau_mem_exponent": float(np.mean(mem_units)) if mem_units else None,
        }


def unit_exponents(
    psi: Array,
    unit: NDArray[np.int64],
    tau_gen: Array,
    tau_mem: Array,
    score_min: Array,
) -> dict[str, list[float]]:
    """Per unit (seed index), the least-squares exponents of τ_gen, τ_mem and the minimal score
    error against ψ_n over that unit's sweep (:func:`theory.fits.fit_power_law`). A unit's τ_mem
    exponent needs ≥ 3 points with a finite τ_mem at ≥ 2 distinct ψ_n (else that unit has none).

    Parameters
    ----------
    psi : numpy.ndarray of float
        ψ_n of every record.
    unit : numpy.ndarray of int
        The unit (seed index) of every record.
    tau_gen, tau_mem, score_min : numpy.ndarray of float
        Every record's timescales and minimal score error (τ_mem may be nan).

    Returns
    -------
    dict of str to list of float
        ``tau_gen_exponent``, ``tau_mem_exponent`` and ``score_min_exponent``, one per unit (the
        τ_mem list leaves out units without enough finite points).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_units import unit_exponents
    >>> psi = np.array([1.0, 2.0, 4.0, 1.0, 2.0, 4.0])
    >>> unit = np.array([0, 0, 0, 1, 1, 1])
    >>> out = unit_exponents(psi, unit, 2 * psi**0, 3 * psi, psi**-0.5)  # τ_gen constant
    >>> [np.round(out[name], 6).tolist() for name in ("tau_gen_exponent", "tau_mem_exponent")]
    [[0.0, 0.0], [1.0, 1.0]]
    >>> np.round(out["score_min_exponent"], 6).tolist()
    [-0.5, -0.5]
    """
    out: dict[str, list[float]] = {
        "tau_gen_exponent": [],
        "tau_mem_exponent": [],
        "score_min_exponent": [],
    }
    for u in np.unique(unit):
        sel = unit == u
        out["tau_gen_exponent"].append(fit_power_law(psi[sel], tau_gen[sel], n_boot=0).exponent)
        out["score_min_exponent"].append(fit_power_law(psi[sel], score_min[sel], n_boot=0).exponent)
        ok = sel & np.isfinite(tau_mem)
        if ok.sum() >= 3 and len(set(psi[ok])) >= 2:
            out["tau_mem_exponent"].append(fit_power_law(psi[ok], tau_mem[ok], n_boot=0).exponent)
    return out


# ------------------------------------------------------------------------------ threshold
def gap_table(
    records: Sequence[dict[str, Any]], psi_ns: Sequence[float], n_seeds: int
) -> tuple[Array, float]:
    """The gaps L_test(∞) − L_train(∞) of ``infinite_time_gap_task``'s records
    (:func:`sims.diffusion_rf.infinite_time_gap_task`) as a table (row: ψ_n, column: unit), and
    Δ_t.

    Parameters
    ----------
    records : sequence of dict
        The sweep's records (``params["psi_n"]``, ``seed_index``, ``result["gap"]``).
    psi_ns : sequence of float
        The sweep's ψ_n, in row order.
    n_seeds : int
        Units.

    Returns
    -------
    gaps : numpy.ndarray of float, (len(psi_ns), n_seeds)
        The gaps (nan where no record).
    delta : float
        Δ_t of the records.

    Examples
    --------
    >>> from sims.diffusion_units import gap_table
    >>> records = [
    ...     {"params": {"psi_n": psi_n}, "seed_index": seed, "result": {"gap": gap, "delta": 0.2}}
    ...     for psi_n, seed, gap in [(1.0, 0, 0.5), (2.0, 0, 0.1), (1.0, 1, 0.6), (2.0, 1, 0.12)]
    ... ]
    >>> gaps, delta = gap_table(records, [1.0, 2.0], n_seeds=2)
    >>> gaps.tolist(), delta
    ([[0.5, 0.6], [0.1, 0.12]], 0.2)
    """
    gaps = np.full((len(psi_ns), n_seeds), np.nan)
    for r in records:
        gaps[psi_ns.index(r["params"]["psi_n"]), r["seed_index"]] = r["result"]["gap"]
    return gaps, float(records[0]["result"]["delta"])


def threshold_units(
    psi: Array,
    gaps: Array,
    delta: float,
    psi_p: float,
    threshold_ratio: float,
) -> dict[str, list[float]]:
    """Per unit (a column of ``gaps``): the largest relative step (g_{k+1} − g_k)/abs(g_k) of
    its gap, its largest gap/Δ_t at ψ_n ≥ threshold_ratio·ψ_p, and the log-log slope of its gap
    over ψ_n ∈ [2ψ_p, 4ψ_p]. A draw whose tail gap is not positive gets tail slope +inf clipped
    to 10 (a gap that does not decay contradicts the claim).

    Parameters
    ----------
    psi : numpy.ndarray of float
        The increasing ψ_n grid, with ≥ 3 points in [2ψ_p, 4ψ_p].
    gaps : numpy.ndarray of float, (len(psi), units)
        The τ = ∞ gaps (:func:`gap_table`).
    delta : float
        Δ_t.
    psi_p : float
        ψ_p.
    threshold_ratio : float
        Where the threshold region starts, in units of ψ_p.

    Returns
    -------
    dict of str to list of float
        ``max_relative_step``, ``max_gap_over_delta_beyond_threshold`` and ``tail_slope``, one
        per unit.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_units import threshold_units
    >>> psi = np.array([1.0, 2.0, 4.0, 6.0, 8.0])
    >>> gaps = np.array([[1.0, 0.4, 0.1, 0.06, 0.04], [1.2, 0.5, 0.12, 0.07, 0.05]]).T  # 2 units
    >>> out = threshold_units(psi, gaps, delta=0.2, psi_p=2.0, threshold_ratio=1.0)
    >>> np.round(out["max_relative_step"], 3).tolist(), out["max_gap_over_delta_beyond_threshold"]
    ([-0.333, -0.286], [2.0, 2.5])
    >>> np.round(out["tail_slope"], 3).tolist()
    [-1.318, -1.267]
    """
    beyond = psi >= threshold_ratio * psi_p
    tail = (psi >= 2 * psi_p) & (psi <= 4 * psi_p)
    out: dict[str, list[float]] = {
        "max_relative_step": [],
        "max_gap_over_delta_beyond_threshold": [],
        "tail_slope": [],
    }
    for g in gaps.T:
        out["max_relative_step"].append(float(np.max(np.diff(g) / np.abs(g[:-1]))))
        out["max_gap_over_delta_beyond_threshold"].append(float(np.max(g[beyond]) / delta))
        out["tail_slope"].append(
            fit_power_law(psi[tail], g[tail], n_boot=0).exponent if np.all(g[tail] > 0) else 10.0
        )
    return out


@dataclass(frozen=True)
class GapCurve:
    """:func:`gap_curve`: the gap averaged over units and what it does."""

    #: The ψ_n grid.
    psi: Array
    #: Δ_t, the gap level the threshold is read at.
    delta: float
    #: Mean gap over units per ψ_n.
    gap: Array
    #: Whether it falls at every step of ψ_n.
    monotone: bool
    #: Whether it is below Δ_t at every ψ_n ≥ threshold_ratio·ψ_p.
    below_delta_beyond_threshold: bool
    #: Its log-log slope over ψ_n ∈ [2ψ_p, 4ψ_p] (None when a gap there is not positive).
    tail_slope: float | None
    #: The first ψ_n with gap = Δ_t, interpolated in log-log (nan when it never crosses).
    psi_n_where_gap_equals_delta: float
    #: The pilot's ψ_n and gaps, and the largest relative deviation of ours from them there.
    pilot_psi_n: Array
    #: The pilot's gaps at ``pilot_psi_n``.
    pilot_gap: Array
    #: The largest relative deviation of our gaps from ``pilot_gap``.
    pilot_max_relative_deviation: float

    def measured(self, units: dict[str, list[float]]) -> dict[str, Any]:
        """The curve's numbers, with the mean over ``units`` (:func:`threshold_units`) of the
        largest gap/Δ_t beyond the threshold, and the units themselves."""
        return {
            "psi_n": self.psi,
            "gap": self.gap,
            "gap_over_delta": self.gap / self.delta,
            "monotone": self.monotone,
            "below_delta_beyond_threshold": self.below_delta_beyond_threshold,
            "max_gap_over_delta_beyond_threshold": float(
                np.mean(units["max_gap_over_delta_beyond_threshold"])
            ),
            "psi_n_where_gap_equals_delta": self.psi_n_where_gap_equals_delta,
            "tail_slope": self.tail_slope,
            "spec_gap_max_relative_deviation": self.pilot_max_relative_deviation,
            "units": units,
        }


def gap_curve(
    psi: Array,
    gaps: Array,
    delta: float,
    psi_p: float,
    threshold_ratio: float,
    pilot: dict[int, float],
) -> GapCurve:
    """The mean over units (columns of ``gaps``) of the τ = ∞ gap against ψ_n (Fig. 3): whether it
    falls monotonically and lies below Δ_t from threshold_ratio·ψ_p on, its tail slope on
    [2ψ_p, 4ψ_p], where it crosses Δ_t (log-log interpolation), and how far it is from a
    ``pilot`` {ψ_n: gap} computed beforehand.

    Parameters
    ----------
    psi : numpy.ndarray of float
        The increasing ψ_n grid.
    gaps : numpy.ndarray of float, (len(psi), units)
        The τ = ∞ gaps (:func:`gap_table`).
    delta : float
        Δ_t.
    psi_p : float
        ψ_p.
    threshold_ratio : float
        Where the threshold region starts, in units of ψ_p.
    pilot : dict of int to float
        {ψ_n: gap} of the pilot; every pilot ψ_n must be on the grid ``psi``.

    Returns
    -------
    GapCurve
        The mean curve and its readings.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_units import gap_curve
    >>> psi = np.array([1.0, 2.0, 4.0, 6.0, 8.0])
    >>> gaps = np.array([[1.0, 0.4, 0.1, 0.06, 0.04], [1.2, 0.5, 0.12, 0.07, 0.05]]).T  # 2 units
    >>> curve = gap_curve(psi, gaps, delta=0.2, psi_p=2.0, threshold_ratio=1.0, pilot={2: 0.45})
    >>> curve.monotone, round(curve.psi_n_where_gap_equals_delta, 3)
    (True, 2.981)
    >>> curve.pilot_max_relative_deviation
    0.0
    """
    gap = gaps.mean(axis=1)
    beyond = psi >= threshold_ratio * psi_p
    tail = (psi >= 2 * psi_p) & (psi <= 4 * psi_p)
    fit_tail = (
        fit_power_law(psi[tail], np.abs(gap[tail]), n_boot=0) if np.all(gap[tail] > 0) else None
    )
    crossing = np.flatnonzero(gap < delta)
    if crossing.size and crossing[0] > 0:
        j = crossing[0]  # log-log interpolation of the first ψ_n with gap = Δ_t
        frac = np.log(gap[j - 1] / delta) / np.log(gap[j - 1] / gap[j])
        psi_cross = float(np.exp(np.log(psi[j - 1]) + frac * np.log(psi[j] / psi[j - 1])))
    else:
        psi_cross = math.nan
    pilot_psi = np.array(sorted(pilot), dtype=float)
    pilot_gap = np.array([pilot[int(x)] for x in pilot_psi])
    ours_at_pilot = gap[np.searchsorted(psi, pilot_psi)]
    return GapCurve(
        psi=psi,
        delta=delta,
        gap=gap,
        monotone=bool(np.all(np.diff(gap) < 0)),
        below_delta_beyond_threshold=bool(np.all(gap[beyond] < delta)) if beyond.any() else False,
        tail_slope=None if fit_tail is None else fit_tail.exponent,
        psi_n_where_gap_equals_delta=psi_cross,
        pilot_psi_n=pilot_psi,
        pilot_gap=pilot_gap,
        pilot_max_relative_deviation=float(np.max(np.abs(ours_at_pilot / pilot_gap - 1))),
    )


# ------------------------------------------------------------------------------ GD vs flow
def plateau_error(gd: Array, flow: Array) -> float:
    """The relative error of GD's plateau against the flow's over a window of checkpoints:
    abs(mean(1 − L_gd) − mean(1 − L_flow)) / abs(mean(1 − L_flow)).

    Parameters
    ----------
    gd : numpy.ndarray of float
        GD's losses in the window.
    flow : numpy.ndarray of float
        The flow's losses at the same τ.

    Returns
    -------
    float
        The relative error.

    Raises
    ------
    ValueError
        Naming ``gd`` or ``flow`` unless they are non-empty 1-D arrays of finite reals of one
        length, or ``flow`` if its mean loss is 1 (no plateau to compare with).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_units import plateau_error
    >>> round(plateau_error(np.array([0.9, 0.8]), np.array([0.8, 0.8])), 12)  # 0.05 / 0.2
    0.25
    """
    _domain.reals("flow", flow, ndim=1)
    _domain.reals("gd", gd, ndim=1)
    if np.shape(gd) != np.shape(flow):
        raise ValueError(f"gd must have flow's shape {np.shape(flow)} (got {np.shape(gd)})")
    if np.sum(flow) / np.size(flow) == 1.0:
        raise ValueError("flow must have a mean loss other than 1 (the error's denominator)")
    return float(abs(np.mean(gd) - np.mean(flow)) / abs(1.0 - np.mean(flow)))


@dataclass(frozen=True)
class GDPlateaus:
    """:func:`gd_plateaus`: the plateau errors of every record, per unit and of the first draw."""

    #: ``[unit, ψ_n, plateau name, "train" | "test", relative error]`` per plateau and loss.
    rows: list[list[Any]]
    #: The first draw's (unit 0's) errors, keyed by (ψ_n, plateau name, "train" | "test").
    first_draw: dict[tuple[Any, str, str], float]
    #: Per unit, in unit order, its worst error.
    worst_per_unit: list[float]
    #: Per reference-rate run with checkpoints in the generalisation window, the mean lift of
    #: GD's test loss above the flow's there, in units of Δ_t.
    reference_lift: list[float]
    #: The first draw's runs (``params``, ``result``, ``phase``, ``tau``, ``ranges``), for a figure.
    traces: list[dict[str, Any]]


def gd_plateaus(
    records: Sequence[dict[str, Any]],
    tau_per_step: Callable[[float, int, int], float],
    *,
    window_lr: float,
    plateaus: Sequence[tuple[str, str, str]],
) -> GDPlateaus:
    """GD against the closed-form flow of §3 on each plateau of ``gd_task``'s records
    (:func:`sims.diffusion_rf.gd_task`).

    A record is a "window" run when its ``lr_factor`` is ``window_lr``, else a "late" run; its
    checkpoints are put on the flow's time axis by τ = steps·``tau_per_step(lr_ref, d, p)``. The
    ranges: the generalisation window τ ∈ [τ*/1.5, 1.5τ*] around the flow's test-loss minimum
    τ*, and the memorisation phase τ ≥ τ_max/2. On each plateau, for train and test,
    :func:`plateau_error` of GD against the flow interpolated in log τ (10⁶ when the range holds
    no checkpoint).

    Parameters
    ----------
    records : sequence of dict
        The sweep's records.
    tau_per_step : callable
        (lr_ref, d, p) -> τ per GD step.
    window_lr : float
        The ``lr_factor`` of the window runs.
    plateaus : sequence of (str, str, str)
        (name, run phase, range) per plateau, phase and range each ``"window"`` or ``"late"``.

    Returns
    -------
    GDPlateaus
        The errors per unit, plateau and loss, the first draw's, each unit's worst, the
        reference runs' lift in the window, and the first draw's traces.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.diffusion_rf import gd_task
    >>> from sims.diffusion_units import gd_plateaus
    >>> records = []
    >>> for lr_factor, tau_end in ((0.01, 1.0), (0.05, 3.0)):  # a window run, a late run
    ...     params = {"d": 10, "psi_p": 2.0, "psi_n": 1.0, "t": 0.1, "lr_factor": lr_factor,
    ...               "tau_end": tau_end, "tau_end_is_test_min_multiple": True, "checkpoints": 8}
    ...     result = gd_task(params, np.random.default_rng(0))
    ...     records.append({"params": params, "seed_index": 0, "result": result})
    >>> plateaus = [("dip", "window", "window"), ("memorisation", "late", "late")]
    >>> out = gd_plateaus(
    ...     records, lambda lr_ref, d, p: lr_ref * p / d**2, window_lr=0.01, plateaus=plateaus
    ... )
    >>> sorted(out.first_draw)[:2], len(out.rows), len(out.worst_per_unit)
    ([(1.0, 'dip', 'test'), (1.0, 'dip', 'train')], 4, 1)
    """
    rows: list[list[Any]] = []
    errors: dict[tuple[Any, str, str], float] = {}
    reference_lift: list[float] = []
    unit_errors: dict[int, list[float]] = {}
    traces: list[dict[str, Any]] = []
    for r in records:
        res, prm, unit = r["result"], r["params"], r["seed_index"]
        phase = "window" if prm["lr_factor"] == window_lr else "late"
        delta = res["delta"]
        tau = np.asarray(res["steps"]) * tau_per_step(res["lr_ref"], res["d"], res["p"])

        def flow_at(key: str, tau: Array = tau, res: dict = res) -> Any:
            return np.interp(np.log(tau), np.log(res["tau"]), res[key])

        tau_star = float(res["tau"][int(np.argmin(res["flow_test"]))])
        ranges = {
            "window": (tau >= tau_star / 1.5) & (tau <= tau_star * 1.5),
            "late": tau >= tau.max() / 2,
        }
        if phase == "late" and ranges["window"].any():  # how far the SGD noise lifts the dip
            lift = (
                np.asarray(res["gd_test"])[ranges["window"]]
                - flow_at("flow_test")[ranges["window"]]
            )
            reference_lift.append(float(np.mean(lift) / delta))
        for name, run_phase, where in plateaus:
            if run_phase != phase:
                continue
            sel = ranges[where]
            for which in ("train", "test"):
                gd = np.asarray(res[f"gd_{which}"])
                flow = flow_at(f"flow_{which}")
                err = plateau_error(gd[sel], flow[sel]) if sel.any() else 1e6
                unit_errors.setdefault(unit, []).append(err)
                if unit == 0:
                    errors[(prm["psi_n"], name, which)] = err
                rows.append([unit, prm["psi_n"], name, which, err])
        if unit == 0:
            traces.append(
                {"params": prm, "result": res, "phase": phase, "tau": tau, "ranges": ranges}
            )
    worst = [max(unit_errors[u]) for u in sorted(unit_errors)]
    return GDPlateaus(rows, errors, worst, reference_lift, traces)
