"""
Signal growth with depth at initialisation (deep CRL)
=====================================================

"1000 Layer Networks for Self-Supervised RL" (Wang et al., NeurIPS 2025) scales contrastive RL
critics to hundreds of layers with residual connections and LayerNorm. Without the residual
connections, each Dense → LayerNorm → Swish layer multiplies a small perturbation by about
√(E[φ′(z)²]/E[φ(z)²]) (our derivation, docs/deep_crl.md), so the input-Jacobian gain of the
embedding grows as exp(rate·D) with the exact rate
:func:`theory.deep_crl.no_residual_log_gain_per_layer`. :func:`neural.deep_crl.signal_at_init`
measures the gain of freshly initialised critics (width 128, two seeds per depth: the gain
varies several-fold from seed to seed) with and without residual connections; the growth rate
is read from D = 64 to 256, past the shallow transient, as the claim
``deep_crl.signal_propagation`` reads it over more seeds.
"""

import matplotlib.pyplot as plt
import numpy as np

from neural.deep_crl import VARIANTS, signal_at_init
from paper_checks.plotting import THEORY, style
from theory.deep_crl import no_residual_log_gain_per_layer

depths = np.array([32, 64, 128, 256])
rate = no_residual_log_gain_per_layer()
gain = {
    name: np.array(
        [
            np.exp(
                np.mean(
                    [
                        np.log(
                            signal_at_init(
                                VARIANTS[name], int(d), 128, np.random.default_rng(seed)
                            )["jacobian_gain"]
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
measured = np.log(gain["no_res"][-1] / gain["no_res"][1]) / (depths[-1] - depths[1])
print(f"no residuals: log-gain per layer from D = 64 to 256 {measured:.4f}, theory {rate:.4f}")

# %%
# Measured gains (markers; geometric means over the seeds) and the theory's exp(rate·D) through
# the no-residual gain at D = 64: on a log axis against D, a straight line.

with style():
    fig, ax = plt.subplots(figsize=(4.8, 3.6), layout="constrained")
    ax.plot(depths, gain["no_res"], "o", label="no residual connections")
    ax.plot(depths, gain["paper"], "s", label="the paper's block (residual + LN)")
    ax.plot(
        depths,
        gain["no_res"][1] * np.exp(rate * (depths - depths[1])),
        color=THEORY,
        lw=1,
        label=f"exp(rate·D), rate = {rate:.4f} (theory)",
    )
    ax.set(
        yscale="log",
        xlabel="depth D (layers)",
        ylabel="input-Jacobian gain ‖J v‖",
        title="critics at initialisation, width 128",
    )
    ax.legend(fontsize="small")
