"""Re-decide a run's stored units under today's rules: ``paper-checks report --redecide RUN_DIR``.

A claim decided over units stores its per-unit values in its record (``decision.units``), and the
decision (:mod:`paper_checks.decision`, with the claim's planned looks, :attr:`Claim.looks`) is
not part of a claim's fingerprint. So when the decision changes, no claim is rerun: its stored
units are decided again. :func:`redecide_run` rewrites only the outputs of the decision, for
every decided claim of the run whose record was made by today's claim code:

- the headline: ``verdict``, ``decision`` (bounds, levels, critical values, units needed) and
  ``summary``, from :func:`paper_checks.runner.decide_units` over the pooled units, the same
  rule application as a fresh run's;
- each root seed's diagnostic verdict in ``replication.replicates`` (its units split back from
  the pooled list: by the row's ``n_units``, or, in records made before rows had it, in equal
  shares when every root seed's statistic confirms the split), a missing per-root-seed
  ``statistic`` filled from those units, and the replication counts;
- the registry's words about the claim (``statement``, ``source``, ``rule``, ``history``: :func:`described`),
  which the record copies, for every claim of the run made by today's code, decided or not;
- the run's ``counts``, and an entry in ``updates`` naming the claims whose verdict or decision
  changed.

Per-unit values, measured numbers, figures, arrays and provenance are left as they are. A record
made by other code than today's claim (a stale fingerprint: its statistics may not be today's), an
ERROR record or one without stored units is left whole and reported. The files are written through
:mod:`paper_checks._files` (each claim's ``<claim>.json`` if the run has it, then
``results.json``), all or none.
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from paper_checks import _files
from paper_checks.claims import Claim, all_claims
from paper_checks.results import Verdict, _counts, read_results_payload

__all__ = ["Outcome", "redecide_record", "redecide_run", "split_units"]


@dataclass
class Outcome:
    """What re-deciding one claim's record did: its verdict before and after, whether any
    decision output changed, and notes on what was left as it was."""

    claim_id: str
    before: str
    after: str
    changed: bool
    notes: list[str] = field(default_factory=list)


def split_units(
    claim: Claim, units: Mapping[str, Sequence[float]], rows: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, list[float]]] | None, str]:
    """The pooled ``units`` split back by root seed (``rows``, in order), and "" — or None and
    why the split is not known. Rows with ``n_units`` (a count, or a count per statistic) say
    it. Rows made before they had it were decided by Student's t at one look; for them each
    statistic's units are split in equal shares, accepted only when the count divides evenly
    and either every row's stored statistic is the mean of its share of the claim's statistic
    or every row's stored verdict is its share's verdict under that old rule."""
    r = len(rows)
    if r == 0:
        return None, "no root seed rows"
    names = list(units)
    if all("n_units" in row for row in rows):
        counts = [
            dict.fromkeys(names, row["n_units"])
            if isinstance(row["n_units"], int)
            else dict(row["n_units"])
            for row in rows
        ]
        for name in names:
            if sum(c.get(name, 0) for c in counts) != len(units[name]):
                return None, f"the rows' n_units do not add up to the {name!r} units stored"
        return _shares(units, counts), ""
    uneven = [n for n in names if len(units[n]) % r]
    if uneven:
        return None, (
            f"{len(units[uneven[0]])} {uneven[0]!r} units do not split evenly over {r} root "
            "seeds, and the rows do not say how many each had"
        )
    shares = _shares(units, [{n: len(units[n]) // r for n in names} for _ in rows])
    stat = claim.statistic
    means = [
        (row["statistic"], math.fsum(share[stat]) / len(share[stat]))
        for row, share in zip(rows, shares, strict=True)
        if row.get("statistic") is not None and share.get(stat)
    ]
    if means and all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in means):
        return shares, ""
    assert claim.decision is not None
    rule = claim.decision
    old = [
        rule.verdicts({n: [share.get(n, [])] for n in rule.statistics}, skew=0.0)[0].value
        for share in shares
    ]
    stored = [row["verdict"] for row in rows]
    if all(s in (o, Verdict.ERROR.value) for s, o in zip(stored, old, strict=True)):
        return shares, ""
    return None, (
        f"an equal split over {r} root seeds matches neither their stored {stat} nor their "
        f"stored verdicts under Student's t ({stored} vs {old})"
    )


def _shares(
    units: Mapping[str, Sequence[float]], counts: Sequence[Mapping[str, int]]
) -> list[dict[str, list[float]]]:
    """``units`` cut in order into consecutive shares of ``counts`` units per statistic."""
    shares: list[dict[str, list[float]]] = []
    start = dict.fromkeys(units, 0)
    for count in counts:
        share = {}
        for name in units:
            k = count.get(name, 0)
            share[name] = [float(v) for v in units[name][start[name] : start[name] + k]]
            start[name] += k
        shares.append(share)
    return shares


def redecide_record(
    claim: Claim, record: Mapping[str, Any], scale: str | None
) -> tuple[dict[str, Any], Outcome]:
    """``record`` (a claim record of ``claim``'s, as stored) with its decision outputs made
    again under today's rule at ``scale`` (see the module docstring), and the :class:`Outcome`."""
    from paper_checks.runner import (
        decide_units,
        headline_summary,
        look_note,
        made_by_todays_code,
    )

    new = copy.deepcopy(dict(record))
    outcome = Outcome(claim.id, record["verdict"], record["verdict"], False)
    if claim.decision is None:
        return new, outcome
    if not made_by_todays_code(claim, record.get("provenance", {})):
        outcome.notes.append("left as it is: made by other code than today's claim (stale)")
        return new, outcome
    if record["verdict"] == Verdict.NOT_RUN.value:  # no units; its words are the registry's
        new |= {k: v for k, v in described(claim, record).items() if k != "tolerance"}
        outcome.changed = _stored(new) != _stored(dict(record))
        return new, outcome
    if record["verdict"] == Verdict.ERROR.value or not record.get("decision"):
        outcome.notes.append("left as it is: an ERROR record or no stored units")
        return new, outcome
    rep = record.get("replication") or {}
    rows = [] if rep.get("deterministic", True) else list(rep.get("replicates", []))
    root_seeds = max(1, len(rows))
    units = record["decision"].get("units", {})
    decision = decide_units(claim, units, scale)
    new["verdict"] = decision.verdict.value
    new["decision"] = decision.to_json()
    new["summary"] = headline_summary(
        decision,
        root_seeds,
        look_note(claim, scale, root_seeds),
        record.get("detail") or "",
        claim.paper_effects,
    )
    if rows:
        new["replication"] = _redecided_rows(claim, rep, rows, units, scale, decision, outcome)
    new |= described(claim, record)
    outcome.after = new["verdict"]
    outcome.changed = _stored(new) != _stored(dict(record))
    return new, outcome


def described(claim: Claim, record: Mapping[str, Any]) -> dict[str, Any]:
    """The registry's words about ``claim`` that its record copies (statement, source, rule and
    history, and the tolerance of a claim decided over units, or where the check stated it as
    the rule's text): none of them is a number the check computed."""
    words = {
        "statement": claim.statement,
        "source": claim.source,
        "rule": claim.rule,
        "history": [entry.to_json() for entry in claim.history],
    }
    if claim.decision is not None or record.get("tolerance") == record.get("rule"):
        words["tolerance"] = claim.rule  # a decided claim's tolerance is its rule's text
    return words


def _redecided_rows(
    claim: Claim,
    rep: Mapping[str, Any],
    rows: list[Mapping[str, Any]],
    units: Mapping[str, Sequence[float]],
    scale: str | None,
    pooled: Any,
    outcome: Outcome,
) -> dict[str, Any]:
    from paper_checks.runner import decide_units, replication_summary

    shares, why = split_units(claim, units, rows)
    new_rows = [dict(row) for row in rows]
    if shares is None:
        every_short = all(len(v) < claim.decision.min_units for v in units.values())
        if every_short:  # no root seed can hold more units than all of them together
            for row in new_rows:
                if row["verdict"] != Verdict.ERROR.value:
                    row["verdict"] = Verdict.INCONCLUSIVE.value
        else:
            outcome.notes.append(f"root seed rows left as they were: {why}")
    else:
        for row, share in zip(new_rows, shares, strict=True):
            if row["verdict"] == Verdict.ERROR.value:
                continue
            own = decide_units(claim, share, scale)
            row["verdict"] = own.verdict.value
            if row.get("statistic") is None and share.get(claim.statistic):
                values = share[claim.statistic]
                row["statistic"] = math.fsum(values) / len(values)
        missing = [row["replicate"] for row in new_rows if row.get("statistic") is None]
        if missing:
            outcome.notes.append(
                f"root seed(s) {missing} have no {claim.statistic} (no units of it)"
            )
    summary = replication_summary(claim, new_rows, pooled.verdict)
    looks = rep.get("looks")
    if looks and shares is not None:  # each look again, over the root seeds it had
        from paper_checks.decision import pool_units

        summary["looks"] = [
            {
                **look,
                "verdict": decide_units(
                    claim, pool_units(shares[: look["root_seeds"]]), scale
                ).verdict.value,
            }
            for look in looks
        ]
    return {**rep, **summary}


def _stored(record: Mapping[str, Any]) -> Any:
    """``record`` as it would be stored (NaN as null)."""
    from sims._jsonio import to_jsonable

    return to_jsonable(record)


def redecide_run(
    run_dir: str | os.PathLike[str], argv: Sequence[str] | None = None
) -> list[Outcome]:
    """Re-decide every decided claim of the run in ``run_dir`` (see the module docstring) and
    write it back when anything changed, with ``argv`` (the command line) in its new
    ``updates`` entry. Returns one :class:`Outcome` per decided claim of the run."""
    from paper_checks.runner import made_by_todays_code

    run_dir = Path(run_dir)
    payload = read_results_payload(run_dir, "RUN_DIR")
    claims = {c.id: c for c in all_claims()}
    scale = payload["run"]["scale"]
    outcomes, records = [], []
    for record in payload["claims"]:
        claim = claims.get(record["claim_id"])
        if claim is not None and claim.decision is None:
            fresh = made_by_todays_code(claim, record.get("provenance", {}))
            new = {**record, **described(claim, record)} if fresh else record
            records.append(new)
            if new != record:
                outcomes.append(Outcome(claim.id, record["verdict"], record["verdict"], True))
            continue
        if claim is None:
            records.append(record)
            continue
        new, outcome = redecide_record(claim, record, scale)
        records.append(new)
        outcomes.append(outcome)
    changed = [o.claim_id for o in outcomes if o.changed]
    if not changed:
        return outcomes
    run = payload["run"]
    update = {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "argv": list(argv) if argv is not None else ["report", "--redecide", str(run_dir)],
        "claims": [],
        "redecided": changed,
    }
    merged = {
        **payload,
        "run": {**run, "updates": [*run.get("updates", []), update]},
        "counts": _counts(records),
        "claims": records,
    }
    with _files.Transaction(run_dir) as transaction:
        for record in records:
            path = run_dir / f"{record['claim_id']}.json"
            if record["claim_id"] in changed and path.is_file():
                transaction.stage_json(path, record)
        transaction.stage_json(run_dir / "results.json", merged)
        transaction.commit()
    return outcomes
