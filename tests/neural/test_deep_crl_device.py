"""The deep-CRL sweep tasks on a torch device (the GPU path, docs of
:func:`sims._fingerprint.at_placement`): each task reads ``params["device"]`` (what
``Context.sweep`` adds to every point of a claim run on a GPU), a CPU run given the key returns
exactly the record it returns without it, on the meta device every tensor follows the device,
and on CUDA (when present) each task gives its CPU record up to float rounding, the same seed
drawing the same networks, data and batches."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from neural.crl import Agent, EpisodeBuffer, q_map, train_online_crl
from neural.deep_crl import signal_task, train_maze_critic
from sims.mazes import U_SMALL, GridMaze, PointMassMaze
from tests.neural.test_batched import RHO_ATOL

#: Signal probes at init: two tiny critics, one with and one without LN and residuals.
SIGNAL_POINTS = [
    {"variant": "paper", "depth": 8, "width": 16},
    {"variant": "no_res_no_ln", "depth": 4, "width": 16},
]
#: A tiny fixed-data critic: 20 Adam steps of batch 32 on 500 pairs of the serpentine maze.
CRITIC = {"variant": "paper", "depth": 4, "width": 8, "steps": 20, "batch": 32, "n_pairs": 500,
          "return_f": True}  # fmt: skip
#: A tiny online run: 2 epochs of 4 episodes of 6 steps, 4 SGD steps each, on the small U-maze.
#: No episode can reach a far goal: from the start (1, 1) ± 0.2 the mass needs 5 moves of at
#: most 0.3 along x to pass the wall's end at x = 2.5 before it can move down, then 4 moves
#: along y to come within the radius 0.35 of the nearest far goal (3, 3); 6 steps allow 2.
#: So success and time at goal are 0 on any device.
ONLINE = {"depth": 4, "width": 16, "epochs": 2, "n_envs": 4, "horizon": 6, "grad_steps": 4,
          "batch": 32, "eval_every": 1, "eval_episodes": 1, "layout": U_SMALL}  # fmt: skip
#: CUDA against the CPU at these sizes: float32 reductions (matmul, LayerNorm, logsumexp) summed
#: in another order by other kernels (TF32 is off by default for torch matmuls), ~1e-7 relative
#: per operation, grown over at most 20 Adam steps; 1e-4 relative (1e-5 absolute for values
#: near 0) leaves a wide margin and still fails on a change of law: another seed moves every
#: float output of these runs by 20 to 20,000 times this tolerance (measured on the CPU).
RTOL, ATOL = 1e-4, 1e-5


def _assert_identical(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        np.testing.assert_array_equal(got[key], value, err_msg=key)


@pytest.mark.parametrize("point", SIGNAL_POINTS)
def test_signal_task_on_the_cpu_device_is_the_plain_run(point):
    assert signal_task(point | {"device": "cpu"}, np.random.default_rng(3)) == signal_task(
        dict(point), np.random.default_rng(3)
    )


def test_maze_critic_on_the_cpu_device_is_the_plain_run():
    _assert_identical(
        train_maze_critic(CRITIC | {"device": "cpu"}, np.random.default_rng(4)),
        train_maze_critic(dict(CRITIC), np.random.default_rng(4)),
    )


def test_online_crl_on_the_cpu_device_is_the_plain_run():
    _assert_identical(
        train_online_crl(ONLINE | {"device": "cpu"}, np.random.default_rng(5)),
        train_online_crl(dict(ONLINE), np.random.default_rng(5)),
    )


def test_the_tasks_take_the_device_out_of_their_parameters():
    """The device is where a run computes, not what it computes: the tasks pop it, so what they
    key on their parameters (a checkpoint's run key) is the same on every device."""
    tasks = [
        (signal_task, SIGNAL_POINTS[0]),
        (train_maze_critic, CRITIC),
        (train_online_crl, ONLINE),
    ]
    for task, params in tasks:
        given = params | {"device": "cpu"}
        task(given, np.random.default_rng(0))
        assert given == params


def _online_update_on(device: str) -> None:
    agent = Agent.build(ONLINE, device=device)
    buffer = EpisodeBuffer(capacity=4, horizon=5)
    buffer.add(np.random.default_rng(0).random((2, 6, 2)), np.zeros((2, 5, 2)))
    batch = buffer.sample(8, gamma=0.9, rng=np.random.default_rng(1))
    agent.update(batch, torch.Generator().manual_seed(0))


def _q_map_on(device: str) -> None:
    env = PointMassMaze(GridMaze.from_layout(U_SMALL), step=0.3, radius=0.35)
    q_map(Agent.build(ONLINE, device=device), env, resolution=1)


@pytest.mark.parametrize(
    "run_on",
    [
        lambda device: signal_task(SIGNAL_POINTS[0] | {"device": device}, np.random.default_rng(0)),
        lambda device: train_maze_critic(CRITIC | {"device": device}, np.random.default_rng(0)),
        lambda device: train_online_crl(ONLINE | {"device": device}, np.random.default_rng(0)),
        _online_update_on,
        _q_map_on,
    ],
    ids=["signal_task", "train_maze_critic", "train_online_crl", "Agent.update", "q_map"],
)
def test_every_tensor_follows_the_device_up_to_the_first_read_back(run_on):
    """Without a GPU here, the "meta" device (shapes, no data) stands in for one: a run there
    computes every torch operation up to its first read-back of a number (the signal probes:
    forward, backward and the Jacobian-vector product; the critic and the agent: one whole Adam
    step), where meta has no data to give. A tensor left on the CPU would fail before, with a
    device mismatch."""
    with pytest.raises((RuntimeError, NotImplementedError), match="meta tensor") as failed:
        run_on("meta")
    assert "device" not in str(failed.value)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device for torch")
@pytest.mark.parametrize("point", SIGNAL_POINTS)
def test_signal_task_on_cuda_matches_the_cpu(point):
    on_cuda = signal_task(point | {"device": "cuda"}, np.random.default_rng(3))
    on_cpu = signal_task(dict(point), np.random.default_rng(3))
    assert on_cuda.keys() == on_cpu.keys()
    for key, value in on_cpu.items():
        np.testing.assert_allclose(on_cuda[key], value, rtol=RTOL, atol=ATOL, err_msg=key)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device for torch")
def test_maze_critic_on_cuda_matches_the_cpu():
    on_cuda = train_maze_critic(CRITIC | {"device": "cuda"}, np.random.default_rng(4))
    on_cpu = train_maze_critic(dict(CRITIC), np.random.default_rng(4))
    assert on_cuda.keys() == on_cpu.keys()
    for key, value in on_cpu.items():
        if key.startswith("rho_"):  # ranks: a rounding error can swap two nearly tied goals
            assert on_cuda[key] == pytest.approx(value, abs=RHO_ATOL), key
        else:
            np.testing.assert_allclose(on_cuda[key], value, rtol=RTOL, atol=ATOL, err_msg=key)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device for torch")
def test_online_crl_on_cuda_matches_the_cpu():
    """Rollouts feed actions back into the environment, whose wall test is a threshold: a
    rounding error flips a step only when a move ends within ~1e-7 of a wall, improbable in
    the ~80 moves of this size. The far-goal scores are 0 by geometry here (see ONLINE), so
    they compare exactly."""
    on_cuda = train_online_crl(ONLINE | {"device": "cuda"}, np.random.default_rng(5))
    on_cpu = train_online_crl(dict(ONLINE), np.random.default_rng(5))
    assert on_cuda.keys() == on_cpu.keys()
    for key in ("final_success", "final_time_at_goal", "success", "time_at_goal"):
        np.testing.assert_array_equal(on_cuda[key], 0.0, err_msg=key)
        np.testing.assert_array_equal(on_cpu[key], 0.0, err_msg=key)
    for key in ("env_steps", "grad_steps_total"):
        np.testing.assert_array_equal(on_cuda[key], on_cpu[key], err_msg=key)
    for key in ("train_actor_loss", "train_alpha", "train_critic_infonce", "train_entropy"):
        np.testing.assert_allclose(on_cuda[key], on_cpu[key], rtol=RTOL, atol=ATOL, err_msg=key)
    # NaN inside walls on both (assert_allclose requires the NaNs at the same places)
    np.testing.assert_allclose(on_cuda["q_map"], on_cpu["q_map"], rtol=RTOL, atol=ATOL)
