"""
Signal growth with depth at initialisation (deep CRL)
=====================================================

"1000 Layer Networks for Self-Supervised RL" (Wang et al., NeurIPS 2025) scales contrastive RL
critics to hundreds of layers with residual connections and LayerNorm. Without the residual
connections, each Dense → LayerNorm → Swish layer multiplies a small perturbation by about
√(E[φ′(z)²]/E[φ(z)²]) (our derivation, docs/deep_crl.md), so the input-Jacobian gain of the
embedding grows as exp(rate·D) with the exact rate
:func:`theory.deep_crl.no_residual_log_gain_per_layer`. :func:`neural.deep_crl.signal_at_init`
measures the gain of freshly initialised critics (width 64, two seeds per depth) with and
without residual connections.
"""

import matplotlib.pyplot as plt
import numpy as np

from neural.deep_crl import VARIANTS, signal_at_init
from paper_checks.plotting import THEORY, style
from theory.deep_crl import no_residual_log_gain_per_layer

depths = np.array([8, 16, 32, 64, 128])
rate = no_residual_log_gain_per_layer()
gain = {
    name: np.array(
        [
            np.exp(
                np.mean(
                    [
                        np.log(
                            signal_at_init(VARIANTS[name], int(d), 64, np.random.default_rng(seed))[
                                "jacobian_gain"
                            ]
                        )
                        for seed in range(2)
                    ]
                )
            )
            for d in depths
        ]
    )
    for name in ("no_res", "paper")
}
fitted = np.polyfit(depths, np.log(gain["no_res"]), 1)[0]
print(f"no residuals: fitted log-gain per layer {fitted:.4f}, theory {rate:.4f}")

# %%
# Measured gains (markers) and the theory's exp(rate·D) through the deepest no-residual point.

with style():
    fig, ax = plt.subplots(figsize=(4.8, 3.6), layout="constrained")
    ax.plot(depths, gain["no_res"], "o", label="no residual connections")
    ax.plot(depths, gain["paper"], "s", label="the paper's block (residual + LN)")
    ax.plot(
        depths,
        gain["no_res"][-1] * np.exp(rate * (depths - depths[-1])),
        color=THEORY,
        lw=1,
        label=f"exp(rate·D), rate = {rate:.4f} (theory)",
    )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="depth D (layers)",
        ylabel="input-Jacobian gain ‖J v‖",
        title="critics at initialisation, width 64",
    )
    ax.legend(fontsize="small")
