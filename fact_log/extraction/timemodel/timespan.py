"""Times of day, time ranges, durations and offsets ("a month before the lease ends").

The other half of the time model (dates.py finds the days). Everything here is a pure
function of the text; what a relative expression is relative to (the message date, or
another fact's date) is the caller's (discourse.py).

* `clock(text)`: the start time and, when a range is said, the end time: "at 7pm",
  "from 10 till noon", "between 8 and 10am", "9am to 5pm", "from 1 to 3pm". A bare hour
  ("at 8") is read the way people say it: 1-6 is afternoon, 7-11 morning unless the sentence
  is about an evening (dinner, party, ...); `assumed` says the half of the day was inferred.
* `duration(text)`: "about three hours", "45 minutes", "two and a half hours", "an hour and
  a half", "for a week", "four nights".
* `offset(text)`: "a month before", "two weeks before", "three days before that", "at least
  28 days before", "within 14 days (of delivery)": a signed amount and its unit.
* `find_time(text)`: the first clock time said with am/pm, "at 14:30", noon or in Chinese
  ("下午3点"), with its span (the frames' datetime slot reads it).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.timemodel.dates import _MONTH_RE, _NUM_RE, NUMBER_WORDS, add_months

_HALF = {"am": 0, "a.m.": 0, "pm": 12, "p.m.": 12}
_T = r"(\d{1,2})(?:[:.](\d{2}))?[ \t]{0,2}(am|pm|a\.m\.|p\.m\.)?|(noon|midday|midnight)"
_RANGE = lazy(
    rf"\b(?:from|between)[ \t]{{1,3}}(?:{_T})[ \t]{{1,3}}(?:to|till|til|until|and|-|–)"
    rf"[ \t]{{1,3}}(?:{_T})|\b(?:{_T})[ \t]{{0,2}}(?:to|till|til|until|-|–)[ \t]{{0,2}}(?:{_T})",
    re.IGNORECASE,
)
_AT = lazy(rf"(?:\b(?:at|@|by|around|from)[ \t]{{1,3}})(?:{_T})\b|\b(?:{_T})", re.I)
_DAYPART_RANGE = lazy(
    r"\b(?P<part>mornings?|afternoons?|evenings?)[ \t]{1,3}(?P<a>\d{1,2}(?::\d{2})?)"
    r"[ \t]?[-–][ \t]?(?P<b>\d{1,2}(?::\d{2})?)\b(?![-–/.\d])",
    re.I,
)
_EVENING = lazy(
    r"\b(?:dinner|supper|drinks|party|evening|tonight|night|concert|gig|theatre|theater|"
    r"show|movie|film|book\s+club|restaurant|table)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Clock:
    """A time of day said in a sentence, with the end of a range when one is said."""

    start: dt.time
    end: dt.time | None
    assumed: bool  # am/pm inferred from the hour and the sentence


def _time(
    groups: tuple[str | None, ...], evening: bool, half: str | None
) -> tuple[dt.time, bool] | None:
    """One time from (hour, minute, am/pm, word) groups; `half` is the range's am/pm."""
    hour_s, minute_s, ampm, word = groups
    if word:
        return dt.time(0 if word.lower() == "midnight" else 12, 0), False
    if hour_s is None:
        return None
    hour, minute = int(hour_s), int(minute_s or 0)
    if minute > 59 or hour > 23:
        return None
    marker = (ampm or half or "").lower()
    if hour > 12 or (hour == 0):
        return dt.time(hour, minute), False
    if marker:
        hour = hour % 12 + _HALF[marker]
        return dt.time(hour, minute), False
    if hour_s.startswith("0") and len(hour_s) == 2:  # "06:50", "07": a 24-hour clock
        return dt.time(hour, minute), False
    # A bare hour: 1-6 is afternoon, 7-11 morning unless the sentence is about an evening.
    if hour == 12 or (7 <= hour <= 11 and not evening):
        return dt.time(hour, minute), True
    return dt.time(hour % 12 + 12, minute), True


