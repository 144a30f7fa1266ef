"""Arm B of the RLVR reproduction (:mod:`neural.rlvr_transformer`) for K seeds at once: every
stage (the base's supervised training, GRPO, distillation, the sampled and the exact evaluation)
runs the K seeds' transformers as one batched model (:class:`neural.batched.SeedStack`), on a
chosen torch device.

:func:`arm_b_batched` is :func:`neural.rlvr_transformer.arm_b_task` for K generators in one
call. Seed k draws torch's seed (its initial weights), its split, its corpus, its minibatches,
GRPO's prompts and rollouts and its evaluation samples from its own generator, in the order the
one-seed task does, and has its own Adam moments (Adam acts elementwise on the stacked tensors,
and the loss is Σ_k L_k, so ∂/∂θ_k is ∂L_k/∂θ_k). What differs from K one-seed runs is the
floating-point reduction order of the batched kernels; a sampled node changes only when one of
its multinomial's uniforms falls within that rounding of a boundary
(tests/neural/test_rlvr_batched.py measures both).

Each step the seeds' inputs differ in length (prompts with open prefixes, distinct sampled
paths): seed k's rows are padded to the longest seed's with SEP tokens, whose outputs nothing
reads (each row's logits depend on its own tokens only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from neural import rlvr_transformer as nb
from neural.batched import SeedStack
from sims.rlvr_toy import base_learned

__all__ = ["arm_b_batched"]


class _Logits:
    """Stands in for seed k's :class:`~neural.rlvr_transformer.PathTransformer` where a one-seed
    function runs the model once: it answers that call with the logits the batched model
    computed for the same tokens (checked), so the function's own arithmetic is reused."""

    def __init__(self, sep: int, tokens: torch.Tensor | None, logits: torch.Tensor | None):
        self.sep, self.tokens, self.logits = sep, tokens, logits

    def __call__(self, tokens: torch.Tensor) -> torch.Tensor:
        if not torch.equal(tokens, self.tokens):
            raise RuntimeError("the batched logits were computed for other tokens")
        return self.logits


#: Tokens of all seeds that one batched call of the model takes at most: larger batches (the
#: evaluations' thousands of prefixes) run in chunks of rows, whose intermediates stay small
#: (unchunked, each is a fresh page-faulted allocation, and the system time outgrows the
#: arithmetic). Each row's logits depend on its own tokens only: the chunks change no number.
_CHUNK_TOKENS = 2**15


