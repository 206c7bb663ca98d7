"""`uac serve` as a real process on 127.0.0.1: auth, errors, thin clients, MCP, faults.

Every server here is a subprocess (`python -m uac.runtime.cli serve --port 0`) found through
the `server.json` it writes; every fault is real (SIGKILL, a webhook that hangs). Requests
are bounded in count and time and go only to loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.mcp_stdio import server_stderr
from uac import Client, Memory
from uac.fact_log.errors import InputError, NotFound
from uac.runtime.api.client import AccessDenied

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

ROOT = Path(__file__).resolve().parents[1]


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A child process's environment: this test's (its UAC_DB binding too), no server URL."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(extra or {})}
    env.pop("UAC_URL", None)
    env.pop("UAC_API_KEY", None)
    return env


def _cli(
    home: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "uac.runtime.cli", "--home", str(home), *args],
        capture_output=True,
        text=True,
        input=stdin,
        env=child_env(env),
        timeout=240,
        cwd=ROOT,
    )


@contextmanager
def serving(home: Path, *extra: str, stop: bool = True) -> Iterator[dict[str, Any]]:
    """Start `uac serve` on a free loopback port; yields its server.json plus the process."""
    log = open(home.parent / f"serve-{time.monotonic_ns()}.log", "w+")  # noqa: SIM115
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uac.runtime.cli",
            "--home",
            str(home),
            "serve",
            "--port",
            "0",
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=log,
        env=child_env(),
        cwd=ROOT,
    )
    info: dict[str, Any] | None = None
    deadline = time.monotonic() + 240  # a bound for a server that never starts, not a timing
    while time.monotonic() < deadline:
        path = home / "server.json"
        if path.exists():
            data = json.loads(path.read_text())
            if data.get("pid") == proc.pid:
                info = data
                break
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    if info is None:
        proc.kill()
        log.seek(0)
        raise AssertionError(f"uac serve did not start: {log.read()[-2000:]}")
    info["proc"] = proc
    info["log"] = log
    try:
        yield info
    finally:
        if stop and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()


def _admin(info: dict[str, Any], tenant: str = "default") -> Client:
    return Client(info["url"], info["admin_token"], tenant=tenant)


def _key(admin: Client, tenant: str, **kw: Any) -> str:
    return admin.request("POST", "/v1/admin/keys", {"tenant": tenant, **kw})["token"]


@pytest.fixture(scope="module")
def running(
    tmp_path_factory: pytest.TempPathFactory, module_backend: str
) -> Iterator[dict[str, Any]]:
    """One server for the module's tests that need no server of their own (each writes in a
    tenant of its own, so none sees another's subjects); on the module's log."""
    with serving(tmp_path_factory.mktemp("served") / "ws") as info:
        yield info


def _raw(url: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    request = urllib.request.Request(url + path, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def _oversized(url: str, path: str, headers: dict[str, str]) -> tuple[int, dict]:
    """Announce a 40 MB body and send its start: the server answers before reading it."""
    import http.client
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    conn.putrequest("POST", path)
    for name, value in {**headers, "Content-Length": str(40 * 1024 * 1024)}.items():
        conn.putheader(name, value)
    conn.endheaders()
    with contextlib.suppress(OSError):  # the server may already have answered and closed
        conn.send(b"x" * 65536)
    response = conn.getresponse()
    body = json.loads(response.read() or b"{}")
    conn.close()
    return response.status, body


def test_keys_scope_every_request_and_errors_are_clear(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    with serving(home) as info:
        admin = _admin(info)
        url = info["url"]
        key_a = _key(admin, "acme")
        key_alice = _key(admin, "acme", subject="alice")
        key_ro = _key(admin, "acme", read_only=True)
        key_b = _key(admin, "other")
        a, alice, ro, b = (Client(url, k) for k in (key_a, key_alice, key_ro, key_b))
        fact = a.set("alice", "identity.passport.expiry_date", "2030-05-01")
        a.set("bob", "identity.passport.expiry_date", "2031-01-01")
        assert fact.path == "identity.passport.expiry_date"

        # unknown key: 401, nothing written
        before = len(a.facts("alice"))
        with pytest.raises(AccessDenied, match="unknown or revoked"):
            Client(url, "uac_nope_nope").add("alice", "I'm allergic to penicillin")
        status, _ = _raw(url, "/v1/subjects/alice/add", b'{"text": "x"}', {})
        assert status == 401
        assert len(a.facts("alice")) == before
        # another tenant's key: the same subject name is a different, empty subject
        assert b.facts("alice") == []
        with pytest.raises(NotFound):
            b.why("alice", "user.passport.expiry_date")
        assert [s.subject for s in b.subjects()] == []
        assert {s.subject for s in a.subjects()} == {"alice", "bob"}
        # read-only key: reads yes, writes 403 with nothing written
        assert len(ro.facts("alice")) == before
        with pytest.raises(AccessDenied, match="read-only"):
            ro.add("alice", "I'm allergic to penicillin")
        assert len(a.facts("alice")) == before
        # subject-bound key: its subject only; tenant-wide verbs refused
        assert alice.query("alice", "user.passport.expiry_date.year")["result"] == 2030
        with pytest.raises(AccessDenied, match="another subject"):
            alice.facts("bob")
        with pytest.raises(AccessDenied):
            alice.subjects()
        # a revoked key stops at once
        key_id = key_b.split("_")[1]
        admin.request("POST", f"/v1/admin/keys/{key_id}/revoke", {})
        with pytest.raises(AccessDenied):
            b.facts("alice")
        # only the admin manages keys
        with pytest.raises(AccessDenied):
            a.request("POST", "/v1/admin/keys", {"tenant": "acme"})
        # malformed JSON and bad fields: 422 naming the field; big bodies: 413
        auth = {"Authorization": f"Bearer {key_a}", "Content-Type": "application/json"}
        status, body = _raw(url, "/v1/subjects/alice/add", b"{not json", auth)
        assert status == 422
        status, body = _raw(url, "/v1/subjects/alice/add", b'{"text": 5}', auth)
        assert status == 422 and body["error"].startswith("text:")
        status, body = _raw(url, "/v1/subjects/alice/query", b'{"progrm": "1"}', auth)
        assert status == 422 and "program" in json.dumps(body)
        status, body = _oversized(url, "/v1/subjects/alice/add", auth)
        assert status == 413 and "limit" in body["error"]
        with pytest.raises(InputError, match=r"^today: Input should be a valid date"):
            a.query("alice", "1", today="not a date")
        # client and server of different versions: a clear error, not a confusing one
        status, body = _raw(
            url, "/v1/subjects/alice/facts", b"{}", {**auth, "X-Uac-Client-Version": "9.9.0"}
        )
        assert status == 409 and "version 9.9.0" in body["error"]
        # the OpenAPI document lists every verb
        with urllib.request.urlopen(url + "/openapi.json", timeout=30) as response:
            spec = json.loads(response.read())
        assert "/v1/subjects/{subject}/query" in spec["paths"]
        assert "/v1/subjects/{subject}/add" in spec["paths"]
        with urllib.request.urlopen(url + "/healthz", timeout=30) as response:
            assert json.loads(response.read())["status"] == "ok"
        # verify and anchor read every tenant's chain heads: the operator's token only
        assert admin.verify().ok
        with pytest.raises(AccessDenied, match="admin token"):
            Client(url, key_a).verify()
        with pytest.raises(AccessDenied, match="admin token"):
            Client(url, key_a).call("anchor", None)
    proc = info["proc"]
    assert proc.returncode == 0  # SIGTERM: a graceful stop ...
    assert not (home / "server.json").exists()
    info["log"].seek(0)
    assert '"event": "stopped"' in info["log"].read()  # ... after closing the workspace


async def _mcp(url: str, headers: dict[str, str]) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url + "/mcp", http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        facts = await session.call_tool("facts", {})
        query = await session.call_tool("query", {"program": "user.passport.expiry_date.year"})
        return {
            "facts": json.loads(facts.content[0].text),
            "query": json.loads(query.content[0].text),
        }


async def _mcp_stdio(home: Path, subject: str) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "uac.runtime.cli", "--home", str(home), "mcp", subject],
        cwd=str(ROOT),
        env=child_env(),
    )
    async with (
        stdio_client(params, errlog=server_stderr()) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        query = await session.call_tool("query", {"program": "user.passport.expiry_date.year"})
        return json.loads(query.content[0].text)


def test_cli_mcp_clients_and_scheduler_work_while_serving(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    Memory(home, create=True).close()  # as `uac init` makes it (in process: ~0.5 s less CPU)
    with serving(home, "--every", "1s") as info:
        # the CLI forwards to the server instead of failing on the workspace lock
        done = _cli(home, "set", "alice", "identity.passport.expiry_date", "2027-01-10")
        assert done.returncode == 0, done.stderr
        done = _cli(home, "add", "bob", "-", stdin="My passport expires on 2033-02-01")
        assert done.returncode == 0 and "identity.passport.expiry_date" in done.stdout
        done = _cli(home, "facts", "alice")
        assert done.returncode == 0 and "2027-01-10" in done.stdout
        done = _cli(home, "query", "alice", "user.passport.expiry_date.year")
        assert done.stdout.strip() == "2027", done.stderr
        # thin means thin: a forwarded call loads neither DuckDB, the extractor, the compiler
        # nor the sandbox
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from uac.runtime.cli import main; "
                f"code = main(['--home', {str(home)!r}, 'facts', 'alice', '--json']); "
                "heavy = [m for m in ('duckdb', 'uac.compiler', 'uac.runtime.sandbox', "
                "'uac.fact_log.store', 'uac.fact_log.extraction', 'openai', 'fastapi') "
                "if m in sys.modules]; "
                "print(code, heavy, file=sys.stderr)",
            ],
            capture_output=True,
            text=True,
            env=child_env(),
            timeout=60,
        )
        assert probe.stderr.strip().splitlines()[-1] == "0 []", probe.stderr
        # a second server on the same workspace refuses, naming the first
        second = _cli(home, "serve", "--port", "0")
        assert second.returncode == 1 and "already served" in second.stderr
        # two MCP clients on different subjects at once; the subject is the connection's
        admin = _admin(info)
        tenant_key = _key(admin, "default")
        bob_key = _key(admin, "default", subject="bob")

        async def both() -> list[dict[str, Any]]:
            return await asyncio.gather(
                _mcp(
                    info["url"],
                    {"Authorization": f"Bearer {tenant_key}", "X-Uac-Subject": "alice"},
                ),
                # a bound key wins over whatever subject the header names
                _mcp(info["url"], {"Authorization": f"Bearer {bob_key}", "X-Uac-Subject": "alice"}),
            )

        alice, bob = asyncio.run(asyncio.wait_for(both(), 120))
        assert alice["query"]["result"] == 2027
        assert bob["query"]["result"] == 2033
        assert {f["path"] for f in alice["facts"]["facts"]} == {"identity.passport.expiry_date"}
        assert all("2033" in json.dumps(f["value"]) for f in bob["facts"]["facts"])
        # `uac mcp SUBJECT` (stdio) forwards its tools to the server while it runs
        stdio = asyncio.run(asyncio.wait_for(_mcp_stdio(home, "alice"), 120))
        assert stdio.get("result") == 2027, stdio
        # the scheduler ran passes inside the server meanwhile
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            info["log"].seek(0)
            if info["log"].read().count('"scheduler", "message": "run ') >= 2:
                break
            time.sleep(0.5)
        else:
            raise AssertionError("the scheduler did not run twice")


class _Recorder(BaseHTTPRequestHandler):
    received: ClassVar[list[dict[str, Any]]] = []
    # Set: each request is held unanswered until the event is set, then whether its caller
    # was still waiting for the answer (had not given up and closed) is recorded.
    hold: threading.Event | None = None
    held: ClassVar[list[bool]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.hold is not None:
            self.hold.wait(120)
            readable, _, _ = select.select([self.connection], [], [], 0)
            closed = bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
            type(self).held.append(not closed)
        type(self).received.extend(json.loads(body)["alerts"])
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def webhook(
    hold: threading.Event | None = None, held: list[bool] | None = None
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A webhook receiver on 127.0.0.1 (optionally holding each request until `hold` is set;
    `held` then gets, per request, whether its caller was still waiting for the answer)."""
    attrs = {"received": [], "hold": hold, "held": held if held is not None else []}
    handler = type("Recorder", (_Recorder,), attrs)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", handler.received
    finally:
        if hold is not None:
            hold.set()
        server.shutdown()
        server.server_close()


