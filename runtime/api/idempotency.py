"""Idempotent writes: a write sent twice with one `Idempotency-Key` is done once.

A client that lost the answer to a write cannot tell whether it was committed; it sends the
write again with the same key (the `Client` and the CLI do, automatically). The first
request claims the key (a row with no answer yet) before the write runs and stores the
answer after it; a repeat is answered with the stored answer and never runs again. A
repeat that finds the claim without an answer (the first still running, or its server
killed before it stored the answer) is refused with 409, saying the outcome is unknown:
never a second write. A key is the caller's: rows are per tenant and per API key, and a
key reused with another request (another verb, subject or body) is refused.

Rows live `RETENTION` (24 h, as the IETF httpapi draft suggests at least) and are dropped
by the next claims after that; the table is the workspace's, or the shared PostgreSQL
database's when the log is there (a retry may land on another node).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
import signal
import threading
from typing import Any

from uac.fact_log.errors import InputError, UacError
from uac.fact_log.store import Store
from uac.runtime.api import schema  # noqa: F401 (registers the idempotency table)
from uac.runtime.api.api_keys import _rows

HEADER = "Idempotency-Key"
RETENTION = dt.timedelta(hours=24)
MAX_KEY = 255
PURGE_EVERY = dt.timedelta(minutes=1)
# Fault injection for the crash test (tests/test_idempotent_writes.py): the server kills
# itself after storing a write's answer, before sending it.
KILL_BEFORE_ANSWER = "UAC_FAULT_KILL_BEFORE_ANSWER"

_purged: dict[int, dt.datetime] = {}
_purge_lock = threading.Lock()


class Unknown(UacError):
    """The key's first request has no stored answer: still running, or interrupted."""


@dataclasses.dataclass(frozen=True, slots=True)
class Claim:
    """One write's hold on its key: who, which key, which request."""

    tenant: str
    key_id: str
    key: str
    request_hash: str


@dataclasses.dataclass(frozen=True, slots=True)
class Stored:
    """The first answer of a key: its HTTP status and JSON body."""

    status: int
    body: Any


def request_hash(verb: str, subject: str | None, fields: dict[str, Any]) -> str:
    """A digest of what a request asks, so one key cannot stand for two requests."""
    text = json.dumps([verb, subject, fields], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def claim(store: Store, held: Claim, now: dt.datetime) -> Stored | None:
    """Claim the key for a write: None when it is new (run the write, then `finish`);
    the stored answer when the key answered before; `Unknown` when it has no answer yet."""
    key = held.key
    if not key or len(key) > MAX_KEY or not key.isascii() or not key.isprintable():
        raise InputError(f"{HEADER}: at most {MAX_KEY} printable ASCII characters")
    _purge(store, now)
    where = "tenant = ? AND key_id = ? AND idem_key = ?"
    pk = [held.tenant, held.key_id, key]
    _rows(
        store, f"DELETE FROM idempotency WHERE {where} AND created_at < ?", [*pk, now - RETENTION]
    )
    new = _rows(
        store,
        "INSERT INTO idempotency VALUES (?, ?, ?, ?, NULL, NULL, ?) ON CONFLICT DO NOTHING"
        " RETURNING idem_key",
        [*pk, held.request_hash, now],
    )
    if new:
        return None
    found = _rows(store, f"SELECT request_hash, status, answer FROM idempotency WHERE {where}", pk)
    if not found:  # expired and dropped between the two statements: claim it again
        return claim(store, held, now)
    digest, status, answer = found[0]
    if digest != held.request_hash:
        raise InputError(
            f"{HEADER} {key!r} was used for another request; use a new key for a new request"
        )
    if status is None:
        raise Unknown(
            f"the request with {HEADER} {key!r} has no answer yet: it is still running, or the "
            "server stopped before answering it, so it may have been saved; look before "
            "sending it again with a new key"
        )
    return Stored(int(status), json.loads(answer))


def finish(store: Store, held: Claim, status: int, body: Any) -> None:
    """Store the answer of a claimed key (the one every repeat gets)."""
    _rows(
        store,
        "UPDATE idempotency SET status = ?, answer = ? WHERE tenant = ? AND key_id = ?"
        " AND idem_key = ?",
        [status, json.dumps(body), held.tenant, held.key_id, held.key],
    )
    if os.environ.get(KILL_BEFORE_ANSWER) == "1":
        os.kill(os.getpid(), signal.SIGKILL)


def release(store: Store, held: Claim) -> None:
    """Drop a claim whose request wrote nothing (the same key may then be sent again)."""
    _rows(
        store,
        "DELETE FROM idempotency WHERE tenant = ? AND key_id = ? AND idem_key = ?",
        [held.tenant, held.key_id, held.key],
    )


def _purge(store: Store, now: dt.datetime) -> None:
    """Drop expired rows, at most once a minute per workspace."""
    with _purge_lock:
        last = _purged.get(id(store))
        if last is not None and now - last < PURGE_EVERY:
            return
        _purged[id(store)] = now
    _rows(store, "DELETE FROM idempotency WHERE created_at < ?", [now - RETENTION])
