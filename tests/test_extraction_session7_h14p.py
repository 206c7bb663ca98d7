"""Constructs the rules must cover (issue 14, session 7, h14p), in sentences invented for these
tests: travel, documents, schedule, tasks and deadlines, contacts.

Each family was named from misses on blind3 (tuning data from session 7) and written here in
other words and registers (terse, lowercase, non-native, dictated) before the code: bare day
numbers that run to another ("5th to the 9th"), a month said before its days ("in July,
3rd-8th"), ordinal words ("the first of may"), counts from today ("2 weeks from today"), a
weekday ending a range after a date ("friday the 3rd till the monday"), and a trip said as a
known place with its span of days, the place and the days in one sentence or the next.
Negative cases must find nothing of the path.
"""

from __future__ import annotations

import datetime as dt

import pytest
from candidates import AT, D, found, of

from uac.fact_log.extraction.patterns.dates import find_dates

# -- dates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "days"),
    [
        # bare day numbers joined by a range word, the month said before them
        ("in July, 3rd-8th", [D(2025, 7, 3), D(2025, 7, 8)]),
        ("we go in august!! 5th to the 9th", [D(2025, 8, 5), D(2025, 8, 9)]),
        ("Sept. 11th till 14th", [D(2025, 9, 11), D(2025, 9, 14)]),
        # ordinal words
        ("from the first of may till the third of may", [D(2026, 5, 1), D(2026, 5, 3)]),
        ("starting the twenty-second of June", [D(2025, 6, 22)]),
        ("july the fourth", [D(2025, 7, 4)]),
        # counts from today
        ("due 2 weeks from today", [D(2025, 6, 15)]),
        ("ten days from now", [D(2025, 6, 11)]),
        # a weekday ending a range is the first such day after the range's start
        ("friday the 13th till the monday", [D(2025, 6, 13), D(2025, 6, 16)]),
    ],
)
def test_date_forms(text: str, days: list[dt.date]) -> None:
    assert [d.date for d in find_dates(text, AT.date())] == days


def test_a_bare_day_number_alone_is_still_no_date() -> None:
    assert find_dates("my 18th birthday", AT.date()) == []
    assert find_dates("the 3rd one was better", AT.date())[0].date == D(2025, 6, 3)
