"""Which value fills which field when a sentence says several of one type (abstain.py,
`_contested`): a record's day or amount is kept only when no other value of that type in
its sentence competes for the role; a competitor said in the record's own clause or in a
clause that names what the record is about makes the record a hint with every competing
value, never a guess. Values another fact holds, days the record counts from, values listed
with one a fact holds and values of a clause about something else do not compete."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

import pytest

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.abstain import abstain
from uac.fact_log.extraction.candidate import Candidate

NO_LOG = pytest.mark.no_workspace("extraction of text in memory: no log")
TODAY = dt.date(2029, 5, 7)  # a Monday


def record(path: str, value: Mapping[str, object], text: str) -> Candidate:
    return Candidate("record", path, dict(value), "assert", text, 0, 0.8)


def guarded(path: str, value: Mapping[str, object], text: str) -> tuple[list[Candidate], list]:
    return abstain(Catalog.load(), text, [record(path, value, text)], TODAY)


@NO_LOG
def test_a_trip_read_from_the_event_s_days_is_withheld_with_the_travel_days() -> None:
    text = "The summit runs 14 to 17 June, I fly out on the 13th and come home on the 18th."
    trip = {"city": "Oslo", "country": "NO", "depart": "2029-06-14", "return_date": "2029-06-17"}
    kept, [undecided] = guarded("travel.trips", trip, text)
    assert kept == []
    hint = undecided.hint()
    assert hint["candidates"]["depart"] == ["2029-06-14", "2029-06-13", "2029-06-18"]
    assert hint["candidates"]["return_date"] == ["2029-06-17", "2029-06-13", "2029-06-18"]
    assert "which value goes where is unclear" in hint["hint"]


@NO_LOG
def test_a_trip_read_from_the_travel_days_is_kept_beside_the_event_s_days() -> None:
    text = "The summit runs 14 to 17 June, I fly out on the 13th and come home on the 18th."
    trip = {"city": "Oslo", "country": "NO", "depart": "2029-06-13", "return_date": "2029-06-18"}
    kept, withheld = guarded("travel.trips", trip, text)
    assert withheld == [] and [c.value for c in kept] == [trip]


@NO_LOG
def test_two_days_in_one_clause_tie_and_the_record_is_refused() -> None:
    text = "My arm swelled up on Saturday after the tetanus jab on Thursday."
    jab = {"name": "tetanus", "date": "2029-05-05"}
    kept, [undecided] = guarded("health.vaccinations", jab, text)
    assert kept == []
    assert undecided.hint()["candidates"] == {"date": ["2029-05-05", "2029-05-03"]}


@NO_LOG
def test_the_day_said_for_the_record_is_kept_when_the_other_one_has_its_own_fact() -> None:
    text = "My arm swelled up on Saturday after the tetanus jab on Thursday."
    catalog = Catalog.load()
    jab = record("health.vaccinations", {"name": "tetanus", "date": "2029-05-03"}, text)
    other = record("schedule.events", {"title": "Arm check", "start": "2029-05-05"}, text)
    kept, withheld = abstain(catalog, text, [jab, other], TODAY)
    assert withheld == [] and kept == [jab, other]


@NO_LOG
def test_a_day_counted_from_the_day_said_is_no_competitor() -> None:
    text = "The lease ends on 30 June, I must give notice four weeks before it."
    task = {"goal": "Give notice", "due_date": "2029-06-02", "status": "planned"}
    kept, withheld = guarded("tasks.tasks", task, text)
    assert withheld == [] and [c.value for c in kept] == [task]


@NO_LOG
def test_days_listed_with_the_record_s_day_belong_to_the_list() -> None:
    text = "Pottery class every Tuesday and Thursday from 6 to 8pm."
    event = {
        "title": "Pottery class",
        "start": "2029-05-08T18:00",
        "end": "2029-05-08T20:00",
        "repeats": "weekly",
    }
    kept, withheld = guarded("schedule.events", event, text)
    assert withheld == [] and [c.value for c in kept] == [event]


@NO_LOG
def test_an_amount_in_a_clause_about_paying_competes_with_the_one_read() -> None:
    text = "Paid the plumber £80 today, the parts cost £35."
    paid = {"amount": "80", "currency": "GBP", "date": "2029-05-07", "merchant": "plumber"}
    kept, [undecided] = guarded("finance.transactions", paid, text)
    assert kept == []
    assert undecided.hint()["candidates"]["amount"] == ["80", {"amount": "35", "currency": "GBP"}]


@NO_LOG
def test_an_amount_of_a_clause_about_something_else_leaves_the_payment_alone() -> None:
    text = "Paid the plumber £80 today, my neighbour's quote was £120."
    paid = {"amount": "80", "currency": "GBP", "date": "2029-05-07", "merchant": "plumber"}
    kept, withheld = guarded("finance.transactions", paid, text)
    assert withheld == [] and [c.value for c in kept] == [paid]


@NO_LOG
def test_a_trip_to_the_place_it_leaves_from_is_withheld_with_where_it_goes() -> None:
    text = "Booked the flights, Glasgow to Reykjavik on 2 July, back on the 9th."
    trip = {"city": "Glasgow", "country": "GB", "depart": "2029-07-02", "return_date": "2029-07-09"}
    kept, [undecided] = guarded("travel.trips", trip, text)
    assert kept == []
    assert undecided.hint()["candidates"] == {"city": ["Glasgow", "Reykjavik"]}


@NO_LOG
def test_a_trip_to_the_place_it_goes_is_kept_beside_where_it_leaves_from() -> None:
    text = "Booked the flights, Glasgow to Reykjavik on 2 July, back on the 9th."
    trip = {
        "city": "Reykjavik",
        "country": "IS",
        "depart": "2029-07-02",
        "return_date": "2029-07-09",
    }
    kept, withheld = guarded("travel.trips", trip, text)
    assert withheld == [] and [c.value for c in kept] == [trip]
