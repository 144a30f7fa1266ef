"""The ``paper-checks`` command line, called in-process through ``main(argv)``.

One real claim (``rlvr.tilt_never_crosses``, the cheapest) runs once per module; everything else
uses fake claims registered for one test and removed afterwards.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from paper_checks import cli
from paper_checks.claims import _REGISTRY, PAPERS, all_claims, claim
from paper_checks.cli import main
from paper_checks.context import Context
from paper_checks.paper_scale import Refused
from paper_checks.plotting import new_figure
from paper_checks.results import CheckResult, Verdict, load_results
from sims._jsonio import read_json
from tests.devices import cupy_sees_a_device, torch_sees_a_device

REAL = "rlvr.tilt_never_crosses"


def one_line_error(captured) -> str:
    """The single stderr line of a usage error (and check there is nothing else)."""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""
    return lines[0]


def listed(out: str) -> dict[str, str]:
    """claim id -> 'last run' column of ``paper-checks list`` output."""
    rows = [line.split(maxsplit=2) for line in out.splitlines()[1:]]
    return {row[0]: row[1] for row in rows}


def strings_that_look_like_numbers(payload) -> list[str]:
    if isinstance(payload, dict):
        return [s for v in payload.values() for s in strings_that_look_like_numbers(v)]
    if isinstance(payload, list):
        return [s for v in payload for s in strings_that_look_like_numbers(v)]
    if isinstance(payload, str):
        try:
            float(payload)
        except ValueError:
            return []
        return [payload]
    return []


# ------------------------------------------------------------------------------------ fake claims
def _fake_pass(ctx: Context) -> CheckResult:
    x = float(ctx.rng("x").random())
    fig, ax = new_figure()
    ax.plot([1, 2], [x, x])
    return CheckResult(
        verdict=Verdict.PASS,
        summary=f"x = {x:.3f} in [0, 1)",
        measured={"x": x, "seed": ctx.seed, "scale": ctx.scale, "curve": np.array([0.5, 0.25])},
        expected={"x": 0.5},
        tolerance="0 <= x < 1",
        figures=ctx.save_figure(fig),
        arrays={"curve": np.array([0.5, 0.25])},
    )


def _fake_fail(ctx: Context) -> CheckResult:
    return CheckResult(Verdict.FAIL, "y = 2 > 1", {"y": 2.0}, {"y": 1.0}, "y <= 1")


def _fake_inconclusive(ctx: Context) -> CheckResult:
    return CheckResult(Verdict.INCONCLUSIVE, "no sink formed at this scale", {}, {}, "n/a")


def _fake_crash(ctx: Context) -> CheckResult:
    raise RuntimeError("boom <in check>")


FAKES = {"pass": _fake_pass, "fail": _fake_fail, "inc": _fake_inconclusive, "crash": _fake_crash}


@pytest.fixture
def fake_claims() -> Iterator[Callable[..., str]]:
    """``register(kind, paper="rlvr") -> claim id``; every claim registered is removed afterwards."""
    registered: list[str] = []

    def register(kind: str, paper: str = "rlvr") -> str:
        claim_id = f"{paper}.test_fake_{kind}"
        claim(
            claim_id,
            paper=paper,
            statement=f"A fake {kind} claim <for tests>.",
            source="tests/paper_checks/test_cli.py",
            rule="PASS when the fake says so; FAIL otherwise.",
            stochastic=kind == "pass",
            statistic="x" if kind == "pass" else None,
            exact_over_instances=kind == "pass",
            paper_plan=Refused("a fake claim has no paper sizes"),
        )(FAKES[kind])
        registered.append(claim_id)
        return claim_id

    yield register
    for claim_id in registered:
        _REGISTRY.pop(claim_id, None)


# ------------------------------------------------------------------------------------ a real run
@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """``paper-checks run rlvr.tilt_never_crosses --out results/r1`` in a fresh directory."""
    root = tmp_path_factory.mktemp("real")
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["run", REAL, "--out", "results/r1"])
    return SimpleNamespace(
        code=code, out=out.getvalue(), err=err.getvalue(), root=root, dir=root / "results" / "r1"
    )


def test_real_run_exits_0_and_prints_the_table(real_run):
    assert real_run.code == 0, real_run.err
    lines = real_run.out.splitlines()
    assert lines[0].split()[:2] == ["PASS", REAL]
    assert lines[1].split() == ["rlvr", "1", "PASS"]
    assert lines[-2:] == ["1 claim: 1 PASS", "report: results/r1/report.html"]


def test_real_run_writes_the_run_directory(real_run):
    d = real_run.dir
    for name in (
        "results.json",
        f"{REAL}.json",
        f"{REAL}.npz",
        f"figures/{REAL}.png",
        f"figures/{REAL}.pdf",
        "report.md",
        "report.html",
    ):
        assert (d / name).is_file(), name
        assert (d / name).stat().st_size > 0, name
    assert (d / f"figures/{REAL}.png").read_bytes().startswith(b"\x89PNG")
    assert (d / f"figures/{REAL}.pdf").read_bytes().startswith(b"%PDF")


def test_real_run_points_latest_at_the_run(real_run):
    latest = real_run.dir.parent / "latest"
    assert latest.is_symlink()
    assert latest.resolve() == real_run.dir.resolve()
    assert not latest.readlink().is_absolute()


def test_real_run_json(real_run):
    payload = read_json(real_run.dir / "results.json")
    run = payload["run"]
    assert run["run_id"] == "r1"
    assert run["argv"] == ["run", REAL, "--out", "results/r1"]
    assert (run["scale"], run["seed"], run["workers"], run["backend"]) == ("quick", 0, 1, "numpy")
    assert run["scheduler"] == "processes"
    assert payload["counts"] == {"PASS": 1, "FAIL": 0, "INCONCLUSIVE": 0, "ERROR": 0, "NOT_RUN": 0}
    (record,) = payload["claims"]
    assert record == read_json(real_run.dir / f"{REAL}.json")
    assert record["claim_id"] == REAL
    assert record["paper"] == "rlvr"
    assert record["verdict"] == "PASS"
    assert record["error"] is None
    assert record["arrays"] == f"{REAL}.npz"
    assert record["figures"] == [f"figures/{REAL}.png", f"figures/{REAL}.pdf"]
    prov = record["provenance"]
    assert (prov["seed"], prov["scale"], prov["backend"], prov["device"]) == (
        0,
        "quick",
        "numpy",
        "cpu",
    )
    assert prov["versions"]["numpy"] == np.__version__
    assert isinstance(prov["wall_time_s"], float)


def test_real_run_json_has_numbers_not_strings(real_run):
    record = read_json(real_run.dir / f"{REAL}.json")
    measured = record["measured"]
    assert type(measured["min_delta"]) is float
    assert type(measured["min_q_minus_p"]) is float
    assert type(measured["support_kept"]) is bool
    assert all(type(v) is float for v in measured["min_delta_by_distribution"])
    assert type(record["expected"]["min_delta"]) is float
    for part in ("measured", "expected", "provenance"):
        assert strings_that_look_like_numbers(record[part]) == [], part
    text = (real_run.dir / "results.json").read_text(encoding="utf-8")
    assert "NaN" not in text
    assert "Infinity" not in text


def test_real_run_arrays(real_run):
    with np.load(real_run.dir / f"{REAL}.npz") as npz:
        assert set(npz.files) == {"k", "min_delta", "betas"}
        assert npz["min_delta"].shape == (npz["min_delta"].shape[0], npz["betas"].size)
        measured = read_json(real_run.dir / f"{REAL}.json")["measured"]
        assert float(npz["min_delta"].min()) == measured["min_delta"]


def test_list_shows_the_last_verdict(real_run, monkeypatch, capsys):
    monkeypatch.chdir(real_run.root)
    assert main(["list"]) == 0
    last = listed(capsys.readouterr().out)
    assert last[REAL] == "PASS"
    assert {v for k, v in last.items() if k != REAL} <= {"-"}


def test_list_with_an_explicit_results_root(real_run, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["list", "--results", str(real_run.root / "results")]) == 0
    assert listed(capsys.readouterr().out)[REAL] == "PASS"


def test_report_rebuilds_html_from_json(real_run, tmp_path, monkeypatch, capsys):
    shutil.copytree(real_run.root / "results", tmp_path / "results", symlinks=True)
    run_dir = tmp_path / "results" / "r1"
    before = (run_dir / "report.html").read_text(encoding="utf-8")
    (run_dir / "report.html").unlink()
    (run_dir / "report.md").unlink()
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(run_dir)]) == 0
    assert (
        capsys.readouterr().out == f"wrote {run_dir / 'report.md'} and {run_dir / 'report.html'}\n"
    )
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert page == before
    assert REAL in page
    assert page.count("data:image/png;base64,") == 1
    assert f"| `{REAL}` | **PASS** |" in (run_dir / "report.md").read_text(encoding="utf-8")


def test_report_defaults_to_latest(real_run, tmp_path, monkeypatch, capsys):
    shutil.copytree(real_run.root / "results", tmp_path / "results", symlinks=True)
    (tmp_path / "results" / "r1" / "report.html").unlink()
    monkeypatch.chdir(tmp_path)
    assert main(["report"]) == 0
    assert "results/latest/report.html" in capsys.readouterr().out
    assert (tmp_path / "results" / "r1" / "report.html").is_file()


def test_report_without_results_json(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    assert main(["report", "empty"]) == 2
    line = one_line_error(capsys.readouterr())
    assert "results.json" in line
    assert "empty" in line
    assert not (tmp_path / "empty" / "report.html").exists()


# -------------------------------------------------------------------------------- runs of fakes
def run_fake(argv: list[str], tmp_path: Path) -> tuple[int, dict]:
    code = main(["run", *argv, "--out", str(tmp_path / "results" / "run")])
    return code, read_json(tmp_path / "results" / "run" / "results.json")


def test_failing_claim_exits_1(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    fail = fake_claims("fail")
    code, payload = run_fake([fail], tmp_path)
    assert code == 1
    assert payload["counts"]["FAIL"] == 1
    assert payload["claims"][0]["verdict"] == "FAIL"
    out = capsys.readouterr().out
    assert (
        out.splitlines()[-2]
        == "1 claim: 1 FAIL (FAIL and INCONCLUSIVE are findings: see the report)"
    )


def test_crashing_claim_is_an_error_with_its_traceback(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    crash = fake_claims("crash")
    code, payload = run_fake([crash], tmp_path)
    assert code == 1
    assert payload["counts"]["ERROR"] == 1
    record = read_json(tmp_path / "results" / "run" / f"{crash}.json")
    assert record == payload["claims"][0]
    assert record["verdict"] == "ERROR"
    assert record["summary"] == "check crashed: RuntimeError: boom <in check>"
    assert record["error"].startswith("Traceback (most recent call last):")
    assert "_fake_crash" in record["error"]
    assert record["error"].rstrip().endswith("RuntimeError: boom <in check>")
    assert record["statement"] == "A fake crash claim <for tests>."
    assert record["provenance"]["seed"] == 0
    page = (tmp_path / "results" / "run" / "report.html").read_text(encoding="utf-8")
    assert "RuntimeError: boom &lt;in check&gt;" in page
    assert "1 claim: 1 ERROR\nreport: " in capsys.readouterr().out


def test_inconclusive_claim_exits_0(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, payload = run_fake([fake_claims("inc")], tmp_path)
    assert code == 0
    assert payload["counts"] == {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 1, "ERROR": 0, "NOT_RUN": 0}
    assert "1 INCONCLUSIVE" in capsys.readouterr().out


def test_one_failure_among_passes_exits_1(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ok, fail, crash = fake_claims("pass"), fake_claims("fail"), fake_claims("crash")
    code, payload = run_fake([crash, ok, fail, ok], tmp_path)  # repeats run once
    assert code == 1
    assert [c["claim_id"] for c in payload["claims"]] == sorted([ok, fail, crash])
    assert payload["counts"] == {"PASS": 1, "FAIL": 1, "INCONCLUSIVE": 0, "ERROR": 1, "NOT_RUN": 0}
    assert (
        capsys.readouterr().out.splitlines()[-2].startswith("3 claims: 1 PASS, 1 FAIL, 1 ERROR (")
    )


@pytest.mark.parametrize(
    ("fail_on", "kinds", "expected"),
    [
        ("error", ["fail", "inc"], 0),
        ("error", ["pass", "crash"], 1),
        ("never", ["fail", "crash"], 0),
        ("fail", ["pass", "inc"], 0),
    ],
)
def test_fail_on_sets_what_exits_1(
    fake_claims, tmp_path, monkeypatch, capsys, fail_on, kinds, expected
):
    monkeypatch.chdir(tmp_path)
    ids = [fake_claims(kind) for kind in kinds]
    code, _ = run_fake([*ids, "--fail-on", fail_on], tmp_path)
    assert code == expected


def test_claim_lines_fit_100_columns_off_a_terminal(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(FAKES, "fail", lambda ctx: CheckResult(Verdict.FAIL, "x" * 700, {}, {}, ""))
    fail = fake_claims("fail")
    run_fake([fail], tmp_path)
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("report: ")  # a path as the user gave it; every other line fits
    assert all(len(line) <= 100 for line in lines[:-1])
    assert lines[0].startswith(f"FAIL         {fail}  xxx")
    assert lines[0].endswith("…")


def hide_real_claims(paper: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unregister ``paper``'s real claims for one test, so that only the fakes remain."""
    for c in all_claims():
        if c.paper == paper:
            monkeypatch.delitem(_REGISTRY, c.id)


