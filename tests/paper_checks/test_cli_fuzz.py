"""Hostile input for every reader and writer of the command line.

Each case runs ``main([...])`` in-process and asserts the README's contract for bad input: exit
code 2, exactly one line on stderr (``paper-checks...: error: ...``), no traceback, and nothing
written under the output path. Every bad input found so far is an explicit case; the hypothesis
tests generate small malformed inputs per reader (200 each under the CI profile).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from paper_checks.cli import main
from paper_checks.results import LOCK_NAME, RunLock

EXAMPLES = 200 if os.environ.get("CI") else 25
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
DATA = Path(__file__).resolve().parents[1] / "data" / "hivemind"


def call(argv: list[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``main(argv)``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def assert_one_line_exit_2(argv: list[str], *, untouched: Path | None = None) -> str:
    code, _, err = call(argv)
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert lines[0].startswith("paper-checks"), err
    assert "error:" in lines[0], err
    if untouched is not None:
        assert not untouched.exists() or not any(untouched.iterdir()), list(untouched.iterdir())
    return lines[0]


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


# ------------------------------------------------------------------------ the recorded cases
@pytest.mark.parametrize("kind", ["file", "directory", "absolute-link", "sibling-link"])
def test_run_leaves_a_foreign_latest_alone_with_a_warning(tmp_path, kind):
    """A `latest` paper-checks did not make (a file, a directory, a link elsewhere or to a user's
    own directory beside it) is never replaced: the run goes on and says so in one line."""
    latest = tmp_path / "latest"
    if kind == "file":
        latest.write_text("notes\n")
    elif kind == "directory":
        latest.mkdir()
    elif kind == "absolute-link":
        latest.symlink_to("/etc")
    else:
        (tmp_path / "mine").mkdir()
        latest.symlink_to("mine")
    before = os.fspath(latest.readlink()) if latest.is_symlink() else None
    code, _, err = call(["run", "online.bound_constants", "--out", tmp_path / "run1"])
    assert code == 0, err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1, err
    assert "latest" in warnings[0]
    assert "left alone" in warnings[0]
    if before is None:
        assert not latest.is_symlink()
    else:
        assert os.fspath(latest.readlink()) == before
    if kind == "file":
        assert latest.read_text() == "notes\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".latest")]


@pytest.mark.parametrize("out", ["/proc/x", "/sys/foo", "FILE", ""])
def test_run_out_that_cannot_be_a_run_directory(tmp_path, out):
    if out == "FILE":
        out = tmp_path / "a-file"
        out.write_text("mine\n")
    line = assert_one_line_exit_2(["run", "online.bound_constants", "--out", out])
    assert "--out" in line
    if out == tmp_path / "a-file":
        assert out.read_text() == "mine\n"


#: A process that takes the run lock of the directory argv[1] and holds it until killed.
HOLDER = """
import sys, time
from pathlib import Path
from paper_checks.results import RunLock
lock = RunLock(Path(sys.argv[1])).acquire()
print("held", flush=True)
time.sleep(120)
"""


@contextlib.contextmanager
def _hold(out: Path) -> Iterator[subprocess.Popen]:
    """A child process holding ``out``'s run lock (it says so before this yields), killed
    with SIGKILL at the end unless it is dead already."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out)], stdout=subprocess.PIPE, text=True
    ) as holder:
        assert holder.stdout.readline().strip() == "held"
        try:
            yield holder
        finally:
            holder.kill()
            holder.wait()


def test_run_into_a_locked_out_is_refused_naming_the_holder(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    with _hold(out) as holder:
        line = assert_one_line_exit_2(["run", "online.bound_constants", "--out", out])
        assert str(holder.pid) in line
        assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]


def test_the_kernel_releases_the_lock_of_a_killed_holder(tmp_path):
    with _hold(tmp_path) as holder:
        with pytest.raises(ValueError, match=str(holder.pid)):
            RunLock(tmp_path).acquire()
        holder.kill()  # SIGKILL: no release runs, the file stays with its PID in it
        holder.wait()
    assert (tmp_path / LOCK_NAME).read_text().strip() == str(holder.pid)
    with RunLock(tmp_path):
        assert (tmp_path / LOCK_NAME).read_text().strip() == str(os.getpid())


