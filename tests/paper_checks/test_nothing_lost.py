"""Nothing is lost and nothing is written outside, each class over more
than its example:

- one guarded layer (:mod:`paper_checks._files`): a link or a special file anywhere under the
  folders a run writes (figures/, replicates/, sweeps/, nested ones) is refused in one line before
  any work; no write below a directory named follows a link (a generated tree with a link planted
  at any depth); ``solve hivemind`` refuses a link in its embedding cache;
- merge and ``run --update`` copy only a claim's own files, keep the records of claims this
  version does not register, and refuse a results.json of a newer schema;
- all or nothing: a merge or an update killed (SIGKILL) at every step of its commit leaves the
  directory old or new, never half, and the next command finishes or undoes it and leaves no
  temporary file;
- several writers (run, run --update, merge, report) on one directory at once, killed at random
  points: every finished record is there and the directory reads cleanly. ``make test`` runs a
  few fixed seeds; ``make fuzz`` (the hypothesis "fuzz" profile) many more.

Writers are forked from the test process (imports done once) and killed with SIGKILL.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sys
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from paper_checks import _files
from paper_checks.results import LOCK_NAME, RUN_FOLDERS, check_run_dir, read_results_payload
from tests.paper_checks.test_io_fuzz import call, exit_2, make_run, snapshot, workdir

FUZZING = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
#: Claims whose quick check takes about a second: what the writers run.
CHEAP = ["faster_rcnn.anchor_count", "hivemind.entropy_values", "online.bound_constants"]
HIVEMIND_GENS = Path(__file__).resolve().parents[1] / "data" / "hivemind" / "gens.jsonl"
TEMPORARY = re.compile(r"\..+\.(?:tmp|old)-.+")


def leftovers(run: Path) -> list[str]:
    """Temporary files, a journal or a lock left anywhere under ``run``."""
    return [
        os.fspath(p.relative_to(run))
        for p in run.rglob("*")
        if TEMPORARY.fullmatch(p.name) or p.name in (_files.JOURNAL, LOCK_NAME)
    ]


def assert_readable(run: Path) -> dict:
    """``report`` (which finishes what a killed writer left) and ``list`` work on ``run``, its
    results.json validates, nothing temporary is left, and every claim's ``<claim>.json`` is the
    record results.json holds (no claim half-written). Returns the payload."""
    code, _, err = call(["report", run])
    assert code == 0, err
    code, _, err = call(["list", "--results", run])
    assert code == 0, err
    assert "warning" not in err, err
    payload = read_results_payload(run)
    assert leftovers(run) == []
    for record in payload["claims"]:
        path = run / f"{record['claim_id']}.json"
        assert json.loads(path.read_text()) == record, record["claim_id"]
        if record["arrays"]:
            assert (run / record["arrays"]).is_file()
    return payload


def marked_run(run: Path, claims: list[str], mark: str) -> Path:
    """A finished run of ``claims`` whose records' summaries say ``mark``."""
    make_run(run, claims)
    payload = json.loads((run / "results.json").read_text())
    for record in payload["claims"]:
        record["summary"] = mark
        (run / f"{record['claim_id']}.json").write_text(json.dumps(record))
    (run / "results.json").write_text(json.dumps(payload))
    return run


# ------------------------------------------------------------- links inside the run directory
def plant(run: Path, where: str, kind: str, elsewhere: Path) -> None:
    """A symlink out of the run, or a FIFO, at ``run/where`` (its parent folders made)."""
    path = run / where
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link":
        path.symlink_to(elsewhere, target_is_directory=True)
    else:
        os.mkfifo(path)


PLACES = [
    "replicates",
    "replicates/r1",
    "replicates/r1/sweeps",
    "replicates/r1/figures",
    "figures",
    "figures/online.mtr_le_ldim.png",
    "sweeps",
    "sweeps/online.mtr_le_ldim",
    "sweeps/online.mtr_le_ldim/pairs",
    ".update",
]


