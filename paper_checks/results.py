"""Verdicts, check results and the on-disk results of a run.

One stable schema for every claim. ``results/<run-id>/`` holds ``results.json`` (the run and every
claim), ``<claim>.json`` (one claim), ``<claim>.npz`` (its arrays), ``figures/<claim>.png|.pdf``,
``report.md`` and ``report.html``. JSON values are numbers, not strings; for the same seed they are
identical whatever the worker count, except the keys listed in :data:`TIMING_KEYS`.
"""

from __future__ import annotations

import contextlib
import enum
import fcntl
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from paper_checks import _files, _schema
from sims._jsonio import to_jsonable

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from paper_checks.decision import Decision

SCHEMA_VERSION = 2

#: Keys whose values legitimately differ between two runs with the same seed: what a run cost, and
#: how many of its sweep tasks a store served instead (``paper-checks run --store``).
TIMING_KEYS = frozenset({"run", "wall_time_s", "cpu_time_s", "cpu_seconds", "tasks_from_store"})


class Verdict(enum.StrEnum):
    """The outcome of a claim check.

    PASS and FAIL compare a measurement with the paper's theory under a stated tolerance rule.
    INCONCLUSIVE means the check could not decide at this scale and says why (never a hidden miss).
    ERROR means the check itself crashed; the traceback is kept in ``error``. NOT_RUN means the
    claim does not run at this scale (it declares where and why: ``not_run_at``); it is shown
    apart and is not a verdict, never counted as INCONCLUSIVE.
    """

    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"
    ERROR = "ERROR"
    NOT_RUN = "NOT_RUN"

    @classmethod
    def of(cls, passed: bool) -> Verdict:
        """PASS if ``passed`` else FAIL."""
        return cls.PASS if passed else cls.FAIL


@dataclass
class UnitsResult:
    """What the check of a claim decided over units returns: each unit's values, never a verdict.

    The runner applies the claim's rule to ``units`` (statistic -> one value per unit; other keys
    are ignored) at the level its planned looks leave at the run's scale
    (:func:`paper_checks.runner.decide_units`), draws the figure by calling ``draw`` with that
    decision, and stores the :class:`CheckResult` (:func:`paper_checks.runner.decided`): the
    verdict is the framework's, made once, the same way in a run, a test and ``report
    --redecide``. ``summary`` is what the check reports beside its rule (the runner writes the
    decision's words); ``measured``, ``expected`` and ``arrays`` are those of the record.
    """

    units: Mapping[str, Any]
    summary: str
    measured: dict[str, Any]
    expected: dict[str, Any]
    arrays: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    #: Draws the claim's figure from the decision (None: no figure); run after the decision.
    draw: Callable[[Decision], Figure] | None = field(default=None, repr=False)


@dataclass
class CheckResult:
    """What a claim check returns, and what the run stores for it.

    A check fills ``verdict``, ``summary`` (one line: the deciding number against its threshold),
    ``measured`` and ``expected`` (numbers, or lists of numbers), ``tolerance`` (the rule in words;
    a claim decided over units leaves it out, and the runner fills it with the claim's rule text),
    ``figures`` (paths relative to the run directory) and ``arrays`` (saved to ``<claim>.npz``).
    The check of a claim decided over units writes in ``summary`` only what it reports beside
    its rule (numbers, counts, what its units rest on), never the verdict or the decision's
    words: the runner keeps that text as ``detail`` and writes the summary from the decision
    (:func:`paper_checks.runner.headline_summary`), so no code edits a summary.
    The runner fills the claim's metadata (statement, source, the registered ``rule``,
    ``stochastic`` and ``history``), ``replication`` (with ``--replicates``) and ``provenance``.
    A claim decided over units (:mod:`paper_checks.decision`) returns a :class:`UnitsResult`,
    from which the runner makes this result, its ``decision`` being :meth:`Decision.to_json`:
    the per-unit values, bounds, margins and units needed; with ``--replicates`` the runner
    replaces it, the verdict and the summary by the pooled decision.
    ``reproduction`` says whether the run reproduces the committed reference record of its
    scale (:func:`paper_checks.reproduce.compare`), filled by ``paper-checks run``.
    """

    verdict: Verdict
    summary: str
    measured: dict[str, Any]
    expected: dict[str, Any]
    tolerance: str = ""
    #: A decided claim's own words beside its decision (its check's summary); None until the
    #: runner has written the summary from the decision.
    detail: str | None = None
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


