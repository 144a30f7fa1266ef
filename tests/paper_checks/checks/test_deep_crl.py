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


def _no_res_deep_gain(out_dir):
    """Our geometric mean of the no-res D = 256 Jacobian gain (the cached default run)."""
    result = deep_crl.signal_propagation(_ctx(out_dir, "signal_propagation"))
    row = next(
        r
        for r in result.measured["table"]
        if (r["variant"], r["metric"], r["depth"]) == ("no_res", "jacobian_gain", 256)
    )
    return row["geo_mean"]


def _table_with_no_res_deep_gain(value):
    wrong = {
        v: {m: dict(by) for m, by in ms.items()} for v, ms in deep_crl.SPEC_SIGNAL_TABLE.items()
    }
    wrong["no_res"]["jacobian_gain"][256] = value
    return wrong


@pytest.mark.claim_fails("deep_crl.signal_propagation")
def test_signal_propagation_fails_for_a_no_res_deep_entry_off_by_twelve(out_dir, tiny):
    """A table whose no-residual D = 256 Jacobian gain is 12× below ours: just beyond the ×10
    that the chaotic no-residual entries at D ≥ 64 are allowed."""
    table = _table_with_no_res_deep_gain(_no_res_deep_gain(out_dir) / 12)
    result = deep_crl.signal_propagation(_ctx(out_dir, "signal_propagation"), table=table)
    assert result.verdict is Verdict.FAIL
    assert result.measured["worst_check_over_limit"] == pytest.approx(1.2, rel=1e-6)
    assert "no_res jacobian_gain D256" in result.summary


def test_signal_propagation_passes_for_a_no_res_deep_entry_off_by_eight(out_dir, tiny):
    table = _table_with_no_res_deep_gain(_no_res_deep_gain(out_dir) / 8)
    result = deep_crl.signal_propagation(_ctx(out_dir, "signal_propagation"), table=table)
    assert result.measured["check_over_limit"]["table"] >= 0.8
    assert result.verdict is Verdict.PASS, result.summary


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


def synthetic_losses(deficit: float):
    """A training run whose final loss is fixed by the arm: the paper block 3.0 at every depth,
    no-LN 3.5, and a no-res arm only ``deficit`` nats worse than the paper block, each with
    N(0, 0.01²) seed noise drawn independently per arm."""

    def task(params, rng):
        arm = ("paper", "no_ln", "no_res").index(params["variant"])
        noise = rng.standard_normal(3)[arm]  # paired seeds: independent draws per arm
        loss = (3.0, 3.5, 3.0 + deficit)[arm] + 0.01 * noise
        return {"train_loss": loss, "loss_curve": np.full(5, loss)}

    return task


@pytest.mark.claim_fails("deep_crl.trainability")
def test_trainability_fails_when_no_res_is_barely_worse(tmp_path, tiny):
    """A no-residual arm only 0.005 nats worse than the paper block in the mean: with ±0.01 seed
    noise it wins at least one of the 3 seeds, which the every-seed rule counts as a violation."""
    ctx = _ctx(tmp_path, "trainability")
    result = deep_crl.trainability(ctx, task=synthetic_losses(0.005))
    assert result.measured["n_violations"] >= 1
    assert result.measured["beats_every_seed"] == {"no_ln": True, "no_res": False}
    assert result.verdict is Verdict.FAIL


def test_trainability_passes_when_no_res_is_clearly_worse(tmp_path, tiny):
    ctx = _ctx(tmp_path, "trainability")
    result = deep_crl.trainability(ctx, task=synthetic_losses(0.1))
    assert result.measured["n_violations"] == 0
    assert result.verdict is Verdict.PASS, result.summary


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


@pytest.mark.claim_fails("deep_crl.critic_learns_geodesic")
def test_critic_learns_geodesic_fails_for_a_gain_just_above_the_measured_one(out_dir, tiny):
    """A theory that depth raises ρ_geo by 0.01 more than our critics do: FAIL on the gain."""
    ctx = _ctx(out_dir, "critic_learns_geodesic")
    gain = deep_crl.critic_learns_geodesic(ctx).measured["rho_gain_d4_minus_d0"]
    result = deep_crl.critic_learns_geodesic(ctx, min_gain=gain + 0.01)
    assert result.measured["rho_gain_ci90"][0] > 0
    assert result.verdict is Verdict.FAIL


def test_critic_learns_geodesic_passes_for_a_gain_just_below_the_measured_one(out_dir, tiny):
    ctx = _ctx(out_dir, "critic_learns_geodesic")
    gain = deep_crl.critic_learns_geodesic(ctx).measured["rho_gain_d4_minus_d0"]
    result = deep_crl.critic_learns_geodesic(ctx, min_gain=gain - 0.01)
    assert result.verdict is Verdict.PASS, result.summary


