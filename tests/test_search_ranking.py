"""Notes search quality parts: analyzer, time windows, fusion, recency, neighbours, hops."""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest
from conftest import T0

from uac import AgentTools, Memory
from uac.fact_log.addressing import Address
from uac.fact_log.errors import InputError
from uac.fact_log.store import Batch, NewInput
from uac.runtime.search import timeq
from uac.runtime.search.analyzer import IRREGULAR, split_speaker, words
from uac.runtime.search.embedders import HashingEmbedder, is_semantic
from uac.runtime.search.index import SearchIndex

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("the analyzer and time windows alone: no log")

ALICE = Address("default", "user", "alice")
TODAY = dt.date(2026, 2, 1)


@pytest.fixture
def index(mem: Memory) -> SearchIndex:
    # The feature-hashing list (the fallback without the weights package): these tests pin
    # index maintenance and fusion on its exact, batch-independent vectors; the default
    # MiniLM list is tested in tests/test_search_default.py.
    return SearchIndex(mem.store, HashingEmbedder())


def messages(mem: Memory, turns: list[tuple[str, str, dt.datetime]]) -> list[str]:
    """Append (session, text, time) turns as message inputs; return their input ids."""
    batch = Batch(ALICE, turns[0][2], "test")
    for session, text, at in turns:
        batch.inputs.append(
            NewInput("message", text, "user_message", session_id=session, observed_at=at)
        )
    mem.store.append(batch)
    return [i.id for i in mem.store.inputs(ALICE)][-len(turns) :]


@NO_LOG
def test_analyzer_drops_junk_and_maps_irregular_forms() -> None:
    assert words("Mum's birthday, I'm sure we can't; the parents' car") == [
        "mum",
        "birthday",
        "sure",
        "parents",
        "car",
    ]
    assert words("3 kids, a b c") == ["3", "kids"]  # digits stay, letters alone do not
    assert IRREGULAR["met"] == "meet" and IRREGULAR["bought"] == "buy"
    assert "found" not in IRREGULAR  # also a word of its own ("found a company")
    assert split_speaker("Sam Lee: see you!") == ("Sam Lee", "see you!")
    assert split_speaker("Remind me: the boiler") == (None, "Remind me: the boiler")


def test_morphology_meets_in_the_index(mem: Memory, index: SearchIndex) -> None:
    met = mem.add_note("alice", "I met Ana for coffee at the station", now=dt.datetime(2026, 1, 5))
    buy = mem.add_note("alice", "We bought a used Volvo", now=dt.datetime(2026, 1, 6))
    mem.add_note("alice", "Mum's birthday is in May", now=dt.datetime(2026, 1, 7))
    assert index.search(ALICE, "when did I meet Ana", today=TODAY, dense=False)[0].id == met.id
    assert index.search(ALICE, "buying a car volvo", today=TODAY, dense=False)[0].id == buy.id
    # No one-letter term is indexed: "Mum's" gives "mum", never "s".
    junk = mem.store.con.execute(
        "SELECT count(*) FROM search_postings WHERE length(term) = 1 AND NOT regexp_matches("
        "term, '^[0-9]$')"
    ).fetchone()
    assert junk == (0,)
    assert index.search(ALICE, "s", today=TODAY, dense=False) == []


def test_speaker_field_prefers_the_speakers_turns(mem: Memory, index: SearchIndex) -> None:
    at = dt.datetime(2026, 1, 10, 9)
    ids = messages(
        mem,
        [
            ("s1", "Tom: Good morning Sam!", at),
            ("s1", "Sam: I planted tomatoes this week", at + dt.timedelta(minutes=1)),
        ],
    )
    hits = index.search(ALICE, "what did Sam plant", today=TODAY, dense=False)
    assert hits[0].id == ids[1]


@NO_LOG
def test_time_expressions_become_windows() -> None:
    today = dt.date(2024, 11, 20)
    q = timeq.parse("What did she do in March 2023?", today)
    assert q.windows == ((dt.datetime(2023, 3, 1), dt.datetime(2023, 4, 1)),)
    assert q.text == "What did she do ?" and q.expression == "in march 2023"
    assert timeq.parse("trips in March", today).windows[0][0] == dt.datetime(2024, 3, 1)
    assert timeq.parse("trips in December", today).windows[0][0] == dt.datetime(2023, 12, 1)
    assert timeq.parse("what happened in 2024", today).windows == (
        (dt.datetime(2024, 1, 1), dt.datetime(2025, 1, 1)),
    )
    assert timeq.parse("what did I eat yesterday", today).windows == (
        (dt.datetime(2024, 11, 19), dt.datetime(2024, 11, 20)),
    )
    assert timeq.parse("hikes last summer", today).windows == (
        (dt.datetime(2024, 6, 1), dt.datetime(2024, 9, 1)),
    )
    # In July, "last summer" is the previous year's: this one has not ended.
    assert timeq.parse("hikes last summer", dt.date(2024, 7, 1)).windows[0][0] == dt.datetime(
        2023, 6, 1
    )
    assert timeq.parse("last month", today).windows == (
        (dt.datetime(2024, 10, 1), dt.datetime(2024, 11, 1)),
    )
    assert timeq.parse("last month", dt.date(2024, 1, 5)).windows[0][0] == dt.datetime(2023, 12, 1)
    three = timeq.parse("the call 3 days ago", today).windows[0]
    assert three[0] <= dt.datetime(2024, 11, 17) < three[1]
    assert timeq.parse("what did I read recently", today).recent
    plain = timeq.parse("boiler pressure valve", today)
    assert plain.windows == () and plain.text == "boiler pressure valve" and not plain.recent
    # Past the calendar's ends: no window (the words stay in the query), never an error.
    for far in (
        "what happened 3000 years ago",
        "tea 30000 months ago",
        "tea in March 0000",
        "tea 99999999999999999999 days ago",
    ):
        q = timeq.parse(far, today)
        assert q.windows == () and q.text == far, far


