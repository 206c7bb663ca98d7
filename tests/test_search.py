"""Hybrid notes search: ranking, filters, recency, feedback, retracts, isolation, increments."""

from __future__ import annotations

import datetime as dt
import json
import math
import threading
from pathlib import Path
from typing import Any

import duckdb
import pytest
from duckdb_fts import load_fts
from hypothesis import given, settings
from hypothesis import strategies as st

from uac import Memory
from uac.fact_log.addressing import Address
from uac.fact_log.errors import InputError
from uac.fact_log.store import Batch, NewFact, NewInput
from uac.runtime.search import lexical as lexical_module
from uac.runtime.search.analyzer import IRREGULAR, porter, words
from uac.runtime.search.embedders import HashingEmbedder
from uac.runtime.search.index import SearchIndex, feedback_fact

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("a feedback fact's shape alone: no log")

T0 = dt.datetime(2026, 1, 10, 9, 0)
TODAY = dt.date(2026, 2, 1)
ALICE = Address("default", "user", "alice")

NOTES = [
    "My dog Rex is allergic to chicken, so only fish based dog food",
    "Booked a flight to Lisbon for the design conference in March",
    "I prefer aisle seats on long flights, never the middle seat",
    "Mum's birthday is on the 14th of May, she likes orchids",
    "The plumber said the boiler needs a new pressure valve next winter",
    "Started learning Portuguese with a tutor on Tuesday evenings",
    "Allergic to penicillin: it gave me a rash as a child",
    "Parking at the office is free after 6pm on weekdays",
]


def add_all(mem: Memory, subject: str = "alice", start: dt.datetime = T0) -> list[str]:
    """Add the sample notes a day apart and return their fact ids."""
    return [
        mem.add_note(subject, text, now=start + dt.timedelta(days=i)).id
        for i, text in enumerate(NOTES)
    ]


def append(mem: Memory, addr: Address, fact: NewFact, at: dt.datetime = T0) -> str:
    """Append one fact for addr directly through the store and return its id."""
    return mem.store.append(Batch(addr, at, "test", facts=[fact]))[0].id


def texts(hits: list) -> list[str]:
    return [h.text for h in hits]


@pytest.fixture
def index(mem: Memory) -> SearchIndex:
    # The feature-hashing list (the fallback without the weights package): these tests pin
    # index maintenance and fusion on its exact, batch-independent vectors; the default
    # MiniLM list is tested in tests/test_search_default.py.
    return SearchIndex(mem.store, HashingEmbedder())


def test_keyword_query_ranks_the_matching_note_first(mem: Memory, index: SearchIndex) -> None:
    ids = add_all(mem)
    hits = index.search(ALICE, "boiler pressure valve", today=TODAY)
    assert hits[0].id == ids[4]
    assert hits[0].kind == "note"
    assert hits[0].bm25_rank == 1 and hits[0].vector_rank == 1
    assert hits[0].rrf == pytest.approx(2 / 61)
    assert hits == sorted(hits, key=lambda h: -h.score)


def test_typo_and_paraphrase_are_found_by_the_fused_ranking(
    mem: Memory, index: SearchIndex
) -> None:
    ids = add_all(mem)
    # "flihgt"/"Lisbn": one edit from a word the subject uses, so BM25 spells them right.
    lexical = index.search(ALICE, "flihgt Lisbn", today=TODAY, dense=False)
    assert lexical[0].id == ids[1] and lexical[0].bm25_rank == 1
    # "flig Lisb" is too short to correct and defeats BM25; the character n-grams of the
    # dense path still match.
    assert index.search(ALICE, "flig Lisb", today=TODAY, dense=False) == []
    fused = index.search(ALICE, "flig Lisb", today=TODAY)
    assert fused[0].id == ids[1] and fused[0].bm25_rank is None
    # Different wording: "allergy"/"antibiotics" share no stem with the note's words.
    hits = index.search(ALICE, "penicilin allergy antibiotics", today=TODAY, k=3)
    assert ids[6] in [h.id for h in hits]


