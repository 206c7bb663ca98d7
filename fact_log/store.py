"""The workspace store: one DuckDB file holding the append-only, hash-chained fact log.

Writes come in batches (`Batch`) appended in one transaction: the archived inputs, the facts
they produced and any inferred collection schemas. Facts are never updated or deleted; each
row's `hash` chains its content hash to the previous row's hash so `verify` finds the first
row changed or removed out of band. DuckDB's file lock makes a workspace single-writer, so
the chain head and the next sequence numbers are cached for the life of a connection.

A Store is shared by many threads. Each thread reads through its own DuckDB cursor (a
connection to the same database instance, so reads run concurrently). Where the log itself
is kept, and how appends commit, is the store's backend (`store.backend`, a `LogBackend`:
fact_log/backends/base.py): the file itself with group commit (backends/duckdb.py), or a
PostgreSQL log the file copies (backends/postgres.py).

The Store's other verbs live beside it as mixins: reading the log back and verifying it
(fact_log/reads.py), a write too big to hold at once (fact_log/staging.py); the rows it hands
back are fact_log/rows.py, how a batch becomes chained rows fact_log/chain.py.

A workspace bound to PostgreSQL (`log_db`, UAC_DB) keeps its log there, one hash chain per
subject; this file is then the node's local copy of the log, and every layer above keeps
reading it. Rows are prepared the same way for both (fact_log/chain.py).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import threading
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac.fact_log import log_seals  # noqa: F401 (declares the seals of the store's tables)
from uac.fact_log.addressing import Address, default_home  # noqa: F401 (re-exported)
from uac.fact_log.backends import open_backend, reactions
from uac.fact_log.backends.base import LogBackend
from uac.fact_log.backends.duckdb import DuckDBBackend
from uac.fact_log.backends.postgres import bound
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
    utc_naive,
)
from uac.fact_log.chain import FACT_V1 as _FACT_V1
from uac.fact_log.chain import INPUT_V1 as _INPUT_V1
from uac.fact_log.chain_keys import KeyRing, key_path
from uac.fact_log.duck import connect, known_bound, remember_bound
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.reads import LogReads
from uac.fact_log.rows import Fact, Input, SubjectInfo, utc_now  # noqa: F401 (re-exported)
from uac.fact_log.rwlock import Gate, GatedConnection, one
from uac.fact_log.schema import META_DDL, Owner, migrate, register, registered, versions
from uac.fact_log.staging import Staging, drop_stages
from uac.fact_log.tamper import (
    backfill,
    key_mismatch,
    read_record,
    unkeyed_message,
    write_anchor,
)

if TYPE_CHECKING:
    import duckdb
else:  # the engine the package re-exports, without its __init__ (fact_log/duck.py)
    from uac.fact_log.duck import duckdb

DB_FILE = "uac.duckdb"
_SMALL_BATCH = 32  # below this, parameterised INSERTs beat building an Arrow table


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
            # Each anchor counts the counted tables' rows too (fact_log/tamper.py `tally`).
            ("ALTER TABLE anchors ADD COLUMN IF NOT EXISTS tally VARCHAR",),
        ),
    )
)


# DuckDB lets a process open the same file twice, but the chain head is cached per Store:
# two Stores appending to one workspace would fork the chain. One open Store per workspace.
_OPEN: set[str] = set()
# Reentrant: a Store dropped without close is released by its finalizer, which the garbage
# collector can run on a thread that holds this lock (any allocation inside it may start a
# collection); a plain Lock then waited for itself forever (seen: a test process hung in
# gc -> weakref callback -> lock acquire).
_OPEN_LOCK = threading.RLock()


def _claim(db: Path) -> None:
    key = str(db.resolve())
    with _OPEN_LOCK:
        taken = key in _OPEN
        _OPEN.add(key)
    if taken:
        raise WorkspaceError(
            f"workspace {db.parent} is already open in this process; "
            "use that Memory (or close it) instead of opening another"
        )


def _release(db: Path) -> None:
    key = str(db.resolve())  # outside the lock: resolving allocates
    with _OPEN_LOCK:
        _OPEN.discard(key)


class Store(LogReads, Staging):
    """A workspace's DuckDB file. Use `Store.open`; close it (or use `with`) when done."""

    def __init__(self, home: Path, con: duckdb.DuckDBPyConnection, read_only: bool):
        self.home = home
        self._root = con
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()
        # Every statement runs inside the gate, so the file can be swapped (fact_log/rwlock.py).
        self.gate = Gate()
        self._con = GatedConnection(self.gate, self._thread_cursor, self._scan_cursor)
        self._closed = False
        self.read_only = read_only
        self.write_lock = threading.RLock()  # held by the writer and by other transactions
        self._head: tuple[int, str] | None = None
        self._input_seq: int | None = None
        self.ring: KeyRing | None = None  # the chain key ring (fact_log/chain_keys.py)
        # Where the log lives (fact_log/backends/base.py); `open` binds it once migrated.
        self.backend: LogBackend = DuckDBBackend(self)
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
        binds a new workspace's log to a PostgreSQL database (fact_log/backends/base.py).
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
            # Bound to PostgreSQL, even a read-only open must bring its local copy up to date,
            # so the file is opened writable (appends stay refused): at once when this process
            # has seen it bound (fact_log/duck.py), else after a read-only look.
            known = read_only and known_bound(db)
            con = connect(db, read_only=read_only and not known)
            if read_only and bound(con) != known:  # bound after all, or replaced unbound
                con.close()
                con = connect(db, read_only=known)
            store = cls(home, con, read_only)
        except BaseException:
            _release(db)
            raise
        try:
            store._migrate(not read_only, owners)
            store.backend = open_backend(store, log_db, not read_only)
            if bound(store.con):  # the file says so (the backend is not branched on here)
                remember_bound(db)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _create(cls, home: Path, owners: Sequence[Owner], log_db: str | None) -> Store:
        created_dir = not home.exists()
        try:
            home.mkdir(parents=True, exist_ok=True)
            if created_dir:  # the log holds personal data: only its owner may enter
                home.chmod(0o700)
            if not home.is_dir():
                raise WorkspaceError(f"cannot create workspace: {home} is not a directory")
            probe = home / ".uac-write-test"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise WorkspaceError(f"cannot create workspace at {home}: {exc.strerror}") from None
        db = home / DB_FILE
        try:
            _claim(db)
            store = cls(home, connect(db, read_only=False), False)
            store._migrate(True, owners)
            store.backend = open_backend(store, log_db, True)
            if bound(store.con):  # the file says so (the backend is not branched on here)
                remember_bound(db)
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
            drop_stages(self.con)
        # pragma_table_info, not duckdb_columns(): that binds every built-in view (~10 ms).
        keyed = one(
            self.con.execute("SELECT count(*) FROM pragma_table_info('facts') WHERE name = 'mac'")
        )[0]
        if not keyed:  # a read-only open of a workspace from before keyed digests
            self._fact_cols = _cols(_FACT_V1) + ", NULL AS mac"
            self._input_cols = _cols(_INPUT_V1) + ", NULL AS mac"
        self._load_keys(allow)

    def _load_keys(self, writable: bool) -> None:
        """Load the chain key ring; a writable open makes one for a workspace that had none.

        A workspace that already signed rows never gets a new key silently: its rows would
        stop verifying. A key that has keyed a log (format 2, fact_log/chain_keys.py) never starts
        keying a log that already holds facts: such a log lost its keying record (an attacker
        who can write the database but not the key would otherwise reset keying over a forged
        log), so the open is refused. A read-only open without the key still reads; verify
        says why it cannot check the keyed digests.
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
            # through UAC_CHAIN_KEY_FILE for a new workspace): this is the first keyed open.
            facts, signed = one(
                self.con.execute(
                    "SELECT (SELECT count(*) FROM facts), (SELECT count(*) FROM facts"
                    " WHERE mac IS NOT NULL) + (SELECT count(*) FROM anchors)"
                )
            )
            if self.ring.binds and (facts or signed):
                raise WorkspaceError(unkeyed_message(self.home, facts, self.ring))
            fresh = not signed
        else:
            problem = key_mismatch(record, self.ring)
            if problem is not None:
                raise WorkspaceError(f"workspace {self.home}: {problem}")
        backfill(self.con, self.ring, fresh)
        if not self.ring.binds:  # a key file from before format 2 that keys this log now
            keyed, why = read_record(self.con, self.ring)
            if keyed is not None and why is None:
                self.ring = self.ring.bound()

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
    def con(self) -> GatedConnection:
        """The connection every thread uses: each statement runs on the thread's own cursor
        of the workspace's one database instance, inside the store's gate."""
        return self._con

    def _thread_cursor(self) -> duckdb.DuckDBPyConnection:
        cur = getattr(self._local, "con", None)
        if cur is None:
            with self._cursors_lock:
                if self._closed:
                    raise WorkspaceError(f"workspace {self.home} is closed")
                cur = self._root if not self._cursors else self._root.cursor()
                self._cursors.append(cur)
            self._local.con = cur
        return cur

    def _scan_cursor(self) -> duckdb.DuckDBPyConnection:
        with self._cursors_lock:
            if self._closed:
                raise WorkspaceError(f"workspace {self.home} is closed")
            return self._root.cursor()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """Hold every other statement and transaction out; yields the root connection."""
        with self.write_lock, self.gate.exclusive():
            yield self._root

    def swap_in(self, fresh: Path) -> None:
        """Replace the workspace file by `fresh` (inside `exclusive`): every cursor is closed,
        and each thread's next statement runs on a fresh cursor of the new file."""
        db = self.home / DB_FILE
        with self._cursors_lock:
            self._close_cursors()
            db.with_name(DB_FILE + ".wal").unlink(missing_ok=True)  # the old file's
            os.replace(fresh, db)
            self._root = connect(db, read_only=False)
            self._local = threading.local()

    def close(self) -> None:
        """Close every thread's connection (releases the workspace lock).

        Statements in flight on other threads finish first; later ones fail with a clear
        error.
        """
        self.backend.close()
        held = self.gate.held()  # closing from inside a transaction: nothing to wait for
        with contextlib.nullcontext() if held else self.gate.exclusive(), self._cursors_lock:
            self._closed = True
            self._close_cursors()
            self._local = threading.local()  # a thread's next statement: the closed error
        _release(Path(self._claim))

    def _close_cursors(self) -> None:
        for cur in reversed(self._cursors):
            if cur is not self._root:
                cur.close()
        self._cursors.clear()
        self._root.close()

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

        Safe from any thread (on the DuckDB log concurrent callers share one transaction:
        group commit). The ids given to the batch's inputs are left in `batch.input_ids`.
        """
        if self.read_only:
            raise WorkspaceError(f"workspace {self.home} was opened read-only")
        return self.backend.append(batch, return_facts)

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

    def _anchor(self, heads: tuple[tuple[int, str], int], at: Any, counted: bool = True) -> None:
        """Record the chain head this commit leaves (same transaction): truncation shows.
        `counted`: the commit appended rejections or schemas rows, so the anchor counts them."""
        (seq, head), inputs = heads
        write_anchor(self.con, self.signer(), (seq, head), inputs, at, counted)

    def _write_prepared(self, prep: Prepared) -> None:
        self._write_rows(prep)
        batch = prep.batch
        self._write_schemas(batch.address, batch.schemas, _first_input(prep), prep.recorded)
        # the write's reaction (or, wanted none, its coverage), in the same transaction
        reactions.enqueue(self.con, [batch.address], covered=batch.covered)

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
        import pyarrow as pa  # loaded by the first batch that needs it: reads never pay for it

        types = [_arrow_type(pa, typ) for _, _, typ in columns]
        schema = pa.schema([(name, typ) for (name, _, _), typ in zip(columns, types, strict=True)])
        arrow = pa.Table.from_arrays(
            [
                pa.array(col, type=typ)
                for col, typ in zip(zip(*rows, strict=True), types, strict=True)
            ],
            schema=schema,
        )
        # The table's Arrow C stream, not the table: handed a pyarrow Table, DuckDB imports
        # pyarrow.dataset (~40 MB resident) to scan it; a stream capsule it reads directly.
        self.con.register("_uac_batch", arrow.__arrow_c_stream__())
        try:
            self.con.execute(f"INSERT INTO {table} SELECT * FROM _uac_batch")
        finally:
            self.con.unregister("_uac_batch")


def _arrow_type(pa: Any, name: str) -> Any:
    """The Arrow type of a column's type name in fact_log/chain.py."""
    return pa.timestamp("us") if name == "timestamp" else getattr(pa, name)()


def _first_input(prep: Prepared) -> str | None:
    return prep.input_rows[0][1] if prep.input_rows else None


def _cols(columns: Sequence[tuple[str, str, Any]]) -> str:
    return ", ".join(name for name, _, _ in columns)
