"""Which rule made each fact of the tuning sets, and whether it was right: a ledger per rule.

Every session of each tuning set (bench/tuning_sets.py) is replayed as bench/extraction.py
replays it (`Memory.add` on a fresh workspace, the rules alone unless `--frames`), and each
appended fact is scored by bench/extraction.py's own matching: right (it matched an expected
fact), or false of one kind (`tally`'s: a wrong value of a path the message states, a path
the message does not state, a message that teaches nothing). Each fact is attributed to the
rule that put its candidate in the message's list (the rule functions of `patterns.RULES`,
`THEIR_RULES` and `followups.RULES` are wrapped for the run only: the product code and its
types are not changed); a fact no rule made is `frames` (with `--frames`) or `other`
(a correction the store derived). Printed: one row per rule, right and false on the newest
writers (blind6, blind9–12: the sets tuned on least) and on the older sets (dev, heldout,
fresh, blind2–5), worst net first; `--list RULE` prints that rule's false facts on the
newest sets. A blind set is refused by name. Run from the repository root:

    OPENBLAS_NUM_THREADS=1 python bench/rule_ledger.py
    OPENBLAS_NUM_THREADS=1 python bench/rule_ledger.py --list rule_events
    OPENBLAS_NUM_THREADS=1 python bench/rule_ledger.py --json /tmp/ledger.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import benchpath  # noqa: F401  (takes bench/ off sys.path)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from extraction import load, matches, sessions  # noqa: E402
from tuning_sets import OPENED, RETIRED, TUNING_SETS  # noqa: E402

from uac.fact_log import pipeline  # noqa: E402
from uac.fact_log.extraction import patterns  # noqa: E402
from uac.fact_log.extraction.patterns import followups  # noqa: E402

NEWEST = ("blind6", *RETIRED)  # blind6 and blind9–12: the writers tuned on least
OLDER = tuple(s for s in OPENED if s not in NEWEST)
KINDS = ("right", "value", "path", "empty")


class Origins:
    """The rule behind each candidate of the message being read."""

    def __init__(self) -> None:
        self.ctx: int | None = None
        self.made: dict[tuple[str, int], list[str]] = {}

    def wrap(self, rule: Callable[..., None]) -> Callable[..., None]:
        """`rule`, recording the candidates it adds to the context's list under its name."""
        name = rule.__name__

        @functools.wraps(rule)
        def run(ctx: Any, sent: Any, parts: Any) -> None:
            if id(ctx) != self.ctx:  # a new message's read (history reads come first)
                self.ctx, self.made = id(ctx), {}
            before = {id(c) for c in ctx.out}
            rule(ctx, sent, parts)
            for c in ctx.out:
                if id(c) not in before:
                    self.made.setdefault((c.path, c.start), []).append(name)

        return run

    def of(self, path: str, offset: Any) -> str:
        """The rule that made a fact at this path and quote offset (the first of several)."""
        names = self.made.get((path, offset)) if isinstance(offset, int) else None
        return names[0] if names else ""


def installed(origins: Origins) -> Callable[[], None]:
    """Wrap every rule for this run; the returned function puts the originals back."""
    saved = (patterns.RULES, patterns.THEIR_RULES, followups.RULES)
    patterns.RULES = tuple(origins.wrap(r) for r in saved[0])
    patterns.THEIR_RULES = tuple(origins.wrap(r) for r in saved[1])
    followups.RULES = tuple(origins.wrap(r) for r in saved[2])
    real_extract = pipeline.extract

    def extract(*args: Any, **kwargs: Any) -> Any:
        origins.ctx, origins.made = None, {}
        return real_extract(*args, **kwargs)

    pipeline.extract = extract

    def restore() -> None:
        patterns.RULES, patterns.THEIR_RULES, followups.RULES = saved
        pipeline.extract = real_extract

    return restore


def expected(name: str) -> int:
    """How many facts one set expects."""
    return sum(
        len(r["expected"]) for r in load(ROOT / "bench" / "extraction_data" / f"{name}.jsonl")
    )


