"""User rules as facts: small validated structures (never code) evaluated like checks.

A rule is appended as a fact of kind "rule" on path "rules", keyed by its id (see
`rule_fact`), and retracted like any fact. Three shapes exist:

- threshold: an aggregate over a collection's records in a time window compared to a value,
  e.g. dining spend over 500 GBP in a calendar month;
- reminder: N days before a date field (`passport.expiry_date`, `visas.valid_until`);
- forbid: a record whose field equals a value (e.g. a trip to a given country).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import operator
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from checks.library import period_bounds
from checks.model import AlertDraft, Check, CheckConfig
from fact_log.addressing import Address
from fact_log.catalog import Catalog
from fact_log.errors import InputError
from fact_log.store import Batch, NewFact, Store

RULE_KIND = "rule"
RULE_PATH = "rules"
_IDENT = r"^[a-z][a-z0-9_]*$"
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
}


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = Field(default=None, max_length=120)
    severity: Literal["critical", "warning", "info"] = "warning"


class ThresholdRule(_Base):
    """Alert when agg(field) over the collection's records in a window compares true."""

    type: Literal["threshold"]
    collection: str = Field(pattern=_IDENT)
    filter: dict[str, str] = Field(default_factory=dict, max_length=8)
    field: str | None = Field(default=None, pattern=_IDENT)  # not needed for count
    agg: Literal["sum", "count", "avg", "min", "max"] = "sum"
    window: Literal[
        "calendar_week", "calendar_month", "calendar_year", "last_7_days", "last_30_days", "all"
    ] = "calendar_month"
    date_field: str = Field(default="date", pattern=_IDENT)
    op: Literal[">", ">=", "<", "<=", "==", "!="] = ">"
    value: Decimal

    @field_validator("filter")
    @classmethod
    def _filter_fields(cls, value: dict[str, str]) -> dict[str, str]:
        for key in value:
            if not re.match(_IDENT, key):
                raise ValueError(f"filter field {key!r} is not a field name")
        return value


