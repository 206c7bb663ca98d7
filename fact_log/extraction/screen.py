"""The secret filter on the write paths that are not messages: set, imports, notes, rules.

Messages and Markdown notes go through the pipeline's safety scan stage. The other writes
carry typed values or short names, so they get a smaller contract, one per kind of write:

* a single value the caller names (`set` of a string, a rule's name, an episode): a secret or
  instruction-like text in it refuses the write with an InputError before anything is
  appended (`refuse_secrets`);
* imported records: every string value of every record is scanned; a secret (or an
  identifier outside a sensitive catalog field) is masked in place, length-preserving, and a
  `secret` / `identifier_masked` rejection names the record and field. A number that is a
  secret (a card number typed as an integer) cannot be masked and keep its type, so its
  record is refused with a recorded rejection, and so is a record with a field that reads
  like an instruction (`instruction_refused`). The import is still all-or-nothing for
  invalid records; a masked value is not invalid (`screen_records`);
* free text kept as a note (`add_note`): secrets masked, instruction-like text refused.

Values are scanned as the scan sees messages (normalised view, masks mapped back), so the
same string is masked the same way whichever door it came in by.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from uac.fact_log.errors import InputError
from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.safety import (
    Finding,
    SafetyResult,
    Scanner,
    mask,
    normalised_view,
    scan,
)
from uac.fact_log.quarantine import QUARANTINE_REASONS, QUARANTINED  # noqa: F401 (re-exported)
from uac.fact_log.store import NewFact, NewRejection
from uac.fact_log.values import canonical_json, sha256


def excerpt(text: str, width: int = 300) -> str:
    """A quarantined input as an operator may see it: masked again, one line, cut to width."""
    shown = " ".join(scan(text).masked.split())
    return shown if len(shown) <= width else shown[: width - 1] + "…"


def note_text(text: str) -> str:
    """Free text kept as a note: secrets masked; instruction-like text refused (InputError)."""
    result = scan(text)
    found = [f for f in result.findings if f.category == "instruction"]
    if found:
        raise InputError(
            f"refused as a note: it reads like an instruction to the assistant ({found[0].kind})"
        )
    return result.masked


def refuse_secrets(value: Any, what: str, *, identifiers: bool = True) -> None:
    """Raise InputError when a string in value holds a secret or an instruction (nothing is
    written).

    With `identifiers` an identifier (a card number, an IBAN) is refused too: the caller says
    False for a sensitive catalog field, where identifiers belong.
    """
    for text in _strings(value):
        findings = scan(text).findings
        if said := [f for f in findings if f.category == "instruction"]:
            raise InputError(
                f"{what} reads like an instruction to the assistant ({said[0].kind}); "
                "it is refused, so nothing was written"
            )
        found = [
            f
            for f in findings
            if f.category == "secret" or (identifiers and f.category == "identifier")
        ]
        if found:
            raise InputError(
                f"{what} holds what looks like a secret ({found[0].kind}); "
                "secrets are never stored, so nothing was written"
            )


@dataclass(slots=True)
class Screened:
    """Imported facts after the filter, the rejections it recorded, the values it masked."""

    facts: list[NewFact]
    rejections: list[NewRejection] = field(default_factory=list)
    masked: int = 0  # values masked in place
    raw: list[str] = field(default_factory=list)  # the unmasked strings (to scrub the archive)


def screen_records(
    facts: Iterable[NewFact], sensitive: frozenset[str], *, batch: bool = True
) -> Screened:
    """Mask secrets in imported records' string values; refuse a record with a secret number.

    `sensitive` are the catalog fields (`collection.field`) where identifiers belong.
    `batch=False` scans value by value (what the tests compare the batch scan against).
    """
    facts = list(facts)
    results: dict[str, SafetyResult] = {}
    if batch:
        # One scanner per batch: the patterns none of the batch's values can match are ruled
        # out once for all of them (scan's results are unchanged: test_safety_prefilter.py).
        texts = _texts(facts)
        scanner = Scanner(texts)
        results = {text: scanner.scan(text) for text in texts}
        if not any(r.findings for r in results.values()):
            # Nothing found in any value: the record by record pass would change nothing.
            return Screened(facts)
    out = Screened([])

    def scanned(text: str) -> SafetyResult:
        return results[text] if text in results else scan(text)

    # Imported columns repeat (a country, a currency, a purpose): a text is scanned once per
    # import. scan is a pure function of the text, so the results are the same.
    seen: dict[tuple[str, bool], tuple[Any, list[Finding]]] = {}
    for fact in facts:
        value = fact.value if isinstance(fact.value, dict) else {}
        where = (fact.evidence or {}).get("where") if isinstance(fact.evidence, dict) else None
        masked: dict[str, Any] = {}
        refused = False
        if said := _instruction(value, scanned):
            # A field that tells the assistant what to do is not data: the record is refused
            # whole, as a message holding the same words would be (nothing of it is stored).
            detail = {"record": where, "field": said[0], "kind": said[1]}
            out.rejections.append(
                NewRejection("instruction_refused", fact.path, detail, input_index=0)
            )
            out.raw.extend(_strings(value))
            continue
        for name, item in value.items():
            path = f"{fact.path}.{name}"
            if isinstance(item, str):
                key = (item, path in sensitive)
                if (hit := seen.get(key)) is None:
                    hit = seen[key] = _mask_value(*key, scanned)
                new, findings = hit
            else:
                new, findings = _mask_value(item, path in sensitive, scanned)
            for f in findings:
                reason = "secret" if f.category == "secret" else "identifier_masked"
                detail = {"record": where, "field": name, "kind": f.kind}
                out.rejections.append(NewRejection(reason, path, detail, input_index=0))
            if findings and new is None:
                refused = True
            if findings and new is not None:
                out.masked += 1
                out.raw.extend(s for s in _strings(item) if s not in _strings(new))
            masked[name] = new
        if refused:
            detail = {"record": where, "why": "a secret number cannot be masked and keep its type"}
            out.rejections.append(NewRejection("record_refused", fact.path, detail, input_index=0))
            out.raw.extend(_strings(value))
            continue
        if masked != value:
            fact.value = masked
            if fact.record_key is not None and any(r in fact.record_key for r in out.raw):
                # The key was built from a secret: key the record by its masked content and
                # where it came from instead (never by a hash of the secret itself).
                fact.record_key = "h:" + sha256(f"{where}:{canonical_json(masked)}")[:16]
        out.facts.append(fact)
    return out


def _instruction(
    value: dict[str, Any], scanned: Callable[[str], SafetyResult]
) -> tuple[str, str] | None:
    """(field, kind) of the first string in a record's value that reads like an instruction."""
    for name, item in value.items():
        for text in _strings(item):
            for f in scanned(text).findings:
                if f.category == "instruction":
                    return name, f.kind
    return None


