"""Constructs the rules must cover (issue 14, session 9, h16s): a value said after a thing
completes only what the user owns; payments someone else made or made at another time are not
the user's today; an allergy needs an allergen; a payee, a merchant, a bank typed in lower
case; a cancellation still to come; an odometer reading chosen by its relation to its cue.
Sentences invented here in several registers (terse, lowercase, non-native, dictated, pasted),
negatives alongside. AT is Sunday 1 June 2025 (tests/candidates.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from candidates import AT, D, found, of

MEDS = "health.medications"
PAY = "finance.transactions"


# -- a dose completes only a drug the user takes ------------------------------------------


@pytest.mark.parametrize(
    "lines",
    [
        ("My mum takes warfarin. The dose is 3 mg.",),
        ("my dad is on metoprolol", "i take 50 mg in the morning"),
        ("Is ibuprofen okay with my tablets? The dose is 400 mg",),
        ("what if I took naproxen instead", "dose would be 250mg"),
        ("Bought some calpol for my daughter.", "the dose is 5 ml"),
        ("She's on sertraline now. The dose is 50mg.",),
    ],
)
def test_dose_never_completes_someone_elses_or_an_asked_drug(lines: tuple[str, ...]) -> None:
    *earlier, last = lines
    if earlier:
        assert not of(MEDS, found(last, *earlier))
    else:
        assert not [v for v in of(MEDS, found(last)) if v.get("dose")]


def test_dose_completes_the_users_drug() -> None:
    assert of(MEDS, found("I started warfarin yesterday. The dose is 3 mg."))[0]["dose"] == "3 mg"
    said = of(MEDS, found("i take 500 mg with breakfast", "picked up my metformin"))
    assert said and said[0]["name"] == "metformin" and said[0]["dose"].startswith("500 mg")


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


# -- an allergy names an allergen ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["I'm allergic to Mondays haha", "im allergic to my job lol", "I am allergic to hard work"],
)
def test_allergic_to_something_no_one_is_allergic_to(text: str) -> None:
    assert of("health.allergies", found(text)) == []


@pytest.mark.parametrize(
    ("text", "substance"),
    [
        ("I am allergic to kiwi", "kiwi"),
        ("turns out im allergic to clindamycin", "clindamycin"),
        ("allergic to bee stings since a kid", "bee stings"),
        ("I'm allergic to plasters", "plasters"),
        ("allergic to sulfa drugs", "sulfa drugs"),
    ],
)
def test_allergens_beyond_the_lists(text: str, substance: str) -> None:
    assert [v["substance"] for v in of("health.allergies", found(text))] == [substance]


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


def cancelled(text: str, *earlier: str) -> list[object]:
    from uac.fact_log.extraction.patterns import extract

    history = [(line, AT) for line in earlier]
    return [
        c.value.get("cancelled_on")
        for c in extract(text, AT, history=history)
        if c.path == "finance.subscriptions" and "cancelled_on" in c.value
    ]


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


# -- an odometer reading is not the service target ----------------------------------------


@pytest.mark.parametrize(
    ("text", "km"),
    [
        ("My Golf needs a service at 60,000 miles, it's on 58,200 now", 93664),
        ("my VW Golf is due a service at 60,000 miles and has 58,200 miles on it", 93664),
        ("My Yaris is due its next service at 100,000 km", None),
        ("my corsa does a service every 10,000 km, currently 43,500 km", 43500),
    ],
)
def test_odometer_reading_not_the_target(text: str, km: int | None) -> None:
    (car,) = of("vehicles.vehicles", found(text))
    assert car.get("mileage") == km


# -- health constructs of new writers ------------------------------------------------------


def meds(text: str, *earlier: str) -> list[dict[str, object]]:
    return of(MEDS, found(text, *earlier))


@pytest.mark.parametrize(
    ("text", "dose"),
    [
        ("on metformin 850 bd with meals", "850 bd"),  # a clinician's abbreviation
        ("I take omeprazole 20mg OD", "20mg OD"),
        ("they gave me co-codamol 8/500 for the pain", "8/500"),  # a combination's strength
        ("still taking lansoprazole 15 nocte", "15 nocte"),
    ],
)
def test_doses_written_as_prescriptions_are(text: str, dose: str) -> None:
    (med,) = meds(text)
    assert str(med["dose"]).startswith(dose), med


def test_a_date_after_a_drug_is_no_strength() -> None:
    assert all("/" not in str(m.get("dose", "")) for m in meds("been on warfarin since 12/05"))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("also take a low-dose aspirin every night", "aspirin"),
        ("the GP placed me on ramipril this morning", "ramipril"),
        ("doc put me back on sertraline", "sertraline"),
    ],
)
def test_drug_after_a_kind_or_another_start_verb(text: str, name: str) -> None:
    assert [m["name"] for m in meds(text)] == [name]


@pytest.mark.parametrize(
    "line",
    [
        "the dose went up to 75mg yesterday",
        "and my dose was increased to 75mg",
        "they upped my dose to 75mg last week",
    ],
)
def test_a_new_dose_of_the_drug_talked_about(line: str) -> None:
    said = meds(line, "I'm on venlafaxine 37.5mg")
    assert said and said[0]["name"] == "venlafaxine" and said[0]["dose"].startswith("75mg")


def test_a_supply_said_with_the_drug_in_the_sentence() -> None:
    said = meds("picked up 30 days of citalopram, that gets me to the 28th")
    assert said == [{"name": "citalopram", "supply_until": D(2025, 6, 28)}]
    assert meds("my mum got 30 days of citalopram, that gets her to the 28th") == []


@pytest.mark.parametrize(
    "text",
    [
        "is it ok to drink on sertraline",  # asked without a question mark
        "can i take ibuprofen with my warfarin",
        "should I take my metformin before food",
    ],
)
def test_questions_without_a_question_mark_teach_nothing(text: str) -> None:
    assert meds(text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I have also asthma since childhood", "asthma"),  # non-native word order
        ("i have often migraines in winter", "migraines"),
        ("bisoprolol 2.5 mg for the BP", "hypertension"),
    ],
)
def test_conditions_said_other_ways(text: str, name: str) -> None:
    assert name in [c["name"] for c in of("health.conditions", found(text))]


@pytest.mark.parametrize(
    ("text", "substance", "reaction"),
    [
        ("I'm allergic to ibuprofen by the way, told the nurse", "ibuprofen", None),
        ("allergic to codeine btw so they gave me something else", "codeine", None),
        ("Allergies: aspirin (wheezing).", "aspirin", "wheezing"),
        ("im allergic to peanuts and all tree nuts, my lips are swelling", "tree nuts", "swelling"),
    ],
)
def test_allergy_values_without_the_remark(text: str, substance: str, reaction: str | None) -> None:
    said = {a["substance"]: a.get("reaction") for a in of("health.allergies", found(text))}
    assert substance in said and said[substance] == reaction, said


def test_weight_after_a_clock_time() -> None:
    (w,) = of("health.body_weight", found("weighed myself at 6am before the run, 71.3 kg"))
    assert w["kg"] == 71.3


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


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("4 299 zł", "4299", "PLN"),
        ("NGN 45,000.00", "45000.00", "NGN"),
        ("EUR 40", "40", "EUR"),
        ("300 dirhams", "300", "AED"),
    ],
)
def test_money_written_the_way_other_countries_write_it(
    text: str, amount: str, currency: str
) -> None:
    from uac.fact_log.extraction.patterns.money import find_money

    (m,) = find_money(text)
    assert (m.amount, m.currency) == (Decimal(amount), currency)


def test_no_money_from_codes_that_are_not_currencies() -> None:
    from uac.fact_log.extraction.patterns.money import find_money

    assert find_money("flight BA 123 lands at 9") == []
    assert find_money("I have 2 100 reasons") == []


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

SCHED = "finance.scheduled_payments"


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
def test_a_warranty_said_with_the_purchase(text: str, item: str, months: int) -> None:
    (w,) = of("finance.warranties", found(text))
    assert item in w["item"] and w["merchant"] and w["purchased_on"] == AT.date()
    ends = w["ends_on"]
    assert (ends.year - AT.year) * 12 + ends.month - AT.month == months


# -- vehicles: named by their kind, farm vehicles, services said tersely -------------------

CARS = "vehicles.vehicles"
SERVICES = "vehicles.services"


def test_a_vehicle_said_as_what_its_kind_is() -> None:
    (car,) = of(CARS, found("the pickup is a 2018 hilux, 140,000 km on it"))
    assert car == {
        "make": "Toyota",
        "model": "Hilux",
        "year": 2018,
        "mileage": 140000,
        "mileage_on": AT.date(),
    }
    assert of(CARS, found("my neighbour's van is a 2018 hilux")) == []


def test_an_inspection_by_its_countrys_name() -> None:
    said = of(CARS, found("the NCT is due the 30th of june", "my car is a 2012 corolla"))
    assert said and said[0]["inspection_due"] == D(2025, 6, 30)


def test_a_service_named_by_make_and_model_with_its_one_amount() -> None:
    cands = found("tractor went in for the service friday, massey ferguson 5713, €520 all in")
    assert of(CARS, cands) == [{"make": "Massey Ferguson", "model": "5713"}]
    (svc,) = of(SERVICES, cands)
    assert svc["vehicle"] == "Massey Ferguson 5713" and svc["cost"] == Decimal("520")


def test_a_terse_service_with_its_next_reading_and_a_year() -> None:
    (svc,) = of(
        SERVICES,
        found("corolla service done, 98,400 km on the clock, €310, next at 113,400 or a year"),
    )
    assert svc["mileage"] == 98400 and svc["next_due_mileage"] == 113400
    assert svc["next_due_date"] == D(2026, 6, 1) and svc["cost"] == Decimal("310")


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


def test_a_drug_whoever_gave_it_but_not_a_device_after_and() -> None:
    (med,) = meds("the farmacia gave me amoxicillin 500, three times a day")
    assert med["name"] == "amoxicillin" and med["dose"].startswith("500")
    assert meds("I'm allergic to bees and gave the nurse my EpiPen") == []


def test_payee_without_a_preposition_and_banks_like_months() -> None:
    (so,) = of(SCHED, found("rent by standing order from Marcus account, £900 monthly"))
    assert so["payee"] == "rent" and so["account"] == "Marcus account"
    (dd,) = of(SCHED, found("gym DD comes out of my monzo account on the 3rd, £30"))
    assert dd["account"] == "monzo account"


# -- pregnancy and vaccinations said other ways --------------------------------------------


def test_a_due_date_said_as_the_term_beats_one_counted_from_weeks() -> None:
    text = "big news, I am pregnant (9 weeks!!), the term is expected for the 14/01."
    (preg,) = of("health.conditions", found(text))
    assert preg["name"] == "pregnancy" and preg["expected_end"] == D(2026, 1, 14)


def test_weeks_said_after_pregnant() -> None:
    (preg,) = of("health.conditions", found("I'm pregnant, 20 weeks now"))
    assert preg["expected_end"] == D(2025, 10, 19)


def test_no_due_date_from_a_term_that_is_not_one() -> None:
    assert of("health.conditions", found("the long-term plan is 5 years")) == []


def test_vaccinations_listed_under_the_users_heading() -> None:
    said = of("health.vaccinations", found("Jabs I've had: tetanus 3 May 2021, rabies, hep A"))
    assert [(v["name"], v.get("date")) for v in said] == [
        ("tetanus", D(2021, 5, 3)),
        ("rabies", None),
        ("hepatitis a", None),
    ]
    assert of("health.vaccinations", found("vaccinations needed: rabies, typhoid")) == []


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


def test_a_member_of_an_allergen_group_named_whole_is_the_group() -> None:
    said = of("health.allergies", found("allergic to prawns and all shellfish, my face gets puffy"))
    assert [a["substance"] for a in said] == ["shellfish"]


def test_the_model_said_between_commas_names_the_item() -> None:
    text = "I bought new phone, Pixel 9, for 799 € in Fnac.fr, it has 2 years guarantee"
    (w,) = of("finance.warranties", found(text))
    assert w["item"] == "Pixel 9 phone" and w["merchant"] == "Fnac.fr"


def test_the_payees_account_abbreviated() -> None:
    (pay,) = of(PAY, found("rent paid to Mrs Okafor, £800 bank transfer, acct 44120987"))
    assert pay["payee_account"] == "44120987"


def test_a_start_counted_from_the_next_departure() -> None:
    said = meds(
        "the travel nurse gave me Malarone, to start 2 days before I fly",
        "flying to Nairobi on 20 June, back 4 July",
    )
    assert said and said[0]["start_date"] == D(2025, 6, 18)


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
