"""Batched trainer for the toy model of "Superposition Yields Robust Neural Scaling".

K models y = ReLU(W_k W_kᵀ x + b_k) are trained at once as a stacked (K, n, m) tensor on one shared
stream of fresh samples (docs/superposition.md#the-toy-model): they share m and the frequencies p
and differ in their initialisation and in their weight decay γ_k. Written once against the array API
(``xp`` from :func:`sims._backend.array_namespace`), so cupy arrays train on a GPU unchanged; the
product with the sparse data matrix X goes through scipy / cupyx sparse matrices.

Data (one uniform draw per entry): U ~ U(0, 1); feature i is active iff U < p_i, and then its
value is 2U/p_i ~ U(0, 2). Loss per sample, summed over features (paper convention):
L = ‖ReLU(W Wᵀ x + b) − x‖². Optimiser: the paper's hand-written AdamW (β = (0.9, 0.999),
ε = 1e-8) with decoupled decay on W only, applied before the Adam step and scaled by the current
learning rate η_t:

- γ ≥ 0: W ← (1 − η_t γ) W;
- γ < 0 ("growth"): W_i ← W_i − η_t |γ| (1 − 1/‖W_i‖) W_i, pulling every row to unit norm.

Schedule (:func:`lr_schedule`): the authors' ``get_lr``, linear warm-up to the peak, then cosine
down to 5% of the peak. Learning rates (``lr_groups``): one peak for W and b, as the small sweeps
that the claims mirror, or the per-group peaks of the authors' large runs.

Checkpoints: ``train_models(..., checkpoint=path)`` saves the state after every
:data:`DATA_SEGMENT` steps and resumes from it bit-identically.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from array_api_compat import is_array_api_obj

from sims._backend import array_namespace, get_backend, to_numpy
from sims.sweep import task_checkpoint_dir
from theory import _domain
from theory.superposition import feature_frequencies

__all__ = [
    "SparseBatch",
    "TrainConfig",
    "TrainResult",
    "loss_and_grad",
    "lr_schedule",
    "sample_batch",
    "sample_batch_two_draws",
    "single_threaded_blas",
    "train_models",
    "train_task",
]

ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
FINAL_LR_FRACTION = 0.05
STRONG_NORM = 1.0  # φ_1: rows with ‖W_i‖ > 1 ("strongly represented")
REPRESENTED_NORM = 0.5  # φ_{1/2}
LR_GROUPS = ("shared", "per-group")
PER_GROUP_BASE_LR = 0.02  # exp-17's --lr: W's peak at m = 8 under lr_groups="per-group"
#: Steps per data segment: the sample stream of steps [kS, (k+1)S) comes from its own generator,
#: seeded from (task seed, k), so a run resumed at a segment boundary draws the same samples.
DATA_SEGMENT = 500


# ------------------------------------------------------------------------------------- threads
_OPENBLAS_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def _loaded_openblas() -> list[Any]:
    """ctypes handles of the OpenBLAS libraries loaded in this process (Linux; else none)."""
    import ctypes

    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:  # noqa: PTH123
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return []
    return [ctypes.CDLL(path) for path in sorted(paths)]


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the block with every loaded OpenBLAS on one thread (restored afterwards).

    The sweep executor pins worker processes through the environment; this covers in-process
    callers (``solve``, ``bench``). The batched matmuls here are small, and a multithreaded
    BLAS on two contended cores was 10× slower in a measurement made here (140 against 13.5 ms
    per step).

    Returns
    -------
    contextlib.AbstractContextManager
        A context manager (a no-op where no OpenBLAS is loaded or it is not Linux).

    Examples
    --------
    >>> from sims.superposition import TrainConfig, single_threaded_blas, train_models
    >>> with single_threaded_blas():
    ...     result = train_models(TrainConfig(n=10, widths=(3,), steps=20, batch=16), rng=0)
    >>> result.W[0].shape
    (10, 3)
    """
    restore = []
    for lib in _loaded_openblas():
        for name in _OPENBLAS_SETTERS:
            setter = getattr(lib, name, None)
            getter = getattr(lib, name.replace("set_num", "get_num"), None)
            if setter is not None and getter is not None:
                restore.append((setter, getter()))
                setter(1)
                break
    try:
        yield
    finally:
        for setter, threads in restore:
            setter(threads)


