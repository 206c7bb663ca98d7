"""Constructs the rules must cover (issue 14, session 7, h14q): money, bills, accounts,
subscriptions, budgets, warranties and vehicles, in sentences invented here (the health and
identity ones are in test_extraction_session7_h14q.py; the method is written there). AT is
Sunday 1 June 2025."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from candidates import AT, found, of

D = dt.date


# -- finance: a lowercase merchant that charged, "they" after a named one ----------------------


@pytest.mark.parametrize(
    ("earlier", "text", "merchant", "amount"),
    [
        ((), "screwfix charged me £12.50 for the drill bits", "screwfix", "12.50"),
        ((), "argos charged me 35 quid for a kettle", "argos", "35"),
        (
            ("I cancelled my Netflix last week",),
            "they still took £10.99 off me today",
            "netflix",
            "10.99",
        ),
    ],
)
def test_a_charge_by_a_merchant(
    earlier: tuple[str, ...], text: str, merchant: str, amount: str
) -> None:
    txs = of("finance.transactions", found(text, *earlier))
    assert any(
        merchant in str(t.get("merchant", "")).lower() and str(t["amount"]) == amount for t in txs
    ), txs


def test_no_charge_of_someone_else() -> None:
    assert of("finance.transactions", found("argos charged my sister £35 for a kettle")) == []


@pytest.mark.parametrize(
    ("text", "provider", "day"),
    [
        ("closing my Barclays savings account on 30 June", "Barclays", D(2025, 6, 30)),
        (
            "switching banks, closing the Halifax current account on the 20th",
            "Halifax",
            D(2025, 6, 20),
        ),
    ],
)
def test_an_account_closing_without_i_am(text: str, provider: str, day: dt.date) -> None:
    accounts = of("finance.bank_accounts", found(text))
    assert any(a["provider"] == provider and a.get("closing_on") == day for a in accounts), accounts


# -- budgets: a list under a heading that names them -----------------------------------------


def test_a_list_of_budgets_under_a_heading() -> None:
    text = (
        "budgets from now on:\n* food shop 350/month\n* petrol 60 a week\n* holidays £2000 a year"
    )
    got = {
        (b["category"], str(b["limit"]), b["period"]) for b in of("finance.budgets", found(text))
    }
    assert {
        ("food shop", "350", "month"),
        ("petrol", "60", "week"),
        ("holidays", "2000", "year"),
    } <= got


def test_no_budget_from_a_list_under_another_heading() -> None:
    text = "shopping list:\n- eggs 12 a week\n- milk 4 a week"
    assert of("finance.budgets", found(text)) == []


# -- subscriptions: the day it comes out; refunds by the shop that made them -----------------


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("got spotify premium, 11.99 a month, goes out on the 20th", D(2025, 6, 20)),
        ("Netflix £10.99 monthly, taken on the 3rd", D(2025, 6, 3)),
        ("spotify renewd 14 july, 120 a yr", D(2025, 7, 14)),
    ],
)
def test_a_subscription_payment_day(text: str, day: dt.date) -> None:
    subs = of("finance.subscriptions", found(text))
    assert any(s.get("renews_on") == day for s in subs), subs


@pytest.mark.parametrize(
    ("text", "merchant", "amount"),
    [
        ("ikea refunded the lamp, 45.00 back on my card", "ikea", "-45.00"),
        ("Currys finally refunded the kettle, £35 back", "Currys", "-35"),
    ],
)
def test_a_refund_by_the_shop(text: str, merchant: str, amount: str) -> None:
    txs = of("finance.transactions", found(text))
    assert any(t.get("merchant") == merchant and str(t["amount"]) == amount for t in txs), txs


def test_no_refund_hoped_for() -> None:
    assert (
        of("finance.transactions", found("hopefully ikea will have refunded the 45 by friday?"))
        == []
    )


# -- accounts: a closing said as a note; an instruction moved to another account -------------


@pytest.mark.parametrize(
    ("earlier", "text", "old", "ends"),
    [
        (
            ("the water bill direct debit comes out of my Nationwide account, 40 a month",),
            "switched the water bill direct debit to Starling yesterday",
            "Nationwide account",
            D(2025, 5, 31),
        ),
        ((), "moved my rent standing order from Barclays to Monzo", "Barclays account", AT.date()),
    ],
)
def test_an_instruction_moved_ends_on_the_old_account(
    earlier: tuple[str, ...], text: str, old: str, ends: dt.date
) -> None:
    got = of("finance.scheduled_payments", found(text, *earlier))
    assert any(p.get("account") == old and p.get("ends_on") == ends for p in got), got
    assert any(p.get("account", "").endswith("account") and "ends_on" not in p for p in got), got


def test_no_account_closing_asked_or_someone_elses() -> None:
    for text in (
        "should I be closing my Halifax account on the 20th?",
        "mum is closing her Halifax account on the 20th",
    ):
        assert of("finance.bank_accounts", found(text)) == [], text


# -- a warranty or a return window said in the line after the purchase ------------------------


@pytest.mark.parametrize(
    ("text", "ends", "ret"),
    [
        (
            "3 year warranty and 30 days to return it if I don't like it",
            D(2028, 6, 1),
            D(2025, 7, 1),
        ),
        ("comes with a 2-year guarantee", D(2027, 6, 1), None),
        ("14 days to send it back", None, D(2025, 6, 15)),
    ],
)
def test_terms_said_after_the_purchase(text: str, ends: Any, ret: Any) -> None:
    got = of("finance.warranties", found(text, "bought a Bosch dishwasher from Currys today, £399"))
    assert any(
        "dishwasher" in w["item"] and w.get("ends_on") == ends and w.get("return_by") == ret
        for w in got
    ), got


def test_no_terms_without_a_purchase_or_of_someone_else() -> None:
    assert of("finance.warranties", found("2 year warranty on those, usually")) == []
    earlier = "bought a Bosch dishwasher from Currys today"
    assert of("finance.warranties", found("my sister got 30 days to return hers", earlier)) == []


# -- bills: the payee before the method, its last payment, the account said as "that one" -----


@pytest.mark.parametrize(
    ("earlier", "text", "want"),
    [
        ((), "phone bill: EE direct debit, £22 on the 3rd of every month", {"payee": "EE"}),
        (
            (),
            "netflix direct debit is 10.99 a month, last payment the 28th then it ends",
            {"payee": "netflix", "ends_on": D(2025, 6, 28)},
        ),
        (
            ("closing my Lloyds current account on 30 June",),
            "the rent standing order comes out of that one, £900 on the 1st",
            {"payee": "rent", "account": "Lloyds current account"},
        ),
        (
            ("the water direct debit comes out of my Nationwide account",),
            "and the broadband direct debit too, 30 a month",
            {"payee": "broadband", "account": "Nationwide account"},
        ),
    ],
)
def test_a_bill_said_tersely(earlier: tuple[str, ...], text: str, want: dict[str, Any]) -> None:
    got = of("finance.scheduled_payments", found(text, *earlier))
    assert any(want.items() <= p.items() for p in got), got


# -- payments listed without a verb; a budget after "budget:" ----------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "aldi 54.20 yesterday, lidl 12.75 today",
            {("aldi", "54.20", D(2025, 5, 31)), ("lidl", "12.75", D(2025, 6, 1))},
        ),
        ("bank app says: Travelodge £72.00 on the 28th", {("Travelodge", "72.00", D(2025, 5, 28))}),
        ("and again Travelodge £72.00 on the 29th!!", {("Travelodge", "72.00", D(2025, 5, 29))}),
    ],
)
def test_payments_listed_without_a_verb(text: str, want: set[Any]) -> None:
    got = {
        (t["merchant"], str(t["amount"]), t["date"])
        for t in of("finance.transactions", found(text))
    }
    assert want <= got, got


@pytest.mark.parametrize(
    "text",
    [
        "bag 23.50 kg at check-in",
        "would tesco 86.40 be too much for a week?",
        "paid 45.00 yesterday",
    ],
)
def test_no_payment_listed_when_it_is_not_one(text: str) -> None:
    assert of("finance.transactions", found(text)) == []


def test_a_budget_after_a_colon() -> None:
    got = of("finance.budgets", found("new budget: takeaways max £80 a month, no excuses"))
    assert [(b["category"], str(b["limit"]), b["period"]) for b in got] == [
        ("takeaways", "80", "month")
    ]


# -- cards, offers and renewals said tersely ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "provider", "limit"),
    [
        ("my N26 card has a 750 euro limit per payment", "N26", "750"),
        ("My Wise card have limit of 300 pound per payment", "Wise", "300"),
    ],
)
def test_a_card_limit_per_payment(text: str, provider: str, limit: str) -> None:
    got = of("finance.bank_accounts", found(text))
    assert [(a["provider"], str(a["per_transaction_limit"])) for a in got] == [(provider, limit)]


def test_an_offer_after_the_card_and_a_colon() -> None:
    got = of(
        "finance.promotions", found("Tesco card: 0% on purchases until 30 September, then 21.9%")
    )
    assert [(p["provider"], p["ends_on"]) for p in got] == [("Tesco", D(2025, 9, 30))]


def test_a_next_billing_date() -> None:
    got = of("finance.subscriptions", found("Spotify, 11.99 a month, next billing date 9 June"))
    assert [s.get("renews_on") for s in got] == [D(2025, 6, 9)]


# -- vehicles: a service said without "I had", its limits after "or", a reading of "the X" -----


def test_a_service_said_tersely_with_both_limits() -> None:
    got = of(
        "vehicles.services",
        found(
            "Ford Focus serviced yesterday at 48,000 km, next one due at 63,000 km or in 12 months"
        ),
    )
    assert any(
        s.get("mileage") == 48000
        and s.get("next_due_mileage") == 63000
        and s.get("next_due_date") == D(2026, 5, 31)
        for s in got
    ), got


def test_a_service_follow_up_without_a_unit_or_for() -> None:
    earlier = ("the Fiesta went in for its MOT today",)
    got = of("vehicles.services", found("next one at 90,000 or in a year", *earlier))
    assert any(s.get("next_due_mileage") == 90000 for s in got), got
    got = of("vehicles.services", found("£120 with the new wipers", *earlier))
    assert any(str(s.get("cost")) == "120" for s in got), got


def test_a_reading_of_the_vehicle_talked_about() -> None:
    earlier = ("Ford Focus serviced yesterday at 48,000 km",)
    got = of("vehicles.vehicles", found("the Focus is on 55,000 km now", *earlier))
    assert [v.get("mileage") for v in got] == [55000]
    # in a later session: "the Focus" opening the line is a car the user has
    assert [
        v.get("mileage") for v in of("vehicles.vehicles", found("the Focus is on 55,000 km"))
    ] == [55000]
    for text in ("my brother's Focus is on 55,000 km", "the Focus I test drove was on 20,000 km"):
        assert of("vehicles.vehicles", found(text)) == [], text


def test_the_reading_said_after_the_service_completes_it() -> None:
    got = of(
        "vehicles.services",
        found("the Octavia went in for its service today. 2017 Skoda Octavia, 120,500 km"),
    )
    assert [s.get("mileage") for s in got] == [120500], got


# -- a one-off payment planned with a card: a duty ("I must pay"), "it" from the line before ---


@pytest.mark.parametrize(
    "text",
    [
        "next month I have to pay the deposit for the flat, 900 euro, on 10 July, with the Wise",
        "the final invoice for the builder, £2,300, is due 20 June. I'll pay it with my Monzo card",
    ],
)
def test_a_planned_payment_with_a_card(text: str) -> None:
    got = of("finance.scheduled_payments", found(text))
    assert (
        len(got) == 1
        and got[0]["period"] == "once"
        and got[0]["next_date"]
        in (
            D(2025, 7, 10),
            D(2025, 6, 20),
        )
    ), got


def test_no_planned_payment_asked_or_someone_elses() -> None:
    for text in (
        "should I pay the deposit, 900 euro, on 10 July with the Wise?",
        "my sister will pay the deposit, 900 euro, on 10 July with her Wise card",
    ):
        assert of("finance.scheduled_payments", found(text)) == [], text


# -- a payment to a sort code and account number -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "merchant", "account"),
    [
        (
            "paid the roofer Dave Hughes 1,500 today, 11-22-33 12345678",
            "roofer Dave Hughes",
            "12345678",
        ),
        ("deposit paid to Oakwood Lets, £950, to 40-50-60 87654321", "Oakwood Lets", "87654321"),
        (
            "a letter from Oakwood Lets says new bank, so I paid the £950 to 20-30-40 11112222",
            "Oakwood Lets",
            "11112222",
        ),
    ],
)
def test_a_payment_to_a_sort_code_and_account(text: str, merchant: str, account: str) -> None:
    got = of("finance.transactions", found(text))
    assert [(t.get("merchant"), t.get("payee_account")) for t in got] == [(merchant, account)], got


def test_no_payment_to_an_account_asked_or_planned() -> None:
    for text in (
        "should I pay Oakwood Lets £950 to 20-30-40 11112222?",
        "my sister paid Oakwood Lets £950 to 20-30-40 11112222",
    ):
        assert of("finance.transactions", found(text)) == [], text


def test_a_list_of_payments_in_one_line() -> None:
    text = "sunday admin: paid the gas bill (64), paid the tv licence 13.25, sent dad 50 for petrol"
    got = [(str(t["amount"]), t.get("merchant")) for t in of("finance.transactions", found(text))]
    assert got == [("64", "gas bill"), ("13.25", "tv licence"), ("50", "dad")], got
    assert (
        of("finance.transactions", found("my brother paid the gas (64), paid the tv licence 13.25"))
        == []
    )


# -- a spend said without a verb: a place and "my treat/my share", a meal and what it cost -----


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Wagamama with work friends today, £52.30, my treat", {"merchant": "Wagamama"}),
        (
            "saturday was Nando's for Amy's birthday, £28.75 my share",
            {"merchant": "Nando's", "date": D(2025, 5, 31)},
        ),
        ("and lunch yesterday came to £18.20", {"category": "lunch", "date": D(2025, 5, 31)}),
    ],
)
def test_a_spend_said_without_a_verb(text: str, want: dict[str, Any]) -> None:
    got = of("finance.transactions", found(text))
    assert any(want.items() <= t.items() for t in got), got


def test_no_spend_of_someone_else_or_a_wish() -> None:
    for text in (
        "Amy paid for Nando's, £28.75, my treat next time?",
        "lunch would be £18.20 there",
    ):
        assert of("finance.transactions", found(text)) == [], text
