"""pass@k statistics of measured success probabilities and sample counts (docs/rlvr.md): how far
the unbiased estimator lies from the exact curve, the crossing k* on a log2 scale, the logit-affine
map fitted part by part, accuracy histograms and the solved sets of several models.

Closed forms on given numbers, no sampling; built on :mod:`theory.passk`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from theory import _domain
from theory.passk import (
    crossing_k,
    estimator_expectation,
    fit_logit_affine,
    logit_affine_fixed_point,
    pass_at_k,
    pass_at_k_curve,
    pass_at_k_curve_exact,
    pass_at_k_exact,
)

__all__ = [
    "accuracy_histogram",
    "estimator_z",
    "fit_logit_affine_parts",
    "log2_k_star",
    "solved_regions",
    "solved_sets",
]


def estimator_z(p: ArrayLike, c: ArrayLike, n: int, ks: Iterable[int]) -> NDArray[np.float64]:
    r"""How far the unbiased estimate of dataset pass@k lies from the exact value, in exact
    standard errors, at each k of ``ks``, for counts c_i ~ Binomial(n, p_i):

    .. math:: z_k = \frac{\bar{\hat\pi}_k - \overline{1 - (1-p)^k}}
              {\sqrt{\sum_i (E[\hat\pi_{i,k}^2] - (1 - (1-p_i)^k)^2) / P^2}}

    with E[π̂²] from ``estimator_expectation`` (the variance floored at 1e-300). An unbiased
    estimator gives z ~ N(0, 1) for many problems.

    Parameters
    ----------
    p : array_like of float
        Exact success probabilities of the P problems, in [0, 1].
    c : array_like of int
        Correct samples out of ``n`` per problem, p's shape.
    n : int
        Samples per problem.
    ks : iterable of int
        Budgets, each ≤ n.

    Returns
    -------
    numpy.ndarray
        float64, one z per k.

    References
    ----------
    docs/rlvr.md#passk-and-its-estimator (the estimator and exact pass@k);
    Chen et al. 2021, eq. 1.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk_stats import estimator_z
    >>> estimator_z(np.array([0.1, 0.5]), np.array([1, 5]), 10, [1, 2]).round(4)  # c = n·p
    array([0.  , 0.16])
    """
    p = _domain.reals("p", p, minimum=0.0, maximum=1.0)
    est = pass_at_k_curve(np.full(p.size, n), c, ks)
    exact = np.asarray(pass_at_k_curve_exact(p, ks))
    z = []
    for i, k in enumerate(ks):
        second = estimator_expectation(lambda n, cc, kk: pass_at_k(n, cc, kk) ** 2, p, n, int(k))
        var = np.sum(second - pass_at_k_exact(p, int(k)) ** 2) / p.size**2
        z.append((est[i] - exact[i]) / np.sqrt(max(var, 1e-300)))
    return np.asarray(z)


def log2_k_star(
    ks: ArrayLike,
    base: ArrayLike,
    rl: ArrayLike,
    *,
    none_ahead: float | None = None,
    none_behind: float | None = None,
) -> tuple[float, int]:
    """log2 of the first downward crossing k* of ``crossing_k`` and the number of sign changes
    of rl − base on ``ks``, with a curve pair that never crosses censored at the ends of the
    grid: ``none_ahead`` (default log2 of the largest k) when RL leads at the smallest k and is
    never overtaken, else ``none_behind`` (default one octave below the smallest k: RL never
    ahead, k* < k_min).

    Parameters
    ----------
    ks : array_like of int
        Budgets, increasing.
    base, rl : array_like of float
        The two pass@k curves on ``ks``.
    none_ahead, none_behind : float, optional
        The censored values (above).

    Returns
    -------
    log2_k : float
        log2 k*, or the censored value.
    n_crossings : int
        Sign changes of rl − base.

    References
    ----------
    docs/rlvr.md#the-papers-findings-the-checks-compare-with (the crossing k);
    docs/rlvr.md#the-toys-assertions-fixed-before-the-runs (assertion 3: k* in a window of
    small k).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk_stats import log2_k_star
    >>> from theory.sharpening import beta_sharpening
    >>> ks = 2 ** np.arange(11)
    >>> pair = beta_sharpening(0.3, 1.5, 2.0, 2.0, ks)
    >>> value, changes = log2_k_star(ks, pair.base, pair.rl)
    >>> round(value, 3), changes  # k* = 5.16
    (2.367, 1)
    >>> log2_k_star(ks, pair.base, pair.base + 0.01)  # RL always ahead: censored at k = 1024
    (10.0, 0)
    """
    cross = crossing_k(ks, base, rl)  # validates ks, base and rl
    for name, value in (("none_ahead", none_ahead), ("none_behind", none_behind)):
        if value is not None:
            _domain.real(name, value)
    if cross.k_star is not None:
        return float(np.log2(cross.k_star)), int(cross.n_crossings)
    k = np.asarray(ks, dtype=np.float64)
    if none_ahead is None:
        none_ahead = float(np.log2(k[-1]))
    if none_behind is None:
        none_behind = float(np.log2(k[0])) - 1.0
    ahead = np.asarray(rl, dtype=np.float64)[0] - np.asarray(base, dtype=np.float64)[0] > 0
    return (none_ahead if ahead else none_behind), int(cross.n_crossings)


def fit_logit_affine_parts(
    p: ArrayLike, q: ArrayLike, *, min_p: float, tail_p: float
) -> dict[str, float]:
    r"""``fit_logit_affine`` (logit q = α·logit p + β) on the problems with p ≥ ``min_p``: on all
    of them (``alpha``, ``beta``), on their low-p tail p < ``tail_p`` (``alpha_tail``,
    ``beta_tail``) and on the bulk p ≥ ``tail_p`` (``alpha_bulk``, ``beta_bulk``); NaN for a part
    with too few usable problems. Also ``n_tail``, the tail's problem count, and
    ``fixed_point_tail``, the tail fit's p* = σ(−β/(α − 1)) when its α > 1 (else NaN): the
    problems below it lose p.

    The large-k behaviour is set by the tail: q ≈ e^β p^α as p → 0, so a crossing needs α > 1 or
    β < 0 there; α = 1 with β > 0 is the exact tilt, which never crosses.

    Parameters
    ----------
    p, q : array_like of float
        Base and RL success probabilities per problem.
    min_p : float
        Problems with p below it are left out.
    tail_p : float
        The boundary between the tail and the bulk.

    Returns
    -------
    dict
        ``alpha``, ``beta``, ``alpha_tail``, ``beta_tail``, ``alpha_bulk``, ``beta_bulk``,
        ``n_tail`` and ``fixed_point_tail``.

    References
    ----------
    docs/rlvr.md#sharpening-models-our-analysis (the logit-affine model, its fixed
    point and the slopes −a, −a/α).

    Raises
    ------
    ValueError
        Unless ``p`` and ``q`` are probabilities of one shape and ``min_p`` and ``tail_p`` lie in
        [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk import logit_affine
    >>> from theory.passk_stats import fit_logit_affine_parts
    >>> p = np.linspace(0.05, 0.95, 19)
    >>> parts = fit_logit_affine_parts(p, logit_affine(p, 2.0, 1.0), min_p=0.01, tail_p=0.3)
    >>> round(parts["alpha_tail"], 6), round(parts["beta_bulk"], 6), parts["n_tail"]
    (2.0, 1.0, 5)
    >>> round(parts["fixed_point_tail"], 4)  # σ(−1)
    0.2689
    """
    p = _domain.reals("p", p, minimum=0.0, maximum=1.0, nonempty=False)
    q = _domain.reals("q", q, minimum=0.0, maximum=1.0, nonempty=False)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have one shape (got {p.shape} and {q.shape})")
    min_p = _domain.real("min_p", min_p, minimum=0.0, maximum=1.0)
    tail_p = _domain.real("tail_p", tail_p, minimum=0.0, maximum=1.0)
    keep = p >= min_p
    parts = {"": keep, "_tail": keep & (p < tail_p), "_bulk": keep & (p >= tail_p)}
    out = {}
    for suffix, mask in parts.items():
        try:
            alpha, beta = fit_logit_affine(p[mask], q[mask])
        except ValueError:
            alpha = beta = float("nan")
        out |= {f"alpha{suffix}": alpha, f"beta{suffix}": beta}
    tail_sharpens = out["alpha_tail"] > 1  # False for NaN
    fixed_point = (
        float(logit_affine_fixed_point(out["alpha_tail"], out["beta_tail"]))
        if tail_sharpens
        else float("nan")
    )
    return out | {"n_tail": int(parts["_tail"].sum()), "fixed_point_tail": fixed_point}


def accuracy_histogram(c: ArrayLike, n: int) -> NDArray[np.int64]:
    """Problems per bin of the per-problem accuracy c/n: {0}, (0, .1], (.1, .2], ..., (.9, 1),
    {1}, an array of 12 counts.

    Parameters
    ----------
    c : array_like of int
        Correct samples per problem.
    n : int
        Samples per problem.

    Returns
    -------
    numpy.ndarray of int, (12,)
        Problems per bin.

    References
    ----------
    docs/rlvr.md#passk-and-its-estimator (the accuracy histogram).

    Raises
    ------
    ValueError
        Unless ``n`` is a positive integer and ``c`` holds whole numbers in [0, n].

    Examples
    --------
    >>> import numpy as np
    >>> from theory.passk_stats import accuracy_histogram
    >>> accuracy_histogram(np.array([0, 1, 5, 10, 10]), 10).tolist()  # {0}, (0, .1], …, {1}
    [1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2]
    """
    n = _domain.integer("n", n, minimum=1)
    c = _domain.counts("c", c)
    if np.any(c > n):
        raise ValueError(f"c must be <= n = {n} (got {c.max():g})")
    acc = c / n
    inner = np.clip(np.ceil(acc * 10).astype(int), 1, 10)  # (0, .1] -> 1, ..., (.9, 1) -> 10
    bins = np.where(c == 0, 0, np.where(c == n, 11, inner))
    return np.bincount(bins, minlength=12)


def solved_sets(c_base: ArrayLike, c_rl: ArrayLike) -> dict[str, int]:
    """Venn counts of the problems two models solve (c > 0): ``both``, ``base_only``,
    ``rl_only``, ``neither`` (the paper finds RL's solved set inside the base's:
    docs/rlvr.md#the-papers-findings-the-checks-compare-with).

    Parameters
    ----------
    c_base, c_rl : array_like of int
        Correct samples per problem of each model.

    Returns
    -------
    dict of str to int
        ``both``, ``base_only``, ``rl_only`` and ``neither``.

    Raises
    ------
    ValueError
        Unless both hold counts (whole numbers ≥ 0) of one shape.

    Examples
    --------
    >>> from theory.passk_stats import solved_sets
    >>> solved_sets([1, 0, 2, 0], [1, 3, 0, 0])
    {'both': 1, 'base_only': 1, 'rl_only': 1, 'neither': 1}
    """
    b, r = _domain.counts("c_base", c_base) > 0, _domain.counts("c_rl", c_rl) > 0
    if b.shape != r.shape:
        raise ValueError(f"c_base and c_rl must have one shape (got {b.shape} and {r.shape})")
    return {
        "both": int(np.sum(b & r)),
        "base_only": int(np.sum(b & ~r)),
        "rl_only": int(np.sum(~b & r)),
        "neither": int(np.sum(~b & ~r)),
    }


def solved_regions(counts: dict[str, ArrayLike]) -> dict[str, int]:
    """Venn counts of the solved sets (c > 0) of any number of models: one entry per combination,
    named by the models that solve the problem joined with "+" ("none" for no model), the
    combination of all first; every combination is listed, zeros included.

    Parameters
    ----------
    counts : dict of str to array_like of int
        Model name → correct samples per problem (the same problems for every model).

    Returns
    -------
    dict of str to int
        Problem count per combination of solving models.

    Raises
    ------
    ValueError
        Unless ``counts`` maps at least one model to counts (whole numbers ≥ 0), all of one shape.

    Examples
    --------
    >>> from theory.passk_stats import solved_regions
    >>> solved_regions({"base": [1, 0, 2, 0], "rl": [1, 3, 0, 0]})
    {'base+rl': 1, 'rl': 1, 'base': 1, 'none': 1}
    """
    if not isinstance(counts, dict) or not counts:
        raise ValueError(f"counts must map at least one model to its counts (got {counts!r})")
    names = list(counts)
    held = [_domain.counts(f"counts[{name!r}]", c, ndim=1) > 0 for name, c in counts.items()]
    if len({c.shape for c in held}) > 1:
        raise ValueError(f"counts must hold one count per problem for every model (got {counts})")
    solved = np.stack(held, axis=1)  # (P, models)
    code = solved @ (1 << np.arange(len(names)))  # bit j: solved by model j
    tally = np.bincount(code, minlength=1 << len(names))
    return {
        "+".join(n for j, n in enumerate(names) if m >> j & 1) or "none": int(tally[m])
        for m in range(len(tally) - 1, -1, -1)
    }
