"""Extraction benchmark: precision, recall and throughput of learning from conversation.

Run from the repository root with the project's virtualenv:

    python bench/extraction.py                # the session set: dev and held-out halves
    python bench/extraction.py --errors       # also list every false positive / negative
    python bench/extraction.py --corpus bench/data/extraction_corpus.jsonl   # the old set
    python bench/extraction.py --set fresh    # the fresh blind held-out set (fresh.jsonl)
    python bench/extraction.py --set blind2   # the next blind set (blind2.jsonl), run once
    python bench/extraction.py --set blind3   # the third blind set (blind3.jsonl), run once
    python bench/extraction.py --set blind4   # the fourth blind set (blind4.jsonl), run once
    python bench/extraction.py --set blind5   # the fifth blind set (blind5.jsonl), run once
    python bench/extraction.py --set blind6   # the sixth blind set (blind6.jsonl), run once
    python bench/extraction.py --set blind7   # the seventh blind set (blind7.jsonl), run once
    python bench/extraction.py --set blind8   # the eighth blind set (blind8.jsonl), run once
    python bench/extraction.py --set blind9   # the ninth blind set (blind9.jsonl), run once
    python bench/extraction.py --set blind10  # the tenth blind set (blind10.jsonl), run once
    python bench/extraction.py --set blind11  # the eleventh blind set (blind11.jsonl), run once
    python bench/extraction.py --set blind12  # the twelfth blind set (blind12.jsonl), run once
    python bench/extraction.py --set blind13  # the thirteenth blind set (blind13.jsonl), run once
    python bench/extraction.py --set blind14  # the fourteenth blind set (blind14.jsonl), run once
    python bench/extraction.py --set blind15  # the fifteenth blind set (blind15.jsonl), run once
    python bench/extraction.py --set blind16  # the sixteenth blind set (blind16.jsonl), run once
    python bench/extraction.py --set blind17  # the seventeenth blind set (blind17.jsonl), run once
    python bench/extraction.py --set blind18  # the eighteenth blind set (blind18.jsonl), run once
    python bench/extraction.py --set blind19  # the nineteenth blind set (blind19.jsonl), run once
    python bench/extraction.py --set blind20  # the twentieth blind set (blind20.jsonl), run once
    python bench/extraction.py --set blind4 --llm   # with the LLM extractor of UAC_LLM_*
    python bench/extraction.py --set blind8 --extractor compare   # rules alone, then + frames
    python bench/extraction.py --set fresh --predictions /tmp/fresh.json   # each message's facts
    python bench/extraction.py --set fresh --llm --sessions 3   # a quick check of a path

The session set is bench/extraction_data/{dev,heldout}.jsonl: user messages in dated
multi-message sessions (travel, health, finance, schedule, deadlines, contacts), each with
the typed facts a careful human would record from it ("expected": catalog path plus the
values that must match). The halves are split by session (even session numbers held out),
fixed; only "dev" may be used while tuning rules. `--set fresh` scores
bench/extraction_data/fresh.jsonl instead: a later held-out set in the same format, written
by another hand without reading the rules (extraction_data/README.md); never tune on it.
`--set blind2` scores blind2.jsonl, written the same way once `fresh` was tuned on, and
`--set blind3` blind3.jsonl, written the same way once `blind2` was tuned on, and
`--set blind4` blind4.jsonl, written the same way once `blind3` was tuned on, and
`--set blind5` blind5.jsonl, written the same way once `blind4` was tuned on, and
`--set blind6` blind6.jsonl, written the same way once `blind5` was tuned on, and
`--set blind7` blind7.jsonl, written the same way once `blind6` was opened for tuning, and
`--set blind8` blind8.jsonl, written the same way (session 12) before the frames, and
`--set blind9` blind9.jsonl, written the same way (session 13) before that session's
extraction changes, and `--set blind10` blind10.jsonl, written the same way (session 14) before
that session's extraction changes, and `--set blind11` blind11.jsonl, written the same way
(2026-12-06, after blind10) before the frames work of issue 32 is measured, and `--set blind12`
blind12.jsonl, written the same way (2026-12-06, after blind11) before that session's extraction
code of issue 32 landed, and `--set blind13` blind13.jsonl, written the same way (2026-12-07,
after blind12) before blind9 to blind11 were promoted to tuning sets, and `--set blind14`
blind14.jsonl, written the same way (2026-12-07, after blind13) before this session's extraction
changes were measured, and `--set blind15` blind15.jsonl, written the same way (2026-12-07, after
blind14) before this session's extraction changes were measured, and `--set blind16`
blind16.jsonl, written the same way (2026-12-07, after blind15) before this session's extraction
changes were measured, and `--set blind17` blind17.jsonl, written the same way (2026-12-07, after
blind16) before this session's extraction changes, and `--set blind18` blind18.jsonl, written the
same way (2026-12-07, after blind17) before this session's extraction changes, and `--set blind19`
blind19.jsonl, written the same way (2026-12-07, after blind18) before this session's extraction
changes, and `--set blind20` blind20.jsonl, written the same way (2026-12-07, after blind19) before
this session's extraction changes.

What is scored: each session is replayed, message by message and in order, through
`Memory.add(subject, text, at=..., session_id=...)` on a fresh workspace in a temp dir
(the path `uac add --at` takes: pipeline -> store; rules only, no LLM, no reactions), and
the facts it appended are compared with the expected ones. A prediction matches an
expected fact when the path is equal and every expected value matches: dates and datetimes
by prefix ("2026-03-24T19:00" matches 19:00:00), numbers by value, strings
case-insensitively, and a value written "~text" when the predicted string contains it.
Each prediction matches at most once. False facts are also counted by kind (from a message
that should teach nothing, a wrong value of a fact the message states, a path it does not
state): counts only, so a blind set can be run without reading its errors. Throughput is
measured separately on the extraction stage alone (`build_message_batch` with the session's
earlier messages, no I/O), each pass meeting every message once (the discourse memo is
cleared before it, as a fresh process would have it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import benchpath  # takes bench/ off sys.path (a stdlib-named script here)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.patterns import clear_caches
from uac.fact_log.pipeline import HISTORY_LIMIT, build_message_batch
from uac.fact_log.store import Batch

SESSIONS = Path(__file__).with_name("extraction_data")
ADDRESS = Address("default", "user", "bench")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")

Counts = dict[str, dict[str, int]]
Predicted = tuple[str, Any]  # (path, value) of one appended or batched fact


def load(path: Path) -> list[dict[str, Any]]:
    """The rows of one JSON Lines file."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def same(expected: Any, got: Any) -> bool:
    """Whether a predicted value equals the expected one (typed where it matters)."""
    if got is None:
        return False
    want = str(expected)
    if isinstance(got, list):
        return any(same(expected, g) for g in got)
    if isinstance(got, dt.date | dt.datetime):
        got = got.isoformat()
    text = str(got)
    if want.startswith("~"):
        return want[1:].casefold() in text.casefold()
    if _DATE.match(want):
        return text.startswith(want)
    if not isinstance(got, bool):
        try:
            return Decimal(want) == Decimal(text)
        except InvalidOperation:
            pass
    return text.casefold().strip() == want.casefold().strip()