# ---------------------------------------------------------------------------------------- data
@dataclass(frozen=True)
class SparseBatch:
    """A batch of B samples in coordinate form: x[rows[k], cols[k]] = values[k], zero elsewhere
    (rows sorted)."""

    #: (nnz,) int
    rows: Any
    #: (nnz,) int
    cols: Any
    #: (nnz,) float
    values: Any
    #: (B, n)
    shape: tuple[int, int]

    def dense(self) -> Any:
        xp = array_namespace(self.values)
        x = xp.zeros(self.shape, dtype=self.values.dtype)
        x[self.rows, self.cols] = self.values
        return x


def _nonzero_batch(active: Any, values: Any) -> SparseBatch:
    xp = array_namespace(values)
    rows, cols = xp.nonzero(active)
    return SparseBatch(rows, cols, values[rows, cols], tuple(active.shape))


def sample_batch(p: Any, batch: int, rng: Any) -> SparseBatch:
    """B samples of x_i = u_i v_i from one uniform draw per entry (U < p_i ⇒ x_i = 2U/p_i).

    Conditional on U < p_i, U/p_i ~ U(0, 1), so 2U/p_i ~ U(0, 2) independently of the event:
    one draw gives both the Bernoulli(p_i) and the U(0, 2) value.

    Parameters
    ----------
    p : array (n,)
        Feature frequencies, an array of the backend (numpy or cupy); its dtype is the samples'.
    batch : int
        Samples B.
    rng : numpy.random.Generator or cupy.random.Generator
        The backend's generator (numpy or cupy ``default_rng``).

    Returns
    -------
    SparseBatch
        The (B, n) batch in coordinate form.

    Raises
    ------
    ValueError
        Naming ``p`` unless it is a non-empty 1-D float32 or float64 array of the backend with
        every entry in [0, 1], or ``batch`` unless it is an integer ≥ 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition import sample_batch
    >>> batch = sample_batch(np.array([0.9, 0.5, 0.1]), 1000, np.random.default_rng(0))
    >>> batch.shape, (batch.dense() > 0).mean(axis=0).round(2).tolist()
    ((1000, 3), [0.9, 0.51, 0.1])
    >>> bool(0 < batch.values.min() and batch.values.max() < 2)
    True
    """
    if (
        isinstance(p, np.generic)
        or not hasattr(p, "shape")
        or not hasattr(p, "dtype")
        or len(p.shape) != 1
        or p.shape[0] == 0
        or p.dtype not in (np.float32, np.float64)  # the dtypes the generators draw
    ):
        raise ValueError(
            "p must be a non-empty 1-D float32 or float64 array of the backend "
            f"(got {type(p).__name__} of shape {getattr(p, 'shape', None)})"
        )
    if not ((p >= 0) & (p <= 1)).all():  # NaN too
        raise ValueError("p must lie in [0, 1]")
    _domain.integer("batch", batch, minimum=1)
    u = rng.random((batch, p.shape[0]), dtype=p.dtype)  # (B, n)
    active = u < p
    rows, cols = array_namespace(p).nonzero(active)
    return SparseBatch(rows, cols, 2 * u[rows, cols] / p[cols], tuple(u.shape))


def sample_batch_two_draws(p: Any, batch: int, rng: Any) -> SparseBatch:
    """The distribution of :func:`sample_batch` from separate Bernoulli and uniform draws (the
    reference's way).

    Parameters
    ----------
    p : array (n,)
        Feature frequencies, an array of the backend.
    batch : int
        Samples B.
    rng : numpy.random.Generator or cupy.random.Generator
        The backend's generator.

    Returns
    -------
    SparseBatch
        The (B, n) batch in coordinate form.

    Raises
    ------
    ValueError
        Naming ``p`` unless it is a non-empty 1-D float32 or float64 array of the backend with
        every entry in [0, 1], or ``batch`` unless it is an integer ≥ 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition import sample_batch_two_draws
    >>> batch = sample_batch_two_draws(np.array([0.9, 0.5, 0.1]), 1000, np.random.default_rng(0))
    >>> (batch.dense() > 0).mean(axis=0).round(2).tolist()
    [0.9, 0.51, 0.1]
    """
    if isinstance(p, np.generic) or not is_array_api_obj(p):
        raise ValueError(f"p must be a 1-D array of the backend (got {type(p).__name__})")
    xp = array_namespace(p)  # checked in p's own namespace: numpy or cupy
    if p.dtype not in (xp.float32, xp.float64):  # the dtypes the generators draw
        raise ValueError(f"p must be float32 or float64 (got dtype {p.dtype})")
    if p.ndim != 1 or p.shape[0] == 0:
        raise ValueError(f"p must be a non-empty 1-D array (got shape {tuple(p.shape)})")
    bad = ~((p >= 0) & (p <= 1))  # NaN too
    if bool(xp.any(bad)):
        i = int(xp.nonzero(bad)[0][0])
        raise ValueError(f"p must lie in [0, 1] (got {float(p[i])!r} at index {i})")
    batch = _domain.integer("batch", batch, minimum=1)
    shape = (batch, p.shape[0])
    active = rng.random(shape, dtype=p.dtype) < p  # (B, n)
    values = 2 * rng.random(shape, dtype=p.dtype)  # (B, n)
    return _nonzero_batch(active, values)


