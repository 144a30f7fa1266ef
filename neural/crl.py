"""Online contrastive RL (CRL) on the continuous point-mass maze, as in "1000 Layer Networks for
Self-Supervised RL" (Wang et al., NeurIPS 2025; arXiv 2503.14858), following the authors' code
(scaling-crl); the model and the CPU substitutes are set out in docs/deep_crl.md.

- **Critic**: f(s, a, g) = −‖φ(s, a) − ψ(g)‖ (:class:`neural.deep_crl.Critic`), loss InfoNCE +
  λ·mean_i(LSE_j F_ij)² (:func:`neural.deep_crl.critic_loss`), positives = (s_t, a_t) with a future
  state of the same episode.
- **Actor**: tanh-Gaussian π(a | s, g) with log σ squashed into [−5, 2]; SAC-style loss
  E[α log π(a|s,g) − f(s, a, g)], a ~ π, on the *relabeled* goals g; the entropy coefficient α is
  learned toward the target entropy −0.5|A|, by default by minimising −log α·(log π + H_target)
  from α₀ = 0.05 (from α = 1 it barely moves in a few thousand steps at this scale, as a pilot
  run showed); ``config="reference"`` uses the reference's α·(−log π − H_target)
  from α₀ = 1 (:class:`neural.deep_crl.Config`). Per SGD step the actor and α update first,
  then the critic on the same batch, as in the authors' code. No target networks, no TD, no
  reward.
- **Relabeling** (:class:`EpisodeBuffer`): episodes are stored whole (FIFO over episodes), so a
  goal can only come from the same episode; for a transition at step t of an episode of T steps the
  goal is the state s_{t+k}, k ∈ {1, …, T − t}, with P(k) ∝ γ^{k−1} (a truncated geometric: the
  discrete successor measure cut at the episode end).
- **Evaluation**: deterministic actions tanh(mean) toward the FAR goals only (cells at least
  ``far_moves`` moves from the start, behind the wall), reporting the success rate (the goal
  reached at any step) and the time at goal (fraction of the T steps within the goal radius)
  separately (the authors' evaluator reports time at goal under the name episode_success).

All networks share the depth D (the paper's convention: D = Dense layers inside the residual
blocks, D + 2 in all). With the default ``config="cpu"`` inputs carry a constant feature 1 (see
:func:`neural.deep_crl.with_constant_feature`); the reference feeds raw observations.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from neural.deep_crl import (
    VARIANTS,
    Config,
    Critic,
    Encoder,
    Variant,
    checkpoint_path,
    configured,
    critic_loss,
    get_config,
    infonce_terms,
    load_checkpoint,
    run_key,
    save_checkpoint,
)
from sims.mazes import U_SMALL, GridMaze, PointMassMaze

__all__ = [
    "VARIANTS",
    "Actor",
    "Agent",
    "EpisodeBuffer",
    "cell_centres",
    "evaluate",
    "far_goals",
    "q_map",
    "rollout",
    "train_online_crl",
    "truncated_geometric_offsets",
]

#: log σ of the actor is squashed into [LOG_STD_MIN, LOG_STD_MAX] (as in the authors' code).
LOG_STD_MIN, LOG_STD_MAX = -5.0, 2.0
ACTION_DIM = 2


# ----------------------------------------------------------------------------- relabeling
def truncated_geometric_offsets(horizon: np.ndarray, gamma: float, u: np.ndarray) -> np.ndarray:
    """Offsets k ∈ {1, …, n} with P(k) = γ^{k−1}(1−γ)/(1−γ^n) for n = ``horizon`` (elementwise),
    by inverting the CDF F(k) = (1−γ^k)/(1−γ^n) at the uniforms ``u`` ∈ [0, 1):
    k = ⌊log(1 − u(1−γ^n)) / log γ⌋ + 1, clipped into [1, n] against rounding.

    Parameters
    ----------
    horizon : numpy.ndarray of int
        n ≥ 1 per draw, the steps left in the episode (T − t).
    gamma : float
        γ ∈ (0, 1), the discount.
    u : numpy.ndarray of float
        Uniforms on [0, 1), broadcast against ``horizon``.

    Returns
    -------
    numpy.ndarray of int64
        The offsets k.

    Raises
    ------
    ValueError
        If a horizon is below 1 or ``gamma`` is outside (0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> from neural.crl import truncated_geometric_offsets
    >>> horizon, u = np.array([1, 5, 5, 100]), np.array([0.9, 0.0, 0.9, 0.5])
    >>> truncated_geometric_offsets(horizon, 0.5, u).tolist()  # u = F(1) = 1/2 gives k = 2
    [1, 1, 3, 2]
    """
    n = np.asarray(horizon)
    if np.any(n < 1):
        raise ValueError("every horizon must be >= 1")
    if not 0 < gamma < 1:
        raise ValueError(f"gamma must lie in (0, 1) (got {gamma})")
    k = np.floor(np.log1p(-u * (1 - gamma**n)) / math.log(gamma)) + 1
    return np.clip(k, 1, n).astype(np.int64)


class EpisodeBuffer:
    """A FIFO replay buffer of whole episodes: positions (capacity, T + 1, 2) with s_0 … s_T,
    actions (capacity, T, 2), and an episode id per slot. Storing episodes whole makes relabeling
    across episode ends impossible by construction; :meth:`sample` also returns the indices so tests
    can check it.

    Parameters
    ----------
    capacity : int
        The episodes kept.
    horizon : int
        T, the steps per episode.
    state_dim : int, optional
        The state's dimension (default 2).

    Examples
    --------
    >>> import numpy as np
    >>> from neural.crl import EpisodeBuffer
    >>> buffer = EpisodeBuffer(capacity=2, horizon=3)
    >>> buffer.add(np.arange(16.0).reshape(2, 4, 2), np.zeros((2, 3, 2)))  # two episodes
    >>> batch = buffer.sample(5, gamma=0.9, rng=np.random.default_rng(0))
    >>> sorted(batch)
    ['action', 'goal', 'k', 'slot', 'state', 't']
    >>> bool((batch["k"] >= 1).all() and (batch["t"] + batch["k"] <= 3).all())  # same episode
    True
    """

    def __init__(self, capacity: int, horizon: int, state_dim: int = 2) -> None:
        self.states = np.zeros((capacity, horizon + 1, state_dim))
        self.actions = np.zeros((capacity, horizon, ACTION_DIM))
        self.episode_id = np.full(capacity, -1, dtype=np.int64)
        self.capacity, self.horizon, self.n_added = capacity, horizon, 0

    def __len__(self) -> int:
        return min(self.n_added, self.capacity)

    def state(self) -> dict[str, Any]:
        """The buffer's contents, for a checkpoint (:meth:`restore` reads it back)."""
        return {"states": torch.from_numpy(self.states), "actions": torch.from_numpy(self.actions),
                "episode_id": torch.from_numpy(self.episode_id), "n_added": self.n_added}  # fmt: skip

    def restore(self, state: dict[str, Any]) -> None:
        self.states, self.actions = state["states"].numpy(), state["actions"].numpy()
        self.episode_id, self.n_added = state["episode_id"].numpy(), state["n_added"]

    def add(self, states: np.ndarray, actions: np.ndarray) -> None:
        """Append episodes: states (E, T + 1, d), actions (E, T, 2); the oldest are overwritten."""
        for s, a in zip(states, actions, strict=True):
            slot = self.n_added % self.capacity
            self.states[slot], self.actions[slot] = s, a
            self.episode_id[slot] = self.n_added
            self.n_added += 1

    def sample(self, batch: int, gamma: float, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """A batch of (s_t, a_t, g = s_{t+k}): slot and t uniform, k truncated geometric on
        {1, …, T − t}. Returns state, action, goal and the indices slot, t, k."""
        if len(self) == 0:
            raise ValueError("cannot sample from an empty buffer")
        slot = rng.integers(0, len(self), batch)
        t = rng.integers(0, self.horizon, batch)
        k = truncated_geometric_offsets(self.horizon - t, gamma, rng.random(batch))
        return {
            "state": self.states[slot, t],
            "action": self.actions[slot, t],
            "goal": self.states[slot, t + k],
            "slot": slot,
            "t": t,
            "k": k,
        }


#: The agent's optimisers (``opt_<name>``), in checkpoint order.
_OPTS = ("actor", "critic", "alpha")


# ----------------------------------------------------------------------------------- actor
class Actor(nn.Module):
    """π(a | s, g): the paper's encoder (same depth convention) emitting (mean, raw log σ);
    a = tanh(mean + σ·ε)."""

    def __init__(
        self, obs_dim: int, depth: int, width: int, variant: Variant = VARIANTS["paper"]
    ) -> None:
        super().__init__()
        self.net = Encoder(obs_dim, 2 * ACTION_DIM, depth, width, variant)

    def distribution(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mean, raw = self.net(obs).chunk(2, dim=-1)
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (torch.tanh(raw) + 1)
        return mean, log_std

    def sample(
        self, obs: torch.Tensor, generator: torch.Generator | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """A reparameterised action and its log-density log π(a) = log N(u; μ, σ) −
        Σ log(1 − tanh(u)²), with log(1 − tanh²u) = 2(log 2 − u − softplus(−2u))."""
        mean, log_std = self.distribution(obs)
        noise = torch.randn(mean.shape, generator=generator).to(mean.device)  # a CPU draw
        u = mean + log_std.exp() * noise
        log_normal = (-0.5 * noise.pow(2) - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
        log_jac = (2 * (math.log(2) - u - nn.functional.softplus(-2 * u))).sum(-1)
        return torch.tanh(u), log_normal - log_jac

    def act_deterministic(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.distribution(obs)[0])


def _inputs(*parts: torch.Tensor, constant_feature: bool = True) -> torch.Tensor:
    """Concatenate the parts and, with ``constant_feature``, a constant 1 (the blind spot of
    zero-bias Dense → LN at init)."""
    ones = [torch.ones(len(parts[0]), 1, device=parts[0].device)] if constant_feature else []
    return torch.cat([*parts, *ones], dim=-1)


@dataclass
class Agent:
    """Actor, critic, log α and their Adam optimisers (the paper's lr 3e-4; α₀, α lr, α-loss, LN ε
    and the constant input from ``config``)."""

    #: The policy network.
    actor: Actor
    #: The contrastive critic (state-action and goal encoders).
    critic: Critic
    #: log of the entropy coefficient α (trained).
    log_alpha: torch.Tensor
    #: H̄ = −0.5·|A|, SAC's target entropy.
    target_entropy: float
    #: Adam on the actor.
    opt_actor: torch.optim.Optimizer
    #: Adam on the critic.
    opt_critic: torch.optim.Optimizer
    #: Adam on log α.
    opt_alpha: torch.optim.Optimizer
    #: The CPU/reference settings (:data:`neural.deep_crl.CONFIGS`).
    config: Config

    @classmethod
    def build(cls, params: dict[str, Any], device: str | torch.device = "cpu") -> Agent:
        """``params``: depth, and optional width 64, lr 3e-4, config "cpu" (or "reference", see
        :data:`neural.deep_crl.CONFIGS`); alpha0 and alpha_lr override the config's.

        Parameters
        ----------
        params : dict
            The run's parameters (``depth`` a multiple of 4).
        device : str or torch.device, optional
            Where the networks and log α live (default ``"cpu"``); the networks are initialised
            on the CPU and then moved, so a seed gives the same agent on every device.

        Returns
        -------
        Agent
            A fresh agent.

        Examples
        --------
        >>> from neural.crl import Agent
        >>> agent = Agent.build({"depth": 4, "width": 16})
        >>> round(float(agent.log_alpha.detach().exp()), 4), agent.target_entropy
        (0.05, -1.0)
        """
        depth, width = params["depth"], params.get("width", 64)
        lr = params.get("lr", 3e-4)
        config = get_config(params.get("config", "cpu"))
        one = int(config.constant_feature)
        variant = configured(VARIANTS["paper"], config)
        actor = Actor(2 + 2 + one, depth, width, variant).to(device)  # initialised on the CPU
        critic = Critic(2 + ACTION_DIM + one, 2 + one, depth, width, variant).to(device)
        alpha0 = params.get("alpha0", config.alpha0)
        log_alpha = torch.tensor(math.log(alpha0), requires_grad=True, device=device)
        return cls(
            actor,
            critic,
            log_alpha,
            -0.5 * ACTION_DIM,
            torch.optim.Adam(actor.parameters(), lr=lr, foreach=True),
            torch.optim.Adam(critic.parameters(), lr=lr, foreach=True),
            torch.optim.Adam([log_alpha], lr=params.get("alpha_lr", config.alpha_lr)),
            config,
        )

    def state(self) -> dict[str, Any]:
        """Networks, log α and the three Adam states, for a checkpoint (:meth:`restore`)."""
        return {
            "actor": self.actor.state_dict(),
            "critic": self.critic.state_dict(),
            "log_alpha": self.log_alpha.detach().clone(),
            **{f"opt_{k}": getattr(self, f"opt_{k}").state_dict() for k in _OPTS},
        }

    def restore(self, state: dict[str, Any]) -> None:
        self.actor.load_state_dict(state["actor"])
        self.critic.load_state_dict(state["critic"])
        with torch.no_grad():
            self.log_alpha.copy_(state["log_alpha"])
        for k in _OPTS:
            getattr(self, f"opt_{k}").load_state_dict(state[f"opt_{k}"])

    def inputs(self, *parts: torch.Tensor) -> torch.Tensor:
        """Network input from the parts (with the constant feature if the config adds it)."""
        return _inputs(*parts, constant_feature=self.config.constant_feature)

    def alpha_loss(self, log_pi: torch.Tensor) -> torch.Tensor:
        """The entropy-coefficient loss of the config, log π detached: "log" −log α·(log π + H̄),
        "alpha" (the reference) α·(−log π − H̄)."""
        gap = log_pi.detach() + self.target_entropy  # (B,)
        if self.config.alpha_loss == "alpha":
            return -(self.log_alpha.exp() * gap).mean()
        return -(self.log_alpha * gap).mean()

    def update(self, batch: dict[str, np.ndarray], generator: torch.Generator) -> dict[str, float]:
        """One SGD step, in the authors' order: actor and α on the relabeled goals, then the
        critic."""
        s, a, g = (
            torch.as_tensor(batch[k], dtype=torch.float32, device=self.log_alpha.device)
            for k in ("state", "action", "goal")
        )
        alpha = self.log_alpha.exp().detach()
        a_pi, log_pi = self.actor.sample(self.inputs(s, g), generator)
        f_pi = self.critic.paired(self.inputs(s, a_pi), self.inputs(g))
        actor_loss = (alpha * log_pi - f_pi).mean()
        self.opt_actor.zero_grad()
        actor_loss.backward()
        self.opt_actor.step()
        alpha_loss = self.alpha_loss(log_pi)
        self.opt_alpha.zero_grad()
        alpha_loss.backward()
        self.opt_alpha.step()
        logits = self.critic(self.inputs(s, a), self.inputs(g))  # (B, B)
        loss = critic_loss(logits)
        self.opt_critic.zero_grad()
        loss.backward()
        self.opt_critic.step()
        return {
            "critic_infonce": float(infonce_terms(logits.detach())[0]),
            "actor_loss": float(actor_loss.detach()),
            "entropy": float(-log_pi.detach().mean()),
            "alpha": float(self.log_alpha.detach().exp()),
        }


# ------------------------------------------------------------------------------ environment
def cell_centres(cells: np.ndarray) -> np.ndarray:
    """(n, 2) (row, col) cells → (n, 2) (x, y) = (col, row) centres in cell units.

    Parameters
    ----------
    cells : numpy.ndarray of int, (n, 2)
        Maze cells as (row, col).

    Returns
    -------
    numpy.ndarray of float, (n, 2)
        Their centres as (x, y) = (col, row).

    Examples
    --------
    >>> import numpy as np
    >>> from neural.crl import cell_centres
    >>> cell_centres(np.array([[1, 2], [3, 0]])).tolist()
    [[2.0, 1.0], [0.0, 3.0]]
    """
    return cells[:, ::-1].astype(float)


def far_goals(maze: GridMaze, far_moves: int) -> np.ndarray:
    """Goal cells (row, col) at least ``far_moves`` moves (BFS) from the start.

    Parameters
    ----------
    maze : sims.mazes.GridMaze
        The maze, with its start and goal cells.
    far_moves : int
        The fewest moves (shortest path through free cells) from the start.

    Returns
    -------
    numpy.ndarray of int, (m, 2)
        The far goal cells, in the maze's goal order (m may be 0).

    Examples
    --------
    >>> from neural.crl import far_goals
    >>> from sims.mazes import U_SMALL, GridMaze
    >>> maze = GridMaze.from_layout(U_SMALL)  # '#####/#RGG#/###G#/#GGG#/#####', R the start
    >>> far_goals(maze, far_moves=4).tolist()  # the bottom row, behind the wall
    [[3, 1], [3, 2], [3, 3]]
    """
    geo = maze.geodesic_distances()[maze.index[maze.start]]
    return np.array([g for g in maze.goals if geo[maze.index[tuple(g)]] >= far_moves])


def rollout(
    env: PointMassMaze,
    policy,
    goals_xy: np.ndarray,
    horizon: int,
    rng: np.random.Generator,
    start_jitter: float,
    constant_feature: bool = True,
    device: str | torch.device = "cpu",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run one episode per goal (E, 2) from the start cell (centre + U(±start_jitter)²):
    ``policy(obs)`` maps the network input (E, 5) = (ŝ, ĝ, 1) (or (E, 4) = (ŝ, ĝ) without
    ``constant_feature``) to actions (E, 2). Returns positions
    (E, T + 1, 2) in cell units, actions (E, T, 2) and at-goal flags (E, T) after each step.

    Parameters
    ----------
    env : sims.mazes.PointMassMaze
        The point-mass environment.
    policy : callable
        Maps the network input (E, 5) or (E, 4) (a float32 tensor) to actions (E, 2) in
        [−1, 1] (a tensor), called under :func:`torch.no_grad`.
    goals_xy : numpy.ndarray of float, (E, 2)
        One goal position per episode, in cell units.
    horizon : int
        T, the steps per episode.
    rng : numpy.random.Generator
        The source of the start jitter.
    start_jitter : float
        The half-width of the uniform start offset around the start cell's centre.
    constant_feature : bool, optional
        Append the constant input 1 (default True, the CPU config).
    device : str or torch.device, optional
        The torch device of the network input (the policy's device; default ``"cpu"``); the
        actions come back to the CPU.

    Returns
    -------
    tuple of numpy.ndarray
        Positions (E, T + 1, 2), actions (E, T, 2) and at-goal flags (E, T) (bool).

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from neural.crl import cell_centres, rollout
    >>> from sims.mazes import U_SMALL, GridMaze, PointMassMaze
    >>> maze = GridMaze.from_layout(U_SMALL)
    >>> env = PointMassMaze(maze, step=0.3, radius=0.35)
    >>> def still(obs):
    ...     return torch.zeros(len(obs), 2)
    >>> goals = cell_centres(maze.goals[:2])
    >>> pos, actions, hit = rollout(env, still, goals, 5, np.random.default_rng(0), 0.2)
    >>> pos.shape, actions.shape, hit.shape, bool(np.allclose(pos[:, 0], pos[:, -1]))
    ((2, 6, 2), (2, 5, 2), (2, 5), True)
    """
    n = len(goals_xy)
    xy = env.start_position() + rng.uniform(-start_jitter, start_jitter, (n, 2))
    goal_in = torch.as_tensor(env.normalize(goals_xy), dtype=torch.float32, device=device)
    positions, actions = [xy], []
    for _ in range(horizon):
        obs = _inputs(
            torch.as_tensor(env.normalize(xy), dtype=torch.float32, device=device),
            goal_in,
            constant_feature=constant_feature,
        )
        with torch.no_grad():
            a = policy(obs).cpu().numpy().astype(float)
        xy = env.step_positions(xy, a)
        positions.append(xy)
        actions.append(a)
    pos = np.stack(positions, axis=1)
    return pos, np.stack(actions, axis=1), env.at_goal(pos[:, 1:], goals_xy[:, None, :])


def evaluate(agent: Agent, env: PointMassMaze, far: np.ndarray, params, rng) -> dict[str, float]:
    """Deterministic tanh(mean) episodes, ``eval_episodes`` per far goal: success rate (reached at
    any step) and time at goal (fraction of steps within the radius).

    Parameters
    ----------
    agent : Agent
        The agent (its actor's tanh(mean) acts).
    env : sims.mazes.PointMassMaze
        The environment.
    far : numpy.ndarray of int, (m, 2)
        The far goal cells (:func:`far_goals`).
    params : dict
        The run's parameters; reads ``eval_episodes`` (8), ``horizon`` (100) and
        ``start_jitter`` (0.2).
    rng : numpy.random.Generator
        The source of the start jitter.

    Returns
    -------
    dict of str to float
        ``success`` (share of episodes that reached their goal) and ``time_at_goal`` (share of
        all steps spent at the goal).

    Examples
    --------
    >>> import numpy as np
    >>> from neural.crl import Agent, evaluate, far_goals
    >>> from sims.mazes import U_SMALL, GridMaze, PointMassMaze
    >>> maze = GridMaze.from_layout(U_SMALL)
    >>> env = PointMassMaze(maze, step=0.3, radius=0.35)
    >>> agent = Agent.build({"depth": 0, "width": 8})  # untrained
    >>> params = {"eval_episodes": 1, "horizon": 5}
    >>> result = evaluate(agent, env, far_goals(maze, 4), params, np.random.default_rng(0))
    >>> sorted(result), result["success"]  # 5 steps of 0.3 cannot reach a far goal
    (['success', 'time_at_goal'], 0.0)
    """
    goals = np.repeat(cell_centres(far), params.get("eval_episodes", 8), axis=0)
    _, _, hit = rollout(
        env, agent.actor.act_deterministic, goals, params.get("horizon", 100), rng,
        params.get("start_jitter", 0.2), agent.config.constant_feature,
        device=agent.log_alpha.device,
    )  # fmt: skip
    return {"success": float(hit.any(axis=1).mean()), "time_at_goal": float(hit.mean())}


def q_map(agent: Agent, env: PointMassMaze, resolution: int = 4) -> np.ndarray:
    """f(s_start, π̄(s_start, g), g) on a grid of goal positions (``resolution`` per cell; NaN in
    walls): the critic's value of the start state for every goal, with the actor's mean action.

    Parameters
    ----------
    agent : Agent
        The agent.
    env : sims.mazes.PointMassMaze
        The environment.
    resolution : int, optional
        Goal positions per cell along each axis (default 4).

    Returns
    -------
    numpy.ndarray of float, (rows·resolution, cols·resolution)
        f(s_start, tanh(mean), g) per goal position, NaN inside walls.

    Examples
    --------
    >>> import numpy as np
    >>> from neural.crl import Agent, q_map
    >>> from sims.mazes import U_SMALL, GridMaze, PointMassMaze
    >>> env = PointMassMaze(GridMaze.from_layout(U_SMALL), step=0.3, radius=0.35)
    >>> q = q_map(Agent.build({"depth": 0, "width": 8}), env, resolution=1)
    >>> q.shape, int(np.isnan(q).sum()), bool((q[~np.isnan(q)] <= 0).all())  # 18 wall cells
    ((5, 5), 18, True)
    """
    rows, cols = env.maze.walls.shape
    xs = (np.arange(cols * resolution) + 0.5) / resolution - 0.5
    ys = (np.arange(rows * resolution) + 0.5) / resolution - 0.5
    gx, gy = np.meshgrid(xs, ys)
    goals = np.stack([gx.ravel(), gy.ravel()], axis=1)
    s = torch.as_tensor(env.normalize(env.start_position()[None].repeat(len(goals), 0)),
                        dtype=torch.float32, device=agent.log_alpha.device)  # fmt: skip
    g = torch.as_tensor(env.normalize(goals), dtype=torch.float32, device=agent.log_alpha.device)
    with torch.no_grad():
        a = agent.actor.act_deterministic(agent.inputs(s, g))
        f = agent.critic.paired(agent.inputs(s, a), agent.inputs(g)).cpu().numpy().astype(float)
    f[env.in_wall(goals)] = np.nan
    return f.reshape(gx.shape)


# --------------------------------------------------------------------------------- training
def train_online_crl(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: online CRL on a point-mass maze (the CPU substitute of docs/deep_crl.md).

    ``params``: depth, epochs; optional layout (default the small U-maze), width 64, n_envs 32,
    horizon T 100, grad_steps (SGD steps per epoch of n_envs episodes) 32, batch 256, gamma 0.99,
    buffer_episodes 1600, lr 3e-4, config "cpu" (α₀ 0.05, α lr 3e-3, log-α loss, LN ε 1e-5, constant
    input; "reference": scaling-crl's α₀ 1, α lr 3e-4, α-loss with the factor α, LN ε 1e-6, raw
    inputs; see :data:`neural.deep_crl.CONFIGS`), far_moves 4, eval_every 5 epochs,
    eval_episodes 8 per far goal, start_jitter 0.2, step 0.3, radius 0.35, device (the torch
    device of the networks, default "cpu": they are initialised and every random draw is made
    on the CPU, then moved, so a seed gives the same run on every device up to float rounding),
    checkpoint_every (epochs; inside a cached sweep, the whole state after every that many
    epochs, i.e. agent, Adam states, replay buffer, the numpy and torch random streams and the
    curves so far, goes to ``online.pt`` in :func:`sims.sweep.task_checkpoint_dir`, and a killed
    run resumes from it bit-identically; episodes start afresh every epoch, so no environment
    state is carried).
    Commanded training goals are uniform over the layout's goal cells (for acting only); the
    actor and critic learn from relabeled future states. Returns the evaluation curves (env
    steps, far-goal success, far-goal time at goal), their mean over the last 3 evaluations,
    the training α/entropy/InfoNCE curves and the final Q-map from the start.

    Parameters
    ----------
    params : dict
        The run's parameters (above); ``depth`` (a multiple of 4) and ``epochs`` are required.
    rng : numpy.random.Generator
        The run's randomness: the torch seeds, the commanded goals, the exploration starts, the
        replay samples and the evaluation stream.

    Returns
    -------
    dict
        ``final_success`` and ``final_time_at_goal`` (floats), ``env_steps``, ``success`` and
        ``time_at_goal`` (arrays, one entry per evaluation), ``train_actor_loss``,
        ``train_alpha``, ``train_critic_infonce`` and ``train_entropy`` (arrays, one entry per
        epoch), ``grad_steps_total`` (int) and ``q_map`` (:func:`q_map` at the end).

    Raises
    ------
    ValueError
        If no goal cell is ``far_moves`` or more moves from the start.

    Examples
    --------
    Two epochs of two 5-step episodes and two SGD steps each:

    >>> import numpy as np
    >>> from neural.crl import train_online_crl
    >>> params = {"depth": 4, "width": 8, "epochs": 2, "n_envs": 2, "horizon": 5,
    ...           "grad_steps": 2, "batch": 4, "eval_every": 1, "eval_episodes": 1}
    >>> result = train_online_crl(params, np.random.default_rng(0))
    >>> result["env_steps"].tolist(), result["train_alpha"].shape, result["grad_steps_total"]
    ([10, 20], (2,), 4)
    >>> result["q_map"].shape
    (20, 20)
    """
    device = params.pop("device", "cpu")
    torch.set_num_threads(1)
    torch.manual_seed(int(rng.integers(2**63 - 1)))
    gen = torch.Generator().manual_seed(int(rng.integers(2**63 - 1)))
    maze = GridMaze.from_layout(params.get("layout", U_SMALL))
    env = PointMassMaze(maze, step=params.get("step", 0.3), radius=params.get("radius", 0.35))
    horizon, n_envs = params.get("horizon", 100), params.get("n_envs", 32)
    gamma, batch = params.get("gamma", 0.99), params.get("batch", 256)
    far = far_goals(maze, params.get("far_moves", 4))
    if len(far) == 0:
        raise ValueError("no goal cell is far_moves or more from the start")
    agent = Agent.build(params, device=device)  # initialised on the CPU, then moved
    buffer = EpisodeBuffer(params.get("buffer_episodes", 1600), horizon)
    eval_rng = np.random.default_rng(rng.integers(2**63 - 1))

    def explore(obs: torch.Tensor) -> torch.Tensor:
        return agent.actor.sample(obs, gen)[0]

    curves: dict[str, list[float]] = {k: [] for k in ("env_steps", "success", "time_at_goal")}
    train_log: dict[str, list[float]] = {}
    every, path = params.get("checkpoint_every"), checkpoint_path(params, "online.pt")
    run_id, done = run_key(params, gen.initial_seed()), 0
    if path is not None and (state := load_checkpoint(path, run_id)) is not None:
        agent.restore(state["agent"])
        buffer.restore(state["buffer"])
        gen.set_state(state["gen"])
        for r, name in ((rng, "rng"), (eval_rng, "eval_rng")):
            r.bit_generator.state = json.loads(state[name])
        done, curves, train_log = state["epoch"], state["curves"], state["train_log"]
    for epoch in range(done + 1, params["epochs"] + 1):
        goals = cell_centres(maze.goals[rng.integers(0, len(maze.goals), n_envs)])
        pos, actions, _ = rollout(
            env, explore, goals, horizon, rng, params.get("start_jitter", 0.2),
            agent.config.constant_feature, device=device,
        )  # fmt: skip
        buffer.add(env.normalize(pos), actions)
        stats = [agent.update(buffer.sample(batch, gamma, rng), gen)
                 for _ in range(params.get("grad_steps", 32))]  # fmt: skip
        for key in stats[0]:
            train_log.setdefault(key, []).append(float(np.mean([s[key] for s in stats])))
        if epoch % params.get("eval_every", 5) == 0 or epoch == params["epochs"]:
            result = evaluate(agent, env, far, params, eval_rng)
            curves["env_steps"].append(epoch * n_envs * horizon)
            curves["success"].append(result["success"])
            curves["time_at_goal"].append(result["time_at_goal"])
        if path is not None and (epoch % every == 0 or epoch == params["epochs"]):
            save_checkpoint(
                path,
                {"key": run_id, "epoch": epoch, "agent": agent.state(), "buffer": buffer.state(),
                 "gen": gen.get_state(), "rng": json.dumps(rng.bit_generator.state),
                 "eval_rng": json.dumps(eval_rng.bit_generator.state), "curves": curves,
                 "train_log": train_log},
            )  # fmt: skip
    return {
        "final_success": float(np.mean(curves["success"][-3:])),
        "final_time_at_goal": float(np.mean(curves["time_at_goal"][-3:])),
        **{k: np.asarray(v) for k, v in curves.items()},
        **{f"train_{k}": np.asarray(v) for k, v in train_log.items()},
        "grad_steps_total": params["epochs"] * params.get("grad_steps", 32),
        "q_map": q_map(agent, env),
    }
