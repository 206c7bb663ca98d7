"""The log in the workspace's DuckDB file (a `LogBackend`, fact_log/backends/base.py).

One hash chain over the whole log, numbered in commit order. DuckDB's file lock makes a
workspace single-writer, so the store caches the chain head and the next numbers for the
life of a connection (fact_log/store.py). Appends go through one writer with group commit: a
caller queues its batch; whichever caller finds no writer active becomes the writer, takes
every queued batch, chains them in queue order and commits them in one transaction (one
fsync), then hands each caller its own facts. The chain stays linear whatever the number of
threads. A batch that fails inside a shared transaction is retried alone, so one bad batch
never fails its neighbours.

Alerts, their outbox and the API keys are the file's tables too. The alert and outbox SQL
here is also what a PostgreSQL-bound workspace uses for its copy of them
(backends/postgres.py).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from uac.fact_log.addressing import Address
from uac.fact_log.backends import write_keys
from uac.fact_log.backends.base import ALERT_COLUMNS, Key, Send, StoreFile
from uac.fact_log.chain import Batch, Prepared, VerifyReport
from uac.fact_log.chain_keys import KeyRing, row_message
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.file_verify import verify_file
from uac.fact_log.rows import Fact, utc_now
from uac.fact_log.rwlock import one
from uac.fact_log.tamper import (
    anchor_rows,
    latest_anchors,
    parse_record,
    reseal,
)

if TYPE_CHECKING:
    import duckdb
else:  # the engine the package re-exports, without its __init__ (fact_log/duck.py)
    from uac.fact_log.duck import duckdb

if TYPE_CHECKING:
    from uac.fact_log.backends.pg_jobs import QueueStatus
    from uac.fact_log.backends.pg_log import PgLog

_SUBJECT = "tenant = ? AND scope = ? AND subject = ?"
# Rows picked by "tenant, scope, subject[, id]" keys bound as one string (see _key): one
# statement for many subjects, and no list binding (DuckDB probes modules per element).
PICK_SUBJECTS = (
    "concat_ws(chr(31), tenant, scope, subject) IN (SELECT unnest(string_split(?, chr(30))))"
)
_PICK_ALERTS = (
    "concat_ws(chr(31), tenant, scope, subject, id) IN (SELECT unnest(string_split(?, chr(30))))"
)


def picked(keys: Iterable[Sequence[str]]) -> str:
    """Keys (tenant, scope, subject[, id]) bound as one string for PICK_SUBJECTS/_PICK_ALERTS."""
    return chr(30).join(chr(31).join(k) for k in keys)


@dataclass(slots=True)
class Pending:
    """One caller's batch waiting in the group-commit queue, and what it gets back."""

    batch: Batch
    return_facts: bool
    slot: write_keys.Slot | None = None  # the keyed request it belongs to (write_keys.py)
    done: threading.Event = field(default_factory=threading.Event)
    facts: list[Fact] = field(default_factory=list)
    error: BaseException | None = None


def hand_back(prepared: Sequence[Prepared], items: Sequence[Pending]) -> None:
    """Give each caller its input ids and facts, and wake it."""
    for prep, item in zip(prepared, items, strict=True):
        prep.batch.input_ids = [row[1] for row in prep.input_rows]
        item.facts = [Fact(*row) for row in prep.fact_rows] if item.return_facts else []
        write_keys.settle(item.slot)
        item.done.set()


