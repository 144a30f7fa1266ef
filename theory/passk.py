"""pass@k: the unbiased estimator, exact curves, sharpening models and crossings.

Notation (docs/rlvr.md#the-papers-model-and-what-the-checks-use): a problem gets ``n`` samples of
which ``c`` are correct; ``k`` is the sampling budget; ``p`` is a problem's single-sample success
probability under the base model and ``q`` the one after RL. The *failure rate* is 1 - pass@k.
Dataset pass@k is the mean over problems.

The estimator functions (``pass_at_k``, ``pass_at_k_curve``, ``pass_at_k_plugin``,
``pass_at_k_exact``, ``pass_at_k_curve_exact``) accept array-API arrays (numpy, array_api_strict,
cupy, ...) and compute in the input's namespace; everything else is numpy/scipy. Results are
float64 arrays, 0-d for scalar input. Bad input raises ``ValueError`` naming the argument.
"""

from __future__ import annotations

import contextlib
import math
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import array_api_compat
import array_api_compat.numpy as np_xp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

__all__ = [
    "Crossing",
    "Crossings",
    "beta_failure_asymptote",
    "beta_logit_affine_failure_asymptote",
    "beta_logit_affine_pass_at_k",
    "beta_pass_at_k",
    "counts_from_samples",
    "crossing_k",
    "crossing_k_many",
    "estimator_expectation",
    "fit_logit_affine",
    "logit_affine",
    "logit_affine_fixed_point",
    "pass_at_k",
    "pass_at_k_curve",
    "pass_at_k_curve_exact",
    "pass_at_k_exact",
    "pass_at_k_plugin",
    "pool_counts",
    "sign_changes",
    "tilt",
    "two_type_pass_at_k",
]

Array = Any  # an array-API array (numpy.ndarray, array_api_strict.Array, cupy.ndarray, ...)


# ---------------------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------------------


def _namespace(*values: Any) -> tuple[Any, tuple[Array, ...]]:
    """Namespace of the array-API arrays among ``values``; other values are converted into it."""
    native = [
        array_api_compat.is_array_api_obj(v) and not isinstance(v, np.generic) for v in values
    ]
    arrays = [v for v, is_native in zip(values, native, strict=True) if is_native]
    if not arrays:
        return np_xp, tuple(np.asarray(v) for v in values)
    xp = array_api_compat.array_namespace(*arrays)
    device = array_api_compat.device(arrays[0])
    converted = tuple(
        v if is_native else xp.asarray(v, device=device)
        for v, is_native in zip(values, native, strict=True)
    )
    return xp, converted


def _at(flat_index: int, shape: tuple[int, ...]) -> str:
    """`` at index i`` (multi-index for N-d arrays, nothing for 0-d) for error messages."""
    if len(shape) == 0:
        return ""
    if len(shape) == 1:
        return f" at index {flat_index}"
    return f" at index {tuple(int(i) for i in np.unravel_index(flat_index, shape))}"


def _first_true(mask: Array, xp: Any) -> int:
    return int(xp.nonzero(xp.reshape(mask, (-1,)))[0][0])


def _scalar_int(value: Any, name: str) -> int:
    """A Python/numpy integer scalar (bools and floats are rejected)."""
    if not isinstance(value, bool | np.bool_):
        with contextlib.suppress(TypeError):
            return operator.index(value)
    raise ValueError(f"{name} must be an integer (got {type(value).__name__} {value!r})")


def _integers(x: Array, name: str, xp: Any) -> Array:
    if not xp.isdtype(x.dtype, "integral"):
        raise ValueError(f"{name} must be integers (got dtype {x.dtype})")
    return x


def _reals(
    x: Array,
    name: str,
    xp: Any = np_xp,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
) -> Array:
    """Finite real values in [low, high] (or (low, high] with ``open_low``), cast to float64."""
    if not xp.isdtype(x.dtype, ("real floating", "integral")):
        raise ValueError(f"{name} must be real numbers (got dtype {x.dtype})")
    x = xp.astype(x, xp.float64)
    bad = ~xp.isfinite(x)
    rule = []
    if low is not None:
        bad = bad | ((x <= low) if open_low else (x < low))
        rule.append(f"{name} > {low:g}" if open_low else f"{name} >= {low:g}")
    if high is not None:
        bad = bad | (x > high)
        rule.append(f"{name} <= {high:g}")
    if bool(xp.any(bad)):
        i = _first_true(bad, xp)
        value = float(xp.reshape(x, (-1,))[i])
        requirement = " and ".join(["be finite", *rule])
        raise ValueError(f"{name} must {requirement} (got {name}={value!r}{_at(i, x.shape)})")
    return x


def _np_reals(x: ArrayLike, name: str, **bounds: Any) -> NDArray[np.float64]:
    return _reals(np.asarray(x), name, np_xp, **bounds)


def _budgets(k: Array, xp: Any) -> Array:
    """Integer budgets k >= 1 (arrays allowed)."""
    k = _integers(k, "k", xp)
    bad = k < 1
    if bool(xp.any(bad)):
        i = _first_true(bad, xp)
        value = int(xp.reshape(k, (-1,))[i])
        raise ValueError(f"k must be integers >= 1 (got k={value}{_at(i, k.shape)})")
    return k


def _counts(n: Array, c: Array, xp: Any) -> tuple[Array, Array]:
    """Integer counts with 0 <= c <= n, broadcast together."""
    n, c = _integers(n, "n", xp), _integers(c, "c", xp)
    try:
        n, c = xp.broadcast_arrays(xp.astype(n, xp.int64), xp.astype(c, xp.int64))
    except ValueError:
        raise ValueError(f"n and c must broadcast together (got {n.shape} and {c.shape})") from None
    n_flat, c_flat = xp.reshape(n, (-1,)), xp.reshape(c, (-1,))
    for bad, rule in ((c_flat < 0, "c={c} < 0"), (c_flat > n_flat, "c={c} > n={n}")):
        if bool(xp.any(bad)):
            i = _first_true(bad, xp)
            got = rule.format(c=int(c_flat[i]), n=int(n_flat[i]))
            raise ValueError(f"c must satisfy 0 <= c <= n (got {got}{_at(i, n.shape)})")
    return n, c


