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
    assert not (tmp_path / "bench-gpu.json").exists()


def test_the_gpu_claims_are_those_that_declare_a_gpu_path():
    from paper_checks.claims import all_claims

    chosen = _module().gpu_claims()
    declared = [c for c in all_claims() if "cuda" in c.devices or "cupy" in c.backends]
    assert set(chosen) <= {c.id for c in declared}
    assert {c.paper for c in declared} == {c.split(".")[0] for c in chosen}
    assert len(chosen) == len({c.split(".")[0] for c in chosen})  # one per paper
