"""Constructs the rules must cover (issue 14, session 8, h14s): money written the way other
countries write it, spends said without a verb, a card's limits bound each to its own cue,
and the health constructs below. Sentences invented here, in other words than blind4's and
in several registers (terse, lowercase, non-native, dictated, pasted); negatives alongside.
AT is Sunday 1 June 2025."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from candidates import found, of

from uac.fact_log.extraction.patterns.money import amounts, find_money

D = dt.date


# -- money: grouping and multipliers of other countries -----------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("fees were 3,75,000 INR", "375000", "INR"),  # Indian grouping
        ("the flat costs 12'500 CHF", "12500", "CHF"),  # Swiss apostrophe
        ("paid 2’300 francs", "2300", "CHF"),  # typographic apostrophe
        ("4.5 lakh rupees", "450000", "INR"),
        ("£12k", "12000", "GBP"),
        ("2.099 € total", "2099", "EUR"),
    ],
)
def test_amounts_written_other_ways(text: str, amount: str, currency: str) -> None:
    money = find_money(text)
    assert money and money[0].amount == Decimal(amount) and money[0].currency == currency, money


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("capped at 2 lakh", "200000"),
        ("a loan of 15k", "15000"),
        ("deposit was 3.200, sent it friday", "3200"),  # a comma then a space ends a clause
        ("gym 24.99/month", "24.99"),
        ("max 7'000.", "7000"),
    ],
)
def test_bare_amounts_written_other_ways(text: str, amount: str) -> None:
    said = amounts(text)
    assert said and said[0].amount == Decimal(amount), said


@pytest.mark.parametrize(
    "text", ["serviced on 14.02., cost was fine", "see you 3/4 at noon", "it is 12km away"]
)
def test_no_amount_from_dates_or_units(text: str) -> None:
    assert amounts(text) == []


# -- spends said without a verb for the payment --------------------------------------------


@pytest.mark.parametrize(
    ("text", "merchant", "amount", "day"),
    [
        ("deliveroo 18.40 tonight lol", "deliveroo", "18.40", D(2025, 6, 1)),
        ("sainsburys weekly shop 92.15 yesterday", "sainsburys", "92.15", D(2025, 5, 31)),
        ("Lidl order 41.07 this morning", "Lidl", "41.07", D(2025, 6, 1)),
        ("treated myself: headphones from currys 89.99", "currys", "89.99", D(2025, 6, 1)),
        (
            "the new fridge came yesterday - Bosch KGN from AO, £649 inc delivery",
            "AO",
            "649",
            D(2025, 5, 31),
        ),
        ("I buy today new shoes, 120 € in Decathlon", "Decathlon", "120", D(2025, 6, 1)),
        (
            "fyi paid the Octopus energy bill yesterday, £88.10",
            "Octopus",
            "88.10",
            D(2025, 5, 31),
        ),
        (
            "note to self paid the Severn Trent water bill today sixty one pounds fifty.",
            "Severn Trent",
            "61.50",
            D(2025, 6, 1),
        ),
    ],
)
def test_a_spend_without_a_payment_verb(text: str, merchant: str, amount: str, day: D) -> None:
    txs = of("finance.transactions", found(text))
    assert any(
        t.get("merchant") == merchant and t["amount"] == Decimal(amount) and t["date"] == day
        for t in txs
    ), txs


@pytest.mark.parametrize(
    "text",
    [
        "my brother got the same telly from currys 399.99",  # someone else's
        "flights from Manchester, £450 return",  # a place, not a shop
        "would a kettle from argos 24.99 be ok?",  # asked
        "is 33 a month for accounting software a rip off",
    ],
)
def test_no_spend_from_others_places_or_questions(text: str) -> None:
    assert of("finance.transactions", found(text)) == []


# -- a card's limits, each amount bound to its own cue -------------------------------------


@pytest.mark.parametrize(
    ("earlier", "text", "provider", "limit", "per_payment"),
    [
        (
            (),
            "pls note my ICICI credit card limit is 3,00,000 INR, per transaction capped at 50k",
            "ICICI",
            "300000",
            "50000",
        ),
        (
            (),
            "My Cembra Mastercard has a 10'000 CHF limit and for one payment max 4'000",
            "Cembra",
            "10000",
            "4000",
        ),
        ((), "my capital one card got approved!!! $2000 limit", "capital", "2000", None),
        (
            ("I got a new credit card with Barclaycard today",),
            "The limit is £3,500.",
            None,
            "3500",
            None,
        ),
        (
            (),
            "I pay with the Santander card, the limit is 900 for a single payment",
            "Santander",
            None,
            "900",
        ),
    ],
)
def test_card_limits_bound_to_their_cue(
    earlier: tuple[str, ...],
    text: str,
    provider: str | None,
    limit: str | None,
    per_payment: str | None,
) -> None:
    cards = of("finance.bank_accounts", found(text, *earlier))
    assert cards, cards
    card = cards[-1]
    if provider:
        assert provider.lower() in card["provider"].lower()
    assert card.get("limit") == (Decimal(limit) if limit else None), card
    assert card.get("per_transaction_limit") == (Decimal(per_payment) if per_payment else None)


@pytest.mark.parametrize(
    "text",
    [
        "my nationwide debit card has a daily limit of 500",  # a daily limit has no field
        "my husband's Monzo card has a £700 limit",
        "what limit would the HSBC card give me?",
    ],
)
def test_no_card_limit_of_other_kinds_or_people(text: str) -> None:
    cards = of("finance.bank_accounts", found(text))
    assert not any("limit" in c or "per_transaction_limit" in c for c in cards), cards
