"""The gated_attention claims: decision rules on hand-made run records (PASS, FAIL with a wrong
theory, INCONCLUSIVE where the data cannot decide) and one tiny real training sweep end to end."""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest

from neural.attention_metrics import uniform_first_token_weight
from paper_checks.checks import gated_attention as ga
from paper_checks.context import Context
from paper_checks.results import Verdict
from tests.paper_checks.checks import as_run

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
def test_ordering_parts_strict_and_weak():
    strict, weak = ga.relation_part("a", ">", "b"), ga.relation_part("a", ">=", "b")
    assert (strict.pass_margin, strict.fail_margin) == (0.0, 0.0)
    assert weak.pass_margin == weak.fail_margin == pytest.approx(-np.log(2))
    with pytest.raises(ValueError, match="'>' or '>='"):
        ga.relation_part("a", "<", "b")
    assert len(ga.ordering_rule().parts) == len(ga.SINK_ORDERING)


# ------------------------------------------------------------------------- claims on fake records
def _sink_records(relative: list[float], base: float = 8.0) -> list[dict]:
    """Seeds whose baseline has a ``base``× uniform sink and a gated F-Attn of ``relative`` × it."""
    records = []
    for seed, r in enumerate(relative):
        records.append(_record("none", seed, f_attn=base * UNIFORM))
        records.append(_record("elementwise", seed, f_attn=r * base * UNIFORM))
    return records


def test_sink_removed_passes_fails_and_is_inconclusive_without_a_sink(ctx):
    sink = _sink_records([1 / 16, 1 / 14, 1 / 18])
    sink += [_record("ns_sigmoid", s, f_attn=7 * UNIFORM * (1 + 0.02 * s)) for s in range(3)]
    result = as_run(ga.sink_removed, ctx, runs=_runs(sink))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["gated_over_baseline"][0] == pytest.approx(1 / 16)
    assert result.decision["units"]["f_attn_log_ratio"][0] == pytest.approx(np.log(1 / 16))
    assert (ctx.out_dir / result.figures[0]).is_file()
    wrong = as_run(ga.sink_removed, ctx, gated_arm="ns_sigmoid", runs=_runs(sink))
    assert wrong.verdict is Verdict.FAIL
    no_sink = [_record("none", 0, f_attn=2 * UNIFORM), _record("elementwise", 0, f_attn=UNIFORM)]
    undecided = as_run(ga.sink_removed, ctx, runs=_runs(no_sink))
    assert undecided.verdict is Verdict.INCONCLUSIVE
    assert "no baseline seed formed a sink" in undecided.summary
    assert undecided.decision["units"] == {"f_attn_log_ratio": []}


def test_sink_removed_passes_well_below_half_the_baseline(ctx):
    result = as_run(ga.sink_removed, ctx, runs=_runs(_sink_records([0.3, 0.35, 0.32, 0.28, 0.33])))
    assert result.verdict is Verdict.PASS, result.summary


@pytest.mark.claim_fails("gated_attention.sink_removed")
def test_sink_removed_fails_when_the_gate_keeps_slightly_over_half_the_sink(ctx):
    # a wrong gate that leaves 0.55–0.6× of the sink in every seed: the lower bound of the mean
    # ln ratio lies above ln 0.5
    result = as_run(ga.sink_removed, ctx, runs=_runs(_sink_records([0.55, 0.6, 0.57, 0.58, 0.56])))
    assert result.verdict is Verdict.FAIL, result.summary
    assert result.measured["gated_over_baseline_max"] == pytest.approx(0.6)


def test_sink_removed_with_two_seeds_with_a_sink_is_inconclusive_by_declaration(ctx):
    result = as_run(ga.sink_removed, ctx, runs=_runs(_sink_records([0.1, 0.1])))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert result.decision["units_needed"] == 3


def _m_act_records(base_m: list[float], gated_m: list[float]) -> list[dict]:
    records = [_record("none", s, m_act=m) for s, m in enumerate(base_m)]
    return records + [_record("elementwise", s, m_act=m) for s, m in enumerate(gated_m)]


def test_massive_activations_drop_passes_when_gated_is_lower_by_a_consistent_factor(ctx):
    base_m = [5.0, 6, 7, 5, 4]
    gated = [4.0, 5.0, 5.4, 4.1, 3.3]  # 0.77–0.83× the baseline
    result = as_run(ga.massive_activations_drop, ctx, runs=_runs(_m_act_records(base_m, gated)))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["share_gated_lower"] == pytest.approx(1.0)