def matches(exp: dict[str, Any], fact: Predicted) -> bool:
    """Whether a predicted fact satisfies one expected fact."""
    path, value = fact
    if path != exp["path"]:
        return False
    for key, want in exp["values"].items():
        got = value.get(key) if isinstance(value, dict) else (value if key == "value" else None)
        if not same(want, got):
            return False
    return True


def tally(counts: Counts, row: dict[str, Any], facts: list[Predicted], errors: bool) -> None:
    """Add one message's true/false positives and misses (per domain and 'all')."""
    unmatched = list(facts)
    missed: set[str] = set()  # paths of expected facts no prediction matched
    domain = row.get("domain") or "all"
    for exp in row["expected"]:
        hit = next((f for f in unmatched if matches(exp, f)), None)
        kind = "tp" if hit is not None else "fn"
        if hit is not None:
            unmatched.remove(hit)
        else:
            missed.add(exp["path"])
        if hit is None and errors:
            print(f"  FN {row['id']}: {exp['path']} {exp['values']}  <- {row['text']!r}")
        counts[domain][kind] += 1
        counts["all"][kind] += 1
    for path, value in unmatched:
        counts[domain]["fp"] += 1
        counts["all"]["fp"] += 1
        # What kind of false fact (aggregate only, so a blind set stays blind): one from a
        # message that should teach nothing, a wrong value of a fact the message does state,
        # or a fact of a path the message does not state.
        why = "empty" if not row["expected"] else "value" if path in missed else "path"
        counts["all"][f"fp_{why}"] += 1
        if errors:
            print(f"  FP {row['id']}: {path} {value!r}  <- {row['text']!r}")


