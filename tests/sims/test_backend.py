"""The array-backend switch: numpy always, cupy only where it sees a CUDA device."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from sims._backend import (
    BACKENDS,
    DEVICES,
    Backend,
    BackendUnavailable,
    check_device,
    get_backend,
    to_numpy,
)
from tests.devices import cupy_sees_a_device, torch_sees_a_device


# ---------------------------------------------------------------------------------------- numpy
def test_numpy_backend():
    backend = get_backend("numpy")
    assert isinstance(backend, Backend)
    assert backend.name == "numpy"
    assert backend.device == "cpu"
    assert hasattr(backend.xp, "asarray")
    x = backend.xp.asarray([1.0, 2.0, 3.0])
    assert isinstance(x, np.ndarray)
    assert float(backend.xp.sum(x)) == 6.0


def test_default_backend_is_numpy():
    assert get_backend() == get_backend("numpy")
    assert BACKENDS == ("numpy", "cupy")


def test_numpy_rng_is_a_seeded_numpy_generator():
    backend = get_backend("numpy")
    a, b = backend.rng(7), backend.rng(7)
    assert isinstance(a, np.random.Generator)
    np.testing.assert_array_equal(a.random(5), b.random(5))
    np.testing.assert_array_equal(backend.rng(7).random(5), np.random.default_rng(7).random(5))


@pytest.mark.parametrize("name", ["torch", "NumPy", "", "jax"])
def test_unknown_backend_is_a_value_error_naming_backend(name):
    with pytest.raises(ValueError, match="backend must be one of numpy, cupy") as err:
        get_backend(name)
    assert repr(name) in str(err.value)
    assert not isinstance(err.value, BackendUnavailable)


# ----------------------------------------------------------------------------------------- cupy
def test_backend_unavailable_is_a_value_error():
    assert issubclass(BackendUnavailable, ValueError)


@pytest.mark.skipif(cupy_sees_a_device(), reason="cupy sees a CUDA device here")
def test_cupy_unavailable_here():
    with pytest.raises(BackendUnavailable, match="cupy"):
        get_backend("cupy")


def test_cupy_not_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # makes `import cupy` raise ImportError
    with pytest.raises(BackendUnavailable, match=r"backend 'cupy' needs cupy") as err:
        get_backend("cupy")
    assert isinstance(err.value.__cause__, ImportError)


def _fake_cupy(get_device_count):
    return SimpleNamespace(
        cuda=SimpleNamespace(runtime=SimpleNamespace(getDeviceCount=get_device_count))
    )


def test_cupy_without_devices(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(lambda: 0))
    with pytest.raises(BackendUnavailable, match="sees no CUDA device"):
        get_backend("cupy")


def test_cupy_without_a_driver(monkeypatch):
    def no_driver():
        raise RuntimeError("cudaErrorInsufficientDriver")

    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(no_driver))
    with pytest.raises(BackendUnavailable, match=r"no usable CUDA device.*InsufficientDriver"):
        get_backend("cupy")


def test_importing_the_backend_module_does_not_import_cupy():

    code = "import sims._backend, sys; print('cupy' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


# ------------------------------------------------------------------------------------- to_numpy
def test_to_numpy_of_numpy():
    x = np.arange(6.0).reshape(2, 3)
    y = to_numpy(x)
    assert isinstance(y, np.ndarray)
    np.testing.assert_array_equal(y, x)
    assert y.dtype == x.dtype


def test_to_numpy_of_lists_and_scalars():
    y = to_numpy([[1, 2], [3, 4]])
    assert isinstance(y, np.ndarray)
    assert y.shape == (2, 2)
    np.testing.assert_array_equal(y, np.array([[1, 2], [3, 4]]))
    assert to_numpy(2.5).shape == ()
    assert float(to_numpy(2.5)) == 2.5


@pytest.mark.gpu
def test_cupy_round_trip():
    cupy = pytest.importorskip("cupy")

    backend = get_backend("cupy")
    assert backend.name == "cupy"
    assert backend.device.startswith("cuda:")
    x = np.linspace(0.0, 1.0, 17).reshape(1, 17)
    y = to_numpy(cupy.asarray(x))
    assert isinstance(y, np.ndarray)
    np.testing.assert_array_equal(y, x)
    z = to_numpy(backend.xp.asarray([1.0, 2.0]) * 2)
    np.testing.assert_array_equal(z, [2.0, 4.0])
    assert isinstance(backend.rng(0).random(3), cupy.ndarray)


# ---------------------------------------------------------------------------------- torch device
def test_the_cpu_device_is_always_there():
    assert DEVICES == ("cpu", "cuda")
    assert check_device() == check_device("cpu") == "cpu"


@pytest.mark.parametrize("name", ["gpu", "CUDA", "", "cuda:0", "mps"])
def test_unknown_device_is_a_value_error_naming_device(name):
    with pytest.raises(ValueError, match="device must be one of cpu, cuda") as err:
        check_device(name)
    assert repr(name) in str(err.value)
    assert not isinstance(err.value, BackendUnavailable)


@pytest.mark.skipif(torch_sees_a_device(), reason="torch sees a CUDA device here")
def test_cuda_unavailable_here():
    with pytest.raises(BackendUnavailable, match="device 'cuda' is not available"):
        check_device("cuda")


def test_cuda_without_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    with pytest.raises(BackendUnavailable, match="device 'cuda' needs torch"):
        check_device("cuda")


@pytest.mark.gpu
def test_cuda_device_is_there():
    pytest.importorskip("torch")
    assert check_device("cuda") == "cuda"
