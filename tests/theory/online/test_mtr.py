"""The suffix-set Pareto DP for M_tr against the permutation brute force and the census."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.naive import mtr_bruteforce, mtr_pareto_fronts_naive, transductive_value_naive
from theory.online import ConceptClass
from theory.online._mtr_numba import collisions, dp_layer
from theory.online.census import census
from theory.online.dims import littlestone_dim
from theory.online.mtr import MAX_POINTS, _row_masks, transductive_mistake_bound
from theory.online.strategies import classes_with_planted_gap, concept_classes, products

W_ROWS = ["0000", "1000", "0100", "0001", "1101", "0011", "1011", "1111"]


@settings(deadline=None, max_examples=150)
@given(concept_classes(max_points=6, max_hypotheses=24))
def test_dp_equals_the_permutation_brute_force(H):
    result = transductive_mistake_bound(H)
    assert result.value == mtr_bruteforce(H.matrix)
    # the witness sequence achieves the value
    assert transductive_value_naive(H.matrix, list(result.sequence)) == result.value


@settings(deadline=None, max_examples=60)
@given(concept_classes(max_points=5, max_hypotheses=12))
def test_every_pareto_front_equals_the_order_enumeration(H):
    """The compact kernel (non-singleton cells, bit-plane dominance) keeps, for every suffix set,
    exactly the Pareto-maximal per-hypothesis vectors over all orders of that set."""
    matrix = H.canonical()[0].matrix
    n_h, n = matrix.shape
    if n == 0 or n_h <= 1:
        return
    expected = mtr_pareto_fronts_naive(matrix)
    rows, size = _row_masks(matrix), 1 << n
    index = np.zeros((size, 2), dtype=np.int64)
    index[0, 1] = 1
    vecs = np.zeros((1, n_h), dtype=np.int8)
    assert {tuple(v) for v in vecs} == expected[0]
    for k in range(1, n + 1):
        prev_index, index = index, np.full((size, 2), -1, dtype=np.int64)
        vecs, _, _ = dp_layer(rows, n, k, collisions(rows, n), prev_index, vecs, index)
        for mask in range(size):
            if mask.bit_count() == k:
                start, count = index[mask]
                front = vecs[start : start + count]
                assert len(front) == len(expected[mask])
                assert {tuple(int(a) for a in v) for v in front} == expected[mask]


@settings(deadline=None, max_examples=60)
@given(concept_classes(max_points=7, max_hypotheses=20))
def test_collisions_marks_the_suffix_sets_with_a_non_singleton_cell(H):
    matrix = H.canonical()[0].matrix
    n_h, n = matrix.shape
    if n == 0 or n_h <= 1:
        return
    has = collisions(_row_masks(matrix), n)
    pairs_fit = n_h * (n_h - 1) // 2 <= 1 << n
    for mask in range(1 << n):
        outside = [x for x in range(n) if not mask >> x & 1]
        shared = len({tuple(row[outside]) for row in matrix}) < n_h
        assert has[mask] == (shared if pairs_fit else 1)


@settings(deadline=None, max_examples=30)
@given(classes_with_planted_gap(max_extra_points=2, max_extra_hypotheses=4))
def test_planted_gaps_are_found(H):
    assert transductive_mistake_bound(H).value < littlestone_dim(H)


@settings(deadline=None, max_examples=40)
@given(concept_classes(max_points=5, max_hypotheses=16), st.integers(0, 5))
def test_prefix_length_n_is_the_best_subset(H, n):
    matrix = H.matrix
    result = transductive_mistake_bound(H, n=n)
    canon, _ = H.canonical()
    assert result.value <= transductive_mistake_bound(H).value
    assert len(result.sequence) == min(n, canon.n_points)
    assert transductive_value_naive(matrix, list(result.sequence)) == result.value


def test_spec_oracles():
    assert transductive_mistake_bound(ConceptClass.from_strings(W_ROWS)).value == 2
    for k in range(1, 8):
        thresholds = [[1 if j < i else 0 for j in range(k)] for i in range(k + 1)]
        assert transductive_mistake_bound(ConceptClass.from_array(thresholds)).value == int(
            np.floor(np.log2(k + 1))
        )
    all4 = [[(f >> j) & 1 for j in range(4)] for f in range(16)]
    assert transductive_mistake_bound(ConceptClass.from_array(all4)).value == 4


def test_dp_matches_the_census_on_a_sample_of_four_point_classes():
    table = census(4)
    for mask in np.random.default_rng(0).integers(1, 2**16, size=300):
        rows = table.class_rows(int(mask))
        assert transductive_mistake_bound(ConceptClass.from_strings(rows)).value == table.mtr[mask]


def test_witness_refers_to_the_users_points():
    # columns 1 and 3 duplicate/complement columns 0 and 2; column 4 is constant
    base = np.array([[int(c) for c in r] for r in W_ROWS], dtype=np.uint8)
    matrix = np.column_stack(
        [base[:, 0], base[:, 0], base[:, 1], 1 - base[:, 2], base[:, 2], base[:, 3]]
    )
    matrix = np.column_stack([matrix, np.ones(8, dtype=np.uint8)])
    result = transductive_mistake_bound(ConceptClass.from_array(matrix))
    assert result.value == 2
    assert set(result.sequence) <= set(range(7))
    assert transductive_value_naive(matrix, list(result.sequence)) == 2


def test_too_many_points_and_bad_n_are_refused():
    rng = np.random.default_rng(0)
    wide = rng.integers(0, 2, size=(200, MAX_POINTS + 3))
    with pytest.raises(ValueError, match="at most"):
        transductive_mistake_bound(ConceptClass.from_array(wide))
    with pytest.raises(ValueError, match="n must be"):
        transductive_mistake_bound(ConceptClass.from_strings(W_ROWS), n=-1)


@settings(deadline=None, max_examples=60)
@given(concept_classes(max_points=5, max_hypotheses=16), st.data())
def test_mtr_is_invariant_under_relabelling_and_duplication(H, data):
    value = transductive_mistake_bound(H).value
    m = H.matrix
    perm = data.draw(st.permutations(range(H.n_points)))
    flip = data.draw(st.integers(0, H.n_points - 1))
    copy = data.draw(st.integers(0, H.n_points - 1))
    variants = [
        m[:, perm],
        np.where(np.arange(H.n_points) == flip, 1 - m, m),
        np.column_stack([m, m[:, copy], 1 - m[:, copy]]),
        np.vstack([m, m[:1]]),
    ]
    for variant in variants:
        assert transductive_mistake_bound(ConceptClass.from_array(variant)).value == value


@settings(deadline=None, max_examples=40)
@given(
    products(
        concept_classes(max_points=3, max_hypotheses=6),
        concept_classes(max_points=3, max_hypotheses=6),
    )
)
def test_mtr_adds_over_disjoint_products(triple):
    A, B, AB = triple
    assert transductive_mistake_bound(AB).value == (
        transductive_mistake_bound(A).value + transductive_mistake_bound(B).value
    )


@settings(deadline=None, max_examples=40)
@given(concept_classes(max_points=5, max_hypotheses=16), st.data())
def test_mtr_is_monotone_under_subclasses(H, data):
    rows = data.draw(st.lists(st.integers(0, H.n_hypotheses - 1), min_size=1, unique=True))
    assert (
        transductive_mistake_bound(H.subclass(sorted(rows))).value
        <= transductive_mistake_bound(H).value
    )
