"""What one ranking pass searches (subject, filters, time windows, depth) and SQL helpers.

Shared by the lexical and dense lists and the indexer: the filters every list applies, and
the way numbers and terms reach SQL as one bound string.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from uac.runtime.search import timeq


@dataclass(frozen=True, slots=True)
class Scope:
    """What one ranking pass searches: a subject, filters, time windows, list depth."""

    sid: int
    kind: str | None
    since: dt.datetime | None
    windows: tuple[timeq.Window, ...]
    depth: int


def sql_filters(alias: str, scope: Scope) -> tuple[str, list[Any]]:
    """The WHERE fragment (hidden items, kind, since, time windows) and its parameters."""
    sql = (
        f" AND {alias}.doc NOT IN (SELECT doc FROM search_hidden WHERE sid = ? AND doc IS NOT NULL)"
    )
    params: list[Any] = [scope.sid]
    if scope.kind is not None:
        sql += f" AND {alias}.kind = ?"
        params.append(scope.kind)
    if scope.since is not None:
        sql += f" AND {alias}.at_ts >= ?"
        params.append(scope.since)
    if scope.windows:
        sql += (
            " AND ("
            + " OR ".join(f"({alias}.at_ts >= ? AND {alias}.at_ts < ?)" for _ in scope.windows)
            + ")"
        )
        params.extend(x for w in scope.windows for x in w)
    return sql, params


def literal(numbers: list[float] | list[int]) -> str:
    """Numbers we computed as one SQL list literal, to bind as a string and cast."""
    # Binding a Python list converts element by element and costs ~20 ms for 256 floats.
    return "[" + ",".join(repr(x) for x in numbers) + "]"


def quoted(words: list[str]) -> str:
    """[a-z0-9]+ words as one SQL list literal (quoted so that e.g. "null" stays a string)."""
    return "[" + ", ".join(f"'{w}'" for w in words) + "]"


def as_datetime(moment: dt.date | dt.datetime | None) -> dt.datetime | None:
    """A date or datetime as a naive UTC datetime (None stays None)."""
    if moment is None:
        return None
    if isinstance(moment, dt.datetime):
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
        return moment
    return dt.datetime(moment.year, moment.month, moment.day)
