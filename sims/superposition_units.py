"""The superposition claims' sweeps as tasks and units, their per-unit statistics, and the sampled
identities of the geometry claim (Liu, Liu & Gore, NeurIPS 2025, arXiv 2505.10465; the model and
its conventions are written out in docs/superposition.md#the-papers-model-and-what-the-checks-use).

The sweeps run :func:`sims.superposition.train_task` on the parameters built here
(:func:`ladder_tasks`). A record is ``{"params": {...}, "result": {"models": [...]}, "seed_index":
i}``; each model carries its width ``m``, weight decay ``gamma``, loss ``loss`` (summed over
features), the fractions ``phi_half`` and ``phi_one`` of rows with ‖W_i‖ above 1/2 and 1, the row
norms ``norms`` and ``overlap_strong`` (the mean squared overlap (Ŵ_i·Ŵ_j)² of the rows with
‖W_i‖ > 1). A *unit* is one training seed index of a sweep: every task of that seed index, each
with its own data stream and initialisation (:func:`by_unit`).

This module only reads records: :mod:`sims.superposition` does not import it, so the sweep caches
keyed on the code of ``train_task`` stay valid whatever changes here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sims.superposition import SparseBatch, loss_and_grad, sample_batch
from theory import _domain
from theory import superposition as theory
from theory.fits import PowerLawFit, fit_power_law

__all__ = [
    "DensityUnits",
    "Eq8Estimate",
    "KnobUnits",
    "OverlapSample",
    "WeakLawUnits",
    "by_unit",
    "density_units",
    "eq8_monte_carlo",
    "exponents_over",
    "gradient_error",
    "knob_units",
    "ladder_exponent",
    "ladder_fit",
    "ladder_tasks",
    "ladder_tasks_over",
    "per_model",
    "random_overlaps",
    "relative_gap",
    "select",
    "simplex_etf_gaps",
    "strong_unit",
    "sweep_models",
    "unlearned_gap",
    "weak_ideal_exponent",
    "weak_law_units",
    "weak_sweep_tasks",
    "weak_unit",
]

Model = dict[str, Any]
Array = NDArray[np.float64]


# ----------------------------------------------------------------------------- sweep tasks
def ladder_tasks(
    widths: Sequence[int], gammas: Sequence[float], split_at: int | None, **common: Any
) -> list[dict[str, Any]]:
    """Sweep parameters for every (m, γ) pair (γ outer, m inner): one task, or two (the widths
    below ``split_at`` and the rest) so that small and large widths are not padded to the same
    max m; each task is ``{**common, "widths": [...], "gammas": [...]}``.

    Parameters
    ----------
    widths : sequence of int
        The widths m.
    gammas : sequence of float
        The weight decays γ.
    split_at : int or None
        Width from which pairs go to the second task (None: one task).
    **common
        Further task parameters (``n``, ``steps``, ...).

    Returns
    -------
    list of dict
        The tasks' parameters, for :func:`sims.superposition.train_task`.

    Raises
    ------
    ValueError
        Naming ``widths`` unless it is a non-empty sequence of integers ≥ 1, ``gammas`` unless
        it is a non-empty 1-D sequence of finite reals, or ``split_at`` unless it is None or an
        integer ≥ 1.

    Examples
    --------
    >>> from sims.superposition_units import ladder_tasks
    >>> for task in ladder_tasks([8, 64], [-1.0, 0.0], split_at=32, n=100):
    ...     print(task)
    {'n': 100, 'widths': [8, 8], 'gammas': [-1.0, 0.0]}
    {'n': 100, 'widths': [64, 64], 'gammas': [-1.0, 0.0]}
    """
    _domain.integers("widths", widths, minimum=1)
    _domain.reals("gammas", gammas, ndim=1)
    if split_at is not None and (
        isinstance(split_at, bool) or not isinstance(split_at, int | np.integer) or split_at < 1
    ):
        raise ValueError(f"split_at must be None or an integer ≥ 1 (got {split_at!r})")
    pairs = [(m, g) for g in gammas for m in widths]
    groups = (
        [pairs]
        if split_at is None
        else [
            [pg for pg in pairs if pg[0] < split_at],
            [pg for pg in pairs if pg[0] >= split_at],
        ]
    )
    return [
        {**common, "widths": [m for m, _ in grp], "gammas": [g for _, g in grp]}
        for grp in groups
        if grp
    ]


def ladder_tasks_over(
    key: str,
    values: Sequence[float],
    widths: Sequence[int],
    gammas: Sequence[float],
    split_at: int | None,
    **common: Any,
) -> list[dict[str, Any]]:
    """:func:`ladder_tasks` once per value of the task parameter ``key`` (``alpha`` for the
    frequency exponent p_i ∝ i^−α, ``density`` for E = Σ p_i), concatenated in ``values`` order.

    Parameters
    ----------
    key : str
        The task parameter swept.
    values : sequence of float
        Its values.
    widths : sequence of int
        The widths m.
    gammas : sequence of float
        The weight decays γ.
    split_at : int or None
        As in :func:`ladder_tasks`.
    **common
        Further task parameters.

    Returns
    -------
    list of dict
        The tasks' parameters.

    Raises
    ------
    ValueError
        Naming ``key`` unless it is a string other than ``widths``, ``gammas`` and the keys of
        ``common``, ``values`` unless it is a non-empty 1-D sequence of finite reals, or
        ``widths``, ``gammas`` or ``split_at`` as :func:`ladder_tasks` does.

    Examples
    --------
    >>> from sims.superposition_units import ladder_tasks_over
    >>> tasks = ladder_tasks_over("alpha", [1.0, 2.0], [8, 64], [-1.0], split_at=None, n=100)
    >>> [(t["alpha"], t["widths"]) for t in tasks]
    [(1.0, [8, 64]), (2.0, [8, 64])]
    """
    if not isinstance(key, str) or key in ("widths", "gammas") or key in common:
        raise ValueError(f"key must name a task parameter set once (got {key!r})")
    _domain.reals("values", values, ndim=1)
    return [
        task
        for value in values
        for task in ladder_tasks(widths, gammas, split_at, **{key: value}, **common)
    ]


def weak_sweep_tasks(
    widths: Sequence[int],
    alphas: Sequence[float],
    weak_gamma: float,
    strong_gamma: float,
    strong_min_m: int,
    split_at: int,
    **sizes: Any,
) -> list[dict[str, Any]]:
    """The weak-superposition sweep of §3 (Fig. 4): a γ = ``weak_gamma`` ladder per α, split at
    ``split_at``, and the γ = ``strong_gamma`` models of widths ≥ ``strong_min_m`` added to the
    second task (the first α's widths ≥ ``split_at``), so that they train on the same data
    stream as the weak models they are compared with.

    Parameters
    ----------
    widths : sequence of int
        The widths m.
    alphas : sequence of float
        The frequency exponents α.
    weak_gamma, strong_gamma : float
        γ of the weak ladders and of the strong models.
    strong_min_m : int
        Smallest width of a strong model.
    split_at : int
        Width from which a ladder goes to its second task.
    **sizes
        Further task parameters.

    Returns
    -------
    list of dict
        The tasks' parameters.

    Raises
    ------
    ValueError
        Naming ``widths`` unless it is a non-empty sequence of integers ≥ 1, ``alphas`` unless
        it is a non-empty 1-D sequence of finite reals, ``weak_gamma`` or ``strong_gamma``
        unless they are finite reals, ``split_at`` unless it is an integer with
        min(``widths``) < ``split_at`` ≤ max(``widths``) (each ladder then has its two tasks),
        or ``strong_min_m`` unless it is an integer ≥ ``split_at``.

    Examples
    --------
    >>> from sims.superposition_units import weak_sweep_tasks
    >>> tasks = weak_sweep_tasks([8, 64], [1.5, 2.0], 0.1, -1.0, strong_min_m=64, split_at=32)
    >>> [(t["alpha"], t["widths"], t["gammas"]) for t in tasks]
    [(1.5, [8], [0.1]), (1.5, [64, 64], [0.1, -1.0]), (2.0, [8], [0.1]), (2.0, [64], [0.1])]
    """
    _domain.integers("widths", widths, minimum=1)
    _domain.reals("alphas", alphas, ndim=1)
    _domain.real("weak_gamma", weak_gamma)
    _domain.real("strong_gamma", strong_gamma)
    _domain.integer("split_at", split_at, minimum=min(widths) + 1, maximum=max(widths))
    _domain.integer("strong_min_m", strong_min_m, minimum=split_at)
    strong_widths = tuple(w for w in widths if w >= strong_min_m)
    params = ladder_tasks_over("alpha", alphas, widths, [weak_gamma], split_at, **sizes)
    params[1]["widths"] += list(strong_widths)
    params[1]["gammas"] += [strong_gamma] * len(strong_widths)
    return params


# ------------------------------------------------------------------------- records and units
def sweep_models(records: Sequence[Mapping[str, Any]]) -> list[Model]:
    """Every trained model of a sweep, with its task's α (1 when absent), density E (1 when
    absent) and seed index (``seed``) attached.

    Parameters
    ----------
    records : sequence of mapping
        Records of a sweep of :func:`sims.superposition.train_task`.

    Returns
    -------
    list of dict
        The models.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import by_unit, sweep_models
    >>> def record(seed, alpha):  # a sweep record with a ladder L = m^-1 (seed 1: 10% above)
    ...     models = [
    ...         {"m": m, "gamma": -1.0, "loss": (1 + 0.1 * seed) / m, "phi_half": 1.0,
    ...          "phi_one": 0.5, "norms": [1.2, 0.8, 0.1], "overlap_strong": {"mean": 1 / m}}
    ...         for m in (2, 4, 8, 16)
    ...     ]
    ...     return {"params": {"alpha": alpha}, "result": {"models": models}, "seed_index": seed}
    >>> records = [record(seed, alpha) for seed in (0, 1) for alpha in (1.0, 2.0)]
    >>> units = by_unit(sweep_models(records))
    >>> models = sweep_models(records)
    >>> len(models), {key: models[0][key] for key in ("alpha", "density", "seed")}
    (16, {'alpha': 1.0, 'density': 1.0, 'seed': 0})
    """
    return [
        {
            **model,
            "alpha": record["params"].get("alpha", 1.0),
            "density": record["params"].get("density", 1.0),
            "seed": record["seed_index"],
        }
        for record in records
        for model in record["result"]["models"]
    ]


def by_unit(models: Sequence[Model]) -> list[list[Model]]:
    """The models of each unit (one training seed index of the sweep: every task of that seed
    index, each with its own data stream and initialisation), in seed order.

    Parameters
    ----------
    models : sequence of dict
        Models of :func:`sweep_models`.

    Returns
    -------
    list of list of dict
        One list of models per seed index.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import by_unit, sweep_models
    >>> def record(seed, alpha):  # a sweep record with a ladder L = m^-1 (seed 1: 10% above)
    ...     models = [
    ...         {"m": m, "gamma": -1.0, "loss": (1 + 0.1 * seed) / m, "phi_half": 1.0,
    ...          "phi_one": 0.5, "norms": [1.2, 0.8, 0.1], "overlap_strong": {"mean": 1 / m}}
    ...         for m in (2, 4, 8, 16)
    ...     ]
    ...     return {"params": {"alpha": alpha}, "result": {"models": models}, "seed_index": seed}
    >>> records = [record(seed, alpha) for seed in (0, 1) for alpha in (1.0, 2.0)]
    >>> units = by_unit(sweep_models(records))
    >>> [len(unit) for unit in units], [unit[0]["seed"] for unit in units]
    ([8, 8], [0, 1])
    """
    seeds = sorted({m["seed"] for m in models})
    return [[m for m in models if m["seed"] == s] for s in seeds]


def select(models: Sequence[Model], **where: Any) -> list[Model]:
    """The models matching every ``key=value`` (to float tolerance), sorted by width.

    Parameters
    ----------
    models : sequence of dict
        Models of :func:`sweep_models`.
    **where
        The values to match.

    Returns
    -------
    list of dict
        The matching models.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import by_unit, select, sweep_models
    >>> def record(seed, alpha):  # a sweep record with a ladder L = m^-1 (seed 1: 10% above)
    ...     models = [
    ...         {"m": m, "gamma": -1.0, "loss": (1 + 0.1 * seed) / m, "phi_half": 1.0,
    ...          "phi_one": 0.5, "norms": [1.2, 0.8, 0.1], "overlap_strong": {"mean": 1 / m}}
    ...         for m in (2, 4, 8, 16)
    ...     ]
    ...     return {"params": {"alpha": alpha}, "result": {"models": models}, "seed_index": seed}
    >>> records = [record(seed, alpha) for seed in (0, 1) for alpha in (1.0, 2.0)]
    >>> units = by_unit(sweep_models(records))
    >>> [model["m"] for model in select(units[0], alpha=2.0, gamma=-1.0)]
    [2, 4, 8, 16]
    """
    chosen = [m for m in models if all(np.isclose(m[k], v) for k, v in where.items())]
    return sorted(chosen, key=lambda m: m["m"])


def per_model(units: Sequence[Sequence[Model]], key: str) -> Array:
    """``model[key]`` per unit and model: an array (units, models).

    Parameters
    ----------
    units : sequence of sequence of dict
        Each unit's models (:func:`by_unit`), the same number per unit.
    key : str
        The models' entry.

    Returns
    -------
    numpy.ndarray
        (units, models).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import by_unit, per_model, sweep_models
    >>> def record(seed, alpha):  # a sweep record with a ladder L = m^-1 (seed 1: 10% above)
    ...     models = [
    ...         {"m": m, "gamma": -1.0, "loss": (1 + 0.1 * seed) / m, "phi_half": 1.0,
    ...          "phi_one": 0.5, "norms": [1.2, 0.8, 0.1], "overlap_strong": {"mean": 1 / m}}
    ...         for m in (2, 4, 8, 16)
    ...     ]
    ...     return {"params": {"alpha": alpha}, "result": {"models": models}, "seed_index": seed}
    >>> records = [record(seed, alpha) for seed in (0, 1) for alpha in (1.0, 2.0)]
    >>> units = by_unit(sweep_models(records))
    >>> per_model(units, "phi_half").shape
    (2, 8)
    """
    return np.array([[m[key] for m in u] for u in units])


def ladder_fit(models: Sequence[Model], window: tuple[float, float]) -> PowerLawFit:
    """OLS of log L on log m over ``window`` (no bootstrap: the spread is that over units).

    Parameters
    ----------
    models : sequence of dict
        One ladder's models.
    window : (float, float)
        The widths fitted.

    Returns
    -------
    theory.fits.PowerLawFit
        The fit, L ∝ m^exponent.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import by_unit, ladder_fit, select, sweep_models
    >>> def record(seed, alpha):  # a sweep record with a ladder L = m^-1 (seed 1: 10% above)
    ...     models = [
    ...         {"m": m, "gamma": -1.0, "loss": (1 + 0.1 * seed) / m, "phi_half": 1.0,
    ...          "phi_one": 0.5, "norms": [1.2, 0.8, 0.1], "overlap_strong": {"mean": 1 / m}}
    ...         for m in (2, 4, 8, 16)
    ...     ]
    ...     return {"params": {"alpha": alpha}, "result": {"models": models}, "seed_index": seed}
    >>> records = [record(seed, alpha) for seed in (0, 1) for alpha in (1.0, 2.0)]
    >>> units = by_unit(sweep_models(records))
    >>> fit = ladder_fit(select(units[0], alpha=1.0), window=(2, 16))
    >>> round(fit.exponent, 6)
    -1.0
    """
    widths = np.array([m["m"] for m in models], dtype=float)
    losses = np.array([m["loss"] for m in models])
    return fit_power_law(widths, losses, window=window, n_boot=0)


def ladder_exponent(models: Sequence[Model], window: tuple[float, float]) -> float:
    """α_m of one ladder, L ∝ m^−α_m: minus the OLS slope of log L on log m over ``window``.

    Parameters
    ----------
    models : sequence of dict
        One ladder's models.
    window : (float, float)
        The widths fitted.

    Returns
    -------
    float
        α_m.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import by_unit, ladder_exponent, select, sweep_models
    >>> def record(seed, alpha):  # a sweep record with a ladder L = m^-1 (seed 1: 10% above)
    ...     models = [
    ...         {"m": m, "gamma": -1.0, "loss": (1 + 0.1 * seed) / m, "phi_half": 1.0,
    ...          "phi_one": 0.5, "norms": [1.2, 0.8, 0.1], "overlap_strong": {"mean": 1 / m}}
    ...         for m in (2, 4, 8, 16)
    ...     ]
    ...     return {"params": {"alpha": alpha}, "result": {"models": models}, "seed_index": seed}
    >>> records = [record(seed, alpha) for seed in (0, 1) for alpha in (1.0, 2.0)]
    >>> units = by_unit(sweep_models(records))
    >>> round(ladder_exponent(select(units[1], alpha=2.0), window=(2, 16)), 6)
    1.0
    """
    return -ladder_fit(models, window).exponent


def exponents_over(
    units: Sequence[Sequence[Model]], key: str, values: Sequence[float], window: tuple[float, float]
) -> Array:
    """α_m (:func:`ladder_exponent`) of each unit's ladder at each value of ``key`` (``alpha`` or
    ``density``): an array (units, values).

    Parameters
    ----------
    units : sequence of sequence of dict
        Each unit's models (:func:`by_unit`).
    key : str
        ``alpha`` or ``density``.
    values : sequence of float
        The values of ``key``.
    window : (float, float)
        The widths fitted.

    Returns
    -------
    numpy.ndarray of float
        (units, values).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import by_unit, exponents_over, sweep_models
    >>> def record(seed, alpha):  # a sweep record with a ladder L = m^-1 (seed 1: 10% above)
    ...     models = [
    ...         {"m": m, "gamma": -1.0, "loss": (1 + 0.1 * seed) / m, "phi_half": 1.0,
    ...          "phi_one": 0.5, "norms": [1.2, 0.8, 0.1], "overlap_strong": {"mean": 1 / m}}
    ...         for m in (2, 4, 8, 16)
    ...     ]
    ...     return {"params": {"alpha": alpha}, "result": {"models": models}, "seed_index": seed}
    >>> records = [record(seed, alpha) for seed in (0, 1) for alpha in (1.0, 2.0)]
    >>> units = by_unit(sweep_models(records))
    >>> exponents_over(units, "alpha", [1.0, 2.0], window=(2, 16)).round(6).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return np.array(
        [[ladder_exponent(select(u, **{key: v}), window) for v in values] for u in units]
    )


