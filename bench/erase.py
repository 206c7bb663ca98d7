"""Erase benchmark: a legal erase of a subject with N facts, against compiling it.

Run from the repository root with the project's virtualenv:

    python bench/erase.py                # 10,000 facts, 3 runs
    python bench/erase.py --facts 2000 --runs 5

Setup: one workspace, one subject with N facts appended through `Store.append` in batches of
1,000 (one input per batch): 80% transactions (typed records), 20% notes; plus a second
subject of the same size that is not erased (the file rewrite copies it too). The subject
is indexed for search and compiled, then the workspace is copied once per run (an erase is
destructive). Timed per run, on a fresh copy opened by `Memory`:

* baseline: a full `compile` of the subject (its generated versions removed first), the
  erase's own last big step;
* `erase --fact`: one note (blank 1 fact + its input, purge its search rows, recompile,
  rewrite the file);
* `erase --all`: every fact and input of the subject.

Reported as medians, and erase/compile ratios.
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

# Replace the script directory: a stdlib-named script here would shadow the stdlib module.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from uac import Memory  # noqa: E402
from uac.compiler import cache  # noqa: E402
from uac.fact_log.addressing import Address  # noqa: E402
from uac.fact_log.store import Batch, NewFact, NewInput, Store  # noqa: E402

T0 = dt.datetime(2025, 1, 10, 9)


def build(home: Path, facts: int, subjects: tuple[str, ...], per_batch: int = 1000) -> None:
    """Append `facts` facts to each subject in batches (80% records, 20% notes)."""
    with Store.open(home, create=True) as store:
        for name in subjects:
            addr = Address("default", "user", name)
            for first in range(0, facts, per_batch):
                n = min(per_batch, facts - first)
                new = []
                for i in range(first, first + n):
                    if i % 5 == 0:
                        new.append(
                            NewFact(
                                "assert", "note", "notes", text=f"note {i} about harbour {i % 89}"
                            )
                        )
                    else:
                        value = {"date": "2024-05-01", "amount": str(i), "payee": f"p{i % 97}"}
                        new.append(
                            NewFact(
                                "assert",
                                "record",
                                "finance.transactions",
                                value,
                                record_key=f"k{i}",
                                input_index=0,
                            )
                        )
                batch = Batch(
                    addr,
                    T0 + dt.timedelta(seconds=first),
                    "bench",
                    inputs=[NewInput("file", f"batch {first} of {name}", "bench")],
                    facts=new,
                )
                store.append(batch, return_facts=False)
    with Memory(home, react=False) as mem:
        for name in subjects:
            mem.search(name, "harbour", k=5)
            mem.compile(name)


def timed(master: Path, work: Path, action: str) -> float:
    """Seconds one action takes on a fresh copy of the master workspace."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(master, work)
    cache.clear()
    if action == "compile":  # a full compile: nothing to reuse from an earlier version
        shutil.rmtree(work / "generated" / "default" / "user" / "alice")
    with Memory(work, react=False) as mem:
        note = next(f.id for f in mem.facts("alice") if f.kind == "note")
        t0 = time.perf_counter()
        if action == "compile":
            mem.compile("alice")
        elif action == "erase_fact":
            report = mem.erase("alice", [note], reason="bench")
            assert report["verified"]
        else:
            report = mem.erase("alice", all=True, reason="bench")
            assert report["verified"]
        return time.perf_counter() - t0


def main() -> None:
    """Build once, then time compile, erase --fact and erase --all alternately."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    actions = ("compile", "erase_fact", "erase_all")
    times: dict[str, list[float]] = {a: [] for a in actions}
    with tempfile.TemporaryDirectory() as tmp:
        master, work = Path(tmp) / "master", Path(tmp) / "work"
        t0 = time.perf_counter()
        build(master, args.facts, ("alice", "bob"))
        setup = time.perf_counter() - t0
        size = (master / "uac.duckdb").stat().st_size
        for _ in range(args.runs):
            for action in actions:
                times[action].append(timed(master, work, action))
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print(f"load average: {os.getloadavg()[0]:.1f}; setup {setup:.1f}s; file {size / 1e6:.1f} MB")
    print(f"subject: {args.facts} facts (+ another subject of the same size); runs {args.runs}")
    base = statistics.median(times["compile"])
    for action in actions:
        med = statistics.median(times[action])
        print(f"{action:11s} median {med:7.2f}s  ({med / base:4.2f}x compile)")


if __name__ == "__main__":
    main()
