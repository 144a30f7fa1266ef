"""A store of finished sweep tasks shared by run directories (``paper-checks run --store DIR``).

A sweep task's result is a function of three things only: the code of its task function, its
parameters and its seed (:func:`sims.sweep.run_sweep`). The store keeps each finished task under
the sha256 of exactly these,

    key = sha256(dumps({"fn": module.qualname, "code": code_fingerprint(fn),
                        "params": params, "seed": {entropy, spawn_key, pool_size}})),

as ``DIR/<key[:2]>/<key>.json`` holding that description and the result. A run that asks for a
task some other run (in another directory, under another ``--replicates`` or claim list, or one
that was killed) has computed with the same code, parameters and seed takes its result instead of
computing it again: so a record is extended by the units it lacks, and a second run of the same
claims costs only their statistics and figures. Editing the task's code (any module its function
imports) changes the key, so a store never serves a result of other code; a function whose source
cannot be read (one defined in a notebook) is neither kept nor served.

A stored file is used only when it is a regular file (no link, inside no linked folder), valid
JSON of the stored-task schema and describes the very task asked for; anything else is left
alone, logged, and the task computed (and its file written anew where it can be). A file that
cannot be written is logged and skipped: a store never costs a run its records. Concurrent runs
may share a store: each file is written whole (a temporary file renamed over it), and two runs
that compute the same task write the same bytes.

A run deletes nothing there. :func:`survey` (``paper-checks store DIR``) counts the files by task
function and by the code that made them; :func:`prune` (``--prune``) removes those no run of
today's code can use.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from paper_checks import _files, _schema
from paper_checks._caches import unusable

__all__ = ["StoredExecutor", "TaskStore", "prune", "survey"]

logger = logging.getLogger(__name__)

#: The environment variable whose value is ``run``'s default ``--store``.
STORE_ENV = "PAPER_CHECKS_STORE"
#: A stored task's file, ``<key[:2]>/<key>.json``, and a temporary file of one being written.
TASK_FILE = re.compile(r"([0-9a-f]{64})\.json")
TEMP_FILE = re.compile(r"\.[0-9a-f]{64}\.tmp-.+\.json")
#: Packages whose task functions :func:`survey` may import to fingerprint (a stored file names its
#: function; nothing else named there is imported).
PROJECT = ("theory", "sims", "neural", "paper_checks")
#: Temporary files older than this (seconds) are a killed writer's: :func:`prune` removes them.
TEMP_AGE_S = 24 * 3600.0


class TaskStore:
    """The finished sweep tasks kept under ``root`` (see the module docstring)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._codes: dict[Callable[..., Any], str | None] = {}
        self._lock = threading.Lock()
        #: Tasks that could not be kept (the first is logged as a warning, the rest at debug).
        self.unkept = 0

    def describe(
        self, fn: Callable[..., Any], params: Mapping[str, Any], seed: np.random.SeedSequence
    ) -> dict[str, Any] | None:
        """What a task's result depends on: its function, that function's code fingerprint
        (:func:`sims._fingerprint.code_fingerprint`, taken once per function and store), its
        parameters and its seed; None for a function whose source the fingerprint cannot read
        (defined in a notebook or an interactive session), which is neither kept nor served."""
        from sims._fingerprint import _module_file, code_fingerprint
        from sims._jsonio import to_jsonable

        with self._lock:
            if fn not in self._codes:
                readable = _module_file(fn.__module__) is not None
                self._codes[fn] = code_fingerprint(fn) if readable else None
            code = self._codes[fn]
        if code is None:
            return None
        return {
            "fn": f"{fn.__module__}.{fn.__qualname__}",
            "code": code,
            "params": to_jsonable(dict(params)),
            "seed": {
                "entropy": to_jsonable(seed.entropy),
                "spawn_key": [int(k) for k in seed.spawn_key],
                "pool_size": int(seed.pool_size),
            },
        }

    def path(self, task: Mapping[str, Any]) -> Path:
        """The file of the task described by ``task`` (:meth:`describe`)."""
        from sims._jsonio import dumps

        key = hashlib.sha256(dumps(task).encode()).hexdigest()
        return self.root / key[:2] / f"{key}.json"

    def get(self, task: Mapping[str, Any]) -> dict[str, Any] | None:
        """The stored result of ``task``, or None when the store has no usable one."""
        from sims._jsonio import dumps

        path = self.path(task)
        if not (path.exists() or path.is_symlink()):
            return None
        try:
            _files.check_target(path, self.root)  # no link on the way, a regular file
            why = unusable(path, _schema.STORED_TASK)
            if why is None:  # read again as checked (a concurrent prune may have removed it)
                stored = json.loads(path.read_bytes().decode("utf-8"))
                if dumps(stored["task"]) == dumps(task):
                    return stored["result"]
                why = "it describes another task"
        except (OSError, ValueError) as err:
            why = str(err)
        logger.warning("store: %s not used (%s); the task is computed", path, why)
        return None

    def put(self, task: Mapping[str, Any], result: Mapping[str, Any]) -> None:
        """Keep ``result`` as the result of ``task``; a file that cannot be written is counted in
        :attr:`unkept` and logged (as a warning the first time, so that a store that cannot be
        written at all says so once)."""
        path = self.path(task)
        try:
            _files.write_json(path, {"task": dict(task), "result": dict(result)}, self.root)
        except (OSError, ValueError) as err:
            with self._lock:
                self.unkept += 1
                first = self.unkept == 1
            level = logging.WARNING if first else logging.DEBUG
            logger.log(level, "store: the task is not kept (%s)", str(err).splitlines()[0])