def relative_gap(models: Sequence[Model], reference: ArrayLike) -> Array:
    """L / reference − 1 per model (inf where the reference is 0 and L is not, 0 where both are).

    Parameters
    ----------
    models : sequence of dict
        Models with ``loss``.
    reference : array_like of float
        The reference loss per model.

    Returns
    -------
    numpy.ndarray of float
        The relative gaps.

    Examples
    --------
    >>> from sims.superposition_units import relative_gap
    >>> models = [{"loss": 1.1}, {"loss": 0.0}, {"loss": 0.5}]
    >>> relative_gap(models, [1.0, 0.0, 0.0]).round(6).tolist()
    [0.1, 0.0, inf]
    """
    losses = np.array([m["loss"] for m in models])
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = losses / reference - 1
    return np.where(np.isnan(gap), 0.0, gap)


def unlearned_gap(
    models: Sequence[Model], p: ArrayLike, unlearned_loss: Callable = theory.weak_loss
) -> tuple[Array, Array]:
    """Per model, the weak-superposition loss of the features it does not represent,
    L_unl = Σ_{‖W_i‖ ≤ 1/2} (4/3 p_i − p_i²) (§3; ``unlearned_loss(p, kept)``, kept =
    ‖W_i‖ > 1/2), and L/L_unl − 1, set to 10^6 where L_unl = 0 < L (a huge gap).

    Parameters
    ----------
    models : sequence of dict
        Models with ``loss`` and ``norms``.
    p : array_like of float
        The feature frequencies.
    unlearned_loss : callable
        (p, kept) -> L_unl (default :func:`theory.superposition.weak_loss`).

    Returns
    -------
    unlearned : numpy.ndarray of float
        L_unl per model.
    gap : numpy.ndarray of float
        L/L_unl − 1 per model.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import unlearned_gap
    >>> p = np.array([0.5, 0.25, 0.1])
    >>> models = [{"loss": 0.13, "norms": [1.0, 1.0, 0.1]}]  # feature 2 not represented
    >>> unlearned, gap = unlearned_gap(models, p)
    >>> unlearned.round(4).tolist(), gap.round(4).tolist()  # 4/3·0.1 − 0.01 = 0.1233
    ([0.1233], [0.0541])
    """
    unl = np.array([unlearned_loss(p, np.asarray(m["norms"]) > 0.5) for m in models])
    gap = relative_gap(models, unl)
    return unl, np.where(np.isfinite(gap), gap, 1e6)


