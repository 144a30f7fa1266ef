"""Checks run concurrently (``run_claims``): same results as one at a time, a shared sweep
computed once, CPU time and code fingerprint in the provenance."""

from __future__ import annotations

import threading

import pytest

from paper_checks.claims import Claim
from paper_checks.context import Context
from paper_checks.results import CheckResult, Verdict, comparable
from paper_checks.runner import PRESENTATION_MODULES, claim_fingerprint, run_claims
from sims._fingerprint import code_fingerprint
from sims.sweep import ProcessExecutor, SerialExecutor

CALLS: list[int] = []
_CALLS_LOCK = threading.Lock()


def _task(params, rng):
    with _CALLS_LOCK:
        CALLS.append(params["i"])
    return {"value": float(rng.random())}


def _shared(ctx: Context) -> CheckResult:
    """A check whose sweep is shared by every claim that calls it (one claim id for the cache),
    plus a draw of its own stream."""
    from dataclasses import replace

    records = replace(ctx, claim_id="rlvr.test_shared").sweep(
        _task, [{"i": i} for i in range(4)], name="grid"
    )
    total = sum(r["result"]["value"] for r in records) + float(ctx.rng("own").random())
    return CheckResult(Verdict.of(total > 1), f"{total:.4f}", {"total": total}, {}, "> 1")


def _claims() -> list[Claim]:
    rule = "PASS when the total exceeds 1; FAIL otherwise."
    return [
        Claim(f"rlvr.test_c{i}", "rlvr", "s", "tests", _shared, rule, True, "total")
        for i in range(4)
    ]


def _json(results: list[CheckResult]) -> list[dict]:
    return [comparable(r.to_json()) for r in results]


def test_concurrent_checks_give_the_results_of_sequential_ones(tmp_path):
    seq = run_claims(_claims(), Context(seed=5, out_dir=tmp_path / "a"), 3, concurrency=1)
    con = run_claims(_claims(), Context(seed=5, out_dir=tmp_path / "b"), 3, concurrency=4)
    assert [r.claim_id for r in con] == [c.id for c in _claims()]  # the order given
    assert _json(con) == _json(seq)
    assert all(r.replication["n"] == 3 for r in con)


def test_a_sweep_shared_by_concurrent_checks_is_computed_once(tmp_path):
    CALLS.clear()
    run_claims(_claims(), Context(seed=1, out_dir=tmp_path), concurrency=4)
    assert sorted(CALLS) == [0, 1, 2, 3]  # four claims, one sweep of four tasks


def test_on_result_sees_each_claim_once_after_its_replicates(tmp_path):
    seen = []
    run_claims(_claims(), Context(out_dir=tmp_path), 2, on_result=seen.append, concurrency=3)
    assert sorted(r.claim_id for r in seen) == sorted(c.id for c in _claims())
    assert all(r.replication is not None for r in seen)


def test_provenance_holds_cpu_time_and_the_code_fingerprint(tmp_path):
    (result,) = run_claims(_claims()[:1], Context(out_dir=tmp_path))
    assert result.provenance["cpu_time_s"] >= 0
    sliced = code_fingerprint(_shared, skip=PRESENTATION_MODULES, sliced=True)
    assert result.provenance["code"] == sliced
    assert result.provenance["code"] == claim_fingerprint(_claims()[0], "quick")
    assert result.provenance["code"] != code_fingerprint(_shared)  # presentation code left out


@pytest.mark.slow
def test_cpu_time_counts_the_tasks_run_in_worker_processes(tmp_path):
    with ProcessExecutor(2) as pool:
        (remote,) = run_claims(_claims()[:1], Context(out_dir=tmp_path / "p", executor=pool))
    (local,) = run_claims(_claims()[:1], Context(out_dir=tmp_path / "s", executor=SerialExecutor()))
    assert remote.measured == local.measured
    assert remote.provenance["cpu_time_s"] > 0


def test_costs_start_the_longest_checks_first(tmp_path):
    started: list[str] = []

    def record(ctx: Context) -> CheckResult:
        started.append(ctx.claim_id)
        return CheckResult(Verdict.PASS, "", {"total": 1.0}, {}, "")

    rule = "PASS always; FAIL never."
    claims = [
        Claim(f"rlvr.test_o{i}", "rlvr", "s", "tests", record, rule, False, None) for i in range(4)
    ]
    results = run_claims(
        claims,
        Context(out_dir=tmp_path),
        concurrency=1,
        costs={"rlvr.test_o2": 50.0, "rlvr.test_o3": 9.0},
    )
    assert started == ["rlvr.test_o2", "rlvr.test_o3", "rlvr.test_o0", "rlvr.test_o1"]
    assert [r.claim_id for r in results] == [c.id for c in claims]  # results in the order given


def test_with_two_threads_one_takes_the_longest_checks_and_the_other_the_shortest(tmp_path):
    started: dict[str, list[str]] = {}
    gate = threading.Barrier(2, timeout=30)  # both threads hold their first check at once

    def record(ctx: Context) -> CheckResult:
        mine = started.setdefault(threading.current_thread().name, [])
        mine.append(ctx.claim_id)
        if len(mine) == 1:
            gate.wait()
        return CheckResult(Verdict.PASS, "", {"total": 1.0}, {}, "")

    rule = "PASS always; FAIL never."
    claims = [
        Claim(f"rlvr.test_l{i}", "rlvr", "s", "tests", record, rule, False, None) for i in range(5)
    ]
    costs = {"rlvr.test_l0": 5.0, "rlvr.test_l1": 1.0, "rlvr.test_l2": 50.0, "rlvr.test_l3": 9.0}
    results = run_claims(claims, Context(out_dir=tmp_path), concurrency=2, costs=costs)
    assert started["check_0"][0] == "rlvr.test_l2"  # the longest
    assert started["check_1"][0] == "rlvr.test_l4"  # no cost: the shortest
    assert sorted(c for ids in started.values() for c in ids) == [c.id for c in claims]
    assert [r.claim_id for r in results] == [c.id for c in claims]
