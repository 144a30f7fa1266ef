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
    parameter count of each arm; returns the sweep's records."""
    from neural.gated_training import gated_lm_task

    records = sweep(gated_lm_task, points, name=name, n_seeds=n_seeds, paired_seeds=True)
    counts = {r["params"]["gate"]: r["result"]["n_params"] for r in records}
    for gate, count in counts.items():
        logger.info("%s testbed, %s: %d parameters", name, ARM_LABELS[gate], count)
    return records


def by_arm(records: list[dict[str, Any]], lr: float | None = None) -> dict[str, Runs]:
    """Run results grouped by gate, ordered by seed index (only runs at ``lr`` when given)."""
    arms: dict[str, Runs] = {}
    for record in sorted(records, key=lambda r: r["seed_index"]):
        if lr is None or math.isclose(record["params"]["lr"], lr):
            arms.setdefault(record["params"]["gate"], []).append(record["result"])
    return arms


def runs_for(arms: dict[str, Runs], gate: str, role: str) -> Runs:
    """The runs of arm ``gate``; a ValueError naming ``role`` and the trained arms if it has none."""
    if gate not in arms:
        raise ValueError(f"{role} arm {gate!r} was not trained (arms: {', '.join(sorted(arms))})")
    return arms[gate]


def base_lr(records: list[dict[str, Any]]) -> float:
    """The LR at which the controls were trained (the most common LR of the runs)."""
    lrs = [r["params"]["lr"] for r in records]
    return max(set(lrs), key=lrs.count)


def arms_at_base_lr(records: list[dict[str, Any]]) -> dict[str, Runs]:
    """:func:`by_arm` of the runs at the base LR (:func:`base_lr`), where every arm trained."""
    return by_arm(records, base_lr(records))


def param_counts(arms: dict[str, Runs]) -> dict[str, int]:
    """The parameter count of each arm (the same in every seed)."""
    return {gate: int(runs[0]["n_params"]) for gate, runs in arms.items()}


# ----------------------------------------------------------------------------- final numbers
def final(runs: Runs, key: str) -> np.ndarray:
    """A final measurement of each run (NaN for a diverged run)."""
    return np.array([np.nan if r["diverged"] else r["final"][key] for r in runs], dtype=float)


def finals(runs: Runs, keys: Iterable[str], name: str = "{}") -> dict[str, np.ndarray]:
    """:func:`final` of each of ``keys``, under the name ``name.format(key)``."""
    return {name.format(key): final(runs, key) for key in keys}


def paired_finals(base: Runs, gated: Runs, keys: Iterable[str]) -> dict[str, np.ndarray]:
    """:func:`finals` of the baseline's and the gated arm's runs, as ``<key>_baseline`` and
    ``<key>_gated``."""
    keys = list(keys)
    return finals(base, keys, "{}_baseline") | finals(gated, keys, "{}_gated")


def final_stack(runs: Runs, key: str) -> np.ndarray:
    """The final ``key`` (a per-layer or per-head list, a histogram) of every run stacked into
    one array, a diverged run's row NaN (it keeps only its loss); ``(len(runs), 0)`` when no run
    finished."""
    shapes = [np.shape(r["final"][key]) for r in runs if not r["diverged"]]
    missing = np.full(shapes[0] if shapes else (0,), np.nan)
    return np.array([missing if r["diverged"] else r["final"][key] for r in runs], dtype=float)


def paired_stacks(base: Runs, gated: Runs, key: str) -> dict[str, np.ndarray]:
    """:func:`final_stack` of the baseline's and the gated arm's runs, as ``<key>_baseline`` and
    ``<key>_gated``."""
    return {f"{key}_baseline": final_stack(base, key), f"{key}_gated": final_stack(gated, key)}


def shared_final(runs: Runs, key: str) -> float:
    """A final number that every finished run shares (the testbed's uniform first-token weight),
    read from the first run that finished; NaN when none did."""
    return next((float(r["final"][key]) for r in runs if not r["diverged"]), math.nan)


def final_loss(runs: Runs) -> np.ndarray:
    """Final val loss per run, a diverged run counted at the divergence level ln(vocab) + 1."""
    return np.nan_to_num(final(runs, "val_loss"), nan=DIVERGED_LOSS)


def gate_readout(gated: Runs) -> dict[str, Any]:
    """The gate measurements of a gated arm's runs, per seed: the final mean gate, its value at
    the first trajectory point (step 0), the share of gate values < 0.1, the share of gated
    outputs |Y ⊙ g| < 1e-2 beside the share of |Y · mean(g)| < 1e-2 (our scalar control,
    :func:`neural.attention_metrics.gate_summary`), and the final mean gate of each layer."""
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
    """Arm ``gate``'s runs at each LR of ``lrs`` (a ValueError if it has none at one of them)."""
    per_lr = [runs_for(by_arm(records, lr), gate, "compared") for lr in lrs]
    return LRGrid(
        np.array([final(runs_at, "val_loss") for runs_at in per_lr]).T,
        np.array([[r["diverged"] for r in runs_at] for runs_at in per_lr]).T,
        [runs_at[0] for runs_at in per_lr],
    )
