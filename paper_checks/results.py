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
from typing import Any

import numpy as np

from sims._jsonio import read_json, to_jsonable, write_json_atomic

SCHEMA_VERSION = 2

#: Keys whose values legitimately differ between two runs with the same seed.
TIMING_KEYS = frozenset({"run", "wall_time_s"})


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


def load_results(run_dir: str | os.PathLike[str]) -> tuple[dict[str, Any], list[CheckResult]]:
    """Read ``results.json`` of a run directory: (run metadata, results)."""
    path = Path(run_dir) / "results.json"
    if not path.is_file():
        raise ValueError(f"RUN_DIR {os.fspath(run_dir)!r} has no results.json")
    payload = read_json(path)
    return payload["run"], [CheckResult.from_json(r) for r in payload["claims"]]


def comparable(payload: Any) -> Any:
    """``payload`` without the keys in :data:`TIMING_KEYS`: equal for equal seeds."""
    if isinstance(payload, dict):
        return {k: comparable(v) for k, v in payload.items() if k not in TIMING_KEYS}
    if isinstance(payload, list):
        return [comparable(v) for v in payload]
    return payload


def update_latest(results_root: Path, run_dir: Path) -> None:
    """Point ``results_root/latest`` at ``run_dir`` (a relative symlink, replaced atomically)."""
    link = results_root / "latest"
    tmp = results_root / f".latest.tmp-{os.getpid()}"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(os.path.relpath(run_dir, results_root), target_is_directory=True)
    tmp.replace(link)
