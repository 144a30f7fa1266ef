"""The gated_attention claims: decision rules on hand-made run records (PASS, FAIL with a wrong
theory, INCONCLUSIVE where the data cannot decide) and one tiny real training sweep end to end."""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from neural.attention_metrics import uniform_first_token_weight
from paper_checks.checks import gated_attention as ga
from paper_checks.context import Context
from paper_checks.results import Verdict

UNIFORM = uniform_first_token_weight(64)


@pytest.fixture
def ctx(tmp_path):
    return Context(scale="quick", seed=0, out_dir=tmp_path, claim_id="gated_attention.under_test")


def _record(gate: str, seed: int, lr: float = 3e-3, *, diverged: bool = False, **final) -> dict:
    """A run record shaped like :func:`neural.gated_training.train_run`'s, with chosen numbers."""
    gated = gate != "none"
    values = {
        "val_loss": 2.0,
        "f_attn": UNIFORM,
        "uniform": UNIFORM,
        "f_attn_max_head": UNIFORM,
        "f_attn_per_head": [[UNIFORM]],
        "f_attn_per_layer": [UNIFORM, UNIFORM],
        "sink_rate": 0.0,
        "m_act": 3.0,
        "m_act_per_layer": [3.0, 3.0],
        "max_over_median": 5.0,
    }
    if gated:
        values |= {
            "gate_mean": 0.2,
            "gate_mean_per_layer": [0.2, 0.2],
            "gate_hist": np.full(20, 0.05).tolist(),
            "gate_below_0.1": 0.3,
            "gated_output_below_1e-2": 0.3,
            "mean_gate_control_below_1e-2": 0.05,
        }
    first_gate = final.pop("first_gate_mean", 0.5)
    values |= final
    point = {k: values[k] for k in ("val_loss", "f_attn", "m_act", "gate_mean") if k in values}
    return {
        "index": 0,
        "seed_index": seed,
        "params": {"gate": gate, "lr": lr},
        "result": {
            "settings": {"eval_every": 10},
            "n_params": 1000,
            "diverged": diverged,
            "diverged_step": 5 if diverged else None,
            "loss_floor": 1.9,
            "train_loss": [3.0, 2.5, 2.0],
            "trajectory": [point | {"step": 0, "gate_mean": first_gate}, point | {"step": 20}]
            if gated
            else [point | {"step": 0}, point | {"step": 20}],
            "final": {"val_loss": float("inf")} if diverged else values,
        },
    }


def _runs(records):
    return lambda ctx: records


# ------------------------------------------------------------------------------- decision rules
def test_gate_is_sparse_needs_all_three_conditions():
    ok = ga.gate_is_sparse(
        np.array([0.2, 0.6, 0.2, 0.2]),  # final mean
        np.array([0.5, 0.7, 0.1, 0.5]),  # at init
        np.array([0.3, 0.3, 0.3, 0.01]),  # share < 0.1
        np.array([0.0, 0.0, 0.0, 0.05]),  # control's share < 0.1
    )
    np.testing.assert_array_equal(ok, [True, False, False, False])


def test_sink_verdict_needs_a_baseline_sink():
    assert ga.sink_verdict(np.array([1.2, 2.9]), np.array([0.1, 0.1])) is Verdict.INCONCLUSIVE
    assert ga.sink_verdict(np.array([5.0, 1.0]), np.array([0.2, 3.0])) is Verdict.PASS
    assert ga.sink_verdict(np.array([5.0, 4.0]), np.array([0.2, 0.6])) is Verdict.FAIL


def test_m_act_verdict_counts_seeds():
    assert ga.m_act_verdict(np.array([2.0]), np.array([1.0])) == (Verdict.INCONCLUSIVE, 1)
    base = np.array([2.0, 2, 2, 2, 2])
    assert ga.m_act_verdict(base, np.array([1.0, 1, 1, 1, 3])) == (Verdict.PASS, 4)
    assert ga.m_act_verdict(base, np.array([1.0, 1, 1, 3, 3])) == (Verdict.FAIL, 3)


