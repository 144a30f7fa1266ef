"""The Hivemind metric math: exact constructions, brute-force oracles and scipy references."""

from __future__ import annotations

import subprocess
import sys
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sims.hivemind import orthogonal_models, planted_similarity
from tests import naive
from theory import hivemind as hm


def unit_vectors(n: int, d: int, seed: int) -> np.ndarray:
    return hm.normalize_rows(np.random.default_rng(seed).standard_normal((n, d)))


# ------------------------------------------------------------------------------------- intra
@given(n=st.integers(2, 40), d=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_mean_pairwise_similarity_matches_brute_force(n, d, seed):
    e = unit_vectors(n, d, seed)
    brute = np.mean([e[i] @ e[j] for i, j in combinations(range(n), 2)])
    assert hm.mean_pairwise_similarity(e) == pytest.approx(brute, abs=1e-14)


@given(c=st.floats(0.0, 1.0), n=st.integers(2, 30), seed=st.integers(0, 2**16))
def test_planted_construction_gives_every_pair_exactly_c(c, n, seed):
    e = planted_similarity(c, n, np.random.default_rng(seed))
    assert np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-14)
    assert np.allclose((e @ e.T)[np.triu_indices(n, 1)], c, atol=1e-14)
    assert hm.mean_pairwise_similarity(e) == pytest.approx(c, abs=1e-14)


def test_mean_pairwise_similarity_needs_two_vectors():
    with pytest.raises(ValueError, match="at least 2"):
        hm.mean_pairwise_similarity(np.ones((1, 3)))


def test_histogram_keeps_cosines_rounding_above_one():
    values = np.array([1.0 + 2e-16, 0.95, 0.05, -0.01])
    hist = hm.similarity_histogram(values)
    assert hist.sum() == pytest.approx(100.0)
    assert hist[-1] == pytest.approx(50.0)
    assert hist[0] == pytest.approx(50.0)


def test_shares_above_are_strict_percentages():
    assert hm.shares_above(np.array([0.7, 0.8, 0.85, 0.95]), (0.7, 0.8, 0.9)).tolist() == [
        75.0,
        50.0,
        25.0,
    ]


# ------------------------------------------------------------------------------------- inter
@settings(max_examples=30)
@given(seed=st.integers(0, 2**16), include=st.booleans())
def test_inter_model_matrix_matches_the_pairwise_loop(seed, include):
    rng = np.random.default_rng(seed)
    groups = [
        [
            None
            if rng.random() < 0.2
            else unit_vectors(int(rng.integers(2, 5)), 4, int(rng.integers(1 << 30)))
            for _ in range(3)
        ]
        for _ in range(3)
    ]
    fast = hm.inter_model_matrix(groups, include_self_pairs=include)
    slow = np.array(naive.inter_model_naive(groups, include), dtype=float)
    assert np.allclose(fast, slow, equal_nan=True, atol=1e-13)


def test_inter_model_diagonal_with_and_without_self_pairs():
    unit, labels = orthogonal_models(3, 4, 0.5, np.random.default_rng(0))
    groups = [[unit[labels == m] for m in range(3)]]
    assert np.allclose(np.diag(hm.inter_model_matrix(groups)), 0.5)
    with_self = hm.inter_model_matrix(groups, include_self_pairs=True)
    assert np.allclose(np.diag(with_self), 0.5 + 0.5 / 4)
    assert np.allclose(with_self[~np.eye(3, dtype=bool)], 0.0, atol=1e-15)


# ------------------------------------------------------------------------------------- top-N
@settings(max_examples=30)
@given(seed=st.integers(0, 2**16), n_models=st.integers(2, 4), per=st.integers(1, 4))
def test_distinct_model_curve_matches_the_loop(seed, n_models, per):
    e = unit_vectors(n_models * per, 3, seed)
    models = np.repeat([f"m{i}" for i in range(n_models)], per)
    n_max = n_models * per - 1
    curve = hm.distinct_model_curve(e, models, n_max)
    for n in range(1, n_max + 1):
        assert curve[n - 1] == pytest.approx(naive.distinct_models_naive(e, list(models), n))


