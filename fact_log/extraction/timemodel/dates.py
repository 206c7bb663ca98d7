"""Resolve date expressions in a message relative to the moment it was written.

Supported: ISO dates ("2025-03-05"), year first with the month named ("2025 March 5",
"2025-Mar-05"), "March 5, 2025", "Mar 5th", "5 March 2025",
"5th of March", Chinese "2025年3月5日" / "3月5日", "today", "tomorrow", "yesterday",
"the day after tomorrow", weekdays ("Friday", "next Friday", "last Friday"), "in two weeks",
"in 3 days", "3 days ago", and "the 19th" (the day of that number closest to an earlier
date in the same text).

Year inference when a day and month are given without a year:
* prefer="future" (bookings, appointments, deadlines, expiries): the first occurrence on or
  after the message date;
* prefer="past" (started, stopped, cancelled, spent): the most recent occurrence on or
  before the message date.
"Feb 29" without a year resolves to the nearest leap year in that direction.

Weekdays: "next Friday" is the Friday of the next calendar week (weeks start on Monday), a
bare "Friday" the first Friday strictly after the message date, "this Friday" the first on
or after it, "last Friday" (or a bare "Friday" when
prefer="past") the most recent strictly before.
"in N months" clamps to the month's last day (Jan 31 + 1 month = Feb 28), the usual reading.
Numeric dates other than ISO ("05/03/2025") are ambiguous (day/month order) and ignored,
except dotted ones with a year; those, holidays and weekends are read by `calendar_days`.
A date that does not exist ("February 30", "2025-02-29") yields a match with `date=None`
and `valid=False` so a caller drops the fact instead of coercing it.
"""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
import functools
import re
from dataclasses import replace

from uac.fact_log.calendar_words import MONTH_NAMES, WEEKDAY_NAMES
from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.timemodel import calendar_days
from uac.fact_log.extraction.timemodel.daterange import (
    ORD_RE as _ORD_RE,
)
from uac.fact_log.extraction.timemodel.daterange import (
    ORDINAL_WORDS,
    DateMatch,
    Prefer,
    add_months,
    compact_dates,
    dotted_dates,
    infer_year,
    numeric_separators,
    ongoing_ranges,
    range_last_days,
    safe_date,
    slashed_dates,
    spell_out_days,
)
from uac.fact_log.reference import vocabulary

MONTHS: dict[str, int] = {}
for _n, _name in enumerate(MONTH_NAMES, 1):
    MONTHS[_name.lower()] = _n
    MONTHS[_name[:3].lower()] = _n
MONTHS["sept"] = 9
_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
WEEKDAYS = {name.lower(): n for n, name in enumerate(WEEKDAY_NAMES)}
_WEEKDAY_RE = "|".join(WEEKDAYS)
NUMBER_WORDS: dict[str, int] = vocabulary()["number_words"]
_NUM_RE = (
    r"\d{1,3}|a couple of|a few|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
)

