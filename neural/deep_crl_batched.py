"""The fixed-data CRL critic of :mod:`neural.deep_crl` trained for K seeds at once (one batched
model, :class:`neural.batched.SeedStack`), on a chosen torch device.

:func:`train_maze_critic_batched` is :func:`neural.deep_crl.train_maze_critic` for K generators
in one call: each seed draws its initial weights, its (state, future) pairs, its held-out pairs
and its batch order from its own generator in the order the one-seed task does, so seed k's
record equals ``train_maze_critic(params, rngs[k])`` up to float32 reduction order (the batched
matrix products sum in another order; tests/neural/test_batched.py measures it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import torch

from neural.batched import SeedStack
from neural.deep_crl import (
    LSE_PENALTY,
    VARIANTS,
    Critic,
    _seed_torch,
    configured,
    get_config,
    infonce_terms,
    spearman_rows,
    with_constant_feature,
)
from sims.mazes import GridMaze, sample_future_pairs, serpentine_layout, successor_measure

__all__ = ["HELDOUT_PAIRS", "MazeData", "maze_data", "train_maze_critic_batched"]

#: Held-out (state, future) pairs per seed, as in :func:`neural.deep_crl.train_maze_critic`.
HELDOUT_PAIRS = 4096


class MazeData(NamedTuple):
    """What every seed of a fixed-data critic run shares: the maze, its successor measure M and
    the network input of each cell."""

    #: The maze.
    maze: GridMaze
    #: M = (1−γ)·P·(I−γP)⁻¹ (:func:`sims.mazes.successor_measure`), (n, n).
    m: np.ndarray
    #: Per cell, its coordinates (with the constant feature when the config says so), (n, 2|3).
    coords: np.ndarray


def maze_data(params: dict[str, Any]) -> MazeData:
    """The maze, successor measure and cell inputs of ``params`` (keys as in
    :func:`neural.deep_crl.train_maze_critic`: layout or corridors/length, gamma, config).

    Parameters
    ----------
    params : dict
        The task's parameters; reads ``layout`` (else a serpentine maze of ``corridors`` 7 and
        ``length`` 13), ``gamma`` (0.95) and ``config`` ("cpu").

    Returns
    -------
    MazeData
        The maze, M (n, n) (rows sum to 1) and the cell inputs (n, 3) or (n, 2).

    Raises
    ------
    ValueError
        If ``config`` is not a key of :data:`neural.deep_crl.CONFIGS`.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.deep_crl_batched import maze_data
    >>> from sims.mazes import U_SMALL
    >>> data = maze_data({"layout": U_SMALL})  # 7 free cells
    >>> data.m.shape, bool(np.allclose(data.m.sum(axis=1), 1)), data.coords.shape
    ((7, 7), True, (7, 3))
    >>> maze_data({"layout": U_SMALL, "config": "reference"}).coords.shape  # raw coordinates
    (7, 2)
    """
    layout = params.get("layout") or serpentine_layout(
        params.get("corridors", 7), params.get("length", 13)
    )
    maze = GridMaze.from_layout(layout)
    m = successor_measure(maze.transition_matrix(), params.get("gamma", 0.95))
    coords = maze.coordinates()
    if get_config(params.get("config", "cpu")).constant_feature:
        coords = with_constant_feature(coords)
    return MazeData(maze, m, coords)


class _Seed(NamedTuple):
    critic: Critic
    pairs: tuple[np.ndarray, np.ndarray]
    heldout: tuple[np.ndarray, np.ndarray]
    gen: torch.Generator


def _seed_setup(params: dict[str, Any], data: MazeData, rng: np.random.Generator) -> _Seed:
    """One seed's draws, in the one-seed task's order: torch's global seed (the critic's init),
    the training pairs, the held-out pairs, the critic, the batch generator's seed."""
    _seed_torch(rng)
    pairs = sample_future_pairs(data.m, params.get("n_pairs", 20_000), rng)
    heldout = sample_future_pairs(data.m, HELDOUT_PAIRS, rng)
    config = get_config(params.get("config", "cpu"))
    variant = configured(VARIANTS[params["variant"]], config)
    n_in = data.coords.shape[1]
    critic = Critic(n_in, n_in, params["depth"], params["width"], variant)
    gen = torch.Generator().manual_seed(int(rng.integers(2**63 - 1)))
    return _Seed(critic, pairs, heldout, gen)


