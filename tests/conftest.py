"""Test set-up: headless matplotlib, hypothesis profiles, and the ``gpu`` marker."""

from __future__ import annotations

import os

import matplotlib as mpl
import pytest
from hypothesis import settings

mpl.use("Agg")

# `make test` gives the same result on every clone and every run: hypothesis draws its examples
# from a fixed seed ("repro", derandomised, also what hypothesis's own "ci" profile does when CI
# is set). `make fuzz` loads "fuzz": fresh random examples and many more of them, to hunt bugs;
# every counterexample it finds is fixed and pinned with @example.
settings.register_profile("repro", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "400")),
    deadline=None,
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repro"))


def _cuda_available() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - cupy raises driver-specific errors without a GPU
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if any("gpu" in item.keywords for item in items) and not _cuda_available():
        skip = pytest.mark.skip(reason="needs cupy and a CUDA device")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)