# Every pattern is linear: bounded repetitions, no nested quantifiers over the same input.
# A year said after a day and month is 19xx or 20xx ("15 of December, 1200 lari" is no year).
_ISO = lazy(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])")
_MDY = lazy(
    rf"\b({_MONTH_RE})\.?[ \t]{{1,3}}(\d{{1,2}})(?:st|nd|rd|th)?(?![\d:])"
    r"(?:,?[ \t]{1,3}((?:19|20)\d\d)(?!\d))?",
    re.IGNORECASE,
)
_DMY = lazy(
    rf"(?<![\d.])(\d{{1,2}})(?:st|nd|rd|th|\.)?[ \t]{{1,3}}(?:of[ \t]{{1,3}})?({_MONTH_RE})\b\.?"
    r"(?:,?[ \t]{1,3}((?:19|20)\d\d)(?!\d))?",
    re.IGNORECASE,
)
# "2031 August 30", "2031, Aug 30", "2031-Aug-30": year first, the month named (a year is
# 19xx or 20xx: "1500 Aug" is no year)
_YMD = lazy(
    rf"(?<![\d.,£$€])((?:19|20)\d\d)(?:,?[ \t]{{1,3}}|[-/])({_MONTH_RE})\.?(?:[ \t]{{1,3}}|[-/])"
    r"(\d{1,2})(?:st|nd|rd|th)?(?![\d:])",
    re.IGNORECASE,
)
# "22-24 September", "from the 8th to the 15th of August": the range's first day (the second
# is found by _DMY).
_DMY_RANGE = lazy(
    # "9 and 10 April": two days of one month, the first said without its month
    rf"(?<![\d.])(\d{{1,2}})(?:st|nd|rd|th|\.)?[ \t]{{0,2}}(?:[-–]|to|till|until|through|thru|and)"
    rf"[ \t]{{0,2}}"
    rf"(?:the[ \t]{{1,3}})?(?P<last>\d{{1,2}})(?:st|nd|rd|th|\.)?[ \t]{{1,3}}"
    rf"(?:of[ \t]{{1,3}})?({_MONTH_RE})\b\.?(?:,?[ \t]{{1,3}}((?:19|20)\d\d)(?!\d))?",
    re.IGNORECASE,
)
# "the ninth of July", "fifteenth march": an ordinal day word before its month, "of" or not
# (without "of", "may" is the verb: "the second may be late")
_ORD_DMY = lazy(
    rf"\b(?:the[ \t]{{1,3}})?({_ORD_RE})[ \t]{{1,3}}(?:of[ \t]{{1,3}}|(?!may\b))({_MONTH_RE})\b\.?"
    r"(?:,?[ \t]{1,3}((?:19|20)\d\d)(?!\d))?",
    re.IGNORECASE,
)
_ORD_MDY = lazy(
    rf"\b({_MONTH_RE})\.?[ \t]{{1,3}}(?:the[ \t]{{1,3}})?({_ORD_RE})\b"
    r"(?:,?[ \t]{1,3}((?:19|20)\d\d)(?!\d))?",
    re.IGNORECASE,
)
# "3rd-8th", "5th to the 9th": two bare day numbers joined as a range are both days
_NTH_PAIR = lazy(
    r"\b(\d{1,2})(?:st|nd|rd|th)[ \t]{0,2}(?:[-–]|to|till|til|until|through|thru)[ \t]{0,2}"
    r"(?:the[ \t]{1,3})?(\d{1,2})(?:st|nd|rd|th)\b",
    re.IGNORECASE,
)
# "in July, 3rd-8th": a month named alone gives the month of the bare day numbers after it
_MONTH_ALONE = lazy(
    rf"\b(?:in|of|for|during|early|mid|late|this|next)[ \t-]{{1,3}}({_MONTH_RE})\b(?![ \t]*\d)",
    re.IGNORECASE,
)
# "since January", "since last March", "since May 2024": a month said as when something
# began, without its day, is its first day (the latest such month begun by today; "last"
# one begun before this month); never "since March 3rd", which names its day
_SINCE_MONTH = lazy(
    rf"\bsince[ \t]{{1,3}}((?:(last)[ \t]{{1,3}})?({_MONTH_RE})\b\.?(?:,?[ \t]{{1,3}}(\d{{4}}))?)"
    r"(?![ \t]*\d|[ \t]*(?:st|nd|rd|th)\b)",
    re.IGNORECASE,
)
_ORDINAL_DIGITS = lazy(r"\d(?:st|nd|rd|th)\b", re.I)
_ORD_HINT = lazy(
    r"first|second|third|fourth|(?:fif|six|seven|eigh|nin|ten|eleven|twelf|teen|tie)th\b", re.I
)
_FROM_NOW = lazy(
    # "once a day from today" is a dose from today, not tomorrow; "for 14 days from today" a
    # course that starts today (the day said is today's)
    r"(?<!\bonce\s)(?<!\btwice\s)(?<!times\s)(?<!\bfor\s)"
    rf"\b({_NUM_RE})[ \t]{{1,3}}(day|week|fortnight|month|year)s?[ \t]{{1,3}}from[ \t]{{1,3}}"
    r"(today|now|tomorrow)\b",
    re.IGNORECASE,
)
# "valid for a year from today", "good for 90 days from now": what holds for a span from a
# day ends that span later (a course "for 14 days from today" starts today: `_FROM_NOW`)
_HOLDS_FOR = lazy(
    r"\b(?:valid|good|lasts?|runs?|covered|insured)[ \t]{1,3}for[ \t]{1,3}"
    rf"({_NUM_RE})[ \t]{{1,3}}(day|week|fortnight|month|year)s?[ \t]{{1,3}}from[ \t]{{1,3}}"
    r"(today|now|tomorrow)\b",
    re.IGNORECASE,
)
_CJK = lazy(r"(?:(\d{4})\s?年\s?)?(\d{1,2})\s?月\s?(\d{1,2})\s?[日号號]")
_RELDAY = lazy(
    r"\b(the day after tomorrow|the day before yesterday|today|tonight|tomm?orr?ow|tmrw|tmr|"
    r"yesterday|this morning|this afternoon|this evening|last[ \t]{1,3}night)\b"
    r"|(后天|明天|今天|今晚|昨天|前天)",
    re.IGNORECASE,
)
_WEEKDAY = lazy(rf"\b(?:(next|this|last|coming)[ \t]{{1,3}})?({_WEEKDAY_RE})\b", re.I)
_IN_N = lazy(rf"\bin[ \t]{{1,3}}({_NUM_RE})[ \t]{{1,3}}(day|week|fortnight|month|year)s?\b", re.I)
# "3 days ago", "two days back"
_AGO = lazy(
    rf"\b({_NUM_RE})[ \t]{{1,3}}(day|week|fortnight|month|year)s?[ \t]{{1,3}}(?:ago|back)\b", re.I
)
# "the 19th"; a bare "19th" counts only right after a weekday ("Friday 18th", "Thurs 19th").
_NTH = lazy(r"\b(?:(the)[ \t]{1,3})?(\d{1,2})(st|nd|rd|th)\b", re.IGNORECASE)
_DIGIT_DOT = lazy(r"\d\.\d")
# "check up is 23rd at 6pm", "due 14th": a bare ordinal right after a verb of when is a day
_DAY_SLOT = lazy(r"\b(?:is|on|due|until|till|by|from|before|after|back|returning)[ \t]{1,2}$", re.I)
# "September 14-17": the range's last day (the first is found by _MDY).
_MDY_RANGE_END = lazy(
    rf"\b({_MONTH_RE})\.?[ \t]{{1,3}}(\d{{1,2}})(?:st|nd|rd|th)?[ \t]?[-–][ \t]?(\d{{1,2}})"
    r"(?:st|nd|rd|th)?(?![\d:])(?:,?[ \t]{1,3}((?:19|20)\d\d)(?!\d))?",
    re.IGNORECASE,
)
WEEKDAY_ABBR = {
    **{"mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3, "thurs": 3},
    **{"fri": 4, "sat": 5, "sun": 6},  # only ever read right before a day number ("Sat 18th")
}
WEEKDAY_ABBR |= {"fri": 4, "sat": 5, "sun": 6}
_ABBR_RE = "|".join(sorted(WEEKDAY_ABBR, key=len, reverse=True))
# "the 17th of next month", "on the 3rd of this month"
_NTH_OF_MONTH = lazy(
    r"\b(?:the[ \t]{1,3})?(\d{1,2})(?:st|nd|rd|th)?[ \t]{1,3}of[ \t]{1,3}"
    r"(next|this|the[ \t]+following)[ \t]{1,3}month\b",
    re.I,
)
# a short weekday after "next"/"this" is a day ("next tue"): bare, "sat" and "wed" are words
_WEEKDAY_SHORT = lazy(rf"\b(next|this|coming)[ \t]{{1,3}}({_ABBR_RE})\b\.?", re.I)
# "bio lab report due mon", "essay in by fri": a short weekday after the word of a deadline
_DUE_SHORT = lazy(rf"\b(?:due|by)[ \t]{{1,3}}({_ABBR_RE})\b\.?(?![ \t]*\d)", re.I)
_WEEKDAY_BEFORE = lazy(rf"\b({_WEEKDAY_RE}|{_ABBR_RE})\b\.?,?[ \t]{{0,2}}$", re.I)
# "from the 28th until 3 July": what joins a range's first day to its last.
_RANGE_JOIN = lazy(r"[ \t]{0,3}(?:[-–]|to|till|til|until|through|thru)[ \t]{1,3}$", re.I)
_JOINER = lazy(r",?[ \t]{1,3}(?:the[ \t]{1,3})?|,")
# Every date pattern needs a digit or one of these words (weekdays end in "day").
_MAYBE = lazy(
    r"\d|day|week|month|year|since|tonight|tom+or+ow|tmr|end\s+of|天|first|second|third|"
    r"fourth|(?:fif|six|seven|eigh|nin|ten|eleven|twelf|teen|tie)th\b|fortnight|"
    r"this (?:morning|afternoon|evening)|last[ \t]{1,3}night|"
    r"(?:next|this|coming|due|by)[ \t]+(?:mon|tue|wed|thu|fri|sat|sun)|"
    + calendar_days.MAYBE_WORDS,
    re.IGNORECASE,
)
# "by the end of the month", "at the end of March": the period's last day.
_END_OF = lazy(
    rf"\b(?:the[ \t]+)?end[ \t]+of[ \t]+(?:(this|next|the)[ \t]+)?(month|year|{_MONTH_RE})\b|"
    # "to end July", "until end of june": a month's end said without "of"
    rf"\b(?:the[ \t]+)?end[ \t]+()({_MONTH_RE})\b",
    re.IGNORECASE,
)
# "the last night we sleep at my aunt's": the final night of a stay, not yesterday's
_FINAL_NIGHT = lazy(r"\b(?:the|our|my|your|their|that|this|on|for)[ \t]{1,3}$", re.I)
_CJK_REL = {"后天": 2, "明天": 1, "今天": 0, "今晚": 0, "昨天": -1, "前天": -2}
_EN_REL = {
    "the day after tomorrow": 2,
    "the day before yesterday": -2,
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
    "tomorrow": 1,
    "yesterday": -1,
    "last night": -1,
}


def count_word(word: str) -> int | None:
    """A small count written in digits or words ("12", "two", "a couple of"), or None."""
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word)


