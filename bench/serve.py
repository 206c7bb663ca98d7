"""Service load benchmark: `uac serve` under concurrent clients, against the same mix in process.

Run from the repository root with the project's virtualenv:

    python bench/serve.py                    # 200 subjects, 32 threads, 60 s per side
    python bench/serve.py --seconds 10       # a short run (debugging)
    python bench/serve.py --json out.json    # also write every number as JSON

Two sides, measured one after the other in the same run, each on a fresh workspace:

- service: a real `uac serve --port 0 --every 10s` subprocess on 127.0.0.1 (its scheduler
  runs during the load), reached through `uac.Client` with a tenant key;
- in-process (the baseline): one `Memory` shared by the same number of threads, with the
  same scheduler in a thread of this process (what `Service` runs: `run_once` every 10 s).

Both sides run each verb through `verbs.run`/`verbs.execute` (the server's own code path),
so the difference is the service: HTTP, JSON, auth, the server's thread pool and its
process boundary. Each side: seed the subjects (a passport date, a trip message, a note-like
message each, through the interface under test), then --threads threads issue for --seconds
a seeded random mix over the subjects: 70% reads (query, search, facts: equal thirds) and 30%
writes (add, set: half each). Recorded per verb: count, p50, p99; throughput; errors (each is
printed); lost writes (every acknowledged fact id of a set/add, and every archived input id
of an add, re-read afterwards through facts/inputs; target 0); `verify` of the hash chain.
The service side also times `uac --help` and a CLI call forwarded to the running server
(`uac --home H facts SUBJECT`) next to `python -c pass` (medians), and stops the server with
SIGTERM (expected exit status 0).

Only loopback is used; nothing is downloaded. Time is bounded: each side takes about
seed time + --seconds + the re-read, and every client call has a timeout.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TODAY = dt.date(2026, 12, 1)  # reads pass `today`: answers do not depend on the clock
READS = ("query", "search", "facts")
WRITES = ("add", "set")
PASSPORT = "identity.passport.expiry_date"
CITIES = [
    ("Tokyo", "Japan"),
    ("Paris", "France"),
    ("Berlin", "Germany"),
    ("Rome", "Italy"),
    ("Madrid", "Spain"),
    ("Lisbon", "Portugal"),
    ("Oslo", "Norway"),
    ("Vienna", "Austria"),
]
NOTES = [
    "I prefer aisle seats on long flights",
    "My favourite coffee is a flat white with oat milk",
    "Remember that my sister's birthday party is at the lake house",
    "I like quiet hotels close to the old town",
    "Please keep my meeting notes short and in bullet points",
    "I usually run in the park on Sunday mornings",
    "My dentist is Dr Alvarez on Market Street",
    "I am learning Portuguese before the summer",
]
SEARCHES = [
    "aisle seat",
    "coffee oat milk",
    "birthday party",
    "quiet hotel",
    "meeting notes",
    "running park",
    "dentist",
    "flight to Tokyo",
    "Portuguese lessons",
]
PROGRAMS = [
    "len(user.trips)",
    "user.passport.expiry_date.year if user.passport and user.passport.expiry_date else None",
    "sorted({t.city for t in user.trips if t.city})",
    "len([t for t in user.trips if t.depart and t.depart >= today])",
]

Call = Callable[[str, str | None, dict[str, Any]], Any]


def _day(rng: random.Random, start: dt.date, span: int) -> str:
    return (start + dt.timedelta(days=rng.randrange(span))).isoformat()


def trip_message(rng: random.Random) -> str:
    """A message the rule extractor turns into a travel.trips record."""
    city, _ = rng.choice(CITIES)
    return f"I'm flying to {city} on {_day(rng, dt.date(2027, 1, 1), 700)}"


def seed_calls(n: int) -> list[tuple[str, str, dict[str, Any]]]:
    """The seeding writes of subject n: a passport date, a trip message, a note-like message."""
    rng = random.Random(1000 + n)
    subject = f"s{n:03d}"
    return [
        (
            "set",
            subject,
            {"path": PASSPORT, "value": _day(rng, dt.date(2027, 1, 1), 2000)},
        ),
        ("add", subject, {"text": trip_message(rng)}),
        ("add", subject, {"text": rng.choice(NOTES)}),
    ]


def next_call(rng: random.Random, subjects: int) -> tuple[str, str, dict[str, Any]]:
    """One call of the mix: 70% reads (query/search/facts), 30% writes (add/set)."""
    subject = f"s{rng.randrange(subjects):03d}"
    roll = rng.random()
    if roll < 0.7:
        verb = READS[min(int(roll / 0.7 * 3), 2)]
        if verb == "query":
            return verb, subject, {"program": rng.choice(PROGRAMS), "today": TODAY.isoformat()}
        if verb == "search":
            return verb, subject, {"text": rng.choice(SEARCHES), "k": 5, "today": TODAY.isoformat()}
        return verb, subject, {}
    if roll < 0.85:
        text = trip_message(rng) if rng.random() < 0.5 else rng.choice(NOTES)
        return "add", subject, {"text": text}
    if rng.random() < 0.5:
        value = _day(rng, dt.date(2027, 1, 1), 2000)
        return "set", subject, {"path": PASSPORT, "value": value}
    return "set", subject, {"path": "identity.name", "value": f"Person {rng.randrange(10**6)}"}


@dataclass
class Acked:
    """What the writes acknowledged, per subject: fact ids (set/add) and input ids (add)."""

    facts: dict[str, set[str]] = field(default_factory=dict)
    inputs: dict[str, set[str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, verb: str, subject: str, out: Any) -> None:
        """Remember the ids a write's answer acknowledged."""
        if verb == "set":
            fact_ids, input_ids = [out["id"]], []
        else:
            fact_ids, input_ids = [f["id"] for f in out["facts"]], [out["input_id"]]
        with self.lock:
            self.facts.setdefault(subject, set()).update(fact_ids)
            self.inputs.setdefault(subject, set()).update(input_ids)


