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
    i.i.d. Bernoulli(density) (rows drawn until distinct; capped at 2^n_points)."""
    n_hypotheses = min(n_hypotheses, 2**n_points)
    rows: dict[bytes, np.ndarray] = {}
    while len(rows) < n_hypotheses:
        row = (rng.random(n_points) < density).astype(np.uint8)
        rows.setdefault(row.tobytes(), row)
    return ConceptClass.from_array(np.array(list(rows.values())))


def random_class_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: ``params["classes"]`` random classes on 1..``max_points`` points with random
    size and density; for each, VC, Ldim, M_tr (DP), ⌊log2|H|⌋, and the permutation brute force
    when it has at most ``brute_force_points`` points."""
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
    seed is unused)."""
    return census5_chunk(params["chunk"], params["n_chunks"]).to_dict()