def _amount(word: str) -> int:
    return count_word(word) or 0


def shift(today: dt.date, n: int, unit: str) -> dt.date | None:
    """today moved by n days, weeks, months or years (None past the calendar)."""
    unit = unit.lower()
    try:
        if unit == "day":
            return today + dt.timedelta(days=n)
        if unit in ("week", "fortnight"):
            return today + dt.timedelta(weeks=n * (2 if unit == "fortnight" else 1))
        if unit == "month":
            return add_months(today, n)
        return add_months(today, 12 * n)
    except (OverflowError, ValueError):
        return None


def _plus(today: dt.date, days: int) -> dt.date | None:
    try:
        return today + dt.timedelta(days=days)
    except OverflowError:
        return None


# "starting Monday", "beginning on the 3rd of May": what starts is still to come, whatever
# the sentence's tense ("she put me on it, starting Monday")
_STARTING = lazy(
    r"\b(?:starting|beginning|commencing|effective)[ \t]{1,3}(?:(?:on|from)[ \t]{1,3})?$", re.I
)


def _onward(text: str, at: int, prefer: Prefer) -> Prefer:
    """The direction a day said at `at` is read in: onward after "starting", else `prefer`."""
    if prefer == "past" and _STARTING.search(text, max(0, at - 30), at):
        return "future"
    return prefer


