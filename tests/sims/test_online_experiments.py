"""The online claims' experiments (sims.online_experiments): each count against a hand-built case
and, for the sampled ones, a wrong solver that must be caught."""

from __future__ import annotations

import numpy as np
import pytest

from sims import online_experiments as ox
from sims.online import guaranteed_mistakes
from theory.online import ConceptClass, constructions
from theory.online.census import CensusCounts, census
from theory.online.dims import littlestone_dim


def test_census_disagreements_finds_none_with_the_solvers_and_every_class_off_by_one():
    table = census(4)
    rng = np.random.default_rng(0)
    assert ox.census_disagreements(table, 40, rng) == (0, 40)
    wrong = ox.census_disagreements(table, 40, rng, mtr=lambda H: ox.exact_mtr(H) + 1)
    assert wrong == (40, 40)


def test_sum_census_counts_adds_counts_and_keeps_the_smallest_class():
    a = CensusCounts(3, {(1, 1): 2, (2, 2): 1}, {(1, 1): 0b11, (2, 2): 0b1111})
    b = CensusCounts(2, {(1, 1): 1, (3, 2): 1}, {(1, 1): 0b101, (3, 2): 0b111})
    total = ox.sum_census_counts([{"result": a.to_dict()}, {"result": b.to_dict()}])
    assert total.classes == 5
    assert total.counts == {(1, 1): 3, (2, 2): 1, (3, 2): 1}
    assert total.smallest[(1, 1)] == 0b11
    assert ox.sum_census_counts([]).classes == 0


def test_census5_cross_checks_agree_on_a_small_sample():
    assert ox.census5_cross_checks(census(4), 20) == {
        "four_point_mismatches": 0,
        "sample_mismatches": 0,
        "invariance_mismatches": 0,
    }


def _row(vc, mtr, ldim, log_h, brute):
    return {"vc": vc, "mtr": mtr, "ldim": ldim, "floor_log2_h": log_h, "mtr_bruteforce": brute}


def test_elementary_bound_violations_counts_each_kind_once():
    rows = [
        _row(1, 1, 1, 1, 1),  # fine
        _row(2, 1, 2, 2, None),  # VC > M_tr, and Ldim 2 with M_tr < 2
        _row(1, 3, 2, 3, 3),  # M_tr > Ldim
        _row(1, 2, 2, 1, 2),  # M_tr > ⌊log2|H|⌋
        _row(1, 2, 3, 2, 3),  # DP ≠ brute force
        _row(2, 2, 4, 4, None),  # (Ldim, M_tr) = (4, 2): below the tree order's floor 3
    ]
    arrays, violations = ox.elementary_bound_violations(rows)
    assert violations == {
        "vc > mtr": 1,
        "mtr > ldim": 1,
        "mtr > floor log2|H|": 1,
        "mtr < tree-order floor of ldim": 2,
        "dp != brute force": 1,
    }
    assert arrays["brute"].tolist() == [1, -1, 3, 2, 3, -1]
    assert arrays["mtr"].tolist() == [1, 1, 3, 2, 2, 2]


def test_random_small_class_respects_its_limits():
    rng = np.random.default_rng(1)
    for _ in range(50):
        H = ox.random_small_class(rng, max_points=4, max_size=6)
        assert 1 <= H.n_points <= 4
        assert 1 <= H.n_hypotheses <= min(2**H.n_points, 6)
        assert len(set(H.rows())) == H.n_hypotheses


def test_invariance_trials_pass_with_the_solver_and_catch_an_order_bound_value():
    from theory.online.transductive import transductive_value

    violations, pairs = ox.invariance_trials(60, np.random.default_rng(2))
    assert not any(violations.values())
    assert pairs
    assert all(parts == total for parts, total in pairs)
    wrong, _ = ox.invariance_trials(
        60,
        np.random.default_rng(2),
        mtr=lambda H: transductive_value(H, list(range(H.n_points))),
    )
    assert wrong["permute"] > 0


def test_minimal_tree_values_are_d():
    exact, certified, ldims = ox.minimal_tree_values([1, 2, 3], [5], np.random.default_rng)
    assert exact == [1, 2, 3]
    assert certified == [5]
    assert ldims == [1, 2, 3, 5]


def test_random_tree_values_and_their_violations():
    rows = ox.random_tree_values((3, 4), (0.25,), 4, np.random.default_rng(3))
    assert rows.shape == (8, 4)
    assert rows[:, 0].tolist() == [3] * 4 + [4] * 4
    assert np.all(rows[:, 3] <= rows[:, 2])
    fake = np.array([[4, 0.1, 4, 3], [4, 0.1, 4, 4], [3, 0.1, 3, 4]])  # last: M_tr > Ldim
    share, violations = ox.tree_class_violations([1, 2], [1, 2], [1, 1], fake)
    assert share == 0.5
    assert violations == 1 + 1  # M_tr ≠ d at d = 2, M_tr > Ldim once
    share, violations = ox.tree_class_violations([1], [1], [1], fake[1:2])
    assert (share, violations) == (0.0, 1)  # no d = 4 class below Ldim


