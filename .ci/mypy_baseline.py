"""Types checked in CI: mypy over the package, against a committed baseline that may only shrink.

    python .ci/mypy_baseline.py            # check (CI, .ci/run): exit 1 if errors grew
    python .ci/mypy_baseline.py --update   # after fixing errors: write the smaller baseline
    python .ci/mypy_baseline.py --update --allow-growth   # a merge brought new files' errors

The baseline (.ci/mypy-baseline.txt) holds each file's error count. The check fails when a
file has more errors than its line says (a new file: more than none), or when a file that
must stay clean has any: everything under runtime/api/, fact_log/store.py and
fact_log/backends/. Fewer errors pass, with a reminder to run --update so they cannot come
back. `--update` refuses to write a baseline with more errors than the committed one unless
`--allow-growth` says so (a merge of work checked against an older baseline): the
baseline's diff then shows the growth to whoever reviews it. Files that must stay clean
are never written into it.

The repository's root is the `uac` package (pyproject.toml maps it), so mypy reads it
through a link named `uac` in a temporary directory; its settings are pyproject.toml's
[tool.mypy].
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
# Files that must have no error at all (a prefix ending in "/" is a folder).
CLEAN = ("runtime/api/", "fact_log/store.py", "fact_log/backends/")
ERROR = re.compile(r"^uac/(?P<path>[^:]+\.pyi?):\d+(?::\d+)?: error: ")


def run_mypy() -> tuple[Counter[str], list[str]]:
    """Each file's error count, and mypy's error lines (paths relative to the root)."""
    with tempfile.TemporaryDirectory(prefix="uac-mypy-") as tmp:
        os.symlink(ROOT, Path(tmp) / "uac", target_is_directory=True)
        done = subprocess.run(
            [
                sys.executable, "-m", "mypy", "-p", "uac",
                "--config-file", str(ROOT / "pyproject.toml"),
                "--cache-dir", str(ROOT / ".mypy_cache"),
            ],
            capture_output=True, text=True, cwd=tmp, env={**os.environ, "MYPYPATH": tmp},
        )  # fmt: skip
    if done.returncode not in (0, 1):  # 2: mypy itself failed (bad config, crash)
        sys.exit(f"mypy failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    counts: Counter[str] = Counter()
    lines = []
    for line in done.stdout.splitlines():
        found = ERROR.match(line)
        if found:
            counts[found["path"]] += 1
            lines.append(line.removeprefix("uac/"))
    if done.returncode == 1 and not lines:  # "No module named mypy": no check ran at all
        sys.exit(f"mypy did not run (exit 1, no error read):\n{done.stdout}{done.stderr}")
    return counts, lines


def read_baseline() -> Counter[str]:
    counts: Counter[str] = Counter()
    for line in BASELINE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            path, count = line.rsplit(maxsplit=1)
            counts[path] = int(count)
    return counts


def write_baseline(counts: Counter[str]) -> None:
    lines = [
        "# mypy errors per file (python .ci/mypy_baseline.py): may only shrink.",
        f"# total {sum(counts.values())}",
        *(f"{path} {n}" for path, n in sorted(counts.items())),
    ]
    BASELINE.write_text("\n".join(lines) + "\n", encoding="utf-8")


def must_be_clean(path: str) -> bool:
    return any(path.startswith(c) if c.endswith("/") else path == c for c in CLEAN)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="write the (smaller) baseline")
    parser.add_argument(
        "--allow-growth", action="store_true", help="with --update: write it even if larger"
    )
    args = parser.parse_args()
    counts, lines = run_mypy()
    base = read_baseline() if BASELINE.exists() else None
    total = sum(counts.values())
    dirty = sorted(p for p in counts if must_be_clean(p))
    grew = sorted(p for p in counts if base is not None and counts[p] > base[p])
    for path in dict.fromkeys(dirty + grew):
        print("\n".join(line for line in lines if line.startswith(f"{path}:")))
    if dirty:
        print(f"mypy: errors in files that must stay clean: {', '.join(dirty)}")
    if grew:
        print(f"mypy: more errors than the baseline in: {', '.join(grew)}")
    if args.update:
        if base is not None and total > sum(base.values()) and not args.allow_growth:
            print(f"mypy: {total} errors, more than the baseline's {sum(base.values())}")
            return 1
        if dirty:
            return 1  # fix those first: they never go into the baseline
        write_baseline(counts)
        print(f"mypy: wrote {BASELINE.relative_to(ROOT)} ({total} errors)")
        return 0
    if base is None:
        print("mypy: no baseline; write one with: python .ci/mypy_baseline.py --update")
        return 1
    if dirty or grew:
        return 1
    before = sum(base.values())
    print(f"mypy: {total} errors (baseline {before}): none new")
    if total < before:
        print("mypy: fewer errors than the baseline: run .ci/mypy_baseline.py --update")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
