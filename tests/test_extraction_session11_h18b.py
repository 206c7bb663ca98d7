"""Session 11 (h18b): health, finance, purchases and vehicles read the way new writers say
them, each construct tested in words other than the tuning set's."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from tests.candidates import D, found, of
from uac import Memory
from uac.fact_log.extraction.patterns import extract

pytestmark = pytest.mark.usefixtures("backend")  # the fold test opens a workspace

AT = dt.datetime(2025, 3, 10, 9)  # a Monday


# -- "no, since 3 March": a medication's start, corrected ------------------------------------


@pytest.mark.parametrize(
    ("earlier", "text", "start"),
    [
        ("I have been taking sertraline 50mg since 1 March.", "No, since 3 March.", D(2025, 3, 3)),
        ("I started metformin 500mg on 1 March.", "sorry, since the 4th", D(2025, 3, 4)),
        ("I'm on lansoprazole 30mg since 1 March.", "no, since Wednesday", D(2025, 3, 5)),
        ("Started ramipril 5mg on the 2nd.", "actually it was the 6th", D(2025, 3, 6)),
    ],
)
def test_a_correction_after_a_medication_moves_its_start(
    earlier: str, text: str, start: dt.date
) -> None:
    [med] = of("health.medications", found(text, earlier, at=AT))
    assert med["start_date"] == start
    # said in one message, the corrected start replaces the first
    [med] = of("health.medications", found(f"{earlier} {text}", at=AT))
    assert med["start_date"] == start


def test_a_correction_after_someone_elses_drug_corrects_nothing() -> None:
    assert found("No, since 3 March.", "My mum started warfarin 3mg on 1 March.", at=AT) == []
    assert found("My dad began taking metformin 500mg today.", at=AT) == []
    # a prescriber as the subject is still the user's start
    [med] = of("health.medications", found("My GP started me on metformin 500mg today.", at=AT))
    assert med["start_date"] == D(2025, 3, 10)


def test_a_correction_after_an_appointment_still_moves_the_appointment() -> None:
    earlier = ("I started sertraline 50mg on 1 March.", "Dentist on 20 March at 10am.")
    assert [p for p, _ in found("sorry, the 21st", *earlier, at=AT)] == ["schedule.events"]


# -- an ending that names its drug's start: the start, not the stop --------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I stopped taking the aspirin I started on 1 March",
        "Came off the aspirin that I began on 1 March.",
    ],
)
def test_a_start_day_in_an_ending_is_the_start(text: str) -> None:
    [med] = [c.value for c in extract(text, AT) if c.op == "end"]
    assert (med["start_date"], med["stop_date"]) == (D(2025, 3, 1), D(2025, 3, 10))


def test_an_ending_cannot_end_a_record_begun_after_it(mem: Memory) -> None:
    # Two aspirin records; the stop names the earlier one by its start day: the later
    # record (begun after that day) keeps running.
    day = dt.datetime(2025, 3, 1, 9)
    mem.add("maya", "I started aspirin 75mg on 1 March.", at=day, now=day, session_id="s1")
    later = dt.datetime(2025, 3, 3, 9)
    mem.add("maya", "I started aspirin 300mg today.", at=later, now=later, session_id="s2")
    end = dt.datetime(2025, 3, 10, 9)
    mem.add("maya", "I stopped the aspirin I started on 1 March.", at=end, now=end, session_id="s3")
    mem.compile("maya")
    meds = {m.dose: m for m in mem.checkpoint("maya").user.medications}
    assert meds["300mg"].stop_date is None
    assert meds["75mg"].stop_date == dt.date(2025, 3, 10)
    # a stop dated before a record began leaves that record running too
    mem.add("maya", "I stopped taking aspirin on 2 March.", at=end, now=end, session_id="s4")
    mem.compile("maya")
    meds = {m.dose: m for m in mem.checkpoint("maya").user.medications}
    assert meds["300mg"].stop_date is None


# -- an allergy's reaction said in brackets, in the next sentence, or "X allergic" ----------


@pytest.mark.parametrize(
    ("text", "substances", "reaction"),
    [
        ("I'm allergic to peanuts and sesame (throat swells).", ["peanuts", "sesame"], "swell"),
        ("allergic to latex (a rash)", ["latex"], "rash"),
        ("I am penicillin allergic (hives as a child)", ["penicillin"], "hives"),
        ("Allergic to aspirin. It gives me hives.", ["aspirin"], "hives"),
        ("I react badly to ibuprofen. I broke out in a rash last time.", ["ibuprofen"], "rash"),
        ("my allergy is penicillin, it makes me itchy", ["penicillin"], "itchy"),
    ],
)
def test_an_allergys_reaction_said_around_it(
    text: str, substances: list[str], reaction: str
) -> None:
    got = of("health.allergies", found(text))
    assert [a["substance"] for a in got] == substances
    assert all(reaction in a["reaction"] for a in got)


@pytest.mark.parametrize(
    "text",
    [
        "I am so allergic to mornings",
        "I'm not allergic to anything",
        "my allergy is bad today",
        "My wife is penicillin allergic (hives).",
        "I got a rash from the new washing powder.",  # no allergy said before it
    ],
)
def test_no_allergy_without_one_of_the_users(text: str) -> None:
    assert of("health.allergies", found(text)) == []


# -- a diagnosis told by a clinician, "officially", "Dx is" --------------------------------


@pytest.mark.parametrize(
    ("text", "name", "day"),
    [
        ("Saw the GP this morning, she says I have asthma.", "asthma", D(2025, 3, 10)),
        ("the consultant reckons it is psoriasis", "psoriasis", D(2025, 3, 10)),
        ("so it's coeliac disease officially, no more bread", "coeliac disease", D(2025, 3, 10)),
        ("My GP confirmed hypothyroidism on Friday", "hypothyroidism", D(2025, 3, 7)),
        ("Diagnosis: ulcerative colitis. Great.", "ulcerative colitis", None),
        ("the specialist said it was H pylori all along", "h. pylori", None),
    ],
)
def test_a_diagnosis_told_is_a_condition(text: str, name: str, day: dt.date | None) -> None:
    [cond] = of("health.conditions", found(text, at=AT))
    assert cond["name"] == name and cond.get("diagnosed_on") == day


@pytest.mark.parametrize(
    "text",
    [
        "doctor says it is not diabetes",
        "the doctor thinks my dad has gout",
        "Doctor says I might have asthma, more tests next week",
        "the GP wants to rule out coeliac disease",
        "does the doctor think it's psoriasis?",
        "doctor said to take it easy",
    ],
)
def test_a_diagnosis_not_told_of_the_user_is_none(text: str) -> None:
    assert of("health.conditions", found(text, at=AT)) == []


@pytest.mark.parametrize(
    "text", ["Hay fever season is here again, sneezing all day", "ugh, hay fever is back"]
)
def test_hay_fever_back_is_the_condition(text: str) -> None:
    assert of("health.conditions", found(text, at=AT)) == [{"name": "hay fever"}]
    assert of("health.conditions", found("is hay fever season over yet?", at=AT)) == []


# -- a weight someone else read off the scales, in words, with a change over weeks ---------


@pytest.mark.parametrize(
    ("text", "kg"),
    [
        ("The nurse weighed me, 71.2 kg, fine apparently", 71.2),
        ("they weighed me in at ninety four kilos", 94.0),
        ("weighed 80 kg this morning, 2 kg up in three weeks", 80.0),
    ],
)
def test_a_weight_read_by_someone_else_of_the_user(text: str, kg: float) -> None:
    [w] = of("health.body_weight", found(text, at=AT))
    assert (w["kg"], w["date"]) == (kg, D(2025, 3, 10))


@pytest.mark.parametrize(
    "text",
    ["They weighed my son, 34 kg", "she weighed herself, 60 kg", "weighed me in at loads of kilos"],
)
def test_no_weight_of_another_or_without_a_number(text: str) -> None:
    assert of("health.body_weight", found(text, at=AT)) == []


# -- a make and model code read with a reading: the user's vehicle, k's as kilometres --------


@pytest.mark.parametrize(
    ("text", "make", "model", "year", "km"),
    [
        (
            "quick one, the Scania R450 2019 model rolled over 612,000 k's today",
            "Scania",
            "R450",
            2019,
            612000,
        ),
        ("the FH16 Volvo's on 300,100 ks now", "Volvo", "FH16", None, 300100),
        ("brand new 2024 Isuzu D-Max, 1,200 km on her", "Isuzu", "D-Max", 2024, 1200),
        ("Washed the Mazda CX-5 and it shows 64,020 km.", "Mazda", "CX-5", None, 64020),
    ],
)
def test_a_make_and_model_read_with_a_reading(
    text: str, make: str, model: str, year: int | None, km: int
) -> None:
    [car] = of("vehicles.vehicles", found(text, at=AT))
    assert (car["make"], car["model"], car.get("year"), car["mileage"]) == (make, model, year, km)


@pytest.mark.parametrize(
    "text",
    [
        "My brother's Toyota Hilux has 300,000 km on it",
        "The Volvo XC60 we hired had 20,000 km on it",
        "Scania R500 for sale, 600,000 ks",
        "Mazda CX-5 with 80,000 km, is that a good buy?",
        "the Kenworth depot is 40 ks away",
    ],
)
def test_no_vehicle_of_anothers_hired_or_asked_about(text: str) -> None:
    assert of("vehicles.vehicles", found(text, at=AT)) == []


# -- money: R$ is the real, a three-letter currency word is a currency -----------------------


def test_r_dollar_is_the_brazilian_real_and_yen_a_currency() -> None:
    [tx] = of("finance.transactions", found("Paid the printer R$ 1.250,00 today", at=AT))
    assert (tx["amount"], tx["currency"]) == (Decimal("1250.00"), "BRL")
    [sub] = of("finance.subscriptions", found("Netflix is R$ 55,90 a month", at=AT))
    assert sub["currency"] == "BRL"
    [tx] = of("finance.transactions", found("I paid $40 to the plumber today", at=AT))
    assert tx["currency"] == "USD"  # a bare dollar is still a dollar
    [card] = of("finance.bank_accounts", found("My JCB card limit is 300,000 yen", at=AT))
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
    [acct] = of("finance.bank_accounts", found(text, at=AT))
    assert (acct["provider"], acct["closing_on"]) == (provider, day)


@pytest.mark.parametrize(
    "text", ["the Monzo one is great", "the Starling one closes at 5pm on Fridays?"]
)
def test_no_account_closing_without_a_closing_day(text: str) -> None:
    assert of("finance.bank_accounts", found(text, at=AT)) == []


# -- a vaccination received by "we", or given to the user by someone -------------------------


@pytest.mark.parametrize(
    ("text", "name", "day"),
    [
        ("We both got our flu jabs at Boots on Friday", "influenza", D(2025, 3, 7)),
        ("the practice nurse gave me the tetanus booster this morning", "tetanus", D(2025, 3, 10)),
        ("I did get the hep A shot on 2 March in the end", "hepatitis a", D(2025, 3, 2)),
    ],
)
def test_a_vaccination_received_said_otherwise(text: str, name: str, day: dt.date) -> None:
    [vac] = of("health.vaccinations", found(text, at=AT))
    assert (vac["name"], vac["date"]) == (name, day)


@pytest.mark.parametrize(
    "text",
    [
        "they gave me a leaflet about the flu jab",
        "will we get the flu shot next week?",
        "we need to get the typhoid jab before the trip",
    ],
)
def test_no_vaccination_not_received(text: str) -> None:
    assert of("health.vaccinations", found(text, at=AT)) == []


# -- "took my last X", "X is done": a medication's stop ---------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "day"),
    [
        ("Took my last amoxicillin this morning, course finished", "amoxicillin", D(2025, 3, 10)),
        ("took the last dose of prednisolone on Friday", "prednisolone", D(2025, 3, 7)),
        ("ok, the sertraline is done, last tablet was on 2 March", "sertraline", D(2025, 3, 2)),
    ],
)
def test_a_last_dose_is_the_stop(text: str, name: str, day: dt.date) -> None:
    ends = [c.value for c in extract(text, AT) if c.op == "end"]
    assert ends == [{"name": name, "stop_date": day}]


@pytest.mark.parametrize(
    "text",
    ["My mum took her last aspirin on Friday", "Christmas is over", "is the metformin done?"],
)
def test_no_stop_of_anothers_or_asked(text: str) -> None:
    assert [c for c in extract(text, AT) if c.op == "end"] == []


def test_a_service_said_only_by_its_month_gone_by_is_no_service_of_today() -> None:
    earlier = "my Toyota Corolla is on 80,000 km"
    assert (
        of("vehicles.services", found("had the service at 78,000 back in August", earlier, at=AT))
        == []
    )
    [svc] = of("vehicles.services", found("the Corolla had its service on 3 March", earlier, at=AT))
    assert svc["date"] == D(2025, 3, 3)
