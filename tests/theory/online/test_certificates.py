"""theory.online.certificates: the certified lower bound on M_tr is exact for its sequence, below
Ldim, and equal to the brute force on the classes of known value
(docs/online.md#exact-values-the-checks-compare-with)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.naive import mtr_bruteforce, transductive_value_naive
from tests.theory.online.test_dims import (
    W_ROWS,
    all_functions,
    matrices,
    minimal_tree_class,
    product,
    singletons,
    thresholds,
)
from theory.online import ConceptClass
from theory.online.certificates import Certificate, mtr_lower_bound, tree_order_floor
from theory.online.constructions import tree_class
from theory.online.dims import littlestone_dim, littlestone_tree
from theory.online.mtr import transductive_mistake_bound
from theory.online.transductive import transductive_value


def assert_certified(H: ConceptClass, cert: Certificate) -> None:
    assert cert.value == transductive_value(H, cert.sequence)
    assert len(set(cert.sequence)) == len(cert.sequence)
    assert all(0 <= x < H.n_points for x in cert.sequence)
    assert cert.value <= littlestone_dim(H)


@settings(deadline=None, max_examples=80)
@given(matrices(max_points=6, max_hypotheses=30))
def test_certificate_is_exact_and_between_the_known_bounds(matrix):
    H = ConceptClass(matrix)
    cert = mtr_lower_bound(H, restarts=4, swaps=30, rng=0)
    assert_certified(H, cert)
    assert cert.value == transductive_value_naive(matrix, cert.sequence)
    assert cert.value <= mtr_bruteforce(matrix)
    assert cert.value >= tree_order_floor(littlestone_dim(H))  # Ldim ≥ 2 ⇒ 2, Ldim ≥ 4 ⇒ 3


@settings(deadline=None, max_examples=40)
@given(matrices(max_points=4, max_hypotheses=16))
def test_certificate_is_optimal_on_four_points(matrix):
    # with rng=1 this holds for every class on ≤ 4 points (checked once against census(4))
    assert mtr_lower_bound(ConceptClass(matrix), rng=1).value == mtr_bruteforce(matrix)


@pytest.mark.parametrize("k", range(1, 8))
def test_spec_oracles_thresholds(k):
    H = thresholds(k)
    cert = mtr_lower_bound(H, rng=0)
    assert_certified(H, cert)
    assert cert.value == int(np.floor(np.log2(k + 1)))
    if k <= 6:
        assert cert.value == mtr_bruteforce(H.matrix)


def test_spec_oracles_gadget_all_functions_trees():
    W = ConceptClass.from_strings(W_ROWS)
    cert = mtr_lower_bound(W, rng=0)
    assert_certified(W, cert)
    assert cert.value == mtr_bruteforce(W.matrix) == 2
    WW = product(W, W)
    assert mtr_lower_bound(WW, rng=0).value == 4  # = M_tr(W × W): products add
    for k in range(1, 6):
        assert mtr_lower_bound(all_functions(k), rng=0).value == k
        assert mtr_lower_bound(singletons(k, with_zero=True), rng=0).value == 1
    for d in range(1, 8):
        H = minimal_tree_class(d)
        cert = mtr_lower_bound(H, rng=0)
        assert_certified(H, cert)
        assert (cert.value, cert.method) == (d, "bfs-tree")  # the upper bound stops the search


def test_user_columns_constant_and_degenerate_classes():
    base = ConceptClass.from_strings(W_ROWS).matrix
    # a constant column, a duplicate and a complement of column 0, then W
    matrix = np.column_stack([np.ones(8, dtype=np.uint8), base[:, 0], 1 - base[:, 0], base])
    H = ConceptClass(matrix)
    cert = mtr_lower_bound(H, rng=0)
    assert_certified(H, cert)
    assert cert.value == 2
    constant = ConceptClass.from_strings(["0110", "0110"])
    assert mtr_lower_bound(constant, rng=0) == Certificate(0, (), "empty")


def test_deterministic_for_a_seed():
    H = ConceptClass(np.random.default_rng(5).integers(0, 2, size=(60, 10)))
    first = mtr_lower_bound(H, restarts=6, swaps=50, rng=3)
    assert mtr_lower_bound(H, restarts=6, swaps=50, rng=3) == first
    assert_certified(H, first)
    only_orders = mtr_lower_bound(H, restarts=0, rng=3)
    assert only_orders.method in {"bfs-tree", "dfs-tree"}
    assert only_orders.value <= first.value


def test_bad_arguments_are_named():
    H = thresholds(3)
    with pytest.raises(ValueError, match="restarts"):
        mtr_lower_bound(H, restarts=-1)
    with pytest.raises(ValueError, match="swaps"):
        mtr_lower_bound(H, swaps=1.5)
    with pytest.raises(ValueError, match="H must be a ConceptClass"):
        mtr_lower_bound(H.matrix)


def test_candidates_are_scored_on_the_users_class():
    W = ConceptClass.from_strings(W_ROWS)
    cert = mtr_lower_bound(W, restarts=0, candidates=[[0, 0, 1], (3, 2, 1, 0)], rng=0)
    assert_certified(W, cert)
    assert cert.value == 2
    with pytest.raises(ValueError, match=r"^candidates "):
        mtr_lower_bound(W, restarts=0, candidates=[[4]])


# ---------------------------------------------------- the tree order's floor: Ldim ≥ 4 ⇒ M_tr ≥ 3
@st.composite
def classes_around_a_tree(draw: st.DrawFn, depth: int) -> np.ndarray:
    """The 2^depth witnesses of a shattered tree on its 2^depth − 1 nodes with arbitrary labels
    off their paths, plus up to 8 arbitrary hypotheses and up to 3 arbitrary points, rows and
    columns shuffled: every class with Ldim ≥ depth contains such a witness set."""
    nodes = [format(i, f"0{n}b") if n else "" for n in range(depth) for i in range(2**n)]
    leaves = [format(b, f"0{depth}b") for b in range(2**depth)]
    extra_rows = draw(st.integers(0, 8))
    extra_points = draw(st.integers(0, 3))
    shape = (len(leaves) + extra_rows, len(nodes) + extra_points)
    matrix = draw(hnp.arrays(np.uint8, shape, elements=st.integers(0, 1)))
    for r, leaf in enumerate(leaves):
        for j, node in enumerate(nodes):
            if leaf.startswith(node):  # on the leaf's path: the label the tree asks for
                matrix[r, j] = int(leaf[len(node)])
    rows = draw(st.permutations(range(shape[0])))
    cols = draw(st.permutations(range(shape[1])))
    return matrix[np.ix_(rows, cols)]


def bfs_order(H: ConceptClass) -> list[int]:
    """The nodes of a Littlestone tree of H top-down, each point once, then every other point."""
    nodes = littlestone_tree(H).nodes
    first = list(dict.fromkeys(nodes[s] for s in sorted(nodes, key=lambda s: (len(s), s))))
    return first + [x for x in range(H.n_points) if x not in first]


@settings(deadline=None, max_examples=60)
@given(classes_around_a_tree(4))
def test_ldim_four_forces_three_mistakes_by_the_tree_order(matrix):
    H = ConceptClass(matrix)
    ldim = littlestone_dim(H)
    assert ldim >= 4
    order = bfs_order(H)
    assert transductive_value_naive(matrix, order) >= tree_order_floor(ldim) == 3
    assert transductive_mistake_bound(H).value >= 3
    assert mtr_lower_bound(H, restarts=0, rng=0).value >= 3


@settings(deadline=None, max_examples=30)
@given(classes_around_a_tree(5))
def test_the_tree_order_floor_holds_at_depth_five(matrix):
    H = ConceptClass(matrix)
    assert transductive_value(H, bfs_order(H)) >= tree_order_floor(littlestone_dim(H))


def test_the_floor_is_attained_and_a_higher_one_fails():
    # Ldim 3: W forces only 2, so a floor of 3 at Ldim 3 would be wrong
    W = ConceptClass.from_strings(W_ROWS)
    assert (littlestone_dim(W), mtr_bruteforce(W.matrix)) == (3, 2) == (3, tree_order_floor(3))
    # Ldim 4: a random tree class with M_tr = 3, so a floor of 4 at Ldim 4 would be wrong
    values = [transductive_mistake_bound(tree_class(4, 0.2, seed)).value for seed in range(10)]
    assert min(values) == tree_order_floor(4) == 3
    with pytest.raises(ValueError, match="ldim"):
        tree_order_floor(-1)
