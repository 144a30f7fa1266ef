"""The batched toy-model trainer: sampler, loss and gradient against oracles, padding, decay,
schedule, determinism, and the sweep task."""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sims import superposition as sp
from tests import naive
from theory.superposition import feature_frequencies


@pytest.mark.parametrize("sampler", [sp.sample_batch, sp.sample_batch_two_draws])
def test_samplers_draw_bernoulli_times_uniform(sampler):
    p = feature_frequencies(20, 1.0, density=2.0)
    rng = np.random.default_rng(0)
    n_batch = 20_000
    batch = sampler(p, n_batch, rng)
    counts = np.bincount(batch.cols, minlength=20)
    z = (counts - n_batch * p) / np.sqrt(n_batch * p * (1 - p))
    assert np.max(np.abs(z)) < 4.5
    assert stats.kstest(batch.values / 2, "uniform").pvalue > 1e-3
    assert np.all(np.diff(batch.rows) >= 0)
    dense = batch.dense()
    assert dense.shape == (n_batch, 20)
    assert np.count_nonzero(dense) == batch.values.size


def _random_models(seed: int, n_models: int = 2, n: int = 9, m: int = 3):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(n_models, n, m)) / np.sqrt(m)
    b = rng.normal(size=(n_models, n)) * 0.5
    batch = sp.sample_batch(feature_frequencies(n, 1.0, density=2.0), 12, rng)
    return W, b, batch


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=20)
def test_loss_matches_the_naive_loops(seed):
    W, b, batch = _random_models(seed)
    loss, _, _ = sp.loss_and_grad(W, b, batch)
    x = batch.dense().tolist()
    for k in range(W.shape[0]):
        assert loss[k] == pytest.approx(
            naive.toy_batch_loss_naive(W[k].tolist(), b[k].tolist(), x), rel=1e-10
        )


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=10)
def test_gradient_matches_finite_differences_of_the_naive_loss(seed):
    W, b, batch = _random_models(seed)
    _, grad_W, grad_b = sp.loss_and_grad(W, b, batch)
    x = batch.dense().tolist()
    eps = 1e-6

    def f(k, Wk, bk):
        return naive.toy_batch_loss_naive(Wk.tolist(), bk.tolist(), x)

    for k in range(W.shape[0]):
        for idx in np.ndindex(W.shape[1:]):
            d = np.zeros_like(W[k])
            d[idx] = eps
            numeric = (f(k, W[k] + d, b[k]) - f(k, W[k] - d, b[k])) / (2 * eps)
            assert grad_W[k][idx] == pytest.approx(numeric, abs=1e-5)
        for i in range(b.shape[1]):
            d = np.zeros_like(b[k])
            d[i] = eps
            numeric = (f(k, W[k], b[k] + d) - f(k, W[k], b[k] - d)) / (2 * eps)
            assert grad_b[k][i] == pytest.approx(numeric, abs=1e-5)


def test_zero_padded_columns_change_nothing_and_stay_zero():
    W, b, batch = _random_models(3, n_models=1, m=3)
    padded = np.concatenate([W, np.zeros((1, W.shape[1], 4))], axis=2)
    loss, grad_W, grad_b = sp.loss_and_grad(W, b, batch)
    loss_p, grad_W_p, grad_b_p = sp.loss_and_grad(padded, b, batch)
    np.testing.assert_allclose(loss_p, loss, rtol=1e-12)
    np.testing.assert_allclose(grad_W_p[..., :3], grad_W, rtol=1e-12)
    assert np.all(grad_W_p[..., 3:] == 0)
    np.testing.assert_allclose(grad_b_p, grad_b, rtol=1e-12)
    for gamma in (-1.0, 0.5):
        decayed = sp._decay(padded, np.array([gamma]), 0.1)
        assert np.all(decayed[..., 3:] == 0)