_UNITS_SAID = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS_SAID = (
    *("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"),
    *("seventeen", "eighteen", "nineteen"),
)
_TENS_SAID = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_SAID_NUMBER = {w: i + 1 for i, w in enumerate(_UNITS_SAID)} | {
    w: i + 10 for i, w in enumerate(_TEENS_SAID)
}
_HOUR_SAID = (
    r"(?:twenty[- ](?:one|two|three)|" + "|".join([*_TEENS_SAID, *_UNITS_SAID, "twenty"]) + ")"
)
_MIN_SAID = (
    r"(?:(?:twenty|thirty|forty|fifty)(?:[- ](?:"
    + "|".join(_UNITS_SAID)
    + r"))?|"
    + "|".join(_TEENS_SAID)
    + ")"
)
# "at eight oh one in the morning", "at nineteen thirteen", "at half past seven": clock times
# said in words (voice dictation); only after "at", where a number is a time.
_SPOKEN = lazy(
    rf"\bat[ \t]+(?:(?P<h>{_HOUR_SAID})[ \t]+(?:oh[ \t]+(?P<m1>{'|'.join(_UNITS_SAID)})|"
    rf"(?P<m2>{_MIN_SAID})|o'?clock)|(?P<frac>half|quarter|{_MIN_SAID}|five|ten)"
    r"(?:[ \t]+minutes)?[ \t]+(?P<rel>past|to)[ \t]+"
    # "at ten, the optician", "at three in the afternoon": an hour alone, where no noun follows
    rf"(?P<h2>{_HOUR_SAID})|(?P<h3>{_HOUR_SAID})(?=[ \t]*(?:am|pm)\b|[ \t]*(?:[,.;:!?)]|$)|"
    r"[ \t]+(?:in|on|at|for|with|sharp|tomorrow|today|tonight|comma|full[ \t]+stop)\b))"
    r"(?:[ \t]+in[ \t]+the[ \t]+(?P<part>morning|afternoon|evening)|"
    r"[ \t]*(?P<ampm>am|pm))?\b",
    re.I,
)


def _said(words: str) -> int:
    """A number said in words, up to fifty-nine ("nineteen", "forty-five")."""
    parts = re.split(r"[- ]", words.lower())
    return sum(_TENS_SAID.get(p, 0) or _SAID_NUMBER.get(p, 0) for p in parts)


# "every Tuesday six to seven thirty": a range of hours said in words right after a weekday
_SPOKEN_RANGE = lazy(
    rf"(?:(?<=day\s)|(?<=days\s))(?P<a>{_HOUR_SAID})(?:[ \t]+(?P<am>{_MIN_SAID}))?[ \t]+"
    rf"(?:to|till|until)[ \t]+(?P<b>{_HOUR_SAID})(?:[ \t]+(?P<bm>{_MIN_SAID}))?\b",
    re.I,
)


def _spoken_range(m: re.Match[str]) -> str:
    """A said range of hours in digits ("six to seven thirty" -> "from 6:00 to 7:30")."""
    start = f"{_said(m['a'])}:{_said(m['am'] or ''):02d}"
    return f"from {start} to {_said(m['b'])}:{_said(m['bm'] or ''):02d}"


# Said, not written: a filler between "at" and the time ("at um ten past nine"), the British
# "half seven" (7:30), an hour with "o'clock" wherever it is said ("the 7th, 11 o'clock")
_FILLER = lazy(r"(?<=\bat)[ \t]+(?:um+|uh+|erm+|er|like)\b,?(?=[ \t])", re.I)
_HALF_HOUR = lazy(
    rf"(?<![\w-])(?:at[ \t]+)?half[ \t]+(?P<h>{_HOUR_SAID}|1[0-2]|[1-9])\b"
    r"(?![ \t]*(?:-|%|(?:past|to|an?|hours?|days?|weeks?|months?|years?|dozen|of|times?|"
    r"kilos?|kg|km|miles?|pounds?|litres?|liters?|cups?|pints?)\b))",
    re.I,
)
_OCLOCK = lazy(rf"\b(?:at[ \t]+)?(?P<h>{_HOUR_SAID}|1[0-2]|[1-9])[ \t]+o['’]?clock\b", re.I)


def _hour_said(word: str) -> int:
    return int(word) if word.isdigit() else _said(word)


def _said_forms(text: str) -> str:
    """Fillers after "at" dropped, "half seven" and "11 o'clock" written as "at 7:30",
    "at 11:00" (the am/pm is inferred as for any bare hour)."""
    lower = text.lower()
    if "at " in lower:
        text = _FILLER.sub("", text)
    if "half" in lower:
        text = _HALF_HOUR.sub(lambda m: f"at {_hour_said(m['h'])}:30", text)
    if "clock" in lower:
        text = _OCLOCK.sub(lambda m: f"at {_hour_said(m['h'])}:00", text)
    return text


