"""The concept-class strategies: their draws are valid classes of the promised sizes, and the
refuting strategies refute false conjectures that the small-first strategy lets pass."""

from __future__ import annotations

import json
import math
import os
import secrets
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, seed, settings

from paper_checks.bench import _false_conjectures, _refutation_test, fresh_process_outcomes
from theory.online.concept_class import ConceptClass
from theory.online.constructions import gadget_w
from theory.online.dims import littlestone_dim
from theory.online.mtr import transductive_mistake_bound
from theory.online.strategies import (
    classes_on_points,
    concept_classes,
    counterexample_classes,
    minimize_counterexample,
    uniform_classes,
)


@given(uniform_classes(1, 6))
def test_uniform_classes_are_valid_distinct_row_classes(H):
    rows = {tuple(r) for r in H.matrix.tolist()}
    assert len(rows) == H.n_hypotheses >= 1
    assert 1 <= H.n_points <= 6
    assert set(np.unique(H.matrix)) <= {0, 1}


@given(concept_classes(min_points=4, max_points=5, min_hypotheses=8))
def test_concept_classes_keep_their_size_bounds_without_retries(H):
    assert 4 <= H.n_points <= 5
    assert H.n_hypotheses >= 8
    assert len({tuple(r) for r in H.matrix.tolist()}) == H.n_hypotheses


@settings(max_examples=60)
@given(counterexample_classes())
def test_counterexample_classes_keep_the_proved_order(H):
    mtr, ldim = transductive_mistake_bound(H).value, littlestone_dim(H)
    assert mtr <= ldim <= math.floor(math.log2(H.n_hypotheses))


def test_uniform_classes_put_each_row_in_with_probability_one_half():
    from hypothesis import strategies as st

    sizes = []

    @seed(0)
    @settings(max_examples=300, database=None)
    @given(uniform_classes(4, 4), st.just(None))
    def record(H, _):
        sizes.append(H.n_hypotheses)

    record()
    # 16 candidate rows, each kept with probability 1/2: mean 8 (hypothesis adds some small
    # and some boundary draws, so only a loose band is promised)
    assert 5 < np.mean(sizes) < 11


@given(classes_on_points(n_classes=2, max_points=5))
def test_ldim_of_a_union_is_at_most_the_sum_plus_one(classes):
    """Ldim(H1 ∪ H2) ≤ Ldim(H1) + Ldim(H2) + 1 (the SOA of each class and a vote between them;
    the example of a statement over several classes on the same points)."""
    H1, H2 = classes
    union = ConceptClass.from_array(np.unique(np.vstack([H1.matrix, H2.matrix]), axis=0))
    assert littlestone_dim(union) <= littlestone_dim(H1) + littlestone_dim(H2) + 1


def _padded_w() -> ConceptClass:
    """W with a constant column, a copy of point 0 and the complement of point 1 appended."""
    w = gadget_w().matrix
    extra = np.column_stack([np.zeros(8, dtype=np.uint8), w[:, 0], 1 - w[:, 1]])
    return ConceptClass.from_array(np.hstack([w, extra]), list("abcdxyz"))


def test_minimize_counterexample_drops_the_redundant_columns_that_keep_it_failing():
    padded = _padded_w()

    def gap_closed(H):  # false on W and on every padding of it
        return transductive_mistake_bound(H).value == littlestone_dim(H)

    assert minimize_counterexample(padded, gap_closed) == ConceptClass.from_array(
        gadget_w().matrix, list("abcd")
    )

    def needs_seven_points(H):  # the failure needs every column: nothing may be dropped
        assert H.n_points < 7

    assert minimize_counterexample(padded, needs_seven_points) == padded

    def fails_with_x(H):  # keeps the constant column x, drops the redundant y and z
        return "x" not in H.points

    assert minimize_counterexample(padded, fails_with_x).points == tuple("abcdx")


@given(concept_classes(max_points=6))
def test_minimize_counterexample_keeps_the_values_and_ends_canonical(H):
    """For a statement about (Ldim, M_tr) only, every redundant column goes and both values stay."""
    values = (littlestone_dim(H), transductive_mistake_bound(H).value)

    def differs(G):
        return (littlestone_dim(G), transductive_mistake_bound(G).value) != values

    small = minimize_counterexample(H, differs)
    assert (littlestone_dim(small), transductive_mistake_bound(small).value) == values
    assert small.n_points == H.canonical()[0].n_points
    assert set(small.points) <= set(H.points)


