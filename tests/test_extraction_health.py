"""Health read from conversation: medications, conditions, allergies, vaccinations, body weight
and pregnancy.

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

from tests.candidates import AT, D, found, of, values
from uac.fact_log.extraction.patterns import extract

MEDS = "health.medications"


def meds(text: str, *earlier: str) -> list[dict[str, object]]:
    return of(MEDS, found(text, *earlier))


AT_MONDAY = dt.datetime(2025, 3, 10, 9)  # a Monday


# -- habits and starts said without "I" -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("Lately: grapefruit juice every morning before work.", "grapefruit juice", "food"),
        ("New routine, a glass of red wine with dinner.", "wine", "food"),
        ("Started on ginkgo this week for my memory.", "ginkgo", "supplement"),
        ("Began taking St John's wort a few days ago.", "st john's wort", "supplement"),
    ],
)
def test_intake_said_without_a_subject(text: str, name: str, kind: str) -> None:
    [intake] = of("health.intake", found(text))
    assert intake["name"] == name and intake["kind"] == kind


@pytest.mark.parametrize(
    "text",
    [
        "My husband has grapefruit juice every morning.",
        "Should I skip the grapefruit juice every morning?",
        "Gave up wine with dinner last year.",
    ],
)
def test_no_intake_for_others_questions_or_stopped_habits(text: str) -> None:
    assert of("health.intake", found(text)) == []


# -- body weight "down to" / "up to" --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kg"),
    [
        ("Since the surgery I'm down to 51 kg.", 51.0),
        ("Lost a lot over the winter, down to 60 kg now.", 60.0),
        ("I've gone up to 88 kg after the holidays.", 88.0),
    ],
)
def test_body_weight_down_or_up_to(text: str, kg: float) -> None:
    assert of("health.body_weight", found(text)) == [{"date": D(2025, 6, 1), "kg": kg}]


def test_a_childs_weight_is_not_the_users() -> None:
    assert of("health.body_weight", found("My son is down to 20 kg after the flu.")) == []


# -- a medication supply that runs out ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "earlier", "name", "until"),
    [
        ("I only have ten days of metformin left.", (), "metformin", D(2025, 6, 11)),
        ("My levothyroxine runs out on 3 July.", (), "levothyroxine", D(2025, 7, 3)),
        (
            "Running low, it runs out on 9 August.",
            ("I inject insulin every day.",),
            "insulin",
            D(2025, 8, 9),
        ),
    ],
)
def test_a_medication_supply_end(
    text: str, earlier: tuple[str, ...], name: str, until: dt.date
) -> None:
    supplies = [v for v in of("health.medications", found(text, *earlier)) if "supply_until" in v]
    assert supplies == [{"name": name, "supply_until": until}]


def test_a_phone_contract_running_out_is_not_a_supply() -> None:
    assert of("health.medications", found("My phone contract runs out on 3 July.")) == []


# -- precision: dates relative to the conversation, courses, prices, ambiguous corrections ---


def test_a_start_said_after_the_course_moves_the_course() -> None:
    text = "The doctor gave me amoxicillin 500mg, 3 times a day for 7 days. I started it last night"
    meds = of("health.medications", found(text))
    assert [(m["start_date"], m["stop_date"]) for m in meds] == [(D(2025, 5, 31), D(2025, 6, 6))]


def test_a_medication_starting_the_day_before_an_earlier_appointment() -> None:
    earlier = ("My colonoscopy is booked for Tuesday, 10 June at 9am.",)
    meds = of(
        "health.medications",
        found("They prescribed omeprazole 20 mg once a day starting the day before.", *earlier),
    )
    assert [m.get("start_date") for m in meds] == [D(2025, 6, 9)]


@pytest.mark.parametrize(
    ("text", "stop"),
    [
        ("The GP gave me amoxicillin, 500 mg three times a day for a week.", D(2025, 6, 7)),
        ("I was given prednisolone 30 mg daily for 5 days.", D(2025, 6, 5)),
        ("Doctor today: tramadol 50 mg 3x day, 5 days.", D(2025, 6, 5)),
    ],
)
def test_a_course_for_a_length_of_time_has_its_last_day(text: str, stop: dt.date) -> None:
    [med] = of("health.medications", found(text))
    assert med["start_date"] == D(2025, 6, 1) and med["stop_date"] == stop


# -- health --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "text", "name", "dose"),
    [
        ("", "the consultant perscribed me sertraline 50mg once a day", "sertraline", "50mg"),
        ("", "GP says switch to fexofenadine, starting today", "fexofenadine", None),
        ("", "the nurse wants me taking iron every morning", "iron", None),
        ("", "the lisinopril seems to be working", "lisinopril", None),
        ("", "My omeprazole is really helping", "omeprazole", None),
        ("I've been on sertraline since spring", "I take 100 mg at night", "sertraline", "100 mg"),
    ],
)
def test_medication_forms(earlier: str, text: str, name: str, dose: str | None) -> None:
    meds = of("health.medications", found(text, *([earlier] if earlier else [])))
    assert any(m["name"] == name for m in meds), meds
    if dose:
        assert any(dose in str(m.get("dose")) for m in meds if m["name"] == name)


@pytest.mark.parametrize(
    "text",
    [
        "is the lisinopril safe with grapefruit?",
        "my dad's metformin seems to be working",
        "I take 2 kg of flour for the bread",
    ],
)
def test_no_medication_from_questions_others_or_non_drugs(text: str) -> None:
    assert not of("health.medications", found(text))
    assert not of("health.medications", found(text, "I've been on sertraline since spring"))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("my asthma has been bad this week", "asthma"),
        ("Saw the doctor yesterday about my eczema", "eczema"),
        ("my hay fever is killing me", "hay fever"),
        ("My type 1 diabetes was diagnosed at 12", "type 1 diabetes"),
    ],
)
def test_conditions_said_with_my(text: str, name: str) -> None:
    assert name in [c["name"] for c in of("health.conditions", found(text))]


@pytest.mark.parametrize(
    "text",
    ["my sister's asthma is worse", "does hay fever cause headaches?", "my mum has eczema"],
)
def test_no_condition_of_someone_else(text: str) -> None:
    assert not of("health.conditions", found(text))


def test_an_allergy_ends_at_the_next_verb() -> None:
    allergies = of(
        "health.allergies", found("the GP says I'm allergic to latex and gave me a card")
    )
    assert [a["substance"] for a in allergies] == ["latex"]


def test_a_severity_said_after_the_allergy() -> None:
    allergies = of(
        "health.allergies", found("Mild reaction, the nurse said", "I'm allergic to plasters")
    )
    assert allergies == [{"substance": "plasters", "severity": "mild"}]


def test_a_dose_of_something_else_is_not_the_last_drug() -> None:
    cands = found("I take 500mg of vitamin C too", "I've been on sertraline since spring")
    assert not of("health.medications", cands)


# -- identity ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "substance"),
    [
        ("I react really badly to codeine, I come out in welts", "codeine"),
        ("Years ago I had a severe reaction to penicillin.", "penicillin"),
        ("Bad shellfish allergy here, I carry an EpiPen.", "shellfish"),
    ],
)
def test_allergies_said_as_reactions(text: str, substance: str) -> None:
    assert substance in [a["substance"] for a in of("health.allergies", found(text))]


def test_no_allergy_from_a_reaction_to_news() -> None:
    assert not of("health.allergies", found("I had a bad reaction to the news, honestly"))


def test_a_clinic_gave_me_a_drug() -> None:
    meds = of("health.medications", found("the urgent care clinic gave me doxycycline today"))
    assert [m["name"] for m in meds] == ["doxycycline"]


def test_a_condition_had_since() -> None:
    assert of("health.conditions", found("I've had asthma since I was six"))[0]["name"] == "asthma"


def test_weighed_myself_then_the_number() -> None:
    [w] = of("health.body_weight", found("Weighed myself this morning, 62.5 kg."))
    assert w["kg"] == pytest.approx(62.5)


def test_a_pack_that_lasts_until_is_the_supply_not_the_start() -> None:
    text = "I take citalopram daily, my current box lasts until 9 July"
    meds = of("health.medications", found(text))
    assert {m["name"] for m in meds} == {"citalopram"}
    assert [m["supply_until"] for m in meds if "supply_until" in m] == [D(2025, 7, 9)]
    assert not [m for m in meds if "start_date" in m]


# -- more trips, insurance, tasks, payments, purchases -------------------------------------


def test_an_allergy_to_it_after_a_reaction() -> None:
    text = "As a teenager I had a bad reaction to penicillin, so I'm allergic to it."
    assert [a["substance"] for a in of("health.allergies", found(text))] == ["penicillin"]


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
def test_no_condition_of_someone_else_or_asked_about(text: str) -> None:
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


# -- cards and accounts: a limit said before or after its word ----------------------------


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


def test_a_reaction_after_a_substance() -> None:
    got = of("health.allergies", found("as a teenager I had anaphylaxis after penicillin"))
    assert [(a["substance"], a.get("severity")) for a in got] == [("penicillin", "anaphylaxis")]


def test_a_past_reaction_told_with_when() -> None:
    got = of("health.allergies", found("When I was small I had hives after penicillin"))
    assert [a["substance"] for a in got] == ["penicillin"]


def test_a_supply_said_with_the_drug() -> None:
    text = "amlodipine 5mg daily, got a new box today and it lasts me until 12 August"
    [med] = of("health.medications", found(text))
    assert (med["name"], med["supply_until"]) == ("amlodipine", D(2025, 8, 12))


# -- a pregnancy's due date ----------------------------------------------------------------------


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


# -- a medication list, a dose changed, an account closed said object first -----------------


def test_every_drug_of_a_list_headed_as_mine() -> None:
    text = "my meds are: sertraline 50mg, omeprazole twenty at night, and no more ibuprofen"
    names = [m["name"] for m in of("health.medications", found(text))]
    assert sorted(names) == ["omeprazole", "sertraline"], names


def test_every_drug_after_a_list_heading_not_only_the_first() -> None:
    # the drug rules read the first drug after the heading; the list rule the ones after it
    text = (
        "new medication list for me: metoprolol 25mg in the morning, atorvastatin forty at "
        "night, and aspirin"
    )
    names = [m["name"] for m in of("health.medications", found(text))]
    assert sorted(names) == ["aspirin", "atorvastatin", "metoprolol"], names


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


@pytest.mark.parametrize(
    ("text", "name", "dose"),
    [
        ("took 2 x 500mg paracetamol this morning", "paracetamol", "2 x 500mg"),
        ("Took 1000mg of paracetamol at lunch.", "paracetamol", "1000mg"),
    ],
)
def test_a_dose_taken_is_a_medication_with_what_was_taken(text: str, name: str, dose: str) -> None:
    [med] = values(text, "health.medications")
    assert (med["name"], med["dose"]) == (name, dose)


@pytest.mark.parametrize("text", ["She took 2 paracetamol.", "took 2 buses to get there"])
def test_what_others_took_or_took_as_transport_is_no_medication(text: str) -> None:
    assert values(text, "health.medications") == []


@pytest.mark.parametrize(
    ("text", "substances"),
    [
        (
            "I'm allergic to penicillin, codeine and sulfa drugs.",
            ["penicillin", "codeine", "sulfa drugs"],
        ),
        ("im allergic to peanuts, shellfish and latex", ["peanuts", "shellfish", "latex"]),
        ("I'm allergic to cats, but I love them.", ["cats"]),
        ("I'm allergic to peanuts, my sister to shellfish.", ["peanuts"]),
    ],
)
def test_every_allergen_of_a_list(text: str, substances: list[str]) -> None:
    assert [a["substance"] for a in values(text, "health.allergies")] == substances


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


# -- health constructs of new writers ------------------------------------------------------


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


# -- plans to pay with a card, household instructions, offers, drugs given ----------------


def test_a_drug_whoever_gave_it_but_not_a_device_after_and() -> None:
    (med,) = meds("the farmacia gave me amoxicillin 500, three times a day")
    assert med["name"] == "amoxicillin" and med["dose"].startswith("500")
    assert meds("I'm allergic to bees and gave the nurse my EpiPen") == []


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


# -- values bound to what they name --------------------------------------------------------


def test_a_member_of_an_allergen_group_named_whole_is_the_group() -> None:
    said = of("health.allergies", found("allergic to prawns and all shellfish, my face gets puffy"))
    assert [a["substance"] for a in said] == ["shellfish"]


def test_a_start_counted_from_the_next_departure() -> None:
    said = meds(
        "the travel nurse gave me Malarone, to start 2 days before I fly",
        "flying to Nairobi on 20 June, back 4 July",
    )
    assert said and said[0]["start_date"] == D(2025, 6, 18)


# -- a list under a heading that names another person is theirs ----------------------------


def test_the_users_own_list_after_anothers_is_still_read() -> None:
    text = "Dad's meds:\n- metformin 500mg twice a day\nMy meds:\n- aspirin 75mg daily"
    assert [m["name"] for m in of("health.medications", found(text))] == ["aspirin"]
    text = "Mum's direct debits:\n- Council tax £150 on the 1st\n\nMy Netflix is £15 a month"
    [sub] = of("finance.subscriptions", found(text))
    assert (sub["name"], sub["amount"]) == ("Netflix", Decimal("15"))
    assert of("health.medications", found("My meds:\n- metformin 500mg twice a day")) != []
    # an occasion of theirs is no list of theirs: what the user does for it is the user's
    assert of("schedule.events", found("Mum's birthday:\n- book dinner for Friday")) != []


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
    [med] = of("health.medications", found(text, earlier, at=AT_MONDAY))
    assert med["start_date"] == start
    # said in one message, the corrected start replaces the first
    [med] = of("health.medications", found(f"{earlier} {text}", at=AT_MONDAY))
    assert med["start_date"] == start


def test_a_correction_after_someone_elses_drug_corrects_nothing() -> None:
    assert (
        found("No, since 3 March.", "My mum started warfarin 3mg on 1 March.", at=AT_MONDAY) == []
    )
    assert found("My dad began taking metformin 500mg today.", at=AT_MONDAY) == []
    # a prescriber as the subject is still the user's start
    [med] = of(
        "health.medications", found("My GP started me on metformin 500mg today.", at=AT_MONDAY)
    )
    assert med["start_date"] == D(2025, 3, 10)


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
    [cond] = of("health.conditions", found(text, at=AT_MONDAY))
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
    assert of("health.conditions", found(text, at=AT_MONDAY)) == []


@pytest.mark.parametrize(
    "text", ["Hay fever season is here again, sneezing all day", "ugh, hay fever is back"]
)
def test_hay_fever_back_is_the_condition(text: str) -> None:
    assert of("health.conditions", found(text, at=AT_MONDAY)) == [{"name": "hay fever"}]
    assert of("health.conditions", found("is hay fever season over yet?", at=AT_MONDAY)) == []


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
    [w] = of("health.body_weight", found(text, at=AT_MONDAY))
    assert (w["kg"], w["date"]) == (kg, D(2025, 3, 10))


@pytest.mark.parametrize(
    "text",
    ["They weighed my son, 34 kg", "she weighed herself, 60 kg", "weighed me in at loads of kilos"],
)
def test_no_weight_of_another_or_without_a_number(text: str) -> None:
    assert of("health.body_weight", found(text, at=AT_MONDAY)) == []


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
    [vac] = of("health.vaccinations", found(text, at=AT_MONDAY))
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
    assert of("health.vaccinations", found(text, at=AT_MONDAY)) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("The nurse give me naproxen 250 mg two times a day.", "naproxen"),
        ("doc write me fluoxetine 20mg, one every morning", "fluoxetine"),
        ("she prescribe me cetirizine 10 mg for the hay fever", "cetirizine"),
    ],
)
def test_a_drug_given_in_the_writers_tense_starts_that_day(text: str, name: str) -> None:
    meds = of("health.medications", found(text))
    assert [(m["name"], m.get("start_date")) for m in meds] == [(name, D(2025, 6, 1))]


@pytest.mark.parametrize(
    "text",
    ["can you give me naproxen dosing info?", "the chemist would not give me codeine today"],
)
def test_no_drug_given_from_a_request_or_a_refusal(text: str) -> None:
    assert of("health.medications", found(text)) == []