def _sparse_matrix(batch: SparseBatch, xp: Any) -> Any:
    """``batch`` as a CSR matrix of the backend (scipy or cupyx)."""
    if xp.__name__.endswith("cupy"):
        from cupyx.scipy import sparse
    else:
        from scipy import sparse
    return sparse.csr_matrix((batch.values, (batch.rows, batch.cols)), shape=batch.shape)


# ---------------------------------------------------------------------------- loss and gradient
def loss_and_grad(
    W: Any, b: Any, batch: SparseBatch, *, with_loss: bool = True
) -> tuple[Any, Any, Any]:
    r"""Batch-mean loss of every model and its gradient in (W, b).

    Shapes: W (K, n, m), b (K, n). With H = XW (K, B, m), P = H Wᵀ + b (K, B, n) and
    R = 1[P > 0]·(ReLU(P) − X):

    .. math:: L_k = \frac1B \sum_{b,i} (\mathrm{ReLU}(P) - X)^2_{kbi},\quad
              \nabla_W L = \frac2B\left(X^\top (R W) + R^\top H\right),\quad
              \nabla_b L = \frac2B \sum_b R.

    Only one dense pass over (K, B, n) beyond the matmuls: the bias is folded into the matmul
    and X (≈ E non-zeros per row) enters through a sparse matrix and a gather at its non-zeros.

    Parameters
    ----------
    W : array (K, n, m)
        The models' weights (numpy or cupy).
    b : array (K, n)
        The models' biases.
    batch : SparseBatch
        The samples X (B, n).
    with_loss : bool
        Whether to compute the loss too.

    Returns
    -------
    loss : array (K,) or None
        L_k (None when not ``with_loss``).
    grad_W : array (K, n, m)
        The gradient in W.
    grad_b : array (K, n)
        The gradient in b.

    Raises
    ------
    ValueError
        Naming ``batch`` unless it is a :class:`SparseBatch`, ``W`` unless it is a float32 or
        float64 array (K, n, m) with n the batch's features, or ``b`` unless it is an array
        (K, n) of W's dtype. Their values are not checked: a diverged model's loss is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition import loss_and_grad, sample_batch
    >>> batch = sample_batch(np.array([0.9, 0.5, 0.1]), 4, np.random.default_rng(0))
    >>> W = np.stack([np.eye(3)[:, :2], np.zeros((3, 2))])  # two models, m = 2
    >>> loss, grad_W, grad_b = loss_and_grad(W, np.zeros((2, 3)), batch)
    >>> x = batch.dense()
    >>> bool(np.isclose(loss[1], (x**2).sum() / 4))  # W = 0, b = 0 outputs 0: the loss is ‖x‖²
    True
    >>> bool(np.isclose(loss[0], (x[:, 2] ** 2).sum() / 4))  # W Wᵀ copies features 0 and 1
    True
    >>> grad_W.shape, grad_b.shape
    ((2, 3, 2), (2, 3))
    """
    if not isinstance(batch, SparseBatch) or len(batch.shape) != 2:
        raise ValueError(f"batch must be a SparseBatch (got {type(batch).__name__})")
    if (
        not hasattr(W, "shape")
        or not hasattr(W, "dtype")
        or len(W.shape) != 3
        or W.shape[1] != batch.shape[1]
        or W.dtype not in (np.float32, np.float64)
    ):
        raise ValueError(
            f"W must be a float array (K, n, m) with n = {batch.shape[1]} "
            f"(got {type(W).__name__} of shape {getattr(W, 'shape', None)})"
        )
    if not hasattr(b, "shape") or tuple(b.shape) != tuple(W.shape[:2]) or b.dtype != W.dtype:
        raise ValueError(f"b must be an array {tuple(W.shape[:2])} of W's dtype {W.dtype}")
    xp = array_namespace(W, b)
    n_models, n, m = W.shape
    n_batch = batch.shape[0]
    X = _sparse_matrix(batch, xp)  # (B, n)
    H = xp.reshape(
        X @ xp.reshape(xp.permute_dims(W, (1, 0, 2)), (n, n_models * m)), (n_batch, n_models, m)
    )
    H = xp.permute_dims(H, (1, 0, 2))  # (K, B, m)
    ones = xp.ones((n_models, n_batch, 1), dtype=W.dtype)
    H_aug = xp.concat([H, ones], axis=2)  # (K, B, m+1)
    W_aug = xp.concat([W, b[:, :, None]], axis=2)  # (K, n, m+1)
    R = xp.matmul(H_aug, xp.permute_dims(W_aug, (0, 2, 1)))  # (K, B, n): P = H Wᵀ + b
    R = xp.maximum(R, xp.zeros((), dtype=R.dtype))  # ReLU(P)
    at_x = R[:, batch.rows, batch.cols]  # (K, nnz)
    missed = at_x <= 0  # active features the model outputs 0 for: cost x², no gradient
    R[:, batch.rows, batch.cols] = xp.where(missed, at_x, at_x - batch.values)
    loss = None
    if with_loss:
        loss = (
            xp.sum(xp.reshape(R * R, (n_models, -1)), axis=1)
            + xp.sum(xp.where(missed, batch.values * batch.values, 0), axis=1)
        ) / n_batch  # (K,)
    RW = xp.matmul(R, W)  # (K, B, m)
    XtRW = X.T @ xp.reshape(xp.permute_dims(RW, (1, 0, 2)), (n_batch, n_models * m))  # (n, K·m)
    RtH = xp.matmul(xp.permute_dims(R, (0, 2, 1)), H_aug)  # (K, n, m+1); last column Σ_b R
    scale = 2.0 / n_batch
    grad_W = scale * (xp.permute_dims(xp.reshape(XtRW, (n, n_models, m)), (1, 0, 2)) + RtH[..., :m])
    return loss, grad_W, scale * RtH[..., m]