def test_paired_ci_is_the_student_t_interval():
    d = np.array([0.01, -0.02, 0.005, -0.01])
    mean, low, high = ga.paired_ci(d)
    ref = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert (low, high) == pytest.approx((ref.low, ref.high))
    assert mean == pytest.approx(d.mean())
    assert np.isnan(ga.paired_ci(np.array([0.3]))[1])


def test_loss_verdict():
    assert ga.loss_verdict(-0.02, 0.005) is Verdict.PASS
    assert ga.loss_verdict(0.001, 0.02) is Verdict.FAIL
    assert ga.loss_verdict(-0.02, 0.05) is Verdict.INCONCLUSIVE
    assert ga.loss_verdict(float("nan"), float("nan")) is Verdict.INCONCLUSIVE


def test_lr_failures_and_verdict():
    losses = np.array([[2.0, 2.2], [2.0, np.nan], [2.0, 2.04]])  # (seeds, LRs)
    diverged = np.array([[False, False], [False, True], [False, False]])
    np.testing.assert_array_equal(ga.lr_failures(losses, diverged), [True, True, False])
    assert ga.lr_verdict(2, 0) is Verdict.PASS
    assert ga.lr_verdict(0, 0) is Verdict.INCONCLUSIVE
    assert ga.lr_verdict(1, 1) is Verdict.INCONCLUSIVE
    assert ga.lr_verdict(0, 1) is Verdict.FAIL
    all_diverged = ga.lr_degradation(np.array([[np.nan, np.nan]]), np.array([[True, True]]))
    assert all_diverged[0] == np.inf


# ------------------------------------------------------------------------- claims on fake records
def test_sink_removed_passes_fails_and_is_inconclusive_without_a_sink(ctx):
    sink = [_record("none", 0, f_attn=8 * UNIFORM), _record("elementwise", 0, f_attn=0.5 * UNIFORM)]
    sink.append(_record("ns_sigmoid", 0, f_attn=7 * UNIFORM))
    result = ga.sink_removed(ctx, runs=_runs(sink))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["gated_over_baseline"][0] == pytest.approx(1 / 16)
    assert (ctx.out_dir / result.figures[0]).is_file()
    wrong = ga.sink_removed(ctx, gated_arm="ns_sigmoid", runs=_runs(sink))
    assert wrong.verdict is Verdict.FAIL
    no_sink = [_record("none", 0, f_attn=2 * UNIFORM), _record("elementwise", 0, f_attn=UNIFORM)]
    undecided = ga.sink_removed(ctx, runs=_runs(no_sink))
    assert undecided.verdict is Verdict.INCONCLUSIVE
    assert "no baseline seed formed a sink" in undecided.summary


def test_massive_activations_drop(ctx):
    base_m, gated_m = [5.0, 6, 7, 5, 4], [1.0, 1, 1, 1, 9]
    records = [_record("none", s, m_act=m) for s, m in enumerate(base_m)]
    records += [_record("elementwise", s, m_act=m) for s, m in enumerate(gated_m)]
    assert ga.massive_activations_drop(ctx, runs=_runs(records)).verdict is Verdict.PASS
    wrong = ga.massive_activations_drop(ctx, gated_arm="none", runs=_runs(records))
    assert wrong.verdict is Verdict.FAIL


def test_loss_not_worse(ctx):
    deltas = [-0.012, -0.008, -0.011, -0.009, -0.010]
    records = [_record("none", s) for s in range(5)]
    better = records + [_record("elementwise", s, val_loss=2.0 + d) for s, d in enumerate(deltas)]
    result = ga.loss_not_worse(ctx, runs=_runs(better))
    assert result.verdict is Verdict.PASS, result.summary
    assert "gated better" in result.summary
    worse = records + [_record("elementwise", s, val_loss=2.05 + d) for s, d in enumerate(deltas)]
    assert ga.loss_not_worse(ctx, runs=_runs(worse)).verdict is Verdict.FAIL


