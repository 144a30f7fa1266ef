"""Classes of failure of the command line's reading and writing, each checked over
generated inputs and file-system states rather than a list of cases:

- one writer (:mod:`paper_checks._files`): whatever stands at a target (missing, a regular file,
  a symlink to a file, a directory or /dev/null, a dangling symlink, a directory, a FIFO), only a
  missing path or a regular file is written; a name leading outside the directory named is
  refused; a full disk (ENOSPC from ``os.write``, or a file-size limit in a subprocess) leaves the
  old file whole and no temporary file behind; errors are one line naming the path, exit 2;
- one reader (:mod:`paper_checks._schema`): any field of a valid results.json replaced by any JSON
  value, or nested deep, gives exit 0 or one line and exit 2 from report, list and merge, never
  a traceback; merge validates all of SRC before touching DST and writes DST as one transaction;
- runs that cannot lose records, locks whose PID is not a live process, metrics that print
  "undefined" or refuse instead of NaN, readers that split lines only at ``\\n``.

The default profile (tests/conftest.py) is derandomised; ``make fuzz`` draws fresh examples.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from paper_checks import _files
from paper_checks.claims import all_claims
from paper_checks.cli import main
from paper_checks.results import LOCK_NAME, CheckResult, RunInfo, RunLock, Verdict, write_results

#: 40 fixed examples per test under `make test`; the fuzz profile's count under `make fuzz`.
FUZZING = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
SETTINGS = settings(
    deadline=None,
    max_examples=settings.default.max_examples if FUZZING else 40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
CLAIM_IDS = [c.id for c in all_claims()]


def call(argv: list[object]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``main(argv)``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def one_error_line(err: str) -> str:
    """The single ``paper-checks: error:`` line of ``err`` (no traceback)."""
    assert "Traceback" not in err, err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert lines[0].startswith("paper-checks"), err
    assert "error:" in lines[0], err
    return lines[0]


def exit_2(argv: list[object]) -> str:
    code, _, err = call(argv)
    assert code == 2, err
    return one_error_line(err)


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: file bytes, or a symlink's target."""
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        key = os.fspath(path.relative_to(root))
        if path.is_symlink():
            out[key] = "-> " + os.fspath(path.readlink())
        elif path.is_file():
            out[key] = path.read_bytes()
        elif not path.is_dir():
            out[key] = "special"
    return out


# ----------------------------------------------------------------------------- the one writer
STATES = [
    "missing",
    "regular",
    "symlink-to-file",
    "symlink-to-dir",
    "symlink-to-devnull",
    "dangling-symlink",
    "directory",
    "fifo",
]


def make_state(target: Path, state: str, elsewhere: Path) -> None:
    """Put ``state`` at ``target``; ``elsewhere`` is a directory outside that links may reach."""
    victim = elsewhere / "victim.txt"
    victim.write_text("victim\n")
    if state == "regular":
        target.write_text("old\n")
    elif state == "symlink-to-file":
        target.symlink_to(victim)
    elif state == "symlink-to-dir":
        target.symlink_to(elsewhere)
    elif state == "symlink-to-devnull":
        target.symlink_to(os.devnull)
    elif state == "dangling-symlink":
        target.symlink_to(elsewhere / "nothing-here")
    elif state == "directory":
        target.mkdir()
    elif state == "fifo":
        os.mkfifo(target)


def _savez(tmp: Path) -> None:
    np.savez_compressed(tmp, x=np.arange(3))


def _transaction(path: Path, root: Path) -> None:
    with _files.Transaction(root) as tx:
        tx.stage_json(root / "first.json", {"first": True})
        tx.stage_json(path, {"a": [1, 2]})
        tx.commit()


WRITERS = {
    "text": lambda path, root: _files.write_text(path, "new\n", root),
    "json": lambda path, root: _files.write_json(path, {"a": [1, 2]}, root),
    "npz": lambda path, root: _files.write_with(path, _savez, root),
    "copy": lambda path, root: _files.copy_file(root / "source.bin", path, root),
    "transaction": _transaction,
}


