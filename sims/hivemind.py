"""The random procedures of the Hivemind metrics: the cross-query similarity baseline that turns
an embedder's raw cosines into cut-offs, bootstrap confidence intervals over queries, and the
constructions whose metric values are known exactly (planted cosines, models in orthogonal
subspaces, interchangeable models, every split of the raters) with the metrics measured on them.

With the paper's embedder, random cross-query pairs fall in 0.1–0.2 (Jiang et al. 2025, arXiv
2510.22954); other embedders put them elsewhere, so the paper's cut-offs do not transfer between
embedders (docs/hivemind.md, similarity scales). The random ones take ``rng`` and are reproducible for a
fixed seed (the authors' subsampling was not seeded).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from theory import _domain
from theory.hivemind import (
    distinct_model_curve,
    inter_model_matrix,
    mean_similarity_over_pairs,
    normalize_rows,
    spearman,
)

__all__ = [
    "OrthogonalModelsMetrics",
    "PlantedMeans",
    "bootstrap_over_queries",
    "compositions",
    "cross_query_similarities",
    "interchangeable_curves",
    "orthogonal_models",
    "orthogonal_models_metrics",
    "planted_and_random_means",
    "planted_similarity",
]


def cross_query_similarities(
    per_query: Sequence[np.ndarray], n_pairs: int, rng: np.random.Generator | int | None = None
) -> np.ndarray:
    """Cosines of ``n_pairs`` random response pairs from two different queries: draw query q1,
    a different query q2 (uniformly), and one response of each. ``per_query[q]`` holds query q's
    unit embeddings (all models pooled).

    Parameters
    ----------
    per_query : sequence of numpy.ndarray of float
        Each query's unit embeddings (responses, d), at least two queries.
    n_pairs : int
        Pairs drawn.
    rng : numpy.random.Generator, int or None
        Source of the draws.

    Returns
    -------
    numpy.ndarray of float, (n_pairs,)
        The cosines.

    Raises
    ------
    ValueError
        Unless ``n_pairs`` is an integer ≥ 0 and there are at least 2 queries.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.hivemind import cross_query_similarities
    >>> per_query = [np.eye(3)[:2], np.eye(3)[2:]]  # query 0 on axes 0, 1; query 1 on axis 2
    >>> cross_query_similarities(per_query, 4, rng=0).tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    n_pairs = _domain.integer("n_pairs", n_pairs, minimum=0)
    _domain.seed("rng", rng)
    rng = np.random.default_rng(rng)
    n_queries = len(per_query)
    if n_queries < 2:
        raise ValueError(f"per_query must hold at least 2 queries for a baseline (got {n_queries})")
    q1 = rng.integers(n_queries, size=n_pairs)
    q2 = (q1 + rng.integers(1, n_queries, size=n_pairs)) % n_queries  # uniform over q ≠ q1
    sizes = np.array([len(e) for e in per_query])
    i1 = (rng.random(n_pairs) * sizes[q1]).astype(np.int64)
    i2 = (rng.random(n_pairs) * sizes[q2]).astype(np.int64)
    return np.array(
        [per_query[a][i] @ per_query[b][j] for a, b, i, j in zip(q1, q2, i1, i2, strict=True)]
    )


def bootstrap_over_queries(
    x: np.ndarray,
    y: np.ndarray,
    queries: np.ndarray,
    *,
    statistic: Callable[[np.ndarray, np.ndarray], float] = spearman,
    n_boot: int = 1000,
    level: float = 0.95,
    rng: np.random.Generator | int | None = None,
) -> tuple[float, float]:
    """Percentile bootstrap CI of ``statistic(x, y)`` resampling whole queries with replacement
    (items of one query are not independent: they share the query's difficulty).

    Parameters
    ----------
    x, y : numpy.ndarray of float, (items,)
        Paired values per item.
    queries : numpy.ndarray, (items,)
        Each item's query.
    statistic : callable
        (x, y) → float (default :func:`theory.hivemind.spearman`).
    n_boot : int
        Resamples.
    level : float
        Interval level in (0, 1).
    rng : numpy.random.Generator, int or None
        Source of the resamples.

    Returns
    -------
    low, high : float
        The interval.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.hivemind import bootstrap_over_queries
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=40)
    >>> y = x + 0.5 * rng.normal(size=40)
    >>> low, high = bootstrap_over_queries(x, y, np.repeat(np.arange(10), 4), rng=0, n_boot=500)
    >>> 0 < low < high < 1
    True
    """
    _domain.reals("x", x, ndim=1)
    _domain.reals("y", y, ndim=1)
    if np.ndim(queries) != 1 or not np.size(x) == np.size(y) == np.size(queries):
        raise ValueError(
            f"queries must be 1-D with one entry per item of x and y (got sizes {np.size(x)}, "
            f"{np.size(y)}, {np.size(queries)})"
        )
    _domain.integer("n_boot", n_boot, minimum=1)
    _domain.real("level", level, minimum=0.0, maximum=1.0, open_low=True, open_high=True)
    _domain.seed("rng", rng)
    rng = np.random.default_rng(rng)
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keys, inverse = np.unique(np.asarray(queries), return_inverse=True)
    members = [np.flatnonzero(inverse == q) for q in range(keys.size)]
    values = np.empty(n_boot)
    for b in range(n_boot):
        take = np.concatenate([members[q] for q in rng.integers(keys.size, size=keys.size)])
        values[b] = statistic(x[take], y[take])
    values = values[np.isfinite(values)]
    if values.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.percentile(values, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)


