"""Alerts and their outbox rows in a shared log's PostgreSQL database: all their SQL.

On a workspace bound to PostgreSQL (fact_log/backends/postgres.py) the alerts table there is
the one every node and worker shares; each node's DuckDB `alerts` table is a copy of the
rows of the subjects it evaluated or listed (checks/alerts.py keeps it current). An
evaluation locks its subjects (`pg_advisory_xact_lock`, in sorted order), reads their rows,
writes the changes and the outbox rows of the alerts it raised, in one transaction: two
nodes or workers evaluating one subject at once queue on the lock, so the second finds the
alert the first recorded and raises nothing. Inserts are also idempotent by
(tenant, scope, subject, fingerprint) and outbox rows by (alert, occurrence, sink)
(`ON CONFLICT DO NOTHING`): one condition is recorded and queued for delivery once.
`occurrence` counts how often an alert was raised (a resolved condition that comes back, a
snooze that ends), so each occurrence is delivered once.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from uac.fact_log.backends import pg_schema
from uac.fact_log.backends.pg_schema import PgLog

if TYPE_CHECKING:  # imported where used: a DuckDB workspace never loads psycopg
    import psycopg

# Columns in the order of checks/alerts.py's _COLS, then the delivery columns.
COLUMNS = (
    "id, tenant, scope, subject, check_name, severity, status, message, computation, fact_ids,"
    " record_keys, first_seen, last_seen, acknowledged_on, snoozed_until, resolved_on,"
    " why, next_step, delivered_at, delivery_error"
)
_KEY = "tenant = %s AND scope = %s AND subject = %s"
_IDS = f"{_KEY} AND id = ANY(%s)"

pg_schema.register(
    "alerts",
    (
        (
            "CREATE TABLE uac_alerts (id TEXT NOT NULL, tenant TEXT NOT NULL, scope TEXT NOT NULL,"
            " subject TEXT NOT NULL, check_name TEXT NOT NULL, severity TEXT NOT NULL,"
            " status TEXT NOT NULL, message TEXT NOT NULL, computation TEXT NOT NULL,"
            " fact_ids TEXT NOT NULL, record_keys TEXT NOT NULL, first_seen DATE NOT NULL,"
            " last_seen DATE NOT NULL, acknowledged_on DATE, snoozed_until DATE,"
            " resolved_on DATE, why TEXT, next_step TEXT, delivered_at TIMESTAMP,"
            " delivery_error TEXT, occurrence INTEGER NOT NULL DEFAULT 1,"
            " PRIMARY KEY (tenant, scope, subject, id))",
            "CREATE TABLE uac_outbox (id BIGSERIAL PRIMARY KEY, alert_id TEXT NOT NULL,"
            " tenant TEXT NOT NULL, scope TEXT NOT NULL, subject TEXT NOT NULL,"
            " occurrence INTEGER NOT NULL, sink TEXT NOT NULL, payload TEXT NOT NULL,"
            " status TEXT NOT NULL, attempts INTEGER NOT NULL, next_at TIMESTAMP NOT NULL,"
            " last_error TEXT, created_at TIMESTAMP NOT NULL, delivered_at TIMESTAMP,"
            " UNIQUE (tenant, scope, subject, alert_id, occurrence, sink))",
            "CREATE INDEX uac_outbox_due ON uac_outbox (next_at) WHERE status = 'pending'",
        ),
    ),
)


def lock(cur: psycopg.Cursor[Any], keys: Sequence[tuple[str, str, str]]) -> None:
    """Hold the subjects' evaluation locks until the transaction ends (sorted: no deadlock)."""
    for key in sorted(set(keys)):
        cur.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 7))", [chr(31).join(key)])


def rows(cur: psycopg.Cursor[Any], keys: Sequence[tuple[str, str, str]]) -> list[tuple[Any, ...]]:
    """The alert rows (COLUMNS order) of the subjects."""
    if not keys:
        return []
    cur.execute(
        f"SELECT {COLUMNS} FROM uac_alerts WHERE (tenant, scope, subject) IN"  # type: ignore[arg-type]
        " (SELECT * FROM unnest(%s::text[], %s::text[], %s::text[]))",
        [[k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys]],
    )
    return cur.fetchall()


