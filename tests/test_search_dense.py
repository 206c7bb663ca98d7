"""The dense list's two stages on a large subject: the coarse basis keeps the exact top 10."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from uac.runtime.search import arrays, dense
from uac.runtime.search.arrays import Subject, top

DIM = 384


def unit_columns(rows: np.ndarray) -> np.ndarray:
    """(dim, n) float32 matrix of the rows scaled to unit length."""
    rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return np.ascontiguousarray(rows.T.astype(np.float32))


def subject_of(matrix: np.ndarray, first: int) -> Subject:
    """A subject whose arrays hold the first `first` columns, then the rest appended."""
    n = matrix.shape[1]
    base = replace(
        arrays.empty(1, "test"), doc_buf=np.arange(1, n + 1, dtype=np.int64), vec_buf=matrix
    )
    vec_buf, basis, coarse = arrays._coarse(base, matrix, first)
    old = replace(base, n=first, vec_buf=vec_buf, basis=basis, coarse_buf=coarse)
    if vec_buf is not matrix:  # relaid by rows: append the rest as a refresh would
        vec_buf = arrays._grow(vec_buf.T, first, n, matrix[:, first:].T).T
    vec_buf, basis, coarse = arrays._coarse(old, vec_buf, n)  # the refresh of appended docs
    return replace(old, n=n, vec_buf=vec_buf, basis=basis, coarse_buf=coarse)


def exact_top(matrix: np.ndarray, query: np.ndarray, allowed: np.ndarray, k: int) -> list[int]:
    sims = query @ matrix
    pos = np.flatnonzero(allowed)
    return pos[np.argsort(-sims[pos], kind="stable")[:k]].tolist()


def two_stage_top(subject: Subject, query: np.ndarray, allowed: np.ndarray, k: int) -> list[int]:
    pos, sims = dense.scored(subject, subject.vectors(), query, allowed, depth=100)
    return pos[top(sims, pos, subject.docs, k)].tolist()


def test_the_coarse_stage_keeps_the_exact_top_ten_of_clustered_vectors() -> None:
    rng = np.random.default_rng(7)
    n = arrays.COARSE_MIN + 5_000
    # Sentence vectors are far from isotropic: most of their energy lies in few directions.
    topics = rng.normal(size=(48, DIM))
    rows = rng.normal(size=(n, 48)) @ topics + 4.0 * rng.normal(size=(n, DIM))
    matrix = unit_columns(rows)
    subject = subject_of(matrix, arrays.COARSE_MIN)
    assert subject.coarse() is not None and subject.coarse().shape == (arrays.COARSE_RANK, n)
    assert np.array_equal(subject.vectors(), matrix) and subject.vectors().T.flags.c_contiguous
    # Appended documents are projected on the basis fitted at the first load.
    assert np.allclose(subject.coarse()[:, -5:], subject.basis.T @ matrix[:, -5:], atol=1e-5)
    everything = np.ones(n, bool)
    some = rng.random(n) < 0.3  # a filter (kind, since) that keeps a third
    for q in range(40):
        # A question near no document in particular: a mix of topics, plus noise.
        mix = rng.normal(size=(1, 48)) @ topics + 4.0 * rng.normal(size=(1, DIM))
        query = unit_columns(mix)[:, 0]
        for allowed in (everything, some):
            assert two_stage_top(subject, query, allowed, 10) == exact_top(
                matrix, query, allowed, 10
            ), q


def test_near_isotropic_vectors_get_no_coarse_stage() -> None:
    # Feature hashing spreads words over every dimension: a basis of 96 of them keeps too
    # little of the inner products, so such a subject is always scanned exactly.
    rng = np.random.default_rng(8)
    matrix = unit_columns(rng.normal(size=(arrays.COARSE_MIN, 256)))
    subject = subject_of(matrix, arrays.COARSE_MIN)
    assert subject.coarse() is None
    query = matrix[:, 5]
    allowed = np.ones(subject.n, bool)
    assert two_stage_top(subject, query, allowed, 10) == exact_top(matrix, query, allowed, 10)