@settings(max_examples=40)
@given(seed=st.integers(0, 2**16), n_models=st.integers(2, 4), per=st.integers(2, 5))
def test_equal_cosines_are_ties_whatever_their_rounding(seed, n_models, per):
    # ±1 vectors of one length: their cosines are integers / 9, with many exact ties, which the
    # float product of the normalised vectors computes with rounding errors; the curve is the
    # exact one (integer dot products, ties by position), also with the rows permuted in
    # their last bits by a different normalisation
    signs = np.random.default_rng(seed).choice([-1, 1], size=(n_models * per, 9))
    models = np.repeat([f"m{i}" for i in range(n_models)], per)
    n_max = n_models * per - 1
    exact = [
        naive.distinct_models_naive(signs.tolist(), list(models), n) for n in range(1, n_max + 1)
    ]
    for unit in (signs / 3.0, signs * (1 / 3.0), signs / np.linalg.norm(signs, axis=1)[:, None]):
        assert hm.distinct_model_curve(unit, models, n_max).tolist() == pytest.approx(exact)


def test_tie_ranks_join_values_that_differ_by_rounding_only():
    x = np.array([[0.5, 0.5 + 1e-13, 0.2], [0.2 - 1e-12, 0.9, 0.5 - 1e-14]])
    r = hm.tie_ranks(x)
    assert r[0, 0] == r[0, 1] == r[1, 2]
    assert r[0, 2] == r[1, 0]
    assert r[1, 0] < r[0, 0] < r[1, 1]
    assert hm.tie_ranks(np.array([0.3, 0.3 + 2e-9]))[0] < hm.tie_ranks(np.array([0.3 + 2e-9]))[0]


def test_disjoint_models_bottom_out_at_two_not_one():
    unit, labels = orthogonal_models(4, 6, 0.3, np.random.default_rng(1))
    curve = hm.distinct_model_curve(unit, labels, 6)
    assert curve.tolist() == [1, 1, 1, 1, 1, 2]
    assert hm.disjoint_curve(6, 13).tolist() == [1] * 5 + [2] * 6 + [3] * 2


@pytest.mark.parametrize(
    ("counts", "n"), [([2, 2, 2], 3), ([3, 1, 2], 2), ([1, 1], 1), ([4, 2], 5)]
)
def test_interchangeable_curve_matches_enumeration(counts, n):
    curve = hm.interchangeable_curve(counts, n)
    assert curve[-1] == pytest.approx(naive.interchangeable_naive(counts, n), abs=1e-12)


def test_interchangeable_reference_points_of_the_spec():
    curve = hm.interchangeable_curve([50] * 25, 50)
    assert curve[9] == pytest.approx(8.4, abs=0.05)
    assert curve[49] == pytest.approx(21.9, abs=0.05)


def test_curve_sizes_are_checked():
    with pytest.raises(ValueError, match="n_max"):
        hm.distinct_model_curve(np.eye(3), np.array([0, 1, 2]), 3)
    with pytest.raises(ValueError, match="n_max"):
        hm.interchangeable_curve([2, 1], 3)


# ------------------------------------------------------------------------------ disagreement
def test_entropy_values_of_the_spec():
    assert hm.entropy_bits([5, 5, 5, 5, 5]) == pytest.approx(2.3219, abs=5e-5)
    assert hm.entropy_bits([13, 12, 0, 0, 0]) == pytest.approx(0.99885, abs=5e-6)
    assert hm.entropy_bits([0, 0, 25, 0, 0]) == 0.0
    assert hm.p_disagree([6, 6, 1, 6, 6]) == pytest.approx(0.5)
    assert hm.p_disagree([0, 0, 25, 0, 0]) == pytest.approx(0.5)  # all ties: half credit
    assert hm.p_disagree([0, 0, 0, 0, 9]) == 0.0


