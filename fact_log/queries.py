"""The SQL of the log's listings, shared by the Store (fact_log/reads.py, fact_log/erase.py)
and the local reads that answer without it (runtime/api/lean_reads.py): one statement per
listing, so both read the same rows in the same order; and the two questions a read asks
before serving a checkpoint (`is_changed`, `served_problem`), over any connection (DuckDB's,
or fact_log/read_cache.py's look that answers repeated statements without it). Standard
library only."""

from __future__ import annotations

from typing import Any

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


# Facts newer than the subject's last published present-time checkpoint (the compiler's
# `checkpoints` rows): the one definition of "stale", shared by Store.is_changed and the
# CLI's one-shot query, which asks it without loading the rest of the store.
CHANGED_SQL = """
    SELECT (SELECT max(seq) FROM facts WHERE tenant = ? AND scope = ? AND subject = ?) >
           coalesce((SELECT max(watermark) FROM checkpoints
                     WHERE tenant = ? AND scope = ? AND subject = ?
                     AND status = 'published' AND as_of IS NULL AND known_at IS NULL), 0)
"""


def is_changed(con: Any, tenant: str, scope: str, subject: str) -> bool:
    """True when the subject has facts newer than its last published checkpoint."""
    row = con.execute(CHANGED_SQL, [tenant, scope, subject] * 2).fetchone()
    return bool(row and row[0])


def served_problem(
    con: Any,
    tenant: str,
    scope: str,
    subject: str,
    version: int,
    head: tuple[int, str | None] | None,
    ring: Any = None,
) -> str | None:
    """Why a subject's current checkpoint (`version`, folded up to `head`: seq and fact id)
    must not be served, or None.

    Refused: a later present-time version was published (the `current` pointer was rolled
    back), or this log holds, at the head's seq, a genuine row (its keyed digest verifies
    under `ring`) that is not the head: the checkpoint was compiled from another log signed
    with the same key. A head the log lost or a row there that does not verify is the log's
    fault, not the checkpoint's: the signed checkpoint keeps serving and `verify` reports
    the log. `head` None skips that check (a node's copy of a shared log may lag)."""
    label = subject if scope == "user" else f"{scope}:{subject}"
    row = con.execute(
        "SELECT max(version) FROM checkpoints WHERE tenant = ? AND scope = ? AND subject = ?"
        " AND status = 'published' AND as_of IS NULL AND known_at IS NULL",
        [tenant, scope, subject],
    ).fetchone()
    newest = row[0] if row else None
    if newest is not None and newest > version:
        return (
            f"the current checkpoint of {label} is version {version} but version {newest} was"
            f" published later (the pointer was rolled back); run 'uac compile {label}'"
        )
    if head is None or ring is None or head[0] <= 0 or head[1] is None:
        return None
    held = con.execute("SELECT id, hash, mac FROM facts WHERE seq = ?", [head[0]]).fetchone()
    if held is not None and held[0] != head[1] and ring.check(f"fact:{head[0]}:{held[1]}", held[2]):
        return (
            f"the current checkpoint of {label} was compiled from another log (its head, seq"
            f" {head[0]}, is not this log's); run 'uac compile {label}'"
        )
    return None
