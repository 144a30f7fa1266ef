"""The networks and critic of "1000 Layer Networks for Self-Supervised RL" (Wang et al., NeurIPS
2025; arXiv 2503.14858), with the ablation switches, signal-propagation probes and fixed-data
critic training (the model and the conventions are set out in docs/deep_crl.md).

Depth convention (the paper's): D counts the Dense layers inside the residual blocks only; an
encoder of depth D has an input layer Dense→LN→Swish, D/4 blocks of 4×(Dense→LN→Swish) with
h ← h + F(h) after the 4th activation, and a plain output Dense: D + 2 Dense layers in all.
D = 0 is the one-hidden-layer network. Weights U(±1/√fan_in) (PyTorch's default ``nn.Linear``
weight init, the same law as the reference's variance_scaling(1/3, fan_in, uniform)), biases zero
(trainable).

Where the CPU runs depart from the reference implementation (scaling-crl ``train.py``, flax) is a
named :class:`Config`: ``"cpu"`` (the default) or ``"reference"``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import nn

from sims.mazes import GridMaze, sample_future_pairs, serpentine_layout, successor_measure
from sims.sweep import task_checkpoint_dir

__all__ = [
    "CONFIGS",
    "LSE_PENALTY",
    "SQRT_EPS",
    "VARIANTS",
    "Config",
    "Critic",
    "CriticRun",
    "Encoder",
    "RankAgreement",
    "Variant",
    "checkpoint_path",
    "configured",
    "critic_loss",
    "energy_matrix",
    "get_config",
    "infonce_terms",
    "load_checkpoint",
    "paired_energy",
    "rank_agreement",
    "run_key",
    "save_checkpoint",
    "signal_at_init",
    "signal_task",
    "spearman_rows",
    "train_maze_critic",
    "with_constant_feature",
]

#: The paper's logsumexp penalty weight λ (as in the authors' code).
LSE_PENALTY = 0.1
#: ε inside the square root of ‖φ − ψ‖ (JaxGCRL's value; the scaling-crl critic has none).
SQRT_EPS = 1e-6


@dataclass(frozen=True)
class Variant:
    """An architecture switch set: residual connections, LayerNorm, activation, and whether the
    output embedding is L2-normalised."""

    #: Residual connections around each block of 4 layers.
    residual: bool = True
    #: LayerNorm after each Dense.
    layer_norm: bool = True
    #: ``"swish"`` or ``"relu"``.
    activation: str = "swish"
    #: L2-normalise the output embedding.
    normalize_embedding: bool = False
    #: ε of LayerNorm.
    layer_norm_eps: float = 1e-5


#: The paper's ablations (no LN, ReLU, no residual connections; Fig. 5 and the OpenReview
#: rebuttal) and our signal-propagation variants, by name.
VARIANTS = {
    "paper": Variant(),
    "relu": Variant(activation="relu"),
    "no_ln": Variant(layer_norm=False),
    "no_res": Variant(residual=False),
    "no_res_no_ln": Variant(residual=False, layer_norm=False),
    "normalized": Variant(normalize_embedding=True),
}


@dataclass(frozen=True)
class Config:
    """Settings in which our CPU runs and the reference implementation differ:

    - ``layer_norm_eps``: ε in LayerNorm's √(var + ε) (PyTorch's default 1e-5; flax's 1e-6);
    - ``alpha0``: initial entropy coefficient α (the reference starts at log α = 0, α = 1);
    - ``alpha_lr``: Adam learning rate of log α (the reference: 3e-4, as the actor and critic);
    - ``alpha_loss``: ``"log"`` minimises −log α·(log π + H̄), SAC's usual form, with
      ∂/∂log α = −(log π + H̄); ``"alpha"`` minimises α·(−log π − H̄), the reference's, with
      ∂/∂log α = α·(−log π − H̄) (log π held fixed in both; H̄ = −0.5|A| in both);
    - ``constant_feature``: append a constant 1 to every network input (see
      :func:`with_constant_feature`); the reference feeds the raw observations.

    The α fields matter only online (:mod:`neural.crl`).
    """

    #: ε in LayerNorm's √(var + ε).
    layer_norm_eps: float
    #: Initial entropy coefficient α.
    alpha0: float
    #: Adam learning rate of log α.
    alpha_lr: float
    #: ``"log"`` or ``"alpha"``: the α loss (see above).
    alpha_loss: str
    #: Append a constant 1 to every network input.
    constant_feature: bool


#: ``"cpu"`` (default) is tuned to the few thousand SGD steps a CPU run affords: α would need
#: ≈ log(1/0.05)/3e-4 ≈ 10⁴ Adam steps to fall from 1 to 0.05 at the reference's α lr, more than a
#: whole full-scale online run (6,400 steps), so it starts at 0.05 and moves 10× faster; the
#: constant input gives the zero-bias first layer a bias at init. ``"reference"`` is scaling-crl's.
CONFIGS = {
    "cpu": Config(
        layer_norm_eps=1e-5, alpha0=0.05, alpha_lr=3e-3, alpha_loss="log", constant_feature=True
    ),
    "reference": Config(
        layer_norm_eps=1e-6, alpha0=1.0, alpha_lr=3e-4, alpha_loss="alpha", constant_feature=False
    ),
}


def get_config(name: str) -> Config:
    """The :data:`CONFIGS` entry ``name``; ValueError naming ``config`` otherwise.

    Parameters
    ----------
    name : {"cpu", "reference"}
        The configuration.

    Returns
    -------
    Config
        ``CONFIGS[name]``.

    Raises
    ------
    ValueError
        If ``name`` is not a key of :data:`CONFIGS`.

    Examples
    --------
    >>> from neural.deep_crl import get_config
    >>> get_config("cpu").alpha0, get_config("reference").alpha_loss
    (0.05, 'alpha')
    """
    if name not in CONFIGS:
        raise ValueError(f"config must be one of {tuple(CONFIGS)}, got {name!r}")
    return CONFIGS[name]


def configured(variant: Variant, config: Config) -> Variant:
    """``variant`` with the LayerNorm ε of ``config``.

    Parameters
    ----------
    variant : Variant
        The architecture switches.
    config : Config
        The settings whose ``layer_norm_eps`` is taken.

    Returns
    -------
    Variant
        A copy of ``variant`` with that ε.

    Examples
    --------
    >>> from neural.deep_crl import CONFIGS, VARIANTS, configured
    >>> configured(VARIANTS["paper"], CONFIGS["reference"]).layer_norm_eps
    1e-06
    """
    return replace(variant, layer_norm_eps=config.layer_norm_eps)


def _dense(n_in: int, n_out: int) -> nn.Linear:
    layer = nn.Linear(n_in, n_out)  # weight U(±1/√fan_in)
    nn.init.zeros_(layer.bias)
    return layer


class _Layer(nn.Module):
    """Dense → LayerNorm (optional) → activation."""

    def __init__(self, n_in: int, width: int, variant: Variant) -> None:
        super().__init__()
        self.dense = _dense(n_in, width)
        self.norm = (
            nn.LayerNorm(width, eps=variant.layer_norm_eps) if variant.layer_norm else nn.Identity()
        )
        self.act = nn.SiLU() if variant.activation == "swish" else nn.ReLU()

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.act(self.norm(self.dense(h)))


class Encoder(nn.Module):
    """The paper's encoder: input layer, D/4 residual blocks of four layers, output
    Dense. ``trunk(x)`` returns (input-layer output, trunk output) for signal probes."""

    def __init__(self, n_in: int, n_out: int, depth: int, width: int, variant: Variant) -> None:
        super().__init__()
        if depth < 0 or depth % 4:
            raise ValueError(f"depth must be a non-negative multiple of 4 (got {depth})")
        if variant.activation not in ("swish", "relu"):
            raise ValueError(f"activation must be 'swish' or 'relu' (got {variant.activation!r})")
        self.variant = variant
        self.input_layer = _Layer(n_in, width, variant)
        self.blocks = nn.ModuleList(
            nn.Sequential(*(_Layer(width, width, variant) for _ in range(4)))
            for _ in range(depth // 4)
        )
        self.output = _dense(width, n_out)

    def trunk(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h_in = h = self.input_layer(x)  # (B, w)
        for block in self.blocks:
            h = h + block(h) if self.variant.residual else block(h)
        return h_in, h

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.output(self.trunk(x)[1])  # (B, n_out)
        return nn.functional.normalize(z, dim=-1) if self.variant.normalize_embedding else z


def energy_matrix(phi: torch.Tensor, psi: torch.Tensor) -> torch.Tensor:
    """F_ij = −‖φ_i − ψ_j‖₂ with ε inside the root (the paper prints the norm without the minus
    sign; the authors' code has it).

    Parameters
    ----------
    phi : torch.Tensor, (B, k)
        The state(-action) embeddings φ_i.
    psi : torch.Tensor, (B', k)
        The goal embeddings ψ_j.

    Returns
    -------
    torch.Tensor, (B, B')
        F_ij = −√(‖φ_i − ψ_j‖² + ε), ε = :data:`SQRT_EPS` (the squared distance from the
        expanded form, clamped at 0).

    Examples
    --------
    >>> import torch
    >>> from neural.deep_crl import energy_matrix
    >>> phi = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
    >>> psi = torch.tensor([[0.0, 0.0], [0.0, 4.0]])
    >>> [[round(float(x), 3) for x in row] for row in energy_matrix(phi, psi)]  # −√ε = −0.001
    [[-0.001, -4.0], [-5.0, -3.0]]
    """
    sq = phi.pow(2).sum(1)[:, None] + psi.pow(2).sum(1)[None, :] - 2 * phi @ psi.T  # (B, B)
    return -torch.sqrt(sq.clamp_min(0) + SQRT_EPS)


def paired_energy(phi: torch.Tensor, psi: torch.Tensor) -> torch.Tensor:
    """f_i = −‖φ_i − ψ_i‖₂ (the diagonal of :func:`energy_matrix`, for matched rows).

    Parameters
    ----------
    phi : torch.Tensor, (B, k)
        The state(-action) embeddings.
    psi : torch.Tensor, (B, k)
        The goal embeddings, row i matched with ``phi``'s row i.

    Returns
    -------
    torch.Tensor, (B,)
        f_i = −√(‖φ_i − ψ_i‖² + ε), ε = :data:`SQRT_EPS`.

    Examples
    --------
    >>> import torch
    >>> from neural.deep_crl import paired_energy
    >>> phi = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
    >>> psi = torch.tensor([[0.0, 0.0], [0.0, 4.0]])
    >>> [round(float(x), 3) for x in paired_energy(phi, psi)]
    [-0.001, -3.0]
    """
    return -torch.sqrt((phi - psi).pow(2).sum(-1) + SQRT_EPS)


def infonce_terms(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(forward InfoNCE, logsumexp penalty) of a batch of logits F (B, B) with positives on the
    diagonal: InfoNCE = mean_i[LSE_j F_ij − F_ii], penalty = mean_i (LSE_j F_ij)² (the paper's
    critic loss).

    Parameters
    ----------
    logits : torch.Tensor, (B, B)
        F, positives on the diagonal.

    Returns
    -------
    tuple of torch.Tensor
        The InfoNCE loss and the penalty, two scalars.

    Examples
    --------
    >>> import torch
    >>> from neural.deep_crl import infonce_terms
    >>> nce, lse2 = infonce_terms(torch.tensor([[0.0, -1.0], [-1.0, 0.0]]))
    >>> round(float(nce), 4), round(float(lse2), 4)  # log(1 + e⁻¹) and its square
    (0.3133, 0.0981)
    """
    lse = torch.logsumexp(logits, dim=1)  # (B,)
    return (lse - logits.diagonal()).mean(), lse.pow(2).mean()


def critic_loss(logits: torch.Tensor, penalty: float = LSE_PENALTY) -> torch.Tensor:
    """The CRL critic loss: InfoNCE + λ·mean_i(LSE_j F_ij)².

    Parameters
    ----------
    logits : torch.Tensor, (B, B)
        F, positives on the diagonal.
    penalty : float, optional
        λ (default :data:`LSE_PENALTY`, 0.1).

    Returns
    -------
    torch.Tensor
        The scalar loss (:func:`infonce_terms` combined).

    Examples
    --------
    >>> import torch
    >>> from neural.deep_crl import critic_loss
    >>> logits = torch.tensor([[0.0, -1.0], [-1.0, 0.0]])
    >>> round(float(critic_loss(logits)), 4)  # 0.3133 + 0.1·0.0981
    0.3231
    >>> round(float(critic_loss(logits, penalty=0.0)), 4)
    0.3133
    """
    nce, lse2 = infonce_terms(logits)
    return nce + penalty * lse2


class Critic(nn.Module):
    """Two encoders φ(s[, a]) and ψ(g) of the same depth and width, 64-dim embeddings."""

    def __init__(
        self, sa_dim: int, g_dim: int, depth: int, width: int, variant: Variant, repr_dim: int = 64
    ) -> None:
        super().__init__()
        self.phi = Encoder(sa_dim, repr_dim, depth, width, variant)
        self.psi = Encoder(g_dim, repr_dim, depth, width, variant)

    def forward(self, sa: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return energy_matrix(self.phi(sa), self.psi(g))

    def paired(self, sa: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        """f(sa_i, g_i) for matched rows: (B,)."""
        return paired_energy(self.phi(sa), self.psi(g))


def _seed_torch(rng: np.random.Generator) -> None:
    torch.set_num_threads(1)
    torch.manual_seed(int(rng.integers(2**63 - 1)))


# ------------------------------------------------------------------------- signal propagation
def signal_at_init(
    variant: Variant,
    depth: int,
    width: int,
    rng: np.random.Generator,
    batch: int = 256,
    *,
    device: str = "cpu",
) -> dict[str, float]:
    """Signal-propagation probes of a freshly initialised critic on Gaussian inputs (ours; the
    paper reports only trained ablations):

    - ``grad_ratio`` = ‖∇W_first‖/‖∇W_last‖ of φ's input and output Dense under the critic loss;
    - ``trunk_gain`` = mean_i ‖h_out,i‖/‖h_in,i‖ (trunk output vs input-layer output);
    - ``jacobian_gain`` = ‖J_φ v‖/‖v‖ for random unit input directions v (the embedding's
      input-Jacobian gain, averaged over the batch);
    - ``embedding_std`` and ``output_rms`` of φ.

    Parameters
    ----------
    variant : Variant
        The architecture switches.
    depth : int
        D, a non-negative multiple of 4 (the probe reads the last block, so D ≥ 4).
    width : int
        The hidden width.
    rng : numpy.random.Generator
        Seeds torch's initialisation and the inputs' generator.
    batch : int, optional
        The Gaussian inputs (default 256).
    device : str, optional
        The torch device the probes compute on (default ``"cpu"``). The critic is initialised
        and the inputs are drawn on the CPU, then moved: the same seed gives the same critic
        and inputs on every device.

    Returns
    -------
    dict of str to float
        ``grad_ratio``, ``trunk_gain``, ``jacobian_gain``, ``embedding_std`` and ``output_rms``.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.deep_crl import VARIANTS, signal_at_init
    >>> probes = signal_at_init(VARIANTS["paper"], 4, 16, np.random.default_rng(0), batch=32)
    >>> sorted(probes)
    ['embedding_std', 'grad_ratio', 'jacobian_gain', 'output_rms', 'trunk_gain']
    >>> all(value > 0 for value in probes.values())
    True
    """
    _seed_torch(rng)
    sa_dim, g_dim = 4, 2
    critic = Critic(sa_dim, g_dim, depth, width, variant).to(device)  # initialised on the CPU
    gen = torch.Generator().manual_seed(int(rng.integers(2**63 - 1)))
    sa = torch.randn(batch, sa_dim, generator=gen).to(device)  # drawn on the CPU, then moved
    g = torch.randn(batch, g_dim, generator=gen).to(device)
    critic_loss(critic(sa, g)).backward()
    first = critic.phi.input_layer.dense.weight.grad.norm()
    last = critic.phi.blocks[-1][-1].dense.weight.grad.norm()
    with torch.no_grad():
        h_in, h_out = critic.phi.trunk(sa)
        trunk_gain = (h_out.norm(dim=1) / h_in.norm(dim=1)).mean()
        z = critic.phi(sa)
    v = torch.randn(batch, sa_dim, generator=gen).to(device)
    v = v / v.norm(dim=1, keepdim=True)
    _, jv = torch.autograd.functional.jvp(critic.phi, sa, v)  # J_φ v by double backward
    return {
        "grad_ratio": float(first / last),
        "trunk_gain": float(trunk_gain),
        "jacobian_gain": float(jv.detach().norm(dim=1).mean()),
        "embedding_std": float(z.std()),
        "output_rms": float(z.pow(2).mean().sqrt()),
    }


def signal_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Sweep task: :func:`signal_at_init` for ``params`` = {variant, depth, width}.

    Parameters
    ----------
    params : dict
        ``variant`` (a key of :data:`VARIANTS`), ``depth`` and ``width``; optional ``device``
        (the torch device, default ``"cpu"``; see :func:`signal_at_init`).
    rng : numpy.random.Generator
        The run's randomness.

    Returns
    -------
    dict of str to float
        :func:`signal_at_init`'s probes.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.deep_crl import VARIANTS, signal_at_init, signal_task
    >>> params = {"variant": "no_ln", "depth": 4, "width": 16}
    >>> a = signal_task(params, np.random.default_rng(0))
    >>> b = signal_at_init(VARIANTS["no_ln"], 4, 16, np.random.default_rng(0))
    >>> a == b
    True
    """
    device = params.pop("device", "cpu")
    return signal_at_init(
        VARIANTS[params["variant"]], params["depth"], params["width"], rng, device=device
    )


# ------------------------------------------------------------------------------ checkpoints
def run_key(params: dict[str, Any], seed: int) -> str:
    """What a checkpoint must match to be resumed: the task's parameters and its sampling seed.

    Parameters
    ----------
    params : dict
        The task's parameters (JSON-serialisable).
    seed : int
        The run's sampling seed.

    Returns
    -------
    str
        The hex sha256 of the canonical JSON of both.

    Examples
    --------
    >>> from neural.deep_crl import run_key
    >>> key = run_key({"depth": 4}, seed=0)
    >>> len(key), key == run_key({"depth": 4}, seed=0), key == run_key({"depth": 4}, seed=1)
    (64, True, False)
    """
    from sims._jsonio import dumps

    return hashlib.sha256(dumps({"params": params, "seed": seed}).encode()).hexdigest()


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """Write ``state`` (tensors, state dicts, numbers, strings, lists) to ``path`` atomically:
    temporary file + rename, so a kill mid-write leaves the previous checkpoint intact.

    Parameters
    ----------
    path : pathlib.Path
        The checkpoint file (its folder is created).
    state : dict
        What to save (with :func:`torch.save`), a ``key`` among it for :func:`load_checkpoint`.

    Returns
    -------
    None
        The file is written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from neural.deep_crl import load_checkpoint, save_checkpoint
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "run" / "critic.pt"
    ...     save_checkpoint(path, {"key": "abc", "step": 3})
    ...     load_checkpoint(path, "abc")
    {'key': 'abc', 'step': 3}
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    torch.save(state, tmp)
    tmp.replace(path)


def load_checkpoint(path: Path, key: str) -> dict[str, Any] | None:
    """The state saved at ``path`` (None when there is none; stale temporary files removed);
    ValueError when its ``key`` is not ``key`` (another run's checkpoint).

    Parameters
    ----------
    path : pathlib.Path
        The checkpoint file.
    key : str
        The run's :func:`run_key`.

    Returns
    -------
    dict or None
        The saved state (loaded with ``weights_only=True``), or None without a checkpoint.

    Raises
    ------
    ValueError
        If the checkpoint belongs to another run.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from neural.deep_crl import load_checkpoint, save_checkpoint
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "critic.pt"
    >>> print(load_checkpoint(path, "abc"))  # nothing saved yet
    None
    >>> save_checkpoint(path, {"key": "abc", "step": 3})
    >>> load_checkpoint(path, "abc")["step"]
    3
    >>> load_checkpoint(path, "other")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: checkpoint ... belongs to another run (parameters or seed)
    >>> tmp.cleanup()
    """
    for stale in path.parent.glob(f".{path.name}.tmp-*"):
        stale.unlink(missing_ok=True)
    if not path.exists():
        return None
    state = torch.load(path, weights_only=True)
    if state["key"] != key:
        raise ValueError(f"checkpoint {path} belongs to another run (parameters or seed)")
    return state


def checkpoint_path(params: dict[str, Any], name: str) -> Path | None:
    """``name`` in the sweep task's checkpoint folder when ``params`` set ``checkpoint_every``
    and the task runs inside a cached sweep (:func:`sims.sweep.task_checkpoint_dir`), else None.

    Parameters
    ----------
    params : dict
        The task's parameters (``checkpoint_every`` is read).
    name : str
        The checkpoint's file name.

    Returns
    -------
    pathlib.Path or None
        Where the checkpoint lives, or None when the run keeps none.

    Examples
    --------
    >>> from neural.deep_crl import checkpoint_path
    >>> print(checkpoint_path({"checkpoint_every": 5}, "critic.pt"))  # outside a sweep
    None
    """
    folder = task_checkpoint_dir()
    return None if params.get("checkpoint_every") is None or folder is None else folder / name


# ------------------------------------------------------------------------ fixed-data critic
@dataclass
class CriticRun:
    """The mutable state of a fixed-data critic run: model, Adam, the batch generator, the steps
    done and the loss curve so far. :meth:`save` writes it; :meth:`resume` loads a saved state
    of the same run (same ``key``), so a run killed at any step and started again continues
    bit-identically from its last save."""

    #: The critic being trained.
    critic: Critic
    #: Its Adam optimiser.
    opt: torch.optim.Optimizer
    #: The torch generator that draws the batches.
    gen: torch.Generator
    #: Identifies the run; a saved state resumes only into the same key.
    key: str
    #: SGD steps done.
    step: int = 0
    #: Training loss at each step done.
    curve: list[float] = field(default_factory=list)

    def save(self, path: Path) -> None:
        save_checkpoint(
            path,
            {"key": self.key, "step": self.step, "curve": self.curve,
             "critic": self.critic.state_dict(), "opt": self.opt.state_dict(),
             "gen": self.gen.get_state()},
        )  # fmt: skip

    def resume(self, path: Path) -> None:
        """Load ``path`` when it exists (ValueError when it belongs to another run)."""
        if (state := load_checkpoint(path, self.key)) is None:
            return
        self.critic.load_state_dict(state["critic"])
        self.opt.load_state_dict(state["opt"])
        self.gen.set_state(state["gen"])
        self.step, self.curve = state["step"], list(state["curve"])


def with_constant_feature(xy: np.ndarray) -> np.ndarray:
    """(x, y) → (x, y, 1). With zero biases, Dense → LayerNorm is invariant to the scale of its
    input, so a net fed bare centred coordinates sees only their direction from the origin; the
    constant feature acts as a random first-layer bias at init and removes that blind spot.

    Parameters
    ----------
    xy : numpy.ndarray of float, (n, 2)
        Coordinates.

    Returns
    -------
    numpy.ndarray of float, (n, 3)
        The coordinates with a column of ones.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.deep_crl import with_constant_feature
    >>> with_constant_feature(np.array([[0.5, -1.0]])).tolist()
    [[0.5, -1.0, 1.0]]
    """
    return np.concatenate([xy, np.ones((len(xy), 1))], axis=1)


def spearman_rows(f: np.ndarray, target: np.ndarray, mask: np.ndarray) -> float:
    """Mean over rows i of Spearman's ρ between f[i, mask_i] and target[i, mask_i] (rows with
    fewer than 3 scored entries skipped). Ties get average ranks.

    Parameters
    ----------
    f : numpy.ndarray of float, (n, m)
        The scores, one row per state.
    target : numpy.ndarray of float, (n, m)
        What they should rank like.
    mask : numpy.ndarray of bool, (n, m)
        The entries scored in each row.

    Returns
    -------
    float
        The mean ρ over the rows with at least 3 scored entries.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.deep_crl import spearman_rows
    >>> f = np.array([[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]])
    >>> target = np.array([[10.0, 20.0, 30.0, 40.0], [1.0, 2.0, 3.0, 5.0]])
    >>> spearman_rows(f, target, np.ones((2, 4), dtype=bool))  # (1 + (−1))/2
    0.0
    >>> spearman_rows(f, target, np.array([[True] * 4, [True, True, False, False]]))
    1.0
    """
    from scipy.stats import spearmanr

    rhos = [spearmanr(f[i, m], target[i, m]).statistic for i, m in enumerate(mask) if m.sum() >= 3]
    return float(np.mean(rhos))


class RankAgreement(NamedTuple):
    """What :func:`rank_agreement` measures: per depth, per-seed arrays in record order."""

    #: depth -> per seed, mean per-state Spearman ρ(f, −distance).
    rho: dict[int, np.ndarray]
    #: depth -> per seed, the shortcut index ρ(f, −Euclidean) − ρ(f, −distance).
    shortcut: dict[int, np.ndarray]
    #: ρ(log M, −distance), M the exact successor measure the data are drawn from: the line the
    #: geodesic check draws for the InfoNCE optimum f* = log M(s, g)/p(g).
    rho_opt: float


def rank_agreement(
    records: Sequence[Mapping[str, Any]],
    maze: GridMaze,
    distance: Callable[[GridMaze], np.ndarray] = GridMaze.geodesic_distances,
    gamma: float = 0.95,
    horizon: int = 20,
) -> RankAgreement:
    """How trained critics rank goals (the paper's Fig. 9 question: does f follow the corridor or
    the Euclidean shortcut through the wall?). For each record of :func:`train_maze_critic` run
    with ``return_f`` on ``maze``: ρ = :func:`spearman_rows` of f(s, g) against −distance(s, g)
    over the goals 0 < geodesic(s, g) ≤ ``horizon`` (1/(1−γ) = 20 moves), and the shortcut index
    ρ(f, −Euclidean) − ρ; grouped by depth in record order. ``rho_opt`` is the same ρ for log M,
    M = (1−γ)·P·(I−γP)⁻¹ (:func:`sims.mazes.successor_measure`).

    Parameters
    ----------
    records : sequence of mapping
        Sweep records of :func:`train_maze_critic` on ``maze``, each with ``params["depth"]``
        and ``result["f"]`` (n, n).
    maze : sims.mazes.GridMaze
        The maze the critics were trained on.
    distance : callable, optional
        The distance f should follow, ``distance(maze)`` (n, n) (default
        :meth:`sims.mazes.GridMaze.geodesic_distances`).
    gamma : float, optional
        γ of the successor measure (default 0.95).
    horizon : int, optional
        The farthest geodesic distance scored (default 20 = 1/(1 − γ)).

    Returns
    -------
    RankAgreement
        ρ and the shortcut index per depth (one value per record), and ``rho_opt``.

    Examples
    --------
    A stand-in critic that scores goals by −geodesic distance agrees perfectly:

    >>> from neural.deep_crl import rank_agreement
    >>> from sims.mazes import U_SMALL, GridMaze
    >>> maze = GridMaze.from_layout(U_SMALL)
    >>> record = {"params": {"depth": 4}, "result": {"f": -maze.geodesic_distances()}}
    >>> agreement = rank_agreement([record], maze)
    >>> agreement.rho, agreement.rho_opt > 0.9
    ({4: array([1.])}, True)
    """
    target, geo, euc = distance(maze), maze.geodesic_distances(), maze.euclidean_distances()
    mask = (geo > 0) & (geo <= horizon)
    m = successor_measure(maze.transition_matrix(), gamma)
    rho_opt = spearman_rows(np.log(m), -target, mask)
    rho, shortcut = {}, {}
    for d in dict.fromkeys(r["params"]["depth"] for r in records):
        fs = [np.asarray(r["result"]["f"]) for r in records if r["params"]["depth"] == d]
        rho[d] = np.array([spearman_rows(f, -target, mask) for f in fs])
        shortcut[d] = np.array([spearman_rows(f, -euc, mask) for f in fs]) - rho[d]
    return RankAgreement(rho, shortcut, rho_opt)


def train_maze_critic(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task (trainability and geodesic checks): train a state-only critic
    f(s, g) = −‖φ(s) − ψ(g)‖ on a fixed data set of (state, future) pairs sampled once from the
    exact successor measure of the random walk on a serpentine maze (or on ``params["layout"]``),
    then score it on all cell pairs.

    ``params``: variant, depth, width, steps, and optional layout, corridors, length, gamma, n_pairs,
    batch, lr, horizon, return_f, config (:data:`CONFIGS`, default "cpu": LayerNorm ε and whether
    the coordinates carry the constant feature), checkpoint_every (inside a cached sweep, save the
    training state every that many steps to ``critic.pt`` in
    :func:`sims.sweep.task_checkpoint_dir` and resume from it: see :class:`CriticRun`), device
    (the torch device, default "cpu": the critic is initialised and the data and batches are drawn
    on the CPU, then moved, so a seed gives the same run on every device up to float rounding).
    Returns the final training and held-out InfoNCE, ρ(f, −geodesic) and
    ρ(f, −Euclidean) over pairs within ``horizon`` moves, ρ(f, log M), the loss curve and the
    Q-map row of the start cell (and the whole matrix f(s_i, g_j) with ``return_f``).

    Parameters
    ----------
    params : dict
        The run's parameters (above); ``variant`` (a key of :data:`VARIANTS`), ``depth`` (a
        multiple of 4), ``width`` and ``steps`` are required.
    rng : numpy.random.Generator
        The run's randomness: torch's initialisation, the data set and the batches.

    Returns
    -------
    dict
        ``train_loss`` (mean InfoNCE over the last tenth of the steps), ``heldout_loss`` (on
        4,096 fresh pairs), ``rho_geo``, ``rho_euc`` and ``rho_log_m`` (floats),
        ``loss_curve`` (about 50 points), ``q_row_start`` (n,) and, with ``return_f``, ``f``
        (n, n).

    Examples
    --------
    Three SGD steps on the small U-maze (7 free cells):

    >>> import numpy as np
    >>> from neural.deep_crl import train_maze_critic
    >>> from sims.mazes import U_SMALL
    >>> params = {"variant": "paper", "depth": 0, "width": 16, "steps": 3, "layout": U_SMALL,
    ...           "n_pairs": 200, "batch": 64, "return_f": True}
    >>> result = train_maze_critic(params, np.random.default_rng(0))
    >>> result["f"].shape, result["q_row_start"].shape, result["loss_curve"].shape
    ((7, 7), (7,), (3,))
    >>> -1.0 <= result["rho_geo"] <= 1.0
    True
    """
    device = params.pop("device", "cpu")
    _seed_torch(rng)
    layout = params.get("layout") or serpentine_layout(
        params.get("corridors", 7), params.get("length", 13)
    )
    maze = GridMaze.from_layout(layout)
    gamma = params.get("gamma", 0.95)
    batch, steps = params.get("batch", 256), params["steps"]
    m = successor_measure(maze.transition_matrix(), gamma)
    config = get_config(params.get("config", "cpu"))
    coords = maze.coordinates()
    coords = with_constant_feature(coords) if config.constant_feature else coords
    xy = torch.tensor(coords, dtype=torch.float32, device=device)  # (n, 3) or (n, 2)
    s_idx, g_idx = (
        torch.from_numpy(a).to(device)  # drawn with numpy, then moved
        for a in sample_future_pairs(m, params.get("n_pairs", 20_000), rng)
    )
    hs, hg = (torch.from_numpy(a).to(device) for a in sample_future_pairs(m, 4096, rng))
    variant = configured(VARIANTS[params["variant"]], config)
    critic = Critic(xy.shape[1], xy.shape[1], params["depth"], params["width"], variant).to(device)
    opt = torch.optim.Adam(critic.parameters(), lr=params.get("lr", 3e-4), foreach=True)
    gen = torch.Generator().manual_seed(int(rng.integers(2**63 - 1)))
    every, path = params.get("checkpoint_every"), checkpoint_path(params, "critic.pt")
    run = CriticRun(critic, opt, gen, run_key(params, gen.initial_seed()))
    if path is not None:
        run.resume(path)
    while run.step < steps:
        pick = torch.randint(len(s_idx), (batch,), generator=gen).to(device)  # a CPU draw
        logits = critic(xy[s_idx[pick]], xy[g_idx[pick]])  # (B, B)
        loss = critic_loss(logits)
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.curve.append(float(infonce_terms(logits.detach())[0]))
        run.step += 1
        if path is not None and (run.step % every == 0 or run.step == steps):
            run.save(path)
    curve = run.curve
    with torch.no_grad():
        held = [
            float(infonce_terms(critic(xy[hs[k : k + batch]], xy[hg[k : k + batch]]))[0])
            for k in range(0, len(hs), batch)
        ]
        f = critic(xy, xy).cpu().numpy().astype(float)  # (n, n): f(s_i, g_j)
    geo, euc = maze.geodesic_distances(), maze.euclidean_distances()
    horizon = params.get("horizon", round(1 / (1 - gamma)))
    mask = (geo > 0) & (geo <= horizon)
    tail = max(1, steps // 10)
    start = maze.index[maze.start]
    out = {
        "train_loss": float(np.mean(curve[-tail:])),
        "heldout_loss": float(np.mean(held)),
        "rho_geo": spearman_rows(f, -geo, mask),
        "rho_euc": spearman_rows(f, -euc, mask),
        "rho_log_m": spearman_rows(f, np.log(m + 1e-300), mask),
        "loss_curve": np.asarray(curve[:: max(1, steps // 50)]),
        "q_row_start": f[start],
    }
    return out | {"f": f} if params.get("return_f") else out
