"""The store's gate (fact_log/rwlock.py): what it costs a statement, and what it buys an erase.

Run from the repository root with the project's virtualenv:

    python bench/gate.py               # 5 rounds; medians
    python bench/gate.py --rounds 3 --statements 5000

Each round uses a fresh temporary workspace holding 2,000 facts. Measured in the same round,
interleaved so a load drift hits both sides alike:

* per statement: a point query (`SELECT ... WHERE seq = ?` + fetchone) and a 200-row read
  (fetchall), through the store's gated connection against the same statement on the
  thread's raw DuckDB cursor (the baseline: what every statement did before the gate);
  microseconds per statement, one thread and 4 threads at once (statements per second).
* erase under load: 3 threads each looping add_note + search + compile on one user while
  the main thread erases another user's notes one by one; errors seen by the threads
  (before the gate: "Connection already closed") and writes lost (stored notes minus
  returned ones), with the erase's wall time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import tempfile
import threading
import time
from pathlib import Path

import benchpath  # noqa: F401  (takes bench/ off sys.path)

from uac import Memory

DAY = dt.datetime(2025, 1, 10, 9)
POINT = "SELECT id, path FROM facts WHERE seq = ?"
RANGE = "SELECT id, path, value FROM facts WHERE seq BETWEEN ? AND ?"


def _per_statement(run, n: int) -> float:
    t0 = time.perf_counter()
    for i in range(n):
        run(i)
    return (time.perf_counter() - t0) / n * 1e6


def _threaded(make_run, n: int, threads: int) -> float:
    """Statements per second with `threads` threads each running n statements."""
    barrier = threading.Barrier(threads + 1)

    def work() -> None:
        run = make_run()
        barrier.wait()
        for i in range(n):
            run(i)

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in pool:
        t.join()
    return threads * n / (time.perf_counter() - t0)


def _round(statements: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp), create=True, react=False) as mem:
        records = [{"date": "2025-01-01", "amount": i, "merchant": f"m{i}"} for i in range(2000)]
        mem.import_records("alice", "finance.transactions", records, now=DAY)
        store = mem.store
        top = store.con.execute("SELECT max(seq) FROM facts").fetchone()[0]

        def gated_point(i: int) -> None:
            store.con.execute(POINT, [1 + i % top]).fetchone()

        def gated_range(i: int) -> None:
            lo = 1 + i % max(1, top - 200)
            store.con.execute(RANGE, [lo, lo + 199]).fetchall()

        def raw_point(i: int) -> None:
            store._thread_cursor().execute(POINT, [1 + i % top]).fetchone()

        def raw_range(i: int) -> None:
            lo = 1 + i % max(1, top - 200)
            store._thread_cursor().execute(RANGE, [lo, lo + 199]).fetchall()

        out = {}
        sides = (("point", gated_point, raw_point), ("range", gated_range, raw_range))
        for name, gated, raw in sides:
            n = statements if name == "point" else statements // 10
            out[f"{name}_raw_us"] = _per_statement(raw, n)
            out[f"{name}_gated_us"] = _per_statement(gated, n)
        out["point4_raw_per_s"] = _threaded(lambda: raw_point, statements // 4, 4)
        out["point4_gated_per_s"] = _threaded(lambda: gated_point, statements // 4, 4)
        return out


def _erase_under_load(rounds_per_thread: int = 200) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp), create=True) as mem:
        doomed = [mem.add_note("carol", f"carol's number {i}", now=DAY) for i in range(4)]
        mem.add_note("bob", "bob likes tea", now=DAY)
        stop = threading.Event()
        errors: list[str] = []
        written: list[int] = []

        def works() -> None:
            done = 0
            try:
                for i in range(rounds_per_thread):
                    if stop.is_set() and i > 2:
                        break
                    mem.add_note("bob", f"tea note {i}", now=DAY)
                    done += 1
                    mem.search("bob", "tea", k=5)
                    mem.compile("bob")
            except Exception as exc:  # counted, not raised: this is what is measured
                errors.append(type(exc).__name__)
            finally:
                written.append(done)

        pool = [threading.Thread(target=works) for _ in range(3)]
        for t in pool:
            t.start()
        t0 = time.perf_counter()
        for note in doomed:
            mem.erase("carol", [note.id], reason="bench")
        wall = time.perf_counter() - t0
        stop.set()
        for t in pool:
            t.join()
        stored = sum(1 for f in mem.facts("bob") if f.kind == "note") - 1
        return {
            "erase_s": wall / len(doomed),
            "errors": float(len(errors)),
            "lost": float(sum(written) - stored),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds (medians; default 5)")
    parser.add_argument(
        "--statements", type=int, default=20_000, help="point statements per side (default 20000)"
    )
    args = parser.parse_args()
    cpus, version = os.cpu_count(), platform.python_version()
    print(f"machine: {platform.machine()}, {cpus} CPUs, Python {version}")
    rounds = [_round(args.statements) for _ in range(args.rounds)]
    for key in rounds[0]:
        print(f"{key:22s} median {statistics.median(r[key] for r in rounds):12.1f}")
    for name in ("point", "range"):
        ratio = statistics.median(r[f"{name}_gated_us"] / r[f"{name}_raw_us"] for r in rounds)
        print(f"{name} gated / raw: {ratio:.2f}x")
    ratio = statistics.median(r["point4_gated_per_s"] / r["point4_raw_per_s"] for r in rounds)
    print(f"point, 4 threads, gated / raw throughput: {ratio:.2f}x")
    loads = [_erase_under_load() for _ in range(min(args.rounds, 3))]
    for key in loads[0]:
        print(f"erase under load: {key:8s} median {statistics.median(r[key] for r in loads):.3f}")


if __name__ == "__main__":
    main()
