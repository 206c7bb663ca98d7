"""The workspace store: one DuckDB file holding the append-only, hash-chained fact log.

Writes come in batches (`Batch`) appended in one transaction: the archived inputs, the facts
they produced and any inferred collection schemas. Facts are never updated or deleted; each
row's `hash` chains its content hash to the previous row's hash so `verify` finds the first
row changed or removed out of band. DuckDB's file lock makes a workspace single-writer, so
the chain head and the next sequence numbers are cached for the life of a connection.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import threading
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from uac.fact_log.addressing import Address
from uac.fact_log.duck import connect, load_fts
from uac.fact_log.errors import NotFound, WorkspaceError
from uac.fact_log.values import canonical_json, json_string, loads, sha256

DB_FILE = "uac.duckdb"
SCHEMA_VERSION = 3
GENESIS = "0" * 64
_SUBJECT = "tenant = ? AND scope = ? AND subject = ?"
_SMALL_BATCH = 32  # below this, parameterised INSERTs beat building an Arrow table

FACT_COLUMNS: tuple[tuple[str, str, Any], ...] = (
    ("seq", "BIGINT NOT NULL", pa.int64()),
    ("id", "VARCHAR NOT NULL", pa.string()),
    ("tenant", "VARCHAR NOT NULL", pa.string()),
    ("scope", "VARCHAR NOT NULL", pa.string()),
    ("subject", "VARCHAR NOT NULL", pa.string()),
    ("op", "VARCHAR NOT NULL", pa.string()),
    ("kind", "VARCHAR NOT NULL", pa.string()),
    ("path", "VARCHAR NOT NULL", pa.string()),
    ("record_key", "VARCHAR", pa.string()),
    ("value", "VARCHAR", pa.string()),
    ("text", "VARCHAR", pa.string()),
    ("source", "VARCHAR NOT NULL", pa.string()),
    ("confidence", "DOUBLE NOT NULL", pa.float64()),
    ("evidence", "VARCHAR", pa.string()),
    ("valid_from", "TIMESTAMP", pa.timestamp("us")),
    ("valid_to", "TIMESTAMP", pa.timestamp("us")),
    ("recorded_at", "TIMESTAMP NOT NULL", pa.timestamp("us")),
    ("input_id", "VARCHAR", pa.string()),
    ("session_id", "VARCHAR", pa.string()),
    ("run_id", "VARCHAR", pa.string()),
    ("actor", "VARCHAR", pa.string()),
    ("content_hash", "VARCHAR NOT NULL", pa.string()),
    ("prev_hash", "VARCHAR NOT NULL", pa.string()),
    ("hash", "VARCHAR NOT NULL", pa.string()),
)
# The columns a fact's content hash covers, in order (everything but seq, id and the chain).
CONTENT_COLUMNS = tuple(name for name, _, _ in FACT_COLUMNS[2:-3])

INPUT_COLUMNS: tuple[tuple[str, str, Any], ...] = (
    ("seq", "BIGINT NOT NULL", pa.int64()),
    ("id", "VARCHAR NOT NULL", pa.string()),
    ("tenant", "VARCHAR NOT NULL", pa.string()),
    ("scope", "VARCHAR NOT NULL", pa.string()),
    ("subject", "VARCHAR NOT NULL", pa.string()),
    ("kind", "VARCHAR NOT NULL", pa.string()),
    ("name", "VARCHAR", pa.string()),
    ("role", "VARCHAR", pa.string()),
    ("content", "VARCHAR NOT NULL", pa.string()),
    ("content_hash", "VARCHAR NOT NULL", pa.string()),
    ("source", "VARCHAR NOT NULL", pa.string()),
    ("session_id", "VARCHAR", pa.string()),
    ("observed_at", "TIMESTAMP NOT NULL", pa.timestamp("us")),
    ("recorded_at", "TIMESTAMP NOT NULL", pa.timestamp("us")),
)


def _ddl(table: str, columns: Sequence[tuple[str, str, Any]]) -> str:
    body = ", ".join(f"{name} {sql}" for name, sql, _ in columns)
    return f"CREATE TABLE {table} ({body})"


# Forward migrations: MIGRATIONS[v] takes a workspace from schema v-1 to v.
MIGRATIONS: dict[int, list[str]] = {
    1: [
        "CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)",
        _ddl("facts", FACT_COLUMNS),
        _ddl("inputs", INPUT_COLUMNS),
        "CREATE TABLE rejections (id VARCHAR NOT NULL, tenant VARCHAR NOT NULL,"
        " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, input_id VARCHAR,"
        " path VARCHAR, reason VARCHAR NOT NULL, detail VARCHAR, recorded_at TIMESTAMP NOT NULL)",
        "CREATE TABLE schemas (tenant VARCHAR NOT NULL, scope VARCHAR NOT NULL,"
        " subject VARCHAR NOT NULL, path VARCHAR NOT NULL, version INTEGER NOT NULL,"
        " fields VARCHAR NOT NULL, input_id VARCHAR, recorded_at TIMESTAMP NOT NULL)",
    ],
    2: [
        "CREATE TABLE checkpoints (id BIGINT NOT NULL, tenant VARCHAR NOT NULL,"
        " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, version INTEGER,"
        " status VARCHAR NOT NULL, watermark BIGINT NOT NULL, head_id VARCHAR,"
        " as_of TIMESTAMP, known_at TIMESTAMP, facts INTEGER NOT NULL, error VARCHAR,"
        " timings VARCHAR, started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP NOT NULL)",
    ],
    # Alerts raised by checks (lifecycle open → acknowledged → resolved, with snoozing) and
    # one row per scheduled or manual run of the checks. IF NOT EXISTS: re-running it on a
    # workspace whose version marker was rolled back must not fail.
    3: [
        "CREATE TABLE IF NOT EXISTS alerts (id VARCHAR NOT NULL, tenant VARCHAR NOT NULL,"
        " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, check_name VARCHAR NOT NULL,"
        " severity VARCHAR NOT NULL, status VARCHAR NOT NULL, message VARCHAR NOT NULL,"
        " computation VARCHAR NOT NULL, fact_ids VARCHAR NOT NULL, record_keys VARCHAR NOT NULL,"
        " first_seen DATE NOT NULL, last_seen DATE NOT NULL, acknowledged_on DATE,"
        " snoozed_until DATE, resolved_on DATE, delivered_at TIMESTAMP, delivery_error VARCHAR,"
        " PRIMARY KEY (tenant, scope, subject, id))",
        "CREATE TABLE IF NOT EXISTS jobs (id BIGINT NOT NULL, tenant VARCHAR NOT NULL,"
        " kind VARCHAR NOT NULL, run_for DATE NOT NULL, started_at TIMESTAMP NOT NULL,"
        " finished_at TIMESTAMP NOT NULL,"
        " duration_ms DOUBLE NOT NULL, subjects INTEGER NOT NULL, compiled INTEGER NOT NULL,"
        " alerts_new INTEGER NOT NULL, alerts_open INTEGER NOT NULL,"
        " alerts_resolved INTEGER NOT NULL, errors INTEGER NOT NULL, detail VARCHAR)",
    ],
}


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


def utc_naive(moment: dt.datetime | dt.date | None) -> dt.datetime | None:
    """A moment as naive UTC with microsecond precision, the form stored in DuckDB."""
    if moment is None:
        return None
    if not isinstance(moment, dt.datetime):
        return dt.datetime(moment.year, moment.month, moment.day)
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    return moment


def utc_now() -> dt.datetime:
    """The current time as naive UTC; only API entry points call this."""
    return utc_naive(dt.datetime.now(dt.UTC))  # type: ignore[return-value]


@dataclass(slots=True)
class NewInput:
    """A raw input to archive: a message, a note, an imported file, a command."""

    kind: str
    content: str
    source: str
    name: str | None = None
    role: str | None = None
    session_id: str | None = None
    observed_at: dt.datetime | None = None


@dataclass(slots=True)
class NewFact:
    """A fact to append; the store assigns seq, id, recorded_at and the chain hashes."""

    op: str
    kind: str
    path: str
    value: Any = None
    record_key: str | None = None
    text: str | None = None
    source: str = "explicit_command"
    confidence: float = 1.0
    evidence: Any = None
    valid_from: dt.datetime | None = None
    valid_to: dt.datetime | None = None
    input_index: int | None = None  # index into the batch's inputs
    input_id: str | None = None  # or an already archived input
    session_id: str | None = None


@dataclass(slots=True)
class NewRejection:
    """Something the ingestion gate refused, recorded with its reason."""

    reason: str
    path: str | None = None
    detail: Any = None
    input_index: int | None = None


@dataclass(slots=True)
class Batch:
    """Everything one write appends, atomically, for one subject."""

    address: Address
    recorded_at: dt.datetime
    actor: str
    inputs: list[NewInput] = field(default_factory=list)
    facts: list[NewFact] = field(default_factory=list)
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)  # fact_log/shapes.py
    rejections: list[NewRejection] = field(default_factory=list)
    input_ids: list[str] = field(default_factory=list)  # filled in by Store.append


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


@dataclass(frozen=True, slots=True)
class SubjectInfo:
    """A subject with how much the log holds for it."""

    tenant: str
    scope: str
    subject: str
    facts: int
    inputs: int
    last_recorded_at: dt.datetime | None


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Result of walking the hash chain."""

    ok: bool
    checked: int
    broken_seq: int | None = None
    broken_id: str | None = None
    problem: str | None = None


