"""The same seed gives the same results.json whatever the worker count or scheduler."""

from __future__ import annotations

import pytest

from paper_checks.cli import main
from paper_checks.results import comparable
from sims._jsonio import read_json

#: The rlvr theory claims: they pass and run Monte Carlo sweeps through the executor.
CLAIMS = (
    "rlvr.estimator_unbiased",
    "rlvr.tilt_never_crosses",
    "rlvr.sharpening_crosses",
    "rlvr.single_crossing",
)


def _run(tmp_path, name, *extra):
    out = tmp_path / name
    assert main(["run", *CLAIMS, "--seed", "3", "--out", str(out), *extra]) == 0
    return read_json(out / "results.json")


@pytest.mark.slow
def test_results_do_not_depend_on_workers_or_scheduler(tmp_path):
    serial = _run(tmp_path, "serial")
    pool = _run(tmp_path, "pool", "--workers", "2")
    dask = _run(tmp_path, "dask", "--workers", "2", "--scheduler", "dask")
    assert serial["run"]["workers"] == 1
    assert dask["run"]["scheduler"] == "dask"
    assert comparable(pool) == comparable(serial)
    assert comparable(dask) == comparable(serial)
