"""Throughput of the extraction stage alone, for comparing two revisions of the rules.

The pass of `bench/extraction.py` (`build_message_batch` per message with the session's
earlier messages, no I/O) over any of the sets in bench/extraction_data, as messages per CPU
second (median of `--repeat` passes). It imports `uac` from whichever environment runs it,
so one copy of this script measures an older revision run by that revision's interpreter:

    python bench/extraction_throughput.py --sets dev,heldout
    python bench/extraction_throughput.py --sets dev,heldout --cold   # each message met once
    /path/to/old-checkout/.venv/bin/python bench/extraction_throughput.py --sets blind4

Alternate the two a few times and compare medians: a shared machine drifts.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import time
from collections import defaultdict
from pathlib import Path

import benchpath  # noqa: F401 (takes bench/ off sys.path: stdlib-named scripts live there)

DATA = Path(__file__).resolve().with_name("extraction_data")


def clear_caches() -> None:
    """Forget every answer the extractor remembers (older revisions: each cache by name)."""
    from uac.fact_log.extraction import patterns

    if hasattr(patterns, "clear_caches"):
        patterns.clear_caches()
        return
    # revisions before patterns.clear_caches (session 10): the same caches, one by one
    from uac.fact_log.extraction.patterns import dates, discourse, money, text

    discourse.MEMO.data.clear()
    money._FOUND.clear()
    dates._dates_of.cache_clear()
    for guard in vars(text).values():  # the guards all live in text.py there
        if isinstance(guard, text.Guard):
            guard._answers.clear()


def main(argv: list[str] | None = None) -> int:
    """Print the median messages per CPU second of the extraction stage over the sets."""
    from uac.fact_log.addressing import Address
    from uac.fact_log.catalog import Catalog
    from uac.fact_log.pipeline import HISTORY_LIMIT, build_message_batch

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="dev,heldout", help="comma-separated set names")
    parser.add_argument("--repeat", type=int, default=5, help="passes (median)")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="forget what earlier passes read (as a service meeting each message once): "
        "every cache of the extractor is cleared (patterns.clear_caches) before each pass, "
        "which reads every message as itself and as its successors' history",
    )
    args = parser.parse_args(argv)
    rows = []
    for name in args.sets.split(","):
        with (DATA / f"{name}.jsonl").open(encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    sessions: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        sessions[row["session"]].append(row)
    catalog, address = Catalog.load(), Address("default", "user", "bench")

    def one_pass() -> None:
        for part in sessions.values():
            history: list[tuple[str, dt.datetime]] = []
            for row in sorted(part, key=lambda r: r["observed_at"]):
                at = dt.datetime.fromisoformat(row["observed_at"])
                build_message_batch(
                    catalog,
                    address,
                    row["text"],
                    observed_at=at,
                    recorded_at=at,
                    role=row.get("role", "user"),
                    session_id=row["session"],
                    history=history[-HISTORY_LIMIT:],
                )
                history.append((row["text"], at))

    one_pass()  # warm: compiled patterns, reference data
    rates = []
    for _ in range(args.repeat):
        if args.cold:
            clear_caches()
        start = time.process_time()
        one_pass()
        rates.append(len(rows) / max(time.process_time() - start, 1e-9))
    print(f"{sorted(rates)[len(rates) // 2]:.0f} messages per CPU second over {len(rows)} messages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