@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink"])
def test_a_lock_path_that_is_not_a_regular_file_is_refused(tmp_path, kind):
    lock = tmp_path / LOCK_NAME
    if kind == "fifo":
        os.mkfifo(lock)
    elif kind == "directory":
        lock.mkdir()
    else:
        (tmp_path / "elsewhere").write_text("")
        lock.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match=LOCK_NAME):
        RunLock(tmp_path).acquire()
    if kind == "fifo":  # and a run is refused in one line, without hanging on the FIFO
        line = assert_one_line_exit_2(["run", "online.bound_constants", "--out", tmp_path])
        assert LOCK_NAME in line


#: Takers racing for one lock: each appends "start PID" and "end PID" to a log while holding it.
RACER = """
import os, sys, time
from pathlib import Path
from paper_checks.results import RunLock
run, log = Path(sys.argv[1]), Path(sys.argv[2])
for _ in range(20):
    try:
        with RunLock(run):
            with log.open("a") as fh:
                fh.write(f"start {os.getpid()}\\n")
            time.sleep(0.01)
            with log.open("a") as fh:
                fh.write(f"end {os.getpid()}\\n")
    except ValueError:
        time.sleep(0.002)
"""


def test_racing_takers_never_hold_the_lock_together(tmp_path):
    run, log = tmp_path / "run", tmp_path / "log"
    run.mkdir()
    (run / LOCK_NAME).write_text("99999999\n")  # a stale lock to take over, as before a race
    racers = [subprocess.Popen([sys.executable, "-c", RACER, str(run), str(log)]) for _ in range(4)]
    for racer in racers:
        assert racer.wait(timeout=120) == 0
    lines = log.read_text().split("\n")[:-1]
    assert lines, "no racer ever took the lock"
    for start, end in zip(lines[::2], lines[1::2], strict=True):  # strictly alternating
        assert (start.split()[0], end.split()[0]) == ("start", "end")
        assert start.split()[1] == end.split()[1]


def test_a_stale_lock_is_taken_over_and_released(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / LOCK_NAME).write_text(f"{dead.pid}\n")
    with RunLock(tmp_path) as lock:
        assert (tmp_path / LOCK_NAME).read_text().strip() == str(os.getpid())
        with pytest.raises(ValueError, match=str(os.getpid())):
            RunLock(tmp_path).acquire()  # held: a second writer is refused
    assert not lock.path.exists()


@pytest.fixture
def ok_csv(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text("n,c\n8,3\n8,0\n")
    return path


@pytest.fixture
def class_file(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text("000\n100\n110\n111\n")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "passk", "--samples", "OK", "--plot", "/proc/x/p.png"],
        ["solve", "online", "--class", "CLASS", "--export-tree", "/proc/x/t.graphml"],
        ["solve", "hivemind", "--gens", DATA / "gens.jsonl", "--out", "/proc/x"],
        ["solve", "rmt", "--psi-p", "4", "--psi-n", "2", "--t", "0.1", "--plot", "/proc/x/u.png"],
        ["bench", "--quick", "--only", "pass_at_k", "--out", "/proc/x/b.json"],
    ],
    ids=["passk-plot", "online-tree", "hivemind-out", "rmt-plot", "bench-out"],
)
def test_unwritable_outputs_are_refused_before_any_work(argv, ok_csv, class_file):
    argv = [ok_csv if a == "OK" else class_file if a == "CLASS" else a for a in argv]
    assert "/proc" in assert_one_line_exit_2(argv)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("n,c\n256,3,7\n", "fields"),
        ("n,c\n99999999999999999999999,3\n", "2^53"),
        ("n,c\n1000000000000000,3\n", "memory"),
        ("n,c\n8,9\n", "c <= n"),
        ("", "no rows"),
    ],
    ids=["ragged", "overflow", "n-1e15", "c-above-n", "empty"],
)
def test_passk_reader_cases(tmp_path, content, needle):
    path = tmp_path / "s.csv"
    path.write_text(content)
    out = tmp_path / "plots"
    line = assert_one_line_exit_2(
        ["solve", "passk", "--samples", path, "--plot", out / "p.png"], untouched=out
    )
    assert needle in line
    assert str(path) in line


