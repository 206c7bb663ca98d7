"""Days the calendar names rather than numbers: holidays, weekends, and "last week".

"We're at my parents' over Christmas", "the Easter weekend", "this weekend", "last week":
`dates.find_dates` adds what `find` returns to the numeric and weekday forms it reads itself;
a holiday names the day only when the text gives no other date ("Booked Cape Town for
Christmas, out 19 December" departs on the 19th: the holiday is the occasion).

* A holiday without a year is its next occurrence on or after the message date (prefer
  "future") or its last one on or before it (prefer "past"); with a year ("Christmas 2027",
  "Easter 2028") that year's. Fixed-date holidays are the widely shared Western ones; Easter
  and the days around it come from `dateutil.easter` (Western); Thanksgiving is the US one
  (the fourth Thursday of November). Lunar-calendar festivals (Eid, Diwali, Hanukkah,
  Lunar New Year) move each year and are not guessed. "last Christmas" is the one before
  the message date, "next Christmas" the one after; "NYE" only in capitals ("Bill Nye").
* "last week" is a week ago; "Tuesday last week" / "last week on Tuesday" the Tuesday of the
  previous calendar week; "the last week of June" is not a day.
* "the weekend" / "this weekend" is the coming weekend's Saturday (on a Saturday or Sunday,
  the current one's), "next weekend" the Saturday of next calendar week (as "next Saturday"
  reads), "last weekend" the most recent Saturday before the message date; a bare "a weekend
  in Rome" is no day. Like a holiday, a weekend gives way to a date said beside it ("for the
  weekend on 18 April").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from dateutil.easter import easter

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.reference import vocabulary

Hit = tuple[int, int, str, "dt.date | None", bool]  # ..., the year was said

_FIXED: dict[str, tuple[int, int]] = {k: (m, d) for k, (m, d) in vocabulary()["holidays"].items()}
_EASTER: dict[str, int] = {  # days from Easter Sunday
    "good friday": -2,
    "easter saturday": -1,
    "easter sunday": 0,
    "easter": 0,
    "easter monday": 1,
}


def _thanksgiving(year: int) -> dt.date:
    """The fourth Thursday of November (US)."""
    first = dt.date(year, 11, 1)
    return first + dt.timedelta(days=(3 - first.weekday()) % 7 + 21)


def _name_re(names: list[str]) -> str:
    return "|".join(re.escape(n).replace("'", "['’]?").replace(r"\ ", r"[ \t]+") for n in names)


_WEEKDAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_HOLIDAY = lazy(
    r"(?<!father[ \t])"  # "Father Christmas" is no day
    rf"\b(?:(last|next|this)[ \t]{{1,3}})?"
    rf"({_name_re(sorted([*_FIXED, *_EASTER, 'thanksgiving'], key=len, reverse=True))})\b"
    r"(?:[ \t]{1,3}(\d{4})(?!\d))?"
    # "a Christmas tree", "Easter eggs", "the Christmas party": things, not the day;
    # "Easter Island", "Christmas Island", "A Christmas Carol": names
    r"(?![ \t]{1,3}(?:trees?|presents?|gifts?|cards?|jumpers?|decorations|lights|markets?|"
    r"shopping|part(?:y|ies)|eggs?|bunny|bonus|lists?|songs?|music|films?|movies?|cakes?|"
    r"islands?|road|street|carol)\b)",
    re.IGNORECASE,
)
_WEEKEND = lazy(
    r"(?<!every[ \t])(?<!each[ \t])(?<!most[ \t])"
    r"\b(this|next|last|the|coming)[ \t]{1,3}weekend\b(?![ \t]{1,3}(?:of|after|before)\b)",
    re.IGNORECASE,
)
# "last week", "Tuesday last week", "last week on Tuesday"; never "the last week of June"
_LAST_WEEK = lazy(
    rf"(?<!the[ \t])\b(?:({_WEEKDAY_NAMES})[ \t]{{1,3}})?last[ \t]{{1,3}}week\b"
    rf"(?![ \t]{{1,3}}of\b)(?:[ \t]{{1,3}}on[ \t]{{1,3}}({_WEEKDAY_NAMES})\b)?",
    re.IGNORECASE,
)

# Words (besides digits) without which no pattern here can match: the cheap gate.
MAYBE_WORDS = (
    "christmas|xmas|boxing|new year|nye|hogmanay|valentine|patrick|halloween|bonfire|"
    "easter|good friday|thanksgiving|weekend"
)


def _on(year: int, name: str) -> dt.date | None:
    """The holiday's day in one year, or None when that year has no such day."""
    key = " ".join(name.lower().replace("’", "'").split())
    key = key if key in _FIXED or key in _EASTER else key.replace("'", "")
    try:
        if key in _FIXED:
            month, day = _FIXED[key]
            return dt.date(year, month, day)
        if key in _EASTER:
            return easter(year) + dt.timedelta(days=_EASTER[key])
        return _thanksgiving(year)
    except (ValueError, OverflowError):
        return None


