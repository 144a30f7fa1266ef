"""Comparing training records number by number (batched against alone, a GPU against the CPU)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np


def _numbers(record: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(record, dict):
        for key, value in record.items():
            yield from _numbers(value, f"{path}.{key}")
    elif isinstance(record, list):
        for i, value in enumerate(record):
            yield from _numbers(value, f"{path}[{i}]")
    else:
        yield path, record


def assert_records_close(got: dict, want: dict, rtol: float) -> None:
    """Two training records agree: every float within ``rtol`` (and 1e-6 absolute), every
    other entry (steps, flags, counts) exactly."""
    got_numbers, want_numbers = dict(_numbers(got)), dict(_numbers(want))
    assert got_numbers.keys() == want_numbers.keys()
    for path, value in want_numbers.items():
        if isinstance(value, float | np.ndarray) and not isinstance(value, bool):
            np.testing.assert_allclose(got_numbers[path], value, rtol=rtol, atol=1e-6, err_msg=path)
        else:
            assert got_numbers[path] == value, path