# -------------------------------------------------------------------------------------- training
def lr_schedule(step: int, steps: int, peak: float, warmup: int) -> float:
    r"""η_t at the 0-based step t, as the authors' ``get_lr`` (liuyz0/SuperpositionScaling,
    ``exp/exp-10.py`` and ``exp/exp-17.py``), which counts steps from s = t + 1:

    .. math:: \eta_t = \begin{cases} \eta\, s/w & s < w \\
              \eta_{min} + \tfrac12(\eta - \eta_{min})(1 + \cos(\pi (s - w)/(T - w)))
              & s \ge w \end{cases}, \qquad \eta_{min} = 0.05\,\eta.

    Linear warm-up reaches the peak η at t = w − 1; the cosine then runs down to η_min, reached
    exactly at the last step t = T − 1.

    Parameters
    ----------
    step : int
        The 0-based step t.
    steps : int
        Total steps T.
    peak : float
        Peak learning rate η.
    warmup : int
        Warm-up steps w.

    Returns
    -------
    float
        η_t.

    Raises
    ------
    ValueError
        Naming ``steps`` unless it is an integer ≥ 1, ``step`` unless it is an integer in
        [0, ``steps`` − 1], ``peak`` unless it is positive, or ``warmup`` unless it is an
        integer ≥ 0.

    Examples
    --------
    >>> from sims.superposition import lr_schedule
    >>> [round(lr_schedule(t, 10, 1.0, 3), 3) for t in range(10)]
    [0.333, 0.667, 1.0, 0.953, 0.821, 0.631, 0.419, 0.229, 0.097, 0.05]
    """
    _domain.integer("steps", steps, minimum=1)
    _domain.integer("step", step, minimum=0)
    if not step < steps:
        raise ValueError(f"steps must exceed step (got steps={steps!r}, step={step!r})")
    _domain.real("peak", peak, minimum=0.0, open_low=True)
    _domain.integer("warmup", warmup, minimum=0)
    s = step + 1
    if s < warmup:
        return peak * s / warmup
    low = FINAL_LR_FRACTION * peak
    progress = (s - warmup) / max(1, steps - warmup)
    return low + 0.5 * (peak - low) * (1.0 + math.cos(math.pi * progress))


