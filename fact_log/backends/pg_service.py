"""Service tables every API node shares when the log is on PostgreSQL: API keys; and the
claims a node holds while it runs a keyed write (`KeyHolds`).

`uac serve` nodes bound to one database must accept the same keys: a key created through
node A authenticates on node B, and a revocation on either stops it on both (each node
caches a lookup for a few seconds: runtime/api/api_keys.py). The table has the same name and
columns as the workspace file's `api_keys`, so runtime/api/api_keys.py writes its SQL once and
`run` only swaps the placeholder style.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from uac.fact_log.backends import pg_schema
from uac.fact_log.backends.pg_log import VERSION, LogUnavailable, PgLog

if TYPE_CHECKING:  # imported where used: a DuckDB workspace never loads psycopg
    import psycopg

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


class KeyHolds:
    """Named holds that live exactly as long as this process: PostgreSQL session advisory
    locks on one connection of its own (not the pool's: a pooled connection is shared).

    A node running a keyed write holds the key's name (runtime/api/idempotency.py); another
    node finding the key unanswered asks for the same hold: refused, the first run is alive
    and may still commit; granted, nobody runs it (its node was killed, or let it go) and the
    retry may run it. A killed process's connection closes with it, and the database drops
    its locks: no reservation outlives its writer. If this connection itself breaks, its
    holds are gone with it and the next `hold` opens a new one.
    """

    def __init__(self, url: str):
        self.url = url
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()

    @staticmethod
    def _id(name: str) -> int:
        """A name as an advisory lock id (64 bits; a collision only refuses a retry)."""
        digest = hashlib.sha256(("uac-hold:" + name).encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big", signed=True)

    def hold(self, name: str) -> bool:
        """Take the hold on `name`: False when another live process has it."""
        import psycopg

        with self._lock:
            try:
                if self._conn is None or self._conn.closed:
                    self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
                row = self._conn.execute(
                    "SELECT pg_try_advisory_lock(%s)", [self._id(name)]
                ).fetchone()
            except psycopg.OperationalError as exc:
                self._drop_connection()
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else "no answer"
                raise LogUnavailable(
                    f"the PostgreSQL log is unavailable ({first}); retry (nothing was written)"
                ) from None
        return bool(row and row[0])

    def drop(self, name: str) -> None:
        """Let go of a hold taken by `hold` (nothing to do if the connection broke: the
        database dropped it then)."""
        import psycopg

        with self._lock:
            if self._conn is None or self._conn.closed:
                return
            try:
                self._conn.execute("SELECT pg_advisory_unlock(%s)", [self._id(name)])
            except psycopg.Error:
                self._drop_connection()

    def close(self) -> None:
        """Close the connection (every hold goes with it)."""
        with self._lock:
            self._drop_connection()

    def _drop_connection(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            with contextlib.suppress(Exception):  # a broken connection may fail to close
                conn.close()
