"""The read half of the search index: ranking a subject's indexed notes and inputs.

`Ranking` answers a search from the derived `search_*` tables as they stand (index.py
describes them and the ranking); it writes nothing and imports nothing of the store, so a
read that finds the index current with the log (runtime/api/lean_recall.py) ranks without
opening `Memory`. `SearchIndex` (index.py) is a `Ranking` that also maintains the tables
and brings them up to date before each search (`_prepare`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from uac.fact_log.addressing import Address
from uac.fact_log.errors import InputError
from uac.runtime.search import fusion, timeq
from uac.runtime.search.analyzer import Analyzer
from uac.runtime.search.embedders import Embedder, is_semantic
from uac.runtime.search.expand import Neighbour, hop_names, neighbours
from uac.runtime.search.fusion import RRF_K, Parts
from uac.runtime.search.scope import Scope, as_datetime

# A subject as the lists score it: arrays.py's `Subject` (numpy, loaded once and kept in a
# long-lived index), or rows.py's (plain rows, read for one search by the lean read).
Subject = Any

LAYOUT = "5"  # bump when the search_* tables change shape; a writable store then rebuilds

Kind = Literal["note", "input"]


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


class Ranking:
    """Searches over the derived tables of one workspace connection (read only)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        # Caches of search_meta and of which search_* tables exist (a writable index resets
        # them when it changes the tables).
        self._meta_cache: dict[str, str] | None = None
        self._tables: set[str] | None = None
        # Per-search lookups that only change when sync() indexes something.
        self._sids: dict[Address, int] = {}
        # The subjects' arrays (arrays.py); syncs mark the subjects they touched stale.
        self._arrays = self._cache()
        self.analyzer = Analyzer()

    # The subject and its two lists; numpy and the arrays load with the first search. The
    # lean read (runtime/api/lean_recall.py) overrides these four with rows.py's.
    def _cache(self) -> Any:
        from uac.runtime.search.arrays import Cache

        return Cache()

    def _subject(self, sid: int, vectors: str | None) -> Subject:
        return self._arrays.get(self.con, sid, vectors)

    def _lexical(
        self, subject: Subject, scope: Scope, allowed: Any, text: str
    ) -> tuple[list[tuple[Any, ...]], bool, float]:
        from uac.runtime.search.lexical import bm25

        return bm25(self.con, self.analyzer, subject, scope, allowed, text)

    def _dense(self, subject: Subject, scope: Scope, allowed: Any, text: str) -> list[Any]:
        from uac.runtime.search.dense import cosine

        return cosine(self.embedder, subject, scope, allowed, text)

    @property
    def con(self) -> Any:
        """The DuckDB connection (or cursor) the tables are read through."""
        raise NotImplementedError

    def _prepare(self, address: Address) -> None:
        """Bring the tables up to date before a search of `address` (nothing: read as is)."""

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
        self._prepare(address)
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
        subject = self._subject(sid, vectors)
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
            self._lexical(subject, scope, allowed, text) if use_lexical else ([], True, 1.0)
        )
        semantic = is_semantic(self.embedder)
        vec: list[tuple[Any, ...]] = []
        # A non-semantic list is noise next to BM25 unless BM25 cannot be trusted alone.
        consult = semantic or not use_lexical or unknown or len(lex) < k
        if use_dense and consult:
            vec = self._dense(subject, scope, allowed, text)
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
