"""The context a claim check runs in: scale, seed, executor, output directory, array backend and
torch device."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from sims._backend import DEVICES, Backend, get_backend
from sims.sweep import Executor, SerialExecutor, TaskFn, run_sweep

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SCALES = ("quick", "full", "paper")

T = TypeVar("T")


def _key(text: str) -> int:
    """A stable 32-bit integer for a name (CRC-32), used as seed entropy."""
    return zlib.crc32(text.encode())


@dataclass(frozen=True)
class Context:
    """Everything a check may use. Checks must draw randomness only through :meth:`rng` or
    :meth:`sweep`, so that a claim's numbers depend on (seed, claim id) alone: not on which
    other claims ran, nor on the number of workers.

    Attributes
    ----------
    scale
        ``"quick"`` (whole suite in ~10 min on 2 cores), ``"full"`` (~30 min per paper) or
        ``"paper"`` (the papers' sizes, for a GPU or a cluster).
    seed
        The root seed of the run.
    out_dir
        The run directory; figures go to ``out_dir/figures``, sweep caches to ``out_dir/sweeps``.
    executor
        Where sweep tasks run.
    backend
        The array backend (numpy or cupy) of the claim's array-API kernels.
    device
        The torch device (``"cpu"`` or ``"cuda"``) of the claim's torch experiments.
    claim_id
        The claim being checked (set by the runner).
    replicate
        0 for the run's primary streams; ``r >= 1`` for replicate ``r`` of ``--replicates``, an
        independent root seed derived from ``seed`` (:meth:`root_entropy`).
    """

    scale: str = "quick"
    seed: int = 0
    out_dir: Path = Path("results/scratch")
    executor: Executor = field(default_factory=SerialExecutor)
    backend: Backend = field(default_factory=get_backend)
    device: str = "cpu"
    claim_id: str = "adhoc.check"
    replicate: int = 0

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"scale must be one of {', '.join(SCALES)} (got {self.scale!r})")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer (got {self.seed!r})")
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)} (got {self.device!r})")
        r = self.replicate
        if isinstance(r, bool) or not isinstance(r, int) or r < 0:
            raise ValueError(f"replicate must be a non-negative integer (got {self.replicate!r})")

    @property
    def computes_on(self) -> str:
        """The device the claim's numbers are computed on: the array backend's when it is not
        numpy (a GPU), else the torch device."""
        return self.backend.device if self.backend.name != "numpy" else self.device

    def pick(self, quick: T, full: T, paper: T | None = None) -> T:
        """The size for the current scale (``paper`` defaults to ``full``)."""
        return {"quick": quick, "full": full, "paper": full if paper is None else paper}[self.scale]

    def root_entropy(self) -> list[int]:
        """The root of every random stream: ``[seed]`` for the primary run, and
        ``[seed, crc("replicate"), r]`` for replicate ``r``. Entropy lists of different lengths
        seed different SeedSequences, so replicates never share a stream with the primary run
        or with each other."""
        if self.replicate == 0:
            return [self.seed]
        return [self.seed, _key("replicate"), self.replicate]

    def seed_entropy(self, *names: str) -> list[int]:
        """Seed entropy for a named random stream of this claim: root, crc(claim), crc(name)..."""
        return [*self.root_entropy(), _key(self.claim_id), *(_key(n) for n in names)]

    def shared_entropy(self, *names: str) -> list[int]:
        """Seed entropy for a stream shared by several claims (e.g. one problem set that every
        claim of an arm trains on): root, crc(name)..., without the claim id."""
        return [*self.root_entropy(), *(_key(n) for n in names)]

    def rng(self, *names: str) -> np.random.Generator:
        """A numpy Generator for the named stream of this claim."""
        return np.random.default_rng(self.seed_entropy(*names))

    def sweep(
        self,
        fn: TaskFn,
        params: Sequence[Mapping[str, Any]],
        *,
        name: str,
        n_seeds: int = 1,
        paired_seeds: bool = False,
    ) -> list[dict[str, Any]]:
        """Run a resumable sweep on the run's executor, cached under ``out_dir/sweeps``.

        See :func:`sims.sweep.run_sweep`; the root seed is :meth:`seed_entropy` of ``name``. On
        a GPU every parameter point carries the run's placement (``"device"`` for a torch
        device other than the CPU, ``"backend"`` for an array backend other than numpy), which
        the task reads and its record and cache key keep; on the CPU and numpy the points are
        as given.
        """
        if self.device != "cpu":
            params = [{**p, "device": self.device} for p in params]
        if self.backend.name != "numpy":
            params = [{**p, "backend": self.backend.name} for p in params]
        return run_sweep(
            fn,
            params,
            n_seeds=n_seeds,
            root_seed=self.seed_entropy(name),
            executor=self.executor,
            cache_dir=self.out_dir / "sweeps" / self.claim_id / name,
            paired_seeds=paired_seeds,
            desc=f"{self.claim_id}:{name}",
        )

    def save_figure(self, fig: Figure, name: str | None = None) -> list[str]:
        """Save ``fig`` as PNG and PDF under ``figures/``, close it, and return the paths relative
        to the run directory (the PNG first)."""
        from paper_checks.plotting import save_figure

        stem = self.claim_id if name is None else f"{self.claim_id}.{name}"
        return [
            str(p.relative_to(self.out_dir))
            for p in save_figure(fig, self.out_dir / "figures", stem)
        ]
