"""sims.superposition_units: the superposition sweeps' tasks, records grouped into units, the
per-unit statistics on made-up records whose answers are known, and the geometry identities."""

from __future__ import annotations

import numpy as np
import pytest

from sims import superposition_units as units
from sims.superposition import loss_and_grad
from theory import superposition as theory

WIDTHS = (6, 9, 14, 20, 30, 40)
WINDOW = (6.0, 40.0)


def records(law, tasks, n_seeds=2, n=50, kept=None, phi=None, overlap=None):
    """Made-up sweep records, seed index last-to-first: every (m, γ) model of every task gets
    loss ``law(m, alpha, gamma, density, seed)``, norms 1.5 on the rows ``kept(m)`` (all by
    default) and 0 elsewhere, φ_1/2 = ``phi(gamma, seed)`` (1 by default), φ_1 = m/100 and the
    strong rows' mean squared overlap ``overlap(m)`` (1/m by default)."""
    out = []
    for seed in reversed(range(n_seeds)):
        for task in tasks:
            models = []
            for m, g in zip(task["widths"], task["gammas"], strict=True):
                a, e = task.get("alpha", 1.0), task.get("density", 1.0)
                rows = np.arange(n) < (kept(m) if kept else n)
                models.append(
                    {
                        "m": m,
                        "gamma": g,
                        "loss": law(m, a, g, e, seed),
                        "phi_half": 1.0 if phi is None else phi(g, seed),
                        "phi_one": m / 100,
                        "norms": np.where(rows, 1.5, 0.0),
                        "overlap_strong": {"mean": (overlap or (lambda m: 1 / m))(m)},
                    }
                )
            out.append({"params": task, "seed_index": seed, "result": {"models": models}})
    return out


# ----------------------------------------------------------------------------- sweep tasks
def test_ladder_tasks_split_small_and_large_widths():
    tasks = units.ladder_tasks([6, 20, 40], [-1.0, 0.1], 20, alpha=1.5, n=400)
    assert tasks == [
        {"alpha": 1.5, "n": 400, "widths": [6, 6], "gammas": [-1.0, 0.1]},
        {"alpha": 1.5, "n": 400, "widths": [20, 40, 20, 40], "gammas": [-1.0, -1.0, 0.1, 0.1]},
    ]
    assert units.ladder_tasks([6], [0.0], None, n=1) == [{"n": 1, "widths": [6], "gammas": [0.0]}]
    assert units.ladder_tasks([30], [0.0], 20) == [{"widths": [30], "gammas": [0.0]}]


def test_ladder_tasks_over_concatenates_one_ladder_per_value():
    tasks = units.ladder_tasks_over("density", (1.0, 3.0), [6, 20], [-1.0], 20, alpha=1.0)
    assert [(t["density"], t["alpha"], t["widths"]) for t in tasks] == [
        (1.0, 1.0, [6]),
        (1.0, 1.0, [20]),
        (3.0, 1.0, [6]),
        (3.0, 1.0, [20]),
    ]


def test_weak_sweep_tasks_train_the_strong_models_beside_the_first_alphas_large_widths():
    tasks = units.weak_sweep_tasks(WIDTHS, (1.5, 2.0), 0.1, -1.0, 20, 20, n=400)
    assert [t["alpha"] for t in tasks] == [1.5, 1.5, 2.0, 2.0]
    assert tasks[1]["widths"] == [20, 30, 40, 20, 30, 40]
    assert tasks[1]["gammas"] == [0.1, 0.1, 0.1, -1.0, -1.0, -1.0]
    assert all(set(t["gammas"]) == {0.1} for i, t in enumerate(tasks) if i != 1)


# ------------------------------------------------------------------------- records and units
def test_models_are_grouped_by_seed_index_and_selected_sorted_by_width():
    tasks = units.ladder_tasks_over("alpha", (1.0, 2.0), WIDTHS, [-1.0], 20)
    models = units.sweep_models(records(lambda m, a, g, e, s: 10 * s + m, tasks))
    assert {m["density"] for m in models} == {1.0}
    by_unit = units.by_unit(models)
    assert [{m["seed"] for m in u} for u in by_unit] == [{0}, {1}]
    chosen = units.select(by_unit[1], alpha=2.0)
    assert [m["m"] for m in chosen] == list(WIDTHS)
    assert [m["loss"] for m in chosen] == [10 + w for w in WIDTHS]
    table = units.per_model([chosen, chosen], "phi_one")
    assert table.shape == (2, len(WIDTHS))
    np.testing.assert_allclose(table[0], np.array(WIDTHS) / 100)


