"""A fault inside one extractor never loses the message or the other extractors' facts."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from uac import Memory
from uac.fact_log import pipeline
from uac.fact_log.extraction.patterns import extract

pytestmark = pytest.mark.usefixtures("backend")
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("extraction of text in memory: no log")

AT = dt.datetime(2027, 3, 1, 9, 0)


def _broken(text: str, *args: object, **kwargs: object) -> list[object]:
    raise ValueError(f"cannot read {text!r}")  # an error whose words quote the message


def test_a_failing_rule_extractor_keeps_the_message_and_records_the_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with Memory(tmp_path / "ws", create=True, react=False) as mem:
        monkeypatch.setattr(pipeline, "extract", _broken)
        said = "I'm allergic to penicillin."
        learned = mem.add("ana", said, at=AT, now=AT)
        monkeypatch.undo()
        assert learned.input_id is not None
        assert [i.content for i in mem.inputs("ana")] == [said]  # archived as always
        faults = [r for r in mem.rejections("ana") if r["reason"] == "extractor_failed"]
        assert len(faults) == 1
        assert json.loads(faults[0]["detail"]) == {"extractor": "rules", "error": "ValueError"}
        (record,) = [r for r in caplog.records if r.name == "uac.fact_log.pipeline"]
        assert "ValueError at" in record.getMessage()
        assert "penicillin" not in record.getMessage() and not record.exc_info  # no words
        # and the next message is read by the rules again
        again = mem.add("ana", said, at=AT, now=AT)
        assert [f.path for f in again.facts] == ["health.allergies"]


@NO_LOG
@pytest.mark.parametrize(
    "text",
    [
        "Choir practice on March 20 at 8pm, weekly till the 15th.",
        "Team meeting at 9am on the 28th, weekly until the 28th.",
    ],
)
def test_a_weekly_series_whose_end_is_before_its_start_keeps_the_start_and_no_end(
    text: str,
) -> None:
    (event,) = [c for c in extract(text, observed_at=AT) if c.path == "schedule.events"]
    assert event.value["repeats"] == "weekly"
    assert "repeat_until" not in event.value
    assert event.value["start"].date() >= dt.date(2027, 3, 20)


@NO_LOG
def test_a_weekly_series_named_by_its_weekday_starts_on_the_next_such_day() -> None:
    (event,) = extract("Band practice on Thursdays at 8pm till the 26th.", observed_at=AT)
    assert event.value["start"] == dt.datetime(2027, 3, 4, 20, 0)
    assert event.value["repeat_until"] == dt.date(2027, 3, 26)
