"""The paired percentile bootstrap of a mean."""

from __future__ import annotations

import numpy as np
import pytest

from sims.bootstrap import paired_mean_ci


def test_ci_brackets_the_mean_and_is_reproducible():
    diff = np.random.default_rng(0).normal(0.3, 1.0, size=200)
    low, high = paired_mean_ci(diff, np.random.default_rng(1), n_boot=4000, level=0.95)
    assert low < diff.mean() < high
    # the bootstrap s.e. of a mean is s/√n: the 95% width is about 2·1.96·s/√n
    assert high - low == pytest.approx(2 * 1.96 * diff.std() / np.sqrt(diff.size), rel=0.15)
    again = paired_mean_ci(diff, np.random.default_rng(1), n_boot=4000, level=0.95)
    assert again == (low, high)


def test_constant_differences_give_a_point_interval():
    assert paired_mean_ci(np.full(5, 0.25), np.random.default_rng(0), n_boot=100, level=0.9) == (
        0.25,
        0.25,
    )


def test_empty_input_is_rejected():
    with pytest.raises(ValueError, match="diff"):
        paired_mean_ci([], np.random.default_rng(0), n_boot=10, level=0.9)
