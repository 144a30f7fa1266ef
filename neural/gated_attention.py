"""A tiny pre-norm decoder whose attention output can be gated (Qiu et al. 2025, "Gated Attention
for Large Language Models", arXiv 2505.06708).

The gate of the paper (§2.2, position G1) multiplies one head's SDPA output Y by a sigmoid of the
*query token's own* normalised state x (the RMSNorm output that also feeds Q/K/V), before the
heads are concatenated and projected by W_O::

    Y' = Y ⊙ σ(x W_θ)        elementwise: W_θ ∈ R^{d × h·d_k};  headwise: W_θ ∈ R^{d × h}

Controls of Table 1 / Table 4 of the paper:

* ``ns_sigmoid``: Y ⊙ (0.5 + 0.5·σ(x W_θ)), which keeps the non-linearity but cannot go below 0.5;
* ``input_independent``: Y ⊙ σ(b), one learned bias per channel, the same for every token;
* ``g2_value``: position G2, V ⊙ σ(x W_θ) on the values (gated by the *key* token's state);
* ``g5_output``: position G5, (Y W_O) ⊙ σ(x W_θ) after the output projection;
* ``head_shared``: one score per token shared by every head, Y_h ⊙ σ(x w_θ) with w_θ ∈ R^d
  (Table 1's "head-shared" row, read as one score per token; the table's +201M parameters
  suggest the authors may share a d_k-wide vector instead, see docs/gated_attention.md).

QK-norm (``qk_norm``, on by default): q and k are RMS-normalised per head over d_k, each with its
own learnable weight (initialised to 1), after the projections and before RoPE, as in Qwen3 and
Qwen3-Next and in the authors' released configuration (qiuzh20/gated_attention), which enables it
by default::

    q_h ← q_h / sqrt(mean(q_h²) + ε) · w_q,   k_h ← k_h / sqrt(mean(k_h²) + ε) · w_k

The model: token embedding, ``n_layers`` blocks ``x ← x + Attn(RMSNorm(x)); x ← x + FFN(RMSNorm(x))``
with RoPE and a SwiGLU FFN, a final RMSNorm and an untied head; every weight starts N(0, 0.02)
(so a gate starts near σ(0) = 0.5, halving the attention branch). Arms are parameter-matched by
narrowing the FFN (:func:`matched_config`).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, replace
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "GATES",
    "INIT_STD",
    "Block",
    "GatedLM",
    "GatedSelfAttention",
    "LayerTrace",
    "ModelConfig",
    "RMSNorm",
    "SwiGLU",
    "apply_rope",
    "attention_with_weights",
    "count_parameters",
    "gate_parameters_per_layer",
    "init_shared",
    "matched_config",
    "rope_tables",
]

#: Gate variants: ``none`` is the baseline; G1 ``elementwise`` and ``headwise`` are the paper's
#: gates; the rest are the weak controls of Table 1.
GATES = (
    "none",
    "elementwise",
    "headwise",
    "ns_sigmoid",
    "input_independent",
    "g2_value",
    "g5_output",
    "head_shared",
)
#: Standard deviation of the N(0, σ²) initialisation of every weight matrix.
INIT_STD = 0.02


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the decoder. ``d_ffn`` is the SwiGLU hidden width (three d × d_ffn matrices);
    ``head_dim`` decouples d_k from d_model / n_heads (default: coupled); ``qk_norm`` normalises q
    and k per head before RoPE (Qwen3's convention, the default; False is the model of the
    reference runs before 2026-12-01)."""

    #: Vocabulary size (embedding and output rows).
    vocab: int
    #: Width d of the residual stream.
    d_model: int = 64
    #: Decoder blocks.
    n_layers: int = 2
    #: Attention heads per block.
    n_heads: int = 4
    #: SwiGLU hidden width.
    d_ffn: int = 176
    #: Longest sequence (RoPE table length).
    max_len: int = 256
    #: Gate variant, one of :data:`GATES`.
    gate: str = "none"
    #: RoPE frequency base.
    rope_base: float = 10_000.0
    #: d_k per head (None: d_model / n_heads).
    head_dim: int | None = None
    #: RMS-normalise q and k per head before RoPE.
    qk_norm: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.qk_norm, bool):
            raise ValueError(f"qk_norm must be True or False (got {self.qk_norm!r})")  # noqa: TRY004
        if self.gate not in GATES:
            raise ValueError(f"gate must be one of {', '.join(GATES)} (got {self.gate!r})")
        for name in ("vocab", "d_model", "n_layers", "n_heads", "d_ffn", "max_len"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer (got {value!r})")
        if self.head_dim is None and self.d_model % self.n_heads:
            raise ValueError(
                f"d_model ({self.d_model}) must split into n_heads ({self.n_heads}) heads"
            )
        if self.d_head < 2 or self.d_head % 2:
            raise ValueError(f"the head size must be even for RoPE (got {self.d_head})")

    @property
    def d_head(self) -> int:
        """d_k: ``head_dim`` if given (the paper's MoE has h·d_k = 2·d_model), else d / h."""
        return self.d_model // self.n_heads if self.head_dim is None else self.head_dim


def gate_parameters_per_layer(config: ModelConfig) -> int:
    """Parameters one layer's gate adds: d·h·d_k (elementwise G1/NS/G2), d·h (headwise),
    d (head-shared), h·d_k (input-independent bias), d·d (G5 after W_O), 0 (none). Table 1's
    "+M" column.

    Parameters
    ----------
    config : ModelConfig
        The decoder's sizes and gate.

    Returns
    -------
    int
        The gate's parameters in one layer.

    Examples
    --------
    >>> from neural.gated_attention import ModelConfig, gate_parameters_per_layer
    >>> config = ModelConfig(vocab=16, d_model=8, n_heads=2, gate="elementwise")
    >>> gate_parameters_per_layer(config)  # d·h·d_k = 8·2·4
    64
    >>> gate_parameters_per_layer(ModelConfig(vocab=16, d_model=8, n_heads=2, gate="headwise"))
    16
    """
    d, h, dk = config.d_model, config.n_heads, config.d_head
    return {
        "none": 0,
        "elementwise": d * h * dk,
        "headwise": d * h,
        "ns_sigmoid": d * h * dk,
        "input_independent": h * dk,
        "g2_value": d * h * dk,
        "g5_output": d * d,
        "head_shared": d,
    }[config.gate]


def matched_config(base: ModelConfig, gate: str) -> ModelConfig:
    """``base`` with ``gate``, its FFN narrowed by round(gate parameters / 3d) per layer so that
    the total parameter count matches the baseline's to within 1.5·d per layer (the paper
    narrows the FFN of its dense models to match parameters; an elementwise gate costs about d²
    per layer).

    Parameters
    ----------
    base : ModelConfig
        The baseline's configuration.
    gate : str
        The gate, one of :data:`GATES`.

    Returns
    -------
    ModelConfig
        ``base`` with the gate and d_ffn − round(gate parameters / 3d).

    Raises
    ------
    ValueError
        If ``gate`` is not one of :data:`GATES`, or the FFN is too narrow to pay for it.

    Examples
    --------
    >>> from neural.gated_attention import GatedLM, ModelConfig, count_parameters, matched_config
    >>> base = ModelConfig(vocab=16)  # d = 64, d_ffn = 176, 2 layers
    >>> gated = matched_config(base, "elementwise")
    >>> gated.gate, gated.d_ffn  # 176 − round(64·64 / (3·64))
    ('elementwise', 155)
    >>> abs(count_parameters(GatedLM(gated)) - count_parameters(GatedLM(base))) <= 1.5 * 64 * 2
    True
    """
    gated = replace(base, gate=gate)
    shrink = round(gate_parameters_per_layer(gated) / (3 * base.d_model))
    if shrink >= base.d_ffn:
        raise ValueError(f"d_ffn ({base.d_ffn}) is too narrow to pay for a {gate!r} gate")
    return replace(gated, d_ffn=base.d_ffn - shrink)


def count_parameters(model: nn.Module) -> int:
    """The number of trainable scalars.

    Parameters
    ----------
    model : torch.nn.Module
        Any module.

    Returns
    -------
    int
        Σ ``numel`` over the parameters with ``requires_grad``.

    Examples
    --------
    >>> from torch import nn
    >>> from neural.gated_attention import count_parameters
    >>> count_parameters(nn.Linear(3, 2))  # 3·2 weights + 2 biases
    8
    """
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + ε) · w (Zhang & Sennrich 2019)."""

    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(d_head: int, max_len: int, base: float) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of the rotary angles t·base^(−2i/d_k), each (max_len, d_head/2) (Su et al.).

    Parameters
    ----------
    d_head : int
        d_k, the (even) head size.
    max_len : int
        The positions t = 0..max_len − 1.
    base : float
        The frequency base (10,000 in RoFormer).

    Returns
    -------
    tuple of torch.Tensor
        cos and sin, float32, each (max_len, d_head/2), computed in float64.

    Examples
    --------
    >>> from neural.gated_attention import rope_tables
    >>> cos, sin = rope_tables(4, 3, 10_000.0)
    >>> tuple(cos.shape), [round(float(x), 4) for x in sin[1]]  # sin(1), sin(1/100)
    ((3, 2), [0.8415, 0.01])
    """
    inv_freq = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    angles = torch.outer(torch.arange(max_len, dtype=torch.float64), inv_freq)
    return angles.cos().float(), angles.sin().float()


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate channel pairs (x_2i, x_2i+1) of x (B, h, T, d_k) by the angles of their position.

    Parameters
    ----------
    x : torch.Tensor, (B, h, T, d_k)
        Queries or keys.
    cos : torch.Tensor, (T, d_k/2)
        cos of the angles of positions 0..T − 1 (:func:`rope_tables`, cut to T).
    sin : torch.Tensor, (T, d_k/2)
        sin of the same angles.

    Returns
    -------
    torch.Tensor, (B, h, T, d_k)
        (x_2i cos − x_2i+1 sin, x_2i sin + x_2i+1 cos) per pair.

    Examples
    --------
    >>> import torch
    >>> from neural.gated_attention import apply_rope, rope_tables
    >>> cos, sin = rope_tables(4, 3, 10_000.0)
    >>> x = torch.randn(1, 1, 3, 4, generator=torch.Generator().manual_seed(0))
    >>> y = apply_rope(x, cos, sin)
    >>> tuple(y.shape), torch.allclose(y.norm(dim=-1), x.norm(dim=-1))  # a rotation
    ((1, 1, 3, 4), True)
    >>> torch.equal(y[:, :, 0], x[:, :, 0])  # position 0 is not rotated
    True
    """
    x1, x2 = x[..., 0::2], x[..., 1::2]  # (B, h, T, d_k/2)
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


def attention_with_weights(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal attention with an explicit softmax: A = softmax(QKᵀ/√d_k + M), Y = A V.

    The evaluation path: it returns A (B, h, T, T) as well, which SDPA kernels do not; it is
    tested equal to :func:`torch.nn.functional.scaled_dot_product_attention`.

    Parameters
    ----------
    q : torch.Tensor, (B, h, T, d_k)
        Queries.
    k : torch.Tensor, (B, h, T, d_k)
        Keys.
    v : torch.Tensor, (B, h, T, d_v)
        Values.

    Returns
    -------
    tuple of torch.Tensor
        Y (B, h, T, d_v) and A (B, h, T, T), lower triangular with rows summing to 1.

    Examples
    --------
    >>> import torch
    >>> import torch.nn.functional as F
    >>> from neural.gated_attention import attention_with_weights
    >>> q, k, v = torch.randn(3, 1, 2, 4, 4, generator=torch.Generator().manual_seed(0))
    >>> y, weights = attention_with_weights(q, k, v)
    >>> tuple(weights.shape), float(weights.triu(1).abs().sum())  # causal
    ((1, 2, 4, 4), 0.0)
    >>> torch.allclose(y, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-6)
    True
    """
    t = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, h, T, T)
    causal = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
    return weights @ v, weights