def test_passk_sparse_gigabyte_file_is_refused_by_size(tmp_path):
    path = tmp_path / "big.csv"
    with path.open("wb") as fh:
        fh.truncate(2**30)  # sparse: no disk, no reading
    assert "over 256 MiB" in assert_one_line_exit_2(["solve", "passk", "--samples", path])


def test_passk_directory_and_missing_file_are_told_apart(tmp_path):
    (tmp_path / "d.csv").mkdir()
    assert "is a directory" in assert_one_line_exit_2(
        ["solve", "passk", "--samples", tmp_path / "d.csv"]
    )
    assert "no such file" in assert_one_line_exit_2(
        ["solve", "passk", "--samples", tmp_path / "none.csv"]
    )


def test_passk_csv_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfn,c\n8,3\n8,0\n")
    code, out, err = call(["solve", "passk", "--samples", path, "--plot", tmp_path / "p.png"])
    assert code == 0, err
    assert out.splitlines()[1].split()[:2] == ["1", "0.1875"]  # mean of 3/8 and 0, then its CI


@pytest.mark.parametrize(
    "extra",
    [
        ["--psi-p", "64", "--psi-n", "8", "--t", "1e9"],
        ["--psi-p", "1e-9", "--psi-n", "8", "--t", "0.1"],
        ["--psi-p", "1e9", "--psi-n", "8", "--t", "0.1"],
        ["--psi-p", "8", "--psi-n", "1e-9", "--t", "0.1"],
        ["--psi-p", "8", "--psi-n", "2", "--t", "0.1", "--sigma-atoms", "1e300"],
        ["--psi-p", "8", "--psi-n", "2", "--t", "0.1", "--sigma-atoms", "1e-300"],
        ["--psi-p", "8", "--psi-n", "2", "--t", "0.1", "--sample", "1000000"],
        ["--psi-p", "8", "--psi-n", "2", "--t", "nan"],
    ],
    ids=[
        "t-1e9",
        "psi-p-tiny",
        "psi-p-huge",
        "psi-n-tiny",
        "atom-huge",
        "atom-tiny",
        "sample",
        "t-nan",
    ],
)
def test_rmt_outside_the_validated_domain_or_memory_is_refused(extra):
    line = assert_one_line_exit_2(["solve", "rmt", *extra])
    assert "validated range" in line or "memory" in line or "expected" in line


