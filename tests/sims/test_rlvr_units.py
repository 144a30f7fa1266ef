"""sims.rlvr_units: the RLVR claims' experiments grouped into units and their per-unit statistics,
on stand-in worlds whose answers are known."""

from __future__ import annotations

import numpy as np
import pytest

from paper_checks.solve import read_sample_counts
from sims import rlvr_units as units
from theory import passk

KS = 2 ** np.arange(11)
KS_FINE = np.unique(np.round(np.logspace(0, 10, 81, base=2)).astype(int))


def fake_sweep(fn, params, *, name, n_seeds, paired_seeds):
    """``Context.sweep``'s record format, run in line: one record per parameter point and seed."""
    assert name
    return [
        {
            "params": dict(p),
            "result": fn(dict(p), np.random.default_rng([0 if paired_seeds else i, s])),
        }
        for i, p in enumerate(params)
        for s in range(n_seeds)
    ]


def sharpened_world(params, rng):
    """Base p ~ Beta(0.3, 1.5) from the unit's world; RL (``grpo400``) sharpens it, logit q =
    2·logit p + 1.35 (one crossing at a small k*); the distilled arm is the exact tilt."""
    p = np.random.default_rng(params["world"]).beta(0.3, 1.5, size=300)
    q = passk.logit_affine(p, 2.0, 1.35 + 0.01 * rng.standard_normal())
    hard = p < 1e-3
    return {
        "test": {"base": p, "grpo400": q, "distill": passk.tilt(p, 1.0)},
        "train": {"base": p, "tabular": passk.tilt(p, 2.0)},
        "hard_test": hard,
    }


@pytest.fixture(scope="module")
def groups():
    worlds = [[7, u] for u in range(4)]
    return units.unit_runs(fake_sweep, worlds, task=sharpened_world, n_seeds=2)


def test_trainings_for_names_the_trainings_an_arm_needs():
    assert units.trainings_for("grpo400") == ("grpo",)
    assert units.trainings_for("distill_grpo", "grpo800") == ("grpo", "distill")
    assert units.trainings_for("tabular") == ("tabular",)
    assert units.trainings_for("base") == ("grpo",)


def test_unit_runs_group_the_seeds_of_each_unit_snr_and_config():
    seen = []

    def sweep(fn, params, **kwargs):
        seen.extend(params)
        return fake_sweep(fn, params, **kwargs)

    worlds = [[1, 0], [1, 1]]
    groups = units.unit_runs(
        sweep, worlds, "x", ("grpo",), (0.0, 1.0), task=sharpened_world, configs=[{}, {"kl": 0.1}]
    )
    assert list(groups) == [(u, s, c) for u in (0, 1) for s in (0.0, 1.0) for c in (0, 1)]
    assert seen[0] == {"snr": 0.0, "arms": ["grpo"], "world": [1, 0], "unit": 0, "config": 0}
    assert seen[-1]["kl"] == 0.1
    assert all(len(v) == 1 for v in groups.values())
    assert isinstance(groups[0, 0.0, 0][0]["test"]["base"], np.ndarray)


def test_pass1_gain_units_are_the_exact_gains_and_the_estimator_agrees(groups):
    out = units.pass1_gain_units(groups, "grpo400", ks=KS, n=256, rng=np.random.default_rng(0))
    for gain, results in zip(out["pass1_gain"], groups.values(), strict=True):
        q = np.mean([r["test"]["grpo400"].mean() for r in results])
        assert gain == pytest.approx(q - results[0]["test"]["base"].mean(), rel=1e-12)
    assert all(0 < z < 4.5 for z in out["estimator_max_abs_z"])  # max of 18 |N(0, 1)| each


