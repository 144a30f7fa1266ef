"""The experiments of the online claims (Chase, Hanneke, Moran, Shafer, "Optimal Mistake Bounds for
Transductive Online Learning", NeurIPS 2025, arXiv 2512.12567): the classes each claim draws or
enumerates, played through the exact solvers of :mod:`theory.online` and the adversary and learner
of :mod:`sims.online`, and the counts the claims decide on. The model and the values compared with
are in docs/online.md#the-papers-model-and-what-the-checks-use.

M_tr is the exact transductive mistake bound (the suffix-set DP) unless a function passes ``mtr``,
the solver under test; every random draw comes from the ``rng`` arguments, in a fixed order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np

from sims.online import LearnerRun
from theory.online import ConceptClass, constructions
from theory.online.census import Census, CensusCounts, census5_values, class_rows, relabel
from theory.online.certificates import tree_order_floor
from theory.online.dims import littlestone_dim
from theory.online.mtr import mtr_by_permutations, transductive_mistake_bound

__all__ = [
    "ADVERSARY_GRID",
    "LEARNER_HALVING_SIZES",
    "LEARNER_RANDOM_ORDERS",
    "SAMPLE_STRIDE",
    "AdversaryPilot",
    "LearnerStats",
    "SearchTotals",
    "adversary_pilot",
    "adversary_runs",
    "bracket_ok",
    "census5_cross_checks",
    "census_disagreements",
    "certify_candidates",
    "closed_at",
    "closed_share",
    "elementary_bound_violations",
    "exact_mtr",
    "halving_worst_case",
    "invariance_trials",
    "learner_games",
    "learner_statistics",
    "minimal_tree_mtr",
    "minimal_tree_values",
    "mtr_distribution",
    "random_small_class",
    "random_tree_brackets",
    "random_tree_values",
    "search_grid",
    "search_totals",
    "sum_census_counts",
    "tree_class_violations",
    "write_certified_witnesses",
]

MtrFn = Callable[[ConceptClass], int]


def exact_mtr(H: ConceptClass) -> int:
    """M_tr(H) by the suffix-set DP (:func:`theory.online.mtr.transductive_mistake_bound`).

    Parameters
    ----------
    H : ConceptClass
        The class.

    Returns
    -------
    int
        M_tr(H).

    Examples
    --------
    >>> from sims.online_experiments import exact_mtr
    >>> from theory.online import constructions
    >>> exact_mtr(constructions.gadget_w())
    2
    """
    return transductive_mistake_bound(H).value


# ------------------------------------------------------------------------- the 4-point census
def census_disagreements(
    table: Census, n_check: int, rng: np.random.Generator, *, mtr: MtrFn = exact_mtr
) -> tuple[int, int]:
    """Cross-check the 4-point census ``table`` with the general solvers: on every class mask
    1..65,535 when ``n_check`` is 65,535, else on ``n_check`` masks drawn without replacement by
    ``rng``, count the classes whose ``mtr`` and the bitset Ldim differ from the table (each
    solver counts once).

    Parameters
    ----------
    table : theory.online.census.Census
        The 4-point census.
    n_check : int
        Masks checked (65,535: all).
    rng : numpy.random.Generator
        Source of the masks.
    mtr : callable
        The M_tr solver under test (default :func:`exact_mtr`).

    Returns
    -------
    disagreements, checked : int
        The disagreements and the classes checked.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import census_disagreements
    >>> from theory.online.census import census
    >>> census_disagreements(census(4), 50, np.random.default_rng(0))
    (0, 50)
    """
    masks = (
        np.arange(1, 65_536)
        if n_check == 65_535
        else rng.choice(np.arange(1, 65_536), size=n_check, replace=False)
    )
    disagree = 0
    for mask in masks:
        H = ConceptClass.from_strings(table.class_rows(int(mask)))
        disagree += int(mtr(H) != table.mtr[mask]) + int(littlestone_dim(H) != table.ldim[mask])
    return disagree, len(masks)


# ------------------------------------------------------------------------- the 5-point census
#: Sampled 5-point classes: masks k·SAMPLE_STRIDE mod 2^32, k = 1..N (an odd stride: all distinct).
SAMPLE_STRIDE = 2_654_435_761


def sum_census_counts(records: Sequence[Mapping[str, Any]]) -> CensusCounts:
    """The total of the :class:`~theory.online.census.CensusCounts` of sweep records (each the
    ``result`` of :func:`sims.online_sweeps.census5_task`), added in record order.

    Parameters
    ----------
    records : sequence of mapping
        The sweep's records.

    Returns
    -------
    theory.online.census.CensusCounts
        The total.

    Examples
    --------
    >>> from sims.online_experiments import sum_census_counts
    >>> from sims.online_sweeps import census5_task
    >>> records = [{"result": census5_task({"chunk": c, "n_chunks": 2**20}, None)} for c in (0, 1)]
    >>> total = sum_census_counts(records)
    >>> total.classes, total.counts[(3, 2)]  # (Ldim, M_tr) = (3, 2): the gadget's gap
    (8191, 270)
    """
    total = CensusCounts(0, {}, {})
    for record in records:
        total = total + CensusCounts.from_dict(record["result"])
    return total


def census5_cross_checks(four: Census, n_sample: int) -> dict[str, int]:
    """Cross-checks of the 5-point reduction :func:`theory.online.census.census5_values`.

    * ``four_point_mismatches``: on all 65,535 4-point classes embedded with point 4 fixed to 0
      (functions 0..15) and to 1 (16..31), values that differ from ``four`` = census(4);
    * ``sample_mismatches``: on the masks k·:data:`SAMPLE_STRIDE` mod 2^32, k = 1..``n_sample``,
      classes whose (Ldim, M_tr) differ from the bitset Ldim, the suffix-set DP or the
      permutation brute force;
    * ``invariance_mismatches``: sampled classes whose values change under point permutation
      k mod 120 (lexicographic) with column flips 7k mod 32.

    Parameters
    ----------
    four : theory.online.census.Census
        The 4-point census.
    n_sample : int
        Sampled 5-point classes.

    Returns
    -------
    dict of str to int
        The three mismatch counts.

    Examples
    --------
    >>> from sims.online_experiments import census5_cross_checks
    >>> from theory.online.census import census
    >>> census5_cross_checks(census(4), n_sample=20)
    {'four_point_mismatches': 0, 'sample_mismatches': 0, 'invariance_mismatches': 0}
    """
    sub_mismatch = 0
    for shift in (0, 16):
        ld, mt = census5_values(np.arange(1, 1 << 16, dtype=np.int64) << shift)
        sub_mismatch += int(np.sum(ld != four.ldim[1:]) + np.sum(mt != four.mtr[1:]))

    masks = (np.arange(1, n_sample + 1, dtype=np.int64) * SAMPLE_STRIDE) % (1 << 32)
    ld, mt = census5_values(masks)
    perms = list(permutations(range(5)))
    moved = [relabel(int(m), 5, perms[k % 120], (7 * k) % 32) for k, m in enumerate(masks)]
    ld_moved, mt_moved = census5_values(np.array(moved, dtype=np.int64))
    sample_mismatch = invariance_mismatch = 0
    for mask, l5, m5, lm, mm in zip(masks, ld, mt, ld_moved, mt_moved, strict=True):
        H = ConceptClass.from_strings(class_rows(int(mask), 5))
        truth = (
            littlestone_dim(H),
            transductive_mistake_bound(H).value,
            mtr_by_permutations(H).value,
        )
        sample_mismatch += int(truth != (l5, m5, m5))
        invariance_mismatch += int((lm, mm) != (l5, m5))
    return {
        "four_point_mismatches": sub_mismatch,
        "sample_mismatches": sample_mismatch,
        "invariance_mismatches": invariance_mismatch,
    }


# -------------------------------------------------------------------------- random classes
def elementary_bound_violations(
    rows: Sequence[Mapping[str, Any]],
) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The rows of :func:`sims.online_sweeps.random_class_task` as arrays and the classes that
    break each elementary bound: VC ≤ M_tr ≤ min(Ldim, ⌊log2 #H⌋), M_tr ≥ the tree order's floor
    (:func:`theory.online.certificates.tree_order_floor`: 2 from Ldim 2, 3 from Ldim 4) and
    DP = brute force (the paper's Fact E.1 and
    docs/online.md#exact-values-the-checks-compare-with).

    Parameters
    ----------
    rows : sequence of mapping
        The classes of ``random_class_task``.

    Returns
    -------
    arrays : dict of str to numpy.ndarray
        ``vc``, ``mtr``, ``ldim``, ``floor_log2_h``, ``brute`` (−1 where the brute force did not
        run).
    violations : dict of str to int
        Per bound, the classes that break it.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import elementary_bound_violations
    >>> from sims.online_sweeps import random_class_task
    >>> params = {"classes": 20, "max_points": 4, "brute_force_points": 4}
    >>> rows = random_class_task(params, np.random.default_rng(0))["classes"]
    >>> arrays, violations = elementary_bound_violations(rows)
    >>> arrays["mtr"].shape, sum(violations.values())
    ((20,), 0)
    """
    vc = np.array([r["vc"] for r in rows])
    m = np.array([r["mtr"] for r in rows])
    ld = np.array([r["ldim"] for r in rows])
    log_h = np.array([r["floor_log2_h"] for r in rows])
    brute = np.array([r["mtr_bruteforce"] if r["mtr_bruteforce"] is not None else -1 for r in rows])
    violations = {
        "vc > mtr": int(np.sum(vc > m)),
        "mtr > ldim": int(np.sum(m > ld)),
        "mtr > floor log2|H|": int(np.sum(m > log_h)),
        "mtr < tree-order floor of ldim": int(np.sum(m < [tree_order_floor(d) for d in ld])),
        "dp != brute force": int(np.sum((brute >= 0) & (brute != m))),
    }
    arrays = {"vc": vc, "mtr": m, "ldim": ld, "floor_log2_h": log_h, "brute": brute}
    return arrays, violations