def test_rmt_self_check_refuses_a_spectrum_that_is_not_a_distribution(monkeypatch, capsys):
    from theory import rmt

    real = rmt.rf_spectrum

    def leaky(**kw):
        spec = real(**kw)
        bulks = tuple(rmt.Bulk(2 * b.mass, b.lower, b.upper) for b in spec.bulks)
        return rmt.RFSpectrum(**{**vars(spec), "bulks": bulks})

    monkeypatch.setattr(rmt, "rf_spectrum", leaky)
    code = main(["solve", "rmt", "--psi-p", "4", "--psi-n", "2", "--t", "0.1", "--grid", "16"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""  # the spectrum is never printed as if valid
    assert "self-check" in captured.err
    assert "total mass" in captured.err
    assert len(captured.err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "extra",
    [["--n", "1000000000", "--m", "10,20"], ["--n", "10", "--m", "2,3", "--gamma", "1e300"]],
    ids=["n-1e9", "gamma-1e300"],
)
def test_superposition_absurd_sizes(extra):
    assert_one_line_exit_2(["solve", "superposition", *extra, "--steps", "1"])


@pytest.mark.parametrize(
    ("extra", "name"),
    [
        (["--steps", "1000000000000"], "--steps"),
        (["--steps", "1", "--seeds", "1000000000"], "--seeds"),
    ],
)
def test_superposition_unbounded_work_is_refused_before_training(extra, name):
    """The hostile round's example: both ran past 120 s without a word."""
    line = assert_one_line_exit_2(["solve", "superposition", "--n", "4", "--m", "2,3", *extra])
    assert name in line


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_hivemind_non_finite_embeddings_are_refused(tmp_path, value):
    gens = tmp_path / "g.jsonl"
    rows = [
        {"query": "q", "model": "m", "response": f"r{i}", "embedding": [1.0, 0.5]} for i in range(3)
    ]
    text = "\n".join(json.dumps(r) for r in rows).replace("0.5", value, 1)
    gens.write_text(text)
    out = tmp_path / "out"
    line = assert_one_line_exit_2(
        ["solve", "hivemind", "--gens", gens, "--embedder", "vectors", "--out", out], untouched=out
    )
    assert f"{gens}:1" in line


def test_hivemind_bad_ratings_are_refused_before_any_figure(tmp_path):
    bad = tmp_path / "abs.jsonl"
    bad.write_text('{"query": "q", "response": "r", "ratings": [9], "scores": {}}\n')
    out = tmp_path / "out"
    line = assert_one_line_exit_2(
        ["solve", "hivemind", "--gens", DATA / "gens.jsonl", "--ratings", bad, "--out", out],
        untouched=out,
    )
    assert str(bad) in line


def test_bench_only_without_names_is_an_error(tmp_path):
    out = tmp_path / "b.json"
    assert "--only" in assert_one_line_exit_2(["bench", "--quick", "--only", "--out", out])
    assert not out.exists()


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"[1, 2, 3]", "not an object"),
        (b'{"claims": []}', "run is missing"),
        (b'{"run": {"run_id": "x"', "not valid JSON"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "UTF-8"),
        (b'{"run": "\xff"}', "UTF-8"),
        (b'{"run": {}, "claims": []}', "run.run_id"),
        (b'{"run": NaN, "claims": []}', "not valid JSON"),
    ],
    ids=["list", "no-run", "truncated", "binary", "bad-utf8", "empty-run", "nan"],
)
def test_report_on_broken_results(tmp_path, content, needle):
    (tmp_path / "results.json").write_bytes(content)
    line = assert_one_line_exit_2(["report", tmp_path])
    assert needle in line
    assert "results.json" in line
    assert not (tmp_path / "report.html").exists()


def test_report_tells_a_file_from_a_missing_run_dir(tmp_path):
    (tmp_path / "f").write_text("x")
    assert "not a directory" in assert_one_line_exit_2(["report", tmp_path / "f"])
    assert "does not exist" in assert_one_line_exit_2(["report", tmp_path / "none"])


def test_list_survives_a_corrupt_latest(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.json").write_text("{truncated")
    (tmp_path / "latest").symlink_to("run")
    code, out, err = call(["list", "online", "--results", tmp_path])
    assert code == 0
    assert len(err.strip().splitlines()) == 1
    assert "warning" in err
    rows = [line.split() for line in out.splitlines()[1:]]
    assert rows
    assert all(row[1] == "-" for row in rows)


def test_online_time_limit_prints_certified_bounds(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "big.txt"
    path.write_text("\n".join("".join(map(str, r)) for r in rng.integers(0, 2, (1000, 20))))
    code, out, err = call(["solve", "online", "--class", path, "--time-limit", "0.3"])
    assert code == 0, err
    assert "M_tr is at least 1 and at most 9" in out  # nothing finished: 1 <= M_tr <= log2 999
    assert "certified: at least 1" in out


def test_online_time_limit_bounds_hold_on_a_solved_class(tmp_path, class_file):
    code, out, _ = call(["solve", "online", "--class", class_file, "--json", "--time-limit", "60"])
    assert code == 0
    assert json.loads(out)["mtr"] == 2  # thresholds on 3 points: log2(4)


# ------------------------------------------------------------------------------ fuzz: readers
garbage_bytes = st.binary(max_size=60).map(lambda b: b + b"\xff\xfe")  # never UTF-8
nul_text = st.text(max_size=30).map(lambda s: s + "\x00")
word = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=8)


def _bad_int() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(max_value=0).map(str),
        st.integers(min_value=2**53 + 1, max_value=10**30).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        word.filter(lambda s: not s.strip().lstrip("+-").isdigit()),
    )


@st.composite
def bad_passk_csv(draw) -> bytes:
    kind = draw(st.sampled_from(["ragged", "bad-n", "bad-c", "garbage", "nul", "header"]))
    if kind == "garbage":
        return draw(garbage_bytes)
    if kind == "nul":
        return draw(nul_text).encode()
    rows = draw(st.lists(st.tuples(st.integers(1, 50), st.integers(0, 1)), max_size=4))
    body = [f"{n},{c}" for n, c in rows]
    at = draw(st.integers(0, len(body)))
    if kind == "ragged":
        extra = draw(st.lists(st.integers(0, 9).map(str), min_size=1, max_size=3))
        body.insert(at, ",".join(["5", "1", *extra]))
    elif kind == "bad-n":
        body.insert(at, f"{draw(_bad_int())},0")
    elif kind == "bad-c":
        n = draw(st.integers(1, 50))
        c = draw(st.one_of(st.integers(n + 1, 10**6).map(str), st.just("-1"), word))
        body.insert(at, f"{n},{c}".replace("\n", " "))
    else:
        header = draw(word.filter(lambda s: "n" not in s.lower() and "," not in s))
        return ("\n".join([header, *body]) + "\n").encode()
    return ("\n".join(["n,c", *body]) + "\n").encode()


@FUZZ
@given(content=bad_passk_csv())
def test_fuzz_passk_csv(content):
    with workdir() as tmp:
        path = tmp / "s.csv"
        path.write_bytes(content)
        out = tmp / "plots"
        assert_one_line_exit_2(["solve", "passk", "--samples", path, "--plot", out / "p.png"])
        assert not out.exists()


json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=False), word
)


