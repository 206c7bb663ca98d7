"""Which part a date plays in what is said, from the words right before it: "from Tuesday",
"starting yesterday", "since 3 May" open something; "until the end of July", "till the
26th", "by Friday" close it. One reading for every rule and slot that must tell a start from
an end among several dates of a sentence, instead of taking the first date said."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

from uac.fact_log.extraction.lazy import lazy

_START = lazy(
    r"\b(?:from|starting|starts?|started|beginning|begins?|since|as[ \t]+of|effective|"
    r"commencing)(?:[ \t]+(?:on|from|at|in))?(?:[ \t]+the)?[ \t]*$",
    re.IGNORECASE,
)
_END = lazy(
    r"(?:\b(?:until|till|til|through|thru|up[ \t]+to|by|ending|ends?|expires?|to)|[-–])"
    r"(?:[ \t]+(?:on|at|in))?(?:[ \t]+the)?[ \t]*$",
    re.IGNORECASE,
)
_REACH = 24  # characters before a date read for its cue


class Dated(Protocol):
    """What `role` reads of a date found in a text: where it starts."""

    @property
    def start(self) -> int: ...


def role(text: str, at: int) -> str | None:
    """ "start", "end" or None for the date said at text[at:], by the words before it."""
    before = text[max(0, at - _REACH) : at]
    if _START.search(before):
        return "start"
    if _END.search(before):
        return "end"
    return None


D = TypeVar("D", bound=Dated)


def first_start(text: str, dates: Sequence[D]) -> D | None:
    """The date a thing starts on among several said: the first said as a start ("from
    Tuesday"), else the first not said as an end ("until the end of July"), else None."""
    starts = [d for d in dates if role(text, d.start) == "start"]
    if starts:
        return starts[0]
    return next((d for d in dates if role(text, d.start) != "end"), None)