@dataclass
class Side:
    """What one side measured."""

    name: str
    seed_s: float = 0.0
    elapsed_s: float = 0.0
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    acked_facts: int = 0
    acked_inputs: int = 0
    lost_facts: int = 0
    lost_inputs: int = 0
    verify: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ops(self) -> int:
        """Completed calls of the load phase."""
        return sum(len(v) for v in self.latencies.values())

    @property
    def throughput(self) -> float:
        """Completed calls per second of the load phase."""
        return self.ops / self.elapsed_s if self.elapsed_s else 0.0

    def all_latencies(self) -> list[float]:
        """Every call's latency of the load phase, in seconds."""
        return [x for v in self.latencies.values() for x in v]


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def seed(side: Side, call: Call, subjects: int, threads: int, acked: Acked) -> None:
    """Write every subject's seeding calls, `threads` subjects at a time."""

    def one(n: int) -> None:
        for verb, subject, params in seed_calls(n):
            try:
                acked.record(verb, subject, call(verb, subject, params))
            except Exception as exc:  # counted and printed like the load's errors
                side.errors.append(
                    f"seeding {verb} {subject} {params}: {type(exc).__name__}: {exc}"
                )

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        for future in [pool.submit(one, n) for n in range(subjects)]:
            future.result()
    side.seed_s = time.perf_counter() - started


def load(
    side: Side, call: Call, subjects: int, threads: int, seconds: float, seed_: int, acked: Acked
) -> None:
    """Run the mix from `threads` threads for `seconds`; latencies, errors and acked ids."""
    per_thread: list[dict[str, list[float]]] = [{} for _ in range(threads)]
    errors: list[str] = []
    start = threading.Barrier(threads + 1)
    deadline = [0.0]

    def worker(i: int) -> None:
        rng = random.Random(seed_ * 1000 + i)
        mine = per_thread[i]
        start.wait()
        while time.monotonic() < deadline[0]:
            verb, subject, params = next_call(rng, subjects)
            began = time.perf_counter()
            try:
                out = call(verb, subject, params)
            except Exception as exc:  # every failure is counted and printed
                errors.append(
                    f"{verb} {subject} {params}: {type(exc).__name__}: {exc}\n"
                    + "".join(traceback.format_exception(exc)[-6:])
                )
                continue
            mine.setdefault(verb, []).append(time.perf_counter() - began)
            if verb == "query" and not out.get("ok"):  # a sandbox error is an answer, not raised
                errors.append(f"{verb} {subject} {params}: {out.get('error')}")
            if verb in WRITES:
                acked.record(verb, subject, out)

    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for t in pool:
        t.start()
    deadline[0] = time.monotonic() + seconds
    began = time.perf_counter()
    start.wait()
    for t in pool:
        t.join()
    side.elapsed_s = time.perf_counter() - began
    for mine in per_thread:
        for verb, values in mine.items():
            side.latencies.setdefault(verb, []).extend(values)
    side.errors.extend(errors)


