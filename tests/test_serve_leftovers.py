"""Leftovers of the session-10 hostile review of the service and CLI, against real parts."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from test_serve import _admin, _key, serving

from uac import Client, Memory

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL


def _alert_rows(client: Client, subject: str) -> list[dict[str, Any]]:
    rows = client.call("alerts", subject, include_resolved=True)
    return sorted(rows, key=lambda a: a["id"])


def test_a_far_today_over_the_service_is_a_preview_that_stores_nothing(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    today = dt.datetime.now(dt.UTC).date()
    expiry = today + dt.timedelta(days=90)  # a passport expiring soon: an alert now
    with serving(home) as info:
        c = Client(info["url"], _key(_admin(info), "default"))
        c.set("alice", "identity.passport.expiry_date", expiry.isoformat())
        (alert,) = [a for a in _alert_rows(c, "alice") if a["check"] == "document_expiry"]
        assert alert["status"] == "open"
        c.call("ack", "alice", alert_id=alert["id"])
        before = _alert_rows(c, "alice")
        assert [a["status"] for a in before if a["id"] == alert["id"]] == ["acknowledged"]

        # Year 1: the passport is not yet near expiry, so the alert would resolve; year 9999:
        # it is long expired. Both are answered as previews and change no stored alert.
        past = c.call("check", "alice", today="0001-01-01")
        assert past["preview"] is True and alert["id"] in [a["id"] for a in past["resolved"]]
        future = c.call("check", "alice", today="9999-12-31")
        assert future["preview"] is True
        assert _alert_rows(c, "alice") == before
        job = c.call("run-once", today="9999-12-31")
        assert job["preview"] is True and job["id"] == 0
        assert _alert_rows(c, "alice") == before
        # A backdated write (an import of old data) reacts as of the server's day, not 2001.
        c.call("set", "alice", path="identity.name", value="Alice", now="2001-01-01T00:00:00")
        assert _alert_rows(c, "alice") == before
        # The server's own day (a client's local date may be one day off) is stored as ever.
        for day in (today, today + dt.timedelta(days=1)):
            present = c.call("check", "alice", today=day.isoformat())
            assert present["preview"] is False and present["resolved"] == []
        assert [a["status"] for a in _alert_rows(c, "alice") if a["id"] == alert["id"]] == [
            "acknowledged"
        ]
        present = c.call("run-once", today=today.isoformat())
        assert present["preview"] is False and present["id"] >= 1


def test_embedded_today_is_a_parameter_and_is_stored(home: Path) -> None:
    # Embedded, the caller owns the workspace: demos and tests evaluate fixed days.
    with Memory(home, create=True) as mem:
        mem.set("alice", "identity.passport.expiry_date", "2030-03-01")
        result = mem.check("alice", today=dt.date(9999, 12, 31))
        assert result.preview is False
        assert any(a.first_seen == dt.date(9999, 12, 31) for a in mem.alerts("alice"))
