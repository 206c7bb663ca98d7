"""Render a folded subject into Python modules and metadata files with Jinja2 templates."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import importlib.metadata
import inspect
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac.compiler import cache as compile_cache
from uac.compiler.fold import FoldResult
from uac.compiler.loader import COLUMNS
from uac.compiler.model import USER_MAPS, CollectionModel, FieldModel, SubjectModel
from uac.compiler.shapes import (
    CONVERTERS,
    Member,
    TypeShape,
    converter,
    has_structure,
    optional_converter,
    reader_name,
    row_default,
)
from uac.fact_log.values import canonical_json, json_string

if TYPE_CHECKING:  # Jinja2 loads when code is generated: a read never renders
    import jinja2

TEMPLATES = Path(__file__).with_name("templates")
# canonical_json's settings, plus nested objects (compiler/shapes.Struct) as their rows.
_ROWS = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=row_default
)
MASK = "•••"
# Largest collection whose provenance status lines the fold memo keeps (~200 bytes a line).
KEEP_STATUS_LINES = 50_000


def py(value: Any) -> str:
    """A Python literal for a folded value (deterministic, imports: datetime, Decimal)."""
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, Decimal):
        return f'Decimal("{value}")'
    if isinstance(value, dt.datetime):
        parts = [value.year, value.month, value.day, value.hour, value.minute, value.second]
        if value.microsecond:
            parts.append(value.microsecond)
        return f"datetime.datetime({', '.join(map(str, parts))})"
    if isinstance(value, dt.date):
        return f"datetime.date({value.year}, {value.month}, {value.day})"
    if isinstance(value, tuple | list):
        inner = ", ".join(py(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    raise TypeError(f"cannot render {type(value).__name__}")


def _doc(text: str) -> str:
    """Text safe inside a triple-quoted docstring: one line, escapes for what is not printable."""
    text = " ".join(text.replace("\\", "\\\\").replace('"""', "'''").split())
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
    if text.endswith('"'):
        text = text[:-1] + '\\"'  # a quote right before the closing quotes would end it early
    return text or "(undocumented)"


def _fielddoc(field: FieldModel | Member) -> str:
    if isinstance(field, Member):
        text = field.description or f"{field.source} ({field.shape.text})"
        if field.source != field.name:
            text += f" Imported as {field.source!r}."
        return _doc(text)
    kind = field.shape.text if field.shape is not None else field.spec.type
    parts = [field.spec.description or f"{field.source} ({kind})"]
    if field.source != field.name:
        parts.append(f"Imported as {field.source!r}.")
    if field.spec.sensitivity != "none":
        parts.append(f"Sensitive ({field.spec.sensitivity}).")
    return _doc(" ".join(parts))


def _keydoc(coll: CollectionModel) -> str:
    keys = [f.name for f in coll.fields if f.source in coll.key_fields]
    return "its `id`, else " + (" | ".join(keys) if keys else "a hash of its content")


def _tname(field: FieldModel) -> str:
    if field.shape is not None and field.shape.kind in ("list", "object"):
        return _shape_text(field.shape)
    spec = field.spec
    if spec.type == "enum":
        return "{" + "|".join(spec.values) + "}"
    if spec.type == "list":
        return f"list[{spec.item}]"
    return spec.type


def _shape_text(shape: TypeShape) -> str:
    # The manifest spells nested objects out: an agent reads it instead of schema.py.
    if shape.kind == "list":
        assert shape.item is not None
        return f"list[{_shape_text(shape.item)}{' | None' if shape.nulls else ''}]"
    if shape.kind == "object":
        inner = ", ".join(f"{m.name} {_shape_text(m.shape)}" for m in shape.members)
        return "{" + inner + "}"
    return shape.text


def _shown(field: FieldModel, value: Any) -> str:
    if field.spec.sensitivity != "none":
        return MASK
    if isinstance(value, dt.date | Decimal):
        return str(value)
    return repr(value) if isinstance(value, str) else str(value)


