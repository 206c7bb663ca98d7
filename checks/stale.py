"""Which values of a compiled state are stale on a day (catalog `stale_after_days`).

The compiled state records when each such value was last asserted (`user.as_of`) and after
how many days it counts as stale (`user.stale_after_days`). The staleness check
(checks/library/staleness.py) asks about each one; a context block lists them to confirm
(runtime/search/context.py), without importing the library of checks.
"""

from __future__ import annotations

import datetime as dt
from typing import Any


def stale_paths(user: Any, today: dt.date) -> list[tuple[str, dt.date, int, int]]:
    """(object path, as_of, limit in days, age in days) of every value stale on `today`."""
    as_of = getattr(user, "as_of", {}) or {}
    limits = getattr(user, "stale_after_days", {}) or {}
    out = []
    for path, day in sorted(as_of.items()):
        limit = limits.get(path)
        age = (today - day).days
        if limit is not None and age > limit:
            out.append((path, day, limit, age))
    return out
