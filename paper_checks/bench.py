"""``paper-checks bench``: each core solver against its baseline, run in the same process.

A benchmark builds its inputs once, then times our implementation and a baseline (the obvious
implementation a user would otherwise write) on them, checks that both give the same answer, and
reports the median times and their ratio. Speed is measured here, never asserted in tests.

A ``gpu`` benchmark (``bench --gpu``) times one GPU path against the same code on the CPU cores
of the same machine: ours is the cupy or CUDA run, the baseline the numpy or CPU run.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Comparison:
    """Prepared inputs: ``ours()`` and ``baseline()`` compute the same thing; ``agree(a, b)``
    says whether their outputs match, and ``detail(a, b)`` (optional) how closely."""

    ours: Callable[[], Any]
    baseline: Callable[[], Any]
    agree: Callable[[Any, Any], bool]
    size: str
    detail: Callable[[Any, Any], str] | None = None


@dataclass(frozen=True)
class Benchmark:
    name: str
    description: str
    baseline: str
    prepare: Callable[[bool], Comparison]
    full_only: bool = False
    gpu: bool = False
    #: ``"wall"`` (time.perf_counter) or ``"cpu"`` (time.process_time: this process's CPU time).
    clock: str = "wall"


_CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}

_BENCHMARKS: dict[str, Benchmark] = {}


def benchmark(
    name: str,
    *,
    description: str,
    baseline: str,
    full_only: bool = False,
    gpu: bool = False,
    clock: str = "wall",
):
    """Register ``prepare(quick) -> Comparison`` as benchmark ``name`` (``full_only``: skipped by
    ``--quick``; ``gpu``: run only by ``--gpu``, on a CUDA device; ``clock``: ``"wall"`` or
    ``"cpu"``, what the times measure)."""

    def register(prepare: Callable[[bool], Comparison]) -> Callable[[bool], Comparison]:
        _BENCHMARKS[name] = Benchmark(name, description, baseline, prepare, full_only, gpu, clock)
        return prepare

    return register


def _median_time(
    fn: Callable[[], Any], repeats: int, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        start = clock()
        out = fn()
        times.append(clock() - start)
    return statistics.median(times), out


def provenance(argv: list[str]) -> dict[str, Any]:
    """When, where (the machine, and the CPU kernels torch used: :func:`paper_checks.runner.
    cpu_kernels`) and by which code a bench run was made (for docs/benchmarks.md)."""
    import os
    import platform
    from datetime import UTC, datetime

    from paper_checks.runner import cpu_kernels, git_sha, package_versions

    return {
        "argv": argv,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_sha": git_sha(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}, load "
        f"{os.getloadavg()[0]:.1f} at the start",
        "versions": package_versions(),
        "cpu_kernels": cpu_kernels(),
    }


def run_benchmarks(
    *,
    quick: bool = False,
    out: Path | None = None,
    only: list[str] | None = None,
    repeats: int = 5,
    argv: list[str] | None = None,
    gpu: bool = False,
) -> list[dict[str, Any]]:
    """Run the registered benchmarks (or ``only`` these) and write ``out`` (JSON, with the run's
    :func:`provenance`) if given. ``gpu``: run the GPU benchmarks instead of the CPU ones
    (checked first: :func:`gpu_missing`)."""
    unknown = sorted(set(only or []) - set(_BENCHMARKS))
    if unknown:
        raise ValueError(
            f"--only: unknown benchmark {unknown[0]!r} (known: {', '.join(_BENCHMARKS)})"
        )
    if gpu and (missing := gpu_missing()):
        raise ValueError(f"--gpu: {missing}")
    rows: list[dict[str, Any]] = []
    started = provenance(argv or ["bench"])  # the machine's load at the start, not at a write
    for bench in _BENCHMARKS.values():
        if (only and bench.name not in only) or (quick and bench.full_only and not only):
            continue
        if bench.gpu != gpu:
            continue
        if out is not None:  # each finished row is kept, also when a later one is stopped
            _write_rows(out, rows, quick=quick, gpu=gpu, provenance=started)
        comparison = bench.prepare(quick)
        comparison.ours()  # warm-up: JIT compilation and caches are not what we measure
        clock = _CLOCKS[bench.clock]
        ours_s, ours_out = _median_time(comparison.ours, repeats, clock)
        baseline_s, base_out = _median_time(comparison.baseline, max(1, repeats // 2), clock)
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
                "detail": comparison.detail(ours_out, base_out) if comparison.detail else "",
                "repeats": repeats,
                "clock": bench.clock,
            }
        )
    if out is not None:
        _write_rows(out, rows, quick=quick, gpu=gpu, provenance=started)
    return rows


def _write_rows(
    out: Path, rows: list[dict[str, Any]], *, quick: bool, gpu: bool, provenance: dict[str, Any]
) -> None:
    """Write the rows finished so far to ``out`` (atomically), with the run's provenance."""
    from paper_checks._files import write_json

    write_json(out, {"quick": quick, "gpu": gpu, "benchmarks": rows, "provenance": provenance})


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


@benchmark(
    "bootstrap_pass_at_k",
    description="paired bootstrap over problems of two pass@k curves, their difference and k*",
    baseline="per-draw loop: gather the drawn problems' estimates, mean, crossing_k per draw",
)
def _bench_bootstrap_pass_at_k(quick: bool) -> Comparison:
    from sims.bootstrap import bootstrap_pass_at_k, percentile_interval
    from theory.passk import crossing_k, logit_affine, pass_at_k

    problems, n_boot, n = (2_000, 2_000, 256) if quick else (10_000, 10_000, 256)
    ks = 2 ** np.arange(9)  # 1 .. 256
    rng = np.random.default_rng(0)
    p = rng.beta(0.3, 1.5, size=problems)  # base p, RL q = logit-affine(p; 2, 2) (docs/rlvr.md)
    c = [rng.binomial(n, p), rng.binomial(n, logit_affine(p, 2.0, 2.0))]
    n_arr = np.full(problems, n)

    def ours() -> tuple[np.ndarray, ...]:
        boot = bootstrap_pass_at_k([n_arr, n_arr], c, ks, 1, n_boot=n_boot)
        return boot.low, boot.high, boot.difference_low, boot.difference_high, boot.k_star_draws

    def baseline() -> tuple[np.ndarray, ...]:
        value = np.stack([[pass_at_k(n_arr, ci, int(k)) for k in ks] for ci in c])  # (2, K, P)
        delta = value[1] - value[0]
        draw = np.random.default_rng(1)
        curves, diffs, k_star = [], [], []
        for _ in range(n_boot):
            idx = draw.integers(0, problems, size=problems)
            curves.append(value[:, :, idx].mean(axis=2))
            diffs.append(delta[:, idx].mean(axis=1))
            cross = crossing_k(ks, np.zeros(ks.size), diffs[-1], np.abs(delta[:, idx]).mean(1))
            k_star.append(np.nan if cross.k_star is None else cross.k_star)
        low, high = percentile_interval(curves, 0.95)
        d_low, d_high = percentile_interval(diffs, 0.95)
        return low, high, d_low, d_high, np.array(k_star)[:, None]

    def agree(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> bool:
        return all(
            np.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True)
            for x, y in zip(a, b, strict=True)
        )

    return Comparison(
        ours=ours,
        baseline=baseline,
        agree=agree,
        size=f"{problems:,} problems, {n_boot:,} resamples, 2 models, {ks.size} k",
    )


