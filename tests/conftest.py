"""Test set-up: headless matplotlib, hypothesis profiles, and the ``gpu`` marker."""

from __future__ import annotations

import os

import matplotlib as mpl
import pytest
from hypothesis import settings

from paper_checks.runner import hold_cpu_kernels
from tests.devices import cupy_sees_a_device, torch_sees_a_device

mpl.use("Agg")
# the CPU kernels a run holds torch to (paper_checks.runner.hold_cpu_kernels), so that a check
# called in-process measures what the committed records hold on any x86-64 machine
hold_cpu_kernels()

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


@pytest.fixture
def cupy_stand_in(monkeypatch: pytest.MonkeyPatch):
    """The CPU standing in for cupy: ``install(xp, *modules)`` makes the backend name "cupy"
    resolve to a :class:`sims._backend.Backend` named cupy whose namespace is ``xp`` (numpy's,
    or array-api-strict's), in :mod:`sims._backend` and in each module given that imported
    ``get_backend`` by name, so that a GPU branch of the code runs here."""
    import sims._backend

    real = sims._backend.get_backend

    def install(xp, *modules) -> None:
        def get_backend(name: str = "numpy") -> sims._backend.Backend:
            return sims._backend.Backend("cupy", xp, "cpu") if name == "cupy" else real(name)

        for module in (sims._backend, *modules):
            monkeypatch.setattr(module, "get_backend", get_backend)

    return install
