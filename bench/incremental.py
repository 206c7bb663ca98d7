"""One-fact incremental compile on a 10,000-fact subject, next to the full compile.

Run from the repository root with the project's virtualenv:

    python bench/incremental.py            # 10,000 facts, 7 runs per case
    python bench/incremental.py --quick    # 3 runs

The subject of bench/compile.py (9,997 trip records + 3 attributes) is built once and
compiled in full (the baseline, timed, in the same process); then, alternating, (a) one new
attribute value (`Memory.set`: the trips collection is carried over) and (b) one new trip
record (the trips collection is rendered again) are each written and compiled. Only the
compile is timed. Reported: median wall and the compile's own phase timings, and the ratio
to the full compile.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import benchpath  # first: takes bench/ off sys.path (a stdlib-named script here shadows the stdlib)

from uac.runtime.api.memory import Memory

ingest = benchpath.sibling("ingest")
PHASES = ("read", "fold", "render", "ruff", "validate", "publish")


def timed(mem: Memory) -> dict[str, float]:
    """Compile the subject; wall and phases in ms."""
    started = time.perf_counter()
    (res,) = mem.compile("alice")
    out = {"wall": (time.perf_counter() - started) * 1000}
    out.update({k: v * 1000 for k, v in res.timings.items() if k in PHASES})
    out["reused"] = res.reused  # type: ignore[assignment]
    return out


def main() -> None:
    """Run the benchmark and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    out: dict = {
        "machine": f"{os.cpu_count()} vCPU, {platform.processor() or platform.machine()}",
        "load_average_start": os.getloadavg(),
        "facts": args.facts,
        "runs": runs,
    }
    records = ingest.trips(args.facts - 3, ingest.SEED)
    samples: dict[str, list[dict]] = {"full": [], "attribute": [], "record": []}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            home = Path(tmp) / f"ws{run}"
            with Memory(home, "bench", create=True, react=False) as mem:
                for i in range(0, len(records), 5_000):
                    mem.import_records("alice", "travel.trips", records[i : i + 5_000])
                mem.set("alice", "identity.name", "Alice")
                mem.set("alice", "identity.passport.expiry_date", "2030-01-01")
                mem.set("alice", "preferences.verbosity", "short")
                samples["full"].append(timed(mem))
                mem.set("alice", "preferences.verbosity", "detailed")
                samples["attribute"].append(timed(mem))
                trip = {**records[0], "city": "Oslo", "depart": "2099-06-01"}
                mem.import_records("alice", "travel.trips", [trip])
                samples["record"].append(timed(mem))
    full = statistics.median(s["wall"] for s in samples["full"])
    for case, values in samples.items():
        row = {
            key: round(statistics.median(v.get(key, 0.0) for v in values), 1)
            for key in ("wall", *PHASES)
        }
        row["over_full"] = round(row["wall"] / full, 2)
        row["reused"] = values[-1]["reused"]
        out[case] = row
        print(f"{case:<10} " + "  ".join(f"{k} {v}" for k, v in row.items()), flush=True)
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