@pytest.mark.parametrize("kind", ["link", "fifo"])
@pytest.mark.parametrize("where", PLACES)
def test_a_link_or_fifo_where_a_run_writes_is_refused_before_any_work(tmp_path, where, kind):
    """The hostile round's examples (`RUN/replicates` and `RUN/figures` links with `run
    online.mtr_le_ldim --replicates 2`), and the same at every folder a run writes under."""
    run, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    run.mkdir()
    elsewhere.mkdir()
    plant(run, where, kind, elsewhere)
    before = snapshot(run)
    line = exit_2(["run", "online.mtr_le_ldim", "--replicates", "2", "--out", run])
    assert where.split("/")[-1] in line or where.split("/")[0] in line
    assert re.search("symlink" if kind == "link" else "not a regular file|not a directory", line)
    assert list(elsewhere.iterdir()) == []
    assert snapshot(run) == before  # refused before any work: not even a lock left


@settings(
    deadline=None,
    max_examples=settings.default.max_examples if FUZZING else 60,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    folder=st.sampled_from(RUN_FOLDERS),
    below=st.lists(st.sampled_from(["r1", "a.b", "task-000001.json", "x"]), max_size=4),
    kind=st.sampled_from(["link", "fifo", "dangling"]),
    set_aside=st.booleans(),
)
def test_check_run_dir_finds_a_link_or_fifo_at_any_depth(folder, below, kind, set_aside):
    """Whatever folder of a run and however deep: a link (to a folder, or dangling) or a FIFO
    there is refused naming it, unless the sweep-cache check already set it aside as
    unreadable (then it is never read or written)."""
    with workdir() as tmp:
        run, elsewhere = tmp / "run", tmp / "elsewhere"
        elsewhere.mkdir()
        path = run.joinpath(folder, *below)
        if set_aside:
            path = path.with_name(path.name + ".unreadable")
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "fine.json").write_text("{}")
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to(elsewhere if kind == "link" else tmp / "nothing")
        if set_aside:
            check_run_dir(run)
            return
        with pytest.raises(ValueError, match=r"symlink|not a regular file|not a directory") as info:
            check_run_dir(run)
        assert repr(os.fspath(path)) in str(info.value)
        assert "\n" not in str(info.value)


def test_the_runner_itself_refuses_a_linked_sweep_folder(tmp_path):
    """``run_claims`` (the API under the CLI) refuses as well, before any check runs."""
    from paper_checks.claims import select_claims
    from paper_checks.context import Context
    from paper_checks.runner import run_claims

    run, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    elsewhere.mkdir()
    plant(run, "sweeps/faster_rcnn.anchor_count", "link", elsewhere)
    with pytest.raises(ValueError, match="symlink"):
        run_claims(select_claims(["faster_rcnn.anchor_count"]), Context(out_dir=run))
    assert list(elsewhere.iterdir()) == []
    assert not (run / "faster_rcnn.anchor_count.json").exists()


@settings(
    deadline=None,
    max_examples=settings.default.max_examples if FUZZING else 60,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    parts=st.lists(st.sampled_from(["a", "b", "figures", "r1"]), min_size=1, max_size=4),
    at=st.integers(0, 3),
    target_is_file=st.booleans(),
)
@example(parts=["replicates", "r1"], at=0, target_is_file=False)
def test_no_write_below_the_root_follows_a_link(parts, at, target_is_file):
    """A link planted at any folder between the directory named and a file written under it:
    the write is refused in one line naming the link, and nothing outside changes; without a
    link the write lands inside, through real folders only."""
    with workdir() as tmp:
        root, elsewhere = tmp / "root", tmp / "elsewhere"
        root.mkdir()
        elsewhere.mkdir()
        (elsewhere / "file.json").write_text("outside")
        link_at = min(at, len(parts) - 1)
        folder = root.joinpath(*parts[:link_at])
        folder.mkdir(parents=True, exist_ok=True)
        linked = folder / parts[link_at]
        linked.symlink_to(elsewhere / "file.json" if target_is_file else elsewhere)
        outside = snapshot(elsewhere)
        for write in (
            lambda: _files.write_text(root.joinpath(*parts, "file.json"), "x", root),
            lambda: _files.make_dirs(root.joinpath(*parts, "deeper"), root),
            lambda: _files.Transaction(root).stage_json(root.joinpath(*parts, "file.json"), {}),
        ):
            with pytest.raises(ValueError, match=r"symlink|not a directory|outside") as info:
                write()
            assert "\n" not in str(info.value)
            assert snapshot(elsewhere) == outside
        linked.unlink()
        path = _files.write_text(root.joinpath(*parts, "file.json"), "x", root)
        assert path.read_text() == "x"
        assert not any(p.is_symlink() for p in root.rglob("*"))


