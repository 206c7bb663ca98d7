"""Verify benchmark: `uac verify` over a log of N facts, plain chain walk vs keyed verify.

Run from the repository root with the project's virtualenv:

    python bench/verify.py                 # 100,000 facts, 5 runs
    python bench/verify.py --facts 20000   # a smaller log
    python bench/verify.py --runs 7

Setup: one workspace, N facts appended through `Store.append` in batches of 1,000 (so N/1,000
commits and anchors), one input per batch. Timed, alternating in the same process:

* baseline, `store.backend._walk(chunk, None, None)` (backends/duckdb.py): the chain walk
  `verify` did before tamper evidence (content hash, plain link, id per fact), reading the
  same rows;
* keyed, `Store.verify()`: that walk plus the keyed digest of every fact, every sealed table
  row (inputs, anchors) and the anchor checks.

Also reported: the append time of the whole log (each fact now also gets an HMAC, each
input and commit a sealed row).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from uac.fact_log.addressing import Address
from uac.fact_log.store import Batch, NewFact, NewInput, Store

T0 = dt.datetime(2025, 1, 10, 9)


def build(home: Path, facts: int, per_batch: int = 1000) -> float:
    """Append `facts` facts in batches; returns the seconds it took."""
    addr = Address("default", "user", "bench")
    t0 = time.perf_counter()
    with Store.open(home, create=True) as store:
        for first in range(0, facts, per_batch):
            n = min(per_batch, facts - first)
            batch = Batch(
                addr,
                T0 + dt.timedelta(seconds=first),
                "bench",
                inputs=[NewInput("file", f"batch {first}", "bench")],
                facts=[
                    NewFact(
                        "assert",
                        "record",
                        "finance.transactions",
                        {"amount": str(first + i), "payee": f"p{(first + i) % 97}"},
                        record_key=f"k{first + i}",
                        input_index=0,
                    )
                    for i in range(n)
                ],
            )
            store.append(batch, return_facts=False)
    return time.perf_counter() - t0


def main() -> None:
    """Build the log, then time baseline and keyed verify alternately."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "ws"
        append_s = build(home, args.facts)
        plain: list[float] = []
        keyed: list[float] = []
        with Store.open(home, read_only=True) as store:
            for _ in range(args.runs):
                t0 = time.perf_counter()
                walk = store.backend._walk(20_000, None, None)  # type: ignore[attr-defined]
                plain.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                report = store.verify()
                keyed.append(time.perf_counter() - t0)
                assert walk.ok and report.ok and report.checked == args.facts, report
    per = 100_000 / args.facts
    base, full = statistics.median(plain) * per, statistics.median(keyed) * per
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"facts: {args.facts:,} in {args.facts // 1000} commits; runs: {args.runs}")
    print(f"append (build): {append_s:.2f} s")
    print(
        f"baseline chain walk: {base:.3f} s per 100k facts (runs: {[round(x, 3) for x in plain]})"
    )
    print(
        f"keyed verify:        {full:.3f} s per 100k facts (runs: {[round(x, 3) for x in keyed]})"
    )
    print(f"ratio keyed / baseline: {full / base:.2f}")


if __name__ == "__main__":
    main()
