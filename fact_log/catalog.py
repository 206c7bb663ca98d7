"""The catalog: a declarative registry of typed paths, loaded from TOML and validated."""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import keyword
import re
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    create_model,
)

from uac.fact_log.errors import InputError, NotFound
from uac.fact_log.parsed_data import load_toml

BUILTIN_CATALOG = Path(__file__).with_name("catalog.toml")
WORKSPACE_CATALOG = "catalog.toml"

FieldType = Literal[
    "str",
    "int",
    "float",
    "money",
    "decimal",
    "date",
    "datetime",
    "bool",
    "enum",
    "list",
    "json",
    "object",
]
Sensitivity = Literal["none", "pii", "identifier"]
ScopeName = Literal["user", "group", "tenant"]
ALL_SCOPES: tuple[str, ...] = ("user", "group", "tenant")
_IDENT = re.compile(r"^[a-z][a-z0-9_]*\Z")


class FieldSpec(BaseModel):
    """One typed field: of an attribute group, a collection record, or a domain."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: FieldType
    description: str = ""
    values: tuple[str, ...] = ()
    pattern: str | None = None
    item: FieldType | None = None
    required: bool = False
    default: Any = None
    sensitivity: Sensitivity = "none"
    checks: tuple[str, ...] = ()
    # Scope policy and aging (docs/scopes.md): where a fact at this path may be written,
    # whether members inherit a group's/tenant's value, and after how many days it is stale.
    scopes: tuple[ScopeName, ...] | None = None
    inherit: bool = True
    stale_after_days: int | None = Field(None, ge=1)
    # An `object` field (or a `list` of `item = "object"`) declares its own typed fields;
    # the compiler makes them a nested frozen dataclass.
    fields: dict[str, FieldSpec] = Field(default_factory=dict)

    def __hash__(self) -> int:
        # `fields` is a dict (a TOML table), which the generated hash cannot take; equal
        # specs have equal reprs.
        return hash(repr(self))

    def model_post_init(self, _context: Any) -> None:
        if self.type == "enum" and not self.values:
            raise ValueError("an enum field needs 'values'")
        if self.type == "list" and self.item in (None, "list", "enum"):
            raise ValueError("a list field needs a scalar or 'object' item type")
        holds_objects = self.type == "object" or (self.type == "list" and self.item == "object")
        if holds_objects and not self.fields:
            raise ValueError("an object field (or list of objects) needs 'fields'")
        if self.fields and not holds_objects:
            raise ValueError("only an object field (or list of objects) has 'fields'")
        for name in self.fields:
            _check_ident("field", name)
        if self.pattern is not None:
            re.compile(self.pattern)


class GroupSpec(BaseModel):
    """A named group of single-valued attributes, e.g. identity.passport."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    scopes: tuple[ScopeName, ...] | None = None
    stale_after_days: int | None = Field(None, ge=1)
    fields: dict[str, FieldSpec]


class CollectionSpec(BaseModel):
    """A collection of records with key fields for record identity."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    scopes: tuple[ScopeName, ...] | None = None
    stale_after_days: int | None = Field(None, ge=1)
    key: tuple[str, ...] = ()
    merge: Literal["update", "replace"] = "update"
    # "each": every row of an import is a record of its own, even one identical to another
    # row of that import (ledger entries: two coffees the same day); "merge": one record.
    identical_rows: Literal["merge", "each"] = "merge"
    checks: tuple[str, ...] = ()
    fields: dict[str, FieldSpec]


class DomainSpec(BaseModel):
    """A domain: its own attributes, attribute groups and collections."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    scopes: tuple[ScopeName, ...] | None = None
    stale_after_days: int | None = Field(None, ge=1)
    attributes: dict[str, FieldSpec] = Field(default_factory=dict)
    groups: dict[str, GroupSpec] = Field(default_factory=dict)
    collections: dict[str, CollectionSpec] = Field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AttributePath:
    """A single-valued slot: `domain.name` or `domain.group.name`."""

    path: str
    domain: str
    group: str  # short name exposed on the root object; the domain for domain attributes
    name: str
    spec: FieldSpec
    cardinality: str = "one"
    merge: str = "supersede"

    @property
    def kind(self) -> str:
        """Fact kind for this slot: preferences are their own kind."""
        return "preference" if self.domain == "preferences" else "attribute"


@dataclass(frozen=True, slots=True)
class PathPolicy:
    """Where facts at a path may live, whether members inherit them, when they go stale."""

    scopes: tuple[str, ...] = ALL_SCOPES
    inherit: bool = True
    stale_after_days: int | None = None


DEFAULT_POLICY = PathPolicy()


def _policy(*levels: Any) -> PathPolicy:
    """The most specific level's settings win (field, then group/collection, then domain)."""
    scopes = next((lv.scopes for lv in levels if lv is not None and lv.scopes), ALL_SCOPES)
    stale = next(
        (lv.stale_after_days for lv in levels if lv is not None and lv.stale_after_days), None
    )
    inherit = all(getattr(lv, "inherit", True) for lv in levels if lv is not None)
    return PathPolicy(tuple(scopes), inherit, stale)


