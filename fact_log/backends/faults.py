"""Storage faults told apart from bugs: a full disk, a failing device, a database gone.

A write that fails because the storage cannot take it is not the caller's mistake and not
a bug: the service answers it plainly (507 when the disk or the database is full, 503 for
other storage failures) and says whether the write was saved. `storage_fault` recognises
such an error from either backend — an `OSError` with a storage errno, a DuckDB error whose
message is an I/O failure (DuckDB reports a full disk as "Failed to commit: Could not write
file ...: No space left on device"), a PostgreSQL error whose SQLSTATE is of class 53
(insufficient resources) or 58 (system error) — looking through the chain of errors that
raised it. It never imports psycopg: PostgreSQL errors are known by their `sqlstate`.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb
else:  # the engine the package re-exports, without its __init__ (fact_log/duck.py)
    from uac.fact_log.duck import duckdb

# errno values that mean the storage is full, or failing under the workspace.
FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
FAILING = frozenset({errno.EIO, errno.EROFS, errno.ENODEV, errno.ENXIO, errno.ESTALE})
_FULL_WORDS = ("no space left", "disk full", "disk quota", "file too large")
_IO_WORDS = ("could not write file", "could not read file", "could not fsync", "i/o error")


@dataclass(frozen=True, slots=True)
class Fault:
    """A storage error: whether the storage is full, and its cause in one line."""

    full: bool
    cause: str

    @property
    def status(self) -> int:
        """The HTTP status that says it: 507 (insufficient storage) or 503."""
        return 507 if self.full else 503

    def sentence(self, what: str = "the workspace's storage") -> str:
        """The error as one sentence for the caller."""
        if self.full:
            return f"{what} is full ({self.cause}); free space, then retry"
        return f"{what} failed ({self.cause}); retry once it is repaired"


def storage_fault(exc: BaseException) -> Fault | None:
    """The storage fault behind an error (it or what caused it), or None for anything else."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = _one(current)
        if found is not None:
            return found
        current = current.__cause__ or current.__context__
    return None


def _one(exc: BaseException) -> Fault | None:
    text = _first_line(exc)
    if isinstance(exc, OSError) and exc.errno is not None:
        if exc.errno in FULL:
            return Fault(True, text)
        if exc.errno in FAILING:
            return Fault(False, text)
        return None
    state = getattr(exc, "sqlstate", None)  # psycopg's errors
    if isinstance(state, str) and state[:2] in ("53", "58"):
        return Fault(state[:2] == "53", text)
    if isinstance(exc, duckdb.Error):
        lowered = text.lower()
        if any(w in lowered for w in _FULL_WORDS):
            return Fault(True, text)
        if isinstance(exc, duckdb.IOException) or any(w in lowered for w in _IO_WORDS):
            return Fault(False, text)
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