def _counts_and_budget(n: Any, c: Any, k: Any) -> tuple[Any, Array, Array, int]:
    xp, (n, c) = _namespace(n, c)
    n, c = _counts(n, c, xp)
    k = _scalar_int(k, "k")
    if k < 1:
        raise ValueError(f"k must satisfy 1 <= k <= min(n) (got k={k})")
    if math.prod(n.shape) > 0 and k > (n_min := int(xp.min(n))):
        raise ValueError(f"k must satisfy 1 <= k <= min(n) (got k={k}, min n={n_min})")
    return xp, n, c, k


def _nonempty(ks: Iterable[Any], name: str = "ks") -> list[Any]:
    try:
        ks = list(ks)
    except TypeError:
        raise ValueError(f"{name} must be an iterable of integers (got {ks!r})") from None
    if not ks:
        raise ValueError(f"{name} must be non-empty")
    return ks


# ---------------------------------------------------------------------------------------------
# estimators from counts
# ---------------------------------------------------------------------------------------------


def _budget_list(ks: Iterable[Any]) -> list[int]:
    """A non-empty list of integer budgets >= 1."""
    ks = _nonempty(ks)
    for k in ks:
        if isinstance(k, bool | np.bool_) or not isinstance(k, int | np.integer) or k < 1:
            raise ValueError(f"ks must hold integers >= 1 (got {k!r})")
    return ks


def _log_ratio_prefix(k: int, m_max: int, xp: Any, device: Any) -> Array:
    """T[m] = Σ_{j=k+1}^{m} log1p(-k/j) for m = 0..m_max (T[m] = 0 for m <= k)."""
    j = xp.arange(k + 1, m_max + 1, dtype=xp.float64, device=device)
    head = xp.zeros(k + 1, dtype=xp.float64, device=device)
    return xp.concat([head, xp.cumulative_sum(xp.log1p(-k / j))])


def pass_at_k(n: Any, c: Any, k: int) -> Array:
    r"""Unbiased per-problem pass@k estimate from ``c`` correct out of ``n`` samples.

    .. math:: \widehat{\text{pass@}k} = 1 - \binom{n-c}{k} \Big/ \binom{n}{k}
              = 1 - \prod_{j=n-c+1}^{n} \left(1 - \frac{k}{j}\right)

    The ratio is the chance that a random k-subset of the n samples holds no correct one, so
    E[estimate] = 1 - (1-p)^k exactly when c ~ Binomial(n, p). It is 1 when n - c < k, 0 when
    c = 0, and [c > 0] when k = n.

    Computed without binomials: with the prefix table T[m] = Σ_{j=k+1}^{m} log1p(-k/j),
    m = 0..max(n) (one cumulative sum), the ratio is exp(T[n] - T[n-c]) whenever n - c >= k.
    Time O(max(n) + #problems), memory O(max(n)) for the table; fine at n = 10^5 and 10^6
    problems.

    Parameters
    ----------
    n, c : array_like of int
        Samples and correct samples per problem; broadcast together; 0 <= c <= n. Array-API
        arrays are computed in their own namespace.
    k : int
        Budget, 1 <= k <= min(n).

    Returns
    -------
    Array
        float64, the broadcast shape of ``n`` and ``c``, in the input's namespace.

    References
    ----------
    Chen et al. 2021 (Codex, arXiv 2107.03374), eq. 1 and its numerically stable form;
    docs/rlvr.md#passk-and-its-estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import pass_at_k
    >>> pass_at_k(np.array([10, 10, 10]), np.array([0, 3, 10]), 2).round(4)  # 1 − C(7,2)/C(10,2)
    array([0.    , 0.5333, 1.    ])
    """
    xp, n, c, k = _counts_and_budget(n, c, k)
    shape = n.shape
    if math.prod(shape) == 0:
        return xp.zeros(shape, dtype=xp.float64, device=array_api_compat.device(n))
    n, c = xp.reshape(n, (-1,)), xp.reshape(c, (-1,))
    table = _log_ratio_prefix(k, int(xp.max(n)), xp, array_api_compat.device(n))
    failures = n - c
    log_ratio = xp.take(table, n) - xp.take(table, failures)
    estimate = xp.where(failures < k, xp.ones_like(log_ratio), 0.0 - xp.expm1(log_ratio))
    return xp.reshape(estimate, shape)


def pass_at_k_curve(n: Any, c: Any, ks: Iterable[int]) -> Array:
    """Dataset pass@k curve: the mean over problems of ``pass_at_k(n, c, k)`` for each k.

    Parameters
    ----------
    n, c : array_like of int
        Per-problem counts (see ``pass_at_k``).
    ks : iterable of int
        Budgets, each 1 <= k <= min(n).

    Returns
    -------
    Array
        1-D float64, ``len(ks)``, in the input's namespace.

    References
    ----------
    docs/rlvr.md#passk-and-its-estimator (dataset pass@k is the mean over problems).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import pass_at_k_curve
    >>> pass_at_k_curve(np.array([10, 10]), np.array([1, 5]), [1, 2, 4]).round(4)
    array([0.3   , 0.4889, 0.6881])
    """
    xp, (n, c) = _namespace(n, c)
    for name, x in (("n", n), ("c", c)):
        if math.prod(x.shape) == 0:
            raise ValueError(f"{name} must hold at least one problem")
    n, c = _counts(n, c, xp)
    ks = _budget_list(ks)
    if max(ks) > (n_min := int(xp.min(n))):
        raise ValueError(f"ks must be <= min(n) = {n_min} (got {max(ks)})")
    return xp.stack([xp.mean(pass_at_k(n, c, k)) for k in ks])


