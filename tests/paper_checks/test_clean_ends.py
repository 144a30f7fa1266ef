"""Bounded waits and clean ends, each on the command as a user runs it (a
subprocess) or in-process where a fault is injected:

- SIGTERM or Ctrl-C end a run with one line, exit 143 or 130, and a directory that resumes;
- the solver child of ``solve online --time-limit`` dies with its parent, whatever kills it;
- a time limit shorter than the command's own setup is a clean time-limit answer;
- a full disk ends the run with one line naming the file, keeping what finished;
- a closed, broken or ASCII-only stdout never costs a record;
- a Dask scheduler whose workers are gone ends the run with one line after a bound.

No test asserts a duration: the polling loops below only guard against hanging for ever.
"""

from __future__ import annotations

import errno
import json
import os
import pathlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from paper_checks import cli
from tests.paper_checks.test_cli_fuzz import call

ROOT = Path(__file__).resolve().parents[2]
#: Cheap claims without sweeps (well under a second each at quick scale).
CHEAP = ["faster_rcnn.anchor_count", "faster_rcnn.param_ratio", "faster_rcnn.anchors_exact"]
#: A claim whose sweep takes tens of seconds at quick scale: a run of it is still under way
#: when it is signalled.
LONG = "superposition.strong_inverse_m"
#: Hang guard of the polling loops (never reached when the code is right).
GUARD_S = 300


def _ignore_sigint() -> None:
    """Start the child as a background job of a non-interactive shell starts it: SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def command(*argv: object, sigint_ignored: bool = False, **env: str) -> subprocess.Popen:
    """``python -m paper_checks ARGV`` in a subprocess, stdout and stderr piped."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.Popen(
        [sys.executable, "-m", "paper_checks", *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        preexec_fn=_ignore_sigint if sigint_ignored else None,  # noqa: PLW1509 - one signal call
    )


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + GUARD_S
    while not condition():
        assert time.monotonic() < deadline, f"hang guard: {what}"
        time.sleep(0.1)


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(k) for k in path.read_text().split()] if path.exists() else []


def running(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def assert_one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


# ------------------------------------------------------------------------ signals, resumable
@pytest.mark.parametrize(
    ("sig", "code", "extra", "ignored"),
    [
        (signal.SIGTERM, 143, ["--workers", "2"], False),
        (signal.SIGINT, 130, ["--workers", "2"], False),
        (signal.SIGINT, 130, ["--workers", "1", "--scheduler", "dask"], False),
        # started with SIGINT ignored (`paper-checks run ... &` in a script): it ran to the end
        (signal.SIGINT, 130, ["--workers", "2"], True),
    ],
)
def test_a_signal_ends_a_run_in_one_line_and_the_run_resumes(tmp_path, sig, code, extra, ignored):
    """SIGTERM to a run left its workers computing, and SIGINT to a run waiting on Dask printed
    a 41-line traceback and an ERROR record of the interrupted claim."""
    out = tmp_path / "run"
    proc = command("run", LONG, "--out", out, *extra, sigint_ignored=ignored)
    wait_for(lambda: (out / "sweeps").is_dir() or proc.poll() is not None, "the sweep starts")
    time.sleep(2)  # into the sweep's tasks
    pids = [p for k in children(proc.pid) for p in (k, *children(k))]
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=GUARD_S)
    assert proc.returncode == code, err
    line = assert_one_line(err)
    assert line.startswith(f"paper-checks: stopped by {signal.Signals(sig).name}"), line
    assert "run the same command again to resume" in line
    assert not (out / "results.json").exists()  # not a finished run: the same command resumes
    assert not (out / f"{LONG}.json").exists()  # no ERROR record of the claim cut short
    wait_for(lambda: not any(running(p) for p in pids), "the workers end with the run")


