"""The guard completes a record kept whole with a value its message says once beside it: a
typed value of its own sentence when the frame could not read that sentence whole (the key
came from the rules), a place where an event happens, and a typed value of the sentence right
after it when that sentence is no record of its own. It only completes: a value said twice
or a sentence naming another key leaves the record as it was, never withheld."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

import pytest

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.abstain import abstain
from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.slots import parser

pytestmark = pytest.mark.no_workspace("extraction of text in memory: no log")
TODAY = dt.date(2027, 3, 1)


def kept_after_guard(text: str, path: str, value: Mapping[str, object], key: str) -> Candidate:
    """The one candidate the guard keeps for a record whose quote starts at `key`."""
    start = text.index(key)
    cand = Candidate("record", path, value, "assert", text[start:], start, 0.8)
    kept, withheld = abstain(Catalog.load(), text, [cand], TODAY)
    assert withheld == []
    [one] = kept
    assert text[one.start : one.start + len(one.quote)] == one.quote
    return one


def test_a_reaction_completes_an_allergy_whose_substance_no_table_names() -> None:
    text = "Our flat is lovely. I am allergic to hamsters, they make me wheeze."
    got = kept_after_guard(text, "health.allergies", {"substance": "hamsters"}, "hamsters")
    assert got.value == {"substance": "hamsters", "reaction": "wheeze"}
    assert got.quote.endswith("wheeze.")


def test_the_sentence_after_an_allergy_gives_its_reaction() -> None:
    text = "Allergy: ragweed. Wheezing."
    got = kept_after_guard(text, "health.allergies", {"substance": "ragweed"}, "ragweed")
    assert got.value["reaction"] == "Wheezing"
    assert got.quote == "ragweed. Wheezing."


def test_a_sentence_naming_another_allergen_completes_nothing() -> None:
    text = "Allergy: ragweed. Also peanuts, hives."
    got = kept_after_guard(text, "health.allergies", {"substance": "ragweed"}, "ragweed")
    assert got.value == {"substance": "ragweed"}


def test_a_due_date_said_after_a_pregnancy_is_its_expected_end() -> None:
    text = "Big news, we are expecting!! Due date is 14 September."
    value = {"name": "pregnancy", "status": "active"}
    got = kept_after_guard(text, "health.conditions", value, "expecting")
    assert got.value["expected_end"] == "2027-09-14"
    assert got.quote.endswith("14 September.")


def test_a_day_the_next_sentence_says_without_the_slots_cue_is_not_taken() -> None:
    text = "Big news, we are expecting!! My sister visits on 14 September."
    value = {"name": "pregnancy", "status": "active"}
    got = kept_after_guard(text, "health.conditions", value, "expecting")
    assert "expected_end" not in got.value


def test_two_values_in_the_sentence_after_leave_the_record_as_it_was() -> None:
    text = "Allergy: ragweed. Wheezing or maybe a rash."
    got = kept_after_guard(text, "health.allergies", {"substance": "ragweed"}, "ragweed")
    assert got.value == {"substance": "ragweed"}


def test_an_event_takes_the_kind_of_place_its_sentence_names_in_lower_case() -> None:
    text = "Choir practice on Friday 7 March at 6pm at the church hall."
    value = {"title": "Choir practice", "start": "2027-03-07T18:00:00"}
    got = kept_after_guard(text, "schedule.events", value, "Choir")
    assert got.value["location"] == "church hall"


def test_an_event_with_its_place_keeps_it() -> None:
    text = "Choir practice on Friday 7 March at 6pm at the church hall."
    value = {"title": "Choir practice", "start": "2027-03-07T18:00:00", "location": "Hall B"}
    got = kept_after_guard(text, "schedule.events", value, "Choir")
    assert got.value["location"] == "Hall B"


def test_the_venue_parser_reads_a_kind_of_place_and_a_name_closing_the_sentence() -> None:
    venue = parser("venue")
    assert [f.value for f in venue("quiz night at the rugby club on the 9th", TODAY, "future")] == [
        "rugby club"
    ]
    said = "the party is 12/04 at 8pm, Hotel Miramar"
    [found] = venue(said, TODAY, "future")
    assert found.value == "Hotel Miramar" and said[found.start : found.end] == "Hotel Miramar"
    assert venue("dinner at 7 with Sam", TODAY, "future") == []