def pass_at_k_plugin(n: Any, c: Any, k: int) -> Array:
    r"""Plug-in pass@k, 1 - (1 - c/n)^k, per problem.

    Biased low: by Jensen (x ↦ 1-(1-x)^k is concave), E[1-(1-c/n)^k] <= 1-(1-p)^k, strictly
    for 1 < k and 0 < p < 1. Same arguments and validation as ``pass_at_k``.

    Parameters
    ----------
    n, c : array
        Samples and correct samples per problem (as :func:`pass_at_k`).
    k : int
        Budget, 1 <= k.

    Returns
    -------
    array
        1 − (1 − c/n)^k per problem, in the namespace of the inputs.

    References
    ----------
    docs/rlvr.md#passk-and-its-estimator (the plug-in is biased low, by concavity).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import pass_at_k, pass_at_k_plugin
    >>> n, c = np.array([10, 10]), np.array([1, 5])
    >>> pass_at_k_plugin(n, c, 2), pass_at_k(n, c, 2).round(4)  # plug-in below unbiased
    (array([0.19, 0.75]), array([0.2   , 0.7778]))
    """
    xp, n, c, k = _counts_and_budget(n, c, k)
    return pass_at_k_exact(xp.astype(c, xp.float64) / xp.astype(n, xp.float64), k)


def pass_at_k_exact(p: Any, k: Any) -> Array:
    r"""Exact pass@k of a problem with success probability ``p``: 1 - (1-p)^k.

    Computed as -expm1(k·log1p(-p)) (accurate for tiny p and large k); p = 1 gives 1.

    Parameters
    ----------
    p : array_like of float
        Success probabilities in [0, 1].
    k : array_like of int
        Budgets >= 1; broadcast against ``p``.

    Returns
    -------
    Array
        float64, broadcast shape, in the input's namespace.

    References
    ----------
    docs/rlvr.md#passk-and-its-estimator (definition of pass@k).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import pass_at_k_exact
    >>> pass_at_k_exact(np.array([0.1, 0.5]), 2)  # 1 − (1 − p)²
    array([0.19, 0.75])
    """
    xp, (p, k) = _namespace(p, k)
    p = _reals(p, "p", xp, low=0.0, high=1.0)
    k = xp.astype(_budgets(k, xp), xp.float64)
    certain = p == 1.0
    log_failure = k * xp.log1p(-xp.where(certain, xp.zeros_like(p), p))
    return xp.asarray(xp.where(certain, xp.ones_like(log_failure), 0.0 - xp.expm1(log_failure)))


def pass_at_k_curve_exact(p: Any, ks: Iterable[int], weights: Any = None) -> Array:
    r"""Dataset pass@k for known per-problem probabilities: Σ_i w_i [1 - (1-p_i)^k] per k.

    Parameters
    ----------
    p : array_like of float
        Per-problem success probabilities in [0, 1] (any shape; all entries are problems).
    ks : iterable of int
        Budgets >= 1.
    weights : array_like of float, optional
        Non-negative problem weights of p's shape, normalised to sum 1. Default: uniform.

    Returns
    -------
    Array
        1-D float64, ``len(ks)``, in the input's namespace.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import pass_at_k_curve_exact
    >>> pass_at_k_curve_exact(np.array([0.1, 0.5]), [1, 2, 4])  # mean over the two problems
    array([0.3   , 0.47  , 0.6407])
    >>> pass_at_k_curve_exact(np.array([0.1, 0.5]), [1, 2, 4], weights=np.array([3, 1]))
    array([0.2   , 0.33  , 0.4923])
    """
    xp, (p, w) = _namespace(p, 1.0 if weights is None else weights)
    p = xp.reshape(_reals(p, "p", xp, low=0.0, high=1.0), (-1,))
    if p.shape[0] == 0:
        raise ValueError("p must hold at least one problem")
    if weights is None:
        w = xp.full(p.shape, 1.0 / p.shape[0], dtype=xp.float64, device=array_api_compat.device(p))
    else:
        w = xp.reshape(_reals(w, "weights", xp, low=0.0), (-1,))
        if w.shape != p.shape:
            raise ValueError(
                f"weights must have one entry per problem (got {w.shape}, p {p.shape})"
            )
        total = float(xp.sum(w))
        if total <= 0.0:
            raise ValueError("weights must have a positive sum")
        w = w / total
    return xp.stack([xp.sum(w * pass_at_k_exact(p, k)) for k in _budget_list(ks)])


def estimator_expectation(
    estimator: Callable[[int, NDArray[np.int64], int], ArrayLike],
    p: ArrayLike,
    n: int,
    k: int,
) -> NDArray[np.float64]:
    r"""Exact expectation of a pass@k estimator over c ~ Binomial(n, p), per problem.

    .. math:: E[\hat\pi] = \sum_{c=0}^{n} \binom{n}{c} p^c (1-p)^{n-c}\, \hat\pi(n, c, k)

    With ``pass_at_k`` this equals 1 - (1-p)^k (unbiased); with ``pass_at_k_plugin`` it is
    lower for 1 < k and 0 < p < 1.

    Parameters
    ----------
    estimator : callable
        ``estimator(n, c, k)`` with ``c`` an integer array 0..n (e.g. ``pass_at_k``).
    p : array_like of float
        Success probabilities in [0, 1].
    n : int
        Samples per problem, n >= 1.
    k : int
        Budget, passed to ``estimator``.

    Returns
    -------
    numpy.ndarray
        float64, p's shape.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import estimator_expectation, pass_at_k, pass_at_k_plugin
    >>> p = np.array([0.1, 0.5])
    >>> estimator_expectation(pass_at_k, p, 10, 2).round(6)  # unbiased: 1 − (1 − p)²
    array([0.19, 0.75])
    >>> estimator_expectation(pass_at_k_plugin, p, 10, 2).round(6)  # biased low
    array([0.181, 0.725])
    """
    p = _np_reals(p, "p", low=0.0, high=1.0)
    n = _scalar_int(n, "n")
    if n < 1:
        raise ValueError(f"n must be >= 1 (got n={n})")
    c = np.arange(n + 1)
    values = np.asarray(estimator(n, c, k), dtype=np.float64)  # (n+1,)
    pmf = stats.binom.pmf(c[:, None], n, p.reshape(1, -1))  # (n+1, P)
    return (values @ pmf).reshape(p.shape)


