"""theory.online.transductive: BKM97's value on a fixed sequence against the naive recursion, the
known exact values (docs/online.md#exact-values-the-checks-compare-with) and the optimal learner's
guarantees."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.naive import mtr_bruteforce, transductive_value_naive
from tests.theory.online.test_dims import (
    W_ROWS,
    all_functions,
    matrices,
    minimal_tree_class,
    product,
    singletons,
    thresholds,
)
from theory.online import ConceptClass
from theory.online.dims import littlestone_dim
from theory.online.transductive import OptimalTransductiveLearner, transductive_value


@st.composite
def sequences(draw: st.DrawFn, max_points: int = 7, max_hypotheses: int = 40, max_len: int = 10):
    """A class matrix and a sequence of its points (repeats allowed)."""
    matrix = draw(matrices(max_points=max_points, max_hypotheses=max_hypotheses))
    seq = draw(st.lists(st.integers(0, matrix.shape[1] - 1), max_size=max_len))
    return matrix, seq


def mtr_by_orders(H: ConceptClass) -> int:
    """M_tr = max over orders of X of v, with the fast kernel
    (docs/online.md#the-game-and-its-value)."""
    return max(transductive_value(H, order) for order in itertools.permutations(range(H.n_points)))


# ---------------------------------------------------------------------------------------- value
@settings(deadline=None, max_examples=200)
@given(sequences())
def test_value_equals_the_naive_recursion(case):
    matrix, seq = case
    assert transductive_value(ConceptClass(matrix), seq) == transductive_value_naive(matrix, seq)


@settings(deadline=None, max_examples=40)
@given(sequences(max_points=6, max_hypotheses=150, max_len=8))
def test_value_equals_the_naive_recursion_on_many_hypotheses(case):
    matrix, seq = case
    assert transductive_value(ConceptClass(matrix), seq) == transductive_value_naive(matrix, seq)


@settings(deadline=None, max_examples=100)
@given(sequences(), st.data())
def test_value_bounds_and_sequence_edits(case, data):
    matrix, seq = case
    H = ConceptClass(matrix)
    v = transductive_value(H, seq)
    n_distinct = len({tuple(r) for r in matrix})
    assert v <= min(len(set(seq)), littlestone_dim(H), int(np.floor(np.log2(n_distinct))))
    # appending never lowers v (c is monotone)
    extra = data.draw(st.lists(st.integers(0, matrix.shape[1] - 1), max_size=4))
    assert transductive_value(H, seq + extra) >= v
    # a repeat of an earlier point is a pass-through, wherever it goes after the first copy
    if seq:
        i = data.draw(st.integers(0, len(seq) - 1))
        j = data.draw(st.integers(i + 1, len(seq)))
        assert transductive_value(H, [*seq[:j], seq[i], *seq[j:]]) == v


@settings(deadline=None, max_examples=60)
@given(matrices(max_points=5, max_hypotheses=20))
def test_max_over_orders_equals_the_brute_force(matrix):
    assert mtr_by_orders(ConceptClass(matrix)) == mtr_bruteforce(matrix)


def test_inserting_a_point_can_lower_the_value():
    # X = (p, z1, z2); all labelings of (z1, z2); h(p) = h(z1) AND h(z2)
    # (docs/online.md#the-game-and-its-value)
    H = ConceptClass.from_array([[a & b, a, b] for a in (0, 1) for b in (0, 1)])
    assert transductive_value(H, [1, 2]) == 2
    assert transductive_value(H, [1, 2, 0]) == 2
    assert transductive_value(H, [0, 1, 2]) == 1


@pytest.mark.parametrize("k", range(1, 8))
def test_spec_oracles_thresholds(k):
    assert mtr_by_orders(thresholds(k)) == int(np.floor(np.log2(k + 1)))


def test_spec_oracles():
    W = ConceptClass.from_strings(W_ROWS)
    assert mtr_by_orders(W) == mtr_bruteforce(W.matrix) == 2
    assert mtr_by_orders(product(W, W)) == 4
    for k in range(1, 6):
        assert mtr_by_orders(all_functions(k)) == k
        assert mtr_by_orders(singletons(k, with_zero=True)) == 1
    # BFS order of the minimal tree class forces d
    for d in range(1, 7):
        assert transductive_value(minimal_tree_class(d), range(2**d - 1)) == d


def test_degenerate_sequences_and_classes():
    H = thresholds(3)
    assert transductive_value(H, []) == 0
    assert transductive_value(H, np.array([1, 1, 1])) == 1
    assert transductive_value(ConceptClass.from_strings(["010", "010"]), [0, 1, 2]) == 0


def test_bad_sequences_name_the_argument():
    H = thresholds(3)
    for bad in ([3], [-1], [0, 1.0], [True], "01", 5, [[0]]):
        with pytest.raises(ValueError, match="sequence"):
            transductive_value(H, bad)
    with pytest.raises(ValueError, match="H must be a ConceptClass"):
        transductive_value(H.matrix, [0])


# -------------------------------------------------------------------------------------- learner
def play_against_target(H: ConceptClass, seq: list[int], target: int) -> int:
    learner = OptimalTransductiveLearner(H, seq)
    for t, x in enumerate(seq):
        assert learner.predict(t) in (0, 1)
        learner.update(int(H.matrix[target, x]))
        assert learner.version_space[target]
    return learner.mistakes


def play_against_the_value_maximiser(H: ConceptClass, seq: list[int]) -> int:
    """The adversary answers y_t maximising [y_t ≠ ŷ_t] + v(V^{y_t}, t + 1)."""
    learner = OptimalTransductiveLearner(H, seq)
    for _ in seq:
        guess = learner.predict()
        values = learner.branch_values()
        y = max(
            (b for b in (0, 1) if values[b] is not None),
            key=lambda b: int(b != guess) + values[b],
        )
        learner.update(y)
    return learner.mistakes


@settings(deadline=None, max_examples=100)
@given(sequences(max_hypotheses=30))
def test_optimal_learner_makes_at_most_v_and_the_maximiser_forces_exactly_v(case):
    matrix, seq = case
    H = ConceptClass(matrix)
    v = transductive_value(H, seq)
    assert OptimalTransductiveLearner(H, seq).remaining_value() == v
    assert max(play_against_target(H, seq, h) for h in range(H.n_hypotheses)) <= v
    assert play_against_the_value_maximiser(H, seq) == v


def test_learner_on_the_gadget():
    W = ConceptClass.from_strings(W_ROWS)
    for order in itertools.permutations(range(4)):
        v = transductive_value(W, order)
        assert play_against_the_value_maximiser(W, list(order)) == v <= 2


def test_learner_bad_input():
    H = thresholds(2)  # rows 00, 10, 11
    learner = OptimalTransductiveLearner(H, [0, 1])
    with pytest.raises(ValueError, match="t must be the current position 0"):
        learner.predict(1)
    with pytest.raises(ValueError, match="y must be 0 or 1"):
        learner.update(2)
    learner.update(0)  # V = {00}
    assert learner.predict(1) == 0
    with pytest.raises(ValueError, match="y=1 at position 1 is not realizable"):
        learner.update(1)
    learner.update(0)
    with pytest.raises(ValueError, match="past the end"):
        learner.predict()
    with pytest.raises(ValueError, match="sequence"):
        OptimalTransductiveLearner(H, [2])
