"""Named concept classes from the transductive-online-learning paper and its test oracles.

Every function returns a :class:`~theory.online.concept_class.ConceptClass` with readable point
labels. Expected values (docs/online.md#exact-values-the-checks-compare-with):

=====================  =======================  ==========================
class                  Ldim                     M_tr
=====================  =======================  ==========================
``singletons(k)``      1 (k ≥ 2)                1
``thresholds(k)``      ⌊log2(k+1)⌋              ⌊log2(k+1)⌋
``all_functions(k)``   k                        k (= VC)
``gadget_w()``         3                        2
``gadget_power(k)``    3k                       2k
``tree_class(d)``      d                        d for q = 0 (exact for d ≤ 4)
``product(A, B)``      Ldim(A) + Ldim(B)        M_tr(A) + M_tr(B)
=====================  =======================  ==========================

Tree convention (docs/online.md#conventions): ``tree_class(d)`` lives on the nodes of T_{d−1}, the
perfect binary tree with d levels of internal nodes, so |X| = 2^d − 1, |H| = 2^d and Ldim = d.
Nodes are bit strings ("" is the root, then "0", "1", "00", ...) in breadth-first order, which is
heap order: node j has children 2j+1 (edge label 0) and 2j+2 (edge label 1).
"""

from __future__ import annotations

import math
import string
from typing import Any

import numpy as np

from theory import _domain
from theory.online.concept_class import ConceptClass

#: Largest ``k`` accepted by :func:`all_functions` (2^16 hypotheses).
MAX_ALL_FUNCTIONS_POINTS = 16
#: Largest number of hypotheses a product (or ``gadget_power``) may have: 8^6 = 2^18.
MAX_PRODUCT_HYPOTHESES = 2**18
#: Largest ``d`` accepted by :func:`tree_class` (2^16 hypotheses on 2^16 − 1 points would be
#: 4 GiB; d = 12 is 4096 × 4095).
MAX_TREE_DEPTH = 12

__all__ = [
    "GADGET_W_ROWS",
    "MAX_ALL_FUNCTIONS_POINTS",
    "MAX_PRODUCT_HYPOTHESES",
    "MAX_TREE_DEPTH",
    "all_functions",
    "gadget_power",
    "gadget_w",
    "node_depth",
    "node_index",
    "node_label",
    "paper_q",
    "product",
    "singletons",
    "thresholds",
    "tree_class",
    "tree_nodes",
    "tree_paths",
]


