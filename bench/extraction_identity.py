"""Proof that a change to the rule extractor changed no output: one SHA-256 per message set.

Every candidate the patterns yield (kind, path, op, value, quote, start, confidence, what it
replaces) for every user message of the extraction sets and the active corpora, each read in
order with its session's earlier messages as history (as the pipeline passes them), with the
message's date notes (timemodel/ambiguity.py) and task progress (patterns/progress.py), is
written one line per message and hashed per set. Run it at a branch point and after a
change: equal hashes, equal behaviour. `--threads 8` also reads every set from eight threads
at once (each in its own order, sharing the extractor's caches as a Memory's threads do) and
checks each thread's answer for each message equals the serial one. `--stage` hashes the
whole extraction stage instead, as the pipeline runs it (`build_message_batch`: rules,
frames on the encoder, the guard and the judge): every fact, refusal and hint of each
message — the proof for a change to the encoder or the frames' scheduling.

    python bench/extraction_identity.py                  # hashes of every set
    python bench/extraction_identity.py --threads 8      # and the threaded check
    python bench/extraction_identity.py --dump out.txt   # the lines hashed, to diff two runs
    python bench/extraction_identity.py --stage          # rules + frames + guard + judge

It reads the tuning sets only (bench/tuning_sets.py) and each one's active corpus where it
has one: the blind sets are never read.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import threading
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

import benchpath  # takes bench/ off sys.path (stdlib-named scripts live there)

HERE = Path(__file__).resolve().parent

TUNING_SETS: tuple[str, ...] = benchpath.sibling("tuning_sets").TUNING_SETS
EXTRACTION_SETS = TUNING_SETS
# the active corpora: the first dialogues and each tuning set's own, where it has one
ACTIVE_SETS = ("dialogues", *(n for n in TUNING_SETS if (HERE / f"active_data/{n}.toml").exists()))

# (message id, text, when said) per session, sessions in file order
Sessions = list[list[tuple[str, str, dt.datetime]]]


def extraction_set(name: str) -> Sessions:
    """The user messages of one extraction set, grouped by session, each in time order."""
    by_session: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with (HERE / "extraction_data" / f"{name}.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                if row.get("role", "user") == "user":
                    by_session[row["session"]].append(row)
    return [
        [
            (r["id"], r["text"], dt.datetime.fromisoformat(r["observed_at"]))
            for r in sorted(rows, key=lambda r: r["observed_at"])
        ]
        for rows in by_session.values()
    ]


def active_set(name: str) -> Sessions:
    """The lines of one active corpus, one session per dated session of a dialogue."""
    with (HERE / "active_data" / f"{name}.toml").open("rb") as fh:
        dialogues = tomllib.load(fh)["d"]
    out: Sessions = []
    for d in dialogues:
        for n, session in enumerate(d["s"], start=1):
            day, lines = session[0], session[1:]
            # as bench/active.py says them: a minute apart from 09:00
            start = dt.datetime.fromisoformat(day) + dt.timedelta(hours=9)
            out.append(
                [
                    (f"{d['id']}/s{n}/{i}", line, start + dt.timedelta(minutes=i))
                    for i, line in enumerate(lines)
                ]
            )
    return out


def all_sets() -> dict[str, Sessions]:
    """Every set this proof covers, by name (tuning sets only, never a blind one)."""
    sets = {f"extraction/{n}": extraction_set(n) for n in EXTRACTION_SETS}
    sets |= {f"active/{n}": active_set(n) for n in ACTIVE_SETS}
    return sets


def _plain(value: Any) -> Any:
    """A value written so its repr is stable (dicts by key)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _plain(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_plain(v) for v in value)
    return value


def _fields(c: Any) -> tuple[Any, ...]:
    """Everything a candidate says, stably written."""
    value, replaces = _plain(c.value), _plain(c.replaces)
    return (c.kind, c.path, c.op, value, c.quote, c.start, c.confidence, replaces)


def read_session(session: list[tuple[str, str, dt.datetime]]) -> dict[str, str]:
    """Each message's candidates as one line, read in order with the session's history."""
    from uac.fact_log.extraction.patterns import extract
    from uac.fact_log.extraction.patterns.progress import parse_progress
    from uac.fact_log.extraction.timemodel import date_notes
    from uac.fact_log.pipeline import HISTORY_LIMIT

    out = {}
    history: list[tuple[str, dt.datetime]] = []
    for mid, text, at in session:
        found = extract(text, at, "user", None, history[-HISTORY_LIMIT:])
        # with the other readings of the rule modules: the pipeline's date notes, the
        # journal's task progress
        said = (date_notes(text, at.date()), parse_progress(text))
        out[mid] = repr([_fields(c) for c in found]) + " " + repr(said)
        history.append((text, at))
    return out


