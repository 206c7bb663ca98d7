"""Progress benchmark: what reporting an import's progress costs.

Run from the repository root with the project's virtualenv:

    python -P bench/progress.py              # 20,000 records, 3 runs of each
    python -P bench/progress.py --records 60000 --runs 3

(-P: a stdlib-named script here would otherwise shadow the standard library's `secrets`.)

What is timed: `Memory.import_file` of N transactions (JSON Lines, a fresh workspace each
run, reacting: append + compile + checks) with no progress callback (the baseline) and with
a `runtime.progress_display.Progress` in log mode writing to a real file (the CLI's path when stderr
is not a terminal), alternated so load drifts hit both alike. Reported: the median of each,
their ratio, and the stages the reporter saw with the wall time spent in each (from the
last run), which is what a user watching a long import sees.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from uac import Memory
from uac.runtime.progress_display import Progress


def write_file(path: Path, n: int) -> None:
    """N transactions as JSON Lines."""
    with path.open("w") as out:
        for i in range(n):
            record = {
                "date": f"20{10 + i % 15}-{1 + i % 12:02d}-{1 + i % 28:02d}",
                "amount": f"{(i * 37) % 9999 / 100:.2f}",
                "merchant": f"shop {i % 300}",
                "category": ("dining", "groceries", "rent", "travel")[i % 4],
            }
            out.write(json.dumps(record) + "\n")


def one_import(src: Path, with_progress: bool) -> tuple[float, list[tuple[str, float]]]:
    """Seconds for one import into a fresh workspace, and time per stage when reported."""
    stages: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="uac-bench-progress-") as tmp:
        log = open(Path(tmp) / "progress.log", "w")  # noqa: SIM115 - closed below
        bar = Progress("importing", stream=log, interval=1.0)

        def report(stage: str, done: int, total: int) -> None:
            if not stages or stages[-1][0] != stage:
                stages.append((stage, time.perf_counter()))
            bar.report(stage, done, total)

        with Memory(Path(tmp) / "ws", create=True) as mem:
            started = time.perf_counter()
            mem.import_file(
                "bench", "transactions", src, progress=report if with_progress else None
            )
            elapsed = time.perf_counter() - started
        if with_progress:
            bar.close()
        log.close()
    if not stages:
        return elapsed, []
    ends = [t for _, t in stages[1:]] + [started + elapsed]
    return elapsed, [(name, end - t) for (name, t), end in zip(stages, ends, strict=True)]


def main() -> int:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="uac-bench-progress-src-") as tmp:
        src = Path(tmp) / "tx.jsonl"
        write_file(src, args.records)
        plain: list[float] = []
        shown: list[float] = []
        stages: list[tuple[str, float]] = []
        for _ in range(args.runs):
            plain.append(one_import(src, False)[0])
            seconds, stages = one_import(src, True)
            shown.append(seconds)
    base, with_bar = statistics.median(plain), statistics.median(shown)
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}"
    )
    print(f"\n| import of {args.records:,} transactions | median s (of {args.runs}) |")
    print("|---|---|")
    print(f"| no progress (baseline) | {base:.2f} |")
    print(f"| with progress (log mode) | {with_bar:.2f} |")
    print(f"| ratio | {with_bar / base:.3f} |")
    print("\n| stage (last run) | s |")
    print("|---|---|")
    for name, seconds in stages:
        print(f"| {name} | {seconds:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
