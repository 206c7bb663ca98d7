"""What a hostile review of the service broke (session 10), each against a real `uac serve`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from test_serve import _admin, _key, _raw, serving

from uac import Client
from uac.fact_log.errors import InputError, NotFound
from uac.runtime.api.client import AccessDenied

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

_INIT = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"},
        },
    }
).encode()


async def _mcp_calls(url: str, key: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    out: list[Any] = []
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http,
        streamable_http_client(url + "/mcp", http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            out.append(json.loads(result.content[0].text))
        manifest = await session.read_resource("uac://manifest")
        out.append(manifest.contents[0].text)
    return out


def test_mcp_needs_a_key_and_read_only_keys_never_write(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    with serving(home) as info:
        url = info["url"]
        admin = _admin(info)
        writer = Client(url, _key(admin, "default"))
        writer.set("alice", "identity.passport.expiry_date", "2030-05-01")
        reader_key = _key(admin, "default", subject="alice", read_only=True)
        before = writer.facts("alice")

        # No key, or an unknown one: no MCP session is opened at all.
        mcp_headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        status, body = _raw(url, "/mcp", _INIT, mcp_headers)
        assert status == 401 and "API key" in body["error"]
        bad = {**mcp_headers, "Authorization": "Bearer uac_nope_nope"}
        assert _raw(url, "/mcp", _INIT, bad)[0] == 401

        # A read-only key over MCP: read tools and the manifest resource yes, write tools no.
        facts, added, remembered, forgot, manifest = asyncio.run(
            asyncio.wait_for(
                _mcp_calls(
                    url,
                    reader_key,
                    [
                        ("facts", {}),
                        ("add", {"text": "I'm allergic to penicillin."}),
                        ("remember", {"text": "written with a read-only key"}),
                        ("forget", {"fact_id": before[0].id}),
                    ],
                ),
                120,
            )
        )
        assert [f["id"] for f in facts["facts"]] == [f.id for f in before]
        for refused in (added, remembered, forgot):
            assert "read-only" in refused["error"], refused
        assert "passport" in manifest
        # The same over the HTTP `tool` verb: a read tool answers, a write tool is a 403.
        reader = Client(url, reader_key)
        assert "manifest" in reader.call("tool", "alice", name="manifest", arguments={})
        with pytest.raises(AccessDenied, match="read-only"):
            reader.call("tool", "alice", name="remember", arguments={"text": "nope"})
        assert writer.facts("alice") == before
        # A recording time ahead of the server's clock is refused, nothing written: one
        # write dated 9999 would win every later conflict and end every membership.
        with pytest.raises(InputError, match="later than the server's clock"):
            writer.call(
                "set", "alice", path="identity.name", value="Future", now="9999-12-31T23:59:59"
            )
        for far in ("9999-12-31T23:00:00-14:00", "0001-01-01T00:30:00+14:00"):
            with pytest.raises(InputError, match="out of range"):  # past the calendar in UTC
                writer.call("set", "alice", path="identity.name", value="Far", now=far)
        assert writer.facts("alice") == before
        writer.call("set", "alice", path="identity.name", value="Past", now="2020-01-01T00:00:00")
        assert len(writer.facts("alice")) == len(before) + 1  # backdating stays allowed
        # Bad names and times are one clear error each (they were bare 500s), nothing written.
        snapshot = writer.facts("alice")
        auth = {
            "Authorization": f"Bearer {info['admin_token']}",
            "Content-Type": "application/json",
        }
        for verb, body, field in (
            ("import", {"collection": "trips", "content": "{}", "name": ".."}, "name"),
            ("import", {"collection": "trips", "content": "{}", "name": "a\x00b"}, "name"),
            ("import", {"collection": "trips", "content": "{}", "name": "x" * 300}, "name"),
            ("note", {"content": "# hi", "note_id": ".."}, "note_id"),
        ):
            status, reply = _raw(url, f"/v1/subjects/alice/{verb}", json.dumps(body).encode(), auth)
            assert status == 422 and reply["error"].startswith(f"{field}:"), reply
        status, reply = _raw(
            url, "/v1/subjects/alice/facts", b"{}", {**auth, "X-Uac-Tenant": "a/b"}
        )
        assert status == 400 and "X-Uac-Tenant" in reply["error"]
        status, reply = _raw(url, "/v1/gc", b'{"now": "0001-01-01T00:00:00"}', auth)
        assert status == 400 and "before year 1" in reply["error"], reply
        assert writer.facts("alice") == snapshot
        # An unknown verb says so in the same shape as every other error, for the Client too.
        status, reply = _raw(url, "/v1/subjects/alice/nope", b"{}", auth)
        assert status == 404 and reply["error"].startswith("no route POST /v1/subjects/alice/nope")
        with pytest.raises(NotFound, match="no route"):
            writer.call("nope", "alice")
        # Quarantined text (`show`) is for an operator's audit: a tenant key, not a bound one.
        with pytest.raises(AccessDenied, match="tenant key"):
            reader.call("inputs", "alice", show=True)
        with pytest.raises(AccessDenied, match="tenant key"):
            reader.call("rejections", "alice", show=True)
        assert isinstance(writer.call("inputs", "alice", show=True), list)  # a tenant key may
