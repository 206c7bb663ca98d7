"""The append-only log: sequencing, transactions, retracts and the hash chain."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import duckdb
import pytest
from conftest import T0, counts

from uac import Memory
from uac.fact_log.addressing import parse_subject
from uac.fact_log.errors import InputError, NotFound
from uac.fact_log.store import Batch, NewFact, NewInput

ROOT = Path(__file__).resolve().parents[1]


def _trips(n: int, start: int = 0) -> list[dict]:
    base = dt.date(2020, 1, 1)
    return [
        {"city": f"City{i}", "country": "FR", "depart": (base + dt.timedelta(days=i)).isoformat()}
        for i in range(start, start + n)
    ]


@pytest.mark.usefixtures("backend")  # runs on DuckDB and on PostgreSQL
def test_seq_is_monotonic_and_survives_reopen(home: Path) -> None:
    with Memory(home, create=True) as mem:
        mem.import_records("alice", "trips", _trips(50), now=T0)
        mem.set("bob", "identity.name", "Bob", now=T0)
    with Memory(home) as mem:
        mem.set("alice", "identity.name", "Alice", now=T0)
        seqs = [f.seq for f in mem.store.facts(parse_subject("alice"))]
        seqs += [f.seq for f in mem.store.facts(parse_subject("bob"))]
        assert sorted(seqs) == list(range(1, 53))
        ids = [f.id for f in mem.facts("alice")]
        assert len(set(ids)) == len(ids) == 51
        assert mem.verify().ok


@pytest.mark.usefixtures("backend")  # runs on DuckDB and on PostgreSQL
def test_recorded_fields_and_provenance(mem: Memory) -> None:
    fact = mem.set(
        "alice",
        "identity.passport.expiry_date",
        "2027-03-01",
        session_id="s1",
        now=T0,
        valid_from=dt.date(2017, 3, 2),
    )
    assert fact.value == "2027-03-01"
    assert (fact.tenant, fact.scope, fact.subject) == ("default", "user", "alice")
    assert (fact.op, fact.kind, fact.source, fact.confidence) == (
        "assert",
        "attribute",
        "explicit_command",
        1.0,
    )
    assert fact.recorded_at == T0 and fact.valid_from == dt.datetime(2017, 3, 2)
    assert fact.session_id == "s1" and fact.actor == "api"
    # The command is the fact row itself (its path, value, session, time): no inputs row.
    assert fact.input_id is None and mem.inputs("alice") == []


@pytest.mark.usefixtures("backend")  # runs on DuckDB and on PostgreSQL
def test_timezone_aware_times_are_stored_as_utc(mem: Memory) -> None:
    paris = dt.timezone(dt.timedelta(hours=1))
    fact = mem.set("alice", "identity.name", "A", now=dt.datetime(2025, 1, 1, 13, 0, tzinfo=paris))
    assert fact.recorded_at == dt.datetime(2025, 1, 1, 12, 0)


def test_failed_batch_writes_nothing_and_the_next_one_continues(mem: Memory) -> None:
    mem.import_records("alice", "trips", _trips(3), now=T0)
    before = counts(mem)
    addr = parse_subject("alice")
    for size in (5, 80):  # both the row-by-row and the Arrow insert paths
        batch = Batch(addr, T0, "test", inputs=[NewInput("import", "x", "import")])
        batch.facts = [
            NewFact("assert", "record", "travel.trips", {"n": i}, input_index=0)
            for i in range(size)
        ]
        batch.facts[-1].path = None  # type: ignore[assignment]  # violates NOT NULL at insert time
        with pytest.raises(duckdb.ConstraintException):
            mem.store.append(batch)
        assert counts(mem) == before
    mem.import_records("alice", "trips", _trips(2, 10), now=T0)
    assert [f.seq for f in mem.facts("alice")] == [1, 2, 3, 4, 5]
    assert mem.verify().ok


@pytest.mark.usefixtures("backend")  # runs on DuckDB and on PostgreSQL
def test_bad_record_in_batch_writes_nothing(mem: Memory) -> None:
    records = [*_trips(10), {"country": "FR", "depart": "not a date"}]
    with pytest.raises(InputError, match=r"record 11: field 'depart'"):
        mem.import_records("alice", "trips", records, now=T0)
    assert counts(mem) == (0, 0, 0)


@pytest.mark.usefixtures("backend")  # runs on DuckDB and on PostgreSQL
def test_forget_appends_a_retract(mem: Memory) -> None:
    fact = mem.set("alice", "identity.name", "Alice", now=T0)
    retract = mem.forget("alice", fact.id, reason="wrong person", now=T0)
    assert retract.op == "retract" and retract.value == {"target": fact.id}
    assert retract.path == fact.path and retract.text == "wrong person"
    assert [f.op for f in mem.facts("alice")] == ["assert", "retract"]
    with pytest.raises(InputError, match="only asserts and feedback"):
        mem.forget("alice", retract.id)
    with pytest.raises(NotFound):
        mem.forget("alice", "f_doesnotexist")


def _tamper(home: Path, sql: str) -> None:
    con = duckdb.connect(str(home / "uac.duckdb"))
    con.execute(sql)
    con.close()


@pytest.mark.parametrize(
    ("sql", "seq", "problem"),
    [
        ("UPDATE facts SET value = '\"2099-01-01\"' WHERE seq = 3", 3, "content does not match"),
        ("UPDATE facts SET source = 'automatic_llm' WHERE seq = 2", 2, "content does not match"),
        ("UPDATE facts SET id = 'f_forged' WHERE seq = 4", 4, "id does not match"),
        ("DELETE FROM facts WHERE seq = 2", 3, "sequence jumps"),
        ("UPDATE facts SET hash = content_hash WHERE seq = 5", 5, "chain hash does not match"),
        (
            # A forger who recomputes the content hash still breaks the link hash.
            "UPDATE facts SET value = '\"x\"', content_hash = repeat('a', 64) WHERE seq = 1",
            1,
            "content does not match",
        ),
    ],
)
def test_verify_reports_first_broken_link(home: Path, sql: str, seq: int, problem: str) -> None:
    with Memory(home, create=True) as mem:
        for i in range(6):
            mem.set("alice", "identity.passport.expiry_date", f"202{i}-01-01", now=T0)
        assert mem.verify().ok
    _tamper(home, sql)
    with Memory(home, read_only=True) as mem:
        report = mem.verify()
    assert not report.ok
    assert report.broken_seq == seq
    assert problem in (report.problem or "")
    # Every row before the broken one was checked and verified (a deleted row is not there).
    assert report.checked == seq - 1 - ("DELETE" in sql)


def test_verify_detects_a_rewritten_and_rehashed_row(home: Path) -> None:
    """Recomputing one row's plain hashes fails its keyed digest (the forger has no key)."""
    with Memory(home, create=True) as mem:
        for i in range(3):
            mem.set("alice", "identity.name", f"n{i}", now=T0)
        row = mem.facts("alice")[0]
    from uac.fact_log.store import CONTENT_COLUMNS, content_hash, fact_id, link_hash

    content = [
        getattr(row, c if c not in ("value", "evidence") else c + "_json") for c in CONTENT_COLUMNS
    ]
    content[CONTENT_COLUMNS.index("value")] = '"forged"'
    chash = content_hash(content)
    link = link_hash(1, row.prev_hash, chash)
    _tamper(
        home,
        f"UPDATE facts SET value = '\"forged\"', content_hash = '{chash}', hash = '{link}', "
        f"id = '{fact_id(link)}' WHERE seq = 1",
    )
    with Memory(home, read_only=True) as mem:
        report = mem.verify()
    assert (report.ok, report.broken_seq) == (False, 1)
    assert "keyed digest does not match" in (report.problem or "")


