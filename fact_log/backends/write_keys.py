"""A write's idempotency key, recorded in the write's own transaction.

The service (runtime/api/idempotency.py) claims a request's `Idempotency-Key` before the
write runs and stores the answer after it. Between the commit and that answer lies the
write's reaction (seconds, under load): a process killed there leaves a committed write
whose key has no answer. So every batch a keyed request appends also records, in the
transaction that appends it, one row here: the key, the batch's number within the request,
and the ids of the facts and inputs it stored. A retry of the key then runs the request
again in *replay*: each append that the first run committed hands back the facts it stored
instead of writing (the verb builds its answer from them as the first run would have), and
any append the first run did not reach writes for real. A write is stored once, whatever
the moment of the kill. A step that changes something other than the log (an alert's
acknowledgement or snooze, an erase) records its answer instead (`record_answer`, in the
transaction doing its work); its replay returns that answer (`answered`) and does nothing.

Whichever request is writing is said by `writing(...)`, a context variable the service sets
around a verb, so the verbs themselves never see keys. A request without a key is counted
too (`WriteMark.saved`), so a storage error can say whether anything of the request was
saved. Rows are per tenant and per API key, like the claims, and dropped with them
(`forget`, `purge`). Both backends' `append` call `take` (replay or write), `record` (in
the transaction) and `settle`/`rolled_back`; this module never asks which backend it runs
on. A streamed import (`append_stream`, files too big to hold) is marked before it starts
(`streaming`), in its own transaction: a repeat of a key so marked is refused as unknown,
never replayed nor run again blind.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from uac.fact_log.backends import pg_schema
from uac.fact_log.chain import Prepared
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.rows import Fact, utc_now
from uac.fact_log.schema import Owner, register

if TYPE_CHECKING:
    import duckdb
    import psycopg

    from uac.fact_log.rwlock import GatedConnection

_DDL = (
    "CREATE TABLE IF NOT EXISTS idempotency_writes (tenant VARCHAR NOT NULL,"
    " key_id VARCHAR NOT NULL, idem_key VARCHAR NOT NULL, n INTEGER NOT NULL,"
    " fact_ids VARCHAR NOT NULL, input_ids VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL,"
    " PRIMARY KEY (tenant, key_id, idem_key, n))"
)
WRITE_KEYS = register(Owner("write_keys", 0, ((_DDL,),)))
pg_schema.register("write_keys", ((_DDL.replace("VARCHAR", "TEXT"),),))

_KEY = "tenant = ? AND key_id = ? AND idem_key = ?"


@dataclass(frozen=True, slots=True)
class Committed:
    """One batch a keyed request committed: the ids of the facts and inputs it stored; or
    (`streamed`) a streamed write it started, whose outcome the row cannot tell; or
    (`answer`) a step that changed something else than the log (`record_answer`)."""

    fact_ids: tuple[str, ...]
    input_ids: tuple[str, ...]
    streamed: bool = False
    answer: Any = None  # a step that appends no batch (an ack, an erase): what it answered


STREAM = '"stream"'  # fact_ids of a streamed write's mark (a JSON string, not a list)


@dataclass(slots=True)
class WriteMark:
    """The request that is writing: its key (None: a request without one), the batches its
    earlier run committed (replayed in order), and how many batches this run has appended."""

    tenant: str
    key_id: str
    key: str | None
    earlier: list[Committed] = field(default_factory=list)
    appended: int = 0  # batches committed or replayed by this run
    committed: int = 0  # batches this run committed for real
    in_flight: bool = False  # an append is between its start and its answer
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def keyed(self) -> bool:
        """Whether the request has an idempotency key (its batches are recorded)."""
        return self.key is not None

    @property
    def saved(self) -> bool | None:
        """Whether anything of the request is stored: True, False, or None (unknown: an
        append failed while it committed, so the database may hold it)."""
        if self.committed or self.earlier[: self.appended]:
            return True
        return None if self.in_flight else False


_current: contextvars.ContextVar[WriteMark | None] = contextvars.ContextVar(
    "uac_write_mark", default=None
)


@contextlib.contextmanager
def writing(mark: WriteMark) -> Iterator[WriteMark]:
    """Run a request's writes under `mark` (this thread's context)."""
    token = _current.set(mark)
    try:
        yield mark
    finally:
        _current.reset(token)


@dataclass(frozen=True, slots=True)
class Slot:
    """One append's place in its request: replay `earlier` (committed before), or write and
    record as batch `n` of the key."""

    mark: WriteMark
    n: int
    earlier: Committed | None


def take() -> Slot | None:
    """The slot of the append about to run in this context (None: no request said)."""
    mark = _current.get()
    if mark is None:
        return None
    with mark._lock:
        n = mark.appended
        mark.appended += 1
        earlier = mark.earlier[n] if n < len(mark.earlier) else None
        if earlier is None:
            mark.in_flight = True
    return Slot(mark, n, earlier)


def settle(slot: Slot | None) -> None:
    """The append committed. (One that failed: `rolled_back`, or nothing when it failed in
    the commit itself: `in_flight` stays set and the outcome is unknown.)"""
    if slot is None or slot.earlier is not None:
        return
    with slot.mark._lock:
        slot.mark.committed += 1
        slot.mark.in_flight = False


def rolled_back(slot: Slot | None) -> None:
    """The append failed before its commit started: nothing of it is stored."""
    if slot is not None and slot.earlier is None:
        with slot.mark._lock:
            slot.mark.in_flight = False


def _row(slot: Slot, prep: Prepared) -> list[Any] | None:
    mark = slot.mark
    if not mark.keyed:
        return None
    now = utc_now()  # kept 24 h from now, however the write is dated
    facts = [row[1] for row in prep.fact_rows]
    inputs = [row[1] for row in prep.input_rows]
    return [mark.tenant, mark.key_id, mark.key, slot.n, json.dumps(facts), json.dumps(inputs), now]


def record(
    con: duckdb.DuckDBPyConnection | GatedConnection, slot: Slot | None, prep: Prepared
) -> None:
    """Record a keyed request's batch (DuckDB, in the write's transaction)."""
    _insert(con, None if slot is None else _row(slot, prep))


def record_pg(cur: psycopg.Cursor[Any], slot: Slot | None, prep: Prepared) -> None:
    """Record a keyed request's batch (PostgreSQL, in the write's transaction)."""
    _insert_pg(cur, None if slot is None else _row(slot, prep))


# -- steps that change something else than the log (an alert's lifecycle, an erase) -------


def answered(slot: Slot | None) -> Any:
    """What the request's earlier run answered for this step (`record_answer`), or None:
    the step runs. A step asks before it does anything, and, when it runs, records its
    answer in the transaction that does its work, so a retry of the key after a kill does the
    work once and answers as the first run did (runtime/api/idempotency.py)."""
    if slot is None or slot.earlier is None:
        return None
    return slot.earlier.answer


def answered_next() -> list[Any]:
    """Take the steps the earlier run recorded next, as long as they are answers, and return
    those answers: for a replay that does not reach them through the calls that made them
    (an erase's erasures of the copies it found, which a replay no longer finds)."""
    mark = _current.get()
    found: list[Any] = []
    if mark is None:
        return found
    with mark._lock:
        while mark.appended < len(mark.earlier) and mark.earlier[mark.appended].answer is not None:
            found.append(mark.earlier[mark.appended].answer)
            mark.appended += 1
    return found


def _answer_row(slot: Slot, answer: Any) -> list[Any] | None:
    mark = slot.mark
    if not mark.keyed or slot.earlier is not None:
        return None
    body = json.dumps({"answer": answer}, sort_keys=True, default=_iso)
    return [mark.tenant, mark.key_id, mark.key, slot.n, body, "[]", utc_now()]


def _iso(value: Any) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"cannot record {type(value).__name__} in an answer")


