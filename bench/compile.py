"""Compile benchmark for uac: full and incremental compiles, many subjects, read baselines.

Run from the repository root with the project's virtualenv:

    python bench/compile.py            # full sizes (1k/10k/100k facts, 1,000 subjects x 100)
    python bench/compile.py --quick    # 10x smaller sizes, a smoke run
    python bench/compile.py --runs 5   # more repetitions (default 3; each number is a median)

Each workspace is built once per size (not timed) and copied to a fresh directory for every
run, so each run compiles a never-compiled subject. What is timed and what is not:

* full compile: `Memory.compile("alice")` on a subject holding N facts: N - 3 trip records
  imported into `travel.trips` with `import_records` in batches of 5,000, plus 3 attributes
  set with `Memory.set` (identity.name, identity.passport.expiry_date,
  preferences.verbosity). "wall" is the whole call; read/fold/render/ruff/validate/publish
  come from `CompileResult.timings`; "other" is wall minus their sum (address parsing,
  `record_checkpoint`, pruning old versions).
* incremental (on the 10,000-fact subject, right after its full compile): (a) one new
  attribute value via `Memory.set("alice", "preferences.verbosity", "detailed")`, after
  which the trips module is reused; (b) one new trip record with a new record key via
  `import_records`, after which the trips module is rendered again. Only the compile is
  timed, not the write before it.
* many subjects: `Memory.compile(all=True)` over S subjects x 100 trip facts each.
* read baselines, on the same workspace and connection, after one untimed warm-up read:
  `Store.facts(address)` (rows into `Fact` objects, in log order) and a bare
  `SELECT * FROM facts WHERE tenant = ? AND scope = ? AND subject = ?` + `fetchall()`.
* memory, three different numbers:
  - "peak RSS" (VmHWM of this process during a timed compile, after resetting it through
    /proc/self/clear_refs): everything the compiling process holds, Python objects, DuckDB
    buffers and loaded libraries, including what was resident before the compile started
    ("before" is shown alongside);
  - "validator RSS": max RSS of the child the warm validator forked to import and digest
    the checkpoint (reported by the small warm process itself through os.wait4, see
    `compiler.validator.last_child_maxrss_kib`), in a separate, untimed run per size;
  - "ruff RSS": max RSS of the ruff children. os.wait4 on a direct child would report this
    (large) process's size, so in that untimed run each ruff child is started through a
    small wrapper interpreter that reads its own child's ru_maxrss (`subprocess` is replaced
    inside `compiler.checkpoint` for the benchmark; the library file is not modified);
  - "tracemalloc peak": peak of Python-level allocations during the compile, from that same
    untimed run (tracemalloc slows Python code down, so it is never on during timed runs).
    It excludes DuckDB's own C++ memory and the child processes.
* a case whose first run takes more than 60 s gets only that one run (noted on stderr and
  in the "runs" column).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import NOW, SEED, trips
from ingest import machine_info as ingest_machine_info

import uac.compiler.checkpoint as checkpoint
from uac.compiler import validator
from uac.runtime.api.memory import Memory

TENANT = "bench"
SUBJECT = "alice"
BATCH = 5_000
ATTRIBUTES = (
    ("identity.name", "Alice Example"),
    ("identity.passport.expiry_date", "2031-05-17"),
    ("preferences.verbosity", "short"),
)
NEW_TRIP = {
    "city": "Oslo",
    "country": "NO",
    "depart": "2099-06-01",
    "return_date": "2099-06-09",
    "purpose": "leisure",
    "cost": "1234.50",
    "currency": "GBP",
    "transport": "plane",
}
PHASES = ("read", "fold", "render", "ruff", "validate", "publish")
SLOW_RUN = 60.0  # seconds: a size whose first run takes longer gets only that one run

# Targets from the issue.
TARGET_FULL_10K = 1.0  # seconds, full compile of 10,000 facts
TARGET_INCREMENTAL = 0.150  # seconds, compile after one new fact on 10,000 facts
LINEAR_SLACK = 1.2  # growth counts as linear if time per fact grows by at most this factor


# -- child process accounting ----------------------------------------------------------------

# A forked child's ru_maxrss starts from its parent's resident size (Linux records the old
# address space's high-water mark at exec), so os.wait4 on a child of this large process
# reports this process's size. Instead, in the memory pass only, every child of
# compiler.checkpoint is started through this small wrapper interpreter, whose own child's
# ru_maxrss is that child's real peak (or the wrapper's ~10 MiB, whichever is larger).
_WRAPPER = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
with open(sys.argv[1], "w") as fh:
    fh.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)
"""
CHILDREN: list[tuple[str, int]] = []  # (kind, max RSS in KiB) of each child while measuring
MEASURE_CHILDREN = False


