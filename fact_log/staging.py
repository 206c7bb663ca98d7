"""A write too big to hold at once (a large import), staged and then moved into the log.

A mixin of `Store` (fact_log/store.py): `append_stream` chains each batch a slice at a time
into staging tables named for the write, committed as it goes, and moves them into the log
in one final transaction. All or nothing: what a failed or killed write staged never
reaches the log (a killed one's staging is dropped at the next writable open).
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from uac.fact_log.addressing import Address
from uac.fact_log.backends import reactions
from uac.fact_log.chain import Batch, slices, utc_naive
from uac.fact_log.duck import give_back_memory
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.rwlock import Connection, GatedConnection

if TYPE_CHECKING:
    import duckdb
else:  # the engine the package re-exports, without its __init__ (fact_log/duck.py)
    from uac.fact_log.duck import duckdb

# `append_stream` stages a big write in tables named _stage_<id>_<table> (see there).
_STAGE = "_stage_"
_STAGED = ("inputs", "facts", "rejections")
# DuckDB's buffer pool keeps every committed block cached up to its memory limit (80% of
# RAM by default): during a staged write it is held this low so the staged chunks, already on
# disk, are evicted rather than kept (200k records: 594 MB peak without, 404 MB with 64MB).
# A checkpoint (DuckDB's, at a commit) must fit a batch's rows in it, or the instance is
# invalidated (a FATAL error): big batches (an 8 MiB chunk of near-1-MiB records) raise it
# to _STREAM_MEMORY_PER_MIB times their text.
_STREAM_MEMORY_LIMIT = "64MB"
_STREAM_MEMORY_PER_MIB = 16
# ... and each batch is chained and staged this many facts at a time: the prepared rows and
# their Arrow table are the part of a batch's working set the store adds (200k records in
# 10,000-record batches: 392 MB peak staged whole).
_STREAM_SLICE = 1_000


class Staging:
    """`Store.append_stream`: one run appended batch by batch through staging tables."""

    # Provided by Store.
    home: Any
    read_only: bool
    backend: Any
    write_lock: threading.RLock
    _head: tuple[int, str] | None
    _input_seq: int | None
    if TYPE_CHECKING:

        @property
        def con(self) -> GatedConnection: ...

    signer: Callable[[], Any]

    def append_stream(self, batches: Iterable[Batch]) -> int:
        """Append batches built one at a time as one run, all or nothing; returns the facts.

        For writes too big to hold at once (a large import): each batch is chained and
        committed into staging tables named for this write (readers never look at them)
        before the next is built, so neither this process nor DuckDB holds more than about
        one batch uncommitted; one final transaction moves the staged rows into the log
        (`INSERT ... SELECT`, which DuckDB writes out by row group) and drops the staging.
        A collection schema given by several batches (each carrying the schema of the write
        so far) is recorded once, as the last of them gives it.
        An error from `batches` (a bad record found late) drops the staging and leaves the
        log as it was; a killed process leaves staging tables the next writable open drops.
        Other writers wait for the whole write (building the batches included): a write
        that fits in one batch should go through `append` (group commit). A stream holds one
        subject (an import's): on a shared log each subject is locked as it first appears,
        and two streams over the same subjects in other orders could deadlock there.
        """
        if self.read_only:
            raise WorkspaceError(f"workspace {self.home} was opened read-only")
        seen: list[Address] = []
        return self.backend.append_stream(_one_subject(batches, seen), seen)

    def _stream_into_file(self, batches: Iterable[Batch]) -> int:
        """`append_stream` on the DuckDB log (backends/duckdb.py): staged, then moved."""
        facts = 0
        with self.write_lock:
            heads = self._load_heads()
            run_seq = heads[0][0] + 1
            stage = {t: f"{_STAGE}{uuid.uuid4().hex[:12]}_{t}" for t in _STAGED}
            # Only what the schema rows need (holding the batches would hold every record):
            # per collection, the schema the last batch giving one gave, and that batch's input.
            schemas: dict[tuple[Address, str], tuple[dict[str, Any], str | None, Any]] = {}
            recorded: Any = None
            written: set[Address] = set()  # the subjects whose reaction the write queues
            con = self.con
            limit, threads = con.execute(
                "SELECT current_setting('memory_limit'), current_setting('threads')"
            ).fetchone()
            con.execute(f"SET memory_limit = '{_STREAM_MEMORY_LIMIT}'")
            try:
                for table, staged in stage.items():
                    con.execute(f"CREATE TABLE {staged} AS SELECT * FROM {table} LIMIT 0")
                floor = int(_STREAM_MEMORY_LIMIT.removesuffix("MB"))
                for batch in batches:
                    text = sum(len(item.content) for item in batch.inputs)
                    need = _STREAM_MEMORY_PER_MIB * ((text >> 20) + 1)  # MB
                    if need > floor:
                        floor = need
                        con.execute(f"SET memory_limit = '{floor}MB'")
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
                    written.add(batch.address)
                    recorded = utc_naive(batch.recorded_at)
                    first = ids[0] if ids else None
                    for path, fields in batch.schemas.items():
                        schemas[batch.address, path] = (fields, first, recorded)
                if recorded is None:
                    raise WorkspaceError("nothing to append: the write holds no batch")
                del batch, part, prep  # the last batch's records: not held through the move
                give_back_memory()
                con.execute("SET threads = 1")  # one thread's buffers for the move
                con.execute("BEGIN")
                for table, staged in stage.items():
                    con.execute(f"INSERT INTO {table} SELECT * FROM {staged}")
                    con.execute(f"DROP TABLE {staged}")
                for (addr, path), (fields, first_input, at) in sorted(schemas.items()):
                    self._write_schemas(addr, {path: fields}, first_input, at)
                reactions.enqueue(con, written)  # the write's reaction, same transaction
                self._anchor(heads, recorded)
                con.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(duckdb.Error):  # not in a transaction: nothing to undo
                    con.execute("ROLLBACK")
                self._head = self._input_seq = None  # re-read the heads on the next append
                drop_stages(con, list(stage.values()))
                raise
            finally:
                con.execute(f"SET memory_limit = '{limit}'")
                con.execute(f"SET threads = {int(threads)}")
            self._head, self._input_seq = heads
        return facts


def _one_subject(batches: Iterable[Batch], seen: list[Address]) -> Iterator[Batch]:
    """The batches, noting the first one's subject in `seen`; another subject is refused."""
    for batch in batches:
        if not seen:
            seen.append(batch.address)
        elif batch.address != seen[0]:
            raise WorkspaceError(
                f"a streamed write holds one subject: {batch.address} came after {seen[0]}; "
                "append each subject's stream on its own"
            )
        yield batch


def drop_stages(con: Connection, names: Sequence[str] | None = None) -> None:
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