class StoredExecutor:
    """An executor (:class:`sims.sweep.Executor`) that serves sweep tasks from ``store`` and
    keeps those it runs there; everything else is ``inner``'s (its workers, its pool or cluster).

    Only the calls of :func:`sims.sweep.run_sweep` (``_run_task(fn, task, seed, checkpoint)``)
    are looked up; a stored task is yielded first with 0 CPU seconds, the others run on
    ``inner`` and are kept as they finish."""

    def __init__(self, inner: Any, store: TaskStore) -> None:
        self._inner = inner
        self.store = store
        self.served = 0
        self._here = threading.local()

    def served_here(self) -> int:
        """Tasks served to this thread so far (a check runs in one thread: the runner counts
        each check's as the difference)."""
        return getattr(self._here, "served", 0)

    @property
    def workers(self) -> int:
        return self._inner.workers

    @property
    def remote(self) -> bool:
        return self._inner.remote

    def __getattr__(self, name: str) -> Any:  # the inner pool or client, for the runner's close
        if name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)

    def imap_unordered(
        self, fn: Callable[..., Any], calls: Iterable[tuple[Any, tuple[Any, ...]]]
    ) -> Iterator[tuple[Any, Any]]:
        from sims.sweep import _run_task

        if fn is not _run_task:
            yield from self._inner.imap_unordered(fn, calls)
            return
        tasks: dict[int, dict[str, Any]] = {}
        pending = []
        for key, args in calls:
            task_fn, sweep_task, seed = args[:3]
            task = self.store.describe(task_fn, sweep_task.params, seed)
            result = None if task is None else self.store.get(task)
            if result is None:
                tasks[id(key)] = task
                pending.append((key, args))
                continue
            self.served += 1
            self._here.served = self.served_here() + 1
            yield key, (result, 0.0)
        for key, (result, cpu_s) in self._inner.imap_unordered(fn, pending):
            if (task := tasks[id(key)]) is not None:
                self.store.put(task, result)
            yield key, (result, cpu_s)

    @property
    def unkept(self) -> int:
        """Tasks computed that the store could not keep."""
        return self.store.unkept

    def close(self) -> None:
        self._inner.close()


