"""A 200k-record subject: import peak memory, and one `uac query` through the CLI.

Run from the repository root with the project's virtualenv:

    python bench/bigsubject.py                 # 200,000 records, 3 query rounds
    python bench/bigsubject.py --records 20000 --rounds 2

Writes a JSON Lines file of N trip records (streamed to disk, not held in memory), then in a
fresh temporary workspace, each step a separate process whose wall time and peak RSS
(`ru_maxrss` from `os.wait4`) are recorded:

* import (API, no reaction): `Memory(react=False).import_file("alice", "trips", FILE)`;
* import (CLI): `uac import alice trips FILE` into a second workspace (includes the
  compile the command reacts with);
* query (CLI): `uac query alice 'sum(1 for t in user.trips if t.purpose == "business")'`
  on the second workspace, `--rounds` times (median);
* baseline in the same run: `python -c pass` and a process that reads the whole file and
  `json.loads` every line (the floor of holding nothing but parsing everything).

With `--compare-src OLD` the query is also run with the other revision, side by side: a
copy of the CLI workspace whose subject is compiled again by that revision (its own
checkpoint format), the rounds alternating old and new. Each query reports wall time and
CPU (user + system of the CLI and the zygote it waited for: less sensitive to load).
`--query-only` skips both imports' measurements (the CLI import still builds the data);
`--workspace DIR` queries a workspace already holding the import instead. A failed query
(the old zygote not ready within the host's 30 s under heavy load) is reported, not fatal.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchpath  # noqa: F401 - first: takes bench/ off sys.path (a stdlib-named script here)

CITIES = ("Paris", "Lyon", "Berlin", "Rome", "Lisbon", "Vienna", "Tokyo", "Dublin")
QUERY = 'sum(1 for t in user.trips if t.purpose == "business")'
API_IMPORT = """
import sys
from uac.runtime.api.memory import Memory
with Memory(sys.argv[1], react=False) as mem:
    mem.import_file("alice", "trips", sys.argv[2])
"""
PARSE_ONLY = """
import json, sys
with open(sys.argv[1], encoding="utf-8") as fh:
    n = sum(1 for line in fh if json.loads(line))
