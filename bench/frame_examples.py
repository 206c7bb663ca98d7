"""Build fact_log/frame_examples.jsonl: labelled example messages for the frames.

The examples are the messages of the project's tuning sets (bench/tuning_sets.py: every
set of bench/extraction_data already opened for tuning; never a blind set) whose expected
facts all fall on one frame's path (label: that frame), those that teach nothing (label:
"none") and those about paths no frame fills (label: "other"). Messages over 300 characters
are left out: a window is a sentence or two. Run from the repository root
after a tuning set changes:

    python bench/frame_examples.py            # rewrites fact_log/frame_examples.jsonl
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import benchpath  # noqa: F401  (takes bench/ off sys.path)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tuning_sets import TUNING_SETS  # noqa: E402

from uac.fact_log.extraction.frames import EXAMPLES_FILE, NONE, OTHER, load_frames  # noqa: E402

MAX_CHARS = 300


def frame_label(frames: list, expected: list[dict]) -> str:
    """The frame of one path an example teaches: the first whose required fields the expected
    facts all state (a return window, not a warranty's length), else the path's first frame."""
    said = {key for exp in expected for key in exp["values"]}
    for frame in frames:
        if {s.field for s in frame.slots if s.required} <= said:
            return frame.name
    return frames[0].name


def main(sets: Sequence[str] = TUNING_SETS) -> None:
    by_path: dict[str, list] = {}
    for frame in load_frames():
        by_path.setdefault(frame.path, []).append(frame)
    rows = []
    seen = set()
    for name in sets:
        for line in (ROOT / "bench" / "extraction_data" / f"{name}.jsonl").open(encoding="utf-8"):
            msg = json.loads(line)
            text = " ".join(msg["text"].split())
            if msg.get("role", "user") != "user" or len(text) > MAX_CHARS or text in seen:
                continue
            paths = {e["path"] for e in msg["expected"]}
            framed = paths & by_path.keys()
            if not paths:
                label = NONE
            elif not framed:
                label = OTHER  # about a path no frame fills: votes against every frame
            elif len(paths) == 1:
                label = frame_label(by_path[framed.pop()], msg["expected"])
            else:
                continue
            seen.add(text)
            rows.append({"frame": label, "text": text, "from": f"{name}:{msg['id']}"})
    EXAMPLES_FILE.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["frame"]] = counts.get(r["frame"], 0) + 1
    print(f"{len(rows)} examples -> {EXAMPLES_FILE}", dict(sorted(counts.items())))


if __name__ == "__main__":
    main(sys.argv[1:] or TUNING_SETS)
