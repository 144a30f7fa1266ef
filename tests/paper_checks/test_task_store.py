"""A store of finished sweep tasks shared by run directories (paper_checks.task_store): a task
computed once with the same code, parameters and seed is never computed again, whatever run
directory, root seeds or workers ask for it, and a store that cannot be trusted or written costs
a run nothing but time."""

from __future__ import annotations

import json
import logging
import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from paper_checks.cli import main
from paper_checks.context import Context
from paper_checks.results import comparable
from paper_checks.runner import run_claims
from paper_checks.task_store import StoredExecutor, TaskStore
from sims._jsonio import to_jsonable
from sims.sweep import ProcessExecutor, SerialExecutor
from tests.paper_checks.test_caches import _claim
from tests.paper_checks.test_cli import one_line_error
from tests.paper_checks.test_concurrency import CALLS


def _run(tmp_path, out: str, *, seed: int = 3, replicates: int = 1, executor=None):
    """The test claim (a sweep of 4 tasks, each appending its index to CALLS) run into
    ``tmp_path/out`` with the store ``tmp_path/store``; (its result, the executor)."""
    CALLS.clear()
    stored = StoredExecutor(executor or SerialExecutor(), TaskStore(tmp_path / "store"))
    ctx = Context(seed=seed, out_dir=tmp_path / out, executor=stored)
    try:
        return run_claims([_claim()], ctx, replicates)[0], stored
    finally:
        stored.close()


def _stored(tmp_path):
    return sorted((tmp_path / "store").glob("*/*.json"))


def test_a_run_in_another_directory_takes_every_task_from_the_store(tmp_path):
    first, _ = _run(tmp_path, "a")
    assert sorted(CALLS) == [0, 1, 2, 3]
    assert len(_stored(tmp_path)) == 4
    again, stored = _run(tmp_path, "b")
    assert CALLS == []  # nothing computed
    assert stored.served == 4
    assert again.provenance["tasks_from_store"] == 4
    assert "tasks_from_store" not in first.provenance
    assert comparable(again.to_json()) == comparable(first.to_json())


def test_more_root_seeds_compute_only_the_new_ones(tmp_path):
    _run(tmp_path, "a", replicates=1)
    two, stored = _run(tmp_path, "b", replicates=2)
    assert sorted(CALLS) == [0, 1, 2, 3]  # the second root seed's sweep only
    assert stored.served == 4
    alone, _ = _run(tmp_path / "alone", "c", replicates=2)  # no store shared: all computed
    assert len(CALLS) == 8
    assert comparable(two.to_json()) == comparable(alone.to_json())
    assert two.replication["n"] == 2


def test_another_seed_or_other_code_is_not_served(tmp_path, monkeypatch):
    _run(tmp_path, "a", seed=3)
    _run(tmp_path, "b", seed=4)
    assert sorted(CALLS) == [0, 1, 2, 3]
    import sims._fingerprint

    monkeypatch.setattr(sims._fingerprint, "code_fingerprint", lambda fn, **kw: "edited")
    _run(tmp_path, "c", seed=3)
    assert sorted(CALLS) == [0, 1, 2, 3]  # the task function's code changed: its key did too


def test_a_function_whose_source_cannot_be_read_is_neither_kept_nor_served(tmp_path):
    from sims.sweep import run_sweep

    calls = []

    def typed_in_a_notebook(params, rng):
        calls.append(params["i"])
        return {"value": float(rng.random())}

    typed_in_a_notebook.__module__ = "not_a_module_on_disk"  # as one defined interactively
    stored = StoredExecutor(SerialExecutor(), TaskStore(tmp_path / "store"))
    for _ in range(2):
        run_sweep(typed_in_a_notebook, [{"i": 0}, {"i": 1}], executor=stored)
    assert calls == [0, 1, 0, 1]  # its edits could not be seen: computed every time
    assert stored.served == 0
    assert _stored(tmp_path) == []


def test_process_workers_share_the_store(tmp_path):
    first, _ = _run(tmp_path, "a", executor=ProcessExecutor(2))
    again, stored = _run(tmp_path, "b")
    assert stored.served == 4
    assert comparable(again.to_json()) == comparable(first.to_json())


def _another_task(path):
    record = json.loads(path.read_text())
    record["task"]["params"] = {"i": 99}
    path.write_text(json.dumps(record))