def test_kind_and_since_filters(mem: Memory, index: SearchIndex) -> None:
    ids = add_all(mem)
    msg = NewInput("message", "Remind me: the boiler service is booked", "user_message")
    mem.store.append(Batch(ALICE, T0 + dt.timedelta(days=30), "test", inputs=[msg]))
    both = index.search(ALICE, "boiler", today=TODAY)
    assert {h.kind for h in both} >= {"note", "input"}
    notes = index.search(ALICE, "boiler", today=TODAY, kind="note")
    assert notes and {h.kind for h in notes} == {"note"}
    inputs = index.search(ALICE, "boiler", today=TODAY, kind="input")
    assert texts(inputs) == ["Remind me: the boiler service is booked"]
    # A note's own archived input is not a second hit.
    assert sum(h.text.startswith("The plumber") for h in both) == 1
    since = T0 + dt.timedelta(days=5)
    recent = index.search(ALICE, "seats tutor parking", today=TODAY, since=since, k=50)
    assert recent and all(h.date >= since for h in recent)
    assert ids[0] not in [h.id for h in index.search(ALICE, "dog", today=TODAY, since=since)]
    assert index.search(ALICE, "dog", today=TODAY, since=dt.date(2027, 1, 1)) == []


def test_recency_decays_with_the_half_life(mem: Memory, index: SearchIndex) -> None:
    old = mem.add_note("alice", "Renew the car insurance", now=dt.datetime(2025, 2, 1)).id
    new = mem.add_note("alice", "Renew the car insurance", now=dt.datetime(2026, 1, 1)).id
    hits = index.search(ALICE, "car insurance", today=TODAY)
    assert [h.id for h in hits] == [new, old]
    assert hits[1].recency == pytest.approx(0.5 + 0.5 * 0.5 ** (365 / 180))
    flat = index.search(ALICE, "car insurance", today=TODAY, half_life_days=math.inf)
    assert {h.recency for h in flat} == {1.0}
    assert hits[0].recency == pytest.approx(0.5 + 0.5 * 0.5 ** (31 / 180))
    ancient = index.search(ALICE, "car insurance", today=dt.date(2400, 1, 1))
    assert min(h.recency for h in ancient) == pytest.approx(0.5)  # the floor


def test_negative_feedback_halves_the_score_and_its_retract_restores_it(
    mem: Memory, index: SearchIndex
) -> None:
    ids = add_all(mem)
    before = {h.id: h for h in index.search(ALICE, "allergic", today=TODAY)}
    fb = append(mem, ALICE, feedback_fact(ids[0], "about the dog, not me"))
    after = {h.id: h for h in index.search(ALICE, "allergic", today=TODAY)}
    assert after[ids[0]].negative_feedback and after[ids[0]].feedback == 0.5
    assert after[ids[0]].score == pytest.approx(before[ids[0]].score / 2)
    assert not after[ids[6]].negative_feedback
    assert after[ids[6]].score == pytest.approx(before[ids[6]].score)
    undo = NewFact(op="retract", kind="note", path="notes", value={"target": fb})
    append(mem, ALICE, undo)
    restored = {h.id: h for h in index.search(ALICE, "allergic", today=TODAY)}
    assert not restored[ids[0]].negative_feedback
    assert restored[ids[0]].score == pytest.approx(before[ids[0]].score)


@NO_LOG
def test_feedback_fact_shape() -> None:
    fact = feedback_fact("f_abc", "wrong trip")
    assert (fact.op, fact.kind, fact.path) == ("feedback", "note", "notes")
    assert fact.value == {"target": "f_abc", "signal": "not_this", "reason": "wrong trip"}
    with pytest.raises(InputError):
        feedback_fact("")


def test_retracted_notes_are_never_returned(mem: Memory, index: SearchIndex) -> None:
    ids = add_all(mem)
    assert ids[0] in [h.id for h in index.search(ALICE, "dog chicken", today=TODAY)]
    mem.forget("alice", ids[0], reason="the dog moved out")
    for query in ("dog chicken", "Rex", "fish based dog food", NOTES[0]):
        for kind in (None, "note", "input"):
            hits = index.search(ALICE, query, today=TODAY, kind=kind, k=100)
            assert ids[0] not in [h.id for h in hits]
            assert all("Rex" not in h.text for h in hits)
    index.rebuild()
    assert "Rex" not in "".join(texts(index.search(ALICE, "Rex dog", today=TODAY, k=100)))