def summary_line(
    decision: Any,
    numbers: Mapping[str, Any] | None = None,
    *,
    over: str = "",
    reported: Mapping[str, Any] | None = None,
) -> str:
    """A check's one-line summary, generated from its numbers and its decision
    (:class:`paper_checks.decision.Decision`, or None for a check that decided nothing):

        <name> <value>, ... over <over>: <the decision's summary>; reported: <name> <value>, ...

    ``numbers`` are the headline numbers the decision rests on, ``reported`` what the check
    reports without deciding on it. A float is written with 4 significant digits, None as
    "none", a tuple (low, high) as the interval "[low, high]", a list or array as its values
    joined by " / " and a mapping as "(name value, ...)"; a string stands as it is."""
    head = _listed(numbers or {})
    head += f" over {over}" if over else ""
    body = decision.summary() if decision is not None else ""
    text = ": ".join(part for part in (head, body) if part)
    if reported:
        text += "; reported: " + _listed(reported)
    return text


def _listed(values: Mapping[str, Any]) -> str:
    """'name value, name value, ...' of :func:`summary_line`."""
    return ", ".join(f"{name} {_rendered(v)}" for name, v in values.items())


def _rendered(value: Any) -> str:
    """One value of :func:`summary_line` in words."""
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return f"({_listed(value)})"
    if isinstance(value, tuple) and len(value) == 2:
        return f"[{_rendered(value[0])}, {_rendered(value[1])}]"
    if isinstance(value, (list, tuple, np.ndarray)):
        return " / ".join(_rendered(v) for v in value)
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        return str(value)
    return f"{float(value):.4g}"


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
    #: The torch device the run asked for (``--device``); each record's provenance says what
    #: computed it.
    device: str = "cpu"
    #: Later runs that replaced some claims' records (``run --update``): created, argv, claims,
    #: replicates.
    updates: list[dict[str, Any]] = field(default_factory=list)


#: The folders of a run directory the product writes under: figures, replicates'
#: (``replicates/r<r>``), sweep caches and the staging folder of ``run --update``. A link or a
#: special file anywhere under them makes a run refuse the directory before any work
#: (:func:`check_run_dir`).
UPDATE_STAGING = ".update"
RUN_FOLDERS = ("figures", "replicates", "sweeps", UPDATE_STAGING)


def check_run_dir(run_dir: Path, claim_ids: Iterable[str] = ()) -> None:
    """Refuse (ValueError naming the path) a run directory the product cannot write without
    following a link or replacing what is not a regular file: results.json, the reports, the
    journal and ``claim_ids``' records and arrays must be regular files or missing, and
    :data:`RUN_FOLDERS` hold no link or special file at any depth."""
    names = ["results.json", "report.md", "report.html", _files.JOURNAL]
    names += [f"{claim_id}{suffix}" for claim_id in claim_ids for suffix in (".json", ".npz")]
    for name in names:
        _files.check_target(run_dir / name, run_dir)
    _files.check_tree(run_dir, RUN_FOLDERS)


def owns_file(claim_id: str, name: str) -> bool:
    """Whether the run-relative file ``name`` belongs to ``claim_id``: its record
    ``<claim>.json``, its arrays ``<claim>.npz`` or one of its figures
    ``figures/<claim>[.<name>].png|pdf`` (what :meth:`Context.save_figure` writes). Only such
    files are copied by a merge or an update, so a record cannot name another claim's files or
    anything else in the run."""
    from pathlib import PurePosixPath

    if name in (f"{claim_id}.json", f"{claim_id}.npz"):
        return True
    path = PurePosixPath(name)
    stem = path.stem
    return (
        path.parent == PurePosixPath("figures")
        and path.suffix in (".png", ".pdf")
        and (stem == claim_id or stem.startswith(f"{claim_id}."))
    )


