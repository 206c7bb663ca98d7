"""Cost of typed import shapes: compiling and loading nested records vs JSON text.

Run from the repository root with the project's virtualenv:

    python bench/shapes.py            # 1,000 and 5,000 records, 3 runs each (medians)
    python bench/shapes.py --quick    # 200 records, a smoke run

Each record (seeded RNG) has an int id, a name, a list of 3 tags, an address object
{city, zip, geo {lat, lon}} and a list of 2 medication objects {name, dose_mg decimal,
days list[date]}. Two cases are measured in the same run, on fresh workspaces:

* typed: the records imported as they are (lists → tuples, objects → nested dataclasses);
* baseline: the same records with every list and object replaced by its canonical JSON text
  before the import — what the compiler produced before shapes (one `str` per field).

Timed: `Memory.compile` (wall, plus its fold/render/ruff/validate timings) and loading the
published checkpoint in this process (`Memory.checkpoint`: imports schema.py, the records
module, and builds every object). The import itself is not timed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from uac import Memory
from uac.fact_log.values import canonical_json

NOW = dt.datetime(2025, 1, 1, 12)


def records(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """n nested records, deterministic."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        start = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 300))
        out.append(
            {
                "id": i * 7 + 1,
                "name": f"patient {i}",
                "tags": [rng.choice(["a", "b", "c", "d"]) for _ in range(3)],
                "address": {
                    "city": rng.choice(["Oslo", "Lyon", "Kyoto"]),
                    "zip": rng.randint(1000, 9999),
                    "geo": {"lat": Decimal(f"{rng.uniform(-80, 80):.4f}"), "lon": Decimal("1.5")},
                },
                "meds": [
                    {
                        "name": rng.choice(["ibuprofen", "statin", "cetirizine"]),
                        "dose_mg": Decimal(rng.choice(["10", "20.5", "400"])),
                        "days": [(start + dt.timedelta(days=d)).isoformat() for d in range(2)],
                    }
                    for _ in range(2)
                ],
            }
        )
    return out


def as_json_text(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The baseline: lists and objects as JSON text, as the compiler stored them before."""
    return [
        {k: canonical_json(v) if isinstance(v, list | dict) else v for k, v in r.items()}
        for r in recs
    ]


def one_run(recs: list[dict[str, Any]]) -> dict[str, float]:
    """Import into a fresh workspace (untimed), then time compile and checkpoint load."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "ws", create=True, react=False) as mem,
    ):
        for start in range(0, len(recs), 5000):
            mem.import_records("alice", "patients", recs[start : start + 5000], now=NOW)
        t = time.perf_counter()
        (result,) = mem.compile("alice")
        wall = time.perf_counter() - t
        assert result.status == "published", result.error
        t = time.perf_counter()
        user = mem.checkpoint("alice").user
        load = time.perf_counter() - t
        assert len(user.patients) == len(recs)
        return {
            "compile": wall,
            **{k: result.timings.get(k, 0.0) for k in ("fold", "render", "validate")},
            "load": load,
        }


def main() -> None:
    """Measure both cases at each size and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sizes = [200] if args.quick else [1000, 5000]
    python = sys.version.split()[0]
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {python}")
    print()
    print("| records | case | compile ms | fold | render | validate | load ms | ratio |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        typed = records(n)
        cases = {"baseline (JSON text)": as_json_text(typed), "typed shapes": typed}
        medians: dict[str, dict[str, float]] = {}
        for name, recs in cases.items():
            runs = [one_run(recs) for _ in range(args.runs)]
            medians[name] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        base = medians["baseline (JSON text)"]
        for name, m in medians.items():
            ratio = f"{m['compile'] / base['compile']:.2f}x / {m['load'] / base['load']:.2f}x"
            cells = " | ".join(
                f"{m[k] * 1000:.0f}" for k in ("compile", "fold", "render", "validate", "load")
            )
            print(f"| {n:,} | {name} | {cells} | {ratio} |")


if __name__ == "__main__":
    main()
