"""A read-only look at a workspace's log that answers a statement it answered before, while
the log's files are unchanged, from a cache beside the workspace instead of DuckDB.

A local read (runtime/api/lean_reads.py) runs a few statements over the DuckDB file; asking
them costs DuckDB's engine (~15–20 ms to import), an open and a close (~13 ms whatever the
file's size) and the statements, about 2x a bare interpreter, each time the same statement
gets the same rows. `CachedLog` stands for that
connection (`execute(sql, params)` with `description`, `fetchall`, `fetchone`): a
statement's rows read from the log are kept in `<home>/cache/rows/<sha256>.json`, and a
later look answers that statement from the file when all of this holds (the rules of the
freshness stamp, fact_log/freshness.py):

- its MAC verifies under the workspace's chain key (a file outside the database): it
  covers the statement, its parameters (the tenant and subject among them), the log's
  state and the rows, so an entry edited, made without the key, or kept for another
  statement, subject or tenant does not verify;
- the log's files (the DuckDB file and its write-ahead log: device, inode, size,
  modification and change times in nanoseconds) are as they were when this look began,
  and as they were before the rows were read. Every commit, by any process or tool,
  writes one of the two files, so any write since makes every entry stale.

Rows are kept only when the log was quiet (its files unchanged for `freshness.QUIET_S`)
when the look began, and only when the files were still unchanged after the connection
opened (a read-only connection holds the file against writers while it is open). A look
that served an entry and then finds the files changed when it must open the log raises
`Changed`: its caller starts again without the cache, so one answer never mixes two
states of the log. Cells are kept as JSON with their types (times, dates, decimals); a
statement whose cells are of any other kind, or whose parameters are, is never kept.
Writing an entry is best effort; any doubt means "ask the log". An erasure deletes every
entry (`freshness.drop`), as it deletes the stamps.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from uac.fact_log import freshness
from uac.fact_log.chain_keys import KeyRing
from uac.fact_log.rwlock import Rows

ROWS = freshness.ROWS  # under the workspace home
# A statement's rows are kept only up to this size: parsing a bigger entry (a subject of
# hundreds of thousands of records) costs more than DuckDB's engine and open.
MAX_BYTES = 4 << 20
# Entries kept at most: past it, a write deletes the least recently written quarter (a
# bound on the disk the cache takes, whatever the statements asked: one per subject, path
# or day).
MAX_ENTRIES = 512

# Cell kinds kept besides JSON's own (str, int, float, bool, None): name, write, read.
_KINDS: dict[type, tuple[str, Callable[[Any], Any]]] = {
    dt.datetime: ("datetime", dt.datetime.isoformat),
    dt.date: ("date", dt.date.isoformat),
    Decimal: ("decimal", str),
}
_READ: dict[str, Callable[[str], Any]] = {
    "datetime": dt.datetime.fromisoformat,
    "date": dt.date.fromisoformat,
    "decimal": Decimal,
}
_WRITE: dict[str, Callable[[Any], Any]] = {name: write for name, write in _KINDS.values()}
_NATIVE = frozenset({str, int, float, bool, type(None)})


class Changed(Exception):
    """The log changed after this look served rows from the cache: start again without it."""


def _answer(names: list[str], rows: list[tuple[Any, ...]]) -> Rows:
    """A statement's answer, as a cursor shows it (`description`'s names only)."""
    return Rows(rows, [(name, None, None, None, None, None, None) for name in names])


def _param(value: Any) -> Any:
    if type(value) in _NATIVE:
        return value
    if type(value) in (list, tuple):  # an array parameter (`?::VARCHAR[]`)
        return [_param(v) for v in value]
    kind = _KINDS.get(type(value))
    if kind is None:
        raise TypeError(type(value).__name__)
    return {kind[0]: kind[1](value)}


def _kinds(names: list[str], rows: list[tuple[Any, ...]]) -> list[str | None] | None:
    """Each column's kind (None: JSON's own cells), or None when a column is not keepable."""
    out: list[str | None] = []
    for i in range(len(names)):
        types = {type(row[i]) for row in rows} - {type(None)}
        if types <= _NATIVE:
            out.append(None)
        elif len(types) == 1 and (kind := _KINDS.get(types.pop())) is not None:
            if kind[0] == "datetime" and any(r[i] is not None and r[i].tzinfo for r in rows):
                return None  # only naive times (the log's TIMESTAMP columns)
            out.append(kind[0])
        else:
            return None
    return out


class CachedLog:
    """A read-only look at the log at `home`; `connect` opens the real connection (on the
    first statement the cache cannot answer). `cache=False`: always the log."""

    def __init__(
        self,
        home: Path,
        ring: KeyRing | None,
        connect: Callable[[], Any],
        cache: bool = True,
    ):
        self.home = Path(home)
        self.ring = ring
        self._connect = connect
        self._con: Any = None
        self.state = freshness.log_state(self.home)  # before anything is read
        self.cache = cache and ring is not None and self.state[0] is not None
        self._keep = self.cache and freshness.quiet(self.state, time.time_ns())
        self.served = 0  # statements answered from the cache

    # -- the connection's calls ---------------------------------------------------------

    def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> Any:
        """The statement's rows: from the cache when it may answer, else from the log."""
        key = self._key(sql, parameters) if self.cache else None
        if key is not None:
            found = self._read(*key)
            if found is not None:
                self.served += 1
                return found
        cur = self.connection().execute(sql, parameters)
        if key is None or not self._keep or cur.description is None:
            return cur
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
        self._write(*key, names, rows)
        return _answer(names, rows)

    def connection(self) -> Any:
        """The real connection, opened on first use (see the module's docstring)."""
        if self._con is None:
            self._con = self._connect()
            if freshness.log_state(self.home) != self.state:
                self._keep = False  # written to since the look began: keep nothing
                if self.served:
                    raise Changed
        return self._con

    def close(self) -> None:
        """Close the real connection if it was opened."""
        if self._con is not None:
            self._con.close()
            self._con = None

    # -- entries ----------------------------------------------------------------------------

    def _key(self, sql: str, parameters: Sequence[Any] | None) -> tuple[Path, str] | None:
        try:
            params = json.dumps([_param(p) for p in parameters or ()], separators=(",", ":"))
        except (TypeError, ValueError):
            return None  # a parameter of another kind: never kept
        head = json.dumps([sql, params], separators=(",", ":"))
        name = hashlib.sha256(head.encode()).hexdigest()[:40] + ".json"
        return self.home / ROWS / name, head

    def _stamp(self, head: str) -> str:
        state = [list(part or ()) for part in self.state]
        return head + "\n" + json.dumps(state, separators=(",", ":")) + "\n"

    def _read(self, path: Path, head: str) -> Rows | None:
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        mac, _, body = raw.partition(b"\n")
        stamp = self._stamp(head).encode()
        ring = self.ring
        if not body.startswith(stamp) or ring is None:
            return None  # another statement's entry, or an older state of the log
        if not ring.check(b"rows:" + body, mac.decode("ascii", "replace")):
            return None
        try:
            names, kinds, cells = json.loads(body[len(stamp) :])
            columns = [list(c) for c in zip(*cells, strict=True)] if cells else []
            for i, kind in enumerate(kinds):
                if kind is not None and columns:
                    read = _READ[kind]
                    columns[i] = [None if c is None else read(c) for c in columns[i]]
            rows = list(zip(*columns, strict=True)) if columns else []
        except (ValueError, TypeError, KeyError):
            return None
        return _answer(names, rows)

    def _write(self, path: Path, head: str, names: list[str], rows: list[tuple[Any, ...]]) -> None:
        kinds = _kinds(names, rows)
        ring = self.ring
        if kinds is None or ring is None:
            return
        writes = [None if k is None else _WRITE[k] for k in kinds]
        cells = [
            [c if w is None or c is None else w(c) for c, w in zip(row, writes, strict=True)]
            for row in rows
        ]
        body = self._stamp(head).encode() + json.dumps([names, kinds, cells]).encode()
        if len(body) > MAX_BYTES:
            return
        tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(ring.sign(b"rows:" + body).encode() + b"\n" + body)
            os.replace(tmp, path)
            _bound(path.parent)
        except OSError:
            tmp.unlink(missing_ok=True)


def _bound(folder: Path) -> None:
    """Delete the least recently written quarter of the entries when there are more than
    MAX_ENTRIES (best effort: another process may delete or write at the same time)."""
    names = os.listdir(folder)
    if len(names) <= MAX_ENTRIES:
        return
    written = []
    for name in names:
        try:
            written.append((os.stat(folder / name).st_mtime_ns, name))
        except OSError:
            continue
    for _, name in sorted(written)[: len(written) - MAX_ENTRIES * 3 // 4]:
        (folder / name).unlink(missing_ok=True)