# ------------------------------------------------------------------ constructions of known value
def planted_similarity(
    c: float, n: int, rng: np.random.Generator, dim: int | None = None
) -> np.ndarray:
    """N unit vectors with every pairwise cosine exactly c: e_i = √c·u + √(1−c)·v_i, with u and the
    v_i orthonormal (a random orthonormal frame of R^dim, dim ≥ N + 1), since u·u = 1 and
    v_i·v_j = 0 for i ≠ j give e_i·e_j = c.

    Parameters
    ----------
    c : float
        The cosine, in [0, 1].
    n : int
        N, the vectors.
    rng : numpy.random.Generator
        Source of the frame.
    dim : int, optional
        Their dimension (default N + 1).

    Returns
    -------
    numpy.ndarray of float, (N, dim)
        The vectors, one per row.

    Raises
    ------
    ValueError
        Unless c ∈ [0, 1], ``n`` is a positive integer and ``dim`` an integer ≥ n + 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.hivemind import planted_similarity
    >>> unit = planted_similarity(0.3, 4, np.random.default_rng(0))
    >>> unit.shape, (unit @ unit.T).round(6)[0].tolist()
    ((4, 5), [1.0, 0.3, 0.3, 0.3])
    """
    c = _domain.real("c", c, minimum=0.0, maximum=1.0)
    n = _domain.integer("n", n, minimum=1)
    dim = n + 1 if dim is None else _domain.integer("dim", dim, minimum=n + 1)
    frame, _ = np.linalg.qr(rng.standard_normal((dim, n + 1)))  # (dim, N+1) orthonormal columns
    u, v = frame[:, 0], frame[:, 1:].T  # (dim,), (N, dim)
    return np.sqrt(c) * u + np.sqrt(1 - c) * v  # (N, dim)


