"""
M_tr against Ldim over a census of classes (online)
===================================================

Transductive online learning (Chase, Hanneke, Moran, Shafer, NeurIPS 2025): the learner sees the
sequence of points in advance, and M_tr(H), the optimal number of mistakes, can be smaller than
the Littlestone dimension Ldim(H) but, by Ben-David, Kushilevitz and Mansour (BKM97), never below
(2/3)·Ldim on the classes built from their gadget W. :func:`theory.online.census.census`
tabulates Ldim and M_tr *exactly* for every one of the 65,535 nonempty classes on 4 points; the
gadget powers W^k (:func:`theory.online.constructions.gadget_power`, solved by
:func:`theory.online.dims.littlestone_dim` and :func:`theory.online.mtr.transductive_mistake_bound`)
sit on the 2/3 line.
"""

import matplotlib.pyplot as plt
import numpy as np

from paper_checks.plotting import THEORY, style
from theory.online.census import census
from theory.online.constructions import gadget_power
from theory.online.dims import littlestone_dim
from theory.online.mtr import transductive_mistake_bound

table = census(4)
pairs = table.pairs()
print(f"{sum(pairs.values()):,} classes; pairs with M_tr < Ldim: {table.gaps()}")
gadget = [
    (littlestone_dim(W), transductive_mistake_bound(W).value) for W in map(gadget_power, (1, 2, 3))
]
print("W^k for k = 1, 2, 3: (Ldim, M_tr) =", gadget)

# %%
# One marker per (Ldim, M_tr) pair, its area growing with the number of classes there; the
# classes with a gap (M_tr < Ldim) in orange.

with style():
    fig, ax = plt.subplots(figsize=(4.6, 3.6), layout="constrained")
    for (ld, mt), count in sorted(pairs.items()):
        ax.scatter(ld, mt, s=30 + 60 * np.log10(count), color="C1" if mt < ld else "C0", zorder=3)
        ax.annotate(
            f"{count:,}",
            (ld, mt),
            textcoords="offset points",
            xytext=(0, 9),
            ha="center",
            fontsize=7,
        )
    ax.plot(*zip(*gadget, strict=True), "s", color="C3", ms=6, label="W^k, k = 1, 2, 3 (exact)")
    ld = np.array([0, 9])
    ax.plot(ld, ld, color=THEORY, lw=1, label="M_tr = Ldim")
    ax.plot(ld, 2 * ld / 3, color=THEORY, lw=1, ls="--", label="M_tr = (2/3)·Ldim (BKM97)")
    ax.set(xlabel="Ldim(H)", ylabel="M_tr(H)", title="every class on 4 points, and W^k")
    ax.legend(fontsize="small", loc="upper left")