def pool_counts(n: ArrayLike, c: ArrayLike, axis: int = 0) -> tuple[NDArray[Any], NDArray[Any]]:
    """Pool per-seed counts: total samples and total correct per problem along ``axis``.

    Pool, don't average per-seed estimates: concatenating every sample of a problem into one n
    keeps the estimator unbiased up to k = Σ n, whereas averaging per-run estimates caps k at
    the per-run n (the authors' LeapLabTHU/limit-of-RLVR ``pass@k.py`` pools N = n_per_run × seeds).

    Parameters
    ----------
    n, c : array_like of int
        Same shape, 0 <= c <= n, e.g. (seeds, problems).
    axis : int
        The seed axis.

    Returns
    -------
    n_pooled, c_pooled : numpy.ndarray of int

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import pool_counts
    >>> pool_counts(np.array([[4, 4], [4, 4]]), np.array([[1, 0], [2, 4]]))  # two runs, 2 problems
    (array([8, 8]), array([3, 4]))
    """
    n, c = np.asarray(n), np.asarray(c)
    if n.shape != c.shape:
        raise ValueError(f"n and c must have the same shape (got {n.shape} and {c.shape})")
    n, c = _counts(n, c, np_xp)
    axis = _scalar_int(axis, "axis")
    if not -n.ndim <= axis < n.ndim:
        raise ValueError(f"axis must be an axis of n, in [{-n.ndim}, {n.ndim}) (got {axis})")
    return np.asarray(n.sum(axis=axis)), np.asarray(c.sum(axis=axis))


def counts_from_samples(
    problem_ids: ArrayLike, correct: ArrayLike
) -> tuple[NDArray[Any], NDArray[np.intp], NDArray[np.intp]]:
    """Per-problem counts (n, c) from per-sample records.

    Parameters
    ----------
    problem_ids : array_like, 1-D
        Problem id of each sample; any sortable dtype (ints, strings, ...).
    correct : array_like, 1-D
        Whether each sample passed: booleans or 0/1, same length.

    Returns
    -------
    ids : numpy.ndarray
        Sorted unique ids (``np.unique``).
    n, c : numpy.ndarray of int
        Samples and correct samples per id.

    Examples
    --------
    >>> from theory.passk import counts_from_samples
    >>> problems, n, c = counts_from_samples(["a", "b", "a", "a"], [1, 0, 0, 1])
    >>> problems.tolist(), n.tolist(), c.tolist()
    (['a', 'b'], [3, 1], [2, 0])
    """
    ids, ok = np.asarray(problem_ids), np.asarray(correct)
    if ids.ndim != 1 or ok.shape != ids.shape:
        raise ValueError(
            "problem_ids and correct must be 1-D of equal length "
            f"(got shapes {ids.shape} and {ok.shape})"
        )
    if ok.dtype != np.bool_:
        bad = ~np.isin(ok, (0, 1))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"correct must be booleans or 0/1 (got {ok[i]} at index {i})")
        ok = ok.astype(np.bool_)
    unique, inverse = np.unique(ids, return_inverse=True)
    n = np.bincount(inverse, minlength=unique.size)
    c = np.bincount(inverse[ok], minlength=unique.size)
    return unique, n, c


# ---------------------------------------------------------------------------------------------
# sharpening models (docs/rlvr.md#sharpening-models-our-analysis)
# ---------------------------------------------------------------------------------------------


def _logit(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """log p - log(1-p), with ±inf at p = 0, 1."""
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-p)


def _logit_affine_map(p: NDArray[np.float64], alpha: Any, beta: Any) -> NDArray[np.float64]:
    """σ(α·logit p + β) with q = p at the endpoints p ∈ {0, 1} (no validation)."""
    with np.errstate(invalid="ignore"):  # -inf + inf at p = 0 with infinite beta
        q = special.expit(alpha * _logit(p) + beta)
    return np.asarray(np.where((p == 0.0) | (p == 1.0), p, q))


def tilt(p: ArrayLike, beta: ArrayLike) -> NDArray[np.float64]:
    r"""KL-regularised RL optimum for a binary reward: the exponential tilt of p.

    Maximising E_π r - β·KL(π‖π₀) gives π* ∝ π₀·e^{r/β}, so the success probability becomes

    .. math:: \operatorname{logit} q = \operatorname{logit} p + 1/β,
              \qquad q = \frac{p\,e^{1/β}}{1 - p + p\,e^{1/β}}

    with q = 0 iff p = 0 (no new support) and q >= p (clipped at p against round-off).

    Parameters
    ----------
    p : array_like of float
        Base success probabilities in [0, 1].
    beta : array_like of float
        KL coefficient β > 0; broadcast against p.

    Returns
    -------
    numpy.ndarray
        float64, broadcast shape.

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (binary reward, exact tilt).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import tilt
    >>> tilt(np.array([0.0, 0.2, 0.5]), 1.0).round(4)  # logit q = logit p + 1; q = 0 stays 0
    array([0.    , 0.4046, 0.7311])
    """
    p = _np_reals(p, "p", low=0.0, high=1.0)
    beta = _np_reals(beta, "beta", low=0.0, open_low=True)
    with np.errstate(over="ignore"):  # 1/β = inf for subnormal β: q = 1 wherever p > 0
        shift = 1.0 / beta
    return np.asarray(np.maximum(_logit_affine_map(p, 1.0, shift), p))


def logit_affine(p: ArrayLike, alpha: ArrayLike, beta: ArrayLike) -> NDArray[np.float64]:
    r"""Logit-affine sharpening: power-sharpen (π ∝ π₀^α) then tilt.

    .. math:: \operatorname{logit} q = α \operatorname{logit} p + β, \qquad α > 0

    q = 0 where p = 0 and q = 1 where p = 1; for α > 1 and p → 0, q ≈ e^β p^α. With α = 1,
    β = 1/β_KL this is ``tilt``.

    Parameters
    ----------
    p : array_like of float
        Base success probabilities in [0, 1].
    alpha : array_like of float
        Sharpening exponent α > 0.
    beta : array_like of float
        Finite logit shift β.

    Returns
    -------
    numpy.ndarray
        float64, broadcast shape.

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (logit-affine model).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import logit_affine
    >>> logit_affine(np.array([0.1, 0.5]), 2.0, 1.0).round(4)  # σ(2·logit p + 1)
    array([0.0325, 0.7311])
    """
    p = _np_reals(p, "p", low=0.0, high=1.0)
    alpha = _np_reals(alpha, "alpha", low=0.0, open_low=True)
    beta = _np_reals(beta, "beta")
    return _logit_affine_map(p, alpha, beta)


