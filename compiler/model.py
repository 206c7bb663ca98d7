"""The typed model of one subject: what the fold produces and the templates render.

It is built from the catalog (plus inferred schemas) and filled by the fold. The same
structure is what `canonical_state` turns into canonical JSON, on the fold side and from
the generated module, to check the round trip.
"""

from __future__ import annotations

import datetime as dt
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import partial
from typing import Any

from uac.compiler.shapes import SCALAR_ANNOTATIONS, Member, Struct, TypeShape
from uac.fact_log.catalog import Catalog, FieldSpec
from uac.fact_log.values import canonical_json

RESERVED = ("key", "fact_ids")  # metadata fields every record carries
# Maps on the root object (scopes and aging, docs/scopes.md): no group may take their names.
USER_MAPS = ("inherited_from", "as_of", "stale_after_days")
# Names the generated modules import: no generated class may take one of them.
IMPORTED_NAMES = ("Decimal", "Literal", "Path")
_NON_IDENT = re.compile(r"[^0-9a-zA-Z_]+")


@dataclass(slots=True)
class FieldModel:
    """One field of a generated dataclass."""

    name: str  # Python identifier on the dataclass
    source: str  # name in the catalog / in the imported data
    spec: FieldSpec
    shape: TypeShape | None = None  # lists, objects and inferred scalars: see compiler/shapes
    reader: Callable[[Any], Any] | None = field(default=None, repr=False, compare=False)

    @property
    def annotation(self) -> str:
        """The field's Python type as source text."""
        if self.shape is not None:
            return self.shape.annotation
        spec = self.spec
        if spec.type == "enum":
            return "Literal[" + ", ".join(repr(v) for v in spec.values) + "]"
        if spec.type == "list":
            return f"tuple[{SCALAR_ANNOTATIONS.get(spec.item or 'str', 'str')}, ...]"
        return SCALAR_ANNOTATIONS[spec.type]


@dataclass(slots=True)
class GroupModel:
    """A group of single-valued attributes (a domain's own attributes, or a named group)."""

    attr: str  # name on the root object
    class_name: str
    description: str
    fields: list[FieldModel]
    values: dict[str, Any] = field(default_factory=dict)  # by field name; missing = default
    fact_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(slots=True)
class RecordModel:
    """One record of a collection after the fold (shared by later folds through the memo)."""

    key: str
    fact_ids: tuple[str, ...]
    values: dict[str, Any]  # by field name
    row: tuple[Any, ...] | None = None  # its cells as `model_parts` digests them, once built


@dataclass(slots=True)
class CollectionModel:
    """A collection: its record class and its records in a deterministic order."""

    attr: str
    class_name: str
    path: str
    description: str
    fields: list[FieldModel]
    inferred: bool
    checks: tuple[str, ...] = ()
    merge: str = "update"
    key_fields: tuple[str, ...] = ()
    records: list[RecordModel] = field(default_factory=list)
    nested: list[TypeShape] = field(default_factory=list)  # object classes, innermost first
    digest: str | None = None  # `collection_digest` of its records, set by the fold

    @property
    def annotations(self) -> list[str]:
        """Annotations of every field, nested object members included."""
        out = [f.annotation for f in self.fields]
        for shape in self.nested:
            out.extend(a for m in shape.members for a in m.shape.annotations())
        return out

    @property
    def module(self) -> str:
        """Name of the generated module holding this collection's records."""
        return f"records_{self.attr}"


@dataclass(slots=True)
class NoteModel:
    """A free-text note: searchable, not typed."""

    fact_id: str
    text: str
    recorded_at: dt.datetime


@dataclass(slots=True)
class FactStatus:
    """Derived lifecycle of one fact after the fold."""

    status: str  # active | superseded | disabled | observed
    decision: str  # add | reinforce | supersede | update | retract | note | ignored
    superseded_by: str | None = None
    support: int = 1


@dataclass(slots=True)
class RuleModel:
    """A user rule, resolved against the subject's model, ready for the constraints template.

    `params` holds the type-specific parts the template needs; every piece of user text in
    it is rendered as a Python literal, never spliced into code.
    """

    rule_id: str  # also the generated function's name
    type: str  # threshold | reminder | forbid
    severity: str
    summary: str  # one line for the docstring and the manifest
    fact_ids: tuple[str, ...]
    params: dict[str, Any]

    @property
    def check(self) -> str:
        """The check name alerts of this rule carry."""
        return f"rule:{self.rule_id}"


