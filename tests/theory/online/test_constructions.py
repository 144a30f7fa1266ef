"""Named classes and hypothesis strategies: sizes, structure, and the known (Ldim, M_tr) values
(docs/online.md#exact-values-the-checks-compare-with), checked by a local brute force at small
sizes."""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings

from theory.online.concept_class import ConceptClass
from theory.online.constructions import (
    GADGET_W_ROWS,
    all_functions,
    gadget_power,
    gadget_w,
    node_depth,
    node_index,
    node_label,
    paper_q,
    product,
    singletons,
    thresholds,
    tree_class,
    tree_nodes,
    tree_paths,
)
from theory.online.strategies import (
    classes_on_points,
    classes_with_planted_gap,
    concept_classes,
    products,
    tree_classes,
)


# ------------------------------------------------------------------ local brute-force oracles
def _cols(H: ConceptClass) -> list[int]:
    return [sum(int(H.matrix[i, x]) << i for i in range(H.n_hypotheses)) for x in range(H.n_points)]


def ldim(H: ConceptClass) -> int:
    """L(∅) = −1, L({h}) = 0, L(V) = max over splitting x of 1 + min(L(V⁰), L(V¹)) (Littlestone
    1987)."""
    cols = _cols(H)

    @cache
    def L(v: int) -> int:
        if v == 0:
            return -1
        best = 0
        for c in cols:
            a, b = v & ~c, v & c
            if a and b:
                best = max(best, 1 + min(L(a), L(b)))
        return best

    return L((1 << H.n_hypotheses) - 1)


def value(H: ConceptClass, seq) -> int:
    """BKM's v(H, x) with c(a, b) = a + 1 if a = b else max(a, b) (BKM97)."""
    cols = _cols(H)

    def v(vs: int, t: int) -> int:
        if t == len(seq) or vs & (vs - 1) == 0:
            return 0
        c = cols[seq[t]]
        a, b = vs & ~c, vs & c
        if not (a and b):
            return v(a or b, t + 1)
        va, vb = v(a, t + 1), v(b, t + 1)
        return va + 1 if va == vb else max(va, vb)

    return v((1 << H.n_hypotheses) - 1, 0)


def mtr(H: ConceptClass) -> int:
    """M_tr = max over orders of X of v (orders suffice); only for a handful of points."""
    assert H.n_points <= 7
    return max(value(H, p) for p in itertools.permutations(range(H.n_points)))


# ----------------------------------------------------------------------------- small classes
@pytest.mark.parametrize("with_zero", [False, True])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_singletons(k, with_zero):
    H = singletons(k, with_zero=with_zero)
    assert H.matrix.shape == (k + with_zero, k)
    assert H.points == tuple(f"x{j}" for j in range(k))
    assert np.array_equal(H.matrix[:k], np.eye(k))
    expected = 0 if (k == 1 and not with_zero) else 1
    assert ldim(H) == expected
    assert mtr(H) == expected


@pytest.mark.parametrize("k", range(1, 7))
def test_thresholds(k):
    H = thresholds(k)
    assert H.matrix.shape == (k + 1, k)
    assert len(set(H.rows())) == k + 1
    assert all(H.matrix[i, j] == (j < i) for i in range(k + 1) for j in range(k))
    assert ldim(H) == math.floor(math.log2(k + 1))
    if k <= 5:
        assert mtr(H) == math.floor(math.log2(k + 1))


def test_thresholds_min_length():
    """Thm C.2 tightness: at k = 3 forcing M = 2 needs length 3 = 2^M − 1."""
    H = thresholds(3)
    assert max(value(H, p) for p in itertools.permutations(range(3), 2)) == 1
    assert mtr(H) == 2


@pytest.mark.parametrize("k", [1, 2, 3])
def test_all_functions(k):
    H = all_functions(k)
    assert H.matrix.shape == (2**k, k)
    assert len(set(H.rows())) == 2**k
    assert ldim(H) == k
    assert mtr(H) == k


def test_gadget_w_oracle():
    W = gadget_w()
    assert tuple(W.rows()) == GADGET_W_ROWS
    assert ldim(W) == 3
    assert mtr(W) == 2


