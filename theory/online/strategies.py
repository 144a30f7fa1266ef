"""Hypothesis strategies drawing concept classes, for property tests of Ldim and M_tr.

This module imports :mod:`hypothesis` at the top: hypothesis is a test dependency (the ``test``
extra), so import this module only from tests or from code that has it installed. Importing it
runs :func:`warm_solvers`, so that tests run under hypothesis's default settings (200 ms
deadline) without an example paying for compiling a solver
(docs/online.md#property-test-your-own-conjecture).

All strategies are bounded (at most 12 points and 256 hypotheses per drawn class) and shrink
towards small classes with 0 labels; :func:`minimize_counterexample` then drops the redundant
points of a failing class, which prints as the ``ConceptClass.from_array(...)`` call rebuilding it.

Examples
--------
>>> from hypothesis import given
>>> from theory.online.strategies import concept_classes
>>> @given(concept_classes(max_points=4))
... def test_size(H):
...     assert H.n_hypotheses <= 2 ** H.n_points
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from theory.online.concept_class import ConceptClass
from theory.online.constructions import gadget_w, product, thresholds, tree_class
from theory.online.dims import littlestone_dim, littlestone_tree, threshold_dim, vc_dim
from theory.online.mtr import transductive_mistake_bound
from theory.online.transductive import transductive_value

#: Most points a drawn class may have.
MAX_POINTS = 12
#: Most hypotheses a drawn class may have.
MAX_HYPOTHESES = 256

__all__ = [
    "classes_on_points",
    "classes_with_planted_gap",
    "concept_classes",
    "counterexample_classes",
    "minimize_counterexample",
    "products",
    "tree_classes",
    "uniform_classes",
    "warm_solvers",
]

#: Most points of :func:`uniform_classes` (2^8 = 256 candidate rows).
UNIFORM_MAX_POINTS = 8


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_bounds(name_lo: str, lo: int, name_hi: str, hi: int, floor: int, ceiling: int) -> None:
    for name, v in ((name_lo, lo), (name_hi, hi)):
        if not _is_int(v) or v < floor or v > ceiling:
            raise ValueError(f"{name} must be an integer in [{floor}, {ceiling}], got {v!r}")
    if lo > hi:
        raise ValueError(f"{name_lo} = {lo} exceeds {name_hi} = {hi}")


def concept_classes(
    min_points: int = 1,
    max_points: int = 6,
    min_hypotheses: int = 1,
    max_hypotheses: int | None = None,
    density: float | None = None,
) -> st.SearchStrategy[ConceptClass]:
    """Concept classes with distinct hypotheses on ``min_points..max_points`` points.

    Parameters
    ----------
    min_points, max_points : int
        Range of |X|, 1 ≤ min_points ≤ max_points ≤ 12.
    min_hypotheses : int
        Least |H| (≥ 1). Must be ≤ 2^min_points, since hypotheses are distinct.
    max_hypotheses : int or None
        Most |H|; None means min(2^|X|, 256).
    density : float or None
        If given, each label is 1 with probability about ``density`` (in [0, 1], resolution
        1/1000); otherwise labels are fair booleans. Low densities with many hypotheses make
        distinct rows hard to draw (hypothesis may report a health-check failure).

    Returns
    -------
    SearchStrategy[ConceptClass]
        Point labels "0".."m−1"; rows in drawing order.

    Examples
    --------
    The smallest class with at least three hypotheses (hypothesis's ``find`` shrinks to it):

    >>> from hypothesis import find, settings
    >>> from theory.online.strategies import concept_classes
    >>> H = find(concept_classes(max_points=4), lambda H: len(H.matrix) >= 3,
    ...          settings=settings(database=None, derandomize=True))
    >>> H.n_points, len(H.matrix)
    (2, 3)
    """
    _check_bounds("min_points", min_points, "max_points", max_points, 1, MAX_POINTS)
    if not _is_int(min_hypotheses) or not 1 <= min_hypotheses <= 2**min_points:
        raise ValueError(
            f"min_hypotheses must be in [1, 2^min_points = {2**min_points}], got {min_hypotheses}"
        )
    if max_hypotheses is not None:
        _check_bounds(
            "min_hypotheses", min_hypotheses, "max_hypotheses", max_hypotheses, 1, MAX_HYPOTHESES
        )
    if density is not None:
        is_number = isinstance(density, (int, float)) and not isinstance(density, bool)
        if not is_number or not 0.0 <= density <= 1.0:
            raise ValueError(f"density must be a number in [0, 1], got {density!r}")
        cut = round(1000 * (1.0 - density))
        # v ≥ cut is a 1: shrinking v towards 0 shrinks labels towards 0
        bit: st.SearchStrategy[int] = st.integers(0, 999).map(lambda v: int(v >= cut))
    else:
        bit = st.booleans().map(int)

    @st.composite
    def _draw(draw: st.DrawFn) -> ConceptClass:
        m = draw(st.integers(min_points, max_points), label="n_points")
        cap = min(2**m, MAX_HYPOTHESES if max_hypotheses is None else max_hypotheses)
        lo = min(min_hypotheses, cap)
        if density is None:
            # distinct rows as distinct integer codes: a cheap uniqueness check, no row retries
            codes = draw(
                st.lists(st.integers(0, 2**m - 1), min_size=lo, max_size=cap, unique=True),
                label="rows",
            )
            return ConceptClass.from_array([_bits(code, m) for code in codes])
        rows = draw(
            st.lists(st.tuples(*([bit] * m)), min_size=lo, max_size=cap, unique=True),
            label="rows",
        )
        return ConceptClass.from_array(rows)

    return _draw()


def classes_on_points(
    n_classes: int = 2,
    min_points: int = 1,
    max_points: int = 6,
    max_hypotheses: int | None = None,
) -> st.SearchStrategy[tuple[ConceptClass, ...]]:
    """Tuples of ``n_classes`` classes on the same points, for statements relating several
    classes over one domain (unions, intersections, subclasses: e.g.
    Ldim(H1 ∪ H2) ≤ Ldim(H1) + Ldim(H2) + 1).

    The number of points m is drawn once from ``min_points..max_points`` (≤ 12); each class is
    then drawn by :func:`concept_classes` on exactly m points (distinct rows, at most
    ``max_hypotheses``, default min(2^m, 256)), independently. All share the point labels
    "0".."m−1", so ``ConceptClass.from_array(np.unique(np.vstack([H1.matrix, H2.matrix]),
    axis=0))`` is H1 ∪ H2.

    Parameters
    ----------
    n_classes : int
        Classes per tuple, 1..8.
    min_points, max_points : int
        Range of the shared |X|, 1 ≤ min_points ≤ max_points ≤ 12.
    max_hypotheses : int or None
        Most |H| of each class (1..256); None means min(2^m, 256).

    Returns
    -------
    SearchStrategy[tuple[ConceptClass, ...]]
        ``n_classes`` classes on the same m points.

    Examples
    --------
    >>> from hypothesis import find, settings
    >>> from theory.online.strategies import classes_on_points
    >>> classes = find(classes_on_points(3, min_points=2), lambda t: True,
    ...                settings=settings(database=None, derandomize=True))
    >>> [H.n_points for H in classes]
    [2, 2, 2]
    """
    if not _is_int(n_classes) or not 1 <= n_classes <= 8:
        raise ValueError(f"n_classes must be an integer in [1, 8], got {n_classes!r}")
    _check_bounds("min_points", min_points, "max_points", max_points, 1, MAX_POINTS)
    if max_hypotheses is not None and (
        not _is_int(max_hypotheses) or not 1 <= max_hypotheses <= MAX_HYPOTHESES
    ):
        raise ValueError(
            f"max_hypotheses must be an integer in [1, {MAX_HYPOTHESES}], got {max_hypotheses!r}"
        )

    @st.composite
    def _draw(draw: st.DrawFn) -> tuple[ConceptClass, ...]:
        m = draw(st.integers(min_points, max_points), label="n_points")
        on_m = concept_classes(min_points=m, max_points=m, max_hypotheses=max_hypotheses)
        return tuple(draw(on_m, label=f"class {i}") for i in range(n_classes))

    return _draw()


def _bits(code: int, m: int) -> list[int]:
    """Row ``code`` as m labels, point 0 first (the code's lowest bit)."""
    return [(code >> j) & 1 for j in range(m)]


def uniform_classes(min_points: int = 4, max_points: int = 5) -> st.SearchStrategy[ConceptClass]:
    """Classes drawn uniformly from every non-empty class on m points, m in
    ``min_points..max_points`` (≤ 8): each of the 2^m possible rows is in the class with
    probability 1/2, independently (a random mask; the empty mask becomes the one row 0…0).

    This is the strategy for refuting a conjecture about all classes: an Ldim/M_tr gap needs
    at least 4 points and 8 hypotheses, which small-first strategies rarely draw. By the exact
    census (``online.census_5_points``, docs/online.md), 2,880 of the 65,535 classes on 4
    points (4.4%) and 627,006,144 of the 4,294,967,295 on 5 points (14.6%) have Ldim > M_tr.
    Draws cost no retries: the mask is 2^m booleans, shrinking towards fewer rows.

    Parameters
    ----------
    min_points, max_points : int
        Range of m, 1 ≤ min_points ≤ max_points ≤ 8.

    Returns
    -------
    SearchStrategy[ConceptClass]
        Classes on m points, rows in increasing order of their codes.

    Examples
    --------
    A class with an Ldim/M_tr gap on 4 points, found by search:

    >>> from hypothesis import find, settings
    >>> from theory.online.dims import littlestone_dim
    >>> from theory.online.mtr import transductive_mistake_bound
    >>> from theory.online.strategies import uniform_classes
    >>> H = find(uniform_classes(4, 4),
    ...          lambda H: littlestone_dim(H) > transductive_mistake_bound(H).value,
    ...          settings=settings(database=None, derandomize=True))
    >>> H.n_points, littlestone_dim(H) > transductive_mistake_bound(H).value
    (4, True)
    """
    _check_bounds("min_points", min_points, "max_points", max_points, 1, UNIFORM_MAX_POINTS)

    @st.composite
    def _draw(draw: st.DrawFn) -> ConceptClass:
        m = draw(st.integers(min_points, max_points), label="n_points")
        mask = draw(st.lists(st.booleans(), min_size=2**m, max_size=2**m), label="row mask")
        codes = [code for code, keep in enumerate(mask) if keep] or [0]
        return ConceptClass.from_array([_bits(code, m) for code in codes])

    return _draw()


def counterexample_classes(max_points: int = 6) -> st.SearchStrategy[ConceptClass]:
    """The classes a counterexample to a conjecture about Ldim and M_tr tends to live in, mixed:
    uniform classes on 4..``max_points`` points (:func:`uniform_classes`), classes with one
    planted gap (W × C, :func:`classes_with_planted_gap`: Ldim − M_tr ≥ 1) and with two
    ((W × C) × (W × C'): ≥ 2, since both values add over products), products of two uniform
    classes on 2–3 points, and tree classes of depth ≤ 4. Use it to refute a conjecture; use
    :func:`concept_classes` to test an invariant on small classes that shrink well. Measured
    refutation rates and times: ``paper-checks bench`` (row ``conjecture_refutation``).

    Parameters
    ----------
    max_points : int
        Most points of the uniform classes, 4..8.

    Returns
    -------
    SearchStrategy[ConceptClass]
        The mixture above.

    Examples
    --------
    Refuting the false conjecture M_tr = Ldim:

    >>> from hypothesis import find, settings
    >>> from theory.online.dims import littlestone_dim
    >>> from theory.online.mtr import transductive_mistake_bound
    >>> from theory.online.strategies import counterexample_classes
    >>> H = find(counterexample_classes(),
    ...          lambda H: transductive_mistake_bound(H).value != littlestone_dim(H),
    ...          settings=settings(database=None, derandomize=True))
    >>> transductive_mistake_bound(H).value < littlestone_dim(H)
    True
    """
    _check_bounds("max_points", max_points, "max_points", max_points, 4, UNIFORM_MAX_POINTS)
    small = uniform_classes(2, 3)
    one_gap = classes_with_planted_gap(max_extra_points=2, max_extra_hypotheses=4)
    two_gaps = classes_with_planted_gap(max_extra_points=1, max_extra_hypotheses=2)
    return st.one_of(
        uniform_classes(4, max_points),
        one_gap,
        st.tuples(two_gaps, two_gaps).map(lambda ab: product(ab[0], ab[1])),
        products(small, small).map(lambda abc: abc[2]),
        tree_classes(max_depth=4),
    )


def tree_classes(
    max_depth: int = 3, min_depth: int = 1, random_labels: bool = True
) -> st.SearchStrategy[ConceptClass]:
    """Tree classes :func:`~theory.online.constructions.tree_class` (d, q, seed) with
    ``min_depth ≤ d ≤ max_depth ≤ 8``.

    With ``random_labels`` the off-path bias q is drawn from {0} ∪ [0.05, 0.5] and the seed from
    0..2^32−1; otherwise q = 0 (the minimal tree class). Ldim = d in every case.

    Parameters
    ----------
    max_depth, min_depth : int
        Range of the depth d, 1 ≤ min_depth ≤ max_depth ≤ 8.
    random_labels : bool
        Draw the off-path bias and the seed (else the minimal tree class of depth d).

    Returns
    -------
    SearchStrategy[ConceptClass]
        Tree classes of Littlestone dimension d.

    Examples
    --------
    >>> from hypothesis import find, settings
    >>> from theory.online.dims import littlestone_dim
    >>> from theory.online.strategies import tree_classes
    >>> H = find(tree_classes(max_depth=3, min_depth=2), lambda H: True,
    ...          settings=settings(database=None, derandomize=True))
    >>> littlestone_dim(H)
    2
    """
    _check_bounds("min_depth", min_depth, "max_depth", max_depth, 1, 8)

    @st.composite
    def _draw(draw: st.DrawFn) -> ConceptClass:
        d = draw(st.integers(min_depth, max_depth), label="d")
        if not random_labels:
            return tree_class(d)
        q = draw(
            st.one_of(st.just(0.0), st.floats(0.05, 0.5, allow_nan=False, allow_infinity=False)),
            label="q",
        )
        seed = draw(st.integers(0, 2**32 - 1), label="seed")
        return tree_class(d, q, rng=seed)

    return _draw()


def products(
    left: st.SearchStrategy[ConceptClass] | None = None,
    right: st.SearchStrategy[ConceptClass] | None = None,
) -> st.SearchStrategy[tuple[ConceptClass, ConceptClass, ConceptClass]]:
    """Triples ``(A, B, A × B)`` with A drawn from ``left`` and B from ``right`` (default: classes
    on 1–3 points with at most 8 hypotheses), for checking that Ldim and M_tr add over products
    (docs/online.md#exact-values-the-checks-compare-with). The product's points are A's followed by
    B's.

    Parameters
    ----------
    left, right : SearchStrategy[ConceptClass] or None
        Where A and B are drawn from.

    Returns
    -------
    SearchStrategy[tuple[ConceptClass, ConceptClass, ConceptClass]]
        ``(A, B, A × B)``.

    Examples
    --------
    >>> from hypothesis import find, settings
    >>> from theory.online.strategies import products
    >>> A, B, AB = find(products(), lambda t: True, settings=settings(database=None, derandomize=True))
    >>> AB.n_points == A.n_points + B.n_points, len(AB.matrix) == len(A.matrix) * len(B.matrix)
    (True, True)
    """
    small = concept_classes(max_points=3, max_hypotheses=8)
    left = small if left is None else left
    right = small if right is None else right
    return st.tuples(left, right).map(lambda ab: (ab[0], ab[1], product(ab[0], ab[1])))


def classes_with_planted_gap(
    max_extra_points: int = 3, max_extra_hypotheses: int = 8, shuffle: bool = True
) -> st.SearchStrategy[ConceptClass]:
    """Classes W × C with the gadget W as a product factor, so that Ldim > M_tr is guaranteed.

    C is drawn by :func:`concept_classes` on 1..``max_extra_points`` points with at most
    ``max_extra_hypotheses`` hypotheses. Since Ldim and M_tr add over products and W has
    (Ldim, M_tr) = (3, 2) (docs/online.md#exact-values-the-checks-compare-with), the drawn class
    H has

    * Ldim(H) = 3 + Ldim(C) ≥ 3 and M_tr(H) = 2 + M_tr(C) ≥ 2,
    * Ldim(H) − M_tr(H) = 1 + (Ldim(C) − M_tr(C)) ≥ 1.

    With ``shuffle`` the columns (and their labels) are permuted, which changes neither value.

    Parameters
    ----------
    max_extra_points : int
        Most points of C, 1..8.
    max_extra_hypotheses : int
        Most hypotheses of C, 1..32.
    shuffle : bool
        Permute the columns of W × C.

    Returns
    -------
    SearchStrategy[ConceptClass]
        Classes with Ldim − M_tr ≥ 1.

    Examples
    --------
    >>> from hypothesis import find, settings
    >>> from theory.online.dims import littlestone_dim
    >>> from theory.online.mtr import transductive_mistake_bound
    >>> from theory.online.strategies import classes_with_planted_gap
    >>> H = find(classes_with_planted_gap(), lambda H: True, settings=settings(database=None, derandomize=True))
    >>> littlestone_dim(H) - transductive_mistake_bound(H).value >= 1
    True
    """
    for name, v, hi in (
        ("max_extra_points", max_extra_points, MAX_POINTS - 4),
        ("max_extra_hypotheses", max_extra_hypotheses, MAX_HYPOTHESES // 8),
    ):
        if not _is_int(v) or not 1 <= v <= hi:
            raise ValueError(f"{name} must be an integer in [1, {hi}], got {v!r}")
    extra = concept_classes(max_points=max_extra_points, max_hypotheses=max_extra_hypotheses)

    @st.composite
    def _draw(draw: st.DrawFn) -> ConceptClass:
        H = product(gadget_w(), draw(extra, label="C"))
        if not shuffle:
            return H
        perm = draw(st.permutations(range(H.n_points)), label="column order")
        return ConceptClass(H.matrix[:, perm], tuple(H.points[j] for j in perm))

    return _draw()


def _fails(holds: Callable[[ConceptClass], object], H: ConceptClass) -> bool:
    """Whether ``holds(H)`` fails: raises AssertionError or returns a false value other than
    None (an assert-style function returns None when the statement holds)."""
    try:
        result = holds(H)
    except AssertionError:
        return True
    return result is not None and not result


def minimize_counterexample(
    H: ConceptClass, holds: Callable[[ConceptClass], object]
) -> ConceptClass:
    """Drop the redundant points of a counterexample while it stays one.

    A point is redundant when its column is constant, or equal or complementary to an earlier
    kept column (the points :meth:`ConceptClass.canonical` merges; they change neither Ldim nor
    M_tr, but may matter to other statements, hence the check). Each redundant column, first to
    last, is dropped when ``holds`` still fails on the class without it, until no drop is
    accepted. Hypothesis shrinks the rows and labels of a drawn class, but a column in the middle
    that the failure does not need tends to stay (removing it changes every drawn row); this
    removes it after the fact.

    Parameters
    ----------
    H : ConceptClass
        A counterexample: ``holds(H)`` returns a false value or raises ``AssertionError``.
    holds : callable
        The statement, ``holds(H) -> bool`` (an ``assert``-style function that returns None
        when the statement holds also works).

    Returns
    -------
    ConceptClass
        H restricted to the kept columns (rows in H's order, points keep their labels): ``holds``
        fails on it, and fails on no class made from it by dropping one more redundant column.

    Raises
    ------
    ValueError
        Naming ``H`` when it is not a ConceptClass or ``holds`` does not fail on it.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.online.concept_class import ConceptClass
    >>> from theory.online.dims import littlestone_dim
    >>> from theory.online.strategies import minimize_counterexample
    >>> H = ConceptClass.from_array(np.array([[0, 0, 1], [0, 1, 1], [1, 0, 1]]))
    >>> smaller = minimize_counterexample(H, lambda K: littlestone_dim(K) < 1)
    >>> smaller.matrix.tolist()  # the constant third point is gone
    [[0, 0], [0, 1], [1, 0]]
    """
    if not isinstance(H, ConceptClass):
        raise ValueError(f"H must be a ConceptClass (got {type(H).__name__})")  # noqa: TRY004
    if not _fails(holds, H):
        raise ValueError("H is not a counterexample: holds(H) does not fail on it")
    keep = list(range(H.n_points))
    dropped = True
    while dropped:
        dropped = False
        seen: set[bytes] = set()
        for j in list(keep):
            col = H.matrix[:, j]
            key = (col ^ col[0]).tobytes()  # equal and complementary columns share a key
            redundant = bool(col.min() == col.max()) or key in seen
            seen.add(key)
            if not redundant:
                continue
            rest = [k for k in keep if k != j]
            smaller = ConceptClass(H.matrix[:, rest], tuple(H.points[k] for k in rest))
            if _fails(holds, smaller):
                keep, dropped = rest, True
                break
    return ConceptClass(H.matrix[:, keep], tuple(H.points[k] for k in keep))


def warm_solvers() -> None:
    """Load (or compile) every Numba kernel behind the solvers a property test calls, once per
    process, so that no drawn example pays for it under hypothesis's default deadline (200 ms).

    Each kernel path is run once: :func:`~theory.online.dims.littlestone_dim` and
    :func:`~theory.online.dims.littlestone_tree` on a class of ≤ 64 hypotheses (one-word bitsets)
    and on one of 128 (the multi-word bitsets and their hashed memo),
    :func:`~theory.online.dims.vc_dim`, :func:`~theory.online.dims.threshold_dim` (subset DP),
    :func:`~theory.online.mtr.transductive_mistake_bound` (the suffix-set DP) and
    :func:`~theory.online.transductive.transductive_value`. Numba caches the compiled kernels on
    disk (``cache=True``), but loading them and building the typed containers of the memo
    (``numba.typed.Dict``/``List``, never cached) still takes about 0.3 s in a fresh process;
    with an empty cache, compiling takes seconds. Importing this module calls it; calling it
    again costs about a millisecond.

    Returns
    -------
    None

    Examples
    --------
    >>> from theory.online.strategies import warm_solvers
    >>> warm_solvers()  # already warm: importing the module ran it
    """
    small = gadget_w()  # 8 hypotheses: one uint64 per version space
    large = product(small, small, thresholds(1))  # 128 hypotheses: two words
    for H in (small, large):
        littlestone_dim(H)
        littlestone_tree(H)
    vc_dim(small)
    threshold_dim(small)
    transductive_mistake_bound(small)
    transductive_value(small, list(range(small.n_points)))


warm_solvers()