def test_lr_tolerance(ctx):
    def grid(top_base: float, top_gated: float, diverge_base: bool = False) -> list[dict]:
        return [
            _record("none", 0, 3e-3, val_loss=2.0),
            _record("none", 0, 3e-2, val_loss=top_base, diverged=diverge_base),
            _record("elementwise", 0, 3e-3, val_loss=2.0),
            _record("elementwise", 0, 3e-2, val_loss=top_gated),
        ]

    assert ga.lr_tolerance(ctx, runs=_runs(grid(2.3, 1.95))).verdict is Verdict.PASS
    reversed_claim = ga.lr_tolerance(ctx, runs=_runs(grid(1.95, 2.3)))
    assert reversed_claim.verdict is Verdict.FAIL


def test_gate_sparse(ctx):
    records = [_record("none", 0), _record("elementwise", 0)]
    records.append(
        _record("ns_sigmoid", 0, gate_mean=0.7, first_gate_mean=0.75, **{"gate_below_0.1": 0.0})
    )
    result = ga.gate_sparse(ctx, runs=_runs(records))
    assert result.verdict is Verdict.PASS, result.summary
    wrong = ga.gate_sparse(
        ctx, gated_arm="ns_sigmoid", control_arm="elementwise", runs=_runs(records)
    )
    assert wrong.verdict is Verdict.FAIL


def test_relation_status_and_ordering_verdict():
    assert ga.relation_status(">", 0.1, 0.9) == "holds"
    assert ga.relation_status(">", -0.1, 0.9) == "undecided"
    assert ga.relation_status(">", -0.9, -0.1) == "violated"
    assert ga.relation_status(">=", -0.1, 0.9) == "holds"  # equal removal is allowed
    assert ga.relation_status(">=", -0.9, -0.1) == "violated"
    assert ga.relation_status(">", float("nan"), float("nan")) == "undecided"
    with pytest.raises(ValueError, match="'>' or '>='"):
        ga.relation_status("<", 0.1, 0.9)
    assert ga.ordering_verdict(["holds", "holds"]) is Verdict.PASS
    assert ga.ordering_verdict(["holds", "undecided"]) is Verdict.INCONCLUSIVE
    assert ga.ordering_verdict(["undecided", "violated"]) is Verdict.FAIL


#: F-Attn in units of the uniform value, per arm: the paper's ordering (Table 4's pattern)
ORDERED = {
    "none": 10.0,
    "elementwise": 0.5,
    "headwise": 0.8,
    "g2_value": 4.0,
    "ns_sigmoid": 8.0,
    "input_independent": 6.0,
    "g5_output": 1.0,
}


def _ordering_records(sink_seeds: int) -> list[dict]:
    """Five paired seeds, the first ``sink_seeds`` with a baseline sink (the rest 1.5× uniform);
    per-seed noise of ±30% on every arm."""
    noise = [1.0, 1.3, 0.8, 1.1, 0.7]
    records = []
    for seed, wiggle in enumerate(noise):
        for gate, level in ORDERED.items():
            f = (level if seed < sink_seeds else 1.5) * UNIFORM * wiggle ** (1 + (gate == "none"))
            records.append(_record(gate, seed, f_attn=f))
    return records


def test_sink_ordering_passes_and_fails_with_a_wrong_order(ctx):
    records = _ordering_records(sink_seeds=4)
    result = ga.sink_ordering(ctx, runs=_runs(records))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["seeds_with_sink"] == 4
    relation = result.measured["relations"]["headwise > ns_sigmoid"]
    assert relation["n_seeds"] == 4
    assert relation["log_ratio"] == pytest.approx(np.full(4, np.log(8.0 / 0.8)))
    assert (ctx.out_dir / result.figures[0]).is_file()
    wrong = ga.sink_ordering(
        ctx, ordering=(("ns_sigmoid", ">", "elementwise"),), runs=_runs(records)
    )
    assert wrong.verdict is Verdict.FAIL, wrong.summary
    assert wrong.measured["relations"]["ns_sigmoid > elementwise"]["status"] == "violated"


def test_sink_ordering_needs_three_seeds_with_a_sink(ctx):
    result = ga.sink_ordering(ctx, runs=_runs(_ordering_records(sink_seeds=2)))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "needs ≥ 3" in result.summary


