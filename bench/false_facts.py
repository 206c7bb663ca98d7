"""Each false fact of a recorded run on a tuning set, put in the first kind that describes it.

Reads what `bench/extraction.py --predictions FILE` wrote (each replayed message's asserted
facts), matches them to the set's expected facts the way the bench scores them, and sorts
every fact left unmatched:

    empty            the message expects no fact at all
    path             the message expects facts, none on this path
    duplicate        the path's expected facts of the message were all found by other facts
    partial:F,...    every field given agrees with an expected fact of the path left unfound;
                     fields F the set expects are missing (the closest expected fact)
    conflict:F,...   fields F hold another value than the closest expected fact's

The kinds are mechanical; why a fact of kind `path` or `empty` is false (someone else's, a
question, another topic) is read by hand from `--list`. Tuning sets only
(bench/tuning_sets.py); a blind set is refused by name. Run from the repository root:

    OPENBLAS_NUM_THREADS=1 python bench/extraction.py --set blind9 --predictions /tmp/b9.json
    python bench/false_facts.py /tmp/b9.json --list
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import benchpath  # noqa: F401  (takes bench/ off sys.path)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from extraction import load, matches, same  # noqa: E402
from tuning_sets import TUNING_SETS  # noqa: E402

DATA = ROOT / "bench" / "extraction_data"


def rows_of(name: str) -> list[dict[str, Any]]:
    """The messages of one tuning set ("session" is dev and heldout)."""
    if name not in (*TUNING_SETS, "session"):
        sys.exit(f"{name!r} is not a tuning set (bench/tuning_sets.py): refused")
    if name == "session":
        return load(DATA / "dev.jsonl") + load(DATA / "heldout.jsonl")
    return load(DATA / f"{name}.jsonl")


def kind_of(row: dict[str, Any], path: str, value: Any, missed: list[dict[str, Any]]) -> str:
    """The kind of one false fact (see the module's docstring)."""
    if not row["expected"]:
        return "empty"
    near = [e for e in missed if e["path"] == path]
    if not near:
        return "duplicate" if any(e["path"] == path for e in row["expected"]) else "path"

    def fields(exp: dict[str, Any]) -> tuple[list[str], list[str]]:
        wrong, absent = [], []
        for key, want in exp["values"].items():
            got = value.get(key) if isinstance(value, dict) else (value if key == "value" else None)
            if got is None:
                absent.append(key)
            elif not same(want, got):
                wrong.append(key)
        return wrong, absent

    wrong, absent = min((fields(e) for e in near), key=lambda f: (len(f[0]), len(f[1])))
    return f"conflict:{','.join(wrong)}" if wrong else f"partial:{','.join(absent)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("predictions", type=Path, help="a file bench/extraction.py --predictions wrote")
    ap.add_argument("--list", action="store_true", help="print each false fact with its kind")
    args = ap.parse_args(argv)
    recorded = json.loads(args.predictions.read_text(encoding="utf-8"))
    total: Counter[str] = Counter()
    for run, predicted in recorded.items():
        name = run.split(" (")[0]
        counts: Counter[str] = Counter()
        for row in rows_of(name):
            facts = [(p, v) for p, v in predicted.get(row["id"], [])]
            left = list(facts)
            missed = []
            for exp in row["expected"]:
                hit = next((f for f in left if matches(exp, f)), None)
                if hit is None:
                    missed.append(exp)
                else:
                    left.remove(hit)
            for path, value in left:
                kind = kind_of(row, path, value, missed)
                counts[kind.split(":")[0]] += 1
                if args.list:
                    print(f"{row['id']}\t{kind}\t{path}\t{json.dumps(value)}\t{row['text']!r}")
        print(f"{run}: {sum(counts.values())} false facts: {dict(sorted(counts.items()))}")
        total += counts
    if len(recorded) > 1:
        print(f"all: {sum(total.values())} false facts: {dict(sorted(total.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