def read_stage(session: list[tuple[str, str, dt.datetime]]) -> dict[str, str]:
    """Each message's facts, refusals and hints from the pipeline's extraction stage, read
    in order with the session's history (as bench/extraction_throughput.py reads them)."""
    from uac.fact_log.addressing import Address
    from uac.fact_log.catalog import Catalog
    from uac.fact_log.pipeline import HISTORY_LIMIT, build_message_batch

    catalog, address = Catalog.load(), Address("default", "user", "bench")
    out = {}
    history: list[tuple[str, dt.datetime]] = []
    for mid, text, at in session:
        batch = build_message_batch(
            catalog,
            address,
            text,
            observed_at=at,
            recorded_at=at,
            role="user",
            session_id="identity",
            history=history[-HISTORY_LIMIT:],
        )
        facts: list[tuple[Any, ...]] = [
            (f.op, f.kind, f.path, _plain(f.value), f.record_key, f.text, f.source, f.confidence)
            for f in batch.facts
        ]
        facts += [(_plain(f.evidence), f.valid_from, f.valid_to) for f in batch.facts]
        refused = [(r.reason, r.path, _plain(r.detail), r.input_index) for r in batch.rejections]
        out[mid] = repr(facts) + " " + repr(refused) + " " + repr(_plain(batch.hints))
        history.append((text, at))
    return out


def read_all(sessions: Sessions, stage: bool = False) -> dict[str, str]:
    """read_session (or read_stage) over every session of a set."""
    out: dict[str, str] = {}
    for session in sessions:
        out |= read_stage(session) if stage else read_session(session)
    return out


def digest(answers: dict[str, str]) -> str:
    """The SHA-256 of a set's lines, in message order."""
    h = hashlib.sha256()
    for mid, line in answers.items():
        h.update(f"{mid}\t{line}\n".encode())
    return h.hexdigest()


def threaded(
    sets: dict[str, Sessions], serial: dict[str, str], threads: int, stage: bool = False
) -> int:
    """Read every set from `threads` threads at once; the number of answers unlike serial."""
    reader = read_stage if stage else read_session
    sessions = [s for group in sets.values() for s in group]
    wrong: list[str] = []

    def work(k: int) -> None:
        shift = k * len(sessions) // threads  # each thread in its own order
        for session in sessions[shift:] + sessions[:shift]:
            for mid, line in reader(session).items():
                if serial[mid] != line:
                    wrong.append(f"thread {k}: {mid}")

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for line in wrong[:20]:
        print(f"  differs: {line}")
    return len(wrong)


def main(argv: list[str] | None = None) -> int:
    """Print one SHA-256 per set; with --threads, also check threaded reads equal serial."""
    # (older revisions lack patterns.clear_caches: the throughput bench clears theirs)
    clear_caches = benchpath.sibling("extraction_throughput").clear_caches

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=0, help="also read from N threads")
    parser.add_argument("--dump", type=Path, help="write the hashed lines to this file")
    parser.add_argument(
        "--stage",
        action="store_true",
        help="hash the pipeline's whole extraction stage (rules, frames, guard, judge)",
    )
    args = parser.parse_args(argv)
    sets = all_sets()
    clear_caches()
    serial: dict[str, str] = {}
    lines = []
    for name, sessions in sets.items():
        answers = read_all(sessions, args.stage)
        print(f"{name:22} {len(answers):5} messages  {digest(answers)}")
        serial |= {f"{name}:{mid}": line for mid, line in answers.items()}
        lines += [f"{name}:{mid}\t{line}" for mid, line in answers.items()]
    print(f"{'all':22} {len(serial):5} messages  {digest(serial)}")
    if args.dump:
        args.dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.threads:
        clear_caches()
        named = {
            name: [[(f"{name}:{m}", t, at) for m, t, at in s] for s in sessions]
            for name, sessions in sets.items()
        }
        bad = threaded(named, serial, args.threads, args.stage)
        print(f"{args.threads} threads: {bad} answers unlike the serial ones")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
