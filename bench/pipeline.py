"""Write-pipeline benchmark: this tree against a baseline revision, measured in the same run.

Run from the repository root with the project's virtualenv:

    python bench/pipeline.py                    # baseline: the commit before the pipeline
    python bench/pipeline.py --baseline HEAD~3 --repeat 7

The baseline revision is extracted with `git archive` into a temporary directory and the
same measurements run there in a child process (PYTHONPATH points at it, so `import uac`
is the baseline's code). Three numbers per tree, each the median of --repeat runs:

* messages/s through `build_message_batch` over the extraction corpus (no I/O);
* messages/s through `Memory.add` (react=False: the pipeline plus one append per message);
* milliseconds to open an existing workspace (`Memory(home)`: the schema check).
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
    for _ in range(repeat):
        start = time.perf_counter()
        for row in rows:
            build_message_batch(
                catalog,
                addr,
                row["text"],
                observed_at=dt.datetime.fromisoformat(row["observed_at"]),
                recorded_at=now,
                role=row.get("role", "user"),
            )
        batch_rates.append(len(rows) / (time.perf_counter() - start))
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


def baseline(rev: str, repeat: int) -> dict[str, float]:
    """The same measurements on a baseline revision, in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "rev.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), rev], check=True)
        tree = Path(tmp) / "uac"
        tree.mkdir()
        with tarfile.open(archive) as tar:
            tar.extractall(tree, filter="data")
        env = {**os.environ, "PYTHONPATH": tmp}
        code = (
            f"import json, runpy; m = runpy.run_path({str(Path(__file__))!r}); "
            f"print(json.dumps(m['measure']({repeat})))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=tmp, check=True, capture_output=True
        )
        return json.loads(out.stdout.decode().strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Measure the baseline and this tree; print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default=DEFAULT_BASELINE)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    base = baseline(args.baseline, args.repeat)
    here = measure(args.repeat)
    print(f"| measure | baseline {args.baseline} | this tree | ratio |")
    print("|---|---:|---:|---:|")
    for key, label in (
        ("build_message_batch_per_s", "build_message_batch, messages/s"),
        ("add_per_s", "Memory.add (react=False), messages/s"),
        ("open_ms", "open an existing workspace, ms"),
    ):
        print(f"| {label} | {base[key]:,.1f} | {here[key]:,.1f} | {here[key] / base[key]:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