@SETTINGS
@given(state=st.sampled_from(STATES), writer=st.sampled_from(sorted(WRITERS)))
def test_only_a_missing_path_or_a_regular_file_is_written(state, writer):
    with workdir() as tmp:
        root, elsewhere = tmp / "out", tmp / "elsewhere"
        root.mkdir()
        elsewhere.mkdir()
        (root / "source.bin").write_bytes(b"\x00\x01payload")
        target = root / ("target.npz" if writer == "npz" else "target.json")
        make_state(target, state, elsewhere)
        outside = snapshot(elsewhere)
        before = snapshot(root)
        if state in ("missing", "regular"):
            WRITERS[writer](target, root)
            assert target.is_file()
            assert not target.is_symlink()
        else:
            with pytest.raises(ValueError, match="refusing") as info:
                WRITERS[writer](target, root)
            assert str(target) in str(info.value)
            assert "\n" not in str(info.value)
            assert snapshot(root) == before  # nothing staged is left, nothing replaced
        assert snapshot(elsewhere) == outside
        assert not [p for p in root.iterdir() if ".tmp-" in p.name]


NAMES = st.sampled_from(["../victim.json", "../../victim.json", "sub/../../victim.json"]) | (
    st.lists(st.sampled_from(["..", "a", "."]), min_size=1, max_size=5).map("/".join)
)


@SETTINGS
@given(name=NAMES, via_link=st.booleans())
@example(name="../victim.json", via_link=False)
@example(name=".", via_link=True)  # figures/. is the link itself: refused as a symlink
@example(name="a/../a", via_link=False)  # once made a directory `a` and refused it
def test_nothing_is_written_outside_the_directory_named(name, via_link):
    with workdir() as tmp:
        root = tmp / "a" / "b" / "out"
        root.mkdir(parents=True)
        (tmp / "elsewhere").mkdir()
        if via_link:  # a subdirectory that is a link out of the root
            (root / "figures").symlink_to(tmp / "elsewhere")
            name = f"figures/{name}"
        target = root / name
        inside = (
            ".." not in Path(name).parts
            and not target.is_symlink()
            and target.parent.resolve().is_relative_to(root.resolve())
        )
        before = snapshot(tmp)
        if inside:
            _files.write_text(target, "x", root)
            assert target.resolve().is_relative_to(root.resolve())
        else:
            with pytest.raises(ValueError, match=r"outside|not a file name|symlink") as info:
                _files.write_text(target, "x", root)
            assert "\n" not in str(info.value)
            assert snapshot(tmp) == before


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_full_disk_leaves_the_old_file_whole(tmp_path, monkeypatch, writer):
    (tmp_path / "source.bin").write_bytes(b"payload" * 1000)
    target = tmp_path / ("target.npz" if writer == "npz" else "target.json")
    target.write_bytes(b"old content\n")

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    monkeypatch.setattr("shutil.copyfile", full)
    monkeypatch.setattr(np, "savez_compressed", full)
    with pytest.raises(ValueError, match="No space left") as info:
        WRITERS[writer](target, tmp_path)
    assert str(target) in str(info.value) or "first.json" in str(info.value)
    assert target.read_bytes() == b"old content\n"
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


def _check_figure(out_dir: Path) -> list[str]:
    """A check's figure saved as the checks save theirs: ``Context.save_figure``."""
    from paper_checks.context import Context
    from paper_checks.plotting import new_figure

    fig, ax = new_figure()
    ax.plot([1, 2], [1, 4])
    return Context(out_dir=out_dir, claim_id="demo.figure").save_figure(fig)


@SETTINGS
@given(state=st.sampled_from(STATES), suffix=st.sampled_from([".png", ".pdf"]))
def test_a_checks_figures_go_through_the_one_writer(state, suffix):
    """Context.save_figure (the checks' figures, under the run's figures/) writes only a missing
    path or a regular file, leaves no temporary file, and refuses one line naming the path."""
    with workdir() as tmp:
        run, elsewhere = tmp / "run", tmp / "elsewhere"
        (run / "figures").mkdir(parents=True)
        elsewhere.mkdir()
        make_state(run / "figures" / f"demo.figure{suffix}", state, elsewhere)
        outside = snapshot(elsewhere)
        if state in ("missing", "regular"):
            assert _check_figure(run) == ["figures/demo.figure.png", "figures/demo.figure.pdf"]
            for name in ("demo.figure.png", "demo.figure.pdf"):
                path = run / "figures" / name
                assert path.is_file()
                assert not path.is_symlink()
                assert path.read_bytes()[:4] in (b"\x89PNG", b"%PDF")
        else:
            before = snapshot(run)
            with pytest.raises(ValueError, match="refusing") as info:
                _check_figure(run)
            assert f"demo.figure{suffix}" in str(info.value)
            assert "\n" not in str(info.value)
            assert snapshot(run) == before
        assert snapshot(elsewhere) == outside
        assert not [p for p in (run / "figures").iterdir() if ".tmp-" in p.name]