def test_subjects_scopes_and_tenants_are_isolated(mem: Memory, index: SearchIndex) -> None:
    alice_ids = add_all(mem)
    mem.add_note("bob", "Bob's secret: zanzibar holiday booked", now=T0)
    group = Address("default", "group", "alice")
    other_tenant = Address("acme", "user", "alice")
    for addr in (group, other_tenant):
        secret = NewFact(op="assert", kind="note", path="notes", text="zanzibar holiday plan")
        mem.store.append(
            Batch(addr, T0, "test", inputs=[NewInput("message", "zanzibar chat", "user_message")])
        )
        append(mem, addr, secret)
        # Feedback and retracts filed under another subject never touch alice's notes.
        append(mem, addr, feedback_fact(alice_ids[2], "cross-subject"))
        append(mem, addr, NewFact(op="retract", kind="note", path="notes",
                                  value={"target": alice_ids[1]}))  # fmt: skip
    hits = index.search(ALICE, "zanzibar holiday", today=TODAY, k=100)
    assert all("zanzibar" not in h.text.lower() for h in hits)
    everything = index.search(ALICE, "seats flight Lisbon", today=TODAY, k=100)
    assert {h.id for h in everything} <= set(alice_ids)
    assert alice_ids[1] in {h.id for h in everything}
    assert not any(h.negative_feedback for h in everything)
    for addr in (group, other_tenant):
        theirs = index.search(addr, "zanzibar", today=TODAY, k=100)
        assert theirs and all("zanzibar" in h.text for h in theirs)
        assert not set(alice_ids) & {h.id for h in index.search(addr, "flight", today=TODAY)}
    assert index.search(Address("default", "user", "nobody"), "zanzibar", today=TODAY) == []


def test_hostile_text_is_only_ever_a_parameter(mem: Memory, index: SearchIndex) -> None:
    evil = "Robert'); DROP TABLE facts; -- $1 ? {x} \\' \" lambda t: t"
    fid = mem.add_note("alice", evil, now=T0).id
    hits = index.search(ALICE, evil, today=TODAY)
    assert hits[0].id == fid and hits[0].text == evil
    assert mem.store.con.execute("SELECT count(*) FROM facts").fetchone()[0] == 1


def test_adding_a_note_indexes_only_that_note(mem: Memory, index: SearchIndex) -> None:
    add_all(mem)
    index.sync()
    con = mem.store.con
    postings = con.execute("SELECT * FROM search_postings ORDER BY ALL").fetchall()
    before = index.stats()
    new = mem.add_note("alice", "Dentist appointment moved to Friday", now=T0)
    hits = index.search(ALICE, "dentist", today=TODAY)
    assert hits[0].id == new.id
    after = index.stats()
    assert after["rebuilds"] == before["rebuilds"] == 0
    assert after["syncs"] == before["syncs"] + 1
    assert after["last_sync_docs"] == 1 and after["last_sync_vectors"] == 1
    assert after["docs"] == before["docs"] + 1 and after["vectors"] == before["vectors"] + 1
    new_doc = con.execute("SELECT doc FROM search_docs WHERE item_id = ?", [new.id]).fetchone()
    old_postings = con.execute(
        "SELECT * FROM search_postings WHERE doc <> ? ORDER BY ALL", [new_doc[0]]
    ).fetchall()
    assert old_postings == postings  # nothing already indexed was rewritten
    assert index.sync() == 0 and index.stats()["syncs"] == after["syncs"]


def test_rebuild_gives_the_same_ranking_as_incremental_syncs(
    mem: Memory, index: SearchIndex
) -> None:
    for i, text in enumerate(NOTES):
        mem.add_note("alice", text, now=T0 + dt.timedelta(hours=i))
        index.sync()
    queries = ("allergic", "flight seats", "birthday orchids", "portugese lessons")
    incremental = [index.search(ALICE, q, today=TODAY) for q in queries]
    index.rebuild()
    assert index.stats()["rebuilds"] == 1
    assert [index.search(ALICE, q, today=TODAY) for q in queries] == incremental


