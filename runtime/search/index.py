"""Hybrid search over a subject's notes and archived inputs: BM25 + dense vectors, fused.

What is indexed: every `note` fact (op='assert', kind='note', path='notes'; the hit's id is
the fact id) and every archived input (`inputs.content`; the hit's id is the input id),
except inputs of kind 'command' (operator syntax such as "forget f_..") and 'import' (a
whole imported file; its records are typed state, answered exactly elsewhere), except
quarantined inputs (a secret or an instruction was refused in them: audit trail only), and
except the input a note fact was made from (the note stands for it, so one note is one hit).

The parts, one module each:

* analyzer.py — text to terms (irregular forms, no one-letter junk, a weighted speaker
  field, Porter stems from the FTS extension); timeq.py — time expressions in a query
  ("in March 2023", "last month") become windows on the item's time.
* indexing.py — writes the derived tables from a range of the log (what `sync()` adds).
* lexical.py — the BM25 list; dense.py — the vectors table and the cosine list.
* fusion.py — the lists into one relevance, recency as a tie-break, feedback.
* expand.py — neighbouring turns of a hit and names for a second search pass.
* scope.py — what one ranking pass searches (subject, kind, since, windows, depth).
* arrays.py — a subject's index loaded into numpy/Arrow arrays, which both lists score at
  query time; `sync()` marks the subjects it touched and their next search appends the new
  rows. Searches take no lock (they read immutable snapshots); syncs are serialised.

Ties break on newer date, then log order, so the same data and `today` always give the
same list. A negatively marked hit has `negative_feedback=True` and half the score; a later
retract of the feedback fact restores its score.

Why not `PRAGMA create_fts_index` directly: DuckDB's FTS index is static — adding one note
means rebuilding it over the whole corpus (see bench/search.py for the cost at 100k notes),
and its statistics span every tenant. Instead this package keeps its own inverted index,
maintained incrementally. tests/test_search.py checks the scores equal `match_bm25` over the
same analysed terms.

Derived tables (all `search_*`, declared and migrated in runtime/search/schema.py):

* `search_meta` — watermarks (last fact seq and input seq indexed), embedder identity, and
  counters (`rebuilds`, `syncs`, `last_sync_docs`, `last_sync_vectors`).
* `search_subjects` — (tenant, scope, subject) -> small integer `sid`; every other table is
  keyed by sid, and every query filters on the one sid of the address asked for.
* `search_docs` — one row per indexed item: id, kind, text, date, weighted length, session.
* `search_postings` — (sid, term, doc, tf): the inverted index.
* `search_terms` — the subject's vocabulary with document frequencies (spelling correction).
* `search_vectors` — per embedder, see dense.py.
* `search_hidden` — items never to return: targets of retract facts and note inputs,
  resolved to doc numbers when indexed.
* `search_feedback` — `op='feedback'` facts on notes (target, signal, reason, doc).

Incremental strategy: `sync()` reads only facts and inputs with seq above the stored
watermarks, appends their documents, postings and vectors, records retracts/feedback, and
advances the watermarks, all in one transaction. Adding one note therefore costs one small
tokenise+stem INSERT and one embedding, independent of corpus size; nothing is ever
rebuilt. `rebuild()` drops and recomputes everything from the log (after a legal erase, or
to change tokenisation). Switching embedder keeps the postings and embeds the documents
again a step (`backfill` documents, newest first) per writable sync, so opening an upgraded
workspace never waits for all of it; `complete_vectors()` finishes with progress. Each item
is embedded once: an index reopened with the same embedder keeps its vectors.

Writable vs read-only: on a writable store `search()` calls `sync()` first, so results
always reflect the whole log. A read-only store cannot write the derived tables, so it
searches what was indexed at the last sync (nothing if never synced); `pending()` tells how
many facts/inputs are not yet indexed, and a read-only store whose vectors came from a
different embedder falls back to the lexical list alone.

Note and query text are hostile: they only ever reach SQL as bound parameters.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from uac.fact_log.addressing import Address
from uac.fact_log.duck import load_fts
from uac.fact_log.erase import IDS, SEQS, listed
from uac.fact_log.errors import InputError
from uac.fact_log.schema import forget, migrate
from uac.fact_log.store import NewFact, Store
from uac.runtime.search import fusion, timeq
from uac.runtime.search.analyzer import Analyzer
from uac.runtime.search.arrays import Cache, Subject
from uac.runtime.search.dense import cosine, embed_docs_below
from uac.runtime.search.dense import create_table as create_vectors_table
from uac.runtime.search.embedders import Embedder, default_embedder, is_semantic
from uac.runtime.search.expand import Neighbour, hop_names, neighbours
from uac.runtime.search.fusion import RRF_K, Parts, recency_factor
from uac.runtime.search.indexing import index_range, index_subjects, next_doc
from uac.runtime.search.lexical import bm25
from uac.runtime.search.schema import SEARCH
from uac.runtime.search.scope import Scope, as_datetime, quoted

__all__ = ["Neighbour", "SearchHit", "SearchIndex", "feedback_fact", "recency_factor"]

BACKFILL = 1024  # documents embedded per sync after an embedder change (_backfill)
LAYOUT = "5"  # bump when the search_* tables change shape; a writable store then rebuilds
NOT_THIS = "not_this"

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
    "search_synced",
)


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

    backfill = BACKFILL  # documents embedded per step after an embedder change

    def __init__(self, store: Store, embedder: Embedder | None = None) -> None:
        self.store = store
        self.embedder: Embedder = embedder if embedder is not None else default_embedder()
        # Caches of search_meta and of which search_* tables exist: the connection holds the
        # workspace lock, so only this process changes them, and sync() re-reads the meta.
        self._meta_cache: dict[str, str] | None = None
        self._tables: set[str] | None = None
        # Per-search lookups that only change when sync() indexes something.
        self._sids: dict[Address, int] = {}
        # The subjects' arrays (arrays.py); syncs mark the subjects they touched stale.
        self._arrays = Cache()
        # Syncs and table changes are serialised; searches run concurrently without it.
        self._lock = threading.RLock()
        self.analyzer = Analyzer(self._porter)
        load_fts(self.con)  # for stem(); loaded from its PyPI package, never downloaded
        if not store.read_only:
            self._ensure_tables()

    @property
    def con(self) -> Any:
        """The calling thread's cursor: a DuckDB cursor must never be shared between threads."""
        # A cursor kept from the thread that built the index would run a sync's BEGIN inside
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
        # Its documents are embedded a step at a time (_backfill), never all at once here.
        ident = self._embedder_ident()
        if self._meta("embedder") == ident and self._has_table("search_vectors"):
            return
        self.con.execute("BEGIN")
        try:
            create_vectors_table(self.con, int(self.embedder.dim))
            self._set_meta(embedder=ident, unembedded=next_doc(self.con))
            self._backfill()
            self.con.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        self._tables = None

    def _backfill(self) -> None:
        """Embed the next `backfill` documents without vectors (inside the caller's BEGIN).

        After an embedder change the documents already indexed have no vectors of the new
        one, and a sync of a long stretch of the log (more than `backfill` rows) indexes its
        documents' terms only: each writable sync embeds the newest `backfill` documents still
        without vectors, so no search waits for a whole workspace to be embedded, and
        `complete_vectors()` does the rest with progress.
        A subject's dense list is used only once all its documents have vectors (arrays.py);
        the subjects this step completes are loaded afresh by their next search.
        """
        below = self._meta_int("unembedded")
        if below <= 1:
            return
        lowest = embed_docs_below(self.con, self.embedder, below, self.backfill)
        self._set_meta(unembedded=lowest)
        done = self.con.execute(
            "SELECT sid FROM search_docs GROUP BY sid HAVING min(doc) >= ? AND min(doc) < ?",
            [lowest, below],
        ).fetchall()
        self._arrays.drop({int(r[0]) for r in done})

    def vectors_pending(self) -> int:
        """Documents still without a vector of this index's embedder (see _backfill)."""
        below = self._meta_int("unembedded")
        if below <= 1 or not self._has_table("search_docs"):
            return 0
        row = self.con.execute(
            "SELECT count(*) FROM search_docs d WHERE doc < ? AND NOT EXISTS"
            " (SELECT 1 FROM search_vectors v WHERE v.doc = d.doc)",
            [below],
        ).fetchone()
        return int(row[0]) if row else 0

    def complete_vectors(
        self,
        progress: Callable[[int, int], None] | None = None,
        *,
        stop: threading.Event | None = None,
    ) -> int:
        """Embed every document still without a vector, a step (one transaction) at a time.

        `progress(done, total)` is called after each step; an interrupted run keeps the steps
        it committed, and a set `stop` ends the run between steps. Returns how many documents
        were embedded.
        """
        self._require_writable()
        total = self.vectors_pending()
        done = 0
        while stop is None or not stop.is_set():
            with self._lock:
                left = self.vectors_pending()
                if not left:
                    return done
                self.con.execute("BEGIN")
                try:
                    self._backfill()
                    self.con.execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
                done += left - self.vectors_pending()
            if progress is not None:
                progress(done, total)
        return done

    def _rollback(self) -> None:
        self.con.execute("ROLLBACK")
        self._forget_caches()

    def _forget_caches(self) -> None:
        self._meta_cache = None
        self._tables = None
        self._sids.clear()
        self._arrays.clear()

    def _embedder_ident(self) -> str:
        return f"{self.embedder.name}|{int(self.embedder.dim)}"

    # These lazy caches are read by concurrent searches while a sync may reset them to
    # None: each reads the attribute once into a local.
    def _has_table(self, name: str) -> bool:
        tables = self._tables
        if tables is None:
            rows = self.con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"
                " AND database_name = current_database() AND table_name LIKE 'search%'"
            ).fetchall()
            self._tables = tables = {r[0] for r in rows}
        return name in tables

    def _meta(self, key: str) -> str | None:
        meta = self._meta_cache
        if meta is None:
            if not self._has_table("search_meta"):
                return None
            rows = self.con.execute("SELECT key, value FROM search_meta").fetchall()
            self._meta_cache = meta = {str(k): str(v) for k, v in rows}
        return meta.get(key)

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
        out["vectors_pending"] = self.vectors_pending()
        return out

    def rebuild(self) -> None:
        """Drop every derived table and index the whole log again."""
        self._require_writable()
        with self._lock:
            self._rebuild()

    def _rebuild(self) -> None:
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
        self._meta_cache = None
        self._arrays.clear()  # loaded arrays hold the purged texts: load afresh on next search
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
        with self._lock:  # one sync at a time; searches meanwhile read the last snapshot
            return self._sync()

    def _sync(self) -> int:
        if not self.store.backend.one_chain:  # numbers with gaps: watermarks per subject
            return self._sync_subjects()
        fhi, ihi = self._log_heads()
        behind = self._meta_int("unembedded") > 1  # documents still without vectors
        if (fhi, ihi) == (self._meta_int("fact_seq"), self._meta_int("input_seq")) and not behind:
            return 0  # the common case of a search: nothing new since our last look
        # Re-read the watermarks: another SearchIndex on this connection may have synced.
        cached, self._meta_cache = self._meta_cache, None
        if cached is not None and self._meta("syncs") != cached.get("syncs"):
            self._forget_caches()
        flo, ilo = self._meta_int("fact_seq"), self._meta_int("input_seq")
        if fhi == flo and ihi == ilo and not self._meta_int("unembedded") > 1:
            return 0
        self.con.execute("BEGIN")
        try:
            touched: set[int] = set()
            added, vectors = 0, 0
            if (fhi, ihi) != (flo, ilo):
                # A long stretch of the log (a workspace never searched, an import) gets its
                # postings now and its vectors a step per sync, like an embedder change.
                inline = (fhi - flo) + (ihi - ilo) <= self.backfill
                added, vectors, touched = index_range(
                    self.con, self.analyzer, self.embedder, flo, fhi, ilo, ihi, embed=inline
                )
                if not inline:
                    self._set_meta(unembedded=next_doc(self.con))
                self._record_sync(fhi, ihi, added, vectors)
            self._backfill()
            self.con.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        self._arrays.stale(touched)  # new documents, feedback or retracts
        return added

    def _record_sync(self, fhi: int, ihi: int, added: int, vectors: int) -> None:
        """Note in the index's meta how far it has read the log and what the sync added."""
        self._set_meta(
            fact_seq=fhi,
            input_seq=ihi,
            syncs=self._meta_int("syncs") + 1,
            last_sync_docs=added,
            last_sync_vectors=vectors,
        )

    def _sync_subjects(self) -> int:
        """Index a shared log's local copy subject by subject (indexing.index_subjects)."""
        self.con.execute("BEGIN")
        try:
            added, vectors, touched = index_subjects(
                self.con, self.analyzer, self.embedder, self.backfill
            )
            if added > vectors:  # some documents left to the steps (see _sync)
                self._set_meta(unembedded=next_doc(self.con))
            if touched or added:
                self._record_sync(*self._log_heads(), added, vectors)
            self._backfill()
            self.con.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        self._arrays.stale(touched)
        return added

    def _porter(self, words: list[str]) -> list[str]:
        # Words are [a-z0-9]+ (analyzer.words), so one quoted literal carries them all.
        row = self.con.execute(
            "SELECT list_transform(?::VARCHAR::VARCHAR[], lambda t: stem(t, 'porter'))",
            [quoted(words)],
        ).fetchone()
        assert row is not None
        return list(row[0])

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
        neighbours: int | None = None,
        hops: int = 1,
        time_filter: bool = True,
    ) -> list[SearchHit]:
        """The subject's k best notes/inputs for text, newest-first on ties.

        `neighbours`: how many turns either side of a hit come with it (`SearchHit.neighbours`,
        same session, else within expand.NEIGHBOUR_GAP). None, the default, is 1 for hits
        that are conversational inputs (the answer is often the next turn) and 0 for notes.
        A neighbour that is itself a hit, or already came with a better hit, is not repeated,
        so the k hits and their neighbours hold each item once.
        """
        if not isinstance(text, str) or not text.strip():
            raise InputError("a search needs some text")
        if not 1 <= k <= 1000:
            raise InputError(f"k must be between 1 and 1000, got {k}")
        if kind not in (None, "note", "input"):
            raise InputError(f"kind must be 'note' or 'input', got {kind!r}")
        if not half_life_days > 0:
            raise InputError(f"half_life_days must be positive, got {half_life_days}")
        if neighbours is not None and not 0 <= neighbours <= 20:
            raise InputError(f"neighbours must be between 0 and 20, got {neighbours}")
        if hops not in (1, 2):
            raise InputError(f"hops must be 1 or 2, got {hops}")
        self.store.backend.sync(address)  # a shared log: copy other nodes' writes first
        if not self.store.read_only:
            self.sync()
        if not self._has_table("search_docs") or self._meta("layout") != LAYOUT:
            return []  # a read-only workspace never indexed (or by another version)
        sid = self._sid(address)
        if sid is None:
            return []
        query = timeq.parse(text, today) if time_filter else timeq.TimeQuery((), text, False, None)
        words = query.text if self.analyzer.query_terms(query.text) else text
        # Vectors from another embedder (a read-only store) are not used: lexical list only.
        vectors = (
            self._embedder_ident() if self._meta("embedder") == self._embedder_ident() else None
        )
        subject = self._arrays.get(self.con, sid, vectors)
        scope = Scope(sid, kind, as_datetime(since), query.windows, max(100, 10 * k))
        parts = self._rank(scope, subject, words, k, lexical, dense)
        if query.windows and not parts:
            # Nothing in the window matches: the whole history rather than nothing at all.
            scope = Scope(sid, kind, scope.since, (), scope.depth)
            parts = self._rank(scope, subject, text, k, lexical, dense)
        if hops == 2 and parts:
            parts = self._second_hop(scope, subject, words, parts, k, lexical, dense)
        return self._hits(subject, parts, k, half_life_days, today, query.recent, neighbours)

    def _sid(self, address: Address) -> int | None:
        sid = self._sids.get(address)
        if sid is None:
            row = self.con.execute(
                "SELECT sid FROM search_subjects WHERE tenant = ? AND scope = ? AND subject = ?",
                [address.tenant, address.scope, address.subject],
            ).fetchone()
            if row is None:
                return None  # not cached: the subject may get notes later
            self._sids[address] = sid = int(row[0])
        return sid

    def _rank(
        self,
        scope: Scope,
        subject: Subject,
        text: str,
        k: int,
        use_lexical: bool,
        use_dense: bool,
    ) -> Parts:
        """Candidates with their score parts: weighted, normalised score fusion."""
        allowed = subject.allowed(scope.kind, scope.since, scope.windows)
        lex, unknown, avgdl = (
            bm25(self.con, self.analyzer, subject, scope, allowed, text)
            if use_lexical
            else ([], True, 1.0)
        )
        semantic = is_semantic(self.embedder)
        vec: list[tuple[Any, ...]] = []
        # A non-semantic list is noise next to BM25 unless BM25 cannot be trusted alone.
        consult = semantic or not use_lexical or unknown or len(lex) < k
        if use_dense and consult:
            vec = cosine(self.embedder, subject, scope, allowed, text)
        return fusion.fuse(
            lex,
            vec,
            depth=scope.depth,
            k=k,
            avgdl=avgdl,
            windows=bool(scope.windows),
            semantic=semantic,
            unknown=unknown,
            embedder=self.embedder.name,
        )

    def _second_hop(
        self,
        scope: Scope,
        subject: Subject,
        text: str,
        first: Parts,
        k: int,
        use_lexical: bool,
        use_dense: bool,
    ) -> Parts:
        """Search again with the names the first hits mention; keep each item's best score."""
        top3 = sorted(sorted(first, key=lambda d: (-first[d]["relevance"], d))[:3])
        texts = [subject.item(subject.position(doc))[2] for doc in top3]
        names = hop_names(self.analyzer, texts, text)
        if not names:
            return first
        more = text + " " + " ".join(names)
        second = self._rank(scope, subject, more, k, use_lexical, use_dense)
        return fusion.merge_second_pass(first, second)

    def _around(
        self,
        subject: Subject,
        parts: Parts,
        top: list[int],
        found: dict[int, tuple[Any, ...]],
        n: int | None,
        k: int,
    ) -> tuple[list[int], dict[int, tuple[Neighbour, ...]]]:
        """The k hits with their neighbouring items, every item shown once.

        In rank order: a hit already shown as a better hit's neighbour gives its place to
        the next candidate, and a neighbour already shown is not repeated.
        """
        wanted = {doc: (n if n is not None else int(found[doc][1] == "input")) for doc in top}
        asking = [doc for doc in top if wanted[doc]]
        if not asking:
            return top[:k], {}
        dates = {d: parts[d]["at"] for d in asking}
        near = neighbours(self.con, subject.sid, asking, found, dates, max(wanted.values()))
        shown: set[str] = set()
        hits: list[int] = []
        around = {}
        for doc in top:
            if len(hits) == k:
                break
            if found[doc][0] in shown:
                continue
            hits.append(doc)
            shown.add(found[doc][0])
            keep = []
            for nb in near.get(doc, ()):
                if abs(nb.offset) <= wanted[doc] and nb.id not in shown:
                    shown.add(nb.id)
                    keep.append(nb)
            around[doc] = tuple(keep)
        return hits, around

    def _hits(
        self,
        subject: Subject,
        parts: Parts,
        k: int,
        half_life_days: float,
        today: dt.date,
        recent: bool,
        n_neighbours: int | None,
    ) -> list[SearchHit]:
        if not parts:
            return []
        options: dict[str, Any] = {
            "disliked": subject.disliked,
            "half_life_days": half_life_days,
            "today": today,
            "recent": recent,
        }
        top = fusion.best(parts, k, **options)
        if n_neighbours != 0:
            # A hit shown beside a better one gives its place to the next: the k best first
            # (in their order), then the next k as replacements.
            chosen = set(top)
            top += [d for d in fusion.best(parts, 2 * k, **options) if d not in chosen]
        found = {doc: subject.item(subject.position(doc)) for doc in top}
        top, around = self._around(subject, parts, top, found, n_neighbours, k)
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
