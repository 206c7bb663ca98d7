"""Preview benchmark: `preview` of a write against doing the write (write → alert), same run.

Run from the repository root with the project's virtualenv:

    python bench/preview.py             # 1,000 and 10,000 facts, 5 runs each
    python bench/preview.py --quick     # 1,000 facts, 3 runs (a smoke run)
    python bench/preview.py --runs 7    # repetitions per size
    python bench/preview.py --dialogues # equivalence on every active dialogue corpus
    python bench/preview.py --dialogues --corpus blind7   # one corpus

What is timed, per subject size N (N - 4 transactions imported in batches of 5,000, a
penicillin allergy, passport attributes, one trip; written in `Memory.deferred()` so the
setup compiles and checks once). Each run, on the same state:

* preview: `Memory.preview` of one medication record that conflicts with the allergy (a new
  record key, so a new alert): the proposal built as the import would build it, the fold
  and render of log + proposal in memory, the checks, the plan against the stored alerts;
* write → alert: then the same record written for real with `Memory.import_records` on a
  reacting Memory (append + incremental compile + checks + storing the alert).

A preview carries from the subject's previous preview the modules of the collections that
did not change (as a compile carries them from the previous checkpoint): the warm-up run
is the first preview of the subject in the process, which builds every module; it is
reported apart ("first preview").

Each run also checks equivalence: the alert ids the preview named are the ids the write
raised.

--dialogues: equivalence on the active-check corpora (bench/active_data: the dev set and
every blind set), each dialogue in its own subject of one workspace per corpus. Two runs
per corpus: `lines` — each user line is previewed (`preview(text, at=...)`) and then
written (`add(text, at=...)`, reacting per message); `gold` — each session's gold facts (the
oracle files: what a perfect extractor learns) are previewed as typed facts and then
written in one deferred block, and the subject is checked as of the session's day.
Counted: previews whose raised alert ids equal the ids the write then raised (and cleared:
resolved ids), and controls (dialogues where no alert is justified) whose preview raised
an alert of a listed check.

Reported: medians, and preview / write (the target is at most 1x: a preview must not cost
more than doing it). One untimed warm-up run first (imports, caches).
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import benchpath  # keeps bench/ off sys.path; loads bench/active.py

from uac import Memory

T0 = dt.datetime(2025, 1, 10, 9)


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


def measure(size: int, runs: int) -> dict[str, float]:
    """Median ms of a preview and of the same write → alert, on a subject of `size` facts."""
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
        times: dict[str, list[float]] = {"preview": [], "write": []}
        for run in range(runs + 1):
            record = {"name": "amoxicillin", "start_date": f"2025-01-{run + 1:02d}"}
            now = T0 + dt.timedelta(minutes=run + 1)
            start = time.perf_counter()
            seen = mem.preview("s", facts=[{"path": "medications", "record": record}], now=now)
            took_preview = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            result = mem.import_records("s", "medications", [record], now=now)
            took_write = (time.perf_counter() - start) * 1000
            assert [a.check for a in result.alerts] == ["drug_allergy"]
            assert sorted(a.id for a in seen.raised) == sorted(a.id for a in result.alerts), run
            if run:  # run 0 warms up
                times["preview"].append(took_preview)
                times["write"].append(took_write)
            else:
                first = took_preview
    out = {name: statistics.median(values) for name, values in times.items()}
    out["facts"], out["first"] = facts, first
    return out


def _ids(alerts: list) -> list[str]:
    return sorted(a.id for a in alerts)


def equivalence(corpus: str, mode: str) -> dict[str, object]:
    """Previews of one corpus (lines or gold) against the writes that follow them."""
    active = benchpath.sibling("active")
    dialogues, oracle_file = active.CORPORA[corpus]
    gold: dict = {}
    if mode == "gold":
        import tomllib

        with oracle_file.open("rb") as fh:
            gold = tomllib.load(fh)["oracle"]
    counts = {"previews": 0, "same": 0, "raised": 0, "controls_loud": 0}
    diffs: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "ws", create=True) as mem:
        for d in active.load(None, dialogues):
            subject, listed = d["id"], set(d["checks"])
            for n, session in enumerate(d["s"], start=1):
                day, lines = session[0], session[1:]
                steps: list[tuple[str | None, list | None, dt.datetime]] = []
                if mode == "lines":
                    steps = [(line, None, active._when(day, i)) for i, line in enumerate(lines)]
                elif gold.get(subject, {}).get(str(n)):
                    facts = [
                        {"path": e["c"], "record": e["r"]}
                        if "c" in e
                        else {"path": e["p"], "value": e["v"]}
                        for e in gold[subject][str(n)]
                    ]
                    steps = [(None, facts, active._when(day, len(lines)))]
                else:
                    mem.check(subject, today=active._when(day, len(lines)).date())
                for text, facts, at in steps:
                    sid = f"s{n}"
                    seen = mem.preview(subject, text, facts=facts, at=at, session_id=sid, now=at)
                    if text is not None:
                        done = mem.add(subject, text, at=at, session_id=sid, now=at)
                        wrote = (_ids(done.alerts), _ids(done.alerts_resolved))
                    else:
                        with mem.deferred() as block:
                            active._gold(mem, subject, gold[subject][str(n)], at)
                        result = block.result(subject)
                        assert result is not None
                        wrote = (_ids([*result.new, *result.woken]), _ids(result.resolved))
                    saw = (_ids(seen.raised), _ids(seen.cleared))
                    counts["previews"] += 1
                    counts["raised"] += bool(saw[0])
                    counts["same"] += saw == wrote
                    if saw != wrote and len(diffs) < 5:
                        diffs.append(f"{subject} s{n}: preview {saw}, write {wrote}")
                    if d["session"] == 0 and any(a.check in listed for a in seen.raised):
                        counts["controls_loud"] += 1
    return {**counts, "diffs": diffs}


def main() -> None:
    """Run the benchmark and print a Markdown summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--dialogues", action="store_true")
    parser.add_argument("--corpus", action="append", help="with --dialogues (default: all)")
    args = parser.parse_args()
    if args.dialogues:
        corpora = args.corpus or list(benchpath.sibling("active").CORPORA)
        print(
            "| corpus | run | previews | same ids as the write | raised something | controls loud |"
        )
        print("|---|---|---:|---:|---:|---:|")
        for corpus in corpora:
            for mode in ("gold", "lines"):
                r = equivalence(corpus, mode)
                print(
                    f"| {corpus} | {mode} | {r['previews']} | {r['same']} | {r['raised']} | "
                    f"{r['controls_loud']} |",
                    flush=True,
                )
                for line in r["diffs"]:  # type: ignore[attr-defined]
                    print(f"  differs: {line}", file=sys.stderr)
        return
    sizes = [1000] if args.quick else [1000, 10_000]
    runs = args.runs or (3 if args.quick else 5)
    print(f"# preview bench {dt.date.today()} — {platform.platform()}, nproc={os.cpu_count()}")
    print(f"Python {platform.python_version()}; median of {runs} runs per size (after 1 warm-up)")
    print()
    print(
        "| facts | **preview ms** | write → alert ms | preview / write | first preview ms "
        "| same alert ids |"
    )
    print("|---:|---:|---:|---:|---:|---|")
    for size in sizes:
        r = measure(size, runs)
        print(
            f"| {int(r['facts']):,} | **{r['preview']:.1f}** | {r['write']:.1f} | "
            f"{r['preview'] / r['write']:.2f}x | {r['first']:.1f} | yes ({runs + 1}/{runs + 1}) |",
            flush=True,
        )


if __name__ == "__main__":
    main()
