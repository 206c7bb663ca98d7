"""The value-to-field assignment (fact_log/extraction/assign.py) scored leave-one-set-out.

Recording: every tuning set (bench/tuning_sets.py) is read through the extraction stage
(bench/extraction.py's batch_for, each message with its session's earlier ones), the
assignment off; at the guard every record (a collection path) is described as assign.py
describes it, each (field, value said) pair labelled from the message's gold: the expected
fact of the record's path that agrees with most of its fields, a pair positive when its
value equals that fact's value for the field (bench/extraction.py's `same`), unlabelled when
the fact says nothing of the field. Cached under /tmp/uac-assign-records (`--fresh` redoes).

Per left-out set S: the model is trained on every other tuning set, its fill threshold and
replacement margin chosen by leave-one-set-out inside those sets (never on S), written to
/tmp, and S is replayed by `bench/extraction.py --set S --extractor default` twice in the same
run: assignment off (as main) and on with that fold's weights. Nothing here reads a blind set.

    OPENBLAS_NUM_THREADS=1 python bench/assign_cv.py                    # LOSO, least-tuned sets
    OPENBLAS_NUM_THREADS=1 python bench/assign_cv.py --sets dev fresh   # other sets
    OPENBLAS_NUM_THREADS=1 python bench/assign_cv.py --train            # the shipped weights
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import pickle
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import benchpath  # type: ignore[import-not-found]  # noqa: F401  (takes bench/ off sys.path)
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from extraction import (  # type: ignore[import-not-found]  # noqa: E402
    SESSIONS,
    batch_for,
    load,
    same,
    sessions,
)
from tuning_sets import RETIRED, TUNING_SETS  # type: ignore[import-not-found]  # noqa: E402

from uac.fact_log import pipeline  # noqa: E402
from uac.fact_log.catalog import Catalog  # noqa: E402
from uac.fact_log.extraction import assign, frames  # noqa: E402
from uac.fact_log.extraction.abstain import _leaves  # noqa: E402
from uac.fact_log.extraction.patterns.text import sentences  # noqa: E402
from uac.fact_log.pipeline import HISTORY_LIMIT  # noqa: E402

CACHE = Path(os.environ.get("UAC_ASSIGN_CACHE", "/tmp/uac-assign-records"))
FILLS = (*(round(0.3 + 0.05 * i, 2) for i in range(14)), 2.0)  # 2.0: never
MARGINS = (*(round(0.1 * i, 1) for i in range(1, 10)), 2.0)
# A group: the pairs of one field of one record: (features, label) each, and the record's
# current value's flag per pair
Group = dict[str, Any]


def gold_for(cand: Any, expected: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The expected fact of the record's path that agrees with most of its fields."""
    same_path = [e for e in expected if e["path"] == cand.path]
    if not same_path:
        return None

    def agreed(exp: dict[str, Any]) -> int:
        return sum(same(want, cand.value.get(k)) for k, want in exp["values"].items())

    return max(same_path, key=agreed)


@contextlib.contextmanager
def recording(catalog: Catalog, out: list[Group], row: dict[str, Any]) -> Iterator[None]:
    real = pipeline.abstain

    def abstain(catalog_, text, found, today):
        by_path: dict[str, list[Any]] = {}
        for frame in frames.active_frames():
            by_path.setdefault(frame.path, []).append(frame)
        carried = frozenset(leaf for c in found for leaf in _leaves(c.value))
        spans = list(sentences(text))
        for cand in found:
            if (
                cand.op != "assert"
                or cand.replaces is not None
                or catalog_.collection(cand.path) is None
                or not isinstance(cand.value, dict)
            ):
                continue
            sentence = next((s for s in spans if s.start <= cand.start < s.end), None)
            gold = gold_for(cand, row["current"]["expected"])
            if sentence is None or gold is None:
                continue
            at = spans.index(sentence)
            end = spans[at + 1].end if at + 1 < len(spans) else sentence.end
            said = assign.pairs(
                catalog_,
                cand.path,
                cand.value,
                text[sentence.start : end],
                today,
                by_path.get(cand.path, ()),
                carried,
                (0, len(sentence.text)),
            )
            groups: dict[str, Group] = {}
            for p in said:
                want = gold["values"].get(p.field.name)
                if want is None:
                    continue
                g = groups.setdefault(
                    p.field.name,
                    {"features": [], "labels": [], "current": [], "held_ok": None},
                )
                g["features"].append(p.features)
                g["labels"].append(int(same(want, p.value)))
                g["current"].append(p.current)
                g["held_ok"] = same(want, cand.value.get(p.field.name))
            out.extend(groups.values())
        return real(catalog_, text, found, today)

    pipeline.abstain = abstain
    try:
        yield
    finally:
        pipeline.abstain = real


