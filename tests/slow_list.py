"""Write tests/slow_tests.txt from a run's `--durations=0 --durations-min=0` report.

    CI=true python -m pytest -q --durations=0 --durations-min=0 > run.txt
    python tests/slow_list.py run.txt --threshold 2

    CI=true python -m pytest -m "not slow" -q --durations=0 --durations-min=0 > fast.txt
    python tests/slow_list.py fast.txt --threshold 0.5 --add

Sums setup, call and teardown per test id and lists, longest first, every test over the
threshold (seconds). A full run's report rewrites the list; with `--add` (a report of the fast
tier alone) its tests over the threshold join the list and every entry the report does not
time is kept. Each test module keeps its cheapest test in the fast tier, so the fast tier still
runs every module's behaviour once, unless even that test is over `--module-cap` seconds. The
header of the list is kept and its source line replaced. It prints how much of the measured
time the fast tier keeps, to pick the threshold.
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


def listed() -> dict[str, float]:
    """The slow list as it is: seconds per test id."""
    lines = SLOW_TESTS.read_text(encoding="utf-8").splitlines()
    pairs = (ln.split(None, 1) for ln in lines if ln.strip() and ln[0] != "#")
    return {test: float(seconds) for seconds, test in pairs}


def slow_tests(seconds: dict[str, float], threshold: float, module_cap: float) -> dict[str, float]:
    """The tests of one report over the threshold, less each module's cheapest if none of the
    module's tests would stay fast (and that one is at most `module_cap` seconds)."""
    slow = {t: s for t, s in seconds.items() if s > threshold}
    modules: dict[str, list[str]] = defaultdict(list)
    for test in seconds:
        modules[test.split("::")[0]].append(test)
    for tests in modules.values():
        if all(t in slow for t in tests):
            cheapest = min(tests, key=seconds.__getitem__)
            if seconds[cheapest] <= module_cap:
                del slow[cheapest]
    return slow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="the output of a run with --durations=0")
    parser.add_argument("--threshold", type=float, default=2.0, help="seconds (default: 2)")
    parser.add_argument(
        "--module-cap",
        type=float,
        default=None,
        help="seconds: a module's cheapest test stays fast only up to this (default: 10x the"
        " threshold)",
    )
    parser.add_argument(
        "--add",
        action="store_true",
        help="the report is of the fast tier: add its slow tests, keep every other entry",
    )
    parser.add_argument(
        "--note", default="", help="said of the run in the list's header, e.g. ' (load 30)'"
    )
    args = parser.parse_args()
    seconds = durations(args.report.read_text(encoding="utf-8", errors="replace"))
    if not seconds:
        raise SystemExit(f"{args.report} holds no --durations=0 lines; nothing written")
    cap = 10 * args.threshold if args.module_cap is None else args.module_cap
    slow = slow_tests(seconds, args.threshold, cap)
    kept = {t: s for t, s in listed().items() if t not in seconds} if args.add else {}
    entries = sorted(((s, t) for t, s in {**kept, **slow}.items()), reverse=True)
    head = SLOW_TESTS.read_text(encoding="utf-8").split("# Source")[0]
    what = "the fast tier's report" if args.add else "a full run's report"
    source = (
        f"# Source: {what} of {dt.date.today()}{args.note}, threshold {args.threshold:g} s,"
        f" module cap {cap:g} s" + ("; entries of earlier runs kept.\n" if args.add else ".\n")
    )
    SLOW_TESTS.write_text(
        head + source + "".join(f"{s:.1f} {t}\n" for s, t in entries), encoding="utf-8"
    )
    total = sum(seconds.values())
    fast = total - sum(slow.values())
    print(
        f"{len(slow)} of {len(seconds)} timed tests slow ({len(entries)} listed); the fast tier"
        f" keeps {fast:.0f} s of {total:.0f} s measured ({fast / total:.0%})"
    )


if __name__ == "__main__":
    main()