# ------------------------------------------------------------------------ the solver child
@pytest.fixture
def slow_class(tmp_path) -> Path:
    """A class whose exact DP takes tens of seconds (22 random points, 128 hypotheses)."""
    rows = np.random.default_rng(0).integers(0, 2, size=(128, 22))
    path = tmp_path / "slow.txt"
    path.write_text("".join("".join(map(str, r)) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_solver_child_dies_with_its_parent(slow_class, sig):
    """SIGTERM to `solve online --time-limit 100` left the child computing (1.7 GB)."""
    proc = command("solve", "online", "--class", slow_class, "--time-limit", "100")
    spawned = []

    def solver_started() -> bool:
        spawned[:] = [
            k
            for k in children(proc.pid)
            if b"spawn_main" in Path(f"/proc/{k}/cmdline").read_bytes()
        ]
        return bool(spawned) or proc.poll() is not None

    wait_for(solver_started, "the solver child starts")
    assert spawned, proc.communicate()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=GUARD_S)
    if sig == signal.SIGTERM:
        assert proc.returncode == 143, err
        assert err.strip().splitlines()[-1] == "paper-checks: stopped by SIGTERM"
        assert "Traceback" not in err
    wait_for(lambda: not running(spawned[0]), "the solver child dies")


@pytest.mark.parametrize("limit", ["1e-9", "1e-6", "0.001"])
def test_a_time_limit_shorter_than_the_setup_is_a_clean_answer(tmp_path, limit):
    """`solve online --time-limit 1e-9` printed a traceback and died of SIGALRM."""
    path = tmp_path / "c.txt"
    path.write_text("0110\n1010\n0011\n")
    code, out, err = call(["solve", "online", "--class", path, "--time-limit", limit])
    assert "Traceback" not in err
    if code == 0:  # the alarm rang after the class was read: certified bounds, or the answer
        assert "M_tr" in out
    else:
        assert code == 2, err
        assert "--time-limit" in assert_one_line(err)


# ------------------------------------------------------------------------ a full disk
def test_a_full_disk_ends_the_run_naming_the_file_and_keeps_what_finished(tmp_path, monkeypatch):
    """ENOSPC in one claim's sweep aborted the rest with a message naming no file. Now: one
    line naming the task file, the claim that finished kept, the same command resumes."""
    out = tmp_path / "run"
    argv = ["run", "faster_rcnn.anchor_count", "online.mtr_le_ldim", "--out", out]
    # the claim without a sweep first (the runner takes the costliest first)
    monkeypatch.setattr(cli, "_reference_costs", lambda scale: {"faster_rcnn.anchor_count": 1.0})
    real_write_text, writes = pathlib.Path.write_text, []

    def full_after_two_tasks(self, *args, **kwargs):
        if ".task-" in self.name:
            writes.append(self.name)
            if len(writes) > 2:
                real_write_text(self, "{", encoding="utf-8")  # a truncated temporary file
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # os.write's: no file
        return real_write_text(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "write_text", full_after_two_tasks)
    code, _, err = call(argv)
    assert code == 2, err
    line = assert_one_line(err)
    assert "No space left on device" in line, line
    assert "task-000002.json" in line, line  # the file being written, by its name
    assert "run the same command again to resume" in line
    assert (out / "faster_rcnn.anchor_count.json").is_file()  # what finished is kept
    assert not (out / "results.json").exists()
    assert len(list(out.glob("sweeps/online.mtr_le_ldim/**/task-*.json"))) == 2

    monkeypatch.setattr(pathlib.Path, "write_text", real_write_text)  # space freed
    code, _, err = call(argv)
    assert code == 0, err
    claims = json.loads((out / "results.json").read_text())["claims"]
    assert {c["claim_id"] for c in claims} == {"faster_rcnn.anchor_count", "online.mtr_le_ldim"}


def test_a_full_disk_under_a_record_names_the_record(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real_write = os.write

    def full(fd, data):
        if "faster_rcnn.param_ratio" in str(Path(f"/proc/self/fd/{fd}").readlink()):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full)
    code, _, err = call(["run", "faster_rcnn.param_ratio", "--out", out])
    assert code == 2, err
    line = assert_one_line(err)
    assert "faster_rcnn.param_ratio" in line  # its record (or figure), by its name
    assert "No space left on device" in line


# ------------------------------------------------------------------------ the terminal fails
def test_a_closed_pipe_never_costs_a_record(tmp_path):
    """`run A B C --out R | head -1`: "Broken pipe", exit 2, no results.json."""
    out = tmp_path / "run"
    proc = command("run", *CHEAP, "--out", out)
    proc.stdout.close()  # the reader is gone before the first line
    with proc.stderr:
        err = proc.stderr.read()
    proc.wait(timeout=GUARD_S)
    assert proc.returncode == 0, err
    assert "Broken pipe" not in err
    assert "Traceback" not in err
    claims = json.loads((out / "results.json").read_text())["claims"]
    assert sorted(c["claim_id"] for c in claims) == sorted(CHEAP)


def test_a_closed_stdout_never_costs_a_record(tmp_path):
    out = tmp_path / "run"
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "paper_checks", "run", CHEAP[0], "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        pass_fds=(),
        preexec_fn=lambda: os.close(1),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert (out / "results.json").is_file()


def test_an_ascii_stdout_is_escaped_not_fatal(tmp_path):
    """A summary with ×, → or … on a stdout that only takes ASCII."""
    out = tmp_path / "run"
    proc = command("run", CHEAP[0], "--out", out, PYTHONIOENCODING="ascii")
    stdout, err = proc.communicate(timeout=GUARD_S)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "\\xd7" in stdout  # 600×1000, escaped
    assert (out / "results.json").is_file()


# ------------------------------------------------------------------------ bounded Dask waits
def test_a_scheduler_without_workers_ends_the_run_after_the_bound(tmp_path):
    """A Dask worker killed mid-run (scheduler still up): the run waited for ever."""
    pytest.importorskip("distributed")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    scheduler = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_scheduler",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(tmp_path / "s.json"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment,
    )
    worker = None
    try:
        wait_for((tmp_path / "s.json").exists, "the scheduler starts")
        address = json.loads((tmp_path / "s.json").read_text())["address"]
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=environment,
        )
        out = tmp_path / "run"
        proc = command(
            "run", LONG, "--scheduler", address, "--out", out, PAPER_CHECKS_WORKER_WAIT_S="5"
        )
        wait_for(lambda: (out / "sweeps").is_dir() or proc.poll() is not None, "the run starts")
        time.sleep(2)
        worker.kill()
        _, err = proc.communicate(timeout=GUARD_S)
        assert proc.returncode == 2, err
        line = assert_one_line(err)
        assert "--scheduler" in line
        assert "no worker for 5 s" in line
        assert not (out / "results.json").exists()
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.kill()
                process.wait()