def test_a_figures_folder_that_links_out_of_the_run_is_refused(tmp_path):
    run, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    run.mkdir()
    elsewhere.mkdir()
    (run / "figures").symlink_to(elsewhere)
    with pytest.raises(ValueError, match="outside") as info:
        _check_figure(run)
    assert "demo.figure.png" in str(info.value)
    assert list(elsewhere.iterdir()) == []


def test_a_figure_on_a_full_disk_leaves_the_old_figure_whole(tmp_path, monkeypatch):
    import paper_checks.plotting as plotting

    (tmp_path / "figures").mkdir()
    old = tmp_path / "figures" / "demo.figure.png"
    old.write_bytes(b"old figure")

    def full(fig, directory, stem):
        (directory / f"{stem}.png").write_bytes(b"half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(plotting, "render_figure", full)
    with pytest.raises(ValueError, match="No space left"):
        _check_figure(tmp_path)
    assert old.read_bytes() == b"old figure"
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == ["demo.figure.png"]


def test_report_on_a_full_disk_keeps_the_old_report(tmp_path):
    """A real write under a file-size limit (RLIMIT_FSIZE) in a subprocess: exit 2, one line
    naming report.md or report.html, the old reports whole."""
    run = make_run(tmp_path / "run")
    old = b"old report\n"
    (run / "report.md").write_bytes(old)
    (run / "report.html").write_bytes(old)
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))
        from paper_checks.cli import main
        sys.exit(main(["report", {str(run)!r}]))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 2, proc.stderr
    line = one_error_line(proc.stderr)
    assert "report.md" in line or "report.html" in line
    assert (run / "report.md").read_bytes() == old
    assert (run / "report.html").read_bytes() == old
    assert not [p for p in run.iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize("state", [s for s in STATES if s not in ("missing", "regular")])
@pytest.mark.parametrize("name", ["report.md", "report.html", "results.json"])
def test_report_refuses_what_stands_in_a_reports_way(tmp_path, state, name):
    run = make_run(tmp_path / "run")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (run / name).unlink(missing_ok=True)
    make_state(run / name, state, elsewhere)
    outside = snapshot(elsewhere)
    line = exit_2(["report", run])
    assert name in line or "results.json" in line
    assert snapshot(elsewhere) == outside


@pytest.mark.parametrize("state", ["symlink-to-devnull", "symlink-to-file", "directory", "fifo"])
def test_bench_out_is_refused_before_any_benchmark(tmp_path, state, monkeypatch):
    monkeypatch.setattr(
        "paper_checks.bench.run_benchmarks", lambda **_: pytest.fail("benchmarks ran")
    )
    target = tmp_path / "bench.json"
    make_state(target, state, tmp_path)
    exit_2(["bench", "--quick", "--out", target])
    exit_2(["bench", "--quick", "--out", os.devnull])


# ----------------------------------------------------------------------------- the one reader
def make_result(claim_id: str, verdict: Verdict = Verdict.PASS) -> CheckResult:
    return CheckResult(
        verdict=verdict,
        summary="x = 1 (≤ 2)",
        measured={"x": 1.0, "curve": [0.1, 0.2]},
        expected={"x": 2.0},
        tolerance="x ≤ 2",
        claim_id=claim_id,
        paper=claim_id.split(".", maxsplit=1)[0],
        statement="A statement.",
        source="Smith et al. 2025, Theorem 1",
        rule="x ≤ 2",
        stochastic=True,
        history=[{"date": "2025-01-01", "change": "c", "reason": "r", "before": "PASS"}],
        replication={
            "deterministic": False,
            "statistic": "x",
            "replicates": [
                {"replicate": 0, "root_entropy": [0], "verdict": "PASS", "statistic": 1}
            ],
            "counts": {"PASS": 1, "FAIL": 0, "INCONCLUSIVE": 0, "ERROR": 0},
            "n": 1,
            "agree": 1,
            "rate": 1.0,
            "statistic_mean": 1.0,
            "statistic_sd": None,
            "fragile": False,
        },
        decision={
            "verdict": "PASS",
            "parts": [
                {
                    "statistic": "x",
                    "direction": "less",
                    "pass_margin": 2.0,
                    "fail_margin": 3.0,
                    "verdict": "PASS",
                    "n": 3,
                    "mean": 1.0,
                    "sd": 0.1,
                    "lower": 0.9,
                    "upper": 1.1,
                    "level": 0.05,
                    "units_needed": None,
                }
            ],
            "units": {"x": [1.0, 0.9, 1.1]},
            "units_needed": None,
            "reason": "",
        },
        provenance={"seed": 0, "wall_time_s": 0.25},
    )


def make_run(run_dir: Path, claims: list[str] | None = None, **info) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    fields = {
        "run_id": run_dir.name,
        "created": "2025-01-01T00:00:00+00:00",
        "scale": "quick",
        "seed": 0,
        "scheduler": "processes",
        "workers": 1,
        "backend": "numpy",
        "argv": ["run"],
        "wall_time_s": 1.5,
    }
    ids = CLAIM_IDS[:2] if claims is None else claims
    write_results(run_dir, RunInfo(**(fields | info)), [make_result(c) for c in ids])
    return run_dir


def json_values() -> st.SearchStrategy:
    leaves = (
        st.none()
        | st.booleans()
        | st.integers(-(10**400), 10**400)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=8)
        | st.sampled_from(["PASS", "../x", "", "greater"])
    )
    return st.recursive(
        leaves,
        lambda kids: (
            st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3)
        ),
        max_leaves=8,
    )


