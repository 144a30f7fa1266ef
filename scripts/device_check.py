#!/usr/bin/env python3
"""The device check: what this project's GPU paths do on a machine with one NVIDIA GPU.

Run from the repository root, with or without an install::

    python3 scripts/device_check.py [--out DIR] [--work DIR] [--budget-s 450]

It needs python3 with numpy, scipy, numba, matplotlib, networkx, sympy, pytest, hypothesis,
torch and cupy. The project's other dependencies (array-api-compat, tqdm, array-api-strict) may
come as wheels in ``.device-wheels/`` (``make device-wheels`` fills it on a machine with the
registry; the folder is ignored by git and travels with the working tree); they are installed
into ``WORK/site`` without a network. What is missing is said in one line each, and the check
stops before running anything.

Then, each step under its share of ``--budget-s``:

1. the ``gpu``-marked tests;
2. ``paper-checks bench --gpu``: each GPU path against the same code on this machine's CPU;
3. one ``--scale full`` run per paper on the GPU (``--device cuda --backend cupy``, sweeps on
   ``--workers`` processes sharing the GPU) of the claim with a ``cuda`` or ``cupy`` path whose
   committed full reference record cost least (:func:`gpu_claims`), with its wall time, its
   verdict beside the reference's, and how far its numbers are from the reference record's,
   made on the CPU with the same seed (:func:`largest_relative_difference`).

Everything goes to ``DIR/device-check.json`` (default DIR: ``$OUT`` if set, else
``device-check``), with the GPU's name, the library versions and each step's exit status, and
the benchmarks to ``DIR/bench-gpu.json``; the runs and the wheels' site go to ``WORK``
(default: a fresh temporary folder), so that ``DIR`` holds the two files alone.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
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


def reference_records() -> dict[str, dict[str, Any]]:
    """The committed full reference run's records by claim id (``docs/results/full``)."""
    path = ROOT / "docs" / "results" / "full" / "results.json"
    if not path.is_file():
        return {}
    return {r["claim_id"]: r for r in json.loads(path.read_text(encoding="utf-8"))["claims"]}


#: The claim each paper runs on the GPU: of those with a GPU path, one whose full run computes its
#: own sweeps cheaply (the full reference's CPU time: diffusion.spectrum_matches_theory 5 s,
#: superposition.regime_knob 26 s, gated_attention.loss_not_worse the 20-run text sweep of about
#: 400 CPU-s, deep_crl.signal_propagation 17 s, rlvr.transformer_crossing 137 s,
#: hivemind.minilm_paraphrase 3 s). A record made
#: from a sweep another claim had cached reads cheaper than it is, so the choice is written here.
PREFERRED = (
    "diffusion.spectrum_matches_theory",
    "superposition.regime_knob",
    "gated_attention.loss_not_worse",
    "deep_crl.signal_propagation",
    "rlvr.transformer_crossing",
    "hivemind.minilm_paraphrase",
)


def gpu_claims() -> list[str]:
    """One claim per paper that declares a GPU path (``cuda`` or ``cupy``): the paper's claim
    in :data:`PREFERRED` where it declares one, else the paper's first such claim."""
    from paper_checks.claims import all_claims

    chosen: dict[str, str] = {}
    for c in all_claims():
        has_path = "cuda" in c.devices or "cupy" in c.backends
        if has_path and (c.paper not in chosen or c.id in PREFERRED):
            chosen[c.paper] = c.id
    return list(chosen.values())


def _numbers(value: Any, path: str = "") -> dict[str, float]:
    """The finite numbers (not booleans) in a JSON value, by their path."""
    if isinstance(value, dict):
        return {
            k: v for key, item in value.items() for k, v in _numbers(item, f"{path}.{key}").items()
        }
    if isinstance(value, list):
        return {
            k: v for i, item in enumerate(value) for k, v in _numbers(item, f"{path}[{i}]").items()
        }
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return {path: float(value)}
    return {}


def largest_relative_difference(measured: Any, reference: Any) -> dict[str, Any]:
    """How far a run's ``measured`` numbers are from a reference record's: the largest
    |a − b| / max(|b|, 1e-12) over the numbers both hold at the same path, where it is, and how
    many numbers were compared."""
    ours, theirs = _numbers(measured), _numbers(reference)
    shared = sorted(ours.keys() & theirs.keys())
    if not shared:
        return {"compared": 0}
    gaps = {k: abs(ours[k] - theirs[k]) / max(abs(theirs[k]), 1e-12) for k in shared}
    worst = max(shared, key=gaps.__getitem__)
    return {"compared": len(shared), "largest": gaps[worst], "at": worst}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="device_check", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "device-check")))
    parser.add_argument(
        "--work", type=Path, default=None, help="runs and site (default: a temp dir)"
    )
    parser.add_argument("--budget-s", type=float, default=450.0, help="all steps together")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="device-check-")) if args.work is None else args.work
    work = work.resolve()
    site = work / "site"
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
            0.35 * budget,
        ),
        run_step(
            "bench --gpu",
            [*py, "-m", "paper_checks", "bench", "--gpu", "--out", str(out / "bench-gpu.json")],
            env,
            0.25 * budget,
        ),
    ]
    claims = gpu_claims()
    report["gpu_claims"] = claims or "no claim declares a cuda or cupy path yet"
    reference = reference_records()
    workers = str(max(1, min(8, (os.cpu_count() or 2) // 2)))
    for claim_id in claims:
        device = ["--device", "cuda", "--backend", "cupy", "--workers", workers]
        steps.append(
            run_step(
                f"run {claim_id} --scale full on the GPU",
                [
                    *py,
                    *("-m", "paper_checks", "run", claim_id, "--scale", "full", *device),
                    *("--fail-on", "never", "--out", str(work / "runs" / claim_id)),
                ],
                env,
                0.4 * budget / len(claims),
            )
        )
        results = work / "runs" / claim_id / "results.json"
        if results.is_file():
            record = json.loads(results.read_text(encoding="utf-8"))["claims"][0]
            steps[-1]["verdict"] = record["verdict"]
            steps[-1]["provenance"] = record["provenance"]
            if (ref := reference.get(claim_id)) is not None:
                steps[-1]["reference_verdict"] = ref["verdict"]
                steps[-1]["against_reference"] = largest_relative_difference(
                    record["measured"], ref["measured"]
                )
    report["steps"] = steps
    bench = out / "bench-gpu.json"
    if bench.is_file():
        report["bench"] = json.loads(bench.read_text(encoding="utf-8"))["benchmarks"]
    (out / "device-check.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"device_check: wrote {out / 'device-check.json'}")
    return 0 if all(s["exit"] == 0 for s in steps) else 1


if __name__ == "__main__":
    sys.exit(main())
