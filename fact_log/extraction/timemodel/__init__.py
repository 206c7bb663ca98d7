"""The one time model: every date, time, range, duration and offset a message says.

The rules (`patterns/`) and the frames' slot parsers (`slots.py`) both read time through
this package, so "next Friday", "the 19th" or "from 10 till noon" mean the same thing
wherever they are read. Everything here is a pure function of the text and the message
date; what a relative expression counts from when it names another fact ("a month before
the lease ends") is the rules' thread (`patterns/anchors.py`).

* `dates.find_dates`: explicit dates, relative days, weekdays (an explicit date beats the
  weekday beside it; a weekday that disagrees is flagged in `DateMatch.conflict`), ranges,
  "the 19th" continuing from the last date said (in the text, else inside the days the
  conversation last named: `named_span`); `daterange` the calendar primitives and the
  dotted, slashed and spelled-out forms; `calendar_days` holidays, weekends and "last week";
  `days` the calendar arithmetic the rules share (the next 5th, the last such day, ...).
* `timespan.clock`, `duration`, `offset`: times of day and their ranges, how long, how far
  before or after.
* `roles.role`, `first_start`: whether a date is said as a start ("from Tuesday") or an
  end ("until the end of July"), so a rule takes the start among several dates said.
* `ambiguity.date_notes`: what is never guessed ("03/04", "next Friday" early in a week),
  recorded by the pipeline as refusals.
"""

from __future__ import annotations

from uac.fact_log.extraction.timemodel.ambiguity import date_notes
from uac.fact_log.extraction.timemodel.dates import (
    MONTHS,
    WEEKDAY_ABBR,
    WEEKDAYS,
    DateMatch,
    Prefer,
    add_months,
    closest_nth,
    count_word,
    find_dates,
    forget_dates,
    infer_year,
    month_end,
    named_span,
    nth_inside,
    safe_date,
    shift,
)
from uac.fact_log.extraction.timemodel.days import (
    last_such_day,
    next_day_of_month,
    next_week_day,
    next_weekday,
    nth_weekday,
    this_year,
)
from uac.fact_log.extraction.timemodel.roles import first_start, role
from uac.fact_log.extraction.timemodel.timespan import (
    Clock,
    Offset,
    clock,
    duration,
    find_time,
    offset,
)

__all__ = [
    "MONTHS",
    "WEEKDAYS",
    "WEEKDAY_ABBR",
    "Clock",
    "DateMatch",
    "Offset",
    "Prefer",
    "add_months",
    "clock",
    "closest_nth",
    "count_word",
    "date_notes",
    "duration",
    "find_dates",
    "find_time",
    "first_start",
    "forget_dates",
    "infer_year",
    "last_such_day",
    "month_end",
    "named_span",
    "next_day_of_month",
    "next_week_day",
    "next_weekday",
    "nth_inside",
    "nth_weekday",
    "offset",
    "role",
    "safe_date",
    "shift",
    "this_year",
]
