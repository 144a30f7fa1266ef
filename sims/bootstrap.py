"""Percentile bootstrap over paired units (seeds or problems).

One resampling scheme serves every claim and ``solve passk``: draw b picks P row indices
I_b = ``rng.integers(0, P, size=P)`` (the same stream whether the draws are made one at a time
or a block at a time), and every statistic of that draw is computed from the same rows, so two
arms measured on the same units stay paired.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from theory import _domain, passk

__all__ = [
    "PassAtKBootstrap",
    "bootstrap_means",
    "bootstrap_pass_at_k",
    "paired_mean_ci",
    "percentile_interval",
]

#: Entries of the (draws × units) count matrix held at once by ``bootstrap_means`` (32 MiB).
MAX_CELLS = 1 << 22


def _level(level: float) -> float:
    return _domain.real("level", level, minimum=0.0, maximum=1.0, open_low=True, open_high=True)


def _n_boot(n_boot: int) -> int:
    return _domain.integer("n_boot", n_boot, minimum=1)


def bootstrap_means(
    values: ArrayLike,
    rng: np.random.Generator | int | None = None,
    *,
    n_boot: int,
    max_cells: int = MAX_CELLS,
) -> NDArray[np.float64]:
    r"""Means of ``values`` over ``n_boot`` resamples of its rows (axis 0) with replacement.

    Draw b takes row indices I_b = ``rng.integers(0, P, size=P)`` and returns

    .. math:: \bar v_b = \frac1P \sum_{j=1}^{P} v_{I_{bj}} = \frac1P \sum_{i=1}^{P} w_{bi} v_i,
              \qquad w_{bi} = \#\{j : I_{bj} = i\},

    so a block of draws is one ``bincount`` (the multinomial counts w) and one matrix product
    (draws, P) @ (P, F): O(n_boot·P·F) flops, memory O(max_cells) for the counts. Every column
    of ``values`` is resampled with the same rows (paired).

    Parameters
    ----------
    values : array_like of float, shape (P, ...)
        One row per unit (problem or seed); trailing axes are statistics averaged separately.
    rng : numpy.random.Generator, int or None
        Source of the draws.
    n_boot : int
        Number of resamples, >= 1.
    max_cells : int
        Largest (draws in a block) × P held at once.

    Returns
    -------
    numpy.ndarray
        float64, shape (n_boot, ...): the mean of each resample.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.bootstrap import bootstrap_means
    >>> bootstrap_means(np.array([1.0, 2.0, 3.0, 4.0]), rng=0, n_boot=4)  # four resampled means
    array([3.  , 1.25, 3.  , 3.25])
    >>> bootstrap_means(np.arange(12.0).reshape(4, 3), rng=0, n_boot=5).shape  # 3 statistics
    (5, 3)
    """
    _domain.seed("rng", rng)
    rng = np.random.default_rng(rng)
    n_boot = _n_boot(n_boot)
    max_cells = _domain.integer("max_cells", max_cells, minimum=1)
    v = _domain.reals("values", values, nonempty=False)
    if v.ndim == 0 or v.shape[0] == 0:
        raise ValueError("values must hold at least one row (unit)")
    units = v.shape[0]
    flat = v.reshape(units, -1)  # (P, F)
    block = max(1, int(max_cells) // units)
    out = np.empty((n_boot, flat.shape[1]))
    for start in range(0, n_boot, block):
        m = min(block, n_boot - start)
        idx = rng.integers(0, units, size=(m, units))  # (m, P): m draws in stream order
        idx += np.arange(m)[:, None] * units
        weights = np.bincount(idx.ravel(), minlength=m * units).reshape(m, units)
        out[start : start + m] = weights @ flat / units  # (m, F)
    return out.reshape((n_boot, *v.shape[1:]))


def percentile_interval(
    draws: ArrayLike, level: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The (1 - level)/2 and (1 + level)/2 quantiles of ``draws`` along axis 0 (numpy's linear
    interpolation): the percentile bootstrap interval at ``level``.

    Parameters
    ----------
    draws : array_like of float, (draws, ...)
        Bootstrap draws along axis 0.
    level : float
        Interval level in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray of float
        The quantiles, the shape of a draw.

    Raises
    ------
    ValueError
        Unless ``draws`` holds finite reals, at least one draw, and 0 < level < 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.bootstrap import percentile_interval
    >>> low, high = percentile_interval(np.arange(101.0), 0.9)  # the 5% and 95% quantiles
    >>> round(float(low), 6), round(float(high), 6)
    (5.0, 95.0)
    """
    tail = (1.0 - _level(level)) / 2
    draws = _domain.reals("draws", draws, nonempty=False)
    if draws.ndim == 0 or draws.shape[0] == 0:
        raise ValueError(f"draws must hold at least one draw on axis 0 (got shape {draws.shape})")
    low, high = np.quantile(draws, [tail, 1.0 - tail], axis=0)
    return low, high