def spoken_times(text: str) -> str:
    """The text with clock times said in words written in digits ("at 8:01am")."""
    text = _said_forms(text)
    if "day " in text.lower():
        text = _SPOKEN_RANGE.sub(_spoken_range, text)
    if "at " not in text.lower():
        return text

    def digits(m: re.Match[str]) -> str:
        hour = _said(m["h"] or m["h2"] or m["h3"])
        frac = (m["frac"] or "").lower()
        past = {"half": 30, "quarter": 15}.get(frac) or (_said(frac) if frac else 0)
        minute = _said(m["m1"] or m["m2"] or "") if m["h"] else past
        if m["rel"] and m["rel"].lower() == "to":  # "twenty to six": 5:40
            hour, minute = (hour - 1) % 24, 60 - past
        half = (m["ampm"] or "").lower() or {
            "morning": "am",
            "afternoon": "pm",
            "evening": "pm",
        }.get((m["part"] or "").lower(), "")
        if hour > 12:
            half = ""  # "nineteen thirteen" is a 24-hour time
        return f"at {hour}:{minute:02d}{half}"

    return _SPOKEN.sub(digits, text)


# "from 1 June to 5 June", "April 30": day numbers of a date, never hours
_MONTHS = rf"(?:{_MONTH_RE})\b"  # the month names dates.py reads
_DATE_NUMBER = lazy(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?{_MONTHS}|"
    rf"\b{_MONTHS}\.?[ \t]+\d{{1,2}}(?:st|nd|rd|th)?\b(?![:.]\d)",
    re.I,
)


# "18h", "9h30", "7h40" (continental hours), "tue 4.15" (a dotted time after its day)
_H_TIME = lazy(
    r"\b(\d{1,2})h(\d{2})\b|(?<=\bat[ \t])(\d{1,2})h\b|(?<=\bto[ \t])(\d{1,2})h\b|"
    r"(?<=\bfrom[ \t])(\d{1,2})h\b|(?<=til[ \t])(\d{1,2})h\b|(?<=till[ \t])(\d{1,2})h\b|"
    r"(?<=[@–-][ \t])(\d{1,2})h\b",
    re.I,
)
_MONTH_WORD = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY_DOT_TIME = lazy(
    r"\b((?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?|today|tomorrow|tonight|"
    # "Thursday 20 May 14.15", "on May 20th 9.30": a dotted time after the day and month
    r"\d{1,2}(?:st|nd|rd|th)?[ \t]+"
    + _MONTH_WORD
    + r"|"
    + _MONTH_WORD
    + r"[ \t]+\d{1,2}(?:st|nd|rd|th)?)"
    # "Thursday arvo 3.30", "friday morning 9.15": a part of the day may come between
    r"(?:[ \t]{1,3}(?:morning|afternoon|evening|arvo))?"
    r"[ \t]{1,3}([01]?\d|2[0-3])\.([0-5]\d)\b(?!\.\d)"
    r"(?![ \t]*(?:€|\$|£|eur|euros?|usd|gbp|dollars?|pounds?|kg|km|%|mg|ml))",
    re.I,
)


_DIGIT_H = lazy(r"\dh", re.I)
_DIGIT_DOT = lazy(r"\d\.\d")


def _hours(m: re.Match[str]) -> str:
    hour = next(g for g in (m[1], *m.groups()[2:]) if g)
    return f"{hour}:{m[2] or '00'}" if int(hour) < 24 else m[0]


# "6:05 in morning", "at 7 in the evening": the part of the day said after the hour
_PART_AFTER = lazy(
    r"\b(\d{1,2}(?:[:.]\d{2})?)[ \t]+in[ \t]+(?:the[ \t]+)?(morning|afternoon|evening)\b", re.I
)