# ----------------------------------------------------------------------- per-unit statistics
def strong_unit(
    models: Sequence[Model],
    predicted_exponent: float,
    overlap_theory: Callable[[int], float],
    window: tuple[float, float],
    overlap_min_m: int,
) -> dict[str, Any]:
    """One strong-superposition ladder's statistics (Figs. 1, 5, 17).

    ``alpha_m`` (OLS over ``window``) and ``alpha_m_error`` = α_m − ``predicted_exponent``;
    ``overlap_error``, the worst relative deviation of the mean (Ŵ_i·Ŵ_j)² of the rows with
    ‖W_i‖ > 1 from ``overlap_theory(m)`` over m ≥ ``overlap_min_m`` (a width with fewer than two
    such rows counts as a 100% error); ``phi_half_min``, the smallest φ_1/2;
    ``local_slope_min``, the smallest −Δlog L/Δlog m between adjacent widths.

    Parameters
    ----------
    models : sequence of dict
        One ladder's models, sorted by width.
    predicted_exponent : float
        The predicted α_m.
    overlap_theory : callable
        m -> the predicted mean squared overlap.
    window : (float, float)
        The widths fitted.
    overlap_min_m : int
        Smallest width whose overlap is checked.

    Returns
    -------
    dict
        The statistics above, and the ``widths``, ``losses``, ``overlap``,
        ``predicted_overlap`` and the ``checked``-width mask, for the record and the figure.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import by_unit, select, strong_unit, sweep_models
    >>> def record(seed, alpha):  # a sweep record with a ladder L = m^-1 (seed 1: 10% above)
    ...     models = [
    ...         {"m": m, "gamma": -1.0, "loss": (1 + 0.1 * seed) / m, "phi_half": 1.0,
    ...          "phi_one": 0.5, "norms": [1.2, 0.8, 0.1], "overlap_strong": {"mean": 1 / m}}
    ...         for m in (2, 4, 8, 16)
    ...     ]
    ...     return {"params": {"alpha": alpha}, "result": {"models": models}, "seed_index": seed}
    >>> records = [record(seed, alpha) for seed in (0, 1) for alpha in (1.0, 2.0)]
    >>> units = by_unit(sweep_models(records))
    >>> ladder = select(units[0], alpha=1.0)
    >>> out = strong_unit(ladder, 1.0, lambda m: 1 / m, window=(2, 16), overlap_min_m=4)
    >>> round(out["alpha_m_error"], 6), out["overlap_error"], round(out["local_slope_min"], 6)
    (0.0, 0.0, 1.0)
    """
    widths = np.array([m["m"] for m in models], dtype=float)
    losses = np.array([m["loss"] for m in models])
    overlap = np.array(
        [
            np.nan if m["overlap_strong"]["mean"] is None else m["overlap_strong"]["mean"]
            for m in models
        ]
    )
    predicted = np.array([float(overlap_theory(int(w))) for w in widths])
    error = np.nan_to_num(np.abs(overlap / predicted - 1), nan=1.0)
    checked = widths >= overlap_min_m
    alpha_m = ladder_exponent(models, window)
    return {
        "alpha_m": alpha_m,
        "alpha_m_error": alpha_m - predicted_exponent,
        "overlap_error": float(np.max(error[checked])),
        "phi_half_min": float(min(m["phi_half"] for m in models)),
        "local_slope_min": float(np.min(-np.diff(np.log(losses)) / np.diff(np.log(widths)))),
        "widths": widths,
        "losses": losses,
        "overlap": overlap,
        "predicted_overlap": predicted,
        "checked": checked,
    }


