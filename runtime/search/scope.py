"""What one ranking pass searches (subject, filters, time windows, depth) and SQL helpers.

Shared by the lexical and dense lists (which apply its filters as a mask, arrays.py) and the
way numbers and terms reach SQL as one bound string.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from uac.runtime.search import timeq


@dataclass(frozen=True, slots=True)
class Scope:
    """What one ranking pass searches: a subject, filters, time windows, list depth."""

    sid: int
    kind: str | None
    since: dt.datetime | None
    windows: tuple[timeq.Window, ...]
    depth: int


def literal(numbers: list[float] | list[int]) -> str:
    """Numbers we computed as one SQL list literal, to bind as a string and cast."""
    # Binding a Python list converts element by element and costs ~20 ms for 256 floats.
    return "[" + ",".join(repr(x) for x in numbers) + "]"


def quoted(words: list[str]) -> str:
    """[a-z0-9]+ words as one SQL list literal (quoted so that e.g. "null" stays a string)."""
    return "[" + ", ".join(f"'{w}'" for w in words) + "]"


def as_datetime(moment: dt.date | dt.datetime | None) -> dt.datetime | None:
    """A date or datetime as a naive UTC datetime (None stays None)."""
    if moment is None:
        return None
    if isinstance(moment, dt.datetime):
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
        return moment
    return dt.datetime(moment.year, moment.month, moment.day)


# The subject's documents marked "not this" whose mark was not hidden since (both scans).
DISLIKED = """
    SELECT DISTINCT f.doc FROM search_feedback f
    WHERE f.sid = ? AND f.signal = 'not_this' AND f.doc IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM search_hidden h WHERE h.sid = f.sid
                      AND h.target = f.id)
"""
