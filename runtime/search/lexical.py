"""The lexical list: Okapi BM25 over the subject's postings, with spelling correction.

Scored over the subject's arrays (arrays.py): corpus statistics (N, avgdl, df) come from the
loaded postings, so they are always exact without any maintenance. A query word the subject
never used is replaced by its closest known spelling (one edit in a word of 5+ letters, two
from 8), and the list reports that a word was unknown so fusion can consult the dense list.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from uac.runtime.search.analyzer import Analyzer
from uac.runtime.search.scope import Scope, quoted

if TYPE_CHECKING:  # numpy loads with the arrays: `spelled` serves the lean read (rows.py)
    import numpy as np

    from uac.runtime.search.arrays import Subject

BM25_K1 = 1.2
BM25_B = 0.3
TERM = re.compile(r"[a-z0-9]+")


def bm25(
    con: Any, analyzer: Analyzer, subject: Subject, scope: Scope, allowed: np.ndarray, text: str
) -> tuple[list[tuple[Any, ...]], bool, float]:
    """BM25 list (doc, score, date, length), whether a query word is unknown, avgdl."""
    import numpy as np

    from uac.runtime.search.arrays import top

    # Terms are [a-z0-9]+ by construction (analyzer.words + Porter); the check keeps that.
    terms = [t for t in analyzer.query_terms(text) if TERM.fullmatch(t)]
    if not terms:
        return [], False, 1.0
    terms, unknown = spelled(con, subject, terms)
    n, avgdl = subject.n, subject.avgdl
    lengths = subject.len_buf[:n]
    scores = np.zeros(n)
    touched = np.zeros(n, dtype=bool)
    for term in terms:
        p = subject.terms.get(term)
        if p is None:
            continue
        df = len(p.pos)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[p.pos] / avgdl)
        # A term's postings hold each document once, so fancy-index += adds correctly.
        scores[p.pos] += idf * p.tf * (BM25_K1 + 1) / (p.tf + norm)
        touched[p.pos] = True
    pos = np.flatnonzero(touched & allowed)
    if not len(pos):
        return [], True, 1.0
    docs = subject.docs
    best = pos[top(scores[pos], pos, docs, scope.depth)]
    rows = [(int(docs[i]), float(scores[i]), subject.when(int(i)), float(lengths[i])) for i in best]
    return rows, unknown, avgdl


def spelled(con: Any, subject: Any, terms: list[str]) -> tuple[list[str], bool]:
    """Terms with each unknown one replaced by its closest known spelling, if any (the
    subject: its `sid` and the `terms` it holds)."""
    unknown = [t for t in terms if t not in subject.terms]
    # A typo is one edit in a word of 5+ letters, two from 8 (transpositions are one).
    edits = {t: 0 if len(t) < 5 else 1 if len(t) < 8 else 2 for t in unknown}
    typos = sorted(t for t, e in edits.items() if e)
    fixed: dict[str, str] = {}
    if typos:
        # Every candidate word in one query: a round trip costs more than the comparisons.
        rows = con.execute(
            """
            SELECT q.w, t.term FROM
                (SELECT unnest(?::VARCHAR::VARCHAR[]) AS w, unnest(?::VARCHAR::INTEGER[]) AS e)
                AS q
            JOIN search_terms t
              ON t.sid = ? AND abs(length(t.term) - length(q.w)) <= q.e
             AND damerau_levenshtein(t.term, q.w) <= q.e
            QUALIFY row_number() OVER (PARTITION BY q.w
                                       ORDER BY damerau_levenshtein(t.term, q.w), t.df DESC,
                                                t.term) = 1
            """,
            [quoted(typos), "[" + ",".join(str(edits[t]) for t in typos) + "]", subject.sid],
        ).fetchall()
        fixed = {str(w): str(term) for w, term in rows}
    out = [fixed.get(t, t) for t in terms]
    return sorted(set(out)), bool(unknown)