@given(st.lists(st.integers(0, 12), min_size=5, max_size=5).filter(lambda c: sum(c) > 0))
def test_disagreement_measures_agree_with_scipy_and_stay_in_range(counts):
    c = np.array(counts)
    assert hm.entropy_bits(c) == pytest.approx(stats.entropy(c, base=2), abs=1e-12)
    assert 0.0 <= hm.entropy_bits(c) <= np.log2(5) + 1e-12
    assert 0.0 <= hm.gini_impurity(c) <= 0.8 + 1e-12
    assert -1e-12 <= hm.p_disagree(c) <= 0.5 + 1e-12


def test_label_counts_rejects_labels_outside_the_set():
    assert hm.label_counts([1, 5, 5], hm.ABSOLUTE_LABELS).tolist() == [1, 0, 0, 0, 2]
    with pytest.raises(ValueError, match="labels must be in"):
        hm.label_counts([0, 3], hm.ABSOLUTE_LABELS)


def test_item_kappa_is_one_for_unanimous_items_and_low_for_split_ones():
    counts = np.array([[5, 0, 0, 0, 0], [0, 0, 0, 0, 5], [1, 1, 1, 1, 1], [3, 0, 0, 0, 0]])
    kappa = hm.item_kappa(counts)
    assert kappa[0] == pytest.approx(1.0)
    assert kappa[1] == pytest.approx(1.0)
    assert kappa[2] < 0
    p_e = ((counts.sum(0) / counts.sum()) ** 2).sum()
    assert kappa[3] == pytest.approx((1 - p_e) / (1 - p_e))
    assert np.isnan(hm.item_kappa(np.array([[1, 0, 0, 0, 0], [0, 2, 0, 0, 0]]))[0])


# ------------------------------------------------------------------------------ correlations
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.floats(-5, 5, allow_nan=False)), min_size=3, max_size=40
    )
)
def test_spearman_and_pearson_match_scipy(pairs):
    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs])
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert np.isnan(hm.spearman(x, y))
        return
    assert hm.spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert hm.pearson(x, y) == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-10)


def test_tukey_subset_drops_outliers_and_shrinks_with_k():
    values = np.array([3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 1.0, 5.0])
    q1, q3 = np.percentile(values, [25, 75])
    for k in hm.TUKEY_KS:
        mask = hm.tukey_subset(values, k)
        assert np.array_equal(mask, (values >= q1 - k * (q3 - q1)) & (values <= q3 + k * (q3 - q1)))
    sizes = [hm.tukey_subset(values, k).sum() for k in hm.TUKEY_KS]
    assert sizes == sorted(sizes, reverse=True)
    assert not hm.tukey_subset(values, 0.5)[6]


def test_top_fraction_subset_tie_rules():
    values = np.array([0.1, 0.9, 0.5, 0.5, 0.5, 0.2, 0.3, 0.4, 0.0, 0.8])
    assert hm.top_fraction_subset(values, 0.2, ties="keep").sum() == 2  # 0.9, 0.8
    assert hm.top_fraction_subset(values, 0.3, ties="keep").sum() == 5  # rank 3 is 0.5: 3 ties
    assert hm.top_fraction_subset(values, 0.05, ties="keep").sum() == 0
    # "cut": exactly int(0.3·10) = 3 items; of the three tied 0.5s the earliest (index 2) is kept
    assert np.flatnonzero(hm.top_fraction_subset(values, 0.3)).tolist() == [1, 2, 9]
    assert hm.top_fraction_subset(values, 0.05).sum() == 0


