"""Calendar primitives and the date forms dates.py's patterns leave out.

The primitives (DateMatch, safe_date, infer_year, add_months, the ordinal day words) live
here so that dates.py and this module share one source. The forms: European dotted dates
("02.01.2028", "until 8.1.", "on 14.02.", "20.12. until 8.1." across the new year, "due
31.10.", "20.–27.6."), dates written as one word ("14MAR29", "12-JUN-28"), slashed
dates whose order is plain from the numbers ("6/30"), a bare day said as a word ("from the
ninth"), and the last day of a range said without its month ("July eighth through the
eleventh", "march 11 to 18"). find_dates merges these with its own.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import Literal

from uac.fact_log.extraction.lazy import compile_kept, lazy

Prefer = Literal["future", "past"]


# Numeric dates written with other separators, read as the forms the patterns know (the
# same length, so every offset holds): "14-04-2027" as the slashed "14/04/2027" (its order
# decided, or left ambiguous, as a slashed date's), "2029/3/2" and "2029.11.30" (year
# first: year, month, day wherever it is written) as "2029-3-2".
_DASHED_DMY = lazy(r"(?<![\w-])(\d{1,2})-(\d{1,2})-(\d{4})(?![\w-])")
_YEAR_FIRST = lazy(
    # dotted only with two-digit month and day ("2029.11.30", never a version "2023.1.5")
    r"(?<![\w./-])(\d{4})(?:/(\d{1,2})/(\d{1,2})|\.([01]\d)\.([0-3]\d))(?![\w/-]|\.\d)"
)


def numeric_separators(text: str) -> str:
    """The text with dashed day-month-year dates slashed and year-first dates dashed."""
    if "-" in text:
        text = _DASHED_DMY.sub(r"\1/\2/\3", text)
    if "/" in text or "." in text:
        text = _YEAR_FIRST.sub(lambda m: f"{m[1]}-{m[2] or m[4]}-{m[3] or m[5]}", text)
    return text


@dataclass(frozen=True, slots=True)
class DateMatch:
    """One date expression found in a text; `date` is None when the date does not exist."""

    start: int
    end: int
    text: str
    date: dt.date | None
    explicit_year: bool = True
    conflict: str | None = None  # "Thursday, March 20": the weekday the date contradicts

    @property
    def valid(self) -> bool:
        """Whether the expression named a real calendar date."""
        return self.date is not None


# "02.01.2028", "2.1.28": day, month and a year
_DOTTED_FULL = lazy(r"(?<![\w.,])(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})(?![\d.,]\d)")
# "Python 3.11.12", "firmware 1.2.26", "section 3.4.12": numbers of a version or a clause
_NUMBERED = lazy(
    r"\b(?:version|release|build|firmware|update|python|ios|android|windows|macos|section|"
    r"chapter|clause|article|rule|paragraph|step|figure|table|ip)[ \t]{1,3}$",
    re.I,
)
# "14.02.", "8.1.": day and month, each closed by its dot (a price "20.12" has no second dot)
_DOTTED = lazy(r"(?<![\d.,])(\d{1,2})\.(\d{1,2})\.(?![\d])")
_DAY_CUE = lazy(
    r"(?:\b(?:on|until|till|til|by|from|since|to|before|after|am|bis|vom|ab|valid|expires?|"
    # the words of a journey or a stay: "and back 8.1.", "check-out 9.02", "to Krakow 20.12."
    r"back|return(?:ing)?|leav(?:e|ing)|arriv(?:e|ing)|depart(?:ing|ure)?|dep|arr|fly(?:ing)?|"
    r"check[- ]?in|check[- ]?out|(?:to|in|from)[ \t]{1,3}(?-i:[A-Z][\w'’-]+))"
    r"|[-–]|\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?)[ \t]{1,3}$",
    re.IGNORECASE,
)
# "done 22.09. at the garage", "Netflix: cancelled 27.11.": a day and month each closed by its
# dot right after a word is a date, unless its clause says an amount or a measure ("paid
# 10.12.", "rated it 4.5.") or it reads as a measure ("cholesterol 6.9.", see _plain_day)
_WORD_BEFORE = lazy(r"\b[^\W\d_]{2,}[:)]?[ \t]{1,3}$")
_AMOUNT_WORD = lazy(
    r"[€$£¥₹]|\b(?:paid|pay|pays|paying|cost|costs|price|priced|spent|spend|total|sum|was|is|are|"
    r"were|be|about|around|only|just|approx|ca|rated?|rating|score[ds]?|weigh[st]?|weighed|weight|"
    r"height|temp|temperature|bmi|version|v|eur|euros?|usd|gbp|chf|pln|zł|zl|kr|sek|nok|dkk|"
    r"czk|huf|ron|rs|inr|aud|cad|nzd|x|times)\b",
    re.I,
)
_CLAUSE_START = lazy(r".*[,;(\n]", re.S)
# "20.–27.6.", "1.-5.12.": the first day said with its dot alone, the month once, at the end
_DOTTED_DAYS = lazy(r"(?<![\d.,])(\d{1,2})\.[ \t]?[-–][ \t]?(\d{1,2})\.(\d{1,2})\.(?!\d)")
_CUE_REACH = 80  # characters before a dotted date read for its cue (a cue ends right before it)
_RANGE_ON = lazy(r"[ \t]{0,3}(?:[-–]|to|till|until|bis)[ \t]{0,3}\d", re.IGNORECASE)
_ORDINAL_UNITS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_ORDINAL_UNITS += ("ninth",)
_ORDINAL_TEENS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth")
_ORDINAL_TEENS += ("sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth")
# "the first of September", "July the fourth": day numbers said as ordinal words
ORDINAL_WORDS: dict[str, int] = {w: n for n, w in enumerate(_ORDINAL_UNITS + _ORDINAL_TEENS, 1)}
ORDINAL_WORDS |= {f"twenty {w}": 20 + n for n, w in enumerate(_ORDINAL_UNITS, 1)}
ORDINAL_WORDS |= {"thirtieth": 30, "thirty first": 31}
ORD_RE = "|".join(sorted((w.replace(" ", "[ -]") for w in ORDINAL_WORDS), key=len, reverse=True))
# the joint and the bare last day after a dated first day ("... through the eleventh")
_LAST_DAY = lazy(
    r"[ \t]{1,3}(?:to|till|til|until|through|thru)[ \t]{1,3}(?:the[ \t]{1,3})?"
    rf"(?P<day>\d{{1,2}}(?:st|nd|rd|th)?|{ORD_RE})\b"
    # not a full date ("to 17 September": dates.py reads it), nor a count ("11 to 18 people")
    r"(?![ \t]*(?:of[ \t]+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|days?|nights?|"
    r"weeks?|people|guests|hours?|am|pm|%|:|\.\d))",
    re.IGNORECASE,
)


# "two nights from the ninth", "we get in on the eighth": a bare day said as a word
_SPELLED_NTH = lazy(
    r"\b(?:from|on|until|till|til|to|by|since|before|after|through|thru|and)[ \t]+the[ \t]+"
    rf"(?P<ord>{ORD_RE})\b(?![ \t]+of\b)",
    re.IGNORECASE,
)
_SUFFIX = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}


def spell_out_days(text: str) -> str:
    """Bare ordinal days in digits, same length ("from the ninth" -> "from the 9th  ")."""

    def digits(m: re.Match[str]) -> str:
        n = ORDINAL_WORDS[" ".join(m["ord"].lower().replace("-", " ").split())]
        said = f"{n}{_SUFFIX.get(n, 'th')}".ljust(len(m["ord"]))
        return m[0][: m.start("ord") - m.start()] + said

    return _SPELLED_NTH.sub(digits, text)


def _day_number(word: str) -> int | None:
    """The day a bare last day names ("11", "18th", "eleventh", "twenty-first")."""
    word = word.lower().replace("-", " ")
    digits = re.match(r"\d{1,2}", word)
    return int(digits[0]) if digits else ORDINAL_WORDS.get(" ".join(word.split()))


# "6/30", "30/6/2027": a slashed date is read only when one side cannot be a month (the other
# order, "03/04", is ambiguous and left unread rather than guessed)
_SLASHED = lazy(r"(?<![\d/.])(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?![\d/])")


def safe_date(year: int, month: int, day: int) -> dt.date | None:
    """The date, or None when it does not exist (never coerced)."""
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def infer_year(month: int, day: int, today: dt.date, prefer: Prefer) -> dt.date | None:
    """The month/day occurrence nearest to today in the preferred direction."""
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    step = 1 if prefer == "future" else -1
    # Feb 29 needs up to 8 years to find a leap year; anything else exists within one.
    for offset in range(9):
        found = safe_date(today.year + step * offset, month, day)
        if found is None:
            if offset == 0 and (month != 2 or day != 29):
                return None  # e.g. February 30 or April 31: never a real date
            continue
        if (prefer == "future" and found >= today) or (prefer == "past" and found <= today):
            return found
    return None


def add_months(day: dt.date, months: int) -> dt.date:
    """day plus a number of months, clamped to the target month's last day."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(day.day, last))


