"""Frames meant to carry over to new writers: amounts said without a currency, plans and needs
that state no fact, a sentence read alone as well as after its predecessor, and the
leave-one-set-out index the frames are measured with."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import encoder, frames
from uac.fact_log.extraction.slots import parser

AT = dt.datetime(2026, 12, 6, 10, 0)
TODAY = AT.date()


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("I pay 17.99 a month for Netflix.", ["17.99"]),
        ("Spent 38 at the pharmacy and 120 at IKEA today.", ["38", "120"]),
        ("Paid the rent today, 1,450 to Greenfield Properties.", ["1,450"]),
        ("I paid 899 for it.", ["899"]),
        ("Spotify is 11.99 monthly.", ["11.99"]),
        ("I paid $1,249 for the laptop.", ["$1,249"]),
    ],
)
def test_an_amount_said_as_paid_is_found_with_its_span(text: str, said: list[str]) -> None:
    found = parser("amount")(text, TODAY, "past")
    assert [text[f.start : f.end] for f in found] == said
    assert all(f.value["amount"].replace(".", "").isdigit() for f in found)


@pytest.mark.parametrize(
    "text",
    [
        "The meeting is at 10 for 2 hours.",
        "I'm away for 25 days.",
        "She takes 5 mg for the pain.",
        "We stayed for 3 nights and that was 2026.",
        "The flight is at 9:30, the gate is 12.",
        "I walked for 45 minutes.",
    ],
)
def test_numbers_with_units_clock_times_and_years_are_not_amounts(text: str) -> None:
    assert parser("amount")(text, TODAY, "past") == []


needs_encoder = pytest.mark.skipif(not encoder.available(), reason="encoder not installed")


@needs_encoder
@pytest.mark.parametrize(
    "text",
    [
        "I need to sort out my visa for India.",
        "We're thinking of getting travel insurance until 20 June.",
    ],
)
def test_a_plan_or_a_need_states_no_fact_of_a_state_frame(catalog: Catalog, text: str) -> None:
    assert frames.extract(text, AT, catalog) == []


@needs_encoder
@pytest.mark.parametrize(
    "text",
    [
        "My passport expires on 3 May 2031.",
        "Need to book flights soon, my passport expires on 3 May 2031.",
    ],
)
def test_a_state_said_plainly_is_still_learned(catalog: Catalog, text: str) -> None:
    found = frames.extract(text, AT, catalog)
    assert [(c.path, c.value) for c in found] == [("identity.passport.expiry_date", "2031-05-03")]


@needs_encoder
def test_a_sentence_is_read_for_its_own_frame_after_another_frames_sentence(
    catalog: Catalog,
) -> None:
    text = "My passport expires on 3 May 2031. Also I'm allergic to penicillin."
    found = {c.path: c.value for c in frames.extract(text, AT, catalog)}
    assert found.get("identity.passport.expiry_date") == "2031-05-03"
    assert found.get("health.allergies", {}).get("substance", "").lower() == "penicillin"


@needs_encoder
def test_leaving_a_set_out_drops_its_examples_and_restores_the_index() -> None:
    full = frames.index()
    rows = [r for r in frames._sourced_examples() if r[2] == "dev"]
    assert rows, "the examples file has examples from the dev set"
    with frames.without_examples(["dev"]) as held:
        assert frames.index() is held
        assert held.vectors.shape[0] == full.vectors.shape[0] - len(rows)
    assert frames.index() is full