@dataclass(frozen=True)
class TrainConfig:
    """K toy models sharing n and p (and so one data stream), each with its width m_k and decay γ_k.

    Models of different widths share one (K, n, max m) tensor: the columns beyond m_k start at
    zero and stay zero (their gradient, decay and Adam step all vanish), so each model trains
    exactly as it would alone.

    Attributes
    ----------
    n : int
        Features.
    widths : tuple of int
        Hidden width m_k of each model (length K, or 1 to share it).
    gammas : tuple of float
        Weight decay γ_k of each model (negative: the paper's growth term; length K or 1).
    alpha : float
        Paper exponent of the frequencies (p_i ∝ i^−α for ``law="power"``).
    steps, batch : int
        Optimiser steps and samples per step (fresh samples every step).
    lr : float
        Peak learning rate: of W and b (``lr_groups="shared"``), or the base of W's
        (``"per-group"``).
    lr_groups : str
        ``shared`` (default): W and b both peak at ``lr``, as the small sweeps behind every claim
        here (``exp-10``, ``exp-15``: n = 1000, lr 1e-2). ``per-group``: W peaks at
        lr·(8/m)^{1/4} and b at 2/m, as the large n = 10240 runs (``exp-17``, run with
        lr = 0.02, :data:`PER_GROUP_BASE_LR`). See :meth:`peak_lrs`.
    warmup_fraction : float
        Share of the steps in linear warm-up.
    density : float
        Activation density E = Σ p_i.
    law : str
        ``power``, ``exponential`` or ``linear`` (:func:`theory.superposition.feature_frequencies`).
    eval_batches : int
        Fresh batches for the final loss (≥ 20: fewer leave it noisy).
    dtype : str
        ``float32`` (as the paper) or ``float64``.
    """

    n: int
    widths: tuple[int, ...]
    gammas: tuple[float, ...] = (-1.0,)
    alpha: float = 1.0
    steps: int = 4000
    batch: int = 512
    lr: float = 1e-2
    lr_groups: str = "shared"
    warmup_fraction: float = 0.1
    density: float = 1.0
    law: str = "power"
    eval_batches: int = 20
    dtype: str = "float32"

    def __post_init__(self) -> None:
        object.__setattr__(self, "widths", tuple(self.widths))
        object.__setattr__(self, "gammas", tuple(float(g) for g in self.gammas))
        for name in ("n", "steps", "batch", "eval_batches"):
            _check_positive_int(name, getattr(self, name))
        if len(self.widths) == 0:
            raise ValueError("widths must be a non-empty list of positive integers")
        for m in self.widths:
            _check_positive_int("widths", m)
        if len(self.gammas) == 0 or not all(math.isfinite(g) for g in self.gammas):
            raise ValueError(
                f"gammas must be a non-empty list of finite numbers (got {self.gammas!r})"
            )
        if len({len(self.widths), len(self.gammas)} - {1}) > 1:
            raise ValueError(
                f"widths and gammas must have the same length or length 1 "
                f"(got {len(self.widths)} and {len(self.gammas)})"
            )
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be > 0 (got {self.lr!r})")
        if self.lr_groups not in LR_GROUPS:
            raise ValueError(
                f"lr_groups must be one of {', '.join(LR_GROUPS)} (got {self.lr_groups!r})"
            )
        if not 0 <= self.warmup_fraction < 1:
            raise ValueError(f"warmup_fraction must be in [0, 1) (got {self.warmup_fraction!r})")
        if self.dtype not in ("float32", "float64"):
            raise ValueError(f"dtype must be float32 or float64 (got {self.dtype!r})")

    @property
    def n_models(self) -> int:
        return max(len(self.widths), len(self.gammas))

    def model_widths(self) -> tuple[int, ...]:
        return self.widths * self.n_models if len(self.widths) == 1 else self.widths

    def model_gammas(self) -> tuple[float, ...]:
        return self.gammas * self.n_models if len(self.gammas) == 1 else self.gammas

    def peak_lrs(self) -> tuple[np.ndarray, np.ndarray]:
        """Peak learning rates (η_W, η_b) of every model, (K,) each.

        ``shared``: η_W = η_b = lr. ``per-group`` (the authors' ``exp-17``, Fig. 1):
        η_W = lr·(8/m)^{1/4} and η_b = 2/m, so lr = 0.02 gives W 0.02 at m = 8 and 0.01 at
        m = 128.
        """
        widths = np.asarray(self.model_widths(), dtype=np.float64)
        if self.lr_groups == "shared":
            return np.full(widths.shape, self.lr), np.full(widths.shape, self.lr)
        return self.lr * (8 / widths) ** 0.25, 2 / widths

    def frequencies(self) -> np.ndarray:
        return feature_frequencies(self.n, self.alpha, law=self.law, density=self.density)


