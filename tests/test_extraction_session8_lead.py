"""Constructs found by the lead's own probes in session 8 (sentences written for this test)."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.extraction.patterns import extract

AT = dt.datetime(2027, 3, 10, 9)


def found(text: str, path: str) -> list[dict]:
    return [c.value for c in extract(text, observed_at=AT) if c.path == path]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Booked the Hilton in Rome for 3 nights from 5 April.", "Rome"),
        ("ive booked the marriott in Lisbon from 5 to 8 April", "Lisbon"),
        ("We got a Premier Inn in York for 2 nights from the 12th.", "York"),
    ],
)
def test_a_hotel_named_by_its_chain_is_a_hotel_booking(text: str, place: str) -> None:
    [stay] = found(text, "travel.bookings")
    assert stay["kind"] == "hotel" and stay["place"] == place and stay["end"] > stay["start"]


def test_a_chain_in_a_name_is_no_booking() -> None:
    assert found("Paris Hilton was on TV last night.", "travel.bookings") == []


@pytest.mark.parametrize(
    ("text", "merchant", "category"),
    [
        ("Another £150 on groceries at Lidl.", "Lidl", "groceries"),
        ("then €35 on petrol at Shell", "Shell", "petrol"),
    ],
)
def test_an_amount_opening_the_sentence_is_a_payment(
    text: str, merchant: str, category: str
) -> None:
    [paid] = found(text, "finance.transactions")
    assert paid["merchant"] == merchant and paid["category"] == category


def test_an_amount_that_is_only_weighed_is_no_payment() -> None:
    assert found("Another £150 would be too much.", "finance.transactions") == []