def test_lexical_scores_match_duckdb_match_bm25(mem: Memory, index: SearchIndex) -> None:
    # The reference indexes the same analysed terms (analyzer.py: irregular forms, no "'s"
    # junk, Porter stems), so this checks the BM25 arithmetic and the incremental statistics.
    add_all(mem)
    index.sync()
    docs = mem.store.con.execute("SELECT doc, text FROM search_docs ORDER BY doc").fetchall()
    ref = duckdb.connect()
    load_fts(ref)
    ref.execute("CREATE TABLE d (doc BIGINT, text VARCHAR)")
    analysed = index.analyzer.documents([text for _, text in docs])
    for (doc, _), (tf, length) in zip(docs, analysed, strict=True):
        assert all(f == int(f) for f in tf.values()) and length == sum(tf.values())
        terms = " ".join(" ".join([t] * int(f)) for t, f in sorted(tf.items()))
        ref.execute("INSERT INTO d VALUES (?, ?)", [doc, terms])
    ref.execute(
        "PRAGMA create_fts_index('d', 'doc', 'text', stemmer = 'none', stopwords = 'none',"
        " ignore = '[^a-z0-9]+', strip_accents = 0, lower = 0)"
    )
    doc_of = {row[0]: row[1] for row in mem.store.con.execute(
        "SELECT item_id, doc FROM search_docs").fetchall()}  # fmt: skip
    for query in ("allergic dog", "flights seat", "boiler valve winter", "the 14th of may"):
        hits = index.search(ALICE, query, today=TODAY, dense=False, k=50)
        # Hits are ordered by the final score (recency included); compare the BM25 list.
        ours = [(doc_of[h.id], h.bm25) for h in sorted(hits, key=lambda h: h.bm25_rank)]
        theirs = ref.execute(
            "SELECT doc, s FROM (SELECT doc, fts_main_d.match_bm25(doc, ?, k := ?, b := ?) AS s"
            " FROM d) WHERE s IS NOT NULL ORDER BY s DESC, doc",
            [
                " ".join(index.analyzer.query_terms(query)),
                lexical_module.BM25_K1,
                lexical_module.BM25_B,
            ],
        ).fetchall()
        assert theirs and [d for d, _ in ours] == [d for d, _ in theirs]
        # The extension takes log10 for the idf; ours is the natural log.
        for (_, a), (_, b) in zip(ours, theirs, strict=True):
            assert a == pytest.approx(b * math.log(10))


