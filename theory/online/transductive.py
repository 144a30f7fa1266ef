"""The transductive online game on a fixed sequence: its exact value and an optimal learner.

Model (BKM97's "worst-sequence off-line" model; docs/online.md#the-game-and-its-value): the
adversary fixes x_1..x_n (repeats allowed) and shows it to the learner; for t = 1..n the learner
predicts ŷ_t and the adversary then picks y_t, keeping y_1..y_t realizable by some h ∈ H. The value
of the game on the sequence is BKM97's tree rank v(H, 1), computed by the Numba kernel in
``_transductive_numba``:

    v(V, t) = 0                                  if t > n or |V| ≤ 1,
    v(V, t) = v(V_{x_t}^b, t + 1)                if only the label b is realizable at x_t,
    v(V, t) = c(v(V^0, t + 1), v(V^1, t + 1))    otherwise,  c(a, b) = a + 1 if a = b else max(a, b).

M_tr(H) is the maximum of v over the orders of X; that maximum is another module's
job (``mtr``). Sequences are column indices of the class matrix; positions are 0-based here.
"""

from __future__ import annotations

import numpy as np

from theory.online._transductive_numba import value_on_slice
from theory.online.concept_class import ConceptClass
from theory.online.dims import _as_int, _concept_class, _label

__all__ = ["OptimalTransductiveLearner", "transductive_value"]


def _validated_sequence(H: ConceptClass, sequence: object) -> np.ndarray:
    """The sequence as a contiguous int64 array of column indices, or ValueError naming it."""
    if isinstance(sequence, set | frozenset | dict | str | bytes):
        raise ValueError(  # noqa: TRY004
            f"sequence must be an ordered sequence of point indices (got a {type(sequence).__name__})"
        )
    try:
        items = list(sequence)  # type: ignore[call-overload]
    except TypeError:
        raise ValueError(
            f"sequence must be a sequence of point indices (got {type(sequence).__name__})"
        ) from None
    out = np.empty(len(items), dtype=np.int64)
    for t, item in enumerate(items):
        x = _as_int(item)
        if x is None or not 0 <= x < H.n_points:
            raise ValueError(
                f"sequence[{t}] must be a point index in [0, {H.n_points}) (got {item!r})"
            )
        out[t] = x
    return out


def _columns(H: ConceptClass) -> np.ndarray:
    """The class transposed, (|X|, |H|) uint8, so a split reads one row of it."""
    return np.ascontiguousarray(H.matrix.T)


def transductive_value(H: ConceptClass, sequence: object) -> int:
    r"""The value v(H, x_1..x_n) of the transductive game on a fixed sequence (BKM97).

    .. math:: v(V, t) = \begin{cases}
                  0 & t > n \text{ or } |V| \le 1 \\
                  v(V_{x_t}^b, t+1) & \text{only the label } b \text{ is realizable at } x_t \\
                  c\big(v(V^0, t+1), v(V^1, t+1)\big) & \text{otherwise}
              \end{cases}
              \qquad c(a, b) = \begin{cases} a + 1 & a = b \\ \max(a, b) & a \ne b \end{cases}

    It is the number of mistakes the adversary forces against the best learner that knows the
    sequence (deterministic strategies lose nothing). The version spaces at step t are disjoint
    cells of H, so the kernel needs no memo and runs in O(n·|H|).

    Parameters
    ----------
    H : ConceptClass
    sequence : sequence of int
        Points x_1..x_n as column indices of ``H.matrix``; repeats allowed, may be empty.

    Returns
    -------
    int
        v(H, 1) ≥ 0.

    Examples
    --------
    >>> from theory.online.constructions import gadget_w
    >>> from theory.online.transductive import transductive_value
    >>> W = gadget_w()
    >>> transductive_value(W, [0, 1, 2, 3]), transductive_value(W, [0]), transductive_value(W, [])
    (2, 1, 0)
    """
    H = _concept_class(H)
    seq = _validated_sequence(H, sequence)
    rows = np.arange(H.n_hypotheses, dtype=np.int64)
    return int(value_on_slice(_columns(H), seq, rows, 0, rows.size, 0))


