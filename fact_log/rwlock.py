"""Many threads on one DuckDB database, safe while the file is swapped under them.

Every thread reads and writes through its own cursor of the workspace's one database
instance. A legal erase ends by rewriting the file (fact_log/erase.py `compact_file`), which
closes every cursor to swap the fresh file in: a thread in the middle of a statement, between
a statement and its fetch, or inside a transaction would fail ("connection already closed")
or lose a write committed while the file was being copied.

So every statement goes through the store's `Gate` as a reader: `GatedConnection.execute`
runs the statement and fetches its rows before it leaves the gate, and a transaction holds
the gate from BEGIN to COMMIT or ROLLBACK. The swap takes the gate exclusively: it waits for
the statements and transactions in flight and holds new ones back until the fresh file is
in; they then run on a fresh cursor of the new file. A long scan reads in chunks inside the
gate (`GatedConnection.stream`).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # annotations only: a read that imports this never starts the package
    import duckdb

_BEGIN = frozenset({"BEGIN", "START"})
_END = frozenset({"COMMIT", "END", "ROLLBACK", "ABORT"})
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_WORD = re.compile(r"\s*(\w*)")


def _kind(sql: str) -> str:
    """A transaction statement's first word (BEGIN, COMMIT, ...), else ''; refuses a string
    holding it and more statements (the gate follows a transaction by its BEGIN and end)."""
    bare = _COMMENTS.sub(" ", sql) if "--" in sql or "/*" in sql else sql
    word = _WORD.match(bare).group(1).upper()  # type: ignore[union-attr]
    if word not in _BEGIN | _END:
        return ""
    if bare.strip().rstrip(";").count(";"):
        raise ValueError("a transaction statement must be sent alone, one per execute()")
    return word


class Gate:
    """A readers-writer lock: many statements at once, or one file swap.

    Readers are reentrant per thread (a statement inside a transaction) and never wait for
    a swap that is only waiting: the swap starts at a moment no statement is inside. So a
    thread that holds some other lock inside the gate can never deadlock with one that
    waits for that lock before its next statement, and one long scan delays only the swap,
    never the other threads.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._swapping = False
        self._local = threading.local()

    def held(self) -> bool:
        """Whether this thread is inside the gate."""
        return getattr(self._local, "depth", 0) > 0

    def enter(self) -> None:
        """Enter as a reader (waits only while a swap runs)."""
        depth = getattr(self._local, "depth", 0)
        if depth == 0:
            with self._cond:
                while self._swapping:
                    self._cond.wait()
                self._readers += 1
        self._local.depth = depth + 1

    def leave(self) -> None:
        """Leave as a reader."""
        depth = self._local.depth - 1
        self._local.depth = depth
        if depth == 0:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the gate as a reader for the block."""
        self.enter()
        try:
            yield
        finally:
            self.leave()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Run the block with no reader inside (starts once none is)."""
        if self.held():
            raise RuntimeError("a thread inside a statement or transaction cannot swap the file")
        with self._cond:
            while self._swapping or self._readers:
                self._cond.wait()
            self._swapping = True
        try:
            yield
        finally:
            with self._cond:
                self._swapping = False
                self._cond.notify_all()


class Cursor(Protocol):
    """A statement's result: what `Connection.execute` returns (a DuckDB cursor or Rows)."""

    def fetchone(self) -> tuple[Any, ...] | None: ...

    def fetchall(self) -> list[tuple[Any, ...]]: ...

    def fetchmany(self, size: int = 1) -> list[tuple[Any, ...]]: ...


def one(rows: Cursor) -> tuple[Any, ...]:
    """The row of a statement that always returns one (an aggregate, a scalar subquery)."""
    row = rows.fetchone()
    if row is None:
        raise RuntimeError("a statement that returns one row returned none")
    return row


class Connection(Protocol):
    """What the log's SQL helpers need of a connection: a DuckDB connection or cursor, or the
    store's GatedConnection (every statement inside the store's gate)."""

    def execute(self, sql: str, parameters: Any = None, /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Any, /) -> Cursor: ...


class Rows:
    """A statement's result, fetched whole inside the gate (DuckDB's fetch methods)."""

    __slots__ = ("_at", "_rows", "description")

    def __init__(self, rows: list[tuple[Any, ...]], description: Any) -> None:
        self._rows = rows
        self._at = 0
        self.description = description

    def fetchone(self) -> tuple[Any, ...] | None:
        """The next row, or None."""
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchmany(self, size: int = 1) -> list[tuple[Any, ...]]:
        """Up to `size` next rows."""
        out = self._rows[self._at : self._at + size]
        self._at += len(out)
        return out

    def fetchall(self) -> list[tuple[Any, ...]]:
        """The remaining rows."""
        out = self._rows[self._at :] if self._at else self._rows
        self._at = len(self._rows)
        return out