def mask_text(text: str) -> tuple[str, list[Finding]]:
    """Text with its secrets and identifiers masked (instructions are left for the caller)."""
    result = scan(text)
    return result.masked, [f for f in result.findings if f.category != "instruction"]


def _mask_value(
    value: Any, sensitive: bool, scan: Callable[[str], SafetyResult] = scan
) -> tuple[Any, list[Finding]]:
    """(masked value, findings); None for the value when it cannot be masked in its type."""
    if isinstance(value, str):
        result = scan(value)
        found = [
            f
            for f in result.findings
            if f.category == "secret" or (f.category == "identifier" and not sensitive)
        ]
        if not found:
            return value, []
        return mask(value, found), found
    if isinstance(value, bool) or value is None:
        return value, []
    if isinstance(value, int | float):
        found = [
            f
            for f in scan(str(value)).findings
            if f.category == "secret" or (f.category == "identifier" and not sensitive)
        ]
        return (None, found) if found else (value, [])
    if isinstance(value, list):
        items = [_mask_value(v, sensitive, scan) for v in value]
        found = [f for _v, fs in items for f in fs]
        if any(v is None and fs for v, fs in items):
            return None, found
        return [v for v, _fs in items], found
    if isinstance(value, dict):
        pairs = {k: _mask_value(v, sensitive, scan) for k, v in value.items()}
        found = [f for _v, fs in pairs.values() for f in fs]
        if any(v is None and fs for v, fs in pairs.values()):
            return None, found
        return {k: v for k, (v, _fs) in pairs.items()}, found
    return value, []


