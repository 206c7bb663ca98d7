"""Typed shapes of list and object fields: what the templates render them as, and the
fold-side value of a nested object.

A `TypeShape` is the compiler's view of a field's type when it is more than one scalar: a
list becomes `tuple[ITEM, ...]`, an object a nested frozen dataclass generated in schema.py
(named after its collection and field). The fold cannot use the generated classes (they do
not exist yet), so it builds `Struct` values instead: a `Struct` compares like the generated
dataclass and has the same `repr`, which is what the round-trip digest of a checkpoint is
made of (compiler/canonical.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from uac.fact_log.values import json_default

SCALAR_ANNOTATIONS = {
    "str": "str",
    "int": "int",
    "float": "float",
    "money": "Decimal",
    "decimal": "Decimal",
    "date": "datetime.date",
    "datetime": "datetime.datetime",
    "bool": "bool",
    "json": "str",  # JSON text: a list or object of a schema inferred before shapes existed
    "none": "str",  # no type evidence yet (only empty lists or nulls seen)
}
# How a value stored as JSON text in a records file becomes its Python type.
CONVERTERS = {
    "date": "datetime.date.fromisoformat",
    "datetime": "datetime.datetime.fromisoformat",
    "money": "Decimal",
    "decimal": "Decimal",
}


@dataclass(frozen=True, slots=True)
class Member:
    """One field of a nested object: its Python name, its name in the data, its shape."""

    name: str
    source: str
    shape: TypeShape
    description: str = ""  # from the catalog; inferred members have none


@dataclass(frozen=True, slots=True)
class TypeShape:
    """The type of a value: a scalar kind, a list of an item shape, or an object class."""

    kind: str  # a scalar type name, "list" or "object"
    item: TypeShape | None = None  # list
    nulls: bool = False  # list: items may be None
    class_name: str = ""  # object
    members: tuple[Member, ...] = ()  # object
    description: str = ""  # object: its class docstring

    @property
    def annotation(self) -> str:
        """The Python type as source text."""
        if self.kind == "list":
            assert self.item is not None
            return f"tuple[{self.item.annotation}{' | None' if self.nulls else ''}, ...]"
        if self.kind == "object":
            return self.class_name
        return SCALAR_ANNOTATIONS[self.kind]

    @property
    def text(self) -> str:
        """The type as short text for docstrings and the manifest."""
        if self.kind == "list":
            assert self.item is not None
            return f"list[{self.item.text}{' | None' if self.nulls else ''}]"
        if self.kind == "object":
            return self.class_name
        return {"json": "JSON text", "none": "str"}.get(self.kind, self.kind)

    def objects(self) -> Iterator[TypeShape]:
        """Every object shape inside this one (itself included), innermost first."""
        if self.kind == "list":
            assert self.item is not None
            yield from self.item.objects()
        elif self.kind == "object":
            for member in self.members:
                yield from member.shape.objects()
            yield self

    def annotations(self) -> Iterator[str]:
        """Annotations of this shape and of every member inside it (for import decisions)."""
        yield self.annotation
        if self.item is not None:
            yield from self.item.annotations()
        for member in self.members:
            yield from member.shape.annotations()


class Struct:
    """A nested object on the fold side: equal to, and with the repr of, its dataclass.

    `row` is its form in a records JSON file (the non-null fields by Python name), built
    once here so that the fold memo keeps it and rendering only encodes it.
    """

    __slots__ = ("row", "shape", "values")

    def __init__(self, shape: TypeShape, values: tuple[Any, ...]):
        self.shape, self.values = shape, values
        self.row = {m.name: v for m, v in zip(shape.members, values, strict=True) if v is not None}

    def __repr__(self) -> str:
        inner = ", ".join(
            f"{m.name}={v!r}" for m, v in zip(self.shape.members, self.values, strict=True)
        )
        return f"{self.shape.class_name}({inner})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Struct):
            return NotImplemented
        return (self.shape.class_name, self.values) == (other.shape.class_name, other.values)

    def __hash__(self) -> int:
        return hash((self.shape.class_name, self.values))


def has_structure(shape: TypeShape | None) -> bool:
    """Whether values of this shape hold nested objects (records JSON needs `row_default`)."""
    return shape is not None and any(True for _ in shape.objects())


def row_default(obj: Any) -> Any:
    """JSON encoder hook for records files: a `Struct` is written as its `row`."""
    if type(obj) is Struct:
        return obj.row
    return json_default(obj)


def converter(shape: TypeShape, expr: str, depth: int = 0) -> str:
    """Source text turning `expr` (a non-null JSON cell) into a value of this shape."""
    if shape.kind == "object":
        return f"{reader_name(shape)}({expr})"
    if shape.kind == "list":
        assert shape.item is not None
        var = f"v{depth}"
        inner = converter(shape.item, var, depth + 1)
        if inner == var:
            return f"tuple({expr})"
        if shape.nulls:
            inner = f"None if {var} is None else {inner}"
        return f"tuple({inner} for {var} in {expr})"
    conv = CONVERTERS.get(shape.kind)
    return f"{conv}({expr})" if conv else expr


def optional_converter(shape: TypeShape, expr: str, required: bool = False) -> str:
    """`converter`, for a cell that may be null unless required."""
    conv = converter(shape, expr)
    if conv == expr or required:
        return conv
    return f"None if {expr} is None else {conv}"


def reader_name(shape: TypeShape) -> str:
    """Name of the generated function that builds one nested object from its JSON dict."""
    return f"_read_{shape.class_name}"
