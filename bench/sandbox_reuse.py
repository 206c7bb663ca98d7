"""Query worker reuse: sandboxed query latency and throughput, fresh process vs. reused worker.

Run from the repository root with the project's virtualenv:

    python bench/sandbox_reuse.py                 # the demo subject (maya), 300 runs per query
    python bench/sandbox_reuse.py --records 10000 # a 10,000-transaction subject instead
    python bench/sandbox_reuse.py --quick

One compiled subject; for each query, in one process and in alternating blocks of ten runs
so load drifts hit all sides alike: the same program as plain Python on the same objects in
this process (the floor), `Sandbox.run` with a fresh confined process per query
(`reuse=False`, what every query did before) and with a reused confined worker
(`reuse=True`). Reported: p50 and p99 per side, the ratios sandboxed / plain and
fresh / reused; then throughput of two client threads over a two-zygote `SandboxPool`
(both cores) in each mode.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import benchpath  # first: takes bench/ off sys.path (a stdlib-named script here shadows the stdlib)

from uac.runtime.sandbox import Sandbox, SandboxPool

_QUERY = benchpath.sibling("query")  # the 10,000-record subject and its queries
QUERIES, build, pct = _QUERY.QUERIES, _QUERY.build, _QUERY.pct

TODAY = dt.date(2026, 11, 29)
BLOCK = 10
YEARLY = "sum(t.amount for t in user.transactions if t.date.year == 2025)"
DEMO_QUERIES = [
    YEARLY,
    "len(user.trips)",
    "Counter(t.category for t in user.transactions).most_common(3)",
    "sum_by(user.transactions, 'category', 'amount')",
    "[t.city for t in top_k(user.trips, 'cost', 3)]",
]


def demo_checkpoint(home: Path) -> Path:
    """Build the `uac demo` workspace and return maya's checkpoint directory."""
    from uac.runtime.examples import demo

    mem = demo.build(home, lambda _line: None)
    try:
        mem.compile(demo.PERSONA)
        return mem.checkpoint(demo.PERSONA).directory
    finally:
        mem.close()


def latency(ckpt: Path, queries: list[str], runs: int) -> list[dict]:
    """Per query: plain, fresh and reused p50/p99 (ms), in alternating blocks."""
    ns = _QUERY.plain_namespace(ckpt)
    boxes = {"fresh": Sandbox(ckpt, reuse=False), "reused": Sandbox(ckpt, reuse=True)}
    assert boxes["reused"].max_queries > 1, "the checkpoint was not reusable"
    rows = []
    try:
        for program in queries:
            for box in boxes.values():
                env = box.run(program, today=TODAY)
                assert env["ok"], (program, env)
            code = compile(program, "<plain>", "eval")
            times: dict[str, list[float]] = {"plain": [], "fresh": [], "reused": []}
            # Blocks of BLOCK runs per side, alternating: load drift hits every side alike,
            # while a fresh-process query's background fork stays out of the others' block.
            for _ in range(max(1, runs // BLOCK)):
                for name, box in boxes.items():
                    for _ in range(BLOCK):
                        a = time.perf_counter()
                        box.run(program, today=TODAY)
                        times[name].append((time.perf_counter() - a) * 1000)
                for _ in range(BLOCK):
                    a = time.perf_counter()
                    eval(code, dict(ns))
                    times["plain"].append((time.perf_counter() - a) * 1000)
            row: dict = {"query": program}
            p50 = {name: statistics.median(values) for name, values in times.items()}
            for name, values in times.items():
                row[f"{name}_p50_ms"] = round(p50[name], 4)
                row[f"{name}_p99_ms"] = round(pct(values, 0.99), 3)
            row["reused_over_plain"] = round(p50["reused"] / p50["plain"], 1)
            row["fresh_over_reused"] = round(p50["fresh"] / p50["reused"], 1)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        for box in boxes.values():
            box.close()
    return rows


def throughput(ckpt: Path, queries: list[str], total: int, reuse: bool) -> float:
    """Queries per second of two client threads over a two-zygote pool."""
    pool = SandboxPool(ckpt, size=2, reuse=reuse)
    for _ in range(4):
        pool.run("1", today=TODAY)  # start both zygotes outside the timed part
    per = total // 2

    def client(k: int) -> None:
        for i in range(per):
            pool.run(queries[(i + k) % len(queries)], today=TODAY)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(2) as clients:
        list(clients.map(client, range(2)))
    elapsed = time.perf_counter() - t0
    pool.close()
    return round(per * 2 / elapsed, 1)


def main() -> None:
    """Run the benchmark and print (and optionally save) the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=0, help="0: the demo subject")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--throughput", type=int, default=3000, help="queries per mode")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.quick:
        args.runs, args.throughput = 30, 300
    out: dict = {
        "date": dt.date.today().isoformat(),
        "machine": f"{os.cpu_count()} vCPU, {platform.processor() or platform.machine()}",
        "python": platform.python_version(),
        "load_average_start": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        if args.records:
            ckpt, queries = build(Path(tmp) / "ws", args.records), QUERIES
            out["subject"] = f"{args.records} transactions + 200 trips"
        else:
            ckpt, queries = demo_checkpoint(Path(tmp) / "ws"), DEMO_QUERIES
            out["subject"] = "the demo (maya)"
        rows = latency(ckpt, queries, args.runs)
        out["queries"] = rows
        for key in ("plain_p50_ms", "fresh_p50_ms", "reused_p50_ms"):
            out[f"median_{key}"] = round(statistics.median(r[key] for r in rows), 3)
        out["median_reused_over_plain"] = round(
            statistics.median(r["reused_over_plain"] for r in rows), 1
        )
        out["median_fresh_over_reused"] = round(
            statistics.median(r["fresh_over_reused"] for r in rows), 1
        )
        for reuse in (False, True):
            name = "reused" if reuse else "fresh"
            qps = throughput(ckpt, queries, args.throughput, reuse)
            out[f"throughput_2_clients_{name}_qps"] = qps
            print(f"throughput, 2 clients, {name}: {qps} q/s", flush=True)
    out["load_average_end"] = os.getloadavg()
    summary = {k: v for k, v in out.items() if k != "queries"}
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
