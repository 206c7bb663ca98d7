"""Repetition, expanded once: the occurrences of an event (one-off or a series) in a span of days.

Every check that asks "does this event happen on that day?" — two events against each other,
an event against a trip or a time away, a meal or an activity against a condition — reads
the event through `Occurrence`s from here, so a weekly choir practice meets a trip exactly as
a one-off concert does, and the alert can name the day they meet.

How the catalog stores an event: `start`/`end` are datetimes in UTC (naive), `repeats` is
daily, weekdays (Monday to Friday), weekly, fortnightly or monthly, `repeat_until` the last
day it takes place. A series keeps its wall-clock time in the user's time zone
(`preferences.timezone`, IANA; UTC when unknown or unreadable): a 19:00 practice in London is
18:00 UTC in summer and 19:00 UTC in winter, and its days (the weekday, `repeat_until`, the
day an alert names) are the user's days. Monthly on the 31st falls on the last day of a
shorter month.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from uac.checks.library.common import attr
from uac.checks.model import CheckConfig
from uac.fact_log.calendar_words import weekday_name

_UTC = dt.UTC
_STEP_DAYS = {"daily": 1, "weekdays": 1, "weekly": 7, "fortnightly": 14}


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One time an event takes place: UTC start and end (naive, as stored) and the user's day."""

    start: dt.datetime
    end: dt.datetime
    day: dt.date  # the local day it starts on (the day an alert names)


@functools.cache
def _zone(name: str | None) -> dt.tzinfo:
    try:
        return ZoneInfo(name) if name else _UTC
    except (ZoneInfoNotFoundError, ValueError):
        return _UTC


def user_zone(user: Any) -> dt.tzinfo:
    """The user's time zone (preferences.timezone), UTC when none or an unknown one is set."""
    return _zone(attr(user, "preferences", "timezone"))


def repeats(event: Any) -> str | None:
    """How an event repeats (None for a one-off)."""
    return getattr(event, "repeats", None) or None


def default_end(event: Any, config: CheckConfig) -> dt.datetime:
    """An event's stored end, or its start plus the default length."""
    return event.end or event.start + dt.timedelta(minutes=config.event_default_minutes)


def length(event: Any, config: CheckConfig) -> dt.timedelta:
    """How long one occurrence lasts: a series' `end` on another day than its start is the
    series' end (as some records say it), not one occurrence's, so the default length."""
    end = default_end(event, config)
    if repeats(event) and end.date() != event.start.date():
        return dt.timedelta(minutes=config.event_default_minutes)
    return end - event.start


def _local(moment: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    return moment.replace(tzinfo=_UTC).astimezone(zone)


def _utc(local: dt.datetime) -> dt.datetime:
    return local.astimezone(_UTC).replace(tzinfo=None)


def _add_months(day: dt.date, n: int) -> dt.date:
    y, m = divmod(day.month - 1 + n, 12)
    last = calendar.monthrange(day.year + y, m + 1)[1]
    return dt.date(day.year + y, m + 1, min(day.day, last))


def occurrences(
    event: Any,
    first: dt.date,
    last: dt.date,
    config: CheckConfig,
    zone: dt.tzinfo = _UTC,
) -> Iterator[Occurrence]:
    """The occurrences of an event that take place (start or are under way) on a local day
    from `first` to `last` (inclusive), in order. A one-off event is its one occurrence."""
    span = length(event, config)
    start_local = _local(event.start, zone)
    kind = repeats(event)
    if kind is None:
        end = default_end(event, config)
        if start_local.date() <= last and _local(end, zone).date() >= first:
            yield Occurrence(event.start, end, start_local.date())
        return
    stop = min(last, getattr(event, "repeat_until", None) or dt.date.max)
    wall, day0 = start_local.timetz().replace(tzinfo=None), start_local.date()
    step = _STEP_DAYS.get(kind)
    n = 0
    if step and first > day0:  # jump near the window instead of walking from the first day
        n = max(0, ((first - day0).days - 1) // step - 1)
    while True:
        if kind == "monthly":
            day = _add_months(day0, n)
        elif step:
            day = day0 + dt.timedelta(days=step * n)
        else:
            return  # an unknown rhythm: nothing is assumed
        if day > stop:
            return
        n += 1
        if kind == "weekdays" and day.weekday() >= 5:
            continue
        begin = _utc(dt.datetime.combine(day, wall, tzinfo=zone))
        end = begin + span
        if _local(end, zone).date() >= first:
            yield Occurrence(begin, end, day)


def first_between(
    event: Any, first: dt.date, last: dt.date, config: CheckConfig, zone: dt.tzinfo = _UTC
) -> Occurrence | None:
    """The first occurrence of an event on a day from `first` to `last`, or None."""
    return next(occurrences(event, first, last, config, zone), None)


def first_overlap(
    a: Any, b: Any, first: dt.date, last: dt.date, config: CheckConfig, zone: dt.tzinfo = _UTC
) -> tuple[Occurrence, Occurrence] | None:
    """The first pair of occurrences of two events whose times overlap, or None."""
    slots_b = list(occurrences(b, first, last, config, zone))
    for oa in occurrences(a, first, last, config, zone):
        for ob in slots_b:
            if ob.start >= oa.end:
                break  # b's occurrences are in order: none later overlaps this one of a
            if oa.start < ob.end:
                return oa, ob
    return None


def rhythm(event: Any, zone: dt.tzinfo = _UTC) -> str:
    """'every Thursday 19:00', 'Monday to Friday at 08:00', 'on Friday 2025-03-14 10:00'."""
    local = _local(event.start, zone)
    kind = repeats(event)
    if kind in ("weekly", "fortnightly"):
        every = "every" if kind == "weekly" else "every other"
        return f"{every} {weekday_name(local)} {local:%H:%M}"
    if kind == "weekdays":
        return f"Monday to Friday at {local:%H:%M}"
    if kind:
        return f"{kind} at {local:%H:%M}"
    return f"on {weekday_name(local)} {local:%Y-%m-%d %H:%M}"
