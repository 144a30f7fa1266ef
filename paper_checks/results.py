"""Verdicts, check results and the on-disk results of a run.

One stable schema for every claim. ``results/<run-id>/`` holds ``results.json`` (the run and every
claim), ``<claim>.json`` (one claim), ``<claim>.npz`` (its arrays), ``figures/<claim>.png|.pdf``,
``report.md`` and ``report.html``. JSON values are numbers, not strings; for the same seed they are
identical whatever the worker count, except the keys listed in :data:`TIMING_KEYS`.
"""

from __future__ import annotations

import enum
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Self

import numpy as np

from sims._jsonio import read_json, to_jsonable, write_json_atomic

SCHEMA_VERSION = 2

#: Keys whose values legitimately differ between two runs with the same seed.
TIMING_KEYS = frozenset({"run", "wall_time_s", "cpu_time_s", "cpu_seconds"})


class Verdict(enum.StrEnum):
    """The outcome of a claim check.

    PASS and FAIL compare a measurement with the paper's theory under a stated tolerance rule.
    INCONCLUSIVE means the check could not decide at this scale and says why (never a hidden miss).
    ERROR means the check itself crashed; the traceback is kept in ``error``.
    """

    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"
    ERROR = "ERROR"

    @classmethod
    def of(cls, passed: bool) -> Verdict:
        """PASS if ``passed`` else FAIL."""
        return cls.PASS if passed else cls.FAIL


@dataclass
class CheckResult:
    """What a claim check returns, and what the run stores for it.

    A check fills ``verdict``, ``summary`` (one line: the deciding number against its threshold),
    ``measured`` and ``expected`` (numbers, or lists of numbers), ``tolerance`` (the rule in words),
    ``figures`` (paths relative to the run directory) and ``arrays`` (saved to ``<claim>.npz``).
    The runner fills the claim's metadata (statement, source, the registered ``rule``,
    ``stochastic`` and ``history``), ``replication`` (with ``--replicates``) and ``provenance``.
    A claim decided over units (:mod:`paper_checks.decision`) fills ``decision`` with
    :meth:`Decision.to_json`: its per-unit values, bounds, margins and units needed; with
    ``--replicates`` the runner replaces it, the verdict and the summary by the pooled decision.
    ``reproduction`` says whether the run reproduces the committed reference record of its
    scale (:func:`paper_checks.reproduce.compare`), filled by ``paper-checks run``.
    """

    verdict: Verdict
    summary: str
    measured: dict[str, Any]
    expected: dict[str, Any]
    tolerance: str
    figures: list[str] = field(default_factory=list)
    arrays: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    claim_id: str = ""
    paper: str = ""
    statement: str = ""
    source: str = ""
    rule: str = ""
    stochastic: bool | None = None
    history: list[dict[str, str]] = field(default_factory=list)
    replication: dict[str, Any] | None = None
    decision: dict[str, Any] | None = None
    reproduction: dict[str, Any] | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASS

    def to_json(self, arrays_file: str | None = None) -> dict[str, Any]:
        """The claim's JSON record (arrays replaced by the name of their ``.npz`` file)."""
        record = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "arrays"}
        record["verdict"] = self.verdict.value
        record["arrays"] = arrays_file
        return to_jsonable(record)

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> CheckResult:
        """Rebuild a result from its JSON record (arrays are not loaded)."""
        names = {f.name for f in fields(cls)} - {"arrays"}
        kwargs = {k: v for k, v in record.items() if k in names}
        kwargs["verdict"] = Verdict(record["verdict"])
        return cls(**kwargs)


@dataclass(frozen=True)
class RunInfo:
    """Run-level metadata: how the run was executed (not part of the comparable results)."""

    run_id: str
    created: str
    scale: str
    seed: int
    scheduler: str
    workers: int
    backend: str
    argv: list[str]
    wall_time_s: float
    replicates: int = 1
    #: Later runs that replaced some claims' records (``run --update``): created, argv, claims,
    #: replicates.
    updates: list[dict[str, Any]] = field(default_factory=list)