def test_a_time_past_the_calendar_searches_without_a_window(mem: Memory) -> None:
    mem.add_note("alice", "We drank tea by the pyramids.", now=T0)
    tools = AgentTools(mem, "alice")
    out = tools.call("search", {"text": "the pyramids 5000 years ago"})
    assert "error" not in out and "pyramids" in json.dumps(out)
    assert mem.context("alice", query="what happened 3000 years ago")


def test_time_window_filters_on_the_message_time(mem: Memory, index: SearchIndex) -> None:
    march = mem.add_note("alice", "Went hiking in the Alps", now=dt.datetime(2025, 3, 14)).id
    mem.add_note("alice", "Went hiking near the lake", now=dt.datetime(2025, 6, 2))
    mem.add_note("alice", "Bought hiking boots", now=dt.datetime(2025, 3, 2))
    hits = index.search(ALICE, "hiking in March 2025", today=TODAY)
    assert hits and {h.date.month for h in hits} == {3}
    assert hits[0].id == march
    # "in March" without a year: the latest March before today (2025 here).
    assert {h.date.month for h in index.search(ALICE, "hiking in March", today=TODAY)} == {3}
    # Nothing in the window: the whole history rather than nothing.
    assert index.search(ALICE, "hiking in 2019", today=TODAY)
    # time_filter=False keeps the words as words and the whole history.
    assert len(index.search(ALICE, "hiking in March 2025", today=TODAY, time_filter=False)) == 3


def test_recency_breaks_ties_but_never_outranks_relevance(mem: Memory, index: SearchIndex) -> None:
    old = mem.add_note("alice", "Boiler pressure valve replaced", now=dt.datetime(2023, 1, 1)).id
    new = mem.add_note("alice", "Boiler needs a service", now=dt.datetime(2026, 1, 30)).id
    hits = index.search(ALICE, "boiler pressure valve", today=TODAY, half_life_days=30)
    assert [h.id for h in hits] == [old, new]  # three words matched beat one, however old
    assert hits[0].recency < hits[1].recency
    # Asked for what is recent, age weighs more (and a tie goes to the newer).
    twin = mem.add_note("alice", "Boiler needs a service", now=dt.datetime(2024, 1, 1)).id
    tied = index.search(ALICE, "boiler service", today=TODAY)
    assert [h.id for h in tied][:2] == [new, twin]


def test_recently_reorders_the_chosen_items_but_never_swaps_one_out(
    mem: Memory, index: SearchIndex
) -> None:
    old = mem.add_note("alice", "Read the novel Dune", now=dt.datetime(2023, 1, 1))
    new = mem.add_note(
        "alice", "Read a long novel review on the train", now=dt.datetime(2026, 1, 30)
    )
    # Without the cue the newer, weaker match would not make a one-item list; with it,
    # which items are shown is still decided by relevance (the cue only orders them).
    assert [h.id for h in index.search(ALICE, "which novel did I read", today=TODAY, k=1)] == [
        old.id
    ]
    cued = index.search(ALICE, "which novel did I read recently", today=TODAY, k=1)
    assert [h.id for h in cued] == [old.id]
    both = index.search(ALICE, "which novel did I read recently", today=TODAY, k=2)
    assert [h.id for h in both] == [new.id, old.id]  # the cue orders the chosen items
    assert both[0].score > both[1].score and both[0].relevance < both[1].relevance


