"""Test set-up: headless matplotlib, hypothesis profiles, and the ``gpu`` marker."""

from __future__ import annotations

import os

import matplotlib as mpl
import pytest
from hypothesis import settings

mpl.use("Agg")

# The built-in "ci" profile (derandomised, no deadline) is loaded by hypothesis when CI is set.
settings.register_profile("dev", max_examples=30, deadline=None)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])


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
