"""What the console's pages show, built from what `Memory` returns (no HTTP here).

Kept apart from `console.py` (sessions and routes) so the shaping of the typed state,
the timeline and the export can be read and tested on their own: each function takes
plain values or a `Memory` and returns dicts and lists a template prints as they are.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import re
from collections import Counter
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from uac.compiler.model import build_model
from uac.compiler.render import MASK
from uac.fact_log.errors import NotFound
from uac.runtime.api import verbs

if TYPE_CHECKING:
    from uac.runtime.api.memory import Memory

# -- formatting -------------------------------------------------------------------------------


def show(value: Any) -> str:
    """A value as the console prints it (dates ISO, money exact, nothing as a dash)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ", timespec="minutes")
    if isinstance(value, dt.date | Decimal):
        return str(value)
    if isinstance(value, tuple | list):
        return ", ".join(show(v) for v in value) or "—"
    if isinstance(value, dict):
        return json.dumps(verbs.plain(value), ensure_ascii=False)
    return str(value)


def sort_key(value: Any) -> str:
    """A string that sorts a table cell in its natural order (numbers zero-padded)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int | float | Decimal):
        return f"{float(value) + 1e15:032.6f}"
    return show(value).lower()


def paged(items: list[Any], offset: int, size: int) -> tuple[list[Any], dict[str, int | None]]:
    """One page of items, and where the pages around it start (None: there is none)."""
    total = len(items)
    start = max(0, min(offset, (total - 1) // size * size if total else 0))
    pager = {
        "start": start,
        "end": min(start + size, total),
        "total": total,
        "prev": max(start - size, 0) if start > 0 else None,
        "next": start + size if start + size < total else None,
        "last": (total - 1) // size * size if total > size else None,
    }
    return items[start : start + size], pager


def sort_rows(rows: list[dict[str, Any]], columns: list[str], by: str, desc: bool) -> None:
    """Sort a collection's rows in place by a column ('key' or a field), as the table shows it."""
    if by == "key":
        rows.sort(key=lambda r: str(r["key"]).lower(), reverse=desc)
    elif by in columns:
        col = columns.index(by)
        rows.sort(key=lambda r: r["cells"][col]["sort"], reverse=desc)


# -- the typed state as a tree -----------------------------------------------------------------


def sensitivity(mem: Memory, subject: str) -> dict[tuple[str, str], str]:
    """(part, field) -> sensitivity class, for every sensitive field of the subject's model."""
    model = build_model(mem.catalog, mem.inferred_schemas(subject))
    out: dict[tuple[str, str], str] = {}
    parts: list[Any] = [*model.groups, *model.collections]  # each with .attr and .fields
    for part in parts:
        for f in part.fields:
            if f.spec.sensitivity != "none":
                out[(part.attr, f.name)] = f.spec.sensitivity
    return out