def slash_order(text: str) -> str | None:
    """The day/month order a text writes its slashed dates in, when one of them makes it
    plain and none says the other ("12/4 - 16/4": "dm"; "6/11-6/15": "md"); else None. A
    writer keeps one order in a message, so "12/4" beside "16/4" is not ambiguous."""
    orders = set()
    for m in _SLASHED.finditer(text):
        a, b = int(m[1]), int(m[2])
        if a > 12 and 1 <= b <= 12 and a <= 31:
            orders.add("dm")
        elif b > 12 and 1 <= a <= 12 and b <= 31:
            orders.add("md")
    return orders.pop() if len(orders) == 1 else None


def slashed_dates(
    text: str, today: dt.date, prefer: Prefer, make: type[DateMatch]
) -> list[DateMatch]:
    """Slashed dates whose order is plain from the numbers ("6/30" is 30 June), or from
    another slashed date of the same text (`slash_order`)."""
    out = []
    order = slash_order(text)
    for m in _SLASHED.finditer(text):
        a, b = int(m[1]), int(m[2])
        if m[0] == "24/7":
            continue  # "24/7 support": always, not 24 July
        if a > 12 and 1 <= b <= 12 and a <= 31:
            day, month = a, b
        elif b > 12 and 1 <= a <= 12 and b <= 31:
            month, day = a, b
        elif order is not None and 1 <= a <= 12 and 1 <= b <= 12:
            day, month = (a, b) if order == "dm" else (b, a)
        else:
            continue
        out.append(_day_said(m, m[3], month, day, today, prefer, make))
    return out


