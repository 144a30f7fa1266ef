"""The constants of the paper's two bounds (:mod:`theory.online.bounds`) settled by sympy:
exact algebra for the crossings of c·√d with BKM97's 2d/3, and sympy's sign decision for the
lower bound's (1 − ε)^n ≥ 1/2 (docs/online.md#bounds-from-the-paper-and-before-it).

:mod:`theory.online.bounds` computes both in floating point (the crossing) and in 60-digit mpmath
arithmetic (the lower bound); this module derives them without a working precision, so a test can
hold the numeric values to the exact ones (``tests/theory/online/test_bounds.py``). The claim
``online.bound_constants`` uses the numeric module.
"""

from __future__ import annotations

import sympy

__all__ = [
    "LEARNER_CONSTANTS_SYMBOLIC",
    "first_d_below_two_thirds_symbolic",
    "lower_bound_holds_symbolic",
]

#: The upper bound's constant c in c·√d as exact sympy numbers: the paper's 48 (Thm D.1) and
#: 48/log2(4/3) (Claim D.8's halving corrected to a factor 3/4 per learner mistake).
LEARNER_CONSTANTS_SYMBOLIC = {
    "48": sympy.Integer(48),
    "48/log2(4/3)": sympy.Integer(48) / sympy.log(sympy.Rational(4, 3), 2),
}


def first_d_below_two_thirds_symbolic(c: sympy.Expr | int) -> int:
    r"""The first integer d ≥ 1 with c·√d < 2d/3, solved by sympy over the reals.

    .. math:: \{d > 0 : c\sqrt d < 2d/3\} = \big((3c/2)^2, \infty\big),
              \qquad d^* = \lfloor (3c/2)^2 \rfloor + 1

    The solution set comes from ``sympy.solveset`` (not from the formula above, which it checks),
    and the floor of its end point is exact: for c = 48 the end point is the integer 5184, where
    c·√d = 2d/3 exactly, so d* = 5185; for c = 48/log2(4/3) it is 5184/log2(4/3)², so d* = 30095.

    Parameters
    ----------
    c : sympy expression or int
        A positive real constant (e.g. a value of :data:`LEARNER_CONSTANTS_SYMBOLIC`).

    Returns
    -------
    int
        d*.

    Examples
    --------
    >>> from theory.online.bounds_symbolic import first_d_below_two_thirds_symbolic
    >>> first_d_below_two_thirds_symbolic(48)  # the end point 5184 is an exact equality
    5185
    """
    c = sympy.sympify(c)
    if not (c.is_real and c.is_positive):
        raise ValueError(f"c must be a positive real number, got {c!r}")
    d = sympy.Symbol("d", positive=True)
    solutions = sympy.solveset(c * sympy.sqrt(d) < sympy.Rational(2, 3) * d, d, sympy.S.Reals)
    if not (isinstance(solutions, sympy.Interval) and solutions.sup is sympy.oo):
        raise ValueError(f"c = {c}: sympy found no half-line of solutions ({solutions})")
    return int(sympy.floor(solutions.inf)) + 1


def lower_bound_holds_symbolic(d: int) -> bool:
    r"""Whether (1 − ε)^n ≥ 1/2 at d (Thm B.1), decided by sympy on the exact expression.

    .. math:: \varepsilon = 2^{-\sqrt d/2},\quad n = (d + 1)\,2^{\sqrt d/10 + 1},\qquad
              (1 - \varepsilon)^n \ge \tfrac12 \iff n \log(1 - \varepsilon) + \log 2 \ge 0

    sympy evaluates the sign of the left side with as much precision as it needs (it cannot be 0
    here: n log(1 − ε) + log 2 = 0 at an integer d would make a transcendental identity); the
    numeric :func:`theory.online.bounds.lower_bound_holds` fixes 60 digits instead.

    Parameters
    ----------
    d : int
        d ≥ 1.

    Returns
    -------
    bool

    Examples
    --------
    >>> from theory.online.bounds_symbolic import lower_bound_holds_symbolic
    >>> lower_bound_holds_symbolic(1000)
    True
    """
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise ValueError(f"d must be an integer ≥ 1, got {d!r}")
    root = sympy.sqrt(d)
    eps = sympy.Integer(2) ** (-root / 2)
    n = (d + 1) * sympy.Integer(2) ** (root / 10 + 1)
    return bool(n * sympy.log(1 - eps) + sympy.log(2) >= 0)