def _paths(value, prefix=()) -> list[tuple]:
    """Every path (tuple of keys and indices) into a JSON value."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


def _replace(payload, path, value):
    if not path:
        return value
    node = payload
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return payload


@functools.cache
def valid_results_text() -> str:
    with workdir() as tmp:
        return (make_run(tmp / "r") / "results.json").read_text()


@st.composite
def mutated_results(draw) -> bytes:
    """A valid results.json with one field (anywhere) replaced by any JSON value, deleted, or
    wrapped in deep nesting; or cut short."""
    payload = json.loads(valid_results_text())
    paths = _paths(payload)
    path = draw(st.sampled_from(paths))
    how = draw(st.sampled_from(["replace", "delete", "nest", "cut"]))
    if how == "replace":
        payload = _replace(payload, path, draw(json_values()))
    elif how == "delete" and path:
        parent = payload
        for key in path[:-1]:
            parent = parent[key]
        del parent[path[-1]]
    elif how == "nest":
        depth = draw(st.integers(1, 3000))
        text = "[" * depth + "1" + "]" * depth
        return json.dumps(_replace(payload, path, "@@")).replace('"@@"', text).encode()
    text = json.dumps(payload)
    if how == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    return text.encode()


@SETTINGS
@given(content=mutated_results())
@example(content=b'{"run": {}, "claims": [{"verdict": ["PASS"]}]}')
@example(content=b"[" * 2000 + b"]" * 2000)
def test_report_list_and_merge_read_any_results_json_cleanly(content):
    with workdir() as tmp:
        run = tmp / "run"
        run.mkdir()
        (run / "results.json").write_bytes(content)
        for argv in (["report", run], ["list", "--results", run]):
            code, _, err = call(argv)
            if argv[0] == "list":  # a corrupt last run is a warning, the claims are listed
                assert code == 0, err
                assert "Traceback" not in err
                assert len(err.strip("\n").split("\n")) <= 1
            elif code != 0:
                assert code == 2
                one_error_line(err)
        dst = make_run(tmp / "dst")
        before = snapshot(dst)
        code, _, err = call(["merge", run, dst])
        if code != 0:
            assert code == 2, err
            one_error_line(err)
            assert snapshot(dst) == before


@pytest.mark.parametrize(
    "reproduction",
    [{"": None}, [1], {"status": "same verdict"}, {"status": "verdict differs", "verdict": 1}],
)
def test_a_malformed_reproduction_is_one_line_naming_it(reproduction):
    # found by make fuzz: report read a claim's reproduction without the schema
    payload = json.loads(valid_results_text())
    payload["claims"][0]["reproduction"] = reproduction
    with workdir() as tmp:
        run = tmp / "run"
        run.mkdir()
        (run / "results.json").write_text(json.dumps(payload))
        code, _, err = call(["report", run])
        assert code == 2, err
        assert "claims[0].reproduction" in one_error_line(err)


@SETTINGS
@given(
    claim_id=st.sampled_from(["../victim", "/etc/passwd", "rlvr.not_registered", "a/b", ""])
    | st.text(max_size=12).filter(lambda s: s not in CLAIM_IDS)
)
@example(claim_id="../victim")
@example(claim_id="rlvr.not_registered")
def test_merge_refuses_a_claim_id_it_cannot_trust_and_leaves_dst_alone(claim_id):
    with workdir() as tmp:
        src, dst = make_run(tmp / "src"), make_run(tmp / "dst")
        payload = json.loads((src / "results.json").read_text())
        payload["claims"][1]["claim_id"] = claim_id
        (src / "results.json").write_text(json.dumps(payload))
        before = snapshot(tmp)
        exit_2(["merge", src, dst])
        assert snapshot(tmp) == before


@SETTINGS
@given(
    field=st.sampled_from(["verdict", "figures", "replication", "history", "decision"]),
    value=json_values(),
)
def test_merge_validates_every_src_record_file_before_dst(field, value):
    """A malformed ``<claim>.json`` in SRC (the file merge copies) is refused before DST is
    touched, even when SRC's results.json is sound."""
    with workdir() as tmp:
        src, dst = make_run(tmp / "src"), make_run(tmp / "dst")
        record_file = src / f"{CLAIM_IDS[1]}.json"
        record = json.loads(record_file.read_text())
        record[field] = value
        record_file.write_text(json.dumps(record))
        before = snapshot(dst)
        code, _, err = call(["merge", src, dst])
        if code != 0:
            assert code == 2, err
            one_error_line(err)
            assert snapshot(dst) == before


