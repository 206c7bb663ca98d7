"""Scheduled passes over many unchanged subjects: a new day vs. the same day again.

Run from the repository root with the project's virtualenv:

    python bench/scheduled.py                 # 1,000 subjects
    python bench/scheduled.py --subjects 200  # smaller

S subjects as in bench/alerts.py (a passport, a trip, four transactions; seeded), written
with `react=False`; then, in one process: the first `run_once` (compiles every subject and
evaluates it), a pass a day later (nothing changed, but `today` moved: every subject is
evaluated again, since checks depend on the date), and a pass on that same day again
(nothing changed at all: checkpoints, date, config and alert rows as the last evaluation
left them, so subjects are skipped without importing their checkpoints); `--days` new days
in a row, each followed by the same day again, medians reported. Baseline in the same run:
listing the tenant's subjects (`Store.subjects`), the floor of any pass.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import benchpath  # first: takes bench/ off sys.path (a stdlib-named script here shadows the stdlib)

from uac.checks.scheduler import run_once
from uac.runtime.api.memory import Memory

alerts = benchpath.sibling("alerts")


def main() -> None:
    """Build the subjects, run the three passes, print seconds and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=1_000)
    parser.add_argument("--days", type=int, default=3, help="new days passed (medians)")
    args = parser.parse_args()
    rng = random.Random(20261129)
    out: dict = {"subjects": args.subjects, "load_average_start": os.getloadavg()}
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "ws", create=True, react=False) as mem,
    ):
        for n in range(args.subjects):
            name = f"u{n:05d}"
            expiry = dt.date(2025, 1, 1) + dt.timedelta(days=rng.randint(0, 3000))
            mem.set(name, "identity.passport.expiry_date", expiry.isoformat(), now=alerts.T0)
            depart = alerts.TODAY + dt.timedelta(days=rng.randint(-30, 200))
            trip = {"country": rng.choice(alerts.COUNTRIES), "depart": depart.isoformat()}
            mem.import_records(name, "trips", [trip], now=alerts.T0)
            mem.import_records(name, "transactions", alerts._transactions(4, rng), now=alerts.T0)

        def compile_fn(addr):
            return mem.compile(str(addr))

        def timed(day: dt.date) -> float:
            started = time.perf_counter()
            job = run_once(mem.home, "default", day, compile_fn, store=mem.store)
            assert not job.errors, list(job.errors.items())[:3]
            return time.perf_counter() - started

        out["first_s"] = timed(alerts.TODAY)
        next_days, same_days, listings = [], [], []
        for n in range(1, args.days + 1):  # each: a new day, then that same day again
            next_day = alerts.TODAY + dt.timedelta(days=n)
            next_days.append(timed(next_day))
            same_days.append(timed(next_day))
            started = time.perf_counter()
            mem.store.subjects("default")
            listings.append(time.perf_counter() - started)
        out["next_day_runs_s"] = [round(v, 4) for v in next_days]
        out["same_day_again_runs_s"] = [round(v, 4) for v in same_days]
        out["next_day_s"] = statistics.median(next_days)
        out["same_day_again_s"] = statistics.median(same_days)
        out["list_subjects_s"] = statistics.median(listings)
    out = {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}
    out["next_day_over_same_day"] = round(out["next_day_s"] / out["same_day_again_s"], 1)
    out["same_day_over_listing"] = round(out["same_day_again_s"] / out["list_subjects_s"], 1)
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