def reread(side: Side, call: Call, acked: Acked, operator: Call | None = None) -> None:
    """Count acknowledged fact and input ids that facts/inputs no longer return; then
    `verify` the log through `operator` (on the service: the admin token, as `verify` reads
    every tenant's log and a tenant key may not call it)."""
    for subject, ids in sorted(acked.facts.items()):
        stored = {f["id"] for f in call("facts", subject, {})}
        side.acked_facts += len(ids)
        missing = ids - stored
        side.lost_facts += len(missing)
        if missing:
            side.errors.append(f"lost facts of {subject}: {sorted(missing)}")
    for subject, ids in sorted(acked.inputs.items()):
        stored = {i["id"] for i in call("inputs", subject, {})}
        side.acked_inputs += len(ids)
        missing = ids - stored
        side.lost_inputs += len(missing)
        if missing:
            side.errors.append(f"lost inputs of {subject}: {sorted(missing)}")
    side.verify = (operator or call)("verify", None, {})


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("UAC_URL", None)  # the forwarded CLI must find *this* server through server.json
    env.pop("UAC_API_KEY", None)
    return env


@contextlib.contextmanager
def serving(home: Path, log_path: Path, every: str) -> Iterator[dict[str, Any]]:
    """A `uac serve --port 0 --every EVERY` subprocess on 127.0.0.1; yields its server.json."""
    log = open(log_path, "w+")  # noqa: SIM115 - closed below, after the process ends
    argv = [sys.executable, "-m", "uac.runtime.cli", "--home", str(home), "serve"]
    proc = subprocess.Popen(
        [*argv, "--port", "0", "--every", every],
        stdout=subprocess.DEVNULL,
        stderr=log,
        env=_env(),
        cwd=ROOT,
    )
    info: dict[str, Any] | None = None
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        path = home / "server.json"
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(path.read_text())
            if data.get("pid") == proc.pid:
                info = data
                break
        time.sleep(0.1)
    if info is None:
        proc.kill()
        proc.wait()
        log.seek(0)
        raise SystemExit(f"uac serve did not start:\n{log.read()[-3000:]}")
    info["proc"] = proc
    try:
        yield info
    finally:
        if proc.poll() is None:
            stopped = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            try:
                info["exit_status"] = proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                info["exit_status"] = f"killed after 60 s ({proc.wait()})"
            info["stop_s"] = time.perf_counter() - stopped
        log.close()


def timed_runs(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, list[int]]:
    """Median wall time (seconds) of `runs` runs of a command, and their exit statuses."""
    times, codes = [], []
    for _ in range(runs):
        began = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, env=env, timeout=120, cwd=ROOT)
        times.append(time.perf_counter() - began)
        codes.append(done.returncode)
    return statistics.median(times), codes


def uac_command() -> list[str]:
    """The installed `uac` script of this interpreter's environment."""
    script = Path(sys.executable).with_name("uac")
    if script.exists():
        return [str(script)]
    found = shutil.which("uac")
    return [found] if found else [sys.executable, "-m", "uac.runtime.cli"]


def run_service(args: argparse.Namespace, work: Path) -> Side:
    """The service side: a real server, 32 Client threads."""
    from uac import Client

    side = Side("service")
    home = work / "service"
    log_path = work / "serve.log"
    with serving(home, log_path, args.every) as info:
        admin = Client(info["url"], info["admin_token"], tenant="default")
        key = admin.request("POST", "/v1/admin/keys", {"tenant": "default"})["token"]
        client = Client(info["url"], key, timeout=args.timeout)  # one connection per thread

        def call(verb: str, subject: str | None, params: dict[str, Any]) -> Any:
            return client.call(verb, subject, **params)

        acked = Acked()
        _say(f"service: seeding {args.subjects} subjects at {info['url']} ...")
        seed(side, call, args.subjects, args.seed_threads, acked)
        _say(f"service: seeded in {side.seed_s:.1f} s; load for {args.seconds:g} s ...")
        load(side, call, args.subjects, args.threads, args.seconds, args.seed, acked)
        _say(f"service: {side.ops} calls, {len(side.errors)} errors; re-reading ...")
        reread(side, call, acked, lambda verb, subject, params: admin.call(verb, subject, **params))
        _say("service: timing the CLI ...")
        env = _env()
        uac = uac_command()
        side.extra["python_pass_s"], _ = timed_runs(
            [sys.executable, "-c", "pass"], args.cli_runs, env
        )
        side.extra["uac_help_s"], codes = timed_runs([*uac, "--help"], args.cli_runs, env)
        side.extra["uac_help_status"] = codes
        side.extra["uac_facts_s"], codes = timed_runs(
            [*uac, "--home", str(home), "facts", "s000"], args.cli_runs, env
        )
        side.extra["uac_facts_status"] = codes
    side.extra["exit_status"] = info.get("exit_status")
    side.extra["stop_s"] = info.get("stop_s")
    text = log_path.read_text(errors="replace")
    statuses: dict[str, int] = {}
    scheduler_runs = 0
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            event = json.loads(line)
            if event.get("event") == "request":
                code = str(event.get("status"))
                statuses[code] = statuses.get(code, 0) + 1
            elif event.get("event") == "scheduler" and "run " in str(event.get("message")):
                scheduler_runs += 1
    side.extra["http_statuses"] = statuses
    side.extra["scheduler_log_lines"] = scheduler_runs
    side.extra["server_tracebacks"] = text.count("Traceback")
    if side.extra["server_tracebacks"]:
        side.errors.append("server log tracebacks:\n" + _tracebacks(text))
    return side


