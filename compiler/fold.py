"""The fold: a subject's log prefix → typed state, per-fact status and diagnostics.

Semantics, per path:
- a retract disables the fact it targets (the retract itself stays in the log);
- a fact below its source's confidence threshold is only `observed`, it never wins;
- single-valued attributes: the winner is the eligible assert with the highest
  (source rank, recorded_at, confidence, seq) — explicit user sources rank above tool
  results, which rank above automatic extraction. Facts with the winner's value are
  `active` (ADD for the first, REINFORCE after: support grows); other values are
  `superseded` by the winner (its decision is SUPERSEDE);
- collection records are grouped by record key and merged in precedence order: policy
  `update` merges fields (UPDATE), `replace` keeps the top record and supersedes the rest;
- values that cannot be coerced to their field type are dropped and reported.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from uac.compiler.model import (
    CoercionError,
    FactStatus,
    NoteModel,
    RecordModel,
    SubjectModel,
    coerce,
    coerce_field,
    collection_digest,
)
from uac.compiler.rule_fold import fold_rules
from uac.fact_log.catalog import Catalog
from uac.fact_log.scopes import MEMBERSHIP_KIND, SCOPE_RANK
from uac.fact_log.store import Fact
from uac.fact_log.user_rules import RULE_KIND

SOURCE_RANK = {
    "explicit_command": 2,
    "user_markdown": 2,
    "import": 2,
    "tool_result": 1,
    "automatic_rule": 0,
    "automatic_llm": 0,
}
# Facts below these confidences are kept as observations but never win a slot.
CONFIDENCE_THRESHOLDS = {"automatic_rule": 0.6, "automatic_llm": 0.75, "tool_result": 0.5}


@dataclass(slots=True)
class FoldResult:
    """The folded state of one subject plus how each fact was used."""

    model: SubjectModel
    statuses: dict[str, FactStatus] = field(default_factory=dict)
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    watermark: int = 0
    head_id: str | None = None
    memo: dict[Any, Any] = field(default_factory=dict)  # record groups folded (for the next)
    scopes: dict[str, str] = field(default_factory=dict)  # inherited fact id -> its scope
    collections: dict[str, Any] = field(default_factory=dict)  # attr -> its `_Collection`


def _rank(fact: Fact) -> tuple[int, int, dt.datetime, float, int]:
    # Scope first: a user's own fact overrides its group's, which overrides its tenant's
    # (a subject's own log is one scope, so this changes nothing there).
    return (
        SCOPE_RANK.get(fact.scope, 0),
        SOURCE_RANK.get(fact.source, 0),
        fact.recorded_at,
        fact.confidence,
        fact.seq,
    )


def select_facts(
    facts: Iterable[Fact], as_of: dt.datetime | None = None, known_at: dt.datetime | None = None
) -> list[Fact]:
    """The log prefix to fold: recorded by known_at, and (asserts) valid at as_of."""
    chosen = []
    for fact in facts:
        if known_at is not None and fact.recorded_at > known_at:
            continue
        if as_of is not None and fact.op == "assert":
            if fact.valid_from is not None and fact.valid_from > as_of:
                continue
            if fact.valid_to is not None and fact.valid_to <= as_of:
                continue
        chosen.append(fact)
    return chosen


def fold(
    catalog: Catalog,
    model: SubjectModel,
    facts: list[Fact],
    memo: dict[Any, Any] | None = None,
    scopes: dict[str, str] | None = None,
) -> FoldResult:
    """Fold facts (one subject, log order) into model; returns the filled result.

    `scopes` names the scope of each inherited fact (fact id -> 'group:x' or 'tenant', see
    compiler/inherit.py); the model records which values came from there, and when each
    value that can go stale was last asserted.

    `memo` is the `FoldResult.memo` of an earlier fold of the same subject (any earlier one:
    entries are keyed by the exact facts they were folded from); unchanged record groups are
    taken from it instead of being merged and typed again.
    """
    result = FoldResult(model)
    if facts:
        result.watermark, result.head_id = facts[-1].seq, facts[-1].id
    statuses = result.statuses
    by_id = {f.id: f for f in facts}
    retracted: set[str] = set()
    for fact in facts:
        if fact.op == "retract":
            target = (fact.value or {}).get("target") if isinstance(fact.value, dict) else None
            statuses[fact.id] = FactStatus("active", "retract")
            if target in by_id:
                retracted.add(target)
            else:
                result.diagnostics.append(
                    {"kind": "dangling_retract", "fact": fact.id, "target": target}
                )
        elif fact.op != "assert":
            statuses[fact.id] = FactStatus("active", fact.op)
    attributes: dict[str, list[Fact]] = defaultdict(list)
    records: dict[str, list[Fact]] = defaultdict(list)
    rules: list[Fact] = []
    replaced = _replaced_note_facts(facts)
    for fact in facts:
        if fact.op != "assert":
            continue
        if fact.id in retracted:
            statuses[fact.id] = FactStatus("disabled", "retract")
        elif fact.id in replaced:
            statuses[fact.id] = FactStatus("superseded", "ignored", superseded_by=replaced[fact.id])
        elif fact.confidence < CONFIDENCE_THRESHOLDS.get(fact.source, 0.0):
            statuses[fact.id] = FactStatus("observed", "ignored")
        elif fact.kind in ("note", "soft_preference", MEMBERSHIP_KIND):
            # Untyped text: searchable (notes) or recalled by relevance (soft preferences);
            # memberships are read by the compile of each member (compiler/inherit.py).
            statuses[fact.id] = FactStatus("active", fact.kind)
        elif fact.kind in ("attribute", "preference"):
            attributes[fact.path].append(fact)
        elif fact.kind == "record":
            records[fact.path].append(fact)
        elif fact.kind == RULE_KIND:
            rules.append(fact)
        else:
            statuses[fact.id] = FactStatus("observed", "ignored")
    _fold_attributes(catalog, result, attributes)
    result.collections = _fold_records(result, records, memo or {})
    fold_rules(catalog, model, rules, result.statuses, result.diagnostics)
    model.notes = [
        NoteModel(f.id, f.text or "", f.recorded_at)
        for f in facts
        if f.kind == "note"
        and f.op == "assert"  # a retract of a note carries the reason in `text`, not a note
        and f.id in statuses
        and statuses[f.id].status == "active"
    ]
    if scopes:
        result.scopes = {fid: scopes[fid] for fid in sorted(statuses) if fid in scopes}
    _annotate(catalog, model, by_id, scopes or {}, result.collections)
    return result


def _annotate(
    catalog: Catalog,
    model: SubjectModel,
    by_id: dict[str, Fact],
    scopes: dict[str, str],
    collections: dict[str, _Collection],
) -> None:
    """Fill the model's `inherited_from` and `as_of` maps (object path -> scope / day).

    A value is inherited when none of the facts behind it is the subject's own: it names the
    scope(s) of those facts. `as_of` is the day a value that can go stale (catalog
    `stale_after_days`) was last asserted — a fact of the log, so the code stays the same;
    whether it is stale is decided against `today` by whoever reads it.
    """
    values: list[tuple[str, str, tuple[str, ...]]] = []
    paths = {(a.group, a.name): a.path for a in catalog.attributes.values()}
    for group in model.groups:
        for name, ids in group.fact_ids.items():
            path = paths.get((group.attr, name), "")
            values.append((f"user.{group.attr}.{name}", path, ids))
    for coll in model.collections:
        known = collections.get(coll.attr)
        days = catalog.policy(coll.path).stale_after_days
        if known is not None and not scopes:
            # Nothing inherited: a collection's entries depend only on its (unchanged) facts.
            if known.annotations is None or known.annotations[0] != days:
                known.annotations = (days, _aging(coll, coll.path, by_id, days))
            model.as_of.update(known.annotations[1])
            model.stale_after_days.update(dict.fromkeys(known.annotations[1], days))
            continue
        for record in coll.records:
            values.append((f"user.{coll.attr}[{record.key!r}]", coll.path, record.fact_ids))
    for note in model.notes:
        values.append((f"user.notes[{note.fact_id!r}]", "notes", (note.fact_id,)))
    for where, path, ids in values:
        if scopes and ids and all(i in scopes for i in ids):
            model.inherited_from[where] = " + ".join(sorted({scopes[i] for i in ids}))
        days = catalog.policy(path).stale_after_days
        if days is not None and ids:
            model.as_of[where] = max(by_id[i].recorded_at for i in ids if i in by_id).date()
            model.stale_after_days[where] = days


def _aging(coll: Any, path: str, by_id: dict[str, Fact], days: int | None) -> dict[str, dt.date]:
    """Object path -> day last asserted, for each record of a collection that can go stale."""
    if days is None:
        return {}
    return {
        f"user.{coll.attr}[{r.key!r}]": max(
            by_id[i].recorded_at for i in r.fact_ids if i in by_id
        ).date()
        for r in coll.records
        if r.fact_ids
    }


def _replaced_note_facts(facts: list[Fact]) -> dict[str, str | None]:
    """Facts from an older version of a Markdown note → first fact of the newest version.

    Editing a note replaces everything its previous version produced: only the facts of the
    latest ingestion (input) of each note id count; automatic facts are unaffected.
    """
    versions: dict[str, dict[str, list[Fact]]] = defaultdict(lambda: defaultdict(list))
    for fact in facts:
        if fact.op == "assert" and fact.source == "user_markdown" and fact.evidence_json:
            evidence = fact.evidence
            if isinstance(evidence, dict) and evidence.get("note"):
                versions[str(evidence["note"])][fact.input_id or ""].append(fact)
    replaced: dict[str, str | None] = {}
    for by_input in versions.values():
        ordered = sorted(by_input.values(), key=lambda group: group[-1].seq)
        newest = ordered[-1][0].id
        for group in ordered[:-1]:
            replaced.update({f.id: newest for f in group})
    return replaced


def _unknown_path(result: FoldResult, path: str, facts: list[Fact]) -> None:
    # A path the catalog (or the inferred schemas) no longer has: keep the facts as
    # observations and say so, rather than failing the whole compile.
    for fact in facts:
        result.statuses[fact.id] = FactStatus("observed", "ignored")
    result.diagnostics.append(
        {"kind": "unknown_path", "path": path, "facts": [f.id for f in facts]}
    )


def _fold_attributes(catalog: Catalog, result: FoldResult, by_path: dict[str, list[Fact]]) -> None:
    groups = {g.attr: g for g in result.model.groups}
    for path in sorted(by_path):
        attr = catalog.attributes.get(path)
        if attr is None:
            _unknown_path(result, path, by_path[path])
            continue
        eligible: list[tuple[Fact, Any]] = []
        for fact in by_path[path]:
            try:
                eligible.append((fact, coerce(attr.spec, fact.value)))
            except CoercionError as exc:
                result.statuses[fact.id] = FactStatus("observed", "ignored")
                result.diagnostics.append(
                    {
                        "kind": "coercion",
                        "path": path,
                        "fact": fact.id,
                        "value": fact.value,
                        "error": str(exc),
                    }
                )
        if not eligible:
            continue
        winner, value = max(eligible, key=lambda fv: _rank(fv[0]))
        same = [f for f, v in eligible if v == value]
        for n, fact in enumerate(sorted(same, key=lambda f: f.seq)):
            decision = "add" if n == 0 else "reinforce"
            result.statuses[fact.id] = FactStatus("active", decision, support=len(same))
        losers = [f for f, v in eligible if v != value]
        for fact in losers:
            result.statuses[fact.id] = FactStatus("superseded", "ignored", superseded_by=winner.id)
        if losers:
            result.statuses[winner.id].decision = "supersede"
            _report_contradictions(result, path, winner, losers)
        group = groups[attr.group]
        group.values[attr.name] = value
        group.fact_ids[attr.name] = tuple(f.id for f in sorted(same, key=lambda f: f.seq))


_SAID = frozenset({"automatic_rule", "automatic_llm"})  # learned from what the user said


def _says_changed(fact: Fact) -> bool:
    """Whether the message a fact came from says the value changed (evidence "change")."""
    evidence = fact.evidence
    return isinstance(evidence, dict) and bool(evidence.get("change"))


def _report_contradictions(result: FoldResult, path: str, winner: Fact, losers: list[Fact]) -> None:
    for fact in losers:
        if fact.scope != winner.scope:
            continue  # a user's own value over its group's is precedence, not a contradiction
        tie = _rank(fact)[:4] == _rank(winner)[:4]
        newer = (fact.recorded_at, fact.seq) > (winner.recorded_at, winner.seq)
        # Two messages saying different values: the later wins, and an agent may want to ask
        # which is right ("expires 3 May" and, weeks later, "expires 3 June") - unless the
        # later one says the value changed or corrects it ("I live in Lisbon now").
        said = (
            {fact.source, winner.source} <= _SAID
            and fact.input_id != winner.input_id
            and not _says_changed(winner)
        )
        if tie or newer or said:
            rule = (
                "log order (unresolved tie)"
                if tie
                else "source precedence over recency"
                if newer
                else "the later statement"
            )
            result.diagnostics.append(
                {
                    "kind": "contradiction",
                    "path": path,
                    "kept": winner.id,
                    "over": fact.id,
                    "rule": rule,
                }
            )


@dataclass(frozen=True, slots=True)
class _Group:
    """The fold of one record group: everything a memo hit has to restore."""

    statuses: tuple[tuple[str, FactStatus], ...]
    diagnostics: tuple[dict[str, Any], ...]
    record: RecordModel | None
    sort_key: tuple[Any, ...] = ()


@dataclass(slots=True)
class _Collection:
    """The fold of one collection, kept for the next fold: all of it is reused when the
    facts reaching the collection are exactly the same ones, in the same order."""

    ids: tuple[str, ...]  # the facts of the path that reached the record fold, in log order
    groups: dict[Any, _Group]  # its record groups, for a fold where only some changed
    records: list[RecordModel]
    statuses: dict[str, FactStatus]
    diagnostics: tuple[dict[str, Any], ...]
    digest: str | None = None  # its part digest (`model.collection_digest`), once computed
    annotations: Any = None  # what `_annotate` derived from it (no scopes), once computed
    status_lines: Any = None  # its facts' provenance.json lines (`compiler.render`), once built


def _fold_records(
    result: FoldResult, by_path: dict[str, list[Fact]], memo: dict[Any, Any]
) -> dict[str, _Collection]:
    # A group's fold depends only on its facts (ids are content hashes), its key and the
    # collection's definition: the memo, keyed by exactly those, returns the same objects.
    # A collection whose facts are all the same as last time is taken whole from the memo:
    # a change elsewhere costs nothing per record here. Returns them by collection attribute.
    folded: dict[str, _Collection] = {}
    for path in sorted(by_path):
        coll = result.model.collection(path)
        if coll is None:
            _unknown_path(result, path, by_path[path])
            continue
        definition = repr((coll.path, coll.merge, coll.key_fields, coll.fields))
        ids = tuple(f.id for f in by_path[path])
        known = memo.get(("collection", definition))
        if known is None or known.ids != ids:
            known = _fold_collection(coll, path, by_path[path], known.groups if known else {})
            known.ids = ids
        result.memo[("collection", definition)] = known
        result.statuses.update(known.statuses)
        result.diagnostics.extend(known.diagnostics)
        coll.records = known.records
        if known.digest is None:
            known.digest = collection_digest(coll)
        coll.digest = known.digest
        folded[coll.attr] = known
    return folded


def _fold_collection(
    coll: Any, path: str, facts: list[Fact], memo: dict[Any, _Group]
) -> _Collection:
    """Fold one collection's facts into records, reusing the unchanged record groups."""
    by_key: dict[str, list[Fact]] = defaultdict(list)
    endings: list[Fact] = []
    for fact in facts:
        if _is_ending(fact):
            endings.append(fact)
        else:
            by_key[fact.record_key or fact.id].append(fact)
    fields = {f.source: f for f in coll.fields}
    diagnostics: list[dict[str, Any]] = []
    for fact in endings:
        target, partial = _ending_target(fact, by_key, fields, tuple(coll.key_fields))
        if target is None:
            kind = "ambiguous_ending" if partial > 1 else "unmatched_ending"
            diagnostics.append({"kind": kind, "path": path, "fact": fact.id})
            target = fact.record_key or fact.id
        by_key[target].append(fact)
    out = _Collection((), {}, [], {}, ())
    groups: list[_Group] = []
    for key, contributions in by_key.items():
        mkey = (key, tuple(f.id for f in contributions))
        group = memo.get(mkey) or _fold_group(coll, key, contributions, fields)
        out.groups[mkey] = group
        out.statuses.update(group.statuses)
        diagnostics.extend(group.diagnostics)
        if group.record is not None:
            groups.append(group)
    out.records = [g.record for g in sorted(groups, key=lambda g: g.sort_key)]  # type: ignore[misc]
    out.diagnostics = tuple(diagnostics)
    return out


