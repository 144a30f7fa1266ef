"""Seeded search for a class below BKM's 2/3 line: M_tr(H) < (2/3)·Ldim(H) on at most 10 points.

No explicit class with M_tr < (2/3)·Ldim is known at small Ldim (docs/online.md: the gadget
powers W^k sit exactly on the line, and no class has (Ldim, M_tr) = (4, 2):
:func:`theory.online.certificates.tree_order_floor`, so a witness needs Ldim ≥ 5). One
restart of :func:`gap_search_task` is a simulated annealing over hypothesis sets, scored by the
exact solvers (the suffix-set DP for M_tr, the memoised recursion for Ldim):

* energy E(H) = 3·M_tr(H) − 2·Ldim(H) + share(H)/2, where share(H) ∈ [0, 1] is the fraction of
  a fixed sample of point orders that already force M_tr(H) mistakes (a tie-break: fewer optimal
  orders is closer to dropping M_tr). E < 0 ⟺ M_tr < (2/3)·Ldim; W^k has 3·2k − 2·3k = 0.
* moves: add a hypothesis, remove one, or flip one label of one hypothesis (equal odds; a move
  that leaves the size range or duplicates a hypothesis is redrawn);
* starts: a random class, a product of known gadgets (W × W, W × thresholds, ...), or
  a tree class on T_2 (7 points, the paper's construction) with Bernoulli off-path bits; the
  points a start does not use begin constant 0;
* optionally an Ldim floor (``min_ldim``): once reached, moves below it are refused;
* Metropolis acceptance exp(−ΔE / T) with T falling geometrically from ``t_start`` to ``t_end``.

A restart is a search, never a proof: it reports the space it covered (moves, distinct classes
scored, CPU seconds) and any class it met below the line, which the claim certifies again.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from theory.online import ConceptClass, constructions
from theory.online.dims import littlestone_dim
from theory.online.mtr import transductive_mistake_bound
from theory.online.transductive import _SequenceScorer

__all__ = [
    "MAX_SEARCH_POINTS",
    "START_KINDS",
    "certify",
    "class_to_codes",
    "codes_to_class",
    "gap_search_task",
    "write_witness",
]

#: Largest domain the search uses: 10 points (the exact DP's cost grows like 2^|X|, and every
#: class met is scored exactly).
MAX_SEARCH_POINTS = 10
#: Start kinds of :func:`gap_search_task`.
START_KINDS = ("random", "gadget", "tree")


def codes_to_class(codes: Any, n_points: int) -> ConceptClass:
    """The class whose hypotheses are the integers ``codes`` read as labels (bit j = point j).

    Parameters
    ----------
    codes : iterable of int
        One integer in [0, 2^n_points) per hypothesis; sorted here.
    n_points : int
        The domain's size.

    Returns
    -------
    theory.online.ConceptClass
        The class, hypotheses in increasing code order.

    Examples
    --------
    >>> from sims.online_search import codes_to_class
    >>> codes_to_class([3, 0, 1], 2).rows()  # row j = point j's label, left to right
    ['00', '10', '11']
    """
    codes = np.asarray(sorted(int(c) for c in codes), dtype=np.int64)
    return ConceptClass.from_array((codes[:, None] >> np.arange(n_points)[None, :]) & 1)


def class_to_codes(H: ConceptClass) -> list[int]:
    """Inverse of :func:`codes_to_class`: each hypothesis as an integer (bit j = point j).

    Parameters
    ----------
    H : theory.online.ConceptClass
        The class.

    Returns
    -------
    list of int
        Its distinct codes, sorted.

    Examples
    --------
    >>> from sims.online_search import class_to_codes, codes_to_class
    >>> class_to_codes(codes_to_class([3, 0, 1], 2))
    [0, 1, 3]
    """
    weights = 1 << np.arange(H.n_points, dtype=np.int64)
    return sorted({int(c) for c in H.matrix.astype(np.int64) @ weights})


def _start(kind: str, n: int, rng: np.random.Generator) -> set[int]:
    """Initial hypothesis codes on n points for a start ``kind`` (see the module docstring)."""
    if kind == "random":
        size = int(rng.integers(2 ** min(n - 2, 5), 2 ** min(n - 1, 7) + 1))
        return {int(c) for c in rng.choice(2**n, size=size, replace=False)}
    if kind == "gadget":
        W = constructions.gadget_w()
        partners = [W, constructions.thresholds(3), constructions.all_functions(2)]
        fits = [P for P in partners if 4 + P.n_points <= n]
        base = constructions.product(W, fits[int(rng.integers(len(fits)))]) if fits else W
    elif kind == "tree":
        base = constructions.tree_class(3, q=float(rng.uniform(0.0, 0.3)), rng=rng)
    else:
        raise ValueError(f"kind must be one of {START_KINDS}, got {kind!r}")
    if base.n_points > n:
        raise ValueError(f"n_points: a {kind!r} start needs at least {base.n_points} points")
    return set(class_to_codes(base))  # the remaining points start constant 0


def _move(codes: set[int], n: int, size_range: tuple[int, int], rng: np.random.Generator):
    """A random neighbour: add, remove or flip one label (redrawn until it is a valid class)."""
    lo, hi = size_range
    while True:
        kind = int(rng.integers(3))
        new = set(codes)
        if kind == 0:
            c = int(rng.integers(2**n))
            if c in new or len(new) >= hi:
                continue
            new.add(c)
        elif kind == 1:
            if len(new) <= lo:
                continue
            new.discard(int(rng.choice(sorted(new))))
        else:
            c = int(rng.choice(sorted(new)))
            flipped = c ^ (1 << int(rng.integers(n)))
            if flipped in new:
                continue
            new.discard(c)
            new.add(flipped)
        return new


def gap_search_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """One annealing restart (a sweep task) of the search for a class with
    3·M_tr(H) < 2·Ldim(H), as the module docstring sets out.

    Parameters
    ----------
    params : dict
        ``n_points`` (4 to :data:`MAX_SEARCH_POINTS`), ``start`` (one of :data:`START_KINDS`),
        ``steps``, and optionally ``t_start`` (1.5), ``t_end`` (0.1), ``orders`` (24: the
        tie-break's sample of point orders), ``max_hypotheses`` (128) and ``min_ldim`` (0: a move
        that would lower Ldim below min(min_ldim, current Ldim) is refused, so once the walk
        reaches Ldim ≥ min_ldim it stays there and only M_tr can fall).
    rng : numpy.random.Generator
        Source of the start, the moves and the acceptance draws.

    Returns
    -------
    dict
        ``best_codes``, ``best_ldim``, ``best_mtr``, ``best_energy`` (the best class met),
        ``below_line`` (every class met below the line: ``codes``, ``ldim``, ``mtr``), ``pairs``
        (``[ldim, mtr, count]`` of the classes met), ``moves``, ``classes_scored`` (distinct
        classes), ``cpu_seconds`` (``time.process_time``), with ``n_points`` and ``start``.

    Raises
    ------
    ValueError
        Unless ``n_points`` lies in 4..10 and ``start`` is a known kind with room for its class.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_search import gap_search_task
    >>> params = {"n_points": 4, "start": "random", "steps": 20}
    >>> out = gap_search_task(params, np.random.default_rng(0))
    >>> out["moves"], out["best_ldim"], out["best_mtr"], out["below_line"]
    (20, 2, 2, [])
    """
    t0 = time.process_time()
    n = int(params["n_points"])
    if not 4 <= n <= MAX_SEARCH_POINTS:
        raise ValueError(f"n_points must be in 4..{MAX_SEARCH_POINTS}, got {n}")
    steps = int(params["steps"])
    t_start, t_end = float(params.get("t_start", 1.5)), float(params.get("t_end", 0.1))
    size_range = (2, int(params.get("max_hypotheses", 128)))
    min_ldim = int(params.get("min_ldim", 0))
    orders = [rng.permutation(n) for _ in range(int(params.get("orders", 24)))]
    memo: dict[tuple[int, ...], tuple[int, int, float]] = {}

    def score(codes: set[int]) -> tuple[int, int, float]:
        key = tuple(sorted(codes))
        if key not in memo:
            H = codes_to_class(key, n)
            m, ld = transductive_mistake_bound(H).value, littlestone_dim(H)
            scorer = _SequenceScorer(H)
            share = sum(scorer(o.astype(np.int64)) >= m for o in orders) / len(orders)
            memo[key] = (ld, m, 3 * m - 2 * ld + share / 2)
        return memo[key]

    codes = _start(str(params["start"]), n, rng)
    ld, m, energy = score(codes)
    best = (energy, sorted(codes), ld, m)
    pairs: dict[tuple[int, int], int] = {}
    below: dict[tuple[int, ...], tuple[int, int]] = {}
    for step in range(steps):
        temp = t_start * (t_end / t_start) ** (step / max(steps - 1, 1))
        new = _move(codes, n, size_range, rng)
        n_ld, n_m, n_energy = score(new)
        pairs[(n_ld, n_m)] = pairs.get((n_ld, n_m), 0) + 1
        if 3 * n_m < 2 * n_ld:
            below[tuple(sorted(new))] = (n_ld, n_m)
        if n_ld < min(min_ldim, ld):  # the Ldim floor, once reached, is kept
            continue
        if n_energy <= energy or rng.random() < math.exp(-(n_energy - energy) / temp):
            codes, energy, ld = new, n_energy, n_ld
            if energy < best[0]:
                best = (energy, sorted(codes), n_ld, n_m)
    return {
        "n_points": n,
        "start": params["start"],
        "best_codes": best[1],
        "best_ldim": best[2],
        "best_mtr": best[3],
        "best_energy": best[0],
        "below_line": [{"codes": list(k), "ldim": v[0], "mtr": v[1]} for k, v in below.items()],
        "pairs": [[p[0], p[1], c] for p, c in sorted(pairs.items())],
        "moves": steps,
        "classes_scored": len(memo),
        "cpu_seconds": time.process_time() - t0,
    }


def certify(H: ConceptClass, *, brute_force_points: int = 8) -> dict[str, Any]:
    """Certify a claimed witness of M_tr < (2/3)·Ldim with the exact solvers.

    Ldim by the memoised recursion, M_tr by the suffix-set DP, and M_tr again by enumerating
    every order (``mtr_by_permutations``) when the canonical class has at most
    ``brute_force_points`` points (else ``mtr_bruteforce`` is None).

    Parameters
    ----------
    H : theory.online.ConceptClass
        The claimed witness.
    brute_force_points : int
        Largest canonical domain on which the brute force runs.

    Returns
    -------
    dict
        ``ldim``, ``mtr``, ``mtr_bruteforce`` (int or None), ``n_points``, ``n_hypotheses``, and
        ``certified``: true iff 3·M_tr < 2·Ldim and the brute force, where it ran, equals the DP.

    Examples
    --------
    >>> from sims.online_search import certify
    >>> from theory.online import constructions
    >>> c = certify(constructions.gadget_w())  # W sits on the line: 3·2 = 2·3
    >>> c["ldim"], c["mtr"], c["mtr_bruteforce"], c["certified"]
    (3, 2, 2, False)
    """
    from theory.online.mtr import mtr_by_permutations

    ld = littlestone_dim(H)
    m = transductive_mistake_bound(H).value
    canon, _ = H.canonical()
    brute = mtr_by_permutations(H).value if canon.n_points <= brute_force_points else None
    return {
        "ldim": ld,
        "mtr": m,
        "mtr_bruteforce": brute,
        "n_points": H.n_points,
        "n_hypotheses": H.n_hypotheses,
        "certified": 3 * m < 2 * ld and (brute is None or brute == m),
    }


def write_witness(H: ConceptClass, path: Any, *, note: str = "") -> None:
    """Save a class in the ``paper-checks solve online`` text format: ``#`` comment lines (its
    certified Ldim and M_tr (:func:`certify`), and ``note``), then one 0/1 row per hypothesis.

    Parameters
    ----------
    H : theory.online.ConceptClass
        The class.
    path : str or os.PathLike
        The file written (its folder is created).
    note : str
        Further comment lines.

    Returns
    -------
    None

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sims.online_search import codes_to_class, write_witness
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "witness.txt"
    ...     write_witness(codes_to_class([0, 1, 3], 2), path, note="thresholds on 2 points")
    ...     print(path.read_text(), end="")
    # Ldim = 1, M_tr = 1 (exact DP; brute force 1)
    # thresholds on 2 points
    00
    10
    11
    """
    from pathlib import Path

    c = certify(H)
    lines = [
        f"# Ldim = {c['ldim']}, M_tr = {c['mtr']} (exact DP"
        + (f"; brute force {c['mtr_bruteforce']})" if c["mtr_bruteforce"] is not None else ")"),
        *(f"# {line}" for line in note.splitlines()),
        *H.rows(),
    ]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
