"""Runs say whether they reproduce the committed reference (paper_checks.reproduce)."""

from __future__ import annotations

from dataclasses import replace

from paper_checks.reproduce import closing_line, compare, describe, largest_difference
from paper_checks.results import CheckResult, Verdict

REF_RUN = {"seed": 0}


def _result(verdict=Verdict.PASS, measured=None, code="abc", seed=0, replication=None):
    return CheckResult(
        verdict,
        "s",
        {"gap": 0.5, "cpu_seconds": 3.0} if measured is None else measured,
        {},
        "",
        claim_id="rlvr.a",
        stochastic=True,
        replication=replication,
        provenance={"seed": seed, "code": code},
    )


def test_equal_numbers_and_verdict_reproduce_timings_aside():
    ref = _result()
    run = _result(measured={"gap": 0.5, "cpu_seconds": 9.0})
    assert compare(run, ref, REF_RUN, 1) == {"status": "same numbers"}


def test_a_number_that_differs_is_named_with_its_relative_difference():
    ref = _result(measured={"gap": 0.5, "curve": [1.0, 2.0]})
    run = _result(measured={"gap": 0.5, "curve": [1.0, 2.2]})
    c = compare(run, ref, REF_RUN, 1)
    assert c["status"] == "same verdict"
    assert c["largest_difference"]["quantity"] == "curve[1]"
    assert abs(c["largest_difference"]["relative"] - 0.2 / 2.2) < 1e-12
    assert "differ by up to 0.091 (curve[1])" in describe(c)
    assert largest_difference({"a": "x"}, {"a": "y"}) == ("a", 1.0)


def test_a_verdict_that_differs_is_reported_and_one_root_seed_meets_the_reference_first_seed():
    rows = [{"verdict": "INCONCLUSIVE"}, {"verdict": "PASS"}]
    ref = replace(_result(Verdict.PASS), replication={"n": 2, "replicates": rows})
    run = _result(Verdict.PASS)
    assert compare(run, ref, REF_RUN, 1)["status"] == "verdict differs"  # seed 0 alone: INCONCL.
    assert compare(run, ref, REF_RUN, 2)["status"] == "same numbers"  # pooled over both


def test_other_code_another_seed_or_no_record_is_not_compared():
    ref = _result()
    assert "code changed" in compare(_result(code="new"), ref, REF_RUN, 1)["reason"]
    assert "seed 0" in compare(_result(seed=3), ref, REF_RUN, 1)["reason"]
    assert compare(_result(), None, REF_RUN, 1)["status"] == "not compared"


def test_the_closing_line_counts_every_kind():
    comparisons = {
        "a": {"status": "same numbers"},
        "b": {"status": "same verdict", "largest_difference": {"quantity": "x", "relative": 0.1}},
        "c": {"status": "verdict differs", "verdict": "PASS", "reference": "FAIL"},
        "d": {"status": "not compared", "reason": "no reference record at this scale"},
    }
    line = closing_line(comparisons, "quick")
    assert line.startswith("2 of 3 compared claims reproduce docs/results/quick")
    assert "verdict differs: c" in line
    assert "1 not compared" in line
    assert closing_line({"d": comparisons["d"]}, "quick").startswith("docs/results/quick: no claim")
    assert "no committed reference" in closing_line({}, "paper")


def test_a_deterministic_claim_compares_whatever_the_root_seed_count():
    ref = replace(_result(), stochastic=False, replication={"deterministic": True})
    run = replace(_result(), stochastic=False)
    assert compare(run, ref, REF_RUN, 3) == {"status": "same numbers"}


def test_a_run_that_added_root_seeds_by_its_looks_meets_the_pooled_reference():
    # asked for one root seed, the run made its planned looks up to 5: it is compared with the
    # reference's 5 pooled, not with the reference's first root seed alone
    rows = [{"verdict": "INCONCLUSIVE"}] + [{"verdict": "PASS"}] * 4
    ref = replace(_result(Verdict.PASS), replication={"n": 5, "replicates": rows})
    ran = replace(_result(Verdict.PASS), replication={"n": 5, "replicates": rows})
    assert compare(ran, ref, REF_RUN, 1) == {"status": "same numbers"}
    alone = replace(_result(Verdict.INCONCLUSIVE), replication=None)  # no looks: seed 0 alone
    assert compare(alone, ref, REF_RUN, 1) == {"status": "same numbers"}


def test_a_run_at_a_looks_floor_meets_the_reference_first_root_seeds_decided_again():
    # massive_activations_drop looks once at quick, at 4 root seeds: a run of 4 is compared with
    # the rule applied to the reference's first 4 root seeds' units, not with its 5 pooled
    from paper_checks.claims import all_claims
    from paper_checks.runner import decide_units

    claim = next(c for c in all_claims() if c.id == "gated_attention.massive_activations_drop")
    stat = claim.decision.statistics[0]
    values = [-0.5, -0.6, -0.55, -0.45, 5.0]
    first_four = decide_units(claim, {stat: values[:4]}, "quick").verdict
    pooled = decide_units(claim, {stat: values}, "quick").verdict
    assert first_four is Verdict.PASS
    assert pooled is not Verdict.PASS
    rows = [{"verdict": "INCONCLUSIVE", "n_units": 1} for _ in values]
    ref = replace(
        _result(pooled),
        claim_id=claim.id,
        replication={"n": 5, "replicates": rows},
        decision={"units": {stat: values}},
    )
    ran = replace(_result(Verdict.PASS), claim_id=claim.id, replication={"n": 4})
    assert compare(ran, ref, {"seed": 0, "scale": "quick"}, 1) == {"status": "same numbers"}
    wrong = replace(ran, verdict=Verdict.FAIL)
    assert compare(wrong, ref, {"seed": 0, "scale": "quick"}, 1)["reference"] == "PASS"
    # rows that do not say how many units each root seed had: not compared
    unsplit = replace(ref, replication={"n": 5, "replicates": [{"verdict": "PASS"}] * 5})
    assert "5 root seeds" in compare(ran, unsplit, {"seed": 0, "scale": "quick"}, 1)["reason"]
