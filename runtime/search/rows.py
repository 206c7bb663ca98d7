"""A subject's index read as plain rows for one search: the lists without numpy.

The lean read (runtime/api/lean_recall.py) ranks a one-shot `uac search` with the index's
own `Ranking` (ranking.py) over this module's subject and lists instead of arrays.py's: a
process that searches once pays neither numpy (~60 ms to import) nor pyarrow (~60 ms with
the compute module DuckDB's Arrow export loads) to hold a few hundred documents. Each
function here gives what its arrays.py / lexical.py / dense.py counterpart gives, number for
number (tests/test_lean_recall.py compares the answers):

- BM25 adds the same float64 operations in the same order per document (Python floats are
  the IEEE doubles numpy computes with); the subject's total length is a sum of whole
  numbers (analyzer.py: words, a speaker's counted SPEAKER_WEIGHT = 2), exact in any order.
- The dense list scans the vectors with DuckDB's array_cosine_similarity and scores the
  documents that can reach the top exactly (cosines.py), as dense.py does after its scan.

Only the documents' rows, the postings of the query's terms and the vectors of the dense
candidates are read. A subject of COARSE_MIN documents or more, whose dense list arrays.py
narrows with its coarse stage, is not ranked here (`load` raises TooLarge).
"""

from __future__ import annotations

import datetime as dt
import math
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from uac.runtime.search import cosines
from uac.runtime.search.analyzer import Analyzer
from uac.runtime.search.embedders import Embedder
from uac.runtime.search.lexical import BM25_B, BM25_K1, TERM, spelled
from uac.runtime.search.scope import DISLIKED, Scope, literal, quoted
from uac.runtime.search.timeq import Window, stated

COARSE_MIN = 20_000  # arrays.py COARSE_MIN: from here the dense list has a coarse stage
_EPOCH = dt.datetime(1970, 1, 1)
_MICRO = dt.timedelta(microseconds=1)


def micros(moment: dt.datetime) -> int:
    """Microseconds since the epoch of a naive UTC datetime (arrays.py `micros`)."""
    return (moment - _EPOCH) // _MICRO


class TooLarge(Exception):
    """A subject of COARSE_MIN documents or more: arrays.py ranks it (with a coarse stage)."""


class Terms:
    """The postings of the terms a search asks about, read when first asked: `t in terms`
    and `terms.get(t)` as arrays.py's `Subject.terms` answers them."""

    def __init__(self, con: Any, sid: int, docs: list[int]) -> None:
        self._con, self._sid, self._docs = con, sid, docs
        self._read: dict[str, tuple[list[int], list[float]] | None] = {}

    def fetch(self, terms: list[str]) -> None:
        """Read the postings of the terms not read yet, in one statement."""
        wanted = sorted({t for t in terms if t not in self._read})
        if not wanted:
            return
        rows = self._con.execute(
            "SELECT term, list(doc ORDER BY doc), list(tf ORDER BY doc) FROM search_postings"
            " WHERE sid = ? AND list_contains(?::VARCHAR::VARCHAR[], term) GROUP BY term",
            [self._sid, quoted(wanted)],
        ).fetchall()
        self._read.update(dict.fromkeys(wanted))
        for term, docs, tfs in rows:
            # arrays.py: positions by searchsorted into the doc numbers, tf as float64.
            pos = [bisect_left(self._docs, d) for d in docs]
            self._read[str(term)] = (pos, [float(t) for t in tfs])

    def get(self, term: str) -> tuple[list[int], list[float]] | None:
        """(positions, weighted frequencies) of the term's documents, or None."""
        self.fetch([term])
        return self._read[term]

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.get(term) is not None