def ledger(name: str, frames: bool) -> list[dict[str, Any]]:
    """Every fact one set's replay appends: its rule, its verdict, the message's id and text."""
    from uac import Memory

    os.environ["UAC_FRAMES"] = "1" if frames else "0"
    rows = load(ROOT / "bench" / "extraction_data" / f"{name}.jsonl")
    origins = Origins()
    restore = installed(origins)
    out: list[dict[str, Any]] = []
    try:
        with (
            tempfile.TemporaryDirectory() as tmp,
            Memory(Path(tmp) / "ws", create=True, react=False) as mem,
        ):
            for sname, part in sessions(rows).items():
                for row in part:
                    at = dt.datetime.fromisoformat(row["observed_at"])
                    learned = mem.add(f"b-{sname}", row["text"], at=at, session_id=sname, now=at)
                    facts = [f for f in learned.facts if f.kind != "note" and f.op == "assert"]
                    out += verdicts(row, facts, origins, frames)
    finally:
        restore()
    return out


def verdicts(
    row: dict[str, Any], facts: list[Any], origins: Origins, frames: bool
) -> list[dict[str, Any]]:
    """Each fact of one message with its rule and verdict, matched as `extraction.tally` does."""
    unmatched = list(range(len(facts)))
    right: set[int] = set()
    missed: set[str] = set()
    for exp in row["expected"]:
        hit = next((i for i in unmatched if matches(exp, (facts[i].path, facts[i].value))), None)
        if hit is None:
            missed.add(exp["path"])
        else:
            unmatched.remove(hit)
            right.add(hit)
    out = []
    for i, f in enumerate(facts):
        offset = f.evidence.get("offset") if isinstance(f.evidence, dict) else None
        rule = origins.of(f.path, offset) or ("frames" if frames else "other")
        if i in right:
            kind = "right"
        else:
            kind = "empty" if not row["expected"] else "value" if f.path in missed else "path"
        out.append(
            {"rule": rule, "kind": kind, "id": row["id"], "path": f.path, "value": f.value}
            | {"text": row["text"]}
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", default=list(TUNING_SETS), help="tuning sets to read")
    ap.add_argument("--frames", action="store_true", help="rules + frames (default: rules)")
    ap.add_argument("--list", metavar="RULE", help="print this rule's false facts (newest sets)")
    ap.add_argument("--json", type=Path, help="write every fact's rule and verdict here")
    args = ap.parse_args()
    for name in args.sets:
        if name not in TUNING_SETS:
            ap.error(f"{name} is not a tuning set (bench/tuning_sets.py); blind sets stay blind")
    table: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    per_set: dict[str, Counter] = {}
    dump: dict[str, list[dict[str, Any]]] = {}
    for name in args.sets:
        facts = ledger(name, args.frames)
        dump[name] = facts
        group = "newest" if name in NEWEST else "older"
        per_set[name] = Counter(f["kind"] for f in facts)
        for f in facts:
            table[f["rule"]][group][f["kind"]] += 1
            if args.list == f["rule"] and group == "newest" and f["kind"] != "right":
                print(f"  [{f['kind']}] {f['id']}: {f['path']} {f['value']!r} <- {f['text']!r}")
    if args.json is not None:
        args.json.write_text(json.dumps(dump, indent=1, sort_keys=True, default=str))
    for name, c in per_set.items():
        false = sum(c[k] for k in KINDS[1:])
        print(f"{name:8s} right {c['right']:4d}  false {false:3d}  " + _split(c))
    for group, names in (("newest", NEWEST), ("older", OLDER)):
        c = Counter()
        for rule_counts in table.values():
            c.update(rule_counts[group])
        false = sum(c[k] for k in KINDS[1:])
        want = sum(expected(n) for n in names if n in per_set)
        p, r = c["right"] / max(c["right"] + false, 1), c["right"] / max(want, 1)
        print(f"{group}: right {c['right']}, false {false} ({_split(c)}); P {p:.3f} / R {r:.3f}")
    print()
    print(
        "| rule | newest right | newest false (value / path / empty) | older right | older false |"
    )
    print("|---|---:|---|---:|---:|")

    def net(item: tuple[str, dict[str, Counter]]) -> tuple[int, int]:
        n = item[1]["newest"]
        return (n["right"] - sum(n[k] for k in KINDS[1:]), -sum(n[k] for k in KINDS[1:]))

    for rule, groups in sorted(table.items(), key=net):
        n, o = groups["newest"], groups["older"]
        nf, of = sum(n[k] for k in KINDS[1:]), sum(o[k] for k in KINDS[1:])
        print(
            f"| {rule} | {n['right']} | {nf} ({n['value']} / {n['path']} / {n['empty']}) | "
            f"{o['right']} | {of} |"
        )
    return 0


def _split(c: Counter) -> str:
    return f"value {c['value']}, path {c['path']}, empty {c['empty']}"


if __name__ == "__main__":
    raise SystemExit(main())
