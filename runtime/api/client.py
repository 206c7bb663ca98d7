"""`Client`: the verbs of `Memory`, spoken to a `uac serve` over HTTP.

    from uac import Client
    with Client("http://127.0.0.1:8765", "uac_...") as c:     # or Client.discover()
        c.add("alice", "I'm flying to Tokyo on March 5")
        c.query("alice", "len(user.trips)")["result"]

Methods have the names and arguments of `Memory`'s verbs and return plain JSON (what
`Memory` returns, as dicts: dates ISO, Decimals as exact text). Errors come back as the
same exceptions `Memory` raises (`InputError`, `NotFound`, ...) with the server's message;
`AccessDenied` for a refused key and `ServiceError` (retryable) when the server is down.

This module imports only the standard library: a CLI call forwarded to a server never loads
DuckDB, the compiler or the sandbox. One connection per thread, so a Client may be shared.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import threading
import urllib.parse
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac import __version__
from uac.fact_log.errors import InputError, NotFound, UacError, WorkspaceError

if TYPE_CHECKING:  # loaded on the first request: a local CLI call only asks `discover`
    import http.client

SERVER_FILE = "server.json"
DB_FILE = "uac.duckdb"  # the workspace file a live server holds locked (fact_log/store.py)
# `uac serve`'s MCP limits (runtime/api/server.py), here so the CLI's parser, which loads
# only the standard library, shows the same defaults. The SDK caps sessions globally
# (10,000): one key holder could take them all, so each key gets its own cap, and a session
# unused for MCP_IDLE_SECONDS ends (the SDK's default is 30 minutes).
MCP_SESSIONS_PER_KEY = 100
MCP_IDLE_SECONDS = 600.0


def live_server(home: Path | str) -> dict[str, Any] | None:
    """The workspace's `server.json` when its server is alive, else None (no file, or stale).

    Alive means its process exists AND the workspace file is locked: after a crash the pid
    may belong to another process by now (containers reuse them), but the lock went with the
    server. Call it only from a process that does not hold the workspace open itself (closing
    the probe's descriptor would drop that process's own lock).
    """
    import fcntl

    home = Path(home).expanduser()
    try:
        info = json.loads((home / SERVER_FILE).read_text())
        pid = int(info["pid"])
        os.kill(pid, 0)
    except PermissionError:
        pass  # alive, another user's
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no server file, unreadable, or its process is gone
    if pid == os.getpid():
        return info
    try:
        fd = os.open(home / DB_FILE, os.O_RDONLY)
    except OSError:
        return None  # no workspace file: nothing can be serving it
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return info  # held: the server has it open
    finally:
        os.close(fd)
    return None


class AccessDenied(UacError):
    """The server refused the key (unknown, revoked, read-only or bound elsewhere)."""


class ServiceError(UacError):
    """The server could not be reached or failed; the request may be retried."""


def _encode(value: Any) -> Any:
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, Decimal | Path):
        return str(value)
    raise TypeError(f"cannot send a {type(value).__name__} to the server")


class Client:
    """A connection to `uac serve` for one tenant (the key's)."""

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        tenant: str | None = None,
        timeout: float = 60.0,
    ):
        url = url or os.environ.get("UAC_URL")
        key = key or os.environ.get("UAC_API_KEY")
        if not url or not key:
            raise InputError("a Client needs a server URL and an API key (or UAC_URL/UAC_API_KEY)")
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(f"not a server URL: {url!r} (expected http://HOST:PORT)")
        self.url = url.rstrip("/")
        self._parts = parts
        self._key = key
        self.tenant = tenant  # only the local admin token may name a tenant
        self.timeout = timeout
        self._local = threading.local()

    @classmethod
    def discover(
        cls, home: Path | str | None, tenant: str | None = None, *, remote: bool = True
    ) -> Client | None:
        """The server to forward to: UAC_URL + UAC_API_KEY (unless `remote` is False: the
        caller named a workspace), else the workspace's live server."""
        if remote and os.environ.get("UAC_URL") and os.environ.get("UAC_API_KEY"):
            return cls(tenant=None)
        info = live_server(home) if home is not None else None
        if info is None:
            return None
        return cls(info["url"], info["admin_token"], tenant=tenant or "default")

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport -------------------------------------------------------------------------

    def _conn(self) -> http.client.HTTPConnection:
        import http.client

        conn = getattr(self._local, "conn", None)
        if conn is None:
            kind = (
                http.client.HTTPSConnection
                if self._parts.scheme == "https"
                else http.client.HTTPConnection
            )
            conn = kind(self._parts.hostname, self._parts.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """Send one request; returns the decoded JSON or raises the matching error."""
        data = None if body is None else json.dumps(body, default=_encode).encode("utf-8")
        headers = {
            "Authorization": f"Bearer {self._key}",
            "X-Uac-Client-Version": __version__,
            "Content-Type": "application/json",
        }
        if self.tenant:
            headers["X-Uac-Tenant"] = self.tenant
        prefix = self._parts.path.rstrip("/")
        import http.client

        for attempt in (1, 2):  # a kept-alive connection the server closed: reconnect once
            conn = self._conn()
            try:
                conn.request(method, prefix + path, body=data, headers=headers)
                response = conn.getresponse()
                raw = response.read()
                break
            except (ConnectionError, http.client.HTTPException, OSError) as exc:
                self.close()
                if attempt == 2 or not isinstance(
                    exc, http.client.RemoteDisconnected | ConnectionResetError | BrokenPipeError
                ):
                    raise ServiceError(
                        f"cannot reach uac server at {self.url}: {exc}; start it with "
                        "uac serve (or point UAC_URL at a running one)"
                    ) from None
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = {"error": raw[:200].decode("utf-8", "replace")}
        if response.status >= 400:
            message = payload.get("error") if isinstance(payload, dict) else None
            raise _error(response.status, str(message or f"HTTP {response.status}"))
        return payload

    def call(self, verb: str, subject: str | None = None, **params: Any) -> Any:
        """Run one verb (subject-scoped when `subject` is given) on the server."""
        params = {k: v for k, v in params.items() if v is not None}
        if subject is None:
            return self.request("POST", f"/v1/{verb}", params)
        quoted = urllib.parse.quote(subject, safe=":")
        return self.request("POST", f"/v1/subjects/{quoted}/{verb}", params)

    def health(self) -> dict[str, Any]:
        """The server's liveness answer (its version)."""
        return self.request("GET", "/healthz")

    # -- the verbs (names and arguments as on Memory) ----------------------------------------

    def set(self, subject: str, path: str, value: Any, **kw: Any) -> dict[str, Any]:
        """Assert a single-valued attribute."""
        return self.call("set", subject, path=path, value=value, **_renamed(kw))

    def import_file(
        self, subject: str, collection: str, file: str | Path, **kw: Any
    ) -> dict[str, Any]:
        """Import a JSON Lines, JSON array or CSV file (sent to the server as text)."""
        path = Path(file)
        content = _read_file(path)
        with _named(path):
            return self.call(
                "import",
                subject,
                collection=collection,
                content=content,
                name=path.name,
                **_renamed(kw),
            )

    def import_records(
        self, subject: str, collection: str, records: list[dict[str, Any]], **kw: Any
    ) -> dict[str, Any]:
        """Import records given as dicts."""
        content = "\n".join(json.dumps(r, default=_encode) for r in records)
        return self.call("import", subject, collection=collection, content=content, **_renamed(kw))

    def add(self, subject: str, text: str, **kw: Any) -> dict[str, Any]:
        """Learn from one conversation message."""
        return self.call("add", subject, text=text, **_renamed(kw))

    def preview(self, subject: str, text: str | None = None, **kw: Any) -> dict[str, Any]:
        """What a write would raise and clear (a message, `facts=[...]`, or both); no write."""
        return self.call("preview", subject, text=text, **_renamed(kw))

    def remember(self, subject: str, text: str, **kw: Any) -> dict[str, Any]:
        """An explicit 'remember this'."""
        return self.call("remember", subject, text=text, **_renamed(kw))

    def note(self, subject: str, file: str | Path, **kw: Any) -> dict[str, Any]:
        """Ingest a Markdown note (sent as text)."""
        path = Path(file)
        content = _read_file(path)
        with _named(path):
            return self.call(
                "note", subject, content=content, note_id=kw.pop("note_id", None) or path.name, **kw
            )

    def prefer(self, subject: str, text: str, **kw: Any) -> dict[str, Any]:
        """Store a soft (wording) preference."""
        return self.call("prefer", subject, text=text, **kw)

    def forget(self, subject: str, fact_id: str, **kw: Any) -> dict[str, Any]:
        """Retract one fact."""
        return self.call("forget", subject, fact_id=fact_id, **kw)

    def erase(self, subject: str, fact_ids: list[str] | None = None, **kw: Any) -> dict[str, Any]:
        """Legal erase (a tenant key with write access); returns the erasure report."""
        return self.call("erase", subject, fact_ids=list(fact_ids or []), **kw)

    def erasures(self, subject: str) -> list[dict[str, Any]]:
        """The subject's erasure reports."""
        return self.call("erasures", subject)

    def add_episode(self, subject: str, problem: str, **kw: Any) -> dict[str, Any]:
        """Record a past problem (tried, worked, failed, date as keywords)."""
        return self.call("episode", subject, problem=problem, **kw)

    def confirm(self, subject: str, path: str, **kw: Any) -> dict[str, Any]:
        """Confirm an inferred preference."""
        return self.call("confirm", subject, path=path, **kw)

    def gc(self, **kw: Any) -> dict[str, int]:
        """Compact the tenant's derived data (keep, older_than_days)."""
        return self.call("gc", None, **kw)

    def feedback(self, subject: str, item_id: str, **kw: Any) -> dict[str, Any]:
        """Mark a search result as 'not this'."""
        return self.call("feedback", subject, item_id=item_id, **kw)

    def add_rule(self, subject: str, rule: dict[str, Any], **kw: Any) -> str:
        """Store a user rule; returns its id."""
        return self.call("rule", subject, rule=rule, **kw)["rule_id"]

    def member_add(self, group: str, user: str, **kw: Any) -> dict[str, Any]:
        """Make a user a member of a group."""
        return self.call("member-add", group, user=user, **kw)

    def member_remove(self, group: str, user: str, **kw: Any) -> dict[str, Any]:
        """End a user's membership of a group."""
        return self.call("member-remove", group, user=user, **kw)

    def members(self, subject: str, **kw: Any) -> list[dict[str, Any]]:
        """A group's members, or a user's groups."""
        return self.call("members", subject, **kw)

    def promote(self, subject: str, fact_id: str, group: str, **kw: Any) -> dict[str, Any]:
        """Share one of the user's facts with a group."""
        return self.call("promote", subject, fact_id=fact_id, group=group, **kw)

    def demote(self, subject: str, fact_id: str, group: str, **kw: Any) -> dict[str, Any]:
        """Withdraw a fact the user promoted."""
        return self.call("demote", subject, fact_id=fact_id, group=group, **kw)

    def facts(self, subject: str, path: str | None = None) -> list[dict[str, Any]]:
        """The subject's facts with their derived status."""
        return self.call("facts", subject, path=path)

    def inputs(self, subject: str) -> list[dict[str, Any]]:
        """Everything archived for the subject."""
        return self.call("inputs", subject)

    def rejections(self, subject: str) -> list[dict[str, Any]]:
        """What the gate refused, and why."""
        return self.call("rejections", subject)

    def compile(self, subject: str, **kw: Any) -> list[dict[str, Any]]:
        """Compile the subject."""
        return self.call("compile", subject, **kw)

    def query(self, subject: str, program: str, **kw: Any) -> dict[str, Any]:
        """Run a program over the typed state in the server's sandbox."""
        return self.call("query", subject, program=program, **kw)

    def search(self, subject: str, text: str, **kw: Any) -> list[dict[str, Any]]:
        """Search notes and messages."""
        return self.call("search", subject, text=text, **kw)

    def context(self, subject: str, **kw: Any) -> str:
        """The memory block for an agent's system prompt."""
        return self.call("context", subject, **kw)["context"]

    def manifest(self, subject: str) -> str:
        """The compact manifest of the typed state."""
        return self.call("manifest", subject)["manifest"]

    def why(self, subject: str, expr: str) -> dict[str, Any]:
        """Explain one value and the facts behind it."""
        return self.call("why", subject, expr=expr)

    def diff(self, subject: str, v1: int | None = None, v2: int | None = None) -> dict[str, Any]:
        """Typed-state change between two checkpoint versions."""
        return self.call("diff", subject, v1=v1, v2=v2)

    def alerts(self, subject: str | None = None, **kw: Any) -> list[dict[str, Any]]:
        """Open alerts of one subject, or of the whole tenant."""
        return self.call("alerts" if subject else "tenant-alerts", subject, **kw)

    def questions(self, subject: str, **kw: Any) -> list[dict[str, Any]]:
        """What the subject's checks would like to ask the user, and why."""
        return self.call("questions", subject, **kw)

    def acknowledge(self, subject: str | None, alert_id: str, **kw: Any) -> dict[str, Any]:
        """Mark an alert as seen."""
        return self.call("ack" if subject else "tenant-ack", subject, alert_id=alert_id, **kw)

    def snooze(
        self, subject: str | None, alert_id: str, until: dt.date, **kw: Any
    ) -> dict[str, Any]:
        """Hide an alert until a date."""
        verb = "snooze" if subject else "tenant-snooze"
        return self.call(verb, subject, alert_id=alert_id, until=until, **kw)

    def check(self, subject: str, **kw: Any) -> dict[str, Any]:
        """Run the subject's checks."""
        return self.call("check", subject, **kw)

    def subjects(self) -> list[dict[str, Any]]:
        """Subjects of the tenant."""
        return self.call("subjects")

    def verify(self, anchor: dict[str, Any] | None = None) -> dict[str, Any]:
        """Verify the log on the server (optionally against an anchor exported earlier)."""
        return self.call("verify", anchor=anchor)

    def anchors(self, all: bool = False) -> Any:
        """The log's newest anchor (or all), for an external witness."""
        return self.call("anchor", all=all or None)

    def run_once(self, **kw: Any) -> dict[str, Any]:
        """One scheduled pass over the tenant."""
        return self.call("run-once", **kw)


def _renamed(kw: dict[str, Any]) -> dict[str, Any]:
    # Memory names it session_id; the wire names it session.
    if "session_id" in kw:
        kw["session"] = kw.pop("session_id")
    return kw


def _error(status: int, message: str) -> UacError:
    if status in (401, 403):
        return AccessDenied(message)
    if status == 404:
        return NotFound(message)
    if status in (400, 409, 413, 422):
        return InputError(message)
    if status == 503:
        return WorkspaceError(message)
    return ServiceError(f"server error (HTTP {status}): {message}")


def _read_file(path: Path) -> str:
    """A file sent to the server, refused in the words a local import uses."""
    if path.is_dir():
        raise InputError(f"{path} is not a file")
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read file: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None


@contextlib.contextmanager
def _named(path: Path) -> Iterator[None]:
    """The server names a sent file by its name alone: errors name it as the caller did."""
    try:
        yield
    except UacError as exc:
        exc.args = tuple(
            str(path) + str(a)[len(path.name) :] if str(a).startswith(path.name) else a
            for a in exc.args
        )
        raise
