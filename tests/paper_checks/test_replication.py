"""Replication over independent root seeds (``--replicates``): streams, records, fragility,
resume after a kill, and the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paper_checks.claims import _REGISTRY, Claim, HistoryEntry, claim
from paper_checks.cli import main
from paper_checks.context import Context
from paper_checks.decision import Decision, Part, Rule
from paper_checks.paper_scale import Refused
from paper_checks.plotting import new_figure
from paper_checks.report import render_markdown
from paper_checks.results import CheckResult, UnitsResult, Verdict, load_results
from paper_checks.runner import excluded_statement, run_claim, run_claims
from sims._jsonio import read_json

THRESHOLD = 0.7


def _coin(ctx: Context) -> CheckResult:
    """PASS when one uniform draw of the claim's stream is below THRESHOLD."""
    u = float(ctx.rng("coin").random())
    return CheckResult(Verdict.of(u < THRESHOLD), f"u = {u:.3f}", {"u": u}, {}, "u < 0.7")


CALLS: list[int] = []


def _counted_task(params, rng):
    CALLS.append(params["i"])
    return {"value": float(rng.random())}


def _swept(ctx: Context) -> CheckResult:
    records = ctx.sweep(_counted_task, [{"i": i} for i in range(3)], name="grid")
    total = sum(r["result"]["value"] for r in records)
    return CheckResult(Verdict.of(total > 0), f"total {total:.3f}", {"total": total}, {}, "> 0")


def _make(fn, *, stochastic=True, statistic="u") -> Claim:
    """A coin claim; stochastic, it is an exact check over random instances (no decision)."""
    rule = "PASS when the draw is below 0.7; FAIL otherwise."
    return Claim(
        "rlvr.test_coin",
        "rlvr",
        "a coin",
        "tests",
        fn,
        rule,
        stochastic,
        statistic,
        exact_over_instances=stochastic,
    )


def test_replicate_streams_are_disjoint_from_the_primary_and_each_other():
    base = Context(seed=3, claim_id="rlvr.x")
    roots = [base.root_entropy()] + [
        Context(seed=3, claim_id="rlvr.x", replicate=r).root_entropy() for r in (1, 2)
    ]
    assert roots == [[3], [3, roots[1][1], 1], [3, roots[1][1], 2]]
    draws = [Context(seed=3, claim_id="rlvr.x", replicate=r).rng("s").random(4) for r in range(3)]
    assert not np.allclose(draws[0], draws[1])
    assert not np.allclose(draws[1], draws[2])
    # the primary stream is the pre-replication one: [seed, crc(claim), crc(name)]
    assert base.seed_entropy("s")[0] == 3
    assert len(base.seed_entropy("s")) == 3


def test_replication_record_matches_the_draws(tmp_path):
    ctx = Context(seed=0, out_dir=tmp_path)
    result = run_claim(_make(_coin), ctx, replicates=6)
    rep = result.replication
    draws = [
        float(Context(seed=0, claim_id="rlvr.test_coin", replicate=r).rng("coin").random())
        for r in range(6)
    ]
    assert [row["statistic"] for row in rep["replicates"]] == draws
    per_seed = [("PASS" if u < THRESHOLD else "FAIL") for u in draws]
    assert [row["verdict"] for row in rep["replicates"]] == per_seed
    # an exact claim (no decision): any root seed's FAIL is a counterexample
    assert result.verdict is Verdict.of("FAIL" not in per_seed)
    agree = sum(v == result.verdict.value for v in per_seed)
    assert (rep["agree"], rep["n"], rep["rate"]) == (agree, 6, agree / 6)
    assert rep["fragile"] is ({"PASS", "FAIL"} <= set(per_seed))
    assert rep["statistic_mean"] == pytest.approx(np.mean(draws))
    assert rep["statistic_sd"] == pytest.approx(np.std(draws, ddof=1))
    assert rep["counts"]["PASS"] + rep["counts"]["FAIL"] == 6
    # the measured numbers are the primary root seed's
    assert result.measured["u"] == draws[0]
    assert read_json(tmp_path / "rlvr.test_coin.json")["replication"] == json.loads(json.dumps(rep))


def test_an_exact_claim_passes_only_when_every_root_seed_passes(tmp_path):
    def always(ctx):
        return CheckResult(Verdict.PASS, "", {"u": float(ctx.rng("u").random())}, {}, "")

    def alternate(ctx):
        return CheckResult(Verdict.of(ctx.replicate % 2 == 0), "", {"u": 1.0}, {}, "")

    stable = run_claim(_make(always), Context(out_dir=tmp_path / "a"), replicates=5)
    flips = run_claim(_make(alternate), Context(out_dir=tmp_path / "b"), replicates=5)
    assert stable.verdict is Verdict.PASS
    assert not stable.replication["fragile"]
    assert stable.replication["rate"] == 1.0
    assert flips.verdict is Verdict.FAIL  # replicate 1 is a counterexample
    assert "replicate 1" in flips.summary
    assert flips.replication["agree"] == 2  # replicates 1 and 3 FAIL like the pooled verdict
    assert flips.replication["fragile"]
    assert flips.replication["statistic_sd"] == 0.0


#: A statistical claim: the mean of a unit value (normal, sd 1) is above 0; FAIL below −0.5.
GAIN_RULE = Rule("one draw", (Part("x", "a draw", "greater", 0.0, -0.5),))


def _gain(mean: float, units: int):
    def check(ctx: Context) -> CheckResult:
        x = mean + ctx.rng("x").normal(size=units)
        d = GAIN_RULE.decide({"x": x})
        return CheckResult(
            d.verdict, f"{units} draws", {"x_mean": float(x.mean())}, {}, "", decision=d.to_json()
        )

    return check