@pytest.mark.parametrize(
    ("fn", "arg"),
    [(singletons, 0), (thresholds, -1), (all_functions, 0), (all_functions, 17), (gadget_power, 7)],
)
def test_bad_sizes_are_refused(fn, arg):
    with pytest.raises(ValueError, match="k must be"):
        fn(arg)


def test_bad_types_are_refused():
    with pytest.raises(ValueError, match="k must be"):
        thresholds(2.0)
    with pytest.raises(ValueError, match="k must be"):
        singletons(True)


# ---------------------------------------------------------------------------------- products
def test_product_structure():
    A, B = singletons(2, with_zero=True), thresholds(2)
    P = product(A, B)
    assert P.matrix.shape == (A.n_hypotheses * B.n_hypotheses, A.n_points + B.n_points)
    assert P.points == ("a:x0", "a:x1", "b:x0", "b:x1")
    expected = [ra + rb for ra in A.rows() for rb in B.rows()]
    assert P.rows() == expected
    assert ldim(P) == ldim(A) + ldim(B)
    assert product(A).rows() == A.rows()


def test_product_of_three_and_labels():
    P = product(singletons(1), singletons(2), gadget_w())
    assert P.n_hypotheses == 1 * 2 * 8
    assert P.n_points == 1 + 2 + 4
    assert [p.split(":")[0] for p in P.points] == ["a", "b", "b", "c", "c", "c", "c"]


def test_gadget_power_sizes_and_ldim():
    W2 = gadget_power(2)
    assert W2.matrix.shape == (64, 8)
    assert len(set(W2.rows())) == 64
    assert ldim(W2) == 6  # Ldim adds; M_tr(W×W) = 4 is too slow for this brute force
    assert gadget_power(1).rows() == gadget_w().rows()


def test_product_refusals():
    with pytest.raises(ValueError, match="classes"):
        product()
    with pytest.raises(ValueError, match="classes"):
        product(gadget_w(), np.eye(2))
    with pytest.raises(ValueError, match="classes"):
        product(all_functions(10), all_functions(10))


# ------------------------------------------------------------------------------ tree classes
def test_node_labels_round_trip():
    assert [node_label(j) for j in range(7)] == ["", "0", "1", "00", "01", "10", "11"]
    assert all(node_index(node_label(j)) == j for j in range(200))
    assert all(node_depth(j) == len(node_label(j)) for j in range(200))
    assert tree_nodes(2) == ("", "0", "1")
    with pytest.raises(ValueError, match="label"):
        node_index("012")


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("q", [0.0, 0.3])
def test_tree_class_paths(d, q):
    """h_b labels each proper prefix of b with the next bit of b; off-path 0 when q = 0."""
    H = tree_class(d, q, rng=7)
    assert H.matrix.shape == (2**d, 2**d - 1)
    assert H.points == tree_nodes(d)
    paths = tree_paths(d)
    assert paths.shape == (2**d, d)
    for b in range(2**d):
        bits = format(b, f"0{d}b")
        assert [node_label(j) for j in paths[b]] == [bits[:k] for k in range(d)]
        assert "".join(str(H.matrix[b, j]) for j in paths[b]) == bits
        if q == 0:
            off = np.setdiff1d(np.arange(2**d - 1), paths[b])
            assert not H.matrix[b, off].any()
    assert len(set(H.rows())) == 2**d


@pytest.mark.parametrize("d", [1, 2, 3])
def test_minimal_tree_class_oracle(d):
    H = tree_class(d)
    assert ldim(H) == d
    if d <= 2:
        assert mtr(H) == d
    assert value(H, range(H.n_points)) == d  # BFS order forces d


def test_random_tree_class_is_seeded():
    a, b = tree_class(5, 0.3, rng=11), tree_class(5, 0.3, rng=11)
    assert np.array_equal(a.matrix, b.matrix)
    c = tree_class(5, 0.3, rng=np.random.default_rng(12))
    assert not np.array_equal(a.matrix, c.matrix)
    ones = tree_class(4, 1.0, rng=0)
    paths = tree_paths(4)
    off = np.ones(ones.matrix.shape, dtype=bool)
    off[np.arange(16)[:, None], paths] = False
    assert ones.matrix[off].all()
    assert ldim(tree_class(3, 0.4, rng=3)) == 3


