"""Training runs: deterministic for a seed, paired arms share data, the LR schedule."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from neural.gated_training import RunSettings, gated_lm_task, lr_at, train_run
from sims._jsonio import to_jsonable
from tests.neural.records import assert_records_close

TINY = RunSettings(
    task="text",
    steps=12,
    batch=4,
    seq_len=16,
    d_model=16,
    n_layers=1,
    n_heads=2,
    d_ffn=40,
    eval_every=4,
    eval_batch=4,
)


def test_same_seed_same_result_and_paired_arms_share_data():
    first = gated_lm_task(TINY.__dict__ | {"gate": "elementwise"}, np.random.default_rng(7))
    again = gated_lm_task(TINY.__dict__ | {"gate": "elementwise"}, np.random.default_rng(7))
    assert to_jsonable(first) == to_jsonable(again)
    assert not first["diverged"]
    assert [p["step"] for p in first["trajectory"]] == [0, 4, 8, 12]
    assert len(first["train_loss"]) == 3
    assert 0.0 < first["final"]["gate_mean"] < 1.0
    assert first["trajectory"][0]["gate_mean"] == pytest.approx(0.5, abs=0.02)  # σ(0) at init
    baseline = train_run(replace(TINY, gate="none"), (1, 2, 3))
    gated = train_run(replace(TINY, gate="elementwise"), (1, 2, 3))
    # the same data order: identical first training loss (same init of shared weights; a gate
    # near 0.5 changes the first loss only slightly), and the same evaluation batch
    assert baseline["final"]["uniform"] == gated["final"]["uniform"]
    assert abs(baseline["train_loss"][0] - gated["train_loss"][0]) < 0.05
    assert "gate_mean" not in baseline["final"]


def test_backcopy_runs_report_the_bayes_floor():
    result = train_run(replace(TINY, task="backcopy", vocab=8, n_triggers=2, n_heads=1), (0, 1, 2))
    assert 0 < result["loss_floor"] < np.log(8)
    assert result["final"]["val_loss"] > result["loss_floor"] - 0.05


def test_lr_schedule_warms_up_then_decays_to_a_tenth():
    s = replace(TINY, steps=100, lr=1.0)
    lrs = np.array([lr_at(i, s) for i in range(100)])
    assert lrs[0] == pytest.approx(0.2)
    assert lrs[4] == pytest.approx(1.0)
    assert np.all(np.diff(lrs[4:]) <= 1e-12)
    assert lrs[-1] == pytest.approx(0.1, abs=0.01)


def test_settings_reject_bad_values():
    with pytest.raises(ValueError, match="task"):
        RunSettings(task="images")
    with pytest.raises(ValueError, match="lr"):
        RunSettings(lr=float("nan"))
    with pytest.raises(ValueError, match="steps"):
        RunSettings(steps=0)


def test_a_run_given_the_cpu_as_its_device_is_the_run_without_one():
    """The CPU stands in for ``--device``: a point that carries its device (as Context.sweep
    gives it on a GPU) trains the same run."""
    point = TINY.__dict__ | {"gate": "elementwise"}
    placed = gated_lm_task(point | {"device": "cpu"}, np.random.default_rng(7))
    assert to_jsonable(placed) == to_jsonable(gated_lm_task(point, np.random.default_rng(7)))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device for torch")
@pytest.mark.parametrize(("task", "gate"), [("text", "elementwise"), ("backcopy", "none")])
def test_a_run_on_cuda_is_the_cpu_run_up_to_float_rounding(task, gate):
    """Same seed, same law: initialised and fed on the CPU, then moved. 12 steps of float32
    arithmetic in another order (other kernels, TF32 off for matmuls by default): the bound of
    the batched-against-alone comparison (1e-5; 4e-7 measured there) times 100."""
    point = TINY.__dict__ | {"task": task, "gate": gate, "vocab": 16}
    cpu = gated_lm_task(dict(point), np.random.default_rng(3))
    cuda = gated_lm_task(point | {"device": "cuda"}, np.random.default_rng(3))
    assert_records_close(to_jsonable(cuda), to_jsonable(cpu), rtol=1e-3)
