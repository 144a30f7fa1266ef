"""Slow, obviously correct oracles for the fast kernels (exact arithmetic, plain loops).

Grouped by paper; each oracle follows its paper's definition literally.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

# pass@k ----------------------------------------------------------------------------------------


def pass_at_k_fraction(n: int, c: int, k: int) -> Fraction:
    """1 - C(n-c, k) / C(n, k) exactly (Chen et al. 2021, eq. 1); C(m, k) = 0 for k > m."""
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def pass_at_k_plugin_fraction(n: int, c: int, k: int) -> Fraction:
    """1 - (1 - c/n)^k exactly."""
    return 1 - (1 - Fraction(c, n)) ** k


def pass_at_k_exact_naive(p: float, k: int) -> float:
    """1 - (1 - p)^k in plain floating point (inaccurate for tiny p)."""
    return 1.0 - (1.0 - p) ** k
