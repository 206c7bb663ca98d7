"""Hybrid search over a subject's notes and archived inputs: BM25 + dense vectors, fused.

What is indexed: every `note` fact (op='assert', kind='note', path='notes'; the hit's id is
the fact id) and every archived input (`inputs.content`; the hit's id is the input id),
except inputs of kind 'command' (operator syntax such as "forget f_..") and 'import' (a
whole imported file; its records are typed state, answered exactly elsewhere), except
quarantined inputs (a secret or an instruction was refused in them: audit trail only), and
except the input a note fact was made from (the note stands for it, so one note is one hit).

Ranking: a lexical list (Okapi BM25, k1=1.2, b=0.75, statistics per subject) and a dense
list (cosine similarity from a pluggable `Embedder`) are fused by reciprocal rank fusion,
rrf = sum 1/(60 + rank). The fused score is multiplied by a recency factor
0.5 + 0.5 * 0.5 ** (age_days / half_life_days) and by 0.5 when the item has active negative
feedback. The recency factor never goes below 0.5: RRF keeps only rank differences (rank 1
and rank 9 differ by less than 2x), so an unbounded decay would let any recent, barely related
message outrank an older note that matches exactly.
Ties break on newer date, then log order, so the same data and `today` always give the
same list. A negatively marked hit has `negative_feedback=True`; a later retract of the
feedback fact restores its score.

Why not `PRAGMA create_fts_index` directly: DuckDB's FTS index is static — adding one note
means rebuilding it over the whole corpus (see bench/search.py for the cost at 100k notes),
and its statistics span every tenant. Instead this module keeps its own inverted index,
maintained incrementally, and computes BM25 in SQL with the FTS extension's tokenisation
semantics (lower-case, accents stripped, non-alphanumerics split, stopwords dropped,
`stem(word, 'porter')` from the extension). tests/test_search.py checks the ranking equals
`match_bm25` over the same documents.

Derived tables (all `search_*`, declared and migrated in runtime/search/schema.py):

* `search_meta` — watermarks (last fact seq and input seq indexed), embedder identity, and
  counters (`rebuilds`, `syncs`, `last_sync_docs`, `last_sync_vectors`).
* `search_subjects` — (tenant, scope, subject) -> small integer `sid`; every other table is
  keyed by sid, and every query filters on the one sid of the address asked for.
* `search_docs` — one row per indexed item: id, kind, text, date, token count.
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
import unicodedata
from dataclasses import dataclass
from typing import Any, Literal

import pyarrow as pa

from uac.fact_log.addressing import Address
from uac.fact_log.duck import load_fts
from uac.fact_log.errors import InputError
from uac.fact_log.extraction.screen import QUARANTINE_REASONS
from uac.fact_log.schema import forget, migrate
from uac.fact_log.store import NewFact, Store
from uac.runtime.search.embedders import STOPWORDS, Embedder, HashingEmbedder
from uac.runtime.search.schema import SEARCH

LAYOUT = "1"  # bump when the search_* tables change shape; a writable store then rebuilds
RRF_K = 60
BM25_K1 = 1.2
BM25_B = 0.75
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
# Stopwords are our own [a-z]+ constants, so they are inlined as a SQL literal: binding a
# Python list costs ~20 ms per statement (per-element conversion), a literal costs nothing.
assert all(w.isalpha() and w.isascii() and w.islower() for w in STOPWORDS)
_STOP = "[" + ", ".join(f"'{w}'" for w in sorted(STOPWORDS)) + "]"
_EPOCH = dt.datetime(1970, 1, 1)
_TERM = re.compile(r"[a-z0-9]+")

Kind = Literal["note", "input"]

# One tokeniser for documents and queries, mirroring the FTS extension's defaults except
# that digits are kept (flight numbers, years and prices matter in personal notes).
_TOKENS = (
    "list_filter(regexp_split_to_array(lower(strip_accents({x})), '[^a-z0-9]+'),"
    f" lambda t: t <> '' AND NOT list_contains({_STOP}, t))"
)

_TABLES = (
    "search_meta",
    "search_subjects",
    "search_docs",
    "search_postings",
    "search_hidden",
    "search_feedback",
    "search_vectors",
)


RECENCY_FLOOR = 0.5


def recency_factor(age_days: float, half_life_days: float) -> float:
    """How much an item's age lowers its score: from 1.0 (new) down to RECENCY_FLOOR."""
    return RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * math.pow(0.5, age_days / half_life_days)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One ranked item with the parts its score is made of."""

    id: str  # fact id for a note, input id for an input
    kind: str  # "note" | "input"
    text: str
    date: dt.datetime  # when the note was recorded / the input observed (naive UTC)
    score: float  # rrf * recency * feedback
    bm25_rank: int | None
    vector_rank: int | None
    rrf: float
    recency: float
    feedback: float
    negative_feedback: bool
    bm25: float | None = None
    cosine: float | None = None


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
        self.con = store.con
        self.embedder: Embedder = embedder if embedder is not None else HashingEmbedder()
        # Caches of search_meta and of which search_* tables exist: the connection holds the
        # workspace lock, so only this process changes them, and sync() re-reads the meta.
        self._meta_cache: dict[str, str] | None = None
        self._tables: set[str] | None = None
        # Per-search lookups that only change when sync() indexes something.
        self._sids: dict[Address, int] = {}
        self._disliked: dict[int, frozenset[int]] = {}
        self._sizes: dict[int, int] = {}
        self._stem_cache: dict[str, str] = {}
        load_fts(self.con)  # for stem(); loaded from its PyPI package, never downloaded
        if not store.read_only:
            self._ensure_tables()

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
        tokens = _TOKENS.format(x="src.text")
        con.execute(
            f"""
            INSERT INTO search_docs
            SELECT $5 + row_number() OVER (ORDER BY src.ord, src.seq) - 1, s.sid, src.id,
                   src.kind, src.text, src.at, len({tokens}), src.seq
            FROM (
                SELECT 0 AS ord, seq, id, tenant, scope, subject, 'note' AS kind, text,
                       recorded_at AS at
                FROM facts
                WHERE seq > $1 AND seq <= $2 AND op = 'assert' AND kind = 'note'
                  AND path = 'notes' AND text IS NOT NULL AND trim(text) <> ''
                UNION ALL
                SELECT 1, i.seq, i.id, i.tenant, i.scope, i.subject, 'input',
                       left(i.content, {MAX_INPUT_CHARS}), i.observed_at
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
            """,
            [flo, fhi, ilo, ihi, first_doc],
        )
        added = self._next_doc() - first_doc
        con.execute(
            f"""
            INSERT INTO search_postings
            SELECT sid, stem(t, 'porter') AS term, doc, count(*)::INTEGER, any_value(len),
                   any_value(kind), any_value(at_ts)
            FROM (SELECT sid, doc, len, kind, at_ts, unnest({_TOKENS.format(x="text")}) AS t
                  FROM search_docs WHERE doc >= $1)
            GROUP BY sid, term, doc
            ORDER BY 1, 2, 3
            """,
            [first_doc],
        )
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
        if not self.store.read_only:
            self.sync()
        if not self._has_table("search_docs") or self._meta("layout") != LAYOUT:
            return []  # a read-only workspace never indexed (or by another version)
        sid = self._sid(address)
        if sid is None:
            return []
        depth = max(100, 10 * k)
        since_ts = _as_datetime(since)
        lex = self._lexical(sid, text, kind, since_ts, depth) if lexical else []
        vec: list[tuple[Any, ...]] = []
        if dense and self._meta("embedder") == self._embedder_ident():
            vec = self._dense(sid, text, kind, since_ts, depth)
        return self._fuse(sid, lex, vec, k, half_life_days, today)

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

    def _stems(self, text: str) -> list[str]:
        """Query terms: the SQL tokeniser's rules in Python, stems memoised per word."""
        folded = unicodedata.normalize("NFD", text)
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).lower()
        words = sorted({w for w in _TERM.findall(folded) if w not in STOPWORDS})
        missing = [w for w in words if w not in self._stem_cache]
        if missing:
            row = self.con.execute(
                "SELECT list_transform(?::VARCHAR::VARCHAR[], lambda t: stem(t, 'porter'))",
                [_quoted(missing)],
            ).fetchone()
            assert row is not None
            if len(self._stem_cache) > 100_000:
                self._stem_cache.clear()
            self._stem_cache.update(zip(missing, row[0], strict=True))
        return sorted({self._stem_cache[w] for w in words})

    def _filters(
        self, alias: str, sid: int, kind: str | None, since: dt.datetime | None
    ) -> tuple[str, list[Any]]:
        sql = (
            f" AND {alias}.doc NOT IN (SELECT doc FROM search_hidden"
            " WHERE sid = ? AND doc IS NOT NULL)"
        )
        params: list[Any] = [sid]
        if kind is not None:
            sql += f" AND {alias}.kind = ?"
            params.append(kind)
        if since is not None:
            sql += f" AND {alias}.at_ts >= ?"
            params.append(since)
        return sql, params

    def _lexical(
        self, sid: int, text: str, kind: str | None, since: dt.datetime | None, depth: int
    ) -> list[tuple[Any, ...]]:
        # Stems of [a-z0-9]+ words stay [a-z0-9]+; the check keeps that an invariant.
        terms = [t for t in self._stems(text) if _TERM.fullmatch(t)]
        if not terms:
            return []
        filters, fparams = self._filters("p", sid, kind, since)
        # Stems are [a-z0-9]+ by construction, so the list travels as one bound string
        # (binding a Python list is ~20x slower; see _literal).
        sql = f"""
            WITH st AS (SELECT count(*)::DOUBLE AS n, avg(len)::DOUBLE AS avgdl
                        FROM search_docs WHERE sid = ?),
                 p AS (SELECT doc, tf, len, kind, at_ts,
                              count(*) OVER (PARTITION BY term)::DOUBLE AS df
                       FROM search_postings
                       WHERE sid = ? AND list_contains(?::VARCHAR::VARCHAR[], term))
            SELECT p.doc,
                   sum(ln(1 + (st.n - p.df + 0.5) / (p.df + 0.5)) * p.tf * ({BM25_K1} + 1)
                       / (p.tf + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * p.len / st.avgdl)))
                   AS score,
                   any_value(p.at_ts)
            FROM p CROSS JOIN st
            WHERE true {filters}
            GROUP BY p.doc
            ORDER BY score DESC, p.doc LIMIT ?
        """
        params = [sid, sid, _quoted(terms), *fparams, depth]
        return self.con.execute(sql, params).fetchall()

    def _dense(
        self, sid: int, text: str, kind: str | None, since: dt.datetime | None, depth: int
    ) -> list[tuple[Any, ...]]:
        query = self.embedder.embed([text])[0]
        if not any(query) or not all(math.isfinite(x) for x in query):
            return []
        filters, fparams = self._filters("v", sid, kind, since)
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

    def _fuse(
        self,
        sid: int,
        lex: list[tuple[Any, ...]],
        vec: list[tuple[Any, ...]],
        k: int,
        half_life_days: float,
        today: dt.date,
    ) -> list[SearchHit]:
        parts: dict[int, dict[str, Any]] = {}
        for rank, (doc, score, at) in enumerate(lex, 1):
            parts.setdefault(doc, {"at": at})["bm25"] = (rank, float(score))
        for rank, (doc, score, at) in enumerate(vec, 1):
            parts.setdefault(doc, {"at": at})["vec"] = (rank, float(score))
        if not parts:
            return []
        disliked = self._disliked_docs(sid)
        now = dt.datetime(today.year, today.month, today.day)
        scored = []
        for doc, p in parts.items():
            b_rank, _ = p.get("bm25", (None, None))
            v_rank, _ = p.get("vec", (None, None))
            rrf = sum(1.0 / (RRF_K + r) for r in (b_rank, v_rank) if r is not None)
            age_days = max(0.0, (now - p["at"]).total_seconds() / 86400.0)
            recency = recency_factor(age_days, half_life_days)
            factor = FEEDBACK_FACTOR if doc in disliked else 1.0
            p.update(rrf=rrf, recency=recency, factor=factor, score=rrf * recency * factor)
            # Doc numbers follow log order, so equal scores rank the same on every run.
            scored.append((-p["score"], -(p["at"] - _EPOCH).total_seconds(), doc))
        top = [doc for *_, doc in sorted(scored)[:k]]
        rows = self.con.execute(
            "SELECT doc, item_id, kind, text FROM search_docs"
            " WHERE sid = ? AND list_contains(?::VARCHAR::BIGINT[], doc)",
            [sid, _literal(top)],
        ).fetchall()
        found = {row[0]: row[1:] for row in rows}
        hits = []
        for doc in top:
            item_id, kind, text = found[doc]
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
                    rrf=p["rrf"],
                    recency=p["recency"],
                    feedback=p["factor"],
                    negative_feedback=p["factor"] != 1.0,
                    bm25=b_score,
                    cosine=v_score,
                )
            )
        return hits

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
