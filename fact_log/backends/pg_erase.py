"""Legal erase on the shared log: blank a subject's rows in PostgreSQL, keep every hash.

The PostgreSQL side of fact_log/erase.py (read that first): the same rows are blanked the
same way, in one transaction holding the subject's chain head row lock (so no append of the
subject interleaves). Each blanked fact gets a sealed `uac_erased_rows` record (content hash
and the digest of what is left), which `PgLog.verify` accepts exactly as the DuckDB verify
accepts `erased_rows`. `uac_erasures` holds the report (ids and counts, never content),
numbered per subject (`n`): a node catching up a subject compares how many erasures it has
applied with how many the database holds and applies the ones it lacks to its own copy
(fact_log/backends/postgres.py). All SQL for these tables is in this module.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from uac.fact_log.addressing import Address
from uac.fact_log.backends import pg_schema, write_keys
from uac.fact_log.backends.pg_log import TABLES, PgLog
from uac.fact_log.chain import content_hash
from uac.fact_log.chain_keys import KeyRing, row_message

if TYPE_CHECKING:  # imported where used: a DuckDB workspace never loads psycopg
    import psycopg


pg_schema.register(
    "erase",
    (
        (
            "CREATE TABLE uac_erasures (id TEXT PRIMARY KEY, tenant TEXT NOT NULL,"
            " scope TEXT NOT NULL, subject TEXT NOT NULL, n INTEGER NOT NULL,"
            " scope_of_erase TEXT NOT NULL, reason TEXT NOT NULL, actor TEXT NOT NULL,"
            " erased_at TIMESTAMP NOT NULL, report TEXT NOT NULL, mac TEXT NOT NULL,"
            " UNIQUE (tenant, scope, subject, n))",
            "CREATE TABLE uac_erased_rows (erasure TEXT NOT NULL, tbl TEXT NOT NULL,"
            " row_id TEXT NOT NULL, seq BIGINT NOT NULL, content_hash TEXT NOT NULL,"
            " residual TEXT NOT NULL, mac TEXT NOT NULL)",
            "CREATE INDEX uac_erased_rows_by_seq ON uac_erased_rows (tbl, seq)",
        ),
    ),
)
_SUBJECT = "tenant = %s AND scope = %s AND subject = %s"
# The sealed columns of uac_erasures, in order.
_ERASURE = "id, tenant, scope, subject, n, scope_of_erase, reason, actor, erased_at, report"
# Fact columns an erase blanks (the content the report must never hold); both backends.
BLANKED = ("value", "text", "evidence", "record_key", "valid_from", "valid_to")


def _key(addr: Address) -> list[str]:
    return [addr.tenant, addr.scope, addr.subject]


def _reseal(cur: psycopg.Cursor[Any], ring: KeyRing, table: str, where: str, params: list) -> None:
    """Recompute the keyed digest of a sealed log table's rows matching `where`."""
    cols = TABLES[table]
    cur.execute(f"SELECT ctid, {', '.join(cols)} FROM {table} WHERE {where}", params)  # type: ignore[arg-type]
    for ctid, *row in cur.fetchall():
        mac = ring.sign(row_message(table, row[:-1]))
        cur.execute(f"UPDATE {table} SET mac = %s WHERE ctid = %s", [mac, ctid])  # type: ignore[arg-type]


def erase(
    log: PgLog,
    ring: KeyRing,
    record: dict[str, Any],
    seqs: Sequence[int],
    input_ids: Sequence[str],
    every: bool,
    slot: write_keys.Slot | None = None,
) -> dict[str, Any]:
    """Blank the facts and inputs in PostgreSQL in one transaction; the pending report stored
    (and a keyed request's step, `slot`: write_keys.record_answer).

    `record` names the erasure (id, address, what, reason, actor, erased_at); the report
    returned holds its facts (id, seq, kind, path), inputs and rejection count.
    """
    addr: Address = record["address"]
    key = _key(addr)
    with pg_schema.transaction(log) as cur:
        cur.execute(f"SELECT seq FROM chain_heads WHERE {_SUBJECT} FOR UPDATE", key)
        if every:  # under the head lock: a write that landed after the caller looked counts
            cur.execute(f"SELECT seq FROM facts WHERE {_SUBJECT}", key)
            seqs = [row[0] for row in cur.fetchall()]
            cur.execute(f"SELECT id FROM inputs WHERE {_SUBJECT}", key)
            input_ids = [row[0] for row in cur.fetchall()]
        sets = ", ".join(f"{c} = NULL" for c in BLANKED)
        cur.execute(
            f"UPDATE facts SET op = 'erased', {sets} WHERE {_SUBJECT} AND seq = ANY(%s)",  # type: ignore[arg-type]
            [*key, list(seqs)],
        )
        cols = TABLES["facts"]
        cur.execute(
            f"SELECT {', '.join(cols)} FROM facts WHERE {_SUBJECT} AND seq = ANY(%s)"  # type: ignore[arg-type]
            " ORDER BY seq",
            [*key, list(seqs)],
        )
        facts, records = [], []
        for row in cur.fetchall():
            named = dict(zip(cols, row, strict=True))
            facts.append({k: named[k] for k in ("id", "seq", "kind", "path")})
            records.append(
                [record["id"], "facts", row[1], row[0], row[-4], content_hash(row[2:-4])]
            )
        cur.execute(
            f"UPDATE inputs SET content = '', name = NULL WHERE {_SUBJECT} AND id = ANY(%s)",
            [*key, list(input_ids)],
        )
        _reseal(cur, ring, "inputs", f"{_SUBJECT} AND id = ANY(%s)", [*key, list(input_ids)])
        cur.execute(
            f"SELECT seq, id, content_hash FROM inputs WHERE {_SUBJECT} AND id = ANY(%s)"
            " ORDER BY seq",
            [*key, list(input_ids)],
        )
        inputs = []
        for seq, iid, chash in cur.fetchall():
            inputs.append(iid)
            records.append([record["id"], "inputs", iid, seq, chash, chash])
        cur.executemany(
            "INSERT INTO uac_erased_rows VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [[*r, ring.sign(row_message("erased_rows", r))] for r in records],
        )
        where, params = _SUBJECT, list[Any](key)
        if not every:
            where += " AND input_id = ANY(%s)"
            params.append(list(input_ids))
        cur.execute(
            f"UPDATE rejections SET detail = NULL WHERE {where} AND detail IS NOT NULL", params
        )  # type: ignore[arg-type]
        rejections = cur.rowcount
        _reseal(cur, ring, "rejections", where, params)
        # A failed job's error can quote a value (the DuckDB path blanks checkpoint errors).
        cur.execute(
            f"UPDATE uac_jobs SET last_error = '(erased)' WHERE {_SUBJECT}"
            " AND last_error IS NOT NULL",
            key,
        )
        report = {
            "id": record["id"],
            "status": "pending",
            "facts": facts,
            "inputs": inputs,
            "rejections": rejections,
        }
        cur.execute(f"SELECT coalesce(max(n), 0) + 1 FROM uac_erasures WHERE {_SUBJECT}", key)
        n = cur.fetchone()[0]  # type: ignore[index]
        values = [record["id"], *key, n, record["what"], record["reason"], record["actor"]]
        values += [record["erased_at"], json.dumps(report, sort_keys=True, default=str)]
        cur.execute(
            f"INSERT INTO uac_erasures ({_ERASURE}, mac) VALUES ({', '.join(['%s'] * 11)})",  # type: ignore[arg-type]
            [*values, ring.sign(row_message("uac_erasures", values))],
        )
        write_keys.record_answer_pg(cur, slot, {"erasure": record["id"]})
    return report