def weak_unit(
    models: Sequence[Model],
    alphas: Sequence[float],
    n: int,
    unlearned_loss: Callable,
    weak_gamma: float,
    strong_gamma: float,
    strong_alpha: float = 1.5,
) -> dict[str, Any]:
    """One unit of the weak-superposition sweep (§3, Fig. 4).

    Per α, the γ = ``weak_gamma`` ladder's L/L_unl − 1 (:func:`unlearned_gap`, p_i ∝ i^−α over
    n features), ``gap_max`` and ``gap_min`` over every (m, α), and ``weak_over_strong_min``, the
    smallest L(weak) / L(strong) at α = ``strong_alpha`` over the widths where the unit trained a
    γ = ``strong_gamma`` model.

    Parameters
    ----------
    models : sequence of dict
        The unit's models.
    alphas : sequence of float
        The frequency exponents α (``strong_alpha`` among them).
    n : int
        Features.
    unlearned_loss : callable
        (p, kept) -> L_unl.
    weak_gamma, strong_gamma : float
        γ of the weak ladders and of the strong models.
    strong_alpha : float
        The α of the weak-against-strong comparison.

    Returns
    -------
    dict
        ``gap_max``, ``gap_min``, ``weak_over_strong_min``; and ``gaps`` and ``curves``
        (α → (models, L_unl)), ``strong15`` (the strong models) and ``over`` (the ratios), for
        the record and the figure.

    Examples
    --------
    >>> from sims.superposition_units import weak_unit
    >>> from theory.superposition import weak_loss
    >>> def model(m, gamma, loss):
    ...     return {"m": m, "gamma": gamma, "loss": loss, "alpha": 1.5, "norms": [1.0] * m + [0.0]}
    >>> models = [model(2, 0.1, 0.2), model(2, -1.0, 0.1)]  # n = 3: feature 2 unlearned
    >>> out = weak_unit(models, [1.5], 3, weak_loss, weak_gamma=0.1, strong_gamma=-1.0)
    >>> out["weak_over_strong_min"], round(out["gap_max"], 4)
    (2.0, 0.3291)
    """
    gaps, curves = {}, {}
    for alpha in alphas:
        weak = select(models, alpha=alpha, gamma=weak_gamma)
        unl, gaps[alpha] = unlearned_gap(weak, theory.feature_frequencies(n, alpha), unlearned_loss)
        curves[alpha] = (weak, unl)
    weak_loss = {m["m"]: m["loss"] for m in curves[strong_alpha][0]}
    strong = select(models, alpha=strong_alpha, gamma=strong_gamma)
    over = np.array([weak_loss[m["m"]] / m["loss"] for m in strong])
    every = np.concatenate(list(gaps.values()))
    return {
        "gap_max": float(every.max()),
        "gap_min": float(every.min()),
        "weak_over_strong_min": float(over.min()),
        "gaps": gaps,
        "curves": curves,
        "strong15": strong,
        "over": over,
    }