def tenant_rows(cur: psycopg.Cursor[Any], tenant: str) -> list[tuple[Any, ...]]:
    """Every alert row of a tenant (COLUMNS order)."""
    cur.execute(f"SELECT {COLUMNS} FROM uac_alerts WHERE tenant = %s", [tenant])  # type: ignore[arg-type]
    return cur.fetchall()


def storable(row: Sequence[Any]) -> list[Any]:
    """An alert row PostgreSQL text can hold: U+0000 (which a rule's name may carry into its
    message; the log refuses it in its own text) becomes U+FFFD, the replacement character."""
    return [v.replace("\x00", "\ufffd") if isinstance(v, str) else v for v in row]


def insert(cur: psycopg.Cursor[Any], values: Sequence[Sequence[Any]]) -> set[str]:
    """Insert new alerts (the first 18 COLUMNS); the ids actually inserted (new, not raced)."""
    done: set[str] = set()
    names = COLUMNS.rsplit(", delivered_at", 1)[0]
    for row in values:
        cur.execute(
            f"INSERT INTO uac_alerts ({names}) VALUES ({', '.join(['%s'] * 18)})"  # type: ignore[arg-type]
            " ON CONFLICT DO NOTHING RETURNING id",
            storable(row),
        )
        done.update(r[0] for r in cur.fetchall())
    return done


def rewrite(cur: psycopg.Cursor[Any], values: Sequence[Any], raised: bool) -> int:
    """Rewrite one alert's lifecycle columns (values from severity on); its occurrence now.

    `raised`: the rewrite raises the alert again (re-opened or woken), a new occurrence.
    """
    cur.execute(
        "UPDATE uac_alerts SET severity = %s, status = %s, message = %s, computation = %s,"
        " fact_ids = %s, record_keys = %s, first_seen = %s, last_seen = %s,"
        " acknowledged_on = %s, snoozed_until = %s, resolved_on = %s, why = %s, next_step = %s,"
        f" occurrence = occurrence + %s WHERE {_KEY} AND id = %s RETURNING occurrence",
        storable([*values[5:], int(raised), *values[1:4], values[0]]),
    )
    row = cur.fetchone()
    return int(row[0]) if row else 0


def update(
    cur: psycopg.Cursor[Any], key: Sequence[str], ids: Sequence[str], sets: str, values: list[Any]
) -> None:
    """One lifecycle update (`sets` with %s placeholders) of some alerts of one subject."""
    cur.execute(f"UPDATE uac_alerts SET {sets} WHERE {_IDS}", [*values, *key, list(ids)])  # type: ignore[arg-type]


def record_outbox(cur: psycopg.Cursor[Any], entries: Sequence[Sequence[Any]]) -> int:
    """Queue deliveries: (tenant, scope, subject, alert_id, occurrence, sink, payload) each."""
    done = 0
    for entry in entries:
        cur.execute(
            "INSERT INTO uac_outbox (tenant, scope, subject, alert_id, occurrence, sink, payload,"
            " status, attempts, next_at, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s,"
            " 'pending', 0, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')"
            " ON CONFLICT DO NOTHING",
            list(entry),
        )
        done += cur.rowcount
    return done


def erase(
    log: PgLog, key: Sequence[str], facts: set[str], every: bool, blank: str, today: dt.date
) -> tuple[list[str], int]:
    """Blank and resolve a subject's alerts built on erased facts (a legal erase) and delete
    their outbox rows (a payload is the whole alert); (alert ids, outbox rows deleted)."""
    with pg_schema.transaction(log) as cur:
        lock(cur, [tuple(key)])  # type: ignore[list-item]
        cur.execute(f"SELECT id, fact_ids FROM uac_alerts WHERE {_KEY}", list(key))
        ids = sorted(
            aid for aid, used in cur.fetchall() if every or facts & set(json.loads(used or "[]"))
        )
        update(
            cur,
            key,
            ids,
            "message = %s, computation = %s, record_keys = '[]', delivery_error = NULL,"
            " status = 'resolved', resolved_on = coalesce(resolved_on, %s)",
            [blank, blank, today],
        )
        cur.execute(f"DELETE FROM uac_outbox WHERE {_KEY} AND alert_id = ANY(%s)", [*key, ids])
        return ids, cur.rowcount


# -- delivery ------------------------------------------------------------------------------