def _fold_group(coll: Any, key: str, contributions: list[Fact], fields: dict[str, Any]) -> _Group:
    """Merge one record's facts in precedence order and type the result."""
    statuses: dict[str, FactStatus] = {}
    ordered = sorted(contributions, key=_rank)
    merged: dict[str, Any] = {}
    used: list[Fact] = []
    if coll.merge == "replace":
        top = ordered[-1]
        for fact in ordered[:-1]:
            statuses[fact.id] = FactStatus("superseded", "ignored", superseded_by=top.id)
        ordered = [top]
    for n, fact in enumerate(ordered):
        value = fact.value
        value = value if isinstance(value, dict) else {}
        if merged and _is_ending(fact):
            # An ending names its record ("the yoga" for "Yoga class"): it adds dates, it
            # does not rename the record.
            value = {k: v for k, v in value.items() if k not in merged or _is_dated(fields, k)}
        before = dict(merged)
        merged.update({k: v for k, v in value.items() if v is not None})
        decision = "add" if n == 0 else ("reinforce" if merged == before else "update")
        statuses[fact.id] = FactStatus("active", decision, support=len(ordered))
        used.append(fact)
    diagnostics: list[dict[str, Any]] = []
    typed = _type_record(diagnostics, coll, key, merged, fields)
    if typed is None:
        for fact in used:
            statuses[fact.id] = FactStatus("observed", "ignored")
        return _Group(tuple(statuses.items()), tuple(diagnostics), None)
    record = RecordModel(key, tuple(f.id for f in sorted(used, key=lambda f: f.seq)), typed)
    return _Group(tuple(statuses.items()), tuple(diagnostics), record, _sort_key(coll, record))


