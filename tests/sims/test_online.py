"""The paper's algorithms (Chase et al. 2025, Alg. 1–2 and 5–7): CONSTRUCTSEQUENCE's claims, the
adversary's guarantee against exact values, the labelling rule's potential, the danger-zone
learner's invariants, and graph export."""

from __future__ import annotations

import functools
import math
import operator
import re

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from sims.online import (
    AdversarySequence,
    DangerZoneLearner,
    construct_sequence,
    draw_tree,
    game_tree_graph,
    guaranteed_mistakes,
    hypothesis_paths,
    littlestone_tree_graph,
    play_learner,
    reduce_to_tree,
    run_adversary,
    write_graph,
)
from sims.online_sweeps import census5_task
from sims.sweep import run_sweep
from theory.online.census import CensusCounts, census5
from theory.online.concept_class import ConceptClass
from theory.online.constructions import gadget_w, product, singletons, tree_class, tree_paths

# (d, ε, M) grid for the adversary: small enough that g and v are exact in well under a second
GRID = [(2, 0.5, 0), (3, 0.25, 1), (4, 0.1, 2), (5, 0.2, 2), (6, 0.05, 4), (7, 0.1, 3)]
ORDERS = ["fifo", "lifo", "random"]


# ------------------------------------------------------------------------- local oracles
def _cols(H: ConceptClass) -> list[int]:
    return [sum(int(H.matrix[i, x]) << i for i in range(H.n_hypotheses)) for x in range(H.n_points)]


def local_value(H: ConceptClass, seq) -> int:
    """BKM's v(H, x): c(a, b) = a + 1 if a = b else max(a, b), memoised on (t, V) (BKM97)."""
    cols, seq, memo = _cols(H), [int(x) for x in seq], {}

    def v(vs: int, t: int) -> int:
        while t < len(seq) and vs & (vs - 1):
            c = cols[seq[t]]
            if vs & c and vs & ~c:
                break
            t += 1
        if t == len(seq) or vs & (vs - 1) == 0:
            return 0
        if (vs, t) not in memo:
            c = cols[seq[t]]
            a, b = v(vs & ~c, t + 1), v(vs & c, t + 1)
            memo[vs, t] = a + 1 if a == b else max(a, b)
        return memo[vs, t]

    return v((1 << H.n_hypotheses) - 1, 0)


def exact_value(H: ConceptClass, seq) -> int:
    """The project's transductive_value when it exists (cross-checked), else the local one."""
    v = local_value(H, seq)
    try:
        from theory.online.transductive import transductive_value
    except ImportError:
        return v
    assert transductive_value(H, list(map(int, seq))) == v
    return v


class Constant:
    def __init__(self, label: int) -> None:
        self.label = label

    def predict(self, x: int) -> int:
        return self.label

    def update(self, x: int, y: int) -> None:
        pass


class RandomGuess:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def predict(self, x: int) -> int:
        return int(self.rng.integers(2))

    def update(self, x: int, y: int) -> None:
        pass


class Halving:
    """Majority vote of the version space (ties -> 0)."""

    def __init__(self, H: ConceptClass) -> None:
        self.H, self.alive = H, np.ones(H.n_hypotheses, dtype=bool)

    def predict(self, x: int) -> int:
        col = self.H.matrix[self.alive, x]
        return int(2 * col.sum() > col.size)

    def update(self, x: int, y: int) -> None:
        self.alive &= self.H.matrix[:, x] == y


