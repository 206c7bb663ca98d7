"""The eligibility gate: which candidates become facts, and why each refused one was refused.

A stage of the write pipeline (`uac.fact_log.pipeline`), and only a filter: it receives the
candidates every extractor proposed, the safety scan of the message and the evidence tier
each quote reached, and returns the accepted candidates and a `NewRejection` per refusal. It
never extracts, scans or builds a batch itself. The checks run in this order per candidate,
and the first one that fails names the reason:

    invalid_value          the value does not validate against the catalog
    instruction_refused    the quote holds instruction-like text ("ignore your rules")
    secret                 the value (or a note's text) holds a secret
    sensitive_identifier   an identifier outside a sensitive catalog field
    low_confidence         below the source's threshold (policy.toml)
    evidence_not_found     the quote is not in the message at the tier the source requires

A path the catalog does not know is not refused: it crosses the boundary as a searchable
note. Findings no accepted fact used are refused too (`finding_rejections`): a secret is
masked in the archive and never a fact, an identifier no fact needed is masked
(`identifier_masked`), instruction-like text is refused as a preference.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.candidate import Candidate, validate, validate_ending
from uac.fact_log.extraction.evidence import Tier, verify
from uac.fact_log.extraction.policy import Policy, check_source, default_policy
from uac.fact_log.extraction.safety import Finding, SafetyResult, sensitive_fields
from uac.fact_log.store import NewRejection
from uac.fact_log.values import canonical_json

MAX_FINDING_REJECTIONS = 50  # per reason and message; the rest are counted in one row
_TIER_RANK = {"exact": 0, "normalised": 1, "tokens": 2}


@dataclass(frozen=True, slots=True)
class Accepted:
    """A candidate that passed the gate, with its evidence tier."""

    candidate: Candidate
    tier: Tier | None


def gate(
    catalog: Catalog,
    text: str,
    candidates: Iterable[Candidate],
    safety: SafetyResult,
    *,
    source: str,
    policy: Policy | None = None,
    tiers: Sequence[Tier | None] | None = None,
) -> tuple[list[Accepted], list[NewRejection]]:
    """Apply boundary, safety, confidence and evidence checks to candidates.

    `tiers` are the evidence tiers the pipeline's evidence stage found, one per candidate;
    when None (a caller gating a few candidates by hand) each quote is verified here.
    """
    policy = policy or default_policy()
    threshold = policy.thresholds[check_source(source, policy)]
    candidates = list(candidates)
    if not candidates:
        return [], []
    if tiers is None:
        tiers = [verify(c.quote, c.start, text) for c in candidates]
    sensitive = sensitive_fields(catalog)
    accepted: list[Accepted] = []
    rejected: list[NewRejection] = []
    for cand, tier in zip(candidates, tiers, strict=True):
        # Boundary: a path the catalog does not know is kept as a searchable note.
        if cand.path not in catalog.attributes and catalog.collection(cand.path) is None:
            cand = replace(cand, kind="note", path="notes", value=None)
        elif (
            typed := (validate_ending if cand.op == "end" else validate)(
                catalog, cand.path, cand.value
            )
        ) is None:
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
        if source in policy.evidence_required:
            weakest = policy.weakest_tier.get(source, "tokens")
            if tier is None or _TIER_RANK[tier] > _TIER_RANK[weakest]:
                rejected.append(_reject("evidence_not_found", cand, safety))
                continue
        accepted.append(Accepted(cand, tier))
    return accepted, rejected


def finding_rejections(
    safety: SafetyResult, accepted: Iterable[Accepted] = ()
) -> list[NewRejection]:
    """One refusal per finding no accepted fact used (capped per reason: hostile input)."""
    used: set[tuple[int, int]] = set()
    for acc in accepted:
        for f in safety.overlapping(acc.candidate.start, acc.candidate.end):
            if f.category == "identifier":
                used.add((f.start, f.end))
    out: list[NewRejection] = []
    per_reason: dict[str, int] = {}
    for f in safety.findings:
        if f.category == "identifier" and (f.start, f.end) in used:
            continue  # stored in a sensitive field on purpose; still masked in the archive
        rej = _finding_rejection(f, safety)
        per_reason[rej.reason] = per_reason.get(rej.reason, 0) + 1
        if per_reason[rej.reason] <= MAX_FINDING_REJECTIONS:
            out.append(rej)
    for reason, count in sorted(per_reason.items()):
        if count > MAX_FINDING_REJECTIONS:
            # A hostile message can hold thousands of findings: record the count, not each.
            extra = {"more": count - MAX_FINDING_REJECTIONS}
            out.append(NewRejection(reason, None, extra, input_index=0))
    return out


def unsafe(safety: SafetyResult) -> bool:
    """True when the message holds a secret or instruction-like text."""
    return any(f.category in ("secret", "instruction") for f in safety.findings)


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


def _reject(reason: str, cand: Candidate, safety: SafetyResult, **extra: Any) -> NewRejection:
    quote = safety.masked_quote(cand.start, cand.quote)
    detail = {"quote": quote[:200], "offset": cand.start, **extra}
    return NewRejection(reason, cand.path, detail, input_index=0)


def _finding_rejection(f: Finding, safety: SafetyResult) -> NewRejection:
    detail: dict[str, Any] = {"kind": f.kind, "offset": f.start, "length": f.end - f.start}
    if f.category == "instruction":
        detail["quote"] = safety.masked[f.start : f.end][:200]
        return NewRejection("instruction_refused", "preferences", detail, input_index=0)
    reason = "secret" if f.category == "secret" else "identifier_masked"
    return NewRejection(reason, None, detail, input_index=0)