@st.composite
def bad_passk_jsonl(draw) -> bytes:
    kind = draw(st.sampled_from(["nan", "not-object", "bad-value", "truncated", "garbage"]))
    good = [
        json.dumps({"n": 8, "c": draw(st.integers(0, 8))}) for _ in range(draw(st.integers(0, 3)))
    ]
    if kind == "garbage":
        return draw(garbage_bytes)
    if kind == "nan":
        value = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"]))
        bad = f'{{"n": {value}, "c": 1}}'
    elif kind == "not-object":
        bad = json.dumps(draw(st.one_of(json_scalar, st.lists(json_scalar, max_size=3))))
    elif kind == "bad-value":
        value = draw(json_scalar.filter(lambda v: not (isinstance(v, int) and 1 <= v <= 2**53)))
        bad = json.dumps({"n": value, "c": 0})
    else:
        bad = '{"n": 8, "c": ' + draw(st.sampled_from(["", "1", '"', "[1,"]))
    lines = [*good, bad] if draw(st.booleans()) else [bad, *good]
    return "\n".join(lines).encode()


@FUZZ
@given(content=bad_passk_jsonl())
def test_fuzz_passk_jsonl(content):
    with workdir() as tmp:
        path = tmp / "s.jsonl"
        path.write_bytes(content)
        assert_one_line_exit_2(["solve", "passk", "--samples", path, "--plot", tmp / "o" / "p.png"])
        assert not (tmp / "o").exists()


@st.composite
def bad_class(draw) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["bad-char", "ragged", "garbage", "json", "empty"]))
    width = draw(st.integers(1, 6))
    rows = ["".join(draw(st.lists(st.sampled_from("01"), min_size=width, max_size=width)))]
    if kind == "bad-char":
        char = draw(st.characters(exclude_characters="01#\n\r", exclude_categories=["Cs", "Zs"]))
        rows.append(rows[0][:-1] + char)
    elif kind == "ragged":
        rows.append(rows[0] + "0")
    elif kind == "garbage":
        return ".txt", draw(garbage_bytes)
    elif kind == "empty":
        return ".txt", b"# only a comment\n\n"
    else:
        value = draw(
            st.one_of(
                json_scalar,
                st.lists(json_scalar, min_size=1, max_size=3),
                st.lists(st.lists(json_scalar.filter(lambda v: v not in (0, 1)), min_size=1)),
                st.just("{"),
            )
        )
        text = value if value == "{" else json.dumps(value)
        return ".json", text.encode()
    return ".txt", "\n".join(rows).encode()


