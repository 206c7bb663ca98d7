"""The eligibility gate and `build_message_batch`: one message in, one appendable Batch out.

Order (DESIGN.md, "Write path"): extract -> safety filter -> evidence -> eligibility gate.
The message is always archived (masked), every accepted candidate becomes a fact carrying its
quote, offset and evidence tier, and every refusal becomes a `NewRejection` with its reason:

    secret                 a secret was found; masked in the archive, never a fact
    sensitive_identifier   an identifier outside a sensitive catalog field (value refused)
    identifier_masked      an identifier no accepted fact needed; masked in the archive
    instruction_refused    instruction-like text ("ignore your rules") refused as preference
    invalid_value          the value does not validate against the catalog
    low_confidence         below the source's threshold (policy.toml)
    evidence_not_found     the quote is not in the message at the required tier
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.extraction.candidate import Candidate, validate
from uac.fact_log.extraction.evidence import Tier, verify
from uac.fact_log.extraction.patterns import extract
from uac.fact_log.extraction.safety import Finding, SafetyResult, scan, sensitive_fields
from uac.fact_log.importer import record_key
from uac.fact_log.store import Batch, NewFact, NewInput, NewRejection
from uac.fact_log.values import canonical_json

POLICY_FILE = Path(__file__).with_name("policy.toml")
MAX_FINDING_REJECTIONS = 50  # per reason and message; the rest are counted in one row
_TIER_RANK = {"exact": 0, "normalised": 1, "tokens": 2}


@dataclass(frozen=True, slots=True)
class Policy:
    """Thresholds, evidence rules and limits read from policy.toml."""

    thresholds: dict[str, float]
    evidence_required: frozenset[str]
    weakest_tier: dict[str, str] = field(default_factory=dict)
    max_message_bytes: int = 65536
    fact_roles: frozenset[str] = frozenset({"user"})

    @classmethod
    def load(cls, path: Path | None = None) -> Policy:
        """Read a policy file (the packaged defaults when path is None)."""
        path = path or POLICY_FILE
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
            return cls(
                thresholds={k: float(v) for k, v in raw["thresholds"].items()},
                evidence_required=frozenset(raw["evidence"]["required_for"]),
                weakest_tier=dict(raw["evidence"].get("weakest_tier", {})),
                max_message_bytes=int(raw["limits"]["max_message_bytes"]),
                fact_roles=frozenset(raw["roles"]["fact_roles"]),
            )
        except (OSError, KeyError, TypeError, ValueError, tomllib.TOMLDecodeError) as exc:
            raise InputError(f"cannot read extraction policy {path}: {exc}") from None


_DEFAULT_POLICY: Policy | None = None


def default_policy() -> Policy:
    """The packaged policy, loaded once."""
    global _DEFAULT_POLICY
    if _DEFAULT_POLICY is None:
        _DEFAULT_POLICY = Policy.load()
    return _DEFAULT_POLICY


@dataclass(frozen=True, slots=True)
class Accepted:
    """A candidate that passed the gate, with its evidence tier."""

    candidate: Candidate
    tier: Tier | None


def check_message(text: Any, policy: Policy) -> str:
    """Return text if it is an acceptable message, else raise InputError saying why."""
    if not isinstance(text, str):
        raise InputError(f"a message must be text, got {type(text).__name__}")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InputError(
            f"the message is not valid Unicode text (unpaired surrogate at position {exc.start})"
        ) from None
    if size > policy.max_message_bytes:
        raise InputError(
            f"the message is {size:,} bytes; the limit is {policy.max_message_bytes:,} "
            "(64 KiB): split it, or import it as a file"
        )
    if "\x00" in text:
        raise InputError("the message contains NUL characters; send plain text")
    if not text.strip():
        raise InputError("a message needs some text")
    return text


def gate(
    catalog: Catalog,
    text: str,
    candidates: Iterable[Candidate],
    safety: SafetyResult,
    *,
    source: str,
    policy: Policy | None = None,
) -> tuple[list[Accepted], list[NewRejection]]:
    """Apply safety, evidence, confidence and boundary checks to candidates."""
    policy = policy or default_policy()
    if source not in policy.thresholds:
        known = ", ".join(sorted(policy.thresholds))
        raise InputError(f"unknown source {source!r}: use one of {known}")
    threshold = policy.thresholds[source]
    sensitive = sensitive_fields(catalog)
    accepted: list[Accepted] = []
    rejected: list[NewRejection] = []
    for cand in candidates:
        # Boundary: a path the catalog does not know is kept as a searchable note.
        if cand.path not in catalog.attributes and catalog.collection(cand.path) is None:
            cand = replace(cand, kind="note", path="notes", value=None)
        elif (typed := validate(catalog, cand.path, cand.value)) is None:
            rejected.append(_reject("invalid_value", cand, safety))
            continue
        else:
            cand = replace(cand, value=typed)
        reason = _safety_reason(cand, text, safety, sensitive)
        if reason is not None:
            rejected.append(_reject(reason, cand, safety))
            continue
        if cand.confidence < threshold:
            rejected.append(_reject("low_confidence", cand, safety, confidence=cand.confidence))
            continue
        tier = verify(cand.quote, cand.start, text)
        if source in policy.evidence_required:
            weakest = policy.weakest_tier.get(source, "tokens")
            if tier is None or _TIER_RANK[tier] > _TIER_RANK[weakest]:
                rejected.append(_reject("evidence_not_found", cand, safety))
                continue
        accepted.append(Accepted(cand, tier))
    return accepted, rejected


def _safety_reason(
    cand: Candidate, text: str, safety: SafetyResult, sensitive: frozenset[str]
) -> str | None:
    hits = safety.overlapping(cand.start, cand.end)
    if any(f.category == "instruction" for f in hits):
        return "instruction_refused"
    value_text = canonical_json(cand.value) if cand.value is not None else ""
    for f in hits:
        raw = text[f.start : f.end]
        if f.category == "secret" and (raw in value_text or cand.kind == "note"):
            return "secret"
        if (
            f.category == "identifier"
            and raw in value_text
            and _field_of(cand, raw) not in sensitive
        ):
            return "sensitive_identifier"
    return None


def _field_of(cand: Candidate, raw: str) -> str:
    """The catalog field (`path` or `path.field`) whose value contains raw."""
    if isinstance(cand.value, dict):
        for name, value in cand.value.items():
            if raw in canonical_json(value):
                return f"{cand.path}.{name}"
    return cand.path


def _masked_quote(cand: Candidate, safety: SafetyResult) -> str:
    # Masking is length-preserving, so the quote's span in the masked text is the same.
    masked = safety.masked[cand.start : cand.end]
    return masked if len(masked) == len(cand.quote) else "*" * len(cand.quote)


def _reject(reason: str, cand: Candidate, safety: SafetyResult, **extra: Any) -> NewRejection:
    detail = {"quote": _masked_quote(cand, safety)[:200], "offset": cand.start, **extra}
    return NewRejection(reason, cand.path, detail, input_index=0)


def _finding_rejection(f: Finding, safety: SafetyResult) -> NewRejection:
    detail: dict[str, Any] = {"kind": f.kind, "offset": f.start, "length": f.end - f.start}
    if f.category == "instruction":
        detail["quote"] = safety.masked[f.start : f.end][:200]
        return NewRejection("instruction_refused", "preferences", detail, input_index=0)
    reason = "secret" if f.category == "secret" else "identifier_masked"
    return NewRejection(reason, None, detail, input_index=0)


def build_message_batch(
    catalog: Catalog,
    address: Address,
    text: str,
    *,
    observed_at: dt.datetime,
    recorded_at: dt.datetime,
    role: str = "user",
    session_id: str | None = None,
    source: str = "automatic_rule",
    actor: str = "api",
    policy: Policy | None = None,
    candidates: Iterable[Candidate] | None = None,
) -> Batch:
    """Archive one message (masked) and the facts and refusals learned from it.

    `candidates` lets a caller add candidates from another extractor (e.g. an LLM); the
    rule extractor always runs too. For source="explicit_command" every candidate counts as
    certain, and a message with no typed fact (and nothing unsafe) is kept as a note.
    """
    policy = policy or default_policy()
    text = check_message(text, policy)
    if source not in policy.thresholds:
        known = ", ".join(sorted(policy.thresholds))
        raise InputError(f"unknown source {source!r}: use one of {known}")
    safety = scan(text)
    found: list[Candidate] = []
    if role in policy.fact_roles:
        found = extract(text, observed_at, role, catalog)
        found += list(candidates or ())
    explicit = source == "explicit_command"
    if explicit:
        found = [replace(c, confidence=1.0) for c in found]
    accepted, rejected = gate(catalog, text, found, safety, source=source, policy=policy)

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
    used: set[tuple[int, int]] = set()
    for acc in accepted:
        batch.facts.append(_fact(catalog, acc, safety, source, session_id))
        for f in safety.overlapping(acc.candidate.start, acc.candidate.end):
            if f.category == "identifier":
                used.add((f.start, f.end))
    unsafe = [f for f in safety.findings if f.category in ("secret", "instruction")]
    if explicit and not batch.facts and not unsafe and role in policy.fact_roles:
        note = safety.masked.strip()
        start = safety.masked.index(note)
        batch.facts.append(
            NewFact(
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
        )
    per_reason: dict[str, int] = {}
    for f in safety.findings:
        if f.category == "identifier" and (f.start, f.end) in used:
            continue  # stored in a sensitive field on purpose; still masked in the archive
        rej = _finding_rejection(f, safety)
        per_reason[rej.reason] = per_reason.get(rej.reason, 0) + 1
        if per_reason[rej.reason] <= MAX_FINDING_REJECTIONS:
            batch.rejections.append(rej)
    for reason, count in sorted(per_reason.items()):
        if count > MAX_FINDING_REJECTIONS:
            # A hostile message can hold thousands of findings: record the count, not each.
            extra = {"more": count - MAX_FINDING_REJECTIONS}
            batch.rejections.append(NewRejection(reason, None, extra, input_index=0))
    batch.rejections.extend(rejected)
    return batch


def _fact(
    catalog: Catalog, acc: Accepted, safety: SafetyResult, source: str, session_id: str | None
) -> NewFact:
    cand = acc.candidate
    quote = _masked_quote(cand, safety)
    evidence: dict[str, Any] = {"quote": quote, "offset": cand.start, "tier": acc.tier}
    return candidate_fact(catalog, cand, quote, evidence, source, session_id)


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
    key = None
    if cand.kind == "record":
        coll = catalog.collection(cand.path)
        assert coll is not None
        key = record_key(cand.value, coll.spec.key)
    return NewFact(
        op="assert",
        kind=cand.kind,
        path=cand.path,
        value=cand.value,
        record_key=key,
        text=quote,
        source=source,
        confidence=cand.confidence,
        evidence=evidence,
        input_index=0,
        session_id=session_id,
    )
