"""Inferred shapes: the type of an imported field, nested lists and objects included.

An inferred schema maps each field of an unknown collection to a shape descriptor, plain
JSON so it can be stored in the `schemas` table and compared by value:

- a scalar type name: `str`, `int`, `decimal`, `bool`, `date`, `datetime`;
- `none`: only nulls (or nothing) seen so far — no type evidence;
- `{"list": ITEM}` with `"nulls": true` when some item was null;
- `{"object": {FIELD: SHAPE, ...}}` (keys sorted; a null field value is no evidence).

Widening (`widen_shape`) is what makes every record of a collection fit one schema: lists
widen their items, objects take the union of their fields, `int`+`decimal` → `decimal`,
`date`+`datetime` → `datetime`, and anything else that disagrees → `str` (the compiler keeps
a non-text value there as its canonical JSON text). Schemas recorded before shapes existed
hold `list` / `json` for any list / object; those read as JSON text until new evidence
arrives, which replaces them.
"""

from __future__ import annotations

from typing import Any

from uac.fact_log.values import infer_scalar, widen

Shape = str | dict[str, Any]
NONE = "none"
MAX_DEPTH = 32  # lists/objects nested deeper are refused: no one means 33 levels of classes
LEGACY = {"list": "list", "json": "object"}  # pre-shape descriptors -> the shape they stood for


class BadShape(ValueError):
    """A value cannot be given a shape (too deep, or an object key that is not text)."""


def infer_shape(value: Any, from_text: bool = False, depth: int = 0) -> tuple[Shape, Any]:
    """Return (shape, value to store) for one imported value (text parsed when from_text).

    Lists and objects are stored as they came: their scalars are typed by the compiler
    against the shape, so the log keeps the user's exact input.
    """
    if value is None:
        return NONE, None
    if isinstance(value, list | dict) and depth >= MAX_DEPTH:
        raise BadShape(f"nests lists or objects deeper than {MAX_DEPTH} levels")
    if isinstance(value, list):
        item: Shape = NONE
        for v in value:
            if v is not None:
                item = widen_shape(item, infer_shape(v, depth=depth + 1)[0])
        return list_shape(item, any(v is None for v in value)), value
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise BadShape("has an object whose keys are not all text")
        fields = {k: infer_shape(v, depth=depth + 1)[0] for k, v in value.items() if v is not None}
        return {"object": dict(sorted(fields.items()))}, value
    return infer_scalar(value, from_text)


def list_shape(item: Shape, nulls: bool = False) -> dict[str, Any]:
    """The descriptor of a list of `item` (nulls: some items may be None)."""
    return {"list": item, "nulls": True} if nulls else {"list": item}


def widen_shape(a: Shape | None, b: Shape) -> Shape:
    """The narrowest shape that holds values of both shapes."""
    if a is None or a in (NONE, b):
        return b
    if b == NONE:
        return a
    ka, kb = kind(a), kind(b)
    if isinstance(a, str) and a in LEGACY and LEGACY[a] == kb:
        return b  # a pre-shape schema: the new evidence says what the value holds
    if isinstance(b, str) and b in LEGACY and LEGACY[b] == ka:
        return a
    if isinstance(a, dict) and isinstance(b, dict) and ka == kb:
        if ka == "list":
            return list_shape(
                widen_shape(a["list"], b["list"]), bool(a.get("nulls") or b.get("nulls"))
            )
        merged = dict(a["object"])
        for name, shape in b["object"].items():
            merged[name] = widen_shape(merged.get(name), shape)
        return {"object": dict(sorted(merged.items()))}
    if isinstance(a, dict) or isinstance(b, dict) or a in LEGACY or b in LEGACY:
        return "str"
    return widen(a, b)


def kind(shape: Shape) -> str:
    """`list`, `object`, or the scalar type name of a shape."""
    if isinstance(shape, dict):
        return "list" if "list" in shape else "object"
    return shape


def describe(shape: Shape) -> str:
    """A shape as short text for people: `list[int]`, `{name str, dose decimal}`."""
    if isinstance(shape, str):
        return {"list": "list (JSON text)", "json": "object (JSON text)"}.get(shape, shape)
    if "list" in shape:
        return f"list[{describe(shape['list'])}{' | None' if shape.get('nulls') else ''}]"
    return "{" + ", ".join(f"{k} {describe(v)}" for k, v in shape["object"].items()) + "}"
