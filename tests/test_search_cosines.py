"""The dense list's exact scores (runtime/search/cosines.py): either scan errs by less than
its slack, the candidates it keeps hold the exact top depth, and the numpy and DuckDB paths
(dense.py, rows.py) list the same documents with the same scores, near ties included."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace

import duckdb
import numpy as np

from uac.runtime.search import arrays, cosines, dense, rows
from uac.runtime.search.scope import Scope

DIM = 384
T0 = dt.datetime(2026, 3, 1)


class Fixed:
    """An embedder giving one fixed query vector."""

    name = "fixed"
    dim = DIM
    semantic = True

    def __init__(self, vector: list[float]) -> None:
        self.vector = vector

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [list(self.vector) for _ in texts]


def _vectors(n: int, seed: int) -> np.ndarray:
    """n float32 vectors of about unit length (as the encoder gives them), with near ties:
    copies of a few vectors, some with one number moved by one float32 step."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n, DIM)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True).astype(np.float32)
    for i in range(0, n // 4, 3):
        base[n - 1 - i] = base[i]  # the same vector twice
        base[n - 2 - i] = base[i]
        base[n - 2 - i, i % DIM] = np.nextafter(base[i, i % DIM], np.float32(2))
    return base


def _both(matrix: np.ndarray, query: list[float], depth: int, allowed: list[bool]) -> tuple:
    """The dense list by dense.py (numpy arrays) and by rows.py (DuckDB) over the same
    stored vectors."""
    n = len(matrix)
    con = duckdb.connect(":memory:")
    con.execute(f"CREATE TABLE search_vectors (doc BIGINT, sid INTEGER, vec FLOAT[{DIM}])")
    con.executemany(
        "INSERT INTO search_vectors VALUES (?, 1, ?)",
        [(d + 1, matrix[d].tolist()) for d in range(n)],
    )
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    subject = replace(
        arrays.empty(1, "fixed"),
        n=n,
        doc_buf=np.arange(1, n + 1, dtype=np.int64),
        at_buf=np.zeros(n, np.int64),
        vec_buf=np.ascontiguousarray(matrix.T),
        scale_buf=(1.0 / np.where(norms > 0, norms, 1.0)).astype(np.float32),  # as arrays.py
    )
    scope = Scope(1, None, None, (), depth)
    embedder = Fixed(query)
    by_numpy = dense.cosine(embedder, subject, scope, np.array(allowed), "q")
    docs = list(range(1, n + 1))
    row_subject = rows.RowSubject(
        sid=1,
        docs=docs,
        at=[0] * n,
        lengths=[1.0] * n,
        inputs=[False] * n,
        items=[(str(d), "note", "", None) for d in docs],
        hidden=frozenset(),
        disliked=frozenset(),
        vectors=True,
        terms=rows.Terms(con, 1, docs),
    )
    by_rows = rows.cosine(con, embedder, row_subject, scope, allowed, "q")
    return by_numpy, by_rows, con


def test_both_scans_err_by_far_less_than_the_slack() -> None:
    matrix = _vectors(400, seed=1)
    query = _vectors(1, seed=2)[0].tolist()
    q2 = cosines.norm2(query)
    exact = [cosines.cosine(query, q2, v) for v in matrix.tolist()]
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    unit = np.asarray(query, np.float32) / np.float32(np.sqrt(q2))
    by_numpy = (unit @ matrix.T) / norms
    _, _, con = _both(matrix, query, 100, [True] * len(matrix))
    literal = "[" + ",".join(map(repr, query)) + f"]::FLOAT[{DIM}]"
    by_duckdb = [
        s
        for (s,) in con.execute(
            f"SELECT array_cosine_similarity(vec, {literal}) FROM search_vectors ORDER BY doc"
        ).fetchall()
    ]
    numpy_error = max(abs(float(a) - e) for a, e in zip(by_numpy, exact, strict=True))
    duckdb_error = max(abs(a - e) for a, e in zip(by_duckdb, exact, strict=True))
    bound = cosines.slack(DIM) / 4  # the worst case the slack is four times
    assert numpy_error < bound / 10 and duckdb_error < bound / 10
    assert numpy_error > 0 or duckdb_error > 0  # the scans do round: what the exact stage fixes


def test_the_kept_candidates_hold_the_exact_top_depth() -> None:
    rng = random.Random(7)
    for _ in range(300):
        n, depth = rng.randint(1, 300), rng.choice([1, 10, 100])
        # Clusters of near-equal scores around a few values, some negative.
        exact = [rng.choice([-0.2, 0.1, 0.3, 0.5]) + rng.uniform(-3, 3) * 1e-4 for _ in range(n)]
        approx = [e + rng.uniform(-1, 1) * cosines.slack(DIM) for e in exact]
        least = cosines.floor(approx, depth, DIM)
        kept = {i for i in range(n) if approx[i] >= least}
        best = sorted((i for i in range(n) if exact[i] > 0), key=lambda i: (-exact[i], i))
        assert set(best[:depth]) <= kept


def test_numpy_and_duckdb_list_the_same_documents_and_scores() -> None:
    matrix = _vectors(300, seed=3)
    for seed, depth in ((4, 100), (5, 10), (6, 500)):
        query = _vectors(1, seed=seed)[0].tolist()
        rng = random.Random(seed)
        allowed = [rng.random() < 0.8 for _ in range(len(matrix))]
        by_numpy, by_rows, _ = _both(matrix, query, depth, allowed)
        assert by_numpy == by_rows and 0 < len(by_numpy) <= depth
        scores = [c for _, c, _ in by_numpy]
        assert scores == sorted(scores, reverse=True)
    # A query equal to a stored vector stored twice (docs 1 and 300; 299 one step off):
    # an exact tie, lower doc first, and a near tie.
    query = matrix[0].tolist()
    by_numpy, by_rows, _ = _both(matrix, query, 100, [True] * len(matrix))
    assert by_numpy == by_rows
    tied = [d for d, c, _ in by_numpy if c == by_numpy[0][1]]
    assert tied[:2] == [1, 300] and tied == sorted(tied)
    assert {d for d, _, _ in by_numpy[:3]} == {1, 299, 300}


def test_a_zero_vector_is_never_listed() -> None:
    matrix = _vectors(50, seed=8)
    matrix[3] = 0.0
    query = matrix[3 + 1].tolist()
    by_numpy, by_rows, _ = _both(matrix, query, 100, [True] * len(matrix))
    assert by_numpy == by_rows and 4 not in {d for d, _, _ in by_numpy}
