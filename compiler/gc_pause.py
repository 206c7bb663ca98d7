"""Pause Python's cyclic garbage collector around allocation-heavy, acyclic work.

Folding a subject and importing its generated records allocate many small containers that
live on; that triggers full collections, which walk every live object of the process —
including the facts and fold memo the compile cache keeps (about a third of a warm
10,000-fact compile, and as much again when the checks load the new checkpoint). Reference
counting still frees everything acyclic meanwhile; the collector runs again right after,
and is left alone if the host had turned it off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block (re-enabled after if it was on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