@pytest.mark.claim_fails("gated_attention.massive_activations_drop")
def test_massive_activations_drop_fails_when_the_gate_raises_m_act_slightly(ctx):
    # a wrong gate that raises M-Act by 3–8% in every seed
    base_m = [5.0, 6, 7, 5, 4]
    gated = [5.2, 6.4, 7.3, 5.4, 4.2]
    result = as_run(ga.massive_activations_drop, ctx, runs=_runs(_m_act_records(base_m, gated)))
    assert result.verdict is Verdict.FAIL, result.summary


def test_massive_activations_drop_is_inconclusive_at_four_of_five_with_the_fifth_far_off(ctx):
    # 4 of 5 lower (the old rule's PASS) but the fifth seed doubles M-Act: no decision
    base_m = [5.0, 6, 7, 5, 4]
    result = as_run(
        ga.massive_activations_drop,
        ctx,
        runs=_runs(_m_act_records(base_m, [4.9, 5.8, 6.9, 4.9, 8.0])),
    )
    assert result.verdict is Verdict.INCONCLUSIVE, result.summary
    one = as_run(ga.massive_activations_drop, ctx, runs=_runs(_m_act_records([5.0], [1.0])))
    assert one.verdict is Verdict.INCONCLUSIVE
    assert "fewer than the 3" in one.summary


def _loss_records(deltas: list[float]) -> list[dict]:
    """Paired seeds with the baseline at 2.0 nats and the gated arm at 2.0 + Δ."""
    records = [_record("none", s) for s in range(len(deltas))]
    return records + [_record("elementwise", s, val_loss=2.0 + d) for s, d in enumerate(deltas)]


def _delta_bounds(result) -> tuple[float, float]:
    """The bounds of the mean paired Δ in a loss_not_worse decision."""
    (delta,) = result.decision["parts"]
    return delta["lower"], delta["upper"]


def test_loss_not_worse_passes_when_gated_is_better_near_zero(ctx):
    # mean −0.006 nats, upper bound about −0.002: below 0
    result = as_run(
        ga.loss_not_worse, ctx, runs=_runs(_loss_records([-0.004, -0.008, -0.003, -0.009, -0.006]))
    )
    assert result.verdict is Verdict.PASS, result.summary
    assert _delta_bounds(result)[1] < 0


@pytest.mark.claim_fails("gated_attention.loss_not_worse")
def test_loss_not_worse_fails_when_gated_is_slightly_worse(ctx):
    # a gated arm 0.006 nats worse (≈ 0.3% in perplexity): the lower bound lies above 0
    result = as_run(
        ga.loss_not_worse, ctx, runs=_runs(_loss_records([0.004, 0.008, 0.003, 0.009, 0.006]))
    )
    assert result.verdict is Verdict.FAIL, result.summary
    assert 0 < _delta_bounds(result)[0] < 0.01


def test_loss_not_worse_is_inconclusive_when_the_bounds_straddle_zero(ctx):
    result = as_run(
        ga.loss_not_worse, ctx, runs=_runs(_loss_records([-0.02, 0.01, -0.015, 0.012, -0.01]))
    )
    assert result.verdict is Verdict.INCONCLUSIVE, result.summary
    low, high = _delta_bounds(result)
    assert low < 0 < high
    assert result.decision["units_needed"] is not None
    one_seed = as_run(ga.loss_not_worse, ctx, runs=_runs(_loss_records([-0.05])))
    assert one_seed.verdict is Verdict.INCONCLUSIVE
    assert one_seed.decision["units"]["delta"] == [pytest.approx(-0.05)]


def _lr_grid(base_top: list[float], gated_top: list[float]) -> list[dict]:
    """Paired seeds: each arm at 2.0 nats at LR 3e-3 and at the given loss at LR 3e-2 (NaN:
    diverged)."""
    records = []
    for gate, tops in (("none", base_top), ("elementwise", gated_top)):
        for seed, top in enumerate(tops):
            records.append(_record(gate, seed, 3e-3, val_loss=2.0))
            records.append(_record(gate, seed, 3e-2, val_loss=top, diverged=bool(np.isnan(top))))
    return records


