"""The deep-CRL claims' sweep records grouped into units, and their per-unit statistics.

The sweeps run the tasks of :mod:`neural.deep_crl` (``signal_task``, ``train_maze_critic``) and
:mod:`neural.crl` (``train_online_crl``); this module reads their records without importing
torch. A record is ``{"params": {...}, "result": {...}, "seed_index": i}``; a *point* is a
(variant, depth) pair and a *unit* one seed index (docs/deep_crl.md: the model, the measurements
and the paper's numbers). Depth D counts the Dense layers inside the residual blocks (D + 2 in
all), the paper's convention (Wang et al. 2025, arXiv 2503.14858, §4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from theory import _domain
from theory.deep_crl import no_residual_log_gain_per_layer

__all__ = [
    "SIGNAL_METRICS",
    "SignalStats",
    "TableRow",
    "by_point",
    "by_seed",
    "geometric_mean_se",
    "mean_se",
    "signal_arrays",
    "signal_entry",
    "signal_points",
    "signal_statistics",
    "signal_units",
    "success_by_depth",
    "trainability_units",
]

#: The probes of ``neural.deep_crl.signal_at_init`` that the signal table lists.
SIGNAL_METRICS = ("grad_ratio", "trunk_gain", "jacobian_gain", "output_rms")

Table = Mapping[str, Mapping[str, Mapping[int, float]]]


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error s/√n (0 for a single value).

    Parameters
    ----------
    values : sequence of float
        At least one value.

    Returns
    -------
    mean, se : float
        The mean and its standard error.

    Raises
    ------
    ValueError
        Unless ``values`` is a non-empty 1-D sequence of finite reals.

    Examples
    --------
    >>> from sims.deep_crl_units import mean_se
    >>> mean, se = mean_se([1.0, 2.0, 3.0])
    >>> mean, round(se, 4), mean_se([5.0])
    (2.0, 0.5774, (5.0, 0.0))
    """
    _domain.reals("values", values, ndim=1)
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0


def geometric_mean_se(values: Sequence[float]) -> tuple[float, float]:
    """exp(mean log v) and the s.e. of mean log v: the summary of multiplicative quantities whose
    seeds spread over decades (the no-residual gains at D = 256 range over 500–12,000).

    Parameters
    ----------
    values : sequence of float
        Positive values.

    Returns
    -------
    geo_mean : float
        exp(mean log v).
    se_log : float
        The standard error of mean log v.

    Raises
    ------
    ValueError
        Unless ``values`` is a non-empty 1-D sequence of finite positive reals.

    Examples
    --------
    >>> from sims.deep_crl_units import geometric_mean_se
    >>> geo_mean, se_log = geometric_mean_se([1.0, 100.0])
    >>> round(geo_mean, 6), round(se_log, 4)  # se of the mean of (0, ln 100)
    (10.0, 2.3026)
    """
    _domain.reals("values", values, ndim=1, minimum=0.0, open_low=True)
    mean_log, se_log = mean_se(np.log(np.asarray(values, dtype=float)))
    return float(np.exp(mean_log)), se_log


def by_point(records: Sequence[Mapping[str, Any]], key: str) -> dict[tuple, list[Any]]:
    """Group a sweep's ``result[key]`` by (variant, depth) in record order (records without
    ``key`` left out).

    Parameters
    ----------
    records : sequence of mapping
        Sweep records, ``params`` holding ``variant`` and ``depth``.
    key : str
        The result's entry.

    Returns
    -------
    dict of (str, int) to list
        The values of each point.

    Examples
    --------
    >>> from sims.deep_crl_units import by_point
    >>> records = [
    ...     {"params": {"variant": "paper", "depth": 4}, "result": {"loss": 0.5}},
    ...     {"params": {"variant": "paper", "depth": 4}, "result": {"loss": 0.7}},
    ...     {"params": {"variant": "relu", "depth": 4}, "result": {}},
    ... ]
    >>> by_point(records, "loss")
    {('paper', 4): [0.5, 0.7]}
    """
    out: dict[tuple, list[Any]] = {}
    for r in records:
        point = (r["params"]["variant"], r["params"]["depth"])
        if key in r["result"]:
            out.setdefault(point, []).append(r["result"][key])
    return out