def random_small_class(
    rng: np.random.Generator, max_points: int = 5, max_size: int = 20
) -> ConceptClass:
    """A class on n ~ U{1..``max_points``} points of s ~ U{1..min(2^n, ``max_size``)} distinct
    hypotheses, drawn uniformly without replacement from the 2^n labellings.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the class.
    max_points : int
        Largest domain.
    max_size : int
        Largest class.

    Returns
    -------
    ConceptClass
        The class.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import random_small_class
    >>> H = random_small_class(np.random.default_rng(0))
    >>> H.n_points, H.n_hypotheses
    (5, 13)
    """
    n = int(rng.integers(1, max_points + 1))
    size = int(rng.integers(1, min(2**n, max_size) + 1))
    codes = rng.choice(2**n, size=size, replace=False)
    return ConceptClass.from_array([[(c >> j) & 1 for j in range(n)] for c in codes])


def invariance_trials(
    n_classes: int, rng: np.random.Generator, *, mtr: MtrFn = exact_mtr
) -> tuple[dict[str, int], list[tuple[int, int]]]:
    """Invariances of (M_tr, Ldim) on random classes (the definitions of the paper's App. A;
    docs/online.md#exact-values-the-checks-compare-with).

    For ``n_classes`` random classes H (:func:`random_small_class`), count the ones whose
    (M_tr, Ldim) changes under a random point permutation, a column flip, a duplicated column or
    hypothesis; whose random subclass exceeds it; and whose product with a random class G on ≤ 3
    points (kept when it has ≤ 8 points) has M_tr or Ldim other than the sum.

    Parameters
    ----------
    n_classes : int
        Classes drawn.
    rng : numpy.random.Generator
        Source of the classes and the transformations.
    mtr : callable
        The M_tr solver under test.

    Returns
    -------
    violations : dict of str to int
        Per invariance, the classes that break it.
    product_pairs : list of (int, int)
        (M_tr(H) + M_tr(G), M_tr(H × G)) per product kept.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import invariance_trials
    >>> violations, pairs = invariance_trials(10, np.random.default_rng(0))
    >>> sum(violations.values()), all(parts == total for parts, total in pairs)
    (0, True)
    """
    violations = dict.fromkeys(
        ["permute", "flip", "duplicate column", "duplicate hypothesis", "subclass", "product"], 0
    )
    product_pairs = []
    for _ in range(n_classes):
        H = random_small_class(rng)
        m, ld = mtr(H), littlestone_dim(H)
        M = H.matrix
        variants = {
            "permute": M[:, rng.permutation(H.n_points)],
            "flip": np.where(np.arange(H.n_points) == rng.integers(H.n_points), 1 - M, M),
            "duplicate column": np.column_stack([M, M[:, rng.integers(H.n_points)]]),
            "duplicate hypothesis": np.vstack([M, M[rng.integers(H.n_hypotheses)]]),
        }
        for name, variant in variants.items():
            V = ConceptClass.from_array(variant)
            violations[name] += int(mtr(V) != m or littlestone_dim(V) != ld)
        rows = rng.choice(
            H.n_hypotheses, size=int(rng.integers(1, H.n_hypotheses + 1)), replace=False
        )
        sub = H.subclass(np.sort(rows))
        violations["subclass"] += int(mtr(sub) > m or littlestone_dim(sub) > ld)
        G = random_small_class(rng, max_points=3, max_size=6)
        P = constructions.product(H, G)
        if P.n_points <= 8:
            total, parts = mtr(P), m + mtr(G)
            product_pairs.append((parts, total))
            violations["product"] += int(
                total != parts or littlestone_dim(P) != ld + littlestone_dim(G)
            )
    return violations, product_pairs