@pytest.mark.parametrize("name", ["hash-1024-bigrams.npz", "hash-1024-bigrams.tmp.npz", "sub"])
@pytest.mark.parametrize("default_cache", [True, False])
def test_hivemind_refuses_a_link_in_its_embedding_cache(tmp_path, name, default_cache):
    """The hostile round's example: `solve hivemind` wrote through a link planted in its cache."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    cache = out / "embedding-cache" if default_cache else tmp_path / "cache"
    cache.mkdir(parents=True)
    elsewhere.mkdir()
    (cache / name).symlink_to(elsewhere / name)
    argv = ["solve", "hivemind", "--gens", HIVEMIND_GENS, "--out", out, "--n-boot", "10"]
    line = exit_2(argv if default_cache else [*argv, "--cache", cache])
    assert name in line
    assert "symlink" in line
    assert list(elsewhere.iterdir()) == []


def test_a_linked_default_cache_folder_is_refused(tmp_path):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "embedding-cache").symlink_to(elsewhere)
    line = exit_2(["solve", "hivemind", "--gens", HIVEMIND_GENS, "--out", out, "--n-boot", "10"])
    assert "embedding-cache" in line
    assert list(elsewhere.iterdir()) == []


# ----------------------------------------------------------------- merge and --update clobber
OTHERS = ["notes.txt", f"{CHEAP[1]}.json", f"figures/{CHEAP[1]}.png", "figures/x.png", "a.npz"]


@pytest.mark.parametrize("name", OTHERS)
def test_merge_copies_only_a_claims_own_files(tmp_path, name):
    """The hostile round's example: a SRC record whose figures name `notes.txt` replaced DST's own."""
    src, dst = make_run(tmp_path / "src", CHEAP[:1]), make_run(tmp_path / "dst", CHEAP[:2])
    (src / name).parent.mkdir(parents=True, exist_ok=True)
    (src / name).write_text("from src")
    (dst / name).parent.mkdir(parents=True, exist_ok=True)
    (dst / name).write_text("DST's own")
    payload = json.loads((src / "results.json").read_text())
    payload["claims"][0]["figures"] = [name]
    (src / "results.json").write_text(json.dumps(payload))
    (src / f"{CHEAP[0]}.json").write_text(json.dumps(payload["claims"][0]))
    before = snapshot(dst)
    line = exit_2(["merge", src, dst])
    assert repr(name) in line
    assert CHEAP[0] in line
    assert snapshot(dst) == before


def test_merge_copies_a_claims_own_figures(tmp_path):
    src, dst = make_run(tmp_path / "src", CHEAP[:1]), make_run(tmp_path / "dst", CHEAP[:2])
    names = [f"figures/{CHEAP[0]}.png", f"figures/{CHEAP[0]}.part.pdf"]
    payload = json.loads((src / "results.json").read_text())
    payload["claims"][0]["figures"] = names
    (src / "figures").mkdir()
    for name in names:
        (src / name).write_text(name)
    (src / "results.json").write_text(json.dumps(payload))
    (src / f"{CHEAP[0]}.json").write_text(json.dumps(payload["claims"][0]))
    code, _, err = call(["merge", src, dst])
    assert code == 0, err
    assert [(dst / name).read_text() for name in names] == names


def _set_record(run: Path, change: dict) -> None:
    """Apply ``change`` (keys of a record, ``provenance`` merged) to the first record of
    ``run``, in results.json and in its own ``<claim>.json``."""
    payload = json.loads((run / "results.json").read_text())
    record = payload["claims"][0]
    provenance = {**record.get("provenance", {}), **change.pop("provenance", {})}
    record.update(change, provenance=provenance)
    (run / "results.json").write_text(json.dumps(payload))
    (run / f"{record['claim_id']}.json").write_text(json.dumps(record))


@pytest.mark.parametrize("what", ["record", "results.json"])
def test_merge_refuses_a_src_file_that_is_a_link(tmp_path, what):
    """The hostile round's example: a SRC record linked to a file outside became DST's record."""
    src, dst = make_run(tmp_path / "src", CHEAP[:1]), make_run(tmp_path / "dst", CHEAP[:2])
    name = f"{CHEAP[0]}.json" if what == "record" else "results.json"
    outside = tmp_path / "outside.json"
    outside.write_bytes((src / name).read_bytes())
    (src / name).unlink()
    (src / name).symlink_to(outside)
    before = snapshot(dst)
    line = exit_2(["merge", src, dst])
    assert "SRC_RUN" in line
    assert "link" in line
    assert name in line
    assert snapshot(dst) == before


@pytest.mark.parametrize("content", [b"not an archive", None])
def test_merge_refuses_arrays_that_are_no_npz_or_too_large(tmp_path, content):
    src, dst = make_run(tmp_path / "src", CHEAP[:1]), make_run(tmp_path / "dst", CHEAP[:2])
    arrays = src / f"{CHEAP[0]}.npz"
    if content is None:  # a sparse file over the input limit, with an archive's first bytes
        arrays.write_bytes(b"PK\x03\x04")
        os.truncate(arrays, 300 * 2**20)
    else:
        arrays.write_bytes(content)
    before = snapshot(dst)
    line = exit_2(["merge", src, dst])
    assert "SRC_RUN" in line
    assert ".npz" in line
    assert snapshot(dst) == before


@pytest.mark.parametrize(("key", "value"), [("scale", "full"), ("seed", 5)])
def test_merge_refuses_a_src_record_made_at_another_scale_or_seed(tmp_path, key, value):
    src, dst = make_run(tmp_path / "src", CHEAP[:1]), make_run(tmp_path / "dst", CHEAP[:2])
    _set_record(src, {"provenance": {key: value}})
    before = snapshot(dst)
    line = exit_2(["merge", src, dst])
    assert key in line
    assert CHEAP[0] in line
    assert snapshot(dst) == before


def test_merge_refuses_to_overwrite_newer_records_and_adds_one_update_per_src(tmp_path):
    """The hostile round's example: an older SRC silently replaced DST's newer record."""
    src = make_run(tmp_path / "src", CHEAP[:1], created="2026-01-01T00:00:00+00:00")
    dst = make_run(tmp_path / "dst", CHEAP[:2], created="2027-06-01T00:00:00+00:00")
    before = snapshot(dst)
    line = exit_2(["merge", src, dst])
    assert "newer" in line
    assert CHEAP[0] in line
    assert "2027-06-01" in line
    assert snapshot(dst) == before
    again = make_run(tmp_path / "again", CHEAP[:1], created="2027-07-01T00:00:00+00:00")
    for _ in range(2):
        code, _, err = call(["merge", again, dst])
        assert code == 0, err
    updates = assert_readable(dst)["run"]["updates"]
    assert [u["merged_from"] for u in updates] == ["again"]
    line = exit_2(["merge", src, dst])  # DST's record of CHEAP[0] is now July's
    assert "2027-07-01" in line


UNKNOWN = "online.a_claim_of_another_version"


def _with_unknown_claim(run: Path) -> dict:
    """Add to ``run`` the record of a claim this version does not register; return it."""
    payload = json.loads((run / "results.json").read_text())
    record = {**payload["claims"][0], "claim_id": UNKNOWN, "summary": "from another version"}
    payload["claims"].append(record)
    (run / "results.json").write_text(json.dumps(payload))
    (run / f"{UNKNOWN}.json").write_text(json.dumps(record))
    return record


def test_update_keeps_the_record_of_a_claim_not_registered(tmp_path):
    """The hostile round's example: `run --update` silently dropped such a record."""
    run = make_run(tmp_path / "run", CHEAP[:2])
    unknown = _with_unknown_claim(run)
    code, _, err = call(["run", CHEAP[0], "--update", "--out", run, "--fail-on", "never"])
    assert code == 0, err
    payload = assert_readable(run)
    assert unknown in payload["claims"]
    assert [r["claim_id"] for r in payload["claims"]][-1] == UNKNOWN
    assert {r["claim_id"] for r in payload["claims"]} == {*CHEAP[:2], UNKNOWN}
    (updated,) = (r for r in payload["claims"] if r["claim_id"] == CHEAP[0])
    assert updated["provenance"]["code"]  # the update's own record
    assert not (run / ".update").exists()