# ----------------------------------------------------------------- Alg. 1: CONSTRUCTSEQUENCE
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(("d", "eps", "M"), GRID)
@pytest.mark.parametrize("q", [0.0, 0.25])
def test_construct_sequence_claim_b3(d, eps, M, order, q):
    """Ancestors come first and n < (d+1)·2^{M+1}; every node is output once."""
    H = tree_class(d, q, rng=d)
    s = construct_sequence(H, eps, M, order=order, rng=1)
    assert isinstance(s, AdversarySequence)
    assert s.d == d
    assert s.ancestors_first
    pos = {int(x): t for t, x in enumerate(s.sequence)}
    assert len(pos) == s.n
    assert all(x == 0 or pos[(x - 1) // 2] < t for x, t in pos.items())
    assert s.n < (d + 1) * 2 ** (M + 1) == s.length_bound
    assert s.within_length_bound
    members = sorted(i for _, m in s.collection for i in m)
    assert len(members) == len(set(members))  # the members of C are disjoint
    assert all(len(b) <= M for b, _ in s.collection)


@pytest.mark.parametrize(("d", "eps", "M"), GRID)
def test_minimal_tree_class_pop_order_and_value(d, eps, M):
    """On minimal tree classes n and g do not depend on the pop order and g = min(M+1, d)."""
    H = tree_class(d)
    runs = [construct_sequence(H, eps, M, order=o, rng=5) for o in ORDERS]
    assert len({s.n for s in runs}) == 1
    assert {guaranteed_mistakes(H, s) for s in runs} == {min(M + 1, d)}


def test_spec_pilot_ldim6():
    """The pilot computed before the claim: Ldim 6, (ε, M) = (.05, 4): n = 47, g = v = 5; BFS
    order gives 6."""
    H = tree_class(6)
    s = construct_sequence(H, 0.05, 4)
    assert s.n == 47
    assert guaranteed_mistakes(H, s.sequence, 0.05) == 5
    assert exact_value(H, s.sequence) == 5
    bfs = np.arange(H.n_points)
    assert guaranteed_mistakes(H, bfs, 0.05) == 6
    assert exact_value(H, bfs) == 6


@pytest.mark.parametrize("d", [1, 2, 3, 4])
@pytest.mark.parametrize("q", [0.0, 0.2, 0.4])
def test_guarantee_below_exact_value(d, q):
    """g ≤ v(H, x) ≤ M_tr, and g ≥ the potential bound min(M+1, ⌈(d + n log2(1−ε))/log2(1/ε)⌉)."""
    H = tree_class(d, q, rng=100 + d)
    for eps in (0.1, 0.3, 0.5):
        for M in range(d + 1):
            s = construct_sequence(H, eps, M)
            g = guaranteed_mistakes(H, s)
            assert s.mistake_lower_bound <= g <= exact_value(H, s.sequence) <= d


def test_reduce_to_tree_from_a_littlestone_tree():
    """The reduction of the paper's App. B: one witness per leaf of a shattered tree, points renamed
    as tree nodes."""
    dims = pytest.importorskip("theory.online.dims")
    big = product(tree_class(3, 0.3, rng=2), gadget_w())  # Ldim 6
    tree = dims.littlestone_tree(big)
    red = reduce_to_tree(big, tree)
    d = tree.depth
    assert red.cls.matrix.shape == (2**d, 2**d - 1)
    assert np.array_equal(red.cls.matrix, big.matrix[red.witnesses][:, red.node_points])
    assert [tree.witnesses[format(b, f"0{d}b")] for b in range(2**d)] == red.witnesses.tolist()
    s = construct_sequence(big, 0.1, 3, tree=tree)
    assert np.array_equal(s.original_sequence, red.node_points[s.sequence])
    assert guaranteed_mistakes(None, s) <= exact_value(big, s.original_sequence)
    # also from a plain {bit string: point} mapping
    assert np.array_equal(reduce_to_tree(big, tree.nodes).cls.matrix, red.cls.matrix)


def test_hypothesis_paths_of_tree_classes():
    for d in (1, 3, 5):
        assert np.array_equal(hypothesis_paths(tree_class(d, 0.3, rng=d)), tree_paths(d))


def test_input_validation():
    H = tree_class(3)
    with pytest.raises(ValueError, match="eps"):
        construct_sequence(H, 0.0, 1)
    with pytest.raises(ValueError, match="eps"):
        construct_sequence(H, 0.6, 1)
    with pytest.raises(ValueError, match="M must"):
        construct_sequence(H, 0.1, -1)
    with pytest.raises(ValueError, match="order"):
        construct_sequence(H, 0.1, 1, order="bfs")
    with pytest.raises(ValueError, match="2\\^d − 1"):
        construct_sequence(gadget_w(), 0.1, 1)
    with pytest.raises(ValueError, match="one hypothesis per leaf"):
        construct_sequence(H.subclass([0, 0, 1, 2, 3, 4, 5, 6]), 0.1, 1)
    with pytest.raises(ValueError, match="not shattered"):
        reduce_to_tree(singletons(3), [0, 1, 2])
    with pytest.raises(ValueError, match="sequence"):
        guaranteed_mistakes(H, [0, 7], 0.1)
    with pytest.raises(ValueError, match="eps is required"):
        guaranteed_mistakes(H, [0, 1])


# --------------------------------------------------------------- Alg. 2: the labelling rule
def _learners(H: ConceptClass, s: AdversarySequence, seed: int) -> list:
    return [
        Constant(0),
        Constant(1),
        RandomGuess(seed),
        Halving(H),
        DangerZoneLearner(H, None, s.sequence, halving_size=2, t_max=s.n),
    ]


@pytest.mark.parametrize(("d", "eps", "M"), GRID)
@pytest.mark.parametrize("q", [0.0, 0.25])
def test_adversary_potential_and_guarantee(d, eps, M, q):
    """log2|V_t| drops by ≤ log2(1/ε) at forced steps and ≤ log2(1/(1−ε)) otherwise; every
    learner suffers ≥ g forced mistakes; with ≤ M forced the run ends inside C on one hypothesis
    (Claims B.4, B.5)."""
    H = tree_class(d, q, rng=3)
    s = construct_sequence(H, eps, M, order="random", rng=d)
    g = guaranteed_mistakes(H, s)
    for seed, learner in enumerate(_learners(H, s, seed=d)):
        r = run_adversary(None, s, learner)
        drops = -np.diff(r["log2_size"])
        assert (drops >= -1e-12).all()
        assert r["potential_ok"].all()
        assert (drops[r["forced"]] <= -math.log2(eps) + 1e-9).all()
        assert (drops[~r["forced"]] <= -math.log2(1 - eps) + 1e-9).all()
        assert r["mistakes"][r["forced"]].all()
        assert r["n_mistakes"] >= r["n_forced"] >= g, seed
        m, n = r["n_forced"], s.n
        assert r["log2_size"][-1] >= d + m * math.log2(eps) + (n - m) * math.log2(1 - eps) - 1e-9
        if r["n_forced"] <= M:
            assert r["in_collection"]
            assert r["final_size"] == 1


def test_adversary_stays_in_collection_sometimes():
    """The ≤ M-forced branch of Claim B.4 is exercised (not vacuous) on random classes."""
    hits = 0
    for seed in range(4):
        H = tree_class(5, 0.25, rng=seed)
        s = construct_sequence(H, 0.45, 3)
        for learner in _learners(H, s, seed):
            r = run_adversary(H, s, learner)
            if r["n_forced"] <= s.M:
                hits += 1
                assert r["in_collection"]
                assert r["final_size"] == 1
    assert hits > 0


def test_run_adversary_rejects_bad_predictions():
    H = tree_class(2)
    with pytest.raises(ValueError, match="learner predicted"):
        run_adversary(H, [0, 1], Constant(2), 0.1)


# ----------------------------------------------------------------- Alg. 5–7: the learner
def _play(H, L, seq, target):
    """Run learner L on seq labelled by row target; yield after every step."""
    for x in seq:
        L.predict(int(x))
        L.update(int(x), int(H.matrix[target, x]))
        yield


@pytest.mark.parametrize(("d", "q"), [(3, 0.0), (4, 0.0), (4, 0.3), (5, 0.2)])
def test_exactly_one_consistent_expert(d, q):
    """Lemma D.4 at lowered thresholds: exactly one expert has only true assumptions, the experts'
    version spaces are disjoint, and the learner's mistakes respect the weight argument with the
    3/4 factor: M_L ≤ log_{4/3}(1 / w_true)."""
    H = tree_class(d, q, rng=9)
    rng = np.random.default_rng(d)
    seq = np.concatenate([rng.permutation(H.n_points), rng.integers(H.n_points, size=3)])
    splits = 0
    for target in range(H.n_hypotheses):
        L = DangerZoneLearner(H, tree_paths(d), seq, d, halving_size=1.5, t_max=len(seq) // 2)
        for t, _ in enumerate(_play(H, L, seq, target)):
            assert L.n_consistent_experts(target) == 1
            vs = [e.members for e in L.experts]
            union = functools.reduce(operator.or_, vs)
            assert sum(v.bit_count() for v in vs) == union.bit_count()  # disjoint
            seen = seq[: t + 1]
            agree = (H.matrix[:, seen] == H.matrix[target, seen]).all(axis=1)
            assert union == sum(1 << int(i) for i in np.flatnonzero(agree))  # a partition
        true = L.true_expert(target)
        splits += true.mistakes["zone_split"]
        assert true.mistakes["ancestor"] == 0  # rule 2 only fails experts with false assumptions
        halvings = sum(true.mistakes.values()) + true.mistakes["zone_split"]
        assert true.weight >= 2.0**-halvings
        assert L.n_mistakes <= math.log(1 / true.weight) / math.log(4 / 3) + 1e-9
    assert splits > 0  # the split logic ran


def test_learner_is_halving_at_paper_thresholds():
    """At computable d the paper's 2^{2√d} ≥ |H|: one expert, predicting the majority vote."""
    H = tree_class(4, 0.3, rng=4)
    seq = np.arange(H.n_points)[::-1]
    for target in (0, 5, 11):
        L, ref = DangerZoneLearner(H, None, seq), Halving(H)
        for x in seq:
            assert L.predict(int(x)) == ref.predict(int(x))
            y = int(H.matrix[target, x])
            L.update(int(x), y)
            ref.update(int(x), y)
            assert len(L.experts) == 1


def test_learner_validation():
    H = tree_class(3)
    with pytest.raises(ValueError, match="d = 4"):
        DangerZoneLearner(H, None, [0], 4)
    with pytest.raises(ValueError, match="paths"):
        DangerZoneLearner(H, tree_paths(3)[::-1], [0])
    with pytest.raises(ValueError, match="sequence"):
        DangerZoneLearner(H, None, [9])
    L = DangerZoneLearner(H, None, [0])
    with pytest.raises(ValueError, match="y must be"):
        L.update(0, 2)


# ---------------------------------------------------------------------------------- graphs
def test_littlestone_tree_graph_round_trips_graphml(tmp_path):
    dims = pytest.importorskip("theory.online.dims")
    H = tree_class(3, 0.3, rng=1)
    tree = dims.littlestone_tree(H)
    G = littlestone_tree_graph(tree, H)
    assert G.number_of_nodes() == 2**3 - 1 + 2**3  # internal nodes + witnessed leaves
    assert all(G.edges[s[:-1], s]["label"] == int(s[-1]) for s in G.nodes if s)
    assert G.nodes[""]["point"] == H.points[tree.nodes[""]]
    R = nx.read_graphml(write_graph(G, tmp_path / "tree.graphml"))
    assert set(R.nodes) == set(G.nodes)
    assert {(u, v, a["label"]) for u, v, a in R.edges(data=True)} == {
        (u, v, a["label"]) for u, v, a in G.edges(data=True)
    }
    assert all(R.nodes[n]["point"] == G.nodes[n]["point"] for n in G.nodes)


def test_tree_graph_from_mapping():
    G = littlestone_tree_graph({"": 2, "0": 0, "1": 1})
    assert sorted(G.nodes) == ["", "0", "1"]
    assert G.nodes["1"]["point_index"] == 1
    assert G.graph["depth"] == 2


@pytest.mark.parametrize("d", [2, 3])
def test_game_tree_values(d, tmp_path):
    H = tree_class(d, 0.3, rng=d)
    rng = np.random.default_rng(0)
    for _ in range(3):
        seq = rng.permutation(H.n_points)
        G = game_tree_graph(H, seq)
        assert nx.is_arborescence(G)
        assert G.graph["value"] == exact_value(H, seq)
        for _, a in G.nodes(data=True):
            assert a["value"] == exact_value(
                H.subclass([i for i, ch in enumerate(a["members"]) if ch == "1"]),
                seq[a["t"] :],
            )
    R = nx.read_graphml(write_graph(G, tmp_path / "game.graphml"))
    assert R.number_of_nodes() == G.number_of_nodes()
    assert all(R.nodes[n]["value"] == G.nodes[n]["value"] for n in G.nodes)


def test_dot_output_parses(tmp_path):
    G = game_tree_graph(tree_class(3), range(7))
    text = write_graph(G, tmp_path / "game.dot").read_text(encoding="utf-8")
    assert text.startswith("digraph ")
    assert text.rstrip().endswith("}")
    node_lines = re.findall(r'^  "([^"]*)" \[', text, flags=re.MULTILINE)
    edge_lines = re.findall(r'^  "[^"]*" -> "[^"]*"', text, flags=re.MULTILINE)
    assert sorted(node_lines) == sorted(G.nodes)
    assert len(edge_lines) == G.number_of_edges()
    assert text.count("{") == text.count("}") == 1
    T = littlestone_tree_graph({"": 0, "0": 1, "1": 2})
    tree_text = write_graph(T, tmp_path / "tree.dot").read_text(encoding="utf-8")
    assert '  "" -> "0" ["label"="0"];' in tree_text
    with pytest.raises(ValueError, match="path"):
        write_graph(T, tmp_path / "tree.png")


def test_draw_tree_layout():
    G = littlestone_tree_graph({"": 0, "0": 1, "1": 2, "00": 3, "01": 4, "10": 5, "11": 6})
    fig = Figure()
    ax = fig.add_subplot()
    art = draw_tree(G, ax=ax)
    pos = art["positions"]
    assert set(pos) == set(G.nodes)
    assert all(pos[n][1] == -len(n) for n in G.nodes)
    leaves = ["00", "01", "10", "11"]
    assert [pos[n][0] for n in leaves] == [0.0, 1.0, 2.0, 3.0]  # edge-label order
    assert pos[""][0] == 1.5
    assert len(art["edges"].get_segments()) == G.number_of_edges()
    assert art["nodes"].get_offsets().shape == (7, 2)
    assert len(art["node_labels"]) == 7
    assert len(art["edge_labels"]) == 6
    T = game_tree_graph(tree_class(2), [0, 1, 2])
    game = draw_tree(T, label="value")
    assert len(game["positions"]) == T.number_of_nodes() == 8
    assert [t.get_text() for t in game["node_labels"]] == [str(T.nodes[n]["value"]) for n in T]


def test_census5_task_runs_resumably_in_a_sweep_and_merges_to_census5(tmp_path):
    params = [{"chunk": j, "n_chunks": 1 << 20} for j in (0, 1)]
    first = run_sweep(census5_task, params, cache_dir=tmp_path)
    again = run_sweep(census5_task, params, cache_dir=tmp_path)  # served from the cache
    assert again == first
    merged = CensusCounts.from_dict(first[0]["result"]) + CensusCounts.from_dict(first[1]["result"])
    assert merged == census5([0, 1], n_chunks=1 << 20)


@settings(max_examples=40, deadline=None)
@given(
    d=st.integers(2, 5),
    q=st.sampled_from([0.0, 0.25, 0.5]),
    size=st.sampled_from([1, 2, 4, 8]),
    seed=st.integers(0, 2**32 - 1),
)
def test_play_learner_records_one_factor_per_mistake_within_three_quarters(d, q, size, seed):
    """Any tree class, point order, Halving size and target: one true expert at every step, one
    weight factor per learner mistake, each in (0, 3/4] (weighted majority with penalty 1/2),
    and the true expert's weight bounds the mistakes (M ≤ log_{4/3}(1/w_true))."""
    rng = np.random.default_rng(seed)
    H = tree_class(d, q, rng=rng)
    order = rng.permutation(H.n_points)
    run = play_learner(H, order, int(rng.integers(H.n_hypotheses)), size)
    assert run.steps_without_one_true_expert == 0
    assert len(run.weight_factors) == run.mistakes
    assert all(0 < f <= 0.75 + 1e-12 for f in run.weight_factors)
    assert run.mistakes <= math.log(1 / run.true_weight) / math.log(4 / 3) + 1e-9


def test_play_learner_reaches_the_three_quarter_tie():
    """The caveat's weighted-majority tie happens: some mistake leaves exactly 3/4 of the weight
    (d = 4, q = 0.25, Halving size 4, random orders; found by search, so the 1/2 of Claim D.8
    is not a property of the learner)."""
    rng = np.random.default_rng(0)
    H = tree_class(4, 0.25, rng=rng)
    factors = [
        f
        for _ in range(30)
        for order in [rng.permutation(H.n_points)]
        for target in range(H.n_hypotheses)
        for f in play_learner(H, order, target, 4).weight_factors
    ]
    assert max(factors) == pytest.approx(0.75)
