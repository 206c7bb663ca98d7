"""`uac gc`: derived data is compacted, the log never is."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import counts

from uac import Memory
from uac.compiler.loader import current_version, subject_dir
from uac.fact_log.backends import pg_schema
from uac.fact_log.errors import InputError
from uac.runtime.api.outbox import OutboxSink
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

DAY = dt.datetime(2025, 1, 10, 9)


def _rows(mem: Memory, table: str) -> int:
    return mem.store.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_gc_drops_search_rows_of_retracted_notes_only(mem: Memory) -> None:
    gone = mem.add_note("alice", "the old gate code is by the fig tree", now=DAY)
    kept = mem.add_note("alice", "the fig jam recipe uses lemon", now=DAY)
    mem.forget("alice", gone.id, now=DAY)
    assert [h.id for h in mem.search("alice", "fig")] == [kept.id]
    docs = mem.search_index.stats()["docs"]
    log = counts(mem)
    out = mem.gc(now=DAY)
    assert out["search_docs"] == 1
    assert mem.search_index.stats()["docs"] == docs - 1
    assert [h.id for h in mem.search("alice", "fig")] == [kept.id]
    assert counts(mem) == log and mem.verify().ok  # never the log
    assert mem.gc(now=DAY)["search_docs"] == 0  # nothing left to drop


def test_gc_keeps_the_newest_checkpoints_and_the_current_one(mem: Memory) -> None:
    for word in ("short", "normal", "detailed", "short"):
        mem.set("alice", "preferences.verbosity", word, now=DAY)
        mem.compile("alice", keep=10)
    versions = subject_dir(mem.home, mem.address("alice")) / "versions"
    assert len(list(versions.iterdir())) == 4
    assert mem.gc(keep=2, now=DAY)["checkpoint_versions"] == 2
    assert sorted(p.name for p in versions.iterdir()) == ["v000003", "v000004"]
    assert current_version(mem.home, mem.address("alice")) == 4
    assert mem.query("alice", "user.preferences.verbosity")["result"] == "short"
    with pytest.raises(InputError, match="keep"):
        mem.gc(keep=0)


def _outbox(mem: Memory, sql: str, params: tuple = ()) -> list[tuple]:
    """Run sql on the outbox the workspace delivers from: its DuckDB table, or the shared
    one in PostgreSQL (uac_outbox) when the workspace is bound to a shared log."""
    if mem.store.backend.name != "postgres":
        con = mem.store.con
        return con.execute(
            sql.replace("uac_outbox", "outbox").replace("%s", "?"), params
        ).fetchall()
    with pg_schema.transaction(mem.store.backend.log) as cur:
        cur.execute(sql, params)
        return cur.fetchall() if cur.description else []


def test_gc_drops_old_delivered_outbox_rows_and_jobs(home: Path) -> None:
    with Memory(home, create=True, react=True) as mem:
        mem.sinks.append(OutboxSink(mem.store, ["hook"]))
        mem.set("maya", "identity.passport.expiry_date", "2025-02-01", now=DAY)
        mem.import_records(
            "maya", "trips", [{"city": "Oslo", "country": "NO", "depart": "2025-03-01"}], now=DAY
        )
        [(queued,)] = _outbox(mem, "SELECT count(*) FROM uac_outbox")
        assert queued >= 1
        mem.run_once(today=DAY.date())
        jobs = _rows(mem, "jobs")
        assert jobs == 1
        later = dt.datetime.now() + dt.timedelta(days=400)
        out = mem.gc(now=later)  # pending rows are never dropped, however old
        assert out["outbox"] == 0 and out["jobs"] == jobs and _rows(mem, "jobs") == 0
        _outbox(mem, "UPDATE uac_outbox SET status = 'delivered', delivered_at = %s", (DAY,))
        assert mem.gc(now=DAY + dt.timedelta(days=3))["outbox"] == 0  # younger than the cutoff
        assert mem.gc(now=later)["outbox"] == queued
        assert _outbox(mem, "SELECT count(*) FROM uac_outbox") == [(0,)]


def test_cli_gc(tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    home = str(tmp_path / "ws")
    assert main(["--home", home, "init"]) == 0
    assert main(["--home", home, "remember", "alice", "the fig tree is by the gate"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "gc", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    shared = {"shared_blobs"} if backend == "postgres" else set()  # PostgreSQL's artifacts
    assert set(out) == {"search_docs", "checkpoint_versions", "outbox", "jobs"} | shared
    assert main(["--home", home, "gc", "--keep", "0"]) == 1
    assert "keep" in capsys.readouterr().err


def test_gc_on_the_shared_outbox_never_takes_a_row_a_node_is_delivering(
    home: Path, backend: str
) -> None:
    # Two nodes deliver from the shared outbox while a third runs gc over and over: every
    # row is sent exactly once (a collected pending row would never be), and gc takes only
    # rows already delivered.
    if backend != "postgres":
        pytest.skip("the shared outbox lives in PostgreSQL")
    import threading
    import time

    from uac.fact_log.backends import pg_alerts

    with Memory(home, create=True, react=False) as mem:
        log = mem.store.backend.log
        rows = [("default", "user", "alice", f"a{i:03d}", 1, "log", "{}") for i in range(60)]
        with pg_schema.transaction(log) as cur:
            assert pg_alerts.record_outbox(cur, rows) == 60
        sent: list[int] = []
        later = dt.datetime(2100, 1, 1)

        def send(row_id: int, sink: str, payload: str, attempts: int):
            time.sleep(0.002)  # a delivery takes a moment: gc runs meanwhile
            sent.append(row_id)
            return "delivered", attempts + 1, later, None

        def deliver() -> None:
            while pg_alerts.outbox_send_one(log, later, send):
                pass

        collected: list[int] = []
        stop = threading.Event()

        def collect() -> None:
            while not stop.is_set():
                collected.append(pg_alerts.outbox_collect(log, "default", later))

        nodes = [threading.Thread(target=deliver) for _ in range(2)]
        gc = threading.Thread(target=collect)
        for t in [*nodes, gc]:
            t.start()
        for t in nodes:
            t.join(timeout=60)
        stop.set()
        gc.join(timeout=60)
        assert not any(t.is_alive() for t in [*nodes, gc])
        assert len(sent) == 60 and len(set(sent)) == 60  # each row once, none lost to gc
        collected.append(pg_alerts.outbox_collect(log, "default", later))
        assert sum(collected) == 60 and pg_alerts.counts(log) == {}