def test_killed_server_loses_nothing_and_delivers_alerts_after_restart(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    dead = "http://127.0.0.1:9/hook"  # nothing listens: deliveries fail and stay pending
    acked: list[str] = []
    errors: list[str] = []
    with serving(home, "--webhook", dead, stop=False) as info:
        admin = _admin(info)
        key = _key(admin, "default")
        client = Client(info["url"], key)
        client.import_records("alice", "allergies", [{"substance": "penicillin"}])
        client.add("alice", "I started taking amoxicillin.")  # raises a critical alert
        stop = threading.Event()

        def writer(n: int) -> None:
            mine = Client(info["url"], key)
            i = 0
            while not stop.is_set() and i < 200:
                i += 1
                try:
                    fact = mine.set(f"w{n}", "identity.name", f"Writer {n}-{i}")
                    acked.append(fact.id)
                except Exception as exc:  # after the kill: expected, counted apart
                    errors.append(type(exc).__name__)
                    return

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        # Killed mid-write once a few writes are acknowledged (a fixed 2 s sleep could see
        # none on a loaded machine); 4 x 200 writes keep going well past the eighth.
        deadline = time.monotonic() + 120
        while len(acked) < 8 and not errors and time.monotonic() < deadline:
            time.sleep(0.05)
        info["proc"].send_signal(signal.SIGKILL)  # mid-write
        info["proc"].wait(timeout=30)
        stop.set()
        for t in threads:
            t.join(timeout=60)
    assert acked, "no write was acknowledged before the kill"
    with webhook() as (hook, received), serving(home, "--webhook", hook) as info:
        client = Client(info["url"], _key(_admin(info), "default"))
        assert _admin(info).verify().ok  # nothing half-written: the chain verifies
        stored = {f.id for n in range(4) for f in client.facts(f"w{n}")}
        assert set(acked) <= stored  # every acknowledged write survived
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not received:
            time.sleep(0.2)
        assert [a["check"] for a in received] == ["drug_allergy"]  # delivered after restart


def test_a_hanging_webhook_never_slows_a_write(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    hold, held = threading.Event(), []
    with webhook(hold, held) as (hook, received), serving(home, "--webhook", hook) as info:
        client = Client(info["url"], _key(_admin(info), "default"))
        client.import_records("alice", "allergies", [{"substance": "penicillin"}])
        client.add("alice", "I take ibuprofen")  # warm: the subject is compiled
        out = client.call("add", "alice", text="I started taking amoxicillin.")
        assert [a["check"] for a in out["alerts"]] == ["drug_allergy"]
        # Ordering, not timing: the write answered while its alert's delivery was still held
        # by the webhook, and the delivery was still waiting for it. A delivery on the
        # write's path would have had to give up (its 5 s timeout closes the request) before
        # the write could answer; the held request would then find its caller gone.
        hold.set()
        deadline = time.monotonic() + 60  # a bound for a stuck delivery, not a timing
        while not received and time.monotonic() < deadline:
            time.sleep(0.05)
        assert held == [True] and [a["check"] for a in received] == ["drug_allergy"]


def test_client_offers_every_verb_and_agent_tools_run_on_the_server(
    running: dict[str, Any],
) -> None:
    from uac import AgentTools
    from uac.runtime.api.verbs import VERBS

    tenant_wide = {"subjects", "verify", "run-once", "anchor", "gc"}
    either = {"alerts", "questions", "acknowledge", "snooze", "erasures", "compile"}
    # every verb has a route; each of its Memory methods is a Client method
    for name, verb in VERBS.items():
        expected = "none" if name in tenant_wide else "optional" if name in either else "required"
        assert verb.subject == expected, name
        for method in verb.method_names:
            assert callable(getattr(Client, method, None)), name
    client = Client(running["url"], _key(_admin(running), "tools"))
    client.import_records("alice", "allergies", [{"substance": "penicillin"}])
    tools = AgentTools(client, "alice")
    out = tools.call("add", {"text": "I started taking amoxicillin."})
    assert [a["check"] for a in out["alerts"]] == ["drug_allergy"]
    assert tools.call("query", {"program": "len(user.medications)"})["result"] == 1
    assert "unknown tool" in tools.call("rm_rf", {})["error"]


def test_erase_needs_a_tenant_write_key(running: dict[str, Any]) -> None:
    admin = _admin(running)
    url = running["url"]
    writer = Client(url, _key(admin, "acme"))
    bound = Client(url, _key(admin, "acme", subject="alice"))
    reader = Client(url, _key(admin, "acme", read_only=True))
    fact = writer.call("remember", "alice", text="the gate code word is Quillfeather")
    fid = fact["facts"][0]["id"]
    for client in (bound, reader):
        with pytest.raises(AccessDenied):
            client.erase("alice", [fid], reason="asked")
    report = writer.erase("alice", [fid], reason="asked")
    assert report["verified"] and "Quillfeather" not in json.dumps(report)
    assert [r["id"] for r in writer.erasures("alice")] == [report["id"]]
    assert admin.verify().ok
    facts = [f.as_dict() for f in writer.facts("alice")]
    assert "Quillfeather" not in json.dumps(facts, default=str)


def test_a_fresh_servers_first_requests_at_once_never_fail(tmp_path: Path) -> None:
    # 24 threads send their first requests together to a server that has answered none:
    # the admin routes, a verb with a subject, a tenant-wide verb, a probe. Each answers as
    # it would alone (FastAPI once built routes at the first request; one raced to a 500).
    calls = [
        ("POST", "/v1/admin/keys", {"tenant": "acme"}, 200),
        ("POST", "/v1/admin/keys/list", {}, 200),
        ("POST", "/v1/admin/keys/k_nope/revoke", {}, 404),
        ("POST", "/v1/subjects/alice/facts", {}, 200),
        ("POST", "/v1/subjects", {}, 200),
        ("GET", "/healthz", None, 200),
    ]
    with serving(tmp_path / "ws") as info:
        start = threading.Barrier(4 * len(calls))
        answers: list[tuple[str, int]] = []

        def send(method: str, path: str, body: dict | None) -> None:
            data = None if body is None else json.dumps(body).encode()
            request = urllib.request.Request(
                info["url"] + path,
                data=data,
                method=method,
                headers={
                    "Authorization": f"Bearer {info['admin_token']}",
                    "Content-Type": "application/json",
                },
            )
            start.wait(timeout=60)
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    answers.append((path, response.status))
            except urllib.error.HTTPError as exc:
                answers.append((path, exc.code))

        threads = [
            threading.Thread(target=send, args=(method, path, body))
            for method, path, body, _ in calls * 4
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert sorted(answers) == sorted((path, status) for _, path, _, status in calls * 4)


def test_a_key_resolves_only_in_its_own_workspace(tmp_path: Path, fresh_log) -> None:
    from uac.runtime.api import api_keys

    # Two independent deployments (on PostgreSQL: two databases; nodes of one database share
    # their keys, tests/test_multi_node.py).
    with fresh_log("a"), Memory(tmp_path / "a", create=True, react=False) as a:
        _, token = api_keys.create(a.store, "default")
        assert api_keys.resolve(a.store, token) is not None  # now cached
        with fresh_log("b"), Memory(tmp_path / "b", create=True, react=False) as b:
            assert api_keys.resolve(b.store, token) is None


def test_a_command_run_while_the_server_starts_waits_for_it_and_forwards(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    with Memory(home, create=True) as mem:  # as `uac init` and `uac set` make it (in process)
        mem.set("alice", "identity.passport.expiry_date", "2031-05-01")
    # A starting server holds the workspace before it announces itself in server.json. Make
    # that window long and certain: this process holds the lock (and says so in a marker
    # file) for 10 s under a `serve` command line, then becomes the real `uac serve` (same pid)
    # by exec. The command starts only once the marker shows the lock is held.
    held = tmp_path / "lock-held"
    starter = (
        "import duckdb, os, sys, time\n"
        f"con = duckdb.connect({str(home / 'uac.duckdb')!r})\n"
        f"open({str(held)!r}, 'w').close()\n"
        "time.sleep(10)\n"
        "con.close()\n"
        f"os.execv(sys.executable, [sys.executable, '-m', 'uac.runtime.cli', '--home', "
        f"{str(home)!r}, 'serve', '--port', '0'])\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", starter, "serve"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=child_env(),
        cwd=ROOT,
    )
    try:
        for _ in range(1200):  # up to 60 s for the starter to take the lock (not a timing)
            if held.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert held.exists(), "the starter never took the workspace lock"
        # The command reaches the lock well inside the 10 s hold, even on a loaded host, and
        # may wait long for the exec'd server to start.
        done = _cli(home, "facts", "alice", env={"UAC_SERVER_START_WAIT": "120"})
        assert done.returncode == 0, done.stderr
        assert "2031-05-01" in done.stdout
        assert (home / "server.json").exists()  # it was answered by the server, forwarded
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def test_sharing_verbs_over_http_respect_bound_keys(running: dict[str, Any]) -> None:
    admin = _admin(running)
    tenant = Client(running["url"], _key(admin, "sharing"))
    tenant.member_add("group:family", "alice")
    tenant.member_add("group:family", "bob")
    tenant.set("group:family", "places.address.city", "Lisbon")
    assert [m["user"] for m in tenant.members("group:family")] == ["alice", "bob"]
    alice = Client(running["url"], _key(admin, "sharing", subject="user:alice"))
    fact = alice.remember("alice", "The spare key is under the blue pot.").facts[0]
    with pytest.raises(AccessDenied):  # a key bound to alice cannot write to the group
        alice.member_add("group:family", "eve")
    copy = alice.promote("alice", fact.id, "group:family")
    assert copy.evidence["promoted_from"]["subject"] == "user:alice"
    out = tenant.query("bob", "[n.text for n in user.notes] + [user.address.city]")
    assert out["result"] == ["The spare key is under the blue pot.", "Lisbon"]
    with pytest.raises(InputError, match="groups of groups"):
        tenant.member_add("group:family", "group:kids")
