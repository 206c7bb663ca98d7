"""Other layers' tables in a shared log's PostgreSQL database: registry, migration, transactions.

The log's own tables are versioned by `uac_meta.schema_version` (postgres.py). Each other
owner (jobs, alerts and outbox, ...) registers its migration steps here under a name and is
versioned by its own `uac_meta` row `schema_version:NAME`, so layers add tables without
touching the log's steps. `migrate` runs inside the log's migration transaction, under the
same advisory lock, so two nodes starting at once migrate once.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from uac.fact_log.errors import WorkspaceError

if TYPE_CHECKING:
    import psycopg


class PgLog(Protocol):
    """The shared log (fact_log/backends/pg_log.py PgLog), as this module uses it."""

    def migrate(self) -> int: ...

    def _tx(self) -> AbstractContextManager[psycopg.Cursor[Any]]: ...


OWNERS: dict[str, tuple[tuple[str, ...], ...]] = {}
_READY: weakref.WeakSet[Any] = weakref.WeakSet()  # logs whose owners are migrated


def register(name: str, steps: tuple[tuple[str, ...], ...]) -> None:
    """Declare an owner's migration steps (one tuple of statements per version)."""
    known = OWNERS.get(name)
    if known is not None and known != steps:
        raise ValueError(f"two different PostgreSQL schemas registered as {name!r}")
    OWNERS[name] = steps


def versions(cur: psycopg.Cursor[Any]) -> dict[str, int]:
    """Each registered owner's version in the database (0: not created yet)."""
    cur.execute("SELECT to_regclass('uac_meta') IS NOT NULL")
    if not cur.fetchone()[0]:  # type: ignore[index]
        return dict.fromkeys(OWNERS, 0)
    cur.execute("SELECT key, value FROM uac_meta WHERE key LIKE 'schema_version:%'")
    found = {key.split(":", 1)[1]: int(value) for key, value in cur.fetchall()}
    return {name: found.get(name, 0) for name in OWNERS}


def run_ddl(cur: psycopg.Cursor[Any], steps: Sequence[Sequence[str]]) -> None:
    """Run migration steps' statements (parameterless DDL) in one round trip to the server:
    a new log's tables cost one message, not one per statement (~2x faster measured)."""
    pending = [statement for statements in steps for statement in statements]
    if pending:
        cur.execute(";\n".join(pending))  # type: ignore[arg-type]


def migrate(cur: psycopg.Cursor[Any]) -> list[str]:
    """Apply every owner's pending steps in the caller's transaction; what was done, per owner."""
    done = []
    for name, found in sorted(versions(cur).items()):
        steps = OWNERS[name]
        if found > len(steps):
            raise WorkspaceError(
                f"the PostgreSQL tables of {name!r} have version {found}, newer than this uac"
                f" supports ({len(steps)}); upgrade uac"
            )
        if found == len(steps):
            continue
        run_ddl(cur, steps[found:])
        cur.execute(
            "INSERT INTO uac_meta VALUES (%s, %s) ON CONFLICT (key)"
            " DO UPDATE SET value = excluded.value",
            [f"schema_version:{name}", str(len(steps))],
        )
        done.append(f"{name}: version {found} -> {len(steps)}")
    return done


def behind(cur: psycopg.Cursor[Any]) -> list[str]:
    """Owners whose tables in this database are behind this uac (empty: all current)."""
    return [name for name, found in sorted(versions(cur).items()) if found < len(OWNERS[name])]


@contextmanager
def transaction(log: PgLog) -> Iterator[psycopg.Cursor[Any]]:
    """A cursor in one transaction on the log's database, its owners' tables migrated."""
    if log not in _READY:
        log.migrate()
        _READY.add(log)
    with log._tx() as cur:
        yield cur
