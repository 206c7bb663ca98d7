"""A query answers from every saved write: it compiles a subject not compiled yet or stale.

`Memory.query` (without a version) compiles first when the log holds facts the subject's
checkpoint lacks, waiting for a reaction in progress (it holds the subject's lock) rather
than raising `NotFound` or answering from an older state. A subject with nothing written
still says so in one sentence.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path

import pytest

from uac import Memory
from uac.compiler.locks import subject_lock
from uac.fact_log.errors import NotFound

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

TODAY = dt.date(2026, 11, 29)
NOW = dt.datetime(2026, 11, 29, 9, 0)


def test_a_subject_never_compiled_is_compiled_by_its_first_query(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:  # no reaction: nothing is compiled
        mem.set("alice", "identity.name", "Alice Liddell", now=NOW)
        with pytest.raises(NotFound):
            mem.checkpoint("alice")
        envelope = mem.query("alice", "user.identity.name", today=TODAY)
        assert envelope["ok"] and envelope["result"] == "Alice Liddell"
        assert envelope["checkpoint"] == "v000001"


def test_a_stale_subject_is_compiled_before_it_is_queried(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice Liddell", now=NOW)
        mem.compile("alice")
        mem.set("alice", "identity.name", "Alice Hargreaves", now=NOW + dt.timedelta(days=1))
        assert mem.stale("alice")
        envelope = mem.query("alice", "user.identity.name", today=TODAY)
        assert envelope["result"] == "Alice Hargreaves"
        assert envelope["checkpoint"] == "v000002"
        assert not mem.stale("alice")
        # Up to date: the next query compiles nothing.
        assert mem.query("alice", "user.identity.name", today=TODAY)["checkpoint"] == "v000002"
        # A version named is that version, as it was.
        old = mem.query("alice", "user.identity.name", today=TODAY, version=1)
        assert old["result"] == "Alice Liddell"


def test_a_query_waits_for_the_reaction_in_progress_and_sees_its_write(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice Liddell", now=NOW)
        answers: list[dict] = []
        order: list[str] = []
        # A reaction in progress holds the subject's lock (Memory._react); here the test holds
        # it while the query runs, then releases it.
        lock = subject_lock(mem.home, mem.address("alice"))
        with lock:
            asker = threading.Thread(
                target=lambda: answers.append(mem.query("alice", "user.identity.name", today=TODAY))
            )
            asker.start()
            asker.join(timeout=2)
            order.append("released" if not answers else "answered while the lock was held")
        asker.join(timeout=120)
        assert not asker.is_alive()
        assert order == ["released"]
        assert answers[0]["ok"] and answers[0]["result"] == "Alice Liddell"


def test_concurrent_writes_and_queries_of_new_subjects_never_find_them_missing(
    home: Path,
) -> None:
    with Memory(home, create=True) as mem:  # writes react (compile) as they land
        errors: list[str] = []
        wrong: list[str] = []

        def write(i: int) -> None:
            mem.set(f"u{i}", "identity.name", f"User {i}", now=NOW)

        def ask(i: int) -> None:
            # As soon as the write is committed, while its reaction (compile) is running.
            deadline = time.monotonic() + 120
            while not mem.facts(f"u{i}") and time.monotonic() < deadline:
                time.sleep(0.005)
            try:
                envelope = mem.query(f"u{i}", "user.identity.name", today=TODAY)
            except Exception as exc:
                errors.append(f"u{i}: {type(exc).__name__}: {exc}")
                return
            if envelope.get("result") != f"User {i}":
                wrong.append(f"u{i}: {envelope}")

        threads = [threading.Thread(target=f, args=(i,)) for i in range(6) for f in (write, ask)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=180)
        assert errors == [] and wrong == []


def test_a_subject_with_nothing_written_still_says_so(home: Path) -> None:
    with (
        Memory(home, create=True) as mem,
        pytest.raises(NotFound, match="nobody has nothing to compile yet"),
    ):
        mem.query("nobody", "user", today=TODAY)
