"""Test set-up: headless matplotlib, hypothesis profiles, and the ``gpu`` marker."""

from __future__ import annotations

import os

import matplotlib as mpl
import pytest
from hypothesis import settings

from tests.devices import cupy_sees_a_device, torch_sees_a_device

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_tests = any("gpu" in item.keywords for item in items)
    if gpu_tests and not (cupy_sees_a_device() or torch_sees_a_device()):
        skip = pytest.mark.skip(reason="needs a CUDA device (cupy or torch)")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)