def test_lr_tolerance_passes_when_the_baseline_degrades_slightly_more(ctx):
    base, gated = [2.08, 2.10, 2.09, 2.07, 2.11], [2.06, 2.07, 2.07, 2.05, 2.08]
    result = as_run(ga.lr_tolerance, ctx, runs=_runs(_lr_grid(base, gated)))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["excess_gap"] == pytest.approx([0.02, 0.03, 0.02, 0.02, 0.03])
    assert (result.measured["failures_baseline"], result.measured["failures_gated"]) == (5, 4)


@pytest.mark.claim_fails("gated_attention.lr_tolerance")
def test_lr_tolerance_fails_when_the_gated_arm_degrades_slightly_more(ctx):
    # the wrong theory "the gate lowers the tolerated LR": G1 degrades 0.01–0.02 nats more
    base, gated = [2.06, 2.04, 2.07, 2.03, 2.05], [2.08, 2.05, 2.09, 2.04, 2.07]
    result = as_run(ga.lr_tolerance, ctx, runs=_runs(_lr_grid(base, gated)))
    assert result.verdict is Verdict.FAIL, result.summary


def test_lr_tolerance_counts_a_diverged_baseline_at_the_divergence_level(ctx):
    base, gated = [np.nan, np.nan, np.nan], [2.1, 2.2, 2.15]
    result = as_run(ga.lr_tolerance, ctx, runs=_runs(_lr_grid(base, gated)))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["excess_baseline"] == pytest.approx([ga.DIVERGED_LOSS - 2] * 3)


def test_lr_tolerance_is_inconclusive_when_no_run_degrades(ctx):
    base, gated = [2.0] * 5, [2.0] * 5
    result = as_run(ga.lr_tolerance, ctx, runs=_runs(_lr_grid(base, gated)))
    assert result.verdict is Verdict.INCONCLUSIVE, result.summary
    assert "no unit count decides it" in result.summary


def _sparse_records(gate_means: list[float], below: list[float]) -> list[dict]:
    """Paired text seeds: baseline, G1 with the given final mean gate and share < 0.1, and an
    NS-sigmoid control at its 0.5 floor."""
    records = []
    for seed, (mean, share) in enumerate(zip(gate_means, below, strict=True)):
        records.append(_record("none", seed))
        records.append(_record("elementwise", seed, gate_mean=mean, **{"gate_below_0.1": share}))
        records.append(_record("ns_sigmoid", seed, gate_mean=0.66, **{"gate_below_0.1": 0.0}))
    return records


SINK_GATES = [
    _record("none", 0),
    _record("elementwise", 0, gate_mean=0.04, **{"gate_below_0.1": 0.95}),
]


def test_gate_sparse_passes_inside_the_papers_level(ctx):
    records = _sparse_records([0.20, 0.21, 0.19, 0.20, 0.22], [0.30, 0.28, 0.31, 0.29, 0.30])
    result = as_run(ga.gate_sparse, ctx, runs=_runs(records), sink=_runs(SINK_GATES))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["sink_gate_mean"][0] == pytest.approx(0.04)
    assert "sink testbed" in result.summary
    assert (ctx.out_dir / result.figures[0]).is_file()


@pytest.mark.claim_fails("gated_attention.gate_sparse")
def test_gate_sparse_fails_a_gate_just_above_the_papers_level(ctx):
    # mean 0.27-0.28 with 25% of values < 0.1: a gate that fell well below σ(0) = 0.5 and has
    # far more values near 0 than NS-sigmoid, but misses mean ≤ 0.25
    records = _sparse_records([0.27, 0.28, 0.27, 0.275, 0.28], [0.25, 0.25, 0.26, 0.25, 0.26])
    result = as_run(ga.gate_sparse, ctx, runs=_runs(records), sink=None)
    assert result.verdict is Verdict.FAIL, result.summary
    assert -0.15 < result.measured["sparsity_margin_max"] < 0


@pytest.mark.claim_fails("gated_attention.gate_sparse")
def test_gate_sparse_fails_a_low_mean_gate_with_too_few_values_near_zero(ctx):
    # mean 0.22 (below 0.25) but only 17-18% of values < 0.1: not sparse at the paper's level
    # (five seeds: with three the rule reports that about four would decide it)
    records = _sparse_records([0.22] * 5, [0.17, 0.18, 0.175, 0.17, 0.18])
    result = as_run(ga.gate_sparse, ctx, runs=_runs(records), sink=None)
    assert result.verdict is Verdict.FAIL, result.summary