@dataclass(slots=True)
class SubjectModel:
    """Everything the templates need for one subject."""

    groups: list[GroupModel]
    collections: list[CollectionModel]
    notes: list[NoteModel] = field(default_factory=list)
    rules: list[RuleModel] = field(default_factory=list)
    renames: list[tuple[str, str, str]] = field(default_factory=list)  # (where, source, name)
    # Object path -> the scope(s) an inherited value came from ('group:family', 'tenant').
    inherited_from: dict[str, str] = field(default_factory=dict)
    # Object path -> day a value that can go stale was last asserted, and its limit in days.
    as_of: dict[str, dt.date] = field(default_factory=dict)
    stale_after_days: dict[str, int] = field(default_factory=dict)

    def collection(self, path: str) -> CollectionModel | None:
        """The collection model for a fact path."""
        for coll in self.collections:
            if coll.path == path:
                return coll
        return None


def class_name(name: str, singular: bool = True) -> str:
    """CamelCase class name for a group, singular for a collection ('trips' -> 'Trip')."""
    words = [w for w in re.split(r"[^0-9a-zA-Z]+", name) if w]
    if words and singular:
        last = words[-1]
        if last.endswith("ies") and len(last) > 3:
            words[-1] = last[:-3] + "y"
        elif last.endswith("s") and not last.endswith("ss") and len(last) > 1:
            words[-1] = last[:-1]
    camel = "".join(w[:1].upper() + w[1:] for w in words) or "Record"
    return camel if camel[0].isalpha() else "R" + camel


def identifier(source: str, taken: set[str], reserved: tuple[str, ...] = RESERVED) -> str:
    """Map a field name to a unique, non-keyword, non-underscore-leading Python identifier."""
    name = _NON_IDENT.sub("_", source.strip()).strip("_").lower() or "field"
    if name[0].isdigit():
        name = "f_" + name
    # `l` is a name ruff refuses in generated code (E741, ambiguous with 1 and I).
    if keyword.iskeyword(name) or keyword.issoftkeyword(name) or name in (*reserved, "l"):
        name += "_"
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def build_model(catalog: Catalog, inferred: dict[str, dict[str, Any]]) -> SubjectModel:
    """The empty typed model of a subject: every catalog group and collection, plus inferred."""
    groups: list[GroupModel] = []
    collections: list[CollectionModel] = []
    taken_attrs: set[str] = {"notes", *USER_MAPS}
    classes: set[str] = {"User", "Note", *IMPORTED_NAMES}
    renames: list[tuple[str, str, str]] = []

    def unique_class(name: str, singular: bool = True) -> str:
        cls, n = class_name(name, singular), 2
        base = cls
        while cls in classes:
            cls, n = f"{base}{n}", n + 1
        classes.add(cls)
        return cls

    for dname, domain in catalog.domains.items():
        if domain.attributes:
            fields = [FieldModel(a, a, spec) for a, spec in domain.attributes.items()]
            groups.append(GroupModel(dname, unique_class(dname, False), domain.description, fields))
            taken_attrs.add(dname)
        for gname, group in domain.groups.items():
            fields = [FieldModel(f, f, spec) for f, spec in group.fields.items()]
            groups.append(GroupModel(gname, unique_class(gname, False), group.description, fields))
            taken_attrs.add(gname)
        for cname, coll in domain.collections.items():
            cls = unique_class(cname)
            fields = [
                FieldModel(f, f, spec, _spec_shape(spec, cls, f, False, unique_class))
                for f, spec in coll.fields.items()
            ]
            nested = [obj for f in fields if f.shape is not None for obj in f.shape.objects()]
            collections.append(
                CollectionModel(
                    cname,
                    cls,
                    f"{dname}.{cname}",
                    coll.description,
                    fields,
                    False,
                    coll.checks,
                    coll.merge,
                    coll.key,
                    nested=nested,
                )
            )
            taken_attrs.add(cname)
    for path, schema in sorted(inferred.items()):
        if catalog.collection(path) is not None:
            continue
        attr = path.rsplit(".", 1)[-1]
        if attr in taken_attrs:
            attr = path.replace(".", "_")
            while attr in taken_attrs:
                attr += "_imported"
            renames.append(("collection", path, attr))
        taken_attrs.add(attr)
        cls = unique_class(attr)
        taken: set[str] = set()
        fields = []
        for source, descriptor in schema.items():
            name = identifier(source, taken)
            if name != source:
                renames.append((path, source, name))
            shape = _shape(descriptor, cls, source, False, unique_class, renames, path)
            # The spec keeps the scalar type for what reads it (dates for spans, the manifest).
            kind = shape.kind if shape.kind in SCALAR_ANNOTATIONS else "json"
            spec = FieldSpec(type="str" if kind == "none" else kind)  # type: ignore[arg-type]
            fields.append(FieldModel(name, source, spec, shape))
        nested = [obj for f in fields if f.shape is not None for obj in f.shape.objects()]
        collections.append(
            CollectionModel(
                attr,
                cls,
                path,
                f"Imported collection '{path}' (schema inferred).",
                fields,
                True,
                nested=nested,
            )
        )
    return SubjectModel(groups, collections, renames=renames)


