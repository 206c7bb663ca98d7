"""MCP sessions over `uac serve` are capped per API key: one key holder cannot lock others out."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from test_serve import _admin, _key, serving
from test_serve_hardening import _INIT

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL


def _mcp(url: str, key: str, method: str = "POST", session: str | None = None) -> tuple[int, str]:
    """One raw request to /mcp: (status, the session id it opened, or the error it says)."""
    headers = {
        "Authorization": f"Bearer {key}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if session is not None:
        headers["Mcp-Session-Id"] = session
    body = _INIT if method == "POST" else None
    request = urllib.request.Request(url + "/mcp", data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
            return response.status, response.headers.get("mcp-session-id") or ""
    except urllib.error.HTTPError as exc:
        text = exc.read().decode()
        return exc.code, json.loads(text).get("error", text) if text.startswith("{") else text


def _opened(url: str, key: str) -> str:
    """A new session of `key` once the cap lets one in (refused while it is full)."""
    deadline = time.monotonic() + 120  # a bound for sessions that never end, not a timing
    while (opened := _mcp(url, key))[0] == 429 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert opened[0] == 200, opened
    return opened[1]


def test_a_key_past_its_session_cap_is_refused_while_another_key_still_connects(
    tmp_path: Path,
) -> None:
    home = tmp_path / "ws"
    # Seconds: the eight requests below must come within it, or a session expires early and
    # an answer below says so (a third session let in, a DELETE answered 404). No elapsed
    # time is asserted; the margin is for a loaded machine (at load 20-50 a request to the
    # server can take seconds), and nothing sleeps it out: `_opened` waits for the places.
    idle = 30
    with serving(home, "--mcp-sessions-per-key", "2", "--mcp-idle-timeout", str(idle)) as info:
        url = info["url"]
        admin = _admin(info)
        a, b = _key(admin, "default"), _key(admin, "default", subject="alice")
        first, second = _mcp(url, a), _mcp(url, a)
        assert first[0] == second[0] == 200 and first[1] and second[1] != first[1]
        status, error = _mcp(url, a)
        assert status == 429, (status, error)
        assert "already has 2 MCP sessions open" in error and "--mcp-sessions-per-key" in error
        assert "DELETE /mcp" in error and f"unused for {idle} seconds" in error
        # Another key is not locked out by A's sessions.
        status, other = _mcp(url, b)
        assert status == 200 and other
        # A session A ends frees its place at once.
        assert _mcp(url, a, "DELETE", first[1])[0] == 200
        status, third = _mcp(url, a)
        assert status == 200 and third
        assert _mcp(url, a)[0] == 429
        # Unused sessions end after the idle timeout, and their places come back (polled for,
        # up to 120 s: a loaded server's reaper may run late).
        fourth, fifth = _opened(url, a), _opened(url, a)
        assert fourth and fifth
        assert _mcp(url, a, "DELETE", second[1])[0] == 404  # the SDK ended it already


@pytest.mark.no_workspace("the flags are refused before any workspace is opened or created")
def test_serve_refuses_a_session_cap_or_idle_time_that_is_not_positive(tmp_path: Path) -> None:
    import subprocess
    import sys

    from test_serve import ROOT, child_env

    for flag, value, why in (
        ("--mcp-sessions-per-key", "0", "not a whole number of at least 1: '0'"),
        ("--mcp-idle-timeout", "nan", "not a number of seconds above 0: 'nan'"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "uac.runtime.cli", "--home", str(tmp_path / "ws"), "serve",
             "--port", "0", flag, value],
            capture_output=True, text=True, env=child_env(), cwd=ROOT, timeout=120,
        )  # fmt: skip
        assert done.returncode == 1 and f"{flag}: {why}" in done.stderr, done.stderr
        assert not (tmp_path / "ws").exists()  # refused before anything was opened


def _imported_mcp(log_text: str) -> bool:
    """Whether a process run with PYTHONPROFILEIMPORTTIME had imported the MCP SDK (its stderr)."""
    names = (line.rsplit("|", 1)[-1].strip() for line in log_text.splitlines() if "|" in line)
    return any(name == "mcp" or name.startswith("mcp.") for name in names)


def test_a_server_imports_the_mcp_sdk_at_its_first_mcp_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server's stderr (its log file) gets a line per module it imports, when it does.
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
    with serving(tmp_path / "ws") as info:
        url, log = info["url"], info["log"]
        with urllib.request.urlopen(url + "/healthz", timeout=60) as response:
            assert response.status == 200
        assert _imported_mcp(Path(log.name).read_text()) is False
        status, session = _mcp(url, info["admin_token"])
        assert status == 200 and session
        assert _imported_mcp(Path(log.name).read_text()) is True
        # The session opened is a live one of the SDK's (counted against the key's cap).
        assert _mcp(url, info["admin_token"], "DELETE", session)[0] == 200