# "@ 1030", "at 1400", "0800-1700": a 24-hour time written without its colon; in a range
# both ends on the quarter hour and not two years ("1990-2010")
_NOT_AFTER = r"(?![ \t]*(?:km|kms|miles|mi\b|m\b|ft|feet|mg|ml|g\b|kg|lbs?|%|[€$£]|[A-Za-z]{3}\b))"
_MILITARY = lazy(
    r"(?:(?<=\bat[ \t])|(?<=@)|(?<=@[ \t]))([01]\d|2[0-3])([0-5]\d)\b" + _NOT_AFTER + r"|"
    r"\b(?!19\d\d[ \t]?[-–][ \t]?(?:19|20)|20\d\d[ \t]?[-–][ \t]?20)([01]\d|2[0-3])(00|15|30|45)"
    r"[ \t]?([-–])[ \t]?([01]\d|2[0-3])(00|15|30|45)\b(?![-–/.:]\d)"
)
_FOUR_DIGITS = lazy(r"\d{4}")


# "dentist 2/24 0730", "tue 0930", "tomorrow 1400", "report 0530": a 24-hour time without
# its colon right after the day it is on (or after "report"/"call time"), never an amount
_DAY_MILITARY = lazy(
    r"(\b\d{1,2}/\d{1,2}(?:/\d{2,4})?|\b\d{1,2}(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|"
    r"dec)\d{2}|\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?|\btoday|\btomorrow|\btmrw|\btonight|"
    # never a year ("Monday 2030"), a range's first end or an amount ("1250 dollars")
    r"\breport(?:ing)?|\bcall[ \t]+time)[ \t]{1,3}(?!(?:19|20)\d\d\b)([01]\d|2[0-3])([0-5]\d)\b"
    r"(?![ \t]*[-–]?[ \t]*\d)(?![ \t]*(?:dollars?|euros?|pounds?|bucks|rupees?|quid)\b)"
    + _NOT_AFTER,
    re.I,
)


def _military(m: re.Match[str]) -> str:
    if m[1]:
        return f"{m[1]}:{m[2]}"
    return f"{m[3]}:{m[4]}{m[5]}{m[6]}:{m[7]}"


def _continental(text: str) -> str:
    """Hours said "18h", "9h30" or "tue 4.15" rewritten as "18:00", "9:30", "tue at 4:15";
    "6:05 in morning" as "6:05am"; "at 1400" as "at 14:00"."""
    if _FOUR_DIGITS.search(text):
        text = _MILITARY.sub(_military, text)
        text = _DAY_MILITARY.sub(r"\1 at \2:\3", text)
    if _DIGIT_H.search(text):
        text = _H_TIME.sub(_hours, text)
    if "orning" in text or "fternoon" in text or "vening" in text:
        text = _PART_AFTER.sub(lambda m: m[1] + ("am" if m[2].lower() == "morning" else "pm"), text)
    return _DAY_DOT_TIME.sub(r"\1 at \2:\3", text) if _DIGIT_DOT.search(text) else text


def clock(text: str) -> Clock | None:
    """The first time of day (or time range) in text."""
    text = _continental(spoken_times(text))
    if _DATE_NUMBER.search(text):  # blanked, same length: "from 1 June" holds no 1pm
        text = _DATE_NUMBER.sub(lambda m: " " * len(m[0]), text)
    if "-" in text or "–" in text:
        # "thursday morning 8-1": a bare hour range after a part of the day is a time range
        text = _DAYPART_RANGE.sub(r"\g<part> from \g<a> to \g<b>", text)
    for m in _RANGE.finditer(text):
        evening = _evening_near(text, m)
        g = m.groups()
        first, second = (g[0:4], g[4:8]) if (g[0] or g[3]) else (g[8:12], g[12:16])
        end = _time(second, evening, None)
        if end is None:
            continue
        # "from 1 to 3pm": the range's am/pm applies to its start when the start has none.
        half = second[2] if first[2] is None and first[3] is None else None
        start = _time(first, evening, half)
        if start is None:
            continue
        if half and start[0] > end[0]:
            start = _time(first, evening, "am")  # "from 10 to 2pm": 10 in the morning
            if start is None:
                continue
        if start[0] > end[0] and end[1] and start[1] and end[0].hour < 12:
            # "6 to 7.30" (both guessed): the end follows its start into the evening
            end = (dt.time(end[0].hour + 12, end[0].minute), True)
        if start[0] > end[0] and start[1] and start[0].hour >= 12:
            start = (dt.time(start[0].hour - 12, start[0].minute), True)  # "from 10 till noon"
        if start[0] > end[0] and end[1]:
            end = (dt.time((end[0].hour + 12) % 24, end[0].minute), True)
        bare = first[0] and first[2] is None and second[2] is None and not (first[3] or second[3])
        if bare and not _looks_like_range(m[0]) and not _clock_faces(m[0], first, second):
            continue
        return Clock(start[0], end[0], start[1] or end[1])
    for m in _AT.finditer(text):
        evening = _evening_near(text, m)
        g = m.groups()
        parts = g[0:4] if (g[0] or g[3]) else g[4:8]
        if parts[0] is not None and parts[2] is None and not m[0][:1].isalpha() and ":" not in m[0]:
            continue  # a bare number is a time only after "at", "from", "around" (or "20:40")
        if parts[0] is not None and parts[2] is None and _NOT_TIME.match(text, m.end()):
            continue  # "at 10 mg", "at 5 km"
        found = _time(parts, evening, None)
        if found is not None:
            return Clock(found[0], None, found[1])
    return None


