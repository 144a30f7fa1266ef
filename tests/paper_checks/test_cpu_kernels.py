"""A run holds torch's CPU kernels to AVX2 on x86-64 (paper_checks.runner.hold_cpu_kernels), in
its own process and in the workers it starts, and its records say which kernels computed them:
float32 training on an AVX-512 machine otherwise ends in other bits than on an AVX2 one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paper_checks import runner
from paper_checks.runner import CPU_KERNEL_ENV, hold_cpu_kernels

ROOT = Path(__file__).resolve().parents[2]


def _has_avx2() -> bool:
    try:
        return "avx2" in Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


needs_avx2 = pytest.mark.skipif(not _has_avx2(), reason="needs an x86-64 CPU with AVX2")


def _env_without_kernel_settings() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CPU_KERNEL_ENV}
    env["PYTHONPATH"] = str(ROOT)
    return env


def test_hold_sets_what_the_environment_leaves_unset_on_x86_64_only(monkeypatch):
    for name in CPU_KERNEL_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")  # the user's choice stays
    monkeypatch.setattr(runner.platform, "machine", lambda: "x86_64")
    hold_cpu_kernels()
    assert os.environ["ATEN_CPU_CAPABILITY"] == "default"
    assert os.environ["MKL_ENABLE_INSTRUCTIONS"] == "AVX2"
    assert os.environ["ONEDNN_MAX_CPU_ISA"] == "AVX2"
    for name in CPU_KERNEL_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(runner.platform, "machine", lambda: "aarch64")
    hold_cpu_kernels()
    assert not any(name in os.environ for name in CPU_KERNEL_ENV)


@needs_avx2
def test_the_driver_and_its_worker_processes_compute_with_the_held_kernels():
    pytest.importorskip("torch")
    script = (
        "from paper_checks.runner import hold_cpu_kernels\n"
        "hold_cpu_kernels()\n"
        "import torch\n"
        "from sims.sweep import ProcessExecutor, run_sweep\n"
        "from tests.sims import sweep_tasks\n"
        "torch.ones(4).softmax(0)\n"
        "with ProcessExecutor(2) as pool:\n"
        "    rows = run_sweep(sweep_tasks.torch_kernels, [{}, {}], executor=pool)\n"
        "print([torch.backends.cpu.get_cpu_capability()] + [r['result']['torch'] for r in rows])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        env=_env_without_kernel_settings(),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert out.stdout.strip() == "['AVX2', 'AVX2', 'AVX2']"


@needs_avx2
def test_a_records_provenance_names_the_kernels_torch_used(tmp_path):
    pytest.importorskip("torch")
    subprocess.run(
        [sys.executable, "-m", "paper_checks", "run", "faster_rcnn.param_ratio", "--out",
         str(tmp_path), "--quiet"],
        env=_env_without_kernel_settings(),
        capture_output=True,
        check=True,
        cwd=ROOT,
    )  # fmt: skip
    record = json.loads((tmp_path / "faster_rcnn.param_ratio.json").read_text())
    assert record["provenance"]["cpu_kernels"] == {"torch": "AVX2"}


def test_a_torch_that_fails_to_import_leaves_the_kernels_unnamed(monkeypatch):
    runner.cpu_kernels.cache_clear()
    # torch is found installed, but importing it raises ImportError
    monkeypatch.setattr(runner.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setitem(sys.modules, "torch", None)
    try:
        assert runner.cpu_kernels() == {}
    finally:
        runner.cpu_kernels.cache_clear()
