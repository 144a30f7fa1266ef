"""The algorithms of Chase, Hanneke, Moran, Shafer, "Optimal Mistake Bounds for Transductive
Online Learning" (NeurIPS 2025, arXiv 2512.12567), executable at small sizes; restated in
docs/online.md#the-adversary-lower-bound and docs/online.md#the-learner-and-its-class-upper-bound.

* Lower bound (the paper's Alg. 1–2, App. B): :func:`construct_sequence` (CONSTRUCTSEQUENCE),
  :func:`guaranteed_mistakes` (the mistakes the labelling rule guarantees against the best
  learner) and :func:`run_adversary` (the labelling rule played against any learner).
* Upper bound (Alg. 5–7, §2.3 and App. D): :class:`DangerZoneLearner`, weighted majority over
  splitting "danger-zone" experts.
* Export: :func:`littlestone_tree_graph`, :func:`game_tree_graph`, :func:`write_graph` (GraphML
  or DOT) and :func:`draw_tree`.

Tree classes. The adversary and the learner work on a *tree-node class*: its points are the nodes
of T_{d−1} in breadth-first (heap) order, |X| = 2^d − 1 (node j has children 2j+1 and 2j+2, edge
labels 0 and 1), and each of its 2^d hypotheses has its own root-to-leaf path, the chain followed
by its own labels (the root, then the child its label at the root points to, ...). The classes of
:func:`theory.online.constructions.tree_class` are of this form; :func:`reduce_to_tree` builds one
from any class and a shattered Littlestone tree (the reduction that opens the paper's App. B).

Version spaces are Python ints used as bitsets over the hypotheses (bit i = row i).

Learners are objects with ``predict(x) -> int`` and ``update(x, y)``, x a point (column) index.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import networkx as nx
import numpy as np

from theory.online.concept_class import ConceptClass
from theory.online.constructions import node_depth, node_index, node_label

__all__ = [
    "MISTAKE_CASES",
    "AdversarySequence",
    "DangerZoneLearner",
    "Expert",
    "LearnerRun",
    "OnlineLearner",
    "ReducedTreeClass",
    "construct_sequence",
    "draw_tree",
    "game_tree_graph",
    "guaranteed_mistakes",
    "hypothesis_paths",
    "littlestone_tree_graph",
    "play_learner",
    "reduce_to_tree",
    "run_adversary",
    "write_graph",
]


class OnlineLearner(Protocol):
    """A deterministic online learner: predict a label at point x, then learn the true one."""

    def predict(self, x: int) -> int: ...

    def update(self, x: int, y: int) -> None: ...


# ------------------------------------------------------------------------------------ bitsets
def _column_masks(H: ConceptClass) -> list[int]:
    """Column x as a bitset over hypotheses: bit i is set iff h_i(x) = 1."""
    packed = np.packbits(H.matrix.T, axis=1, bitorder="little")  # (|X|, ⌈|H|/8⌉)
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _members(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _mask_of(indices: Any) -> int:
    mask = 0
    for i in indices:
        mask |= 1 << int(i)
    return mask


# -------------------------------------------------------------------------------- tree classes
def _tree_depth(H: ConceptClass) -> int:
    d = (H.n_points + 1).bit_length() - 1
    if H.n_points < 1 or 2**d - 1 != H.n_points:
        raise ValueError(
            f"H has {H.n_points} points: a tree-node class has 2^d − 1 (the nodes of T_(d−1))"
        )
    return d


def hypothesis_paths(H: ConceptClass) -> np.ndarray:
    """The root-to-leaf path of every hypothesis of a tree-node class.

    Row i lists the heap indices of the nodes j_0 = 0, j_{k+1} = 2 j_k + 1 + h_i(j_k), k < d, the
    chain followed by h_i's own labels. For :func:`~theory.online.constructions.tree_class` (d)
    this equals ``tree_paths(d)``.

    Parameters
    ----------
    H : ConceptClass
        A tree-node class on the 2^d − 1 nodes of T_{d−1} in heap order.

    Returns
    -------
    numpy.ndarray of int64, (number of hypotheses, d)
        Each hypothesis's path.

    Examples
    --------
    >>> from sims.online import hypothesis_paths
    >>> from theory.online.constructions import tree_class, tree_paths
    >>> paths = hypothesis_paths(tree_class(3))
    >>> paths.shape, bool((paths == tree_paths(3)).all())
    ((8, 3), True)
    """
    d = _tree_depth(H)
    paths = np.zeros((H.n_hypotheses, d), dtype=np.int64)
    rows = np.arange(H.n_hypotheses)
    for k in range(1, d):
        prev = paths[:, k - 1]
        paths[:, k] = 2 * prev + 1 + H.matrix[rows, prev]
    return paths


@dataclass(frozen=True)
class _Tree:
    """Index structures of a tree-node class: on-path bitsets and subtree bitsets."""

    d: int
    paths: np.ndarray  # (|H|, d) heap indices
    on_path: list[int]  # node -> bitset over hypotheses whose path contains it
    subtree: list[int]  # node -> bitset over nodes in its subtree (itself included)

    @classmethod
    def of(cls, H: ConceptClass, paths: Any = None, require_distinct: bool = True) -> _Tree:
        d = _tree_depth(H)
        derived = hypothesis_paths(H)
        if paths is not None:
            given = np.asarray(paths)
            if given.shape != derived.shape or not np.array_equal(given, derived):
                raise ValueError(
                    "paths must list, for each hypothesis, the chain of nodes its own labels "
                    f"follow from the root (shape {derived.shape})"
                )
        leaf_ids = 2 * derived[:, -1] + H.matrix[np.arange(H.n_hypotheses), derived[:, -1]]
        if require_distinct and len(np.unique(leaf_ids)) != H.n_hypotheses:
            raise ValueError(
                "H must have one hypothesis per leaf path (the reduced class H' of online.md "
                "§3 step 0); two hypotheses share a path - use reduce_to_tree"
            )
        n = H.n_points
        on_path = [0] * n
        for i, row in enumerate(derived.tolist()):
            for j in row:
                on_path[j] |= 1 << i
        subtree = [0] * n
        for j in range(n - 1, -1, -1):
            subtree[j] = 1 << j
            for c in (2 * j + 1, 2 * j + 2):
                if c < n:
                    subtree[j] |= subtree[c]
        return cls(d, derived, on_path, subtree)

    def child(self, x: int, y: int) -> int | None:
        c = 2 * x + 1 + y
        return c if c < len(self.subtree) else None


@dataclass(frozen=True)
class ReducedTreeClass:
    """The reduced class H' of the paper's App. B: one witness per leaf of a shattered tree.

    Attributes
    ----------
    cls : ConceptClass
        2^d hypotheses on the 2^d − 1 tree nodes (heap order; labels are the node bit strings).
        Row b is the witness of leaf b.
    witnesses : numpy.ndarray
        (2^d,) row index in the original H of each witness.
    node_points : numpy.ndarray
        (2^d − 1,) the original point index carried by each tree node.
    """

    cls: ConceptClass
    witnesses: np.ndarray
    node_points: np.ndarray


def _tree_points(tree: Any) -> np.ndarray:
    """A tree given as a LittlestoneTree (``.nodes``), a {bit string: point} mapping or a
    heap-ordered sequence -> its points in heap order, a (2^d − 1,) int array."""
    if hasattr(tree, "nodes") and hasattr(tree, "witnesses"):
        tree = tree.nodes
    if isinstance(tree, Mapping):
        n = len(tree)
        out = np.full(n, -1, dtype=np.int64)
        for key, p in tree.items():
            j = node_index(key)
            if j >= n:
                raise ValueError(f"tree: node {key!r} is deeper than a perfect tree of {n} nodes")
            out[j] = int(p)
    else:
        out = np.asarray(tree, dtype=np.int64).reshape(-1)
    n = out.size
    if n < 1 or (n + 1) & n:
        raise ValueError(f"tree must have 2^d − 1 ≥ 1 nodes (a perfect tree), got {n}")
    return out


def reduce_to_tree(H: ConceptClass, tree: Any) -> ReducedTreeClass:
    """Keep one witness per leaf of a Littlestone tree shattered by H (the reduction of App. B).

    Parameters
    ----------
    H : ConceptClass
        The class that shatters ``tree``.
    tree : LittlestoneTree, Mapping[str, int] or sequence of int
        The tree's points: a :class:`theory.online.dims.LittlestoneTree` (its ``nodes``; its
        ``witnesses`` are kept when they realize their leaves), node bit string -> point index of
        H ("" is the root; node s's children are s+"0" and s+"1"), or the point indices in
        breadth-first order; 2^d − 1 ≥ 1 nodes.

    Returns
    -------
    ReducedTreeClass
        Whose ``cls`` has the node labels of the witnesses: restricting to H' can only lower
        M_tr, so lower bounds on H' transfer to H.

    Examples
    --------
    >>> from sims.online import reduce_to_tree
    >>> from theory.online.constructions import gadget_w
    >>> tree = [0, 3, 1, 1, 2, 2, 2]  # a depth-3 tree that W shatters, breadth first
    >>> reduced = reduce_to_tree(gadget_w(), tree)
    >>> reduced.cls.n_points, reduced.cls.n_hypotheses, reduced.witnesses.tolist()
    (7, 8, [0, 2, 3, 5, 1, 6, 4, 7])
    """
    pts = _tree_points(tree)
    if pts.min() < 0 or pts.max() >= H.n_points:
        raise ValueError(f"tree: point indices must be in [0, {H.n_points}), got {pts.tolist()}")
    d = (pts.size + 1).bit_length() - 1
    cols = _column_masks(H)
    full = (1 << H.n_hypotheses) - 1
    witnesses = np.zeros(2**d, dtype=np.int64)
    given = getattr(tree, "witnesses", None) or {}
    for b in range(2**d):
        v, j = full, 0
        for k in range(d):
            bit = (b >> (d - 1 - k)) & 1
            v &= cols[pts[j]] if bit else full & ~cols[pts[j]]
            j = 2 * j + 1 + bit
        if not v:
            leaf = format(b, f"0{d}b")
            raise ValueError(f"tree is not shattered by H: no hypothesis realizes leaf {leaf!r}")
        w = given.get(format(b, f"0{d}b"))
        witnesses[b] = w if w is not None and v >> int(w) & 1 else (v & -v).bit_length() - 1
    mat = H.matrix[witnesses][:, pts]  # (2^d, 2^d − 1)
    cls = ConceptClass(mat, tuple(node_label(j) for j in range(pts.size)))
    return ReducedTreeClass(cls, witnesses, pts)


# ------------------------------------------------------------------- Alg. 1: CONSTRUCTSEQUENCE
def _check_eps(eps: Any) -> float:
    is_number = isinstance(eps, (int, float, np.floating)) and not isinstance(eps, bool)
    if not is_number or not 0.0 < eps <= 0.5:
        raise ValueError(f"eps must be a number in (0, 1/2], got {eps!r}")
    return float(eps)


def _majority(ones: int, size: int) -> int:
    """The majority label of a version space with ``ones`` of ``size`` members labelling 1
    (ties -> 0). Used identically by CONSTRUCTSEQUENCE and by the labelling rule."""
    return int(2 * ones > size)


def _is_forced(ones: int, size: int, eps: float) -> bool:
    """r = ones/size ∈ [ε, 1 − ε]: a split in Alg. 1, a forced mistake in Alg. 2."""
    return size > 0 and eps * size <= ones <= (1.0 - eps) * size


@dataclass(frozen=True)
class AdversarySequence:
    """Output of :func:`construct_sequence` with the records needed to check Claims B.3–B.5.

    Attributes
    ----------
    sequence : numpy.ndarray
        (n,) node (point) indices of ``reduced`` in output order.
    reduced : ConceptClass
        The tree-node class H' the sequence was built on.
    eps, M : float, int
        The parameters ε and M.
    d : int
        Depth: H' lives on T_{d−1}.
    collection : tuple of (str, tuple of int)
        The final collection C: each b (the forced-branch bits) with the rows of V_b.
    ancestors_first : bool
        Every node's parent was output before it (Claim B.3).
    length_bound : int
        (d+1)·2^{M+1}; Claim B.3 says n < length_bound.
    node_points : numpy.ndarray or None
        When built from a Littlestone tree of a larger class, the original point of each node.
    """

    sequence: np.ndarray
    reduced: ConceptClass
    eps: float
    M: int
    d: int
    collection: tuple[tuple[str, tuple[int, ...]], ...]
    ancestors_first: bool
    length_bound: int
    node_points: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.sequence.size)

    @property
    def within_length_bound(self) -> bool:
        """n < (d+1)·2^{M+1} (Claim B.3)."""
        return self.n < self.length_bound

    @property
    def mistake_lower_bound(self) -> int:
        """min(M + 1, ⌈(d + n·log2(1−ε)) / log2(1/ε)⌉), clipped at 0: the forced mistakes every
        learner suffers, by the potential argument of Thm B.1's proof (a run with m ≤ M forced
        mistakes ends with a single hypothesis, so 1 ≥ 2^d ε^m (1−ε)^{n−m}). At the paper's
        parameters this is M + 1 > √d/10; :func:`guaranteed_mistakes` is at least this."""
        potential = (self.d + self.n * math.log2(1.0 - self.eps)) / math.log2(1.0 / self.eps)
        return max(0, min(self.M + 1, math.ceil(potential - 1e-12)))

    @property
    def original_sequence(self) -> np.ndarray:
        """The sequence as point indices of the original class (identity without a tree)."""
        return self.sequence if self.node_points is None else self.node_points[self.sequence]


def construct_sequence(
    H: ConceptClass,
    eps: float,
    M: int,
    *,
    tree: Any = None,
    order: str = "fifo",
    rng: Any = None,
) -> AdversarySequence:
    """CONSTRUCTSEQUENCE(ε, M): the lower-bound adversary's sequence (the paper's Alg. 1).

    Keeps a collection C of pairs (b, V_b), starting with (λ, H'), and a queue Q = {root}. While
    Q is non-empty, pop a node x and output it; for every (b, V) in C let
    r = #(V ∩ [x=1]) / #V (# counts hypotheses):

    * if ε ≤ r ≤ 1 − ε and len(b) < M, split into (b0, V ∩ [x=0]) and (b1, V ∩ [x=1]);
    * otherwise keep V ∩ [x = majority label] (ties -> 0).

    For every resulting V' such that x is on every member's path and x is not at the last level,
    push the child x∘y (y = V''s label at x), unless it was already queued. The paper takes
    ε = 2^{−√d/2} and M = √d/10, which is < 1 for d < 100; tune (ε, M) at small d.

    Parameters
    ----------
    H : ConceptClass
        A tree-node class with one hypothesis per leaf path (e.g. ``tree_class(d, q)``), or any
        class when ``tree`` is given.
    eps : float
        ε ∈ (0, 1/2].
    M : int
        Most forced branches tracked per member of C (≥ 0).
    tree : Mapping[str, int] or sequence of int, optional
        A Littlestone tree shattered by H (see :func:`reduce_to_tree`); H is first reduced to
        one witness per leaf.
    order : {"fifo", "lifo", "random"}
        Which queued node to pop; the claims hold for any order.
    rng : numpy.random.Generator, int or None
        Randomness for ``order="random"``.

    Returns
    -------
    AdversarySequence
        With ``ancestors_first`` and ``within_length_bound`` recording Claim B.3.

    Examples
    --------
    >>> from sims.online import construct_sequence
    >>> from theory.online.constructions import tree_class
    >>> sequence = construct_sequence(tree_class(3), eps=0.25, M=1)
    >>> sequence.sequence.tolist(), sequence.ancestors_first, sequence.within_length_bound
    ([0, 1, 2, 3, 5], True, True)
    """
    eps = _check_eps(eps)
    if isinstance(M, bool) or not isinstance(M, (int, np.integer)) or M < 0:
        raise ValueError(f"M must be a non-negative integer, got {M!r}")
    M = int(M)
    if order not in ("fifo", "lifo", "random"):
        raise ValueError(f"order must be 'fifo', 'lifo' or 'random', got {order!r}")
    node_points = None
    if tree is not None:
        red = reduce_to_tree(H, tree)
        H, node_points = red.cls, red.node_points
    tr = _Tree.of(H)
    gen = np.random.default_rng(rng) if order == "random" else None
    cols = _column_masks(H)
    collection: list[tuple[str, int]] = [("", (1 << H.n_hypotheses) - 1)]
    queue: list[int] = [0]
    queued = {0}
    out: list[int] = []
    while queue:
        if order == "fifo":
            x = queue.pop(0)
        elif order == "lifo":
            x = queue.pop()
        else:
            x = queue.pop(int(gen.integers(len(queue))))
        out.append(x)
        col, on_x = cols[x], tr.on_path[x]
        new: list[tuple[str, int]] = []
        for b, v in collection:
            size, ones = v.bit_count(), (v & col).bit_count()
            if _is_forced(ones, size, eps) and len(b) < M:
                new += [(b + "0", v & ~col), (b + "1", v & col)]
            else:
                new.append((b, v & col if _majority(ones, size) else v & ~col))
        for _, v in new:
            if v & on_x == v:
                y = 1 if v & col else 0
                child = tr.child(x, y)
                if child is not None and child not in queued:
                    queued.add(child)
                    queue.append(child)
        collection = new
    seq = np.asarray(out, dtype=np.int64)
    position = {x: t for t, x in enumerate(out)}
    ancestors_first = all(
        x == 0 or position.get((x - 1) // 2, len(out)) < t for t, x in enumerate(out)
    )
    return AdversarySequence(
        sequence=seq,
        reduced=H,
        eps=eps,
        M=M,
        d=tr.d,
        collection=tuple((b, tuple(_members(v))) for b, v in collection),
        ancestors_first=ancestors_first,
        length_bound=(tr.d + 1) * 2 ** (M + 1),
        node_points=node_points,
    )


def _sequence_and_eps(
    H: ConceptClass | None, sequence: Any, eps: Any
) -> tuple[ConceptClass, np.ndarray, float, AdversarySequence | None]:
    adv = sequence if isinstance(sequence, AdversarySequence) else None
    if adv is not None:
        H = adv.reduced if H is None else H
        eps = adv.eps if eps is None else eps
        seq = adv.sequence
    else:
        seq = np.asarray(sequence, dtype=np.int64).reshape(-1)
    if H is None:
        raise ValueError("H is required unless sequence is an AdversarySequence")
    if eps is None:
        raise ValueError("eps is required unless sequence is an AdversarySequence")
    if seq.size and (seq.min() < 0 or seq.max() >= H.n_points):
        raise ValueError(f"sequence: point indices must be in [0, {H.n_points})")
    return H, seq, _check_eps(eps), adv


# -------------------------------------------------------------- Alg. 2: the guaranteed mistakes
def guaranteed_mistakes(
    H: ConceptClass | None, sequence: Any, eps: float | None = None, max_states: int = 1_000_000
) -> int:
    """Mistakes the labelling rule guarantees against the best learner (g ≤ v(H, x) ≤ M_tr).

    g(V, t) = 0 for t > n; at a forced step (r_t = #(V ∩ [x_t=1]) / #V ∈ [ε, 1−ε], # counting
    hypotheses), g(V, t) = 1 + min(g(V⁰, t+1), g(V¹, t+1)); otherwise g(V, t) = g(V^maj, t+1).
    Forced steps are not capped (as in the labelling rule, Alg. 2). Since the rule is one
    adversary strategy, g(H, 1) ≤ v(H, x) ≤ M_tr(H).

    Parameters
    ----------
    H : ConceptClass or None
        The class the sequence indexes (None: ``sequence.reduced``).
    sequence : AdversarySequence or sequence of int
        Point indices x_1..x_n.
    eps : float, optional
        ε ∈ (0, 1/2]; defaults to ``sequence.eps`` for an AdversarySequence.
    max_states : int
        Refuse when the adversary's game tree has more distinct (t, V) states.

    Returns
    -------
    int
        g(H, 1).

    Raises
    ------
    ValueError
        When the game tree has more than ``max_states`` states, or on a bad ``eps`` or sequence.

    Examples
    --------
    >>> from sims.online import construct_sequence, guaranteed_mistakes
    >>> from theory.online.constructions import tree_class
    >>> H = tree_class(3)
    >>> guaranteed_mistakes(None, construct_sequence(H, eps=0.25, M=1))
    2
    >>> guaranteed_mistakes(H, range(7), eps=0.25)  # every node in heap order
    3
    """
    H, seq, eps, _ = _sequence_and_eps(H, sequence, eps)
    cols = _column_masks(H)
    layers: list[dict[int, tuple[int, ...]]] = []  # layer t: V -> successors at t+1
    frontier = {(1 << H.n_hypotheses) - 1}
    n_states = 0
    for x in seq.tolist():
        col, layer = cols[x], {}
        for v in frontier:
            size, ones = v.bit_count(), (v & col).bit_count()
            if _is_forced(ones, size, eps):
                layer[v] = (v & ~col, v & col)
            else:
                layer[v] = (v & col if _majority(ones, size) else v & ~col,)
        layers.append(layer)
        frontier = {c for succ in layer.values() for c in succ}
        n_states += len(frontier)
        if n_states > max_states:
            raise ValueError(f"max_states: the adversary's game tree exceeds {max_states} states")
    value = dict.fromkeys(frontier, 0)
    for layer in reversed(layers):
        value = {
            v: (1 + min(value[s[0]], value[s[1]]) if len(s) == 2 else value[s[0]])
            for v, s in layer.items()
        }
    return value[(1 << H.n_hypotheses) - 1]


def run_adversary(
    H: ConceptClass | None, sequence: Any, learner: OnlineLearner, eps: float | None = None
) -> dict[str, Any]:
    """Play the labelling rule (the paper's Alg. 2) against a learner.

    At step t, with live version space V_t and r_t = #(V_t ∩ [x_t=1]) / #V_t (# counts
    hypotheses): if ε ≤ r_t ≤ 1−ε the adversary answers 1 − ŷ_t (a forced mistake, uncapped),
    otherwise the majority label. The potential log2 #V_t drops by at most log2(1/ε) at a
    forced step and by at most log2(1/(1−ε)) otherwise (the potential argument of Thm B.1's
    proof).

    Parameters
    ----------
    H : ConceptClass or None
        The class (None: ``sequence.reduced``).
    sequence : AdversarySequence or sequence of int
        Point indices x_1..x_n.
    learner : object with ``predict(x) -> int`` and ``update(x, y)``
        Told the labels after each prediction; x is a point index of H.
    eps : float, optional
        ε; defaults to ``sequence.eps`` for an AdversarySequence.

    Returns
    -------
    dict
        ``points``, ``predictions``, ``labels`` (n,) int arrays; ``forced``, ``mistakes`` (n,)
        bool arrays; ``ratio`` (n,) r_t; ``log2_size`` (n+1,) log2 #V_t from V_0 = H;
        ``potential_ok`` (n,) whether each drop respects the bound above; scalars
        ``n_mistakes``, ``n_forced``, ``final_size``; ``final_members`` (row indices of V_n);
        and, for an AdversarySequence, ``in_collection`` (V_n is one of the final sets of C;
        Claim B.4 says so whenever n_forced ≤ M, and then V_n is a single hypothesis by
        Claim B.5).

    Examples
    --------
    >>> from sims.online import DangerZoneLearner, construct_sequence, hypothesis_paths
    >>> from sims.online import run_adversary
    >>> from theory.online.constructions import tree_class
    >>> sequence = construct_sequence(tree_class(3), eps=0.25, M=1)
    >>> H = sequence.reduced
    >>> learner = DangerZoneLearner(H, hypothesis_paths(H), sequence.sequence)
    >>> game = run_adversary(None, sequence, learner)
    >>> game["n_mistakes"], game["n_forced"], bool(game["potential_ok"].all())
    (2, 2, True)
    """
    H, seq, eps, adv = _sequence_and_eps(H, sequence, eps)
    cols = _column_masks(H)
    v = (1 << H.n_hypotheses) - 1
    n = seq.size
    preds = np.zeros(n, dtype=np.int64)
    labels = np.zeros(n, dtype=np.int64)
    forced = np.zeros(n, dtype=bool)
    ratio = np.zeros(n)
    log2_size = np.zeros(n + 1)
    log2_size[0] = math.log2(v.bit_count())
    for t, x in enumerate(seq.tolist()):
        y_hat = int(learner.predict(x))
        if y_hat not in (0, 1):
            raise ValueError(f"learner predicted {y_hat!r} at step {t}, not 0 or 1")
        size, ones = v.bit_count(), (v & cols[x]).bit_count()
        ratio[t] = ones / size
        forced[t] = _is_forced(ones, size, eps)
        y = 1 - y_hat if forced[t] else _majority(ones, size)
        v = v & cols[x] if y else v & ~cols[x]
        learner.update(x, y)
        preds[t], labels[t] = y_hat, y
        log2_size[t + 1] = math.log2(v.bit_count())
    drop = log2_size[:-1] - log2_size[1:]
    bound = np.where(forced, -math.log2(eps), -math.log2(1.0 - eps))
    out: dict[str, Any] = {
        "points": seq.copy(),
        "predictions": preds,
        "labels": labels,
        "forced": forced,
        "mistakes": preds != labels,
        "ratio": ratio,
        "log2_size": log2_size,
        "potential_ok": drop <= bound + 1e-9,
        "n_mistakes": int(np.sum(preds != labels)),
        "n_forced": int(forced.sum()),
        "final_size": v.bit_count(),
        "final_members": np.asarray(_members(v), dtype=np.int64),
    }
    if adv is not None:
        finals = {_mask_of(m) for _, m in adv.collection}
        out["in_collection"] = v in finals
    return out


# ------------------------------------------------------------------ Alg. 5–7: the upper bound
#: Mistake cases of an expert: its rule 1 (Halving), rule 2 (ancestor of u), rule 3 followed by
#: deleting the wrong side from S, rule 3 followed by a split.
MISTAKE_CASES = ("halving", "ancestor", "zone_delete", "zone_split")


@dataclass(slots=True)
class Expert:
    """An expert (S, u, V) of Alg. 5 with its weight and mistake record.

    Attributes
    ----------
    zone : int
        The danger zone S, a bitset over points (nodes).
    anchor : int
        u, the deepest node assumed to be on the target's path (heap index).
    members : int
        The version space V under the labels and the expert's assumptions, a bitset over rows.
    weight : float
        The expert's weight in the weighted majority: halved at each of its mistakes and shared
        equally among the experts it splits into.
    off_path : frozenset of int
        Nodes assumed off the target's path (recorded for reports; V already encodes them).
    mistakes : dict
        Mistakes of this expert and its ancestors, by case (:data:`MISTAKE_CASES`).
    """

    zone: int
    anchor: int
    members: int
    weight: float
    off_path: frozenset[int] = frozenset()
    mistakes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MISTAKE_CASES, 0))

    @property
    def size(self) -> int:
        return self.members.bit_count()


class DangerZoneLearner:
    """The upper-bound learner: weighted majority over splitting experts (the paper's Alg. 5–7).

    An expert is (S, u, V): S the danger zone (initially the first t_max points of the sequence),
    u the deepest node assumed on the target's path (initially the root), V the version space
    under the labels and the assumptions. Its prediction at x is

    1. if |V| ≤ ``halving_size``: the Halving vote on V (ties -> 0);
    2. else, if x is a proper ancestor of u: the bit leading from x towards u;
    3. else: 1 if more than |S|/3 of S lies in the subtree of x∘1, otherwise 0.

    Update with (x, y): every expert filters V by y at x. An expert that erred with rule 2 or 3
    (|V| > ``halving_size``): if more than |S|/3 of S lies below x∘(1−y), those nodes are deleted
    from S; otherwise it splits into (S, u, V ∩ {x off-path}) and (S ∩ desc(x), the deeper of u
    and x, V ∩ {x on-path}). An erring expert's weight is halved and shared equally among its
    successors; experts with empty V are pruned and identical states merged (both safe). The
    learner predicts 1 iff the experts predicting 1 hold at least half of the *total* weight (the
    reading of Alg. 5's threshold in docs/online.md#the-learner-and-its-class-upper-bound).

    Since the V's of the experts always partition the hypotheses consistent with the labels,
    exactly one expert has V ∋ target, i.e. makes only true assumptions (Lemma D.4).

    Caveat: Claim D.8 says each learner mistake halves the total weight; with
    penalty 1/2, weighted majority only guarantees a factor 3/4, so the bound 48√d becomes
    48/log2(4/3)·√d ≈ 115.7√d (still O(√d)).

    Thresholds. The paper's ``halving_size`` = 2^{2√d} is ≥ |H| = 2^d for d ≤ 4 (the learner is
    then plain Halving) and still most of log2|H| beyond, and ``t_max`` = 2^{4√d} ≥ |X| = 2^d − 1
    for d ≤ 16 (the danger zone is every point of the sequence); pass smaller values to exercise
    the split logic at small d. The analysis (P1, P2, Claim D.6 need d ≥ 43) does not hold then,
    but Lemma D.4 and the weight bookkeeping do.

    Parameters
    ----------
    H : ConceptClass
        A tree-node class with one hypothesis per leaf path (e.g. ``tree_class(d, q)``).
    paths : array-like or None
        (|H|, d) path node indices of the hypotheses (checked against H's labels; None derives
        them, see :func:`hypothesis_paths`).
    sequence : sequence of int
        The whole sequence x_1..x_n (the transductive learner sees it in advance).
    d : int, optional
        The depth (checked against H; inferred when None).
    halving_size : float, optional
        Rule 1 threshold; default 2^{2√d}.
    t_max : float, optional
        Number of leading sequence steps whose points form the initial danger zone; default
        2^{4√d} (capped at n).
    """

    def __init__(
        self,
        H: ConceptClass,
        paths: Any,
        sequence: Any,
        d: int | None = None,
        *,
        halving_size: float | None = None,
        t_max: float | None = None,
    ) -> None:
        tr = _Tree.of(H, paths)
        if d is not None and d != tr.d:
            raise ValueError(f"d = {d} does not match H, which lives on T_(d−1) with d = {tr.d}")
        seq = np.asarray(sequence, dtype=np.int64).reshape(-1)
        if seq.size and (seq.min() < 0 or seq.max() >= H.n_points):
            raise ValueError(f"sequence: point indices must be in [0, {H.n_points})")
        self.H = H
        self.d = tr.d
        self.sequence = seq
        self.halving_size = 2.0 ** (2 * math.sqrt(tr.d)) if halving_size is None else halving_size
        self.t_max = 2.0 ** (4 * math.sqrt(tr.d)) if t_max is None else t_max
        if not self.halving_size >= 0:
            raise ValueError(f"halving_size must be ≥ 0, got {halving_size!r}")
        if not self.t_max >= 0:
            raise ValueError(f"t_max must be ≥ 0, got {t_max!r}")
        self._tree = tr
        self._cols = _column_masks(H)
        self._full = (1 << H.n_hypotheses) - 1
        n_zone = seq.size if self.t_max >= seq.size else int(self.t_max)
        zone = _mask_of(seq[:n_zone].tolist())
        self.experts: list[Expert] = [Expert(zone, 0, self._full, 1.0)]
        self.n_mistakes = 0
        self.t = 0
        self._pending: tuple[int, list[tuple[int, str]], int] | None = None

    # ----------------------------------------------------------------------------- experts
    def _is_proper_ancestor(self, x: int, u: int) -> bool:
        while u > 0:
            u = (u - 1) // 2
            if u == x:
                return True
        return False

    def _toward(self, x: int, u: int) -> int:
        """The bit on the edge out of x on the way to its descendant u."""
        while u > 0:
            parent = (u - 1) // 2
            if parent == x:
                return u - (2 * x + 1)
            u = parent
        raise AssertionError("x is not an ancestor of u")

    def _below(self, x: int, bit: int) -> int:
        """Bitset of the nodes in the subtree of x∘bit (empty at the last level)."""
        child = self._tree.child(x, bit)
        return 0 if child is None else self._tree.subtree[child]

    def expert_prediction(self, e: Expert, x: int) -> tuple[int, str]:
        """(ŷ, rule) of one expert at x: rule is "halving", "ancestor" or "zone"."""
        size = e.size
        if size <= self.halving_size:
            return _majority((e.members & self._cols[x]).bit_count(), size), "halving"
        if self._is_proper_ancestor(x, e.anchor):
            return self._toward(x, e.anchor), "ancestor"
        ones = (e.zone & self._below(x, 1)).bit_count()
        return int(3 * ones > e.zone.bit_count()), "zone"

    # ----------------------------------------------------------------------------- learner
    def predict(self, x: int) -> int:
        """Weighted majority: 1 iff the weight predicting 1 is ≥ half the total weight."""
        votes = [self.expert_prediction(e, x) for e in self.experts]
        w1 = sum(e.weight for e, (p, _) in zip(self.experts, votes, strict=True) if p)
        total = sum(e.weight for e in self.experts)
        y_hat = int(2 * w1 >= total)
        self._pending = (x, votes, y_hat)
        return y_hat

    def update(self, x: int, y: int) -> None:
        """Filter every V by (x, y); split or shrink the danger zone of erring experts."""
        if y not in (0, 1):
            raise ValueError(f"y must be 0 or 1, got {y!r}")
        if self._pending is None or self._pending[0] != x:
            self.predict(x)
        _, votes, y_hat = self._pending
        self._pending = None
        self.n_mistakes += int(y_hat != y)
        self.t += 1
        keep = self._cols[x] if y else self._full & ~self._cols[x]
        on_x = self._tree.on_path[x]
        successors: list[Expert] = []
        for e, (p, rule) in zip(self.experts, votes, strict=True):
            members = e.members & keep
            if p == y:
                successors.append(
                    Expert(e.zone, e.anchor, members, e.weight, e.off_path, e.mistakes)
                )
                continue
            mistakes = dict(e.mistakes)
            if rule != "zone":
                mistakes[rule] += 1
                successors.append(
                    Expert(e.zone, e.anchor, members, e.weight / 2, e.off_path, mistakes)
                )
                continue
            wrong_side = e.zone & self._below(x, 1 - y)
            if 3 * wrong_side.bit_count() > e.zone.bit_count():
                mistakes["zone_delete"] += 1
                successors.append(
                    Expert(
                        e.zone & ~wrong_side, e.anchor, members, e.weight / 2, e.off_path, mistakes
                    )
                )
                continue
            mistakes["zone_split"] += 1
            deeper = x if node_depth(x) > node_depth(e.anchor) else e.anchor
            below_x = self._tree.subtree[x] & ~(1 << x)
            successors += [
                Expert(e.zone, e.anchor, members & ~on_x, e.weight / 4, e.off_path | {x}, mistakes),
                Expert(
                    e.zone & below_x,
                    deeper,
                    members & on_x,
                    e.weight / 4,
                    e.off_path,
                    dict(mistakes),
                ),
            ]
        merged: dict[tuple[int, int, int], Expert] = {}
        for e in successors:
            if not e.members:
                continue
            key = (e.zone, e.anchor, e.members)
            if key in merged:
                merged[key].weight += e.weight
            else:
                merged[key] = e
        self.experts = list(merged.values())

    # ----------------------------------------------------------------------- introspection
    @property
    def total_weight(self) -> float:
        return sum(e.weight for e in self.experts)

    def consistent_experts(self, target_row: int) -> list[Expert]:
        """Experts all of whose assumptions hold for hypothesis ``target_row`` (its row index),
        given labels that agree with it: those whose V contains it."""
        bit = 1 << int(target_row)
        return [e for e in self.experts if e.members & bit]

    def n_consistent_experts(self, target_row: int) -> int:
        """Number of :meth:`consistent_experts` (1 whenever the labels come from the target)."""
        return len(self.consistent_experts(target_row))

    def true_expert(self, target_row: int) -> Expert | None:
        """The unique consistent expert (None if there is none; ValueError if several)."""
        found = self.consistent_experts(target_row)
        if len(found) > 1:
            raise ValueError(f"{len(found)} experts are consistent with row {target_row}")
        return found[0] if found else None


@dataclass
class LearnerRun:
    """One game of :class:`DangerZoneLearner` against the labels of one target hypothesis."""

    #: Mistakes the learner made on the sequence.
    mistakes: int
    true_weight: float  #: weight of the true expert at the end (0 if none is left)
    steps_without_one_true_expert: int  #: Lemma D.4 says 0
    weight_factors: list[float]  #: W_after / W_before of the total weight at each learner mistake
    true_expert_mistakes: dict[str, int]  #: the true expert's mistakes by rule (Claim D.8's cases)


def play_learner(
    H: ConceptClass, order: np.ndarray, target: int, halving_size: float
) -> LearnerRun:
    """Run the upper-bound learner (:class:`DangerZoneLearner`, ``t_max`` = the whole sequence) on
    the points ``order`` labelled by row ``target`` of ``H``.

    Records after every step how many experts make only true assumptions and, at every learner
    mistake, the factor by which the total weight shrinks: W_after / W_before ≤ 3/4 with penalty
    1/2 (the correction to Claim D.8; the paper claims 1/2).

    Parameters
    ----------
    H : ConceptClass
        A tree-node class.
    order : numpy.ndarray of int
        The sequence of point indices.
    target : int
        Row of ``H`` that labels the points.
    halving_size : float
        The learner's Halving threshold.

    Returns
    -------
    LearnerRun
        The learner's mistakes, the true expert's final weight and mistakes by rule, the steps
        without exactly one true expert (Lemma D.4 says 0) and the weight factors.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online import play_learner
    >>> from theory.online.constructions import tree_class
    >>> run = play_learner(tree_class(3), np.arange(7), target=3, halving_size=1)
    >>> run.mistakes, run.steps_without_one_true_expert, run.weight_factors
    (3, 0, [0.5, 0.25, 0.25])
    """
    learner = DangerZoneLearner(H, None, order, halving_size=halving_size, t_max=len(order))
    bad_steps, factors = 0, []
    for x in order:
        before = learner.total_weight
        y = int(H.matrix[target, x])
        wrong = learner.predict(int(x)) != y
        learner.update(int(x), y)
        if wrong:
            factors.append(learner.total_weight / before)
        bad_steps += int(learner.n_consistent_experts(target) != 1)
    true = learner.true_expert(target)
    return LearnerRun(
        mistakes=learner.n_mistakes,
        true_weight=0.0 if true is None else true.weight,
        steps_without_one_true_expert=bad_steps,
        weight_factors=factors,
        true_expert_mistakes={} if true is None else dict(true.mistakes),
    )


# --------------------------------------------------------------------------------- graphs
def littlestone_tree_graph(tree: Any, H: ConceptClass | None = None) -> nx.DiGraph:
    """A Littlestone tree as a directed graph.

    Parameters
    ----------
    tree : LittlestoneTree, Mapping[str, int] or sequence of int
        Node bit string -> point index, or the point indices in breadth-first order. A
        :class:`theory.online.dims.LittlestoneTree` also contributes its leaves.
    H : ConceptClass, optional
        Used to name the points (``H.points``).

    Returns
    -------
    networkx.DiGraph
        Nodes are the bit strings ("" is the root) with attributes ``point`` (label),
        ``point_index`` and ``depth``; edges s -> s∘y carry ``label`` = y. ``G.graph["depth"]``
        is the number of levels d. For a LittlestoneTree the 2^d leaves (bit strings of length
        d) are added with ``point`` "", ``point_index`` −1 and ``witness`` (the row realizing
        the path).

    Examples
    --------
    >>> from sims.online import littlestone_tree_graph
    >>> G = littlestone_tree_graph([0, 1, 2])  # root 0, children 1 and 2
    >>> G.graph["depth"], sorted(G.edges(data="label"))
    (2, [('', '0', 0), ('', '1', 1)])
    """
    pts = _tree_points(tree)
    if H is not None and (pts.min() < 0 or pts.max() >= H.n_points):
        raise ValueError(f"tree: point indices must be in [0, {H.n_points})")
    d = (pts.size + 1).bit_length() - 1
    G = nx.DiGraph(depth=d)
    for j, p in enumerate(pts.tolist()):
        s = node_label(j)
        G.add_node(s, point=H.points[p] if H is not None else str(p), point_index=p, depth=len(s))
        if j:
            G.add_edge(node_label((j - 1) // 2), s, label=int(s[-1]))
    for leaf, row in (getattr(tree, "witnesses", None) or {}).items():
        if len(leaf) == d and d > 0:
            G.add_node(leaf, point="", point_index=-1, depth=d, witness=int(row))
            G.add_edge(leaf[:-1], leaf, label=int(leaf[-1]))
    return G


def _c(a: int, b: int) -> int:
    """BKM's combination c(a, b) = a + 1 if a = b, else max(a, b) (BKM97, as used by the paper)."""
    return a + 1 if a == b else max(a, b)


def game_tree_graph(H: ConceptClass, sequence: Any, max_nodes: int = 100_000) -> nx.DiGraph:
    """The transductive game tree of H on a fixed sequence, with the value of every node.

    Node (t, V) is the state before step t with version space V (0-based t; t = n is the end).
    Its children are (t+1, V ∩ [x_t = y]) for the realizable labels y, edge attribute
    ``label``. States with at most one hypothesis (#V ≤ 1) or t = n are leaves. The value is
    BKM97's recursion: v = 0 at a leaf, v = v(child) at a forced label, v = c(v⁰, v¹) with
    c(a, b) = a + 1 if a = b else max(a, b) at a branching step; ``G.graph["value"]`` = v(H, x)
    at the root.

    Parameters
    ----------
    H : ConceptClass
        The class.
    sequence : sequence of int
        Point indices x_1..x_n.
    max_nodes : int
        Refuse a game tree with more nodes.

    Returns
    -------
    networkx.DiGraph
        Node ids ``"t:k"`` (k numbers the distinct version spaces at step t); attributes ``t``,
        ``point`` (label of x_t, "" at t = n), ``point_index`` (−1 at t = n), ``size`` = #V,
        ``members`` (V as a 0/1 string over H's rows) and ``value``.

    Raises
    ------
    ValueError
        When a point index is out of range or the tree has more than ``max_nodes`` nodes.

    Examples
    --------
    >>> from sims.online import game_tree_graph
    >>> from theory.online.constructions import gadget_w
    >>> G = game_tree_graph(gadget_w(), [0, 1, 2, 3])
    >>> G.graph["value"], G.nodes["0:0"]["size"], G.number_of_nodes()  # M_tr(W) = 2
    (2, 8, 15)
    """
    seq = np.asarray(sequence, dtype=np.int64).reshape(-1)
    if seq.size and (seq.min() < 0 or seq.max() >= H.n_points):
        raise ValueError(f"sequence: point indices must be in [0, {H.n_points})")
    cols = _column_masks(H)
    n, n_hyp = seq.size, H.n_hypotheses
    G = nx.DiGraph(n=n)
    ids: list[dict[int, str]] = [{} for _ in range(n + 1)]

    def node(t: int, v: int) -> str:
        if v not in ids[t]:
            if G.number_of_nodes() >= max_nodes:
                raise ValueError(f"max_nodes: the game tree has more than {max_nodes} nodes")
            nid = f"{t}:{len(ids[t])}"
            ids[t][v] = nid
            G.add_node(
                nid,
                t=t,
                point=H.points[seq[t]] if t < n else "",
                point_index=int(seq[t]) if t < n else -1,
                size=v.bit_count(),
                members="".join("1" if v >> i & 1 else "0" for i in range(n_hyp)),
            )
        return ids[t][v]

    node(0, (1 << n_hyp) - 1)
    for t in range(n):
        col = cols[seq[t]]
        for v, nid in list(ids[t].items()):
            if v.bit_count() <= 1:
                continue
            for y, child in ((0, v & ~col), (1, v & col)):
                if child:
                    G.add_edge(nid, node(t + 1, child), label=y)
    for nid in reversed(list(nx.topological_sort(G))):
        vals = [G.nodes[c]["value"] for c in G.successors(nid)]
        G.nodes[nid]["value"] = 0 if not vals else vals[0] if len(vals) == 1 else _c(*vals)
    G.graph["value"] = G.nodes["0:0"]["value"]
    return G


def _dot_quote(value: Any) -> str:
    s = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{s}"'


def _dot_attrs(attrs: Mapping[str, Any]) -> str:
    if not attrs:
        return ""
    return " [" + ", ".join(f"{_dot_quote(k)}={_dot_quote(v)}" for k, v in attrs.items()) + "]"


def _to_dot(G: nx.DiGraph) -> str:
    kind, arrow = ("digraph", "->") if G.is_directed() else ("graph", "--")
    lines = [f"{kind} {_dot_quote(G.graph.get('name', 'G'))} {{"]
    lines += [f"  {_dot_quote(k)}={_dot_quote(v)};" for k, v in G.graph.items() if k != "name"]
    lines += [f"  {_dot_quote(n)}{_dot_attrs(a)};" for n, a in G.nodes(data=True)]
    lines += [
        f"  {_dot_quote(u)} {arrow} {_dot_quote(v)}{_dot_attrs(a)};"
        for u, v, a in G.edges(data=True)
    ]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _plain(value: Any) -> Any:
    """numpy scalars -> Python scalars; other non-GraphML types -> str."""
    if isinstance(value, np.generic):
        value = value.item()
    return value if isinstance(value, (bool, int, float, str)) else str(value)


def write_graph(G: nx.Graph, path: str | Path) -> Path:
    """Write G as GraphML (suffix ``.graphml``) or DOT (suffix ``.dot``; a plain writer, every ID
    and attribute quoted).

    Parameters
    ----------
    G : networkx.Graph
        The graph (e.g. :func:`littlestone_tree_graph`, :func:`game_tree_graph`).
    path : str or pathlib.Path
        The file written; its suffix picks the format.

    Returns
    -------
    pathlib.Path
        The path.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sims.online import littlestone_tree_graph, write_graph
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_graph(littlestone_tree_graph([0, 1, 2]), Path(folder) / "tree.dot")
    ...     print(path.read_text().splitlines()[0])
    digraph "G" {
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".graphml":
        H = G.copy()
        H.graph.update({k: _plain(v) for k, v in G.graph.items()})
        for _, a in H.nodes(data=True):
            a.update({k: _plain(v) for k, v in a.items()})
        for _, _, a in H.edges(data=True):
            a.update({k: _plain(v) for k, v in a.items()})
        nx.write_graphml(H, path)
    elif suffix == ".dot":
        path.write_text(_to_dot(G), encoding="utf-8")
    else:
        raise ValueError(f"path must end in .graphml or .dot, got {str(path)!r}")
    return path


def _tree_layout(G: nx.DiGraph) -> dict[Any, tuple[float, float]]:
    """Leaves at consecutive x (children in edge-label order), parents centred over their
    children, y = −depth. Nodes reached twice keep their first parent."""
    preorder: list[Any] = []
    children: dict[Any, list[Any]] = {}
    depth: dict[Any, int] = {}
    starts = [n for n in G.nodes if G.in_degree(n) == 0] + list(G.nodes)
    for root in starts:
        stack: list[tuple[Any, Any]] = [(root, None)]
        while stack:
            n, parent = stack.pop()
            if n in depth:
                continue
            depth[n] = 0 if parent is None else depth[parent] + 1
            children[n] = []
            if parent is not None:
                children[parent].append(n)
            preorder.append(n)
            kids = sorted(
                (c for c in G.successors(n) if c not in depth),
                key=lambda c, n=n: str(G.edges[n, c].get("label", "")),
            )
            stack.extend((c, n) for c in reversed(kids))
    x: dict[Any, float] = {}
    leaves = [n for n in preorder if not children[n]]
    x.update((n, float(i)) for i, n in enumerate(leaves))
    for n in reversed(preorder):
        if children[n]:
            x[n] = sum(x[c] for c in children[n]) / len(children[n])
    return {n: (x[n], -float(depth[n])) for n in preorder}


def draw_tree(G: nx.DiGraph, ax: Any = None, label: str | None = "point") -> dict[str, Any]:
    """Plot a tree-shaped graph (Littlestone tree or game tree) with a hierarchical layout.

    Parameters
    ----------
    G : networkx.DiGraph
        Edges may carry ``label`` (drawn at their midpoints).
    ax : matplotlib Axes, optional
        Drawn into (a new figure's axes when None).
    label : str or None
        Node attribute written next to each node (the node id when missing); None: no labels.

    Returns
    -------
    dict
        ``edges`` (LineCollection), ``nodes`` (PathCollection), ``node_labels`` and
        ``edge_labels`` (lists of Text), ``positions`` (node -> (x, y)).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sims.online import draw_tree, littlestone_tree_graph
    >>> fig, ax = plt.subplots()
    >>> drawn = draw_tree(littlestone_tree_graph([0, 1, 2]), ax=ax)
    >>> drawn["positions"]  # the root above its two children
    {'': (0.5, -0.0), '0': (0.0, -1.0), '1': (1.0, -1.0)}
    >>> plt.close(fig)
    """
    from matplotlib.collections import LineCollection

    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure().add_subplot()
    pos = _tree_layout(G)
    order = list(G.nodes)
    segments = [(pos[u], pos[v]) for u, v in G.edges]
    edges = LineCollection(segments, colors="0.5", linewidths=1.0, zorder=1)
    ax.add_collection(edges)
    xy = np.array([pos[n] for n in order], dtype=float).reshape(-1, 2)  # (n_nodes, 2)
    nodes = ax.scatter(xy[:, 0], xy[:, 1], s=60, zorder=2)
    node_labels = []
    if label is not None:
        for n in order:
            text = G.nodes[n].get(label, n)
            x, y = pos[n]
            node_labels.append(
                ax.text(x, y + 0.15, str(text), ha="center", va="bottom", fontsize=8)
            )
    edge_labels = []
    for u, v, a in G.edges(data=True):
        if "label" in a:
            (x0, y0), (x1, y1) = pos[u], pos[v]
            mid = ((x0 + x1) / 2, (y0 + y1) / 2)
            edge_labels.append(ax.text(*mid, str(a["label"]), fontsize=7, color="0.3"))
    ax.autoscale_view()
    ax.set_axis_off()
    return {
        "edges": edges,
        "nodes": nodes,
        "node_labels": node_labels,
        "edge_labels": edge_labels,
        "positions": pos,
    }
