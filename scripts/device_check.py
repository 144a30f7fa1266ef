#!/usr/bin/env python3
"""The device check: what this project's GPU paths do on a machine with one NVIDIA GPU.

Run from the repository root, with or without an install::

    python3 scripts/device_check.py [--out DIR] [--budget-s 450]

It needs python3 with numpy, scipy, numba, matplotlib, networkx, sympy, pytest, hypothesis,
torch and cupy. The project's other dependencies (array-api-compat, tqdm, array-api-strict) may
come as wheels in ``.device-wheels/`` (``make device-wheels`` fills it on a machine with the
registry; the folder is ignored by git and travels with the working tree); they are installed
into ``DIR/site`` without a network. What is missing is said in one line each, and the check
stops before running anything.

Then, each step under its share of ``--budget-s``:

1. the ``gpu``-marked tests;
2. ``paper-checks bench --gpu``: each GPU path against the same code on this machine's CPU;
3. one ``--scale full`` run per paper of a claim that declares a ``cuda`` or ``cupy`` path, with
   its wall time and verdict (none declares one yet: the JSON says so).

Everything goes to ``DIR/device-check.json`` (default DIR: ``$OUT`` if set, else
``device-check``), with the GPU's name, the library versions and each step's exit status.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: On the GPU machine's image (import name -> what to say when it is missing).
IMAGE_MODULES = (
    "numpy",
    "scipy",
    "numba",
    "matplotlib",
    "networkx",
    "sympy",
    "mpmath",
    "pytest",
    "hypothesis",
    "torch",
    "cupy",
)
#: Not on the image: wheels in .device-wheels/ (import name, distribution name).
WHEEL_MODULES = (
    ("array_api_compat", "array-api-compat"),
    ("tqdm", "tqdm"),
    ("array_api_strict", "array-api-strict"),
)
WHEELS = ROOT / ".device-wheels"
SINGLE_THREADED = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}


def install_wheels(site: Path) -> str | None:
    """Install the wheels of ``.device-wheels/`` into ``site`` (no index, no dependencies);
    None on success, else why not."""
    wheels = sorted(WHEELS.glob("*.whl"))
    if not wheels:
        return None
    site.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps"]
    done = subprocess.run(
        [*cmd, "--target", str(site), *map(str, wheels)],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return f"pip could not install .device-wheels: {done.stderr.strip()[-300:]}"
    return None


def missing_modules(site: Path) -> list[str]:
    """One line per module the check needs and cannot import."""
    sys.path[:0] = [str(ROOT), str(site)]
    lines = []
    for name in IMAGE_MODULES:
        try:
            importlib.import_module(name)
        except Exception as err:  # noqa: BLE001 - any import failure is reported, not raised
            lines.append(f"{name}: not importable ({type(err).__name__}: {err})")
    for name, dist in WHEEL_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            lines.append(
                f"{name}: not importable; put the {dist} wheel in .device-wheels/ "
                "(make device-wheels, on a machine with the package registry)"
            )
    return lines


def gpu_facts() -> dict[str, Any]:
    """The GPU as torch and cupy see it, and the versions of the libraries that use it."""
    import cupy
    import numpy as np
    import torch

    facts: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "cupy": cupy.__version__,
        "torch_cuda": torch.cuda.is_available(),
        "cpu_count": os.cpu_count(),
    }
    if torch.cuda.is_available():
        facts["gpu"] = torch.cuda.get_device_name(0)
        facts["gpu_memory_gib"] = round(torch.cuda.get_device_properties(0).total_memory / 2**30)
    return facts


def run_step(name: str, cmd: list[str], env: dict[str, str], timeout_s: float) -> dict[str, Any]:
    """Run one step as a child process, bounded by ``timeout_s``; its status and output tail."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            cmd, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout_s
        )
        status, tail = done.returncode, (done.stdout + done.stderr)[-3000:]
    except subprocess.TimeoutExpired as err:
        out = (err.stdout or b"").decode(errors="replace") if err.stdout else ""
        status, tail = "timeout", f"stopped after {timeout_s:.0f} s\n{out[-2000:]}"
    wall = round(time.perf_counter() - start, 1)
    print(f"{name}: exit {status} in {wall} s", flush=True)
    return {"step": name, "argv": cmd, "exit": status, "wall_s": wall, "output_tail": tail}


def gpu_claims() -> list[str]:
    """One claim per paper that declares a GPU path (``cuda`` or ``cupy``), first in order."""
    from paper_checks.claims import all_claims

    chosen: dict[str, str] = {}
    for c in all_claims():
        if "cuda" in c.devices or "cupy" in c.backends:
            chosen.setdefault(c.paper, c.id)
    return list(chosen.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="device_check", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "device-check")))
    parser.add_argument("--budget-s", type=float, default=450.0, help="all steps together")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    site = out / "site"
    report: dict[str, Any] = {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    problems = [p for p in [install_wheels(site)] if p] + missing_modules(site)
    if problems:
        report["missing"] = problems
        (out / "device-check.json").write_text(json.dumps(report, indent=1) + "\n")
        for line in problems:
            print(f"device_check: missing: {line}", file=sys.stderr)
        return 2
    report["machine"] = gpu_facts()
    env = {
        **os.environ,
        **SINGLE_THREADED,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), os.environ.get("PYTHONPATH", "")]),
        "MPLBACKEND": "Agg",
    }
    py = [sys.executable]
    gpu_tests = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if "mark.gpu" in p.read_text(encoding="utf-8")
    )
    budget = args.budget_s
    steps = [
        run_step(
            "gpu tests",
            [*py, "-m", "pytest", "-p", "no:cacheprovider", "-m", "gpu", "-q", *gpu_tests],
            env,
            0.25 * budget,
        ),
        run_step(
            "bench --gpu",
            [*py, "-m", "paper_checks", "bench", "--gpu", "--out", str(out / "bench-gpu.json")],
            env,
            0.35 * budget,
        ),
    ]
    claims = gpu_claims()
    report["gpu_claims"] = claims or "no claim declares a cuda or cupy path yet"
    for claim_id in claims:
        device = ["--device", "cuda", "--backend", "cupy"]
        steps.append(
            run_step(
                f"run {claim_id} --scale full on the GPU",
                [
                    *py,
                    *("-m", "paper_checks", "run", claim_id, "--scale", "full", *device),
                    *("--fail-on", "never", "--out", str(out / "runs" / claim_id)),
                ],
                env,
                0.4 * budget / len(claims),
            )
        )
        results = out / "runs" / claim_id / "results.json"
        if results.is_file():
            record = json.loads(results.read_text(encoding="utf-8"))["claims"][0]
            steps[-1]["verdict"] = record["verdict"]
            steps[-1]["provenance"] = record["provenance"]
    report["steps"] = steps
    bench = out / "bench-gpu.json"
    if bench.is_file():
        report["bench"] = json.loads(bench.read_text(encoding="utf-8"))["benchmarks"]
    (out / "device-check.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"device_check: wrote {out / 'device-check.json'}")
    return 0 if all(s["exit"] == 0 for s in steps) else 1


if __name__ == "__main__":
    sys.exit(main())
