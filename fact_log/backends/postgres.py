"""The log in PostgreSQL (a `LogBackend`, fact_log/backends/base.py); the file is a copy.

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

import contextlib
import datetime as dt
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from uac.fact_log.addressing import Address
from uac.fact_log.backends import pg_alerts, pg_erase, pg_jobs, pg_schema, pg_service, write_keys
from uac.fact_log.backends.base import ALERT_COLUMNS, Key, Send, StoreFile
from uac.fact_log.backends.duckdb import FileAlerts, FileOutbox, Pending, hand_back
from uac.fact_log.backends.pg_artifacts import Artifacts, DirArtifacts, PgArtifacts
from uac.fact_log.backends.pg_log import TABLES, LogUnavailable, PgLog, is_url, redact
from uac.fact_log.chain import GENESIS, Batch, Prepared, VerifyReport, fact_problem
from uac.fact_log.chain_keys import KeyRing
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.rows import Fact
from uac.fact_log.rwlock import one
from uac.fact_log.tamper import SEALED, erased_residuals, tally_problems, verify_tables

if TYPE_CHECKING:
    import psycopg


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


def attach(store: StoreFile, url: str | None, writable: bool) -> PostgresBackend | None:
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
        if one(con.execute("SELECT count(*) FROM facts"))[0]:
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
    return PostgresBackend(log, store, writable or recorded is not None)


class PostgresBackend:
    """The log in PostgreSQL, and this node's DuckDB copy of it, brought up to date subject by
    subject."""

    name = "postgres"
    one_chain = False
    one_writer = False

    def __init__(self, log: PgLog, store: StoreFile, writable: bool):
        self.log = log
        self.store = store
        self.where: str | None = log.where
        self.alerts = SharedAlerts(log, FileAlerts(store))
        self.outbox = SharedOutbox(log, FileOutbox(store))
        self.writable = writable  # False: the file cannot be written, the copy is read as is
        # Set by the runtime (runtime/api/memory.py): applies to this copy the legal erasures
        # of a subject (pg_erase.listing) that another node made, and purges what derives.
        self.on_erased: Callable[[Address, list[dict[str, Any]]], None] | None = None
        # Published checkpoints every node can fetch (compiler/shared_checkpoints.py).
        shared_dir = os.environ.get(ARTIFACTS_ENV)
        self.artifacts: Artifacts | None = (
            DirArtifacts(shared_dir) if shared_dir else PgArtifacts(log)
        )
        self._holds = pg_service.KeyHolds(log.url)  # a connection opened on first use

    def close(self) -> None:
        """Close the pool of PostgreSQL connections (and the one holding this node's claims)."""
        self._holds.close()
        self.log.close()

    # -- appending and verifying ----------------------------------------------------------

    def append(self, batch: Batch, return_facts: bool) -> list[Fact]:
        """Each caller commits its own transaction on a pooled connection, so a subject whose
        head another node holds never stalls this node's other writes. A batch a keyed
        request's earlier run committed is handed back, not written again (write_keys.py)."""
        slot = write_keys.take()
        if slot is not None and slot.earlier is not None:
            self.sync(batch.address)
            batch.input_ids = list(slot.earlier.input_ids)
            facts = write_keys.replayed(self.store, slot.earlier)
            return facts if return_facts else []
        mine = Pending(batch, return_facts, slot)
        try:
            self._append([batch], [mine])
        except LogUnavailable:
            raise  # the connection broke, perhaps in the commit: the outcome stays unknown
        except BaseException:
            write_keys.rolled_back(slot)
            raise
        return mine.facts

    def _append(self, batches: list[Batch], items: list[Pending]) -> None:
        """Append to the PostgreSQL log (one transaction), then copy the rows locally."""
        prepared = self.log.append(batches, self.store.signer(), [i.slot for i in items])
        wanting = {b.address for b in batches if not b.covered}
        for batch in batches:  # counted covered by this commit (pg_log.append), if all were
            batch.settled = batch.covered and batch.address not in wanting
        # Committed already: if the copy fails, the next read of the subject copies it.
        with contextlib.suppress(Exception):
            self.record(prepared)
        hand_back(prepared, items)

    def append_stream(self, batches: Iterable[Batch], seen: list[Address]) -> int:
        """One PostgreSQL transaction, sent batch by batch; a keyed request's stream is
        marked first (write_keys.streaming)."""
        slot = write_keys.take()
        try:
            write_keys.streaming(self.store, slot)
            facts = self.log.append_stream(batches, self.store.signer())
        except LogUnavailable:
            raise  # perhaps in the commit: the outcome stays unknown
        except BaseException:
            write_keys.rolled_back(slot)
            raise
        write_keys.settle(slot)
        # Committed already, so a failed copy is made by the next read; the node's copy
        # is pulled from the log, not fed the rows in hand (that would hold the write).
        with contextlib.suppress(Exception):
            self.sync(seen[0], erasures=False)
        return facts

    def verify(self, chunk: int, anchor: dict[str, Any] | None) -> VerifyReport:
        """Every subject's chain in PostgreSQL, and the copy this node reads."""
        ring = self.store.ring
        shared = self.log.verify(ring, anchor)
        copy = tuple(self.verify_copy(ring))
        return replace(shared, ok=shared.ok and not copy, problems=shared.problems + copy)

    def segment_check(self, addr: Address, ring: KeyRing) -> tuple[str | None, int]:
        """A copy's numbers have gaps across subjects: its chain links are all there is."""
        return None, 0

    def anchors(self, every: bool) -> list[dict[str, Any]]:
        """One per subject."""
        return self.log.anchors(every)

    def erase_shared(
        self,
        record: dict[str, Any],
        seqs: Sequence[int],
        input_ids: Sequence[str],
        every: bool,
        slot: write_keys.Slot | None = None,
    ) -> dict[str, Any] | None:
        """The shared log first: it is what every node copies; this node's copy follows
        (fact_log/erase.py), and a node that misses that step applies the erasure at its next
        sync. An erase of everything chose its rows under the head lock (a write that landed
        since this node's sync is erased too): those rows are copied before returning."""
        done = pg_erase.erase(self.log, self.store.signer(), record, seqs, input_ids, every, slot)
        self.sync(record["address"], erasures=False)
        return done

    def erasure_done(self, erasure_id: str, report: dict[str, Any]) -> int | None:
        """The first node to complete the shared report vacuums the shared tables once."""
        if pg_erase.complete(self.log, self.store.signer(), erasure_id, report):
            return len(pg_erase.vacuum(self.log))
        return None

    def missed_erasures(self) -> list[tuple[Address, list[dict[str, Any]]]]:
        """Erasures other nodes made while this one was down, of subjects its file holds."""
        local = {
            tuple(row[:3]): row[3]
            for row in self.store.con.execute(
                "SELECT s.tenant, s.scope, s.subject, count(e.id) FROM log_sync s LEFT JOIN"
                " erasures e USING (tenant, scope, subject) GROUP BY ALL"
            ).fetchall()
        }
        out = []
        for key, n in pg_erase.counts(self.log).items():
            if key in local and local[key] < n:
                addr = Address(*key)  # type: ignore[arg-type]
                out.append((addr, pg_erase.listing(self.log, addr)))
        return out

    # -- the tables the nodes share ----------------------------------------------------------

    def service_rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every API node of a shared log sees the same rows."""
        return pg_service.run(self.log, sql, params)

    def hold(self, name: str) -> bool:
        """Every node asks the database: a hold lives as long as the process that took it
        (pg_service.KeyHolds)."""
        return self._holds.hold(name)

    def let_go(self, name: str) -> None:
        """Drop a hold `hold` took."""
        self._holds.drop(name)

    def readiness(self) -> dict[str, str]:
        """A node is useless while its database is down (or not migrated)."""
        return {"log": self.log.where, "database": pg_service.ping(self.log) or "ok"}

    def job_status(self, limit: int = 20, tenant: str | None = None) -> pg_jobs.QueueStatus | None:
        """The shared compile-and-check queue (fact_log/backends/pg_jobs.py)."""
        return pg_jobs.status(self.log, limit=limit, tenant=tenant)

    def job_log(self) -> PgLog:
        """This log: workers claim its jobs."""
        return self.log

    # -- this node's copy -------------------------------------------------------------------

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
        (have,) = one(
            self.store.con.execute(
                "SELECT count(*) FROM erasures WHERE tenant = ? AND scope = ? AND subject = ?", key
            )
        )
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
            copied = set(TABLES) - {"facts"}
            found = verify_tables(con, ring, None, only=copied, required=copied & set(SEALED))
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


class _SharedAlertWrite:
    """An evaluation's changes to the shared alerts, in the transaction holding their locks."""

    def __init__(self, cur: psycopg.Cursor[Any], keys: Sequence[Key]):
        self.cur = cur
        self.keys = keys

    def rows(self) -> list[tuple[Any, ...]]:
        return pg_alerts.rows(self.cur, self.keys)

    def insert(self, values: Sequence[Sequence[Any]]) -> set[str]:
        return pg_alerts.insert(self.cur, values)

    def rewrite(self, values: Sequence[Any], raised: bool) -> int:
        return pg_alerts.rewrite(self.cur, values, raised)

    def update(self, key: Key, ids: Sequence[str], sets: str, values: Sequence[Any]) -> None:
        pg_alerts.update(self.cur, key, ids, sets.replace("?", "%s"), list(values))

    def outbox(self, entries: Sequence[tuple[str, str, str, str, int, str, str]]) -> None:
        pg_alerts.record_outbox(self.cur, entries)


class SharedAlerts:
    """The alerts every node shares (fact_log/backends/pg_alerts.py): locked, idempotent, and
    copied into this node's file after each change (the copy is what reads read)."""

    def __init__(self, log: PgLog, copy: FileAlerts):
        self.log = log
        self.copy = copy

    @contextlib.contextmanager
    def evaluating(self, keys: Sequence[Key]) -> Iterator[_SharedAlertWrite]:
        with pg_schema.transaction(self.log) as cur:
            pg_alerts.lock(cur, keys)
            yield _SharedAlertWrite(cur, keys)
            final = pg_alerts.rows(cur, keys)
        self.copy.mirror(keys, final)

    def rows(self, keys: Sequence[Key]) -> list[tuple[Any, ...]]:
        """The shared rows are the truth; this node's copy may lag."""
        with pg_schema.transaction(self.log) as cur:
            return pg_alerts.rows(cur, keys)

    def update(
        self,
        key: Key,
        ids: Sequence[str],
        sets: str,
        values: Sequence[Any],
        slot: write_keys.Slot | None = None,
    ) -> None:
        """The shared rows first (with the keyed request's step and its answer, in the same
        transaction), then this node's copy of them."""
        width = len(ALERT_COLUMNS.split(","))
        with pg_schema.transaction(self.log) as cur:
            pg_alerts.update(cur, key, ids, sets.replace("?", "%s"), list(values))
            rows = pg_alerts.rows(cur, [key])
            if slot is not None:
                mine = sorted(list(r[:width]) for r in rows if r[0] in set(ids))
                write_keys.record_answer_pg(cur, slot, mine)
        self.copy.mirror([key], rows)

    def pull(self, where: Address | str) -> None:
        with pg_schema.transaction(self.log) as cur:
            if isinstance(where, Address):
                keys: list[tuple[str, ...]] = [(where.tenant, where.scope, where.subject)]
                rows = pg_alerts.rows(cur, [(where.tenant, where.scope, where.subject)])
            else:
                keys = [(where,)]
                rows = pg_alerts.tenant_rows(cur, where)
        self.copy.mirror(keys, rows)

    def erase(
        self, key: Key, facts: set[str], every: bool, blank: str, today: dt.date
    ) -> tuple[list[str], int]:
        """Idempotent: any node may run it."""
        return pg_alerts.erase(self.log, key, facts, every, blank, today)


class SharedOutbox:
    """The outbox every node shares: each row is sent by one node (SKIP LOCKED)."""

    def __init__(self, log: PgLog, copy: FileOutbox):
        self.log = log
        self.copy = copy

    def pending(self) -> int:
        return pg_alerts.outbox_pending(self.log)

    def deliver_due(
        self,
        now: dt.datetime,
        send: Send,
        stopped: Callable[[], bool],
        pool: Executor,
        workers: int,
    ) -> dt.datetime | None:
        def drain() -> None:  # each row is locked while sent: one node, one worker sends it
            for _ in range(100):
                if stopped() or not pg_alerts.outbox_send_one(self.log, now, send):
                    break

        for done in [pool.submit(drain) for _ in range(workers)]:
            done.result()
        return pg_alerts.outbox_next_due(self.log)

    def collect(self, tenant: str, cutoff: dt.datetime) -> int:
        """Rows of the file (recorded outside an evaluation) and of the shared outbox."""
        return self.copy.collect(tenant, cutoff) + pg_alerts.outbox_collect(
            self.log, tenant, cutoff
        )

    def counts(self) -> dict[str, int]:
        return pg_alerts.counts(self.log)

    def rows(self, tenant: str, status: str | None, limit: int) -> list[tuple[Any, ...]]:
        return pg_alerts.outbox_rows(self.log, tenant, status, limit)

    def tenant_counts(self, tenant: str) -> dict[str, int]:
        return pg_alerts.outbox_counts(self.log, tenant)

    def requeue(self, tenant: str, ids: list[int], now: dt.datetime) -> int:
        return pg_alerts.outbox_requeue(self.log, tenant, ids, now)

    def drop(self, tenant: str, ids: list[int]) -> int:
        return pg_alerts.outbox_drop(self.log, tenant, ids)