def test_merge_failing_half_way_leaves_dst_as_it_was(tmp_path, monkeypatch):
    src, dst = make_run(tmp_path / "src"), make_run(tmp_path / "dst")
    for run in (src, dst):
        (run / "figures").mkdir(exist_ok=True)
        for c in CLAIM_IDS[:2]:
            (run / "figures" / f"{c}.png").write_bytes(run.name.encode())
    payload = json.loads((src / "results.json").read_text())
    for record in payload["claims"]:
        record["figures"] = [f"figures/{record['claim_id']}.png"]
        (src / f"{record['claim_id']}.json").write_text(json.dumps(record))
    (src / "results.json").write_text(json.dumps(payload))
    before = snapshot(dst)
    real_publish, real_copy = _files._publish, shutil.copyfile

    def fail_at(name: str):
        def publish(tmp, path, root):
            if path.name == name:
                raise ValueError(f"{str(path)!r}: cannot write it (No space left on device)")
            return real_publish(tmp, path, root)

        return publish

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    for name in ("results.json", f"{CLAIM_IDS[1]}.json", f"{CLAIM_IDS[0]}.png"):
        monkeypatch.setattr(_files, "_publish", fail_at(name))  # a rename fails half-way
        exit_2(["merge", src, dst])
        assert snapshot(dst) == before
        assert not [p for p in dst.rglob("*") if ".tmp-" in p.name]
    monkeypatch.setattr(_files, "_publish", real_publish)
    monkeypatch.setattr("shutil.copyfile", full)  # staging fails: the disk is full
    exit_2(["merge", src, dst])
    assert snapshot(dst) == before
    monkeypatch.setattr("shutil.copyfile", real_copy)
    code, _, err = call(["merge", src, dst])
    assert code == 0, err
    assert (dst / "figures" / f"{CLAIM_IDS[0]}.png").read_bytes() == b"src"


def test_merge_of_a_sound_src_copies_records_and_counts(tmp_path):
    src = make_run(tmp_path / "src", CLAIM_IDS[1:3])
    dst = make_run(tmp_path / "dst", CLAIM_IDS[:2])
    code, out, err = call(["merge", src, dst])
    assert code == 0, err
    assert "merged 2 claim(s)" in out
    payload = json.loads((dst / "results.json").read_text())
    assert [r["claim_id"] for r in payload["claims"]] == CLAIM_IDS[:3]
    assert payload["run"]["updates"][-1]["merged_from"] == "src"


