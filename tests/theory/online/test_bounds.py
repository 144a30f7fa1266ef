"""The bounds' constants (theory.online.bounds): Thm B.1's (1 − ε)^n ≥ 1/2 and the crossings of
c·√d with BKM97's 2d/3."""

from __future__ import annotations

import math

import mpmath
import pytest

from theory.online.bounds import (
    LEARNER_CONSTANTS,
    first_d_below_two_thirds,
    lower_bound_holds,
    lower_bound_scan,
    paper_length_bound,
)


def test_paper_length_bound_is_claim_b3s_length():
    # d = 100: (d + 1)·2^{√d/10 + 1} = 101·2^2
    assert paper_length_bound(100) == 404
    assert paper_length_bound(400) == 401 * 2**3


def test_the_lower_bounds_inequality_first_holds_at_774_and_keeps_holding():
    scan = lower_bound_scan(5_000)
    assert scan.first == 774
    assert scan.stays
    assert not scan.holds[772]
    assert scan.holds[773]
    assert scan.holds.size == 2000


def test_a_longer_sequence_moves_the_first_d_up():
    # M = √d/9 instead of √d/10: n grows, (1 − ε)^n shrinks, so the inequality needs a larger d
    def longer(d):
        return (d + 1) * mpmath.power(2, mpmath.sqrt(d) / 9 + 1)

    scan = lower_bound_scan(2_000, longer)
    assert scan.first is not None
    assert scan.first > 800
    with mpmath.workdps(60):
        assert lower_bound_holds(scan.first, longer)
        assert not lower_bound_holds(scan.first - 1, longer)


def test_no_d_satisfies_an_impossible_length():
    scan = lower_bound_scan(2_000, lambda d: mpmath.mpf(10) ** 100)
    assert scan.first is None
    assert not scan.stays
    assert not scan.holds.any()


@pytest.mark.parametrize("c", [48.0, 115.7, LEARNER_CONSTANTS["48/log2(4/3)"], 1.0, 10.0])
def test_first_d_below_two_thirds_is_the_first_strict_crossing(c):
    d = first_d_below_two_thirds(c)
    assert c * math.sqrt(d) < 2 * d / 3
    assert not c * math.sqrt(d - 1) < 2 * (d - 1) / 3


def test_the_papers_crossings():
    # 48·√5184 = 3456 = 2·5184/3 exactly, so 5185 is the first d strictly below
    assert first_d_below_two_thirds(48.0) == 5185
    assert first_d_below_two_thirds(115.7) == 30120
    assert LEARNER_CONSTANTS["48/log2(4/3)"] == pytest.approx(115.65, abs=0.01)
