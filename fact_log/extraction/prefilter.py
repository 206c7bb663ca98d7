"""The safety scan's pre-filter: literals every match of a pattern contains, tested in bulk.

Most text handed to the scan (a record's values, an archived file) holds no secret: each
pattern declares `Needles`, and a `Gate` built once per text tells `scan` which patterns
cannot match so they are skipped. It must never say no wrongly: tests/test_secrets.py runs
the scan gated and ungated over the labelled set and hostile variants and compares.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from uac.fact_log.extraction.lazy import compile_kept

_ANY_DIGIT = compile_kept(r"\d")
_ANY_UPPER = compile_kept(r"[A-Z]")
# The only non-ASCII characters IGNORECASE matches to ASCII letters ("ı" to "I", "K" to "k"):
# with one of them in the text, lower-casing cannot rule a folded needle out.
FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"  # İ ı ſ and the Kelvin sign
# Every character IGNORECASE matches to a letter of a folded needle other than by lower-casing
# to it: the four above, and the narrow Cyrillic letters ("ᲂ" matches "о", "ᲁ" "д", the
# regex engine's extra case pairs): with one in the text, the folded needles are all kept.
FOLDS_ODDLY = FOLDS_TO_ASCII + "".join(map(chr, range(0x1C80, 0x1C89)))


@dataclass(frozen=True, slots=True)
class Needles:
    """What any match of a pattern contains: one of `exact`, or one of `folded` (lower case,
    for IGNORECASE patterns) in the lower-cased text, with `digit` a digit (`\\d`), with
    `upper` an ASCII capital letter (a case-sensitive `[A-Z]`), and at least `min_len`
    characters; and, when everything else passes, a match of `floor`: a cheap pattern every
    match contains, searched last (for patterns the literals cannot rule out, such as digit
    runs). A floor has no anchors or lookarounds, so a part's floor match is the whole's.

    With neither `exact` nor `folded` given, only `digit` constrains the pattern.
    """

    exact: tuple[str, ...] = ()
    folded: tuple[str, ...] = ()
    digit: bool = False
    min_len: int = 0
    upper: bool = False
    floor: re.Pattern[str] | None = None


class Pool:
    """Every distinct needle of a scanner's patterns, gathered once."""

    __slots__ = ("exact", "folded")

    def __init__(self, needles: Iterable[Needles]) -> None:
        needles = tuple(needles)
        self.exact = tuple(sorted({n for x in needles for n in x.exact}))
        self.folded = tuple(sorted({n for x in needles for n in x.folded}))

    @classmethod
    def found(cls, gate: Gate) -> Pool:
        """Only the needles a gate found: enough for any text inside the gate's text.

        A needle in a part of a text is in the text, so a part's gate built from this pool
        holds exactly the needles it would hold built from the whole pool.
        """
        pool = cls(())
        pool.exact = tuple(sorted(gate.exact))
        pool.folded = tuple(sorted(gate.folded))
        return pool


class Gate:
    """Which needles one text holds, found once; `may_match` answers per pattern."""

    __slots__ = ("digit", "exact", "folded", "length", "off", "text", "upper")

    def __init__(self, text: str, needles: Pool, off: bool = False) -> None:
        self.off = off  # every pattern runs (what the tests compare against)
        self.text = text
        self.length = len(text)
        self.digit = _ANY_DIGIT.search(text) is not None
        self.upper = _ANY_UPPER.search(text) is not None
        self.exact = {n for n in needles.exact if n in text}
        if not text.isascii() and any(ch in text for ch in FOLDS_ODDLY):
            self.folded = set(needles.folded)
        else:
            lowered = text.lower()
            self.folded = {n for n in needles.folded if n in lowered}

    def may_match(self, needles: Needles) -> bool:
        """False only when no match of a pattern with these needles can be in the text."""
        if self.off:
            return True
        if (needles.digit and not self.digit) or self.length < needles.min_len:
            return False
        if needles.upper and not self.upper:
            return False
        if (needles.exact or needles.folded) and (
            self.exact.isdisjoint(needles.exact) and self.folded.isdisjoint(needles.folded)
        ):
            return False
        return needles.floor is None or needles.floor.search(self.text) is not None