def _decided(fn, looks: dict[str, tuple[int, ...]] | None = None) -> Claim:
    return Claim(
        "rlvr.test_gain",
        "rlvr",
        "a gain",
        "tests",
        fn,
        GAIN_RULE.text(looks=looks),
        True,
        "x_mean",
        decision=GAIN_RULE,
        looks=looks or {},
    )


def test_the_headline_of_a_decided_claim_pools_the_units_of_every_root_seed(tmp_path):
    result = run_claim(_decided(_gain(0.8, 2)), Context(out_dir=tmp_path), replicates=4)
    per_seed = [row["verdict"] for row in result.replication["replicates"]]
    assert per_seed == ["INCONCLUSIVE"] * 4  # 2 units each: fewer than the rule's 3
    units = [
        Context(claim_id="rlvr.test_gain", replicate=r).rng("x").normal(size=2) + 0.8
        for r in range(4)
    ]
    pooled = GAIN_RULE.decide({"x": np.concatenate(units)})
    assert result.verdict is pooled.verdict
    assert result.decision["units"]["x"] == pytest.approx(np.concatenate(units).tolist())
    assert result.decision["parts"][0]["n"] == 8
    assert result.summary.startswith("4 root seeds pooled:")
    assert read_json(tmp_path / "rlvr.test_gain.json")["verdict"] == pooled.verdict.value


def test_each_root_seed_is_decided_by_the_same_rule_and_counts_its_units(tmp_path):
    result = run_claim(_decided(_gain(1.5, 4)), Context(out_dir=tmp_path), replicates=3)
    rows = result.replication["replicates"]
    for r, row in enumerate(rows):
        own = Context(claim_id="rlvr.test_gain", replicate=r).rng("x").normal(size=4) + 1.5
        assert row["n_units"] == 4
        assert row["verdict"] == GAIN_RULE.decide({"x": own}).verdict.value
        assert row["statistic"] == pytest.approx(own.mean())


#: rlvr.test_gain with two planned looks at quick, at 2 and 4 root seeds.
PLANNED = {"quick": (2, 4)}


def test_planned_looks_spend_alpha_over_the_looks(tmp_path):
    result = run_claim(_decided(_gain(1.0, 3), PLANNED), Context(out_dir=tmp_path), replicates=4)
    units = result.decision["units"]
    assert result.decision["parts"][0]["level"] == pytest.approx(0.025 / 2)
    assert result.verdict is GAIN_RULE.decide(units, looks=2).verdict
    assert "planned look 2 of 2 at quick" in result.summary
    assert all(row["n_units"] == 3 for row in result.replication["replicates"])


def _units_of(mean: float, units: int, root_seeds: int) -> np.ndarray:
    """The unit values :func:`_gain` draws under the first ``root_seeds`` root seeds."""
    return np.concatenate(
        [
            mean + Context(claim_id="rlvr.test_gain", replicate=r).rng("x").normal(size=units)
            for r in range(root_seeds)
        ]
    )


def _first_undecided_and_then_decided(units: int) -> float:
    """A mean at which :func:`_gain`'s units are INCONCLUSIVE over 2 root seeds and decided
    over 4 at level α/2 (searched on the seeded draws, so the test does not hang on luck)."""
    for mean in np.arange(0.05, 3.0, 0.05):
        two = GAIN_RULE.decide({"x": _units_of(mean, units, 2)}, looks=2).verdict
        four = GAIN_RULE.decide({"x": _units_of(mean, units, 4)}, looks=2).verdict
        if two is Verdict.INCONCLUSIVE and four is not Verdict.INCONCLUSIVE:
            return float(mean)
    raise AssertionError("no such mean")


@pytest.mark.parametrize("workers", [1, 2])
def test_an_undecided_claim_gets_the_root_seeds_of_its_next_look(tmp_path, workers):
    mean = _first_undecided_and_then_decided(2)
    claim = _decided(_gain(mean, 2), PLANNED)
    result = run_claim(claim, Context(out_dir=tmp_path), replicates=1)
    assert result.replication["n"] == 4  # raised to the first look (2), then the second (4)
    looks = result.replication["looks"]
    assert [(look["root_seeds"], look["n_units"]) for look in looks] == [(2, 4), (4, 8)]
    assert looks[0]["verdict"] == "INCONCLUSIVE"
    assert looks[1]["verdict"] == result.verdict.value != "INCONCLUSIVE"
    assert result.decision["units"]["x"] == pytest.approx(_units_of(mean, 2, 4).tolist())
    assert result.verdict is GAIN_RULE.decide({"x": _units_of(mean, 2, 4)}, looks=2).verdict
    assert "planned look 2 of 2 at quick" in result.summary
    assert (tmp_path / "replicates" / "r3").is_dir()
    again = run_claims([claim], Context(out_dir=tmp_path / "w"), 1, concurrency=workers)[0]
    assert again.decision == result.decision
    assert again.replication["looks"] == result.replication["looks"]


