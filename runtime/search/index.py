"""Hybrid search over a subject's notes and archived inputs: BM25 + dense vectors, fused.

What is indexed: every `note` fact (op='assert', kind='note', path='notes'; the hit's id is
the fact id) and every archived input (`inputs.content`; the hit's id is the input id),
except inputs of kind 'command' (operator syntax such as "forget f_..") and 'import' (a
whole imported file; its records are typed state, answered exactly elsewhere), except
quarantined inputs (a secret or an instruction was refused in them: audit trail only), and
except the input a note fact was made from (the note stands for it, so one note is one hit).

Ranking: a lexical list (Okapi BM25, statistics per subject) and a dense list (cosine
similarity from a pluggable `Embedder`) are normalised (BM25 / the best BM25; cosine min-max
over the list) and added with weights. Reciprocal rank fusion, used before, gave a weak list
equal say and halved the score of an item missing from one list: with the hashing embedder
(which puts short turns of the same speaker on top, a name dominating a short vector) it
lost evidence turns that BM25 alone ranked in the top 10. Now an embedder declares whether it
is semantic; a non-semantic list is consulted only when BM25 is unsure and may reorder the
lexical top k but never displace one of them (see `_rank`). Recency (factor
0.5 + 0.5 * 0.5 ** (age_days / half_life_days)) only breaks near-ties: it adds at most
RECENCY_WEIGHT of the best relevance, because as a multiplier its 0.66..1 spread within one
conversation outweighed the ~1.15x between fused ranks 1 and 10. A time expression in the
query ("in March 2023", "last month", see timeq.py) becomes a window on the item's time.
Ties break on newer date, then log order, so the same data and `today` always give the
same list. A negatively marked hit has `negative_feedback=True` and half the score; a later
retract of the feedback fact restores its score.

Why not `PRAGMA create_fts_index` directly: DuckDB's FTS index is static — adding one note
means rebuilding it over the whole corpus (see bench/search.py for the cost at 100k notes),
and its statistics span every tenant. Instead this module keeps its own inverted index,
maintained incrementally, with terms from analyzer.py (irregular forms, no one-letter junk,
a weighted speaker field, Porter stems from the FTS extension) and BM25 computed in SQL.
tests/test_search.py checks the scores equal `match_bm25` over the same analysed terms.

Derived tables (all `search_*`, declared and migrated in runtime/search/schema.py):

* `search_meta` — watermarks (last fact seq and input seq indexed), embedder identity, and
  counters (`rebuilds`, `syncs`, `last_sync_docs`, `last_sync_vectors`).
* `search_subjects` — (tenant, scope, subject) -> small integer `sid`; every other table is
  keyed by sid, and every query filters on the one sid of the address asked for.
* `search_docs` — one row per indexed item: id, kind, text, date, weighted length, session.
* `search_postings` — (sid, term, doc, tf) plus the doc's length, kind and date copied in,
  so BM25 with filters reads this one table: the inverted index.
* `search_vectors` — (doc, sid, kind, date, vec FLOAT[dim], coarse FLOAT[32]) for the
  current embedder; `coarse` is a fixed fold of `vec` used to pick candidates when a
  subject holds more than EXACT_LIMIT vectors (below that the scan is exact).
* `search_hidden` — items never to return: targets of retract facts and note inputs,
  resolved to doc numbers when indexed.
* `search_feedback` — `op='feedback'` facts on notes (target, signal, reason, doc).

Incremental strategy: `sync()` reads only facts and inputs with seq above the stored
watermarks, appends their documents, postings and vectors, records retracts/feedback, and
advances the watermarks, all in one transaction. Adding one note therefore costs one small
tokenise+stem INSERT and one embedding, independent of corpus size; nothing is ever
rebuilt. Corpus statistics (N, avgdl, df) are computed at query time from the postings of
the query terms only, so they are always exact without any maintenance. `rebuild()` drops
and recomputes everything from the log (after a legal erase, or to change tokenisation);
switching embedder re-embeds all documents but keeps the postings.

Writable vs read-only: on a writable store `search()` calls `sync()` first, so results
always reflect the whole log. A read-only store cannot write the derived tables, so it
searches what was indexed at the last sync (nothing if never synced); `pending()` tells how
many facts/inputs are not yet indexed, and a read-only store whose vectors came from a
different embedder falls back to the lexical list alone.

Note and query text are hostile: they only ever reach SQL as bound parameters.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import pyarrow as pa

from uac.fact_log.addressing import Address
from uac.fact_log.duck import load_fts
from uac.fact_log.erase import IDS, SEQS, listed
from uac.fact_log.errors import InputError
from uac.fact_log.extraction.screen import QUARANTINE_REASONS
from uac.fact_log.schema import forget, migrate
from uac.fact_log.store import NewFact, Store
from uac.runtime.search import timeq
from uac.runtime.search.analyzer import Analyzer, split_speaker
from uac.runtime.search.embedders import Embedder, HashingEmbedder, is_semantic
from uac.runtime.search.schema import SEARCH

LAYOUT = "3"  # bump when the search_* tables change shape; a writable store then rebuilds
RRF_K = 60  # only for the informational `rrf` of a hit; ranking uses weighted score fusion
BM25_K1 = 1.2
BM25_B = 0.3
# Fusion weights: the lexical list is the reference (1.0). A semantic embedder's list gets
# equal say; a non-semantic one (feature hashing) is consulted only when the lexical list
# cannot be trusted alone (a query word unknown to the subject, or fewer than k matches) and
# then weighs VECTOR_WEIGHT_NON_SEMANTIC (tuned on the dev half of bench/data/conv_*).
VECTOR_WEIGHT_SEMANTIC = 1.0
VECTOR_WEIGHT_NON_SEMANTIC = 0.1
VECTOR_WEIGHT_UNKNOWN_WORD = 0.1
# Recency breaks ties: its whole range (factor 0.5..1) moves a score by at most
# RECENCY_WEIGHT/2 of the best relevance, so it reorders near-equal items only. A query
# asking for what is new ("recently", "latest") weighs it RECENCY_WEIGHT_CUED instead.
RECENCY_WEIGHT = 0.02
RECENCY_WEIGHT_CUED = 0.3
# Inside a time window ("what did she do in March?") the question asks what happened, and
# the few remaining words (often just a name) favour the shortest turns; this prior for
# longer, wordier items counters BM25's short-document bias there.
WINDOW_SUBSTANCE_WEIGHT = 1.0
# hops=2: the second pass (query + names found in the first hits) adds items below the best
# first-pass item; its best scores HOP_DISCOUNT of the first pass's best.
HOP_DISCOUNT = 0.9
# Neighbours of an item without a session: items without one within this time either side.
NEIGHBOUR_GAP = dt.timedelta(hours=2)
FEEDBACK_FACTOR = 0.5
NOT_THIS = "not_this"
SKIPPED_INPUT_KINDS = ("command", "import")
_SKIPPED = ", ".join(f"'{k}'" for k in SKIPPED_INPUT_KINDS)  # our constants, not user text
_QUARANTINE = ", ".join(f"'{r}'" for r in QUARANTINE_REASONS)  # ditto
MAX_INPUT_CHARS = 32_768  # an archived input longer than this is indexed by its head only
_EMBED_BATCH = 512
# Above this many vectors in one subject the dense list is found in two stages: a scan of
# COARSE_DIM-dimensional folded vectors picks candidates, exact cosine ranks them. DuckDB
# stores FLOAT arrays ALP-compressed and scans them on one thread per 122,880-row group,
# so an exact 256-dim scan of 100k rows costs ~70 ms; the coarse scan ~13 ms.
EXACT_LIMIT = 20_000
COARSE_DIM = 32
COARSE_CANDIDATES = 2_000
_EPOCH = dt.datetime(1970, 1, 1)
_TERM = re.compile(r"[a-z0-9]+")
# A name in a hit, for the second hop: a capitalised word not opening a sentence, and the
# capitalised words following it ("Florence and the Machine" gives "Florence", "Machine").
_NAME = re.compile(r"(?<=[a-z0-9,;] )[A-Z][a-z]+(?: [A-Z][a-z]+)*")

Kind = Literal["note", "input"]


_TABLES = (
    "search_meta",
    "search_subjects",
    "search_docs",
    "search_postings",
    "search_hidden",
    "search_feedback",
    "search_vectors",
    "search_terms",
)


RECENCY_FLOOR = 0.5


def recency_factor(age_days: float, half_life_days: float) -> float:
    """How much an item's age lowers its score: from 1.0 (new) down to RECENCY_FLOOR."""
    return RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * math.pow(0.5, age_days / half_life_days)