def _weekday(today: dt.date, modifier: str | None, weekday: int, prefer: Prefer) -> dt.date:
    ahead = (weekday - today.weekday()) % 7
    # A bare weekday in a past-tense context ("I started it on Monday") is the last one.
    mod = (modifier or ("last" if prefer == "past" else "")).lower()
    if mod == "last":
        back = (today.weekday() - weekday) % 7 or 7
        return today - dt.timedelta(days=back)
    if mod == "next":
        # "next Tuesday" is Tuesday of next calendar week (Monday-based).
        monday = today + dt.timedelta(days=7 - today.weekday())
        return monday + dt.timedelta(days=weekday)
    if mod in ("this", "coming"):
        return today + dt.timedelta(days=ahead)
    return today + dt.timedelta(days=ahead or 7)


Span = tuple[dt.date, dt.date]


def find_dates(
    text: str,
    today: dt.date,
    prefer: Prefer = "future",
    anchor: dt.date | None = None,
    span: Span | None = None,
) -> list[DateMatch]:
    """All date expressions in text, in order, overlapping matches resolved longest-first.

    `anchor` is the date the conversation was last about (the discourse's): a bare "the 20th"
    with no earlier date in the text continues from it, else it is the next 20th. `span` is
    the first and last day the conversation last named (`named_span`): without an anchor, a
    bare "the 20th" is the 20th inside it when one is ("out 19 December, home 6 January",
    then "the flight leaves on the 19th": 19 December).
    """
    if not _MAYBE.search(text):
        return []  # most sentences name no day at all: skip the dozen scans below
    # several rules ask about the same sentence: the answer (pure, immutable) is remembered
    return list(_dates_of(text, today, prefer, anchor, span))


@functools.lru_cache(maxsize=512)
def _dates_of(
    text: str, today: dt.date, prefer: Prefer, anchor: dt.date | None, span: Span | None
) -> tuple[DateMatch, ...]:
    return tuple(_find_dates(text, today, prefer, anchor, span))


# A day said with its month (a name, or digits with a separator): what `named_span` reads
_NAMES_MONTH = lazy(rf"\b(?:{_MONTH_RE})\b|\d[-/.]\d|[月]", re.I)


_DAY_NUMBER = lazy(r"(?:the\s+)?\d{1,2}(?:st|nd|rd|th|\.)?", re.I)


def named_span(text: str, today: dt.date) -> Span | None:
    """The first and last day a text names with their month ("out 19 December and home 6
    January": 19 December to 6 January; "17 to 28 August": both), or None when it names
    none (relative days and weekdays name no month of their own; a bare day number counts
    beside a day said with its month)."""
    said = [d for d in find_dates(text, today) if d.date is not None and d.conflict is None]
    if not any(_NAMES_MONTH.search(d.text) for d in said):
        return None
    days = [d.date for d in said if _NAMES_MONTH.search(d.text) or _DAY_NUMBER.fullmatch(d.text)]
    return min(days), max(days)


def nth_inside(span: Span, day: int) -> dt.date | None:
    """The first day of that number inside the span, or None when none falls inside it (a
    bare "the 29th" after "it expires 3 Aug" is no day of that topic: the next 29th)."""
    first, last = span
    options = (_nth_in(first, k, day) for k in range(min(13, _months(first, last) + 1)))
    return next((o for o in options if o is not None and first <= o <= last), None)


def _months(first: dt.date, last: dt.date) -> int:
    return (last.year - first.year) * 12 + last.month - first.month


def forget_dates() -> None:
    """Drop the remembered answers of find_dates (a cold read)."""
    _dates_of.cache_clear()


# "renews on the 5th of December, sorry, the 6th", "on Tuesday - I mean Wednesday": a day the
# writer takes back in the same breath, the next one said instead
_SELF_FIX_HINT = lazy(r"\b(?:sorry|mean|meant|rather|make\s+that|scratch\s+that|oops)\b", re.I)
_SELF_FIX = lazy(
    r"(?:\s+(?:at\s+)?\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?)?\s*[,;:–—-]?\s*(?:(?:no|oops|wait)\s*[,!]?\s*)?(?:sorry|i\s+mean|i\s+meant|or\s+rather|"
    r"make\s+that|scratch\s+that|oops)\s*[,;:!–—-]?\s*(?:it['’]?s\s+|on\s+)?$",
    re.I,
)


def _self_corrected(text: str, out: list[DateMatch]) -> list[DateMatch]:
    """The days without those taken back by the next one ("the 5th, sorry, the 6th")."""
    keep = []
    for i, d in enumerate(out):
        nxt = out[i + 1] if i + 1 < len(out) else None
        if nxt is not None and nxt.start >= d.end and _SELF_FIX.fullmatch(text, d.end, nxt.start):
            continue
        keep.append(d)
    return keep


