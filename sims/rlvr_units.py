"""The experiments of the RLVR reproduction's claims and their per-unit statistics.

The design and its assertions: docs/rlvr.md#rlvr-tiny-reproduction-arm-a-toy-arm-b-transformer,
docs/rlvr.md#the-toys-assertions-fixed-before-the-runs.

Arm A (``sims.rlvr_toy``): a *unit* is one problem set (400 train and 400 test problems) drawn
afresh, with the RL seed(s) trained on it; :func:`unit_runs` trains every unit through a sweep,
and each claim's statistic is one number per unit. Every pass@k here is exact (p_i is known);
sampled counts c ~ Binomial(n, p) are drawn only to check the estimator, to count solved sets and
to write the ``problem,n,c`` files that ``paper-checks solve passk`` replays.

Arm B (``neural.rlvr_transformer``, whose records this module reads without importing torch): a
unit is one trained model; :func:`pool_arm_b` pools the test prompts of the models that passed
the base's gate, and :func:`arm_b_units` gives each model's paired differences averaged over its
own prompts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from sims.bootstrap import paired_mean_ci
from sims.rlvr_toy import base_learned, sample_counts, toy_arms_task
from theory import _domain, passk, passk_stats
from theory.fits import fit_power_law

__all__ = [
    "TRAININGS",
    "ArmBPool",
    "arm_b_cis",
    "arm_b_gate",
    "arm_b_measured",
    "arm_b_pass1",
    "arm_b_units",
    "control_units",
    "coverage_units",
    "crossing_table",
    "crossing_units",
    "crossings",
    "distillation_units",
    "estimator_curves",
    "exact_curve",
    "gain_curves",
    "hard_p_mean",
    "kl_large_k_reading",
    "kl_rows",
    "pass1_gain_units",
    "pool_arm_b",
    "slope_fits",
    "slope_means",
    "slope_table",
    "trainings_for",
    "unit_curve",
    "unit_runs",
    "write_arm_b_samples",
    "write_sample_file",
]

#: The trainings of ``toy_arms_task``: shared GRPO, distillation (then GRPO), tabular GRPO.
TRAININGS = ("grpo", "distill", "tabular")

Groups = dict[tuple[int, float, int], list[dict[str, Any]]]


def write_sample_file(path: Path, ids: Sequence[str], n: np.ndarray, c: np.ndarray) -> Path:
    """Write per-problem counts as the ``problem,n,c`` CSV that ``paper-checks solve passk``
    reads (one row per problem: its id, samples ``n`` and correct samples ``c``).

    Parameters
    ----------
    path : pathlib.Path
        The file; its folder is made when missing.
    ids : sequence of str
        Problem ids.
    n : numpy.ndarray of int
        Samples per problem.
    c : numpy.ndarray of int
        Correct samples per problem.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from sims.rlvr_units import write_sample_file
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     n, c = np.array([4, 4]), np.array([1, 0])
    ...     path = write_sample_file(Path(folder) / "x.csv", ["a", "b"], n, c)
    ...     print(path.read_text(), end="")
    problem,n,c
    a,4,1
    b,4,0
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["problem,n,c", *(f"{i},{a},{b}" for i, a, b in zip(ids, n, c, strict=True))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------ Arm A
def trainings_for(*arms: str) -> tuple[str, ...]:
    """The trainings of ``toy_arms_task`` that produce the named arms (e.g. "grpo400" -> grpo,
    "distill_grpo" -> distill); GRPO alone when no arm needs a training.

    Parameters
    ----------
    *arms : str
        Arm names of :func:`sims.rlvr_toy.toy_arms_task`.

    Returns
    -------
    tuple of str
        The trainings, in :data:`TRAININGS` order.

    Examples
    --------
    >>> from sims.rlvr_units import trainings_for
    >>> trainings_for("grpo400", "distill_grpo"), trainings_for("base")
    (('grpo', 'distill'), ('grpo',))
    """
    need = {"grpo": ("grpo",), "distill": ("distill",), "tabular": ("tabular",)}
    out = {t for a in arms for prefix, ts in need.items() if a.startswith(prefix) for t in ts}
    return tuple(t for t in TRAININGS if t in out) or ("grpo",)


def unit_runs(
    sweep: Callable[..., list[dict[str, Any]]],
    worlds: Sequence[Any],
    name: str = "arms",
    trainings: Sequence[str] = TRAININGS,
    snrs: Sequence[float] = (0.0,),
    *,
    task: Callable | None = None,
    configs: Sequence[Mapping[str, Any]] = ({},),
    n_seeds: int = 1,
    paired_seeds: bool = False,
) -> Groups:
    """Arm A's units through ``sweep``: ``n_seeds`` RL seeds of ``toy_arms_task`` (or ``task``) on
    each problem set ``worlds[u]`` (seed entropy of unit u's problems), for each SNR and config,
    grouped as ``(unit, snr, config index) -> [result of each RL seed]`` with p arrays as numpy.

    Parameters
    ----------
    sweep : callable
        ``(fn, params, name=, n_seeds=, paired_seeds=) -> records``, e.g. ``Context.sweep``.
    worlds : sequence
        Seed entropy of each unit's problems.
    name : str
        The sweep's name.
    trainings : sequence of str
        The trainings run (``arms`` of the task).
    snrs : sequence of float
        The SNRs.
    task : callable or None
        A stand-in for :func:`sims.rlvr_toy.toy_arms_task` with the same record format.
    configs : sequence of mapping
        Overrides of ``ToyConfig`` fields per config, e.g. ``{"kl": 0.1}``.
    n_seeds : int
        RL seeds per unit.
    paired_seeds : bool
        Every parameter point trains on the same RL streams.

    Returns
    -------
    dict
        ``(unit, snr, config index) -> list of results``.

    Examples
    --------
    >>> from sims.rlvr_units import unit_runs
    >>> from sims.sweep import run_sweep
    >>> def sweep(fn, params, name, n_seeds, paired_seeds):
    ...     return run_sweep(fn, params, n_seeds=n_seeds, paired_seeds=paired_seeds)
    >>> small = {"n_train": 64, "n_test": 64}
    >>> groups = unit_runs(sweep, worlds=[0, 1], trainings=["grpo"], configs=[small])
    >>> sorted(groups), sorted(groups[(0, 0.0, 0)][0]["test"])
    ([(0, 0.0, 0), (1, 0.0, 0)], ['base', 'grpo150', 'grpo400', 'grpo800'])
    """
    params = [
        {"snr": float(s), "arms": list(trainings), "world": world, "unit": u, "config": i} | dict(c)
        for u, world in enumerate(worlds)
        for s in snrs
        for i, c in enumerate(configs)
    ]
    records = sweep(
        toy_arms_task if task is None else task,
        params,
        name=name,
        n_seeds=n_seeds,
        paired_seeds=paired_seeds,
    )
    groups: Groups = {}
    for r in records:
        res = r["result"]
        for split in ("test", "train"):
            res[split] = {k: np.asarray(v, float) for k, v in res[split].items()}
        key = (int(r["params"]["unit"]), float(r["params"]["snr"]), int(r["params"]["config"]))
        groups.setdefault(key, []).append(res)
    return groups


def exact_curve(p: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Exact dataset pass@k, mean over problems of 1 − (1 − p)^k, at each k of ``ks``.

    Parameters
    ----------
    p : numpy.ndarray of float
        Per-problem success probabilities.
    ks : numpy.ndarray of int
        The budgets k.

    Returns
    -------
    numpy.ndarray of float
        pass@k per k.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import exact_curve
    >>> exact_curve(np.array([0.5, 1.0]), np.array([1, 2])).tolist()
    [0.75, 0.875]
    """
    return np.asarray(passk.pass_at_k_curve_exact(p, ks))


def unit_curve(
    results: Sequence[Mapping[str, Any]], arm: str, ks: np.ndarray, split: str = "test"
) -> np.ndarray:
    """A unit's exact pass@k curve of ``arm``: the mean over its RL seeds.

    Parameters
    ----------
    results : sequence of mapping
        The unit's results (one per RL seed).
    arm : str
        The arm.
    ks : numpy.ndarray of int
        The budgets k.
    split : str
        ``"test"`` or ``"train"``.

    Returns
    -------
    numpy.ndarray of float
        pass@k per k.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import unit_curve
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> unit_curve([result], "grpo", ks).round(3).tolist()[:4]
    [0.534, 0.648, 0.693, 0.7]
    """
    return np.mean([exact_curve(r[split][arm], ks) for r in results], axis=0)


def gain_curves(groups: Groups, arm: str, ks: np.ndarray) -> np.ndarray:
    """pass@k(arm) − pass@k(base) per unit, exact on the test problems.

    Parameters
    ----------
    groups : dict
        Units of :func:`unit_runs`.
    arm : str
        The arm.
    ks : numpy.ndarray of int
        The budgets k.

    Returns
    -------
    numpy.ndarray of float
        (units, len(ks)).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import gain_curves
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> gains = gain_curves(groups, "grpo", ks)
    >>> gains.shape, gains[0, [0, -1]].round(3).tolist()  # RL gains at k = 1, loses at k = 256
    ((2, 9), [0.084, -0.2])
    """
    return np.asarray([unit_curve(r, arm, ks) - unit_curve(r, "base", ks) for r in groups.values()])


def distillation_units(
    groups: Groups, student_arm: str, *, ks: np.ndarray, large_k: int
) -> dict[str, Any]:
    """Per unit, the gains of the student over the base (assertion 5a of
    docs/rlvr.md#the-toys-assertions-fixed-before-the-runs).

    Parameters
    ----------
    groups : dict
        Units of :func:`unit_runs`.
    student_arm : str
        The distilled arm.
    ks : numpy.ndarray of int
        The budgets k.
    large_k : int
        Smallest k of the large-k gain.

    Returns
    -------
    dict
        ``distill_min_gain``, the smallest exact pass@k(student) − pass@k(base) over ``ks``, and
        ``distill_large_k_gain``, the smallest over k ≥ ``large_k``, per unit; ``delta``, the
        gain curves (:func:`gain_curves`, units × ks).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import distillation_units
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> out = distillation_units(groups, "distill", ks=ks, large_k=64)
    >>> [np.round(out[name], 3).tolist() for name in ("distill_min_gain", "distill_large_k_gain")]
    [[0.03, 0.03], [0.1, 0.1]]
    """
    delta = gain_curves(groups, student_arm, ks)
    return {
        "distill_min_gain": delta.min(axis=1).tolist(),
        "distill_large_k_gain": delta[:, ks >= large_k].min(axis=1).tolist(),
        "delta": delta,
    }


def hard_p_mean(record: Mapping[str, Any], arm: str) -> float | None:
    """Mean exact p of ``arm`` on the test problems no base strategy solves (``hard_test``).

    Parameters
    ----------
    record : mapping
        A result of :func:`sims.rlvr_toy.toy_arms_task`.
    arm : str
        The arm.

    Returns
    -------
    float or None
        The mean, None when there is no hard problem.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import hard_p_mean
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> hard_p_mean(result, "distill"), hard_p_mean(result, "base")
    (0.2, 0.0)
    """
    hard = np.asarray(record["hard_test"], bool)
    return float(record["test"][arm][hard].mean()) if hard.any() else None


def pass1_gain_units(
    groups: Groups, rl_arm: str, *, ks: np.ndarray, n: int, rng: np.random.Generator
) -> dict[str, list[float]]:
    """Per unit: the pass@1 gain of RL and the worst z of the pass@k estimator on sampled counts.

    ``pass1_gain`` is the exact pass@1(RL) − pass@1(base) on the test problems (RL seeds
    averaged), and ``estimator_max_abs_z`` the largest absolute z of
    :func:`theory.passk_stats.estimator_z` over base and RL and the budgets of ``ks`` up to
    ``n``, for counts c ~ Binomial(n, p) drawn from ``rng`` (per RL seed, base then RL). The
    paper's pass@1 gains: docs/rlvr.md#the-papers-findings-the-checks-compare-with; the
    estimator: docs/rlvr.md#passk-and-its-estimator.

    Parameters
    ----------
    groups : dict
        Units of :func:`unit_runs`.
    rl_arm : str
        The RL arm.
    ks : numpy.ndarray of int
        The budgets k (the first is 1).
    n : int
        Samples per problem.
    rng : numpy.random.Generator
        Source of the counts.

    Returns
    -------
    dict of str to list of float
        ``pass1_gain`` and ``estimator_max_abs_z`` per unit.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import pass1_gain_units
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> out = pass1_gain_units(groups, "grpo", ks=ks, n=16, rng=np.random.default_rng(0))
    >>> np.round(out["pass1_gain"], 3).tolist(), bool(max(out["estimator_max_abs_z"]) < 4)
    ([0.084, 0.084], True)
    """
    ks_est = ks[ks <= n]
    gains, z_max = [], []
    for results in groups.values():
        gains.append(float(unit_curve(results, rl_arm, ks)[0] - unit_curve(results, "base", ks)[0]))
        z = 0.0
        for r in results:
            for arm in ("base", rl_arm):
                c = sample_counts(r["test"][arm], n, rng)
                z = max(
                    z, float(np.max(np.abs(passk_stats.estimator_z(r["test"][arm], c, n, ks_est))))
                )
        z_max.append(z)
    return {"pass1_gain": gains, "estimator_max_abs_z": z_max}


def estimator_curves(
    probs: Mapping[str, np.ndarray], n: int, ks: np.ndarray, rngs: Mapping[str, Any]
) -> dict[str, np.ndarray]:
    """The n-sample unbiased estimate of dataset pass@k on ``ks`` of each arm of ``probs`` that
    has a generator in ``rngs``, from counts c ~ Binomial(n, p) drawn with it.

    Parameters
    ----------
    probs : mapping of str to numpy.ndarray
        Arm -> per-problem exact p.
    n : int
        Samples per problem.
    ks : numpy.ndarray of int
        The budgets k (≤ n).
    rngs : mapping of str to numpy.random.Generator
        Arm -> source of its counts.

    Returns
    -------
    dict of str to numpy.ndarray
        Arm -> estimated pass@k per k.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import estimator_curves
    >>> p = np.linspace(0.0, 0.9, 10)
    >>> rngs = {"base": np.random.default_rng(0)}  # no generator for "rl": left out
    >>> curves = estimator_curves({"base": p, "rl": p}, 16, np.array([1, 4]), rngs)
    >>> list(curves), curves["base"].round(3).tolist()  # exact: 0.45, 0.69
    (['base'], [0.388, 0.672])
    """
    return {
        arm: passk.pass_at_k_curve(np.full(p.size, n), sample_counts(p, n, rngs[arm]), ks)
        for arm, p in probs.items()
        if arm in rngs
    }


def crossings(
    groups: Groups, rl_arm: str, *, ks: np.ndarray, k_large: int
) -> dict[float, dict[str, list]]:
    """Per SNR, one entry per unit of the crossing of base and RL.

    ``log_k``, log2 of the first k where base overtakes RL (``passk_stats.log2_k_star``, censored
    at the ends of ``ks``), ``n``, the sign changes of Δ(k) = pass@k(RL) − pass@k(base),
    ``loss``, pass@k_large(base) − pass@k_large(RL), and ``d``, the curve Δ (RL seeds averaged).
    The paper's crossing k: docs/rlvr.md#the-papers-findings-the-checks-compare-with; assertions
    2 and 3: docs/rlvr.md#the-toys-assertions-fixed-before-the-runs.

    Parameters
    ----------
    groups : dict
        Units of :func:`unit_runs`.
    rl_arm : str
        The RL arm.
    ks : numpy.ndarray of int
        The budgets k.
    k_large : int
        The large k (one of ``ks``).

    Returns
    -------
    dict of float to dict
        SNR -> ``log_k``, ``n``, ``loss``, ``d``, each a list over units.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import crossings
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> rows = crossings(groups, "grpo", ks=ks, k_large=256)
    >>> row = rows[0.0]
    >>> np.round(row["log_k"], 3).tolist(), row["n"], np.round(row["loss"], 3).tolist()
    ([1.383, 1.383], [1, 1], [0.2, 0.2])
    """
    i_large = int(np.flatnonzero(ks == k_large)[0])
    rows: dict[float, dict[str, list]] = {}
    for (_, snr, _), results in groups.items():
        base, rl = unit_curve(results, "base", ks), unit_curve(results, rl_arm, ks)
        log_k, n_changes = passk_stats.log2_k_star(ks, base, rl)
        row = rows.setdefault(snr, {"log_k": [], "n": [], "loss": [], "d": []})
        row["log_k"].append(log_k)
        row["n"].append(n_changes)
        row["loss"].append(float(base[i_large] - rl[i_large]))
        row["d"].append(rl - base)
    return rows


def crossing_units(rows: Mapping[float, Mapping[str, list]], max_snr: float) -> dict[str, list]:
    """Per unit, the worst over the SNRs ≤ ``max_snr`` of :func:`crossings`' rows: the smallest
    ``pass256_loss``, ``log2_k_star_min`` and ``log2_k_star_max``, and ``extra_sign_changes``,
    the largest deviation of the sign changes from 1 (0: exactly one crossing).

    Parameters
    ----------
    rows : mapping
        The rows of :func:`crossings`.
    max_snr : float
        Largest SNR asserted.

    Returns
    -------
    dict of str to list
        Each statistic per unit.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import crossing_units, crossings
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> out = crossing_units(crossings(groups, "grpo", ks=ks, k_large=256), max_snr=0.0)
    >>> out["extra_sign_changes"], np.round(out["pass256_loss"], 3).tolist()
    ([0.0, 0.0], [0.2, 0.2])
    """
    asserted = [s for s in rows if s <= max_snr]
    stack = {key: np.array([rows[s][key] for s in asserted]) for key in ("log_k", "n", "loss")}
    return {
        "pass256_loss": stack["loss"].min(axis=0).tolist(),
        "log2_k_star_min": stack["log_k"].min(axis=0).tolist(),
        "log2_k_star_max": stack["log_k"].max(axis=0).tolist(),
        "extra_sign_changes": np.abs(stack["n"] - 1).max(axis=0).astype(float).tolist(),
    }


def crossing_table(rows: Mapping[float, Mapping[str, list]]) -> dict[str, dict[str, Any]]:
    """``snr_<s>`` -> the geometric mean k* and mean pass@256 loss over units, and the per-unit
    log2 k*, sign changes and losses of :func:`crossings`' rows.

    Parameters
    ----------
    rows : mapping
        The rows of :func:`crossings`.

    Returns
    -------
    dict of str to dict
        Per SNR: ``k_star_geometric_mean``, ``log2_k_star_per_unit``, ``n_crossings_per_unit``,
        ``pass256_loss_mean``, ``pass256_loss_per_unit``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import crossing_table, crossings
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> table = crossing_table(crossings(groups, "grpo", ks=ks, k_large=256))
    >>> round(table["snr_0"]["k_star_geometric_mean"], 3), table["snr_0"]["n_crossings_per_unit"]
    (2.608, [1, 1])
    """
    return {
        f"snr_{s:g}": {
            "k_star_geometric_mean": float(2 ** np.mean(row["log_k"])),
            "log2_k_star_per_unit": row["log_k"],
            "n_crossings_per_unit": row["n"],
            "pass256_loss_mean": float(np.mean(row["loss"])),
            "pass256_loss_per_unit": row["loss"],
        }
        for s, row in rows.items()
    }


def kl_rows(
    groups: Groups, rl_arm: str, kls: Sequence[float], *, ks: np.ndarray, k_large: int
) -> dict[float, dict[str, Any]]:
    """GRPO with a KL(π ‖ π_base) penalty: per coefficient the mean pass@1 gain, the mean
    pass@k_large loss (base − RL) and k* per unit (None: no crossing on ``ks``).

    The paper: KL = 0.001 gives a similar pass@1 but a lower pass@128, KL is no safeguard
    (docs/rlvr.md#the-papers-findings-the-checks-compare-with); the exact tilt, the KL optimum
    with per-problem freedom, never crosses (docs/rlvr.md#sharpening-models-our-analysis).

    Parameters
    ----------
    groups : dict
        Units of :func:`unit_runs` with ``configs`` = [{"kl": v} for v in ``kls``].
    rl_arm : str
        The RL arm.
    kls : sequence of float
        The KL coefficients, in config order.
    ks : numpy.ndarray of int
        The budgets k.
    k_large : int
        The large k (one of ``ks``).

    Returns
    -------
    dict of float to dict
        KL -> ``pass1_gain``, ``pass256_loss``, ``k_star_per_seed``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import kl_rows
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> by_kl = {(0, 0.0, 0): [result], (0, 0.0, 1): [result]}  # configs: KL 0 and 0.1
    >>> rows = kl_rows(by_kl, "grpo", [0.0, 0.1], ks=ks, k_large=256)
    >>> round(rows[0.1]["pass1_gain"], 3), np.round(rows[0.1]["k_star_per_seed"], 3).tolist()
    (0.084, [2.608])
    """
    i_large = int(np.flatnonzero(ks == k_large)[0])
    rows: dict[float, dict[str, list]] = {}
    for (_, _, i), results in groups.items():
        base, rl = unit_curve(results, "base", ks), unit_curve(results, rl_arm, ks)
        k_star = passk.crossing_k(ks, base, rl).k_star
        row = rows.setdefault(kls[i], {"gain": [], "loss": [], "k": []})
        row["gain"].append(float(rl[0] - base[0]))
        row["loss"].append(float(base[i_large] - rl[i_large]))
        row["k"].append(None if k_star is None else float(k_star))
    return {
        kl: {
            "pass1_gain": float(np.mean(row["gain"])),
            "pass256_loss": float(np.mean(row["loss"])),
            "k_star_per_seed": row["k"],
        }
        for kl, row in rows.items()
    }


def coverage_units(
    groups: Groups,
    rl_arms: Sequence[str],
    *,
    n: int,
    rng: np.random.Generator,
    prefix: Path,
    k: int = 256,
) -> dict[str, Any]:
    """Coverage along the GRPO checkpoints ``rl_arms`` (assertions 4 and 5b of
    docs/rlvr.md#the-toys-assertions-fixed-before-the-runs), per unit.

    ``pass256`` (exact pass@k of base and each checkpoint, RL seeds averaged), ``max_rise`` (the
    largest rise of it from one checkpoint to the next) and ``rl_only_share`` (the largest, over
    checkpoints, of the mean over RL seeds of the share of test problems solved, c > 0 of n
    sampled from ``rng``, by RL but not by base).

    Parameters
    ----------
    groups : dict
        Units of :func:`unit_runs`.
    rl_arms : sequence of str
        The GRPO checkpoints, in training order.
    n : int
        Samples per problem.
    rng : numpy.random.Generator
        Source of the counts.
    prefix : pathlib.Path
        Prefix of the count files.
    k : int
        The budget of ``pass256``.

    Returns
    -------
    dict
        The statistics above, and the summed ``venn`` counts and ``hist``
        (``passk_stats.accuracy_histogram``) of every unit, and the ``files`` of counts written to
        ``<prefix>.unit<unit>.seed<RL seed>.<arm>.csv``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from sims.rlvr_units import coverage_units
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = coverage_units(
    ...         groups, ["grpo"], n=16, rng=np.random.default_rng(0), prefix=Path(folder) / "toy"
    ...     )
    >>> out["pass256"].round(3).tolist()[0], out["rl_only_share"], len(out["files"])
    ([0.9, 0.7], [0.0, 0.0], 4)
    """
    pass256, rises, rl_only, venn, hist, files = [], [], [], {}, {}, []
    for (unit, _, _), results in groups.items():
        row = [unit_curve(results, a, np.array([k]))[0] for a in ("base", *rl_arms)]
        pass256.append(row)
        rises.append(float(np.max(np.diff(row))))
        shares: dict[str, list[float]] = {a: [] for a in rl_arms}
        for j, r in enumerate(results):
            test = r["test"]
            counts = {a: sample_counts(test[a], n, rng) for a in ("base", *rl_arms)}
            ids = [f"u{unit}-s{j}-{i}" for i in range(test["base"].size)]
            for arm, c in counts.items():
                path = Path(f"{prefix}.unit{unit}.seed{j}.{arm}.csv")
                files.append(write_sample_file(path, ids, np.full(c.size, n), c))
                hist[arm] = hist.get(arm, 0) + passk_stats.accuracy_histogram(c, n)
            for arm in rl_arms:
                sets = passk_stats.solved_sets(counts["base"], counts[arm])
                shares[arm].append(sets["rl_only"] / test["base"].size)
                venn[arm] = {key: venn.get(arm, {}).get(key, 0) + v for key, v in sets.items()}
        rl_only.append(float(max(np.mean(v) for v in shares.values())))
    return {
        "pass256": np.asarray(pass256),  # (units, 1 + checkpoints)
        "max_rise": rises,
        "rl_only_share": rl_only,
        "venn": venn,
        "hist": hist,
        "files": files,
    }


def control_units(
    groups: Groups,
    control_arm: str,
    tilt: Callable,
    betas: Sequence[float],
    *,
    ks: np.ndarray,
) -> dict[str, Any]:
    """Controls that should not cross (the exact tilt of
    docs/rlvr.md#sharpening-models-our-analysis; assertion 6 of
    docs/rlvr.md#the-toys-assertions-fixed-before-the-runs), per unit on the training problems.

    ``controls_min_delta``, the worst deficit min_k of pass@k(control) − pass@k(base) over
    ``ks`` and the controls (``control_arm``, RL seeds averaged, and ``tilt(p, β)`` of the base p
    at each β of ``betas``); ``max_relative_loss_of_p``, the largest 1 − q/p of ``control_arm``
    over problems with p > 0.

    Parameters
    ----------
    groups : dict
        Units of :func:`unit_runs`.
    control_arm : str
        The control arm (on the training problems).
    tilt : callable
        (p, β) -> the tilted p, e.g. :func:`theory.passk.tilt`.
    betas : sequence of float
        The tilts.
    ks : numpy.ndarray of int
        The budgets k.

    Returns
    -------
    dict
        The statistics above; the first crossings k* (None: none) of ``control_arm``
        (``control_crossings``) and of each tilt (``tilt_crossings``) and how many there are
        (``crossed``); the curves Δ of ``control_arm`` (``delta``); and the mean pass@1 of base
        and control (``pass1``).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import control_units
    >>> p = np.linspace(0.0, 0.9, 10)  # the base's exact p on 10 test problems
    >>> q = np.where(p > 0.3, np.sqrt(p), 0.0)  # RL: sharper, but loses the hard problems
    >>> result = {  # one RL seed's record of toy_arms_task
    ...     "test": {"base": p, "grpo": q, "distill": np.maximum(p, 0.2)},
    ...     "train": {"base": p, "tabular": q},
    ...     "hard_test": p == 0,
    ... }
    >>> groups = {(0, 0.0, 0): [result], (1, 0.0, 0): [result]}  # (unit, snr, config) -> seeds
    >>> ks = 2 ** np.arange(9)  # k = 1 .. 256
    >>> from theory.passk import tilt
    >>> out = control_units(groups, "tabular", tilt, [0.5, 2.0], ks=ks)
    >>> out["crossed"], out["tilt_crossings"]  # this control crosses; the exact tilt never does
    ({'control': 2, 'tilt': 0}, [None, None, None, None])
    """
    tab_cross, tilt_cross, min_delta, max_loss, deltas, pass1 = [], [], [], [], [], []
    for results in groups.values():
        p = results[0]["train"]["base"]
        base = exact_curve(p, ks)
        control = unit_curve(results, control_arm, ks, split="train")
        deltas.append(control - base)
        pass1.append((float(base[0]), float(control[0])))
        tab_cross.append(passk.crossing_k(ks, base, control).k_star)
        solvable = p > 0
        max_loss.append(
            max(float(np.max(1 - r["train"][control_arm][solvable] / p[solvable])) for r in results)
        )
        worst = float(np.min(control - base))
        for beta in betas:
            tilted = exact_curve(np.asarray(tilt(p, beta)), ks)
            tilt_cross.append(passk.crossing_k(ks, base, tilted).k_star)
            worst = min(worst, float(np.min(tilted - base)))
        min_delta.append(worst)
    return {
        "controls_min_delta": min_delta,
        "max_relative_loss_of_p": max_loss,
        "control_crossings": tab_cross,
        "tilt_crossings": tilt_cross,
        "crossed": {
            "control": sum(k is not None for k in tab_cross),
            "tilt": sum(k is not None for k in tilt_cross),
        },
        "delta": np.asarray(deltas),
        "pass1": np.mean(pass1, axis=0),
    }


def slope_fits(
    groups: Groups,
    rl_arm: str,
    *,
    ks: np.ndarray,
    window: tuple[float, float],
    min_p: float,
    tail_p: float,
) -> list[dict[str, Any]]:
    """The logit-affine model (docs/rlvr.md#sharpening-models-our-analysis) fitted to each unit's
    test problems with base p ≥ ``min_p``.

    Beta(a, b) by maximum likelihood to p and (α, β) of logit q = α·logit p + β by least squares
    (``passk_stats.fit_logit_affine_parts``, with its tail and bulk fits), q the RL seeds' mean.
    The failure-rate curves 1 − pass@k on ``ks`` (``curves``: measured ``base``, ``rl``; the
    model's ``model_base`` = ``beta_pass_at_k``, ``model_rl`` = ``beta_logit_affine_pass_at_k``)
    and their log–log slopes on ``window`` (``fit_power_law``) under the same names.

    Parameters
    ----------
    groups : dict
        Units of :func:`unit_runs`.
    rl_arm : str
        The RL arm.
    ks : numpy.ndarray of int
        The budgets k.
    window : (float, float)
        The k range of the slopes.
    min_p : float
        Smallest base p kept.
    tail_p : float
        The tail fit's bound on p.

    Returns
    -------
    list of dict
        One per unit: ``a``, ``b``, the fit's entries, ``curves`` and the four slopes.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import slope_fits
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(0.5, 1.5, size=400)  # base p ~ Beta(0.5, 1.5)
    >>> q = 1 / (1 + np.exp(-(1.5 * np.log(p / (1 - p)) + 0.5)))  # logit q = 1.5 logit p + 0.5
    >>> groups = {(0, 0.0, 0): [{"test": {"base": p, "grpo": q}}]}
    >>> rows = slope_fits(
    ...     groups, "grpo", ks=2 ** np.arange(9), window=(16, 256), min_p=1e-4, tail_p=0.1
    ... )
    >>> round(rows[0]["alpha"], 6), round(rows[0]["beta"], 6)  # the map is recovered
    (1.5, 0.5)
    >>> rows[0]["base"] < rows[0]["rl"] < 0  # RL's failure rate falls more slowly in k
    True
    """
    rows = []
    for results in groups.values():
        test = results[0]["test"]
        keep = test["base"] >= min_p
        p = test["base"][keep]
        q = np.mean([r["test"][rl_arm] for r in results], axis=0)[keep]
        a, b, _, _ = stats.beta.fit(p, floc=0, fscale=1)
        fit = passk_stats.fit_logit_affine_parts(p, q, min_p=min_p, tail_p=tail_p)
        alpha, beta = fit["alpha"], fit["beta"]
        curves = {
            "base": 1 - exact_curve(p, ks),
            "rl": 1 - exact_curve(q, ks),
            "model_base": 1 - passk.beta_pass_at_k(a, b, ks),
            "model_rl": 1 - passk.beta_logit_affine_pass_at_k(a, b, alpha, beta, ks),
        }
        slopes = {
            k: fit_power_law(ks, v, window=window, n_boot=0).exponent for k, v in curves.items()
        }
        rows.append({"a": a, "b": b, **fit, "curves": curves, **slopes})
    return rows


def slope_means(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Means over units of :func:`slope_fits`' rows: ``slopes`` (measured and model, base and RL)
    and ``fits`` (a, α; nan-means of the tail and bulk fits, NaN when no unit has one).

    Parameters
    ----------
    rows : sequence of mapping
        The rows of :func:`slope_fits`.

    Returns
    -------
    dict
        ``{"slopes": {...}, "fits": {...}}``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import slope_fits, slope_means
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(0.5, 1.5, size=400)  # base p ~ Beta(0.5, 1.5)
    >>> q = 1 / (1 + np.exp(-(1.5 * np.log(p / (1 - p)) + 0.5)))  # logit q = 1.5 logit p + 0.5
    >>> groups = {(0, 0.0, 0): [{"test": {"base": p, "grpo": q}}]}
    >>> rows = slope_fits(
    ...     groups, "grpo", ks=2 ** np.arange(9), window=(16, 256), min_p=1e-4, tail_p=0.1
    ... )
    >>> means = slope_means(rows)
    >>> sorted(means["slopes"]), round(means["fits"]["alpha_tail"], 6)
    (['base', 'model_base', 'model_rl', 'rl'], 1.5)
    """
    mean = {
        k: float(np.mean([r[k] for r in rows]))
        for k in ("base", "rl", "model_base", "model_rl", "a", "alpha")
    }
    mean |= {
        k: float(np.nanmean([r[k] for r in rows]))
        if np.any(np.isfinite([r[k] for r in rows]))
        else float("nan")
        for k in ("alpha_tail", "beta_tail", "alpha_bulk")
    }
    slopes = ("base", "rl", "model_base", "model_rl")
    return {
        "slopes": {k: mean[k] for k in slopes},
        "fits": {k: v for k, v in mean.items() if k not in slopes},
    }


def slope_table(
    rows: Sequence[Mapping[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(measured, model) of :func:`slope_fits`' rows, one entry per unit in each list.

    Measured: the slopes of base and RL, their ratio, the fits (a, b, α, β; the tail's α, β and
    problem count, the bulk's α), the relative slope errors abs(measured / model − 1) of base and
    RL (``slope_error_<arm>_per_unit``) and the largest of them. Model: its slopes on the window,
    the logit-affine model's asymptotic slopes (−a, −a/α) and the ratio base/RL it predicts (α).

    Parameters
    ----------
    rows : sequence of mapping
        The rows of :func:`slope_fits`.

    Returns
    -------
    measured, model : dict
        The two tables.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import slope_fits, slope_table
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(0.5, 1.5, size=400)  # base p ~ Beta(0.5, 1.5)
    >>> q = 1 / (1 + np.exp(-(1.5 * np.log(p / (1 - p)) + 0.5)))  # logit q = 1.5 logit p + 0.5
    >>> groups = {(0, 0.0, 0): [{"test": {"base": p, "grpo": q}}]}
    >>> rows = slope_fits(
    ...     groups, "grpo", ks=2 ** np.arange(9), window=(16, 256), min_p=1e-4, tail_p=0.1
    ... )
    >>> measured, model = slope_table(rows)
    >>> measured["units"], np.round(model["slope_ratio_base_over_rl"], 6).tolist()
    (1, [1.5])
    """
    err = {arm: [abs(r[arm] / r[f"model_{arm}"] - 1) for r in rows] for arm in ("base", "rl")}
    measured = {
        "slope_base": [r["base"] for r in rows],
        "slope_rl": [r["rl"] for r in rows],
        "max_slope_rel_error": float(max(*err["base"], *err["rl"])),
        "slope_ratio_base_over_rl": [r["base"] / r["rl"] for r in rows],
        "fit_a": [r["a"] for r in rows],
        "fit_b": [r["b"] for r in rows],
        "fit_alpha": [r["alpha"] for r in rows],
        "fit_beta": [r["beta"] for r in rows],
        "tail_alpha": [r["alpha_tail"] for r in rows],
        "tail_beta": [r["beta_tail"] for r in rows],
        "bulk_alpha": [r["alpha_bulk"] for r in rows],
        "tail_problems": [r["n_tail"] for r in rows],
        "slope_error_base_per_unit": err["base"],
        "slope_error_rl_per_unit": err["rl"],
        "units": len(rows),
    }
    model = {
        "slope_base": [r["model_base"] for r in rows],
        "slope_rl": [r["model_rl"] for r in rows],
        "asymptotic_slopes": [[-r["a"], -r["a"] / r["alpha"]] for r in rows],
        "slope_ratio_base_over_rl": [r["alpha"] for r in rows],
    }
    return measured, model


# ------------------------------------------------------------------------------------ Arm B
def arm_b_pass1(record: Mapping[str, Any]) -> tuple[float, float]:
    """(base pass@1 from the model's n-sample counts, mean chance pass@1) of an Arm B record.

    Parameters
    ----------
    record : mapping
        An Arm B record (``n``, ``counts``, ``chance_pass1``).

    Returns
    -------
    base_pass1, chance_pass1 : float
        The two pass@1's.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import arm_b_pass1
    >>> def model_record(seed):  # an Arm B record of one trained model, 8 test prompts
    ...     rng = np.random.default_rng(seed)
    ...     base = np.linspace(0.05, 0.9, 8)
    ...     rl = 1 / (1 + (1 / base - 1) ** 2 / 2)  # logit q = 2 logit p + ln 2
    ...     p = {"base": base, "rl": rl, "distill": np.maximum(base, 0.2)}
    ...     return {
    ...         "n": 64, "p": p, "counts": {arm: rng.binomial(64, q) for arm, q in p.items()},
    ...         "chance_pass1": [0.05] * 8, "needs_hidden": [False] * 7 + [True],
    ...         "test": [[s, s + 1] for s in range(8)],
    ...         "base_loss": [2.0, 1.0], "rl_reward": [0.3, 0.6],
    ...     }
    >>> records = [model_record(seed) for seed in (0, 1)]
    >>> base, chance = arm_b_pass1(records[0])
    >>> round(base, 3), chance
    (0.424, 0.05)
    """
    base = np.asarray(record["counts"]["base"], np.int64)
    n = int(record["n"])
    return float(base.mean() / n), float(np.mean(np.asarray(record["chance_pass1"], float)))


def arm_b_gate(
    trained: Sequence[Mapping[str, Any]], rl_arm: str, margin: float
) -> list[Mapping[str, Any]]:
    """The Arm B models that give a unit: RL was run and the base learned
    (:func:`sims.rlvr_toy.base_learned`: pass@1 ≥ chance + ``margin`` and ≥ 3 × chance: RL is run
    only on a base that learned).

    Parameters
    ----------
    trained : sequence of mapping
        The Arm B records.
    rl_arm : str
        The RL arm.
    margin : float
        The gate's margin over chance.

    Returns
    -------
    list of mapping
        The records that pass, in order.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import arm_b_gate
    >>> def model_record(seed):  # an Arm B record of one trained model, 8 test prompts
    ...     rng = np.random.default_rng(seed)
    ...     base = np.linspace(0.05, 0.9, 8)
    ...     rl = 1 / (1 + (1 / base - 1) ** 2 / 2)  # logit q = 2 logit p + ln 2
    ...     p = {"base": base, "rl": rl, "distill": np.maximum(base, 0.2)}
    ...     return {
    ...         "n": 64, "p": p, "counts": {arm: rng.binomial(64, q) for arm, q in p.items()},
    ...         "chance_pass1": [0.05] * 8, "needs_hidden": [False] * 7 + [True],
    ...         "test": [[s, s + 1] for s in range(8)],
    ...         "base_loss": [2.0, 1.0], "rl_reward": [0.3, 0.6],
    ...     }
    >>> records = [model_record(seed) for seed in (0, 1)]
    >>> unlearned = {**records[0], "counts": {"base": [0] * 8, "rl": [0] * 8}}
    >>> len(arm_b_gate(records + [unlearned], "rl", margin=0.1))
    2
    """
    return [r for r in trained if rl_arm in r["counts"] and base_learned(*arm_b_pass1(r), margin)]


@dataclass(frozen=True)
class ArmBPool:
    """The test prompts of the gated Arm B models, pooled (prompts of different models are
    distinct problems). ``est`` maps arm -> per-prompt pass@k on ``ks`` (P, K): exact when every
    record holds p (``exact``), else the n-sample estimator for k ≤ n/4; ``model`` gives each
    prompt's model index."""

    #: The gated models' result records (one per trained model: the unit), in order.
    models: list[Mapping[str, Any]]
    #: The RL arm compared with the base model (e.g. ``"rl"``).
    rl_arm: str
    #: Samples drawn per prompt and arm (the n of the pass@k estimator).
    n: int
    #: ``"rl_kl"`` when every model has the KL-penalised ablation arm, else None.
    kl_arm: str | None
    #: Per prompt, the pass@1 of the uniform random policy (``neural.rlvr_transformer.chance_success``) (P,).
    chance: np.ndarray
    #: Arm -> per-prompt count of verified samples out of ``n`` (P,).
    counts: dict[str, np.ndarray]
    #: Per prompt, whether no path within the length limit uses only the base graph's edges (P,).
    needs_hidden: np.ndarray
    #: True when every record holds the exact per-prompt p (enumerated), so pass@k is exact.
    exact: bool
    #: The k grid of ``est``.
    ks: np.ndarray
    #: The large k at which the crossing is judged (n/4 for records without exact p).
    k_large: int
    #: Arm -> per-prompt pass@k on ``ks`` (P, K): exact, or the unbiased estimator.
    est: dict[str, np.ndarray]
    #: Arm -> per-prompt exact p (P,) when ``exact``, else None.
    probs: dict[str, np.ndarray] | None
    #: Largest gap between the estimator's and the exact mean pass@k for k ≤ n/4 (None without p).
    estimator_gap: float | None
    #: RL's logit-affine map fitted on the exact p (``passk_stats.fit_logit_affine_parts``).
    rl_map: dict[str, float] | None
    #: Per prompt, the index of the model it belongs to (P,).
    model: np.ndarray

    @property
    def j(self) -> int:
        """Index of ``k_large`` in ``ks``."""
        return int(np.flatnonzero(self.ks == self.k_large)[0])

    @property
    def curves(self) -> dict[str, np.ndarray]:
        """Pooled pass@k of each arm: the mean over prompts of ``est``."""
        return {arm: e.mean(axis=0) for arm, e in self.est.items()}

    def diffs(self) -> dict[str, np.ndarray]:
        """Per-prompt paired differences of the claim: the pass@1 gain of RL, the large-k loss
        of RL (base − RL) and the large-k gain of distillation."""
        est, rl, j = self.est, self.rl_arm, self.j
        return {
            "pass1_gain": est[rl][:, 0] - est["base"][:, 0],
            "large_k_loss": est["base"][:, j] - est[rl][:, j],
            "distill_gain": est["distill"][:, j] - est["base"][:, j],
        }


def pool_arm_b(
    models: Sequence[Mapping[str, Any]],
    rl_arm: str,
    *,
    ks: np.ndarray,
    k_large: int,
    min_p: float,
    tail_p: float,
) -> ArmBPool:
    """Pool the test prompts of the gated ``models`` (Arm B of
    docs/rlvr.md#rlvr-tiny-reproduction-arm-a-toy-arm-b-transformer; docs/rlvr.md#conventions).

    Exact pass@k on ``ks`` judged at ``k_large`` when every record holds the exact p
    (enumeration), with the largest gap of the n-sample estimator's curve from it for k ≤ n/4
    and RL's logit map (``passk_stats.fit_logit_affine_parts``, ``min_p`` and ``tail_p``); else
    (older records) the estimator for k ≤ n/4 (docs/rlvr.md#conventions), judged at n/4. The KL
    ablation arm ``rl_kl`` joins when every model has it.

    Parameters
    ----------
    models : sequence of mapping
        The gated records (:func:`arm_b_gate`).
    rl_arm : str
        The RL arm.
    ks : numpy.ndarray of int
        The budgets k of the exact curves.
    k_large : int
        The large k (one of ``ks``).
    min_p, tail_p : float
        The logit map's bounds on p.

    Returns
    -------
    ArmBPool
        The pooled prompts.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import pool_arm_b
    >>> def model_record(seed):  # an Arm B record of one trained model, 8 test prompts
    ...     rng = np.random.default_rng(seed)
    ...     base = np.linspace(0.05, 0.9, 8)
    ...     rl = 1 / (1 + (1 / base - 1) ** 2 / 2)  # logit q = 2 logit p + ln 2
    ...     p = {"base": base, "rl": rl, "distill": np.maximum(base, 0.2)}
    ...     return {
    ...         "n": 64, "p": p, "counts": {arm: rng.binomial(64, q) for arm, q in p.items()},
    ...         "chance_pass1": [0.05] * 8, "needs_hidden": [False] * 7 + [True],
    ...         "test": [[s, s + 1] for s in range(8)],
    ...         "base_loss": [2.0, 1.0], "rl_reward": [0.3, 0.6],
    ...     }
    >>> records = [model_record(seed) for seed in (0, 1)]
    >>> pool = pool_arm_b(records, "rl", ks=2 ** np.arange(9), k_large=256, min_p=0.01, tail_p=0.1)
    >>> pool.exact, pool.est["base"].shape, pool.kl_arm  # 16 prompts, 9 budgets
    (True, (16, 9), None)
    >>> round(pool.rl_map["alpha"], 6)  # logit q = 2 logit p + ln 2
    2.0
    """
    res = list(models)
    n = int(res[0]["n"])
    chance = np.concatenate([np.asarray(r["chance_pass1"], float) for r in res])
    kl_arm = "rl_kl" if all("rl_kl" in r["counts"] for r in res) else None
    arms = ("base", rl_arm, "distill", *([kl_arm] if kl_arm else []))
    counts = {
        arm: np.concatenate([np.asarray(r["counts"][arm], np.int64) for r in res]) for arm in arms
    }
    needs_hidden = np.concatenate([np.asarray(r["needs_hidden"], bool) for r in res])
    sampled_ks = 2 ** np.arange(int(np.log2(n // 4)) + 1)  # k ≤ n/4 (docs/rlvr.md#conventions)
    sampled = {
        arm: np.stack([passk.pass_at_k(np.full(c.size, n), c, int(k)) for k in sampled_ks], axis=1)
        for arm, c in counts.items()
    }  # arm -> (P, K) per-problem unbiased estimates
    exact = all("p" in r for r in res)
    probs = None
    if exact:  # exact p by enumeration: pass@k at any k
        probs = {arm: np.concatenate([np.asarray(r["p"][arm], float) for r in res]) for arm in arms}
        est = {
            arm: np.stack([passk.pass_at_k_exact(p, int(k)) for k in ks], axis=1)
            for arm, p in probs.items()
        }  # arm -> (P, K) per-problem exact pass@k
        estimator_gap = max(
            float(np.max(np.abs(sampled[a].mean(axis=0) - est[a][:, : sampled_ks.size].mean(0))))
            for a in arms
        )
        rl_map = passk_stats.fit_logit_affine_parts(
            probs["base"], probs[rl_arm], min_p=min_p, tail_p=tail_p
        )
    else:  # counts only (older runs): the estimator, k ≤ n/4
        ks, est, estimator_gap, rl_map = sampled_ks, sampled, None, None
        k_large = int(ks[-1])
    model = np.concatenate([np.full(len(r["counts"]["base"]), i) for i, r in enumerate(res)])
    return ArmBPool(
        models=res,
        rl_arm=rl_arm,
        n=n,
        kl_arm=kl_arm,
        chance=chance,
        counts=counts,
        needs_hidden=needs_hidden,
        exact=exact,
        ks=ks,
        k_large=k_large,
        est=est,
        probs=probs,
        estimator_gap=estimator_gap,
        rl_map=rl_map,
        model=model,
    )


def arm_b_units(pool: ArmBPool) -> dict[str, list[float]]:
    """Per model (the unit), the mean over its own test prompts of each paired difference of
    :meth:`ArmBPool.diffs`.

    Parameters
    ----------
    pool : ArmBPool
        The pooled prompts (:func:`pool_arm_b`).

    Returns
    -------
    dict of str to list of float
        ``pass1_gain``, ``large_k_loss`` and ``distill_gain`` per model.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import arm_b_units, pool_arm_b
    >>> def model_record(seed):  # an Arm B record of one trained model, 8 test prompts
    ...     rng = np.random.default_rng(seed)
    ...     base = np.linspace(0.05, 0.9, 8)
    ...     rl = 1 / (1 + (1 / base - 1) ** 2 / 2)  # logit q = 2 logit p + ln 2
    ...     p = {"base": base, "rl": rl, "distill": np.maximum(base, 0.2)}
    ...     return {
    ...         "n": 64, "p": p, "counts": {arm: rng.binomial(64, q) for arm, q in p.items()},
    ...         "chance_pass1": [0.05] * 8, "needs_hidden": [False] * 7 + [True],
    ...         "test": [[s, s + 1] for s in range(8)],
    ...         "base_loss": [2.0, 1.0], "rl_reward": [0.3, 0.6],
    ...     }
    >>> records = [model_record(seed) for seed in (0, 1)]
    >>> pool = pool_arm_b(records, "rl", ks=2 ** np.arange(9), k_large=256, min_p=0.01, tail_p=0.1)
    >>> {name: np.round(values, 3).tolist() for name, values in arm_b_units(pool).items()}
    {'pass1_gain': [0.075, 0.075], 'large_k_loss': [0.03, 0.03], 'distill_gain': [0.0, 0.0]}
    """
    return {
        name: [float(np.mean(diff[pool.model == i])) for i in range(len(pool.models))]
        for name, diff in pool.diffs().items()
    }


def arm_b_cis(
    pool: ArmBPool, rng: np.random.Generator, n_boot: int
) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]]:
    """95% paired-bootstrap CIs over the pooled prompts (reported, not decided): of each difference
    of :meth:`ArmBPool.diffs`, then, with the KL arm, of pass@k(GRPO + KL) − pass@k(GRPO) at
    k = 1 (``pass1``) and at the large k (``pass_k_large``), in that order from ``rng``.

    Parameters
    ----------
    pool : ArmBPool
        The pooled prompts.
    rng : numpy.random.Generator
        Source of the resamples.
    n_boot : int
        Resamples per interval.

    Returns
    -------
    ci : dict of str to (float, float)
        The difference -> its interval.
    kl_ci : dict of str to (float, float)
        The KL intervals (empty without the KL arm).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import arm_b_cis, pool_arm_b
    >>> def model_record(seed):  # an Arm B record of one trained model, 8 test prompts
    ...     rng = np.random.default_rng(seed)
    ...     base = np.linspace(0.05, 0.9, 8)
    ...     rl = 1 / (1 + (1 / base - 1) ** 2 / 2)  # logit q = 2 logit p + ln 2
    ...     p = {"base": base, "rl": rl, "distill": np.maximum(base, 0.2)}
    ...     return {
    ...         "n": 64, "p": p, "counts": {arm: rng.binomial(64, q) for arm, q in p.items()},
    ...         "chance_pass1": [0.05] * 8, "needs_hidden": [False] * 7 + [True],
    ...         "test": [[s, s + 1] for s in range(8)],
    ...         "base_loss": [2.0, 1.0], "rl_reward": [0.3, 0.6],
    ...     }
    >>> records = [model_record(seed) for seed in (0, 1)]
    >>> pool = pool_arm_b(records, "rl", ks=2 ** np.arange(9), k_large=256, min_p=0.01, tail_p=0.1)
    >>> ci, kl_ci = arm_b_cis(pool, np.random.default_rng(0), n_boot=200)
    >>> sorted(ci), kl_ci
    (['distill_gain', 'large_k_loss', 'pass1_gain'], {})
    >>> low, high = ci["pass1_gain"]
    >>> bool(0 < low < high)
    True
    """
    ci = {
        name: paired_mean_ci(diff, rng, n_boot=n_boot, level=0.95)
        for name, diff in pool.diffs().items()
    }
    if pool.kl_arm is None:
        return ci, {}
    kl, rl, j = pool.est[pool.kl_arm], pool.est[pool.rl_arm], pool.j
    kl_ci = {
        "pass1": paired_mean_ci(kl[:, 0] - rl[:, 0], rng, n_boot=n_boot, level=0.95),
        "pass_k_large": paired_mean_ci(kl[:, j] - rl[:, j], rng, n_boot=n_boot, level=0.95),
    }
    return ci, kl_ci


def kl_large_k_reading(low: float, high: float) -> str:
    """The KL ablation against the paper (KL = 0.001 gives a lower pass@128;
    docs/rlvr.md#the-papers-findings-the-checks-compare-with) from the 95% CI [low, high] of
    pass@K(GRPO + KL) − pass@K(GRPO) at the large k, K.

    Parameters
    ----------
    low, high : float
        The interval, finite, low ≤ high.

    Returns
    -------
    str
        The reading: lower, higher, or no resolved effect.

    Raises
    ------
    ValueError
        Unless both are finite with low ≤ high.

    Examples
    --------
    >>> from sims.rlvr_units import kl_large_k_reading
    >>> kl_large_k_reading(-0.1, -0.01)
    'KL lowers large-k coverage, as in the paper'
    >>> kl_large_k_reading(-0.1, 0.1)
    'no resolved KL effect at large k (paper: KL lower)'
    """
    low = _domain.real("low", low)
    high = _domain.real("high", high, minimum=low)
    if high < 0:
        return "KL lowers large-k coverage, as in the paper"
    if low > 0:
        return "KL raises large-k coverage, unlike the paper"
    return "no resolved KL effect at large k (paper: KL lower)"


def arm_b_measured(
    pool: ArmBPool, ci: Mapping[str, Any], kl_ci: Mapping[str, Any], *, seeds: int
) -> dict[str, Any]:
    """What Arm B measured: its ``units`` (:func:`arm_b_units`), the pooled curves and crossing k*
    (also per model), the solved sets (counts, Venn regions of base, RL and distillation, those
    needing hidden edges), accuracy histograms (docs/rlvr.md#passk-and-its-estimator), the CIs
    and the KL reading, RL's logit map, the first model's last training loss and reward, and of
    the ``seeds`` models trained, how many the gate left out.

    Parameters
    ----------
    pool : ArmBPool
        The pooled prompts.
    ci, kl_ci : mapping
        The intervals of :func:`arm_b_cis`.
    seeds : int
        Models trained (before the gate).

    Returns
    -------
    dict
        The measurements, JSON-ready but for numpy arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_units import arm_b_cis, arm_b_measured, pool_arm_b
    >>> def model_record(seed):  # an Arm B record of one trained model, 8 test prompts
    ...     rng = np.random.default_rng(seed)
    ...     base = np.linspace(0.05, 0.9, 8)
    ...     rl = 1 / (1 + (1 / base - 1) ** 2 / 2)  # logit q = 2 logit p + ln 2
    ...     p = {"base": base, "rl": rl, "distill": np.maximum(base, 0.2)}
    ...     return {
    ...         "n": 64, "p": p, "counts": {arm: rng.binomial(64, q) for arm, q in p.items()},
    ...         "chance_pass1": [0.05] * 8, "needs_hidden": [False] * 7 + [True],
    ...         "test": [[s, s + 1] for s in range(8)],
    ...         "base_loss": [2.0, 1.0], "rl_reward": [0.3, 0.6],
    ...     }
    >>> records = [model_record(seed) for seed in (0, 1)]
    >>> pool = pool_arm_b(records, "rl", ks=2 ** np.arange(9), k_large=256, min_p=0.01, tail_p=0.1)
    >>> ci, kl_ci = arm_b_cis(pool, np.random.default_rng(0), n_boot=200)
    >>> out = arm_b_measured(pool, ci, kl_ci, seeds=3)
    >>> round(out["k_star"], 3), out["solved"], out["models_gated_out"]
    (2.305, {'base': 16, 'rl': 14, 'distill': 16}, 1)
    """
    ks, rl, counts = pool.ks, pool.rl_arm, pool.counts
    curves = pool.curves
    mine = [pool.model == i for i in range(len(pool.models))]
    kl_reading = kl_large_k_reading(*kl_ci["pass_k_large"]) if pool.kl_arm else None
    return {
        "k": ks,
        "k_large": pool.k_large,
        "exact_p": pool.exact,
        "estimator_max_abs_gap": pool.estimator_gap,
        **{f"pass_at_k_{arm}": v for arm, v in curves.items()},
        "chance_pass1": float(pool.chance.mean()),
        "ci_over_pooled_prompts": dict(ci),
        "k_star": passk.crossing_k(ks, curves["base"], curves[rl]).k_star,
        "k_star_per_seed": [
            passk.crossing_k(
                ks, pool.est["base"][m].mean(axis=0), pool.est[rl][m].mean(axis=0)
            ).k_star
            for m in mine
        ],
        "solved": {arm: int(np.sum(c > 0)) for arm, c in counts.items()},
        "solved_venn": passk_stats.solved_regions(
            {arm: counts[arm] for arm in ("base", rl, "distill")}
        ),
        "accuracy_histogram": {
            a: passk_stats.accuracy_histogram(c, pool.n).tolist() for a, c in counts.items()
        },
        "kl_ablation_ci": dict(kl_ci),
        "kl_ablation_reading": kl_reading,
        "rl_logit_map": pool.rl_map,
        "solved_needing_hidden_edges": {
            arm: int(np.sum(c[pool.needs_hidden] > 0)) for arm, c in counts.items()
        },
        "prompts_needing_hidden_edges": int(pool.needs_hidden.sum()),
        "base_loss_last": float(pool.models[0]["base_loss"][-1]),
        "rl_reward_last": float(pool.models[0]["rl_reward"][-1]),
        "units": arm_b_units(pool),
        "seeds": seeds,
        "models_gated_out": seeds - len(pool.models),
    }


def write_arm_b_samples(pool: ArmBPool, prefix: Path) -> list[Path]:
    """Each model's per-prompt counts of each arm as ``problem,n,c`` files
    ``<prefix>.seed<model>.<arm>.csv`` (:func:`write_sample_file`), prompt ids
    ``s<model>-<start>-<goal>``.

    Parameters
    ----------
    pool : ArmBPool
        The pooled prompts.
    prefix : pathlib.Path
        Prefix of the files.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from sims.rlvr_units import pool_arm_b, write_arm_b_samples
    >>> def model_record(seed):  # an Arm B record of one trained model, 8 test prompts
    ...     rng = np.random.default_rng(seed)
    ...     base = np.linspace(0.05, 0.9, 8)
    ...     rl = 1 / (1 + (1 / base - 1) ** 2 / 2)  # logit q = 2 logit p + ln 2
    ...     p = {"base": base, "rl": rl, "distill": np.maximum(base, 0.2)}
    ...     return {
    ...         "n": 64, "p": p, "counts": {arm: rng.binomial(64, q) for arm, q in p.items()},
    ...         "chance_pass1": [0.05] * 8, "needs_hidden": [False] * 7 + [True],
    ...         "test": [[s, s + 1] for s in range(8)],
    ...         "base_loss": [2.0, 1.0], "rl_reward": [0.3, 0.6],
    ...     }
    >>> records = [model_record(seed) for seed in (0, 1)]
    >>> pool = pool_arm_b(records, "rl", ks=2 ** np.arange(9), k_large=256, min_p=0.01, tail_p=0.1)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     files = write_arm_b_samples(pool, Path(folder) / "armb")
    ...     head = files[0].read_text().splitlines()[:2]
    >>> len(files), files[0].name, head
    (6, 'armb.seed0.base.csv', ['problem,n,c', 's0-0-1,64,4'])
    """
    return [
        write_sample_file(
            Path(f"{prefix}.seed{seed}.{arm}.csv"),
            [f"s{seed}-{s}-{g}" for s, g in np.asarray(r["test"])],
            np.full(len(r["test"]), pool.n),
            np.asarray(r["counts"][arm]),
        )
        for seed, r in enumerate(pool.models)
        for arm in pool.counts
    ]