@dataclass(slots=True)
class RowSubject:
    """One subject's documents as rows, positions 0..n-1 in doc order (arrays.py `Subject`)."""

    sid: int
    docs: list[int]
    at: list[int]  # microseconds since the epoch (naive UTC)
    lengths: list[float]
    inputs: list[bool]
    items: list[tuple[str, str, str, str | None]]  # item_id, kind, text, session
    hidden: frozenset[int]  # doc numbers
    disliked: frozenset[int]
    vectors: bool  # the vectors are the current embedder's (`cosine` counts them)
    terms: Terms
    _said: list[tuple[int, int]] | None = field(default=None)

    @property
    def n(self) -> int:
        """How many documents."""
        return len(self.docs)

    @property
    def avgdl(self) -> float:
        """The average weighted document length."""
        return (0.0 + sum(self.lengths)) / self.n if self.n else 1.0

    def item(self, pos: int) -> tuple[str, str, str, str | None]:
        """(item_id, kind, text, session) of the document at a position."""
        return self.items[pos]

    def position(self, doc: int) -> int:
        """The position of a doc number."""
        return bisect_left(self.docs, doc)

    def when(self, pos: int) -> dt.datetime:
        """The date of the document at a position, as DuckDB returns it (naive)."""
        return _EPOCH + dt.timedelta(microseconds=self.at[pos])

    def said(self) -> list[tuple[int, int]]:
        """Each document's stated time in microseconds ((0, 0): none), as arrays.py `_said`."""
        if self._said is None:
            out = []
            for (_, _, text, _), at in zip(self.items, self.at, strict=True):
                window = stated(text, _EPOCH + dt.timedelta(microseconds=at))
                out.append((0, 0) if window is None else (micros(window[0]), micros(window[1])))
            self._said = out
        return self._said

    def allowed(
        self, kind: str | None, since: dt.datetime | None, windows: tuple[Window, ...]
    ) -> list[bool]:
        """Per position, whether a query may return it (hidden, kind, since, windows)."""
        floor = micros(since) if since is not None else None
        bounds = [(micros(lo), micros(hi)) for lo, hi in windows]
        said = self.said() if windows else []
        mask = []
        for i, doc in enumerate(self.docs):
            ok = doc not in self.hidden
            if ok and kind is not None:
                ok = self.inputs[i] if kind == "input" else not self.inputs[i]
            at = self.at[i]
            if ok and floor is not None:
                ok = at >= floor
            if ok and bounds:
                lo, hi = said[i]
                ok = any((a <= at < b) or (lo < hi and lo < b and hi > a) for a, b in bounds)
            mask.append(ok)
        return mask


def load(con: Any, sid: int, vectors: bool) -> RowSubject:
    """A subject's rows from the search tables (`vectors`: the embedder is the tables')."""
    rows = con.execute(
        "SELECT doc, epoch_us(at_ts), len, kind = 'input', item_id, kind, text, session"
        " FROM search_docs WHERE sid = ? AND doc > 0 ORDER BY doc",
        [sid],
    ).fetchall()
    if len(rows) >= COARSE_MIN:
        raise TooLarge(sid)
    docs = [int(r[0]) for r in rows]
    hidden = con.execute(
        "SELECT DISTINCT doc FROM search_hidden WHERE sid = ? AND doc IS NOT NULL", [sid]
    ).fetchall()
    disliked = con.execute(DISLIKED, [sid]).fetchall()
    return RowSubject(
        sid=sid,
        docs=docs,
        at=[int(r[1]) for r in rows],
        lengths=[float(r[2]) for r in rows],
        inputs=[bool(r[3]) for r in rows],
        items=[(str(r[4]), str(r[5]), str(r[6]), r[7]) for r in rows],
        hidden=frozenset(int(r[0]) for r in hidden),
        disliked=frozenset(int(r[0]) for r in disliked),
        vectors=vectors,
        terms=Terms(con, sid, docs),
    )


