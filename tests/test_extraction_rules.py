"""The rule extractor: typed candidates per domain, guards, and robustness on hostile text."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from conftest import reads_linearly
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac.fact_log.extraction.patterns import Candidate, extract, find_money

NOW = dt.datetime(2025, 3, 1, 10, 0)


def only(text: str, path: str, now: dt.datetime = NOW) -> Candidate:
    found = [c for c in extract(text, now, "user") if c.path == path]
    assert len(found) == 1, extract(text, now, "user")
    return found[0]


def test_trip_with_relative_return_day() -> None:
    text = "I'm flying to Tokyo on March 5, 2025, back on the 19th"
    c = only(text, "travel.trips")
    assert c.kind == "record" and c.op == "assert"
    assert c.value == {
        "city": "Tokyo",
        "country": "JP",
        "depart": dt.date(2025, 3, 5),
        "return_date": dt.date(2025, 3, 19),
        "transport": "plane",
    }
    assert text[c.start : c.end] == c.quote


def test_passport_and_licence_expiry() -> None:
    c = only(
        "My passport expires on 14 August 2027, should I renew it?", "identity.passport.expiry_date"
    )
    assert c.kind == "attribute" and c.value == dt.date(2027, 8, 14)
    c = only("my driver's license expires March 3rd 2026", "identity.driver_licence.expiry_date")
    assert c.value == dt.date(2026, 3, 3)


def test_medication_start_and_stop() -> None:
    c = only(
        "The doctor put me on sertraline 50 mg once a day starting today.", "health.medications"
    )
    assert c.value["name"] == "sertraline" and c.value["start_date"] == NOW.date()
    assert c.value["dose"].startswith("50 mg")
    c = only("I stopped taking ibuprofen yesterday.", "health.medications")
    assert c.op == "end" and c.value == {"name": "ibuprofen", "stop_date": dt.date(2025, 2, 28)}


def test_allergy_with_reaction_and_severity() -> None:
    c = only("I'm allergic to penicillin, I get hives.", "health.allergies")
    assert c.value == {"substance": "penicillin", "reaction": "hives"}
    c = only("I have a severe shellfish allergy.", "health.allergies")
    assert c.value == {"substance": "shellfish", "severity": "severe"}


def test_budget_subscription_vehicle_contact_event_deadline() -> None:
    c = only("my dining budget is 300 GBP a month", "finance.budgets")
    assert c.value == {
        "category": "dining",
        "limit": Decimal("300"),
        "currency": "GBP",
        "period": "month",
    }
    c = only("I pay $15.49 a month for Netflix.", "finance.subscriptions")
    assert c.value["amount"] == Decimal("15.49") and c.value["period"] == "monthly"
    c = only("I drive a 2019 Toyota Corolla, it's at about 62,000 km now.", "vehicles.vehicles")
    assert (c.value["make"], c.value["model"], c.value["year"], c.value["mileage"]) == (
        "Toyota",
        "Corolla",
        2019,
        62000,
    )
    c = only("My sister Priya is moving to Berlin next month.", "contacts.contacts")
    assert c.value == {"name": "Priya", "relationship": "sister"}
    c = only("Dentist appointment on March 18 at 3pm.", "schedule.events")
    assert c.value["start"] == dt.datetime(2025, 3, 18, 15, 0)
    c = only("The tax return is due on 31 January 2026.", "tasks.tasks")
    assert c.value["due_date"] == dt.date(2026, 1, 31)


@pytest.mark.parametrize(
    ("text", "path", "value"),
    [
        ("from now on keep answers short", "preferences.verbosity", "short"),
        ("以后回答简洁点", "preferences.verbosity", "short"),
        ("先说结论", "preferences.answer_order", "conclusion_first"),
        ("use bullet points from now on", "preferences.format", "bullets"),
        ("Going forward, no bullet points please — just prose.", "preferences.format", "prose"),
        ("Please reply in English from now on.", "preferences.language", "en"),
    ],
)
def test_preferences(text: str, path: str, value: str) -> None:
    c = only(text, path)
    assert c.kind == "preference" and c.value == value


@pytest.mark.parametrize(
    "text",
    [
        "this time, be detailed",
        "这次详细一点",
        "If I went to Japan on March 5, 2025 would I need a visa?",
        "I might go to Rome on 5 May 2025.",
        "maybe Tuesday for the dentist appointment",
        "I'm not allergic to penicillin",
        "My daughter is allergic to eggs.",
        "I think I'm allergic to cats.",
        "Flying to Sydney on February 30th!",
        "lol that's hilarious",
        "I'm so tired today.",
        "What's the weather in Tokyo tomorrow?",
    ],
)
def test_no_durable_fact(text: str) -> None:
    assert extract(text, NOW, "user") == []


def test_only_user_messages_produce_facts() -> None:
    text = "Noted: you're flying to Paris on 2025-08-09 and you're allergic to penicillin."
    assert extract(text, NOW, "assistant") == []
    assert extract("I'm allergic to latex.", NOW, "system") == []


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("£300", "300", "GBP"),
        ("300 GBP", "300", "GBP"),
        ("$12.99", "12.99", "USD"),
        ("12,50 €", "12.50", "EUR"),
        ("1,200.50 USD", "1200.50", "USD"),
        ("1.200,50 EUR", "1200.50", "EUR"),
        ("179 pounds", "179", "GBP"),
    ],
)
def test_money(text: str, amount: str, currency: str) -> None:
    (money,) = find_money(text)
    assert money.amount == Decimal(amount) and money.currency == currency


def test_money_ignores_non_currency_codes() -> None:
    assert find_money("300 ABC and 12 km") == []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_random_text_never_crashes_and_quotes_are_real(text: str) -> None:
    for c in extract(text, NOW, "user"):
        assert text[c.start : c.end] == c.quote and 0 <= c.confidence <= 1


_VOCAB = (
    "I'm my flying to Tokyo Paris on March 5 2025 back the 19th allergic penicillin budget "
    "is £300 a month from now on keep answers short 以后 简洁 not maybe if sister Priya "
    "stopped taking ibuprofen Netflix $12.99 passport expires , . ! ?"
)
_WORDS = st.sampled_from(tuple(_VOCAB.split(" ")))


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=40))
def test_word_salad_quotes_are_real(words: list[str]) -> None:
    text = " ".join(words)
    for c in extract(text, NOW, "user"):
        assert text[c.start : c.end] == c.quote


@pytest.mark.parametrize(
    "chunk",
    ["a" * 10, "1,", "I'm allergic to ", "my sister ", "$1", "-----BEGIN ", "to Paris on ", " "],
)
def test_adversarial_64k_is_fast(chunk: str) -> None:
    text = (chunk * (65536 // len(chunk) + 1))[:65536]
    # Linear in the text (a quarter costs about a quarter), not under a fixed bound that a
    # loaded machine can break: catastrophic backtracking is superlinear.
    reads_linearly(lambda part: extract(part, NOW, "user"), text)
