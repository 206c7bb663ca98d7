"""A legal erase while other threads use the same Memory: nothing they do fails or is lost.

An erase ends by rewriting the workspace file and swapping it in (fact_log/erase.py
`compact_file`), which closes every cursor. Before the store's gate (fact_log/rwlock.py),
threads reading at that moment failed with "Connection already closed", and a write another
thread committed while the file was being copied was silently left in the old file.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import pytest

from uac import Memory
from uac.fact_log.erase import compact_file

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

DAY = dt.datetime(2025, 1, 10, 9)


def test_threads_reading_and_writing_through_erases_neither_fail_nor_lose_writes(
    home: Path,
) -> None:
    with Memory(home, create=True) as mem:
        doomed = [mem.add_note("carol", f"carol's secret number {i}", now=DAY) for i in range(4)]
        mem.add_note("bob", "bob likes green tea", now=DAY)
        mem.compile("bob")
        stop = threading.Event()
        errors: list[BaseException] = []
        written: list[int] = []

        def works(n: int) -> None:
            done = 0
            try:
                # Bounded: until the erases end, and never more than 200 rounds.
                for i in range(200):
                    if stop.is_set() and i > 2:
                        break
                    mem.add_note("bob", f"note {n}-{i} about tea", now=DAY)
                    done += 1
                    mem.search("bob", "tea", k=5)
                    mem.compile("bob")
                    mem.query("bob", "1 + 1")
            except BaseException as exc:  # reported by the assertion below
                errors.append(exc)
            finally:
                written.append(done)

        threads = [threading.Thread(target=works, args=(n,)) for n in range(3)]
        for t in threads:
            t.start()
        try:
            for note in doomed:
                mem.erase("carol", [note.id], reason="request")
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=120)
        assert not any(t.is_alive() for t in threads)
        assert errors == []
        notes = [f for f in mem.facts("bob") if f.kind == "note"]
        assert len(notes) == 1 + sum(written)  # every write that returned is in the log
        assert mem.verify().ok


def test_the_file_swap_waits_for_a_transaction_in_flight_and_keeps_its_write(
    home: Path,
) -> None:
    with Memory(home, create=True, react=False) as mem:
        mem.add_note("bob", "bob likes green tea", now=DAY)
        con = mem.store.con
        con.execute("CREATE TABLE IF NOT EXISTS scratch (n INTEGER)")
        in_tx = threading.Event()
        commit = threading.Event()

        def writes() -> None:
            con.execute("BEGIN")
            con.execute("INSERT INTO scratch VALUES (1)")
            in_tx.set()
            commit.wait(timeout=30)
            con.execute("INSERT INTO scratch VALUES (2)")
            con.execute("COMMIT")

        writer = threading.Thread(target=writes)
        writer.start()
        assert in_tx.wait(timeout=30)
        swapped = threading.Event()
        swapper = threading.Thread(target=lambda: (compact_file(mem.store), swapped.set()))
        swapper.start()
        # The swap waits for the open transaction (without the gate it swapped at once,
        # and the transaction then failed on its closed cursor).
        assert not swapped.wait(timeout=0.5)
        commit.set()
        writer.join(timeout=30)
        assert swapped.wait(timeout=30)
        swapper.join(timeout=30)
        rows = mem.store.con.execute("SELECT n FROM scratch ORDER BY n").fetchall()
        assert rows == [(1,), (2,)]  # committed before the copy: in the new file


def test_statements_after_a_swap_run_on_a_fresh_cursor(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        mem.add_note("bob", "bob likes green tea", now=DAY)
        con = mem.store.con  # held across the swap, as a long-lived caller would
        before = con.execute("SELECT count(*) FROM facts").fetchone()
        seen: list[object] = []
        other = threading.Thread(target=lambda: seen.append(con.execute("SELECT 1").fetchone()))
        compact_file(mem.store)
        other.start()
        other.join(timeout=30)
        assert seen == [(1,)]
        assert con.execute("SELECT count(*) FROM facts").fetchone() == before


def test_a_swap_waits_for_a_long_scan(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        for i in range(5):
            mem.add_note("bob", f"note {i}", now=DAY)
        started, release = threading.Event(), threading.Event()
        got: list[int] = []
        order: list[str] = []

        def scans() -> None:
            with mem.store.con.stream("SELECT seq FROM facts ORDER BY seq", size=1) as rows:
                for row in rows:
                    started.set()
                    release.wait(timeout=30)
                    got.append(row[0])
            order.append("scan done")

        def swaps() -> None:
            compact_file(mem.store)
            order.append("swapped")

        scanner = threading.Thread(target=scans)
        scanner.start()
        assert started.wait(timeout=30)
        swapper = threading.Thread(target=swaps)
        swapper.start()
        swapper.join(timeout=0.3)
        assert swapper.is_alive()  # held out while the scan reads
        release.set()
        scanner.join(timeout=30)
        swapper.join(timeout=30)  # bounds for a stuck thread, not timings
        assert not swapper.is_alive() and order == ["scan done", "swapped"]
        assert len(got) == 5
