"""Offline data: pydoc byte windows with BOS, and the Bigram-Backcopy source."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neural.lm_data import BYTE_BOS, BigramBackcopy, pydoc_bytes, text_batch, text_split
from tests.naive import backcopy_bayes_loss_naive


def test_pydoc_text_ships_with_python_and_splits_90_10():
    data = pydoc_bytes()
    assert data.dtype == np.uint8
    assert len(data) > 400_000
    assert len(text_split("train")) + len(text_split("val")) == len(data)
    assert len(text_split("val")) == pytest.approx(0.1 * len(data), abs=1)
    with pytest.raises(ValueError, match="split"):
        text_split("test")


@settings(max_examples=20)
@given(batch=st.integers(1, 5), seq_len=st.integers(2, 30), seed=st.integers(0, 2**16))
def test_text_batches_are_bos_then_contiguous_windows(batch, seq_len, seed):
    data = text_split("val")
    tokens = text_batch(data, batch, seq_len, np.random.default_rng(seed))
    assert tokens.shape == (batch, seq_len)
    assert np.all(tokens[:, 0] == BYTE_BOS)
    haystack = data.tobytes()
    for row in tokens:
        assert bytes(row[1:].astype(np.uint8)) in haystack
    again = text_batch(data, batch, seq_len, np.random.default_rng(seed))
    np.testing.assert_array_equal(tokens, again)


def test_text_batch_rejects_bad_lengths():
    with pytest.raises(ValueError, match="seq_len"):
        text_batch(np.zeros(5, dtype=np.uint8), 1, 1, np.random.default_rng(0))


@settings(max_examples=15)
@given(vocab=st.integers(4, 20), n_triggers=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_backcopy_copies_the_token_before_each_trigger(vocab, n_triggers, seed):
    rng = np.random.default_rng(seed)
    source = BigramBackcopy.sample(rng, vocab, n_triggers)
    np.testing.assert_allclose(source.transition.sum(1), 1.0)
    tokens = source.batch(6, 25, rng)
    assert source.bos == vocab
    assert np.all(tokens[:, 0] == vocab)
    assert tokens[:, 1:].max() < vocab
    trig = np.isin(tokens[:, 2:-1], source.triggers)  # current token at positions 2..T-2
    np.testing.assert_array_equal(tokens[:, 3:][trig], tokens[:, 1:-2][trig])


def test_backcopy_optimal_loss_matches_the_bayes_loss_of_samples():
    rng = np.random.default_rng(1)
    source = BigramBackcopy.sample(rng, vocab=12, n_triggers=2)
    tokens = source.batch(3000, 16, rng)
    assert source.optimal_loss(16) == pytest.approx(
        backcopy_bayes_loss_naive(source, tokens), abs=0.01
    )


def test_backcopy_rejects_bad_trigger_counts():
    with pytest.raises(ValueError, match="n_triggers"):
        BigramBackcopy.sample(np.random.default_rng(0), vocab=4, n_triggers=4)
