"""The online CRL actor–critic of :mod:`neural.crl` trained for K seeds at once (one batched
actor and one batched critic, :class:`neural.batched.SeedStack`), on a chosen torch device.

:func:`train_online_crl_batched` is :func:`neural.crl.train_online_crl` for K generators in one
call. Each seed keeps everything the one-seed task gives it: its initialisation (torch's global
seed drawn from its generator, then :meth:`neural.crl.Agent.build`), its exploration and actor
noise (its own :class:`torch.Generator`), its commanded goals, start jitter and replay samples
(its numpy generator), its evaluation stream, its replay buffer and its Adam moments (Adam acts
elementwise on the stacked tensors). The per-seed losses are summed, so seed k's gradient is
∂L_k/∂θ_k. Seed k's record is therefore a draw of the one-seed task's law for ``rngs[k]``, and
equals ``train_online_crl(params, rngs[k])`` up to float32 reduction order (the batched matrix
products sum in another order) in short runs (tests/neural/test_crl_batched.py). Not in long
ones: the rollouts feed the actions back into the maze, whose wall test is a threshold, so once
the networks have trained, a rounding difference grows into another trajectory, as any other
summation order (another device, say) would make it grow. Measured at the claim's per-step
sizes (depth 16, 32 episodes of 100 steps, 64 SGD steps of batch 256 per epoch): the first
epoch's rollouts agree exactly; the second's separate by up to 0.1 cells, and the records end
up to 0.05 apart.

The one-seed methods are reused unchanged: :class:`neural.batched.SeedStack` maps a model's
``forward``, so each one-seed actor and critic is wrapped in a module whose ``forward`` calls
the named method (``distribution``, ``act_deterministic``, ``paired``); the tanh-Gaussian
sample of each seed is :meth:`neural.crl.Actor.sample` on that seed's slice of the batched
distribution, with that seed's generator; the rollouts are :func:`neural.crl.rollout` on the
K·E episodes of all seeds, each seed's start jitter drawn from its own generator; the Q-maps
are :func:`neural.crl.q_map` of each seed's trained agent. The one-seed task clips no
gradient, and neither does this.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import nn

from neural.batched import SeedStack
from neural.crl import (
    ACTION_DIM,
    Actor,
    Agent,
    EpisodeBuffer,
    cell_centres,
    far_goals,
    q_map,
    rollout,
)
from neural.deep_crl import critic_loss, infonce_terms
from sims.mazes import U_SMALL, GridMaze, PointMassMaze

__all__ = ["train_online_crl_batched"]

#: The training statistics of :meth:`neural.crl.Agent.update`, in its order.
_STATS = ("critic_infonce", "actor_loss", "entropy", "alpha")


class _Methods(nn.Module):
    """A module whose ``forward(name, *args)`` is ``module.name(*args)``: with it,
    :class:`neural.batched.SeedStack` (which maps ``forward``) maps any method of the wrapped
    one-seed module."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, method: str, *args: torch.Tensor) -> Any:
        return getattr(self.module, method)(*args)


class _Distribution(NamedTuple):
    """One seed's slice of the batched actor output, standing in for its actor in
    :meth:`neural.crl.Actor.sample` (which reads only ``distribution``)."""

    mean: torch.Tensor
    log_std: torch.Tensor

    def distribution(self, obs: None) -> tuple[torch.Tensor, torch.Tensor]:  # noqa: ARG002
        return self.mean, self.log_std


