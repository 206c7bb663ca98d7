"""Structured ingestion: records from JSON Lines, JSON arrays or CSV, validated into facts.

A batch is all-or-nothing: the first bad record raises an InputError naming the file, the
line (or array item) and the field, and nothing from that file is written.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from uac.fact_log.catalog import Catalog, CollectionPath, describe_error
from uac.fact_log.errors import InputError
from uac.fact_log.shapes import BadShape, Shape, infer_shape, widen_shape
from uac.fact_log.store import NewFact
from uac.fact_log.values import canonical_json, sha256


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a number (JSON has no NaN or Infinity)")


# What comes from outside is held to JSON proper: non-integer numbers stay exact (Decimal),
# NaN and Infinity (Python's extension) are refused.
_DECODER = json.JSONDecoder(parse_float=Decimal, parse_constant=_not_a_number)


def loads(text: str) -> Any:
    """Parse JSON from outside: Decimal for non-integers; NaN, Infinity and nesting past
    Python's recursion limit raise ValueError (JSONDecodeError for syntax)."""
    try:
        return _DECODER.decode(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _bad_json(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"malformed JSON ({exc.msg} at column {exc.colno})"
    return f"malformed JSON ({exc})"


MAX_RECORD_BYTES = 1 << 20  # one line / record; a larger one is refused, not truncated
MAX_FILE_BYTES = 1 << 30
# An import is read, validated, screened and appended this much at a time (read_chunks):
# memory stays bounded by a chunk, not the file. Each chunk is archived as its own input.
CHUNK_RECORDS = 10_000
CHUNK_BYTES = 8 << 20
FORMATS = ("jsonl", "json", "csv")
_COLLECTION = re.compile(r"^[a-z][a-z0-9_]{0,62}(\.[a-z][a-z0-9_]{0,62})?\Z")


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One record as read from a file, with where it came from."""

    where: str  # "line 12" or "item 3"
    data: dict[str, Any]
    from_text: bool  # values are text (CSV) and need parsing


def detect_format(path: Path, head: bytes) -> str:
    """Guess a file's format from its extension, then from its first bytes."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    if head.lstrip()[:1] == b"[":
        return "json"
    if suffix == ".json" or head.lstrip()[:1] == b"{":
        return "jsonl"
    raise InputError(
        f"{path}: cannot tell the format; name it .jsonl, .json or .csv, or pass --format"
    )


def _checked_size(path: Path) -> int:
    """The file's size, after refusing a missing, unreadable or over-large file."""
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise InputError(f"{path} is not a file")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read file: {exc.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise InputError(f"{path}: file is larger than the {MAX_FILE_BYTES >> 20} MiB limit")
    return size


def read_records(path: Path, fmt: str | None = None) -> tuple[str, list[RawRecord]]:
    """Read and parse all records of a file; returns (file text, records)."""
    _checked_size(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read file: {exc.strerror}") from None
    if not data.strip():
        raise InputError(f"{path}: file is empty")
    fmt = _format(path, fmt, data[:64])
    _check_line_sizes(path, data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not valid UTF-8 text") from None
    if "\x00" in text:
        _no_nul(path, text, 1)
    records = list({"jsonl": _jsonl, "json": _json_array, "csv": _csv}[fmt](path, text))
    if not records:
        raise InputError(f"{path}: contains no records")
    return text, records


def _format(path: Path, fmt: str | None, head: bytes) -> str:
    fmt = fmt or detect_format(path, head)
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    return fmt


def _no_nul(path: Path, text: str, first_line: int) -> None:
    if "\x00" in text:
        line = first_line + text[: text.index("\x00")].count("\n")
        raise InputError(f"{path}:{line}: contains a NUL byte; binary files cannot be imported")


@dataclass(slots=True)
class Chunk:
    """Consecutive records of a file and the exact text they came from (what is archived)."""

    text: str
    records: list[RawRecord]


def read_chunks(
    path: Path,
    fmt: str | None = None,
    max_records: int | None = None,
    max_bytes: int | None = None,
) -> Iterator[Chunk]:
    """A file's records in bounded chunks, read as they are needed; errors as read_records.

    JSON Lines is streamed (memory bounded by one chunk, whatever the file size); a JSON
    array or a CSV file is read whole and comes as one chunk. A file that fits in one chunk
    gives exactly the text and records `read_records` gives. Limits default to CHUNK_RECORDS
    and CHUNK_BYTES.
    """
    max_records = max_records or CHUNK_RECORDS
    max_bytes = max_bytes or CHUNK_BYTES
    _checked_size(path)
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read file: {exc.strerror}") from None
    with fh:
        head = fh.peek(64)[:64]
        if not head.strip() or _format(path, fmt, head) != "jsonl":
            # Not JSON Lines, or starting with blank space: read whole (same errors as before).
            text, records = read_records(path, fmt)
            yield Chunk(text, records)
            return
        lines: list[str] = []
        records: list[RawRecord] = []
        size = number = 0
        while raw := fh.readline(MAX_RECORD_BYTES + 2):
            number += 1
            body = len(raw) - raw.endswith(b"\n")
            if body > MAX_RECORD_BYTES:
                while not raw.endswith(b"\n") and (raw := fh.readline(1 << 20)):
                    body += len(raw) - raw.endswith(b"\n")  # the length, not the line
                raise InputError(
                    f"{path}:{number}: line is {body:,} bytes, "
                    f"over the {MAX_RECORD_BYTES:,}-byte limit"
                )
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(f"{path}:{number}: not valid UTF-8 text") from None
            _no_nul(path, line, number)
            if line.strip():
                # A full chunk goes out when the next record comes: blank lines stay with
                # the record before them, and no chunk is without records.
                if len(records) >= max_records or size >= max_bytes:
                    yield Chunk("".join(lines), records)
                    lines, records, size = [], [], 0
                records.extend(_jsonl(path, line, number))
            lines.append(line)
            size += len(raw)
        if not records:
            raise InputError(f"{path}: contains no records")
        yield Chunk("".join(lines), records)


def _check_line_sizes(path: Path, data: bytes) -> None:
    start = 0
    line = 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if end - start > MAX_RECORD_BYTES:
            raise InputError(
                f"{path}:{line}: line is {end - start:,} bytes, "
                f"over the {MAX_RECORD_BYTES:,}-byte limit"
            )
        start, line = end + 1, line + 1


def _jsonl(path: Path, text: str, first: int = 1) -> Iterator[RawRecord]:
    for number, line in enumerate(text.splitlines(), first):
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except ValueError as exc:
            raise InputError(f"{path}:{number}: {_bad_json(exc)}") from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{number}: expected a JSON object, got {type(obj).__name__}")
        yield RawRecord(f"line {number}", obj, False)


def _json_array(path: Path, text: str) -> Iterator[RawRecord]:
    try:
        items = loads(text)
    except ValueError as exc:
        where = f"{path}:{exc.lineno}" if isinstance(exc, json.JSONDecodeError) else str(path)
        raise InputError(f"{where}: {_bad_json(exc)}") from None
    if not isinstance(items, list):
        raise InputError(f"{path}: expected a JSON array of objects")
    for number, obj in enumerate(items, 1):
        if not isinstance(obj, dict):
            raise InputError(
                f"{path}: item {number}: expected a JSON object, got {type(obj).__name__}"
            )
        if len(canonical_json(obj)) > MAX_RECORD_BYTES:
            raise InputError(
                f"{path}: item {number}: record is over the {MAX_RECORD_BYTES:,}-byte limit"
            )
        yield RawRecord(f"item {number}", obj, False)


def _csv(path: Path, text: str) -> Iterator[RawRecord]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as exc:
        raise InputError(f"{path}:1: cannot read the CSV header ({exc})") from None
    header = [h.strip() for h in header]
    if not all(header) or len(set(header)) != len(header):
        raise InputError(f"{path}:1: CSV header has empty or repeated column names")
    try:
        for row in reader:
            number = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(
                    f"{path}:{number}: has {len(row)} columns, the header has {len(header)}"
                )
            data = {k: v for k, v in zip(header, row, strict=True) if v.strip() != ""}
            yield RawRecord(f"line {number}", data, True)
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}: malformed CSV ({exc})") from None


def record_key(data: dict[str, Any], key_fields: Iterable[str]) -> str:
    """A record's identity: its `id` field, else its key fields, else its content hash."""
    if data.get("id") is not None:
        return str(data["id"])
    parts = []
    for name in key_fields:
        value = data.get(name)
        if value is None:
            return "h:" + sha256(canonical_json(data))[:16]
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dt.date):
            parts.append(value.isoformat())
        else:
            parts.append(canonical_json(value).strip('"'))
    if not parts:
        return "h:" + sha256(canonical_json(data))[:16]
    return "|".join(parts)


@dataclass(slots=True)
class Prepared:
    """Facts for one import plus the schema inferred for an unknown collection."""

    path: str
    known: bool
    facts: list[NewFact]
    schema: dict[str, Shape] | None  # field -> shape descriptor (see fact_log/shapes.py)


def check_collection_name(name: str) -> str:
    """Validate the name of a collection being imported."""
    if not _COLLECTION.match(name):
        raise InputError(
            f"invalid collection name {name!r}: use lowercase letters, digits and '_', "
            "optionally 'domain.collection'"
        )
    return name


def prepare(
    catalog: Catalog,
    collection: str,
    records: Iterable[RawRecord],
    source_name: str,
    previous_schema: dict[str, Shape] | None = None,
    source: str = "import",
    seen: Counter[str] | None = None,
) -> Prepared:
    """Validate records against the catalog (or infer a schema) and build their facts.

    `seen` counts the record keys of the import so far (across its chunks): in a collection
    whose identical rows are each a record, the n-th row with a key gets "|n" after it.
    """
    coll = catalog.collection(collection)
    if coll is not None:
        facts = _typed(catalog, coll, records, source_name, source, seen)
        return Prepared(coll.path, True, facts, None)
    check_collection_name(collection)
    if collection in catalog.attributes or collection.split(".")[0] in catalog.attributes:
        raise InputError(f"{collection!r} is an attribute path, not a collection; use 'uac set'")
    return _inferred(collection, records, source_name, previous_schema or {}, source)


def _typed(
    catalog: Catalog,
    coll: CollectionPath,
    records: Iterable[RawRecord],
    name: str,
    source: str,
    seen: Counter[str] | None = None,
) -> list[NewFact]:
    model = catalog.model_for(coll)
    facts = []
    # Identical rows of a ledger are separate entries: numbered in file order, the first keeps
    # the plain key (what a message or an older import gave it), so importing the same file
    # again, or a later statement that repeats these rows, adds nothing twice.
    occurrences = (
        (Counter() if seen is None else seen) if coll.spec.identical_rows == "each" else None
    )
    for rec in records:
        try:
            parsed = model.model_validate(rec.data)
        except ValidationError as exc:
            raise InputError(f"{name}: {rec.where}: {describe_error(exc)}") from None
        # JSON mode converts dates and Decimals to exact text in pydantic's core: no per-value
        # Python callbacks when the value is encoded for the log.
        value = parsed.model_dump(mode="json", exclude_none=True)
        key = record_key(value, coll.spec.key)
        if occurrences is not None and value.get("id") is None:  # an id names one record
            occurrences[key] += 1
            key = key if occurrences[key] == 1 else f"{key}|{occurrences[key]}"
        facts.append(
            NewFact(
                op="assert",
                kind="record",
                path=coll.path,
                value=value,
                record_key=key,
                source=source,
                evidence={"where": rec.where},
                input_index=0,
            )
        )
    return facts


def _inferred(
    path: str, records: Iterable[RawRecord], name: str, schema: dict[str, Shape], source: str
) -> Prepared:
    schema = dict(schema)
    facts = []
    for rec in records:
        value: dict[str, Any] = {}
        for fname, raw in rec.data.items():
            if not isinstance(fname, str) or not fname.strip():
                raise InputError(f"{name}: {rec.where}: field names must be non-empty text")
            if raw is None:
                continue
            try:
                shape, parsed = infer_shape(raw, rec.from_text)
            except BadShape as exc:
                raise InputError(f"{name}: {rec.where}: field {fname!r} {exc}") from None
            schema[fname] = widen_shape(schema.get(fname), shape)
            value[fname] = parsed
        facts.append(
            NewFact(
                op="assert",
                kind="record",
                path=path,
                value=value,
                record_key=record_key(value, ()),
                source=source,
                evidence={"where": rec.where},
                input_index=0,
            )
        )
    return Prepared(path, False, facts, dict(sorted(schema.items())))


def parse_cli_value(text: str, field_type: str) -> Any:
    """A value typed on the command line: JSON for list and json fields, else the text."""
    if field_type not in ("list", "json"):
        return text
    try:
        return loads(text)
    except ValueError:
        raise InputError(f"expected a JSON {field_type}, got {text!r}") from None
