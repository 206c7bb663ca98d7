"""`why` (value → the facts behind it) and `diff` (typed-state change between checkpoints)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from uac.compiler.verified import Checkpoint
from uac.fact_log.errors import InputError, NotFound

_STEP = re.compile(
    r"""\.(?P<attr>[A-Za-z][A-Za-z0-9_]*)|\[(?P<index>-?\d+)\]|\[(?P<q>['"])(?P<key>.*?)(?P=q)\]"""
)


@dataclass(frozen=True, slots=True)
class Resolved:
    """An expression path resolved against a checkpoint."""

    expr: str  # normalised: user.passport.expiry_date / user.trips['KEY'].cost
    value: Any
    fact_ids: tuple[str, ...]


def first_part(text: str) -> str | None:
    """The part of `user` an expression (`user.` and its steps) starts with, or None when
    it does not start with one (`resolve` then says what is wrong with it)."""
    match = _STEP.match(text, 4) if text.startswith("user") else None
    return match.group("attr") if match else None


def resolve(checkpoint: Checkpoint, expr: str) -> Resolved:
    """Resolve `user.<group>.<field>`, `user.<coll>[i|'key']` (optionally `.field`)."""
    text = expr.strip()
    if not text.startswith("user"):
        text = "user." + text
    rest = text[4:]
    steps = []
    pos = 0
    while pos < len(rest):
        match = _STEP.match(rest, pos)
        if match is None:
            raise InputError(
                f"cannot parse {expr!r}: use user.passport.expiry_date or user.trips[0]"
            )
        steps.append(match)
        pos = match.end()
    if not steps or steps[0].group("attr") is None:
        raise InputError(f"{expr!r} must name a part of user, e.g. user.passport.expiry_date")
    user = checkpoint.user
    paths = checkpoint.provenance["paths"]
    part = steps[0].group("attr")
    if not any(f.name == part for f in dataclasses.fields(user)):
        names = ", ".join(f.name for f in dataclasses.fields(user))
        raise NotFound(f"user has no {part!r}; it has: {names}")
    value = getattr(user, part)
    norm = f"user.{part}"
    ids: tuple[str, ...] = ()
    for step in steps[1:]:
        if isinstance(value, tuple):
            if step.group("index") is not None:
                index = int(step.group("index"))
                if not -len(value) <= index < len(value):
                    raise NotFound(
                        f"{norm} has {len(value)} records; index {index} is out of range"
                    )
                value = value[index]
            elif step.group("key") is not None:
                found = [r for r in value if getattr(r, "key", None) == step.group("key")]
                if not found:
                    raise NotFound(f"{norm} has no record with key {step.group('key')!r}")
                value = found[0]
            else:
                raise InputError(f"{norm} is a collection: index it, e.g. {norm}[0]")
            key = getattr(value, "key", None) or getattr(value, "fact_id", None)
            if key is None:  # an item of a list field: it has its record's facts
                norm = f"{norm}[{step.group('index')}]"
                continue
            norm = f"{norm}[{key!r}]"
            ids = tuple(paths.get(norm, ()))
        elif step.group("attr") is not None and dataclasses.is_dataclass(value):
            name = step.group("attr")
            if not any(f.name == name for f in dataclasses.fields(value)):
                raise NotFound(f"{norm} has no field {name!r}")
            value = getattr(value, name)
            norm = f"{norm}.{name}"
            ids = tuple(paths.get(norm, ids))
        else:
            raise InputError(f"cannot go further than {norm}")
    if not ids:
        ids = tuple(paths.get(norm, ()))
    return Resolved(norm, value, ids)


def superseded_by(checkpoint: Checkpoint, fact_ids: tuple[str, ...]) -> list[str]:
    """Facts the given facts superseded."""
    wanted = set(fact_ids)
    facts = checkpoint.provenance["facts"]
    return sorted(fid for fid, s in facts.items() if s.get("superseded_by") in wanted)


def _rows(part: Any) -> dict[str, dict[str, Any]] | dict[str, Any]:
    if isinstance(part, tuple):
        return {getattr(r, "key", None) or r.fact_id: _fields(r) for r in part}
    if isinstance(part, Mapping):  # inherited_from, as_of, stale_after_days: path -> value
        return dict(part)
    return _fields(part)


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.name != "fact_ids"}


def show(value: Any) -> str:
    """A value as a person reads it: ISO dates, plain numbers, quoted text, `unset` for None."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return show(value.value)
    if isinstance(value, dt.date | dt.time):  # datetime is a date
        return value.isoformat()
    if isinstance(value, int | float | Decimal):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{show(k)}: {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple | list | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return "[" + ", ".join(show(v) for v in items) + "]"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return show(_fields(value))
    return str(value)


def _change(where: str, before: Any, after: Any) -> str:
    return f"~ {where}: {show(before)} -> {show(after)}"


def diff(old: Checkpoint, new: Checkpoint) -> list[str]:
    """Human-readable typed-state changes from old to new (empty if identical).

    Keys and values are written by `show` (ISO dates, quoted text, `unset`), never as Python
    reprs, so the lines read the same in the CLI, the console and the JSON API."""
    lines: list[str] = []
    old_parts, new_parts = old.meta.get("parts", {}), new.meta.get("parts", {})
    names = [f.name for f in dataclasses.fields(new.user)]
    for name in sorted(set(names) | {f.name for f in dataclasses.fields(old.user)}):
        if old_parts.get(name) is not None and old_parts.get(name) == new_parts.get(name):
            continue
        before = _rows(getattr(old.user, name)) if hasattr(old.user, name) else {}
        after = _rows(getattr(new.user, name)) if hasattr(new.user, name) else {}
        part = getattr(new.user, name, getattr(old.user, name, ()))
        if isinstance(part, Mapping):
            for key in sorted(set(before) | set(after)):
                if before.get(key) != after.get(key):
                    lines.append(
                        _change(f"user.{name}[{show(key)}]", before.get(key), after.get(key))
                    )
            continue
        if not isinstance(part, tuple):
            for field in sorted(set(before) | set(after)):
                if before.get(field) != after.get(field):
                    lines.append(
                        _change(f"user.{name}.{field}", before.get(field), after.get(field))
                    )
            continue
        for key in sorted(set(before) - set(after)):
            lines.append(f"- user.{name}[{show(key)}]")
        for key in sorted(set(after) - set(before)):
            lines.append(f"+ user.{name}[{show(key)}]")
        for key in sorted(set(before) & set(after)):
            a, b = before[key], after[key]
            for field in sorted(set(a) | set(b)):
                if a.get(field) != b.get(field):
                    lines.append(
                        _change(f"user.{name}[{show(key)}].{field}", a.get(field), b.get(field))
                    )
    return lines