def _texts(facts: list[NewFact]) -> set[str]:
    """The texts `_mask_value` scans in the facts' values: strings, and numbers as text.

    A text missed here is still scanned in full by the Scanner, so only speed depends on it
    (a set keeps one of 1, 1.0 and True, say).
    """
    cells: set[Any] = set()
    nested: list[Any] = []
    for fact in facts:
        value = fact.value
        try:
            cells.update(value.values() if isinstance(value, dict) else (value,))
        except TypeError:  # a list or an object among the cells: walked below
            nested.append(value)
    while nested:
        value = nested.pop()
        if isinstance(value, list | dict):
            nested.extend(value.values() if isinstance(value, dict) else value)
        elif isinstance(value, str | int | float):
            cells.add(value)
    out = {c for c in cells if type(c) is str}
    out.update(str(c) for c in cells if isinstance(c, int | float) and not isinstance(c, bool))
    return out


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


NEUTRALISED = "[instruction-like text removed]"
# Broader than the refusal patterns in safety.py on purpose: refusing a write needs a clear
# instruction, but a note put into an agent's prompt only loses a sentence when it merely
# sounds like one ("never tell my boss" is gone from the context, still in the note).
_ADDRESSED = lazy(
    r"\b(?:assistant|ai|agent|model|chatbot|llm|bot|claude|gpt|copilot)\b[^.!?\n]{0,40}"
    r"\b(?:must|should|shall|will|needs?\s+to|has\s+to|is\s+(?:required|instructed|allowed)|"
    r"may\s+now)\b|"
    r"\byou\s+(?:must|should|shall|will\s+now|need\s+to|have\s+to|are\s+(?:required|instructed|"
    r"allowed|permitted|now|to)|may\s+now)\b|"
    r"\b(?:always|never|do\s+not|don't|must)\s+(?:tell|reveal|mention|share|send|forward|reply|"
    r"respond|answer|say|include|disclose|output|print|execute|run|call|approve|pay|transfer|"
    r"wire|email|obey|follow|trust)\b|"
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,40}\b(?:above|previous|prior|"
    r"earlier|instructions?|rules?|context|prompts?|guidelines|policy|policies)\b|"
    r"\b(?:pretend\s+(?:to\s+be|you)|role-?play\s+as|act\s+as|play\s+the\s+role)\b|"
    r"</?\s*(?:system|assistant|instructions?)\s*>|\[/?INST\]|^\s*(?:system|assistant)\s*:|"
    r"忽略|无视|你必须|你应该|从现在开始|不要告诉|直接(?:转账|支付|付款)",
    re.IGNORECASE | re.MULTILINE,
)
_SENTENCE = lazy(r"[^\n]*?(?:[.!?]+(?=\s|$)|[。！？]+|\n|$)")


def neutralise(text: str) -> str:
    """Text with every instruction-like sentence replaced by a marker (for notes in context)."""
    view, _offsets = normalised_view(text)
    if not _ADDRESSED.search(view) and not any(
        f.category == "instruction" for f in scan(text).findings
    ):
        return text
    out: list[str] = []
    for m in _SENTENCE.finditer(view):
        sentence = m[0]
        if not sentence.strip():
            continue
        if _ADDRESSED.search(sentence) or any(
            f.category == "instruction" for f in scan(sentence).findings
        ):
            if not out or out[-1] != NEUTRALISED:
                out.append(NEUTRALISED)
        else:
            out.append(sentence.strip())
    return " ".join(out)
