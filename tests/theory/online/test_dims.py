"""theory.online.dims: Ldim / VC / threshold dimension against the naive oracles and the known exact
values (docs/online.md#exact-values-the-checks-compare-with), tree witnesses, and the SOA and
Halving mistake bounds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.naive import littlestone_dim_naive, threshold_dim_naive, vc_dim_naive
from theory.online import ConceptClass
from theory.online.dims import (
    HalvingLearner,
    LittlestoneTree,
    SOALearner,
    _threshold_branch_and_bound,
    _threshold_subset_dp,
    littlestone_dim,
    littlestone_tree,
    soa_predict,
    threshold_dim,
    threshold_witness,
    vc_dim,
    vc_witness,
)

W_ROWS = ["0000", "1000", "0100", "0001", "1101", "0011", "1011", "1111"]  # the gadget W


# ------------------------------------------------------------------------- classes for the tests
@st.composite
def matrices(
    draw: st.DrawFn, max_points: int = 7, max_hypotheses: int = 40, min_points: int = 1
) -> np.ndarray:
    """Random 0/1 class matrices (rows may repeat) with min_points..max_points columns."""
    m = draw(st.integers(min_points, max_points))
    codes = draw(st.lists(st.integers(0, 2**m - 1), min_size=1, max_size=max_hypotheses))
    return np.array([[(c >> j) & 1 for j in range(m)] for c in codes], dtype=np.uint8)


def thresholds(k: int) -> ConceptClass:
    """h_i(x_j) = [j < i] for i = 0..k: k + 1 hypotheses on k points."""
    return ConceptClass.from_array([[int(j < i) for j in range(k)] for i in range(k + 1)])


def all_functions(k: int) -> ConceptClass:
    return ConceptClass.from_array(list(itertools.product([0, 1], repeat=k)))


def singletons(k: int, with_zero: bool = False) -> ConceptClass:
    rows = np.eye(k, dtype=np.uint8)
    if with_zero:
        rows = np.vstack([np.zeros((1, k), dtype=np.uint8), rows])
    return ConceptClass(rows)


def minimal_tree_class(d: int) -> ConceptClass:
    """Points: the nodes of T_{d−1} (bit strings of length < d); h_b labels each prefix of b
    with b's next bit and every other node 0 (the minimal tree class)."""
    nodes = [format(i, f"0{n}b") if n else "" for n in range(d) for i in range(2**n)]
    col = {s: j for j, s in enumerate(nodes)}
    matrix = np.zeros((2**d, len(nodes)), dtype=np.uint8)
    for r, b in enumerate(itertools.product("01", repeat=d)):
        for i in range(d):
            matrix[r, col["".join(b[:i])]] = int(b[i])
    return ConceptClass(matrix)


def product(A: ConceptClass, B: ConceptClass) -> ConceptClass:
    """The class on the disjoint union of the domains: (a, b) for a ∈ A, b ∈ B."""
    return ConceptClass(np.array([np.concatenate([a, b]) for a in A.matrix for b in B.matrix]))


def assert_tree_is_shattered(H: ConceptClass, tree: LittlestoneTree) -> None:
    d = tree.depth
    assert set(tree.nodes) == {
        "".join(s) for n in range(d) for s in itertools.product("01", repeat=n)
    }
    assert set(tree.witnesses) == {"".join(s) for s in itertools.product("01", repeat=d)}
    for leaf, h in tree.witnesses.items():
        for i in range(d):
            assert H.matrix[h, tree.nodes[leaf[:i]]] == int(leaf[i])


# ------------------------------------------------------------------------------------------ Ldim
@settings(deadline=None, max_examples=200)
@given(matrices())
def test_ldim_equals_the_naive_recursion(matrix):
    assert littlestone_dim(ConceptClass(matrix)) == littlestone_dim_naive(matrix)


@settings(deadline=None, max_examples=40)
@given(matrices(max_points=6, max_hypotheses=150))
def test_ldim_multiword_equals_the_naive_recursion(matrix):
    assert littlestone_dim(ConceptClass(matrix)) == littlestone_dim_naive(matrix)


@settings(deadline=None, max_examples=60)
@given(matrices(max_points=6, max_hypotheses=30), st.integers(3, 8), st.data())
def test_ldim_is_invariant_under_duplicating_rows_and_columns_and_flips(matrix, copies, data):
    ldim = littlestone_dim(ConceptClass(matrix))
    tall = np.tile(matrix, (copies, 1))  # > 64 rows for most draws: the multi-word path
    assert littlestone_dim(ConceptClass(tall)) == ldim
    perm = data.draw(st.permutations(range(matrix.shape[1])))
    flips = np.array(data.draw(st.lists(st.booleans(), min_size=len(perm), max_size=len(perm))))
    changed = matrix[:, perm] ^ flips.astype(np.uint8)
    wide = np.column_stack([changed, 1 - changed[:, :1]])  # plus a complementary column
    assert littlestone_dim(ConceptClass(wide)) == ldim


