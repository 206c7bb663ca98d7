"""Questions apart from alerts: what a check needs to know (and why) is a question, listed by
`Memory.questions`, `uac questions`, the `questions` agent tool and the context block, never
by `alerts`, which lists risks only; a question closes itself the day the fact arrives."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from uac import AgentTools, Memory
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

AT = dt.datetime(2025, 3, 1, 9)
DELHI = {"country": "IN", "city": "Delhi", "depart": "2025-04-20", "return_date": "2025-05-02"}


def test_a_missing_nationality_is_a_question_not_an_alert(mem: Memory) -> None:
    mem.import_records("u", "trips", [DELHI], now=AT)
    mem.check("u", today=AT.date())
    assert mem.alerts("u") == [] and mem.alerts() == []  # risks only
    [q] = mem.questions("u")
    assert q.kind == "question" and q.as_dict()["kind"] == "question"
    assert q.message.startswith("To confirm: which passport will you travel on to Delhi")
    assert q.why and q.check == "visa_for_trip"
    assert [x.id for x in mem.questions()] == [q.id]  # the tenant's questions


def test_an_answered_question_closes_itself_and_the_risk_is_an_alert(mem: Memory) -> None:
    mem.import_records("u", "trips", [DELHI], now=AT)
    mem.check("u", today=AT.date())
    [asked] = mem.questions("u")
    mem.set("u", "identity.nationality", "GB", now=AT + dt.timedelta(days=2))
    mem.check("u", today=dt.date(2025, 3, 3))
    assert mem.questions("u") == []
    [closed] = mem.questions("u", include_resolved=True)
    assert closed.id == asked.id and closed.status == "resolved"
    [alert] = mem.alerts("u")
    assert alert.kind == "alert" and alert.check == "visa_for_trip" and "India" in alert.message


def test_a_trip_with_a_nationality_asks_nothing(mem: Memory) -> None:
    mem.set("u", "identity.nationality", "US", now=AT)
    mem.import_records("u", "trips", [DELHI], now=AT)
    mem.check("u", today=AT.date())
    assert mem.questions("u") == [] and [a.check for a in mem.alerts("u")] == ["visa_for_trip"]


def test_the_agent_tool_and_the_context_block_ask_the_question(mem: Memory) -> None:
    mem.import_records("u", "trips", [DELHI], now=AT)
    mem.check("u", today=AT.date())
    [q] = AgentTools(mem, "u").call("questions", {})["questions"]
    assert q["ask"].startswith("which passport will you travel on") and q["why"]
    block = mem.context("u", today=AT.date())
    assert "which passport will you travel on to Delhi" in block
    assert "## Open alerts" not in block  # a question is not an alert


def test_the_cli_lists_questions_apart_from_alerts(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Memory(home, create=True, react=False) as mem:
        mem.import_records("u", "trips", [DELHI], now=AT)
        mem.check("u", today=AT.date())
    capsys.readouterr()
    assert main(["--home", str(home), "alerts", "u"]) == 0
    assert capsys.readouterr().out.strip() == "no open alerts"
    assert main(["--home", str(home), "questions", "u"]) == 0
    out = capsys.readouterr().out
    assert "  ask: which passport will you travel on to Delhi, India?" in out
    assert "  why: " in out
    assert main(["--home", str(home), "--json", "questions", "u"]) == 0
    [row] = json.loads(capsys.readouterr().out)  # --json: one document
    assert row["kind"] == "question" and row["check"] == "visa_for_trip"


def test_a_served_workspace_answers_questions_and_alerts_apart(home: Path) -> None:
    from test_serve import _admin, _key, serving

    from uac import Client

    # a server checks as of its own clock: a trip ahead of it
    soon = dt.date.today() + dt.timedelta(days=60)
    delhi = DELHI | {"depart": soon.isoformat(), "return_date": str(soon + dt.timedelta(days=12))}
    with serving(home) as info:
        client = Client(info["url"], _key(_admin(info), "default"))
        client.import_records("u", "trips", [delhi])
        client.check("u")
        assert client.alerts("u") == []
        [q] = client.questions("u")
        assert q.kind == "question" and q.check == "visa_for_trip"
        assert "which passport" in q.message and q.why