def write_claim(run_dir: Path, result: CheckResult) -> None:
    """Store one claim's ``.json`` and ``.npz`` in ``run_dir``."""
    arrays_file = None
    if result.arrays:
        arrays_file = f"{result.claim_id}.npz"
        tmp = run_dir / f".{arrays_file}.tmp-{os.getpid()}.npz"
        np.savez_compressed(tmp, **{k: np.asarray(v) for k, v in result.arrays.items()})
        tmp.replace(run_dir / arrays_file)
    write_json_atomic(run_dir / f"{result.claim_id}.json", result.to_json(arrays_file))


def write_results(run_dir: Path, info: RunInfo, results: list[CheckResult]) -> Path:
    """Store every claim and ``results.json``; return the path of ``results.json``."""
    records = []
    for result in results:
        write_claim(run_dir, result)
        records.append(read_json(run_dir / f"{result.claim_id}.json"))
    counts = {v.value: sum(r.verdict is v for r in results) for v in Verdict}
    payload = {
        "schema": SCHEMA_VERSION,
        "run": asdict(info),
        "counts": counts,
        "claims": records,
    }
    return write_json_atomic(run_dir / "results.json", payload)


def check_update(run_dir: Path, scale: str, seed: int, what: str = "--update") -> None:
    """Refuse (ValueError naming ``what``) to update ``run_dir``'s results with a run of
    another scale or root seed: one results.json holds one kind of run. The replicate count may
    differ (an expensive claim refreshed with fewer root seeds): each record carries its own in
    ``replication``, and each update names its count."""
    run, _ = load_results(run_dir, "DST_RUN" if what == "merge" else "--out")
    for key, value in {"scale": scale, "seed": seed}.items():
        if run.get(key) != value:
            raise ValueError(
                f"{what}: {run_dir / 'results.json'} holds a run with {key} "
                f"{run.get(key)!r}, not {value!r}"
            )


def _replace_records(
    run_dir: Path, records: list[dict[str, Any]], update: dict[str, Any], order: list[str]
) -> Path:
    """Replace those claims' records in ``run_dir/results.json``, keep the others, order them by
    ``order`` (records of claims not in it are dropped), recount, and append ``update`` to the
    run's ``updates``."""
    payload = read_json(run_dir / "results.json")
    run = payload["run"]
    by_id = {r["claim_id"]: r for r in payload["claims"]} | {r["claim_id"]: r for r in records}
    claims = [by_id[claim_id] for claim_id in order if claim_id in by_id]
    payload["run"] = {**run, "updates": [*run.get("updates", []), update]}
    payload["counts"] = {v.value: sum(r["verdict"] == v.value for r in claims) for v in Verdict}
    payload["claims"] = claims
    return write_json_atomic(run_dir / "results.json", payload)


def update_results(
    run_dir: Path, info: RunInfo, results: list[CheckResult], order: list[str]
) -> Path:
    """Replace the records of ``results``'s claims in ``run_dir/results.json`` and keep the
    others (a reference run refreshed claim by claim, checked first by :func:`check_update`).
    The run keeps its metadata and gains an entry in ``updates``; claims are ordered by
    ``order`` (the registry's), and records of claims not in it are dropped."""
    for result in results:
        write_claim(run_dir, result)
    update = {
        "created": info.created,
        "argv": info.argv,
        "claims": [r.claim_id for r in results],
        "replicates": info.replicates,
        "wall_time_s": info.wall_time_s,
    }
    records = [read_json(run_dir / f"{r.claim_id}.json") for r in results]
    return _replace_records(run_dir, records, update, order)


