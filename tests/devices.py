"""Whether this machine has a CUDA device, as cupy and as torch see it (for skips)."""

from __future__ import annotations


def cupy_sees_a_device() -> bool:
    """cupy is installed and counts at least one CUDA device."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - cupy raises driver-specific errors without a GPU
        return False


def torch_sees_a_device() -> bool:
    """torch is installed and has a usable CUDA device."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())
