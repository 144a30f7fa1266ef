"""The no-residual growth rate of docs/deep_crl.md (our derivation) from Gauss–Hermite
quadrature."""

from __future__ import annotations

import numpy as np
import pytest

from theory.deep_crl import gaussian_mean, no_residual_log_gain_per_layer, swish, swish_prime


def test_gaussian_moments_match_the_spec_values():
    assert gaussian_mean(lambda z: z**2) == pytest.approx(1.0, rel=1e-12)
    assert gaussian_mean(lambda z: swish_prime(z) ** 2) == pytest.approx(0.379, abs=5e-4)
    assert gaussian_mean(lambda z: swish(z) ** 2) == pytest.approx(0.356, abs=5e-4)
    assert np.exp(2 * no_residual_log_gain_per_layer()) == pytest.approx(0.379 / 0.356, abs=3e-3)


def test_swish_prime_is_the_derivative_of_swish():
    z = np.linspace(-6, 6, 101)
    numeric = (swish(z + 1e-6) - swish(z - 1e-6)) / 2e-6
    assert np.allclose(swish_prime(z), numeric, atol=1e-8)