def new_counts() -> Counts:
    """Empty per-domain counters."""
    return defaultdict(
        lambda: {"tp": 0, "fp": 0, "fn": 0, "fp_empty": 0, "fp_value": 0, "fp_path": 0}
    )


def false_kinds(counts: Counts) -> str:
    """One line: the false facts by kind (counts only: safe to print for a blind set)."""
    c = counts["all"]
    return (
        f"false facts: {c['fp']} = {c['fp_empty']} from messages that teach nothing + "
        f"{c['fp_value']} of a stated fact with a wrong value + {c['fp_path']} of a path "
        "the message does not state"
    )


def sessions(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Rows grouped by session, each in the order it was said."""
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[row["session"]].append(row)
    return {k: sorted(v, key=lambda r: r["observed_at"]) for k, v in sorted(out.items())}


def replay(
    rows: list[dict[str, Any]],
    errors: bool,
    llm: Any = None,
    predicted: dict[str, list[Predicted]] | None = None,
) -> Counts:
    """Replay every session through Memory.add on a fresh workspace and score what it appended.

    `llm` (LLMSettings) switches the LLM extractor on: the rules then add what it missed.
    `predicted`, when given, receives each message's asserted facts by its id.
    """
    from uac import Memory

    counts = new_counts()
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "ws", create=True, react=False, llm=llm) as mem,
    ):
        for name, part in sessions(rows).items():
            for row in part:
                at = dt.datetime.fromisoformat(row["observed_at"])
                learned = mem.add(f"bench-{name}", row["text"], at=at, session_id=name, now=at)
                # Asserted facts only: a correction's retract of the earlier record is not one.
                facts = [
                    (f.path, f.value)
                    for f in learned.facts
                    if f.kind != "note" and f.op == "assert"
                ]
                tally(counts, row, facts, errors)
                if predicted is not None:
                    predicted[row["id"]] = facts
        # An extractor that failed on a message is recorded, not raised (fact_log/pipeline.py):
        # counted here so a fault on a set shows, without its text (safe for a blind set).
        faults = sum(
            r["reason"] == "extractor_failed"
            for name in sessions(rows)
            for r in mem.rejections(f"bench-{name}")
        )
        if faults:
            print(f"extractor faults: {faults} message(s) (see the log of uac.fact_log.pipeline)")
    return counts


def batch_for(
    catalog: Catalog, row: dict[str, Any], history: list[tuple[str, dt.datetime]] | None = None
) -> Batch:
    """The extraction stage on one message (no store, no I/O)."""
    observed = dt.datetime.fromisoformat(row["observed_at"])
    return build_message_batch(
        catalog,
        ADDRESS,
        row["text"],
        observed_at=observed,
        recorded_at=observed,
        role=row.get("role", "user"),
        session_id=row.get("session"),
        history=history or (),
    )


def score_messages(catalog: Catalog, rows: list[dict[str, Any]], errors: bool) -> Counts:
    """Score each message on its own through the extraction stage (the old corpus)."""
    counts = new_counts()
    for row in rows:
        facts = [(f.path, f.value) for f in batch_for(catalog, row).facts if f.kind != "note"]
        row = {**row, "domain": row.get("domain") or "all"}
        tally(counts, row, facts, errors)
    return counts


def ratio(num: int, den: int) -> str:
    """A 3-decimal ratio, or n/a."""
    return f"{num / den:.3f}" if den else "n/a"


def table(title: str, counts: Counts, messages: int) -> str:
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


def throughput(run: Callable[[], int], repeat: int) -> tuple[float, float]:
    """Messages per wall-clock second and per CPU second of one pass (medians of runs)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        n = run()
        wall.append(n / (time.perf_counter() - start))
        cpu.append(n / max(time.process_time() - start_cpu, 1e-9))
    return sorted(wall)[len(wall) // 2], sorted(cpu)[len(cpu) // 2]


def extractors(choice: str) -> Iterator[str]:
    """Set the extractor for each replay in turn (UAC_FRAMES switches the frames off)."""
    for which in ("rules", "rules + frames") if choice == "compare" else (choice,):
        os.environ["UAC_FRAMES"] = "0" if which == "rules" else "1"
        yield which
    if choice == "rules":
        return
    os.environ["UAC_FRAMES"] = "1"


def main(argv: list[str] | None = None) -> int:
    """Score the set and print Markdown tables and the throughput."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, help="an old-style per-message corpus file")
    parser.add_argument("--errors", action="store_true", help="list every error")
    parser.add_argument("--split", choices=["dev", "heldout"], help="score one half only")
    parser.add_argument(
        "--set",
        choices=[
            "session",
            "fresh",
            "blind2",
            "blind3",
            "blind4",
            "blind5",
            "blind6",
            "blind7",
            "blind8",
            "blind9",
            "blind10",
            "blind11",
            "blind12",
            "blind13",
            "blind14",
            "blind15",
            "blind16",
            "blind17",
            "blind18",
            "blind19",
            "blind20",
        ],
        default="session",
        help="session: dev.jsonl and heldout.jsonl; fresh, blind2-20: that .jsonl (held out)",
    )
    parser.add_argument("--repeat", type=int, default=5, help="throughput runs (median)")
    parser.add_argument(
        "--sessions",
        type=int,
        metavar="N",
        help="score the set's first N sessions only (by name): a quick check of a path, not "
        "a set's numbers",
    )
    parser.add_argument(
        "--extractor",
        choices=["default", "rules", "compare"],
        default="default",
        help="default: rules + frames (as installed); rules: the rules alone (UAC_FRAMES=0); "
        "compare: both in this run, rules first",
    )
    parser.add_argument(
        "--predictions",
        type=Path,
        help="write each replayed message's facts to this JSON file ({'set (extractor)': {id: "
        "[[path, value]]}}): diff two runs to see what a change to the rules changed",
    )
    benchpath.add_llm_option(parser)
    args = parser.parse_args(argv)
    llm = benchpath.llm_settings(parser, args)
    if llm is not None and args.corpus is not None:
        parser.error("--llm replays sessions: it scores the session sets, not --corpus")
    if args.sessions is not None and (args.corpus is not None or args.sessions < 1):
        parser.error("--sessions takes a positive count of a session set's sessions")
    if args.set != "session" and args.split is not None:
        parser.error(f"--split picks a half of the session set; the {args.set} set has no halves")
    catalog = Catalog.load()
    if args.corpus is not None:
        rows = load(args.corpus)
        for split in sorted({r["split"] for r in rows}):
            part = [r for r in rows if r["split"] == split]
            print(table(f"split: {split}", score_messages(catalog, part, args.errors), len(part)))
            print()
    else:
        rows = []
        predicted: dict[str, dict[str, list[Predicted]]] = {}
        for split in ("dev", "heldout") if args.set == "session" else (args.set,):
            part = load(SESSIONS / f"{split}.jsonl")
            if args.sessions is not None:
                kept = set(sorted({r["session"] for r in part})[: args.sessions])
                part = [r for r in part if r["session"] in kept]
            rows += part
            if args.split in (None, split):
                for which in extractors(args.extractor):
                    counts = replay(
                        part, args.errors, llm, predicted.setdefault(f"{split} ({which})", {})
                    )
                    print(table(f"split: {split}, extractor: {which}", counts, len(part)))
                    print(false_kinds(counts))
                    print()
        if args.predictions is not None:
            args.predictions.write_text(
                json.dumps(predicted, indent=1, sort_keys=True, default=str)
            )
    if llm is not None:  # the throughput below is the rules' alone: not this run's
        return 0

    def one_pass() -> int:
        # Each message with its session's earlier messages, as Memory.add reads them, met
        # once: what earlier passes read is forgotten, as in a service meeting a stream.
        clear_caches()
        for part in sessions(rows).values():
            history: list[tuple[str, dt.datetime]] = []
            for row in part:
                batch_for(catalog, row, history[-HISTORY_LIMIT:])
                history.append((row["text"], dt.datetime.fromisoformat(row["observed_at"])))
        return len(rows)

    wall, cpu = throughput(one_pass, args.repeat)
    print(
        f"throughput (extraction stage: rules + safety + evidence + gate, no I/O, median of "
        f"{args.repeat}): {wall:,.0f} messages/s wall-clock, {cpu:,.0f} messages per CPU "
        f"second, over {len(rows)} messages"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
