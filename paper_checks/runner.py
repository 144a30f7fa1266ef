"""Run claims: give each its context, time it, catch its crash, stamp its provenance."""

from __future__ import annotations

import functools
import importlib.metadata
import logging
import platform
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from paper_checks.claims import Claim
from paper_checks.context import Context
from paper_checks.results import CheckResult, Verdict, write_claim

logger = logging.getLogger(__name__)

_VERSIONED = (
    "paper-checks",
    "numpy",
    "scipy",
    "numba",
    "matplotlib",
    "torch",
    "dask",
    "cupy-cuda12x",
)


@functools.cache
def package_versions() -> dict[str, str]:
    """Versions of Python and of the installed packages a result may depend on."""
    versions = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


@functools.cache
def git_sha() -> str | None:
    """The commit of the source tree this package was imported from, if it is a git checkout
    (suffixed ``-dirty`` when it has uncommitted changes)."""
    root = Path(__file__).resolve().parent.parent
    try:
        sha = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return f"{sha}-dirty" if dirty else sha


def provenance(ctx: Context, wall_time_s: float) -> dict[str, Any]:
    """Where a result came from: seed (and replicate), scale, backend and device, versions, git
    sha, wall time."""
    return {
        "seed": ctx.seed,
        "replicate": ctx.replicate,
        "scale": ctx.scale,
        "backend": ctx.backend.name,
        "device": ctx.backend.device,
        "versions": package_versions(),
        "git_sha": git_sha(),
        "wall_time_s": round(wall_time_s, 3),
    }


#: A PASS (or any verdict) reproduced under fewer than this share of root seeds is fragile.
FRAGILE_BELOW = 0.8


def run_claim(claim: Claim, ctx: Context, replicates: int = 1) -> CheckResult:
    """Check one claim in its own context and write its ``.json``/``.npz`` to ``ctx.out_dir``.

    A crash becomes an ERROR verdict holding the traceback, so one broken check cannot hide the
    verdicts of the others. With ``replicates = R > 1`` a stochastic claim is also checked under
    ``R - 1`` independent root seeds (:func:`replicate_claim`); the record gains ``replication``.
    """
    result = _check_once(claim, replace(ctx, claim_id=claim.id))
    if replicates > 1:
        result = replace(result, replication=replicate_claim(claim, ctx, replicates, result))
        write_claim(ctx.out_dir, result)
    return result


def replicate_claim(
    claim: Claim, ctx: Context, replicates: int, primary: CheckResult
) -> dict[str, Any]:
    """The claim's verdict and deciding statistic under ``replicates`` root seeds: the run's own
    (replicate 0, ``primary``) and ``replicates - 1`` children (:meth:`Context.root_entropy`),
    each run in ``out_dir/replicates/r<r>`` so that its sweeps are cached and resume after a kill.

    ``rate`` is the share of root seeds whose verdict equals the primary one; below
    :data:`FRAGILE_BELOW` the claim is ``fragile``. Deterministic claims are not rerun.
    """
    if not claim.stochastic:
        return {"deterministic": True}
    runs = [primary]
    for r in range(1, replicates):
        rctx = replace(
            ctx, claim_id=claim.id, replicate=r, out_dir=ctx.out_dir / "replicates" / f"r{r}"
        )
        runs.append(_check_once(claim, rctx))
    rows = [
        {
            "replicate": r,
            "root_entropy": replace(ctx, replicate=r).root_entropy(),
            "verdict": run.verdict.value,
            "statistic": _scalar(run.measured.get(claim.statistic)),
        }
        for r, run in enumerate(runs)
    ]
    values = np.array([row["statistic"] for row in rows if row["statistic"] is not None])
    agree = sum(run.verdict is primary.verdict for run in runs)
    return {
        "deterministic": False,
        "statistic": claim.statistic,
        "replicates": rows,
        "counts": {v.value: sum(run.verdict is v for run in runs) for v in Verdict},
        "n": len(runs),
        "agree": agree,
        "rate": agree / len(runs),
        "statistic_mean": float(values.mean()) if values.size else None,
        "statistic_sd": float(values.std(ddof=1)) if values.size > 1 else None,
        "fragile": agree / len(runs) < FRAGILE_BELOW,
    }


def _scalar(value: Any) -> float | None:
    """A finite float, or None when ``value`` is not one number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if np.isfinite(number) else None


def _check_once(claim: Claim, ctx: Context) -> CheckResult:
    """One check of ``claim`` in ``ctx`` (claim id set), stamped and written to ``ctx.out_dir``."""
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    try:
        result = claim.check(ctx)
    except Exception as err:
        logger.exception("claim %s crashed", claim.id)
        result = CheckResult(
            verdict=Verdict.ERROR,
            summary=f"check crashed: {type(err).__name__}: {err}",
            measured={},
            expected={},
            tolerance="",
            error=traceback.format_exc(),
        )
    result = replace(
        result,
        claim_id=claim.id,
        paper=claim.paper,
        statement=claim.statement,
        source=claim.source,
        rule=claim.rule,
        stochastic=claim.stochastic,
        history=[entry.to_json() for entry in claim.history],
        provenance=provenance(ctx, time.perf_counter() - start),
    )
    write_claim(ctx.out_dir, result)
    return result


def run_claims(
    claims: list[Claim],
    ctx: Context,
    replicates: int = 1,
    on_result: Callable[[CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Check ``claims`` in order (progress bar on stderr when it is a TTY) and return their
    results; ``on_result`` is called with each result as soon as its claim finishes."""
    results = []
    with tqdm(claims, desc="claims", unit="claim", disable=None, file=sys.stderr) as bar:
        for claim in bar:
            bar.set_postfix_str(claim.id)
            result = run_claim(claim, ctx, replicates)
            logger.info("%s: %s (%s)", claim.id, result.verdict.value, result.summary)
            if on_result is not None:
                on_result(result)
            results.append(result)
    return results