class KnobUnits(NamedTuple):
    """The φ_1/2-against-γ sweep (Figs. 3, 13) per unit, γ ascending (:func:`knob_units`)."""

    #: The weight decays γ, ascending.
    gammas: Array
    #: (γ, 2): the theory band's lower and upper φ_1/2 at each γ.
    bands: Array
    #: (units, γ): φ_1/2, the fraction of rows with ‖W_i‖ > 1/2.
    phi: Array
    #: Per unit and γ, φ_1 (rows with ‖W_i‖ > 1).
    phi_one: list[list[float]]
    #: Per unit and γ, the loss.
    loss: list[list[float]]
    #: The rule's statistics per unit: ``band_miss`` (largest distance of φ_1/2 outside the band),
    #: ``rise_max`` (largest rise between consecutive γ) and ``fall`` (φ_1/2 at the first γ minus
    #: at the last).
    units: dict[str, list[float]]
    #: How many (unit, γ) points lie outside the band plus how many steps rise.
    violations: int


def knob_units(
    records: Sequence[Mapping[str, Any]],
    band: Callable[[float, int, int], tuple[float, float]],
    m: int,
    n: int,
) -> KnobUnits:
    """The statistics of the regime knob (Figs. 3, 13) on a sweep of width-``m`` models over γ:
    φ_1/2 per unit and γ against ``band(γ, m, n)``.

    Parameters
    ----------
    records : sequence of mapping
        The sweep's records, the same γ in every unit.
    band : callable
        (γ, m, n) -> (low, high), the band φ_1/2 must lie in.
    m : int
        The models' width.
    n : int
        Features.

    Returns
    -------
    KnobUnits
        The γ's, bands, φ_1/2, φ_1 and losses per unit, the per-unit statistics ``band_miss``,
        ``rise_max`` (φ_1/2 must fall with γ) and ``fall`` (``units``), and the count of violations.

    Examples
    --------
    >>> from sims.superposition_units import knob_units
    >>> def model(gamma, phi):
    ...     return {"m": 4, "gamma": gamma, "loss": 1.0, "phi_half": phi, "phi_one": phi / 2}
    >>> records = [{"params": {}, "seed_index": 0,
    ...             "result": {"models": [model(-1.0, 1.0), model(0.0, 0.5), model(1.0, 0.1)]}}]
    >>> out = knob_units(records, lambda gamma, m, n: (0.0, 1.0), m=4, n=16)
    >>> out.units, out.violations
    ({'band_miss': [0.0], 'rise_max': [-0.4], 'fall': [0.9]}, 0)
    """
    units = [sorted(u, key=lambda x: x["gamma"]) for u in by_unit(sweep_models(records))]
    gammas = np.array([x["gamma"] for x in units[0]])
    bands = np.array([band(g, m, n) for g in gammas])
    phi = per_model(units, "phi_half")  # (units, γ)
    miss = np.maximum(bands[:, 0] - phi, phi - bands[:, 1]).clip(min=0)
    stats = {
        "band_miss": miss.max(axis=1).tolist(),
        "rise_max": np.diff(phi, axis=1).max(axis=1).tolist(),
        "fall": (phi[:, 0] - phi[:, -1]).tolist(),
    }
    violations = int(np.sum(miss > 0) + np.sum(np.diff(phi, axis=1) > 0))
    return KnobUnits(
        gammas,
        bands,
        phi,
        [[x["phi_one"] for x in u] for u in units],
        [[x["loss"] for x in u] for u in units],
        stats,
        violations,
    )


