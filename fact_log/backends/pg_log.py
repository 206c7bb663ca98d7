"""The fact log on PostgreSQL: one hash chain per subject, numbers from a global sequence.

Every subject has a row in `chain_heads` (its last fact's seq and hash, how many facts,
inputs and writes it holds, and a keyed digest of all that). An append locks the heads of
the subjects it writes (`SELECT ... FOR UPDATE`, in sorted order so two nodes never
deadlock), draws fact and input numbers from the sequences `uac_fact_seq` and
`uac_input_seq`, chains each subject's new facts after its head (fact_log/chain.py, the same
row format as the DuckDB log), and moves the head, all in one transaction. Writers on
different subjects therefore never wait for each other; two writers on one subject queue on
its head row, so the chain stays linear. Numbers taken under the lock increase along each
chain; across subjects they give the audit order but may have gaps (rolled-back writes).

`w` on every row is the subject's write number (`chain_heads.writes` when the row was
written): a node's local cache asks for `w > what it has`, which never skips a row because
writes of one subject commit in `w` order. Each write also adds a signed anchor per subject.

All SQL for PostgreSQL is in this module. Connections come from a psycopg_pool pool; a lost
connection or a restarting server surfaces as `LogUnavailable` (retryable: the write was
rolled back, or, if the connection died during COMMIT, its outcome is unknown and the next
read of the subject shows it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from uac.fact_log.addressing import Address
from uac.fact_log.backends import pg_jobs, pg_schema, reactions, write_keys
from uac.fact_log.chain import (
    FACT_COLUMNS,
    GENESIS,
    INPUT_COLUMNS,
    REJECTION_COLUMNS,
    SCHEMA_COLUMNS,
    Batch,
    Prepared,
    VerifyReport,
    fact_problem,
    prepare,
    schema_row,
)
from uac.fact_log.chain_keys import KeyRing, row_message
from uac.fact_log.errors import InputError, WorkspaceError
from uac.fact_log.tamper import ERASED_ROW_COLUMNS, verified_residuals
from uac.fact_log.values import canonical_json, loads

if TYPE_CHECKING:  # imported where used: a DuckDB workspace never loads psycopg
    import psycopg

SCHEME = ("postgresql://", "postgres://")
_SUBJECT = "tenant = %s AND scope = %s AND subject = %s"
_HEAD = ("seq", "hash", "facts", "inputs", "writes")
_ANCHOR = "tenant, scope, subject, seq, head, facts, inputs, writes, recorded_at"


class LogUnavailable(WorkspaceError):
    """The PostgreSQL log cannot be reached right now; the caller may retry."""


def _pg_type(sql: str) -> str:
    return sql.replace("VARCHAR", "TEXT").replace("DOUBLE", "DOUBLE PRECISION")


def _table(name: str, columns: Sequence[tuple[str, str]], extra: str = "") -> str:
    body = ", ".join(f"{col} {_pg_type(sql)}" for col, sql in columns)
    return f"CREATE TABLE {name} ({body}, w BIGINT NOT NULL{extra})"


# Column names of each log table as the local cache stores them (everything but `w`).
TABLES: dict[str, tuple[str, ...]] = {
    "inputs": tuple(c for c, _, _ in INPUT_COLUMNS),
    "facts": tuple(c for c, _, _ in FACT_COLUMNS),
    "rejections": (*REJECTION_COLUMNS, "mac"),
    "schemas": (*SCHEMA_COLUMNS, "mac"),
}
# What verification reads, table by table (`_shape` reports any of it gone).
_VERIFIED: dict[str, tuple[str, ...]] = {
    "chain_heads": ("tenant", "scope", "subject", *_HEAD, "mac"),
    **TABLES,
    "anchors": (*_ANCHOR.split(", "), "tally", "mac"),
}
_TYPES = {"version": "INTEGER NOT NULL", "recorded_at": "TIMESTAMP NOT NULL"}
_NULLABLE = {"input_id", "path", "detail", "mac"}


def _plain(table: str) -> list[tuple[str, str]]:
    return [
        (c, _TYPES.get(c, "VARCHAR" if c in _NULLABLE else "VARCHAR NOT NULL"))
        for c in TABLES[table]
    ]


# Migration steps, one tuple per version, applied in one transaction under an advisory lock
# (two nodes starting at once migrate once). The version is the `uac_meta` row
# `schema_version`.
STEPS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE uac_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE SEQUENCE uac_fact_seq",
        "CREATE SEQUENCE uac_input_seq",
        "CREATE TABLE chain_heads (tenant TEXT NOT NULL, scope TEXT NOT NULL,"
        " subject TEXT NOT NULL, seq BIGINT NOT NULL, hash TEXT NOT NULL, facts BIGINT NOT NULL,"
        " inputs BIGINT NOT NULL, writes BIGINT NOT NULL, mac TEXT,"
        " PRIMARY KEY (tenant, scope, subject))",
        _table("facts", [(c, s) for c, s, _ in FACT_COLUMNS], ", PRIMARY KEY (seq)"),
        _table("inputs", [(c, s) for c, s, _ in INPUT_COLUMNS], ", PRIMARY KEY (seq)"),
        _table("rejections", _plain("rejections")),
        _table("schemas", _plain("schemas")),
        "CREATE TABLE anchors (tenant TEXT NOT NULL, scope TEXT NOT NULL, subject TEXT NOT NULL,"
        " seq BIGINT NOT NULL, head TEXT NOT NULL, facts BIGINT NOT NULL, inputs BIGINT NOT NULL,"
        " writes BIGINT NOT NULL, recorded_at TIMESTAMP NOT NULL, mac TEXT NOT NULL)",
        *(
            f"CREATE INDEX {t}_by_subject ON {t} (tenant, scope, subject, w)"
            for t in ("facts", "inputs", "rejections", "schemas")
        ),
        "CREATE INDEX anchors_by_subject ON anchors (tenant, scope, subject, writes)",
    ),
    # Each anchor counts its subject's rejections and schemas rows too (sealed with it).
    ("ALTER TABLE anchors ADD COLUMN tally TEXT",),
)
# The subject's tables an anchor counts (`tally`): a deleted row shows.
COUNTED = ("rejections", "schemas")
VERSION = len(STEPS)
PULL_ROWS = 20_000  # facts a node copies from the log in one window (PgLog.pull)


def is_url(text: str | None) -> bool:
    """True when text names a PostgreSQL database (postgresql://...)."""
    return bool(text) and text.startswith(SCHEME)  # type: ignore[union-attr]


def redact(url: str) -> str:
    """The URL without its password, for messages; names the log (two logs may live in
    one database, each in a schema of its own chosen by the connection's options)."""
    import psycopg

    info = psycopg.conninfo.conninfo_to_dict(url)
    host, port, db = info.get("host", "?"), info.get("port", "5432"), info.get("dbname", "?")
    options = info.get("options")
    return f"postgresql://{host}:{port}/{db}" + (f"?options={options}" if options else "")


class PgLog:
    """The shared log in one PostgreSQL database; thread-safe (a pool of connections)."""

    def __init__(self, url: str, *, max_size: int = 8):
        # psycopg is imported when a log in PostgreSQL is used, not by every process that
        # imports the store (a DuckDB workspace never needs it: ~16 MB, ~0.4 s).
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = url
        self.where = redact(url)
        try:  # one direct attempt first: a wrong URL fails at once, not after the pool's wait
            psycopg.connect(url, connect_timeout=10).close()
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise LogUnavailable(
                f"cannot reach the PostgreSQL log at {self.where} ({first}); "
                "check that the server runs and the URL is right"
            ) from None
        self.pool = ConnectionPool(
            url, min_size=1, max_size=max_size, open=True, name="uac-log", timeout=30
        )

    def close(self) -> None:
        """Close every pooled connection."""
        self.pool.close()

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor inside one transaction; connection failures become LogUnavailable."""
        import psycopg

        try:
            with self.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
                yield cur
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise LogUnavailable(
                f"the PostgreSQL log at {self.where} is unavailable ({first}); "
                "retry (a write that failed with this error was not acknowledged)"
            ) from None
        except psycopg.DataError as exc:
            if "NUL" not in str(exc):
                raise
            # PostgreSQL text cannot hold U+0000 (DuckDB can); the whole write is refused.
            raise InputError(
                "the text contains a NUL character (U+0000), which a log in PostgreSQL cannot "
                "store; remove it and retry (nothing was written)"
            ) from None

    # -- schema ----------------------------------------------------------------------------

    def migrate(self) -> int:
        """Create or upgrade the log's tables (all pending steps, one transaction)."""
        with self._tx() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtext('uac_migrate'))")
            found = self._version(cur)
            if found > VERSION:
                raise WorkspaceError(
                    f"the PostgreSQL log at {self.where} has schema version {found}, newer "
                    f"than this uac supports ({VERSION}); upgrade uac"
                )
            pg_schema.run_ddl(cur, STEPS[found:])
            if found < VERSION:
                cur.execute(
                    "INSERT INTO uac_meta VALUES ('schema_version', %s) ON CONFLICT (key)"
                    " DO UPDATE SET value = excluded.value",
                    [str(VERSION)],
                )
            pg_schema.migrate(cur)  # other layers' tables (jobs, alerts, outbox)
        return VERSION

    @staticmethod
    def _version(cur: psycopg.Cursor[Any]) -> int:
        cur.execute("SELECT to_regclass('uac_meta') IS NOT NULL")
        if not cur.fetchone()[0]:  # type: ignore[index]
            return 0
        cur.execute("SELECT value FROM uac_meta WHERE key = 'schema_version'")
        row = cur.fetchone()
        return int(row[0]) if row else 0

    def check_key(self, ring: KeyRing) -> None:
        """Refuse a node whose chain key is not the one that signs this log (first node sets it)."""
        message = "uac-log-key-check"
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO uac_meta VALUES ('key_check', %s) ON CONFLICT (key) DO NOTHING",
                [ring.sign(message)],
            )
            cur.execute("SELECT value FROM uac_meta WHERE key = 'key_check'")
            mac = cur.fetchone()[0]  # type: ignore[index]
        if not ring.check(message, mac):
            raise WorkspaceError(
                f"this workspace's chain key ({ring.path}) is not the key that signs the "
                f"PostgreSQL log at {self.where}; give every node the same key file "
                "(copy it, or point UAC_CHAIN_KEY_FILE at it)"
            )

    def version(self) -> int:
        """The schema version the database holds (0: no uac tables yet)."""
        with self._tx() as cur:
            return self._version(cur)

    # -- appending -------------------------------------------------------------------------

    def append(
        self,
        batches: Sequence[Batch],
        ring: KeyRing,
        slots: Sequence[write_keys.Slot | None] = (),
        *,
        one_run: bool = False,
    ) -> list[Prepared]:
        """Append batches in one transaction, each chained after its subject's head; with
        `one_run`, every batch carries the first one's run id (the parts of one write).
        `slots`: each batch's keyed request, recorded in the same transaction."""
        # A subject is covered in the commit when every batch of it wants no reaction.
        wanting = {_key(b.address) for b in batches if not b.covered}
        covered = {_key(b.address) for b in batches} - wanting
        with self._tx() as cur:
            heads = self._lock_heads(cur, {_key(b.address) for b in batches}, covered)
            out: list[Prepared] = []
            for i, batch in enumerate(batches):
                run = out[0].run_id if one_run and out else None
                out.append(self._append_one(cur, batch, ring, heads, run))
                write_keys.record_pg(cur, slots[i] if i < len(slots) else None, out[-1])
            at: dict[tuple[str, str, str], Any] = {}
            for p in out:
                key = _key(p.batch.address)
                at[key] = max(at.get(key, p.recorded), p.recorded)
            self._seal(cur, heads, at, ring)
        return out

    def append_stream(self, batches: Iterable[Batch], ring: KeyRing) -> int:
        """Append batches built one at a time as one run, in one transaction; their facts.

        For writes too big to hold at once (a large import): each batch goes to the server
        before the next is built, so only the batch in hand is held; an error from `batches`
        rolls everything back. Each collection's schema (every batch carries the schema of
        the write so far) is recorded once, as the last batch giving it gives it. A subject is
        locked as it first appears: `Store.append_stream` sends one subject a stream (two
        streams locking the same subjects in other orders could deadlock).
        """
        with self._tx() as cur:
            heads: dict[tuple[str, str, str], list[Any]] = {}
            schemas: dict[tuple[tuple[str, str, str], str], tuple[Address, Any, Any, Any]] = {}
            at: dict[tuple[str, str, str], Any] = {}
            run, facts = None, 0
            for batch in batches:
                key = _key(batch.address)
                if key not in heads:
                    heads.update(self._lock_heads(cur, {key}))
                # schemas are written once at the end: the batch in hand goes without them
                # (a copy: the caller's batch keeps its schema if the write is refused)
                prep = self._append_one(cur, replace(batch, schemas={}), ring, heads, run)
                run = run or prep.run_id
                batch.input_ids = [row[1] for row in prep.input_rows]
                first = batch.input_ids[0] if batch.input_ids else None
                for path, fields in batch.schemas.items():
                    schemas[key, path] = (batch.address, fields, first, prep.recorded)
                facts += len(prep.fact_rows)
                at[key] = max(at.get(key, prep.recorded), prep.recorded)
            if not heads:
                raise WorkspaceError("nothing to append: the write holds no batch")
            for (key, path), (addr, fields, first, recorded) in sorted(schemas.items()):
                self._write_schema(cur, ring, addr, path, fields, first, recorded, heads[key][4])
            self._seal(cur, heads, at, ring)
        return facts

    def _lock_heads(
        self,
        cur: psycopg.Cursor[Any],
        keys: set[tuple[str, str, str]],
        covered: set[tuple[str, str, str]] | None = None,
    ) -> dict[tuple[str, str, str], list[Any]]:
        """The subjects' chain heads, locked until the transaction ends; their jobs queued
        (and their reactions, or, for `covered` ones, the writes counted as covered)."""
        heads: dict[tuple[str, str, str], list[Any]] = {}
        for key in sorted(keys):  # sorted: two nodes locking the same subjects never deadlock
            cur.execute(
                "INSERT INTO chain_heads VALUES (%s, %s, %s, 0, %s, 0, 0, 0, NULL)"
                " ON CONFLICT DO NOTHING",
                [*key, GENESIS],
            )
            cur.execute(f"SELECT {', '.join(_HEAD)} FROM chain_heads WHERE {_SUBJECT}"
                        " FOR UPDATE", key)  # fmt: skip
            heads[key] = list(cur.fetchone())  # type: ignore[arg-type]
        pg_jobs.enqueue(cur, sorted(keys))  # in the write's transaction: no write without its job
        reactions.enqueue_pg(cur, keys, covered or ())  # and none without its reaction
        return heads

    @staticmethod
    def _seal(
        cur: psycopg.Cursor[Any],
        heads: dict[tuple[str, str, str], list[Any]],
        at: dict[tuple[str, str, str], Any],
        ring: KeyRing,
    ) -> None:
        """Store each subject's new chain head and anchor it (at its latest write's time)."""
        for key, (seq, link, facts, inputs, writes) in heads.items():
            state = [*key, seq, link, facts, inputs, writes]
            cur.execute(
                f"UPDATE chain_heads SET seq = %s, hash = %s, facts = %s, inputs = %s,"
                f" writes = %s, mac = %s WHERE {_SUBJECT}",
                [*state[3:], ring.sign(row_message("chain_heads", state)), *key],
            )
            anchor = [*state, at[key], _tally(cur, key)]
            cur.execute(
                f"INSERT INTO anchors ({_ANCHOR}, tally, mac)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [*anchor, ring.sign(row_message("anchors", anchor))],
            )

    def _append_one(
        self,
        cur: psycopg.Cursor[Any],
        batch: Batch,
        ring: KeyRing,
        heads: dict[tuple[str, str, str], list[Any]],
        run_id: str | None = None,
    ) -> Prepared:
        head = heads[_key(batch.address)]
        seqs = _numbers(cur, "uac_fact_seq", max(len(batch.facts), 1))
        input_seqs = _numbers(cur, "uac_input_seq", len(batch.inputs))
        run_seq = seqs[0] if run_id is None else int(run_id.removeprefix("run_"))
        prep = prepare(batch, ring, (head[0], head[1]), iter(seqs), iter(input_seqs), run_seq)
        head[4] += 1
        w = head[4]
        prep.writes = (w - 1, w)
        self._insert(cur, "inputs", prep.input_rows, w)
        self._insert(cur, "facts", prep.fact_rows, w)
        self._insert(cur, "rejections", prep.rejection_rows, w)
        first_input = prep.input_rows[0][1] if prep.input_rows else None
        for path, fields in sorted(batch.schemas.items()):
            row = self._write_schema(
                cur, ring, batch.address, path, fields, first_input, prep.recorded, w
            )
            if row is not None:
                prep.schema_rows.append(row)
        head[0], head[1] = prep.head
        head[2] += len(prep.fact_rows)
        head[3] += len(prep.input_rows)
        return prep

    def _write_schema(
        self,
        cur: psycopg.Cursor[Any],
        ring: KeyRing,
        addr: Address,
        path: str,
        fields: Any,
        first_input: str | None,
        recorded: Any,
        w: int,
    ) -> tuple[Any, ...] | None:
        """Record a collection's inferred schema when it differs from its latest version."""
        cur.execute(
            f"SELECT version, fields FROM schemas WHERE {_SUBJECT} AND path = %s"
            " ORDER BY version DESC LIMIT 1",
            [*_key(addr), path],
        )
        found = cur.fetchone()
        current = None if found is None else (found[0], loads(found[1]))
        row = schema_row(ring, addr, path, fields, current, first_input, recorded)
        if row is not None:
            self._insert(cur, "schemas", [row], w)
        return row

    @staticmethod
    def _insert(cur: psycopg.Cursor[Any], table: str, rows: list[tuple[Any, ...]], w: int) -> None:
        if not rows:
            return
        cols = TABLES[table]
        if len(rows) < 16:
            marks = ", ".join(["%s"] * (len(cols) + 1))
            cur.executemany(
                f"INSERT INTO {table} ({', '.join(cols)}, w) VALUES ({marks})",  # type: ignore[arg-type]
                [(*row, w) for row in rows],
            )
            return
        with cur.copy(f"COPY {table} ({', '.join(cols)}, w) FROM STDIN") as copy:  # type: ignore[arg-type]
            for row in rows:
                copy.write_row((*row, w))

    # -- reading ---------------------------------------------------------------------------

    def writes(self, tenant: str, addr: Address | None = None) -> dict[tuple[str, str], int]:
        """(scope, subject) -> how many writes the log holds, for a tenant or one subject."""
        sql = "SELECT scope, subject, writes FROM chain_heads WHERE tenant = %s"
        params: list[Any] = [tenant]
        if addr is not None:
            sql += " AND scope = %s AND subject = %s"
            params += [addr.scope, addr.subject]
        with self._tx() as cur:
            cur.execute(sql, params)  # type: ignore[arg-type]
            return {(scope, subject): n for scope, subject, n in cur.fetchall()}

    def pull(
        self, addr: Address, since: int, budget: int | None = None
    ) -> Iterator[tuple[int, dict[str, list[tuple[Any, ...]]], int]]:
        """A subject's rows written after its write number `since`, in windows of whole
        writes holding about `budget` facts each (a write bigger than that is one window):
        (the write number a window ends at, its rows, how many legal erasures of the subject
        the log holds); one empty window ending at `since` when the subject has no later
        write, none when it has none at all. A big import is many writes: a node catching
        up holds one window at a time, not the import."""
        key = _key(addr)
        with self._tx() as cur:
            cur.execute(
                f"SELECT writes, (SELECT count(*) FROM uac_erasures WHERE {_SUBJECT})"
                f" FROM chain_heads WHERE {_SUBJECT}",
                [*key, *key],
            )
            row = cur.fetchone()
            if row is None:
                return
            now, erased = row
            ends: list[int] = []
            if now > since:
                ends = self._windows(cur, key, since, now, budget or PULL_ROWS)
        if not ends:
            yield since, {}, erased
            return
        start = since
        for end in ends:
            with self._tx() as cur:
                out = {}
                for table, cols in TABLES.items():
                    cur.execute(
                        f"SELECT {', '.join(cols)} FROM {table} WHERE {_SUBJECT} AND w > %s"  # type: ignore[arg-type]
                        " AND w <= %s ORDER BY w",
                        [*key, start, end],
                    )
                    out[table] = cur.fetchall()
            yield end, out, erased
            start = end

    @staticmethod
    def _windows(
        cur: psycopg.Cursor[Any], key: tuple[str, str, str], since: int, now: int, budget: int
    ) -> list[int]:
        """The write numbers that end each window of whole writes of about `budget` facts."""
        cur.execute(
            f"SELECT w, count(*) FROM facts WHERE {_SUBJECT} AND w > %s AND w <= %s"
            " GROUP BY w ORDER BY w",
            [*key, since, now],
        )
        ends, held, previous = [], 0, since
        for w, n in cur.fetchall():
            if held and held + n > budget:
                ends.append(previous)
                held = 0
            held, previous = held + n, w
        return [*ends, now]

    def head_at(self, addr: Address, writes: int) -> tuple[int, str]:
        """How many facts a subject's first `writes` writes hold, and the last one's hash."""
        with self._tx() as cur:
            cur.execute(
                f"SELECT count(*), (SELECT hash FROM facts WHERE {_SUBJECT} AND w <= %s"
                f" ORDER BY seq DESC LIMIT 1) FROM facts WHERE {_SUBJECT} AND w <= %s",
                [*_key(addr), writes, *_key(addr), writes],
            )
            count, head = cur.fetchone()  # type: ignore[misc]
            return int(count), head or GENESIS

    def facts(self, addr: Address, since_seq: int = 0) -> list[tuple[Any, ...]]:
        """A subject's fact rows (FACT_COLUMNS order) after a seq, in chain order."""
        with self._tx() as cur:
            cur.execute(
                f"SELECT {', '.join(TABLES['facts'])} FROM facts WHERE {_SUBJECT} AND seq > %s"  # type: ignore[arg-type]
                " ORDER BY seq",
                [*_key(addr), since_seq],
            )
            return cur.fetchall()

    def anchors(self, every: bool = False) -> list[dict[str, Any]]:
        """The newest anchor of every subject (or all anchors), as JSON-ready dicts."""
        cols = f"{_ANCHOR}, mac, tally"
        sql = f"SELECT {cols} FROM anchors ORDER BY tenant, scope, subject, writes"
        if not every:
            sql = (
                f"SELECT DISTINCT ON (tenant, scope, subject) {cols} FROM anchors"
                " ORDER BY tenant, scope, subject, writes DESC"
            )
        names = cols.replace("recorded_at", "at").split(", ")
        with self._tx() as cur:
            cur.execute(sql)  # type: ignore[arg-type]
            rows = [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        for row in rows:
            row["at"] = row["at"].isoformat()
        return rows

    # -- verification ----------------------------------------------------------------------

    def verify(self, ring: KeyRing | None, anchor: dict[str, Any] | None = None) -> VerifyReport:
        """Walk every subject's chain against its signed head, then the other tables' digests.

        Given `anchor` (one exported with `uac anchor export`: a subject's seq and head),
        also check that the log still holds that head.
        """
        problems: list[str] = [] if anchor is None else self._against_export(anchor)
        checked = 0
        with self._tx() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            if gone := self._shape(cur):
                return VerifyReport(False, 0, problem=gone[0], problems=(*problems, *gone[1:]))
            cur.execute(
                f"SELECT tenant, scope, subject, {', '.join(_HEAD)}, mac FROM chain_heads"
                " ORDER BY tenant, scope, subject"
            )
            heads = cur.fetchall()
            erased = self._residuals(cur, ring)
            for tenant, scope, subject, *state, mac in heads:
                key = (tenant, scope, subject)
                label = f"{tenant}/{scope}:{subject}"
                if ring is not None and not ring.check(
                    row_message("chain_heads", [*key, *state]), mac
                ):
                    problems.append(f"the chain head of {label} does not match its keyed digest")
                broken = self._walk(cur, key, state, ring, erased)
                checked += broken[0]
                if broken[1] is not None:
                    _, seq, fid, why = broken
                    return VerifyReport(
                        False, checked, seq, fid, f"{label}: {why}", tuple(problems)
                    )
            if ring is not None:
                problems += self._sealed(cur, ring)
            problems += self._counted(cur, {tuple(h[:3]): h[7] for h in heads})
            cur.execute("SELECT count(*) FROM facts")
            total = cur.fetchone()[0]  # type: ignore[index]
            if total != checked:
                problems.append(
                    f"the log holds {total} facts but the subjects' chains hold {checked}"
                    " (rows inserted outside a chain)"
                )
        return VerifyReport(not problems, checked, problems=tuple(problems))

    def _against_export(self, anchor: dict[str, Any]) -> list[str]:
        try:
            key = (str(anchor["tenant"]), str(anchor["scope"]), str(anchor["subject"]))
            seq, head = int(anchor["seq"]), str(anchor["head"])
        except (KeyError, TypeError, ValueError):
            return ["the exported anchor names no subject, seq and head (export it from this log)"]
        label = f"{key[0]}/{key[1]}:{key[2]}"
        out = []
        with self._tx() as cur:
            # The subject's inputs and counted rows, cut together with its anchors and head?
            try:
                counted = {
                    t: int(n)
                    for t, n in {
                        "inputs": anchor.get("inputs") or 0,
                        **loads(anchor.get("tally") or "{}"),
                    }.items()
                    if t in ("inputs", *COUNTED)  # a name from the file is never put into SQL
                }
            except (ValueError, TypeError, AttributeError):
                return ["the exported anchor's counts are not readable (export it from this log)"]
            for table, n in sorted(counted.items()):
                cur.execute(f"SELECT count(*) FROM {table} WHERE {_SUBJECT}", key)  # type: ignore[arg-type]
                held = cur.fetchone()[0]  # type: ignore[index]
                if held < n:
                    out.append(
                        f"the exported anchor counts {n} {table} rows of {label} but the log"
                        f" holds only {held} (rows deleted)"
                    )
            if seq == 0:
                return out
            cur.execute(f"SELECT hash FROM facts WHERE {_SUBJECT} AND seq = %s", [*key, seq])
            row = cur.fetchone()
        if row is None:
            return [*out, f"the exported anchor's seq {seq} of {label} is gone (truncated)"]
        if row[0] != head:
            return [
                *out,
                f"fact seq {seq} of {label} does not have the exported anchor's head (rewritten)",
            ]
        return out

    @staticmethod
    def _walk(
        cur: psycopg.Cursor[Any],
        key: tuple[str, ...],
        state: list[Any],
        ring: KeyRing | None,
        erased: dict[int, tuple[str, str]],
    ) -> tuple[int, int | None, str | None, str | None]:
        """One subject's chain: (facts checked, seq, id, problem) of the first bad row."""
        seq, link, facts, inputs, _ = state
        cur.execute(
            f"SELECT {', '.join(TABLES['facts'])} FROM facts WHERE {_SUBJECT} ORDER BY seq",  # type: ignore[arg-type]
            key,
        )
        prev, last, n = GENESIS, 0, 0
        for row in cur.fetchall():
            why = fact_problem(row, prev, ring, erased)
            if why is None and row[0] <= last:
                why = "its sequence number does not increase along the chain"
            if why is not None:
                return n, row[0], row[1], why
            prev, last, n = row[-2], row[0], n + 1
        if n != facts or prev != link:
            return (
                n,
                seq,
                None,
                (
                    f"its head names {facts} facts ending at seq {seq} but the chain holds {n}"
                    " (facts deleted from the end or rewritten)"
                ),
            )
        cur.execute(f"SELECT count(*) FROM inputs WHERE {_SUBJECT}", key)
        held = cur.fetchone()[0]  # type: ignore[index]
        if held != inputs:
            return n, None, None, f"its head counts {inputs} inputs but the log holds {held}"
        return n, None, None, None

    @staticmethod
    def _residuals(cur: psycopg.Cursor[Any], ring: KeyRing | None) -> dict[int, tuple[str, str]]:
        """seq -> (content hash, residual) of legally erased facts (pg_erase.py) that verify."""
        cur.execute("SELECT to_regclass('uac_erased_rows') IS NOT NULL")
        if ring is None or not cur.fetchone()[0]:  # type: ignore[index]
            return {}
        cur.execute(
            f"SELECT {', '.join(ERASED_ROW_COLUMNS)}, mac FROM uac_erased_rows"  # type: ignore[arg-type]
            " WHERE tbl = 'facts'"
        )
        return verified_residuals(cur.fetchall(), ring)

    @staticmethod
    def _shape(cur: psycopg.Cursor[Any]) -> list[str]:
        """The tables and columns verification reads that are gone (dropped after an edit:
        a log without its digests must not pass as one whose digests verify)."""
        cur.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = ANY(%s)",
            [list(_VERIFIED)],
        )
        held: dict[str, set[str]] = {}
        for table, column in cur.fetchall():
            held.setdefault(table, set()).add(column)
        found = []
        for table, columns in _VERIFIED.items():
            if table not in held:
                found.append(f"{table}: the table is gone")
            elif missing := [c for c in columns if c not in held[table]]:
                found.append(f"{table}: its column(s) {', '.join(missing)} are gone")
        return found

    @staticmethod
    def _sealed(cur: psycopg.Cursor[Any], ring: KeyRing) -> list[str]:
        """The first row per table whose keyed digest does not verify."""
        found = []
        for table in ("inputs", "rejections", "schemas"):
            cols = TABLES[table]
            cur.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY w")  # type: ignore[arg-type]
            for row in cur.fetchall():
                if not ring.check(row_message(table, row[:-1]), row[-1]):
                    found.append(f"{table}: row {row[0]} does not match its keyed digest (edited)")
                    break
        cur.execute(
            f"SELECT {_ANCHOR}, tally, mac FROM anchors ORDER BY tenant, scope, subject, writes"
        )
        for *values, tally, mac in cur.fetchall():
            if tally is not None:  # anchors written before the tally sign without it
                values.append(tally)
            if not ring.check(row_message("anchors", values), mac):
                found.append(f"anchors: the anchor of {values[2]} write {values[7]} was edited")
                break
        return found

    @staticmethod
    def _counted(cur: psycopg.Cursor[Any], writes: dict[tuple[Any, ...], int]) -> list[str]:
        """Subjects whose newest anchor is not their last write (anchors deleted), or whose
        rejections or schemas rows do not number what that anchor counted (rows deleted or
        added). `writes`: each subject's write count, from its signed chain head."""
        cur.execute(
            "SELECT DISTINCT ON (tenant, scope, subject) tenant, scope, subject, writes, tally"
            " FROM anchors ORDER BY tenant, scope, subject, writes DESC"
        )
        newest = {tuple(row[:3]): row[3:] for row in cur.fetchall()}
        held: dict[tuple[Any, ...], dict[str, int]] = {}
        for table in COUNTED:
            cur.execute(f"SELECT tenant, scope, subject, count(*) FROM {table} GROUP BY 1, 2, 3")  # type: ignore[arg-type]
            for *key, n in cur.fetchall():
                held.setdefault(tuple(key), {})[table] = n
        out = []
        for key, n in sorted(writes.items()):
            label = f"{key[0]}/{key[1]}:{key[2]}"
            last, tally = newest.get(key, (0, None))
            if n and last != n:
                out.append(
                    f"the newest anchor of {label} is of write {last} but its chain head counts"
                    f" {n} writes (anchors deleted)"
                )
            counted = {} if tally is None else loads(tally)
            for table in counted:
                rows = held.get(key, {}).get(table, 0)
                if rows != counted[table]:
                    how = "deleted" if rows < counted[table] else "added outside uac"
                    out.append(
                        f"{table} of {label}: its newest anchor counts {counted[table]} rows but"
                        f" the log holds {rows} (rows {how})"
                    )
        return out


def _tally(cur: psycopg.Cursor[Any], key: tuple[str, str, str]) -> str:
    """How many rows of each counted table a subject holds, as the JSON its anchor records."""
    cur.execute(
        "SELECT " + ", ".join(f"(SELECT count(*) FROM {t} WHERE {_SUBJECT})" for t in COUNTED),  # type: ignore[arg-type]
        [*key] * len(COUNTED),
    )
    counts = cur.fetchone()
    return canonical_json(dict(zip(COUNTED, counts, strict=True)))  # type: ignore[arg-type]


def _key(addr: Address) -> tuple[str, str, str]:
    return (addr.tenant, addr.scope, addr.subject)


def _numbers(cur: psycopg.Cursor[Any], sequence: str, n: int) -> list[int]:
    """n fresh numbers from a sequence, increasing."""
    if n == 0:
        return []
    cur.execute(f"SELECT nextval('{sequence}') FROM generate_series(1, %s)", [n])  # type: ignore[arg-type]
    return sorted(row[0] for row in cur.fetchall())