@pytest.mark.parametrize(
    ("deep", "shallow", "verdict"),
    [
        ([0.9, 0.8, 1.0], [0.3, 0.4, 0.2], Verdict.PASS),  # Δ 0.6 ± 0.08
        ([0.2, 0.3, 0.1], [0.6, 0.7, 0.8], Verdict.FAIL),  # Δ −0.5 ± 0.08
        ([0.6, 0.1, 0.9], [0.4, 0.5, 0.3], Verdict.INCONCLUSIVE),  # Δ +0.13 ± 0.24: within noise
        ([0.33, 0.33, 0.33], [0.33, 0.33, 0.33], Verdict.FAIL),  # identical, s.e. 0: Δ < 0.05
        ([0.36, 0.36, 0.36], [0.33, 0.33, 0.33], Verdict.FAIL),  # Δ 0.03 exactly: below 0.05
        ([1.0, 1.0, 1.0], [0.0, 0.0, 0.0], Verdict.PASS),  # s.e. 0, Δ 1
        ([0.82, 0.84, 0.86], [0.80, 0.80, 0.80], Verdict.INCONCLUSIVE),  # [+.017, +.063], Δ .04
        # the last full run (README): Δ −0.127 ± 0.229, interval [−0.59, +0.33] holds +0.05
        ([1.00, 0.88, 0.33], [0.92, 1.00, 0.67], Verdict.INCONCLUSIVE),
    ],
)
def test_online_verdict_on_injected_per_seed_scores(deep, shallow, verdict):
    got, diff, se = deep_crl.online_verdict(deep, shallow)
    assert got is verdict
    assert diff == pytest.approx(np.mean(deep) - np.mean(shallow))
    assert se >= 0


@pytest.mark.claim_fails("deep_crl.online_maze")
def test_online_verdict_fails_for_a_depth_benefit_just_below_the_margin():
    """Depth 16 gains 0.02 over depth 4 in the mean; the interval [−0.003, +0.043] excludes a
    +0.05 benefit of depth."""
    verdict, diff, se = deep_crl.online_verdict([0.80, 0.82, 0.84], [0.80, 0.80, 0.80])
    assert diff + deep_crl.ONLINE_Z * se < deep_crl.ONLINE_MIN_GAIN
    assert diff + deep_crl.ONLINE_Z * se > 0.04
    assert verdict is Verdict.FAIL


def test_online_verdict_passes_for_a_depth_benefit_just_above_the_margin():
    verdict, diff, se = deep_crl.online_verdict([0.86, 0.88, 0.90], [0.80, 0.80, 0.80])
    assert diff - deep_crl.ONLINE_Z * se > 0
    assert diff == pytest.approx(0.08)
    assert verdict is Verdict.PASS


def synthetic_online(success: dict[int, float]):
    """An online run whose far-goal success is ``success[depth]`` ± 0.01 (uniform seed noise)."""

    def task(params, rng):
        final = success[params["depth"]] + rng.uniform(-0.01, 0.01)
        curve = [0.0, final]
        return {
            "final_success": final,
            "final_time_at_goal": final / 2,
            "env_steps": [0, 1000],
            "success": curve,
            "time_at_goal": [c / 2 for c in curve],
            "q_map": np.zeros((5, 5)),
            "grad_steps_total": 10,
        }

    return task


@pytest.mark.claim_fails("deep_crl.online_maze")
def test_online_maze_fails_when_depth_helps_less_than_the_margin(tmp_path, tiny_online):
    """The check itself, fed runs where depth 8 beats depth 4 by only 0.02 in far-goal success."""
    ctx = Context(scale="full", seed=0, out_dir=tmp_path, claim_id="deep_crl.online_maze")
    result = deep_crl.online_maze(ctx, task=synthetic_online({4: 0.80, 8: 0.82}))
    assert result.measured["success_diff_ci_high"] < deep_crl.ONLINE_MIN_GAIN
    assert result.verdict is Verdict.FAIL


def test_online_maze_reports_the_reference_config_without_deciding(tmp_path, tiny_online):
    """The 'reference' arm is trained with config="reference" and reported; it never decides."""
    seen = []

    def task(params, rng):
        seen.append(params.get("config", "cpu"))
        gain = 0.0 if params.get("config") == "reference" else 0.5  # only 'cpu' gains from depth
        return synthetic_online({4: 0.3, 8: 0.3 + gain})(params, rng)

    ctx = Context(scale="full", seed=0, out_dir=tmp_path, claim_id="deep_crl.online_maze")
    result = deep_crl.online_maze(ctx, task=task)
    assert sorted(set(seen)) == ["cpu", "reference"]
    assert result.verdict is Verdict.PASS  # decided by the 'cpu' arm alone
    ref = result.measured["reported_configs"]["reference"]
    assert np.mean(ref["8"]) - np.mean(ref["4"]) == pytest.approx(0.0, abs=0.03)
    assert "reported, config 'reference'" in result.summary


