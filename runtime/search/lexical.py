"""The lexical list: Okapi BM25 over the subject's postings, with spelling correction.

Corpus statistics (N, avgdl, df) are computed at query time from the postings of the query
terms only, so they are always exact without any maintenance. A query word the subject
never used is replaced by its closest known spelling (one edit in a word of 5+ letters, two
from 8), and the list reports that a word was unknown so fusion can consult the dense list.
"""

from __future__ import annotations

import re
from typing import Any

from uac.runtime.search.analyzer import Analyzer
from uac.runtime.search.scope import Scope, quoted, sql_filters

BM25_K1 = 1.2
BM25_B = 0.3
TERM = re.compile(r"[a-z0-9]+")


def bm25(
    con: Any, analyzer: Analyzer, scope: Scope, text: str
) -> tuple[list[tuple[Any, ...]], bool, float]:
    """BM25 list (doc, score, date, length), whether a query word is unknown, avgdl."""
    # Terms are [a-z0-9]+ by construction (analyzer.words + Porter); the check keeps that.
    terms = [t for t in analyzer.query_terms(text) if TERM.fullmatch(t)]
    if not terms:
        return [], False, 1.0
    terms, unknown = spelled(con, scope.sid, terms)
    filters, fparams = sql_filters("p", scope)
    # Terms travel as one bound string (binding a Python list is ~20x slower; see quoted).
    sql = f"""
        WITH st AS (SELECT count(*)::DOUBLE AS n, avg(len)::DOUBLE AS avgdl
                    FROM search_docs WHERE sid = ?),
             p AS (SELECT term, doc, tf, len, kind, at_ts,
                          count(*) OVER (PARTITION BY term)::DOUBLE AS df
                   FROM search_postings
                   WHERE sid = ? AND list_contains(?::VARCHAR::VARCHAR[], term))
        SELECT p.doc,
               sum(ln(1 + (st.n - p.df + 0.5) / (p.df + 0.5)) * p.tf * ({BM25_K1} + 1)
                   / (p.tf + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * p.len / st.avgdl)))
               AS score,
               any_value(p.at_ts), any_value(p.len), any_value(st.avgdl)
        FROM p CROSS JOIN st
        WHERE true {filters}
        GROUP BY p.doc
        ORDER BY score DESC, p.doc LIMIT ?
    """
    params = [scope.sid, scope.sid, quoted(terms), *fparams, scope.depth]
    rows = con.execute(sql, params).fetchall()
    if not rows:
        return [], True, 1.0
    return [r[:4] for r in rows], unknown, float(rows[0][4]) or 1.0


def spelled(con: Any, sid: int, terms: list[str]) -> tuple[list[str], bool]:
    """Terms with each unknown one replaced by its closest known spelling, if any."""
    known = {
        r[0]
        for r in con.execute(
            "SELECT term FROM search_terms WHERE sid = ?"
            " AND list_contains(?::VARCHAR::VARCHAR[], term)",
            [sid, quoted(terms)],
        ).fetchall()
    }
    out, unknown = [], False
    for term in terms:
        if term in known:
            out.append(term)
            continue
        unknown = True
        # A typo is one edit in a word of 5+ letters, two from 8 (transpositions are one).
        edits = 0 if len(term) < 5 else 1 if len(term) < 8 else 2
        row = None
        if edits:
            row = con.execute(
                """
                SELECT term FROM search_terms
                WHERE sid = ? AND abs(length(term) - length($2)) <= $3
                  AND damerau_levenshtein(term, $2) <= $3
                ORDER BY damerau_levenshtein(term, $2), df DESC, term LIMIT 1
                """.replace("?", "$1"),
                [sid, term, edits],
            ).fetchone()
        out.append(str(row[0]) if row else term)
    return sorted(set(out)), unknown
