"""A medication the user takes, said in a sentence naming one condition the reference tables
know ("doctor says blood pressure is high"), records that condition as the user's too, as a
drug started "for atrial fibrillation" does; a sentence naming two conditions, or a message
that records the condition already, adds nothing."""

from __future__ import annotations

import pytest

from uac.fact_log.extraction.abstain import with_treated_condition
from uac.fact_log.extraction.candidate import Candidate

pytestmark = pytest.mark.no_workspace("extraction of text in memory: no log")


def drug(text: str, name: str) -> Candidate:
    start = text.index(name)
    return Candidate("record", "health.medications", {"name": name}, "assert", name, start, 0.85)


def conditions(found: list[Candidate]) -> list[tuple[object, str]]:
    return [(c.value["name"], c.quote) for c in found if c.path == "health.conditions"]


def test_a_drug_beside_a_named_condition_records_the_condition() -> None:
    text = "New pills: losartan 50 mg each morning, the nurse said my blood pressure is high."
    found = with_treated_condition(text, [drug(text, "losartan")])
    assert conditions(found) == [("hypertension", "blood pressure")]
    [cond] = [c for c in found if c.path == "health.conditions"]
    assert text[cond.start : cond.start + len(cond.quote)] == cond.quote


def test_a_sentence_naming_two_conditions_adds_none() -> None:
    text = "Taking metformin now, for the diabetes and maybe the blood pressure too."
    assert conditions(with_treated_condition(text, [drug(text, "metformin")])) == []


def test_a_condition_the_message_records_already_is_not_added_again() -> None:
    text = "Started metformin for my type 2 diabetes."
    had = Candidate(
        "record", "health.conditions", {"name": "type 2 diabetes"}, "assert", text, 0, 0.8
    )
    found = with_treated_condition(text, [drug(text, "metformin"), had])
    assert conditions(found) == [("type 2 diabetes", text)]


def test_a_drug_without_a_condition_said_adds_nothing() -> None:
    text = "Picked up more ibuprofen 400 today."
    assert conditions(with_treated_condition(text, [drug(text, "ibuprofen")])) == []


def test_a_correction_of_a_medication_adds_no_condition() -> None:
    text = "Switched the statin, cholesterol still high."
    fix = Candidate(
        "record",
        "health.medications",
        {"name": "statin"},
        "assert",
        "statin",
        text.index("statin"),
        0.8,
        replaces={"name": "simvastatin"},
    )
    assert conditions(with_treated_condition(text, [fix])) == []
