"""Evidence verification: a fact is accepted only if its quote is really in the message.

Three tiers, strongest first:
* "exact": the quote is at its offset in the message;
* "normalised": after NFKC, casefold, punctuation stripped and whitespace collapsed, the quote
  is a substring of the message (an extractor that reflowed spaces or quotes still passes);
* "tokens": at least two of the quote's tokens, and at least 80% of them, occur in the message
  (an LLM paraphrasing lightly). CJK characters count as one token each.
Anything else is refused with reason "evidence_not_found".
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from typing import Literal

from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.lazy import compile_kept

Tier = Literal["exact", "normalised", "tokens"]
_WORD = compile_kept(r"[\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af]|[^\W_]+")


def normalise(text: str) -> str:
    """NFKC, casefold, punctuation and symbols removed, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = [" " if unicodedata.category(ch)[0] in "PSZC" else ch for ch in text]
    return " ".join("".join(kept).split())


def tokens(text: str) -> list[str]:
    """Word tokens of a normalised text (CJK characters one by one)."""
    return _WORD.findall(normalise(text))


def verify(quote: str, offset: int | None, message: str) -> Tier | None:
    """Which evidence tier the quote reaches in the message, or None."""
    if not isinstance(quote, str) or not quote.strip():
        return None
    if offset is not None and offset >= 0 and message[offset : offset + len(quote)] == quote:
        return "exact"
    norm_quote = normalise(quote)
    if norm_quote and norm_quote in normalise(message):
        return "normalised"
    quote_tokens = set(tokens(quote))
    if len(quote_tokens) >= 2:
        found = quote_tokens & set(tokens(message))
        if len(found) >= max(2, math.ceil(0.8 * len(quote_tokens))):
            return "tokens"
    return None


def tiers(candidates: Sequence[Candidate], message: str) -> list[Tier | None]:
    """The tier each candidate's quote reaches at its offset in the message (None: not found)."""
    return [verify(c.quote, c.start, message) for c in candidates]
