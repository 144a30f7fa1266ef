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
from dataclasses import replace
from pathlib import Path
from typing import Any

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
    """Where a result came from: seed, scale, backend and device, versions, git sha, wall time."""
    return {
        "seed": ctx.seed,
        "scale": ctx.scale,
        "backend": ctx.backend.name,
        "device": ctx.backend.device,
        "versions": package_versions(),
        "git_sha": git_sha(),
        "wall_time_s": round(wall_time_s, 3),
    }


def run_claim(claim: Claim, ctx: Context) -> CheckResult:
    """Check one claim in its own context and write its ``.json``/``.npz`` to ``ctx.out_dir``.

    A crash becomes an ERROR verdict holding the traceback, so one broken check cannot hide the
    verdicts of the others.
    """
    ctx = replace(ctx, claim_id=claim.id)
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
        provenance=provenance(ctx, time.perf_counter() - start),
    )
    write_claim(ctx.out_dir, result)
    return result


def run_claims(claims: list[Claim], ctx: Context) -> list[CheckResult]:
    """Check ``claims`` in order (progress bar on a TTY) and return their results."""
    results = []
    with tqdm(claims, desc="claims", unit="claim", disable=None, file=sys.stderr) as bar:
        for claim in bar:
            bar.set_postfix_str(claim.id)
            result = run_claim(claim, ctx)
            logger.info("%s: %s (%s)", claim.id, result.verdict.value, result.summary)
            results.append(result)
    return results
