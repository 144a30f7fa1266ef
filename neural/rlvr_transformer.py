"""Arm B of the RLVR reproduction: a tiny transformer that emits paths on a fixed graph
(docs/rlvr.md#rlvr-tiny-reproduction-arm-a-toy-arm-b-transformer).

Task: prompt (start s, goal g); the model emits nodes v1, v2, ... (at most ``max_len``) and
stops as soon as it emits g. The verifier accepts a path when every step s→v1→v2→... is an edge
of the full graph and the goal is reached.

- Base: supervised training on hindsight-relabelled random walks over the *base* edges, biased
  toward popular edges (weight ``popular_weight``), with label noise: a walk's last node becomes
  its goal.
- Teacher: BFS shortest paths on the full graph, which also holds *hidden* edges that the base
  corpus never contains; distillation is supervised training of the base on those paths.
- GRPO: ``group`` samples per prompt, reward 1 for a verified path, group-normalised advantage,
  no KL; the ablation arm adds a KL penalty to the base model (KL = 0.001, the paper's own
  ablation).

Every function pins torch to one thread; this module imports torch at import time, so callers in
``paper_checks`` import it lazily.
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from sims.rlvr_toy import base_learned, group_advantages

__all__ = [
    "ArmBConfig",
    "PathGraph",
    "PathTransformer",
    "arm_b_task",
    "chance_success",
    "exact_success_probs",
    "grpo_loss",
    "grpo_train",
    "make_graph",
    "path_kl_k3",
    "sample_paths",
    "shortest_paths",
    "supervised_train",
    "verify",
    "walk_corpus",
]


@dataclass(frozen=True)
class ArmBConfig:
    """Sizes and recipe of Arm B (quick-scale defaults)."""

    #: Nodes of the graph (also the output vocabulary).
    n_nodes: int = 24
    max_len: int = 4  #: at most this many emitted nodes
    popular_weight: float = 4.0  #: ring edges are this many times likelier in base walks
    label_noise: float = 0.05  #: chance a walk step is replaced by a uniform random node
    #: Width of the transformer.
    d_model: int = 32
    #: Transformer blocks.
    n_layers: int = 2
    #: Attention heads.
    n_heads: int = 2
    #: Supervised steps training the base model on corpus walks.
    base_steps: int = 600
    #: Supervised steps distilling the teacher's paths.
    distill_steps: int = 200
    #: GRPO steps.
    rl_steps: int = 300
    #: Walks per supervised step.
    batch: int = 256
    #: Prompts per GRPO step.
    rl_prompts: int = 32
    #: Samples per prompt in GRPO.
    group: int = 8
    #: Adam learning rate of the supervised training.
    lr: float = 3e-3
    #: Adam learning rate of GRPO.
    rl_lr: float = 1e-3
    kl_ablation: float = 0.001  #: KL coefficient of the ablation arm ``rl_kl`` (the paper's)
    n_eval: int = 256  #: samples per test prompt (k ≤ n/4 = 64)


@dataclass(frozen=True)
class PathGraph:
    """Undirected graph: ``base`` edges (in the corpus) and ``hidden`` ones (teacher only);
    ``weight`` is the base walk's preference for each base edge."""

    #: (N, N) bool
    base: np.ndarray
    #: (N, N) bool, disjoint from base
    hidden: np.ndarray
    #: (N, N) float, 0 off the base edges
    weight: np.ndarray

    @property
    def full(self) -> np.ndarray:
        return self.base | self.hidden

    @property
    def n(self) -> int:
        return self.base.shape[0]


