"""Write tests/slow_tests.txt from one full run's `--durations=0` report.

    CI=true python -m pytest -q --durations=0 > run.txt
    python tests/slow_list.py run.txt --threshold 2

Sums setup, call and teardown per test id and lists, longest first, every test over the
threshold (seconds); the header of the list is kept and its source line replaced. It prints
how much of the measured time the fast tier (`-m "not slow"`) keeps, to pick the threshold.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
from collections import defaultdict
from pathlib import Path

SLOW_TESTS = Path(__file__).with_name("slow_tests.txt")
LINE = re.compile(r"^\s*([\d.]+)s (?:setup|call|teardown)\s+(\S.*?)\s*$")


def durations(report: str) -> dict[str, float]:
    """Seconds per test id (setup + call + teardown) in a `--durations=0` report."""
    total: dict[str, float] = defaultdict(float)
    for line in report.splitlines():
        if m := LINE.match(line):
            total[m.group(2)] += float(m.group(1))
    return dict(total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="the output of a full run with --durations=0")
    parser.add_argument("--threshold", type=float, default=2.0, help="seconds (default: 2)")
    args = parser.parse_args()
    seconds = durations(args.report.read_text(encoding="utf-8", errors="replace"))
    if not seconds:
        raise SystemExit(f"{args.report} holds no --durations=0 lines; nothing written")
    slow = sorted(((s, t) for t, s in seconds.items() if s > args.threshold), reverse=True)
    head = SLOW_TESTS.read_text(encoding="utf-8").split("# Source")[0]
    when = dt.date.today()
    source = f"# Source: a full run's report of {when}, threshold {args.threshold:g} s.\n"
    SLOW_TESTS.write_text(
        head + source + "".join(f"{s:.1f} {t}\n" for s, t in slow), encoding="utf-8"
    )
    kept = sum(seconds.values()) - sum(s for s, _ in slow)
    print(
        f"{len(slow)} of {len(seconds)} tests slow; the fast tier keeps {kept:.0f} s of"
        f" {sum(seconds.values()):.0f} s measured ({kept / sum(seconds.values()):.0%})"
    )


if __name__ == "__main__":
    main()
