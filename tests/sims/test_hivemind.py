"""The cross-query baseline, the bootstrap over queries and the random boxes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sims.boxes import random_boxes
from sims.hivemind import (
    bootstrap_over_queries,
    compositions,
    cross_query_similarities,
    interchangeable_curves,
    orthogonal_models_metrics,
    planted_and_random_means,
)
from theory.hivemind import (
    disjoint_curve,
    interchangeable_curve,
    mean_pairwise_similarity,
    normalize_rows,
    orthogonal_models_exact,
    spearman,
)


def test_baseline_pairs_only_different_queries():
    # query q's responses are all the unit vector e_q: any same-query pair would give cosine 1
    per_query = [np.tile(np.eye(4)[q], (3, 1)) for q in range(4)]
    sims = cross_query_similarities(per_query, 2000, rng=0)
    assert np.all(sims == 0.0)
    assert np.array_equal(sims, cross_query_similarities(per_query, 2000, rng=0))


def test_baseline_of_random_directions_centres_on_zero():
    rng = np.random.default_rng(1)
    per_query = [normalize_rows(rng.standard_normal((5, 256))) for _ in range(10)]
    sims = cross_query_similarities(per_query, 4000, rng=2)
    assert abs(sims.mean()) < 4 * (1 / np.sqrt(256)) / np.sqrt(4000)
    assert sims.std() == pytest.approx(1 / np.sqrt(256), rel=0.1)


def test_baseline_needs_two_queries():
    with pytest.raises(ValueError, match="at least 2 queries"):
        cross_query_similarities([np.eye(3)], 10)


def test_bootstrap_ci_brackets_the_estimate_and_is_reproducible():
    rng = np.random.default_rng(3)
    queries = np.repeat(np.arange(30), 5)
    x = rng.normal(size=150)
    y = x + rng.normal(size=150)
    lo, hi = bootstrap_over_queries(x, y, queries, n_boot=300, rng=4)
    assert lo < spearman(x, y) < hi
    assert (lo, hi) == bootstrap_over_queries(x, y, queries, n_boot=300, rng=4)


def test_bootstrap_of_a_constant_score_is_nan():
    assert np.isnan(
        bootstrap_over_queries(np.ones(6), np.arange(6.0), np.arange(6), n_boot=20, rng=0)[0]
    )


@given(st.floats(16, 200), st.floats(1.01, 2.0), st.integers(0, 2**16))
def test_random_boxes_fit_the_image_and_the_band(lo, factor, seed):
    b = random_boxes(200, (lo, lo * factor), rng=seed)
    side = np.sqrt((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]))
    aspect = (b[:, 3] - b[:, 1]) / (b[:, 2] - b[:, 0])
    assert np.all((side >= lo * (1 - 1e-9)) & (side <= lo * factor * (1 + 1e-9)))
    assert np.all((aspect >= 0.5 - 1e-9) & (aspect <= 2 + 1e-9))
    assert b[:, :2].min() >= 0
    assert b[:, 2].max() <= 1000
    assert b[:, 3].max() <= 600


def test_random_boxes_reject_boxes_larger_than_the_image():
    with pytest.raises(ValueError, match="side_range"):
        random_boxes(10, (500, 900), rng=0)


def test_compositions_count_every_split():
    splits = compositions(4, 3)
    assert len(splits) == 15
    assert np.all(splits.sum(axis=1) == 4)
    assert len({tuple(row) for row in splits.tolist()}) == 15
    assert splits.min() >= 0


def test_planted_and_random_means_are_exact_for_the_fast_mean():
    cs = np.array([0.1, 0.5, 0.9])
    means = planted_and_random_means(
        mean_pairwise_similarity, cs, (2, 7), rng=np.random.default_rng(0), repeats=3
    )
    assert means.s_bar.shape == (3, 2)
    assert np.max(np.abs(means.s_bar - cs[:, None])) <= 1e-14
    assert means.max_pair_error <= 1e-14
    assert means.fast.shape == means.brute.shape == (6,)
    assert np.max(np.abs(means.fast - means.brute)) <= 1e-14
    again = planted_and_random_means(
        mean_pairwise_similarity, cs, (2, 7), rng=np.random.default_rng(0), repeats=3
    )
    assert np.array_equal(again.fast, means.fast)


def test_orthogonal_models_metrics_match_their_exact_values():
    orth = orthogonal_models_metrics(4, 6, 0.3, rng=np.random.default_rng(1))
    exact = orthogonal_models_exact(0.3, 6)
    assert orth.matches(exact, disjoint_curve(6, 6), 1e-15)
    assert not orth.matches(exact, np.ones(6), 1e-15)
    assert not orth.matches({**exact, "inter_diag": 0.31}, disjoint_curve(6, 6), 1e-15)


def test_interchangeable_curves_average_to_the_hypergeometric_curve():
    curves = interchangeable_curves(5, 8, 10, 200, rng=np.random.default_rng(2), dim=16)
    assert curves.shape == (200, 10)
    theory = interchangeable_curve([8] * 5, 10)
    se = curves.std(axis=0, ddof=1) / np.sqrt(200)
    assert np.all(np.abs(curves.mean(axis=0) - theory) <= 5 * np.maximum(se, 1e-12))