def test_sink_ordering_strict_and_weak_relations_on_near_equal_arms(ctx):
    records = _ordering_records(sink_seeds=5)
    near = [r for r in records if r["params"]["gate"] != "headwise"]
    for seed, f in enumerate([0.9, 0.4, 0.6, 0.45, 0.55]):  # about elementwise's 0.5·wiggle
        near.append(_record("headwise", seed, f_attn=f * UNIFORM))
    result = ga.sink_ordering(ctx, ordering=(("elementwise", ">", "headwise"),), runs=_runs(near))
    assert result.verdict is Verdict.INCONCLUSIVE, result.summary
    weak = ga.sink_ordering(ctx, ordering=(("elementwise", ">=", "headwise"),), runs=_runs(near))
    assert weak.verdict is Verdict.PASS, weak.summary


def test_claims_name_a_missing_arm(ctx):
    with pytest.raises(ValueError, match="headwise"):
        ga.sink_removed(ctx, gated_arm="headwise", runs=_runs([_record("none", 0)]))


# ---------------------------------------------------------------------- one tiny real sweep
TINY_BASE = {
    "steps": 30,
    "batch": 4,
    "seq_len": 16,
    "d_model": 16,
    "n_layers": 1,
    "n_heads": 2,
    "d_ffn": 40,
    "eval_every": 10,
    "eval_batch": 4,
}
TINY_TEXT = {
    "base": {"task": "text", **TINY_BASE},
    "lrs": [3e-3, 3e-2],
    "base_lr": 3e-3,
    "controls": ["ns_sigmoid"],
}
TINY_SINK = {
    "base": {"task": "backcopy", "lr": 1e-2, "vocab": 8, "n_triggers": 2, **TINY_BASE},
    "gates": list(ga.ARM_LABELS),
}


@pytest.fixture(scope="module")
def tiny_ctx(tmp_path_factory):
    pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("gated")
    return Context(scale="quick", seed=0, out_dir=out, claim_id="gated_attention.under_test")


def test_tiny_real_sweep_runs_every_claim(tiny_ctx):
    text = functools.partial(ga.text_runs, text=TINY_TEXT, seeds=2)
    sink = functools.partial(ga.sink_runs, sink=TINY_SINK, seeds=2)
    results = {
        "gate_sparse": ga.gate_sparse(tiny_ctx, runs=text),
        "massive": ga.massive_activations_drop(tiny_ctx, runs=text),
        "loss": ga.loss_not_worse(tiny_ctx, runs=text),
        "lr": ga.lr_tolerance(
            tiny_ctx, runs=functools.partial(ga.text_lr_runs, text=TINY_TEXT, seeds=2)
        ),
        "sink": ga.sink_removed(tiny_ctx, runs=sink),
        "ordering": ga.sink_ordering(tiny_ctx, runs=sink),
    }
    for result in results.values():
        assert result.verdict in set(Verdict) - {Verdict.ERROR}
        assert (tiny_ctx.out_dir / result.figures[0]).is_file()
    # two seeds cannot decide "≥ 4 of 5"; a 30-step run has no 3× sink to remove
    assert results["massive"].verdict is Verdict.INCONCLUSIVE
    assert results["sink"].measured["baseline_over_uniform"][0] < ga.SINK_MIN_RATIO
    assert results["sink"].verdict is Verdict.INCONCLUSIVE
    assert results["ordering"].verdict is Verdict.INCONCLUSIVE  # no seed has a sink
    ordering_counts = results["ordering"].measured["n_params"]
    assert set(ordering_counts) == set(ga.ARM_LABELS)
    counts = results["loss"].measured["n_params"]
    assert abs(counts["elementwise"] - counts["none"]) <= 1.5 * 16
    # a wrong theory on real runs: the NS-sigmoid gate never falls below 0.5
    wrong = ga.gate_sparse(tiny_ctx, gated_arm="ns_sigmoid", control_arm="elementwise", runs=text)
    assert wrong.verdict is Verdict.FAIL
    assert np.all(np.asarray(wrong.measured["gate_mean"]) >= 0.5)


def test_listing_the_claims_does_not_import_torch():
    code = (
        "import sys; from paper_checks.claims import all_claims; "
        "ids = [c.id for c in all_claims()]; "
        "assert 'gated_attention.sink_removed' in ids; assert 'torch' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
