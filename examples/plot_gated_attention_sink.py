"""
An attention sink forms without a gate, not with one (gated attention)
======================================================================

"Gated Attention for Large Language Models" (Qiu et al., NeurIPS 2025): a sigmoid gate on each
head's attention output, computed from the query token's own state, removes the *attention
sink*, the large attention weight that heads put on the first token. Two tiny one-layer,
one-head decoders (:class:`neural.gated_attention.GatedLM`, parameter-matched) are trained on
the Bigram-Backcopy task by :func:`neural.gated_training.train_run`: the baseline and the G1
elementwise gate. F-Attn, the mean attention weight of queries on token 0, is measured on a
held-out batch along the way and set against its value under uniform causal attention,
(H_T − 1)/(T − 1) (:func:`neural.attention_metrics.uniform_first_token_weight`). At these sizes
(2000 steps of 8 sequences, about 12 CPU-seconds each) one seed shows it; the
claims of docs/gated_attention.md train longer, over paired seeds.
"""

import matplotlib.pyplot as plt

from neural.attention_metrics import uniform_first_token_weight
from neural.gated_training import RunSettings, train_run
from paper_checks.plotting import THEORY, style

sizes = {
    "task": "backcopy",
    "lr": 2e-2,
    "steps": 2000,
    "batch": 8,
    "seq_len": 32,
    "d_model": 32,
    "n_layers": 1,
    "n_heads": 1,
    "d_ffn": 88,
    "eval_every": 250,
}
runs = {
    gate: train_run(RunSettings(gate=gate, **sizes), seeds=(0, 1, 2))
    for gate in ("none", "elementwise")
}
uniform = uniform_first_token_weight(sizes["seq_len"])
for gate, run in runs.items():
    final = run["final"]
    print(
        f"{gate}: F-Attn {final['f_attn']:.3f} = {final['f_attn_over_uniform']:.1f}× uniform; "
        f"val loss {final['val_loss']:.3f} (floor {run['loss_floor']:.3f})"
    )

# %%
# F-Attn over training, in units of its value under uniform causal attention (black: 1).

with style():
    fig, ax = plt.subplots(figsize=(4.8, 3.6), layout="constrained")
    for gate, label in (("none", "baseline (no gate)"), ("elementwise", "G1 elementwise gate")):
        steps = [point["step"] for point in runs[gate]["trajectory"]]
        ratio = [point["f_attn"] / uniform for point in runs[gate]["trajectory"]]
        ax.plot(steps, ratio, "o-", ms=3.5, label=label)
    ax.axhline(1.0, color=THEORY, lw=1, label=f"uniform attention: {uniform:.3f}")
    ax.set(
        yscale="log",
        xlabel="training step",
        ylabel="F-Attn / uniform",
        title=f"T = {sizes['seq_len']}, d = {sizes['d_model']}, one head",
    )
    ax.legend(fontsize="small")
