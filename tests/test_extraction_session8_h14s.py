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


# -- health: what a drug is for is a condition; a condition said as what the user is --------


@pytest.mark.parametrize(
    ("text", "drug", "condition"),
    [
        ("GP put me on bisoprolol for atrial fibrillation", "bisoprolol", "atrial fibrillation"),
        ("started simvastatin 20mg tonight for my cholesterol", "simvastatin", "cholesterol"),
        ("i take still the doxycycline for the acne", "doxycycline", "acne"),
        ("prescribed me amoxicillin for the sinusitis", "amoxicillin", "sinusitis"),
    ],
)
def test_what_a_drug_is_for_is_a_condition(text: str, drug: str, condition: str) -> None:
    cands = found(text)
    assert any(m["name"] == drug for m in of("health.medications", cands)), cands
    assert any(condition in c["name"] for c in of("health.conditions", cands)), cands


@pytest.mark.parametrize(
    "text",
    [
        "started naproxen for my back",  # a body part, not a condition
        "took paracetamol for a week",
        "my dad takes warfarin for atrial fibrillation",  # someone else's
    ],
)
def test_no_condition_from_what_is_not_one(text: str) -> None:
    assert of("health.conditions", found(text)) == []


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("bloods came back, im borderline diabetic apparently", "borderline diabetes"),
        ("I am asthmatic since childhood", "asthma"),
        ("I have tendonitis in my elbow", "tendonitis"),
        ("got diagnosed with bronchitis on friday", "bronchitis"),
    ],
)
def test_a_condition_said_as_what_the_user_is_or_has(text: str, condition: str) -> None:
    assert any(c["name"] == condition for c in of("health.conditions", found(text))), found(text)


@pytest.mark.parametrize(
    "text",
    [
        "my husband is diabetic",
        "My hepatitis B was in 2019 at the clinic",  # a vaccination, not the illness
        "is she asthmatic?",
    ],
)
def test_no_condition_of_others_or_vaccines(text: str) -> None:
    assert of("health.conditions", found(text)) == []


# -- health: the dose in the next sentence, "I have taken", "I should add" ----------------


def test_the_dose_in_the_next_sentence_completes_one_record() -> None:
    text = "The surgery started me on ramipril today. The dose is 2.5 mg once daily."
    meds = of("health.medications", found(text))
    assert len(meds) == 1 and meds[0]["name"] == "ramipril", meds
    assert meds[0]["dose"].startswith("2.5 mg") and meds[0]["start_date"] == D(2025, 6, 1)


@pytest.mark.parametrize(
    ("text", "drug", "dose"),
    [
        ("I should mention I have taken naproxen for years, normally 250 mg", "naproxen", "250"),
        ("ive always taken cetirizine in summer", "cetirizine", None),
    ],
)
def test_a_drug_taken_for_years(text: str, drug: str, dose: str | None) -> None:
    meds = of("health.medications", found(text))
    assert any(m["name"] == drug and (dose is None or dose in m.get("dose", "")) for m in meds)


def test_i_should_take_is_still_not_a_medication() -> None:
    assert of("health.medications", found("I should take ibuprofen 400 mg maybe")) == []


# -- vaccinations: "this morning" is the message's day ------------------------------------


@pytest.mark.parametrize(
    "text",
    ["had my shingles jab at the surgery this morning", "Got the covid booster this afternoon"],
)
def test_a_vaccination_this_morning(text: str) -> None:
    jabs = of("health.vaccinations", found(text))
    assert jabs and all(j["date"] == D(2025, 6, 1) for j in jabs), jabs


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


# -- identity: "<demonym> passport holder" is the passport's country ------------------------


def test_a_passport_holder_names_the_passport_country() -> None:
    cands = found("Brazilian passport holder here, do I need a visa for Japan?")
    assert of("identity.passport.issuing_country", cands) == ["BR"]
    assert of("identity.nationality", cands) == []


# -- allergies: an aside, a reaction after, the exception to none, "allergic" after it -----


@pytest.mark.parametrize(
    ("text", "substance", "reaction"),
    [
        ("I am, as I said, allergic to aspirin: it makes me wheezy.", "aspirin", "wheezy"),
        ("allergic to amoxicillin, I got hives last time", "amoxicillin", "hives"),
        ("yes i had a rash as a child from penicillin", "penicillin", "rash"),
        ("Im not allergic to anything, only the dog", "dog", None),
        ("no allergies except latex", "latex", None),
        ("no peanuts in it please, I'm allergic", "peanuts", None),
    ],
)
def test_allergies_said_other_ways(text: str, substance: str, reaction: str | None) -> None:
    got = of("health.allergies", found(text))
    assert any(
        a["substance"] == substance and (reaction is None or reaction in a.get("reaction", ""))
        for a in got
    ), got


@pytest.mark.parametrize(
    "text",
    [
        "my son is not allergic to anything except eggs",
        "is he allergic?",
        "not allergic to anything",
    ],
)
def test_no_allergy_of_others_or_none(text: str) -> None:
    assert of("health.allergies", found(text)) == []


# -- body weight after a change ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kg"),
    [("and i've lost a bit more, 71.2 kg this morning", 71.2), ("gained some, 90kg today", 90)],
)
def test_a_weight_after_a_change(text: str, kg: float) -> None:
    assert [w["kg"] for w in of("health.body_weight", found(text))] == [kg]


def test_no_weight_of_someone_else_after_a_change() -> None:
    assert of("health.body_weight", found("he lost a bit, 80kg now")) == []


# -- vehicles: readings grouped the writer's way, the year after the model, dotted dates, ---
# -- a model named in passing, the registration, the last service --------------------------


