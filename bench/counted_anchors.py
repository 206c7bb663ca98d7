"""Counted anchors: what counting the rows of alerts, rejections, schemas and checkpoints in
every anchor costs a write, a compile and `verify`, against the same code without the count.

Run from the repository root with the project's virtualenv:

    python bench/counted_anchors.py                 # 5 runs, 200 writes, 2,000 facts
    python bench/counted_anchors.py --runs 3 --writes 100
    python bench/counted_anchors.py --quick     # a smoke run

Each run uses a fresh workspace per side, sides interleaved in one process so load drift
hits both alike. "without" replaces `tamper.tally` by a constant (anchors record no counts,
the cost before this change; the anchor rows are still written) and `tamper.tally_problems`
by nothing. Measured:

* write: `Memory.set` (react=False) p50 over `--writes` sequential writes;
* compile: `Memory.compile` of one subject after one more write (records a checkpoint row
  and, now, an anchor counting it), p50 over `--compiles`;
* verify: `Memory.verify()` of the resulting log (one chain walk plus the counted checks).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import benchpath  # noqa: F401 - first: takes bench/ off sys.path (a stdlib-named script here)

from uac.fact_log import tamper
from uac.fact_log.backends import postgres
from uac.runtime.api.memory import Memory

T0 = dt.datetime(2025, 1, 10, 9)


@contextmanager
def without_counts() -> Iterator[None]:
    """The code as it was before anchors counted rows: no count query, no count check."""
    saved = tamper.tally, tamper.tally_problems, postgres.tally_problems
    tamper.tally = lambda con: "{}"  # type: ignore[assignment]
    tamper.tally_problems = postgres.tally_problems = lambda con, only=None, look=None: []  # type: ignore[assignment]
    try:
        yield
    finally:
        tamper.tally, tamper.tally_problems, postgres.tally_problems = saved


def one_side(home: Path, writes: int, compiles: int, facts: int) -> dict[str, float]:
    """p50 seconds of a write and a compile, and one verify, on a fresh workspace."""
    out: dict[str, Any] = {}
    with Memory(home, create=True, react=False) as mem:
        mem.import_records(
            "alice",
            "finance.transactions",
            [
                {"date": "2025-01-01", "amount": str(i), "merchant": f"p{i % 97}"}
                for i in range(facts)
            ],
            now=T0,
        )
        lat = []
        for i in range(writes):
            t0 = time.perf_counter()
            mem.set("alice", "identity.name", f"Alice {i}", now=T0)
            lat.append(time.perf_counter() - t0)
        out["write"] = statistics.median(lat)
        lat = []
        for i in range(compiles):
            mem.set("alice", "identity.name", f"A {i}", now=T0)
            t0 = time.perf_counter()
            mem.compile("alice")
            lat.append(time.perf_counter() - t0)
        out["compile"] = statistics.median(lat)
        t0 = time.perf_counter()
        assert mem.verify().ok
        out["verify"] = time.perf_counter() - t0
    return out


def main() -> None:
    """Interleave both sides `--runs` times; print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--compiles", type=int, default=10)
    parser.add_argument("--facts", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="a smoke run (1 run, few writes)")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.writes, args.compiles, args.facts = 1, 20, 2, 200
    sides: dict[str, list[dict[str, float]]] = {"with": [], "without": []}
    with tempfile.TemporaryDirectory() as tmp:
        one_side(Path(tmp) / "warm-up", 5, 1, 10)  # imports and first-use costs, untimed
        for run in range(args.runs):
            for name, ctx in (("without", without_counts), ("with", nullcontext)):
                with ctx():
                    home = Path(tmp) / f"{name}{run}"
                    sides[name].append(one_side(home, args.writes, args.compiles, args.facts))
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores,"
        f" Python {platform.python_version()}; runs: {args.runs}, writes: {args.writes},"
        f" compiles: {args.compiles}, facts imported first: {args.facts}"
    )
    for what in ("write", "compile", "verify"):
        w = statistics.median(r[what] for r in sides["with"])
        wo = statistics.median(r[what] for r in sides["without"])
        print(
            f"{what:8s} without counts {wo * 1000:8.2f} ms   with counts {w * 1000:8.2f} ms"
            f"   ratio {w / wo:.3f}"
        )


if __name__ == "__main__":
    main()
