"""Sampling for the pass@k checks: binomial sample counts and random perturbations of a
success-probability distribution (docs/rlvr.md#passk-and-its-estimator and
docs/rlvr.md#sharpening-models-our-analysis).

The sweep tasks here return sufficient statistics (count histograms, sign-change counts), so that
the estimators and theories under test are applied afterwards, in the driver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theory import _domain

__all__ = [
    "count_histogram_task",
    "count_histograms",
    "crossing_search_draws",
    "crossing_search_task",
    "estimator_exact_bias",
    "estimator_mean_and_se",
    "estimator_z",
    "histogram_tasks",
    "plus_minus_plus",
    "summed_histograms",
]


def count_histograms(p: np.ndarray, n: int, reps: int, rng: Any = None) -> np.ndarray:
    """Histogram of the number of correct samples ``c ~ Binomial(n, p_i)`` over ``reps``
    independent evaluations of each problem.

    ``h[i, c]`` is the number of evaluations in which problem ``i`` had ``c`` correct samples out
    of ``n``. Any estimator that is a function of ``(n, c)`` has its Monte Carlo mean and variance
    determined by ``h``.

    Parameters
    ----------
    p : numpy.ndarray of float, (P,)
        Each problem's success probability, in [0, 1].
    n : int
        Samples per evaluation, ≥ 1.
    reps : int
        Evaluations per problem, ≥ 1.
    rng : numpy.random.Generator, int or None
        Source of the draws.

    Returns
    -------
    numpy.ndarray of int64, (P, n + 1)
        The histogram ``h``; each row sums to ``reps``.

    Raises
    ------
    ValueError
        Unless every ``p`` lies in [0, 1] and ``n`` and ``reps`` are integers ≥ 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import count_histograms
    >>> h = count_histograms(np.array([0.0, 1.0, 0.5]), n=4, reps=100, rng=0)
    >>> h.shape, h.sum(axis=1).tolist()
    ((3, 5), [100, 100, 100])
    >>> h[0].tolist(), h[1].tolist()  # p = 0 never succeeds, p = 1 always
    ([100, 0, 0, 0, 0], [0, 0, 0, 0, 100])
    """
    p = _domain.reals("p", p, minimum=0.0, maximum=1.0, nonempty=False)
    n = _domain.integer("n", n, minimum=1)
    reps = _domain.integer("reps", reps, minimum=1)
    _domain.seed("rng", rng)
    rng = np.random.default_rng(rng)
    counts = rng.binomial(n, p, size=(reps, p.size))  # (reps, P)
    hist = np.zeros((p.size, n + 1), dtype=np.int64)
    np.add.at(hist, (np.broadcast_to(np.arange(p.size), counts.shape), counts), 1)
    return hist


def count_histogram_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: the count histogram (:func:`count_histograms`) of one chunk of evaluations.

    Parameters
    ----------
    params : dict
        ``{"p": [...], "n": int, "reps": int}`` (as :func:`histogram_tasks` makes them; other keys
        are ignored).
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    dict
        ``{"hist": numpy.ndarray of int64, (P, n + 1)}``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import count_histogram_task
    >>> out = count_histogram_task({"p": [0.5, 1.0], "n": 2, "reps": 10}, np.random.default_rng(0))
    >>> out["hist"].sum(axis=1).tolist(), out["hist"][1].tolist()
    ([10, 10], [0, 0, 10])
    """
    return {"hist": count_histograms(np.asarray(params["p"]), params["n"], params["reps"], rng)}


