"""User-written Markdown notes: preferences, typed attributes, collection rows and free notes.

A note looks like this (see `note_template` for one generated from the catalog):

    ---
    title: About me
    date: 2025-03-01
    ---
    ## Preferences
    verbosity: short
    identity.passport.expiry_date: 2031-05-01

    ## Notes
    I am vegetarian.

    - My gym is on Kastanienallee.

    ## Trips
    | city  | country | depart     |
    |-------|---------|------------|
    | Tokyo | JP      | 2025-03-05 |

The frontmatter is a small safe subset of YAML parsed here (`key: value` lines only, no
anchors, tags or nesting). `## Preferences` holds `slot: value` lines (a preference slot name
or a full catalog attribute path; an empty value means "not set"); `## Notes` holds free text,
one note per paragraph or bullet; any other `## Heading` names a catalog collection by short
name, with rows as a Markdown table or bullets `- field: value; field: value`. HTML comments
are ignored. Text before the first `##` heading counts as notes.

The user is the authority (source "user_markdown", confidence 1.0), but the note is still
hostile text: values are validated against the catalog and the safety filter refuses
instruction-like text, secrets and misplaced identifiers, each refusal recorded with its line.
Every fact carries evidence {"note": note_id, "line": N} so that re-ingesting an edited note
with the same note_id can supersede all facts of the previous version.

This module only parses a note and proposes candidates (`note_candidates`); the write
pipeline (`uac.fact_log.pipeline.build_note_batch`) scans it, gates each candidate and builds
the batch, like any other input.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from uac.fact_log.catalog import Catalog, describe_error
from uac.fact_log.errors import InputError
from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.lazy import compile_kept
from uac.fact_log.extraction.safety import SafetyResult
from uac.fact_log.store import NewRejection

SOURCE = "user_markdown"
MAX_NOTE_BYTES = 256 * 1024
MAX_NOTE_ID = 200
PREFERENCES = "preferences"
NOTES = "notes"

_KEY = compile_kept(r"^[A-Za-z_][A-Za-z0-9_.-]{0,99}$")
_HEADING = compile_kept(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_BULLET = compile_kept(r"^[ \t]{0,3}(?:[-*+]|\d{1,3}[.)])[ \t]+")
_FENCE = compile_kept(r"^[ \t]{0,3}(```|~~~)")
_TABLE_RULE = compile_kept(r"^\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?$")
_NULL = frozenset({"", "~", "null", "none", "-"})


@dataclass(frozen=True, slots=True)
class Entry:
    """A `key: value` line with where its value sits in the note."""

    key: str
    value: str
    line: int
    start: int  # offset of the value in the note text
    end: int


@dataclass(frozen=True, slots=True)
class Paragraph:
    """A free-text paragraph or bullet of the notes section."""

    text: str
    line: int
    start: int  # span of the paragraph in the note text
    end: int


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a collection section: field name -> cell text."""

    fields: tuple[tuple[str, str], ...]
    line: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Section:
    """A `## Heading` section that is neither Preferences nor Notes."""

    heading: str
    line: int
    rows: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class ParsedNote:
    """A parsed note: frontmatter, preference lines, free notes and collection sections."""

    frontmatter: dict[str, str]
    preferences: tuple[Entry, ...]
    notes: tuple[Paragraph, ...]
    sections: tuple[Section, ...]


def _error(line: int, message: str) -> InputError:
    return InputError(f"note line {line}: {message}")


