"""Constructs the rules must cover (issue 14, session 6, h14z), in sentences invented here.

Each family was named from a miss on blind2 (tuning data from session 6) in health, finance,
money, vehicles and identity; the sentences below are other words for the construct,
written before the rules. Negative cases must find nothing of the path: other people's
facts, questions, hypotheticals and plans.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from candidates import AT, D, found, of

from uac.fact_log.extraction.patterns.money import find_money

# -- medications: a known drug with its dose, whatever the verb ------------------------


@pytest.mark.parametrize(
    ("earlier", "text", "name", "dose"),
    [
        # the drug from the reference data and a dose beside it carry the fact, not the verb
        ((), "The consultant put sertraline 50mg on my chart, once a day", "sertraline", "50mg"),
        ((), "Nurse handed me amoxicillin 250 mg three times a day", "amoxicillin", "250 mg"),
        ((), "omeprazole 20mg every morning from now on", "omeprazole", "20mg"),
        ((), "I'm also on amlodipine 5 mg, have been for years", "amlodipine", "5 mg"),
        # "on <drug>" after any predicate
        ((), "Asthma is kept in check on salbutamol", "salbutamol", None),
        ((), "been on levothyroxine since my twenties", "levothyroxine", None),
        # a bare dose line continues the drug just named
        (("Started on levetiracetam last month.",), "500 mg twice daily", "levetiracetam", "500"),
    ],
)
def test_a_drug_with_its_dose(earlier: tuple[str, ...], text: str, name: str, dose: Any) -> None:
    meds = of("health.medications", found(text, *earlier))
    assert any(m["name"] == name for m in meds), meds
    if dose:
        assert any(dose in (m.get("dose") or "") for m in meds if m["name"] == name), meds


@pytest.mark.parametrize(
    "text",
    [
        "My husband takes lisinopril 10mg",
        "she's on warfarin 3mg",
        "her dad is on metformin",
        "if they put me on atorvastatin 20mg would that be bad?",
        "is sertraline 50mg a high dose?",
        "the pharmacist said ibuprofen 400mg is fine for most people",
        "a friend swears by melatonin 3mg",
    ],
)
def test_no_medication_of_someone_else_or_asked(text: str) -> None:
    assert of("health.medications", found(text)) == []


def test_a_dose_line_needs_a_drug_before_it() -> None:
    assert of("health.medications", found("500 mg twice daily")) == []


# -- conditions and body weight --------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "text", "name"),
    [
        ((), "Diagnosed with asthma as a kid", "asthma"),
        ((), "got diagnosed with coeliac disease in March", "coeliac disease"),
        ((), "12 weeks pregnant as of today", "pregnancy"),
        (("Started ramipril today.",), "That's mostly for the high blood pressure", "hypertension"),
        (("I take citalopram 20mg.",), "it's really for the depression", "depression"),
    ],
)
def test_condition_forms(earlier: tuple[str, ...], text: str, name: str) -> None:
    conds = of("health.conditions", found(text, *earlier))
    assert any(c["name"] == name for c in conds), conds


@pytest.mark.parametrize(
    "text",
    [
        "my sister was diagnosed with asthma",
        "she's 30 weeks pregnant",
        "It's for the diabetes clinic next week?",
    ],
)
def test_no_condition_of_someone_else(text: str) -> None:
    assert of("health.conditions", found(text)) == []


@pytest.mark.parametrize(
    ("text", "kg"),
    [
        ("my weight this morning was 72.5 kg", 72.5),
        ("weight at the GP: 80 kg", 80.0),
        ("scales said 64.3kg today", 64.3),
        ("Weigh-in at the gym showed 91 kilos", 91.0),
    ],
)
def test_body_weight_said_as_a_reading(text: str, kg: float) -> None:
    weights = of("health.body_weight", found(text))
    assert [w["kg"] for w in weights] == [kg]
    assert weights[0]["date"] == AT.date()


@pytest.mark.parametrize(
    "text", ["my son's weight was 30 kg", "her weight is 55 kg", "my target weight is 70 kg"]
)
def test_no_weight_of_others_or_wishes(text: str) -> None:
    assert of("health.body_weight", found(text)) == []


# -- money and payments ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("sixty two pounds fifty", "62.50", "GBP"),
        ("two hundred and forty quid", "240", "GBP"),
        ("a hundred euros", "100", "EUR"),
        ("twelve dollars", "12", "USD"),
    ],
)
def test_money_in_words(text: str, amount: str, currency: str) -> None:
    [m] = find_money(text)
    assert (m.amount, m.currency) == (Decimal(amount), currency)


def test_words_that_are_not_money() -> None:
    assert find_money("one of the pounds was lost, two dogs") == []


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


@pytest.mark.parametrize(
    ("text", "start"),
    [
        # an offset from a day said later in the sentence is the start
        ("prednisolone 40mg, starting three days before my surgery on 20 June", D(2025, 6, 17)),
        # "starting"/"start" look ahead: the next such day, not the last one
        ("sertraline 50 mg, start on the 4th", D(2025, 6, 4)),
        ("ramipril 5mg from tomorrow", D(2025, 6, 2)),
    ],
)
def test_a_medication_start_said_ahead(text: str, start: Any) -> None:
    [med] = of("health.medications", found(text))
    assert med["start_date"] == start


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


@pytest.mark.parametrize(
    "text",
    [
        "almost out of pills, running short on omeprazole",
        "I read up on sertraline last night",
        "any advice on metformin side effects",
    ],
)
def test_on_a_drug_that_is_not_taking_it(text: str) -> None:
    assert of("health.medications", found(text)) == []


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


# -- vehicles: a service told in steps, the car named by its model -------------------------


def test_a_service_told_over_several_lines() -> None:
    lines = [
        "dropped the Golf in for its service this morning, 91,200 km on the clock",
        "£340 for brakes and a new battery",
        "next one due in 12 months or 20,000 km, whichever is first",
        "it's a 2016 Volkswagen, still runs fine",
    ]
    first = of("vehicles.services", found(lines[0]))
    assert [(s["vehicle"], s["date"], s["mileage"]) for s in first] == [
        ("Volkswagen Golf", AT.date(), 91200)
    ]
    cost = of("vehicles.services", found(lines[1], *lines[:1]))
    assert [(s["vehicle"], s["date"], s["cost"]) for s in cost] == [
        ("Volkswagen Golf", AT.date(), Decimal("340"))
    ]
    due = of("vehicles.services", found(lines[2], *lines[:2]))
    assert [(s["next_due_date"], s["next_due_mileage"]) for s in due] == [(D(2026, 6, 1), 111200)]
    car = of("vehicles.vehicles", found(lines[3], *lines[:3]))
    assert [(c["make"], c["model"], c["year"]) for c in car] == [("Volkswagen", "Golf", 2016)]


@pytest.mark.parametrize(
    "text",
    [
        "my brother took his Golf in for a service today",
        "should I take the Golf in for a service?",
        "is that a good price for a 2016 Volkswagen?",
    ],
)
def test_no_vehicle_facts_of_others_or_asked(text: str) -> None:
    got = found(text, "I drive a Volkswagen Golf.")
    assert of("vehicles.services", got) == [] and of("vehicles.vehicles", got) == []


def test_a_cost_line_needs_a_service_before_it() -> None:
    assert of("vehicles.services", found("£340 for brakes and a new battery")) == []


# -- allergies as reactions, and one more said elliptically --------------------------------


@pytest.mark.parametrize(
    ("earlier", "text", "substance", "reaction"),
    [
        ((), "prawns make my lips swell up", "prawns", "swell"),
        ((), "I'm ok with dairy but peanuts give me hives", "peanuts", "hives"),
        ((), "penicillin brings me out in a rash", "penicillin", "rash"),
        (("I'm allergic to cats.",), "also wasp stings, bad swelling", "wasp stings", "swelling"),
        (
            ("Penicillin gives me hives.",),
            "and sticking plasters, just itching",
            "sticking plasters",
            "itching",
        ),
    ],
)
def test_allergy_as_a_reaction(
    earlier: tuple[str, ...], text: str, substance: str, reaction: str
) -> None:
    got = of("health.allergies", found(text, *earlier))
    assert any(
        a["substance"] == substance and reaction in (a.get("reaction") or "") for a in got
    ), got


@pytest.mark.parametrize(
    ("earlier", "text"),
    [
        ((), "my son's face swells up with peanuts"),
        ((), "does shellfish make your throat swell?"),
        ((), "also the weather, just grey"),  # nothing before it to continue
        (("I'm allergic to cats.",), "also tomorrow, just a reminder"),
    ],
)
def test_no_allergy_of_others_or_without_one_before(earlier: tuple[str, ...], text: str) -> None:
    assert of("health.allergies", found(text, *earlier)) == []


# -- vaccinations said as a dose or a past year; medication corrections and supply ---------


@pytest.mark.parametrize(
    ("text", "name", "date"),
    [
        ("had hep A dose 2 this morning", "hepatitis a", AT.date()),
        ("first typhoid dose done today", "typhoid", AT.date()),
        ("my last tetanus was 2018", "tetanus", None),
    ],
)
def test_vaccination_forms(text: str, name: str, date: Any) -> None:
    got = of("health.vaccinations", found(text))
    assert any(v["name"].lower() == name and v.get("date") == date for v in got), got


def test_a_vaccination_planned_is_none() -> None:
    assert of("health.vaccinations", found("typhoid dose 2 is next week")) == []


def test_a_start_day_corrected_after_the_drug() -> None:
    earlier = ("GP put me on citalopram 10mg, started Monday",)
    got = of("health.medications", found("sorry no, I started on Tuesday", *earlier))
    assert [(m["name"], m["start_date"]) for m in got] == [("citalopram", D(2025, 5, 27))]


def test_a_supply_end_after_the_drug() -> None:
    earlier = ("I inject semaglutide 1mg weekly",)
    got = of("health.medications", found("the pen I've got lasts until the 14th", *earlier))
    assert [(m["name"], m["supply_until"]) for m in got] == [("semaglutide", D(2025, 6, 14))]


def test_a_drug_said_to_work_keeps_its_dose() -> None:
    [med] = of("health.medications", found("the wegovy is doing its job, 1mg once a week"))
    assert (med["name"], med["dose"]) == ("wegovy", "1mg once a week")


# -- identity ----------------------------------------------------------------------------


def test_a_passport_the_user_has_gives_its_country() -> None:
    got = found("I have Brazilian passport, so I need to check the visa rules")
    assert of("identity.passport.issuing_country", got) == ["BR"]
    # a passport is not a nationality (blind2 b2s03-03, blind3 b3s07-03 and b3s54-03 agree)
    assert of("identity.nationality", got) == []


def test_someone_elses_passport_gives_nothing() -> None:
    got = found("my wife has a Brazilian passport")
    assert of("identity.passport.issuing_country", got) == [] == of("identity.nationality", got)


@pytest.mark.parametrize(
    ("text", "name", "city"),
    [
        ("hi, I'm Tomasz Nowak, 41, living in Leeds", "Tomasz Nowak", "Leeds"),
        ("My name's Sara Kim and I'm based in Manchester", "Sara Kim", "Manchester"),
        ("I live in Lisbon now, moved last year", None, "Lisbon"),
        ("this is Aoife Byrne btw", "Aoife Byrne", None),
    ],
)
def test_name_and_home_city(text: str, name: str | None, city: str | None) -> None:
    got = found(text)
    assert of("identity.name", got) == ([name] if name else [])
    assert of("places.address.city", got) == ([city] if city else [])


@pytest.mark.parametrize(
    "text",
    [
        "my sister lives in Leeds",
        "I'm British, living abroad",
        "I'm Going Home tomorrow",
        "should I live in Lisbon?",
        "I'd love living in Lisbon",
    ],
)
def test_no_name_or_city_from_others_or_wishes(text: str) -> None:
    got = found(text)
    assert of("identity.name", got) == [] == of("places.address.city", got)


# -- more constructs: readings with a wish after them, a doctor's instruction the user took,
# bills without an article, closing said without "I", per-payment limits before the word,
# charges after a lead-in, reactions after a substance, a service on a model, spending caps


def test_a_reading_with_a_wish_after_it() -> None:
    got = of(
        "health.body_weight",
        found("weighed myself at the pharmacy, 52 kg, the nurse wants me to put on weight"),
    )
    assert [w["kg"] for w in got] == [52.0]


def test_a_doctors_instruction_the_user_started() -> None:
    got = of(
        "health.medications", found("doctor says prednisolone 30mg daily, started it this morning")
    )
    assert [(m["name"], m["dose"]) for m in got] == [("prednisolone", "30mg daily")]


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


def test_a_reaction_after_a_substance() -> None:
    got = of("health.allergies", found("as a teenager I had anaphylaxis after penicillin"))
    assert [(a["substance"], a.get("severity")) for a in got] == [("penicillin", "anaphylaxis")]


def test_a_service_of_a_named_model_with_its_next_due_day() -> None:
    got = of(
        "vehicles.services",
        found("the Corolla had its service on 3 March, the next one is due 3 March 2026"),
    )
    assert [(s["vehicle"], s["date"], s.get("next_due_date")) for s in got] == [
        ("Toyota Corolla", D(2025, 3, 3), D(2026, 3, 3))
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


def test_a_past_reaction_told_with_when() -> None:
    got = of("health.allergies", found("When I was small I had hives after penicillin"))
    assert [a["substance"] for a in got] == ["penicillin"]


def test_a_supply_said_with_the_drug() -> None:
    text = "amlodipine 5mg daily, got a new box today and it lasts me until 12 August"
    [med] = of("health.medications", found(text))
    assert (med["name"], med["supply_until"]) == ("amlodipine", D(2025, 8, 12))


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
    # session 7 (h14q): the move is understood: the old instruction ends on its last payment,
    # the new one goes on from the new account (no second live instruction on the old one)
    earlier = ("The yoga direct debit comes out of my Nationwide account, £40 monthly.",)
    text = "Moved the yoga direct debit to Starling today, the last Nationwide one was 2 May."
    got = of("finance.scheduled_payments", found(text, *earlier))
    assert [(p["account"], p.get("ends_on")) for p in got] == [
        ("Nationwide account", D(2025, 5, 2)),
        ("Starling account", None),
    ]


# -- vehicles: the roadworthiness inspection (MOT, TÜV) due (lead, session 6) ---------------

CARS = {("Ford", "Fiesta", None), ("Skoda", "Octavia", 2017), ("Volkswagen", "Golf", None)}


@pytest.mark.parametrize(
    ("text", "earlier", "due"),
    [
        ("the MOT on the Fiesta is due 14 March", (), D(2026, 3, 14)),
        ("its TÜV expires end of May", ("We drive a 2017 Skoda Octavia.",), D(2026, 5, 31)),
        ("car inspection needs doing by the 30th", ("I drive a Volkswagen Golf.",), D(2025, 6, 30)),
    ],
)
def test_an_inspection_due_day_is_the_vehicles(text: str, earlier: tuple, due: Any) -> None:
    [car] = of("vehicles.vehicles", found(text, *earlier))
    assert car["inspection_due"] == due
    assert (car["make"], car["model"], car.get("year")) in CARS  # the record talked about


@pytest.mark.parametrize(
    ("text", "earlier"),
    [
        ("my sister's MOT is due 14 March", ("I drive a Volkswagen Golf.",)),
        ("when is the MOT due?", ("I drive a Volkswagen Golf.",)),
        ("the MOT is due 14 March", ()),  # which vehicle? none talked about
    ],
)
def test_no_inspection_of_others_asked_or_of_no_vehicle(text: str, earlier: tuple) -> None:
    got = [v for v in of("vehicles.vehicles", found(text, *earlier)) if "inspection_due" in v]
    assert got == []


# -- a pregnancy's due date (lead, session 6) ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "earlier", "due"),
    [
        ("I'm 12 weeks pregnant!", (), D(2025, 12, 14)),  # 28 weeks after the message
        ("we're expecting our first, due 2 April", (), D(2026, 4, 2)),
        ("the baby is due 27 July", (), D(2025, 7, 27)),
        ("my due date is 14 February", ("I am pregnant.",), D(2026, 2, 14)),
    ],
)
def test_a_pregnancy_keeps_its_due_date(text: str, earlier: tuple, due: dt.date) -> None:
    [state] = of("health.conditions", found(text, *earlier))
    assert state == {"name": "pregnancy", "status": "active", "expected_end": due}


@pytest.mark.parametrize(
    ("text", "earlier"),
    [
        ("my sister's baby is due 27 July", ()),  # someone else's: no condition, no task
        ("my due date is 14 February", ()),  # a due date of what? no pregnancy said
        ("is the baby due in July?", ()),
    ],
)
def test_no_due_date_of_others_or_of_nothing(text: str, earlier: tuple) -> None:
    got = found(text, *earlier)
    assert of("health.conditions", got) == [] and of("tasks.tasks", got) == []
