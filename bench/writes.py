"""Single writes: `Memory.set` latency and 8-thread throughput against bare DuckDB commits.

Run from the repository root with the project's virtualenv:

    python bench/writes.py              # 5 runs of 300 sequential writes, 8 threads x 100
    python bench/writes.py --runs 3 --writes 100

Each run uses fresh temporary workspaces. Measured in the same run, runs interleaved so a
load drift hits both sides alike:

* sequential: `Memory.set("alice", "preferences.verbosity", ...)` (react=False) one after
  the other; per-call latency, p50 and p90 of each run, the median over runs reported.
* bare: a parameterised single-row INSERT + COMMIT into a DuckDB file with the same `facts`
  table shape; and a bare `COMMIT` of an empty-ish transaction (one anchor-sized row), the
  floor a durable single write cannot go below in this process.
* threads: 8 threads each calling `Memory.set` `--per-thread` times on one subject
  (group commit shares transactions); writes/s, commits taken (anchor rows), lost writes
  (expected minus stored facts) and whether the chain verifies. Baseline: 8 threads each
  with its own cursor doing bare INSERT + COMMIT.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import tempfile
import threading
import time
from pathlib import Path

import benchpath  # noqa: F401 - first: takes bench/ off sys.path (a stdlib-named script here)
import duckdb

from uac.fact_log.store import FACT_COLUMNS
from uac.runtime.api.memory import Memory

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
VALUES = ("short", "detailed")
MARKS = ", ".join("?" * len(FACT_COLUMNS))


def _bare_table(path: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(path))
    body = ", ".join(f"{name} {sql}" for name, sql, _ in FACT_COLUMNS)
    con.execute(f"CREATE TABLE facts ({body})")
    return con


def _row(seq: int) -> list:
    h = "a" * 64
    return [
        seq, f"f_{seq:020d}", "t", "user", "alice", "assert", "attribute",
        "preferences.verbosity", None, '"short"', None, "explicit_command", 1.0, None, None,
        None, dt.datetime(2026, 12, 1), None, None, f"run_{seq}", "api", h, h, h, "k1:" + h,
    ]  # fmt: skip


def sequential_uac(writes: int) -> tuple[list[float], list[float]]:
    """Per-call seconds of `Memory.set`, one caller: wall clock and CPU."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "ws", "bench", create=True, react=False) as mem,
    ):
        for i in range(20):  # warm-up: caches, the first checkpoint of the WAL
            mem.set("alice", "preferences.verbosity", VALUES[i % 2], now=NOW)
        out, cpu = [], []
        for i in range(writes):
            t0, c0 = time.perf_counter(), time.process_time()
            mem.set("alice", "preferences.verbosity", VALUES[i % 2], now=NOW)
            out.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        return out, cpu


def sequential_bare(writes: int, empty: bool = False) -> tuple[list[float], list[float]]:
    """Per-call seconds of BEGIN + one-row INSERT + COMMIT (or a one-small-row commit):
    wall clock and CPU."""
    with tempfile.TemporaryDirectory() as tmp:
        con = _bare_table(Path(tmp) / "bare.duckdb")
        con.execute("CREATE TABLE tick (n BIGINT)")
        try:
            out, cpu = [], []
            for i in range(writes + 20):
                t0, c0 = time.perf_counter(), time.process_time()
                con.execute("BEGIN")
                if empty:
                    con.execute(f"INSERT INTO tick VALUES ({i})")
                else:
                    con.execute(f"INSERT INTO facts VALUES ({MARKS})", _row(i))
                con.execute("COMMIT")
                if i >= 20:
                    out.append(time.perf_counter() - t0)
                    cpu.append(time.process_time() - c0)
            return out, cpu
        finally:
            con.close()


