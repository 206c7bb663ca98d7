"""Train the judge (fact_log/extraction/judge.py) on every tuning set and write its weights.

The candidates of every tuning set are recorded as bench/judge_cv.py records them (rules +
frames as installed, the frames voting without the set's own examples; cached under /tmp) and
labelled right or false by bench/extraction.py's matching. A logistic regression
(`judge.train`: NumPy, float64, Newton steps with an L2 penalty; every column standardised; no
randomness: the same records give the same weights) is fitted on the sets of TRAIN_ON; the
threshold is the one chosen on the leave-one-set-out probabilities of the sets of
THRESHOLD_ON (`chosen_threshold`: the highest precision costing at most 0.01 recall). Writes
fact_log/judge_weights.npz (the same bytes for the same records). Run from the repository root:

    OPENBLAS_NUM_THREADS=1 python bench/judge_train.py
    OPENBLAS_NUM_THREADS=1 python bench/judge_train.py --out /tmp/judge.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import benchpath  # noqa: F401  (takes bench/ off sys.path)
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tuning_sets import RETIRED, TUNING_SETS  # noqa: E402

from uac.fact_log.extraction import judge  # noqa: E402

L2 = 3.0  # the penalty on every weight (not the bias), in standardised units
# The judge learns from every tuning set; its threshold is chosen on the sets closest to a new
# writer only (the retired blind sets, never tuned on): on the older sets the rules were fixed
# on their errors, so their few false facts say little about what a new writer's cost.
TRAIN_ON = TUNING_SETS
THRESHOLD_ON = RETIRED
MAX_RECALL_LOSS = 0.01  # what the threshold may cost: a share of the expected facts
GRID = tuple(round(0.01 * i, 2) for i in range(0, 96))


def fit(recs: list[dict[str, np.ndarray]], threshold: float = 0.5, l2: float = L2) -> judge.Weights:
    """The judge trained on the right / false candidates of these records."""
    from judge_cv import FALSE, RIGHT, catalog_paths

    from uac.fact_log.catalog import Catalog

    learned = [np.isin(r["y"], (RIGHT, FALSE)) for r in recs]
    x = np.vstack([r["x"][m] for r, m in zip(recs, learned, strict=True)])
    y = np.concatenate([r["y"][m] for r, m in zip(recs, learned, strict=True)])
    return judge.train(x, y, catalog_paths(Catalog.load()), threshold, l2)


def loso_probabilities(recs: dict[str, dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Each set's candidates judged by weights trained without it."""
    out = {}
    for name in recs:
        weights = fit([r for n, r in recs.items() if n != name])
        out[name] = weights.probability(recs[name]["x"])
    return out


def pick_threshold(
    recs: dict[str, dict[str, np.ndarray]],
    probs: dict[str, np.ndarray],
    max_loss: float = MAX_RECALL_LOSS,
) -> float:
    """The threshold of the highest summed precision whose summed recall is at most
    `max_loss` under the unjudged extractor's (ties: the lowest threshold)."""
    from judge_cv import FALSE, RIGHT

    expected = sum(int(r["expected"]) for r in recs.values())
    base_tp = sum(int((r["y"] == RIGHT).sum()) for r in recs.values())
    best, best_p = 0.0, -1.0
    for t in GRID:
        tp = sum(int(((r["y"] == RIGHT) & (probs[n] >= t)).sum()) for n, r in recs.items())
        fp = sum(int(((r["y"] == FALSE) & (probs[n] >= t)).sum()) for n, r in recs.items())
        if (base_tp - tp) / expected > max_loss or tp + fp == 0:
            continue
        if tp / (tp + fp) > best_p + 1e-12:
            best, best_p = t, tp / (tp + fp)
    return best


def chosen_threshold(recs: dict[str, dict[str, np.ndarray]]) -> float:
    """The threshold for a judge trained on `recs`: picked on the leave-one-set-out
    probabilities of those of them in THRESHOLD_ON."""
    probs = loso_probabilities(recs)
    on = [name for name in recs if name in THRESHOLD_ON]
    return pick_threshold({n: recs[n] for n in on}, {n: probs[n] for n in on})


def main() -> int:
    from judge_cv import records

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=judge.WEIGHTS_FILE, help="the weights file")
    ap.add_argument("--fresh", action="store_true", help="re-record every set (else the cache)")
    args = ap.parse_args()
    recs = {name: rec for name, rec in records(args.fresh).items() if name in TRAIN_ON}
    threshold = chosen_threshold(recs)
    weights = fit(list(recs.values()), threshold)
    weights.save(args.out)
    n = sum(int(np.isin(r["y"], (0, 1)).sum()) for r in recs.values())
    print(f"wrote {args.out}: {n} candidates, {len(weights.coef)} weights, threshold {threshold}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
