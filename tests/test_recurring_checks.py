"""Repetition expanded once (checks/library/occurrences.py), used by every schedule check: a
series meets a trip, a time away and a one-off event on the day it takes place, named in the
alert; the user's time zone keeps a series' wall-clock time; each rule has a control that
stays quiet. Gold facts, typed (imported), so extraction plays no part."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.test_check_scenarios import D, T, rec, run, trip, user
from uac import Memory
from uac.checks.library.occurrences import occurrences
from uac.checks.model import DEFAULT_CONFIG

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("checks over typed state in memory: no log")

TODAY = D(2025, 3, 1)


def event(title: str, start: dt.datetime, end: dt.datetime | None = None, **kw: Any):
    fields = {"location": None, "repeats": None, "repeat_until": None} | kw
    return rec(f"{title}|{start:%Y-%m-%dT%H:%M}", title=title, start=start, end=end, **fields)


CHOIR = event("Choir practice", T(2025, 1, 9, 19), T(2025, 1, 9, 21), repeats="weekly")
ROME = trip("IT", D(2025, 3, 12), D(2025, 3, 16), city="Rome")  # Wednesday to Sunday


@NO_LOG
def test_a_weekly_series_during_a_trip_alerts_on_the_day_it_meets_it() -> None:
    [a] = run("event_during_trip", user(events=[CHOIR], trips=[ROME]))
    assert "'Choir practice' on Thursday 2025-03-13 (every Thursday 19:00)" in a.message
    assert "while you are away on your trip to Rome, Italy" in a.message
    assert "on 2025-03-13" in a.next_step and a.record_keys == (CHOIR.key, ROME.key)


@NO_LOG
def test_a_series_that_misses_the_trip_stays_quiet() -> None:
    monday_to_wednesday = trip("IT", D(2025, 3, 10), D(2025, 3, 12), city="Rome")
    assert run("event_during_trip", user(events=[CHOIR], trips=[monday_to_wednesday])) == []
    ended = event("Choir practice", T(2025, 1, 9, 19), repeats="weekly", repeat_until=D(2025, 3, 6))
    assert run("event_during_trip", user(events=[ended], trips=[ROME])) == []
    at_destination = event("Choir tour concert", T(2025, 1, 9, 19), repeats="weekly")
    at_destination.location = "Rome"
    assert run("event_during_trip", user(events=[at_destination], trips=[ROME])) == []


@NO_LOG
@pytest.mark.parametrize(
    ("repeats", "first", "meets"),
    [
        ("daily", T(2025, 2, 1, 8), "2025-03-12"),
        ("weekdays", T(2025, 2, 3, 8), "2025-03-12"),
        ("fortnightly", T(2025, 2, 27, 19), "2025-03-13"),  # every other Thursday
        ("monthly", T(2025, 1, 15, 10), "2025-03-15"),
    ],
)
def test_every_rhythm_meets_the_trip_on_its_own_day(
    repeats: str, first: dt.datetime, meets: str
) -> None:
    series = event("Series", first, repeats=repeats)
    [a] = run("event_during_trip", user(events=[series], trips=[ROME]))
    assert meets in a.message


@NO_LOG
def test_a_fortnightly_series_off_week_and_weekdays_over_a_weekend_stay_quiet() -> None:
    off_week = event("Book club", T(2025, 3, 6, 19), repeats="fortnightly")  # 6th, 20th
    assert run("event_during_trip", user(events=[off_week], trips=[ROME])) == []
    weekend = trip("IT", D(2025, 3, 15), D(2025, 3, 16), city="Rome")  # Saturday, Sunday
    school_run = event("School run", T(2025, 2, 3, 8), repeats="weekdays")
    assert run("event_during_trip", user(events=[school_run], trips=[weekend])) == []


@NO_LOG
def test_monthly_on_the_31st_falls_on_the_last_day_of_a_shorter_month() -> None:
    rent = event("Pay rent", T(2025, 1, 31, 9), repeats="monthly")
    days = [o.day for o in occurrences(rent, D(2025, 2, 1), D(2025, 4, 30), DEFAULT_CONFIG)]
    assert days == [D(2025, 2, 28), D(2025, 3, 31), D(2025, 4, 30)]


@NO_LOG
def test_a_series_during_a_time_away_alerts_and_a_trip_covering_it_says_it_once() -> None:
    leave = rec("2025-03-12", start=D(2025, 3, 12), end=D(2025, 3, 14), reason="on leave")
    leave.place = None
    [a] = run("event_during_trip", user(events=[CHOIR], away_periods=[leave]))
    assert (
        "on Thursday 2025-03-13" in a.message
        and "(on leave, 2025-03-12 to 2025-03-14)" in a.message
    )
    assert a.record_keys == (CHOIR.key, "away:2025-03-12")
    # the same days as a trip: one alert, the trip's
    [b] = run("event_during_trip", user(events=[CHOIR], away_periods=[leave], trips=[ROME]))
    assert "Rome" in b.message
    # control: a time away on days the series does not take place
    short = rec("2025-03-10", start=D(2025, 3, 10), end=D(2025, 3, 12), reason="on leave")
    short.place = None
    assert run("event_during_trip", user(events=[CHOIR], away_periods=[short])) == []


@NO_LOG
def test_a_series_and_a_one_off_overlap_on_the_occurrence_day() -> None:
    concert = event("School concert", T(2025, 3, 20, 18, 30), T(2025, 3, 20, 20))
    [a] = run("recurring_event_collision", user(events=[CHOIR, concert]))
    assert "first on Thursday 2025-03-20" in a.message
    earlier = event("School concert", T(2025, 3, 20, 17), T(2025, 3, 20, 18, 30))
    assert run("recurring_event_collision", user(events=[CHOIR, earlier])) == []


def _london(**kw: Any) -> SimpleNamespace:
    u = user(**kw)
    u.preferences = SimpleNamespace(timezone="Europe/London")
    return u


@NO_LOG
def test_a_series_keeps_its_wall_clock_time_in_the_users_time_zone() -> None:
    # 19:00 in London is 19:00 UTC in winter and 18:00 UTC from 30 March 2025 (BST)
    choir = event("Choir practice", T(2025, 1, 9, 19), T(2025, 1, 9, 21), repeats="weekly")
    summer = event("Call with Sydney", T(2025, 4, 3, 18), T(2025, 4, 3, 18, 30))  # 19:00 BST
    [a] = run("recurring_event_collision", _london(events=[choir, summer]))
    assert "first on Thursday 2025-04-03" in a.message and "every Thursday 19:00" in a.message
    # in UTC the series stays at 19:00 UTC and misses an 18:00 UTC call
    assert run("recurring_event_collision", user(events=[choir, summer])) == []
    # a late series is on the user's day: 23:30 UTC on Wednesday is 00:30 BST on Thursday
    late = event("Night shift", T(2025, 4, 2, 23, 30), repeats="weekly")
    london = ZoneInfo("Europe/London")
    meets = next(occurrences(late, D(2025, 4, 3), D(2025, 4, 10), DEFAULT_CONFIG, london))
    assert meets.day == D(2025, 4, 3) and meets.start == T(2025, 4, 2, 23, 30)


# -- the same through a workspace: gold facts imported, compiled and evaluated ------------


def _workspace_alerts(mem: Memory, events: list[dict[str, Any]], **extra: Any) -> list[Any]:
    at = dt.datetime(2025, 3, 1, 9)
    mem.set("u", "identity.nationality", "GB", now=at)
    mem.import_records("u", "events", events, now=at)
    for collection, records in extra.items():
        mem.import_records("u", collection, records, now=at)
    mem.check("u", today=TODAY)
    return [a for a in mem.alerts("u") if a.check == "event_during_trip"]


CHOIR_ROW = {
    "title": "Choir practice",
    "start": "2025-01-09T19:00",
    "end": "2025-01-09T21:00",
    "repeats": "weekly",
}
ROME_ROW = {"country": "IT", "city": "Rome", "depart": "2025-03-12", "return_date": "2025-03-16"}


def test_a_weekly_choir_and_a_trip_to_rome_alert_in_a_workspace(mem: Memory) -> None:
    [a] = _workspace_alerts(mem, [CHOIR_ROW], trips=[ROME_ROW])
    assert "Thursday 2025-03-13" in a.message and "Rome, Italy" in a.message


def test_a_choir_that_ended_before_the_trip_stays_quiet_in_a_workspace(mem: Memory) -> None:
    ended = CHOIR_ROW | {"repeat_until": "2025-03-06"}
    assert _workspace_alerts(mem, [ended], trips=[ROME_ROW]) == []


def test_a_series_during_leave_alerts_in_a_workspace(mem: Memory) -> None:
    leave = {"start": "2025-03-12", "end": "2025-03-14", "reason": "on leave"}
    [a] = _workspace_alerts(mem, [CHOIR_ROW], away_periods=[leave])
    assert "2025-03-13" in a.message and "on leave" in a.message


@NO_LOG
def test_a_series_that_began_long_ago_still_meets_a_condition_and_an_allergy() -> None:
    dives = event("Scuba club", T(2024, 1, 6, 10), repeats="weekly", location="Dahab")  # Saturdays
    epilepsy = rec("e", name="epilepsy", status="managed")
    [a] = run("activity_vs_condition", user(events=[dives], conditions=[epilepsy]))
    assert "'Scuba club' on 2025-03-01" in a.message  # its next Saturday, today
    over = event("Scuba club", T(2024, 1, 6, 10), repeats="weekly", repeat_until=D(2024, 12, 28))
    assert run("activity_vs_condition", user(events=[over], conditions=[epilepsy])) == []
    supper = event("Satay supper club", T(2024, 9, 4, 19), repeats="monthly")
    peanut = rec("p", substance="peanuts", reaction=None, severity="severe")
    [b] = run("food_allergy", user(events=[supper], allergies=[peanut]))
    assert "on 2025-03-04" in b.message
