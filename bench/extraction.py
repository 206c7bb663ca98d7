"""Extraction benchmark: precision, recall and throughput of learning from conversation.

Run from the repository root with the project's virtualenv:

    python bench/extraction.py              # scores per split and domain, throughput
    python bench/extraction.py --errors     # also list every false positive / negative
    python bench/extraction.py --append     # also time appending each batch to DuckDB

The corpus is bench/data/extraction_corpus.jsonl: one user (or assistant) message per line
with its timestamp, session and the facts a careful human would record ("expected": path
plus the key values that must match). Split "heldout" was written before the rules were
tuned and is reported separately ("heldout-a" and "heldout-b", see RESULTS-extraction.md);
"dev" was used while tuning.

What is scored: the facts in the Batch that `fact_log.pipeline.build_message_batch` (check ->
safety -> patterns -> evidence -> gate -> batch, source automatic_rule) produces, i.e. what
would be appended. A predicted fact matches an expected one when the path is equal and every
expected value matches (dates/decimals by value, strings case-insensitively); each prediction
matches at most once.
A domain is the first part of the path (travel, health, ...).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.pipeline import build_message_batch
from uac.fact_log.store import Batch, NewFact

CORPUS = Path(__file__).with_name("data") / "extraction_corpus.jsonl"
ADDRESS = Address("default", "user", "bench")


def load(path: Path) -> list[dict[str, Any]]:
    """The corpus rows."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def same(expected: Any, got: Any) -> bool:
    """Whether a predicted value equals the expected one (typed where it matters)."""
    if got is None:
        return False
    if isinstance(got, dt.datetime):
        return got.isoformat().startswith(str(expected))
    if isinstance(got, dt.date):
        return got.isoformat() == str(expected)
    if isinstance(got, Decimal | int) and not isinstance(got, bool):
        try:
            return Decimal(str(expected)) == Decimal(got)
        except InvalidOperation:
            return False
    if isinstance(got, list):
        return str(expected).casefold() in [str(g).casefold() for g in got]
    return str(got).casefold().strip() == str(expected).casefold().strip()


def matches(exp: dict[str, Any], fact: NewFact) -> bool:
    """Whether a fact satisfies one expected fact."""
    if fact.path != exp["path"]:
        return False
    for key, want in exp["values"].items():
        got = fact.value if key == "value" and not isinstance(fact.value, dict) else None
        if isinstance(fact.value, dict):
            got = fact.value.get(key)
        if not same(want, got):
            return False
    return True


def batch_for(catalog: Catalog, row: dict[str, Any]) -> Batch:
    """Run the write path on one corpus row."""
    observed = dt.datetime.fromisoformat(row["observed_at"])
    return build_message_batch(
        catalog,
        ADDRESS,
        row["text"],
        observed_at=observed,
        recorded_at=observed,
        role=row.get("role", "user"),
        session_id=row.get("session"),
    )


def score(catalog: Catalog, rows: list[dict[str, Any]], errors: bool) -> dict[str, dict[str, int]]:
    """True/false positives and false negatives per domain (and 'all')."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    for row in rows:
        facts = [f for f in batch_for(catalog, row).facts if f.kind != "note"]
        unmatched = list(facts)
        for exp in row["expected"]:
            domain = exp["path"].split(".")[0]
            hit = next((f for f in unmatched if matches(exp, f)), None)
            if hit is not None:
                unmatched.remove(hit)
                counts[domain]["tp"] += 1
                counts["all"]["tp"] += 1
            else:
                counts[domain]["fn"] += 1
                counts["all"]["fn"] += 1
                if errors:
                    print(f"  FN {row['id']}: {exp['path']} {exp['values']}  <- {row['text']!r}")
        for fact in unmatched:
            domain = fact.path.split(".")[0]
            counts[domain]["fp"] += 1
            counts["all"]["fp"] += 1
            if errors:
                print(f"  FP {row['id']}: {fact.path} {fact.value!r}  <- {row['text']!r}")
    return counts


def ratio(num: int, den: int) -> str:
    """A 3-decimal ratio, or n/a."""
    return f"{num / den:.3f}" if den else "n/a"


def table(title: str, counts: dict[str, dict[str, int]], messages: int) -> str:
    """A Markdown table of precision/recall per domain."""
    lines = [
        f"### {title} ({messages} messages)",
        "",
        "| domain | expected | predicted | correct | precision | recall |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for domain in sorted(counts, key=lambda d: (d == "all", d)):
        c = counts[domain]
        pred, exp = c["tp"] + c["fp"], c["tp"] + c["fn"]
        name = "**overall**" if domain == "all" else domain
        lines.append(
            f"| {name} | {exp} | {pred} | {c['tp']} | {ratio(c['tp'], pred)} | "
            f"{ratio(c['tp'], exp)} |"
        )
    return "\n".join(lines)


def throughput(catalog: Catalog, rows: list[dict[str, Any]], repeat: int) -> float:
    """Messages per second through build_message_batch (median of runs)."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for row in rows:
            batch_for(catalog, row)
        runs.append(len(rows) / (time.perf_counter() - start))
    return sorted(runs)[len(runs) // 2]


def append_throughput(rows: list[dict[str, Any]]) -> float:
    """Messages per second including Store.append into a fresh DuckDB workspace."""
    from uac import Memory

    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "ws", create=True, react=False) as mem,
    ):
        start = time.perf_counter()
        for row in rows:
            mem.store.append(batch_for(mem.catalog, row))
        return len(rows) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    """Score the corpus and print Markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--errors", action="store_true", help="list every error")
    parser.add_argument("--append", action="store_true", help="also time DuckDB appends")
    parser.add_argument("--repeat", type=int, default=5, help="throughput runs (median)")
    args = parser.parse_args(argv)
    catalog = Catalog.load()
    rows = load(args.corpus)
    for split in sorted({r["split"] for r in rows}):
        part = [r for r in rows if r["split"] == split]
        if part:
            print(table(f"split: {split}", score(catalog, part, args.errors), len(part)))
            print()
    print(table("all messages", score(catalog, rows, False), len(rows)))
    print()
    rate = throughput(catalog, rows, args.repeat)
    print(f"throughput (rules + safety + evidence + gate, no I/O): {rate:,.0f} messages/s")
    if args.append:
        print(f"throughput including Store.append: {append_throughput(rows):,.0f} messages/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
