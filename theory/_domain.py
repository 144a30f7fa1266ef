"""Checks of the public API's arguments at its boundary: each returns the argument in a canonical
form (a Python int or float, a float64 array) or raises ValueError with one line that names the
argument, its domain and the value it got.

The house raises ValueError for a wrong type too (a string where a number belongs, a bool where an
integer belongs: ``True`` is not a count). numpy integer scalars are integers; floats are not,
even when whole (``3.0`` is refused where a count belongs). Reals must be finite. These run once
per public call, never inside a kernel.
"""

from __future__ import annotations

import contextlib
import math
import operator
from typing import Any

import numpy as np


def _number(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _span(minimum: float | None, maximum: float | None, open_low: bool, open_high: bool) -> str:
    lo = "" if minimum is None else _number(minimum)
    hi = "" if maximum is None else _number(maximum)
    if lo and hi:
        return f" in {'(' if open_low else '['}{lo}, {hi}{')' if open_high else ']'}"
    low = lo and f"{'>' if open_low else '≥'} {lo}"
    high = hi and f"{'<' if open_high else '≤'} {hi}"
    return f" {low or high}" if low or high else ""


def integer(
    name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``value`` as a Python int in [minimum, maximum]: a Python or numpy integer, not a bool."""
    got = None
    if not isinstance(value, bool | np.bool_):
        with contextlib.suppress(TypeError):
            got = operator.index(value)
    if (
        got is None
        or (minimum is not None and got < minimum)
        or (maximum is not None and got > maximum)
    ):
        span = _span(minimum, maximum, False, False)
        raise ValueError(f"{name} must be an integer{span} (got {value!r})")
    return got


def integers(name: str, values: Any, *, minimum: int | None = None) -> list[int]:
    """``values`` as a non-empty list of Python ints ≥ ``minimum`` (a sequence or 1-D array of
    Python or numpy integers, no bools)."""
    if isinstance(values, str | bytes) or not hasattr(values, "__len__") or len(values) == 0:
        raise ValueError(f"{name} must be a non-empty sequence of integers (got {values!r})")
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of integers (got shape {arr.shape})")
    span = "" if minimum is None else f" ≥ {minimum}"
    return [integer(f"{name} (every entry{span})", v, minimum=minimum) for v in values]


def real(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """``value`` as a finite Python float in the interval given (closed unless ``open_low`` or
    ``open_high``): a Python or numpy real number, not a bool or a string."""
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )
    got = float(value) if ok else math.nan
    if (
        not math.isfinite(got)
        or (minimum is not None and (got <= minimum if open_low else got < minimum))
        or (maximum is not None and (got >= maximum if open_high else got > maximum))
    ):
        span = _span(minimum, maximum, open_low, open_high)
        raise ValueError(f"{name} must be a finite real number{span} (got {value!r})")
    return got


def fraction(name: str, value: Any) -> float:
    """A fraction in (0, 1]: a share of items to keep, of which at least some must be asked for."""
    return real(name, value, minimum=0.0, maximum=1.0, open_low=True)


def reals(
    name: str,
    values: Any,
    *,
    ndim: int | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    open_low: bool = False,
    nonempty: bool = True,
) -> np.ndarray:
    """``values`` as a float64 array of finite reals in [minimum, maximum] (above ``minimum``
    with ``open_low``), with ``ndim`` dimensions when given, non-empty unless ``nonempty=False``.
    Bools, strings and objects are refused."""
    try:
        arr = np.asarray(values)
    except ValueError:  # ragged nesting
        raise ValueError(
            f"{name} must be an array of real numbers (got a ragged sequence)"
        ) from None
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name} must be real numbers (got dtype {arr.dtype})")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array (got shape {arr.shape})")
    if nonempty and arr.size == 0:
        raise ValueError(f"{name} must be non-empty (got shape {arr.shape})")
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr)
    if minimum is not None:
        bad |= arr <= minimum if open_low else arr < minimum
    if maximum is not None:
        bad |= arr > maximum
    if bad.any():
        i = np.unravel_index(int(np.flatnonzero(bad)[0]), arr.shape)
        span = _span(minimum, maximum, open_low, False)
        where = f" at index {tuple(int(j) for j in i)}" if arr.ndim else ""
        raise ValueError(f"{name} must be finite{span} (got {float(arr[i])!r}{where})")
    return arr


def counts(
    name: str, values: Any, *, ndim: int | None = None, positive_total: bool = False
) -> np.ndarray:
    """``values`` as a float64 array of counts (whole numbers ≥ 0, given as integers or whole
    floats), non-empty; with ``positive_total`` every row (last axis) must hold at least one."""
    arr = reals(name, values, ndim=ndim, minimum=0.0)
    if (arr != np.floor(arr)).any():
        raise ValueError(
            f"{name} must be whole numbers (got {float(arr[arr != np.floor(arr)][0])!r})"
        )
    if positive_total and arr.ndim and (arr.sum(axis=-1) == 0).any():
        raise ValueError(f"{name} must hold at least one count in every row (a row sums to 0)")
    return arr


def choice(name: str, value: Any, options: tuple[Any, ...]) -> Any:
    """``value`` when it is one of ``options``."""
    if not any(type(value) is type(option) and value == option for option in options):
        raise ValueError(f"{name} must be one of {options} (got {value!r})")
    return value


def seed(name: str, value: Any) -> None:
    """Refuse what ``numpy.random.default_rng`` would refuse with numpy's words, or take without
    meaning: ``value`` must be None, a Generator, BitGenerator or SeedSequence, an integer ≥ 0
    (not a bool), or a non-empty sequence of such integers."""
    if value is None or isinstance(
        value, np.random.Generator | np.random.BitGenerator | np.random.SeedSequence
    ):
        return
    entries = value if isinstance(value, list | tuple | np.ndarray) else [value]
    ok = len(entries) > 0 and all(
        not isinstance(v, bool | np.bool_) and isinstance(v, int | np.integer) and v >= 0
        for v in np.asarray(entries, dtype=object).ravel()
    )
    if not ok:
        raise ValueError(
            f"{name} must be None, a numpy Generator or SeedSequence, or a seed: an integer ≥ 0 "
            f"or a sequence of them (got {value!r:.60})"
        )


def class_mask(mask: Any, n_points: Any, max_points: int) -> None:
    """Refuse a class bitmask over the 2^n_points functions on n_points points (bit f set: the
    function labelling point x with bit x of f is in the class) that is not an integer in
    [0, 2^(2^n_points)), or an ``n_points`` outside [0, max_points]."""
    integer("n_points", n_points, minimum=0, maximum=max_points)
    integer("mask", mask, minimum=0, maximum=(1 << (1 << int(n_points))) - 1)