def _claim_figures(claim_id: str, figures: Iterable[str], argument: str) -> list[str]:
    """``figures`` when every one is ``claim_id``'s own (:func:`owns_file`); else ValueError
    naming ``argument`` and the first that is not."""
    figures = list(figures)
    for name in figures:
        if not owns_file(claim_id, name):
            raise ValueError(
                f"{argument}: the record of {claim_id!r} lists the figure {name!r}, not one of "
                f"its own files (figures/{claim_id}[.NAME].png or .pdf); refusing to copy it"
            )
    return figures


def _arrays_writer(result: CheckResult) -> Any:
    arrays = {k: np.asarray(v) for k, v in result.arrays.items()}
    return lambda tmp: np.savez_compressed(tmp, **arrays)


def write_claim(run_dir: Path, result: CheckResult) -> dict[str, Any]:
    """Store one claim's ``.json`` and ``.npz`` in ``run_dir`` (through :mod:`paper_checks._files`:
    inside ``run_dir``, never through a symlink, whole or not at all); return its record."""
    _schema.validate(result.claim_id, _schema._claim_id, "claim_id")
    arrays_file = None
    if result.arrays:
        arrays_file = f"{result.claim_id}.npz"
        _files.write_with(run_dir / arrays_file, _arrays_writer(result), run_dir)
    record = result.to_json(arrays_file)
    _files.write_json(run_dir / f"{result.claim_id}.json", record, run_dir)
    return record


def _stage_claim(
    transaction: _files.Transaction, run_dir: Path, result: CheckResult, staging: Path
) -> dict[str, Any]:
    """Stage one claim's record, arrays and figures (copied from ``staging``, the run directory
    its check wrote them to) into ``run_dir``; return its record."""
    _schema.validate(result.claim_id, _schema._claim_id, "claim_id")
    arrays_file = None
    if result.arrays:
        arrays_file = f"{result.claim_id}.npz"
        transaction.stage(run_dir / arrays_file, _arrays_writer(result))
    for name in _claim_figures(result.claim_id, result.figures, "--update"):
        if (staging / name).is_file():
            transaction.stage_copy(staging / name, run_dir / name)
    record = result.to_json(arrays_file)
    transaction.stage_json(run_dir / f"{result.claim_id}.json", record)
    return record


def tally(verdicts: Iterable[str]) -> str:
    """'3 PASS, 1 FAIL; 2 not run at this scale': the count of each verdict that occurs, in
    :class:`Verdict` order, with the claims that did not run at this scale set apart."""
    counts = Counter(str(v) for v in verdicts)
    ran = [f"{counts[v]} {v}" for v in Verdict if counts[v] and v is not Verdict.NOT_RUN]
    skipped = counts[Verdict.NOT_RUN]
    return "; ".join(
        part
        for part in (", ".join(ran), f"{skipped} not run at this scale" if skipped else "")
        if part
    )


def _counts(records: list[dict[str, Any]]) -> dict[str, int]:
    return {v.value: sum(r["verdict"] == v.value for r in records) for v in Verdict}


def write_results(run_dir: Path, info: RunInfo, results: list[CheckResult]) -> Path:
    """Store every claim and ``results.json``; return the path of ``results.json``."""
    records = [write_claim(run_dir, result) for result in results]
    payload = {
        "schema": SCHEMA_VERSION,
        "run": asdict(info),
        "counts": _counts(records),
        "claims": records,
    }
    return _files.write_json(run_dir / "results.json", payload, run_dir)


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


