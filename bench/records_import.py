"""Importing a checkpoint's records modules: this tree against another revision, side by side.

Run from the repository root with the project's virtualenv:

    python bench/records_import.py                          # 50,000 trips, 7 rounds
    python bench/records_import.py --compare-src OLD        # OLD holds another revision as uac/

Each side imports the same trips (bench/ingest.py's generator) into its own workspace and
compiles it with its own code. Then, alternating sides, each round is a fresh process that
imports the checkpoint (`loader.import_package`, files verified as a query zygote does) and
reports the CPU time of that import: what the shared decoding module (`_columns.py`) could
change on the query path. Reported: the median CPU per side and the ratio this / other.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import benchpath  # first: takes bench/ off sys.path (a stdlib-named script here shadows the stdlib)

ingest = benchpath.sibling("ingest")

BUILD = """
import json, sys
sys.path.append(sys.argv[3])  # after the stdlib: no script here shadows it
import ingest
from uac.runtime.api.memory import Memory
records = ingest.trips(int(sys.argv[2]), ingest.SEED)
with Memory(sys.argv[1], "bench", create=True, react=False) as mem:
    for i in range(0, len(records), 5_000):
        mem.import_records("alice", "travel.trips", records[i : i + 5_000])
    (res,) = mem.compile("alice")
    print(json.dumps({"status": res.status, "directory": str(res.directory), "error": res.error}))
"""

IMPORT = """
import json, sys, time
from pathlib import Path
from uac.compiler import loader
directory = Path(sys.argv[1])
started = time.process_time()
package = loader.import_package(directory, signed=False)
cpu = time.process_time() - started
print(json.dumps({"cpu_ms": cpu * 1000, "trips": len(package.state.user.trips)}))
"""


def _python(code: str, args: list[str], src: str | None) -> dict:
    env = dict(os.environ, PYTHONPATH=src) if src else None
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Build both sides, time the imports alternately and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--compare-src", help="a directory holding another revision as uac/")
    args = parser.parse_args()
    sides = {"this tree": None} | ({"other": args.compare_src} if args.compare_src else {})
    out: dict = {
        "machine": f"{os.cpu_count()} vCPU, {platform.processor() or platform.machine()}",
        "python": platform.python_version(),
        "load_average_start": os.getloadavg(),
        "records": args.records,
        "rounds": args.rounds,
    }
    with tempfile.TemporaryDirectory() as tmp:
        built = {}
        for n, (side, src) in enumerate(sides.items()):
            args_ = [str(Path(tmp) / f"ws{n}"), str(args.records), str(benchpath.HERE)]
            built[side] = _python(BUILD, args_, src)
            assert built[side]["status"] == "published", built[side]
        samples: dict[str, list[float]] = {side: [] for side in sides}
        for _ in range(args.rounds):
            for side, src in sides.items():
                got = _python(IMPORT, [built[side]["directory"]], src)
                assert got["trips"] == args.records, got
                samples[side].append(got["cpu_ms"])
    for side, values in samples.items():
        out[f"import CPU ms, {side}"] = round(statistics.median(values), 1)
    if args.compare_src:
        out["ratio this / other"] = round(
            out["import CPU ms, this tree"] / out["import CPU ms, other"], 3
        )
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