def test_merge_keeps_the_record_of_a_claim_not_registered(tmp_path):
    src, dst = make_run(tmp_path / "src", CHEAP[1:2]), make_run(tmp_path / "dst", CHEAP[:1])
    unknown = _with_unknown_claim(dst)
    code, _, err = call(["merge", src, dst])
    assert code == 0, err
    payload = assert_readable(dst)
    assert unknown in payload["claims"]
    assert {r["claim_id"] for r in payload["claims"]} == {*CHEAP[:2], UNKNOWN}


@pytest.mark.parametrize("schema", [3, 99, 10**30])
@pytest.mark.parametrize("where", ["report", "merge-src", "merge-dst", "update"])
def test_a_newer_schema_is_refused_in_one_line(tmp_path, schema, where):
    run = make_run(tmp_path / "run", CHEAP[:1])
    other = make_run(tmp_path / "other", CHEAP[:1])
    payload = json.loads((run / "results.json").read_text())
    (run / "results.json").write_text(json.dumps({**payload, "schema": schema}))
    before = snapshot(run), snapshot(other)
    argv = {
        "report": ["report", run],
        "merge-src": ["merge", run, other],
        "merge-dst": ["merge", other, run],
        "update": ["run", CHEAP[0], "--update", "--out", run],
    }[where]
    line = exit_2(argv)
    assert f"schema {schema}" in line
    assert "newer" in line
    assert (snapshot(run), snapshot(other)) == before


