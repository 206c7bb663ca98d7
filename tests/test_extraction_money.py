"""Money read from conversation: payments, subscriptions, cards and accounts, bills, budgets,
offers, purchases and warranties.

Each construct is tested in sentences invented for the test, in other words and registers
(terse, lowercase, non-native, dictated, pasted) than the tuning sets', with negatives
alongside: other people's facts, questions, hypotheticals and plans find nothing of the
path. Unless a test says otherwise, AT is Sunday 1 June 2025 (tests/candidates.py).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from tests.candidates import AT, D, T, found, of, values
from uac.fact_log.extraction.patterns import extract

PAY = "finance.transactions"


def cancelled(text: str, *earlier: str) -> list[object]:
    from uac.fact_log.extraction.patterns import extract

    history = [(line, AT) for line in earlier]
    return [
        c.value.get("cancelled_on")
        for c in extract(text, AT, history=history)
        if c.path == "finance.subscriptions" and "cancelled_on" in c.value
    ]


SCHED = "finance.scheduled_payments"

AT_MONDAY = dt.datetime(2025, 3, 10, 9)  # a Monday


# -- finance -------------------------------------------------------------------------------


def test_a_payment_to_a_subscription_service_on_a_day_is_a_transaction() -> None:
    assert of("finance.transactions", found("I paid $15.49 to Netflix on 28 May, odd.")) == [
        {
            "date": D(2025, 5, 28),
            "amount": Decimal("15.49"),
            "currency": "USD",
            "merchant": "Netflix",
        }
    ]


def test_paying_for_a_subscription_every_month_is_not_a_transaction() -> None:
    assert of("finance.transactions", found("I pay $15.49 to Netflix every month.")) == []


@pytest.mark.parametrize(
    ("text", "payee", "account"),
    [
        (
            "I'm going to pay the €3,100 for the chalet with my Barclaycard on 20 June.",
            "chalet",
            "Barclaycard",
        ),
        ("I'll pay the £900 for the car repair on my Amex on 20 June.", "car repair", "Amex"),
    ],
)
def test_a_planned_payment_with_a_card_named_by_its_brand(
    text: str, payee: str, account: str
) -> None:
    [plan] = of("finance.scheduled_payments", found(text))
    assert plan["payee"] == payee and plan["account"] == account
    assert plan["method"] == "card" and plan["next_date"] == D(2025, 6, 20)


def test_a_standing_order_with_the_amount_before_the_payee() -> None:
    [order] = of(
        "finance.scheduled_payments",
        found("I've set up a standing order for the £95 water bill from my Halifax account."),
    )
    assert order["payee"] == "water bill" and order["amount"] == Decimal("95")
    assert order["method"] == "standing_order" and order["account"] == "Halifax account"


@pytest.mark.parametrize(
    ("text", "name", "provider", "then"),
    [
        (
            "My mobile deal with Vodafone at £12 a month ends on 30 September, after that "
            "it's £30.",
            "mobile deal",
            "Vodafone",
            "£30",
        ),
        (
            "My energy tariff from Octopus at £80 a month ends on 30 September, then it rises to "
            "£110.",
            "energy tariff",
            "Octopus",
            "£110",
        ),
    ],
)
def test_a_promotional_price_with_what_follows(
    text: str, name: str, provider: str, then: str
) -> None:
    [promo] = of("finance.promotions", found(text))
    assert promo["name"] == name and promo["provider"] == provider
    assert promo["ends_on"] == D(2025, 9, 30) and then in promo.get("then", "")


@pytest.mark.parametrize(
    "text",
    [
        "My Barclaycard has a per-transaction limit of £1,500.",
        "My Barclaycard has a per-payment limit of £1,500.",
    ],
)
def test_a_per_payment_limit_on_a_card_named_by_its_brand_is_not_a_credit_limit(text: str) -> None:
    [card] = of("finance.bank_accounts", found(text))
    assert card["name"] == "Barclaycard" and card["per_transaction_limit"] == Decimal("1500")
    assert "limit" not in card


# -- one thing learned twice should be named alike: no verbs or sentence capitals in names ---


@pytest.mark.parametrize(
    ("text", "payee"),
    [
        (
            "Water rates of £40 are paid monthly by direct debit from my Halifax account.",
            "water rates",
        ),
        ("British Gas is paid monthly by direct debit from my Halifax account.", "British Gas"),
    ],
)
def test_a_payee_keeps_a_name_but_not_a_sentence_capital(text: str, payee: str) -> None:
    assert [p["payee"] for p in of("finance.scheduled_payments", found(text))] == [payee]


# -- precision: dates relative to the conversation, courses, prices, ambiguous corrections ---


def test_a_service_with_a_bare_price_keeps_its_amount() -> None:
    [sub] = of("finance.subscriptions", found("Netflix is 15.99 monthly and renews on the 9th."))
    assert sub["amount"] == Decimal("15.99") and sub["period"] == "monthly"


# -- recall: a purchase priced without a currency, ellipsis after a payment, fronted objects --


def test_bought_from_a_shop_for_a_bare_price() -> None:
    assert of("finance.transactions", found("I bought a kettle from Argos for 35 yesterday.")) == [
        {"date": D(2025, 5, 31), "amount": Decimal("35"), "merchant": "Argos"}
    ]


def test_a_second_payment_said_without_its_verb() -> None:
    earlier = ("I spent £40 at Boots this morning.",)
    assert of("finance.transactions", found("And 12 at Greggs.", *earlier)) == [
        {"date": D(2025, 6, 1), "amount": Decimal("12"), "currency": "GBP", "merchant": "Greggs"}
    ]
    # without a payment just before, a bare "and 12 at Greggs" says nothing
    assert of("finance.transactions", found("And 12 at Greggs.")) == []


def test_a_second_subscription_said_without_its_verb() -> None:
    earlier = ("I pay £4.99 a month for Disney Plus.",)
    subs = of("finance.subscriptions", found("and 10.99 for Netflix, also monthly.", *earlier))
    assert [(s["name"], s["amount"], s["period"]) for s in subs] == [
        ("Netflix", Decimal("10.99"), "monthly")
    ]


def test_a_cancellation_with_the_service_said_first() -> None:
    cands = extract("The Netflix one I cancelled on 20 May.", AT)
    assert [(c.path, c.op, c.value) for c in cands] == [
        ("finance.subscriptions", "end", {"name": "Netflix", "cancelled_on": D(2025, 5, 20)})
    ]


# -- money ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "payments"),
    [
        ("Bought a desk lamp from IKEA yesterday, £24", [("24", "IKEA")]),
        ("£60 at Tesco for the party and £12.50 on Etsy", [("60", "Tesco"), ("12.50", "Etsy")]),
        ("Council tax came out, £140 to Camden", [("140", "Camden")]),
    ],
)
def test_payments_said_without_i_spent(text: str, payments: list[tuple[str, str]]) -> None:
    got = [(str(t["amount"]), t["merchant"]) for t in of("finance.transactions", found(text))]
    assert sorted(got) == sorted(payments)


@pytest.mark.parametrize(
    "text", ["is £60 at Tesco a lot for a week?", "£60 at Tesco would be too much for my mum"]
)
def test_no_payment_from_a_question_or_a_supposition(text: str) -> None:
    assert not of("finance.transactions", found(text))


def test_a_subscription_signed_up_for_starts_that_day() -> None:
    [sub] = of("finance.subscriptions", found("Subscribed to Spotify yesterday, £11.99 a month"))
    assert sub["name"] == "Spotify" and sub["started_on"] == D(2025, 5, 31)


def test_a_cancellation_said_service_first_without_i() -> None:
    [sub] = extract("right, that's sorted, Spotify cancelled", AT)
    assert (sub.path, sub.op) == ("finance.subscriptions", "end")
    assert sub.value == {"name": "Spotify", "cancelled_on": D(2025, 6, 1)}


def test_a_trial_end_is_the_first_charge() -> None:
    cands = found("the trial runs out on the 14th, then it charges me", "Joined Audible today")
    assert of("finance.subscriptions", cands) == [{"name": "Audible", "renews_on": D(2025, 6, 14)}]


@pytest.mark.parametrize(
    ("text", "earlier", "want"),
    [
        ("Opened a new savings account with Chase", (), {"provider": "Chase", "kind": "savings"}),
        ("New current account with Monzo!", (), {"provider": "Monzo", "kind": "current"}),
        (
            "the old one with Barclays closes on 15 July",
            ("New current account with Monzo!",),
            {"provider": "Barclays", "closing_on": D(2025, 7, 15)},
        ),
        (
            "the overdraft on Monzo is £250",
            ("New current account with Monzo!",),
            {"provider": "Monzo", "limit": 250},
        ),
    ],
)
def test_accounts(text: str, earlier: tuple[str, ...], want: dict[str, Any]) -> None:
    accounts = of("finance.bank_accounts", found(text, *earlier))
    assert any(all(a.get(k) == v for k, v in want.items()) for a in accounts), accounts


def test_someone_elses_overdraft_is_not_the_users() -> None:
    assert not of("finance.bank_accounts", found("my brother's overdraft on Monzo is £250"))


# -- more trips, insurance, tasks, payments, purchases -------------------------------------


def test_a_transfer_is_a_payment_with_its_account() -> None:
    text = "Transferred £900 to Kemp Roofing today, account 55667788 sort code 20-30-40."
    [pay] = of("finance.transactions", found(text))
    assert (str(pay["amount"]), pay["merchant"], pay["payee_account"]) == (
        "900",
        "Kemp Roofing",
        "55667788",
    )


def test_a_bill_paid_names_its_payee() -> None:
    [pay] = of("finance.transactions", found("Paid the Octopus Energy bill today, £61.30."))
    assert (str(pay["amount"]), pay["merchant"]) == ("61.30", "Octopus Energy")


def test_a_guarantee_after_a_subjectless_purchase() -> None:
    cands = found("Got a Miele vacuum from Currys today, it comes with a two-year guarantee.")
    [w] = of("finance.warranties", cands)
    assert "vacuum" in w["item"].lower() and w["ends_on"] == D(2027, 6, 1)


def test_an_item_that_can_go_back_within_days() -> None:
    cands = found(
        "The kettle can go back within 30 days if it's rubbish",
        "Got a Bosch kettle from Argos today.",
    )
    [w] = of("finance.warranties", cands)
    assert w["item"] == "kettle" and w["return_by"] == D(2025, 7, 1)


# -- money and payments ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "text", "want"),
    [
        # the one paid named between the verb and the amount
        ((), "paid the electrician £240 yesterday", {"merchant": "electrician", "amount": "240"}),
        ((), "Paid my cleaner 60 pounds", {"merchant": "cleaner", "amount": "60"}),
        # the thing paid named after the amount
        ((), "also paid the £60 speeding fine", {"amount": "60", "category": "speeding fine"}),
        # money coming in is negative
        ((), "wages came in, 2,100.40", {"amount": "-2100.40"}),
        ((), "my pension landed today: £912", {"amount": "-912"}),
        # a merchant then what it came to
        ((), "Sainsbury's today was sixty two pounds fifty", {"merchant": "Sainsbury's"}),
        ((), "Boots came to £14.30", {"merchant": "Boots", "amount": "14.30"}),
        # a refund of the payment just named
        (
            ("Deliveroo charged me £18.50 twice yesterday.",),
            "they refunded one this morning",
            {"amount": "-18.50", "merchant": "Deliveroo"},
        ),
    ],
)
def test_payments_by_construct(earlier: tuple[str, ...], text: str, want: dict[str, str]) -> None:
    got = of("finance.transactions", found(text, *earlier))
    assert any(all(str(t.get(k)) == v for k, v in want.items()) for t in got), got


@pytest.mark.parametrize(
    "text",
    [
        "my brother paid the plumber £180",
        "should I have paid the electrician £240?",
        "if the refund comes in I'll pay off the card",
        "Tesco was busy today",
        "I'd pay eighty pounds for that",
        "her salary came in, 2,000",
    ],
)
def test_no_payment_of_others_questions_or_wishes(text: str) -> None:
    assert of("finance.transactions", found(text)) == []


# -- subscriptions: the service talked about last, whatever the sentence did --------------


@pytest.mark.parametrize(
    ("earlier", "text", "field", "value"),
    [
        # a service named in a plan is still what "it" means next
        (
            ("Audible is £7.99 a month.", "thinking of dropping Spotify"),
            "ok, cancelled it",
            "cancelled_on",
            AT.date(),
        ),
        (("Audible is £7.99 a month.",), "it renews on the 20th", "renews_on", D(2025, 6, 20)),
        (
            ("Duolingo costs me £6.99 monthly.",),
            "next payment is on 3 July",
            "renews_on",
            D(2025, 7, 3),
        ),
    ],
)
def test_subscription_follow_ups(
    earlier: tuple[str, ...], text: str, field: str, value: Any
) -> None:
    subs = of("finance.subscriptions", found(text, *earlier))
    assert subs and subs[-1][field] == value, subs
    if "Spotify" in " ".join(earlier):
        assert subs[-1]["name"] == "Spotify"


def test_signed_up_without_i() -> None:
    subs = of("finance.subscriptions", found("signed up for Headspace, £4.99 a month"))
    assert [(s["name"], s["started_on"]) for s in subs] == [("Headspace", AT.date())]


def test_no_renewal_without_a_subscription_before() -> None:
    assert of("finance.subscriptions", found("it renews on the 20th")) == []


def test_signed_up_to_an_unlisted_service_takes_the_price_after_the_intro() -> None:
    [sub] = of(
        "finance.subscriptions",
        found("subscribed to the Telegraph, £2 for 3 months then £14 a month"),
    )
    assert (sub["name"], sub["amount"], sub["started_on"]) == (
        "Telegraph",
        Decimal("14"),
        AT.date(),
    )


# -- cards and accounts: a limit said before or after its word ----------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("my Barclaycard has a £4,000 limit", {"provider": "Barclaycard", "limit": "4000"}),
        (
            "the Barclaycard has a credit limit of 2500",
            {"provider": "Barclaycard", "limit": "2500"},
        ),
        ("my Amex has a £9k limit", {"provider": "Amex", "kind": "credit_card", "limit": "9000"}),
        ("my Halifax card has a £1,200 limit", {"name": "Halifax card", "kind": "credit_card"}),
        # a per-payment cap said as what the card will not let the user do
        (
            "and the Monzo card won't let me spend more than 750 in one go",
            {"provider": "Monzo", "kind": "debit_card", "per_transaction_limit": "750"},
        ),
        (
            "my Revolut card only lets me pay up to £300 at a time",
            {"provider": "Revolut", "per_transaction_limit": "300"},
        ),
    ],
)
def test_card_limits(text: str, want: dict[str, str]) -> None:
    accts = of("finance.bank_accounts", found(text))
    assert any(all(str(a.get(k)) == v for k, v in want.items()) for a in accts), accts


@pytest.mark.parametrize(
    "text",
    [
        "my dad's Barclaycard has a £4,000 limit",
        "what's the usual limit on a Barclaycard?",
        "if my Amex had a 9k limit I'd use it more",
    ],
)
def test_no_card_limit_of_others_or_asked(text: str) -> None:
    assert of("finance.bank_accounts", found(text)) == []


def test_a_charge_last_night_is_yesterdays() -> None:
    [t] = of("finance.transactions", found("Just Eat charged me last night, £31.20"))
    assert (t["date"], t["amount"], t["merchant"]) == (D(2025, 5, 31), Decimal("31.20"), "Just Eat")


def test_a_day_of_every_month_is_not_the_next_renewal() -> None:
    subs = of(
        "finance.subscriptions",
        found("it renews on the 1st of each month", "Audible is £7.99 a month."),
    )
    assert subs == []


# -- payment instructions: the method said anywhere, the payee as the bill's name ---------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "the Netflix direct debit comes out of Monzo, £10.99 on the 3rd",
            {"payee": "Netflix", "method": "direct_debit", "account": "Monzo", "day_of_month": 3},
        ),
        (
            "the council tax is £160 a month by direct debit",
            {
                "payee": "council tax",
                "method": "direct_debit",
                "amount": "160",
                "period": "monthly",
            },
        ),
        (
            "the EE phone bill which is a direct debit of about £30",
            {"payee": "EE phone bill", "method": "direct_debit"},
        ),
        (
            "the water rates I pay quarterly, £98, next due 1 July",
            {
                "payee": "water rates",
                "amount": "98",
                "period": "quarterly",
                "next_date": "2025-07-01",
            },
        ),
        (
            "the car tax I pay yearly, £190",
            {"payee": "car tax", "amount": "190", "period": "yearly"},
        ),
        (
            "I pay £250 into the Vanguard pension every month on the 2nd by standing order",
            {"payee": "Vanguard pension", "method": "standing_order", "day_of_month": 2},
        ),
    ],
)
def test_payment_instructions(text: str, want: dict[str, str]) -> None:
    got = of("finance.scheduled_payments", found(text))
    assert any(all(str(p.get(k)) == str(v) for k, v in want.items()) for p in got), got


@pytest.mark.parametrize(
    "text",
    [
        "my sister's rent goes out by standing order on the 1st",
        "should the council tax be a direct debit?",
        "thinking of paying the car tax yearly",
    ],
)
def test_no_payment_instruction_of_others_or_plans(text: str) -> None:
    assert of("finance.scheduled_payments", found(text)) == []


def test_a_list_of_bills_gives_one_record_each() -> None:
    text = (
        "Bills: the Nationwide mortgage I pay £820 every month on the 15th by direct debit, "
        "the Thames Water bill which is a direct debit of around £40, and the TV licence "
        "I pay yearly, £169.50, next due 1 March"
    )
    got = {p["payee"]: p for p in of("finance.scheduled_payments", found(text))}
    assert set(got) == {"Nationwide mortgage", "Thames Water bill", "TV licence"}
    assert got["Nationwide mortgage"]["day_of_month"] == 15
    assert got["TV licence"]["next_date"] == D(2026, 3, 1)


def test_a_standing_order_to_a_person() -> None:
    [p] = of(
        "finance.scheduled_payments",
        found(
            "Set up a standing order to my son, £50 on the 1st of each month from the joint account"
        ),
    )
    assert (p["payee"], p["account"], p["day_of_month"]) == ("son", "joint account", 1)


# -- budgets said one after another; promotions said without "my" -----------------------


@pytest.mark.parametrize(
    ("earlier", "text", "want"),
    [
        (
            ("my budget for eating out is £150 a month",),
            "and forty a week for petrol",
            {"category": "petrol", "limit": "40", "period": "week", "currency": "GBP"},
        ),
        (
            ("set a budget of 200 dollars a month for clothes",),
            "plus $60 a month on books",
            {"category": "books", "limit": "60", "period": "month"},
        ),
    ],
)
def test_another_budget_after_one(
    earlier: tuple[str, ...], text: str, want: dict[str, str]
) -> None:
    got = of("finance.budgets", found(text, *earlier))
    assert any(all(str(b.get(k)) == v for k, v in want.items()) for b in got), got


def test_no_budget_continuation_without_one_before() -> None:
    assert of("finance.budgets", found("and forty a week for petrol")) == []


@pytest.mark.parametrize(
    ("earlier", "text", "want"),
    [
        (
            (),
            "MBNA 0% on balance transfers until 30 June 2026",
            {"provider": "MBNA", "ends_on": "2026-06-30"},
        ),
        (
            (),
            "the energy deal with Octopus ends 1 October, then it goes up to £140",
            {"provider": "Octopus", "ends_on": "2025-10-01", "then": "£140"},
        ),
        (
            (),
            "mobile tariff with Three ends on the 20th, after that it rises from £12 to £25",
            {"provider": "Three", "ends_on": "2025-06-20", "then": "£25"},
        ),
        (
            ("Tesco Bank 0% on purchases until 1 March 2026",),
            "after that 24.9%",
            {"provider": "Tesco Bank", "then": "24.9%"},
        ),
    ],
)
def test_promotions_said_plainly(earlier: tuple[str, ...], text: str, want: dict[str, str]) -> None:
    got = of("finance.promotions", found(text, *earlier))
    assert any(all(str(p.get(k)) == v for k, v in want.items()) for p in got), got


@pytest.mark.parametrize(
    "text",
    [
        "my dad's 0% card ends in October",
        "does the Virgin deal end in December?",
        "if the Sky offer ends on 1 May I'll switch",
    ],
)
def test_no_promotion_of_others_or_asked(text: str) -> None:
    assert of("finance.promotions", found(text)) == []


# -- more constructs: readings with a wish after them, a doctor's instruction the user took,


def test_a_bill_named_without_an_article() -> None:
    got = of(
        "finance.scheduled_payments",
        found(
            "water rates are a direct debit, £45 on the 3rd of every month, "
            "out of my Halifax account"
        ),
    )
    assert [(p["payee"], p["account"], p["day_of_month"]) for p in got] == [
        ("water rates", "Halifax account", 3)
    ]


def test_a_per_payment_limit_before_its_word() -> None:
    got = of("finance.bank_accounts", found("my Monzo card has a 500 GBP per-transaction limit"))
    assert [(a["provider"], a["per_transaction_limit"]) for a in got] == [("Monzo", Decimal("500"))]


def test_a_charge_after_a_lead_in() -> None:
    got = of("finance.transactions", found("hold on, Apple TV+ charged me £8.99 yesterday?!"))
    assert [(t["merchant"], t["amount"], t["date"]) for t in got] == [
        ("Apple TV+", Decimal("8.99"), D(2025, 5, 31))
    ]


def test_a_spending_cap_said_as_max() -> None:
    got = of("finance.budgets", found("new rule: max £150 a month on takeaways"))
    assert [(b["category"], b["limit"], b["period"]) for b in got] == [
        ("takeaways", Decimal("150"), "month")
    ]


def test_a_promotion_on_a_card() -> None:
    got = of(
        "finance.promotions",
        found(
            "the 0% balance transfer on my Barclaycard finishes on 31 October, "
            "after that it's 23.9%"
        ),
    )
    assert [(p["provider"], p["ends_on"], p.get("then")) for p in got] == [
        ("Barclaycard", D(2025, 10, 31), "23.9%")
    ]


def test_a_second_instruction_for_the_same_bill() -> None:
    got = of(
        "finance.scheduled_payments",
        found(
            "the council asked me to set up a direct debit for the council tax too, "
            "£120 from my Monzo"
        ),
    )
    assert [(p["payee"], p["account"]) for p in got] == [("council tax", "Monzo")]


def test_a_warranty_counts_from_the_day_said() -> None:
    got = of("finance.warranties", found("my Lenovo laptop is from 5 January, two year warranty"))
    assert [(w["item"], w["ends_on"]) for w in got] == [("Lenovo", D(2027, 1, 5))]


def test_a_moved_instruction_is_not_read_as_a_second_one() -> None:
    # the move is understood: the old instruction ends on its last payment,
    # the new one goes on from the new account (no second live instruction on the old one)
    earlier = ("The yoga direct debit comes out of my Nationwide account, £40 monthly.",)
    text = "Moved the yoga direct debit to Starling today, the last Nationwide one was 2 May."
    got = of("finance.scheduled_payments", found(text, *earlier))
    assert [(p["account"], p.get("ends_on")) for p in got] == [
        ("Nationwide account", D(2025, 5, 2)),
        ("Starling account", None),
    ]


# -- a birth ends the pregnancy ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "amount"),
    [("netflix premium is 17.99 now!!", "17.99"), ("Disney+ went up to £8.99, annoying", "8.99")],
)
def test_a_subscription_price_said_as_it_is_now(text: str, amount: str) -> None:
    assert [str(s.get("amount")) for s in of("finance.subscriptions", found(text))] == [amount]


def test_no_subscription_price_asked_or_someone_elses() -> None:
    for text in ("is netflix 17.99 now?", "my flatmate says netflix is 17.99 now"):
        assert of("finance.subscriptions", found(text)) == [], text


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
        ("And fifteen days to return it if I don't like it", None, D(2025, 6, 16)),
    ],
)
def test_terms_said_after_the_purchase(text: str, ends: Any, ret: Any) -> None:
    got = of("finance.warranties", found(text, "bought a Bosch dishwasher from Currys today, £399"))
    assert any(
        "dishwasher" in w["item"] and w.get("ends_on") == ends and w.get("return_by") == ret
        for w in got
    ), got


def test_a_return_window_said_with_the_warranty() -> None:
    text = "bought a Lenovo laptop at Alza for 24 990 Kč today, 2 years warranty, 14 days return"
    [w] = of("finance.warranties", found(text))
    assert (w["ends_on"], w["return_by"]) == (D(2027, 6, 1), D(2025, 6, 15))


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


# -- subscriptions: a priced list, a named renewal, a start after the service --------------


def test_a_list_of_subscriptions_binds_each_price_to_its_name() -> None:
    text = "monthlies: Notion is 8/month, Figma 12/month and Zoom 13.99/month"
    subs = {(s["name"], s["amount"]) for s in of("finance.subscriptions", found(text))}
    assert subs == {("Notion", 8), ("Figma", 12), ("Zoom", Decimal("13.99"))}, subs


def test_no_subscription_list_from_prices_of_other_things() -> None:
    text = "my sister's subscriptions: Netflix 10.99/month, Hulu 7.99/month"
    assert of("finance.subscriptions", found(text)) == []


def test_a_named_subscription_renews_on_a_day_of_the_month() -> None:
    cands = found("Figma renews 15th of the month", "I pay Figma 12/month and Zoom 13.99/month")
    assert {"name": "Figma", "renews_on": D(2025, 6, 15)} in of("finance.subscriptions", cands)


def test_a_subscription_started_after_it_is_named() -> None:
    subs = of(
        "finance.subscriptions", found("got a spotify family plan, 17.99 a month, started today")
    )
    assert any(s.get("started_on") == D(2025, 6, 1) for s in subs), subs


# -- payment instructions named the writer's way -------------------------------------------


@pytest.mark.parametrize(
    ("text", "payee", "method", "day", "account"),
    [
        ("gym DD comes out of my monzo account on the 3rd, £30", "gym", "direct_debit", 3, "monzo"),
        (
            "rent 950 EUR to Herr Vogel, I set up a Dauerauftrag from Commerzbank on the first "
            "of every month",
            "Herr Vogel",
            "standing_order",
            1,
            "Commerzbank",
        ),
        (
            "Herr Vogel now wants SEPA Lastschrift for the rent, signed it today, from my DKB "
            "account",
            "Herr Vogel",
            "direct_debit",
            None,
            "DKB",
        ),
        (
            "water bill SO goes out of nationwide on the 12th",
            "water bill",
            "standing_order",
            12,
            "nationwide",
        ),
    ],
)
def test_a_payment_instruction_in_other_words(
    text: str, payee: str, method: str, day: int | None, account: str
) -> None:
    pays = of("finance.scheduled_payments", found(text))
    assert any(
        p["payee"] == payee
        and p["method"] == method
        and p.get("day_of_month") == day
        and account.lower() in p.get("account", "").lower()
        for p in pays
    ), pays


def test_no_instruction_of_someone_else_in_other_words() -> None:
    assert of("finance.scheduled_payments", found("my sister's gym DD comes out on the 3rd")) == []


# -- charges said in disbelief, statement lines with the day first or a remark after ------


def test_a_charge_said_in_disbelief() -> None:
    txs = of("finance.transactions", found("omg netflix charged me 15.99 on the 28th??"))
    assert any(t["merchant"] == "netflix" and t["date"] == D(2025, 5, 28) for t in txs), txs


def test_no_charge_when_asked() -> None:
    assert of("finance.transactions", found("did netflix charge me 15.99?")) == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("wagamama 19.20 tonight no regrets", {("wagamama", "19.20")}),
        (
            "deliveroo last night 22.10 and just eat just now 9.80",
            {("deliveroo", "22.10"), ("just eat", "9.80")},
        ),
    ],
)
def test_statement_lines_in_other_orders(text: str, want: set[tuple[str, str]]) -> None:
    got = {(t["merchant"], str(t["amount"])) for t in of("finance.transactions", found(text))}
    assert got & want, got


def test_no_statement_line_from_a_connective() -> None:
    assert of("finance.transactions", found("I spent 20.00 and then 5.00")) == []


# -- one priced subscription with its renewal ---------------------------------------------


def test_one_priced_subscription_that_renews() -> None:
    subs = of(
        "finance.subscriptions", found("Figma is 12/month for the studio, renews 15th of the month")
    )
    assert subs == [
        {"name": "Figma", "amount": 12, "period": "monthly", "renews_on": D(2025, 6, 15)}
    ], subs


def test_no_subscription_from_a_price_alone() -> None:
    assert of("finance.subscriptions", found("the gym is 30/month, too much")) == []


# -- a planned payment: what is paid opens the sentence; "the same card" ----------------


@pytest.mark.parametrize(
    ("earlier", "text", "payee", "amount", "account"),
    [
        (
            (),
            "The cottage in Cornwall wants the £1,400 on 3 July, I pay it with the Monzo",
            "cottage",
            "1400",
            "Monzo",
        ),
        (
            (),
            "Flat deposit for Lisbon, 2.000 EUR, I will pay on 20 June from the Revolut card",
            "deposit",
            "2000",
            "Revolut",
        ),
        (
            ("my Amex card has a per payment limit of £3,000",),
            "I'm paying the builder's final bill, £4,200 on 30 June, from the same card",
            "builder",
            "4200",
            "Amex",
        ),
    ],
)
def test_a_planned_payment_said_other_ways(
    earlier: tuple[str, ...], text: str, payee: str, amount: str, account: str
) -> None:
    pays = of("finance.scheduled_payments", found(text, *earlier))
    assert any(
        payee in p["payee"].lower() and str(p["amount"]) == amount and account in p["account"]
        for p in pays
    ), pays


# -- an offer said by how long it lasts -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "provider", "rate", "then", "ends"),
    [
        (
            "Vodafone gave me fibre at 25.00 instead of 45.00 for the first 6 months, from today",
            "Vodafone",
            "25.00",
            "45.00",
            D(2025, 11, 30),
        ),
        (
            "opened a card with Virgin: 0% on purchases for 18 months, after which it reverts to "
            "23.9% APR",
            "Virgin",
            "0%",
            "23.9% APR",
            D(2026, 11, 30),
        ),
    ],
)
def test_an_offer_said_by_its_length(
    text: str, provider: str, rate: str, then: str, ends: D
) -> None:
    promos = of("finance.promotions", found(text))
    assert any(
        p["provider"] == provider
        and p["rate"] == rate
        and p["then"] == then
        and p["ends_on"] == ends
        for p in promos
    ), promos


def test_no_offer_of_someone_else() -> None:
    assert (
        of("finance.promotions", found("my friend got 0% for 12 months with Amex, then 22%")) == []
    )


# -- warranties and return windows after a purchase said without a verb -------------------


@pytest.mark.parametrize(
    ("earlier", "text", "item", "ends", "return_by"),
    [
        (
            ("new dishwasher came today - Bosch Serie 4 from Currys, £499",),
            "5 yr parts and labour guarantee",
            "Bosch Serie 4",
            D(2030, 6, 1),
            None,
        ),
        (
            ("I buy yesterday a new laptop, Lenovo Yoga, 899 € in Fnac",),
            "They say 2 years of garantie and 30 days for return",
            "Lenovo Yoga",
            D(2027, 5, 31),
            D(2025, 6, 30),
        ),
        (
            ("haul: air fryer from argos 89.99",),
            "they gave me till july 10 to return it",
            "air fryer",
            None,
            D(2025, 7, 10),
        ),
    ],
)
def test_terms_after_a_purchase_without_a_verb(
    earlier: tuple[str, ...], text: str, item: str, ends: D | None, return_by: D | None
) -> None:
    ws = of("finance.warranties", found(text, *earlier))
    assert any(
        w["item"] == item and w.get("ends_on") == ends and w.get("return_by") == return_by
        for w in ws
    ), ws


def test_no_terms_when_someone_else_bought_it() -> None:
    ws = of(
        "finance.warranties",
        found("2 year warranty on it", "my sister got an air fryer from argos 89.99"),
    )
    assert ws == []


# -- a medication list, a dose changed, an account closed said object first -----------------


def test_an_account_closed_said_object_first() -> None:
    accts = of(
        "finance.bank_accounts", found("The Santander card I will close at the end of the month.")
    )
    assert any(a["provider"] == "Santander" and a["closing_on"] == D(2025, 6, 30) for a in accts)


# -- a named bill paid; what "it" is opens the sentence ---------------------------------------


def test_a_named_fee_paid() -> None:
    txs = of("finance.transactions", found("Billag fee 365 CHF came today, paid by eBill"))
    assert any(t["merchant"] == "Billag" and t["amount"] == 365 for t in txs), txs


def test_no_fee_paid_when_it_only_came() -> None:
    assert of("finance.transactions", found("Billag fee 365 CHF came today, I pay next week")) == []


def test_what_it_is_opens_the_sentence() -> None:
    txs = of(
        "finance.transactions", found("Kaution is two months rent, 2.300, I sent it yesterday")
    )
    assert txs == [{"amount": 2300, "date": D(2025, 5, 31), "category": "kaution"}], txs


def test_no_payment_of_it_by_someone_else() -> None:
    assert of("finance.transactions", found("the fine was £60, my husband paid it")) == []


# -- a payment ended after a month, said object first; a monthly payment with no method -----


def test_a_payment_ended_after_a_month() -> None:
    pays = of(
        "finance.scheduled_payments",
        found("The old rent to Immobilien Huber (980) I must stop after September"),
    )
    assert pays == [{"payee": "Immobilien Huber", "amount": 980, "ends_on": D(2025, 9, 30)}], pays


def test_a_monthly_payment_with_no_method_named() -> None:
    pays = of(
        "finance.scheduled_payments",
        found("my RD of 5k goes every month on 10th from SBI savings"),
    )
    assert any(
        p["payee"] == "RD"
        and p["amount"] == 5000
        and p.get("day_of_month") == 10
        and "SBI" in p.get("account", "")
        for p in pays
    ), pays


@pytest.mark.parametrize(
    "text",
    ["my salary goes in every month on the 25th", "my sister's rent of 900 goes every month"],
)
def test_no_monthly_payment_coming_in_or_of_others(text: str) -> None:
    assert of("finance.scheduled_payments", found(text)) == []


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
    [paid] = values(text, "finance.transactions")
    assert paid["merchant"] == merchant and paid["category"] == category


def test_an_amount_that_is_only_weighed_is_no_payment() -> None:
    assert values("Another £150 would be too much.", "finance.transactions") == []


@pytest.mark.parametrize(
    ("text", "item", "bought", "ends"),
    [
        (
            "Bought a Bosch dishwasher on 2 March 2025 with a 2-year warranty.",
            "Bosch dishwasher",
            "2025-03-02",
            "2027-03-02",
        ),
        (
            "I bought a new Dyson vacuum yesterday, 2 year warranty.",
            "Dyson vacuum",
            "2027-03-09",
            "2029-03-09",
        ),
        (
            "Got a new laptop from Currys today, warranty is 3 years.",
            "laptop",
            "2027-03-10",
            "2030-03-10",
        ),
    ],
)
def test_a_warranty_said_with_the_purchase(text: str, item: str, bought: str, ends: str) -> None:
    [w] = values(text, "finance.warranties")
    assert (w["item"], str(w["purchased_on"]), str(w["ends_on"])) == (item, bought, ends)


def test_by_says_how_a_bill_is_paid_not_to_whom() -> None:
    [order] = values(
        "I pay £45 a month to the gym by direct debit from my Monzo account.",
        "finance.scheduled_payments",
    )
    assert order["payee"] == "gym" and order["account"] == "Monzo account"


@pytest.mark.parametrize(
    "text",
    [
        "I was SO tired, the rent of 900 euros goes to Frau Albers.",  # "SO" as a word of stress
        "My son goes every month to the dentist, it costs 50 euros.",  # a person, not a payee
        "My pension of 1,200 is paid every month.",  # money coming in
    ],
)
def test_no_payment_instruction_without_one(text: str) -> None:
    assert values(text, "finance.scheduled_payments") == []


def test_dd_and_so_as_payment_words() -> None:
    [dd] = values("I set up a DD for the gym, £30 a month.", "finance.scheduled_payments")
    assert (dd["payee"], dd["method"]) == ("gym", "direct_debit")
    [so] = values("water rates SO goes out on the 12th", "finance.scheduled_payments")
    assert so["method"] == "standing_order" and "SO" not in so["payee"]


@pytest.mark.parametrize("text", ["Firmware 2.14.1 came out.", "Node 18.20.1 is installed."])
def test_a_version_number_is_no_amount(text: str) -> None:
    assert values(text, "finance.transactions") == []


# -- payments someone else made, or made at another time ----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Dinner was 80 euros, Tom paid",
        "Lunch came to £42, my boss paid",
        "Paid £45 at Dishoom, it was on her",
        "drinks were 60 quid but Sam covered it",
        "Rent was 1,000 euros in 2019",
        "Back in 2019 the flat cost me 900 a month",
        "I used to pay £30 at Tesco every week",
    ],
)
def test_no_payment_of_someone_else_or_another_time(text: str) -> None:
    assert of(PAY, found(text)) == []


def test_a_meal_or_kind_of_spending_is_no_merchant() -> None:
    (pay,) = of(PAY, found("Dinner was 80 euros"))
    assert pay["amount"] == Decimal("80") and "merchant" not in pay
    (shop,) = of(PAY, found("Tesco came to £54.20"))
    assert shop["merchant"] == "Tesco" and shop["date"] == AT.date()
    assert of(PAY, found("Rent was 1,000 euros")) == []


def test_a_payment_this_year_or_by_the_users_card_stays() -> None:
    assert of(PAY, found("Uber 23.10 yesterday, I paid"))[0]["date"] == D(2025, 5, 31)
    assert of(PAY, found("Boots came to £14.30 in 2025"))[0]["merchant"] == "Boots"


# -- payees, merchants, banks -------------------------------------------------------------


def test_payee_without_the_method_words() -> None:
    (so,) = of("finance.scheduled_payments", found("council tax DD comes out on the 1st, £180"))
    assert so["payee"] == "council tax" and so["method"] == "direct_debit"


def test_bank_in_lower_case_is_the_account() -> None:
    text = "the council tax direct debit comes out of my nationwide account"
    assert of("finance.scheduled_payments", found(text))[0]["account"] == "nationwide account"


def test_warranty_keeps_the_shop_it_was_bought_from() -> None:
    text = "Got a new laptop from Currys yesterday, 2 year warranty"
    (w,) = of("finance.warranties", found(text))
    assert w["merchant"] == "Currys" and w["ends_on"] == D(2027, 5, 31)


# -- cancellations: done ones only, on the day they were done -----------------------------


@pytest.mark.parametrize(
    "text",
    [
        "cancelling netflix end of june",
        "Netflix will be cancelled on 30 June",
        "gonna cancel spotify before it renews",
    ],
)
def test_a_cancellation_to_come_is_not_done(text: str) -> None:
    assert cancelled(text) == []


def test_a_later_day_is_not_the_day_it_was_cancelled() -> None:
    assert cancelled("Spotify ends on the 20th, I cancelled it") == [AT.date()]
    assert cancelled("cancelled netflix yesterday") == [D(2025, 5, 31)]


# -- money in, charges said other ways, pasted alerts -------------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("the agency paid me 1200 EUR yesterday", "-1200", "EUR"),
        ("customer finally sent me £350", "-350", "GBP"),
        ("got paid 2 500 € for the wedding shoot", "-2500", "EUR"),  # a space groups thousands
        ("the refund of tax, 812 € came in today on my account", "-812", "EUR"),
        ("my flatmate paid me back £20", "-20", "GBP"),  # paid to the user: the user's
    ],
)
def test_money_paid_to_the_user_is_income(text: str, amount: str, currency: str) -> None:
    said = of(PAY, found(text))
    assert [(p["amount"], p.get("currency")) for p in said] == [(Decimal(amount), currency)]


@pytest.mark.parametrize(
    "text",
    ["if they paid me 500 I'd be happy", "my sister got paid 3000 EUR", "the parcel arrived"],
)
def test_no_income_for_wishes_or_others(text: str) -> None:
    assert of(PAY, found(text)) == []


def test_charged_by_a_merchant_typed_in_lower_case() -> None:
    (pay,) = of(PAY, found("got charged 12.50 by deliveroo last night"))
    assert pay == {"date": D(2025, 5, 31), "amount": Decimal("12.50"), "merchant": "Deliveroo"}
    subs = of("finance.subscriptions", found("charged 9.99 by spotify today, monthly"))
    assert subs and subs[0]["amount"] == Decimal("9.99") and subs[0]["period"] == "monthly"


@pytest.mark.parametrize(
    ("text", "amount", "currency", "merchant", "day"),
    [
        (
            "got this sms: 'A/C *9921 DR KES 2,400.00 POS JAVA HOUSE 28-MAY-25 Bal KES 10,020.55'",
            "2400.00",
            "KES",
            "JAVA HOUSE",
            D(2025, 5, 28),
        ),
        ("Debit alert: EUR 64.90 at ZALANDO on 30 May", "64.90", "EUR", "ZALANDO", D(2025, 5, 30)),
        (
            "'Your Bolt ride receipt: PLN 38.50 charged to card ****1234, 31 May 2025'",
            "38.50",
            "PLN",
            "Bolt",
            D(2025, 5, 31),
        ),
    ],
)
def test_pasted_debit_alerts_and_receipts(
    text: str, amount: str, currency: str, merchant: str, day: object
) -> None:
    (pay,) = of(PAY, found(text))
    assert pay == {
        "date": day,
        "amount": Decimal(amount),
        "currency": currency,
        "merchant": merchant,
    }


def test_an_alert_of_someone_else_or_a_doctor_is_no_payment() -> None:
    assert of(PAY, found("my brother got a debit alert of NGN 5,000")) == []
    assert of(PAY, found("Dr Patel said my bloods are fine")) == []


# -- corrections of an amount, subscriptions and budgets said other ways ------------------


@pytest.mark.parametrize(
    "fix",
    ["sorry 14.99 not 12.99", "oops, make that 14.99", "actually it was 14.99", "my bad, 14.99"],
)
def test_a_corrected_amount_supersedes(fix: str) -> None:
    cands = found(fix, "charged 12.99 by netflix today, monthly")
    subs, pays = of("finance.subscriptions", cands), of(PAY, cands)
    assert [s["amount"] for s in subs] == [Decimal("14.99")]
    assert [p["amount"] for p in pays] == [Decimal("14.99")]


def test_a_correction_with_nothing_to_correct_is_refused() -> None:
    assert found("sorry 14.99 not 12.99", "hi there") == []
    assert of(PAY, found("actually 20", "I take sertraline 50mg")) == []


def test_plus_said_as_a_word_is_the_same_service() -> None:
    (sub,) = of("finance.subscriptions", found("i pay for apple tv plus, 8.99 a month"))
    assert sub["name"] == "Apple TV+"


@pytest.mark.parametrize(
    ("text", "category", "limit", "period"),
    [
        ("I want no more than 150 pounds a month on eating out", "eating out", "150", "month"),
        ("we want maximum 80€ per week for the kids things", "kids", "80", "week"),
        ("i want max 40 a week for coffee", "coffee", "40", "week"),
    ],
)
def test_a_limit_the_user_wants_is_a_budget(
    text: str, category: str, limit: str, period: str
) -> None:
    (b,) = of("finance.budgets", found(text))
    assert (b["category"], b["limit"], b["period"]) == (category, Decimal(limit), period)


def test_no_budget_of_someone_else_or_of_things_not_money() -> None:
    assert of("finance.budgets", found("my brother wants no more than 100 a month on games")) == []
    assert of("finance.budgets", found("I want no more than 2 coffees a day")) == []


@pytest.mark.parametrize(
    ("text", "name", "limit"),
    [
        ("Revolut card: £750 per-transaction cap", "Revolut card", "750"),
        ("monzo card has a £300 per payment limit fyi", "monzo card", "300"),
    ],
)
def test_a_card_named_by_its_bank_alone(text: str, name: str, limit: str) -> None:
    (acct,) = of("finance.bank_accounts", found(text))
    assert acct["name"] == name and acct["per_transaction_limit"] == Decimal(limit)


def test_no_card_named_by_a_determiner() -> None:
    assert of("finance.bank_accounts", found("this card has a per payment limit of 100")) == []


def test_an_account_abbreviated() -> None:
    (acct,) = of("finance.bank_accounts", found("closing the Halifax current acct on 30 June"))
    assert acct["provider"] == "Halifax" and acct["closing_on"] == D(2025, 6, 30)


# -- payment instructions said other ways -------------------------------------------------


def test_payee_said_first_then_the_users_clause() -> None:
    (so,) = of(SCHED, found("HMRC we pay by direct debit from mBank, £300 every 31st"))
    assert so["payee"] == "HMRC" and so["account"] == "mBank"
    (so,) = of(SCHED, found("the gym I have on standing order, £25 every 3rd"))
    assert so["day_of_month"] == 3 and so["period"] == "monthly"


@pytest.mark.parametrize(
    ("text", "payee", "day"),
    [
        ("I send money to my dad every month, £150 by bank transfer, every 5th", "dad", 5),
        ("i pay my cleaner 80 EUR every month", "cleaner", None),
    ],
)
def test_a_monthly_payment_the_user_makes(text: str, payee: str, day: int | None) -> None:
    (so,) = of(SCHED, found(text))
    assert so["payee"] == payee and so["period"] == "monthly" and so.get("day_of_month") == day


def test_no_monthly_payment_to_a_pronoun() -> None:
    assert of(SCHED, found("I pay her 300 EUR every month")) == []


def test_a_statement_line_with_a_remark_after_the_money() -> None:
    (pay,) = of(PAY, found("aldi £31.75 after work"))
    assert pay["merchant"] == "aldi" and pay["amount"] == Decimal("31.75")


def test_a_day_written_with_a_dot_after_a_time_word_is_no_payment() -> None:
    assert of(PAY, found("Airbnb in Oslo, check-in 4.06, check-out 9.06")) == []


# -- purchases: the shop said with "in", an article left out, a warranty in another tongue -


def test_the_shop_said_with_in_and_no_place() -> None:
    (pay,) = of(PAY, found("bought a drill in Screwfix saturday, £89"))
    assert pay["merchant"] == "Screwfix" and pay["date"] == D(2025, 5, 31)
    assert of(PAY, found("I bought a coat in Paris for €120")) == []  # a city is no shop


@pytest.mark.parametrize(
    ("text", "item", "months"),
    [
        ("I bought new camera for 2 100 zł in Foto.pl, it has 2 years guarantee", "camera", 24),
        (
            "I bought the frigo (fridge) Bosch at Darty for 899 €, with 2 ans de garantie",
            "Bosch",
            24,
        ),
        ("bought a blender at Argos for £40, 6 month warranty", "blender", 6),
    ],
)
def test_a_warranty_said_in_other_currencies_and_tongues(text: str, item: str, months: int) -> None:
    (w,) = of("finance.warranties", found(text))
    assert item in w["item"] and w["merchant"] and w["purchased_on"] == AT.date()
    ends = w["ends_on"]
    assert (ends.year - AT.year) * 12 + ends.month - AT.month == months


# -- plans to pay with a card, household instructions, offers, drugs given ----------------


def test_a_planned_payment_written_as_a_note() -> None:
    (plan,) = of(SCHED, found("Course fee: £1,200 to the college on 20 June, Monzo card."))
    assert plan["account"] == "Monzo card" and plan["next_date"] == D(2025, 6, 20)
    assert plan["amount"] == Decimal("1200") and plan["period"] == "once"


def test_a_planned_payment_on_a_card_typed_in_lower_case() -> None:
    text = "lisbon flat: €1,800 for june, paying it on the revolut card on 10 june"
    (plan,) = of(SCHED, found(text))
    assert plan["payee"] == "lisbon flat" and plan["account"] == "revolut card"


def test_a_household_instruction_said_of_what_it_will_cost() -> None:
    text = "The nursery will be 540 € per month by direct debit from the joint account, from May"
    (so,) = of(SCHED, found(text))
    assert so["payee"] == "nursery" and so["account"] == "joint account"
    assert so["period"] == "monthly" and so["method"] == "direct_debit"


def test_a_spouses_instruction_for_the_household() -> None:
    text = "oops my wife also made a standing order of 540 € for the nursery from her ING account"
    (so,) = of(SCHED, found(text))
    assert so["payee"] == "nursery" and so["account"] == "ING account"


@pytest.mark.parametrize(
    ("text", "provider", "ends"),
    [
        ("Octopus email, the fixed tariff ends 31 July", "Octopus", D(2025, 7, 31)),
        ("Monzo sent me a message: 0% on card purchases until 30.09", "Monzo", D(2025, 9, 30)),
    ],
)
def test_an_offer_named_by_who_wrote_about_it(text: str, provider: str, ends: object) -> None:
    (promo,) = of("finance.promotions", found(text))
    assert promo["provider"] == provider and promo["ends_on"] == ends


def test_payee_without_a_preposition_and_banks_like_months() -> None:
    (so,) = of(SCHED, found("rent by standing order from Marcus account, £900 monthly"))
    assert so["payee"] == "rent" and so["account"] == "Marcus account"
    (dd,) = of(SCHED, found("gym DD comes out of my monzo account on the 3rd, £30"))
    assert dd["account"] == "monzo account"


# -- pregnancy and vaccinations said other ways --------------------------------------------


def test_instructions_listed_under_a_heading() -> None:
    said = of(SCHED, found("SOs from Monzo: rent £950 (1st); gym £30 (15th)."))
    assert [(s["payee"], s["amount"], s["day_of_month"], s["account"]) for s in said] == [
        ("rent", Decimal("950"), 1, "Monzo"),
        ("gym", Decimal("30"), 15, "Monzo"),
    ]
    assert all(s["method"] == "standing_order" for s in said)


def test_an_instruction_the_thread_knows_moved_by_its_payee() -> None:
    said = of(
        SCHED, found("Gym moved to Starling today.", "direct debits on Monzo: gym £30 (15th)")
    )
    assert {"payee": "gym", "account": "Starling", "method": "direct_debit"}.items() <= said[
        -1
    ].items()
    assert of(SCHED, found("Gym moved to Starling today.")) == []  # nothing known to move


# -- values bound to what they name --------------------------------------------------------


def test_the_model_said_between_commas_names_the_item() -> None:
    text = "I bought new phone, Pixel 9, for 799 € in Fnac.fr, it has 2 years guarantee"
    (w,) = of("finance.warranties", found(text))
    assert w["item"] == "Pixel 9 phone" and w["merchant"] == "Fnac.fr"


def test_the_payees_account_abbreviated() -> None:
    (pay,) = of(PAY, found("rent paid to Mrs Okafor, £800 bank transfer, acct 44120987"))
    assert pay["payee_account"] == "44120987"


def test_a_product_of_a_service_is_its_own_subscription_a_tier_is_not() -> None:
    (sub,) = of("finance.subscriptions", found("Adobe Photoshop monthly plan, 24,59 €"))
    assert sub["name"] == "Adobe Photoshop"
    (sub,) = of("finance.subscriptions", found("Spotify Premium is 11.99 a month"))
    assert sub["name"] == "Spotify"


def test_a_budget_with_its_period_before_the_category() -> None:
    (b,) = of("finance.budgets", found("setting myself a £120 a month takeaway budget"))
    assert b["category"] == "takeaway" and b["period"] == "month"


def test_statement_lines_with_a_size_word_and_this_week() -> None:
    said = of(PAY, found("big asda shop £71.30 today"))
    assert [p["merchant"] for p in said] == ["asda"]
    said = of(PAY, found("tesco £12.10 and boots £8.99 this week"))
    assert [p["merchant"] for p in said] == ["tesco", "boots"]


def test_a_corrected_amount_still_replaces_the_old_one() -> None:
    [sub] = of("finance.subscriptions", found("sorry, 17.99", "My Netflix is £15.99 a month."))
    assert sub["amount"] == Decimal("17.99")
    rent = "My rent is £900 a month, paid by standing order on the 1st."
    [order] = of("finance.scheduled_payments", found("actually 950 not 900", rent))
    assert order["amount"] == Decimal("950")


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("The water bill is £60 every two months by direct debit from my Barclays account",
         "every_two_months"),
        ("Council tax is £95 fortnightly by direct debit from my Monzo account", "fortnightly"),
        ("The electricity bill is £90 a month by direct debit", "monthly"),
    ],
)  # fmt: skip
def test_a_bill_every_fortnight_or_two_months_keeps_its_period(text: str, period: str) -> None:
    assert [p.get("period") for p in of("finance.scheduled_payments", found(text))] == [period]


# -- a list under a heading that names another person is theirs ----------------------------


def test_a_heading_is_no_payee() -> None:
    text = "My direct debits:\nCouncil tax £150 on the 1st"
    assert [v["payee"] for v in of("finance.scheduled_payments", found(text))] == []
    [dd] = of("finance.scheduled_payments", found("the gym direct debit is £32 on the 5th"))
    assert dd["payee"] == "gym"


# -- a question's form asks; a statement's word order with "?" states a surprise ----------


@pytest.mark.parametrize(
    "text",
    [
        "I pay £15 a month for Netflix",
        "I pay £15 a month for Netflix? Is that normal?",  # the user does pay it
        "My Netflix is £15 a month, is that normal?",  # the question is the second clause
        "Netflix is £15 a month now?! when did that happen",  # surprise at a fact
    ],
)
def test_a_statement_with_a_question_after_it_or_surprise_still_asserts(text: str) -> None:
    [sub] = of("finance.subscriptions", found(text))
    assert (sub["name"], sub["amount"]) == ("Netflix", Decimal("15"))


def test_a_surprise_reported_with_a_question_mark_is_a_payment() -> None:
    text = "Hmm, my banking app says I paid £89 at Currys again today?"
    [paid] = of("finance.transactions", found(text))
    assert paid["amount"] == Decimal("89")


# -- a bare number correcting the amount just told ------------------------------------------


@pytest.mark.parametrize("fix", ["actually 950", "sorry, 950", "Sorry 950.", "no, 950 a month"])
def test_a_bare_number_alone_corrects_an_amount_of_its_size(fix: str) -> None:
    [dd] = of("finance.scheduled_payments", found(fix, "rent is £900 a month by standing order"))
    assert (dd["payee"], dd["amount"]) == ("rent", Decimal("950"))
    [sub] = of("finance.subscriptions", found("actually 14", "My Netflix is £12.99 a month"))
    assert sub["amount"] == Decimal("14")


@pytest.mark.parametrize(
    "text",
    ["My Netflix is £15 a month. Sorry, £16.", "My Netflix is £15 a month. actually 16"],
)
def test_an_amount_corrected_in_the_same_message_is_one_record(text: str) -> None:
    assert [s["amount"] for s in of("finance.subscriptions", found(text))] == [Decimal("16")]
    text = "Rent is £900 a month by standing order. sorry 950 not 900"
    assert [p["amount"] for p in of("finance.scheduled_payments", found(text))] == [Decimal("950")]


# -- a day taken back in the same breath -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "path", "key", "day"),
    [
        (
            "Netflix renews on the 5th of December, sorry, the 6th.",
            "finance.subscriptions",
            "renews_on",
            D(2025, 12, 6),
        ),
        (
            "The essay is due 12 March, make that 14 March.",
            "tasks.tasks",
            "due_date",
            D(2026, 3, 14),
        ),
        (
            "Dentist on Tuesday 3pm, I mean Wednesday.",
            "schedule.events",
            "start",
            T(2025, 6, 4, 15, 0),
        ),
    ],
)
def test_a_day_taken_back_is_replaced_by_the_next(text: str, path: str, key: str, day: D) -> None:
    [value] = of(path, found(text))
    assert value[key] == day


# -- money: R$ is the real, a three-letter currency word is a currency -----------------------


def test_r_dollar_is_the_brazilian_real_and_yen_a_currency() -> None:
    [tx] = of("finance.transactions", found("Paid the printer R$ 1.250,00 today", at=AT_MONDAY))
    assert (tx["amount"], tx["currency"]) == (Decimal("1250.00"), "BRL")
    [sub] = of("finance.subscriptions", found("Netflix is R$ 55,90 a month", at=AT_MONDAY))
    assert sub["currency"] == "BRL"
    [tx] = of("finance.transactions", found("I paid $40 to the plumber today", at=AT_MONDAY))
    assert tx["currency"] == "USD"  # a bare dollar is still a dollar
    [card] = of("finance.bank_accounts", found("My JCB card limit is 300,000 yen", at=AT_MONDAY))
    assert (card["limit"], card["currency"]) == (Decimal("300000"), "JPY")


# -- an account closing, named with letters beyond ASCII or as "the X one" -------------------


@pytest.mark.parametrize(
    ("text", "provider", "day"),
    [
        ("the Sparkasse one closes on 15 April, moving to N26", "Sparkasse", D(2025, 4, 15)),
        ("the Société Générale account I will close on 31 March", "Société", D(2025, 3, 31)),
        ("I'm closing my Bradesco account end of this month", "Bradesco", D(2025, 3, 31)),
    ],
)
def test_an_account_closing(text: str, provider: str, day: dt.date) -> None:
    [acct] = of("finance.bank_accounts", found(text, at=AT_MONDAY))
    assert (acct["provider"], acct["closing_on"]) == (provider, day)


@pytest.mark.parametrize(
    "text", ["the Monzo one is great", "the Starling one closes at 5pm on Fridays?"]
)
def test_no_account_closing_without_a_closing_day(text: str) -> None:
    assert of("finance.bank_accounts", found(text, at=AT_MONDAY)) == []


@pytest.mark.parametrize(
    ("text", "amount", "currency", "what", "payer"),
    [
        ("Stipend credited this morning, €1,150.", "-1150", "EUR", "stipend", None),
        ("Wages in: £2,050, finally.", "-2050", "GBP", "wages", None),
        ("pension's gone in, £640.25", "-640.25", "GBP", "pension", None),
        (
            "My salary from Northwind Ltd, 3 400 €, came in today.",
            "-3400",
            "EUR",
            "salary",
            "Northwind Ltd",
        ),
        ("Royalties of $318.40 rolled in on Friday", "-318.40", "USD", "royalties", None),
    ],
)
def test_income_said_with_its_source_or_amount_before_its_arrival(
    text: str, amount: str, currency: str, what: str, payer: str | None
) -> None:
    [pay] = of(PAY, found(text))
    assert (str(pay["amount"]), pay.get("currency"), pay["category"]) == (amount, currency, what)
    assert pay.get("merchant") == payer


@pytest.mark.parametrize(
    "text",
    [
        "My pay went on the car repair, £400.",
        "Her salary came in today, £2,000.",
        "My salary is £3,000 and the invoice came yesterday.",
    ],
)
def test_no_income_from_spending_someone_elses_pay_or_another_clause(text: str) -> None:
    assert [p for p in of(PAY, found(text)) if p["amount"] < 0] == []


@pytest.mark.parametrize(
    ("text", "amount", "currency", "category"),
    [
        ("Paid the driving test fee today, 62 euros.", "62", "EUR", None),
        ("I paid 18.40 CHF for the parking this morning.", "18.40", "CHF", "parking"),
    ],
)
def test_a_payment_with_its_currency_is_recorded_without_a_payee(
    text: str, amount: str, currency: str, category: str | None
) -> None:
    [pay] = of(PAY, found(text))
    assert (str(pay["amount"]), pay["currency"], pay.get("category")) == (
        amount,
        currency,
        category,
    )
    assert pay["date"] == D(2025, 6, 1)


@pytest.mark.parametrize("text", ["Paid 62 for it today.", "I paid her 45 EUR this morning."])
def test_no_payment_without_its_currency_or_with_a_payee_unread(text: str) -> None:
    assert of(PAY, found(text)) == []


def test_an_amount_grouped_by_spaces_is_one_number() -> None:
    [pay] = of(PAY, found("Pension 71 300 drams came today."))
    assert pay["amount"] == Decimal(-71300)


# -- an amount anywhere in its verb's clause, or after a colon, written as money is ----------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # charged: the amount without a currency, pence or grouped thousands say it is money
        ("Spotify billed me 11.99 this morning.", {"merchant": "Spotify", "amount": "11.99"}),
        ("Audible charged me 7.99 on Friday", {"merchant": "Audible", "amount": "7.99"}),
        # paid to the user: the amount after a colon or later in the clause
        ("Got paid on Friday: 1,875.50.", {"amount": "-1875.50", "date": D(2025, 5, 30)}),
        ("I got paid yesterday, 3.200,00 EUR", {"amount": "-3200.00", "currency": "EUR"}),
        ("Finally got paid: 640.00!", {"amount": "-640.00", "date": D(2025, 6, 1)}),
    ],
)
def test_a_money_verb_reads_its_amount_wherever_its_clause_says_it(
    text: str, want: dict[str, object]
) -> None:
    [pay] = of(PAY, found(text))
    for key, value in want.items():
        assert (str(pay[key]) if key == "amount" else pay[key]) == value, pay


@pytest.mark.parametrize(
    "text",
    [
        "Spotify charged me 11.99 km",  # a distance, not money
        "Got paid today: 1,200 steps later I was home.",  # a count
        "Got paid today, the train is at 17.45.",  # a clock time in its own clause
        "Got paid today: call 0161 496 0001.",  # a phone number
        "Got paid today at 34, finally.",  # an age
        "Did you get paid yesterday: 1,875.50?",  # a question
        "If I got paid on Friday: 1,875.50, I'd pay the rent.",  # a supposition
        "My brother got paid yesterday: 1,875.50.",  # someone else's pay
        "Anna got paid on Friday: 2,010.00.",  # a named person's
    ],
)
def test_no_amount_from_a_number_that_is_no_money_or_not_the_users(text: str) -> None:
    assert of(PAY, found(text)) == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "Council tax goes out on the 1st every month, 162.00",
            {"payee": "council tax", "amount": Decimal("162.00"), "day_of_month": 1},
        ),
        (
            "mortgage comes out each month on the 15th: 1.240,00",
            {"payee": "mortgage", "amount": Decimal("1240.00"), "day_of_month": 15},
        ),
        (
            "Rent goes out on the 3rd by standing order, 1,395",
            {"payee": "rent", "amount": Decimal("1395"), "method": "standing_order"},
        ),
    ],
)
def test_a_monthly_bill_reads_its_period_day_and_amount_in_any_order(
    text: str, want: dict[str, object]
) -> None:
    [pay] = of(SCHED, found(text))
    assert want.items() <= pay.items(), pay


@pytest.mark.parametrize(
    "text",
    [
        "Leo goes out every month, 1,150.",  # a person, not a bill
        "My sister's rent goes out every month, 1,150.",  # hers
        "Does the rent go out every month, 1,150?",  # asked
        "Rent goes out on the 28th every month, 1,150 people live here.",  # a count
    ],
)
def test_no_monthly_bill_of_a_person_a_question_or_a_count(text: str) -> None:
    assert of(SCHED, found(text)) == []


# -- a cancellation of something named by its subscription noun stands alone ---------------


@pytest.mark.parametrize(
    ("text", "name", "day"),
    [
        ("Cancelled my climbing gym membership on Thursday.", "climbing gym", D(2025, 5, 29)),
        ("finally got rid of my old phone contract today", "phone", D(2025, 6, 1)),
        ("The language app subscription I cancelled yesterday", "language app", D(2025, 5, 31)),
    ],
)
def test_a_done_cancellation_named_by_what_it_is_for_is_a_record_of_its_own(
    text: str, name: str, day: dt.date
) -> None:
    assert of("finance.subscriptions", [(p, v) for p, v in _ends(text)]) == [
        {"name": name, "cancelled_on": day}
    ]


@pytest.mark.parametrize(
    "text",
    [
        "I still haven't cancelled my gym membership.",  # negated
        "Should I have cancelled the gym membership?",  # asked
        "I'll have cancelled my gym membership by Friday.",  # still to come
        "My partner cancelled her gym membership today.",  # someone else's
        "Jo cancelled the gym membership on Monday, not me.",  # a named person
        "My gym membership will be cancelled on the 30th.",  # to come
    ],
)
def test_no_cancellation_negated_asked_to_come_or_someone_elses(text: str) -> None:
    assert [v for p, v in _ends(text) if p == "finance.subscriptions"] == []


def _ends(text: str) -> list[tuple[str, object]]:
    return [(c.path, c.value) for c in extract(text, AT) if c.op in ("assert", "end")]


@pytest.mark.parametrize(
    ("text", "started"),
    [
        ("been paying 6.99 a month for Audible since February", D(2025, 2, 1)),
        ("I've had Disney+ since last June, £7.99 monthly.", D(2024, 6, 1)),
        ("Spotify since 12 March 2024, 10.99 a month", D(2024, 3, 12)),
    ],
)
def test_a_subscription_said_since_a_month_starts_on_its_first_day(
    text: str, started: dt.date
) -> None:
    [sub] = of("finance.subscriptions", found(text))
    assert sub["started_on"] == started, sub


def test_a_subscription_with_no_since_has_no_start() -> None:
    [sub] = of("finance.subscriptions", found("Audible is 6.99 a month, I got it in February"))
    assert "started_on" not in sub, sub
