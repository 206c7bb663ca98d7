"""Query-sandbox benchmark: latency and throughput of agent queries against plain Python.

Run from the repository root with the project's virtualenv:

    python bench/query.py              # 10,000 transactions + 200 trips, 100 runs per query
    python bench/query.py --runs 30    # fewer repetitions
    python bench/query.py --json out.json
    python bench/query.py --compare-rev 241035a --rounds 5 --runs 60
                                       # per-query cost of this tree's sandbox vs. REV's

`--compare-rev` extracts REV with `git archive` into a temporary directory (with a `uac`
symlink to itself, so both the bench process and REV's zygote import REV's package ahead of
the editable install), then alternates rounds between REV and this tree on one compiled
subject: each round is a fresh process timing `Sandbox.run` per query (p50) and the CPU the
zygote and its reaped children spent per query. Reported: the median over rounds of the
median over queries, and the ratio HEAD / REV.

A subject with N records is imported and compiled in a temporary workspace. Measured:
cold start (the first `run_query` of a fresh process: zygote start, checkpoint import, warm-up
and the query), then for ten typical aggregate queries the end-to-end latency of
`Sandbox.run` (p50/p99) next to the same program evaluated as plain Python on the same
objects in this process (p50, and the ratio), and throughput with one client and with two
client threads over a two-zygote `SandboxPool` (both cores).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from uac import Memory
from uac.runtime.sandbox import Sandbox, SandboxPool, run_query, shutdown
from uac.runtime.sandbox.helpers import make_helpers

TODAY = dt.date(2026, 11, 29)

QUERIES = [
    "sum(t.amount for t in user.transactions if t.date.year == 2025)",
    "Counter(t.category for t in user.transactions).most_common(3)",
    "sum_by(user.transactions, 'category', 'amount')",
    "max(user.transactions, key=lambda t: t.amount).merchant",
    "len([t for t in user.transactions if t.merchant and 'coffee' in t.merchant.lower()])",
    "{m: len(v) for m, v in by_month(window(user.transactions, 'date', date(2025, 1, 1), "
    "date(2025, 12, 31)), 'date').items()}",
    "[t.key for t in top_k(user.transactions, 'amount', 5)]",
    "statistics.median([t.amount for t in user.transactions if t.category == 'groceries'])",
    "sorted({t.merchant for t in user.transactions if t.merchant})[:10]",
    "Counter(t.country for t in user.trips if t.depart.year == 2024).most_common(1)[0][0]",
]


def build(home: Path, n: int) -> Path:
    """Import and compile a subject with n transactions and 200 trips; its checkpoint dir."""
    rng = random.Random(7)
    cats = ["dining", "groceries", "rent", "travel", "utilities", "fun", "health"]
    merchants = [f"{w} {k}" for w in ("Blue", "Corner", "City", "Daily") for k in cats]
    merchants += ["Coffee Lab", "Good Coffee"]
    start = dt.date(2023, 1, 1)
    txs = [
        {
            "id": f"t{i}",
            "date": (start + dt.timedelta(days=rng.randrange(1400))).isoformat(),
            "amount": f"{rng.randrange(100, 50000) / 100:.2f}",
            "currency": "GBP",
            "merchant": rng.choice(merchants),
            "category": rng.choice(cats),
        }
        for i in range(n)
    ]
    trips = [
        {
            "country": rng.choice(["JP", "FR", "DE", "US", "IT"]),
            "city": f"City{i}",
            "depart": (start + dt.timedelta(days=rng.randrange(1400))).isoformat(),
            "cost": f"{rng.randrange(100, 300000) / 100:.2f}",
        }
        for i in range(200)
    ]
    with Memory(home, create=True, react=False) as mem:
        mem.import_records("bench", "transactions", txs)
        mem.import_records("bench", "trips", trips)
        mem.compile("bench")
        return mem.checkpoint("bench").directory


def plain_namespace(ckpt: Path) -> dict:
    """What the same programs see as plain Python in this process (the baseline)."""
    from uac.compiler import loader

    package = loader.import_package(ckpt)
    return {
        "user": package.state.user,
        "today": TODAY,
        "date": dt.date,
        "Counter": Counter,
        "statistics": statistics,
        **make_helpers(),
    }


def proc_cpu_s(pid: int) -> float:
    """CPU seconds of a process plus its reaped children (utime, stime, cutime, cstime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def latency_round(ckpt: Path, runs: int) -> dict:
    """One process's view: p50 of `Sandbox.run` and zygote CPU per query, for each query."""
    box = Sandbox(ckpt)
    zygote = box._proc.pid  # type: ignore[union-attr]
    rows = []
    for program in QUERIES:
        assert box.run(program, today=TODAY)["ok"], program
        times = []
        cpu0 = proc_cpu_s(zygote)
        for _ in range(runs):
            a = time.perf_counter()
            box.run(program, today=TODAY)
            times.append((time.perf_counter() - a) * 1000)
        cpu = (proc_cpu_s(zygote) - cpu0) / runs * 1000
        rows.append({"p50_ms": statistics.median(times), "zygote_cpu_ms": cpu})
    box.close()
    return {
        **spawn_round(max(200, runs * 4)),
        "p50_ms": statistics.median(r["p50_ms"] for r in rows),
        "zygote_cpu_ms": statistics.median(r["zygote_cpu_ms"] for r in rows),
        "confinement": getattr(box, "confinement", None) or {"seccomp": box.seccomp},
    }


def spawn_round(n: int) -> dict:
    """Fork, confine and reap n children the way the imported tree's zygote does; per child.

    Isolates what the confinement itself costs (the end-to-end latency on a shared machine is
    dominated by noise). Both trees' steps are spelled out: REV's `_confine` (rlimits and
    libseccomp's `seccomp_load` of the deny-list) and this tree's `Confiner.apply`.
    """
    import resource

    from uac.runtime.sandbox import zygote

    if hasattr(zygote, "Confiner"):  # this tree
        from uac.runtime.sandbox.confine import Seccomp, empty_root, make_plan

        root = empty_root()
        confiner = zygote.Confiner(make_plan(root, Seccomp()), Seccomp(), zygote._vm_bytes())

        def confine(req_r: int, res_w: int) -> None:
            confiner.apply(zygote.Limits(), req_r, res_w)
            os.write(1, b"k")
    else:  # REV: the deny-list zygote
        root = ""
        seccomp, base_vm = zygote.Seccomp(), zygote._vm_bytes()

        def confine(req_r: int, res_w: int) -> None:
            devnull = os.open(os.devnull, os.O_RDWR)
            for std in (0, 1, 2):
                os.dup2(devnull, std)
            os.close(devnull)
            zygote._confine(zygote.Limits(), seccomp, base_vm)
            os.write(res_w, b"k")

    walls = []
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(n):
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        a = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(req_w)
                os.close(res_r)
                confine(req_r, res_w)
            finally:
                os._exit(0)
        os.close(req_r)
        os.close(res_w)
        assert os.read(res_r, 1) == b"k"
        os.waitpid(pid, 0)
        walls.append((time.perf_counter() - a) * 1000)
        os.close(req_w)
        os.close(res_r)
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if root:
        os.rmdir(root)
    child_cpu = (cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime) / n * 1000
    return {"spawn_wall_ms": statistics.median(walls), "spawn_child_cpu_ms": child_cpu}


_KEYS = ("p50_ms", "zygote_cpu_ms", "spawn_wall_ms", "spawn_child_cpu_ms")


def compare(rev: str, records: int, rounds: int, runs: int) -> dict:
    """Alternate rounds of REV's sandbox and this tree's on one subject; medians and ratio."""
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base" / "uac"
        base.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(here), "archive", rev], check=True, capture_output=True
        ).stdout
        with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
            tar.extractall(base, filter="data")
        (base / "uac").symlink_to(".")  # REV's zygote gets PYTHONPATH=its root: find uac there
        ckpt = build(Path(tmp) / "ws", records)
        variants = {"rev": str(base.parent), "head": ""}
        results: dict[str, list[dict]] = {k: [] for k in variants}
        for _ in range(rounds):
            for name, path in variants.items():
                env = {**os.environ, "PYTHONPATH": path}
                out = subprocess.run(
                    [sys.executable, __file__, "--round", str(ckpt), "--runs", str(runs)],
                    check=True,
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=tmp,
                ).stdout
                results[name].append(json.loads(out.splitlines()[-1]))
                print(name, results[name][-1])
    summary: dict = {"rev": rev, "rounds": rounds, "runs": runs, "records": records}
    for name in variants:
        summary[name] = {
            key: round(statistics.median(r[key] for r in results[name]), 3) for key in _KEYS
        }
        summary[name]["confinement"] = results[name][0]["confinement"]
    for key in _KEYS:
        summary[f"ratio_{key}"] = round(summary["head"][key] / summary["rev"][key], 3)
    return summary


