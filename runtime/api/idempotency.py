"""Idempotent writes: a write sent twice with one `Idempotency-Key` is done once.

A client that lost the answer to a write cannot tell whether it was committed; it sends the
write again with the same key (the `Client` and the CLI do, automatically). The first
request claims the key (a row with no answer yet) before the write runs and stores the
answer after it; a repeat is answered with the stored answer and never runs again.

Each batch the request appends records the key in its own transaction
(fact_log/backends/write_keys.py), so a server killed after the commit but before the answer
was stored (during the write's reaction, say) leaves a claim whose committed batches are
known: a repeat then runs the request again in replay (`Resume`) — the committed batches are
handed back, not written — and gets the answer the first run would have given.

Whether a claim without an answer is still running is known, not guessed: the claimant
holds the key while it runs, in this process and as the log's backend holds names for the
life of a process (`LogBackend.hold`: on DuckDB the file lock already makes this process the
only writer; on PostgreSQL a session advisory lock on a connection of the node's own, which
the database drops when the process dies). A repeat takes the hold first: refused, the first
run is alive (here or on another node) and the repeat gets 409, saying so — never a second
write; granted, the first run died (or gave up) and the repeat takes it over: it resumes
what was committed, or, where nothing was, runs the request. So a write killed between its
claim and its commit is retried with success, on either backend. A key is the caller's:
rows are per tenant and per API key, and a key reused with another request (another verb,
subject or body) is refused.

Rows live `RETENTION` (24 h, as the IETF httpapi draft suggests at least) and are dropped
by the next claims after that; the table is the workspace's, or the shared PostgreSQL
database's when the log is there (a retry may land on another node).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import os
import signal
import threading
from typing import Any

from uac.fact_log.backends import write_keys
from uac.fact_log.errors import InputError, UacError
from uac.fact_log.store import Store
from uac.runtime.api import schema  # noqa: F401 (registers the idempotency table)
from uac.runtime.api.api_keys import _rows

HEADER = "Idempotency-Key"
RETENTION = dt.timedelta(hours=24)
MAX_KEY = 255
PURGE_EVERY = dt.timedelta(minutes=1)
# Fault injection for the crash tests (tests/test_idempotent_writes.py): the server kills
# itself after storing a write's answer, before sending it; after the write ran, before its
# answer is stored; or after claiming a new key, before the write runs.
KILL_BEFORE_ANSWER = "UAC_FAULT_KILL_BEFORE_ANSWER"
KILL_BEFORE_STORING = "UAC_FAULT_KILL_BEFORE_STORING"
KILL_AFTER_CLAIM = "UAC_FAULT_KILL_AFTER_CLAIM"

_purged: dict[int, dt.datetime] = {}
_purge_lock = threading.Lock()
# Keys whose request runs in this process now (and the store whose backend holds each): a
# repeat of one waits for its answer (409).
_running: dict[tuple[str, str, str], Store] = {}


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
class Resume:
    """A key whose first run committed these batches but stored no answer: run the request
    again, replaying them (write_keys.WriteMark)."""

    earlier: list[write_keys.Committed]


@dataclasses.dataclass(frozen=True, slots=True)
class Stored:
    """The first answer of a key: its HTTP status and JSON body."""

    status: int
    body: Any


def request_hash(verb: str, subject: str | None, fields: dict[str, Any]) -> str:
    """A digest of what a request asks, so one key cannot stand for two requests."""
    text = json.dumps([verb, subject, fields], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def claim(store: Store, held: Claim, now: dt.datetime) -> Stored | Resume | None:
    """Claim the key for a write: None when it is new (run the write, then `finish`); the
    stored answer when the key answered before; `Resume` when its first run committed but
    stored no answer (run it again, replaying); `Unknown` when its first run may still be
    running (here, or alive on another node of a shared log).

    The claim is held (`_hold`) before its row is looked at: in this process, and as the
    log's backend holds a name for as long as the process lives (`LogBackend.hold`: the file
    lock on DuckDB, a session lock on PostgreSQL). A row without an answer whose hold is
    free was abandoned — its process died, or let it go — and a repeat takes it over."""
    key = held.key
    if not key or len(key) > MAX_KEY or not key.isascii() or not key.isprintable():
        raise InputError(f"{HEADER}: at most {MAX_KEY} printable ASCII characters")
    _purge(store, now)
    where = "tenant = ? AND key_id = ? AND idem_key = ?"
    pk = [held.tenant, held.key_id, key]
    expired = _rows(
        store,
        f"DELETE FROM idempotency WHERE {where} AND created_at < ? RETURNING idem_key",
        [*pk, now - RETENTION],
    )
    if expired:
        write_keys.forget(store, *pk)
    mine = _hold(store, held)
    keep = False
    try:
        new = _rows(
            store,
            "INSERT INTO idempotency VALUES (?, ?, ?, ?, NULL, NULL, ?) ON CONFLICT DO NOTHING"
            " RETURNING idem_key",
            [*pk, held.request_hash, now],
        )
        if new and mine:
            keep = True
            if os.environ.get(KILL_AFTER_CLAIM) == "1":
                os.kill(os.getpid(), signal.SIGKILL)
            return None
        found = [] if new else _rows(
            store, f"SELECT request_hash, status, answer FROM idempotency WHERE {where}", pk
        )  # fmt: skip
        if not found and not new:  # expired and dropped between the two statements
            mine = False  # let go here: the claim below holds it anew
            let_go(held)
            return claim(store, held, now)
        if found and found[0][0] != held.request_hash:
            raise InputError(
                f"{HEADER} {key!r} was used for another request; use a new key for a new request"
            )
        if found and found[0][1] is not None:
            return Stored(int(found[0][1]), json.loads(found[0][2]))
        if not mine:
            raise Unknown(
                f"the request with {HEADER} {key!r} has no answer yet: it is still running; "
                "send it again with this key once it has answered"
            )
        earlier = write_keys.committed(store, *pk)
        if any(c.streamed for c in earlier):
            raise Unknown(
                f"the request with {HEADER} {key!r} is a streamed import that has no answer: "
                "it may have been saved; look before sending it again with a new key"
            )
        # Nobody runs it (its process died, or gave it up): resume what it committed, or,
        # where it committed nothing, run it now.
        keep = True
        return Resume(earlier) if earlier else None
    finally:
        if mine and not keep:
            let_go(held)


def _key(held: Claim) -> tuple[str, str, str]:
    return (held.tenant, held.key_id, held.key)


def _name(held: Claim) -> str:
    return "\x1f".join(("idempotency", *_key(held)))


def _hold(store: Store, held: Claim) -> bool:
    """Hold the key's request as running in this process, and as the backend holds names
    across processes (False: it runs already, here or in a live process elsewhere)."""
    with _purge_lock:
        if _key(held) in _running:
            return False
        _running[_key(held)] = store
    try:
        if store.backend.hold(_name(held)):
            return True
    except BaseException:
        with _purge_lock:
            _running.pop(_key(held), None)
        raise
    with _purge_lock:
        _running.pop(_key(held), None)
    return False


def let_go(held: Claim) -> None:
    """The key's request stopped running here (answered, released, or failed after part of
    it was saved: a repeat resumes it). Safe to call twice."""
    with _purge_lock:
        store = _running.pop(_key(held), None)
    if store is not None:
        with contextlib.suppress(Exception):  # a hold whose connection broke is gone already
            store.backend.let_go(_name(held))


def finish(store: Store, held: Claim, status: int, body: Any) -> None:
    """Store the answer of a claimed key (the one every repeat gets)."""
    if os.environ.get(KILL_BEFORE_STORING) == "1":
        os.kill(os.getpid(), signal.SIGKILL)
    _rows(
        store,
        "UPDATE idempotency SET status = ?, answer = ? WHERE tenant = ? AND key_id = ?"
        " AND idem_key = ?",
        [status, json.dumps(body), held.tenant, held.key_id, held.key],
    )
    let_go(held)
    if os.environ.get(KILL_BEFORE_ANSWER) == "1":
        os.kill(os.getpid(), signal.SIGKILL)


def release(store: Store, held: Claim) -> None:
    """Drop a claim whose request wrote nothing (the same key may then be sent again)."""
    _rows(
        store,
        "DELETE FROM idempotency WHERE tenant = ? AND key_id = ? AND idem_key = ?",
        [held.tenant, held.key_id, held.key],
    )
    write_keys.forget(store, held.tenant, held.key_id, held.key)
    let_go(held)


def _purge(store: Store, now: dt.datetime) -> None:
    """Drop expired rows, at most once a minute per workspace."""
    with _purge_lock:
        last = _purged.get(id(store))
        if last is not None and now - last < PURGE_EVERY:
            return
        _purged[id(store)] = now
    _rows(store, "DELETE FROM idempotency WHERE created_at < ?", [now - RETENTION])
    write_keys.purge(store, now - RETENTION)