def test_paper_key_selects_its_claims(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    hide_real_claims("hivemind", monkeypatch)
    ours = [fake_claims("pass", paper="hivemind"), fake_claims("inc", paper="hivemind")]
    fake_claims("fail")  # an rlvr claim that must not run
    code, payload = run_fake(["hivemind"], tmp_path)
    assert code == 0
    assert [c["claim_id"] for c in payload["claims"]] == sorted(ours)


def test_seed_and_scale_reach_the_claim(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ok = fake_claims("pass")
    code, payload = run_fake([ok, "--seed", "5", "--scale", "full"], tmp_path)
    assert code == 0
    record = payload["claims"][0]
    assert record["measured"]["seed"] == 5
    assert record["measured"]["scale"] == "full"
    assert (record["provenance"]["seed"], record["provenance"]["scale"]) == (5, "full")
    assert (payload["run"]["seed"], payload["run"]["scale"]) == (5, "full")
    # the claim's numbers depend on (seed, claim id) alone
    rng = np.random.default_rng(Context(seed=5, claim_id=ok).seed_entropy("x"))
    assert record["measured"]["x"] == float(rng.random())
    assert record["measured"]["curve"] == [0.5, 0.25]


def test_default_run_directory(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ok = fake_claims("pass")
    assert main(["run", ok]) == 0
    (run_dir,) = [p for p in (tmp_path / "results").iterdir() if p.name != "latest"]
    assert re.fullmatch(r"\d{8}-\d{6}-quick", run_dir.name)
    assert (tmp_path / "results" / "latest").resolve() == run_dir
    payload = read_json(run_dir / "results.json")
    assert payload["run"]["run_id"] == run_dir.name
    assert (run_dir / f"{ok}.npz").is_file()
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 1
    assert "A fake pass claim &lt;for tests&gt;." in page
    assert f"report: results/{run_dir.name}/report.html" in capsys.readouterr().out


def test_a_second_run_moves_latest(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ok, fail = fake_claims("pass"), fake_claims("fail")
    assert main(["run", ok, "--out", "results/a"]) == 0
    assert main(["run", fail, "--out", "results/b"]) == 1
    assert (tmp_path / "results" / "latest").resolve() == (tmp_path / "results" / "b").resolve()
    capsys.readouterr()
    assert main(["list"]) == 0
    last = listed(capsys.readouterr().out)
    assert (last[ok], last[fail]) == ("-", "FAIL")


# --------------------------------------------------------------------------------------- list
def test_list_prints_every_claim(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["claim", "last", "run"]
    last = listed(out)
    assert list(last) == [c.id for c in all_claims()]
    assert REAL in last
    assert set(last.values()) == {"-"}  # no run yet
    assert not [c for c in last if "test_fake" in c]  # fakes of other tests were removed
    assert not (tmp_path / "results").exists()


def test_list_filters_by_paper(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    hide_real_claims("hivemind", monkeypatch)
    other = fake_claims("pass", paper="hivemind")
    assert main(["list"]) == 0
    assert other in listed(capsys.readouterr().out)
    assert main(["list", "rlvr"]) == 0
    rlvr = listed(capsys.readouterr().out)
    assert other not in rlvr
    assert list(rlvr) == [c.id for c in all_claims() if c.paper == "rlvr"]
    assert main(["list", "hivemind"]) == 0
    assert list(listed(capsys.readouterr().out)) == [other]


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_list_refuses_a_results_path_that_is_no_directory(tmp_path, monkeypatch, capsys, kind):
    """The hostile round's example: a mistyped --results looked like 'no runs yet'."""
    monkeypatch.chdir(tmp_path)
    if kind == "file":
        Path("afile").write_text("x")
    assert main(["list", "--results", "afile" if kind == "file" else "nope"]) == 2
    assert "--results" in one_line_error(capsys.readouterr())


def test_list_unknown_paper(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["list", "nosuch"]) == 2
    assert "'nosuch'" in one_line_error(capsys.readouterr())


# ---------------------------------------------------------------------------------- bad usage
def test_run_without_targets(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run"]) == 2
    assert "--all" in one_line_error(capsys.readouterr())
    assert not (tmp_path / "results").exists()


def test_run_unknown_claim(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", REAL, "nosuch"]) == 2
    line = one_line_error(capsys.readouterr())
    assert "nosuch" in line
    assert line.startswith("paper-checks: error: ")
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["run", REAL, "--scale", "bogus"], "bogus"),
        (["run", REAL, "--workers", "0"], "--workers"),
        (["run", REAL, "--workers", "two"], "--workers"),
        (["run", REAL, "--seed", "-1"], "--seed"),
        (["run", REAL, "--seed", "1.5"], "--seed"),
        (["run", REAL, "--scheduler", "threads"], "threads"),
        (["run", REAL, "--backend", "torch"], "--backend"),
        (["run", REAL, "--no-such-flag"], "--no-such-flag"),
        (["frobnicate"], "frobnicate"),
        ([], "command"),
    ],
)
def test_bad_arguments_are_one_line(tmp_path, monkeypatch, capsys, argv, named):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    line = one_line_error(capsys.readouterr())
    assert named in line
    assert "error" in line
    assert not (tmp_path / "results").exists()


@pytest.mark.skipif(cupy_sees_a_device(), reason="cupy sees a CUDA device here")
def test_cupy_backend_without_a_gpu(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", REAL, "--backend", "cupy"]) == 2
    assert "cupy" in one_line_error(capsys.readouterr())
    assert not (tmp_path / "results").exists()


@pytest.mark.skipif(torch_sees_a_device(), reason="torch sees a CUDA device here")
def test_cuda_device_without_a_gpu(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", REAL, "--device", "cuda"]) == 2
    assert "device 'cuda'" in one_line_error(capsys.readouterr())
    assert not (tmp_path / "results").exists()


def test_a_run_records_the_device_it_asked_for(tmp_path, capsys):
    assert main(["run", REAL, "--out", str(tmp_path / "run"), "--fail-on", "never"]) == 0
    capsys.readouterr()
    run, results = load_results(tmp_path / "run")
    assert run["device"] == "cpu"
    assert all(r.provenance["device"] == "cpu" for r in results)


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["solve", "passk", "--help"]])
def test_help(capsys, argv):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: paper-checks")
    if argv == ["run", "--help"]:
        for option in (
            "--all",
            "--scale",
            "--seed",
            "--workers",
            "--scheduler",
            "--backend",
            "--device",
            "--out",
        ):
            assert option in out


def test_version_is_the_package_version(capsys):
    from paper_checks import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"paper-checks {__version__}\n"


# --------------------------------------------------------------------------- python -m paper_checks
def test_python_m_list(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "paper_checks", "list"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert REAL in listed(proc.stdout)
    assert "Traceback" not in proc.stderr


def test_python_m_bad_usage_has_no_traceback(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "paper_checks", "run", "nosuch"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert "nosuch" in proc.stderr
    assert not (tmp_path / "results").exists()


def test_list_of_a_paper_without_claims_yet_says_so(capsys):
    known_without_claims = [p for p in PAPERS if p not in {c.paper for c in all_claims()}]
    if not known_without_claims:
        pytest.skip("every paper has claims")
    assert main(["list", known_without_claims[0]]) == 0
    assert "no claims yet" in capsys.readouterr().out
    assert main(["run", known_without_claims[0]]) == 2
    assert "has no claims yet" in capsys.readouterr().err


def test_two_runs_in_the_same_second_get_two_directories(fake_claims, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frozen = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    monkeypatch.setattr(cli, "datetime", SimpleNamespace(now=lambda tz=None: frozen))
    ok = fake_claims("pass")
    for _ in range(2):
        assert main(["run", ok, "-q"]) == 0
    runs = sorted(d.name for d in (tmp_path / "results").iterdir() if d.name != "latest")
    assert runs == ["20260102-030405-quick", "20260102-030405-quick-2"]
    assert (tmp_path / "results" / "latest").resolve().name == runs[1]


# ----------------------------------------------------------------- --update, --dry-run, paper scale
def test_update_replaces_only_the_claims_run(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    passing, failing = fake_claims("pass"), fake_claims("fail")
    run_fake([passing, failing, "--fail-on", "never"], tmp_path)
    before = read_json(tmp_path / "results" / "run" / "results.json")
    code, after = run_fake([failing, "--update", "--fail-on", "never"], tmp_path)
    assert code == 0
    assert [c["claim_id"] for c in after["claims"]] == [c["claim_id"] for c in before["claims"]]
    assert after["claims"][0] == before["claims"][0]  # the claim not rerun is kept as it was
    assert after["counts"] == before["counts"]
    (update,) = after["run"]["updates"]
    assert update["claims"] == [failing]
    assert "--update" in update["argv"]
    assert after["run"]["argv"] == before["run"]["argv"]


def test_update_may_use_another_replicate_count(fake_claims, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    passing, failing = fake_claims("pass"), fake_claims("fail")
    run_fake([passing, failing, "--replicates", "3", "--fail-on", "never"], tmp_path)
    code, after = run_fake([failing, "--update", "--fail-on", "never"], tmp_path)
    assert code == 0
    assert after["run"]["replicates"] == 3
    (update,) = after["run"]["updates"]
    assert update["replicates"] == 1


def test_merge_copies_a_run_made_elsewhere_into_a_reference_run(fake_claims, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    passing, failing = fake_claims("pass"), fake_claims("fail")
    run_fake([passing, failing, "--replicates", "3", "--fail-on", "never"], tmp_path)
    before = read_json(tmp_path / "results" / "run" / "results.json")
    assert main(["run", failing, "--out", "elsewhere", "--fail-on", "never"]) == 0
    assert main(["merge", "elsewhere", "results/run"]) == 0
    after = read_json(tmp_path / "results" / "run" / "results.json")
    assert [c["claim_id"] for c in after["claims"]] == [c["claim_id"] for c in before["claims"]]
    kept, replaced = ({c["claim_id"]: c for c in run["claims"]} for run in (before, after))
    assert replaced[passing] == kept[passing]
    merged = read_json(tmp_path / "elsewhere" / "results.json")["claims"][0]
    assert replaced[failing] == merged != kept[failing]
    assert (tmp_path / "results" / "run" / f"{failing}.json").read_bytes() == (
        tmp_path / "elsewhere" / f"{failing}.json"
    ).read_bytes()
    (update,) = after["run"]["updates"]
    assert update["claims"] == [failing]
    assert update["replicates"] == 1
    assert update["merged_from"] == "elsewhere"
    assert "--out" in update["argv"]


def test_merge_refuses_another_kind_of_run(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    passing = fake_claims("pass")
    run_fake([passing], tmp_path)
    assert main(["run", passing, "--out", "other", "--seed", "4"]) == 0
    capsys.readouterr()
    assert main(["merge", "other", "results/run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("paper-checks: error: merge:")
    assert "seed" in err
    assert main(["merge", "results/run", "results/run"]) == 2
    assert "DST_RUN" in capsys.readouterr().err
    assert main(["merge", "missing", "results/run"]) == 2
    assert "SRC_RUN 'missing' does not exist" in capsys.readouterr().err
    assert main(["merge", "results/run", "missing"]) == 2
    assert "DST_RUN 'missing' does not exist" in capsys.readouterr().err


def test_update_refuses_another_kind_of_run(fake_claims, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    passing = fake_claims("pass")
    run_fake([passing], tmp_path)
    for extra, word in (["--seed", "3"], "seed"), (["--scale", "full"], "scale"):
        assert main(["run", passing, "--update", "--out", "results/run", *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("paper-checks: error: --update:")
        assert word in err
    assert main(["run", passing, "--update", "--out", "results/none"]) == 2
    assert "--update" in capsys.readouterr().err


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--all", "--scale", "paper", "--dry-run"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == [
        "claim", "plan", "root", "seeds", "tasks", "CPU", "(1", "core)", "GPU", "path", "note"
    ]  # fmt: skip
    assert any(
        line.startswith("gated_attention.gate_sparse ") and " refused " in line for line in lines
    )
    assert any(line.startswith("faster_rcnn.anchor_count ") and " runs " in line for line in lines)
    assert "15B MoE" in out  # the reason is printed in full, once
    assert lines[-1].endswith("of CPU") or "without an estimate" in lines[-1]
    assert not (tmp_path / "results").exists()


def test_dry_run_says_which_claims_compute_on_the_gpu_asked_for(tmp_path, monkeypatch, capsys):
    # no GPU here: a dry run touches no device; it names each claim's GPU paths and counts the
    # claims that would compute on the one asked for, and estimates no GPU time
    monkeypatch.chdir(tmp_path)
    assert main(["run", "gated_attention", "rlvr", "--dry-run", "--backend", "cupy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    gated = next(line for line in lines if line.startswith("gated_attention.sink_removed "))
    assert gated.split()[-2] == "cuda"
    toy = next(line for line in lines if line.startswith("rlvr.toy_crossing "))
    assert toy.split()[-2] == "-"
    summary = next(line for line in lines if line.startswith("--device cpu --backend cupy:"))
    assert "0 of the" in summary  # neither paper has a cupy path: all on the CPU and numpy
    assert "no GPU time is estimated" in summary
    assert not (tmp_path / "results").exists()


def test_paper_scale_refuses_claims_with_one_line_each(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "online.two_thirds_line", "--scale", "paper"]) == 2
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0].split()[:3] == ["REFUSED", "online.two_thirds_line", "[1]"]
    assert "theorems" in captured.out
    assert captured.err.strip() == (
        "paper-checks: error: --scale paper: every claim named is refused at paper scale"
    )
    assert not (tmp_path / "results").exists()


def test_every_claim_has_a_paper_scale_plan():
    from paper_checks.paper_scale import PaperSizes, Refused, plan_for

    for c in all_claims():
        assert isinstance(plan_for(c), PaperSizes | Refused), c.id
