"""Dense retrieval at 100k notes: DuckDB's `vss` HNSW index against the index's exact scan.

Run from the repository root (needs `pip install duckdb-extension-vss==<duckdb version>`, the
extension shipped as a PyPI package; nothing is downloaded):

    python bench/vss.py                 # 100,000 notes, 200 queries, 3 rounds
    python bench/vss.py --notes 20000   # smaller

Vectors are the hashing embedder's (256 dims) over the latency corpus of bench/search.py,
or with --workspace the stored vectors of a built workspace (the default MiniLM, 384 dims:
the 100k one bench/search.py keeps in the temp folder), queries embedded by the same
embedder. For each query, the exact top 10 (a full cosine scan) is the reference; reported:
recall of that top 10 and p50/p99 latency of (a) the exact numpy scan (one matrix-vector
product over the unit vectors, then the top 10), (a') what the index runs now for a large
subject (runtime/search/dense.py `scored`: the coarse basis, then exact cosines of the best
candidates; an exact scan when the vectors have no basis), (b) the same exact scan in DuckDB
SQL (`array_cosine_similarity`, what the index ran before), (c) an HNSW index (`CREATE INDEX
... USING HNSW`, metric cosine) queried with `ORDER BY array_cosine_distance(...) LIMIT 10`,
plus the HNSW build time. All in one in-memory database, one process, the same queries.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

sys.path.append(sys.path.pop(0))  # bench/ last: a stdlib-named script here shadows the stdlib's

from search import filler, generate, machine, pct

from uac.runtime.search import arrays
from uac.runtime.search.dense import scored, similarities
from uac.runtime.search.embedders import Embedder, HashingEmbedder, default_embedder
from uac.runtime.search.scope import literal as _literal


def main() -> None:
    """Build the vectors, time the three searches, print a Markdown section."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--workspace",
        help="take the vectors from a built workspace (bench/search.py keeps its 100k one in"
        " the temp folder) and embed the queries with the default embedder (MiniLM)",
    )
    args = parser.parse_args()
    import duckdb_extension_vss

    ext = (
        Path(duckdb_extension_vss.__file__).parent
        / "extensions"
        / f"v{duckdb.__version__}"
        / "vss.duckdb_extension"
    )
    con = duckdb.connect()
    con.execute("SET autoinstall_known_extensions = false")
    con.execute(f"LOAD '{ext}'")
    emb: Embedder = HashingEmbedder()
    t = time.perf_counter()
    if args.workspace:
        emb = default_embedder()
        with duckdb.connect(str(Path(args.workspace) / "uac.duckdb"), read_only=True) as ws:
            stored = ws.execute("SELECT vec FROM search_vectors ORDER BY doc").to_arrow_table()
        column = stored.column(0).combine_chunks()
        vectors = column.values.to_numpy().reshape(len(column), -1)[: args.notes].tolist()
        args.notes = len(vectors)
    else:
        vectors = emb.embed(filler(args.notes))
    dim = emb.dim
    embed_s = time.perf_counter() - t
    con.execute(f"CREATE TABLE v (doc BIGINT, vec FLOAT[{dim}])")
    table = pa.table(
        {
            "doc": pa.array(range(len(vectors)), pa.int64()),
            "vec": pa.array(vectors, pa.list_(pa.float32(), dim)),
        }
    )
    con.register("t", table)
    con.execute("INSERT INTO v SELECT * FROM t")
    con.unregister("t")
    queries = [q for q, _ in generate(2000, args.queries)[1]]
    qvecs = emb.embed(queries)

    def exact(q: list[float]) -> list[int]:
        sql = (
            f"SELECT doc FROM v ORDER BY array_cosine_similarity(vec, ?::VARCHAR::FLOAT[{dim}])"
            " DESC, doc LIMIT 10"
        )
        return [r[0] for r in con.execute(sql, [_literal(q)]).fetchall()]

    # As runtime/search/arrays.py holds them: float32 unit vectors, one column each.
    rows = np.asarray(vectors, dtype=np.float32)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-30)
    matrix = np.ascontiguousarray(rows.T)

    def numpy_exact(q: list[float]) -> list[int]:
        query = np.asarray(q, dtype=np.float32)
        sims = similarities(matrix, query / np.linalg.norm(query))  # the index's own scoring
        best = np.argpartition(-sims, 10)[:10]
        return [int(i) for i in best[np.lexsort((best, -sims[best]))]]

    # As a large subject holds them (arrays.py): the coarse basis, rows by document.
    subject = replace(
        arrays.empty(1, emb.name), doc_buf=np.arange(len(vectors), dtype=np.int64), vec_buf=matrix
    )
    vec_buf, basis, coarse = arrays._coarse(subject, matrix, len(vectors))
    subject = replace(subject, n=len(vectors), vec_buf=vec_buf, basis=basis, coarse_buf=coarse)
    everything = np.ones(len(vectors), bool)

    def two_stage(q: list[float]) -> list[int]:
        query = np.asarray(q, dtype=np.float32)
        query /= np.linalg.norm(query)
        pos, sims = scored(subject, subject.vectors(), query, everything, 100)
        return [int(pos[i]) for i in arrays.top(sims, pos, subject.docs, 10)]

    def hnsw(q: list[float]) -> list[int]:
        sql = (
            f"SELECT doc FROM v ORDER BY array_cosine_distance(vec, ?::VARCHAR::FLOAT[{dim}])"
            " LIMIT 10"
        )
        return [r[0] for r in con.execute(sql, [_literal(q)]).fetchall()]

    truth = [exact(q) for q in qvecs]
    t = time.perf_counter()
    con.execute("CREATE INDEX v_hnsw ON v USING HNSW (vec) WITH (metric = 'cosine')")
    build_s = time.perf_counter() - t
    plan = con.execute(
        f"EXPLAIN SELECT doc FROM v ORDER BY array_cosine_distance(vec, "
        f"{_literal(qvecs[0])}::FLOAT[{dim}]) LIMIT 10"
    ).fetchall()
    uses_index = "HNSW" in str(plan).upper()
    rows = []
    searches = (
        ("exact scan, numpy (uac before the coarse stage)", numpy_exact),
        (
            "uac now: coarse basis then exact candidates"
            + ("" if coarse is not None else " (no basis: exact scan)"),
            two_stage,
        ),
        ("exact scan, DuckDB SQL (uac before)", exact),
        ("HNSW (vss)", hnsw),
    )
    for name, fn in searches:
        got = [fn(q) for q in qvecs]
        recall = statistics.mean(
            len(set(g) & set(w)) / len(w) for g, w in zip(got, truth, strict=True)
        )
        p50s, p99s = [], []
        for _ in range(args.runs):
            times = []
            for q in qvecs:
                t = time.perf_counter()
                fn(q)
                times.append(time.perf_counter() - t)
            p50s.append(pct(times, 50) * 1000)
            p99s.append(pct(times, 99) * 1000)
        rows.append((name, recall, statistics.median(p50s), statistics.median(p99s)))
    lines = [
        f"### Dense top-10 at {args.notes:,} vectors: HNSW (duckdb-extension-vss) vs exact",
        "",
        f"Machine: {machine()}; command: `python bench/vss.py --notes {args.notes}"
        f" --queries {args.queries} --runs {args.runs}"
        f"{' --workspace WS' if args.workspace else ''}`; {emb.name} vectors (getting them took"
        f" {embed_s:.1f} s); in-memory DuckDB {duckdb.__version__}; median of {args.runs} rounds;"
        f" load average {os.getloadavg()[0]:.1f}.",
        "",
        "| search | recall of exact top 10 | p50 ms | p99 ms | ratio p50 to exact |",
        "|---|---:|---:|---:|---:|",
    ]
    base = rows[0][2]
    for name, recall, p50, p99 in rows:
        lines.append(f"| {name} | {recall:.3f} | {p50:.1f} | {p99:.1f} | {p50 / base:.2f} |")
    lines += [
        "",
        f"HNSW build: {build_s:.1f} s; the planner used the index: {uses_index}.",
        "",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
