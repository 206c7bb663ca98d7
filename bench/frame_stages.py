"""Where the frames lose each expected fact of the tuning sets (leave-one-set-out).

For every expected fact of a tuning set (dev, heldout, fresh, blind2-6: sets already opened
for tuning; never a blind set), scored with that set's labelled examples left out of the
vote and every frame allowed to emit, the furthest stage a frame of the fact's path reached
in any window of the message:

    no frame        no frame fills the path
    no cue          no window of the message says one of the frame's cues
    below           the frame's score stayed under its threshold
    none wins       the "none"/"other" examples scored higher
    outranked       another chosen frame ranked first in every window that chose this one
    guarded         the sentence is a question, hypothetical or negated
    unfilled        a required slot found no value in the sentence
    in context      unfilled or wrong in the sentence, right from the sentence before it
    wrong value     filled, but some value differs from the expected one
    intent/holder   right, but dropped as a plan/need or someone else's
    found           the frames would emit it

Run from the repository root:

    python bench/frame_stages.py               # every tuning set
    python bench/frame_stages.py --list "wrong value"   # and the facts lost at one stage
    python bench/frame_stages.py --list all   # every fact a frame path loses
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import sys
from collections import Counter
from pathlib import Path

import benchpath  # noqa: F401  (takes bench/ off sys.path)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from extraction import load, matches, sessions  # noqa: E402
from frames_cv import SETS  # noqa: E402

from uac.fact_log.catalog import Catalog  # noqa: E402
from uac.fact_log.extraction import encoder, frames  # noqa: E402
from uac.fact_log.extraction.patterns.text import guarded  # noqa: E402

STAGES = [
    "no frame",
    "no cue",
    "below",
    "none wins",
    "outranked",
    "guarded",
    "unfilled",
    "in context",
    "wrong value",
    "intent/holder",
    "found",
]


def _value(frame, catalog, value):
    return value["value"] if frame.path in catalog.attributes else value


def stage(exp, text, at, history, all_frames, catalog) -> str:
    """The furthest stage a frame of the expected fact's path reaches in the message."""
    mine = [f for f in all_frames if f.path == exp["path"]]
    if not mine:
        return "no frame"
    spans = frames.windows(text, history)
    if not spans:
        return "no cue"
    views = [
        w.sentence if any(frames.cued(f, w.sentence, at.date()) for f in all_frames) else w.context
        for w in spans
    ]
    scores = frames.index().scores(encoder.encode(views))
    today = at.date()
    best = 0
    for i, (win, view) in enumerate(zip(spans, views, strict=True)):
        for frame in mine:
            reached = _reached(frame, win, view, i, scores, all_frames, today, exp, catalog)
            best = max(best, STAGES.index(reached))
    return STAGES[best]


def _reached(frame, win, view, i, scores, all_frames, today, exp, catalog) -> str:
    if not frames.cued(frame, view, today):
        return "no cue"
    score = float(scores[frame.name][i])
    none = max(float(scores[lab][i]) for lab in (frames.NONE, frames.OTHER) if lab in scores)
    if score < frame.threshold:
        return "below"
    if score <= none:
        return "none wins"
    chosen = [f for f, _ in frames.choose(scores, all_frames, i) if frames.cued(f, view, today)]
    if chosen and chosen[0].name != frame.name:
        return "outranked"
    if guarded(win.sentence, sentence=win.sentence):
        return "guarded"
    filled = frames.fill(frame, win.sentence, today, win.previous)
    ok = filled is not None and matches(exp, (frame.path, _value(frame, catalog, filled[0])))
    if not ok:
        ctx = frames.fill(frame, win.context, today)
        if ctx is not None and matches(exp, (frame.path, _value(frame, catalog, ctx[0]))):
            return "in context"
        return "unfilled" if filled is None else "wrong value"
    used = filled[1]
    if not used:
        return "unfilled"
    if (frame.holder == "user" and frames._about_someone_else(win.sentence, used)) or (
        not frame.plans and frames._intended(win.sentence, used)
    ):
        return "intent/holder"
    return "found"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", default=list(SETS), help="tuning sets to read")
    ap.add_argument("--list", metavar="STAGE", help="print the facts lost at this stage")
    args = ap.parse_args()
    every = tuple(dataclasses.replace(f, emit=True) for f in frames.load_frames())
    catalog = Catalog.load()
    total: Counter = Counter()
    per_path: dict[str, Counter] = {}
    for name in args.sets:
        rows = load(ROOT / "bench" / "extraction_data" / SETS[name])
        c: Counter = Counter()
        with frames.without_examples([name]):
            for _s, part in sessions(rows).items():
                history: list[tuple[str, dt.datetime]] = []
                for row in part:
                    at = dt.datetime.fromisoformat(row["observed_at"])
                    for exp in row["expected"]:
                        got = stage(exp, row["text"], at, history, every, catalog)
                        c[got] += 1
                        per_path.setdefault(exp["path"], Counter())[got] += 1
                        if args.list in (got, "all") and got not in ("found", "no frame"):
                            where = f"{row['id']}: {exp['path']} {exp['values']}"
                            print(f"  [{got}] {where} <- {row['text']!r}")
                    if row.get("role", "user") == "user":
                        history.append((row["text"], at))
        total.update(c)
        print(f"{name:8s} " + "  ".join(f"{s} {c[s]}" for s in STAGES if c[s]))
    n = sum(total.values())
    print(f"all ({n} expected facts):")
    for s in STAGES:
        print(f"  {s:14s} {total[s]:4d}  {total[s] / n:.3f}")
    print("per path (no frame excluded), stage counts:")
    for path, pc in sorted(per_path.items(), key=lambda kv: -sum(kv[1].values())):
        if pc["no frame"]:
            continue
        print(f"  {path:32s} " + "  ".join(f"{s} {pc[s]}" for s in STAGES if pc[s]))
    print("paths without a frame (expected facts):")
    nof = sorted(((c["no frame"], p) for p, c in per_path.items() if c["no frame"]), reverse=True)
    print("  " + ", ".join(f"{p} {k}" for k, p in nof))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