def by_seed(records: Sequence[Mapping[str, Any]], key: str) -> dict[tuple, np.ndarray]:
    """:func:`by_point` with each point's values in seed order (unit i = seed index i).

    Parameters
    ----------
    records : sequence of mapping
        Sweep records with ``seed_index`` (0 when missing).
    key : str
        The result's entry.

    Returns
    -------
    dict of (str, int) to numpy.ndarray of float
        The values of each point by seed index.

    Examples
    --------
    >>> from sims.deep_crl_units import by_seed
    >>> records = [
    ...     {"params": {"variant": "paper", "depth": 4}, "result": {"loss": 0.5}, "seed_index": 1},
    ...     {"params": {"variant": "paper", "depth": 4}, "result": {"loss": 0.7}, "seed_index": 0},
    ... ]
    >>> by_seed(records, "loss")[("paper", 4)].tolist()
    [0.7, 0.5]
    """
    ordered = sorted(records, key=lambda r: r.get("seed_index", 0))
    return {k: np.asarray(v, float) for k, v in by_point(ordered, key).items()}


# ------------------------------------------------------------------------- signal propagation
def signal_points(table: Table, width: int, extra: Sequence[int] = ()) -> list[dict[str, Any]]:
    """The sweep points of the signal-propagation check: every (variant, depth) of ``table`` at
    ``width`` (depths ascending), then the paper block at the untabled depths ``extra``.

    Parameters
    ----------
    table : mapping
        variant -> metric -> depth -> the table's value.
    width : int
        The networks' width.
    extra : sequence of int
        Untabled depths of the paper block.

    Returns
    -------
    list of dict
        ``{"variant", "depth", "width"}`` per point.

    Examples
    --------
    >>> from sims.deep_crl_units import signal_points
    >>> table = {"paper": {"grad_ratio": {16: 1.0, 4: 1.0}}, "relu": {"trunk_gain": {4: 2.0}}}
    >>> [(p["variant"], p["depth"]) for p in signal_points(table, width=32, extra=[64])]
    [('paper', 4), ('paper', 16), ('relu', 4), ('paper', 64)]
    """
    return [
        {"variant": v, "depth": d, "width": width}
        for v in table
        for d in sorted({d for metric in table[v].values() for d in metric})
    ] + [{"variant": "paper", "depth": d, "width": width} for d in extra]


class TableRow(NamedTuple):
    """One tabled entry: the geometric mean over seeds, the s.e. of its log, the table's value,
    the ratio max(mean/want, want/mean) and the agreement factor it is held to."""

    #: The network variant (``neural.deep_crl.VARIANTS``: paper, relu, no_ln, no_res, ...).
    variant: str
    #: The probe of ``neural.deep_crl.signal_at_init`` (grad_ratio, trunk_gain, ...).
    metric: str
    #: Depth D, the Dense layers inside the residual blocks.
    depth: int
    #: exp(mean log value) over seeds.
    geo_mean: float
    #: Standard error of the mean log value over seeds.
    se_log: float
    #: The table's value.
    want: float
    #: max(geo_mean / want, want / geo_mean) (∞ for a non-positive mean).
    ratio: float
    #: The agreement factor the ratio is held to.
    factor: float


@dataclass(frozen=True)
class SignalStats:
    """The seed summaries of a signal sweep (:func:`signal_statistics`)."""

    #: Per tabled entry, in the table's order.
    rows: list[TableRow]
    #: max over rows of ratio / factor (≤ 1: every geometric mean within its factor).
    worst: float
    #: Per seed, the no-residual log Jacobian gain growth per layer from D = 64 to D = 256.
    rates: np.ndarray
    #: ½·log(E[φ′²]/E[φ²]), the rate of :func:`theory.deep_crl.no_residual_log_gain_per_layer`.
    rate_theory: float
    #: The five shape statistics on the geometric means (see :func:`signal_statistics`).
    shapes: dict[str, float]
    #: metric -> untabled depth -> geometric mean of the paper block (``extra`` depths).
    deep: dict[str, dict[int, float]]
    #: metric -> (variant, depth) -> per-seed values in record order.
    values: dict[str, dict[tuple, list[float]]]
    #: variant -> metric -> depth -> table value.
    table: Table

    def curve(self, variant: str, metric: str) -> np.ndarray:
        """The geometric means of ``variant``'s ``metric`` at the tabled depths, ascending."""
        return _curve(self.rows, self.table, variant, metric)


