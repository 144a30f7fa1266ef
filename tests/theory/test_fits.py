"""theory.fits: power-law fits recover exact laws, bootstrap CIs cover the truth."""

from __future__ import annotations

import math

import numpy as np
import pytest

from theory.fits import PowerLawFit, fit_power_law

N_DATASETS = 200  # coverage check: SD of the coverage estimate ≈ 0.015
N_POINTS = 40


def test_exact_power_law_is_recovered() -> None:
    x = 2.0 ** np.arange(1, 20)
    fit = fit_power_law(x, 3.5 * x**-0.7, rng=0)
    assert fit.exponent == pytest.approx(-0.7, abs=1e-12)
    assert fit.prefactor == pytest.approx(3.5, rel=1e-12)
    assert fit.r2 == pytest.approx(1.0, abs=1e-12)
    assert fit.ci_low == pytest.approx(-0.7, abs=1e-12)
    assert fit.ci_high == pytest.approx(-0.7, abs=1e-12)
    assert fit.n_points == 19
    assert fit.window is None


def test_fit_is_deterministic_for_a_seed() -> None:
    rng = np.random.default_rng(1)
    x = np.geomspace(1, 1e4, 30)
    y = x**0.5 * np.exp(rng.normal(0, 0.2, x.size))
    assert fit_power_law(x, y, rng=7) == fit_power_law(x, y, rng=7)
    assert fit_power_law(x, y, rng=7) != fit_power_law(x, y, rng=8)  # CIs differ
    no_boot = fit_power_law(x, y, n_boot=0)
    assert math.isnan(no_boot.ci_low)
    assert math.isnan(no_boot.ci_high)
    assert no_boot.exponent == fit_power_law(x, y, rng=7).exponent
    assert 0.0 < no_boot.r2 < 1.0


def test_bootstrap_ci_covers_the_truth() -> None:
    rng = np.random.default_rng(2024)
    x = np.geomspace(1, 1e3, N_POINTS)
    fits = [
        fit_power_law(x, 2.0 * x**-0.5 * np.exp(rng.normal(0, 0.3, x.size)), n_boot=400, rng=rng)
        for _ in range(N_DATASETS)
    ]
    covered = np.mean([f.ci_low <= -0.5 <= f.ci_high for f in fits])
    assert covered >= 0.88  # nominal 0.95; percentile bootstrap undercovers a little at n=40
    exponents = np.array([f.exponent for f in fits])
    assert abs(exponents.mean() + 0.5) < 3 * exponents.std() / math.sqrt(N_DATASETS)
    assert all(f.ci_low < f.exponent < f.ci_high for f in fits)


def test_window_selects_points() -> None:
    x = np.arange(1.0, 101.0)
    y = np.where(x <= 50, 5.0 * x**-1.5, 0.0)  # outside the window y is not even positive
    fit = fit_power_law(x, y, window=(10, 50), rng=0)
    assert fit.exponent == pytest.approx(-1.5, abs=1e-12)
    assert fit.prefactor == pytest.approx(5.0, rel=1e-12)
    assert fit.n_points == 41
    assert fit.window == (10.0, 50.0)
    assert isinstance(fit, PowerLawFit)


@pytest.mark.parametrize(
    ("x", "y", "kwargs", "match"),
    [
        ([1, 2, 3], [1.0, 0.0, 2.0], {}, r"y must be > 0 inside the window \(got y=0.0\)"),
        ([1, 2, 3], [1.0, -2.0, 2.0], {}, "y must be > 0"),
        ([0, 2, 3], [1.0, 2.0, 2.0], {}, "x must be > 0"),
        ([1, 2, 3, 4], [1.0, 2.0, 3.0, 4.0], {"window": (2, 3)}, "at least 3 points"),
        ([1, 2], [1.0, 2.0], {}, r"at least 3 points inside the window \(got 2\)"),
        ([2, 2, 2], [1.0, 2.0, 3.0], {}, "x must take at least 2 distinct values"),
        ([1, 2, 3], [1.0, np.nan, 2.0], {}, "y must be finite"),
        ([1, 2, 3], [1.0, 2.0], {}, "x and y must have the same length"),
        ([1, 2, 3], [1.0, 2.0, 3.0], {"window": (3, 1)}, "window must satisfy"),
        ([1, 2, 3], [1.0, 2.0, 3.0], {"window": (1,)}, r"window must be a pair \(low, high\)"),
        ([1, 2, 3], [1.0, 2.0, 3.0], {"window": (np.nan, 3)}, "window must be finite"),
        ([1, 2, 3], [1.0, 2.0, 3.0], {"n_boot": -1}, "n_boot must be an integer >= 0"),
        ([1, 2, 3], [1.0, 2.0, 3.0], {"ci": 1.0}, r"ci must be a finite real number in \(0, 1\)"),
    ],
)
def test_fit_rejects_bad_input(x, y, kwargs, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        fit_power_law(x, y, **kwargs)
