"""Many threads on one Memory, and processes killed mid-write or mid-publish.

Counts lost writes (every acknowledged write must be in the log), checks that the hash chain
stays linear, that reactions of one subject are coalesced, and that a crash between a
checkpoint's directory rename and its database row never wedges the subject.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from uac import Memory
from uac.compiler.loader import subject_dir
from uac.fact_log.addressing import parse_subject

DAY = dt.datetime(2026, 3, 1, 9, 0)


def _hammer(mem: Memory, threads: int, writes: int, subjects: int) -> tuple[list[str], list]:
    errors: list[str] = []
    acked: list = []
    lock = threading.Lock()

    def work(n: int) -> None:
        for i in range(writes):
            try:
                fact = mem.set(
                    f"u{(n + i) % subjects}",
                    "identity.name",
                    f"Name {n}-{i}",
                    now=DAY + dt.timedelta(seconds=n * writes + i),
                )
                with lock:
                    acked.append(fact.id)
            except Exception as exc:  # every error is a failure of the test
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")

    pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return errors, acked


def test_ten_threads_times_a_hundred_writes_lose_nothing(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        errors, acked = _hammer(mem, threads=10, writes=100, subjects=7)
        assert errors == []
        stored = mem.store.con.execute("SELECT id FROM facts").fetchall()
        assert len(acked) == 1000
        assert {r[0] for r in stored} == set(acked)  # no lost, no extra write
        report = mem.verify()
        assert report.ok, report
        seqs = [
            r[0] for r in mem.store.con.execute("SELECT seq FROM facts ORDER BY seq").fetchall()
        ]
        assert seqs == list(range(1, 1001))


def test_concurrent_writers_share_commits(home: Path) -> None:
    # Group commit: with many writers the number of transactions is below the writes.
    with Memory(home, create=True, react=False) as mem:
        commits = 0
        backend = mem.store.backend  # the DuckDB log's group commit (backends/duckdb.py)
        real = backend._transaction  # type: ignore[attr-defined]

        def counting(batches, items):
            nonlocal commits
            commits += 1
            time.sleep(0.002)  # widen the window in which other writers queue up
            return real(batches, items)

        backend._transaction = counting  # type: ignore[attr-defined]
        errors, acked = _hammer(mem, threads=8, writes=25, subjects=3)
        assert errors == [] and len(acked) == 200
        assert commits < 200
        assert mem.verify().ok


def test_reacting_writes_from_threads_coalesce_and_all_land(home: Path) -> None:
    with Memory(home, create=True) as mem:
        errors, acked = _hammer(mem, threads=6, writes=10, subjects=2)
        assert errors == []
        assert len(acked) == 60
        compiles = mem.store.con.execute(
            "SELECT count(*) FROM checkpoints WHERE status = 'published'"
        ).fetchone()[0]
        assert compiles < 60  # ten writes during a compile cause one more, not ten
        for subject in ("u0", "u1"):
            assert not mem.stale(subject)  # the last reaction covered the last write
            latest = max(mem.facts(subject), key=lambda f: f.recorded_at)  # recency wins
            assert mem.checkpoint(subject).user.identity.name == latest.value
        assert mem.verify().ok


def test_orphaned_version_directory_does_not_wedge_the_subject(home: Path) -> None:
    # As if the process died after renaming the new version into place but before its row.
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice A", now=DAY)
        (res,) = mem.compile("alice")
        base = subject_dir(home, parse_subject("alice"))
        orphan = base / "versions" / f"v{res.version + 1:06d}"
        shutil.copytree(res.directory, orphan)
        (base / "current").write_text(orphan.name + "\n")  # and even moved `current`
        mem.set("alice", "identity.name", "Alice B", now=DAY)
        (again,) = mem.compile("alice")
        assert again.status == "published"
        assert again.version == res.version + 2
        assert mem.checkpoint("alice").user.identity.name == "Alice B"


_WRITER = textwrap.dedent(
    """
    import datetime as dt, sys
    from uac import Memory
    home = sys.argv[1]
    with Memory(home) as mem:
        i = 0
        while True:
            i += 1
            mem.set("u%d" % (i % 3), "identity.name", "Name %d" % i,
                    now=dt.datetime(2026, 3, 1) + dt.timedelta(seconds=i))
            if i == 1:  # one write acknowledged, however slow the machine: now kill at will
                print("ready", flush=True)
    """
)


def test_killed_mid_write_and_mid_compile_recovers_by_itself(home: Path) -> None:
    Memory(home, create=True).close()
    for round_ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(home)],
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(0.4 + 0.3 * round_)  # writes and reactions (compiles) are in flight
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    with Memory(home) as mem:  # no hand work: open, verify, write, compile
        assert mem.verify().ok
        written = len(mem.store.con.execute("SELECT id FROM facts").fetchall())
        assert written > 0
        for n in range(3):
            mem.set(f"u{n}", "identity.name", "After crash", now=DAY)
            assert mem.checkpoint(f"u{n}").user.identity.name == "After crash"
        assert mem.verify().ok


def test_searches_from_threads_never_share_the_writer_s_cursor(home: Path) -> None:
    # The search index used to keep the cursor of the thread that built it and use it from
    # every thread that searched: a search's BEGIN landed inside that thread's transactions
    # (an append's, a compile's read), failing both and losing acknowledged inputs.
    with Memory(home, create=True, react=False) as mem:
        mem.add("u0", "I prefer aisle seats on long flights", now=DAY)
        mem.search("u0", "aisle seat")  # this (the writing) thread builds the index
        errors: list[str] = []
        acked: list[str] = []
        done = threading.Event()

        def searcher() -> None:
            if mem.search_index.con is not mem.store.con:
                errors.append("the search index uses another thread's cursor")
            while not done.is_set():
                try:
                    mem.search("u0", "window seat on a train")
                except Exception as exc:  # every error is a failure of the test
                    errors.append(f"search: {type(exc).__name__}: {exc}")

        pool = [threading.Thread(target=searcher) for _ in range(3)]
        for t in pool:
            t.start()
        try:
            for i in range(150):
                try:
                    learned = mem.add(
                        "u0", f"Note {i}: a window seat on the train to Leeds", now=DAY
                    )
                    acked.append(learned.input_id)
                except Exception as exc:
                    errors.append(f"add: {type(exc).__name__}: {exc}")
        finally:
            done.set()
            for t in pool:
                t.join()
        assert errors == []
        assert set(acked) <= {i.id for i in mem.inputs("u0")}
        assert mem.verify().ok


def test_threads_importing_checkpoints_of_different_subjects_never_collide(home: Path) -> None:
    # Importing a subject's new version drops its earlier one from sys.modules; that scan ran
    # while other threads imported theirs ("dictionary changed size during iteration"), and a
    # package still being executed by one thread could be handed half-built to another.
    from uac.compiler.loader import import_package

    with Memory(home, create=True, react=False) as mem:
        for year in (2030, 2031):  # two versions of each subject: one compile of all a year
            for n in range(4):
                mem.set(f"u{n}", "identity.passport.expiry_date", f"{year}-01-0{n + 1}", now=DAY)
            assert {r.status for r in mem.compile(all=True)} == {"published"}
        dirs: list[list[Path]] = []
        for n in range(4):
            versions = subject_dir(home, parse_subject(f"u{n}", "default")) / "versions"
            dirs.append(sorted(p for p in versions.iterdir() if p.is_dir()))
        errors: list[str] = []

        def churn(mine: list[Path]) -> None:
            for i in range(60):  # alternate versions: every import drops the other one
                try:
                    package = import_package(mine[i % 2], verify=False)
                    assert package.state.user.passport.expiry_date.year in (2030, 2031)
                except Exception as exc:  # every error is a failure of the test
                    errors.append(f"{type(exc).__name__}: {exc}")

        pool = [threading.Thread(target=churn, args=(d,)) for d in dirs * 2]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        assert errors == []


def test_coalescing_state_is_bounded_and_eviction_loses_no_reaction(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uac.runtime.api.reactor as reactor_module

    monkeypatch.setattr(reactor_module, "RESULTS_KEPT", 2)
    with Memory(home, create=True) as mem:
        errors, acked = _hammer(mem, threads=4, writes=6, subjects=5)
        assert errors == [] and len(acked) == 24
        assert len(mem._reactor._results) <= 2
        for n in range(5):
            subject = f"u{n}"
            assert not mem.stale(subject)  # every write was reacted to despite evictions
            latest = max(mem.facts(subject), key=lambda f: f.recorded_at)
            assert mem.checkpoint(subject).user.identity.name == latest.value
