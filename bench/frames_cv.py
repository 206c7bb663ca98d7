"""Frames scored as a new writer would meet them: leave-one-set-out over the tuning sets.

The frames vote with labelled examples taken from the tuning sets (fact_log/
frame_examples.jsonl), so scoring them on a set their examples came from flatters them. Here
each tuning set X (bench/tuning_sets.py: the sets already opened for tuning) is
scored with the examples of X left out of the vote, so the numbers estimate a writer the
examples never saw. Three readings per set:

    frames   the frames alone (every frame that emits; what a rule-less extractor learns)
    rules    the rules alone (tuned on these sets: not an estimate for a new writer)
    both     rules + frames, the default install, frames voting without X's examples

`--classify` also scores which frame each labelled example gets, leaving out its own set's
examples (every set of the examples file: labels only, no values).
Nothing here reads a blind set. Run from the repository root:

    python bench/frames_cv.py                 # frames/rules/both per set, leave-one-set-out
    python bench/frames_cv.py --errors fresh  # also list the frames' own errors on fresh
    python bench/frames_cv.py --classify      # which-frame accuracy, leave-one-set-out
    python bench/frames_cv.py --no-rules dev heldout fresh   # frames alone, three sets
    python bench/frames_cv.py --no-anchors --no-context      # without anchors / borrowed slots
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import benchpath  # noqa: F401  (takes bench/ off sys.path)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from extraction import batch_for, load, matches, sessions  # noqa: E402
from tuning_sets import TUNING_SETS  # noqa: E402

from uac.fact_log.catalog import Catalog  # noqa: E402
from uac.fact_log.extraction import frames  # noqa: E402
from uac.fact_log.pipeline import HISTORY_LIMIT  # noqa: E402

SETS = {name: f"{name}.jsonl" for name in TUNING_SETS}  # never a blind set


def score(rows: list[dict[str, Any]], predict, errors: bool) -> dict[str, int]:
    """tp/fp/fn of one reader over every session of a set, in order."""
    c = Counter()
    for _name, part in sessions(rows).items():
        history: list[tuple[str, dt.datetime]] = []
        for row in part:
            at = dt.datetime.fromisoformat(row["observed_at"])
            got = predict(row, history)
            left = list(got)
            for exp in row["expected"]:
                hit = next((f for f in left if matches(exp, f)), None)
                if hit is None:
                    c["fn"] += 1
                    c["fn_frame_path"] += exp["path"] in emitting()
                    if errors and exp["path"] in emitting():
                        print(f"  FN {row['id']}: {exp['path']} {exp['values']} <- {row['text']!r}")
                else:
                    c["tp"] += 1
                    c[f"tp {exp['path']}"] += 1
                    left.remove(hit)
            for path, value in left:
                c["fp"] += 1
                c[f"fp {path}"] += 1
                if errors:
                    print(f"  FP {row['id']}: {path} {value!r} <- {row['text']!r}")
            if row.get("role", "user") == "user":
                history.append((row["text"], at))
    return c


def fold(name: str, shipped: bool):
    """The thresholds measured without this set (bench/frame_folds.json, written by
    bench/frame_calibrate.py), unless asked for the shipped ones; a set the folds do not name
    was not calibrated on, so the shipped thresholds are already measured without it."""
    folds = ROOT / "bench" / "frame_folds.json"
    table = json.loads(folds.read_text(encoding="utf-8")) if folds.is_file() else {}
    if shipped or name not in table:
        return contextlib.nullcontext()
    return frames.using_calibration(table[name])


def emitting() -> set[str]:
    return {f.path for f in frames.active_frames() if f.emit}


def frames_alone(catalog):
    def predict(row, history):
        at = dt.datetime.fromisoformat(row["observed_at"])
        found = frames.read(row["text"], at, catalog, history).candidates
        return [(c.path, c.value) for c in found]

    return predict


def pipeline(catalog):
    def predict(row, history):
        batch = batch_for(catalog, row, history[-HISTORY_LIMIT:])
        return [(f.path, f.value) for f in batch.facts if f.kind != "note" and f.op == "assert"]

    return predict


def line(name: str, c: Counter) -> str:
    p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 0.0
    r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 0.0
    return (
        f"{name:8s} P {p:.3f}  R {r:.3f}  (tp {c['tp']}, fp {c['fp']}, fn {c['fn']}, "
        f"missed on frame paths {c['fn_frame_path']})"
    )


def classify() -> None:
    """Which frame each example gets, its own set's examples left out."""
    rows = [
        json.loads(x)
        for x in frames.EXAMPLES_FILE.read_text(encoding="utf-8").splitlines()
        if x.strip()
    ]
    from uac.fact_log.extraction import encoder

    vectors = frames.index()  # builds the cache
    del vectors
    all_frames = list(frames.load_frames())
    total = Counter()
    for src in sorted({r["from"].split(":")[0] for r in rows}):
        part = [r for r in rows if r["from"].split(":")[0] == src]
        with frames.without_examples([src]) as idx:
            vecs = encoder.encode([r["text"] for r in part])
            found = idx.scores(vecs)
            c = Counter()
            for at, r in enumerate(part):
                chosen = [
                    f.name
                    for f, _ in frames.choose(found, all_frames, at)
                    if frames.cued(f, r["text"], dt.date(2026, 1, 1))
                ]
                got = chosen[0] if chosen else "none"
                want = r["frame"] if r["frame"] in {f.name for f in all_frames} else "none"
                if got != "none":
                    c["pred"] += 1
                    c["right"] += got == want
                if want != "none":
                    c["gold"] += 1
                    c["found"] += got == want
            total.update(c)
            print(f"{src:8s} " + _pr(c))
    print(f"{'all':8s} " + _pr(total))