def weak_ideal_exponent(
    p: ArrayLike,
    widths: ArrayLike,
    ideal_loss: Callable = theory.weak_ideal_loss,
    window: tuple[float, float] | None = None,
) -> tuple[Array, float]:
    """The finite-n weak ideal Σ_{i>m}(4/3 p_i − p_i²) at ``widths`` (``ideal_loss(p, widths)``)
    and its width exponent: minus the OLS slope of its log on log m over ``window`` (→ α − 1 as
    n → ∞; docs/superposition.md#weak-and-strong-superposition).

    Parameters
    ----------
    p : array_like of float
        The feature frequencies, decreasing.
    widths : array_like of int
        The widths m.
    ideal_loss : callable
        (p, widths) -> the ideal loss (default :func:`theory.superposition.weak_ideal_loss`).
    window : (float, float) or None
        The widths fitted (None: all).

    Returns
    -------
    ideal : numpy.ndarray of float
        The ideal loss per width.
    exponent : float
        Its width exponent.

    Raises
    ------
    ValueError
        Naming ``widths`` unless it is whole numbers ≥ 1 (integers or whole floats), at least
        two distinct; ``p`` and ``window`` are checked by ``ideal_loss`` and
        :func:`theory.fits.fit_power_law`.

    Examples
    --------
    >>> from sims.superposition_units import weak_ideal_exponent
    >>> from theory.superposition import feature_frequencies
    >>> p = feature_frequencies(100_000, 2.0)
    >>> ideal, exponent = weak_ideal_exponent(p, [10, 20, 40, 80])
    >>> round(exponent, 2)  # α − 1 = 1
    1.0
    """
    _domain.counts("widths", widths, ndim=1)
    if min(widths) < 1 or len(np.unique(widths)) < 2:
        raise ValueError(f"widths must hold two distinct widths ≥ 1 (got {widths})")
    widths = np.asarray(widths)
    ideal = np.asarray(ideal_loss(p, widths.astype(int)))
    return ideal, -fit_power_law(widths, ideal, window=window, n_boot=0).exponent


class WeakLawUnits(NamedTuple):
    """The weak-law sweep per unit and (α, γ) ladder (:func:`weak_law_units`)."""

    #: Per unit and (α, γ): unit, alpha, gamma, alpha_m, ideal_alpha_m, max_rel_gap and kept
    #: (rows with ‖W_i‖ > 1/2 per width).
    runs: list[dict[str, Any]]
    #: The rule's statistics per unit: ``exponent_deviation_max`` and ``loss_gap_max``.
    units: dict[str, list[float]]
    #: Per unit and (α, γ), in ``runs`` order: the ladder's models and L/L_unl − 1 (the figure's).
    ladders: list[tuple[list[Model], Array]]


def weak_law_units(
    units: Sequence[Sequence[Model]],
    gammas: Sequence[float],
    frequencies: Mapping[float, ArrayLike],
    ideal_exponents: Mapping[float, float],
    window: tuple[float, float],
) -> WeakLawUnits:
    """Per unit, the worst over (α, γ) of the deviation of α_m from the ideal exponent (α_m by OLS
    over ``window``) and of abs(L/L_unl − 1) over the widths (Fig. 4); α runs over
    ``frequencies`` (α → p) in its order, ``ideal_exponents[α]`` from
    :func:`weak_ideal_exponent`.

    Parameters
    ----------
    units : sequence of sequence of dict
        Each unit's models (:func:`by_unit`).
    gammas : sequence of float
        The weight decays of the ladders.
    frequencies : mapping of float to array_like
        α -> the feature frequencies p.
    ideal_exponents : mapping of float to float
        α -> the ideal α_m.
    window : (float, float)
        The widths fitted.

    Returns
    -------
    WeakLawUnits
        Per ladder its readings, per unit ``exponent_deviation_max`` and ``loss_gap_max``, and
        the ladders with their gaps.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import by_unit, sweep_models, weak_law_units
    >>> def record(seed, alpha):  # a sweep record with a ladder L = m^-1 (seed 1: 10% above)
    ...     models = [
    ...         {"m": m, "gamma": -1.0, "loss": (1 + 0.1 * seed) / m, "phi_half": 1.0,
    ...          "phi_one": 0.5, "norms": [1.2, 0.8, 0.1], "overlap_strong": {"mean": 1 / m}}
    ...         for m in (2, 4, 8, 16)
    ...     ]
    ...     return {"params": {"alpha": alpha}, "result": {"models": models}, "seed_index": seed}
    >>> records = [record(seed, alpha) for seed in (0, 1) for alpha in (1.0, 2.0)]
    >>> units = by_unit(sweep_models(records))
    >>> p = np.array([0.5, 0.3, 0.2])
    >>> out = weak_law_units(units, [-1.0], {1.0: p, 2.0: p}, {1.0: 1.0, 2.0: 1.0}, window=(2, 16))
    >>> np.round(out.units["exponent_deviation_max"], 6).tolist()
    [0.0, 0.0]
    """
    runs, ladders = [], []
    stats: dict[str, list[float]] = {"exponent_deviation_max": [], "loss_gap_max": []}
    for u, models in enumerate(units):
        worst_exp, worst_gap = 0.0, 0.0
        for alpha, p in frequencies.items():
            ideal_exponent = ideal_exponents[alpha]
            for gamma in gammas:
                chosen = select(models, alpha=alpha, gamma=gamma)
                alpha_m = ladder_exponent(chosen, window)
                _, gap = unlearned_gap(chosen, p)
                worst_exp = max(worst_exp, abs(alpha_m - ideal_exponent))
                worst_gap = max(worst_gap, float(np.max(np.abs(gap))))
                runs.append(
                    {
                        "unit": u,
                        "alpha": alpha,
                        "gamma": gamma,
                        "alpha_m": alpha_m,
                        "ideal_alpha_m": ideal_exponent,
                        "max_rel_gap": float(np.max(np.abs(gap))),
                        "kept": [int(np.sum(np.asarray(m["norms"]) > 0.5)) for m in chosen],
                    }
                )
                ladders.append((chosen, gap))
        stats["exponent_deviation_max"].append(worst_exp)
        stats["loss_gap_max"].append(worst_gap)
    return WeakLawUnits(runs, stats, ladders)


