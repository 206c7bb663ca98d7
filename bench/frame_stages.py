"""Where the frames lose each expected fact of the tuning sets (leave-one-set-out).

For every expected fact of a tuning set (bench/tuning_sets.py: sets already opened for
tuning; never a blind set), scored with that set's labelled examples left out of the
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
from frames_cv import SETS, fold  # noqa: E402

from uac.fact_log.catalog import Catalog  # noqa: E402
from uac.fact_log.extraction import frames  # noqa: E402

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
    mine = {f.name for f in all_frames if f.path == exp["path"]}
    if not mine:
        return "no frame"
    spans = frames.windows(text, history, at.date())
    if not spans:
        return "no cue"
    today = at.date()
    best = STAGES.index("no cue")  # a window no frame is cued on is not scored at all
    for win, ballot in zip(spans, frames.votes(spans, all_frames, today), strict=True):
        for vote in ballot:
            if vote.frame.name in mine:
                reached = _reached(vote, ballot, win, text, today, exp, catalog)
                best = max(best, STAGES.index(reached))
    return STAGES[best]


def _reached(vote, ballot, win, text, today, exp, catalog) -> str:
    frame = vote.frame
    limit = frame.threshold if vote.cued else frame.uncued
    if limit is None:
        return "no cue"
    if vote.score < limit:
        return "below"
    if vote.score <= vote.against + frame.margin:
        return "none wins"
    chosen = [v for v in ballot if v.chosen]
    if (
        chosen
        and chosen[0].frame.name != frame.name
        and vote.score < chosen[0].score - frames.CLOSE
    ):
        return "outranked"
    if frames.stated_not(win.sentence):
        return "guarded"
    key = frames.key_slot(frame, catalog)  # a list of the key fills one record per item
    filled = frames.fill_items(frame, win.sentence, today, key, win.previous, win.named)
    if not any(matches(exp, (frame.path, _value(frame, catalog, f.value))) for f in filled):
        ctx = frames.fill_items(frame, win.context, today, key, named=win.named)
        if any(matches(exp, (frame.path, _value(frame, catalog, f.value))) for f in ctx):
            return "in context"
        return "unfilled" if not filled else "wrong value"
    if not frames._candidate(vote, win, text, today, catalog):
        return "intent/holder"
    return "found"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", default=list(SETS), help="tuning sets to read")
    ap.add_argument("--list", metavar="STAGE", help="print the facts lost at this stage")
    args = ap.parse_args()
    catalog = Catalog.load()
    total: Counter = Counter()
    per_path: dict[str, Counter] = {}
    for name in args.sets:
        rows = load(ROOT / "bench" / "extraction_data" / SETS[name])
        c: Counter = Counter()
        with frames.without_examples([name]), fold(name, False):
            # thresholds: those measured without the set being read (bench/frame_folds.json)
            every = tuple(dataclasses.replace(f, emit=True) for f in frames.active_frames())
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