@dataclass(frozen=True, slots=True)
class Neighbour:
    """An item next to a hit: same session (or close in time), `offset` turns away."""

    id: str
    kind: str
    text: str
    date: dt.datetime
    offset: int  # -1 the item just before the hit, +1 just after


@dataclass(frozen=True, slots=True)
class _Scope:
    """What one ranking pass searches: a subject, filters, time windows, list depth."""

    sid: int
    kind: str | None
    since: dt.datetime | None
    windows: tuple[timeq.Window, ...]
    depth: int


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One ranked item with the parts its score is made of."""

    id: str  # fact id for a note, input id for an input
    kind: str  # "note" | "input"
    text: str
    date: dt.datetime  # when the note was recorded / the input observed (naive UTC)
    score: float  # (relevance + recency tie-break) * feedback
    bm25_rank: int | None
    vector_rank: int | None
    rrf: float
    recency: float
    feedback: float
    negative_feedback: bool
    bm25: float | None = None
    cosine: float | None = None
    lexical: float | None = None  # BM25 / the list's best BM25 (0..1); None: not in the list
    vector: float | None = None  # cosine min-max normalised over the dense list (0..1)
    relevance: float = 0.0  # lexical + vector weight * vector (+ window prior), before recency
    neighbours: tuple[Neighbour, ...] = field(default=())


def feedback_fact(note_id: str, reason: str | None = None) -> NewFact:
    """The fact recording "not this" negative feedback on a note (or input) of a subject."""
    if not isinstance(note_id, str) or not note_id:
        raise InputError("feedback needs the id of the note it is about")
    return NewFact(
        op="feedback",
        kind="note",
        path="notes",
        value={"target": note_id, "signal": NOT_THIS, "reason": reason},
        text=reason,
        source="explicit_command",
    )


class SearchIndex:
    """The incremental hybrid index of one workspace; searches are always per subject."""

    def __init__(self, store: Store, embedder: Embedder | None = None) -> None:
        self.store = store
        self.embedder: Embedder = embedder if embedder is not None else HashingEmbedder()
        # Caches of search_meta and of which search_* tables exist: the connection holds the
        # workspace lock, so only this process changes them, and sync() re-reads the meta.
        self._meta_cache: dict[str, str] | None = None
        self._tables: set[str] | None = None
        # Per-search lookups that only change when sync() indexes something.
        self._sids: dict[Address, int] = {}
        self._disliked: dict[int, frozenset[int]] = {}
        self._sizes: dict[int, int] = {}
        self.analyzer = Analyzer(self._porter)
        load_fts(self.con)  # for stem(); loaded from its PyPI package, never downloaded
        if not store.read_only:
            self._ensure_tables()

    @property
    def con(self) -> Any:
        """The calling thread's cursor: a DuckDB cursor must never be shared between threads."""
        # Memory's search lock serialises searches, not the calling thread's other work: a
        # cursor kept from the thread that built the index would run a search's BEGIN inside
        # that thread's append or compile.
        return self.store.con

    # -- maintenance -----------------------------------------------------------------------

    def _ensure_tables(self) -> None:
        if self._has_table("search_meta") and self._meta("layout") != LAYOUT:
            self._drop_all()  # written by another version of this module: derived, so redo
        migrate(self.con, [SEARCH], allow=True, where=str(self.store.home))
        self._tables = None
        if self._meta("layout") is None:
            self._set_meta(layout=LAYOUT)
        self._ensure_vectors()

    def _ensure_vectors(self) -> None:
        # FLOAT[dim] is fixed per table, so a different embedder gets a fresh vectors table.
        ident = self._embedder_ident()
        if self._meta("embedder") == ident and self._has_table("search_vectors"):
            return
        self.con.execute("BEGIN")
        try:
            self.con.execute("DROP TABLE IF EXISTS search_vectors")
            # kind and date are copied here so the dense scan filters without a join.
            self.con.execute(
                "CREATE TABLE search_vectors (doc BIGINT NOT NULL, sid INTEGER NOT NULL,"
                " kind VARCHAR NOT NULL, at_ts TIMESTAMP NOT NULL,"
                f" vec FLOAT[{int(self.embedder.dim)}] NOT NULL,"
                f" coarse FLOAT[{COARSE_DIM}] NOT NULL)"
            )
            self._embed_docs_after(0)
            self._set_meta(embedder=ident)
            self.con.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        self._tables = None

    def _rollback(self) -> None:
        self.con.execute("ROLLBACK")
        self._forget_caches()

    def _forget_caches(self) -> None:
        self._meta_cache = None
        self._tables = None
        self._sids.clear()
        self._disliked.clear()
        self._sizes.clear()

    def _embedder_ident(self) -> str:
        return f"{self.embedder.name}|{int(self.embedder.dim)}"

    def _has_table(self, name: str) -> bool:
        if self._tables is None:
            rows = self.con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"
                " AND database_name = current_database() AND table_name LIKE 'search%'"
            ).fetchall()
            self._tables = {r[0] for r in rows}
        return name in self._tables

    def _meta(self, key: str) -> str | None:
        if self._meta_cache is None:
            if not self._has_table("search_meta"):
                return None
            rows = self.con.execute("SELECT key, value FROM search_meta").fetchall()
            self._meta_cache = {str(k): str(v) for k, v in rows}
        return self._meta_cache.get(key)

    def _meta_int(self, key: str) -> int:
        value = self._meta(key)
        return int(value) if value is not None else 0

    def _set_meta(self, **values: str | int) -> None:
        items = sorted((k, str(v)) for k, v in values.items())
        marks = ", ".join("(?, ?)" for _ in items)
        self.con.execute(
            f"INSERT OR REPLACE INTO search_meta VALUES {marks}", [x for kv in items for x in kv]
        )
        if self._meta_cache is not None:
            self._meta_cache.update(items)

    def _log_heads(self) -> tuple[int, int]:
        row = self.con.execute(
            "SELECT (SELECT coalesce(max(seq), 0) FROM facts),"
            " (SELECT coalesce(max(seq), 0) FROM inputs)"
        ).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    def pending(self) -> tuple[int, int]:
        """(facts, inputs) in the log above the indexed watermarks."""
        facts, inputs = self._log_heads()
        return (
            max(0, facts - self._meta_int("fact_seq")),
            max(0, inputs - self._meta_int("input_seq")),
        )

    def stats(self) -> dict[str, int]:
        """Sizes and counters of the index, for tests, benchmarks and `uac doctor`."""
        out = {
            k: self._meta_int(k)
            for k in (
                "fact_seq",
                "input_seq",
                "rebuilds",
                "syncs",
                "last_sync_docs",
                "last_sync_vectors",
            )
        }
        for table, key in (
            ("search_docs", "docs"),
            ("search_postings", "postings"),
            ("search_vectors", "vectors"),
        ):
            if self._has_table(table):
                row = self.con.execute(f"SELECT count(*) FROM {table}").fetchone()
                out[key] = int(row[0]) if row else 0
            else:
                out[key] = 0
        return out

    def rebuild(self) -> None:
        """Drop every derived table and index the whole log again."""
        self._require_writable()
        rebuilds = self._meta_int("rebuilds")
        self._drop_all()
        self._ensure_tables()
        self._set_meta(rebuilds=rebuilds + 1)
        self.sync()

    def _drop_all(self) -> None:
        self.con.execute("BEGIN")
        try:
            for table in _TABLES:
                self.con.execute(f"DROP TABLE IF EXISTS {table}")
            forget(self.con, SEARCH)
            self.con.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        self._forget_caches()

    def purge(self, address: Address, item_ids: list[str] | None = None) -> int:
        """Delete the indexed rows of items (None: the retracted ones); returns docs removed.

        For a legal erase (the items' text must leave every table) and the garbage collector
        (retracted items are never returned, so their postings only cost space). The log
        watermarks stay: erased rows are never indexed again, and a rebuild skips them too.
        """
        self._require_writable()
        sid = self._sid(address) if self._has_table("search_docs") else None
        if sid is None:
            return 0
        where = f"item_id IN {IDS}"
        if item_ids is None:
            where = "doc IN (SELECT doc FROM search_hidden WHERE sid = ? AND why = 'retract')"
        param: Any = sid if item_ids is None else listed(item_ids)
        con = self.con
        con.execute("BEGIN")
        try:
            docs = [
                r[0]
                for r in con.execute(
                    f"SELECT doc FROM search_docs WHERE sid = ? AND {where}", [sid, param]
                ).fetchall()
            ]
            picked, chosen = f"doc IN {SEQS}", listed(docs)
            con.execute(
                "UPDATE search_terms t SET df = t.df - p.n FROM (SELECT term, count(*) AS n"
                f" FROM search_postings WHERE sid = ? AND {picked} GROUP BY term) p"
                " WHERE t.sid = ? AND t.term = p.term",
                [sid, chosen, sid],
            )
            con.execute("DELETE FROM search_terms WHERE sid = ? AND df <= 0", [sid])
            for table in ("search_postings", "search_vectors", "search_docs"):
                if self._has_table(table):
                    con.execute(f"DELETE FROM {table} WHERE sid = ? AND {picked}", [sid, chosen])
            if item_ids is not None:  # feedback facts carry their reason text
                con.execute(
                    f"DELETE FROM search_feedback WHERE sid = ? AND id IN {IDS}",
                    [sid, listed(item_ids)],
                )
            con.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        self._disliked.clear()
        self._sizes.clear()
        return len(docs)

    def _require_writable(self) -> None:
        if self.store.read_only:
            raise InputError(
                f"workspace {self.store.home} was opened read-only; the search index can only "
                "be updated by a writable workspace"
            )

    def sync(self) -> int:
        """Index facts and inputs above the watermarks; returns how many items were added."""
        self._require_writable()
        # Re-read the watermarks: another SearchIndex on this connection may have synced.
        cached, self._meta_cache = self._meta_cache, None
        if cached is not None and self._meta("syncs") != cached.get("syncs"):
            self._forget_caches()
        flo, ilo = self._meta_int("fact_seq"), self._meta_int("input_seq")
        fhi, ihi = self._log_heads()
        if fhi == flo and ihi == ilo:
            return 0
        self.con.execute("BEGIN")
        try:
            added, vectors = self._index_range(flo, fhi, ilo, ihi)
            self._set_meta(
                fact_seq=fhi,
                input_seq=ihi,
                syncs=self._meta_int("syncs") + 1,
                last_sync_docs=added,
                last_sync_vectors=vectors,
            )
            self.con.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        self._disliked.clear()  # new feedback or retracts may have arrived
        self._sizes.clear()
        return added

    def _index_range(self, flo: int, fhi: int, ilo: int, ihi: int) -> tuple[int, int]:
        con = self.con
        # New subjects get the next sids, in a deterministic order.
        con.execute(
            """
            INSERT INTO search_subjects
            SELECT (SELECT coalesce(max(sid), 0) FROM search_subjects)
                   + row_number() OVER (ORDER BY tenant, scope, subject), tenant, scope, subject
            FROM (SELECT DISTINCT tenant, scope, subject FROM facts WHERE seq > $1 AND seq <= $2
                  UNION
                  SELECT DISTINCT tenant, scope, subject FROM inputs WHERE seq > $3 AND seq <= $4)
                 AS n
            WHERE NOT EXISTS (SELECT 1 FROM search_subjects s WHERE s.tenant = n.tenant
                              AND s.scope = n.scope AND s.subject = n.subject)
            """,
            [flo, fhi, ilo, ihi],
        )
        first_doc = self._next_doc()
        rows = con.execute(
            f"""
            SELECT s.sid, src.id, src.kind, src.text, src.at, src.seq, src.session
            FROM (
                SELECT 0 AS ord, seq, id, tenant, scope, subject, 'note' AS kind, text,
                       recorded_at AS at, session_id AS session
                FROM facts
                WHERE seq > $1 AND seq <= $2 AND op = 'assert' AND kind = 'note'
                  AND path = 'notes' AND text IS NOT NULL AND trim(text) <> ''
                UNION ALL
                SELECT 1, i.seq, i.id, i.tenant, i.scope, i.subject, 'input',
                       left(i.content, {MAX_INPUT_CHARS}), i.observed_at, i.session_id
                FROM inputs i
                WHERE i.seq > $3 AND i.seq <= $4 AND i.kind NOT IN ({_SKIPPED})
                  AND trim(i.content) <> ''
                  -- Quarantine: an input whose secret or instruction was refused is kept
                  -- for the audit trail only, never indexed (uac.fact_log.extraction.screen).
                  AND NOT EXISTS (SELECT 1 FROM rejections r WHERE r.input_id = i.id
                                  AND r.reason IN ({_QUARANTINE}))
                  AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.seq > $1 AND f.seq <= $2
                                  AND f.input_id = i.id AND f.op = 'assert'
                                  AND f.kind = 'note' AND f.path = 'notes')
            ) AS src
            JOIN search_subjects s
              ON s.tenant = src.tenant AND s.scope = src.scope AND s.subject = src.subject
            ORDER BY src.ord, src.seq
            """,
            [flo, fhi, ilo, ihi],
        ).fetchall()
        self._insert_docs(first_doc, rows)
        con.execute(
            """
            INSERT INTO search_terms
            SELECT sid, term, count(*) FROM search_postings WHERE doc >= ? GROUP BY sid, term
            ON CONFLICT (sid, term) DO UPDATE SET df = df + excluded.df
            """,
            [first_doc],
        )
        added = len(rows)
        subject_join = (
            "JOIN search_subjects s ON s.tenant = f.tenant AND s.scope = f.scope"
            " AND s.subject = f.subject"
        )
        # A note made from an input archived in an earlier batch hides that input's doc;
        # a retract hides its target, whether a note, an input or a feedback fact.
        con.execute(
            f"""
            INSERT INTO search_hidden
            SELECT h.sid, h.target, d.doc, h.by_id, h.why
            FROM (
                SELECT s.sid, json_extract_string(f.value, '$.target') AS target, f.id AS by_id,
                       'retract' AS why
                FROM facts f {subject_join}
                WHERE f.seq > $1 AND f.seq <= $2 AND f.op = 'retract'
                  AND json_extract_string(f.value, '$.target') IS NOT NULL
                UNION ALL
                SELECT s.sid, f.input_id, f.id, 'note_input'
                FROM facts f {subject_join}
                WHERE f.seq > $1 AND f.seq <= $2 AND f.op = 'assert' AND f.kind = 'note'
                  AND f.path = 'notes' AND f.input_id IS NOT NULL
            ) AS h
            -- Resolved to doc numbers once here so searches filter on an integer.
            LEFT JOIN search_docs d ON d.sid = h.sid AND d.item_id = h.target
            """,
            [flo, fhi],
        )
        con.execute(
            f"""
            INSERT INTO search_feedback
            SELECT fb.sid, fb.id, fb.target, d.doc, fb.signal, fb.reason, fb.seq
            FROM (
                SELECT s.sid, f.id, json_extract_string(f.value, '$.target') AS target,
                       json_extract_string(f.value, '$.signal') AS signal,
                       json_extract_string(f.value, '$.reason') AS reason, f.seq
                FROM facts f {subject_join}
                WHERE f.seq > $1 AND f.seq <= $2 AND f.op = 'feedback' AND f.path = 'notes'
                  AND json_extract_string(f.value, '$.target') IS NOT NULL
            ) AS fb
            LEFT JOIN search_docs d ON d.sid = fb.sid AND d.item_id = fb.target
            """,
            [flo, fhi],
        )
        return added, self._embed_docs_after(first_doc)

    def _next_doc(self) -> int:
        row = self.con.execute("SELECT coalesce(max(doc) + 1, 1) FROM search_docs").fetchone()
        return int(row[0]) if row else 1

    def _porter(self, words: list[str]) -> list[str]:
        # Words are [a-z0-9]+ (analyzer.words), so one quoted literal carries them all.
        row = self.con.execute(
            "SELECT list_transform(?::VARCHAR::VARCHAR[], lambda t: stem(t, 'porter'))",
            [_quoted(words)],
        ).fetchone()
        assert row is not None
        return list(row[0])

    def _insert_docs(self, first_doc: int, rows: list[tuple[Any, ...]]) -> None:
        """Append documents and their postings, analysed in Python (see analyzer.py)."""
        for start in range(0, len(rows), 20_000):
            chunk = rows[start : start + 20_000]
            analysed = self.analyzer.documents([r[3] for r in chunk])
            docs = list(range(first_doc + start, first_doc + start + len(chunk)))
            postings: list[tuple[int, str, int, float, float, str, dt.datetime]] = []
            for doc, row, (tf, length) in zip(docs, chunk, analysed, strict=True):
                postings.extend(
                    (row[0], term, doc, f, length, row[2], row[4]) for term, f in tf.items()
                )
            postings.sort(key=lambda p: (p[0], p[1], p[2]))
            doc_table = pa.table(
                {
                    "doc": pa.array(docs, pa.int64()),
                    "sid": pa.array([r[0] for r in chunk], pa.int32()),
                    "item_id": pa.array([r[1] for r in chunk], pa.string()),
                    "kind": pa.array([r[2] for r in chunk], pa.string()),
                    "text": pa.array([r[3] for r in chunk], pa.string()),
                    "at_ts": pa.array([r[4] for r in chunk], pa.timestamp("us")),
                    "len": pa.array([a[1] for a in analysed], pa.float64()),
                    "seq": pa.array([r[5] for r in chunk], pa.int64()),
                    "session": pa.array([r[6] for r in chunk], pa.string()),
                }
            )
            cols = list(zip(*postings, strict=True)) if postings else [[]] * 7
            post_table = pa.table(
                {
                    "sid": pa.array(cols[0], pa.int32()),
                    "term": pa.array(cols[1], pa.string()),
                    "doc": pa.array(cols[2], pa.int64()),
                    "tf": pa.array(cols[3], pa.float64()),
                    "len": pa.array(cols[4], pa.float64()),
                    "kind": pa.array(cols[5], pa.string()),
                    "at_ts": pa.array(cols[6], pa.timestamp("us")),
                }
            )
            for name, table, target in (
                ("_uac_docs", doc_table, "search_docs"),
                ("_uac_postings", post_table, "search_postings"),
            ):
                self.con.register(name, table)
                try:
                    self.con.execute(f"INSERT INTO {target} BY NAME SELECT * FROM {name}")
                finally:
                    self.con.unregister(name)

    def _embed_docs_after(self, first_doc: int) -> int:
        cur = self.con.execute(
            "SELECT doc, sid, kind, at_ts, text FROM search_docs WHERE doc >= ? ORDER BY doc",
            [first_doc],
        )
        rows = cur.fetchall()
        dim = int(self.embedder.dim)
        for start in range(0, len(rows), _EMBED_BATCH):
            chunk = rows[start : start + _EMBED_BATCH]
            vectors = self.embedder.embed([r[4] for r in chunk])
            if any(len(v) != dim for v in vectors):
                raise InputError(f"embedder {self.embedder.name} returned a vector not of {dim}")
            table = pa.table(
                {
                    "doc": pa.array([r[0] for r in chunk], pa.int64()),
                    "sid": pa.array([r[1] for r in chunk], pa.int32()),
                    "kind": pa.array([r[2] for r in chunk], pa.string()),
                    "at_ts": pa.array([r[3] for r in chunk], pa.timestamp("us")),
                    "vec": pa.array(vectors, pa.list_(pa.float32(), dim)),
                    "coarse": pa.array(
                        [_fold(v) for v in vectors], pa.list_(pa.float32(), COARSE_DIM)
                    ),
                }
            )
            self.con.register("_uac_vectors", table)
            try:
                self.con.execute(
                    "INSERT INTO search_vectors"
                    " SELECT doc, sid, kind, at_ts, vec, coarse FROM _uac_vectors"
                )
            finally:
                self.con.unregister("_uac_vectors")
        return len(rows)

    # -- searching -------------------------------------------------------------------------

    def search(
        self,
        address: Address,
        text: str,
        *,
        k: int = 10,
        since: dt.date | dt.datetime | None = None,
        kind: Kind | None = None,
        half_life_days: float = 180.0,
        today: dt.date,
        lexical: bool = True,
        dense: bool = True,
        neighbours: int = 0,
        hops: int = 1,
        time_filter: bool = True,
    ) -> list[SearchHit]:
        """The subject's k best notes/inputs for text, newest-first on ties."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("a search needs some text")
        if not 1 <= k <= 1000:
            raise InputError(f"k must be between 1 and 1000, got {k}")
        if kind not in (None, "note", "input"):
            raise InputError(f"kind must be 'note' or 'input', got {kind!r}")
        if not half_life_days > 0:
            raise InputError(f"half_life_days must be positive, got {half_life_days}")
        if not 0 <= neighbours <= 20:
            raise InputError(f"neighbours must be between 0 and 20, got {neighbours}")
        if hops not in (1, 2):
            raise InputError(f"hops must be 1 or 2, got {hops}")
        if not self.store.read_only:
            self.sync()
        if not self._has_table("search_docs") or self._meta("layout") != LAYOUT:
            return []  # a read-only workspace never indexed (or by another version)
        sid = self._sid(address)
        if sid is None:
            return []
        query = timeq.parse(text, today) if time_filter else timeq.TimeQuery((), text, False, None)
        words = query.text if self.analyzer.query_terms(query.text) else text
        scope = _Scope(sid, kind, _as_datetime(since), query.windows, max(100, 10 * k))
        parts = self._rank(scope, words, k, lexical, dense)
        if query.windows and not parts:
            # Nothing in the window matches: the whole history rather than nothing at all.
            scope = _Scope(sid, kind, scope.since, (), scope.depth)
            parts = self._rank(scope, text, k, lexical, dense)
        if hops == 2 and parts:
            parts = self._second_hop(scope, words, parts, k, lexical, dense)
        weight = RECENCY_WEIGHT_CUED if query.recent else RECENCY_WEIGHT
        return self._hits(sid, parts, k, half_life_days, today, weight, neighbours)

    def _sid(self, address: Address) -> int | None:
        if address not in self._sids:
            row = self.con.execute(
                "SELECT sid FROM search_subjects WHERE tenant = ? AND scope = ? AND subject = ?",
                [address.tenant, address.scope, address.subject],
            ).fetchone()
            if row is None:
                return None  # not cached: the subject may get notes later
            self._sids[address] = int(row[0])
        return self._sids[address]

    def _filters(self, alias: str, scope: _Scope) -> tuple[str, list[Any]]:
        sql = (
            f" AND {alias}.doc NOT IN (SELECT doc FROM search_hidden"
            " WHERE sid = ? AND doc IS NOT NULL)"
        )
        params: list[Any] = [scope.sid]
        if scope.kind is not None:
            sql += f" AND {alias}.kind = ?"
            params.append(scope.kind)
        if scope.since is not None:
            sql += f" AND {alias}.at_ts >= ?"
            params.append(scope.since)
        if scope.windows:
            sql += (
                " AND ("
                + " OR ".join(f"({alias}.at_ts >= ? AND {alias}.at_ts < ?)" for _ in scope.windows)
                + ")"
            )
            params.extend(x for w in scope.windows for x in w)
        return sql, params

    def _rank(
        self, scope: _Scope, text: str, k: int, lexical: bool, dense: bool
    ) -> dict[int, dict[str, Any]]:
        """Candidates with their score parts: weighted, normalised score fusion."""
        lex, unknown, avgdl = self._lexical(scope, text) if lexical else ([], True, 1.0)
        semantic = is_semantic(self.embedder)
        vec: list[tuple[Any, ...]] = []
        # A non-semantic list is noise next to BM25 unless BM25 cannot be trusted alone.
        consult = semantic or not lexical or unknown or len(lex) < k
        if dense and consult and self._meta("embedder") == self._embedder_ident():
            vec = self._dense(scope, text)
        if semantic:
            w_vec = VECTOR_WEIGHT_SEMANTIC
        else:
            w_vec = VECTOR_WEIGHT_UNKNOWN_WORD if unknown else VECTOR_WEIGHT_NON_SEMANTIC
        parts: dict[int, dict[str, Any]] = {}
        if lex:
            top = lex[0][1]
            # An item missing from a truncated list scores at most what its last item does.
            fill = lex[-1][1] / top if len(lex) == scope.depth else 0.0
            for rank, (doc, score, at, length) in enumerate(lex, 1):
                parts[doc] = {
                    "at": at,
                    "bm25": (rank, float(score)),
                    "lexical": float(score) / top,
                    # Saturating: 0.5 at the subject's average length, towards 1 for long items.
                    "substance": float(length) / (float(length) + avgdl),
                }
        else:
            fill = 0.0
        if vec:
            hi = float(vec[0][1])
            lo = float(vec[-1][1]) if len(vec) == scope.depth else 0.0
            for rank, (doc, score, at) in enumerate(vec, 1):
                p = parts.setdefault(doc, {"at": at, "lexical": fill if lex else None})
                p["vec"] = (rank, float(score))
                p["vector"] = (float(score) - lo) / (hi - lo) if hi > lo else 1.0
        for p in parts.values():
            relevance = p["lexical"] or 0.0
            if "vector" in p:
                relevance += w_vec * p["vector"]
            if scope.windows:
                relevance += WINDOW_SUBSTANCE_WEIGHT * p.get("substance", 0.0)
            p["relevance"] = relevance
        if lex and vec and not semantic and not unknown:
            # A non-semantic list reorders the lexical top k but never displaces one of them:
            # every other item ranks below the weakest of those, lexical matches first.
            head = {doc for doc, *_ in lex[:k]}
            floor = min(parts[d]["relevance"] for d in head)
            for doc, p in parts.items():
                if doc in head:
                    continue
                if "bm25" in p:
                    p["relevance"] = floor * (0.5 + 0.49 * p["lexical"])
                else:
                    p["relevance"] = floor * 0.49 * p["vector"]
        return parts

    def _second_hop(
        self,
        scope: _Scope,
        text: str,
        first: dict[int, dict[str, Any]],
        k: int,
        lexical: bool,
        dense: bool,
    ) -> dict[int, dict[str, Any]]:
        """Search again with the names the first hits mention; keep each item's best score."""
        best = sorted(first, key=lambda d: (-first[d]["relevance"], d))[:3]
        rows = self.con.execute(
            "SELECT text FROM search_docs WHERE sid = ? AND list_contains(?::VARCHAR::BIGINT[],"
            " doc) ORDER BY doc",
            [scope.sid, _literal(best)],
        ).fetchall()
        asked = set(self.analyzer.query_terms(text))
        names: list[str] = []
        for (body,) in rows:
            for name in _NAME.findall(split_speaker(body)[1]):
                terms = self.analyzer.query_terms(name)
                if terms and not set(terms) & asked and name not in names:
                    names.append(name)
        if not names:
            return first
        second = self._rank(scope, text + " " + " ".join(names[:6]), k, lexical, dense)
        if not second:
            return first
        # The second pass answers a derived question: it may add items, never outrank the first.
        scale = (
            HOP_DISCOUNT
            * max(p["relevance"] for p in first.values())
            / max(p["relevance"] for p in second.values())
        )
        merged = dict(first)
        for doc, p in second.items():
            relevance = p["relevance"] * scale
            if doc not in merged or merged[doc]["relevance"] < relevance:
                merged[doc] = {**p, "relevance": relevance}
        return merged

    def _lexical(self, scope: _Scope, text: str) -> tuple[list[tuple[Any, ...]], bool, float]:
        """BM25 list (doc, score, date, length), whether a query word is unknown, avgdl."""
        # Terms are [a-z0-9]+ by construction (analyzer.words + Porter); the check keeps that.
        terms = [t for t in self.analyzer.query_terms(text) if _TERM.fullmatch(t)]
        if not terms:
            return [], False, 1.0
        terms, unknown = self._spelled(scope.sid, terms)
        filters, fparams = self._filters("p", scope)
        # Terms travel as one bound string (binding a Python list is ~20x slower; see _literal).
        sql = f"""
            WITH st AS (SELECT count(*)::DOUBLE AS n, avg(len)::DOUBLE AS avgdl
                        FROM search_docs WHERE sid = ?),
                 p AS (SELECT term, doc, tf, len, kind, at_ts,
                              count(*) OVER (PARTITION BY term)::DOUBLE AS df
                       FROM search_postings
                       WHERE sid = ? AND list_contains(?::VARCHAR::VARCHAR[], term))
            SELECT p.doc,
                   sum(ln(1 + (st.n - p.df + 0.5) / (p.df + 0.5)) * p.tf * ({BM25_K1} + 1)
                       / (p.tf + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * p.len / st.avgdl)))
                   AS score,
                   any_value(p.at_ts), any_value(p.len), any_value(st.avgdl)
            FROM p CROSS JOIN st
            WHERE true {filters}
            GROUP BY p.doc
            ORDER BY score DESC, p.doc LIMIT ?
        """
        params = [scope.sid, scope.sid, _quoted(terms), *fparams, scope.depth]
        rows = self.con.execute(sql, params).fetchall()
        if not rows:
            return [], True, 1.0
        return [r[:4] for r in rows], unknown, float(rows[0][4]) or 1.0

    def _spelled(self, sid: int, terms: list[str]) -> tuple[list[str], bool]:
        """Terms with each unknown one replaced by its closest known spelling, if any."""
        known = {
            r[0]
            for r in self.con.execute(
                "SELECT term FROM search_terms WHERE sid = ?"
                " AND list_contains(?::VARCHAR::VARCHAR[], term)",
                [sid, _quoted(terms)],
            ).fetchall()
        }
        out, unknown = [], False
        for term in terms:
            if term in known:
                out.append(term)
                continue
            unknown = True
            # A typo is one edit in a word of 5+ letters, two from 8 (transpositions are one).
            edits = 0 if len(term) < 5 else 1 if len(term) < 8 else 2
            row = None
            if edits:
                row = self.con.execute(
                    """
                    SELECT term FROM search_terms
                    WHERE sid = ? AND abs(length(term) - length($2)) <= $3
                      AND damerau_levenshtein(term, $2) <= $3
                    ORDER BY damerau_levenshtein(term, $2), df DESC, term LIMIT 1
                    """.replace("?", "$1"),
                    [sid, term, edits],
                ).fetchone()
            out.append(str(row[0]) if row else term)
        return sorted(set(out)), unknown

    def _dense(self, scope: _Scope, text: str) -> list[tuple[Any, ...]]:
        query = self.embedder.embed([text])[0]
        if not any(query) or not all(math.isfinite(x) for x in query):
            return []
        sid, depth = scope.sid, scope.depth
        filters, fparams = self._filters("v", scope)
        dim = int(self.embedder.dim)
        # No "s > 0" in SQL: DuckDB would evaluate the similarity twice (filter + projection).
        if self._size(sid) <= EXACT_LIMIT:
            sql = f"""
                SELECT v.doc, array_cosine_similarity(v.vec, ?::VARCHAR::FLOAT[{dim}]) AS s,
                       v.at_ts
                FROM search_vectors v
                WHERE v.sid = ? {filters}
                ORDER BY s DESC, v.doc LIMIT ?
            """
            params = [_literal(query), sid, *fparams, depth]
        else:
            # rowid IN (...) makes DuckDB fetch just the candidate rows' full vectors.
            sql = f"""
                WITH c AS (
                    SELECT v.rowid AS r FROM search_vectors v
                    WHERE v.sid = ? {filters}
                    ORDER BY array_cosine_similarity(v.coarse, ?::VARCHAR::FLOAT[{COARSE_DIM}])
                             DESC, v.doc
                    LIMIT ?)
                SELECT v.doc, array_cosine_similarity(v.vec, ?::VARCHAR::FLOAT[{dim}]) AS s,
                       v.at_ts
                FROM search_vectors v WHERE v.rowid IN (SELECT r FROM c)
                ORDER BY s DESC, v.doc LIMIT ?
            """
            candidates = max(COARSE_CANDIDATES, 10 * depth)
            params = [
                sid,
                *fparams,
                _literal(_fold(query)),
                candidates,
                _literal(query),
                depth,
            ]
        rows = self.con.execute(sql, params).fetchall()
        return [r for r in rows if r[1] is not None and r[1] > 0]

    def _hits(
        self,
        sid: int,
        parts: dict[int, dict[str, Any]],
        k: int,
        half_life_days: float,
        today: dt.date,
        recency_weight: float,
        neighbours: int,
    ) -> list[SearchHit]:
        if not parts:
            return []
        disliked = self._disliked_docs(sid)
        now = dt.datetime(today.year, today.month, today.day)
        top_relevance = max(p["relevance"] for p in parts.values()) or 1.0
        scored = []
        for doc, p in parts.items():
            age_days = max(0.0, (now - p["at"]).total_seconds() / 86400.0)
            recency = recency_factor(age_days, half_life_days)
            factor = FEEDBACK_FACTOR if doc in disliked else 1.0
            score = (p["relevance"] + recency_weight * top_relevance * recency) * factor
            p.update(recency=recency, factor=factor, score=score)
            # Doc numbers follow log order, so equal scores rank the same on every run.
            scored.append((-score, -(p["at"] - _EPOCH).total_seconds(), doc))
        top = [doc for *_, doc in sorted(scored)[:k]]
        rows = self.con.execute(
            "SELECT doc, item_id, kind, text, session FROM search_docs"
            " WHERE sid = ? AND list_contains(?::VARCHAR::BIGINT[], doc)",
            [sid, _literal(top)],
        ).fetchall()
        found = {row[0]: row[1:] for row in rows}
        around = self._neighbours(sid, top, found, parts, neighbours) if neighbours else {}
        hits = []
        for doc in top:
            item_id, kind, text, _ = found[doc]
            p = parts[doc]
            b_rank, b_score = p.get("bm25", (None, None))
            v_rank, v_score = p.get("vec", (None, None))
            hits.append(
                SearchHit(
                    id=item_id,
                    kind=kind,
                    text=text,
                    date=p["at"],
                    score=p["score"],
                    bm25_rank=b_rank,
                    vector_rank=v_rank,
                    rrf=sum(1.0 / (RRF_K + r) for r in (b_rank, v_rank) if r is not None),
                    recency=p["recency"],
                    feedback=p["factor"],
                    negative_feedback=p["factor"] != 1.0,
                    bm25=b_score,
                    cosine=v_score,
                    lexical=p.get("lexical"),
                    vector=p.get("vector"),
                    relevance=p["relevance"],
                    neighbours=around.get(doc, ()),
                )
            )
        return hits

    def _neighbours(
        self,
        sid: int,
        top: list[int],
        found: dict[int, tuple[Any, ...]],
        parts: dict[int, dict[str, Any]],
        n: int,
    ) -> dict[int, tuple[Neighbour, ...]]:
        """Up to n items either side of each hit: same session, else within NEIGHBOUR_GAP."""
        sessions = sorted({found[d][3] for d in top if found[d][3] is not None})
        loose = [parts[d]["at"] for d in top if found[d][3] is None]
        params: list[Any] = [sid, sid, sessions]
        near = ""
        for at in loose:
            near += " OR (d.session IS NULL AND d.at_ts BETWEEN ? AND ?)"
            params += [at - NEIGHBOUR_GAP, at + NEIGHBOUR_GAP]
        rows = self.con.execute(
            f"""
            SELECT d.doc, d.item_id, d.kind, d.text, d.at_ts, d.session FROM search_docs d
            WHERE d.sid = ?
              AND d.doc NOT IN (SELECT doc FROM search_hidden WHERE sid = ? AND doc IS NOT NULL)
              -- session ids are user text: bound as a (short) list, never inlined
              AND (list_contains(?::VARCHAR[], d.session) {near})
            ORDER BY d.at_ts, d.doc
            """,
            params,
        ).fetchall()
        out: dict[int, tuple[Neighbour, ...]] = {}
        for doc in top:
            session = found[doc][3]
            line = [r for r in rows if r[5] == session]
            if session is None:
                at = parts[doc]["at"]
                line = [r for r in line if abs(r[4] - at) <= NEIGHBOUR_GAP]
            pos = next((i for i, r in enumerate(line) if r[0] == doc), None)
            if pos is None:
                continue
            out[doc] = tuple(
                Neighbour(id=r[1], kind=r[2], text=r[3], date=r[4], offset=i - pos)
                for i, r in enumerate(line[max(0, pos - n) : pos + n + 1], max(0, pos - n))
                if i != pos
            )
        return out

    def _size(self, sid: int) -> int:
        if sid not in self._sizes:
            row = self.con.execute(
                "SELECT count(*) FROM search_vectors WHERE sid = ?", [sid]
            ).fetchone()
            self._sizes[sid] = int(row[0]) if row else 0
        return self._sizes[sid]

    def _disliked_docs(self, sid: int) -> frozenset[int]:
        if sid not in self._disliked:
            rows = self.con.execute(
                """
                SELECT DISTINCT f.doc FROM search_feedback f
                WHERE f.sid = ? AND f.signal = ? AND f.doc IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM search_hidden h WHERE h.sid = f.sid
                                  AND h.target = f.id)
                """,
                [sid, NOT_THIS],
            ).fetchall()
            self._disliked[sid] = frozenset(int(r[0]) for r in rows)
        return self._disliked[sid]


def _fold(vector: list[float]) -> list[float]:
    """A cheap fixed linear projection to COARSE_DIM dims (sum of every 32nd component)."""
    return [sum(vector[i::COARSE_DIM]) for i in range(COARSE_DIM)]


def _literal(numbers: list[float] | list[int]) -> str:
    # Numbers we computed, bound as one string and cast in SQL: binding a Python list
    # converts element by element and costs ~20 ms for a 256-float vector.
    return "[" + ",".join(repr(x) for x in numbers) + "]"


def _quoted(words: list[str]) -> str:
    # Only for [a-z0-9]+ words: quoted so that e.g. "null" stays a string in the cast.
    return "[" + ", ".join(f"'{w}'" for w in words) + "]"


def _as_datetime(moment: dt.date | dt.datetime | None) -> dt.datetime | None:
    if moment is None:
        return None
    if isinstance(moment, dt.datetime):
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
        return moment
    return dt.datetime(moment.year, moment.month, moment.day)
