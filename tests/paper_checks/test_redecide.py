"""Re-deciding a run's stored units under today's rules (paper_checks.redecide,
``paper-checks report --redecide``): only decision outputs change, and they become what a fresh
run decides; legacy rows are split back by root seed; stale and merged runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from paper_checks.claims import _REGISTRY, HistoryEntry, PaperEffect, claim
from paper_checks.cli import main
from paper_checks.context import Context
from paper_checks.decision import Decision, Part, Rule
from paper_checks.paper_scale import Refused
from paper_checks.redecide import redecide_record, redecide_run, split_units
from paper_checks.results import CheckResult
from paper_checks.runner import AT_THIS_BUDGET, excluded_statement, headline_summary

CLAIM_ID = "rlvr.test_redecide"
RULE = Rule("one draw", (Part("x", "a draw", "greater", 0.0, -0.5),))
UNITS_PER_SEED = 4


def _check(ctx: Context) -> CheckResult:
    x = 1.2 + ctx.rng("x").normal(size=UNITS_PER_SEED)
    d = RULE.decide({"x": x})
    return CheckResult(d.verdict, f"draws: {len(x)}", {"n": len(x)}, {}, "", decision=d.to_json())


@pytest.fixture
def decided():
    claim(
        CLAIM_ID,
        paper="rlvr",
        statement="A gain <for tests>.",
        source="tests",
        stochastic=True,
        decision=RULE,
        history=[HistoryEntry("2026-11-30", "a change", "a test", "PASS")],
        paper_plan=Refused("a test claim has no paper sizes"),
    )(_check)
    yield CLAIM_ID
    _REGISTRY.pop(CLAIM_ID, None)


def _plan_looks(monkeypatch, counts: tuple[int, ...]) -> None:
    """Declare looks at ``counts`` root seeds at quick for the registered test claim."""
    from dataclasses import replace

    monkeypatch.setitem(_REGISTRY, CLAIM_ID, replace(_REGISTRY[CLAIM_ID], looks={"quick": counts}))


def _run(out: Path, replicates: int) -> dict:
    assert main(["run", CLAIM_ID, "--replicates", str(replicates), "--out", str(out)]) in (0, 1)
    return _payload(out)


def _payload(out: Path) -> dict:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def _record(payload: dict) -> dict:
    return next(r for r in payload["claims"] if r["claim_id"] == CLAIM_ID)


def _write(out: Path, payload: dict) -> None:
    from sims._jsonio import dumps

    (out / "results.json").write_text(dumps(payload), encoding="utf-8")
    (out / f"{CLAIM_ID}.json").write_text(dumps(_record(payload)), encoding="utf-8")


def _old(record: dict) -> None:
    """Make ``record`` look decided by another rule: other bounds, verdicts and words."""
    record["verdict"] = "FAIL"
    record["summary"] = "3 root seeds pooled: an old decision"
    record["decision"]["verdict"] = "FAIL"
    record["decision"]["parts"][0].update(lower=-9.0, upper=-8.0, verdict="FAIL")
    for row in record["replication"]["replicates"]:
        row["verdict"] = "FAIL"
    record["replication"]["counts"]["FAIL"] = 3
    record["rule"] = "an older rule: PASS or FAIL"
    record["history"] = []


def test_a_fresh_run_is_left_as_it_is(decided, tmp_path):
    _run(tmp_path / "r", 3)
    before = (tmp_path / "r" / "results.json").read_bytes()
    (outcome,) = redecide_run(tmp_path / "r")
    assert (outcome.claim_id, outcome.changed) == (CLAIM_ID, False)
    assert (tmp_path / "r" / "results.json").read_bytes() == before


def test_only_decision_outputs_change_and_they_become_a_fresh_runs(decided, tmp_path):
    out = tmp_path / "r"
    fresh = _run(out, 3)
    old = json.loads(json.dumps(fresh))
    _old(_record(old))
    old["counts"] = {"ERROR": 0, "FAIL": 1, "INCONCLUSIVE": 0, "PASS": 0}
    _write(out, old)
    (outcome,) = redecide_run(out, ["report", "--redecide", "r"])
    assert outcome.changed
    assert (outcome.before, outcome.after) == ("FAIL", _record(fresh)["verdict"])
    now = _payload(out)
    assert _record(now) == _record(fresh)  # measured, units, provenance untouched
    assert json.loads((out / f"{CLAIM_ID}.json").read_text(encoding="utf-8")) == _record(fresh)
    assert now["counts"] == fresh["counts"]
    update = now["run"]["updates"][-1]
    assert update["argv"] == ["report", "--redecide", "r"]
    assert (update["claims"], update["redecided"]) == ([], [CLAIM_ID])
    # a second pass finds nothing to change and writes nothing
    text = (out / "results.json").read_text(encoding="utf-8")
    assert not redecide_run(out)[0].changed
    assert (out / "results.json").read_text(encoding="utf-8") == text


def test_legacy_rows_are_split_back_by_root_seed(decided, tmp_path):
    out = tmp_path / "r"
    fresh = _run(out, 3)
    old = json.loads(json.dumps(fresh))
    record = _record(old)
    units = record["decision"]["units"]["x"]
    _old(record)
    # made before rows had n_units, by Student's t: each row's verdict that rule's on its units
    for r, row in enumerate(record["replication"]["replicates"]):
        del row["n_units"]
        row["statistic"] = None
        own = [units[r * UNITS_PER_SEED : (r + 1) * UNITS_PER_SEED]]
        row["verdict"] = RULE.verdicts({"x": own}, skew=0.0)[0].value
    _write(out, old)
    (outcome,) = redecide_run(out)
    now = _record(_payload(out))
    rows, fresh_rows = now["replication"]["replicates"], _record(fresh)["replication"]["replicates"]
    assert [r["verdict"] for r in rows] == [r["verdict"] for r in fresh_rows]
    assert [r["statistic"] for r in rows] == pytest.approx([r["statistic"] for r in fresh_rows])
    assert now["replication"]["statistic_mean"] == pytest.approx(
        _record(fresh)["replication"]["statistic_mean"]
    )
    assert not outcome.notes


def test_an_unknown_split_leaves_the_rows_and_says_why(decided):
    units = {"x": [1.0, 2.0, 3.0, 4.0, 5.0]}
    rows = [{"replicate": r, "verdict": "INCONCLUSIVE", "statistic": None} for r in range(2)]
    shares, why = split_units(_REGISTRY[CLAIM_ID], units, rows)
    assert shares is None
    assert "do not split evenly" in why
    rows = [{**row, "n_units": n} for row, n in zip(rows, (2, 3), strict=True)]
    shares, _ = split_units(_REGISTRY[CLAIM_ID], units, rows)
    assert shares == [{"x": [1.0, 2.0]}, {"x": [3.0, 4.0, 5.0]}]
    # an equal split is refused when it contradicts the rows' stored statistics and verdicts
    rows = [
        {"replicate": 0, "verdict": "FAIL", "statistic": 9.0},
        {"replicate": 1, "verdict": "FAIL", "statistic": 9.0},
    ]
    shares, why = split_units(_REGISTRY[CLAIM_ID], {"x": [1.0, 2.0, 3.0, 4.0]}, rows)
    assert shares is None
    assert "matches neither" in why


def test_a_stale_record_is_left_whole(decided, tmp_path):
    out = tmp_path / "r"
    fresh = _run(out, 3)
    old = json.loads(json.dumps(fresh))
    record = _record(old)
    _old(record)
    record["provenance"]["code"] = "0" * 64
    _write(out, old)
    before = (out / "results.json").read_bytes()
    (outcome,) = redecide_run(out)
    assert not outcome.changed
    assert "stale" in outcome.notes[0]
    assert (out / "results.json").read_bytes() == before


def test_a_merged_run_is_redecided_with_its_planned_looks(decided, tmp_path, monkeypatch):
    # the reference holds one root seed; a later look at 3 is made elsewhere and merged in; the
    # plan (1, 3) was declared after the runs, so both decide at α/2 only once re-decided
    ref, extra = tmp_path / "ref", tmp_path / "extra"
    _run(ref, 1)
    _run(extra, 3)
    assert main(["merge", str(extra), str(ref)]) == 0
    _plan_looks(monkeypatch, (1, 3))
    (outcome,) = redecide_run(ref)
    record = _record(_payload(ref))
    assert outcome.changed
    assert record["decision"]["parts"][0]["level"] == pytest.approx(0.025 / 2)
    assert len(record["decision"]["units"]["x"]) == 3 * UNITS_PER_SEED
    assert record["verdict"] == RULE.decide(record["decision"]["units"], looks=2).verdict.value
    # the look's note closes the summary, before what an INCONCLUSIVE interval excludes
    assert (
        record["summary"]
        .split(AT_THIS_BUDGET)[0]
        .endswith("planned look 2 of 2 at quick (root seeds 1, 3; α/2 per look)")
    )
    assert all(r["n_units"] == UNITS_PER_SEED for r in record["replication"]["replicates"])
    assert not redecide_run(ref)[0].changed  # the look's note is not appended twice


def test_one_root_seed_with_planned_looks_is_redecided_once(decided, tmp_path, monkeypatch):
    _run(tmp_path / "r", 1)
    _plan_looks(monkeypatch, (1, 3))
    assert redecide_run(tmp_path / "r")[0].changed
    record = _record(_payload(tmp_path / "r"))
    assert record["summary"].startswith("draws: ")  # the check's own words kept
    assert record["summary"].count("planned look 1 of 2") == 1
    assert record["decision"]["parts"][0]["level"] == pytest.approx(0.025 / 2)
    assert not redecide_run(tmp_path / "r")[0].changed


def test_the_command_line_redecides_and_reports(decided, tmp_path, capsys):
    out = tmp_path / "r"
    old = _run(out, 3)
    _old(_record(old))
    _write(out, old)
    capsys.readouterr()
    assert main(["report", "--redecide", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"{CLAIM_ID}" in printed
    assert "1 of 1 decided claims re-decided" in printed
    assert "an old decision" not in (out / "report.md").read_text(encoding="utf-8")
    assert main(["report", "--redecide", str(tmp_path / "missing")]) == 2


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_redeciding_the_committed_references_changes_nothing(scale, tmp_path):
    # every verdict, bound, summary, per-root-seed verdict and look of a reference is what
    # today's rules make of its stored units: re-deciding a copy writes nothing
    import shutil

    from tools.docs import REFERENCE_RUNS

    if scale not in REFERENCE_RUNS:
        pytest.skip(f"no committed {scale} reference run")
    copy = tmp_path / scale
    shutil.copytree(Path(__file__).resolve().parents[2] / "docs" / "results" / scale, copy)
    before = (copy / "results.json").read_bytes()
    changed = [o.claim_id for o in redecide_run(copy) if o.changed]
    assert changed == []
    assert (copy / "results.json").read_bytes() == before


# ------------------------------------------------ what an INCONCLUSIVE interval excludes
GAIN_RULE = Rule("one draw", (Part("x", "a gain", "greater", 1.0, 0.0),))
#: mean 0.5, sd 1.5, n = 3: U = 0.5 + 7.05392·1.5/√3 = 6.60888 (tests/paper_checks/test_decision.py)
OPEN_UNITS = {"x": [-1.0, 0.5, 2.0]}


def test_the_statement_sets_the_paper_effect_beside_the_excluded_values():
    decision = GAIN_RULE.decide(OPEN_UNITS)
    bound = "mean x below 6.609 at 97.5% one-sided (larger values excluded)"
    big = PaperEffect("x", 8.0, "a big gain", "Fig. 1")
    small = PaperEffect("x", 3.0, "a small gain", "Fig. 2")
    words = PaperEffect("x", None, "a gain in other units", "Table 1")
    assert excluded_statement(decision, (big, small, words)) == (
        f"{AT_THIS_BUDGET}{bound}; the paper: x ≈ 8, which this interval excludes (a big gain; "
        "Fig. 1); the paper: x ≈ 3, which this interval does not exclude (a small gain; Fig. 2); "
        "the paper: a gain in other units (Table 1)"
    )
    assert excluded_statement(GAIN_RULE.decide({"x": [2.0, 2.1, 1.9]}), (big,)) == ""


def test_a_summary_is_written_from_the_decision_and_the_checks_words():
    """No code edits a summary: the headline is the check's words (its ``detail``), the
    decision, the look note and what the interval excludes, composed afresh each time, so a
    re-decision replaces the decision's text and adds no second statement."""
    effect = (PaperEffect("x", 8.0, "a big gain", "Fig. 1"),)
    decision = GAIN_RULE.decide(OPEN_UNITS)
    first = headline_summary(decision, 1, "", "draws: 3", effect)
    assert first == f"draws: 3; {decision.summary()}{excluded_statement(decision, effect)}"
    assert first.count(AT_THIS_BUDGET) == 1
    wider = GAIN_RULE.decide({"x": [-1.0, 0.5, 2.5]})
    moved = headline_summary(wider, 1, "a note", "draws: 3", effect)
    assert moved.startswith(f"draws: 3; {wider.summary()}; a note{AT_THIS_BUDGET}")
    assert moved.count(AT_THIS_BUDGET) == 1
    decided = GAIN_RULE.decide({"x": [2.0, 2.1, 1.9]})
    assert headline_summary(decided, 1, "", "", effect) == decided.summary()
    pooled = headline_summary(decided, 3, "", "draws: 3", effect)
    assert pooled == f"3 root seeds pooled: {decided.summary()}"  # one root seed's words left out