def record(name: str, catalog: Catalog) -> list[Group]:
    """The labelled groups of one set (assignment off)."""
    os.environ["UAC_ASSIGN"] = "0"
    rows = load(SESSIONS / f"{name}.jsonl")
    out: list[Group] = []
    current: dict[str, Any] = {}
    with recording(catalog, out, {"current": current}):
        for part in sessions(rows).values():
            history: list[tuple[str, dt.datetime]] = []
            for row in part:
                current.clear()
                current.update(row)
                batch_for(catalog, row, history[-HISTORY_LIMIT:])
                history.append((row["text"], dt.datetime.fromisoformat(row["observed_at"])))
    return out


def records(names: tuple[str, ...], fresh: bool = False) -> dict[str, list[Group]]:
    CACHE.mkdir(parents=True, exist_ok=True)
    catalog = Catalog.load()
    out = {}
    for name in names:
        cached = CACHE / f"{name}.pkl"
        if cached.exists() and not fresh:
            out[name] = pickle.loads(cached.read_bytes())
            continue
        out[name] = record(name, catalog)
        cached.write_bytes(pickle.dumps(out[name]))
    return out


def fit_model(groups: list[Group]) -> tuple[tuple[str, ...], np.ndarray, float]:
    feats = [f for g in groups for f in g["features"]]
    labels = np.array([y for g in groups for y in g["labels"]], dtype=np.int64)
    return assign.train(feats, labels)


def scored(groups: list[Group], model: tuple[tuple[str, ...], np.ndarray, float]) -> list:
    """Per group: (labels, current flags, probabilities, empty, other flags)."""
    vocab, coef, bias = model
    w = assign.Weights(vocab, coef, bias, 2.0, 2.0)
    return [(g, w.probability(g["features"])) for g in groups]


def gains(scored_groups: list, fill: float, margin: float) -> tuple[int, int]:
    """(fields made right, fields made wrong) by the decisions at these thresholds."""
    good = bad = 0
    for g, probs in scored_groups:
        feats, labels, current = g["features"], g["labels"], g["current"]
        best = max(range(len(probs)), key=lambda i: (probs[i], -i))
        if "other=0" not in feats[best]:
            continue
        if "empty=1" in feats[best]:
            clearing = sum(p >= fill for p in probs)
            if "carried=0" in feats[best] and probs[best] >= fill and clearing == 1:
                good += labels[best] == 1
                bad += labels[best] == 0
            continue
        held = [i for i in range(len(probs)) if current[i]]
        if not held or current[best] or probs[best] - max(probs[i] for i in held) < margin:
            continue
        was = bool(g["held_ok"])
        now = labels[best] == 1
        good += now and not was
        bad += was and not now
    return good, bad


def thresholds(recs: dict[str, list[Group]], names: tuple[str, ...]) -> tuple[float, float]:
    """The fill threshold and margin with the most fields made right less those made
    wrong, on leave-one-set-out probabilities inside `names`."""
    oof = []
    for held in names:
        model = fit_model([g for n in names if n != held for g in recs[n]])
        oof += scored(recs[held], model)
    fill = max(FILLS, key=lambda t: (_net(gains(oof, t, 2.0)), t))
    margin = max(MARGINS, key=lambda m: (_net(gains(oof, 2.0, m)), m))
    return fill, margin