class LayerTrace(NamedTuple):
    """What one layer exposes to the measurements on the evaluation path.

    ``attn``: attention weights (B, h, T, T); ``gate``: the gate values σ(·) (B, T, h, d_k or 1),
    or None; ``ungated``: the SDPA output before the gate (B, T, h, d_k); ``residual``: the
    residual stream the layer outputs (B, T, d)."""

    #: Attention weights (B, h, T, T).
    attn: torch.Tensor
    #: Gate values σ(·) (B, T, h, d_k or 1), or None without a gate.
    gate: torch.Tensor | None
    #: The SDPA output before the gate (B, T, h, d_k).
    ungated: torch.Tensor
    #: The residual stream the layer outputs (B, T, d).
    residual: torch.Tensor


class GatedSelfAttention(nn.Module):
    """Multi-head causal self-attention with an optional output gate (see the module docstring)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        d, h, dk = config.d_model, config.n_heads, config.d_head
        self.gate_kind, self.n_heads, self.d_head = config.gate, h, dk
        self.q_proj = nn.Linear(d, h * dk, bias=False)
        self.k_proj = nn.Linear(d, h * dk, bias=False)
        self.v_proj = nn.Linear(d, h * dk, bias=False)
        self.o_proj = nn.Linear(h * dk, d, bias=False)
        gate_out = {"headwise": h, "head_shared": 1, "g5_output": d}.get(config.gate, h * dk)
        if config.gate == "input_independent":
            self.gate_bias = nn.Parameter(torch.zeros(h * dk))
        elif config.gate != "none":
            self.gate_proj = nn.Linear(d, gate_out, bias=False)
        self.q_norm = RMSNorm(dk) if config.qk_norm else None
        self.k_norm = RMSNorm(dk) if config.qk_norm else None

    def gate_values(self, x: torch.Tensor) -> torch.Tensor | None:
        """The multiplicative gate for the normalised input x (B, T, d), or None for no gate."""
        kind = self.gate_kind
        if kind == "none":
            return None
        if kind == "input_independent":
            return torch.sigmoid(self.gate_bias).expand(*x.shape[:-1], -1)
        g = torch.sigmoid(self.gate_proj(x))
        return 0.5 + 0.5 * g if kind == "ns_sigmoid" else g

    def forward(
        self,
        x: torch.Tensor,
        cos: torch.Tensor,
        sin: torch.Tensor,
        *,
        trace: bool = False,
    ) -> tuple[torch.Tensor, LayerTrace | None]:
        b, t, _ = x.shape
        h, dk = self.n_heads, self.d_head
        q = self.q_proj(x).view(b, t, h, dk)  # (B, T, h, d_k)
        k = self.k_proj(x).view(b, t, h, dk)
        if self.q_norm is not None:  # per head, before RoPE (Qwen3)
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)  # (B, h, T, d_k)
        v = self.v_proj(x).view(b, t, h, dk)  # (B, T, h, d_k)
        gate = self.gate_values(x)  # (B, T, h·d_k | h | d)
        if self.gate_kind == "g2_value":
            v = v * gate.view(b, t, h, dk)
        v = v.transpose(1, 2)  # (B, h, T, d_k)
        q, k = apply_rope(q, cos[:t], sin[:t]), apply_rope(k, cos[:t], sin[:t])
        if trace:
            y, weights = attention_with_weights(q, k, v)
        else:
            y, weights = F.scaled_dot_product_attention(q, k, v, is_causal=True), None
        y = y.transpose(1, 2)  # (B, T, h, d_k)
        ungated = y
        if self.gate_kind in ("elementwise", "ns_sigmoid", "input_independent"):
            gate = gate.view(b, t, h, dk)
            y = y * gate
        elif self.gate_kind in ("headwise", "head_shared"):
            gate = gate.view(b, t, -1, 1)  # (B, T, h or 1, 1)
            y = y * gate
        out = self.o_proj(y.reshape(b, t, h * dk))  # (B, T, d)
        if self.gate_kind == "g5_output":
            out = out * gate
        if not trace:
            return out, None
        return out, LayerTrace(weights, gate, ungated, out)


class SwiGLU(nn.Module):
    """FFN(x) = W_2 (SiLU(W_1 x) ⊙ W_3 x) (Shazeer 2020)."""

    def __init__(self, d_model: int, d_ffn: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ffn, bias=False)
        self.w3 = nn.Linear(d_model, d_ffn, bias=False)
        self.w2 = nn.Linear(d_ffn, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    """Pre-norm block: x ← x + Attn(RMSNorm(x)); x ← x + FFN(RMSNorm(x))."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(config.d_model)
        self.attn = GatedSelfAttention(config)
        self.ffn_norm = RMSNorm(config.d_model)
        self.ffn = SwiGLU(config.d_model, config.d_ffn)

    def forward(self, x, cos, sin, *, trace=False):
        a, layer_trace = self.attn(self.attn_norm(x), cos, sin, trace=trace)
        x = x + a
        x = x + self.ffn(self.ffn_norm(x))
        if layer_trace is not None:
            layer_trace = layer_trace._replace(residual=x)
        return x, layer_trace