def paired_mean_ci(
    diff: ArrayLike, rng: np.random.Generator | int | None, *, n_boot: int, level: float
) -> tuple[float, float]:
    """Percentile CI at ``level`` of the mean of ``diff`` (one paired difference per seed or
    problem), resampling its entries with replacement ``n_boot`` times (``bootstrap_means``):
    pairing keeps both arms' values of an entry together.

    Parameters
    ----------
    diff : array_like of float, (units,)
        One paired difference per unit.
    rng : numpy.random.Generator, int or None
        Source of the resamples.
    n_boot : int
        Number of resamples.
    level : float
        Interval level in (0, 1).

    Returns
    -------
    low, high : float
        The interval.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.bootstrap import paired_mean_ci
    >>> low, high = paired_mean_ci(np.array([0.1, 0.2, 0.3, 0.4]), 0, n_boot=2000, level=0.9)
    >>> round(low, 3), round(high, 3)
    (0.15, 0.35)
    """
    diff = _domain.reals("diff", diff, nonempty=False)
    if diff.ndim != 1 or diff.size == 0:
        raise ValueError("diff must be a non-empty 1-D array of paired differences")
    low, high = percentile_interval(bootstrap_means(diff, rng, n_boot=n_boot), level)
    return float(low), float(high)


@dataclass(frozen=True)
class PassAtKBootstrap:
    """pass@k curves of M models on the same P problems, with paired bootstrap intervals, as
    :func:`bootstrap_pass_at_k` returns them.

    Conventions. Model 0 is the base; row m − 1 of every difference and crossing field compares
    model m ≥ 1 with it, as model m − base (positive: model m is better). Shapes: ``estimate``,
    ``low``, ``high`` are (M, K); ``difference``, ``difference_low``, ``difference_high`` are
    (M − 1, K); ``crossing`` has M − 1 entries and ``crossing_share``, ``k_star_low``,
    ``k_star_high`` are (M − 1,); column j of a (·, K) array is k = ``ks[j]``. Intervals are
    percentile intervals at ``level`` over ``n_boot`` resamples of the problems (the same
    problems for every model and k). k* is where the base overtakes model m (the difference
    turns from > 0 to < 0); its interval is taken over the draws that cross, and
    ``crossing_share`` says how many did (NaN bounds: none did).

    >>> from sims.bootstrap import bootstrap_pass_at_k
    >>> n = [[8, 8, 8, 8], [8, 8, 8, 8]]  # samples per problem: base, then the other model
    >>> c = [[1, 0, 4, 8], [6, 0, 8, 8]]  # correct samples per problem
    >>> boot = bootstrap_pass_at_k(n, c, ks=[1, 2, 4, 8], rng=0, n_boot=1000)
    >>> boot.estimate.shape, boot.difference.shape
    ((2, 4), (1, 4))
    >>> boot.estimate[1].round(3).tolist()  # pass@1, @2, @4, @8 of the second model
    [0.688, 0.741, 0.75, 0.75]
    >>> boot.crossing[0].k_star is None, boot.crossing_share.tolist()  # it never falls behind
    (True, [0.0])
    """

    #: The k values (K,), ascending.
    ks: NDArray[np.int64]
    #: pass@k of each model on all problems (M, K): the mean of the per-problem estimates.
    estimate: NDArray[np.float64]
    #: Lower end of the percentile interval of ``estimate`` at ``level`` (M, K).
    low: NDArray[np.float64]
    #: Upper end of that interval (M, K).
    high: NDArray[np.float64]
    #: Mean over problems of (model m − base), m ≥ 1 (M − 1, K).
    difference: NDArray[np.float64]
    #: Lower end of the interval of ``difference`` (M − 1, K).
    difference_low: NDArray[np.float64]
    #: Upper end of the interval of ``difference`` (M − 1, K).
    difference_high: NDArray[np.float64]
    #: The crossing of each model m ≥ 1 with the base on all problems (no resampling).
    crossing: tuple[passk.Crossing, ...]
    #: Share of the draws in which the base overtakes model m (M − 1,).
    crossing_share: NDArray[np.float64]
    #: Lower end of the interval of k* over the draws that cross (M − 1,; NaN: none crosses).
    k_star_low: NDArray[np.float64]
    #: Upper end of that interval of k* (M − 1,).
    k_star_high: NDArray[np.float64]
    #: Each draw's k* (n_boot, M − 1), NaN where the draw does not cross.
    k_star_draws: NDArray[np.float64]
    #: Bootstrap resamples drawn.
    n_boot: int
    #: Two-sided coverage of every interval (0.95: 2.5% and 97.5% percentiles).
    level: float


