"""Concept classes over a finite domain, stored as a bit matrix with packed version spaces.

A class H ⊆ {0,1}^X is an (|H| × |X|) 0/1 matrix: row h is a hypothesis, column x a point. Version
spaces (subsets of H) are bitsets over the rows, packed into uint64 words: bit i of word i // 64 is
hypothesis i. ``point_bits[x]`` is the version space {h : h(x) = 1}, so restricting V to the label b
at x is one AND per word (docs/online.md#how-the-solvers-compute).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from theory import _domain
from theory.online.class_file import read_class_file

__all__ = ["MAX_FILE_BYTES", "ConceptClass"]

WORD = 64


def _pack_rows(bits: np.ndarray) -> np.ndarray:
    """Pack a (n_hyp, m) 0/1 matrix column-wise: column j -> bitset over rows, (m, n_words) uint64."""
    n_hyp, m = bits.shape
    n_words = max(1, -(-n_hyp // WORD))
    out = np.zeros((m, n_words), dtype=np.uint64)
    for i in range(n_hyp):
        w, b = divmod(i, WORD)
        out[:, w] |= bits[i].astype(np.uint64) << np.uint64(b)
    return out


#: Class files larger than this are refused before they are read.
MAX_FILE_BYTES = 256 * 2**20


@dataclass(frozen=True)
class ConceptClass:
    """A finite concept class: ``matrix[h, x]`` is hypothesis h's label at point x.

    Build with :meth:`from_array`, :meth:`from_strings` or :meth:`from_file`. Point labels
    (``points``) name the user's original points; witnesses (sequences, trees) use column indices
    into ``points``. Two classes are equal when their points and matrices (rows in order) are;
    ``repr`` is the :meth:`from_array` call that rebuilds the class.
    """

    #: (|H|, |X|) uint8 of 0/1 labels, one row per hypothesis, one column per point.
    matrix: np.ndarray
    #: The user's label of each point (column); "0", "1", ... when none was given.
    points: tuple[str, ...] = ()
    #: Packed bitsets: for each point, the hypotheses labelling it 1 (derived, not an argument).
    point_bits: np.ndarray = field(init=False, repr=False, compare=False)
    #: The packed bitset of every hypothesis: the full version space (derived).
    full: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        m = _validated_matrix(self.matrix)
        object.__setattr__(self, "matrix", m)
        if not self.points:
            object.__setattr__(self, "points", tuple(str(j) for j in range(m.shape[1])))
        if len(self.points) != m.shape[1]:
            raise ValueError(f"points has {len(self.points)} labels for {m.shape[1]} points")
        object.__setattr__(self, "point_bits", _pack_rows(m))
        full = _pack_rows(np.ones((m.shape[0], 1), dtype=np.uint8))[0]
        object.__setattr__(self, "full", full)

    # ------------------------------------------------------------------------------ constructors
    @classmethod
    def from_array(cls, array: Any, points: Any = None) -> ConceptClass:
        """From a 2-D array-like of 0/1 (rows = hypotheses)."""
        if (
            hasattr(points, "__len__")
            and len(np.shape(array)) == 2
            and len(points) != np.shape(array)[1]
        ):
            raise ValueError(f"points has {len(points)} labels for {np.shape(array)[1]} points")
        return cls(array, _labels(points))

    @classmethod
    def from_strings(cls, rows: list[str], points: Any = None) -> ConceptClass:
        """From 0/1 strings, one per hypothesis (e.g. ``["0000", "1000", ...]``)."""
        if isinstance(rows, str | bytes) or not all(isinstance(r, str) for r in rows):
            raise ValueError(
                f"rows must be a list of 0/1 strings, one per hypothesis (got {rows!r:.60})"
            )
        if points is not None and rows and len(points) != len(rows[0]):
            raise ValueError(f"points has {len(points)} labels for {len(rows[0])} points")
        return cls(_parse_rows([(i + 1, r) for i, r in enumerate(rows)], "row"), _labels(points))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> ConceptClass:
        """From a text file (one hypothesis per line: a 0/1 string, or numbers equal to 0 or 1
        separated by whitespace and/or commas as ``np.savetxt`` writes them; blank lines and lines
        starting with ``#`` are skipped) or a JSON file (a list of lists of the numbers 0/1, ints
        or floats, or an object with keys ``hypotheses`` and optionally ``points``), by the rules
        of :mod:`theory.online.class_file`. Duplicate rows are kept (``n_hypotheses`` counts
        rows; :meth:`canonical` merges them)."""
        path = Path(path)
        if path.is_dir():
            raise ValueError(f"class file {str(path)!r} is a directory, not a file")
        if not path.is_file():
            raise ValueError(f"class file {str(path)!r} does not exist")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"class file {str(path)!r} is over {MAX_FILE_BYTES >> 20} MiB")
        matrix, points = read_class_file(path)
        return cls(matrix, _labels(points))

    # -------------------------------------------------------------------------------- properties
    @property
    def n_hypotheses(self) -> int:
        return self.matrix.shape[0]

    @property
    def n_points(self) -> int:
        return self.matrix.shape[1]

    @property
    def n_words(self) -> int:
        return self.full.shape[0]

    def rows(self) -> list[str]:
        """The hypotheses as 0/1 strings."""
        return ["".join(map(str, r)) for r in self.matrix.tolist()]

    def restrict(self, points: Any) -> ConceptClass:
        """H restricted to the given point indices (duplicate hypotheses removed)."""
        _domain.integers("points", points, minimum=0)
        if max(points) >= self.n_points or len(set(points)) != len(points):
            raise ValueError(
                f"points must be distinct point indices in [0, {self.n_points}) (got {points!r:.60})"
            )
        idx = np.asarray(points, dtype=int)
        sub = np.unique(self.matrix[:, idx], axis=0)
        return ConceptClass(sub, tuple(self.points[i] for i in idx))

    def subclass(self, hypotheses: Any) -> ConceptClass:
        """The class of the given hypothesis (row) indices, on the same points."""
        _domain.integers("hypotheses", hypotheses, minimum=0)
        if max(hypotheses) >= self.n_hypotheses:
            raise ValueError(
                f"hypotheses must be row indices in [0, {self.n_hypotheses}) "
                f"(got {hypotheses!r:.60})"
            )
        return ConceptClass(self.matrix[np.asarray(hypotheses, dtype=int)], self.points)

    def canonical(self) -> tuple[ConceptClass, np.ndarray]:
        """Lossless canonical form for M_tr and Ldim: constant columns dropped, identical or
        complementary columns merged, duplicate hypotheses removed (a relabelling of points or
        of one point's labels, and repeated rows, change neither Ldim nor the game).

        Returns ``(C, keep)`` where column j of C is the user's point ``keep[j]``.
        """
        m = self.matrix
        keep, seen = [], set()
        for j in range(m.shape[1]):
            col = m[:, j]
            if col.min() == col.max():
                continue
            key = (col ^ col[0]).tobytes()  # identical and complementary columns share a key
            if key not in seen:
                seen.add(key)
                keep.append(j)
        keep_arr = np.asarray(keep, dtype=int)
        if keep_arr.size == 0:
            return ConceptClass(np.zeros((1, 0), dtype=np.uint8)), keep_arr
        sub = np.unique(m[:, keep_arr], axis=0)
        return ConceptClass(sub, tuple(self.points[j] for j in keep_arr)), keep_arr

    # ------------------------------------------------------------------------- value semantics
    def __eq__(self, other: object) -> bool:
        """Equal when the points and the matrix (rows in order) are the same."""
        if not isinstance(other, ConceptClass):
            return NotImplemented
        return self.points == other.points and np.array_equal(self.matrix, other.matrix)

    def __hash__(self) -> int:
        return hash((self.matrix.shape, self.matrix.tobytes(), self.points))

    def __repr__(self) -> str:
        """Python that rebuilds the class, every row written out (no numpy summarising), so a
        failing example printed by a test can be pasted back: ``eval(repr(H)) == H``; the
        points appear only when they are not the default "0".."m−1"."""
        default = self.points == tuple(str(j) for j in range(self.n_points))
        points = "" if default else f", points={list(self.points)!r}"
        return f"ConceptClass.from_array({self.matrix.tolist()!r}{points})"


# ----------------------------------------------------------------------------------- validation
def _validated_matrix(matrix: Any) -> np.ndarray:
    try:
        m = np.asarray(matrix)
    except ValueError:
        raise ValueError("class matrix has ragged rows") from None
    if m.dtype == object:
        raise ValueError("class matrix has ragged rows")
    if m.ndim != 2:
        raise ValueError(f"class matrix must be 2-D (hypotheses × points), got {m.ndim}-D")
    if m.shape[0] == 0:
        raise ValueError("class is empty: it needs at least one hypothesis")
    if m.dtype == bool:
        m = m.astype(np.uint8)
    if not (np.issubdtype(m.dtype, np.integer) or np.issubdtype(m.dtype, np.floating)):
        raise ValueError(f"class matrix must hold 0/1 numbers (got dtype {m.dtype})")
    bad = np.argwhere((m != 0) & (m != 1))
    if bad.size:
        i, j = bad[0]
        raise ValueError(f"class matrix entry [{i}, {j}] is {m[i, j].item()!r}, not 0 or 1")
    return np.ascontiguousarray(m.astype(np.uint8))


def _labels(points: Any) -> tuple[str, ...]:
    if points is not None and not hasattr(points, "__len__"):
        raise ValueError(f"points must be a sequence of labels, one per point (got {points!r:.60})")
    return tuple(str(p) for p in points) if points is not None else ()


def _parse_rows(rows: list[tuple[int, str]], where: str) -> np.ndarray:
    if not rows:
        raise ValueError(f"{where.rsplit(':', 1)[0] if ':' in where else 'class'}: class is empty")
    width = len(rows[0][1])
    for line_no, text in rows:
        bad = next((ch for ch in text if ch not in "01"), None)
        if bad is not None:
            raise ValueError(f"{where} {line_no}: {bad!r} is not 0 or 1")
        if len(text) != width:
            raise ValueError(
                f"{where} {line_no}: has {len(text)} points, the first row has {width}"
            )
    return np.array([[int(ch) for ch in text] for _, text in rows], dtype=np.uint8).reshape(
        len(rows), width
    )
