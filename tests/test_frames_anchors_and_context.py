"""Frames entered by the thing a sentence names (a drug, a vaccine, a weight) as well as by
their cue words, and required slots taken from the sentence before: sentence -> facts."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import encoder, frames
from uac.fact_log.extraction.slots import parser

AT = dt.datetime(2026, 6, 8, 10, 0)
TODAY = AT.date()
needs_encoder = pytest.mark.skipif(not encoder.available(), reason="encoder not installed")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture
def medication_frame_open() -> object:
    """The medication frame read at a fixed threshold: its measured one (fact_log/
    frame_calibration.toml) moves with the examples, and these tests are about what the frame
    reads once it reads a window (anchors, dates, guards), not about where its threshold sits."""
    table = {"medication_start": {"threshold": 0.5, "margin": 0.0, "emit": True}}
    with frames.using_calibration(table):
        yield


def said(text: str, history: tuple[str, ...] | list[str] = ()) -> list[tuple[str, object]]:
    earlier = [(h, AT - dt.timedelta(minutes=1)) for h in history]
    return [(c.path, c.value) for c in frames.extract(text, AT, Catalog.load(), earlier)]


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("My ESTA came through.", ["US"]),
        ("the NZeTA is approved", ["NZ"]),
        ("Got my visa for India and my ESTA.", ["IN", "US"]),
        ("An estate agent called.", []),
    ],
)
def test_a_travel_authorisation_names_its_country(text: str, codes: list[str]) -> None:
    found = parser("visa_country")(text, TODAY, "future")
    assert [f.value for f in found] == codes
    assert all(text[f.start : f.end] for f in found)


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("It's a tourist visa, single entry.", ["tourist"]),
        ("Got the e-visa today.", ["e-visa"]),
        ("I got my ESTA approved this morning.", ["ESTA"]),
        ("I went on a business trip.", []),  # no visa spoken of: no kind
    ],
)
def test_a_visa_kind_is_read_only_where_a_visa_is_spoken_of(text: str, kinds: list[str]) -> None:
    assert [f.value for f in parser("visa_kind")(text, TODAY, "future")] == kinds


def test_every_anchor_names_a_known_slot_type() -> None:
    for frame in frames.load_frames():
        for kind in frame.anchors:
            parser(kind)  # KeyError names an unknown type


@pytest.mark.usefixtures("medication_frame_open")
@needs_encoder
@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I'm still on levothyroxine 75 mcg each morning for my thyroid.", "levothyroxine"),
        ("I picked up amoxicillin for the ear infection.", "amoxicillin"),
    ],
)
def test_a_drug_named_without_a_cue_word_is_a_medication(
    catalog: Catalog, text: str, name: str
) -> None:
    found = said(text)
    assert [(p, v["name"]) for p, v in found] == [("health.medications", name)]


@pytest.mark.usefixtures("medication_frame_open")
@needs_encoder
@pytest.mark.parametrize(
    "text",
    [
        "My mum is on levothyroxine 75 mcg.",  # someone else's
        "Should I ask about amoxicillin?",  # a question
        "If the rash comes back I might need amoxicillin.",  # a hypothetical
    ],
)
def test_a_drug_named_in_someone_elses_or_an_unasserted_sentence_is_nothing(
    catalog: Catalog, text: str
) -> None:
    assert [p for p, _ in said(text)] == []


@needs_encoder
def test_a_visas_country_may_come_from_the_sentence_before(catalog: Catalog) -> None:
    found = said("It's valid until June 1, 2028.", ["I got my ESTA approved this morning."])
    assert found == [("identity.visas", {"country": "US", "valid_until": "2028-06-01"})]


@needs_encoder
def test_a_value_from_the_sentence_before_alone_is_not_a_fact(catalog: Catalog) -> None:
    # the sentence itself must fill a slot: a bare "It came through." learns nothing new
    assert said("It came through.", ["My visa for India is valid until 3 March 2027."]) == []


@needs_encoder
def test_an_authorisation_approved_today_has_no_end_day(catalog: Catalog) -> None:
    assert said("I got my ESTA approved this morning.") == [
        ("identity.visas", {"country": "US", "kind": "ESTA"})
    ]


@needs_encoder
def test_a_sentence_about_something_else_borrows_no_value_from_the_one_before(
    catalog: Catalog,
) -> None:
    # the drug is the previous message's; "last week" is when the diagnosis was made: the
    # sentence states a condition, never a medication borrowed from the message before
    history = ["The doctor started me on metformin 500 mg twice daily."]
    found = said("I was diagnosed with type 2 diabetes last week.", history)
    assert [p for p, _ in found] == ["health.conditions"]
    assert found[0][1]["name"] == "type 2 diabetes"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("And I'm allergic to tree nuts, especially walnuts.", ["tree nuts", "walnuts"]),
        ("I have a peanut allergy.", ["peanut"]),
        ("I'm allergic to penicillin.", ["penicillin"]),
    ],
)
def test_an_allergen_is_read_whole_when_its_name_has_several_words(
    text: str, names: list[str]
) -> None:
    assert [f.value for f in parser("substance")(text, TODAY, "past")] == names


@pytest.mark.usefixtures("medication_frame_open")
@needs_encoder
@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("The doctor started me on metformin 500 mg twice daily.", TODAY.isoformat()),
        ("I picked up amoxicillin for the ear infection.", TODAY.isoformat()),
        ("I'm still on levothyroxine 75 mcg each morning.", None),  # no start said
    ],
)
def test_a_medication_starts_today_only_when_a_start_is_said(
    catalog: Catalog, text: str, start: str | None
) -> None:
    [(path, value)] = said(text)
    assert path == "health.medications"
    assert value.get("start_date") == start


@pytest.mark.usefixtures("medication_frame_open")
@needs_encoder
@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("I stopped the atorvastatin yesterday.", {"stop_date": "2026-06-07"}),
        ("I came off the sertraline on Friday.", {"stop_date": "2026-06-05"}),
        ("I started the sertraline on Friday.", {"start_date": "2026-06-05"}),
    ],
)
def test_a_medication_date_is_a_stop_when_a_stop_is_said(
    catalog: Catalog, text: str, dates: dict[str, str]
) -> None:
    [(path, value)] = said(text)
    assert path == "health.medications"
    assert {k: v for k, v in value.items() if k.endswith("_date")} == dates


@pytest.mark.usefixtures("medication_frame_open")
@needs_encoder
@pytest.mark.parametrize(
    "text",
    [
        "The doctor wants me to try rosuvastatin instead.",
        "She told me to try cetirizine.",
    ],
)
def test_a_drug_someone_wants_the_user_to_try_is_not_taken_yet(catalog: Catalog, text: str) -> None:
    assert said(text) == []


def test_a_provider_is_never_a_code_with_digits() -> None:
    text = "The policy number is HX-4471-22, and it is with Allianz."
    assert [f.value for f in parser("provider")(text, TODAY, "future")] == ["Allianz"]


@pytest.mark.usefixtures("medication_frame_open")
@needs_encoder
def test_a_drug_the_user_used_to_take_is_not_a_current_medication(catalog: Catalog) -> None:
    assert said("I used to take ibuprofen for my back.") == []
