"""Diversity and calibration metrics of "Artificial Hivemind: The Open-Ended Homogeneity of Language
Models (and Beyond)" (Jiang et al., NeurIPS 2025 Datasets and Benchmarks; arXiv 2510.22954), as
the authors' code computes them, with its quirks made explicit options (docs/hivemind.md lists
the formulas and the quirks).

Everything here is deterministic numpy/scipy (no torch; the random cross-query baseline and the
bootstrap live in :mod:`sims.hivemind`). Embeddings are rows of unit vectors; similarities are
cosines (dot products of unit vectors).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from math import comb

import numpy as np
from scipy import stats

from theory import _domain

__all__ = [
    "ABSOLUTE_LABELS",
    "ENTROPY_TOP_FRACTIONS",
    "PAIRWISE_LABELS",
    "PAIRWISE_TOP_FRACTIONS",
    "PAPER_CUTOFFS",
    "TIE_RULES",
    "TIE_TOLERANCE",
    "TUKEY_KS",
    "UNIT_ROUNDOFF",
    "disjoint_curve",
    "distinct_model_curve",
    "entropy_bits",
    "gini_impurity",
    "inter_model_matrix",
    "interchangeable_curve",
    "item_kappa",
    "label_counts",
    "mean_pairwise_similarity",
    "mean_similarity_over_pairs",
    "normalize_rows",
    "orthogonal_models_exact",
    "p_disagree",
    "paraphrase_split",
    "pearson",
    "shares_above",
    "similarity_histogram",
    "similarity_rounding_bound",
    "spearman",
    "tie_ranks",
    "top_fraction_subset",
    "tukey_subset",
]

#: Cut-offs of the paper's Figure 4/5 heatmaps (defined on OpenAI text-embedding-3-small cosines).
PAPER_CUTOFFS = (0.7, 0.8, 0.9)
#: Absolute ratings are 1..5; pairwise labels −2..2 (0 = tie), each a fixed label set (the
#: paper's human annotations, §5).
ABSOLUTE_LABELS = (1, 2, 3, 4, 5)
PAIRWISE_LABELS = (-2, -1, 0, 1, 2)
#: Subset grids of the paper's calibration tables (Tables 14–20).
TUKEY_KS = (3.0, 2.5, 2.0, 1.5, 1.0, 0.5)
ENTROPY_TOP_FRACTIONS = (0.16, 0.12, 0.08, 0.04, 0.02)
PAIRWISE_TOP_FRACTIONS = (0.95, 0.9, 0.8, 0.7, 0.6)


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero).

    Parameters
    ----------
    vectors : numpy.ndarray of float, (N, d)
        The rows.

    Returns
    -------
    numpy.ndarray of float, (N, d)
        Each row divided by its norm.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import normalize_rows
    >>> normalize_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    v = _domain.reals("vectors", vectors, nonempty=False)
    if v.ndim == 0:
        raise ValueError(f"vectors must be at least 1-D (got {vectors!r})")
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)


# --------------------------------------------------------------------------------- intra-model
def mean_pairwise_similarity(unit: np.ndarray) -> float:
    """s̄ = mean of cos(e_i, e_j) over i < j for N unit vectors, in O(N·d):
    Σ_{i≠j} e_i·e_j = ‖Σ e_i‖² − N, so s̄ = (N‖ē‖² − 1)/(N − 1) (the paper's intra-model
    score, Fig. 4).

    Parameters
    ----------
    unit : numpy.ndarray of float, (N, d)
        Unit vectors, N ≥ 2.

    Returns
    -------
    float
        s̄.

    Raises
    ------
    ValueError
        Unless ``unit`` is a 2-D array of finite reals with at least 2 rows.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import mean_pairwise_similarity, normalize_rows
    >>> unit = normalize_rows(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
    >>> round(mean_pairwise_similarity(unit), 6)  # (1/√2 + 0 + 1/√2)/3
    0.471405
    """
    e = _unit_rows(unit)
    n = e.shape[0]
    total = e.sum(axis=0)
    return float((total @ total - np.einsum("ij,ij->", e, e)) / (n * (n - 1)))


def _unit_rows(unit: np.ndarray) -> np.ndarray:
    e = _domain.reals("unit", unit, ndim=2)
    if e.shape[0] < 2:
        raise ValueError(f"unit must hold at least 2 vectors (got {e.shape[0]})")
    return e


#: u = 2⁻⁵³, the unit roundoff of float64.
UNIT_ROUNDOFF = 2.0**-53


def similarity_rounding_bound(n: int, dim: int) -> float:
    """(4(N + d) + d(N + 1))·u: how far float64 rounding may move s̄ of N planted unit vectors
    in R^d from c. The O(N·d) sums of :func:`mean_pairwise_similarity` err by at most
    γ_{N+d}·N² in ‖Σe_i‖² and γ_{N·d}·N in Σ‖e_i‖², so by about 2(N + d)·u in s̄ after the
    division by N(N − 1) (first-order bounds of inner products and sums, Higham 2002,
    "Accuracy and Stability of Numerical Algorithms", §3.1; 4 leaves room for the second
    order); a Householder QR frame of R^d with N + 1 columns is orthonormal to about
    d(N + 1)·u (Higham §19.3), which moves the planted cosines by as much. The bound also
    covers the pairwise loop's mean (N(N − 1)/2 inner products of length d, summed
    pairwise).

    Parameters
    ----------
    n : int
        N, the vectors.
    dim : int
        d, their dimension.

    Returns
    -------
    float
        The bound.

    Examples
    --------
    >>> from theory.hivemind import similarity_rounding_bound
    >>> similarity_rounding_bound(10, 64) < 2e-13
    True
    """
    n = _domain.integer("n", n, minimum=2)
    dim = _domain.integer("dim", dim, minimum=1)
    return (4 * (n + dim) + dim * (n + 1)) * UNIT_ROUNDOFF


def mean_similarity_over_pairs(unit: np.ndarray) -> float:
    """s̄ by its definition: the mean of e_i·e_j over the N(N − 1)/2 pairs i < j, by an explicit
    loop over pairs (O(N²·d)), the brute force that :func:`mean_pairwise_similarity`'s O(N·d)
    identity must reproduce (§1.5).

    Parameters
    ----------
    unit : numpy.ndarray of float, (N, d)
        Unit vectors, N ≥ 2.

    Returns
    -------
    float
        s̄.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import mean_similarity_over_pairs, normalize_rows
    >>> unit = normalize_rows(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
    >>> round(mean_similarity_over_pairs(unit), 6)
    0.471405
    """
    unit = _unit_rows(unit)
    return float(np.mean([unit[i] @ unit[j] for i, j in combinations(range(len(unit)), 2)]))


def shares_above(values: np.ndarray, cutoffs: Sequence[float]) -> np.ndarray:
    """Percentage of ``values`` strictly above each cut-off (the heatmaps' "% of queries").

    Parameters
    ----------
    values : numpy.ndarray of float
        The values.
    cutoffs : sequence of float
        The cut-offs.

    Returns
    -------
    numpy.ndarray of float, (len(cutoffs),)
        Percentages.

    Raises
    ------
    ValueError
        Unless ``values`` is non-empty and both are finite reals.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import shares_above
    >>> shares_above(np.array([0.1, 0.5, 0.9, 0.95]), [0.5, 0.9])  # strictly above
    array([50., 25.])
    """
    v = _domain.reals("values", values)
    cutoffs = _domain.reals("cutoffs", cutoffs, ndim=1, nonempty=False)
    return np.array([100.0 * np.mean(v > c) for c in cutoffs])


def similarity_histogram(values: np.ndarray, bins: int = 10) -> np.ndarray:
    """Percentage of ``values`` in ``bins`` equal bins on [0, 1] (Figure 4's rows). Values are
    clipped to [0, 1] first: ``np.histogram(range=(0, 1))`` would drop identical texts whose
    cosine rounds to 1 + 1e-16 (a quirk of the authors' code).

    Parameters
    ----------
    values : numpy.ndarray of float
        Cosine similarities.
    bins : int
        Number of equal bins on [0, 1].

    Returns
    -------
    numpy.ndarray of float, (bins,)
        Percentages.

    Raises
    ------
    ValueError
        Unless ``values`` are finite reals and ``bins`` a positive integer.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import similarity_histogram
    >>> similarity_histogram(np.array([0.05, 0.15, 1.0 + 1e-15, 0.95]), bins=2)  # 1 + 1e-15 kept
    array([50., 50.])
    """
    bins = _domain.integer("bins", bins, minimum=1)
    v = np.clip(_domain.reals("values", values, nonempty=False), 0.0, 1.0)
    counts, _ = np.histogram(v, bins=bins, range=(0.0, 1.0))
    return 100.0 * counts / max(v.size, 1)


# --------------------------------------------------------------------------------- inter-model
def inter_model_matrix(
    groups: Sequence[Sequence[np.ndarray | None]], *, include_self_pairs: bool = False
) -> np.ndarray:
    """The M×M inter-model similarity (Figure 6): ``groups[q][m]`` holds model m's unit embeddings
    for query q (or None). Entry (a, b) pools every cross pair e_a·e_b over the queries both models
    answered and averages once: Σ_q S_qa·S_qb / Σ_q n_qa·n_qb with S the sum of embeddings.

    The diagonal excludes the i = j self-pairs by default (Σ_q (‖S_qa‖² − Σ‖e‖²) / Σ_q n(n−1));
    ``include_self_pairs=True`` keeps them, as the paper's code does (adds about 0.003 at n = 50).
    Queries are joined by key, not by position (the code's ``zip``).

    Parameters
    ----------
    groups : sequence of sequence of numpy.ndarray or None
        ``groups[q][m]``: model m's unit embeddings (n, d) for query q, or None.
    include_self_pairs : bool
        Keep the i = j pairs on the diagonal.

    Returns
    -------
    numpy.ndarray of float, (M, M)
        The inter-model similarity.

    Raises
    ------
    ValueError
        Unless ``groups`` holds at least one query and every embedding block is a 2-D array of
        finite reals (or None).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import inter_model_matrix
    >>> a, b = np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [0.0, 1.0]])
    >>> inter_model_matrix([[a, b]]).tolist()  # one query, two orthogonal models
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if len(groups) == 0:
        raise ValueError("groups must hold at least one query")
    for q, per_model in enumerate(groups):
        for m, e in enumerate(per_model):
            if e is not None:
                _domain.reals(f"groups[{q}][{m}]", e, ndim=2, nonempty=False)
    n_models = max(len(g) for g in groups)
    num = np.zeros((n_models, n_models))
    den = np.zeros((n_models, n_models))
    for per_model in groups:
        present = [m for m, e in enumerate(per_model) if e is not None and len(e)]
        if not present:
            continue
        sums = np.stack([np.asarray(per_model[m]).sum(axis=0) for m in present])  # (P, d)
        counts = np.array([len(per_model[m]) for m in present], dtype=float)  # (P,)
        idx = np.ix_(present, present)
        num[idx] += sums @ sums.T
        den[idx] += np.outer(counts, counts)
        if not include_self_pairs:
            for i, m in enumerate(present):
                e = np.asarray(per_model[m])
                num[m, m] -= np.einsum("ij,ij->", e, e)
                den[m, m] -= counts[i]
    return np.divide(num, den, out=np.full_like(num, np.nan), where=den > 0)


# ------------------------------------------------------------------------- top-N distinct models
#: Cosine similarities closer than this are ties: far above the rounding of a product of unit
#: vectors (about 1e-15), far below any difference between texts' embeddings.
TIE_TOLERANCE = 1e-9


def tie_ranks(values: np.ndarray, tolerance: float = TIE_TOLERANCE) -> np.ndarray:
    """``values`` on a grid of step ``tolerance`` (integers, same shape, in the values' order):
    values that rounding alone tells apart share a grid point, so a sort by it treats them as
    ties. Two such values land on different points only when they straddle a half-step
    boundary, i.e. when their common value lies within rounding (~1e-15) of one: about one
    chance in 10⁶ per near tie at the default step.

    Parameters
    ----------
    values : numpy.ndarray of float
        The values.
    tolerance : float
        The grid's step.

    Returns
    -------
    numpy.ndarray of float
        The grid point of each value (integer-valued), the shape of ``values``.

    Raises
    ------
    ValueError
        Unless ``values`` are finite reals and ``tolerance`` a finite real > 0.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import tie_ranks
    >>> ranks = tie_ranks(np.array([0.3, 0.1 + 0.2, 0.4]))  # 0.1 + 0.2 = 0.30000000000000004
    >>> bool(ranks[0] == ranks[1]), bool(ranks[2] > ranks[0])
    (True, True)
    """
    tolerance = _domain.real("tolerance", tolerance, minimum=0.0, open_low=True)
    return np.rint(_domain.reals("values", values, nonempty=False) / tolerance)


def distinct_model_curve(unit: np.ndarray, models: np.ndarray, n_max: int) -> np.ndarray:
    """For one query's pooled responses: the mean over responses of the number of distinct source
    models among each response's N nearest neighbours (cosine, excluding itself), N = 1..n_max
    (Figure 8). The response's own model counts only when a neighbour comes from it, so fully
    disjoint models give 1 up to N = n − 1 and 2 at N = n. Ties in similarity are broken by
    position (stable sort); similarities that fall on one point of a grid of step
    :data:`TIE_TOLERANCE` are ties (:func:`tie_ranks`), so that equal cosines computed with different rounding (the matrix
    product's summation order differs between BLAS builds) do not reorder the neighbours.

    Parameters
    ----------
    unit : numpy.ndarray of float, (R, d)
        Unit embeddings of the pooled responses.
    models : numpy.ndarray, (R,)
        Each response's model label.
    n_max : int
        The largest N, in [1, R − 1].

    Returns
    -------
    numpy.ndarray of float, (n_max,)
        The mean count of distinct models for N = 1..n_max.

    Raises
    ------
    ValueError
        If ``n_max`` is outside [1, R − 1].

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import distinct_model_curve
    >>> unit = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])  # two disjoint models
    >>> distinct_model_curve(unit, np.array([0, 0, 1, 1]), 3).tolist()
    [1.0, 2.0, 2.0]
    """
    e = _unit_rows(unit)
    models = np.asarray(models)
    r = e.shape[0]
    if models.shape != (r,):
        raise ValueError(
            f"models must hold one label per row of unit, {r} (got shape {models.shape})"
        )
    labels = np.unique(models, return_inverse=True)[1]
    n_max = _domain.integer("n_max", n_max, minimum=1, maximum=r - 1)
    rank = tie_ranks(e @ e.T)
    np.fill_diagonal(rank, -np.inf)
    order = np.argsort(-rank, axis=1, kind="stable")[:, :n_max]  # (R, N)
    nbr = labels[order]  # (R, N) model index of each neighbour
    seen = np.zeros((r, labels.max() + 1), dtype=bool)
    new = np.zeros((r, n_max), dtype=bool)
    rows = np.arange(r)
    for k in range(n_max):
        new[:, k] = ~seen[rows, nbr[:, k]]
        seen[rows, nbr[:, k]] = True
    return np.cumsum(new, axis=1).mean(axis=0)  # (N,)


def interchangeable_curve(per_model: Sequence[int], n_max: int) -> np.ndarray:
    """Expected distinct models among N neighbours when models are interchangeable (labels carry
    no information about similarity), N = 1..n_max. ``per_model[m]`` is model m's response count.
    For a response of model m the N neighbours are a uniform draw without replacement from the
    T = Σn − 1 others, which hold n_m − 1 of its own model and n_m' of each other model, so
    E = Σ_m' [1 − C(T − c_m', N)/C(T, N)] (hypergeometric), averaged over responses. At 25 models
    × 50 responses: 8.4 at N = 10 and 21.9 at N = 50 (our computation; the paper's Fig. 8
    shows about 8 distinct models among the top 50).

    Parameters
    ----------
    per_model : sequence of int
        Each model's response count.
    n_max : int
        The largest N, in [1, Σn − 1].

    Returns
    -------
    numpy.ndarray of float, (n_max,)
        E[distinct models] for N = 1..n_max.

    Raises
    ------
    ValueError
        If ``n_max`` is outside [1, Σn − 1].

    Examples
    --------
    >>> from theory.hivemind import interchangeable_curve
    >>> interchangeable_curve([2, 2], 3).round(4)  # N = 3 of the 3 others: both models
    array([1.    , 1.6667, 2.    ])
    """
    counts = _domain.integers("per_model", per_model, minimum=1)
    total = sum(counts) - 1
    n_max = _domain.integer("n_max", n_max, minimum=1, maximum=max(total, 1))
    out = np.zeros(n_max)
    for n in range(1, n_max + 1):
        all_draws = comb(total, n)
        miss = {c: comb(total - c, n) / all_draws for c in {*counts, *(c - 1 for c in counts)}}
        per_response = [
            sum(1 - miss[c - (j == m)] for j, c in enumerate(counts)) for m in range(len(counts))
        ]
        out[n - 1] = np.dot(counts, per_response) / sum(counts)
    return out


def disjoint_curve(per_model: int, n_max: int) -> np.ndarray:
    """Distinct models among N neighbours when models share nothing: 1 for N < n, then a new
    model every n neighbours: 1 + ⌊N/n⌋ (2 at N = n: self is excluded, so not 1).

    Parameters
    ----------
    per_model : int
        n, each model's response count.
    n_max : int
        The largest N.

    Returns
    -------
    numpy.ndarray of float, (n_max,)
        1 + ⌊N/n⌋ for N = 1..n_max.

    Raises
    ------
    ValueError
        Unless both are positive integers.

    Examples
    --------
    >>> from theory.hivemind import disjoint_curve
    >>> disjoint_curve(3, 7).tolist()
    [1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0]
    """
    per_model = _domain.integer("per_model", per_model, minimum=1)
    n_max = _domain.integer("n_max", n_max, minimum=1)
    return 1.0 + np.arange(1, n_max + 1) // per_model


def orthogonal_models_exact(c: float, per_model: int) -> dict[str, float]:
    """The inter-model scores of models in mutually orthogonal subspaces, each with every
    within-model cosine c and n responses (:func:`sims.hivemind.orthogonal_models`): 0 between
    models, c on the diagonal without self-pairs and c + (1 − c)/n with them (the n self-pairs
    of cosine 1 join the n(n − 1) pairs of cosine c).

    Parameters
    ----------
    c : float
        The within-model cosine.
    per_model : int
        n, responses per model.

    Returns
    -------
    dict
        ``inter_offdiag_max_abs``, ``inter_diag`` and ``inter_diag_with_self_pairs``.

    Raises
    ------
    ValueError
        Unless ``c`` is in [0, 1] and ``per_model`` a positive integer.

    Examples
    --------
    >>> from theory.hivemind import orthogonal_models_exact
    >>> orthogonal_models_exact(0.5, 10)
    {'inter_offdiag_max_abs': 0.0, 'inter_diag': 0.5, 'inter_diag_with_self_pairs': 0.55}
    """
    c = _domain.real("c", c, minimum=0.0, maximum=1.0)
    per_model = _domain.integer("per_model", per_model, minimum=1)
    return {
        "inter_offdiag_max_abs": 0.0,
        "inter_diag": c,
        "inter_diag_with_self_pairs": c + (1 - c) / per_model,
    }


def paraphrase_split(
    unit: np.ndarray, topic: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cosine matrix (N, N) of the unit embeddings ``unit`` (N, d) whose topics are
    ``topic`` (N,), the cosines of its pairs i < j of the same topic (paraphrases), and those of
    its pairs of different topics (unrelated texts).

    Parameters
    ----------
    unit : numpy.ndarray of float, (N, d)
        Unit embeddings.
    topic : numpy.ndarray, (N,)
        Each text's topic.

    Returns
    -------
    cosines : numpy.ndarray of float, (N, N)
        The cosine matrix.
    same : numpy.ndarray of float
        Cosines of the pairs i < j of the same topic.
    different : numpy.ndarray of float
        Cosines of the pairs i < j of different topics.

    Raises
    ------
    ValueError
        Unless ``unit`` is a 2-D array of finite reals and ``topic`` holds one label per row.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import paraphrase_split
    >>> unit = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> cosines, same, different = paraphrase_split(unit, np.array([0, 0, 1]))
    >>> cosines.shape, same.tolist(), different.tolist()
    ((3, 3), [1.0], [0.0, 0.0])
    """
    unit = _domain.reals("unit", unit, ndim=2, nonempty=False)
    topic = np.asarray(topic)
    if topic.shape != unit.shape[:1]:
        raise ValueError(
            f"topic must hold one label per row of unit, {len(unit)} (got shape {topic.shape})"
        )
    sim = unit @ unit.T
    iu = np.triu_indices(len(unit), 1)
    same = topic[iu[0]] == topic[iu[1]]
    return sim, sim[iu][same], sim[iu][~same]


# --------------------------------------------------------------------------- rating disagreement
def label_counts(labels: Sequence[int], label_set: Sequence[int]) -> np.ndarray:
    """Counts of each label of the fixed ``label_set`` (raises on labels outside it).

    Parameters
    ----------
    labels : sequence of int
        The labels given.
    label_set : sequence of int
        The allowed labels, in the order of the counts.

    Returns
    -------
    numpy.ndarray of int, (len(label_set),)
        The counts.

    Raises
    ------
    ValueError
        If a label is outside ``label_set``.

    Examples
    --------
    >>> from theory.hivemind import label_counts
    >>> label_counts([1, 1, 3], [1, 2, 3]).tolist()
    [2, 0, 1]
    """
    arr = np.asarray(labels)
    if len(label_set) == 0:
        raise ValueError("label_set must be non-empty")
    unknown = set(arr.tolist()) - set(label_set)
    if unknown:
        raise ValueError(f"labels must be in {list(label_set)} (got {sorted(unknown)})")
    return np.array([np.sum(arr == v) for v in label_set])


def entropy_bits(counts: np.ndarray) -> np.ndarray:
    """Shannon entropy H = −Σ p log2 p over the fixed labels (last axis); at most log2 5 = 2.3219.
    (5,5,5,5,5) → 2.3219, (13,12) → 0.99885, unanimous → 0.

    Parameters
    ----------
    counts : numpy.ndarray of int, (..., labels)
        Label counts per item.

    Returns
    -------
    numpy.ndarray of float, counts.shape[:-1]
        H in bits.

    Raises
    ------
    ValueError
        Unless ``counts`` are whole numbers ≥ 0 with at least one in every row (no distribution
        otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import entropy_bits
    >>> entropy_bits(np.array([[5, 5, 5, 5, 5], [25, 0, 0, 0, 0]])).round(4)
    array([2.3219, 0.    ])
    """
    c = _domain.counts("counts", counts, positive_total=True)
    p = c / c.sum(axis=-1, keepdims=True)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logs).sum(axis=-1) + 0.0  # + 0.0 turns −0 into 0


def gini_impurity(counts: np.ndarray) -> np.ndarray:
    """Gini impurity 1 − Σ p² over the labels (Table 20's alternative).

    Parameters
    ----------
    counts : numpy.ndarray of int, (..., labels)
        Label counts per item.

    Returns
    -------
    numpy.ndarray of float, counts.shape[:-1]
        1 − Σ p².

    Raises
    ------
    ValueError
        As :func:`entropy_bits` does.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import gini_impurity
    >>> gini_impurity(np.array([[5, 5], [10, 0]]))
    array([0.5, 0. ])
    """
    c = _domain.counts("counts", counts, positive_total=True)
    p = c / c.sum(axis=-1, keepdims=True)
    return 1.0 - (p * p).sum(axis=-1)


def p_disagree(counts: np.ndarray) -> np.ndarray:
    """Pairwise disagreement P_dis = 1 − (max(C1, C2) + ½·C_tie)/C_total, with C1 the labels
    preferring response 1 (+1, +2), C2 those preferring response 2 and C_tie the zeros; counts
    are over (−2, −1, 0, 1, 2). In [0, ½]; 12/12/1 → 0.5.

    Parameters
    ----------
    counts : numpy.ndarray of int, (..., 5)
        Counts of the labels −2, −1, 0, 1, 2.

    Returns
    -------
    numpy.ndarray of float, counts.shape[:-1]
        P_dis.

    Raises
    ------
    ValueError
        Unless ``counts`` are whole numbers ≥ 0 over the 5 labels (last axis), at least one in every
        row.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import p_disagree
    >>> p_disagree(np.array([[0, 12, 1, 12, 0], [0, 0, 0, 5, 5]]))
    array([0.5, 0. ])
    """
    c = _domain.counts("counts", counts, positive_total=True)
    if c.ndim == 0 or c.shape[-1] != len(PAIRWISE_LABELS):
        raise ValueError(
            f"counts must run over the 5 pairwise labels on its last axis (got shape {c.shape})"
        )
    c2, tie, c1 = c[..., :2].sum(axis=-1), c[..., 2], c[..., 3:].sum(axis=-1)
    return 1.0 - (np.maximum(c1, c2) + 0.5 * tie) / c.sum(axis=-1)


def item_kappa(counts: np.ndarray) -> np.ndarray:
    """Single-item Fleiss κ_i = (P_i − P_e)/(1 − P_e): P_i = (Σ_j n_ij² − n_i)/(n_i(n_i − 1)) the
    item's observed agreement and P_e = Σ_j p̄_j² the chance agreement of the pooled label shares
    (counts: items × labels; items with fewer than 2 ratings give NaN).

    Parameters
    ----------
    counts : numpy.ndarray of int, (items, labels)
        Label counts per item.

    Returns
    -------
    numpy.ndarray of float, (items,)
        κ_i (NaN for items with fewer than 2 ratings).

    Raises
    ------
    ValueError
        Unless ``counts`` is a 2-D array of whole numbers ≥ 0 with at least one count in all.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import item_kappa
    >>> item_kappa(np.array([[4, 0], [2, 2]])).round(4)  # unanimous; split (P_e = 0.625)
    array([ 1.    , -0.7778])
    """
    c = _domain.counts("counts", counts, ndim=2)
    if c.sum() == 0:
        raise ValueError("counts must hold at least one rating (all are 0)")
    n = c.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_i = ((c * c).sum(axis=1) - n) / (n * (n - 1))
    pooled = c.sum(axis=0) / c.sum()
    p_e = float(pooled @ pooled)
    if p_e >= 1.0:
        return np.where(n > 1, 1.0, np.nan)
    return np.where(n > 1, (p_i - p_e) / (1.0 - p_e), np.nan)


# -------------------------------------------------------------------------------- correlations
def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman ρ: Pearson's r of the average ranks (ties share their mean rank).

    Parameters
    ----------
    x, y : numpy.ndarray of float, (n,)
        Paired values.

    Returns
    -------
    float
        ρ.

    Raises
    ------
    ValueError
        As :func:`pearson` does.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import spearman
    >>> spearman(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 4.0, 9.0, 16.0]))  # monotone
    1.0
    """
    x, y = _paired("x", x, "y", y)
    return pearson(stats.rankdata(x), stats.rankdata(y))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r = Σ(x − x̄)(y − ȳ)/√(Σ(x − x̄)² Σ(y − ȳ)²); NaN when either side is constant.
    Each side is divided by its largest |deviation| first, so tiny scales (1e-277) cannot
    underflow the squares.

    Parameters
    ----------
    x, y : numpy.ndarray of float, (n,)
        Paired values.

    Returns
    -------
    float
        r, or NaN when x or y is constant.

    Raises
    ------
    ValueError
        Unless ``x`` and ``y`` are non-empty 1-D arrays of finite reals of one length.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import pearson
    >>> round(pearson(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 7.0])), 4)
    0.9934
    """
    x, y = _paired("x", x, "y", y)
    a = x - np.mean(x)
    b = y - np.mean(y)
    scale_a, scale_b = np.max(np.abs(a), initial=0.0), np.max(np.abs(b), initial=0.0)
    if scale_a == 0 or scale_b == 0:
        return float("nan")
    a, b = a / scale_a, b / scale_b
    return float(a @ b / np.sqrt((a @ a) * (b @ b)))


def _paired(
    name_x: str, x: np.ndarray, name_y: str, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    x, y = _domain.reals(name_x, x, ndim=1), _domain.reals(name_y, y, ndim=1)
    if x.shape != y.shape:
        raise ValueError(f"{name_x} and {name_y} must have one length (got {x.size} and {y.size})")
    return x, y


def tukey_subset(values: np.ndarray, k: float) -> np.ndarray:
    """Mask of values inside Tukey's fences [Q1 − k·IQR, Q3 + k·IQR] (the "similar quality"
    subsets of the absolute ratings, k = 3 … 0.5, applied to the pooled item means).

    The fences are thresholds on values, not a count, so tied items are always in or out together
    and there is no tie rule to choose: N is whatever the fences hold (745 … 598 of 750 in the
    paper).

    Parameters
    ----------
    values : numpy.ndarray of float
        The values.
    k : float
        The fences' multiple of the IQR.

    Returns
    -------
    numpy.ndarray of bool
        The mask, the shape of ``values``.

    Raises
    ------
    ValueError
        Unless ``values`` is a non-empty array of finite reals and ``k`` a finite real ≥ 0.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import tukey_subset
    >>> tukey_subset(np.array([1.0, 2.0, 2.0, 3.0, 100.0]), 1.5).tolist()  # 100 is out
    [True, True, True, True, False]
    """
    v = _domain.reals("values", values)
    k = _domain.real("k", k, minimum=0.0)
    q1, q3 = np.percentile(v, [25, 75])
    iqr = q3 - q1
    return (v >= q1 - k * iqr) & (v <= q3 + k * iqr)


#: Tie rules of :func:`top_fraction_subset`.
TIE_RULES = ("cut", "keep")


def top_fraction_subset(values: np.ndarray, fraction: float, *, ties: str = "cut") -> np.ndarray:
    """Mask of the top ``fraction`` of items by ``values``, with n_top = int(fraction·n).

    ``ties="cut"`` (default) keeps exactly n_top items: sort by decreasing value and keep the
    first n_top, the rule of the authors' pairwise analysis (top 95 … 60% of 500 items gives
    N = 475 … 300, the N the paper reports). Items tied at the cut are taken in their input
    order (a stable sort: the earlier item first), so the subset is deterministic.
    ``ties="keep"`` keeps every item at least as large as the value at rank n_top, so ties at the
    cut inflate N; the paper's absolute entropy subsets report N this way (top 16% of 750 gives
    123 > int(0.16·750) = 120).

    Parameters
    ----------
    values : numpy.ndarray of float, (n,)
        The items' values.
    fraction : float
        The share kept, in (0, 1].
    ties : str
        ``"cut"`` or ``"keep"``.

    Returns
    -------
    numpy.ndarray of bool, (n,)
        The mask.

    Examples
    --------
    >>> import numpy as np
    >>> from theory.hivemind import top_fraction_subset
    >>> top_fraction_subset(np.array([3.0, 1.0, 2.0, 2.0]), 0.5).tolist()  # the earlier 2 kept
    [True, False, True, False]
    >>> top_fraction_subset(np.array([3.0, 2.0, 2.0, 1.0]), 0.5, ties="keep").tolist()
    [True, True, True, False]
    """
    _domain.choice("ties", ties, TIE_RULES)
    v = _domain.reals("values", values, ndim=1, nonempty=False)
    fraction = _domain.fraction("fraction", fraction)
    n_top = int(fraction * v.size)
    mask = np.zeros(v.size, dtype=bool)
    if n_top < 1:
        return mask
    order = np.argsort(-v, kind="stable")
    if ties == "keep":
        return v >= v[order[n_top - 1]]
    mask[order[:n_top]] = True
    return mask
