"""The bounds' constants (theory.online.bounds): Thm B.1's (1 − ε)^n ≥ 1/2 and the crossings of
c·√d with BKM97's 2d/3, numeric and held to the exact values (theory.online.bounds_symbolic)."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy

from theory.online.bounds import (
    LEARNER_CONSTANTS,
    first_d_below_two_thirds,
    lower_bound_holds,
    lower_bound_scan,
    paper_length_bound,
)
from theory.online.bounds_symbolic import (
    LEARNER_CONSTANTS_SYMBOLIC,
    first_d_below_two_thirds_symbolic,
    lower_bound_holds_symbolic,
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


# ------------------------------------------------------------------------ exact, by sympy
@pytest.mark.parametrize(
    ("name", "c"),
    [*LEARNER_CONSTANTS_SYMBOLIC.items(), ("115.7", sympy.Rational(1157, 10)), ("1", 1)],
)
def test_the_numeric_crossings_equal_the_exact_ones(name, c):
    numeric = LEARNER_CONSTANTS.get(name, float(c))
    assert first_d_below_two_thirds(numeric) == first_d_below_two_thirds_symbolic(c)


def test_the_exact_crossings_are_the_ones_the_claim_states():
    exact = {k: first_d_below_two_thirds_symbolic(c) for k, c in LEARNER_CONSTANTS_SYMBOLIC.items()}
    assert exact == {"48": 5185, "48/log2(4/3)": 30095}
    exact_c = float(LEARNER_CONSTANTS_SYMBOLIC["48/log2(4/3)"])  # sympy, to double precision
    assert LEARNER_CONSTANTS["48/log2(4/3)"] == pytest.approx(exact_c, rel=4e-16)  # 2 ulp
    # 48·√5184 = 2·5184/3 exactly: equality at the end point, strict inequality from 5185 on
    assert sympy.Integer(48) * sympy.sqrt(5184) == sympy.Rational(2, 3) * 5184


def test_sympy_decides_the_lower_bound_as_the_60_digit_scan_does_around_its_first_d():
    with mpmath.workdps(60):
        for d in [*range(768, 781), 1, 100, 800, 2000]:
            assert lower_bound_holds_symbolic(d) == lower_bound_holds(d, paper_length_bound), d
    assert not lower_bound_holds_symbolic(773)
    assert lower_bound_holds_symbolic(774)


@pytest.mark.parametrize(("function", "value", "name"), [
    (first_d_below_two_thirds_symbolic, 0, "c"),
    (first_d_below_two_thirds_symbolic, sympy.I, "c"),
    (lower_bound_holds_symbolic, 0, "d"),
    (lower_bound_holds_symbolic, 2.5, "d"),
])  # fmt: skip
def test_symbolic_bounds_refuse_bad_input(function, value, name):
    with pytest.raises(ValueError, match=name):
        function(value)