def _random_matrix(n_points: int, n_hypotheses: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    codes = rng.choice(2**n_points, size=min(n_hypotheses, 2**n_points), replace=False)
    return np.array([[(int(c) >> j) & 1 for j in range(n_points)] for c in codes], dtype=np.uint8)


def _mtr_benchmark(n_points: int) -> Callable[[bool], Comparison]:
    def prepare(quick: bool) -> Comparison:  # noqa: ARG001 - the size is the benchmark's name
        from theory.online import ConceptClass
        from theory.online.mtr import mtr_by_permutations, transductive_mistake_bound

        H = ConceptClass.from_array(_random_matrix(n_points, 32, seed=n_points))
        return Comparison(
            ours=lambda: transductive_mistake_bound(H).value,
            baseline=lambda: mtr_by_permutations(H).value,
            agree=lambda a, b: a == b,
            size=f"|X| = {n_points}, |H| = {H.n_hypotheses}",
        )

    return prepare


for _n in (8, 9, 10):
    benchmark(
        f"mtr_dp_{_n}_points",
        description="exact transductive mistake bound: suffix-set Pareto DP (Numba)",
        baseline="max over all |X|! orders of the transductive value (Numba per order)",
        full_only=_n == 10,
    )(_mtr_benchmark(_n))


def _ldim_python(rows: list[int], point_masks: list[int]) -> int:
    """Littlestone dimension by plain recursion on Python-int bitsets with a dict memo."""
    memo: dict[int, int] = {}

    def rec(v: int) -> int:
        if v in memo:
            return memo[v]
        best = 0 if v else -1
        if v & (v - 1):
            for one in point_masks:
                v1, v0 = v & one, v & ~one
                if v1 and v0:
                    best = max(best, 1 + min(rec(v0), rec(v1)))
        memo[v] = best
        return best

    return rec((1 << len(rows)) - 1)


@benchmark(
    "littlestone_dim",
    description="Littlestone dimension: memoised bitset recursion (Numba)",
    baseline="the same recursion in pure Python (int bitsets, dict memo)",
)
def _bench_ldim(quick: bool) -> Comparison:
    from theory.online import ConceptClass
    from theory.online.dims import littlestone_dim

    n_points, n_hyp = (12, 48) if quick else (16, 64)
    matrix = _random_matrix(n_points, n_hyp, seed=1)
    H = ConceptClass.from_array(matrix)
    masks = [sum(1 << i for i in range(n_hyp) if matrix[i, j]) for j in range(n_points)]
    return Comparison(
        ours=lambda: littlestone_dim(H),
        baseline=lambda: _ldim_python(list(range(n_hyp)), masks),
        agree=lambda a, b: a == b,
        size=f"|X| = {n_points}, |H| = {n_hyp}",
    )


@benchmark(
    "rmt_density",
    description="random-feature U density (Thm 3.1) on the reference script's λ grid",
    baseline="per-λ Levenberg–Marquardt along the 113-stage ε schedule (reference style)",
)
def _bench_rmt_density(quick: bool) -> Comparison:
    from theory.rmt import DataSpectrum, rf_density_per_point, rf_stieltjes

    grid = np.concatenate([np.linspace(-0.1, 0.5, 100), np.linspace(0.5, 60.0, 301)[1:]])
    lam = grid[::10] if quick else grid
    kw = {"psi_p": 64.0, "psi_n": 8.0, "t": 0.01, "spectrum": DataSpectrum.of([0.5, 1.5])}

    def ours() -> np.ndarray:
        return rf_stieltjes(lam, eta=1e-9, **kw)[0].imag / np.pi

    def max_difference(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.max(np.abs(a - b) / np.maximum(1.0, b)))

    return Comparison(
        ours=ours,
        baseline=lambda: rf_density_per_point(lam, **kw),
        agree=lambda a, b: max_difference(a, b) < 1e-4,
        size=f"{lam.size} λ, ψ_p=64, ψ_n=8, Σ={{0.5,1.5}}, ε=1e-9",
        detail=lambda a, b: f"max |Δρ|/max(1, ρ) = {max_difference(a, b):.1e}",
    )


@benchmark(
    "rf_domain",
    description="share of a log-uniform sample of solve rmt's box (ψ_p, ψ_n ∈ [1, 4096], "
    "t ∈ [1e-3, 3]) where rf_spectrum passes its self-check (total mass 1 within 1e-3)",
    baseline="the same solver with one tanh-sinh mass estimate per bulk (before the adaptive "
    "mass quadrature)",
)
def _bench_rf_domain(quick: bool) -> Comparison:
    from theory.rmt import domain_sample, domain_scan

    points = domain_sample(8 if quick else 100, seed=0)

    def share(rows: list[dict]) -> float:
        return float(np.mean([r["passed"] for r in rows]))

    def per_spectrum(rows: list[dict]) -> float:
        return float(np.median([r["cpu_s"] for r in rows]))

    return Comparison(
        ours=lambda: domain_scan(points),
        baseline=lambda: domain_scan(points, mass_levels=0),
        agree=lambda a, b: share(a) >= share(b),
        size=f"{len(points)} points (seed 0)",
        detail=lambda a, b: (
            f"passing {share(a):.1%} (baseline {share(b):.1%}); median "
            f"{per_spectrum(a):.2f} CPU-s per spectrum (baseline {per_spectrum(b):.2f})"
        ),
    )


@benchmark(
    "ge_gram_eigenvalues",
    description="all p eigenvalues of a sampled Gaussian-equivalent U",
    baseline="dense numpy eigvalsh of the p × p matrix",
)
def _bench_ge_gram(quick: bool) -> Comparison:
    from sims.rmt import dense_eigenvalues, ge_eigenvalues, sample_ge

    d = 25 if quick else 50
    draw = sample_ge(d, 64.0, 8.0, 0.01, rng=np.random.default_rng(0))

    def ours() -> np.ndarray:
        values, at_floor = ge_eigenvalues(draw)
        return np.sort(np.concatenate([np.full(at_floor, draw.consts.s2), values]))

    def max_difference(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))

    return Comparison(
        ours=ours,
        baseline=lambda: dense_eigenvalues(draw),
        agree=lambda a, b: max_difference(a, b) < 1e-10,
        size=f"p={draw.p}, n+d={draw.n + draw.d}",
        detail=lambda a, b: f"max |Δλ|/λ_max = {max_difference(a, b):.1e}",
    )


