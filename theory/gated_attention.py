"""Statistics of the claims of "Gated Attention for Large Language Models: Non-linearity, Sparsity,
and Attention-Sink-Free" (Qiu et al., NeurIPS 2025; arXiv 2505.06708): the paper's Table 4, the
thresholds fixed from it before any run, and the per-seed statistics (units) that the claims
decide on, computed from the final measurements of paired runs.

docs/gated_attention.md defines the measurements: F-Attn (the attention weight on token 0), M-Act
(the mean over layers of max |residual|) and the gate statistics. Everything here is deterministic
numpy; the runs themselves are :mod:`neural.gated_testbeds`. A diverged run's measurement is NaN,
and each statistic says where it counts one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "DEGRADE_NATS",
    "GATE_BELOW_MIN",
    "GATE_MEAN_MAX",
    "ORDER_WEAK_TOLERANCE",
    "PAPER_TABLE4",
    "SINK_MIN_RATIO",
    "SINK_REMOVED_RATIO",
    "compare_arms",
    "finite_mean",
    "has_baseline_sink",
    "loss_excess",
    "lr_degradation",
    "lr_failures",
    "lr_grid_statistics",
    "paired_log_ratio",
    "paired_t",
    "sink_statistics",
    "sink_units",
    "sparse_units",
    "sparsity_margin",
    "sparsity_statistics",
]

#: Table 4 of the paper (15A2B MoE): mean gate / M-Act / F-Attn.
PAPER_TABLE4 = {
    "none": {"gate_mean": None, "m_act": 1053.0, "f_attn": 0.467},
    "elementwise": {"gate_mean": 0.116, "m_act": 94.0, "f_attn": 0.048},
    "headwise": {"gate_mean": 0.172, "m_act": 98.0, "f_attn": 0.073},
    "g2_value": {"gate_mean": 0.221, "m_act": 125.0, "f_attn": 0.297},
    "input_independent": {"gate_mean": 0.335, "m_act": 471.0, "f_attn": 0.364},
    "ns_sigmoid": {"gate_mean": 0.653, "m_act": 892.0, "f_attn": 0.451},
    "head_shared": {"gate_mean": 0.271, "m_act": 286.0, "f_attn": 0.301},
}

#: Gate sparsity at the paper's level, fixed from Table 4 (G1 mean gate 0.116; NS-sigmoid 0.653,
#: σ(bias) 0.335) before any run: a sparse gate has mean ≤ 0.25 and ≥ 20% of its values < 0.1.
GATE_MEAN_MAX = 0.25
GATE_BELOW_MIN = 0.20
SINK_MIN_RATIO = 3.0  # the baseline has a sink when its F-Attn ≥ 3× uniform (our threshold)
SINK_REMOVED_RATIO = 0.5  # removed: gated F-Attn ≤ 0.5× baseline
DEGRADE_NATS = 0.05  # at the top LR a run degrades when its loss exceeds its best-LR loss by this
#: "a ≥ b" (removes the sink at least as well) tolerates a F-Attn ratio up to 2, the factor that
#: defines removal in sink_removed (Table 4: headwise 0.073 vs elementwise 0.048, 1.5×).
ORDER_WEAK_TOLERANCE = math.log(2.0)


# ------------------------------------------------------------------------------ gate sparsity
def sparsity_margin(gate_means: np.ndarray, below: np.ndarray) -> np.ndarray:
    """Per seed, m = min(1 − ḡ/0.25, s/0.20 − 1) for the final mean gate ḡ and the share s of
    gate values below 0.1: m ≥ 0 iff ḡ ≤ 0.25 and s ≥ 20% (the paper's level, Table 4: ḡ =
    0.116); NaN for a diverged run.

    Parameters
    ----------
    gate_means : numpy.ndarray of float, (seeds,)
        Final mean gate per seed.
    below : numpy.ndarray of float, (seeds,)
        Final share of gate values below 0.1 per seed.

    Returns
    -------
    numpy.ndarray of float, (seeds,)
        m per seed.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import sparsity_margin
    >>> sparsity_margin(np.array([0.1, 0.3]), np.array([0.4, 0.5])).round(4)  # the second too dense
    array([ 0.6, -0.2])
    """
    gate_means, below = np.asarray(gate_means, float), np.asarray(below, float)
    return np.minimum(1.0 - gate_means / GATE_MEAN_MAX, below / GATE_BELOW_MIN - 1.0)


def sparsity_statistics(gate_means: np.ndarray, below: np.ndarray) -> dict[str, Any]:
    """The per-seed :func:`sparsity_margin`, its minimum and maximum over seeds, and the number
    of seeds sparse at the paper's level (margin ≥ 0).

    Parameters
    ----------
    gate_means : numpy.ndarray of float, (seeds,)
        Final mean gate per seed.
    below : numpy.ndarray of float, (seeds,)
        Final share of gate values below 0.1 per seed.

    Returns
    -------
    dict
        ``sparsity_margin``, ``sparsity_margin_min``, ``sparsity_margin_max`` and
        ``seeds_sparse``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import sparsity_statistics
    >>> statistics = sparsity_statistics(np.array([0.1, 0.3]), np.array([0.4, 0.5]))
    >>> statistics["seeds_sparse"], round(statistics["sparsity_margin_min"], 4)
    (1, -0.2)
    """
    margins = sparsity_margin(gate_means, below)
    return {
        "sparsity_margin": margins,
        "sparsity_margin_min": float(np.min(margins)),
        "sparsity_margin_max": float(np.max(margins)),
        "seeds_sparse": int(np.sum(margins >= 0)),
    }


def sparse_units(gate_means: np.ndarray, below: np.ndarray) -> dict[str, list[float]]:
    """The units of the gate-sparsity rule: per seed the final mean gate and share of values
    < 0.1, a diverged run (NaN) at the non-sparse end of each scale (mean 1, share 0).

    Parameters
    ----------
    gate_means : numpy.ndarray of float, (seeds,)
        Final mean gate per seed (NaN: diverged).
    below : numpy.ndarray of float, (seeds,)
        Final share of gate values below 0.1 per seed.

    Returns
    -------
    dict of str to list of float
        ``gate_mean`` and ``gate_below_0.1`` per seed.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import sparse_units
    >>> sparse_units(np.array([0.1, np.nan]), np.array([0.4, np.nan]))
    {'gate_mean': [0.1, 1.0], 'gate_below_0.1': [0.4, 0.0]}
    """
    return {
        "gate_mean": np.nan_to_num(np.asarray(gate_means, float), nan=1.0).tolist(),
        "gate_below_0.1": np.nan_to_num(np.asarray(below, float), nan=0.0).tolist(),
    }


# ------------------------------------------------------------------------ paired measurements
def paired_log_ratio(baseline: np.ndarray, gated: np.ndarray) -> np.ndarray:
    """Per paired seed ln(gated / baseline), on the pairs where both runs are finite (M-Act:
    Table 4's ln(94/1053) = −2.4).

    Parameters
    ----------
    baseline, gated : numpy.ndarray of float, (seeds,)
        The measurement of each arm, paired by seed.

    Returns
    -------
    numpy.ndarray of float
        ln(gated / baseline) on the finite pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import paired_log_ratio
    >>> paired_log_ratio(np.array([1053.0, 10.0, np.nan]), np.array([94.0, 5.0, 1.0])).round(2)
    array([-2.42, -0.69])
    """
    baseline, gated = np.asarray(baseline, float), np.asarray(gated, float)
    ok = np.isfinite(baseline) & np.isfinite(gated)
    return np.log(gated[ok] / baseline[ok])


def paired_t(differences: np.ndarray) -> float:
    """The paired t statistic t = mean(Δ) / (sd(Δ)/√n) (NaN for n < 2); the 95% CI excludes 0
    iff |t| > t_{0.975, n−1}.

    Parameters
    ----------
    differences : numpy.ndarray of float, (n,)
        The paired differences Δ.

    Returns
    -------
    float
        t, or NaN for n < 2.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import paired_t
    >>> round(paired_t(np.array([1.0, 2.0, 3.0])), 4)  # 2 / (1/√3)
    3.4641
    """
    d = np.asarray(differences, dtype=float)
    if len(d) < 2:
        return math.nan
    sd = float(d.std(ddof=1))
    if sd == 0:
        return math.copysign(math.inf, float(d.mean())) if d.mean() != 0 else math.nan
    return float(d.mean() / (sd / math.sqrt(len(d))))


# -------------------------------------------------------------------------------- the sink
def sink_units(f_base: np.ndarray, f_gated: np.ndarray, uniform: float) -> np.ndarray:
    """Per seed whose baseline has a sink (F-Attn ≥ 3× uniform), ln(F_gated / F_base), a
    diverged gated run (NaN) counted as F-Attn 1 (all weight on token 0).

    Parameters
    ----------
    f_base, f_gated : numpy.ndarray of float, (seeds,)
        Final F-Attn of the baseline and the gated arm, paired by seed.
    uniform : float
        F-Attn under uniform causal attention.

    Returns
    -------
    numpy.ndarray of float
        One unit per seed with a baseline sink.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import sink_units
    >>> sink_units(np.array([0.5, 0.05, 0.6]), np.array([0.05, 0.05, np.nan]), 0.06).round(4)
    array([-2.3026,  0.5108])
    """
    f_base, f_gated = np.asarray(f_base, float), np.asarray(f_gated, float)
    has_sink = f_base / uniform >= SINK_MIN_RATIO  # NaN (diverged baseline): no unit
    return np.log(np.nan_to_num(f_gated[has_sink], nan=1.0) / f_base[has_sink])


def sink_statistics(f_base: np.ndarray, f_gated: np.ndarray, uniform: float) -> dict[str, Any]:
    """The units of sink removal (:func:`sink_units`) and, per seed, the baseline's F-Attn over
    the uniform value and the gated arm's over the baseline's; the largest gated/baseline ratio
    over the units (NaN without one) and their number.

    Parameters
    ----------
    f_base, f_gated : numpy.ndarray of float, (seeds,)
        Final F-Attn of the baseline and the gated arm, paired by seed.
    uniform : float
        F-Attn under uniform causal attention.

    Returns
    -------
    dict
        ``f_attn_log_ratio`` (the units), ``baseline_over_uniform``, ``gated_over_baseline``,
        ``gated_over_baseline_max`` and ``seeds_with_sink``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import sink_statistics
    >>> statistics = sink_statistics(np.array([0.5, 0.05]), np.array([0.05, 0.05]), 0.06)
    >>> statistics["seeds_with_sink"], statistics["f_attn_log_ratio"].round(4)  # ln 0.1
    (1, array([-2.3026]))
    """
    units = sink_units(f_base, f_gated, uniform)
    return {
        "f_attn_log_ratio": units,
        "baseline_over_uniform": f_base / uniform,
        "gated_over_baseline": f_gated / f_base,
        "gated_over_baseline_max": float(np.exp(units.max())) if len(units) else math.nan,
        "seeds_with_sink": len(units),
    }


def has_baseline_sink(ratio: np.ndarray, sink_rate: np.ndarray) -> np.ndarray:
    """Per seed, whether the baseline has a sink to order the gates on: mean F-Attn ≥ 3×
    uniform, or a sink rate > 0 (some (layer, head) puts > 0.3 on token 0, the sink rate of Gu
    et al. 2024, arXiv 2410.10781). With several heads a sink sits in a few heads, which the head
    average dilutes.

    Parameters
    ----------
    ratio : numpy.ndarray of float, (seeds,)
        The baseline's mean F-Attn over its uniform value.
    sink_rate : numpy.ndarray of float, (seeds,)
        The baseline's share of (layer, head) with weight > 0.3 on token 0.

    Returns
    -------
    numpy.ndarray of bool, (seeds,)
        Whether each seed's baseline has a sink.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import has_baseline_sink
    >>> has_baseline_sink(np.array([4.0, 1.2, 1.1]), np.array([0.0, 0.25, 0.0])).tolist()
    [True, True, False]
    """
    return (np.asarray(ratio) >= SINK_MIN_RATIO) | (np.asarray(sink_rate) > 0)


def compare_arms(f_a: np.ndarray, f_b: np.ndarray) -> np.ndarray:
    """One ordering relation's units: per seed r = ln(F_b / F_a) (r > 0: arm a leaves less
    weight on token 0), a diverged run (NaN) counted as F-Attn 1.

    Parameters
    ----------
    f_a, f_b : numpy.ndarray of float, (seeds,)
        Final F-Attn of the two arms, paired by seed (NaN: diverged).

    Returns
    -------
    numpy.ndarray of float, (seeds,)
        ln(F_b / F_a) per seed.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import compare_arms
    >>> compare_arms(np.array([0.1, 0.2]), np.array([0.2, np.nan])).round(4)  # ln 2, ln(1/0.2)
    array([0.6931, 1.6094])
    """
    return np.log(np.nan_to_num(f_b, nan=1.0) / np.nan_to_num(f_a, nan=1.0))


def finite_mean(values: np.ndarray) -> float:
    """The mean of the finite entries (NaN when there are none, without a warning).

    Parameters
    ----------
    values : numpy.ndarray of float
        The values.

    Returns
    -------
    float
        The mean of the finite ones, or NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import finite_mean
    >>> finite_mean(np.array([1.0, np.nan, 3.0])), finite_mean(np.array([np.nan]))
    (2.0, nan)
    """
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if len(finite) else math.nan


# --------------------------------------------------------------------------- the LR grid
def lr_failures(losses: np.ndarray, diverged: np.ndarray) -> np.ndarray:
    """Per seed, whether the run at the top LR (last column) failed: it diverged, or its loss
    exceeds the best loss of the same arm and seed over the LR grid by more than 0.05 nats.
    ``losses`` and ``diverged`` are (seeds, LRs); diverged runs have loss NaN.

    Parameters
    ----------
    losses : numpy.ndarray of float, (seeds, LRs)
        Final losses, the top LR last (NaN: diverged).
    diverged : numpy.ndarray of bool, (seeds, LRs)
        Which runs diverged.

    Returns
    -------
    numpy.ndarray of bool, (seeds,)
        Whether each seed's top-LR run failed.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import lr_failures
    >>> losses = np.array([[3.0, 2.9, 2.92], [3.0, 2.9, np.nan]])
    >>> diverged = np.array([[False, False, False], [False, False, True]])
    >>> lr_failures(losses, diverged).tolist()  # within 0.05 nats; diverged
    [False, True]
    """
    return diverged[:, -1] | (lr_degradation(losses, diverged) > DEGRADE_NATS)


def lr_degradation(losses: np.ndarray, diverged: np.ndarray) -> np.ndarray:
    """Per seed, loss at the top LR minus the best loss over the grid (inf when the top-LR run
    diverged, NaN when every run diverged).

    Parameters
    ----------
    losses : numpy.ndarray of float, (seeds, LRs)
        Final losses, the top LR last (NaN: diverged).
    diverged : numpy.ndarray of bool, (seeds, LRs)
        Which runs diverged.

    Returns
    -------
    numpy.ndarray of float, (seeds,)
        The degradation per seed.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import lr_degradation
    >>> losses = np.array([[3.0, 2.9, 3.1], [3.0, 2.9, np.nan]])
    >>> diverged = np.array([[False, False, False], [False, False, True]])
    >>> lr_degradation(losses, diverged).round(4)
    array([0.2, inf])
    """
    finite = np.where(diverged, np.nan, losses)
    best = np.fmin.reduce(finite, axis=1)  # ignores NaN without a warning
    return np.where(diverged[:, -1], np.inf, finite[:, -1] - best)


def loss_excess(losses: np.ndarray, diverged: np.ndarray, diverged_loss: float) -> np.ndarray:
    """Per seed, the top-LR loss (last column) minus the best loss over the grid, a diverged run
    counted at the divergence level ``diverged_loss`` (so the excess stays finite).

    Parameters
    ----------
    losses : numpy.ndarray of float, (seeds, LRs)
        Final losses, the top LR last (NaN: diverged).
    diverged : numpy.ndarray of bool, (seeds, LRs)
        Which runs diverged.
    diverged_loss : float
        The loss a diverged run counts as.

    Returns
    -------
    numpy.ndarray of float, (seeds,)
        The excess per seed.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import loss_excess
    >>> losses = np.array([[3.0, 2.9, 3.1], [3.0, 2.9, np.nan]])
    >>> diverged = np.array([[False, False, False], [False, False, True]])
    >>> loss_excess(losses, diverged, 5.0).round(4)
    array([0.2, 2.1])
    """
    counted = np.where(diverged, diverged_loss, np.nan_to_num(losses, nan=diverged_loss))
    return counted[:, -1] - counted.min(axis=1)


def lr_grid_statistics(
    losses: np.ndarray, diverged: np.ndarray, diverged_loss: float
) -> dict[str, Any]:
    """One arm's LR grid (``losses``, ``diverged``: (seeds, LRs), the top LR last): its
    ``loss`` and the per-seed ``excess`` (:func:`loss_excess`) and ``degradation``
    (:func:`lr_degradation`) at the top LR, and ``failures``, the number of seeds whose top-LR
    run failed (:func:`lr_failures`).

    Parameters
    ----------
    losses : numpy.ndarray of float, (seeds, LRs)
        Final losses, the top LR last (NaN: diverged).
    diverged : numpy.ndarray of bool, (seeds, LRs)
        Which runs diverged.
    diverged_loss : float
        The loss a diverged run counts as in ``excess``.

    Returns
    -------
    dict
        ``loss``, ``excess``, ``degradation`` and ``failures``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.gated_attention import lr_grid_statistics
    >>> losses = np.array([[3.0, 2.9, 3.1], [3.0, 2.9, np.nan]])
    >>> diverged = np.array([[False, False, False], [False, False, True]])
    >>> statistics = lr_grid_statistics(losses, diverged, 5.0)
    >>> statistics["excess"].round(4), statistics["failures"]
    (array([0.2, 2.1]), 2)
    """
    return {
        "loss": losses,
        "excess": loss_excess(losses, diverged, diverged_loss),
        "degradation": lr_degradation(losses, diverged),
        "failures": int(lr_failures(losses, diverged).sum()),
    }
