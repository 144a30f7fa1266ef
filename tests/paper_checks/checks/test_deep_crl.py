"""The deep-CRL claims at tiny sizes: PASS with the paper's block and the spec's table, FAIL when
handed a wrong table, a wrong ordering of variants or the wrong distance. Tests sharing a claim
share its sweep cache (same context), so each sweep trains once."""

from __future__ import annotations

import numpy as np
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


@pytest.mark.parametrize(
    ("deep", "shallow", "verdict"),
    [
        ([0.9, 0.8, 1.0], [0.3, 0.4, 0.2], Verdict.PASS),  # Δ 0.6 ± 0.08
        ([0.2, 0.3, 0.1], [0.6, 0.7, 0.8], Verdict.FAIL),  # Δ −0.5 ± 0.08
        ([0.6, 0.1, 0.9], [0.4, 0.5, 0.3], Verdict.INCONCLUSIVE),  # Δ +0.13 ± 0.24: within noise
        ([0.33, 0.33, 0.33], [0.33, 0.33, 0.33], Verdict.INCONCLUSIVE),  # identical, s.e. 0
        ([0.36, 0.36, 0.36], [0.33, 0.33, 0.33], Verdict.INCONCLUSIVE),  # beyond s.e., below 0.05
        ([1.0, 1.0, 1.0], [0.0, 0.0, 0.0], Verdict.PASS),  # s.e. 0, Δ 1
    ],
)
def test_online_verdict_on_injected_per_seed_scores(deep, shallow, verdict):
    got, diff, se = deep_crl.online_verdict(deep, shallow)
    assert got is verdict
    assert diff == pytest.approx(np.mean(deep) - np.mean(shallow))
    assert se >= 0


def test_online_maze_is_full_scale_only(out_dir):
    result = deep_crl.online_maze(_ctx(out_dir, "online_maze"))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "full scale only" in result.summary


@pytest.fixture
def tiny_online(monkeypatch):
    monkeypatch.setattr(
        deep_crl,
        "ONLINE_SIZES",
        {
            "depths": (4, 8),
            "n_seeds": 2,
            "task": {
                "epochs": 2,
                "grad_steps": 2,
                "eval_every": 1,
                "width": 16,
                "n_envs": 4,
                "horizon": 20,
                "batch": 32,
                "eval_episodes": 2,
            },
        },
    )


def test_online_maze_reports_every_seed_and_draws_the_curves(tmp_path, tiny_online):
    ctx = Context(scale="full", seed=0, out_dir=tmp_path, claim_id="deep_crl.online_maze")
    result = deep_crl.online_maze(ctx)
    assert result.verdict in (Verdict.PASS, Verdict.FAIL, Verdict.INCONCLUSIVE)
    assert {k: len(v) for k, v in result.measured["success"].items()} == {"4": 2, "8": 2}
    assert "D4" in result.summary
    assert "D8" in result.summary
    assert (tmp_path / result.figures[0]).is_file()
    # the claim's decision is online_verdict on the per-seed success rates
    forced = deep_crl.online_maze(ctx, decide=lambda deep, shallow: (Verdict.FAIL, -1.0, 0.1))
    assert forced.verdict is Verdict.FAIL


@pytest.mark.parametrize(
    ("shallow", "deep", "words"),
    [(0.95, 0.97, "ceiling"), (0.0, 0.04, "floor"), (0.5, 0.6, "seed noise")],
)
def test_an_inconclusive_online_verdict_says_why(shallow, deep, words):
    assert words in deep_crl._online_caveat(Verdict.INCONCLUSIVE, shallow, deep)
    assert deep_crl._online_caveat(Verdict.PASS, shallow, deep) == ""