class DensityUnits(NamedTuple):
    """The density sweep per unit (:func:`density_units`)."""

    #: (units, m): the log-log slope of L against E at each width.
    slopes: Array
    #: (units, E): α_m of each density's ladder.
    exponents: Array
    #: Per unit, the losses (E, m).
    losses: list[Array]


def density_units(
    units: Sequence[Sequence[Model]], densities: Sequence[float], window: tuple[float, float]
) -> DensityUnits:
    """Per unit of the density sweep (Figs. 14, 15): at every width the OLS slope of log L on
    log E over ``densities``, and at every E the ladder's α_m over ``window``.

    Parameters
    ----------
    units : sequence of sequence of dict
        Each unit's models (:func:`by_unit`), the same widths at every density.
    densities : sequence of float
        The densities E (≥ 3 for the slope).
    window : (float, float)
        The widths fitted.

    Returns
    -------
    DensityUnits
        The slopes (units, widths), the exponents (units, densities) and the losses.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import density_units
    >>> unit = [  # L = E / m
    ...     {"m": m, "gamma": -1.0, "loss": e / m, "density": e, "seed": 0}
    ...     for e in (1.0, 2.0, 4.0)
    ...     for m in (2, 4, 8)
    ... ]
    >>> out = density_units([unit], [1.0, 2.0, 4.0], window=(2, 8))
    >>> out.slopes.round(6).tolist(), out.exponents.round(6).tolist()
    ([[1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0]])
    """
    slopes, exponents, all_losses = [], [], []
    for models in units:
        by_e = {e: select(models, density=e) for e in densities}
        losses = np.array([[m["loss"] for m in by_e[e]] for e in densities])  # (E, m)
        slopes.append(
            [
                fit_power_law(np.array(densities), losses[:, j], n_boot=0).exponent
                for j in range(losses.shape[1])
            ]
        )
        exponents.append([ladder_exponent(by_e[e], window) for e in densities])
        all_losses.append(losses)
    return DensityUnits(np.array(slopes), np.array(exponents), all_losses)


# ------------------------------------------------------------------------- geometry identities
class OverlapSample(NamedTuple):
    """Squared overlaps (w·w′)² of random unit-vector pairs per width (:func:`random_overlaps`)."""

    #: Per width, the sample mean.
    means: list[float]
    #: Per width, the standard error of the mean, s/√pairs.
    ses: list[float]
    #: Per width, the sample variance (ddof = 1).
    variances: list[float]
    #: Per width, (mean − theory mean) / s.e.
    z: Array
    #: Per width, sample variance / theory variance − 1.
    var_err: Array


def random_overlaps(
    rng: np.random.Generator,
    widths: Sequence[int],
    pairs: int,
    mean: Callable[[int], float] = theory.random_overlap_mean,
    variance: Callable[[int], float] = theory.random_overlap_variance,
) -> OverlapSample:
    """Monte Carlo of the squared overlap of two independent uniform unit vectors in R^m (App. A:
    (w·w′)² ~ Beta(1/2, (m−1)/2), mean 1/m, variance 2(m−1)/(m²(m+2))): ``pairs`` Gaussian
    pairs per width, normalised, against ``mean(m)`` and ``variance(m)``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the pairs.
    widths : sequence of int
        The dimensions m.
    pairs : int
        Pairs per width.
    mean, variance : callable
        m -> the predicted mean and variance.

    Returns
    -------
    OverlapSample
        Per width the sample mean, its s.e., the sample variance, the z-score of the mean and
        the relative error of the variance.

    Raises
    ------
    ValueError
        Naming ``widths`` unless it is a non-empty sequence of integers ≥ 2 (at m = 1 the
        overlap is 1: no variance), or ``pairs`` unless it is an integer ≥ 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import random_overlaps
    >>> sample = random_overlaps(np.random.default_rng(0), [4, 16], pairs=20_000)
    >>> bool(np.all(np.abs(sample.z) < 4)), np.round(sample.means, 2).tolist()  # 1/m
    (True, [0.25, 0.06])
    """
    _domain.integers("widths", widths, minimum=2)
    _domain.integer("pairs", pairs, minimum=2)
    means, ses, variances, z, var_err = [], [], [], [], []
    for m in widths:
        u = rng.normal(size=(pairs, m))
        v = rng.normal(size=(pairs, m))
        sq = (np.sum(u * v, axis=1) ** 2) / (np.sum(u * u, axis=1) * np.sum(v * v, axis=1))
        means.append(sq.mean())
        ses.append(sq.std(ddof=1) / np.sqrt(pairs))
        variances.append(sq.var(ddof=1))
        z.append((means[-1] - mean(m)) / ses[-1])
        var_err.append(variances[-1] / variance(m) - 1)
    return OverlapSample(means, ses, variances, np.array(z), np.array(var_err))