def _check_positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer (got {value!r})")


@dataclass(frozen=True)
class TrainResult:
    """Final state and diagnostics of K models (numpy arrays on the host)."""

    #: K arrays (n, m_k)
    W: list[np.ndarray]
    #: (K, n)
    b: np.ndarray
    #: (K,) mean over eval_batches fresh batches
    loss: np.ndarray
    #: (K,) standard error over the eval batches
    loss_se: np.ndarray
    #: (n,)
    p: np.ndarray

    @property
    def norms(self) -> np.ndarray:
        return np.stack([np.linalg.norm(w, axis=1) for w in self.W])  # (K, n)

    @property
    def phi_half(self) -> np.ndarray:
        """φ_{1/2}: fraction of rows with ‖W_i‖ > 1/2 (represented features)."""
        return np.mean(self.norms > REPRESENTED_NORM, axis=1)

    @property
    def phi_one(self) -> np.ndarray:
        """φ_1: fraction of rows with ‖W_i‖ > 1 (strongly represented)."""
        return np.mean(self.norms > STRONG_NORM, axis=1)


def _decay(W: Any, gammas: Any, lr: float) -> Any:
    """Decoupled decay of W (before the Adam step): (1 − ηγ)W for γ ≥ 0, and for γ < 0
    W_i − η|γ|(1 − 1/‖W_i‖)W_i, a gradient step on (|γ|/2)(‖W_i‖ − 1)²."""
    xp = array_namespace(W, gammas)
    gamma = gammas[:, None, None]  # (K, 1, 1)
    norms = xp.linalg.vector_norm(W, axis=2, keepdims=True)  # (K, n, 1)
    inverse = 1 / xp.maximum(norms, xp.asarray(1e-12, dtype=W.dtype))
    factor = xp.where(gamma < 0, -gamma * (1 - inverse), gamma)  # (K, n, 1)
    return W - lr * factor * W


def _initial_weights(config: TrainConfig, host: np.random.Generator) -> tuple[np.ndarray, ...]:
    """W_k ~ N(0, 1/m_k) on its first m_k columns (zeros beyond), b ~ N(0, 1)."""
    widths = np.asarray(config.model_widths())
    m_max = int(widths.max())
    W = host.normal(size=(config.n_models, config.n, m_max)) / np.sqrt(widths)[:, None, None]
    W *= np.arange(m_max)[None, None, :] < widths[:, None, None]
    return W, host.normal(size=(config.n_models, config.n))


def _moved(batch: SparseBatch, xp: Any) -> SparseBatch:
    """``batch`` (drawn on the host) as arrays of the backend ``xp``."""
    rows, cols, values = (xp.asarray(a) for a in (batch.rows, batch.cols, batch.values))
    return SparseBatch(rows, cols, values, batch.shape)


def _segment_rng(backend: Any, base: int, segment: int) -> Any:
    """The backend's data generator for segment ``segment`` of the run seeded by ``base``."""
    state = np.random.SeedSequence(base, spawn_key=(segment,)).generate_state(1, np.uint64)[0]
    return backend.rng(int(state >> np.uint64(1)))


_STATE = ("W", "b", "m1_W", "m2_W", "m1_b", "m2_b")


def _run_key(config: TrainConfig, base: int, backend: str) -> str:
    """What a checkpoint must match to be resumed: the config, the run's seed and the backend."""
    from sims._jsonio import dumps

    spec = dumps({"config": asdict(config), "seed": base, "backend": backend})
    return hashlib.sha256(spec.encode()).hexdigest()