# --------------------------------------------------------------- runs and locks lose nothing
def test_run_into_a_finished_run_without_update_is_refused(tmp_path):
    run = make_run(tmp_path / "run")
    before = snapshot(run)
    assert "--update" in exit_2(["run", CLAIM_IDS[0], "--out", run])
    assert snapshot(run) == before


@SETTINGS
@given(
    holder=st.sampled_from(["0", "-1", "2147483648", "18446744073709551616", "abc", "", "1.5"])
    | st.integers(max_value=0).map(str)
    | st.integers(min_value=2**31).map(str)
    | st.text(alphabet="abc .x-", max_size=10)
)
@example(holder="0")
@example(holder="-1")
@example(holder=str(2**64))
def test_a_lock_whose_pid_is_not_a_live_process_is_taken_over(holder):
    with workdir() as tmp:
        (tmp / LOCK_NAME).write_text(holder + "\n")
        with RunLock(tmp):
            assert (tmp / LOCK_NAME).read_text().strip() == str(os.getpid())
        assert not (tmp / LOCK_NAME).exists()


def test_list_finds_the_last_run_of_an_out_directory(tmp_path):
    run = make_run(tmp_path / "mine")
    code, out, err = call(["list", "--results", run])
    assert code == 0, err
    listed = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:]}
    assert listed[CLAIM_IDS[0]] == "PASS"


