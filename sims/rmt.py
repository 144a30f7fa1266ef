"""Sampled spectra of the random-feature matrix U of Bonnaire et al. (NeurIPS 2025, arXiv
2505.17638; docs/diffusion.md#gaussian-equivalence-and-its-constants).

- :func:`sample_ge` draws the Gaussian-equivalent (GE) matrix of Lemma C.1,
  U ≅ G Gᵀ/n + b_t² W Wᵀ/d + s_t² I_p with G = e^{−t} a_t W X/√d + v_t Ω,
  as its low-rank factor M = [G/√n, b_t W/√d] (p × (n+d)), so that U = M Mᵀ + s_t² I.
- :func:`ge_eigenvalues` returns its spectrum through the smaller Gram matrix of M: M Mᵀ (p × p,
  accumulated over blocks of samples) when p ≤ n + d, else MᵀM ((n+d) × (n+d)), where the
  p − (n+d) eigenvalues equal to s_t² are counted, never computed. :func:`ge_sample_cost`
  estimates its time and memory beforehand. :func:`dense_eigenvalues` is the O(p³) baseline.
- :func:`nonlinear_u_mehler` and :func:`nonlinear_u_monte_carlo` build the true nonlinear
  U = (1/n) Σ_ν E_ξ[φ_ν φ_νᵀ], φ_ν = σ(W x_t^ν/√d), for the Gaussian-equivalence cross-checks.

Written against the array API (``xp`` from :mod:`sims._backend`), so a cupy backend runs it on a GPU;
the random draws come from a numpy Generator and are moved to the device, so numpy and cupy see
the same matrices.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from theory import _domain
from theory.rmt import Activation, DataSpectrum, RFConstants, hermite_rule, rf_constants

__all__ = [
    "GESample",
    "SampleCost",
    "StreamedDraw",
    "dense_eigenvalues",
    "ge_eigenvalues",
    "ge_eigenvalues_streamed",
    "ge_sample_cost",
    "ge_spectrum_task",
    "nonlinear_spectrum_task",
    "nonlinear_u_mehler",
    "nonlinear_u_monte_carlo",
    "sample_ge",
    "stream_ge",
]


def _dims(d: int, psi_p: float, psi_n: float) -> tuple[int, int]:
    """p = round(ψ_p d) and n = round(ψ_n d), both at least 1."""
    _domain.integer("d", d, minimum=1)
    for name, psi in (("psi_p", psi_p), ("psi_n", psi_n)):
        _domain.real(name, psi, minimum=0.0, open_low=True)
    return max(1, round(psi_p * d)), max(1, round(psi_n * d))


@dataclass(frozen=True)
class GESample:
    """One draw of the model's random matrices and its GE factor.

    Attributes
    ----------
    consts
        The constants a_t, b_t, v_t², s_t² at time t.
    W : (p, d)
        Frozen first-layer weights, i.i.d. N(0, 1) (unit variance, as the theory assumes).
    X : (d, n)
        Training data x0 ~ N(0, Σ), Σ diagonal with the spectrum's atoms.
    Omega : (p, n)
        The i.i.d. N(0, 1) matrix standing in for the nonlinear part of E[σ | x].
    sigma_diag : (d,)
        The diagonal of Σ.
    """

    consts: RFConstants
    W: Any
    X: Any
    Omega: Any
    sigma_diag: Any

    @property
    def p(self) -> int:
        return int(self.W.shape[0])

    @property
    def d(self) -> int:
        return int(self.W.shape[1])

    @property
    def n(self) -> int:
        return int(self.X.shape[1])

    @property
    def G(self) -> Any:
        """G = e^{−t} a_t W X/√d + v_t Ω (p × n)."""
        c = self.consts
        return (c.decay * c.a / math.sqrt(self.d)) * (self.W @ self.X) + math.sqrt(
            c.v2
        ) * self.Omega

    @property
    def M(self) -> Any:
        """The factor M = [G/√n, b_t W/√d] (p × (n+d)) with U_GE = M Mᵀ + s_t² I."""
        xp = _namespace(self.W)
        return xp.concat(
            [self.G / math.sqrt(self.n), (self.consts.b / math.sqrt(self.d)) * self.W], axis=1
        )

    def u_matrix(self) -> Any:
        """The dense p × p GE matrix U = M Mᵀ + s_t² I (for the baselines)."""
        xp = _namespace(self.W)
        M = self.M
        return M @ M.T + self.consts.s2 * xp.eye(self.p, dtype=M.dtype)


def _namespace(x: Any) -> Any:
    from sims._backend import array_namespace

    return array_namespace(x)


def sample_ge(
    d: int,
    psi_p: float,
    psi_n: float,
    t: float,
    *,
    rng: np.random.Generator,
    spectrum: DataSpectrum | None = None,
    activation: Activation = np.tanh,
    xp: Any = None,
    backend: str = "numpy",
) -> GESample:
    """Draw W, X, Ω at p = ψ_p d, n = ψ_n d and return the GE sample on ``xp`` (default numpy).

    Σ is diagonal with the atoms of ``spectrum`` (default Σ = I) in proportions as close to its
    weights as d allows; the constants use σ_x² = Tr Σ / d of that diagonal.

    Parameters
    ----------
    d : int
        Input dimension.
    psi_p, psi_n : float
        p = ψ_p·d features and n = ψ_n·d samples (rounded).
    t : float
        Diffusion time.
    rng : numpy.random.Generator
        Source of the draw.
    spectrum : DataSpectrum, optional
        The data covariance's spectrum (default Σ = I).
    activation : callable
        The activation σ (default tanh), for the constants.
    xp : array namespace, optional
        Where the arrays live (default numpy).
    backend : str, optional
        The array backend (``sims._backend.get_backend``) whose namespace is ``xp`` when ``xp``
        is not given: ``"numpy"`` (default) or ``"cupy"``. The draw is made on the host either
        way, so every backend gets the same matrices.

    Returns
    -------
    GESample
        The draw and its constants.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.5, rng=np.random.default_rng(0))
    >>> sample.p, sample.n, sample.d
    (40, 10, 20)
    """
    p, n = _dims(d, psi_p, psi_n)
    spectrum = DataSpectrum.identity() if spectrum is None else spectrum
    sigma_diag = spectrum.diagonal(d)
    consts = rf_constants(t, activation, sigma_x2=float(sigma_diag.mean()))
    W = rng.standard_normal((p, d))
    X = np.sqrt(sigma_diag)[:, None] * rng.standard_normal((d, n))
    Omega = rng.standard_normal((p, n))
    if backend != "numpy":
        from sims._backend import get_backend

        xp = get_backend(backend).xp
    if xp is None:
        import array_api_compat.numpy as xp
    return GESample(consts, xp.asarray(W), xp.asarray(X), xp.asarray(Omega), xp.asarray(sigma_diag))


def ge_eigenvalues(sample: GESample, *, progress: bool = False) -> tuple[NDArray[np.float64], int]:
    """All eigenvalues of U_GE = M Mᵀ + s_t² I via the smaller of the two Gram matrices of M.

    M Mᵀ (p × p, the features' Gram) and MᵀM ((n+d) × (n+d)) have the same nonzero
    eigenvalues; the larger one also has |p − (n+d)| structural zeros. So:

    - p ≤ n + d: the p eigenvalues of M Mᵀ = G Gᵀ/n + b_t² W Wᵀ/d, with G Gᵀ accumulated over
      blocks of samples (G is never held whole). Cost O(p d n + p² n + p³), memory O(p² + p·block)
      beyond the draw: ψ_n = 1000 at d = 200 is a p × p problem.
    - p > n + d: the n + d eigenvalues of MᵀM; the other p − (n+d) eigenvalues of U are exactly
      s_t², counted and never computed. Cost O(p(n+d)² + (n+d)³).

    Returns a pair ``(values, at_s2)``: ``values`` the sorted min(p, n+d) eigenvalues computed,
    ``at_s2`` the count of the remaining max(0, p − (n+d)) eigenvalues, each exactly s_t²
    (``sample.consts.s2``). Together they are U's p eigenvalues:
    ``len(values) + at_s2 == sample.p``. Compare with :func:`theory.rmt.rf_spectrum`'s
    ``delta_mass`` (the share at s_t²) and ``density`` (the rest). With ``progress`` a tqdm bar on stderr (off when it is not a
    terminal) counts the blocks of samples.

    Parameters
    ----------
    sample : GESample
        A draw of :func:`sample_ge`.
    progress : bool
        Show a progress bar over the blocks of samples.

    Returns
    -------
    values : numpy.ndarray of float
        The min(p, n + d) eigenvalues computed, ascending.
    at_s2 : int
        The count of the other eigenvalues, each exactly s_t².

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import ge_eigenvalues, sample_ge
    >>> sample = sample_ge(50, 2.0, 0.5, 0.5, rng=np.random.default_rng(0))  # d, ψ_p, ψ_n, t
    >>> values, at_s2 = ge_eigenvalues(sample)
    >>> sample.p, len(values), at_s2  # p = 100 = (n + d = 75) + 25
    (100, 75, 25)
    >>> bool(values.min() >= sample.consts.s2)
    True
    """
    from sims._backend import to_numpy

    xp = _namespace(sample.W)
    k = sample.n + sample.d
    if sample.p <= k:
        gram = _feature_gram(sample, progress=progress)
    else:
        M = sample.M
        gram = M.T @ M
    values = np.sort(to_numpy(xp.linalg.eigvalsh(gram))) + sample.consts.s2
    return values, max(0, sample.p - k)


#: Entries of one block of G (features × samples) in :func:`_feature_gram`: 2^22 float64 = 32 MiB.
GRAM_BLOCK_ENTRIES = 2**22


def _feature_gram(sample: GESample, *, progress: bool) -> Any:
    """M Mᵀ = G Gᵀ/n + b_t² W Wᵀ/d (p × p), G Gᵀ = Σ_c G_c G_cᵀ over blocks c of samples with
    G_c = e^{−t} a_t W X_c/√d + v_t Ω_c (at most :data:`GRAM_BLOCK_ENTRIES` entries each)."""
    import sys

    from tqdm.auto import tqdm

    c = sample.consts
    p, d, n = sample.p, sample.d, sample.n
    gram = (c.b**2 / d) * (sample.W @ sample.W.T)
    block = max(1, GRAM_BLOCK_ENTRIES // p)
    scale_x, scale_omega = c.decay * c.a / math.sqrt(d), math.sqrt(c.v2)
    starts = range(0, n, block)
    bar = tqdm(
        starts,
        desc="sample: G Gᵀ",
        unit="block",
        file=sys.stderr,
        disable=None if progress else True,
    )
    for start in bar:
        stop = min(start + block, n)
        G = (
            scale_x * (sample.W @ sample.X[:, start:stop])
            + scale_omega * sample.Omega[:, start:stop]
        )
        gram += (G @ G.T) / n
    return gram


@dataclass(frozen=True)
class SampleCost:
    """Estimated cost of :func:`sample_ge` followed by :func:`ge_eigenvalues` (see
    :func:`ge_sample_cost`).

    Attributes
    ----------
    seconds
        CPU seconds on one core (good to a factor of ~2).
    bytes
        Peak memory in bytes (float64 arrays held at once).
    """

    seconds: float
    bytes: float


#: Normal draws per second and float64 flops per second on one core, measured on the
#: development machine (2026-12-04, OpenBLAS, one thread): the constants of :func:`ge_sample_cost`.
NORMALS_PER_SECOND = 3.0e7
FLOPS_PER_SECOND = 2.0e10


def ge_sample_cost(d: int, psi_p: float, psi_n: float) -> SampleCost:
    """Time and memory of one GE spectrum at p = ψ_p d, n = ψ_n d, before any draw.

    Draws: p d + d n + p n normals (:data:`NORMALS_PER_SECOND`); held: W, X (and its unscaled
    copy while drawn), Ω. Spectrum, with k = n + d and m = min(p, k) the Gram's side:
    p ≤ k: W X in blocks (2 p d n flops), G Gᵀ (p² n), eigvalsh (~2 p³), memory 4 p² + 3 p·block (block = min(n, 2^22/p));
    p > k: G, M and MᵀM (2 p n d + p k²), eigvalsh (~2 k³), memory 3 p n + p k + 4 k².
    Flops at :data:`FLOPS_PER_SECOND`.

    Parameters
    ----------
    d : int
        Input dimension.
    psi_p, psi_n : float
        p = ψ_p·d and n = ψ_n·d.

    Returns
    -------
    SampleCost
        Estimated seconds and bytes.

    Examples
    --------
    >>> from sims.rmt import ge_sample_cost
    >>> cost = ge_sample_cost(100, 8.0, 2.0)
    >>> cost.bytes / 2**20 < 20, cost.seconds < 1  # p = 800, n = 200: small
    (True, True)
    """
    p, n = _dims(d, psi_p, psi_n)
    k = n + d
    draw = float(p) * d + float(d) * n + float(p) * n
    held = p * d + 2.0 * d * n + p * n
    if p <= k:
        flops = 2.0 * p * d * n + float(p) * p * n + 2.0 * float(p) ** 3
        work = 4.0 * p * p + 3.0 * p * min(n, max(1, GRAM_BLOCK_ENTRIES // p))
    else:
        flops = 2.0 * p * n * d + float(p) * k * k + 2.0 * float(k) ** 3
        work = 3.0 * p * n + float(p) * k + 4.0 * k * k
    return SampleCost(draw / NORMALS_PER_SECOND + flops / FLOPS_PER_SECOND, 8.0 * (held + work))


@dataclass(frozen=True)
class StreamedDraw:
    """A GE draw whose features come ``row_block`` at a time (:func:`stream_ge`).

    Attributes
    ----------
    consts, sigma_diag, p, n
        As in :class:`GESample`.
    blocks
        Yields (W_b, M_b) for consecutive feature blocks (X, d × n, is drawn first and kept inside):
        W_b (b × d), then Ω_b (b × n) drawn when reached, and M_b = [G_b/√n, b_t W_b/√d] (b × (n+d)) in a buffer reused between blocks.
    """

    consts: RFConstants
    sigma_diag: NDArray[np.float64]
    p: int
    n: int
    blocks: Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]


def stream_ge(
    d: int,
    psi_p: float,
    psi_n: float,
    t: float,
    *,
    rng: np.random.Generator,
    spectrum: DataSpectrum | None = None,
    row_block: int,
) -> StreamedDraw:
    """A GE draw at p = ψ_p d, n = ψ_n d that never holds W, Ω or M whole: X (d × n) is drawn
    now, W and Ω ``row_block`` rows (features) at a time as :attr:`StreamedDraw.blocks` is
    iterated. The draw order differs from :func:`sample_ge` (another sample of the same law).

    Parameters
    ----------
    d : int
        Input dimension.
    psi_p, psi_n : float
        p = ψ_p·d and n = ψ_n·d.
    t : float
        Diffusion time.
    rng : numpy.random.Generator
        Source of the draw.
    spectrum : DataSpectrum, optional
        The data covariance's spectrum (default Σ = I).
    row_block : int
        Features per block.

    Returns
    -------
    StreamedDraw
        X, the constants, and the blocks of W and Ω to iterate.

    Raises
    ------
    ValueError
        Naming ``row_block`` unless it is an integer ≥ 1, or ``d``, ``psi_p``, ``psi_n`` or
        ``t`` outside their domains (integer ≥ 1; positive reals).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import stream_ge
    >>> draw = stream_ge(20, 2.0, 0.5, 0.5, rng=np.random.default_rng(0), row_block=16)
    >>> draw.p, [block[0].shape for block in draw.blocks]  # W in blocks of 16 features
    (40, [(16, 20), (16, 20), (8, 20)])
    """
    if isinstance(row_block, bool) or not isinstance(row_block, int | np.integer) or row_block < 1:
        raise ValueError(f"row_block must be an integer ≥ 1 (got {row_block!r})")
    p, n = _dims(d, psi_p, psi_n)
    spectrum = DataSpectrum.identity() if spectrum is None else spectrum
    sigma_diag = spectrum.diagonal(d)
    c = rf_constants(t, sigma_x2=float(sigma_diag.mean()))
    X = np.sqrt(sigma_diag)[:, None] * rng.standard_normal((d, n))

    def blocks() -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
        buffer = np.empty((min(row_block, p), n + d))
        for start in range(0, p, row_block):
            rows = min(row_block, p - start)
            W = rng.standard_normal((rows, d))
            M = buffer[:rows]
            M[:, :n] = rng.standard_normal((rows, n))
            M[:, :n] *= math.sqrt(c.v2)
            M[:, :n] += (c.decay * c.a / math.sqrt(d)) * (W @ X)
            M[:, :n] /= math.sqrt(n)
            M[:, n:] = (c.b / math.sqrt(d)) * W
            yield W, M

    return StreamedDraw(c, sigma_diag, p, n, blocks())


def ge_eigenvalues_streamed(
    d: int,
    psi_p: float,
    psi_n: float,
    t: float,
    *,
    rng: np.random.Generator,
    spectrum: DataSpectrum | None = None,
    row_block: int,
) -> tuple[NDArray[np.float64], int, int, float]:
    """:func:`ge_eigenvalues` of a :func:`stream_ge` draw: the Gram matrix MᵀM = Σ_b M_bᵀ M_b is
    accumulated block by block. Memory O((n+d)² + row_block·(n+d)) instead of O(p(n+d)), the same
    O(p(n+d)² + (n+d)³) flops; the paper's Fig. 4 size (d = 2000, p = 128,000, n = 16,000) peaks
    near 6 GB (the 2.6 GB Gram, its eigvalsh copy) instead of holding the 18 GB factor. Returns
    (sorted eigenvalues of MᵀM + s_t², the count of eigenvalues equal to s_t², p, s_t²).

    Parameters
    ----------
    d : int
        Input dimension.
    psi_p, psi_n : float
        p = ψ_p·d features and n = ψ_n·d samples.
    t : float
        Diffusion time.
    rng : numpy.random.Generator
        Source of the draw.
    spectrum : DataSpectrum, optional
        The data covariance's spectrum (default Σ = I).
    row_block : int
        Features drawn at a time.

    Returns
    -------
    values : numpy.ndarray of float
        The eigenvalues of MᵀM + s_t², ascending.
    at_s2 : int
        The count of eigenvalues equal to s_t².
    p : int
        The number of features.
    s2 : float
        s_t².

    Raises
    ------
    ValueError
        As :func:`stream_ge`, naming the argument outside its domain.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import ge_eigenvalues_streamed
    >>> values, at_s2, p, s2 = ge_eigenvalues_streamed(
    ...     20, 2.0, 0.5, 0.5, rng=np.random.default_rng(0), row_block=8
    ... )
    >>> len(values), at_s2, p  # n + d = 30 computed, 10 at s_t²
    (30, 10, 40)
    """
    draw = stream_ge(d, psi_p, psi_n, t, rng=rng, spectrum=spectrum, row_block=row_block)
    k, p = draw.n + d, draw.p
    gram = np.zeros((k, k))
    for _, M in draw.blocks:
        gram += M.T @ M
    values = np.linalg.eigvalsh(gram) + draw.consts.s2
    if k > p:  # as in ge_eigenvalues: keep the p eigenvalues of M Mᵀ
        values = values[k - p :]
    return np.sort(values), max(0, p - k), p, draw.consts.s2


def dense_eigenvalues(sample: GESample) -> NDArray[np.float64]:
    """All p eigenvalues of the dense GE matrix by ``eigvalsh`` (the O(p³) baseline).

    Parameters
    ----------
    sample : GESample
        A draw of :func:`sample_ge`.

    Returns
    -------
    numpy.ndarray of float, (p,)
        The eigenvalues of U_GE, ascending.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import dense_eigenvalues, ge_eigenvalues, sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.5, rng=np.random.default_rng(0))
    >>> dense = dense_eigenvalues(sample)
    >>> values, at_s2 = ge_eigenvalues(sample)  # the Gram route: the same top n + d values
    >>> dense.shape, bool(np.allclose(dense[at_s2:], values))
    ((40,), True)
    """
    from sims._backend import to_numpy

    xp = _namespace(sample.W)
    return np.sort(to_numpy(xp.linalg.eigvalsh(sample.u_matrix())))


def _preactivations(sample: GESample) -> tuple[Any, Any, Any]:
    """The noise-free pre-activations m = e^{−t} W X/√d (p × n), K = W Wᵀ/d and the noise scales
    s_i = √(Δ_t K_ii): the pre-activation of feature i on sample ν is m_iν + s_i ζ_i with
    ζ ~ N(0, ρ), ρ_ij = K_ij/√(K_ii K_jj)."""
    xp = _namespace(sample.W)
    c = sample.consts
    K = sample.W @ sample.W.T / sample.d
    mean = (c.decay / math.sqrt(sample.d)) * (sample.W @ sample.X)
    scale = xp.sqrt(c.delta * xp.linalg.diagonal(K))
    return mean, K, scale


def nonlinear_u_mehler(
    sample: GESample, *, order: int = 3, activation: Activation = np.tanh, nodes: int = 48
) -> Any:
    """The true nonlinear U = (1/n) Σ_ν E_ξ[φ_ν φ_νᵀ], E_ξ exact, by Mehler's expansion:

        U_ij = Σ_{k=0}^{order} ρ_ij^k/k! · (1/n) Σ_ν C_k(i, ν) C_k(j, ν)   (i ≠ j),
        U_ii = (1/n) Σ_ν E σ(m_iν + s_i z)²,

    with C_k(i, ν) = E[σ(m_iν + s_i z) He_k(z)] = s_i^k E σ^{(k)}(m_iν + s_i z) (Gaussian integration
    by parts), all by Gauss–Hermite quadrature. Off-diagonal ρ_ij = O(1/√d), so the tail after
    ``order`` is O(d^{−(order+1)/2}) per entry. Cost O(p² n · order).

    Parameters
    ----------
    sample : GESample
        A draw of :func:`sample_ge` (its W, X and constants).
    order : int
        The last term of Mehler's expansion.
    activation : callable
        The activation σ (default tanh).
    nodes : int
        Gauss–Hermite nodes.

    Returns
    -------
    array
        U, (p, p), in the sample's namespace.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import nonlinear_u_mehler, sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.5, rng=np.random.default_rng(0))
    >>> U = nonlinear_u_mehler(sample)
    >>> U.shape, bool(np.allclose(U, U.T))
    ((40, 40), True)
    """
    if order < 0:
        raise ValueError(f"order must be >= 0 (got {order})")
    xp = _namespace(sample.W)
    mean, K, scale = _preactivations(sample)
    z, w = hermite_rule(nodes)
    herm = [np.polynomial.hermite_e.hermeval(z, [0] * k + [1]) for k in range(order + 1)]
    coeffs = [xp.zeros_like(mean) for _ in range(order + 1)]
    second = xp.zeros_like(mean)
    for node in range(nodes):
        phi = activation(mean + float(z[node]) * scale[:, None])
        second += float(w[node]) * phi * phi
        for k in range(order + 1):
            coeffs[k] += float(w[node] * herm[k][node]) * phi
    diag = xp.sqrt(xp.linalg.diagonal(K))
    rho = K / (diag[:, None] * diag[None, :])
    U = xp.zeros_like(K)
    rho_k = xp.ones_like(K)
    for k in range(order + 1):
        U += rho_k * (coeffs[k] @ coeffs[k].T) / (sample.n * math.factorial(k))
        rho_k = rho_k * rho
    eye = xp.eye(sample.p, dtype=U.dtype)
    return U * (1.0 - eye) + eye * xp.mean(second, axis=1)[:, None]


def nonlinear_u_monte_carlo(
    sample: GESample,
    *,
    noise_draws: int,
    rng: np.random.Generator,
    activation: Activation = np.tanh,
) -> Any:
    """The nonlinear U with E_ξ replaced by an average over ``noise_draws`` draws of ξ per sample:
    U ≈ (1/(n m)) Σ_ν Σ_j φ(x_t^{νj}) φ(x_t^{νj})ᵀ. Cost O(p² n m); a cross-check of
    :func:`nonlinear_u_mehler`, biased by spurious eigenvalues near s_t² when m is small.

    Parameters
    ----------
    sample : GESample
        A draw of :func:`sample_ge`.
    noise_draws : int
        Draws m of ξ per sample.
    rng : numpy.random.Generator
        Source of the noise.
    activation : callable
        The activation σ (default tanh).

    Returns
    -------
    array
        U, (p, p), in the sample's namespace.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import nonlinear_u_mehler, nonlinear_u_monte_carlo, sample_ge
    >>> sample = sample_ge(20, 2.0, 0.5, 0.5, rng=np.random.default_rng(0))
    >>> U = nonlinear_u_monte_carlo(sample, noise_draws=50, rng=np.random.default_rng(1))
    >>> U.shape, float(np.abs(U - nonlinear_u_mehler(sample)).max()) < 0.1
    ((40, 40), True)
    """
    if noise_draws < 1:
        raise ValueError(f"noise_draws must be >= 1 (got {noise_draws})")
    xp = _namespace(sample.W)
    mean, _, _ = _preactivations(sample)
    noise = math.sqrt(sample.consts.delta / sample.d)
    U = xp.zeros((sample.p, sample.p), dtype=mean.dtype)
    for _ in range(noise_draws):
        xi = xp.asarray(rng.standard_normal((sample.d, sample.n)))
        phi = activation(mean + noise * (sample.W @ xi))
        U += phi @ phi.T
    return U / (sample.n * noise_draws)


# ------------------------------------------------------------------------------ sweep tasks
def _sample_from_params(
    params: dict[str, Any], rng: np.random.Generator, backend: str = "numpy"
) -> GESample:
    spectrum = DataSpectrum.of(params.get("sigma_atoms", [1.0]), params.get("weights"))
    return sample_ge(
        int(params["d"]),
        params["psi_p"],
        params["psi_n"],
        params["t"],
        rng=rng,
        spectrum=spectrum,
        backend=backend,
    )


def ge_spectrum_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: the GE spectrum at (d, psi_p, psi_n, t, sigma_atoms[, weights]) by the Gram
    trick: the non-trivial eigenvalues and the count of eigenvalues equal to s_t². With
    ``row_block`` (paper scale) the Gram matrix is accumulated block by block
    (:func:`ge_eigenvalues_streamed`).

    Parameters
    ----------
    params : dict
        ``d``, ``psi_p``, ``psi_n``, ``t``, ``sigma_atoms`` (and optionally ``weights``,
        ``row_block``, and ``backend``: numpy by default, or cupy for the Gram trick; the
        streamed path computes on numpy only).
    rng : numpy.random.Generator
        Source of the draw.

    Returns
    -------
    dict
        ``eigenvalues`` (the non-trivial ones), ``floor_count`` (those equal to s_t²), ``p``
        and ``s2``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import ge_spectrum_task
    >>> params = {"d": 20, "psi_p": 2.0, "psi_n": 0.5, "t": 0.5, "sigma_atoms": [1.0]}
    >>> result = ge_spectrum_task(params, np.random.default_rng(0))
    >>> len(result["eigenvalues"]), result["floor_count"], result["p"]
    (30, 10, 40)
    """
    backend = params.pop("backend", "numpy")
    if params.get("row_block"):
        if backend != "numpy":
            raise ValueError("backend: the streamed GE spectrum (row_block) computes on numpy only")
        spectrum = DataSpectrum.of(params.get("sigma_atoms", [1.0]), params.get("weights"))
        values, at_floor, p, s2 = ge_eigenvalues_streamed(
            int(params["d"]),
            params["psi_p"],
            params["psi_n"],
            params["t"],
            rng=rng,
            spectrum=spectrum,
            row_block=int(params["row_block"]),
        )
        return {"eigenvalues": values, "floor_count": at_floor, "p": p, "s2": s2}
    sample = _sample_from_params(params, rng, backend=backend)
    values, at_floor = ge_eigenvalues(sample)
    return {"eigenvalues": values, "floor_count": at_floor, "p": sample.p, "s2": sample.consts.s2}


