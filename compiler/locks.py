"""Per-subject locks: one compile, check or reaction of a subject at a time in a process.

Two compiles of one subject at once would race for the same version number and temporary
directories; a check running while that subject compiles would read a half-updated state of
its alerts. Every such step holds its subject's lock. The locks are re-entrant (a reaction
compiles and then checks under one hold) and several are always taken in sorted order, so
threads never deadlock. Only subjects in use have a lock object (weakly held).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from uac.fact_log.addressing import Address


class SubjectLock:
    """A re-entrant lock for one subject of one workspace."""

    __slots__ = ("__weakref__", "_lock")

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def __enter__(self) -> SubjectLock:
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


_LOCKS: weakref.WeakValueDictionary[tuple[str, str], SubjectLock] = weakref.WeakValueDictionary()
_GUARD = threading.Lock()


def subject_lock(home: Path, addr: Address) -> SubjectLock:
    """The lock of one subject of the workspace at home (the same object while in use)."""
    key = (str(home), str(addr))
    with _GUARD:
        lock = _LOCKS.get(key)
        if lock is None:
            lock = SubjectLock()
            _LOCKS[key] = lock
        return lock


@contextmanager
def subjects_locked(home: Path, addresses: Iterable[Address]) -> Iterator[None]:
    """Hold the locks of several subjects, taken in sorted order (no deadlock)."""
    with ExitStack() as stack:
        for addr in sorted(set(addresses), key=str):
            stack.enter_context(subject_lock(home, addr))
        yield
