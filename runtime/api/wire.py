"""A verb's JSON answer: `plain(result)` makes it, `decode` reads it back into the type
`Memory` returns (for the `Client`).

The server answers with `verbs.plain(result)`: dataclasses as dicts, dates ISO, Decimals as
text, addresses as 'user:alice'. `decode(annotation, data)` inverts that, guided by the
method's return annotation (a string such as "list[Fact]"): each dataclass is rebuilt from
its fields (unknown keys, such as the alerts a write's answer names, are left out), dates
and times parsed, addresses parsed within the answer's tenant.

Standard library only at import; the result types load on the first answer that needs them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import importlib
import json
import re
import types
import typing
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path, PurePath
from typing import Any

from uac.fact_log.addressing import Address


def decode(annotation: str, data: Any, where: dict[str, str], tenant: str | None) -> Any:
    """`data` (plain JSON) as the type `annotation` names; `where`: type name -> module."""
    return _as(_resolve(annotation, tuple(sorted(where.items()))), data, tenant or "default")


@functools.lru_cache(maxsize=256)
def _resolve(annotation: str, where: tuple[tuple[str, str], ...]) -> Any:
    names: dict[str, Any] = {"dt": dt, "Any": Any, "Path": Path, "Sequence": Sequence}
    used = set(re.findall(r"[A-Za-z_]\w*", annotation))
    for name, module in where:
        if name in used:
            names[name] = getattr(importlib.import_module(module), name)
    return eval(annotation, names)


def _as(tp: Any, data: Any, tenant: str) -> Any:
    if data is None or tp is Any or tp is object:
        return data
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        for option in options[:-1]:
            try:
                return _as(option, data, tenant)
            except (TypeError, ValueError, KeyError):
                continue
        return _as(options[-1], data, tenant)
    if origin is typing.Literal:
        return data
    if origin in (list, Sequence):
        (item,) = typing.get_args(tp) or (Any,)
        return [_as(item, x, tenant) for x in data]
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_as(args[0], x, tenant) for x in data)
        return tuple(_as(a, x, tenant) for a, x in zip(args, data, strict=True))
    if origin is dict:
        _, value = typing.get_args(tp) or (str, Any)
        return {k: _as(value, v, tenant) for k, v in data.items()}
    if tp is dt.datetime:
        return dt.datetime.fromisoformat(data)
    if tp is dt.date:
        return dt.date.fromisoformat(data[:10])
    if tp is Decimal:
        return Decimal(str(data))
    if tp is Path:
        return Path(data)
    if tp is float and isinstance(data, int | float):
        return float(data)
    if isinstance(tp, type) and tp.__name__ == "Address":  # 'user:alice' in the tenant
        from uac.fact_log.addressing import parse_subject

        return parse_subject(data, tenant)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp, data, tenant)
    return data


def _dataclass(cls: type, data: dict[str, Any], tenant: str) -> Any:
    data = dict(data)
    names = {f.name for f in dataclasses.fields(cls)}
    if "value_json" in names:  # a fact: its value and evidence travel decoded
        for name in ("value", "evidence"):
            value = data.pop(name, None)
            data[f"{name}_json"] = None if value is None else json.dumps(value)
    if "address" in names and "address" not in data and "subject" in data:  # an alert
        data["address"] = data["subject"]
        tenant = data.get("tenant") or tenant
    hints = typing.get_type_hints(cls)
    given = {
        f.name: _as(hints[f.name], data[f.name], tenant)
        for f in dataclasses.fields(cls)
        if f.init and f.name in data
    }
    return cls(**given)


_AS_IS = frozenset({str, int, bool, type(None)})


def plain(value: Any) -> Any:
    """A JSON-ready view of a verb's result (facts and alerts as dicts, dates ISO)."""
    if type(value) in _AS_IS:  # most values of a long listing: answered first
        return value
    if isinstance(value, Address | PurePath):
        return str(value)
    if hasattr(value, "as_dict") and callable(value.as_dict):
        return plain(value.as_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return None
    return value