CORRUPTIONS = {
    "truncated": lambda p, other: p.write_text(p.read_text()[:9]),
    "not json": lambda p, other: p.write_bytes(b"\xff\xfe garbage"),
    "a list": lambda p, other: p.write_text("[1, 2]"),
    "no result": lambda p, other: p.write_text(json.dumps({"task": {}})),
    "another task": lambda p, other: _another_task(p),
    "another task's file": lambda p, other: p.write_bytes(other.read_bytes()),
    "deep": lambda p, other: p.write_text("[" * 5000 + "]" * 5000),
    "a directory": lambda p, other: (p.unlink(), p.mkdir()),
    "a FIFO": lambda p, other: (p.unlink(), os.mkfifo(p)),
    "a link": lambda p, other: (p.unlink(), p.symlink_to(other)),
}


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_a_stored_task_that_cannot_be_trusted_is_computed_again(tmp_path, how, caplog):
    first, _ = _run(tmp_path, "a")
    bad, other = _stored(tmp_path)[:2]
    kept = other.read_bytes()
    CORRUPTIONS[how](bad, other)
    with caplog.at_level(logging.WARNING, logger="paper_checks.task_store"):
        again, stored = _run(tmp_path, "b")
    assert len(CALLS) == 1  # that task only
    assert stored.served == 3
    assert comparable(again.to_json()) == comparable(first.to_json())
    assert any(str(bad) in r.getMessage() for r in caplog.records)
    assert other.read_bytes() == kept  # a link is never written through
    if bad.is_file() and not bad.is_symlink():  # rewritten whole: served to the next run
        _, third = _run(tmp_path, "c")
        assert third.served == 4


def test_a_linked_folder_in_the_store_is_neither_read_nor_written(tmp_path, caplog):
    _run(tmp_path, "a")
    folder = _stored(tmp_path)[0].parent
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    with caplog.at_level(logging.WARNING, logger="paper_checks.task_store"):
        _run(tmp_path, "b")
    assert len(CALLS) == len(before)  # computed, not read through the link
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before  # nor written
    warned = [r.getMessage() for r in caplog.records]
    assert any(str(folder) in m and "not used" in m for m in warned)
    assert any(str(folder) in m and "not kept" in m for m in warned)


def test_a_store_that_cannot_be_written_costs_the_run_nothing(tmp_path, caplog):
    (tmp_path / "store").write_text("not a folder")
    with caplog.at_level(logging.WARNING, logger="paper_checks.task_store"):
        result, stored = _run(tmp_path, "a")
    assert sorted(CALLS) == [0, 1, 2, 3]
    assert result.verdict.value in ("PASS", "FAIL")
    assert stored.served == 0
    assert stored.unkept == 4
    warned = [r for r in caplog.records if "not kept" in r.getMessage()]
    assert len(warned) == 1  # said once, not once per task


@pytest.mark.parametrize("where", ["--store", "env"])
def test_a_store_path_that_is_a_file_is_refused_in_one_line(tmp_path, monkeypatch, capsys, where):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("x")
    argv = ["run", "rlvr.tilt_never_crosses", "--out", "r"]
    if where == "env":
        monkeypatch.setenv("PAPER_CHECKS_STORE", "file")
    else:
        argv += ["--store", "file"]
    assert main(argv) == 2
    line = one_line_error(capsys.readouterr())
    assert ("$PAPER_CHECKS_STORE" if where == "env" else "--store") in line
    assert not (tmp_path / "r").exists()


def test_the_command_line_store_serves_a_second_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PAPER_CHECKS_STORE", "tasks")
    claim_id = "rlvr.estimator_unbiased"  # a quick claim with a sweep
    assert main(["run", claim_id, "--out", "a", "--fail-on", "never"]) == 0
    kept = len(list((tmp_path / "tasks").glob("*/*.json")))
    assert kept > 0
    capsys.readouterr()
    assert main(["run", claim_id, "--out", "b", "--fail-on", "never"]) == 0
    assert f"{kept} sweep task(s) taken from it" in capsys.readouterr().out
    first, again = (json.loads((tmp_path / d / "results.json").read_text()) for d in "ab")
    assert [comparable(c) for c in again["claims"]] == [comparable(c) for c in first["claims"]]