def _find_dates(
    text: str, today: dt.date, prefer: Prefer, anchor: dt.date | None, span: Span | None
) -> list[DateMatch]:
    written = numeric_separators(text)
    if written == text:
        return _find_written(text, today, prefer, anchor, span)
    # read as the forms the patterns know; each match keeps the words as written
    found = _find_written(written, today, prefer, anchor, span)
    return [replace(d, text=text[d.start : d.end]) for d in found]


def _find_written(
    text: str, today: dt.date, prefer: Prefer, anchor: dt.date | None, span: Span | None
) -> list[DateMatch]:
    if _ORD_HINT.search(text):
        text = spell_out_days(text)  # "from the ninth" read as "from the 9th"
    found: list[DateMatch] = []
    for m in _ISO.finditer(text):
        d = safe_date(int(m[1]), int(m[2]), int(m[3]))
        found.append(DateMatch(m.start(), m.end(), m[0], d))
    for m in _MDY.finditer(text):
        found.append(_month_day(m, MONTHS[m[1].lower()], int(m[2]), m[3], today, prefer))
    for m in _DMY.finditer(text):
        found.append(_month_day(m, MONTHS[m[2].lower()], int(m[1]), m[3], today, prefer))
    for m in _YMD.finditer(text):
        found.append(_month_day(m, MONTHS[m[2].lower()], int(m[3]), m[1], today, prefer))
    for m in _DMY_RANGE.finditer(text):
        last = _month_day(m, MONTHS[m[3].lower()], int(m["last"]), m[4], today, prefer)
        first = _month_day(m, MONTHS[m[3].lower()], int(m[1]), m[4], today, prefer)
        if last.date is not None and int(m[1]) > last.date.day:
            # "the 28th until 3 July": the first day is in the month before the last one's
            first = DateMatch(0, 0, "", _nth_in(last.date, -1, int(m[1])), first.explicit_year)
        elif last.date is not None and first.date is not None:
            same = safe_date(last.date.year, first.date.month, first.date.day)
            first = DateMatch(0, 0, "", same, first.explicit_year)
        found.append(DateMatch(m.start(1), m.end(1), m[1], first.date, first.explicit_year))
    for m in _MDY_RANGE_END.finditer(text):
        end = _month_day(m, MONTHS[m[1].lower()], int(m[3]), m[4], today, prefer)
        found.append(DateMatch(m.start(3), m.end(3), m[3], end.date, end.explicit_year))
    for m in _CJK.finditer(text):
        found.append(_month_day(m, int(m[2]), int(m[3]), m[1], today, prefer))
    if _ORD_HINT.search(text):  # ordinal words are rare: scan for them only when one is said
        for m in _ORD_DMY.finditer(text):
            day = ORDINAL_WORDS[" ".join(m[1].lower().replace("-", " ").split())]
            found.append(_month_day(m, MONTHS[m[2].lower()], day, m[3], today, prefer))
        for m in _ORD_MDY.finditer(text):
            day = ORDINAL_WORDS[" ".join(m[2].lower().replace("-", " ").split())]
            found.append(_month_day(m, MONTHS[m[1].lower()], day, m[3], today, prefer))
    if " from " in text.lower():
        for m in (*_FROM_NOW.finditer(text), *_HOLDS_FOR.finditer(text)):
            base = _plus(today, 1) if m[3].lower() == "tomorrow" else today
            shifted = shift(base, _amount(m[1]), m[2]) if base is not None else None
            found.append(DateMatch(m.start(1), m.end(), m[0][m.start(1) - m.start() :], shifted))
    for m in _RELDAY.finditer(text):
        key = " ".join(m[1].lower().split()) if m[1] else m[2]
        if key == "last night" and _FINAL_NIGHT.search(text, max(0, m.start() - 8), m.start()):
            continue
        offset = _EN_REL.get(key, 1) if m[1] else _CJK_REL[key]  # "tmrw", "tomorow": tomorrow
        found.append(DateMatch(m.start(), m.end(), m[0], _plus(today, offset)))
    for m in _WEEKDAY.finditer(text):
        try:
            ahead = _onward(text, m.start(), prefer)
            d: dt.date | None = _weekday(today, m[1], WEEKDAYS[m[2].lower()], ahead)
        except OverflowError:
            d = None  # beyond year 1..9999: no such date
        found.append(DateMatch(m.start(), m.end(), m[0], d))
    said_short = "ext " in text or "his " in text or "oming " in text
    for m in _WEEKDAY_SHORT.finditer(text) if said_short else ():  # "physio next tue"
        d = _weekday(today, m[1], WEEKDAY_ABBR[m[2].lower()], prefer)
        found.append(DateMatch(m.start(), m.end(), m[0], d))
    for m in _DUE_SHORT.finditer(text) if ("due " in text or "by " in text) else ():
        d = _weekday(today, None, WEEKDAY_ABBR[m[1].lower()], "future")
        found.append(DateMatch(m.start(1), m.end(), text[m.start(1) : m.end()], d))
    for m in _IN_N.finditer(text):
        found.append(DateMatch(m.start(), m.end(), m[0], shift(today, _amount(m[1]), m[2])))
    for m in _AGO.finditer(text):
        found.append(DateMatch(m.start(), m.end(), m[0], shift(today, -_amount(m[1]), m[2])))
    if "month" in text:  # "the 17th of next month"
        for m in _NTH_OF_MONTH.finditer(text):
            month = add_months(today.replace(day=1), 0 if m[2].lower() == "this" else 1)
            found.append(DateMatch(m.start(), m.end(), m[0], _nth_in(month, 0, int(m[1]))))
    for m in _END_OF.finditer(text):
        said = m[2] or m[4]
        found.append(DateMatch(m.start(), m.end(), m[0], _end_of(today, m[1], said, prefer)))
    for m in _SINCE_MONTH.finditer(text) if "since" in text.lower() else ():
        found.append(DateMatch(m.start(1), m.end(1), m[1], _began(m, today), bool(m[4])))
    if "." in text and _DIGIT_DOT.search(text):  # "02.01.2028", "20.12. until 8.1."
        found.extend(dotted_dates(text, today, prefer, DateMatch))
    if "/" in text:  # "6/30"
        found.extend(slashed_dates(text, today, prefer, DateMatch))
    found.extend(compact_dates(text, today, prefer, DateMatch))  # "14MAR29", "12-JUN-28"
    days, vague = calendar_days.find(text, today, prefer)
    named = [DateMatch(*hit) for hit in vague]  # "Easter Monday" is no Monday of its own
    found = [d for d in found if not any(_overlap(d, h) for h in named)]
    found += [DateMatch(*hit) for hit in days] + named
    found = _explicit_beats_weekday(text, _drop_overlaps(found))
    if lasts := range_last_days(found, text, DateMatch):  # "July eighth through the 11th"
        found = _drop_overlaps([*found, *lasts])
    # "back on the 19th": a bare day of month continues from the closest earlier date.
    extra: list[DateMatch] = []
    extra_ok = _ORDINAL_DIGITS.search(text) is not None
    paired = {p.start(k) for p in _NTH_PAIR.finditer(text) for k in (1, 2)} if extra_ok else set()
    for m in _NTH.finditer(text):
        if any(_overlap(m, d) for d in found):
            continue
        weekday = _WEEKDAY_BEFORE.search(text, 0, m.start())
        if weekday is not None and weekday.end() + 1 >= m.start():
            extra.append(_weekday_nth(m, weekday, today, found))
            continue
        if not m[1] and m.start(2) not in paired and not _DAY_SLOT.search(text, 0, m.start()):
            continue  # a bare "18th" ("my 18th birthday") is a day only after a weekday or "is"
        # the closest earlier day said, a bare day number too ("in on the 13th, out on the 17th")
        before = sorted([*found, *extra], key=lambda d: d.start)
        near = next((d for d in reversed(before) if d.end <= m.start() and d.date), None)
        if near is None and m.start(2) in paired and extra and extra[-1].date is not None:
            near = extra[-1]  # "8th to the 12th": the range's end continues from its start
        if near is None and (month := _month_before(text, m.start(), today, prefer)) is not None:
            extra.append(DateMatch(m.start(), m.end(), m[0], _nth_in(month, 0, int(m[2])), False))
            continue
        last = _range_end(text, m, found) if near is None else None
        if last is not None:
            # "from the 28th until 3 July": the first day is on or before the last one.
            day = int(m[2])
            options = [o for o in (_nth_in(last, k, day) for k in (0, -1)) if o and o <= last]
            first = options[0] if options else None
            extra.append(DateMatch(m.start(), m.end(), m[0], first, False))
            continue
        base = near.date if near is not None else anchor
        inside = nth_inside(span, int(m[2])) if base is None and span is not None else None
        if inside is not None:  # the 20th of the days the conversation last named
            extra.append(DateMatch(m.start(), m.end(), m[0], inside, False))
            continue
        if base is None:
            # No date to continue from: the next such day from the message date, or the
            # last one when what is said has happened ("I stopped it on the 2nd").
            day, back = int(m[2]), prefer == "past"
            options = [_nth_in(today, -k if back else k, day) for k in range(3)]
            target = next(
                (o for o in options if o is not None and (o <= today if back else o >= today)),
                None,
            )
            extra.append(DateMatch(m.start(), m.end(), m[0], target, False))
            continue
        extra.append(DateMatch(m.start(), m.end(), m[0], closest_nth(base, int(m[2])), False))
    # A weekday folded into "Friday the 15th" is not a date of its own (nor is "coming
    # Monday" in "the plumber is coming Monday the 26th").
    found = [d for d in found if not any(_overlap(d, e) for e in extra if e.date is not None)]
    out = _weekday_ends(text, sorted([*found, *extra], key=lambda d: d.start))
    out = _starts_before_ends(text, out)
    if len(out) > 1 and _SELF_FIX_HINT.search(text):
        out = _self_corrected(text, out)
    if prefer == "future" and len(out) > 1:
        out = ongoing_ranges(text, out, today)  # "from 1 May to 20 July" said on 10 May
    if named and any(d.valid and d not in named for d in out):
        # "for Christmas, out 19 December": the holiday is the occasion (though it still
        # placed "home for Christmas on the 21st" in December), the other date the day
        out = [d for d in out if d not in named]
    return out


