"""Combinatorial dimensions of a finite class and the standard-model learners
(docs/online.md#the-game-and-its-value, docs/online.md#how-the-solvers-compute).

* :func:`littlestone_dim`, :func:`littlestone_tree`: Ldim = M_std (Littlestone 1987) by the memoised
  recursion on bitset version spaces (Numba, ``_dims_numba``), with a shattered-tree witness.
* :func:`vc_dim`, :func:`vc_witness`: the VC dimension by branch and bound over shattered sets
  (Numba).
* :func:`threshold_dim`, :func:`threshold_witness`: the threshold dimension (the longest
  half-graph), by a subset DP (Numba, ≤ 20 distinct points) or branch and bound.
* :func:`soa_predict`, :class:`SOALearner`, :class:`HalvingLearner`: online learners in the
  standard (non-transductive) model.

All point indices are columns of the class matrix and all hypothesis indices are its rows.
Bad input raises ``ValueError`` naming the argument.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
from numba import types
from numba.typed import Dict, List

from theory.online import _dims_numba as _k
from theory.online.concept_class import WORD, ConceptClass

__all__ = [
    "HalvingLearner",
    "LittlestoneTree",
    "SOALearner",
    "littlestone_dim",
    "littlestone_tree",
    "soa_predict",
    "threshold_dim",
    "threshold_witness",
    "vc_dim",
    "vc_witness",
]


# ----------------------------------------------------------------------------------- validation
def _concept_class(H: object) -> ConceptClass:
    if not isinstance(H, ConceptClass):
        raise ValueError(f"H must be a ConceptClass (got {type(H).__name__})")  # noqa: TRY004
    return H


def _as_int(value: object) -> int | None:
    """A Python/numpy integer as int; None for anything else (bools included)."""
    if isinstance(value, bool | np.bool_):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _index(value: object, name: str, size: int, what: str) -> int:
    i = _as_int(value)
    if i is None or not 0 <= i < size:
        raise ValueError(f"{name} must be a {what} index in [0, {size}) (got {value!r})")
    return i


def _label(value: object, name: str = "y") -> int:
    b = _as_int(value)
    if b not in (0, 1):
        raise ValueError(f"{name} must be 0 or 1 (got {value!r})")
    return b


def _row_mask(H: ConceptClass, mask: object, name: str) -> np.ndarray:
    m = np.asarray(mask)
    if m.shape != (H.n_hypotheses,):
        raise ValueError(
            f"{name} must be a boolean mask over the {H.n_hypotheses} hypotheses "
            f"(got shape {m.shape})"
        )
    if m.dtype != bool:
        if not np.issubdtype(m.dtype, np.integer) or np.any((m != 0) & (m != 1)):
            raise ValueError(f"{name} must be a boolean mask (got dtype {m.dtype})")
        m = m.astype(bool)
    return m


# ------------------------------------------------------------------------------------- bitsets
def _mask_to_bitset(mask: np.ndarray, n_words: int) -> np.ndarray:
    """Bool mask over rows -> (n_words,) uint64 bitset (bit i of word i // 64 is row i)."""
    packed = np.packbits(mask.astype(np.uint8), bitorder="little")
    buf = np.zeros(n_words * (WORD // 8), dtype=np.uint8)
    buf[: packed.size] = packed
    return buf.view("<u8").astype(np.uint64)


class _LdimOracle:
    """L(V) for subsets V of one class, with a memo kept across calls."""

    def __init__(self, H: ConceptClass) -> None:
        self.single = H.n_words == 1
        if self.single:
            self.bits = np.ascontiguousarray(H.point_bits[:, 0])
            self.memo = Dict.empty(key_type=types.uint64, value_type=types.int64)
        else:
            self.bits = np.ascontiguousarray(H.point_bits)
            self.memo = (
                Dict.empty(key_type=types.uint64, value_type=types.int64),
                List.empty_list(types.uint64[::1]),
                List.empty_list(types.int64),
                List.empty_list(types.int64),
            )
        self.full = H.full.copy()

    def value(self, bitset: np.ndarray) -> int:
        """L(V) for the (n_words,) bitset V."""
        if self.single:
            return int(_k.ldim_word(bitset[0], self.bits, self.memo))
        return int(_k.ldim_words(bitset, self.bits, *self.memo))

    def of_mask(self, mask: np.ndarray) -> int:
        return self.value(_mask_to_bitset(mask, self.full.shape[0]))

    def tree(self, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """(node points in heap order, leaf witness rows) of a depth-``depth`` shattered tree."""
        node_points = np.full(2**depth - 1, -1, dtype=np.int64)
        leaf_rows = np.full(2**depth, -1, dtype=np.int64)
        if self.single:
            _k.tree_word(self.full[0], depth, 0, self.bits, self.memo, node_points, leaf_rows)
        else:
            _k.tree_words(self.full, depth, 0, self.bits, *self.memo, node_points, leaf_rows)
        return node_points, leaf_rows


# --------------------------------------------------------------------------- Littlestone dimension
@dataclass(frozen=True)
class LittlestoneTree:
    """A complete binary tree of ``depth`` levels of internal nodes, shattered by the class.

    ``nodes`` maps a node's bit string ("" the root, "0"/"1" its children reached by labelling the
    root 0/1, "01", ...; lengths 0..depth−1) to its point (a column of H). ``witnesses`` maps each
    leaf path (a bit string of length ``depth``) to a hypothesis (a row of H) realizing it: for
    a leaf s, ``h(nodes[s[:i]]) == int(s[i])`` for i < depth. ``depth`` is Ldim(H) when built by
    :func:`littlestone_tree` (for the one-hypothesis class: depth 0, ``witnesses == {"": 0}``).
    """

    #: Levels of internal nodes (Ldim(H) when built by ``littlestone_tree``).
    depth: int
    #: Node bit string ("" the root, "0"/"1" its children, ...) -> its point (a column of H).
    nodes: dict[str, int]
    #: Leaf path (bit string of length ``depth``) -> a hypothesis (row of H) realising it.
    witnesses: dict[str, int]


def littlestone_dim(H: ConceptClass) -> int:
    r"""The Littlestone dimension Ldim(H) = M_std(H) (Littlestone 1987).

    .. math:: L(\emptyset) = -1,\quad L(\{h\}) = 0,\quad
              L(V) = \max_{x \text{ splits } V} 1 + \min(L(V_x^0), L(V_x^1))
              \ (0 \text{ if no } x \text{ splits } V)

    Memoised on bitset version spaces (one AND per split), trying the most balanced splits
    first and pruning with L(V) ≤ ⌊log2 |V|⌋: splits whose smaller side has
    ⌊log2 s⌋ + 1 ≤ the best so far are skipped, and the search stops once the bound is met.
    Worst case (2|X|)^Ldim; fine for |H| up to a few thousand and |X| in the hundreds.

    Parameters
    ----------
    H : ConceptClass

    Returns
    -------
    int
        Ldim(H) ≥ 0 (the class is non-empty; duplicate rows count once).

    Examples
    --------
    >>> from theory.online.constructions import gadget_w, thresholds
    >>> from theory.online.dims import littlestone_dim
    >>> littlestone_dim(gadget_w()), littlestone_dim(thresholds(7))
    (3, 3)
    """
    H = _concept_class(H)
    oracle = _LdimOracle(H)
    return oracle.value(oracle.full)


def littlestone_tree(H: ConceptClass) -> LittlestoneTree:
    """A shattered Littlestone tree of depth Ldim(H), with one witness hypothesis per leaf.

    Built top-down: at a node with version space V and remaining depth k, the first point x
    (lowest column) with min(L(V_x^0), L(V_x^1)) ≥ k − 1 labels the node; its children get
    V_x^0 and V_x^1. Leaves get the lowest row of their version space.

    Parameters
    ----------
    H : ConceptClass

    Returns
    -------
    LittlestoneTree

    Examples
    --------
    >>> from theory.online.constructions import gadget_w
    >>> from theory.online.dims import littlestone_tree
    >>> tree = littlestone_tree(gadget_w())
    >>> tree.depth, tree.nodes[""], len(tree.witnesses)  # root labelled by point 0; 2^3 leaves
    (3, 0, 8)
    """
    H = _concept_class(H)
    oracle = _LdimOracle(H)
    depth = oracle.value(oracle.full)
    node_points, leaf_rows = oracle.tree(depth)

    def path(heap_index: int) -> str:
        bits = []
        while heap_index > 0:
            bits.append("0" if heap_index % 2 == 1 else "1")
            heap_index = (heap_index - 1) // 2
        return "".join(reversed(bits))

    nodes = {path(i): int(x) for i, x in enumerate(node_points)}
    first_leaf = len(node_points)
    witnesses = {path(first_leaf + j): int(r) for j, r in enumerate(leaf_rows)}
    return LittlestoneTree(depth=depth, nodes=nodes, witnesses=witnesses)


# ---------------------------------------------------------------------------------- VC dimension
def vc_witness(H: ConceptClass) -> tuple[int, ...]:
    """A largest shattered point set (sorted column indices; ``()`` when VC = 0).

    A set S is shattered iff H restricted to S has all 2^|S| rows. Shattered sets are closed
    under subsets, so a depth-first search (Numba) over the sets S = {s_1 < ... < s_k} in
    lexicographic order only extends S by points that split every cell of H's partition by S,
    taken among the parent's extensions. Branch and bound: a point x can be in a shattered
    superset S ∪ T only if |T| ≤ 1 + ⌊log2 m_x⌋, m_x the smallest half of a cell split by x, so
    at most the h-index of these ranks can be added; the search stops at ⌊log2 |H|⌋. It runs on :meth:`ConceptClass.canonical` (constant columns dropped, identical
    or complementary columns merged, rows distinct). Worst case about C(|X|, VC) sets, i.e.
    |X|^{O(log |H|)}: dense random classes with |H| in the thousands are slow.

    Parameters
    ----------
    H : ConceptClass

    Returns
    -------
    tuple of int
        The lexicographically first largest shattered set of the canonical class, as columns of H.

    Examples
    --------
    >>> from theory.online.constructions import gadget_w
    >>> from theory.online.dims import vc_witness
    >>> vc_witness(gadget_w())
    (0, 1)
    """
    H = _concept_class(H)
    C, keep = H.canonical()
    cap = C.n_hypotheses.bit_length() - 1  # 2^VC ≤ |H|
    found = _k.largest_shattered_set(np.ascontiguousarray(C.point_bits), C.full, cap)
    return tuple(int(keep[j]) for j in found)


def vc_dim(H: ConceptClass) -> int:
    """The VC dimension: the size of a largest shattered point set (see :func:`vc_witness`).

    Parameters
    ----------
    H : ConceptClass
        The class.

    Returns
    -------
    int
        VC(H).

    Examples
    --------
    >>> from theory.online.constructions import gadget_w
    >>> from theory.online.dims import vc_dim
    >>> vc_dim(gadget_w())
    2
    """
    return len(vc_witness(H))


# --------------------------------------------------------------------------- threshold dimension
_THRESHOLD_DP_POINTS = 20  # subset DP up to this many distinct columns, branch and bound beyond


def threshold_witness(H: ConceptClass) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Points x_1..x_k and hypotheses h_0..h_k with h_i(x_j) = [j ≤ i], for the largest k.

    Definition used here (the one matching thresholds on k points, which have k + 1 hypotheses,
    threshold dimension k and Ldim = M_tr = ⌊log2(k + 1)⌋): the threshold dimension is the largest k
    such that the labels of h_0..h_k on x_1..x_k are 0^k, 10^{k−1}, ..., 1^k. Then M_tr ≥ ⌊log2(k +
    1)⌋ (the thresholds are a subclass). k = 0 always holds (any h_0, no points).

    Only distinct non-constant columns can occur (points of a witness are distinct, and h_0,
    h_k see every x_j as 0, 1). With n ≤ 20 such columns, a subset DP (Numba): {x_1..x_k} = s
    works iff the traces {r ∩ s : r ∈ H} contain a saturated chain ∅ ⊂ P_1 ⊂ ... ⊂ P_k = s,
    P_i = {x_1..x_i}; sets are tried from the largest size down, O(3^n + 2^n·|H|).
    Otherwise a branch-and-bound search extends x_1..x_m, keeping for each i ≤ m the set A_i
    of hypotheses with pattern 1^i 0^{m−i}; appending x maps A_i → A_i ∩ [x = 0] (i ≤ m) and
    adds A_{m+1} = A_m ∩ [x = 1], all non-empty. The chain A_m ⊋ A_{m+1} ⊋ ... allows at most
    |A_m| − 1 more points, a state met again is skipped (its first visit explored everything
    that could beat the best so far), and points giving the largest A_{m+1} go first. Both are
    exponential in the worst case: meant for small domains or very structured classes.

    Parameters
    ----------
    H : ConceptClass

    Returns
    -------
    points, hypotheses : tuple of int, tuple of int
        (x_1..x_k) as columns and (h_0..h_k) as rows (the lowest row of each A_i).

    Examples
    --------
    >>> from theory.online.constructions import thresholds
    >>> from theory.online.dims import threshold_witness
    >>> threshold_witness(thresholds(3))  # points x_1..x_3, hypotheses h_0..h_3
    ((0, 1, 2), (0, 1, 2, 3))
    """
    H = _concept_class(H)
    _, first = np.unique(H.matrix, axis=1, return_index=True)
    constant = H.matrix.min(axis=0) == H.matrix.max(axis=0)
    candidates = [int(x) for x in sorted(first) if not constant[x]]
    if len(candidates) <= _THRESHOLD_DP_POINTS:
        return _threshold_subset_dp(H, candidates)
    return _threshold_branch_and_bound(H, candidates)


def _threshold_subset_dp(
    H: ConceptClass, candidates: list[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Threshold witness by the Numba subset DP over the ``candidates`` columns (≤ 20 of them)."""
    weights = np.int64(1) << np.arange(len(candidates), dtype=np.int64)
    rows = H.matrix[:, candidates].astype(np.int64) @ weights
    points, hyps = _k.threshold_chain(rows, len(candidates))
    return tuple(candidates[int(j)] for j in points), tuple(int(h) for h in hyps)


def _threshold_branch_and_bound(
    H: ConceptClass, candidates: list[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Threshold witness by branch and bound on the states (A_0..A_m) (Python-int bitsets)."""
    ones = {x: sum(1 << int(i) for i in np.flatnonzero(H.matrix[:, x])) for x in candidates}
    full = (1 << H.n_hypotheses) - 1
    best_points: tuple[int, ...] = ()
    best_state: tuple[int, ...] = (full,)
    visited: set[tuple[int, ...]] = set()
    # items (points, state, x): the child of (points, state) by x, built when popped (x = -1:
    # the item itself), so the stack shares its parents' tuples
    stack: list[tuple[tuple[int, ...], tuple[int, ...], int]] = [((), (full,), -1)]
    while stack:
        points, state, x = stack.pop()
        if x >= 0:
            points = (*points, x)
            state = (*(a & ~ones[x] for a in state), state[-1] & ones[x])
        if len(points) > len(best_points):
            best_points, best_state = points, state
        if len(points) + state[-1].bit_count() - 1 <= len(best_points) or state in visited:
            continue
        visited.add(state)
        moves = []
        for x in candidates:
            top = state[-1] & ones[x]
            if top and all(a & ~ones[x] for a in state):
                moves.append((top.bit_count(), -x))
        moves.sort()  # popped last = largest A_{m+1} first (then the lowest column)
        stack.extend((points, state, -neg_x) for _, neg_x in moves)
    rows = tuple((a & -a).bit_length() - 1 for a in best_state)
    return best_points, rows


def threshold_dim(H: ConceptClass) -> int:
    """The threshold dimension (see :func:`threshold_witness` for the definition used).

    Parameters
    ----------
    H : ConceptClass
        The class.

    Returns
    -------
    int
        The threshold dimension k.

    Examples
    --------
    >>> from theory.online.constructions import thresholds
    >>> from theory.online.dims import threshold_dim
    >>> threshold_dim(thresholds(3))
    3
    """
    return len(threshold_witness(H)[0])


# ---------------------------------------------------------------------------------- learners
def soa_predict(H: ConceptClass, version_space_rows: object, x: int) -> int:
    """The Standard Optimal Algorithm's prediction at x: argmax_b Ldim(V_x^b) (Littlestone 1987).

    Ties (including Ldim(V_x^0) = Ldim(V_x^1)) predict 1; an empty side has Ldim −1, so when
    only one label is realizable it is predicted. Each SOA mistake lowers Ldim(V) by ≥ 1.

    Parameters
    ----------
    H : ConceptClass
    version_space_rows : array_like of bool, shape (|H|,)
        The current version space V as a mask over the rows of H.
    x : int
        The point (column) to predict.

    Returns
    -------
    int
        0 or 1.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.online.constructions import gadget_w
    >>> from theory.online.dims import soa_predict
    >>> soa_predict(gadget_w(), np.ones(8, dtype=bool), 0)  # a tie at point 0 predicts 1
    1
    """
    H = _concept_class(H)
    mask = _row_mask(H, version_space_rows, "version_space_rows")
    if not mask.any():
        raise ValueError("version_space_rows must hold at least one hypothesis (got none)")
    x = _index(x, "x", H.n_points, "point")
    return _soa_choice(_LdimOracle(H), H, mask, x)


def _soa_choice(oracle: _LdimOracle, H: ConceptClass, mask: np.ndarray, x: int) -> int:
    label = H.matrix[:, x].astype(bool)
    l0 = oracle.of_mask(mask & ~label)
    l1 = oracle.of_mask(mask & label)
    return 1 if l1 >= l0 else 0


class _OnlineLearner:
    """Shared state of the standard-model learners: version space and mistake count."""

    def __init__(self, H: ConceptClass) -> None:
        self.H = _concept_class(H)
        self._mask = np.ones(self.H.n_hypotheses, dtype=bool)
        self.mistakes = 0

    @property
    def version_space(self) -> np.ndarray:
        """The hypotheses consistent with the labels so far (a bool mask over rows; a copy)."""
        return self._mask.copy()

    def _choice(self, x: int) -> int:
        raise NotImplementedError

    def predict(self, x: int) -> int:
        """The prediction (0 or 1) at point x for the current version space."""
        return self._choice(_index(x, "x", self.H.n_points, "point"))

    def update(self, x: int, y: int) -> None:
        """Reveal the label y of x: count a mistake if the prediction differed, filter V.

        Raises ``ValueError`` naming ``y`` if no hypothesis in V has h(x) = y (the game is
        realizable).
        """
        x = _index(x, "x", self.H.n_points, "point")
        y = _label(y)
        kept = self._mask & (self.H.matrix[:, x] == y)
        if not kept.any():
            raise ValueError(f"y={y} at x={x} is not realizable by the version space")
        if self._choice(x) != y:
            self.mistakes += 1
        self._mask = kept


class SOALearner(_OnlineLearner):
    """Littlestone's Standard Optimal Algorithm: at most Ldim(H) mistakes (Littlestone 1987).

    Predicts argmax_b Ldim(V_x^b) (ties → 1) and keeps the Ldim memo across rounds.
    """

    def __init__(self, H: ConceptClass) -> None:
        super().__init__(H)
        self._oracle = _LdimOracle(self.H)

    def _choice(self, x: int) -> int:
        return _soa_choice(self._oracle, self.H, self._mask, x)


class HalvingLearner(_OnlineLearner):
    """The Halving learner: majority vote of V (ties → 1); at most ⌊log2 |H|⌋ mistakes (Fact E.1).

    |H| counts rows, so duplicate rows weigh as often as they appear.
    """

    def _choice(self, x: int) -> int:
        ones = int(np.count_nonzero(self._mask & (self.H.matrix[:, x] == 1)))
        return 1 if 2 * ones >= int(np.count_nonzero(self._mask)) else 0
