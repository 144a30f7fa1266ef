"""Sweep caches are validated before a run reads them: whatever cannot be read is set aside and
computed again, and the claim keeps its record (paper_checks._caches)."""

from __future__ import annotations

import json
import os

import pytest

from paper_checks._caches import set_aside_unreadable
from paper_checks.claims import Claim
from paper_checks.context import Context
from paper_checks.results import Verdict, comparable
from paper_checks.runner import run_claims
from tests.paper_checks.test_concurrency import CALLS, _shared


def _claim() -> Claim:
    rule = "PASS when the total exceeds 1; FAIL otherwise."
    return Claim("rlvr.test_cached", "rlvr", "s", "tests", _shared, rule, True, "total")


def _tasks(out_dir):
    return sorted(out_dir.glob("sweeps/*/*/*/task-*.json"))


CORRUPTIONS = {
    "truncated": lambda p: p.write_text(p.read_text()[:7]),
    "not json": lambda p: p.write_bytes(b"\xff\xfe garbage"),
    "a list": lambda p: p.write_text("[1, 2]"),
    "no result": lambda p: p.write_text(json.dumps({"index": 2, "params": {}, "seed_index": 0})),
    "another index": lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "index": 3})),
    "deep": lambda p: p.write_text("[" * 5000 + "]" * 5000),
    "a directory": lambda p: (p.unlink(), p.mkdir()),
    "a FIFO": lambda p: (p.unlink(), os.mkfifo(p)),
    "a link": lambda p: (p.unlink(), p.symlink_to(p.parent / "task-000000.json")),
}


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_an_unreadable_task_is_set_aside_and_computed_again(tmp_path, how):
    first = run_claims([_claim()], Context(seed=2, out_dir=tmp_path / "a"))[0]
    task = _tasks(tmp_path / "a")[2]
    CORRUPTIONS[how](task)
    CALLS.clear()
    again = run_claims([_claim()], Context(seed=2, out_dir=tmp_path / "a"))[0]
    assert again.verdict is not Verdict.ERROR
    assert comparable(again.to_json()) == comparable(first.to_json())
    assert CALLS == [2]  # only the unreadable task ran again
    assert task.is_file()
    assert (task.parent / (task.name + ".unreadable")).exists() or (
        task.parent / (task.name + ".unreadable")
    ).is_symlink()


def test_an_unreadable_manifest_sets_the_sweep_aside(tmp_path):
    first = run_claims([_claim()], Context(seed=4, out_dir=tmp_path))[0]
    manifest = _tasks(tmp_path)[0].parent / "sweep.json"
    manifest.write_text('{"fingerprint": 7}')
    notes = set_aside_unreadable(tmp_path)
    assert len(notes) == 1
    assert "sweep.json" in notes[0]
    assert "fingerprint" in notes[0]
    CALLS.clear()
    again = run_claims([_claim()], Context(seed=4, out_dir=tmp_path))[0]
    assert comparable(again.to_json()) == comparable(first.to_json())
    assert sorted(CALLS) == [0, 1, 2, 3]


def test_readable_caches_are_left_alone(tmp_path):
    run_claims([_claim()], Context(seed=1, out_dir=tmp_path), 2)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert set_aside_unreadable(tmp_path) == []
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
