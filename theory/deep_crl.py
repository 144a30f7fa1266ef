"""Closed forms for the deep-CRL signal-propagation checks (our derivation, not the paper's; see
docs/deep_crl.md).

Without residual connections each layer Dense → LN → φ maps pre-activations z ~ N(0, 1) (after
LayerNorm) to φ(z); a small perturbation is multiplied by φ′(z) while the next LayerNorm divides
by the RMS of φ(z). The squared gain per layer is therefore ≈ E[φ′(z)²]/E[φ(z)²] (0.379/0.356 ≈
1.065 for Swish), and the input-Jacobian gain grows as exp(D·rate) with rate = ½·log of that.
"""

from __future__ import annotations

import numpy as np

from theory import _domain

__all__ = ["gaussian_mean", "no_residual_log_gain_per_layer", "swish", "swish_prime"]


def swish(z: np.ndarray) -> np.ndarray:
    """φ(z) = z·σ(z).

    Parameters
    ----------
    z : numpy.ndarray of float
        Pre-activations.

    Returns
    -------
    numpy.ndarray of float
        φ(z), the shape of ``z``.

    Raises
    ------
    ValueError
        Unless ``z`` holds finite reals.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.deep_crl import swish
    >>> swish(np.array([0.0, 1.0])).round(4)  # 1·σ(1)
    array([0.    , 0.7311])
    """
    _domain.reals("z", z, nonempty=False)
    return z / (1 + np.exp(-z))


def swish_prime(z: np.ndarray) -> np.ndarray:
    """φ′(z) = σ(z)·(1 + z·(1 − σ(z))).

    Parameters
    ----------
    z : numpy.ndarray of float
        Pre-activations.

    Returns
    -------
    numpy.ndarray of float
        φ′(z), the shape of ``z``.

    Raises
    ------
    ValueError
        Unless ``z`` holds finite reals.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.deep_crl import swish_prime
    >>> swish_prime(np.array([0.0, 1.0])).round(4)
    array([0.5   , 0.9277])
    """
    _domain.reals("z", z, nonempty=False)
    s = 1 / (1 + np.exp(-z))
    return s * (1 + z * (1 - s))


def gaussian_mean(f, n_nodes: int = 80) -> float:
    """E[f(z)] for z ~ N(0, 1) by Gauss–Hermite quadrature (probabilists' weights).

    Parameters
    ----------
    f : callable
        Vectorised function of z.
    n_nodes : int
        Gauss–Hermite nodes.

    Returns
    -------
    float
        E[f(z)].

    Raises
    ------
    ValueError
        Unless ``n_nodes`` is a positive integer.

    Examples
    --------
    >>> from theory.deep_crl import gaussian_mean
    >>> round(gaussian_mean(lambda z: z**2), 12)
    1.0
    """
    _domain.integer("n_nodes", n_nodes, minimum=1)
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    return float(np.sum(w * f(z)) / np.sqrt(2 * np.pi))


def no_residual_log_gain_per_layer() -> float:
    """rate = ½·log(E[φ′(z)²]/E[φ(z)²]) for Swish and z ~ N(0, 1): the per-layer growth of
    log ‖J v‖ in a deep Dense → LN → Swish stack without residuals (the module docstring).

    Returns
    -------
    float
        The rate, ½·log(0.379/0.356) ≈ 0.0323 per layer.

    Examples
    --------
    >>> from theory.deep_crl import no_residual_log_gain_per_layer
    >>> round(float(no_residual_log_gain_per_layer()), 4)
    0.0323
    """
    return 0.5 * np.log(
        gaussian_mean(lambda z: swish_prime(z) ** 2) / gaussian_mean(lambda z: swish(z) ** 2)
    )
