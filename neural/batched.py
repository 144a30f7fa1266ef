"""K independent seeds of one torch model trained as one batched model (a leading seed axis).

The one-seed model definitions are reused unchanged: the K models' parameters are stacked along
a new leading axis (:func:`torch.func.stack_module_state`) and the one-seed ``forward`` is mapped
over that axis with :func:`torch.func.vmap` of :func:`torch.func.functional_call`. Seed k's
output is then the one-seed model's output with seed k's parameters and seed k's inputs, by
construction; only the floating-point reduction order of the batched kernels can differ.

What keeps the seeds independent when they are trained together:

- the loss is the *sum* of the per-seed losses, L = Σ_k L_k, so ∂L/∂θ_k = ∂L_k/∂θ_k: seed j's
  loss (a NaN included) never reaches seed k's gradient;
- Adam and AdamW act elementwise on each parameter tensor, so one optimiser over the stacked
  tensors keeps each seed's moments and update exactly as K separate optimisers would (the step
  count is shared, which is the same as long as every seed steps);
- gradient clipping by global norm is per seed (:func:`clip_grad_norm_per_seed_`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
from torch import nn

__all__ = ["SeedStack", "clip_grad_norm_per_seed_", "seed_norms"]


class SeedStack:
    """K models of one architecture with their parameters and buffers stacked along a leading
    seed axis, on ``device``.

    Parameters
    ----------
    models
        The K one-seed models, already initialised (each with its own seed); they are not
        modified. They must have the same architecture (same parameter names and shapes).
    device
        Where the stacked parameters live (``"cpu"``, ``"cuda"``, a :class:`torch.device`).

    Notes
    -----
    ``stack(*args)`` evaluates y_k = f(θ_k, x_k) for k = 1..K, f the one-seed ``forward`` and
    x_k the k-th slice of every argument along axis 0 (``in_dims`` says otherwise: ``None``
    for an argument shared by every seed); :meth:`per_seed` maps any function of the model.
    The stacked parameters are leaf tensors, so an optimiser over :attr:`params` trains all
    seeds at once.

    Examples
    --------
    >>> import torch
    >>> from torch import nn
    >>> from neural.batched import SeedStack
    >>> models = []
    >>> for seed in (0, 1):
    ...     _ = torch.manual_seed(seed)
    ...     models.append(nn.Linear(3, 2))
    >>> stack = SeedStack(models)
    >>> {name: tuple(p.shape) for name, p in stack.params.items()}
    {'weight': (2, 2, 3), 'bias': (2, 2)}
    >>> x = torch.randn(2, 5, 3, generator=torch.Generator().manual_seed(0))  # (K, B, 3)
    >>> y = stack(x)  # seed k on x[k]
    >>> tuple(y.shape), torch.allclose(y[1], models[1](x[1]), atol=1e-6)
    ((2, 5, 2), True)
    >>> tuple(stack(x[0], in_dims=None).shape)  # one input shared by both seeds
    (2, 5, 2)
    """

    def __init__(self, models: Sequence[nn.Module], device: str | torch.device = "cpu") -> None:
        if len(models) == 0:
            raise ValueError("models must hold at least one model")
        params, buffers = torch.func.stack_module_state(list(models))
        #: Name -> stacked parameter of shape ``(K, *shape)``, a leaf that requires grad.
        self.params = {k: v.detach().to(device).requires_grad_() for k, v in params.items()}
        #: Name -> stacked buffer of shape ``(K, *shape)``.
        self.buffers = {k: v.to(device) for k, v in buffers.items()}
        #: The number of seeds K.
        self.n_seeds = len(models)
        self._base = copy.deepcopy(models[0]).to("meta")  # the architecture, without storage

    def parameters(self) -> Iterator[torch.Tensor]:
        """The stacked parameters (for an optimiser)."""
        return iter(self.params.values())

    def per_seed(self, fn: Callable[..., Any], *args: Any, in_dims: int | tuple | None = 0) -> Any:
        """``fn(model_k, *args_k)`` for every seed k, stacked along axis 0 (one vmapped call):
        ``model_k`` runs the one-seed model with seed k's parameters and buffers, ``args_k`` is
        the k-th slice of each argument (``in_dims`` as in :func:`torch.func.vmap`: ``None``
        passes an argument whole to every seed). E.g. ``per_seed(lambda m, x, y: loss(m(x), y),
        x, y)`` is the (K,) vector of per-seed losses."""

        def one(params: dict, buffers: dict, *xs: Any) -> Any:
            def model(*inputs: Any, **kwargs: Any) -> Any:
                return torch.func.functional_call(self._base, (params, buffers), inputs, kwargs)

            return fn(model, *xs)

        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        return torch.func.vmap(one, in_dims=(0, 0, *dims))(self.params, self.buffers, *args)

    def __call__(self, *args: Any, in_dims: int | tuple | None = 0) -> Any:
        """The one-seed ``forward`` of every seed on its slice of ``args``: :meth:`per_seed`
        of ``model_k(*args_k)``."""
        return self.per_seed(lambda model, *xs: model(*xs), *args, in_dims=in_dims)

    def load_into(self, model: nn.Module, seed: int) -> nn.Module:
        """Copy seed ``seed``'s parameters and buffers into ``model`` (a one-seed model of the
        same architecture, on any device) and return it."""
        if not 0 <= seed < self.n_seeds:
            raise ValueError(f"seed must be in [0, {self.n_seeds}) (got {seed})")
        stacked = self.params | self.buffers
        model.load_state_dict({k: stacked[k][seed].detach() for k in model.state_dict()})
        return model


def seed_norms(tensors: Sequence[torch.Tensor]) -> torch.Tensor:
    """Per seed k, the global 2-norm over all ``tensors`` (each (K, ...)):
    n_k = (Σ_t ‖t[k]‖²)^½, shape (K,).

    Parameters
    ----------
    tensors : sequence of torch.Tensor, each (K, ...)
        Stacked tensors (parameters or gradients) with the seed axis first.

    Returns
    -------
    torch.Tensor, (K,)
        Each seed's global 2-norm.

    Examples
    --------
    >>> import torch
    >>> from neural.batched import seed_norms
    >>> a = torch.tensor([[3.0, 0.0], [1.0, 1.0]])  # (K = 2, 2)
    >>> b = torch.tensor([[4.0], [1.0]])  # (2, 1)
    >>> [round(float(n), 4) for n in seed_norms([a, b])]  # √(9 + 16), √3
    [5.0, 1.7321]
    """
    per_tensor = [torch.linalg.vector_norm(t.reshape(t.shape[0], -1), dim=1) for t in tensors]
    return torch.linalg.vector_norm(torch.stack(per_tensor), dim=0)


def clip_grad_norm_per_seed_(params: Sequence[torch.Tensor], max_norm: float) -> torch.Tensor:
    """Clip each seed's gradient by its own global norm, in place, as
    :func:`torch.nn.utils.clip_grad_norm_` clips one model's: g_k ← g_k · min(1, c/(n_k + 10⁻⁶)),
    n_k = :func:`seed_norms` of the gradients, c = ``max_norm``. Returns n (K,), the norms
    before clipping (non-finite for a seed whose gradient is; that seed alone is affected).

    Parameters
    ----------
    params : sequence of torch.Tensor, each (K, ...)
        The stacked parameters (:attr:`SeedStack.params`); those without a gradient are skipped.
    max_norm : float
        c, the largest gradient norm a seed keeps.

    Returns
    -------
    torch.Tensor, (K,)
        n, each seed's gradient norm before clipping.

    Raises
    ------
    ValueError
        If no parameter has a gradient.

    Examples
    --------
    >>> import torch
    >>> from neural.batched import clip_grad_norm_per_seed_
    >>> p = torch.zeros(2, 2, requires_grad=True)
    >>> p.grad = torch.tensor([[3.0, 4.0], [0.3, 0.4]])  # seed norms 5 and 0.5
    >>> [round(float(n), 4) for n in clip_grad_norm_per_seed_([p], max_norm=1.0)]
    [5.0, 0.5]
    >>> [round(float(g), 4) for g in p.grad.flatten()]  # seed 0 scaled to norm 1, seed 1 kept
    [0.6, 0.8, 0.3, 0.4]
    """
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        raise ValueError("params have no gradients to clip")
    norms = seed_norms(grads)
    coef = (max_norm / (norms + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef.reshape(-1, *(1,) * (g.dim() - 1)))
    return norms