def _save_checkpoint(path: Path, key: str, step: int, state: dict[str, Any]) -> None:
    """Write (key, step, state) to ``path`` atomically (temporary file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with tmp.open("wb") as handle:
        np.savez(
            handle,
            key=np.array(key),
            step=np.array(step),
            **{name: to_numpy(value) for name, value in state.items()},
        )
    tmp.replace(path)


def _load_checkpoint(path: Path, key: str, xp: Any) -> tuple[int, dict[str, Any]] | None:
    """(step, state) from ``path``, or None when there is none; ValueError when it belongs to
    another run."""
    for stale in path.parent.glob(f".{path.name}.tmp-*"):
        stale.unlink(missing_ok=True)
    if not path.exists():
        return None
    with np.load(path) as saved:
        if str(saved["key"]) != key:
            raise ValueError(f"checkpoint {path} belongs to another run (config, seed or backend)")
        return int(saved["step"]), {name: xp.asarray(saved[name]) for name in _STATE}


def _adamw_step(
    state: dict[str, Any], grads: dict[str, Any], step: int, lrs: dict[str, Any], gammas: Any
) -> None:
    """One step of the paper's AdamW on ``state`` (in place): decoupled decay of W at its
    current learning rate, then Adam with bias correction at the 1-based step ``step + 1``."""
    xp = array_namespace(state["W"])
    beta1, beta2 = ADAM_BETAS
    state["W"] = _decay(state["W"], gammas, lrs["W"])
    corr1, corr2 = 1 - beta1 ** (step + 1), 1 - beta2 ** (step + 1)
    for name in ("W", "b"):
        grad = grads[name]
        m1 = beta1 * state[f"m1_{name}"] + (1 - beta1) * grad
        m2 = beta2 * state[f"m2_{name}"] + (1 - beta2) * grad * grad
        state[f"m1_{name}"], state[f"m2_{name}"] = m1, m2
        state[name] = state[name] - lrs[name] * (m1 / corr1) / (xp.sqrt(m2 / corr2) + ADAM_EPS)


def train_models(
    config: TrainConfig,
    rng: Any = None,
    *,
    backend: str = "numpy",
    checkpoint: str | os.PathLike[str] | None = None,
) -> TrainResult:
    """Train the K models of ``config`` from W ~ N(0, 1/m), b ~ N(0, 1) and evaluate them.

    ``rng`` seeds everything: the initialisation and a base seed from which segment k of the
    data stream (steps [kS, (k+1)S), S = :data:`DATA_SEGMENT`) gets its own generator, a numpy
    one on the host whatever the backend (a GPU backend trains on the same draws, moved);
    the final loss is the mean over ``eval_batches`` fresh batches of the trained models, from
    the segment after the last.

    With ``checkpoint`` (a file path), the state (W, b, the four Adam moments and the number of
    steps done) is written there atomically after every segment, and a call that finds the file
    resumes from it: a run killed at any step and run again gives bit-identical results.

    Parameters
    ----------
    config : TrainConfig
        The models and their training.
    rng : numpy.random.Generator, int or None
        Seeds the run.
    backend : str
        Array backend (``sims._backend.get_backend``): ``"numpy"`` or ``"cupy"``.
    checkpoint : str, os.PathLike or None
        File of the checkpoints, or None for none.

    Returns
    -------
    TrainResult
        The trained weights and biases on the host, the final losses and their s.e., and p.

    Raises
    ------
    ValueError
        When ``checkpoint`` holds a file from another config, seed or backend.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition import TrainConfig, train_models
    >>> result = train_models(TrainConfig(n=20, widths=(2, 5), steps=200, batch=64), rng=0)
    >>> [w.shape for w in result.W], result.loss.shape
    ([(20, 2), (20, 5)], (2,))
    >>> bool(result.loss[1] < result.loss[0])  # the wider model represents more features
    True
    """
    bk = get_backend(backend)
    xp = bk.xp
    dtype = getattr(xp, config.dtype)
    host = np.random.default_rng(rng)
    W0, b0 = _initial_weights(config, host)
    base = int(host.integers(2**63))
    W, b = xp.asarray(W0, dtype=dtype), xp.asarray(b0, dtype=dtype)
    state = {"W": W, "b": b, "m1_W": xp.zeros_like(W), "m2_W": xp.zeros_like(W)}
    state |= {"m1_b": xp.zeros_like(b), "m2_b": xp.zeros_like(b)}
    path = None if checkpoint is None else Path(checkpoint)
    key = _run_key(config, base, backend)
    done = 0
    if path is not None and (saved := _load_checkpoint(path, key, xp)) is not None:
        done, state = saved
    p_host = config.frequencies()
    p = xp.asarray(p_host, dtype=dtype)
    if backend != "numpy":  # the data are drawn on the host, as on numpy, and moved
        host_bk, p_drawn = get_backend(), to_numpy(p)
    gammas = xp.asarray(np.asarray(config.model_gammas()), dtype=dtype)
    peak_W, peak_b = config.peak_lrs()
    warmup = round(config.warmup_fraction * config.steps)
    segments = -(-config.steps // DATA_SEGMENT)
    for segment in range(-(-done // DATA_SEGMENT), segments):  # done: 0, kS or T
        data_rng = _segment_rng(bk if backend == "numpy" else host_bk, base, segment)
        last = min(config.steps, (segment + 1) * DATA_SEGMENT)
        for step in range(segment * DATA_SEGMENT, last):
            factor = lr_schedule(step, config.steps, 1.0, warmup)
            lrs = {
                "W": xp.asarray(factor * peak_W, dtype=dtype)[:, None, None],
                "b": xp.asarray(factor * peak_b, dtype=dtype)[:, None],
            }
            batch = (
                sample_batch(p, config.batch, data_rng)
                if backend == "numpy"
                else _moved(sample_batch(p_drawn, config.batch, data_rng), xp)
            )
            _, grad_W, grad_b = loss_and_grad(state["W"], state["b"], batch, with_loss=False)
            _adamw_step(state, {"W": grad_W, "b": grad_b}, step, lrs, gammas)
        if path is not None:
            _save_checkpoint(path, key, last, state)
    W, b = state["W"], state["b"]
    eval_rng = _segment_rng(bk if backend == "numpy" else host_bk, base, segments)
    losses = np.stack(
        [
            to_numpy(
                loss_and_grad(
                    W,
                    b,
                    sample_batch(p, config.batch, eval_rng)
                    if backend == "numpy"
                    else _moved(sample_batch(p_drawn, config.batch, eval_rng), xp),
                )[0]
            )
            for _ in range(config.eval_batches)
        ]
    ).astype(np.float64)  # (eval_batches, K)
    W_host = to_numpy(W).astype(np.float64)
    se = (
        losses.std(axis=0, ddof=1) / math.sqrt(config.eval_batches)
        if config.eval_batches > 1
        else np.zeros(config.n_models)
    )
    return TrainResult(
        W=[W_host[k, :, :m] for k, m in enumerate(config.model_widths())],
        b=to_numpy(b).astype(np.float64),
        loss=losses.mean(axis=0),
        loss_se=se,
        p=p_host,
    )


# ------------------------------------------------------------------------------------ sweep task
def _overlap_stats(rows: np.ndarray) -> dict[str, float | None]:
    from theory.superposition import squared_overlaps

    if rows.shape[0] < 2:
        return {"mean": None, "var": None, "count": int(rows.shape[0])}
    sq = squared_overlaps(rows)
    return {"mean": float(sq.mean()), "var": float(sq.var()), "count": int(rows.shape[0])}


def train_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: train ``TrainConfig(**params)`` and summarise every model.

    Inside a cached sweep the training checkpoints to ``train.npz`` in the task's folder
    (:func:`sims.sweep.task_checkpoint_dir`), so a killed sweep resumes mid-task.

    Parameters
    ----------
    params : dict
        The fields of :class:`TrainConfig`, and optionally ``backend`` (default ``"numpy"``).
    rng : numpy.random.Generator
        Seeds the training.

    Returns
    -------
    dict
        ``{"models": [...]}``, per model its width ``m`` and ``gamma``, the final ``loss`` (and
        ``loss_se``), ``phi_half`` (φ_{1/2}), ``phi_one`` (φ_1), the row ``norms`` and the
        squared-overlap statistics (``mean``, ``var``, ``count``) of the normalised rows: all rows
        (``overlap_all``) and rows with norm > 1 (``overlap_strong``).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.superposition import train_task
    >>> params = {"n": 20, "widths": [5], "gammas": [-1.0, 0.0], "steps": 200, "batch": 64}
    >>> out = train_task(params, np.random.default_rng(0))
    >>> [(model["m"], model["gamma"], model["norms"].shape) for model in out["models"]]
    [(5, -1.0, (20,)), (5, 0.0, (20,))]
    """
    params = dict(params)
    backend = params.pop("backend", "numpy")
    config = TrainConfig(**params)
    folder = task_checkpoint_dir()
    checkpoint = None if folder is None else folder / "train.npz"
    result = train_models(config, rng, backend=backend, checkpoint=checkpoint)
    norms = result.norms
    models = []
    for k, (m, gamma) in enumerate(zip(config.model_widths(), config.model_gammas(), strict=True)):
        models.append(
            {
                "m": m,
                "gamma": gamma,
                "loss": float(result.loss[k]),
                "loss_se": float(result.loss_se[k]),
                "phi_half": float(result.phi_half[k]),
                "phi_one": float(result.phi_one[k]),
                "norms": norms[k],
                "overlap_strong": _overlap_stats(result.W[k][norms[k] > STRONG_NORM]),
                "overlap_all": _overlap_stats(result.W[k]),
            }
        )
    return {"models": models}