def test_gate_sparse_is_inconclusive_near_the_threshold_and_on_one_seed(ctx):
    records = _sparse_records([0.24, 0.27, 0.25], [0.25, 0.25, 0.25])
    result = as_run(ga.gate_sparse, ctx, runs=_runs(records), sink=None)
    assert result.verdict is Verdict.INCONCLUSIVE, result.summary
    assert result.measured["seeds_sparse"] == 2
    one = as_run(ga.gate_sparse, ctx, runs=_runs(_sparse_records([0.1], [0.5])), sink=None)
    assert one.verdict is Verdict.INCONCLUSIVE  # one seed: by declaration
    assert one.decision["units"]["gate_mean"] == [pytest.approx(0.1)]


#: F-Attn in units of the uniform value, per arm: the paper's ordering (Table 4's pattern)
ORDERED = {
    "none": 10.0,
    "elementwise": 0.5,
    "headwise": 0.8,
    "head_shared": 2.0,
    "g2_value": 4.0,
    "ns_sigmoid": 8.0,
    "input_independent": 6.0,
    "g5_output": 1.0,
}


def _ordering_records(sink_seeds: int, n: int = 5) -> list[dict]:
    """``n`` paired seeds, the first ``sink_seeds`` with a baseline sink (the rest 1.5× uniform);
    per-seed noise of ±30% on every arm."""
    noise = [1.0, 1.3, 0.8, 1.1, 0.7, 1.2, 0.9, 1.05, 0.85, 1.15]
    records = []
    for seed, wiggle in enumerate(noise[:n]):
        for gate, level in ORDERED.items():
            f = (level if seed < sink_seeds else 1.5) * UNIFORM * wiggle ** (1 + (gate == "none"))
            records.append(_record(gate, seed, f_attn=f))
    return records


def test_sink_ordering_passes_and_fails_with_a_wrong_order(ctx):
    records = _ordering_records(sink_seeds=4)
    result = as_run(ga.sink_ordering, ctx, runs=_runs(records))
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["seeds_with_sink"] == 4
    relation = _relation(result, "head_shared > ns_sigmoid")
    assert relation["n"] == 4
    assert result.decision["units"]["head_shared > ns_sigmoid"] == pytest.approx(
        np.full(4, np.log(8.0 / 2.0))
    )
    assert (ctx.out_dir / result.figures[0]).is_file()
    # a wrong ordering replaces the rule itself (its relations): it comes with its own rule
    wrong = _ordered(ctx, (("ns_sigmoid", ">", "elementwise"),), records)
    assert wrong.verdict is Verdict.FAIL, wrong.summary
    assert _relation(wrong, "ns_sigmoid > elementwise")["verdict"] == "FAIL"


def _ordered(ctx, ordering, records):
    """sink_ordering's headline under a wrong ``ordering`` and that ordering's rule."""
    return as_run(ga.sink_ordering, ctx, ga.ordering_rule(ordering), ordering=ordering,
                  runs=_runs(records))  # fmt: skip


def _relation(result, name: str) -> dict:
    """The decision's part of one relation of a sink_ordering headline."""
    return next(p for p in result.decision["parts"] if p["statistic"] == name)


def _near(records: list[dict], gate: str, factor: float, of: str) -> list[dict]:
    """``records`` with arm ``gate`` replaced by ``factor`` × arm ``of``'s F-Attn, with its own
    ±5% per-seed noise."""
    kept = [r for r in records if r["params"]["gate"] != gate]
    own = [1.05, 0.97, 1.02, 0.95, 1.0]
    for r in [r for r in records if r["params"]["gate"] == of]:
        f = factor * r["result"]["final"]["f_attn"] * own[r["seed_index"]]
        kept.append(_record(gate, r["seed_index"], f_attn=f))
    return kept


@pytest.mark.claim_fails("gated_attention.sink_ordering")
def test_sink_ordering_fails_when_head_shared_keeps_slightly_more_sink_than_g2(ctx):
    # head-shared leaves ≈ 1.2× G2's first-token weight (the paper: 0.301 vs 0.297):
    # "head-shared > G2" is violated (mean ln ratio ≈ −0.18, upper bound below 0)
    records = _near(_ordering_records(sink_seeds=5), "head_shared", 1.2, of="g2_value")
    result = as_run(ga.sink_ordering, ctx, runs=_runs(records))
    assert result.verdict is Verdict.FAIL, result.summary
    relation = _relation(result, "head_shared > g2_value")
    assert relation["verdict"] == "FAIL"
    assert -0.3 < relation["mean"] < 0
    holding = [p["statistic"] for p in result.decision["parts"] if p["verdict"] == "PASS"]
    assert len(holding) == 4  # the other four still hold