def _day_said(
    m: re.Match[str],
    year: str | None,
    month: int,
    day: int,
    today: dt.date,
    prefer: Prefer,
    make: type[DateMatch],
) -> DateMatch:
    """The date a match says: in the year written (two digits: 20xx), else the year inferred."""
    if year:
        said = int(year) + (2000 if len(year) == 2 else 0)
        return make(m.start(), m.end(), m[0], safe_date(said, month, day))
    return make(m.start(), m.end(), m[0], infer_year(month, day, today, prefer), False)


# "check-in 2.02", "until 31.07", "from 19.12 to 2.01", "Gdańsk 2.02 at 6:05": a day and a
# two-digit month with no closing dot, read as a date only after a day's word (a price
# "19.12" has none) or before a clock time; never beside a currency or before "am"/"h"
_DOTTED_BARE = compile_kept(
    r"(?<![\d.,€$£])(\d{1,2})\.(0[1-9]|1[0-2])(?![\d.,]?\d|\.\d)"
    r"(?![ \t]*(?:€|\$|£|zł|zl|pln|eur|euros?|usd|gbp|chf|am|pm|h\b|hrs|o'clock|%))",
    re.I,
)
_AT_CLOCK = lazy(r"[ \t,]{1,3}(?:at[ \t]{1,3})?\d{1,2}[:h]\d{2}\b", re.I)
_BARE_CUE = lazy(
    r"(?:\b(?:on|until|till|til|by|from|since|before|after|valid|expires?|back|return(?:ing)?|"
    r"check[- ]?in|check[- ]?out|dep|arr)|\d[ \t]{1,3}(?:to|till|until|[-–])|[-–])[ \t]{1,3}$",
    re.I,
)


def dotted_dates(
    text: str, today: dt.date, prefer: Prefer, make: type[DateMatch]
) -> list[DateMatch]:
    """Dotted day-first dates: "02.01.2028", and "20.12." / "8.1." with the year inferred."""
    out = _dotted_days(text, today, prefer, make)
    for m in _DOTTED_FULL.finditer(text):
        if not 1 <= int(m[2]) <= 12 or _NUMBERED.search(text, max(0, m.start() - 12), m.start()):
            continue  # "12.50.2026", "Python 3.11.12": no date at all
        year = int(m[3]) + (2000 if len(m[3]) == 2 else 0)
        out.append(make(m.start(), m.end(), m[0], safe_date(year, int(m[2]), int(m[1]))))
    taken = {i for d in out for i in range(d.start, d.end)}  # a dotted date is a few characters
    prev: DateMatch | None = None
    said = sorted([*_DOTTED.finditer(text), *_DOTTED_BARE.finditer(text)], key=lambda m: m.start())
    for m in said:
        if m.start() in taken:
            continue
        day, month = int(m[1]), int(m[2])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            continue
        if m.re is _DOTTED_BARE:
            if not (
                _BARE_CUE.search(text, max(0, m.start() - _CUE_REACH), m.start())
                or _AT_CLOCK.match(text, m.end())
                or _RANGE_ON.match(text, m.end())
                or (prev is not None and _RANGE_JOINT.fullmatch(text, prev.end, m.start()))
            ):
                continue  # "19.12" is a price unless a day's word or a clock time says otherwise
        elif not (
            _DAY_CUE.search(text, max(0, m.start() - _CUE_REACH), m.start())
            or _RANGE_ON.match(text, m.end())
            or (_plain_day(m) and _said_after_a_word(text, m.start()))
        ):
            continue  # "paid 10.12.": an amount, unless a date's word or a range says otherwise
        found = infer_year(month, day, today, prefer)
        if prev is not None and prev.date and found and found < prev.date:
            found = safe_date(prev.date.year + 1, month, day)  # "20.12. until 8.1."
        prev = make(m.start(), m.end(), m[0], found, False)
        out.append(prev)
        taken.update(range(prev.start, prev.end))
    return out


