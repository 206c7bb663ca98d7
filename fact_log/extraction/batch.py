"""The last pipeline stage: accepted candidates and refusals become one appendable `Batch`.

Pure assembly, no decisions: every accept/refuse was made by the gate. A message batch
archives the message masked (input 0), the facts (each carrying its masked quote, offset and
evidence tier; LLM facts first, then the pattern facts the LLM did not supply) and the
refusals in a fixed order (safety findings, pattern refusals, pattern notes such as an
ambiguous date, LLM problems, LLM refusals), so
the same message always yields the same batch. Note batches carry each fact's note line
instead of an offset, so an edited note can supersede its previous version.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.gate import Accepted
from uac.fact_log.extraction.lazy import compile_kept
from uac.fact_log.extraction.llm import SOURCE as LLM_SOURCE
from uac.fact_log.extraction.llm import LLMCandidate
from uac.fact_log.extraction.markdown import SOURCE as NOTE_SOURCE
from uac.fact_log.extraction.markdown import note_text
from uac.fact_log.extraction.safety import SafetyResult
from uac.fact_log.importer import record_key
from uac.fact_log.store import Batch, NewFact, NewInput, NewRejection


@dataclass(slots=True)
class Gated:
    """What the gate decided for one extractor's candidates (and what the extractor refused)."""

    accepted: list[Accepted] = field(default_factory=list)
    rejected: list[NewRejection] = field(default_factory=list)
    problems: list[NewRejection] = field(default_factory=list)  # refused before the gate


# Words that say a value is new or corrected, in the message that gives it.
_CHANGE = compile_kept(
    r"\b(?:now|new|moved|moving|actually|sorry|correction|corrected|changed?|anymore|any more|"
    r"instead|no longer|updated?|renewed|make (?:that|it)|switched|replaced|wrong|misread|"
    r"mistake|typo|i meant)\b",
    re.IGNORECASE,
)


def message_batch(
    catalog: Catalog,
    address: Address,
    safety: SafetyResult,
    *,
    patterns: Gated,
    llm: Gated,
    findings: list[NewRejection],
    explicit_note: bool,
    observed_at: dt.datetime,
    recorded_at: dt.datetime,
    role: str,
    session_id: str | None,
    source: str,
    actor: str,
    model: str | None,
) -> Batch:
    """The batch for one message: its masked archive, its facts and every refusal."""
    batch = Batch(address, recorded_at, actor)
    batch.inputs.append(
        NewInput(
            kind="message",
            content=safety.masked,
            source=source,
            role=role,
            session_id=session_id,
            observed_at=observed_at,
        )
    )
    found = [_message_fact(catalog, acc, safety, source, session_id) for acc in patterns.accepted]
    if explicit_note and not found:
        found.append(_whole_message_note(safety, source, session_id))
    llm_facts = [_llm_fact(catalog, a.candidate, safety, session_id, model) for a in llm.accepted]
    # The LLM's fact wins a slot, record or note both supplied; patterns add what it missed:
    # the facts it did not propose, and the fields it left out of a record both found.
    ruled = {_identity(f): f for f in found}
    llm_facts = [_filled(f, ruled.get(_identity(f))) for f in llm_facts]
    taken = {_identity(f) for f in llm_facts}
    batch.facts = [*llm_facts, *(f for f in found if _identity(f) not in taken)]
    if _CHANGE.search(safety.masked):
        # The user says a value changed or corrects one ("I live in Lisbon now", "sorry, it's
        # the 12th"): the compiler takes the slot's new value as an update, not as two
        # statements that contradict each other.
        for f in batch.facts:
            if f.kind in ("attribute", "preference"):
                f.evidence = {**(f.evidence or {}), "change": True}
    for rej in llm.rejected:
        rej.detail = {**(rej.detail or {}), "source": LLM_SOURCE}
    batch.rejections = [
        *findings,
        *patterns.rejected,
        *patterns.problems,
        *llm.problems,
        *llm.rejected,
    ]
    return batch


def note_batch(
    catalog: Catalog,
    address: Address,
    safety: SafetyResult,
    *,
    note_id: str,
    lines: list[int],
    gated: list[tuple[list[Accepted], list[NewRejection]]],
    refusals: list[NewRejection],
    secrets: list[NewRejection],
    observed_at: dt.datetime,
    recorded_at: dt.datetime,
    session_id: str | None,
    actor: str,
) -> Batch:
    """The batch for one Markdown note; `gated` holds the gate's answer per candidate line."""
    batch = Batch(address, recorded_at, actor)
    batch.inputs.append(
        NewInput(
            kind="note",
            content=safety.masked,
            source=NOTE_SOURCE,
            name=note_id,
            session_id=session_id,
            observed_at=observed_at,
        )
    )
    batch.rejections.extend(refusals)
    for line, (accepted, rejected) in zip(lines, gated, strict=True):
        for rej in rejected:
            rej.detail = {"note": note_id, "line": line, "reason": rej.reason}
            batch.rejections.append(rej)
        for acc in accepted:
            batch.facts.append(_note_fact(catalog, acc.candidate, safety, note_id, line))
    batch.rejections.extend(secrets)
    for fact in batch.facts:
        fact.session_id = session_id
    return batch


