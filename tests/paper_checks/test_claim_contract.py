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
from paper_checks.results import Verdict
from paper_checks.runner import claim_fingerprint
from tools.docs import REFERENCE_RUNS, load_reference, superseded_by

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


def _calls_decide(claim) -> bool:
    """Whether what ``claim``'s check runs of its module calls a rule's ``decide``."""
    import inspect
    import sys

    from sims._fingerprint import module_slice

    tree = ast.parse(inspect.getsource(sys.modules[claim.check.__module__]))
    part = module_slice(tree, claim.check.__name__)
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "decide"
        for n in ast.walk(part)
    )


def test_no_check_applies_its_rule_itself():
    """Every check returns what it measured (its units, or a deterministic verdict): the runner
    alone applies a rule (docs/adding-a-claim.md)."""
    assert [c.id for c in CLAIMS if _calls_decide(c)] == []


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
    if scale == "full" and superseded_by(record, load_reference(scale)[0]):
        pytest.skip(f"the full record of {claim.id} predates its recorded rule change")
    assert record.rule == claim.rule, f"the {scale} reference run predates {claim.id}'s rule"
    assert record.stochastic == claim.stochastic
    assert record.history == [h.to_json() for h in claim.history]
    if scale in claim.not_run_at:  # not run there: a NOT_RUN record, no units, no root seeds
        assert record.verdict is Verdict.NOT_RUN
        assert record.replication is None
    elif claim.stochastic and scale == "quick":
        rep = record.replication
        assert rep is not None, f"{claim.id}: no replication record"
        assert rep["n"] >= 5, f"{claim.id}: replicated over {rep['n']} root seeds, not 5"


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_reference_results_are_not_older_than_the_claim_code(claim, scale):
    """The docs quote a reference record only while it was made by today's code: the fingerprint
    of the check (its slice of its module) and everything it imports (sims._fingerprint)."""
    if scale not in REFERENCE_RUNS:
        pytest.skip(f"no committed {scale} reference run")
    run, records = load_reference(scale)
    record = records.get(claim.id)
    if record is None:
        pytest.skip(f"{claim.id} is not in the {scale} reference run")
    replicates = f" --replicates {run['replicates']}" if run.get("replicates", 1) > 1 else ""
    if scale == "full" and superseded_by(record, run) is not None:
        # kept, and shown in the docs as the old rule's verdict, only when a recorded rule
        # change (a history entry dated on or after the record) explains the new code
        return
    assert record.provenance.get("code") == claim_fingerprint(claim, scale), (
        f"the {scale} reference record of {claim.id} was made by older code; refresh it with "
        f"`paper-checks run {claim.id} --scale {scale}{replicates} --workers 2 "
        f"--out docs/results/{scale} --update --fail-on never` and `python -m tools.docs`"
    )


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_reference_records_come_from_the_root_seeds_of_the_declared_study(claim, scale):
    # a confirmatory study (Claim.studies) is decided only by its own root seeds: a record of an
    # earlier study is not its record, even where its code is today's
    if scale not in REFERENCE_RUNS:
        pytest.skip(f"no committed {scale} reference run")
    run, records = load_reference(scale)
    record = records.get(claim.id)
    if record is None or record.verdict is Verdict.NOT_RUN:
        pytest.skip(f"{claim.id} has no run record at {scale}")
    assert record.provenance["seed"] == claim.root_seed(run["seed"], scale), (
        f"the {scale} reference record of {claim.id} is not from study {claim.study_at(scale)}"
    )
    rows = (record.replication or {}).get("replicates") or []
    assert all(row["root_entropy"][0] == record.provenance["seed"] for row in rows)


def test_every_stochastic_claim_is_decided_over_units_or_declared_exact_over_instances():
    """A stochastic claim without a decision over units declares itself an exact check over
    random instances (or a Monte Carlo identity with a family-wise test), where one violation is
    a counterexample: pooled over root seeds, any FAIL FAILs (Claim.exact). It stops being one
    only by gaining a ``decision``."""
    for c in CLAIMS:
        assert c.exact_over_instances == (c.stochastic and c.decision is None), c.id
        assert c.exact == c.exact_over_instances, c.id