class _SeedDraws:
    """K numpy generators read by :func:`neural.crl.rollout` as one: ``uniform(low, high,
    (K·E, d))`` is each seed's own ``uniform(low, high, (E, d))``, stacked in seed order."""

    def __init__(self, rngs: Sequence[np.random.Generator]) -> None:
        self.rngs = rngs

    def uniform(self, low: float, high: float, size: tuple[int, ...]) -> np.ndarray:
        n, *rest = size
        per_seed = (n // len(self.rngs), *rest)
        return np.concatenate([rng.uniform(low, high, per_seed) for rng in self.rngs])


class _Seed(NamedTuple):
    """What a seed owns besides its networks' place in the stacks: its one-seed agent (the
    networks before stacking, and after :meth:`_BatchedAgent.trained_agent`), its generators
    (the task's, the noise's, the evaluation's) and its replay buffer."""

    agent: Agent
    rng: np.random.Generator
    gen: torch.Generator
    buffer: EpisodeBuffer
    eval_rng: np.random.Generator


def _seed_setup(params: dict[str, Any], rng: np.random.Generator, device: torch.device) -> _Seed:
    """One seed's draws, in the one-seed task's order: torch's global seed (the networks' init),
    the noise generator's seed, the agent, the buffer, the evaluation stream's seed."""
    torch.manual_seed(int(rng.integers(2**63 - 1)))
    gen = torch.Generator().manual_seed(int(rng.integers(2**63 - 1)))
    agent = Agent.build(params, device=device)  # initialised on the CPU, then moved
    buffer = EpisodeBuffer(params.get("buffer_episodes", 1600), params.get("horizon", 100))
    eval_rng = np.random.default_rng(rng.integers(2**63 - 1))
    return _Seed(agent, rng, gen, buffer, eval_rng)


def _optimizer_like(
    opt: torch.optim.Optimizer, params: list[torch.Tensor]
) -> torch.optim.Optimizer:
    """An optimiser of ``opt``'s class and settings over ``params``."""
    return type(opt)(params, **opt.defaults)


class _BatchedAgent:
    """The K seeds' actors, critics and log α stacked along a leading seed axis, with one Adam
    per stack built with the one-seed agent's settings."""

    def __init__(self, seeds: Sequence[_Seed], device: torch.device) -> None:
        self.seeds, self.device = seeds, device
        self.template = seeds[0].agent  # the config, target entropy and input layout (shared)
        self.actor_views = [_Methods(s.agent.actor) for s in seeds]
        self.critic_views = [_Methods(s.agent.critic) for s in seeds]
        self.actors = SeedStack(self.actor_views, device)
        self.critics = SeedStack(self.critic_views, device)
        log_alpha = torch.stack([s.agent.log_alpha.detach() for s in seeds])  # (K,)
        self.log_alpha = log_alpha.to(device).requires_grad_()
        self.opt_actor = _optimizer_like(self.template.opt_actor, list(self.actors.parameters()))
        self.opt_critic = _optimizer_like(self.template.opt_critic, list(self.critics.parameters()))
        self.opt_alpha = _optimizer_like(self.template.opt_alpha, [self.log_alpha])

    def sample(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Each seed's tanh-Gaussian action and log π on its inputs ``obs`` (K, B, d), drawn
        with its own generator by :meth:`neural.crl.Actor.sample`: (K, B, 2) and (K, B)."""
        mean, log_std = self.actors.per_seed(lambda m, x: m("distribution", x), obs)
        drawn = [
            Actor.sample(_Distribution(m, s), None, seed.gen)
            for m, s, seed in zip(mean, log_std, self.seeds, strict=True)
        ]
        return torch.stack([a for a, _ in drawn]), torch.stack([lp for _, lp in drawn])

    def policy(self, explore: bool) -> Callable[[torch.Tensor], torch.Tensor]:
        """The K seeds' policy for :func:`neural.crl.rollout`: network inputs (K·E, d), seed k's
        episodes in rows k·E … (k+1)·E − 1, to actions (K·E, 2); sampled with ``explore``,
        else tanh(mean)."""

        def act(obs: torch.Tensor) -> torch.Tensor:
            obs = obs.reshape(len(self.seeds), -1, obs.shape[-1])  # (K, E, d)
            if explore:
                actions = self.sample(obs)[0]
            else:
                actions = self.actors.per_seed(lambda m, x: m("act_deterministic", x), obs)
            return actions.reshape(-1, ACTION_DIM)

        return act

    def _alpha_loss(self, log_alpha: torch.Tensor, log_pi: torch.Tensor) -> torch.Tensor:
        """One seed's :meth:`neural.crl.Agent.alpha_loss` (under vmap: a slice of each)."""
        return replace(self.template, log_alpha=log_alpha).alpha_loss(log_pi)

    def update(self, batches: Sequence[dict[str, np.ndarray]]) -> torch.Tensor:
        """One SGD step of every seed on its batch, in :meth:`neural.crl.Agent.update`'s order
        (actor and α, then the critic); returns the statistics (K, 4) in :data:`_STATS` order."""
        s, a, g = (
            torch.as_tensor(np.stack([b[k] for b in batches]), dtype=torch.float32,
                            device=self.device)
            for k in ("state", "action", "goal")
        )  # fmt: skip  # (K, B, 2) each
        inputs = self.template.inputs
        alpha = self.log_alpha.exp().detach()  # (K,)
        a_pi, log_pi = self.sample(torch.func.vmap(inputs)(s, g))  # (K, B, 2), (K, B)
        f_pi = self.critics.per_seed(
            lambda m, s, a, g: m("paired", inputs(s, a), inputs(g)), s, a_pi, g
        )  # (K, B)
        actor_loss = (alpha[:, None] * log_pi - f_pi).mean(dim=1)  # (K,)
        self.opt_actor.zero_grad()
        actor_loss.sum().backward(inputs=list(self.actors.parameters()))
        self.opt_actor.step()
        alpha_loss = torch.func.vmap(self._alpha_loss)(self.log_alpha, log_pi)  # (K,)
        self.opt_alpha.zero_grad()
        alpha_loss.sum().backward()
        self.opt_alpha.step()
        logits = self.critics.per_seed(
            lambda m, s, a, g: m("forward", inputs(s, a), inputs(g)), s, a, g
        )  # (K, B, B)
        self.opt_critic.zero_grad()
        torch.func.vmap(critic_loss)(logits).sum().backward()
        self.opt_critic.step()
        nce = torch.func.vmap(infonce_terms)(logits.detach())[0]
        entropy = -log_pi.detach().mean(dim=1)
        return torch.stack([nce, actor_loss.detach(), entropy, self.log_alpha.detach().exp()], 1)

    def trained_agent(self, seed: int) -> Agent:
        """Seed ``seed``'s one-seed agent with its trained networks and log α."""
        self.actors.load_into(self.actor_views[seed], seed)
        self.critics.load_into(self.critic_views[seed], seed)
        agent = self.seeds[seed].agent
        with torch.no_grad():
            agent.log_alpha.copy_(self.log_alpha[seed])
        return agent


def _evaluate(
    agents: _BatchedAgent, env: PointMassMaze, far: np.ndarray, params: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`neural.crl.evaluate` of every seed (its own evaluation stream): success rates
    (K,) and times at goal (K,)."""
    goals = np.repeat(cell_centres(far), params.get("eval_episodes", 8), axis=0)  # (E, 2)
    n_seeds = len(agents.seeds)
    _, _, hit = rollout(
        env, agents.policy(explore=False), np.tile(goals, (n_seeds, 1)),
        params.get("horizon", 100), _SeedDraws([s.eval_rng for s in agents.seeds]),
        params.get("start_jitter", 0.2), agents.template.config.constant_feature,
        device=agents.device,
    )  # fmt: skip
    hit = hit.reshape(n_seeds, len(goals), -1)  # (K, E, T)
    return hit.any(axis=2).mean(axis=1), hit.mean(axis=(1, 2))


def train_online_crl_batched(
    params: dict[str, Any],
    rngs: Sequence[np.random.Generator],
    device: str | torch.device = "cpu",
) -> list[dict[str, Any]]:
    """:func:`neural.crl.train_online_crl` for K = ``len(rngs)`` seeds trained as one batched
    actor and one batched critic on ``device``; returns the K records, record k as the one-seed
    task returns it for ``rngs[k]``.

    Parameters
    ----------
    params : dict
        The one-seed task's parameters (depth, epochs, width, n_envs, horizon, grad_steps,
        batch, config, ...); ``checkpoint_every`` and ``device`` are not taken (ValueError: the
        device is the argument ``device``).
    rngs : sequence of numpy.random.Generator
        One generator per seed, in the state the one-seed task would receive it.
    device : str or torch.device, optional
        The torch device of the stacked networks and of every batch (default ``"cpu"``); the
        networks are initialised and every random draw is made on the CPU, as by the one-seed
        task.

    Returns
    -------
    list of dict
        K records, record k with the keys and meaning of
        :func:`neural.crl.train_online_crl`'s for ``rngs[k]`` (the same numbers up to float
        rounding in short runs only: see the module's docstring).

    Raises
    ------
    ValueError
        If ``rngs`` is empty, ``params`` holds ``checkpoint_every`` or ``device``, ``epochs`` is
        below 1, or no goal cell is ``far_moves`` or more moves from the start.

    Notes
    -----
    Per SGD step, every seed k samples its batch (s, a, g) from its own buffer (g a relabeled
    future state of the same episode) and, as in the authors' code (Wang et al. 2025, arXiv
    2503.14858), updates its actor on E[α_k log π_k(a|s,g) − f_k(s, a, g)], a ~ π_k, its α_k
    on the config's entropy loss, then its critic on InfoNCE + λ·mean_i(LSE_j F_ij)²
    (:func:`neural.deep_crl.critic_loss`). Each optimiser steps on Σ_k L_k, whose gradient in
    seed k's parameters is ∂L_k/∂θ_k.

    Examples
    --------
    Two seeds, two epochs of two 5-step episodes and two SGD steps each; seed 1's record is its
    one-seed run's:

    >>> import numpy as np
    >>> from neural.crl import train_online_crl
    >>> from neural.crl_batched import train_online_crl_batched
    >>> params = {"depth": 4, "width": 8, "epochs": 2, "n_envs": 2, "horizon": 5,
    ...           "grad_steps": 2, "batch": 4, "eval_every": 1, "eval_episodes": 1}
    >>> records = train_online_crl_batched(params, [np.random.default_rng(s) for s in (0, 1)])
    >>> len(records), records[1]["env_steps"].tolist(), records[1]["q_map"].shape
    (2, [10, 20], (20, 20))
    >>> alone = train_online_crl(params, np.random.default_rng(1))
    >>> bool(np.allclose(records[1]["train_actor_loss"], alone["train_actor_loss"], rtol=1e-5))
    True
    """
    if not rngs:
        raise ValueError("rngs must hold at least one generator")
    for key in ("checkpoint_every", "device"):
        if params.get(key) is not None:
            raise ValueError(f"params[{key!r}] is not taken by the batched online trainer")
    if params["epochs"] < 1:
        raise ValueError(f"epochs must be a positive integer (got {params['epochs']!r})")
    device = torch.device(device)
    torch.set_num_threads(1)
    maze = GridMaze.from_layout(params.get("layout", U_SMALL))
    env = PointMassMaze(maze, step=params.get("step", 0.3), radius=params.get("radius", 0.35))
    horizon, n_envs = params.get("horizon", 100), params.get("n_envs", 32)
    gamma, batch = params.get("gamma", 0.99), params.get("batch", 256)
    far = far_goals(maze, params.get("far_moves", 4))
    if len(far) == 0:
        raise ValueError("no goal cell is far_moves or more from the start")
    seeds = [_seed_setup(params, rng, device) for rng in rngs]
    agents = _BatchedAgent(seeds, device)
    every = params.get("eval_every", 5)
    curves: dict[str, list] = {k: [] for k in ("env_steps", "success", "time_at_goal")}
    train_log: list[np.ndarray] = []  # per epoch, (K, 4)
    for epoch in range(1, params["epochs"] + 1):
        goals = np.concatenate(
            [cell_centres(maze.goals[s.rng.integers(0, len(maze.goals), n_envs)]) for s in seeds]
        )  # (K·n_envs, 2), seed by seed
        pos, actions, _ = rollout(
            env, agents.policy(explore=True), goals, horizon, _SeedDraws([s.rng for s in seeds]),
            params.get("start_jitter", 0.2), agents.template.config.constant_feature,
            device=device,
        )  # fmt: skip
        for k, seed in enumerate(seeds):
            rows = slice(k * n_envs, (k + 1) * n_envs)
            seed.buffer.add(env.normalize(pos[rows]), actions[rows])
        stats = [
            agents.update([s.buffer.sample(batch, gamma, s.rng) for s in seeds])
            for _ in range(params.get("grad_steps", 32))
        ]  # (K, 4) per step
        train_log.append(torch.stack(stats).cpu().numpy().astype(float).mean(axis=0))
        if epoch % every == 0 or epoch == params["epochs"]:
            success, time_at_goal = _evaluate(agents, env, far, params)
            curves["env_steps"].append(epoch * n_envs * horizon)
            curves["success"].append(success)
            curves["time_at_goal"].append(time_at_goal)
    log = np.stack(train_log, axis=1)  # (K, epochs, 4)
    success, time_at_goal = np.stack(curves["success"], 1), np.stack(curves["time_at_goal"], 1)
    return [
        {
            "final_success": float(np.mean(success[k][-3:])),
            "final_time_at_goal": float(np.mean(time_at_goal[k][-3:])),
            "env_steps": np.asarray(curves["env_steps"]),
            "success": success[k],
            "time_at_goal": time_at_goal[k],
            **{f"train_{name}": log[k, :, i] for i, name in enumerate(_STATS)},
            "grad_steps_total": params["epochs"] * params.get("grad_steps", 32),
            "q_map": q_map(agents.trained_agent(k), env),
        }
        for k in range(len(seeds))
    ]