def bootstrap_pass_at_k(
    n: Sequence[ArrayLike],
    c: Sequence[ArrayLike],
    ks: ArrayLike,
    rng: np.random.Generator | int | None = None,
    *,
    n_boot: int = 10_000,
    level: float = 0.95,
    max_cells: int = MAX_CELLS,
) -> PassAtKBootstrap:
    r"""Paired percentile bootstrap over problems of the pass@k curves of M models.

    Each problem's unbiased estimate :math:`\hat\pi_{mi}(k) = 1 - \binom{n_{mi}-c_{mi}}{k} /
    \binom{n_{mi}}{k}` is computed once (``theory.passk.pass_at_k``); a resample of problems is
    then the mean of those values over the drawn problems (``bootstrap_means``), the same
    problems for every model and k. From each draw b: the curves :math:`\bar\pi^{(b)}_m(k)`,
    the differences :math:`\Delta^{(b)}_m(k)`, means of the per-problem differences
    :math:`\hat\pi_{mi} - \hat\pi_{0i}`, and the crossing :math:`k^{*(b)}` of model m with the
    base (``theory.passk.crossing_k_many``: the first k where Δ turns from > 0 to < 0,
    interpolated linearly in log k). A Δ within 1e-10 of the mean |per-problem difference| of
    its draw counts as a tie, not a sign (``sign_changes``' cancellation-aware scale), so
    rounding in draws where the models agree on every drawn problem makes no crossing.
    Intervals are the (1 ∓ level)/2 quantiles of the draws; k*'s only over the draws that
    cross, whose share is reported beside it.

    Parameters
    ----------
    n, c : sequence of M array_like of int, each (P,)
        Samples and correct samples per problem of each model, problems in the same order.
    ks : array_like of int
        Strictly increasing budgets, each <= every n.
    rng : numpy.random.Generator, int or None
        Source of the resamples.
    n_boot : int
        Number of resamples.
    level : float
        Interval level in (0, 1).
    max_cells : int
        Memory bound of ``bootstrap_means``.

    Returns
    -------
    PassAtKBootstrap

    Raises
    ------
    ValueError
        Naming ``n`` and ``c`` unless they hold as many models (≥ 1) of as many problems
        (≥ 1), ``n`` unless its counts are integers ≥ 1, ``c`` unless its counts are integers
        in [0, n], ``ks`` unless it is a strictly increasing non-empty sequence of integers in
        [1, the fewest samples n of any problem], and ``n_boot``, ``level`` or ``max_cells``
        outside their domains.

    References
    ----------
    docs/passk.md#what-is-resampled: the crossing k is nonlinear in the curves, so its uncertainty
    comes from a paired bootstrap over problems, as in the independent MATH500 re-evaluation of
    Yue et al. (2025, arXiv 2504.13837) by cc1107yss/limit-of-rlvr-qwen7b-math500-reproduction.

    Examples
    --------
    >>> from sims.bootstrap import bootstrap_pass_at_k
    >>> n = [[8, 8, 8, 8], [8, 8, 8, 8]]  # samples per problem: base, then the other model
    >>> boot = bootstrap_pass_at_k(n, [[1, 0, 4, 8], [6, 0, 8, 8]], ks=[1, 8], rng=0, n_boot=1000)
    >>> boot.estimate.round(4).tolist()  # pass@1 and pass@8 of each model
    [[0.4062, 0.75], [0.6875, 0.75]]
    """
    try:
        paired = not isinstance(n, str | bytes) and len(n) == len(c) > 0
    except TypeError:  # not sized
        paired = False
    if not paired:
        raise ValueError("n and c must hold the same number (>= 1) of models")
    try:
        counts = [(np.asarray(ni), np.asarray(ci)) for ni, ci in zip(n, c, strict=True)]
    except ValueError:  # ragged nesting
        raise ValueError("n and c must be 1-D with one entry per problem (got ragged)") from None
    sizes = {ni.shape for ni, _ in counts} | {ci.shape for _, ci in counts}
    if len(sizes) != 1 or len(next(iter(sizes))) != 1:
        raise ValueError(f"n and c must be 1-D with one entry per problem (got shapes {sizes})")
    if next(iter(sizes)) == (0,):
        raise ValueError("n and c must hold at least one problem (got none)")
    for ni, _ in counts:
        if not np.issubdtype(ni.dtype, np.integer):
            raise ValueError(f"n must be integers >= 1 (got dtype {ni.dtype})")
        if (ni < 1).any():
            raise ValueError(f"n must be integers >= 1 (got {int(ni.min())})")
    budgets = _domain.integers("ks", ks, minimum=1)
    if np.any(np.diff(budgets) <= 0):
        raise ValueError(f"ks must be strictly increasing (got {budgets})")
    n_min = min(int(ni.min()) for ni, _ in counts)
    if budgets[-1] > n_min:
        raise ValueError(
            f"ks must be <= the fewest samples n of any problem, {n_min} (got {budgets[-1]})"
        )
    _n_boot(n_boot)
    _domain.integer("max_cells", max_cells, minimum=1)
    k = np.asarray(ks)
    level = _level(level)
    models = len(counts)
    # (P, M, K): each problem's estimate, once; (P, M - 1, K): its paired difference to model 0
    value = np.stack(
        [np.stack([passk.pass_at_k(ni, ci, int(kj)) for kj in k], axis=-1) for ni, ci in counts],
        axis=1,
    )
    delta = value[:, 1:] - value[:, :1]
    columns = np.concatenate([value, delta, np.abs(delta)], axis=1)  # (P, 3M - 2, K)
    estimate, difference, spread = np.split(columns.mean(axis=0), [models, 2 * models - 1])
    draws = bootstrap_means(columns, rng, n_boot=n_boot, max_cells=max_cells)
    curve_draws, diff_draws, spread_draws = np.split(draws, [models, 2 * models - 1], axis=1)
    low, high = percentile_interval(curve_draws, level)
    diff_low, diff_high = percentile_interval(diff_draws, level)
    k_star_draws = passk.crossing_k_many(k, 0.0, diff_draws, scale=spread_draws).k_star
    crosses = ~np.isnan(k_star_draws)  # (B, M - 1)
    k_low = np.full(models - 1, np.nan)
    k_high = np.full(models - 1, np.nan)
    for m in range(models - 1):
        if crosses[:, m].any():
            k_low[m], k_high[m] = percentile_interval(k_star_draws[crosses[:, m], m], level)
    return PassAtKBootstrap(
        ks=k.astype(np.int64),
        estimate=estimate,
        low=low,
        high=high,
        difference=difference,
        difference_low=diff_low,
        difference_high=diff_high,
        crossing=tuple(
            passk.crossing_k(k, np.zeros(k.size), d, scale=s)
            for d, s in zip(difference, spread, strict=True)
        ),
        crossing_share=crosses.mean(axis=0),
        k_star_low=k_low,
        k_star_high=k_high,
        k_star_draws=k_star_draws,
        n_boot=int(n_boot),
        level=level,
    )
