"""Where a query zygote's start goes on one checkpoint: CPU seconds per phase, in process.

Run from the repository root with the project's virtualenv, on a compiled checkpoint
(e.g. the subject `bench/bigsubject.py` imports):

    python bench/zygote_split.py VERSION_DIR [COLLECTIONS] [--query PROGRAM]
    PYTHONPATH=OLD python bench/zygote_split.py VERSION_DIR    # another revision

Times (process CPU, so less sensitive to other load than wall time) what
`runtime/sandbox/zygote.py` does before it can fork a worker — importing the checkpoint
(of which: hashing every file, `json.loads`), reading provenance.json, the warm-up
programs, the deep-immutability check a reused worker needs, the collection before the heap
is frozen — then the query itself through the sandbox's engine (twice) and in plain Python.
COLLECTIONS (comma-separated) loads only those, as a one-shot `uac query` does.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import benchpath  # noqa: F401 - first: takes bench/ off sys.path (a stdlib-named script here)

from uac.compiler import loader
from uac.runtime.sandbox import engine, zygote

QUERY = 'sum(1 for t in user.trips if t.purpose == "business")'
SPLIT: dict[str, float] = {}


def timed(owner: Any, name: str, label: str) -> None:
    """Add the CPU time of every call of owner.name to SPLIT[label]."""
    real: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            SPLIT[label] = SPLIT.get(label, 0.0) + time.process_time() - started

    setattr(owner, name, wrapper)


def phase(label: str, fn: Callable[[], Any]) -> Any:
    """Run fn, recording its CPU time under label."""
    started = time.process_time()
    out = fn()
    SPLIT[label] = time.process_time() - started
    return out


def main() -> None:
    """Print the split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("collections", nargs="?")
    parser.add_argument("--query", default=QUERY)
    args = parser.parse_args()
    timed(loader, "import_package", "import the checkpoint")
    timed(loader, "file_digests", "  of which: hash every file")
    timed(json, "loads", "  of which: json.loads (all files)")
    if hasattr(zygote, "_group_paths"):
        timed(zygote, "_group_paths", "provenance.json: group paths")
    timed(zygote, "execute", "warm-up programs")
    only = [frozenset(args.collections.split(","))] if args.collections else []
    policy = phase("zygote.load, total", lambda: zygote.load(args.directory, *only))
    immutable = phase(
        "deeply_immutable (reused workers only)", lambda: zygote.deeply_immutable(policy)
    )
    phase("gc.collect before the freeze", gc.collect)
    gc.freeze()
    limits, today = engine.Limits(timeout_s=600, cpu_s=600), dt.date(2026, 12, 1)
    for n in (1, 2):
        reply = phase(
            f"the query, sandboxed (run {n})",
            lambda: engine.execute(args.query, policy, today, limits, False),
        )
    namespace = {"user": policy.user}
    plain = phase("the query, plain Python", lambda: eval(args.query, namespace))
    print(
        f"{args.directory}: result {reply.get('result_json')} (plain {plain}),"
        f" immutable {immutable}"
    )
    for label, seconds in SPLIT.items():
        print(f"{label:<48} {seconds:7.3f} s CPU")


if __name__ == "__main__":
    main()
