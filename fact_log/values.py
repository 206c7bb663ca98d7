"""Canonical JSON for fact values and type inference for collections the catalog lacks."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from decimal import Decimal
from typing import Any


def _default(obj: Any) -> Any:
    if isinstance(obj, dt.datetime):
        return obj.isoformat()
    if isinstance(obj, dt.date):
        return obj.isoformat()
    if isinstance(obj, Decimal):
        # Money stays exact: a Decimal is stored as its string, the catalog gives the type.
        return str(obj)
    if isinstance(obj, set | frozenset):
        return sorted(obj)
    raise TypeError(f"cannot encode {type(obj).__name__} as JSON")


# Module-level codecs: json.dumps/json.loads with options build a new codec on every call.
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default
)
_DECODER = json.JSONDecoder(parse_float=Decimal)
json_string = json.encoder.encode_basestring  # type: ignore[attr-defined]
json_default = _default  # the same hook for an encoder that also knows other types


def canonical_json(obj: Any) -> str:
    """Serialise obj deterministically: sorted keys, no spaces, dates ISO, Decimals exact."""
    return _ENCODER.encode(obj)


def digest_cell(value: Any) -> str:
    """One value as a JSON array element of a row digest (fact_log/chain_keys.py
    `row_message`): text JSON, times ISO, floats and Decimals as their text."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return json_string(value)
    if isinstance(value, dt.date):  # datetime too
        return json_string(value.isoformat())
    if isinstance(value, float | Decimal):
        return json_string(repr(value) if isinstance(value, float) else str(value))
    return canonical_json(value)


def sha256(text: str) -> str:
    """Hex SHA-256 of a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def loads(text: str) -> Any:
    """Parse JSON keeping non-integer numbers exact as Decimal."""
    return _DECODER.decode(text)


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$"
)
_INT = re.compile(r"^[+-]?\d{1,18}$")
_DECIMAL = re.compile(r"^[+-]?\d+\.\d+$")

# Widening order when values of one field disagree: int -> decimal, date -> datetime,
# anything else mixed -> str.
_WIDEN = {
    frozenset({"int", "decimal"}): "decimal",
    frozenset({"date", "datetime"}): "datetime",
}


def infer_scalar(value: Any, from_text: bool) -> tuple[str, Any]:
    """Return (type name, parsed value) for one value; text values are parsed when from_text."""
    if isinstance(value, bool):
        return "bool", value
    if isinstance(value, int):
        return "int", value
    if isinstance(value, Decimal | float):
        return "decimal", Decimal(str(value))
    if isinstance(value, list):
        return "list", value
    if isinstance(value, dict):
        return "json", value
    if isinstance(value, str):
        text = value.strip()
        if _DATE.match(text):
            try:
                return "date", dt.date.fromisoformat(text)
            except ValueError:
                return "str", value
        if _DATETIME.match(text):
            try:
                return "datetime", dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                return "str", value
        if from_text:
            if _INT.match(text):
                return "int", int(text)
            if _DECIMAL.match(text):
                return "decimal", Decimal(text)
            if text.lower() in ("true", "false"):
                return "bool", text.lower() == "true"
        return "str", value
    return "str", str(value)


def widen(a: str | None, b: str) -> str:
    """The narrowest type that holds values of both types a and b."""
    if a is None or a == b:
        return b
    return _WIDEN.get(frozenset({a, b}), "str")