def test_one_planned_look_raises_a_run_to_its_root_seeds_and_spends_alpha_once(tmp_path):
    # one unit per root seed: one root seed alone cannot decide, the look at 3 can
    claim = _decided(_gain(8.0, 1), {"quick": (3,)})
    result = run_claim(claim, Context(out_dir=tmp_path), replicates=1)
    assert result.replication["n"] == 3
    assert "looks" not in result.replication  # one look: nothing to record between looks
    assert result.decision["parts"][0]["level"] == pytest.approx(0.025)
    assert result.verdict is GAIN_RULE.decide({"x": _units_of(8.0, 1, 3)}).verdict
    assert result.verdict is Verdict.PASS
    more = run_claim(claim, Context(out_dir=tmp_path / "r5"), replicates=5)
    assert more.replication["n"] == 5  # --replicates above the look: that many, one look
    assert more.decision["parts"][0]["level"] == pytest.approx(0.025)


def test_a_claim_decided_at_its_first_look_gets_no_more_root_seeds(tmp_path):
    result = run_claim(_decided(_gain(3.0, 4), PLANNED), Context(out_dir=tmp_path), replicates=1)
    assert result.verdict is Verdict.PASS
    assert result.replication["n"] == 2
    assert result.replication["looks"] == [{"root_seeds": 2, "n_units": 8, "verdict": "PASS"}]
    assert not (tmp_path / "replicates" / "r2").exists()


def test_a_look_between_planned_counts_takes_the_earlier_ones_place(tmp_path):
    # 3 root seeds stand in for the first look (2); an undecided claim then gets the second (4)
    result = run_claim(_decided(_gain(0.0, 3), PLANNED), Context(out_dir=tmp_path), replicates=3)
    assert [look["root_seeds"] for look in result.replication["looks"]] == [3, 4]
    assert result.decision["parts"][0]["level"] == pytest.approx(0.025 / 2)
    assert "planned look 2 of 2 at quick" in result.summary


def test_a_look_before_the_first_planned_one_is_flagged_when_merged(tmp_path):
    from paper_checks.runner import look_note

    note = look_note(_decided(_gain(1.0, 3), PLANNED), "quick", 1)
    assert note.startswith("UNPLANNED LOOK: 1 root seed(s)")


def test_one_root_seed_gets_its_headline_from_the_same_rule_application(tmp_path):
    # the check decides at α; with two looks planned at 1 and 4 root seeds the headline is
    # decided at α/2, from the same units, and its summary written from that decision after the
    # check's words (a clear gain: decided at the first look, so no root seed is added)
    check = _gain(2.0, 12)
    own = check(Context(claim_id="rlvr.test_gain"))
    claim = _decided(check, {"quick": (1, 4)})
    result = run_claim(claim, Context(out_dir=tmp_path), replicates=1)
    again = GAIN_RULE.decide(own.decision["units"], looks=2)
    assert again.verdict is Verdict.PASS
    assert result.decision == json.loads(json.dumps(again.to_json()))
    assert result.verdict is again.verdict
    assert result.summary.startswith(f"12 draws; {again.summary()}")
    assert "planned look 1 of 2 at quick" in result.summary
    assert read_json(tmp_path / "rlvr.test_gain.json")["decision"] == result.decision


def test_one_root_seed_records_the_rule_text_as_the_tolerance(tmp_path):
    # a decided claim's check writes no tolerance: with one root seed and nothing else moved by
    # the rule application, the record still gets the claim's rule text
    claim = _decided(_gain(5.0, 12))
    result = run_claim(claim, Context(out_dir=tmp_path), replicates=1)
    assert result.verdict is Verdict.PASS
    assert result.tolerance == claim.rule
    assert read_json(tmp_path / "rlvr.test_gain.json")["tolerance"] == claim.rule


def test_one_root_seed_without_planned_looks_keeps_the_checks_decision(tmp_path):
    check = _gain(1.0, 12)
    own = check(Context(claim_id="rlvr.test_gain"))
    result = run_claim(_decided(check), Context(out_dir=tmp_path), replicates=1)
    assert result.verdict is own.verdict
    # the check's words, its decision and (when INCONCLUSIVE) what the interval excludes
    decision = Decision.from_json(own.decision)
    statement = excluded_statement(decision)
    assert (own.verdict is Verdict.INCONCLUSIVE) == bool(statement)
    assert result.summary == f"{own.summary}; {decision.summary()}{statement}"
    assert result.detail == own.summary
    assert result.decision == own.decision


def _gain_units(mean: float, units: int, drawn: list | None = None):
    """The check of ``_gain`` in the shape of a claim decided over units: its units, never a
    verdict; the figure it draws records the decision it was given in ``drawn``."""

    def check(ctx: Context) -> UnitsResult:
        x = mean + ctx.rng("x").normal(size=units)

        def draw(decision):
            drawn.append(decision)
            fig, ax = new_figure()
            ax.axhline(decision.parts[0].lower)
            return fig

        return UnitsResult(
            units={"x": x, "unused": [1.0]},
            summary=f"{units} draws",
            measured={"x_mean": float(x.mean())},
            expected={},
            draw=None if drawn is None else draw,
        )

    return check


def test_a_check_that_returns_units_is_decided_once_by_the_runner(tmp_path):
    # the same draws as the check that decides itself: the same record, decided by the runner
    # at its planned looks (α/2), with the figure drawn from that decision
    drawn: list[Decision] = []
    looks = {"quick": (1, 4)}
    units = run_claim(
        _decided(_gain_units(2.0, 12, drawn), looks), Context(out_dir=tmp_path / "u"), 1
    )
    itself = run_claim(_decided(_gain(2.0, 12), looks), Context(out_dir=tmp_path / "d"), 1)
    assert units.verdict is itself.verdict is Verdict.PASS
    assert units.decision == itself.decision
    assert units.summary == itself.summary
    assert units.decision["parts"][0]["level"] == pytest.approx(0.025 / 2)
    assert [d.to_json() for d in drawn] == [Decision.from_json(units.decision).to_json()]
    assert units.figures
    assert (tmp_path / "u" / units.figures[0]).is_file()


