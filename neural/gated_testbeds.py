"""The testbeds of the gated-attention claims (Qiu et al., NeurIPS 2025, arXiv 2505.06708) as
sweeps of :func:`neural.gated_training.gated_lm_task`, and readouts of their runs.

A testbed is a list of parameter points, one per arm (the gate of
:mod:`neural.gated_attention`: ``none`` for the baseline, the G1 variants and the controls of
Tables 1 and 4), trained with paired seeds (:func:`train_arms`): every arm of a seed index starts
from the same shared initialisation and sees the same data order and evaluation batch. The
readouts group the finished runs by arm (:func:`by_arm`) and read their final measurements as
per-seed arrays (:func:`final`, :func:`finals`), a diverged run as NaN.

torch is imported only when a sweep trains (inside :func:`train_arms`), so the readouts and the
labels need numpy only.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from neural.lm_data import TEXT_VOCAB  # numpy only

__all__ = [
    "ARM_LABELS",
    "DIVERGED_LOSS",
    "LRGrid",
    "arms_at_base_lr",
    "base_lr",
    "by_arm",
    "final",
    "final_loss",
    "final_stack",
    "finals",
    "gate_readout",
    "lr_grid",
    "paired_finals",
    "paired_stacks",
    "param_counts",
    "runs_for",
    "shared_final",
    "train_arms",
]

logger = logging.getLogger(__name__)

#: The display name of each arm (gate), in the order that fixes its colour in every figure.
ARM_LABELS = {
    "none": "baseline",
    "elementwise": "G1 elementwise",
    "headwise": "G1 headwise",
    "ns_sigmoid": "NS-sigmoid 0.5+0.5σ",
    "input_independent": "σ(bias)",
    "g2_value": "G2 after V",
    "g5_output": "G5 after W_O",
    "head_shared": "G1 head-shared",
}
#: A diverged text run counts with the loss at which training is declared diverged, ln(vocab) + 1
#: (neural.gated_training), a diverged sink run with F-Attn 1 (all weight on token 0).
DIVERGED_LOSS = math.log(TEXT_VOCAB) + 1.0

#: The results of one arm's runs, in seed order.
Runs = list[dict[str, Any]]


def train_arms(
    sweep: Callable[..., list[dict[str, Any]]],
    points: Sequence[dict[str, Any]],
    name: str,
    n_seeds: int,
) -> list[dict[str, Any]]:
    """Train (or read from ``sweep``'s cache) one testbed: ``gated_lm_task`` at every point of
    ``points`` (one per arm) for ``n_seeds`` paired seeds, through ``sweep``
    (:meth:`paper_checks.context.Context.sweep`) under the sweep name ``name``. Logs the
    parameter count of each arm; returns the sweep's records.

    Parameters
    ----------
    sweep : callable
        ``sweep(task, points, name=..., n_seeds=..., paired_seeds=True)`` returning one record
        per (point, seed): a dict with ``params``, ``seed_index`` and ``result`` (the task's
        result, with ``n_params``), like :meth:`paper_checks.context.Context.sweep`.
    points : sequence of dict
        The parameter points of :func:`neural.gated_training.gated_lm_task`, one per arm, each
        with its ``gate``.
    name : str
        The sweep's name (its cache key and the log's label).
    n_seeds : int
        The paired seeds per point.

    Returns
    -------
    list of dict
        The sweep's records.

    Examples
    --------
    A stand-in sweep that trains nothing shows the call (a real one trains every run):

    >>> from neural.gated_testbeds import train_arms
    >>> def sweep(task, points, name, n_seeds, paired_seeds):
    ...     return [
    ...         {"params": p, "seed_index": s, "result": {"n_params": 100}}
    ...         for p in points
    ...         for s in range(n_seeds)
    ...     ]
    >>> records = train_arms(sweep, [{"gate": "none"}, {"gate": "headwise"}], "demo", 2)
    >>> [(r["params"]["gate"], r["seed_index"]) for r in records]
    [('none', 0), ('none', 1), ('headwise', 0), ('headwise', 1)]
    """
    from neural.gated_training import gated_lm_task

    records = sweep(gated_lm_task, points, name=name, n_seeds=n_seeds, paired_seeds=True)
    counts = {r["params"]["gate"]: r["result"]["n_params"] for r in records}
    for gate, count in counts.items():
        logger.info("%s testbed, %s: %d parameters", name, ARM_LABELS[gate], count)
    return records


def by_arm(records: list[dict[str, Any]], lr: float | None = None) -> dict[str, Runs]:
    """Run results grouped by gate, ordered by seed index (only runs at ``lr`` when given).

    Parameters
    ----------
    records : list of dict
        A testbed's sweep records (:func:`train_arms`), each with ``params`` (``gate``, ``lr``),
        ``seed_index`` and ``result``.
    lr : float, optional
        Keep only the runs at this learning rate (compared with :func:`math.isclose`); None (the
        default) keeps every run.

    Returns
    -------
    dict of str to list of dict
        The ``result`` of each run, per gate, in seed order.

    Examples
    --------
    >>> from neural.gated_testbeds import by_arm
    >>> records = [
    ...     {"params": {"gate": "none", "lr": 1e-3}, "seed_index": 1, "result": "b"},
    ...     {"params": {"gate": "none", "lr": 1e-3}, "seed_index": 0, "result": "a"},
    ...     {"params": {"gate": "headwise", "lr": 3e-3}, "seed_index": 0, "result": "c"},
    ... ]
    >>> by_arm(records)
    {'none': ['a', 'b'], 'headwise': ['c']}
    >>> by_arm(records, lr=3e-3)
    {'headwise': ['c']}
    """
    arms: dict[str, Runs] = {}
    for record in sorted(records, key=lambda r: r["seed_index"]):
        if lr is None or math.isclose(record["params"]["lr"], lr):
            arms.setdefault(record["params"]["gate"], []).append(record["result"])
    return arms


def runs_for(arms: dict[str, Runs], gate: str, role: str) -> Runs:
    """The runs of arm ``gate``; a ValueError naming ``role`` and the trained arms if it has none.

    Parameters
    ----------
    arms : dict of str to list of dict
        Runs per gate (:func:`by_arm`).
    gate : str
        The arm wanted.
    role : str
        What the arm is for in the caller's comparison (``"baseline"``, ``"gated"``, …), named by
        the error.

    Returns
    -------
    list of dict
        ``arms[gate]``.

    Raises
    ------
    ValueError
        If ``gate`` was not trained.

    Examples
    --------
    >>> from neural.gated_testbeds import runs_for
    >>> arms = {"none": ["a"], "headwise": ["b"]}
    >>> runs_for(arms, "headwise", "gated")
    ['b']
    >>> runs_for(arms, "elementwise", "gated")
    Traceback (most recent call last):
    ...
    ValueError: gated arm 'elementwise' was not trained (arms: headwise, none)
    """
    if gate not in arms:
        raise ValueError(f"{role} arm {gate!r} was not trained (arms: {', '.join(sorted(arms))})")
    return arms[gate]


def base_lr(records: list[dict[str, Any]]) -> float:
    """The LR at which the controls were trained (the most common LR of the runs).

    Parameters
    ----------
    records : list of dict
        A testbed's sweep records, each with ``params["lr"]``.

    Returns
    -------
    float
        The learning rate of the most runs.

    Examples
    --------
    >>> from neural.gated_testbeds import base_lr
    >>> base_lr([{"params": {"lr": lr}} for lr in (1e-3, 3e-3, 3e-3, 1e-2)])
    0.003
    """
    lrs = [r["params"]["lr"] for r in records]
    return max(set(lrs), key=lrs.count)


def arms_at_base_lr(records: list[dict[str, Any]]) -> dict[str, Runs]:
    """:func:`by_arm` of the runs at the base LR (:func:`base_lr`), where every arm trained.

    Parameters
    ----------
    records : list of dict
        A testbed's sweep records (:func:`train_arms`).

    Returns
    -------
    dict of str to list of dict
        The runs at the base LR, per gate, in seed order.

    Examples
    --------
    >>> from neural.gated_testbeds import arms_at_base_lr
    >>> records = [
    ...     {"params": {"gate": gate, "lr": lr}, "seed_index": 0, "result": f"{gate}@{lr}"}
    ...     for gate, lr in [("none", 1e-3), ("headwise", 1e-3), ("none", 1e-2)]
    ... ]
    >>> arms_at_base_lr(records)
    {'none': ['none@0.001'], 'headwise': ['headwise@0.001']}
    """
    return by_arm(records, base_lr(records))


def param_counts(arms: dict[str, Runs]) -> dict[str, int]:
    """The parameter count of each arm (the same in every seed).

    Parameters
    ----------
    arms : dict of str to list of dict
        Runs per gate (:func:`by_arm`), each result with ``n_params``.

    Returns
    -------
    dict of str to int
        The first run's ``n_params`` of each arm.

    Examples
    --------
    >>> from neural.gated_testbeds import param_counts
    >>> param_counts({"none": [{"n_params": 1200}], "headwise": [{"n_params": 1198}]})
    {'none': 1200, 'headwise': 1198}
    """
    return {gate: int(runs[0]["n_params"]) for gate, runs in arms.items()}


# ----------------------------------------------------------------------------- final numbers
def final(runs: Runs, key: str) -> np.ndarray:
    """A final measurement of each run (NaN for a diverged run).

    Parameters
    ----------
    runs : list of dict
        One arm's run results in seed order (as :func:`by_arm` groups them), each with
        ``diverged`` (bool) and ``final`` (dict of the final measurements).
    key : str
        The measurement (a key of ``final``, a number).

    Returns
    -------
    numpy.ndarray of float, (len(runs),)
        ``final[key]`` of each run, NaN where it diverged.

    Examples
    --------
    >>> from neural.gated_testbeds import final
    >>> runs = [
    ...     {"diverged": False, "final": {"val_loss": 2.5}},
    ...     {"diverged": True, "final": {}},
    ... ]
    >>> final(runs, "val_loss").tolist()
    [2.5, nan]
    """
    return np.array([np.nan if r["diverged"] else r["final"][key] for r in runs], dtype=float)


def finals(runs: Runs, keys: Iterable[str], name: str = "{}") -> dict[str, np.ndarray]:
    """:func:`final` of each of ``keys``, under the name ``name.format(key)``.

    Parameters
    ----------
    runs : list of dict
        One arm's run results in seed order (as :func:`by_arm` groups them), each with
        ``diverged`` (bool) and ``final`` (dict of the final measurements).
    keys : iterable of str
        The measurements.
    name : str, optional
        A format string with one ``{}`` for the key (default ``"{}"``, the key itself).

    Returns
    -------
    dict of str to numpy.ndarray of float
        One array (len(runs),) per key.

    Examples
    --------
    >>> from neural.gated_testbeds import finals
    >>> runs = [{"diverged": False, "final": {"val_loss": 2.5, "f_attn": 0.25}}]
    >>> {k: v.tolist() for k, v in finals(runs, ["val_loss", "f_attn"], "{}_gated").items()}
    {'val_loss_gated': [2.5], 'f_attn_gated': [0.25]}
    """
    return {name.format(key): final(runs, key) for key in keys}


def paired_finals(base: Runs, gated: Runs, keys: Iterable[str]) -> dict[str, np.ndarray]:
    """:func:`finals` of the baseline's and the gated arm's runs, as ``<key>_baseline`` and
    ``<key>_gated``.

    Parameters
    ----------
    base : list of dict
        The baseline arm's runs, in seed order.
    gated : list of dict
        The gated arm's runs, in the same seed order (paired seeds).
    keys : iterable of str
        The measurements.

    Returns
    -------
    dict of str to numpy.ndarray of float
        ``<key>_baseline`` and ``<key>_gated`` for each key, one value per seed.

    Examples
    --------
    >>> from neural.gated_testbeds import paired_finals
    >>> base = [{"diverged": False, "final": {"f_attn": 0.5}}]
    >>> gated = [{"diverged": False, "final": {"f_attn": 0.125}}]
    >>> {k: v.tolist() for k, v in paired_finals(base, gated, ["f_attn"]).items()}
    {'f_attn_baseline': [0.5], 'f_attn_gated': [0.125]}
    """
    keys = list(keys)
    return finals(base, keys, "{}_baseline") | finals(gated, keys, "{}_gated")


def final_stack(runs: Runs, key: str) -> np.ndarray:
    """The final ``key`` (a per-layer or per-head list, a histogram) of every run stacked into
    one array, a diverged run's row NaN (it keeps only its loss); ``(len(runs), 0)`` when no run
    finished.

    Parameters
    ----------
    runs : list of dict
        One arm's run results in seed order (as :func:`by_arm` groups them), each with
        ``diverged`` (bool) and ``final`` (dict of the final measurements).
    key : str
        The measurement, an array-like of the same shape in every finished run.

    Returns
    -------
    numpy.ndarray of float, (len(runs), ...)
        One row per run, NaN for a diverged one.

    Examples
    --------
    >>> from neural.gated_testbeds import final_stack
    >>> runs = [
    ...     {"diverged": False, "final": {"f_attn_per_layer": [0.5, 0.25]}},
    ...     {"diverged": True, "final": {"val_loss": 9.0}},
    ... ]
    >>> final_stack(runs, "f_attn_per_layer").tolist()
    [[0.5, 0.25], [nan, nan]]
    >>> final_stack(runs[1:], "f_attn_per_layer").shape
    (1, 0)
    """
    shapes = [np.shape(r["final"][key]) for r in runs if not r["diverged"]]
    missing = np.full(shapes[0] if shapes else (0,), np.nan)
    return np.array([missing if r["diverged"] else r["final"][key] for r in runs], dtype=float)


def paired_stacks(base: Runs, gated: Runs, key: str) -> dict[str, np.ndarray]:
    """:func:`final_stack` of the baseline's and the gated arm's runs, as ``<key>_baseline`` and
    ``<key>_gated``.

    Parameters
    ----------
    base : list of dict
        The baseline arm's runs, in seed order.
    gated : list of dict
        The gated arm's runs, in the same seed order (paired seeds).
    key : str
        The measurement (a per-layer or per-head list, a histogram).

    Returns
    -------
    dict of str to numpy.ndarray of float
        ``<key>_baseline`` and ``<key>_gated``, each (seeds, ...).

    Examples
    --------
    >>> from neural.gated_testbeds import paired_stacks
    >>> base = [{"diverged": False, "final": {"m_act_per_layer": [3.0, 4.0]}}]
    >>> gated = [{"diverged": False, "final": {"m_act_per_layer": [1.0, 1.5]}}]
    >>> {k: v.tolist() for k, v in paired_stacks(base, gated, "m_act_per_layer").items()}
    {'m_act_per_layer_baseline': [[3.0, 4.0]], 'm_act_per_layer_gated': [[1.0, 1.5]]}
    """
    return {f"{key}_baseline": final_stack(base, key), f"{key}_gated": final_stack(gated, key)}


def shared_final(runs: Runs, key: str) -> float:
    """A final number that every finished run shares (the testbed's uniform first-token weight),
    read from the first run that finished; NaN when none did.

    Parameters
    ----------
    runs : list of dict
        One arm's run results in seed order (as :func:`by_arm` groups them), each with
        ``diverged`` (bool) and ``final`` (dict of the final measurements).
    key : str
        The measurement.

    Returns
    -------
    float
        ``final[key]`` of the first finished run, or NaN.

    Examples
    --------
    >>> from neural.gated_testbeds import shared_final
    >>> runs = [
    ...     {"diverged": True, "final": {}},
    ...     {"diverged": False, "final": {"uniform": 0.0594}},
    ... ]
    >>> shared_final(runs, "uniform"), shared_final(runs[:1], "uniform")
    (0.0594, nan)
    """
    return next((float(r["final"][key]) for r in runs if not r["diverged"]), math.nan)


def final_loss(runs: Runs) -> np.ndarray:
    """Final val loss per run, a diverged run counted at the divergence level ln(vocab) + 1.

    Parameters
    ----------
    runs : list of dict
        One arm's run results in seed order (as :func:`by_arm` groups them), each with
        ``diverged`` (bool) and ``final`` (dict of the final measurements) (``val_loss`` among them).

    Returns
    -------
    numpy.ndarray of float, (len(runs),)
        The final validation loss of each run, :data:`DIVERGED_LOSS` where it diverged.

    Examples
    --------
    >>> from neural.gated_testbeds import final_loss
    >>> runs = [{"diverged": False, "final": {"val_loss": 2.5}}, {"diverged": True, "final": {}}]
    >>> [round(x, 4) for x in final_loss(runs).tolist()]  # ln 257 + 1
    [2.5, 6.5491]
    """
    return np.nan_to_num(final(runs, "val_loss"), nan=DIVERGED_LOSS)


def gate_readout(gated: Runs) -> dict[str, Any]:
    """The gate measurements of a gated arm's runs, per seed: the final mean gate, its value at
    the first trajectory point (step 0), the share of gate values < 0.1, the share of gated
    outputs |Y ⊙ g| < 1e-2 beside the share of |Y · mean(g)| < 1e-2 (our scalar control,
    :func:`neural.attention_metrics.gate_summary`), and the final mean gate of each layer.

    Parameters
    ----------
    gated : list of dict
        A gated arm's runs in seed order, each with ``diverged``, ``final`` (the measurements of
        :func:`neural.attention_metrics.measure`) and ``trajectory`` (a list of measurement
        dicts, the first at step 0).

    Returns
    -------
    dict
        ``gate_mean``, ``gate_mean_at_init``, ``gate_below_0.1``, ``gated_output_below_1e-2``
        and ``mean_gate_control_output_below_1e-2`` (arrays, one value per seed, NaN where a
        run diverged) and ``gate_mean_per_layer`` (a list of per-layer lists).

    Examples
    --------
    >>> from neural.gated_testbeds import gate_readout
    >>> measured = {
    ...     "gate_mean": 0.125,
    ...     "gate_below_0.1": 0.75,
    ...     "gated_output_below_1e-2": 0.5,
    ...     "mean_gate_control_below_1e-2": 0.25,
    ...     "gate_mean_per_layer": [0.1, 0.15],
    ... }
    >>> run = {"diverged": False, "final": measured, "trajectory": [{"gate_mean": 0.5}]}
    >>> readout = gate_readout([run])
    >>> readout["gate_mean"].tolist(), readout["gate_mean_at_init"].tolist()
    ([0.125], [0.5])
    >>> readout["gate_mean_per_layer"]
    [[0.1, 0.15]]
    """
    return {
        "gate_mean": final(gated, "gate_mean"),
        "gate_mean_at_init": np.array([r["trajectory"][0]["gate_mean"] for r in gated]),
        "gate_below_0.1": final(gated, "gate_below_0.1"),
        "gated_output_below_1e-2": final(gated, "gated_output_below_1e-2"),
        "mean_gate_control_output_below_1e-2": final(gated, "mean_gate_control_below_1e-2"),
        "gate_mean_per_layer": final_stack(gated, "gate_mean_per_layer").tolist(),
    }


class LRGrid(NamedTuple):
    """One arm's runs over an LR grid."""

    #: (seeds, LRs) final val loss, NaN where the run diverged
    loss: np.ndarray
    #: (seeds, LRs) whether the run diverged
    diverged: np.ndarray
    #: seed 0's run at each LR (for its loss curve)
    first_seed: Runs


