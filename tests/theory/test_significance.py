"""Family-wise critical values: the one-test limit, the error rate they promise, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from theory.significance import (
    binomial_se_percent,
    curve_z_test,
    family_wise_t_critical,
    worst_tolerance_ratio,
)


def test_one_test_with_many_degrees_of_freedom_is_three_sigma():
    assert family_wise_t_critical(10**7, 1) == pytest.approx(3.0, abs=1e-3)


def test_the_critical_value_grows_with_the_family_and_shrinks_with_dof():
    assert family_wise_t_critical(19, 50) > family_wise_t_critical(19, 1)
    assert family_wise_t_critical(5, 50) > family_wise_t_critical(39, 50)


def test_family_wise_error_of_independent_null_tests_is_at_most_alpha():
    rng = np.random.default_rng(7)
    dof, n_tests, alpha, families = 19, 50, 0.05, 20_000
    t = stats.t.rvs(dof, size=(families, n_tests), random_state=rng)
    rate = np.mean(np.abs(t).max(axis=1) > family_wise_t_critical(dof, n_tests, alpha))
    # Bonferroni on independent tests: 1 − (1 − α/50)^50 ≈ 0.0488; 4 binomial s.e. above it
    bound = 1 - (1 - alpha / n_tests) ** n_tests
    assert rate <= bound + 4 * np.sqrt(bound * (1 - bound) / families)
    assert rate >= bound - 4 * np.sqrt(bound * (1 - bound) / families)


@pytest.mark.parametrize(
    ("dof", "n", "alpha"), [(0, 5, 0.01), (5, 0, 0.01), (5, 5, 0.0), (5, 5, 1.0)]
)
def test_bad_input_names_the_argument(dof, n, alpha):
    with pytest.raises(ValueError, match=r"^(dof|n_tests|alpha) must"):
        family_wise_t_critical(dof, n, alpha)


def test_binomial_se_percent_is_the_binomial_standard_error():
    assert binomial_se_percent([50.0, 0.0, 100.0], 100).tolist() == [5.0, 0.0, 0.0]
    assert binomial_se_percent(10.0, 400) == pytest.approx(100 * np.sqrt(0.1 * 0.9 / 400))


def test_worst_tolerance_ratio_is_the_largest_ratio_over_every_gate():
    gates = (([1.0, 2.5], [1.0, 2.0], [1.0, 0.25]), (0.13, 0.12, 0.02), ([0.5], 0.5, 1.0))
    assert worst_tolerance_ratio(*gates) == pytest.approx(2.0)
    assert worst_tolerance_ratio(gates[1]) == pytest.approx(0.5)
    assert worst_tolerance_ratio(gates[2]) == 0.0


def test_curve_z_test_of_samples_around_the_theory():
    rng = np.random.default_rng(3)
    theory = np.linspace(0.0, 1.0, 20)
    samples = theory + rng.normal(scale=0.1, size=(40, 20))
    test = curve_z_test(samples, theory)
    assert np.allclose(test.mean, samples.mean(axis=0))
    assert np.allclose(test.se, samples.std(axis=0, ddof=1) / np.sqrt(40))
    assert test.critical == family_wise_t_critical(39, 20)
    assert test.max_abs_z == pytest.approx(np.max(np.abs(test.z)))
    assert test.passed
    assert not curve_z_test(samples, theory + 0.1).passed
