"""The gated-attention LM runs of :mod:`neural.gated_training` for K seeds at once: one batched
model (:class:`neural.batched.SeedStack`) on a chosen torch device.

:func:`train_run_batched` is :func:`neural.gated_training.train_run` for K seed triples in one
call. Seed k draws its initial weights, its data order and its evaluation batch from its own
triple exactly as the one-seed run does, has its own AdamW moments (elementwise on the stacked
tensors), its own gradient clipping (:func:`neural.batched.clip_grad_norm_per_seed_`) and its own
divergence test; so record k equals ``train_run(settings, seeds[k])`` up to float32 reduction
order (tests/neural/test_gated_batched.py measures it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from neural.batched import SeedStack, clip_grad_norm_per_seed_
from neural.gated_training import (
    RunSettings,
    _Batches,
    _chunk_means,
    _loss,
    _trajectory_point,
    build_model,
    evaluate,
    lr_at,
)

__all__ = ["train_run_batched"]


def train_run_batched(
    settings: RunSettings,
    seeds: Sequence[tuple[int, int, int]],
    device: str | torch.device = "cpu",
) -> list[dict[str, Any]]:
    """:func:`neural.gated_training.train_run` for K = ``len(seeds)`` seeds trained as one
    batched model on ``device``; returns the K records, record k as the one-seed run returns it
    for ``seeds[k]`` = (initialisation, data order, evaluation batch).

    Parameters
    ----------
    settings : neural.gated_training.RunSettings
        The run's settings, shared by every seed.
    seeds : sequence of tuple of int
        One (init, data, eval) seed triple per seed.
    device : str or torch.device, optional
        The torch device of the stacked model and the training batches (default ``"cpu"``).

    Returns
    -------
    list of dict
        K records, record k as :func:`neural.gated_training.train_run` returns it for
        ``seeds[k]``.

    Raises
    ------
    ValueError
        If ``seeds`` is empty.

    Notes
    -----
    Each step samples seed k's batch from its own generator, evaluates the K next-token
    cross-entropies L_k in one vmapped call and steps AdamW (β = 0.9, 0.95; decay on matrices)
    on Σ_k L_k after clipping each seed's gradient to norm ``settings.clip`` by its own norm
    (as :func:`torch.nn.utils.clip_grad_norm_` clips one model). A seed diverges as in the
    one-seed run (L_k non-finite, or above ln(vocab) + 1 after warm-up): it stops there, its
    record is the one-seed run's diverged record, and it no longer enters the loss (its
    parameters keep moving harmlessly until every seed is done). The evaluations (every
    ``eval_every`` steps: loss and the attention measurements of
    :func:`neural.gated_training.evaluate`) run one seed at a time on the CPU, each on a copy
    of its weights in a one-seed model.

    Examples
    --------
    Two seeds of a tiny model for three steps; seed 1's record is its one-seed run's:

    >>> from neural.gated_batched import train_run_batched
    >>> from neural.gated_training import RunSettings, train_run
    >>> tiny = RunSettings(
    ...     task="backcopy", gate="headwise", steps=3, batch=4, seq_len=8, d_model=8,
    ...     n_layers=1, n_heads=2, d_ffn=16, vocab=6, n_triggers=1, eval_every=2, eval_batch=4,
    ... )
    >>> records = train_run_batched(tiny, [(0, 1, 2), (3, 4, 5)])
    >>> [r["diverged"] for r in records], [p["step"] for p in records[1]["trajectory"]]
    ([False, False], [0, 2, 3])
    >>> alone = train_run(tiny, (3, 4, 5))
    >>> abs(records[1]["final"]["val_loss"] - alone["final"]["val_loss"]) < 1e-4
    True
    """
    if not seeds:
        raise ValueError("seeds must hold at least one (init, data, eval) triple")
    torch.set_num_threads(1)
    device = torch.device(device)
    data = [_Batches(settings, data_seed, eval_seed) for _, data_seed, eval_seed in seeds]
    built = [
        build_model(settings, d.vocab, init_seed)
        for (init_seed, _, _), d in zip(seeds, data, strict=True)
    ]
    models = [model for model, _ in built]  # one-seed models: the evaluation copies
    stack = SeedStack(models, device)
    ndim = {name: p.dim() for name, p in models[0].named_parameters()}
    optimiser = torch.optim.AdamW(
        [
            {
                "params": [p for n, p in stack.params.items() if ndim[n] >= 2],
                "weight_decay": settings.weight_decay,
            },
            {"params": [p for n, p in stack.params.items() if ndim[n] < 2], "weight_decay": 0.0},
        ],
        lr=settings.lr,
        betas=(0.9, 0.95),
    )
    n_seeds = len(seeds)
    diverge_at = math.log(data[0].vocab) + 1.0
    train_loss: list[list[float]] = [[] for _ in seeds]
    trajectory = [
        [{"step": 0, **_trajectory_point(evaluate(m, d.eval))}]
        for m, d in zip(models, data, strict=True)
    ]
    diverged: list[int | None] = [None] * n_seeds
    active = torch.ones(n_seeds, dtype=torch.bool, device=device)
    batches: list[np.ndarray] = [np.empty(0)] * n_seeds
    for step in range(settings.steps):
        for group in optimiser.param_groups:
            group["lr"] = lr_at(step, settings)
        running = [k for k in range(n_seeds) if diverged[k] is None]
        for k in running:  # a stopped seed draws no more batches; its last one fills its slot
            batches[k] = data[k].next()
        tokens = torch.from_numpy(np.stack(batches)).to(device)  # (K, B, T)
        with sdpa_kernel(SDPBackend.MATH):  # the fused CPU kernel has no vmap rule (loops)
            losses = stack.per_seed(_loss, tokens)  # (K,)
        values = losses.tolist()
        past_warmup = step >= max(1, settings.steps // 20)
        for k in running:
            train_loss[k].append(values[k])
            if not math.isfinite(values[k]) or (past_warmup and values[k] > diverge_at):
                diverged[k] = step
                active[k] = False
        if not active.any():
            break
        optimiser.zero_grad(set_to_none=True)
        torch.where(active, losses, 0.0).sum().backward()
        clip_grad_norm_per_seed_(list(stack.parameters()), settings.clip)
        optimiser.step()
        if (step + 1) % settings.eval_every == 0 and step + 1 < settings.steps:
            for k in range(n_seeds):
                if diverged[k] is None:
                    point = evaluate(stack.load_into(models[k], k), data[k].eval)
                    trajectory[k].append({"step": step + 1, **_trajectory_point(point)})
    records = []
    for k, (n_params, d) in enumerate(zip((n for _, n in built), data, strict=True)):
        if diverged[k] is None:
            final = evaluate(stack.load_into(models[k], k), d.eval)
            trajectory[k].append({"step": settings.steps, **_trajectory_point(final)})
        else:
            final = {"val_loss": math.inf}
        records.append(
            {
                "settings": asdict(settings),
                "n_params": n_params,
                "diverged": diverged[k] is not None,
                "diverged_step": diverged[k],
                "loss_floor": d.floor,
                "train_loss": _chunk_means(train_loss[k], settings.eval_every),
                "trajectory": trajectory[k],
                "final": final,
            }
        )
    return records