def test_the_registry_refuses_an_undeclared_kind_or_a_missing_paper_plan():
    from paper_checks.claims import claim
    from paper_checks.decision import Part, Rule
    from paper_checks.paper_scale import Refused

    words = {"paper": "rlvr", "statement": "s", "source": "t", "rule": "PASS if a; FAIL if b"}
    plan = Refused("not at paper scale")
    with pytest.raises(ValueError, match=r"needs a decision over units or.*exact_over_instances"):
        claim("rlvr.test_kind", stochastic=True, statistic="x", paper_plan=plan, **words)
    decision = Rule("one draw", (Part("x", "a draw", "greater", 0.0, -0.5),))
    for kind in ({"stochastic": False}, {"stochastic": True, "decision": decision}):
        with pytest.raises(ValueError, match="exact_over_instances=True declares"):
            claim("rlvr.test_kind", exact_over_instances=True, paper_plan=plan, **kind, **words)
    with pytest.raises(ValueError, match="needs a paper_plan"):
        claim("rlvr.test_plan", stochastic=False, **words)
    with pytest.raises(ValueError, match="reproduces_to"):
        claim("rlvr.test_pin", stochastic=False, paper_plan=plan, reproduces_to=-1.0, **words)


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.decision], ids=lambda c: c.id)
def test_reference_verdicts_recompute_from_their_committed_units(claim, scale):
    """A reader can recompute every decided verdict from the repository: the rule applied to the
    per-unit values stored in the record, at the level its planned looks at that scale leave
    (Claim.looks), gives the record's verdict and bounds; a record is a planned look (one planned
    look is a floor on the root seeds)."""
    from paper_checks.runner import decide_units

    if scale not in REFERENCE_RUNS:
        pytest.skip(f"no committed {scale} reference run")
    run, records = load_reference(scale)
    record = records.get(claim.id)
    if record is None or (scale == "full" and superseded_by(record, run)):
        pytest.skip(f"no current {scale} record of {claim.id}")
    if scale in claim.not_run_at:
        pytest.skip(f"{claim.id} does not run at {scale}")
    assert record.decision is not None, f"{claim.id}: the {scale} record holds no decision"
    decision = decide_units(claim, record.decision["units"], scale)
    assert record.verdict is decision.verdict or record.verdict is Verdict.ERROR
    if record.verdict is not Verdict.ERROR:
        for stored, part in zip(record.decision["parts"], decision.parts, strict=True):
            assert stored["level"] == pytest.approx(part.level), stored["statistic"]
            assert (stored["lower"], stored["upper"]) == pytest.approx(
                (_finite(part.lower), _finite(part.upper))
            ), stored["statistic"]
    rep = record.replication or {}
    root_seeds = rep.get("n", 1) if not rep.get("deterministic", True) else 1
    planned = claim.looks_at(scale)
    made = root_seeds >= planned[0] if len(planned) == 1 else root_seeds in planned  # a floor
    assert not planned or made, (
        f"{claim.id}: a look at {root_seeds} root seeds, not one of those planned at {scale} "
        f"({planned})"
    )


def _finite(x: float) -> float | None:
    """A bound as the record stores it (a non-finite one as null)."""
    import math

    return x if math.isfinite(x) else None


