"""Constructs the rules must cover (issue 14, session 6, h14z), in sentences invented here.

Each family was named from a miss on blind2 (tuning data from session 6) in health, finance,
money, vehicles and identity; the sentences below are other words for the construct,
written before the rules. Negative cases must find nothing of the path: other people's
facts, questions, hypotheticals and plans.
"""

from __future__ import annotations

from typing import Any

import pytest
from candidates import AT, found, of

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