def _began(m: re.Match[str], today: dt.date) -> dt.date | None:
    """The first day of the month `_SINCE_MONTH` matched."""
    month = MONTHS[m[3].lower()]
    if m[4]:
        return safe_date(int(m[4]), month, 1)
    back = (today.month - month) % 12 or (12 if m[2] else 0)  # "since last December" in December
    return add_months(today.replace(day=1), -back)


def _month_before(text: str, at: int, today: dt.date, prefer: Prefer) -> dt.date | None:
    """The first day of the month named alone before `at` ("in July, 3rd-8th"), or None."""
    named = None
    for found in _MONTH_ALONE.finditer(text, 0, at):
        named = found  # the last one before the day
    if named is None:
        return None
    month = MONTHS[named[1].lower()]
    year = today.year
    if prefer == "future" and month < today.month:
        year += 1
    elif prefer == "past" and month > today.month:
        year -= 1
    return dt.date(year, month, 1)


# "moved from 12 June to 10 June", "changed from the 20th to the 18th": two days, no range
_RESCHEDULED = lazy(
    r"\b(?:moved|changed|brought|rescheduled|pushed|postponed|shifted|switched|swapped)\b"
    r"[^.;!?]{0,40}\bfrom\s*$",
    re.I,
)


def _starts_before_ends(text: str, found: list[DateMatch]) -> list[DateMatch]:
    """A range read in order: 'from 20 December to 3 January' (neither year said) ends in
    the year after it starts; 'from 1 March to 28 February 2028' (the end's year said)
    starts on the last such day on or before it, and so within a year of it ('April 2 -
    March 31, 2029'). A day moved 'from' one date to another is no range."""
    out = list(found)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if a.explicit_year or a.date is None or b.date is None:
            continue
        if a.date <= b.date and not (b.explicit_year and add_months(a.date, 12) < b.date):
            continue  # in order, and under a year apart (or the end's year unsaid too)
        if not _RANGE_JOIN.fullmatch(re.sub(r"\bthe\s+$", "", text[a.end : b.start])):
            continue
        if _RESCHEDULED.search(text, 0, a.start):
            continue
        if not b.explicit_year:  # the end comes round again after the start
            later = safe_date(b.date.year + 1, b.date.month, b.date.day)
            if later is not None and later >= a.date:
                out[i + 1] = DateMatch(b.start, b.end, b.text, later, False, b.conflict)
            continue
        for year in (b.date.year, b.date.year - 1):
            day = safe_date(year, a.date.month, a.date.day) if year > 0 else None
            if day is not None and day <= b.date:
                out[i] = DateMatch(a.start, a.end, a.text, day, False, a.conflict)
                break
    return out