class _SequenceScorer:
    """v(H, sequence) for many sequences of one class, without validation (for searches)."""

    def __init__(self, H: ConceptClass) -> None:
        self.columns = _columns(H)
        self.rows = np.arange(H.n_hypotheses, dtype=np.int64)

    def __call__(self, sequence: np.ndarray) -> int:
        # the kernel only permutes ``rows``, which any order of H serves equally
        return int(value_on_slice(self.columns, sequence, self.rows, 0, self.rows.size, 0))


class OptimalTransductiveLearner:
    """The optimal learner for a fixed sequence: predict the branch of larger value (BKM97).

    At position t with version space V, if both labels are realizable at x_t it predicts the b
    with the larger v(V_{x_t}^b, t + 1) (ties → 1: a tie means the adversary can force a mistake
    whatever is predicted); otherwise the only realizable label. Against any realizable
    adversary it makes at most v(H, sequence) mistakes, and the value-maximising adversary forces
    exactly that many.

    Use: for t = 0..n−1, ``predict(t)`` then ``update(y)`` with the true label.

    Parameters
    ----------
    H : ConceptClass
    sequence : sequence of int
        The points x_1..x_n (column indices), as in :func:`transductive_value`.

    Attributes
    ----------
    position : int
        The 0-based position of the next point to predict (the number of updates so far).
    mistakes : int
        The mistakes made so far.
    """

    def __init__(self, H: ConceptClass, sequence: object) -> None:
        self.H = _concept_class(H)
        self.sequence = _validated_sequence(self.H, sequence)
        self._columns = _columns(self.H)
        self._rows = np.arange(self.H.n_hypotheses, dtype=np.int64)  # the version space
        self.position = 0
        self.mistakes = 0

    @property
    def version_space(self) -> np.ndarray:
        """The hypotheses consistent with the labels so far (a bool mask over rows)."""
        mask = np.zeros(self.H.n_hypotheses, dtype=bool)
        mask[self._rows] = True
        return mask

    def _value(self, rows: np.ndarray, t: int) -> int:
        rows = rows.copy()
        return int(value_on_slice(self._columns, self.sequence, rows, 0, rows.size, t))

    def remaining_value(self) -> int:
        """v(V, t) for the current version space and position: the mistakes still forceable."""
        return self._value(self._rows, self.position)

    def branch_values(self) -> tuple[int | None, int | None]:
        """(v(V^0, t + 1), v(V^1, t + 1)) at the current position; None for an empty branch."""
        self._check_position(self.position)
        labels = self._columns[self.sequence[self.position], self._rows]
        out: list[int | None] = []
        for b in (0, 1):
            branch = self._rows[labels == b]
            out.append(self._value(branch, self.position + 1) if branch.size else None)
        return out[0], out[1]

    def _check_position(self, t: int) -> None:
        if t >= self.sequence.size:
            raise ValueError(
                f"t = {t} is past the end of the sequence (length {self.sequence.size})"
            )

    def predict(self, t: int | None = None) -> int:
        """The prediction (0 or 1) at position t (default: the current ``position``).

        Raises ``ValueError`` naming ``t`` unless t is the current position.
        """
        if t is not None and _as_int(t) != self.position:
            raise ValueError(
                f"t must be the current position {self.position} (labels so far fix V; got {t!r})"
            )
        self._check_position(self.position)
        v0, v1 = self.branch_values()
        if v0 is None:
            return 1
        if v1 is None:
            return 0
        return 1 if v1 >= v0 else 0

    def update(self, y: int) -> None:
        """Reveal the label y of the current point: count a mistake, filter V, advance.

        Raises ``ValueError`` naming ``y`` if y is not 0/1 or not realizable by V.
        """
        y = _label(y)
        self._check_position(self.position)
        labels = self._columns[self.sequence[self.position], self._rows]
        kept = self._rows[labels == y]
        if kept.size == 0:
            raise ValueError(f"y={y} at position {self.position} is not realizable by V")
        if self.predict() != y:
            self.mistakes += 1
        self._rows = kept
        self.position += 1
