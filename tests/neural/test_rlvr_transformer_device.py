"""Arm B on a torch device: the task given the CPU returns the record it returns without a
device, and on CUDA, at a tiny size, its numbers agree with the CPU's.

Every draw of Arm B is numpy's, on the CPU (the split, the corpus, the minibatches, GRPO's
prompts and rollouts, the evaluation samples); a model on CUDA gives the draws probabilities
read back to the CPU. Those probabilities differ from the CPU's in their last bits (float32
sums reduced in another order), and a sampled node changes only when a uniform falls within that
difference of a boundary of its inversion, but once one does, the stream and all that follows
part. So the CUDA tests compare what no sample decides at a stated tolerance (the base's loss
curve and its exact success probabilities, GRPO's loss and gradients on one fixed sample; the
split and the chance baseline exactly), and the samples themselves exactly only from an
untrained model on a few prompts, where a measured bound makes a change negligible.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from neural import rlvr_transformer as nb

#: A tiny Arm B that trains every arm (no gate): 8 nodes, one layer of width 16, 20 base steps.
TINY = {
    "n_nodes": 8,
    "max_len": 3,
    "d_model": 16,
    "n_layers": 1,
    "n_heads": 2,
    "base_steps": 20,
    "distill_steps": 5,
    "rl_steps": 5,
    "batch": 16,
    "rl_prompts": 4,
    "group": 4,
    "n_eval": 8,
    "gate_margin": None,
}
TINY_CFG = nb.ArmBConfig(**{k: v for k, v in TINY.items() if k != "gate_margin"})

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device for torch")

#: CUDA vs CPU after training (20 Adam steps): float32 sums reduced in another order on the GPU
#: (TF32 is off by default for float32 matmuls, so no lower precision), grown by the steps; the
#: tolerance of the placement design for a few hundred steps.
TRAINED_RTOL, TRAINED_ATOL = 1e-4, 1e-5
#: CUDA vs CPU through one forward and backward pass of an untrained model: a few float32
#: roundings (relative 6e-8 each) of sums of ≲ 10^2 terms, inside 1e-5; atol for values that
#: cancel to about 0 (the gradient of an attention key bias, 0 up to roundings), whose error is a
#: rounding of their terms' absolute sum (≲ 10).
PASS_RTOL, PASS_ATOL = 1e-5, 1e-6
#: Copies drawn per prompt in the sampling comparison.
COPIES = 8


def _assert_same_record(got: Any, want: Any, path: str = "") -> None:
    """``got`` equals ``want`` exactly: the same keys, types, dtypes, shapes and values."""
    assert type(got) is type(want), path
    if isinstance(want, dict):
        assert got.keys() == want.keys(), path
        for key, value in want.items():
            _assert_same_record(got[key], value, f"{path}.{key}")
    elif isinstance(want, list | tuple):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _assert_same_record(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray):
        assert got.dtype == want.dtype, path
        np.testing.assert_array_equal(got, want, err_msg=path)
    else:
        assert got == want, path


def test_the_task_given_the_cpu_returns_the_record_it_returns_without_a_device():
    plain = nb.arm_b_task(dict(TINY), np.random.default_rng(5))
    placed = nb.arm_b_task({**TINY, "device": "cpu"}, np.random.default_rng(5))
    _assert_same_record(placed, plain)
    assert set(plain["counts"]) == {"base", "rl", "distill", "rl_kl"}  # every arm compared


def _on_both(seed: int) -> tuple[nb.PathTransformer, nb.PathTransformer]:
    """An untrained model initialised on the CPU from torch seed ``seed``, and its copy on
    CUDA."""
    torch.manual_seed(seed)
    model = nb.PathTransformer(TINY_CFG)
    return model, copy.deepcopy(model).to("cuda")


@pytest.mark.gpu
@CUDA
def test_the_task_on_cuda_computes_what_no_sample_decides_as_on_the_cpu():
    cpu = nb.arm_b_task(dict(TINY), np.random.default_rng(5))
    cuda = nb.arm_b_task({**TINY, "device": "cuda"}, np.random.default_rng(5))
    for key in ("n", "test", "chance_pass1", "needs_hidden", "rl_run"):  # no torch: exact
        np.testing.assert_array_equal(cuda[key], cpu[key], err_msg=key)
    # The base trains on minibatches that rng draws before any sample (split, corpus, indices):
    # the same on both devices, so its loss curve and its exact success probabilities (an
    # enumeration, no draw) differ by roundings only.
    np.testing.assert_allclose(
        cuda["base_loss"], cpu["base_loss"], rtol=TRAINED_RTOL, atol=TRAINED_ATOL
    )
    np.testing.assert_allclose(
        cuda["p"]["base"], cpu["p"]["base"], rtol=TRAINED_RTOL, atol=TRAINED_ATOL
    )
    # The other arms train after GRPO's rollouts, samples of ~10^3 binomials from probabilities
    # that moved through 20 Adam steps: compared as records, not numbers.
    assert set(cuda["counts"]) == set(cpu["counts"]) == set(cuda["p"]) == set(cpu["p"])
    for arm, counts in cuda["counts"].items():
        assert counts.shape == cpu["counts"][arm].shape == cuda["p"][arm].shape
        assert np.all((counts >= 0) & (counts <= TINY["n_eval"]))
        assert np.all((cuda["p"][arm] > 0) & (cuda["p"][arm] < 1))
    assert len(cuda["rl_reward"]) == len(cpu["rl_reward"])


def _next_node_probs(model: nb.PathTransformer, prompts: np.ndarray, device: str) -> np.ndarray:
    """π(· | s, g, v_1..v_t) of ``model`` on ``device``, as :func:`nb.sample_paths` computes it
    (softmax in float64, read back to the CPU), for every prompt and every prefix of t < max_len
    nodes: (P · Σ_t N^t, N)."""
    n, sep = TINY_CFG.n_nodes, TINY_CFG.n_nodes
    rows = []
    for t in range(TINY_CFG.max_len):
        prefixes = list(itertools.product(range(n), repeat=t))
        tokens = np.array([[s, g, sep, *pre] for s, g in prompts for pre in prefixes])
        with torch.no_grad():
            logits = model(torch.as_tensor(tokens).to(device))[:, 2 + t]
        rows.append(torch.softmax(logits.double(), dim=-1).cpu().numpy())
    return np.concatenate(rows)


@pytest.mark.gpu
@CUDA
def test_a_model_on_cuda_draws_the_cpu_samples_from_the_same_stream():
    graph = nb.make_graph(TINY_CFG)
    cpu_model, cuda_model = _on_both(0)
    prompts = np.array([[0, 1], [2, 6], [3, 7], [5, 4]])
    np.testing.assert_allclose(
        nb.exact_success_probs(cuda_model, graph, prompts, TINY_CFG, device="cuda"),
        nb.exact_success_probs(cpu_model, graph, prompts, TINY_CFG),
        rtol=PASS_RTOL,
        atol=PASS_ATOL,
    )
    # Compared exactly where a change is shown negligible. numpy draws a Multinomial(c, p) as
    # binomials by inversion of one uniform each (c ≤ 8: never its rejection sampler); a count
    # moves only where the uniform falls within the probabilities' difference of a boundary,
    # chance ≲ c · N · δ per prefix drawn from, δ = max over prefixes of Σ_j |p_cuda − p_cpu|,
    # measured here on every prefix in one batch (sample_paths' smaller batches round alike, to
    # the same order). The two calls below draw from at most 2 · P · (1 + 2c) prefixes (one at
    # the first of the max_len = 3 steps, c copies reach ≤ c at each later one).
    delta = (
        np.abs(
            _next_node_probs(cuda_model, prompts, "cuda")
            - _next_node_probs(cpu_model, prompts, "cpu")
        )
        .sum(axis=1)
        .max()
    )
    n_prefixes = 2 * len(prompts) * (1 + 2 * COPIES)
    assert n_prefixes * COPIES * TINY_CFG.n_nodes * delta < 1e-2, delta
    for adjacency in (None, graph.full):
        want = nb.sample_paths(
            cpu_model, prompts, COPIES, TINY_CFG, np.random.default_rng(7), adjacency=adjacency
        )
        got = nb.sample_paths(
            cuda_model,
            prompts,
            COPIES,
            TINY_CFG,
            np.random.default_rng(7),
            adjacency=adjacency,
            device="cuda",
        )
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)


@pytest.mark.gpu
@CUDA
def test_grpo_loss_and_gradients_on_cuda_match_the_cpu_on_one_sample():
    graph = nb.make_graph(TINY_CFG)
    cpu_model, cuda_model = _on_both(0)
    cpu_ref, cuda_ref = _on_both(1)  # another model: the KL penalty and its gradient are not 0
    prompts = np.array([[0, 1], [2, 3], [4, 5], [6, 7]])  # goals one edge away: mixed rewards
    # One sample drawn on the CPU, scored by both: GRPO's loss is then a function of the model.
    sample = nb.sample_paths(cpu_model, prompts, 16, TINY_CFG, np.random.default_rng(3))
    loss_cpu, reward_cpu = nb.grpo_loss(
        cpu_model, graph, prompts, sample, reference=cpu_ref, kl=0.1
    )
    loss_cuda, reward_cuda = nb.grpo_loss(
        cuda_model, graph, prompts, sample, reference=cuda_ref, kl=0.1, device="cuda"
    )
    assert reward_cuda == reward_cpu  # the verifier's, on the same paths
    assert 0.0 < reward_cpu < 1.0
    np.testing.assert_allclose(loss_cuda.item(), loss_cpu.item(), rtol=PASS_RTOL, atol=PASS_ATOL)
    loss_cpu.backward()
    loss_cuda.backward()
    grads = zip(cpu_model.named_parameters(), cuda_model.parameters(), strict=True)
    for (name, cpu_param), cuda_param in grads:
        np.testing.assert_allclose(
            cuda_param.grad.cpu().numpy(),
            cpu_param.grad.numpy(),
            rtol=PASS_RTOL,
            atol=PASS_ATOL,
            err_msg=name,
        )
