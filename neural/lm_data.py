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

from theory import _domain

__all__ = ["BYTE_BOS", "TEXT_VOCAB", "BigramBackcopy", "text_batch", "text_split"]

#: The BOS token of the byte streams (one past the 256 byte values).
BYTE_BOS = 256
#: Vocabulary of the byte streams: the 256 byte values and BOS.
TEXT_VOCAB = 257


@functools.cache
def pydoc_bytes() -> np.ndarray:
    """The topics of ``pydoc_data.topics`` joined in key order, as a uint8 array of UTF-8 bytes."""
    from pydoc_data.topics import topics

    text = "\n\n".join(topics[key] for key in sorted(topics))
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def text_split(split: str, held_out: float = 0.1) -> np.ndarray:
    """The ``"train"`` (first 90%) or ``"val"`` (last 10%) bytes of :func:`pydoc_bytes`.

    Parameters
    ----------
    split : {"train", "val"}
        Which part.
    held_out : float, optional
        The share of the bytes held out at the end for ``"val"`` (default 0.1).

    Returns
    -------
    numpy.ndarray of uint8, (n,)
        The bytes of the split (a view; the text, hence n, depends on the CPython version).

    Raises
    ------
    ValueError
        Unless ``split`` is ``"train"`` or ``"val"``, or naming ``held_out`` unless it lies in
        (0, 1).

    Examples
    --------
    >>> from neural.lm_data import text_split
    >>> train, val = text_split("train"), text_split("val")
    >>> train.dtype.name, round(len(val) / (len(train) + len(val)), 2)
    ('uint8', 0.1)
    """
    _domain.real("held_out", held_out, minimum=0.0, maximum=1.0, open_low=True, open_high=True)
    data = pydoc_bytes()
    cut = int(len(data) * (1 - held_out))
    if split == "train":
        return data[:cut]
    if split == "val":
        return data[cut:]
    raise ValueError(f"split must be 'train' or 'val' (got {split!r})")


def text_batch(data: np.ndarray, batch: int, seq_len: int, rng: np.random.Generator) -> np.ndarray:
    """``batch`` windows of ``seq_len − 1`` bytes at uniform random offsets, each preceded by BOS:
    int64 (batch, seq_len).

    Parameters
    ----------
    data : numpy.ndarray of uint8, (n,)
        The byte stream (e.g. :func:`text_split`).
    batch : int
        B, the number of windows.
    seq_len : int
        T, the length of each sequence with its BOS, 2 ≤ T ≤ n.
    rng : numpy.random.Generator
        The source of the offsets.

    Returns
    -------
    numpy.ndarray of int64, (batch, seq_len)
        Rows ``[BYTE_BOS, data[s], …, data[s + T − 2]]``.

    Raises
    ------
    ValueError
        Naming ``data`` unless it is a non-empty 1-D uint8 array, ``batch`` unless it is an
        integer ≥ 1, or ``seq_len`` unless it is an integer with 2 ≤ ``seq_len`` ≤ len(``data``).

    Examples
    --------
    >>> import numpy as np
    >>> from neural.lm_data import BYTE_BOS, text_batch
    >>> data = np.frombuffer(b"hello world", dtype=np.uint8)
    >>> tokens = text_batch(data, batch=2, seq_len=4, rng=np.random.default_rng(0))
    >>> tokens.shape, tokens.dtype.name, bool((tokens[:, 0] == BYTE_BOS).all())
    ((2, 4), 'int64', True)
    >>> bytes(tokens[0, 1:].tolist()) in b"hello world"
    True
    """
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 1:
        raise ValueError(f"data must be a 1-D uint8 array of bytes (got {type(data).__name__})")
    _domain.integer("batch", batch, minimum=1)
    _domain.integer("seq_len", seq_len, minimum=2, maximum=len(data))
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
        """Transition rows ~ Dirichlet(α·1), triggers = ``n_triggers`` distinct random tokens.

        Parameters
        ----------
        rng : numpy.random.Generator
            The source of the rows and the triggers.
        vocab : int, optional
            V, the tokens besides BOS (default 64).
        n_triggers : int, optional
            The trigger tokens, 1 ≤ n_triggers < V (default 3).
        alpha : float, optional
            α, the Dirichlet concentration of each row (default 0.2; small α, peaked rows).

        Returns
        -------
        BigramBackcopy
            The source.

        Raises
        ------
        ValueError
            Unless 1 ≤ ``n_triggers`` < ``vocab``.

        Examples
        --------
        >>> import numpy as np
        >>> from neural.lm_data import BigramBackcopy
        >>> source = BigramBackcopy.sample(np.random.default_rng(0), vocab=5, n_triggers=1)
        >>> source.transition.shape, source.vocab, np.allclose(source.transition.sum(axis=1), 1)
        ((5, 5), 6, True)
        """
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
        (and t ≥ 2), else x_{t+1} ~ transition[x_t].

        Parameters
        ----------
        batch : int
            B, the sequences.
        seq_len : int
            T, the length of each with its BOS.
        rng : numpy.random.Generator
            The source of the tokens.

        Returns
        -------
        numpy.ndarray of int64, (batch, seq_len)
            The sequences, each ``[BOS, x_1, …, x_{T−1}]``.

        Examples
        --------
        >>> import numpy as np
        >>> from neural.lm_data import BigramBackcopy
        >>> source = BigramBackcopy.sample(np.random.default_rng(0), vocab=5, n_triggers=1)
        >>> x = source.batch(64, 12, np.random.default_rng(1))
        >>> x.shape, bool((x[:, 0] == source.bos).all())
        ((64, 12), True)
        >>> after = x[:, 2:-1] == source.triggers[0]  # x_t a trigger, t ≥ 2
        >>> bool((x[:, 3:][after] == x[:, 1:-2][after]).all())  # x_{t+1} = x_{t−1}
        True
        """
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
        (x_{t−2}, x_{t−1}) is propagated).

        Parameters
        ----------
        seq_len : int
            T, the length of the sequences with their BOS.

        Returns
        -------
        float
            The mean over the T − 1 targets of the Bayes cross-entropy, in nats.

        Examples
        --------
        >>> import numpy as np
        >>> from neural.lm_data import BigramBackcopy
        >>> source = BigramBackcopy.sample(np.random.default_rng(0), vocab=5, n_triggers=1)
        >>> round(source.optimal_loss(2), 6) == round(float(np.log(5)), 6)  # x_1 is uniform
        True
        >>> 0.0 < source.optimal_loss(64) < source.optimal_loss(2)
        True
        """
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
