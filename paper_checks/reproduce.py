"""Does a run reproduce the committed reference? Claim by claim against ``docs/results/<scale>``.

A claim's result is compared with the reference record of its scale when the reference was made
at the same root seed and by the same code (the claim fingerprint of
:func:`paper_checks.runner.claim_fingerprint`):

- ``same numbers``: the verdict and every value of ``measured`` are equal (timings aside,
  :data:`paper_checks.results.TIMING_KEYS`);
- ``same verdict``: the verdict is equal, some numbers differ (the largest relative difference
  is reported: other BLAS, another CPU, another library version);
- ``verdict differs``.

Otherwise the claim is ``not compared``, with the reason (no reference record, another seed,
code changed since the reference). A reference replicated over R root seeds records the
verdict of each root seed: a run with one root seed is compared with the reference's own first
root seed's verdict, a run with R root seeds with the pooled one, and a run with fewer root seeds
than the reference (a claim whose one planned look is a floor of R root seeds) with the
reference's first R root seeds' units decided again by the claim's rule
(:func:`first_root_seeds_verdict`): those are the run's own root seeds.

The reference runs reach a run as package data, :data:`PACKAGED_REFERENCE`, the same in a clone
and in an installed wheel: the records of ``docs/results/<scale>/results.json`` cut to what a
comparison and the ordering of checks by cost read (:func:`packaged_reference`). The
maintainers' docs tool (``python -m tools.docs``) writes it whenever the reference runs change,
and a test fails when it drifts from them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from importlib.resources import files
from typing import Any

from paper_checks._schema import DIFFERS, NOT_COMPARED, SAME, SAME_VERDICT
from paper_checks.results import CheckResult, comparable
from sims._jsonio import to_jsonable

__all__ = [
    "PACKAGED_REFERENCE",
    "closing_line",
    "compare",
    "compare_run",
    "load_reference_run",
    "packaged_reference",
]

#: The committed reference runs as the package ships them: scale -> {"run": metadata,
#: "claims": records cut by :func:`packaged_reference`}.
PACKAGED_REFERENCE = files("paper_checks") / "reference.json"
#: What a packaged record keeps: the fields a :class:`CheckResult` needs and those a comparison
#: reads, of its provenance the code fingerprint, root seed and times (the order of checks by
#: cost), of its replication the root seeds and each one's verdict and unit count, and of its
#: decision the units (what :func:`first_root_seeds_verdict` decides again).
RECORD_FIELDS = ("claim_id", "paper", "verdict", "summary", "measured", "expected", "tolerance")
PROVENANCE_FIELDS = ("code", "seed", "cpu_time_s", "wall_time_s")
RUN_FIELDS = ("created", "replicates", "scale", "seed")

#: Magnitudes below this count as this in a relative difference.
FLOOR = 1e-12


def packaged_record(record: CheckResult) -> dict[str, Any]:
    """``record`` cut to what :data:`PACKAGED_REFERENCE` keeps of it (:data:`RECORD_FIELDS`)."""
    rep = record.replication or {}
    cut = to_jsonable({name: getattr(record, name) for name in RECORD_FIELDS})
    cut["stochastic"] = record.stochastic
    cut["provenance"] = {name: record.provenance.get(name) for name in PROVENANCE_FIELDS}
    cut["replication"] = (
        {
            "n": rep.get("n"),
            "replicates": [
                {name: row[name] for name in ("verdict", "n_units") if name in row}
                for row in rep.get("replicates") or []
            ],
        }
        if rep
        else None
    )
    units = (record.decision or {}).get("units")
    cut["decision"] = to_jsonable({"units": units}) if rep and units else None
    return cut


def packaged_reference(
    runs: Mapping[str, tuple[Mapping[str, Any], Iterable[CheckResult]]],
) -> dict[str, Any]:
    """The content of :data:`PACKAGED_REFERENCE` from the reference runs, scale -> (run
    metadata, records)."""
    return {
        scale: {
            "run": {name: run[name] for name in RUN_FIELDS if name in run},
            "claims": [packaged_record(r) for r in records],
        }
        for scale, (run, records) in runs.items()
    }


def load_reference_run(scale: str) -> tuple[dict[str, Any], dict[str, CheckResult]] | None:
    """(run metadata, claim id -> record) of the committed reference at ``scale`` as the
    package ships it (:data:`PACKAGED_REFERENCE`), or None when there is none at that scale.
    ValueError when the packaged file is not valid JSON."""
    if not PACKAGED_REFERENCE.is_file():
        return None
    reference = json.loads(PACKAGED_REFERENCE.read_text(encoding="utf-8")).get(scale)
    if reference is None:
        return None
    return reference["run"], {r["claim_id"]: CheckResult.from_json(r) for r in reference["claims"]}


def _leaves(value: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    """(path, leaf) of every scalar inside a JSON value."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{prefix}[{i}]")
    else:
        yield prefix, value


def largest_difference(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[str, float]:
    """The measured quantity that differs most between two records and its relative
    difference |a − b| / max(|a|, |b|, 1e-12) (magnitudes below 1e-12, such as a solver's
    rounding error, count as 1e-12; 1.0 for a non-numeric or missing difference)."""
    left = dict(_leaves(comparable(to_jsonable(a))))
    right = dict(_leaves(comparable(to_jsonable(b))))
    worst, where = 0.0, ""
    for key in sorted(set(left) | set(right)):
        x, y = left.get(key), right.get(key)
        if x == y:
            continue
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (x, y))
        if numeric and math.isfinite(x) and math.isfinite(y):  # type: ignore[arg-type]
            rel = abs(x - y) / max(abs(x), abs(y), FLOOR)  # type: ignore[operator]
        else:
            rel = 1.0
        if rel > worst:
            worst, where = rel, key
    return where, worst


