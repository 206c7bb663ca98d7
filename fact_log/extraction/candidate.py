"""A fact candidate (what any extractor proposes) and its typing against the catalog.

Shared by every extractor (domain patterns, the LLM, Markdown notes) and by the gate, so it
sits below all of them: a candidate carries the exact quote and offset that support it, and
`validate` is the one place a proposed value becomes a catalog-typed value (or is dropped).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError


@dataclass(frozen=True, slots=True)
class Candidate:
    """A proposed fact with the exact quote of the message that supports it."""

    kind: str  # "attribute" | "record" | "preference" | "note"
    path: str
    value: Any
    op: str  # "assert", or "end" for a record that stopped (medication, subscription)
    quote: str
    start: int
    confidence: float
    replaces: Any = None  # a correction: the earlier record value this one supersedes

    @property
    def end(self) -> int:
        """Offset just past the quote."""
        return self.start + len(self.quote)


@dataclass(frozen=True, slots=True)
class Reading:
    """What an extractor read in one message: candidates, and hints for a calling agent —
    paths the message may state that it could not fill (extraction/frames.py)."""

    candidates: list[Candidate]
    hints: list[dict[str, Any]]


def validate(catalog: Catalog, path: str, value: Any) -> Any | None:
    """The value typed by the catalog, or None when it does not validate (or path unknown)."""
    attr = catalog.attributes.get(path)
    if attr is not None:
        try:
            return catalog.validate_attribute(attr, value)
        except InputError:
            return None
    coll = catalog.collection(path)
    if coll is None or not isinstance(value, dict):
        return None
    try:
        record = catalog.model_for(coll)(**value)
    except (ValidationError, TypeError):
        return None
    return {k: v for k, v in record.model_dump().items() if v is not None and k != "id"}


def validate_ending(catalog: Catalog, path: str, value: Any) -> dict[str, Any] | None:
    """A record value that ends a record it names without every required field ("we stopped
    the yoga": no start), each given field typed; None when a given field is invalid."""
    typed = validate(catalog, path, value)
    coll = catalog.collection(path)
    if typed is not None or coll is None or not isinstance(value, dict):
        return typed
    model = catalog.model_for(coll)
    out: dict[str, Any] = {}
    for name, raw in value.items():
        field = model.model_fields.get(name)
        if field is None or raw is None:
            return None
        try:
            out[name] = TypeAdapter(field.annotation).validate_python(raw)
        except ValidationError:
            return None
    return out or None