def test_online_maze_is_full_scale_only(out_dir):
    result = deep_crl.online_maze(_ctx(out_dir, "online_maze"))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "full scale only" in result.summary
    assert result.measured == {"success_diff_ci_high": None}


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


# ------------------------------------------------------------------------------- --scale paper
class _Captured(Exception):
    """Raised by the patched sweep once it has seen a claim's task parameters."""


def _swept(monkeypatch, tmp_path, check, scale) -> list[dict]:
    seen = []

    def sweep(self, fn, params, **_):
        seen.extend(params)
        raise _Captured

    monkeypatch.setattr(Context, "sweep", sweep)
    with pytest.raises(_Captured):
        check(Context(scale=scale, seed=0, out_dir=tmp_path, claim_id="deep_crl.sizes"))
    return seen


def test_paper_scale_probes_the_paper_width_and_depth_1024(tmp_path, monkeypatch):
    paper = _swept(monkeypatch, tmp_path, deep_crl.signal_propagation, "paper")
    full = _swept(monkeypatch, tmp_path, deep_crl.signal_propagation, "full")
    assert {p["width"] for p in paper} == {256}
    assert {p["width"] for p in full} == {128}
    assert paper[: len(full)] == [p | {"width": 256} for p in full]  # full's points, then D 1024
    assert paper[len(full) :] == [{"variant": "paper", "depth": 1024, "width": 256}]


@pytest.mark.parametrize(
    ("check", "depths"),
    [(deep_crl.trainability, {4, 16, 32, 64}), (deep_crl.critic_learns_geodesic, {0, 4, 16, 64})],
)
def test_paper_scale_trains_checkpointed_critics_at_the_paper_width(
    tmp_path, monkeypatch, check, depths
):
    paper = _swept(monkeypatch, tmp_path, check, "paper")
    assert {p["width"] for p in paper} == {256}
    assert {p["depth"] for p in paper} == depths
    assert {p["checkpoint_every"] for p in paper} == {deep_crl.PAPER_CHECKPOINT_EVERY}
    for scale in ("quick", "full"):  # unchanged: no checkpoints, their own widths
        params = _swept(monkeypatch, tmp_path, check, scale)
        assert not any("checkpoint_every" in p for p in params)
        assert {p["width"] for p in params} < {32, 64}


def test_paper_scale_trains_online_at_table_1_depths_with_checkpoints(tmp_path, monkeypatch):
    paper = _swept(monkeypatch, tmp_path, deep_crl.online_maze, "paper")
    full = _swept(monkeypatch, tmp_path, deep_crl.online_maze, "full")
    assert [p["depth"] for p in paper] == [4, 64]
    assert {p["width"] for p in paper} == {256}
    assert {p["checkpoint_every"] for p in paper} == {10}
    assert full == [{"depth": d, **deep_crl.ONLINE_SIZES["task"]} for d in (4, 16)]  # unchanged
    assert [p | {"depth": d} for p, d in zip(full, (4, 64), strict=True)] == [
        {k: v for k, v in p.items() if k not in ("width", "checkpoint_every")} for p in paper
    ]


def test_a_killed_paper_scale_check_resumes_to_the_same_result(tmp_path, monkeypatch):
    """trainability at --scale paper, shrunk: killed mid-task, rerun in the same folder, it gives
    the numbers of an uninterrupted run."""
    import neural.deep_crl as dc

    monkeypatch.setitem(
        deep_crl.TRAIN_SIZES,
        "paper",
        {"width": 8, "steps": 25, "batch": 16, "depths": (4, 16), "n_seeds": 2,
         "checkpoint_every": 10},
    )  # fmt: skip

    def run(out):
        ctx = Context(scale="paper", seed=0, out_dir=out, claim_id="deep_crl.trainability")
        return deep_crl.trainability(ctx)

    whole = run(tmp_path / "whole")
    real, count = dc.critic_loss, {"n": 0}

    def dying(*args, **kwargs):
        count["n"] += 1
        if count["n"] == 3 * 25 + 17:  # in the fourth task, after its save at step 10
            raise _Captured
        return real(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(dc, "critic_loss", dying)
        with pytest.raises(_Captured):
            run(tmp_path / "killed")
    assert list((tmp_path / "killed").rglob("critic.pt"))
    resumed = run(tmp_path / "killed")
    assert resumed.summary == whole.summary
    assert resumed.measured["n_violations"] == whole.measured["n_violations"]
    for key, value in whole.arrays.items():
        np.testing.assert_array_equal(resumed.arrays[key], value)
    assert not list((tmp_path / "killed").rglob("critic.pt"))
