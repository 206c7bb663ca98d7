"""Opening DuckDB files offline: extension loading and readable lock/permission errors."""

from __future__ import annotations

import functools
import gc
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    # The engine the `duckdb` package re-exports (`duckdb.connect is _duckdb.connect`): its
    # package's __init__ also reads its own version through importlib.metadata, ~45 ms of a
    # local read's start (docs/runtime.md, What a read loads). The package when absent.
    import _duckdb as duckdb
except ImportError:  # pragma: no cover (a DuckDB whose engine is named otherwise)
    import duckdb  # type: ignore[no-redef]

from uac.fact_log.errors import WorkspaceError, WorkspaceInUse


class _PandasAbsent:
    """A meta path finder that says at once that pandas cannot be imported.

    `find_spec` answers None, as any finder that does not know a name: a library asking
    whether pandas exists (`importlib.util.find_spec("pandas")`, as transformers does) hears
    "no" and goes on. Only an `import pandas` is cut short: asked by the import system's own
    loading step, the finder raises the ModuleNotFoundError that import would end in anyway,
    without walking sys.path first. Were that step ever renamed, the finder only answers
    None: imports get slower, never wrong.
    """

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        """None for every name; for an `import pandas`, the import's failure at once."""
        if name == "pandas" and sys._getframe(2).f_code.co_name == _IMPORTING:
            raise ModuleNotFoundError("No module named 'pandas'", name="pandas")
        return None


# The import system's step that looks a module up to load it (CPython's importlib._bootstrap):
# `importlib.util.find_spec` reaches the finders through `_find_spec` too, but not from it.
_IMPORTING = "_find_and_load_unlocked"


def _fail_fast_without_pandas() -> None:
    """Make DuckDB's per-parameter `import pandas` attempts fail at once when it is absent.

    DuckDB's Python client tries `import pandas` for every bound parameter (two attempts
    each) and does not remember the failure; each attempt walks sys.path (~74 per
    `Memory.set`, about half its time). A finder placed first refuses the import at once with
    the same ModuleNotFoundError (and answers a mere look-up with None). Not None in
    sys.modules: pyarrow takes a "pandas" key there to mean pandas is imported. Nothing is
    installed when pandas is importable.
    """
    if "pandas" not in sys.modules and importlib.util.find_spec("pandas") is None:
        sys.meta_path.insert(0, _PandasAbsent())


_fail_fast_without_pandas()
_LOCK = re.compile(r"Conflicting lock is held in (?P<prog>.+?) \(PID (?P<pid>\d+)\)")


HOLDER_SHOWN = 120  # characters of the holder's command line an error message quotes


def _holder(message: str) -> str:
    """The process holding the lock, with its command line on one line (`python -c` scripts
    and arguments may hold newlines and control characters)."""
    match = _LOCK.search(message)
    if not match:
        return "another process"
    pid = match.group("pid")
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        cmd = raw.decode(errors="replace")
    except OSError:
        cmd = match.group("prog")
    cmd = " ".join("".join(c if c.isprintable() else " " for c in cmd).split())
    return f"process {pid} ({cmd})" if cmd else f"process {pid}"


def _shown(holder: str) -> str:
    """The holder as an error message quotes it: at most HOLDER_SHOWN characters."""
    if len(holder) <= HOLDER_SHOWN:
        return holder
    return holder[: HOLDER_SHOWN - 2].rstrip() + "…)"


def connect(path: Path, read_only: bool, threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """Open a DuckDB file with network extension loading disabled; errors name the cause.

    `threads`: DuckDB's worker threads (default: one per core); a short read on one thread
    spends less CPU than on idle workers it wakes."""
    config: dict[str, Any] = {
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
    }
    if threads is not None:
        config["threads"] = threads
    try:
        con = duckdb.connect(str(path), read_only=read_only, config=config)
    except duckdb.IOException as exc:
        message = str(exc)
        if "lock" in message.lower():
            holder = _holder(message)
            raise WorkspaceInUse(
                f"workspace {path.parent} is in use by {_shown(holder)}; wait for it to finish "
                "or stop it",
                holder,
            ) from None
        raise WorkspaceError(
            f"cannot open workspace {path.parent}: {_first_line(message)}"
        ) from None
    except duckdb.Error as exc:
        raise WorkspaceError(
            f"cannot open workspace {path.parent}: {_first_line(str(exc))}"
        ) from None
    return con


# Workspace files this process has seen bound to a PostgreSQL log. A binding is never undone,
# so a read-only open of one connects writable at once (it must: fact_log/store.py) instead of
# probing read-only first; the open still checks, should the file have been replaced.
_BOUND: set[str] = set()


def remember_bound(path: Path) -> None:
    """Record that the DuckDB file at path is bound to a PostgreSQL log."""
    _BOUND.add(str(path.resolve()))


def known_bound(path: Path) -> bool:
    """Whether this process has seen the file at path bound to a PostgreSQL log."""
    return str(path.resolve()) in _BOUND


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "unknown error"


# "Is the subject stale?" and "may its checkpoint be served?": plain statements over any
# connection, in fact_log/queries.py so a read that answers them without DuckDB's engine
# (runtime/api/lean_reads.py over fact_log/read_cache.py) need not import this module.
from uac.fact_log.queries import CHANGED_SQL, is_changed, served_problem  # noqa: E402, F401


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    import ctypes  # on the first long write: a read never loads it

    try:  # glibc only; elsewhere nothing to do
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


def give_back_memory() -> None:
    """Return the C heap's free pages to the system (glibc `malloc_trim`), where there is one.

    A long write frees what each batch used, but the allocator keeps the pages: the next
    step's peak (a staged write's final move) then starts from the high-water mark.
    """
    gc.collect()  # cycles among the freed objects would keep their pages
    if (trim := _malloc_trim()) is not None:
        trim(0)