def test_ladder_exponent_recovers_a_power_law_inside_its_window():
    tasks = units.ladder_tasks_over("alpha", (0.0, 2.0), WIDTHS, [-1.0], None)
    models = units.sweep_models(records(lambda m, a, g, e, s: 3.0 * m ** -(0.8 + a / 4), tasks))
    fit = units.ladder_fit(units.select(models, alpha=0.0, seed=0), WINDOW)
    assert fit.exponent == pytest.approx(-0.8)
    assert fit.prefactor == pytest.approx(3.0)
    per_unit = units.exponents_over(units.by_unit(models), "alpha", (0.0, 2.0), WINDOW)
    np.testing.assert_allclose(per_unit, [[0.8, 1.3], [0.8, 1.3]])
    # a window over the first three widths only sees those
    kinked = [{"m": m, "loss": m**-1.0 if m <= 14 else 9.0} for m in WIDTHS]
    assert units.ladder_exponent(kinked, (6.0, 14.0)) == pytest.approx(1.0)


def test_relative_gap_is_infinite_against_a_zero_reference_and_zero_when_both_vanish():
    models = [{"loss": 1.1}, {"loss": 0.5}, {"loss": 0.0}]
    gap = units.relative_gap(models, np.array([1.0, 0.0, 0.0]))
    assert gap[0] == pytest.approx(0.1)
    assert gap[1] == np.inf
    assert gap[2] == 0.0


def test_unlearned_gap_measures_the_loss_against_the_dropped_features():
    n, p = 50, theory.feature_frequencies(50, 1.5)
    tasks = units.ladder_tasks(WIDTHS, [0.1], None, alpha=1.5, n=n)

    def law(m, *_):
        return 1.1 * theory.weak_loss(p, np.arange(n) < m)

    models = units.sweep_models(records(law, tasks, n_seeds=1, kept=lambda m: m))
    unl, gap = units.unlearned_gap(models, p)
    np.testing.assert_allclose(unl, [theory.weak_loss(p, np.arange(n) < m) for m in WIDTHS])
    np.testing.assert_allclose(gap, 0.1)
    every_row_kept = [{"loss": 0.3, "norms": np.ones(n)}]
    assert units.unlearned_gap(every_row_kept, p)[1][0] == 1e6  # L_unl = 0 < L


# ----------------------------------------------------------------------- per-unit statistics
def test_strong_unit_on_an_exact_inverse_law_with_ten_percent_overlaps():
    tasks = units.ladder_tasks(WIDTHS, [-1.0], None, alpha=1.0, n=50)
    models = units.sweep_models(
        records(lambda m, *_: 2.0 / m, tasks, n_seeds=1, overlap=lambda m: 1.1 / m)
    )
    row = units.strong_unit(units.select(models), 1.0, theory.random_overlap_mean, WINDOW, 14)
    assert row["alpha_m"] == pytest.approx(1.0)
    assert row["alpha_m_error"] == pytest.approx(0.0, abs=1e-12)
    assert row["overlap_error"] == pytest.approx(0.1)
    assert row["phi_half_min"] == 1.0
    assert row["local_slope_min"] == pytest.approx(1.0)
    np.testing.assert_array_equal(row["checked"], np.array(WIDTHS) >= 14)


def test_strong_unit_counts_a_checked_width_without_strong_rows_as_a_full_error():
    tasks = units.ladder_tasks(WIDTHS, [-1.0], None, alpha=1.0, n=50)
    missing = records(lambda m, *_: 1.0 if m != 30 else 2.0, tasks, n_seeds=1)
    for model in missing[0]["result"]["models"]:
        if model["m"] == 20:
            model["overlap_strong"]["mean"] = None
    row = units.strong_unit(units.sweep_models(missing), 1.0, lambda m: 1 / m, WINDOW, 14)
    assert row["overlap_error"] == 1.0
    assert np.isnan(row["overlap"][3])
    assert row["local_slope_min"] < 0  # L(30) > L(20)


def test_weak_unit_gaps_and_the_weak_over_strong_ratio():
    n = 50
    tasks = units.weak_sweep_tasks(WIDTHS, (1.5, 2.0), 0.1, -1.0, 20, 20, n=n)

    def law(m, alpha, gamma, density, seed):
        unl = theory.weak_loss(theory.feature_frequencies(n, alpha), np.arange(n) < m)
        return unl * (1.05 if alpha == 1.5 else 0.98) if gamma > 0 else unl / 2

    models = units.sweep_models(records(law, tasks, n_seeds=1, kept=lambda m: m))
    row = units.weak_unit(models, (1.5, 2.0), n, theory.weak_loss, 0.1, -1.0)
    assert row["gap_max"] == pytest.approx(0.05)
    assert row["gap_min"] == pytest.approx(-0.02)
    assert [m["m"] for m in row["strong15"]] == [20, 30, 40]
    np.testing.assert_allclose(row["over"], 2 * 1.05)
    assert row["weak_over_strong_min"] == pytest.approx(2.1)
    assert list(row["curves"]) == [1.5, 2.0]


