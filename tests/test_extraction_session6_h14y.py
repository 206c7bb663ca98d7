"""Constructs the rules must cover (issue 14, session 6, h14y), in sentences invented for these
tests: travel, documents, schedule, routines, tasks and deadlines, away periods, contacts.

Each family was named from a miss on blind2 (tuning data from session 6), written here in
other words before the rule: a weekday that disagrees with its day number (the day number
wins), clock-face ranges, fragments that complete the document just talked about ("number
...", "issued by ..."), a trip's place said in an earlier message and its days in a later
one, what a trip is for, corrections that name the old value ("the 9th, not the 8th"),
repeats that run for a count of weeks, events said with their day in the previous line,
deadlines counted back from a date, reminders, and people named by their role. Negative
cases must find nothing of the path.
"""

from __future__ import annotations

import datetime as dt

import pytest
from candidates import AT, D, T, found, of

from uac.fact_log.extraction.patterns.dates import find_dates
from uac.fact_log.extraction.patterns.timespan import clock

# -- dates and times -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "day", "flagged"),
    [
        # the day number wins over a weekday that does not fall on it (flagged)
        ("the cleaner is coming friday the 10th", D(2025, 6, 10), True),
        ("Tues 19th", D(2025, 6, 19), True),
        # a weekday that agrees within the next two months picks that month
        ("Fri 13th", D(2025, 6, 13), False),
        ("Sun 8th", D(2025, 6, 8), False),
        ("Weds 4th", D(2025, 6, 4), False),
        ("Monday 14th", D(2025, 7, 14), False),
    ],
)
def test_a_weekday_with_a_day_number(text: str, day: dt.date, flagged: bool) -> None:
    [d] = find_dates(text, AT.date())
    assert d.date == day
    assert (d.conflict is not None) == flagged


def test_clock_face_ranges_are_time_ranges() -> None:
    c = clock("the review slot is 10:15-10:45")
    assert c is not None and (c.start, c.end) == (dt.time(10, 15), dt.time(10, 45))
    assert clock("read chapters 10-12") is None


# -- events: their day in the line before, fixtures, places after a comma, series ------------


def test_an_event_after_another_takes_its_day_and_a_trailing_place() -> None:
    first = "the christening is Saturday 7th at 11am"
    [ev] = of("schedule.events", found("the reception after is at the Crown, 1 till 4", first))
    assert (ev["start"], ev["end"]) == (T(2025, 6, 7, 13), T(2025, 6, 7, 16))
    assert ev["location"] == "Crown"
    [ev] = of("schedule.events", found("then Leo's graduation at 10am, Usher Hall", first))
    assert ev["start"] == T(2025, 6, 7, 10) and ev["location"] == "Usher Hall"
    assert "graduation" in ev["title"]


def test_a_fixture_is_an_event_titled_by_its_sides() -> None:
    [ev] = of("schedule.events", found("Celtic v Rangers, Sunday 15th, 12pm kick off at Hampden"))
    assert ev["title"] == "Celtic v Rangers"
    assert ev["start"] == T(2025, 6, 15, 12) and ev["location"] == "Hampden"


@pytest.mark.parametrize(
    ("text", "start", "repeats", "until"),
    [
        (
            "I've got swimming lessons every Wednesday at 5pm for four weeks",
            T(2025, 6, 4, 17),
            "weekly",
            D(2025, 6, 25),
        ),
        (
            "counselling every other Monday at 10am, six sessions",
            T(2025, 6, 2, 10),
            "fortnightly",
            D(2025, 8, 11),
        ),
        (
            "the team call moves to 8:45-9:00 from Tuesday, every working day",
            T(2025, 6, 3, 8, 45),
            "daily",
            None,
        ),
    ],
)
def test_a_series_said_by_its_length_or_every_weekday(
    text: str, start: dt.datetime, repeats: str, until: dt.date | None
) -> None:
    [ev] = of("schedule.events", found(text))
    assert (ev["start"], ev["repeats"], ev.get("repeat_until")) == (start, repeats, until)
