"""Sweep tasks for the online-learning claims: random concept classes and their exact quantities."""

from __future__ import annotations

from typing import Any

import numpy as np

from theory.online import ConceptClass
from theory.online.census import census5_chunk
from theory.online.dims import littlestone_dim, vc_dim
from theory.online.mtr import mtr_by_permutations, transductive_mistake_bound

__all__ = ["census5_task", "random_class", "random_class_task"]


def random_class(
    n_points: int, n_hypotheses: int, density: float, rng: np.random.Generator
) -> ConceptClass:
    """A class of ``n_hypotheses`` distinct hypotheses on ``n_points`` points whose labels are
    i.i.d. Bernoulli(density) (rows drawn until distinct; capped at 2^n_points).

    Parameters
    ----------
    n_points : int
        The domain's size.
    n_hypotheses : int
        Distinct hypotheses wanted (at most 2^n_points are drawn).
    density : float
        Chance of label 1, in (0, 1).
    rng : numpy.random.Generator
        Source of the labels.

    Returns
    -------
    theory.online.ConceptClass
        The class.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_sweeps import random_class
    >>> H = random_class(4, 6, 0.5, np.random.default_rng(0))
    >>> H.n_points, H.n_hypotheses
    (4, 6)
    >>> random_class(2, 10, 0.5, np.random.default_rng(0)).n_hypotheses  # capped at 2^2
    4
    """
    n_hypotheses = min(n_hypotheses, 2**n_points)
    rows: dict[bytes, np.ndarray] = {}
    while len(rows) < n_hypotheses:
        row = (rng.random(n_points) < density).astype(np.uint8)
        rows.setdefault(row.tobytes(), row)
    return ConceptClass.from_array(np.array(list(rows.values())))


def random_class_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: ``params["classes"]`` random classes (:func:`random_class`) on 1..``max_points``
    points with random size (up to min(2^n, 48)) and density (uniform on [0.1, 0.9]), and their
    exact quantities.

    Parameters
    ----------
    params : dict
        ``classes``, ``max_points`` and ``brute_force_points`` (the largest domain on which the
        permutation brute force of M_tr runs).
    rng : numpy.random.Generator
        Source of the classes.

    Returns
    -------
    dict
        ``{"classes": [...]}``, per class its ``matrix``, ``vc`` (VC dimension), ``ldim``,
        ``mtr`` (M_tr by the DP), ``floor_log2_h`` (⌊log2 of the class's size⌋) and
        ``mtr_bruteforce`` (None on more than ``brute_force_points`` points).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.online_sweeps import random_class_task
    >>> params = {"classes": 3, "max_points": 4, "brute_force_points": 4}
    >>> out = random_class_task(params, np.random.default_rng(0))
    >>> [(c["vc"], c["ldim"], c["mtr"], c["mtr_bruteforce"]) for c in out["classes"]]
    [(3, 3, 3, 3), (1, 1, 1, 1), (3, 3, 3, 3)]
    """
    out = []
    for _ in range(params["classes"]):
        n = int(rng.integers(1, params["max_points"] + 1))
        size = int(rng.integers(1, min(2**n, 48) + 1))
        H = random_class(n, size, float(rng.uniform(0.1, 0.9)), rng)
        brute = mtr_by_permutations(H).value if n <= params["brute_force_points"] else None
        out.append(
            {
                "matrix": H.matrix,
                "vc": vc_dim(H),
                "ldim": littlestone_dim(H),
                "mtr": transductive_mistake_bound(H).value,
                "floor_log2_h": int(np.floor(np.log2(H.n_hypotheses))),
                "mtr_bruteforce": brute,
            }
        )
    return {"classes": out}


def census5_task(params: dict[str, Any], _rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: the exact 5-point census of chunk ``params["chunk"]`` of
    ``params["n_chunks"]`` (:func:`theory.online.census.census5_chunk`); deterministic (the
    seed is unused).

    Parameters
    ----------
    params : dict
        ``chunk`` (in 0..n_chunks − 1) and ``n_chunks`` (a power of two ≤ 2^32).
    _rng : numpy.random.Generator
        Unused.

    Returns
    -------
    dict
        The chunk's census counts in JSON form (``CensusCounts.to_dict``): ``classes``, and
        ``counts`` and ``smallest`` keyed by ``"ldim,mtr"``.

    Examples
    --------
    >>> from sims.online_sweeps import census5_task
    >>> out = census5_task({"chunk": 0, "n_chunks": 2**20}, None)
    >>> out["classes"], out["counts"]
    (4095, {'0,0': 12, '1,1': 346, '2,2': 3217, '3,2': 76, '3,3': 444})
    """
    return census5_chunk(params["chunk"], params["n_chunks"]).to_dict()