class GatedLM(nn.Module):
    """The decoder-only LM. ``forward(tokens)`` returns logits (B, T, vocab);
    ``forward(tokens, trace=True)`` also returns one :class:`LayerTrace` per layer, computed on
    the manual-softmax path.

    Parameters
    ----------
    config : ModelConfig
        The sizes and the gate.
    init_seed : int, optional
        The seed of :func:`init_shared` (default 0).

    Examples
    --------
    >>> import torch
    >>> from neural.gated_attention import GatedLM, ModelConfig
    >>> config = ModelConfig(vocab=16, d_model=8, n_heads=2, d_ffn=16, gate="elementwise")
    >>> model = GatedLM(config)
    >>> tokens = torch.tensor([[0, 3, 5, 7]])
    >>> logits, traces = model(tokens, trace=True)
    >>> tuple(logits.shape), len(traces), tuple(traces[0].gate.shape)  # (B, T, h, d_k) gate
    ((1, 4, 16), 2, (1, 4, 2, 4))
    >>> torch.allclose(model(tokens), logits, atol=1e-5)  # the SDPA path agrees
    True
    """

    def __init__(self, config: ModelConfig, *, init_seed: int = 0) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab, config.d_model)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.final_norm = RMSNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.vocab, bias=False)
        cos, sin = rope_tables(config.d_head, config.max_len, config.rope_base)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        init_shared(self, init_seed)

    def forward(self, tokens: torch.Tensor, *, trace: bool = False):
        if tokens.shape[-1] > self.config.max_len:
            raise ValueError(f"sequence length {tokens.shape[-1]} exceeds max_len")
        x = self.embed(tokens)  # (B, T, d)
        traces = []
        for block in self.blocks:
            x, layer_trace = block(x, self.rope_cos, self.rope_sin, trace=trace)
            traces.append(layer_trace)
        logits = self.head(self.final_norm(x))  # (B, T, vocab)
        return (logits, traces) if trace else logits


