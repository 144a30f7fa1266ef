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

import ast
import contextlib
import hashlib
import importlib.util
import itertools
import logging
import multiprocessing
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Self

import numpy as np
from tqdm.auto import tqdm

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

    >>> param_grid(m=[8, 16], gamma=[-1.0])
    [{'m': 8, 'gamma': -1.0}, {'m': 16, 'gamma': -1.0}]
    """
    names = list(axes)
    for name, values in axes.items():
        if isinstance(values, str) or not isinstance(values, Sequence) or len(values) == 0:
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
    """The folder where the running sweep task may keep checkpoints (it may not exist yet), or
    ``None`` when the task runs outside a cached sweep."""
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

    ``scheduler`` is ``"processes"`` (serial when ``workers == 1``), ``"dask"`` (a new
    ``LocalCluster``) or ``"tcp://HOST:PORT"`` (an existing Dask scheduler).
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer (got {workers!r})")
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
def _module_file(name: str) -> Path | None:
    """The source file of module ``name``, found on disk without importing anything; None when
    it has no Python source (built-in, extension, not a module)."""
    if name == "__main__":
        path = getattr(sys.modules.get("__main__"), "__file__", None)
        return Path(path) if path and str(path).endswith(".py") else None
    top, *rest = name.split(".")
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: finds, never imports
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if not rest:
        return Path(spec.origin) if spec.origin and spec.origin.endswith(".py") else None
    for location in spec.submodule_search_locations or ():
        folder = Path(location).joinpath(*rest[:-1])
        for path in (folder / f"{rest[-1]}.py", folder / rest[-1] / "__init__.py"):
            if path.is_file():
                return path
    return None


def _imported_modules(tree: ast.AST, name: str, is_package: bool) -> set[str]:
    """Absolute names of the modules an AST imports anywhere (lazy imports included), with
    ``from pkg import sub`` giving both ``pkg`` and ``pkg.sub``."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".") if package else []
            base = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


#: CPython 3.11 builds Python AST objects with interpreter-wide state (gh-106905): two threads
#: in ast.parse at once, ours or a library's, can fail. Checks run in threads, so each module's
#: imports and code are parsed once per source text (the runner warms this in the main thread).
_AST_LOCK = threading.Lock()
_IMPORTS: dict[tuple[Any, ...], tuple[frozenset[str], str]] = {}


def _parsed(
    name: str, path: Path, source: bytes, ignore: tuple[tuple[str, str], ...]
) -> tuple[frozenset[str], str]:
    """(the modules a module's source imports, the sha256 of its :func:`canonical_code`), cached
    by (module, sha256 of source, ``ignore``)."""
    key = (name, hashlib.sha256(source).hexdigest(), ignore)
    with _AST_LOCK:
        if key not in _IMPORTS:
            tree = ast.parse(source)
            imports = frozenset(_imported_modules(tree, name, path.name == "__init__.py"))
            code = hashlib.sha256(canonical_code(tree, ignore).encode()).hexdigest()
            _IMPORTS[key] = (imports, code)
        return _IMPORTS[key]


def _parsed_slice(
    name: str, path: Path, source: bytes, ignore: tuple[tuple[str, str], ...], root: str
) -> tuple[frozenset[str], str]:
    """:func:`_parsed` of the part of a module that its top-level function ``root`` can run
    (:func:`module_slice`), cached likewise (with ``root`` in the key)."""
    key = (name, hashlib.sha256(source).hexdigest(), ignore, root)
    with _AST_LOCK:
        if key not in _IMPORTS:
            tree = module_slice(ast.parse(source), root, ignore)
            imports = frozenset(_imported_modules(tree, name, path.name == "__init__.py"))
            code = hashlib.sha256(canonical_code(tree, ignore).encode()).hexdigest()
            _IMPORTS[key] = (imports, code)
        return _IMPORTS[key]


def _bound_names(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds: a def's or class's name, assignment targets, and
    the names an import binds. Empty for any other statement."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).partition(".")[0] for a in node.names}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _referenced_names(node: ast.AST, drop: set[tuple[str | None, str | None]]) -> set[str]:
    """Every name ``node`` reads, outside the keyword arguments that ``drop`` leaves out of the
    canonical code (and outside calls whose every argument it leaves out)."""
    found: set[str] = set()
    todo: list[ast.AST] = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, ast.Name):
            found.add(current.id)
        if isinstance(current, ast.Call):
            callee = _callee(current.func)
            todo.append(current.func)
            if (callee, "*") in drop:
                continue
            todo.extend(current.args)
            todo.extend(k.value for k in current.keywords if (callee, k.arg) not in drop)
            continue
        todo.extend(ast.iter_child_nodes(current))
    return found


def module_slice(
    tree: ast.Module, root: str, ignore: Collection[tuple[str, str]] = ()
) -> ast.Module:
    """The module ``tree`` cut down to what its top-level function ``root`` can run: ``root``'s
    definition (decorators included) and, transitively, the top-level definitions, assignments
    and imports of every name it reads (outside the keyword arguments ``ignore`` drops). Any
    other top-level statement (a bare call, an ``if`` or ``try`` block) is kept whole. Editing a
    definition that ``root`` never reads leaves the slice as it was."""
    drop = {(callee, keyword) for callee, keyword in ignore}
    bound = [(node, _bound_names(node)) for node in tree.body]
    if not any(root in names for _, names in bound):
        raise ValueError(f"module defines no top-level {root!r}")
    keep = [not names for _, names in bound]  # other statements are kept whole
    wanted, done = {root}, set()
    for node, names in bound:
        if not names:
            wanted |= _referenced_names(node, drop)
    while wanted - done:
        name = (wanted - done).pop()
        done.add(name)
        for i, (node, names) in enumerate(bound):
            if name in names and not keep[i]:
                keep[i] = True
                wanted |= _referenced_names(node, drop)
            elif name in names:
                keep[i] = True
    body = [node for node, kept in zip(tree.body, keep, strict=True) if kept]
    return ast.Module(body=body, type_ignores=[])