def _plain_day(m: re.Match[str]) -> bool:
    """Whether a closed dotted day and month cannot be a measure: its month written with two
    digits ("27.11.", "1.08.") or its day past 12 ("30.9."); "cholesterol 6.9." is a reading."""
    return len(m[2]) == 2 or int(m[1]) > 12


def _said_after_a_word(text: str, at: int) -> bool:
    """Whether the closed dotted day and month at `at` follow a word that is no amount's."""
    before = text[max(0, at - 24) : at]
    if not _WORD_BEFORE.search(before):
        return False
    clause = _CLAUSE_START.match(before)
    return not _AMOUNT_WORD.search(before, clause.end() if clause else 0)


def _dotted_days(
    text: str, today: dt.date, prefer: Prefer, make: type[DateMatch]
) -> list[DateMatch]:
    """Both days of "20.–27.6.": the first in the month of the last, on or before it."""
    out = []
    for m in _DOTTED_DAYS.finditer(text) if "." in text else ():
        first, day, month = int(m[1]), int(m[2]), int(m[3])
        last = infer_year(month, day, today, prefer) if first < day else None
        if last is None:
            continue
        out.append(make(m.start(1), m.end(1), m[1], last.replace(day=first), False))
        out.append(make(m.start(2), m.end(), text[m.start(2) : m.end()], last, False))
    return out


# "14MAR29", "10APR", "12-JUN-28": a day and a month's three letters written as one word (a
# ticket, a bank alert), the year's last two digits or all four after them
_COMPACT = lazy(
    r"(?<![\w./-])(\d{1,2})(-?)(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r"(?:\2(\d{4}|\d{2}))?(?![\w-])",
    re.I,
)
_MONTH_ABBR = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def compact_dates(
    text: str, today: dt.date, prefer: Prefer, make: type[DateMatch]
) -> list[DateMatch]:
    """Dates written as one word: "14MAR29", "12-JUN-28", "10APR" (the year inferred)."""
    out = []
    for m in _COMPACT.finditer(text):
        month = _MONTH_ABBR.index(m[3].lower()) + 1
        out.append(_day_said(m, m[4], month, int(m[1]), today, prefer, make))
    return out


def range_last_days(found: list[DateMatch], text: str, make: type[DateMatch]) -> list[DateMatch]:
    """The bare last day of a range whose first day is dated ("July eighth through the 11th")."""
    out = []
    for d in found:
        if d.date is None:
            continue
        m = _LAST_DAY.match(text, d.end)
        if m is None or (day := _day_number(m["day"])) is None or day <= d.date.day:
            continue
        try:
            last = d.date.replace(day=day)
        except ValueError:
            continue
        out.append(make(m.start("day"), m.end("day"), m["day"], last, d.explicit_year))
    return out


# what joins a range's two days ("20.12–2.01", "20.12. to 2.01.")
_RANGE_JOINT = lazy(r"[ \t]{0,3}(?:[-–]|to|till|til|until)[ \t]{0,3}", re.I)
_JOINED = lazy(r"[ \t]{0,3}(?:[-–]|to|till|til|until|through|thru)[ \t]{1,3}(?:the[ \t]+)?$", re.I)


_ONGOING_SINCE = 92  # days: a range that began longer ago is said of the next one


def ongoing_ranges(text: str, found: list[DateMatch], today: dt.date) -> list[DateMatch]:
    """A range said without years that holds today is this one, not next year's ("insurance
    from 1 May to 20 July" said on 10 May runs now; read ahead, both days were a year on)."""
    out = list(found)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if a.explicit_year or b.explicit_year or a.date is None or b.date is None:
            continue
        if a.date <= today or not _JOINED.fullmatch(text[a.end : b.start]):
            continue
        first, last = safe_date(a.date.year - 1, a.date.month, a.date.day), None
        last = safe_date(b.date.year - 1, b.date.month, b.date.day)
        # ... begun lately: "from 15 March to 10 January" said on 5 January is the next one
        recent = first is not None and (today - first).days <= _ONGOING_SINCE
        if recent and last is not None and first <= today <= last:  # type: ignore[operator]
            out[i], out[i + 1] = replace(a, date=first), replace(b, date=last)
    return out