#: Each paper's headline claim: PASS or FAIL in the full reference, or its record says what its
#: interval excludes beside what the paper reports.
HEADLINE_CLAIMS = (
    "gated_attention.sink_removed",
    "deep_crl.online_maze",
    "diffusion.tau_gen_constant_tau_mem_linear",
    "rlvr.transformer_crossing",
)


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.decision], ids=lambda c: c.id)
def test_an_inconclusive_reference_states_what_its_interval_excludes(claim, scale):
    """An INCONCLUSIVE decided record ends with the statement of what its interval excludes
    (:func:`paper_checks.runner.excluded_statement`), beside the paper's effect that its claim
    registers; a decided record carries none."""
    from paper_checks.decision import Decision
    from paper_checks.runner import AT_THIS_BUDGET, excluded_statement

    if scale not in REFERENCE_RUNS:
        pytest.skip(f"no committed {scale} reference run")
    _, records = load_reference(scale)
    record = records.get(claim.id)
    if record is None or record.decision is None:
        pytest.skip(f"no decided {scale} record of {claim.id}")
    if record.verdict is not Verdict.INCONCLUSIVE:
        assert AT_THIS_BUDGET not in record.summary
        assert "excluded" not in record.decision
        return
    decision = Decision.from_json(record.decision)
    statement = excluded_statement(decision, claim.paper_effects)
    assert record.summary.endswith(statement)
    assert record.summary.count(AT_THIS_BUDGET) == 1
    assert record.decision["excluded"] == decision.excluded()
    assert claim.paper_effects, (
        f"{claim.id} is INCONCLUSIVE at {scale} but registers no paper effect"
    )


@pytest.mark.parametrize("claim_id", HEADLINE_CLAIMS)
def test_each_headline_claim_is_decided_or_says_what_the_toy_scale_excludes(claim_id):
    from paper_checks.runner import AT_THIS_BUDGET

    _, records = load_reference("full")
    record = records[claim_id]
    if record.verdict is Verdict.INCONCLUSIVE:
        assert AT_THIS_BUDGET in record.summary
        assert "; the paper: " in record.summary
    else:
        assert record.verdict in (Verdict.PASS, Verdict.FAIL)


def test_editing_a_claims_words_or_another_scales_sizes_stales_no_record(tmp_path, monkeypatch):
    """A record's fingerprint covers what computes its numbers: the summary and tolerance text of
    a check's result (and a helper only they call), its figure (drawn in the check's body by a
    presentation module, from what it measured), and the sizes of another scale, can change
    without staling it; a number cannot, nor a figure's argument that draws from a generator."""
    import sys
    import textwrap

    from paper_checks.claims import Claim

    package = tmp_path / "wordspkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))

    def fingerprint(
        words: str,
        threshold: str = "0.5",
        quick: str = "10",
        full: str = "100",
        scale: str = "quick",
        early: str = "",
        figure: str = "new_figure(ncols=2, nrows=int(x > 0))",
    ) -> str:
        (package / "check.py").write_text(
            textwrap.dedent(f"""
                from paper_checks.plotting import new_figure
                from paper_checks.results import CheckResult, Verdict


                def _words(x):
                    return {words!r}.format(x)


                def check(ctx):
                    {early}
                    x = float(ctx.rng("x").random(ctx.pick(quick={quick}, full={full})).mean())
                    fig = {figure}
                    return CheckResult(
                        verdict=Verdict.of(x < {threshold}),
                        summary=_words(x),
                        measured={{"x": x}},
                        expected={{}},
                        tolerance="x < {threshold}, " + {words!r},
                        figures=ctx.save_figure(fig),
                    )
            """)
        )
        for name in [m for m in sys.modules if m.startswith("wordspkg")]:
            monkeypatch.delitem(sys.modules, name)
        from wordspkg.check import check

        rule = "PASS when x < 0.5; FAIL otherwise."
        claim = Claim("rlvr.words", "rlvr", "s", "tests", check, rule, False)
        return claim_fingerprint(claim, scale)

    first = fingerprint("x = {:.3f}")
    assert fingerprint("drew x = {:.4g}, below the threshold") == first
    assert fingerprint("x = {:.3f}", threshold="0.6") != first
    assert fingerprint("x = {:.3f}", figure="new_figure(ncols=3, nrows=int(x > 0.5))") == first
    # a figure argument drawn from a generator counts: the draw may move the numbers' streams
    drawn = 'new_figure(ncols=int(ctx.rng("x").integers(2, 4)))'
    assert fingerprint("x = {:.3f}", figure=drawn) != first
    assert fingerprint("x = {:.3f}", figure=drawn.replace("2, 4", "2, 5")) != fingerprint(
        "x = {:.3f}", figure=drawn
    )
    # a record at one scale is made by its own sizes: the other scale's can change
    full = fingerprint("x = {:.3f}", scale="full")
    assert fingerprint("x = {:.3f}", full="200") == first
    assert fingerprint("x = {:.3f}", quick="20") != first
    assert fingerprint("x = {:.3f}", quick="20", scale="full") == full
    assert fingerprint("x = {:.3f}", full="200", scale="full") != full
    quick_only = 'if ctx.scale == "quick":\n                        return None'
    assert fingerprint("x = {:.3f}", scale="full", early=quick_only) == full
    assert fingerprint("x = {:.3f}", early=quick_only) != first
    # paper falls back to the full sizes: the same code makes it
    assert fingerprint("x = {:.3f}", scale="paper") == full
    assert fingerprint("x = {:.3f}", full="200", scale="paper") != full


