"""Arm A of the RLVR reproduction: a shared-strategy softmax policy trained by GRPO, by
distillation from a teacher, and (control) with per-problem tabular logits
(docs/rlvr.md#rlvr-tiny-reproduction-arm-a-toy-arm-b-transformer).

A *problem* i has a success probability g[i, s] for each of S "strategies" (reasoning modes). A
policy picks a strategy s with probability π(s ∣ x_i) = softmax(θ + x_iᵀW + T_i)_s, where x_i is the
problem's context and T_i an optional per-problem (tabular) logit row; the sample then passes the
verifier with probability g[i, s]. A problem's single-sample success probability is therefore
exact,

    p_i = Σ_s π(s ∣ x_i) g[i, s],

so every pass@k curve here is exact, 1 − (1 − p_i)^k averaged over problems. Sampling is used only
inside training (GRPO rollouts, teacher samples) and for the per-sample files that
``paper-checks solve passk`` replays.

Parameter sharing is the point: with θ and W shared across problems, raising the strategies that
pay off on many problems lowers the rare strategies everywhere, including on the problems only a
rare strategy solves. With SNR = 0 the context carries no information about which strategies
solve a problem; larger SNR lets W route problems to their own strategies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import special

from theory import _domain

__all__ = [
    "Policy",
    "Problems",
    "ToyConfig",
    "base_learned",
    "base_policy",
    "distill",
    "group_advantages",
    "grpo",
    "make_problems",
    "policy_probs",
    "sample_counts",
    "success_probs",
    "teacher_policy",
    "toy_arms_task",
]


@dataclass(frozen=True)
class ToyConfig:
    """The toy world and its training recipe (defaults: Arm A as designed before the runs)."""

    n_strategies: int = 16  #: S; the last one is the "new" strategy only the teacher knows
    popularity: float = 0.45  #: base logits θ0_s = −popularity·s (Zipf-like pretraining mass)
    new_logit: float = -12.0  #: base logit of the new strategy (≈ 1e-6 of the mass)
    teacher_new_logit: float = 1.0  #: the teacher is the base with this new-strategy logit
    n_common: int = 3  #: strategies 0 .. n_common−1 are "common"
    p_common: float = 0.55  #: chance a common strategy solves a (non-hard) problem
    p_rare: float = 0.12  #: chance a rare strategy solves a (non-hard) problem
    g_low: float = 0.3  #: a solving base strategy succeeds with g ~ U(g_low, 1)
    hard_frac: float = 0.2  #: problems no base strategy solves
    new_frac: float = 0.3  #: fraction of non-hard problems the new strategy also solves
    new_success: float = 0.8  #: g of the new strategy where it solves
    snr: float = 0.0  #: context x = snr·1[g > 0] + N(0, I)
    #: Training problems.
    n_train: int = 400
    #: Test problems.
    n_test: int = 400
    prompts: int = 64  #: prompts per GRPO / distillation step
    group: int = 8  #: samples per prompt
    #: Learning rate of the policy's gradient steps.
    lr: float = 0.5
    kl: float = 0.0  #: KL(π ‖ π_base) weight in GRPO (0: none, the paper's setting)


@dataclass(frozen=True)
class Problems:
    """A set of problems: success probabilities ``g`` (P, S) and contexts ``x`` (P, S)."""

    #: (P, S) success probability of each strategy on each problem
    g: np.ndarray
    #: (P, S) context seen by the policy
    x: np.ndarray
    #: (P,) bool: no base strategy solves the problem
    hard: np.ndarray

    def __len__(self) -> int:
        return self.g.shape[0]


@dataclass(frozen=True)
class Policy:
    """Logits θ + xᵀW (shared) + T_i (tabular, one row per problem of the training set).

    A tabular policy (``table`` not None) trains only ``table``; a shared one only θ and W.
    """

    #: (S,)
    theta: np.ndarray
    #: (S, S) context weights, x (·, S) @ w -> logits (·, S)
    w: np.ndarray
    #: (P, S) per-problem logits, or None
    table: np.ndarray | None = None

    def logits(self, problems: Problems, idx: np.ndarray | None = None) -> np.ndarray:
        """Logits (B, S) for the problems ``idx`` (all when None)."""
        idx = np.arange(len(problems)) if idx is None else idx
        z = self.theta + problems.x[idx] @ self.w  # (B, S)
        return z if self.table is None else z + self.table[idx]


def make_problems(cfg: ToyConfig, n: int, rng: np.random.Generator) -> Problems:
    """Draw ``n`` problems of the toy world.

    Each common strategy solves a non-hard problem with probability ``p_common``, each rare one
    with ``p_rare``, with g ~ U(g_low, 1); a fraction ``hard_frac`` of problems is solved by no
    base strategy; the new strategy solves every hard problem and a fraction ``new_frac`` of the
    others, with g = ``new_success``. The context is x = snr·1[g > 0] + N(0, I).

    Parameters
    ----------
    cfg : ToyConfig
        The world.
    n : int
        Problems drawn.
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    Problems
        ``g`` and ``x`` of shape (n, S), ``hard`` of shape (n,).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_toy import ToyConfig, make_problems
    >>> problems = make_problems(ToyConfig(), 50, np.random.default_rng(0))
    >>> problems.g.shape, problems.x.shape, int(problems.hard.sum())
    ((50, 16), (50, 16), 9)
    >>> bool((problems.g[problems.hard, -1] == 0.8).all())  # only the new strategy solves them
    True
    """
    s = cfg.n_strategies
    hard = rng.random(n) < cfg.hard_frac  # (n,)
    chance = np.where(np.arange(s - 1) < cfg.n_common, cfg.p_common, cfg.p_rare)  # (S−1,)
    solves = (rng.random((n, s - 1)) < chance) & ~hard[:, None]  # (n, S−1)
    g_base = np.where(solves, rng.uniform(cfg.g_low, 1.0, size=(n, s - 1)), 0.0)
    new = hard | (rng.random(n) < cfg.new_frac)  # (n,)
    g = np.concatenate([g_base, np.where(new, cfg.new_success, 0.0)[:, None]], axis=1)  # (n, S)
    x = cfg.snr * (g > 0) + rng.standard_normal((n, s))  # (n, S)
    return Problems(g=g, x=x, hard=hard)


def base_policy(cfg: ToyConfig) -> Policy:
    """The base (pretrained) policy: θ0_s = −popularity·s, the new strategy at ``new_logit``;
    W = 0.

    Parameters
    ----------
    cfg : ToyConfig
        The world.

    Returns
    -------
    Policy
        The shared (non-tabular) base policy.

    Examples
    --------
    >>> from sims.rlvr_toy import ToyConfig, base_policy
    >>> policy = base_policy(ToyConfig())
    >>> policy.theta[:3].round(2).tolist(), float(policy.theta[-1]), policy.w.shape
    ([-0.0, -0.45, -0.9], -12.0, (16, 16))
    """
    s = cfg.n_strategies
    theta = -cfg.popularity * np.arange(s, dtype=float)
    theta[-1] = cfg.new_logit
    return Policy(theta=theta, w=np.zeros((s, s)))


def teacher_policy(cfg: ToyConfig) -> Policy:
    """The distillation teacher: the base with the new strategy's logit raised to
    ``teacher_new_logit``.

    Parameters
    ----------
    cfg : ToyConfig
        The world.

    Returns
    -------
    Policy
        The teacher.

    Examples
    --------
    >>> from sims.rlvr_toy import ToyConfig, teacher_policy
    >>> float(teacher_policy(ToyConfig()).theta[-1])
    1.0
    """
    base = base_policy(cfg)
    theta = base.theta.copy()
    theta[-1] = cfg.teacher_new_logit
    return replace(base, theta=theta)


def policy_probs(policy: Policy, problems: Problems, idx: np.ndarray | None = None) -> np.ndarray:
    """π(s ∣ x_i) = softmax(θ + x_iᵀW + T_i)_s, the policy's strategy probabilities.

    Parameters
    ----------
    policy : Policy
        The policy.
    problems : Problems
        The problems.
    idx : numpy.ndarray of int or None
        Rows of ``problems`` (all when None).

    Returns
    -------
    numpy.ndarray of float, (B, S)
        One distribution over strategies per problem.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_toy import ToyConfig, base_policy, make_problems, policy_probs
    >>> cfg = ToyConfig()
    >>> probs = policy_probs(base_policy(cfg), make_problems(cfg, 50, np.random.default_rng(0)))
    >>> probs.shape, bool(np.allclose(probs.sum(axis=1), 1))
    ((50, 16), True)
    """
    return special.softmax(policy.logits(problems, idx), axis=1)


def success_probs(policy: Policy, problems: Problems) -> np.ndarray:
    """Exact per-problem success probability p_i = Σ_s π(s ∣ x_i) g[i, s].

    Parameters
    ----------
    policy : Policy
        The policy.
    problems : Problems
        The problems.

    Returns
    -------
    numpy.ndarray of float, (P,)
        p_i for every problem.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_toy import ToyConfig, base_policy, make_problems, success_probs
    >>> from sims.rlvr_toy import teacher_policy
    >>> cfg = ToyConfig()
    >>> problems = make_problems(cfg, 50, np.random.default_rng(0))
    >>> round(float(success_probs(base_policy(cfg), problems).mean()), 3)
    0.193
    >>> round(float(success_probs(teacher_policy(cfg), problems).mean()), 3)
    0.264
    """
    return np.einsum("ps,ps->p", policy_probs(policy, problems), problems.g)


def _sample_strategies(probs: np.ndarray, group: int, rng: np.random.Generator) -> np.ndarray:
    """``group`` strategies per row of ``probs`` (B, S) by inverse CDF, (B, group)."""
    cdf = np.cumsum(probs, axis=1)  # (B, S)
    u = rng.random((probs.shape[0], group)) * cdf[:, -1:]  # (B, G)
    picks = (u[:, :, None] >= cdf[:, None, :]).sum(axis=2)  # (B, G)
    return np.minimum(picks, probs.shape[1] - 1)


def group_advantages(rewards: np.ndarray) -> np.ndarray:
    """GRPO's group-normalised advantage A_ij = (r_ij − mean_j r_i) / std_j r_i, zero for a group
    whose rewards are all equal.

    Parameters
    ----------
    rewards : numpy.ndarray of float, (B, G)
        Rewards of the G samples of each of B prompts.

    Returns
    -------
    numpy.ndarray of float, (B, G)
        The advantages.

    Raises
    ------
    ValueError
        Unless ``rewards`` is a non-empty 2-D array of finite reals.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_toy import group_advantages
    >>> group_advantages(np.array([[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])).tolist()
    [[1.0, -1.0, -1.0, 1.0], [0.0, 0.0, 0.0, 0.0]]
    """
    if not isinstance(rewards, np.ndarray) or rewards.ndim != 2:
        raise ValueError(f"rewards must be a 2-D numpy array (got {type(rewards).__name__})")
    _domain.reals("rewards", rewards)
    centred = rewards - rewards.mean(axis=1, keepdims=True)
    std = rewards.std(axis=1, keepdims=True)
    return np.divide(centred, std, out=np.zeros_like(centred), where=std > 0)


def _apply_logit_gradient(
    policy: Policy, problems: Problems, idx: np.ndarray, grad: np.ndarray, lr: float
) -> Policy:
    """Ascend along ``grad`` (B, S), the gradient of the objective with respect to the logits of
    problems ``idx``: chain rule into the table (tabular) or into θ and W (shared, batch mean)."""
    if policy.table is not None:
        table = policy.table.copy()
        np.add.at(table, idx, lr * grad)
        return replace(policy, table=table)
    theta = policy.theta + lr * grad.mean(axis=0)
    w = policy.w + lr * problems.x[idx].T @ grad / idx.size
    return replace(policy, theta=theta, w=w)


def _score_gradient(probs: np.ndarray, picks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ_j weights_ij (e_{s_ij} − π_i) / G: the logit gradient of Σ_j weights_ij log π(s_ij ∣ x_i)
    averaged over the G samples of each prompt, (B, S)."""
    b, s = probs.shape
    onehot_sum = np.zeros((b, s))
    np.add.at(onehot_sum, (np.repeat(np.arange(b), picks.shape[1]), picks.ravel()), weights.ravel())
    return (onehot_sum - weights.sum(axis=1, keepdims=True) * probs) / picks.shape[1]


def _kl_gradient(probs: np.ndarray, ref_probs: np.ndarray) -> np.ndarray:
    """Logit gradient of KL(π ‖ π_ref) = Σ_s π_s log(π_s / π_ref,s): π ⊙ (log π/π_ref − KL)."""
    log_ratio = np.log(probs) - np.log(ref_probs)  # (B, S)
    kl = np.sum(probs * log_ratio, axis=1, keepdims=True)
    return probs * (log_ratio - kl)


def grpo(
    policy: Policy,
    problems: Problems,
    cfg: ToyConfig,
    steps: int,
    rng: np.random.Generator,
    *,
    checkpoints: tuple[int, ...] = (),
    reference: Policy | None = None,
) -> tuple[Policy, dict[int, Policy]]:
    """GRPO with a Bernoulli verifier reward.

    Each step draws ``cfg.prompts`` problems, ``cfg.group`` strategies per problem from π,
    rewards r ~ Bernoulli(g[i, s]), and ascends

        (1/BG) Σ_ij A_ij ∇ log π(s_ij ∣ x_i) − kl · (1/B) Σ_i ∇ KL(π(· ∣ x_i) ‖ π_ref(· ∣ x_i))

    with A the group-normalised advantage (:func:`group_advantages`, as GRPO in the paper's
    RL-algorithm comparison) and π_ref = ``reference``. A tabular policy trains only its table, a
    shared one only θ and W (:class:`Policy`).

    Parameters
    ----------
    policy : Policy
        The starting policy.
    problems : Problems
        The training problems (at least ``cfg.prompts``).
    cfg : ToyConfig
        The recipe: ``prompts``, ``group``, ``lr``, ``kl``.
    steps : int
        Gradient steps.
    rng : numpy.random.Generator
        Source of the prompts, samples and rewards.
    checkpoints : tuple of int
        Step counts after which the policy is kept.
    reference : Policy or None
        π_ref of the KL term (default: the starting policy).

    Returns
    -------
    policy : Policy
        The final policy.
    saved : dict of int to Policy
        The policy after each step count of ``checkpoints``.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_toy import ToyConfig, base_policy, grpo, make_problems, success_probs
    >>> cfg = ToyConfig(n_train=100, prompts=16)
    >>> problems = make_problems(cfg, 100, np.random.default_rng(1))
    >>> base = base_policy(cfg)
    >>> rng = np.random.default_rng(2)
    >>> policy, saved = grpo(base, problems, cfg, 50, rng, checkpoints=(10, 50))
    >>> sorted(saved), round(float(success_probs(base, problems).mean()), 3)
    ([10, 50], 0.218)
    >>> round(float(success_probs(policy, problems).mean()), 3)  # RL raises pass@1
    0.335
    """
    reference = policy if reference is None else reference
    saved: dict[int, Policy] = {}
    for step in range(1, steps + 1):
        idx = rng.choice(len(problems), size=cfg.prompts, replace=False)  # (B,)
        probs = policy_probs(policy, problems, idx)  # (B, S)
        picks = _sample_strategies(probs, cfg.group, rng)  # (B, G)
        rewards = (rng.random(picks.shape) < problems.g[idx[:, None], picks]).astype(float)
        grad = _score_gradient(probs, picks, group_advantages(rewards))
        if cfg.kl > 0:
            grad -= cfg.kl * _kl_gradient(probs, policy_probs(reference, problems, idx))
        policy = _apply_logit_gradient(policy, problems, idx, grad, cfg.lr)
        if step in checkpoints:
            saved[step] = policy
    return policy, saved


def distill(
    student: Policy,
    teacher: Policy,
    problems: Problems,
    cfg: ToyConfig,
    steps: int,
    rng: np.random.Generator,
) -> Policy:
    """Supervised fine-tuning on the teacher's verified samples: each step the teacher answers
    ``cfg.prompts`` problems ``cfg.group`` times, the verifier keeps the correct samples, and the
    student ascends the mean log-likelihood (1/BG) Σ_ij [correct_ij] ∇ log π(s_ij ∣ x_i).

    Parameters
    ----------
    student : Policy
        The starting student.
    teacher : Policy
        The teacher (e.g. :func:`teacher_policy`).
    problems : Problems
        The training problems.
    cfg : ToyConfig
        The recipe: ``prompts``, ``group``, ``lr``.
    steps : int
        Gradient steps.
    rng : numpy.random.Generator
        Source of the prompts, samples and verdicts.

    Returns
    -------
    Policy
        The trained student.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_toy import ToyConfig, base_policy, distill, make_problems, policy_probs
    >>> from sims.rlvr_toy import teacher_policy
    >>> cfg = ToyConfig(n_train=100, prompts=16)
    >>> problems = make_problems(cfg, 100, np.random.default_rng(1))
    >>> base = base_policy(cfg)
    >>> student = distill(base, teacher_policy(cfg), problems, cfg, 50, np.random.default_rng(3))
    >>> new_mass = lambda policy: float(policy_probs(policy, problems)[:, -1].mean())
    >>> new_mass(base) < 1e-5 < 1e-3 < new_mass(student)  # the new strategy is learned
    True
    """
    for _ in range(steps):
        idx = rng.choice(len(problems), size=cfg.prompts, replace=False)
        picks = _sample_strategies(policy_probs(teacher, problems, idx), cfg.group, rng)
        correct = (rng.random(picks.shape) < problems.g[idx[:, None], picks]).astype(float)
        grad = _score_gradient(policy_probs(student, problems, idx), picks, correct)
        student = _apply_logit_gradient(student, problems, idx, grad, cfg.lr)
    return student


def base_learned(base_pass1: float, chance_pass1: float, margin: float) -> bool:
    """The gate before RL: base pass@1 ≥ chance + ``margin`` and ≥ 3 × chance (RL needs a base
    that learned something: pass@1 well above chance).

    Parameters
    ----------
    base_pass1 : float
        The base model's pass@1, in [0, 1].
    chance_pass1 : float
        Chance pass@1, in [0, 1].
    margin : float
        Required excess over chance, a finite real ≥ 0.

    Returns
    -------
    bool
        Whether the base passes the gate.

    Raises
    ------
    ValueError
        Unless the pass@1's lie in [0, 1] and ``margin`` is a finite real ≥ 0.

    Examples
    --------
    >>> from sims.rlvr_toy import base_learned
    >>> base_learned(0.30, 0.05, 0.1), base_learned(0.12, 0.05, 0.1)
    (True, False)
    """
    base_pass1 = _domain.real("base_pass1", base_pass1, minimum=0.0, maximum=1.0)
    chance_pass1 = _domain.real("chance_pass1", chance_pass1, minimum=0.0, maximum=1.0)
    margin = _domain.real("margin", margin, minimum=0.0)
    return bool(base_pass1 >= max(chance_pass1 + margin, 3.0 * chance_pass1))


def sample_counts(p: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Correct samples out of ``n`` per problem, c_i ~ Binomial(n, p_i) (the verifier's record of
    ``n`` independent samples).

    Parameters
    ----------
    p : numpy.ndarray of float, (P,)
        Success probabilities (clipped into [0, 1]).
    n : int
        Samples per problem.
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    numpy.ndarray of int64, (P,)
        The counts c_i.

    Raises
    ------
    ValueError
        Naming ``p`` unless it is a non-empty 1-D array of finite reals, or ``n`` unless it is
        an integer ≥ 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_toy import sample_counts
    >>> sample_counts(np.array([0.0, 0.5, 1.0]), 10, np.random.default_rng(0)).tolist()
    [0, 6, 10]
    """
    _domain.reals("p", p, ndim=1)
    _domain.integer("n", n, minimum=1)
    return rng.binomial(n, np.clip(p, 0.0, 1.0)).astype(np.int64)


#: Training lengths of the arms (fixed before the runs): GRPO checkpoints, distillation, tabular
#: control.
GRPO_CHECKPOINTS = (150, 400, 800)
DISTILL_STEPS = 400
DISTILL_GRPO_STEPS = 400


def toy_arms_task(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Sweep task: one seed of every Arm A arm.

    With ``world`` every seed of a sweep sees the same train and test problems and only training
    varies (as in the pilot made before the claims: one set of 400 train and 400 test problems,
    five RL seeds, a single base row, training-seed SD ≈ 0.005); without it each seed draws its
    own problems from ``rng``. Draws train and test problems, trains from the base (GRPO for
    ``GRPO_CHECKPOINTS`` steps, distillation for ``DISTILL_STEPS`` then GRPO for
    ``DISTILL_GRPO_STEPS``, the tabular control), and returns the exact per-problem success
    probabilities.

    Parameters
    ----------
    params : dict
        ``snr`` and optional overrides of :class:`ToyConfig` fields (``kl``, ``n_test``, ...),
        ``arms``, a subset of {"grpo", "distill", "tabular"} (default: all), and ``world``, seed
        entropy (int or list of ints) of the problem draw.
    rng : numpy.random.Generator
        Source of the training draws (and of the problems without ``world``).

    Returns
    -------
    dict
        ``test`` maps arm → p on the test problems (``base``, ``grpo<steps>`` for each
        checkpoint, ``distill``, ``distill_grpo``); ``train`` maps ``base``, ``grpo`` (last
        checkpoint) and ``tabular`` → p on the training problems (the tabular control has no
        test-time logits); ``hard_test`` marks the hard test problems.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.rlvr_toy import toy_arms_task
    >>> params = {"snr": 0.0, "n_train": 64, "n_test": 64, "arms": ["grpo"], "world": 0}
    >>> out = toy_arms_task(params, np.random.default_rng(0))
    >>> sorted(out["test"]), sorted(out["train"])
    (['base', 'grpo150', 'grpo400', 'grpo800'], ['base', 'grpo'])
    >>> {arm: round(float(p.mean()), 3) for arm, p in out["test"].items()}
    {'base': 0.226, 'grpo150': 0.276, 'grpo400': 0.3, 'grpo800': 0.287}
    """
    fields = set(ToyConfig.__dataclass_fields__)
    cfg = ToyConfig(**{k: v for k, v in params.items() if k in fields})
    arms = set(params.get("arms", ("grpo", "distill", "tabular")))
    world = rng if params.get("world") is None else np.random.default_rng(params["world"])
    train = make_problems(cfg, cfg.n_train, world)
    test = make_problems(cfg, cfg.n_test, world)
    base = base_policy(cfg)
    out_test = {"base": success_probs(base, test)}
    out_train = {"base": success_probs(base, train)}
    if "grpo" in arms:
        _, saved = grpo(base, train, cfg, max(GRPO_CHECKPOINTS), rng, checkpoints=GRPO_CHECKPOINTS)
        out_test |= {f"grpo{step}": success_probs(pol, test) for step, pol in saved.items()}
        out_train["grpo"] = success_probs(saved[max(GRPO_CHECKPOINTS)], train)
    if "distill" in arms:
        student = distill(base, teacher_policy(cfg), train, cfg, DISTILL_STEPS, rng)
        out_test["distill"] = success_probs(student, test)
        tuned, _ = grpo(student, train, cfg, DISTILL_GRPO_STEPS, rng)
        out_test["distill_grpo"] = success_probs(tuned, test)
    if "tabular" in arms:
        tabular = replace(base, table=np.zeros(train.g.shape))
        tabular, _ = grpo(tabular, train, cfg, max(GRPO_CHECKPOINTS), rng)
        out_train["tabular"] = success_probs(tabular, train)
    return {"test": out_test, "train": out_train, "hard_test": test.hard}