class DuckDBBackend:
    """The workspace file is the log (the default backend)."""

    name = "duckdb"
    where: str | None = None
    one_chain = True
    one_writer = True
    artifacts = None

    def __init__(self, store: StoreFile):
        self.store = store
        self.on_erased: Callable[[Address, list[dict[str, Any]]], None] | None = None
        self.alerts = FileAlerts(store)
        self.outbox = FileOutbox(store)
        # Group commit: queued batches and whether a writer is active.
        self._queue: list[Pending] = []
        self._queue_lock = threading.Lock()
        self._writer_active = False

    def close(self) -> None:
        """Nothing to release: the store closes the file."""

    # -- the log -----------------------------------------------------------------------------

    def sync(self, addr: Address, *, erasures: bool = True) -> None:
        """The file is the log: nothing to copy."""

    def sync_tenant(self, tenant: str) -> None:
        """The file is the log: nothing to copy."""

    def append(self, batch: Batch, return_facts: bool) -> list[Fact]:
        """Queue the batch for the group commit; become the writer if none is active.

        A batch a keyed request's earlier run committed is not written again: its facts are
        handed back (fact_log/backends/write_keys.py)."""
        slot = write_keys.take()
        if slot is not None and slot.earlier is not None:
            batch.input_ids = list(slot.earlier.input_ids)
            facts = write_keys.replayed(self.store, slot.earlier)
            return facts if return_facts else []
        mine = Pending(batch, return_facts, slot)
        with self._queue_lock:
            self._queue.append(mine)
            lead = not self._writer_active
            if lead:
                self._writer_active = True
        if lead:
            self._write_queued()
        mine.done.wait()
        if mine.error is not None:
            write_keys.rolled_back(slot)  # DuckDB rolls a failed commit back: nothing stored
            raise mine.error
        return mine.facts

    def _write_queued(self) -> None:
        """As the writer: commit queued batches, a group at a time, until the queue is empty."""
        while True:
            with self._queue_lock:
                group, self._queue = self._queue, []
                if not group:
                    self._writer_active = False
                    return
            try:
                with self.store.write_lock:
                    self._commit_group(group)
            except BaseException as exc:  # never leave a caller waiting
                for item in group:
                    if not item.done.is_set():
                        item.error = exc
                        item.done.set()
                if not isinstance(exc, Exception):
                    with self._queue_lock:
                        self._writer_active = False
                    raise

    def _commit_group(self, group: list[Pending]) -> None:
        if len(group) > 1:
            try:
                self._transaction([item.batch for item in group], group)
                return
            except Exception:
                pass  # find the batch that failed: each alone below
        for item in group:
            try:
                self._transaction([item.batch], [item])
            except Exception as exc:
                item.error = exc
                item.done.set()

    def _transaction(self, batches: list[Batch], items: list[Pending]) -> None:
        """Chain and insert batches in one transaction; on success, wake their callers."""
        store = self.store
        heads = store._load_heads()
        prepared: list[Prepared] = []
        for batch in batches:
            prep, heads = store._chain(batch, heads)
            prepared.append(prep)
        con = store.con
        con.execute("BEGIN")
        try:
            for prep, item in zip(prepared, items, strict=True):
                store._write_prepared(prep)
                write_keys.record(con, item.slot, prep)  # the request's key, same transaction
            counted = any(p.rejection_rows or p.batch.schemas for p in prepared)
            store._anchor(heads, prepared[-1].recorded, counted)
            con.execute("COMMIT")
        except BaseException:
            # A COMMIT that failed (a full disk) has ended the transaction already: the
            # ROLLBACK's own error must not hide why the write failed.
            with contextlib.suppress(duckdb.Error):
                con.execute("ROLLBACK")
            store._head = store._input_seq = None  # re-read the heads on the next append
            raise
        store._head, store._input_seq = heads
        for prep in prepared:  # a covered batch was counted covered by this commit (store.py)
            prep.batch.settled = prep.batch.covered
        hand_back(prepared, items)

    def append_stream(self, batches: Iterable[Batch], seen: list[Address]) -> int:
        """Staged in the file, then moved into the log in one transaction (staging.py); a
        keyed request's stream is marked first (write_keys.streaming)."""
        slot = write_keys.take()
        try:
            write_keys.streaming(self.store, slot)
            facts = self.store._stream_into_file(batches)
        except BaseException:
            write_keys.rolled_back(slot)
            raise
        write_keys.settle(slot)
        return facts

    def verify(self, chunk: int, anchor: dict[str, Any] | None) -> VerifyReport:
        """The chain: the first fact whose content, plain link or keyed digest is wrong (a log
        rewritten with recomputed plain hashes fails the keyed digest). Then the first bad
        row of each sealed table, anchors naming a head that is gone and, given `anchor` (an
        exported one), whether the log still holds it (fact_log/file_verify.py)."""
        store = self.store
        return verify_file(store.con, store.ring, store.home, store._fact_cols, chunk, anchor)

    def segment_check(self, addr: Address, ring: KeyRing) -> tuple[str | None, int]:
        """The log's keying, numbering, newest anchor and the subject's folded mark, read in
        one statement: (why it does not verify, the first keyed seq)."""
        row = self.store.con.execute(
            "SELECT (SELECT value FROM meta WHERE key = 'tamper'), (SELECT count(*) FROM facts),"
            " (SELECT coalesce(max(seq), 0) FROM facts),"
            " (SELECT max(watermark) FROM checkpoints WHERE tenant = ? AND scope = ?"
            "  AND subject = ? AND status = 'published' AND as_of IS NULL AND known_at IS NULL),"
            " a.seq, a.head, a.facts, a.inputs, a.recorded_at, a.tally, a.mac,"
            " (SELECT hash FROM facts f WHERE f.seq = a.seq)"
            " FROM (SELECT 1) LEFT JOIN (SELECT * FROM anchors WHERE seq ="
            " (SELECT max(seq) FROM anchors) ORDER BY inputs DESC LIMIT 1) a ON TRUE",
            [addr.tenant, addr.scope, addr.subject],
        )
        value, n, top, mark, *anchor, mac, held = one(row)
        record, why = parse_record(value, ring)
        if why is not None:
            return why, 0
        if record is None and n and ring.binds:
            return "the log holds facts but no keying record (deleted)", 0
        keyed_from = 1 << 62 if record is None else int(record["facts_from"])
        if n != top:
            return f"the log holds {n} facts numbered up to {top} (rows deleted or added)", 0
        if mark is not None and top < mark:
            return (
                f"the log ends at seq {top} but a published checkpoint of {addr} folded it"
                f" up to seq {mark} (facts deleted from the end)"
            ), 0
        if anchor[0] is not None:
            if not ring.check(row_message("anchors", anchor), mac):
                return f"the anchor at seq {anchor[0]} does not match its keyed digest", 0
            if anchor[0] > 0 and held != anchor[1]:
                return (
                    f"the anchor at seq {anchor[0]} names a head the log no longer holds"
                    " (facts deleted from the end or rewritten)"
                ), 0
        return None, keyed_from

    def anchors(self, every: bool) -> list[dict[str, Any]]:
        """The log's newest anchor (or all, oldest first)."""
        return latest_anchors(self.store.con, every)

    def erase_shared(
        self,
        record: dict[str, Any],
        seqs: Sequence[int],
        input_ids: Sequence[str],
        every: bool,
        slot: write_keys.Slot | None = None,
    ) -> dict[str, Any] | None:
        """The file is the log: fact_log/erase.py blanks it (and records the step)."""
        return None

    def hold(self, name: str) -> bool:
        """The file's lock makes this process the log's only writer: its in-process claims
        (runtime/api/idempotency.py) are all the holds there are."""
        return True

    def let_go(self, name: str) -> None:
        """Nothing is held beyond the process."""

    def erasure_done(self, erasure_id: str, report: dict[str, Any]) -> int | None:
        """The file's report is all there is (fact_log/erase.py records it)."""
        return None

    def missed_erasures(self) -> list[tuple[Address, list[dict[str, Any]]]]:
        """The file is the log: no other node erases from it."""
        return []

    # -- the tables the nodes share ----------------------------------------------------------

    def service_rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The file's table."""
        return self.store.con.execute(sql, list(params)).fetchall()

    def readiness(self) -> dict[str, str]:
        """Nothing beyond the open file."""
        return {}

    def job_status(self, limit: int = 20, tenant: str | None = None) -> QueueStatus | None:
        """No shared job queue: the server runs its checks itself."""
        return None

    def job_log(self) -> PgLog:
        """Workers claim jobs from a shared log; this workspace has none."""
        raise WorkspaceError(
            f"workspace {self.store.home} keeps its log in its DuckDB file; workers need a "
            "shared log: create the node with 'uac --home DIR init --db postgresql://...'"
        )