def test_fusion_is_never_below_its_best_list(mem: Memory, index: SearchIndex) -> None:
    notes = [
        "Booked a flight to Lisbon for the design conference in March",
        "My dog Rex is allergic to chicken",
        "The plumber said the boiler needs a new pressure valve",
        "Started learning Portuguese with a tutor on Tuesday evenings",
        "Allergic to penicillin: it gave me a rash as a child",
        "Parking at the office is free after 6pm on weekdays",
        "Dentist appointment moved to the 14th",
        "Lisbon hotel is near the river, booked two nights",
    ]
    ids = [
        mem.add_note("alice", t, now=dt.datetime(2026, 1, 1) + dt.timedelta(days=i)).id
        for i, t in enumerate(notes)
    ]
    labelled = [
        ("flig Lisb", 0),  # too short to spell-correct: only the character n-grams find it
        ("flihgt Lisbn", 0),  # one edit each: corrected against the subject's vocabulary
        ("boiler valve", 2),
        ("portugese tutor", 3),
        ("penicilin rash", 4),
        ("office parking free", 5),
        ("dentist appointment", 6),
        ("Lisbon river hotel", 7),
        ("dog allergic chicken", 1),
    ]

    def recall(**options: object) -> float:
        found = 0
        for query, n in labelled:
            hits = index.search(ALICE, query, k=1, today=TODAY, **options)  # type: ignore[arg-type]
            found += bool(hits) and hits[0].id == ids[n]
        return found / len(labelled)

    lexical, vector = recall(dense=False), recall(lexical=False)
    assert recall() >= max(lexical, vector)
    assert recall() > lexical  # the typo query is rescued by the vector list


def test_hits_carry_score_parts(mem: Memory, index: SearchIndex) -> None:
    mem.add_note("alice", "Boiler pressure valve replaced", now=dt.datetime(2026, 1, 1))
    hit = index.search(ALICE, "boiler valve", today=TODAY)[0]
    assert hit.lexical == 1.0 and hit.relevance >= hit.lexical
    assert hit.score == pytest.approx(hit.relevance + 0.02 * hit.relevance * hit.recency)
    typo = index.search(ALICE, "bolr vlve", today=TODAY)[0]  # short words: not corrected
    assert typo.lexical is None and typo.vector is not None and typo.bm25_rank is None
    corrected = index.search(ALICE, "boilr valvee", today=TODAY)[0]
    assert corrected.lexical == 1.0 and corrected.bm25 == hit.bm25


def test_neighbours_come_from_the_same_session(mem: Memory, index: SearchIndex) -> None:
    at = dt.datetime(2026, 1, 10, 9)
    turns = [
        ("s1", "Ana: How was the weekend?", at),
        ("s1", "Ben: We adopted a beagle puppy", at + dt.timedelta(minutes=1)),
        ("s1", "Ana: Aww, what's his name?", at + dt.timedelta(minutes=2)),
        ("s1", "Ben: Biscuit!", at + dt.timedelta(minutes=3)),
        ("s2", "Ana: Morning!", at + dt.timedelta(days=9)),
    ]
    ids = messages(mem, turns)
    hit = index.search(ALICE, "beagle puppy", today=TODAY, neighbours=2)[0]
    assert hit.id == ids[1]
    assert [(n.id, n.offset) for n in hit.neighbours] == [(ids[0], -1), (ids[2], 1), (ids[3], 2)]
    # By default a message brings the turn before and after it; neighbours=0 turns that off.
    default = index.search(ALICE, "beagle puppy", today=TODAY)[0]
    assert [(n.id, n.offset) for n in default.neighbours] == [(ids[0], -1), (ids[2], 1)]
    assert index.search(ALICE, "beagle puppy", today=TODAY, neighbours=0)[0].neighbours == ()
    # Notes without a session: neighbours are the items close in time.
    a = mem.add_note("alice", "Parking garage on level 3", now=dt.datetime(2026, 1, 20, 8)).id
    b = mem.add_note("alice", "Ticket in the glovebox", now=dt.datetime(2026, 1, 20, 8, 5)).id
    mem.add_note("alice", "Unrelated far later", now=dt.datetime(2026, 1, 25))
    hit = index.search(ALICE, "parking garage", today=TODAY, neighbours=1)[0]
    assert hit.id == a and [n.id for n in hit.neighbours] == [b]
    with pytest.raises(InputError, match="neighbours"):
        index.search(ALICE, "x", today=TODAY, neighbours=-1)


def test_second_hop_searches_with_names_from_the_first_hits(
    mem: Memory, index: SearchIndex
) -> None:
    first = mem.add_note(
        "alice", "My sister moved in with her partner Jonas", now=dt.datetime(2026, 1, 2)
    ).id
    second = mem.add_note(
        "alice", "Jonas works as a carpenter in Ghent", now=dt.datetime(2026, 1, 3)
    ).id
    for i in range(12):
        mem.add_note("alice", f"My sister sent photo number {i}", now=dt.datetime(2026, 1, 4))
    one = index.search(ALICE, "what does my sister's partner do", today=TODAY, k=5)
    assert one[0].id == first and second not in [h.id for h in one]
    two = index.search(ALICE, "what does my sister's partner do", today=TODAY, k=5, hops=2)
    assert two[0].id == first and second in [h.id for h in two]
    with pytest.raises(InputError, match="hops"):
        index.search(ALICE, "x", today=TODAY, hops=3)


@NO_LOG
def test_semantic_flag() -> None:
    assert not is_semantic(HashingEmbedder())

    class Other:
        name, dim = "other", 8

        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0] + [0.0] * 7 for _ in texts]

    assert is_semantic(Other())  # an embedder from elsewhere is trusted unless it says not
    assert math.isfinite(HashingEmbedder().embed(["x"])[0][0])
