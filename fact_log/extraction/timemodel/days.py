"""Calendar arithmetic the rules share: the next day numbered n, the last such day said of
what has happened, a birthday's day this year, the nth weekday of a month, the next weekday
named. Pure functions of a day and what was said."""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
import re

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.timemodel.daterange import DateMatch, safe_date
from uac.fact_log.extraction.timemodel.dates import WEEKDAYS


def next_day_of_month(today: dt.date, n: int) -> dt.date | None:
    """The next day numbered n (this month's if still to come, else next month's)."""
    for months in (0, 1, 2):
        year, month = (
            today.year + (today.month - 1 + months) // 12,
            (today.month - 1 + months) % 12 + 1,
        )
        try:
            day = dt.date(year, month, n)
        except ValueError:
            continue
        if day > today:
            return day
    return None


_BARE_NTH = lazy(r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)", re.I)


def last_such_day(d: DateMatch, today: dt.date) -> DateMatch:
    """A bare "the 1st" said of what has happened (a start, a payment): the last such day,
    not the next (dates.find_dates reads a bare day forward whatever the preference)."""
    m = _BARE_NTH.fullmatch(d.text)
    if m is None or d.date is None or d.date <= today:
        return d
    day = int(m[1])
    # this month when the day has come, else last month
    year, month = (
        (today.year, today.month)
        if day <= today.day
        else divmod(today.year * 12 + today.month - 2, 12)
    )
    month += 0 if day <= today.day else 1
    try:
        return dataclasses.replace(d, date=dt.date(year, month, day))
    except ValueError:
        return d


def this_year(day: DateMatch, today: dt.date) -> dt.date | None:
    """A birthday said without a year is this year's date of it (the older sets' reading)."""
    if day.explicit_year or day.date is None:
        return day.date
    return safe_date(today.year, day.date.month, day.date.day) or day.date


def nth_weekday(today: dt.date, nth: int, weekday: int) -> dt.date:
    """The next day on or after today that is the nth (or last) such weekday of its month."""
    for k in range(3):
        month = (today.replace(day=1) + dt.timedelta(days=32 * k)).replace(day=1)
        days = [
            month + dt.timedelta(days=i)
            for i in range(calendar.monthrange(month.year, month.month)[1])
            if (month + dt.timedelta(days=i)).weekday() == weekday
        ]
        day = days[nth - 1] if nth > 0 else days[-1]
        if day >= today:
            return day
    return today


def next_weekday(today: dt.date, words: str) -> dt.date | None:
    """The first day on or after today that is the weekday named in words (None: none named)."""
    name = next((d for d in WEEKDAYS if d in words.lower()), None)
    if name is None:
        return None
    return today + dt.timedelta(days=(WEEKDAYS[name] - today.weekday()) % 7)


def next_week_day(today: dt.date, weekday: int) -> dt.date:
    """That weekday of next week, the week from the coming Monday (said on a Sunday, the
    week from tomorrow: ambiguity.date_notes flags the other reading)."""
    return today + dt.timedelta(days=7 - today.weekday() + weekday)