def _tracebacks(text: str) -> str:
    """The first three tracebacks of the server's log (its other lines are JSON events)."""
    found: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("Traceback"):
            found.append([])
        elif line.startswith("{"):
            if found and len(found) >= 3 and found[-1]:
                break
            continue
        if found:
            found[-1].append(line)
    return "\n\n".join("\n".join(lines[-30:]) for lines in found[:3])


def run_in_process(args: argparse.Namespace, work: Path) -> Side:
    """The baseline: one Memory shared by 32 threads, the scheduler in a thread."""
    from uac import Memory
    from uac.checks.scheduler import Every, parse_every
    from uac.checks.scheduler import serve as schedule
    from uac.runtime.api import verbs

    side = Side("in-process")
    home = work / "in-process"
    mem = Memory(home, create=True, actor="serve")
    stop = threading.Event()
    runs: list[str] = []

    def tick(today: dt.date) -> str:
        job = mem.run_once(today=today)
        return f"default: {job.subjects} subjects, {job.alerts_new} new alerts"

    scheduler = threading.Thread(
        target=schedule,
        args=(home, Every(parse_every(args.every)), tick),
        kwargs={"stop": stop, "log": runs.append},
        name="uac-scheduler",
        daemon=True,
    )
    scheduler.start()

    def call(verb: str, subject: str | None, params: dict[str, Any]) -> Any:
        return verbs.run(mem, verb, subject, params)

    try:
        acked = Acked()
        _say(f"in-process: seeding {args.subjects} subjects ...")
        seed(side, call, args.subjects, args.seed_threads, acked)
        _say(f"in-process: seeded in {side.seed_s:.1f} s; load for {args.seconds:g} s ...")
        load(side, call, args.subjects, args.threads, args.seconds, args.seed, acked)
        _say(f"in-process: {side.ops} calls, {len(side.errors)} errors; re-reading ...")
        reread(side, call, acked)
    finally:
        stop.set()
        scheduler.join(timeout=120)
        mem.close()
    side.extra["scheduler_log_lines"] = sum(1 for line in runs if "run " in line)
    return side


def machine() -> dict[str, Any]:
    """nproc, CPU model, load average, commit: what a reader needs to weigh the numbers."""
    model = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.strip()
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "loadavg": os.getloadavg(),
        "python": platform.python_version(),
        "commit": commit + ("+dirty" if dirty else ""),
        "command": " ".join(["python", "bench/serve.py", *sys.argv[1:]]),
    }


def _ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1000:.1f}"


