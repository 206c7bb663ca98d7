"""Service tables every API node shares when the log is on PostgreSQL: API keys.

`uac serve` nodes bound to one database must accept the same keys: a key created through
node A authenticates on node B, and a revocation on either stops it on both (each node
caches a lookup for a few seconds: runtime/api/api_keys.py). The table has the same name and
columns as the workspace file's `api_keys`, so runtime/api/api_keys.py writes its SQL once and
`run` only swaps the placeholder style.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from uac.fact_log.backends import pg_schema
from uac.fact_log.backends.pg_log import VERSION, PgLog

if TYPE_CHECKING:  # imported where used: a DuckDB workspace never loads psycopg
    pass

_DDL = (
    "CREATE TABLE IF NOT EXISTS api_keys (id TEXT PRIMARY KEY, tenant TEXT NOT NULL,"
    " subject TEXT, read_only BOOLEAN NOT NULL, token_hash TEXT NOT NULL, label TEXT,"
    " created_at TIMESTAMP NOT NULL, revoked_at TIMESTAMP)",
    "CREATE INDEX IF NOT EXISTS api_keys_by_token ON api_keys (token_hash)",
)


pg_schema.register("service", (_DDL,))  # created by the log's migration (pg_schema)


def run(log: PgLog, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run one statement written with DuckDB's `?` placeholders; its rows (if any)."""
    with log._tx() as cur:
        cur.execute(sql.replace("?", "%s"), list(params))  # type: ignore[arg-type]
        return cur.fetchall() if cur.description else []


def ping(log: PgLog, timeout: int = 3) -> str | None:
    """None when the database answers and is migrated, within `timeout` seconds; else why not."""
    # A fresh connection, not the pool: a probe must not wait out the pool's 30 s timeout,
    # nor fail on a pooled connection the database dropped while it restarted.
    import psycopg

    try:
        with psycopg.connect(log.url, connect_timeout=timeout) as conn, conn.cursor() as cur:
            behind = (["log"] if PgLog._version(cur) < VERSION else []) + pg_schema.behind(cur)
    except psycopg.Error as exc:
        text = str(exc).strip()
        return f"{log.where} unavailable: {text.splitlines()[0] if text else type(exc).__name__}"
    if behind:
        return f"{log.where} needs migrations ({', '.join(behind)}): run uac migrate"
    return None
