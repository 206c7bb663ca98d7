"""Alerts and their outbox rows: one transaction on DuckDB, exactly once on PostgreSQL.

On PostgreSQL several workspaces ("nodes") bound to one database stand for several hosts
(tests/pg_cluster.py); they evaluate one subject at the same instant.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import psycopg
import pytest
from conftest import pg_node as _node

from uac import Memory
from uac.checks.alerts import record_outbox
from uac.runtime.api.outbox import Deliverer, OutboxSink

DAY = dt.datetime(2025, 1, 10, 9)


pytestmark = pytest.mark.usefixtures("shared_key")  # one chain key for all nodes (conftest)


def _expiring(mem: Memory, subject: str = "maya", date: str = "2025-02-01") -> None:
    mem.set(subject, "identity.passport.expiry_date", date, now=DAY)


def _outbox_rows(mem: Memory) -> list[tuple[str, str]]:
    return mem.store.con.execute("SELECT alert_id, sink FROM outbox ORDER BY id").fetchall()


def test_duckdb_an_alert_and_its_outbox_row_commit_together(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True, react=False) as mem:
        _expiring(mem)
        mem.compile("maya")
        sink = OutboxSink(mem.store, ["hook"])
        # The outbox insert fails (its table is gone): the alert must not be stored either.
        mem.store.con.execute("ALTER TABLE outbox RENAME TO outbox_away")
        with pytest.raises(Exception, match="outbox"):
            mem.check("maya", today=DAY.date(), sinks=[sink])
        assert mem.alerts("maya") == []
        mem.store.con.execute("ALTER TABLE outbox_away RENAME TO outbox")
        result = mem.check("maya", today=DAY.date(), sinks=[sink])
        (alert,) = result.new
        assert _outbox_rows(mem) == [(alert.id, "hook")]
        assert mem.check("maya", today=DAY.date(), sinks=[sink]).new == []
        assert len(_outbox_rows(mem)) == 1
        assert mem.verify().ok  # the rows written in one transaction are sealed


def _shared(url: str, sql: str) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchall()  # type: ignore[arg-type]


def test_two_nodes_evaluating_one_subject_at_once_record_one_alert(
    tmp_path: Path, pg_url: str
) -> None:
    nodes = [_node(tmp_path, name, pg_url) for name in ("a", "b", "c", "d")]
    try:
        _expiring(nodes[0])
        for mem in nodes:
            mem.compile("maya")  # each node's own checkpoint of the subject
        start = threading.Barrier(len(nodes))
        new: list[int] = []
        errors: list[BaseException] = []

        def evaluate(mem: Memory) -> None:
            try:
                start.wait()
                result = mem.check("maya", today=DAY.date(), sinks=[OutboxSink(mem.store, ["h"])])
                new.append(len(result.new))
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=evaluate, args=(m,)) for m in nodes]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert sorted(new) == [0, 0, 0, 1]  # one node raised it; the others found it raised
        (alert,) = _shared(pg_url, "SELECT id, status, occurrence FROM uac_alerts")
        outbox = _shared(pg_url, "SELECT alert_id, occurrence, sink, status FROM uac_outbox")
        assert outbox == [(alert[0], 1, "h", "pending")]
        # Every node lists the shared row, including one that never evaluated the subject.
        with _node(tmp_path, "e", pg_url) as late:
            assert [a.id for a in late.alerts("maya")] == [alert[0]]
            late.acknowledge("maya", alert[0], today=DAY.date())
        assert nodes[1].alerts("maya")[0].status == "acknowledged"
        # Resolved, then back: a second occurrence, delivered once more (and only once).
        a, b = nodes[0], nodes[1]
        _expiring(a, date="2035-01-01")
        for mem in (a, b):
            mem.compile("maya")
            mem.check("maya", today=DAY.date(), sinks=[OutboxSink(mem.store, ["h"])])
        assert a.alerts("maya") == []
        _expiring(a)
        for mem in (a, b):
            mem.compile("maya")
            mem.check("maya", today=DAY.date(), sinks=[OutboxSink(mem.store, ["h"])])
        outbox = _shared(pg_url, "SELECT alert_id, occurrence FROM uac_outbox ORDER BY id")
        assert outbox == [(alert[0], 1), (alert[0], 2)]
        assert all(m.verify().ok for m in nodes)
    finally:
        for mem in nodes:
            mem.close()


def test_the_shared_outbox_is_delivered_once_by_two_nodes(tmp_path: Path, pg_url: str) -> None:
    with _node(tmp_path, "a", pg_url) as a, _node(tmp_path, "b", pg_url) as b:
        for n in range(6):
            _expiring(a, f"user{n}")
            a.compile(f"user{n}")
            a.check(f"user{n}", today=DAY.date(), sinks=[OutboxSink(a.store, ["hook"])])
        sent: list[str] = []
        lock = threading.Lock()

        def hook(alerts: list) -> None:
            with lock:
                sent.extend(x.id for x in alerts)

        deliverers = [Deliverer(m.store, {"hook": hook}) for m in (a, b)]
        threads = [threading.Thread(target=d.run_due) for d in deliverers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(sent) == 6 and len(set(sent)) == 6
        assert deliverers[0].pending() == deliverers[1].pending() == 0
        assert _shared(pg_url, "SELECT DISTINCT status FROM uac_outbox") == [("delivered",)]


def test_duckdb_two_open_transactions_take_different_outbox_ids(tmp_path: Path) -> None:
    # Two evaluations in two threads (each its own cursor) both inside their transaction.
    with Memory(tmp_path / "ws", create=True, react=False) as mem:
        _expiring(mem)
        mem.compile("maya")
        (alert,) = mem.check("maya", today=DAY.date()).new
        both_open = threading.Barrier(2)
        first_done = threading.Event()
        errors: list[BaseException] = []

        def record(n: int) -> None:
            con = mem.store.con
            try:
                con.execute("BEGIN")
                record_outbox(mem.store, [(alert, 1, f"hook{n}", "{}")])
                both_open.wait()
                if n == 1:
                    first_done.wait(30)
                con.execute("COMMIT")
            except BaseException as exc:
                con.execute("ROLLBACK")
                errors.append(exc)
            finally:
                if n == 0:
                    first_done.set()

        threads = [threading.Thread(target=record, args=(n,)) for n in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        rows = mem.store.con.execute("SELECT id, sink FROM outbox ORDER BY sink").fetchall()
        assert [r[1] for r in rows] == ["hook0", "hook1"] and rows[0][0] != rows[1][0]