def test_editing_a_registered_rule_stales_no_record_of_a_check_that_returns_units(
    tmp_path, monkeypatch
):
    """A check that returns its units never reads its rule: the registration's ``decision``
    (the runner's, applied to the stored units) can change without staling its records; how
    the units are computed cannot."""
    import sys
    import textwrap

    from paper_checks.runner import DESCRIPTIVE_KEYWORDS, PRESENTATION_MODULES
    from sims._fingerprint import code_fingerprint

    package = tmp_path / "unitspkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))

    def fingerprint(margin: str, draws: str = "10") -> str:
        (package / "check.py").write_text(
            textwrap.dedent(f"""
                from paper_checks.decision import Part, Rule
                from paper_checks.results import UnitsResult

                RULE = Rule("a draw", (Part("x", "a draw", "greater", {margin}, 0.0),))


                def claim(*args, **kwargs):  # the registry's decorator, as a fingerprint reads it
                    return lambda check: check


                @claim("rlvr.units", paper="rlvr", statement="s", source="t", decision=RULE)
                def check(ctx):
                    x = ctx.rng("x").random({draws})
                    return UnitsResult(units={{"x": x}}, summary="", measured={{}}, expected={{}})
            """)
        )
        for name in [m for m in sys.modules if m.startswith("unitspkg")]:
            monkeypatch.delitem(sys.modules, name)
        from unitspkg.check import check

        return code_fingerprint(
            check,
            skip=PRESENTATION_MODULES,
            ignore=DESCRIPTIVE_KEYWORDS,
            sliced=True,
            scale="quick",
        )

    first = fingerprint("0.5")
    assert fingerprint("0.6") == first
    assert fingerprint("0.5", draws="20") != first


STUDIED = [(c, scale) for c in CLAIMS for scale in c.studies]


@pytest.mark.parametrize(("claim", "scale"), STUDIED, ids=[f"{c.id}-{s}" for c, s in STUDIED])
def test_a_confirmatory_study_keeps_its_pilot_and_the_power_it_was_planned_with(claim, scale):
    """Study k − 1's record stays in the reference as the pilot (``pilots.json``), and the power
    its history entry states is what :func:`study_power` computes from the pilot's units at
    the study's planned looks."""
    import re

    from paper_checks.calibration import study_power
    from sims._jsonio import read_json

    pilot = read_json(TESTS.parent / "docs" / "results" / scale / "pilots.json")["pilots"][claim.id]
    assert pilot["provenance"]["seed"] != claim.root_seed(0, scale)
    rows = (pilot.get("replication") or {}).get("replicates") or []
    units = pilot["decision"]["units"]
    per_seed = min(r["n_units"] for r in rows) if rows else len(next(iter(units.values())))
    looks = tuple(per_seed * k for k in claim.looks[scale])
    entry = next(
        h for h in claim.history if f"confirmatory study {claim.study_at(scale)}" in h.change
    )
    stated = re.search(
        r"probability ([0-9.]+), ending PASS ([0-9.]+), FAIL ([0-9.]+)", entry.change
    )
    assert stated is not None, entry.change
    power = study_power(claim.decision, units, looks, sets=20_000, seed=1)
    computed = (power["decided_by"][0], power["PASS"], power["FAIL"])
    assert [float(x) for x in stated.groups()] == pytest.approx(computed, abs=0.006)