def _replaced(
    payload: dict[str, Any], records: list[dict[str, Any]], update: dict[str, Any], order: list[str]
) -> dict[str, Any]:
    """``payload`` (a validated results.json) with those claims' records replaced and the others
    kept, ordered by ``order`` and then, in their order, the records of claims not in it (a
    claim this version does not register is kept, never dropped), recounted, and ``update``
    appended to the run's ``updates``."""
    run = payload["run"]
    by_id = {r["claim_id"]: r for r in payload["claims"]} | {r["claim_id"]: r for r in records}
    claims = [by_id.pop(claim_id) for claim_id in order if claim_id in by_id]
    claims += by_id.values()
    return {
        **payload,
        "run": {**run, "updates": [*run.get("updates", []), update]},
        "counts": _counts(claims),
        "claims": claims,
    }


def update_results(
    run_dir: Path, info: RunInfo, results: list[CheckResult], order: list[str], staging: Path
) -> Path:
    """Replace the records of ``results``'s claims in ``run_dir/results.json`` and keep the
    others (a reference run refreshed claim by claim, checked first by :func:`check_update`).
    The checks ran in ``staging`` (``run_dir/`` :data:`UPDATE_STAGING`), so that ``run_dir`` is
    untouched until every claim is done; their records, arrays and own figures and the new
    results.json are then written as one :class:`~paper_checks._files.Transaction`: all or
    nothing, whenever the command is killed. The run keeps its metadata and gains an entry in
    ``updates``; claims are ordered by ``order`` (the registry's), then the records of claims
    not in it, kept."""
    payload = read_results_payload(run_dir, "--out")
    update = {
        "created": info.created,
        "argv": info.argv,
        "claims": [r.claim_id for r in results],
        "replicates": info.replicates,
        "wall_time_s": info.wall_time_s,
    }
    with _files.Transaction(run_dir) as transaction:
        records = [_stage_claim(transaction, run_dir, r, staging) for r in results]
        transaction.stage_json(run_dir / "results.json", _replaced(payload, records, update, order))
        transaction.commit()
    return run_dir / "results.json"


def merge_results(src_dir: Path, dst_dir: Path, order: list[str]) -> list[str]:
    """Copy every claim of the run in ``src_dir`` into the run in ``dst_dir`` (same scale and
    seed, checked): records, arrays and figures. A reference run is so refreshed by a run made
    elsewhere (another directory, machine or cluster). ``dst``'s ``updates`` gains the source
    run's creation time, command line and replicate count, and ``merged_from`` its run id.

    All of SRC is validated first (results.json and every claim record against the schema, every
    claim id registered in ``order``, every record made at SRC's scale and seed, every file read
    or copied a regular file inside SRC, no link, arrays real ``.npz`` files of at most
    :data:`paper_checks._inputs.MAX_INPUT_BYTES`); a DST record newer than SRC's run (DST made
    or updated it after SRC was created) is not overwritten: the merge is refused, naming it.
    DST is then written as one :class:`~paper_checks._files.Transaction`, results.json last: a
    failure leaves DST as it was. Merging the same SRC again adds no second ``updates`` entry.
    Returns the merged claim ids."""
    src_payload = read_results_payload(src_dir, "SRC_RUN")
    _src_file(src_dir, "results.json")
    src_run = src_payload["run"]
    check_update(dst_dir, src_run["scale"], src_run["seed"], what="merge")
    dst_payload = read_results_payload(dst_dir, "DST_RUN")
    registered = set(order)
    records, copies = [], []
    for i, listed in enumerate(src_payload["claims"]):
        claim_id = listed["claim_id"]
        if claim_id not in registered:
            raise ValueError(
                f"SRC_RUN: {str(src_dir / 'results.json')!r}: claims[{i}] is {claim_id!r}, "
                "not a registered claim"
            )
        record_file = src_dir / f"{claim_id}.json"
        record = listed
        if record_file.exists() or record_file.is_symlink():
            record = read_record(_src_file(src_dir, record_file.name), "SRC_RUN", claim_id)
        _check_made_at(record, src_run, src_dir)
        names = [f"{claim_id}.npz", *_claim_figures(claim_id, record["figures"], "SRC_RUN")]
        for name in names:
            source = src_dir / name
            if source.exists() or source.is_symlink():
                copies.append((_src_file(src_dir, name), dst_dir / name))
        records.append(record)
    _refuse_newer(dst_payload, [r["claim_id"] for r in records], src_run, dst_dir)
    update = {
        "created": src_run.get("created"),
        "argv": src_run.get("argv", []),
        "claims": [r["claim_id"] for r in records],
        "replicates": src_run.get("replicates", 1),
        "wall_time_s": src_run.get("wall_time_s"),
        "merged_from": src_run.get("run_id"),
    }
    with _files.Transaction(dst_dir) as transaction:
        for source, target in copies:
            transaction.stage_copy(source, target)
        for record in records:
            transaction.stage_json(dst_dir / f"{record['claim_id']}.json", record)
        merged = _replaced(dst_payload, records, update, order)
        if update in dst_payload["run"].get("updates", []):  # the same SRC merged again
            merged["run"]["updates"] = dst_payload["run"]["updates"]
        transaction.stage_json(dst_dir / "results.json", merged)
        transaction.commit()
    return update["claims"]


