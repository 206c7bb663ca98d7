"""Agent interfaces: OpenAI tool specs with a dispatcher, and MCP over stdio with the SDK client."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from conftest import T0

from tests.mcp_stdio import server_stderr
from uac import AgentTools, Memory

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

ROOT = Path(__file__).resolve().parents[1]


def test_openai_specs_and_dispatch_bind_the_subject(mem: Memory) -> None:
    specs = AgentTools(mem, "alice").specs()
    names = {s["function"]["name"] for s in specs}
    assert {"manifest", "why", "facts", "add", "remember", "forget"} <= names
    for spec in specs:
        params = spec["function"]["parameters"]
        assert spec["type"] == "function" and params["type"] == "object"
        assert "subject" not in params.get("properties", {})  # the host binds it
    mem.set("alice", "identity.passport.expiry_date", "2027-03-01", now=T0)
    mem.set("bob", "identity.passport.expiry_date", "2031-01-01", now=T0)
    out = AgentTools(mem, "alice").call("why", json.dumps({"expr": "user.passport.expiry_date"}))
    assert out["value"] == "2027-03-01" and out["facts"][0]["value"] == "2027-03-01"
    manifest = AgentTools(mem, "alice").call("manifest", {})["manifest"]
    assert "expiry_date=2027-03-01" in manifest and "2031" not in manifest
    learned = AgentTools(mem, "alice").call("remember", {"text": "Prefers the aisle seat"})
    assert learned["facts"][0]["kind"] == "note"
    assert (
        AgentTools(mem, "alice")
        .call("forget", {"fact_id": mem.facts("bob")[0].id})["error"]
        .startswith("subject user:alice has no fact")
    )
    assert "unknown tool" in AgentTools(mem, "alice").call("rm_rf", {})["error"]
    assert "bad arguments for why" in AgentTools(mem, "alice").call("why", {"expr": 3})["error"]
    assert "bad arguments" in AgentTools(mem, "alice").call("why", "{not json")["error"]
    assert "bad arguments" in AgentTools(mem, "alice").call("facts", {"limit": 10**9})["error"]


def test_the_add_tool_reads_a_session_together(mem: Memory) -> None:
    # An agent passing its conversation id gets the same discourse as `uac add --session`:
    # "It's valid until ..." completes the passport the message before named.
    tools = AgentTools(mem, "alice")
    spec = next(s for s in tools.specs() if s["function"]["name"] == "add")
    assert "session" in spec["function"]["parameters"]["properties"]
    for text in ("My new passport finally arrived.", "It's valid until 14 May 2036."):
        tools.call("add", {"text": text, "session": "chat-7"})
    assert [f.value for f in mem.facts("alice", "identity.passport.expiry_date")] == ["2036-05-14"]
    for text in ("My new passport finally arrived.", "It's valid until 14 May 2037."):
        AgentTools(mem, "bob").call("add", {"text": text})  # no session: read alone
    assert mem.facts("bob", "identity.passport.expiry_date") == []


async def _session(home: Path, subject: str) -> dict:
    # The MCP client SDK is imported by the tests that use it: every xdist worker collects
    # this module, and the import costs ~0.5 s of CPU.
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "uac.runtime.cli", "--home", str(home), "mcp", subject],
        cwd=str(ROOT),
        env=dict(os.environ),  # the SDK passes only a few variables; the log binding is here
    )
    async with (
        stdio_client(params, errlog=server_stderr()) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        why = await session.call_tool("why", {"expr": "user.passport.expiry_date"})
        added = await session.call_tool("add", {"text": "I am allergic to penicillin."})
        manifest = await session.read_resource("uac://manifest")
        query = await session.call_tool("query", {"program": "len(user.allergies)"})
        return {
            "query": json.loads(query.content[0].text),
            "tools": tools,
            "why": json.loads(why.content[0].text),
            "added": json.loads(added.content[0].text),
            "manifest": manifest.contents[0].text,
        }


def test_mcp_server_over_stdio_with_the_sdk_client(home: Path) -> None:
    # Written without reacting: the only evaluation is the one the MCP write triggers.
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.passport.expiry_date", "2020-03-01", now=T0)
        mem.set("bob", "identity.passport.expiry_date", "2031-01-01", now=T0)
    result = asyncio.run(asyncio.wait_for(_session(home, "alice"), 180))
    assert {"manifest", "why", "facts", "add", "remember", "forget"} <= set(result["tools"])
    assert "expr" in result["tools"]["why"].input_schema["properties"]
    assert result["why"]["value"] == "2020-03-01"
    assert result["query"]["ok"] and result["query"]["result"] == 1  # exact, sandboxed, via MCP
    assert [f["path"] for f in result["added"]["facts"]] == ["health.allergies"]
    assert "user.allergies: 1 × Allergy" in result["manifest"] and "2031" not in result["manifest"]
    with Memory(home, read_only=True) as mem:
        assert len(mem.facts("bob")) == 1 and len(mem.facts("alice")) == 2
        # The write through MCP reacted: alice's checks ran and stored her alert, bob's not.
        assert [a.check for a in mem.alerts("alice")] == ["document_expiry"]
        assert mem.alerts("bob") == []


@pytest.mark.parametrize("subject", ["robot:x", "../etc"])
def test_mcp_refuses_a_malformed_subject(
    home: Path, subject: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from uac.runtime.cli import main

    Memory(home, create=True).close()
    assert main(["--home", str(home), "mcp", subject]) == 1
    assert "uac: error:" in capsys.readouterr().err


def test_query_through_memory_cli_and_tools(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import datetime as dt

    from uac.runtime.cli import main

    with Memory(home, create=True, react=False) as mem:  # no reaction compiles: queries do
        mem.import_records(
            "alice",
            "trips",
            [
                {"city": "Paris", "country": "FR", "depart": "2024-03-05", "cost": "412.10"},
                {"city": "Rome", "country": "IT", "depart": "2024-06-01", "cost": "380.00"},
                {"city": "Kyoto", "country": "JP", "depart": "2027-01-12", "cost": "2380.00"},
            ],
            now=T0,
        )
        mem.import_records(
            "bob",
            "trips",
            [{"city": "Oslo", "country": "NO", "depart": "2024-01-01", "cost": "999.99"}],
            now=T0,
        )
        # Never compiled: the query compiles alice first and answers (no dead end).
        assert mem.query("alice", "len(user.trips)")["result"] == 3
        assert mem.checkpoint("alice").version == 1
        out = AgentTools(mem, "alice").call(
            "query",
            {"program": "sum(t.cost for t in user.trips if t.depart.year == 2024)"},
        )
        assert out["ok"] and out["result"] == "792.10"  # exact Decimal
        env = mem.query(
            "alice", "[t.city for t in user.trips if t.depart > today]", today=dt.date(2026, 11, 29)
        )
        assert env["result"] == ["Kyoto"]
        assert mem.query("alice", "[t.city for t in user.trips]")["result"] == [
            "Paris",
            "Rome",
            "Kyoto",
        ]
        bad = AgentTools(mem, "alice").call("query", {"program": "user.__class__"})
        assert bad["ok"] is False and bad["error"]["type"] == "not_allowed"
    capsys.readouterr()
    assert main(["--home", str(home), "query", "alice", "len(user.trips)", "--json"]) == 0
    envelope = json.loads(capsys.readouterr().out)
    assert envelope["ok"] and envelope["result"] == 3 and envelope["checkpoint"] == "v000001"
    assert main(["--home", str(home), "query", "alice", "import os\n1"]) == 1
    assert "uac: error: not_allowed (line 1)" in capsys.readouterr().err
    # bob was never compiled: a query compiles him first and answers (no dead end)
    assert main(["--home", str(home), "query", "bob", "sum(t.cost for t in user.trips)"]) == 0
    assert capsys.readouterr().out.strip() == "999.99"


def test_write_tools_report_the_alerts_their_write_raised(home: Path) -> None:
    with Memory(home, create=True) as mem:
        mem.import_records("alice", "allergies", [{"substance": "penicillin"}], now=T0)
        out = AgentTools(mem, "alice").call("add", {"text": "I started taking amoxicillin."})
        [alert] = out["alerts"]
        assert alert["check"] == "drug_allergy" and alert["severity"] == "critical"
        assert out["alerts_resolved"] == []
        gone = AgentTools(mem, "alice").call("forget", {"fact_id": out["facts"][0]["id"]})
        assert [a["id"] for a in gone["alerts_resolved"]] == [alert["id"]]
        json.dumps(gone)  # JSON-ready for MCP and OpenAI tool messages
    with Memory(home, react=False) as mem:  # no reaction: nothing claimed
        out = AgentTools(mem, "alice").call("remember", {"text": "Prefers the aisle seat"})
        assert "alerts" not in out