def canonical_code(tree: ast.AST, ignore: Collection[tuple[str, str]] = ()) -> str:
    """The code of a parsed module with what cannot change a computed number left out: comments
    and layout (not in the AST), docstrings, the module's ``__all__``, and the keyword arguments
    named by ``ignore``, pairs (callee name, keyword) such as ``("claim", "source")`` for a
    registry's descriptive metadata (keyword ``"*"``: every argument of such calls, for a call
    that only holds words, like a dated history entry). Written node by node with empty fields dropped, so the text
    does not depend on the Python version's ``ast.dump`` defaults."""
    drop = {(callee, keyword) for callee, keyword in ignore}

    def body(nodes: list[ast.stmt], module: bool) -> list[ast.stmt]:
        kept = [n for n in nodes if not (module and _assigns_all(n))]
        first = kept[0] if kept else None
        docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        return kept[1:] if docstring and isinstance(first.value.value, str) else kept

    def dump(node: Any) -> str:
        if isinstance(node, list):
            return "[" + ",".join(dump(v) for v in node) + "]"
        if not isinstance(node, ast.AST):
            return repr(node)
        fields = []
        for field, raw in ast.iter_fields(node):
            if field in ("ctx", "type_comment", "kind") or raw is None or raw == []:
                continue
            value = raw
            if field == "body" and isinstance(
                node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ):
                value = body(raw, isinstance(node, ast.Module))
            if isinstance(node, ast.Call) and field in ("args", "keywords"):
                callee = _callee(node.func)
                if (callee, "*") in drop:
                    continue
                if field == "keywords":
                    value = [k for k in raw if (callee, k.arg) not in drop]
            fields.append(f"{field}={dump(value)}")
        return f"{type(node).__name__}({','.join(fields)})"

    return dump(tree)


def _assigns_all(node: ast.stmt) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return isinstance(node, ast.Assign | ast.AnnAssign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in targets
    )


def _callee(func: ast.expr) -> str | None:
    """The name a call is made by: ``f`` for ``f(...)`` and ``m.f(...)``."""
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def code_fingerprint(
    fn: Callable[..., Any],
    skip: Collection[str] = (),
    ignore: Collection[tuple[str, str]] = (),
    sliced: bool = False,
) -> str:
    """A sha256 of the code a task function can run: the :func:`canonical_code` of the module
    defining ``fn`` and of every module of this project (``theory``, ``sims``, ``neural``,
    ``paper_checks``) or of ``fn``'s own top-level package that it imports, transitively, read
    from the import statements (imports inside functions included). Editing the code of any of
    them changes the fingerprint; editing a comment, a docstring, ``__all__``, the keywords in
    ``ignore`` or a module the task never imports (a claim's plotting code) does not.
    Modules named in ``skip`` are neither hashed nor followed. ``sliced``: ``fn``'s own module
    counts only as far as ``fn`` can run it (:func:`module_slice`: its definition and what it
    reads, the imports it reads included), so editing another function of that module leaves
    the fingerprint as it was.
    The sources are read from disk at every call (milliseconds for a task's few modules, each
    parsed once per text), so an edit made during a long-lived session counts; a module edited
    on disk but not reloaded is fingerprinted as edited."""
    module = fn.__module__
    roots = {"theory", "sims", "neural", "paper_checks", module.partition(".")[0]}
    ignored = tuple(sorted(ignore))
    codes: dict[str, str] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        path = None if name in codes or name in skip else _module_file(name)
        if path is None:
            continue
        if sliced and name == module:
            root = fn.__name__
            imports, codes[name] = _parsed_slice(name, path, path.read_bytes(), ignored, root)
        else:
            imports, codes[name] = _parsed(name, path, path.read_bytes(), ignored)
        todo.extend(m for m in imports if m.partition(".")[0] in roots)
    digest = hashlib.sha256()
    for name in sorted(codes):
        digest.update(f"{name}\0{codes[name]}\0".encode())
    return digest.hexdigest()


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

    Parameters
    ----------
    fn
        A pure, picklable (module-level) function ``(params: dict, rng: Generator) -> dict``.
    params
        The parameter points, e.g. from :func:`param_grid`.
    n_seeds
        Independent repetitions per parameter point. Task ``i`` is point ``i // n_seeds`` with
        seed index ``i % n_seeds``.
    root_seed
        Entropy of the root ``SeedSequence`` (an int or a sequence of ints).
    executor
        Where the tasks run (:func:`make_executor`); serial in this process when ``None``.
    cache_dir
        If given, each finished task is stored atomically in ``cache_dir/<fingerprint>/`` and
        reused by the next call of the same sweep.
    paired_seeds
        Seed task streams by seed index only, so all parameter points share random streams.
    desc
        Label for the progress bar (shown on a TTY only) and the log.

    Returns
    -------
    list of dict
        One record per task, ordered by task index: ``{"index", "params", "seed_index", "result"}``.
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