def test_closed_rows_and_the_mtr_distribution():
    rows = [
        {"d": 5, "q": 0.1, "lower": 4, "upper": 4},
        {"d": 5, "q": 0.1, "lower": 4, "upper": 5},
        {"d": 5, "q": 0.25, "lower": 5, "upper": 5},
        {"d": 3, "q": 0.1, "lower": 2, "upper": 2},
    ]
    sel, closed, share = ox.closed_at(rows, 5)
    assert len(sel) == 3
    assert closed == 2
    assert share == pytest.approx(2 / 3)
    assert ox.closed_share(rows, 5, None, lambda v: v < 5) == 0.5
    assert ox.closed_share(rows, 4, None, lambda v: True) == 0.0  # no rows: 0
    table, below = ox.mtr_distribution(rows, (0.1, 0.25))
    assert table["d5_q0.1"] == {"3": 0.0, "4": 1.0, "5": 0.0}
    assert below == {"d3": 1.0, "d4": 0.0, "d5": 0.5}


def test_random_tree_brackets_pass_with_mtr_bracket_and_fail_a_forged_one():
    import dataclasses

    from theory.online.brackets import mtr_bracket

    def rngs(q, i):
        return np.random.default_rng([int(100 * q), i])

    rows, violations, mismatch = ox.random_tree_brackets(
        1, (0.25,), np.random.default_rng(4), rngs, mtr_bracket
    )
    assert [r["d"] for r in rows] == [3, 4, 5]
    assert violations == mismatch == 0

    def forged(H, **kw):
        b = mtr_bracket(H, **kw)
        return dataclasses.replace(b, lower=b.upper + 1, upper=b.upper + 1)

    _, violations, _ = ox.random_tree_brackets(1, (0.25,), np.random.default_rng(4), rngs, forged)
    assert violations == 1


def test_minimal_tree_mtr_is_d():
    from theory.online.brackets import mtr_bracket

    assert ox.minimal_tree_mtr(mtr_bracket, np.random.default_rng(5)) == [1, 2, 3, 4, 5]


def test_adversary_runs_and_the_pilot():
    rows, failures = ox.adversary_runs(
        [(3, 0.0), (4, 0.2)], np.random.default_rng(6), guaranteed=guaranteed_mistakes
    )
    assert len(rows) == 2 * len(ox.ADVERSARY_GRID)
    assert failures == []
    assert all(r["g"] <= r["v"] <= r["mtr_upper"] for r in rows)
    assert all(r["min_learner_mistakes"] >= r["g"] for r in rows)
    _, failures = ox.adversary_runs(
        [(3, 0.0)],
        np.random.default_rng(6),
        guaranteed=lambda H, s: guaranteed_mistakes(H, s) + 1,
    )
    assert failures  # an overstated g breaks g ≤ v or a learner's ≥ g
    pilot = ox.adversary_pilot(guaranteed_mistakes)
    assert (pilot.n, pilot.g, pilot.v) == (47, 5, 5)
    assert int(np.sum(pilot.trace["forced"])) >= pilot.g


def test_halving_worst_case_on_all_functions_is_the_number_of_points():
    H = ConceptClass.from_strings(["00", "01", "10", "11"])
    assert ox.halving_worst_case(H, np.arange(2)) == 2
    W = constructions.gadget_w()
    assert ox.halving_worst_case(W, np.arange(4)) <= littlestone_dim(W)


def test_search_grid_counts_the_quick_restarts():
    grid = ox.search_grid((8, 10), 1, 300)
    assert len(grid) == 10
    assert sum("min_ldim" in p for p in grid) == 4
    assert {p["steps"] for p in grid} == {300}
    assert len(ox.search_grid((5,), 2, 10)) == 4  # random and gadget starts only, twice


def test_search_totals_and_certification():
    runs = [
        {"pairs": [[3, 2, 4], [2, 2, 1]], "cpu_seconds": 1.5, "moves": 10, "classes_scored": 5,
         "best_energy": 0.5, "best_ldim": 3, "best_mtr": 2, "n_points": 8, "below_line": []},
        {"pairs": [[3, 2, 1]], "cpu_seconds": 0.5, "moves": 10, "classes_scored": 2,
         "best_energy": 0.2, "best_ldim": 6, "best_mtr": 4, "n_points": 8, "below_line": []},
    ]  # fmt: skip
    totals = ox.search_totals(runs)
    assert totals.pairs == {(3, 2): 5, (2, 2): 1}
    assert (totals.cpu, totals.moves, totals.scored) == (2.0, 20, 7)
    assert totals.best["best_ldim"] == 6
    assert totals.line_pairs == [(3, 2)]
    certs = ox.certify_candidates([constructions.gadget_power(2)], runs)
    assert [(src, c["certified"]) for src, _, c in certs] == [("claimed", False)]