def threaded_uac(threads: int, per_thread: int) -> dict:
    """Writes/s of `threads` callers of `Memory.set` on one subject, and what landed."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "ws", "bench", create=True, react=False) as mem,
    ):
        mem.set("alice", "preferences.verbosity", "normal", now=NOW)
        before = mem.store.con.execute("SELECT count(*) FROM anchors").fetchone()[0]
        start = threading.Barrier(threads + 1)
        errors: list[BaseException] = []

        def work(n: int) -> None:
            start.wait()
            try:
                for i in range(per_thread):
                    mem.set("alice", "preferences.verbosity", VALUES[(n + i) % 2], now=NOW)
            except BaseException as exc:  # counted below as lost writes
                errors.append(exc)

        pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
        for t in pool:
            t.start()
        start.wait()
        t0 = time.perf_counter()
        for t in pool:
            t.join()
        wall = time.perf_counter() - t0
        con = mem.store.con
        facts = con.execute("SELECT count(*) FROM facts").fetchone()[0] - 1
        commits = con.execute("SELECT count(*) FROM anchors").fetchone()[0] - before
        report = mem.verify()
        return {
            "writes_per_s": threads * per_thread / wall,
            "lost": threads * per_thread - facts,
            "errors": len(errors),
            "commits": commits,
            "verifies": report.ok,
        }


def threaded_bare(threads: int, per_thread: int) -> float:
    """Writes/s of `threads` cursors each doing BEGIN + INSERT + COMMIT on one file."""
    with tempfile.TemporaryDirectory() as tmp:
        con = _bare_table(Path(tmp) / "bare.duckdb")
        start = threading.Barrier(threads + 1)

        def work(n: int) -> None:
            cur = con.cursor()
            start.wait()
            for i in range(per_thread):
                cur.execute("BEGIN")
                cur.execute(f"INSERT INTO facts VALUES ({MARKS})", _row(n * per_thread + i))
                cur.execute("COMMIT")
            cur.close()

        pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
        for t in pool:
            t.start()
        start.wait()
        t0 = time.perf_counter()
        for t in pool:
            t.join()
        wall = time.perf_counter() - t0
        assert con.execute("SELECT count(*) FROM facts").fetchone()[0] == threads * per_thread
        con.close()
        return threads * per_thread / wall


def _pct(values: list[float], q: float) -> float:
    return sorted(values)[int(q * (len(values) - 1))] * 1000


def main() -> None:
    """Run the benchmark and print the numbers (JSON at the end)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--per-thread", type=int, default=100)
    args = parser.parse_args()
    out: dict = {
        "machine": f"{os.cpu_count()} vCPU, {platform.processor() or platform.machine()}",
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "load_average_start": os.getloadavg(),
    }
    runs: dict[str, list] = {"uac": [], "bare": [], "commit": [], "threads": [], "bare_thr": []}
    cpu: dict[str, list] = {"uac": [], "bare": [], "commit": []}
    for _ in range(args.runs):
        for name, timed in (
            ("uac", lambda: sequential_uac(args.writes)),
            ("bare", lambda: sequential_bare(args.writes)),
            ("commit", lambda: sequential_bare(args.writes, empty=True)),
        ):
            wall, used = timed()
            runs[name].append(wall)
            cpu[name].append(used)
        runs["threads"].append(threaded_uac(args.threads, args.per_thread))
        runs["bare_thr"].append(threaded_bare(args.threads, args.per_thread))
    for name, label in (
        ("uac", "Memory.set, sequential"),
        ("bare", "bare INSERT + COMMIT (fact row)"),
        ("commit", "bare INSERT + COMMIT (one BIGINT)"),
    ):
        p50 = statistics.median(_pct(r, 0.5) for r in runs[name])
        p90 = statistics.median(_pct(r, 0.9) for r in runs[name])
        cpu50 = statistics.median(_pct(r, 0.5) for r in cpu[name])
        out[name] = {
            "p50_ms": round(p50, 3),
            "p90_ms": round(p90, 3),
            "cpu_p50_ms": round(cpu50, 3),
        }
        print(
            f"{label:<36} p50 {p50:7.3f} ms   p90 {p90:7.3f} ms   CPU p50 {cpu50:7.3f} ms",
            flush=True,
        )
    thr = runs["threads"]
    out["threads"] = {
        "threads": args.threads,
        "per_thread": args.per_thread,
        "uac_writes_per_s": round(statistics.median(r["writes_per_s"] for r in thr), 1),
        "bare_writes_per_s": round(statistics.median(runs["bare_thr"]), 1),
        "commits_per_run": [r["commits"] for r in thr],
        "lost": sum(r["lost"] for r in thr),
        "errors": sum(r["errors"] for r in thr),
        "all_verify": all(r["verifies"] for r in thr),
    }
    out["ratio_p50_uac_over_bare"] = round(out["uac"]["p50_ms"] / out["bare"]["p50_ms"], 2)
    # CPU: what a loaded machine's scheduling does not inflate (wall p50 does, on both sides).
    out["ratio_cpu_p50_uac_over_bare"] = round(
        out["uac"]["cpu_p50_ms"] / out["bare"]["cpu_p50_ms"], 2
    )
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
