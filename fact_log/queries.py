"""The SQL of the log's listings, shared by the Store (fact_log/reads.py, fact_log/erase.py)
and the local reads that answer without it (runtime/api/lean_reads.py): one statement per
listing, so both read the same rows in the same order. Standard library only."""

from __future__ import annotations

SUBJECT = "tenant = ? AND scope = ? AND subject = ?"

# A subject's rows in log order (the caller names the columns; params: tenant, scope,
# subject, the seq to start after).
FACTS = "SELECT {columns} FROM facts WHERE " + SUBJECT + " AND seq > ?"
FACTS_AT_PATH = " AND path = ?"
FACTS_ORDER = " ORDER BY seq"
INPUTS = "SELECT {columns} FROM inputs WHERE " + SUBJECT + " ORDER BY seq"
REJECTIONS = (
    "SELECT id, input_id, path, reason, detail, recorded_at FROM rejections WHERE "
    + SUBJECT
    + " ORDER BY recorded_at, id"
)
# Every subject of one tenant that has facts or inputs (params: tenant twice).
SUBJECTS = """
    WITH f AS (SELECT scope, subject, count(*) n, max(recorded_at) last_at FROM facts
               WHERE tenant = ? GROUP BY ALL),
         i AS (SELECT scope, subject, count(*) n, max(recorded_at) last_at FROM inputs
               WHERE tenant = ? GROUP BY ALL)
    SELECT coalesce(f.scope, i.scope), coalesce(f.subject, i.subject),
           coalesce(f.n, 0), coalesce(i.n, 0), greatest(f.last_at, i.last_at)
    FROM f FULL OUTER JOIN i ON f.scope = i.scope AND f.subject = i.subject
    ORDER BY 1, 2
"""
ERASURES = "SELECT report FROM erasures"
ERASURES_OF = " WHERE " + SUBJECT
ERASURES_ORDER = " ORDER BY erased_at, id"
