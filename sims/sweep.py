"""Parameter sweeps: a grid of parameter dicts -> pure tasks -> an executor -> resumable results.

A task is ``fn(params, rng) -> dict`` where ``rng`` is a ``numpy.random.Generator`` seeded from one
root :class:`numpy.random.SeedSequence`. The seed of task ``i`` is the root's ``i``-th spawned child
(``SeedSequence(root, spawn_key=(i,))``), so a result depends only on (params, task index, root
seed): never on the number of workers or the order in which tasks finish. With
``paired_seeds=True`` the child is chosen by the seed index instead, so every parameter point sees
the same random streams (common random numbers, for paired comparisons).

Executors (:func:`make_executor`): serial; a local process pool with BLAS/OpenMP/numba/torch
threads pinned to 1 per worker (the default for ``workers > 1``); a ``dask.distributed``
``LocalCluster``; or an existing Dask scheduler at ``tcp://HOST:PORT``.

When ``cache_dir`` is given, the driver writes each finished task to
``cache_dir/<fingerprint>/task-<index>.json`` atomically (temporary file + rename) as soon as it
completes; the fingerprint hashes the function's name and code (:func:`code_fingerprint`), the
tasks and the root seed, so different sweeps never share files and a change to the task's code
never reuses records the old code made. Running the same sweep again skips finished tasks: a
sweep killed at any moment resumes with nothing lost and nothing duplicated. A long task can
also resume mid-task: while it runs, :func:`task_checkpoint_dir` names a folder
``cache_dir/<fingerprint>/task-<index>.ckpt`` for its checkpoints, removed once the task's record
is written (``None`` outside a cached sweep; with a remote Dask scheduler the folder must be on a
shared file system).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import logging
import multiprocessing
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Self

import numpy as np
from tqdm.auto import tqdm

from sims._fingerprint import canonical_code, code_fingerprint
from sims._jsonio import dumps, read_json, to_jsonable, write_json_atomic

__all__ = [
    "CpuMeter",
    "DaskExecutor",
    "Executor",
    "ProcessExecutor",
    "SerialExecutor",
    "SweepTask",
    "canonical_code",
    "code_fingerprint",
    "make_executor",
    "param_grid",
    "run_sweep",
    "task_checkpoint_dir",
]

logger = logging.getLogger(__name__)

TaskFn = Callable[[dict[str, Any], np.random.Generator], Mapping[str, Any]]

#: Environment that pins native thread pools to one thread in a worker process.
SINGLE_THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
}


def param_grid(**axes: Sequence[Any]) -> list[dict[str, Any]]:
    """The Cartesian product of the named axes, in the given axis order (last axis fastest).

    Parameters
    ----------
    **axes : sequence
        Each axis: a parameter's name and its non-empty sequence of values (not a string).

    Returns
    -------
    list of dict
        One parameter point per combination.

    Raises
    ------
    ValueError
        Naming the axis when it is empty, a string (or bytes) or not a sequence.

    Examples
    --------
    >>> from sims.sweep import param_grid
    >>> param_grid(m=[8, 16], gamma=[-1.0])
    [{'m': 8, 'gamma': -1.0}, {'m': 16, 'gamma': -1.0}]
    >>> len(param_grid(a=[1, 2, 3], b=[4, 5]))
    6
    """
    names = list(axes)
    for name, values in axes.items():
        if (
            isinstance(values, str | bytes | bytearray)
            or not isinstance(values, Sequence)
            or len(values) == 0
        ):
            raise ValueError(f"axis {name!r} must be a non-empty sequence of values")
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes.values())]


@dataclass(frozen=True)
class SweepTask:
    """One unit of work: a parameter point, its seed index, and its position in the sweep."""

    #: Position in the sweep (the cache file and result order).
    index: int
    #: The parameter point passed to the task function.
    params: dict[str, Any]
    #: Which of the point's seeds this task is (child of the root seed).
    seed_index: int

    def seed(
        self, root_seed: int | Sequence[int], *, paired: bool = False
    ) -> np.random.SeedSequence:
        """The task's :class:`~numpy.random.SeedSequence`: child ``index`` (or ``seed_index``
        when ``paired``) of the root."""
        return np.random.SeedSequence(
            root_seed, spawn_key=(self.seed_index if paired else self.index,)
        )


_CHECKPOINT_DIR: ContextVar[Path | None] = ContextVar("checkpoint_dir", default=None)


def task_checkpoint_dir() -> Path | None:
    """The folder where the running sweep task may keep checkpoints (it may not exist yet):
    ``cache_dir/<fingerprint>/task-<index>.ckpt``, removed by :func:`run_sweep` once the task's
    record is written.

    Returns
    -------
    pathlib.Path or None
        The folder, or ``None`` when the task runs outside a cached sweep.

    Examples
    --------
    >>> import tempfile
    >>> from sims.sweep import run_sweep, task_checkpoint_dir
    >>> task_checkpoint_dir() is None  # outside a sweep
    True
    >>> def where(params, rng):
    ...     return {"folder": task_checkpoint_dir().name}
    >>> with tempfile.TemporaryDirectory() as cache:
    ...     records = run_sweep(where, [{}], cache_dir=cache)
    >>> records[0]["result"]
    {'folder': 'task-000000.ckpt'}
    """
    return _CHECKPOINT_DIR.get()


def _run_task(
    fn: TaskFn, task: SweepTask, seed: np.random.SeedSequence, checkpoint_dir: Path | None = None
) -> tuple[dict[str, Any], float]:
    """Worker body: evaluate one task (``checkpoint_dir`` visible to it through
    :func:`task_checkpoint_dir`); return its JSON-ready result and the CPU seconds it took (this
    thread's CPU time, so the count is right however many tasks a process runs)."""
    start = time.thread_time()
    token = _CHECKPOINT_DIR.set(checkpoint_dir)
    try:
        result = fn(dict(task.params), np.random.default_rng(seed))
    finally:
        _CHECKPOINT_DIR.reset(token)
    if not isinstance(result, Mapping):
        raise TypeError(f"sweep task must return a dict, got {type(result).__name__}")
    return to_jsonable(result), time.thread_time() - start


class CpuMeter:
    """CPU seconds spent by sweep tasks in *other* processes (pool or Dask workers) while the
    meter was active in this thread; tasks run in-thread are already in ``time.thread_time``."""

    _active = threading.local()

    def __init__(self) -> None:
        self.remote_s = 0.0

    @classmethod
    def add(cls, seconds: float) -> None:
        meter = getattr(cls._active, "meter", None)
        if meter is not None:
            meter.remote_s += seconds

    def __enter__(self) -> Self:
        self._outer = getattr(self._active, "meter", None)
        self._active.meter = self
        return self

    def __exit__(self, *exc: object) -> None:
        self._active.meter = self._outer
        if self._outer is not None:
            self._outer.remote_s += self.remote_s


# --------------------------------------------------------------------------------------- executors
class Executor(Protocol):
    """Runs independent calls and yields ``(key, result)`` pairs as they finish."""

    workers: int
    remote: bool  # tasks run in other processes (their CPU time is not this thread's)

    def imap_unordered(
        self, fn: Callable[..., Any], calls: Iterable[tuple[Any, tuple[Any, ...]]]
    ) -> Iterator[tuple[Any, Any]]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Runs every call in this process, in order. Used for ``workers=1``."""

    workers = 1
    remote = False

    def imap_unordered(self, fn, calls):
        for key, args in calls:
            yield key, fn(*args)

    def close(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def _environment(**env: str) -> Iterator[None]:
    """Temporarily set environment variables (inherited by processes started inside)."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _exit_when_orphaned(parent_pid: int) -> None:
    """Watchdog: end this worker once its driver has died (it is then re-parented)."""
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(1)


def _init_worker(parent_pid: int) -> None:
    """Process-pool initializer: pin the thread pools that can still be pinned at run time, and
    make sure the worker does not outlive a killed driver."""
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    if "numba" in sys.modules:
        sys.modules["numba"].set_num_threads(1)
    threading.Thread(target=_exit_when_orphaned, args=(parent_pid,), daemon=True).start()


class ProcessExecutor:
    """A local pool of ``workers`` processes (spawned, one native thread each).

    Workers are started with :data:`SINGLE_THREAD_ENV` in their environment, so OpenBLAS, MKL,
    OpenMP, numba and torch each use one thread per process: parallelism comes from processes.
    A worker whose driver is killed exits by itself within a second.
    """

    remote = True

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()  # several claims' threads submit to one pool

    def imap_unordered(self, fn, calls):
        # spawn-context workers start inside submit(): they inherit the pinned environment.
        with self._lock, _environment(**SINGLE_THREAD_ENV):
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker,
                    initargs=(os.getpid(),),
                )
            futures = {self._pool.submit(fn, *args): key for key, args in calls}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(cancel_futures=True)
                self._pool = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DaskExecutor:
    """Runs calls on a ``dask.distributed`` cluster: a new ``LocalCluster`` of ``workers``
    single-threaded processes, or the existing scheduler at ``address`` (``tcp://HOST:PORT``)."""

    remote = True

    def __init__(self, workers: int = 1, address: str | None = None) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as err:
            raise ValueError(
                "scheduler 'dask' needs dask.distributed: pip install -e '.[dist]'"
            ) from err
        self._cluster = None
        if address is None:
            self._cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(address, timeout="10s")
            except OSError as err:
                raise ValueError(f"scheduler {address!r} cannot be reached ({err})") from err
        self.workers = len(self._client.scheduler_info().get("workers", {})) or workers

    def imap_unordered(self, fn, calls):
        from dask.distributed import as_completed as dask_as_completed

        futures = {self._client.submit(fn, *args, pure=False): key for key, args in calls}
        try:
            for future in dask_as_completed(futures):
                yield futures[future], future.result()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_executor(workers: int = 1, scheduler: str = "processes") -> Executor:
    """Build the executor for ``--workers`` / ``--scheduler``.

    Parameters
    ----------
    workers : int
        Parallel workers, ≥ 1.
    scheduler : str
        ``"processes"`` (a local process pool; serial when ``workers == 1``), ``"dask"`` (a new
        ``LocalCluster``) or ``"tcp://HOST:PORT"`` (an existing Dask scheduler).

    Returns
    -------
    Executor
        A :class:`SerialExecutor`, :class:`ProcessExecutor` or :class:`DaskExecutor`; close it
        after use (it is a context manager).

    Raises
    ------
    ValueError
        Unless ``workers`` is a positive integer and ``scheduler`` one of the above.

    Examples
    --------
    >>> from sims.sweep import make_executor
    >>> type(make_executor(1)).__name__
    'SerialExecutor'
    """
    if (
        isinstance(workers, bool | np.bool_)
        or not isinstance(workers, int | np.integer)
        or workers < 1
    ):
        raise ValueError(f"workers must be a positive integer (got {workers!r})")
    workers = int(workers)
    if isinstance(scheduler, str):
        if scheduler == "processes":
            return SerialExecutor() if workers == 1 else ProcessExecutor(workers)
        if scheduler == "dask":
            return DaskExecutor(workers)
        if scheduler.startswith("tcp://"):
            return DaskExecutor(workers, address=scheduler)
    raise ValueError(
        f"scheduler must be 'processes', 'dask' or tcp://HOST:PORT (got {scheduler!r})"
    )