def report(sides: list[Side], info: dict[str, Any]) -> str:
    """The markdown tables of a run."""
    out = [
        f"machine: {info['nproc']} cores, {info['cpu']}, Python {info['python']}; "
        f"load average before the run {info['loadavg'][0]:.2f} / {info['loadavg'][1]:.2f} / "
        f"{info['loadavg'][2]:.2f} (1/5/15 min); commit {info['commit']}",
        f"command: `{info['command']}`",
        "",
        "| side | verb | count | p50 ms | p99 ms |",
        "|---|---|---:|---:|---:|",
    ]
    for side in sides:
        for verb in (*READS, *WRITES):
            values = side.latencies.get(verb, [])
            out.append(
                f"| {side.name} | {verb} | {len(values):,} | {_ms(pct(values, 50))} | "
                f"{_ms(pct(values, 99))} |"
            )
        every = side.all_latencies()
        out.append(
            f"| {side.name} | **all** | {len(every):,} | {_ms(pct(every, 50))} | "
            f"{_ms(pct(every, 99))} |"
        )
    out += [
        "",
        "| side | seed s | load s | calls/s | errors | acked facts | lost | acked inputs | lost "
        "| verify |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for side in sides:
        verify = side.verify
        verdict = f"ok ({verify.get('checked')} facts)" if verify.get("ok") else f"FAILED {verify}"
        out.append(
            f"| {side.name} | {side.seed_s:.1f} | {side.elapsed_s:.1f} | {side.throughput:.1f} | "
            f"{len(side.errors)} | {side.acked_facts:,} | {side.lost_facts} | "
            f"{side.acked_inputs:,} | {side.lost_inputs} | {verdict} |"
        )
    by = {s.name: s for s in sides}
    if "service" in by and "in-process" in by:
        svc, base = by["service"], by["in-process"]
        p50s, p50b = pct(svc.all_latencies(), 50), pct(base.all_latencies(), 50)
        out += [
            "",
            f"service / in-process: throughput {svc.throughput / base.throughput:.2f}x, "
            f"p50 (all calls) {p50s / p50b:.2f}x",
        ]
        for verb in (*READS, *WRITES):
            a, b = pct(svc.latencies.get(verb, []), 50), pct(base.latencies.get(verb, []), 50)
            out[-1] += f"; {verb} p50 {a / b:.2f}x"
    if "service" in by:
        x = by["service"].extra
        out += [
            "",
            "| command (median of runs) | ms |",
            "|---|---:|",
            f"| `python -c pass` | {_ms(x['python_pass_s'])} |",
            f"| `uac --help` | {_ms(x['uac_help_s'])} |",
            f"| `uac --home H facts s000` (forwarded to the server) | {_ms(x['uac_facts_s'])} |",
            "",
            f"server: HTTP statuses {x['http_statuses']}; scheduler passes logged "
            f"{x['scheduler_log_lines']}; tracebacks in its log {x['server_tracebacks']}; "
            f"SIGTERM exit status {x['exit_status']} after {x['stop_s']:.1f} s; "
            f"CLI exit statuses {sorted(set(x['uac_help_status'] + x['uac_facts_status']))}",
        ]
    if "in-process" in by:
        out.append(f"in-process scheduler passes: {by['in-process'].extra['scheduler_log_lines']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit status 1 when there were errors, lost writes or a bad chain."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="load time per side")
    parser.add_argument("--threads", type=int, default=32, help="concurrent client threads")
    parser.add_argument("--subjects", type=int, default=200, help="subjects seeded and used")
    parser.add_argument("--seed-threads", type=int, default=8, help="threads while seeding")
    parser.add_argument("--seed", type=int, default=12, help="random seed of the mix")
    parser.add_argument("--every", default="10s", help="scheduler interval on both sides")
    parser.add_argument("--cli-runs", type=int, default=5, help="runs per timed CLI command")
    parser.add_argument("--timeout", type=float, default=120.0, help="per-call client timeout")
    parser.add_argument(
        "--side", choices=("both", "service", "in-process"), default="both", help="what to run"
    )
    parser.add_argument("--workdir", type=Path, help="keep the workspaces here (default: a tmp)")
    parser.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    info = machine()
    _say(f"load average before the run: {info['loadavg']}")
    sides: list[Side] = []
    with contextlib.ExitStack() as stack:
        if args.workdir:
            work = args.workdir
            work.mkdir(parents=True, exist_ok=True)
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="uac-serve-")))
        if args.side in ("both", "service"):
            sides.append(run_service(args, work))
        if args.side in ("both", "in-process"):
            sides.append(run_in_process(args, work))
    text = report(sides, info)
    print(text)
    for side in sides:
        for error in side.errors[:20]:
            print(f"\n{side.name} error: {error}", file=sys.stderr)
        if len(side.errors) > 20:
            print(f"\n{side.name}: {len(side.errors) - 20} more errors", file=sys.stderr)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "machine": info,
                    "sides": [
                        {
                            "name": s.name,
                            "seed_s": s.seed_s,
                            "elapsed_s": s.elapsed_s,
                            "throughput": s.throughput,
                            "verbs": {
                                v: {"count": len(x), "p50": pct(x, 50), "p99": pct(x, 99)}
                                for v, x in s.latencies.items()
                            },
                            "errors": s.errors,
                            "acked_facts": s.acked_facts,
                            "lost_facts": s.lost_facts,
                            "acked_inputs": s.acked_inputs,
                            "lost_inputs": s.lost_inputs,
                            "verify": s.verify,
                            "extra": s.extra,
                        }
                        for s in sides
                    ],
                },
                indent=2,
                default=str,
            )
        )
    bad = any(s.errors or s.lost_facts or s.lost_inputs or not s.verify.get("ok") for s in sides)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