def make_graph(cfg: ArmBConfig) -> PathGraph:
    """A ring 0–1–…–(N−1)–0 of popular edges, chords i–(i+5) for even i (unpopular base edges),
    and hidden chords i–(i+N/2) for i ≡ 0 mod 4 (edges the base corpus never holds).
    Fixed: no randomness.

    Parameters
    ----------
    cfg : ArmBConfig
        Reads ``n_nodes`` (N) and ``popular_weight``.

    Returns
    -------
    PathGraph
        The graph.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.rlvr_transformer import ArmBConfig, make_graph
    >>> graph = make_graph(ArmBConfig(n_nodes=8))
    >>> int(graph.base.sum()) // 2, np.argwhere(np.triu(graph.hidden)).tolist()  # 8 + 4, 0–4
    (12, [[0, 4]])
    >>> float(graph.weight[0, 1]), float(graph.weight[0, 5])  # ring edge, chord
    (4.0, 1.0)
    """
    n = cfg.n_nodes
    base = np.zeros((n, n), bool)
    weight = np.zeros((n, n))
    hidden = np.zeros((n, n), bool)
    for i in range(n):
        for j, w in (((i + 1) % n, cfg.popular_weight), ((i + 5) % n, 1.0)):
            if j == (i + 5) % n and i % 2:
                continue
            base[i, j] = base[j, i] = True
            weight[i, j] = weight[j, i] = w
    for i in range(0, n // 2, 4):
        j = i + n // 2
        if not base[i, j]:
            hidden[i, j] = hidden[j, i] = True
    return PathGraph(base=base, hidden=hidden, weight=weight)


def walk_corpus(
    graph: PathGraph, cfg: ArmBConfig, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``size`` hindsight-relabelled walks on the base edges: start uniform, 1..max_len steps to
    a neighbour ∝ ``weight``, goal = the last node, cut at the goal's first visit; each step is
    replaced by a uniform random node with probability ``label_noise``. Returns prompts (size, 2)
    and paths (size, max_len) padded with −1.

    Parameters
    ----------
    graph : PathGraph
        The graph (its base edges and weights).
    cfg : ArmBConfig
        Reads ``max_len`` and ``label_noise``.
    size : int
        The walks drawn.
    rng : numpy.random.Generator
        The source of the walks.

    Returns
    -------
    tuple of numpy.ndarray of int64
        Prompts (M, 2) as (start, goal) and paths (M, max_len), M ≤ ``size``: a walk that ends
        at its start is dropped.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.rlvr_transformer import ArmBConfig, make_graph, walk_corpus
    >>> cfg = ArmBConfig(n_nodes=8, max_len=3)
    >>> prompts, paths = walk_corpus(make_graph(cfg), cfg, 10, np.random.default_rng(0))
    >>> prompts.shape[1], paths.shape[1], len(prompts) == len(paths) <= 10
    (2, 3, True)
    >>> all(row[row >= 0][-1] == goal for row, goal in zip(paths, prompts[:, 1]))
    True
    """
    n, length = graph.n, cfg.max_len
    prompts = np.zeros((size, 2), np.int64)
    paths = np.full((size, length), -1, np.int64)
    cum = np.cumsum(graph.weight, axis=1)
    for row in range(size):
        node = start = int(rng.integers(n))
        steps = []
        for _ in range(int(rng.integers(1, length + 1))):
            node = int(np.searchsorted(cum[node], rng.random() * cum[node, -1], side="right"))
            steps.append(node)
        goal = steps[-1]
        if goal == start:
            continue  # a walk back to its start is no path; the row stays padding
        steps = steps[: steps.index(goal) + 1]
        noisy = [int(rng.integers(n)) if rng.random() < cfg.label_noise else s for s in steps]
        noisy[-1] = goal
        prompts[row] = start, goal
        paths[row, : len(noisy)] = noisy
    keep = paths[:, 0] >= 0
    return prompts[keep], paths[keep]


def shortest_paths(graph: PathGraph, adjacency: np.ndarray | None = None) -> dict:
    """BFS shortest path (excluding the start) for every ordered pair, on ``adjacency``
    (default: the full graph): {(s, g): [v1, ..., g]}; unreachable pairs are absent.

    Parameters
    ----------
    graph : PathGraph
        The graph.
    adjacency : numpy.ndarray of bool, (N, N), optional
        The edges to walk (default None: ``graph.full``).

    Returns
    -------
    dict
        (s, g) → the nodes after s of one shortest path to g.

    Examples
    --------
    >>> from neural.rlvr_transformer import ArmBConfig, make_graph, shortest_paths
    >>> graph = make_graph(ArmBConfig(n_nodes=8))
    >>> shortest_paths(graph)[(0, 4)], shortest_paths(graph, graph.base)[(0, 4)]  # hidden 0–4
    ([4], [1, 4])
    >>> len(shortest_paths(graph))  # connected: all 8·7 ordered pairs
    56
    """
    adj = graph.full if adjacency is None else adjacency
    out = {}
    for s in range(graph.n):
        parent = {s: None}
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v in np.flatnonzero(adj[u]):
                if int(v) not in parent:
                    parent[int(v)] = u
                    queue.append(int(v))
        for g in parent:
            if g != s:
                path, v = [], g
                while v != s:
                    path.append(v)
                    v = parent[v]
                out[(s, g)] = path[::-1]
    return out


def verify(graph: PathGraph, prompts: np.ndarray, paths: np.ndarray) -> np.ndarray:
    """Verifier: path (padded with −1) is accepted iff each step is a full-graph edge and its
    last node is the goal. prompts (B, 2), paths (B, L) -> (B,) bool.

    Parameters
    ----------
    graph : PathGraph
        The graph (its full edges).
    prompts : numpy.ndarray of int, (B, 2)
        (start, goal) per row.
    paths : numpy.ndarray of int, (B, L)
        The emitted nodes, padded with −1.

    Returns
    -------
    numpy.ndarray of bool, (B,)
        Whether each path is accepted.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.rlvr_transformer import ArmBConfig, make_graph, verify
    >>> graph = make_graph(ArmBConfig(n_nodes=8))
    >>> prompts = np.array([[0, 4], [0, 4], [0, 4], [0, 2]])
    >>> paths = np.array([[4, -1, -1], [1, 4, -1], [2, 4, -1], [1, 3, -1]])
    >>> verify(graph, prompts, paths).tolist()  # 0–2 is no edge; 3 is not the goal
    [True, True, False, False]
    """
    adj = graph.full
    ok = np.zeros(len(paths), bool)
    for row, ((s, g), path) in enumerate(zip(prompts, paths, strict=True)):
        nodes = [int(v) for v in path if v >= 0]
        if not nodes or nodes[-1] != g:
            continue
        ok[row] = all(adj[a, b] for a, b in zip([int(s), *nodes[:-1]], nodes, strict=True))
    return ok


def chance_success(graph: PathGraph, cfg: ArmBConfig) -> np.ndarray:
    """pass@1 of the uniform random policy (each emitted node uniform over N, stop at the goal),
    per ordered pair (N, N): Σ_{m=1}^{L} [(A_g/N)^{m−1} (A/N)]_{s,g}, A_g = A with column g zeroed
    (the path may not pass through g before its end).

    Parameters
    ----------
    graph : PathGraph
        The graph (A = its full adjacency).
    cfg : ArmBConfig
        Reads ``max_len`` (L).

    Returns
    -------
    numpy.ndarray of float, (N, N)
        The uniform policy's success probability per (start, goal), 0 on the diagonal.

    Examples
    --------
    >>> from neural.rlvr_transformer import ArmBConfig, chance_success, make_graph
    >>> cfg = ArmBConfig(n_nodes=8, max_len=1)
    >>> chance = chance_success(make_graph(cfg), cfg)
    >>> float(chance[0, 1]), float(chance[0, 2])  # one node: 1/N on an edge, else 0
    (0.125, 0.0)
    """
    a = graph.full.astype(float) / graph.n
    out = np.zeros((graph.n, graph.n))
    for g in range(graph.n):
        a_g = a.copy()
        a_g[:, g] = 0.0
        reach = np.eye(graph.n)
        for _ in range(cfg.max_len):
            out[:, g] += reach @ a[:, g]
            reach = reach @ a_g
    np.fill_diagonal(out, 0.0)
    return out


class PathTransformer(nn.Module):
    """Decoder-only transformer over tokens [s, g, SEP, v1, ..., v_L]; logits over the N nodes.

    Parameters
    ----------
    cfg : ArmBConfig
        Reads ``n_nodes`` (N; SEP is token N), ``max_len``, ``d_model``, ``n_heads`` and
        ``n_layers``.

    Examples
    --------
    >>> import torch
    >>> from neural.rlvr_transformer import ArmBConfig, PathTransformer
    >>> model = PathTransformer(ArmBConfig(n_nodes=8, max_len=3, d_model=8, n_layers=1))
    >>> tuple(model(torch.tensor([[0, 4, 8, 1]])).shape)  # s = 0, g = 4, SEP, v1 = 1
    (1, 4, 8)
    """

    def __init__(self, cfg: ArmBConfig) -> None:
        super().__init__()
        self.sep = cfg.n_nodes
        self.embed = nn.Embedding(cfg.n_nodes + 1, cfg.d_model)
        self.position = nn.Embedding(3 + cfg.max_len, cfg.d_model)
        layer = nn.TransformerEncoderLayer(
            cfg.d_model, cfg.n_heads, 2 * cfg.d_model, dropout=0.0, batch_first=True
        )
        self.blocks = nn.TransformerEncoder(layer, cfg.n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(cfg.d_model, cfg.n_nodes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, T) -> next-node logits (B, T, N)."""
        t = tokens.shape[1]
        h = self.embed(tokens) + self.position(torch.arange(t, device=tokens.device))  # (B, T, D)
        mask = nn.Transformer.generate_square_subsequent_mask(t, device=tokens.device)
        return self.head(self.blocks(h, mask=mask, is_causal=True))  # (B, T, N)


def _tokens(
    model: PathTransformer, prompts: torch.Tensor, paths: torch.Tensor, emitted: int | None = None
) -> torch.Tensor:
    """[s, g, SEP, v1, ..., v_{L−1}] with padding (−1) mapped to SEP: (B, 2 + L). With
    ``emitted = t``, only the 3 + t tokens up to v_t: the model is causal, so the logits at
    position 2 + t (which predict v_{t+1}) depend on no later token."""
    sep = torch.full((len(prompts), 1), model.sep, device=prompts.device)
    body = paths[:, :-1] if emitted is None else paths[:, :emitted]
    body = torch.where(body >= 0, body, model.sep)
    return torch.cat([prompts, sep, body], dim=1)


def _token_log_probs(
    model: PathTransformer, prompts: torch.Tensor, paths: torch.Tensor
) -> torch.Tensor:
    """log π(v_t | s, g, v_<t) of each emitted node, 0 at padding: (B, L)."""
    logits = model(_tokens(model, prompts, paths))[:, 2:]  # (B, L, N): predicts v1..vL
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp.gather(2, paths.clamp(min=0).unsqueeze(2)).squeeze(2)  # (B, L)
    return picked * (paths >= 0)


def _path_log_probs(
    model: PathTransformer, prompts: torch.Tensor, paths: torch.Tensor
) -> torch.Tensor:
    """Σ_t log π(v_t | s, g, v_<t) over the non-padding steps: (B,)."""
    return _token_log_probs(model, prompts, paths).sum(dim=1)


def path_kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Per-path KL(π ‖ π_ref) estimate from the path's own tokens (sampled from π): the mean over
    its emitted nodes of the "k3" estimator e^r − r − 1 ≥ 0, r = log π_ref(v_t) − log π(v_t),
    unbiased for the per-token KL; the penalty of GRPO in DeepSeekMath (Shao et al. 2024).
    logp, ref_logp (B, L), valid (B, L) bool -> (B,).

    Parameters
    ----------
    logp : torch.Tensor, (B, L)
        log π(v_t) of each emitted node under the trained model.
    ref_logp : torch.Tensor, (B, L)
        log π_ref(v_t) under the reference.
    valid : torch.Tensor of bool, (B, L)
        Which steps were emitted (not padding).

    Returns
    -------
    torch.Tensor, (B,)
        The mean k3 over each path's emitted nodes.

    Examples
    --------
    >>> import torch
    >>> from neural.rlvr_transformer import path_kl_k3
    >>> logp = torch.log(torch.tensor([[0.5, 0.25]]))
    >>> ref = torch.log(torch.tensor([[0.25, 0.25]]))
    >>> valid = torch.tensor([[True, False]])
    >>> round(float(path_kl_k3(logp, ref, valid)[0]), 4)  # r = −ln 2: 1/2 + ln 2 − 1
    0.1931
    >>> float(path_kl_k3(logp, logp, valid)[0])
    0.0
    """
    r = torch.where(valid, ref_logp - logp, torch.zeros_like(logp))
    per_token = torch.exp(r) - r - 1  # 0 at padding (r = 0)
    return per_token.sum(dim=1) / valid.sum(dim=1).clamp(min=1)


def supervised_train(
    model: PathTransformer,
    prompts: np.ndarray,
    paths: np.ndarray,
    steps: int,
    cfg: ArmBConfig,
    rng: np.random.Generator,
    *,
    device: str = "cpu",
) -> list[float]:
    """Adam on the mean next-node cross-entropy of minibatches drawn from (prompts, paths);
    returns the loss per step.

    Parameters
    ----------
    model : PathTransformer
        The model, trained in place.
    prompts : numpy.ndarray of int64, (M, 2)
        (start, goal) per example.
    paths : numpy.ndarray of int64, (M, max_len)
        The target paths, padded with −1.
    steps : int
        Adam steps.
    cfg : ArmBConfig
        Reads ``batch`` and ``lr``.
    rng : numpy.random.Generator
        The source of the minibatch indices (drawn with replacement).
    device : str, optional
        The torch device ``model`` lives on (default ``"cpu"``); the minibatches are drawn on
        the CPU and moved there.

    Returns
    -------
    list of float
        The loss (nats per emitted node) at each step.

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from neural.rlvr_transformer import (
    ...     ArmBConfig, PathTransformer, make_graph, supervised_train, walk_corpus
    ... )
    >>> cfg = ArmBConfig(n_nodes=8, max_len=3, d_model=8, n_layers=1, n_heads=2, batch=8,
    ...                  rl_steps=2, rl_prompts=4, group=4)
    >>> graph = make_graph(cfg)
    >>> _ = torch.manual_seed(0)
    >>> model = PathTransformer(cfg)  # untrained
    >>> prompts, paths = walk_corpus(graph, cfg, 16, np.random.default_rng(0))
    >>> losses = supervised_train(model, prompts, paths, 3, cfg, np.random.default_rng(1))
    >>> len(losses), all(0 < loss < 5 for loss in losses)  # near ln 8 = 2.08 at the start
    (3, True)
    """
    torch.set_num_threads(1)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, foreach=True)
    losses = []
    for _ in range(steps):
        idx = rng.integers(len(prompts), size=cfg.batch)
        p, y = torch.as_tensor(prompts[idx]).to(device), torch.as_tensor(paths[idx]).to(device)
        loss = -_path_log_probs(model, p, y).sum() / (y >= 0).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    return losses


@torch.no_grad()
def sample_paths(
    model: PathTransformer,
    prompts: np.ndarray,
    copies: int,
    cfg: ArmBConfig,
    rng: np.random.Generator,
    *,
    adjacency: np.ndarray | None = None,
    device: str = "cpu",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw ``copies`` independent paths per prompt row at temperature 1 (no top-p): nodes until
    the goal is emitted or ``max_len`` nodes. Returned grouped: the distinct (row, path) pairs
    drawn and how many copies took each, ``(rows (M,), paths (M, L) padded with −1, mult (M,))``;
    mult sums to ``copies`` per row.

    Drawn prefix by prefix: the c copies that share an open prefix send
    Multinomial(c, π(· | s, g, prefix)) of themselves to each next node, which is the law of c
    independent next-node draws; so the model runs once per distinct prefix, not once per copy.
    With ``adjacency``, a copy is dropped as soon as it steps off an edge (it can no longer
    verify), and mult sums to at most ``copies``: the missing copies failed.

    Parameters
    ----------
    model : PathTransformer
        The policy.
    prompts : numpy.ndarray of int, (P, 2)
        (start, goal) per row.
    copies : int
        Independent paths per row.
    cfg : ArmBConfig
        Reads ``max_len``.
    rng : numpy.random.Generator
        The source of the multinomial draws.
    adjacency : numpy.ndarray of bool, (N, N), optional
        Drop the copies that step off these edges (default None: keep every copy).
    device : str, optional
        The torch device ``model`` lives on (default ``"cpu"``). The next-node probabilities are
        read back to the CPU and the draws are ``rng``'s on any device.

    Returns
    -------
    tuple of numpy.ndarray of int64
        rows (M,), paths (M, max_len) padded with −1 and mult (M,).

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from neural.rlvr_transformer import ArmBConfig, PathTransformer, make_graph, sample_paths
    >>> cfg = ArmBConfig(n_nodes=8, max_len=3, d_model=8, n_layers=1, n_heads=2, batch=8,
    ...                  rl_steps=2, rl_prompts=4, group=4)
    >>> graph = make_graph(cfg)
    >>> _ = torch.manual_seed(0)
    >>> model = PathTransformer(cfg)  # untrained
    >>> prompts = np.array([[0, 1], [2, 6]])
    >>> rows, paths, mult = sample_paths(model, prompts, 16, cfg, np.random.default_rng(2))
    >>> np.bincount(rows, weights=mult).tolist(), paths.shape[1]  # 16 copies per row
    ([16.0, 16.0], 3)
    >>> kept = sample_paths(model, prompts, 16, cfg, np.random.default_rng(2),
    ...                     adjacency=graph.full)
    >>> int(kept[2].sum()) <= 32
    True
    """
    torch.set_num_threads(1)
    prompts = np.asarray(prompts, np.int64)
    rows = np.arange(len(prompts))
    mult = np.full(len(prompts), copies, np.int64)
    prefix = np.full((len(prompts), cfg.max_len), -1, np.int64)
    out_rows, out_paths, out_mult = [rows[:0]], [prefix[:0]], [mult[:0]]
    for t in range(cfg.max_len):
        if rows.size == 0:
            break
        tokens = _tokens(
            model, torch.as_tensor(prompts[rows]).to(device), torch.as_tensor(prefix).to(device), t
        )
        # (B, N), read back to the CPU: the draws are numpy's, from the same stream on any device
        probs = torch.softmax(model(tokens)[:, 2 + t].double(), dim=-1).cpu().numpy()
        draws = rng.multinomial(mult, probs)  # (B, N) copies sent to each next node
        src, nodes = np.nonzero(draws)
        if adjacency is not None:
            last = prompts[rows[src], 0] if t == 0 else prefix[src, t - 1]
            on = adjacency[last, nodes]
            src, nodes = src[on], nodes[on]
        rows, mult, prefix = rows[src], draws[src, nodes], prefix[src].copy()
        prefix[:, t] = nodes
        ended = (nodes == prompts[rows, 1]) | (t == cfg.max_len - 1)
        out_rows.append(rows[ended])
        out_paths.append(prefix[ended])
        out_mult.append(mult[ended])
        rows, mult, prefix = rows[~ended], mult[~ended], prefix[~ended]
    return np.concatenate(out_rows), np.concatenate(out_paths), np.concatenate(out_mult)


def grpo_loss(
    model: PathTransformer,
    graph: PathGraph,
    prompts: np.ndarray,
    sample: tuple[np.ndarray, np.ndarray, np.ndarray],
    *,
    reference: PathTransformer | None = None,
    kl: float = 0.0,
    device: str = "cpu",
) -> tuple[torch.Tensor, float]:
    """GRPO's loss on ``sample`` = ``sample_paths(model, prompts, G, ...)`` (G copies per prompt,
    grouped), and the mean reward: verifier reward r, advantage A = (r − mean)/std within each
    prompt's group (0 for uniform groups), and

        −mean_ij(A_ij · log π(path_ij)) + kl · mean_ij KL̂(path_ij)

    over the P·G copies, with KL̂ the per-path k3 estimate (``path_kl_k3``) against
    ``reference``. Copies of one path in one group share reward, advantage and log π, so the
    mean is taken over the distinct paths, each weighted by its copies.

    Parameters
    ----------
    model : PathTransformer
        The policy being trained (the loss carries its gradient).
    graph : PathGraph
        The graph of the verifier.
    prompts : numpy.ndarray of int, (P, 2)
        The prompts sampled.
    sample : tuple of numpy.ndarray
        ``sample_paths(model, prompts, G, ...)`` without ``adjacency`` (G copies per prompt).
    reference : PathTransformer, optional
        The frozen model of the KL penalty (default None: no penalty).
    kl : float, optional
        The KL coefficient (default 0.0).
    device : str, optional
        The torch device ``model`` and ``reference`` live on (default ``"cpu"``).

    Returns
    -------
    tuple
        The scalar loss (a tensor) and the mean reward (float, the share of verified copies).

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from neural.rlvr_transformer import (
    ...     ArmBConfig, PathTransformer, grpo_loss, make_graph, sample_paths
    ... )
    >>> cfg = ArmBConfig(n_nodes=8, max_len=3, d_model=8, n_layers=1, n_heads=2, batch=8,
    ...                  rl_steps=2, rl_prompts=4, group=4)
    >>> graph = make_graph(cfg)
    >>> _ = torch.manual_seed(0)
    >>> model = PathTransformer(cfg)  # untrained
    >>> prompts = np.array([[0, 1], [2, 6]])
    >>> sample = sample_paths(model, prompts, 4, cfg, np.random.default_rng(2))
    >>> loss, reward = grpo_loss(model, graph, prompts, sample)
    >>> tuple(loss.shape), 0.0 <= reward <= 1.0, loss.requires_grad
    ((), True, True)
    """
    rows, paths, mult = sample
    group = int(mult.sum()) // len(prompts)
    ok = verify(graph, prompts[rows], paths).astype(np.float64)
    by_group = np.argsort(rows, kind="stable")
    r = np.repeat(ok[by_group], mult[by_group]).reshape(len(prompts), group)  # (P, G) rewards
    adv = np.empty(len(rows))
    adv[by_group] = group_advantages(r).ravel()[np.cumsum(mult[by_group]) - mult[by_group]]
    weight = torch.as_tensor(mult / mult.sum()).to(device)
    p, y = torch.as_tensor(prompts[rows]).to(device), torch.as_tensor(paths).to(device)
    token_logp = _token_log_probs(model, p, y)  # (M, L)
    loss = -(weight * torch.as_tensor(adv).to(device) * token_logp.sum(dim=1)).sum()
    if reference is not None:
        with torch.no_grad():
            ref_logp = _token_log_probs(reference, p, y)
        loss = loss + kl * (weight * path_kl_k3(token_logp, ref_logp, y >= 0)).sum()
    return loss, float(r.mean())


def grpo_train(
    model: PathTransformer,
    graph: PathGraph,
    prompts: np.ndarray,
    cfg: ArmBConfig,
    rng: np.random.Generator,
    *,
    kl: float = 0.0,
    device: str = "cpu",
) -> list[float]:
    """GRPO (``grpo_loss``): per step ``rl_prompts`` prompts drawn from ``prompts`` × ``group``
    samples each, one Adam step; ``kl`` > 0 adds the penalty against the starting model, frozen
    (kl = 0, the paper's main runs, skips the reference). Returns the mean reward per step.

    Parameters
    ----------
    model : PathTransformer
        The policy, trained in place.
    graph : PathGraph
        The graph of the verifier.
    prompts : numpy.ndarray of int, (P, 2)
        The training prompts.
    cfg : ArmBConfig
        Reads ``rl_steps``, ``rl_prompts``, ``group`` and ``rl_lr``.
    rng : numpy.random.Generator
        The source of the prompts and the samples.
    kl : float, optional
        The KL coefficient against the starting model (default 0.0).
    device : str, optional
        The torch device ``model`` lives on (default ``"cpu"``); the prompts and the samples are
        drawn by ``rng`` on the CPU (:func:`sample_paths`).

    Returns
    -------
    list of float
        The mean reward at each step.

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from neural.rlvr_transformer import ArmBConfig, PathTransformer, grpo_train, make_graph
    >>> cfg = ArmBConfig(n_nodes=8, max_len=3, d_model=8, n_layers=1, n_heads=2, batch=8,
    ...                  rl_steps=2, rl_prompts=4, group=4)
    >>> graph = make_graph(cfg)
    >>> _ = torch.manual_seed(0)
    >>> model = PathTransformer(cfg)  # untrained
    >>> prompts = np.array([[0, 1], [2, 6]])
    >>> rewards = grpo_train(model, graph, prompts, cfg, np.random.default_rng(3), kl=0.1)
    >>> len(rewards), all(0.0 <= r <= 1.0 for r in rewards)  # rl_steps = 2
    (2, True)
    """
    torch.set_num_threads(1)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.rl_lr, foreach=True)
    reference = copy.deepcopy(model).requires_grad_(False) if kl > 0 else None
    rewards_log = []
    for _ in range(cfg.rl_steps):
        chosen = prompts[rng.choice(len(prompts), cfg.rl_prompts)]
        sample = sample_paths(model, chosen, cfg.group, cfg, rng, device=device)
        loss, reward = grpo_loss(
            model, graph, chosen, sample, reference=reference, kl=kl, device=device
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        rewards_log.append(reward)
    return rewards_log


@torch.no_grad()
def exact_success_probs(
    model: PathTransformer,
    graph: PathGraph,
    prompts: np.ndarray,
    cfg: ArmBConfig,
    *,
    device: str = "cpu",
) -> np.ndarray:
    """Exact pass@1 of ``sample_paths`` per prompt (exact, by enumeration, because the output
    space is small): the verifier accepts only paths along
    full-graph edges that stop at the goal, so

        p(s, g) = Σ_{paths s→v1→…→vm = g, m ≤ L, every step an edge, g first reached at m}
                  Π_t π(v_t | s, g, v_<t),

    summed by expanding prefixes along edges only (≈ deg^L per prompt instead of N^L).
    prompts (P, 2) -> (P,).

    Parameters
    ----------
    model : PathTransformer
        The policy.
    graph : PathGraph
        The graph of the verifier.
    prompts : numpy.ndarray of int, (P, 2)
        (start, goal) per row.
    cfg : ArmBConfig
        Reads ``max_len``.
    device : str, optional
        The torch device ``model`` lives on (default ``"cpu"``); the probabilities are read
        back to the CPU.

    Returns
    -------
    numpy.ndarray of float, (P,)
        p(s, g) per prompt.

    Examples
    --------
    The exact pass@1 against the share of verified samples of 4,000:

    >>> import numpy as np
    >>> import torch
    >>> from neural.rlvr_transformer import (
    ...     ArmBConfig, PathTransformer, exact_success_probs, make_graph, sample_paths, verify
    ... )
    >>> cfg = ArmBConfig(n_nodes=8, max_len=3, d_model=8, n_layers=1, n_heads=2, batch=8,
    ...                  rl_steps=2, rl_prompts=4, group=4)
    >>> graph = make_graph(cfg)
    >>> _ = torch.manual_seed(0)
    >>> model = PathTransformer(cfg)  # untrained
    >>> prompts = np.array([[0, 1]])
    >>> p = exact_success_probs(model, graph, prompts, cfg)
    >>> rows, paths, mult = sample_paths(model, prompts, 4000, cfg, np.random.default_rng(0))
    >>> share = mult[verify(graph, prompts[rows], paths)].sum() / 4000
    >>> p.shape, bool(abs(p[0] - share) < 4 * np.sqrt(p[0] * (1 - p[0]) / 4000))
    ((1,), True)
    """
    torch.set_num_threads(1)
    p = np.zeros(len(prompts))
    adj = graph.full
    owner = np.arange(len(prompts))  # prompt of each open prefix
    prefix = np.full((len(prompts), cfg.max_len), -1, np.int64)  # open prefixes, padded
    mass = np.ones(len(prompts))  # probability of each open prefix
    for t in range(cfg.max_len):
        if owner.size == 0:
            break
        pr = prompts[owner]
        tokens = _tokens(
            model, torch.as_tensor(pr).to(device), torch.as_tensor(prefix).to(device), emitted=t
        )
        logits = model(tokens)[:, 2 + t]
        probs = torch.softmax(logits, dim=-1).double().cpu().numpy()  # (B, N)
        last = pr[:, 0] if t == 0 else prefix[:, t - 1]
        rows, nodes = np.nonzero(adj[last])  # every edge step out of each prefix
        step = mass[rows] * probs[rows, nodes]
        done = nodes == pr[rows, 1]
        np.add.at(p, owner[rows[done]], step[done])
        keep = ~done
        owner, mass = owner[rows[keep]], step[keep]
        prefix = prefix[rows[keep]].copy()
        prefix[:, t] = nodes[keep]
    return p


def _eval_counts(
    model: PathTransformer,
    graph: PathGraph,
    prompts: np.ndarray,
    cfg: ArmBConfig,
    rng: np.random.Generator,
    *,
    device: str = "cpu",
) -> np.ndarray:
    """Verified samples out of ``n_eval`` per prompt, (P,), the model on ``device``."""
    rows, paths, mult = sample_paths(
        model, prompts, cfg.n_eval, cfg, rng, adjacency=graph.full, device=device
    )
    ok = verify(graph, prompts[rows], paths)
    return np.bincount(rows[ok], weights=mult[ok], minlength=len(prompts)).astype(np.int64)


def arm_b_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: one seed of Arm B. ``params`` overrides ``ArmBConfig`` fields; ``gate_margin``
    (default 0.10) sets the ``base_learned`` gate, None disables it (smoke runs). Splits the ordered pairs in half (train / test
    prompts) and trains the base on ``base_steps`` × ``batch`` corpus walks. Only if the base
    passes the gate on the test prompts: GRPO (from the base, on train prompts) and distillation
    (from the base, on the teacher's BFS paths for train prompts), then the KL ablation
    ``rl_kl`` (GRPO from the base with a KL penalty ``kl_ablation`` to it; trained last so that
    the other arms' random streams do not move). Returns per-test-prompt correct
    counts out of ``n_eval`` per trained arm, the exact success probabilities ``p`` of each arm
    (``exact_success_probs``; no randomness, so the counts are as without them), ``rl_run`` (whether the gate opened), each test
    prompt's chance pass@1 (``chance_success``), and the base's loss and GRPO's mean reward,
    thinned to ≤ 50 points.

    Parameters
    ----------
    params : dict
        :class:`ArmBConfig` fields, ``gate_margin`` and ``device``, the torch device that trains
        and evaluates the models (popped; default ``"cpu"``): the models are initialised on the
        CPU and moved there, and every draw (split, corpus, minibatches, GRPO's rollouts,
        evaluation samples) comes from ``rng``'s streams on the CPU, so a run on another device
        differs from the CPU's only through its floating-point roundings (and a sampled node
        that a rounding of its probabilities flips). Other keys are ignored.
    rng : numpy.random.Generator
        The run's randomness (torch's seed, the split, the corpus, training and evaluation).

    Returns
    -------
    dict
        ``n`` (``n_eval``), ``test`` (T, 2), ``chance_pass1`` (T,), ``needs_hidden`` (T bools:
        no base-only path of at most ``max_len`` nodes), ``counts`` and ``p`` (arm → (T,)),
        ``base_loss`` and ``rl_run``; with the gate open also ``rl_reward``, and the arms
        ``rl``, ``distill`` and ``rl_kl`` besides ``base``.

    Examples
    --------
    A smoke run (two steps per stage, no gate):

    >>> import numpy as np
    >>> from neural.rlvr_transformer import arm_b_task
    >>> params = {"n_nodes": 8, "max_len": 3, "d_model": 8, "n_layers": 1, "n_heads": 2,
    ...           "base_steps": 2, "distill_steps": 2, "rl_steps": 2, "batch": 8,
    ...           "rl_prompts": 4, "group": 4, "n_eval": 8, "gate_margin": None}
    >>> out = arm_b_task(params, np.random.default_rng(0))
    >>> out["rl_run"], sorted(out["counts"]), out["test"].shape  # half of the 56 pairs
    (True, ['base', 'distill', 'rl', 'rl_kl'], (28, 2))
    >>> all(((c >= 0) & (c <= 8)).all() for c in out["counts"].values())
    True
    """
    torch.set_num_threads(1)
    device = params.pop("device", "cpu")
    cfg = ArmBConfig(**{k: v for k, v in params.items() if k in ArmBConfig.__dataclass_fields__})
    torch.manual_seed(int(rng.integers(2**31)))
    eval_rng = np.random.default_rng(int(rng.integers(2**63)))  # n_eval leaves training alone
    graph = make_graph(cfg)
    pairs = np.array([(s, g) for s in range(graph.n) for g in range(graph.n) if s != g])
    order = rng.permutation(len(pairs))
    train, test = pairs[order[: len(pairs) // 2]], pairs[order[len(pairs) // 2 :]]
    chance = chance_success(graph, cfg)[test[:, 0], test[:, 1]]
    base_only = shortest_paths(graph, graph.base)
    out: dict[str, Any] = {
        "n": cfg.n_eval,
        "test": test,
        "chance_pass1": chance,
        "needs_hidden": [
            len(base_only.get((int(s), int(g)), range(99))) > cfg.max_len for s, g in test
        ],
    }

    corpus = walk_corpus(graph, cfg, cfg.base_steps * cfg.batch // 4, rng)
    base = PathTransformer(cfg).to(device)  # initialised on the CPU, from torch's seed
    losses = supervised_train(base, *corpus, cfg.base_steps, cfg, rng, device=device)
    base_state = {k: v.clone() for k, v in base.state_dict().items()}
    counts = {"base": _eval_counts(base, graph, test, cfg, eval_rng, device=device)}
    exact = {"base": exact_success_probs(base, graph, test, cfg, device=device)}
    out |= {"counts": counts, "p": exact, "base_loss": losses[:: max(1, len(losses) // 50)]}
    margin = params.get("gate_margin", 0.10)
    base_pass1 = float(counts["base"].mean() / cfg.n_eval)
    out["rl_run"] = margin is None or base_learned(base_pass1, float(chance.mean()), margin)
    if not out["rl_run"]:
        return out

    rl = PathTransformer(cfg).to(device)
    rl.load_state_dict(base_state)
    rewards = grpo_train(rl, graph, train, cfg, rng, device=device)
    counts["rl"] = _eval_counts(rl, graph, test, cfg, eval_rng, device=device)
    exact["rl"] = exact_success_probs(rl, graph, test, cfg, device=device)
    out["rl_reward"] = rewards[:: max(1, len(rewards) // 50)]

    teacher = shortest_paths(graph)
    reachable = [
        (tuple(p), teacher[tuple(p)])
        for p in train.tolist()
        if len(teacher[tuple(p)]) <= cfg.max_len
    ]
    t_prompts = np.array([p for p, _ in reachable])
    t_paths = np.full((len(reachable), cfg.max_len), -1, np.int64)
    for row, (_, path) in enumerate(reachable):
        t_paths[row, : len(path)] = path
    student = PathTransformer(cfg).to(device)
    student.load_state_dict(base_state)
    supervised_train(student, t_prompts, t_paths, cfg.distill_steps, cfg, rng, device=device)
    counts["distill"] = _eval_counts(student, graph, test, cfg, eval_rng, device=device)
    exact["distill"] = exact_success_probs(student, graph, test, cfg, device=device)

    rl_kl = PathTransformer(cfg).to(device)
    rl_kl.load_state_dict(base_state)
    grpo_train(rl_kl, graph, train, cfg, rng, kl=cfg.kl_ablation, device=device)
    counts["rl_kl"] = _eval_counts(rl_kl, graph, test, cfg, eval_rng, device=device)
    exact["rl_kl"] = exact_success_probs(rl_kl, graph, test, cfg, device=device)
    return out
