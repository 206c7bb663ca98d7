"""The dense list: the subject's vectors (one table per embedder) and their cosine scan.

`search_vectors` holds (doc, sid, kind, date, vec FLOAT[dim], coarse FLOAT[COARSE_DIM]) for
the current embedder; FLOAT[dim] is fixed per table, so another embedder gets a fresh table.
`coarse` is a fixed fold of `vec` used to pick candidates when a subject holds more than
EXACT_LIMIT vectors (below that the scan is exact).
"""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa

from uac.fact_log.errors import InputError
from uac.runtime.search.embedders import Embedder
from uac.runtime.search.scope import Scope, literal, sql_filters

EMBED_BATCH = 512
# Above this many vectors in one subject the dense list is found in two stages: a scan of
# COARSE_DIM-dimensional folded vectors picks candidates, exact cosine ranks them. DuckDB
# stores FLOAT arrays ALP-compressed and scans them on one thread per 122,880-row group,
# so an exact 256-dim scan of 100k rows costs ~70 ms; the coarse scan ~13 ms.
EXACT_LIMIT = 20_000
COARSE_DIM = 32
COARSE_CANDIDATES = 2_000


def fold(vector: list[float]) -> list[float]:
    """A cheap fixed linear projection to COARSE_DIM dims (sum of every 32nd component)."""
    return [sum(vector[i::COARSE_DIM]) for i in range(COARSE_DIM)]


def create_table(con: Any, dim: int) -> None:
    """(Re)create the vectors table for vectors of dim floats (inside the caller's BEGIN)."""
    con.execute("DROP TABLE IF EXISTS search_vectors")
    # kind and date are copied here so the dense scan filters without a join.
    con.execute(
        "CREATE TABLE search_vectors (doc BIGINT NOT NULL, sid INTEGER NOT NULL,"
        " kind VARCHAR NOT NULL, at_ts TIMESTAMP NOT NULL,"
        f" vec FLOAT[{int(dim)}] NOT NULL,"
        f" coarse FLOAT[{COARSE_DIM}] NOT NULL)"
    )


def embed_docs_after(con: Any, embedder: Embedder, first_doc: int) -> int:
    """Embed every document numbered first_doc or above; returns how many."""
    rows = con.execute(
        "SELECT doc, sid, kind, at_ts, text FROM search_docs WHERE doc >= ? ORDER BY doc",
        [first_doc],
    ).fetchall()
    dim = int(embedder.dim)
    for start in range(0, len(rows), EMBED_BATCH):
        chunk = rows[start : start + EMBED_BATCH]
        vectors = embedder.embed([r[4] for r in chunk])
        if any(len(v) != dim for v in vectors):
            raise InputError(f"embedder {embedder.name} returned a vector not of {dim}")
        table = pa.table(
            {
                "doc": pa.array([r[0] for r in chunk], pa.int64()),
                "sid": pa.array([r[1] for r in chunk], pa.int32()),
                "kind": pa.array([r[2] for r in chunk], pa.string()),
                "at_ts": pa.array([r[3] for r in chunk], pa.timestamp("us")),
                "vec": pa.array(vectors, pa.list_(pa.float32(), dim)),
                "coarse": pa.array([fold(v) for v in vectors], pa.list_(pa.float32(), COARSE_DIM)),
            }
        )
        con.register("_uac_vectors", table)
        try:
            con.execute(
                "INSERT INTO search_vectors"
                " SELECT doc, sid, kind, at_ts, vec, coarse FROM _uac_vectors"
            )
        finally:
            con.unregister("_uac_vectors")
    return len(rows)


def cosine(
    con: Any, embedder: Embedder, scope: Scope, text: str, size: int
) -> list[tuple[Any, ...]]:
    """Dense list (doc, cosine, date) of positive similarities, best first."""
    query = embedder.embed([text])[0]
    if not any(query) or not all(math.isfinite(x) for x in query):
        return []
    sid, depth = scope.sid, scope.depth
    filters, fparams = sql_filters("v", scope)
    dim = int(embedder.dim)
    # No "s > 0" in SQL: DuckDB would evaluate the similarity twice (filter + projection).
    if size <= EXACT_LIMIT:
        sql = f"""
            SELECT v.doc, array_cosine_similarity(v.vec, ?::VARCHAR::FLOAT[{dim}]) AS s,
                   v.at_ts
            FROM search_vectors v
            WHERE v.sid = ? {filters}
            ORDER BY s DESC, v.doc LIMIT ?
        """
        params = [literal(query), sid, *fparams, depth]
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
        params = [sid, *fparams, literal(fold(query)), candidates, literal(query), depth]
    rows = con.execute(sql, params).fetchall()
    return [r for r in rows if r[1] is not None and r[1] > 0]