def _curve(rows: Sequence[TableRow], table: Table, variant: str, metric: str) -> np.ndarray:
    mean_of = {(r[0], r[1], r[2]): r[3] for r in rows}
    return np.array([mean_of[(variant, metric, d)] for d in sorted(table[variant][metric])])


def signal_statistics(
    records: Sequence[Mapping[str, Any]],
    table: Table,
    extra: Sequence[int],
    factor: Callable[[str, int], float],
) -> SignalStats:
    """Seed summaries of a signal sweep against ``table``.

    Per entry the geometric mean over seeds and its ratio to the table (agreement factor
    ``factor(variant, depth)``); per seed the no-residual growth rate log(J(256)/J(64))/192
    beside the theory rate; and the shapes on the geometric means: ``paper_grad_band`` =
    ln max/min of the paper block's gradient ratio over the depths (``extra`` included),
    ``no_ln_jacobian_band`` = ln max/min of the no-LN Jacobian gain, ``no_ln_trunk_max_dev`` =
    the largest deviation of the no-LN trunk gain from 1, ``no_res_jacobian_growth`` = the
    no-res Jacobian gain at the deepest tabled depth over the shallowest, and
    ``vanishing_16_over_4`` = the no-res-no-LN output rms at D = 16 over D = 4.

    Parameters
    ----------
    records : sequence of mapping
        The sweep's records (``neural.deep_crl.signal_task``), at the points of
        :func:`signal_points`.
    table : mapping
        variant -> metric -> depth -> the table's value; needs the entries the shapes read
        (no_res jacobian_gain at 64 and 256, no_res_no_ln output_rms at 4 and 16, ...).
    extra : sequence of int
        Untabled depths of the paper block.
    factor : callable
        (variant, depth) -> the agreement factor.

    Returns
    -------
    SignalStats
        The rows, the worst ratio over its factor, the rates and the shapes.

    Examples
    --------
    >>> import math
    >>> from sims.deep_crl_units import SIGNAL_METRICS, signal_points, signal_statistics
    >>> from theory.deep_crl import no_residual_log_gain_per_layer
    >>> rate = no_residual_log_gain_per_layer()  # the no-res Jacobian gain grows like e^{rate·D}
    >>> table = {  # variant -> metric -> depth -> the table's value
    ...     "paper": {"grad_ratio": {4: 1.0}},
    ...     "no_ln": {"jacobian_gain": {4: 1.0}, "trunk_gain": {4: 1.0}},
    ...     "no_res": {"jacobian_gain": {d: math.exp(rate * d) for d in (4, 64, 256)}},
    ...     "no_res_no_ln": {"output_rms": {4: 1.0, 16: 1.0}},
    ... }
    >>> def result(point, seed):  # seed 0 measures the table, seed 1 10% more (but the no-res gain)
    ...     out = {metric: 1.0 + 0.1 * seed for metric in SIGNAL_METRICS}
    ...     if point["variant"] == "no_res":
    ...         out["jacobian_gain"] = math.exp(rate * point["depth"])
    ...     return out
    >>> points = signal_points(table, width=32, extra=[8])
    >>> records = [
    ...     {"params": p, "result": result(p, seed), "seed_index": seed}
    ...     for seed in (0, 1)
    ...     for p in points
    ... ]
    >>> stats = signal_statistics(records, table, [8], factor=lambda variant, depth: 2.0)
    >>> stats.rows[0].variant, round(stats.rows[0].geo_mean, 4), round(stats.worst, 3)
    ('paper', 1.0488, 0.524)
    >>> bool(abs(stats.rates - stats.rate_theory).max() < 1e-12)
    True
    """
    values = {m: by_point(records, m) for m in SIGNAL_METRICS}
    rows, worst = [], 0.0
    for v, metrics in table.items():
        for metric, by_depth in metrics.items():
            got = values[metric]
            for d, want in by_depth.items():
                mean, se = geometric_mean_se(got[(v, d)])
                f = factor(v, d)
                ratio = max(mean / want, want / mean) if mean > 0 else np.inf
                worst = max(worst, ratio / f)
                rows.append(TableRow(v, metric, d, mean, se, want, ratio, f))
    jac = values["jacobian_gain"]
    rates = np.log(np.array(jac[("no_res", 256)]) / np.array(jac[("no_res", 64)])) / (256 - 64)
    deep = {  # the paper block beyond the table (paper scale): geometric means over seeds
        metric: {d: geometric_mean_se(values[metric][("paper", d)])[0] for d in extra}
        for metric in ("grad_ratio", "trunk_gain", "jacobian_gain")
    }
    mean_of = {(r[0], r[1], r[2]): r[3] for r in rows}

    def curve(v: str, metric: str) -> np.ndarray:
        return _curve(rows, table, v, metric)

    band = [*curve("paper", "grad_ratio"), *deep["grad_ratio"].values()]
    shapes = {
        "paper_grad_band": float(np.ptp(np.log(band))),
        "no_ln_jacobian_band": float(np.ptp(np.log(curve("no_ln", "jacobian_gain")))),
        "no_ln_trunk_max_dev": float(np.max(np.abs(curve("no_ln", "trunk_gain") - 1))),
        "no_res_jacobian_growth": float(curve("no_res", "jacobian_gain")[-1])
        / float(curve("no_res", "jacobian_gain")[0]),
        "vanishing_16_over_4": float(
            mean_of[("no_res_no_ln", "output_rms", 16)] / mean_of[("no_res_no_ln", "output_rms", 4)]
        ),
    }
    rate_theory = no_residual_log_gain_per_layer()
    return SignalStats(rows, worst, rates, rate_theory, shapes, deep, values, table)