# -- alerts and their outbox in the file -----------------------------------------------------

_OUTBOX_IDS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
OUTBOX_LOCK = threading.Lock()


def insert_outbox(store: StoreFile, entries: Sequence[tuple[str, str, str, str]]) -> None:
    """Insert outbox rows (alert id, tenant, sink, payload) into the workspace file, in the
    caller's transaction if any."""
    if not entries:
        return
    con = store.con
    now = utc_now()
    # Ids from a per-workspace counter: two threads' transactions (each its own cursor)
    # reading max(id) would both take the same id and one would fail at commit.
    # The first id is read before the lock: no statement runs while it is held, so a thread
    # waiting for it inside a transaction never waits on a statement (fact_log/rwlock.py).
    seen = None
    if store not in _OUTBOX_IDS:
        seen = int(one(con.execute("SELECT coalesce(max(id), 0) FROM outbox"))[0]) + 1
    with OUTBOX_LOCK:
        first = _OUTBOX_IDS.get(store, seen)
        assert first is not None  # set by another thread since, or read above
        _OUTBOX_IDS[store] = first + len(entries)
    con.executemany(
        "INSERT INTO outbox VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, NULL, ?, NULL)",
        [
            [first + n, alert_id, tenant, sink, payload, now, now]
            for n, (alert_id, tenant, sink, payload) in enumerate(entries)
        ],
    )