def test_crossings_find_one_crossing_per_unit_and_the_worst_over_snrs(groups):
    rows = units.crossings(groups, "grpo400", ks=KS_FINE, k_large=256)
    assert list(rows) == [0.0]
    row = rows[0.0]
    assert row["n"] == [1, 1, 1, 1]
    assert all(0.5 < v < 2.0 for v in row["log_k"])  # k* ≈ 2–3 on 300 problems
    assert all(v > 0.1 for v in row["loss"])
    worst = units.crossing_units(rows, max_snr=1.0)
    assert worst["log2_k_star_min"] == worst["log2_k_star_max"] == row["log_k"]
    assert worst["extra_sign_changes"] == [0.0] * 4
    table = units.crossing_table(rows)["snr_0"]
    assert table["k_star_geometric_mean"] == pytest.approx(2 ** np.mean(row["log_k"]))


def test_kl_rows_average_each_coefficient_over_its_units():
    worlds = [[3, u] for u in range(2)]
    groups = units.unit_runs(
        fake_sweep, worlds, task=sharpened_world, configs=[{"kl": 0.0}, {"kl": 1.0}]
    )
    rows = units.kl_rows(groups, "grpo400", (0.0, 1.0), ks=KS_FINE, k_large=256)
    assert list(rows) == [0.0, 1.0]
    assert all(len(v["k_star_per_seed"]) == 2 for v in rows.values())
    assert all(v["pass256_loss"] > 0 for v in rows.values())


def test_coverage_units_count_solved_sets_and_write_replayable_files(groups, tmp_path):
    cov = units.coverage_units(
        groups, ["grpo400"], n=256, rng=np.random.default_rng(1), prefix=tmp_path / "c"
    )
    assert cov["pass256"].shape == (4, 2)
    assert cov["max_rise"] == pytest.approx(np.diff(cov["pass256"], axis=1)[:, 0])
    assert all(v < 0 for v in cov["max_rise"])  # the sharpened arm loses coverage
    assert sum(cov["venn"]["grpo400"].values()) == 4 * 2 * 300  # units × seeds × problems
    assert cov["hist"]["base"].sum() == 4 * 2 * 300
    assert len(cov["files"]) == 4 * 2 * 2
    first = read_sample_counts(cov["files"][0])
    assert cov["files"][0].name == "c.unit0.seed0.base.csv"
    assert first.ids.size == 300
    assert np.all(first.n == 256)


def test_control_units_see_no_crossing_of_the_tilt(groups):
    ctl = units.control_units(groups, "tabular", passk.tilt, (0.3, 1.0), ks=KS_FINE)
    assert ctl["crossed"] == {"control": 0, "tilt": 0}
    assert all(v >= 0 for v in ctl["controls_min_delta"])
    assert all(v <= 1e-12 for v in ctl["max_relative_loss_of_p"])  # the tilt never lowers p
    assert ctl["delta"].shape == (4, KS_FINE.size)
    sharp = units.control_units(
        groups, "tabular", lambda p, b: passk.logit_affine(p, 2, 1), (1,), ks=KS
    )
    assert sharp["crossed"]["tilt"] == 4


def test_distillation_units_and_the_hard_problems(groups):
    out = units.distillation_units(groups, "distill", ks=KS, large_k=64)
    delta = units.gain_curves(groups, "distill", KS)
    assert out["distill_min_gain"] == delta.min(axis=1).tolist()
    assert out["distill_large_k_gain"] == delta[:, KS >= 64].min(axis=1).tolist()
    record = next(iter(groups.values()))[0]
    hard = record["hard_test"]
    assert units.hard_p_mean(record, "distill") == pytest.approx(
        record["test"]["distill"][hard].mean()
    )
    assert units.hard_p_mean({**record, "hard_test": np.zeros(300, bool)}, "distill") is None


def test_slope_fits_predict_the_slopes_of_a_world_that_follows_the_model():
    def beta_world(params, rng):
        p = np.random.default_rng(params["world"]).beta(0.5, 2.0, size=2000)
        return {"test": {"base": p, "grpo400": passk.logit_affine(p, 2.0, 2.0)}, "train": {}}

    groups = units.unit_runs(fake_sweep, [[9, 0], [9, 1]], task=beta_world)
    rows = units.slope_fits(groups, "grpo400", ks=KS, window=(4.0, 64.0), min_p=1e-4, tail_p=0.1)
    measured, model = units.slope_table(rows)
    assert measured["units"] == 2
    assert max(measured["slope_error_base_per_unit"]) < 0.1
    assert measured["fit_alpha"] == pytest.approx([2.0, 2.0])
    assert model["slope_ratio_base_over_rl"] == measured["fit_alpha"]
    mean = units.slope_means(rows)
    assert set(mean["slopes"]) == {"base", "rl", "model_base", "model_rl"}
    assert mean["fits"]["alpha"] == pytest.approx(2.0)


