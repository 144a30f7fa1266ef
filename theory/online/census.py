"""Exhaustive census of every concept class on a tiny domain
(docs/online.md#exact-values-the-checks-compare-with).

On n ≤ 4 points there are 2^n functions and 2^(2^n) − 1 nonempty classes (65,535 for n = 4). A
class is a bitmask over the functions, so version spaces are bitmasks too and both quantities can be
tabulated for *all* classes at once, bottom-up:

* Ldim: L(∅) = −1, L({h}) = 0, L(V) = max over x splitting V of 1 + min(L(V ∩ [x=0]), L(V ∩ [x=1]))
  (Littlestone 1987), filled in order of |V|.
* M_tr: for every order σ of the n points, v(V, σ_t..σ_n) is one vectorised pass per position
  (BKM97: pass-through when x splits nothing, else c(v0, v1), c(a, b) = a + 1 if a = b else
  max(a, b)); M_tr(V) = max over the n! orders (orders of X suffice:
  docs/online.md#the-game-and-its-value).

This is independent of the general solvers (bitset recursion, suffix-set DP), so it cross-checks
them.

On 5 points (2^32 − 1 classes) a table no longer fits, but every class reduces exactly to the
4-point tables at its first point (:func:`census5_values`, with the proof): :func:`census5_chunk`
counts (Ldim, M_tr) over one slice of the masks, :func:`census5` over many, and the sweep task
:func:`sims.online_sweeps.census5_task` runs the slices resumably and in parallel.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

import numpy as np

from theory import _domain as _checks

__all__ = [
    "FIVE_POINT_CHUNKS",
    "FIVE_POINT_CLASSES",
    "MAX_CENSUS_POINTS",
    "Census",
    "CensusCounts",
    "census",
    "census5",
    "census5_chunk",
    "census5_values",
    "class_rows",
    "order_values",
    "relabel",
]

MAX_CENSUS_POINTS = 4


@dataclass(frozen=True)
class Census:
    """Ldim and M_tr of every class on ``n_points`` points; index = class bitmask over the 2^n
    functions (bit f set: function f, whose label at point x is bit x of f, is in the class)."""

    #: Points n of the domain (2^n functions, 2^(2^n) classes).
    n_points: int
    #: (2^(2^n),) int8, −1 for the empty class
    ldim: np.ndarray
    #: (2^(2^n),) int8
    mtr: np.ndarray

    def pairs(self) -> Counter[tuple[int, int]]:
        """Counts of (Ldim, M_tr) over the nonempty classes."""
        return Counter(zip(self.ldim[1:].tolist(), self.mtr[1:].tolist(), strict=True))

    def gaps(self) -> dict[tuple[int, int], int]:
        """Counts of the pairs with M_tr < Ldim."""
        return {pair: n for pair, n in sorted(self.pairs().items()) if pair[1] < pair[0]}

    def class_rows(self, mask: int) -> list[str]:
        """The hypotheses of class ``mask`` as 0/1 strings over points 0..n−1."""
        return class_rows(mask, self.n_points)


#: Largest domain :func:`class_rows` and :func:`relabel` take: a class is a bitmask over the
#: 2^n_points functions on its points.
MAX_MASK_POINTS = 16


def class_rows(mask: int, n_points: int) -> list[str]:
    """The hypotheses of the class ``mask`` on ``n_points`` points as 0/1 strings over points
    0..n−1 (function f labels point x with bit x of f).

    Parameters
    ----------
    mask : int
        The class as a bitmask over the 2^n functions.
    n_points : int
        Points.

    Returns
    -------
    list of str
        One row per function of the class, in increasing f.

    Examples
    --------
    >>> from theory.online.census import class_rows
    >>> class_rows(0b0110, 2)  # functions 1 and 2
    ['10', '01']
    """
    _checks.class_mask(mask, n_points, MAX_MASK_POINTS)
    return [
        "".join(str((f >> x) & 1) for x in range(n_points))
        for f in range(1 << n_points)
        if (mask >> f) & 1
    ]


def _popcount(a: np.ndarray) -> np.ndarray:
    return np.bitwise_count(a)


def _domain(n_points: int) -> tuple[np.ndarray, list[int], np.ndarray]:
    """(every class bitmask, per point x the mask of the functions with label 1 at x, |class|)."""
    if (
        isinstance(n_points, bool)
        or not isinstance(n_points, int)
        or not 1 <= n_points <= MAX_CENSUS_POINTS
    ):
        raise ValueError(
            f"n_points must be an integer in 1..{MAX_CENSUS_POINTS} (got {n_points!r})"
        )
    n_funcs = 1 << n_points
    classes = np.arange(1 << n_funcs, dtype=np.int64)
    ones = [sum(1 << f for f in range(n_funcs) if (f >> x) & 1) for x in range(n_points)]
    return classes, ones, _popcount(classes)


def census(n_points: int) -> Census:
    """Tabulate Ldim and M_tr for every class on ``n_points`` (1..4) points.

    Parameters
    ----------
    n_points : int
        Points, 1..4.

    Returns
    -------
    Census
        Ldim and M_tr of every class, by bitmask.

    Examples
    --------
    >>> from theory.online.census import census
    >>> table = census(2)
    >>> sorted(table.pairs().items()), table.gaps()  # 15 classes on 2 points, no gap
    ([((0, 0), 4), ((1, 1), 10), ((2, 2), 1)], {})
    """
    classes, ones, size = _domain(n_points)
    n_funcs = 1 << n_points

    ldim = np.full(classes.size, -1, dtype=np.int8)
    ldim[size == 1] = 0
    for k in range(2, n_funcs + 1):
        layer = classes[size == k]
        best = np.zeros(layer.size, dtype=np.int8)
        for one in ones:
            v1, v0 = layer & one, layer & ~one & ((1 << n_funcs) - 1)
            splits = (v1 != 0) & (v0 != 0)
            value = 1 + np.minimum(ldim[v1], ldim[v0])
            best = np.where(splits, np.maximum(best, value), best)
        ldim[layer] = best

    return Census(n_points, ldim, order_values(n_points).max(axis=0))


def order_values(n_points: int) -> np.ndarray:
    """v(V, σ) for every order σ of the ``n_points`` (1..4) points (rows, in the order of
    ``itertools.permutations(range(n_points))``) and every class V (columns, by bitmask).

    Filled from the last point of σ backwards: v = 0 after the last point and on |V| ≤ 1; at point
    x, v = c(v(V ∩ [x=0]), v(V ∩ [x=1])) when x splits V, else v(V) passes through (BKM97;
    docs/online.md#the-game-and-its-value).

    Parameters
    ----------
    n_points : int
        Points, 1..4.

    Returns
    -------
    numpy.ndarray of int8, (n_points!, 2^(2^n_points))
        v(V, σ).

    Examples
    --------
    >>> from theory.online.census import order_values
    >>> values = order_values(2)
    >>> values.shape, int(values[:, 0b1111].max())  # all 4 functions on 2 points: v = 2
    ((2, 16), 2)
    """
    classes, ones, size = _domain(n_points)
    full = (1 << (1 << n_points)) - 1
    orders = list(permutations(range(n_points)))
    out = np.empty((len(orders), classes.size), dtype=np.int8)
    for i, order in enumerate(orders):
        value = np.zeros(classes.size, dtype=np.int8)  # after the last point: v = 0
        for x in reversed(order):
            v1, v0 = classes & ones[x], classes & ~ones[x] & full
            a, b = value[v1], value[v0]
            combined = np.where(a == b, a + 1, np.maximum(a, b)).astype(np.int8)
            splits = (v1 != 0) & (v0 != 0)
            value = np.where(splits, combined, value)
            value[size <= 1] = 0
        out[i] = value
    return out


# ------------------------------------------------------------------------------ five points
#: The 2^32 masks of the 5-point census are cut into this many equal chunks (sweep tasks).
FIVE_POINT_CHUNKS = 256
FIVE_POINT_CLASSES = (1 << 32) - 1


def _drop_point(f: int, x: int) -> int:
    """The 4-point function left when point x is removed from the 5-point function f (the
    points above x move down by one)."""
    return (f & ((1 << x) - 1)) | ((f >> (x + 1)) << x)


@lru_cache(maxsize=1)
def _five_point_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Ldim of every 4-point class, its value under each of the 24 orders as a (65,536, 24)
    table, the byte projection table proj[x, b, j, byte]; see :func:`census5_values`)."""
    four = census(4)
    values4 = np.ascontiguousarray(order_values(4).T)
    proj = np.zeros((5, 2, 4, 256), dtype=np.int64)
    for x in range(5):
        for j in range(4):
            for byte in range(256):
                for i in range(8):
                    if (byte >> i) & 1:
                        f = 8 * j + i
                        proj[x, (f >> x) & 1, j, byte] |= 1 << _drop_point(f, x)
    return four.ldim, values4, proj


def census5_values(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Ldim, M_tr) of 5-point classes given as bitmasks over the 32 functions (bit f set: the
    function labelling point x with bit x of f is in the class), exactly, from the 4-point tables.

    The reduction. Write H_x^b = H ∩ [x = b] and π_x for dropping point x (:func:`_drop_point`).
    On H_x^b the point x is constant, so it splits no sub-version-space: it never contributes to
    Ldim, and in any order it passes through; π_x is injective on H_x^b (two hypotheses equal off
    x are equal), so π_x(H_x^b) is a 4-point class with the same version-space tree. Hence
    Ldim(H_x^b) = L4[π_x H_x^b] and v(H_x^b, σ) = V4_σ[π_x H_x^b] for every order σ of the other
    four points (relabelled 0..3 in increasing order; the same relabelling on both sides, so as σ
    runs over the 24 orders, x·σ runs over the orders of X that start with x). With one order's
    recursion at its first point and M_tr = max over the 5! orders x·σ (orders of X suffice,
    docs/online.md#the-game-and-its-value):

      Ldim(H) = max over x splitting H of 1 + min(L4[π_x H_x^0], L4[π_x H_x^1])  (0 if |H| = 1)
      M_tr(H) = max over x and the 24 orders σ of v(H, x·σ), where
      v(H, x·σ) = c(V4_σ[π_x H_x^0], V4_σ[π_x H_x^1]) if x splits H, else V4_σ[π_x H],

    c(a, b) = a + 1 if a = b else max(a, b) (BKM97) and v = 0 on |H| = 1, as in :func:`census`.
    No symmetry is used: every mask is solved on its own.

    Parameters
    ----------
    masks : numpy.ndarray of uint64
        Classes as bitmasks over the 32 functions of 5 points, nonzero.

    Returns
    -------
    ldim, mtr : numpy.ndarray of int8
        Ldim and M_tr of each class.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.online.census import census5_values
    >>> ldim, mtr = census5_values(np.array([1, 3, 2**32 - 1], dtype=np.uint64))
    >>> ldim.tolist(), mtr.tolist()  # one function, two, all 32
    ([0, 1, 5], [0, 1, 5])
    """
    if not np.issubdtype(np.asarray(masks).dtype, np.integer):
        raise ValueError(f"masks must be integers (got dtype {np.asarray(masks).dtype})")
    masks = np.asarray(masks, dtype=np.int64)
    if masks.size and (masks.min() < 1 or masks.max() > FIVE_POINT_CLASSES):
        raise ValueError(f"masks must lie in 1..2^32 − 1 (got {masks.min()}..{masks.max()})")
    from theory.online._census_numba import solve5_many

    return solve5_many(masks.ravel(), *_five_point_tables())


@dataclass(frozen=True)
class CensusCounts:
    """Counts of (Ldim, M_tr) over a set of 5-point classes, and per pair its smallest class
    (fewest hypotheses, then smallest mask)."""

    #: the number of classes counted
    classes: int
    #: (Ldim, M_tr) -> the number of classes with that pair.
    counts: dict[tuple[int, int], int]
    #: (Ldim, M_tr) -> its smallest class (fewest hypotheses, then smallest mask), as a mask.
    smallest: dict[tuple[int, int], int]

    def gaps(self) -> dict[tuple[int, int], int]:
        """Counts of the pairs with M_tr < Ldim."""
        return {pair: n for pair, n in sorted(self.counts.items()) if pair[1] < pair[0]}

    def below_two_thirds(self) -> dict[tuple[int, int], int]:
        """Counts of the pairs with M_tr < (2/3)·Ldim (3·M_tr < 2·Ldim)."""
        return {p: n for p, n in sorted(self.counts.items()) if 3 * p[1] < 2 * p[0]}

    def __add__(self, other: CensusCounts) -> CensusCounts:
        counts = Counter(self.counts) + Counter(other.counts)
        smallest = dict(self.smallest)
        for pair, mask in other.smallest.items():
            if pair not in smallest or _size_key(mask) < _size_key(smallest[pair]):
                smallest[pair] = mask
        return CensusCounts(self.classes + other.classes, dict(sorted(counts.items())), smallest)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (pairs as "Ldim,M_tr" keys); inverse of :meth:`from_dict`."""
        return {
            "classes": self.classes,
            "counts": {f"{a},{b}": n for (a, b), n in self.counts.items()},
            "smallest": {f"{a},{b}": m for (a, b), m in self.smallest.items()},
        }

    @classmethod
    def from_dict(cls, data: dict) -> CensusCounts:
        def pair(key: str) -> tuple[int, int]:
            a, b = key.split(",")
            return int(a), int(b)

        return cls(
            int(data["classes"]),
            {pair(k): int(n) for k, n in data["counts"].items()},
            {pair(k): int(m) for k, m in data["smallest"].items()},
        )


def _size_key(mask: int) -> tuple[int, int]:
    return (int(mask).bit_count(), int(mask))


def census5_chunk(chunk: int, n_chunks: int = FIVE_POINT_CHUNKS) -> CensusCounts:
    """The census of the masks in chunk ``chunk`` of ``n_chunks`` equal slices of 0..2^32 − 1
    (mask 0, the empty class, skipped), by :func:`census5_values`' reduction.

    Parameters
    ----------
    chunk : int
        The slice, in [0, n_chunks).
    n_chunks : int
        The number of equal slices.

    Returns
    -------
    CensusCounts
        (Ldim, M_tr) counts over the slice and the smallest class of each pair.

    Examples
    --------
    >>> from theory.online.census import census5_chunk
    >>> counts = census5_chunk(0, n_chunks=2**20)
    >>> counts.classes, sorted(counts.counts)
    (4095, [(0, 0), (1, 1), (2, 2), (3, 2), (3, 3)])
    """
    if (
        isinstance(n_chunks, bool)
        or not isinstance(n_chunks, int)
        or n_chunks < 1
        or (1 << 32) % n_chunks
    ):
        raise ValueError(f"n_chunks must be a power of two ≤ 2^32 (got {n_chunks!r})")
    if isinstance(chunk, bool) or not isinstance(chunk, int) or not 0 <= chunk < n_chunks:
        raise ValueError(f"chunk must be an integer in 0..{n_chunks - 1} (got {chunk!r})")
    from theory.online._census_numba import count5

    width = (1 << 32) // n_chunks
    lo, hi = chunk * width, (chunk + 1) * width
    counts, smallest = count5(lo, hi, *_five_point_tables())
    pairs = [(a, b) for a in range(6) for b in range(6) if counts[a, b]]
    return CensusCounts(
        hi - max(lo, 1),
        {p: int(counts[p]) for p in pairs},
        {p: int(smallest[p]) for p in pairs},
    )


def census5(chunks: Iterable[int] | None = None, n_chunks: int = FIVE_POINT_CHUNKS) -> CensusCounts:
    """The 5-point census over the given chunks (all ``n_chunks`` by default: every one of the
    2^32 − 1 nonempty classes), in this process. For a resumable, parallel run use the sweep
    task :func:`sims.online_sweeps.census5_task`.

    Parameters
    ----------
    chunks : iterable of int, optional
        The chunks (default all).
    n_chunks : int
        The number of equal slices of the masks.

    Returns
    -------
    CensusCounts
        (Ldim, M_tr) counts over the chunks and the smallest class of each pair (no classes
        when ``chunks`` is empty).

    Raises
    ------
    ValueError
        Naming ``n_chunks`` unless it is an integer power of two ≤ 2^32, or ``chunks`` unless
        it is an iterable of distinct integers in 0..n_chunks − 1.

    Examples
    --------
    >>> from theory.online.census import census5
    >>> counts = census5([0], n_chunks=2**20)  # the first 4,095 classes
    >>> counts.classes, counts.counts[(3, 2)]
    (4095, 76)
    """
    n_chunks = _checks.integer("n_chunks", n_chunks, minimum=1, maximum=1 << 32)
    if (1 << 32) % n_chunks:
        raise ValueError(f"n_chunks must be a power of two ≤ 2^32 (got {n_chunks!r})")
    if chunks is None:
        chunks = range(n_chunks)
    else:
        try:
            given = None if isinstance(chunks, str | bytes) else list(chunks)
        except TypeError:  # not iterable (a number, a 0-d array)
            given = None
        if given is None:
            raise ValueError(f"chunks must be an iterable of integers (got {chunks!r})")
        chunks, seen = [], set()
        for c in given:
            chunk = _checks.integer("chunks (every entry)", c, minimum=0, maximum=n_chunks - 1)
            if chunk in seen:
                raise ValueError(f"chunks must be distinct (got chunk {chunk} twice)")
            seen.add(chunk)
            chunks.append(chunk)
    total = CensusCounts(0, {}, {})
    for chunk in chunks:
        total = total + census5_chunk(chunk, n_chunks)
    return total


def relabel(mask: int, n_points: int, perm: Iterable[int], flip: int) -> int:
    """The class ``mask`` on ``n_points`` points with its columns flipped by the bits of ``flip``
    and then moved by ``perm`` (point x becomes point perm[x]): h ↦ h' with h'(perm[x]) =
    h(x) XOR flip_x. Ldim and M_tr are invariant under it (renaming points and swapping the two
    labels of one point change neither the trees nor the game).

    Parameters
    ----------
    mask : int
        The class as a bitmask.
    n_points : int
        Points.
    perm : iterable of int
        The new position of each point.
    flip : int
        Bit x set: labels of point x swapped.

    Returns
    -------
    int
        The relabelled class's bitmask.

    Examples
    --------
    >>> from theory.online.census import class_rows, relabel
    >>> class_rows(0b0010, 2), class_rows(relabel(0b0010, 2, [1, 0], 0), 2)  # points swapped
    (['10'], ['01'])
    """
    _checks.class_mask(mask, n_points, MAX_MASK_POINTS)
    perm = list(perm)
    if any(isinstance(p, bool) for p in perm) or sorted(perm) != list(range(n_points)):
        raise ValueError(f"perm must be a permutation of 0..{n_points - 1} (got {perm!r})")
    if (
        isinstance(flip, bool)
        or not isinstance(flip, int | np.integer)
        or not (0 <= flip < 1 << n_points)
    ):
        raise ValueError(f"flip must be an integer in [0, 2^n_points) (got {flip!r})")
    out = 0
    for f in range(1 << n_points):
        if (mask >> f) & 1:
            g = sum((((f ^ flip) >> x) & 1) << perm[x] for x in range(n_points))
            out |= 1 << g
    return out