def _spec_shape(
    spec: FieldSpec, owner: str, source: str, in_list: bool, unique_class: Any
) -> TypeShape | None:
    """The shape of a catalog field that holds a list or an object (None for a scalar)."""
    if spec.type == "list":
        if spec.item != "object":
            return TypeShape("list", item=TypeShape(spec.item or "str"))
        return TypeShape("list", item=_spec_object(spec, owner, source, True, unique_class))
    if spec.type == "object":
        return _spec_object(spec, owner, source, in_list, unique_class)
    return None


def _spec_object(
    spec: FieldSpec, owner: str, source: str, in_list: bool, unique_class: Any
) -> TypeShape:
    cls = unique_class(f"{owner}_{source}", in_list)
    members = []
    for name, sub in spec.fields.items():
        # Enum members are validated on import and typed as their text.
        shape = _spec_shape(sub, cls, name, False, unique_class) or TypeShape(
            "str" if sub.type == "enum" else sub.type
        )
        members.append(Member(name, name, shape, sub.description))
    doc = spec.description or f"An object in the {source!r} field of {owner} records."
    return TypeShape("object", class_name=cls, members=tuple(members), description=doc)


def _shape(
    descriptor: Any,
    owner: str,
    source: str,
    in_list: bool,
    unique_class: Any,
    renames: list[tuple[str, str, str]],
    where: str,
) -> TypeShape:
    """The typed shape of an inferred descriptor (fact_log/shapes.py); objects get classes
    named after their owner and field (`Visit` + `medications` → `VisitMedication`)."""
    if isinstance(descriptor, str):
        # Legacy `list` / `json` (schemas inferred before shapes) stay JSON text.
        kind = "json" if descriptor in ("list", "json") else descriptor
        return TypeShape(kind if kind in SCALAR_ANNOTATIONS else "str")
    if "list" in descriptor:
        item = _shape(descriptor["list"], owner, source, True, unique_class, renames, where)
        return TypeShape("list", item=item, nulls=bool(descriptor.get("nulls")))
    cls = unique_class(f"{owner}_{source}", in_list)
    taken: set[str] = set()
    members = []
    for sub_source, sub in descriptor["object"].items():
        name = identifier(sub_source, taken, reserved=())
        if name != sub_source:
            renames.append((f"{where}.{cls}", sub_source, name))
        members.append(
            Member(
                name, sub_source, _shape(sub, cls, sub_source, False, unique_class, renames, where)
            )
        )
    doc = f"An object in the {source!r} field of {owner} records (inferred from imported values)."
    return TypeShape("object", class_name=cls, members=tuple(members), description=doc)


class CoercionError(ValueError):
    """A stored value does not fit its field's type."""


def coerce(spec: FieldSpec, value: Any) -> Any:
    """Turn a JSON-decoded value into the field's Python type, or raise CoercionError."""
    if type(value) is str:
        # Fast paths for what the log normally holds (validated text); anything else falls
        # through to the full checks below, which also produce the error messages.
        kind = spec.type
        if kind == "str" and spec.pattern is None:
            return value
        if kind == "enum" and value in spec.values:
            return value
        if kind == "date" and len(value) == 10:
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                pass
    try:
        return _coerce(spec.type, spec, value)
    except (ValueError, TypeError, InvalidOperation) as exc:
        raise CoercionError(str(exc) or f"cannot read {value!r} as {spec.type}") from None


def coerce_field(fm: FieldModel, value: Any) -> Any:
    """`coerce` for a field of a collection: by its shape when it has one."""
    if fm.shape is None:
        return coerce(fm.spec, value)
    if fm.reader is None:
        fm.reader = shape_reader(fm.shape)
    try:
        return fm.reader(value)
    except (ValueError, TypeError, InvalidOperation) as exc:
        raise CoercionError(str(exc) or f"cannot read {value!r} as {fm.shape.text}") from None


def _text(value: Any) -> str:
    return value if type(value) is str else canonical_json(value)


def _date(value: Any) -> dt.date:
    if type(value) is str and len(value) == 10:
        return dt.date.fromisoformat(value)
    return _coerce("date", _TEXT_SPEC, value)