def _forward(stack: SeedStack, tokens: Sequence[torch.Tensor], sep: int) -> torch.Tensor:
    """Seed k's logits on ``tokens[k]`` (B_k, T) for every k, padded with SEP rows to the
    longest: (K, max_k B_k, T, N), in chunks of rows (``_CHUNK_TOKENS``). The attention runs
    on the math kernel (the fused CPU kernel has no vmap rule and loops over the seeds)."""
    rows, width = max(len(t) for t in tokens), tokens[0].shape[1]
    padded = torch.stack([torch.cat([t, t.new_full((rows - len(t), width), sep)]) for t in tokens])
    chunk = max(1, _CHUNK_TOKENS // (len(tokens) * width))
    with sdpa_kernel(SDPBackend.MATH):
        parts = [stack(padded[:, i : i + chunk]) for i in range(0, max(rows, 1), chunk)]
    return parts[0] if len(parts) == 1 else torch.cat(parts, dim=1)


def _next_logits(
    stack: SeedStack,
    prompts: Sequence[np.ndarray],
    prefixes: Sequence[np.ndarray],
    t: int,
    sep: int,
    device: str | torch.device,
) -> torch.Tensor:
    """The logits predicting v_{t+1} after each seed's open prefixes (prompts (B_k, 2), prefixes
    (B_k, L) padded with −1), as the one-seed sampler feeds its model: (K, max_k B_k, N)."""
    holder = _Logits(sep, None, None)
    tokens = [
        nb._tokens(holder, torch.as_tensor(p).to(device), torch.as_tensor(x).to(device), t)
        for p, x in zip(prompts, prefixes, strict=True)
    ]
    return _forward(stack, tokens, sep)[:, :, 2 + t]


def _supervised_train_batched(
    stack: SeedStack,
    data: Sequence[tuple[np.ndarray, np.ndarray]],
    steps: int,
    cfg: nb.ArmBConfig,
    rngs: Sequence[np.random.Generator],
    device: str | torch.device,
) -> list[list[float]]:
    """:func:`~neural.rlvr_transformer.supervised_train` of each seed k on its (prompts, paths)
    ``data[k]``, minibatches from ``rngs[k]``: Adam on Σ_k L_k, L_k = −Σ log π(v_t) / (emitted
    nodes) of seed k's minibatch. Returns each seed's losses."""
    opt = torch.optim.Adam(stack.parameters(), lr=cfg.lr, foreach=True)
    sep, losses = cfg.n_nodes, []
    for _ in range(steps):
        picks = [
            rng.integers(len(p), size=cfg.batch) for (p, _), rng in zip(data, rngs, strict=True)
        ]
        p = torch.as_tensor(np.stack([d[0][i] for d, i in zip(data, picks, strict=True)])).to(
            device
        )
        y = torch.as_tensor(np.stack([d[1][i] for d, i in zip(data, picks, strict=True)])).to(
            device
        )
        body = y[:, :, :-1]
        tokens = torch.cat(
            [p, torch.full_like(p[:, :, :1], sep), torch.where(body >= 0, body, sep)], 2
        )
        with sdpa_kernel(SDPBackend.MATH):
            logits = stack(tokens)[:, :, 2:]  # (K, B, L, N): predicts v1..vL
        logp = torch.log_softmax(logits, dim=-1).gather(3, y.clamp(min=0).unsqueeze(3)).squeeze(3)
        valid = y >= 0
        per_seed = -(logp * valid).sum(dim=(1, 2)) / valid.sum(dim=(1, 2))  # (K,)
        opt.zero_grad()
        per_seed.sum().backward()
        opt.step()
        losses.append(per_seed.detach())
    return torch.stack(losses).T.cpu().tolist() if losses else [[] for _ in data]


@torch.no_grad()
def _sample_paths_batched(
    stack: SeedStack,
    prompts: Sequence[np.ndarray],
    copies: int,
    cfg: nb.ArmBConfig,
    rngs: Sequence[np.random.Generator],
    *,
    adjacency: np.ndarray | None = None,
    device: str | torch.device = "cpu",
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`~neural.rlvr_transformer.sample_paths` of each seed k on ``prompts[k]`` with
    ``rngs[k]``'s draws, the K models run as one per prefix step: K (rows, paths, mult)."""
    prompts = [np.asarray(p, np.int64) for p in prompts]
    rows = [np.arange(len(p)) for p in prompts]
    mult = [np.full(len(p), copies, np.int64) for p in prompts]
    prefix = [np.full((len(p), cfg.max_len), -1, np.int64) for p in prompts]
    out = [([r[:0]], [x[:0]], [m[:0]]) for r, x, m in zip(rows, prefix, mult, strict=True)]
    for t in range(cfg.max_len):
        live = [k for k in range(len(prompts)) if rows[k].size]  # the one-seed loop stops at 0
        if not live:
            break
        logits = _next_logits(
            stack,
            [p[r] for p, r in zip(prompts, rows, strict=True)],
            prefix,
            t,
            cfg.n_nodes,
            device,
        )
        probs = torch.softmax(logits.double(), dim=-1).cpu().numpy()  # (K, B, N)
        for k in live:
            draws = rngs[k].multinomial(mult[k], probs[k, : len(rows[k])])
            src, nodes = np.nonzero(draws)
            if adjacency is not None:
                last = prompts[k][rows[k][src], 0] if t == 0 else prefix[k][src, t - 1]
                on = adjacency[last, nodes]
                src, nodes = src[on], nodes[on]
            rows[k], mult[k], prefix[k] = rows[k][src], draws[src, nodes], prefix[k][src].copy()
            prefix[k][:, t] = nodes
            ended = (nodes == prompts[k][rows[k], 1]) | (t == cfg.max_len - 1)
            for part, value in zip(out[k], (rows[k], prefix[k], mult[k]), strict=True):
                part.append(value[ended])
            rows[k], mult[k], prefix[k] = rows[k][~ended], mult[k][~ended], prefix[k][~ended]
    return [tuple(np.concatenate(part) for part in seed) for seed in out]


@torch.no_grad()
def _exact_success_probs_batched(
    stack: SeedStack,
    graph: nb.PathGraph,
    prompts: Sequence[np.ndarray],
    cfg: nb.ArmBConfig,
    device: str | torch.device,
) -> list[np.ndarray]:
    """:func:`~neural.rlvr_transformer.exact_success_probs` of each seed k on ``prompts[k]``,
    the K models run as one per prefix step: K arrays (P_k,)."""
    adj = graph.full
    p = [np.zeros(len(x)) for x in prompts]
    owner = [np.arange(len(x)) for x in prompts]  # prompt of each open prefix
    prefix = [np.full((len(x), cfg.max_len), -1, np.int64) for x in prompts]
    mass = [np.ones(len(x)) for x in prompts]  # probability of each open prefix
    for t in range(cfg.max_len):
        live = [k for k in range(len(prompts)) if owner[k].size]
        if not live:
            break
        pr = [x[o] for x, o in zip(prompts, owner, strict=True)]
        logits = _next_logits(stack, pr, prefix, t, cfg.n_nodes, device)
        probs = torch.softmax(logits, dim=-1).double().cpu().numpy()  # (K, B, N)
        for k in live:
            last = pr[k][:, 0] if t == 0 else prefix[k][:, t - 1]
            rows, nodes = np.nonzero(adj[last])  # every edge step out of each prefix
            step = mass[k][rows] * probs[k, rows, nodes]
            done = nodes == pr[k][rows, 1]
            np.add.at(p[k], owner[k][rows[done]], step[done])
            keep = ~done
            owner[k], mass[k] = owner[k][rows[keep]], step[keep]
            prefix[k] = prefix[k][rows[keep]].copy()
            prefix[k][:, t] = nodes[keep]
    return p


def _grpo_train_batched(
    stack: SeedStack,
    graph: nb.PathGraph,
    prompts: Sequence[np.ndarray],
    cfg: nb.ArmBConfig,
    rngs: Sequence[np.random.Generator],
    *,
    reference: SeedStack | None = None,
    kl: float = 0.0,
    device: str | torch.device = "cpu",
) -> list[list[float]]:
    """:func:`~neural.rlvr_transformer.grpo_train` of each seed k on ``prompts[k]`` with
    ``rngs[k]``'s draws; ``reference`` holds the frozen starting models of the KL penalty
    (``kl`` > 0). Each step samples every seed's groups (:func:`_sample_paths_batched`), runs
    the K models once on every seed's distinct paths, and gives seed k's logits to
    :func:`~neural.rlvr_transformer.grpo_loss` (rewards, advantages, loss and penalty as one
    seed computes them); Adam steps on the sum of the K losses. Returns each seed's rewards."""
    opt = torch.optim.Adam(stack.parameters(), lr=cfg.rl_lr, foreach=True)
    sep, rewards = cfg.n_nodes, [[] for _ in prompts]
    holder = _Logits(sep, None, None)
    for _ in range(cfg.rl_steps):
        chosen = [
            x[rng.choice(len(x), cfg.rl_prompts)] for x, rng in zip(prompts, rngs, strict=True)
        ]
        samples = _sample_paths_batched(stack, chosen, cfg.group, cfg, rngs, device=device)
        tokens = [
            nb._tokens(holder, torch.as_tensor(c[r]).to(device), torch.as_tensor(y).to(device))
            for c, (r, y, _) in zip(chosen, samples, strict=True)
        ]
        logits = _forward(stack, tokens, sep)
        if reference is not None:
            with torch.no_grad():
                ref_logits = _forward(reference, tokens, sep)
        total = 0.0
        for k, (c, sample, tok) in enumerate(zip(chosen, samples, tokens, strict=True)):
            ref = None if reference is None else _Logits(sep, tok, ref_logits[k, : len(tok)])
            loss, reward = nb.grpo_loss(
                _Logits(sep, tok, logits[k, : len(tok)]),
                graph,
                c,
                sample,
                reference=ref,
                kl=kl,
                device=device,
            )
            total = total + loss
            rewards[k].append(reward)
        opt.zero_grad()
        total.backward()
        opt.step()
    return rewards


def _eval_counts_batched(
    stack: SeedStack,
    graph: nb.PathGraph,
    prompts: Sequence[np.ndarray],
    cfg: nb.ArmBConfig,
    rngs: Sequence[np.random.Generator],
    device: str | torch.device,
) -> list[np.ndarray]:
    """Verified samples out of ``n_eval`` per prompt of each seed (the one-seed
    ``_eval_counts``), copies off the graph's edges dropped."""
    out = []
    samples = _sample_paths_batched(
        stack, prompts, cfg.n_eval, cfg, rngs, adjacency=graph.full, device=device
    )
    for x, (rows, paths, mult) in zip(prompts, samples, strict=True):
        ok = nb.verify(graph, x[rows], paths)
        out.append(np.bincount(rows[ok], weights=mult[ok], minlength=len(x)).astype(np.int64))
    return out


def _thinned(values: list[float]) -> list[float]:
    """At most ~50 points of a curve, as the one-seed record keeps them."""
    return values[:: max(1, len(values) // 50)]


def _teacher_data(graph: nb.PathGraph, train: np.ndarray, cfg: nb.ArmBConfig) -> tuple:
    """The distillation data of the one-seed task: the teacher's BFS paths (full graph) for the
    train prompts whose path has at most ``max_len`` nodes, padded with −1."""
    teacher = nb.shortest_paths(graph)
    reachable = [
        (tuple(p), teacher[tuple(p)])
        for p in train.tolist()
        if len(teacher[tuple(p)]) <= cfg.max_len
    ]
    t_paths = np.full((len(reachable), cfg.max_len), -1, np.int64)
    for row, (_, path) in enumerate(reachable):
        t_paths[row, : len(path)] = path
    return np.array([p for p, _ in reachable]), t_paths


def arm_b_batched(
    params: dict[str, Any],
    rngs: Sequence[np.random.Generator],
    device: str | torch.device = "cpu",
) -> list[dict[str, Any]]:
    """:func:`neural.rlvr_transformer.arm_b_task` for K = ``len(rngs)`` seeds, every stage run
    as one batched model on ``device``; returns the K records, record k as the one-seed task
    returns it for ``rngs[k]`` (the same keys; numbers up to float32 reduction order).

    Parameters
    ----------
    params : dict
        :class:`~neural.rlvr_transformer.ArmBConfig` fields and ``gate_margin`` (default 0.10;
        None disables the gate), as for the one-seed task; other keys (a ``device`` included:
        the argument decides) are ignored.
    rngs : sequence of numpy.random.Generator
        One generator per seed, in the state the one-seed task would receive it.
    device : str or torch.device, optional
        The torch device of the stacked models (default ``"cpu"``): they are initialised on the
        CPU as the one-seed task's, and every draw comes from ``rngs`` on the CPU.

    Returns
    -------
    list of dict
        K records, record k as :func:`neural.rlvr_transformer.arm_b_task` returns it for
        ``rngs[k]``.

    Raises
    ------
    ValueError
        If ``rngs`` is empty.

    Notes
    -----
    The stages run in the one-seed task's order, each for all seeds together: the base's
    supervised training (Adam on Σ_k L_k, L_k seed k's mean next-node cross-entropy), its
    evaluation (sampled counts, then the exact success probabilities
    p(s, g) = Σ_paths Π_t π(v_t | s, g, v_<t)), the gate per seed; then, for the seeds whose
    gate opened: GRPO from the base, its evaluation, distillation from the base on the
    teacher's paths, its evaluation, GRPO with the KL penalty ``kl_ablation`` against the
    frozen base, its evaluation. Seed k's draws come from ``rngs[k]`` (and its evaluation
    generator) in the one-seed order, so interleaving the seeds changes no seed's stream.

    Examples
    --------
    Two seeds of a smoke run (two steps per stage, no gate); seed 1's exact success
    probabilities are its one-seed run's:

    >>> import numpy as np
    >>> from neural.rlvr_batched import arm_b_batched
    >>> from neural.rlvr_transformer import arm_b_task
    >>> params = {"n_nodes": 8, "max_len": 3, "d_model": 8, "n_layers": 1, "n_heads": 2,
    ...           "base_steps": 2, "distill_steps": 2, "rl_steps": 2, "batch": 8,
    ...           "rl_prompts": 4, "group": 4, "n_eval": 8, "gate_margin": None}
    >>> records = arm_b_batched(params, [np.random.default_rng(s) for s in (0, 1)])
    >>> [sorted(r["p"]) for r in records]
    [['base', 'distill', 'rl', 'rl_kl'], ['base', 'distill', 'rl', 'rl_kl']]
    >>> alone = arm_b_task(dict(params), np.random.default_rng(1))
    >>> bool(np.allclose(records[1]["p"]["base"], alone["p"]["base"], rtol=1e-5))
    True
    """
    if len(rngs) == 0:
        raise ValueError("rngs must hold at least one generator")
    torch.set_num_threads(1)
    cfg = nb.ArmBConfig(
        **{k: v for k, v in params.items() if k in nb.ArmBConfig.__dataclass_fields__}
    )
    graph = nb.make_graph(cfg)
    pairs = np.array([(s, g) for s in range(graph.n) for g in range(graph.n) if s != g])
    chance_all = nb.chance_success(graph, cfg)
    base_only = nb.shortest_paths(graph, graph.base)
    records, eval_rngs, trains, tests, corpora, models = [], [], [], [], [], []
    for rng in rngs:  # each seed's draws up to its base model, in the one-seed order
        torch.manual_seed(int(rng.integers(2**31)))
        eval_rngs.append(np.random.default_rng(int(rng.integers(2**63))))
        order = rng.permutation(len(pairs))
        train, test = pairs[order[: len(pairs) // 2]], pairs[order[len(pairs) // 2 :]]
        trains.append(train)
        tests.append(test)
        records.append(
            {
                "n": cfg.n_eval,
                "test": test,
                "chance_pass1": chance_all[test[:, 0], test[:, 1]],
                "needs_hidden": [
                    len(base_only.get((int(s), int(g)), range(99))) > cfg.max_len for s, g in test
                ],
            }
        )
        corpora.append(nb.walk_corpus(graph, cfg, cfg.base_steps * cfg.batch // 4, rng))
        models.append(nb.PathTransformer(cfg))  # initialised on the CPU, from torch's seed

    base = SeedStack(models, device)
    losses = _supervised_train_batched(base, corpora, cfg.base_steps, cfg, rngs, device)
    counts = _eval_counts_batched(base, graph, tests, cfg, eval_rngs, device)
    exact = _exact_success_probs_batched(base, graph, tests, cfg, device)
    margin = params.get("gate_margin", 0.10)
    for k, record in enumerate(records):
        base.load_into(models[k], k)  # the base's weights: every arm starts from them
        record |= {"counts": {"base": counts[k]}, "p": {"base": exact[k]}}
        record["base_loss"] = _thinned(losses[k])
        base_pass1 = float(counts[k].mean() / cfg.n_eval)
        mean_chance = float(record["chance_pass1"].mean())
        record["rl_run"] = margin is None or base_learned(base_pass1, mean_chance, margin)
    run = [k for k, record in enumerate(records) if record["rl_run"]]
    if not run:
        return records

    def pick(values: Sequence) -> list:
        return [values[k] for k in run]

    def evaluate(stack: SeedStack, arm: str) -> None:
        counts = _eval_counts_batched(stack, graph, pick(tests), cfg, pick(eval_rngs), device)
        exact = _exact_success_probs_batched(stack, graph, pick(tests), cfg, device)
        for k, c, p in zip(run, counts, exact, strict=True):
            records[k]["counts"][arm], records[k]["p"][arm] = c, p

    rl = SeedStack(pick(models), device)
    rewards = _grpo_train_batched(rl, graph, pick(trains), cfg, pick(rngs), device=device)
    evaluate(rl, "rl")
    for k, reward in zip(run, rewards, strict=True):
        records[k]["rl_reward"] = _thinned(reward)

    student = SeedStack(pick(models), device)
    teacher = [_teacher_data(graph, trains[k], cfg) for k in run]
    _supervised_train_batched(student, teacher, cfg.distill_steps, cfg, pick(rngs), device)
    evaluate(student, "distill")

    rl_kl = SeedStack(pick(models), device)
    reference = SeedStack(pick(models), device) if cfg.kl_ablation > 0 else None
    _grpo_train_batched(
        rl_kl,
        graph,
        pick(trains),
        cfg,
        pick(rngs),
        reference=reference,
        kl=cfg.kl_ablation,
        device=device,
    )
    evaluate(rl_kl, "rl_kl")
    return records
