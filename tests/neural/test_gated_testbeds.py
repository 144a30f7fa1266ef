"""The testbeds' sweep call and the readouts of their runs, on hand-made sweep records (no
training: the sweep is a stand-in that records what it was asked)."""

from __future__ import annotations

import numpy as np
import pytest

from neural import gated_testbeds as tb
from neural.gated_training import gated_lm_task


def _record(gate: str, seed: int, lr: float = 3e-3, *, diverged: bool = False, **final) -> dict:
    values = {"val_loss": 2.0 + seed, "f_attn": 0.1, "per_head": [[0.1, 0.2]]} | final
    return {
        "index": 0,
        "seed_index": seed,
        "params": {"gate": gate, "lr": lr},
        "result": {
            "n_params": 100 + len(gate),
            "diverged": diverged,
            "trajectory": [{"step": 0, "gate_mean": 0.5 - seed / 10}],
            "final": {"val_loss": float("inf")} if diverged else values,
        },
    }


def test_train_arms_asks_the_sweep_for_paired_seeds_of_the_training_task():
    calls = []

    def sweep(fn, points, *, name, n_seeds, paired_seeds):
        calls.append((fn, points, name, n_seeds, paired_seeds))
        return [{"params": p, "result": {"n_params": 7}} for p in points]

    points = [{"gate": "none"}, {"gate": "elementwise"}]
    records = tb.train_arms(sweep, points, "text", 3)
    assert calls == [(gated_lm_task, points, "text", 3, True)]
    assert [r["params"]["gate"] for r in records] == ["none", "elementwise"]


def test_by_arm_groups_in_seed_order_and_filters_an_lr():
    records = [_record("none", 1), _record("none", 0), _record("none", 0, 1e-2)]
    records.append(_record("elementwise", 0))
    arms = tb.by_arm(records, 3e-3)
    assert list(arms) == ["none", "elementwise"]
    assert [r["final"]["val_loss"] for r in arms["none"]] == [2.0, 3.0]
    assert len(tb.by_arm(records)["none"]) == 3
    assert tb.base_lr(records) == 3e-3  # the most common LR
    assert tb.arms_at_base_lr(records) == arms
    assert tb.param_counts(arms) == {"none": 104, "elementwise": 111}


def test_runs_for_names_the_missing_arm():
    arms = tb.by_arm([_record("none", 0)])
    assert tb.runs_for(arms, "none", "baseline") == arms["none"]
    with pytest.raises(ValueError, match="gated arm 'headwise' was not trained \\(arms: none\\)"):
        tb.runs_for(arms, "headwise", "gated")


def test_final_reads_a_diverged_run_as_nan_and_final_loss_at_the_divergence_level():
    runs = tb.by_arm([_record("none", 0), _record("none", 1, diverged=True)])["none"]
    np.testing.assert_array_equal(tb.final(runs, "val_loss"), [2.0, np.nan])
    np.testing.assert_array_equal(tb.final_loss(runs), [2.0, tb.DIVERGED_LOSS])
    assert np.log(257) + 1 == pytest.approx(tb.DIVERGED_LOSS)  # 256 bytes and BOS
    assert tb.final([], "f_attn").shape == (0,)


def test_finals_name_each_key_and_pair_the_arms():
    arms = tb.by_arm([_record("none", 0, f_attn=0.4), _record("elementwise", 0)])
    got = tb.paired_finals(arms["none"], arms["elementwise"], ("f_attn", "val_loss"))
    assert sorted(got) == ["f_attn_baseline", "f_attn_gated", "val_loss_baseline", "val_loss_gated"]
    assert got["f_attn_baseline"].tolist() == [0.4]
    assert list(tb.finals(arms["none"], ["f_attn"], "sink_{}")) == ["sink_f_attn"]
    stacks = tb.paired_stacks(arms["none"], arms["elementwise"], "per_head")
    assert stacks["per_head_baseline"].shape == (1, 1, 2)


def test_gate_readout_reads_the_gate_at_initialisation_from_the_trajectory():
    gate = {
        "gate_mean": 0.2,
        "gate_below_0.1": 0.3,
        "gated_output_below_1e-2": 0.4,
        "mean_gate_control_below_1e-2": 0.1,
        "gate_mean_per_layer": [0.1, 0.3],
    }
    runs = tb.by_arm([_record("elementwise", s, **gate) for s in range(2)])["elementwise"]
    got = tb.gate_readout(runs)
    np.testing.assert_allclose(got["gate_mean_at_init"], [0.5, 0.4])
    assert got["mean_gate_control_output_below_1e-2"].tolist() == [0.1, 0.1]
    assert got["gate_mean_per_layer"] == [[0.1, 0.3], [0.1, 0.3]]


def test_lr_grid_is_seeds_by_lrs():
    records = [
        _record("none", s, lr, diverged=(s, lr) == (1, 1e-2))
        for s in range(2)
        for lr in (3e-3, 1e-2)
    ]
    grid = tb.lr_grid(records, "none", [3e-3, 1e-2])
    np.testing.assert_array_equal(grid.loss, [[2.0, 2.0], [3.0, np.nan]])
    np.testing.assert_array_equal(grid.diverged, [[False, False], [False, True]])
    assert [r["final"]["val_loss"] for r in grid.first_seed] == [2.0, 2.0]
    with pytest.raises(ValueError, match="compared arm 'elementwise'"):
        tb.lr_grid(records, "elementwise", [3e-3])


def test_a_diverged_run_stacks_as_a_nan_row_and_shares_nothing():
    runs = [
        _record("none", 0, diverged=True),
        _record("none", 1, per_head=[[0.3, 0.4]], uniform=0.05),
        _record("none", 2, uniform=0.05),
    ]
    runs = tb.by_arm(runs)["none"]
    stack = tb.final_stack(runs, "per_head")
    assert stack.shape == (3, 1, 2)
    assert np.isnan(stack[0]).all()
    np.testing.assert_array_equal(stack[1:], [[[0.3, 0.4]], [[0.1, 0.2]]])
    assert tb.shared_final(runs, "uniform") == 0.05
    assert tb.final_stack(runs[:1], "per_head").shape == (1, 0)
    assert np.isnan(tb.shared_final(runs[:1], "uniform"))
    stacks = tb.paired_stacks(runs, runs[1:], "per_head")
    assert stacks["per_head_baseline"].shape == (3, 1, 2)
    assert stacks["per_head_gated"].shape == (2, 1, 2)