def _span(coll: CollectionModel) -> str:
    # The time span of a collection along its identifying date (or, if imported, first date).
    # Kept by the collection's digest (its typed rows): a change elsewhere does not rescan it.
    if coll.digest is None:
        return _scan_span(coll)
    key = (coll.digest, coll.inferred, coll.key_fields, repr(coll.fields))
    if key in _SPANS:
        return _SPANS[key]
    span = _SPANS[key] = _scan_span(coll)
    while len(_SPANS) > 256:
        _SPANS.pop(next(iter(_SPANS)))
    return span


_SPANS: dict[tuple[Any, ...], str] = {}


def _scan_span(coll: CollectionModel) -> str:
    for field in coll.fields:
        if field.spec.type in ("date", "datetime") and (
            coll.inferred or field.source in coll.key_fields
        ):
            values = [r.values[field.name] for r in coll.records if field.name in r.values]
            if values:
                low, high = min(values), max(values)
                fmt = (
                    (lambda v: v.isoformat())
                    if field.spec.type == "date"
                    else (lambda v: f"{v:%Y-%m-%d}")
                )
                return f"{field.name} {fmt(low)}..{fmt(high)}"
    return ""


@dataclass(frozen=True, slots=True)
class SchemaField:
    """A field of a class in schema.py, as its source writes it."""

    name: str
    annotation: str
    default: str | None = None  # Python source of the default; None: a required argument
    doc: str | None = None  # its docstring's text


