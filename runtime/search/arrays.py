"""A subject's index held in numpy arrays: what both lists score at query time.

Scoring in SQL cost ~16 ms for BM25 and ~40–110 ms for the dense scan at 100k notes in one
subject (DuckDB scans an ALP-compressed FLOAT[256] column on one thread per row group).
The same data as arrays — postings per term, per-document length/date/kind/visibility, a
matrix of the stored vectors and their inverse lengths — scores a query with a few vector
operations (one matrix-vector product for the dense list's approximate cosines, whose
best are then scored exactly from the same numbers, cosines.py).

Snapshots are immutable to their readers: a refresh after `sync()` builds a new `Subject`
that shares the old one's buffers (appends go past the old length, which old readers never
look at; when a buffer is full it is copied into one twice the size), so searches run
without a lock while one thread refreshes. Which subjects stay loaded is bounded by bytes
(least recently used first out).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pyarrow as pa

from uac.fact_log.extraction.encoder import one_blas_thread
from uac.runtime.search.scope import DISLIKED
from uac.runtime.search.timeq import Window, stated

_EPOCH = np.datetime64("1970-01-01T00:00:00", "us")
# Above this many bytes of arrays in one process, the least recently searched subjects are
# dropped (reloaded from the database on their next search).
MAX_BYTES = 768 * 1024 * 1024
# The dense list's coarse stage (dense.py): subjects of COARSE_MIN documents or more keep
# their vectors' COARSE_RANK leading directions, fitted on at most FIT_SAMPLE of them.
COARSE_MIN = 20_000
COARSE_RANK = 96
FIT_SAMPLE = 20_000
MIN_ENERGY = 0.6
_ITEMS = pa.schema(
    [
        ("item_id", pa.string()),
        ("kind", pa.string()),
        ("text", pa.string()),
        ("session", pa.string()),
    ]
)


@dataclass(frozen=True, slots=True)
class Postings:
    """One term's documents (positions in the subject's arrays) and weighted frequencies."""

    pos: np.ndarray  # int32, ascending
    tf: np.ndarray  # float64


@dataclass(frozen=True, slots=True)
class Subject:
    """One subject's index as arrays; positions 0..n-1 are its documents in doc order."""

    sid: int
    n: int
    doc_buf: np.ndarray  # int64 doc numbers (ascending)
    at_buf: np.ndarray  # int64 microseconds since the epoch (naive UTC)
    len_buf: np.ndarray  # float64 weighted length
    input_buf: np.ndarray  # bool: kind == 'input'
    # When what the item tells happened, from its own words read on its own date
    # (timeq.stated: "two weeks ago" on 4 February is mid-January); lo == hi: nothing said.
    said_lo: np.ndarray  # int64 microseconds since the epoch
    said_hi: np.ndarray  # int64
    hidden: np.ndarray  # bool, length n: retracted items and the inputs notes stand for
    disliked: frozenset[int]  # doc numbers with "not this" feedback
    terms: dict[str, Postings]
    # float32 (dim, capacity): column j is document j's vector as stored (search_vectors),
    # by dimension so a query touching few dimensions reads only those rows (see dense.py);
    # None: no vectors. The exact scores are computed from these numbers (cosines.py).
    vec_buf: np.ndarray | None
    embedder: str | None  # identity of the embedder the vectors came from
    len_sum: float
    items: pa.Table  # item_id, kind, text, session per position: hits need no query
    post_bytes: int = 0  # bytes of the postings arrays (approximate after appends)
    hidden_rows: int = 0  # search_hidden rowids below this have been read
    # The coarse stage of the dense list (dense.py) for a large subject: the vectors'
    # leading directions (dim, r) and every document's coordinates on them (r, capacity).
    basis: np.ndarray | None = None
    coarse_buf: np.ndarray | None = None
    # float32 (capacity,): 1 / each vector's length (1 for a zero vector), which turns a
    # product with the columns into approximate cosines; None: the columns are unit vectors.
    scale_buf: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        """Bytes held by this snapshot's arrays (for the cache's bound)."""
        bufs = (
            self.doc_buf,
            self.at_buf,
            self.len_buf,
            self.input_buf,
            self.hidden,
            self.said_lo,
            self.said_hi,
        )
        extra = (self.vec_buf, self.coarse_buf, self.scale_buf)
        vec = sum(b.nbytes for b in extra if b is not None)
        return sum(b.nbytes for b in bufs) + vec + self.post_bytes + self.items.nbytes

    def item(self, pos: int) -> tuple[str, str, str, str | None]:
        """(item_id, kind, text, session) of the document at a position."""
        return (
            self.items.column(0)[pos].as_py(),
            self.items.column(1)[pos].as_py(),
            self.items.column(2)[pos].as_py(),
            self.items.column(3)[pos].as_py(),
        )

    def position(self, doc: int) -> int:
        """The position of a doc number (which must be loaded)."""
        return int(np.searchsorted(self.docs, doc))

    @property
    def docs(self) -> np.ndarray:
        """Doc numbers, ascending."""
        return self.doc_buf[: self.n]

    @property
    def max_doc(self) -> int:
        """The highest doc number loaded (0 when empty)."""
        return int(self.doc_buf[self.n - 1]) if self.n else 0

    @property
    def avgdl(self) -> float:
        """The subject's average weighted document length."""
        return self.len_sum / self.n if self.n else 1.0

    def allowed(
        self, kind: str | None, since: dt.datetime | None, windows: tuple[Window, ...]
    ) -> np.ndarray:
        """Boolean mask of the documents a query may return (hidden, kind, since, windows)."""
        mask = ~self.hidden
        if kind is not None:
            is_input = self.input_buf[: self.n]
            mask &= is_input if kind == "input" else ~is_input
        at = self.at_buf[: self.n]
        if since is not None:
            mask &= at >= micros(since)
        if windows:
            # Inside a window by its date, or by the time its text talks about.
            said_lo, said_hi = self.said_lo[: self.n], self.said_hi[: self.n]
            inside = np.zeros(self.n, dtype=bool)
            for lo, hi in windows:
                a, b = micros(lo), micros(hi)
                inside |= (at >= a) & (at < b)
                inside |= (said_lo < said_hi) & (said_lo < b) & (said_hi > a)
            mask &= inside
        return mask

    def when(self, pos: int) -> dt.datetime:
        """The date of the document at a position, as DuckDB returns it (naive)."""
        return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=int(self.at_buf[pos]))

    def vectors(self) -> np.ndarray | None:
        """The (dim, n) matrix of vectors (one column per document), or None."""
        return None if self.vec_buf is None else self.vec_buf[:, : self.n]

    def scales(self) -> np.ndarray | None:
        """The n documents' 1 / length (None: the vectors are unit vectors)."""
        return None if self.scale_buf is None else self.scale_buf[: self.n]

    def coarse(self) -> np.ndarray | None:
        """The (r, n) documents' coordinates on `basis`, or None (a small subject)."""
        return None if self.coarse_buf is None else self.coarse_buf[:, : self.n]


