"""The deep-CRL claims at tiny sizes: PASS with the paper's block and our reference table, FAIL when
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
from tests.paper_checks.checks import as_run


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
        {"width": 32, "steps": 150, "batch": 64, "depths": (0, 4), "n_seeds": 5},
    )


def test_signal_propagation_on_real_runs(out_dir, tiny):
    # 3 seeds against 109 Bonferroni parts cannot PASS (t ≈ 47); nothing contradicts the table
    result = as_run(deep_crl.signal_propagation, _ctx(out_dir, "signal_propagation"))
    assert result.verdict is Verdict.INCONCLUSIVE, result.summary
    assert result.measured["no_ln_trunk_max_dev"] <= 0.01
    assert all(len(v) == 3 for v in result.decision["units"].values())
    assert set(result.decision["units"]) == set(deep_crl.signal_rule().statistics)
    assert (out_dir / result.figures[0]).is_file()


def test_signal_propagation_fails_when_the_table_says_ln_does_not_matter(out_dir, tiny):
    wrong = dict(deep_crl.SPEC_SIGNAL_TABLE)
    wrong["no_ln"] = deep_crl.SPEC_SIGNAL_TABLE["paper"]  # no-LN behaving like the paper block
    ctx, rule = _ctx(out_dir, "signal_propagation"), deep_crl.signal_rule(wrong)
    result = as_run(deep_crl.signal_propagation, ctx, rule, table=wrong)
    assert result.verdict is Verdict.FAIL
    assert "no_ln" in result.summary


@pytest.fixture
def synthetic_signal(out_dir, tiny, monkeypatch):
    """Signal runs drawn around our measured geometric means (the cached real run) with 2%
    log-normal seed noise (0.1% on the trunk gain, whose bound is 1%), 8 seeds: the check's
    logic at a spread where it decides."""
    import neural.deep_crl as dc

    real = as_run(deep_crl.signal_propagation, _ctx(out_dir, "signal_propagation"))
    means = {(r["variant"], r["depth"], r["metric"]): r["geo_mean"] for r in real.measured["table"]}

    noise = {"grad_ratio": 0.02, "trunk_gain": 0.001, "jacobian_gain": 0.02, "output_rms": 0.02}

    def task(params, rng):
        point = (params["variant"], params["depth"])
        return {
            m: float(means[(*point, m)] * np.exp(noise[m] * rng.standard_normal()))
            for m in ("grad_ratio", "trunk_gain", "jacobian_gain", "output_rms")
            if (*point, m) in means
        }

    monkeypatch.setattr(dc, "signal_task", task)
    monkeypatch.setitem(deep_crl.SIGNAL_SEEDS, "quick", 8)
    return means


def test_signal_propagation_passes_on_runs_at_our_means(tmp_path, synthetic_signal):
    result = as_run(deep_crl.signal_propagation, _ctx(tmp_path, "signal_propagation"))
    assert result.verdict is Verdict.PASS, result.summary


def _table_with_no_res_deep_gain(value):
    wrong = {
        v: {m: dict(by) for m, by in ms.items()} for v, ms in deep_crl.SPEC_SIGNAL_TABLE.items()
    }
    wrong["no_res"]["jacobian_gain"][256] = value
    return wrong


@pytest.mark.claim_fails("deep_crl.signal_propagation")
def test_signal_propagation_fails_for_a_no_res_deep_entry_off_by_twelve(tmp_path, synthetic_signal):
    """A table whose no-residual D = 256 Jacobian gain is 12× below ours: just beyond the ×10
    that the chaotic no-residual entries at D ≥ 64 are allowed."""
    ours = synthetic_signal[("no_res", 256, "jacobian_gain")]
    table = _table_with_no_res_deep_gain(ours / 12)
    ctx, rule = _ctx(tmp_path, "signal_propagation"), deep_crl.signal_rule(table)
    result = as_run(deep_crl.signal_propagation, ctx, rule, table=table)
    assert result.verdict is Verdict.FAIL, result.summary
    assert "no_res.jacobian_gain.D256" in result.summary


def test_signal_propagation_passes_for_a_no_res_deep_entry_off_by_eight(tmp_path, synthetic_signal):
    ours = synthetic_signal[("no_res", 256, "jacobian_gain")]
    table = _table_with_no_res_deep_gain(ours / 8)
    ctx, rule = _ctx(tmp_path, "signal_propagation"), deep_crl.signal_rule(table)
    result = as_run(deep_crl.signal_propagation, ctx, rule, table=table)
    assert result.measured["check_over_limit"]["table"] >= 0.8
    assert result.verdict is Verdict.PASS, result.summary


def test_trainability_on_tiny_real_runs(out_dir, tiny):
    # 150 steps at width 16 are too noisy for 3 seeds to decide every part; no-LN loses clearly
    result = as_run(deep_crl.trainability, _ctx(out_dir, "trainability"))
    assert result.verdict is not Verdict.FAIL, result.summary
    parts = {p["statistic"]: p for p in result.decision["parts"]}
    assert parts["no_ln_minus_paper"]["verdict"] == "PASS"
    assert all(len(v) == 3 for v in result.decision["units"].values())
    assert all(result.measured["beats_every_seed"].values())


def test_trainability_fails_when_no_ln_is_claimed_best(out_dir, tiny):
    # the reference and contenders name the rule's parts: the wrong theory's rule decides
    reference, contenders = "no_ln", ("paper", "no_res")
    rule = deep_crl.trainability_rule(reference, contenders)
    ctx = _ctx(out_dir, "trainability")
    result = as_run(deep_crl.trainability, ctx, rule, reference=reference, contenders=contenders)
    assert result.verdict is Verdict.FAIL
    assert result.measured["beats_every_seed"]["paper"] is False


def synthetic_losses(deficit: float):
    """A training run whose final loss is fixed by the arm: the paper block 3.0 at every depth,
    no-LN 3.5, and a no-res arm only ``deficit`` nats worse than the paper block, each with
    N(0, 0.005²) seed noise drawn independently per arm."""

    def task(params, rng):
        arm = ("paper", "no_ln", "no_res").index(params["variant"])
        noise = rng.standard_normal(3)[arm]  # paired seeds: independent draws per arm
        loss = (3.0, 3.5, 3.0 + deficit)[arm] + 0.005 * noise
        return {"train_loss": loss, "loss_curve": np.full(5, loss)}

    return task


@pytest.mark.claim_fails("deep_crl.trainability")
def test_trainability_fails_when_no_res_trains_slightly_better(tmp_path, tiny):
    """The wrong theory 'residuals help at D = 16' on runs where no-res ends 0.1 nats below the
    paper block (±0.005 seed noise per arm): the no-res − paper part FAILs."""
    ctx = _ctx(tmp_path, "trainability")
    result = as_run(deep_crl.trainability, ctx, task=synthetic_losses(-0.1))
    assert result.measured["no_res_minus_paper"] == pytest.approx(-0.1, abs=0.03)
    assert result.verdict is Verdict.FAIL, result.summary


def test_trainability_is_inconclusive_when_no_res_is_barely_worse(tmp_path, tiny):
    """No-res only 0.005 nats worse in the mean, about its seed noise: 3 seeds cannot tell
    (INCONCLUSIVE, with the units it would need)."""
    ctx = _ctx(tmp_path, "trainability")
    result = as_run(deep_crl.trainability, ctx, task=synthetic_losses(0.005))
    assert result.verdict is Verdict.INCONCLUSIVE, result.summary
    assert result.decision["units_needed"] > 3


def test_trainability_passes_when_no_res_is_clearly_worse(tmp_path, tiny):
    ctx = _ctx(tmp_path, "trainability")
    result = as_run(deep_crl.trainability, ctx, task=synthetic_losses(0.1))
    assert result.verdict is Verdict.PASS, result.summary
    assert len(result.decision["units"]["deeper_minus_d4"]) == 3


def _gain_bounds(result) -> tuple[float, float]:
    """The bounds of the mean gain in ρ_geo in a critic_learns_geodesic decision."""
    (gain,) = [p for p in result.decision["parts"] if p["statistic"] == "rho_gain"]
    return gain["lower"], gain["upper"]


def test_critic_learns_geodesic_passes(out_dir, tiny):
    result = as_run(deep_crl.critic_learns_geodesic, _ctx(out_dir, "critic_learns_geodesic"))
    assert result.verdict is Verdict.PASS, result.summary
    assert _gain_bounds(result)[0] > deep_crl.MIN_RHO_GAIN
    assert result.measured["rho_geo_optimum"] > 0.99


def test_critic_learns_geodesic_fails_against_euclidean_distance(out_dir, tiny):
    result = as_run(
        deep_crl.critic_learns_geodesic,
        _ctx(out_dir, "critic_learns_geodesic"),
        distance=GridMaze.euclidean_distances,
    )
    assert result.verdict is Verdict.FAIL, result.summary
    assert result.measured["rho_gain_d4_minus_d0"] < 0


@pytest.mark.claim_fails("deep_crl.critic_learns_geodesic")
def test_critic_learns_geodesic_fails_for_a_gain_above_the_measured_one(out_dir, tiny):
    """A theory that depth raises ρ_geo by more than our critics do, beyond the upper bound of
    the measured gain: FAIL on the gain."""
    ctx = _ctx(out_dir, "critic_learns_geodesic")
    upper = _gain_bounds(as_run(deep_crl.critic_learns_geodesic, ctx))[1]
    result = as_run(deep_crl.critic_learns_geodesic, ctx, deep_crl.geodesic_rule(upper + 0.005))
    assert result.verdict is Verdict.FAIL, result.summary


def test_critic_learns_geodesic_passes_for_a_gain_below_the_measured_one(out_dir, tiny):
    ctx = _ctx(out_dir, "critic_learns_geodesic")
    lower = _gain_bounds(as_run(deep_crl.critic_learns_geodesic, ctx))[0]
    result = as_run(deep_crl.critic_learns_geodesic, ctx, deep_crl.geodesic_rule(lower - 0.005))
    assert result.verdict is Verdict.PASS, result.summary


@pytest.mark.parametrize(
    ("deep", "shallow", "verdict"),
    [
        # four seeds: three leave gains this spread open under the skew-robust bounds
        ([0.9, 0.8, 1.0, 0.85], [0.3, 0.4, 0.2, 0.3], Verdict.PASS),  # gain .6, .4, .8, .55
        ([0.2, 0.3, 0.1, 0.2], [0.6, 0.7, 0.8, 0.7], Verdict.FAIL),  # −.4, −.4, −.7, −.5
        ([0.6, 0.1, 0.9], [0.4, 0.5, 0.3], Verdict.INCONCLUSIVE),  # +0.2, −0.4, +0.6: noise
        ([0.36, 0.36, 0.36], [0.33, 0.33, 0.33], Verdict.FAIL),  # gain 0.03 exactly, sd 0
        ([1.0, 1.0, 1.0], [0.0, 0.0, 0.0], Verdict.PASS),  # sd 0, gain 1
        # the last full run (README): gains +0.08, −0.12, −0.34 (now drawn paired)
        ([1.00, 0.88, 0.33], [0.92, 1.00, 0.67], Verdict.INCONCLUSIVE),
    ],
)
def test_online_rule_on_injected_per_seed_scores(deep, shallow, verdict):
    got = deep_crl.ONLINE_RULE.decide(deep_crl.online_units(deep, shallow))
    assert got.verdict is verdict
    assert got.parts[0].mean == pytest.approx(np.mean(deep) - np.mean(shallow))


@pytest.mark.claim_fails("deep_crl.online_maze")
def test_online_rule_fails_for_a_depth_benefit_below_the_margin():
    """Depth 16 gains 0.02 over depth 4 in every paired seed (±0.005): the upper bound of the
    mean gain lies below the +0.05 benefit the claim asserts."""
    units = deep_crl.online_units([0.815, 0.82, 0.825, 0.82], [0.80, 0.80, 0.80, 0.80])
    got = deep_crl.ONLINE_RULE.decide(units)
    assert got.parts[0].upper < deep_crl.ONLINE_MIN_GAIN
    assert got.verdict is Verdict.FAIL


def test_online_rule_passes_for_a_depth_benefit_above_the_margin():
    units = deep_crl.online_units([0.88, 0.89, 0.90, 0.89], [0.80, 0.80, 0.80, 0.80])
    got = deep_crl.ONLINE_RULE.decide(units)
    assert got.parts[0].lower > deep_crl.ONLINE_MIN_GAIN
    assert got.verdict is Verdict.PASS


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
    result = as_run(deep_crl.online_maze, ctx, task=synthetic_online({4: 0.80, 8: 0.82}))
    assert result.decision["parts"][0]["upper"] < deep_crl.ONLINE_MIN_GAIN
    assert result.verdict is Verdict.FAIL, result.summary


def test_online_maze_reports_the_reference_config_without_deciding(tmp_path, tiny_online):
    """The 'reference' arm is trained with config="reference" and reported; it never decides."""
    seen = []

    def task(params, rng):
        seen.append(params.get("config", "cpu"))
        gain = 0.0 if params.get("config") == "reference" else 0.5  # only 'cpu' gains from depth
        return synthetic_online({4: 0.3, 8: 0.3 + gain})(params, rng)

    ctx = Context(scale="full", seed=0, out_dir=tmp_path, claim_id="deep_crl.online_maze")
    result = as_run(deep_crl.online_maze, ctx, task=task)
    assert sorted(set(seen)) == ["cpu", "reference"]
    assert result.verdict is Verdict.PASS  # decided by the 'cpu' arm alone
    ref = result.measured["reported_configs"]["reference"]
    assert np.mean(ref["8"]) - np.mean(ref["4"]) == pytest.approx(0.0, abs=0.03)
    assert "reported, config 'reference'" in result.summary


def test_online_maze_is_full_scale_only(out_dir):
    result = as_run(deep_crl.online_maze, _ctx(out_dir, "online_maze"))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "full scale only" in result.summary
    assert result.measured == {"success_diff": None}
    assert result.decision["units"] == {"success_gain": []}


@pytest.fixture
def tiny_online(monkeypatch):
    monkeypatch.setattr(
        deep_crl,
        "ONLINE_SIZES",
        {
            "depths": (4, 8),
            "n_seeds": 3,
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
    result = as_run(deep_crl.online_maze, ctx)
    assert result.verdict in (Verdict.PASS, Verdict.FAIL, Verdict.INCONCLUSIVE)
    assert {k: len(v) for k, v in result.measured["success"].items()} == {"4": 3, "8": 3}
    assert "D4" in result.summary
    assert "D8" in result.summary
    assert (tmp_path / result.figures[0]).is_file()
    # the claim's units are the paired per-seed success gains, deep minus shallow
    success = {d: np.asarray(v) for d, v in result.measured["success"].items()}
    gains = result.decision["units"]["success_gain"]
    np.testing.assert_allclose(gains, success["8"] - success["4"])


@pytest.mark.parametrize(
    ("shallow", "deep", "words"), [(0.95, 0.97, "ceiling"), (0.0, 0.04, "floor"), (0.5, 0.6, "")]
)
def test_the_online_summary_says_where_the_maze_cannot_separate_the_depths(shallow, deep, words):
    caveat = deep_crl._online_caveat(shallow, deep)
    assert words in caveat
    assert bool(caveat) is bool(words)


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
        return as_run(deep_crl.trainability, ctx)

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
    assert resumed.decision["units"] == whole.decision["units"]
    for key, value in whole.arrays.items():
        np.testing.assert_array_equal(resumed.arrays[key], value)
    assert not list((tmp_path / "killed").rglob("critic.pt"))


# ----------------------------------------------------------------------------------- --device
@pytest.mark.parametrize(
    ("check", "scale"),
    [
        (deep_crl.signal_propagation, "quick"),
        (deep_crl.trainability, "quick"),
        (deep_crl.critic_learns_geodesic, "quick"),
        (deep_crl.online_maze, "full"),  # quick trains nothing
    ],
)
def test_a_cuda_run_hands_every_point_the_device_and_a_task_that_takes_it(
    tmp_path, monkeypatch, check, scale
):
    """The four claims declare ``devices=("cpu", "cuda")``: under ``--device cuda`` their first
    sweep's every point carries the device, for one of the tasks whose device path
    tests/neural/test_deep_crl_device.py checks (their later sweeps run the same task)."""
    import paper_checks.context as context
    from neural.crl import train_online_crl
    from neural.deep_crl import signal_task, train_maze_critic
    from paper_checks.claims import all_claims

    seen = []

    def run_sweep(fn, params, **_):
        seen.append((fn, list(params)))
        raise _Captured

    monkeypatch.setattr(context, "run_sweep", run_sweep)
    claim_id = f"deep_crl.{check.__name__}"
    with pytest.raises(_Captured):
        check(Context(scale=scale, seed=0, out_dir=tmp_path, device="cuda", claim_id=claim_id))
    ((fn, params),) = seen
    assert fn in (signal_task, train_maze_critic, train_online_crl)
    assert params
    assert all(p["device"] == "cuda" for p in params)
    (declared,) = [c for c in all_claims() if c.id == claim_id]
    assert declared.devices == ("cpu", "cuda")
