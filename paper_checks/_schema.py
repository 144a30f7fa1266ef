"""The one schema of the run files the command line reads back: ``results.json`` and the claim
records in it or beside it (``<claim>.json``), with their replication, history and decision
records.

A schema is a function ``check(value, where)`` that raises :class:`SchemaError` naming the first
field (``where``, e.g. ``claims[3].decision.parts[0].n``) that is missing or of the wrong type.
Numbers must be finite (a ``null`` stands where the writer stored a non-finite one, for the
fields that allow it); nesting deeper than :data:`MAX_DEPTH` is refused before any field is read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: Containers nested deeper than this are refused (our records nest about 6 deep).
MAX_DEPTH = 64

#: A claim id as the registry writes them (``paper.name``): safe as a file name.
CLAIM_ID = re.compile(r"[A-Za-z0-9_]+(?:[.-][A-Za-z0-9_]+)*")

VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE", "ERROR", "NOT_RUN")

Check = Callable[[Any, str], None]


class SchemaError(ValueError):
    """A value that does not fit the schema: ``where`` it is and ``what`` is wrong."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where} {what}")


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Refuse containers nested deeper than ``limit`` (iteratively: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                raise SchemaError("the file", f"is nested deeper than {limit} levels")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(test: Callable[[Any], bool], name: str) -> Check:
    def check(value: Any, where: str) -> None:
        if not test(value):
            raise SchemaError(where, f"is missing or not {name}")

    return check


STR = _kind(lambda v: isinstance(v, str), "a string")
BOOL = _kind(lambda v: isinstance(v, bool), "true or false")
INT = _kind(lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer")
NUM = _kind(
    lambda v: isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v),
    "a finite number",
)
ANY = _kind(lambda _: True, "a value")


def one_of(*values: Any) -> Check:
    """Exactly one of ``values`` (same type: ``true`` is not ``1``)."""

    def check(value: Any, where: str) -> None:
        if not any(type(value) is type(v) and value == v for v in values):
            raise SchemaError(where, f"is not one of {', '.join(map(str, values))}")

    return check


def null(inner: Check) -> Check:
    """``null`` or ``inner``."""

    def check(value: Any, where: str) -> None:
        if value is not None:
            inner(value, where)

    return check


def list_of(inner: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, list):
            raise SchemaError(where, "is missing or not a list")
        for i, item in enumerate(value):
            inner(item, f"{where}[{i}]")

    return check


def map_of(inner: Check) -> Check:
    """An object with string keys and ``inner`` values."""

    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise SchemaError(where, "is missing or not an object")
        for key, item in value.items():
            inner(item, _join(where, str(key)))

    return check


def obj(required: Mapping[str, Check], optional: Mapping[str, Check] | None = None) -> Check:
    """An object with the ``required`` keys and, where present, the ``optional`` ones (other
    keys are allowed and not read)."""
    optional = optional or {}

    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise SchemaError(where, "is missing or not an object")
        for key, inner in required.items():
            if key not in value:
                raise SchemaError(_join(where, key), "is missing")
            inner(value[key], _join(where, key))
        for key, inner in optional.items():
            if key in value:
                inner(value[key], _join(where, key))

    return check


def either(*schemas: Check) -> Check:
    """The first of ``schemas`` that fits; the error of the last otherwise."""

    def check(value: Any, where: str) -> None:
        for schema in schemas[:-1]:
            try:
                schema(value, where)
            except SchemaError:
                continue
            return
        schemas[-1](value, where)

    return check


def _claim_id(value: Any, where: str) -> None:
    if not isinstance(value, str) or not CLAIM_ID.fullmatch(value):
        raise SchemaError(where, f"is not a claim id (got {str(value)[:40]!r})")


def _figure(value: Any, where: str) -> None:
    from pathlib import PurePosixPath

    path = PurePosixPath(value) if isinstance(value, str) else None
    if path is None or not value or path.is_absolute() or ".." in path.parts or "\\" in value:
        raise SchemaError(where, f"holds {str(value)[:60]!r}, not a path inside the run")


VERDICT = one_of(*VERDICTS)

REPLICATION = either(
    obj({"deterministic": one_of(True)}),
    obj(
        {
            "n": INT,
            "counts": map_of(INT),
            "fragile": BOOL,
            "statistic": null(STR),
            "statistic_mean": null(NUM),
            "statistic_sd": null(NUM),
        },
        {
            "deterministic": one_of(False),
            "agree": INT,
            "rate": null(NUM),
            "replicates": list_of(
                obj(
                    {"root_entropy": ANY, "verdict": VERDICT, "statistic": null(NUM)},
                    {"replicate": INT},
                )
            ),
            "looks": list_of(obj({"root_seeds": INT, "n_units": ANY, "verdict": VERDICT})),
        },
    ),
)

HISTORY = list_of(obj({"date": STR, "change": STR, "reason": STR, "before": STR}))


def _part_with_spread(value: Any, where: str) -> None:
    """A part whose spread is known (``sd``) also has its ``mean``, and a level in (0, 1): the
    report computes the rule's error rates from them."""
    if value.get("sd") is not None and value.get("mean") is None:
        raise SchemaError(_join(where, "mean"), "is null while sd is a number")
    if not 0 < value["level"] < 1:
        raise SchemaError(_join(where, "level"), "is not in (0, 1)")


def _all(*checks: Check) -> Check:
    def check(value: Any, where: str) -> None:
        for inner in checks:
            inner(value, where)

    return check


_DECISION_PART_FIELDS = obj(
    {
        "statistic": STR,
        "direction": one_of("greater", "less"),
        "pass_margin": NUM,
        "fail_margin": NUM,
        "verdict": VERDICT,
        "n": INT,
        "mean": null(NUM),
        "sd": null(NUM),
        "lower": null(NUM),
        "upper": null(NUM),
        "level": NUM,
    },
    {"units_needed": null(INT)},
)
DECISION_PART = _all(_DECISION_PART_FIELDS, _part_with_spread)

#: What an INCONCLUSIVE decision's bounds exclude, per undecided statistic
#: (:meth:`paper_checks.decision.Decision.excluded`; absent from records made before it).
EXCLUDED = obj({"statistic": STR, "above": null(NUM), "below": null(NUM), "confidence": NUM})

DECISION = obj(
    {"verdict": VERDICT, "parts": list_of(DECISION_PART)},
    {
        "units": map_of(list_of(null(NUM))),
        "units_needed": null(INT),
        "reason": STR,
        "excluded": list_of(EXCLUDED),
    },
)

#: The statuses of a run's comparison with its committed reference (:mod:`paper_checks.reproduce`).
SAME, SAME_VERDICT, DIFFERS, NOT_COMPARED = (
    "same numbers",
    "same verdict",
    "verdict differs",
    "not compared",
)

REPRODUCTION = either(
    obj({"status": one_of(SAME)}),
    obj(
        {
            "status": one_of(SAME_VERDICT),
            "largest_difference": obj({"quantity": STR, "relative": NUM}),
        }
    ),
    obj({"status": one_of(DIFFERS), "verdict": VERDICT, "reference": VERDICT}),
    obj({"status": one_of(NOT_COMPARED), "reason": STR}),
)

CLAIM = obj(
    {
        "claim_id": _claim_id,
        "verdict": VERDICT,
        "summary": STR,
        "measured": map_of(ANY),
        "expected": map_of(ANY),
        "tolerance": STR,
        "figures": list_of(_figure),
        "statement": STR,
        "source": STR,
        "provenance": obj({}, {"wall_time_s": NUM, "cpu_time_s": null(NUM)}),
    },
    {
        "paper": STR,
        "rule": STR,
        "detail": null(STR),
        "stochastic": null(BOOL),
        "history": HISTORY,
        "replication": null(REPLICATION),
        "decision": null(DECISION),
        "error": null(STR),
        "arrays": null(STR),
        "reproduction": null(REPRODUCTION),
    },
)

UPDATE = obj(
    {},
    {
        "created": null(STR),
        "argv": list_of(STR),
        "claims": list_of(STR),
        "replicates": INT,
        "wall_time_s": null(NUM),
        "merged_from": null(STR),
    },
)

RUN = obj(
    {
        "run_id": STR,
        "scale": STR,
        "seed": INT,
        "scheduler": STR,
        "workers": INT,
        "backend": STR,
        "wall_time_s": NUM,
    },
    {
        "created": STR,
        "argv": list_of(STR),
        "replicates": INT,
        "device": STR,
        "updates": list_of(UPDATE),
    },
)

RESULTS = obj({"run": RUN, "claims": list_of(CLAIM)}, {"counts": map_of(INT)})


def validate(value: Any, schema: Check, where: str = "") -> None:
    """Check the depth, then ``schema``; :class:`SchemaError` on the first misfit."""
    check_depth(value)
    schema(value, where)


def duplicates(ids: Iterable[str]) -> str | None:
    """The first id that occurs twice, if any."""
    seen: set[str] = set()
    for claim_id in ids:
        if claim_id in seen:
            return claim_id
        seen.add(claim_id)
    return None


#: A sweep cache's manifest, ``sweeps/<claim>/<name>/<fingerprint>/sweep.json``
#: (:func:`sims.sweep.run_sweep`).
SWEEP_MANIFEST = obj({"fingerprint": STR, "sweep": STR, "key": STR})
#: One finished task of a sweep cache, ``task-<index>.json``.
SWEEP_TASK = obj({"index": INT, "params": map_of(ANY), "seed_index": INT, "result": ANY})
#: A task kept by a store shared between runs (:mod:`paper_checks.task_store`).
STORED_TASK = obj(
    {
        "task": obj({"fn": STR, "code": STR, "params": map_of(ANY), "seed": map_of(ANY)}),
        "result": map_of(ANY),
    }
)
