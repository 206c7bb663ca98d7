"""The learned value-to-field assignment (fact_log/extraction/assign.py).

Sentences written for these tests (none from a bench set). The behaviour tests read the
shipped weights (fact_log/assign_weights.npz, trained by bench/assign_cv.py --train); the
determinism test trains on rows built here.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from pathlib import Path

import numpy as np
import pytest

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import assign, frames
from uac.fact_log.extraction.candidate import Candidate

TODAY = dt.date(2026, 3, 1)
NO_STORE = "reads sentences only"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def _weights() -> assign.Weights:
    w = assign.load()
    assert w is not None, "fact_log/assign_weights.npz is shipped"
    return w


def _assigned(catalog: Catalog, path: str, value: dict, sentence: str) -> dict[str, str]:
    """What the shipped model fills or changes in the record, as text."""
    framed = [f for f in frames.active_frames() if f.path == path]
    changes = assign.assigned(catalog, path, value, sentence, TODAY, framed, weights=_weights())
    return {field: str(v) for field, (v, _span) in changes.items()}


def _pairs(catalog: Catalog, path: str, value: dict, sentence: str) -> list[assign.Pair]:
    return assign.pairs(catalog, path, value, sentence, TODAY)


def _best(catalog: Catalog, path: str, value: dict, sentence: str, field: str) -> str:
    """The value the shipped model ranks first for the field."""
    framed = [f for f in frames.active_frames() if f.path == path]
    said = assign.pairs(catalog, path, value, sentence, TODAY, framed)
    found = [p for p in said if p.field.name == field]
    probs = _weights().probability([p.features for p in found])
    return str(found[int(np.argmax(probs))].value)


@pytest.mark.no_workspace(NO_STORE)
def test_a_day_after_until_is_the_end_and_the_start_it_contests_stays_empty(
    catalog: Catalog,
) -> None:
    sentence = "Bought travel insurance with Allianz, valid from 2 April until 30 April."
    path = "identity.insurance_policies"
    # the end is the day after "until"; the start is contested by both days: left empty
    assert _assigned(catalog, path, {"kind": "travel"}, sentence) == {"valid_until": "2026-04-30"}
    held = {"kind": "home", "provider": "Zurich", "valid_until": "2027-04-01"}
    sentence = "Our home insurance runs from 2 April 2026 until 1 April 2027, with Zurich."
    assert _best(catalog, path, held, sentence, "valid_from") == "2026-04-02"


@pytest.mark.no_workspace(NO_STORE)
def test_a_repeating_event_ends_on_the_day_after_until(catalog: Catalog) -> None:
    sentence = "Pottery class every Tuesday at 6pm from 7 April until 30 June."
    value = {"title": "Pottery class", "start": "2026-04-07T18:00"}
    assert _assigned(catalog, "schedule.events", value, sentence) == {"repeat_until": "2026-06-30"}


@pytest.mark.no_workspace(NO_STORE)
def test_the_empty_return_of_a_trip_is_filled_and_its_held_day_kept(catalog: Catalog) -> None:
    sentence = "Off to Porto on 9 May, back home on 16 May."
    value = {"city": "Porto", "depart": "2026-05-09"}
    assert _assigned(catalog, "travel.trips", value, sentence) == {"return_date": "2026-05-16"}


@pytest.mark.no_workspace(NO_STORE)
def test_the_party_paid_is_the_payee_and_one_value_fills_one_field(catalog: Catalog) -> None:
    path, value = "finance.scheduled_payments", {"amount": "55", "currency": "GBP"}
    monthly = "£55 goes to Thames Water on the 3rd of every month by direct debit."
    got = _assigned(catalog, path, value, monthly)
    assert got["payee"] == "Thames Water"
    assert "account" not in got  # the party is the payee only
    both = "Every month £55 goes from my Monzo account to Thames Water on the 3rd."
    assert _best(catalog, path, value, both, "payee") == "Thames Water"  # paid to, not from


@pytest.mark.no_workspace(NO_STORE)
def test_a_value_another_field_holds_is_not_taken_again(catalog: Catalog) -> None:
    sentence = "Dinner with Priya on 12 March."
    value = {"title": "Dinner with Priya", "start": "2026-03-12"}
    assert _assigned(catalog, "schedule.events", value, sentence) == {}


@pytest.mark.no_workspace(NO_STORE)
def test_a_field_two_values_contest_stays_empty() -> None:
    field = assign.Field("end", "date", "date", "")
    empty = ("empty=1", "other=0", "carried=0")
    said = [
        assign.Pair(field, assign.Found("2026-05-01", 0, 5), "2026-05-01", False, empty),
        assign.Pair(field, assign.Found("2026-05-03", 9, 14), "2026-05-03", False, empty),
    ]
    assert assign.decide(said, np.array([0.41, 0.44]), fill=0.6, margin=0.3) == {}  # neither
    assert assign.decide(said, np.array([0.71, 0.74]), fill=0.6, margin=0.3) == {}  # both
    assert assign.decide(said, np.array([0.41, 0.74]), fill=0.6, margin=0.3)["end"] is said[1]


@pytest.mark.no_workspace(NO_STORE)
def test_a_held_value_gives_way_only_to_a_much_likelier_one() -> None:
    field = assign.Field("start", "date", "date", "")
    filled = ("empty=0", "other=0")
    held = assign.Pair(field, assign.Found("2026-05-01", 0, 5), "2026-05-01", True, filled)
    other = assign.Pair(field, assign.Found("2026-05-03", 9, 14), "2026-05-03", False, filled)
    assert assign.decide([held, other], np.array([0.4, 0.6]), fill=0.5, margin=0.3) == {}
    chosen = assign.decide([held, other], np.array([0.2, 0.9]), fill=0.5, margin=0.3)
    assert chosen["start"] is other


@pytest.mark.no_workspace(NO_STORE)
def test_retrained_weights_are_byte_identical(catalog: Catalog, tmp_path: Path) -> None:
    trip, event = "travel.trips", "schedule.events"
    rows = [
        (trip, {"city": "Oslo"}, "Oslo from 3 June to 10 June.", "return_date", "2026-06-10"),
        (trip, {"city": "Riga"}, "Riga, leaving 4 July, back 9 July.", "depart", "2026-07-04"),
        (event, {"title": "Yoga"}, "Yoga 5 May until 30 June.", "repeat_until", "2026-06-30"),
    ]
    feats, labels = [], []
    for path, value, sentence, field, want in rows:
        for p in _pairs(catalog, path, value, sentence):
            if p.field.name == field:
                feats.append(p.features)
                labels.append(int(str(p.value) == want))
    written = []
    for i in range(2):
        vocab, coef, bias = assign.train(feats, np.array(labels), min_count=1)
        out = tmp_path / f"w{i}.npz"
        assign.Weights(vocab, coef, bias, 0.5, 0.3).save(out)
        written.append(out.read_bytes())
    assert written[0] == written[1]
    loaded = assign.load(tmp_path / "w0.npz")
    assert loaded is not None and loaded.fill == 0.5 and loaded.margin == 0.3


@pytest.mark.no_workspace(NO_STORE)
def test_the_guard_applies_it_only_when_switched_on(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from uac.fact_log.extraction.abstain import abstain

    text = "Pottery class every Tuesday at 6pm from 7 April until 30 June."
    value = {"title": "Pottery class", "start": "2026-04-07T18:00"}
    cand = Candidate("record", "schedule.events", value, "assert", text[:34], 0, 0.9)
    monkeypatch.setenv("UAC_ASSIGN", "0")  # off: "30 June" has no role, the record a hint
    kept, withheld = abstain(catalog, text, [cand], TODAY)
    assert (kept, [u.candidate for u in withheld]) == ([], [cand])
    monkeypatch.setenv("UAC_ASSIGN", "1")  # on: it is the day the class repeats until
    kept, withheld = abstain(catalog, text, [cand], TODAY)
    assert ([c.value.get("repeat_until") for c in kept], withheld) == (["2026-06-30"], [])
    assert "30 June" in kept[0].quote  # the quote covers the value it gained


# Two messages whose records the assignment completes (the test checks it) and one whose
# record the rules complete alone; written for this test.
THREADED = (
    "Set up a standing order: £200 to my sister every month, next one on the 3rd.",
    "Gym membership at PureGym, £24.99 a month, started 1 February.",
    "Off to Porto on 9 May, back home on 16 May.",
)


def _stage(catalog: Catalog, text: str) -> str:
    """The extraction stage's facts for one message, as one comparable line."""
    from uac.fact_log.addressing import Address
    from uac.fact_log.pipeline import build_message_batch

    at = dt.datetime(2026, 3, 1, 9, 0)
    batch = build_message_batch(
        catalog,
        Address("default", "user", "maya"),
        text,
        observed_at=at,
        recorded_at=at,
        role="user",
        session_id="s",
        history=[],
    )
    return json.dumps([(f.path, f.value) for f in batch.facts], default=str, sort_keys=True)


@pytest.mark.no_workspace(NO_STORE)
def test_threads_starting_from_an_unloaded_model_read_what_one_thread_reads(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UAC_ASSIGN", "0")
    without = [_stage(catalog, text) for text in THREADED]
    monkeypatch.setenv("UAC_ASSIGN", "1")
    serial = [_stage(catalog, text) for text in THREADED]
    # the model fills a field in the first two: a thread that missed or tore it reads otherwise
    assert [a != b for a, b in zip(serial, without, strict=True)] == [True, True, False]
    assign._cached.cache_clear()  # every thread reaches the first load together
    threads, start = 8, threading.Barrier(8)
    got: dict[int, list[str]] = {}

    def read(k: int) -> None:
        order = [(i + k) % len(THREADED) for i in range(len(THREADED))]  # its own order
        start.wait()
        got[k] = [""] * len(THREADED)
        for _ in range(3):
            for i in order:
                got[k][i] = _stage(catalog, THREADED[i])

    workers = [threading.Thread(target=read, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert [got[k] for k in range(threads)] == [serial] * threads