# ------------------------------------------------------------------------------ tree classes
def minimal_tree_values(
    exact_ds: Sequence[int],
    cert_ds: Sequence[int],
    cert_rng: Callable[[int], np.random.Generator],
    *,
    mtr: MtrFn = exact_mtr,
) -> tuple[list[int], list[int], list[int]]:
    """The minimal tree classes (§2.3, Lemma D.2, off-path labels 0): ``mtr`` for d in
    ``exact_ds``; for d in ``cert_ds`` the certified lower bound of
    :func:`theory.online.certificates.mtr_lower_bound` (seeded by ``cert_rng(d)``).

    Parameters
    ----------
    exact_ds : sequence of int
        Depths solved exactly.
    cert_ds : sequence of int
        Depths certified.
    cert_rng : callable
        d -> the certificate's generator.
    mtr : callable
        The M_tr solver under test.

    Returns
    -------
    exact, certified, ldims : list of int
        The exact values, the certified values and Ldim of every d (``exact_ds`` then
        ``cert_ds``).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import minimal_tree_values
    >>> minimal_tree_values([1, 2, 3], [4], lambda d: np.random.default_rng(d))  # all equal d
    ([1, 2, 3], [4], [1, 2, 3, 4])
    """
    from theory.online.certificates import mtr_lower_bound

    exact_vals, ldims = [], []
    for d in exact_ds:
        H = constructions.tree_class(d)
        exact_vals.append(mtr(H))
        ldims.append(littlestone_dim(H))
    cert_vals = []
    for d in cert_ds:
        H = constructions.tree_class(d)
        cert_vals.append(mtr_lower_bound(H, rng=cert_rng(d)).value)
        ldims.append(littlestone_dim(H))
    return exact_vals, cert_vals, ldims


def random_tree_values(
    ds: Sequence[int],
    qs: Sequence[float],
    n_per: int,
    rng: np.random.Generator,
    *,
    mtr: MtrFn = exact_mtr,
) -> np.ndarray:
    """The paper's random tree classes (§2.3, Lemma D.2: off-path bits Bernoulli(q)), ``n_per``
    per (d, q), drawn from ``rng`` d-major.

    Parameters
    ----------
    ds : sequence of int
        Depths d.
    qs : sequence of float
        Off-path probabilities q.
    n_per : int
        Classes per (d, q).
    rng : numpy.random.Generator
        Source of the classes.
    mtr : callable
        The M_tr solver under test.

    Returns
    -------
    numpy.ndarray of float
        Rows (d, q, Ldim, M_tr).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import random_tree_values
    >>> rows = random_tree_values([3, 4], [0.0, 0.25], 2, np.random.default_rng(0))
    >>> rows[:4].tolist()  # q = 0: M_tr = Ldim = d; q > 0 can fall below
    [[3.0, 0.0, 3.0, 3.0], [3.0, 0.0, 3.0, 3.0], [3.0, 0.25, 3.0, 3.0], [3.0, 0.25, 3.0, 2.0]]
    """
    rows = []
    for d in ds:
        for q in qs:
            for _ in range(n_per):
                H = constructions.tree_class(d, q=q, rng=rng)
                rows.append((d, q, littlestone_dim(H), mtr(H)))
    return np.array(rows)