def mtr_reach(seconds: float = 60.0, sizes: tuple[int, ...] = (64, 256)) -> list[dict[str, Any]]:
    """The largest |X| whose random class (|H| fixed) the exact DP solves within ``seconds``."""
    from theory.online import ConceptClass
    from theory.online.mtr import transductive_mistake_bound

    rows = []
    for n_hyp in sizes:
        solved, n = None, 12
        while True:
            H = ConceptClass.from_array(_random_matrix(n, n_hyp, seed=n))
            start = time.perf_counter()
            transductive_mistake_bound(H)
            elapsed = time.perf_counter() - start
            if elapsed > seconds:
                break
            solved = {"n_hypotheses": n_hyp, "n_points": n, "seconds": elapsed}
            n += 1
        rows.append(solved)
    return rows


# ----------------------------------------------------------------------------- superposition
_SUPERPOSITION_SIZE = {"n": 400, "m": 20, "batch": 512, "models": 8}


def _torch_toy_loop(p: np.ndarray, n_models: int, m: int, batch: int, steps: int) -> np.ndarray:
    """The reference's way: one model at a time in torch (autograd, Bernoulli × uniform data,
    the paper's AdamW with row-norm growth γ = −1), one thread; returns each model's last loss."""
    import torch

    from sims.superposition import ADAM_BETAS, ADAM_EPS, lr_schedule

    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(0)
    probs = torch.as_tensor(p, dtype=torch.float32).expand(batch, p.size)
    beta1, beta2 = ADAM_BETAS
    last = []
    for _ in range(n_models):
        W = (torch.randn(p.size, m, generator=gen) / m**0.5).requires_grad_()
        b = torch.randn(p.size, generator=gen).requires_grad_()
        state = [torch.zeros_like(W), torch.zeros_like(W), torch.zeros_like(b), torch.zeros_like(b)]
        for step in range(steps):
            lr = lr_schedule(step, steps, 1e-2, steps // 10)
            x = torch.bernoulli(probs, generator=gen) * torch.rand(batch, p.size, generator=gen) * 2
            loss = ((torch.relu(x @ W @ W.T + b) - x) ** 2).sum(dim=1).mean()
            W.grad = b.grad = None
            loss.backward()
            with torch.no_grad():
                W -= lr * (1 - 1 / W.norm(dim=1, keepdim=True)) * W  # growth, γ = −1
                for i, param in enumerate((W, b)):
                    m1, m2 = state[2 * i], state[2 * i + 1]
                    m1.mul_(beta1).add_(param.grad, alpha=1 - beta1)
                    m2.mul_(beta2).addcmul_(param.grad, param.grad, value=1 - beta2)
                    denom = (m2 / (1 - beta2 ** (step + 1))).sqrt() + ADAM_EPS
                    param.sub_(lr * (m1 / (1 - beta1 ** (step + 1))) / denom)
        last.append(loss.item())
    return np.array(last)


@benchmark(
    "superposition_batched_trainer",
    description="K = 8 toy models (n = 400, m = 20, B = 512) trained as one (K, n, m) stack on a "
    "shared sample stream (model-steps per second ratio)",
    baseline="one-model-at-a-time torch loop (autograd, one thread), the reference's kind",
)
def _bench_superposition_trainer(quick: bool) -> Comparison:
    from sims.superposition import TrainConfig, single_threaded_blas, train_models

    size = _SUPERPOSITION_SIZE
    steps = 40 if quick else 200
    config = TrainConfig(
        n=size["n"],
        widths=(size["m"],),
        gammas=(-1.0,) * size["models"],
        steps=steps,
        batch=size["batch"],
        eval_batches=2,
    )
    p = config.frequencies()

    def ours() -> np.ndarray:
        with single_threaded_blas():  # as in a sweep worker; torch.set_num_threads(1) likewise
            return train_models(config, 0).loss

    return Comparison(
        ours=ours,
        baseline=lambda: _torch_toy_loop(p, size["models"], size["m"], size["batch"], steps),
        # different streams: the mean losses after the same schedule agree to 25%
        agree=lambda a, b: abs(np.mean(a) / np.mean(b) - 1) < 0.25,
        size=f"K = {size['models']}, n = {size['n']}, m = {size['m']}, B = {size['batch']}, "
        f"{steps} steps",
    )


@benchmark(
    "superposition_sampler",
    description="toy-model data from one uniform draw per entry (U < p_i, value 2U/p_i)",
    baseline="separate Bernoulli and uniform draws",
)
def _bench_superposition_sampler(quick: bool) -> Comparison:
    from sims.superposition import sample_batch, sample_batch_two_draws
    from theory.superposition import feature_frequencies

    n, batch, repeats = 400, 512, (50 if quick else 500)
    p = feature_frequencies(n, 1.0).astype(np.float32)

    def stats(sampler: Callable) -> np.ndarray:
        rng = np.random.default_rng(0)
        draws = [sampler(p, batch, rng) for _ in range(repeats)]
        return np.array(
            [
                np.mean([d.values.size for d in draws]) / batch,
                np.mean([d.values.mean() for d in draws]),
            ]
        )  # active features per sample (E = 1), mean active value (1)

    return Comparison(
        ours=lambda: stats(sample_batch),
        baseline=lambda: stats(sample_batch_two_draws),
        agree=lambda a, b: bool(np.allclose(a, b, rtol=0.05)),
        size=f"{repeats} batches of B = {batch}, n = {n}",
    )


# ------------------------------------------------------------------- batched torch seeds
#: Seeds trained as one batched model in the batched-seed rows.
_BATCHED_SEEDS = 8


def _placed(params: dict[str, Any], device: str) -> dict[str, Any]:
    """A one-seed task's point on a torch device, as ``Context.sweep`` gives it: the CPU's as
    given, another device's with its ``device``."""
    return dict(params) | ({} if device == "cpu" else {"device": device})


def _leaves(record: Any) -> list[Any]:
    """The leaves of a nested record (dicts and lists walked in order)."""
    if isinstance(record, dict):
        return [leaf for value in record.values() for leaf in _leaves(value)]
    if isinstance(record, list | tuple):
        return [leaf for value in record for leaf in _leaves(value)]
    return [record]


def _numeric(leaf: Any) -> bool:
    return isinstance(leaf, float | np.ndarray | np.floating)


def _records_agree(a: list[dict], b: list[dict], rtol: float) -> bool:
    """Records of the same runs agree: every float leaf within ``rtol`` (relative; 1e-6
    absolute; equal infinities agree), every other leaf equal."""
    pairs = list(zip(_leaves(a), _leaves(b), strict=False))
    return len(_leaves(a)) == len(_leaves(b)) and all(
        np.allclose(x, y, rtol=rtol, atol=1e-6) if _numeric(y) else bool(np.all(x == y))
        for x, y in pairs
    )


def _records_max_difference(a: list[dict], b: list[dict]) -> str:
    diffs = [
        float(np.max(np.abs(np.asarray(x, float) - np.asarray(y, float)), initial=0.0))
        for x, y in zip(_leaves(a), _leaves(b), strict=False)
        if _numeric(y) and np.all(np.isfinite(y))
    ]
    return f"max |batched − alone| over every output = {max(diffs):.2g}"


@benchmark(
    "deep_crl_batched_critic",
    description=f"K = {_BATCHED_SEEDS} fixed-data CRL critics (trainability's quick size: width "
    "32, depth 16, batch 256) trained as one batched model (units per CPU-second ratio)",
    baseline="neural.deep_crl.train_maze_critic, one seed at a time (one thread)",
    clock="cpu",
)
def _bench_deep_crl_batched_critic(quick: bool, device: str = "cpu") -> Comparison:
    import torch

    from neural.deep_crl import train_maze_critic
    from neural.deep_crl_batched import train_maze_critic_batched

    torch.set_num_threads(1)
    params = {"variant": "paper", "depth": 16, "width": 32, "batch": 256}
    params["steps"] = 50 if quick else 600
    alone = _placed(params, device)

    def rngs() -> list[np.random.Generator]:
        return [np.random.default_rng([0, k]) for k in range(_BATCHED_SEEDS)]

    def continuous(records: list[dict]) -> list[dict]:
        """The records less their rank correlations (ρ moves by a step when a rounding error
        swaps two nearly tied goals): losses, loss curve, Q-map row."""
        return [{k: v for k, v in r.items() if not k.startswith("rho_")} for r in records]

    return Comparison(
        ours=lambda: continuous(train_maze_critic_batched(params, rngs(), device=device)),
        baseline=lambda: continuous([train_maze_critic(dict(alone), rng) for rng in rngs()]),
        agree=lambda a, b: _records_agree(a, b, rtol=1e-4),
        size=f"K = {_BATCHED_SEEDS}, {params['steps']} steps",
        detail=_records_max_difference,
    )


@benchmark(
    "deep_crl_batched_online",
    description=f"K = {_BATCHED_SEEDS} online CRL actor–critics (online_maze's deep arm per step: "
    "depth 16, width 64, 32 episodes of 100 steps, batch 256) for one epoch of 16 (quick) or 32 "
    "SGD steps and the final evaluation, trained as one batched model (units per CPU-second "
    "ratio)",
    baseline="neural.crl.train_online_crl, one seed at a time (one thread)",
    clock="cpu",
)
def _bench_deep_crl_batched_online(quick: bool, device: str = "cpu") -> Comparison:
    """One epoch only: the rollouts feed the actions back into the maze, so once the networks
    have trained, float32 rounding (another summation order) grows into other trajectories and
    the records of longer runs are no longer comparable number by number (measured: 2 epochs
    of 64 SGD steps at these sizes, 1.7x, end 0.047 apart; the epoch-1 rollouts are identical,
    those of epoch 2 separate by up to 0.1 cells; 1 epoch of 64 steps already 1.6e-3 apart on
    a Q-map)."""
    import torch

    from neural.crl import train_online_crl
    from neural.crl_batched import train_online_crl_batched

    torch.set_num_threads(1)
    params = {"depth": 16, "epochs": 1, "grad_steps": 16 if quick else 32}
    alone = _placed(params, device)

    def rngs() -> list[np.random.Generator]:
        return [np.random.default_rng([0, k]) for k in range(_BATCHED_SEEDS)]

    def finite(records: list[dict]) -> list[dict]:
        """The records with the Q-maps' wall cells (NaN in both, by the maze) left out."""
        return [r | {"q_map": r["q_map"][np.isfinite(r["q_map"])]} for r in records]

    return Comparison(
        ours=lambda: finite(train_online_crl_batched(params, rngs(), device=device)),
        baseline=lambda: finite([train_online_crl(dict(alone), rng) for rng in rngs()]),
        agree=lambda a, b: _records_agree(a, b, rtol=1e-4),
        size=f"K = {_BATCHED_SEEDS}, 1 epoch of {params['grad_steps']} SGD steps",
        detail=_records_max_difference,
    )


def _gated_lm_comparison(settings: dict[str, Any], quick: bool, device: str) -> Comparison:
    """K = 8 gated-LM runs of ``settings`` (G1 elementwise gate) on ``device``: batched vs one
    at a time."""
    import torch

    from neural.gated_batched import train_run_batched
    from neural.gated_training import RunSettings, train_run

    torch.set_num_threads(1)
    steps = 20 if quick else 100
    run = RunSettings(**settings, gate="elementwise", steps=steps, eval_every=steps)
    seeds = [(k, 1000 + k, 2000 + k) for k in range(_BATCHED_SEEDS)]

    def losses(records: list[dict]) -> list[dict]:
        """The losses of each record: the measurements that count values below a threshold
        (gate histograms, shares under 1e-2) move by one count when a value near the threshold
        moves by a rounding error, so the comparison keeps to the losses."""
        return [
            {"train": r["train_loss"], "val": [t["val_loss"] for t in r["trajectory"]]}
            for r in records
        ]

    return Comparison(
        ours=lambda: losses(train_run_batched(run, seeds, device=device)),
        baseline=lambda: losses([train_run(run, seed, device=device) for seed in seeds]),
        agree=lambda a, b: _records_agree(a, b, rtol=1e-4),
        size=f"K = {_BATCHED_SEEDS}, {steps} steps, evaluated at the start and the end",
        detail=_records_max_difference,
    )


@benchmark(
    "gated_lm_batched",
    description=f"K = {_BATCHED_SEEDS} gated-attention LMs (the text claims' sizes: d 64, 2 "
    "layers of 4 heads, batch 16 × 64 tokens) trained as one batched model (units per "
    "CPU-second ratio)",
    baseline="neural.gated_training.train_run, one seed at a time (one thread)",
    clock="cpu",
)
def _bench_gated_lm_batched(quick: bool, device: str = "cpu") -> Comparison:
    text = {"task": "text", "batch": 16, "seq_len": 64, "d_model": 64, "n_layers": 2}
    text |= {"n_heads": 4, "d_ffn": 176, "eval_batch": 128}
    return _gated_lm_comparison(text, quick, device)


@benchmark(
    "gated_sink_batched",
    description=f"K = {_BATCHED_SEEDS} sink-testbed LMs (Bigram-Backcopy, d 32, 1 layer of 1 "
    "head, batch 32 × 64 tokens, LR 2e-2) trained as one batched model (units per CPU-second "
    "ratio)",
    baseline="neural.gated_training.train_run, one seed at a time (one thread)",
    clock="cpu",
)
def _bench_gated_sink_batched(quick: bool, device: str = "cpu") -> Comparison:
    sink = {"task": "backcopy", "lr": 2e-2, "batch": 32, "seq_len": 64, "d_model": 32}
    sink |= {"n_layers": 1, "n_heads": 1, "d_ffn": 88, "vocab": 64, "n_triggers": 3}
    return _gated_lm_comparison(sink | {"eval_batch": 64}, quick, device)


@benchmark(
    "rlvr_batched_arm_b",
    description=f"K = {_BATCHED_SEEDS} seeds of the RLVR paper's Arm B (quick-scale transformer: "
    "24 nodes, d 32, 2 layers; SFT, GRPO, distillation, GRPO with KL, each evaluated by "
    "samples and exactly) trained as one batched model (units per CPU-second ratio)",
    baseline="neural.rlvr_transformer.arm_b_task, one seed at a time (one thread)",
    clock="cpu",
)
def _bench_rlvr_batched_arm_b(quick: bool, device: str = "cpu") -> Comparison:
    from neural.rlvr_batched import arm_b_batched
    from neural.rlvr_transformer import ArmBConfig, arm_b_task

    cfg = ArmBConfig()
    scale = 10 if quick else 1  # quick: a tenth of every stage's steps
    params = {
        "base_steps": cfg.base_steps // scale,
        "distill_steps": cfg.distill_steps // scale,
        "rl_steps": cfg.rl_steps // scale,
        "gate_margin": None,  # every stage runs
    }
    alone = _placed(params, device)

    def rngs() -> list[np.random.Generator]:
        return [np.random.default_rng([0, k]) for k in range(_BATCHED_SEEDS)]

    def unsampled(records: list[dict]) -> list[dict]:
        """What no sample decides: the split, the chance baseline, the base's loss curve and
        its exact success probabilities (the arms trained after GRPO's rollouts part from the
        one-seed runs' at the first sampled node that a rounding flips)."""
        keep = ("test", "chance_pass1", "base_loss")
        return [{k: r[k] for k in keep} | {"p_base": r["p"]["base"]} for r in records]

    def agree(a: list[dict], b: list[dict]) -> bool:
        """The splits and chance baselines equal; per seed, the base's loss curve and its mean
        exact pass@1 over the test prompts within 1e-3. Not every number at float tolerance:
        the SFT of some seeds amplifies roundings (seed [0, 7]: a 1e-7 relative change of one
        weight moves its one-seed loss by 5e-6 within 56 steps, and growing), so after 60 steps
        a batched seed can sit 2e-4 from its one-seed loss and 2e-3 from one prompt's p."""
        return all(
            np.array_equal(x["test"], y["test"])
            and np.array_equal(x["chance_pass1"], y["chance_pass1"])
            and np.allclose(x["base_loss"], y["base_loss"], rtol=0.0, atol=1e-3)
            and abs(x["p_base"].mean() - y["p_base"].mean()) < 1e-3
            for x, y in zip(a, b, strict=True)
        )

    return Comparison(
        ours=lambda: unsampled(arm_b_batched(dict(params), rngs(), device=device)),
        baseline=lambda: unsampled([arm_b_task(dict(alone), rng) for rng in rngs()]),
        agree=agree,
        size=f"K = {_BATCHED_SEEDS}, {params['base_steps']} SFT, {params['rl_steps']} GRPO "
        f"(twice) and {params['distill_steps']} distillation steps",
        detail=_records_max_difference,
    )


# ----------------------------------------------------------------------------- rlvr, Arm B
def _arm_b_counts_per_row(model, graph, prompts: np.ndarray, n: int, cfg) -> np.ndarray:
    """The obvious sampler: every one of the n samples of every prompt is its own row, and each
    step runs the model on the whole padded sequence; verified samples per prompt."""
    import torch

    from neural.rlvr_transformer import _tokens, verify

    gen = torch.Generator().manual_seed(0)
    batch = np.repeat(prompts, n, axis=0)
    p = torch.as_tensor(batch)
    paths = torch.full((len(batch), cfg.max_len), -1, dtype=torch.long)
    done = torch.zeros(len(batch), dtype=torch.bool)
    with torch.no_grad():
        for t in range(cfg.max_len):
            logits = model(_tokens(model, p, paths))[:, 2 + t]
            node = torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=gen).squeeze(1)
            paths[:, t] = torch.where(done, -1, node)
            done |= node == p[:, 1]
    return verify(graph, batch, paths.numpy()).reshape(len(prompts), n).sum(axis=1)