def _batched_infonce(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`neural.deep_crl.infonce_terms` per seed of (K, B, B) logits: two (K,) tensors."""
    return torch.func.vmap(infonce_terms)(logits)


def train_maze_critic_batched(
    params: dict[str, Any],
    rngs: Sequence[np.random.Generator],
    device: str | torch.device = "cpu",
) -> list[dict[str, Any]]:
    """:func:`neural.deep_crl.train_maze_critic` for K = ``len(rngs)`` seeds trained as one
    batched model on ``device``; returns the K records, record k as the one-seed task returns
    it for ``rngs[k]``.

    Parameters
    ----------
    params : dict
        The one-seed task's parameters (variant, depth, width, steps, ...); ``checkpoint_every``
        is not supported (ValueError).
    rngs : sequence of numpy.random.Generator
        One generator per seed, in the state the one-seed task would receive it.
    device : str or torch.device, optional
        The torch device of the models, the data and the batch indices (default ``"cpu"``).

    Returns
    -------
    list of dict
        K records, record k as :func:`neural.deep_crl.train_maze_critic` returns it for
        ``rngs[k]``.

    Raises
    ------
    ValueError
        If ``rngs`` is empty, ``checkpoint_every`` is set or ``steps`` is below 1.

    Notes
    -----
    Each step draws seed k's batch indices from seed k's generator, gathers its (state,
    future) pairs, and evaluates the critic loss L_k = InfoNCE_k + λ·mean_i(LSE_j F_ij)²_k
    (Wang et al. 2025, arXiv 2503.14858: :func:`neural.deep_crl.critic_loss`) for all seeds
    at once; Adam steps on Σ_k L_k, whose gradient in seed k's parameters is ∂L_k/∂θ_k, so a
    seed that diverges (NaN) stays alone in its NaNs. The one-seed task clips nothing, and
    neither does this.

    Examples
    --------
    Two seeds, three steps on the small U-maze; seed 1's record is its one-seed run's:

    >>> import numpy as np
    >>> from neural.deep_crl import train_maze_critic
    >>> from neural.deep_crl_batched import train_maze_critic_batched
    >>> from sims.mazes import U_SMALL
    >>> params = {"variant": "paper", "depth": 0, "width": 16, "steps": 3, "layout": U_SMALL,
    ...           "n_pairs": 200, "batch": 64}
    >>> records = train_maze_critic_batched(params, [np.random.default_rng(s) for s in (0, 1)])
    >>> len(records), records[1]["loss_curve"].shape
    (2, (3,))
    >>> alone = train_maze_critic(params, np.random.default_rng(1))
    >>> abs(records[1]["train_loss"] - alone["train_loss"]) < 1e-4
    True
    """
    if not rngs:
        raise ValueError("rngs must hold at least one generator")
    if params.get("checkpoint_every") is not None:
        raise ValueError("checkpoint_every is not supported by the batched critic trainer")
    batch, steps = params.get("batch", 256), params["steps"]
    if steps < 1:
        raise ValueError(f"steps must be a positive integer (got {steps!r})")
    device = torch.device(device)
    data = maze_data(params)
    seeds = [_seed_setup(params, data, rng) for rng in rngs]
    stack = SeedStack([s.critic for s in seeds], device)
    xy = torch.tensor(data.coords, dtype=torch.float32, device=device)  # (n, 2|3)

    def stacked(which: str, seed_index: int) -> torch.Tensor:  # (K, n_pairs)
        arrays = np.stack([getattr(s, which)[seed_index] for s in seeds])
        return torch.from_numpy(arrays).to(device)

    s_idx, g_idx = stacked("pairs", 0), stacked("pairs", 1)
    opt = torch.optim.Adam(stack.parameters(), lr=params.get("lr", 3e-4), foreach=True)
    curve = []
    for _ in range(steps):
        pick = torch.stack(
            [torch.randint(s_idx.shape[1], (batch,), generator=s.gen) for s in seeds]
        )
        pick = pick.to(device)  # (K, B): each seed's draw from its own generator
        logits = stack(xy[s_idx.gather(1, pick)], xy[g_idx.gather(1, pick)])  # (K, B, B)
        nce, lse2 = _batched_infonce(logits)
        loss = (nce + LSE_PENALTY * lse2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        curve.append(nce.detach())
    curves = torch.stack(curve).T.cpu().numpy().astype(float)  # (K, steps)
    with torch.no_grad():
        hs, hg = stacked("heldout", 0), stacked("heldout", 1)
        held = torch.stack(
            [
                _batched_infonce(stack(xy[hs[:, k : k + batch]], xy[hg[:, k : k + batch]]))[0]
                for k in range(0, HELDOUT_PAIRS, batch)
            ]
        )  # (chunks, K)
        f = stack(xy, xy, in_dims=None).cpu().numpy().astype(float)  # (K, n, n)
    held = held.cpu().numpy().astype(float)
    return [
        _maze_record(params, data, curves[k], held[:, k], f[k], steps) for k in range(len(rngs))
    ]


def _maze_record(
    params: dict[str, Any],
    data: MazeData,
    curve: np.ndarray,
    held: np.ndarray,
    f: np.ndarray,
    steps: int,
) -> dict[str, Any]:
    """One seed's record in :func:`neural.deep_crl.train_maze_critic`'s format, from its loss
    curve, held-out chunk losses and score matrix f(s_i, g_j)."""
    maze = data.maze
    geo, euc = maze.geodesic_distances(), maze.euclidean_distances()
    horizon = params.get("horizon", round(1 / (1 - params.get("gamma", 0.95))))
    mask = (geo > 0) & (geo <= horizon)
    tail = max(1, steps // 10)
    out = {
        "train_loss": float(np.mean(curve[-tail:])),
        "heldout_loss": float(np.mean(held)),
        "rho_geo": spearman_rows(f, -geo, mask),
        "rho_euc": spearman_rows(f, -euc, mask),
        "rho_log_m": spearman_rows(f, np.log(data.m + 1e-300), mask),
        "loss_curve": np.asarray(curve[:: max(1, steps // 50)]),
        "q_row_start": f[maze.index[maze.start]],
    }
    return out | {"f": f} if params.get("return_f") else out