def test_no_code_path_updates_or_deletes_facts() -> None:
    """Only the legal erase rewrites facts (blanking content, never deleting a row)."""
    pattern = re.compile(
        r"\b(UPDATE\s+facts|DELETE\s+FROM\s+facts|TRUNCATE\s+(TABLE\s+)?facts)\b", re.IGNORECASE
    )
    # The erase of each backend: the DuckDB file, and the shared log on PostgreSQL.
    erasers = (ROOT / "fact_log" / "erase.py", ROOT / "fact_log" / "backends" / "pg_erase.py")
    for path in erasers:
        found = re.findall(
            r"\b(?:UPDATE|DELETE\s+FROM|TRUNCATE)\s+(?:TABLE\s+)?facts\b", path.read_text()
        )
        assert found == ["UPDATE facts"], path  # one UPDATE, no DELETE
    offenders = [
        str(p.relative_to(ROOT))
        for folder in ("fact_log", "compiler", "checks", "runtime")
        for p in (ROOT / folder).rglob("*.py")
        if pattern.search(p.read_text()) and p not in erasers
    ]
    assert offenders == []


def test_a_second_store_on_the_same_workspace_in_one_process_is_refused(home: Path) -> None:
    from uac.fact_log.errors import WorkspaceError

    first = Memory(home, create=True)
    with pytest.raises(WorkspaceError, match="already open in this process"):
        Memory(home)
    first.set("x", "identity.name", "A", now=T0)
    first.close()
    with Memory(home) as again:  # closing releases the claim
        again.set("x", "identity.name", "B", now=T0)
        assert [f.seq for f in again.facts("x")] == [1, 2] and again.verify().ok
    dropped = Memory(home)
    del dropped  # garbage collection releases it too
    import gc

    gc.collect()
    Memory(home).close()


def test_a_dropped_store_collected_while_the_open_lock_is_held_does_not_deadlock(
    tmp_path: Path,
) -> None:
    """The garbage collector may run a dropped Store's finalizer on a thread inside the claim
    lock (any allocation there can start a collection): the release must not wait for
    itself. Run on a thread, so a regression shows as a thread still stuck, not a hung run."""
    import gc
    import threading

    from uac.fact_log import store

    dropped = store.Store.open(tmp_path / "ws", create=True)
    dropped.cycle = dropped  # type: ignore[attr-defined]  # only the collector frees it
    del dropped
    released = threading.Event()

    def collect_inside_the_lock() -> None:
        with store._OPEN_LOCK:
            gc.collect()  # runs the finalizer: _release -> _OPEN_LOCK on this same thread
        released.set()

    worker = threading.Thread(target=collect_inside_the_lock, daemon=True)
    worker.start()
    assert released.wait(120), "the finalizer waited for the lock its own thread held"
    store.Store.open(tmp_path / "ws").close()  # the claim was released