def tree_class_violations(
    ds: Sequence[int], ldims: Sequence[int], values: Sequence[int], random_rows: np.ndarray
) -> tuple[float, int]:
    """The statistic of the tree-class claim: the share of the random d = 4 classes (rows of
    :func:`random_tree_values`) with M_tr < Ldim, and the violations: minimal classes with Ldim
    or M_tr (``values``: exact or certified) other than d, random classes with M_tr > Ldim, and 1
    if no random d = 4 class is below Ldim.

    Parameters
    ----------
    ds : sequence of int
        The minimal classes' depths.
    ldims : sequence of int
        Their Ldim.
    values : sequence of int
        Their M_tr (exact or certified).
    random_rows : numpy.ndarray of float
        Rows of :func:`random_tree_values`, some at d = 4.

    Returns
    -------
    share_below : float
        The share of random d = 4 classes with M_tr < Ldim.
    violations : int
        The violations.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import random_tree_values, tree_class_violations
    >>> rows = random_tree_values([3, 4], [0.0, 0.25], 2, np.random.default_rng(0))
    >>> tree_class_violations([1, 2, 3], [1, 2, 3], [1, 2, 3], rows)
    (0.5, 0)
    """
    at_d4 = random_rows[random_rows[:, 0] == 4]
    share_below = float(np.mean(at_d4[:, 3] < at_d4[:, 2]))
    violations = (
        sum(a != d for a, d in zip(ldims, ds, strict=True))
        + sum(a != d for a, d in zip(values, ds, strict=True))
        + int(np.sum(random_rows[:, 3] > random_rows[:, 2]))
        + int(share_below == 0)
    )
    return share_below, violations


def bracket_ok(H: ConceptClass, b: Any) -> bool:
    """A bracket is consistent when lower ≤ upper ≤ Ldim(H) = d and its sequence, re-scored
    exactly, forces at least ``lower`` mistakes (the lower end's certificate).

    Parameters
    ----------
    H : ConceptClass
        The class.
    b : theory.online.brackets.Bracket
        Its bracket (``lower``, ``upper``, ``ldim``, ``sequence``).

    Returns
    -------
    bool
        Whether the bracket is consistent.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import bracket_ok
    >>> from theory.online import constructions
    >>> from theory.online.brackets import mtr_bracket
    >>> H = constructions.tree_class(3)
    >>> bracket = mtr_bracket(H, rng=np.random.default_rng(0))
    >>> (bracket.lower, bracket.upper), bracket_ok(H, bracket)
    ((3, 3), True)
    """
    from theory.online.transductive import transductive_value

    forced = transductive_value(H, list(b.sequence)) if b.sequence else 0
    return b.lower <= b.upper <= b.ldim and forced >= b.lower


def random_tree_brackets(
    n_per_q: int,
    qs: Sequence[float],
    rng: np.random.Generator,
    bracket_rng: Callable[[float, int], np.random.Generator],
    bracket: Callable[..., Any],
) -> tuple[list[dict[str, Any]], int, int]:
    """Random tree classes at d = 3, 4, 5, ``n_per_q`` per q, drawn from ``rng`` in that order:
    d = 3, 4 exactly by the DP, with the perfect-halving test of
    :func:`theory.online.brackets.perfect_halving_order` cross-checked against it; d = 5 by
    ``bracket`` (seeded by ``bracket_rng(q, i)``), which must have Ldim 5 and pass
    :func:`bracket_ok`.

    Parameters
    ----------
    n_per_q : int
        Classes per (d, q).
    qs : sequence of float
        Off-path probabilities q.
    rng : numpy.random.Generator
        Source of the classes.
    bracket_rng : callable
        (q, i) -> the bracket's generator.
    bracket : callable
        (H, rng=) -> a bracket, e.g. :func:`theory.online.brackets.mtr_bracket`.

    Returns
    -------
    rows : list of dict
        (d, q, ldim, lower, upper) per class.
    violations : int
        M_tr > Ldim, inconsistent brackets and halving/DP mismatches.
    halving_mismatches : int
        The halving/DP mismatches alone.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import random_tree_brackets
    >>> from theory.online.brackets import mtr_bracket
    >>> rows, violations, mismatches = random_tree_brackets(
    ...     1, [0.0], np.random.default_rng(0), lambda q, i: np.random.default_rng(i), mtr_bracket
    ... )
    >>> [(r["d"], r["lower"], r["upper"]) for r in rows], violations
    ([(3, 3, 3), (4, 4, 4), (5, 5, 5)], 0)
    """
    from theory.online.brackets import perfect_halving_order

    rows, violations, halving_mismatch = [], 0, 0
    for d in (3, 4, 5):
        for q in qs:
            for i in range(n_per_q):
                H = constructions.tree_class(d, q=q, rng=rng)
                if d < 5:
                    m, ld = exact_mtr(H), littlestone_dim(H)
                    halving = perfect_halving_order(H)
                    halving_mismatch += int(
                        halving.decided and (halving.order is not None) != (m == d)
                    )
                    violations += int(m > ld)
                    rows.append({"d": d, "q": q, "ldim": ld, "lower": m, "upper": m})
                    continue
                b = bracket(H, rng=bracket_rng(q, i))
                violations += int(b.ldim != 5 or not bracket_ok(H, b))
                rows.append({"d": d, "q": q, "ldim": b.ldim, "lower": b.lower, "upper": b.upper})
    return rows, violations + halving_mismatch, halving_mismatch