def _evening_near(text: str, m: re.Match[str]) -> bool:
    """Whether the sentence is about an evening near this time (within a clause or so of it:
    "dinner with Sam on Friday, at 8"); an evening said of another item of a list is not."""
    return (
        _EVENING.search(text, max(0, m.start() - _NEAR_BEFORE), m.end() + _NEAR_AFTER) is not None
    )


_NEAR_BEFORE, _NEAR_AFTER = 60, 40


_NOT_TIME = lazy(
    r"[ \t]{0,2}(?:mg|mcg|kg|km|g\b|ml|%|percent|minutes?|mins?|hours?|"
    r"days?|weeks?|months?|years?|people|guests|st\b|nd\b|rd\b|th\b|[./-]\d)",
    re.I,
)


_TILL = lazy(r"\s(?:till|til|until)\s", re.I)


def _clock_faces(said: str, first: tuple[str | None, ...], second: tuple[str | None, ...]) -> bool:
    """Both ends written as clock faces ("9:30-9:45"), or a clock face to a later hour
    ("9:45-11", "10:30-12"): a time range, not counts or pages."""
    if first[1] and second[1]:
        return said.count(":") == 2
    if first[1] and ":" in said and first[0] and second[0] and second[1] is None:
        return int(first[0]) < int(second[0]) <= 23
    return False


def _looks_like_range(text: str) -> bool:
    """Two bare numbers form a time range only after 'from' or 'between', or joined by 'till'
    ("2 till 5"): "2 to 3" may count people or pages."""
    return text[:1].lower() in ("f", "b") or _TILL.search(text) is not None


_UNITS = {
    "minute": dt.timedelta(minutes=1),
    "min": dt.timedelta(minutes=1),
    "hour": dt.timedelta(hours=1),
    "hr": dt.timedelta(hours=1),
    "day": dt.timedelta(days=1),
    "night": dt.timedelta(days=1),
    "week": dt.timedelta(weeks=1),
}
_DURATION = lazy(
    rf"\b(?:(?P<n>{_NUM_RE}|half[ \t]an?)(?P<and>[ \t]{{1,3}}and[ \t]{{1,3}}a[ \t]{{1,3}}half)?"
    r"[ \t]{0,3}[-]?(?P<unit>minute|min|hour|hr|day|night|week)s?\b"
    r"(?P<half2>[ \t]{1,3}and[ \t]{1,3}a[ \t]{1,3}half)?)",
    re.IGNORECASE,
)


def _count(word: str) -> float:
    word = " ".join(word.lower().split())
    if word.startswith("half"):
        return 0.5
    return float(word) if word.isdigit() else float(NUMBER_WORDS[word])


def duration(text: str) -> tuple[dt.timedelta, int, int] | None:
    """The first length of time in text ("about three hours") with its span."""
    for m in _DURATION.finditer(text):
        n = _count(m["n"]) + (0.5 if m["and"] or m["half2"] else 0)
        if n <= 0 or n > 1000:
            continue
        return _UNITS[m["unit"].lower()] * n, m.start(), m.end()
    return None