@pytest.mark.parametrize("schema", [0, -1, "2", True, None, 1.5])
def test_a_schema_that_is_not_a_version_is_refused(tmp_path, schema):
    run = make_run(tmp_path / "run", CHEAP[:1])
    payload = json.loads((run / "results.json").read_text())
    (run / "results.json").write_text(json.dumps({**payload, "schema": schema}))
    assert "schema" in exit_2(["report", run])


# --------------------------------------------------------------- killed at every commit step
def fork_writer(argv: list, log: Path, setup=None, wait_busy: bool = False) -> int:
    """Fork a process that runs ``main(argv)`` (stdout and stderr to ``log``) and exits with its
    code; ``setup()`` runs first in the child. With ``wait_busy`` it tries again, up to 200
    times, while the directory is in use by another writer. Returns the child's PID."""
    with warnings.catch_warnings():  # (3.12 warns of fork in a threaded process; the child
        warnings.simplefilter("ignore", DeprecationWarning)  # only runs main and exits)
        pid = os.fork()
    if pid:
        return pid
    code = 99
    try:
        with Path(log).open("w", encoding="utf-8") as out:
            sys.stdout = sys.stderr = out
            if setup is not None:
                setup()
            from paper_checks.cli import main

            for _ in range(200 if wait_busy else 1):
                start = out.tell()
                code = main([str(a) for a in argv])
                out.flush()
                if code != 2 or "is in use by" not in Path(log).read_text()[start:]:
                    break
                time.sleep(0.02)
    finally:
        os._exit(code)


def _kill_at(step: int, after: bool) -> None:
    """In a writer: SIGKILL itself at its ``step``-th publish into the run directory (a rename
    into place: the commit's journal, each file, the reports), before or ``after`` it."""
    real = _files._publish
    count = iter(range(1, 1000))

    def publish(tmp, path, root):
        if ".update" in Path(path).parts:  # the checks' own files, in the staging folder
            return real(tmp, path, root)
        n = next(count)
        if n == step and not after:
            os.kill(os.getpid(), signal.SIGKILL)
        done = real(tmp, path, root)
        if n == step:
            os.kill(os.getpid(), signal.SIGKILL)
        return done

    _files._publish = publish


def _records(run: Path) -> dict:
    """What a commit changes: results.json, every claim's record, arrays and figures."""
    return {
        k: v
        for k, v in snapshot(run).items()
        if not k.startswith(("report.", "sweeps", "replicates", ".update"))
    }


STEPS = [(step, after) for step in range(1, 8) for after in (False, True)]


