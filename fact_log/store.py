"""The workspace store: one DuckDB file holding the append-only, hash-chained fact log.

Writes come in batches (`Batch`) appended in one transaction: the archived inputs, the facts
they produced and any inferred collection schemas. Facts are never updated or deleted; each
row's `hash` chains its content hash to the previous row's hash so `verify` finds the first
row changed or removed out of band. DuckDB's file lock makes a workspace single-writer, so
the chain head and the next sequence numbers are cached for the life of a connection.

A Store is shared by many threads. Each thread reads through its own DuckDB cursor (a
connection to the same database instance, so reads run concurrently). Appends go through one
writer with group commit: a caller queues its batch; whichever caller finds no writer active
becomes the writer, takes every queued batch, chains them in queue order and commits them in
one transaction (one fsync), then hands each caller its own facts. The chain stays linear
whatever the number of threads. A batch that fails inside a shared transaction is retried
alone, so one bad batch never fails its neighbours.

A workspace bound to PostgreSQL (`log_db`, UAC_DB; fact_log/backends/) keeps its log there,
one hash chain per subject; this file is then the node's local copy of the log, and every
layer above keeps reading it. Rows are prepared the same way for both (fact_log/chain.py).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import shutil
import threading
import uuid
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from uac.fact_log.addressing import Address, default_home  # noqa: F401 (re-exported)
from uac.fact_log.backends.replica import Replica, attach, bound
from uac.fact_log.chain import (  # noqa: F401 (re-exported: the store's public vocabulary)
    CONTENT_COLUMNS,
    FACT_COLUMNS,
    GENESIS,
    INPUT_COLUMNS,
    REJECTION_COLUMNS,
    SCHEMA_COLUMNS,
    Batch,
    NewFact,
    NewInput,
    NewRejection,
    Prepared,
    VerifyReport,
    content_hash,
    fact_id,
    fact_problem,
    link_hash,
    prepare,
    schema_row,
    slices,
    utc_naive,
)
from uac.fact_log.chain import FACT_V1 as _FACT_V1
from uac.fact_log.chain import INPUT_V1 as _INPUT_V1
from uac.fact_log.duck import connect, is_changed, load_fts
from uac.fact_log.errors import NotFound, WorkspaceError
from uac.fact_log.keys import KeyRing, key_path
from uac.fact_log.schema import META_DDL, Owner, migrate, register, registered, versions
from uac.fact_log.tamper import (
    ANCHORS,
    SEALED,
    anchor_problems,
    backfill,
    erased_residuals,
    latest_anchors,
    read_record,
    reseal,
    row_mac,
    seal,
    verify_tables,
)
from uac.fact_log.values import loads

DB_FILE = "uac.duckdb"
_SUBJECT = "tenant = ? AND scope = ? AND subject = ?"
_SMALL_BATCH = 32  # below this, parameterised INSERTs beat building an Arrow table
# `append_stream` stages a big write in tables named _stage_<id>_<table> (see there).
_STAGE = "_stage_"
_STAGED = ("inputs", "facts", "rejections")
# DuckDB's buffer pool keeps every committed block cached up to its memory limit (80% of
# RAM by default): during a staged write it is held this low so the staged chunks, already on
# disk, are evicted rather than kept (200k records: 594 MB peak without, 404 MB with 64MB).
_STREAM_MEMORY_LIMIT = "64MB"
# ... and each batch is chained and staged this many facts at a time: the prepared rows and
# their Arrow table are the part of a batch's working set the store adds (200k records in
# 10,000-record batches: 392 MB peak staged whole).
_STREAM_SLICE = 1_000


def _ddl(table: str, columns: Sequence[tuple[str, str, Any]]) -> str:
    body = ", ".join(f"{name} {sql}" for name, sql, _ in columns)
    return f"CREATE TABLE {table} ({body})"


# The fact log's own tables (see fact_log/schema.py for the mechanism). Steps 2 and 3 once
# created the compiler's checkpoints and the checks' alerts and jobs: those tables are now
# declared and migrated by their owners (compiler/checkpoint.py, checks/schema.py).
FACT_LOG = register(
    Owner(
        "fact_log",
        0,
        (
            (
                META_DDL,
                _ddl("facts", _FACT_V1),
                _ddl("inputs", _INPUT_V1),
                "CREATE TABLE rejections (id VARCHAR NOT NULL, tenant VARCHAR NOT NULL,"
                " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, input_id VARCHAR,"
                " path VARCHAR, reason VARCHAR NOT NULL, detail VARCHAR,"
                " recorded_at TIMESTAMP NOT NULL)",
                "CREATE TABLE schemas (tenant VARCHAR NOT NULL, scope VARCHAR NOT NULL,"
                " subject VARCHAR NOT NULL, path VARCHAR NOT NULL, version INTEGER NOT NULL,"
                " fields VARCHAR NOT NULL, input_id VARCHAR, recorded_at TIMESTAMP NOT NULL)",
            ),
            (),
            (),
        ),
    )
)
SCHEMA_VERSION = FACT_LOG.version
# Tamper evidence (fact_log/tamper.py): keyed digests and per-commit anchors. Its own owner,
# not a fact_log step: a read-only open of a workspace from before it still reads (the
# columns read as NULL until the next writable open adds them).
TAMPER = register(
    Owner(
        "tamper",
        0,
        (
            (
                "ALTER TABLE facts ADD COLUMN IF NOT EXISTS mac VARCHAR",
                "ALTER TABLE inputs ADD COLUMN IF NOT EXISTS mac VARCHAR",
                "ALTER TABLE rejections ADD COLUMN IF NOT EXISTS mac VARCHAR",
                "ALTER TABLE schemas ADD COLUMN IF NOT EXISTS mac VARCHAR",
                "CREATE TABLE IF NOT EXISTS anchors (seq BIGINT NOT NULL, head VARCHAR NOT NULL,"
                " facts BIGINT NOT NULL, inputs BIGINT NOT NULL, recorded_at TIMESTAMP NOT NULL,"
                " mac VARCHAR NOT NULL)",
            ),
        ),
    )
)
seal("inputs", [name for name, _, _ in _INPUT_V1], "seq", ("seq", "id"))
seal("rejections", REJECTION_COLUMNS, "recorded_at, id", ("id",))
seal("schemas", SCHEMA_COLUMNS, "tenant, scope, subject, path, version", ("path", "version"))


# DuckDB lets a process open the same file twice, but the chain head is cached per Store:
# two Stores appending to one workspace would fork the chain. One open Store per workspace.
_OPEN: set[str] = set()
_OPEN_LOCK = threading.Lock()


def _claim(db: Path) -> None:
    key = str(db.resolve())
    with _OPEN_LOCK:
        if key in _OPEN:
            raise WorkspaceError(
                f"workspace {db.parent} is already open in this process; "
                "use that Memory (or close it) instead of opening another"
            )
        _OPEN.add(key)


def _release(db: Path) -> None:
    with _OPEN_LOCK:
        _OPEN.discard(str(db.resolve()))


def utc_now() -> dt.datetime:
    """The current time as naive UTC; only API entry points call this."""
    return utc_naive(dt.datetime.now(dt.UTC))  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Fact:
    """One row of the fact log as stored."""

    seq: int
    id: str
    tenant: str
    scope: str
    subject: str
    op: str
    kind: str
    path: str
    record_key: str | None
    value_json: str | None
    text: str | None
    source: str
    confidence: float
    evidence_json: str | None
    valid_from: dt.datetime | None
    valid_to: dt.datetime | None
    recorded_at: dt.datetime
    input_id: str | None
    session_id: str | None
    run_id: str | None
    actor: str | None
    content_hash: str
    prev_hash: str
    hash: str
    mac: str | None = None

    @property
    def value(self) -> Any:
        """The fact's value, JSON-decoded (decimals exact)."""
        return None if self.value_json is None else loads(self.value_json)

    @property
    def evidence(self) -> Any:
        """The fact's evidence, JSON-decoded."""
        return None if self.evidence_json is None else loads(self.evidence_json)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the row (value and evidence decoded)."""
        out = {
            name: getattr(self, name)
            for name, _, _ in FACT_COLUMNS
            if name not in ("value", "evidence")
        }
        out["value"] = self.value
        out["evidence"] = self.evidence
        return out


@dataclass(frozen=True, slots=True)
class Input:
    """One archived raw input."""

    seq: int
    id: str
    tenant: str
    scope: str
    subject: str
    kind: str
    name: str | None
    role: str | None
    content: str
    content_hash: str
    source: str
    session_id: str | None
    observed_at: dt.datetime
    recorded_at: dt.datetime
    mac: str | None = None


@dataclass(frozen=True, slots=True)
class SubjectInfo:
    """A subject with how much the log holds for it."""

    tenant: str
    scope: str
    subject: str
    facts: int
    inputs: int
    last_recorded_at: dt.datetime | None


@dataclass(slots=True)
class _Pending:
    """One caller's batch waiting in the group-commit queue, and what it gets back."""

    batch: Batch
    return_facts: bool
    done: threading.Event = field(default_factory=threading.Event)
    facts: list[Fact] = field(default_factory=list)
    error: BaseException | None = None