def init_shared(model: nn.Module, seed: int) -> None:
    """Initialise every matrix N(0, 0.02) from a generator seeded by (seed, parameter name), so
    parameters with the same name and shape start identical in every arm (shared initialisation);
    norm weights start at 1 and gate biases at 0.

    Parameters
    ----------
    model : torch.nn.Module
        The model, initialised in place.
    seed : int
        The initialisation seed shared by the arms.

    Returns
    -------
    None
        ``model``'s matrices are overwritten.

    Examples
    --------
    >>> import torch
    >>> from neural.gated_attention import GatedLM, ModelConfig, init_shared, matched_config
    >>> base = ModelConfig(vocab=16, d_model=8, n_heads=2, d_ffn=16)
    >>> baseline, gated = GatedLM(base), GatedLM(matched_config(base, "headwise"))
    >>> init_shared(baseline, seed=3)
    >>> init_shared(gated, seed=3)
    >>> torch.equal(baseline.embed.weight, gated.embed.weight)  # same name and shape
    True
    >>> round(float(baseline.head.weight.detach().std()), 2)  # INIT_STD
    0.02
    """
    for name, param in model.named_parameters():
        if param.dim() < 2:
            continue
        generator = torch.Generator().manual_seed(seed * 1_000_003 + zlib.crc32(name.encode()))
        with torch.no_grad():
            param.copy_(torch.randn(param.shape, generator=generator) * INIT_STD)
