"""Fold a subject's rule facts into `RuleModel`s for the generated `constraints.py`.

Each active rule fact is validated again against the catalog (it may have changed since the
rule was written) and resolved against the subject's model: field names become the
dataclass attributes the generated function reads, and the user's words (the rule's name,
the values it compares) become literals for the template. A rule that no longer fits is
left out and reported as an `invalid_rule` diagnostic; several facts holding the same rule
reinforce one another.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from uac.compiler.model import CollectionModel, FactStatus, RuleModel, SubjectModel
from uac.fact_log.catalog import Catalog
from uac.fact_log.store import Fact
from uac.fact_log.user_rules import (
    AnyRule,
    ForbidRule,
    ReminderRule,
    RuleError,
    rule_id,
    validate_rule,
)


def fold_rules(
    catalog: Catalog,
    model: SubjectModel,
    facts: list[Fact],
    statuses: dict[str, FactStatus],
    diagnostics: list[dict[str, Any]],
) -> None:
    """Turn active rule facts (log order) into `model.rules`, ordered by rule id.

    Each fact's status goes into `statuses` and every rule that no longer fits into
    `diagnostics` (the fold's own tables, passed in so this module never imports the fold).
    """
    by_rule: dict[str, list[Fact]] = defaultdict(list)
    resolved: dict[str, RuleModel] = {}
    for fact in facts:
        try:
            rule = validate_rule(fact.value, catalog)
            rid = rule_id(rule)
            resolved.setdefault(rid, _resolve(model, rule, rid))
        except RuleError as exc:
            statuses[fact.id] = FactStatus("observed", "ignored")
            diagnostics.append({"kind": "invalid_rule", "fact": fact.id, "error": str(exc)})
            continue
        by_rule[rid].append(fact)
    for rid in sorted(by_rule):
        same = by_rule[rid]
        for n, fact in enumerate(same):
            statuses[fact.id] = FactStatus(
                "active", "add" if n == 0 else "reinforce", support=len(same)
            )
        model.rules.append(replace(resolved[rid], fact_ids=tuple(f.id for f in same)))


def _collection(model: SubjectModel, name: str) -> CollectionModel:
    for coll in model.collections:
        if coll.attr == name and not coll.inferred:
            return coll
    raise RuleError(f"invalid rule: this subject has no collection {name!r}")


def _attr(coll: CollectionModel, source: str) -> str:
    for field in coll.fields:
        if field.source == source:
            return field.name
    raise RuleError(f"invalid rule: collection {coll.attr!r} has no field {source!r}")


def _resolve(model: SubjectModel, rule: AnyRule, rid: str) -> RuleModel:
    label = rule.name or rid
    if isinstance(rule, ReminderRule):
        group, name = rule.path.split(".")
        coll = next((c for c in model.collections if c.attr == group), None)
        params: dict[str, Any] = {
            "days": rule.days_before,
            "path": rule.path,
            "collection": coll.attr if coll else None,
            "group": None if coll else group,
            "field": _attr(coll, name) if coll else name,
            "prefix": f"Reminder '{label}': {rule.path} is ",
        }
        summary = f"Reminder '{label}': {rule.days_before} days before {rule.path}."
    elif isinstance(rule, ForbidRule):
        coll = _collection(model, rule.collection)
        field = _attr(coll, rule.field)
        params = {
            "collection": coll.attr,
            "field": field,
            "value": rule.value.strip().lower(),
            "prefix": f"Your rule '{label}' forbids {coll.attr} with {rule.field} = {rule.value}, ",
            "head": f"{coll.attr}[",
            "mid": f"].{rule.field} = ",
            "tail": f" == {rule.value!r}",
        }
        summary = f"Forbid rule '{label}': no {coll.attr} with {rule.field} = {rule.value!r}."
    else:
        coll = _collection(model, rule.collection)
        what = f"{rule.agg}({rule.field or 'records'})"
        where = ", ".join(f"{k}={v}" for k, v in sorted(rule.filter.items()))
        conditions: list[tuple[str, str, str | None]] = [
            ("same", _attr(coll, k), v.strip().lower()) for k, v in sorted(rule.filter.items())
        ]
        if rule.window != "all":
            conditions.append(("within", _attr(coll, rule.date_field), None))
        params = {
            "collection": coll.attr,
            "conditions": conditions,
            "window": rule.window,
            "days": int(rule.window.split("_")[1]) if rule.window.startswith("last_") else 0,
            "agg": rule.agg,
            "field": _attr(coll, rule.field) if rule.field else None,
            "op": rule.op,
            "value": rule.value,
            "prefix": f"Your rule '{label}' triggered: {what} of {coll.attr}"
            + (f" ({where})" if where else ""),
            "what": what,
            "compare": f"{rule.op} {rule.value}",
        }
        summary = (
            f"Threshold rule '{label}': {what} of {coll.attr}"
            + (f" where {where}" if where else "")
            + f", {rule.window.replace('_', ' ')}, {rule.op} {rule.value}."
        )
    return RuleModel(rid, rule.type, rule.severity, summary, (), params)