@contextlib.contextmanager
def file_transaction(store: StoreFile) -> Iterator[None]:
    """BEGIN ... COMMIT on the workspace file (ROLLBACK on any error)."""
    con = store.con
    con.execute("BEGIN")
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(duckdb.Error):  # a failed COMMIT ended it already
            con.execute("ROLLBACK")
        raise


class _FileAlertWrite:
    """An evaluation's changes to the file's alerts; resealed and committed at the end.

    Its transaction runs under the store's write lock, and one that inserts rows anchors
    the new count in it (`alerts` is counted: fact_log/tamper.py), so a deleted row shows."""

    def __init__(self, store: StoreFile, keys: Sequence[Key]):
        self.store = store
        self.keys = keys
        self.changed: list[tuple[str, ...]] = []
        self.updates: dict[tuple[str, tuple[Any, ...]], list[tuple[str, ...]]] = {}
        self.entries: list[tuple[str, str, str, str]] = []
        self.open = False  # BEGIN is sent by the first write: an evaluation that changes
        # nothing opens no transaction
        self.inserted = False

    def _begin(self) -> None:
        if not self.open:
            # The anchor's count and the rows it counts, as one writer.
            self.store.write_lock.acquire()
            try:
                self.store.con.execute("BEGIN")
            except BaseException:
                self.store.write_lock.release()
                raise
            self.open = True

    def _end(self, statement: str) -> None:
        try:
            self.store.con.execute(statement)
        finally:
            self.open = False
            self.store.write_lock.release()

    def rows(self) -> list[tuple[Any, ...]]:
        return self.store.con.execute(
            f"SELECT {ALERT_COLUMNS} FROM alerts WHERE {PICK_SUBJECTS}", [picked(self.keys)]
        ).fetchall()

    def insert(self, values: Sequence[Sequence[Any]]) -> set[str]:
        if values:
            self._begin()
        for row in values:
            self.store.con.execute(
                f"INSERT INTO alerts ({ALERT_COLUMNS}) VALUES"
                " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?)",
                [*row[:13], *row[16:]],
            )
            self.changed.append((*row[1:4], row[0]))
            self.inserted = True
        return {row[0] for row in values}

    def rewrite(self, values: Sequence[Any], raised: bool) -> int:
        self._begin()
        self.store.con.execute(
            "UPDATE alerts SET severity = ?, status = ?, message = ?, computation = ?,"
            " fact_ids = ?, record_keys = ?, first_seen = ?, last_seen = ?,"
            " acknowledged_on = ?, snoozed_until = ?, resolved_on = ?, why = ?,"
            f" next_step = ? WHERE {_SUBJECT} AND id = ?",
            [*values[5:], *values[1:4], values[0]],
        )
        self.changed.append((*values[1:4], values[0]))
        return 1

    def update(self, key: Key, ids: Sequence[str], sets: str, values: Sequence[Any]) -> None:
        # Gathered: one statement per kind of update over every subject, at the end.
        self.updates.setdefault((sets, tuple(values)), []).extend((*key, i) for i in ids)

    def outbox(self, entries: Sequence[tuple[str, str, str, str, int, str, str]]) -> None:
        self.entries += [(aid, t, sink, payload) for t, _, _, aid, _, sink, payload in entries]

    def commit(self) -> None:
        changed = list(self.changed)
        for found in self.updates.values():
            changed += found
        if not changed:
            return
        con = self.store.con
        self._begin()
        for (sets, values), found in self.updates.items():
            con.execute(f"UPDATE alerts SET {sets} WHERE {_PICK_ALERTS}", [*values, picked(found)])
        reseal(con, self.store.signer(), "alerts", _PICK_ALERTS, [picked(changed)])
        if self.inserted:
            anchor_rows(con, self.store.signer())  # counts the new rows: a deleted one shows
        insert_outbox(self.store, self.entries)
        self._end("COMMIT")

    def rollback(self) -> None:
        if self.open:
            self._end("ROLLBACK")


