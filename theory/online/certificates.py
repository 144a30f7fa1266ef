"""Certified lower bounds on M_tr: a sequence together with its exact transductive value.

"M_tr ≥ k" has a short certificate, a sequence x with v(H, x) ≥ k, checked in O(n·|H|) by
:func:`theory.online.transductive.transductive_value` (docs/online.md#how-the-solvers-compute). This
module searches for good sequences; "M_tr ≤ k" has no such certificate (use Ldim, Halving or
products instead).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from theory import _domain
from theory.online.concept_class import ConceptClass
from theory.online.dims import LittlestoneTree, _concept_class, littlestone_tree
from theory.online.transductive import _SequenceScorer, transductive_value

__all__ = ["Certificate", "mtr_lower_bound", "tree_order_floor"]


@dataclass(frozen=True)
class Certificate:
    """A certified lower bound M_tr(H) ≥ ``value``: ``value == transductive_value(H, sequence)``.

    ``sequence`` holds column indices of H; ``method`` names the search step that found it
    (``"empty"``, ``"bfs-tree"``, ``"dfs-tree"``, ``"random"``, ``"hill-climb"`` or
    ``"candidate"``).
    """

    #: The certified bound: M_tr(H) ≥ value, equal to ``transductive_value(H, sequence)``.
    value: int
    #: Column indices of H whose transductive value is ``value``.
    sequence: tuple[int, ...]
    #: The search step that found the sequence.
    method: str


def _count(value: object, name: str) -> int:
    if not isinstance(value, bool | np.bool_):
        try:
            n = operator.index(value)
        except TypeError:
            pass
        else:
            if n >= 0:
                return n
    raise ValueError(f"{name} must be a non-negative integer (got {value!r})")


def tree_order_floor(ldim: int) -> int:
    r"""The transductive value that the BFS order of any shattered Littlestone tree of depth
    ``ldim`` forces, whatever the class around it; hence M_tr(H) ≥ tree_order_floor(Ldim(H)).

    .. math:: f(0) = 0,\quad f(1) = 1,\quad f(2) = f(3) = 2,\quad f(d) = 3 \ (d \ge 4)

    Proved in docs/online.md#exact-values-the-checks-compare-with. Let x be the tree's root and y0,
    y1 its children, and keep only the 2^d leaf witnesses (v is monotone in the class for a fixed
    sequence). Query x, y0, y1 first, then every other point. Two witnesses differ at a tree node,
    so a cell of ≥ 2 witnesses is split by a later point and has value ≥ 1, and a cell whose first
    split leaves ≥ 2 witnesses on each side has value c(≥ 1, ≥ 1) ≥ 2. For d ≥ 4 the x = 0 half
    splits 2^{d−2}/2^{d−2} at y0; in the x = 1 half, y0 (off its paths, unless y0 and y1 are
    one point, which splits it evenly) either splits it with ≥ 2 on each side, or cuts off one
    witness and then y1 splits the rest ≥ 3/≥ 3, or is constant and y1 splits it evenly. Both
    halves are worth ≥ 2, so x forces c(≥ 2, ≥ 2) ≥ 3. For d = 2, 3 the two halves at x are worth
    ≥ 1 each, so x forces 2, and W (Ldim 3, M_tr 2) shows that 2 is all there is at d = 3.

    So no class has (Ldim, M_tr) = (4, 2): a class below BKM97's 2/3 line needs Ldim ≥ 5.
    :func:`mtr_lower_bound` scores the BFS order first, so its value is never below this floor.

    Parameters
    ----------
    ldim : int
        A Littlestone dimension, ≥ 0.

    Returns
    -------
    int
        The floor f(ldim) ≤ ldim.

    Raises
    ------
    ValueError
        Unless ``ldim`` is a non-negative integer.

    Examples
    --------
    >>> from theory.online.certificates import tree_order_floor
    >>> [tree_order_floor(d) for d in range(7)]
    [0, 1, 2, 2, 3, 3, 3]
    """
    d = _count(ldim, "ldim")
    return min(d, 2) if d < 4 else 3


def _tree_orders(C: ConceptClass, tree: LittlestoneTree) -> list[tuple[str, np.ndarray]]:
    """BFS and DFS (pre-order) orders of a Littlestone-tree witness, completed to permutations.

    Querying the tree's nodes top-down lets the adversary follow the tree (as the paper's Alg. 1
    does; the BFS order forces d on minimal tree classes). A point repeated at several nodes is
    kept at its first occurrence (a repeat is a pass-through), and the points off the tree are appended
    (appending never lowers v).
    """
    nodes = tree.nodes
    orders = []
    for name, keys in (
        ("bfs-tree", sorted(nodes, key=lambda s: (len(s), s))),
        ("dfs-tree", sorted(nodes)),  # "" < "0" < "00" < "01" < "1" ...: pre-order
    ):
        first = list(dict.fromkeys(nodes[s] for s in keys))
        seen = set(first)
        rest = [x for x in range(C.n_points) if x not in seen]
        orders.append((name, np.array(first + rest, dtype=np.int64)))
    return orders


def _neighbour(seq: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Swap two positions, or move one point to another position (equal odds)."""
    out = seq.copy()
    i, j = rng.choice(seq.size, size=2, replace=False)
    if rng.random() < 0.5:
        out[i], out[j] = out[j], out[i]
    else:
        out = np.insert(np.delete(out, i), j, seq[i])
    return out


