"""Days named by the calendar: holidays, weekends, fortnights, dotted dates, parts of today."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.extraction.patterns import extract
from uac.fact_log.extraction.timemodel import find_dates

WED = dt.date(2027, 3, 10)  # a Wednesday, before Easter 2027 (28 March)


def days(text: str, today: dt.date = WED, prefer: str = "future") -> list[tuple[str, str]]:
    return [(d.text, d.date.isoformat()) for d in find_dates(text, today, prefer) if d.date]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("back in a fortnight", [("in a fortnight", "2027-03-24")]),
        ("had the jab a fortnight ago", [("a fortnight ago", "2027-02-24")]),
        ("two fortnights from now", [("two fortnights from now", "2027-04-07")]),
        ("at my mum's over christmas", [("christmas", "2027-12-25")]),
        ("Xmas 2028 in Vienna", [("Xmas 2028", "2028-12-25")]),
        ("party on New Year’s Eve", [("New Year’s Eve", "2027-12-31")]),
        ("flying home on Boxing Day", [("Boxing Day", "2027-12-26")]),
        ("Easter Monday is a bank holiday", [("Easter Monday", "2027-03-29")]),
        ("Good Friday 2028", [("Good Friday 2028", "2028-04-14")]),
        ("thanksgiving at my sister's", [("thanksgiving", "2027-11-25")]),
        ("dinner on valentines day", [("valentines day", "2028-02-14")]),
        ("the Easter weekend in Cornwall", [("Easter", "2027-03-28")]),
        ("this weekend", [("this weekend", "2027-03-13")]),
        ("at the weekend", [("the weekend", "2027-03-13")]),
        ("next weekend", [("next weekend", "2027-03-20")]),
        ("last weekend", [("last weekend", "2027-03-06")]),
        ("flight on 23.04.2027", [("23.04.2027", "2027-04-23")]),
        ("took two this morning", [("this morning", "2027-03-10")]),
        ("started it last week", [("last week", "2027-03-03")]),
        ("seeing her This Evening", [("This Evening", "2027-03-10")]),
        ("ab 5.4.27 bis 12.4.27", [("5.4.27", "2027-04-05"), ("12.4.27", "2027-04-12")]),
    ],
)
def test_calendar_words_are_days(text: str, want: list[tuple[str, str]]) -> None:
    assert days(text) == want


@pytest.mark.parametrize(
    "text",
    [
        "bought a Christmas tree and some Easter eggs",
        "the office Christmas party was fun",
        "I work every weekend",
        "a long weekend in Rome would be nice",
        "update to version 1.2.3 and 10.4.0.1",
        "the server is 192.168.1.10",
        "kick-off at 12.08",  # no year: a time or a score as much as a date
        "31.02.2027",  # no such day
    ],
)
def test_things_that_only_look_like_calendar_days(text: str) -> None:
    assert days(text) == []


def test_a_holiday_in_the_past_tense_is_the_last_one() -> None:
    assert days("we spent Christmas with my mum", WED, "past") == [("Christmas", "2026-12-25")]
    assert days("Christmas", dt.date(2027, 12, 25)) == [("Christmas", "2027-12-25")]  # the day
    assert days("last weekend", dt.date(2027, 3, 14)) == [("last weekend", "2027-03-13")]
    assert days("this weekend", dt.date(2027, 3, 14)) == [("this weekend", "2027-03-13")]


def test_a_holiday_is_the_occasion_when_a_date_is_said_too() -> None:
    said = "Going to Cork for Christmas, leaving 20 December, back 2 Jan"
    assert days(said) == [("20 December", "2027-12-20"), ("2 Jan", "2028-01-02")]
    # ... but it still tells which month a bare day number is in
    assert days("home for xmas on the 22nd") == [("the 22nd", "2027-12-22")]


def test_calendar_days_reach_the_facts() -> None:
    at = dt.datetime(2027, 3, 10, 9)
    found = extract("We fly to Lisbon on 23.04.2027 and come back on the 30th.", observed_at=at)
    trips = [c.value for c in found if c.path == "travel.trips"]
    assert trips and str(trips[0]["depart"]) == "2027-04-23"
    found = extract("Dentist appointment in a fortnight at 10am.", observed_at=at)
    events = [c.value for c in found if c.path == "schedule.events"]
    assert events and events[0]["start"] == dt.datetime(2027, 3, 24, 10)


def test_a_bare_day_number_in_the_past_tense_is_the_last_such_day() -> None:
    assert days("the 2nd", WED, "past") == [("the 2nd", "2027-03-02")]
    assert days("the 28th", WED, "past") == [("the 28th", "2027-02-28")]
    assert days("the 31st", WED, "past") == [("the 31st", "2027-01-31")]  # February has none
    assert days("the 2nd", WED) == [("the 2nd", "2027-04-02")]  # a plan: the next one
    found = extract(
        "I stopped taking the sertraline on the 2nd.", observed_at=dt.datetime(2027, 3, 10)
    )
    meds = [c.value for c in found if c.path == "health.medications"]
    assert meds and meds[0]["stop_date"] == dt.date(2027, 3, 2)


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("cover runs from 1 March to 28 February 2028", "2027-03-01"),
        ("April 2 - March 31, 2029", "2028-04-02"),
        ("from 20 Dec until 3 Jan 2028", "2027-12-20"),  # already before its end: kept
        ("from 5 March to 9 March", "2028-03-05"),  # no year said at all: the next ones
    ],
)
def test_a_ranges_first_day_is_on_or_before_its_last(text: str, first: str) -> None:
    got = days(text)
    assert got[0][1] == first and got[0][1] <= got[1][1]


THU = dt.date(2026, 3, 12)


@pytest.mark.parametrize(
    ("text", "prefer", "want"),
    [
        # a weekend, like a holiday, gives way to a date said beside it
        ("I'm off to Rome for the weekend on 18 April", "future", ["2026-04-18"]),
        ("I'm flying to Lisbon the last week of March", "future", []),
        ("I stopped the tablets on Tuesday last week", "past", ["2026-03-03"]),
        ("last week on Monday I saw the GP", "past", ["2026-03-02"]),
        ("last Christmas we were in Oslo", "future", ["2025-12-25"]),
        ("next Christmas in Oslo", "future", ["2026-12-25"]),
        ("drinks on NYE", "future", ["2026-12-31"]),
        ("dinner with Bill Nye in Paris", "future", []),
        ("we also see Easter Island", "future", []),
        ("then Christmas Island", "future", []),
        ("Father Christmas visits the school", "future", []),
        ("tickets for A Christmas Carol", "future", []),
    ],
)
def test_vague_days_and_names_that_only_sound_like_days(
    text: str, prefer: str, want: list[str]
) -> None:
    assert [day for _, day in days(text, THU, prefer)] == want


@pytest.mark.parametrize(
    ("text", "today", "prefer", "want"),
    [
        (
            "from 1 March to 1 March 2028",
            dt.date(2026, 12, 30),
            "future",
            ["2027-03-01", "2028-03-01"],
        ),
        (
            "from 28 December to 3 January",
            dt.date(2027, 1, 2),
            "past",
            ["2026-12-28", "2027-01-03"],
        ),
        (
            "from 15 March to 10 January",
            dt.date(2026, 1, 5),
            "future",
            ["2026-03-15", "2027-01-10"],
        ),
        # a day moved from one date to another is two days, not a range
        (
            "the dentist was moved from 12 June to 10 June",
            dt.date(2026, 3, 1),
            "future",
            ["2026-06-12", "2026-06-10"],
        ),
    ],
)
def test_ranges_read_in_order(text: str, today: dt.date, prefer: str, want: list[str]) -> None:
    assert [day for _, day in days(text, today, prefer)] == want
