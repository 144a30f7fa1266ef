"""Measurements of attention sinks, massive activations and gate sparsity (Qiu et al. 2025,
arXiv 2505.06708: Table 4, Fig. 2, §4.3 and appendix A.3-A.4; our exact definitions are in
docs/gated_attention.md).

All functions take numpy arrays (use :func:`traces_to_numpy` on the model's traces).

* **F-Attn**: the softmax weight a query puts on key 0, averaged over queries 1..T−1 (query 0 can
  only attend to itself and is excluded), batch and heads, then over layers. Reported beside the
  uniform-attention value (H_T − 1)/(T − 1), per (layer, head), with the largest head and the
  "sink rate" of Gu et al. 2024 (share of heads whose first-token weight exceeds 0.3).
* **M-Act**: for each layer, max |residual stream| over tokens and channels; also max/median.
* **Gate statistics**: mean gate per layer, a histogram on [0, 1], the share of gate values below
  0.1, and the share of gated SDPA outputs |Y ⊙ g| below 1e-2 against the control Y · mean(g).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theory import _domain

__all__ = [
    "GATE_BINS",
    "SINK_HEAD_THRESHOLD",
    "SMALL_GATE",
    "SMALL_OUTPUT",
    "first_token_attention",
    "gate_summary",
    "massive_activation_summary",
    "measure",
    "sink_summary",
    "traces_to_numpy",
    "uniform_first_token_weight",
]

#: A head "has a sink" when its first-token weight exceeds this (Gu et al. 2024, arXiv 2410.10781).
SINK_HEAD_THRESHOLD = 0.3
#: Edges of the gate-value histogram: 20 bins of width 0.05 on [0, 1].
GATE_BINS = np.linspace(0.0, 1.0, 21)
#: A gate value below this counts as small (the share of gate values below 0.1).
SMALL_GATE = 0.1
#: A gated SDPA output |Y ⊙ g| below this counts as small (appendix A.3).
SMALL_OUTPUT = 1e-2


def uniform_first_token_weight(seq_len: int) -> float:
    """Mean weight on key 0 over queries 1..T−1 under uniform causal attention:
    (1/(T−1)) Σ_{i=1}^{T−1} 1/(i+1) = (H_T − 1)/(T − 1); 0.059 at T = 64, 0.0201 at T = 256.

    Parameters
    ----------
    seq_len : int
        T, the sequence length, at least 2.

    Returns
    -------
    float
        (H_T − 1)/(T − 1), with H_T the T-th harmonic number.

    Raises
    ------
    ValueError
        Unless ``seq_len`` is an integer ≥ 2.

    Examples
    --------
    >>> from neural.attention_metrics import uniform_first_token_weight
    >>> round(uniform_first_token_weight(3), 6)  # (1/2 + 1/3)/2
    0.416667
    >>> round(uniform_first_token_weight(64), 4)
    0.0594
    """
    _domain.integer("seq_len", seq_len, minimum=2)
    harmonic = np.sum(1.0 / np.arange(1, seq_len + 1))
    return float((harmonic - 1.0) / (seq_len - 1))


def first_token_attention(attn: np.ndarray) -> np.ndarray:
    """Per-head first-token weight of one layer's attention (B, h, T, T): mean over batch and
    queries 1..T−1 of A[b, head, i, 0], shape (h,).

    Parameters
    ----------
    attn : numpy.ndarray of float, (B, h, T, T)
        One layer's attention weights (rows: queries; columns: keys), T ≥ 2.

    Returns
    -------
    numpy.ndarray of float, (h,)
        The mean weight each head puts on key 0 over batch and queries 1..T−1.

    Raises
    ------
    ValueError
        Unless ``attn`` has shape (B, h, T, T) with T ≥ 2.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.attention_metrics import first_token_attention
    >>> attn = np.array([[[[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.4, 0.4]]]])  # (1, 1, 3, 3)
    >>> first_token_attention(attn).round(6).tolist()  # (0.5 + 0.2)/2
    [0.35]
    """
    if attn.ndim != 4 or attn.shape[-1] != attn.shape[-2] or attn.shape[-1] < 2:
        raise ValueError(f"attn must have shape (B, h, T, T) with T ≥ 2 (got {attn.shape})")
    return attn[:, :, 1:, 0].mean(axis=(0, 2))


def sink_summary(first_token: np.ndarray, seq_len: int) -> dict[str, Any]:
    """F-Attn numbers from the (layers, heads) first-token weights: the mean (Table 4's F-Attn),
    the per-layer curve (Fig. 2), the largest head, the sink rate and the uniform reference.

    Parameters
    ----------
    first_token : numpy.ndarray of float, (L, h)
        The first-token weight of every (layer, head), rows from :func:`first_token_attention`.
    seq_len : int
        T, the sequence length the weights were measured at (for the uniform reference).

    Returns
    -------
    dict
        ``f_attn`` (float, the mean), ``f_attn_per_layer`` (array (L,)), ``f_attn_per_head``
        (the input as an array (L, h)), ``f_attn_max_head`` (float), ``sink_rate`` (float, share
        of heads above :data:`SINK_HEAD_THRESHOLD`), ``uniform`` (float,
        :func:`uniform_first_token_weight` of T) and ``f_attn_over_uniform`` (float).

    Examples
    --------
    >>> import numpy as np
    >>> from neural.attention_metrics import sink_summary
    >>> s = sink_summary(np.array([[0.9, 0.1], [0.5, 0.2]]), seq_len=3)
    >>> round(s["f_attn"], 6), s["f_attn_per_layer"].round(6).tolist(), s["sink_rate"]
    (0.425, [0.5, 0.35], 0.5)
    >>> round(s["f_attn_over_uniform"], 6)  # 0.425 / (5/12)
    1.02
    """
    first_token = np.asarray(first_token, dtype=float)
    uniform = uniform_first_token_weight(seq_len)
    return {
        "f_attn": float(first_token.mean()),
        "f_attn_per_layer": first_token.mean(axis=1),
        "f_attn_per_head": first_token,
        "f_attn_max_head": float(first_token.max()),
        "sink_rate": float(np.mean(first_token > SINK_HEAD_THRESHOLD)),
        "uniform": uniform,
        "f_attn_over_uniform": float(first_token.mean() / uniform),
    }


def massive_activation_summary(residuals: Sequence[np.ndarray]) -> dict[str, Any]:
    """M-Act from each layer's output residual stream (B, T, d): max |x| per layer and their mean
    (Table 4), and max/median |x| per layer (more telling at tiny scale, where no activation is
    truly massive).

    Parameters
    ----------
    residuals : sequence of numpy.ndarray of float, each (B, T, d)
        The residual stream each layer outputs.

    Returns
    -------
    dict
        ``m_act`` (float, the mean over layers of max |x|), ``m_act_per_layer`` (array (L,)),
        ``max_over_median_per_layer`` (array (L,)) and ``max_over_median`` (float, their mean).

    Examples
    --------
    >>> import numpy as np
    >>> from neural.attention_metrics import massive_activation_summary
    >>> m = massive_activation_summary([np.array([[[1.0, -4.0], [2.0, 0.5]]])])
    >>> m["m_act"], round(m["max_over_median"], 6)  # 4 / median(0.5, 1, 2, 4) = 4/1.5
    (4.0, 2.666667)
    """
    maxima = np.array([np.abs(r).max() for r in residuals], dtype=float)
    medians = np.array([np.median(np.abs(r)) for r in residuals], dtype=float)
    return {
        "m_act": float(maxima.mean()),
        "m_act_per_layer": maxima,
        "max_over_median_per_layer": maxima / medians,
        "max_over_median": float(np.mean(maxima / medians)),
    }


def gate_summary(
    gates: Sequence[np.ndarray], ungated: Sequence[np.ndarray] | None = None
) -> dict[str, Any]:
    """Gate statistics from each layer's gate values and the SDPA output they multiply.

    ``gates[l]`` is (B, T, h, d_k) or (B, T, h, 1) (broadcast over d_k); ``ungated[l]`` is the
    SDPA output Y (B, T, h, d_k). Returns the mean gate (per layer and over layers), the histogram
    of gate values on :data:`GATE_BINS` (densities summing to 1) and the share below 0.1; with
    ``ungated`` (G1 gates only) also the share of |Y ⊙ g| < 1e-2 beside the share of
    |Y · mean(g)| < 1e-2 (a scalar control of ours: the real gate is sparser when the first
    exceeds the second) and the mean |Y| before and after the gate (A.3: 0.71 → 0.05).

    Parameters
    ----------
    gates : sequence of numpy.ndarray of float
        Each layer's gate values, (B, T, h, d_k), (B, T, h, 1) or (for G2/G5) (B, T, channels).
    ungated : sequence of numpy.ndarray of float, each (B, T, h, d_k), optional
        Each layer's SDPA output Y before the gate (per-head gates only); None (the default)
        skips the output statistics.

    Returns
    -------
    dict
        ``gate_mean`` (float), ``gate_mean_per_layer`` (array (L,)), ``gate_hist`` (array (20,),
        summing to 1) and ``gate_below_0.1`` (float); with ``ungated`` also
        ``gated_output_below_1e-2``, ``mean_gate_control_below_1e-2``, ``mean_abs_ungated`` and
        ``mean_abs_gated`` (floats).

    Raises
    ------
    ValueError
        If ``ungated`` and ``gates`` list different numbers of layers.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.attention_metrics import gate_summary
    >>> gates = [np.full((1, 2, 1, 2), 0.05), np.full((1, 2, 1, 2), 0.5)]
    >>> g = gate_summary(gates)
    >>> round(g["gate_mean"], 6), g["gate_below_0.1"], float(g["gate_hist"].sum())
    (0.275, 0.5, 1.0)
    >>> ungated = [np.full((1, 2, 1, 2), 0.1), np.full((1, 2, 1, 2), 0.1)]
    >>> g = gate_summary(gates, ungated)  # |0.1·0.05| < 1e-2 < |0.1·0.5|
    >>> g["gated_output_below_1e-2"], round(g["mean_abs_gated"], 6)
    (0.5, 0.0275)
    """
    per_layer = np.array([g.mean() for g in gates], dtype=float)
    values = np.concatenate([g.ravel() for g in gates])
    hist = np.histogram(np.clip(values, 0.0, 1.0), bins=GATE_BINS)[0] / values.size
    result = {
        "gate_mean": float(per_layer.mean()),
        "gate_mean_per_layer": per_layer,
        "gate_hist": hist,
        "gate_below_0.1": float(np.mean(values < SMALL_GATE)),
    }
    if ungated is None:
        return result
    pairs = list(zip(ungated, gates, strict=True))  # a headwise gate broadcasts over d_k
    gated_small = np.concatenate([(np.abs(y * g) < SMALL_OUTPUT).ravel() for y, g in pairs])
    control_small = np.concatenate(
        [(np.abs(y * g.mean()) < SMALL_OUTPUT).ravel() for y, g in pairs]
    )
    return result | {
        "gated_output_below_1e-2": float(gated_small.mean()),
        "mean_gate_control_below_1e-2": float(control_small.mean()),
        "mean_abs_ungated": float(np.mean([np.abs(y).mean() for y, _ in pairs])),
        "mean_abs_gated": float(np.mean([np.abs(y * g).mean() for y, g in pairs])),
    }


def traces_to_numpy(traces: Sequence[Any]) -> dict[str, list[np.ndarray]]:
    """Detach the model's per-layer traces into numpy lists keyed ``attn``, ``gate`` (absent
    without a gate), ``ungated`` and ``residual``.

    Parameters
    ----------
    traces : sequence of neural.gated_attention.LayerTrace
        One trace per layer, as ``GatedLM(...)(tokens, trace=True)`` returns them (any objects
        with tensor attributes ``attn``, ``gate`` (or None), ``ungated`` and ``residual``).

    Returns
    -------
    dict of str to list of numpy.ndarray
        Float64 copies of each layer's tensors, per key (``gate`` empty without a gate).

    Examples
    --------
    >>> import torch
    >>> from neural.attention_metrics import traces_to_numpy
    >>> from neural.gated_attention import GatedLM, ModelConfig
    >>> config = ModelConfig(vocab=8, d_model=8, n_layers=1, n_heads=2, d_ffn=8, max_len=4)
    >>> _, traces = GatedLM(config)(torch.tensor([[1, 2, 3, 4]]), trace=True)
    >>> arrays = traces_to_numpy(traces)
    >>> {key: [a.shape for a in values] for key, values in arrays.items()}
    {'attn': [(1, 2, 4, 4)], 'gate': [], 'ungated': [(1, 4, 2, 4)], 'residual': [(1, 4, 8)]}
    """
    out: dict[str, list[np.ndarray]] = {"attn": [], "gate": [], "ungated": [], "residual": []}
    for trace in traces:
        for key, values in out.items():
            value = getattr(trace, key)
            if value is not None:
                values.append(value.detach().cpu().double().numpy())
    return out


def measure(traces: Sequence[Any], seq_len: int) -> dict[str, Any]:
    """Every measurement of one evaluation batch: sink, massive activations and, with a gate,
    gate statistics (the output sparsity only where the gate multiplies the SDPA output per head,
    i.e. G1 and its controls; G2 and G5 gates are (B, T, channels)).

    Parameters
    ----------
    traces : sequence of neural.gated_attention.LayerTrace
        One trace per layer of one evaluation batch (``GatedLM(...)(tokens, trace=True)``).
    seq_len : int
        T, the batch's sequence length (for the uniform reference of F-Attn).

    Returns
    -------
    dict
        The entries of :func:`sink_summary` and :func:`massive_activation_summary`, and with a
        gate those of :func:`gate_summary`.

    Examples
    --------
    >>> import torch
    >>> from neural.attention_metrics import measure
    >>> from neural.gated_attention import GatedLM, ModelConfig
    >>> config = ModelConfig(
    ...     vocab=8, d_model=8, n_layers=1, n_heads=2, d_ffn=8, max_len=4, gate="headwise"
    ... )
    >>> _, traces = GatedLM(config)(torch.tensor([[1, 2, 3, 4]]), trace=True)
    >>> result = measure(traces, seq_len=4)
    >>> round(result["uniform"], 6)  # (1/2 + 1/3 + 1/4)/3
    0.361111
    >>> "gated_output_below_1e-2" in result, 0.0 < result["gate_mean"] < 1.0
    (True, True)
    """
    arrays = traces_to_numpy(traces)
    first = np.stack([first_token_attention(a) for a in arrays["attn"]])  # (L, h)
    result = sink_summary(first, seq_len) | massive_activation_summary(arrays["residual"])
    gates = arrays["gate"]
    if gates:
        per_head = all(g.ndim == 4 for g in gates)
        result |= gate_summary(gates, arrays["ungated"] if per_head else None)
    return result
