"""The judge (fact_log/extraction/judge.py) scored as a new writer would meet it: leave-one-set-out.

For each tuning set (bench/tuning_sets.py) the extractor as installed (rules + frames; the
frames voting without the set's own examples and with thresholds measured without it, as
bench/frames_cv.py scores them; the judge off) is replayed as bench/extraction.py replays it,
and every candidate that reaches the gate is recorded with the judge's features and labelled
by bench/extraction.py's own matching: right (its fact matched an expected one), false (its
fact matched none), or neither (the gate did not learn it: judging it changes nothing). The
records are cached under /tmp (never in the repository; UAC_JUDGE_CACHE names another
folder), keyed by the features' layout only: after a change to the extractor, `--fresh`.

Then, for each set X: the judge is trained without X as bench/judge_train.py trains it
(logistic regression on the other sets; its threshold chosen on the leave-one-set-out
probabilities of the other retired sets, never on X), and X's candidates under it are
withheld. Printed: per set, rules + frames today against with the judge (P / R, tp / fp);
sums over the 11 sets and over blind9–12 (the closest estimate of a new writer); the summed
precision / recall over fixed thresholds (the trade-off). `--verify` also replays blind9–12
through the pipeline with each fold's judge wired, to check the counts read from the records.
Nothing here reads a blind set. Run from the repository root:

    OPENBLAS_NUM_THREADS=1 python bench/judge_cv.py              # records (cached), LOSO table
    OPENBLAS_NUM_THREADS=1 python bench/judge_cv.py --fresh      # re-record every set
    OPENBLAS_NUM_THREADS=1 python bench/judge_cv.py --verify     # and replay blind9–12 judged
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import benchpath  # noqa: F401  (takes bench/ off sys.path)
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from extraction import batch_for, load, matches, sessions  # noqa: E402
from frames_cv import fold  # noqa: E402
from tuning_sets import RETIRED, TUNING_SETS  # noqa: E402

from uac.fact_log import pipeline  # noqa: E402
from uac.fact_log.catalog import Catalog  # noqa: E402
from uac.fact_log.extraction import frames, judge  # noqa: E402
from uac.fact_log.pipeline import HISTORY_LIMIT  # noqa: E402

CACHE = Path(os.environ.get("UAC_JUDGE_CACHE", "/tmp/uac-judge-records"))
NEW_WRITERS = RETIRED  # blind9–12: the closest estimate of a new writer
RIGHT, FALSE, NEITHER = 1, 0, -1


def catalog_paths(catalog: Catalog) -> tuple[str, ...]:
    """Every catalog path, one judge column each (a fixed order)."""
    return tuple(sorted([*catalog.attributes, *catalog.collections]))


@contextlib.contextmanager
def recording(
    catalog: Catalog, paths: tuple[str, ...], seen: list[dict[str, Any]]
) -> Iterator[None]:
    """The pipeline with every candidate after the guard recorded (features, key), unjudged."""
    real_framed, real_abstain = pipeline.framed, pipeline.abstain
    state: dict[str, Any] = {}

    def framed(text, observed_at, catalog_, history, rules):
        reading = real_framed(text, observed_at, catalog_, history, rules)
        state.update(framed=list(reading.candidates), at=observed_at)
        return reading

    def abstain(catalog_, text, found, today):
        kept, withheld = real_abstain(catalog_, text, found, today)
        if kept:
            x, _ = judge.features(catalog_, text, kept, state["framed"], state["at"], paths)
            for cand, row in zip(kept, x, strict=True):
                seen.append({"key": (cand.path, cand.start, cand.op), "x": row})
        return kept, withheld

    pipeline.framed, pipeline.abstain = framed, abstain
    try:
        yield
    finally:
        pipeline.framed, pipeline.abstain = real_framed, real_abstain


def record(name: str, catalog: Catalog, paths: tuple[str, ...]) -> dict[str, np.ndarray]:
    """One set's candidates: features, label, message and session index; expected count."""
    rows = load(ROOT / "bench" / "extraction_data" / f"{name}.jsonl")
    xs: list[np.ndarray] = []
    labels: list[int] = []
    expected = 0
    os.environ["UAC_FRAMES"], os.environ["UAC_JUDGE"] = "1", "0"
    with frames.without_examples([name]), fold(name, False):
        for _sname, part in sessions(rows).items():
            history: list[tuple[str, dt.datetime]] = []
            for row in part:
                seen: list[dict[str, Any]] = []
                with recording(catalog, paths, seen):
                    batch = batch_for(catalog, row, history[-HISTORY_LIMIT:])
                facts = [f for f in batch.facts if f.kind != "note" and f.op == "assert"]
                right = _matched(row["expected"], [(f.path, f.value) for f in facts])
                expected += len(row["expected"])
                verdict: dict[tuple[str, Any, str], list[int]] = {}
                for f, ok in zip(facts, right, strict=True):
                    off = f.evidence.get("offset") if isinstance(f.evidence, dict) else None
                    verdict.setdefault((f.path, off, "assert"), []).append(RIGHT if ok else FALSE)
                for s in seen:
                    got = verdict.get(s["key"])
                    xs.append(s["x"])
                    labels.append(got.pop(0) if got else NEITHER)
                if row.get("role", "user") == "user":
                    history.append((row["text"], dt.datetime.fromisoformat(row["observed_at"])))
    os.environ["UAC_JUDGE"] = "1"
    width = len(paths) + len(judge.SCALARS)
    return {
        "x": np.vstack(xs) if xs else np.zeros((0, width)),
        "y": np.array(labels, dtype=np.int64),
        "expected": np.array(expected),
    }


