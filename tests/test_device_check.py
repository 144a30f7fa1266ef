"""scripts/device_check.py: on a machine without cupy or a GPU it says what is missing and stops;
the claims it would run on the GPU are those that declare a GPU path."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.devices import cupy_sees_a_device, torch_sees_a_device

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "device_check.py"


def _module():
    spec = importlib.util.spec_from_file_location("device_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(cupy_sees_a_device() and torch_sees_a_device(), reason="a GPU is here")
def test_without_cupy_it_names_what_is_missing_and_runs_nothing(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines
    assert all(line.startswith("device_check: missing: ") for line in lines)
    report = json.loads((tmp_path / "device-check.json").read_text(encoding="utf-8"))
    assert report["missing"] == [line.removeprefix("device_check: missing: ") for line in lines]
    assert "steps" not in report
    assert [p.name for p in tmp_path.iterdir()] == ["device-check.json"]  # the rest in --work


def test_the_gpu_claims_are_those_that_declare_a_gpu_path():
    from paper_checks.claims import all_claims

    chosen = _module().gpu_claims()
    declared = [c for c in all_claims() if "cuda" in c.devices or "cupy" in c.backends]
    assert set(chosen) <= {c.id for c in declared}
    assert {c.paper for c in declared} == {c.split(".")[0] for c in chosen}
    assert len(chosen) == len({c.split(".")[0] for c in chosen})  # one per paper
    preferred = set(_module().PREFERRED)
    assert {c.id for c in declared} & preferred <= set(chosen)  # the cheap ones where declared


def test_a_gpu_run_is_compared_number_by_number_with_the_cpu_reference():
    compare = _module().largest_relative_difference
    reference = {"ks": 0.02, "counts": [10, 20], "ok": True, "note": "x", "nan": float("nan")}
    run = {"ks": 0.0201, "counts": [10, 20], "ok": False, "extra": 3.0, "nan": 1.0}
    assert compare(run, reference) == {"compared": 3, "largest": pytest.approx(0.005), "at": ".ks"}
    assert compare({"a": "b"}, reference) == {"compared": 0}


def test_the_committed_device_check_is_rendered_into_the_benchmarks_page():
    from tools.docs import render_device_check

    assert render_device_check(None).startswith("No device check has run yet")
    stopped = render_device_check({"created": "t", "missing": ["cupy: not importable"]})
    assert stopped.endswith("stopped before running anything: cupy: not importable")
    row = {
        "name": "gpu_batched_gated_lm",
        "size": "K = 8",
        "ours_s": 0.5,
        "baseline_s": 3.0,
        "speedup": 6.0,
        "agree": False,
        "detail": "max |batched − alone| over every output = 2e-3",
        "baseline": "the same seeds one at a time",
        "clock": "wall",
    }
    report = {
        "created": "2027-01-01T00:00:00Z",
        "machine": {"gpu": "NVIDIA H100 80GB HBM3", "torch": "2.11.0", "cpu_count": 16},
        "not_run_here": {"hivemind.minilm_paraphrase": "needs the minilm extra"},
        "timing": "the benchmarks ran alone",
        "steps": [
            {"step": "bench --gpu --quick", "exit": 0, "wall_s": 90.1, "output_tail": ""},
            {
                "step": "gpu tests",
                "exit": "timeout",
                "wall_s": 216.0,
                "output_tail": "PASSED\n===== 20 passed, 6 skipped in 51.2s =====\nstopped",
            },
            {
                "step": "run diffusion.spectrum_matches_theory --scale full on the GPU",
                "exit": 0,
                "wall_s": 12.5,
                "verdict": "PASS",
                "reference_verdict": "PASS",
                "against_reference": {"compared": 40, "largest": 1.2e-9, "at": ".ks"},
            },
        ],
        "bench": [row],
    }
    text = render_device_check(report)
    assert "NVIDIA H100 80GB HBM3" in text
    assert "| gpu tests | timeout | 216.0 | 20 passed, 6 skipped in 51.2s |" in text
    assert "PASS (CPU reference: PASS), numbers within 1.2e-09" in text
    assert "| run hivemind.minilm_paraphrase | not run | - | needs the minilm extra |" in text
    assert "| `gpu_batched_gated_lm` | K = 8 | 0.5 | 3 | 6.0x | DISAGREE" in text
