"""Task progress in a message: "done with the visa form, next is the bank letter".

Not an extraction rule: the message names a step, not the goal, so turning it into a task
update needs the subject's open tasks (runtime/api/journal.py does that). This module only
reads the words: which step was finished and which one comes next.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from uac.fact_log.extraction.lazy import lazy

_ITEM = (
    r"(?:the\s+|my\s+|our\s+)?(?P<{name}>[A-Za-z][\w'’ /-]{{1,60}}?)"
    r"(?=\s*(?:[,.;:!?]|\band\b|\bso\b|$))"
)
_DONE = lazy(
    r"\b(?:(?:i'm|i\s+am|i've|i\s+have|we're|we've)\s+)?(?:done|finished|through)\s+with\s+"
    + _ITEM.format(name="done")
    + r"|\b(?:i|we)\s+(?:just\s+)?(?:finished|completed|submitted|sent\s+off|handed\s+in)\s+"
    + _ITEM.format(name="done2"),
    re.IGNORECASE,
)
_NEXT = lazy(
    r"\bnext\s*(?:up)?\s*(?:is|:|comes|i\s+(?:need|have)\s+to\s+(?:do\s+|get\s+)?|on\s+the\s+list\s+is)\s*"
    + _ITEM.format(name="next"),
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Progress:
    """A finished step and/or the next one, as said."""

    done: str | None
    next: str | None


def parse_progress(text: str) -> Progress | None:
    """The step finished and the step next in a message, or None if it states neither."""
    done = _DONE.search(text)
    nxt = _NEXT.search(text)
    if done is None and nxt is None:
        return None
    return Progress(
        _clean(done["done"] or done["done2"]) if done else None,
        _clean(nxt["next"]) if nxt else None,
    )


def _clean(text: str) -> str:
    return " ".join(text.split()).strip(" ,.;:")


def same_step(said: str, step: str) -> bool:
    """Whether a step as said names a planned step ("visa form" ~ "Fill in the visa form")."""
    a = " ".join(re.findall(r"\w+", said.casefold()))
    b = " ".join(re.findall(r"\w+", step.casefold()))
    return bool(a and b) and (a in b or b in a)
