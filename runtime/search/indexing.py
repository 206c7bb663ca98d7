"""Writing the derived search tables from a range of the log (what `sync()` indexes).

For the facts and inputs with seq in (flo, fhi] and (ilo, ihi]: new subjects get sids, new
items become documents with their postings (terms from analyzer.py) and vectors, retracts
and note inputs become hidden items, feedback facts become feedback rows. The caller holds
the transaction.
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa

from uac.fact_log.quarantine import QUARANTINE_REASONS
from uac.runtime.search import dense
from uac.runtime.search.analyzer import Analyzer
from uac.runtime.search.embedders import Embedder

SKIPPED_INPUT_KINDS = ("command", "import")
_SKIPPED = ", ".join(f"'{k}'" for k in SKIPPED_INPUT_KINDS)  # our constants, not user text
_QUARANTINE = ", ".join(f"'{r}'" for r in QUARANTINE_REASONS)  # ditto
MAX_INPUT_CHARS = 32_768  # an archived input longer than this is indexed by its head only
_CHUNK = 20_000
_KEY = "tenant = ? AND scope = ? AND subject = ?"
_ONLY = " AND {0}tenant = $ten AND {0}scope = $sco AND {0}subject = $sub"


def index_range(
    con: Any,
    analyzer: Analyzer,
    embedder: Embedder,
    flo: int,
    fhi: int,
    ilo: int,
    ihi: int,
    subject: tuple[str, str, str] | None = None,
    *,
    embed: bool = True,
) -> tuple[int, int, set[int]]:
    """Index one range of the log (of one subject, if named); returns docs, vectors, sids.

    `embed=False` leaves the new documents without vectors (index.py embeds them in steps).
    """
    values: dict[str, Any] = {"flo": flo, "fhi": fhi, "ilo": ilo, "ihi": ihi}
    only = only_i = only_f = ""
    if subject is not None:  # a node of a shared log indexes subject by subject
        values.update(zip(("ten", "sco", "sub"), subject, strict=True))
        only, only_i, only_f = (_ONLY.format(a) for a in ("", "i.", "f."))

    def run(sql: str) -> Any:
        # DuckDB refuses values a statement does not use: pass only the ones it names.
        return con.execute(sql, {k: v for k, v in values.items() if re.search(rf"\${k}\b", sql)})

    # New subjects get the next sids, in a deterministic order.
    run(
        f"""
        INSERT INTO search_subjects
        SELECT (SELECT coalesce(max(sid), 0) FROM search_subjects)
               + row_number() OVER (ORDER BY tenant, scope, subject), tenant, scope, subject
        FROM (SELECT DISTINCT tenant, scope, subject FROM facts
              WHERE seq > $flo AND seq <= $fhi{only}
              UNION
              SELECT DISTINCT tenant, scope, subject FROM inputs
              WHERE seq > $ilo AND seq <= $ihi{only}) AS n
        WHERE NOT EXISTS (SELECT 1 FROM search_subjects s WHERE s.tenant = n.tenant
                          AND s.scope = n.scope AND s.subject = n.subject)
        """
    )
    first_doc = next_doc(con)
    rows = run(
        f"""
        SELECT s.sid, src.id, src.kind, src.text, src.at, src.seq, src.session
        FROM (
            SELECT 0 AS ord, seq, id, tenant, scope, subject, 'note' AS kind, text,
                   recorded_at AS at, session_id AS session
            FROM facts
            WHERE seq > $flo AND seq <= $fhi{only} AND op = 'assert' AND kind = 'note'
              AND path = 'notes' AND text IS NOT NULL AND trim(text) <> ''
            UNION ALL
            SELECT 1, i.seq, i.id, i.tenant, i.scope, i.subject, 'input',
                   left(i.content, {MAX_INPUT_CHARS}), i.observed_at, i.session_id
            FROM inputs i
            WHERE i.seq > $ilo AND i.seq <= $ihi{only_i} AND i.kind NOT IN ({_SKIPPED})
              AND trim(i.content) <> ''
              -- Quarantine: an input whose secret or instruction was refused is kept
              -- for the audit trail only, never indexed (uac.fact_log.extraction.screen).
              AND NOT EXISTS (SELECT 1 FROM rejections r WHERE r.input_id = i.id
                              AND r.reason IN ({_QUARANTINE}))
              AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.seq > $flo AND f.seq <= $fhi{only_f}
                              AND f.input_id = i.id AND f.op = 'assert'
                              AND f.kind = 'note' AND f.path = 'notes')
        ) AS src
        JOIN search_subjects s
          ON s.tenant = src.tenant AND s.scope = src.scope AND s.subject = src.subject
        ORDER BY src.ord, src.seq
        """
    ).fetchall()
    insert_docs(con, analyzer, first_doc, rows)
    con.execute(
        """
        INSERT INTO search_terms
        SELECT sid, term, count(*) FROM search_postings WHERE doc >= ? GROUP BY sid, term
        ON CONFLICT (sid, term) DO UPDATE SET df = df + excluded.df
        """,
        [first_doc],
    )
    subject_join = (
        "JOIN search_subjects s ON s.tenant = f.tenant AND s.scope = f.scope"
        " AND s.subject = f.subject"
    )
    # A note made from an input archived in an earlier batch hides that input's doc;
    # a retract hides its target, whether a note, an input or a feedback fact.
    run(
        f"""
        INSERT INTO search_hidden
        SELECT h.sid, h.target, d.doc, h.by_id, h.why
        FROM (
            SELECT s.sid, json_extract_string(f.value, '$.target') AS target, f.id AS by_id,
                   'retract' AS why
            FROM facts f {subject_join}
            WHERE f.seq > $flo AND f.seq <= $fhi{only_f} AND f.op = 'retract'
              AND json_extract_string(f.value, '$.target') IS NOT NULL
            UNION ALL
            SELECT s.sid, f.input_id, f.id, 'note_input'
            FROM facts f {subject_join}
            WHERE f.seq > $flo AND f.seq <= $fhi{only_f} AND f.op = 'assert' AND f.kind = 'note'
              AND f.path = 'notes' AND f.input_id IS NOT NULL
        ) AS h
        -- Resolved to doc numbers once here so searches filter on an integer.
        LEFT JOIN search_docs d ON d.sid = h.sid AND d.item_id = h.target
        """
    )
    run(
        f"""
        INSERT INTO search_feedback
        SELECT fb.sid, fb.id, fb.target, d.doc, fb.signal, fb.reason, fb.seq
        FROM (
            SELECT s.sid, f.id, json_extract_string(f.value, '$.target') AS target,
                   json_extract_string(f.value, '$.signal') AS signal,
                   json_extract_string(f.value, '$.reason') AS reason, f.seq
            FROM facts f {subject_join}
            WHERE f.seq > $flo AND f.seq <= $fhi{only_f} AND f.op = 'feedback' AND f.path = 'notes'
              AND json_extract_string(f.value, '$.target') IS NOT NULL
        ) AS fb
        LEFT JOIN search_docs d ON d.sid = fb.sid AND d.item_id = fb.target
        """
    )
    touched = run(
        f"""
        SELECT DISTINCT s.sid FROM search_subjects s
        JOIN (SELECT tenant, scope, subject FROM facts WHERE seq > $flo AND seq <= $fhi{only}
              UNION
              SELECT tenant, scope, subject FROM inputs WHERE seq > $ilo AND seq <= $ihi{only}) AS n
          ON s.tenant = n.tenant AND s.scope = n.scope AND s.subject = n.subject
        """
    ).fetchall()
    vectors = dense.embed_docs_after(con, embedder, first_doc) if embed else 0
    return len(rows), vectors, {int(r[0]) for r in touched}


def index_subjects(
    con: Any, analyzer: Analyzer, embedder: Embedder, inline: int
) -> tuple[int, int, set[int]]:
    """Index each subject's rows above that subject's own marks (a shared log's local copy).

    A node copies another node's writes when it next reads their subject, so rows arrive
    with seqs lower than ones it indexed long ago: one global watermark would skip them.
    Within one subject they arrive in seq order (a subject's writes commit in order under
    its chain head's lock), so a watermark per subject misses nothing. `log_sync` (the
    replica's count of copied writes per subject) says which subjects moved. A subject's
    range of more than `inline` rows is indexed without vectors (index.py embeds in steps).
    """
    changed = con.execute(
        "SELECT l.tenant, l.scope, l.subject, l.writes, coalesce(s.fact_seq, 0),"
        " coalesce(s.input_seq, 0) FROM log_sync l LEFT JOIN search_synced s"
        " USING (tenant, scope, subject) WHERE s.writes IS NULL OR s.writes < l.writes"
        " ORDER BY ALL"
    ).fetchall()
    added = vectors = 0
    touched: set[int] = set()
    for tenant, scope, subject, writes, flo, ilo in changed:
        key = [tenant, scope, subject]
        fhi, ihi = con.execute(
            f"SELECT (SELECT coalesce(max(seq), 0) FROM facts WHERE {_KEY}),"
            f" (SELECT coalesce(max(seq), 0) FROM inputs WHERE {_KEY})",
            key + key,
        ).fetchone()
        fhi, ihi = max(flo, fhi), max(ilo, ihi)
        embed = (fhi - flo) + (ihi - ilo) <= inline
        docs, vecs, sids = index_range(
            con, analyzer, embedder, flo, fhi, ilo, ihi, tuple(key), embed=embed
        )
        added, vectors, touched = added + docs, vectors + vecs, touched | sids
        con.execute(
            "INSERT OR REPLACE INTO search_synced VALUES (?, ?, ?, ?, ?, ?)",
            [*key, writes, fhi, ihi],
        )
    return added, vectors, touched


def next_doc(con: Any) -> int:
    """The number the next document gets (doc numbers follow log order)."""
    row = con.execute("SELECT coalesce(max(doc) + 1, 1) FROM search_docs").fetchone()
    return int(row[0]) if row else 1


def insert_docs(con: Any, analyzer: Analyzer, first_doc: int, rows: list[tuple[Any, ...]]) -> None:
    """Append documents and their postings, analysed in Python (see analyzer.py)."""
    for start in range(0, len(rows), _CHUNK):
        chunk = rows[start : start + _CHUNK]
        analysed = analyzer.documents([r[3] for r in chunk])
        docs = list(range(first_doc + start, first_doc + start + len(chunk)))
        # Postings as columns, built in one pass (no per-posting tuples).
        p_sid: list[int] = []
        p_term: list[str] = []
        p_doc: list[int] = []
        p_tf: list[float] = []
        for doc, row, (tf, _) in zip(docs, chunk, analysed, strict=True):
            p_term.extend(tf)
            p_tf.extend(tf.values())
            p_doc.extend([doc] * len(tf))
            p_sid.extend([row[0]] * len(tf))
        doc_table = pa.table(
            {
                "doc": pa.array(docs, pa.int64()),
                "sid": pa.array([r[0] for r in chunk], pa.int32()),
                "item_id": pa.array([r[1] for r in chunk], pa.string()),
                "kind": pa.array([r[2] for r in chunk], pa.string()),
                "text": pa.array([r[3] for r in chunk], pa.string()),
                "at_ts": pa.array([r[4] for r in chunk], pa.timestamp("us")),
                "len": pa.array([a[1] for a in analysed], pa.float64()),
                "seq": pa.array([r[5] for r in chunk], pa.int64()),
                "session": pa.array([r[6] for r in chunk], pa.string()),
            }
        )
        post_table = pa.table(
            {
                "sid": pa.array(p_sid, pa.int32()),
                "term": pa.array(p_term, pa.string()),
                "doc": pa.array(p_doc, pa.int64()),
                "tf": pa.array(p_tf, pa.float64()),
            }
        )
        for name, table, target in (
            ("_uac_docs", doc_table, "search_docs"),
            ("_uac_postings", post_table, "search_postings"),
        ):
            con.register(name, table)
            try:
                con.execute(f"INSERT INTO {target} BY NAME SELECT * FROM {name}")
            finally:
                con.unregister(name)