def state_tree(user: Any, sensitive: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    """The root object's parts: groups as field lists, collections as tables, notes as text."""
    parts = []
    hidden = sensitive_values(user, sensitive)
    for part in dataclasses.fields(user):
        value = getattr(user, part.name)
        if isinstance(value, tuple):
            names = []
            if value and dataclasses.is_dataclass(value[0]):
                # The record's key heads its row (a link to its provenance): not a column too.
                skip = ("fact_ids", "key")
                names = [f.name for f in dataclasses.fields(value[0]) if f.name not in skip]
            rows = []
            for record in value:
                key = getattr(record, "key", None) or getattr(record, "fact_id", "")
                cells = []
                for name in names:
                    cell = getattr(record, name)
                    masked = (part.name, name) in sensitive and cell is not None
                    text = MASK if masked else show(cell)
                    if part.name == "notes" and name == "text":
                        text = mask_note(text, hidden)
                    cells.append(
                        {
                            "text": text,
                            "sort": "" if masked else sort_key(cell),
                            "field": name,
                        }
                    )
                rows.append({"key": key, "expr": f"user.{part.name}[{key!r}]", "cells": cells})
            parts.append({"name": part.name, "kind": "collection", "columns": names, "rows": rows})
        elif dataclasses.is_dataclass(value):
            fields = []
            for f in dataclasses.fields(value):
                if f.name == "fact_ids":
                    continue
                cell = getattr(value, f.name)
                cls = sensitive.get((part.name, f.name))
                fields.append(
                    {
                        "name": f.name,
                        "text": MASK if cls and cell is not None else show(cell),
                        "sensitive": cls,
                        "expr": f"user.{part.name}.{f.name}",
                        "known": cell is not None,
                    }
                )
            parts.append({"name": part.name, "kind": "group", "fields": fields})
        else:
            parts.append({"name": part.name, "kind": "value", "text": show(value)})
    return parts


def sensitive_values(user: Any, sensitive: dict[tuple[str, str], str]) -> frozenset[str]:
    """The text of every value the catalog marks sensitive in this state (to find in notes)."""
    found: set[str] = set()
    for part in dataclasses.fields(user):
        value = getattr(user, part.name)
        for obj in value if isinstance(value, tuple) else (value,):
            if not dataclasses.is_dataclass(obj):
                continue
            for f in dataclasses.fields(obj):
                if (part.name, f.name) in sensitive and getattr(obj, f.name) is not None:
                    found |= {show(getattr(obj, f.name)), str(getattr(obj, f.name))}
    return frozenset(v for v in found if len(v) >= 3)  # "—" or "no" would mask every note


def subject_secrets(mem: Memory, subject: str) -> frozenset[str]:
    """`sensitive_values` of the subject's current checkpoint (none before the first)."""
    try:
        user = mem.checkpoint(subject).user
    except NotFound:
        return frozenset()
    return sensitive_values(user, sensitivity(mem, subject))


def mask_note(text: str, values: frozenset[str]) -> str:
    """A note as an overview shows it: what the safety filter masks (secrets, identifiers),
    and any sensitive value of the typed state it quotes (the catalog's sensitivity classes).
    """
    from uac.fact_log.extraction.safety import scan

    masked = scan(text).masked
    if not values:
        return masked
    pattern = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return re.sub(pattern, MASK, masked, flags=re.IGNORECASE)


def export_data(mem: Memory, subject: str, user: Any | None) -> dict[str, Any]:
    """'What do you remember about me': the typed state and notes, sensitive values masked."""
    sensitive = sensitivity(mem, subject)
    state: dict[str, Any] = {}
    notes: list[dict[str, Any]] = []
    if user is not None:
        hidden = sensitive_values(user, sensitive)
        for part in dataclasses.fields(user):
            value = getattr(user, part.name)
            if part.name == "notes":
                notes = [
                    {
                        "text": mask_note(n.text, hidden),
                        "recorded_at": show(getattr(n, "recorded_at", None)),
                    }
                    for n in value
                ]
            elif isinstance(value, tuple):
                if value:
                    state[part.name] = [_masked(part.name, r, sensitive) for r in value]
            elif dataclasses.is_dataclass(value):
                fields = _masked(part.name, value, sensitive)
                if any(v is not None for v in fields.values()):
                    state[part.name] = fields
    return {
        "subject": subject,
        "tenant": mem.tenant,
        "state": state,
        "notes": notes,
        "masked": sorted(f"{p}.{f}" for p, f in sensitive),
    }


def _masked(part: str, obj: Any, sensitive: dict[tuple[str, str], str]) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(obj):
        if f.name == "fact_ids":
            continue
        value = getattr(obj, f.name)
        out[f.name] = MASK if (part, f.name) in sensitive and value is not None else value
    return verbs.plain(out)


# -- the timeline ------------------------------------------------------------------------------


def activity_svg(days: list[dt.date], marks: list[tuple[dt.date, str]]) -> dict[str, Any]:
    """Facts per month as bars, with checkpoints and alerts as ticks: numbers for an SVG."""
    if not days and not marks:
        return {"bars": [], "ticks": [], "labels": [], "width": 0, "height": 0}
    everything = days + [d for d, _ in marks]
    first, last = min(everything), max(everything)
    months = (last.year - first.year) * 12 + last.month - first.month + 1
    counts = Counter((d.year - first.year) * 12 + d.month - first.month for d in days)
    top = max(counts.values(), default=1)
    # A fixed drawing width keeps labels legible; heights on a log scale keep a month of a
    # few messages visible next to a month with a thousand imported records.
    width, height, base = 720, 140, 110
    step = width / months
    bars = [
        {
            "x": round(i * step + 1, 1),
            "w": round(max(step - 2, 1), 1),
            "h": round(_scaled(n, top), 1),
            "y": round(base - _scaled(n, top), 1),
            "title": f"{_month(first, i)}: {n} facts",
        }
        for i, n in sorted(counts.items())
    ]
    ticks = [
        {
            "x": round(((d.year - first.year) * 12 + d.month - first.month + 0.5) * step, 1),
            "kind": kind,
            "title": f"{d.isoformat()}: {kind}",
        }
        for d, kind in marks
    ]
    labels = [
        {"x": round(i * step, 1), "text": _month(first, i)}
        for i in range(months)
        if (first.month - 1 + i) % 12 == 0 or i == 0
    ]
    return {
        "bars": bars,
        "ticks": ticks,
        "labels": labels,
        "width": width,
        "height": height,
        "top": top,
    }


def _scaled(n: int, top: int) -> float:
    return max(math.log1p(n) / math.log1p(top) * 90, 2.0)


def _month(first: dt.date, offset: int) -> str:
    n = first.month - 1 + offset
    return f"{first.year + n // 12}-{n % 12 + 1:02d}"


def masked_fact_text(mem: Memory, fact: Any, hidden: frozenset[str] = frozenset()) -> str:
    """A fact's statement or value for an overview, with sensitive values masked.

    A sensitive value's statement quotes it too, so both are hidden; the `why` page of the
    value is where an operator deliberately looks at it. A note is masked as `mask_note`
    does (`hidden`: the state's sensitive values).
    """
    if fact.kind == "note":
        return mask_note(fact.text or "", hidden)
    spec = mem.catalog.attributes.get(fact.path)
    if spec is not None:
        if spec.spec.sensitivity != "none":
            return MASK
        return fact.text or (fact.value_json or "")[:160]
    coll = mem.catalog.collection(fact.path)
    hidden = frozenset(
        n for n, f in (coll.spec.fields.items() if coll else ()) if f.sensitivity != "none"
    )
    value = fact.value
    if isinstance(value, dict) and hidden & set(value):
        value = {k: MASK if k in hidden else v for k, v in value.items()}
        return json.dumps(verbs.plain(value), ensure_ascii=False)[:160]
    if hidden and fact.text:
        return MASK  # free text about a record with sensitive fields may quote them
    return fact.text or (fact.value_json or "")[:160]


def timeline(mem: Memory, subject: str, offset: int, size: int) -> dict[str, Any]:
    """Facts, checkpoints and alerts of a subject as dated events, newest first (one page)."""
    addr = mem.address(subject)
    facts = mem.facts(subject)
    checkpoints = mem.store.checkpoints(addr)
    alerts = mem.alerts(subject, include_resolved=True)
    hidden = subject_secrets(mem, subject)
    events: list[dict[str, Any]] = []
    for f in facts:
        what = f.path + (f"[{f.record_key}]" if f.record_key else "")
        events.append(
            {
                "at": f.recorded_at,
                "kind": f"fact {f.op}",
                "text": what,
                "detail": masked_fact_text(mem, f, hidden),
                "fields": fact_fields(mem, f),
                "source": f.source,
                "id": f.id,
            }
        )
    # One time axis, the facts' dates: a checkpoint stands at the date of the newest fact it
    # compiled (its wall-clock publication time is its detail), so replayed or imported
    # history and the compiles that followed it read in one order.
    by_seq = sorted((f.seq, f.recorded_at) for f in facts)
    for c in checkpoints:
        published = c.get("published_at") or c.get("finished_at") or c.get("started_at")
        upto = [at for seq, at in by_seq if seq <= (c.get("watermark") or 0)]
        n = c.get("facts") or 0
        events.append(
            {
                "at": upto[-1] if upto else published,
                "kind": f"checkpoint {c.get('status')}",
                "text": f"version {c.get('version')}" if c.get("version") else "compile",
                "detail": f"{n:,} fact{'s' if n != 1 else ''} up to seq {c.get('watermark')};"
                f" {c.get('status')} {show(published)}",
                "fields": None,
                "source": "compiler",
                "id": None,
            }
        )
    for a in alerts:
        events.append(
            {
                "at": a.first_seen,
                "kind": "alert raised",
                "text": a.message,
                "detail": f"{a.severity} · {a.check}",
                "fields": None,
                "source": "checks",
                "id": a.id,
            }
        )
        if a.resolved_on is not None:
            events.append(
                {
                    "at": a.resolved_on,
                    "kind": "alert resolved",
                    "text": a.message,
                    "detail": a.check,
                    "fields": None,
                    "source": "checks",
                    "id": a.id,
                }
            )
    for e in events:
        at = e["at"]
        e["day"] = at.date() if isinstance(at, dt.datetime) else at
        e["sort"] = at if isinstance(at, dt.datetime) else dt.datetime.combine(at, dt.time.max)
    events = [e for e in events if e["day"] is not None]
    # At one instant a checkpoint comes after the facts it compiled (newest first: above).
    events.sort(key=lambda e: (e["sort"], e["kind"].startswith("checkpoint")), reverse=True)
    marks = [(e["day"], e["kind"].split()[0]) for e in events if not e["kind"].startswith("fact")]
    plot = activity_svg([f.recorded_at.date() for f in facts], marks)
    counts = Counter(e["kind"] for e in events)
    shown, pager = paged(events, offset, size)
    return {
        "events": shown,
        "paging": pager,
        "plot": plot,
        "counts": [counted(kind, n) for kind, n in sorted(counts.items())],
    }


_DONE = {"assert": "asserted", "retract": "retracted", "publish": "published"}


def counted(kind: str, n: int) -> str:
    """An event kind counted in words: "1 alert raised", "4 alerts raised", "3 facts asserted"."""
    noun, _, rest = kind.partition(" ")
    rest = _DONE.get(rest, rest)
    return f"{n:,} {noun}{'s' if n != 1 else ''}" + (f" {rest}" if rest else "")


def fact_fields(mem: Memory, fact: Any) -> list[tuple[str, str]] | None:
    """A fact's value as typed rows (field, shown value), sensitive ones masked; None for a
    note or a fact without a value (its statement is shown instead)."""
    if fact.kind == "note" or fact.value_json is None:
        return None
    value = fact.value
    spec = mem.catalog.attributes.get(fact.path)
    if spec is not None:
        return [("value", MASK if spec.spec.sensitivity != "none" else show(value))]
    coll = mem.catalog.collection(fact.path)
    if not isinstance(value, dict):
        return [("value", show(value))]
    hidden = {n for n, f in coll.spec.fields.items() if f.sensitivity != "none"} if coll else set()
    return [(k, MASK if k in hidden else show(v)) for k, v in value.items()]


def fact_view(f: Any, statuses: dict[str, dict[str, Any]]) -> dict[str, Any]:
    evidence = f.evidence
    quotes = []
    for e in evidence if isinstance(evidence, list) else [evidence]:
        if isinstance(e, dict):
            where = ", ".join(f"{k} {v}" for k, v in e.items() if k not in ("quote", "tier"))
            quotes.append({"quote": e.get("quote"), "tier": e.get("tier"), "where": where})
    status = statuses.get(f.id, {})
    return {
        "id": f.id,
        "op": f.op,
        "path": f.path + (f"[{f.record_key}]" if f.record_key else ""),
        "value": show(f.value) if f.value_json is not None else None,
        "text": f.text,
        "source": f.source,
        "confidence": f.confidence,
        "recorded_at": f.recorded_at,
        "status": status.get("status"),
        "decision": status.get("decision"),
        "superseded_by": status.get("superseded_by"),
        "quotes": quotes,
        "input_id": f.input_id,
    }