class ReminderRule(_Base):
    """Alert `days_before` days before a date field (attribute group or collection field)."""

    type: Literal["reminder"]
    path: str = Field(pattern=r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")
    days_before: int = Field(ge=0, le=3650)


class ForbidRule(_Base):
    """Alert when a record of the collection has field equal to value (case-insensitive)."""

    type: Literal["forbid"]
    collection: str = Field(pattern=_IDENT)
    field: str = Field(pattern=_IDENT)
    value: str = Field(min_length=1, max_length=200)
    severity: Literal["critical", "warning", "info"] = "critical"


Rule = Annotated[ThresholdRule | ReminderRule | ForbidRule, Field(discriminator="type")]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(Rule)


class RuleError(InputError):
    """A rule that does not validate; the message names the bad part."""


def validate_rule(
    data: Any, catalog: Catalog | None = None
) -> ThresholdRule | ReminderRule | ForbidRule:
    """Validate a rule dict; raise RuleError naming the reason (fields checked against catalog)."""
    try:
        rule = _ADAPTER.validate_python(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "rule"
        raise RuleError(f"invalid rule: {where}: {err['msg']}") from None
    catalog = catalog or Catalog.load()
    if isinstance(rule, ThresholdRule | ForbidRule):
        coll = catalog.collection(rule.collection)
        if coll is None:
            raise RuleError(f"invalid rule: unknown collection {rule.collection!r}")
        fields = coll.spec.fields
        used = [*rule.filter] if isinstance(rule, ThresholdRule) else []
        if isinstance(rule, ThresholdRule):
            if rule.field is not None:
                used.append(rule.field)
            elif rule.agg != "count":
                raise RuleError(f"invalid rule: agg {rule.agg!r} needs a field")
            if rule.window != "all":
                used.append(rule.date_field)
                if fields.get(rule.date_field) and fields[rule.date_field].type != "date":
                    raise RuleError(f"invalid rule: date_field {rule.date_field!r} is not a date")
            numeric = ("int", "float", "money")
            spec = fields.get(rule.field) if rule.field else None
            if spec is not None and rule.agg != "count" and spec.type not in numeric:
                raise RuleError(f"invalid rule: field {rule.field!r} is not numeric")
        else:
            used.append(rule.field)
        for name in used:
            if name not in fields:
                raise RuleError(
                    f"invalid rule: collection {rule.collection!r} has no field {name!r}"
                )
    else:
        group, name = rule.path.split(".")
        ok = any(
            a.group == group and a.name == name and a.spec.type == "date"
            for a in catalog.attributes.values()
        )
        coll = catalog.collection(group)
        if coll is not None:
            ok = coll.spec.fields.get(name) is not None and coll.spec.fields[name].type == "date"
        if not ok:
            raise RuleError(f"invalid rule: {rule.path!r} is not a date field of the catalog")
    return rule


def rule_id(rule: BaseModel) -> str:
    """Stable id of a rule: a hash of its canonical JSON."""
    text = rule.model_dump_json(exclude_none=True)
    return "rule_" + hashlib.sha256(text.encode()).hexdigest()[:12]


def rule_fact(rule: BaseModel, text: str | None = None) -> NewFact:
    """The fact that stores a rule (append it in a Batch like any other fact)."""
    return NewFact(
        op="assert",
        kind=RULE_KIND,
        path=RULE_PATH,
        record_key=rule_id(rule),
        value=rule.model_dump(mode="json", exclude_none=True),
        text=text,
        source="explicit_command",
    )


def add_rule(store: Store, addr: Address, data: Any, now: dt.datetime, actor: str = "api") -> str:
    """Validate and append a rule for a subject; returns the stored fact's id."""
    rule = validate_rule(data)
    batch = Batch(addr, now, actor)
    batch.facts.append(rule_fact(rule))
    return store.append(batch)[0].id


def load_rules(
    store: Store, addr: Address, upto_seq: int | None = None
) -> list[tuple[str, Any, str]]:
    """The subject's active rules as (fact id, rule, rule id), folded up to a watermark."""
    facts = [f for f in store.facts(addr, RULE_PATH) if upto_seq is None or f.seq <= upto_seq]
    retracted = {
        f.value.get("target") for f in facts if f.op == "retract" and isinstance(f.value, dict)
    }
    out: dict[str, tuple[str, Any, str]] = {}
    for fact in facts:
        if fact.op != "assert" or fact.kind != RULE_KIND or fact.id in retracted:
            continue
        try:
            rule = _ADAPTER.validate_python(fact.value)
        except ValidationError:
            continue  # validated on the way in; a hand-written bad fact is skipped
        out[rule_id(rule)] = (fact.id, rule, rule_id(rule))
    return list(out.values())


def _label(rule: Any, rid: str) -> str:
    return rule.name or rid


def _threshold(rule: ThresholdRule, rid: str, fact_id: str) -> Check:
    def check(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
        records = getattr(user, rule.collection, ())
        if rule.window == "all":
            start, end, label = dt.date.min, dt.date.max, "all time"
        elif rule.window.startswith("last_"):
            days = int(rule.window.split("_")[1])
            start, end = today - dt.timedelta(days=days - 1), today
            label = f"{start} to {end}"
        else:
            start, end, label = period_bounds(rule.window, today)
        picked = []
        for rec in records:
            if any(
                str(getattr(rec, k, "") or "").lower() != v.lower() for k, v in rule.filter.items()
            ):
                continue
            if rule.window != "all":
                when = getattr(rec, rule.date_field, None)
                if when is None or not start <= when <= end:
                    continue
            picked.append(rec)
        values = [
            Decimal(str(getattr(r, rule.field)))
            for r in picked
            if rule.field and getattr(r, rule.field, None) is not None
        ]
        if rule.agg == "count":
            result = Decimal(len(picked))
        elif not values:
            return []
        elif rule.agg == "sum":
            result = sum(values, Decimal(0))
        elif rule.agg == "avg":
            result = sum(values, Decimal(0)) / len(values)
        else:
            result = min(values) if rule.agg == "min" else max(values)
        if not _OPS[rule.op](result, rule.value):
            return []
        what = f"{rule.agg}({rule.field or 'records'})"
        where = ", ".join(f"{k}={v}" for k, v in sorted(rule.filter.items()))
        return [
            AlertDraft(
                f"rule:{rid}",
                rule.severity,
                f"Your rule '{_label(rule, rid)}' triggered: {what} of {rule.collection}"
                f"{' (' + where + ')' if where else ''} in {label} is {result}.",
                f"{what} over {len(picked)} records {label} = {result} {rule.op} {rule.value}",
                (rid, label),
                (fact_id, *(f for r in picked for f in r.fact_ids)),
            )
        ]

    return check


def _reminder(rule: ReminderRule, rid: str, fact_id: str) -> Check:
    def check(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
        group, name = rule.path.split(".")
        target = getattr(user, group, None)
        items: list[tuple[str, Any, tuple[str, ...], tuple[str, ...]]] = []
        if isinstance(target, tuple):
            for rec in target:
                items.append((rec.key, getattr(rec, name, None), rec.fact_ids, ()))
        elif target is not None:
            items.append((group, getattr(target, name, None), (), (f"user.{rule.path}",)))
        out = []
        for key, when, ids, paths in items:
            if when is None:
                continue
            left = (when - today).days
            if not 0 <= left <= rule.days_before:
                continue
            out.append(
                AlertDraft(
                    f"rule:{rid}",
                    rule.severity,
                    f"Reminder '{_label(rule, rid)}': {rule.path} is {when}, in {left} days.",
                    f"{when} − {today} = {left} days ≤ {rule.days_before} days before",
                    (rid, key, str(when)),
                    (fact_id, *ids),
                    paths,
                )
            )
        return out

    return check


def _forbid(rule: ForbidRule, rid: str, fact_id: str) -> Check:
    def check(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
        out = []
        for rec in getattr(user, rule.collection, ()):
            value = getattr(rec, rule.field, None)
            if value is None or str(value).strip().lower() != rule.value.strip().lower():
                continue
            out.append(
                AlertDraft(
                    f"rule:{rid}",
                    rule.severity,
                    f"Your rule '{_label(rule, rid)}' forbids {rule.collection} with "
                    f"{rule.field} = {rule.value}, and '{rec.key}' has it.",
                    f"{rule.collection}[{rec.key!r}].{rule.field} = {value!r} == {rule.value!r}",
                    (rid, rec.key),
                    (fact_id, *rec.fact_ids),
                )
            )
        return out

    return check


def rule_checks(rules: list[tuple[str, Any, str]]) -> list[tuple[str, Check]]:
    """(check name, check function) for each (fact id, rule, rule id) from `load_rules`."""
    out: list[tuple[str, Check]] = []
    for fact_id, rule, rid in rules:
        if isinstance(rule, ThresholdRule):
            out.append((f"rule:{rid}", _threshold(rule, rid, fact_id)))
        elif isinstance(rule, ReminderRule):
            out.append((f"rule:{rid}", _reminder(rule, rid, fact_id)))
        else:
            out.append((f"rule:{rid}", _forbid(rule, rid, fact_id)))
    return out