"""


def write_trips(path: Path, n: int, seed: int = 20261201) -> None:
    """n distinct catalog trips, one JSON object a line, written as they are drawn."""
    rng = random.Random(seed)
    start = dt.date(1500, 1, 1)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            depart = start + dt.timedelta(days=i)
            rec = {
                "country": "FR",
                "city": rng.choice(CITIES),
                "depart": depart.isoformat(),
                "return_date": (depart + dt.timedelta(days=rng.randint(1, 9))).isoformat(),
                "purpose": rng.choice(("leisure", "business", "family")),
                "cost": f"{rng.randint(2_000, 500_000) / 100:.2f}",
            }
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")


def run(
    argv: list[str],
    src: str | None = None,
    cpu: list[float] | None = None,
    failures: list[str] | None = None,
) -> tuple[float, float]:
    """(wall s, peak RSS MB) of one process run to completion; fails loudly if it fails.

    `src`: a directory holding another revision as `uac/` (put first on PYTHONPATH).
    `cpu`: gets the process's CPU seconds (user + system, with the children it waited for).
    `failures`: gets the error of a failed run instead of stopping the benchmark.
    """
    env = dict(os.environ, PYTHONPATH=src) if src else None
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if cpu is not None:
        cpu.append(usage.ru_utime + usage.ru_stime)
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 and failures is not None:
        failures.append(err.strip()[-300:])
    elif proc.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed ({proc.returncode}): {err.strip()[-2000:]}")
    if out.strip():
        print("   ->", out.strip()[:200], flush=True)
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    """Run the benchmark and print the numbers (JSON at the end)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-api", action="store_true", help="only the CLI import and query")
    parser.add_argument("--api-only", action="store_true", help="only the API imports")
    parser.add_argument("--query-only", action="store_true", help="measure only the queries")
    parser.add_argument(
        "--workspace", help="query this workspace's alice instead of importing (its copy for OLD)"
    )
    parser.add_argument(
        "--compare-src",
        help="also run the API import with another revision: a directory holding it as uac/ "
        "(e.g. mkdir -p OLD/uac && git archive REV | tar -x -C OLD/uac)",
    )
    args = parser.parse_args()
    uac = shutil.which("uac") or str(Path(sys.executable).with_name("uac"))
    py = sys.executable
    out: dict = {
        "machine": f"{os.cpu_count()} vCPU, {platform.processor() or platform.machine()}",
        "python": platform.python_version(),
        "records": args.records,
        "load_average_start": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory(prefix="uac-big-") as tmp:
        file = Path(tmp) / "trips.jsonl"
        write_trips(file, args.records)
        out["file_mb"] = round(file.stat().st_size / 2**20, 1)
        steps: dict[str, tuple[float, float]] = {}

        def step(name: str, argv: list[str], src: str | None = None) -> None:
            wall, rss = steps[name] = run(argv, src)
            print(f"{name:<40} wall {wall:8.2f} s   peak RSS {rss:8.1f} MB", flush=True)

        step("python -c pass", [py, "-c", "pass"])
        step("parse floor (json.loads every line)", [py, "-c", PARSE_ONLY, str(file)])
        if not args.skip_api and not args.query_only:
            api = str(Path(tmp) / "api")
            run([uac, "--home", api, "init"])
            step("import, API, react=False", [py, "-c", API_IMPORT, api, str(file)])
        if args.compare_src and not args.query_only:
            old = str(Path(tmp) / "old")
            run([py, "-m", "uac.runtime.cli", "--home", old, "init"], args.compare_src)
            argv = [py, "-c", API_IMPORT, old, str(file)]
            step("import, API, react=False, --compare-src", argv, args.compare_src)
        if args.api_only:
            return _finish(out, steps)
        home = args.workspace or str(Path(tmp) / "cli")
        if not args.workspace:
            run([uac, "--home", home, "init"])
            step(
                "uac import (CLI, compiles)",
                [uac, "--home", home, "import", "alice", "trips", str(file)],
            )
        sides = {"uac query (CLI)": (home, None)}
        if args.compare_src:
            sides["uac query (CLI), --compare-src"] = (
                _old_workspace(home, args.compare_src, tmp),
                args.compare_src,
            )
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        failed: dict[str, list[str]] = {}
        cpus: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.rounds):  # alternating: load drifts hit both sides alike
            for name, (where, src) in sides.items():
                argv = [py, "-m", "uac.runtime.cli"] if src else [uac]
                argv += ["--home", where, "query", "alice", QUERY, "--today", "2026-12-01"]
                runs[name].append(run(argv, src, cpus[name], failed.setdefault(name, [])))
        for name, queries in runs.items():
            steps[name] = (
                statistics.median(q[0] for q in queries),
                statistics.median(q[1] for q in queries),
            )
            out.setdefault("query_cpu_s", {})[name] = round(statistics.median(cpus[name]), 3)
            walls = [round(q[0], 2) for q in queries]
            print(f"{name} walls {walls} CPU {[round(c, 2) for c in cpus[name]]}", flush=True)
            if failed[name]:
                out.setdefault("query_failures", {})[name] = failed[name]
    _finish(out, steps)


def _old_workspace(home: str, src: str, tmp: str) -> str:
    """A copy of the workspace whose subject the other revision compiled from scratch."""
    old = str(Path(tmp) / "old-ws")
    shutil.copytree(home, old)
    shutil.rmtree(Path(old) / "generated" / "default" / "user" / "alice")
    run([sys.executable, "-m", "uac.runtime.cli", "--home", old, "compile", "alice"], src)
    return old


def _finish(out: dict, steps: dict[str, tuple[float, float]]) -> None:
    out["steps"] = {
        k: {"wall_s": round(w, 3), "peak_rss_mb": round(r, 1)} for k, (w, r) in steps.items()
    }
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
