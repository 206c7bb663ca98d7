"""The store's gate (the readers-writer lock of fact_log/rwlock.py) under concurrent use: a close
while a check records, a compaction waiting beside a long scan, statements inside a stream,
after close, and several in one string.

Deadlock tests are bounded: threads are daemons joined with a timeout, and the assertion is
that they finished. A test that deadlocks leaves its daemon threads parked until the worker
process exits.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from uac import Memory
from uac.fact_log.backends.duckdb import OUTBOX_LOCK
from uac.fact_log.erase import compact_file
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.store import Store

pytestmark = pytest.mark.usefixtures("backend")

DAY = dt.datetime(2025, 1, 10, 9)


def _wait_for(cond, timeout: float = 60.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


def _waiting(cond: Any) -> int:
    """Threads waiting on a threading.Condition (its private deque: the stdlib offers no count)."""
    return len(cond._waiters)


def test_close_while_a_check_records_outbox_rows_and_a_sink_reads_the_first_id(home: Path) -> None:
    """Store.close takes the gate exclusively without the write lock. Meanwhile:
    X, a check's alert transaction (checks/alerts.py `_write`), holds the gate and calls
    insert_outbox, which takes OUTBOX_LOCK; Y, an OutboxSink's first record for this store
    (runtime/api/outbox.py -> record_outbox), holds OUTBOX_LOCK and runs
    `SELECT max(id) FROM outbox` as a fresh statement. With close() waiting, Y's statement
    is held back (a waiting swap holds new readers), X waits for Y, close waits for X.
    The two threads below run exactly those lock/statement steps in that order."""
    store = Store.open(home, create=True)
    con = store.con
    con.execute("SELECT 1").fetchall()
    x_in_txn, y_has_lock = threading.Event(), threading.Event()
    done: list[str] = []
    waited: list[bool] = []  # whether each of X and Y saw close() waiting before going on

    def closing() -> bool:  # close() waits on the gate for X's transaction to leave
        return _waiting(store.gate._cond) == 1

    def x() -> None:  # _write: BEGIN ... insert_outbox(...) (takes OUTBOX_LOCK) ... COMMIT
        con.execute("BEGIN")
        x_in_txn.set()
        y_has_lock.wait(60)
        waited.append(_wait_for(closing))
        with OUTBOX_LOCK:
            pass
        con.execute("ROLLBACK")
        done.append("x")

    def y() -> None:  # record_outbox from OutboxSink: OUTBOX_LOCK, then the first max(id)
        with OUTBOX_LOCK:
            y_has_lock.set()
            waited.append(_wait_for(closing))
            with contextlib.suppress(Exception):  # closed under it: fine, it did not hang
                con.execute("SELECT coalesce(max(id), 0) FROM outbox").fetchone()
        done.append("y")

    def closer() -> None:
        x_in_txn.wait(60)
        y_has_lock.wait(60)
        store.close()
        done.append("close")

    threads = [threading.Thread(target=f, daemon=True) for f in (x, y, closer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)  # a bound for a deadlock, not a timing
    assert sorted(done) == ["close", "x", "y"], f"deadlocked: only {done} finished"
    assert waited == [True, True], "close() was never seen waiting: the race was not set up"


def test_a_pending_compaction_does_not_stall_unrelated_reads_behind_a_long_scan(
    home: Path,
) -> None:
    """A long scan or transaction (verify's stream, a search sync embedding inside BEGIN)
    holds the gate; an erase's compaction then waits for it and, while waiting, holds back
    every new statement of every thread: a one-row read stalls for the whole scan."""
    with Memory(home, create=True) as mem:
        mem.add_note("bob", "bob likes green tea", now=DAY)
        store = mem.store
        scanning = threading.Event()
        released = threading.Event()
        order: list[str] = []

        def long_scan() -> None:  # e.g. verify_log over a big log
            with store.con.stream("SELECT seq FROM facts ORDER BY seq", size=1) as rows:
                scanning.set()
                for _ in rows:
                    released.wait(60)  # the scan holds the gate until the read was tried

        def compact() -> None:
            scanning.wait(60)
            compact_file(store)

        def one_row_read() -> None:
            store.con.execute("SELECT 1").fetchone()
            order.append("read")

        threads = [threading.Thread(target=f, daemon=True) for f in (long_scan, compact)]
        for t in threads:
            t.start()
        scanning.wait(60)
        # The compaction is pending: it waits on the gate for the scan to leave.
        assert _wait_for(lambda: _waiting(store.gate._cond) == 1)
        reader = threading.Thread(target=one_row_read, daemon=True)
        reader.start()
        # Ordering, not timing: the read must finish while the scan still holds the gate.
        # A read stalled behind the scan finishes only after the release (the join's bound
        # is for that stuck case; it never decides a pass).
        reader.join(120)
        order.append("scan released")
        released.set()
        for t in [*threads, reader]:
            t.join(30)
        assert order == ["read", "scan released"], "a one-row read waited for another thread's scan"
        assert not store.gate._swapping and all(not t.is_alive() for t in threads)  # compacted


def test_a_statement_inside_a_stream_does_not_silently_end_the_stream(home: Path) -> None:
    """GatedConnection.stream reads on the thread's own cursor, and the gate lets the same
    thread run statements inside it (reentrant). DuckDB then drops the stream's pending
    result without an error: the loop just ends early. verify_log's loop
    (fact_log/reads.py) reports `ok` after the rows it saw, so a statement added to that loop
    (or to tamper's `_first_mismatch`) would make verify pass on a prefix of the log."""
    with Memory(home, create=True, react=False) as mem:  # the stream is the subject, not a compile
        for i in range(30):
            mem.add_note("bob", f"bob note {i}", now=DAY)
        con = mem.store.con
        total = con.execute("SELECT count(*) FROM facts").fetchone()[0]
        seen = 0
        with con.stream("SELECT seq FROM facts ORDER BY seq", size=5) as rows:
            for _ in rows:
                seen += 1
                if seen == 3:
                    con.execute("SELECT 1").fetchone()
        assert seen == total


def test_a_statement_after_close_fails_with_the_workspace_error(home: Path) -> None:
    """Store.close's docstring: later statements 'fail with a clear error'. A thread that
    used the store before keeps its closed cursor in `_local`, so it gets DuckDB's
    'Connection already closed!' instead of WorkspaceError."""
    store = Store.open(home, create=True)
    store.con.execute("SELECT 1").fetchone()
    store.close()
    with pytest.raises(WorkspaceError):
        store.con.execute("SELECT 1")


def test_multi_statement_begin_commit_string_does_not_leak_the_gate(home: Path) -> None:
    """execute() follows a transaction by its BEGIN and its end: 'BEGIN; ...; COMMIT' in one
    string (or a BEGIN behind a comment) would open a hold no COMMIT call releases, and every
    later compaction or close would hang. Such a string is refused, nothing held."""
    store = Store.open(home, create=True)
    try:
        for sql in ("BEGIN; SELECT 1; COMMIT", "/* x */ BEGIN; SELECT 1; COMMIT"):
            with pytest.raises(ValueError, match="alone"):
                store.con.execute(sql)
            assert not store.gate.held()
        store.con.execute("-- a comment\nBEGIN")
        assert store.gate.held()  # a BEGIN behind a comment is still seen
        store.con.execute("COMMIT;  -- done")
        assert not store.gate.held()
    finally:
        store.close()
