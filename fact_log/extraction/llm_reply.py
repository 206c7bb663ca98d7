"""The shape an LLM reply must have: a JSON schema generated from pydantic models of the catalog.

One model per catalog path (its `path` and `kind` fixed, its `value` typed by the catalog)
plus one for notes; `response_format` rewrites their union for OpenAI-compatible strict
structured outputs. The schema only shapes replies: `llm.check_proposal` still checks every
proposal on its own, because a server may ignore the schema.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from uac.fact_log.catalog import Catalog, FieldSpec

MAX_QUOTE_CHARS = 2000


class Proposal(BaseModel):
    """One proposed fact as the reply must carry it (types checked per path later)."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(max_length=200)
    kind: str = Field(max_length=40)
    value: Any = None
    quote: str = Field(max_length=MAX_QUOTE_CHARS)
    confidence: float


class Reply(BaseModel):
    """The whole reply: a list of proposals."""

    model_config = ConfigDict(extra="forbid")

    facts: list[Proposal] = Field(max_length=200)


def _schema_type(spec: FieldSpec, item: bool = False) -> Any:
    """A JSON-schema-friendly annotation for a catalog field (the catalog validates exactly)."""
    kind = spec.item if item else spec.type
    if kind == "enum":
        return Literal[tuple(spec.values)]  # type: ignore[valid-type]
    if kind == "list":
        return list[_schema_type(spec, item=True)]  # type: ignore[misc]
    return {
        "int": int,
        "float": float,
        "money": float,
        "decimal": float,
        "bool": bool,
        "date": dt.date,
        "datetime": dt.datetime,
    }.get(kind or "str", str)


def _field(spec: FieldSpec, required: bool) -> tuple[Any, Any]:
    typ = _schema_type(spec)
    extra: dict[str, Any] = {"description": spec.description} if spec.description else {}
    if spec.type == "str" and spec.pattern:
        extra["pattern"] = spec.pattern
    return (typ if required else typ | None), Field(**extra)


def _model_name(path: str) -> str:
    return "P_" + path.replace(".", "_")


@lru_cache(maxsize=8)
def proposal_models(catalog: Catalog) -> tuple[type[BaseModel], ...]:
    """One pydantic model per catalog path (plus notes): the shape the model must produce."""
    models: list[type[BaseModel]] = []
    config = ConfigDict(extra="forbid")
    for path, attr in sorted(catalog.attributes.items()):
        value = _field(attr.spec, required=True)
        models.append(
            create_model(
                _model_name(path),
                __config__=config,
                __doc__=attr.spec.description or path,
                path=(Literal[path], ...),  # type: ignore[valid-type]
                kind=(Literal[attr.kind], ...),  # type: ignore[valid-type]
                value=value,
                quote=(str, ...),
                confidence=(float, ...),
            )
        )
    for path, coll in sorted(catalog.collections.items()):
        fields = {name: _field(spec, spec.required) for name, spec in coll.spec.fields.items()}
        record = create_model("R_" + path.replace(".", "_"), __config__=config, **fields)
        models.append(
            create_model(
                _model_name(path),
                __config__=config,
                __doc__=coll.spec.description or path,
                path=(Literal[path], ...),  # type: ignore[valid-type]
                kind=(Literal["record"], ...),
                value=(record, ...),
                quote=(str, ...),
                confidence=(float, ...),
            )
        )
    models.append(
        create_model(
            "P_notes",
            __config__=config,
            __doc__="A durable personal fact that fits no catalog path.",
            path=(Literal["notes"], ...),
            kind=(Literal["note"], ...),
            value=(None, None),
            quote=(str, ...),
            confidence=(float, ...),
        )
    )
    return tuple(models)


# Keywords every OpenAI-compatible structured-output implementation understands.
_SCHEMA_KEYS = frozenset(
    {
        "type",
        "enum",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "pattern",
        "format",
        "$defs",
        "$ref",
    }
)


def _strict(node: Any) -> Any:
    """Rewrite a pydantic JSON schema for strict structured outputs.

    Strict mode wants every property required (optional ones become nullable),
    additionalProperties false, and no `const`, `default` or `title`.
    """
    if isinstance(node, list):
        return [_strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    if "const" in node:
        out["enum"] = [node["const"]]
    for key, value in node.items():
        if key in ("properties", "$defs"):
            out[key] = {k: _strict(v) for k, v in value.items()}
        elif key in _SCHEMA_KEYS:
            out[key] = _strict(value)
    if out.get("type") == "object" and "properties" in out:
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


@lru_cache(maxsize=8)
def _schema_text(catalog: Catalog) -> str:
    variants = [
        m.model_json_schema(ref_template="#/$defs/{model}") for m in proposal_models(catalog)
    ]
    defs: dict[str, Any] = {}
    any_of = []
    for variant in variants:
        defs.update(variant.pop("$defs", {}))
        name = variant.get("title", "")
        defs[name] = variant
        any_of.append({"$ref": f"#/$defs/{name}"})
    schema = {
        "type": "object",
        "properties": {"facts": {"type": "array", "items": {"anyOf": any_of}}},
        "required": ["facts"],
        "additionalProperties": False,
        "$defs": defs,
    }
    # Descriptions live in the system prompt once, not in every schema node (tokens cost).
    return json.dumps(_strict(schema), separators=(",", ":"))


def response_format(catalog: Catalog, strict: bool = True) -> dict[str, Any]:
    """The `response_format` argument constraining replies to the catalog's proposal schema."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "uac_fact_proposals",
            "strict": strict,
            "schema": json.loads(_schema_text(catalog)),
        },
    }


def path_lines(catalog: Catalog) -> str:
    """One line per catalog path for the system prompt: path, kind, description."""
    lines = []
    for path, attr in sorted(catalog.attributes.items()):
        allowed = f" ({' | '.join(attr.spec.values)})" if attr.spec.values else ""
        lines.append(f"- {path} [{attr.kind}]{allowed}: {attr.spec.description}")
    for path, coll in sorted(catalog.collections.items()):
        names = ", ".join(n + ("*" if f.required else "") for n, f in coll.spec.fields.items())
        lines.append(f"- {path} [record]: {coll.spec.description} Fields: {names}")
    lines.append("- notes [note]: durable personal facts that fit no path (value null)")
    lines.append("(* = required field)")
    return "\n".join(lines)