@FUZZ
@given(case=bad_class())
def test_fuzz_concept_class(case):
    suffix, content = case
    with workdir() as tmp:
        path = tmp / f"c{suffix}"
        path.write_bytes(content)
        assert_one_line_exit_2(
            ["solve", "online", "--class", path, "--export-tree", tmp / "o" / "t.dot"]
        )
        assert not (tmp / "o").exists()


def _gens_row(i: int) -> dict:
    return {"query": "q", "model": "m", "response": f"response {i}"}


@st.composite
def bad_gens(draw) -> bytes:
    kind = draw(st.sampled_from(["missing", "type", "nan", "not-object", "garbage", "ragged-emb"]))
    rows = [json.dumps(_gens_row(i)) for i in range(draw(st.integers(0, 3)))]
    if kind == "garbage":
        return draw(garbage_bytes)
    if kind == "missing":
        row = _gens_row(9)
        del row[draw(st.sampled_from(["query", "model", "response"]))]
        bad = json.dumps(row)
    elif kind == "type":
        row = _gens_row(9)
        row[draw(st.sampled_from(["query", "model", "response"]))] = draw(
            json_scalar.filter(lambda v: not isinstance(v, str))
        )
        bad = json.dumps(row)
    elif kind == "nan":
        value = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"]))
        bad = json.dumps({**_gens_row(9), "embedding": [0.0]}).replace("0.0", value)
    elif kind == "ragged-emb":
        rows = [json.dumps({**_gens_row(i), "embedding": [1.0] * (i + 1)}) for i in range(2)]
        bad = json.dumps({**_gens_row(9), "embedding": [1.0]})
    else:
        bad = json.dumps(draw(st.lists(json_scalar, max_size=3)))
    return "\n".join([*rows, bad]).encode()


@FUZZ
@given(content=bad_gens())
def test_fuzz_hivemind_generations(content):
    with workdir() as tmp:
        path = tmp / "gens.jsonl"
        path.write_bytes(content)
        out = tmp / "out"
        assert_one_line_exit_2(["solve", "hivemind", "--gens", path, "--out", out], untouched=out)


@st.composite
def bad_ratings(draw) -> bytes:
    kind = draw(st.sampled_from(["label", "score", "nan", "missing", "garbage", "scorers"]))
    good = {"query": "q", "response": "r", "ratings": [3, 4], "scores": {"s": 0.5}}
    if kind == "garbage":
        return draw(garbage_bytes)
    row = dict(good)
    if kind == "label":
        row["ratings"] = draw(
            st.one_of(
                st.lists(st.integers().filter(lambda v: not 1 <= v <= 5), min_size=1, max_size=3),
                st.just([]),
                json_scalar,
            )
        )
    elif kind == "score":
        row["scores"] = {"s": draw(json_scalar.filter(lambda v: not isinstance(v, int | float)))}
    elif kind == "nan":
        return (json.dumps(good) + "\n" + json.dumps(row).replace("0.5", "NaN")).encode()
    elif kind == "missing":
        del row[draw(st.sampled_from(["query", "response", "scores"]))]
    else:
        row["scores"] = {"other": 1.0}
    row.get("ratings")
    return (json.dumps(good) + "\n" + json.dumps(row)).encode()


@FUZZ
@given(content=bad_ratings())
def test_fuzz_hivemind_ratings(content):
    with workdir() as tmp:
        path = tmp / "abs.jsonl"
        path.write_bytes(content)
        out = tmp / "out"
        assert_one_line_exit_2(
            ["solve", "hivemind", "--gens", DATA / "gens.jsonl", "--ratings", path, "--out", out],
            untouched=out,
        )


