"""The guard after every extractor refuses a record whose value is said in the question that
closes its sentence: asked, not stated. A value said in a clause of its own before a
question ("valid until May, is that enough?") is a statement and is kept."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.extraction.abstain import refuse
from uac.fact_log.extraction.candidate import Candidate

pytestmark = pytest.mark.no_workspace("extraction of text in memory: no log")
TODAY = dt.date(2027, 3, 1)


def said(text: str, path: str, value: object, key: str) -> Candidate:
    start = text.index(key)
    return Candidate("record", path, value, "assert", text[start:], start, 0.8)


def test_a_supplement_asked_about_is_refused_as_a_question() -> None:
    text = "Also started melatonin? No, that was my brother."
    cand = said(text, "health.intake", {"name": "melatonin", "kind": "supplement"}, "started")
    assert refuse(text, [cand], TODAY) == [("question", cand)]


def test_a_food_in_a_question_is_refused() -> None:
    text = "Is it fine to have my coffee with these pills?"
    cand = said(text, "health.intake", {"name": "coffee", "kind": "food"}, "coffee")
    assert refuse(text, [cand], TODAY) == [("question", cand)]


def test_a_day_stated_before_a_question_of_its_own_is_kept() -> None:
    text = "My passport is valid until 4 May 2031, is that enough for Japan?"
    cand = said(text, "identity.passport.expiry_date", "2031-05-04", "valid")
    assert refuse(text, [cand], TODAY) == []


def test_the_same_day_stated_plainly_is_kept() -> None:
    text = "My passport is valid until 4 May 2031."
    cand = said(text, "identity.passport.expiry_date", "2031-05-04", "valid")
    assert refuse(text, [cand], TODAY) == []


def test_a_correction_asked_back_is_not_judged_as_a_question() -> None:
    text = "The dentist moved to Friday?"
    cand = Candidate(
        "record",
        "schedule.events",
        {"title": "dentist"},
        "assert",
        text,
        0,
        0.8,
        replaces={"title": "dentist"},
    )
    assert refuse(text, [cand], TODAY) == []


def test_surprise_in_a_statements_order_is_kept() -> None:
    text = "the gym is 45.50 a month now?? since when"
    cand = said(text, "finance.subscriptions", {"name": "gym", "amount": "45.50"}, "gym")
    assert refuse(text, [cand], TODAY) == []
