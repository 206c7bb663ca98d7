"""The dense list: the subject's vectors (one table per embedder) and their cosine scan.

`search_vectors` holds (doc, sid, kind, date, vec FLOAT[dim]) for the current embedder;
FLOAT[dim] is fixed per table, so another embedder gets a fresh table. Searches scan the
subject's vectors as one numpy matrix (arrays.py): one vector-matrix product over the
query's non-zero dimensions, where DuckDB's scan of the compressed column took 70–110 ms at
100k notes and the two-stage coarse scan used before kept only ~63% of the exact top 10.
The documents that scan puts within reach of the list's depth are then scored exactly
(cosines.py), so the list does not depend on this machine's BLAS and the lean read's DuckDB
scan (rows.py) lists the same.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyarrow as pa

from uac.fact_log.errors import InputError
from uac.fact_log.extraction.encoder import one_blas_thread
from uac.runtime.search import cosines
from uac.runtime.search.arrays import Subject
from uac.runtime.search.embedders import Embedder
from uac.runtime.search.scope import Scope

EMBED_BATCH = 2048
CANDIDATES = 2000  # documents the coarse stage passes to the exact one (at least)


def create_table(con: Any, dim: int) -> None:
    """(Re)create the vectors table for vectors of dim floats (inside the caller's BEGIN)."""
    con.execute("DROP TABLE IF EXISTS search_vectors")
    # kind and date are copied here so the dense scan filters without a join.
    con.execute(
        "CREATE TABLE search_vectors (doc BIGINT NOT NULL, sid INTEGER NOT NULL,"
        " kind VARCHAR NOT NULL, at_ts TIMESTAMP NOT NULL,"
        f" vec FLOAT[{int(dim)}] NOT NULL)"
    )


def embed_docs_after(con: Any, embedder: Embedder, first_doc: int) -> int:
    """Embed every document numbered first_doc or above; returns how many."""
    rows = con.execute(
        "SELECT doc, sid, kind, at_ts, text FROM search_docs WHERE doc >= ? ORDER BY doc",
        [first_doc],
    ).fetchall()
    return store_vectors(con, embedder, rows)


def embed_docs_below(con: Any, embedder: Embedder, below: int, limit: int) -> int:
    """Embed the newest `limit` documents below `below` without vectors; the lowest embedded.

    A step of index.py's backfill: returns 1 once no such document is left, so every
    document numbered at or above the result has its vector.
    """
    rows = con.execute(
        "SELECT doc, sid, kind, at_ts, text FROM search_docs d WHERE doc < ? AND NOT EXISTS"
        " (SELECT 1 FROM search_vectors v WHERE v.doc = d.doc) ORDER BY doc DESC LIMIT ?",
        [below, limit],
    ).fetchall()
    store_vectors(con, embedder, rows[::-1])
    return int(rows[-1][0]) if len(rows) == limit else 1


def store_vectors(con: Any, embedder: Embedder, rows: list[tuple[Any, ...]]) -> int:
    """Embed (doc, sid, kind, at_ts, text) rows in batches into search_vectors; returns rows."""
    dim = int(embedder.dim)
    for start in range(0, len(rows), EMBED_BATCH):
        chunk = rows[start : start + EMBED_BATCH]
        vectors = embedder.embed([r[4] for r in chunk])
        if len(vectors) != len(chunk) or any(len(v) != dim for v in vectors):
            raise InputError(f"embedder {embedder.name} returned a vector not of {dim}")
        # One float32 matrix, handed to Arrow without a per-element conversion.
        flat = pa.array(np.asarray(vectors, dtype=np.float32).reshape(-1))
        table = pa.table(
            {
                "doc": pa.array([r[0] for r in chunk], pa.int64()),
                "sid": pa.array([r[1] for r in chunk], pa.int32()),
                "kind": pa.array([r[2] for r in chunk], pa.string()),
                "at_ts": pa.array([r[3] for r in chunk], pa.timestamp("us")),
                "vec": pa.FixedSizeListArray.from_arrays(flat, dim),
            }
        )
        con.register("_uac_vectors", table)
        try:
            con.execute(
                "INSERT INTO search_vectors SELECT doc, sid, kind, at_ts, vec FROM _uac_vectors"
            )
        finally:
            con.unregister("_uac_vectors")
    return len(rows)


def cosine(
    embedder: Embedder, subject: Subject, scope: Scope, allowed: np.ndarray, text: str
) -> list[tuple[Any, ...]]:
    """Dense list (doc, cosine, date) of positive similarities, best first.

    The matrix product orders the allowed documents approximately; those that can be in
    the top `depth` are scored exactly (cosines.py), so the list does not depend on how
    this machine's BLAS sums a product.
    """
    matrix = subject.vectors()
    if matrix is None or not subject.n:
        return []
    vector = [float(x) for x in embedder.embed([text])[0]]
    length2 = cosines.norm2(vector)
    if not length2 or not math.isfinite(length2):
        return []
    query = np.asarray(vector, dtype=np.float32) / np.float32(math.sqrt(length2))
    pos, sims = scored(subject, matrix, query, allowed, scope.depth)
    if not len(pos):
        return []
    if len(pos) > scope.depth:
        kth = float(np.partition(sims, len(sims) - scope.depth)[len(sims) - scope.depth])
        least = cosines.lowest(kth, len(vector))
    else:
        least = -cosines.slack(len(vector))
    pos = pos[sims >= least]
    docs = subject.docs
    rows = matrix[:, pos].T.tolist()  # the stored float32 numbers, exactly
    exact = cosines.listed(vector, length2, list(zip(docs[pos].tolist(), rows, strict=True)))
    at = dict(zip(docs[pos].tolist(), pos.tolist(), strict=True))
    return [(doc, score, subject.when(at[doc])) for doc, score in exact[: scope.depth]]


def scored(
    subject: Subject, matrix: np.ndarray, query: np.ndarray, allowed: np.ndarray, depth: int
) -> tuple[np.ndarray, np.ndarray]:
    """(positions, approximate cosines) of the allowed documents that can reach the top
    `depth` (the query a unit vector).

    A large subject's dense query first scores every document on the coarse basis (r of
    the dim numbers, arrays.py), keeps the best max(CANDIDATES, 20 x depth) allowed ones and
    scores only those exactly: at 100k MiniLM vectors the full product read 154 MB per
    query. bench/search.py measures how much of the exact top 10 the two stages keep.
    """
    pos = np.flatnonzero(allowed)
    want = max(CANDIDATES, 20 * depth)
    coarse = subject.coarse()
    scales = subject.scales()
    dense_query = np.count_nonzero(query) >= len(query) // 2  # hashing queries are sparse
    with one_blas_thread():  # small products: spinning BLAS threads only cost (encoder.py)
        if coarse is not None and subject.basis is not None and dense_query and len(pos) > want:
            approx = (
                (query @ subject.basis) @ coarse[:, pos]
                if len(pos) < subject.n // 2
                else ((query @ subject.basis) @ coarse)[pos]
            )
            if scales is not None:
                approx = approx * scales[pos]
            pos = np.sort(pos[np.argpartition(approx, len(pos) - want)[len(pos) - want :]])
            sims = query @ matrix[:, pos]
        elif len(pos) < subject.n // 4:
            sims = query @ matrix[:, pos]  # few allowed (a window, a kind): just those
        else:
            sims = similarities(matrix, query)[pos]
    return pos, sims if scales is None else sims * scales[pos]


def similarities(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The product of a query with every column of a (dim, n) matrix (a unit query and unit
    columns: their cosines)."""
    # Only the query's non-zero dimensions contribute: a hashing query vector has a few
    # dozen of 256, and reading just those rows cuts the memory read ~8x at 100k notes.
    nz = np.flatnonzero(query)
    if len(nz) >= len(query) // 2:
        return query @ matrix
    sims = np.zeros(matrix.shape[1], np.float32)
    term = np.empty_like(sims)
    for d in nz:  # row by row into one reused buffer: no large temporary to fault in
        np.multiply(matrix[d], query[d], out=term)
        sims += term
    return sims
