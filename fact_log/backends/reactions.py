"""The reactions queue: which subjects have writes their reaction has not covered yet.

A write and its pending reaction are recorded in one transaction: the append that stores a
batch also counts one more wanted reaction for the batch's subject (`enqueue`, called by the
DuckDB append in store.py/staging.py and by the PostgreSQL append in backends/pg_log.py,
in the write's own transaction). The runtime's `Reactor` (runtime/api/reactor.py) reads the
count before it reacts and records it as covered afterwards (`covered`), so writes that land
while a reaction runs are covered by one more reaction (coalesced), and a process killed
between a write's commit and its reaction leaves the row pending (`wanted > done`) for the
next writable open, server or worker to catch up (`pending`).

One row per subject, on the backend that holds the log: the workspace file (DuckDB) or the
shared PostgreSQL database (where `uac_jobs` is the workers' queue and this table the
reactors' — both filled by the same transaction); read and updated through the backend's
`service_rows`, so this module never asks which backend it runs on.
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

    from uac.fact_log.rwlock import GatedConnection

# The workspace's Store (fact_log/store.py: `backend`, `con`, `write_lock`), passed in:
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
            "CREATE TABLE IF NOT EXISTS reactions (tenant TEXT NOT NULL, scope TEXT NOT NULL,"
            " subject TEXT NOT NULL, wanted BIGINT NOT NULL, done BIGINT NOT NULL,"
            " PRIMARY KEY (tenant, scope, subject))",
        ),
    ),
)

_KEY = "tenant = ? AND scope = ? AND subject = ?"

Key = tuple[str, str, str]


def key_of(addr: Address) -> Key:
    """(tenant, scope, subject) of an address."""
    return (addr.tenant, addr.scope, addr.subject)


def enqueue(
    con: duckdb.DuckDBPyConnection | GatedConnection,
    addresses: Iterable[Address],
    *,
    covered: bool = False,
) -> None:
    """Count one more wanted reaction per subject (DuckDB, in the caller's transaction);
    `covered`: the writer wants no reaction, so every write so far counts as covered.

    An UPDATE, and an INSERT only for a subject's first write: DuckDB's `ON CONFLICT DO
    UPDATE` costs about three times a keyed UPDATE (bench/writes.py, a statement per write).
    The caller holds the store's write lock, so no other first write races the INSERT.
    """
    done = ", done = wanted + 1" if covered else ""
    for key in sorted({key_of(a) for a in addresses}):
        changed = con.execute(
            f"UPDATE reactions SET wanted = wanted + 1{done} WHERE {_KEY}", list(key)
        ).fetchone()
        if not changed or not changed[0]:
            con.execute("INSERT INTO reactions VALUES (?, ?, ?, 1, ?)", [*key, int(covered)])


def enqueue_pg(cur: psycopg.Cursor[Any], keys: Iterable[Key], covered: Iterable[Key] = ()) -> None:
    """Count one more wanted reaction per subject (PostgreSQL, in the write's transaction);
    a subject in `covered` (its writes want no reaction) counts every write so far as
    covered, as `enqueue` does (and as the Reactor's skip after a commit would)."""
    done = set(covered)
    for key in sorted(set(keys)):
        cur.execute(
            "INSERT INTO reactions VALUES (%s, %s, %s, 1, %s)"
            " ON CONFLICT (tenant, scope, subject)"
            " DO UPDATE SET wanted = reactions.wanted + 1"
            + (", done = reactions.wanted + 1" if key in done else ""),
            [*key, int(key in done)],
        )


def wanted(store: Store, addr: Address) -> tuple[int, int]:
    """(writes counted, writes covered) of a subject: (0, 0) before its first write."""
    rows = store.backend.service_rows(
        f"SELECT wanted, done FROM reactions WHERE {_KEY}", list(key_of(addr))
    )
    return (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)


def covered(store: Store, addr: Address, upto: int) -> None:
    """Record that a reaction covered the subject's writes up to number `upto`."""
    with store.write_lock:  # the writer's upserts and this update never overlap
        store.backend.service_rows(
            f"UPDATE reactions SET done = greatest(done, ?) WHERE {_KEY}",
            [upto, *key_of(addr)],
        )


def pending_counts(store: Store, tenant: str) -> list[tuple[Address, int]]:
    """A tenant's subjects with writes no reaction covered, each with its write count."""
    rows = store.backend.service_rows(
        "SELECT tenant, scope, subject, wanted FROM reactions WHERE wanted > done"
        " AND tenant = ? ORDER BY 1, 2, 3",
        [tenant],
    )
    return [(Address(t, s, n), int(w)) for t, s, n, w in rows]


def pending(store: Store, tenant: str | None = None) -> list[Address]:
    """Subjects with writes no reaction covered yet (of a tenant, or all), oldest key first."""
    sql = "SELECT tenant, scope, subject FROM reactions WHERE wanted > done"
    if tenant is not None:
        rows = store.backend.service_rows(sql + " AND tenant = ? ORDER BY 1, 2, 3", [tenant])
    else:
        rows = store.backend.service_rows(sql + " ORDER BY 1, 2, 3")
    return [Address(t, s, n) for t, s, n in rows]
