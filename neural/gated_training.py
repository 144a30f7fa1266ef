"""Training runs of the gated-attention LMs, as pure sweep tasks.

:func:`gated_lm_task` is a top-level ``(params, rng) -> dict`` function for
:func:`sims.sweep.run_sweep`. With ``paired_seeds=True`` every arm of a seed index gets the same
``rng``, hence the same initial weights for the parameters the arms share
(:func:`neural.gated_attention.init_shared`), the same data order and the same evaluation batch.

Optimiser (the same in every arm): AdamW (β = 0.9, 0.95; weight decay 0.1 on matrices), linear
warm-up over the first 5% of steps then cosine decay to 10% of the peak LR, gradient clipping at
norm 1. A run *diverges* when its training loss becomes non-finite or exceeds ln(vocab) + 1 (worse
than a uniform guess) after warm-up; it stops there.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

__all__ = ["TASKS", "RunSettings", "build_model", "evaluate", "gated_lm_task", "lr_at", "train_run"]

#: The training tasks: ``text`` (pydoc bytes) and ``backcopy`` (Bigram-Backcopy).
TASKS = ("text", "backcopy")


@dataclass(frozen=True)
class RunSettings:
    """One training run. ``task`` is ``"text"`` (pydoc bytes) or ``"backcopy"`` (Bigram-Backcopy
    with ``vocab`` tokens and ``n_triggers`` triggers); ``qk_norm`` as in
    :class:`neural.gated_attention.ModelConfig` (on by default, as in Qwen3)."""

    #: ``"text"`` or ``"backcopy"``.
    task: str = "text"
    #: Gate variant (:data:`neural.gated_attention.GATES`).
    gate: str = "none"
    #: Peak AdamW learning rate.
    lr: float = 3e-3
    #: Training steps.
    steps: int = 300
    #: Sequences per step.
    batch: int = 32
    #: Tokens per sequence.
    seq_len: int = 64
    #: Model width.
    d_model: int = 64
    #: Decoder blocks.
    n_layers: int = 2
    #: Attention heads.
    n_heads: int = 4
    #: SwiGLU hidden width of the baseline (narrowed for a gate when ``match_parameters``).
    d_ffn: int = 176
    #: Tokens of the backcopy source (the text task uses bytes).
    vocab: int = 64
    #: Trigger tokens of the backcopy source.
    n_triggers: int = 3
    #: Steps between evaluations.
    eval_every: int = 50
    #: Sequences per evaluation batch.
    eval_batch: int = 32
    #: AdamW weight decay of the matrices (vectors get none).
    weight_decay: float = 0.1
    #: Gradient-norm clipping threshold.
    clip: float = 1.0
    #: Narrow the FFN so a gated model has the baseline's parameter count.
    match_parameters: bool = True
    #: RMS-normalise q and k per head before RoPE.
    qk_norm: bool = True

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {', '.join(TASKS)} (got {self.task!r})")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be a positive number (got {self.lr!r})")
        for name in ("steps", "batch", "eval_every", "eval_batch"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer (got {value!r})")


def lr_at(step: int, settings: RunSettings) -> float:
    """Linear warm-up over 5% of the steps, then cosine decay from ``lr`` to ``lr / 10``: with
    W = max(1, ⌊steps/20⌋), η_t = η·(t + 1)/W for t < W, else
    η·(0.1 + 0.45·(1 + cos(π·(t − W)/(steps − W)))).

    Parameters
    ----------
    step : int
        t, the 0-based training step.
    settings : RunSettings
        The run (its ``lr`` η and ``steps``).

    Returns
    -------
    float
        η_t.

    Examples
    --------
    >>> from neural.gated_training import RunSettings, lr_at
    >>> settings = RunSettings(lr=1e-3, steps=100)  # W = 5
    >>> [round(lr_at(t, settings), 6) for t in (0, 4, 5, 99)]
    [0.0002, 0.001, 0.001, 0.0001]
    """
    warmup = max(1, settings.steps // 20)
    if step < warmup:
        return settings.lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, settings.steps - warmup)
    return settings.lr * (0.1 + 0.45 * (1 + math.cos(math.pi * progress)))


def build_model(settings: RunSettings, vocab: int, init_seed: int):
    """The (parameter-matched) model of a run, and its parameter count.

    Parameters
    ----------
    settings : RunSettings
        The run's sizes, gate, ``qk_norm`` and ``match_parameters`` (FFN narrowed by
        :func:`neural.gated_attention.matched_config`, else the baseline's width).
    vocab : int
        The vocabulary size with BOS (:data:`neural.lm_data.TEXT_VOCAB` for text).
    init_seed : int
        The shared-initialisation seed (:func:`neural.gated_attention.init_shared`).

    Returns
    -------
    tuple
        The :class:`neural.gated_attention.GatedLM` and its trainable parameter count (int).

    Examples
    --------
    >>> from neural.gated_training import RunSettings, build_model
    >>> settings = RunSettings(d_model=8, n_layers=1, n_heads=2, d_ffn=16, seq_len=8)
    >>> model, n_params = build_model(settings, vocab=7, init_seed=0)
    >>> type(model).__name__, n_params  # 7·8 + 4·8·8 + 3·8·16 + (8 + 8 + 4 + 4) + 8 + 8·7
    ('GatedLM', 784)
    """
    from neural.gated_attention import GatedLM, ModelConfig, count_parameters, matched_config

    base = ModelConfig(
        vocab=vocab,
        d_model=settings.d_model,
        n_layers=settings.n_layers,
        n_heads=settings.n_heads,
        d_ffn=settings.d_ffn,
        max_len=settings.seq_len,
        qk_norm=settings.qk_norm,
    )
    if settings.match_parameters:
        config = matched_config(base, settings.gate)
    else:
        config = replace(base, gate=settings.gate)
    model = GatedLM(config, init_seed=init_seed)
    return model, count_parameters(model)


class _Batches:
    """The training and evaluation batches of one run, drawn from numpy generators."""

    def __init__(self, settings: RunSettings, data_seed: int, eval_seed: int) -> None:
        from neural import lm_data

        self.settings = settings
        self.rng = np.random.default_rng(data_seed)
        eval_rng = np.random.default_rng(eval_seed)
        if settings.task == "text":
            self.train = lm_data.text_split("train")
            self.vocab = lm_data.TEXT_VOCAB
            self.source = None
            self.eval = lm_data.text_batch(
                lm_data.text_split("val"), settings.eval_batch, settings.seq_len, eval_rng
            )
            self.floor = None
        else:
            self.source = lm_data.BigramBackcopy.sample(
                np.random.default_rng(data_seed + 1), settings.vocab, settings.n_triggers
            )
            self.vocab = self.source.vocab
            self.eval = self.source.batch(settings.eval_batch, settings.seq_len, eval_rng)
            self.floor = self.source.optimal_loss(settings.seq_len)

    def next(self) -> np.ndarray:
        from neural import lm_data

        s = self.settings
        if self.source is None:
            return lm_data.text_batch(self.train, s.batch, s.seq_len, self.rng)
        return self.source.batch(s.batch, s.seq_len, self.rng)


def _loss(model, tokens) -> Any:
    import torch.nn.functional as F

    logits = model(tokens[:, :-1])  # (B, T-1, V)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))


def evaluate(model, tokens: np.ndarray) -> dict[str, Any]:
    """Held-out loss (nats per token) and every measurement of
    :func:`neural.attention_metrics.measure` on one evaluation batch (BOS first, full length).

    Parameters
    ----------
    model : neural.gated_attention.GatedLM
        The model (put back in training mode afterwards).
    tokens : numpy.ndarray of int64, (B, T)
        The evaluation batch.

    Returns
    -------
    dict
        ``val_loss`` (float, the mean cross-entropy of the T − 1 next-token predictions) and
        the entries of :func:`neural.attention_metrics.measure`.

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> from neural.gated_training import RunSettings, build_model, evaluate
    >>> settings = RunSettings(d_model=8, n_layers=1, n_heads=2, d_ffn=16, seq_len=8)
    >>> model, _ = build_model(settings, vocab=7, init_seed=0)
    >>> result = evaluate(model, np.array([[6, 1, 2, 3, 4, 5, 0, 1]]))
    >>> abs(result["val_loss"] - math.log(7)) < 0.1  # near-uniform at initialisation
    True
    >>> sorted(result)[:3]
    ['f_attn', 'f_attn_max_head', 'f_attn_over_uniform']
    """
    import torch
    import torch.nn.functional as F

    from neural.attention_metrics import measure

    model.eval()
    with torch.no_grad():
        batch = torch.from_numpy(tokens).to(model.rope_cos.device)
        logits, traces = model(batch, trace=True)  # (B, T, V)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), batch[:, 1:].ravel())
        result = {"val_loss": float(loss)} | measure(traces, tokens.shape[1])
    model.train()
    return result


def train_run(
    settings: RunSettings, seeds: tuple[int, int, int], device: str = "cpu"
) -> dict[str, Any]:
    """Train one model and return its losses, its measurements at the end and its trajectory
    (val loss, F-Attn, M-Act and mean gate at initialisation and every ``eval_every`` steps).

    ``seeds`` = (initialisation, data order, evaluation batch). Training stops at the first step
    whose loss is non-finite or, after warm-up, above ln(vocab) + 1 (the run *diverged*).

    Parameters
    ----------
    settings : RunSettings
        The run.
    seeds : tuple of int
        (initialisation, data order, evaluation batch) seeds; the backcopy source is drawn from
        the data-order seed + 1.
    device : str, optional
        The torch device the model trains on (default ``"cpu"``): it is initialised on the CPU
        and moved there, and every batch is drawn as on the CPU and moved, so one seed gives
        the same run on any device up to float rounding.

    Returns
    -------
    dict
        ``settings`` (dict), ``n_params`` (int), ``diverged`` (bool), ``diverged_step`` (int or
        None), ``loss_floor`` (the backcopy source's Bayes loss, None for text), ``train_loss``
        (means over chunks of ``eval_every`` steps), ``trajectory`` (dicts with ``step``,
        ``val_loss``, ``f_attn``, ``f_attn_max_head``, ``m_act`` and, with a gate,
        ``gate_mean`` and ``gate_below_0.1``) and ``final`` (:func:`evaluate` at the end, or
        ``{"val_loss": inf}`` if the run diverged).

    Examples
    --------
    Four steps of a tiny model:

    >>> from neural.gated_training import RunSettings, train_run
    >>> tiny = RunSettings(
    ...     task="backcopy", gate="headwise", steps=4, batch=4, seq_len=8, d_model=8,
    ...     n_layers=1, n_heads=2, d_ffn=16, vocab=6, n_triggers=1, eval_every=2, eval_batch=4,
    ... )
    >>> run = train_run(tiny, seeds=(0, 1, 2))
    >>> run["diverged"], [point["step"] for point in run["trajectory"]], len(run["train_loss"])
    (False, [0, 2, 4], 2)
    >>> "gate_mean" in run["final"], run["loss_floor"] < run["final"]["val_loss"]
    (True, True)
    """
    import torch

    torch.set_num_threads(1)
    init_seed, data_seed, eval_seed = seeds
    data = _Batches(settings, data_seed, eval_seed)
    model, n_params = build_model(settings, data.vocab, init_seed)
    if device != "cpu":
        model.to(device)
    matrices = [p for p in model.parameters() if p.dim() >= 2]
    vectors = [p for p in model.parameters() if p.dim() < 2]
    optimiser = torch.optim.AdamW(
        [
            {"params": matrices, "weight_decay": settings.weight_decay},
            {"params": vectors, "weight_decay": 0.0},
        ],
        lr=settings.lr,
        betas=(0.9, 0.95),
    )
    diverge_at = math.log(data.vocab) + 1.0
    train_loss: list[float] = []
    trajectory = [{"step": 0, **_trajectory_point(evaluate(model, data.eval))}]
    diverged_step = None
    for step in range(settings.steps):
        for group in optimiser.param_groups:
            group["lr"] = lr_at(step, settings)
        loss = _loss(model, torch.from_numpy(data.next()).to(device))
        value = loss.item()
        train_loss.append(value)
        past_warmup = step >= max(1, settings.steps // 20)
        if not math.isfinite(value) or (past_warmup and value > diverge_at):
            diverged_step = step
            break
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), settings.clip)
        optimiser.step()
        if (step + 1) % settings.eval_every == 0 and step + 1 < settings.steps:
            trajectory.append({"step": step + 1, **_trajectory_point(evaluate(model, data.eval))})
    final = evaluate(model, data.eval) if diverged_step is None else {"val_loss": math.inf}
    if diverged_step is None:
        trajectory.append({"step": settings.steps, **_trajectory_point(final)})
    return {
        "settings": asdict(settings),
        "n_params": n_params,
        "diverged": diverged_step is not None,
        "diverged_step": diverged_step,
        "loss_floor": data.floor,
        "train_loss": _chunk_means(train_loss, settings.eval_every),
        "trajectory": trajectory,
        "final": final,
    }


def _trajectory_point(measured: dict[str, Any]) -> dict[str, Any]:
    keys = ("val_loss", "f_attn", "f_attn_max_head", "m_act", "gate_mean", "gate_below_0.1")
    return {k: measured[k] for k in keys if k in measured}


def _chunk_means(values: list[float], chunk: int) -> list[float]:
    """Means of consecutive chunks of ``chunk`` values (the last chunk may be shorter)."""
    return [float(np.mean(values[i : i + chunk])) for i in range(0, len(values), chunk)]


def gated_lm_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: ``params`` are :class:`RunSettings` fields; ``rng`` gives the three seeds.
    Arms of one paired seed index share initialisation, data order and evaluation batch.

    Parameters
    ----------
    params : dict
        Keyword arguments of :class:`RunSettings`, and optionally ``device`` (the torch device
        of :func:`train_run`, default ``"cpu"``).
    rng : numpy.random.Generator
        The source of the three seeds of :func:`train_run`.

    Returns
    -------
    dict
        :func:`train_run`'s result.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.gated_training import gated_lm_task
    >>> params = {"task": "backcopy", "steps": 2, "batch": 2, "seq_len": 8, "d_model": 8,
    ...           "n_layers": 1, "n_heads": 2, "d_ffn": 16, "vocab": 6, "n_triggers": 1,
    ...           "eval_batch": 2}
    >>> a = gated_lm_task(params, np.random.default_rng(0))
    >>> b = gated_lm_task(params, np.random.default_rng(0))
    >>> a["train_loss"] == b["train_loss"], a["settings"]["steps"]  # the rng fixes the run
    (True, 2)
    """
    device = params.pop("device", "cpu")
    seeds = tuple(int(s) for s in rng.integers(0, 2**31 - 1, size=3))
    return train_run(RunSettings(**params), seeds, device=device)