def signal_entry(v: str, metric: str, d: int) -> str:
    """The statistic name of one tabled entry: ``{variant}.{metric}.D{depth}``.

    Parameters
    ----------
    v : str
        The variant.
    metric : str
        The probe.
    d : int
        The depth.

    Returns
    -------
    str
        The name.

    Examples
    --------
    >>> from sims.deep_crl_units import signal_entry
    >>> signal_entry("paper", "grad_ratio", 4)
    'paper.grad_ratio.D4'
    """
    return f"{v}.{metric}.D{d}"


def signal_units(
    records: Sequence[Mapping[str, Any]], table: Table, extra: Sequence[int] = ()
) -> dict[str, list[float]]:
    """Per seed index, the statistics of the signal-propagation rule.

    ``{variant}.{metric}.D{d}`` = ln(measured / table) per tabled entry; ``no_res_rate`` = the
    no-res growth rate over theory − 1; and the five shapes of :func:`signal_statistics` on the
    seed's values (the growth as a natural log, the vanishing ratio as a base-10 log).

    Parameters
    ----------
    records : sequence of mapping
        The sweep's records, every point with the same seed indices.
    table : mapping
        variant -> metric -> depth -> the table's value.
    extra : sequence of int
        Untabled depths of the paper block.

    Returns
    -------
    dict of str to list of float
        Each statistic per seed index.

    Examples
    --------
    >>> import math
    >>> from sims.deep_crl_units import SIGNAL_METRICS, signal_points, signal_units
    >>> from theory.deep_crl import no_residual_log_gain_per_layer
    >>> rate = no_residual_log_gain_per_layer()  # the no-res Jacobian gain grows like e^{rate·D}
    >>> table = {  # variant -> metric -> depth -> the table's value
    ...     "paper": {"grad_ratio": {4: 1.0}},
    ...     "no_ln": {"jacobian_gain": {4: 1.0}, "trunk_gain": {4: 1.0}},
    ...     "no_res": {"jacobian_gain": {d: math.exp(rate * d) for d in (4, 64, 256)}},
    ...     "no_res_no_ln": {"output_rms": {4: 1.0, 16: 1.0}},
    ... }
    >>> def result(point, seed):  # seed 0 measures the table, seed 1 10% more (but the no-res gain)
    ...     out = {metric: 1.0 + 0.1 * seed for metric in SIGNAL_METRICS}
    ...     if point["variant"] == "no_res":
    ...         out["jacobian_gain"] = math.exp(rate * point["depth"])
    ...     return out
    >>> points = signal_points(table, width=32, extra=[8])
    >>> records = [
    ...     {"params": p, "result": result(p, seed), "seed_index": seed}
    ...     for seed in (0, 1)
    ...     for p in points
    ... ]
    >>> units = signal_units(records, table, [8])
    >>> [round(u, 4) for u in units["paper.grad_ratio.D4"]]  # ln(1.1) for seed 1
    [0.0, 0.0953]
    >>> [round(u, 12) for u in units["no_res_rate"]]
    [0.0, 0.0]
    """
    got = {m: by_seed(records, m) for m in SIGNAL_METRICS}
    units: dict[str, np.ndarray] = {}
    for v, metrics in table.items():
        for metric, by_depth in metrics.items():
            for d, want in by_depth.items():
                units[signal_entry(v, metric, d)] = np.log(got[metric][(v, d)] / want)
    jac, grad = got["jacobian_gain"], got["grad_ratio"]
    rate = np.log(jac[("no_res", 256)] / jac[("no_res", 64)]) / (256 - 64)
    units["no_res_rate"] = rate / no_residual_log_gain_per_layer() - 1
    band = np.log([grad[("paper", d)] for d in [*sorted(table["paper"]["grad_ratio"]), *extra]])
    units["paper_grad_band"] = np.ptp(band, axis=0)
    no_ln = np.log([jac[("no_ln", d)] for d in sorted(table["no_ln"]["jacobian_gain"])])
    units["no_ln_jacobian_band"] = np.ptp(no_ln, axis=0)
    trunk = [got["trunk_gain"][("no_ln", d)] for d in sorted(table["no_ln"]["trunk_gain"])]
    units["no_ln_trunk_max_dev"] = np.max(np.abs(np.array(trunk) - 1), axis=0)
    units["no_res_jacobian_growth"] = np.log(jac[("no_res", 256)] / jac[("no_res", 4)])
    out = got["output_rms"]
    units["vanishing_16_over_4"] = np.log10(out[("no_res_no_ln", 16)] / out[("no_res_no_ln", 4)])
    return {k: np.asarray(v, float).tolist() for k, v in units.items()}