def _is_ending(fact: Fact) -> bool:
    # "I stopped taking X" arrives without the record's key fields (no start date), and
    # "cancelled NOW TV" names the plan "NOW TV Boost" by part of its key, often sessions
    # later: an ending names the record it ends by its other fields, and ends that record
    # rather than start a new one (its own key only when it names no earlier record).
    if fact.evidence_json is None:
        return False
    evidence = fact.evidence
    return isinstance(evidence, dict) and evidence.get("intent") == "end"


def _ending_target(
    fact: Fact, by_key: dict[str, list[Fact]], fields: dict[str, Any], keys: tuple[str, ...] = ()
) -> tuple[str | None, int]:
    """The key of the latest record whose non-date fields match an ending fact's (None when
    none does, or when several match only in part), and how many matched in part."""
    value = fact.value if isinstance(fact.value, dict) else {}
    wanted = {
        k: str(v).casefold()
        for k, v in value.items()
        if k in fields and not _is_dated(fields, k) and v is not None
    }
    if not wanted:
        return None, 0
    # An ending cannot end a record begun after it: its earliest day ("stopped on 2 March",
    # "the one I started on 1 March") bounds the dated key fields of the records it may mean.
    bound = min(
        (str(v)[:10] for k, v in value.items() if _is_dated(fields, k) and v is not None),
        default=None,
    )
    best: tuple[bool, str, str] | None = None
    partial = 0  # records named by part of their fields only ("Sky" for "Sky Sports")
    for key, facts in by_key.items():
        merged: dict[str, Any] = {}
        for f in sorted(facts, key=_rank):
            if f.seq < fact.seq and isinstance(f.value, dict):
                merged.update({k: v for k, v in f.value.items() if v is not None})
        if bound is not None and any(
            _is_dated(fields, k) and merged.get(k) is not None and str(merged[k])[:10] > bound
            for k in keys
        ):
            continue
        said = {k: str(merged.get(k, "")) for k in wanted}
        exact = all(said[k].casefold() == v for k, v in wanted.items())
        # "we stopped the yoga" ends "Yoga class", "my gym membership" ends "PureGym": every
        # word of the ending names the record (a word of its name, or a part of a CamelCase one)
        if merged and (exact or all(_words(v) <= _words(said[k]) for k, v in wanted.items())):
            when = max(
                (str(v) for k, v in merged.items() if _is_dated(fields, k)),
                default="",
            )
            partial += not exact
            if best is None or (exact, when, key) > best:
                best = (exact, when, key)
    if best is None or (not best[0] and partial > 1):
        return None, partial  # none, or several it may mean ("Sky": Sports or Broadband?)
    return best[2], partial


