"""Per-frame thresholds measured leave-one-set-out, written as data beside the frames.

Every window of every tuning set (bench/tuning_sets.py; never a blind set) is scored
with its own set's labelled examples left out of the vote, and every frame is read on it as
if it emitted: the frame's score, the best of "none"/"other" on the same view, whether the
window says the frame's cue (or a value of an anchor slot type), and what the frame would
emit there: a right fact (its path and values among the message's expected facts), a false
one, or nothing (a guard, an unfilled slot). Per frame, the thresholds of a cued and of an
uncued window and the margin over none/other are those that maximise

    right - lam * false,   lam = p / (1 - p) for the target precision p (--precision)

so a frame is read where its added facts are right at least p of the time. A frame that
finds no threshold with at least --min-right right facts and a positive sum does not emit;
an uncued window with none is never read for that frame.

Writes fact_log/frame_calibration.toml (thresholds from every tuning set: what ships) and
bench/frame_folds.json (for each set, thresholds from the other sets only: what
bench/frames_cv.py and bench/frame_stages.py score that set with, so no set is scored with
thresholds tuned on it). Run from the repository root after changing frames, examples or
slots:

    python bench/frame_calibrate.py                  # precision target 0.8
    python bench/frame_calibrate.py --precision 0.9  # read less, more precisely
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import sys
from collections import defaultdict
from pathlib import Path

import benchpath  # noqa: F401  (takes bench/ off sys.path)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from extraction import load, matches, sessions  # noqa: E402
from frames_cv import SETS  # noqa: E402

from uac.fact_log.catalog import Catalog  # noqa: E402
from uac.fact_log.extraction import frames, patterns  # noqa: E402
from uac.fact_log.extraction.candidate import Candidate  # noqa: E402
from uac.fact_log.pipeline import HISTORY_LIMIT  # noqa: E402

FOLDS_FILE = ROOT / "bench" / "frame_folds.json"
THRESHOLDS = [round(0.30 + 0.01 * i, 2) for i in range(66)]  # 0.30 .. 0.95
MARGINS = [0.0, 0.02, 0.04, 0.06, 0.08, 0.10]

# (set, cued, score, against, outcome, beside) of one frame on one window; outcome 1 right,
# -1 false; beside: the merge would keep it beside the rules' candidates of the message
Record = tuple[str, bool, float, float, int, bool]
_PROBE = Candidate("record", "", {}, "assert", "", 0, 0.0)


def records(catalog: Catalog) -> dict[str, list[Record]]:
    """Per frame name, its reading of every window of every tuning set (leave-one-set-out)."""
    every = [dataclasses.replace(f, emit=True, uncued=0.0) for f in frames.load_frames()]
    out: dict[str, list[Record]] = defaultdict(list)
    for name in SETS:
        rows = load(ROOT / "bench" / "extraction_data" / SETS[name])
        with frames.without_examples([name]):
            for _s, part in sessions(rows).items():
                history: list[tuple[str, dt.datetime]] = []
                for row in part:
                    at = dt.datetime.fromisoformat(row["observed_at"])
                    _read(name, row, at, history, every, catalog, out)
                    if row.get("role", "user") == "user":
                        history.append((row["text"], at))
    return out


def _read(name, row, at, history, every, catalog, out) -> None:
    text = row["text"]
    spans = frames.windows(text, history)
    if not spans:
        return
    today = at.date()
    ruled = frames.merge(
        patterns.extract(text, at, row.get("role", "user"), catalog, history[-HISTORY_LIMIT:]),
        [dataclasses.replace(_PROBE, path=f.path, start=w.start) for w in spans for f in every],
        spans,
        catalog,
    )
    kept = {(c.path, c.start) for c in ruled}  # what the merge keeps beside the rules
    for win, ballot in zip(spans, frames.votes(spans, every, today), strict=True):
        stopped = frames.stated_not(win.sentence)
        for vote in ballot:
            rivals = [v.score for v in ballot if v.frame.path != vote.frame.path]
            if rivals and vote.score < max(rivals) - frames.CLOSE:
                continue  # another frame takes the window: this one is never read there
            got = (
                None
                if stopped
                else next(iter(frames._candidate(vote, win, text, today, catalog)), None)
            )
            outcome = 0
            if got is not None:
                right = any(matches(exp, (got.path, got.value)) for exp in row["expected"])
                outcome = 1 if right else -1
            beside = (vote.frame.path, win.start) in kept
            out[vote.frame.name].append(
                (name, vote.cued, vote.score, vote.against, outcome, beside)
            )


# An uncued threshold makes every window of every message go through the encoder (the cue
# pre-filter skips none): it must add at least this many right facts to pay for that.
UNCUED_MIN_RIGHT = 5


def best(
    recs: list[Record], lam: float, min_right: int, uncued_ok: bool = True
) -> dict[str, object]:
    """The thresholds and margin that maximise right - lam * false over these records; no
    uncued threshold unless `uncued_ok`."""
    top: tuple[float, float, float | None, float] | None = None  # (gain, threshold, uncued, m)
    for margin in MARGINS:
        cued, cued_gain = _threshold([r for r in recs if r[1]], margin, lam, min_right)
        uncued, uncued_gain = (
            _threshold([r for r in recs if not r[1]], margin, lam, max(min_right, UNCUED_MIN_RIGHT))
            if uncued_ok
            else (None, 0.0)
        )
        gain = cued_gain + uncued_gain
        if cued is not None and (top is None or gain > top[0]):
            top = (gain, cued, uncued, margin)
    if top is None:
        return {"emit": False}
    out: dict[str, object] = {"emit": True, "threshold": top[1], "margin": top[3]}
    if top[2] is not None:
        out["uncued"] = top[2]
    return out


def _threshold(
    recs: list[Record], margin: float, lam: float, min_right: int
) -> tuple[float | None, float]:
    """The highest-gain threshold (the higher one on a tie) and its gain; None when no
    threshold gains with at least min_right right facts."""
    gains: dict[float, float] = {}
    for t in THRESHOLDS:
        kept = [r[4] for r in recs if r[2] >= t and r[2] > r[3] + margin and r[4]]
        right = kept.count(1)
        if right >= min_right:
            gains[t] = right - lam * kept.count(-1)
    top = max(gains.values(), default=0.0)
    if top <= 0:
        return None, 0.0
    # the middle of the best plateau: as far from the false facts below as from the right
    # ones above (a new writer's sentences score a little off the tuning sets')
    plateau = [t for t, g in gains.items() if g == top]
    return plateau[len(plateau) // 2], top


def _reads_uncued() -> set[str]:
    """The frames that may read a window saying none of their cues: those with a required
    day or time, which the pre-filter looks for before encoding such a window
    (`frames._times_fillable`); for any other frame every uncued window of every message
    would go through the encoder."""
    return {
        f.name
        for f in frames.load_frames()
        if any(
            s.required
            and s.type in ("date", "datetime")
            and not (s.if_said or s.unless_said or s.default)
            for s in f.slots
        )
    }


def table(
    recs: dict[str, list[Record]], left_out: str | None, lam: float, min_right: int, beside: bool
):
    uncued = _reads_uncued()
    return {
        name: best(
            [r for r in rs if r[0] != left_out and (r[5] or not beside)],
            lam,
            min_right,
            name in uncued,
        )
        for name, rs in sorted(recs.items())
    }


def kept(recs: list[Record], spec: dict[str, object]) -> str:
    """Right/false facts these thresholds keep (cued + uncued windows)."""
    if not spec.get("emit"):
        return "0/0"
    out = [
        r[4]
        for r in recs
        if r[4]
        and r[2] > r[3] + float(spec["margin"])
        and r[2] >= float(spec["threshold"] if r[1] else spec.get("uncued", 9.0))
    ]
    return f"{out.count(1)}/{out.count(-1)}"


def reach(recs: list[Record]) -> str:
    """Right/false facts the frame would emit at any threshold (cued + uncued)."""
    out = [r[4] for r in recs if r[4]]
    return f"{out.count(1)}/{out.count(-1)}"


def write_toml(path: Path, calibration: dict[str, dict[str, object]], precision: float) -> None:
    lines = [
        "# Per-frame thresholds measured leave-one-set-out over the tuning sets (generated by",
        f"# bench/frame_calibrate.py --precision {precision}; do not edit by hand). A frame is",
        "# chosen for a window when its score reaches `threshold` (the window says one of its",
        "# cues or anchor values) or `uncued` (it says none; absent: never), and beats the best",
        "# of the none/other examples by more than `margin`; `emit = false`: no threshold",
        "# reached the target precision, so the frame gives hints but no facts.",
        "",
    ]
    for name, spec in calibration.items():
        lines.append(f"[frames.{name}]")
        for key in ("emit", "threshold", "uncued", "margin"):
            if key in spec:
                value = spec[key]
                lines.append(f"{key} = {str(value).lower() if isinstance(value, bool) else value}")
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--precision", type=float, default=0.8, help="target precision per frame")
    ap.add_argument("--min-right", type=int, default=3, help="right facts a frame needs to emit")
    ap.add_argument(
        "--beside-rules",
        action="store_true",
        help="count only what the frames add beside the rules (a path the rules read in the "
        "same sentence is theirs): thresholds for rules + frames",
    )
    ap.add_argument(
        "--records",
        type=Path,
        help="read the window records from this JSON file, or write "
        "them there when it does not exist (to try several targets without re-reading)",
    )
    args = ap.parse_args()
    lam = args.precision / (1 - args.precision)
    if args.records is not None and args.records.is_file():
        recs = {k: [tuple(r) for r in v] for k, v in json.loads(args.records.read_text()).items()}
    else:
        recs = records(Catalog.load())
        if args.records is not None:
            args.records.write_text(json.dumps(recs), encoding="utf-8")
    shipped = table(recs, None, lam, args.min_right, args.beside_rules)
    write_toml(frames.CALIBRATION_FILE, shipped, args.precision)
    folds = {name: table(recs, name, lam, args.min_right, args.beside_rules) for name in SETS}
    FOLDS_FILE.write_text(json.dumps(folds, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for name, spec in shipped.items():
        rs = recs[name]
        print(f"  {name:18s} {spec}  right/false kept {kept(rs, spec)} of right {reach(rs)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