def test_paper_q():
    assert paper_q(1) == 1.0
    assert paper_q(5) == 0.25
    H = tree_class(5, "paper", rng=1)
    assert np.array_equal(H.matrix, tree_class(5, 0.25, rng=1).matrix)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"d": 0}, "d must be"), ({"d": 13}, "d must be"), ({"d": 3, "q": 1.5}, "q must be"),
     ({"d": 3, "q": -0.1}, "q must be"), ({"d": 3, "q": "half"}, "q must be")],
)  # fmt: skip
def test_tree_class_refusals(kwargs, name):
    with pytest.raises(ValueError, match=name):
        tree_class(**kwargs)


# -------------------------------------------------------------------------------- strategies
@settings(max_examples=40, deadline=None)
@given(concept_classes(min_points=2, max_points=5, min_hypotheses=2, max_hypotheses=10))
def test_concept_classes_are_valid(H):
    assert 2 <= H.n_points <= 5
    assert 2 <= H.n_hypotheses <= 10
    assert len(set(H.rows())) == H.n_hypotheses
    assert set(np.unique(H.matrix)) <= {0, 1}


@settings(max_examples=40, deadline=None)
@given(classes_on_points(n_classes=3, min_points=2, max_points=5, max_hypotheses=6))
def test_classes_on_points_share_the_domain(classes):
    assert len(classes) == 3
    assert len({H.points for H in classes}) == 1
    assert 2 <= classes[0].n_points <= 5
    for H in classes:
        assert 1 <= H.n_hypotheses <= 6
        assert len(set(H.rows())) == H.n_hypotheses


@settings(max_examples=20, deadline=None)
@given(concept_classes(max_points=4, density=0.0, max_hypotheses=1))
def test_density_zero_gives_the_zero_function(H):
    assert not H.matrix.any()


@settings(max_examples=20, deadline=None)
@given(tree_classes(max_depth=3))
def test_tree_classes_have_ldim_d(H):
    d = int(math.log2(H.n_hypotheses))
    assert H.n_points == 2**d - 1
    paths = tree_paths(d)
    for b in range(2**d):
        assert "".join(str(H.matrix[b, j]) for j in paths[b]) == format(b, f"0{d}b")
    assert ldim(H) == d


@settings(max_examples=25, deadline=None)
@given(products())
def test_ldim_and_mtr_add_over_products(abp):
    A, B, P = abp
    assert P.n_hypotheses == A.n_hypotheses * B.n_hypotheses
    assert ldim(P) == ldim(A) + ldim(B)
    if P.n_points <= 5:
        assert mtr(P) == mtr(A) + mtr(B)


@settings(max_examples=15, deadline=None)
@given(classes_with_planted_gap(max_extra_points=2, max_extra_hypotheses=3))
def test_planted_gap_is_guaranteed(H):
    """Ldim(W × C) − M_tr(W × C) = 1 + Ldim(C) − M_tr(C) ≥ 1 (products add)."""
    lw, mw = ldim(H), mtr(H)
    by_label = sorted(range(H.n_points), key=lambda j: H.points[j])
    W = H.restrict([j for j in by_label if H.points[j].startswith("a:")])
    C = H.restrict([j for j in by_label if H.points[j].startswith("b:")])
    assert W.rows() == sorted(gadget_w().rows())  # restrict sorts the rows
    assert (lw, mw) == (3 + ldim(C), 2 + mtr(C))
    assert lw - mw >= 1


@pytest.mark.parametrize(
    ("factory", "kwargs", "name"),
    [(concept_classes, {"max_points": 13}, "max_points"),
     (concept_classes, {"min_points": 3, "max_points": 2}, "min_points"),
     (concept_classes, {"min_hypotheses": 5, "min_points": 2}, "min_hypotheses"),
     (concept_classes, {"density": 2.0}, "density"),
     (tree_classes, {"max_depth": 9}, "max_depth"),
     (classes_with_planted_gap, {"max_extra_points": 0}, "max_extra_points"),
     (classes_on_points, {"n_classes": 0}, "n_classes"),
     (classes_on_points, {"max_points": 13}, "max_points"),
     (classes_on_points, {"max_hypotheses": 257}, "max_hypotheses")],
)  # fmt: skip
def test_strategy_arguments_are_validated(factory, kwargs, name):
    with pytest.raises(ValueError, match=name):
        factory(**kwargs)