_OFFSET = lazy(
    rf"\b(?:(?:at[ \t]+least|no[ \t]+later[ \t]+than|about|around)[ \t]{{1,3}})?"
    rf"(?P<n>{_NUM_RE})[ \t]{{1,3}}(?P<unit>day|week|month|year)s?(?:'s|’s)?"
    r"(?:[ \t]{1,3}notice)?[ \t]{1,3}(?P<dir>before|prior[ \t]+to|after|ahead\s+of|"
    # "14 days from the letter" (never "3 months from today": that is a date)
    r"from(?![ \t]+(?:today|now|tomorrow|yesterday)\b))\b"
    rf"|\bwithin[ \t]{{1,3}}(?P<wn>{_NUM_RE})[ \t]{{1,3}}(?P<work>(?:working|business)[ \t]+)?"
    r"(?P<wunit>day|week|month|year)s?\b"
    # "starting the day before" (the surgery): one day; "the day before yesterday" is a date
    r"|\bthe[ \t]+(?P<one>day|week|month)[ \t]+(?P<odir>before|after)\b"
    # "we have to give 4 weeks notice": notice is counted back from the end it is given for
    # ("they want 60 days notice": the notice is the same whoever names it)
    rf"|\b(?:give|want|wants|need|needs|require|requires)[ \t]{{1,3}}"
    rf"(?P<gn>{_NUM_RE})[ \t]{{1,3}}(?P<gunit>day|week|month)s?(?:'s|’s|')?"
    r"[ \t]{1,3}notice\b"
    r"(?![ \t]+(?:yesterday|tomorrow))",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Offset:
    """An amount of time before or after something ("two weeks before the wedding")."""

    amount: int
    unit: str  # day | workday | week | month | year
    sign: int  # -1 before, +1 after / within
    start: int
    end: int

    def apply(self, day: dt.date) -> dt.date | None:
        """The day this offset lands on from `day` (None out of the calendar)."""
        n = self.amount * self.sign
        try:
            if self.unit == "month":
                return add_months(day, n)
            if self.unit == "year":
                return add_months(day, 12 * n)
            if self.unit == "workday":  # "within 10 working days": Saturdays and Sundays skipped
                step = 1 if n > 0 else -1
                for _ in range(abs(n)):
                    day += dt.timedelta(days=step)
                    while day.weekday() >= 5:
                        day += dt.timedelta(days=step)
                return day
            return day + dt.timedelta(days=n * (7 if self.unit == "week" else 1))
        except (OverflowError, ValueError):
            return None


def offset(text: str) -> Offset | None:
    """The first offset in text ("a month before", "within 14 days")."""
    m = _OFFSET.search(text)
    if m is None:
        return None
    if m["wn"]:
        unit = "workday" if m["work"] and m["wunit"].lower() == "day" else m["wunit"].lower()
        return Offset(int(_count(m["wn"])), unit, 1, m.start(), m.end())
    if m["gn"]:
        return Offset(int(_count(m["gn"])), m["gunit"].lower(), -1, m.start(), m.end())
    if m["one"]:
        sign = 1 if m["odir"].lower() == "after" else -1
        return Offset(1, m["one"].lower(), sign, m.start(), m.end())
    sign = 1 if m["dir"].lower() in ("after", "from") else -1
    return Offset(int(_count(m["n"])), m["unit"].lower(), sign, m.start(), m.end())


_TIME = lazy(
    r"\b(?:at|@|from|by)?[ \t]{0,3}(\d{1,2})(?:[:.](\d{2}))?[ \t]{0,2}(am|pm|a\.m\.|p\.m\.)"
    r"|\b(?:at|@|from)[ \t]{1,3}(\d{1,2})[:h](\d{2})\b|\b(noon|midday|midnight)\b"
    r"|(上午|下午|晚上)?(\d{1,2})[点點](?:(\d{1,2})分|半)?",
    re.IGNORECASE,
)


def find_time(text: str) -> tuple[dt.time, int, int] | None:
    """The first clock time in text ("3pm", "at 14:30", "noon", "下午3点") with its span."""
    for m in _TIME.finditer(text):
        hour: int
        minute = 0
        if m[1]:
            hour, minute = int(m[1]), int(m[2] or 0)
            if not 1 <= hour <= 12:
                continue
            if m[3].lower().startswith("p") and hour != 12:
                hour += 12
            elif m[3].lower().startswith("a") and hour == 12:
                hour = 0
        elif m[4]:
            hour, minute = int(m[4]), int(m[5])
        elif m[6]:
            hour = 0 if m[6].lower() == "midnight" else 12
        else:
            hour, minute = int(m[8]), int(m[9] or 0)
            if m[0].endswith("半"):
                minute = 30
            if m[7] in ("下午", "晚上") and hour < 12:
                hour += 12
        if 0 <= hour <= 23 and 0 <= minute <= 59:
            return dt.time(hour, minute), m.start(), m.end()
    return None