def _matched(expected: list[dict[str, Any]], facts: list[tuple[str, Any]]) -> list[bool]:
    """Which facts bench/extraction.py's tally counts right (each expected fact in order takes
    the first unmatched fact that satisfies it)."""
    ok = [False] * len(facts)
    for exp in expected:
        hit = next((i for i, f in enumerate(facts) if not ok[i] and matches(exp, f)), None)
        if hit is not None:
            ok[hit] = True
    return ok


def records(fresh: bool = False) -> dict[str, dict[str, np.ndarray]]:
    """Every tuning set's records, from the cache under /tmp when there."""
    catalog = Catalog.load()
    paths = catalog_paths(catalog)
    digest = f"{len(paths)}-{len(judge.SCALARS)}-topic"
    CACHE.mkdir(parents=True, exist_ok=True)
    out = {}
    for name in TUNING_SETS:
        cached = CACHE / f"{name}-{digest}.npz"
        if cached.is_file() and not fresh:
            with np.load(cached) as data:
                out[name] = {k: data[k] for k in data.files}
            continue
        out[name] = record(name, catalog, paths)
        np.savez(cached, **out[name])
        y = out[name]["y"]
        print(
            f"recorded {name}: {len(y)} candidates, right {(y == RIGHT).sum()}, "
            f"false {(y == FALSE).sum()}, not learned {(y == NEITHER).sum()}",
            file=sys.stderr,
        )
    return out


def counts(rec: dict[str, np.ndarray], keep: np.ndarray) -> tuple[int, int, int]:
    """(tp, fp, expected) of a set when only the candidates in `keep` are learned."""
    y = rec["y"]
    return int(((y == RIGHT) & keep).sum()), int(((y == FALSE) & keep).sum()), int(rec["expected"])


def pr(tp: int, fp: int, expected: int) -> str:
    p = tp / (tp + fp) if tp + fp else 0.0
    return f"{p:.3f} / {tp / expected:.3f} ({tp} / {fp})"


def fold_judge(recs: dict[str, dict[str, np.ndarray]], name: str, train_on: tuple[str, ...]):
    """The judge for scoring set `name`, trained as bench/judge_train.py trains it but
    without `name`: on `train_on`, its threshold chosen on the other sets' own
    leave-one-set-out probabilities (never on `name`)."""
    from judge_train import chosen_threshold, fit

    rest = {n: recs[n] for n in train_on if n != name}
    return fit(list(rest.values()), chosen_threshold(rest))