def micros(moment: dt.datetime) -> int:
    """Microseconds since the epoch of a naive UTC datetime."""
    return int((np.datetime64(moment, "us") - _EPOCH).astype(np.int64))


def top(scores: np.ndarray, positions: np.ndarray, docs: np.ndarray, depth: int) -> np.ndarray:
    """Indexes into positions of the depth best scores, best first, ties by lower doc."""
    if len(scores) > depth:
        # Everything strictly above the depth-th score, plus ties at it (sorted by doc below).
        kth = np.partition(scores, len(scores) - depth)[len(scores) - depth]
        keep = np.flatnonzero(scores >= kth)
    else:
        keep = np.arange(len(scores))
    order = np.lexsort((docs[positions[keep]], -scores[keep]))
    return keep[order][:depth]


class Cache:
    """Loaded subjects, refreshed after syncs, bounded by bytes (least recently used out)."""

    def __init__(self) -> None:
        self._subjects: OrderedDict[int, Subject] = OrderedDict()
        self._stale: set[int] = set()
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every loaded subject (tables dropped, or synced by another index)."""
        with self._lock:
            self._subjects.clear()
            self._stale.clear()

    def drop(self, sids: set[int]) -> None:
        """Forget some subjects: their next search loads them whole (vectors completed)."""
        with self._lock:
            for sid in sids:
                self._subjects.pop(sid, None)
                self._stale.discard(sid)

    def stale(self, sids: set[int]) -> None:
        """Mark subjects whose documents, hidden items or feedback changed."""
        with self._lock:
            self._stale |= sids & set(self._subjects)

    def get(self, con: Any, sid: int, embedder: str | None) -> Subject:
        """The subject's current arrays, loading or refreshing them if needed."""
        # Lock-free fast path: a dict read of an immutable snapshot.
        snap = self._subjects.get(sid)
        if snap is not None and sid not in self._stale and snap.embedder == embedder:
            return snap
        with self._lock:
            snap = self._subjects.get(sid)
            if snap is None or snap.embedder != embedder:
                snap = load(con, sid, embedder)
            elif sid in self._stale:
                snap = refresh(con, snap)
            self._stale.discard(sid)
            self._subjects[sid] = snap
            self._subjects.move_to_end(sid)
            total = sum(s.nbytes for s in self._subjects.values())
            while total > MAX_BYTES and len(self._subjects) > 1:
                _, dropped = self._subjects.popitem(last=False)
                total -= dropped.nbytes
            return snap


