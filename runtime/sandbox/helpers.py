"""Helpers for the aggregates agents most often get wrong, usable in and out of the sandbox.

Every helper takes `key` (or `value`, `date_field`) either as a field name (`"category"`) or
as a one-argument callable (`lambda t: t.date.year`). Field names are resolved only against
dataclass fields of the record, never with a general `getattr`, so a name like `__class__`
is refused. Results are deterministic: dicts are ordered by key ascending (`None` last;
mixed, unorderable keys keep first-seen order) and lists keep the input order.

Examples (on a subject's typed state `user`)::

    count_by(user.trips, "country")                      # {'DE': 3, 'JP': 4, ...}
    sum_by(user.transactions, "category", "amount")      # {'dining': Decimal('812.40'), ...}
    top_k(user.trips, "cost", 3)                         # three most expensive trips
    top_k(count_by(user.trips, "country"), None, 1)      # [('JP', 4)]: most visited country
    window(user.transactions, "date", date(2024, 1, 1), date(2024, 3, 31))  # Q1 2024, inclusive
    sum_by(user.transactions, lambda t: t.date.year, "amount")              # spend per year
    {m: len(ts) for m, ts in by_month(user.trips, "depart").items()}       # {'2022-03': 2, ...}

Tie rule of `top_k`: items are ranked by their key, largest first (`smallest=True` reverses
that); equal keys are broken by the item's identity ascending — a record's `key` field, a
pair's first element (so `top_k` over a Counter/dict breaks ties by the dict key), else the
item's position in the input — so the answer never depends on input order for records.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import heapq
from collections.abc import Callable, Iterable, Mapping
from typing import Any

Key = str | Callable[[Any], Any] | None


def field_value(item: Any, name: str) -> Any:
    """Value of a dataclass field of item by name; refuses anything that is not a field."""
    fields = getattr(type(item), "__dataclass_fields__", None)
    if not isinstance(name, str) or name.startswith("_") or not fields or name not in fields:
        raise AttributeError(f"{type(item).__name__} has no field {name!r}")
    return getattr(item, name)


def make_helpers(attr: Callable[[Any, str], Any] = field_value) -> dict[str, Callable[..., Any]]:
    """The helper functions, resolving field names with `attr` (the sandbox passes its guard)."""

    def resolve(key: Key) -> Callable[[Any], Any]:
        if key is None:
            return lambda item: item
        if isinstance(key, str):
            return lambda item: attr(item, key)
        if callable(key):
            return key
        raise TypeError("key must be a field name or a one-argument function")

    def ordered(groups: dict[Any, Any]) -> dict[Any, Any]:
        # None sorts last; keys that cannot be compared keep first-seen order.
        try:
            keys = sorted(groups, key=lambda k: (k is None, k if k is not None else 0))
        except TypeError:
            return groups
        return {k: groups[k] for k in keys}

    def group_by(items: Iterable[Any], key: Key) -> dict[Any, list[Any]]:
        """Items grouped by key: {key: [items in input order]}, keys ascending."""
        get = resolve(key)
        groups: dict[Any, list[Any]] = {}
        for item in items:
            groups.setdefault(get(item), []).append(item)
        return ordered(groups)

    def count_by(items: Iterable[Any], key: Key) -> dict[Any, int]:
        """How many items per key, keys ascending."""
        get = resolve(key)
        counts: dict[Any, int] = {}
        for item in items:
            k = get(item)
            counts[k] = counts.get(k, 0) + 1
        return ordered(counts)

    def sum_by(items: Iterable[Any], key: Key, value: Key) -> dict[Any, Any]:
        """Sum of value per key (None values skipped; exact for Decimal), keys ascending."""
        get, val = resolve(key), resolve(value)
        sums: dict[Any, Any] = {}
        for item in items:
            v = val(item)
            if v is None:
                continue
            k = get(item)
            sums[k] = sums[k] + v if k in sums else v
        return ordered(sums)

    def top_k(items: Iterable[Any], key: Key, k: int = 1, *, smallest: bool = False) -> list[Any]:
        """The k items with the largest key (ties: identity ascending); None keys excluded."""
        if isinstance(items, Mapping):
            items = list(items.items())
            if key is None:
                key = lambda pair: pair[1]  # noqa: E731 - a Counter ranks by its counts
        get = resolve(key)
        scored = []
        for pos, item in enumerate(items):
            v = get(item)
            if v is not None:
                scored.append((v, pos, item))
        k = max(0, int(k))
        if not scored or not k:
            return []
        # Only items scoring at least the k-th best can make the cut (O(n log k)); those are
        # then ordered by identity ascending and, stably, by score in the wanted direction.
        pick = heapq.nsmallest if smallest else heapq.nlargest
        edge = pick(k, (s[0] for s in scored))[-1]
        cut = [s for s in scored if (s[0] <= edge if smallest else s[0] >= edge)]
        ranked = [(s[0], _identity(s[2], s[1]), s[2]) for s in cut]
        with contextlib.suppress(TypeError):  # mixed identities keep input order
            ranked.sort(key=lambda s: s[1])
        ranked.sort(key=lambda s: s[0], reverse=not smallest)
        return [s[2] for s in ranked[:k]]

    def window(
        items: Iterable[Any], date_field: Key, start: dt.date | None, end: dt.date | None
    ) -> list[Any]:
        """Items whose date lies in [start, end] (both inclusive; None = open), input order."""
        get = resolve(date_field)
        out = []
        for item in items:
            d = _as_date(get(item))
            if d is None or (start is not None and d < start) or (end is not None and d > end):
                continue
            out.append(item)
        return out

    def by_month(items: Iterable[Any], date_field: Key) -> dict[str, list[Any]]:
        """Items grouped by 'YYYY-MM' of a date field, months ascending; undated items dropped."""
        get = resolve(date_field)
        groups: dict[str, list[Any]] = {}
        for item in items:
            d = _as_date(get(item))
            if d is not None:
                groups.setdefault(f"{d.year:04d}-{d.month:02d}", []).append(item)
        return ordered(groups)

    def by_year(items: Iterable[Any], date_field: Key) -> dict[int, list[Any]]:
        """Items grouped by year of a date field, years ascending; undated items dropped."""
        get = resolve(date_field)
        groups: dict[int, list[Any]] = {}
        for item in items:
            d = _as_date(get(item))
            if d is not None:
                groups.setdefault(d.year, []).append(item)
        return ordered(groups)

    return {
        "group_by": group_by,
        "count_by": count_by,
        "sum_by": sum_by,
        "top_k": top_k,
        "window": window,
        "by_month": by_month,
        "by_year": by_year,
    }


def _identity(item: Any, pos: int) -> Any:
    fields = getattr(type(item), "__dataclass_fields__", None)
    if fields is not None and "key" in fields:
        return (0, item.key)
    if type(item) is tuple and item and isinstance(item[0], str | int | dt.date):
        return (0, item[0])
    return (1, pos)


def _as_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if value is None:
        return None
    raise TypeError(f"expected a date, got {type(value).__name__}")


_DEFAULT = make_helpers()
group_by = _DEFAULT["group_by"]
count_by = _DEFAULT["count_by"]
sum_by = _DEFAULT["sum_by"]
top_k = _DEFAULT["top_k"]
window = _DEFAULT["window"]
by_month = _DEFAULT["by_month"]
by_year = _DEFAULT["by_year"]