def compare(
    result: CheckResult, reference: CheckResult | None, ref_run: Mapping[str, Any], replicates: int
) -> dict[str, Any]:
    """How ``result`` (a run with ``replicates`` root seeds, or as many as its planned looks
    made: its replication's ``n``) stands against its reference."""
    if reference is None:
        return {"status": NOT_COMPARED, "reason": "no reference record at this scale"}
    ref_seed = reference.provenance.get("seed", ref_run.get("seed"))  # a study's own root seed
    if result.provenance.get("seed") != ref_seed:
        return {"status": NOT_COMPARED, "reason": f"the reference is at seed {ref_seed}"}
    code = result.provenance.get("code_on_cpu", result.provenance.get("code"))  # a GPU run's
    if code != reference.provenance.get("code"):  # code read on the CPU, as the reference's
        return {"status": NOT_COMPARED, "reason": "the claim's code changed since the reference"}
    replicates = max(replicates, (result.replication or {}).get("n", 1))
    expected = reference.verdict.value
    rep = reference.replication or {}
    rows = rep.get("replicates") or []
    if replicates == 1 and rows:
        expected = rows[0]["verdict"]
    elif replicates > 1 and result.stochastic and rep.get("n") != replicates:
        first = first_root_seeds_verdict(reference, replicates, ref_run.get("scale"))
        if first is None:
            return {
                "status": NOT_COMPARED,
                "reason": f"the reference has {rep.get('n', 1)} root seeds",
            }
        expected = first
    if result.verdict.value != expected:
        return {"status": DIFFERS, "verdict": result.verdict.value, "reference": expected}
    where, rel = largest_difference(result.measured, reference.measured)
    if not where:
        return {"status": SAME}
    return {"status": SAME_VERDICT, "largest_difference": {"quantity": where, "relative": rel}}


def first_root_seeds_verdict(reference: CheckResult, r: int, scale: str | None) -> str | None:
    """The verdict of ``reference``'s first ``r`` root seeds together: their units (the pooled
    units of its decision split back by root seed, :func:`paper_checks.redecide.split_units`)
    decided again by its claim's rule at ``scale`` (:func:`paper_checks.runner.decide_units`);
    None where the reference has fewer than ``r`` root seeds, no units, or units it does not
    say how to split, or its claim is not registered or decides nothing."""
    from paper_checks.claims import all_claims
    from paper_checks.decision import pool_units
    from paper_checks.redecide import split_units
    from paper_checks.runner import decide_units

    rows = (reference.replication or {}).get("replicates") or []
    units = (reference.decision or {}).get("units")
    claim = next((c for c in all_claims() if c.id == reference.claim_id), None)
    if r > len(rows) or not units or claim is None or claim.decision is None:
        return None
    if not all("n_units" in row for row in rows):
        return None
    shares, _ = split_units(claim, units, rows)
    if shares is None:
        return None
    return decide_units(claim, pool_units(shares[:r]), scale).verdict.value


def compare_run(
    results: list[CheckResult], scale: str, replicates: int
) -> dict[str, dict[str, Any]]:
    """claim id -> :func:`compare` for every result of a run (empty without a reference)."""
    reference = load_reference_run(scale)
    if reference is None:
        return {}
    ref_run, records = reference
    return {r.claim_id: compare(r, records.get(r.claim_id), ref_run, replicates) for r in results}


def describe(comparison: Mapping[str, Any]) -> str:
    """One phrase: "same numbers", "same verdict, numbers differ by 3e-12 (gap)", ..."""
    status = comparison["status"]
    if status == SAME_VERDICT:
        diff = comparison["largest_difference"]
        return f"same verdict, numbers differ by up to {diff['relative']:.2g} ({diff['quantity']})"
    if status == DIFFERS:
        return f"verdict differs: {comparison['verdict']} here, {comparison['reference']} there"
    if status == NOT_COMPARED:
        return f"not compared: {comparison['reason']}"
    return status


def closing_line(comparisons: Mapping[str, Mapping[str, Any]], scale: str) -> str:
    """ "57 of 58 claims reproduce docs/results/quick (50 same numbers, 7 same verdict); verdict
    differs: a.b; not compared: 1"."""
    if not comparisons:
        return f"no committed reference at docs/results/{scale} to compare with"
    by = {
        s: [c for c, v in comparisons.items() if v["status"] == s]
        for s in (SAME, SAME_VERDICT, DIFFERS, NOT_COMPARED)
    }
    ok = len(by[SAME]) + len(by[SAME_VERDICT])
    compared = ok + len(by[DIFFERS])
    where = f"docs/results/{scale}"
    if not compared:
        line = f"{where}: no claim compared"
    else:
        line = (
            f"{ok} of {compared} compared claims reproduce {where} "
            f"({len(by[SAME])} same numbers, {len(by[SAME_VERDICT])} same verdict)"
        )
    if by[NOT_COMPARED]:
        line += f"; {len(by[NOT_COMPARED])} not compared (new code or no record)"
    if by[DIFFERS]:
        line += f"; verdict differs: {', '.join(by[DIFFERS])}"
    return line
