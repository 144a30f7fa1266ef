"""The two random procedures of the Hivemind metrics: the cross-query similarity baseline that turns
an embedder's raw cosines into cut-offs, and bootstrap confidence intervals over queries.

With the paper's embedder, random cross-query pairs fall in 0.1–0.2 (Jiang et al. 2025, arXiv
2510.22954); other embedders put them elsewhere, so the paper's cut-offs do not transfer between
embedders (docs/hivemind.md, similarity scales). Both take ``rng`` and are reproducible for a
fixed seed (the authors' subsampling was not seeded).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from theory.hivemind import spearman

__all__ = ["bootstrap_over_queries", "cross_query_similarities"]


def cross_query_similarities(
    per_query: Sequence[np.ndarray], n_pairs: int, rng: np.random.Generator | int | None = None
) -> np.ndarray:
    """Cosines of ``n_pairs`` random response pairs from two different queries: draw query q1,
    a different query q2 (uniformly), and one response of each. ``per_query[q]`` holds query q's
    unit embeddings (all models pooled)."""
    rng = np.random.default_rng(rng)
    n_queries = len(per_query)
    if n_queries < 2:
        raise ValueError(f"a cross-query baseline needs at least 2 queries (got {n_queries})")
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
    (items of one query are not independent: they share the query's difficulty)."""
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
