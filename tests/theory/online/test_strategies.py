"""The concept-class strategies: their draws are valid classes of the promised sizes, and the
refuting strategies refute false conjectures that the small-first strategy lets pass."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, seed, settings

from paper_checks.bench import _false_conjectures, _refutation_test
from theory.online.dims import littlestone_dim
from theory.online.mtr import transductive_mistake_bound
from theory.online.strategies import concept_classes, counterexample_classes, uniform_classes


@given(uniform_classes(1, 6))
def test_uniform_classes_are_valid_distinct_row_classes(H):
    rows = {tuple(r) for r in H.matrix.tolist()}
    assert len(rows) == H.n_hypotheses >= 1
    assert 1 <= H.n_points <= 6
    assert set(np.unique(H.matrix)) <= {0, 1}


@given(concept_classes(min_points=4, max_points=5, min_hypotheses=8))
def test_concept_classes_keep_their_size_bounds_without_retries(H):
    assert 4 <= H.n_points <= 5
    assert H.n_hypotheses >= 8
    assert len({tuple(r) for r in H.matrix.tolist()}) == H.n_hypotheses


@settings(max_examples=60)
@given(counterexample_classes())
def test_counterexample_classes_keep_the_proved_order(H):
    mtr, ldim = transductive_mistake_bound(H).value, littlestone_dim(H)
    assert mtr <= ldim <= math.floor(math.log2(H.n_hypotheses))


def test_uniform_classes_put_each_row_in_with_probability_one_half():
    from hypothesis import strategies as st

    sizes = []

    @seed(0)
    @settings(max_examples=300, database=None)
    @given(uniform_classes(4, 4), st.just(None))
    def record(H, _):
        sizes.append(H.n_hypotheses)

    record()
    # 16 candidate rows, each kept with probability 1/2: mean 8 (hypothesis adds some small
    # and some boundary draws, so only a loose band is promised)
    assert 5 < np.mean(sizes) < 11


@pytest.mark.parametrize("conjecture", list(_false_conjectures()))
def test_each_false_conjecture_is_refuted_by_the_refuting_strategy(conjecture):
    holds = _false_conjectures()[conjecture]
    for hyp_seed in (0, 1, 2):
        test, found = _refutation_test(counterexample_classes(), holds, hyp_seed)
        with pytest.raises(AssertionError):
            test()
        assert found
