"""``paper-checks bench``: each core solver against its baseline, run in the same process.

A benchmark builds its inputs once, then times our implementation and a baseline (the obvious
implementation a user would otherwise write) on them, checks that both give the same answer, and
reports the median times and their ratio. Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sims._jsonio import write_json_atomic


@dataclass(frozen=True)
class Comparison:
    """Prepared inputs: ``ours()`` and ``baseline()`` compute the same thing; ``agree(a, b)``
    says whether their outputs match."""

    ours: Callable[[], Any]
    baseline: Callable[[], Any]
    agree: Callable[[Any, Any], bool]
    size: str


@dataclass(frozen=True)
class Benchmark:
    name: str
    description: str
    baseline: str
    prepare: Callable[[bool], Comparison]


_BENCHMARKS: dict[str, Benchmark] = {}


def benchmark(name: str, *, description: str, baseline: str):
    """Register ``prepare(quick) -> Comparison`` as benchmark ``name``."""

    def register(prepare: Callable[[bool], Comparison]) -> Callable[[bool], Comparison]:
        _BENCHMARKS[name] = Benchmark(name, description, baseline, prepare)
        return prepare

    return register


def _median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def run_benchmarks(
    *, quick: bool = False, out: Path | None = None, only: list[str] | None = None, repeats: int = 5
) -> list[dict[str, Any]]:
    """Run the registered benchmarks (or ``only`` these) and write ``out`` (JSON) if given."""
    unknown = sorted(set(only or []) - set(_BENCHMARKS))
    if unknown:
        raise ValueError(
            f"--only: unknown benchmark {unknown[0]!r} (known: {', '.join(_BENCHMARKS)})"
        )
    rows = []
    for bench in _BENCHMARKS.values():
        if only and bench.name not in only:
            continue
        comparison = bench.prepare(quick)
        comparison.ours()  # warm-up: JIT compilation and caches are not what we measure
        ours_s, ours_out = _median_time(comparison.ours, repeats)
        baseline_s, base_out = _median_time(comparison.baseline, max(1, repeats // 2))
        rows.append(
            {
                "name": bench.name,
                "description": bench.description,
                "baseline": bench.baseline,
                "size": comparison.size,
                "ours_s": ours_s,
                "baseline_s": baseline_s,
                "speedup": baseline_s / ours_s,
                "agree": bool(comparison.agree(ours_out, base_out)),
                "repeats": repeats,
            }
        )
    if out is not None:
        write_json_atomic(out, {"quick": quick, "benchmarks": rows})
    return rows


# ------------------------------------------------------------------------------------- entries
@benchmark(
    "pass_at_k",
    description="unbiased pass@k estimator for every problem of a dataset",
    baseline="per-problem loop of 1 - math.comb(n-c, k) / math.comb(n, k)",
)
def _bench_pass_at_k(quick: bool) -> Comparison:
    from theory.passk import pass_at_k

    problems, n, k = (100_000 if quick else 1_000_000), 256, 16
    rng = np.random.default_rng(0)
    c = rng.binomial(n, rng.beta(0.3, 1.5, size=problems))
    n_arr = np.full(problems, n)

    def baseline() -> np.ndarray:
        return np.array(
            [
                1.0 if n - ci < k else 1.0 - math.comb(n - ci, k) / math.comb(n, k)
                for ci in c.tolist()
            ]
        )

    return Comparison(
        ours=lambda: pass_at_k(n_arr, c, k),
        baseline=baseline,
        agree=lambda a, b: bool(np.allclose(a, b, rtol=1e-9, atol=1e-12)),
        size=f"{problems:,} problems, n={n}, k={k}",
    )