def signal_arrays(stats: SignalStats) -> dict[str, np.ndarray]:
    """Per tabled (variant, metric): rows [depth, value of seed 1, seed 2, ...] (record order).

    Parameters
    ----------
    stats : SignalStats
        The summaries of :func:`signal_statistics`.

    Returns
    -------
    dict of str to numpy.ndarray of float
        ``"{variant}.{metric}"`` -> (depths, 1 + seeds).

    Examples
    --------
    >>> import math
    >>> from sims.deep_crl_units import SIGNAL_METRICS, signal_arrays, signal_points
    >>> from sims.deep_crl_units import signal_statistics
    >>> from theory.deep_crl import no_residual_log_gain_per_layer
    >>> rate = no_residual_log_gain_per_layer()  # the no-res Jacobian gain grows like e^{rate·D}
    >>> table = {  # variant -> metric -> depth -> the table's value
    ...     "paper": {"grad_ratio": {4: 1.0}},
    ...     "no_ln": {"jacobian_gain": {4: 1.0}, "trunk_gain": {4: 1.0}},
    ...     "no_res": {"jacobian_gain": {d: math.exp(rate * d) for d in (4, 64, 256)}},
    ...     "no_res_no_ln": {"output_rms": {4: 1.0, 16: 1.0}},
    ... }
    >>> def result(point, seed):  # seed 0 measures the table, seed 1 10% more (but the no-res gain)
    ...     out = {metric: 1.0 + 0.1 * seed for metric in SIGNAL_METRICS}
    ...     if point["variant"] == "no_res":
    ...         out["jacobian_gain"] = math.exp(rate * point["depth"])
    ...     return out
    >>> points = signal_points(table, width=32, extra=[8])
    >>> records = [
    ...     {"params": p, "result": result(p, seed), "seed_index": seed}
    ...     for seed in (0, 1)
    ...     for p in points
    ... ]
    >>> stats = signal_statistics(records, table, [8], factor=lambda variant, depth: 2.0)
    >>> signal_arrays(stats)["paper.grad_ratio"].tolist()
    [[4.0, 1.0, 1.1]]
    """
    table = stats.table
    return {
        f"{v}.{m}": np.array([[d, *stats.values[m][(v, d)]] for d in sorted(table[v][m])])
        for v in table
        for m in table[v]
    }