def _nearest(
    today: dt.date, prefer: str, day_in: Callable[[int], dt.date | None]
) -> dt.date | None:
    """The occurrence on or after today (prefer future) or on or before it (prefer past)."""
    step = -1 if prefer == "past" else 1
    for year in (today.year, today.year + step):
        day = day_in(year)
        if day is not None and (day <= today if step < 0 else day >= today):
            return day
    return None


def _saturday(today: dt.date, which: str | None, prefer: str) -> dt.date | None:
    """The Saturday that 'the/this/next/last weekend' means."""
    which = (which or "").lower()
    try:
        if which == "last" or (which in ("", "the") and prefer == "past"):
            back = (today.weekday() - 5) % 7 or 7
            return today - dt.timedelta(days=back)
        if which == "next":
            monday = today + dt.timedelta(days=7 - today.weekday())
            return monday + dt.timedelta(days=5)
        if today.weekday() == 6:  # on a Sunday, "this weekend" is the one under way
            return today - dt.timedelta(days=1)
        return today + dt.timedelta(days=(5 - today.weekday()) % 7)
    except OverflowError:
        return None


def _last_week(today: dt.date, weekday: str | None) -> dt.date | None:
    """A week ago, or the named weekday of the previous calendar week (weeks start Monday)."""
    try:
        if weekday is None:
            return today - dt.timedelta(days=7)
        monday = today - dt.timedelta(days=today.weekday() + 7)
        return monday + dt.timedelta(days=_WEEKDAY_NAMES.split("|").index(weekday.lower()))
    except OverflowError:
        return None


def _holiday(today: dt.date, prefer: str, which: str | None, name: str) -> dt.date | None:
    """A holiday without a year: 'last' the one before today, 'next' the one after, else the
    nearest in the direction the sentence looks."""
    which = (which or "").lower()
    day = today
    try:
        if which == "last":
            prefer, day = "past", today - dt.timedelta(days=1)
        elif which in ("next", "this"):
            prefer, day = "future", today + dt.timedelta(days=1 if which == "next" else 0)
    except OverflowError:
        return None
    return _nearest(day, prefer, lambda year: _on(year, name))


def find(text: str, today: dt.date, prefer: str) -> tuple[list[Hit], list[Hit]]:
    """(start, end, text, date, year said) of every "last week", and apart,
    of every holiday and weekend: vague days, a day only when the text says no other
    ("for Christmas, out 19 December"; "for the weekend on 18 April")."""
    out: list[Hit] = []
    lowered = text.lower()
    if "last" in lowered:
        for m in _LAST_WEEK.finditer(text):
            out.append((m.start(), m.end(), m[0], _last_week(today, m[1] or m[2]), True))
    vague: list[Hit] = []
    for m in _HOLIDAY.finditer(text):
        which, name, year = m[1], m[2], m[3]
        if name.lower() == "nye" and name != "NYE":
            continue  # "Bill Nye", the Welsh name: only the capitals are New Year's Eve
        if year:
            day = _on(int(year), name) if 1 <= int(year) <= 9998 else None
        else:
            day = _holiday(today, prefer, which, name)
        vague.append((m.start(), m.end(), m[0], day, bool(year)))
    if "weekend" in lowered:
        for m in _WEEKEND.finditer(text):
            if any(0 <= m.start() - h[1] <= 1 for h in vague):
                continue  # "the Easter weekend" is Easter's, not the coming one
            vague.append((m.start(), m.end(), m[0], _saturday(today, m[1], prefer), True))
    return out, vague