def _pr(c: Counter) -> str:
    p = c["right"] / c["pred"] if c["pred"] else 0.0
    r = c["found"] / c["gold"] if c["gold"] else 0.0
    return f"frame P {p:.3f} ({c['right']}/{c['pred']})  R {r:.3f} ({c['found']}/{c['gold']})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", default=list(SETS), help="tuning sets to score")
    ap.add_argument("--errors", action="store_true", help="list the frames' own errors")
    ap.add_argument("--classify", action="store_true", help="which-frame accuracy only")
    ap.add_argument("--no-rules", action="store_true", help="frames alone only")
    ap.add_argument(
        "--all-frames", action="store_true", help="let every frame emit (emit=false ones too)"
    )
    ap.add_argument(
        "--shipped-thresholds",
        action="store_true",
        help="score every set with the shipped thresholds (tuned on it too) instead of those "
        "measured without it (bench/frame_folds.json)",
    )
    ap.add_argument("--no-anchors", action="store_true", help="cues only (no anchor slot types)")
    ap.add_argument(
        "--no-context", action="store_true", help="required slots from the sentence only"
    )
    args = ap.parse_args()
    if args.no_context:
        frames.CONTEXT_FILL = False
    if args.no_anchors:
        cues_only = tuple(dataclasses.replace(f, anchors=()) for f in frames.load_frames())
        frames.load_frames = lambda *a: cues_only
    if args.all_frames:
        args.shipped_thresholds = True  # every frame emits: no fold's emit flags
        every = tuple(dataclasses.replace(f, emit=True) for f in frames.load_frames())
        frames.load_frames = lambda *a: every
    if args.classify:
        classify()
        return 0
    catalog = Catalog.load()
    totals = {k: Counter() for k in ("frames", "rules", "both")}
    for name in args.sets:
        rows = load(ROOT / "bench" / "extraction_data" / SETS[name])
        print(f"== {name} (its examples left out)")
        with frames.without_examples([name]), fold(name, args.shipped_thresholds):
            c = score(rows, frames_alone(catalog), args.errors)
            totals["frames"].update(c)
            print(line("frames", c))
            if args.no_rules:
                continue
            for which, flag in (("rules", "0"), ("both", "1")):
                os.environ["UAC_FRAMES"] = flag
                c = score(rows, pipeline(catalog), False)
                totals[which].update(c)
                print(line(which, c))
            os.environ["UAC_FRAMES"] = "1"
    print("== all sets")
    for which, c in totals.items():
        if c:
            print(line(which, c))
    paths = sorted({k.split()[1] for k in totals["frames"] if " " in k})
    print("frames alone per path (tp/fp):")
    for path in paths:
        print(f"  {path:36s} {totals['frames'][f'tp {path}']}/{totals['frames'][f'fp {path}']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
