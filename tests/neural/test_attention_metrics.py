"""F-Attn, M-Act and gate statistics against hand-made inputs and the naive loops."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neural.attention_metrics import (
    GATE_BINS,
    first_token_attention,
    gate_summary,
    massive_activation_summary,
    sink_summary,
    uniform_first_token_weight,
)
from tests.naive import f_attn_naive


def _uniform_causal(b: int, h: int, t: int) -> np.ndarray:
    mask = np.tril(np.ones((t, t)))
    return np.broadcast_to(mask / mask.sum(-1, keepdims=True), (b, h, t, t)).copy()


def test_uniform_reference_values_of_the_spec():
    """(H_T − 1)/(T − 1) = 0.059 at T = 64 (docs/gated_attention.md); at T = 256 it is 0.0201,
    not 0.021 (H_256 = 6.1243)."""
    assert round(uniform_first_token_weight(64), 3) == 0.059
    assert round(uniform_first_token_weight(256), 4) == 0.0201
    with pytest.raises(ValueError, match="seq_len"):
        uniform_first_token_weight(1)


@given(t=st.integers(2, 40))
def test_uniform_attention_measures_the_uniform_reference(t):
    attn = _uniform_causal(2, 3, t)
    np.testing.assert_allclose(first_token_attention(attn), uniform_first_token_weight(t))


@settings(max_examples=30)
@given(layers=st.integers(1, 3), h=st.integers(1, 3), t=st.integers(2, 8), seed=st.integers(0, 999))
def test_f_attn_matches_the_naive_loops_and_excludes_query_zero(layers, h, t, seed):
    rng = np.random.default_rng(seed)
    attn = [np.tril(rng.random((2, h, t, t))) for _ in range(layers)]
    attn = [a / a.sum(-1, keepdims=True) for a in attn]  # row 0 puts all weight on key 0
    first = np.stack([first_token_attention(a) for a in attn])
    summary = sink_summary(first, t)
    assert summary["f_attn"] == pytest.approx(f_attn_naive(attn))
    assert summary["f_attn_max_head"] == pytest.approx(first.max())
    assert summary["f_attn_per_layer"].shape == (layers,)


def test_sink_rate_counts_heads_above_three_tenths():
    first = np.array([[0.9, 0.05], [0.31, 0.29]])
    summary = sink_summary(first, seq_len=64)
    assert summary["sink_rate"] == 0.5
    assert summary["f_attn_over_uniform"] == pytest.approx(first.mean() / 0.05941, rel=1e-3)


def test_first_token_attention_rejects_bad_shapes():
    with pytest.raises(ValueError, match="attn"):
        first_token_attention(np.ones((2, 3, 4)))


def test_massive_activation_per_layer():
    residual = np.ones((2, 3, 4))
    spiky = residual.copy()
    spiky[1, 2, 3] = -50.0
    summary = massive_activation_summary([residual, spiky])
    np.testing.assert_allclose(summary["m_act_per_layer"], [1.0, 50.0])
    assert summary["m_act"] == 25.5
    np.testing.assert_allclose(summary["max_over_median_per_layer"], [1.0, 50.0])


def test_gate_summary_elementwise_and_headwise():
    rng = np.random.default_rng(0)
    y = rng.normal(size=(2, 5, 2, 4))  # (B, T, h, d_k)
    elementwise = np.where(rng.random(y.shape) < 0.7, 0.001, 0.9)
    headwise = np.full((2, 5, 2, 1), 0.25)
    summary = gate_summary([elementwise, headwise], [y, y])
    assert summary["gate_mean"] == pytest.approx((elementwise.mean() + 0.25) / 2)
    assert summary["gate_hist"].sum() == pytest.approx(1.0)
    assert len(summary["gate_hist"]) == len(GATE_BINS) - 1
    share_small = ((elementwise < 0.1).sum()) / (elementwise.size + headwise.size)
    assert summary["gate_below_0.1"] == pytest.approx(share_small)
    gated = np.concatenate(
        [(np.abs(y * elementwise) < 1e-2).ravel(), (np.abs(y * 0.25) < 1e-2).ravel()]
    )
    assert summary["gated_output_below_1e-2"] == pytest.approx(gated.mean())
    # the sparse elementwise gate zeroes many outputs; scaling by its mean does not
    assert summary["gated_output_below_1e-2"] > summary["mean_gate_control_below_1e-2"]
    assert summary["mean_abs_gated"] < summary["mean_abs_ungated"]