def test_a_reading_grouped_with_dots_and_the_year_after_the_model() -> None:
    cars = of("vehicles.vehicles", found("Mein Auto: my car is a VW Golf from 2017, 98.300 km"))
    assert any(c.get("year") == 2017 and c.get("mileage") == 98300 for c in cars), cars


def test_an_inspection_with_a_dotted_date() -> None:
    cars = of(
        "vehicles.vehicles",
        found("The TÜV has to be done by 15.09.2025.", "I drive a Skoda Octavia from 2018"),
    )
    assert any(c.get("inspection_due") == D(2025, 9, 15) for c in cars), cars


def test_the_last_service_with_a_dotted_day_and_its_cost() -> None:
    services = of(
        "vehicles.services",
        found(
            "Last service was at the garage in March, on 12.03., new pads, cost 310 EUR",
            "I drive a Skoda Octavia from 2018",
        ),
    )
    assert any(s["date"] == D(2025, 3, 12) and s.get("cost") == Decimal("310") for s in services), (
        services
    )


def test_a_model_in_passing_then_its_registration_and_mot_in_one_record() -> None:
    earlier = ("insurance renewal for the astra is £540, ouch",)
    cars = of("vehicles.vehicles", found("MOT due end of july too. reg is AB12 CDE", *earlier))
    assert any(
        c.get("plate") == "AB12 CDE" and c.get("inspection_due") == D(2025, 7, 31) for c in cars
    ), cars


@pytest.mark.parametrize(
    "text",
    ["my brother's astra failed its MOT", "is the corsa a good first car?"],
)
def test_no_vehicle_of_others_or_asked(text: str) -> None:
    assert of("vehicles.vehicles", found(text)) == []


# -- sentences: a day-first date's dot does not end one ------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "From 1. July the rent is 900 EUR by standing order",
        "serviced on 14.02., cost was 200 EUR",
        "away 6. to 9. August",
    ],
)
def test_a_dotted_date_does_not_end_a_sentence(text: str) -> None:
    from uac.fact_log.extraction.patterns.text import sentences

    assert len(list(sentences(text))) == 1


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


# -- health: supply said as "tablets until", a due date after the pregnancy, a counted dose --


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("amlodipine 5mg daily, got tablets until the 14th of june", D(2025, 6, 14)),
        ("levothyroxine 50 mcg, I have pills till the 20th then need the repeat", D(2025, 6, 20)),
    ],
)
def test_a_supply_said_as_tablets_until(text: str, day: D) -> None:
    meds = of("health.medications", found(text))
    assert any(m.get("supply_until") == day for m in meds), meds


def test_a_due_date_after_the_pregnancy_in_one_record() -> None:
    conds = of("health.conditions", found("I am pregnant!! due 3 December"))
    assert conds == [{"name": "pregnancy", "status": "active", "expected_end": D(2025, 12, 3)}]


def test_the_midwife_gives_the_date_after_the_pregnancy() -> None:
    cands = found("the midwife says the date is for 2 of January", "I'm pregnant, 8 weeks")
    assert any(c.get("expected_end") == D(2026, 1, 2) for c in of("health.conditions", cands)), (
        cands
    )


def test_no_due_date_of_a_bill_without_a_pregnancy() -> None:
    assert of("health.conditions", found("due 3 December, the council tax")) == []


@pytest.mark.parametrize(
    ("text", "drug"),
    [("I took two nurofen after lunch", "nurofen"), ("took 2 paracetamol this morning", None)],
)
def test_a_counted_dose_taken(text: str, drug: str | None) -> None:
    names = [m["name"] for m in of("health.medications", found(text))]
    assert names == ([drug] if drug else []) or (drug is None and names in ([], ["paracetamol"]))


def test_no_medication_from_took_without_a_count() -> None:
    assert of("health.medications", found("last night I took some melatonin")) == []


def test_a_reaction_named_alone_after_the_allergy() -> None:
    got = of("health.allergies", found("fun fact im allergic to aspirin, hives as a teenager"))
    assert got == [{"substance": "aspirin", "reaction": "hives"}], got


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


# -- vehicles: the make after "my", "last service <date>", a reading the car shows ---------


def test_the_make_after_my_and_the_service_with_its_next_reading() -> None:
    cands = found(
        "My Skoda Octavia from 2016 has now 143.900 km. "
        "Last service 03.03.2025, next one at 160.000 km"
    )
    cars = of("vehicles.vehicles", cands)
    assert any(c.get("year") == 2016 and c.get("mileage") == 143900 for c in cars), cars
    services = of("vehicles.services", cands)
    assert any(
        s["date"] == D(2025, 3, 3) and s.get("next_due_mileage") == 160000 and "mileage" not in s
        for s in services
    ), services


def test_a_reading_the_car_shows() -> None:
    cars = of("vehicles.vehicles", found("after the trip to Scotland the Octavia shows 151.200 km"))
    assert [c.get("mileage") for c in cars] == [151200], cars


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


def test_every_drug_of_a_list_headed_as_mine() -> None:
    text = "my meds are: sertraline 50mg, omeprazole twenty at night, and no more ibuprofen"
    names = [m["name"] for m in of("health.medications", found(text))]
    assert sorted(names) == ["omeprazole", "sertraline"], names


def test_no_drugs_of_someone_elses_list() -> None:
    assert of("health.medications", found("my dad's medication list: ramipril, bisoprolol")) == []


def test_a_dose_changed_from_today() -> None:
    meds = of(
        "health.medications",
        found("the clinic has increased my levothyroxine to 100 mcg from today"),
    )
    assert meds == [{"name": "levothyroxine", "dose": "100 mcg", "start_date": D(2025, 6, 1)}], meds


def test_no_dose_change_of_someone_else() -> None:
    assert of("health.medications", found("my dad's GP changed his warfarin to 5 mg")) == []


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
