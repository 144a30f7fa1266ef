"""The constants of the paper's two bounds, evaluated exactly (Chase, Hanneke, Moran, Shafer,
NeurIPS 2025, arXiv 2512.12567; restated in docs/online.md#bounds-from-the-paper-and-before-it).

* Lower bound (Thm B.1): the potential argument needs (1 − ε)^n ≥ 1/2 with ε = 2^{−√d/2} and
  n = n_d = (d + 1)·2^{√d/10 + 1}, the length of CONSTRUCTSEQUENCE with M = √d/10 (Claim B.3).
  The paper asserts it for d ≥ 800; :func:`lower_bound_scan` finds the first d, in 60-digit
  arithmetic (docs/online.md#the-adversary-lower-bound).
* Upper bound (Thm D.1): c·√d mistakes with c = 48, or c = 48/log2(4/3) ≈ 115.7 once Claim D.8's
  halving is corrected to a factor 3/4 (docs/online.md#the-learner-and-its-class-upper-bound);
  :func:`first_d_below_two_thirds` gives the first d where c·√d < 2d/3 (BKM97's class).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import numpy as np

from theory import _domain

__all__ = [
    "LEARNER_CONSTANTS",
    "LowerBoundScan",
    "first_d_below_two_thirds",
    "lower_bound_holds",
    "lower_bound_scan",
    "paper_length_bound",
]

#: The upper bound's constant c in c·√d: the paper's 48 (Thm D.1) and 48/log2(4/3) with the factor
#: 3/4 per learner mistake instead of Claim D.8's 1/2.
LEARNER_CONSTANTS = {"48": 48.0, "48/log2(4/3)": 48.0 / math.log2(4.0 / 3.0)}


def paper_length_bound(d: int) -> mpmath.mpf:
    """n_d = (d + 1)·2^{√d/10 + 1}: the sequence length of CONSTRUCTSEQUENCE with M = √d/10
    (Claim B.3).

    Parameters
    ----------
    d : int
        d ≥ 1.

    Returns
    -------
    mpmath.mpf
        n_d.

    Raises
    ------
    ValueError
        Unless ``d`` is a positive integer.

    Examples
    --------
    >>> from theory.online.bounds import paper_length_bound
    >>> paper_length_bound(100)  # 101·2^2
    mpf('404.0')
    """
    d = _domain.integer("d", d, minimum=1)
    return (d + 1) * mpmath.power(2, mpmath.sqrt(d) / 10 + 1)


def lower_bound_holds(d: int, length_bound: Callable[[int], mpmath.mpf]) -> bool:
    """(1 − ε)^n ≥ 1/2 with ε = 2^{−√d/2} (Thm B.1) and n = ``length_bound(d)``, tested as
    n·log(1 − ε) ≥ −log 2 at mpmath's working precision.

    Parameters
    ----------
    d : int
        d ≥ 1.
    length_bound : callable
        d → n, an mpmath number (e.g. :func:`paper_length_bound`).

    Returns
    -------
    bool
        Whether (1 − ε)^n ≥ 1/2.

    Raises
    ------
    ValueError
        Unless ``d`` is a positive integer.

    Examples
    --------
    >>> from theory.online.bounds import lower_bound_holds, paper_length_bound
    >>> lower_bound_holds(100, paper_length_bound), lower_bound_holds(10_000, paper_length_bound)
    (False, True)
    """
    d = _domain.integer("d", d, minimum=1)
    eps = mpmath.power(2, -mpmath.sqrt(d) / 2)
    return length_bound(d) * mpmath.log1p(-eps) >= -mpmath.log(2)


@dataclass(frozen=True)
class LowerBoundScan:
    """Where (1 − ε)^n ≥ 1/2 holds: ``holds[d − 1]`` for d = 1..2000, ``first`` the first such d
    (None if none), ``stays`` whether it holds at every d ≥ first scanned (every d to 2000, then
    every 97th d to ``d_max``)."""

    #: ``holds[d − 1]``: whether (1 − ε)^n ≥ 1/2 at d, for d = 1..2000 (bool array).
    holds: np.ndarray
    #: The first d at which it holds (None if none up to 2000).
    first: int | None
    #: Whether it holds at every d ≥ ``first`` scanned (every d to 2000, then every 97th d).
    stays: bool


def lower_bound_scan(
    d_max: int, length_bound: Callable[[int], mpmath.mpf] = paper_length_bound
) -> LowerBoundScan:
    """Scan :func:`lower_bound_holds` in 60-digit arithmetic: every d = 1..2000, then every 97th
    d from 2001 to ``d_max`` (only when it holds from ``first`` to 2000).

    Parameters
    ----------
    d_max : int
        The largest d scanned.
    length_bound : callable
        d → n (default :func:`paper_length_bound`).

    Returns
    -------
    LowerBoundScan
        Whether it holds at each d ≤ 2000, the first d from which it holds, and whether it holds
        at every d scanned from there.

    Raises
    ------
    ValueError
        Unless ``d_max`` is a positive integer.

    Examples
    --------
    >>> from theory.online.bounds import lower_bound_scan
    >>> scan = lower_bound_scan(2000)
    >>> scan.first, scan.stays  # the paper states d ≥ 800
    (774, True)
    """
    d_max = _domain.integer("d_max", d_max, minimum=1)
    with mpmath.workdps(60):
        holds = np.array([lower_bound_holds(d, length_bound) for d in range(1, 2001)])
        first = int(np.argmax(holds)) + 1 if holds.any() else None
        stays = (
            first is not None
            and bool(holds[first - 1 :].all())
            and all(lower_bound_holds(d, length_bound) for d in range(2001, d_max + 1, 97))
        )
    return LowerBoundScan(holds, first, stays)


def first_d_below_two_thirds(c: float) -> int:
    """The first integer d with c·√d < 2d/3, i.e. d > (3c/2)²: ⌊(1.5·c)²⌋ + 1.

    Parameters
    ----------
    c : float
        The constant c > 0 of a c·√d bound.

    Returns
    -------
    int
        d*.

    Raises
    ------
    ValueError
        Unless ``c`` is finite and positive (and (1.5·c)² a finite float).

    Examples
    --------
    >>> from theory.online.bounds import first_d_below_two_thirds
    >>> first_d_below_two_thirds(48)  # 48√d < 2d/3 from d = 5185
    5185
    """
    c = _domain.real(
        "c", c, minimum=0.0, maximum=math.sqrt(np.finfo(float).max) / 1.5, open_low=True
    )
    return math.floor((1.5 * c) ** 2) + 1