def test_minimize_counterexample_refuses_a_class_that_does_not_fail():
    with pytest.raises(ValueError, match="H is not a counterexample"):
        minimize_counterexample(gadget_w(), lambda H: True)
    with pytest.raises(ValueError, match="H must be a ConceptClass"):
        minimize_counterexample([[0, 1]], lambda H: False)


@pytest.mark.parametrize("conjecture", list(_false_conjectures()))
def test_each_false_conjecture_is_refuted_by_the_refuting_strategy(conjecture):
    holds = _false_conjectures()[conjecture]
    for hyp_seed in (0, 1, 2):
        test, found = _refutation_test(counterexample_classes(), holds, hyp_seed)
        with pytest.raises(AssertionError):
            test()
        assert found


# ------------------------------------------------------------ hypothesis's default settings
def kernel_loads_during_examples() -> list[str]:
    """In this process: import the strategies module (which warms the solvers), then run every
    solver on 40 draws of each strategy and return the Numba kernels that were compiled or
    loaded from the disk cache meanwhile (none, when the warm-up covers every kernel path: no
    drawn example pays for one under a deadline). Run it in a fresh process."""
    from hypothesis import strategies as st
    from numba.core import event
    from numba.core.registry import CPUDispatcher

    import theory.online.strategies as strat
    from theory.online import _dims_numba, _mtr_numba, _transductive_numba
    from theory.online.dims import littlestone_tree, threshold_dim, vc_dim
    from theory.online.transductive import transductive_value

    def signatures() -> dict[str, int]:
        return {
            f"{module.__name__}.{name}": len(kernel.signatures)
            for module in (_dims_numba, _mtr_numba, _transductive_numba)
            for name, kernel in vars(module).items()
            if isinstance(kernel, CPUDispatcher)
        }

    drawn = st.one_of(
        strat.counterexample_classes(),
        strat.concept_classes(min_points=6, max_points=8, min_hypotheses=60),
        strat.uniform_classes(6, 7),
        strat.products().map(lambda abc: abc[2]),
        strat.tree_classes(max_depth=4),
        strat.classes_with_planted_gap(),
    )
    before = signatures()

    @seed(0)
    @settings(max_examples=40 * 6, database=None, deadline=None)
    @given(drawn)
    def run_every_solver(H):
        littlestone_dim(H)
        littlestone_tree(H)
        vc_dim(H)
        threshold_dim(H)
        transductive_mistake_bound(H)
        transductive_value(H, list(range(H.n_points)))

    with event.install_recorder("numba:compile") as compiled:
        run_every_solver()
    loaded = [name for name, n in signatures().items() if n != before[name]]
    return loaded + [str(ev.data["dispatcher"]) for _, ev in compiled.buffer]


def _in_fresh_process(function: str, env_extra: dict[str, str]) -> object:
    root = Path(__file__).resolve().parents[3]
    code = f"import json; from {__name__} import {function}; print(json.dumps({function}()))"
    env = {**os.environ, "PYTHONPATH": str(root), **env_extra}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    "cache", ["numba's cache", pytest.param("an empty cache", marks=pytest.mark.slow)]
)
def test_no_kernel_compiles_or_loads_while_examples_run_in_a_fresh_process(cache, tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path)} if cache == "an empty cache" else {}
    assert _in_fresh_process("kernel_loads_during_examples", env) == []


def test_default_settings_pass_a_true_conjecture_and_refute_a_false_one_in_a_fresh_process():
    """A user's test file under hypothesis's defaults (200 ms deadline), at a fresh seed: the
    first examples no longer pay for compiling the solvers (5 of 5 seeds failed with
    DeadlineExceeded/Flaky before the warm-up covered every kernel path)."""
    hyp_seed = secrets.randbits(32)
    outcomes = fresh_process_outcomes(hyp_seed, ["M_tr <= Ldim", "M_tr <= Ldim - 1"])
    assert outcomes == {"M_tr <= Ldim": "passed", "M_tr <= Ldim - 1": "refuted"}, hyp_seed
