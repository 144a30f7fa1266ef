"""The perfect-halving test (M_tr = log2 |H| exactly) and certified brackets beyond the DP."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.naive import mtr_bruteforce
from theory.online import ConceptClass, constructions
from theory.online.brackets import mtr_bracket, perfect_halving_order
from theory.online.mtr import transductive_mistake_bound
from theory.online.transductive import transductive_value


@st.composite
def power_of_two_classes(draw, max_points: int = 6):
    """2^k distinct hypotheses on n points, k ≤ n."""
    n = draw(st.integers(1, max_points))
    k = draw(st.integers(0, n))
    codes = draw(st.lists(st.integers(0, 2**n - 1), min_size=2**k, max_size=2**k, unique=True))
    return ConceptClass.from_array([[(c >> j) & 1 for j in range(n)] for c in codes]), k


@settings(deadline=None, max_examples=150)
@given(power_of_two_classes())
def test_perfect_halving_decides_mtr_equals_log2_h_like_the_brute_force(case):
    H, k = case
    result = perfect_halving_order(H)
    assert result.decided
    assert (result.order is not None) == (mtr_bruteforce(H.matrix) == k)
    if result.order is not None:
        assert sorted(result.order) == list(range(H.n_points))
        assert transductive_value(H, list(result.order)) == k


@pytest.mark.parametrize("d", [3, 4])
@pytest.mark.parametrize("q", [0.0, 0.1, 0.25])
def test_perfect_halving_agrees_with_the_dp_on_tree_classes(d, q):
    rng = np.random.default_rng(7)
    for _ in range(8):
        H = constructions.tree_class(d, q=q, rng=rng)
        result = perfect_halving_order(H)
        assert (result.order is not None) == (transductive_mistake_bound(H).value == d)


def test_the_gadget_w_has_no_perfect_halving_order():
    # |W| = 8 = 2^3 but M_tr(W) = 2 (docs/online.md#exact-values-the-checks-compare-with)
    result = perfect_halving_order(constructions.gadget_w())
    assert result.decided
    assert result.order is None


def test_perfect_halving_refuses_a_size_that_is_not_a_power_of_two():
    with pytest.raises(ValueError, match="H: perfect halving needs 2\\^k"):
        perfect_halving_order(constructions.thresholds(3).subclass([0, 1, 2]))


def test_perfect_halving_reports_an_exhausted_budget_as_undecided():
    result = perfect_halving_order(constructions.tree_class(4, q=0.25, rng=3), max_nodes=1)
    assert not result.decided
    assert result.order is None


def test_bracket_contains_the_exact_value_at_d4():
    rng = np.random.default_rng(11)
    for _ in range(6):
        H = constructions.tree_class(4, q=0.25, rng=rng)
        b = mtr_bracket(H, rng=0)
        assert b.lower <= transductive_mistake_bound(H).value <= b.upper
        assert b.exact


def test_minimal_tree_class_at_d5_closes_at_five():
    b = mtr_bracket(constructions.tree_class(5), rng=0)
    assert (b.lower, b.upper, b.ldim) == (5, 5, 5)
    assert transductive_value(constructions.tree_class(5), list(b.sequence)) == 5


def test_random_tree_class_at_d5_is_certified_below_ldim():
    H = constructions.tree_class(5, q=0.25, rng=1)
    b = mtr_bracket(H, rng=0)
    assert b.halving is not None
    assert b.halving.decided
    assert b.halving.order is None
    assert (b.lower, b.upper) == (4, 4)
    assert transductive_value(H, list(b.sequence)) == 4
