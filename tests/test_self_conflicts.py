"""No self-conflicts: two events extracted from one message that say one event (one sentence,
the same slot, or near-equal titles) never conflict with each other; the same events learned
from two messages, or stated by the user (imported), still do. Gold facts appended as the
extractor would write them (automatic source, evidence quotes with offsets), so extraction
itself plays no part."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from uac import Memory
from uac.fact_log.chain import Batch, NewFact, NewInput

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

AT = dt.datetime(2025, 3, 1, 9)
MESSAGE = "She is in her school play on Friday at 6pm. The performance starts at 6pm."


def _event(title: str, start: str, offset: int, quote: str, end: str | None = None) -> NewFact:
    value = {"title": title, "start": start} | ({"end": end} if end else {})
    return NewFact(
        op="assert",
        kind="record",
        path="schedule.events",
        value=value,
        record_key=f"{title}|{start}",
        source="automatic_rule",
        confidence=0.9,
        evidence={"offset": offset, "quote": quote, "tier": "exact"},
        input_index=0,
    )


def _said(mem: Memory, text: str, *events: NewFact) -> None:
    inp = NewInput(kind="message", content=text, source="user", observed_at=AT)
    mem._append(Batch(mem.address("u"), AT, "test", inputs=[inp], facts=list(events)))


def _conflicts(mem: Memory) -> list[Any]:
    mem.check("u", today=dt.date(2025, 3, 1))
    return [a for a in mem.alerts("u") if a.check == "event_overlap"]


def test_two_events_from_one_sentence_are_one_event(mem: Memory) -> None:
    sentence = MESSAGE.split(". ")[0] + "."
    _said(
        mem,
        MESSAGE,
        _event("In her school play", "2025-03-14T18:00", 0, sentence),
        _event("School play", "2025-03-14T18:30", 0, sentence),
    )
    assert _conflicts(mem) == []


def test_two_events_of_one_message_in_the_same_slot_are_one_event(mem: Memory) -> None:
    first, second = MESSAGE.split(". ")
    _said(
        mem,
        MESSAGE,
        _event("In her school play", "2025-03-14T18:00", 0, first + "."),
        _event("Performance", "2025-03-14T18:00", len(first) + 2, second),
    )
    assert _conflicts(mem) == []


def test_two_different_events_of_one_message_still_conflict(mem: Memory) -> None:
    text = "Dentist on Friday 3pm to 4pm. Call with Bob on Friday at 3.30pm."
    first, second = text.split(". ")
    _said(
        mem,
        text,
        _event("Dentist", "2025-03-14T15:00", 0, first + ".", end="2025-03-14T16:00"),
        _event("Call with Bob", "2025-03-14T15:30", len(first) + 2, second),
    )
    [a] = _conflicts(mem)
    assert "'Dentist'" in a.message and "'Call with Bob'" in a.message


def test_the_same_slot_learned_from_two_messages_still_conflicts(mem: Memory) -> None:
    first, second = MESSAGE.split(". ")
    _said(mem, first + ".", _event("In her school play", "2025-03-14T18:00", 0, first + "."))
    _said(mem, second, _event("Performance", "2025-03-14T18:00", 0, second))
    assert len(_conflicts(mem)) == 1


def test_two_events_the_user_stated_in_one_import_still_conflict(mem: Memory) -> None:
    rows = [
        {"title": "School play", "start": "2025-03-14T18:00"},
        {"title": "Parents' evening", "start": "2025-03-14T18:00"},
    ]
    mem.import_records("u", "events", rows, now=AT)
    assert len(_conflicts(mem)) == 1