def _weekday_ends(text: str, found: list[DateMatch]) -> list[DateMatch]:
    """ "Friday the 13th till the Monday": a bare weekday ending a range is the first such
    day after the range's start, not the next one from the message date."""
    out: list[DateMatch] = []
    for d in found:
        named = _WEEKDAY.fullmatch(d.text)
        prev = out[-1] if out else None
        if (
            named is not None
            and not named[1]
            and prev is not None
            and prev.date is not None
            and _RANGE_JOIN.fullmatch(re.sub(r"\bthe\s+$", "", text[prev.end : d.start]))
        ):
            ahead = (WEEKDAYS[named[2].lower()] - prev.date.weekday()) % 7 or 7
            d = DateMatch(d.start, d.end, d.text, prev.date + dt.timedelta(days=ahead), False)
        out.append(d)
    return out


def _range_end(text: str, m: re.Match[str], found: list[DateMatch]) -> dt.date | None:
    """The full date a bare day number runs to ("the 28th until 3 July" -> 3 July), or None."""
    after = next((d for d in found if d.start >= m.end() and d.date is not None), None)
    if after is None or not _RANGE_JOIN.fullmatch(text, m.end(), after.start):
        return None
    return after.date


def _end_of(today: dt.date, which: str | None, period: str, prefer: Prefer) -> dt.date:
    """The last day of this (or next) month or year, or of a named month in the direction."""
    which, period = (which or "").lower(), period.lower()
    if period == "year":
        return dt.date(today.year + (which == "next"), 12, 31)
    if period == "month":
        month = add_months(today.replace(day=1), 1 if which == "next" else 0)
    else:
        number = MONTHS[period]
        year = today.year
        if prefer == "future" and number < today.month:
            year += 1
        elif prefer == "past" and number > today.month:
            year -= 1
        month = dt.date(year, number, 1)
    return month.replace(day=calendar.monthrange(month.year, month.month)[1])


_MONTH_END = lazy(r"^\s*(?:of\s+)?(?:the\s+)?(?:month[- ]end|end\s+of\s+(?:the\s+)?month)\b", re.I)
_MONTH_NAMED = lazy(rf"\b({_MONTH_RE})\b", re.I)


def month_end(rest: str, said_before: str, today: dt.date) -> dt.date | None:
    """The last day of the month an offset counts from ("within 10 working days of month end"):
    the month named before it ("February expenses"; the latest one not after today's month),
    else this month; None when the offset does not count from a month's end."""
    if _MONTH_END.match(rest) is None:
        return None
    named = _MONTH_NAMED.search(said_before)
    if named is not None and named[1] == "may":
        named = None  # "it may have to be in": the verb, not the month
    which = "month" if named is None else named[1]
    return _end_of(today, None, which, "past")


