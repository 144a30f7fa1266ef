"""The exhaustive census of classes on up to 4 points (online.md §5)."""

from __future__ import annotations

import pytest

from tests.naive import littlestone_dim_naive, mtr_bruteforce
from theory.online.census import census


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