# ------------------------------------------------------------------------------------------ sweeps
def _sweep_fingerprint(
    fn: TaskFn, tasks: list[SweepTask], root_seed: Any, paired: bool
) -> tuple[str, str]:
    """(fingerprint of the sweep and the task code, fingerprint of the sweep alone)."""
    spec = {
        "fn": f"{fn.__module__}.{fn.__qualname__}",
        "root_seed": to_jsonable(root_seed),
        "paired_seeds": paired,
        "tasks": [[t.index, t.params, t.seed_index] for t in tasks],
    }
    sweep = hashlib.sha256(dumps(spec).encode()).hexdigest()
    return hashlib.sha256(f"{sweep}:{code_fingerprint(fn)}".encode()).hexdigest(), sweep


def _open_cache(
    cache_dir: Path, fingerprint: str, sweep: str, description: str
) -> dict[int, dict[str, Any]]:
    """Load the tasks that the cache of this sweep already holds; on a fresh cache, say how many
    finished tasks the same sweep left under other code (they are not reused)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    manifest = cache_dir / "sweep.json"
    if not manifest.exists():
        write_json_atomic(
            manifest, {"fingerprint": fingerprint, "sweep": description, "key": sweep}
        )
        older = [
            d
            for d in cache_dir.parent.glob("*/sweep.json")
            if d.parent != cache_dir and read_json(d).get("key") == sweep
        ]
        stale = sum(len(list(d.parent.glob("task-*.json"))) for d in older)
        if stale:
            logger.warning(
                "sweep %s: %d finished tasks cached by other code are not reused (%s)",
                description,
                stale,
                ", ".join(str(d.parent) for d in older),
            )
    elif read_json(manifest).get("fingerprint") != fingerprint:
        raise ValueError(f"cache_dir {cache_dir} holds another sweep")
    for stale in cache_dir.glob(".*.tmp-*"):
        stale.unlink(missing_ok=True)
    done = {}
    for path in cache_dir.glob("task-*.json"):
        record = read_json(path)
        done[record["index"]] = record
    return done


def run_sweep(
    fn: TaskFn,
    params: Sequence[Mapping[str, Any]],
    *,
    n_seeds: int = 1,
    root_seed: int | Sequence[int] = 0,
    executor: Executor | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    paired_seeds: bool = False,
    desc: str | None = None,
) -> list[dict[str, Any]]:
    """Run ``fn(params, rng)`` for every parameter point and seed index.

    Task ``i`` gets a generator seeded by child ``i`` (with ``paired_seeds``: child
    ``seed_index``) of ``SeedSequence(root_seed)``, so its result depends only on (params, task
    index, root seed), never on the executor.

    Parameters
    ----------
    fn : callable
        A pure, picklable (module-level) function ``(params: dict, rng: Generator) -> dict``.
    params : sequence of mapping
        The parameter points, e.g. from :func:`param_grid`.
    n_seeds : int
        Independent repetitions per parameter point, ≥ 1. Task ``i`` is point ``i // n_seeds``
        with seed index ``i % n_seeds``.
    root_seed : int or sequence of int
        Entropy of the root ``SeedSequence``.
    executor : Executor or None
        Where the tasks run (:func:`make_executor`); serial in this process when ``None``.
    cache_dir : str, os.PathLike or None
        If given, each finished task is stored atomically in ``cache_dir/<fingerprint>/`` and
        reused by the next call of the same sweep.
    paired_seeds : bool
        Seed task streams by seed index only, so all parameter points share random streams.
    desc : str or None
        Label for the progress bar (shown on a TTY only) and the log.

    Returns
    -------
    list of dict
        One record per task, ordered by task index: ``{"index", "params", "seed_index",
        "result"}``, the result made JSON-ready (arrays as lists).

    Raises
    ------
    ValueError
        Unless ``n_seeds`` is a positive integer, or when ``cache_dir`` holds another sweep.

    Examples
    --------
    >>> import tempfile
    >>> from sims.passk_sampling import count_histogram_task
    >>> from sims.sweep import param_grid, run_sweep
    >>> points = param_grid(p=[[0.5]], n=[2], reps=[10])
    >>> records = run_sweep(count_histogram_task, points, n_seeds=2, root_seed=0)
    >>> [(r["index"], r["seed_index"], r["result"]["hist"]) for r in records]
    [(0, 0, [[2, 6, 2]]), (1, 1, [[1, 6, 3]])]
    >>> with tempfile.TemporaryDirectory() as cache:  # a second run reads the cached records
    ...     first = run_sweep(count_histogram_task, points, n_seeds=2, cache_dir=cache)
    ...     again = run_sweep(count_histogram_task, points, n_seeds=2, cache_dir=cache)
    >>> first == again == records
    True
    """
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, int) or n_seeds < 1:
        raise ValueError(f"n_seeds must be a positive integer (got {n_seeds!r})")
    tasks = [
        SweepTask(i * n_seeds + s, to_jsonable(dict(p)), s)
        for i, p in enumerate(params)
        for s in range(n_seeds)
    ]
    done: dict[int, dict[str, Any]] = {}
    cache = None
    if cache_dir is not None:
        fingerprint, sweep = _sweep_fingerprint(fn, tasks, root_seed, paired_seeds)
        cache = Path(cache_dir) / fingerprint[:16]
    executor = executor if executor is not None else SerialExecutor()

    def checkpoints(task: SweepTask) -> Path | None:
        return None if cache is None else cache / f"task-{task.index:06d}.ckpt"

    with _sweep_lock(cache):  # claims run concurrently may share a sweep: one computes it
        if cache is not None:
            done = _open_cache(
                cache, fingerprint, sweep, f"{fn.__module__}.{fn.__qualname__}, {len(tasks)} tasks"
            )
        pending = [t for t in tasks if t.index not in done]
        logger.info("sweep %s: %d tasks, %d cached", desc or fn.__name__, len(tasks), len(done))
        calls = (
            (t, (fn, t, t.seed(root_seed, paired=paired_seeds), checkpoints(t))) for t in pending
        )
        with tqdm(total=len(pending), desc=desc, disable=None, leave=False, file=sys.stderr) as bar:
            for task, (result, cpu_s) in executor.imap_unordered(_run_task, calls):
                record = {
                    "index": task.index,
                    "params": task.params,
                    "seed_index": task.seed_index,
                    "result": result,
                }
                if cache is not None:
                    write_json_atomic(cache / f"task-{task.index:06d}.json", record)
                    shutil.rmtree(checkpoints(task), ignore_errors=True)
                if executor.remote:
                    CpuMeter.add(cpu_s)
                done[task.index] = record
                bar.update()
    return [done[t.index] for t in tasks]


_SWEEP_LOCKS: dict[Path, threading.Lock] = {}
_SWEEP_LOCKS_GUARD = threading.Lock()


@contextlib.contextmanager
def _sweep_lock(cache: Path | None) -> Iterator[None]:
    """Hold the in-process lock of one sweep cache (none without a cache), so that a second
    thread asking for the same sweep waits and then reads the first one's records."""
    if cache is None:
        yield
        return
    with _SWEEP_LOCKS_GUARD:
        lock = _SWEEP_LOCKS.setdefault(cache.resolve(), threading.Lock())
    with lock:
        yield
