"""Power-law fits on log-log axes with a bootstrap CI of the exponent.

Shared by every paper whose claims are exponents (failure-rate slopes of pass@k, scaling laws,
...): fit once here, with the window fixed in advance by the caller, so exponents are
comparable across checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from theory import _domain

__all__ = ["PowerLawFit", "fit_power_law"]

_BOOT_CHUNK = 1 << 22  # resamples × points drawn at once


@dataclass(frozen=True)
class PowerLawFit:
    """y ≈ prefactor · x^exponent.

    Attributes
    ----------
    exponent, prefactor : float
        Least-squares slope and exp(intercept) of log y on log x.
    ci_low, ci_high : float
        Percentile-bootstrap confidence interval of the exponent (nan when ``n_boot = 0``).
    r2 : float
        Coefficient of determination of the log-log fit.
    n_points : int
        Points inside the window.
    window : tuple of float or None
        The x-window used (None: all points).
    """

    exponent: float
    prefactor: float
    ci_low: float
    ci_high: float
    r2: float
    n_points: int
    window: tuple[float, float] | None


def _slopes(log_x: NDArray[np.float64], log_y: NDArray[np.float64]) -> NDArray[np.float64]:
    """OLS slopes along the last axis; nan where all log x are equal."""
    dx = log_x - log_x.mean(axis=-1, keepdims=True)
    sxx = np.sum(dx * dx, axis=-1)
    sxy = np.sum(dx * log_y, axis=-1)
    degenerate = np.ptp(log_x, axis=-1) == 0
    return np.where(degenerate, np.nan, sxy / np.where(degenerate, 1.0, sxx))


def _finite_1d(values: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(values)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{name} must be real numbers (got dtype {arr.dtype})")
    arr = arr.astype(np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (got shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (got {name}={float(arr[~np.isfinite(arr)][0])!r})")
    return arr


def fit_power_law(
    x: ArrayLike,
    y: ArrayLike,
    *,
    window: tuple[float, float] | None = None,
    n_boot: int = 1000,
    ci: float = 0.95,
    rng: np.random.Generator | int | None = None,
) -> PowerLawFit:
    r"""Fit y ≈ C·x^s by least squares of log y on log x, with a bootstrap CI of s.

    .. math:: \hat s = \frac{\sum_i (\log x_i - \overline{\log x})\,\log y_i}
                            {\sum_i (\log x_i - \overline{\log x})^2},
              \qquad \hat C = \exp(\overline{\log y} - \hat s\,\overline{\log x})

    over the points with window[0] <= x <= window[1]. The CI is the percentile interval of
    ŝ over ``n_boot`` resamples of the (x, y) pairs (resamples with a single distinct x are
    dropped); deterministic for a given ``rng`` seed.

    Parameters
    ----------
    x, y : array_like of float, 1-D
        Same length; x > 0 and y > 0 inside the window.
    window : (float, float), optional
        Inclusive x-range, fixed in advance by the caller (not tuned on the data).
    n_boot : int
        Bootstrap resamples; 0 gives ci_low = ci_high = nan.
    ci : float
        Confidence level in (0, 1).
    rng : numpy.random.Generator, int or None
        Seed or generator for ``np.random.default_rng`` (SPEC 7).

    Returns
    -------
    PowerLawFit

    Raises
    ------
    ValueError
        Unless ``x`` and ``y`` are finite 1-D arrays of one length with at least 3 points inside
        the window, all positive there, ``window`` (when given) is a pair of finite reals
        low ≤ high, ``n_boot`` an integer ≥ 0 and ``ci`` in (0, 1).

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (failure-rate slopes −a and −a/α on log-log axes).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.fits import fit_power_law
    >>> x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    >>> fit = fit_power_law(x, 3 * x**-0.5, n_boot=0)  # no bootstrap: no interval
    >>> round(fit.exponent, 6), round(fit.prefactor, 6), fit.r2, fit.n_points
    (-0.5, 3.0, 1.0, 5)
    """
    x, y = _finite_1d(x, "x"), _finite_1d(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length (got {x.size} and {y.size})")
    if window is not None:
        _domain.reals("window", window, ndim=1)
        if len(window) != 2:
            raise ValueError(f"window must be a pair (low, high) (got {window!r})")
        lo, hi = (float(v) for v in window)
        if not lo <= hi:
            raise ValueError(f"window must satisfy window[0] <= window[1] (got {window})")
        window = (lo, hi)
        inside = (x >= lo) & (x <= hi)
        x, y = x[inside], y[inside]
    if x.size < 3:
        raise ValueError(f"x must have at least 3 points inside the window (got {x.size})")
    if np.any(x <= 0):
        raise ValueError(f"x must be > 0 inside the window (got x={float(x[x <= 0][0])!r})")
    if np.any(y <= 0):
        raise ValueError(f"y must be > 0 inside the window (got y={float(y[y <= 0][0])!r})")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 0:
        raise ValueError(f"n_boot must be an integer >= 0 (got {n_boot!r})")
    _domain.real("ci", ci, minimum=0.0, maximum=1.0, open_low=True, open_high=True)

    log_x, log_y = np.log(x), np.log(y)
    exponent = float(_slopes(log_x, log_y))
    if math.isnan(exponent):
        raise ValueError("x must take at least 2 distinct values inside the window")
    intercept = float(log_y.mean() - exponent * log_x.mean())
    residual = log_y - (intercept + exponent * log_x)
    ss_tot = float(np.sum((log_y - log_y.mean()) ** 2))
    r2 = 1.0 - float(np.sum(residual**2)) / ss_tot if ss_tot > 0 else 1.0

    ci_low = ci_high = math.nan
    if n_boot > 0:
        generator = np.random.default_rng(rng)
        chunk = max(1, _BOOT_CHUNK // x.size)
        slopes = []
        for start in range(0, int(n_boot), chunk):
            idx = generator.integers(0, x.size, size=(min(chunk, n_boot - start), x.size))
            slopes.append(_slopes(log_x[idx], log_y[idx]))  # (resamples,)
        boot = np.concatenate(slopes)
        boot = boot[~np.isnan(boot)]
        if boot.size:
            ci_low, ci_high = (float(v) for v in np.quantile(boot, [(1 - ci) / 2, (1 + ci) / 2]))
    return PowerLawFit(
        exponent=exponent,
        prefactor=math.exp(intercept),
        ci_low=ci_low,
        ci_high=ci_high,
        r2=r2,
        n_points=int(x.size),
        window=window,
    )
