"""Alert benchmark: write → alert stored and delivered, and one scheduled run over many subjects.

Run from the repository root with the project's virtualenv:

    python bench/alerts.py             # 100 / 1,000 / 10,000 facts; 1,000 subjects
    python bench/alerts.py --quick     # 100 / 1,000 facts; 100 subjects (a smoke run)
    python bench/alerts.py --runs 7    # repetitions of each latency case (default 5)

What is timed:

* latency, per subject size N: the subject holds N facts (N - 4 transactions imported in
  batches of 5,000, a penicillin allergy, passport attributes, one trip), written inside
  `Memory.deferred()` so the setup compiles and checks once. Then each run times one API
  call, `Memory.import_records` of a medication that conflicts with the allergy (a new record
  key, so a new alert), on a reacting `Memory` (the default): append + incremental compile +
  checks + storing the alert + delivering it to a callback sink and to an HTTP webhook served
  by a real `http.server` on 127.0.0.1 in a thread. Baseline in the same run: the same kind
  of write with reactions off (append only). Reported: medians of the runs, the ratio, and
  the median of each compile phase (from the `checkpoints` table); "rest" is the reacting
  write minus the compile phases (append, loading the checkpoint, checks, alert rows,
  delivery).
* scheduled run over S subjects (10 facts each: passport, a trip, an allergy, two
  medications, four transactions; varied by a seeded RNG): (a) the first `run_once` that
  compiles every (changed) subject and evaluates it; (b) a steady-state `run_once` a day later
  where nothing changed: no compile, every subject's checkpoint loaded and all its checks run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from uac import Memory
from uac.checks import CallbackSink, WebhookSink
from uac.checks.scheduler import run_once

T0 = dt.datetime(2025, 1, 10, 9)
TODAY = dt.date(2025, 1, 10)
COUNTRIES = ["TH", "FR", "US", "IN", "JP", "GB", "SG", "DE", "ES", "AU"]
DRUGS = ["paracetamol", "warfarin", "ibuprofen", "sertraline", "tramadol", "lisinopril"]


class _Hook(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def _transactions(n: int, rng: random.Random) -> list[dict]:
    cats = ["dining", "groceries", "transport", "rent", "fun"]
    return [
        {
            "date": (dt.date(2024, 1, 1) + dt.timedelta(days=i % 365)).isoformat(),
            "amount": f"{rng.randint(100, 9999) / 100:.2f}",
            "merchant": f"Merchant {i}",
            "category": cats[i % len(cats)],
            "currency": "GBP",
        }
        for i in range(n)
    ]


PHASES = ("read", "fold", "render", "ruff", "validate", "publish")


def latency(size: int, runs: int, url: str) -> dict[str, float]:
    """Median ms of one reacting API write (append + compile + checks + store + deliver).

    Baseline in the same run: the same write with reactions off (append only).
    """
    rng = random.Random(size)
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "ws", create=True) as mem:
        with mem.deferred():  # the setup reacts once, at the end
            mem.set("s", "identity.passport.issuing_country", "GB", now=T0)
            mem.set("s", "identity.passport.expiry_date", "2031-01-01", now=T0)
            mem.import_records("s", "allergies", [{"substance": "penicillin"}], now=T0)
            mem.import_records("s", "trips", [{"country": "FR", "depart": "2025-03-01"}], now=T0)
            txs = _transactions(size - 4, rng)
            for i in range(0, len(txs), 5000):
                mem.import_records("s", "transactions", txs[i : i + 5000], now=T0)
        facts = len(mem.facts("s"))
        addr = mem.address("s")
        got: list = []
        mem.sinks = [CallbackSink(got.extend), WebhookSink(url, timeout=5, retries=2)]
        steps: dict[str, list[float]] = {"baseline": [], "total": [], "evaluate": []}
        steps.update({phase: [] for phase in PHASES})
        for run in range(runs):
            # Baseline: append the same kind of record without reacting.
            mem.react = False
            start = time.perf_counter()
            record = {"name": "paracetamol", "start_date": f"2024-12-{run + 1:02d}"}
            mem.import_records("s", "medications", [record], now=T0)
            steps["baseline"].append((time.perf_counter() - start) * 1000)
            mem.check("s", today=TODAY)  # catch up untimed, so the timed write starts clean
            mem.react = True
            start = time.perf_counter()
            record = {"name": "amoxicillin", "start_date": f"2025-01-{run + 1:02d}"}
            result = mem.import_records("s", "medications", [record], now=T0)
            steps["total"].append((time.perf_counter() - start) * 1000)
            assert len(result.alerts) == 1, result
            assert got[-1].id == result.alerts[0].id
            timings = json.loads(mem.store.checkpoints(addr)[-1]["timings"])
            for phase in PHASES:
                steps[phase].append(timings.get(phase, 0.0) * 1000)
            compiled = sum(timings.values()) * 1000
            steps["evaluate"].append(steps["total"][-1] - compiled)
    out = {name: statistics.median(values) for name, values in steps.items()}
    out["facts"] = facts
    return out


def scheduled(subjects: int) -> dict[str, float]:
    """Seconds of the first (compiling) and a steady-state scheduled run over many subjects."""
    rng = random.Random(20261129)
    # A back-fill: no reactions, so the first scheduled run is what compiles every subject.
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "ws", create=True, react=False) as mem,
    ):
        start = time.perf_counter()
        for n in range(subjects):
            name = f"u{n:05d}"
            expiry = dt.date(2025, 1, 1) + dt.timedelta(days=rng.randint(0, 3000))
            mem.set(name, "identity.passport.issuing_country", "GB", now=T0)
            mem.set(name, "identity.passport.expiry_date", expiry.isoformat(), now=T0)
            depart = TODAY + dt.timedelta(days=rng.randint(-30, 200))
            trip = {"country": rng.choice(COUNTRIES), "depart": depart.isoformat()}
            mem.import_records(name, "trips", [trip], now=T0)
            mem.import_records(name, "allergies", [{"substance": "penicillin"}], now=T0)
            meds = [{"name": d} for d in rng.sample([*DRUGS, "amoxicillin"], 2)]
            mem.import_records(name, "medications", meds, now=T0)
            mem.import_records(name, "transactions", _transactions(4, rng), now=T0)
        setup = time.perf_counter() - start
        home, store = mem.home, mem.store

        def compile_fn(addr):
            return mem.compile(str(addr))

        first = run_once(home, "default", TODAY, compile_fn, store=store)
        assert not first.errors, list(first.errors.items())[:3]
        steady = run_once(home, "default", TODAY + dt.timedelta(days=1), compile_fn, store=store)
        assert steady.compiled == 0 and not steady.errors
        return {
            "setup_s": setup,
            "first_s": first.duration_ms / 1000,
            "first_alerts": first.alerts_new,
            "steady_s": steady.duration_ms / 1000,
            "steady_open": steady.alerts_open,
            "facts": len(store.con.execute("SELECT 1 FROM facts").fetchall()),
        }


def main() -> None:
    """Run the benchmark and print a Markdown summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--subjects", type=int, default=None)
    args = parser.parse_args()
    sizes = [100, 1000] if args.quick else [100, 1000, 10_000]
    subjects = args.subjects or (100 if args.quick else 1000)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    print(f"# alerts bench {dt.date.today()} — {platform.platform()}, nproc={os.cpu_count()}")
    print(f"Python {platform.python_version()}; median of {args.runs} runs per latency case\n")
    print(
        "| facts | write alone ms (baseline) | **reacting write ms** | ratio | "
        + " | ".join(PHASES)
        + " | rest (write, load, checks, store, deliver) |"
    )
    print("|---:|---:|---:|---:|" + "---:|" * (len(PHASES) + 1))
    for size in sizes:
        r = latency(size, args.runs, url)
        print(
            f"| {int(r['facts']):,} | {r['baseline']:.1f} | **{r['total']:.1f}** | "
            f"{r['total'] / r['baseline']:.1f}x | "
            + " | ".join(f"{r[p]:.1f}" for p in PHASES)
            + f" | {r['evaluate']:.1f} |",
            flush=True,
        )
    s = scheduled(subjects)
    print(f"\nScheduled run over {subjects:,} subjects ({int(s['facts']):,} facts):")
    print(f"- setup (writes, untimed in runs): {s['setup_s']:.1f} s")
    print(f"- first run (compile all + evaluate): {s['first_s']:.1f} s, {s['first_alerts']} alerts")
    print(f"- steady run (no compile, all checks): {s['steady_s']:.2f} s, {s['steady_open']} open")
    server.shutdown()


if __name__ == "__main__":
    main()