_values = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.booleans(),
    st.none(),
)
_params = st.dictionaries(st.text(max_size=6), st.one_of(_values, st.lists(_values, max_size=4)))
_seeds = st.builds(
    lambda entropy, key: np.random.SeedSequence(entropy, spawn_key=key),
    st.one_of(st.integers(0, 2**128), st.lists(st.integers(0, 2**32), min_size=1, max_size=4)),
    st.lists(st.integers(0, 2**20), max_size=3).map(tuple),
)


@given(params=_params, seed=_seeds, other=_params, result=_params)
def test_a_task_kept_is_served_to_that_task_only(tmp_path_factory, params, seed, other, result):
    from tests.paper_checks.test_concurrency import _task

    store = TaskStore(tmp_path_factory.mktemp("store"))
    task = store.describe(_task, params, seed)
    assert store.get(task) is None
    store.put(task, result)
    assert store.get(store.describe(_task, params, seed)) == to_jsonable(result)  # as run_sweep's
    if other != params:
        assert store.get(store.describe(_task, other, seed)) is None
    child = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 0))
    assert store.get(store.describe(_task, params, child)) is None


# ------------------------------------------------------------------- what a store holds, pruned
def _kept_histograms(root) -> list:
    """Two tasks of a function of this project (sims.passk_sampling), kept in the store ``root``;
    their files."""
    from sims.passk_sampling import count_histogram_task
    from sims.sweep import param_grid, run_sweep

    stored = StoredExecutor(SerialExecutor(), TaskStore(root))
    run_sweep(
        count_histogram_task, param_grid(p=[[0.5]], n=[2], reps=[10]), n_seeds=2, executor=stored
    )
    return sorted(root.glob("*/*.json"))


def test_a_survey_counts_each_functions_tasks_by_the_code_that_made_them(tmp_path):
    from paper_checks.task_store import survey

    today, other_code = _kept_histograms(tmp_path)
    record = json.loads(other_code.read_text())
    record["task"]["code"] = "0" * 64
    other_code.write_text(json.dumps(record))
    _run(tmp_path, "run")  # the tests' own task function: another package's, not judged
    (today.parent / "notes.txt").write_text("mine")
    table = survey(tmp_path / "store") | survey(tmp_path)
    row = table["sims.passk_sampling.count_histogram_task"]
    assert (row["tasks"], row["today"], row["stale"]) == (2, 1, 1)
    assert table["tests.paper_checks.test_concurrency._task"]["other"] == 4
    assert table["(not a task's file)"]["other"] == 1


def test_prune_removes_what_no_run_can_use_and_nothing_else(tmp_path):
    from paper_checks.task_store import TEMP_AGE_S, prune

    today, other_code = _kept_histograms(tmp_path)
    record = json.loads(other_code.read_text())
    record["task"]["code"] = "0" * 64
    other_code.write_text(json.dumps(record))
    folder = today.parent
    unreadable = folder / ("a" * 64 + ".json")
    unreadable.write_text("{")
    notes = folder / "notes.txt"
    notes.write_text("mine")
    old_temp, new_temp = (folder / f".{'b' * 64}.tmp-1-{k}.json" for k in (1, 2))
    for temp in (old_temp, new_temp):
        temp.write_text("{")
    os.utime(old_temp, (0, 0))
    link = folder / ("c" * 64 + ".json")
    link.symlink_to(notes)
    removed, freed = prune(tmp_path, now=TEMP_AGE_S + 10)
    assert removed == 3
    assert freed > 0
    for gone in (other_code, unreadable, old_temp):
        assert not gone.exists()
    for kept in (today, notes, new_temp):
        assert kept.is_file()
    assert link.is_symlink()
    assert prune(tmp_path, now=TEMP_AGE_S + 10) == (0, 0)


def test_the_store_command_surveys_prunes_and_refuses_what_is_not_a_folder(tmp_path, capsys):
    _kept_histograms(tmp_path)
    assert main(["store", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "sims.passk_sampling.count_histogram_task" in out
    assert main(["store", str(tmp_path), "--prune"]) == 0
    assert capsys.readouterr().out.startswith("removed 0 file(s)")
    for bad in (tmp_path / "missing", _kept_histograms(tmp_path / "again")[0]):
        assert main(["store", str(bad)]) == 2
        assert "STORE" in one_line_error(capsys.readouterr())
