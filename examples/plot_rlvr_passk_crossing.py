"""
A pass@k crossing with bootstrap intervals (RLVR)
=================================================

"Does Reinforcement Learning Really Incentivize Reasoning Capacity in LLMs Beyond the Base
Model?" (Yue et al., NeurIPS 2025): the RL-trained model wins at pass@1 but the base model
overtakes it at large k. A minimal model of this: each problem's base success probability is
p ~ Beta(0.3, 1.5), and RL sharpens it to q = σ(α·logit p + β). The dataset pass@k of both is
closed form or one quadrature (:func:`theory.passk.beta_pass_at_k`,
:func:`theory.passk.beta_logit_affine_pass_at_k`), and :func:`theory.passk.crossing_k` finds
the k* where they cross. Below, 400 problems are drawn, 256 samples of each model per problem,
and :func:`sims.bootstrap.bootstrap_pass_at_k` gives the unbiased pass@k curves with paired
bootstrap intervals over problems, and an interval for k*. This is one draw of problems: over
draws, the interval covers the theory's k* about as often as its level says; the line printed
says whether this one does.
"""

import matplotlib.pyplot as plt
import numpy as np

from paper_checks.plotting import THEORY, plot_bands, style
from sims.bootstrap import bootstrap_pass_at_k
from theory import passk

a, b, alpha, beta = 0.3, 1.5, 2.0, 2.0
ks = 2 ** np.arange(9)
base_theory = passk.beta_pass_at_k(a, b, ks)
rl_theory = passk.beta_logit_affine_pass_at_k(a, b, alpha, beta, ks)
k_star = passk.crossing_k(ks, base_theory, rl_theory).k_star

rng = np.random.default_rng(0)
problems, samples = 400, 256
p = rng.beta(a, b, problems)
q = 1 / (1 + np.exp(-(alpha * np.log(p / (1 - p)) + beta)))
n = np.full(problems, samples)
c = [rng.binomial(samples, p), rng.binomial(samples, q)]
boot = bootstrap_pass_at_k([n, n], c, ks, rng=1, n_boot=2000)
print(
    f"theory k* = {k_star:.2f}; measured k* = {boot.crossing[0].k_star:.2f}, "
    f"95% interval [{boot.k_star_low[0]:.2f}, {boot.k_star_high[0]:.2f}] "
    f"(share of draws that cross: {boot.crossing_share[0]:.3f}; covers the theory's k*: "
    f"{boot.k_star_low[0] <= k_star <= boot.k_star_high[0]})"
)

# %%
# Measured curves with their 95% bands (colours), theory (black), and the theory's k*.

with style():
    fig, ax = plt.subplots(figsize=(5.0, 3.6), layout="constrained")
    curves = {
        label: (boot.estimate[m], boot.low[m], boot.high[m])
        for m, label in enumerate(("base (measured)", "RL (measured)"))
    }
    plot_bands(ks, curves, ax=ax)
    ax.plot(ks, base_theory, color=THEORY, lw=1, label="base (theory)")
    ax.plot(ks, rl_theory, color=THEORY, lw=1, ls="--", label="RL (theory)")
    ax.axvline(k_star, color="0.4", ls=":", lw=1, label=f"k* = {k_star:.2f} (theory)")
    ax.axvspan(
        boot.k_star_low[0], boot.k_star_high[0], color="0.85", zorder=0, label="k* 95% interval"
    )
    ax.set(xlabel="k", ylabel="pass@k", title=f"{problems} problems, {samples} samples each")
    ax.legend(fontsize="small")
