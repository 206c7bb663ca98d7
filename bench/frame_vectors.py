"""The frames' example vectors, computed once and shipped beside the examples.

A first extraction on a new machine would otherwise encode every labelled example (about
1,600 sentences: seconds of CPU) before it reads its first message. This writes
fact_log/frame_vectors/<digest>.npy, the digest keying the examples and the encoder's
weights (`frames.examples_digest`), and removes the files of earlier digests. Run from the
repository root after changing frames.toml's examples or fact_log/frame_examples.jsonl
(a test fails while the shipped file is stale):

    OPENBLAS_NUM_THREADS=1 python bench/frame_vectors.py
"""

from __future__ import annotations

import sys

import benchpath  # noqa: F401  (takes bench/ off sys.path)
import numpy as np

from uac.fact_log.extraction import encoder, frames


def main() -> int:
    """Write the vectors of the current examples; remove those of earlier ones."""
    if not encoder.available():
        print("the encoder's weights package is not installed", file=sys.stderr)
        return 1
    examples = frames.labelled_examples()
    digest = frames.examples_digest(examples)
    frames.SHIPPED_VECTORS.mkdir(exist_ok=True)
    target = frames.SHIPPED_VECTORS / f"{digest}.npy"
    print(f"encoding {len(examples)} examples ...", file=sys.stderr)
    vectors = np.ascontiguousarray(encoder.encode([text for _, text in examples]), np.float32)
    with open(target, "wb") as fh:
        np.save(fh, vectors)
    for old in frames.SHIPPED_VECTORS.glob("*.npy"):
        if old != target:
            old.unlink()
    print(f"wrote {target} ({vectors.shape[0]} x {vectors.shape[1]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