@st.composite
def bad_results(draw) -> bytes:
    kind = draw(st.sampled_from(["json", "garbage", "run-field", "claim-field", "truncated"]))
    run = {
        "run_id": "r",
        "scale": "quick",
        "seed": 0,
        "scheduler": "processes",
        "workers": 1,
        "backend": "numpy",
        "wall_time_s": 1.0,
    }
    if kind == "garbage":
        return draw(garbage_bytes)
    if kind == "json":
        value = draw(st.one_of(json_scalar, st.lists(json_scalar, max_size=3)))
        return json.dumps(value).encode()
    if kind == "truncated":
        text = json.dumps({"run": run, "claims": []})
        return text[: draw(st.integers(0, len(text) - 1))].encode()
    if kind == "run-field":
        key = draw(st.sampled_from(sorted(run)))
        numeric = (int, float) if key == "wall_time_s" else (type(run[key]),)
        run[key] = draw(json_scalar.filter(lambda v: type(v) not in numeric))
        return json.dumps({"run": run, "claims": []}).encode()
    claim = {
        "claim_id": "a.b",
        "verdict": "PASS",
        "summary": "s",
        "measured": {},
        "expected": {},
        "tolerance": "t",
        "figures": [],
        "statement": "x",
        "source": "y",
        "provenance": {},
    }
    key = draw(st.sampled_from(sorted(claim)))
    claim[key] = draw(
        st.one_of(json_scalar, st.just(["../../etc/passwd"])).filter(
            lambda v: type(v) is not type(claim[key]) or v == ["../../etc/passwd"]
        )
    )
    if key == "figures" and claim[key] != ["../../etc/passwd"]:
        claim[key] = [draw(json_scalar.filter(lambda v: not isinstance(v, str)))]
    return json.dumps({"run": run, "claims": [claim]}).encode()


@FUZZ
@given(content=bad_results())
def test_fuzz_report_results_json(content):
    with workdir() as tmp:
        (tmp / "results.json").write_bytes(content)
        line = assert_one_line_exit_2(["report", tmp])
        assert "results.json" in line
        assert sorted(p.name for p in tmp.iterdir()) == ["results.json"]


numeric_option = st.sampled_from(
    [
        ["solve", "rmt", "--psi-n", "2", "--t", "0.1", "--psi-p"],
        ["solve", "rmt", "--psi-p", "4", "--t", "0.1", "--psi-n"],
        ["solve", "rmt", "--psi-p", "4", "--psi-n", "2", "--t"],
        ["solve", "rmt", "--psi-p", "4", "--psi-n", "2", "--t", "0.1", "--sigma-atoms"],
        ["solve", "rmt", "--psi-p", "4", "--psi-n", "2", "--t", "0.1", "--grid"],
        ["solve", "rmt", "--psi-p", "4", "--psi-n", "2", "--t", "0.1", "--sample"],
        ["solve", "superposition", "--m", "2,3", "--steps", "1", "--n"],
        ["solve", "superposition", "--n", "4", "--steps", "1", "--m"],
        ["solve", "superposition", "--n", "4", "--m", "2,3", "--steps", "1", "--gamma"],
        ["solve", "superposition", "--n", "4", "--m", "2,3", "--steps", "1", "--batch"],
        ["run", "online.bound_constants", "--workers"],
    ]
)
bad_number = st.one_of(
    st.sampled_from(["nan", "inf", "-inf", "1e400", "-1", "0", "", " ", "1e300", "0x10", "1,x"]),
    st.floats(max_value=0.0).map(repr),
    st.floats(min_value=1e12, allow_infinity=True).map(repr),
    st.integers(min_value=10**12, max_value=10**40).map(str),
    word.filter(lambda s: not s.strip().replace(".", "", 1).isdigit()),
)


@FUZZ
@given(prefix=numeric_option, value=bad_number)
def test_fuzz_numeric_options(prefix, value):
    if prefix[-1] == "--gamma":  # γ may be negative or 0: only |γ| > 100 or non-numbers are bad
        with contextlib.suppress(ValueError):
            assume(not abs(float(value)) <= 100)
    with workdir() as tmp:
        out = tmp / "run"
        argv = [*prefix, value] + (["--out", out] if prefix[0] == "run" else [])
        assert_one_line_exit_2(argv)
        assert not out.exists()


def test_passk_bootstrap_beyond_memory_names_n_boot(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("n,c\n8,3\n8,0\n", encoding="utf-8")
    line = assert_one_line_exit_2(
        [
            "solve",
            "passk",
            "--samples",
            path,
            path,
            "--n-boot",
            10**12,
            "--plot",
            tmp_path / "p.png",
        ]
    )
    assert "--n-boot 1000000000000 needs about" in line
    assert not (tmp_path / "p.png").exists()