class FileAlerts:
    """Alerts in the workspace file (tables `alerts`: checks/schema.py, `outbox`:
    runtime/api/schema.py)."""

    def __init__(self, store: StoreFile):
        self.store = store

    @contextlib.contextmanager
    def evaluating(self, keys: Sequence[Key]) -> Iterator[_FileAlertWrite]:
        # The caller holds the subjects' locks (compiler/locks.py): nothing else evaluates them.
        write = _FileAlertWrite(self.store, keys)
        try:
            yield write
            write.commit()
        except BaseException:
            write.rollback()
            raise

    def rows(self, keys: Sequence[Key]) -> list[tuple[Any, ...]]:
        return _FileAlertWrite(self.store, keys).rows()

    def update(
        self,
        key: Key,
        ids: Sequence[str],
        sets: str,
        values: Sequence[Any],
        slot: write_keys.Slot | None = None,
    ) -> None:
        """One lifecycle update of some alerts and their new digests, in one transaction
        (with the keyed request's step and its answer, the updated rows)."""
        if not ids:
            return
        con = self.store.con
        where = f"{_SUBJECT} AND id IN (SELECT unnest(?::VARCHAR[]))"
        with file_transaction(self.store):
            con.execute(f"UPDATE alerts SET {sets} WHERE {where}", [*values, *key, list(ids)])
            reseal(con, self.store.signer(), "alerts", where, [*key, list(ids)])
            if slot is not None:
                rows = con.execute(
                    f"SELECT {ALERT_COLUMNS} FROM alerts WHERE {where} ORDER BY id",
                    [*key, list(ids)],
                ).fetchall()
                write_keys.record_answer(con, slot, [list(r) for r in rows])

    def pull(self, where: Address | str) -> None:
        """The file's alerts are the alerts."""

    def erase(
        self, key: Key, facts: set[str], every: bool, blank: str, today: dt.date
    ) -> tuple[list[str], int]:
        """Nothing shared: the runtime blanks the file's alerts (runtime/api/erase.py)."""
        return [], 0

    def mirror(self, keys: Sequence[tuple[str, ...]], rows: list[tuple[Any, ...]]) -> None:
        """Replace the file's alerts of the subjects (or a tenant) by these rows (a copy of the
        shared ones, ALERT_COLUMNS then delivered_at, delivery_error)."""
        con = self.store.con
        if keys and len(keys[0]) == 1:
            where, params = "tenant = ?", [keys[0][0]]
        else:
            where, params = PICK_SUBJECTS, [picked(keys)]
        # The anchor's count and the rows it counts, as one writer.
        with self.store.write_lock, file_transaction(self.store):
            held = one(con.execute(f"SELECT count(*) FROM alerts WHERE {where}", params))[0]
            con.execute(f"DELETE FROM alerts WHERE {where}", params)
            if rows:
                con.executemany(
                    f"INSERT INTO alerts ({ALERT_COLUMNS}, delivered_at, delivery_error)"
                    f" VALUES ({', '.join(['?'] * 20)})",
                    [list(row) for row in rows],
                )
            reseal(con, self.store.signer(), "alerts", where, params)
            if held != len(rows):
                anchor_rows(con, self.store.signer())  # the copy's new count