def _nth_in(base: dt.date, months: int, day: int) -> dt.date | None:
    """Day `day` of the month `months` after base's month (None when it does not exist)."""
    try:
        first = add_months(base.replace(day=1), months)
    except ValueError:
        return None  # before year 1 or after 9999
    return safe_date(first.year, first.month, day)


def closest_nth(base: dt.date, day: int) -> dt.date | None:
    """The day of that number closest to base ("on the 2nd" after March 28 is April 2)."""
    real = [o for o in (_nth_in(base, k, day) for k in (-1, 0, 1)) if o is not None]
    # A tie goes to the later day.
    return min(real, key=lambda o: (abs((o - base).days), o < base)) if real else None


def _weekday_nth(
    m: re.Match[str], weekday: re.Match[str], today: dt.date, found: list[DateMatch]
) -> DateMatch:
    """ "Friday the 15th": the next 15th that is a Friday (a disagreement is flagged)."""
    name = weekday[1].lower()
    want = WEEKDAYS.get(name, WEEKDAY_ABBR.get(name, 0))
    day = int(m[2])
    base = next((d.date for d in reversed(found) if d.date and d.end <= weekday.start()), today)
    options = [o for o in (_nth_in(min(base, today), k, day) for k in range(14)) if o]
    options = [o for o in options if o >= min(base, today)]
    # The weekday picks the month only among the next two: further off, the day number the
    # user wrote wins and the disagreement is flagged (explicit dates beat weekdays).
    fitting = [o for o in options if o.weekday() == want and (o - min(base, today)).days <= 62]
    if fitting:
        return DateMatch(weekday.start(), m.end(), text_of(m, weekday), fitting[0], False)
    target = options[0] if options else None
    note = f"{weekday[1]} does not fall on the {m[2]}{m[3]}"
    return DateMatch(weekday.start(), m.end(), text_of(m, weekday), target, False, note)


def text_of(m: re.Match[str], weekday: re.Match[str]) -> str:
    """The text from the weekday to the end of the day number."""
    return m.string[weekday.start() : m.end()]


def _explicit_beats_weekday(text: str, found: list[DateMatch]) -> list[DateMatch]:
    """ "Thursday, March 19": the explicit date wins; a weekday it contradicts is flagged."""
    out: list[DateMatch] = []
    skip: set[int] = set()
    for i, d in enumerate(found):
        if i in skip:
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        named = _WEEKDAY.fullmatch(d.text)
        if (
            named is not None
            and not named[1]
            and nxt is not None
            and nxt.date is not None
            and _JOINER.fullmatch(text[d.end : nxt.start])
            and not _WEEKDAY.fullmatch(nxt.text)
        ):
            conflict = None
            if nxt.date.weekday() != WEEKDAYS[named[2].lower()]:
                conflict = f"{named[2]} does not fall on {nxt.date.isoformat()}"
            out.append(
                DateMatch(
                    d.start, nxt.end, text[d.start : nxt.end], nxt.date, nxt.explicit_year, conflict
                )
            )
            skip.add(i + 1)
            continue
        out.append(d)
    return out


_WHICH_YEAR = lazy(r"[ \t,]{1,3}(this|next|last)[ \t]+year\b", re.I)


def _month_day(
    m: re.Match[str], month: int, day: int, year: str | None, today: dt.date, prefer: Prefer
) -> DateMatch:
    if year:
        return DateMatch(m.start(), m.end(), m[0], safe_date(int(year), month, day))
    if (which := _WHICH_YEAR.match(m.string, m.end())) is not None:
        # "30 June this year", "3 March last year": the year said in words
        shift = {"this": 0, "next": 1, "last": -1}[which[1].lower()]
        found = safe_date(today.year + shift, month, day)
        return DateMatch(m.start(), which.end(), m.string[m.start() : which.end()], found)
    prefer = _onward(m.string, m.start(), prefer)
    return DateMatch(m.start(), m.end(), m[0], infer_year(month, day, today, prefer), False)


def _overlap(m: re.Match[str] | DateMatch, d: DateMatch) -> bool:
    start, end = (m.start(), m.end()) if isinstance(m, re.Match) else (m.start, m.end)
    return start < d.end and d.start < end


def _drop_overlaps(found: list[DateMatch]) -> list[DateMatch]:
    """The longest first, each date that overlaps none kept before it, in text order. The kept
    never overlap, so their ends rise with their starts: the last kept one starting before a
    candidate ends is the only one to ask (a text of many dates is read in n log n)."""
    starts: list[int] = []
    kept: list[DateMatch] = []  # in text order, `starts` beside it
    for cand in sorted(found, key=lambda d: (-(d.end - d.start), d.start)):
        before = bisect.bisect_left(starts, cand.end)
        if before and kept[before - 1].end > cand.start:
            continue
        at = bisect.bisect_right(starts, cand.start)
        starts.insert(at, cand.start)
        kept.insert(at, cand)
    return kept