def outbox_collect(log: PgLog, tenant: str, cutoff: dt.datetime) -> int:
    """Delete a tenant's shared outbox rows delivered (or given up on) before cutoff (`uac gc`)."""
    with pg_schema.transaction(log) as cur:
        cur.execute(
            "DELETE FROM uac_outbox WHERE tenant = %s AND status IN ('delivered', 'dead')"
            " AND coalesce(delivered_at, next_at) < %s",
            [tenant, cutoff],
        )
        return cur.rowcount


def outbox_pending(log: PgLog) -> int:
    """Outbox rows not yet delivered nor dead."""
    with pg_schema.transaction(log) as cur:
        cur.execute("SELECT count(*) FROM uac_outbox WHERE status = 'pending'")
        return int(cur.fetchone()[0])  # type: ignore[index]


def outbox_next_due(log: PgLog) -> dt.datetime | None:
    """When the next pending outbox row falls due (UTC, naive), or None."""
    with pg_schema.transaction(log) as cur:
        cur.execute("SELECT min(next_at) FROM uac_outbox WHERE status = 'pending'")
        return cur.fetchone()[0]  # type: ignore[index]


def outbox_send_one(
    log: PgLog,
    now: dt.datetime,
    send: Callable[[int, str, str, int], tuple[str, int, dt.datetime, str | None]],
) -> bool:
    """Deliver one due row, locked (SKIP LOCKED: two nodes never send one row); False if none.

    `send(id, sink, payload, attempts)` delivers and returns the row's new
    (status, attempts, next_at, last_error).
    """
    with pg_schema.transaction(log) as cur:
        cur.execute(
            "SELECT id, sink, payload, attempts FROM uac_outbox WHERE status = 'pending'"
            " AND next_at <= %s ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED",
            [now],
        )
        row = cur.fetchone()
        if row is None:
            return False
        status, attempts, next_at, error = send(*row)
        cur.execute(
            "UPDATE uac_outbox SET status = %s, attempts = %s, next_at = %s, last_error = %s,"
            " delivered_at = CASE WHEN %s = 'delivered' THEN now() AT TIME ZONE 'UTC' END"
            " WHERE id = %s",
            [status, attempts, next_at, error, status, row[0]],
        )
        return True


def outbox_rows(log: PgLog, tenant: str, status: str | None, limit: int) -> list[tuple[Any, ...]]:
    """A tenant's shared outbox rows, newest first (`uac outbox list`, the console)."""
    with pg_schema.transaction(log) as cur:
        cur.execute(
            "SELECT id, alert_id, sink, status, attempts, next_at, last_error, created_at,"
            " delivered_at FROM uac_outbox WHERE tenant = %s"
            " AND (%s::TEXT IS NULL OR status = %s) ORDER BY id DESC LIMIT %s",
            [tenant, status, status, limit],
        )
        return list(cur.fetchall())


def outbox_counts(log: PgLog, tenant: str) -> dict[str, int]:
    """A tenant's shared outbox rows per status."""
    with pg_schema.transaction(log) as cur:
        cur.execute(
            "SELECT status, count(*) FROM uac_outbox WHERE tenant = %s GROUP BY status", [tenant]
        )
        return {status: int(n) for status, n in cur.fetchall()}


def outbox_requeue(log: PgLog, tenant: str, ids: list[int], now: dt.datetime) -> int:
    """Queue a tenant's rows again (the named ones, or every dead one), due at `now`."""
    with pg_schema.transaction(log) as cur:
        cur.execute(
            "UPDATE uac_outbox SET status = 'pending', attempts = 0, next_at = %s"
            " WHERE tenant = %s AND status <> 'delivered'"
            " AND (cardinality(%s::BIGINT[]) = 0 AND status = 'dead' OR id = ANY(%s::BIGINT[]))",
            [now, tenant, ids, ids],
        )
        return cur.rowcount


def outbox_drop(log: PgLog, tenant: str, ids: list[int]) -> int:
    """Delete a tenant's named outbox rows."""
    with pg_schema.transaction(log) as cur:
        cur.execute("DELETE FROM uac_outbox WHERE tenant = %s AND id = ANY(%s)", [tenant, ids])
        return cur.rowcount


def counts(log: PgLog) -> dict[str, int]:
    """Outbox rows per status (for metrics)."""
    with pg_schema.transaction(log) as cur:
        cur.execute("SELECT status, count(*) FROM uac_outbox GROUP BY status")
        return {status: int(n) for status, n in cur.fetchall()}