def fit_logit_affine(p: ArrayLike, q: ArrayLike) -> tuple[float, float]:
    r"""Least-squares (α, β) of the logit-affine model fitted to paired success probabilities.

    .. math:: \min_{α, β} \sum_i (\operatorname{logit} q_i − α \operatorname{logit} p_i − β)^2

    over the pairs with both p_i and q_i in the open interval (0, 1) (logits at 0 or 1 are
    infinite). The inverse of ``logit_affine``: it returns (α, β) exactly when q was made by it.

    Parameters
    ----------
    p, q : array_like of float
        Base and trained success probabilities in [0, 1], the same shape.

    Returns
    -------
    (float, float)
        α and β.

    Raises
    ------
    ValueError
        If the shapes differ or fewer than two pairs with distinct logit p lie inside (0, 1).

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (logit-affine model); used on measured p, q in
    ``rlvr.toy_slope_prediction`` and ``rlvr.transformer_crossing``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import fit_logit_affine, logit_affine
    >>> p = np.array([0.1, 0.5, 0.9])
    >>> alpha, beta = fit_logit_affine(p, logit_affine(p, 2.0, 1.0))
    >>> round(alpha, 6), round(beta, 6)
    (2.0, 1.0)
    """
    p = _np_reals(p, "p", low=0.0, high=1.0)
    q = _np_reals(q, "q", low=0.0, high=1.0)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape (got {p.shape} and {q.shape})")
    inside = (p > 0) & (p < 1) & (q > 0) & (q < 1)
    lp, lq = special.logit(p[inside]), special.logit(q[inside])
    if np.unique(lp).size < 2:
        raise ValueError("need at least two pairs with distinct p, both p and q inside (0, 1)")
    alpha, beta = np.polyfit(lp, lq, 1)
    return float(alpha), float(beta)


def logit_affine_fixed_point(alpha: ArrayLike, beta: ArrayLike) -> NDArray[np.float64]:
    r"""Fixed point of the logit-affine map, p* = σ(-β/(α-1)) for α ≠ 1.

    For α > 1, problems with p > p* improve (q > p) and problems with p < p* get worse.

    Parameters
    ----------
    alpha, beta : array_like of float
        The map q = σ(α·logit p + β), α ≠ 1.

    Returns
    -------
    numpy.ndarray of float
        p*, the broadcast shape of alpha and beta.

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (for α > 1 the fixed point p* = σ(−β/(α − 1))).

    Examples
    --------
    >>> from theory.passk import logit_affine, logit_affine_fixed_point
    >>> p_star = logit_affine_fixed_point(2.0, 1.0)
    >>> round(float(p_star), 4), round(float(logit_affine(p_star, 2.0, 1.0)), 4)
    (0.2689, 0.2689)
    """
    alpha = _np_reals(alpha, "alpha", low=0.0, open_low=True)
    beta = _np_reals(beta, "beta")
    if np.any(alpha == 1.0):
        raise ValueError("alpha must differ from 1 (alpha = 1 has no fixed point in (0, 1))")
    return np.asarray(special.expit(-beta / (alpha - 1.0)))


# ---------------------------------------------------------------------------------------------
# Beta-distributed p (docs/rlvr.md#sharpening-models-our-analysis)
# ---------------------------------------------------------------------------------------------