def main() -> None:
    """Run the benchmark and print (and optionally save) the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--throughput", type=int, default=1_000, help="queries per mode")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--compare-rev", help="compare per-query cost with this git revision")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per side")
    parser.add_argument("--round", type=Path, help=argparse.SUPPRESS)  # one round, one process
    args = parser.parse_args()
    if args.round:
        print(json.dumps(latency_round(args.round, args.runs)))
        return
    if args.compare_rev:
        summary = compare(args.compare_rev, args.records, args.rounds, args.runs)
        summary["machine"] = f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}"
        summary["load_average_end"] = os.getloadavg()
        print(json.dumps(summary, indent=1))
        if args.json:
            args.json.write_text(json.dumps(summary, indent=1))
        return
    out: dict = {
        "date": dt.date.today().isoformat(),
        "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}",
        "python": platform.python_version(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        ckpt = build(Path(tmp) / "ws", args.records)
        out["build_s"] = round(time.perf_counter() - t0, 2)

        t0 = time.perf_counter()
        first = run_query(ckpt, QUERIES[0], today=TODAY)
        out["cold_start_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        assert first["ok"], first
        shutdown()

        ns = plain_namespace(ckpt)
        box = Sandbox(ckpt)
        zygote = box._proc.pid  # type: ignore[union-attr]
        out["load_average_start"] = os.getloadavg()
        rows = []
        for program in QUERIES:
            env = box.run(program, today=TODAY)
            assert env["ok"], (program, env)
            code = compile(program, "<plain>", "eval")
            sandboxed, plain = [], []
            cpu0, host_cpu = proc_cpu_s(zygote), 0.0
            for _ in range(args.runs):
                h = time.process_time()
                a = time.perf_counter()
                box.run(program, today=TODAY)
                b = time.perf_counter()
                host_cpu += time.process_time() - h
                eval(code, dict(ns))
                c = time.perf_counter()
                sandboxed.append((b - a) * 1000)
                plain.append((c - b) * 1000)
            # CPU of the whole sandbox path per query: zygote + its reaped children + host.
            cpu = proc_cpu_s(zygote) - cpu0 + host_cpu
            p50, p50_plain = statistics.median(sandboxed), statistics.median(plain)
            rows.append(
                {
                    "query": program,
                    "p50_ms": round(p50, 2),
                    "p99_ms": round(pct(sandboxed, 0.99), 2),
                    "plain_p50_ms": round(p50_plain, 3),
                    "ratio": round(p50 / p50_plain, 1),
                    "cpu_ms_per_query": round(cpu / args.runs * 1000, 2),
                }
            )
            print(json.dumps(rows[-1]))
        box.close()
        out["queries"] = rows
        out["p50_all_ms"] = round(statistics.median(r["p50_ms"] for r in rows), 2)
        mean_cpu = statistics.mean(r["cpu_ms_per_query"] for r in rows)
        out["cpu_ms_per_query_mean"] = round(mean_cpu, 2)
        out["capacity_2_idle_cores_qps"] = round(2000 / mean_cpu, 1)

        for threads in (1, 2):
            pool = SandboxPool(ckpt, size=threads)
            for _ in range(threads * 2):
                pool.run("1", today=TODAY)  # start the zygotes outside the timed part
            per = args.throughput // threads

            def client(k: int, pool: SandboxPool = pool, per: int = per) -> None:
                for i in range(per):
                    pool.run(QUERIES[(i + k) % len(QUERIES)], today=TODAY)

            workers = [threading.Thread(target=client, args=(k,)) for k in range(threads)]
            t0 = time.perf_counter()
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            elapsed = time.perf_counter() - t0
            pool.close()
            out[f"throughput_{threads}_clients_qps"] = round(per * threads / elapsed, 1)
            print(f"throughput with {threads} client(s): {per * threads / elapsed:.1f} q/s")
    out["load_average_end"] = os.getloadavg()
    print(json.dumps({k: v for k, v in out.items() if k != "queries"}, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
