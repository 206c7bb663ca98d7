"""The fact log on both backends, and what only the PostgreSQL log does: per-subject chains.

Runs against a real PostgreSQL server (tests/pg_cluster.py, started once per session):
several workspaces ("nodes") bound to one database stand for several hosts.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import T0, new_database, own_database
from conftest import pg_node as _node
from pg_cluster import Cluster, find_bin
from psycopg import sql

from uac import Memory
from uac.fact_log import duck
from uac.fact_log.addressing import parse_subject
from uac.fact_log.backends import pg_log
from uac.fact_log.backends.pg_log import LogUnavailable, redact
from uac.fact_log.errors import InputError, WorkspaceError
from uac.fact_log.store import GENESIS, Batch, Fact, NewFact, NewInput, NewRejection
from uac.runtime.api.outbox import OutboxSink

ROOT = Path(__file__).resolve().parents[1]
ALICE = parse_subject("alice")


def _batch(subject: str, n: int, tag: str, schemas: dict | None = None) -> Batch:
    batch = Batch(parse_subject(subject), T0, "test", inputs=[NewInput("note", tag, "api")])
    batch.facts = [
        NewFact("assert", "record", "travel.trips", {"n": i, "tag": tag}, input_index=0)
        for i in range(n)
    ]
    batch.rejections = [NewRejection("secret", "identity.ssn", {"why": tag}, input_index=0)]
    batch.schemas = schemas or {}
    return batch


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("size", [3, 40])  # the row-by-row and the bulk insert paths
def test_a_batch_reads_back_the_same_on_every_backend(home: Path, size: int) -> None:
    fields = {"n": "int", "tag": "str"}
    with Memory(home, create=True, react=False) as mem:
        got = mem.store.append(_batch("alice", size, "a", {"travel.trips": fields}))
        mem.store.append(_batch("alice", 1, "b", {"travel.trips": fields}))  # same: no row
        mem.store.append(_batch("bob", 2, "c"))
    with Memory(home, react=False) as mem:
        facts = mem.store.facts(ALICE)
        assert facts[:size] == got and len(facts) == size + 1
        assert [f.value["tag"] for f in facts] == ["a"] * size + ["b"]
        assert [i.content for i in mem.store.inputs(ALICE)] == ["a", "b"]
        assert [r["reason"] for r in mem.store.rejections(ALICE)] == ["secret", "secret"]
        assert mem.store.inferred_schema(ALICE, "travel.trips") == (1, fields)
        assert mem.store.fact(ALICE, got[0].id) == got[0]
        subjects = {s.subject: (s.facts, s.inputs) for s in mem.store.subjects("default")}
        assert subjects == {"alice": (size + 1, 2), "bob": (2, 1)}
        seqs = [f.seq for f in facts]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        report = mem.verify()
        assert report.ok and report.checked == size + 3, report


@pytest.mark.usefixtures("backend")
def test_a_streamed_write_records_each_inferred_schema_once(home: Path) -> None:
    # Each batch of a stream (an import, chunk by chunk) carries the schema so far.
    narrow, wide = {"n": "int"}, {"n": "int", "tag": "str"}
    with Memory(home, create=True, react=False) as mem:
        batches = [_batch("alice", 2, t, {"things": s}) for t, s in (("a", narrow), ("b", wide))]
        assert mem.store.append_stream(iter(batches)) == 4
        assert mem.store.inferred_schema(ALICE, "things") == (1, wide)
        assert mem.verify().ok


@pytest.mark.usefixtures("backend")
def test_a_stream_of_two_subjects_is_refused_and_leaves_nothing(home: Path) -> None:
    # Subjects are locked as they first appear in a stream: one subject a stream, so two
    # streams can never take the same locks in different orders.
    with Memory(home, create=True, react=False) as mem:
        batches = [_batch("alice", 2, "a", {}), _batch("bob", 2, "b", {})]
        with pytest.raises(WorkspaceError, match="one subject"):
            mem.store.append_stream(iter(batches))
        assert mem.store.facts(ALICE) == [] and mem.store.inputs(ALICE) == []
        assert mem.store.append_stream(iter(batches[:1])) == 2  # the subject takes the next
        assert mem.verify().ok


@pytest.mark.usefixtures("backend")
def test_a_refused_stream_leaves_the_callers_batches_as_given(home: Path) -> None:
    # A caller may retry the same batches after an error: their schemas must still be there.
    schema = {"things": {"n": "int", "tag": "str"}}
    batch = _batch("alice", 2, "a", schema)

    def failing():
        yield batch
        raise RuntimeError("the source broke mid-stream")

    with Memory(home, create=True, react=False) as mem:
        with pytest.raises(RuntimeError, match="mid-stream"):
            mem.store.append_stream(failing())
        assert batch.schemas == schema and mem.store.facts(ALICE) == []
        assert mem.store.append_stream(iter([batch])) == 2
        assert mem.store.inferred_schema(ALICE, "things") == (1, schema["things"])
        assert mem.verify().ok


@pytest.mark.usefixtures("backend")
def test_a_stream_writes_each_batch_before_the_next_is_built(home: Path) -> None:
    # What keeps a big import's memory to one batch: no backend gathers the stream first.
    built: list[Batch] = []

    def batches():
        for tag in "abcd":
            assert all(b.input_ids for b in built), "a batch was built before the last was written"
            built.append(_batch("alice", 3, tag, {"things": {"n": "int", "tag": "str"}}))
            yield built[-1]

    with Memory(home, create=True, react=False) as mem:
        assert mem.store.append_stream(batches()) == 12
        assert [f.value["tag"] for f in mem.store.facts(ALICE)] == [*"aaabbbcccddd"]
        assert len({f.run_id for f in mem.store.facts(ALICE)}) == 1  # still one run
        assert mem.verify().ok


@pytest.mark.usefixtures("backend")
def test_a_failed_batch_leaves_nothing_on_either_backend(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        mem.store.append(_batch("alice", 2, "ok"))
        bad = _batch("alice", 3, "bad")
        bad.facts[-1].path = None  # type: ignore[assignment]  # NOT NULL violated at insert
        with pytest.raises(Exception, match=r"(?i)null"):
            mem.store.append(bad)
        mem.store.append(_batch("alice", 1, "after"))
        assert [f.value["tag"] for f in mem.store.facts(ALICE)] == ["ok", "ok", "after"]
        assert len(mem.store.inputs(ALICE)) == 2
        assert mem.verify().ok


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize(
    "where",
    ["value", "nested key", "statement", "record key", "input", "rejection path"],
)
def test_a_nul_character_is_refused_whole_on_every_backend(home: Path, where: str) -> None:
    # One policy at the write boundary: PostgreSQL text cannot hold U+0000, so no backend
    # stores it; the write is refused whole and a literal backslash-u0000 text is not NUL.
    with Memory(home, create=True, react=False) as mem:
        literal = _batch("alice", 2, "\\u0000 is six characters")
        literal.facts[0].text = "C:\\u0000"
        mem.store.append(literal)
        bad = _batch("alice", 3, "bad")
        fact = bad.facts[1]
        if where == "value":
            fact.value = {"n": 1, "tag": "a\x00b"}
        elif where == "nested key":
            fact.value = {"n": 1, "tags": [{"x\x00": 1}]}
        elif where == "statement":
            fact.text = "nul \x00 here"
        elif where == "record key":
            fact.record_key = "k\x00"
        elif where == "input":
            bad.inputs[0].content = "\x00"
        else:
            bad.rejections[0].path = "identity.\x00"
        with pytest.raises(InputError, match=r"NUL character \(U\+0000\).*nothing was written"):
            mem.store.append(bad)
        facts = mem.store.facts(ALICE)
        assert [f.value["tag"] for f in facts] == ["\\u0000 is six characters"] * 2
        assert facts[0].text == "C:\\u0000"
        assert len(mem.store.inputs(ALICE)) == 1 and len(mem.store.rejections(ALICE)) == 1
        assert mem.verify().ok


# -- PostgreSQL only ---------------------------------------------------------------------------


pytestmark = pytest.mark.usefixtures("shared_key")  # one chain key for all nodes (conftest)


def _chain(url: str, subject: str) -> list[tuple[int, str, str]]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT seq, prev_hash, hash FROM facts WHERE subject = %s ORDER BY seq", [subject]
        ).fetchall()


def _assert_linear(rows: list[tuple[int, str, str]]) -> None:
    prev = GENESIS
    for _seq, prev_hash, link in rows:
        assert prev_hash == prev
        prev = link


def test_two_nodes_appending_to_one_subject_keep_its_chain_linear(
    tmp_path: Path, pg_url: str
) -> None:
    a, b = _node(tmp_path, "a", pg_url), _node(tmp_path, "b", pg_url)
    errors: list[BaseException] = []

    def work(mem: Memory, n: int) -> None:
        try:
            for i in range(24):
                mem.store.append(_batch("alice" if i % 2 else "bob", 2, f"{n}-{i}"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(m, n)) for n in range(4) for m in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for subject in ("alice", "bob"):
        rows = _chain(pg_url, subject)
        assert len(rows) == 8 * 12 * 2  # 8 writers x 12 writes per subject x 2 facts
        _assert_linear(rows)
    # Each node's local copy catches up with the other's writes on its next read.
    for mem in (a, b):
        assert len(mem.store.facts(ALICE)) == 192 and len(mem.store.inputs(ALICE)) == 96
        report = mem.verify()
        assert report.ok and report.checked == 384, report
    a.close()
    b.close()


def test_a_write_on_one_node_is_read_on_another(tmp_path: Path, pg_url: str) -> None:
    with _node(tmp_path, "a", pg_url) as a, _node(tmp_path, "b", pg_url) as b:
        written = a.set("alice", "identity.name", "Alice", now=T0)
        # The fact the write appended (a write answers with it and its reaction's alerts).
        fact = Fact(*[getattr(written, f.name) for f in dataclasses.fields(Fact)])
        assert b.facts("alice") == [fact]
        assert [s.subject for s in b.store.subjects("default")] == ["alice"]
        a.set("alice", "identity.name", "Alicia", now=T0)
        assert [f.value for f in b.facts("alice")] == ["Alice", "Alicia"]


def test_a_read_only_open_of_a_node_seen_bound_opens_its_file_once(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bound node's file is opened writable even read-only (it keeps its copy current): once
    this process has seen it bound, at once rather than after a read-only look; a file
    replaced since by an unbound workspace is still opened read-only, as asked."""
    home = tmp_path / "a"
    _node(tmp_path, "a", pg_url).close()
    opened: list[bool] = []
    real = duck.duckdb.connect

    def counted(*args: Any, **kwargs: Any) -> Any:
        opened.append(kwargs["read_only"])
        return real(*args, **kwargs)

    monkeypatch.setattr(duck.duckdb, "connect", counted)
    with Memory(home, read_only=True) as mem:
        assert mem.store.read_only and mem.store.backend.name == "postgres"
    assert opened == [False]
    shutil.rmtree(home)
    monkeypatch.delenv("UAC_DB", raising=False)
    Memory(home, create=True, react=False).close()
    opened.clear()
    with Memory(home, read_only=True) as mem:
        assert mem.store.backend.name == "duckdb"
        with pytest.raises(duck.duckdb.Error, match="read-only"):
            mem.store.con.execute("CREATE TABLE written (x INT)")
    assert opened == [False, True]