def load(con: Any, sid: int, embedder: str | None) -> Subject:
    """A subject's arrays read from the search tables."""
    return refresh(con, empty(sid, embedder))


def empty(sid: int, embedder: str | None) -> Subject:
    """A subject holding no documents yet."""
    return Subject(
        sid=sid,
        n=0,
        doc_buf=np.zeros(0, np.int64),
        at_buf=np.zeros(0, np.int64),
        len_buf=np.zeros(0, np.float64),
        input_buf=np.zeros(0, bool),
        said_lo=np.zeros(0, np.int64),
        said_hi=np.zeros(0, np.int64),
        hidden=np.zeros(0, bool),
        disliked=frozenset(),
        terms={},
        vec_buf=None,
        embedder=embedder,
        len_sum=0.0,
        items=_ITEMS.empty_table(),
    )


def refresh(con: Any, old: Subject) -> Subject:
    """The snapshot plus documents numbered above its last, with hidden/feedback re-read."""
    # One transaction: documents, postings, vectors and hidden rows from one snapshot even
    # while another thread syncs.
    con.execute("BEGIN")
    try:
        return _refresh(con, old)
    finally:
        con.execute("ROLLBACK")  # read only: nothing to keep


def _refresh(con: Any, old: Subject) -> Subject:
    sid, after = old.sid, old.max_doc
    table = con.arrow(
        "SELECT doc, epoch_us(at_ts) AS at, len, kind = 'input' AS is_input,"
        " item_id, kind, text, session FROM search_docs WHERE sid = ? AND doc > ? ORDER BY doc",
        [sid, after],
    )
    docs = {name: table.column(name).to_numpy() for name in ("doc", "at", "len", "is_input")}
    m = table.num_rows
    items = table.select(["item_id", "kind", "text", "session"]).cast(_ITEMS)
    items = pa.concat_tables([old.items, items]) if old.n else items
    if items.column(0).num_chunks > 32:  # many small appends: one chunk again
        items = items.combine_chunks()
    n = old.n + m
    doc_buf = _grow(old.doc_buf, old.n, n, docs["doc"].astype(np.int64))
    at_buf = _grow(old.at_buf, old.n, n, docs["at"].astype(np.int64))
    len_buf = _grow(old.len_buf, old.n, n, docs["len"].astype(np.float64))
    input_buf = _grow(old.input_buf, old.n, n, docs["is_input"].astype(bool))
    said = _said(table.column("text").to_pylist(), docs["at"])
    said_lo = _grow(old.said_lo, old.n, n, said[0])
    said_hi = _grow(old.said_hi, old.n, n, said[1])
    all_docs = doc_buf[:n]
    terms = dict(old.terms)
    post_bytes = old.post_bytes
    if m:
        rows = con.arrow(
            "SELECT term, list(doc ORDER BY doc) AS docs, list(tf ORDER BY doc) AS tfs"
            " FROM search_postings WHERE sid = ? AND doc > ? GROUP BY term",
            [sid, after],
        )
        names = rows.column("term").to_pylist()
        offsets = rows.column("docs").combine_chunks().offsets.to_numpy()
        flat_docs = rows.column("docs").combine_chunks().values.to_numpy()
        flat_tf = rows.column("tfs").combine_chunks().values.to_numpy().astype(np.float64)
        flat_pos = np.searchsorted(all_docs, flat_docs).astype(np.int32)
        post_bytes += flat_pos.nbytes + flat_tf.nbytes
        for i, term in enumerate(names):
            a, b = offsets[i], offsets[i + 1]
            new = Postings(flat_pos[a:b], flat_tf[a:b])
            prev = terms.get(term)
            if prev is not None:
                new = Postings(
                    np.concatenate([prev.pos, new.pos]), np.concatenate([prev.tf, new.tf])
                )
            terms[term] = new
    vec_buf, scale_buf = _vectors(con, old, after, n, m, all_docs)
    vec_buf, basis, coarse_buf = _coarse(old, vec_buf, n)
    # Hidden rows are only ever appended (rowids grow): read the ones added since.
    hidden = np.zeros(n, bool)
    hidden[: old.n] = old.hidden
    hid = con.numpy(
        "SELECT coalesce(doc, -1) AS doc, rowid AS r FROM search_hidden"
        " WHERE sid = ? AND rowid >= ?",
        [sid, old.hidden_rows],
    )
    hidden_rows = int(hid["r"].max()) + 1 if len(hid["r"]) else old.hidden_rows
    found = np.asarray(hid["doc"], dtype=np.int64)
    found = found[found >= 0]  # -1: the hidden item was never indexed (a note's own input)
    if len(found) and n:
        # A hidden doc may be gone (purged by an erase or gc): mark only docs still present.
        pos = np.minimum(np.searchsorted(all_docs, found), n - 1)
        hidden[pos[all_docs[pos] == found]] = True
    disliked = frozenset(int(r[0]) for r in con.execute(DISLIKED, [sid]).fetchall())
    return replace(
        old,
        n=n,
        doc_buf=doc_buf,
        at_buf=at_buf,
        len_buf=len_buf,
        input_buf=input_buf,
        said_lo=said_lo,
        said_hi=said_hi,
        hidden=hidden,
        disliked=disliked,
        terms=terms,
        vec_buf=vec_buf,
        basis=basis,
        coarse_buf=coarse_buf,
        scale_buf=scale_buf,
        len_sum=old.len_sum + float(docs["len"].sum()),
        items=items,
        post_bytes=post_bytes,
        hidden_rows=hidden_rows,
    )