def test_a_check_that_returns_units_for_a_claim_without_a_rule_is_an_error(tmp_path):
    result = run_claim(_make(_gain_units(1.0, 3)), Context(out_dir=tmp_path))
    assert result.verdict is Verdict.ERROR
    assert "registers no decision rule" in result.summary


def test_root_seeds_at_a_true_margin_rarely_contradict(tmp_path):
    """Two independent seed sets give PASS and FAIL with probability at most 2α: at a true mean
    between the margins, 40 five-seed pools decide PASS or FAIL rarely (≈ 2.5% each side)."""
    verdicts = [
        run_claim(_decided(_gain(-0.25, 3)), Context(seed=s, out_dir=tmp_path / str(s)), 5).verdict
        for s in range(40)
    ]
    assert verdicts.count(Verdict.PASS) + verdicts.count(Verdict.FAIL) <= 6


def test_a_crashed_root_seed_makes_the_headline_an_error(tmp_path):
    def crash_on_two(ctx):
        if ctx.replicate == 2:
            raise RuntimeError("boom")
        return _gain(1.0, 3)(ctx)

    result = run_claim(_decided(crash_on_two), Context(out_dir=tmp_path), replicates=3)
    assert result.verdict is Verdict.ERROR
    assert "[2]" in result.summary


def test_a_deterministic_claim_is_not_rerun(tmp_path):
    calls = []

    def exact(ctx):
        calls.append(ctx.replicate)
        return CheckResult(Verdict.PASS, "", {}, {}, "")

    result = run_claim(_make(exact, stochastic=False, statistic=None), Context(out_dir=tmp_path), 5)
    assert calls == [0]
    assert result.replication == {"deterministic": True}


def test_a_killed_replication_resumes_from_its_sweeps(tmp_path):
    ctx = Context(seed=1, out_dir=tmp_path)
    claim_ = _make(_swept, statistic="total")
    CALLS.clear()
    first = run_claim(claim_, ctx, replicates=3)
    assert len(CALLS) == 9  # 3 tasks under each of 3 root seeds
    # a kill after replicate 1: its cache survives, replicate 2's is lost
    for path in (tmp_path / "replicates" / "r2").rglob("task-*.json"):
        path.unlink()
    CALLS.clear()
    again = run_claim(claim_, ctx, replicates=3)
    assert CALLS == [0, 1, 2]  # only replicate 2 recomputed
    assert again.replication == first.replication


def test_registration_requires_a_rule_and_a_statistic_for_stochastic_claims():
    kwargs = {"paper": "rlvr", "statement": "s", "source": "t"}
    with pytest.raises(ValueError, match="PASSes and what FAILs"):
        claim("rlvr.test_norule", rule="close enough", stochastic=False, **kwargs)
    with pytest.raises(ValueError, match="deciding statistic"):
        claim("rlvr.test_nostat", rule="PASS if a; FAIL if b", stochastic=True, **kwargs)
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        HistoryEntry("1 Dec", "c", "r", "FAIL")
    with pytest.raises(ValueError, match="date order"):
        claim(
            "rlvr.test_order",
            rule="PASS if a; FAIL if b",
            stochastic=False,
            history=[
                HistoryEntry("2026-12-01", "c", "r", "b"),
                HistoryEntry("2026-11-01", "c", "r", "b"),
            ],
            **kwargs,
        )


@pytest.fixture
def coin_claim():
    history = [HistoryEntry("2026-11-30", "threshold 0.6 → 0.7", "a test", "FAIL (u = 0.65)")]
    claim(
        "rlvr.test_coin",
        paper="rlvr",
        statement="A coin <for tests>.",
        source="tests",
        rule="PASS when the draw is below 0.7; FAIL otherwise.",
        stochastic=True,
        statistic="u",
        history=history,
        exact_over_instances=True,
        paper_plan=Refused("a test claim has no paper sizes"),
    )(_coin)
    yield "rlvr.test_coin"
    _REGISTRY.pop("rlvr.test_coin", None)


