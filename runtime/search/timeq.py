"""Time expressions in a search query, turned into date windows on the item's own time.

"What did she do in March?" cannot match by words: the date of a message is its time, not
its text. `parse(query, today)` finds the time expression, returns the windows it names
(half-open [start, end) datetimes, naive UTC like the index) and the query with the
expression cut out, so the remaining words rank the items inside the windows.

Everything is relative to an explicit `today` (never the clock), so the same query on the
same day always gives the same windows. Understood (case-insensitive):

* "yesterday", "today", "this week/month/year", "last week/month/year"
* "N days/weeks/months/years ago" (a window around that day, week, month or year)
* "on 9 November, 2022", "November 9th 2022", "2022-11-09": that day (a day stays a day)
* "in/during/on March" (the latest March that began on or before today),
  "in March 2023", "March 2023", "in 2024"
* "last night" (yesterday), "last/this weekend"
* "last/this spring/summer/autumn/fall/winter" (northern seasons: winter is Dec-Feb);
  "last summer" is the latest summer that ended before today
* "recently", "lately", "latest", "these days", "nowadays": no window, but a cue that the
  newest items matter (the caller weighs recency more)

The same expressions in an item's own text say when what it tells happened: `stated(text,
at)` resolves them against the item's date ("two weeks ago" written on 4 February is mid
January), and a query's window keeps an item dated outside it whose stated time falls
inside it (arrays.py).

Not understood: event-relative phrases ("before the move"), which need events rather than
dates; such words stay in the query and are matched as words.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = {m: i + 1 for i, m in enumerate(MONTHS)} | {m[:3]: i + 1 for i, m in enumerate(MONTHS)}
_MONTH_RE = "|".join(sorted(_MONTH, key=len, reverse=True))
_SEASONS = {"spring": (3, 3), "summer": (6, 3), "autumn": (9, 3), "fall": (9, 3), "winter": (12, 3)}
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

Window = tuple[dt.datetime, dt.datetime]


@dataclass(frozen=True, slots=True)
class TimeQuery:
    """What a query says about time: windows to search in, and the words left to match."""

    windows: tuple[Window, ...]
    text: str  # the query without its time expression
    recent: bool  # the query asks for what is newest ("recently", "latest")
    expression: str | None  # the time expression found, as written


def _day(d: dt.date) -> dt.datetime:
    return dt.datetime(d.year, d.month, d.day)


def _month(year: int, month: int) -> Window:
    start = dt.datetime(year, month, 1)
    end = dt.datetime(year + month // 12, month % 12 + 1, 1)
    return start, end


def _months_back(today: dt.date, back: int) -> Window:
    index = today.year * 12 + today.month - 1 - back
    return _month(index // 12, index % 12 + 1)


def _season(name: str, today: dt.date, last: bool) -> Window:
    first, length = _SEASONS[name]
    year = today.year
    while True:
        index = year * 12 + first - 1
        start = dt.datetime(index // 12, index % 12 + 1, 1)
        end_index = index + length
        end = dt.datetime(end_index // 12, end_index % 12 + 1, 1)
        # "this summer": the one we are in or that began latest; "last": ended before today.
        if (last and end <= _day(today)) or (not last and start <= _day(today)):
            return start, end
        year -= 1


_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?:on |in )?(\d{4})-(\d{2})-(\d{2})\b"), "iso_day"),
    (
        re.compile(
            r"\b(?:on |in )?(?:the )?(\d{1,2})(?:st|nd|rd|th)?(?: of)? ("
            + _MONTH_RE
            + r")\.?,? (\d{4})\b"
        ),
        "day_month_year",
    ),
    (
        re.compile(r"\b(?:on |in )?(" + _MONTH_RE + r")\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b"),
        "month_day_year",
    ),
    (re.compile(r"\b(?:in |during |on )?(" + _MONTH_RE + r")\.?,? (\d{4})\b"), "month_year"),
    (re.compile(r"\b(?:in|during|on) (" + _MONTH_RE + r")\b(?! \d)"), "month"),
    (re.compile(r"\b(?:in|during) (\d{4})\b"), "year"),
    (re.compile(r"\b(last|this|past) (spring|summer|autumn|fall|winter)\b"), "season"),
    (re.compile(r"\b(last|this|past) (week|month|year)\b"), "relative"),
    (re.compile(r"\b(\d+|a|one|two|three|four|five|six) (day|week|month|year)s? ago\b"), "ago"),
    (re.compile(r"\b(last|this) weekend\b"), "weekend"),
    (re.compile(r"\b(?:yesterday|last night)\b"), "yesterday"),
    (re.compile(r"\btoday\b"), "today"),
]
_RECENT = re.compile(r"\b(recently|lately|latest|these days|nowadays|most recent|newest)\b")


def _windows(kind: str, m: re.Match[str], today: dt.date) -> tuple[Window, ...]:
    day = _day(today)
    if kind in ("iso_day", "day_month_year", "month_day_year"):
        if kind == "iso_day":
            y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        elif kind == "day_month_year":
            y, mo, d = int(m.group(3)), _MONTH[m.group(2)], int(m.group(1))
        else:
            y, mo, d = int(m.group(3)), _MONTH[m.group(1)], int(m.group(2))
        start = dt.datetime(y, mo, d)
        return ((start, start + dt.timedelta(days=1)),)
    if kind == "weekend":
        # "this weekend": the one ahead of (or holding) today; "last": the one before it.
        saturday = day + dt.timedelta(days=5 - today.weekday())
        if today.weekday() == 6:
            saturday -= dt.timedelta(days=7)
        if m.group(1) == "last":
            saturday -= dt.timedelta(days=7)
        return ((saturday, saturday + dt.timedelta(days=2)),)
    if kind == "month_year":
        return (_month(int(m.group(2)), _MONTH[m.group(1)]),)
    if kind == "month":
        month = _MONTH[m.group(1)]
        year = today.year if month <= today.month else today.year - 1
        return (_month(year, month),)
    if kind == "year":
        year = int(m.group(1))
        return ((dt.datetime(year, 1, 1), dt.datetime(year + 1, 1, 1)),)
    if kind == "season":
        return (_season(m.group(2), today, last=m.group(1) != "this"),)
    if kind == "relative":
        which, unit = m.group(1), m.group(2)
        back = 0 if which == "this" else 1
        if unit == "week":
            monday = day - dt.timedelta(days=today.weekday() + 7 * back)
            return ((monday, monday + dt.timedelta(days=7)),)
        if unit == "month":
            return (_months_back(today, back),)
        return ((dt.datetime(today.year - back, 1, 1), dt.datetime(today.year - back + 1, 1, 1)),)
    if kind == "ago":
        n = _NUMBERS.get(m.group(1)) or int(m.group(1))
        unit = m.group(2)
        if unit == "month":
            return (_months_back(today, n),)
        if unit == "year":
            year = today.year - n
            return ((dt.datetime(year, 1, 1), dt.datetime(year + 1, 1, 1)),)
        # "3 days ago" is rarely exact: a day either side; "2 weeks ago": that week +- 3 days.
        centre = day - dt.timedelta(days=n * _UNITS[unit])
        slack = dt.timedelta(days=1 if unit == "day" else 4)
        return ((centre - slack, centre + slack + dt.timedelta(days=1)),)
    if kind == "yesterday":
        return ((day - dt.timedelta(days=1), day),)
    return ((day, day + dt.timedelta(days=1)),)  # today


def parse(query: str, today: dt.date) -> TimeQuery:
    """The time windows a query names (relative to today) and the query without them."""
    lowered = query.lower()
    recent = _RECENT.search(lowered) is not None
    for pattern, kind in _PATTERNS:
        m = pattern.search(lowered)
        if m is None:
            continue
        if kind in ("year",) and not 1900 <= int(m.group(1)) <= 2200:
            continue
        try:
            windows = _windows(kind, m, today)
        except (ValueError, OverflowError):
            continue  # "3000 years ago", "March 0000": no day of the calendar, so no filter
        rest = (query[: m.start()] + " " + query[m.end() :]).strip()
        return TimeQuery(windows, " ".join(rest.split()), recent, m.group(0))
    return TimeQuery((), query, recent, None)


# A cheap first look: most items say nothing about time, and need no pattern run.
_ANY_TIME = re.compile(
    r"\b(?:ago|yesterday|last|this|past|weekend|night|in|during|on|\d{4})\b", re.IGNORECASE
)


def stated(text: str, at: dt.datetime) -> Window | None:
    """When what an item says happened: its first time expression, read on its own date."""
    if _ANY_TIME.search(text) is None:
        return None
    found = parse(text, at.date())
    if not found.windows or found.expression in ("today",):
        return None  # nothing, or the item's own day (its date already says so)
    lo = min(w[0] for w in found.windows)
    hi = max(w[1] for w in found.windows)
    return lo, hi
