"""The reactions queue: which subjects have writes their reaction has not covered yet.

A write and its pending reaction are recorded in one transaction: the append that stores a
batch also counts one more wanted reaction for the batch's subject (`enqueue`, called by the
DuckDB append in store.py/staging.py and by the PostgreSQL append in backends/postgres.py,
in the write's own transaction). The runtime's `Reactor` (runtime/api/reactor.py) reads the
count before it reacts and records it as covered afterwards (`covered`), so writes that land
while a reaction runs are covered by one more reaction (coalesced), and a process killed
between a write's commit and its reaction leaves the row pending (`wanted > done`) for the
next writable open, server or worker to catch up (`pending`).

One row per subject, on the backend that holds the log: the workspace file (DuckDB) or the
shared PostgreSQL database (where `uac_jobs` is the workers' queue and this table the
reactors' — both filled by the same transaction).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from uac.fact_log.addressing import Address
from uac.fact_log.backends import pg_schema
from uac.fact_log.schema import Owner, register

if TYPE_CHECKING:
    import duckdb
    import psycopg

# The workspace's Store (fact_log/store.py: `replica`, `con`, `write_lock`), passed in:
# this module sits under the store and never imports it.
Store = Any

REACTIONS = register(
    Owner(
        "reactions",
        0,
        (
            (
                "CREATE TABLE IF NOT EXISTS reactions (tenant VARCHAR NOT NULL,"
                " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, wanted BIGINT NOT NULL,"
                " done BIGINT NOT NULL, PRIMARY KEY (tenant, scope, subject))",
            ),
        ),
    )
)

pg_schema.register(
    "reactions",
    (
        (
            "CREATE TABLE IF NOT EXISTS uac_reactions (tenant TEXT NOT NULL, scope TEXT NOT NULL,"
            " subject TEXT NOT NULL, wanted BIGINT NOT NULL, done BIGINT NOT NULL,"
            " PRIMARY KEY (tenant, scope, subject))",
        ),
    ),
)

_KEY = "tenant = ? AND scope = ? AND subject = ?"
_PG_KEY = "tenant = %s AND scope = %s AND subject = %s"

Key = tuple[str, str, str]


def key_of(addr: Address) -> Key:
    """(tenant, scope, subject) of an address."""
    return (addr.tenant, addr.scope, addr.subject)


def enqueue(con: duckdb.DuckDBPyConnection, addresses: Iterable[Address]) -> None:
    """Count one more wanted reaction per subject (DuckDB, in the caller's transaction)."""
    for key in sorted({key_of(a) for a in addresses}):
        con.execute(
            "INSERT INTO reactions VALUES (?, ?, ?, 1, 0)"
            " ON CONFLICT DO UPDATE SET wanted = reactions.wanted + 1",
            list(key),
        )


def enqueue_pg(cur: psycopg.Cursor[Any], keys: Iterable[Key]) -> None:
    """Count one more wanted reaction per subject (PostgreSQL, in the write's transaction)."""
    for key in sorted(set(keys)):
        cur.execute(
            "INSERT INTO uac_reactions VALUES (%s, %s, %s, 1, 0)"
            " ON CONFLICT (tenant, scope, subject)"
            " DO UPDATE SET wanted = uac_reactions.wanted + 1",
            list(key),
        )


def wanted(store: Store, addr: Address) -> tuple[int, int]:
    """(writes counted, writes covered) of a subject: (0, 0) before its first write."""
    key = list(key_of(addr))
    if store.replica is not None:
        with pg_schema.transaction(store.replica.log) as cur:
            cur.execute(f"SELECT wanted, done FROM uac_reactions WHERE {_PG_KEY}", key)
            row = cur.fetchone()
    else:
        row = store.con.execute(f"SELECT wanted, done FROM reactions WHERE {_KEY}", key).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def covered(store: Store, addr: Address, upto: int) -> None:
    """Record that a reaction covered the subject's writes up to number `upto`."""
    key = list(key_of(addr))
    if store.replica is not None:
        with pg_schema.transaction(store.replica.log) as cur:
            cur.execute(
                f"UPDATE uac_reactions SET done = GREATEST(done, %s) WHERE {_PG_KEY}", [upto, *key]
            )
        return
    with store.write_lock:  # the writer's upserts and this update never overlap
        store.con.execute(
            f"UPDATE reactions SET done = greatest(done, ?) WHERE {_KEY}", [upto, *key]
        )


def pending(store: Store, tenant: str | None = None) -> list[Address]:
    """Subjects with writes no reaction covered yet (of a tenant, or all), oldest key first."""
    if store.replica is not None:
        sql = "SELECT tenant, scope, subject FROM uac_reactions WHERE wanted > done"
        with pg_schema.transaction(store.replica.log) as cur:
            if tenant is not None:
                cur.execute(sql + " AND tenant = %s ORDER BY 1, 2, 3", [tenant])
            else:
                cur.execute(sql + " ORDER BY 1, 2, 3")
            rows = cur.fetchall()
    else:
        sql = "SELECT tenant, scope, subject FROM reactions WHERE wanted > done"
        if tenant is not None:
            rows = store.con.execute(sql + " AND tenant = ? ORDER BY 1, 2, 3", [tenant]).fetchall()
        else:
            rows = store.con.execute(sql + " ORDER BY 1, 2, 3").fetchall()
    return [Address(t, s, n) for t, s, n in rows]
