"""Where the extractor (rules + frames, as installed) loses each expected fact of the tuning sets.

Every expected fact a replay (bench/extraction.py's, through `Memory.add`) did not find is put
in the first bucket that explains it:

    other message   the same fact was learned from another message of the session
    wrong value     the message gave the path, some field differs (the fields are counted)
    wrong path      the message gave a false fact on another path that holds an expected value
    silent          the message gave no fact at all
    other facts     the message gave facts, none on this path nor holding its values

Tuning sets only (bench/tuning_sets.py); a blind set is refused by name. Run from the
repository root:

    python bench/extraction_losses.py blind9 blind10 blind11 blind12
    python bench/extraction_losses.py blind11 --list "wrong value"
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import benchpath  # noqa: F401  (takes bench/ off sys.path)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from extraction import load, matches, same, sessions  # noqa: E402
from tuning_sets import TUNING_SETS  # noqa: E402

BUCKETS = ("other message", "wrong value", "wrong path", "silent", "other facts")


def _values(value: Any) -> list[Any]:
    return list(value.values()) if isinstance(value, dict) else [value]


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else (value if key == "value" else None)


def bucket(exp: dict[str, Any], mine: list[Any], others: list[Any]) -> tuple[str, str]:
    """The bucket of one missed fact and a detail (differing fields, or the path taken)."""
    if any(matches(exp, f) for f in others):
        return "other message", ""
    same_path = [v for p, v in mine if p == exp["path"]]
    if same_path:
        wrong = sorted(
            {
                k
                for v in same_path
                for k, want in exp["values"].items()
                if not same(want, _field(v, k))
            }
        )
        return "wrong value", ",".join(wrong)
    for path, value in mine:
        if any(same(want, got) for want in exp["values"].values() for got in _values(value)):
            return "wrong path", path
    return ("other facts", "") if mine else ("silent", "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", default=list(TUNING_SETS), help="tuning sets to read")
    ap.add_argument("--list", metavar="BUCKET", help="print the facts lost in this bucket")
    args = ap.parse_args()
    for name in args.sets:
        if name not in TUNING_SETS:
            ap.error(f"{name} is not a tuning set (bench/tuning_sets.py); blind sets stay blind")
    from uac import Memory

    total: Counter = Counter()
    per_path: dict[str, Counter] = {}
    fields: Counter = Counter()
    for name in args.sets:
        rows = load(ROOT / "bench" / "extraction_data" / f"{name}.jsonl")
        c: Counter = Counter()
        with (
            tempfile.TemporaryDirectory() as tmp,
            Memory(Path(tmp) / "ws", create=True, react=False) as mem,
        ):
            for sname, part in sessions(rows).items():
                got: list[list[Any]] = []
                for row in part:
                    at = dt.datetime.fromisoformat(row["observed_at"])
                    learned = mem.add(f"b-{sname}", row["text"], at=at, session_id=sname, now=at)
                    got.append(
                        [
                            (f.path, f.value)
                            for f in learned.facts
                            if f.kind != "note" and f.op == "assert"
                        ]
                    )
                for i, row in enumerate(part):
                    unmatched = list(got[i])
                    for exp in row["expected"]:
                        hit = next((f for f in unmatched if matches(exp, f)), None)
                        if hit is not None:
                            unmatched.remove(hit)
                            c["found"] += 1
                            continue
                        others = [f for j, fs in enumerate(got) if j != i for f in fs]
                        where, detail = bucket(exp, got[i], others)
                        c[where] += 1
                        per_path.setdefault(exp["path"], Counter())[where] += 1
                        if where == "wrong value":
                            for k in detail.split(","):
                                fields[f"{exp['path']}.{k}"] += 1
                        if args.list in (where, "all"):
                            print(
                                f"  [{where}{': ' + detail if detail else ''}] {row['id']}: "
                                f"{exp['path']} {exp['values']} <- {row['text']!r}"
                                f"\n      got {got[i]}"
                            )
        total.update(c)
        print(f"{name:8s} found {c['found']}  " + "  ".join(f"{b} {c[b]}" for b in BUCKETS))
    lost = sum(total[b] for b in BUCKETS)
    print(f"all: found {total['found']}, lost {lost}")
    for b in BUCKETS:
        print(f"  {b:14s} {total[b]:4d}  {total[b] / max(lost, 1):.3f}")
    print("lost per path:")
    for path, pc in sorted(per_path.items(), key=lambda kv: -sum(kv[1].values()))[:40]:
        print(
            f"  {path:36s} {sum(pc.values()):3d}  "
            + "  ".join(f"{b} {pc[b]}" for b in BUCKETS if pc[b])
        )
    print("wrong fields:")
    print("  " + ", ".join(f"{k} {n}" for k, n in fields.most_common(40)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