def simplex_etf_gaps(widths: ArrayLike) -> tuple[list[float], list[float]]:
    """For the simplex ETF of m + 1 unit vectors in R^m at each m of ``widths`` (exact, no
    sampling): the distance of the largest off-diagonal overlap abs(w_i·w_j) from the Welch bound
    1/m, and the spread (max − min) of the off-diagonal overlaps (both 0 for an equiangular tight
    frame).

    Parameters
    ----------
    widths : array_like of int
        The dimensions m.

    Returns
    -------
    gaps, spreads : list of float
        Per width.

    Raises
    ------
    ValueError
        Unless ``widths`` is a non-empty 1-D sequence of integers ≥ 1.

    Examples
    --------
    >>> from sims.superposition_units import simplex_etf_gaps
    >>> gaps, spreads = simplex_etf_gaps([3, 8])
    >>> bool(max(gaps) < 1e-12), bool(max(spreads) < 1e-12)
    (True, True)
    """
    _domain.integers("widths", widths, minimum=1)
    gaps, spreads = [], []
    for m in np.asarray(widths):
        frame = theory.simplex_etf(int(m))
        off = np.abs(frame @ frame.T)[~np.eye(m + 1, dtype=bool)]
        gaps.append(abs(off.max() - theory.welch_bound(m + 1, m)))
        spreads.append(np.ptp(off))
    return gaps, spreads


def gradient_error(gradient: Callable, rng: np.random.Generator) -> float:
    """Max relative error of ``gradient``'s (W, b) (the signature of
    :func:`sims.superposition.loss_and_grad`) against central differences (ε = 1e-6) of the exact
    dense float64 batch loss Σ_j (ReLU(x WᵀW + b) − x)² / B, on K = 2 models, n = 24, m = 5,
    B = 48, E = 2.

    Parameters
    ----------
    gradient : callable
        (W, b, batch) -> (loss, grad_W, grad_b).
    rng : numpy.random.Generator
        Source of the weights and the batch.

    Returns
    -------
    float
        The largest relative error over W and b.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition import loss_and_grad
    >>> from sims.superposition_units import gradient_error
    >>> gradient_error(loss_and_grad, np.random.default_rng(0)) < 1e-6
    True
    """
    n_models, n, m, n_batch, eps = 2, 24, 5, 48, 1e-6
    W = rng.normal(size=(n_models, n, m)) / np.sqrt(m)
    b = rng.normal(size=(n_models, n)) * 0.5
    batch = sample_batch(theory.feature_frequencies(n, 1.0, density=2.0), n_batch, rng)
    x = batch.dense()

    def loss(W_: np.ndarray, b_: np.ndarray) -> np.ndarray:
        y = np.maximum(np.einsum("bi,kim,kjm->kbj", x, W_, W_) + b_[:, None, :], 0.0)
        return np.sum((y - x) ** 2, axis=(1, 2)) / n_batch  # (K,)

    _, grad_W, grad_b = gradient(W, b, batch)
    errors = []
    for param, grad in ((W, np.asarray(grad_W)), (b, np.asarray(grad_b))):
        numeric = np.zeros_like(param)
        for idx in np.ndindex(param.shape):
            step = np.zeros_like(param)
            step[idx] = eps
            args_plus = (W + step, b) if param is W else (W, b + step)
            args_minus = (W - step, b) if param is W else (W, b - step)
            numeric[idx] = (loss(*args_plus)[idx[0]] - loss(*args_minus)[idx[0]]) / (2 * eps)
        errors.append(np.max(np.abs(numeric - grad)) / np.max(np.abs(numeric)))
    return float(max(errors))


class Eq8Estimate(NamedTuple):
    """Eq. (8)'s loss and its Monte Carlo estimate (:func:`eq8_monte_carlo`)."""

    #: Eq. (8)'s closed form, :func:`theory.superposition.one_active_loss`.
    exact: float
    #: The mean of 20 chunks' batch losses.
    mc: float
    #: (mc − exact) / its standard error over the 20 chunks.
    z: float


def eq8_monte_carlo(rng: np.random.Generator, samples: int) -> Eq8Estimate:
    """Eq. (8) against the trainer's batch loss on ``samples`` rows with exactly one active
    feature (i ~ p/Σp with p_i ∝ i^−1.2, v ~ U(0, 2)), n = 16, m = 4, a random (W, b); the Monte
    Carlo mean and its s.e. over 20 equal chunks.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of (W, b) and the samples.
    samples : int
        Rows, ≥ 20.

    Returns
    -------
    Eq8Estimate
        Eq. (8)'s exact value, the Monte Carlo mean and its z-score.

    Raises
    ------
    ValueError
        Unless ``samples`` is an integer ≥ 20.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition_units import eq8_monte_carlo
    >>> estimate = eq8_monte_carlo(np.random.default_rng(0), 20_000)
    >>> abs(estimate.z) < 4
    True
    """
    _domain.integer("samples", samples, minimum=20)
    n, m = 16, 4
    W = rng.normal(size=(1, n, m)) / np.sqrt(m)
    b = rng.normal(size=(1, n)) * 0.3
    p = theory.feature_frequencies(n, 1.2)
    exact = theory.one_active_loss(W[0], b[0], p)
    rows = np.arange(samples)
    cols = rng.choice(n, size=samples, p=p / p.sum())
    batch = SparseBatch(rows, cols, rng.uniform(0, 2, size=samples), (samples, n))
    per_sample = []
    for chunk in np.array_split(rows, 20):
        sub = SparseBatch(rows[chunk] - chunk[0], cols[chunk], batch.values[chunk], (chunk.size, n))
        per_sample.append(float(loss_and_grad(W, b, sub)[0][0]))
    mc, se = float(np.mean(per_sample)), float(np.std(per_sample, ddof=1) / np.sqrt(20))
    return Eq8Estimate(exact, mc, (mc - exact) / se)