def candidate_fact(
    catalog: Catalog,
    cand: Candidate,
    quote: str,
    evidence: dict[str, Any],
    source: str,
    session_id: str | None,
) -> NewFact:
    """The fact an accepted candidate becomes (records get their catalog record key)."""
    if cand.op != "assert":
        # e.g. "end": a medication stopped, a subscription ended
        evidence = {**evidence, "intent": cand.op}
    return NewFact(
        op="assert",
        kind=cand.kind,
        path=cand.path,
        value=cand.value,
        record_key=_record_key(catalog, cand),
        text=quote,
        source=source,
        confidence=cand.confidence,
        evidence=evidence,
        input_index=0,
        session_id=session_id,
    )


def _record_key(catalog: Catalog, cand: Candidate) -> str | None:
    if cand.kind != "record":
        return None
    coll = catalog.collection(cand.path)
    assert coll is not None  # the gate accepts records of known collections only
    return record_key(cand.value, coll.spec.key)


def _message_fact(
    catalog: Catalog, acc: Accepted, safety: SafetyResult, source: str, session_id: str | None
) -> NewFact:
    cand = acc.candidate
    quote = safety.masked_quote(cand.start, cand.quote)
    evidence: dict[str, Any] = {"quote": quote, "offset": cand.start, "tier": acc.tier}
    return candidate_fact(catalog, cand, quote, evidence, source, session_id)


def _llm_fact(
    catalog: Catalog,
    cand: Candidate,
    safety: SafetyResult,
    session_id: str | None,
    model: str | None,
) -> NewFact:
    # Masking is length-preserving, so the quote's span in the archived text is the same.
    quote = safety.masked[cand.start : cand.end]
    # The tier is the one the model's own quote reached (the stored quote is the message's).
    tier = cand.tier if isinstance(cand, LLMCandidate) else "exact"
    evidence: dict[str, Any] = {"quote": quote, "offset": cand.start, "tier": tier}
    if model:
        evidence["model"] = model
    return candidate_fact(catalog, cand, quote, evidence, LLM_SOURCE, session_id)


def _filled(llm_fact: NewFact, rule_fact: NewFact | None) -> NewFact:
    """The LLM's record with the fields only the rules' record of the same key gives.

    The model's values win where both give one; what the rules added is named in the
    evidence with their quote, so provenance says which extractor said what.
    """
    if rule_fact is None or llm_fact.kind != "record":
        return llm_fact
    mine, theirs = llm_fact.value, rule_fact.value
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return llm_fact
    extra = {k: v for k, v in theirs.items() if mine.get(k) in (None, "", []) and v is not None}
    if not extra:
        return llm_fact
    rules = {"fields": sorted(extra), "quote": rule_fact.text}
    if isinstance(rule_fact.evidence, dict) and "offset" in rule_fact.evidence:
        rules["offset"] = rule_fact.evidence["offset"]
    return replace(
        llm_fact,
        value={**mine, **extra},
        evidence={**(llm_fact.evidence or {}), "from_rules": rules},
    )


def _whole_message_note(safety: SafetyResult, source: str, session_id: str | None) -> NewFact:
    """An explicit 'remember this' with nothing typed in it is kept whole, as a note."""
    note = safety.masked.strip()
    start = safety.masked.index(note)
    return NewFact(
        op="assert",
        kind="note",
        path="notes",
        text=note,
        source=source,
        confidence=1.0,
        evidence={"quote": note, "offset": start, "tier": "exact"},
        input_index=0,
        session_id=session_id,
    )


def _note_fact(
    catalog: Catalog, cand: Candidate, safety: SafetyResult, note_id: str, line: int
) -> NewFact:
    # Masking is length-preserving: the span in the masked archive is the same span.
    shown = safety.masked[cand.start : cand.end]
    if cand.kind == "note":
        shown = note_text(shown)
    return NewFact(
        op="assert",
        kind=cand.kind,
        path=cand.path,
        value=cand.value,
        record_key=_record_key(catalog, cand),
        text=shown,
        source=NOTE_SOURCE,
        confidence=1.0,
        evidence={"note": note_id, "line": line},
        input_index=0,
    )


def _identity(fact: NewFact) -> tuple[str, ...]:
    """What makes two facts 'the same' for the merge: slot, record key, or note text."""
    if fact.kind == "record":
        return (fact.path, fact.record_key or "")
    if fact.kind == "note":
        return (fact.path, fact.text or "")
    return (fact.path,)


def import_batch(
    address: Address,
    facts: Iterable[NewFact],
    schema: tuple[str, dict[str, str]] | None,
    *,
    text: str,
    name: str,
    recorded_at: dt.datetime,
    session_id: str | None,
    actor: str,
) -> Batch:
    """The batch for one structured import: the raw text archived, one fact per record."""
    batch = Batch(address, recorded_at, actor)
    batch.inputs.append(NewInput("import", text, "import", name=name, session_id=session_id))
    batch.facts = list(facts)
    for fact in batch.facts:
        fact.session_id = session_id
    if schema is not None:
        batch.schemas[schema[0]] = schema[1]
    return batch