def record_answer(
    con: duckdb.DuckDBPyConnection | GatedConnection, slot: Slot | None, answer: Any
) -> None:
    """Record a keyed request's step and its answer (JSON-ready; dates become ISO text), in
    the DuckDB transaction doing the step's work."""
    _insert(con, None if slot is None else _answer_row(slot, answer))


def record_answer_pg(cur: psycopg.Cursor[Any], slot: Slot | None, answer: Any) -> None:
    """`record_answer`, in the PostgreSQL transaction doing the step's work."""
    _insert_pg(cur, None if slot is None else _answer_row(slot, answer))


def _insert(con: duckdb.DuckDBPyConnection | GatedConnection, row: list[Any] | None) -> None:
    """One keyed row, if there is one (DuckDB)."""
    if row is not None:
        con.execute("INSERT INTO idempotency_writes VALUES (?, ?, ?, ?, ?, ?, ?)", row)


def _insert_pg(cur: psycopg.Cursor[Any], row: list[Any] | None) -> None:
    """One keyed row, if there is one (PostgreSQL)."""
    if row is not None:
        cur.execute("INSERT INTO idempotency_writes VALUES (%s, %s, %s, %s, %s, %s, %s)", row)


def streaming(store: Any, slot: Slot | None) -> None:
    """Mark a keyed request's streamed write before it starts (its own transaction)."""
    if slot is None or not slot.mark.keyed:
        return
    if slot.earlier is not None:
        raise WorkspaceError("a streamed write cannot be replayed; send it with a new key")
    mark = slot.mark
    store.backend.service_rows(
        "INSERT INTO idempotency_writes VALUES (?, ?, ?, ?, ?, '[]', ?)",
        [mark.tenant, mark.key_id, mark.key, slot.n, STREAM, utc_now()],
    )


def replayed(store: Any, earlier: Committed) -> list[Fact]:
    """The facts an earlier run of the request stored (read from the workspace file, which
    the caller brought up to date), in their order. `store`: the backend's StoreFile."""
    if not earlier.fact_ids:
        return []
    marks = ", ".join("?" * len(earlier.fact_ids))
    rows = store.con.execute(
        f"SELECT {store._fact_cols} FROM facts WHERE id IN ({marks}) ORDER BY seq",
        list(earlier.fact_ids),
    ).fetchall()
    return [Fact(*row) for row in rows]


# -- the service's side: read and drop a key's rows (through the backend's service_rows) ----


def committed(store: Any, tenant: str, key_id: str, key: str) -> list[Committed]:
    """The batches a key's earlier run committed, in order ([]: none)."""
    rows = store.backend.service_rows(
        f"SELECT fact_ids, input_ids FROM idempotency_writes WHERE {_KEY} ORDER BY n",
        [tenant, key_id, key],
    )
    return [_committed(f, i) for f, i in rows]


def _committed(fact_ids: str, input_ids: str) -> Committed:
    if fact_ids == STREAM:
        return Committed((), (), True)
    found = json.loads(fact_ids)
    if isinstance(found, dict):  # a step's answer (record_answer)
        return Committed((), (), answer=found["answer"])
    return Committed(tuple(found), tuple(json.loads(input_ids)))


def forget(store: Any, tenant: str, key_id: str, key: str) -> None:
    """Drop a key's rows (its claim expired or was released)."""
    store.backend.service_rows(
        f"DELETE FROM idempotency_writes WHERE {_KEY}", [tenant, key_id, key]
    )


def purge(store: Any, before: dt.datetime) -> None:
    """Drop rows older than `before` (their claims expire with them)."""
    store.backend.service_rows("DELETE FROM idempotency_writes WHERE created_at < ?", [before])