_TEXT_SPEC = FieldSpec(type="str")


def shape_reader(shape: TypeShape) -> Callable[[Any], Any]:
    """A function turning a JSON-decoded value into a value of the shape (objects become
    `Struct`s); built once per field, since a collection applies it to every record.

    Text is lenient: a field that widened to `str` keeps a non-text value as its canonical
    JSON text (`5` → `"5"`, `true` → `"true"`, `[1]` → `"[1]"`), so no value is dropped.
    """
    kind = shape.kind
    if kind in ("str", "none", "json"):
        return _text
    if kind == "date":
        return _date
    if kind == "list":
        assert shape.item is not None
        item, nulls = shape_reader(shape.item), shape.nulls

        def read_list(value: Any) -> tuple[Any, ...]:
            if type(value) is not list and type(value) is not tuple:
                raise CoercionError(f"expected a list, got {value!r}")
            if not nulls:
                if None in value:
                    raise CoercionError("a list item is null")
                return tuple(map(item, value))
            return tuple(None if v is None else item(v) for v in value)

        return read_list
    if kind == "object":
        members = [(m.source, shape_reader(m.shape)) for m in shape.members]

        def read_object(value: Any) -> Struct:
            if type(value) is not dict:
                raise CoercionError(f"expected an object, got {value!r}")
            get = value.get
            return Struct(
                shape, tuple(None if (v := get(src)) is None else read(v) for src, read in members)
            )

        return read_object
    return partial(_coerce, kind, _TEXT_SPEC)


def _coerce(kind: str, spec: FieldSpec, value: Any) -> Any:
    if kind == "str":
        if not isinstance(value, str):
            raise CoercionError(f"expected text, got {value!r}")
        if spec.pattern and not re.match(spec.pattern, value):
            raise CoercionError(f"{value!r} does not match {spec.pattern}")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int | str | Decimal):
            raise CoercionError(f"expected an integer, got {value!r}")
        number = Decimal(str(value))
        if number != number.to_integral_value():
            raise CoercionError(f"expected an integer, got {value!r}")
        return int(number)
    if kind == "float":
        return float(Decimal(str(value)))
    if kind in ("money", "decimal"):
        if isinstance(value, bool):
            raise CoercionError(f"expected a number, got {value!r}")
        return Decimal(str(value))
    if kind == "date":
        return dt.date.fromisoformat(str(value))
    if kind == "datetime":
        moment = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
        return moment
    if kind == "bool":
        if not isinstance(value, bool):
            raise CoercionError(f"expected true or false, got {value!r}")
        return value
    if kind == "enum":
        if value not in spec.values:
            raise CoercionError(f"{value!r} is not one of {', '.join(spec.values)}")
        return value
    if kind == "list":
        if not isinstance(value, list | tuple):
            raise CoercionError(f"expected a list, got {value!r}")
        return tuple(_coerce(spec.item or "str", spec, v) for v in value)
    if kind == "json":
        return value if isinstance(value, str) else canonical_json(value)
    raise CoercionError(f"unknown type {kind}")


def collection_digest(coll: CollectionModel) -> str:
    """Digest of a collection's records, as `object_parts` sees the generated objects."""
    from uac.compiler.canonical import rows_digest

    names = sorted([*RESERVED, *(f.name for f in coll.fields)])
    rows = []
    for record in coll.records:
        if record.row is None:  # a record from the memo has it: same collection, same row
            cells = {**record.values, "key": record.key, "fact_ids": record.fact_ids}
            record.row = tuple(cells.get(n) for n in names)
        rows.append(record.row)
    return rows_digest(tuple(rows))


def model_parts(model: SubjectModel) -> dict[str, str]:
    """Digest of each top-level part of the folded model, as `object_parts` sees the objects."""
    from uac.compiler.canonical import rows_digest

    parts: dict[str, str] = {}
    for group in model.groups:
        names = sorted(f.name for f in group.fields)
        defaults = {f.name: f.spec.default for f in group.fields}
        parts[group.attr] = rows_digest(tuple(group.values.get(n, defaults[n]) for n in names))
    for coll in model.collections:
        # The fold digests each collection once and keeps it with the collection's memo.
        parts[coll.attr] = coll.digest or collection_digest(coll)
    parts["notes"] = rows_digest(tuple((n.fact_id, n.recorded_at, n.text) for n in model.notes))
    for name in USER_MAPS:
        parts[name] = rows_digest(tuple(sorted(getattr(model, name).items())))
    return parts