class GatedConnection:
    """The store's connection as every thread sees it: each call runs inside the gate on the
    calling thread's own cursor (`cursor()` gives it, fresh after a swap; `new_cursor()` one
    for a scan)."""

    def __init__(
        self,
        gate: Gate,
        cursor: Callable[[], duckdb.DuckDBPyConnection],
        new_cursor: Callable[[], duckdb.DuckDBPyConnection],
    ) -> None:
        self._gate = gate
        self._cursor = cursor
        self._new_cursor = new_cursor
        self._local = threading.local()  # whether this thread's transaction holds the gate

    def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> Rows:
        """Run one statement; its rows are fetched before the gate is left."""
        word = _kind(sql)
        if word in _BEGIN:
            self._begin(lambda cur: cur.execute(sql))
            return Rows([], None)
        if word in _END:
            self._end(lambda cur: cur.execute(sql))
            return Rows([], None)
        with self._gate.reading():
            cur = self._cursor()
            cur.execute(sql, parameters)
            described = cur.description
            return Rows(cur.fetchall() if described is not None else [], described)

    def arrow(self, sql: str, parameters: Sequence[Any] | None = None) -> Any:
        """Run one query; its result as an Arrow table."""
        with self._gate.reading():
            return self._cursor().execute(sql, parameters).to_arrow_table()

    def numpy(self, sql: str, parameters: Sequence[Any] | None = None) -> dict[str, Any]:
        """Run one query; its columns as NumPy arrays."""
        with self._gate.reading():
            return self._cursor().execute(sql, parameters).fetchnumpy()

    def executemany(self, sql: str, parameters: Sequence[Sequence[Any]]) -> Rows:
        """Run one statement for each parameter row."""
        with self._gate.reading():
            self._cursor().executemany(sql, parameters)
        return Rows([], None)

    @contextlib.contextmanager
    def stream(
        self, sql: str, parameters: Sequence[Any] | None = None, size: int = 10_000
    ) -> Iterator[Iterator[tuple[Any, ...]]]:
        """A long scan read in chunks of `size` rows, inside the gate for the block.

        It reads on a cursor of its own (outside the thread's transaction, if one is open),
        so statements the block runs meanwhile cannot end the scan's pending result.
        """
        with self._gate.reading():
            cur = self._new_cursor()
            try:
                yield _chunks(cur.execute(sql, parameters), size)
            finally:
                cur.close()

    def register(self, name: str, data: object) -> None:
        """Register a view of Arrow data on this thread's cursor (under the write lock)."""
        with self._gate.reading():
            self._cursor().register(name, data)

    def unregister(self, name: str) -> None:
        """Drop a view `register` made."""
        with self._gate.reading():
            self._cursor().unregister(name)

    def begin(self) -> None:
        """Start a transaction on this thread's cursor."""
        self._begin(lambda cur: cur.begin())

    def commit(self) -> None:
        """Commit this thread's transaction."""
        self._end(lambda cur: cur.commit())

    def rollback(self) -> None:
        """Roll back this thread's transaction."""
        self._end(lambda cur: cur.rollback())

    def _begin(self, run: Callable[[duckdb.DuckDBPyConnection], object]) -> None:
        self._gate.enter()  # held until the transaction ends: no swap in the middle of it
        try:
            run(self._cursor())
        except BaseException:
            self._gate.leave()
            raise
        self._local.open = getattr(self._local, "open", 0) + 1

    def _end(self, run: Callable[[duckdb.DuckDBPyConnection], object]) -> None:
        try:
            with self._gate.reading():
                run(self._cursor())
        except BaseException:
            # A failed COMMIT ends the transaction in DuckDB too; a failed ROLLBACK had none.
            self._release()
            raise
        self._release()

    def _release(self) -> None:
        if getattr(self._local, "open", 0):
            self._local.open -= 1
            self._gate.leave()


@contextlib.contextmanager
def scan(
    con: Connection,
    sql: str,
    parameters: Sequence[Any] | None = None,
    size: int = 10_000,
) -> Iterator[Iterator[tuple[Any, ...]]]:
    """A long scan's rows in chunks, from the store's connection or a plain DuckDB one."""
    if isinstance(con, GatedConnection):
        with con.stream(sql, parameters, size) as rows:
            yield rows
    else:
        yield _chunks(con.execute(sql, parameters), size)


def _chunks(cur: Cursor, size: int) -> Iterator[tuple[Any, ...]]:
    while chunk := cur.fetchmany(size):
        yield from chunk
