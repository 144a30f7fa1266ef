"""The gated decoder: attention paths agree, gates sit where the paper puts them, arms are
parameter-matched and share their initialisation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import given, settings
from hypothesis import strategies as st

from neural.gated_attention import (
    GATES,
    GatedLM,
    ModelConfig,
    attention_with_weights,
    count_parameters,
    gate_parameters_per_layer,
    matched_config,
)
from tests.naive import causal_attention_naive

BASE = ModelConfig(vocab=11, d_model=16, n_layers=2, n_heads=2, d_ffn=40, max_len=12)


def _tokens(seed: int = 0, batch: int = 3, length: int = 9) -> torch.Tensor:
    return torch.from_numpy(np.random.default_rng(seed).integers(0, BASE.vocab, (batch, length)))


@settings(max_examples=20, deadline=None)
@given(
    b=st.integers(1, 2),
    h=st.integers(1, 3),
    t=st.integers(1, 7),
    d=st.sampled_from([2, 4, 8]),
    seed=st.integers(0, 2**16),
)
def test_manual_softmax_attention_equals_sdpa_and_the_naive_loops(b, h, t, d, seed):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(b, h, t, d, generator=g, dtype=torch.float64) for _ in range(3))
    y, weights = attention_with_weights(q, k, v)
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(y, sdpa)
    y_naive, w_naive = causal_attention_naive(q.numpy(), k.numpy(), v.numpy())
    np.testing.assert_allclose(y.numpy(), y_naive, atol=1e-12)
    np.testing.assert_allclose(weights.numpy(), w_naive, atol=1e-12)
    np.testing.assert_allclose(weights.sum(-1).numpy(), 1.0)


@pytest.mark.parametrize("gate", GATES)
def test_trace_path_gives_the_sdpa_logits_and_is_causal(gate):
    model = GatedLM(replace(BASE, gate=gate), init_seed=1)
    tokens = _tokens()
    with torch.no_grad():
        logits = model(tokens)
        traced, traces = model(tokens, trace=True)
        changed = tokens.clone()
        changed[:, 5:] = (changed[:, 5:] + 1) % BASE.vocab
        later = model(changed)
    torch.testing.assert_close(traced, logits, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(later[:, :5], logits[:, :5], atol=1e-6, rtol=1e-6)
    assert len(traces) == BASE.n_layers
    assert traces[0].attn.shape == (3, BASE.n_heads, 9, 9)
    assert (traces[0].gate is None) == (gate == "none")
    torch.testing.assert_close(traces[-1].residual.shape, (3, 9, BASE.d_model))


@pytest.mark.parametrize(
    ("gate", "start"), [("elementwise", 0.5), ("headwise", 0.5), ("ns_sigmoid", 0.75)]
)
def test_gates_start_near_their_sigmoid_at_zero(gate, start):
    model = GatedLM(replace(BASE, gate=gate), init_seed=0)
    with torch.no_grad():
        _, traces = model(_tokens(), trace=True)
    values = torch.cat([t.gate.flatten() for t in traces])
    assert abs(values.mean().item() - start) < 0.02
    if gate == "ns_sigmoid":
        assert values.min().item() >= 0.5


def _zero_gate(model: GatedLM) -> GatedLM:
    with torch.no_grad():
        for block in model.blocks:
            block.attn.gate_proj.weight.zero_()
    return model


@pytest.mark.parametrize("gate", ["elementwise", "headwise", "g2_value", "g5_output"])
def test_a_zero_gate_halves_the_attention_branch(gate):
    """σ(0) = 1/2 wherever the gate sits (after SDPA, on V, after W_O): the model equals the
    baseline whose W_O is halved, since the branch is linear in V and in Y."""
    gated = _zero_gate(GatedLM(replace(BASE, gate=gate), init_seed=3))
    baseline = GatedLM(BASE, init_seed=3)
    with torch.no_grad():
        for block in baseline.blocks:
            block.attn.o_proj.weight.mul_(0.5)
        torch.testing.assert_close(gated(_tokens()), baseline(_tokens()), atol=1e-5, rtol=1e-5)


def test_the_gate_depends_on_the_query_token_only():
    """G1: token i's gate is σ(x_i W_θ), x_i = RMSNorm of its own input; past tokens don't move it."""
    model = GatedLM(replace(BASE, gate="elementwise"), init_seed=2)
    tokens = _tokens(length=6)
    changed = tokens.clone()
    changed[:, :5] = (changed[:, :5] + 3) % BASE.vocab
    with torch.no_grad():
        _, a = model(tokens, trace=True)
        _, b = model(changed, trace=True)
    torch.testing.assert_close(a[0].gate[:, 5], b[0].gate[:, 5])


@pytest.mark.parametrize("gate", GATES)
def test_gate_parameters_and_matching(gate):
    assert (
        count_parameters(GatedLM(BASE))
        == 2 * 11 * 16 + 2 * (4 * 16 * 16 + 3 * 16 * 40 + 32 + 2 * BASE.d_head) + 16
    )
    unmatched = count_parameters(GatedLM(replace(BASE, gate=gate)))
    baseline = count_parameters(GatedLM(BASE))
    assert unmatched - baseline == BASE.n_layers * gate_parameters_per_layer(
        replace(BASE, gate=gate)
    )
    matched = count_parameters(GatedLM(matched_config(BASE, gate)))
    assert abs(matched - baseline) <= 1.5 * BASE.d_model * BASE.n_layers


def test_table1_gate_parameter_counts():
    """Table 1 (15A2B: 24 layers, d = 2048, 32 heads of d_k = 128): +201M elementwise G1,
    +1.6M headwise G1, +100M G5 (d × d after W_O)."""
    moe = ModelConfig(vocab=2, d_model=2048, n_layers=24, n_heads=32, head_dim=128, d_ffn=1)
    added = {g: 24 * gate_parameters_per_layer(replace(moe, gate=g)) for g in GATES}
    assert round(added["elementwise"] / 1e6) == 201
    assert round(added["headwise"] / 1e6, 1) == 1.6
    assert round(added["g5_output"] / 1e6) == 101  # Table 1 prints 100M


def test_arms_share_the_initialisation_of_their_common_parameters():
    base = dict(GatedLM(BASE, init_seed=5).named_parameters())
    gated = dict(GatedLM(matched_config(BASE, "elementwise"), init_seed=5).named_parameters())
    other_seed = dict(GatedLM(BASE, init_seed=6).named_parameters())
    shared = [n for n in base if n in gated and base[n].shape == gated[n].shape]
    assert "blocks.0.attn.q_proj.weight" in shared
    assert "embed.weight" in shared
    for name in shared:
        torch.testing.assert_close(base[name], gated[name])
    assert not torch.equal(base["embed.weight"], other_seed["embed.weight"])
    assert abs(base["embed.weight"].std().item() - 0.02) < 0.003


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="gate"):
        ModelConfig(vocab=3, gate="G7")
    with pytest.raises(ValueError, match="d_model"):
        ModelConfig(vocab=3, d_model=10, n_heads=4)
    with pytest.raises(ValueError, match="even"):
        ModelConfig(vocab=3, d_model=12, n_heads=4)
    with pytest.raises(ValueError, match="n_layers"):
        ModelConfig(vocab=3, n_layers=0)
    with pytest.raises(ValueError, match="qk_norm"):
        ModelConfig(vocab=3, qk_norm=1)
    with pytest.raises(ValueError, match="d_ffn"):
        matched_config(replace(BASE, d_ffn=2), "elementwise")
    with pytest.raises(ValueError, match="max_len"):
        GatedLM(BASE)(torch.zeros(1, BASE.max_len + 1, dtype=torch.long))


@settings(max_examples=25, deadline=None)
@given(
    n_heads=st.integers(1, 4),
    half_head=st.integers(1, 6),
    n_layers=st.integers(1, 3),
    d_ffn=st.integers(40, 120),
    gate=st.sampled_from(GATES),
)
def test_matching_holds_for_any_size(n_heads, half_head, n_layers, d_ffn, gate):
    """|params(matched gated) − params(baseline)| ≤ 1.5·d per layer, and the gate's share is
    exactly gate_parameters_per_layer per layer, for any head count and size."""
    base = ModelConfig(
        vocab=5, d_model=2 * half_head * n_heads, n_layers=n_layers, n_heads=n_heads, d_ffn=d_ffn
    )
    baseline = count_parameters(GatedLM(base))
    matched = matched_config(base, gate)
    assert abs(count_parameters(GatedLM(matched)) - baseline) <= 1.5 * base.d_model * n_layers
    ffn_saved = 3 * base.d_model * (base.d_ffn - matched.d_ffn) * n_layers
    added = n_layers * gate_parameters_per_layer(matched)
    assert count_parameters(GatedLM(matched)) - baseline == added - ffn_saved


def _pre_rope_qk(model: GatedLM, layer: int = 0) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """Hook the per-head q and k of ``layer`` before and after its QK-norms."""
    seen: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
    attn = model.blocks[layer].attn
    for name in ("q_norm", "k_norm"):
        getattr(attn, name).register_forward_hook(
            lambda _m, i, out, name=name: seen.__setitem__(name, (i[0].detach(), out.detach()))
        )
    return seen


def test_qk_norm_is_on_by_default_and_gives_unit_rms_per_head_before_rope():
    """Qwen3's QK-norm: q_h and k_h have RMS 1 over d_k (weights start at 1, up to the
    ε = 1e-6 of RMSNorm: RMS = sqrt(m/(m + ε)) for the mean square m of the projection)."""
    assert ModelConfig(vocab=3).qk_norm is True
    model = GatedLM(BASE, init_seed=4)
    seen = _pre_rope_qk(model, layer=1)
    with torch.no_grad():
        model(_tokens())
    for name in ("q_norm", "k_norm"):
        before, after = seen[name]  # (B, T, h, d_k)
        assert after.shape == (3, 9, BASE.n_heads, BASE.d_head)
        m = before.double().pow(2).mean(-1)
        rms = after.double().pow(2).mean(-1).sqrt()
        torch.testing.assert_close(rms, (m / (m + 1e-6)).sqrt(), atol=1e-6, rtol=0)
        assert rms.min() > 0.99
        torch.testing.assert_close(getattr(model.blocks[1].attn, name).weight,
                                   torch.ones(BASE.d_head))  # fmt: skip


def test_qk_norm_comes_before_rope():
    """With non-unit norm weights the order matters (RoPE preserves the RMS but not the
    per-channel scaling): the attention weights are softmax(rope(norm(q)) rope(norm(k))ᵀ/√d_k)."""
    from neural.gated_attention import apply_rope

    model = GatedLM(BASE, init_seed=4)
    attn = model.blocks[0].attn
    g = torch.Generator().manual_seed(9)
    with torch.no_grad():
        attn.q_norm.weight.copy_(0.5 + torch.rand(BASE.d_head, generator=g) * 2)
        attn.k_norm.weight.copy_(0.5 + torch.rand(BASE.d_head, generator=g) * 2)
        tokens = _tokens()
        _, traces = model(tokens, trace=True)
        x = model.blocks[0].attn_norm(model.embed(tokens))
        b, t, h, dk = 3, 9, BASE.n_heads, BASE.d_head
        cos, sin = model.rope_cos[:t], model.rope_sin[:t]

        def heads(proj, norm):
            return norm(proj(x).view(b, t, h, dk)).transpose(1, 2)

        q = apply_rope(heads(attn.q_proj, attn.q_norm), cos, sin)
        k = apply_rope(heads(attn.k_proj, attn.k_norm), cos, sin)
        _, expected = attention_with_weights(q, k, q)
        torch.testing.assert_close(traces[0].attn, expected, atol=1e-6, rtol=1e-5)
        q_late = attn.q_norm(apply_rope(attn.q_proj(x).view(b, t, h, dk).transpose(1, 2), cos, sin))
        k_late = attn.k_norm(apply_rope(attn.k_proj(x).view(b, t, h, dk).transpose(1, 2), cos, sin))
        _, wrong = attention_with_weights(q_late, k_late, q_late)
        assert (traces[0].attn - wrong).abs().max() > 1e-3


@pytest.mark.parametrize(
    ("gate", "last_logits", "abs_sum"),
    [
        ("none", [-0.1047673523, -0.0773042962, -0.0229699481, -0.1093348116], 17.8214242664),
        (
            "elementwise",
            [-0.1111363918, -0.0800192133, -0.0299083665, -0.0797912776],
            18.0516140014,
        ),
    ],
)
def test_qk_norm_off_reproduces_the_model_before_issue_19(gate, last_logits, abs_sum):
    """qk_norm=False is the model of the reference runs before 2026-12-01 exactly: same
    parameters, same logits (values recorded from commit 815e2a2 for init_seed 7)."""
    config = replace(BASE, gate=gate, qk_norm=False)
    model = GatedLM(config, init_seed=7)
    assert not any("q_norm" in n or "k_norm" in n for n, _ in model.named_parameters())
    with torch.no_grad():
        out = model(_tokens()).double()
    np.testing.assert_allclose(out[0, -1, :4].numpy(), last_logits, atol=1e-7)
    assert abs(float(out.abs().sum()) - abs_sum) < 1e-5
    with_norm = GatedLM(replace(config, qk_norm=True), init_seed=7)
    with torch.no_grad():
        assert (with_norm(_tokens()).double() - out).abs().max() > 1e-3


def test_head_shared_gate_is_one_score_per_token_for_every_head():
    """Head-shared G1: σ(x_i w_θ), w_θ ∈ R^d, one scalar per token multiplying every head."""
    config = replace(BASE, gate="head_shared")
    assert gate_parameters_per_layer(config) == BASE.d_model
    model = GatedLM(config, init_seed=2)
    assert model.blocks[0].attn.gate_proj.weight.shape == (1, BASE.d_model)
    with torch.no_grad():
        _, traces = model(_tokens(), trace=True)
        x = model.blocks[0].attn_norm(model.embed(_tokens()))
        expected = torch.sigmoid(model.blocks[0].attn.gate_proj(x))  # (B, T, 1)
    gate = traces[0].gate
    assert gate.shape == (3, 9, 1, 1)
    torch.testing.assert_close(gate[..., 0, 0], expected[..., 0])