# ---------------------------------------------------------------------------- trainability
def trainability_units(
    loss: Mapping[tuple, np.ndarray],
    reference: str,
    contenders: Sequence[str],
    depths: Sequence[int],
) -> dict[str, list[float]]:
    """Per paired seed, from final losses by (variant, depth) (arrays in seed order):
    ``{c}_minus_{reference}`` = loss of contender c at D = 16 minus the reference's, and
    ``deeper_minus_d4`` = the largest increase of the reference's loss over D = 4 among the
    deeper depths.

    Parameters
    ----------
    loss : mapping of (str, int) to numpy.ndarray
        Final losses per seed by (variant, depth).
    reference : str
        The reference variant.
    contenders : sequence of str
        The variants compared with it at D = 16.
    depths : sequence of int
        The reference's depths (4 and at least one deeper).

    Returns
    -------
    dict of str to list of float
        Each statistic per seed.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.deep_crl_units import trainability_units
    >>> loss = {
    ...     ("paper", 4): np.array([1.0, 1.2]),
    ...     ("paper", 16): np.array([0.8, 0.9]),
    ...     ("relu", 16): np.array([1.1, 1.0]),
    ... }
    >>> units = trainability_units(loss, "paper", ["relu"], [4, 16])
    >>> {name: np.round(values, 2).tolist() for name, values in units.items()}
    {'relu_minus_paper': [0.3, 0.1], 'deeper_minus_d4': [-0.2, -0.3]}
    """
    units = {f"{c}_minus_{reference}": loss[(c, 16)] - loss[(reference, 16)] for c in contenders}
    deeper = np.array([loss[(reference, d)] - loss[(reference, 4)] for d in depths if d > 4])
    units["deeper_minus_d4"] = deeper.max(axis=0)
    return {k: np.asarray(v, float).tolist() for k, v in units.items()}


# ----------------------------------------------------------------------------- online maze
def success_by_depth(
    records: Sequence[Mapping[str, Any]], key: str = "final_success"
) -> dict[int, np.ndarray]:
    """Per-seed ``result[key]`` of online runs (default the final far-goal success), by depth in
    sweep order.

    Parameters
    ----------
    records : sequence of mapping
        Records of ``neural.crl.train_online_crl`` runs, ``params`` holding ``depth``.
    key : str
        The result's entry.

    Returns
    -------
    dict of int to numpy.ndarray
        The values at each depth, in record order.

    Examples
    --------
    >>> from sims.deep_crl_units import success_by_depth
    >>> records = [
    ...     {"params": {"depth": 4}, "result": {"final_success": 0.5}},
    ...     {"params": {"depth": 16}, "result": {"final_success": 0.9}},
    ...     {"params": {"depth": 4}, "result": {"final_success": 0.7}},
    ... ]
    >>> {depth: values.tolist() for depth, values in success_by_depth(records).items()}
    {4: [0.5, 0.7], 16: [0.9]}
    """
    depths = dict.fromkeys(r["params"]["depth"] for r in records)
    return {
        d: np.array([r["result"][key] for r in records if r["params"]["depth"] == d])
        for d in depths
    }
