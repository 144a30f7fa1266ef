"""``paper-checks bench``: the benchmark rows and their JSON (speed itself is never asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paper_checks.bench import _BENCHMARKS, run_benchmarks
from paper_checks.cli import main
from sims._jsonio import read_json
from tests.devices import cupy_sees_a_device, torch_sees_a_device

ROW_KEYS = {
    "name",
    "description",
    "baseline",
    "detail",
    "size",
    "ours_s",
    "baseline_s",
    "speedup",
    "agree",
    "repeats",
    "clock",
}


@pytest.fixture(scope="module")
def pass_at_k_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], Path]:
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    return run_benchmarks(quick=True, only=["pass_at_k"], repeats=1, out=out), out


def test_pass_at_k_row(pass_at_k_run):
    rows, _ = pass_at_k_run
    assert len(rows) == 1
    row = rows[0]
    assert set(row) == ROW_KEYS
    assert row["name"] == "pass_at_k"
    assert row["agree"] is True  # ours and the math.comb loop give the same numbers
    assert row["repeats"] == 1
    assert row["clock"] == "wall"
    assert row["ours_s"] > 0
    assert row["baseline_s"] > 0
    assert row["speedup"] == pytest.approx(row["baseline_s"] / row["ours_s"], rel=1e-12)
    assert row["baseline"] == _BENCHMARKS["pass_at_k"].baseline
    assert "100,000 problems" in row["size"]  # the quick size


def test_json_file_holds_the_rows(pass_at_k_run):
    rows, out = pass_at_k_run
    payload = read_json(out)
    assert {k: payload[k] for k in ("quick", "benchmarks")} == {"quick": True, "benchmarks": rows}
    assert set(payload["provenance"]) == {
        "argv",
        "created",
        "git_sha",
        "machine",
        "versions",
        "cpu_kernels",
    }


def test_unknown_benchmark_is_named(tmp_path: Path):
    out = tmp_path / "bench.json"
    with pytest.raises(ValueError, match="'no_such_bench'") as err:
        run_benchmarks(quick=True, only=["pass_at_k", "no_such_bench"], repeats=1, out=out)
    assert str(err.value).startswith("--only")
    assert "pass_at_k" in str(err.value)  # lists the known ones
    assert not out.exists()  # nothing was run or written


def test_cli_unknown_benchmark_is_one_line(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "--quick", "--only", "no_such_bench"]) == 2
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == 1
    assert "no_such_bench" in captured.err
    assert not (tmp_path / "bench.json").exists()


def test_online_benchmarks_agree_with_their_baselines(tmp_path):
    rows = run_benchmarks(quick=True, only=["mtr_dp_8_points", "littlestone_dim"], repeats=1)
    assert [r["name"] for r in rows] == ["mtr_dp_8_points", "littlestone_dim"]
    assert all(r["agree"] for r in rows)


def test_quick_skips_full_only_benchmarks(monkeypatch):
    from paper_checks import bench

    cheap = bench.Comparison(
        ours=lambda: 1, baseline=lambda: 1, agree=lambda a, b: a == b, size="1"
    )
    fake = {
        "light": bench.Benchmark("light", "d", "b", lambda quick: cheap),
        "heavy": bench.Benchmark("heavy", "d", "b", lambda quick: cheap, full_only=True),
    }
    monkeypatch.setattr(bench, "_BENCHMARKS", fake)
    assert [r["name"] for r in run_benchmarks(quick=True, repeats=1)] == ["light"]
    assert [r["name"] for r in run_benchmarks(quick=False, repeats=1)] == ["light", "heavy"]
    assert _BENCHMARKS["mtr_dp_10_points"].full_only


def test_gpu_benchmarks_run_only_with_gpu(monkeypatch):
    from paper_checks import bench

    cheap = bench.Comparison(
        ours=lambda: 1, baseline=lambda: 1, agree=lambda a, b: a == b, size="1"
    )
    fake = {
        "cpu": bench.Benchmark("cpu", "d", "b", lambda quick: cheap),
        "gpu": bench.Benchmark("gpu", "d", "b", lambda quick: cheap, gpu=True),
    }
    monkeypatch.setattr(bench, "_BENCHMARKS", fake)
    monkeypatch.setattr(bench, "gpu_missing", lambda: None)
    assert [r["name"] for r in run_benchmarks(quick=True, repeats=1)] == ["cpu"]
    assert [r["name"] for r in run_benchmarks(quick=True, repeats=1, gpu=True)] == ["gpu"]
    gpu_rows = [b.name for b in _BENCHMARKS.values() if b.gpu]
    assert gpu_rows == [
        "gpu_pass_at_k",
        "gpu_ge_gram",
        "gpu_superposition_trainer",
        "gpu_deep_crl_batched_critic",
        "gpu_nonlinear_u",
        "gpu_gated_lm",
        "gpu_batched_gated_lm",
        "gpu_batched_gated_sink",
        "gpu_batched_deep_crl_critic",
        "gpu_batched_deep_crl_online",
        "gpu_batched_rlvr_arm_b",
        "gpu_rlvr_arm_b",
    ]


def test_the_batched_rows_on_the_gpu_are_the_cpu_rows_on_the_cuda_device(monkeypatch):
    from paper_checks import bench

    asked = []

    def prepare(quick, device="cpu"):
        asked.append((quick, device))
        return bench.Comparison(ours=lambda: 1, baseline=lambda: 2, agree=None, size="s")

    monkeypatch.setattr(bench, "_torch_on_gpu", lambda fn: lambda: ("synchronised", fn()))
    comparison = bench._batched_on_gpu(prepare)(True)
    assert asked == [(True, "cuda")]
    assert (comparison.ours(), comparison.baseline()) == (("synchronised", 1), ("synchronised", 2))
    for name, row in bench._BENCHMARKS.items():
        if name.startswith("gpu_batched_"):
            cpu_row = row.description.split("CPU row ")[1].split(" ")[0]
            assert not bench._BENCHMARKS[cpu_row].gpu
            assert bench._BENCHMARKS[cpu_row].clock == "cpu"


def test_a_stopped_bench_keeps_the_rows_it_finished(monkeypatch, tmp_path):
    from paper_checks import bench

    cheap = bench.Comparison(
        ours=lambda: 1, baseline=lambda: 1, agree=lambda a, b: a == b, size="1"
    )

    def stopped(quick):
        raise KeyboardInterrupt  # as if the run were killed while this row ran

    fake = {
        "first": bench.Benchmark("first", "d", "b", lambda quick: cheap),
        "second": bench.Benchmark("second", "d", "b", stopped),
    }
    monkeypatch.setattr(bench, "_BENCHMARKS", fake)
    out = tmp_path / "bench.json"
    with pytest.raises(KeyboardInterrupt):
        run_benchmarks(quick=True, repeats=1, out=out)
    kept = read_json(out)
    assert [r["name"] for r in kept["benchmarks"]] == ["first"]
    assert kept["quick"] is True
    assert "provenance" in kept


@pytest.mark.skipif(cupy_sees_a_device() and torch_sees_a_device(), reason="a GPU is here")
def test_cli_gpu_bench_without_a_gpu_is_one_line(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "--gpu", "--quick"]) == 2
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == 1
    assert "--gpu" in captured.err
    assert not (tmp_path / "bench.json").exists()


@pytest.mark.gpu
def test_gpu_benchmarks_agree_with_the_cpu():
    pytest.importorskip("cupy")
    rows = run_benchmarks(quick=True, repeats=1, gpu=True)
    assert [r["name"] for r in rows] == [b.name for b in _BENCHMARKS.values() if b.gpu]
    assert all(r["agree"] for r in rows), rows


def test_rmt_density_row_agrees_and_reports_the_difference():
    rows = run_benchmarks(quick=True, only=["rmt_density"], repeats=1)
    assert rows[0]["agree"] is True
    assert rows[0]["detail"].startswith("max |Δρ|/max(1, ρ) = ")


def test_ge_gram_row_agrees():
    rows = run_benchmarks(quick=True, only=["ge_gram_eigenvalues"], repeats=1)
    assert rows[0]["agree"] is True
    assert "p=1600" in rows[0]["size"]


@pytest.mark.slow
def test_bootstrap_row_agrees_with_the_per_draw_loop():
    (row,) = run_benchmarks(quick=True, only=["bootstrap_pass_at_k"], repeats=1)
    assert row["agree"] is True  # same draws, same CIs and k* draws as the per-draw loop
    assert row["size"] == "2,000 problems, 2,000 resamples, 2 models, 9 k"


def test_arm_b_sampler_row_agrees_with_the_exact_pass1():
    pytest.importorskip("torch")
    (row,) = run_benchmarks(quick=True, only=["arm_b_sampler"], repeats=1)
    assert row["agree"] is True  # grouped and per-row counts both within 4 s.e. of exact p
    assert "276 prompts" in row["size"]


def test_rf_domain_row_reports_the_share_passing_and_the_time_per_spectrum():
    """The solve rmt box sampled log-uniformly (8 points at --quick): every spectrum passes its
    self-check, at least as many as with the single tanh-sinh mass estimate."""
    (row,) = run_benchmarks(quick=True, only=["rf_domain"], repeats=1)
    assert row["agree"]
    assert row["detail"].startswith("passing 100.0%")
    assert "CPU-s per spectrum" in row["detail"]


def test_the_benchmarks_page_is_generated_from_a_bench_json():
    from tools.docs import render_bench

    row = {
        "name": "pass_at_k",
        "size": "10 | 20",
        "ours_s": 0.01,
        "baseline_s": 1.0,
        "speedup": 100.0,
        "agree": True,
        "detail": "",
        "baseline": "a loop",
    }
    refuted = {
        "conjecture": "M_tr == Ldim",
        "strategy": "s()",
        "seeds": 20,
        "entropy": 7,
        "refuted": 20,
        "rate": 1.0,
        "first_s_median": 0.01,
        "first_s_max": 0.2,
        "total_s_max": 3.0,
    }
    prov = {
        "argv": ["bench", "--out", "/somewhere/else/b.json"],
        "created": "2026-12-02",
        "git_sha": "abcdef1234567",
        "machine": "x86_64, 2 CPUs, Linux",
    }
    text = render_bench(
        {
            "quick": False,
            "benchmarks": [row],
            "provenance": prov,
            "conjecture_refutation": [refuted],
            "default_settings": [
                {
                    "conjecture": "M_tr <= Ldim",
                    "true": True,
                    "strategy": "counterexample_classes()",
                    "seeds": 5,
                    "entropy": 3,
                    "passed": 4,
                    "refuted": 0,
                    "errors": {"error: FlakyFailure": 1},
                    "created": "2026-12-04",
                    "git_sha": "0123456789abcdef",
                }
            ],
        }
    )
    assert (
        "`paper-checks bench --out <elsewhere>/b.json`, 2026-12-02, commit `abcdef123456`" in text
    )
    assert "| `pass_at_k` | 10 \\| 20 | 0.01 | 1 | 100.0x | agree | a loop |" in text
    assert "| M_tr == Ldim | `s()` | 20 of 20 | 0.01 / 0.2 | 3 |" in text
    assert "5 seeds, entropy 3; 2026-12-04, commit `0123456789ab`" in text
    assert "| M_tr <= Ldim | yes | 4 of 5 | 0 of 5 | 1 × error: FlakyFailure |" in text


def test_cpu_clock_rows_say_their_times_are_cpu_seconds():
    from tools.docs import render_bench

    row = {
        "name": "critic",
        "size": "K = 8",
        "ours_s": 2.0,
        "baseline_s": 4.0,
        "speedup": 2.0,
        "agree": True,
        "detail": "",
        "baseline": "one at a time",
        "clock": "cpu",
    }
    text = render_bench({"quick": True, "benchmarks": [row], "provenance": {}})
    assert "| `critic` | K = 8 | 2 CPU | 4 CPU | 2.0x | agree | one at a time |" in text
    assert _BENCHMARKS["deep_crl_batched_critic"].clock == "cpu"