class Store:
    """A workspace's DuckDB file. Use `Store.open`; close it (or use `with`) when done."""

    def __init__(self, home: Path, con: duckdb.DuckDBPyConnection, read_only: bool):
        self.home = home
        self._root = con
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()
        self._closed = False
        self.read_only = read_only
        # Group commit: queued (batch, return_facts, slot) and whether a writer is active.
        self._queue: list[_Pending] = []
        self._queue_lock = threading.Lock()
        self._writer_active = False
        self.write_lock = threading.RLock()  # held by the writer and by other transactions
        self._head: tuple[int, str] | None = None
        self._input_seq: int | None = None
        self.ring: KeyRing | None = None  # the chain key ring (fact_log/keys.py)
        # Set when the log lives in PostgreSQL (fact_log/backends/replica.py): this file
        # then holds a local copy of it.
        self.replica: Replica | None = None
        self._fact_cols = _cols(FACT_COLUMNS)
        self._input_cols = _cols(INPUT_COLUMNS)
        self._claim = str((home / DB_FILE).resolve())
        # A Store dropped without close() must not keep its workspace claimed.
        weakref.finalize(self, _release, Path(self._claim))

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        home: Path | str,
        *,
        create: bool = False,
        read_only: bool = False,
        owners: Sequence[Owner] = (),
        log_db: str | None = None,
    ) -> Store:
        """Open the workspace at home; create=True makes it (and migrates an old one).

        Every registered schema owner's tables are migrated (fact_log/schema.py), plus
        `owners`: a layer not imported yet can be passed in by the opener. `log_db` (or UAC_DB)
        binds a new workspace's log to a PostgreSQL database (fact_log/backends/replica.py).
        """
        home = Path(home).expanduser()
        db = home / DB_FILE
        if not db.exists():
            if not create:
                raise WorkspaceError(
                    f"no uac workspace at {home}; create one with: uac --home {home} init"
                )
            return cls._create(home, owners, log_db)
        _claim(db)
        try:
            con = connect(db, read_only=read_only)
            if read_only and bound(con):
                # Bound to PostgreSQL: even a read-only open must bring its local copy up to
                # date, so the file is opened writable (appends stay refused).
                con.close()
                con = connect(db, read_only=False)
            store = cls(home, con, read_only)
        except BaseException:
            _release(db)
            raise
        try:
            store._migrate(not read_only, owners)
            store.replica = attach(store, log_db, not read_only)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _create(cls, home: Path, owners: Sequence[Owner], log_db: str | None) -> Store:
        created_dir = not home.exists()
        try:
            home.mkdir(parents=True, exist_ok=True)
            if not home.is_dir():
                raise WorkspaceError(f"cannot create workspace: {home} is not a directory")
            probe = home / ".uac-write-test"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise WorkspaceError(f"cannot create workspace at {home}: {exc.strerror}") from None
        db = home / DB_FILE
        try:
            load_fts(duckdb.connect())  # fail before writing anything if search cannot work
            _claim(db)
            store = cls(home, connect(db, read_only=False), False)
            store._migrate(True, owners)
            store.replica = attach(store, log_db, True)
        except BaseException:
            _release(db)
            for leftover in (db, db.with_name(DB_FILE + ".wal")):
                leftover.unlink(missing_ok=True)
            if created_dir:
                shutil.rmtree(home, ignore_errors=True)
            raise
        return store

    def _migrate(self, allow: bool, owners: Sequence[Owner] = ()) -> None:
        tables = {
            r[0] for r in self.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        }
        if tables and "meta" not in tables:
            raise WorkspaceError(f"{self.home / DB_FILE} is a DuckDB file but not a uac workspace")
        # Every layer imported so far registered its tables; the opener may add more.
        migrate(self.con, [*registered(), *owners], allow=allow, where=str(self.home))
        if allow:  # an import killed mid-way left its staging: nothing of it reached the log
            _drop_stages(self.con)
        keyed = self.con.execute(
            "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'facts'"
            " AND column_name = 'mac'"
        ).fetchone()[0]
        if not keyed:  # a read-only open of a workspace from before keyed digests
            self._fact_cols = _cols(_FACT_V1) + ", NULL AS mac"
            self._input_cols = _cols(_INPUT_V1) + ", NULL AS mac"
        self._load_keys(allow)

    def _load_keys(self, writable: bool) -> None:
        """Load the chain key ring; a writable open makes one for a workspace that had none.

        A workspace that already signed rows never gets a new key silently: its rows would
        stop verifying. A read-only open without the key still reads; verify says why it
        cannot check the keyed digests.
        """
        self.ring = KeyRing.load(self.home)
        if not writable:
            return
        record, _ = read_record(self.con, None)
        fresh = False
        if self.ring is None:
            if record is not None:
                raise WorkspaceError(
                    f"workspace {self.home} signs its log but its chain key file "
                    f"{key_path(self.home)} is missing; restore it (or set UAC_CHAIN_KEY_FILE)"
                )
            self.ring, fresh = KeyRing.create(self.home), True
        elif record is None:
            # A key file but nothing signed yet (a key made by a failed init, or supplied
            # through UAC_CHAIN_KEY_FILE): this is the first keyed open.
            signed = self.con.execute(
                "SELECT (SELECT count(*) FROM facts WHERE mac IS NOT NULL)"
                " + (SELECT count(*) FROM anchors)"
            ).fetchone()[0]
            fresh = not signed
        backfill(self.con, self.ring, fresh)

    def signer(self) -> KeyRing:
        """The key ring that signs new rows (a writable open always has one)."""
        if self.ring is None:
            raise WorkspaceError(f"workspace {self.home} has no chain key loaded")
        return self.ring

    @property
    def schema_version(self) -> int:
        """The workspace's schema version (the fact log's; see schema_versions for the rest)."""
        row = self.con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def schema_versions(self) -> dict[str, int]:
        """Each registered owner's schema version as recorded in the file."""
        return versions(self.con, registered())

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """This thread's connection (a cursor of the workspace's one database instance)."""
        cur = getattr(self._local, "con", None)
        if cur is None:
            if self._closed:
                raise WorkspaceError(f"workspace {self.home} is closed")
            with self._cursors_lock:
                cur = self._root if not self._cursors else self._root.cursor()
                self._cursors.append(cur)
            self._local.con = cur
        return cur

    def close(self) -> None:
        """Close every thread's connection (releases the workspace lock)."""
        if self.replica is not None:
            self.replica.close()
        with self._cursors_lock:
            self._closed = True
            for cur in reversed(self._cursors):
                if cur is not self._root:
                    cur.close()
            self._cursors.clear()
        self._root.close()
        _release(Path(self._claim))

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- appending -------------------------------------------------------------------------

    def _load_heads(self) -> tuple[tuple[int, str], int]:
        if self._head is None:
            row = self.con.execute(
                "SELECT seq, hash FROM facts ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            self._head = (row[0], row[1]) if row else (0, GENESIS)
        if self._input_seq is None:
            row = self.con.execute("SELECT coalesce(max(seq), 0) FROM inputs").fetchone()
            self._input_seq = row[0] if row else 0
        return self._head, self._input_seq

    def append(self, batch: Batch, *, return_facts: bool = True) -> list[Fact]:
        """Append a batch durably; returns the stored facts (or [] if not wanted).

        Safe from any thread: concurrent callers share one transaction (group commit). The
        ids given to the batch's inputs are left in `batch.input_ids`.
        """
        if self.read_only:
            raise WorkspaceError(f"workspace {self.home} was opened read-only")
        mine = _Pending(batch, return_facts)
        if self.replica is not None:
            # PostgreSQL: each caller commits its own transaction on a pooled connection, so
            # a subject whose head another node holds never stalls this node's other writes.
            self._transaction_shared([batch], [mine])
            return mine.facts
        with self._queue_lock:
            self._queue.append(mine)
            lead = not self._writer_active
            if lead:
                self._writer_active = True
        if lead:
            self._write_queued()
        mine.done.wait()
        if mine.error is not None:
            raise mine.error
        return mine.facts

    def _write_queued(self) -> None:
        """As the writer: commit queued batches, a group at a time, until the queue is empty."""
        while True:
            with self._queue_lock:
                group, self._queue = self._queue, []
                if not group:
                    self._writer_active = False
                    return
            try:
                with self.write_lock:
                    self._commit_group(group)
            except BaseException as exc:  # never leave a caller waiting
                for item in group:
                    if not item.done.is_set():
                        item.error = exc
                        item.done.set()
                if not isinstance(exc, Exception):
                    with self._queue_lock:
                        self._writer_active = False
                    raise

    def _commit_group(self, group: list[_Pending]) -> None:
        if len(group) > 1:
            try:
                self._transaction([item.batch for item in group], group)
                return
            except Exception:
                pass  # find the batch that failed: each alone below
        for item in group:
            try:
                self._transaction([item.batch], [item])
            except Exception as exc:
                item.error = exc
                item.done.set()

    def _transaction(self, batches: list[Batch], items: list[_Pending]) -> None:
        """Chain and insert batches in one transaction; on success, wake their callers."""
        if self.replica is not None:
            self._transaction_shared(batches, items)
            return
        heads = self._load_heads()
        prepared: list[Prepared] = []
        for batch in batches:
            prep, heads = self._chain(batch, heads)
            prepared.append(prep)
        con = self.con
        con.execute("BEGIN")
        try:
            for prep in prepared:
                self._write_prepared(prep)
            self._anchor(heads, prepared[-1].recorded)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            self._head = self._input_seq = None  # re-read the heads on the next append
            raise
        self._head, self._input_seq = heads
        for prep, item in zip(prepared, items, strict=True):
            prep.batch.input_ids = [row[1] for row in prep.input_rows]
            item.facts = [Fact(*row) for row in prep.fact_rows] if item.return_facts else []
            item.done.set()

    def _chain(
        self, batch: Batch, heads: tuple[tuple[int, str], int], run_seq: int | None = None
    ) -> tuple[Prepared, tuple[tuple[int, str], int]]:
        """A batch's rows chained after `heads`, and the heads after it (a run of its own)."""
        (seq, _), input_seq = heads
        prep = prepare(
            batch,
            self.signer(),
            heads[0],
            itertools.count(seq + 1),
            itertools.count(input_seq + 1),
            seq + 1 if run_seq is None else run_seq,
        )
        return prep, (prep.head, prep.input_seq or input_seq)

    def append_stream(self, batches: Iterable[Batch]) -> int:
        """Append batches built one at a time as one run, all or nothing; returns the facts.

        For writes too big to hold at once (a large import): each batch is chained and
        committed into staging tables named for this write (readers never look at them)
        before the next is built, so neither this process nor DuckDB holds more than about
        one batch uncommitted; one final transaction moves the staged rows into the log
        (`INSERT ... SELECT`, which DuckDB writes out by row group) and drops the staging.
        An error from `batches` (a bad record found late) drops the staging and leaves the
        log as it was; a killed process leaves staging tables the next writable open drops.
        Other writers wait for the whole write (building the batches included): a write
        that fits in one batch should go through `append` (group commit).
        """
        if self.read_only:
            raise WorkspaceError(f"workspace {self.home} was opened read-only")
        if self.replica is not None:  # PostgreSQL appends a group in one transaction already
            group = list(batches)
            self._transaction_shared(group, [_Pending(b, False) for b in group])
            return sum(len(b.facts) for b in group)
        facts = 0
        with self.write_lock:
            heads = self._load_heads()
            run_seq = heads[0][0] + 1
            stage = {t: f"{_STAGE}{uuid.uuid4().hex[:12]}_{t}" for t in _STAGED}
            # Only what the schema rows need: holding the batches would hold every record.
            schemas: list[tuple[Address, dict[str, dict[str, Any]], str | None, Any]] = []
            recorded: Any = None
            con = self.con
            limit = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
            con.execute(f"SET memory_limit = '{_STREAM_MEMORY_LIMIT}'")
            try:
                for table, staged in stage.items():
                    con.execute(f"CREATE TABLE {staged} AS SELECT * FROM {table} LIMIT 0")
                for batch in batches:
                    ids: list[str] = []
                    for part in slices(batch, _STREAM_SLICE, ids):
                        prep, heads = self._chain(part, heads, run_seq)
                        con.execute("BEGIN")
                        self._write_rows(prep, stage)
                        con.execute("COMMIT")
                        if not ids:  # the later slices name the inputs by these
                            ids.extend(row[1] for row in prep.input_rows)
                        facts += len(prep.fact_rows)
                    batch.input_ids = ids
                    recorded = utc_naive(batch.recorded_at)
                    first = ids[0] if ids else None
                    schemas.append((batch.address, batch.schemas, first, recorded))
                if recorded is None:
                    raise WorkspaceError("nothing to append: the write holds no batch")
                con.execute("BEGIN")
                for table, staged in stage.items():
                    con.execute(f"INSERT INTO {table} SELECT * FROM {staged}")
                    con.execute(f"DROP TABLE {staged}")
                for addr, inferred, first_input, at in schemas:
                    self._write_schemas(addr, inferred, first_input, at)
                self._anchor(heads, recorded)
                con.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(duckdb.Error):  # not in a transaction: nothing to undo
                    con.execute("ROLLBACK")
                self._head = self._input_seq = None  # re-read the heads on the next append
                _drop_stages(con, list(stage.values()))
                raise
            finally:
                con.execute(f"SET memory_limit = '{limit}'")
            self._head, self._input_seq = heads
        return facts

    def _transaction_shared(self, batches: list[Batch], items: list[_Pending]) -> None:
        """Append to the PostgreSQL log (one transaction), then copy the rows locally."""
        replica = self.replica
        assert replica is not None
        prepared = replica.log.append(batches, self.signer())
        # Committed already: if the copy fails, the next read of the subject copies it.
        with contextlib.suppress(Exception):
            replica.record(prepared)
        for prep, item in zip(prepared, items, strict=True):
            prep.batch.input_ids = [row[1] for row in prep.input_rows]
            item.facts = [Fact(*row) for row in prep.fact_rows] if item.return_facts else []
            item.done.set()

    def insert_rows(self, table: str, names: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
        """Insert stored rows (columns `names`) into one of the log's tables of this file."""
        columns = {"facts": FACT_COLUMNS, "inputs": INPUT_COLUMNS}.get(table)
        if columns is not None:
            self._insert(table, columns, rows)
        elif rows:
            marks = ", ".join("?" * len(names))
            self.con.executemany(
                f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})",
                [list(r) for r in rows],
            )

    def _anchor(self, heads: tuple[tuple[int, str], int], at: Any) -> None:
        """Record the chain head this commit leaves (same transaction): truncation shows."""
        (seq, head), inputs = heads
        values = [seq, head, seq, inputs, at]
        self.con.execute(
            "INSERT INTO anchors VALUES (?, ?, ?, ?, ?, ?)",
            [*values, row_mac(self.signer(), ANCHORS.table, values)],
        )

    def _write_prepared(self, prep: Prepared) -> None:
        self._write_rows(prep)
        batch = prep.batch
        self._write_schemas(batch.address, batch.schemas, _first_input(prep), prep.recorded)

    def _write_rows(self, prep: Prepared, tables: dict[str, str] | None = None) -> None:
        """A prepared batch's inputs, facts and rejections, into the log or its staging."""
        into = tables or {}
        self._insert(into.get("inputs", "inputs"), INPUT_COLUMNS, prep.input_rows)
        self._insert(into.get("facts", "facts"), FACT_COLUMNS, prep.fact_rows)
        rejections = into.get("rejections", "rejections")
        for row in prep.rejection_rows:
            self.con.execute(f"INSERT INTO {rejections} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)

    def _write_schemas(
        self,
        addr: Address,
        inferred: dict[str, dict[str, Any]],
        first_input: str | None,
        recorded: Any,
    ) -> None:
        for path, fields in sorted(inferred.items()):
            current = self.inferred_schema(addr, path)
            row = schema_row(self.signer(), addr, path, fields, current, first_input, recorded)
            if row is not None:
                self.con.execute("INSERT INTO schemas VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)

    def _insert(
        self, table: str, columns: Sequence[tuple[str, str, Any]], rows: list[tuple[Any, ...]]
    ) -> None:
        if not rows:
            return
        if len(rows) < _SMALL_BATCH:
            marks = ", ".join("?" * len(columns))
            for row in rows:
                self.con.execute(f"INSERT INTO {table} VALUES ({marks})", list(row))
            return
        schema = pa.schema([(name, typ) for name, _, typ in columns])
        arrow = pa.Table.from_arrays(
            [
                pa.array(col, type=typ)
                for col, (_, _, typ) in zip(zip(*rows, strict=True), columns, strict=True)
            ],
            schema=schema,
        )
        self.con.register("_uac_batch", arrow)
        try:
            self.con.execute(f"INSERT INTO {table} SELECT * FROM _uac_batch")
        finally:
            self.con.unregister("_uac_batch")

    # -- reading ---------------------------------------------------------------------------

    def _sync(self, addr: Address) -> None:
        """With a PostgreSQL log: copy the subject's rows this file lacks before reading."""
        if self.replica is not None:
            self.replica.sync(addr)

    def facts(self, addr: Address, path: str | None = None, since_seq: int = 0) -> list[Fact]:
        """The subject's facts in log order, optionally for one path or after a sequence."""
        self._sync(addr)
        sql = f"SELECT {self._fact_cols} FROM facts WHERE {_SUBJECT} AND seq > ?"
        params: list[Any] = [addr.tenant, addr.scope, addr.subject, since_seq]
        if path is not None:
            sql += " AND path = ?"
            params.append(path)
        return [Fact(*row) for row in self.con.execute(sql + " ORDER BY seq", params).fetchall()]

    def facts_of_kind(self, tenant: str, kind: str, record_key: str | None = None) -> list[Fact]:
        """One tenant's facts of a kind across its subjects (e.g. a user's memberships)."""
        sql = f"SELECT {self._fact_cols} FROM facts WHERE tenant = ? AND kind = ?"
        params: list[Any] = [tenant, kind]
        if record_key is not None:
            sql += " AND record_key = ?"
            params.append(record_key)
        return [Fact(*row) for row in self.con.execute(sql + " ORDER BY seq", params).fetchall()]

    def fact(self, addr: Address, fid: str) -> Fact:
        """One of the subject's facts by id; NotFound if the subject has no such fact."""
        self._sync(addr)
        row = self.con.execute(
            f"SELECT {self._fact_cols} FROM facts WHERE {_SUBJECT} AND id = ?",
            [addr.tenant, addr.scope, addr.subject, fid],
        ).fetchone()
        if row is None:
            raise NotFound(f"subject {addr} has no fact {fid!r}")
        return Fact(*row)

    def inputs(self, addr: Address) -> list[Input]:
        """The subject's archived inputs in arrival order."""
        self._sync(addr)
        rows = self.con.execute(
            f"SELECT {self._input_cols} FROM inputs WHERE {_SUBJECT} ORDER BY seq",
            [addr.tenant, addr.scope, addr.subject],
        ).fetchall()
        return [Input(*row) for row in rows]

    def session_messages(
        self, addr: Address, session_id: str, limit: int
    ) -> list[tuple[str, dt.datetime]]:
        """The last `limit` user messages of one session (masked text, when said), oldest first."""
        rows = self.con.execute(
            f"SELECT content, observed_at FROM inputs WHERE {_SUBJECT} AND session_id = ? "
            "AND kind = 'message' AND role = 'user' ORDER BY seq DESC LIMIT ?",
            [addr.tenant, addr.scope, addr.subject, session_id, limit],
        ).fetchall()
        return [(text, at) for text, at in reversed(rows)]

    def subjects(self, tenant: str) -> list[SubjectInfo]:
        """Every subject of one tenant that has facts or inputs."""
        if self.replica is not None:
            self.replica.sync_tenant(tenant)
        rows = self.con.execute(
            """
            WITH f AS (SELECT scope, subject, count(*) n, max(recorded_at) last_at FROM facts
                       WHERE tenant = ? GROUP BY ALL),
                 i AS (SELECT scope, subject, count(*) n, max(recorded_at) last_at FROM inputs
                       WHERE tenant = ? GROUP BY ALL)
            SELECT coalesce(f.scope, i.scope), coalesce(f.subject, i.subject),
                   coalesce(f.n, 0), coalesce(i.n, 0), greatest(f.last_at, i.last_at)
            FROM f FULL OUTER JOIN i ON f.scope = i.scope AND f.subject = i.subject
            ORDER BY 1, 2
            """,
            [tenant, tenant],
        ).fetchall()
        return [SubjectInfo(tenant, *row) for row in rows]

    def rejections(self, addr: Address) -> list[dict[str, Any]]:
        """What the gate refused for a subject, oldest first."""
        self._sync(addr)
        cur = self.con.execute(
            "SELECT id, input_id, path, reason, detail, recorded_at FROM rejections"
            f" WHERE {_SUBJECT}"
            " ORDER BY recorded_at, id",
            [addr.tenant, addr.scope, addr.subject],
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def record_checkpoint(self, addr: Address, row: dict[str, Any]) -> int:
        """Append one compile attempt (published or failed) to `checkpoints`; returns its id."""
        next_id = self.con.execute("SELECT coalesce(max(id), 0) + 1 FROM checkpoints").fetchone()[0]
        cols = (
            "version",
            "status",
            "watermark",
            "head_id",
            "as_of",
            "known_at",
            "facts",
            "error",
            "timings",
            "started_at",
            "finished_at",
        )
        con = self.con
        con.execute("BEGIN")
        try:
            con.execute(
                f"INSERT INTO checkpoints (id, tenant, scope, subject, {', '.join(cols)})"
                f" VALUES ({', '.join('?' * (len(cols) + 4))})",
                [next_id, addr.tenant, addr.scope, addr.subject, *(row.get(c) for c in cols)],
            )
            # Sealed from the stored row, so the digest covers the values as DuckDB keeps them.
            if "checkpoints" in SEALED:
                reseal(con, self.signer(), "checkpoints", "id = ?", [next_id])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return next_id

    def checkpoints(self, addr: Address) -> list[dict[str, Any]]:
        """Every compile attempt of a subject, oldest first."""
        cur = self.con.execute(
            f"SELECT * FROM checkpoints WHERE {_SUBJECT} ORDER BY id",
            [addr.tenant, addr.scope, addr.subject],
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def next_version(self, addr: Address) -> int:
        """The version number the next published checkpoint of a subject gets."""
        row = self.con.execute(
            f"SELECT coalesce(max(version), 0) + 1 FROM checkpoints WHERE {_SUBJECT}",
            [addr.tenant, addr.scope, addr.subject],
        ).fetchone()
        return int(row[0])

    def changed_subjects(self, tenant: str) -> list[Address]:
        """Subjects with facts newer than their last published (present-time) checkpoint."""
        if self.replica is not None:
            self.replica.sync_tenant(tenant)
        rows = self.con.execute(
            """
            WITH f AS (SELECT scope, subject, max(seq) AS top FROM facts WHERE tenant = ?
                       GROUP BY ALL),
                 c AS (SELECT scope, subject, max(watermark) AS mark FROM checkpoints
                       WHERE tenant = ? AND status = 'published' AND as_of IS NULL
                         AND known_at IS NULL GROUP BY ALL)
            SELECT f.scope, f.subject FROM f LEFT JOIN c USING (scope, subject)
            WHERE c.mark IS NULL OR f.top > c.mark ORDER BY 1, 2
            """,
            [tenant, tenant],
        ).fetchall()
        return [Address(tenant, scope, subject) for scope, subject in rows]

    def is_changed(self, addr: Address) -> bool:
        """True when the subject has facts newer than its last published present-time checkpoint."""
        self._sync(addr)
        return is_changed(self.con, addr.tenant, addr.scope, addr.subject)

    def inferred_schema(self, addr: Address, path: str) -> tuple[int, dict[str, str]] | None:
        """The latest (version, fields) inferred for a collection the catalog lacks."""
        row = self.con.execute(
            "SELECT version, fields FROM schemas WHERE tenant = ? AND scope = ? AND subject = ?"
            " AND path = ? ORDER BY version DESC LIMIT 1",
            [addr.tenant, addr.scope, addr.subject, path],
        ).fetchone()
        return None if row is None else (row[0], loads(row[1]))

    def inferred_schemas(
        self, addr: Address, known_at: dt.datetime | None = None
    ) -> dict[str, dict[str, Any]]:
        """Latest inferred schema of every inferred collection of a subject (as known then)."""
        self._sync(addr)
        rows = self.con.execute(
            "SELECT path, arg_max(fields, version) FROM schemas WHERE tenant = ? AND scope = ?"
            " AND subject = ? AND recorded_at <= coalesce(?, recorded_at)"
            " GROUP BY path ORDER BY path",
            [addr.tenant, addr.scope, addr.subject, known_at],
        ).fetchall()
        return {path: loads(fields) for path, fields in rows}

    # -- verification ----------------------------------------------------------------------

    def verify(self, chunk: int = 20_000, anchor: dict[str, Any] | None = None) -> VerifyReport:
        """Walk the chain, the sealed tables and the anchors; report what does not verify.

        The chain: the first fact whose content, plain link or keyed digest is wrong (a log
        rewritten with recomputed plain hashes fails the keyed digest). Then the first bad
        row of each sealed table, anchors naming a head that is gone and, given `anchor` (an
        exported one), whether the log still holds it.
        """
        ring = self.ring
        if self.replica is not None:  # the shared log: every subject's chain, in PostgreSQL
            return self.replica.log.verify(ring, anchor)
        record, record_problem = read_record(self.con, ring)
        problems: list[str] = [record_problem] if record_problem else []
        keyed_from = None if record is None else int(record["facts_from"])
        if ring is None and record is not None:
            problems.append(
                f"the chain key file {key_path(self.home)} is missing, so keyed digests"
                " cannot be checked"
            )
        elif (
            record is None
            and self.con.execute("SELECT count(*) FROM facts WHERE mac IS NOT NULL").fetchone()[0]
        ):
            problems.append("the keying record in meta is missing (deleted)")
        report = self._walk(chunk, ring, keyed_from if ring is not None else None)
        if ring is not None:
            problems += [f"{t}: {why}" for t, why in verify_tables(self.con, ring, record).items()]
        problems += anchor_problems(self.con, anchor)
        return VerifyReport(
            report.ok and not problems,
            report.checked,
            report.broken_seq,
            report.broken_id,
            report.problem,
            tuple(problems),
            keyed_from,
        )

    def _walk(self, chunk: int, ring: KeyRing | None, keyed_from: int | None) -> VerifyReport:
        """The fact chain: the first row whose content, link or keyed digest does not verify."""
        expected_prev, expected_seq, checked = GENESIS, 1, 0
        keyed_from = keyed_from if ring is not None and keyed_from is not None else 1 << 62
        erased = erased_residuals(self.con, ring) if ring is not None else None
        cursor = self.con.execute(f"SELECT {self._fact_cols} FROM facts ORDER BY seq")
        for row in _chunks(cursor, chunk):
            fact = Fact(*row)
            problem = None
            if fact.seq != expected_seq:
                problem = f"sequence jumps from {expected_seq - 1} to {fact.seq} (rows deleted)"
            else:
                problem = fact_problem(
                    row, expected_prev, ring if fact.seq >= keyed_from else None, erased
                )
            if problem:
                return VerifyReport(False, checked, fact.seq, fact.id, problem)
            expected_prev, expected_seq, checked = fact.hash, fact.seq + 1, checked + 1
        return VerifyReport(True, checked)

    def anchors(self, every: bool = False) -> list[dict[str, Any]]:
        """The newest anchor (or all, oldest first) as JSON-ready dicts for a witness."""
        if self.replica is not None:  # one per subject
            return self.replica.log.anchors(every)
        return latest_anchors(self.con, every)


def _first_input(prep: Prepared) -> str | None:
    return prep.input_rows[0][1] if prep.input_rows else None


def _drop_stages(con: duckdb.DuckDBPyConnection, names: Sequence[str] | None = None) -> None:
    """Drop staging tables of `append_stream`: these, or (None) every one left by a crash."""
    if names is None:
        names = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
                " AND starts_with(table_name, ?)",
                [_STAGE],
            ).fetchall()
        ]
    for name in names:
        con.execute(f'DROP TABLE IF EXISTS "{name}"')


def _cols(columns: Sequence[tuple[str, str, Any]]) -> str:
    return ", ".join(name for name, _, _ in columns)


def _chunks(cursor: duckdb.DuckDBPyConnection, size: int) -> Iterator[tuple[Any, ...]]:
    while rows := cursor.fetchmany(size):
        yield from rows
