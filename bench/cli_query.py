"""CLI start-up and a one-shot `uac query` on the demo, with baselines in the same run.

Run from the repository root with the project's virtualenv:

    python bench/cli_query.py            # 9 rounds
    python bench/cli_query.py --quick    # 3 rounds
    python bench/cli_query.py --reads    # every read command too (facts, why, diff, ...)

Builds the demo workspace (`uac demo --home TMP`), then runs each command once per round,
rounds alternating so load drifts hit every command alike, and reports per command the
median wall time and the median CPU (user + system of the command and the children it
waited for, so the query's zygote counts). Baseline: `python -c pass` (the interpreter's
floor), run in every round: each command's CPU over the interpreter's is the median of the
per-round ratios (the read commands' target: at most 6x), so a load that drifts between
rounds moves both sides of a ratio alike.

Every command runs once before the rounds, unmeasured: the demo writes after its own
search, so the first `uac search` indexes what it wrote (a write: the full verb); after it a
search reads the index as it stands (runtime/api/lean_recall.py). A repeated query's vector
comes from the workspace's query cache; `--reads` also runs a search with a query never
asked before in each round (its vector computed by the encoder), so both costs are in the
table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERY = "sum(t.amount for t in user.transactions if t.date.year == 2025)"
NEW_QUERY = "{new query}"  # a query no round asked before (`fresh`)
TOPICS = ("flights", "allergy", "dentist", "budget", "climbing", "visa", "rent", "trains")


def fresh(n: int) -> str:
    """The n-th round's new query: words no earlier round used."""
    return f"anything about {TOPICS[n % len(TOPICS)]} {n // len(TOPICS)}?"


# The read commands on the demo's subject (`--reads`).
READS = [
    ["facts", "maya"],
    ["why", "maya", "user.passport.expiry_date"],
    ["diff", "maya"],
    ["alerts", "maya"],
    ["questions", "maya"],
    ["search", "maya", "passport"],
    ["search", "maya", NEW_QUERY],
    ["context", "maya"],
    ["subjects"],
    ["verify"],
    ["inputs", "maya"],
    ["rejections", "maya"],
    ["erasures", "maya"],
]


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one command run to completion; fails loudly if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr.strip()}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def main() -> None:
    """Run the benchmark and print (and optionally save) the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--reads", action="store_true", help="every read command too")
    parser.add_argument(
        "--uac", help="the uac command to measure (default: the one beside this interpreter)"
    )
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    uac = args.uac or shutil.which("uac") or str(Path(sys.executable).with_name("uac"))
    out: dict = {
        "machine": f"{os.cpu_count()} vCPU, {platform.processor() or platform.machine()}",
        "python": platform.python_version(),
        "rounds": rounds,
        "load_average_start": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        home = str(Path(tmp) / "demo")
        timed([uac, "demo", "--home", home, "--quiet"])
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "uac --help": [uac, "--help"],
            "uac query (demo, yearly sum)": [
                uac, "query", "--home", home, "maya", QUERY, "--today", "2026-11-29"
            ],
            "uac manifest maya": [uac, "manifest", "--home", home, "maya"],
        }  # fmt: skip
        if args.reads:
            for argv in READS:
                commands[f"uac {' '.join(argv)}"] = [uac, argv[0], "--home", home, *argv[1:]]
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for n in range(-1, rounds):  # round -1: the unmeasured warm-up
            for name, argv in commands.items():
                took = timed([fresh(n + 1) if a == NEW_QUERY else a for a in argv])
                if n >= 0:
                    samples[name].append(took)
    rows = {}
    for name, values in samples.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        rows[name] = {"wall_ms": round(wall * 1000, 1), "cpu_ms": round(cpu * 1000, 1)}
        print(f"{name:<40} wall {wall * 1000:8.1f} ms   cpu {cpu * 1000:8.1f} ms", flush=True)
    floor = samples["python -c pass"]
    for name, row in rows.items():
        pairs = list(zip(samples[name], floor, strict=True))
        row["wall_over_python"] = round(statistics.median(a[0] / b[0] for a, b in pairs), 1)
        row["cpu_over_python"] = round(statistics.median(a[1] / b[1] for a, b in pairs), 1)
    out["commands"] = rows
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