def lr_grid(records: list[dict[str, Any]], gate: str, lrs: Sequence[float]) -> LRGrid:
    """Arm ``gate``'s runs at each LR of ``lrs`` (a ValueError if it has none at one of them).

    Parameters
    ----------
    records : list of dict
        A testbed's sweep records (:func:`train_arms`).
    gate : str
        The arm.
    lrs : sequence of float
        The learning rates of the grid, in column order.

    Returns
    -------
    LRGrid
        The (seeds, LRs) final losses and divergence flags and seed 0's run at each LR.

    Raises
    ------
    ValueError
        If the arm has no run at one of ``lrs``.

    Examples
    --------
    >>> from neural.gated_testbeds import lr_grid
    >>> def record(lr, seed, loss):
    ...     result = {"diverged": loss is None, "final": {"val_loss": loss}}
    ...     return {"params": {"gate": "none", "lr": lr}, "seed_index": seed, "result": result}
    >>> records = [record(1e-3, 0, 2.5), record(1e-3, 1, 2.4), record(1e-2, 0, None),
    ...            record(1e-2, 1, 2.25)]
    >>> grid = lr_grid(records, "none", [1e-3, 1e-2])
    >>> grid.loss.tolist(), grid.diverged.tolist()
    ([[2.5, nan], [2.4, 2.25]], [[False, True], [False, False]])
    """
    per_lr = [runs_for(by_arm(records, lr), gate, "compared") for lr in lrs]
    return LRGrid(
        np.array([final(runs_at, "val_loss") for runs_at in per_lr]).T,
        np.array([[r["diverged"] for r in runs_at] for runs_at in per_lr]).T,
        [runs_at[0] for runs_at in per_lr],
    )