def _beta_params(a: ArrayLike, b: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    return (
        _np_reals(a, "a", low=0.0, open_low=True),
        _np_reals(b, "b", low=0.0, open_low=True),
    )


def beta_pass_at_k(a: ArrayLike, b: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    r"""Dataset pass@k when p ~ Beta(a, b).

    .. math:: 1 - E[(1-p)^k] = 1 - \frac{B(a, b+k)}{B(a, b)}

    Parameters
    ----------
    a, b : array_like of float
        Beta parameters > 0.
    k : array_like of float
        Budgets >= 1 (non-integer k is the continuous extension); all arguments broadcast.

    Returns
    -------
    numpy.ndarray
        float64, broadcast shape.

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (p ~ Beta(a, b)).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import beta_pass_at_k
    >>> beta_pass_at_k(1.0, 1.0, np.array([1, 3]))  # p uniform: 1 − 1/(k + 1)
    array([0.5 , 0.75])
    """
    a, b = _beta_params(a, b)
    k = _np_reals(k, "k", low=1.0)
    return np.asarray(-np.expm1(special.betaln(a, b + k) - special.betaln(a, b)))


def beta_failure_asymptote(a: ArrayLike, b: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    r"""Large-k failure rate for p ~ Beta(a, b): B(a,b+k)/B(a,b) ~ Γ(a+b)/Γ(b) · k^{-a}.

    Parameters
    ----------
    a, b : array_like of float
        Beta parameters > 0.
    k : array_like of float
        Budgets, large (the asymptote's regime); broadcast against a and b.

    Returns
    -------
    numpy.ndarray of float
        Γ(a+b)/Γ(b) · k^{−a}, the broadcast shape.

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (base failure-rate slope −a on log-log axes).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import beta_failure_asymptote, beta_pass_at_k
    >>> k = np.array([1024])
    >>> beta_failure_asymptote(0.3, 1.5, k).round(4), (1 - beta_pass_at_k(0.3, 1.5, k)).round(4)
    (array([0.1314]), array([0.1313]))
    """
    a, b = _beta_params(a, b)
    k = _np_reals(k, "k", low=1.0)
    return np.asarray(np.exp(special.gammaln(a + b) - special.gammaln(b) - a * np.log(k)))


_QUAD_LOG_TOL = 40.0  # integration limits drop tails below e^-40 of the integral (~4e-18)
_QUAD_STEP = 0.04  # trapezoid step in u = logit p for α <= 1 (scaled by 1/α above)
_QUAD_CHUNK = 1 << 22  # grid points × budgets evaluated at once


def _logit_grid(
    a: float, b: float, alpha: float, beta: float, k_min: float, k_max: float
) -> NDArray[np.float64]:
    """Uniform grid in u = logit p wide enough that both tails are negligible.

    Left of the mode and of the onset u₀(k) = -(log k + β)/α (where k·q ≈ 1) the integrand
    decays like e^{a u}; right of them at least like e^{-b u}.
    """
    mode = math.log(a / b)

    def onset(k: float) -> float:
        return -(math.log(k) + beta) / alpha

    lo = min(0.0, mode, onset(k_max)) - (_QUAD_LOG_TOL + max(0.0, -math.log(a))) / a
    hi = max(0.0, mode, onset(k_min)) + (_QUAD_LOG_TOL + max(0.0, -math.log(b))) / b
    step = _QUAD_STEP / max(1.0, alpha)
    return np.linspace(lo, hi, math.ceil((hi - lo) / step) + 1)


def beta_logit_affine_pass_at_k(
    a: float, b: float, alpha: float, beta: float, k: ArrayLike
) -> NDArray[np.float64]:
    r"""Dataset pass@k after logit-affine sharpening of p ~ Beta(a, b), by quadrature.

    With q = σ(α·logit p + β) and u = logit p (so p^{a-1}(1-p)^{b-1} dp = σ(u)^a σ(-u)^b du),

    .. math:: 1 - \text{pass@}k = E[(1-q)^k] = \int_{-\infty}^{\infty}
              \exp\!\big(a \log σ(u) + b \log σ(-u) + k \log σ(-(αu+β)) - \log B(a,b)\big)\,du

    evaluated by the trapezoid rule on a uniform u-grid (deterministic, no sampling). The
    integrand is analytic in a strip around the real axis, so the rule converges geometrically
    (step 0.04/max(1, α), error far below 1e-14); the limits are set from the tail decay rates
    (e^{au} on the left, e^{-bu} on the right) so neglected tails are below e^{-40} relative.
    The failure rate is accurate to ~1e-12 relative for k up to 2^16 and beyond (checked
    against mpmath; scipy's ``betaln`` behind ``beta_pass_at_k`` is good to ~5e-11 there).

    Parameters
    ----------
    a, b : float
        Beta parameters > 0.
    alpha : float
        Sharpening exponent α > 0.
    beta : float
        Finite logit shift β.
    k : array_like of float
        Budgets >= 1.

    Returns
    -------
    numpy.ndarray
        float64, k's shape.

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (the check with Beta(0.3, 1.5), α = 2, β = 2).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import beta_logit_affine_pass_at_k, beta_pass_at_k
    >>> ks = np.array([1, 64])
    >>> beta_logit_affine_pass_at_k(0.3, 1.5, 2.0, 2.0, ks).round(4)  # sharpened
    array([0.2462, 0.5734])
    >>> beta_pass_at_k(0.3, 1.5, ks).round(4)  # the base: behind at k = 1, ahead at k = 64
    array([0.1667, 0.6998])
    """
    a, b = (float(v) for v in _beta_params(a, b))
    alpha = float(_np_reals(alpha, "alpha", low=0.0, open_low=True))
    beta = float(_np_reals(beta, "beta"))
    k = _np_reals(k, "k", low=1.0)
    ks = k.reshape(-1)
    if ks.size == 0:
        return np.zeros(k.shape)
    u = _logit_grid(a, b, alpha, beta, float(ks.min()), float(ks.max()))
    step = u[1] - u[0]
    log_density = a * special.log_expit(u) + b * special.log_expit(-u) - special.betaln(a, b)
    log_survival = special.log_expit(-(alpha * u + beta))  # log(1 - q)
    failure = np.empty_like(ks)
    chunk = max(1, _QUAD_CHUNK // u.size)
    for start in range(0, ks.size, chunk):
        block = ks[start : start + chunk, None]  # (K, 1)
        integrand = np.exp(log_density + block * log_survival)  # (K, U)
        failure[start : start + chunk] = step * integrand.sum(axis=1)
    return (1.0 - failure).reshape(k.shape)


def beta_logit_affine_failure_asymptote(
    a: ArrayLike, b: ArrayLike, alpha: ArrayLike, beta: ArrayLike, k: ArrayLike
) -> NDArray[np.float64]:
    r"""Large-k failure rate after logit-affine sharpening of p ~ Beta(a, b).

    As p → 0, q ≈ e^β p^α, so

    .. math:: E[(1-q)^k] ≈ \frac{1}{B(a,b)} \int_0^\infty e^{-k e^β p^α} p^{a-1}\,dp
              = \frac{Γ(a/α)\, e^{-βa/α}}{α\, B(a,b)}\, k^{-a/α}

    (substitute t = k e^β p^α). The log-log slope is -a/α: shallower than the base's -a by a
    factor α, so for α > 1 the base overtakes at finite k.

    Parameters
    ----------
    a, b : array_like of float
        Beta parameters > 0 of the base's p.
    alpha, beta : array_like of float
        The sharpening q = σ(α·logit p + β), α > 0.
    k : array_like of float
        Budgets, large; broadcast against the rest.

    Returns
    -------
    numpy.ndarray of float
        Γ(a/α) e^{−βa/α} / (α B(a, b)) · k^{−a/α}, the broadcast shape.

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (1 − pass@k_RL ~ C·k^(−a/α)).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import beta_logit_affine_failure_asymptote, beta_logit_affine_pass_at_k
    >>> k = np.array([65536])
    >>> beta_logit_affine_failure_asymptote(0.3, 1.5, 2.0, 2.0, k).round(4)
    array([0.1534])
    >>> (1 - beta_logit_affine_pass_at_k(0.3, 1.5, 2.0, 2.0, k)).round(4)  # by quadrature
    array([0.1533])
    """
    a, b = _beta_params(a, b)
    alpha = _np_reals(alpha, "alpha", low=0.0, open_low=True)
    beta = _np_reals(beta, "beta")
    k = _np_reals(k, "k", low=1.0)
    r = a / alpha
    log_c = special.gammaln(r) - beta * r - np.log(alpha) - special.betaln(a, b)
    return np.asarray(np.exp(log_c - r * np.log(k)))


def two_type_pass_at_k(
    k: ArrayLike,
    frac_improved: float,
    p_e: float,
    q_e: float,
    frac_lost: float,
    eps: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Two-type closed form: a fraction a of problems goes p_e → q_e, a fraction b goes ε → 0.

    .. math:: \text{base}(k) = a[1-(1-p_e)^k] + b[1-(1-ε)^k], \qquad
              \text{rl}(k) = a[1-(1-q_e)^k]

    The remaining 1 - a - b problems have p = 0 under both. Δ(∞) = -b, so any pass@1 gain
    (a(q_e - p_e) > bε) implies a crossing.

    Parameters
    ----------
    k : array_like of int
        Budgets >= 1.
    frac_improved, frac_lost : float
        a and b, in [0, 1] with a + b <= 1.
    p_e, q_e, eps : float
        Probabilities in [0, 1].

    Returns
    -------
    base, rl : numpy.ndarray
        float64, k's shape.

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (two-type model).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import two_type_pass_at_k
    >>> base, rl = two_type_pass_at_k(np.array([1, 256]), 0.5, 0.1, 0.6, 0.2, 0.01)
    >>> base.round(4), rl.round(4)  # RL ahead at k = 1, behind at k = 256
    (array([0.052 , 0.6847]), array([0.3, 0.5]))
    """
    a = _np_reals(frac_improved, "frac_improved", low=0.0, high=1.0)
    b = _np_reals(frac_lost, "frac_lost", low=0.0, high=1.0)
    if a + b > 1.0:
        raise ValueError(f"frac_improved + frac_lost must be <= 1 (got {a + b:g})")
    p_e = _np_reals(p_e, "p_e", low=0.0, high=1.0)
    q_e = _np_reals(q_e, "q_e", low=0.0, high=1.0)
    eps = _np_reals(eps, "eps", low=0.0, high=1.0)
    base = a * pass_at_k_exact(p_e, k) + b * pass_at_k_exact(eps, k)
    rl = a * pass_at_k_exact(q_e, k)
    return np.asarray(base), np.asarray(rl)


# ---------------------------------------------------------------------------------------------
# crossings
# ---------------------------------------------------------------------------------------------


def _scale(scale: ArrayLike, shape: tuple[int, ...]) -> NDArray[np.float64]:
    """``scale`` (non-negative reals) broadcast to Δ's ``shape``."""
    s = _np_reals(scale, "scale", low=0.0)
    try:
        return np.broadcast_to(s, shape)
    except ValueError:
        raise ValueError(
            f"scale must broadcast against delta's shape {shape} (got {s.shape})"
        ) from None


def _significant(
    delta: ArrayLike, scale: ArrayLike | None, rtol: float
) -> tuple[NDArray[np.float64], NDArray[np.intp], NDArray[np.float64]]:
    """(delta, indices of entries with |delta| > rtol·scale, their signs)."""
    d = _np_reals(delta, "delta")
    if d.ndim != 1:
        raise ValueError(f"delta must be 1-D (got shape {d.shape})")
    rtol = float(_np_reals(rtol, "rtol", low=0.0))
    s = np.abs(d) if scale is None else _scale(scale, d.shape)
    idx = np.flatnonzero(np.abs(d) > rtol * s)
    return d, idx, np.sign(d[idx])


def sign_changes(
    delta: ArrayLike, scale: ArrayLike | None = None, rtol: float = 1e-10
) -> NDArray[np.intp]:
    """Indices where the sign of ``delta`` differs from its last significant entry.

    Entries with |delta_i| <= rtol·scale_i are ignored (treated as noise), so round-off
    around zero does not create spurious crossings.

    Parameters
    ----------
    delta : array_like of float, 1-D
        E.g. pass@k(RL) - pass@k(base) over increasing k.
    scale : array_like of float, optional
        Non-negative magnitude per entry (or scalar). Defaults to |delta|, which ignores only
        exact zeros. Pass a cancellation-aware scale, e.g. Σ_i |d_i| (1-p_i)^k when delta is
        a sum of terms d_i (1-p_i)^k.
    rtol : float
        Relative threshold, >= 0.

    Returns
    -------
    numpy.ndarray of int
        Index i of the first entry with the new sign, for each change.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import sign_changes
    >>> sign_changes(np.array([1.0, -1.0, 1.0]))
    array([1, 2])
    >>> sign_changes(np.array([1.0, 0.0, 0.0, -2.0]))  # exact zeros carry no sign
    array([3])
    """
    _, idx, signs = _significant(delta, scale, rtol)
    return idx[1:][signs[1:] != signs[:-1]]


@dataclass(frozen=True)
class Crossing:
    """Where the base curve overtakes the RL curve.

    Attributes
    ----------
    k_star : float or None
        First k where Δ = rl - base goes from > 0 to < 0, interpolated linearly in Δ against
        log k; None when there is no such crossing.
    bracket : tuple of int or None
        (k_lo, k_hi): the ks of the last significant positive and first significant negative
        Δ (consecutive ks unless negligible Δ lie between).
    n_crossings : int
        Number of sign changes of Δ in either direction.
    """

    k_star: float | None
    bracket: tuple[int, int] | None
    n_crossings: int


@dataclass(frozen=True)
class Crossings:
    """``crossing_k`` of many curve pairs at once (one entry per pair).

    Attributes
    ----------
    k_star : numpy.ndarray of float
        As ``Crossing.k_star``; NaN where a pair does not cross.
    bracket : numpy.ndarray of int, shape (..., 2)
        As ``Crossing.bracket``; (0, 0) where a pair does not cross.
    n_crossings : numpy.ndarray of int
        As ``Crossing.n_crossings``.
    """

    k_star: NDArray[np.float64]
    bracket: NDArray[np.int64]
    n_crossings: NDArray[np.intp]


def _budget_grid(ks: ArrayLike) -> NDArray[np.float64]:
    k = _np_reals(ks, "ks", low=0.0, open_low=True)
    if k.ndim != 1 or k.size == 0 or np.any(np.diff(k) <= 0) or np.any(k != np.round(k)):
        raise ValueError("ks must be a non-empty 1-D strictly increasing sequence of integers")
    return k


def _crossings(
    k: NDArray[np.float64], d: NDArray[np.float64], significant: NDArray[np.bool_]
) -> Crossings:
    """The crossing of every row of Δ = ``d`` (B, K) on the budgets ``k`` (K,), counting only
    the ``significant`` entries (B, K): see ``crossing_k``."""
    rows, cols = np.indices(d.shape)  # (B, K) each
    sign = np.where(significant, np.sign(d), 0.0)
    # index of the last significant entry strictly before each column (-1: none)
    last = np.maximum.accumulate(np.where(significant, cols, -1), axis=1)
    prev = np.concatenate([np.full((d.shape[0], 1), -1), last[:, :-1]], axis=1)
    prev_sign = np.where(prev >= 0, sign[rows, np.maximum(prev, 0)], 0.0)
    change = significant & (prev >= 0) & (sign != prev_sign)
    downward = change & (sign < 0)
    crosses = downward.any(axis=1)
    hi = np.argmax(downward, axis=1)  # first downward change (0 where there is none)
    lo = np.maximum(prev[rows[:, 0], hi], 0)
    d_lo, d_hi = d[rows[:, 0], lo], d[rows[:, 0], hi]
    t = d_lo / np.where(crosses, d_lo - d_hi, 1.0)  # d_lo > 0 > d_hi where it crosses
    log_k = np.log(k)
    k_star = np.exp(log_k[lo] + t * (log_k[hi] - log_k[lo]))
    bracket = np.stack([k[lo], k[hi]], axis=-1).astype(np.int64)
    return Crossings(
        np.where(crosses, k_star, np.nan),
        np.where(crosses[:, None], bracket, 0),
        change.sum(axis=1),
    )


def crossing_k(
    ks: ArrayLike,
    base: ArrayLike,
    rl: ArrayLike,
    scale: ArrayLike | None = None,
    rtol: float = 1e-10,
) -> Crossing:
    r"""First k at which the base model's pass@k overtakes RL's.

    With Δ = rl - base on strictly increasing ks, find the first significant entry i with
    Δ_i < 0 preceded (ignoring negligible entries, see ``sign_changes``) by a significant
    Δ_j > 0, and interpolate geometrically inside (k_j, k_i):

    .. math:: \log k^* = \log k_j + \frac{Δ_j}{Δ_j - Δ_i} (\log k_i - \log k_j)

    Parameters
    ----------
    ks : array_like of int, 1-D
        Strictly increasing positive budgets.
    base, rl : array_like of float
        pass@k curves on ``ks``.
    scale, rtol
        Significance threshold for Δ, as in ``sign_changes``.

    Returns
    -------
    Crossing

    References
    ----------
    docs/rlvr.md#conventions (the crossing k*) and
    docs/rlvr.md#sharpening-models-our-analysis (at most one crossing, a sketch).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import beta_logit_affine_pass_at_k, beta_pass_at_k, crossing_k
    >>> ks = 2 ** np.arange(9)
    >>> base = beta_pass_at_k(0.3, 1.5, ks)
    >>> rl = beta_logit_affine_pass_at_k(0.3, 1.5, 2.0, 2.0, ks)
    >>> crossing = crossing_k(ks, base, rl)
    >>> round(crossing.k_star, 2), crossing.bracket, crossing.n_crossings
    (5.16, (4, 8), 1)
    """
    k = _budget_grid(ks)
    base = _np_reals(base, "base")
    rl = _np_reals(rl, "rl")
    if base.shape != k.shape or rl.shape != k.shape:
        raise ValueError(
            f"base and rl must match ks's shape {k.shape} (got {base.shape} and {rl.shape})"
        )
    d, idx, _ = _significant(rl - base, scale, rtol)
    significant = np.zeros(d.shape, dtype=bool)
    significant[idx] = True
    many = _crossings(k, d[None, :], significant[None, :])
    if np.isnan(many.k_star[0]):
        return Crossing(None, None, int(many.n_crossings[0]))
    lo, hi = many.bracket[0]
    return Crossing(float(many.k_star[0]), (int(lo), int(hi)), int(many.n_crossings[0]))


def crossing_k_many(
    ks: ArrayLike,
    base: ArrayLike,
    rl: ArrayLike,
    scale: ArrayLike | None = None,
    rtol: float = 1e-10,
) -> Crossings:
    """``crossing_k`` for many pairs of curves at once, e.g. the bootstrap draws of two curves.

    The same definition, vectorised: for each row of Δ = rl - base (the last axis runs over
    ``ks``), the first significant downward sign change, interpolated linearly in log k.

    Parameters
    ----------
    ks : array_like of int, 1-D
        Strictly increasing positive budgets (K of them).
    base, rl : array_like of float
        Curves, broadcast together to shape (..., K).
    scale : array_like of float, optional
        Non-negative magnitudes broadcast against Δ (default |Δ|, as in ``sign_changes``).
    rtol : float
        Relative significance threshold, >= 0.

    Returns
    -------
    Crossings
        Arrays of shape (...) (``bracket``: (..., 2)).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import beta_logit_affine_pass_at_k, beta_pass_at_k, crossing_k_many
    >>> ks = 2 ** np.arange(9)
    >>> base = beta_pass_at_k(0.3, 1.5, ks)
    >>> rl = beta_logit_affine_pass_at_k(0.3, 1.5, 2.0, 2.0, ks)
    >>> many = crossing_k_many(ks, np.stack([base, base]), np.stack([rl, base + 0.01]))
    >>> many.k_star.round(2), many.n_crossings  # the second pair never crosses
    (array([5.16,  nan]), array([1, 0]))
    """
    k = _budget_grid(ks)
    base = _np_reals(base, "base")
    rl = _np_reals(rl, "rl")
    try:
        d = rl - base
    except ValueError:
        raise ValueError(
            f"base and rl must broadcast together (got {base.shape} and {rl.shape})"
        ) from None
    if d.ndim == 0 or d.shape[-1] != k.size:
        raise ValueError(f"the last axis of base and rl must run over the {k.size} ks")
    rtol = float(_np_reals(rtol, "rtol", low=0.0))
    s = np.abs(d) if scale is None else _scale(scale, d.shape)
    significant = np.abs(d) > rtol * s
    lead = d.shape[:-1]
    flat = _crossings(k, d.reshape(-1, k.size), significant.reshape(-1, k.size))
    return Crossings(
        flat.k_star.reshape(lead),
        flat.bracket.reshape((*lead, 2)),
        flat.n_crossings.reshape(lead),
    )
