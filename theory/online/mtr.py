"""The exact transductive mistake bound M_tr(H) by the suffix-set Pareto DP.

In the transductive game (docs/online.md#the-game-and-its-value) the adversary fixes a sequence, the
learner sees it, and the value of a fixed sequence is BKM97's tree rank v(H, x). Repeated points
pass through and appending points never lowers v, so M_tr(H) = max over orders π of X of v(H, π).
Enumerating the |X|! orders is the brute force (tests/naive.py); the DP below shares work between
orders (docs/online.md#how-the-solvers-compute, (B)):

* For a suffix set S ⊆ X, the version spaces reachable after the points outside S have been
  queried are the *cells*: the fibers of H over labelings of X ∖ S. They do not depend on the order
  in which X ∖ S was queried.
* For an order σ of S, the vector vec_σ[cell] = v(cell, σ) determines everything the prefix can
  make of it, and the final value is monotone in every coordinate (c is monotone). So for each S it
  suffices to keep the Pareto-maximal vectors over all orders of S.
* Prepending x to S gives, for each cell' of S ∪ {x}, vec'[cell'] = c(vec[cell' ∩ [x=0]],
  vec[cell' ∩ [x=1]]) when both halves are nonempty (c(a, b) = a + 1 if a = b else max(a, b)),
  else the nonempty half passes through. At S = X there is one cell, H: its best value is M_tr(H).

Vectors are stored per hypothesis (each hypothesis carries its cell's value, int8 since values are
≤ log2 |H|), so any |H| works; the points of a suffix set are a uint64 bitmask, which limits the exact
DP to :data:`MAX_POINTS` points after canonicalisation. A singleton cell always has value 0, so the
kernel groups the hypotheses of each S by hashing, prepends and filters compact vectors over the
non-singleton cells only, and tests dominance on their threshold bit-planes (see _mtr_numba.py).
Cost ≈ 2^|X| · (|H| + |X| · F · (C + F · P)) with F the front size (small in practice), C the
non-singleton cells and P the plane words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from theory.online._mtr_numba import collisions, dp_layer
from theory.online.concept_class import ConceptClass

__all__ = [
    "MAX_PERMUTATION_POINTS",
    "MAX_POINTS",
    "TransductiveBound",
    "mtr_by_permutations",
    "transductive_mistake_bound",
]

#: Largest number of canonical points the permutation brute force accepts (10! orders: seconds;
#: each point more multiplies the time by the number of points).
MAX_PERMUTATION_POINTS = 10
#: Largest number of canonical points the exact DP accepts (its tables take 33·2^n bytes, and
#: |H| bytes per stored vector: several GiB at 26 points).
MAX_POINTS = 26


@dataclass(frozen=True)
class TransductiveBound:
    """M_tr with its witness, as :func:`transductive_mistake_bound` returns it.

    ``sequence`` (column indices of the user's class, the order the adversary plays them) forces
    ``value`` mistakes against every learner: ``transductive_value(H, list(sequence)) == value``.
    Points not in the sequence are redundant (constant, or a copy or complement of a sequence
    point) and may be appended anywhere without changing the value.

    >>> from theory.online.constructions import thresholds
    >>> from theory.online.mtr import transductive_mistake_bound
    >>> from theory.online.transductive import transductive_value
    >>> H = thresholds(4)  # 5 threshold functions on 4 points
    >>> bound = transductive_mistake_bound(H)
    >>> bound.value, bound.exact
    (2, True)
    >>> transductive_value(H, list(bound.sequence)) == bound.value
    True
    """

    #: M_tr(H) (or M_tr(H, n) for a given n): mistakes forced against every learner.
    value: int
    #: Column indices of the user's class, in the order the adversary plays them;
    #: ``transductive_value(H, sequence) == value``.
    sequence: tuple[int, ...]
    #: True: the value is exact, not a bound (every constructor in this module solves exactly).
    exact: bool
    #: Largest Pareto front the DP kept for one suffix set (a cost diagnostic; 0 from
    #: ``mtr_by_permutations``).
    pareto_front_max: int


def _row_masks(matrix: np.ndarray) -> np.ndarray:
    """Each hypothesis as a uint64 bitmask over points (bit j = label at point j)."""
    weights = np.uint64(1) << np.arange(matrix.shape[1], dtype=np.uint64)
    return (matrix.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)


def _solve_canonical(
    matrix: np.ndarray, progress: Callable[[int, int], None] | None = None
) -> tuple[int, list[int], int]:
    """The DP on a canonical matrix: (value, optimal order of its columns, largest front);
    ``progress(k, n)`` is called after each layer (subsets of size k) and may raise to stop."""
    n_h, n = matrix.shape
    if n == 0 or n_h <= 1:
        return 0, list(range(n)), 1
    rows = _row_masks(matrix)
    size = 1 << n
    # (start, count) of each mask's front; layer k reads the rows of size k − 1 and writes those of
    # size k, so two buffers alternate and are never cleared: at the end the two hold every
    # mask's front size (a row is only written in the layer of its mask's size)
    prev_index = np.zeros((size, 2), dtype=np.int64)
    index = np.zeros((size, 2), dtype=np.int64)
    prev_index[0, 1] = 1
    has = collisions(rows, n)
    prev_vecs = np.zeros((1, n_h), dtype=np.int8)  # S = ∅: cells are single hypotheses, v = 0
    parents = []
    for k in range(1, n + 1):
        vecs, parent_x, parent_i = dp_layer(rows, n, k, has, prev_index, prev_vecs, index)
        parents.append((parent_x, parent_i))
        prev_index, index, prev_vecs = index, prev_index, vecs
        if progress is not None:
            progress(k, n)
    front_max = int(max(index[:, 1].max(), prev_index[:, 1].max()))
    best = int(np.argmax(prev_vecs[:, 0]))
    value = int(prev_vecs[best, 0])
    order, i = [], best
    for parent_x, parent_i in reversed(parents):  # from S = X down to S = ∅: first point first
        order.append(int(parent_x[i]))
        i = int(parent_i[i])
    return value, order, front_max


def transductive_mistake_bound(
    H: ConceptClass, n: int | None = None, *, progress: Callable[[int, int], None] | None = None
) -> TransductiveBound:
    """Exact M_tr(H, n) = max over sequences of length n of the transductive value (BKM97),
    with an optimal sequence; ``n=None`` gives M_tr(H) = sup_n M_tr(H, n).

    The class is first canonicalised losslessly (constant columns dropped, identical or
    complementary columns merged, duplicate hypotheses removed). For n shorter than the canonical
    domain, M_tr(H, n) = max over n-point subsets S of M_tr(H restricted to S) (injective sequences
    suffice: docs/online.md#the-game-and-its-value).

    Raises ValueError if the canonical class has more than :data:`MAX_POINTS` points (use
    :func:`theory.online.certificates.mtr_lower_bound` for a certified lower bound instead).
    ``progress(k, n)``, if given, is called after each of the DP's n layers (it may raise to stop
    the solve).

    Parameters
    ----------
    H : ConceptClass
        The class.
    n : int, optional
        The sequence length (None: unbounded).
    progress : callable, optional
        ``progress(k, n)`` after each layer of the DP.

    Returns
    -------
    TransductiveBound
        M_tr(H, n), an optimal sequence, whether it is exact and the largest Pareto front met.

    Raises
    ------
    ValueError
        If the canonical class has more than ``MAX_POINTS`` points, or ``n`` is not an integer
        ≥ 0.

    Examples
    --------
    >>> from theory.online.constructions import gadget_w
    >>> from theory.online.mtr import transductive_mistake_bound
    >>> bound = transductive_mistake_bound(gadget_w())
    >>> bound.value, bound.sequence, bound.exact
    (2, (0, 1, 2, 3), True)
    >>> transductive_mistake_bound(gadget_w(), 2).value  # two points already force 2
    2
    """
    if not isinstance(H, ConceptClass):
        raise ValueError(f"H must be a ConceptClass (got {type(H).__name__})")  # noqa: TRY004
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable or None (got {progress!r})")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0):
        raise ValueError(f"n must be a non-negative integer or None (got {n!r})")
    canon, keep = H.canonical()
    m = canon.n_points
    if m > MAX_POINTS:
        raise ValueError(
            f"the class has {m} distinct non-constant points after canonicalisation; the exact DP "
            f"handles at most {MAX_POINTS}"
        )
    if n is None or n >= m:
        value, order, front = _solve_canonical(canon.matrix, progress)
        return TransductiveBound(value, tuple(int(keep[j]) for j in order), True, front)
    best = TransductiveBound(0, (), True, 1)
    for subset in combinations(range(m), n):
        sub = np.unique(canon.matrix[:, list(subset)], axis=0)
        value, order, front = _solve_canonical(sub, progress)
        if value > best.value or not best.sequence:
            best = TransductiveBound(value, tuple(int(keep[subset[j]]) for j in order), True, front)
    return best


def mtr_by_permutations(H: ConceptClass) -> TransductiveBound:
    """M_tr(H) by enumerating every order of the canonical points and scoring each with
    :func:`theory.online.transductive.transductive_value` (method (A) of
    docs/online.md#how-the-solvers-compute). Exponential
    (|X|!): the baseline the DP is benchmarked and tested against.

    Parameters
    ----------
    H : ConceptClass
        The class (a few canonical points: |X|! orders).

    Returns
    -------
    TransductiveBound
        M_tr(H) and an optimal order.

    Examples
    --------
    >>> from theory.online.constructions import gadget_w
    >>> from theory.online.mtr import mtr_by_permutations
    >>> bound = mtr_by_permutations(gadget_w())
    >>> bound.value, bound.sequence
    (2, (0, 1, 2, 3))
    """
    from itertools import permutations

    from theory.online.transductive import transductive_value

    if not isinstance(H, ConceptClass):
        raise ValueError(f"H must be a ConceptClass (got {type(H).__name__})")  # noqa: TRY004
    canon, keep = H.canonical()
    if canon.n_points > MAX_PERMUTATION_POINTS:
        raise ValueError(
            f"H has {canon.n_points} canonical points: the brute force tries {canon.n_points}! "
            f"orders and takes at most {MAX_PERMUTATION_POINTS} (use transductive_mistake_bound)"
        )
    best_value, best_order = 0, tuple(range(canon.n_points))
    for order in permutations(range(canon.n_points)):
        value = transductive_value(canon, list(order))
        if value > best_value:
            best_value, best_order = value, order
    return TransductiveBound(best_value, tuple(int(keep[j]) for j in best_order), True, 0)