@pytest.mark.parametrize("k", range(1, 7))
def test_spec_oracles_singletons_thresholds_all_functions(k):
    assert littlestone_dim(singletons(k)) == int(k > 1)
    assert littlestone_dim(singletons(k, with_zero=True)) == 1
    assert littlestone_dim(all_functions(k)) == k
    assert littlestone_dim(thresholds(k)) == int(np.floor(np.log2(k + 1)))


def test_spec_oracles_gadget_products_and_tree_classes():
    W = ConceptClass.from_strings(W_ROWS)
    assert littlestone_dim(W) == 3
    assert littlestone_dim(product(W, W)) == 6  # 64 rows: one word
    assert littlestone_dim(product(product(W, W), W)) == 9  # 512 rows: eight words
    for d in range(1, 9):
        assert littlestone_dim(minimal_tree_class(d)) == d
    assert littlestone_dim(thresholds(100)) == 6
    assert littlestone_dim(all_functions(8)) == 8


@settings(deadline=None, max_examples=100)
@given(matrices(max_hypotheses=100))
def test_littlestone_tree_is_shattered_with_depth_ldim(matrix):
    H = ConceptClass(matrix)
    tree = littlestone_tree(H)
    assert tree.depth == littlestone_dim_naive(matrix)
    assert_tree_is_shattered(H, tree)


@pytest.mark.parametrize("d", [1, 5, 8])
def test_littlestone_tree_of_tree_classes(d):
    H = minimal_tree_class(d)
    tree = littlestone_tree(H)
    assert tree.depth == d
    assert_tree_is_shattered(H, tree)


def test_one_hypothesis_and_no_points():
    assert littlestone_dim(ConceptClass.from_strings(["0101"])) == 0
    assert littlestone_tree(ConceptClass.from_strings(["0101", "0101"])) == LittlestoneTree(
        0, {}, {"": 0}
    )
    H = ConceptClass(np.zeros((3, 0), dtype=np.uint8))
    assert (littlestone_dim(H), vc_dim(H), threshold_dim(H)) == (0, 0, 0)


# -------------------------------------------------------------------------------- VC, thresholds
@settings(deadline=None, max_examples=150)
@given(matrices(max_points=6))
def test_vc_and_threshold_dims_equal_the_naive_search(matrix):
    H = ConceptClass(matrix)
    witness = vc_witness(H)
    assert len(witness) == vc_dim(H) == vc_dim_naive(matrix)
    assert len({tuple(r) for r in matrix[:, list(witness)]}) == 2 ** len(witness)
    points, hyps = threshold_witness(H)
    assert len(points) == threshold_dim(H) == threshold_dim_naive(matrix)
    k = len(points)
    assert len(hyps) == k + 1
    for i, h in enumerate(hyps):
        assert [int(matrix[h, x]) for x in points] == [int(j < i) for j in range(k)]
    # the dimensions bound each other and Ldim (docs/online.md#bounds-from-the-paper-and-before-it)
    ldim = littlestone_dim(H)
    assert vc_dim(H) <= ldim
    assert int(np.floor(np.log2(k + 1))) <= ldim
    assert ldim <= int(np.floor(np.log2(len({tuple(r) for r in matrix}))))


@settings(deadline=None, max_examples=30)
@given(matrices(min_points=7, max_points=8, max_hypotheses=200))
def test_vc_multiword_equals_the_naive_search(matrix):
    assert vc_dim(ConceptClass(matrix)) == vc_dim_naive(matrix)


@settings(deadline=None, max_examples=100)
@given(matrices(max_points=9, max_hypotheses=30))
def test_threshold_branch_and_bound_equals_the_subset_dp(matrix):
    H = ConceptClass(matrix)
    candidates = list(range(matrix.shape[1]))
    dp_points, _ = _threshold_subset_dp(H, candidates)
    points, hyps = _threshold_branch_and_bound(H, candidates)
    assert len(points) == len(dp_points)
    for i, h in enumerate(hyps):
        assert [int(matrix[h, x]) for x in points] == [int(j < i) for j in range(len(points))]


