"""`preview` on the service and the agent surfaces: HTTP (keys, OpenAPI), `check_plan` tool.

A subject-bound or read-only key may preview (it writes nothing) but never another
subject; the `check_plan` tool (OpenAI specs, MCP) tells a model to call it before acting.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import sys
import urllib.request
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from test_serve import _admin, _key, serving

from tests.mcp_stdio import server_stderr
from uac import AgentTools, Client, Memory
from uac.runtime.api.client import AccessDenied

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

ROOT = Path(__file__).resolve().parents[1]
NOW = "2026-05-01T09:00:00"
TRIP = {"city": "Tokyo", "country": "JP", "depart": "2026-05-28", "return_date": "2026-06-12"}
FLIGHT = "I'm flying from Lisbon to Tokyo on 28 May, back on 12 June."


def _checks(out: dict) -> list[str]:
    return sorted(a["check"] for a in out["raised"])


def test_the_check_plan_tool_is_read_before_acting(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        mem.set("alice", "identity.passport.expiry_date", "2026-06-01")
        tools = AgentTools(mem, "alice")
        spec = next(s for s in tools.specs() if s["function"]["name"] == "check_plan")
        description = spec["function"]["description"]
        assert "BEFORE acting" in description and "booking" in description
        assert "prescribing" in description and "scheduling" in description
        props = spec["function"]["parameters"]["properties"]
        assert {"text", "facts", "at"} <= set(props) and "subject" not in props
        facts = len(mem.facts("alice"))
        out = tools.call("check_plan", {"text": FLIGHT, "at": "2026-05-01"})
        assert "passport_validity_for_trip" in _checks(out) and out["written"] is False
        typed = tools.call(
            "check_plan", {"facts": [{"path": "travel.trips", "record": TRIP}], "at": "2026-05-01"}
        )
        assert _checks(typed) == _checks(out)
        assert len(mem.facts("alice")) == facts  # a tool call that writes nothing
        assert "bad arguments" in tools.call("check_plan", {"facts": [{"value": 1}]})["error"]
        assert "at: not a date" in tools.call("check_plan", {"text": "x", "at": "soon"})["error"]


async def _mcp_check(home: Path) -> dict:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "uac.runtime.cli", "--home", str(home), "mcp", "alice"],
        cwd=str(ROOT),
        env=dict(os.environ),  # the SDK passes only a few variables; the log binding is here
    )
    async with (
        stdio_client(params, errlog=server_stderr()) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        out = await session.call_tool("check_plan", {"text": FLIGHT, "at": "2026-05-01"})
        return {"tools": tools, "out": json.loads(out.content[0].text)}


def test_check_plan_over_mcp(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    with Memory(home, create=True) as mem:
        mem.set("alice", "identity.passport.expiry_date", "2026-06-01")
        facts = len(mem.facts("alice"))
    result = asyncio.run(asyncio.wait_for(_mcp_check(home), 180))
    assert "BEFORE acting" in (result["tools"]["check_plan"].description or "")
    assert "passport_validity_for_trip" in _checks(result["out"])
    with Memory(home, read_only=True) as mem:
        assert len(mem.facts("alice")) == facts


def test_preview_over_http_follows_the_keys(tmp_path: Path) -> None:
    # A server checks a write as of its own day (a far `now` is clamped to it), and so does
    # its preview: the plan is dated from today.
    today = dt.date.today()
    expiry, depart, back = (today + dt.timedelta(days=d) for d in (60, 30, 90))
    trip = {**TRIP, "depart": depart.isoformat(), "return_date": back.isoformat()}
    words = f"I'm flying from Lisbon to Tokyo on {depart:%d %B %Y}, back on {back:%d %B %Y}."
    home = tmp_path / "ws"
    with serving(home) as info:
        admin = _admin(info)
        writer = Client(info["url"], _key(admin, "default"))
        bound = Client(info["url"], _key(admin, "default", subject="user:alice"))
        reader = Client(info["url"], _key(admin, "default", read_only=True))
        for user in ("alice", "bob"):
            writer.set(user, "identity.passport.expiry_date", expiry.isoformat())
        before = writer.facts("alice")
        proposal = {"facts": [{"path": "travel.trips", "record": trip}], "now": NOW}
        out = bound.preview("alice", **proposal).as_dict()
        assert "passport_validity_for_trip" in _checks(out) and out["today"] == str(today)
        assert bound.preview("alice", **proposal).as_dict() == out  # same proposal, same answer
        assert _checks(reader.preview("alice", words).as_dict()) == _checks(out)
        past = bound.preview("alice", **proposal, today=dt.date(2020, 1, 1)).as_dict()  # as of then
        assert past["today"] == "2020-01-01"
        with pytest.raises(AccessDenied, match="another subject"):
            bound.preview("bob", **proposal)
        # The tool verb too: check_plan writes nothing, so a read-only key may call it.
        tool = AgentTools(reader, "alice").call("check_plan", {"text": words})
        assert _checks(tool) == _checks(out)
        assert writer.facts("alice") == before and writer.facts("bob")[0].path.startswith("id")
        with urllib.request.urlopen(info["url"] + "/openapi.json", timeout=30) as response:
            paths = json.loads(response.read())["paths"]
        assert "post" in paths["/v1/subjects/{subject}/preview"]