def test_a_node_bound_to_one_log_refuses_another_and_names_both_without_secrets(
    tmp_path: Path, pg_server: Cluster
) -> None:
    first, second = new_database(pg_server), new_database(pg_server)
    _node(tmp_path, "a", first).close()
    secret = second.replace("postgres@", "postgres:hunter2@")  # a password is never echoed
    assert "hunter2" in secret
    with pytest.raises(
        WorkspaceError, match=r"is bound to the log at .*, not .*new workspace"
    ) as refused:
        Memory(tmp_path / "a", log_db=secret)
    assert "hunter2" not in str(refused.value) and redact(first) in str(refused.value)
    with _node(tmp_path, "a", first) as again:  # the refusal left the binding as it was
        assert again.facts("alice") == []


def test_a_node_copies_a_long_history_in_windows_of_whole_writes(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _node(tmp_path, "a", pg_url) as a:
        for tag in "abcde":  # five writes of three facts
            a.store.append(_batch("alice", 3, tag))
        log = a.store.backend.log
        windows = [(end, len(rows["facts"])) for end, rows, _ in log.pull(ALICE, 0, budget=7)]
        assert windows == [(2, 6), (4, 6), (5, 3)]  # a window never splits a write
        assert [(end, len(rows["facts"])) for end, rows, _ in log.pull(ALICE, 0, 2)] == [
            (w, 3)
            for w in range(1, 6)  # a write bigger than the budget is a window alone
        ]
        assert list(log.pull(ALICE, 5)) == [(5, {}, 0)]
        assert list(log.pull(parse_subject("nobody"), 0)) == []
    monkeypatch.setattr(pg_log, "PULL_ROWS", 4)
    with _node(tmp_path, "b", pg_url) as b:  # a new node catches up window by window
        assert [f.value["tag"] for f in b.facts("alice")] == [*"aaabbbcccdddeee"]
        assert b.verify().ok


def test_threads_catching_up_in_windows_copy_each_row_once(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _node(tmp_path, "a", pg_url) as a:
        for tag in "abcdefgh":  # eight writes of three facts
            a.store.append(_batch("alice", 3, tag))
    monkeypatch.setattr(pg_log, "PULL_ROWS", 4)  # a window a write: many chances to race
    with _node(tmp_path, "b", pg_url) as b:
        start = threading.Barrier(8)
        seen: list[int] = []

        def read() -> None:
            start.wait()
            seen.append(len(b.facts("alice")))

        threads = [threading.Thread(target=read) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert seen == [24] * 8
        copied = b.store.con.execute("SELECT count(*) FROM facts WHERE subject = 'alice'")
        assert copied.fetchone() == (24,)  # no window copied twice
        assert b.verify().ok


def test_an_import_killed_mid_stream_leaves_nothing_in_the_shared_log(
    tmp_path: Path, pg_url: str
) -> None:
    script = textwrap.dedent(
        """
        import datetime as dt, sys, time
        from uac import Memory
        from uac.fact_log.addressing import parse_subject
        from uac.fact_log.store import Batch, NewFact, NewInput

        def batches():
            for i in range(10):
                b = Batch(parse_subject("dora"), dt.datetime(2026, 1, 1), "test",
                          inputs=[NewInput("note", f"part {i}", "api")])
                b.facts = [NewFact("assert", "record", "travel.trips", {"n": i}, input_index=0)]
                yield b
                if i == 2:  # three batches sent to the server, the transaction still open
                    print("sent", flush=True)
                    time.sleep(60)

        with Memory(sys.argv[1], create=True, react=False, log_db=sys.argv[2]) as mem:
            mem.store.append_stream(batches())
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "k"), pg_url],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "sent"
    finally:
        proc.kill()
        proc.wait(timeout=30)
    with _node(tmp_path, "a", pg_url) as a:  # waits for the server to drop the dead write
        assert a.facts("dora") == [] and _chain(pg_url, "dora") == []
        a.store.append(_batch("dora", 2, "after"))
        assert [f.value["tag"] for f in a.facts("dora")] == ["after", "after"]
        _assert_linear(_chain(pg_url, "dora"))
        assert a.verify().ok


def _in_postgres(url: str, needle: str) -> list[str]:
    """Every PostgreSQL table (each row as text, byte columns as bytes) holding the needle."""
    found = []
    with psycopg.connect(url) as conn:
        cols = conn.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema()"
        ).fetchall()
        assert {"facts", "inputs", "uac_alerts", "uac_outbox", "uac_blobs"} <= {c[0] for c in cols}
        for table, col, kind in cols:
            cell = sql.Identifier(col)
            test = (
                sql.SQL("position(convert_to(%s, 'UTF8') IN {}) > 0").format(cell)
                if kind == "bytea"
                else sql.SQL("position(%s IN {}::text) > 0").format(cell)
            )
            query = sql.SQL("SELECT count(*) FROM {} WHERE ").format(sql.Identifier(table)) + test
            if conn.execute(query, [needle]).fetchone()[0]:
                found.append(f"{table}.{col}")
    return found


def _in_pg_files(server: Cluster, url: str, needle: str) -> list[str]:
    """This database's data files (after a checkpoint) holding the bytes; the WAL aside."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        (oid,) = conn.execute(
            "SELECT oid FROM pg_database WHERE datname = current_database()"
        ).fetchone()
    return _on_disk(server.data / "base" / str(oid), needle)


def _on_disk(home: Path, needle: str) -> list[str]:
    """Files under a node's workspace (its DuckDB file and blob cache too) holding the bytes."""
    return [str(p) for p in home.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


@pytest.mark.parametrize("where", ["database", "directory"])  # where checkpoints are shared
def test_a_legal_erase_on_a_shared_log_leaves_no_trace_in_postgres_or_on_any_node(
    tmp_path: Path, pg_server: Cluster, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pg_url = own_database(pg_server)  # VACUUM's horizon is per database (conftest)
    secret = "Zebraplum Quixotic Harbourmaster"
    shared = tmp_path / "shared"
    if where == "directory":  # UAC_ARTIFACTS: a directory every node mounts
        monkeypatch.setenv("UAC_ARTIFACTS", str(shared))
    else:
        monkeypatch.delenv("UAC_ARTIFACTS", raising=False)
    a, b = _node(tmp_path, "a", pg_url), _node(tmp_path, "b", pg_url)
    note = a.add_note("alice", f"the locker code word is {secret}", now=T0)
    kept = a.add_note("alice", "I like jasmine tea in the morning", now=T0)
    a.set("alice", "preferences.verbosity", "short", now=T0)
    a.compile("alice")  # published: its files are blobs in PostgreSQL
    assert b.search("alice", "Zebraplum") and b.query("alice", "str(user)")  # B copies, indexes
    b.compile("alice")
    for mem in (a, b):
        mem.store.con.execute("CHECKPOINT")
    before = _in_postgres(pg_url, secret)
    assert {"facts.text", "inputs.content"} <= set(before), before
    assert ("uac_blobs.data" in before) == (where == "database")
    assert bool(_on_disk(shared, secret)) == (where == "directory")
    assert _on_disk(a.home, secret) and _on_disk(b.home, secret)
    assert _in_pg_files(pg_server, pg_url, secret)  # the tables' files on the server's disk

    report = a.erase("alice", [note.id], reason="user asked (art. 17)")
    assert report["verified"] and [f["id"] for f in report["facts"]] == [note.id]
    assert report["where"]["facts"] == 1 and report["where"]["inputs"] == 1
    assert report["where"]["shared_blobs_removed"] >= 1
    assert _in_postgres(pg_url, secret) == [] and _on_disk(shared, secret) == []
    assert _in_pg_files(pg_server, pg_url, secret) == []  # old row versions vacuumed
    assert report["where"]["shared_tables_vacuumed"] >= 7
    assert _on_disk(a.home, secret) == []
    # B applies the erasure at its next read of the subject: its copy, index and checkpoints.
    assert [f.op for f in b.facts("alice")] == ["erased", "assert", "assert"]
    assert all("Zebraplum" not in (h.text or "") for h in b.search("alice", "Zebraplum"))
    assert secret not in json.dumps(b.query("alice", "str(user)"), default=str)
    b.store.con.execute("CHECKPOINT")
    assert _on_disk(b.home, secret) == []
    assert [r["id"] for r in b.erasures("alice")] == [report["id"]]
    assert b.erasures("alice")[0]["where"]["facts"] == 1  # completed there too, not pending
    with psycopg.connect(pg_url) as conn:
        (stored,) = conn.execute("SELECT report FROM uac_erasures").fetchone()
    assert json.loads(stored)["id"] == report["id"] and "status" not in json.loads(stored)
    # What was not erased is still there, and the shared chain verifies from either node.
    assert [h.id for h in b.search("alice", "jasmine tea")][:1] == [kept.id]
    assert b.query("alice", "user.preferences.verbosity")["result"] == "short"
    assert a.verify().ok and b.verify().ok
    a.close()
    b.close()


def test_a_node_that_was_down_applies_an_erasure_when_it_opens(tmp_path: Path, pg_url: str) -> None:
    secret = "Zebraplum Quixotic Harbourmaster"
    with _node(tmp_path, "a", pg_url) as a:
        note = a.add_note("alice", f"the locker code word is {secret}", now=T0)
        with _node(tmp_path, "b", pg_url) as b:
            assert b.search("alice", "Zebraplum")  # B's file holds the note and its index
        assert _on_disk(tmp_path / "b", secret)
        a.erase("alice", [note.id], reason="user asked")
    with _node(tmp_path, "b", pg_url) as b:  # no read of alice: the open alone applies it
        b.store.con.execute("CHECKPOINT")
        assert _on_disk(b.home, secret) == []
        assert [r["where"]["facts"] for r in b.erasures("alice")] == [1]


def test_erasing_all_of_a_subject_scrubs_its_shared_alerts_and_outbox(
    tmp_path: Path, pg_url: str
) -> None:
    trip = {"city": "Bangkok", "country": "TH", "depart": "2025-03-01", "return_date": "2025-03-10"}
    day = dt.datetime(2025, 1, 10, 9)
    a, b = _node(tmp_path, "a", pg_url), _node(tmp_path, "b", pg_url)
    a.set("maya", "identity.passport.issuing_country", "GB", now=day)
    a.set("maya", "identity.passport.expiry_date", "2025-06-01", now=day)
    a.import_records("maya", "trips", [trip], now=day)
    a.compile("maya")
    a.check("maya", today=day.date(), sinks=[OutboxSink(a.store, ["hook"])])
    (alert,) = b.alerts("maya")  # B's copy of the shared alert
    before = _in_postgres(pg_url, "Bangkok")
    assert {"facts.value", "uac_alerts.message", "uac_outbox.payload"} <= set(before), before

    report = a.erase("maya", all=True, reason="account closed")
    assert report["alerts"] == [alert.id] and report["where"]["outbox"] == 1
    assert _in_postgres(pg_url, "Bangkok") == []
    (gone,) = b.alerts("maya", include_resolved=True)
    assert gone.message == "(erased)" and gone.status == "resolved"
    assert {f.op for f in b.facts("maya")} == {"erased"}
    b.store.con.execute("CHECKPOINT")
    assert _on_disk(a.home, "Bangkok") == [] and _on_disk(b.home, "Bangkok") == []
    assert a.verify().ok
    a.close()
    b.close()


def test_verify_of_a_shared_log_still_catches_an_erased_row_edited_later(
    tmp_path: Path, pg_url: str
) -> None:
    with _node(tmp_path, "a", pg_url) as mem:
        note = mem.add_note("alice", "the locker code word is Zebraplum", now=T0)
        mem.erase("alice", [note.id], reason="user asked")
        assert mem.verify().ok
    with psycopg.connect(pg_url) as conn:
        conn.execute("UPDATE facts SET text = 'forged' WHERE id = %s", [note.id])
    with _node(tmp_path, "a", pg_url) as mem:
        report = mem.verify()
        assert not report.ok and "content does not match" in (report.problem or ""), report


def test_processes_on_two_nodes_lose_no_write(tmp_path: Path, pg_url: str) -> None:
    script = textwrap.dedent(
        """
        import datetime as dt, sys
        from uac import Memory
        home, url, tag = sys.argv[1:]
        with Memory(home, create=True, react=False, log_db=url) as mem:
            for i in range(60):
                mem.set("carol", "identity.name", f"{tag}{i}", now=dt.datetime(2026, 1, 1))
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(tmp_path / tag), pg_url, tag])
        for tag in ("p", "q")
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    rows = _chain(pg_url, "carol")
    assert len(rows) == 120  # lost writes: 0
    _assert_linear(rows)
    with _node(tmp_path, "r", pg_url) as mem:
        names = {f.value for f in mem.facts("carol")}
        assert names == {f"{t}{i}" for t in "pq" for i in range(60)}
        assert mem.verify().ok


def test_a_locked_subject_never_blocks_another(tmp_path: Path, pg_url: str) -> None:
    with _node(tmp_path, "a", pg_url) as mem:
        mem.set("alice", "identity.name", "A", now=T0)
        holder = psycopg.connect(pg_url)
        holder.execute("SELECT * FROM chain_heads WHERE subject = 'alice' FOR UPDATE")
        done = threading.Event()

        def write_alice() -> None:
            mem.set("alice", "identity.name", "B", now=T0)
            done.set()

        blocked = threading.Thread(target=write_alice)
        blocked.start()
        # The other subject commits while alice's head is locked...
        mem.store.append(_batch("bob", 1, "free"))
        assert [f.value["tag"] for f in mem.store.facts(parse_subject("bob"))] == ["free"]
        # ... and the write to alice waits on the row lock of its head, not on anything else.
        with psycopg.connect(pg_url, autocommit=True) as watch:
            waiting = 0
            for _ in range(1200):  # until the writer is seen waiting on a lock (not a timing)
                waiting = watch.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    " AND datname = current_database()"
                ).fetchone()[0]
                if waiting:
                    break
                threading.Event().wait(0.05)
        assert waiting == 1 and not done.is_set()
        holder.rollback()
        holder.close()
        blocked.join(timeout=60)
        assert done.is_set()
        assert [f.value for f in mem.facts("alice")] == ["A", "B"]


@pytest.mark.parametrize(
    ("sql", "finding"),
    [
        ("UPDATE facts SET value = '\"x\"' WHERE seq = 2", "content does not match"),
        ("DELETE FROM facts WHERE seq = 3", "chain holds 2"),
        (
            "DELETE FROM facts WHERE seq = 3; UPDATE chain_heads SET facts = 2,"
            " seq = 2, hash = (SELECT hash FROM facts WHERE seq = 2)",
            "chain head of default/user:alice does not match",
        ),
        ("UPDATE inputs SET content = 'edited'", "inputs: row"),
        ("UPDATE rejections SET reason = 'none'", "rejections: row"),
        ("ALTER TABLE rejections DROP COLUMN mac", "rejections"),
        ("DROP TABLE schemas", "schemas"),
        ("INSERT INTO facts SELECT * FROM facts WHERE seq = 1 LIMIT 0", None),
    ],
)
def test_verify_finds_edits_to_the_shared_log(
    tmp_path: Path, pg_url: str, sql: str, finding: str | None
) -> None:
    with _node(tmp_path, "a", pg_url) as mem:
        mem.store.append(_batch("alice", 3, "x"))
        with psycopg.connect(pg_url) as conn:
            conn.execute(sql)  # type: ignore[arg-type]
        report = mem.verify()
        if finding is None:
            assert report.ok, report  # a no-op statement: nothing to find
        else:
            assert not report.ok
            found = " | ".join(filter(None, [report.problem, *report.problems]))
            assert finding in found, found


@pytest.mark.parametrize(
    ("sql", "finding"),
    [
        ("UPDATE facts SET text = 'edited' WHERE seq = (SELECT max(seq) FROM facts)", "changed"),
        ("DELETE FROM facts WHERE seq = (SELECT max(seq) FROM facts)", "rows removed or added"),
        ("UPDATE inputs SET content = 'edited'", "inputs: row"),
        ("ALTER TABLE rejections DROP COLUMN mac", "rejections: it is sealed, but its keyed"),
        ("DROP TABLE schemas", "schemas: it is sealed, but the table is gone"),
        ("UPDATE facts SET text = text WHERE seq < 0", None),
    ],
)
def test_verify_finds_edits_to_a_nodes_local_copy(
    tmp_path: Path, pg_url: str, sql: str, finding: str | None
) -> None:
    # Queries on a node read its DuckDB copy of the shared log: an edit there shows in
    # `verify` although the shared log itself is intact.
    with _node(tmp_path, "a", pg_url) as mem:
        mem.store.append(_batch("alice", 3, "x"))
        mem.store.append(_batch("bob", 2, "y"))
        assert mem.verify().ok
        mem.store.con.execute(sql)
        report = mem.verify()
        if finding is None:
            assert report.ok, report  # a no-op statement: nothing to find
        else:
            assert not report.ok and report.problem is None, report  # the shared log is intact
            found = " | ".join(report.problems)
            assert "this node's copy" in found and finding in found, found
    with _node(tmp_path, "b", pg_url) as other:  # another node's copy is its own
        other.store.backend.sync(ALICE)  # type: ignore[union-attr]
        assert other.verify().ok


def test_verify_while_another_thread_writes_finds_nothing_wrong(
    tmp_path: Path, pg_url: str
) -> None:
    # The copy grows while verify reads it: each subject's rows and write count are read
    # together, so a write landing mid-verify is never reported as rows added to the copy.
    with _node(tmp_path, "a", pg_url) as mem:
        mem.store.append(_batch("alice", 2, "x"))
        done = threading.Event()

        def writer() -> None:
            for i in range(40):
                mem.store.append(_batch("alice" if i % 2 else "bob", 2, f"w{i}"))
            done.set()

        thread = threading.Thread(target=writer)
        thread.start()
        reports = []
        while not done.is_set():
            reports.append(mem.verify())
        thread.join()
        reports.append(mem.verify())
        assert len(reports) > 1 and all(r.ok for r in reports), [r for r in reports if not r.ok]


def test_an_exported_anchor_catches_a_truncated_subject(tmp_path: Path, pg_url: str) -> None:
    with _node(tmp_path, "a", pg_url) as mem:
        mem.store.append(_batch("alice", 3, "x"))
        (anchor,) = mem.anchors()
        assert (anchor["subject"], anchor["facts"]) == ("alice", 3)
        assert mem.verify(anchor=anchor).ok
        with psycopg.connect(pg_url) as conn:  # an attacker without the key: facts and
            conn.execute("DELETE FROM facts WHERE seq = %s", [anchor["seq"]])  # anchors gone
            conn.execute("DELETE FROM anchors")
        found = mem.verify(anchor=anchor).problems
        assert any("is gone (truncated)" in p for p in found), found


def test_a_node_with_another_key_is_refused(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _node(tmp_path, "a", pg_url).close()
    monkeypatch.delenv("UAC_CHAIN_KEY_FILE")  # b makes its own key in its workspace
    with pytest.raises(WorkspaceError, match="not the key that signs the PostgreSQL log"):
        _node(tmp_path, "b", pg_url)
    assert not (tmp_path / "b").exists()


def test_binding_errors_are_one_clear_sentence(tmp_path: Path, pg_url: str) -> None:
    with pytest.raises(WorkspaceError, match="not a postgresql:// URL"):
        Memory(tmp_path / "x", create=True, log_db="sqlite:///nope")
    assert not (tmp_path / "x").exists()  # nothing half-written
    with Memory(tmp_path / "local", create=True, react=False) as mem:
        mem.set("alice", "identity.name", "A", now=T0)
    with pytest.raises(WorkspaceError, match="keeps its log in its DuckDB file"):
        Memory(tmp_path / "local", log_db=pg_url)
    with pytest.raises(WorkspaceError, match="cannot reach the PostgreSQL log"):
        Memory(tmp_path / "y", create=True, log_db="postgresql://postgres@127.0.0.1:1/none")


@pytest.mark.skipif(find_bin() is None, reason="needs a PostgreSQL 16+ binary")
def test_a_restarted_server_gives_a_retryable_error_and_loses_nothing_acknowledged(
    tmp_path: Path,
) -> None:
    cluster = Cluster.start(find_bin(), durable=True)  # type: ignore[arg-type]
    try:
        with _node(tmp_path, "a", cluster.url) as mem:
            acked = [mem.set("alice", "identity.name", f"n{i}", now=T0).id for i in range(5)]
            cluster.restart()
            outcomes = []
            # Each pooled connection open at the restart fails once, with a retryable error,
            # and is replaced; later writes succeed.
            for i in range(5, 12):
                try:
                    acked.append(mem.set("alice", "identity.name", f"n{i}", now=T0).id)
                    outcomes.append("ok")
                except LogUnavailable as exc:
                    assert "retry" in str(exc)
                    outcomes.append("retry")
            assert set(outcomes) <= {"ok", "retry"} and outcomes[-3:] == ["ok"] * 3
            assert [f.id for f in mem.facts("alice")] == acked
            assert mem.verify().ok
    finally:
        cluster.stop()


@pytest.mark.parametrize(("ci", "outcome"), [("true", "1 error"), ("", "1 skipped")])
def test_without_a_binary_ci_fails_and_a_local_run_skips(ci: str, outcome: str) -> None:
    env = {**os.environ, "CI": ci, "UAC_PG_BIN": "/nonexistent"}
    test = "tests/test_log_backends.py::test_a_write_on_one_node_is_read_on_another"
    out = subprocess.run(
        # -n 0: one process (the addopts' -n auto would start a worker per core for one test)
        [sys.executable, "-m", "pytest", test, "-n", "0", "-rs", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert outcome in out.stdout, out.stdout
    assert (out.returncode == 0) == (ci != "true")
    assert "PostgreSQL 16+ not found: pip install" in out.stdout


def test_uac_init_db_binds_workspaces_that_share_one_log(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from uac.runtime.cli import main

    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    assert main(["--home", a, "init", "--db", pg_url]) == 0
    assert (
        "its fact log is the PostgreSQL database postgresql://127.0.0.1:" in capsys.readouterr().out
    )
    assert main(["--home", a, "set", "alice", "identity.name", "Alice"]) == 0
    assert main(["--home", b, "init", "--db", pg_url]) == 0
    capsys.readouterr()
    # b no longer needs the URL: the binding is recorded in the workspace.
    assert main(["--home", b, "facts", "alice"]) == 0
    assert "Alice" in capsys.readouterr().out
    assert main(["--home", b, "verify"]) == 0