# ------------------------------------------------------------ metrics that refuse or say why
def _gens(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _base_gens(n_queries: int = 2) -> list[dict]:
    return [
        {"query": f"q{q}", "model": m, "response": f"answer {q} {m} {i} words here"}
        for q in range(n_queries)
        for m in ("a", "b")
        for i in range(3)
    ]


def test_hivemind_prints_undefined_not_nan(tmp_path):
    gens = _gens(tmp_path / "gens.jsonl", _base_gens(2))
    abs_rows = [
        {"query": "q0", "response": f"r{i}", "ratings": [3, 3], "scores": {"s": float(i)}}
        for i in range(6)
    ]
    ratings = _gens(tmp_path / "abs.jsonl", abs_rows)
    code, out, err = call(
        [
            "solve",
            "hivemind",
            "--gens",
            gens,
            "--ratings",
            ratings,
            "--out",
            tmp_path / "o",
            "--n-boot",
            "20",
        ]
    )
    assert code == 0, err
    assert "nan" not in out.lower()
    assert "undefined" in out


@SETTINGS
@given(
    case=st.sampled_from(["empty", "zeros", "conflict", "all-empty", "huge-int"]),
    dim=st.integers(1, 5),
)
def test_hivemind_refuses_embeddings_it_cannot_compare(case, dim):
    with workdir() as tmp:
        rows = _base_gens(2)
        rng = np.random.default_rng(dim)
        for row in rows:
            row["embedding"] = rng.normal(size=dim).tolist()
        if case == "empty":
            rows[1]["embedding"] = []
        elif case == "zeros":
            rows[2]["embedding"] = [0.0] * dim
        elif case == "conflict":
            rows[3]["response"] = rows[0]["response"]
        elif case == "all-empty":
            for row in rows:
                row["response"] = " "
        gens = tmp / "gens.jsonl"
        text = "".join(json.dumps(r) + "\n" for r in rows)
        if case == "huge-int":
            text = text.replace(json.dumps(rows[0]["embedding"][0]), "9" * 400, 1)
        gens.write_text(text)
        exit_2(["solve", "hivemind", "--gens", gens, "--embedder", "vectors", "--out", tmp / "o"])
        assert not (tmp / "o").exists()


def test_hivemind_n_boot_beyond_its_limit_is_a_usage_error(tmp_path):
    gens = _gens(tmp_path / "gens.jsonl", _base_gens())
    assert "--n-boot" in exit_2(
        ["solve", "hivemind", "--gens", gens, "--n-boot", str(10**9), "--out", tmp_path / "o"]
    )


def test_hivemind_cache_without_its_arrays_is_refused(tmp_path):
    gens = _gens(tmp_path / "gens.jsonl", _base_gens())
    cache = tmp_path / "cache"
    cache.mkdir()
    from neural.hivemind import HashEmbedder

    np.savez(cache / f"{HashEmbedder().name}.npz", other=np.arange(3))
    line = exit_2(["solve", "hivemind", "--gens", gens, "--cache", cache, "--out", tmp_path / "o"])
    assert "--cache" in line


# -------------------------------------------------------------------------------- input lines
SEPARATORS = ["\u2028", "\u2029", "\x0c", "\x0b", "\x1c", "\x85"]


@settings(SETTINGS, max_examples=max(10, SETTINGS.max_examples // 10))  # each draws 2 figures
@given(sep=st.sampled_from(SEPARATORS), where=st.integers(0, 3))
@example(sep="\u2028", where=0)
@example(sep="\x0c", where=0)
def test_line_separators_inside_values_are_not_line_breaks(sep, where):
    """The reader does not split a row at a separator inside a value: the row is read whole,
    and its label, which would print as two lines, is refused naming that row (a
    printed label is one line)."""
    labels = [f"p{sep}{i}" if i == where else f"p{i}" for i in range(4)]
    with workdir() as tmp:
        jsonl = tmp / "s.jsonl"
        rows = [{"problem": label, "n": 4, "c": i % 3} for i, label in enumerate(labels)]
        jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        line = exit_2(["solve", "passk", "--samples", jsonl, "--plot", tmp / "p.png"])
        assert f"row {where + 1}: {labels[where]!r} holds a line break" in line
        csv_file = tmp / "s.csv"
        body = "".join(f'"{label}",4,{i % 3}\n' for i, label in enumerate(labels))
        csv_file.write_text("problem,n,c\n" + body)
        line = exit_2(["solve", "passk", "--samples", csv_file, "--plot", tmp / "q.png"])
        assert f"row {where + 1}: {labels[where]!r} holds a line break" in line
        assert not (tmp / "p.png").exists()
        assert not (tmp / "q.png").exists()


@pytest.mark.parametrize(
    ("name", "content", "argv"),
    [
        (
            "s.jsonl",
            '{"problem": "a", "seed": 0, "n": 4, "c": 1}\n{"problem": "a", "n": 4, "c": 2}\n',
            ["solve", "passk", "--plot", "p.png", "--samples"],
        ),
        ("c.json", '{"hypotheses": [[0, 1], [1, 0]], "points": 5}', ["solve", "online", "--class"]),
        ("c.json", '{"hypotheses": [[0, 1]], "points": {"a": 1}}', ["solve", "online", "--class"]),
        ("c.json", "[[0, " + "1" * 400 + "]]", ["solve", "online", "--class"]),
        (
            "s.jsonl",
            '{"n": ' + "9" * 400 + ', "c": 1}\n',
            ["solve", "passk", "--plot", "p.png", "--samples"],
        ),
    ],
    ids=["passk-seed-key-missing", "points-5", "points-object", "class-400-digits", "n-400-digits"],
)
def test_malformed_inputs_are_one_line_exit_2(tmp_path, monkeypatch, name, content, argv):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / name
    path.write_text(content)
    exit_2([*argv, path])
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_time_limit_covers_reading_a_large_class(tmp_path):
    import time

    path = tmp_path / "big.txt"
    width = 4000
    row = ("01" * width)[:width] + "\n"
    path.write_text(row * 4000)  # 16 MB of one class
    start = time.monotonic()
    code, _, err = call(["solve", "online", "--class", path, "--time-limit", "1"])
    assert time.monotonic() - start < 30
    assert code in (0, 2), err
    if code == 2:
        assert "--time-limit" in one_error_line(err)
    else:
        assert "Traceback" not in err


@pytest.mark.parametrize("state", [s for s in STATES if s not in ("missing", "regular")])
@pytest.mark.parametrize("name", ["report.json", "intra_model.csv", "hivemind_intra.png"])
def test_hivemind_out_is_checked_before_anything_is_written(tmp_path, state, name):
    gens = _gens(tmp_path / "gens.jsonl", _base_gens())
    out, elsewhere = tmp_path / "o", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    make_state(out / name, state, elsewhere)
    before, outside = snapshot(out), snapshot(elsewhere)
    assert name in exit_2(["solve", "hivemind", "--gens", gens, "--out", out])
    assert snapshot(out) == before
    assert snapshot(elsewhere) == outside