@pytest.mark.parametrize(("step", "after"), STEPS)
def test_a_merge_killed_at_any_step_is_old_or_new(tmp_path, step, after):
    """The hostile round's example: SIGKILL during a merge's commit left DST half-merged with temp files
    for good. Here: killed at each publish of the commit; the next command completes or undoes
    it: DST's records are then exactly the old ones or exactly an uninterrupted merge's."""
    src = marked_run(tmp_path / "src", CHEAP, "from src")
    dst = make_run(tmp_path / "dst", CHEAP[:2])
    reference = make_run(tmp_path / "reference" / "dst", CHEAP[:2])  # the same run id
    assert call(["merge", src, reference])[0] == 0
    old, new = _records(dst), _records(reference)
    pid = fork_writer(["merge", src, dst], tmp_path / "log", lambda: _kill_at(step, after))
    _, status = os.waitpid(pid, 0)
    killed = os.WIFSIGNALED(status)
    assert killed or os.WEXITSTATUS(status) == 0, (tmp_path / "log").read_text()
    assert_readable(dst)
    now = _records(dst)
    assert now in (old, new), {k for k in {*now, *new} if now.get(k) != new.get(k)}
    if not after and step == 1:
        assert _records(dst) == old  # killed before its journal: nothing happened


@pytest.mark.parametrize(("step", "after"), STEPS)
def test_an_update_killed_at_any_step_is_old_or_new(tmp_path, step, after):
    """The hostile round's example: SIGKILL during `run --update` left the claim's files new and
    results.json old. Here: killed at each publish of its commit (the checks ran in the
    staging folder, outside the run's files)."""
    run = make_run(tmp_path / "run", CHEAP[:2])
    old = _records(run)
    argv = ["run", CHEAP[0], "--update", "--out", run, "--fail-on", "never"]
    pid = fork_writer(argv, tmp_path / "log", lambda: _kill_at(step, after))
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) or os.WEXITSTATUS(status) == 0, (tmp_path / "log").read_text()
    payload = assert_readable(run)
    updates = payload["run"].get("updates", [])
    if _records(run) != old:  # new: the whole update, results.json included
        assert [u["claims"] for u in updates] == [[CHEAP[0]]]
        (record,) = (r for r in payload["claims"] if r["claim_id"] == CHEAP[0])
        assert record["provenance"]["code"]
        assert (run / record["arrays"]).is_file()
        assert all((run / name).is_file() for name in record["figures"])
    else:
        assert updates == []
    if not after and step == 1:
        assert _records(run) == old


def test_a_killed_update_resumes_from_its_staging_folder(tmp_path):
    """An update killed while its checks run leaves the run's files as they were; the staging
    folder keeps its sweeps for the next `--update`, which commits and removes it."""
    run = make_run(tmp_path / "run", CHEAP[:2])
    old = _records(run)
    argv = ["run", CHEAP[0], "--update", "--out", run, "--fail-on", "never"]
    pid = fork_writer(argv, tmp_path / "log", lambda: _kill_at(1, False))
    os.waitpid(pid, 0)
    assert call(["report", run])[0] == 0  # the next command: the killed commit is undone
    assert (run / ".update").is_dir()
    assert _records(run) == old
    code, _, err = call(argv)
    assert code == 0, err
    assert not (run / ".update").exists()
    assert assert_readable(run)["run"]["updates"][0]["claims"] == [CHEAP[0]]


# ------------------------------------------------------------------ many writers, random kills
def _writers(tmp: Path, rng: random.Random, round_: int) -> list[tuple[list, dict]]:
    """One round's writers on ``tmp/run``: each (argv, what it commits when it exits 0)."""
    run = tmp / "run"
    out = []
    for k, claim_id in enumerate(rng.sample(CHEAP, 2)):
        replicates = 10 * round_ + k + 1  # names this launch in its `updates` entry
        argv = ["run", claim_id, "--update", "--out", run, "--replicates", replicates]
        out.append(
            ([*argv, "--fail-on", "never"], {"claims": [claim_id], "replicates": replicates})
        )
    src = marked_run(tmp / f"src{round_}", rng.sample(CHEAP, 2), f"src{round_}")
    out.append((["merge", src, run], {"merged_from": src.name}))
    out.append((["report", run], {}))
    out.append((["run", CHEAP[0], "--out", run], {}))  # a finished run: refused
    rng.shuffle(out)
    return out