def mtr_lower_bound(
    H: ConceptClass,
    *,
    restarts: int = 20,
    swaps: int = 200,
    rng: np.random.Generator | int | None = None,
    candidates: Sequence[Sequence[int]] = (),
) -> Certificate:
    r"""A certified lower bound on M_tr(H): the best sequence found and its exact value.

    M_tr(H) = max over orders π of X of v(H, π) (docs/online.md#the-game-and-its-value), so any
    order's value is a lower bound. The search runs on the canonical class (constant columns
    dropped, identical or complementary columns merged, which keeps v) and scores every candidate
    with the exact kernel of :func:`~theory.online.transductive.transductive_value`:

    1. the BFS and DFS orders of a Littlestone-tree witness, each completed
       with the points off the tree (appending points never lowers v);
    2. ``restarts`` hill climbs, the first two from those orders and the others from random
       permutations; each tries ``swaps`` moves (swap two positions, or move one point) and
       keeps a move when it does not lower the value (sideways moves cross plateaus).

    Hence ``value ≥`` :func:`tree_order_floor` ``(Ldim)`` (min(Ldim, 2), and 3 from Ldim 4 on):
    the tree's root and its two children come first in BFS order. ``value ≥ VC`` is not guaranteed (no VC search here: it can cost
    |X|^{O(log |H|)}); put a shattered set first yourself if you need it.

    It stops as soon as the value reaches the upper bound min(Ldim, ⌊log2 |H|⌋) (Fact E.1),
    where |H| counts distinct hypotheses. The result is exact for its sequence, hence
    ``value ≤ M_tr(H) ≤ Ldim(H)``; it is deterministic for a given ``rng`` seed.

    Parameters
    ----------
    H : ConceptClass
    restarts : int, default 20
        Number of hill climbs (≥ 0); with 0, only the tree orders are scored.
    swaps : int, default 200
        Moves tried per hill climb (≥ 0).
    rng : numpy.random.Generator, int or None
        Seed or generator for the random starts and moves.
    candidates : sequence of sequences of int
        Further sequences (columns of H, repeats allowed) scored exactly on H, e.g. the output
        of the paper's CONSTRUCTSEQUENCE (``sims.online.construct_sequence``); the best of them
        wins when it beats the search (method ``"candidate"``).

    Returns
    -------
    Certificate
        ``value``, ``sequence`` (a permutation of the canonical class's points, as columns of
        H, or a winning entry of ``candidates``) and the ``method`` that found it.

    Examples
    --------
    >>> from theory.online.certificates import mtr_lower_bound
    >>> from theory.online.constructions import gadget_w
    >>> certificate = mtr_lower_bound(gadget_w(), rng=0)
    >>> certificate.value, certificate.method  # M_tr(W) = 2, found by the tree's BFS order
    (2, 'bfs-tree')
    """
    H = _concept_class(H)
    restarts = _count(restarts, "restarts")
    swaps = _count(swaps, "swaps")
    if (
        candidates is None
        or isinstance(candidates, str | bytes)
        or not hasattr(candidates, "__iter__")
        or not all(hasattr(c, "__len__") and not isinstance(c, str | bytes) for c in candidates)
    ):
        raise ValueError(
            f"candidates must be a sequence of sequences of point indices (got {candidates!r:.60})"
        )
    if any(
        not all(
            isinstance(x, int | np.integer) and not isinstance(x, bool) and 0 <= x < H.n_points
            for x in candidate
        )
        for candidate in candidates
    ):
        raise ValueError(f"candidates must hold point indices in [0, {H.n_points}) only")
    _domain.seed("rng", rng)
    rng = np.random.default_rng(rng)
    C, keep = H.canonical()
    if C.n_points == 0:
        return Certificate(0, (), "empty")

    tree = littlestone_tree(C)
    orders = _tree_orders(C, tree)
    upper = min(tree.depth, C.n_hypotheses.bit_length() - 1)
    score = _SequenceScorer(C)

    best_value, best_seq, best_method = -1, orders[0][1], orders[0][0]

    def consider(value: int, seq: np.ndarray, method: str) -> bool:
        nonlocal best_value, best_seq, best_method
        if value > best_value:
            best_value, best_seq, best_method = value, seq, method
        return best_value >= upper

    done = False
    for name, seq in orders:
        done = consider(score(seq), seq, name)
        if done:
            break
    starts = [seq for _, seq in orders]
    for r in range(restarts if not done else 0):
        if r < len(starts):
            seq, method = starts[r], "hill-climb"
        else:
            seq, method = rng.permutation(C.n_points).astype(np.int64), "random"
        value = score(seq)
        if consider(value, seq, method):
            break
        if C.n_points < 2:
            continue
        for _ in range(swaps):
            cand = _neighbour(seq, rng)
            cand_value = score(cand)
            if cand_value >= value:
                seq, value = cand, cand_value
                if consider(value, seq, "hill-climb"):
                    break
        if best_value >= upper:
            break

    sequence = tuple(int(keep[x]) for x in best_seq)
    best = Certificate(transductive_value(H, sequence), sequence, best_method)
    for candidate in candidates:
        value = transductive_value(H, list(candidate))
        if value > best.value:
            best = Certificate(value, tuple(int(x) for x in candidate), "candidate")
    return best