def _is_dated(fields: dict[str, Any], name: str) -> bool:
    return name in fields and fields[name].spec.type in ("date", "datetime")


def _words(text: str) -> frozenset[str]:
    """The casefolded words of a name, and the parts of a word written in CamelCase, as brand
    names glue words ("PureGym": puregym, pure, gym); a word inside another is no part."""
    out = set()
    for word in re.findall(r"\w+", text):
        out.add(word.casefold())
        parts = _CAMEL.findall(word)
        if len(parts) > 1 and "".join(parts) == word:
            out.update(p.casefold() for p in parts)
    return frozenset(out)


_CAMEL = re.compile(r"[A-Z][a-z]+|[a-z]+|[A-Z]+(?![a-z])|\d+")


def _type_record(
    diagnostics: list[dict[str, Any]],
    coll: Any,
    key: str,
    merged: dict[str, Any],
    fields: dict[str, Any],
) -> dict[str, Any] | None:
    typed: dict[str, Any] = {}
    for source, raw in merged.items():
        fm = fields.get(source)
        if fm is None:
            if source == "id":  # the record key; a typed field only where the schema has one
                continue
            diagnostics.append(
                {"kind": "unknown_field", "path": coll.path, "key": key, "field": source}
            )
            continue
        try:
            typed[fm.name] = coerce_field(fm, raw)
        except CoercionError as exc:
            diagnostics.append(
                {
                    "kind": "coercion",
                    "path": coll.path,
                    "key": key,
                    "field": source,
                    "value": raw,
                    "error": str(exc),
                }
            )
    missing = [f.source for f in coll.fields if f.spec.required and f.name not in typed]
    if missing:
        diagnostics.append(
            {"kind": "missing_required", "path": coll.path, "key": key, "fields": missing}
        )
        return None
    return typed


