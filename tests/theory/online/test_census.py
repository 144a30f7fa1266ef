"""The exhaustive census of classes on up to 4 points
(docs/online.md#exact-values-the-checks-compare-with)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.naive import littlestone_dim_naive, mtr_bruteforce
from theory.online import ConceptClass
from theory.online.census import (
    CensusCounts,
    census,
    census5,
    census5_chunk,
    census5_values,
    class_rows,
    relabel,
)
from theory.online.dims import littlestone_dim
from theory.online.mtr import transductive_mistake_bound


def test_four_points_have_exactly_one_gap_in_2880_classes():
    table = census(4)
    assert sum(table.pairs().values()) == 65_535
    assert table.gaps() == {(3, 2): 2880}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_no_gap_on_three_points_or_fewer(n):
    assert census(n).gaps() == {}


def test_census_agrees_with_the_naive_oracles_on_every_three_point_class():
    table = census(3)
    for mask in range(1, 256):
        rows = [[int(c) for c in r] for r in table.class_rows(mask)]
        assert table.ldim[mask] == littlestone_dim_naive(rows)
        assert table.mtr[mask] == mtr_bruteforce(rows)


def test_census_rejects_big_domains():
    with pytest.raises(ValueError, match="n_points"):
        census(5)


# --------------------------------------------------------------------------- five points
def test_first_chunk_of_65536_is_the_four_point_census_embedded_with_point_4_at_0():
    # masks 1..65,535 use only the functions with bit 4 = 0: the 4-point classes, same masks
    four = census(4)
    counts = census5_chunk(0, 1 << 16)
    assert counts.classes == 65_535
    assert counts.counts == dict(sorted(four.pairs().items()))
    gaps = [int(m) for m in np.flatnonzero(four.mtr < four.ldim)]
    assert counts.smallest[(3, 2)] == min(gaps, key=lambda m: (m.bit_count(), m))


@pytest.mark.parametrize("shift", [0, 16])
def test_reduction_equals_the_four_point_census_on_both_embeddings(shift):
    four = census(4)
    ld, mt = census5_values(np.arange(1, 1 << 16, dtype=np.int64) << shift)
    np.testing.assert_array_equal(ld, four.ldim[1:])
    np.testing.assert_array_equal(mt, four.mtr[1:])


def test_reduction_agrees_with_the_naive_oracles_and_the_general_solvers_on_random_classes():
    rng = np.random.default_rng(20)
    masks = np.concatenate(
        [
            rng.integers(1, 1 << 32, size=25),  # typical classes: about 16 hypotheses
            [
                sum(1 << int(f) for f in rng.choice(32, size=k, replace=False))
                for k in (2, 3, 4, 5, 6, 8)
            ],
        ]
    ).astype(np.int64)
    ld, mt = census5_values(masks)
    for mask, l5, m5 in zip(masks, ld, mt, strict=True):
        rows = [[int(c) for c in r] for r in class_rows(int(mask), 5)]
        assert l5 == littlestone_dim_naive(rows)
        assert m5 == mtr_bruteforce(rows)
        H = ConceptClass.from_array(rows)
        assert (l5, m5) == (littlestone_dim(H), transductive_mistake_bound(H).value)


@settings(deadline=None, max_examples=200)
@given(
    mask=st.integers(1, (1 << 32) - 1),
    perm=st.permutations(range(5)),
    flip=st.integers(0, 31),
)
def test_ldim_and_mtr_are_invariant_under_point_permutations_and_column_flips(mask, perm, flip):
    moved = relabel(mask, 5, perm, flip)
    assert moved.bit_count() == mask.bit_count()
    ld, mt = census5_values(np.array([mask, moved], dtype=np.int64))
    assert (ld[0], mt[0]) == (ld[1], mt[1])


def test_chunk_counts_sum_to_the_chunk_and_keep_the_smallest_class_of_each_pair():
    # chunk 1 of 2^20: masks 4,096..8,191, small enough to recount one by one
    counts = census5_chunk(1, 1 << 20)
    masks = np.arange(4096, 8192, dtype=np.int64)
    ld, mt = census5_values(masks)
    assert counts.classes == 4096 == sum(counts.counts.values())
    assert counts.counts == dict(
        sorted(Counter(zip(ld.tolist(), mt.tolist(), strict=True)).items())
    )
    for pair, smallest in counts.smallest.items():
        members = [int(m) for m, a, b in zip(masks, ld, mt, strict=True) if (a, b) == pair]
        assert smallest == min(members, key=lambda m: (m.bit_count(), m))


def test_census5_merges_chunks_and_round_trips_through_json():
    both = census5([0, 1], n_chunks=1 << 20)
    assert both == census5_chunk(0, 1 << 20) + census5_chunk(1, 1 << 20)
    assert both.classes == 8191
    assert CensusCounts.from_dict(both.to_dict()) == both


def test_below_two_thirds_uses_exact_arithmetic():
    counts = CensusCounts(3, {(3, 2): 1, (4, 2): 1, (6, 3): 1}, {})
    assert counts.gaps() == {(3, 2): 1, (4, 2): 1, (6, 3): 1}
    assert counts.below_two_thirds() == {(4, 2): 1, (6, 3): 1}


def test_relabel_undoes_itself_with_the_inverse_map():
    mask, perm, flip = 0b1011_0110_0001, (2, 0, 1, 3), 0b0101
    inverse = [perm.index(x) for x in range(4)]
    flip_after = sum(((flip >> x) & 1) << perm[x] for x in range(4))
    assert relabel(relabel(mask, 4, perm, flip), 4, inverse, flip_after) == mask


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: census5_chunk(256, 256), "chunk"),
        (lambda: census5_chunk(0, 3), "n_chunks"),
        pytest.param(lambda: census5([0], n_chunks=3), "n_chunks", id="census5-n_chunks"),
        pytest.param(lambda: census5([4], n_chunks=4), "chunks", id="census5-chunk-range"),
        pytest.param(lambda: census5([1, 1], n_chunks=4), "chunks", id="census5-chunk-twice"),
        pytest.param(lambda: census5_values(np.array([0])), "masks", id="empty-class"),
        pytest.param(lambda: census5_values(np.array([1 << 32])), "masks", id="33-bits"),
        (lambda: relabel(1, 3, (0, 0, 1), 0), "perm"),
    ],
)
def test_five_point_census_rejects_bad_arguments_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()
