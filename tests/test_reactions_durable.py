"""Reactions survive a crash: a write and its pending reaction commit together.

A real child process writes and is killed (SIGKILL) after the commit, before its reaction
runs; reopening the workspace (or starting the server on it) runs the missed reaction.
Also: a write returns the alerts it raised and cleared, writes to one subject coalesce,
and a Memory shared by many threads loses no write. Both log backends.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from uac import Memory
from uac.fact_log.backends import reactions
from uac.fact_log.store import Batch, NewFact
from uac.runtime.api.reactor import CRASH_BEFORE_REACTION

pytestmark = pytest.mark.usefixtures("backend")

NOW = dt.datetime(2026, 1, 10, 9)
TODAY = NOW.date()
EXPIRY = "identity.passport.expiry_date"

_WRITE = """
import datetime as dt, sys
from uac import Memory
with Memory(sys.argv[1], create=True) as mem:
    mem.set(sys.argv[2], "identity.passport.expiry_date", sys.argv[3],
            now=dt.datetime(2026, 1, 10, 9))
"""


# The statements a write runs on the embedded file: on PostgreSQL the log's are the
# database's (the file only takes its copy), so the count is the embedded log's alone.
_FILE_STATEMENTS = pytest.mark.duckdb_only(
    "counts the statements of a write on the embedded file; on PostgreSQL they go to the"
    " database (test_a_settled_write_reads_no_reaction_row_after_its_commit covers both)"
)


def _write(home: Path, *writes: tuple[str, str]) -> None:
    """(subject, expiry) writes that complete, reactions and all: set-up, in this process."""
    with Memory(home, create=True) as mem:
        for subject, expiry in writes:
            mem.set(subject, EXPIRY, expiry, now=NOW)


def _killed_write(home: Path, subject: str, expiry: str) -> int:
    """A write in a child process killed after its commit, before its reaction: its exit code."""
    env = {k: v for k, v in os.environ.items() if k not in ("UAC_URL", "UAC_API_KEY")}
    env[CRASH_BEFORE_REACTION] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _WRITE, str(home), subject, expiry],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode


def _expiry_alerts(mem: Memory, subject: str) -> list[str]:
    """The dates the subject's open document-expiry alerts name."""
    return sorted(
        a.message for a in mem.alerts(subject, today=TODAY) if a.check == "document_expiry"
    )


def test_a_write_killed_before_its_reaction_is_caught_up_when_the_workspace_reopens(
    tmp_path: Path,
) -> None:
    home = tmp_path / "ws"
    _write(home, ("maya", "2026-02-01"))
    with Memory(home, read_only=True) as mem:
        [before] = _expiry_alerts(mem, "maya")
        assert "2026-02-01" in before
    # The replacing date commits, then the process dies before its reaction.
    assert _killed_write(home, "maya", "2026-03-01") == -9
    with Memory(home, read_only=True) as mem:
        assert [f.value for f in mem.facts("maya", EXPIRY)][-1] == "2026-03-01"  # committed
        assert _expiry_alerts(mem, "maya") == [before]  # the missed reaction: still the old one
        assert reactions.pending(mem.store) == [mem.address("maya")]
    with Memory(home) as mem:  # a writable open drains the queue: no scheduled pass needed
        assert reactions.pending(mem.store) == []
        [after] = _expiry_alerts(mem, "maya")
        assert "2026-03-01" in after and "2026-02-01" not in after
        old = [a for a in mem.alerts("maya", include_resolved=True) if a.message == before]
        assert [a.status for a in old] == ["resolved"]