@dataclass(frozen=True, slots=True)
class CollectionPath:
    """A collection of records: `domain.collection`."""

    path: str
    domain: str
    name: str
    spec: CollectionSpec
    cardinality: str = "many"


def _parse_date(value: Any) -> Any:
    # Reject numbers (pydantic would read them as Unix timestamps) and non-ISO text.
    if isinstance(value, dt.date | str):
        return value.strip() if isinstance(value, str) else value
    raise ValueError("expected an ISO date like 2025-03-05")


def _parse_decimal(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("expected a number")
    if isinstance(value, float):
        return Decimal(str(value))
    return value


def _strip(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def python_type(spec: FieldSpec, item: bool = False) -> Any:
    """The Python type (with pydantic validators) that values of a field must have."""
    kind = spec.item if item else spec.type
    if kind == "str":
        if spec.pattern and not item:
            return Annotated[str, StringConstraints(strip_whitespace=True, pattern=spec.pattern)]
        return str
    if kind == "int":
        return Annotated[int, BeforeValidator(_strip), Field(strict=False)]
    if kind == "float":
        return float
    if kind in ("money", "decimal"):
        return Annotated[Decimal, BeforeValidator(_parse_decimal)]
    if kind == "date":
        return Annotated[dt.date, BeforeValidator(_parse_date)]
    if kind == "datetime":
        return Annotated[dt.datetime, BeforeValidator(_parse_date)]
    if kind == "bool":
        return bool
    if kind == "enum":
        return Literal[tuple(spec.values)]  # type: ignore[valid-type]
    if kind == "list":
        return list[python_type(spec, item=True)]  # type: ignore[misc]
    if kind == "object":
        return _object_model(spec.fields)
    return Any


def _object_model(fields: dict[str, FieldSpec]) -> type[BaseModel]:
    """A pydantic model validating one nested object of these fields (no `id`)."""
    definitions: dict[str, Any] = {}
    for fname, spec in fields.items():
        annotation = python_type(spec)
        definitions[fname] = (annotation, ...) if spec.required else (annotation | None, None)
    return create_model("Object", __config__=ConfigDict(extra="forbid"), **definitions)


def record_model(name: str, fields: dict[str, FieldSpec]) -> type[BaseModel]:
    """A pydantic model validating one record (or attribute value set) of these fields."""
    definitions: dict[str, Any] = {"id": (str | int | None, None)}
    for fname, spec in fields.items():
        annotation = python_type(spec)
        definitions[fname] = (annotation, ...) if spec.required else (annotation | None, None)
    config = ConfigDict(extra="forbid", str_strip_whitespace=False)
    return create_model(name, __config__=config, **definitions)


class Catalog:
    """All typed paths known to a workspace: the built-in catalog plus its extension file."""

    def __init__(self, domains: dict[str, DomainSpec]):
        self.domains = domains
        self.attributes: dict[str, AttributePath] = {}
        self.collections: dict[str, CollectionPath] = {}
        short: dict[str, str] = {}
        self.policies: dict[str, PathPolicy] = {}
        for dname, domain in domains.items():
            _check_ident("domain", dname)
            short_names = [(dname, f"{dname} attributes")] if domain.attributes else []
            for aname, spec in domain.attributes.items():
                self._add_attr(AttributePath(f"{dname}.{aname}", dname, dname, aname, spec))
                self.policies[f"{dname}.{aname}"] = _policy(spec, domain)
            for gname, group in domain.groups.items():
                short_names.append((gname, f"{dname}.{gname}"))
                for fname, spec in group.fields.items():
                    self._add_attr(
                        AttributePath(f"{dname}.{gname}.{fname}", dname, gname, fname, spec)
                    )
                    self.policies[f"{dname}.{gname}.{fname}"] = _policy(spec, group, domain)
            for cname, coll in domain.collections.items():
                _check_ident("collection", cname)
                short_names.append((cname, f"{dname}.{cname}"))
                for k in coll.key:
                    if k not in coll.fields:
                        raise InputError(
                            f"catalog: key field {k!r} of {dname}.{cname} is not a field"
                        )
                for fname in coll.fields:
                    _check_ident("field", fname)
                self.collections[f"{dname}.{cname}"] = CollectionPath(
                    f"{dname}.{cname}", dname, cname, coll
                )
                self.policies[f"{dname}.{cname}"] = _policy(coll, domain)
            for name, where in short_names:
                if name in short and short[name] != where:
                    raise InputError(
                        f"catalog: short name {name!r} is used by {short[name]} and {where}"
                    )
                short[name] = where
        self.short_names = short
        self._models: dict[str, type[BaseModel]] = {}

    def _add_attr(self, attr: AttributePath) -> None:
        _check_ident("attribute", attr.name)
        if attr.spec.fields:
            raise InputError(
                f"catalog: attribute {attr.path} is an object; objects are collection fields"
            )
        self.attributes[attr.path] = attr

    @classmethod
    def load(cls, workspace_file: Path | None = None) -> Catalog:
        """Load the built-in catalog, extended by a workspace catalog file if it exists."""
        domains = dict(_builtin())
        if workspace_file is not None and workspace_file.exists():
            for dname, ext in _read(workspace_file).items():
                domains[dname] = _merge_domain(dname, domains.get(dname), ext, workspace_file)
        return cls(domains)

    def attribute(self, path: str) -> AttributePath:
        """The attribute slot at path, or NotFound naming close matches."""
        try:
            return self.attributes[path]
        except KeyError:
            coll = self.collection(path)
            if coll is not None:
                raise NotFound(
                    f"{coll.path} is a collection, not a single-valued attribute: add its "
                    f"records with `uac import SUBJECT {coll.path.split('.')[-1]} FILE` "
                    "(or Memory.import_records)"
                ) from None
            raise NotFound(f"unknown attribute path {path!r}{self._hint(path)}") from None

    def policy(self, path: str) -> PathPolicy:
        """The scope and aging policy of a fact path (paths outside the catalog: the default)."""
        return self.policies.get(path, DEFAULT_POLICY)

    def collection(self, name: str) -> CollectionPath | None:
        """The catalog collection for a path (`travel.trips`) or short name (`trips`)."""
        if name in self.collections:
            return self.collections[name]
        for coll in self.collections.values():
            if coll.name == name:
                return coll
        return None

    def _hint(self, path: str) -> str:
        close = difflib.get_close_matches(path, [*self.attributes, *self.collections], n=3)
        return f"; did you mean {', '.join(close)}?" if close else ""

    def model_for(self, coll: CollectionPath) -> type[BaseModel]:
        """The (cached) pydantic model validating records of a catalog collection."""
        model = self._models.get(coll.path)
        if model is None:
            model = record_model(coll.path.replace(".", "_"), coll.spec.fields)
            self._models[coll.path] = model
        return model

    def validate_attribute(self, attr: AttributePath, value: Any) -> Any:
        """Validate and coerce one attribute value; InputError names the path on failure."""
        model = self._models.get(attr.path)
        if model is None:
            model = record_model(attr.path.replace(".", "_"), {"value": attr.spec})
            self._models[attr.path] = model
        try:
            return model(value=value).value  # type: ignore[attr-defined]
        except ValidationError as exc:
            raise InputError(f"{attr.path}: {describe_error(exc)}") from None


def describe_error(exc: ValidationError) -> str:
    """One sentence for the first error pydantic reported."""
    err = exc.errors(include_url=False)[0]
    loc = ".".join(str(p) for p in err["loc"] if p != "value")
    got = err.get("input")
    shown = repr(got) if not isinstance(got, dict) else "a record"
    if len(shown) > 60:
        shown = shown[:57] + "..."
    where = f"field {loc!r}: " if loc else ""
    if err["type"] == "extra_forbidden":
        return f"field {loc!r} is not part of this collection"
    if err["type"] == "missing":
        return f"required field {loc!r} is missing"
    return f"{where}{err['msg']} (got {shown})"


def _check_ident(kind: str, name: str) -> None:
    if not _IDENT.match(name) or keyword.iskeyword(name):
        raise InputError(f"catalog: {kind} name {name!r} must be a lowercase identifier")


@functools.cache
def _builtin() -> dict[str, DomainSpec]:
    # Parsed once a process (~20 ms of every workspace open): the file ships with the
    # package and its specs are frozen; callers copy the dict before adding to it.
    return _read(BUILTIN_CATALOG)


def _read(path: Path) -> dict[str, DomainSpec]:
    try:
        raw = load_toml(path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read catalog {path}: {exc}") from None
    domains = {}
    for name, body in raw.items():
        try:
            domains[name] = DomainSpec.model_validate(body)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            loc = ".".join(str(p) for p in (name, *err["loc"]))
            raise InputError(f"catalog {path}: {loc}: {err['msg']}") from None
    return domains


def _merge_domain(name: str, base: DomainSpec | None, ext: DomainSpec, source: Path) -> DomainSpec:
    """A workspace file may add domains, attributes, groups and collections, never redefine."""
    if base is None:
        return ext
    for part in ("attributes", "groups", "collections"):
        clash = set(getattr(base, part)) & set(getattr(ext, part))
        if clash:
            raise InputError(
                f"catalog {source}: {name}.{sorted(clash)[0]} is already defined by the "
                "built-in catalog"
            )
    return DomainSpec(
        description=base.description,
        scopes=base.scopes,
        stale_after_days=base.stale_after_days,
        attributes={**base.attributes, **ext.attributes},
        groups={**base.groups, **ext.groups},
        collections={**base.collections, **ext.collections},
    )
