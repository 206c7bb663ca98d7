"""A frame's cue is found by substring search exactly where the regex it replaced found it
(fact_log/extraction/frames.py `_said`: a cue said after a character that is not a-z)."""

from __future__ import annotations

import itertools
import re

from uac.fact_log.extraction import frames

TEXTS = [
    "",
    " ",
    "My passport expires in March.",
    "PASSPORT renewed",
    "mypassport",
    "my-passport, my passport!",
    "e-visa\nvisa",
    "the visa.visa",
    "Ünïcode passport ın İstanbul",
    "ab(c) a.b*c [x]",
    "aaa aa a",
    "\tflight\n",
    "renewed: the dentist's appointment at 3pm; dentistry",
    "über-flight 😀flight",
]
CUES = ["", "a", "aa", "visa", "passport", "(c)", ".b*", "[x]", "flight", "ü", "ı", "dentist"]


def _by_regex(cue: str, low: str) -> bool:
    return re.search(r"[^a-z]" + re.escape(cue), low) is not None


def test_every_shipped_cue_and_tricky_cues_agree_with_the_regex() -> None:
    shipped = {c for f in frames.load_frames() for c in f.cues}
    shipped |= {w for f in frames.load_frames() for s in f.slots for w in s.if_said + s.default_if}
    assert len(shipped) > 100
    sentences = [t.lower() for t in TEXTS] + sorted(shipped)[:60]
    for cue, text in itertools.chain(
        itertools.product(CUES, TEXTS), itertools.product(sorted(shipped), sentences)
    ):
        low = " " + text.lower()
        assert frames._starts_a_word(cue, low) == _by_regex(cue, low), (cue, text)
        assert frames._said((cue,), text) == _by_regex(cue, low), (cue, text)
    assert frames._said((), "anything") is True