def test_cli_replicates_writes_records_and_reports_them(coin_claim, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = main(["run", coin_claim, "--replicates", "4", "--out", "results/r"])
    out = capsys.readouterr().out
    run, (result,) = load_results(tmp_path / "results" / "r")
    assert run["replicates"] == 4
    rep = result.replication
    assert rep["n"] == 4
    assert "4 seeds (each: " in out
    assert code == (0 if result.verdict is Verdict.PASS else 1)
    md = (tmp_path / "results" / "r" / "report.md").read_text()
    assert "Replicated over 4 root seeds" in md
    assert "threshold 0.6 → 0.7" in md
    assert "PASS when the draw is below 0.7" in md
    html = (tmp_path / "results" / "r" / "report.html").read_text()
    assert "root entropy" in html
    assert result.history[0]["before"] == "FAIL (u = 0.65)"
    # the same seed gives the same replication record
    main(["run", coin_claim, "--replicates", "4", "--out", "results/s"])
    assert load_results(tmp_path / "results" / "s")[1][0].replication == rep


def test_cli_rejects_zero_replicates(coin_claim, capsys):
    assert main(["run", coin_claim, "--replicates", "0"]) == 2
    assert "--replicates" in capsys.readouterr().err


def test_markdown_shows_a_fragile_flag():
    result = CheckResult(Verdict.PASS, "s", {}, {}, "t", claim_id="rlvr.y", rule="PASS; FAIL")
    result.replication = {
        "deterministic": False,
        "statistic": "u",
        "replicates": [
            {"replicate": r, "root_entropy": [0], "verdict": v, "statistic": 0.5}
            for r, v in enumerate(["PASS", "FAIL", "FAIL"])
        ],
        "counts": {"PASS": 1, "FAIL": 2, "INCONCLUSIVE": 0, "ERROR": 0},
        "n": 3,
        "agree": 1,
        "rate": 1 / 3,
        "statistic_mean": 0.5,
        "statistic_sd": 0.0,
        "fragile": True,
    }
    run = {"run_id": "r", "scale": "quick", "seed": 0, "backend": "numpy", "workers": 1}
    md = render_markdown(run | {"scheduler": "processes", "wall_time_s": 1.0}, [result])
    assert "CONTRADICTING: 3 seeds (each: FAIL 2, PASS 1)" in md
    assert "each root seed alone: PASS in 1 of 3, FAIL in 2 of 3" in md


def test_a_claim_that_does_not_run_at_a_scale_is_recorded_apart(tmp_path):
    from dataclasses import replace

    calls = []

    def check(ctx):
        calls.append((ctx.scale, ctx.replicate))
        return CheckResult(Verdict.PASS, "ran", {"u": 0.1}, {}, "")

    claim = replace(_make(check), not_run_at={"quick": "too small at quick"})
    result = run_claim(claim, Context(out_dir=tmp_path / "q"), replicates=3)
    assert calls == []  # the check is never called, and no root seed is added
    assert result.verdict is Verdict.NOT_RUN
    assert result.summary == "not run at quick scale: too small at quick"
    assert result.replication is None
    assert read_json(tmp_path / "q" / "rlvr.test_coin.json")["verdict"] == "NOT_RUN"
    full = run_claim(claim, Context(scale="full", out_dir=tmp_path / "f"), replicates=1)
    assert (full.verdict, calls) == (Verdict.PASS, [("full", 0)])


def test_not_run_is_shown_apart_from_the_verdicts_and_fails_nothing(tmp_path, capsys):
    claim(
        "rlvr.test_not_run",
        paper="rlvr",
        statement="A sweep too large for quick <for tests>.",
        source="tests",
        rule="PASS when it runs; FAIL never.",
        stochastic=False,
        not_run_at={"quick": "the sweep is full scale only"},
        paper_plan=Refused("a test claim has no paper sizes"),
    )(lambda ctx: CheckResult(Verdict.PASS, "ran", {}, {}, ""))
    try:
        code = main(["run", "rlvr.test_not_run", "--out", str(tmp_path), "--fail-on", "fail"])
    finally:
        _REGISTRY.pop("rlvr.test_not_run", None)
    out = capsys.readouterr().out
    assert code == 0
    assert "1 claim: 1 not run at this scale" in out
    assert "INCONCLUSIVE" not in out
    _, results = load_results(tmp_path)
    assert results[0].verdict is Verdict.NOT_RUN


@pytest.mark.parametrize(
    ("not_run_at", "match"), [({"tiny": "why"}, "not_run_at"), ({"quick": " "}, "not_run_at")]
)
def test_not_run_at_needs_a_known_scale_and_a_reason(not_run_at, match):
    with pytest.raises(ValueError, match=match):
        claim(
            "rlvr.test_bad_not_run",
            paper="rlvr",
            statement="s",
            source="tests",
            rule="PASS; FAIL",
            stochastic=False,
            not_run_at=not_run_at,
        )


def test_a_record_names_the_backend_that_computed_it(tmp_path):
    # asked for cupy (a stand-in Backend: no GPU here), a claim without a cupy path computes on
    # numpy and its record says so; a claim that declares one gets the asked backend
    from dataclasses import replace

    from sims._backend import Backend

    seen = []

    def check(ctx):
        seen.append(ctx.backend.name)
        return CheckResult(Verdict.PASS, "ran", {"u": 0.1}, {}, "")

    gpu = Backend("cupy", np, "cuda:0")
    numpy_only = run_claim(_make(check), Context(out_dir=tmp_path / "a", backend=gpu))
    assert seen == ["numpy"]
    assert (numpy_only.provenance["backend"], numpy_only.provenance["device"]) == ("numpy", "cpu")
    assert numpy_only.provenance["backend_asked"] == "cupy"
    both = replace(_make(check), backends=("numpy", "cupy"))
    on_gpu = run_claim(both, Context(out_dir=tmp_path / "b", backend=gpu))
    assert seen == ["numpy", "cupy"]
    assert (on_gpu.provenance["backend"], on_gpu.provenance["device"]) == ("cupy", "cuda:0")
    assert "backend_asked" not in on_gpu.provenance


def test_a_record_names_the_torch_device_that_trained_it(tmp_path):
    # asked for cuda (no GPU here: the Context is made directly, past the CLI's check), a claim
    # without a cuda path trains on the CPU and its record says so; a claim that declares one
    # gets the asked device and its record names it
    from dataclasses import replace

    seen = []

    def check(ctx):
        seen.append(ctx.device)
        return CheckResult(Verdict.PASS, "ran", {"u": 0.1}, {}, "")

    cpu_only = run_claim(_make(check), Context(out_dir=tmp_path / "a", device="cuda"))
    assert seen == ["cpu"]
    assert cpu_only.provenance["device"] == "cpu"
    assert cpu_only.provenance["device_asked"] == "cuda"
    both = replace(_make(check), devices=("cpu", "cuda"))
    on_gpu = run_claim(both, Context(out_dir=tmp_path / "b", device="cuda"))
    assert seen == ["cpu", "cuda"]
    assert on_gpu.provenance["device"] == "cuda"
    assert "device_asked" not in on_gpu.provenance
    asked_cpu = run_claim(both, Context(out_dir=tmp_path / "c"))
    assert (asked_cpu.provenance["device"], "device_asked" in asked_cpu.provenance) == (
        "cpu",
        False,
    )


def _placement_task(params, rng):
    """A sweep task that says what placement its point carried."""
    return {"device": params.pop("device", "cpu"), "backend": params.pop("backend", "numpy")}


def test_a_gpu_run_gives_every_task_its_placement_and_keys_the_record_by_it(tmp_path):
    # the tasks of a claim with a GPU path get the run's device and backend in their points
    # (the sweep records and cache keys keep them); on the CPU the points are as given; the
    # record's code is the claim's fingerprint read on the placement that computed it
    from dataclasses import replace

    from paper_checks.reproduce import NOT_COMPARED, compare
    from paper_checks.runner import claim_fingerprint, made_by_todays_code
    from sims._backend import Backend

    def check(ctx):
        records = ctx.sweep(_placement_task, [{"x": 1}], name="placed")
        (record,) = records
        return CheckResult(Verdict.PASS, "ran", {"seen": record["result"]}, {}, "")

    both = replace(_make(check), devices=("cpu", "cuda"), backends=("numpy", "cupy"))
    gpu = Backend("cupy", np, "cuda:0")
    on_gpu = run_claim(both, Context(out_dir=tmp_path / "gpu", device="cuda", backend=gpu))
    assert on_gpu.measured["seen"] == {"device": "cuda", "backend": "cupy"}
    assert on_gpu.provenance["code"] == claim_fingerprint(both, "quick", "cuda", "cupy")
    on_cpu = run_claim(both, Context(out_dir=tmp_path / "cpu"))
    assert on_cpu.measured["seen"] == {"device": "cpu", "backend": "numpy"}
    assert on_cpu.provenance["code"] == claim_fingerprint(both, "quick")
    # the GPU record keeps its code read on the CPU: it compares with a CPU reference record
    assert on_gpu.provenance["code_on_cpu"] == on_cpu.provenance["code"]
    assert "code_on_cpu" not in on_cpu.provenance
    verdict = compare(on_gpu, on_cpu, {"seed": 0}, 1)
    assert verdict["status"] != NOT_COMPARED, verdict
    for record in (on_gpu, on_cpu):
        assert made_by_todays_code(both, record.provenance)
    cupy_on_cpu = run_claim(both, Context(out_dir=tmp_path / "mixed", backend=gpu))
    assert cupy_on_cpu.provenance["torch_device"] == "cpu"  # "device" names cupy's
    assert made_by_todays_code(both, cupy_on_cpu.provenance)


@pytest.mark.parametrize("devices", [("cuda",), ("cpu", "tpu")])
def test_devices_must_include_the_cpu_and_name_known_devices(devices):
    with pytest.raises(ValueError, match="devices must include 'cpu'"):
        claim(
            "rlvr.test_bad_devices",
            paper="rlvr",
            statement="s",
            source="tests",
            rule="PASS; FAIL",
            stochastic=False,
            devices=devices,
        )


def test_a_context_refuses_an_unknown_device():
    with pytest.raises(ValueError, match="device must be one of cpu, cuda"):
        Context(device="gpu")


# ------------------------------------------------------------------------ confirmatory studies
def _study(looks: dict[str, tuple[int, ...]], studies: dict[str, int]) -> Claim:
    from dataclasses import replace

    return replace(_decided(_gain(3.0, 4), looks), studies=studies)


def test_a_confirmatory_study_draws_from_root_seeds_no_earlier_study_drew_from(tmp_path):
    from paper_checks.claims import STUDY_SEED_STRIDE

    # a clear gain, decided at the first look (2 root seeds of 4 units)
    first = run_claim(_decided(_gain(3.0, 4), PLANNED), Context(out_dir=tmp_path / "1"), 2)
    second = run_claim(_study(PLANNED, {"quick": 2}), Context(out_dir=tmp_path / "2"), 2)
    assert first.provenance["seed"] == 0
    assert second.provenance["seed"] == STUDY_SEED_STRIDE
    drawn = [
        3.0
        + Context(seed=STUDY_SEED_STRIDE, claim_id="rlvr.test_gain", replicate=r)
        .rng("x")
        .normal(size=4)
        for r in range(2)
    ]
    assert second.decision["units"]["x"] == pytest.approx(np.concatenate(drawn).tolist())
    assert not set(second.decision["units"]["x"]) & set(first.decision["units"]["x"])
    roots = [row["root_entropy"] for row in second.replication["replicates"]]
    assert roots[0] == [STUDY_SEED_STRIDE]
    assert roots[1][0] == STUDY_SEED_STRIDE
    # study 3 draws from yet other seeds; a study declared at another scale changes nothing here
    third = run_claim(_study(PLANNED, {"quick": 3}), Context(out_dir=tmp_path / "3"), 2)
    assert third.provenance["seed"] == 2 * STUDY_SEED_STRIDE
    elsewhere = _study({**PLANNED, "full": (1, 2)}, {"full": 2})
    assert run_claim(elsewhere, Context(out_dir=tmp_path / "4"), 2).decision == first.decision


def test_a_run_at_another_seed_moves_the_study_with_it():
    from paper_checks.claims import STUDY_SEED_STRIDE

    claim = _study(PLANNED, {"quick": 2})
    assert claim.root_seed(7, "quick") == 7 + STUDY_SEED_STRIDE
    assert claim.root_seed(7, "full") == 7


@pytest.mark.parametrize(
    ("studies", "looks", "history", "message"),
    [
        ({"full": 1}, {"full": (1, 2)}, True, "study number ≥ 2"),
        ({"full": True}, {"full": (1, 2)}, True, "study number ≥ 2"),
        ({"full": 2}, {"quick": (1, 2)}, True, "needs its planned looks there"),
        ({"full": 2}, {"full": (1, 2)}, False, "history entry"),
    ],
)
def test_a_confirmatory_study_is_declared_with_its_looks_and_a_history_entry(
    studies, looks, history, message
):
    from paper_checks.claims import study_entry

    entries = [
        study_entry("2026-12-04", "full", 2, (1, 2), power=(0.5, 0.9, 0.0), reason="r", before="b")
    ]
    with pytest.raises(ValueError, match=message):
        claim(
            "rlvr.test_declared_study",
            paper="rlvr",
            statement="s",
            source="tests",
            stochastic=True,
            decision=GAIN_RULE,
            looks=looks,
            studies=studies,
            history=entries if history else (),
        )
    assert "rlvr.test_declared_study" not in _REGISTRY


def test_the_commit_is_taken_when_the_run_starts(tmp_path, monkeypatch):
    # provenance names the commit of the code that runs, not one made while the run lasts
    import paper_checks.runner as runner

    calls: list[str] = []

    def check(ctx: Context) -> CheckResult:
        calls.append("check")
        return CheckResult(Verdict.PASS, "ok", {"u": 0.0}, {}, "u ≥ 0")

    monkeypatch.setattr(runner, "git_sha", lambda: calls.append("git_sha") or "abc")
    run_claim(_make(check, stochastic=False), Context(out_dir=tmp_path))
    assert calls[0] == "git_sha"
    assert "check" in calls


# ------------------------------------------------------------- a record extended, not rerun
RAN: list[int] = []


def _gain_ran(mean: float, units: int):
    """``_gain_units`` that appends the replicate it runs under to RAN."""
    check = _gain_units(mean, units)

    def counted(ctx: Context) -> UnitsResult:
        RAN.append(ctx.replicate)
        return check(ctx)

    return counted


def _comparable(result: CheckResult) -> dict:
    from paper_checks.results import comparable

    return comparable(result.to_json())


@pytest.mark.parametrize("looks", [None, PLANNED])
def test_a_record_is_extended_by_the_root_seeds_it_lacks(tmp_path, looks):
    from paper_checks.runner import stored_root_seeds

    mean = _first_undecided_and_then_decided(2)
    claim = _decided(_gain_ran(mean, 2), looks)
    record = run_claim(claim, Context(out_dir=tmp_path / "a"), replicates=2)
    ctx = Context(out_dir=tmp_path / "b")
    kept = stored_root_seeds(claim, record, ctx)
    n = record.replication["n"]  # 2, or 4 where the planned looks went on to 4
    assert sorted(kept) == list(range(1, n))  # root seed 0 is made again: figures, arrays
    RAN.clear()
    extended = run_claims([claim], ctx, 5, stored={claim.id: kept})[0]
    assert sorted(RAN) == [0, *range(n, 5)]
    RAN.clear()
    fresh = run_claim(claim, Context(out_dir=tmp_path / "c"), replicates=5)
    assert sorted(RAN) == [0, 1, 2, 3, 4]
    assert _comparable(extended) == _comparable(fresh)


def _some_without_units(ctx: Context) -> UnitsResult:
    """``_gain_ran(1.0, 2)`` under even root seeds; no unit at all under odd ones (as a sink
    claim's root seed where no sink formed)."""
    RAN.append(ctx.replicate)
    x = [] if ctx.replicate % 2 else list(1.0 + ctx.rng("x").normal(size=2))
    measured = {"x_mean": float(np.mean(x))} if x else {}
    return UnitsResult(units={"x": x}, summary=f"{len(x)} draws", measured=measured, expected={})


def test_root_seeds_without_units_are_taken_from_the_record_too(tmp_path):
    from paper_checks.runner import stored_root_seeds

    claim = _decided(_some_without_units)
    record = run_claim(claim, Context(out_dir=tmp_path / "a"), replicates=4)
    assert [row["statistic"] is None for row in record.replication["replicates"]] == [
        False,
        True,
        False,
        True,
    ]
    ctx = Context(out_dir=tmp_path / "b")
    kept = {claim.id: stored_root_seeds(claim, record, ctx)}
    assert sorted(kept[claim.id]) == [1, 2, 3]
    RAN.clear()
    extended = run_claims([claim], ctx, 6, stored=kept)[0]
    assert sorted(RAN) == [0, 4, 5]
    fresh = run_claim(claim, Context(out_dir=tmp_path / "c"), replicates=6)
    assert _comparable(extended) == _comparable(fresh)


def test_a_look_answered_by_stored_root_seeds_alone_computes_none_of_them(tmp_path):
    from paper_checks.runner import stored_root_seeds

    mean = _first_undecided_and_then_decided(2)  # undecided at 2 root seeds, decided at 4
    claim = _decided(_gain_ran(mean, 2), PLANNED)
    record = run_claim(claim, Context(out_dir=tmp_path / "a"), replicates=1)
    assert [look["root_seeds"] for look in record.replication["looks"]] == [2, 4]
    RAN.clear()
    ctx = Context(out_dir=tmp_path / "b")
    kept = {claim.id: stored_root_seeds(claim, record, ctx)}
    again = run_claims([claim], ctx, 1, stored=kept)[0]
    assert RAN == [0]  # the second look's root seeds 2 and 3 come from the record
    assert _comparable(again) == _comparable(record)


def test_no_root_seed_is_taken_from_a_record_of_other_code_or_other_seeds(tmp_path):
    from dataclasses import replace

    from paper_checks.runner import stored_root_seeds

    claim = _decided(_gain_ran(1.0, 2))
    record = run_claim(claim, Context(out_dir=tmp_path / "a"), replicates=3)
    ctx = Context(out_dir=tmp_path / "b")
    assert sorted(stored_root_seeds(claim, record, ctx)) == [1, 2]
    other_code = replace(record, provenance={**record.provenance, "code": "0" * 64})
    assert stored_root_seeds(claim, other_code, ctx) == {}
    assert stored_root_seeds(claim, record, Context(seed=1, out_dir=tmp_path / "c")) == {}
    assert stored_root_seeds(claim, record, Context(scale="full", out_dir=tmp_path / "d")) == {}
    lost = replace(record, decision={**record.decision, "units": {"x": [1.0]}})
    assert stored_root_seeds(claim, lost, ctx) == {}  # the rows' n_units do not add up
    assert stored_root_seeds(_decided(_gain_ran(1.0, 2)), record, ctx)  # same code: taken


@pytest.fixture
def gain_claim():
    claim(
        "rlvr.test_gain",
        paper="rlvr",
        statement="A gain <for tests>.",
        source="tests",
        rule=GAIN_RULE.text(),
        stochastic=True,
        statistic="x_mean",
        decision=GAIN_RULE,
        paper_plan=Refused("a test claim has no paper sizes"),
    )(_gain_ran(0.3, 2))
    yield "rlvr.test_gain"
    _REGISTRY.pop("rlvr.test_gain", None)


def test_run_update_extends_a_record_from_its_stored_root_seeds(gain_claim, tmp_path, capsys):
    ref = tmp_path / "ref"
    assert (
        main(["run", gain_claim, "--replicates", "3", "--out", str(ref), "--fail-on", "never"]) == 0
    )
    RAN.clear()
    argv = ["run", gain_claim, "--replicates", "5", "--fail-on", "never"]
    assert main([*argv, "--out", str(ref), "--update"]) == 0
    assert sorted(RAN) == [0, 3, 4]
    assert f"{gain_claim}: root seeds 1-2 taken from its record" in capsys.readouterr().err
    assert main([*argv, "--out", str(tmp_path / "fresh")]) == 0
    (extended,), (fresh,) = (load_results(d)[1] for d in (ref, tmp_path / "fresh"))
    assert extended.replication["n"] == 5
    assert _comparable(extended) == _comparable(fresh)


ROW_EDITS = {
    "no rows": lambda rep: rep.update(replicates=[]),
    "a row not an object": lambda rep: rep["replicates"].__setitem__(1, 7),
    "n_units a string": lambda rep: rep["replicates"][1].update(n_units="2"),
    "n_units negative": lambda rep: rep["replicates"][1].update(n_units=-2),
    "an unknown verdict": lambda rep: rep["replicates"][1].update(verdict="MAYBE"),
    "a crashed root seed": lambda rep: rep["replicates"][1].update(verdict="ERROR"),
    "rows out of order": lambda rep: rep["replicates"].reverse(),
}


@pytest.mark.parametrize("edit", ROW_EDITS)
def test_a_record_whose_rows_cannot_be_read_gives_no_root_seed(tmp_path, edit):
    import copy
    from dataclasses import replace

    from paper_checks.runner import stored_root_seeds

    claim = _decided(_gain_ran(1.0, 2))
    record = run_claim(claim, Context(out_dir=tmp_path / "a"), replicates=3)
    rep = copy.deepcopy(record.replication)
    ROW_EDITS[edit](rep)
    edited = replace(record, replication=rep)
    assert stored_root_seeds(claim, edited, Context(out_dir=tmp_path / "b")) == {}


def _exact_ran(fail_at: int | None = None):
    """An exact check over random instances: PASS under every root seed but ``fail_at``; appends
    the replicate it runs under to RAN."""

    def check(ctx: Context) -> CheckResult:
        RAN.append(ctx.replicate)
        u = float(ctx.rng("coin").random())
        verdict = Verdict.FAIL if ctx.replicate == fail_at else Verdict.PASS
        return CheckResult(verdict, f"u = {u:.3f}", {"u": u}, {}, "u < 1")

    return check


def test_an_exact_claims_record_is_extended_unless_a_root_seed_failed(tmp_path):
    from paper_checks.runner import stored_root_seeds

    claim = _make(_exact_ran())
    record = run_claim(claim, Context(out_dir=tmp_path / "a"), replicates=3)
    ctx = Context(out_dir=tmp_path / "b")
    kept = {claim.id: stored_root_seeds(claim, record, ctx)}
    assert sorted(kept[claim.id]) == [1, 2]
    RAN.clear()
    extended = run_claims([claim], ctx, 5, stored=kept)[0]
    assert sorted(RAN) == [0, 3, 4]
    fresh = run_claim(claim, Context(out_dir=tmp_path / "c"), replicates=5)
    assert _comparable(extended) == _comparable(fresh)
    failed = _make(_exact_ran(fail_at=2))
    record = run_claim(failed, Context(out_dir=tmp_path / "d"), replicates=3)
    assert record.verdict is Verdict.FAIL
    assert stored_root_seeds(failed, record, Context(out_dir=tmp_path / "e")) == {}