def _matches(entry: dict, commits: dict) -> bool:
    return bool(commits) and all(entry.get(k) == v for k, v in commits.items())


def check_many_writers(seed: int, rounds: int) -> None:
    rng = random.Random(seed)
    with workdir() as tmp:
        run = make_run(tmp / "run", CHEAP)
        first = {r["claim_id"] for r in read_results_payload(run)["claims"]}
        launched, finished = [], []
        for round_ in range(rounds):
            pids = {}
            for i, (argv, commits) in enumerate(_writers(tmp, rng, round_)):
                time.sleep(rng.uniform(0, 0.3))
                pid = fork_writer(argv, tmp / f"log{round_}-{i}", wait_busy=True)
                kill_at = time.monotonic() + rng.uniform(0, 2) if rng.random() < 0.6 else None
                pids[pid] = (argv, commits, kill_at)
                launched.append(commits)
            while pids:
                for pid, (argv, commits, kill_at) in list(pids.items()):
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done:
                        del pids[pid]
                        if os.WIFEXITED(status):
                            assert os.WEXITSTATUS(status) in (0, 2), (argv, status)
                            if os.WEXITSTATUS(status) == 0:
                                finished.append(commits)
                    elif kill_at is not None and time.monotonic() > kill_at:
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.01)
        payload = assert_readable(run)
        ids = {r["claim_id"] for r in payload["claims"]}
        assert first <= ids  # no record dropped
        updates = payload["run"].get("updates", [])
        for commits in finished:  # every finished writer's commit is there, once
            assert sum(_matches(u, commits) for u in updates) == bool(commits), commits
        for entry in updates:  # and nothing else
            assert sum(_matches(entry, c) for c in launched) == 1, entry
        latest = {}  # the last commit touching each claim decides its record
        for entry in updates:
            for claim_id in entry["claims"]:
                latest[claim_id] = entry.get("merged_from")
        for record in payload["claims"]:
            source = latest.get(record["claim_id"])
            if source is not None:
                assert record["summary"] == source
            elif record["claim_id"] in latest:
                assert record["provenance"]["code"]


@settings(
    deadline=None,
    max_examples=min(settings.default.max_examples, 25),
    phases=tuple(Phase) if FUZZING else (Phase.explicit,),
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1))
@example(seed=0)
def test_many_writers_killed_at_random_lose_nothing(seed):
    """Five writers at once on one run directory (two updates, a merge, a report, a run into
    the finished directory), each waiting its turn at the lock and most killed at a random
    moment. ``make test``: one round under the fixed seed; ``make fuzz``: 25 fresh seeds of
    three rounds each."""
    check_many_writers(seed, rounds=3 if FUZZING else 1)


@pytest.mark.parametrize(
    "journal",
    [
        '{"moves": [["../outside.tmp-1-1", "results.json", null]]}',
        '{"moves": [["results.json", "x.json", null]]}',  # not a staged file's name
        '{"moves": [[".a.tmp-1-1.json", "/etc/passwd", null]]}',
        "not json",
        "[]",
    ],
)
def test_a_journal_paper_checks_did_not_write_is_refused(tmp_path, journal):
    """A planted journal moves nothing: the next writer refuses it in one line naming it."""
    run = make_run(tmp_path / "run", CHEAP[:1])
    (run / _files.JOURNAL).write_text(journal)
    before = snapshot(run)
    assert _files.JOURNAL in exit_2(["report", run])
    assert snapshot(run) == before


def test_a_commit_waits_for_a_pending_journal_to_be_recovered(tmp_path):
    run = make_run(tmp_path / "run", CHEAP[:1])
    (run / _files.JOURNAL).write_text('{"moves": []}')
    with _files.Transaction(run) as transaction:
        transaction.stage_json(run / "x.json", {})
        with pytest.raises(ValueError, match="pending"):
            transaction.commit()
    assert not (run / "x.json").exists()
    assert _files.recover(run) == [f"completed the interrupted commit of 0 file(s) in {run}"]
    assert leftovers(run) == []
