"""The claim contract, enforced for every registered claim: a rule that says what PASSes and what
FAILs, a test that feeds it a plausible wrong theory and sees FAIL (marked
``@pytest.mark.claim_fails("<claim id>")``), and, if the claim is stochastic, a replication record
in the committed reference results that the README's numbers come from (the generated blocks of
the README and docs/ are checked against those results in tests/test_docs.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from paper_checks.claims import all_claims
from paper_checks.docs import REFERENCE_RUNS, load_reference
from paper_checks.runner import claim_fingerprint

TESTS = Path(__file__).resolve().parents[1]
CLAIMS = all_claims()
IDS = [c.id for c in CLAIMS]


def claims_with_fail_tests() -> set[str]:
    """Claim ids named by a ``pytest.mark.claim_fails("...")`` decorator anywhere under tests/."""
    named: set[str] = set()
    for path in TESTS.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "claim_fails"
            ):
                named |= {a.value for a in node.args if isinstance(a, ast.Constant)}
    return named


FAIL_TESTED = claims_with_fail_tests()


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_every_claim_has_a_rule_and_a_fail_test(claim):
    assert "PASS" in claim.rule
    assert "FAIL" in claim.rule
    assert claim.id in FAIL_TESTED, f"no @pytest.mark.claim_fails({claim.id!r}) test"


def test_fail_test_markers_name_registered_claims():
    assert not FAIL_TESTED - set(IDS), sorted(FAIL_TESTED - set(IDS))


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_reference_results_hold_the_registered_rule_and_replication(claim, scale):
    if scale not in REFERENCE_RUNS and scale != "quick":
        pytest.skip(f"no committed {scale} reference run")
    _, records = load_reference(scale)
    record = records.get(claim.id)
    if record is None:
        assert scale != "quick", f"{claim.id} is missing from the quick reference run"
        pytest.skip(f"{claim.id} is not in the {scale} reference run")
    assert record.rule == claim.rule, f"the {scale} reference run predates {claim.id}'s rule"
    assert record.stochastic == claim.stochastic
    assert record.history == [h.to_json() for h in claim.history]
    if claim.stochastic and scale == "quick":
        rep = record.replication
        assert rep is not None, f"{claim.id}: no replication record"
        assert rep["n"] >= 5, f"{claim.id}: replicated over {rep['n']} root seeds, not 5"


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_reference_results_are_not_older_than_the_claim_code(claim, scale):
    """The docs quote a reference record only while it was made by today's code: the fingerprint
    of the check module and everything it imports (sims.sweep.code_fingerprint)."""
    if scale not in REFERENCE_RUNS:
        pytest.skip(f"no committed {scale} reference run")
    run, records = load_reference(scale)
    record = records.get(claim.id)
    if record is None:
        pytest.skip(f"{claim.id} is not in the {scale} reference run")
    replicates = f" --replicates {run['replicates']}" if run.get("replicates", 1) > 1 else ""
    assert record.provenance.get("code") == claim_fingerprint(claim), (
        f"the {scale} reference record of {claim.id} was made by older code; refresh it with "
        f"`paper-checks run {claim.id} --scale {scale}{replicates} --workers 2 "
        f"--out docs/results/{scale} --update --fail-on never` and `paper-checks report --docs`"
    )
