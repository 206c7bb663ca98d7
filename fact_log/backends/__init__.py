"""Where the fact log lives: the storage seam (base.py) and its two backends.

`duckdb.DuckDBBackend`: the workspace's DuckDB file is the log (fact_log/store.py holds the
file). `postgres.PostgresBackend`: the log is in a PostgreSQL database shared by many nodes
(`pg_log.PgLog` holds its SQL; pg_alerts, pg_jobs, pg_erase, pg_service and pg_artifacts the
shared tables'), and the file is each node's read copy (see docs/scale.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from uac.fact_log.backends.base import LogBackend, StoreFile


def open_backend(store: StoreFile, url: str | None, writable: bool) -> LogBackend:
    """The backend of an opened workspace file: the PostgreSQL log it is bound to (`url`,
    UAC_DB or its meta row), else the file itself."""
    from uac.fact_log.backends.duckdb import DuckDBBackend
    from uac.fact_log.backends.postgres import attach

    return attach(store, url, writable) or DuckDBBackend(store)