def test_decay_shrinks_for_positive_gamma_and_pulls_rows_to_unit_norm_for_negative():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(2, 50, 4))
    gammas = np.array([0.5, -1.0])
    out = sp._decay(W, gammas, 0.1)
    np.testing.assert_allclose(out[0], (1 - 0.1 * 0.5) * W[0])
    before = np.abs(np.linalg.norm(W[1], axis=1) - 1)
    after = np.abs(np.linalg.norm(out[1], axis=1) - 1)
    assert np.all(after < before)
    np.testing.assert_allclose(after, 0.9 * before)  # ‖W_i‖ − 1 shrinks by (1 − η|γ|)


def test_lr_schedule_warms_up_then_decays_to_five_percent():
    lrs = np.array([sp.lr_schedule(t, 1000, 0.01, 100) for t in range(1000)])
    np.testing.assert_allclose(lrs[:100], 0.01 * np.arange(1, 101) / 100)
    assert lrs.max() == pytest.approx(0.01)
    assert np.all(np.diff(lrs[100:]) <= 0)
    assert lrs[-1] == pytest.approx(0.0005, rel=1e-12)


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        # the authors' get_lr(step, 1e-2, 20000, warmup_steps=2000) (exp-10), by hand: s = t + 1
        (0, 1e-2 * 1 / 2000),  # warm-up, s = 1
        (1998, 1e-2 * 1999 / 2000),  # last warm-up step, s = 1999
        (1999, 1e-2),  # s = w: cosine at progress 0
        (2000, 0.01 - 0.00475 * (1 - np.cos(np.pi / 18000))),  # one step into the cosine
        (6499, 0.0005 + 0.00475 * (1 + np.sqrt(0.5))),  # progress 4500/18000 = 1/4
        (10999, 0.0005 + 0.00475),  # progress 1/2
        (19999, 0.0005),  # last step: progress 1, η_min = 5% of the peak
    ],
)
def test_lr_schedule_is_the_authors_get_lr(step, expected):
    assert sp.lr_schedule(step, 20_000, 1e-2, 2000) == pytest.approx(expected, rel=1e-12)


def test_per_group_peak_lrs_are_the_authors_large_run_rates():
    # exp-17: W at 0.02·(8/m)^(1/4), b at 2/m
    config = sp.TrainConfig(n=10, widths=(8, 32, 128), lr=0.02, lr_groups="per-group")
    peak_W, peak_b = config.peak_lrs()
    np.testing.assert_allclose(peak_W, [0.02, 0.02 / np.sqrt(2), 0.01], rtol=1e-12)
    np.testing.assert_allclose(peak_b, [0.25, 0.0625, 0.015625], rtol=1e-12)
    shared = sp.TrainConfig(n=10, widths=(8, 32), lr=0.01).peak_lrs()
    np.testing.assert_array_equal(shared, [[0.01, 0.01], [0.01, 0.01]])


def test_per_group_rates_reach_the_optimiser():
    """With one step, W moves by ≈ η_W,0 per entry and b by ≈ η_b,0 (Adam's first step is
    ±η), and the per-group first-step rates differ from the shared ones by their ratio."""
    base = sp.TrainConfig(n=20, widths=(4,), gammas=(0.0,), steps=1, batch=64, warmup_fraction=0)
    grouped = replace(base, lr_groups="per-group")
    init = sp.train_models(replace(base, lr=1e-300), 3)  # the initialisation (steps ≥ 1)
    for config in (base, grouped):
        result = sp.train_models(config, 3)
        eta = sp.lr_schedule(0, 1, 1.0, 0)
        peak_W, peak_b = config.peak_lrs()
        moved_b = np.abs(result.b - init.b)
        moved_W = np.abs(result.W[0] - init.W[0])
        np.testing.assert_allclose(moved_b[moved_b > 0], eta * peak_b[0], rtol=1e-3)
        np.testing.assert_allclose(moved_W[moved_W > 0], eta * peak_W[0], rtol=1e-3)


