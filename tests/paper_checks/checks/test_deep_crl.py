"""The deep-CRL claims at tiny sizes: PASS with the paper's block and the spec's table, FAIL when
handed a wrong table, a wrong ordering of variants or the wrong distance. Tests sharing a claim
share its sweep cache (same context), so each sweep trains once."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from paper_checks.checks import deep_crl
from paper_checks.context import Context
from paper_checks.results import Verdict
from sims.mazes import GridMaze


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("deep_crl")


def _ctx(out_dir, name):
    return Context(scale="quick", seed=0, out_dir=out_dir, claim_id=f"deep_crl.{name}")


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setitem(deep_crl.SIGNAL_SEEDS, "quick", 1)
    monkeypatch.setitem(
        deep_crl.TRAIN_SIZES,
        "quick",
        {"width": 16, "steps": 150, "batch": 64, "depths": (4, 16), "n_seeds": 3},
    )
    monkeypatch.setitem(
        deep_crl.GEODESIC_SIZES,
        "quick",
        {"width": 32, "steps": 150, "batch": 64, "depths": (0, 4), "n_seeds": 3},
    )


def test_signal_propagation_passes(out_dir, tiny):
    result = deep_crl.signal_propagation(_ctx(out_dir, "signal_propagation"))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["no_ln_trunk_max_dev"] <= 0.01
    assert (out_dir / result.figures[0]).is_file()


def test_signal_propagation_fails_when_the_table_says_ln_does_not_matter(out_dir, tiny):
    wrong = dict(deep_crl.SPEC_SIGNAL_TABLE)
    wrong["no_ln"] = deep_crl.SPEC_SIGNAL_TABLE["paper"]  # no-LN behaving like the paper block
    result = deep_crl.signal_propagation(_ctx(out_dir, "signal_propagation"), table=wrong)
    assert result.verdict is Verdict.FAIL
    assert "no_ln" in result.summary


def test_trainability_passes(out_dir, tiny):
    result = deep_crl.trainability(_ctx(out_dir, "trainability"))
    assert result.verdict is Verdict.PASS, result.summary
    assert all(result.measured["beats_every_seed"].values())


def test_trainability_fails_when_no_ln_is_claimed_best(out_dir, tiny):
    result = deep_crl.trainability(
        _ctx(out_dir, "trainability"), reference="no_ln", contenders=("paper", "no_res")
    )
    assert result.verdict is Verdict.FAIL
    assert result.measured["beats_every_seed"]["paper"] is False


def test_critic_learns_geodesic_passes(out_dir, tiny):
    result = deep_crl.critic_learns_geodesic(_ctx(out_dir, "critic_learns_geodesic"))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["rho_gain_ci90"][0] > 0
    assert result.measured["rho_geo_optimum"] > 0.99


def test_critic_learns_geodesic_fails_against_euclidean_distance(out_dir, tiny):
    result = deep_crl.critic_learns_geodesic(
        _ctx(out_dir, "critic_learns_geodesic"), distance=GridMaze.euclidean_distances
    )
    assert result.verdict is Verdict.FAIL
    assert result.measured["rho_gain_d4_minus_d0"] < 0
