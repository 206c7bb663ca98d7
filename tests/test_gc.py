"""`uac gc`: derived data is compacted, the log never is."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import counts

from uac import Memory
from uac.compiler.loader import current_version, subject_dir
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


@pytest.mark.duckdb_only(
    "edits the DuckDB outbox and jobs tables directly (on PostgreSQL they are uac_outbox"
    " and uac_jobs; gc of those is not covered here yet)"
)
def test_gc_drops_old_delivered_outbox_rows_and_jobs(home: Path) -> None:
    with Memory(home, create=True, react=True) as mem:
        mem.sinks.append(OutboxSink(mem.store, ["hook"]))
        mem.set("maya", "identity.passport.expiry_date", "2025-02-01", now=DAY)
        mem.import_records(
            "maya", "trips", [{"city": "Oslo", "country": "NO", "depart": "2025-03-01"}], now=DAY
        )
        queued = _rows(mem, "outbox")
        assert queued >= 1
        mem.run_once(today=DAY.date())
        assert _rows(mem, "jobs") == 1
        con = mem.store.con
        con.execute("UPDATE outbox SET status = 'delivered', delivered_at = ?", [DAY])
        # Younger than the cutoff: kept; pending rows are never dropped.
        assert mem.gc(now=DAY + dt.timedelta(days=3))["outbox"] == 0
        out = mem.gc(now=dt.datetime.now() + dt.timedelta(days=40))
        assert out["outbox"] == queued and out["jobs"] == 1
        assert _rows(mem, "outbox") == 0 and _rows(mem, "jobs") == 0
        con.execute(
            "INSERT INTO outbox VALUES (99, 'a', 'default', 'hook', '{}', 'pending', 0, ?,"
            " NULL, ?, NULL)",
            [DAY, DAY],
        )
        assert mem.gc(now=DAY + dt.timedelta(days=400))["outbox"] == 0


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