def test_a_decided_records_summary_is_its_detail_and_its_decision(decided, tmp_path):
    """The runner keeps a decided check's own words as the record's ``detail`` and writes the
    summary from them and the decision."""
    from paper_checks.runner import run_claim

    result = run_claim(_REGISTRY[decided], Context(out_dir=tmp_path))
    assert result.detail is not None
    assert result.summary.startswith(result.detail)
    assert Decision.from_json(result.decision).summary() in result.summary


def test_a_paper_effect_names_a_statistic_of_the_decision():
    with pytest.raises(ValueError, match="not statistics of its decision"):
        claim(
            "rlvr.test_effect_unknown",
            paper="rlvr",
            statement="A gain <for tests>.",
            source="tests",
            stochastic=True,
            decision=GAIN_RULE,
            paper_effects=[PaperEffect("y", 1.0, "another number", "Fig. 1")],
        )
    with pytest.raises(ValueError, match="non-empty 'source'"):
        PaperEffect("x", 1.0, "a number", " ")
    with pytest.raises(ValueError, match="finite or None"):
        PaperEffect("x", math.inf, "a number", "Fig. 1")


def test_a_not_run_record_takes_the_registrys_words_and_keeps_its_reason():
    from paper_checks.claims import all_claims
    from tools.docs import load_reference

    claim = next(c for c in all_claims() if c.decision is not None and "quick" in c.not_run_at)
    record = load_reference("quick")[1][claim.id].to_json()
    old = {**record, "rule": "an older rule; PASS, FAIL", "history": []}
    new, outcome = redecide_record(claim, old, "quick")
    assert outcome.changed
    assert (new["rule"], new["verdict"]) == (claim.rule, "NOT_RUN")
    assert new["history"] == [h.to_json() for h in claim.history]
    assert new["tolerance"] == record["tolerance"]  # why it did not run, not the rule