def nonlinear_spectrum_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: all p eigenvalues of the true nonlinear U of the same draw, by Mehler
    (``noise_draws`` absent) or by Monte Carlo over ``noise_draws`` noise draws per sample.

    Parameters
    ----------
    params : dict
        ``d``, ``psi_p``, ``psi_n``, ``t``, ``sigma_atoms`` (and optionally ``weights``,
        ``order``, ``noise_draws``, and ``backend``: numpy by default, or cupy).
    rng : numpy.random.Generator
        Source of the draw.

    Returns
    -------
    dict
        ``eigenvalues`` (all p), ``p`` and ``s2``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rmt import nonlinear_spectrum_task
    >>> params = {"d": 20, "psi_p": 2.0, "psi_n": 0.5, "t": 0.5, "sigma_atoms": [1.0]}
    >>> result = nonlinear_spectrum_task(params, np.random.default_rng(0))
    >>> len(result["eigenvalues"]), result["p"]
    (40, 40)
    """
    backend = params.pop("backend", "numpy")
    sample = _sample_from_params(params, rng, backend=backend)
    if params.get("noise_draws"):
        U = nonlinear_u_monte_carlo(sample, noise_draws=int(params["noise_draws"]), rng=rng)
    else:
        U = nonlinear_u_mehler(sample, order=int(params.get("order", 3)))
    if backend != "numpy":
        from sims._backend import to_numpy

        U = to_numpy(U)
    return {"eigenvalues": np.linalg.eigvalsh(U), "p": sample.p, "s2": sample.consts.s2}
