"""The online-learning claims pass with our solvers and FAIL when handed a wrong theory."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from paper_checks.checks import online
from paper_checks.context import Context
from paper_checks.results import Verdict
from theory.online.dims import littlestone_dim
from theory.online.transductive import transductive_value


@pytest.fixture
def ctx(tmp_path):
    return Context(scale="quick", seed=0, out_dir=tmp_path, claim_id="online.under_test")


def _ldim_as_mtr(H):
    return littlestone_dim(H)


@pytest.mark.parametrize(
    "check",
    [
        online.gadget_gap,
        online.two_thirds_line,
        online.mtr_le_ldim,
        online.invariances,
        online.tree_class,
        online.bound_constants,
        online.adversary_forces,
        online.learner_invariants,
        online.census_5_points,
    ],
)
def test_claim_passes(ctx, check):
    result = check(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert (ctx.out_dir / result.figures[0]).is_file()


@pytest.mark.parametrize(
    ("check", "wrong"),
    [
        # "transduction never helps": M_tr = Ldim, off by one mistake on 2,880 of 65,535 classes
        pytest.param(
            online.gadget_gap,
            {"mtr": _ldim_as_mtr},
            marks=pytest.mark.claim_fails("online.gadget_gap"),
        ),
        # the same belief on W^k: one mistake too many per gadget
        pytest.param(
            online.two_thirds_line,
            {"mtr": _ldim_as_mtr},
            marks=pytest.mark.claim_fails("online.two_thirds_line"),
        ),
        # a solver off by one mistake
        pytest.param(
            online.mtr_le_ldim,
            {"mtr": lambda H: littlestone_dim(H) + 1},
            marks=pytest.mark.claim_fails("online.mtr_le_ldim"),
        ),
        # the game value on the given order only (forgets the adversary picks the order)
        pytest.param(
            online.invariances,
            {"mtr": lambda H: transductive_value(H, list(range(H.n_points)))},
            marks=pytest.mark.claim_fails("online.invariances"),
        ),
        # "transduction saves one mistake on trees"
        pytest.param(
            online.tree_class,
            {"mtr": lambda H: littlestone_dim(H) - 1},
            marks=pytest.mark.claim_fails("online.tree_class"),
        ),
        # M = √d/9 instead of √d/10 (an 11% larger exponent): the bound first holds at d = 835
        pytest.param(
            online.bound_constants,
            {"length_bound": lambda d: (d + 1) * mpmath.power(2, mpmath.sqrt(d) / 9 + 1)},
            marks=pytest.mark.claim_fails("online.bound_constants"),
        ),
    ],
    ids=["gadget", "two_thirds", "mtr_le_ldim", "invariances", "tree_class", "constants"],
)
def test_claim_fails_on_a_wrong_theory(ctx, check, wrong):
    assert check(ctx, **wrong).verdict is Verdict.FAIL


@pytest.mark.claim_fails("online.adversary_forces")
def test_adversary_claim_fails_when_g_is_overstated_by_one(ctx):
    from sims.online import guaranteed_mistakes

    result = online.adversary_forces(ctx, guaranteed=lambda H, s: guaranteed_mistakes(H, s) + 1)
    assert result.verdict is Verdict.FAIL
    assert result.measured["violations"] > 0


@pytest.mark.claim_fails("online.learner_invariants")
def test_learner_claim_fails_with_a_weight_factor_just_below_halving(ctx):
    # f = 0.45: each mistake claimed to shrink the weight 10% more than the paper's halving
    result = online.learner_invariants(ctx, weight_factor=0.45)
    assert result.verdict is Verdict.FAIL
    assert result.measured["runs_over_weight_bound"] > 0


@pytest.mark.claim_fails("online.learner_invariants")
def test_learner_claim_fails_at_the_papers_halving_rate(ctx):
    # f = 1/2, the paper's Claim D.8: weighted-majority ties leave 3/4 of the weight
    result = online.learner_invariants(ctx, weight_factor=0.5)
    assert result.verdict is Verdict.FAIL, result.summary
    assert result.measured["mistakes_over_weight_factor"] > 0
    assert result.measured["largest_weight_factor"] == pytest.approx(0.75)


def test_learner_claim_passes_at_three_quarters_and_reaches_it(ctx):
    result = online.learner_invariants(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["mistakes_over_halving"] > 0  # the bound 3/4 is attained, not loose
    assert result.measured["largest_weight_factor"] == pytest.approx(0.75)


def test_mtr_le_ldim_records_the_brute_force_comparisons(ctx):
    result = online.mtr_le_ldim(ctx)
    assert result.measured["brute_forced"] > 0
    assert np.all(np.asarray(result.arrays["mtr"]) <= np.asarray(result.arrays["ldim"]))


def test_below_two_thirds_without_a_witness_is_inconclusive_and_reports_the_search(ctx):
    result = online.below_two_thirds(ctx)
    assert result.verdict is not Verdict.FAIL, result.summary
    if result.measured["certified_witnesses"] == 0:
        assert result.verdict is Verdict.INCONCLUSIVE
        assert result.measured["restarts"] == 10
        assert result.measured["moves"] == 3000
        assert result.measured["cpu_seconds"] > 0
    assert (ctx.out_dir / result.figures[0]).is_file()


@pytest.mark.claim_fails("online.below_two_thirds")
def test_below_two_thirds_fails_on_a_forged_witness(ctx):
    # W × W sits exactly on the line, (Ldim, M_tr) = (6, 4): passed off as a witness it must FAIL
    from theory.online import constructions

    result = online.below_two_thirds(ctx, witnesses=[constructions.gadget_power(2)])
    assert result.verdict is Verdict.FAIL, result.summary
    assert result.measured["failed_witnesses"] == 1


def test_random_tree_d5_passes_and_closes_every_bracket(ctx):
    result = online.random_tree_d5(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["d5_closed_share"] == 1.0
    assert result.measured["halving_dp_mismatches"] == 0
    assert (ctx.out_dir / result.figures[0]).is_file()


@pytest.mark.claim_fails("online.random_tree_d5")
def test_random_tree_d5_fails_on_a_forged_value(ctx):
    # a bracket claiming M_tr = 5 = Ldim with the sequence that forces only 4
    import dataclasses

    from theory.online.brackets import mtr_bracket

    def forged(H, **kw):
        b = mtr_bracket(H, **kw)
        return dataclasses.replace(b, lower=b.upper + 1, upper=b.upper + 1)

    result = online.random_tree_d5(ctx, bracket=forged)
    assert result.verdict is Verdict.FAIL, result.summary


@pytest.mark.claim_fails("online.below_two_thirds")
def test_a_forged_shipped_witness_file_fails_and_solve_online_reads_it(
    ctx, tmp_path, monkeypatch, capsys
):
    from paper_checks.cli import main
    from sims.online_search import write_witness
    from theory.online import constructions

    path = tmp_path / "data" / "below_two_thirds_forged.txt"
    write_witness(constructions.gadget_w(), path, note="forged: W sits on the line")
    assert main(["solve", "online", "--class", str(path)]) == 0
    assert "M_tr = 2" in capsys.readouterr().out
    monkeypatch.setattr(online, "WITNESS_DIR", path.parent)
    assert [H.rows() for H in online.shipped_witnesses()] == [constructions.gadget_w().rows()]
    result = online.below_two_thirds(ctx)
    assert result.verdict is Verdict.FAIL, result.summary


# online.census_5_points: a kernel that miscounts must FAIL -------------------------------------
@pytest.mark.claim_fails("online.census_5_points")
def test_census_claim_fails_when_the_tables_keep_only_the_best_order(ctx, monkeypatch):
    # the tempting shortcut: combine the children's M_tr instead of their values under the same
    # order σ, i.e. V4_σ replaced by max over σ for every σ
    import theory.online.census as census_module

    ldim4, values4, proj = census_module._five_point_tables()
    best = np.repeat(values4.max(axis=1, keepdims=True), values4.shape[1], axis=1)
    monkeypatch.setattr(census_module, "_five_point_tables", lambda: (ldim4, best, proj))
    result = online.census_5_points(ctx)
    assert result.verdict is Verdict.FAIL
    assert result.measured["sample_mismatches"] > 0


@pytest.mark.claim_fails("online.census_5_points")
def test_census_claim_fails_when_one_class_is_dropped_from_the_counts(ctx, monkeypatch):
    import theory.online._census_numba as kernels

    exact = kernels.count5

    def one_short(*args):
        counts, smallest = exact(*args)
        counts[3, 3] -= 1
        return counts, smallest

    monkeypatch.setattr(kernels, "count5", one_short)
    result = online.census_5_points(ctx)
    assert result.verdict is Verdict.FAIL
    assert result.measured["coverage_errors"] == 1
    assert result.measured["violations"] == 1


def test_census_claim_reports_the_four_point_gap_inside_the_quick_chunk(ctx):
    result = online.census_5_points(ctx)
    assert result.measured["classes_counted"] == (1 << 24) - 1
    assert result.measured["smallest_gap_classes"]["3,2"] == [
        "".join(str((f >> x) & 1) for x in range(5)) for f in _smallest_four_point_gap()
    ]


def _smallest_four_point_gap() -> list[int]:
    from theory.online.census import census

    four = census(4)
    gaps = [int(m) for m in np.flatnonzero(four.mtr < four.ldim)]
    mask = min(gaps, key=lambda m: (m.bit_count(), m))
    return [f for f in range(16) if (mask >> f) & 1]
