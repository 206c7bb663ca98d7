"""Digests of a subject's state, from the fold or from the generated objects.

Both sides must give the same digests for the round-trip check: the generated modules,
imported in isolation (compiler/validator.py), have to rebuild exactly the state the fold
computed. A part (a group, a collection, the notes) is digested as the `repr` of its rows —
tuples of field values in sorted field-name order — because `repr` shows types as well as
values (`Decimal('1.0')`, `datetime.date(...)`, `'1.0'`) and is computed in C.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any


def rows_digest(rows: Any) -> str:
    """SHA-256 of the repr of a part's rows."""
    return hashlib.sha256(repr(rows).encode("utf-8")).hexdigest()


def _getter(cls: type) -> Callable[[Any], Any]:
    names = sorted(f.name for f in dataclasses.fields(cls))
    get = attrgetter(*names)
    if len(names) == 1:  # attrgetter of one name returns the value, not a 1-tuple
        return lambda obj: (get(obj),)
    return get


def object_parts(user: Any, names: list[str]) -> dict[str, str]:
    """Digest of the named top-level parts (group, collection, notes) of a generated `user`."""
    out = {}
    for name in names:
        value = getattr(user, name)
        if isinstance(value, tuple):
            rows = tuple(map(_getter(type(value[0])), value)) if value else ()
        elif isinstance(value, Mapping):  # the scope and aging maps: path -> scope / day / days
            rows = tuple(sorted(value.items()))
        else:
            rows = _getter(type(value))(value)
        out[name] = rows_digest(rows)
    return out


CONSTRAINTS = "constraints.py"  # the part naming the checks and compiled rules


def constraints_digest(checks: Any, rules: Any) -> str:
    """Digest of what a constraints module offers: its check names and its rule names."""
    return rows_digest((tuple(checks), tuple(sorted(rules))))


def package_parts(package: Any, names: list[str]) -> dict[str, str]:
    """`object_parts` of the package's `user`, plus the constraints part when asked for."""
    out = object_parts(package.state.user, [n for n in names if n != CONSTRAINTS])
    if CONSTRAINTS in names:
        mod = package.constraints
        out[CONSTRAINTS] = constraints_digest(mod.CHECKS, mod.RULES)
    return out


def to_json(value: Any) -> Any:
    """A JSON-ready view of typed state: records as dicts, dates ISO, Decimals as exact text."""
    import datetime as dt
    from decimal import Decimal

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((to_json(v) for v in value), key=repr)
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    return value
