"""A calling agent records typed facts itself: `add` returns hints (paths a message may state
that the extractors could not fill) and the `record` tool writes one typed fact, validated by
the catalog, with the alerts it raised."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from uac import Memory
from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import encoder, frames
from uac.runtime.api.tools import AgentTools

pytestmark = pytest.mark.usefixtures("backend")
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("frames over text in memory: no log")
AT = dt.datetime(2026, 12, 6, 10, 0)
needs_encoder = pytest.mark.skipif(not encoder.available(), reason="no encoder weights")


@NO_LOG
@needs_encoder
def test_a_recognised_frame_without_values_becomes_a_hint_not_a_fact() -> None:
    reading = frames.read("dentist appointment next week sometime", AT, Catalog.load())
    assert reading.candidates == []
    [hint] = reading.hints
    assert hint["path"] == "schedule.events" and "start" in hint["fields"]
    assert "record tool" in hint["hint"] and hint["quote"].startswith("dentist")


@NO_LOG
@needs_encoder
def test_a_filled_frame_gives_no_hint_and_chat_gives_neither() -> None:
    catalog = Catalog.load()
    text = "Just picked up my renewed passport today. New expiry is March 5, 2035."
    assert frames.read(text, AT, catalog).hints == []
    assert frames.read("ok thanks, talk later!", AT, catalog) == frames.read("", AT, catalog)


@needs_encoder
def test_add_returns_the_hints_and_the_agent_records_what_was_said(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        tools = AgentTools(mem, "alice")
        out = tools.call("add", {"text": "dentist appointment next week sometime"})
        assert out["facts"] == [] and [h["path"] for h in out["hints"]] == ["schedule.events"]
        done = tools.call(
            "record",
            {
                "path": "schedule.events",
                "record": {"title": "Dentist", "start": "2026-12-14T10:00"},
            },
        )
        assert done["facts"] == 1, done
        assert mem.query("alice", "[e.title for e in user.events]")["result"] == ["Dentist"]


def test_record_writes_an_attribute_and_returns_the_alerts_it_raised(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        tools = AgentTools(mem, "alice")
        trip = {
            "city": "Rome",
            "country": "IT",
            "depart": "2027-03-03",
            "return_date": "2027-03-09",
        }
        assert tools.call("record", {"path": "travel.trips", "record": trip})["facts"] == 1
        out = tools.call("record", {"path": "identity.passport.expiry_date", "value": "2027-03-05"})
        assert out["fact"]["path"] == "identity.passport.expiry_date"
        assert "passport_validity_for_trip" in {a["check"] for a in out["alerts"]}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ({"path": "identity.passport.expiry_date"}, "either 'value'"),
        ({"path": "travel.trips", "value": 1, "record": {"city": "Rome"}}, "either 'value'"),
        ({"path": "travel.trips", "record": {"city": "Rome"}}, "country"),
        ({"path": "identity.passport.expiry_date", "value": "soon"}, "date"),
        ({"path": "no.such.path", "value": 1}, "no.such.path"),
    ],
)
def test_record_refuses_what_the_catalog_does_not_accept_and_writes_nothing(
    tmp_path: Path, args: dict[str, object], said: str
) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        out = AgentTools(mem, "alice").call("record", args)
        assert said in out["error"], out
        assert mem.facts("alice") == []