def _sort_key(coll: Any, record: RecordModel) -> tuple[Any, ...]:
    # By typed id where the collection has an `id` field; else chronologically by the first
    # date field the record has; then by the typed key fields and the key. Typed: 9 before
    # 10, dates as dates — never the key's text alone ("368" < "42").
    values = record.values
    for fm in coll.fields:
        if fm.source == "id" and values.get(fm.name) is not None:
            return (0, _natural(values[fm.name]), (), record.key)
    names = {fm.source: fm.name for fm in coll.fields}
    keys = tuple(_natural(values.get(names.get(k, k))) for k in coll.key_fields)
    for fm in coll.fields:
        if fm.spec.type in ("date", "datetime"):
            value = values.get(fm.name)
            if value is not None:
                return (2, value.isoformat(), keys, record.key)
    return (1, "", keys, record.key)


def _natural(value: Any) -> tuple[int, Any]:
    """A value's place in a natural order: numbers, then text, dates, date-times, the rest."""
    if value is None:
        return (-1, 0)
    if isinstance(value, bool):
        return (0, int(value))
    if isinstance(value, int | float) or (isinstance(value, Decimal) and value.is_finite()):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, dt.datetime):
        return (3, value)
    if isinstance(value, dt.date):
        return (2, value)
    return (4, repr(value))