def _blank_comments(text: str) -> str:
    """HTML comments replaced by spaces (newlines kept) so lines and offsets stay put."""
    out: list[str] = []
    pos = 0
    while (start := text.find("<!--", pos)) >= 0:
        end = text.find("-->", start + 4)
        if end < 0:
            line = text.count("\n", 0, start) + 1
            raise _error(line, "an HTML comment '<!--' is never closed with '-->'")
        end += 3
        out.append(text[pos:start])
        out.append("".join(ch if ch == "\n" else " " for ch in text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _key_value(raw: str, line_no: int, line_start: int, where: str) -> Entry:
    """Parse `key: value` (the first colon splits), keeping the value's offsets."""
    bullet = _BULLET.match(raw)
    lead = bullet.end() if bullet else 0
    body = raw[lead:]
    colon = body.find(":")
    key = body[:colon].strip() if colon >= 0 else ""
    if colon < 0 or not _KEY.match(key):
        raise _error(line_no, f"expected 'key: value' in {where}, got {raw.strip()[:60]!r}")
    rest = body[colon + 1 :]
    value = rest.strip()
    start = line_start + lead + colon + 1 + (len(rest) - len(rest.lstrip()))
    return Entry(key, _unquote(value), line_no, start, start + len(value))


def parse_note(text: str) -> ParsedNote:
    """Parse a Markdown note; InputError names the line of anything malformed."""
    if not isinstance(text, str):
        raise InputError(f"a note must be text, got {type(text).__name__}")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_NOTE_BYTES:
        raise InputError(f"the note is larger than {MAX_NOTE_BYTES // 1024} KiB; split it")
    if "\x00" in text:
        raise InputError("the note contains NUL characters; send plain text")
    text = text.removeprefix("\ufeff")
    clean = _blank_comments(text)
    lines = clean.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)

    i = 0
    front: dict[str, str] = {}
    if lines and lines[0].rstrip("\r").strip() == "---":
        i = 1
        while True:
            if i >= len(lines):
                raise _error(1, "the frontmatter opened with '---' is never closed with '---'")
            raw = lines[i].rstrip("\r")
            if raw.strip() == "---":
                i += 1
                break
            if raw.strip() and not raw.lstrip().startswith("#"):
                entry = _key_value(raw, i + 1, starts[i], "the frontmatter")
                if entry.key in front:
                    raise _error(i + 1, f"frontmatter key {entry.key!r} is set twice")
                front[entry.key] = entry.value
            i += 1

    prefs: list[Entry] = []
    notes: list[Paragraph] = []
    sections: list[Section] = []
    current = NOTES  # text before the first ## heading is free notes
    section_line = 0
    rows: list[Row] = []
    header: list[str] | None = None
    para: list[int] = []  # line indexes of the paragraph being collected
    fenced = False
    seen_prefs: dict[str, int] = {}
    seen_sections: dict[str, int] = {}

    def flush_para() -> None:
        if not para:
            return
        first, last = para[0], para[-1]
        start = starts[first] + (len(lines[first]) - len(lines[first].lstrip()))
        end = starts[last] + len(lines[last].rstrip())
        body = "\n".join(
            _BULLET.sub("", lines[n].strip(), count=1) if n == first else lines[n].strip()
            for n in para
        ).strip()
        if body:
            notes.append(Paragraph(body, first + 1, start, end))
        para.clear()

    def close_section() -> None:
        nonlocal rows, header
        flush_para()
        if current not in (NOTES, PREFERENCES):
            sections.append(Section(current, section_line, tuple(rows)))
        rows, header = [], None

    while i < len(lines):
        raw = lines[i].rstrip("\r")
        stripped = raw.strip()
        if _FENCE.match(raw):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(raw)
        if heading and len(heading[1]) == 1:
            flush_para()  # a `# Title` line ends a paragraph and is otherwise ignored
        elif heading and len(heading[1]) == 2:
            close_section()
            name = heading[2].strip().lower()
            if not name:
                raise _error(i + 1, "a '##' heading needs a name")
            if name in seen_sections:
                raise _error(
                    i + 1, f"section {name!r} appears twice (first on line {seen_sections[name]})"
                )
            seen_sections[name] = i + 1
            current, section_line = name, i + 1
        elif current == NOTES:
            if not stripped and not fenced:
                flush_para()
            elif _BULLET.match(raw) and not fenced:
                flush_para()  # each bullet is its own note
                para.append(i)
            elif stripped or fenced:
                para.append(i)
        elif current == PREFERENCES:
            if stripped:
                entry = _key_value(raw, i + 1, starts[i], "## Preferences")
                if entry.key in seen_prefs:
                    raise _error(
                        i + 1, f"{entry.key!r} is already set on line {seen_prefs[entry.key]}"
                    )
                seen_prefs[entry.key] = i + 1
                prefs.append(entry)
        elif stripped:
            header = _collection_line(raw, i, starts[i], header, rows, current)
        i += 1
    if fenced:
        raise _error(len(lines), "a code fence (```) is never closed")
    close_section()
    return ParsedNote(front, tuple(prefs), tuple(notes), tuple(sections))


def _cells(raw: str) -> list[str]:
    body = raw.strip()
    body = body.removeprefix("|").removesuffix("|")
    return [c.strip() for c in body.split("|")]


def _collection_line(
    raw: str, index: int, line_start: int, header: list[str] | None, rows: list[Row], name: str
) -> list[str] | None:
    """Add one table or bullet row of a collection section; returns the table header."""
    line_no = index + 1
    stripped = raw.strip()
    end = line_start + len(raw.rstrip())
    start = line_start + len(raw) - len(raw.lstrip())
    if stripped.startswith("|"):
        if header is None:
            header = [c.lower() for c in _cells(stripped)]
            if not all(_KEY.match(h) for h in header):
                raise _error(line_no, f"table header of ## {name} needs field names")
            return header
        if _TABLE_RULE.match(stripped):
            return header
        cells = _cells(stripped)
        if len(cells) != len(header):
            raise _error(line_no, f"the row has {len(cells)} cells; the header has {len(header)}")
        pairs = tuple((h, c) for h, c in zip(header, cells, strict=True) if c.lower() not in _NULL)
        rows.append(Row(pairs, line_no, start, end))
        return header
    if not _BULLET.match(raw):
        raise _error(
            line_no, f"expected a table row or a '- field: value; ...' bullet in ## {name}"
        )
    pairs_list: list[tuple[str, str]] = []
    for part in _BULLET.sub("", stripped, count=1).split(";"):
        if not part.strip():
            continue
        key, colon, value = part.partition(":")
        key = key.strip().lower()
        if not colon or not _KEY.match(key):
            raise _error(line_no, f"expected 'field: value' pairs separated by ';' in ## {name}")
        if any(k == key for k, _ in pairs_list):
            raise _error(line_no, f"field {key!r} is given twice")
        value = _unquote(value.strip())
        if value.lower() not in _NULL:
            pairs_list.append((key, value))
    rows.append(Row(tuple(pairs_list), line_no, start, end))
    return header


# -- candidates --------------------------------------------------------------------------------


def check_note_id(note_id: Any) -> str:
    """Return note_id if it can name a note, else raise InputError saying what it must be."""
    if (
        not isinstance(note_id, str)
        or not note_id.strip()
        or len(note_id) > MAX_NOTE_ID
        or not note_id.isprintable()
    ):
        raise InputError(f"a note id must be 1-{MAX_NOTE_ID} printable characters")
    return note_id


def note_observed_at(parsed: ParsedNote, default: dt.datetime) -> dt.datetime:
    """When the note says it was written (frontmatter `date`), else default."""
    raw = parsed.frontmatter.get("date", "").strip()
    if not raw:
        return default
    try:
        day = dt.date.fromisoformat(raw)
    except ValueError:
        raise InputError(
            f"frontmatter date {raw[:40]!r} is not an ISO date like 2025-03-01"
        ) from None
    return dt.datetime(day.year, day.month, day.day)


def _pref_path(catalog: Catalog, key: str) -> str | None:
    if "." in key:
        return key if key in catalog.attributes else None
    path = f"{PREFERENCES}.{key}"
    return path if path in catalog.attributes else None


@dataclass(slots=True)
class NoteCandidates:
    """What a note proposes (each candidate with its line) and what it refused outright."""

    candidates: list[tuple[Candidate, int]]
    refusals: list[NewRejection]


def note_candidates(
    catalog: Catalog, parsed: ParsedNote, text: str, note_id: str
) -> NoteCandidates:
    """Candidates of a parsed note (certain: the user wrote them) and the lines refused.

    A line that names no catalog slot or section, repeats a slot or does not validate is
    refused here with its line; the rest go through the gate like any other candidate.
    """
    out = NoteCandidates([], [])

    def refuse(reason: str, path: str | None, line: int, error: str) -> None:
        detail = {"note": note_id, "line": line, "error": error[:300]}
        out.refusals.append(NewRejection(reason, path, detail, input_index=0))

    paths_seen: dict[str, int] = {}
    for entry in parsed.preferences:
        path = _pref_path(catalog, entry.key)
        if path is None:
            refuse("unknown_path", None, entry.line, f"{entry.key!r} is not a catalog slot")
            continue
        if path in paths_seen:
            refuse("duplicate_path", path, entry.line, f"already set on line {paths_seen[path]}")
            continue
        paths_seen[path] = entry.line
        if entry.value.lower() in _NULL:
            continue  # "verbosity:" left empty in the template: not set
        attr = catalog.attributes[path]
        try:
            typed = catalog.validate_attribute(attr, entry.value)
        except InputError as exc:
            refuse("invalid_value", path, entry.line, str(exc))
            continue
        quote = text[entry.start : entry.end]
        cand = Candidate(attr.kind, path, typed, "assert", quote, entry.start, 1.0)
        out.candidates.append((cand, entry.line))

    for para in parsed.notes:
        quote = text[para.start : para.end]
        out.candidates.append(
            (Candidate("note", NOTES, None, "assert", quote, para.start, 1.0), para.line)
        )

    for section in parsed.sections:
        coll = catalog.collection(section.heading.replace(" ", "_"))
        if coll is None:
            refuse(
                "unknown_section",
                None,
                section.line,
                f"## {section.heading} is neither Preferences, Notes nor a catalog collection",
            )
            continue
        model = catalog.model_for(coll)
        for row in section.rows:
            try:
                record = model(**dict(row.fields))
            except ValidationError as exc:
                refuse("invalid_value", coll.path, row.line, describe_error(exc))
                continue
            value = {k: v for k, v in record.model_dump().items() if v is not None and k != "id"}
            if not value:
                continue
            quote = text[row.start : row.end]
            out.candidates.append(
                (Candidate("record", coll.path, value, "assert", quote, row.start, 1.0), row.line)
            )
    return out


def note_text(shown: str) -> str:
    """A free-note paragraph as stored: its bullet marker dropped, lines stripped."""
    return "\n".join(
        _BULLET.sub("", ln.strip(), count=1) if n == 0 else ln.strip()
        for n, ln in enumerate(shown.split("\n"))
    ).strip()


def stray_secrets(
    text: str, safety: SafetyResult, refused: list[tuple[int, int]], note_id: str
) -> list[NewRejection]:
    """A secret outside any refused fact (say, in a comment) is masked in the archive: say so."""
    out = []
    for f in safety.findings:
        if f.category == "secret" and not any(s < f.end and f.start < e for s, e in refused):
            line = text.count("\n", 0, f.start) + 1
            detail = {"note": note_id, "line": line, "kind": f.kind}
            out.append(NewRejection("secret", None, detail, input_index=0))
    return out


# -- template ----------------------------------------------------------------------------------


_EXAMPLES = {"str": "your text", "date": "2031-05-01", "int": "3", "bool": "true", "money": "9.99"}


def note_template(catalog: Catalog) -> str:
    """A Markdown note template listing every preference slot with its values and default."""
    lines = [
        "---",
        "title: About me",
        "date:",
        "---",
        "",
        "## Preferences",
        "<!-- One `slot: value` per line. Leave a value empty to keep it unset.",
        "     Full catalog paths work too, e.g. `identity.passport.expiry_date: 2031-05-01`. -->",
        "",
    ]
    for attr in catalog.attributes.values():  # catalog order, as the user reads it
        if attr.domain != PREFERENCES:
            continue
        spec = attr.spec
        if spec.values:
            allowed, example = "One of: " + ", ".join(spec.values) + ".", spec.values[-1]
        elif spec.pattern:
            allowed, example = f"Text matching {spec.pattern}.", str(spec.default or "")
        else:
            allowed, example = f"A {spec.type}.", _EXAMPLES.get(spec.type, "your text")
        default = f" Default: {spec.default}." if spec.default is not None else ""
        desc = spec.description.rstrip(".")
        lines.append(f"<!-- {desc}. {allowed}{default} Example: `{attr.name}: {example}` -->")
        lines.append(f"{attr.name}:")
        lines.append("")
    lines += [
        "## Notes",
        "<!-- Free text. Each paragraph or bullet becomes a searchable note. -->",
        "",
        "<!-- Collections: add a section named after one",
        f"     ({', '.join(sorted(c.name for c in catalog.collections.values()))})",
        "     with a Markdown table or bullets, e.g.",
        "## Trips",
        "- city: Tokyo; country: JP; depart: 2025-03-05",
        "-->",
        "",
    ]
    return "\n".join(lines)