@pytest.mark.claim_fails("gated_attention.sink_ordering")
def test_sink_ordering_fails_a_wrong_theory_that_head_shared_matches_headwise(ctx):
    # the wrong theory "head-shared removes the sink at least as well as headwise" on data where
    # head-shared keeps 2.5× headwise's weight (beyond the factor 2 that '≥' tolerates): FAIL
    records = _near(_ordering_records(sink_seeds=5), "head_shared", 2.5, of="headwise")
    wrong = _ordered(ctx, (("head_shared", ">=", "headwise"),), records)
    assert wrong.verdict is Verdict.FAIL, wrong.summary
    right = _ordered(ctx, (("headwise", ">", "head_shared"),), records)
    assert right.verdict is Verdict.PASS, right.summary


def test_a_sink_in_some_heads_counts_for_the_ordering(ctx):
    # mean F-Attn below 3× uniform but one head above 0.3 (sink rate > 0): the seed counts
    records = _ordering_records(sink_seeds=2)
    for r in records:
        if r["params"]["gate"] == "none" and r["seed_index"] == 2:
            r["result"]["final"]["sink_rate"] = 0.25
    result = as_run(ga.sink_ordering, ctx, runs=_runs(records))
    assert result.measured["seeds_with_sink"] == 3


def test_sink_ordering_needs_three_seeds_with_a_sink(ctx):
    result = as_run(ga.sink_ordering, ctx, runs=_runs(_ordering_records(sink_seeds=2)))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "fewer than the 3" in result.summary
    none = as_run(ga.sink_ordering, ctx, runs=_runs(_ordering_records(sink_seeds=0)))
    assert none.verdict is Verdict.INCONCLUSIVE
    assert all(v == [] for v in none.decision["units"].values())


def test_sink_ordering_strict_and_weak_relations_on_near_equal_arms(ctx):
    # eight seeds: the non-inferiority margin ln 2 needs about six at this spread
    records = _ordering_records(sink_seeds=8, n=8)
    near = [r for r in records if r["params"]["gate"] != "headwise"]
    for seed, f in enumerate([0.9, 0.4, 0.6, 0.45, 0.55, 0.5, 0.65, 0.42]):  # ≈ elementwise's
        near.append(_record("headwise", seed, f_attn=f * UNIFORM))
    result = _ordered(ctx, (("elementwise", ">", "headwise"),), near)
    assert result.verdict is Verdict.INCONCLUSIVE, result.summary
    weak = _ordered(ctx, (("elementwise", ">=", "headwise"),), near)
    assert weak.verdict is Verdict.PASS, weak.summary


def test_claims_name_a_missing_arm(ctx):
    with pytest.raises(ValueError, match="headwise"):
        as_run(ga.sink_removed, ctx, gated_arm="headwise", runs=_runs([_record("none", 0)]))


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
    "gates": ["none", "elementwise", "headwise"],
}
TINY_ORDER = {
    "base": TINY_SINK["base"] | {"n_layers": 2, "qk_norm": False},
    "gates": ga.ORDERING_GATES,
    "seeds": 2,
}


@pytest.fixture(scope="module")
def tiny_ctx(tmp_path_factory):
    pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("gated")
    return Context(scale="quick", seed=0, out_dir=out, claim_id="gated_attention.under_test")