def test_dims_of_the_spec_classes():
    W = ConceptClass.from_strings(W_ROWS)
    assert vc_dim(thresholds(7)) == 1
    assert threshold_dim(thresholds(7)) == 7
    assert threshold_dim(thresholds(40)) == 40  # branch and bound (> 20 columns)
    assert vc_dim(all_functions(5)) == threshold_dim(all_functions(5)) == 5
    assert vc_dim(all_functions(8)) == 8
    assert vc_dim(minimal_tree_class(6)) == 1
    assert vc_dim(W) == vc_dim_naive(W.matrix)
    assert threshold_dim(W) == threshold_dim_naive(W.matrix)
    # witnesses are columns of the user's class, not of its canonical form
    matrix = np.column_stack([np.ones(16, dtype=np.uint8), all_functions(4).matrix])
    assert vc_witness(ConceptClass(matrix)) == (1, 2, 3, 4)


# ------------------------------------------------------------------------------------- learners
@st.composite
def games(draw: st.DrawFn, max_hypotheses: int = 40):
    """A class, a target row and a sequence of points (repeats allowed)."""
    matrix = draw(matrices(max_hypotheses=max_hypotheses))
    target = draw(st.integers(0, matrix.shape[0] - 1))
    order = draw(st.lists(st.integers(0, matrix.shape[1] - 1), max_size=12))
    return ConceptClass(matrix), target, order


@settings(deadline=None, max_examples=100)
@given(games(max_hypotheses=100))
def test_soa_and_halving_mistake_bounds(game):
    H, target, order = game
    soa, halving = SOALearner(H), HalvingLearner(H)
    for x in order:
        y = int(H.matrix[target, x])
        for learner in (soa, halving):
            assert learner.predict(x) in (0, 1)
            learner.update(x, y)
            assert learner.version_space[target]
    assert soa.mistakes <= littlestone_dim(H)
    assert halving.mistakes <= int(np.floor(np.log2(H.n_hypotheses)))


@settings(deadline=None, max_examples=60)
@given(matrices())
def test_the_tree_adversary_forces_exactly_ldim_mistakes_on_soa(matrix):
    H = ConceptClass(matrix)
    tree = littlestone_tree(H)
    soa = SOALearner(H)
    node = ""
    for _ in range(tree.depth):
        x = tree.nodes[node]
        y = 1 - soa.predict(x)
        soa.update(x, y)
        node += str(y)
    assert soa.mistakes == tree.depth == littlestone_dim(H)


def test_soa_predict_argmax_and_ties():
    W = ConceptClass.from_strings(W_ROWS)
    full = np.ones(8, dtype=bool)
    # x0: V^0 = {0000, 0100, 0001, 0011} has Ldim 2, V^1 = {1000, 1101, 1011, 1111} has Ldim 2
    assert soa_predict(W, full, 0) == 1
    only_zero_rows = np.array([r[0] == "0" for r in W_ROWS])
    assert soa_predict(W, only_zero_rows, 0) == 0
    th = thresholds(3)  # rows 000, 100, 110, 111: at x2, V^1 = {111} (0) and V^0 has Ldim 1
    assert soa_predict(th, np.ones(4, dtype=bool), 2) == 0
    assert soa_predict(th, np.ones(4, dtype=bool), 0) == 1  # V^0 = {000} (0), V^1 (Ldim 1)
    learner = SOALearner(th)
    assert learner.predict(2) == 0
    learner.update(2, 1)
    assert learner.mistakes == 1
    assert learner.version_space.tolist() == [False, False, False, True]


def test_bad_input_names_the_argument():
    H = thresholds(3)
    with pytest.raises(ValueError, match="H must be a ConceptClass"):
        littlestone_dim(H.matrix)
    with pytest.raises(ValueError, match="x must"):
        soa_predict(H, np.ones(4, dtype=bool), 3)
    with pytest.raises(ValueError, match="version_space_rows"):
        soa_predict(H, np.ones(3, dtype=bool), 0)
    with pytest.raises(ValueError, match="version_space_rows"):
        soa_predict(H, np.full(4, 2), 0)
    for learner in (SOALearner(H), HalvingLearner(H)):
        with pytest.raises(ValueError, match="x must"):
            learner.predict(-1)
        with pytest.raises(ValueError, match="x must"):
            learner.predict(True)
        with pytest.raises(ValueError, match="y must be 0 or 1"):
            learner.update(0, 2)
        learner.update(0, 0)  # V = {000}
        with pytest.raises(ValueError, match="y=1 at x=1 is not realizable"):
            learner.update(1, 1)
