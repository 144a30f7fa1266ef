"""Module-level sweep tasks for the tests (importable by spawned worker processes)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np


def draw(params, rng):
    """A task whose result depends on its parameters and its random stream."""
    return {"x": params["x"], "u": rng.random(3), "pid": os.getpid()}


def thread_env(params, rng):
    return {name: os.environ.get(name) for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}


def logged_draw(params, rng):
    """Append the task's x to params["log"], and SIGKILL the driver at x == params["kill_at"]
    unless the marker file params["marker"] exists (which it creates first)."""
    log = Path(params["log"])
    with log.open("a") as fh:
        fh.write(f"{params['x']}\n")
    marker = Path(params["marker"])
    if params["x"] == params["kill_at"] and not marker.exists():
        marker.touch()
        os.kill(os.getpid() if params["serial"] else os.getppid(), signal.SIGKILL)
    return {"x": params["x"], "u": float(rng.random())}


def mean_of_normals(params, rng):
    return {"mean": float(np.mean(rng.normal(size=params["size"])))}


def checkpoint_folder(params, rng):
    """Report the task's checkpoint folder, leaving a file in it."""
    from sims.sweep import task_checkpoint_dir

    folder = task_checkpoint_dir()
    if folder is not None:
        folder.mkdir(parents=True)
        (folder / "state").write_text("x")
    return {"folder": None if folder is None else str(folder)}


def torch_kernels(params, rng):
    """The vector instruction set torch's CPU kernels use in the worker, after one operation."""
    import torch

    torch.ones(4).softmax(0)
    return {"torch": torch.backends.cpu.get_cpu_capability()}
