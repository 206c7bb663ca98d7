"""Dates the extractor will not guess: a day/month order it cannot tell ("03/04"), "next
Friday" said early in a week, and a weekday that contradicts the explicit date beside it.

Kept apart from dates.py (the parser) because it reports on a message rather than reading it:
the pipeline records these as `ambiguous_date` / `weekday_conflict` refusals.
"""

from __future__ import annotations

import datetime as dt
import re

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.timemodel.daterange import numeric_separators, slash_order
from uac.fact_log.extraction.timemodel.dates import (
    _WEEKDAY,
    _WEEKDAY_RE,
    WEEKDAYS,
    _weekday,
    find_dates,
    safe_date,
)

_NUMERIC = lazy(
    r"(?:\b(?:on|by|until|till|from|due|before|after|is|of)[ \t]{1,3}(?:the[ \t]{1,3})?)"
    r"(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?(?![\d/])|(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])",
    re.IGNORECASE,
)
_HAS_WEEKDAY = lazy(rf"\b(?:{_WEEKDAY_RE})\b", re.I)


def date_notes(text: str, today: dt.date) -> list[dict[str, object]]:
    """Dates the extractor will not guess, with why: "03/04" (day or month first?) and a
    weekday that contradicts the explicit date beside it (the date is kept, the clash noted).
    """
    notes: list[dict[str, object]] = []
    said = text
    text = numeric_separators(text)  # "06-02-2037" is as ambiguous as "06/02/2037"
    order = slash_order(text) if "/" in text else None
    for m in _NUMERIC.finditer(text):
        a, b, year = (m[1], m[2], m[3]) if m[1] else (m[4], m[5], m[6])
        first, second = int(a), int(b)
        if first == second or first > 12 or second > 12 or (order and not m[6]):
            continue  # "25/12" or "4/4": one reading; "12/4 - 16/4": the other date says it
        y = int(year) + (2000 if len(year) == 2 else 0) if year else today.year
        readings = [safe_date(y, second, first), safe_date(y, first, second)]
        notes.append(
            {
                "kind": "ambiguous_date",
                "text": said[m.start() : m.end()].split()[-1],
                "readings": [r.isoformat() for r in readings if r is not None],
            }
        )
    for m in _WEEKDAY.finditer(text):
        # "next Friday" said on a Monday: this week's Friday or the one after?
        day = WEEKDAYS[m[2].lower()]
        if (m[1] or "").lower() == "next" and day > today.weekday():
            soon = today + dt.timedelta(days=day - today.weekday())
            later = _weekday(today, "next", day, "future")
            notes.append(
                {
                    "kind": "ambiguous_date",
                    "text": m[0],
                    "readings": [soon.isoformat(), later.isoformat()],
                    "stored": later.isoformat(),
                }
            )
    notes.extend(_next_week_on_sunday(text, today))
    if _HAS_WEEKDAY.search(text):
        for d in find_dates(text, today):
            if d.conflict and d.date is not None:
                notes.append(
                    {
                        "kind": "weekday_conflict",
                        "text": d.text,
                        "date": d.date.isoformat(),
                        "note": d.conflict,
                    }
                )
    return notes


_NEXT_WEEK = lazy(r"\bnext[ \t]+week\b", re.I)


def _next_week_on_sunday(text: str, today: dt.date) -> list[dict[str, object]]:
    """ "next week" said on a Sunday: the week from tomorrow (stored) or the one after?"""
    m = _NEXT_WEEK.search(text) if today.weekday() == 6 else None
    if m is None:
        return []
    soon, later = today + dt.timedelta(days=1), today + dt.timedelta(days=8)
    readings = [soon.isoformat(), later.isoformat()]
    return [{"kind": "ambiguous_date", "text": m[0], "readings": readings, "stored": readings[0]}]