def _src_file(src_dir: Path, name: str) -> Path:
    """``src_dir / name`` when it is a regular file inside SRC_RUN, not a link (a ``.npz`` also
    a zip archive of at most :data:`paper_checks._inputs.MAX_INPUT_BYTES`); else ValueError
    naming SRC_RUN and the file."""
    from paper_checks._inputs import MAX_INPUT_BYTES

    source = src_dir / name
    if source.is_symlink() or not source.is_file():
        what = "a link" if source.is_symlink() else "not a regular file"
        raise ValueError(f"SRC_RUN: {str(source)!r} is {what}; merge copies regular files only")
    if not source.resolve().is_relative_to(src_dir.resolve()):
        raise ValueError(f"SRC_RUN: {str(source)!r} lies outside SRC_RUN")
    if name.endswith(".npz"):
        size = source.stat().st_size
        with source.open("rb") as handle:
            magic = handle.read(4)
        if size > MAX_INPUT_BYTES or magic not in (b"PK\x03\x04", b"PK\x05\x06"):
            raise ValueError(
                f"SRC_RUN: {str(source)!r} is not a claim's arrays (an .npz archive of at most "
                f"{MAX_INPUT_BYTES >> 20} MiB; got {size} bytes)"
            )
    return source


def _check_made_at(record: dict[str, Any], src_run: dict[str, Any], src_dir: Path) -> None:
    """Refuse a SRC record whose own provenance names another scale or root seed than its run."""
    provenance = record.get("provenance") or {}
    for key in ("scale", "seed"):
        if key in provenance and provenance[key] != src_run[key]:
            raise ValueError(
                f"SRC_RUN: {str(src_dir / (record['claim_id'] + '.json'))!r} was made at {key} "
                f"{provenance[key]!r}, its run at {src_run[key]!r}"
            )


def _record_times(payload: dict[str, Any]) -> dict[str, str]:
    """When each claim's record in a results.json was last made: the run's creation, or the
    latest ``updates`` entry that wrote it (ISO 8601 times, compared as text)."""
    run = payload["run"]
    made = {r["claim_id"]: str(run.get("created") or "") for r in payload["claims"]}
    for entry in run.get("updates", []):
        for claim_id in entry.get("claims", []):
            made[claim_id] = max(made.get(claim_id, ""), str(entry.get("created") or ""))
    return made


def _refuse_newer(
    dst_payload: dict[str, Any], claims: list[str], src_run: dict[str, Any], dst_dir: Path
) -> None:
    """Refuse a merge that would overwrite DST records made after SRC's run was created."""
    created = str(src_run.get("created") or "")
    made = _record_times(dst_payload)
    newer = [c for c in claims if created and made.get(c, "") > created]
    if newer:
        raise ValueError(
            f"DST_RUN {str(dst_dir)!r} holds records newer than SRC_RUN's run (created {created}): "
            f"{', '.join(newer[:5])}{' …' if len(newer) > 5 else ''} (made "
            f"{made[newer[0]]}); merging would overwrite them with older ones"
        )


