"""Constructs the rules must cover (issue 14, session 7, h14q), in sentences invented here.

Each family was named from a miss or a false fact on blind3 (tuning data from session 7) in
health, finance, money and identity; the sentences below say the construct in other words
and registers (terse, lowercase, no apostrophes, non-native, dictated), written before the
rules. Negative cases must find nothing of the path: other people's facts, questions,
hypotheticals and plans. AT is Sunday 1 June 2025.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from candidates import AT, found, of

from uac.fact_log.extraction.patterns import extract

D = dt.date


# -- medications: the dose said in words, before the drug, or later in the sentence --------


@pytest.mark.parametrize(
    ("earlier", "text", "name", "dose"),
    [
        # a dose in words is the number as digits and the unit as its abbreviation
        ((), "gp started me on citalopram twenty milligrams every morning", "citalopram", "20 mg"),
        ((), "Doctor has me on amlodipine five milligrams daily", "amlodipine", "5 mg"),
        ((), "put on levothyroxine one hundred micrograms", "levothyroxine", "100 mcg"),
        # the dose before the drug, and "ive"/"im" typed without the apostrophe
        ((), "ive been taking 400mg ibuprofen three times a day", "ibuprofen", "400mg"),
        ((), "im taking 20 mg omeprazole before breakfast", "omeprazole", "20 mg"),
        # the dose later in the same sentence, after a clause about something else
        ((), "on metformin since the diagnosis, 500mg with dinner", "metformin", "500mg"),
        ((), "been on lisinopril for years now - 10 mg most mornings", "lisinopril", "10 mg"),
        # puffs and tablets are doses too
        ((), "they gave me salbutamol, 2 puffs as needed", "salbutamol", "2 puffs"),
        ((), "the nurse put me on prednisolone, two tablets a day", "prednisolone", "two tablets"),
    ],
)
def test_a_dose_in_any_position_or_words(
    earlier: tuple[str, ...], text: str, name: str, dose: str
) -> None:
    meds = of("health.medications", found(text, *earlier))
    assert any(m["name"] == name and dose in (m.get("dose") or "") for m in meds), meds


@pytest.mark.parametrize(
    "text",
    [
        "mum's been put on bisoprolol after her fall",
        "grandad's on warfarin 5mg now",
        "dad's taking 50mg sertraline, is that a lot?",
        "Mum has been prescribed amlodipine 5mg",
    ],
)
def test_no_medication_of_a_relative_named_without_my(text: str) -> None:
    assert of("health.medications", found(text)) == []


@pytest.mark.parametrize(
    ("text", "name", "stop"),
    [
        ("finished the course of clarithromycin on thursday", "clarithromycin", D(2025, 5, 29)),
        ("Completed the course of amoxicillin yesterday", "amoxicillin", D(2025, 5, 31)),
        ("done with the pack of naproxen as of friday", "naproxen", D(2025, 5, 30)),
    ],
)
def test_a_course_finished(text: str, name: str, stop: dt.date) -> None:
    ends = [c.value for c in extract(text, AT) if c.path == "health.medications" and c.op == "end"]
    assert {"name": name, "stop_date": stop} in ends, ends


@pytest.mark.parametrize(
    ("text", "name", "until"),
    [
        ("my sertraline tablets run out on the 9th", "sertraline", D(2025, 6, 9)),
        ("metformin pills will run out by the 20th, must call the gp", "metformin", D(2025, 6, 20)),
        ("my salbutamol inhaler runs out on 12 June", "salbutamol", D(2025, 6, 12)),
    ],
)
def test_a_drug_supply_runs_out(text: str, name: str, until: dt.date) -> None:
    meds = of("health.medications", found(text))
    assert any(m["name"] == name and m.get("supply_until") == until for m in meds), meds


def test_a_start_said_as_the_1st_is_this_month_when_past() -> None:
    at = dt.datetime(2025, 6, 5, 9)
    meds = of(
        "health.medications", found("prescribed atorvastatin 20 mg, started on the 1st", at=at)
    )
    assert any(m.get("start_date") == D(2025, 6, 1) for m in meds), meds


# -- body weight: a bare reading with its day ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kg"),
    [
        ("82.5kg this morning", 82.5),
        ("71 kg today, finally", 71.0),
        ("down to 64.2kg this morning!!", 64.2),
    ],
)
def test_a_bare_weight_reading(text: str, kg: float) -> None:
    weights = of("health.body_weight", found(text))
    assert any(float(w["kg"]) == kg for w in weights), weights


@pytest.mark.parametrize(
    "text",
    [
        "the suitcase was 23kg this morning at check-in",
        "my son is 30kg now",
        "bag allowance is 20kg today",
        "a 25kg sack of rice this morning from the shop",
    ],
)
def test_no_weight_of_a_thing_or_someone_else(text: str) -> None:
    assert of("health.body_weight", found(text)) == []


# -- allergies said without a subject ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "substance", "reaction"),
    [
        ("allergic to latex - found out at the dentist, came up in welts", "latex", None),
        ("allergic to ibuprofen, came out in hives", "ibuprofen", "hives"),
        ("Allergic to peanuts since childhood", "peanuts", None),
    ],
)
def test_an_allergy_without_i_am(text: str, substance: str, reaction: Any) -> None:
    allergies = of("health.allergies", found(text))
    assert any(substance in a["substance"] for a in allergies), allergies
    if reaction:
        assert any(reaction in (a.get("reaction") or "") for a in allergies), allergies


def test_no_allergy_of_someone_else_said_without_a_subject() -> None:
    assert of("health.allergies", found("my daughter is allergic to eggs, not me")) == []
    assert of("health.allergies", found("allergic to cats? my flatmate is")) == []


# -- vaccinations: a list after "today" -------------------------------------------------------


def test_a_list_of_vaccinations_given_today() -> None:
    cands = found("clinic this morning: yellow fever, hep B and tetanus booster")
    names = " ".join(v["name"].lower() for v in of("health.vaccinations", cands))
    for word in ("yellow fever", "hep", "tetanus"):
        assert word in names, names


@pytest.mark.parametrize(
    "text",
    ["travel clinic tomorrow: hep A and typhoid", "my son at the clinic today: hep A, typhoid"],
)
def test_no_vaccination_list_planned_or_someone_elses(text: str) -> None:
    assert of("health.vaccinations", found(text)) == []


# -- nationality: a demonym said of the user, not a passport -----------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Dutch here, moving to Spain next year", "NL"),
        ("we're Irish btw", "IE"),
        ("We are Polish so EU rules should apply to us", "PL"),
        ("Im Canadian, does that matter for the visa", "CA"),
    ],
)
def test_a_nationality_said_as_a_demonym(text: str, code: str) -> None:
    assert of("identity.nationality", found(text)) == [code]


@pytest.mark.parametrize(
    "text",
    [
        "Canadian friend of mine is visiting",
        "she's Dutch",
        "we are Polish-speaking at home",
    ],
)
def test_no_nationality_of_others(text: str) -> None:
    assert of("identity.nationality", found(text)) == []


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("I have an Irish passport, if that helps", "IE"),
        ("i travel on a german passport", "DE"),
        ("I'm on a Brazilian passport btw", "BR"),
    ],
)
def test_a_passport_gives_its_country_not_a_nationality(text: str, code: str) -> None:
    cands = found(text)
    assert of("identity.passport.issuing_country", cands) == [code]
    assert of("identity.nationality", cands) == []


def test_a_home_city_after_a_comma() -> None:
    assert of("places.address.city", found("I'm Welsh by the way, live in Cardiff")) == ["Cardiff"]


# -- more health and identity forms: "we're pregnant", "enough until", an allergy list, ----------
# -- "got <drug>", "<demonym> citizen here", "I'm <adjective>, <weight>" -------------------------


@pytest.mark.parametrize("text", ["we're pregnant!! 8 weeks", "WE ARE PREGNANT"])
def test_we_are_pregnant(text: str) -> None:
    assert any("pregnan" in c["name"] for c in of("health.conditions", found(text)))


def test_no_pregnancy_of_someone_else() -> None:
    assert of("health.conditions", found("my sister and her husband are pregnant")) == []


@pytest.mark.parametrize(
    ("text", "until"),
    [
        ("I take sertraline 50mg daily, got enough tablets until 20 July", D(2025, 7, 20)),
        ("on metformin 500mg, I've got enough to last me till the 15th", D(2025, 6, 15)),
    ],
)
def test_enough_tablets_until(text: str, until: dt.date) -> None:
    meds = of("health.medications", found(text))
    assert any(m.get("supply_until") == until for m in meds), meds


@pytest.mark.parametrize(
    ("text", "substance", "reaction"),
    [
        ("allergy list for the dentist: penicillin (hives), latex", "penicillin", "hives"),
        ("Allergies: ibuprofen (swelling) and peanuts", "peanuts", None),
    ],
)
def test_an_allergy_list(text: str, substance: str, reaction: Any) -> None:
    got = of("health.allergies", found(text))
    assert any(a["substance"] == substance and a.get("reaction") == reaction for a in got), got


def test_no_allergy_list_of_someone_else() -> None:
    assert of("health.allergies", found("my son's allergies: penicillin (rash)")) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("got naproxen from the pharmacy for my knee, 250mg twice a day", "naproxen"),
        ("I bought some ibuprofen at the chemist this morning", "ibuprofen"),
    ],
)
def test_a_drug_got_or_bought(text: str, name: str) -> None:
    assert any(m["name"] == name for m in of("health.medications", found(text)))


def test_no_drug_bought_for_someone_else() -> None:
    assert of("health.medications", found("I bought some calpol for my daughter")) == []


def test_a_citizen_here() -> None:
    assert of("identity.nationality", found("US citizen here, first trip to Japan")) == ["US"]


@pytest.mark.parametrize(
    ("text", "kg"), [("I'm tiny, 44kg on a good day", 44.0), ("im quite tall, about 95 kg", 95.0)]
)
def test_a_weight_after_a_self_description(text: str, kg: float) -> None:
    assert [float(w["kg"]) for w in of("health.body_weight", found(text))] == [kg]


# -- allergies said elliptically after one ---------------------------------------------------


def test_another_allergen_and_a_reaction_after_an_allergy() -> None:
    earlier = ("I'm allergic to amoxicillin",)
    got = of("health.allergies", found("and walnuts, that one is bad", *earlier))
    assert [a["substance"] for a in got] == ["walnuts"], got
    got = of("health.allergies", found("hives, nothing serious", *earlier))
    assert got == [{"substance": "amoxicillin", "reaction": "hives", "severity": "mild"}], got


def test_no_elliptic_allergy_without_one_before() -> None:
    assert of("health.allergies", found("and walnuts, that one is bad")) == []
    assert of("health.allergies", found("rash, nothing serious")) == []
    assert (
        of(
            "health.allergies",
            found("and my sister, that one is bad", "I'm allergic to amoxicillin"),
        )
        == []
    )


# -- a birth ends the pregnancy ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "baby boy, born on the 28th at 4am!!",
        "I gave birth on Tuesday",
        "our daughter was born yesterday",
    ],
)
def test_a_birth_ends_the_pregnancy(text: str) -> None:
    got = of("health.conditions", found(text))
    assert got == [{"name": "pregnancy", "status": "resolved"}], got


@pytest.mark.parametrize(
    "text", ["my sister's baby girl, born on the 2nd", "my cousin's daughter was born yesterday"]
)
def test_no_birth_of_someone_elses_baby(text: str) -> None:
    assert of("health.conditions", found(text)) == []


@pytest.mark.parametrize(
    ("text", "amount"),
    [("netflix premium is 17.99 now!!", "17.99"), ("Disney+ went up to £8.99, annoying", "8.99")],
)
def test_a_subscription_price_said_as_it_is_now(text: str, amount: str) -> None:
    assert [str(s.get("amount")) for s in of("finance.subscriptions", found(text))] == [amount]


def test_no_subscription_price_asked_or_someone_elses() -> None:
    for text in ("is netflix 17.99 now?", "my flatmate says netflix is 17.99 now"):
        assert of("finance.subscriptions", found(text)) == [], text