@dataclass(frozen=True, slots=True)
class SchemaClass:
    """A frozen dataclass of schema.py: its methods are written out from its fields."""

    name: str
    doc: str
    fields: tuple[SchemaField, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


def schema_classes(model: SubjectModel, subject: str) -> list[SchemaClass]:
    """The classes of schema.py in order: groups, each collection's nested objects and its
    record class, Note, User (required fields first, as a dataclass needs)."""
    classes = [
        SchemaClass(
            g.class_name,
            _doc(g.description),
            tuple(
                SchemaField(f.name, f"{f.annotation} | None", py(f.spec.default), _fielddoc(f))
                for f in g.fields
            ),
        )
        for g in model.groups
    ]
    for c in model.collections:
        for o in c.nested:
            members = (
                SchemaField(m.name, f"{m.shape.annotation} | None", "None", _fielddoc(m))
                for m in o.members
            )
            classes.append(SchemaClass(o.class_name, _doc(o.description), tuple(members)))
        fields = [
            SchemaField("key", "str", doc=f"Record identity ({_keydoc(c)})."),
            SchemaField("fact_ids", "tuple[str, ...]", doc=_FACT_IDS_DOC),
        ]
        fields += [
            SchemaField(f.name, f.annotation, doc=_fielddoc(f)) for f in c.fields if f.spec.required
        ]
        fields += [
            SchemaField(f.name, f"{f.annotation} | None", "None", _fielddoc(f))
            for f in c.fields
            if not f.spec.required
        ]
        classes.append(SchemaClass(c.class_name, _doc(c.description), tuple(fields)))
    note = ("fact_id", "str"), ("text", "str"), ("recorded_at", "datetime.datetime")
    classes.append(
        SchemaClass(
            "Note", "A free-text note: searchable, not typed.", tuple(SchemaField(*f) for f in note)
        )
    )
    user = [SchemaField(g.attr, g.class_name) for g in model.groups]
    user += [SchemaField(c.attr, f"tuple[{c.class_name}, ...]") for c in model.collections]
    user.append(SchemaField("notes", "tuple[Note, ...]"))
    user += [SchemaField(name, annotation, doc=doc) for name, annotation, doc in _USER_MAPS]
    doc = f"Everything uac knows about {subject}, as typed objects."
    classes.append(SchemaClass("User", doc, tuple(user)))
    return classes


_FACT_IDS_DOC = "Ids of the facts this record was folded from."
_USER_MAPS = (
    (
        "inherited_from",
        "Mapping[str, str]",
        "Values inherited from a group or the tenant: object path -> scope, e.g. 'group:family'.",
    ),
    (
        "as_of",
        "Mapping[str, datetime.date]",
        "Values that go stale: object path -> the day last asserted (compare with today).",
    ),
    (
        "stale_after_days",
        "Mapping[str, int]",
        "Values that go stale: object path -> days after `as_of` the value counts as stale.",
    ),
)


def _converter(field: FieldModel | Member, expr: str) -> str:
    """Source text turning a JSON row cell into the field's type (dates are ISO text there)."""
    if isinstance(field, Member):
        return optional_converter(field.shape, expr)
    spec = field.spec
    shape = field.shape if field.shape is not None else TypeShape(spec.type)
    if spec.type == "enum":
        return expr
    return optional_converter(shape, expr, spec.required)


def _text_converter(field: FieldModel) -> str:
    """The callable turning one cell of a text column (never null) into the field's type.

    `_columns.cells` maps it over the column with no per-cell wrapper; "" when the field's cells
    are not converted (or not by a single call).
    """
    shape = field.shape if field.shape is not None else TypeShape(field.spec.type)
    if field.spec.type == "enum" or shape.kind in ("list", "object"):
        return ""
    conv = converter(shape, "v")
    return conv[:-3] if conv.endswith("(v)") else ""


def records_json(coll: CollectionModel) -> str:
    """The records of a collection as JSON columns, one a line (C-encoded, exact).

    Key, fact ids, then each field. Loading a big collection then parses a few long arrays
    or strings instead of a small list per record, and converts (dates, decimals) each
    distinct value once; `_columns.py` (columns.py.j2), shared by the records modules, reads them.
    """
    records = coll.records
    lines = [_column([r.key for r in records], canonical_json), _fact_ids_column(records)]
    for f in coll.fields:
        # Nested objects need the encoder hook; tuples are JSON arrays to either encoder.
        encode = _ROWS.encode if has_structure(f.shape) else canonical_json
        lines.append(_column([r.values.get(f.name) for r in records], encode))
    return "[\n" + ",\n".join(lines) + "\n]\n"


# Cells of these types are coded by (type, text): equal values of other types or texts
# (1 and 1.0 and True, Decimal 1.0 and 1.00) must stay apart.
_CODED = frozenset({type(None), bool, int, float, str, Decimal, dt.date, dt.datetime})
# Cells of these types are text in JSON: their text, as json_default writes it.
_TEXTS: dict[type, Callable[[Any], str]] = {
    str: str,
    Decimal: str,
    dt.date: dt.date.isoformat,
    dt.datetime: dt.datetime.isoformat,
}


def _column(cells: list[Any], encode: Callable[[Any], str]) -> str:
    """One column: codes into its distinct values (when they are at most half the cells),
    its texts joined by newlines (cells of one text type, no newline), or else a list."""
    kinds = set(map(type, cells))
    if kinds <= _CODED:
        if kinds == {str}:
            keys: list[Any] = cells
        elif len(kinds) == 1:  # one type: its text tells values apart
            keys = list(map(str, cells))
        else:
            keys = [(type(c), str(c)) for c in cells]
        distinct = dict(zip(keys, cells, strict=True))  # first-seen order; equal texts
        if len(distinct) * 2 <= len(cells):
            index = {k: i for i, k in enumerate(distinct)}
            codes = list(map(index.__getitem__, keys))
            return canonical_json({"codes": codes, "values": list(distinct.values())})
    if len(kinds) == 1 and kinds <= _TEXTS.keys():
        texts = cells if kinds == {str} else list(map(_TEXTS[next(iter(kinds))], cells))
        joined = "\n".join(texts)
        if joined.split("\n") == texts:  # no text held a newline: read back exactly
            return canonical_json(joined)
    return encode(cells)


def _fact_ids_column(records: Sequence[Any]) -> str:
    """Fact ids a line per record joined by spaces, or a list of lists if that does not
    read back exactly (an id holding whitespace, or empty)."""
    ids = [tuple(r.fact_ids) for r in records]
    joined = "\n".join(map(" ".join, ids))
    if list(map(tuple, map(str.split, joined.split("\n")))) == ids:  # what _columns.fact_ids reads
        return canonical_json(joined)
    return canonical_json([list(row) for row in ids])


@cache
def columns_module() -> str:
    """The shared decoding module of records files (`_columns.py`): the same in every checkpoint."""
    return environment().get_template("columns.py.j2").render()


@cache
def records_format() -> str:
    """Digest of what a records module is made from besides its collection's rows and class.

    Part of a collection's reuse key (compiler/checkpoint.py): records modules written by a
    different template, decoding module or converter code (the functions below, by their
    source text, which is the same on every Python version) are rendered again, never
    carried next to them.
    """
    template = (TEMPLATES / "records.py.j2").read_bytes()
    makers = (
        records_json,
        _column,
        _fact_ids_column,
        _converter,
        _text_converter,
        py,
        converter,
        optional_converter,
        reader_name,
        row_default,
    )
    try:  # the Python that writes records, and the conversions it names
        code = "\0".join(inspect.getsource(fn) for fn in makers) + repr(sorted(CONVERTERS.items()))
    except OSError:  # installed without sources: the package's version stands for them
        code = importlib.metadata.version("uac")
    parts = (template, columns_module().encode("utf-8"), code.encode("utf-8"))
    return hashlib.sha256(b"\0".join(parts)).hexdigest()


def _bytecode_cache(directory: Path = TEMPLATES / "__pycache__") -> jinja2.BytecodeCache:
    """The templates' compiled code, kept beside the package's bytecode.

    Compiling the seven templates from source cost ~0.035 s CPU of every process that
    compiles a subject (a one-shot `uac add`); loading their compiled code ~1 ms. Jinja2
    keys each file by the template's name and checks the source's digest and its own
    version on load, so an edited template is compiled again; the rendered text is the same
    either way. As with Python's bytecode, nothing is written where Python writes none
    (PYTHONDONTWRITEBYTECODE, a read-only install): the templates are then compiled per
    process, as before.
    """
    import sys

    import jinja2

    class Kept(jinja2.FileSystemBytecodeCache):
        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            if sys.dont_write_bytecode:
                return
            with contextlib.suppress(OSError):
                Path(self.directory).mkdir(exist_ok=True)
                super().dump_bytecode(bucket)

    return Kept(str(directory), "jinja2.%s.cache")


@cache
def environment() -> jinja2.Environment:
    """The Jinja2 environment for generated code (strict: a missing variable is an error)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(
        py=py,
        doc=_doc,
        fielddoc=_fielddoc,
        keydoc=_keydoc,
        tname=_tname,
        shown=_shown,
        span=_span,
        converter=_converter,
        text_converter=_text_converter,
    )
    return env


def _uses(annotations: list[str], values: list[Any]) -> dict[str, bool]:
    flat = _flatten(values)
    return {
        "datetime": any("datetime." in a for a in annotations)
        or any(isinstance(v, dt.date) for v in flat),
        "decimal": any("Decimal" in a for a in annotations)
        or any(isinstance(v, Decimal) for v in flat),
        "literal": any(a.startswith("Literal[") for a in annotations),
    }


def _flatten(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, tuple | list):
            out.extend(_flatten(list(v)))
        else:
            out.append(v)
    return out


def render(
    result: FoldResult,
    subject: str,
    tenant: str,
    skip: set[str] | frozenset[str] = frozenset(),
    digests: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Render every file of a checkpoint except the record modules of collections in skip.

    `digests` (part -> digest, from `model_parts`) lets unchanged parts reuse what the
    previous compile rendered for them (see `provenance_json`).
    """
    env = environment()
    model = result.model
    base = {"subject": subject, "tenant": tenant, "watermark": result.watermark}
    # Every checkpoint holds the one decoding module its records modules import: a fixed
    # text, so a records module carried from an earlier version finds what it was made for.
    files: dict[str, str] = {f"{COLUMNS}.py": columns_module()}
    wanted = {c.attr for c in model.collections if c.records} - set(skip)
    files.update(records_files(result, subject, tenant, wanted))
    annotations = [f.annotation for g in model.groups for f in g.fields]
    annotations += [a for c in model.collections for a in c.annotations]
    annotations.append("datetime.datetime")  # Note.recorded_at
    files["schema.py"] = env.get_template("schema.py.j2").render(
        base,
        classes=schema_classes(model, subject),
        inferred=any(c.inferred for c in model.collections),
        uses=_uses(annotations, [f.spec.default for g in model.groups for f in g.fields]),
    )
    state_values = [v for g in model.groups for v in g.values.values()] + [
        n.recorded_at for n in model.notes
    ]
    state_values += list(model.as_of.values())
    files["state.py"] = env.get_template("state.py.j2").render(
        base,
        groups=model.groups,
        collections=model.collections,
        notes=model.notes,
        maps=[(name, getattr(model, name)) for name in USER_MAPS],
        uses=_uses([], state_values),
    )
    rules = model.rules
    files["constraints.py"] = env.get_template("constraints.py.j2").render(
        base,
        checks=applicable_checks(result),
        rules=rules,
        uses={
            "calendar": any(r.params.get("window") == "calendar_month" for r in rules),
            "decimal": any(r.type == "threshold" for r in rules),
        },
    )
    files["__init__.py"] = env.get_template("init.py.j2").render(base)
    kinds = Counter(d["kind"] for d in result.diagnostics)
    files["manifest.md"] = env.get_template("manifest.md.j2").render(
        base,
        groups=model.groups,
        collections=model.collections,
        notes=model.notes,
        rules=model.rules,
        inherited=_by_scope(model.inherited_from),
        aging=sorted(model.as_of.items()),
        stale_after=model.stale_after_days,
        diagnostics=result.diagnostics,
        diagnostic_kinds=", ".join(f"{k}: {n}" for k, n in sorted(kinds.items())),
    )
    files["provenance.json"] = provenance_json(result, digests)
    files["diagnostics.json"] = _json(
        {"diagnostics": result.diagnostics, "renamed": [list(r) for r in model.renames]}
    )
    return files


def records_files(
    result: FoldResult, subject: str, tenant: str, attrs: set[str] | frozenset[str]
) -> dict[str, str]:
    """The records module and JSON file of each collection named in `attrs`."""
    env = environment()
    base = {"subject": subject, "tenant": tenant, "watermark": result.watermark}
    files: dict[str, str] = {}
    for coll in result.model.collections:
        if coll.attr not in attrs or not coll.records:
            continue
        files[f"{coll.module}.py"] = env.get_template("records.py.j2").render(
            base, c=coll, uses=_uses(coll.annotations, [])
        )
        files[f"{coll.module}.json"] = records_json(coll)
    return files


def _by_scope(inherited: dict[str, str]) -> list[tuple[str, list[str]]]:
    """Inherited object paths grouped by the scope they came from, for the manifest."""
    scopes: dict[str, list[str]] = {}
    for path, scope in sorted(inherited.items()):
        scopes.setdefault(scope, []).append(path)
    return sorted(scopes.items())


def applicable_checks(result: FoldResult) -> list[str]:
    """Names of the checks attached to paths this subject has data for."""
    names: set[str] = set()
    for coll in result.model.collections:
        if coll.records:
            names.update(coll.checks)
    for group in result.model.groups:
        for field in group.fields:
            if field.name in group.fact_ids:
                names.update(field.spec.checks)
    return sorted(names)


def provenance_json(result: FoldResult, digests: Mapping[str, str] | None = None) -> str:
    """provenance.json: object path → fact ids, and each fact's derived status.

    One entry per line, both sections sorted by key. With `digests` (the fold's part
    digests, which cover every record's key and fact ids) a collection's lines are taken
    from the previous compile when its digest is unchanged: a one-fact change does not
    rebuild 10,000 lines. Each distinct status is encoded once.
    """
    paths: list[tuple[str, str]] = []
    for group in result.model.groups:
        for name, ids in group.fact_ids.items():
            key = f"user.{group.attr}.{name}"
            paths.append((key, _ids_line(key, ids)))
    for coll in result.model.collections:
        digest = digests.get(coll.attr) if digests else None
        lines = compile_cache.provenance_lines(coll.attr, digest) if digest else None
        if lines is None:
            lines = []
            for record in coll.records:
                key = f"user.{coll.attr}[{record.key!r}]"
                lines.append((key, _ids_line(key, record.fact_ids)))
            if digest:
                compile_cache.keep_provenance_lines(coll.attr, digest, lines)
        paths.extend(lines)
    for note in result.model.notes:
        key = f"user.notes[{note.fact_id!r}]"
        paths.append((key, _ids_line(key, [note.fact_id])))
    paths.sort()  # keys are unique: the lines follow their keys
    facts = [line for _, line in _status_lines(result)]
    # Sections in name order, one entry a line: readable diffs, no slow indenting encoder.
    sections = {"facts": facts, "paths": [line for _, line in paths]}
    if result.scopes:  # where inherited facts live (a group's or the tenant's log)
        sections["scopes"] = [
            f"{json_string(k)}:{compact_json(v)}" for k, v in sorted(result.scopes.items())
        ]
    return (
        "{" + ",\n".join(f'"{n}":{{\n' + ",\n".join(v) + "\n}" for n, v in sections.items()) + "}\n"
    )


def _status_lines(result: FoldResult) -> list[tuple[str, str]]:
    """(fact id, provenance line) of every fact status, sorted by fact id.

    A collection the fold took whole from its memo keeps its sorted lines there: only the
    facts outside it are encoded and sorted, and the sorted runs are merged.
    """
    encoded: dict[tuple[Any, ...], str] = {}

    def line(fid: str, s: Any) -> str:
        ident = (s.status, s.decision, s.superseded_by, s.support)
        text = encoded.get(ident)
        if text is None:
            fields = zip(("status", "decision", "superseded_by", "support"), ident, strict=True)
            text = encoded[ident] = compact_json({k: v for k, v in fields if v is not None})
        return f"{json_string(fid)}:{text}"

    parts = list(result.collections.values())
    out: list[tuple[str, str]] = []
    for part in parts:
        lines = part.status_lines
        if lines is None:
            lines = sorted((f, line(f, s)) for f, s in part.statuses.items())
            if len(lines) <= KEEP_STATUS_LINES:  # a huge collection: memory over speed
                part.status_lines = lines
        out.extend(lines)
    others = result.statuses.keys()
    for part in parts:
        others -= part.statuses.keys()  # set operations in C: no Python loop over every fact
    rest = [(f, line(f, result.statuses[f])) for f in others]
    out.extend(sorted(rest))
    if parts:
        out.sort()  # sorted runs: timsort merges them in linear time
    return out


def _ids_line(key: str, ids: Any) -> str:
    return f"{json_string(key)}:[{','.join(map(json_string, ids))}]"


def compact_json(value: Any) -> str:
    """`canonical_json(value)`, without the encoder's per-call overhead for the small shapes
    provenance holds (a string, a list of strings, a flat dict of strings and ints)."""
    if type(value) is str:
        return json_string(value)
    if type(value) is list and all(type(v) is str for v in value):
        return "[" + ",".join(map(json_string, value)) + "]"
    if type(value) is dict and all(
        type(k) is str and type(v) in (str, int) for k, v in value.items()
    ):
        return (
            "{"
            + ",".join(
                f"{json_string(k)}:{json_string(v) if type(v) is str else v}"
                for k, v in sorted(value.items())
            )
            + "}"
        )
    return canonical_json(value)


def _json(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False, default=str) + "\n"
