"""Checks, session 4 (issue 15): cases a check lacked, each a scenario over typed state."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.test_checks_round2 import D, T, event, run, user

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL


def test_a_series_stored_with_its_last_day_as_end_does_not_span_the_weeks_between() -> None:
    # A repeating event recorded with `end` on the series' last day (older extractions did
    # this) lasts one occurrence each week, not from its first day to its last.
    pottery = event(
        "Pottery", T(2025, 3, 5, 19), end=T(2025, 3, 26, 23, 59), repeats="weekly",
        repeat_until=D(2025, 3, 26),
    )
    later = event("Team sync", T(2025, 4, 2, 19), repeats="weekly")
    assert run("recurring_event_collision", user(events=[pottery, later]), D(2025, 3, 1)) == []
    dinner = event("Dinner with Ana", T(2025, 3, 13, 19))  # a Thursday: no pottery that day
    assert run("recurring_event_collision", user(events=[pottery, dinner]), D(2025, 3, 1)) == []
    clash = event("Team sync", T(2025, 3, 12, 19), repeats="weekly")
    [a] = run("recurring_event_collision", user(events=[pottery, clash]), D(2025, 3, 1))
    assert "2025-03-12" in a.message and "Conflict" in a.message


def test_a_one_off_event_with_a_multi_day_end_is_still_one_block() -> None:
    # a one-off event keeps its stated end (a weekend retreat), only a series is capped
    retreat = event("Retreat", T(2025, 3, 7, 18), end=T(2025, 3, 9, 16))
    class_ = event("Spin class", T(2025, 3, 8, 10), repeats="weekly")
    [a] = run("recurring_event_collision", user(events=[retreat, class_]), dt.date(2025, 3, 1))
    assert "'Retreat'" in a.message