def test_training_is_deterministic_and_learns():
    config = sp.TrainConfig(
        n=40, widths=(4, 8), gammas=(-1.0,), steps=300, batch=64, eval_batches=5
    )
    first = sp.train_models(config, 7)
    again = sp.train_models(config, 7)
    np.testing.assert_array_equal(first.loss, again.loss)
    assert [w.shape for w in first.W] == [(40, 4), (40, 8)]
    untrained = sp.train_models(replace(config, steps=1), 7)  # same initialisation
    assert np.all(first.loss < 0.2 * untrained.loss)
    assert np.all(first.phi_half >= 0.9)  # growth keeps (nearly) every row near unit norm


def test_weak_decay_drops_rows():
    config = sp.TrainConfig(
        n=60, widths=(5,), gammas=(0.5, -1.0), steps=600, batch=128, eval_batches=5
    )
    result = sp.train_models(config, 0)
    assert result.phi_half[0] < 0.5 < result.phi_half[1]


def test_train_task_returns_json_ready_models():
    out = sp.train_task(
        {"n": 30, "widths": [3, 6], "gammas": [-1.0], "steps": 20, "batch": 16, "eval_batches": 2},
        np.random.default_rng(0),
    )
    assert [m["m"] for m in out["models"]] == [3, 6]
    model = out["models"][0]
    assert set(model) >= {"loss", "loss_se", "phi_half", "phi_one", "norms", "overlap_strong"}
    assert len(model["norms"]) == 30


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n": 0, "widths": (3,)}, "n must"),
        ({"n": 10, "widths": ()}, "widths"),
        ({"n": 10, "widths": (3, 0)}, "widths"),
        ({"n": 10, "widths": (3, 4), "gammas": (1.0, 2.0, 3.0)}, "same length"),
        ({"n": 10, "widths": (3,), "gammas": (float("nan"),)}, "gammas"),
        ({"n": 10, "widths": (3,), "lr": 0.0}, "lr"),
        ({"n": 10, "widths": (3,), "dtype": "float16"}, "dtype"),
        ({"n": 10, "widths": (3,), "lr_groups": "layerwise"}, "lr_groups"),
    ],
)
def test_train_config_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sp.TrainConfig(**kwargs)


def test_a_gpu_backend_trains_on_the_host_draws(cupy_stand_in):
    """The GPU path's law on the CPU: a stand-in backend named cupy whose arrays are numpy's
    takes the GPU branch (data drawn on the host by numpy's generator, then moved) and must give
    the numpy run bit for bit."""
    import array_api_compat.numpy as xp_numpy

    config = sp.TrainConfig(n=30, widths=(4, 6), gammas=(-1.0, 0.0), steps=300, batch=64)
    cpu = sp.train_models(config, 5)
    cupy_stand_in(xp_numpy, sp)
    gpu_branch = sp.train_models(config, 5, backend="cupy")
    np.testing.assert_array_equal(gpu_branch.loss, cpu.loss)
    for w_gpu, w_cpu in zip(gpu_branch.W, cpu.W, strict=True):
        np.testing.assert_array_equal(w_gpu, w_cpu)


@pytest.mark.gpu
def test_cupy_trains_the_numpy_run_up_to_float_rounding():
    """Same seed, same draws (made on the host and moved): float32 sums in another order only.
    Not yet run on a GPU: the tolerance is a bound set before any GPU run, not a measurement."""
    pytest.importorskip("cupy")
    config = sp.TrainConfig(n=100, widths=(10,), gammas=(-1.0,) * 4, steps=500, batch=256)
    cpu = sp.train_models(config, 0)
    gpu = sp.train_models(config, 0, backend="cupy")
    np.testing.assert_allclose(gpu.loss, cpu.loss, rtol=1e-3)
    for w_gpu, w_cpu in zip(gpu.W, cpu.W, strict=True):
        np.testing.assert_allclose(w_gpu, w_cpu, rtol=1e-3, atol=1e-3)


def test_single_threaded_blas_pins_and_restores():
    libs = sp._loaded_openblas()
    getters = [
        getattr(lib, name.replace("set_num", "get_num"))
        for lib in libs
        for name in sp._OPENBLAS_SETTERS
        if hasattr(lib, name)
    ][:1]
    before = [g() for g in getters]
    with sp.single_threaded_blas():
        assert all(g() == 1 for g in getters)
    assert [g() for g in getters] == before


