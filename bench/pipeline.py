"""Write-pipeline benchmark: this tree against a baseline revision, measured in the same run.

Run from the repository root with the project's virtualenv:

    python bench/pipeline.py                    # baseline: the commit before the pipeline
    python bench/pipeline.py --baseline HEAD~3 --repeat 7

The baseline revision is extracted with `git archive` into a temporary directory and the
same measurements run there in a child process (PYTHONPATH points at it, so `import uac`
is the baseline's code). Three numbers per tree:

* messages per CPU second through `build_message_batch` over the extraction corpus (no I/O);
* messages/s through `Memory.add` (react=False: the pipeline plus one append per message);
* milliseconds to open an existing workspace (`Memory(home)`: the schema check).

Each run is a fresh interpreter, the two trees alternating, so load on a shared machine
falls on both; the table shows medians and this tree's ratio to the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "bench" / "data" / "extraction_corpus.jsonl"
DEFAULT_BASELINE = "241035a"  # the last commit before the write pipeline and schema owners


def measure(repeat: int) -> dict[str, float]:
    """Run the three measurements with whatever `uac` is importable; returns medians."""
    import datetime as dt

    from uac import Memory
    from uac.fact_log.addressing import Address
    from uac.fact_log.catalog import Catalog

    try:
        from uac.fact_log.pipeline import build_message_batch
    except ImportError:  # the baseline: the gate module built the batch
        from uac.fact_log.extraction.gate import build_message_batch  # type: ignore[no-redef]

    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    catalog = Catalog.load()
    addr = Address("default", "user", "bench")
    now = dt.datetime(2025, 3, 1, 10)
    batch_rates, add_rates, open_ms = [], [], []
    for row in rows[:50]:  # warm-up: catalog models, compiled regexes, lazy imports
        build_message_batch(catalog, addr, row["text"], observed_at=now, recorded_at=now)
    for _ in range(repeat):
        start = time.process_time()  # CPU time: pure computation, steadier on a shared box
        for row in rows:
            build_message_batch(
                catalog,
                addr,
                row["text"],
                observed_at=dt.datetime.fromisoformat(row["observed_at"]),
                recorded_at=now,
                role=row.get("role", "user"),
            )
        batch_rates.append(len(rows) / (time.process_time() - start))
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "ws"
            with Memory(home, create=True, react=False) as mem:
                start = time.perf_counter()
                for row in rows:
                    mem.add("bench", row["text"], role=row.get("role", "user"), now=now)
                add_rates.append(len(rows) / (time.perf_counter() - start))
            start = time.perf_counter()
            Memory(home, react=False).close()
            open_ms.append((time.perf_counter() - start) * 1000)
    return {
        "build_message_batch_per_s": statistics.median(batch_rates),
        "add_per_s": statistics.median(add_rates),
        "open_ms": statistics.median(open_ms),
    }


def _child(pythonpath: str | None) -> dict[str, float]:
    """One run of the measurements in a fresh interpreter (baseline code when pythonpath)."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    code = (
        f"import json, runpy; m = runpy.run_path({str(Path(__file__))!r}); "
        "print(json.dumps(m['measure'](1)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=pythonpath or str(ROOT),
        check=True,
        capture_output=True,
    )
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Measure the baseline and this tree alternately; print a Markdown table of medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default=DEFAULT_BASELINE)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    runs: dict[str, list[dict[str, float]]] = {"base": [], "here": []}
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "rev.tar"
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", "-o", str(archive), args.baseline], check=True
        )
        (Path(tmp) / "uac").mkdir()
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "uac", filter="data")
        # Alternate the two trees so a change in machine load hits both alike.
        for _ in range(args.repeat):
            runs["base"].append(_child(tmp))
            runs["here"].append(_child(None))
    base = {k: statistics.median(r[k] for r in runs["base"]) for k in runs["base"][0]}
    here = {k: statistics.median(r[k] for r in runs["here"]) for k in runs["here"][0]}
    print(f"| measure (median of {args.repeat}) | baseline {args.baseline} | this tree | ratio |")
    print("|---|---:|---:|---:|")
    for key, label in (
        ("build_message_batch_per_s", "build_message_batch, messages per CPU second"),
        ("add_per_s", "Memory.add (react=False), messages/s"),
        ("open_ms", "open an existing workspace, ms"),
    ):
        print(f"| {label} | {base[key]:,.1f} | {here[key]:,.1f} | {here[key] / base[key]:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