def histogram_tasks(p: np.ndarray, n: int, reps: int, chunks: int) -> list[dict[str, Any]]:
    """The parameters of a sweep of :func:`count_histogram_task` that draws ``reps`` evaluations
    of n samples for each problem of ``p``, in ``chunks`` tasks of ``reps // chunks`` each.

    Parameters
    ----------
    p : numpy.ndarray of float, (P,)
        Each problem's success probability.
    n : int
        Samples per evaluation, ≥ 1.
    reps : int
        Evaluations per problem in all, ≥ 1.
    chunks : int
        Tasks, in [1, reps], a divisor of ``reps`` (every task draws the same number).

    Returns
    -------
    list of dict
        One ``{"p", "n", "reps", "chunk"}`` per task, ``chunk`` = 0, 1, ….

    Raises
    ------
    ValueError
        Unless ``n`` is a positive integer and ``chunks`` a divisor of ``reps``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import histogram_tasks
    >>> tasks = histogram_tasks(np.array([0.2, 0.9]), n=4, reps=100, chunks=2)
    >>> [(t["reps"], t["chunk"]) for t in tasks]
    [(50, 0), (50, 1)]
    """
    n = _domain.integer("n", n, minimum=1)
    reps = _domain.integer("reps", reps, minimum=1)
    chunks = _domain.integer("chunks", chunks, minimum=1, maximum=reps)
    if reps % chunks:
        raise ValueError(
            f"chunks must divide reps ({reps} evaluations do not split into {chunks} equal tasks)"
        )
    return [{"p": p, "n": n, "reps": reps // chunks, "chunk": j} for j in range(chunks)]


def summed_histograms(records: Sequence[dict[str, Any]]) -> np.ndarray:
    """The count histogram (P, n + 1) of a sweep of :func:`count_histogram_task`: the sum of its
    tasks' histograms (each a disjoint chunk of the evaluations).

    Parameters
    ----------
    records : sequence of dict
        The sweep's records, each with the task's output under ``"result"``.

    Returns
    -------
    numpy.ndarray of int64, (P, n + 1)
        The summed histogram.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import count_histogram_task, histogram_tasks, summed_histograms
    >>> tasks = histogram_tasks(np.array([0.2, 0.9]), n=4, reps=100, chunks=2)
    >>> records = [
    ...     {"result": count_histogram_task(t, np.random.default_rng(t["chunk"]))} for t in tasks
    ... ]
    >>> summed_histograms(records).sum(axis=1).tolist()
    [100, 100]
    """
    if not records:
        raise ValueError("records must hold at least one task's histogram (got none)")
    if any(
        np.shape(r["result"]["hist"]) != np.shape(records[0]["result"]["hist"]) for r in records
    ):
        raise ValueError(
            "records must hold histograms of one shape (P, n + 1): the tasks of one sweep share "
            "problems and n"
        )
    _domain.counts("records' histograms", [r["result"]["hist"] for r in records], ndim=3)
    return sum(np.asarray(r["result"]["hist"], dtype=np.int64) for r in records)


def estimator_mean_and_se(
    hist: np.ndarray, estimator: Callable[..., Any], n: int, ks: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo mean over problems of ``estimator(n, c, k)`` and its standard error, at every
    k of ``ks``, from the count histogram ``hist`` (P, n + 1) of R evaluations per problem.

    Per problem, mean_i = Σ_c h_ic·est(c) / R and var_i = Σ_c h_ic·est(c)² / R − mean_i²; the
    mean is the average of the mean_i, its s.e. √(Σ_i var_i · R/(R − 1)) / P / √R (problems are
    independent).

    Parameters
    ----------
    hist : numpy.ndarray of int, (P, n + 1)
        Count histogram (:func:`count_histograms`), the same number R ≥ 2 of evaluations per
        problem.
    estimator : callable
        ``(n, c, k) → estimate``, vectorized over arrays ``n`` and ``c`` (e.g.
        :func:`theory.passk.pass_at_k`).
    n : int
        Samples per evaluation.
    ks : sequence of int
        Budgets k.

    Returns
    -------
    mean, se : numpy.ndarray of float, (len(ks),)
        The mean estimate and its standard error at each k.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import count_histograms, estimator_mean_and_se
    >>> from theory.passk import pass_at_k
    >>> hist = count_histograms(np.array([0.2, 0.9]), n=4, reps=100, rng=0)
    >>> mean, se = estimator_mean_and_se(hist, pass_at_k, 4, [1, 2])
    >>> mean.round(3).tolist(), se.round(3).tolist()  # the truth: 0.55, 0.675
    ([0.554, 0.694], [0.013, 0.017])
    """
    _domain.integer("n", n, minimum=1)
    _domain.integers("ks", ks, minimum=1)
    _domain.counts("hist", hist, ndim=2)
    if np.shape(hist)[1] != n + 1:
        raise ValueError(f"hist must have n + 1 = {n + 1} columns (got shape {np.shape(hist)})")
    if (np.sum(hist, axis=1) != np.sum(hist[0])).any() or np.sum(hist[0]) < 2:
        raise ValueError(
            "hist must hold the same number R ≥ 2 of evaluations in every row (got row totals "
            f"{np.unique(np.sum(hist, axis=1))[:4]})"
        )
    n_problems = hist.shape[0]
    n_reps = int(hist[0].sum())
    c = np.arange(n + 1)
    means, ses = [], []
    for k in ks:
        values = np.asarray(estimator(np.full(n + 1, n), c, int(k)), dtype=float)  # (n+1,)
        mean_i = hist @ values / n_reps  # (P,)
        var_i = hist @ values**2 / n_reps - mean_i**2  # per-problem variance
        means.append(mean_i.mean())
        ses.append(np.sqrt(var_i.sum() * n_reps / (n_reps - 1)) / n_problems / np.sqrt(n_reps))
    return np.array(means), np.array(ses)


def estimator_z(
    hist: np.ndarray,
    estimator: Callable[..., Any],
    n: int,
    ks: Sequence[int],
    truth: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(Monte Carlo mean of the estimate, z = (mean − truth) / s.e.) at every k of ``ks``, from
    the count histogram ``hist`` (:func:`estimator_mean_and_se`).

    Parameters
    ----------
    hist : numpy.ndarray of int, (P, n + 1)
        Count histogram (:func:`count_histograms`).
    estimator : callable
        ``(n, c, k) → estimate``, vectorized over ``n`` and ``c``.
    n : int
        Samples per evaluation.
    ks : sequence of int
        Budgets k.
    truth : numpy.ndarray of float, (len(ks),)
        The mean pass@k of the problems, 1 − (1 − p)^k averaged over them.

    Returns
    -------
    mean, z : numpy.ndarray of float, (len(ks),)
        The mean estimate and its z-score against ``truth``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import count_histograms, estimator_z
    >>> from theory.passk import pass_at_k, pass_at_k_curve_exact
    >>> p = np.array([0.2, 0.9])
    >>> hist = count_histograms(p, n=4, reps=100, rng=0)
    >>> mean, z = estimator_z(hist, pass_at_k, 4, [1, 2], pass_at_k_curve_exact(p, [1, 2]))
    >>> z.round(2).tolist()  # unbiased: |z| of order 1
    [0.28, 1.13]
    """
    mean, se = estimator_mean_and_se(hist, estimator, n, ks)
    if np.shape(truth) != (len(ks),):
        raise ValueError(
            f"truth must have one value per k, shape ({len(ks)},) (got {np.shape(truth)})"
        )
    _domain.reals("truth", truth, ndim=1)
    if (se == 0).any():
        raise ValueError(
            "hist gives a standard error of 0 at some k (every evaluation scored the same): "
            "z is undefined there"
        )
    return mean, (mean - truth) / se


def estimator_exact_bias(
    estimator: Callable[..., Any], p: np.ndarray, n: int, ks: Sequence[int], truth: np.ndarray
) -> np.ndarray:
    """The exact bias of ``estimator`` at every k of ``ks``, without sampling: the mean over
    problems of Σ_c Binom(c; n, p_i)·estimator(n, c, k)
    (:func:`theory.passk.estimator_expectation`) minus ``truth``; 0 for an unbiased estimator
    (Chen et al. 2021, arXiv 2107.03374, eq. 1).

    Parameters
    ----------
    estimator : callable
        ``(n, c, k) → estimate``, vectorized over ``n`` and ``c``.
    p : numpy.ndarray of float, (P,)
        Each problem's success probability.
    n : int
        Samples per evaluation.
    ks : sequence of int
        Budgets k.
    truth : numpy.ndarray of float, (len(ks),)
        The mean pass@k of the problems.

    Returns
    -------
    numpy.ndarray of float, (len(ks),)
        Expected estimate minus ``truth`` at each k.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import estimator_exact_bias
    >>> from theory.passk import pass_at_k, pass_at_k_curve_exact, pass_at_k_plugin
    >>> p = np.array([0.2, 0.9])
    >>> truth = pass_at_k_curve_exact(p, [1, 2])
    >>> bool(np.abs(estimator_exact_bias(pass_at_k, p, 4, [1, 2], truth)).max() < 1e-12)
    True
    >>> estimator_exact_bias(pass_at_k_plugin, p, 4, [1, 2], truth).round(5).tolist()
    [0.0, -0.03125]
    """
    from theory.passk import estimator_expectation

    _domain.reals("p", p, ndim=1, minimum=0.0, maximum=1.0)
    _domain.integer("n", n, minimum=1)
    _domain.integers("ks", ks, minimum=1)
    if np.shape(truth) != (len(ks),):
        raise ValueError(
            f"truth must have one value per k, shape ({len(ks)},) (got {np.shape(truth)})"
        )
    _domain.reals("truth", truth, ndim=1)
    exact = np.array([np.mean(estimator_expectation(estimator, p, n, int(k))) for k in ks])
    return exact - truth


def plus_minus_plus(
    p: np.ndarray, w: np.ndarray, rng: np.random.Generator, signs=(1, -1, 1)
) -> np.ndarray:
    """A random perturbation ``d`` of the discrete distribution ``w`` on the sorted grid ``p``
    whose sign pattern along ``p`` is ``signs`` (default (+, −, +): RL moves mass to p ≈ 0 and
    p ≈ 1 and away from the middle, the pattern of docs/rlvr.md#sharpening-models-our-analysis).

    ``d`` has zero total mass and ``w + d >= 0``: the grid is cut into ``len(signs)`` random
    consecutive blocks, each block gets random non-negative weights with its sign, and the
    positive and negative parts are rescaled to equal mass, bounded by the mass available.

    Parameters
    ----------
    p : numpy.ndarray of float, (G,)
        The sorted grid of success probabilities, G > ``len(signs)`` − 1.
    w : numpy.ndarray of float, (G,)
        The base distribution's weights on the grid.
    rng : numpy.random.Generator
        Source of the draws.
    signs : sequence of {1, -1}
        The blocks' signs along the grid.

    Returns
    -------
    numpy.ndarray of float, (G,)
        The perturbation ``d`` (all zeros when a sign's blocks drew no mass).

    Raises
    ------
    ValueError
        Naming ``signs`` unless it is a non-empty tuple or list of 1 and −1, ``p`` unless it is
        a sorted 1-D array in [0, 1] of at least ``len(signs)`` points, or ``w`` unless it is
        finite reals ≥ 0 of ``p``'s shape.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import plus_minus_plus
    >>> w = np.full(6, 1 / 6)
    >>> d = plus_minus_plus(np.linspace(0.05, 0.95, 6), w, np.random.default_rng(0))
    >>> abs(float(d.sum())) < 1e-12, bool((w + d >= 0).all())
    (True, True)
    """
    if (
        not isinstance(signs, tuple | list)
        or len(signs) == 0
        or not all(isinstance(s, int | np.integer) and s in (1, -1) for s in signs)
    ):
        raise ValueError(f"signs must be a non-empty sequence of 1 and -1 (got {signs!r})")
    _domain.reals("p", p, ndim=1, minimum=0.0, maximum=1.0)
    if not isinstance(p, np.ndarray) or p.size < len(signs) or (np.diff(p) < 0).any():
        raise ValueError(f"p must be a sorted array of at least {len(signs)} points")
    _domain.reals("w", w, ndim=1, minimum=0.0)
    if np.shape(w) != np.shape(p):
        raise ValueError(f"w must have p's shape {np.shape(p)} (got {np.shape(w)})")
    g = p.size
    cuts = np.sort(rng.choice(np.arange(1, g), size=len(signs) - 1, replace=False))
    block = np.searchsorted(cuts, np.arange(g), side="right")  # block index of each grid point
    sign = np.asarray(signs)[block]
    raw = rng.exponential(size=g) * rng.random(size=g) ** 2
    pos = np.where(sign > 0, raw, 0.0)
    neg = np.where(sign < 0, np.minimum(raw, 1.0) * w, 0.0)  # never remove more than w holds
    mass = min(pos.sum(), neg.sum())
    if mass == 0:
        return np.zeros(g)
    return pos * (mass / pos.sum()) - neg * (mass / neg.sum())


def crossing_search_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: draw ``params["draws"]`` random base distributions and perturbations with sign
    pattern ``params["signs"]``, and count the sign changes of Δ(k) = pass@k(w+d) − pass@k(w)
    = −Σ_i d_i (1 − p_i)^k over k = 1..``params["k_max"]``.

    Each draw takes G = ``params["grid"]`` success probabilities with logits uniform on
    [−10, 6], Dirichlet(1/2) weights w and a perturbation from :func:`plus_minus_plus`. Entries
    with ``|Δ(k)| <= 1e-10 · Σ_i |d_i| (1 − p_i)^k`` are floating-point noise and carry no sign
    (:func:`theory.passk.sign_changes`).

    Parameters
    ----------
    params : dict
        ``{"grid": int, "draws": int, "k_max": int}`` and optionally ``"signs"`` (default
        (1, −1, 1)).
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    dict
        Per draw: ``n_changes`` (sign changes), ``delta_1`` (Δ(1)), ``delta_end`` (Δ(k_max)) and
        ``first_k`` (the first crossing k, 0 when none), each a list of ``draws``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import crossing_search_task
    >>> out = crossing_search_task({"grid": 8, "draws": 3, "k_max": 50}, np.random.default_rng(0))
    >>> out["n_changes"], out["first_k"]
    ([1, 0, 0], [44, 0, 0])
    """
    from theory.passk import sign_changes

    if not hasattr(params, "keys") or not {"grid", "draws", "k_max"} <= set(params):
        raise ValueError(f"params must hold grid, draws and k_max (got {params!r:.80})")
    _domain.integer("grid", params["grid"], minimum=1)
    _domain.integer("draws", params["draws"], minimum=1)
    _domain.integer("k_max", params["k_max"], minimum=1)
    g, draws, k_max = params["grid"], params["draws"], params["k_max"]
    signs = tuple(params.get("signs", (1, -1, 1)))
    ks = np.arange(1, k_max + 1)
    n_changes, delta_1, delta_end, first_k = [], [], [], []
    for _ in range(draws):
        logit = np.sort(rng.uniform(-10.0, 6.0, size=g))
        p = 1.0 / (1.0 + np.exp(-logit))  # (G,)
        w = rng.dirichlet(np.full(g, 0.5))
        d = plus_minus_plus(p, w, rng, signs)
        decay = np.exp(np.outer(ks, np.log1p(-p)))  # (K, G): (1 - p_i)^k
        delta = -(decay @ d)  # (K,)
        changes = sign_changes(delta, scale=decay @ np.abs(d), rtol=1e-10)
        n_changes.append(len(changes))
        delta_1.append(delta[0])
        delta_end.append(delta[-1])
        first_k.append(int(ks[changes[0]]) if len(changes) else 0)
    return {"n_changes": n_changes, "delta_1": delta_1, "delta_end": delta_end, "first_k": first_k}


def crossing_search_draws(records: Sequence[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The draws of a sweep of :func:`crossing_search_task`, its tasks concatenated in order.

    Parameters
    ----------
    records : sequence of dict
        The sweep's records, each with the task's output under ``"result"``.

    Returns
    -------
    dict of str to numpy.ndarray
        ``n_changes`` (int), ``delta_1``, ``delta_end`` and ``first_k`` per draw.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.passk_sampling import crossing_search_draws, crossing_search_task
    >>> params = {"grid": 8, "draws": 3, "k_max": 50}
    >>> records = [
    ...     {"result": crossing_search_task(params, np.random.default_rng(seed))} for seed in (0, 1)
    ... ]
    >>> draws = crossing_search_draws(records)
    >>> draws["n_changes"].shape, draws["n_changes"].dtype.kind
    ((6,), 'i')
    """
    if not records:
        raise ValueError("records must hold at least one task's draws (got none)")
    cat = {
        key: np.concatenate([r["result"][key] for r in records])
        for key in ("n_changes", "delta_1", "delta_end", "first_k")
    }
    cat["n_changes"] = cat["n_changes"].astype(int)
    return cat
