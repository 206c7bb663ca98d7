"""Streaming import: a JSON Lines file read, validated and appended chunk by chunk."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest
from conftest import T0, counts, write

from uac import Memory
from uac.fact_log import importer, staging
from uac.fact_log.errors import InputError

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("file reading alone: no log")


def _trips(n: int, bad_at: int | None = None) -> str:
    lines = []
    for i in range(1, n + 1):
        rec = {"country": "FR", "city": f"C{i}", "depart": f"2024-01-{1 + i % 28:02d}"}
        rec["cost"] = "oops" if i == bad_at else f"{i}.50"
        lines.append(json.dumps(rec))
        if i % 7 == 0:
            lines.append("")  # blank lines stay with the record before them
    return "\n".join(lines) + "\n"


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "CHUNK_RECORDS", 10)


@pytest.mark.usefixtures("small_chunks")
def test_chunks_append_as_one_run_with_one_input_per_chunk(mem: Memory, tmp_path: Path) -> None:
    text = _trips(25)
    result = mem.import_file("alice", "trips", write(tmp_path / "t.jsonl", text), now=T0)
    assert result.facts == 25
    inputs = mem.inputs("alice")
    assert [i.name for i in inputs] == ["t.jsonl", "t.jsonl (part 2)", "t.jsonl (part 3)"]
    assert "".join(i.content for i in inputs) == text  # the file, archived whole, in parts
    assert result.input_id == inputs[0].id
    facts = mem.facts("alice")
    assert [f.evidence["where"] for f in facts][-1] == "line 28"  # 25 records + 3 blank lines
    assert {f.run_id for f in facts} == {facts[0].run_id}  # one write
    by_input = {i.id: i for i in inputs}
    for fact in facts:  # each fact points at the part that holds its line
        assert f'"city": "{fact.value["city"]}"' in by_input[fact.input_id].content
    assert _anchors(mem) == 1  # one commit
    assert mem.verify().ok
    mem.compile("alice")
    assert mem.query("alice", "len(user.trips)")["result"] == 25


def _anchors(mem: Memory) -> int:
    """Anchors recorded: in the file, or in the PostgreSQL log the workspace is bound to."""
    if mem.store.backend.name != "postgres":
        return mem.store.con.execute("SELECT count(*) FROM anchors").fetchone()[0]
    with mem.store.backend.log._tx() as cur:
        cur.execute("SELECT count(*) FROM anchors")
        return cur.fetchone()[0]


@pytest.mark.usefixtures("small_chunks")
def test_chunks_staged_in_slices_chain_exactly_as_whole_chunks(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_log
) -> None:
    # The store stages each chunk a slice at a time (memory): the log must not tell.
    src = write(tmp_path / "t.jsonl", _trips(25))
    with (
        fresh_log(tmp_path / "whole"),
        Memory(tmp_path / "whole", create=True, react=False) as whole,
    ):
        whole.import_file("alice", "trips", src, now=T0)
        expected = [(f.seq, f.id, f.input_id, f.hash) for f in whole.facts("alice")]
        inputs = [i.id for i in whole.inputs("alice")]
    monkeypatch.setattr(staging, "_STREAM_SLICE", 3)
    result = mem.import_file("alice", "trips", src, now=T0)
    assert [(f.seq, f.id, f.input_id, f.hash) for f in mem.facts("alice")] == expected
    assert [i.id for i in mem.inputs("alice")] == inputs and result.input_id == inputs[0]
    assert len({f.input_id for f in mem.facts("alice")}) == 3  # every part still named
    assert mem.verify().ok


def test_big_records_stream_without_exhausting_the_staged_write_memory(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A staged write holds DuckDB's memory low; a checkpoint that cannot fit a batch's rows
    # invalidates the database (FATAL). Scaled down: a 16MB floor, 1MB checkpoints, 2 MiB
    # chunks of half-MiB records (at full size: 8 MiB chunks of 1 MiB records, 64MB).
    monkeypatch.setattr(staging, "_STREAM_MEMORY_LIMIT", "16MB")
    monkeypatch.setattr(importer, "CHUNK_BYTES", 2 << 20)
    mem.store.con.execute("SET checkpoint_threshold = '1MB'")
    lines = [json.dumps({"n": i, "body": f"word{i} " * 75_000}) for i in range(12)]
    src = write(tmp_path / "big.jsonl", "\n".join(lines) + "\n")
    assert mem.import_file("alice", "blobs", src, now=T0).facts == 12
    assert len(mem.inputs("alice")) > 2 and mem.verify().ok


@pytest.mark.usefixtures("small_chunks")
def test_a_bad_record_in_the_last_chunk_leaves_nothing_written(mem: Memory, tmp_path: Path) -> None:
    mem.set("alice", "preferences.verbosity", "short", now=T0)
    before = counts(mem)
    bad = write(tmp_path / "t.jsonl", _trips(25, bad_at=24))
    with pytest.raises(InputError, match=r"t.jsonl: line 27: .*cost"):
        mem.import_file("alice", "trips", bad, now=T0)
    assert counts(mem) == before
    assert _stages(mem.store.con) == []  # the staged chunks were dropped
    # The chain head was re-read: the next write links to the last committed row.
    mem.import_file("alice", "trips", write(tmp_path / "ok.jsonl", _trips(12)), now=T0)
    assert mem.verify().ok and counts(mem)[0] == before[0] + 12


def test_an_inferred_schema_widens_across_chunks_and_is_recorded_once(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [json.dumps({"n": i, "tag": "x"}) for i in range(1, 21)]
    lines.append(json.dumps({"n": 2.5, "note": "late field"}))
    text = "\n".join(lines) + "\n"
    whole = mem.import_file("bob", "counts", write(tmp_path / "c.jsonl", text), now=T0)
    monkeypatch.setattr(importer, "CHUNK_RECORDS", 8)
    chunked = mem.import_file("carol", "counts", tmp_path / "c.jsonl", now=T0)
    assert chunked.schema == whole.schema == {"n": "decimal", "note": "str", "tag": "str"}
    rows = mem.store.con.execute("SELECT subject, version FROM schemas ORDER BY subject").fetchall()
    assert rows == [("bob", 1), ("carol", 1)]
    values = [[f.value for f in mem.facts(s)] for s in ("bob", "carol")]
    assert values[0] == values[1] and len(values[0]) == 21


@NO_LOG
def test_small_files_read_as_one_chunk_exactly_as_read_records(tmp_path: Path) -> None:
    src = write(tmp_path / "t.jsonl", _trips(9))
    (chunk,) = importer.read_chunks(src)
    text, records = importer.read_records(src)
    assert chunk.text == text and chunk.records == records


@NO_LOG
def test_an_over_long_line_is_measured_without_being_held(tmp_path: Path) -> None:
    src = tmp_path / "long.jsonl"
    with src.open("w") as fh:
        fh.write('{"a": 1}\n{"a": "' + "x" * (3 << 20) + '"}\n')
    with pytest.raises(InputError, match=r"long.jsonl:2: line is 3,145,737 bytes"):
        list(importer.read_chunks(src))


def _stages(con: duckdb.DuckDBPyConnection) -> list[str]:
    sql = "SELECT table_name FROM duckdb_tables() WHERE starts_with(table_name, '_stage_')"
    return [r[0] for r in con.execute(sql).fetchall()]


# The child imports with 10-record chunks and SIGKILLs itself as the fourth chunk is chained:
# three chunks are committed to staging by then, none of them to the log.
_KILLED_IMPORT = textwrap.dedent(
    """
    import os, signal, sys
    from uac import Memory
    from uac.fact_log import importer, store

    importer.CHUNK_RECORDS = 10
    chain, calls = store.Store._chain, []

    def chain_then_die(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            os.kill(os.getpid(), signal.SIGKILL)
        return chain(self, *args, **kwargs)

    store.Store._chain = chain_then_die
    with Memory(sys.argv[1], react=False) as mem:
        mem.import_file("alice", "trips", sys.argv[2])
    """
)


@pytest.mark.duckdb_only("DuckDB staging tables left by a killed import")
def test_a_killed_import_leaves_nothing_and_needs_no_hand_work(home: Path, tmp_path: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "preferences.verbosity", "short", now=T0)
        before = counts(mem)
    src = write(tmp_path / "t.jsonl", _trips(60))
    child = subprocess.run(
        [sys.executable, "-c", _KILLED_IMPORT, str(home), str(src)], capture_output=True
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    con = duckdb.connect(str(next(home.glob("*.duckdb"))), read_only=True)
    try:  # the kill came mid-way: staged chunks are on disk, the log does not have them
        staged = _stages(con)
        assert len(staged) == 3
        facts = next(t for t in staged if t.endswith("_facts"))
        assert con.execute(f"SELECT count(*) FROM {facts}").fetchone()[0] == 30
    finally:
        con.close()
    with Memory(home, react=False) as mem:  # the next open drops the staging
        assert _stages(mem.store.con) == []
        assert counts(mem) == before and mem.verify().ok
        result = mem.import_file("alice", "trips", src, now=T0)
        assert result.facts == 60 and counts(mem)[0] == before[0] + 60 and mem.verify().ok
