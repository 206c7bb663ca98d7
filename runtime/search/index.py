"""Hybrid search over a subject's notes and archived inputs: BM25 + dense vectors, fused.

What is indexed: every `note` fact (op='assert', kind='note', path='notes'; the hit's id is
the fact id) and every archived input (`inputs.content`; the hit's id is the input id),
except inputs of kind 'command' (operator syntax such as "forget f_..") and 'import' (a
whole imported file; its records are typed state, answered exactly elsewhere), except
quarantined inputs (a secret or an instruction was refused in them: audit trail only), and
except the input a note fact was made from (the note stands for it, so one note is one hit).

The parts, one module each:

* analyzer.py — text to terms (irregular forms, no one-letter junk, a weighted speaker
  field, Porter stems); timeq.py — time expressions in a query
  ("in March 2023", "last month") become windows on the item's time.
* indexing.py — writes the derived tables from a range of the log (what `sync()` adds).
* lexical.py — the BM25 list; dense.py — the vectors table and the cosine list.
* fusion.py — the lists into one relevance, recency as a tie-break, feedback.
* expand.py — neighbouring turns of a hit and names for a second search pass.
* scope.py — what one ranking pass searches (subject, kind, since, windows, depth).
* ranking.py — the read half: a search ranked from the tables as they stand (`Ranking`);
  this module's `SearchIndex` adds their upkeep and brings them up to date first.
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

import threading
from collections.abc import Callable
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.erase import IDS, SEQS, listed
from uac.fact_log.errors import InputError
from uac.fact_log.schema import forget, migrate
from uac.fact_log.store import NewFact, Store
from uac.runtime.search.dense import create_table as create_vectors_table
from uac.runtime.search.dense import embed_docs_below
from uac.runtime.search.embedders import Embedder, default_embedder
from uac.runtime.search.expand import Neighbour
from uac.runtime.search.fusion import recency_factor
from uac.runtime.search.indexing import index_range, index_subjects, next_doc
from uac.runtime.search.ranking import LAYOUT, Kind, Ranking, SearchHit
from uac.runtime.search.schema import SEARCH

__all__ = [
    "LAYOUT",
    "Kind",
    "Neighbour",
    "SearchHit",
    "SearchIndex",
    "feedback_fact",
    "recency_factor",
]

BACKFILL = 1024  # documents embedded per sync after an embedder change (_backfill)
NOT_THIS = "not_this"

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


class SearchIndex(Ranking):
    """The incremental hybrid index of one workspace; searches are always per subject."""

    backfill = BACKFILL  # documents embedded per step after an embedder change

    def __init__(self, store: Store, embedder: Embedder | None = None) -> None:
        self.store = store
        # The meta and table caches (`Ranking`): the connection holds the workspace lock,
        # so only this process changes them, and sync() re-reads the meta.
        super().__init__(embedder if embedder is not None else default_embedder())
        # Syncs and table changes are serialised; searches run concurrently without it.
        self._lock = threading.RLock()
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

    def _prepare(self, address: Address) -> None:
        self.store.backend.sync(address)  # a shared log: copy other nodes' writes first
        if not self.store.read_only:
            self.sync()

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