def content_hash(row: Sequence[Any]) -> str:
    """Hash of a fact's content columns (CONTENT_COLUMNS order): SHA-256 of a JSON array."""
    return sha256("[" + ",".join(map(_cell, row)) + "]")


def _cell(value: Any) -> str:
    # One element of the hashed JSON array: text as JSON strings, times ISO, floats by repr.
    if value is None:
        return "null"
    if isinstance(value, str):
        return json_string(value)
    if isinstance(value, dt.datetime):
        return json_string(value.isoformat())
    if isinstance(value, float):
        return json_string(repr(value))
    return canonical_json(value)


def link_hash(seq: int, prev_hash: str, chash: str) -> str:
    """Hash linking one row to the previous one."""
    return sha256(f"{seq}:{prev_hash}:{chash}")


def fact_id(link: str) -> str:
    """A fact's stable external id, derived from its chain hash."""
    return "f_" + link[:20]


class Store:
    """A workspace's DuckDB file. Use `Store.open`; close it (or use `with`) when done."""

    def __init__(self, home: Path, con: duckdb.DuckDBPyConnection, read_only: bool):
        self.home = home
        self.con = con
        self.read_only = read_only
        self.lock = threading.RLock()  # one connection: callers on several threads take turns
        self._head: tuple[int, str] | None = None
        self._input_seq: int | None = None
        self._claim = str((home / DB_FILE).resolve())
        # A Store dropped without close() must not keep its workspace claimed.
        weakref.finalize(self, _release, Path(self._claim))

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, home: Path | str, *, create: bool = False, read_only: bool = False) -> Store:
        """Open the workspace at home; create=True makes it (and migrates an old one)."""
        home = Path(home).expanduser()
        db = home / DB_FILE
        if not db.exists():
            if not create:
                raise WorkspaceError(
                    f"no uac workspace at {home}; create one with: uac --home {home} init"
                )
            return cls._create(home)
        _claim(db)
        try:
            store = cls(home, connect(db, read_only=read_only), read_only)
        except BaseException:
            _release(db)
            raise
        try:
            store._migrate(allow=not read_only)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _create(cls, home: Path) -> Store:
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
            store._migrate(allow=True)
        except BaseException:
            _release(db)
            for leftover in (db, db.with_name(DB_FILE + ".wal")):
                leftover.unlink(missing_ok=True)
            if created_dir:
                shutil.rmtree(home, ignore_errors=True)
            raise
        return store

    def _migrate(self, allow: bool) -> None:
        tables = {
            r[0] for r in self.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        }
        if tables and "meta" not in tables:
            raise WorkspaceError(f"{self.home / DB_FILE} is a DuckDB file but not a uac workspace")
        current = 0
        if "meta" in tables:
            row = self.con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            current = int(row[0]) if row else 0
        if current > SCHEMA_VERSION:
            raise WorkspaceError(
                f"workspace {self.home} has schema version {current}, newer than this uac "
                f"supports ({SCHEMA_VERSION}); upgrade uac"
            )
        if current == SCHEMA_VERSION:
            return
        if not allow:
            raise WorkspaceError(
                f"workspace {self.home} has schema version {current}; "
                f"run 'uac --home {self.home} init' to upgrade it to {SCHEMA_VERSION}"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            self.con.execute("BEGIN")
            try:
                for statement in MIGRATIONS[version]:
                    self.con.execute(statement)
                self.con.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(version)]
                )
                self.con.execute("COMMIT")
            except BaseException:
                self.con.execute("ROLLBACK")
                raise

    @property
    def schema_version(self) -> int:
        """The workspace's schema version."""
        row = self.con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        """Close the connection (releases the workspace lock)."""
        self.con.close()
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
        """Append a batch in one transaction; see `_append`."""
        with self.lock:
            return self._append(batch, return_facts)

    def _append(self, batch: Batch, return_facts: bool) -> list[Fact]:
        """Append a batch in one transaction; returns the stored facts (or [] if not wanted).

        The ids given to the batch's inputs are left in `batch.input_ids`.
        """
        if self.read_only:
            raise WorkspaceError(f"workspace {self.home} was opened read-only")
        (seq, prev), input_seq = self._load_heads()
        addr = batch.address
        recorded = utc_naive(batch.recorded_at)
        input_rows: list[tuple[Any, ...]] = []
        for item in batch.inputs:
            input_seq += 1
            chash = sha256(item.content)
            observed = utc_naive(item.observed_at) or recorded
            iid = "i_" + sha256(f"{input_seq}:{chash}:{recorded.isoformat()}")[:20]  # type: ignore[union-attr]
            input_rows.append(
                (
                    input_seq,
                    iid,
                    addr.tenant,
                    addr.scope,
                    addr.subject,
                    item.kind,
                    item.name,
                    item.role,
                    item.content,
                    chash,
                    item.source,
                    item.session_id,
                    observed,
                    recorded,
                )
            )
        run_id = f"run_{seq + 1}"
        addr_cols = [addr.tenant, addr.scope, addr.subject]
        # Cells that are the same for every fact of the batch are encoded once.
        head = ",".join(map(_cell, addr_cols))
        recorded_cell = _cell(recorded)
        tail = _cell(run_id) + "," + _cell(batch.actor)
        fact_rows: list[tuple[Any, ...]] = []
        for new in batch.facts:
            seq += 1
            input_id = new.input_id
            if new.input_index is not None:
                input_id = input_rows[new.input_index][1]
            middle = (
                new.op,
                new.kind,
                new.path,
                new.record_key,
                None if new.value is None else canonical_json(new.value),
                new.text,
                new.source,
                float(new.confidence),
                None if new.evidence is None else canonical_json(new.evidence),
                utc_naive(new.valid_from),
                utc_naive(new.valid_to),
            )
            chash = sha256(
                f"[{head},{','.join(map(_cell, middle))},{recorded_cell},"
                f"{_cell(input_id)},{_cell(new.session_id)},{tail}]"
            )
            link = link_hash(seq, prev, chash)
            fact_rows.append(
                (
                    seq,
                    fact_id(link),
                    *addr_cols,
                    *middle,
                    recorded,
                    input_id,
                    new.session_id,
                    run_id,
                    batch.actor,
                    chash,
                    prev,
                    link,
                )
            )
            prev = link
        self.con.execute("BEGIN")
        try:
            self._insert("inputs", INPUT_COLUMNS, input_rows)
            self._insert("facts", FACT_COLUMNS, fact_rows)
            for n, rej in enumerate(batch.rejections):
                rid = "r_" + sha256(f"{run_id}:{n}:{rej.reason}")[:20]
                iid = None if rej.input_index is None else input_rows[rej.input_index][1]
                detail = None if rej.detail is None else canonical_json(rej.detail)
                self.con.execute(
                    "INSERT INTO rejections VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [rid, *addr_cols, iid, rej.path, rej.reason, detail, recorded],
                )
            for path, fields in sorted(batch.schemas.items()):
                self._record_schema(
                    addr, path, fields, input_rows[0][1] if input_rows else None, recorded
                )
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        self._head = (seq, prev)
        self._input_seq = input_seq
        batch.input_ids = [row[1] for row in input_rows]
        return [Fact(*row) for row in fact_rows] if return_facts else []

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

    def _record_schema(
        self,
        addr: Address,
        path: str,
        fields: dict[str, Any],
        input_id: str | None,
        at: dt.datetime | None,
    ) -> None:
        current = self.inferred_schema(addr, path)
        if current is not None and current[1] == fields:
            return
        version = 1 if current is None else current[0] + 1
        self.con.execute(
            "INSERT INTO schemas VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                addr.tenant,
                addr.scope,
                addr.subject,
                path,
                version,
                canonical_json(fields),
                input_id,
                at,
            ],
        )

    # -- reading ---------------------------------------------------------------------------

    def facts(self, addr: Address, path: str | None = None, since_seq: int = 0) -> list[Fact]:
        """The subject's facts in log order, optionally for one path or after a sequence."""
        sql = f"SELECT {_cols(FACT_COLUMNS)} FROM facts WHERE {_SUBJECT} AND seq > ?"
        params: list[Any] = [addr.tenant, addr.scope, addr.subject, since_seq]
        if path is not None:
            sql += " AND path = ?"
            params.append(path)
        return [Fact(*row) for row in self.con.execute(sql + " ORDER BY seq", params).fetchall()]

    def fact(self, addr: Address, fid: str) -> Fact:
        """One of the subject's facts by id; NotFound if the subject has no such fact."""
        row = self.con.execute(
            f"SELECT {_cols(FACT_COLUMNS)} FROM facts WHERE {_SUBJECT} AND id = ?",
            [addr.tenant, addr.scope, addr.subject, fid],
        ).fetchone()
        if row is None:
            raise NotFound(f"subject {addr} has no fact {fid!r}")
        return Fact(*row)

    def inputs(self, addr: Address) -> list[Input]:
        """The subject's archived inputs in arrival order."""
        rows = self.con.execute(
            f"SELECT {_cols(INPUT_COLUMNS)} FROM inputs WHERE {_SUBJECT} ORDER BY seq",
            [addr.tenant, addr.scope, addr.subject],
        ).fetchall()
        return [Input(*row) for row in rows]

    def subjects(self, tenant: str) -> list[SubjectInfo]:
        """Every subject of one tenant that has facts or inputs."""
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
        self.con.execute(
            f"INSERT INTO checkpoints (id, tenant, scope, subject, {', '.join(cols)})"
            f" VALUES ({', '.join('?' * (len(cols) + 4))})",
            [next_id, addr.tenant, addr.scope, addr.subject, *(row.get(c) for c in cols)],
        )
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
        row = self.con.execute(
            f"""
            SELECT (SELECT max(seq) FROM facts WHERE {_SUBJECT}) >
                   coalesce((SELECT max(watermark) FROM checkpoints WHERE {_SUBJECT}
                             AND status = 'published' AND as_of IS NULL AND known_at IS NULL), 0)
            """,
            [addr.tenant, addr.scope, addr.subject] * 2,
        ).fetchone()
        return bool(row and row[0])

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
        rows = self.con.execute(
            "SELECT path, arg_max(fields, version) FROM schemas WHERE tenant = ? AND scope = ?"
            " AND subject = ? AND recorded_at <= coalesce(?, recorded_at)"
            " GROUP BY path ORDER BY path",
            [addr.tenant, addr.scope, addr.subject, known_at],
        ).fetchall()
        return {path: loads(fields) for path, fields in rows}

    # -- verification ----------------------------------------------------------------------

    def verify(self, chunk: int = 20_000) -> VerifyReport:
        """Walk the whole chain; report the first row whose content or link does not verify."""
        expected_prev, expected_seq, checked = GENESIS, 1, 0
        cursor = self.con.execute(f"SELECT {_cols(FACT_COLUMNS)} FROM facts ORDER BY seq")
        for row in _chunks(cursor, chunk):
            fact = Fact(*row)
            problem = None
            if fact.seq != expected_seq:
                problem = f"sequence jumps from {expected_seq - 1} to {fact.seq} (rows deleted)"
            elif fact.prev_hash != expected_prev:
                problem = (
                    "its link to the previous row does not match (a row was changed or removed)"
                )
            elif (
                content_hash(
                    [
                        getattr(fact, c if c not in ("value", "evidence") else c + "_json")
                        for c in CONTENT_COLUMNS
                    ]
                )
                != fact.content_hash
            ):
                problem = "its content does not match its content hash (the row was changed)"
            elif link_hash(fact.seq, fact.prev_hash, fact.content_hash) != fact.hash:
                problem = "its chain hash does not match"
            elif fact_id(fact.hash) != fact.id:
                problem = "its id does not match its chain hash"
            if problem:
                return VerifyReport(False, checked, fact.seq, fact.id, problem)
            expected_prev, expected_seq, checked = fact.hash, fact.seq + 1, checked + 1
        return VerifyReport(True, checked)


def _cols(columns: Sequence[tuple[str, str, Any]]) -> str:
    return ", ".join(name for name, _, _ in columns)


def _chunks(cursor: duckdb.DuckDBPyConnection, size: int) -> Iterator[tuple[Any, ...]]:
    while rows := cursor.fetchmany(size):
        yield from rows


def default_home() -> Path:
    """`UAC_HOME`, else `$XDG_DATA_HOME/uac`, else `~/.local/share/uac`."""
    if os.environ.get("UAC_HOME"):
        return Path(os.environ["UAC_HOME"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "uac"