def test_knob_units_measure_the_band_miss_the_rise_and_the_fall():
    phi = {-1.0: 1.0, -0.5: 0.97, 0.0: 0.2, 0.5: 0.25}
    tasks = units.ladder_tasks([20], list(phi), None, alpha=1.0, n=400)
    sweep = records(lambda *_: 1.0, tasks, n_seeds=3, n=400, phi=lambda g, s: phi[g])
    knob = units.knob_units(sweep, lambda g, m, n: (1.0, 1.0) if g <= -0.5 else (0.0, 0.2), 20, 400)
    np.testing.assert_array_equal(knob.gammas, list(phi))
    assert knob.phi.shape == (3, 4)
    assert knob.units["band_miss"] == pytest.approx([0.05] * 3)  # φ(0.5) = 0.25 > 0.2
    assert knob.units["rise_max"] == pytest.approx([0.05] * 3)  # 0.2 → 0.25
    assert knob.units["fall"] == pytest.approx([0.75] * 3)
    assert knob.violations == 3 * (2 + 1)
    assert knob.phi_one == [[0.2] * 4] * 3


def test_weak_ideal_exponent_matches_the_pilot_values_and_a_given_law():
    widths = np.array((10, 15, 25, 39, 63, 100))
    for alpha, pilot in ((1.5, 0.61), (2.0, 1.02)):
        ideal, exponent = units.weak_ideal_exponent(theory.feature_frequencies(1000, alpha), widths)
        assert exponent == pytest.approx(pilot, abs=0.01)
        assert np.all(np.diff(ideal) < 0)
    _, exponent = units.weak_ideal_exponent(None, widths, lambda p, m: 4.0 * m**-0.7, (10, 100))
    assert exponent == pytest.approx(0.7)


def test_weak_law_units_on_ladders_that_follow_l_unl():
    n, widths = 200, (10, 15, 25, 39, 63, 100)
    p = {a: theory.feature_frequencies(n, a) for a in (1.5, 2.0)}
    tasks = units.ladder_tasks_over("alpha", (1.5, 2.0), widths, (0.33, 0.56), None, n=n)

    def law(m, alpha, gamma, density, seed):
        return theory.weak_loss(p[alpha], np.arange(n) < m) * (1.1 if m == 100 else 1.0)

    by_unit = units.by_unit(units.sweep_models(records(law, tasks, n=n, kept=lambda m: m)))
    exponents = {
        a: units.weak_ideal_exponent(p[a], np.array(widths, float), window=(10, 100))[1] for a in p
    }
    law_units = units.weak_law_units(by_unit, (0.33, 0.56), p, exponents, (10.0, 100.0))
    assert len(law_units.runs) == 2 * 2 * 2 == len(law_units.ladders)
    assert law_units.units["loss_gap_max"] == pytest.approx([0.1, 0.1])
    assert all(r["kept"] == list(widths) for r in law_units.runs)
    assert max(law_units.units["exponent_deviation_max"]) < 0.05


def test_density_units_measure_the_slope_in_e_and_the_width_exponent():
    tasks = units.ladder_tasks_over("density", (1.0, 3.0, 6.0), WIDTHS, [-1.0], 20, alpha=1.0)
    by_unit = units.by_unit(units.sweep_models(records(lambda m, a, g, e, s: e**1.3 / m, tasks)))
    slopes, exponents, losses = units.density_units(by_unit, (1.0, 3.0, 6.0), WINDOW)
    np.testing.assert_allclose(slopes, 1.3)
    np.testing.assert_allclose(exponents, 1.0)
    assert slopes.shape == (2, len(WIDTHS))
    assert exponents.shape == (2, 3)
    assert losses[0].shape == (3, len(WIDTHS))


# ------------------------------------------------------------------------- geometry identities
def test_random_overlaps_agree_with_the_beta_moments_and_reject_a_wrong_mean():
    sample = units.random_overlaps(np.random.default_rng(0), (4, 16), 20_000)
    assert np.all(np.abs(sample.z) < 4)
    assert np.all(np.abs(sample.var_err) < 0.1)
    assert sample.means[0] == pytest.approx(0.25, abs=0.01)
    wrong = units.random_overlaps(np.random.default_rng(0), (4,), 20_000, lambda m: 1 / (m + 1))
    assert wrong.z[0] > 10  # 1/5 instead of 1/4


def test_the_simplex_etf_meets_the_welch_bound():
    gaps, spreads = units.simplex_etf_gaps(np.arange(2, 9))
    assert len(gaps) == len(spreads) == 7
    assert max(gaps) < 1e-12
    assert max(spreads) < 1e-12


def test_gradient_error_is_tiny_for_the_trainer_and_large_for_a_halved_gradient():
    assert units.gradient_error(loss_and_grad, np.random.default_rng(1)) < 1e-6

    def half(W, b, batch):
        loss, grad_W, grad_b = loss_and_grad(W, b, batch)
        return loss, 0.5 * grad_W, grad_b

    assert units.gradient_error(half, np.random.default_rng(1)) == pytest.approx(0.5, abs=1e-4)


def test_eq8_agrees_with_monte_carlo():
    est = units.eq8_monte_carlo(np.random.default_rng(2), 40_000)
    assert abs(est.z) < 4
    assert est.mc == pytest.approx(est.exact, rel=0.05)
