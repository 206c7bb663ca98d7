"""`Client`: the verbs of `Memory`, spoken to a `uac serve` over HTTP.

    from uac import Client
    with Client("http://127.0.0.1:8765", "uac_...") as c:     # or Client.discover()
        c.add("alice", "I'm flying to Tokyo on March 5")
        c.query("alice", "len(user.trips)")["result"]

The verb methods (runtime/api/verb_methods.py) are generated from the verb table and
`Memory`'s signatures: same names, same parameters, same result types (`Fact`, `Learned`,
`Alert`, ... rebuilt from the JSON answer by runtime/api/wire.py), so both satisfy the one
`Verbs` protocol. `call(verb, subject, **fields)` sends wire fields and returns the plain
JSON answer (what the CLI prints). Errors come back as the same exceptions `Memory` raises
(`InputError`, `NotFound`, ...) with the server's message; `AccessDenied` for a refused key
and `ServiceError` (retryable) when the server is down; `StorageFault` (a `ServiceError`)
when its storage is full or failing, with `committed` saying whether the write was saved.

Every POST carries an `Idempotency-Key`: a retry after a lost connection sends the same
key, and the server answers it with the first result instead of writing twice.

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
import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac import __version__
from uac.fact_log.errors import InputError, NotFound, UacError, WorkspaceError
from uac.runtime.api import wire
from uac.runtime.api.discovery import (  # noqa: F401 (re-exported)
    DB_FILE,
    MCP_IDLE_SECONDS,
    MCP_SESSIONS_PER_KEY,
    SERVER_FILE,
    live_server,
)
from uac.runtime.api.verb_methods import RESULT_TYPES, RemoteVerbs

if TYPE_CHECKING:  # loaded on the first request: a local CLI call only asks `discover`
    import http.client

IDEMPOTENCY_HEADER = "Idempotency-Key"


class AccessDenied(UacError):
    """The server refused the key (unknown, revoked, read-only or bound elsewhere)."""


class ServiceError(UacError):
    """The server could not be reached or failed; the request may be retried."""


class StorageFault(ServiceError, WorkspaceError):
    """The server's storage is full (HTTP 507) or failing (503) and the write failed.

    `committed` says whether the write was saved anyway: True (do not send it again with a
    new key; the same `Idempotency-Key` answers it), False (nothing was saved: send it again
    once the server is ready), None (unknown: the same key settles it).
    """

    def __init__(self, message: str, committed: bool | None):
        super().__init__(message)
        self.committed = committed


def _encode(value: Any) -> Any:
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, Decimal | Path):
        return str(value)
    raise TypeError(f"cannot send a {type(value).__name__} to the server")


class Client(RemoteVerbs):
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
            conn = kind(self._parts.hostname or "", self._parts.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def request(
        self, method: str, path: str, body: Any = None, *, idempotency_key: str | None = None
    ) -> Any:
        """Send one request; returns the decoded JSON or raises the matching error.

        A POST carries an `Idempotency-Key` (a new one unless given), the same on its retry:
        a write the server committed before the connection broke is answered, not repeated.
        """
        data = None if body is None else json.dumps(body, default=_encode).encode("utf-8")
        headers = {
            "Authorization": f"Bearer {self._key}",
            "X-Uac-Client-Version": __version__,
            "Content-Type": "application/json",
        }
        if method == "POST":
            headers[IDEMPOTENCY_HEADER] = idempotency_key or uuid.uuid4().hex
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
        self._local.tenant = response.getheader("X-Uac-Tenant")
        if response.status >= 400:
            message = payload.get("error") if isinstance(payload, dict) else None
            error = _error(response.status, str(message or f"HTTP {response.status}"))
            if response.status == 507 or (isinstance(payload, dict) and "committed" in payload):
                committed = payload.get("committed") if isinstance(payload, dict) else None
                error = StorageFault(str(error), committed)
            raise error
        return payload

    def call(
        self,
        verb: str,
        subject: str | None = None,
        *,
        idempotency_key: str | None = None,
        **params: Any,
    ) -> Any:
        """Run one verb (subject-scoped when `subject` is given) with its wire fields; returns
        the plain JSON answer."""
        params = {k: v for k, v in params.items() if v is not None}
        path = f"/v1/{verb}"
        if subject is not None:
            path = f"/v1/subjects/{urllib.parse.quote(subject, safe=':')}/{verb}"
        return self.request("POST", path, params, idempotency_key=idempotency_key)

    def send_file(self, verb: str, subject: str | None, file: str | Path, **params: Any) -> Any:
        """Run a verb that takes a file (import, note) with the file's text; plain JSON back."""
        fields = self._note_fields(file) if verb == "note" else self._file_fields(file)
        path = fields.pop("__file__")
        with _named(path):
            return self.call(verb, subject, **{**fields, **params})

    def health(self) -> dict[str, Any]:
        """The server's liveness answer (its version)."""
        return self.request("GET", "/healthz")

    # -- the generated verb methods' transport (runtime/api/verb_methods.py) ---------------

    def _verb(
        self,
        name: str,
        subject: str | None,
        fields: dict[str, Any],
        returns: str,
        *,
        key: str | tuple[str, ...] | None = None,
        sent: tuple[str, Any] | None = None,
    ) -> Any:
        params = {k: v for k, v in fields.items() if v is not None}
        named: Path | None = None
        if sent is not None:  # a file or records: sent as fields of the wire's own
            helper, value = sent
            extra = getattr(self, helper)(value)
            named = extra.pop("__file__", None)
            for field_name, field_value in extra.items():
                params.setdefault(field_name, field_value)
        with _named(named) if named is not None else contextlib.nullcontext():
            data = self.call(name, subject, **params)
        if isinstance(key, str):
            data = data[key]
        elif key is not None:
            data = tuple(data[k] for k in key)
        return wire.decode(returns, data, RESULT_TYPES, getattr(self._local, "tenant", None))

    def _local_only(self, method: str, **given: Any) -> None:
        for name, value in given.items():
            if value is not None:
                raise InputError(
                    f"{method}: {name} works in process only (a Memory), not over a Client"
                )

    @staticmethod
    def _file_fields(file: str | Path) -> dict[str, Any]:
        path = Path(file)
        return {"content": _read_file(path), "name": path.name, "__file__": path}

    @staticmethod
    def _note_fields(file: str | Path) -> dict[str, Any]:
        path = Path(file)
        return {"content": _read_file(path), "note_id": path.name, "__file__": path}

    @staticmethod
    def _records_fields(records: list[dict[str, Any]]) -> dict[str, Any]:
        return {"content": "\n".join(json.dumps(r, default=_encode) for r in records)}


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
