"""``paper-checks solve superposition``: output and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paper_checks.cli import main

SMALL = ["solve", "superposition", "--n", "40", "--m", "3,6,12", "--steps", "60", "--batch", "32"]


def test_prints_a_table_and_the_fitted_exponent_without_an_interval_from_one_seed(capsys):
    assert main(SMALL) == 0
    out = capsys.readouterr().out
    assert "φ_1/2" in out
    assert "α_m =" in out
    assert "CI" not in out.replace("gives a 95% CI over seeds", "")
    assert "one seed, so no interval: --seeds 2 or more gives a 95% CI over seeds" in out
    assert main([*SMALL, "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["alpha_m_ci"] is None
    assert one["alpha_m_ci_method"] is None
    assert one["alpha_m_per_seed"] == [one["alpha_m"]]


def test_the_interval_of_alpha_m_is_student_t_over_the_seeds(capsys):
    """Each seed is an independent training of every width: α_m is the mean of the seeds'
    exponents, its 95% CI the t interval over them (not a bootstrap over the (m, L) points)."""
    from scipy import stats

    from theory.fits import fit_power_law

    assert main([*SMALL, "--seeds", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    per_seed = np.array(out["loss_per_seed"])
    slopes = np.array([-fit_power_law(out["m"], row, n_boot=0).exponent for row in per_seed])
    np.testing.assert_allclose(out["alpha_m_per_seed"], slopes, rtol=1e-12)
    assert out["alpha_m"] == pytest.approx(slopes.mean(), rel=1e-12)
    half = stats.t.ppf(0.975, 2) * slopes.std(ddof=1) / np.sqrt(3)
    np.testing.assert_allclose(out["alpha_m_ci"], [slopes.mean() - half, slopes.mean() + half])
    assert out["alpha_m_ci_method"] == "Student t over 3 seeds"
    assert main([*SMALL, "--seeds", "3"]) == 0
    text = capsys.readouterr().out
    assert "over 3 seeds (Student t; per seed " in text


def test_json_has_one_value_per_width_and_the_fit(capsys):
    assert main([*SMALL, "--seeds", "2", "--gamma", "0.3", "--alpha", "1.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["m"] == [3, 6, 12]
    assert len(out["loss"]) == len(out["phi_half"]) == len(out["phi_one"]) == 3
    assert len(out["loss_per_seed"]) == 2
    assert out["gamma"] == 0.3
    assert out["alpha_m_ci"][0] <= out["alpha_m"] <= out["alpha_m_ci"][1]


def test_per_group_learning_rates_are_an_option(capsys):
    assert main([*SMALL, "--lr-groups", "per-group", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lr_groups"] == "per-group"
    assert all(0 < loss < 2 for loss in out["loss"])


def test_two_widths_give_no_fit(capsys):
    assert main([*SMALL[:4], "--m", "4,8", "--steps", "5", "--batch", "8"]) == 0
    assert "give at least 3 widths" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["--m", "5,x"], "--m"),
        (["--m", "0,4"], "--m"),
        (["--n", "0"], "--n"),
        (["--alpha", "nan"], "--alpha"),
        (["--alpha", "-1"], "--alpha"),
        (["--gamma", "inf"], "--gamma"),
        (["--steps", "-3"], "--steps"),
        (["--backend", "tpu"], "--backend"),
        (["--lr-groups", "layerwise"], "--lr-groups"),
    ],
)
def test_bad_input_is_one_line_naming_the_argument(capsys, args, name):
    base = {"--n": "40", "--m": "3,6,12", "--steps": "5", "--batch": "8"}
    base |= dict(zip(args[::2], args[1::2], strict=True))
    argv = ["solve", "superposition"] + [x for kv in base.items() for x in kv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert name in err
