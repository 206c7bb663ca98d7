"""The cost of folding only what verifies: incremental compile phases on a 10,000-fact subject.

Run from the repository root with the project's virtualenv:

    python bench/verified_fold.py --runs 25

A subject of 10,000 trip records is compiled once (that compile verifies every row), then
`--runs` times one attribute is set and the subject compiled (the rows verified are the new
one, plus one statement for the log's keying, numbering, newest anchor and folded mark).
Printed: the medians of the wall and of each compile phase in ms, and the first (full)
compile's read phase. To compare with code from before verified folding, run the same script
with PYTHONPATH at an export of that revision (`git archive REV | tar -x -C /tmp/old/uac`,
then `PYTHONPATH=/tmp/old python bench/verified_fold.py`), alternating the two.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import tempfile
import time
from pathlib import Path

import benchpath  # noqa: F401  first: takes bench/ off sys.path

from uac.runtime.api.memory import Memory

T = dt.datetime(2025, 1, 1)


def main() -> None:
    """Run the benchmark and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=25)
    args = parser.parse_args()
    trips = [
        {"country": "FR", "city": f"c{i}", "depart": f"2025-01-{1 + i % 28:02d}"}
        for i in range(args.facts)
    ]
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "ws", create=True, react=False) as mem,
    ):
        mem.import_records("alice", "travel.trips", trips, now=T)
        (first,) = mem.compile("alice")
        rows = []
        for i in range(args.runs):
            mem.set("alice", "identity.name", f"A{i}", now=T)
            started = time.perf_counter()
            (res,) = mem.compile("alice")
            wall = (time.perf_counter() - started) * 1000
            rows.append({"wall": wall, **{k: v * 1000 for k, v in res.timings.items()}})
    medians = {k: round(statistics.median(r.get(k, 0.0) for r in rows), 1) for k in rows[0]}
    print(f"full compile read {first.timings['read'] * 1000:.1f} ms")
    print("incremental " + "  ".join(f"{k} {v}" for k, v in medians.items()))
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