def _files_of(root: Path) -> Iterator[Path]:
    """The regular files directly inside ``root``'s two-hex-digit folders (links and anything
    else skipped, never followed)."""
    with os.scandir(root) as folders:
        hex_folders = [
            f.path
            for f in folders
            if re.fullmatch(r"[0-9a-f]{2}", f.name) and f.is_dir(follow_symlinks=False)
        ]
    for folder in sorted(hex_folders):
        try:
            with os.scandir(folder) as entries:
                files = [e.path for e in entries if e.is_file(follow_symlinks=False)]
        except OSError:  # removed meanwhile, or not readable: nothing of it is counted
            continue
        yield from map(Path, sorted(files))


def _todays_code(fn: str, codes: dict[str, str | None]) -> str | None:
    """The code fingerprint today of the task function named ``fn`` (``module.qualname``) of this
    project; "" when it no longer exists; None for a function of another package (not imported)."""
    if fn not in codes:
        module, _, name = fn.rpartition(".")
        if module.partition(".")[0] not in PROJECT or "<" in name or module.endswith("__main__"):
            codes[fn] = None
        else:
            from sims._fingerprint import code_fingerprint

            try:
                codes[fn] = code_fingerprint(getattr(importlib.import_module(module), name))
            except (ImportError, AttributeError):
                codes[fn] = ""
    return codes[fn]


#: The states of a store's files (:func:`_classify`).
STATES = ("today", "stale", "other", "temporary")


def _classify(path: Path, codes: dict[str, str | None]) -> tuple[str, str]:
    """(task function, state) of one file of a store: ``today`` (made by today's code of a
    function of this project), ``stale`` (made by other code, by a function that no longer
    exists, or a task's file that cannot be read as one), ``other`` (a function of another
    package, not judged, or a file not named as a task's) or ``temporary`` (a writer's
    temporary file)."""
    if TEMP_FILE.fullmatch(path.name):
        return "(being written)", "temporary"
    if not TASK_FILE.fullmatch(path.name):
        return "(not a task's file)", "other"
    if unusable(path, _schema.STORED_TASK):
        return "(unreadable)", "stale"
    task = json.loads(path.read_bytes().decode("utf-8"))["task"]
    code = _todays_code(task["fn"], codes)
    return task["fn"], "other" if code is None else "today" if code == task["code"] else "stale"


def _checked(root: str | os.PathLike[str]) -> Path:
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"{os.fspath(root)!r} is not a directory")
    return root


def survey(root: str | os.PathLike[str]) -> dict[str, dict[str, int]]:
    """What the store at ``root`` holds, by task function (:func:`_classify`): its ``tasks`` and
    ``bytes``, and how many are ``today``, ``stale``, ``other`` or ``temporary``."""
    codes: dict[str, str | None] = {}
    table: dict[str, dict[str, int]] = {}
    for path in _files_of(_checked(root)):
        try:
            size = path.stat().st_size
            fn, state = _classify(path, codes)
        except OSError:  # removed or renamed by a run writing the store meanwhile
            continue
        row = table.setdefault(fn, dict.fromkeys(("tasks", "bytes", *STATES), 0))
        row["tasks"] += 1
        row["bytes"] += size
        row[state] += 1
    return table


def prune(root: str | os.PathLike[str], now: float | None = None) -> tuple[int, int]:
    """Remove from the store at ``root`` every ``stale`` file (:func:`_classify`) and every
    temporary file older than :data:`TEMP_AGE_S` (a killed writer's); return (files removed,
    bytes). Files of today's code, of other packages' functions, links and folders are left
    alone."""
    now = time.time() if now is None else now
    codes: dict[str, str | None] = {}
    removed = freed = 0
    for path in _files_of(_checked(root)):
        try:
            info = path.stat()
            _, state = _classify(path, codes)
        except OSError:  # removed or renamed by a run writing the store meanwhile
            continue
        if state == "stale" or (state == "temporary" and now - info.st_mtime > TEMP_AGE_S):
            path.unlink(missing_ok=True)
            removed, freed = removed + 1, freed + info.st_size
    return removed, freed