def _said(texts: list[str], at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each item's stated time (timeq.stated) as two arrays of microseconds (0, 0: none)."""
    lo = np.zeros(len(texts), np.int64)
    hi = np.zeros(len(texts), np.int64)
    for i, text in enumerate(texts):
        moment = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=int(at[i]))
        window = stated(text, moment)
        if window is not None:
            lo[i], hi[i] = micros(window[0]), micros(window[1])
    return lo, hi


def _vectors(
    con: Any, old: Subject, after: int, n: int, m: int, all_docs: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The vector buffer with the new documents' rows appended and their 1 / length
    (None, None: no vectors)."""
    if old.embedder is None or (old.n and old.vec_buf is None):
        return None, None
    if not m:
        return old.vec_buf, old.scale_buf
    table = con.arrow(
        "SELECT doc, vec FROM search_vectors WHERE sid = ? AND doc > ? ORDER BY doc",
        [old.sid, after],
    )
    if table.num_rows != m:
        return None, None  # vectors missing for some documents: the dense list is not used
    column = table.column("vec").combine_chunks()
    dim = column.type.list_size
    rows = column.values.to_numpy().astype(np.float32).reshape(m, dim)  # a writable copy
    norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
    scales = (1.0 / np.where(norms > 0, norms, 1.0)).astype(np.float32)
    if old.vec_buf is None:  # the first load: exactly the size needed
        # A large subject keeps them as rows if _coarse fits a basis: no copy either way.
        matrix = rows.T if m >= COARSE_MIN else np.ascontiguousarray(rows.T)
        return matrix, scales
    old_scales = old.scale_buf if old.scale_buf is not None else np.ones(old.n, np.float32)
    return _grow(old.vec_buf.T, old.n, n, rows).T, _grow(old_scales, old.n, n, scales)


def _coarse(
    old: Subject, vec_buf: np.ndarray | None, n: int
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """The vectors, the coarse stage's basis and coordinates, new documents appended.

    Fitted once, when a subject first holds COARSE_MIN documents: the leading eigenvectors
    of the vectors' second-moment matrix (from at most FIT_SAMPLE columns), the r directions
    that keep inner products best in the least-squares sense. Later documents are projected
    on that basis. A basis keeping under MIN_ENERGY of the vectors' energy (near-isotropic
    vectors such as feature hashing's) is not used: its coarse order would miss too often.
    With the basis, the vectors are laid out one document per contiguous row (the matrix is
    its transposed view), so the exact stage gathers its candidates as whole rows.
    """
    if vec_buf is None or n < COARSE_MIN:
        return vec_buf, None, None
    matrix = vec_buf[:, :n]
    with one_blas_thread():  # small products: spinning BLAS threads only cost (encoder.py)
        if old.basis is None or old.coarse_buf is None:
            rows = np.ascontiguousarray(matrix.T)  # (n, dim): no copy after a first load
            sample = rows[:: max(1, n // FIT_SAMPLE)]
            values, vectors = np.linalg.eigh(sample.T @ sample)  # ascending eigenvalues
            rank = min(COARSE_RANK, len(values))
            if values[-rank:].sum() < MIN_ENERGY * values.sum():
                return np.ascontiguousarray(matrix), None, None  # by dimension (dense.py)
            basis = np.ascontiguousarray(vectors[:, -rank:][:, ::-1].astype(np.float32))
            return rows.T, basis, np.ascontiguousarray((rows @ basis).T)
        if n == old.n:
            return vec_buf, old.basis, old.coarse_buf
        new = matrix[:, old.n : n].T @ old.basis
    return vec_buf, old.basis, _grow(old.coarse_buf.T, old.n, n, new).T


def _grow(buf: np.ndarray, used: int, total: int, new: np.ndarray) -> np.ndarray:
    """buf with new written at [used:total], reallocated twice as large when full."""
    # For the vectors this is called on the transposed (capacity, dim) view of a C-ordered
    # (dim, capacity) buffer: the new buffer is allocated in that layout too.
    if total > len(buf):
        size = max(total, 2 * len(buf))
        if buf.ndim == 2 and buf.flags.c_contiguous:  # rows stay rows (_coarse's layout)
            bigger = np.zeros((size, buf.shape[1]), buf.dtype)
        elif buf.ndim == 2:
            bigger = np.zeros((buf.shape[1], size), buf.dtype).T
        else:
            bigger = np.zeros(size, buf.dtype)
        bigger[:used] = buf[:used]
        buf = bigger
    buf[used:total] = new
    return buf
