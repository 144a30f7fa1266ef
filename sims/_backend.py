"""The one place that knows numpy, cupy and ``array_api_compat``.

Numeric kernels call :func:`array_namespace` on their inputs and then use only ``xp.*``; the CLI and
the claim context call :func:`get_backend` with the user's ``--backend`` choice. cupy is imported
only when asked for, never at module import time.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
from array_api_compat import array_namespace, is_cupy_array
from array_api_compat import device as array_device
from array_api_compat import to_device as _to_device

__all__ = [
    "BACKENDS",
    "DEVICES",
    "Backend",
    "BackendUnavailable",
    "array_device",
    "array_namespace",
    "check_device",
    "get_backend",
    "to_numpy",
]

BACKENDS = ("numpy", "cupy")

#: The devices the torch layer trains on: ``--device`` of ``paper-checks run``.
DEVICES = ("cpu", "cuda")


class BackendUnavailable(ValueError):
    """Raised when the requested array backend cannot run on this machine."""


@dataclass(frozen=True)
class Backend:
    """An array backend: its name, its array-API namespace and the device it computes on."""

    name: str
    xp: ModuleType
    device: str

    def rng(self, seed: Any = None) -> Any:
        """A seeded random generator native to the backend (numpy or cupy ``default_rng``).

        CPU and GPU streams differ: compare their results statistically, never bitwise.
        """
        if self.name == "cupy":
            import cupy

            return cupy.random.default_rng(seed)
        return np.random.default_rng(seed)


def get_backend(name: str = "numpy") -> Backend:
    """Resolve a backend name to a :class:`Backend`, checking that it can run here.

    Raises
    ------
    ValueError
        ``name`` is not one of :data:`BACKENDS`.
    BackendUnavailable
        ``name == "cupy"`` but cupy is not installed or sees no CUDA device.
    """
    if name == "numpy":
        import array_api_compat.numpy as xp_numpy

        return Backend("numpy", xp_numpy, "cpu")
    if name != "cupy":
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)} (got {name!r})")
    try:
        import cupy
    except ImportError as err:
        raise BackendUnavailable(
            "backend 'cupy' needs cupy: pip install -e '.[gpu]' on a machine with CUDA 12"
        ) from err
    try:
        n_devices = cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # cupy raises CUDARuntimeError subclasses without a driver
        raise BackendUnavailable(f"backend 'cupy' sees no usable CUDA device ({err})") from err
    if n_devices == 0:
        raise BackendUnavailable("backend 'cupy' sees no CUDA device")
    import array_api_compat.cupy as xp_cupy

    return Backend("cupy", xp_cupy, f"cuda:{cupy.cuda.runtime.getDevice()}")


def check_device(name: str = "cpu") -> str:
    """Check that the torch device ``name`` (one of :data:`DEVICES`) can run here; return it.

    Raises
    ------
    ValueError
        ``name`` is not one of :data:`DEVICES`.
    BackendUnavailable
        ``name == "cuda"`` but torch is not installed or sees no CUDA device.
    """
    if name not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)} (got {name!r})")
    if name == "cuda":
        try:
            import torch
        except ImportError as err:
            raise BackendUnavailable(
                "device 'cuda' needs torch: pip install -e '.[neural]'"
            ) from err
        if not torch.cuda.is_available():
            raise BackendUnavailable("device 'cuda' is not available: torch sees no CUDA device")
    return name


def to_numpy(x: Any) -> np.ndarray:
    """Copy an array of any supported backend to a numpy array on the host."""
    if is_cupy_array(x):
        return _to_device(x, "cpu")
    return np.asarray(x)
