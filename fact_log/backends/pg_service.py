"""Service tables every API node shares when the log is on PostgreSQL: API keys.

`uac serve` nodes bound to one database must accept the same keys: a key created through
node A authenticates on node B, and a revocation on either stops it on both (each node
caches a lookup for a few seconds: runtime/api/keys.py). The table has the same name and
columns as the workspace file's `api_keys`, so runtime/api/keys.py writes its SQL once and
`run` only swaps the placeholder style.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from uac.fact_log.backends.postgres import PgLog

_DDL = (
    "CREATE TABLE IF NOT EXISTS api_keys (id TEXT PRIMARY KEY, tenant TEXT NOT NULL,"
    " subject TEXT, read_only BOOLEAN NOT NULL, token_hash TEXT NOT NULL, label TEXT,"
    " created_at TIMESTAMP NOT NULL, revoked_at TIMESTAMP)",
    "CREATE INDEX IF NOT EXISTS api_keys_by_token ON api_keys (token_hash)",
)


def ensure(log: PgLog) -> None:
    """Create the shared service tables if they are missing (under the migration lock)."""
    with log._tx() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(hashtext('uac_migrate'))")
        for statement in _DDL:
            cur.execute(statement)  # type: ignore[arg-type]


def run(log: PgLog, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run one statement written with DuckDB's `?` placeholders; its rows (if any)."""
    with log._tx() as cur:
        cur.execute(sql.replace("?", "%s"), list(params))  # type: ignore[arg-type]
        return cur.fetchall() if cur.description else []


def ping(log: PgLog, timeout: int = 3) -> str | None:
    """None when the database answers within `timeout` seconds, else why not (one line)."""
    # A fresh connection, not the pool: a probe must not wait out the pool's 30 s timeout.
    try:
        with psycopg.connect(log.url, connect_timeout=timeout) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        text = str(exc).strip()
        return f"{log.where} unavailable: {text.splitlines()[0] if text else type(exc).__name__}"
    return None