def bm25(
    con: Any,
    analyzer: Analyzer,
    subject: RowSubject,
    scope: Scope,
    allowed: list[bool],
    text: str,
) -> tuple[list[tuple[Any, ...]], bool, float]:
    """lexical.py `bm25` over the rows: (doc, score, date, length), unknown word, avgdl."""
    terms = [t for t in analyzer.query_terms(text) if TERM.fullmatch(t)]
    if not terms:
        return [], False, 1.0
    subject.terms.fetch(terms)
    terms, unknown = spelled(con, subject, terms)
    subject.terms.fetch(terms)
    n, avgdl = subject.n, subject.avgdl
    lengths = subject.lengths
    scores: dict[int, float] = {}
    for term in terms:
        p = subject.terms.get(term)
        if p is None:
            continue
        positions, tfs = p
        df = len(positions)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for i, tf in zip(positions, tfs, strict=True):
            # The operations of lexical.py's array expression, in its order.
            norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[i] / avgdl)
            scores[i] = scores.get(i, 0.0) + idf * tf * (BM25_K1 + 1) / (tf + norm)
    pos = [i for i in scores if allowed[i]]
    if not pos:
        return [], True, 1.0
    docs = subject.docs
    best = sorted(pos, key=lambda i: (-scores[i], docs[i]))[: scope.depth]
    rows = [(docs[i], scores[i], subject.when(i), lengths[i]) for i in best]
    return rows, unknown, avgdl


def cosine(
    con: Any,
    embedder: Embedder,
    subject: RowSubject,
    scope: Scope,
    allowed: list[bool],
    text: str,
) -> list[tuple[Any, ...]]:
    """dense.py `cosine` over the rows: (doc, cosine, date) of positive cosines, best first."""
    if not subject.vectors or not subject.n:
        return []
    allowed_docs = sum(allowed)
    if allowed_docs <= scope.depth:
        # Every allowed document is a candidate (cosines.floor): no scan, all of them exact.
        found = con.execute(
            "SELECT doc, vec FROM search_vectors WHERE sid = ? AND doc > 0", [subject.sid]
        ).fetchall()
        count = len(found)
    else:
        found = None
        row = con.execute(
            "SELECT count(*) FROM search_vectors WHERE sid = ? AND doc > 0", [subject.sid]
        ).fetchone()
        count = int(row[0]) if row is not None else 0
    if count != subject.n:
        return []  # some documents have no vector: arrays.py keeps no dense list then
    vector = [float(x) for x in embedder.embed([text])[0]]
    length2 = cosines.norm2(vector)
    if not length2 or not math.isfinite(length2) or not allowed_docs:
        return []
    if found is None:
        found = _scanned(con, subject, allowed, vector, scope.depth)
    else:
        found = [(d, v) for d, v in found if allowed[subject.position(int(d))]]
    exact = cosines.listed(vector, length2, [(int(d), v) for d, v in found])
    when = subject.when
    return [(d, c, when(subject.position(d))) for d, c in exact[: scope.depth]]


def _scanned(
    con: Any, subject: RowSubject, allowed: list[bool], vector: list[float], depth: int
) -> list[tuple[Any, Any]]:
    """(doc, stored vector) of the allowed documents DuckDB's approximate scan keeps as
    candidates for the exact top depth (cosines.floor)."""
    # The numbers are ours (finite floats): inlined as a literal, parsed once.
    scanned = con.execute(
        f"SELECT doc, array_cosine_similarity(vec, {literal(vector)}::FLOAT[{len(vector)}])"
        " FROM search_vectors WHERE sid = ? AND doc > 0",
        [subject.sid],
    ).fetchall()
    approx: dict[int, float] = {}
    for doc, score in scanned:
        if allowed[subject.position(int(doc))]:
            # A zero vector's cosine is 0 (cosines.py); DuckDB may give NaN for it.
            approx[int(doc)] = 0.0 if score is None or math.isnan(score) else float(score)
    least = cosines.floor(list(approx.values()), depth, len(vector))
    wanted = sorted(doc for doc, score in approx.items() if score >= least)
    return con.execute(
        "SELECT doc, vec FROM search_vectors WHERE sid = ?"
        " AND list_contains(?::VARCHAR::BIGINT[], doc)",
        [subject.sid, literal(wanted)],
    ).fetchall()