def orthogonal_models(
    n_models: int, per_model: int, c: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Models in mutually orthogonal subspaces, each with planted within-model cosine c: unit
    embeddings (M·n, M·(n+1)) and their model labels.

    Parameters
    ----------
    n_models : int
        M, the models.
    per_model : int
        n, responses per model.
    c : float
        The within-model cosine, in [0, 1].
    rng : numpy.random.Generator
        Source of the frames.

    Returns
    -------
    unit : numpy.ndarray of float, (M·n, M·(n + 1))
        The embeddings.
    labels : numpy.ndarray of int, (M·n,)
        Each response's model.

    Raises
    ------
    ValueError
        Unless the counts are positive integers and c ∈ [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from sims.hivemind import orthogonal_models
    >>> unit, labels = orthogonal_models(2, 3, 0.5, np.random.default_rng(0))
    >>> unit.shape, labels.tolist()
    ((6, 8), [0, 0, 0, 1, 1, 1])
    >>> cosines = unit @ unit.T
    >>> bool(np.allclose(cosines[0, 1:3], 0.5)), bool(np.allclose(cosines[0, 3:], 0.0))
    (True, True)
    """
    n_models = _domain.integer("n_models", n_models, minimum=1)
    per_model = _domain.integer("per_model", per_model, minimum=1)
    c = _domain.real("c", c, minimum=0.0, maximum=1.0)
    dim = per_model + 1
    blocks = np.zeros((n_models * per_model, n_models * dim))
    for m in range(n_models):
        blocks[m * per_model : (m + 1) * per_model, m * dim : (m + 1) * dim] = planted_similarity(
            c, per_model, rng
        )
    return blocks, np.repeat(np.arange(n_models), per_model)


def compositions(total: int, parts: int) -> np.ndarray:
    """Every vector of ``parts`` non-negative integers summing to ``total``: stars and bars, one
    row per choice of the ``parts − 1`` bar positions among ``total + parts − 1`` slots (every
    way ``total`` raters can split over ``parts`` labels).

    Parameters
    ----------
    total : int
        The sum.
    parts : int
        The number of entries.

    Returns
    -------
    numpy.ndarray of int, (C(total + parts − 1, parts − 1), parts)
        One composition per row.

    Raises
    ------
    ValueError
        Unless ``total`` is an integer ≥ 0 and ``parts`` a positive integer.

    Examples
    --------
    >>> from sims.hivemind import compositions
    >>> compositions(2, 3).tolist()
    [[0, 0, 2], [0, 1, 1], [0, 2, 0], [1, 0, 1], [1, 1, 0], [2, 0, 0]]
    """
    total = _domain.integer("total", total, minimum=0)
    parts = _domain.integer("parts", parts, minimum=1)
    bars = np.array(list(combinations(range(total + parts - 1), parts - 1)), dtype=np.int64)
    bars = bars.reshape(-1, parts - 1)
    edges = np.hstack(
        [np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), total + parts - 1)]
    )
    return np.diff(edges, axis=1) - 1  # (C(total+parts−1, parts−1), parts)


@dataclass(frozen=True)
class PlantedMeans:
    """The intra-model score s̄ measured on constructions of known value."""

    #: (len(cs), len(ns)): s̄ of N planted vectors with every pairwise cosine c.
    s_bar: np.ndarray
    #: max |e_i·e_j − c| over the pairs of planted sets of 20 vectors, for every c.
    max_pair_error: float
    #: s̄ of random unit sets (``repeats`` per N, in R^dim), by the function under test.
    fast: np.ndarray
    #: the same sets' mean cosine by the loop over pairs.
    brute: np.ndarray


def planted_and_random_means(
    mean_similarity: Callable[[np.ndarray], float],
    cs: np.ndarray,
    ns: Sequence[int],
    *,
    rng: np.random.Generator,
    repeats: int = 5,
    dim: int = 16,
) -> PlantedMeans:
    """s̄ = ``mean_similarity`` of :func:`planted_similarity` sets for every c in ``cs`` and N in
    ``ns`` (it must return c), the pairwise cosines of planted sets of 20, and s̄ of
    random unit sets beside the mean over pairs by
    :func:`theory.hivemind.mean_similarity_over_pairs`, all drawn from ``rng`` in that order.

    Parameters
    ----------
    mean_similarity : callable
        The s̄ under test (e.g. :func:`theory.hivemind.mean_pairwise_similarity`).
    cs : numpy.ndarray of float
        Planted cosines.
    ns : sequence of int
        Set sizes N.
    rng : numpy.random.Generator
        Source of the sets.
    repeats : int
        Random unit sets drawn.
    dim : int
        Their dimension.

    Returns
    -------
    PlantedMeans
        s̄ per (c, N), the largest planted-pair error, and s̄ of the random sets by both routes.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.hivemind import planted_and_random_means
    >>> from theory.hivemind import mean_pairwise_similarity
    >>> means = planted_and_random_means(
    ...     mean_pairwise_similarity, np.array([0.2, 0.8]), [5], rng=np.random.default_rng(0),
    ...     repeats=2,
    ... )
    >>> means.s_bar.round(6).tolist(), bool(np.allclose(means.fast, means.brute))
    ([[0.2], [0.8]], True)
    """
    _domain.reals("cs", cs, ndim=1, minimum=-1.0, maximum=1.0)
    _domain.integers("ns", ns, minimum=2)
    _domain.integer("repeats", repeats, minimum=1)
    _domain.integer("dim", dim, minimum=1)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator (got {rng!r:.40})")  # noqa: TRY004
    planted = np.array([[mean_similarity(planted_similarity(c, n, rng)) for n in ns] for c in cs])
    pair_error = max(
        float(np.max(np.abs((e @ e.T)[np.triu_indices(len(e), 1)] - c)))
        for c in cs
        for e in [planted_similarity(c, 20, rng)]
    )
    random_sets = [
        normalize_rows(rng.standard_normal((n, dim))) for n in ns for _ in range(repeats)
    ]
    fast = np.array([mean_similarity(e) for e in random_sets])
    brute = np.array([mean_similarity_over_pairs(e) for e in random_sets])
    return PlantedMeans(planted, pair_error, fast, brute)


# ----------------------------------------------------------------------- models, disjoint or not
@dataclass(frozen=True)
class OrthogonalModelsMetrics:
    """The inter-model scores and the top-N curve of :func:`orthogonal_models`' embeddings."""

    #: max |inter-model score| between different models.
    inter_offdiag_max_abs: float
    #: (M,): each model's score with itself, self-pairs excluded.
    inter_diag: np.ndarray
    #: (M,): the same with self-pairs included.
    inter_diag_with_self_pairs: np.ndarray
    #: (n,): distinct models among N = 1..n nearest neighbours.
    disjoint_curve: np.ndarray

    def matches(self, exact: dict[str, float], curve: np.ndarray, tolerance: float) -> bool:
        """Whether every inter-model score lies within ``tolerance`` of its ``exact`` value
        (:func:`theory.hivemind.orthogonal_models_exact`) and the top-N curve equals ``curve``."""
        errors = [float(np.max(np.abs(getattr(self, k) - v))) for k, v in exact.items()]
        return all(e <= tolerance for e in errors) and np.array_equal(self.disjoint_curve, curve)


def orthogonal_models_metrics(
    n_models: int, per_model: int, c: float, *, rng: np.random.Generator
) -> OrthogonalModelsMetrics:
    """Build :func:`orthogonal_models` (M models × n responses, within-model cosine c) and
    measure the inter-model matrix (Fig. 6, with and without self-pairs) and the top-N
    distinct-model curve (Fig. 8) on them; :func:`theory.hivemind.orthogonal_models_exact`
    and :func:`theory.hivemind.disjoint_curve` give their exact values.

    Parameters
    ----------
    n_models : int
        M, the models.
    per_model : int
        n, responses per model.
    c : float
        The within-model cosine.
    rng : numpy.random.Generator
        Source of the frames.

    Returns
    -------
    OrthogonalModelsMetrics
        The measured inter-model scores and curve.

    Raises
    ------
    ValueError
        Unless there are at least 2 models and ``per_model`` and ``c`` are as
        :func:`orthogonal_models` requires.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.hivemind import orthogonal_models_metrics
    >>> metrics = orthogonal_models_metrics(2, 3, 0.5, rng=np.random.default_rng(0))
    >>> metrics.inter_diag.round(6).tolist(), metrics.inter_diag_with_self_pairs.round(6).tolist()
    ([0.5, 0.5], [0.666667, 0.666667])
    >>> metrics.disjoint_curve.tolist()  # theory.hivemind.disjoint_curve(3, 3)
    [1.0, 1.0, 2.0]
    """
    n_models = _domain.integer("n_models", n_models, minimum=2)
    unit, labels = orthogonal_models(n_models, per_model, c, rng)
    groups = [[unit[labels == m] for m in range(n_models)]]
    inter = inter_model_matrix(groups)
    inter_self = inter_model_matrix(groups, include_self_pairs=True)
    off = inter[~np.eye(n_models, dtype=bool)]
    curve = distinct_model_curve(unit, labels, per_model)
    return OrthogonalModelsMetrics(
        float(np.max(np.abs(off))), np.diag(inter), np.diag(inter_self), curve
    )


def interchangeable_curves(
    n_models: int,
    per_model: int,
    n_max: int,
    n_queries: int,
    *,
    rng: np.random.Generator,
    dim: int = 64,
) -> np.ndarray:
    """(queries, n_max): the top-N distinct-model curve (Fig. 8) of ``n_queries`` independent
    queries whose ``n_models × per_model`` responses are i.i.d. random unit vectors in R^dim, so
    that model labels carry no information (:func:`theory.hivemind.interchangeable_curve` is
    their expectation: 21.9 at N = 50 for 25 models × 50 responses).

    Parameters
    ----------
    n_models, per_model : int
        Models and responses per model.
    n_max : int
        The largest N.
    n_queries : int
        Independent queries.
    rng : numpy.random.Generator
        Source of the embeddings.
    dim : int
        Embedding dimension.

    Returns
    -------
    numpy.ndarray of float, (n_queries, n_max)
        One curve per query.

    Raises
    ------
    ValueError
        Unless the counts are positive integers (n_max below the responses per query).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.hivemind import interchangeable_curves
    >>> from theory.hivemind import interchangeable_curve
    >>> curves = interchangeable_curves(5, 10, 20, 50, rng=np.random.default_rng(0))
    >>> theory = interchangeable_curve([10] * 5, 20)
    >>> curves.shape, float(np.abs(curves.mean(axis=0) - theory).max()) < 0.1
    ((50, 20), True)
    """
    n_models = _domain.integer("n_models", n_models, minimum=1)
    per_model = _domain.integer("per_model", per_model, minimum=1)
    n_max = _domain.integer("n_max", n_max, minimum=1, maximum=max(n_models * per_model - 1, 1))
    n_queries = _domain.integer("n_queries", n_queries, minimum=1)
    dim = _domain.integer("dim", dim, minimum=1)
    labels = np.repeat(np.arange(n_models), per_model)
    return np.array(
        [
            distinct_model_curve(
                normalize_rows(rng.standard_normal((n_models * per_model, dim))), labels, n_max
            )
            for _ in range(n_queries)
        ]
    )