class _Killed(Exception):
    """Stands for the process dying (SIGKILL) at a given step."""


def _kill_at(monkeypatch, calls: int) -> None:
    """Make the trainer die on its ``calls``-th evaluation of the loss (training steps first,
    then the eval batches)."""
    real = sp.loss_and_grad
    count = {"n": 0}

    def dying(*args, **kwargs):
        count["n"] += 1
        if count["n"] == calls:
            raise _Killed
        return real(*args, **kwargs)

    monkeypatch.setattr(sp, "loss_and_grad", dying)


SHRUNK = sp.TrainConfig(  # paper's setup shrunk: 3 segments, the last one partial
    n=30,
    widths=(3, 6),
    gammas=(-1.0, 0.1),
    steps=2 * sp.DATA_SEGMENT + 250,
    batch=32,
    eval_batches=3,
)


def _assert_same(a: sp.TrainResult, b: sp.TrainResult) -> None:
    for wa, wb in zip(a.W, b.W, strict=True):
        np.testing.assert_array_equal(wa, wb)
    np.testing.assert_array_equal(a.b, b.b)
    np.testing.assert_array_equal(a.loss, b.loss)
    np.testing.assert_array_equal(a.loss_se, b.loss_se)


@pytest.mark.parametrize(
    ("killed_at", "saved_step"),
    [
        (700, sp.DATA_SEGMENT),  # mid segment 1: resumes from step 500
        (sp.DATA_SEGMENT + 1, sp.DATA_SEGMENT),  # first step after a checkpoint
        (SHRUNK.steps + 2, SHRUNK.steps),  # during the final evaluation
    ],
)
def test_killed_and_resumed_training_is_bit_identical(tmp_path, monkeypatch, killed_at, saved_step):
    uninterrupted = sp.train_models(SHRUNK, 11)
    path = tmp_path / "ckpt" / "train.npz"
    with monkeypatch.context() as patch:
        _kill_at(patch, killed_at)
        with pytest.raises(_Killed):
            sp.train_models(SHRUNK, 11, checkpoint=path)
    with np.load(path) as saved:
        assert int(saved["step"]) == saved_step
    _assert_same(sp.train_models(SHRUNK, 11, checkpoint=path), uninterrupted)
    _assert_same(sp.train_models(SHRUNK, 11, checkpoint=path), uninterrupted)  # finished file


def test_checkpoint_of_another_run_is_refused(tmp_path):
    path = tmp_path / "train.npz"
    small = replace(SHRUNK, steps=10)
    sp.train_models(small, 0, checkpoint=path)
    with pytest.raises(ValueError, match="another run"):
        sp.train_models(small, 1, checkpoint=path)
    with pytest.raises(ValueError, match="another run"):
        sp.train_models(replace(small, lr_groups="per-group"), 0, checkpoint=path)


def test_killed_sweep_resumes_mid_task_and_cleans_up(tmp_path, monkeypatch):
    from sims.sweep import run_sweep

    params = [{**asdict(SHRUNK), "widths": [3], "gammas": [-1.0]}, asdict(SHRUNK)]
    reference = run_sweep(sp.train_task, params, root_seed=5)
    cache = tmp_path / "sweep"
    with monkeypatch.context() as patch:
        _kill_at(patch, SHRUNK.steps + 3 + 700)  # task 0 done, task 1 killed at step 700
        with pytest.raises(_Killed):
            run_sweep(sp.train_task, params, root_seed=5, cache_dir=cache)
    (folder,) = [d for d in cache.iterdir() if d.is_dir()]
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) == [
        "sweep.json",
        "task-000000.json",
        "task-000001.ckpt",
    ]
    resumed = run_sweep(sp.train_task, params, root_seed=5, cache_dir=cache)
    assert [r["result"] for r in resumed] == [r["result"] for r in reference]
    assert not (folder / "task-000001.ckpt").exists()
