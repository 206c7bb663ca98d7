"""Query pool under contention: many threads querying more subjects than pools kept warm.

Run from the repository root with the project's virtualenv:

    python bench/query_pool.py                       # 12 subjects, 64 threads, 5 queries each
    python bench/query_pool.py --subjects 16 --threads 64 --per-thread 10
    python bench/query_pool.py --serve               # the same load through a real `uac serve`

Each subject gets its own name (`Person 7 ...`) and its own number of trips; every query
asks for both and the answer is checked against that subject's own values. Counted:
answers (right), wrong answers (another subject's or garbled), errors (by message), the
wall time, and with `--serve` the seconds `uac serve` took to exit after SIGTERM. Bounded:
threads x per-thread queries, each with a client timeout; loopback only.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from uac import Client, Memory

TODAY = dt.date(2026, 11, 29)
PROGRAM = "[user.identity.name, len(user.trips)]"


def expected(i: int) -> list[Any]:
    """What subject i's query must answer."""
    return [f"Person {i} of the pool", i % 5 + 1]


def populate(home: Path, subjects: int) -> None:
    """Write and compile `subjects` subjects with distinct values."""
    with Memory(home, create=True) as mem:
        for i in range(subjects):
            name = f"s{i}"
            mem.set(name, "identity.name", expected(i)[0])
            trips = [
                {"country": "JP", "city": f"City {i}-{k}", "depart": f"2024-0{k + 1}-01"}
                for k in range(expected(i)[1])
            ]
            mem.import_records(name, "trips", trips)
            mem.compile(name)


def hammer(ask: Any, subjects: int, threads: int, per_thread: int, seed: int) -> dict[str, Any]:
    """Run the load; `ask(subject, program)` returns an envelope or raises."""
    tally: collections.Counter[str] = collections.Counter()
    errors: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()

    def work(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        for _ in range(per_thread):
            i = rng.randrange(subjects)
            try:
                env = ask(f"s{i}", PROGRAM)
            except Exception as exc:
                with lock:
                    tally["error"] += 1
                    errors[f"{type(exc).__name__}: {str(exc)[:120]}"] += 1
                continue
            with lock:
                if not env.get("ok"):
                    tally["error"] += 1
                    errors[str(env.get("error", {}).get("message", env))[:120]] += 1
                elif env["result"] == expected(i):
                    tally["right"] += 1
                else:
                    tally["wrong"] += 1
                    errors[f"wrong: s{i} got {json.dumps(env['result'])[:80]}"] += 1

    started = time.monotonic()
    pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return {
        "queries": threads * per_thread,
        "right": tally["right"],
        "wrong": tally["wrong"],
        "errors": tally["error"],
        "error_messages": dict(errors.most_common(8)),
        "seconds": round(time.monotonic() - started, 2),
    }


def in_process(home: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The load on one shared `Memory`."""
    with Memory(home) as mem:
        return hammer(
            lambda s, p: mem.query(s, p, today=TODAY),
            args.subjects,
            args.threads,
            args.per_thread,
            args.seed,
        )


def served(home: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The load through a real `uac serve` on 127.0.0.1, then SIGTERM and its exit time."""
    env = {k: v for k, v in os.environ.items() if k not in ("UAC_URL", "UAC_API_KEY")}
    cmd = [sys.executable, "-m", "uac.runtime.cli", "--home", str(home), "serve", "--port", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    info = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        path = home / "server.json"
        if path.exists():
            data = json.loads(path.read_text())
            if data.get("pid") == proc.pid:
                info = data
                break
        time.sleep(0.1)
    if info is None:
        proc.kill()
        raise SystemExit("uac serve did not start")
    client = Client(info["url"], info["admin_token"], tenant="default", timeout=120)
    result = hammer(
        lambda s, p: client.query(s, p, today=TODAY.isoformat()),
        args.subjects,
        args.threads,
        args.per_thread,
        args.seed,
    )
    # SIGTERM while a second wave of queries is in flight.
    load = threading.Thread(
        target=hammer,
        args=(
            lambda s, p: client.query(s, p, today=TODAY.isoformat()),
            args.subjects,
            args.threads,
            args.per_thread,
            args.seed + 1,
        ),
        daemon=True,
    )
    load.start()
    time.sleep(1.0)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=args.stop_bound)
        result["sigterm_exit_s"] = round(time.monotonic() - sent, 2)
        result["exit_code"] = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        result["sigterm_exit_s"] = f"> {args.stop_bound} (killed)"
    return result


def main() -> None:
    """Parse arguments, build the workspace, run the load, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=12)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--per-thread", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--serve", action="store_true", help="through a real `uac serve`")
    parser.add_argument("--stop-bound", type=float, default=60.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="uac-bench-pool-") as tmp:
        home = Path(tmp) / "ws"
        populate(home, args.subjects)
        result = served(home, args) if args.serve else in_process(home, args)
    result.update(subjects=args.subjects, threads=args.threads, per_thread=args.per_thread)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
