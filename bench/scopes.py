"""Scopes benchmark: compile time of a user in 3 groups (plus tenant defaults) vs alone.

Run from the repository root with the project's virtualenv:

    python bench/scopes.py              # 2,000 own facts, 3 groups of 60 facts each
    python bench/scopes.py --runs 7     # more repetitions (default 5; each number a median)
    python bench/scopes.py --quick      # 10x smaller, a smoke run

Two workspaces are built once (not timed): "alone", where alice holds N facts (trip records
imported into `travel.trips`, three attributes set), and "shared", the same plus three
groups alice is a member of, each holding G facts (an address, notes and trip records of
family trips) and a tenant holding a default language. For every run each workspace is
copied to a fresh directory (a never-compiled subject, an empty in-process compile cache),
then timed:

* full: `Memory.compile("alice")`, wall clock of the call;
* incremental: right after, one new attribute value for alice (`Memory.set`, not timed)
  and `Memory.compile("alice")` again (timed).

The ratio shared/alone of the medians is what issue 17 targets (within 1.5x).
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
import time
from pathlib import Path

# Run as a file, this folder is first on sys.path, and a stdlib-named script here would shadow the
# standard library's `secrets` that uac uses.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from uac import Memory  # noqa: E402
from uac.compiler import cache  # noqa: E402

T0 = dt.datetime(2025, 1, 1, 12)
GROUPS = ("family", "climbing", "work")


def _trips(n: int, seed: int) -> list[dict[str, object]]:
    base = dt.date(2015, 1, 1)
    return [
        {
            "city": f"City{(i * 7 + seed) % 97}",
            "country": "PT",
            "depart": (base + dt.timedelta(days=i + seed * 5000)).isoformat(),
            "cost": f"{100 + i % 900}.50",
        }
        for i in range(n)
    ]


def build(home: Path, own: int, shared: int | None) -> None:
    """A workspace where alice holds `own` facts and, if `shared`, 3 groups hold that many."""
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice", now=T0)
        mem.set("alice", "preferences.verbosity", "short", now=T0)
        mem.set("alice", "places.location.city", "Porto", now=T0)
        mem.import_records("alice", "trips", _trips(own - 3, 0), now=T0)
        if shared is None:
            return
        mem.set("tenant", "preferences.language", "pt", now=T0)
        for n, group in enumerate(GROUPS, 1):
            addr = f"group:{group}"
            mem.member_add(addr, "alice", now=T0)
            mem.member_add(addr, f"other{n}", now=T0)
            mem.set(addr, "places.address.city", f"Town{n}", now=T0 + dt.timedelta(hours=n))
            for i in range(shared // 2):
                mem.add_note(addr, f"{group} convention {i}: keep it tidy", now=T0)
            mem.import_records(addr, "trips", _trips(shared - shared // 2 - 2, n), now=T0)


def _timed(template: Path, scratch: Path, run: int) -> tuple[float, float]:
    home = scratch / f"{template.name}-{run}"
    shutil.copytree(template, home)
    cache.clear()
    with Memory(home, react=False) as mem:
        start = time.perf_counter()
        (res,) = mem.compile("alice")
        full = time.perf_counter() - start
        assert res.status == "published", res.error
        mem.set("alice", "preferences.verbosity", "detailed", now=T0 + dt.timedelta(days=1))
        start = time.perf_counter()
        (res,) = mem.compile("alice")
        incremental = time.perf_counter() - start
        assert res.status == "published", res.error
    shutil.rmtree(home, ignore_errors=True)
    return full, incremental


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    own, shared = (200, 6) if args.quick else (2000, 60)
    scratch = Path(tempfile.mkdtemp(prefix="uac-bench-scopes-"))
    try:
        alone, inside = scratch / "alone", scratch / "shared"
        build(alone, own, None)
        build(inside, own, shared)
        times: dict[str, list[tuple[float, float]]] = {"alone": [], "shared": []}
        for run in range(args.runs):  # interleaved: load on the machine hits both alike
            times["alone"].append(_timed(alone, scratch, run))
            times["shared"].append(_timed(inside, scratch, run))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    med = {k: [statistics.median(t[i] for t in v) for i in (0, 1)] for k, v in times.items()}
    print(
        f"machine: {platform.machine()} {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
        f"load average {os.getloadavg()[0]:.1f}; alice {own} facts, 3 groups x {shared} facts "
        f"+ tenant; median of {args.runs}"
    )
    print()
    print("| compile of alice | alone | in 3 groups | ratio |")
    print("|---|---:|---:|---:|")
    for i, label in enumerate(("full (never compiled)", "incremental (one new value)")):
        a, s = med["alone"][i], med["shared"][i]
        print(f"| {label} | {a * 1000:.0f} ms | {s * 1000:.0f} ms | {s / a:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