def complete(log: PgLog, ring: KeyRing, erasure_id: str, report: dict[str, Any]) -> bool:
    """Store an erasure's completed report (resealed); False if a node completed it already."""
    with pg_schema.transaction(log) as cur:
        # The first node to finish the purge completes the shared report; later ones keep it.
        cur.execute(
            "UPDATE uac_erasures SET report = %s WHERE id = %s"
            " AND report::jsonb ->> 'status' = 'pending'",
            [json.dumps(report, sort_keys=True, default=str), erasure_id],
        )
        if not cur.rowcount:
            return False
        cur.execute(f"SELECT {_ERASURE} FROM uac_erasures WHERE id = %s", [erasure_id])  # type: ignore[arg-type]
        values = list(cur.fetchone())  # type: ignore[arg-type]
        cur.execute(
            "UPDATE uac_erasures SET mac = %s WHERE id = %s",
            [ring.sign(row_message("uac_erasures", values)), erasure_id],
        )
    return True


# Tables an erase rewrites or deletes from: their old row versions hold the content.
VACUUMED = (
    "facts", "inputs", "rejections", "uac_alerts", "uac_outbox", "uac_blobs", "uac_checkpoints",
    "uac_jobs",
)  # fmt: skip


def vacuum(log: PgLog) -> list[str]:
    """VACUUM the tables an erase touched, so their data files drop the old row versions.

    An UPDATE or DELETE in PostgreSQL leaves the old version of the row in the table's file
    until VACUUM reclaims it (autovacuum would, some time later). VACUUM cannot run in a
    transaction, hence its own autocommit connection. The WAL keeps the bytes until its
    segments are recycled (docs/runtime.md).
    """
    import psycopg

    try:
        with psycopg.connect(log.url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"VACUUM {', '.join(VACUUMED)}")  # type: ignore[arg-type]
    except psycopg.OperationalError:
        return []  # autovacuum reclaims them later; the report says none were vacuumed
    return list(VACUUMED)


def count(cur: psycopg.Cursor[Any], addr: Address) -> int:
    """How many erasures of the subject the database holds."""
    cur.execute(f"SELECT count(*) FROM uac_erasures WHERE {_SUBJECT}", _key(addr))
    return int(cur.fetchone()[0])  # type: ignore[index]


def listing(log: PgLog, addr: Address) -> list[dict[str, Any]]:
    """The subject's erasures as the database holds them, in order (their pending reports)."""
    with pg_schema.transaction(log) as cur:
        cur.execute(
            f"SELECT id, scope_of_erase, reason, actor, erased_at, report FROM uac_erasures"
            f" WHERE {_SUBJECT} ORDER BY n",
            _key(addr),
        )
        rows = cur.fetchall()
    out = []
    for eid, what, reason, actor, at, report in rows:
        done = json.loads(report)
        out.append({"id": eid, "what": what, "reason": reason, "actor": actor,
                    "erased_at": at, "facts": done["facts"], "inputs": done["inputs"]})  # fmt: skip
    return out


def counts(log: PgLog) -> dict[tuple[str, str, str], int]:
    """(tenant, scope, subject) -> how many erasures the database holds, for every subject."""
    with pg_schema.transaction(log) as cur:
        cur.execute("SELECT tenant, scope, subject, count(*) FROM uac_erasures GROUP BY 1, 2, 3")
        return {(t, sc, su): n for t, sc, su, n in cur.fetchall()}