def _run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """subprocess.run as compiler.checkpoint calls it; wrapped only while measuring."""
    if not MEASURE_CHILDREN:
        return subprocess.run(args, **kwargs)
    kind = "ruff" if "ruff" in Path(str(args[0])).name else "other"
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
        wrapped = [sys.executable, "-I", "-S", "-c", _WRAPPER, out.name, *args]
        done = subprocess.run(wrapped, **kwargs)
        CHILDREN.append((kind, int(out.read() or 0)))  # KiB on Linux
    return subprocess.CompletedProcess(args, done.returncode, done.stdout, done.stderr)


checkpoint.subprocess = types.SimpleNamespace(run=_run)  # type: ignore[assignment]


def child_rss(kind: str) -> float:
    """Largest max RSS (MiB) of the children of this kind since CHILDREN was cleared."""
    sizes = [kib for k, kib in CHILDREN if k == kind]
    return max(sizes) / 1024 if sizes else float("nan")


# -- in-process peak RSS ---------------------------------------------------------------------


def _status(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak_rss() -> float:
    """Reset VmHWM to the current RSS; returns the current RSS in MiB (nan if unsupported)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return _status("VmRSS")
    except OSError:
        return float("nan")


def peak_rss() -> float:
    return _status("VmHWM")


# -- workspaces ------------------------------------------------------------------------------


@contextmanager
def workdir() -> Iterator[Path]:
    """A fresh temporary directory, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="uac-bench-compile-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def build_single(home: Path, facts: int) -> None:
    """One subject with `facts` facts: facts - 3 trip records plus 3 attributes."""
    records = trips(facts - len(ATTRIBUTES), SEED)
    with Memory(home, TENANT, create=True, react=False) as mem:
        for i in range(0, len(records), BATCH):
            mem.import_records(SUBJECT, "travel.trips", records[i : i + BATCH], now=NOW)
        for path, value in ATTRIBUTES:
            mem.set(SUBJECT, path, value, now=NOW)
        assert len(mem.facts(SUBJECT)) == facts


def build_many(home: Path, subjects: int, per_subject: int) -> None:
    with Memory(home, TENANT, create=True, react=False) as mem:
        for s in range(subjects):
            mem.import_records(
                f"user{s:05d}", "travel.trips", trips(per_subject, SEED + s), now=NOW
            )


@contextmanager
def copy_of(template: Path) -> Iterator[Memory]:
    """A Memory opened on a fresh copy of a built workspace."""
    with workdir() as tmp:
        home = tmp / "ws"
        shutil.copytree(template, home)
        mem = Memory(home, TENANT, react=False)
        try:
            yield mem
        finally:
            mem.close()


# -- measurements ----------------------------------------------------------------------------


def timed_compile(mem: Memory, **how: Any) -> tuple[float, list[Any]]:
    t0 = time.perf_counter()
    results = mem.compile(**how)
    elapsed = time.perf_counter() - t0
    bad = [r for r in results if r.status != "published"]
    assert not bad, bad[0].error
    return elapsed, results


def split(wall: float, timings: dict[str, float]) -> dict[str, float]:
    out = {"wall": wall, **{p: timings.get(p, 0.0) for p in PHASES}}
    out["other"] = wall - sum(out[p] for p in PHASES)
    return out


def read_baselines(mem: Memory, names: Sequence[str]) -> tuple[float, float]:
    """Seconds for Store.facts and for a bare SELECT * ... fetchall over these subjects."""
    addrs = [mem.address(n) for n in names]
    con = mem.store.con
    sql = "SELECT * FROM facts WHERE tenant = ? AND scope = ? AND subject = ?"
    for addr in addrs[:1]:  # warm-up, not timed
        mem.store.facts(addr)
    t0 = time.perf_counter()
    for addr in addrs:
        mem.store.facts(addr)
    t1 = time.perf_counter()
    for addr in addrs:
        con.execute(sql, [addr.tenant, addr.scope, addr.subject]).fetchall()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def single_run(template: Path, incremental: bool) -> dict[str, Any]:
    """One full compile of SUBJECT (plus, if asked, the two incremental cases)."""
    out: dict[str, Any] = {}
    with copy_of(template) as mem:
        out["store_facts"], out["bare_select"] = read_baselines(mem, [SUBJECT])
        out["rss_before"] = reset_peak_rss()
        wall, (res,) = timed_compile(mem, subject=SUBJECT)
        out["rss_peak"] = peak_rss()
        out["full"] = split(wall, res.timings)
        out["facts"] = res.facts
        if incremental:
            mem.set(SUBJECT, "preferences.verbosity", "detailed", now=NOW)
            wall, (res,) = timed_compile(mem, subject=SUBJECT)
            assert res.reused == ["trips"], res.reused
            out["incr_attr"] = split(wall, res.timings)
            mem.import_records(SUBJECT, "travel.trips", [NEW_TRIP], now=NOW)
            wall, (res,) = timed_compile(mem, subject=SUBJECT)
            assert res.reused == [], res.reused
            out["incr_trip"] = split(wall, res.timings)
    return out


def memory_pass(template: Path) -> dict[str, float]:
    """One untimed full compile: tracemalloc peak and the children's real max RSS (MiB)."""
    global MEASURE_CHILDREN
    with copy_of(template) as mem:
        CHILDREN.clear()
        MEASURE_CHILDREN = True
        tracemalloc.start()
        try:
            timed_compile(mem, subject=SUBJECT)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            MEASURE_CHILDREN = False
    return {
        "tracemalloc": peak / 2**20,
        # The warm validator forks a child per request and reports that child's peak RSS.
        "validate": (validator.last_child_maxrss_kib() or float("nan")) / 1024,
        "ruff": child_rss("ruff"),
    }


def many_run(template: Path, names: Sequence[str]) -> dict[str, Any]:
    with copy_of(template) as mem:
        store_facts, bare = read_baselines(mem, names)
        wall, results = timed_compile(mem, all=True)
    assert len(results) == len(names), len(results)
    phases = {p: sum(r.timings.get(p, 0.0) for r in results) for p in PHASES}
    return {
        "full": split(wall, phases),
        "store_facts": store_facts,
        "bare_select": bare,
        "subjects": len(results),
    }


# -- driver ----------------------------------------------------------------------------------


def repeat(runs: int, fn: Callable[[], dict[str, Any]], label: str) -> list[dict[str, Any]]:
    samples = []
    for i in range(runs):
        t0 = time.perf_counter()
        samples.append(fn())
        took = time.perf_counter() - t0
        print(f"  [{label}: run {i + 1}/{runs} took {took:.1f} s]", file=sys.stderr, flush=True)
        if i == 0 and runs > 1 and took > SLOW_RUN:
            print(f"  [{label}: first run > {SLOW_RUN:g} s, using 1 run]", file=sys.stderr)
            break
    return samples


def med(samples: Sequence[dict[str, Any]], *keys: str) -> float:
    def get(s: dict[str, Any]) -> float:
        for k in keys:
            s = s[k]
        return s  # type: ignore[return-value]

    return statistics.median(get(s) for s in samples)


def med_split(samples: Sequence[dict[str, Any]], key: str) -> dict[str, float]:
    return {p: med(samples, key, p) for p in ("wall", *PHASES, "other")}


def machine_info() -> list[tuple[str, str]]:
    cpu = dict(ingest_machine_info())["cpu"]  # read the same way as bench/ingest.py
    return [
        ("nproc", str(os.cpu_count())),
        ("cpu", cpu),
        ("python", platform.python_version()),
        ("duckdb", duckdb.__version__),
        ("platform", platform.platform()),
        ("date", dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("commit", _git("rev-parse", "--short", "HEAD")),
        ("changed", _git("status", "--short", "--untracked-files=no").replace("\n", ";")),
    ]


def _git(*args: str) -> str:
    """Output of a git command in the repository (the code being measured), or '?'."""
    try:
        done = subprocess.run(
            ["git", *args], capture_output=True, text=True, cwd=Path(__file__).parents[1]
        )
    except OSError:
        return "?"
    return done.stdout.strip() or "-" if done.returncode == 0 else "?"


def split_table(rows: Sequence[tuple[str, dict[str, float], int]]) -> None:
    """Markdown table: one row per case, wall and phases in ms."""
    cols = ("wall", *PHASES, "other")
    print("| case | runs | " + " | ".join(f"{c} ms" for c in cols) + " |")
    print("|---|---:|" + "---:|" * len(cols))
    for label, s, runs in rows:
        cells = " | ".join(f"{s[c] * 1000:,.1f}" for c in cols)
        print(f"| {label} | {runs} | {cells} |")


def verdict(ok: bool) -> str:
    return "MET" if ok else "NOT MET"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x smaller sizes (smoke run)")
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (median)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    div = 10 if args.quick else 1
    runs = args.runs
    sizes = [1_000 // div, 10_000 // div, 100_000 // div]
    incr_size = sizes[1]
    subjects, per_subject = 1_000 // div, 100

    print("## machine\n")
    for key, value in machine_info():
        print(f"- {key}: {value}")
    print(f"- command: `{' '.join([Path(sys.executable).name, *sys.argv])}`")
    print(
        f"- sizes: {', '.join(f'{n:,}' for n in sizes)} facts; "
        f"{subjects:,} subjects x {per_subject}; median of {runs} runs\n"
    )

    single: dict[int, list[dict[str, Any]]] = {}
    traced: dict[int, dict[str, float]] = {}
    with workdir() as tmp:
        for n in sizes:
            template = tmp / f"single-{n}"
            t0 = time.perf_counter()
            build_single(template, n)
            print(
                f"  [built {n:,} facts in {time.perf_counter() - t0:.1f} s]",
                file=sys.stderr,
                flush=True,
            )

            def one(template: Path = template, incr: bool = n == incr_size) -> dict[str, Any]:
                return single_run(template, incr)

            single[n] = repeat(runs, one, f"{n:,}")
            traced[n] = memory_pass(template)
        template = tmp / "many"
        build_many(template, subjects, per_subject)
        with Memory(template, TENANT, react=False) as mem:
            names = [s.subject for s in mem.subjects()]
        many = repeat(runs, lambda: many_run(template, names), f"{subjects:,} subjects")

    # 1. full compile of one subject
    print("## 1. full compile, one subject (medians)\n")
    split_table([(f"{n:,} facts", med_split(single[n], "full"), len(single[n])) for n in sizes])
    print()
    print(
        "| facts | peak RSS MiB (before) | validator RSS MiB | ruff RSS MiB "
        "| tracemalloc peak MiB |"
    )
    print("|---:|---:|---:|---:|---:|")
    for n in sizes:
        s = single[n]
        print(
            f"| {n:,} | {med(s, 'rss_peak'):,.0f} ({med(s, 'rss_before'):,.0f}) "
            f"| {traced[n]['validate']:,.0f} | {traced[n]['ruff']:,.0f} "
            f"| {traced[n]['tracemalloc']:,.1f} |"
        )
    print()

    # 2. incremental
    inc = single[incr_size]
    attr, trip = med_split(inc, "incr_attr"), med_split(inc, "incr_trip")
    print(f"## 2. incremental compile after one new fact, {incr_size:,}-fact subject\n")
    split_table(
        [
            ("(a) new attribute value (trips reused)", attr, len(inc)),
            ("(b) new trip record (trips re-rendered)", trip, len(inc)),
            ("full compile, same subject", med_split(inc, "full"), len(inc)),
        ]
    )
    print()

    # 3. many subjects
    m = med_split(many, "full")
    n_many = subjects * per_subject
    print(f"## 3. compile(all=True), {subjects:,} subjects x {per_subject} facts\n")
    per = {k: v / subjects for k, v in m.items()}
    split_table(
        [
            (f"{subjects:,} subjects, total (phases summed)", m, len(many)),
            ("per subject, mean", per, len(many)),
        ]
    )
    print()

    # 4. baselines and growth
    print("## 4. read baselines and compile/read ratios (medians)\n")
    print(
        "| case | Store.facts ms | bare SELECT ms | compile wall ms | compile.read ms "
        "| wall / Store.facts | wall / bare SELECT | read phase / bare SELECT |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    cases = [(f"{n:,} facts, 1 subject", single[n]) for n in sizes]
    cases.append((f"{subjects:,} x {per_subject}, all subjects", many))
    for label, s in cases:
        sf, bare = med(s, "store_facts"), med(s, "bare_select")
        wall, read = med(s, "full", "wall"), med(s, "full", "read")
        print(
            f"| {label} | {sf * 1000:,.1f} | {bare * 1000:,.1f} | {wall * 1000:,.1f} "
            f"| {read * 1000:,.1f} | {wall / sf:,.1f}x | {wall / bare:,.1f}x "
            f"| {read / bare:,.1f}x |"
        )
    print()
    print("growth of the full compile (one subject)\n")
    print(
        "| facts | wall ms | µs per fact | marginal µs per added fact | "
        + " | ".join(f"{p} µs/fact" for p in PHASES)
        + " |"
    )
    print("|---:|---:|---:|---:|" + "---:|" * len(PHASES))
    prev: tuple[int, float] | None = None
    for n in sizes:
        s = med_split(single[n], "full")
        marginal = "" if prev is None else f"{(s['wall'] - prev[1]) / (n - prev[0]) * 1e6:,.1f}"
        phases = " | ".join(f"{s[p] / n * 1e6:,.1f}" for p in PHASES)
        print(
            f"| {n:,} | {s['wall'] * 1000:,.1f} | {s['wall'] / n * 1e6:,.1f} "
            f"| {marginal} | {phases} |"
        )
        prev = (n, s["wall"])
    print(
        f"\nmany subjects: {m['wall'] / n_many * 1e6:,.1f} µs per fact, "
        f"{m['wall'] / subjects * 1000:,.1f} ms per subject\n"
    )

    # targets
    full_10k = med(single[incr_size], "full", "wall")
    small, big = sizes[0], sizes[2]
    per_small = med(single[small], "full", "wall") / small
    per_big = med(single[big], "full", "wall") / big
    print("## targets\n")
    print(
        f"- full compile of {incr_size:,} facts < {TARGET_FULL_10K:g} s: {full_10k:.3f} s -> "
        f"{verdict(full_10k < TARGET_FULL_10K)}"
    )
    for label, s in (("(a) attribute", attr), ("(b) trip record", trip)):
        print(
            f"- incremental {label} < {TARGET_INCREMENTAL * 1000:g} ms: "
            f"{s['wall'] * 1000:.1f} ms -> {verdict(s['wall'] < TARGET_INCREMENTAL)}"
        )
    mid = med(single[sizes[1]], "full", "wall") / sizes[1]
    print(
        f"- linear growth (µs per fact at {big:,} within {LINEAR_SLACK:g}x of {sizes[1]:,}): "
        f"{per_small * 1e6:,.1f} at {small:,}, {mid * 1e6:,.1f} at {sizes[1]:,}, "
        f"{per_big * 1e6:,.1f} at {big:,} -> {verdict(per_big <= LINEAR_SLACK * mid)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
