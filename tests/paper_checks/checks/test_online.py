"""The online-learning claims pass with our solvers and FAIL when handed a wrong theory."""

from __future__ import annotations

import math

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
    ],
)
def test_claim_passes(ctx, check):
    result = check(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert (ctx.out_dir / result.figures[0]).is_file()


@pytest.mark.parametrize(
    ("check", "wrong"),
    [
        (online.gadget_gap, {"mtr": _ldim_as_mtr}),
        (online.two_thirds_line, {"mtr": _ldim_as_mtr}),
        (online.mtr_le_ldim, {"mtr": lambda H: littlestone_dim(H) + 1}),
        (online.invariances, {"mtr": lambda H: transductive_value(H, list(range(H.n_points)))}),
        (online.tree_class, {"mtr": lambda H: littlestone_dim(H) - 1}),
        (online.bound_constants, {"length_bound": lambda d: (d + 1) * 2 ** (math.sqrt(d) / 5 + 1)}),
    ],
    ids=["gadget", "two_thirds", "mtr_le_ldim", "invariances", "tree_class", "constants"],
)
def test_claim_fails_on_a_wrong_theory(ctx, check, wrong):
    assert check(ctx, **wrong).verdict is Verdict.FAIL


def test_adversary_claim_fails_when_g_is_overstated(ctx):
    from sims.online import guaranteed_mistakes

    result = online.adversary_forces(ctx, guaranteed=lambda H, s: guaranteed_mistakes(H, s) + 1)
    assert result.verdict is Verdict.FAIL
    assert result.measured["violations"] > 0


def test_learner_claim_fails_with_a_too_strong_weight_factor(ctx):
    result = online.learner_invariants(ctx, weight_factor=0.25)
    assert result.verdict is Verdict.FAIL
    assert result.measured["runs_over_weight_bound"] > 0


def test_mtr_le_ldim_records_the_brute_force_comparisons(ctx):
    result = online.mtr_le_ldim(ctx)
    assert result.measured["brute_forced"] > 0
    assert np.all(np.asarray(result.arrays["mtr"]) <= np.asarray(result.arrays["ldim"]))
