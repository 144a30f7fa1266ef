"""
Random-feature spectrum (diffusion)
===================================

placeholder
"""

import matplotlib.pyplot as plt

plt.plot([1, 2, 3])