class FileOutbox:
    """The outbox table of the workspace file (runtime/api/schema.py)."""

    def __init__(self, store: StoreFile):
        self.store = store

    def pending(self) -> int:
        row = self.store.con.execute(
            "SELECT count(*) FROM outbox WHERE status = 'pending'"
        ).fetchone()
        return int(row[0]) if row else 0

    def deliver_due(
        self,
        now: dt.datetime,
        send: Send,
        stopped: Callable[[], bool],
        pool: Executor,
        workers: int,
    ) -> dt.datetime | None:
        con = self.store.con
        rows = con.execute(
            "SELECT id, sink, payload, attempts FROM outbox"
            " WHERE status = 'pending' AND next_at <= ? ORDER BY id LIMIT 100",
            [now],
        ).fetchall()

        def one(row: tuple[Any, ...]) -> tuple[Any, Any]:
            return row[0], (None if stopped() else send(*row))

        # Sent on the pool's threads; the file is written from this one thread only.
        for row_id, result in pool.map(one, rows):
            if result is None:
                continue
            status, attempts, next_at, error = result
            con.execute(
                "UPDATE outbox SET status = ?, attempts = ?, next_at = ?, last_error = ?,"
                " delivered_at = CASE WHEN ? = 'delivered' THEN ? END WHERE id = ?",
                [status, attempts, next_at, error, status, next_at, row_id],
            )
        found = con.execute("SELECT min(next_at) FROM outbox WHERE status = 'pending'").fetchone()
        return found[0] if found else None

    def collect(self, tenant: str, cutoff: dt.datetime) -> int:
        return len(
            self.store.con.execute(
                "DELETE FROM outbox WHERE tenant = ? AND status IN ('delivered', 'dead')"
                " AND coalesce(delivered_at, next_at) < ? RETURNING id",
                [tenant, cutoff],
            ).fetchall()
        )

    def counts(self) -> dict[str, int]:
        rows = self.store.con.execute("SELECT status, count(*) FROM outbox GROUP BY status")
        return {status: int(n) for status, n in rows.fetchall()}

    def rows(self, tenant: str, status: str | None, limit: int) -> list[tuple[Any, ...]]:
        return self.store.con.execute(
            "SELECT id, alert_id, sink, status, attempts, next_at, last_error, created_at,"
            " delivered_at FROM outbox WHERE tenant = ? AND (? IS NULL OR status = ?)"
            " ORDER BY id DESC LIMIT ?",
            [tenant, status, status, limit],
        ).fetchall()

    def tenant_counts(self, tenant: str) -> dict[str, int]:
        found = self.store.con.execute(
            "SELECT status, count(*) FROM outbox WHERE tenant = ? GROUP BY status", [tenant]
        ).fetchall()
        return {status: int(n) for status, n in found}

    def requeue(self, tenant: str, ids: list[int], now: dt.datetime) -> int:
        with self.store.write_lock:
            return len(
                self.store.con.execute(
                    "UPDATE outbox SET status = 'pending', attempts = 0, next_at = ?"
                    " WHERE tenant = ? AND status <> 'delivered' AND (len(?::BIGINT[]) = 0"
                    " AND status = 'dead' OR list_contains(?::BIGINT[], id)) RETURNING id",
                    [now, tenant, ids, ids],
                ).fetchall()
            )

    def drop(self, tenant: str, ids: list[int]) -> int:
        with self.store.write_lock:
            return len(
                self.store.con.execute(
                    "DELETE FROM outbox WHERE tenant = ? AND list_contains(?::BIGINT[], id)"
                    " RETURNING id",
                    [tenant, ids],
                ).fetchall()
            )
