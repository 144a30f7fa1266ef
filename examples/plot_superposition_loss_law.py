"""
The width law of the loss under weak and strong superposition (superposition)
=============================================================================

"Superposition Yields Robust Neural Scaling" (Liu, Liu & Gore, NeurIPS 2025): a toy model
y = ReLU(W Wᵀx + b) with n sparse features squeezed into width m. With weight decay (γ > 0) it
keeps only the m most frequent features (weak superposition), and its loss approaches the
ideal :func:`theory.superposition.weak_ideal_loss`: the variance of the features it drops.
With the paper's growth term (γ < 0) it represents all n features in superposition (strong
superposition) and the loss falls as 1/m, whatever the feature frequencies. Eight models (four
widths, both regimes) are trained here by :func:`sims.superposition.train_models`, in one
batched stack, for 1500 Adam steps: a few seconds, not the claims' sizes. So short a run leaves
the weak models with fewer represented features than m (φ_1/2, printed, is the share of rows
with norm > 1/2), so they sit above the ideal; the strong models' slope at n = 100 is steeper
than −1. The claims of docs/superposition.md train longer, at larger n, over seeds.
"""

import matplotlib.pyplot as plt
import numpy as np

from paper_checks.plotting import THEORY, style
from sims.superposition import TrainConfig, train_models
from theory.superposition import weak_ideal_loss

n, widths = 100, (5, 10, 20, 40)
config = TrainConfig(
    n=n, widths=widths * 2, gammas=(1.0,) * 4 + (-1.0,) * 4, alpha=1.0, steps=1500, batch=128
)
result = train_models(config, rng=0)
weak, strong = result.loss[:4], result.loss[4:]
ideal = weak_ideal_loss(result.p, np.array(widths))
slope = np.polyfit(np.log(widths), np.log(strong), 1)[0]
print(
    f"weak: trained / ideal = {np.round(weak / ideal, 2).tolist()}; "
    f"strong: fitted exponent {slope:.2f} (theory −1); φ_1/2 = {result.phi_half.round(2)}"
)

# %%
# Trained losses (markers) against the weak ideal and a 1/m line through the strong models.

with style():
    fig, ax = plt.subplots(figsize=(4.8, 3.6), layout="constrained")
    m = np.array(widths)
    ax.plot(m, weak, "o", color="C0", label="weak, γ = +1 (trained)")
    ax.plot(m, ideal, color=THEORY, lw=1, label="weak ideal (theory)")
    ax.plot(m, strong, "s", color="C1", label="strong, γ = −1 (trained)")
    ax.plot(m, strong[0] * m[0] / m, color=THEORY, lw=1, ls="--", label="∝ 1/m (theory)")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="width m",
        ylabel="loss L",
        title=f"n = {n} features, p_i ∝ 1/i",
    )
    ax.legend(fontsize="small")