def merge_results(src_dir: Path, dst_dir: Path, order: list[str]) -> list[str]:
    """Copy every claim of the run in ``src_dir`` into the run in ``dst_dir`` (same scale and
    seed, checked): records, arrays and figures. A reference run is so refreshed by a run made
    elsewhere (another directory, machine or cluster). ``dst``'s ``updates`` gains the source
    run's creation time, command line and replicate count, and ``merged_from`` its run id.
    Returns the merged claim ids."""
    import shutil

    src_run, results = load_results(src_dir, "SRC_RUN")
    check_update(dst_dir, src_run["scale"], src_run["seed"], what="merge")
    records = []
    for result in results:
        for name in [f"{result.claim_id}.json", f"{result.claim_id}.npz", *result.figures]:
            if (src_dir / name).is_file():
                (dst_dir / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src_dir / name, dst_dir / name)
        records.append(read_json(src_dir / f"{result.claim_id}.json"))
    update = {
        "created": src_run.get("created"),
        "argv": src_run.get("argv", []),
        "claims": [r.claim_id for r in results],
        "replicates": src_run.get("replicates", 1),
        "wall_time_s": src_run.get("wall_time_s"),
        "merged_from": src_run.get("run_id"),
    }
    _replace_records(dst_dir, records, update, order)
    return update["claims"]


def load_results(
    run_dir: str | os.PathLike[str], argument: str = "RUN_DIR"
) -> tuple[dict[str, Any], list[CheckResult]]:
    """Read ``results.json`` of a run directory: (run metadata, results). Errors name the
    command-line ``argument`` that gave the directory."""
    from paper_checks._inputs import loads_strict, read_input_text

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        what = "is not a directory" if run_dir.exists() else "does not exist"
        raise ValueError(f"{argument} {os.fspath(run_dir)!r} {what}")
    path = run_dir / "results.json"
    if not path.exists():
        raise ValueError(f"{argument} {os.fspath(run_dir)!r} has no results.json")
    text = read_input_text(path, argument)
    try:
        payload = loads_strict(text)
    except ValueError as err:  # json.JSONDecodeError included
        msg = getattr(err, "msg", str(err))
        raise ValueError(f"{argument}: {str(path)!r} is not valid JSON ({msg})") from None
    return _validated_results(payload, path, argument)


#: Keys of ``results.json["run"]`` the reports read, with their JSON types.
_RUN_KEYS: dict[str, type | tuple[type, ...]] = {
    "run_id": str,
    "scale": str,
    "seed": int,
    "scheduler": str,
    "workers": int,
    "backend": str,
    "wall_time_s": (int, float),
}
_CLAIM_KEYS: dict[str, type | tuple[type, ...]] = {
    "claim_id": str,
    "summary": str,
    "measured": dict,
    "expected": dict,
    "tolerance": str,
    "figures": list,
    "statement": str,
    "source": str,
    "provenance": dict,
}


def _validated_results(
    payload: Any, path: Path, argument: str
) -> tuple[dict[str, Any], list[CheckResult]]:
    """(run, results) of a parsed ``results.json``; ValueError naming ``argument``, the file and
    the first key that is missing or of the wrong type."""

    def bad(what: str) -> ValueError:
        return ValueError(f"{argument}: {str(path)!r} is not a paper-checks results file ({what})")

    if not isinstance(payload, dict):
        raise bad(f"a JSON {type(payload).__name__}, not an object")
    run, claims = payload.get("run"), payload.get("claims")
    if not isinstance(run, dict):
        raise bad("no 'run' object")
    if not isinstance(claims, list):
        raise bad("no 'claims' list")
    for key, kind in _RUN_KEYS.items():
        if not isinstance(run.get(key), kind) or isinstance(run.get(key), bool):
            raise bad(f"run.{key} is missing or not a {getattr(kind, '__name__', 'number')}")
    results = []
    for i, record in enumerate(claims):
        if not isinstance(record, dict):
            raise bad(f"claims[{i}] is not an object")
        for key, kind in _CLAIM_KEYS.items():
            if not isinstance(record.get(key), kind):
                raise bad(f"claims[{i}].{key} is missing or not a {kind.__name__}")  # type: ignore[union-attr]
        if record.get("verdict") not in {v.value for v in Verdict}:
            raise bad(f"claims[{i}].verdict is not one of {', '.join(v.value for v in Verdict)}")
        if not isinstance(record.get("error"), str | None):
            raise bad(f"claims[{i}].error is not a string")
        wall = record["provenance"].get("wall_time_s", 0)
        if not isinstance(wall, int | float) or isinstance(wall, bool):
            raise bad(f"claims[{i}].provenance.wall_time_s is not a number")
        for fig in record["figures"]:
            if not isinstance(fig, str) or Path(fig).is_absolute() or ".." in Path(fig).parts:
                raise bad(f"claims[{i}].figures holds {fig!r}, not a path inside the run")
        results.append(CheckResult.from_json(record))
    return run, results