def _check_int(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    is_int = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    too_big = is_int and maximum is not None and value > maximum
    if not is_int or value < minimum or too_big:
        span = f"≥ {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        why = " (larger classes are refused: too big)" if too_big else ""
        raise ValueError(f"{name} must be an integer {span}{why}, got {value!r}")
    return int(value)


def _points(k: int, prefix: str = "x") -> tuple[str, ...]:
    return tuple(f"{prefix}{j}" for j in range(k))


# --------------------------------------------------------------------------------- small classes
def singletons(k: int, with_zero: bool = False) -> ConceptClass:
    """The k indicator functions h_i(x_j) = [i = j] on k points, optionally with the all-0 function.

    Ldim = M_tr = 1 either way, except for the one-hypothesis class
    ``singletons(1)`` (Ldim 0). Rows: h_0..h_{k−1}, then the zero function.

    Parameters
    ----------
    k : int
        Points.
    with_zero : bool
        Add the all-0 function.

    Returns
    -------
    ConceptClass
        The singletons.

    Examples
    --------
    >>> from theory.online.constructions import singletons
    >>> singletons(3).matrix.tolist(), singletons(3, with_zero=True).matrix.shape
    ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], (4, 3))
    """
    k = _check_int("k", k, 1)
    rows = np.eye(k, dtype=np.uint8)
    if with_zero:
        rows = np.vstack([rows, np.zeros((1, k), dtype=np.uint8)])
    return ConceptClass(rows, _points(k))


def thresholds(k: int) -> ConceptClass:
    """Thresholds on k ordered points: the k+1 hypotheses h_i(x_j) = [j < i], i = 0..k.

    Ldim = M_tr = ⌊log2(k+1)⌋, and the shortest sequence forcing M = M_tr mistakes has length
    2^M − 1 (the paper's Thm C.2 is tight on thresholds).

    Parameters
    ----------
    k : int
        Points.

    Returns
    -------
    ConceptClass
        The k + 1 thresholds.

    Examples
    --------
    >>> from theory.online.constructions import thresholds
    >>> from theory.online.dims import littlestone_dim
    >>> H = thresholds(3)
    >>> H.matrix.tolist(), littlestone_dim(H)  # ⌊log2 4⌋
    ([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], 2)
    """
    k = _check_int("k", k, 1)
    i = np.arange(k + 1)[:, None]  # (k+1, 1)
    j = np.arange(k)[None, :]  # (1, k)
    return ConceptClass((j < i).astype(np.uint8), _points(k))


def all_functions(k: int) -> ConceptClass:
    """All 2^k functions on k points (row i is the binary expansion of i, point 0 the most
    significant bit). Ldim = M_tr = VC = k. Refuses k > 16.

    Parameters
    ----------
    k : int
        Points, 0 ≤ k ≤ 16.

    Returns
    -------
    ConceptClass
        The 2^k functions.

    Examples
    --------
    >>> from theory.online.constructions import all_functions
    >>> all_functions(2).matrix.tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    k = _check_int("k", k, 1, MAX_ALL_FUNCTIONS_POINTS)
    i = np.arange(2**k)[:, None]
    shifts = np.arange(k - 1, -1, -1)[None, :]
    return ConceptClass(((i >> shifts) & 1).astype(np.uint8), _points(k))


#: The rows of the gadget W on points x0..x3 (docs/online.md#exact-values-the-checks-compare-with).
GADGET_W_ROWS = ("0000", "1000", "0100", "0001", "1101", "0011", "1011", "1111")


def gadget_w() -> ConceptClass:
    """The 4-point gadget W with rows 0000, 1000, 0100, 0001, 1101, 0011, 1011, 1111.

    Ldim(W) = 3 and M_tr(W) = 2: the only Ldim/M_tr gap on ≤ 4 points (the exhaustive census).

    Returns
    -------
    ConceptClass
        W.

    Examples
    --------
    >>> from theory.online.constructions import gadget_w
    >>> from theory.online.dims import littlestone_dim
    >>> from theory.online.mtr import transductive_mistake_bound
    >>> W = gadget_w()
    >>> littlestone_dim(W), transductive_mistake_bound(W).value
    (3, 2)
    """
    return ConceptClass.from_strings(list(GADGET_W_ROWS), _points(4))


# ---------------------------------------------------------------------------------- products
def _factor_prefix(i: int) -> str:
    return string.ascii_lowercase[i] if i < 26 else f"f{i}"


def product(*classes: ConceptClass) -> ConceptClass:
    """The class on the disjoint union of the factors' domains whose hypotheses are all tuples
    (h_1, ..., h_m), h_i ∈ H_i: row = the concatenation of the factors' rows.

    |H| = ∏ |H_i|, |X| = Σ |X_i|; rows are in lexicographic order (the first factor varies
    slowest). Point labels are prefixed by the factor: ``"a:x0"``, ``"b:x0"``, ... Ldim and M_tr
    add over factors. Refuses products with more than 2^18 hypotheses.

    Parameters
    ----------
    *classes : ConceptClass
        The factors.

    Returns
    -------
    ConceptClass
        Their product.

    Examples
    --------
    >>> from theory.online.constructions import product, thresholds
    >>> H = product(thresholds(1), thresholds(1))
    >>> H.matrix.tolist(), list(H.points)
    ([[0, 0], [0, 1], [1, 0], [1, 1]], ['a:x0', 'b:x0'])
    """
    if not classes:
        raise ValueError("classes: product needs at least one class")
    bad = [i for i, c in enumerate(classes) if not isinstance(c, ConceptClass)]
    if bad:
        raise ValueError(
            f"classes[{bad[0]}] is {type(classes[bad[0]]).__name__}, not a ConceptClass"
        )
    size = math.prod(c.n_hypotheses for c in classes)
    if size > MAX_PRODUCT_HYPOTHESES:
        raise ValueError(
            f"classes: the product has {size} hypotheses, more than {MAX_PRODUCT_HYPOTHESES}"
        )
    mat = classes[0].matrix
    for c in classes[1:]:
        a, b = mat.shape[0], c.n_hypotheses
        mat = np.hstack([np.repeat(mat, b, axis=0), np.tile(c.matrix, (a, 1))])  # (a·b, m_a+m_b)
    labels = tuple(f"{_factor_prefix(i)}:{p}" for i, c in enumerate(classes) for p in c.points)
    return ConceptClass(mat, labels)


def gadget_power(k: int) -> ConceptClass:
    """W^k, the product of k copies of :func:`gadget_w`: 8^k hypotheses on 4k points, Ldim 3k and
    M_tr 2k (BKM97's 2/3 ratio, exact for every k). Refuses k > 6.

    Parameters
    ----------
    k : int
        Copies, 1 ≤ k ≤ 6.

    Returns
    -------
    ConceptClass
        W^k.

    Examples
    --------
    >>> from theory.online.constructions import gadget_power
    >>> from theory.online.dims import littlestone_dim
    >>> W2 = gadget_power(2)
    >>> W2.matrix.shape, littlestone_dim(W2)  # 64 hypotheses on 8 points; M_tr = 4
    ((64, 8), 6)
    """
    k = _check_int("k", k, 1, 6)
    return product(*([gadget_w()] * k))


# ------------------------------------------------------------------------------- tree classes
def node_label(j: int) -> str:
    """The bit string of the node with breadth-first (heap) index j: 0 → "", 1 → "0", 2 → "1",
    3 → "00", ...

    Parameters
    ----------
    j : int
        Heap index, ≥ 0.

    Returns
    -------
    str
        The node's bit string.

    Examples
    --------
    >>> from theory.online.constructions import node_label
    >>> [node_label(j) for j in range(5)]
    ['', '0', '1', '00', '01']
    """
    j = _check_int("j", j, 0)
    depth = (j + 1).bit_length() - 1
    return format(j + 1 - 2**depth, f"0{depth}b") if depth else ""


def node_index(label: str) -> int:
    """Inverse of :func:`node_label`: the breadth-first index of the node with bit string label.

    Parameters
    ----------
    label : str
        A bit string.

    Returns
    -------
    int
        Its heap index.

    Examples
    --------
    >>> from theory.online.constructions import node_index
    >>> node_index(""), node_index("01")
    (0, 4)
    """
    if not isinstance(label, str) or any(ch not in "01" for ch in label):
        raise ValueError(f"label must be a string of 0/1, got {label!r}")
    return 2 ** len(label) - 1 + (int(label, 2) if label else 0)


def node_depth(j: int) -> int:
    """Depth of the node with heap index j (root: 0).

    Parameters
    ----------
    j : int
        Heap index, ≥ 0.

    Returns
    -------
    int
        ⌊log2(j + 1)⌋.

    Raises
    ------
    ValueError
        Unless ``j`` is an integer ≥ 0.

    Examples
    --------
    >>> from theory.online.constructions import node_depth
    >>> [node_depth(j) for j in range(7)]
    [0, 1, 1, 2, 2, 2, 2]
    """
    if isinstance(j, bool) or not isinstance(j, int | np.integer) or j < 0:
        raise ValueError(f"j must be an integer ≥ 0, got {j!r}")
    return (int(j) + 1).bit_length() - 1


def tree_nodes(d: int) -> tuple[str, ...]:
    """The 2^d − 1 nodes of T_{d−1} as bit strings, in breadth-first order.

    Parameters
    ----------
    d : int
        Levels.

    Returns
    -------
    tuple of str
        The nodes.

    Examples
    --------
    >>> from theory.online.constructions import tree_nodes
    >>> tree_nodes(2)
    ('', '0', '1')
    """
    d = _check_int("d", d, 1, MAX_TREE_DEPTH)
    return tuple(node_label(j) for j in range(2**d - 1))


def tree_paths(d: int) -> np.ndarray:
    """Path node indices of the hypotheses of :func:`tree_class`.

    Returns an int64 array of shape (2^d, d): row b (the hypothesis h_b, b read as a d-bit binary
    number, most significant bit first) lists the heap indices of the prefixes of b of lengths
    0..d−1, i.e. the root-to-leaf chain on which h_b's labels are the next bits of b.

    Parameters
    ----------
    d : int
        Levels.

    Returns
    -------
    numpy.ndarray of int64, (2^d, d)
        The path of each hypothesis (above).

    Examples
    --------
    >>> from theory.online.constructions import tree_paths
    >>> tree_paths(2).tolist()  # h_00, h_01 pass the root and node "0"; h_10, h_11 node "1"
    [[0, 1], [0, 1], [0, 2], [0, 2]]
    """
    d = _check_int("d", d, 1, MAX_TREE_DEPTH)
    b = np.arange(2**d)[:, None]  # (2^d, 1)
    level = np.arange(d)[None, :]  # (1, d)
    prefix_value = b >> (d - level)  # integer value of the first `level` bits of b
    return (2**level - 1 + prefix_value).astype(np.int64)  # (2^d, d)


def paper_q(d: int) -> float:
    """The paper's off-path bias q = 2^{−√(d−1)} for the random class with Ldim d (Lemma D.2
    applied with d' = d − 1; the paper's §2.3).

    Parameters
    ----------
    d : int
        The Ldim of the class, ≥ 1.

    Returns
    -------
    float
        q.

    Examples
    --------
    >>> from theory.online.constructions import paper_q
    >>> paper_q(5)  # 2^−2
    0.25
    """
    d = _check_int("d", d, 1)
    return 2.0 ** (-math.sqrt(d - 1))


def tree_class(d: int, q: float | str = 0.0, rng: Any = None) -> ConceptClass:
    """The tree class on the nodes of T_{d−1} (the paper's §2.3 and Lemma D.2; q = 0 gives the
    minimal tree class).

    For each b ∈ {0,1}^d the hypothesis h_b labels each proper prefix b_{<k} of b (k = 0..d−1,
    the nodes on its path) with the next bit b_k. Every other node is labelled 0 when q = 0 (the
    minimal tree class: Ldim = M_tr = d), or with an independent Bernoulli(q) bit when q > 0 (the
    paper's random upper-bound class; pass ``q="paper"`` for q = :func:`paper_q` (d)).

    Parameters
    ----------
    d : int
        Number of levels, 1 ≤ d ≤ 12: |X| = 2^d − 1 points, |H| = 2^d hypotheses, Ldim = d.
    q : float or "paper"
        Probability of a 1 off the path, in [0, 1].
    rng : numpy.random.Generator, int or None
        Randomness for the off-path bits (only used when q > 0).

    Returns
    -------
    ConceptClass
        Row b is h_b (b in binary, most significant bit first: its path is ``tree_paths(d)[b]``);
        column j is the node ``node_label(j)``.

    Examples
    --------
    >>> from theory.online.constructions import tree_class
    >>> from theory.online.dims import littlestone_dim
    >>> H = tree_class(3)
    >>> H.matrix.shape, littlestone_dim(H)
    ((8, 7), 3)
    """
    d = _check_int("d", d, 1, MAX_TREE_DEPTH)
    if isinstance(q, str):
        if q != "paper":
            raise ValueError(f"q must be a probability or 'paper', got {q!r}")
        q = paper_q(d)
    is_number = isinstance(q, (int, float, np.floating, np.integer)) and not isinstance(q, bool)
    if not is_number or not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be a probability in [0, 1] or 'paper', got {q!r}")
    q = float(q)
    n_hyp, n_pts = 2**d, 2**d - 1
    if q > 0:
        _domain.seed("rng", rng)
        rng = np.random.default_rng(rng)
        mat = (rng.random((n_hyp, n_pts)) < q).astype(np.uint8)  # (2^d, 2^d − 1) off-path bits
    else:
        mat = np.zeros((n_hyp, n_pts), dtype=np.uint8)
    paths = tree_paths(d)  # (2^d, d)
    b = np.arange(n_hyp)[:, None]
    next_bits = (b >> (d - 1 - np.arange(d)[None, :])) & 1  # (2^d, d): bit k of b
    mat[np.arange(n_hyp)[:, None], paths] = next_bits
    return ConceptClass(mat, tree_nodes(d))
