"""User rules as facts: small validated structures, never code.

A rule is appended as a fact of kind "rule" on path "rules", keyed by its id (see
`rule_fact`), and retracted like any fact. The compiler turns each active rule into a
generated function in the subject's `constraints.py` (from a template); the checks library
runs those functions like the built-in checks. Three shapes exist:

- threshold: an aggregate over a collection's records in a time window compared to a value,
  e.g. dining spend over 500 GBP in a calendar month;
- reminder: N days before a date field (`passport.expiry_date`, `visas.valid_until`);
- forbid: a record whose field equals a value (e.g. a trip to a given country).
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.store import Batch, NewFact, Store

RULE_KIND = "rule"
RULE_PATH = "rules"
_IDENT = r"^[a-z][a-z0-9_]*$"


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # on first use

    name: str | None = Field(default=None, max_length=120)
    severity: Literal["critical", "warning", "info"] = "warning"


MAX_FILTER_VALUE = 200  # a category or merchant name, not a document


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
        for key, wanted in value.items():
            if not re.match(_IDENT, key):
                raise ValueError(f"filter field {key!r} is not a field name")
            if len(wanted) > MAX_FILTER_VALUE:
                # rendered into every compiled version's constraints.py: keep it a value
                raise ValueError(
                    f"filter value of {key!r} is {len(wanted):,} characters, over "
                    f"{MAX_FILTER_VALUE}"
                )
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


AnyRule = ThresholdRule | ReminderRule | ForbidRule
Rule = Annotated[AnyRule, Field(discriminator="type")]


@functools.cache
def _adapter() -> TypeAdapter[Any]:
    """The rules' validator, built on first use: reading rules back needs no pydantic build."""
    return TypeAdapter(Rule)


class RuleError(InputError):
    """A rule that does not validate; the message names the bad part."""


def parse_rule(data: Any) -> AnyRule:
    """The rule a stored value holds (structure only); RuleError naming the bad part."""
    try:
        return _adapter().validate_python(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "rule"
        raise RuleError(f"invalid rule: {where}: {err['msg']}") from None


def validate_rule(data: Any, catalog: Catalog | None = None) -> AnyRule:
    """Validate a rule dict; raise RuleError naming the reason (fields checked against catalog)."""
    rule = parse_rule(data)
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


def add_rule(
    store: Store,
    addr: Address,
    data: Any,
    now: dt.datetime,
    actor: str = "api",
    catalog: Catalog | None = None,
) -> str:
    """Validate (against the catalog given, else the built-in one) and append a rule."""
    rule = validate_rule(data, catalog)
    batch = Batch(addr, now, actor)
    batch.facts.append(rule_fact(rule))
    return store.append(batch)[0].id
