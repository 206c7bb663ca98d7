"""A one-shot local `uac add` and a new query of `uac search`, against `python -c pass`.

Run from the repository root with the project's virtualenv:

    python bench/cli_add.py                       # this checkout, 15 pairs per command
    python bench/cli_add.py --before BEFORE-WRAPPER --after AFTER-WRAPPER

A wrapper is an executable that runs a checkout's CLI (`python -m uac.runtime.cli "$@"` with
that checkout first on PYTHONPATH); the default is this interpreter's `uac.runtime.cli`.
Builds the demo workspace once (`uac demo --quiet`, with the "after" side), then gives each
command and side a copy of it, so every side's log grows alike. Each command runs once per
side unmeasured (a first run writes the caches a user's second run finds), then in pairs:
`python -c pass`, one side, `python -c pass`, the other side, the sides' order alternating.
CPU is the user + system time of the process and the children it waited for
(`os.wait4`); a ratio is a side's CPU over the mean of its pair's two `python -c pass`,
reported as the median over the pairs (min-max), with the sides' own ratio pair by pair.

The commands (issue 36's targets: an add at most 12x, a search at most 6x):

- add, no window encoded: "I like green tea." (no frame's cue, no time an uncued frame
  could fill: the frames' pre-filter encodes nothing);
- add, a window encoded: "Had a lovely walk today." (learns nothing either);
- add that learns a fact: "My cousin NAME lives in Porto." (a new contact each pair: a
  compile, its validator and the checks);
- search, a new query: a query no earlier run asked (its vector computed by the encoder).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NAMES: tuple[str, ...] = ("Bea", "Cleo", "Dina", "Elsa", "Fay", "Gita", "Hana", "Iris", "Jade")
NAMES += ("Kira", "Lena", "Mira", "Nora", "Olga", "Pia", "Rosa", "Sara", "Tess", "Uma", "Vera")
TOPICS = ("flights", "allergy", "dentist", "budget", "climbing", "visa", "rent", "trains")
KINDS = {
    "add, no window encoded": lambda n: ["add", "maya", "I like green tea."],
    "add, a window encoded": lambda n: ["add", "maya", "Had a lovely walk today."],
    "add that learns a fact": lambda n: ["add", "maya", f"My cousin {_name(n)} lives in Porto."],
    "search, a new query": lambda n: ["search", "maya", _query(n)],
}


def _name(n: int) -> str:
    return NAMES[n % len(NAMES)] if n >= 0 else "Zoe"


def _query(n: int) -> str:
    return f"anything about {TOPICS[n % len(TOPICS)]} {n // len(TOPICS)} ({os.getpid()})?"


def cpu(argv: list[str]) -> float:
    """CPU seconds of one command run to completion (and its children); fails loudly."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read() if proc.stderr else b""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv} failed: {err.decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--after", help="wrapper of the checkout measured (default: this one)")
    ap.add_argument("--before", help="wrapper of the checkout to compare with (optional)")
    ap.add_argument("--pairs", type=int, default=15)
    ap.add_argument("--only", action="append", help="run only these commands (see KINDS)")
    args = ap.parse_args(argv)
    here = [sys.executable, "-m", "uac.runtime.cli"]
    sides = {"after": [args.after] if args.after else here}
    if args.before:
        sides["before"] = [args.before]
    floor = [sys.executable, "-c", "pass"]
    print(f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="uac-cli-add-") as tmp:
        demo = Path(tmp) / "demo"
        cpu([*sides["after"], "demo", "--home", str(demo), "--quiet"])
        for kind, command in KINDS.items():
            if args.only and kind not in args.only:
                continue
            homes = {side: Path(tmp) / f"{kind}-{side}" for side in sides}
            for side, home in homes.items():
                shutil.copytree(demo, home)
                cpu([*sides[side], "--home", str(home), *command(-1)])  # unmeasured
            load = os.getloadavg()[0]
            started = time.strftime("%H:%M:%S")
            runs: dict[str, list[float]] = {side: [] for side in sides}
            ratios: dict[str, list[float]] = {side: [] for side in sides}
            order = list(sides)
            for n in range(args.pairs):
                for side in order if n % 2 == 0 else order[::-1]:
                    base = cpu(floor)
                    took = cpu([*sides[side], "--home", str(homes[side]), *command(n)])
                    base = (base + cpu(floor)) / 2
                    runs[side].append(took)
                    ratios[side].append(took / base)
            ended = os.getloadavg()[0]
            print(f"\n{kind} ({args.pairs} pairs, {started}, load {load:.1f}-{ended:.1f})")
            for side in sides:
                r = ratios[side]
                print(
                    f"  {side:6} {statistics.median(runs[side]):.3f} s CPU, "
                    f"{statistics.median(r):.2f}x python -c pass ({min(r):.2f}-{max(r):.2f})"
                )
            if "before" in sides:
                each = [a / b for a, b in zip(runs["after"], runs["before"], strict=True)]
                print(f"  after / before, pair by pair: {statistics.median(each):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