def test_many_subjects_killed_mid_write_all_catch_up(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    subjects = [f"u{n}" for n in range(4)]
    _write(home, *((s, "2026-02-01") for s in subjects))
    for s in subjects:
        assert _killed_write(home, s, "2026-03-01") == -9
    with Memory(home) as mem:
        assert reactions.pending(mem.store) == []  # missed reactions: 0
        for s in subjects:
            [alert] = _expiry_alerts(mem, s)
            assert "2026-03-01" in alert, s


def test_a_scheduled_pass_marks_the_reactions_it_caught_up_as_done(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    _write(home, ("maya", "2026-02-01"))
    assert _killed_write(home, "maya", "2026-03-01") == -9
    with Memory(home, react=False) as mem:  # react=False: opening does not drain the queue
        assert reactions.pending(mem.store) == [mem.address("maya")]
        job = mem.run_once(today=TODAY)
        assert job.errors == {}
        assert reactions.pending(mem.store) == []  # covered by the pass, not left for a drain
        [alert] = _expiry_alerts(mem, "maya")
        assert "2026-03-01" in alert


def test_a_write_returns_the_alerts_it_raised_and_cleared(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        first = mem.set("maya", EXPIRY, "2026-02-01", now=NOW)
        assert [a.check for a in first.alerts] == ["document_expiry"]
        assert first.alerts_resolved == [] and first.ticket is None
        second = mem.set("maya", EXPIRY, "2036-02-01", now=NOW)
        assert second.alerts == []
        assert [a.id for a in second.alerts_resolved] == [a.id for a in first.alerts]
        imported = mem.import_records("maya", "allergies", [{"substance": "penicillin"}], now=NOW)
        assert imported.alerts == [] and imported.alerts_resolved == []
        learned = mem.add("maya", "I started taking amoxicillin.", at=NOW, now=NOW)
        assert [a.check for a in learned.alerts] == ["drug_allergy"]


def test_writes_to_one_subject_coalesce_into_fewer_reactions(tmp_path: Path) -> None:
    writes, threads = 24, 6
    with Memory(tmp_path / "ws", create=True) as mem:
        mem.set("maya", "identity.name", "Maya", now=NOW)
        reactor = mem._reactor
        ran: list[int] = []
        check = reactor.check

        def counted(*args: object, **kw: object) -> object:
            ran.append(1)
            return check(*args, **kw)  # type: ignore[arg-type]

        reactor.check = counted  # type: ignore[method-assign]
        errors: list[BaseException] = []

        def write(n: int) -> None:
            try:
                for i in range(writes // threads):
                    mem.set("maya", "identity.name", f"M{n}-{i}", now=NOW)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        pool = [threading.Thread(target=write, args=(n,)) for n in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        assert errors == []
        assert 0 < len(ran) < writes  # coalesced: fewer reactions than writes
        wanted, done = reactions.wanted(mem.store, mem.address("maya"))
        assert wanted == writes + 1 and done == wanted  # every write covered
        latest = max(mem.facts("maya", "identity.name"), key=lambda f: f.seq)
        assert mem.checkpoint("maya").user.identity.name == latest.value
        assert not mem.stale("maya")


def test_a_memory_shared_by_many_threads_loses_no_write(tmp_path: Path) -> None:
    threads, each = 8, 5
    with Memory(tmp_path / "ws", create=True) as mem:
        errors: list[BaseException] = []

        def write(n: int) -> None:
            try:
                for i in range(each):
                    mem.set(f"u{n % 3}", "identity.name", f"n{n}-{i}", now=NOW)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        pool = [threading.Thread(target=write, args=(n,)) for n in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        assert errors == []
        assert sum(len(mem.facts(f"u{k}")) for k in range(3)) == threads * each
        assert reactions.pending(mem.store) == []
        for k in range(3):
            assert not mem.stale(f"u{k}")


def test_a_write_that_stops_waiting_answers_with_a_ticket_that_is_answered_later(
    tmp_path: Path,
) -> None:
    from uac.compiler.locks import subject_lock

    with Memory(tmp_path / "ws", create=True, reaction_wait=0.2) as mem:
        addr = mem.address("maya")
        with subject_lock(mem.home, addr):  # a reaction in progress elsewhere holds the subject
            written = mem.set("maya", EXPIRY, "2026-02-01", now=NOW)
            assert written.alerts is None and written.ticket == 1  # not waited for: a ticket
            assert mem.reaction("maya", 1).done is False
        for _ in range(600):  # the Reactor's thread runs it once the lock is free
            answer = mem.reaction("maya", 1)
            if answer.done:
                break
            threading.Event().wait(0.1)
        assert answer.done and answer.raised is not None
        assert [a.check for a in answer.raised] == ["document_expiry"]
        assert reactions.pending(mem.store) == []


def test_a_write_that_wants_no_reaction_is_covered_by_its_own_commit(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        addr = mem.address("maya")
        mem.set("maya", EXPIRY, "2026-03-01", now=NOW)  # counted and covered: (1, 1)
        assert reactions.wanted(mem.store, addr) == (1, 1)
        # The store alone, no reactor after it: the batch's flag decides.
        wants = Batch(
            addr, NOW, "test", facts=[NewFact("assert", "attribute", EXPIRY, "2026-04-01")]
        )
        mem.store.append(wants)
        assert reactions.wanted(mem.store, addr) == (2, 1)  # pending: a reaction is owed
        covered = Batch(
            addr, NOW, "test", facts=[NewFact("assert", "attribute", EXPIRY, "2026-05-01")]
        )
        covered.covered = True
        mem.store.append(covered)
        assert reactions.wanted(mem.store, addr) == (3, 3)  # covers the one before it too
        assert reactions.pending(mem.store) == []
        assert mem.verify().ok


@_FILE_STATEMENTS
def test_a_settled_write_runs_no_statement_after_its_commit(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory(home, create=True, react=False) as mem:
        addr = mem.address("maya")
        mem.set("maya", EXPIRY, "2026-03-01", now=NOW)
        con = mem.store.con
        run = con.execute
        said: list[str] = []

        def counting(sql: str, parameters: object = None) -> object:
            said.append(" ".join(sql.split()[:1]).upper())
            return run(sql, parameters)  # type: ignore[arg-type]

        with monkeypatch.context() as patched:
            patched.setattr(con, "execute", counting)
            written = mem.set("maya", EXPIRY, "2026-04-01", now=NOW)
        assert said[0] == "BEGIN" and said[-1] == "COMMIT", said  # nothing after the commit
        assert said.count("COMMIT") == 1
        assert reactions.wanted(mem.store, addr) == (2, 2)  # counted and covered, no pending
        assert reactions.pending(mem.store) == []
        # a write the store appends without settling is still covered by the reactor after it
        mem.store.append(
            Batch(addr, NOW, "test", facts=[NewFact("assert", "attribute", EXPIRY, "2026-05-01")])
        )
        assert reactions.wanted(mem.store, addr) == (3, 2)
        mem.forget("maya", written.id, now=NOW)  # settled too: covers the one before it
        assert reactions.wanted(mem.store, addr) == (4, 4)
        assert mem.verify().ok


def test_a_settled_write_reads_no_reaction_row_after_its_commit(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory(home, create=True, react=False) as mem:
        addr = mem.address("maya")
        mem.set("maya", EXPIRY, "2026-03-01", now=NOW)
        backend = mem.store.backend
        rows = backend.service_rows
        said: list[str] = []

        def counting(sql: str, params: object = ()) -> object:
            said.append(sql)
            return rows(sql, params)  # type: ignore[arg-type]

        with monkeypatch.context() as patched:
            patched.setattr(backend, "service_rows", counting)
            mem.set("maya", EXPIRY, "2026-04-01", now=NOW)
        assert [s for s in said if "reactions" in s] == []  # the commit counted and covered it
        assert reactions.wanted(mem.store, addr) == (2, 2)
        assert reactions.pending(mem.store) == []
        assert mem.verify().ok