def closed_share(
    rows: Sequence[Mapping[str, Any]], d: int, q: float | None, value: Callable[[int], bool]
) -> float:
    """Among the closed rows (lower = upper) at ``d`` (and ``q``, unless None), the share whose
    M_tr satisfies ``value`` (0 when there are none).

    Parameters
    ----------
    rows : sequence of mapping
        Rows of :func:`random_tree_brackets`.
    d : int
        The depth.
    q : float or None
        The off-path probability (None: all).
    value : callable
        M_tr -> bool.

    Returns
    -------
    float
        The share.

    Examples
    --------
    >>> from sims.online_experiments import closed_share
    >>> rows = [
    ...     {"d": 4, "q": 0.0, "ldim": 4, "lower": 4, "upper": 4},
    ...     {"d": 4, "q": 0.25, "ldim": 4, "lower": 3, "upper": 3},
    ...     {"d": 4, "q": 0.25, "ldim": 4, "lower": 3, "upper": 4},  # not closed
    ... ]
    >>> def below(mtr):
    ...     return mtr < 4
    >>> closed_share(rows, 4, None, below), closed_share(rows, 4, 0.0, below)
    (0.5, 0.0)
    """
    sel = [
        r for r in rows if r["d"] == d and (q is None or r["q"] == q) and r["lower"] == r["upper"]
    ]
    return sum(value(r["lower"]) for r in sel) / max(len(sel), 1)


def closed_at(
    rows: Sequence[Mapping[str, Any]], d: int
) -> tuple[list[Mapping[str, Any]], int, float]:
    """The rows at ``d``, how many of them are closed (lower = upper), and that share.

    Parameters
    ----------
    rows : sequence of mapping
        Rows of :func:`random_tree_brackets`.
    d : int
        The depth.

    Returns
    -------
    rows_at_d : list of mapping
        The rows at ``d``.
    closed : int
        How many are closed.
    share : float
        The closed share.

    Examples
    --------
    >>> from sims.online_experiments import closed_at
    >>> rows = [
    ...     {"d": 4, "q": 0.0, "ldim": 4, "lower": 4, "upper": 4},
    ...     {"d": 4, "q": 0.25, "ldim": 4, "lower": 3, "upper": 3},
    ...     {"d": 4, "q": 0.25, "ldim": 4, "lower": 3, "upper": 4},  # not closed
    ... ]
    >>> closed_at(rows, 4)[1:]
    (2, 0.6666666666666666)
    """
    sel = [r for r in rows if r["d"] == d]
    closed = sum(r["lower"] == r["upper"] for r in sel)
    return sel, closed, closed / len(sel)


