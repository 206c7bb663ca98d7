"""The service's errors, against a real `uac serve` on 127.0.0.1: JSON with a `code` for
every refusal, 413 for any body over the limit (chunked too), 422s that never echo a large
input, MCP tool errors marked isError, and files named as the caller named them."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from test_serve import ROOT, _admin, _key, _raw, serving

from uac import Client, Memory
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

MB = 1024 * 1024


def _chunked(url: str, path: str, headers: dict[str, str], chunks: int) -> tuple[int, dict]:
    """POST `chunks` MiB without a Content-Length (Transfer-Encoding: chunked)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    conn.putrequest("POST", path)
    for name, value in {**headers, "Transfer-Encoding": "chunked"}.items():
        conn.putheader(name, value)
    conn.endheaders()
    piece = b'{"text": "' + b"a" * (MB - 10)
    with contextlib.suppress(OSError):  # the server may answer and close before the end
        for _ in range(chunks):
            conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
            piece = b"a" * MB
        conn.send(b'2\r\n"}\r\n0\r\n\r\n')
    response = conn.getresponse()
    body = json.loads(response.read() or b"{}")
    conn.close()
    return response.status, body


async def _mcp_call(url: str, key: str, name: str, arguments: dict[str, Any]) -> Any:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http,
        streamable_http_client(url + "/mcp", http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await session.call_tool(name, arguments)


def test_refusals_are_json_with_a_code_and_never_echo_large_inputs(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    with serving(home) as info:
        url, admin = info["url"], _admin(info)
        key = _key(admin, "default")
        read_only = _key(admin, "default", read_only=True)
        Client(url, key).set("alice", "identity.passport.expiry_date", "2030-05-01")
        auth = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        cases = [
            ("/v1/subjects/alice/nothing", b"{}", auth, 404, "not_found"),
            ("/v1/subjects/alice/forget", b'{"fact_id": "f_no"}', auth, 404, "not_found"),
            ("/v1/subjects/user:/facts", b"{}", auth, 400, "bad_request"),
            ("/v1/subjects/alice/facts", b"{}", {"Authorization": "Bearer nope"}, 401, None),
            (
                "/v1/subjects/alice/add",
                b'{"text": "hi"}',
                {**auth, "Authorization": f"Bearer {read_only}"},
                403,
                "forbidden",
            ),
            ("/v1/subjects/alice/add", b"{not json", auth, 422, "invalid"),
        ]
        for path, body, headers, status, code in cases:
            got, reply = _raw(url, path, body, headers)
            assert got == status and reply["error"], (path, got, reply)
            assert reply["code"] == (code or "unauthorized"), (path, reply)
        # a 2 MB text over the 64K message limit: 422 naming the field, the text cut short
        big = "a" * (2 * MB)
        got, reply = _raw(url, "/v1/subjects/alice/add", json.dumps({"text": big}).encode(), auth)
        assert got == 422 and reply["error"].startswith("text:"), reply["error"]
        said = json.dumps(reply)
        assert "a" * 201 not in said and len(said) < 4000, len(said)
        # a field name of 300K characters is the caller's input too
        odd = json.dumps({"text": "hi", "k" * 300_000: 1}).encode()
        got, reply = _raw(url, "/v1/subjects/alice/add", odd, auth)
        assert got == 422 and "k" * 201 not in json.dumps(reply), len(json.dumps(reply))
        # over the body limit without a Content-Length: 413 as with one, nothing written
        before = len(Client(url, key).facts("alice"))
        got, reply = _chunked(url, "/v1/subjects/alice/add", auth, chunks=34)
        assert got == 413 and reply["code"] == "too_large" and "limit" in reply["error"], reply
        assert len(Client(url, key).facts("alice")) == before


def test_mcp_tool_errors_are_marked_as_errors(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    with serving(home) as info:
        url, admin = info["url"], _admin(info)
        Client(url, _key(admin, "default")).set("alice", "identity.name", "Alice")
        read_only = _key(admin, "default", subject="alice", read_only=True)
        refused = asyncio.run(_mcp_call(url, read_only, "add", {"text": "I'm vegan"}))
        assert refused.is_error is True
        assert "read-only" in json.loads(refused.content[0].text)["error"]
        failed = asyncio.run(_mcp_call(url, read_only, "query", {"program": "1 +"}))
        assert failed.is_error is True
        assert json.loads(failed.content[0].text)["error"]["type"] == "syntax_error"
        read = asyncio.run(_mcp_call(url, read_only, "query", {"program": "user.identity.name"}))
        assert read.is_error is False and json.loads(read.content[0].text)["result"] == "Alice"


def test_files_are_named_as_the_caller_named_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same bad file reads the same locally and through the server, which never names
    its staging directory (the CLI's `main`, in this process: what it returns and prints)."""
    home = tmp_path / "ws"
    monkeypatch.chdir(ROOT)  # a relative path is read from here, as `_cli`'s children read it

    def uac(argv: list[str]) -> tuple[int, str]:
        code = main(["--home", str(home), *argv])
        return code, capsys.readouterr().err

    (tmp_path / "bad.jsonl").write_text('{"country": "FR"}\n{not json\n', encoding="utf-8")
    (tmp_path / "odd.csv").write_text("country\n", encoding="utf-8")
    calls = [
        ["import", "alice", "trips", str(tmp_path / "missing.jsonl")],
        ["import", "alice", "trips", str(tmp_path / "bad.jsonl")],
        ["import", "alice", "trips", "bad.jsonl"],  # relative: as typed
        ["import", "alice", "trips", str(tmp_path / "odd.csv")],
        ["note", "alice", str(tmp_path / "missing.md")],
    ]
    Memory(home, create=True).close()  # as `uac init` makes it (in process: ~0.5 s less CPU)
    local = [uac(argv) for argv in calls]
    with serving(home):
        served = [uac(argv) for argv in calls]
    for argv, (code, here), (code_there, there) in zip(calls, local, served, strict=True):
        assert code == code_there == 1, (argv, here, there)
        assert here == there, (argv, here, there)
        assert there.startswith("uac: error: ") and there.count("\n") == 1
        assert "staging" not in there and str(home) not in there, there
        assert argv[-1] in there, there
