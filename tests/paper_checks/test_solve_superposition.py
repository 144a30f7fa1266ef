"""``paper-checks solve superposition``: output and bad input."""

from __future__ import annotations

import json

import pytest

from paper_checks.cli import main

SMALL = ["solve", "superposition", "--n", "40", "--m", "3,6,12", "--steps", "60", "--batch", "32"]


def test_prints_a_table_and_the_fitted_exponent(capsys):
    assert main(SMALL) == 0
    out = capsys.readouterr().out
    assert "φ_1/2" in out
    assert "α_m =" in out
    assert "95% CI" in out


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