def main() -> int:
    from judge_train import THRESHOLD_ON, TRAIN_ON

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fresh", action="store_true", help="re-record every set (else the cache)")
    ap.add_argument("--verify", action="store_true", help="replay blind9–12 with the judge wired")
    ap.add_argument(
        "--train-on",
        choices=["all", "retired"],
        default="all",
        help="all: the judge learns from every tuning set (the default, as bench/judge_train.py "
        "trains it); retired: from blind9–12 only",
    )
    args = ap.parse_args()
    recs = records(args.fresh)
    names = list(TUNING_SETS)
    train_on = TRAIN_ON if args.train_on == "all" else NEW_WRITERS
    weights = {name: fold_judge(recs, name, train_on) for name in names}
    probs = {name: weights[name].probability(recs[name]["x"]) for name in names}
    print(
        f"the judge learns from: {', '.join(train_on)}; threshold chosen on: "
        f"{', '.join(THRESHOLD_ON)} (each scored set left out of both)"
    )
    print("| set | threshold | rules + frames P / R (tp / fp) | + judge P / R (tp / fp) |")
    print("|---|---:|---|---|")
    total = {"all": np.zeros(6, int), "new": np.zeros(6, int)}
    for name in names:
        rec = recs[name]
        before = counts(rec, np.ones(len(rec["y"]), bool))
        after = counts(rec, probs[name] >= weights[name].threshold)
        print(f"| {name} | {weights[name].threshold:.2f} | {pr(*before)} | {pr(*after)} |")
        total["all"] += np.array([*before, *after])
        if name in NEW_WRITERS:
            total["new"] += np.array([*before, *after])
    for key, label in (("all", "all 11 sets"), ("new", "blind9–12")):
        both = total[key]
        print(f"| **{label}** | | {pr(*both[:3])} | {pr(*both[3:])} |")
    print()
    print("summed LOSO over fixed thresholds (each set judged by its own fold's weights):")
    print("| threshold | all 11 sets P / R (tp / fp) | blind9–12 P / R (tp / fp) |")
    print("|---:|---|---|")
    for t in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        row = {"all": np.zeros(3, int), "new": np.zeros(3, int)}
        for name in names:
            c = np.array(counts(recs[name], probs[name] >= t))
            row["all"] += c
            if name in NEW_WRITERS:
                row["new"] += c
        print(f"| {t:.1f} | {pr(*row['all'])} | {pr(*row['new'])} |")
    if args.verify:
        verify(weights)
    return 0


def verify(weights: dict[str, judge.Weights]) -> None:
    """Replay blind9–12 through the pipeline with each fold's judge wired (`UAC_JUDGE=1`):
    the counts must equal those read from the records."""
    from extraction import new_counts, tally

    catalog = Catalog.load()
    print()
    print("replayed through the pipeline with each fold's judge wired:")
    os.environ["UAC_FRAMES"], os.environ["UAC_JUDGE"] = "1", "1"
    try:
        for name in NEW_WRITERS:
            CACHE.mkdir(parents=True, exist_ok=True)
            weights[name].save(CACHE / f"weights-without-{name}.npz")
            os.environ["UAC_JUDGE_WEIGHTS"] = str(CACHE / f"weights-without-{name}.npz")
            c = new_counts()
            rows = load(ROOT / "bench" / "extraction_data" / f"{name}.jsonl")
            with frames.without_examples([name]), fold(name, False):
                for _s, part in sessions(rows).items():
                    history: list[tuple[str, dt.datetime]] = []
                    for row in part:
                        batch = batch_for(catalog, row, history[-HISTORY_LIMIT:])
                        facts = [
                            (f.path, f.value)
                            for f in batch.facts
                            if f.kind != "note" and f.op == "assert"
                        ]
                        tally(c, row, facts, False)
                        if row.get("role", "user") == "user":
                            at = dt.datetime.fromisoformat(row["observed_at"])
                            history.append((row["text"], at))
            a = c["all"]
            print(f"  {name}: {pr(a['tp'], a['fp'], a['tp'] + a['fn'])}")
    finally:
        os.environ.pop("UAC_JUDGE_WEIGHTS", None)
        os.environ["UAC_JUDGE"] = "0"


if __name__ == "__main__":
    raise SystemExit(main())
