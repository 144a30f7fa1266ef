"""Certified brackets on M_tr beyond the DP's reach, by the exact "perfect halving" test.

Fact (the Halving bound, the paper's Fact E.1): v(V) ≤ ⌊log2 |V|⌋ for every version space V, because
c(a, b) = a + 1 only when a = b, so a value-k node needs two children of value k − 1 and hence
2^k hypotheses below it. Consequently, when |H| = 2^k:

    M_tr(H) = k  ⟺  some order π of X makes every split *perfect*: whenever the adversary's
    version space V meets a point x_t on which both labels occur, x_t splits V into two halves of
    exactly |V|/2 hypotheses (a pass-through point keeps V).

Proof: at a node of value k' with |V| = 2^{k'}, c(v0, v1) = k' forces v0 = v1 = k' − 1 (a child
of value k' would need 2^{k'} hypotheses in a proper subset), so both halves hold exactly
2^{k'−1}; recursively every split below is perfect, down to singletons. Conversely perfect splits
down to singletons give value k by induction.

The version spaces the adversary can reach after the points of a set S are the cells of S (the
fibers of H over labelings of S, as in the suffix-set DP of mtr.py), whatever the order inside S.
So the test is a search over point *sets*: from S, a point x ∉ S may come next iff it is constant
or halving on every cell of S; S succeeds when all its cells are singletons. Points constant on
every cell change nothing and are appended at the end. A depth-first search with a memo of
failed sets decides it exactly (within a node budget; past it the answer is "unknown").

:func:`mtr_bracket` combines this with the certified lower bound of certificates.py and the
upper bound min(Ldim, ⌊log2 |H|⌋) into a certified bracket [lower, upper] ∋ M_tr(H).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theory import _domain
from theory.online.certificates import mtr_lower_bound
from theory.online.concept_class import ConceptClass
from theory.online.dims import littlestone_dim
from theory.online.transductive import transductive_value

__all__ = ["Bracket", "PerfectHalving", "mtr_bracket", "perfect_halving_order"]


@dataclass(frozen=True)
class PerfectHalving:
    """Result of :func:`perfect_halving_order`: ``decided`` is False when the node budget ran out;
    otherwise ``order`` is a perfect-halving order of H's points (M_tr = log2 |H|) or None (no
    such order exists, so M_tr ≤ log2 |H| − 1). ``nodes`` counts the point sets expanded."""

    #: False when the node budget ran out before the search settled the question.
    decided: bool
    #: A perfect-halving order of H's points (column indices), or None when none exists or the
    #: search was not decided.
    order: tuple[int, ...] | None
    #: Point sets expanded by the search.
    nodes: int


def _hypothesis_masks(H: ConceptClass) -> list[int]:
    """Column x as a Python-int bitmask over the hypotheses (bit i = h_i(x))."""
    weights = [1 << i for i in range(H.n_hypotheses)]
    return [
        sum(w for w, b in zip(weights, H.matrix[:, x].tolist(), strict=True) if b)
        for x in range(H.n_points)
    ]


def perfect_halving_order(H: ConceptClass, *, max_nodes: int = 200_000) -> PerfectHalving:
    """Decide M_tr(H) = log2 |H| for a class of 2^k distinct hypotheses (see the module docstring).

    Raises ValueError if |H| (distinct hypotheses) is not a power of two. The search expands at
    most ``max_nodes`` point sets; beyond that the result is undecided.

    Parameters
    ----------
    H : ConceptClass
        A class of 2^k distinct hypotheses.
    max_nodes : int
        Point sets the search may expand.

    Returns
    -------
    PerfectHalving
        Whether the search decided, a perfect-halving order (None: none exists or undecided) and
        the nodes expanded.

    Raises
    ------
    ValueError
        If |H| is not a power of two.

    Examples
    --------
    >>> from theory.online.brackets import perfect_halving_order
    >>> from theory.online.constructions import gadget_w, tree_class
    >>> perfect_halving_order(tree_class(2)).order  # M_tr = log2 4 = 2
    (0, 1, 2)
    >>> result = perfect_halving_order(gadget_w())  # 8 hypotheses, but M_tr = 2 < 3
    >>> result.decided, result.order
    (True, None)
    """
    if not isinstance(H, ConceptClass):
        raise ValueError(f"H must be a ConceptClass (got {type(H).__name__})")  # noqa: TRY004
    _domain.integer("max_nodes", max_nodes, minimum=1)
    matrix = np.unique(H.matrix, axis=0)
    n_h = matrix.shape[0]
    if n_h & (n_h - 1):
        raise ValueError(f"H: perfect halving needs 2^k distinct hypotheses, got {n_h}")
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be positive, got {max_nodes}")
    cols = _hypothesis_masks(ConceptClass(matrix))
    n = len(cols)
    failed: set[int] = set()
    nodes = 0

    def valid(cells: list[int], x: int) -> tuple[bool, list[int]]:
        out, split = [], False
        col = cols[x]
        for c in cells:
            ones = c & col
            k, tot = ones.bit_count(), c.bit_count()
            if k in (0, tot):
                out.append(c)
            elif 2 * k == tot:
                out.extend((ones, c & ~col))
                split = True
            else:
                return False, cells
        return split, out

    def search(placed: int, cells: list[int], order: list[int]) -> list[int] | None:
        nonlocal nodes
        if len(cells) == n_h:
            return order
        if placed in failed:
            return None
        nodes += 1
        if nodes > max_nodes:
            raise _Budget
        for x in range(n):
            if (placed >> x) & 1:
                continue
            ok, refined = valid(cells, x)
            if ok:
                found = search(placed | (1 << x), refined, [*order, x])
                if found is not None:
                    return found
        failed.add(placed)
        return None

    try:
        prefix = search(0, [(1 << n_h) - 1], [])
    except _Budget:
        return PerfectHalving(False, None, nodes)
    if prefix is None:
        return PerfectHalving(True, None, nodes)
    rest = [x for x in range(n) if x not in set(prefix)]
    return PerfectHalving(True, tuple(prefix + rest), nodes)


class _Budget(Exception):
    """The node budget of :func:`perfect_halving_order` ran out."""


@dataclass(frozen=True)
class Bracket:
    """A certified bracket lower ≤ M_tr(H) ≤ upper.

    ``sequence`` forces ``lower`` mistakes (checked by ``transductive_value``); ``upper`` is
    min(Ldim, ⌊log2 |H|⌋), lowered by one when the perfect-halving search proved that no order
    reaches log2 |H|. ``halving`` records that search (None when it was not needed or |H| is not
    a power of two)."""

    #: Certified lower bound on M_tr(H): ``sequence`` forces this many mistakes.
    lower: int
    #: Certified upper bound on M_tr(H): min(Ldim, ⌊log2 |H|⌋), one less when no perfect-halving
    #: order exists.
    upper: int
    #: Ldim(H).
    ldim: int
    #: Column indices of H: the witness of ``lower``.
    sequence: tuple[int, ...]
    #: The perfect-halving search behind ``upper`` (None when it was not run).
    halving: PerfectHalving | None

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


def mtr_bracket(
    H: ConceptClass,
    *,
    restarts: int = 20,
    swaps: int = 200,
    rng: np.random.Generator | int | None = None,
    max_nodes: int = 200_000,
) -> Bracket:
    """A certified bracket on M_tr(H) for classes beyond the exact DP (e.g. the paper's random
    tree classes at d = 5: 31 points, 32 hypotheses).

    lower: :func:`theory.online.certificates.mtr_lower_bound` (``restarts``, ``swaps``, ``rng``),
    raised to log2 |H| when a perfect-halving order exists. upper: min(Ldim, ⌊log2 |H|⌋) (Fact
    E.1), lowered to log2 |H| − 1 when |H| = 2^k and the exhaustive perfect-halving search finds no
    order. Both ends are certified: the lower end by a sequence, the upper end by the search.

    Parameters
    ----------
    H : ConceptClass
        The class.
    restarts, swaps : int
        The lower bound's hill climbs and moves per climb.
    rng : numpy.random.Generator, int or None
        Randomness of the climbs.
    max_nodes : int
        Point sets the perfect-halving search may expand.

    Returns
    -------
    Bracket
        ``lower`` ≤ M_tr(H) ≤ ``upper``, with the lower end's sequence and the search's result.

    Examples
    --------
    >>> from theory.online.brackets import mtr_bracket
    >>> from theory.online.constructions import tree_class
    >>> bracket = mtr_bracket(tree_class(3), rng=0)
    >>> bracket.lower, bracket.upper, bracket.ldim  # closed: M_tr = 3
    (3, 3, 3)
    """
    cert = mtr_lower_bound(H, restarts=restarts, swaps=swaps, rng=rng)
    distinct = np.unique(H.matrix, axis=0).shape[0]
    log_h = distinct.bit_length() - 1
    ldim = littlestone_dim(H)
    lower, upper, sequence = cert.value, min(ldim, log_h), cert.sequence
    halving = None
    if lower < upper == log_h and distinct == 1 << log_h:
        halving = perfect_halving_order(H, max_nodes=max_nodes)
        if halving.decided and halving.order is None:
            upper = log_h - 1
        elif halving.order is not None:  # certified like any sequence: by its exact value
            value = transductive_value(H, list(halving.order))
            if value > lower:
                lower, sequence = value, halving.order
    return Bracket(lower, upper, ldim, sequence, halving)