def test_tiny_real_sweep_runs_every_claim(tiny_ctx):
    text = functools.partial(ga.text_runs, text=TINY_TEXT, seeds=3)
    sink = functools.partial(ga.sink_runs, sink=TINY_SINK, seeds=2)
    results = {
        "gate_sparse": as_run(ga.gate_sparse, tiny_ctx, runs=text, sink=sink),
        "massive": as_run(ga.massive_activations_drop, tiny_ctx, runs=text),
        "loss": as_run(ga.loss_not_worse, tiny_ctx, runs=text),
        "lr": as_run(
            ga.lr_tolerance,
            tiny_ctx,
            runs=functools.partial(ga.text_lr_runs, text=TINY_TEXT, seeds=3),
        ),
        "sink": as_run(ga.sink_removed, tiny_ctx, runs=sink),
        "ordering": as_run(
            ga.sink_ordering,
            tiny_ctx,
            runs=functools.partial(ga.ordering_runs, ordering=TINY_ORDER),
        ),
    }
    for result in results.values():
        assert result.verdict in set(Verdict) - {Verdict.ERROR}
        assert (tiny_ctx.out_dir / result.figures[0]).is_file()
    for result in results.values():  # every claim reports its units
        assert result.decision is not None
    # a 30-step run has no 3× sink to remove
    assert results["sink"].measured["baseline_over_uniform"][0] < ga.SINK_MIN_RATIO
    assert results["sink"].verdict is Verdict.INCONCLUSIVE
    assert results["ordering"].verdict is Verdict.INCONCLUSIVE  # no seed has a sink
    ordering_counts = results["ordering"].measured["n_params"]
    assert set(ordering_counts) == set(ga.ORDERING_GATES) | {"none"}
    assert ordering_counts["head_shared"] - ordering_counts["none"] == 2 * 16  # d per layer
    counts = results["loss"].measured["n_params"]
    assert abs(counts["elementwise"] - counts["none"]) <= 1.5 * 16
    # a wrong theory on real runs (3 seeds): the NS-sigmoid gate never falls below 0.5
    wrong = as_run(
        ga.gate_sparse,
        tiny_ctx,
        gated_arm="ns_sigmoid",
        control_arm="elementwise",
        runs=text,
        sink=None,
    )
    assert wrong.verdict is Verdict.FAIL
    assert np.all(np.asarray(wrong.measured["gate_mean"]) >= 0.5)


def test_listing_the_claims_does_not_import_torch():
    code = (
        "import sys; from paper_checks.claims import all_claims; "
        "ids = [c.id for c in all_claims()]; "
        "assert 'gated_attention.sink_removed' in ids; assert 'torch' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------- a diverged run in any arm
def _diverged(records: list[dict], gate: str, seed: int) -> list[dict]:
    """``records`` with the run of ``gate`` at ``seed`` replaced by a diverged one (its final
    numbers reduced to the divergence loss, as :func:`neural.gated_training.train_run` leaves
    them)."""
    return [
        _record(gate, seed, r["params"]["lr"], diverged=True)
        if (r["params"]["gate"], r["seed_index"]) == (gate, seed)
        else r
        for r in records
    ]


DIVERGING = {
    "gate_sparse": lambda: _sparse_records([0.2, 0.21, 0.19, 0.2], [0.3, 0.28, 0.31, 0.29]),
    "massive_activations_drop": lambda: _m_act_records([5.0, 6, 7, 5], [4.0, 5, 5.4, 4.1]),
    "sink_removed": lambda: (
        _sink_records([1 / 16, 1 / 14, 1 / 18, 1 / 15])
        + [_record("ns_sigmoid", s, f_attn=7 * UNIFORM) for s in range(4)]
    ),
    "loss_not_worse": lambda: _loss_records([-0.01, -0.02, -0.015, -0.01]),
    "sink_ordering": lambda: _ordering_records(4, n=4),
}


@pytest.mark.parametrize("gate", ["none", "elementwise"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", sorted(DIVERGING))
def test_a_diverged_run_in_either_arm_is_read_not_crashed_on(ctx, name, gate, seed):
    # a diverged run keeps only its loss: every check, its arrays and its figure read it as
    # missing (NaN), the first seed's included
    records = _diverged(DIVERGING[name](), gate, seed)
    # gate_sparse also reads the sink testbed's gate (reported, not decisive): left out here, or
    # the test would train that testbed for real
    extra = {"sink": None} if name == "gate_sparse" else {}
    result = as_run(getattr(ga, name), ctx, runs=_runs(records), **extra)
    assert result.verdict in (Verdict.PASS, Verdict.FAIL, Verdict.INCONCLUSIVE), result.summary
    arm = "_baseline" if gate == "none" else "_gated"
    for key, stack in result.arrays.items():
        if key.endswith(arm) or (key == "gate_hist" and gate != "none"):
            assert np.isnan(stack[seed]).all(), key
            assert not np.isnan(np.delete(stack, seed, axis=0)).any(), key
