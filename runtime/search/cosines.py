"""The dense list's scores: exact cosines of the documents an approximate scan keeps.

A float32 product's rounding depends on how it is summed (the BLAS kernel of this CPU for
numpy's matrix product in dense.py, a plain loop for DuckDB's array_cosine_similarity in
the lean read, runtime/search/rows.py), so two scans of the same vectors may order near
ties differently. Both scans are therefore only a filter: every document whose approximate
cosine is within 2 x slack of the depth-th best (and above -slack) is scored again here,
from the stored float32 numbers, with correctly rounded sums (`math.fsum`: the products of
two float32 numbers are exact in float64, so the sums are the exact sums rounded once).
The list is those exact scores, best first, ties by lower doc number: the same on every
machine and by either scan.

Why that filter loses nothing: a scan's error is at most `slack(dim)`. A float32 sum of
dim products errs by at most dim x 2**-24 times the product of the lengths (recursive
summation; a blocked BLAS sum errs less); normalising by a float32 length adds at most
about half that for numpy's scan, and DuckDB's two float32 lengths about as much again, so
either errs by at most about 2 x dim x 2**-24 (4.6e-5 for 384 numbers; the largest error
tests/test_search_cosines.py saw was under 2e-7). `slack` is four times that bound. A
document whose approximate score is more than 2 x slack below the depth-th best has at
least depth documents whose exact scores are strictly above its own, so it is not in the
exact top depth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import mul


def slack(dim: int) -> float:
    """A bound on |approximate cosine - exact cosine| of either scan of dim numbers."""
    return 8 * dim * 2.0**-24


def norm2(vector: Sequence[float]) -> float:
    """The squared length, correctly rounded."""
    return math.fsum(map(mul, vector, vector))


def cosine(query: Sequence[float], query_norm2: float, vector: Sequence[float]) -> float:
    """The cosine of a query (its squared length given) and a vector; 0.0 for a zero vector."""
    length2 = norm2(vector)
    if not length2:
        return 0.0
    return math.fsum(map(mul, query, vector)) / (math.sqrt(query_norm2) * math.sqrt(length2))


def floor(approximate: Sequence[float], depth: int, dim: int) -> float:
    """The lowest approximate score a document may have and still be in the exact top
    `depth` of the positive cosines (see the module's docstring)."""
    if len(approximate) <= depth:
        return -slack(dim)
    return lowest(sorted(approximate, reverse=True)[depth - 1], dim)


def lowest(kth: float, dim: int) -> float:
    """`floor` given the depth-th best approximate score."""
    return max(-slack(dim), kth - 2 * slack(dim))


def listed(
    query: Sequence[float], query_norm2: float, candidates: Sequence[tuple[int, Sequence[float]]]
) -> list[tuple[int, float]]:
    """(doc, exact cosine) of the candidates whose cosine is positive, best first, ties by
    lower doc (the caller keeps the first depth)."""
    scored = [(doc, cosine(query, query_norm2, vector)) for doc, vector in candidates]
    return sorted(((d, c) for d, c in scored if c > 0), key=lambda dc: (-dc[1], dc[0]))