def comparable(payload: Any) -> Any:
    """``payload`` without the keys in :data:`TIMING_KEYS`: equal for equal seeds."""
    if isinstance(payload, dict):
        return {k: comparable(v) for k, v in payload.items() if k not in TIMING_KEYS}
    if isinstance(payload, list):
        return [comparable(v) for v in payload]
    return payload


def check_latest(results_root: Path) -> None:
    """Refuse (ValueError) when ``results_root/latest`` exists but is not a link this package
    made: a symlink to a sibling directory. A user's file or directory is never replaced."""
    link = results_root / "latest"
    if not link.is_symlink():
        if link.exists():
            kind = "directory" if link.is_dir() else "file"
            raise ValueError(
                f"{str(link)!r} is a {kind}, not the symlink paper-checks keeps there; move it "
                "away or choose another --out"
            )
        return
    target = os.fspath(link.readlink())
    if os.sep in target.rstrip(os.sep) or target in ("", ".", ".."):
        raise ValueError(
            f"{str(link)!r} is a symlink to {target!r}, not to a run beside it; move it away "
            "or choose another --out"
        )


def update_latest(results_root: Path, run_dir: Path) -> None:
    """Point ``results_root/latest`` at ``run_dir`` (a relative symlink, replaced atomically);
    refuses to replace anything :func:`check_latest` refuses."""
    check_latest(results_root)
    link = results_root / "latest"
    tmp = results_root / f".latest.tmp-{os.getpid()}"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(os.path.relpath(run_dir, results_root), target_is_directory=True)
    try:
        tmp.replace(link)
    finally:
        tmp.unlink(missing_ok=True)


LOCK_NAME = ".paper-checks.lock"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


class RunLock:
    """An exclusive lock on a run directory while a run writes it: ``DIR/.paper-checks.lock``
    holds the PID of the holder. A second run into the same directory is refused (ValueError
    naming the holder's PID); a lock left by a dead process (or by this process, not held now, e.g.
    after a crash in a test session) is taken over."""

    _held: set[Path] = set()  # noqa: RUF012  (locks held by this process)

    def __init__(self, run_dir: Path) -> None:
        self.path = Path(run_dir).resolve() / LOCK_NAME

    def _try_create(self) -> bool:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(f"{os.getpid()}\n")
        return True

    def _holder(self) -> int | None:
        try:
            return int(self.path.read_text(encoding="ascii").strip())
        except (OSError, ValueError, UnicodeDecodeError):
            return None

    def acquire(self) -> RunLock:
        for _ in range(3):
            if self._try_create():
                RunLock._held.add(self.path)
                return self
            pid = self._holder()
            mine = pid == os.getpid() and self.path not in RunLock._held
            if pid is not None and _pid_alive(pid) and not mine:
                raise ValueError(
                    f"--out {str(self.path.parent)!r} is in use by paper-checks process {pid} "
                    f"(lock file {self.path.name}); wait for it or choose another --out"
                )
            self.path.unlink(missing_ok=True)  # stale: its holder is gone
        raise ValueError(f"--out {str(self.path.parent)!r}: cannot take the lock {self.path.name}")

    def release(self) -> None:
        if self.path in RunLock._held:
            RunLock._held.discard(self.path)
            self.path.unlink(missing_ok=True)

    def __enter__(self) -> Self:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