def test_top_fraction_subset_gives_the_papers_pairwise_n():
    """500 pairwise items whose tie counts tie at both cuts: 157 items with 0 ties, 143 with 1,
    200 with 2. The authors keep int(f·500) items (N = 475 at 95%, 300 at 60%, as the paper's
    tables); keeping everything tied at the cut gives 500 (rank 475 is a 0) and 343 (rank 300 is
    a 1: 200 twos + 143 ones)."""
    ties = np.repeat([0, 1, 2], [157, 143, 200])[np.random.default_rng(0).permutation(500)]
    assert [hm.top_fraction_subset(ties, f).sum() for f in hm.PAIRWISE_TOP_FRACTIONS] == [
        475,
        450,
        400,
        350,
        300,
    ]
    assert hm.top_fraction_subset(ties, 0.95, ties="keep").sum() == 500
    assert hm.top_fraction_subset(ties, 0.60, ties="keep").sum() == 343
    cut = hm.top_fraction_subset(ties, 0.60)
    assert (ties[cut] >= 1).all()  # a top set, the tied 1s cut by position
    assert (ties[~cut] <= 1).all()


def test_top_fraction_subset_rejects_unknown_tie_rules():
    with pytest.raises(ValueError, match="ties"):
        hm.top_fraction_subset(np.arange(5.0), 0.5, ties="all")


def test_metric_modules_do_not_import_torch():
    code = (
        "import sys, theory.hivemind, sims.hivemind, neural.hivemind, paper_checks.hivemind_report;"
        "from neural.hivemind import HashEmbedder; HashEmbedder().embed(['a b']);"
        "sys.exit('torch' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@given(n=st.integers(2, 30), d=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_mean_over_pairs_is_the_fast_mean(n, d, seed):
    e = unit_vectors(n, d, seed)
    assert hm.mean_similarity_over_pairs(e) == pytest.approx(
        hm.mean_pairwise_similarity(e), abs=1e-12
    )


@pytest.mark.parametrize(("c", "n"), [(0.6, 10), (0.3, 4), (0.0, 2)])
def test_orthogonal_models_exact_values_are_measured(c, n):
    unit, labels = orthogonal_models(3, n, c, np.random.default_rng(0))
    groups = [[unit[labels == m] for m in range(3)]]
    exact = hm.orthogonal_models_exact(c, n)
    inter = hm.inter_model_matrix(groups)
    with_self = hm.inter_model_matrix(groups, include_self_pairs=True)
    assert np.max(np.abs(inter[~np.eye(3, dtype=bool)])) <= exact["inter_offdiag_max_abs"] + 1e-15
    assert np.allclose(np.diag(inter), exact["inter_diag"], atol=1e-15)
    assert np.allclose(np.diag(with_self), exact["inter_diag_with_self_pairs"], atol=1e-15)


def test_paraphrase_split_separates_same_and_different_topics():
    unit = hm.normalize_rows(np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]]))
    sim, same, different = hm.paraphrase_split(unit, np.array([0, 0, 1, 1]))
    assert np.allclose(sim, unit @ unit.T)
    assert same.tolist() == pytest.approx([sim[0, 1], sim[2, 3]])
    assert sorted(different.tolist()) == pytest.approx(
        sorted([sim[0, 2], sim[0, 3], sim[1, 2], sim[1, 3]])
    )


@pytest.mark.parametrize("n", [2, 5, 20, 50, 200])
def test_planted_means_stay_within_the_rounding_bound(n):
    from sims.hivemind import planted_similarity

    rng = np.random.default_rng(n)
    bound = hm.similarity_rounding_bound(n, n + 1)
    errors = [
        abs(hm.mean_pairwise_similarity(planted_similarity(c, n, rng)) - c)
        for c in (0.05, 0.5, 0.99)
        for _ in range(20)
    ]
    assert max(errors) <= bound
    assert bound < 1e-11  # far below the float32 errors (~1e-8) the claim must FAIL on


def test_the_rounding_bound_refuses_sizes_without_pairs():
    with pytest.raises(ValueError, match="n must be"):
        hm.similarity_rounding_bound(1, 3)
