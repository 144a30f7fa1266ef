"""
Distinct models among a response's nearest neighbours (Hivemind)
================================================================

"Artificial Hivemind" (Jiang et al., NeurIPS 2025), Fig. 8: pool the responses of many models
to one open-ended query, and count how many distinct models appear among each response's N
most similar responses. Two exact curves bound it: models that share nothing
(:func:`theory.hivemind.disjoint_curve`: 1 until N reaches a model's response count) and
interchangeable models whose labels carry no information about similarity
(:func:`theory.hivemind.interchangeable_curve`, a hypergeometric expectation).
:func:`theory.hivemind.distinct_model_curve` measures the curve on embeddings: i.i.d. random
unit vectors (:func:`sims.hivemind.interchangeable_curves`), models in orthogonal subspaces
(:func:`sims.hivemind.orthogonal_models`), and models whose responses share a model-specific
direction with weight w, between the two.
"""

import matplotlib.pyplot as plt
import numpy as np

from paper_checks.plotting import THEORY, style
from sims.hivemind import interchangeable_curves, orthogonal_models
from theory.hivemind import (
    disjoint_curve,
    distinct_model_curve,
    interchangeable_curve,
    normalize_rows,
)

n_models, per_model, n_max, dim = 20, 15, 60, 64
rng = np.random.default_rng(0)
labels = np.repeat(np.arange(n_models), per_model)
random_curve = interchangeable_curves(n_models, per_model, n_max, 20, rng=rng, dim=dim).mean(axis=0)
orthogonal, orth_labels = orthogonal_models(n_models, per_model, 0.5, rng)
orthogonal_curve = distinct_model_curve(orthogonal, orth_labels, n_max)
centres = normalize_rows(rng.standard_normal((n_models, dim)))
shared = {}
for w in (0.5, 0.8):
    mixed = w * centres[labels] + (1 - w) * normalize_rows(rng.standard_normal((labels.size, dim)))
    shared[w] = distinct_model_curve(normalize_rows(mixed), labels, n_max)

theory_random = interchangeable_curve([per_model] * n_models, n_max)
print(
    f"at N = {n_max}: interchangeable theory {theory_random[-1]:.2f}, "
    f"random embeddings {random_curve[-1]:.2f}; disjoint theory "
    f"{disjoint_curve(per_model, n_max)[-1]:.0f}, orthogonal models {orthogonal_curve[-1]:.0f}"
)

# %%
# Theory (black lines) and measured curves (markers).

with style():
    fig, ax = plt.subplots(figsize=(6.6, 3.6), layout="constrained")
    N = np.arange(1, n_max + 1)
    ax.plot(N, theory_random, color=THEORY, lw=1, label="interchangeable (theory)")
    ax.plot(
        N, disjoint_curve(per_model, n_max), color=THEORY, lw=1, ls="--", label="disjoint (theory)"
    )
    ax.plot(N[::3], random_curve[::3], "o", ms=3.5, mfc="none", label="random embeddings")
    ax.plot(N[::3], orthogonal_curve[::3], "s", ms=3.5, mfc="none", label="orthogonal models")
    for w, curve in shared.items():
        ax.plot(N[::3], curve[::3], "^", ms=3.5, mfc="none", label=f"shared direction, w = {w}")
    ax.set(
        xlabel="neighbours N",
        ylabel="distinct models among them",
        title=f"{n_models} models × {per_model} responses",
    )
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