@benchmark(
    "arm_b_sampler",
    description="Arm B evaluation: n = 256 samples on each of 276 test prompts, drawn grouped by "
    "prefix (one multinomial per distinct prefix, copies off the graph's edges dropped)",
    baseline="one row per sample, the whole padded sequence through the model at every step",
)
def _bench_arm_b_sampler(quick: bool) -> Comparison:
    import torch

    from neural import rlvr_transformer as nb

    torch.set_num_threads(1)
    cfg = nb.ArmBConfig(n_eval=256)
    graph, rng = nb.make_graph(cfg), np.random.default_rng(0)
    torch.manual_seed(0)
    model = nb.PathTransformer(cfg)
    steps = 60 if quick else cfg.base_steps
    nb.supervised_train(
        model, *nb.walk_corpus(graph, cfg, steps * cfg.batch // 4, rng), steps, cfg, rng
    )
    pairs = np.array([(s, g) for s in range(graph.n) for g in range(graph.n) if s != g])
    prompts = pairs[rng.permutation(len(pairs))[: len(pairs) // 2]]
    exact = nb.exact_success_probs(model, graph, prompts, cfg)

    def grouped() -> np.ndarray:
        return nb._eval_counts(model, graph, prompts, cfg, np.random.default_rng(1))

    def agree(a: np.ndarray, b: np.ndarray) -> bool:
        """Both pass@1 estimates within 4 standard errors of the exact mean p."""
        se = np.sqrt(cfg.n_eval * np.sum(exact * (1 - exact))) / (cfg.n_eval * len(exact))
        return all(abs(c.mean() / cfg.n_eval - exact.mean()) < 4 * se + 1e-9 for c in (a, b))

    return Comparison(
        ours=grouped,
        baseline=lambda: _arm_b_counts_per_row(model, graph, prompts, cfg.n_eval, cfg),
        agree=agree,
        size=f"{len(prompts)} prompts × n = {cfg.n_eval}, model after {steps} SFT steps",
    )


# ------------------------------------------------------------------ property-test strategies
def _false_conjectures() -> dict[str, Callable[[Any], bool]]:
    """Three plausible, false conjectures about every finite class H: M_tr = Ldim; Ldim − M_tr
    ≤ 1 (false on W × W: (6, 4)); and Ldim = ⌊log2 |H|⌋ ⇒ M_tr = Ldim (false on W itself)."""
    from theory.online.dims import littlestone_dim
    from theory.online.mtr import transductive_mistake_bound

    def mtr(H: Any) -> int:
        return transductive_mistake_bound(H).value

    return {
        "M_tr == Ldim": lambda H: mtr(H) == littlestone_dim(H),
        "Ldim - M_tr <= 1": lambda H: littlestone_dim(H) - mtr(H) <= 1,
        "Ldim == floor(log2|H|) => M_tr == Ldim": lambda H: (
            littlestone_dim(H) != math.floor(math.log2(H.n_hypotheses))
            or mtr(H) == littlestone_dim(H)
        ),
    }


def _refutation_test(strategy: Any, holds: Callable[[Any], bool], hyp_seed: int):
    """A default-settings hypothesis test of ``holds`` over ``strategy`` at seed ``hyp_seed``,
    and the list that receives the clock time of its first counterexample."""
    from hypothesis import given, seed, settings

    found: list[float] = []

    @seed(hyp_seed)
    @settings(database=None)
    @given(strategy)
    def test(H: Any) -> None:
        if not holds(H):
            if not found:
                found.append(time.perf_counter())
            raise AssertionError("counterexample")

    return test, found


def conjecture_refutation(seeds: int = 20, entropy: int | None = None) -> list[dict[str, Any]]:
    """How often a hypothesis property test with default settings refutes each false conjecture
    of :func:`_false_conjectures`, over ``seeds`` fresh hypothesis seeds (drawn from
    ``entropy``, recorded), for the refuting strategy (``counterexample_classes``) and the
    small-first one (``concept_classes(max_points=5)``): the share refuted, and the seconds to
    the first counterexample and to the end of the test (shrinking and explaining included)."""
    import secrets

    from theory.online.strategies import concept_classes, counterexample_classes

    entropy = secrets.randbits(64) if entropy is None else entropy
    hyp_seeds = np.random.default_rng(entropy).integers(0, 2**32, size=seeds).tolist()
    strategies = {
        "counterexample_classes()": counterexample_classes(),
        "concept_classes(max_points=5)": concept_classes(max_points=5),
    }
    rows = []
    for conjecture, holds in _false_conjectures().items():
        for name, strategy in strategies.items():
            first, total = [], []
            for s in hyp_seeds:
                test, found = _refutation_test(strategy, holds, s)
                start = time.perf_counter()
                try:
                    test()
                except AssertionError:
                    first.append(found[0] - start)
                    total.append(time.perf_counter() - start)
            rows.append(
                {
                    "conjecture": conjecture,
                    "strategy": name,
                    "seeds": seeds,
                    "entropy": entropy,
                    "refuted": len(first),
                    "rate": len(first) / seeds,
                    "first_s_median": statistics.median(first) if first else None,
                    "first_s_max": max(first) if first else None,
                    "total_s_max": max(total) if total else None,
                }
            )
    return rows


def _default_settings_conjectures() -> dict[str, Callable[[Any], bool]]:
    """The conjectures :func:`default_settings_outcomes` tests, the true one first: M_tr ≤ Ldim
    (true for every class: docs/online.md#exact-values-the-checks-compare-with), then two false
    ones, M_tr ≤ Ldim − 1 (false on every class with M_tr = Ldim) and Ldim − M_tr ≤ 1 (false on
    W × W: (6, 4))."""
    from theory.online.dims import littlestone_dim
    from theory.online.mtr import transductive_mistake_bound

    def mtr(H: Any) -> int:
        return transductive_mistake_bound(H).value

    return {
        "M_tr <= Ldim": lambda H: mtr(H) <= littlestone_dim(H),
        "M_tr <= Ldim - 1": lambda H: mtr(H) <= littlestone_dim(H) - 1,
        "Ldim - M_tr <= 1": _false_conjectures()["Ldim - M_tr <= 1"],
    }


def default_settings_outcomes(
    hyp_seed: int, conjectures: list[str] | None = None
) -> dict[str, str]:
    """Run a hypothesis test of each conjecture of :func:`_default_settings_conjectures` (or of
    the ``conjectures`` named, in that order) over
    ``counterexample_classes()`` with hypothesis's default settings (200 ms deadline, 100
    examples, not derandomised; no example database) at seed ``hyp_seed``, in this process, as
    a user's test file would: the strategies module is imported first, which warms the solvers.

    Returns, per conjecture, ``"passed"``, ``"refuted"`` (a counterexample, confirmed on replay)
    or ``"error: <type>"`` for anything else (``DeadlineExceeded``, ``FlakyFailure``, ...).
    Meaningful in a fresh process only (:func:`fresh_process_outcomes`): in a warm one the
    solvers are compiled whatever the strategies module does.
    """
    from hypothesis import given, seed, settings

    from theory.online.strategies import counterexample_classes

    defaults = settings.get_profile("default")  # hypothesis's own, whatever profile is loaded

    def default_settings_test(holds: Callable[[Any], bool]) -> Callable[[], None]:
        @seed(hyp_seed)
        @settings(defaults, database=None)
        @given(counterexample_classes())
        def test(H: Any) -> None:
            assert holds(H), "counterexample"

        return test

    known = _default_settings_conjectures()
    outcomes = {}
    for conjecture in known if conjectures is None else conjectures:
        holds = known[conjecture]
        try:
            default_settings_test(holds)()
            outcomes[conjecture] = "passed"
        except AssertionError as err:
            refuted = str(err) == "counterexample"
            outcomes[conjecture] = "refuted" if refuted else f"error: {type(err).__name__}"
        except Exception as err:  # noqa: BLE001 - any other outcome is reported, not raised
            outcomes[conjecture] = f"error: {type(err).__name__}"
    return outcomes


def fresh_process_outcomes(
    hyp_seed: int, conjectures: list[str] | None = None, numba_cache_dir: str | None = None
) -> dict[str, str]:
    """:func:`default_settings_outcomes` at ``hyp_seed`` in a fresh Python process (nothing
    compiled in memory; Numba's on-disk cache is used unless ``numba_cache_dir`` points it
    elsewhere, e.g. at an empty folder, so that every kernel compiles)."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    if numba_cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = numba_cache_dir
    root = Path(__file__).resolve().parent.parent
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    code = (
        "import json, sys\n"
        "from paper_checks.bench import default_settings_outcomes\n"
        "names = json.loads(sys.argv[2])\n"
        "print(json.dumps(default_settings_outcomes(int(sys.argv[1]), names)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(hyp_seed), json.dumps(conjectures)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the fresh process exited {proc.returncode}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.splitlines()[-1])


def default_settings_conjectures(
    seeds: int = 5, entropy: int | None = None
) -> list[dict[str, Any]]:
    """How a user's property test fares under hypothesis's default settings, one fresh process
    per fresh hypothesis seed (``seeds`` seeds drawn from ``entropy``, recorded): per conjecture
    of :func:`_default_settings_conjectures`, how many seeds passed, were refuted or ended in
    another error (with the error types). The true conjecture should pass on every seed and the
    false ones be refuted on every seed."""
    import secrets
    from collections import Counter
    from datetime import UTC, datetime

    from paper_checks.runner import git_sha

    entropy = secrets.randbits(64) if entropy is None else entropy
    hyp_seeds = np.random.default_rng(entropy).integers(0, 2**32, size=seeds).tolist()
    created, sha = datetime.now(UTC).isoformat(timespec="seconds"), git_sha()  # the code run
    runs = [fresh_process_outcomes(s) for s in hyp_seeds]
    rows = []
    for conjecture in _default_settings_conjectures():
        counts = Counter(run[conjecture] for run in runs)
        rows.append(
            {
                "conjecture": conjecture,
                "true": conjecture == "M_tr <= Ldim",
                "strategy": "counterexample_classes()",
                "seeds": seeds,
                "entropy": entropy,
                "passed": counts.pop("passed", 0),
                "refuted": counts.pop("refuted", 0),
                "errors": dict(sorted(counts.items())),
                "created": created,
                "git_sha": sha,
            }
        )
    return rows


# ----------------------------------------------------------------------------- GPU against CPU
def gpu_missing() -> str | None:
    """Why the GPU benchmarks cannot run here (cupy or a CUDA device missing), else None."""
    from sims._backend import BackendUnavailable, check_device, get_backend

    try:
        get_backend("cupy")
        check_device("cuda")
    except BackendUnavailable as err:
        return str(err)
    return None


def _on_gpu(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` followed by a device synchronisation, so that its time is the kernels' time."""
    import cupy

    def synchronised() -> Any:
        out = fn()
        cupy.cuda.Device().synchronize()
        return out

    return synchronised


@benchmark(
    "gpu_pass_at_k",
    description="unbiased pass@k estimator for every problem of a dataset, on cupy",
    baseline="the same array-API code on numpy (this machine's CPU)",
    gpu=True,
)
def _bench_gpu_pass_at_k(quick: bool) -> Comparison:
    import cupy

    from sims._backend import to_numpy
    from theory.passk import pass_at_k_curve

    problems, n = (1_000_000 if quick else 10_000_000), 1024
    ks = [1, 4, 16, 64, 256, 1024]
    rng = np.random.default_rng(0)
    c = rng.binomial(n, rng.beta(0.3, 1.5, size=problems))
    n_cpu = np.full(problems, n)
    n_gpu, c_gpu = cupy.asarray(n_cpu), cupy.asarray(c)
    return Comparison(
        ours=_on_gpu(lambda: to_numpy(pass_at_k_curve(n_gpu, c_gpu, ks))),
        baseline=lambda: pass_at_k_curve(n_cpu, c, ks),
        agree=lambda a, b: bool(np.allclose(a, b, rtol=1e-9, atol=1e-12)),
        size=f"{problems:,} problems, n={n}, {len(ks)} k",
    )


@benchmark(
    "gpu_ge_gram",
    description="all eigenvalues of the GE matrix through the smaller Gram matrix, on cupy",
    baseline="the same array-API code on numpy (this machine's CPU)",
    gpu=True,
)
def _bench_gpu_ge_gram(quick: bool) -> Comparison:
    import array_api_compat.cupy as xp_cupy

    from sims.rmt import ge_eigenvalues, sample_ge

    d = 100 if quick else 200
    draws = {
        xp: sample_ge(d, 4.0, 8.0, 0.1, rng=np.random.default_rng(0), xp=xp)
        for xp in (None, xp_cupy)
    }

    def max_difference(a: tuple[np.ndarray, int], b: tuple[np.ndarray, int]) -> float:
        return float(np.max(np.abs(a[0] - b[0])) / np.max(np.abs(b[0])))

    return Comparison(
        ours=_on_gpu(lambda: ge_eigenvalues(draws[xp_cupy])),
        baseline=lambda: ge_eigenvalues(draws[None]),
        agree=lambda a, b: a[1] == b[1] and max_difference(a, b) < 1e-9,
        size=f"d={d}, p={draws[None].p}, n={draws[None].n}",
        detail=lambda a, b: f"max |Δλ|/λ_max = {max_difference(a, b):.1e}",
    )


@benchmark(
    "gpu_superposition_trainer",
    description="K toy models of superposition trained as one batched model, on cupy",
    baseline="the same array-API trainer on numpy (this machine's CPU, one thread)",
    gpu=True,
)
def _bench_gpu_superposition_trainer(quick: bool) -> Comparison:
    from sims.superposition import TrainConfig, single_threaded_blas, train_models

    n, m, models = (1000, 16, 8) if quick else (10_240, 64, 16)
    config = TrainConfig(
        n=n, widths=(m,), gammas=(-1.0,) * models, steps=200, batch=1024, eval_batches=2
    )

    def on_cpu() -> np.ndarray:
        with single_threaded_blas():
            return train_models(config, 0).loss

    return Comparison(
        ours=_on_gpu(lambda: train_models(config, 0, backend="cupy").loss),
        baseline=on_cpu,
        # the same draws, made on the host and moved: float32 rounding apart, the same losses
        agree=lambda a, b: bool(np.allclose(a, b, rtol=1e-3)),
        size=f"K = {models}, n = {n}, m = {m}, B = 1024, 200 steps",
    )


def _torch_on_gpu(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` followed by a CUDA synchronisation, so that its time is the kernels' time."""
    import torch

    def synchronised() -> Any:
        out = fn()
        torch.cuda.synchronize()
        return out

    return synchronised


@benchmark(
    "gpu_deep_crl_batched_critic",
    description=f"K = {_BATCHED_SEEDS} fixed-data CRL critics (width 32, depth 16, batch 256) "
    "trained as one batched model on the CUDA device",
    baseline="the same batched trainer on this machine's CPU (one thread)",
    gpu=True,
)
def _bench_gpu_deep_crl_batched_critic(quick: bool) -> Comparison:
    import torch

    from neural.deep_crl_batched import train_maze_critic_batched

    torch.set_num_threads(1)
    params = {"variant": "paper", "depth": 16, "width": 32, "batch": 256}
    params["steps"] = 50 if quick else 600

    def losses(device: str) -> list[float]:
        rngs = [np.random.default_rng([0, k]) for k in range(_BATCHED_SEEDS)]
        return [r["heldout_loss"] for r in train_maze_critic_batched(params, rngs, device=device)]

    return Comparison(
        ours=_torch_on_gpu(lambda: losses("cuda")),
        baseline=lambda: losses("cpu"),
        # other kernels, other rounding: the held-out losses of the same seeds agree to 1%
        agree=lambda a, b: bool(np.allclose(a, b, rtol=1e-2)),
        size=f"K = {_BATCHED_SEEDS}, {params['steps']} steps",
        detail=lambda a, b: (
            f"max relative difference of the held-out losses "
            f"{float(np.max(np.abs(np.subtract(a, b)) / np.abs(b))):.1e}"
        ),
    )


@benchmark(
    "gpu_nonlinear_u",
    description="the true nonlinear U by Mehler's expansion and its spectrum (the GE draw made "
    "on the host and moved), on cupy",
    baseline="the same sweep task on numpy (this machine's CPU, one thread)",
    gpu=True,
)
def _bench_gpu_nonlinear_u(quick: bool) -> Comparison:
    from sims.rmt import nonlinear_spectrum_task

    point = {"d": 100 if quick else 200, "psi_p": 8.0, "psi_n": 2.0, "t": 0.01}
    point["sigma_atoms"] = [0.5, 1.5]

    def spectrum(backend: str) -> np.ndarray:
        params = point | ({} if backend == "numpy" else {"backend": backend})
        return nonlinear_spectrum_task(params, np.random.default_rng(0))["eigenvalues"]

    return Comparison(
        ours=_on_gpu(lambda: spectrum("cupy")),
        baseline=lambda: spectrum("numpy"),
        agree=lambda a, b: bool(np.allclose(a, b, rtol=1e-8, atol=1e-10)),
        size=f"d = {point['d']}, p = {8 * point['d']}, n = {2 * point['d']}",
    )


def _one_seed_on_devices(task: Callable, params: dict[str, Any]) -> Callable[[str], dict]:
    """``task`` run for seed 0 on a torch device: the CPU run's point as given, a GPU run's
    with its ``device`` (as ``Context.sweep`` gives it)."""

    def run(device: str) -> dict:
        return task(_placed(params, device), np.random.default_rng(0))

    return run


@benchmark(
    "gpu_gated_lm",
    description="one gated-attention text LM (d 64, 2 layers of 4 heads, batch 16 × 64 tokens), "
    "the sweep task of the gated claims, on the CUDA device",
    baseline="the same task on this machine's CPU (one thread)",
    gpu=True,
)
def _bench_gpu_gated_lm(quick: bool) -> Comparison:
    import torch

    from neural.gated_training import gated_lm_task

    torch.set_num_threads(1)
    steps = 50 if quick else 400
    text = {"task": "text", "batch": 16, "seq_len": 64, "d_model": 64, "n_layers": 2}
    text |= {"n_heads": 4, "d_ffn": 176, "eval_batch": 128, "gate": "elementwise"}
    run = _one_seed_on_devices(gated_lm_task, text | {"steps": steps, "eval_every": steps})

    def losses(record: dict) -> list[float]:
        return [*record["train_loss"], *(t["val_loss"] for t in record["trajectory"])]

    return Comparison(
        ours=_torch_on_gpu(lambda: losses(run("cuda"))),
        baseline=lambda: losses(run("cpu")),
        # the same initialisation and batches, moved: float32 rounding apart, grown by the steps
        agree=lambda a, b: bool(np.allclose(a, b, rtol=1e-3)),
        size=f"{steps} steps, evaluated at the start and the end",
    )


def _batched_on_gpu(prepare: Callable[..., Comparison]) -> Callable[[bool], Comparison]:
    """A batched-seed row's comparison on the CUDA device: both the batched model and the
    one-seed-at-a-time loop there, each followed by a synchronisation."""

    def on_gpu(quick: bool) -> Comparison:
        comparison = prepare(quick, device="cuda")
        return replace(
            comparison,
            ours=_torch_on_gpu(comparison.ours),
            baseline=_torch_on_gpu(comparison.baseline),
        )

    return on_gpu


#: The batched-seed rows again on the GPU (units per GPU-second: K seeds as one model against
#: K one-seed runs on the same device), as (name, the CPU row, what is trained).
for _name, _cpu_row, _what in (
    ("gpu_batched_gated_lm", "gated_lm_batched", "gated-attention text LMs"),
    ("gpu_batched_gated_sink", "gated_sink_batched", "sink-testbed LMs"),
    ("gpu_batched_deep_crl_critic", "deep_crl_batched_critic", "fixed-data CRL critics"),
    ("gpu_batched_deep_crl_online", "deep_crl_batched_online", "online CRL actor–critics"),
    ("gpu_batched_rlvr_arm_b", "rlvr_batched_arm_b", "seeds of the RLVR paper's Arm B"),
):
    benchmark(
        _name,
        description=f"K = {_BATCHED_SEEDS} {_what} trained as one batched model on the CUDA "
        f"device, at the sizes of the CPU row {_cpu_row} (units per GPU-second ratio)",
        baseline="the same seeds trained one at a time on the same CUDA device",
        gpu=True,
    )(_batched_on_gpu(_BENCHMARKS[_cpu_row].prepare))


@benchmark(
    "gpu_rlvr_arm_b",
    description="Arm B of the RLVR claims (SFT, GRPO, distillation, exact evaluation) for one "
    "seed, the sweep task of rlvr.transformer_crossing, on the CUDA device",
    baseline="the same task on this machine's CPU (one thread)",
    gpu=True,
)
def _bench_gpu_rlvr_arm_b(quick: bool) -> Comparison:
    import torch

    from neural.rlvr_transformer import arm_b_task

    torch.set_num_threads(1)
    steps = {"base_steps": 60, "distill_steps": 20, "rl_steps": 20} if quick else {}
    run = _one_seed_on_devices(arm_b_task, steps | {"gate_margin": None})

    return Comparison(
        ours=_torch_on_gpu(lambda: run("cuda")["base_loss"]),
        baseline=lambda: run("cpu")["base_loss"],
        # the base model's loss curve comes before any sample: rounding apart, the same curve
        agree=lambda a, b: bool(np.allclose(a, b, rtol=1e-3)),
        size=("the quick sizes" + (", fewer steps" if quick else ""))
        + "; compared: the base model's SFT loss curve (later samples may differ)",
    )