def mtr_distribution(
    rows: Sequence[Mapping[str, Any]], qs: Sequence[float]
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """From :func:`random_tree_brackets`' rows: the share of closed classes with M_tr = d − 2,
    d − 1, d per (d, q), keyed ``d{d}_q{q}``, and the share with M_tr < d per d, keyed ``d{d}``.

    Parameters
    ----------
    rows : sequence of mapping
        Rows of :func:`random_tree_brackets` (d = 3, 4, 5).
    qs : sequence of float
        The off-path probabilities.

    Returns
    -------
    table : dict of str to dict
        ``d{d}_q{q}`` -> M_tr (as a string) -> share.
    below : dict of str to float
        ``d{d}`` -> the share with M_tr < d.

    Examples
    --------
    >>> from sims.online_experiments import mtr_distribution
    >>> rows = [
    ...     {"d": 4, "q": 0.0, "ldim": 4, "lower": 4, "upper": 4},
    ...     {"d": 4, "q": 0.25, "ldim": 4, "lower": 3, "upper": 3},
    ...     {"d": 4, "q": 0.25, "ldim": 4, "lower": 3, "upper": 4},  # not closed
    ... ]
    >>> table, below = mtr_distribution(rows, [0.0, 0.25])
    >>> table["d4_q0.25"], below["d4"]
    ({'2': 0.0, '3': 1.0, '4': 0.0}, 0.5)
    """
    table = {
        f"d{d}_q{q}": {
            str(k): closed_share(rows, d, q, lambda v, k=k: v == k) for k in range(d - 2, d + 1)
        }
        for d in (3, 4, 5)
        for q in qs
    }
    below = {f"d{d}": closed_share(rows, d, None, lambda v, d=d: v < d) for d in (3, 4, 5)}
    return table, below


def minimal_tree_mtr(bracket: Callable[..., Any], rng: np.random.Generator) -> list[int]:
    """M_tr of the minimal tree classes d = 1..4 (exact DP) and the lower end of ``bracket`` at
    d = 5 (seeded by ``rng``).

    Parameters
    ----------
    bracket : callable
        (H, rng=) -> a bracket.
    rng : numpy.random.Generator
        The bracket's generator.

    Returns
    -------
    list of int
        Five values, d = 1..5.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import minimal_tree_mtr
    >>> from theory.online.brackets import mtr_bracket
    >>> minimal_tree_mtr(mtr_bracket, np.random.default_rng(0))
    [1, 2, 3, 4, 5]
    """
    minimal = [exact_mtr(constructions.tree_class(d)) for d in (1, 2, 3, 4)]
    minimal.append(bracket(constructions.tree_class(5), rng=rng).lower)
    return minimal


# --------------------------------------------------------------------------------- adversary
#: (ε, M) of CONSTRUCTSEQUENCE played on every class of ``adversary_forces``.
ADVERSARY_GRID = [(0.05, 1), (0.05, 2), (0.05, 4), (0.1, 2), (0.2, 3), (0.3, 2)]


def adversary_runs(
    classes: Sequence[tuple[int, float]],
    rng: np.random.Generator,
    *,
    guaranteed: Callable[..., int],
    grid: Sequence[tuple[float, int]] = ADVERSARY_GRID,
) -> tuple[list[dict[str, Any]], list[str]]:
    """CONSTRUCTSEQUENCE(ε, M) (the paper's Alg. 1–2, Claims B.3–B.5) on the tree class of every
    (d, q) in ``classes`` (drawn from ``rng`` in that order) for every (ε, M) in ``grid``.

    Each row holds the sequence's length n, the mistakes g that ``guaranteed`` says the labelling
    rule forces, the game value v(H, x), the upper bound (M_tr by DP for d ≤ 4, else Ldim = d)
    and the fewest mistakes of SOA, Halving and the paper's learner against the rule.

    Parameters
    ----------
    classes : sequence of (int, float)
        (d, q) of each tree class.
    rng : numpy.random.Generator
        Source of the classes.
    guaranteed : callable
        (H, sequence) -> g, e.g. :func:`sims.online.guaranteed_mistakes`.
    grid : sequence of (float, int)
        The (ε, M) pairs.

    Returns
    -------
    rows : list of dict
        One per (class, ε, M).
    failures : list of str
        The runs (``d=.. q=.. eps=.. M=..``) that break ancestors-first, n < (d+1)·2^{M+1},
        g ≤ v ≤ upper, or a learner below g.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online import guaranteed_mistakes
    >>> from sims.online_experiments import adversary_runs
    >>> rows, failures = adversary_runs(
    ...     [(3, 0.0)], np.random.default_rng(0), guaranteed=guaranteed_mistakes, grid=[(0.2, 3)]
    ... )
    >>> [(r["n"], r["g"], r["v"], r["min_learner_mistakes"]) for r in rows], failures
    ([(7, 3, 3, 3)], [])
    """
    from sims.online import DangerZoneLearner, construct_sequence, run_adversary
    from theory.online.dims import HalvingLearner, SOALearner
    from theory.online.transductive import transductive_value

    rows, failures = [], []
    for d, q in classes:
        H = constructions.tree_class(d, q=q, rng=rng)
        upper = exact_mtr(H) if d <= 4 else d
        for eps, M in grid:
            seq = construct_sequence(H, eps, M)
            g = guaranteed(H, seq)
            v = transductive_value(H, list(seq.sequence))
            learners = (SOALearner(H), HalvingLearner(H), DangerZoneLearner(H, None, seq.sequence))
            learner_mistakes = [run_adversary(H, seq, lrn)["n_mistakes"] for lrn in learners]
            ok = (
                seq.ancestors_first
                and seq.within_length_bound
                and g <= v <= upper
                and min(learner_mistakes) >= g
            )
            rows.append(
                {
                    "d": d,
                    "q": q,
                    "eps": eps,
                    "M": M,
                    "n": seq.n,
                    "g": g,
                    "v": v,
                    "mtr_upper": upper,
                    "min_learner_mistakes": min(learner_mistakes),
                }
            )
            if not ok:
                failures.append(f"d={d} q={q} eps={eps} M={M}")
    return rows, failures


@dataclass(frozen=True)
class AdversaryPilot:
    """CONSTRUCTSEQUENCE(.05, 4) on the minimal tree class of Ldim 6: the sequence's length ``n``,
    the guaranteed mistakes ``g``, the game value ``v``, and the rule's game against SOA
    (``trace``, :func:`sims.online.run_adversary`)."""

    #: The sequence's length.
    n: int
    #: The mistakes it guarantees.
    g: int
    #: The game value.
    v: int
    #: The rule's game against SOA (:func:`sims.online.run_adversary`).
    trace: dict[str, Any]


def adversary_pilot(guaranteed: Callable[..., int]) -> AdversaryPilot:
    """The case computed beforehand (docs/online.md#the-adversary-lower-bound): d = 6,
    (ε, M) = (.05, 4), where n = 47 and g = v = 5.

    Parameters
    ----------
    guaranteed : callable
        (H, sequence) -> g, e.g. :func:`sims.online.guaranteed_mistakes`.

    Returns
    -------
    AdversaryPilot
        n, g, v and the game against SOA.

    Examples
    --------
    >>> from sims.online import guaranteed_mistakes
    >>> from sims.online_experiments import adversary_pilot
    >>> pilot = adversary_pilot(guaranteed_mistakes)
    >>> pilot.n, pilot.g, pilot.v
    (47, 5, 5)
    """
    from sims.online import construct_sequence, run_adversary
    from theory.online.dims import SOALearner
    from theory.online.transductive import transductive_value

    H = constructions.tree_class(6)
    seq = construct_sequence(H, 0.05, 4)
    g = guaranteed(H, seq)
    v = transductive_value(H, list(seq.sequence))
    return AdversaryPilot(seq.n, g, v, run_adversary(H, seq, SOALearner(H)))


# ----------------------------------------------------------------------------------- learner
#: Instances of ``learner_games``: each tree class is played in BFS order and in this many random
#: orders, with each of these Halving sizes (experts vote by Halving once |V| ≤ size).
LEARNER_RANDOM_ORDERS = 8
LEARNER_HALVING_SIZES = (2, 4, 8)


def halving_worst_case(H: ConceptClass, order: np.ndarray) -> int:
    """Mistakes of the Halving learner on ``order`` against its optimal adversary (max over
    targets: a deterministic learner's worst case on a fixed sequence is its worst target).

    Parameters
    ----------
    H : ConceptClass
        The class.
    order : numpy.ndarray of int
        The sequence of point indices.

    Returns
    -------
    int
        The worst case.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import halving_worst_case
    >>> from theory.online import constructions
    >>> halving_worst_case(constructions.gadget_w(), np.arange(4))
    2
    """
    from theory.online.dims import HalvingLearner

    worst = 0
    for target in range(H.n_hypotheses):
        learner = HalvingLearner(H)
        for x in order:
            learner.predict(int(x))
            learner.update(int(x), int(H.matrix[target, x]))
        worst = max(worst, learner.mistakes)
    return worst


def learner_games(
    rng: np.random.Generator,
) -> Iterator[tuple[int, float, ConceptClass, int, int, int, LearnerRun]]:
    """Yield (d, q, H, order k (0 = BFS), Halving size, target, LearnerRun) for the tree classes
    d = 3, 4, 5, q = 0, 0.25 (thresholds lowered so that experts split at computable d): every
    target on d ≤ 4, 12 drawn targets on d = 5 (the paper's Alg. 5–7 by
    :func:`sims.online.play_learner`).

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the classes, orders and targets.

    Returns
    -------
    iterator of tuple
        The games, lazily.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import learner_games
    >>> d, q, H, k, size, target, run = next(learner_games(np.random.default_rng(0)))
    >>> (d, q, k, size, target), run.steps_without_one_true_expert
    ((3, 0.0, 0, 2, 0), 0)
    """
    from sims.online import play_learner

    for d, q in [(d, q) for d in (3, 4, 5) for q in (0.0, 0.25)]:
        H = constructions.tree_class(d, q=q, rng=rng)
        orders = [np.arange(H.n_points)]  # BFS order of the tree nodes, then random ones
        orders += [rng.permutation(H.n_points) for _ in range(LEARNER_RANDOM_ORDERS)]
        targets = range(H.n_hypotheses) if d <= 4 else rng.choice(H.n_hypotheses, 12, False)
        for size in LEARNER_HALVING_SIZES:
            for k, order in enumerate(orders):
                for target in targets:
                    yield d, q, H, k, size, int(target), play_learner(H, order, int(target), size)


@dataclass
class LearnerStats:
    """Totals over the games of :func:`learner_games` (Lemma D.4, Claim D.8 with factor f)."""

    runs: int  #: games played
    bad_steps: int  #: steps without exactly one true expert (Lemma D.4 says 0)
    bound_violations: int  #: runs with mistakes > log(1/w_true)/log(1/f)
    factors: list[float]  #: W_after/W_before at every learner mistake
    bounds: list[float]  #: log(1/w_true)/log(1/f) per run
    mistakes: list[int]  #: learner mistakes per run
    case_totals: dict[str, int]  #: the true expert's mistakes by rule
    worst_cases: list[dict[str, Any]]  #: per d ≤ 4 class: learner's worst case, v(H, x), Halving's

    def factors_over(self, f: float) -> int:
        """Learner mistakes that leave more than ``f`` of the total weight (1e-12 slack)."""
        return int(np.sum(np.asarray(self.factors) > f + 1e-12))

    def below_value(self) -> int:
        """d ≤ 4 classes where the learner's worst case is below the game value."""
        return sum(w["learner_worst"] < w["value"] for w in self.worst_cases)


def learner_statistics(rng: np.random.Generator, weight_factor: float) -> LearnerStats:
    """Play every game of :func:`learner_games` (drawn from ``rng``) and total them.

    The totals: the steps without exactly one true expert, the factors W_after/W_before, the
    runs whose mistakes exceed log(1/w_true)/log(1/``weight_factor``) (1e-9 slack), the true
    expert's mistakes by case, and on d ≤ 4 (BFS order, Halving size 2) the learner's worst case
    over all targets (the optimal adversary) beside the game value v(H, x) and Halving's worst
    case.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the games.
    weight_factor : float
        The factor f of the mistake bound.

    Returns
    -------
    LearnerStats
        The totals.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_experiments import learner_statistics
    >>> stats = learner_statistics(np.random.default_rng(0), weight_factor=0.75)
    >>> stats.bad_steps, stats.bound_violations, max(stats.factors) <= 0.75
    (0, 0, True)
    """
    from theory.online.transductive import transductive_value

    bad_steps, bound_violations, runs, factors, bounds, mistakes = 0, 0, 0, [], [], []
    case_totals = dict.fromkeys(("halving", "ancestor", "zone_delete", "zone_split"), 0)
    worst: dict[tuple[int, float], dict] = {}
    for d, q, H, k, size, _, run in learner_games(rng):
        bad_steps += run.steps_without_one_true_expert
        factors += run.weight_factors
        bound = math.log(1 / run.true_weight) / math.log(1 / weight_factor)
        bound_violations += int(run.mistakes > bound + 1e-9)
        bounds.append(bound)
        mistakes.append(run.mistakes)
        for case, n in run.true_expert_mistakes.items():
            case_totals[case] += n
        runs += 1
        if d <= 4 and k == 0 and size == 2:  # worst case over targets: the optimal adversary
            order = np.arange(H.n_points)
            w = worst.setdefault((d, q), {"d": d, "q": q, "learner_worst": 0})
            w["learner_worst"] = max(w["learner_worst"], run.mistakes)
            if "value" not in w:
                w |= {"value": transductive_value(H, list(order))}
                w |= {"halving_worst": halving_worst_case(H, order)}
    return LearnerStats(
        runs,
        bad_steps,
        bound_violations,
        factors,
        bounds,
        mistakes,
        case_totals,
        list(worst.values()),
    )


# ------------------------------------------------------------------------- search below 2/3
def search_grid(sizes: Sequence[int], restarts: int, steps: int) -> list[dict[str, Any]]:
    """Parameters of :func:`sims.online_search.gap_search_task`: every (points, start kind) the
    start fits, ``restarts`` times each, and the same on ≥ 8 points with Ldim held at ≥ 5
    (random and gadget starts): no class has (Ldim, M_tr) = (4, 2)
    (:func:`theory.online.certificates.tree_order_floor`), so a class below the 2/3 line has
    Ldim ≥ 5.

    Parameters
    ----------
    sizes : sequence of int
        Domain sizes.
    restarts : int
        Restarts per (points, start kind).
    steps : int
        Moves per restart.

    Returns
    -------
    list of dict
        The tasks' parameters.

    Examples
    --------
    >>> from sims.online_experiments import search_grid
    >>> [(p["n_points"], p["start"]) for p in search_grid([4], restarts=1, steps=10)]
    [(4, 'random'), (4, 'gadget')]
    >>> len(search_grid([4, 8], restarts=1, steps=10))  # 2 + 3 free, 2 held at Ldim ≥ 5
    7
    """
    from sims.online_search import START_KINDS

    minimum = {"random": 4, "gadget": 4, "tree": 7}
    free = [
        {"n_points": n, "start": kind, "steps": steps, "restart": r}
        for n in sizes
        for kind in START_KINDS
        if n >= minimum[kind]
        for r in range(restarts)
    ]
    held = [  # Ldim held at ≥ 5 once reached: the search for (5, 3), (6, 3), (7, 4), ...
        {"n_points": n, "start": kind, "steps": steps, "restart": r, "min_ldim": 5}
        for n in sizes
        if n >= 8
        for kind in ("random", "gadget")
        for r in range(restarts)
    ]
    return free + held


def certify_candidates(
    claimed: Sequence[ConceptClass], runs: Sequence[Mapping[str, Any]]
) -> list[tuple[str, ConceptClass, dict[str, Any]]]:
    """(source, class, :func:`sims.online_search.certify` result) for every ``claimed`` witness
    (source ``"claimed"``) and every class the search ``runs`` met below the line (``"search"``,
    certified again), in that order.

    Parameters
    ----------
    claimed : sequence of ConceptClass
        Claimed witnesses.
    runs : sequence of mapping
        Results of :func:`sims.online_search.gap_search_task`.

    Returns
    -------
    list of (str, ConceptClass, dict)
        One per candidate.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_search import gap_search_task
    >>> params = {"n_points": 4, "start": "random", "steps": 20}
    >>> runs = [gap_search_task(params, np.random.default_rng(seed)) for seed in (0, 1)]
    >>> from sims.online_experiments import certify_candidates
    >>> from theory.online import constructions
    >>> candidates = certify_candidates([constructions.gadget_w()], runs)
    >>> [(source, c["certified"]) for source, _, c in candidates]
    [('claimed', False)]
    """
    from sims.online_search import certify, codes_to_class

    met = {(r["n_points"], tuple(w["codes"])) for r in runs for w in r["below_line"]}
    candidates = [("claimed", H) for H in claimed]
    candidates += [("search", codes_to_class(codes, n)) for n, codes in sorted(met)]
    return [(src, H, certify(H)) for src, H in candidates]


def write_certified_witnesses(
    certs: Sequence[tuple[str, ConceptClass, Mapping[str, Any]]], folder: Path
) -> None:
    """Write every certified class the search met as ``folder/below_two_thirds_<i>.txt`` (i its
    index in ``certs``), for a user to load with ``paper-checks solve online``.

    Parameters
    ----------
    certs : sequence of (str, ConceptClass, mapping)
        The output of :func:`certify_candidates`.
    folder : pathlib.Path
        Where the files go (it must exist).

    Returns
    -------
    None

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sims.online_experiments import write_certified_witnesses
    >>> from sims.online_search import certify, codes_to_class
    >>> H = codes_to_class([0, 1, 3], 2)  # not below the line: nothing is written
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_certified_witnesses([("search", H, certify(H))], Path(folder))
    ...     sorted(Path(folder).iterdir())
    []
    """
    from sims.online_search import write_witness

    for i, (src, H, c) in enumerate(certs):
        if src == "search" and c["certified"]:
            write_witness(H, folder / f"below_two_thirds_{i}.txt")


@dataclass(frozen=True)
class SearchTotals:
    """What the annealing restarts searched: the (Ldim, M_tr) pairs met with counts, CPU
    seconds, moves, classes scored, the restart with the lowest energy, and the pairs exactly on
    the 2/3 line."""

    #: (Ldim, M_tr) pairs met, with how many times each was met.
    pairs: dict[tuple[int, int], int]
    #: CPU seconds of the restarts.
    cpu: float
    #: Moves made.
    moves: int
    #: Classes scored.
    scored: int
    #: The restart with the lowest energy.
    best: dict[str, Any]
    #: The pairs met exactly on the 2/3 line.
    line_pairs: list[tuple[int, int]]


def search_totals(runs: Sequence[Mapping[str, Any]]) -> SearchTotals:
    """Add up the results of :func:`sims.online_search.gap_search_task` restarts.

    Parameters
    ----------
    runs : sequence of mapping
        The restarts' results.

    Returns
    -------
    SearchTotals
        The (Ldim, M_tr) pairs met with counts, CPU seconds, moves, classes scored, the best
        restart and the pairs on the 2/3 line.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_search import gap_search_task
    >>> params = {"n_points": 4, "start": "random", "steps": 20}
    >>> runs = [gap_search_task(params, np.random.default_rng(seed)) for seed in (0, 1)]
    >>> from sims.online_experiments import search_totals
    >>> totals = search_totals(runs)
    >>> totals.moves, totals.line_pairs
    (40, [(3, 2)])
    """
    pairs: dict[tuple[int, int], int] = {}
    for r in runs:
        for ld, m, count in r["pairs"]:
            pairs[(ld, m)] = pairs.get((ld, m), 0) + count
    cpu = float(sum(r["cpu_seconds"] for r in runs))
    moves = int(sum(r["moves"] for r in runs))
    scored = int(sum(r["classes_scored"] for r in runs))
    best = min(runs, key=lambda r: r["best_energy"])
    line_pairs = sorted(p for p in pairs if 3 * p[1] == 2 * p[0])
    return SearchTotals(pairs, cpu, moves, scored, dict(best), line_pairs)
