"""Arm B pieces: graph, corpus, verifier, BFS teacher, chance baseline and a tiny smoke run."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from neural import rlvr_transformer as nb
from tests.naive import grpo_loss_naive, path_kl_k3_naive, path_success_prob_naive

CFG = nb.ArmBConfig()


@pytest.fixture(scope="module")
def graph():
    return nb.make_graph(CFG)


def test_graph_is_symmetric_with_disjoint_hidden_edges(graph):
    for adj in (graph.base, graph.hidden):
        assert np.array_equal(adj, adj.T)
    assert not np.any(graph.base & graph.hidden)
    assert graph.hidden.sum() > 0
    assert np.all((graph.weight > 0) == graph.base)


def test_some_goals_need_hidden_edges_within_the_length_limit(graph):
    base_only = nb.shortest_paths(graph, graph.base)
    full = nb.shortest_paths(graph)
    pairs = [(s, g) for s in range(graph.n) for g in range(graph.n) if s != g]
    assert all(len(full[p]) <= CFG.max_len for p in pairs)
    assert any(len(base_only[p]) > CFG.max_len for p in pairs)


def test_teacher_paths_are_verified_shortest_paths(graph):
    full = nb.shortest_paths(graph)
    prompts = np.array(list(full))
    paths = np.full((len(prompts), graph.n), -1)
    for row, p in enumerate(full.values()):
        paths[row, : len(p)] = p
    assert nb.verify(graph, prompts, paths).all()


def test_verifier_rejects_wrong_endpoint_and_non_edges(graph):
    prompts = np.array([[0, 2], [0, 2], [0, 2], [0, 2]])
    paths = np.array([[1, 2, -1], [1, -1, -1], [2, -1, -1], [-1, -1, -1]])
    assert nb.verify(graph, prompts, paths).tolist() == [True, False, bool(graph.full[0, 2]), False]


def test_walk_corpus_is_relabelled_base_walks(graph):
    cfg = nb.ArmBConfig(label_noise=0.0)
    prompts, paths = nb.walk_corpus(graph, cfg, 500, np.random.default_rng(0))
    assert len(prompts) > 400
    base_graph = nb.PathGraph(graph.base, np.zeros_like(graph.hidden), graph.weight)
    assert nb.verify(base_graph, prompts, paths).all()  # walks use base edges and end at the goal
    assert np.all(prompts[:, 0] != prompts[:, 1])


def test_chance_success_matches_monte_carlo(graph):
    cfg = nb.ArmBConfig(max_len=3)
    chance = nb.chance_success(graph, cfg)
    rng = np.random.default_rng(1)
    s, g, reps = 0, 1, 200_000
    paths = rng.integers(graph.n, size=(reps, cfg.max_len))
    hit = paths == g
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), cfg.max_len)
    paths = np.where(np.arange(cfg.max_len) <= first[:, None], paths, -1)
    mc = nb.verify(graph, np.tile([s, g], (reps, 1)), paths).mean()
    assert abs(mc - chance[s, g]) < 4 * np.sqrt(chance[s, g] / reps)


def test_tiny_arm_b_run_gates_rl_and_returns_counts_for_every_arm():
    params = {
        "d_model": 16,
        "n_layers": 1,
        "base_steps": 3,
        "distill_steps": 2,
        "rl_steps": 2,
        "batch": 16,
        "rl_prompts": 4,
        "group": 4,
        "n_eval": 4,
    }
    gated = nb.arm_b_task(params, np.random.default_rng(2))  # 3 steps: far below the gate
    assert gated["rl_run"] is False
    assert set(gated["counts"]) == {"base"}
    out = nb.arm_b_task({**params, "gate_margin": None}, np.random.default_rng(2))
    assert out["rl_run"] is True
    n_test = len(out["test"])
    assert set(out["counts"]) == {"base", "rl", "distill", "rl_kl"} == set(out["p"])
    for arm in ("base", "rl", "distill", "rl_kl"):
        c = np.asarray(out["counts"][arm])
        assert c.shape == (n_test,)
        assert np.all((c >= 0) & (c <= 4))
    assert len(out["chance_pass1"]) == n_test == len(out["needs_hidden"])
    for p in out["p"].values():
        assert p.shape == (n_test,)
        assert np.all((p > 0) & (p < 1))


def test_path_kl_k3_matches_the_naive_mean_and_vanishes_at_the_reference():
    rng = np.random.default_rng(4)
    logp = torch.as_tensor(-rng.exponential(size=(6, 4)))
    ref = torch.as_tensor(-rng.exponential(size=(6, 4)))
    valid = torch.as_tensor(rng.random((6, 4)) < 0.7)
    valid[0] = False  # a path with no tokens: 0
    kl = nb.path_kl_k3(logp, ref, valid)
    np.testing.assert_allclose(
        kl.numpy(), path_kl_k3_naive(logp.tolist(), ref.tolist(), valid.tolist()), rtol=1e-12
    )
    assert torch.all(kl >= 0)
    assert torch.all(nb.path_kl_k3(logp, logp, valid) == 0)


def test_kl_penalty_holds_grpo_closer_to_its_start():
    """Same seeds, goals one edge away (untrained reward ≈ 5%, so groups have mixed rewards): a
    large KL coefficient moves the weights less; a negligible one changes nothing (the frozen
    reference equals the start, so the k3 penalty's gradient is exactly 0 there)."""
    cfg = nb.ArmBConfig(d_model=16, n_layers=1, rl_steps=10, rl_prompts=24, group=8, rl_lr=1e-2)
    graph = nb.make_graph(cfg)
    prompts = np.array([(s, (s + 1) % graph.n) for s in range(graph.n)])
    torch.manual_seed(0)
    start = nb.PathTransformer(cfg)
    moved = []
    for kl in (0.0, 1e-9, 50.0):
        model = nb.PathTransformer(cfg)
        model.load_state_dict(start.state_dict())
        nb.grpo_train(
            model,
            graph,
            prompts,
            cfg,
            np.random.default_rng(5),
            kl=kl,
        )
        moved.append(
            sum(
                float((a - b).detach().abs().sum())
                for a, b in zip(model.parameters(), start.parameters(), strict=True)
            )
        )
    assert moved[0] > 0
    assert moved[1] == pytest.approx(moved[0], rel=1e-4)
    assert moved[2] < 0.8 * moved[0]


@pytest.fixture(scope="module")
def short_model():
    """A briefly trained model with paths of at most 3 nodes (brute force stays small)."""
    cfg = nb.ArmBConfig(max_len=3, d_model=16, n_layers=1, batch=64)
    graph = nb.make_graph(cfg)
    rng = np.random.default_rng(7)
    torch.manual_seed(7)
    model = nb.PathTransformer(cfg)
    nb.supervised_train(model, *nb.walk_corpus(graph, cfg, 2000, rng), 40, cfg, rng)
    return cfg, graph, model


def test_exact_success_probs_match_brute_force_over_all_sequences(short_model):
    cfg, graph, model = short_model
    prompts = np.array([[0, 1], [0, 12], [3, 2], [7, 19]])
    exact = nb.exact_success_probs(model, graph, prompts, cfg)
    for (s, g), p in zip(prompts, exact, strict=True):

        def next_probs(prefix, s=s, g=g):
            path = torch.full((1, cfg.max_len), -1)
            path[0, : len(prefix)] = torch.as_tensor(prefix, dtype=torch.long)
            with torch.no_grad():
                logits = model(nb._tokens(model, torch.as_tensor([[s, g]]), path))
            return torch.softmax(logits[0, 2 + len(prefix)], dim=-1).double().tolist()

        naive = path_success_prob_naive(next_probs, graph.full, int(s), int(g), cfg.max_len)
        assert p == pytest.approx(naive, rel=1e-6, abs=1e-12)


def test_exact_success_probs_match_sampled_paths(short_model):
    """Sampled copies that verify, kept whole or cut off as soon as they leave the graph's edges,
    occur at the exact rate; every copy is accounted for."""
    cfg, graph, model = short_model
    prompts = np.array([[0, 1], [5, 9]])
    exact = nb.exact_success_probs(model, graph, prompts, cfg)
    reps = 20_000
    tol = 4 * np.sqrt(exact * (1 - exact) / reps) + 1e-4
    for seed, adjacency in ((8, None), (9, graph.full)):
        rows, paths, mult = nb.sample_paths(
            model, prompts, reps, cfg, np.random.default_rng(seed), adjacency=adjacency
        )
        ok = nb.verify(graph, prompts[rows], paths)
        rate = np.bincount(rows[ok], weights=mult[ok], minlength=2) / reps
        assert np.all(np.abs(rate - exact) <= tol)
        held = np.bincount(rows, weights=mult, minlength=2)
        assert np.all(held == reps) if adjacency is None else np.all(held <= reps)


def test_grouped_paths_are_distinct_and_drawn_with_their_model_probability(short_model):
    """Every distinct path of a prompt is returned once, ends at the goal or at max_len, and its
    copies occur at Π_t π(v_t | prefix) (4.5 σ per path; the path probabilities sum to 1)."""
    cfg, _graph, model = short_model
    prompts, reps = np.array([[3, 2]]), 50_000
    rows, paths, mult = nb.sample_paths(model, prompts, reps, cfg, np.random.default_rng(10))
    assert len({tuple(p) for p in paths}) == len(paths)
    assert np.all(rows == 0)
    for path in paths:
        nodes = path[path >= 0]
        assert (nodes[-1] == 2) or len(nodes) == cfg.max_len
        assert 2 not in nodes[:-1]
        assert np.all(path[len(nodes) :] == -1)
    with torch.no_grad():
        logits = model(
            nb._tokens(
                model, torch.as_tensor(np.repeat(prompts, len(paths), 0)), torch.as_tensor(paths)
            )
        )
    logp = torch.log_softmax(logits[:, 2:].double(), dim=-1).numpy()
    step = np.take_along_axis(logp, np.clip(paths, 0, None)[:, :, None], 2)[:, :, 0]
    prob = np.exp(np.where(paths >= 0, step, 0.0).sum(axis=1))
    assert prob.sum() <= 1 + 1e-9
    np.testing.assert_array_less(np.abs(mult / reps - prob), 4.5 * np.sqrt(prob / reps) + 1e-4)


def test_grpo_loss_on_grouped_paths_equals_the_mean_over_copies(short_model):
    """The grouped loss (distinct paths weighted by copies) and its gradient equal GRPO's loss
    computed copy by copy (tests/naive.py), with and without the KL term."""
    cfg, graph, model = short_model
    prompts = np.array([[0, 1], [0, 12], [3, 2], [7, 19], [0, 1]])
    sample = nb.sample_paths(model, prompts, 6, cfg, np.random.default_rng(11))
    torch.manual_seed(12)
    reference = nb.PathTransformer(cfg).requires_grad_(False)
    for kl in (0.0, 0.3):
        ref = reference if kl else None
        model.zero_grad()
        loss, reward = nb.grpo_loss(model, graph, prompts, sample, reference=ref, kl=kl)
        loss.backward()
        grads = [p.grad.clone() for p in model.parameters()]
        assert any(float(g.abs().max()) > 1e-4 for g in grads)  # some group has mixed rewards
        model.zero_grad()
        naive, naive_reward = grpo_loss_naive(model, graph, prompts, sample, ref, kl)
        naive.backward()
        assert float(loss.detach()) == pytest.approx(float(naive.detach()), rel=1e-5, abs=1e-7)
        assert reward == pytest.approx(naive_reward)
        for g, p in zip(grads, model.parameters(), strict=True):
            torch.testing.assert_close(g, p.grad, rtol=1e-5, atol=1e-7)
    model.zero_grad()


@settings(max_examples=25, deadline=None)
@given(
    copies=st.integers(1, 40),
    max_len=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    prune=st.booleans(),
)
def test_grouped_samples_account_for_every_copy(copies, max_len, seed, prune):
    """Invariants of ``sample_paths`` on an untrained model: per prompt the copies add up to
    ``copies`` (at most that when copies leaving the edges are dropped), the (row, path) pairs
    are distinct, a path stops at its goal's first emission or at ``max_len``, and with pruning
    every step is an edge."""
    cfg = nb.ArmBConfig(max_len=max_len, d_model=8, n_layers=1, n_heads=1)
    graph = nb.make_graph(cfg)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed % 2**31)
    model = nb.PathTransformer(cfg)
    prompts = np.array(
        [(s, (s + 1 + rng.integers(graph.n - 1)) % graph.n) for s in range(0, 24, 5)]
    )
    rows, paths, mult = nb.sample_paths(
        model, prompts, copies, cfg, rng, adjacency=graph.full if prune else None
    )
    held = np.bincount(rows, weights=mult, minlength=len(prompts))
    assert np.all(held <= copies) if prune else np.all(held == copies)
    assert np.all(mult >= 1)
    assert len({(int(r), *p.tolist()) for r, p in zip(rows, paths, strict=True)}) == len(rows)
    for row, path in zip(rows, paths, strict=True):
        nodes = path[path >= 0]
        s, g = prompts[row]
        assert np.all(path[len(nodes) :] == -1)
        assert g not in nodes[:-1]
        assert nodes[-1] == g or len(nodes) == max_len
        if prune:
            assert all(graph.full[a, b] for a, b in zip([s, *nodes[:-1]], nodes, strict=True))
