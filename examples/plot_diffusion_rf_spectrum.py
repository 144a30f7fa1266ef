"""
Random-feature spectrum over sampled eigenvalues (diffusion)
============================================================

"Why Diffusion Models Don't Memorize" (Bonnaire et al., NeurIPS 2025), Theorem 3.1: the limiting
eigenvalue density of the random-feature matrix U, with p = ψ_p·d features and n = ψ_n·d
samples, is a delta at s_t² plus bulks. :func:`theory.rmt.rf_spectrum` solves the
self-consistent equations for it (no sampling); :func:`sims.rmt.sample_ge` draws one Gaussian
equivalent of U at d = 100 and :func:`sims.rmt.ge_eigenvalues` gives its p eigenvalues. The
histogram is normalised over all p of them, as the theory is; the two panels show the bulks
near s_t² and the top bulk, which one axis cannot resolve together.
"""

import matplotlib.pyplot as plt
import numpy as np

from paper_checks.plotting import plot_spectrum_panels, style
from sims.rmt import ge_eigenvalues, sample_ge
from theory.rmt import rf_spectrum

psi_p, psi_n, t, d = 8.0, 2.0, 0.1, 100
theory = rf_spectrum(psi_p=psi_p, psi_n=psi_n, t=t)
sample = sample_ge(d, psi_p, psi_n, t, rng=np.random.default_rng(0))
values, at_s2 = ge_eigenvalues(sample)  # the min(p, n + d) computed; at_s2 more sit at s_t²

ks = theory.ks_distance(values, above=theory.delta_location * (1 + 1e-9))
print(
    f"p = {sample.p}: {at_s2} eigenvalues exactly at s_t² (share {at_s2 / sample.p:.3f}, "
    f"theory {theory.delta_mass:.3f}); KS distance above it {ks:.3f}"
)

# %%
# Theory (black) against the sampled eigenvalues (shaded).

with style():
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 3.4), layout="constrained")
    plot_spectrum_panels(theory, values, sample.p, axes)
    fig.suptitle(f"U's spectrum at ψ_p = {psi_p:g}, ψ_n = {psi_n:g}, t = {t:g}; d = {d}")