def test_read_only_store_searches_what_was_indexed(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:  # the index, not a compile per note
        ids = add_all(mem)
        SearchIndex(mem.store).sync()
        late = mem.add_note("alice", "Dog walker comes on Mondays", now=T0).id
    with Memory(home, read_only=True) as ro:
        index = SearchIndex(ro.store)
        assert index.pending() == (1, 1)
        found = [h.id for h in index.search(ALICE, "dog", today=TODAY)]
        assert ids[0] in found and late not in found
        with pytest.raises(InputError):
            index.sync()


def test_read_only_store_never_indexed_returns_nothing(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:  # the index, not a compile per note
        add_all(mem)
    with Memory(home, read_only=True) as ro:
        index = SearchIndex(ro.store)
        assert index.search(ALICE, "dog", today=TODAY) == []
        assert index.pending() == (len(NOTES), len(NOTES))


def test_switching_embedder_reembeds_without_touching_postings(mem: Memory) -> None:
    add_all(mem)
    first = SearchIndex(mem.store, HashingEmbedder(256))
    first.sync()
    postings = first.stats()["postings"]
    second = SearchIndex(mem.store, HashingEmbedder(64))
    assert second.stats()["vectors"] == len(NOTES)
    assert second.stats()["postings"] == postings and second.stats()["rebuilds"] == 0
    assert second.search(ALICE, "flihgt Lisbn", today=TODAY)[0].text == NOTES[1]


class Counting:
    """A real embedder that records every text it is asked to embed."""

    def __init__(self, inner: HashingEmbedder) -> None:
        self.inner, self.texts = inner, []
        self.name, self.dim, self.semantic = inner.name, inner.dim, inner.semantic

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        return self.inner.embed(texts)


class SmallSteps(SearchIndex):
    """The index with a step small enough for a test's few dozen documents."""

    backfill = 10


def test_an_existing_index_keeps_its_vectors_and_embeds_only_new_items(mem: Memory) -> None:
    add_all(mem)
    first = Counting(HashingEmbedder())
    SearchIndex(mem.store, first).sync()
    assert sorted(first.texts) == sorted(NOTES)  # each item once, at indexing
    again = Counting(HashingEmbedder())
    index = SearchIndex(mem.store, again)  # the same workspace reopened: nothing re-embedded
    index.search(ALICE, "boiler pressure valve", today=TODAY, lexical=False)
    assert again.texts == ["boiler pressure valve"]
    mem.add_note("alice", "The garden hose leaks at the tap", now=T0)
    index.search(ALICE, "garden hose", today=TODAY, lexical=False)
    assert again.texts[1:] == ["The garden hose leaks at the tap", "garden hose"]


def test_a_new_embedder_embeds_a_step_per_search_never_the_whole_workspace(mem: Memory) -> None:
    # Abe's notes are written first and his name sorts first: on either backend (log order,
    # or subject by subject) his documents get the lowest numbers.
    abe = Address("default", "user", "abe")
    old = [f"abe note {i}: the blue kayak is stored in shed {i}" for i in range(5)]
    for i, text in enumerate(old):
        mem.add_note("abe", text, now=T0 + dt.timedelta(minutes=i))
    turns = [f"alice turn {i} about topic {i % 7} and plan {i}" for i in range(26)]
    batch = Batch(ALICE, T0 + dt.timedelta(days=1), "test")
    batch.inputs += [NewInput("message", t, "user_message") for t in turns]
    mem.store.append(batch)
    SearchIndex(mem.store, HashingEmbedder(256)).sync()
    total = len(old) + len(turns)

    new = Counting(HashingEmbedder(64))
    index = SmallSteps(mem.store, new)  # opening embeds one step, not all 31 documents
    assert len(new.texts) == SmallSteps.backfill
    assert index.stats()["vectors_pending"] == total - SmallSteps.backfill
    # Abe's documents are the oldest, embedded last: until then his search is lexical only.
    hits = index.search(abe, "blue kayak shed", today=TODAY)
    assert hits and all(h.vector_rank is None for h in hits)
    assert len(new.texts) == 2 * SmallSteps.backfill  # one more step (no dense list to query)
    steps: list[tuple[int, int]] = []
    index.complete_vectors(lambda done, of: steps.append((done, of)))
    assert steps == [(10, 11), (11, 11)]
    embedded = [t for t in new.texts if t != "blue kayak shed"]
    assert sorted(embedded) == sorted(old + turns)  # every document once, none twice
    assert index.stats()["vectors_pending"] == 0 and index.stats()["vectors"] == total
    hits = index.search(abe, "blue kayak shed", today=TODAY)
    assert hits[0].vector_rank is not None  # complete: his dense list is back


def test_completing_vectors_stops_between_steps_when_asked(mem: Memory) -> None:
    batch = Batch(ALICE, T0, "test")
    batch.inputs += [
        NewInput("message", f"turn {i} about plan {i}", "user_message") for i in range(25)
    ]
    mem.store.append(batch)
    SearchIndex(mem.store, HashingEmbedder(256)).sync()
    index = SmallSteps(mem.store, HashingEmbedder(64))  # opening embeds one step of 25
    stop = threading.Event()
    steps: list[tuple[int, int]] = []

    def one_step_then_stop(done: int, of: int) -> None:
        steps.append((done, of))
        stop.set()

    assert index.complete_vectors(one_step_then_stop, stop=stop) == SmallSteps.backfill
    assert steps == [(10, 15)] and index.stats()["vectors_pending"] == 5  # kept what it did
    assert index.complete_vectors(stop=stop) == 0  # already stopped: not one more step
    assert index.complete_vectors() == 5 and index.stats()["vectors_pending"] == 0


def test_a_long_log_searched_first_gets_its_terms_at_once_and_its_vectors_in_steps(
    mem: Memory,
) -> None:
    turns = [f"alice turn {i} about the red canoe number {i}" for i in range(25)]
    batch = Batch(ALICE, T0, "test")
    batch.inputs += [NewInput("message", t, "user_message") for t in turns]
    mem.store.append(batch)
    counting = Counting(HashingEmbedder())
    index = SmallSteps(mem.store, counting)
    hits = index.search(ALICE, "red canoe number 3", today=TODAY, k=3)
    assert hits[0].text == turns[3]  # every document's terms are indexed by the first search
    assert len(counting.texts) == SmallSteps.backfill  # but only one step of vectors
    assert index.stats()["vectors_pending"] == len(turns) - SmallSteps.backfill
    assert index.search(ALICE, "red canoe number 3", today=TODAY, lexical=False) == []
    index.complete_vectors()
    assert sorted(t for t in counting.texts if t != "red canoe number 3") == sorted(turns)
    hits = index.search(ALICE, "red canoe number 3", today=TODAY, k=3, lexical=False)
    assert hits[0].text == turns[3] and hits[0].vector_rank == 1  # the dense list is back


def test_bad_arguments_are_refused(index: SearchIndex) -> None:
    with pytest.raises(InputError):
        index.search(ALICE, "  ", today=TODAY)
    with pytest.raises(InputError):
        index.search(ALICE, "x", today=TODAY, k=0)
    with pytest.raises(InputError):
        index.search(ALICE, "x", today=TODAY, kind="fact")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        index.search(ALICE, "x", today=TODAY, half_life_days=0)


def test_results_are_deterministic(mem: Memory, index: SearchIndex) -> None:
    add_all(mem)
    add_all(mem, start=T0)  # exact duplicates: ties must break the same way every time
    runs = [index.search(ALICE, "allergic seats", today=TODAY, k=20) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    # Equal scores in a list rank in log order, so the first copy always wins the tie.
    first = next(f.id for f in mem.facts("alice") if f.text == NOTES[6])
    ties = [h for h in runs[0] if h.text == NOTES[6]]
    assert len(ties) == 2 and ties[0].id == first


def test_dense_list_equals_duckdb_cosine_scan(mem: Memory, index: SearchIndex) -> None:
    # The dense list is scored in numpy (arrays.py); DuckDB's array_cosine_similarity over
    # the stored vectors is the reference: same docs, same order, same similarities.
    add_all(mem)
    index.sync()
    dim = index.embedder.dim
    doc_of = {row[0]: row[1] for row in mem.store.con.execute(
        "SELECT item_id, doc FROM search_docs").fetchall()}  # fmt: skip
    for query in ("flihgt Lisbn", "allergy", "orchid birthday present"):
        hits = index.search(ALICE, query, today=TODAY, lexical=False, k=50)
        ours = [(doc_of[h.id], h.cosine) for h in sorted(hits, key=lambda h: h.vector_rank)]
        vec = "[" + ",".join(repr(x) for x in index.embedder.embed([query])[0]) + "]"
        theirs = mem.store.con.execute(
            "SELECT doc, s FROM (SELECT doc, array_cosine_similarity(vec, ?::VARCHAR::"
            f"FLOAT[{dim}]) AS s FROM search_vectors WHERE doc NOT IN (SELECT doc FROM"
            " search_hidden WHERE doc IS NOT NULL)) WHERE s > 0 ORDER BY s DESC, doc",
            [vec],
        ).fetchall()
        assert theirs and [d for d, _ in ours] == [d for d, _ in theirs]
        for (_, a), (_, b) in zip(ours, theirs, strict=True):
            assert a == pytest.approx(b, abs=1e-6)
    assert index.search(ALICE, "flight", today=TODAY, lexical=False, kind="input") == []


def test_loaded_arrays_follow_later_writes(mem: Memory, index: SearchIndex) -> None:
    # A search loads the subject's arrays; later notes, retracts and feedback must reach
    # them (appended, not reloaded), and give what a fresh index over the same log gives.
    ids = add_all(mem)
    assert index.search(ALICE, "dog", today=TODAY)
    late = mem.add_note("alice", "The dog sitter Maria charges 20 euros", now=T0).id
    mem.forget("alice", ids[0], reason="moved out")
    for query in ("dog", "dog sitter euros", "boiler", "allergic"):
        warm = index.search(ALICE, query, today=TODAY, k=20)
        cold = SearchIndex(mem.store, HashingEmbedder())
        cold_hits = cold.search(ALICE, query, today=TODAY, k=20)
        assert warm == cold_hits
    found = [h.id for h in index.search(ALICE, "dog", today=TODAY)]
    assert late in found and ids[0] not in found


def test_tables_from_another_layout_are_rebuilt(mem: Memory, index: SearchIndex) -> None:
    ids = add_all(mem)
    index.sync()
    mem.store.con.execute("UPDATE search_meta SET value = 'old' WHERE key = 'layout'")
    fresh = SearchIndex(mem.store)
    assert fresh.stats()["docs"] == 0  # dropped, then re-indexed lazily from the log
    assert fresh.search(ALICE, "boiler valve", today=TODAY)[0].id == ids[4]
    assert fresh.stats()["docs"] == len(NOTES)


def test_two_indexes_on_one_workspace_never_index_twice(mem: Memory) -> None:
    first, second = SearchIndex(mem.store), SearchIndex(mem.store)
    a = mem.add_note("alice", "Gym on Mondays", now=T0).id
    assert first.search(ALICE, "gym", today=TODAY)[0].id == a
    b = mem.add_note("alice", "Gym bag is in the car", now=T0).id
    assert {h.id for h in second.search(ALICE, "gym", today=TODAY)} == {a, b}
    mem.add_note("alice", "Gym closes at ten", now=T0)
    assert len(first.search(ALICE, "gym", today=TODAY)) == 3
    assert first.stats()["docs"] == second.stats()["docs"] == 3


def test_concurrent_searches_give_the_serial_answers(mem: Memory) -> None:
    # Searches run without a lock while other threads sync: each must read a consistent
    # snapshot. Writes go to another subject, so alice's answers must never change.
    add_all(mem)
    queries = ("dog", "flihgt Lisbn", "allergic", "boiler valve", "aisle seat")
    expected = {q: mem.search("alice", q, today=TODAY) for q in queries}
    errors: list[str] = []

    def searcher() -> None:
        for _ in range(8):
            for q in queries:
                try:
                    if mem.search("alice", q, today=TODAY) != expected[q]:
                        errors.append(f"different answer for {q!r}")
                except Exception as exc:  # every error is a failure of the test
                    errors.append(f"{type(exc).__name__}: {exc}")

    pool = [threading.Thread(target=searcher) for _ in range(4)]
    for t in pool:
        t.start()
    for i in range(20):
        mem.add_note("bob", f"Bob's dog needs a walk at {i}pm near the boiler room", now=T0)
        mem.search("bob", "dog walk", today=TODAY)
    for t in pool:
        t.join()
    assert errors == []
    assert len(mem.search("bob", "dog walk", today=TODAY, k=50)) == 20


def test_searching_never_loads_duckdbs_search_extension(mem: Memory, index: SearchIndex) -> None:
    # Stems come from the Snowball library itself (analyzer.porter), not the 12 MB extension.
    add_all(mem)
    index.sync()
    assert index.search(ALICE, "adopted dogs", today=TODAY)
    loaded = mem.store.con.execute(
        "SELECT count(*) FROM duckdb_extensions() WHERE extension_name = 'fts' AND loaded"
    ).fetchone()
    assert loaded == (0,)


# Words whose Porter stems the analyzer must give as DuckDB's `stem(w, 'porter')` does: every
# word of some of the extraction bench's tuning sessions (never a blind set's), the irregular
# table's base forms and the suffixes Porter strips, each on a few stems.
_BENCH = Path(__file__).resolve().parents[1] / "bench" / "extraction_data"
_SUFFIXES = ("", "s", "es", "ies", "ed", "ing", "ly", "ness", "ational", "ization", "fulness")
_STEMS = ("adopt", "relat", "happi", "hop", "generaliz", "sensit", "caress", "pony", "agree")


@pytest.fixture(scope="module")
def duckdb_stem() -> Any:
    con = duckdb.connect()
    load_fts(con)

    def stem(words: list[str]) -> list[str]:
        row = con.execute(
            "SELECT list_transform(?::VARCHAR[], lambda t: stem(t, 'porter'))", [words]
        ).fetchone()
        assert row is not None
        return list(row[0])

    yield stem
    con.close()


@pytest.mark.no_workspace("two stemmers compared: no log")
def test_porter_stems_are_duckdbs(duckdb_stem: Any) -> None:
    vocabulary: set[str] = {s + x for s in _STEMS for x in _SUFFIXES}
    vocabulary.update(IRREGULAR.values())
    for name in ("dev.jsonl", "heldout.jsonl", "fresh.jsonl", "blind2.jsonl", "blind3.jsonl"):
        for line in (_BENCH / name).read_text(encoding="utf-8").splitlines():
            vocabulary.update(words(json.loads(line)["text"]))
    ordered = sorted(vocabulary)
    assert len(ordered) > 1500
    assert porter(ordered) == duckdb_stem(ordered)


@pytest.mark.no_workspace("two stemmers compared: no log")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.from_regex(r"[a-z0-9]{1,24}", fullmatch=True), min_size=1, max_size=20))
def test_porter_stems_of_any_words_are_duckdbs(duckdb_stem: Any, batch: list[str]) -> None:
    assert porter(batch) == duckdb_stem(batch)