def read_record(path: Path, argument: str, claim_id: str | None = None) -> dict[str, Any]:
    """The claim record in ``path`` (a ``<claim>.json``), validated against the schema (and
    holding ``claim_id`` when given); ValueError naming ``argument`` and the file."""
    record = _read_json_file(path, argument)
    try:
        _schema.validate(record, _schema.CLAIM)
    except _schema.SchemaError as err:
        raise ValueError(
            f"{argument}: {str(path)!r} is not a paper-checks claim record ({err})"
        ) from None
    if claim_id is not None and record["claim_id"] != claim_id:
        raise ValueError(
            f"{argument}: {str(path)!r} holds the record of {record['claim_id']!r}, not {claim_id!r}"
        )
    return record


def _read_json_file(path: Path, argument: str) -> Any:
    from paper_checks._inputs import loads_strict, read_input_text

    text = read_input_text(path, argument)
    try:
        return loads_strict(text)
    except ValueError as err:  # json.JSONDecodeError included
        msg = getattr(err, "msg", str(err))
        raise ValueError(f"{argument}: {str(path)!r} is not valid JSON ({msg})") from None


def read_results_payload(
    run_dir: str | os.PathLike[str], argument: str = "RUN_DIR"
) -> dict[str, Any]:
    """The parsed ``results.json`` of a run directory, validated against the schema
    (:data:`paper_checks._schema.RESULTS`, no claim listed twice). Errors name the command-line
    ``argument`` that gave the directory, the file and the first field that does not fit."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        what = "is not a directory" if run_dir.exists() else "does not exist"
        raise ValueError(f"{argument} {os.fspath(run_dir)!r} {what}")
    path = run_dir / "results.json"
    if not path.exists():
        raise ValueError(f"{argument} {os.fspath(run_dir)!r} has no results.json")
    payload = _read_json_file(path, argument)

    def bad(what: str) -> ValueError:
        return ValueError(f"{argument}: {str(path)!r} is not a paper-checks results file ({what})")

    if not isinstance(payload, dict):
        raise bad(f"a JSON {type(payload).__name__}, not an object")
    version = payload.get("schema", SCHEMA_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise bad(f"schema is {str(version)[:40]!r}, not a schema version")
    if version > SCHEMA_VERSION:
        raise ValueError(
            f"{argument}: {str(path)!r} declares schema {version}, newer than this paper-checks "
            f"reads (up to {SCHEMA_VERSION}); use a newer paper-checks"
        )
    try:
        _schema.validate(payload, _schema.RESULTS)
    except _schema.SchemaError as err:
        raise bad(str(err)) from None
    if (dup := _schema.duplicates(r["claim_id"] for r in payload["claims"])) is not None:
        raise bad(f"claim {dup!r} is listed twice")
    return payload


def load_results(
    run_dir: str | os.PathLike[str], argument: str = "RUN_DIR"
) -> tuple[dict[str, Any], list[CheckResult]]:
    """Read ``results.json`` of a run directory (validated by :func:`read_results_payload`):
    (run metadata, results). Errors name the command-line ``argument`` that gave the directory."""
    payload = read_results_payload(run_dir, argument)
    return payload["run"], [CheckResult.from_json(record) for record in payload["claims"]]


def comparable(payload: Any) -> Any:
    """``payload`` without the keys in :data:`TIMING_KEYS`: equal for equal seeds."""
    if isinstance(payload, dict):
        return {k: comparable(v) for k, v in payload.items() if k not in TIMING_KEYS}
    if isinstance(payload, list):
        return [comparable(v) for v in payload]
    return payload


def check_latest(results_root: Path) -> str | None:
    """None when ``results_root/latest`` may be (re)pointed: it is missing, or a link this
    package made (a relative symlink to a sibling name that is a run directory, one holding a
    results.json, or that was since removed). Otherwise why it is left alone: a user's file,
    directory or link is never replaced."""
    link = results_root / "latest"
    if not link.is_symlink():
        if link.exists():
            kind = "directory" if link.is_dir() else "file"
            return f"{str(link)!r} is a {kind}, not the symlink paper-checks keeps there"
        return None
    target = os.fspath(link.readlink())
    sibling = results_root / target
    if os.sep in target.rstrip(os.sep) or target in ("", ".", ".."):
        return f"{str(link)!r} is a symlink to {target!r}, not to a run beside it"
    if sibling.exists() and not (sibling / "results.json").is_file():
        return f"{str(link)!r} points at {target!r}, which is not a paper-checks run"
    return None


def update_latest(results_root: Path, run_dir: Path) -> bool:
    """Point ``results_root/latest`` at ``run_dir`` (a relative symlink, replaced atomically)
    unless :func:`check_latest` says it is not ours; whether it was pointed."""
    if check_latest(results_root) is not None:
        return False
    link = results_root / "latest"
    tmp = results_root / f".latest.tmp-{os.getpid()}"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(os.path.relpath(run_dir, results_root), target_is_directory=True)
    try:
        tmp.replace(link)
    finally:
        tmp.unlink(missing_ok=True)
    return True


LOCK_NAME = ".paper-checks.lock"


class RunLock:
    """An exclusive lock on a run directory while a run writes it: the kernel's ``flock`` on
    ``DIR/.paper-checks.lock``, which holds the holder's PID for the message only. A second
    writer, in this process or another, is refused (ValueError naming the holder's PID); the
    kernel releases the lock when its holder dies, however it dies, so a lock file left behind
    (any PID in it, or none) is simply taken. A lock path that is not a regular file (a link, a
    FIFO, a directory) is refused without being opened for reading. Released by unlinking the
    file while still holding it; a taker that locked a file since unlinked tries again. Once
    taken, :func:`paper_checks._files.recover` finishes what a killed writer left (its lines in
    ``recovered``)."""

    def __init__(self, run_dir: Path) -> None:
        self.path = Path(run_dir).resolve() / LOCK_NAME
        self._fd: int | None = None
        self.recovered: list[str] = []

    def _open(self) -> int:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(self.path, flags, 0o644)
        except OSError as err:
            raise ValueError(
                f"--out {str(self.path.parent)!r}: cannot open the lock file {self.path.name} "
                f"({err.strerror or err}); it must be a regular file or absent"
            ) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ValueError(
                f"--out {str(self.path.parent)!r}: the lock file {self.path.name} is not a "
                "regular file; remove it"
            )
        return fd

    def _holder(self, fd: int) -> str:
        try:
            text = os.pread(fd, 32, 0).decode("ascii").strip()
        except (OSError, UnicodeDecodeError):
            return "another paper-checks process"
        return f"paper-checks process {text}" if text.isdigit() else "another paper-checks process"

    def acquire(self) -> RunLock:
        for _ in range(100):  # another taker may unlink the file between our open and lock
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = self._holder(fd)
                os.close(fd)
                raise ValueError(
                    f"--out {str(self.path.parent)!r} is in use by {holder} (lock file "
                    f"{self.path.name}); wait for it or choose another --out"
                ) from None
            try:
                same = self.path.lstat().st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # released (unlinked) between our open and our lock: try again
                os.close(fd)
                continue
            with contextlib.suppress(OSError):  # the PID is for messages: a full disk is fine
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            self._fd = fd
            try:  # what a killed writer left: its commit completed or undone, its temp files
                self.recovered = _files.recover(self.path.parent)
            except BaseException:
                self.release()
                raise
            return self
        raise ValueError(f"--out {str(self.path.parent)!r}: cannot take the lock {self.path.name}")

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> Self:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
