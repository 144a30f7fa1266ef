"""Offline token streams for the tiny LMs; nothing is downloaded.

* Text: the UTF-8 bytes of ``pydoc_data.topics`` (≈465k characters of English that ship with
  CPython), split 90/10 into train / held-out, as byte tokens 0..255 with BOS = 256 first.
* Bigram-Backcopy (Guo et al. 2024, arXiv 2410.13835): a Markov chain over ``vocab``
  tokens with Dirichlet(α) transition rows; after one of ``n_triggers`` trigger tokens the next
  token copies the token *before* the trigger. Attention is needed only at trigger positions,
  so a head sits idle (a "no-op") most of the time: the setting that forms a first-token sink.

Every sequence starts with the BOS token, in every arm.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

__all__ = ["BYTE_BOS", "TEXT_VOCAB", "BigramBackcopy", "text_batch", "text_split"]

BYTE_BOS = 256
TEXT_VOCAB = 257


@functools.cache
def pydoc_bytes() -> np.ndarray:
    """The topics of ``pydoc_data.topics`` joined in key order, as a uint8 array of UTF-8 bytes."""
    from pydoc_data.topics import topics

    text = "\n\n".join(topics[key] for key in sorted(topics))
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def text_split(split: str, held_out: float = 0.1) -> np.ndarray:
    """The ``"train"`` (first 90%) or ``"val"`` (last 10%) bytes of :func:`pydoc_bytes`."""
    data = pydoc_bytes()
    cut = int(len(data) * (1 - held_out))
    if split == "train":
        return data[:cut]
    if split == "val":
        return data[cut:]
    raise ValueError(f"split must be 'train' or 'val' (got {split!r})")


def text_batch(data: np.ndarray, batch: int, seq_len: int, rng: np.random.Generator) -> np.ndarray:
    """``batch`` windows of ``seq_len − 1`` bytes at uniform random offsets, each preceded by BOS:
    int64 (batch, seq_len)."""
    if seq_len < 2 or seq_len > len(data):
        raise ValueError(f"seq_len must be in [2, {len(data)}] (got {seq_len})")
    starts = rng.integers(0, len(data) - seq_len + 2, size=batch)  # (B,)
    windows = data[starts[:, None] + np.arange(seq_len - 1)]  # (B, T-1)
    return np.concatenate([np.full((batch, 1), BYTE_BOS), windows], axis=1).astype(np.int64)


@dataclass(frozen=True)
class BigramBackcopy:
    """A Bigram-Backcopy source: ``transition`` (V, V) row-stochastic, ``triggers`` the token ids
    after which the next token copies the one before the trigger. Tokens are 0..V−1, BOS = V."""

    #: (V, V) row-stochastic bigram transition matrix.
    transition: np.ndarray
    #: Token ids after which the next token copies the one before the trigger.
    triggers: np.ndarray

    @classmethod
    def sample(
        cls, rng: np.random.Generator, vocab: int = 64, n_triggers: int = 3, alpha: float = 0.2
    ) -> BigramBackcopy:
        """Transition rows ~ Dirichlet(α·1), triggers = ``n_triggers`` distinct random tokens."""
        if not 1 <= n_triggers < vocab:
            raise ValueError(f"n_triggers must be in [1, {vocab - 1}] (got {n_triggers})")
        transition = rng.dirichlet(np.full(vocab, alpha), size=vocab)
        triggers = np.sort(rng.choice(vocab, size=n_triggers, replace=False))
        return cls(transition, triggers)

    @property
    def vocab(self) -> int:
        """Token ids 0..V−1 plus BOS."""
        return self.transition.shape[0] + 1

    @property
    def bos(self) -> int:
        return self.transition.shape[0]

    def batch(self, batch: int, seq_len: int, rng: np.random.Generator) -> np.ndarray:
        """int64 (batch, seq_len): BOS, x_1 uniform, then x_{t+1} = x_{t−1} if x_t is a trigger
        (and t ≥ 2), else x_{t+1} ~ transition[x_t]."""
        v = self.transition.shape[0]
        cdf = np.cumsum(self.transition, axis=1)  # (V, V)
        is_trigger = np.zeros(v, dtype=bool)
        is_trigger[self.triggers] = True
        out = np.empty((batch, seq_len), dtype=np.int64)
        out[:, 0] = self.bos
        out[:, 1] = rng.integers(0, v, size=batch)
        for t in range(2, seq_len):
            prev = out[:, t - 1]  # (B,)
            u = rng.random(batch)[:, None]  # (B, 1)
            markov = np.minimum((u > cdf[prev]).sum(axis=1), v - 1)  # (B,)
            copy = is_trigger[prev] & (t >= 3)
            out[:, t] = np.where(copy, out[:, t - 2], markov)
        return out

    def optimal_loss(self, seq_len: int) -> float:
        """The Bayes cross-entropy (nats per predicted token) of a model that knows the source,
        averaged over the targets x_1..x_{T−1} of a length-T sequence: ln V for the uniform x_1,
        0 for a copied token, and H(transition[x_{t−1}]) for a Markov token, weighted by the exact
        law of x_{t−1} (the copy rule makes the chain second order, so the law of the pair
        (x_{t−2}, x_{t−1}) is propagated)."""
        v = self.transition.shape[0]
        p = self.transition
        logp = np.log(np.where(p > 0, p, 1.0))
        row_entropy = -np.sum(p * logp, axis=1)  # (V,)
        markov = np.ones(v, dtype=bool)
        markov[self.triggers] = False
        joint = p / v  # law of (x_1, x_2)
        losses = [np.log(v), float(row_entropy.mean())]  # targets x_1, x_2
        for _ in range(3, seq_len):
            state = joint.sum(axis=0)  # law of the current token x_{t-1}
            losses.append(float(state[markov] @ row_entropy[markov]))
            nxt = np.where(markov[:, None], state[:, None] * p, 0.0)  # Markov step from b
            nxt[~markov] += joint[:, ~markov].T  # copy: (a, b) -> (b, a)
            joint = nxt
        return float(np.mean(losses[: seq_len - 1]))
