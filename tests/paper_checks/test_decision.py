"""The three-way decision over units (paper_checks.decision): its error rates, measured over
synthetic unit sets of the declared class and outside it, its units-needed search, its rule text
and its refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from paper_checks.calibration import FAMILIES, error_rates, sequential_error_rates, study_power
from paper_checks.decision import (
    SKEW_BOUND,
    Part,
    Rule,
    critical_value,
    pool_units,
    units_needed,
    within,
)
from paper_checks.results import Verdict

ALPHA = 0.025
#: Unit sets per case: every set is decided at once through Rule.verdicts, the code of decide.
SETS = 20_000


def slack(level: float, sets: int) -> float:
    """Monte Carlo allowance on a rate ≤ ``level`` measured over ``sets`` sets: 3 binomial
    standard errors at the level (a correct rule exceeds it by chance with probability
    about 0.001 per case)."""
    return 3 * math.sqrt(level * (1 - level) / sets)


IN_CLASS = [f for f in FAMILIES if f.in_class]
OUTSIDE = [f for f in FAMILIES if not f.in_class]


def test_the_families_lie_in_the_declared_class_or_outside_it_as_marked():
    # the class: |skewness| ≤ 1 and tails at least as heavy as a gamma's of that skewness
    for family in FAMILIES:
        inside = (
            abs(family.skewness) <= SKEW_BOUND + 1e-9
            and family.excess_kurtosis >= 1.5 * family.skewness**2 - 1e-9
        )
        assert inside is family.in_class, family.name
    rng = np.random.default_rng(0)
    for family in FAMILIES:  # each sampler draws what its moments say
        x = family.draw(rng, (400_000,))
        assert abs(x.mean()) < 0.01, family.name
        assert abs(x.std() - 1) < 0.01, family.name
        assert stats.skew(x) == pytest.approx(family.skewness, abs=0.05), family.name
    assert {f.skewness > 0 for f in IN_CLASS if f.skewness} == {True, False}  # both ways


@pytest.mark.parametrize("direction", ["greater", "less"])
@pytest.mark.parametrize("n", [3, 5, 10, 30])
@pytest.mark.parametrize("family", IN_CLASS, ids=lambda f: f.name)
def test_error_rates_at_both_margins_stay_within_alpha_in_the_declared_class(family, n, direction):
    # the true mean on the pass margin: P(PASS) ≤ α; on the fail margin: P(FAIL) ≤ α
    seed = 1000 * n + FAMILIES.index(family) + (500 if direction == "less" else 0)
    rates = error_rates(family, n, sets=SETS, seed=seed, direction=direction)
    assert rates["pass_at_pass_margin"] <= ALPHA + slack(ALPHA, SETS), rates
    assert rates["fail_at_fail_margin"] <= ALPHA + slack(ALPHA, SETS), rates


@pytest.mark.parametrize("n", [3, 10, 30])
@pytest.mark.parametrize(
    "family",
    [f for f in IN_CLASS if abs(f.skewness) == 1],
    ids=lambda f: f.name,
)
def test_error_rates_stay_within_a_bonferroni_level(family, n):
    # the level of a 3-part rule over 2 planned looks: α/6
    level, sets = ALPHA / 6, 100_000
    rates = error_rates(family, n, sets=sets, seed=7 * n, level=level)
    assert rates["pass_at_pass_margin"] <= level + slack(level, sets), rates
    assert rates["fail_at_fail_margin"] <= level + slack(level, sets), rates


@pytest.mark.parametrize("n", [3, 5, 10, 30])
def test_students_t_alone_fails_falsely_too_often_on_skewed_units(n):
    # what the widened bound is for: plain t on gamma units of skewness 1 (right-skewed) lets
    # a "greater" part FAIL falsely at about twice the level (Hall 1992, §2.6)
    gamma = next(f for f in FAMILIES if f.name == "gamma, skewness 1")
    rates = error_rates(gamma, n, sets=SETS, seed=3 * n, skew=0.0)
    assert rates["fail_at_fail_margin"] > ALPHA + slack(ALPHA, SETS), rates
    assert rates["pass_at_pass_margin"] < ALPHA, rates


def test_outside_the_class_the_rates_are_not_guaranteed():
    # the declared class is needed: lighter-tailed skewed units (a bounded beta, a near
    # two-point mixture) exceed the level at few units, as Bahadur and Savage say some must
    sets = 200_000
    for family in OUTSIDE:
        rates = error_rates(family, 5, sets=sets, seed=17)
        assert rates["fail_at_fail_margin"] > ALPHA + slack(ALPHA, sets), (family.name, rates)


def test_normal_units_keep_the_exact_noncentral_t_rates():
    # for normal units the rates are those of noncentral t at the widened critical value: below
    # the level, and the same number the calibration module reports
    from paper_checks.calibration import operating_characteristics

    normal = FAMILIES[0]
    for n in (3, 10):
        rates = error_rates(normal, n, sets=SETS, seed=n)
        oc = operating_characteristics("greater", 0.0, 0.0, 1.0, n, ALPHA, mean=0.0)
        exact = stats.t.cdf(-critical_value(n, ALPHA), n - 1)
        assert oc["false_fail"] == pytest.approx(exact)
        assert oc["false_pass"] == pytest.approx(exact)
        assert exact < ALPHA
        se = math.sqrt(exact * (1 - exact) / SETS)
        for key in ("pass_at_pass_margin", "fail_at_fail_margin"):
            assert abs(rates[key] - exact) < 4 * se, (n, rates, exact)


def test_the_critical_value_is_t_widened_for_skewness():
    for n in (2, 3, 5, 10, 30, 1000):
        for level in (0.025, 0.025 / 6, 1e-4):
            t = stats.t.ppf(1 - level, n - 1)
            assert critical_value(n, level, skew=0.0) == pytest.approx(t)
            assert critical_value(n, level) > t
    # the half-width c(n)/√n falls with n, so that units_needed may bisect on it
    ns = np.arange(2, 5000)
    for level in (0.025, 1e-4):
        width = critical_value(ns, level) / np.sqrt(ns)
        assert np.all(np.diff(width) < 0)
    # and the widening fades as n grows: the Cornish–Fisher term shrinks as 1/√n
    assert critical_value(10**6, ALPHA) == pytest.approx(stats.norm.ppf(1 - ALPHA), rel=2e-3)


def test_many_sets_are_decided_as_decide_decides_each():
    rule = Rule(
        "u",
        (Part("a", "a", "greater", 0.2, -0.1), Part("b", "b", "less", 1.0, 1.3)),
        min_units=3,
    )
    rng = np.random.default_rng(4)
    for n in (2, 3, 6):
        a = rng.uniform(-1.0, 1.5, (120, 1)) + 0.3 * rng.standard_normal((120, n))
        b = rng.uniform(0.0, 2.5, (120, 1)) + 0.3 * rng.standard_normal((120, n))
        many = rule.verdicts({"a": a, "b": b}, looks=2)
        each = [rule.decide({"a": x, "b": y}, looks=2).verdict for x, y in zip(a, b, strict=True)]
        assert list(many) == each
        if n == 6:
            assert len(set(each)) == 3  # every verdict occurs: the comparison is not vacuous


def test_power_grows_with_units():
    # a true mean 3 sd above the pass margin: PASS almost surely with 10 units, rarely with 3
    normal = FAMILIES[0]
    rates = {}
    for n in (3, 10):
        rule = Rule("u", (Part("x", "x", "greater", 0.0, -1.0),))
        x = 3.0 + normal.draw(np.random.default_rng(n), (SETS, n))
        rates[n] = np.mean(rule.verdicts({"x": x}) == Verdict.PASS)
    assert rates[10] > 0.95
    assert rates[3] < rates[10]


def test_planned_looks_split_the_level():
    rule = Rule("u", (Part("a", "a", "greater", 0.0, 0.0), Part("b", "b", "greater", 0.0, 0.0)))
    assert rule.level_at(2) == pytest.approx(ALPHA / 4)
    x = [0.1, 0.2, 0.15, 0.12]
    once, twice = rule.decide({"a": x, "b": x}), rule.decide({"a": x, "b": x}, looks=2)
    assert twice.parts[0].level == pytest.approx(ALPHA / 4)
    assert twice.parts[0].lower < once.parts[0].lower  # a smaller level widens the bounds
    text = rule.text(looks={"full": (1, 25), "quick": (5,)})
    assert "at full α is spent over 2 planned looks, at 1 and 25 root seeds" in text
    assert "quick α" not in text  # one look is no split: its root seeds are said
    assert "at quick one look, at 5 root seeds or as many as --replicates asks" in text
    with pytest.raises(ValueError, match="looks"):
        rule.level_at(0)


def test_parts_share_alpha_by_bonferroni():
    part = Part("a", "a", "greater", 0.0, 0.0)
    rule = Rule("u", (part, Part("b", "b", "greater", 0.0, 0.0)))
    assert rule.level == pytest.approx(0.0125)
    x = [0.5, 0.6, 0.55, 0.52]
    d = rule.decide({"a": x, "b": x})
    half = critical_value(4, 0.0125) * np.std(x, ddof=1) / 2
    assert d.parts[0].lower == pytest.approx(np.mean(x) - half)
    assert d.parts[0].critical == pytest.approx(critical_value(4, 0.0125))
    assert d.verdict is Verdict.PASS


def test_any_failing_part_fails_the_claim_and_undecided_parts_leave_it_open():
    rule = Rule("u", (Part("a", "a", "greater", 0.0, 0.0), Part("b", "b", "less", 1.0, 1.0)))
    good, bad = [0.5, 0.6, 0.55], [2.0, 2.1, 2.05]
    assert rule.decide({"a": good, "b": good}).verdict is Verdict.PASS
    assert rule.decide({"a": good, "b": bad}).verdict is Verdict.FAIL
    open_ = rule.decide({"a": good, "b": [0.5, 1.5, 1.0]})
    assert open_.verdict is Verdict.INCONCLUSIVE


def test_fewer_units_than_declared_are_inconclusive_with_the_count_that_would_decide():
    rule = Rule("u", (Part("a", "a", "greater", 0.0, 0.0),), min_units=3)
    d = rule.decide({"a": [1.0, 1.1]})
    assert d.verdict is Verdict.INCONCLUSIVE
    assert d.units_needed >= 3
    assert "fewer than the 3" in d.reason


@given(
    mean=st.floats(-1, 1),
    sd=st.floats(1e-3, 1),
    margin=st.floats(-0.5, 0.5),
)
def test_units_needed_is_the_first_count_that_decides(mean, sd, margin):
    part = Part("a", "a", "greater", margin, margin)
    n = units_needed(part, mean, sd, ALPHA, 3)
    gap = abs(mean - margin)

    def decides(k):
        return critical_value(k, ALPHA) * sd / math.sqrt(k) < gap

    if n is None:
        assert gap == 0 or not decides(100_000)
    else:
        assert decides(n)
        assert n == 3 or not decides(n - 1)


def test_units_needed_is_none_in_the_indifference_zone():
    part = Part("a", "a", "greater", 0.04, 0.0)
    assert units_needed(part, 0.02, 0.01, ALPHA, 3) is None


def test_within_is_a_two_one_sided_test():
    rule = Rule("u", within("s", "slope", 1.0, 0.2))
    assert rule.decide({"s": [0.95, 1.05, 1.0, 0.98]}).verdict is Verdict.PASS
    assert rule.decide({"s": [1.5, 1.6, 1.55]}).verdict is Verdict.FAIL
    assert rule.decide({"s": [0.5, 1.5, 1.0]}).verdict is Verdict.INCONCLUSIVE


def test_pooling_joins_units_in_order():
    assert pool_units([{"a": [1, 2]}, {"a": [3], "b": [4]}]) == {"a": [1.0, 2.0, 3.0], "b": [4.0]}


def test_the_rule_text_names_every_part_and_margin():
    rule = Rule("one trained model", (Part("gain", "pass@1 gain", "greater", 0.04, 0.01),))
    text = rule.text()
    for word in ("one trained model", "gain", "0.04", "0.01", "PASS", "FAIL", "INCONCLUSIVE"):
        assert word in text


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"direction": "up"}, "direction"),
        ({"pass_margin": 0.0, "fail_margin": 0.1}, "fail margin"),
        ({"pass_margin": math.nan}, "finite"),
    ],
)
def test_bad_parts_are_refused(kwargs, match):
    args = {"statistic": "a", "text": "a", "direction": "greater", "pass_margin": 0.1}
    args["fail_margin"] = 0.0
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        Part(**args)


def test_bad_units_are_refused():
    rule = Rule("u", (Part("a", "a", "greater", 0.0, 0.0),))
    with pytest.raises(ValueError, match="statistic 'a'"):
        rule.decide({"b": [1.0]})
    with pytest.raises(ValueError, match="finite"):
        rule.decide({"a": [1.0, math.nan, 2.0]})


def test_operating_characteristics_match_simulated_rates():
    from paper_checks.calibration import operating_characteristics

    n, sd = 5, 0.02
    oc = operating_characteristics("greater", 0.04, 0.0, sd, n, ALPHA, mean=0.07)
    rule = Rule("u", (Part("x", "x", "greater", 0.04, 0.0),))
    x = 0.07 + sd * FAMILIES[0].draw(np.random.default_rng(11), (SETS, n))
    verdicts = rule.verdicts({"x": x})
    for key, verdict in (("p_pass_at_mean", Verdict.PASS), ("p_fail_at_mean", Verdict.FAIL)):
        rate = np.mean(verdicts == verdict)
        se = math.sqrt(max(oc[key] * (1 - oc[key]), 1e-4) / SETS)
        assert abs(rate - oc[key]) < 4 * se, (key, rate, oc)
    # at a margin with no indifference zone each error rate is P(T < −c) of Student's t
    edge = operating_characteristics("less", 0.0, 0.0, sd, n, ALPHA, mean=0.0)
    exact = stats.t.cdf(-critical_value(n, ALPHA), n - 1)
    assert edge["false_fail"] == pytest.approx(exact)
    assert edge["false_pass"] == pytest.approx(exact)
    # and with the bound of plain t (skew 0) exactly the level
    plain = operating_characteristics("less", 0.0, 0.0, sd, n, ALPHA, mean=0.0, skew=0.0)
    assert plain["false_fail"] == pytest.approx(ALPHA)


def _declared_budgets() -> list[tuple[str, str, tuple[int, ...], float]]:
    """Every budget a registered claim declares: (claim, scale, units at each planned look, the
    per-part level α/p), with the units per root seed of its committed reference record at that
    scale (3 when there is none; a root seed that gave no unit, as a seed of sink_removed whose
    baseline formed no sink, is left out of that minimum)."""
    from paper_checks.claims import all_claims
    from tools.docs import REFERENCE_RUNS, load_reference

    budgets = []
    for claim in all_claims():
        for scale, counts in claim.looks.items():
            record = load_reference(scale)[1].get(claim.id) if scale in REFERENCE_RUNS else None
            rows = ((record.replication or {}).get("replicates") or []) if record else []
            per_seed = [r["n_units"] for r in rows if isinstance(r.get("n_units"), int)]
            per_seed = [n for n in per_seed if n > 0]
            units = min(per_seed) if per_seed else 3
            level = claim.decision.alpha / len(claim.decision.parts)
            budgets.append((claim.id, scale, tuple(units * c for c in counts), level))
    return budgets


@pytest.mark.parametrize("direction", ["greater", "less"])
@pytest.mark.parametrize(("claim_id", "scale", "units", "level"), _declared_budgets(), ids=str)
def test_every_declared_sequence_of_looks_keeps_both_error_rates(
    claim_id, scale, units, level, direction
):
    # the runner's sequence: look at each planned count while undecided, at α/K each; with the
    # true mean on a margin, P(the sequence ends wrong) ≤ the level, for the declared class's
    # worst cases (skewness ±1, the tails of a gamma)
    sets = 20_000
    for family in [f for f in IN_CLASS if abs(f.skewness) == 1 or f.skewness == 0]:
        seed = sum(units) + FAMILIES.index(family) + (7 if direction == "less" else 0)
        rates = sequential_error_rates(
            family, units, sets=sets, seed=seed, direction=direction, alpha=level
        )
        assert rates["pass_at_pass_margin"] <= level + slack(level, sets), (family.name, rates)
        assert rates["fail_at_fail_margin"] <= level + slack(level, sets), (family.name, rates)


def test_looking_again_without_spending_alpha_would_break_the_rate():
    # what spending is for: six looks each at the full level α let a false verdict through
    # more often than α (normal units, measured 0.046 and 0.047; spent: 0.005 and 0.004)
    normal = next(f for f in FAMILIES if f.name == "normal")
    looks, sets = (3, 6, 12, 24, 48, 96), 40_000
    spent = sequential_error_rates(normal, looks, sets=sets, seed=11, alpha=ALPHA)
    unspent = sequential_error_rates(normal, looks, sets=sets, seed=11, alpha=len(looks) * ALPHA)
    for key in ("pass_at_pass_margin", "fail_at_fail_margin"):
        assert spent[key] <= ALPHA + slack(ALPHA, sets), spent
        assert unspent[key] > ALPHA + slack(ALPHA, sets), unspent


def test_sequential_rates_refuse_looks_that_are_not_increasing():
    with pytest.raises(ValueError, match="looks"):
        sequential_error_rates(IN_CLASS[0], (3, 3), sets=10, seed=0)


#: Units -1, 0.5, 2: mean 0.5, sd 1.5, n = 3. At level 0.025, t(0.975, 2) = 4.30265 and
#: z = 1.95996, so c = 4.30265·(1 + 1.5·(2z² + 1)/(6z√3)) = 7.05392 and the half-width
#: c·1.5/√3 = 6.10888: L = −5.60888, U = 6.60888.
HAND_UNITS = {"x": [-1.0, 0.5, 2.0]}
HAND_LOWER, HAND_UPPER = -5.60888, 6.60888


def test_an_undecided_greater_part_excludes_means_above_its_upper_bound():
    decision = Rule("a draw", (Part("x", "a gain", "greater", 1.0, 0.0),)).decide(HAND_UNITS)
    assert decision.verdict is Verdict.INCONCLUSIVE
    (entry,) = decision.excluded()
    assert entry["statistic"] == "x"
    assert entry["below"] is None
    assert entry["above"] == pytest.approx(HAND_UPPER, abs=1e-5)
    assert entry["confidence"] == pytest.approx(0.975)
    assert decision.excluded_text() == (
        "mean x below 6.609 at 97.5% one-sided (larger values excluded)"
    )
    assert decision.to_json()["excluded"] == decision.excluded()


def test_an_undecided_less_part_excludes_means_below_its_lower_bound():
    decision = Rule("a draw", (Part("x", "a loss", "less", -1.0, 0.0),)).decide(HAND_UNITS)
    (entry,) = decision.excluded()
    assert entry["above"] is None
    assert entry["below"] == pytest.approx(HAND_LOWER, abs=1e-5)
    assert decision.excluded_text() == (
        "mean x above -5.609 at 97.5% one-sided (smaller values excluded)"
    )


def test_an_undecided_equivalence_excludes_both_sides_at_its_level():
    # two parts: level 0.025/2 = 0.0125, c = 10.62004, bounds 0.5 ∓ 9.19722
    decision = Rule("a draw", within("x", "an exponent", 1.0, 0.2)).decide(HAND_UNITS)
    (entry,) = decision.excluded()
    assert (entry["below"], entry["above"]) == pytest.approx((-8.69722, 9.69722), abs=1e-5)
    assert entry["confidence"] == pytest.approx(0.9875)
    assert decision.excluded_text() == (
        "mean x within [-8.697, 9.697] at 98.75% one-sided each side (values outside excluded)"
    )


def test_a_decided_claim_excludes_nothing_and_stores_no_exclusion():
    rule = Rule("a draw", (Part("x", "a gain", "greater", 0.0, 0.0),))
    passed = rule.decide({"x": [1.0, 1.1, 0.9, 1.05]})
    failed = rule.decide({"x": [-1.0, -1.1, -0.9, -1.05]})
    for decision in (passed, failed):
        assert decision.verdict is not Verdict.INCONCLUSIVE
        assert decision.excluded() == []
        assert decision.excluded_text() == ""
        assert "excluded" not in decision.to_json()


def test_with_fewer_than_two_units_nothing_is_excluded():
    decision = Rule("a draw", (Part("x", "a gain", "greater", 0.0, 0.0),)).decide({"x": [1.0]})
    assert decision.excluded() == [
        {"statistic": "x", "above": None, "below": None, "confidence": 0.975}
    ]
    assert decision.excluded_text() == "fewer than 2 units: no value is excluded"


def test_study_power_expects_a_clear_pilot_to_pass_and_a_marginal_one_rarely_to():
    rule = Rule("u", (Part("x", "x", "greater", 0.0, 0.0), Part("y", "y", "less", 1.0, 1.0)))
    clear = {"x": [2.0, 2.5, 1.5, 2.2], "y": [0.1, 0.2, 0.0, 0.1]}
    power = study_power(rule, clear, (6, 12), sets=4_000, seed=3)
    assert power["decided_by"][0] > 0.95
    assert power["PASS"] == pytest.approx(1.0, abs=0.01)
    assert power["PASS"] + power["FAIL"] + power["INCONCLUSIVE"] == pytest.approx(1.0)
    # a pilot whose x sits on its margin: the study rarely ends PASS (at most α/2 per part and
    # look, for normal units) and FAILs as rarely
    marginal = {"x": [-1.0, 1.0, 0.5, -0.5], "y": [0.1, 0.2, 0.0, 0.1]}
    sets = 20_000
    edge = study_power(rule, marginal, (6, 12), sets=sets, seed=4)
    assert edge["PASS"] <= ALPHA / 2 + slack(ALPHA / 2, sets)
    assert edge["FAIL"] <= ALPHA / 2 + slack(ALPHA / 2, sets)
    assert edge["decided_by"][0] <= edge["decided_by"][1]


@pytest.mark.parametrize(
    ("pilot", "looks", "message"),
    [
        ({"x": [1.0, 2.0]}, (4, 4), "looks"),
        ({"x": [1.0, 2.0]}, (), "looks"),
        ({"x": [1.0]}, (4,), "at least 2 units"),
    ],
)
def test_study_power_refuses_what_it_cannot_plan(pilot, looks, message):
    rule = Rule("u", (Part("x", "x", "greater", 0.0, 0.0),))
    with pytest.raises(ValueError, match=message):
        study_power(rule, pilot, looks, sets=10)
