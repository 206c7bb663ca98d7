"""A workspace bound to a PostgreSQL log: writes go there, the DuckDB file keeps a local copy.

`uac init --db postgresql://...` (or UAC_DB) binds a new workspace to a PostgreSQL log: the
URL is recorded in the workspace's `meta` (without checking the password into anything
else), keys stay in the workspace directory (every node of one log needs the same key file),
and the workspace's DuckDB file becomes this node's read cache of the log. Everything above
the fact log (compiler, checks, search, alerts, checkpoints) still reads and writes DuckDB.

Before a read of a subject the node asks PostgreSQL how many writes the subject has
(`chain_heads.writes`, one indexed row) and copies the rows of writes it lacks; the write
counter per subject it holds is the `log_sync` table. A write on this node is copied right
after it commits, so a node always reads its own writes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.backends import pg_erase
from uac.fact_log.backends.pg_artifacts import Artifacts, DirArtifacts, PgArtifacts
from uac.fact_log.backends.postgres import TABLES, PgLog, is_url, redact
from uac.fact_log.chain import GENESIS, Prepared, fact_problem
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.keys import KeyRing
from uac.fact_log.tamper import SEALED, erased_residuals, tally_problems, verify_tables

ENV = "UAC_DB"
ARTIFACTS_ENV = "UAC_ARTIFACTS"  # a shared directory for checkpoint blobs (default: the database)
META_KEY = "log_url"
_SYNC_DDL = (
    "CREATE TABLE IF NOT EXISTS log_sync (tenant VARCHAR NOT NULL, scope VARCHAR NOT NULL,"
    " subject VARCHAR NOT NULL, writes BIGINT NOT NULL, PRIMARY KEY (tenant, scope, subject))"
)


def bound(con: Any) -> bool:
    """True when a workspace file (a DuckDB connection) is bound to a PostgreSQL log."""
    has_meta = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'meta'"
    ).fetchone()[0]
    return bool(
        has_meta
        and con.execute("SELECT count(*) FROM meta WHERE key = ?", [META_KEY]).fetchone()[0]
    )


def attach(store: Any, url: str | None, writable: bool) -> Replica | None:
    """Bind the store to the PostgreSQL log it names (argument, UAC_DB, or its meta row)."""
    con = store.con
    row = con.execute("SELECT value FROM meta WHERE key = ?", [META_KEY]).fetchone()
    recorded = row[0] if row else None
    url = url or os.environ.get(ENV) or recorded
    if not url:
        return None
    if not is_url(url):
        raise WorkspaceError(
            f"the log database {url!r} is not a postgresql:// URL; "
            "use --db postgresql://USER@HOST:PORT/DB (or unset UAC_DB)"
        )
    if recorded is None:
        if con.execute("SELECT count(*) FROM facts").fetchone()[0]:
            raise WorkspaceError(
                f"workspace {store.home} keeps its log in its DuckDB file; moving an existing "
                "log to PostgreSQL is not supported: create a new workspace with "
                "'uac --home NEW init --db URL' (or unset UAC_DB)"
            )
        if not writable:
            raise WorkspaceError(
                f"workspace {store.home} is not bound to a PostgreSQL log yet; "
                f"run 'uac --home {store.home} init --db URL' first"
            )
    elif redact(recorded) != redact(url):
        raise WorkspaceError(
            f"workspace {store.home} is bound to the log at {redact(recorded)}, not "
            f"{redact(url)}; use a new workspace for another database"
        )
    log = PgLog(url)
    try:
        if writable:
            log.migrate()
            log.check_key(store.signer())
            con.execute(_SYNC_DDL)
            if recorded is None:
                con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [META_KEY, url])
        elif log.version() == 0:
            raise WorkspaceError(f"the PostgreSQL log at {log.where} has no uac tables yet")
    except BaseException:
        log.close()
        raise
    # A read-only open of a bound workspace still has a writable file (Store.open): it keeps
    # its copy current; only appends are refused.
    return Replica(log, store, writable or recorded is not None)


class Replica:
    """This node's DuckDB copy of a PostgreSQL log, brought up to date subject by subject."""

    def __init__(self, log: PgLog, store: Any, writable: bool):
        self.log = log
        self.store = store
        self.writable = writable  # False: the file cannot be written, the copy is read as is
        # Set by the runtime (runtime/api/memory.py): applies to this copy the legal erasures
        # of a subject (pg_erase.listing) that another node made, and purges what derives.
        self.on_erased: Callable[[Address, list[dict[str, Any]]], None] | None = None
        # Published checkpoints every node can fetch (compiler/shared.py).
        shared_dir = os.environ.get(ARTIFACTS_ENV)
        self.artifacts: Artifacts = DirArtifacts(shared_dir) if shared_dir else PgArtifacts(log)

    def close(self) -> None:
        """Close the pool of PostgreSQL connections."""
        self.log.close()

    def synced(self, addr: Address) -> int:
        """How many of the subject's writes the local copy holds."""
        row = (
            self.store.con.execute(
                "SELECT writes FROM log_sync WHERE tenant = ? AND scope = ? AND subject = ?",
                [addr.tenant, addr.scope, addr.subject],
            ).fetchone()
            if self.writable
            else None
        )
        return int(row[0]) if row else 0

    def sync(self, addr: Address, *, erasures: bool = True) -> None:
        """Copy the subject's writes the local copy lacks (one small query when none), and
        hand the legal erasures other nodes made of it to the runtime (unless `erasures`
        is False: the caller is applying one, or holds the write lock)."""
        if not self.writable:
            return
        erased = self._copy(addr)
        if erased and erasures:
            self._apply_erasures(addr, erased)

    def _copy(self, addr: Address) -> int:
        """Copy the subject's missing writes, window by window (PgLog.pull); how many legal
        erasures of it the log holds. Another thread copying the same subject meanwhile
        moves the start on: the copy goes on from where the local file has got to, until
        nothing is missing (each pass copies or sees a window copied: it ends)."""
        while True:
            have, erased, raced = self.synced(addr), 0, False
            for now, rows, count in self.log.pull(addr, have):
                erased = count
                if now == have:
                    continue
                with self.store.write_lock:
                    raced = self.synced(addr) != have
                    if raced:
                        break
                    self._absorb(addr, now, rows)
                have = now
            if not raced:
                return erased

    def _apply_erasures(self, addr: Address, shared: int) -> None:
        """Hand erasures another node made (the log holds `shared`) to the runtime to apply."""
        if self.on_erased is None:
            return
        key = [addr.tenant, addr.scope, addr.subject]
        # `erasures` is fact_log/erase.py's table (not imported here: it imports the store).
        (have,) = self.store.con.execute(
            "SELECT count(*) FROM erasures WHERE tenant = ? AND scope = ? AND subject = ?", key
        ).fetchone()
        if have < shared:
            self.on_erased(addr, pg_erase.listing(self.log, addr))

    def record(self, prepared: list[Prepared]) -> None:
        """Copy this node's own committed writes, or catch up from the log if it is behind."""
        for prep in prepared:
            addr = prep.batch.address
            before, after = prep.writes
            with self.store.write_lock:
                if self.synced(addr) == before:  # nothing missed: the rows in hand are all
                    rows = {
                        "inputs": prep.input_rows,
                        "facts": prep.fact_rows,
                        "rejections": prep.rejection_rows,
                        "schemas": prep.schema_rows,
                    }
                    self._absorb(addr, after, rows)
                    continue
            # The append path holds the store's write lock: erasures are applied by the next
            # read (applying takes the subject's lock, which a compile may hold while it waits
            # on the write lock).
            self.sync(addr, erasures=False)

    def sync_tenant(self, tenant: str) -> None:
        """Bring every subject of a tenant up to date (for tenant-wide listings)."""
        if not self.writable:
            return
        local = dict(
            ((scope, subject), n)
            for scope, subject, n in self.store.con.execute(
                "SELECT scope, subject, writes FROM log_sync WHERE tenant = ?", [tenant]
            ).fetchall()
        )
        for (scope, subject), n in self.log.writes(tenant).items():
            if n > local.get((scope, subject), 0):
                self.sync(Address(tenant, scope, subject))  # type: ignore[arg-type]

    def verify_copy(self, ring: KeyRing | None) -> list[str]:
        """What in this node's local copy (which its queries read) the shared log disowns.

        Each copied subject's chain is walked as the shared log's is (content, links, keyed
        digests), then its length and head are compared with the shared log's at the same
        write, so rows edited, removed or added in the copy show; the copied sealed tables'
        digests are checked too.
        """
        con = self.store.con
        cols = ", ".join(TABLES["facts"])
        erased = erased_residuals(con, ring)
        problems: list[str] = []
        synced = con.execute(
            "SELECT tenant, scope, subject FROM log_sync ORDER BY tenant, scope, subject"
        ).fetchall()
        for tenant, scope, subject in synced:
            addr = Address(tenant, scope, subject)
            label = f"{tenant}/{scope}:{subject}"
            with self.store.write_lock:  # the rows and their write count as one copy holds them
                writes = self.synced(addr)
                rows = con.execute(
                    f"SELECT {cols} FROM facts WHERE tenant = ? AND scope = ? AND subject = ?"
                    " ORDER BY seq",
                    [tenant, scope, subject],
                ).fetchall()
            prev, why = GENESIS, None
            for row in rows:
                if why := fact_problem(row, prev, ring, erased):
                    problems.append(f"this node's copy of {label}, fact seq {row[0]}: {why}")
                    break
                prev = row[-2]
            if why is None and (len(rows), prev) != self.log.head_at(addr, writes):
                problems.append(
                    f"this node's copy of {label} does not hold the shared log's facts of its "
                    f"first {writes} writes (rows removed or added in the copy)"
                )
        if ring is not None:
            found = verify_tables(con, ring, None, only=set(TABLES) - {"facts"})
            problems += [f"this node's copy, {t}: {why}" for t, why in found.items()]
        # The node's own counted tables (its compile attempts, its copy of the alerts).
        problems += [f"this node's {why}" for why in tally_problems(con, set(SEALED) - set(TABLES))]
        return problems

    def _absorb(self, addr: Address, writes: int, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        con = self.store.con
        con.execute("BEGIN")
        try:
            for table, cols in TABLES.items():
                self.store.insert_rows(table, cols, rows.get(table, []))
            con.execute(
                "INSERT OR REPLACE INTO log_sync VALUES (?, ?, ?, ?)",
                [addr.tenant, addr.scope, addr.subject, writes],
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