def _net(gb: tuple[int, int]) -> int:
    return gb[0] - gb[1]


def weights_for(recs: dict[str, list[Group]], names: tuple[str, ...]) -> assign.Weights:
    vocab, coef, bias = fit_model([g for n in names for g in recs[n]])
    fill, margin = thresholds(recs, names)
    return assign.Weights(vocab, coef, bias, fill, margin)


_OVERALL = re.compile(r"\*\*overall\*\* \| (\d+) \| (\d+) \| (\d+) \|")


def bench(name: str, weights: Path | None) -> tuple[int, int, int]:
    """(expected, predicted, right) of bench/extraction.py on the set, assignment on/off."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "UAC_ASSIGN": "0" if weights is None else "1"}
    if weights is not None:
        env["UAC_ASSIGN_WEIGHTS"] = str(weights)
    cmd = [sys.executable, str(ROOT / "bench/extraction.py"), "--set", name, "--extractor",
           "default", "--repeat", "1"]  # fmt: skip
    if name in ("dev", "heldout"):
        cmd[3:4] = ["session", "--split", name]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    m = _OVERALL.search(out)
    assert m is not None, out
    return int(m[1]), int(m[2]), int(m[3])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="*", default=list(RETIRED))
    ap.add_argument("--fresh", action="store_true", help="re-record every set")
    ap.add_argument("--train", action="store_true", help="write the shipped weights")
    ap.add_argument("--no-bench", action="store_true", help="the fold's field gains only")
    args = ap.parse_args()
    recs = records(TUNING_SETS, args.fresh)
    for name in TUNING_SETS:
        n = sum(len(g["labels"]) for g in recs[name])
        print(f"{name}: {len(recs[name])} fields, {n} pairs", file=sys.stderr)
    if args.train:
        w = weights_for(recs, TUNING_SETS)
        w.save(assign.WEIGHTS_FILE)
        print(f"wrote {assign.WEIGHTS_FILE}: {len(w.vocab)} features, fill {w.fill}, "
              f"margin {w.margin}")  # fmt: skip
        return 0
    total = np.zeros(5, dtype=np.int64)
    print("| set | before right/predicted | P | R | after right/predicted | P | R | fields +/- |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.sets:
        others = tuple(n for n in TUNING_SETS if n != name)
        w = weights_for(recs, others)
        path = CACHE / f"weights-{name}.npz"
        w.save(path)
        model = (w.vocab, w.coef, w.bias)
        good, bad = gains(scored(recs[name], model), w.fill, w.margin)
        if args.no_bench:
            print(f"| {name} | fill {w.fill} margin {w.margin} | fields +{good} -{bad} |")
            continue
        exp, p0, r0 = bench(name, None)
        _, p1, r1 = bench(name, path)
        total += [exp, p0, r0, p1, r1]
        print(
            f"| {name} | {r0}/{p0} | {r0 / max(p0, 1):.3f} | {r0 / exp:.3f} | {r1}/{p1} | "
            f"{r1 / max(p1, 1):.3f} | {r1 / exp:.3f} | +{good} -{bad} (fill {w.fill}, "
            f"margin {w.margin}) |",
            flush=True,
        )
    if not args.no_bench:
        exp, p0, r0, p1, r1 = (int(v) for v in total)
        print(
            f"| **sum** | {r0}/{p0} | {r0 / max(p0, 1):.3f} | {r0 / max(exp, 1):.3f} | "
            f"{r1}/{p1} | {r1 / max(p1, 1):.3f} | {r1 / max(exp, 1):.3f} | |"
        )
        print(f"false facts: before {p0 - r0}, after {p1 - r1}; right: before {r0}, after {r1}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
