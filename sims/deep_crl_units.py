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
    """The mean of ``values`` and its standard error s/√n (0 for a single value)."""
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0


def geometric_mean_se(values: Sequence[float]) -> tuple[float, float]:
    """exp(mean log v) and the s.e. of mean log v: the summary of multiplicative quantities whose
    seeds spread over decades (the no-residual gains at D = 256 range over 500–12,000)."""
    mean_log, se_log = mean_se(np.log(np.asarray(values, dtype=float)))
    return float(np.exp(mean_log)), se_log


def by_point(records: Sequence[Mapping[str, Any]], key: str) -> dict[tuple, list[Any]]:
    """Group a sweep's ``result[key]`` by (variant, depth) in record order (records without
    ``key`` left out)."""
    out: dict[tuple, list[Any]] = {}
    for r in records:
        point = (r["params"]["variant"], r["params"]["depth"])
        if key in r["result"]:
            out.setdefault(point, []).append(r["result"][key])
    return out


def by_seed(records: Sequence[Mapping[str, Any]], key: str) -> dict[tuple, np.ndarray]:
    """:func:`by_point` with each point's values in seed order (unit i = seed index i)."""
    ordered = sorted(records, key=lambda r: r.get("seed_index", 0))
    return {k: np.asarray(v, float) for k, v in by_point(ordered, key).items()}


# ------------------------------------------------------------------------- signal propagation
def signal_points(table: Table, width: int, extra: Sequence[int] = ()) -> list[dict[str, Any]]:
    """The sweep points of the signal-propagation check: every (variant, depth) of ``table`` at
    ``width`` (depths ascending), then the paper block at the untabled depths ``extra``."""
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
    """Seed summaries of a signal sweep against ``table``: per entry the geometric mean over
    seeds and its ratio to the table (agreement factor ``factor(variant, depth)``); per seed the
    no-residual growth rate log(J(256)/J(64))/192 beside the theory rate; and the shapes on the
    geometric means: ``paper_grad_band`` = ln max/min of the paper block's gradient ratio over
    the depths (``extra`` included), ``no_ln_jacobian_band`` = ln max/min of the no-LN Jacobian
    gain, ``no_ln_trunk_max_dev`` = max |no-LN trunk gain − 1|, ``no_res_jacobian_growth`` = the
    no-res Jacobian gain at the deepest tabled depth over the shallowest, and
    ``vanishing_16_over_4`` = the no-res-no-LN output rms at D = 16 over D = 4."""
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
    """The statistic name of one tabled entry: ``{variant}.{metric}.D{depth}``."""
    return f"{v}.{metric}.D{d}"


def signal_units(
    records: Sequence[Mapping[str, Any]], table: Table, extra: Sequence[int] = ()
) -> dict[str, list[float]]:
    """Per seed index, the statistics of the signal-propagation rule: ``{variant}.{metric}.D{d}``
    = ln(measured / table) per tabled entry; ``no_res_rate`` = the no-res growth rate over theory
    − 1; and the five shapes of :func:`signal_statistics` on the seed's values (the growth as a
    natural log, the vanishing ratio as a base-10 log)."""
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
    """Per tabled (variant, metric): rows [depth, value of seed 1, seed 2, ...] (record order)."""
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
    deeper depths."""
    units = {f"{c}_minus_{reference}": loss[(c, 16)] - loss[(reference, 16)] for c in contenders}
    deeper = np.array([loss[(reference, d)] - loss[(reference, 4)] for d in depths if d > 4])
    units["deeper_minus_d4"] = deeper.max(axis=0)
    return {k: np.asarray(v, float).tolist() for k, v in units.items()}


# ----------------------------------------------------------------------------- online maze
def success_by_depth(
    records: Sequence[Mapping[str, Any]], key: str = "final_success"
) -> dict[int, np.ndarray]:
    """Per-seed ``result[key]`` of online runs (default the final far-goal success), by depth in
    sweep order."""
    depths = dict.fromkeys(r["params"]["depth"] for r in records)
    return {
        d: np.array([r["result"][key] for r in records if r["params"]["depth"] == d])
        for d in depths
    }