def arm_b_record(rng, *, exact=True, learned=True, problems=120, n=256):
    p = rng.beta(0.3, 1.5, size=problems)
    probs = {
        "base": p,
        "rl": passk.logit_affine(p, 2.0, 2.0),
        "distill": passk.tilt(p, 0.5),
        "rl_kl": passk.logit_affine(p, 2.5, 2.5),
    }
    return {
        "counts": {a: rng.binomial(n, q) for a, q in probs.items()},
        **({"p": probs} if exact else {}),
        "n": n,
        "test": [[0, 1]] * problems,
        "chance_pass1": np.full(problems, 0.01 if learned else 0.5),
        "needs_hidden": [False] * problems,
        "base_loss": [1.0],
        "rl_reward": [0.5],
    }


def test_arm_b_units_are_the_models_own_mean_differences(tmp_path):
    rng = np.random.default_rng(2)
    trained = [arm_b_record(rng) for _ in range(3)] + [arm_b_record(rng, learned=False)]
    models = units.arm_b_gate(trained, "rl", 0.10)
    assert len(models) == 3
    pool = units.pool_arm_b(models, "rl", ks=KS, k_large=256, min_p=1e-4, tail_p=0.1)
    assert pool.exact
    assert pool.kl_arm == "rl_kl"
    per_model = units.arm_b_units(pool)
    for i, r in enumerate(models):
        gain = passk.pass_at_k_exact(r["p"]["rl"], 1) - passk.pass_at_k_exact(r["p"]["base"], 1)
        assert per_model["pass1_gain"][i] == pytest.approx(gain.mean(), rel=1e-12)
    ci, kl_ci = units.arm_b_cis(pool, np.random.default_rng(0), 200)
    assert list(ci) == ["pass1_gain", "large_k_loss", "distill_gain"]
    assert kl_ci["pass_k_large"][1] < 0  # the sharper KL arm loses at k = 256
    m = units.arm_b_measured(pool, ci, kl_ci, seeds=len(trained))
    assert m["models_gated_out"] == 1
    assert m["kl_ablation_reading"] == "KL lowers large-k coverage, as in the paper"
    assert sum(m["solved_venn"].values()) == 3 * 120
    files = units.write_arm_b_samples(pool, tmp_path / "b")
    assert [f.name for f in files[:2]] == ["b.seed0.base.csv", "b.seed0.rl.csv"]


def test_pool_arm_b_without_exact_p_uses_the_estimator_up_to_n_over_4():
    rng = np.random.default_rng(3)
    models = [arm_b_record(rng, exact=False) for _ in range(3)]
    pool = units.pool_arm_b(models, "rl", ks=KS, k_large=256, min_p=1e-4, tail_p=0.1)
    assert not pool.exact
    assert (pool.ks[-1], pool.k_large) == (64, 64)
    assert pool.estimator_gap is None
    assert pool.rl_map is None


@pytest.mark.parametrize(
    ("low", "high", "word"),
    [(-0.05, -0.01, "lowers"), (0.01, 0.05, "raises"), (-0.01, 0.01, "no resolved")],
)
def test_kl_reading_follows_the_confidence_interval(low, high, word):
    assert word in units.kl_large_k_reading(low, high)


def test_write_sample_file_writes_what_solve_passk_reads(tmp_path):
    c = np.array([0, 3, 256])
    path = units.write_sample_file(tmp_path / "a" / "s.csv", ["x", "y", "z"], np.full(3, 256), c)
    assert path.read_text(encoding="utf-8").splitlines()[:2] == ["problem,n,c", "x,256,0"]
    counts = read_sample_counts(path)
    assert counts.ids.tolist() == ["x", "y", "z"]
    assert counts.c.tolist() == c.tolist()
