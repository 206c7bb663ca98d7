"""The safety filter: secrets are masked and never stored, identifiers only in sensitive fields,
instruction-like text is refused as a preference.

Masking is length-preserving (every non-space character of a secret becomes "*") so offsets
into the original message stay valid in the masked text: evidence quotes and offsets can be
stored against the archived (masked) input.

All patterns are linear; PEM blocks are found with str.find rather than a regex spanning
the block, so a hostile 64 KiB string costs one pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from uac.fact_log.catalog import Catalog

Category = Literal["secret", "identifier", "instruction"]


@dataclass(frozen=True, slots=True)
class Finding:
    """Something the filter found: what, where, and (for identifiers) the field allowed."""

    category: Category
    kind: str
    start: int
    end: int
    allowed_path: str | None = None  # a sensitive catalog field this value may be stored in


@dataclass(frozen=True, slots=True)
class SafetyResult:
    """The masked text plus every finding, in order."""

    masked: str
    findings: tuple[Finding, ...]

    def overlapping(self, start: int, end: int) -> list[Finding]:
        """Findings that overlap the span [start, end)."""
        return [f for f in self.findings if f.start < end and start < f.end]

    def masked_quote(self, start: int, quote: str) -> str:
        """The quote at start as the archive holds it (masking keeps lengths, so same span)."""
        masked = self.masked[start : start + len(quote)]
        return masked if len(masked) == len(quote) else "*" * len(quote)


_SECRETS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    # (kind, pattern, group holding the secret: 0 = whole match)
    ("api_key", re.compile(r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,200}"), 0),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), 0),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[\w]{20,255})"), 0),
    ("slack_token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,200}"), 0),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{30,40}"), 0),
    ("stripe_key", re.compile(r"\b(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{10,200}"), 0),
    (
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,2000}\.[A-Za-z0-9_-]{8,2000}\.[A-Za-z0-9_-]{8,2000}"),
        0,
    ),
    ("bearer_token", re.compile(r"\b[Bb]earer\s{1,3}([A-Za-z0-9._~+/=-]{12,2000})"), 1),
    (
        "password",
        re.compile(
            r"\b(?:password|passcode|passwd|pwd|pass\s?phrase|pin(?:\s+(?:code|number))?|"
            r"security\s+code|cvv|cvc|one[\s-]time\s+code|otp|2fa\s+code|verification\s+code|"
            r"secret(?:\s+key)?|api[\s_-]?key|access[\s_-]?token|auth[\s_-]?token|token)"
            r"(?:\s+(?:for|to|on)\s+[\w.-]{1,40}(?:\s[\w.-]{1,40})?)?"
            r"\s{0,3}(?:is|was|:|=|will\s+be|is\s+now)\s{0,3}[\"'“‘]?([^\s\"'”’,;]{3,200})",
            re.IGNORECASE,
        ),
        1,
    ),
    ("password", re.compile(r"(?:密码|口令|验证码|PIN码)\s?(?:是|为|:|：)\s?(\S{3,200})"), 1),
    (
        "connection_string",
        re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]{1,100}:([^\s@/]{3,200})@", re.I),
        1,
    ),
)
_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY-----")

_DIGIT_RUN = re.compile(r"(?<![\d-])\d{1,19}(?:[ -]\d{1,19}){0,15}(?![\d-])")
_GROUP = re.compile(r"\d+")
_IDENTIFIERS: tuple[tuple[str, re.Pattern[str], int, str | None], ...] = (
    # (kind, pattern, group, the catalog field such a value may be stored in)
    (
        "passport_number",
        re.compile(
            r"\bpassport\s+(?:number|no\.?|#)\s*(?:is\s+|:\s*)?([A-Z0-9]{5,12})\b", re.IGNORECASE
        ),
        1,
        "identity.passport.number",
    ),
    (
        "licence_number",
        re.compile(
            r"\bdriv(?:ing|er'?s?)\s+licen[cs]e\s+(?:number|no\.?|#)\s*(?:is\s+|:\s*)?"
            r"([A-Z0-9]{5,18})\b",
            re.IGNORECASE,
        ),
        1,
        "identity.driver_licence.number",
    ),
    ("us_ssn", re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])"), 0, None),
    (
        "uk_nino",
        re.compile(r"\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b"),
        0,
        None,
    ),
    (
        "national_id",
        re.compile(
            r"\b(?:national\s+id(?:entity)?|id\s+card|social\s+security|ssn|nino|"
            r"national\s+insurance|tax\s+id|tin|aadhaar|身份证)\s*(?:number|no\.?|#)?\s*"
            r"(?:is|:|=|号码是|号是)?\s*([A-Z0-9][A-Z0-9 -]{4,24}[A-Z0-9])",
            re.IGNORECASE,
        ),
        1,
        None,
    ),
    ("cn_resident_id", re.compile(r"(?<!\d)\d{17}[\dXx](?!\d)"), 0, None),
    ("iban", re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}(?:\s?[A-Z0-9]{1,3})?\b"), 0, None),
)

_INSTRUCTIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "override_rules",
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?"
            r"(?:your\s+|the\s+|my\s+)?(?:previous|prior|above|earlier|original|system|safety)?\s*"
            r"(?:rules|instructions|prompts?|guidelines|guardrails|policies|restrictions)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "persona_change",
        re.compile(
            r"\byou\s+are\s+now\b|\bact\s+as\s+(?:if\s+you\s+are\s+)?(?:an?\s+)?unrestricted|\b(?:developer|god|dan)\s+mode\b|\bjailbreak",
            re.IGNORECASE,
        ),
    ),
    ("system_prompt", re.compile(r"\bsystem\s+prompt\b|\bnew\s+instructions?\s*:", re.IGNORECASE)),
    (
        "skip_confirmation",
        re.compile(
            r"\b(?:approve|authori[sz]e|execute|confirm|make|send|transfer|wire|pay|buy|book|"
            r"delete|sign|accept)\b[^.!?\n]{0,60}\bwithout\s+(?:ask(?:ing)?|confirm(?:ing|ation)?|"
            r"check(?:ing)?|my\s+(?:approval|permission|consent)|telling|warning)",
            re.IGNORECASE,
        ),
    ),
    (
        "standing_payment",
        re.compile(
            r"\b(?:always|automatically|whenever\s+asked)\s+(?:send|transfer|wire|pay|forward|"
            r"share|give|move)\b[^.!?\n]{0,60}\b(?:money|funds|payments?|passwords?|credentials|"
            r"bitcoin|crypto|\$|£|€|to\s+(?:account|iban|wallet|this))",
            re.IGNORECASE,
        ),
    ),
    (
        "no_confirmation",
        re.compile(
            r"\b(?:never|don't|do\s+not|stop)\s+(?:ask(?:ing)?|check(?:ing)?\s+with)\s+(?:me\s+)?"
            r"(?:for\s+)?(?:permission|confirmation|approval|before)",
            re.IGNORECASE,
        ),
    ),
    (
        "reveal_secrets",
        re.compile(
            r"\b(?:reveal|share|send|print|show|leak)\s+(?:your|the|all)\s+(?:system\s+prompt|"
            r"api\s+keys?|passwords?|secrets|credentials)",
            re.IGNORECASE,
        ),
    ),
    (
        "override_rules",
        re.compile(
            r"忽略(?:之前|以前|上面|所有)?的?(?:指令|规则|提示)|不用(?:问|确认|询问)我|无需确认|直接转账"
        ),
    ),
)


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum used by payment card numbers."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = ord(ch) - 48
        if i % 2 == 1:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def _cards(text: str) -> list[tuple[int, int]]:
    """Spans of Luhn-valid 13-19 digit card numbers, also inside longer digit-group runs.

    "2025 4111 1111 1111 1111" must still find the card, so every window of whole digit
    groups is tried; a run without separators is only checked whole (a random 16-digit window
    of a long number passes Luhn one time in ten).
    """
    spans: list[tuple[int, int]] = []
    for run in _DIGIT_RUN.finditer(text):
        groups = [(g.start() + run.start(), g.end() + run.start()) for g in _GROUP.finditer(run[0])]
        # Every Luhn-valid window is masked (their union): taking the first valid window and
        # skipping past it can misalign on "2025 4111 1111 ..." and leave a real card visible.
        for i in range(len(groups)):
            digits = ""
            for j in range(i, len(groups)):
                group = text[groups[j][0] : groups[j][1]]
                if len(group) < 3:
                    break  # card numbers are printed in groups of 3-6 digits, not "1 2 3"
                digits += group
                if len(digits) > 19:
                    break
                if len(digits) >= 13 and luhn_ok(digits):
                    start, end = groups[i][0], groups[j][1]
                    if spans and start <= spans[-1][1]:
                        spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
                    else:
                        spans.append((start, end))
    return spans


def _pem_blocks(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _PEM_BEGIN.finditer(text):
        if spans and m.start() < spans[-1][1]:
            continue
        end = text.find("PRIVATE KEY-----", m.end())
        end = len(text) if end < 0 else end + len("PRIVATE KEY-----")
        spans.append((m.start(), end))
    return spans


def scan(text: str) -> SafetyResult:
    """Find secrets, identifiers and instruction-like text; mask secrets and identifiers."""
    findings: list[Finding] = []
    for start, end in _pem_blocks(text):
        findings.append(Finding("secret", "private_key", start, end))
    for kind, pattern, group in _SECRETS:
        for m in pattern.finditer(text):
            findings.append(Finding("secret", kind, m.start(group), m.end(group)))
    for start, end in _cards(text):
        findings.append(Finding("identifier", "payment_card", start, end))
    for kind, pattern, group, allowed in _IDENTIFIERS:
        for m in pattern.finditer(text):
            value = m[group]
            if kind in ("national_id", "passport_number", "licence_number") and not any(
                ch.isdigit() for ch in value
            ):
                continue  # "passport number is here": no number, nothing to protect
            findings.append(Finding("identifier", kind, m.start(group), m.end(group), allowed))
    for kind, pattern in _INSTRUCTIONS:
        for m in pattern.finditer(text):
            findings.append(Finding("instruction", kind, m.start(), m.end()))
    findings = _merge(findings)
    return SafetyResult(
        mask(text, [f for f in findings if f.category != "instruction"]), tuple(findings)
    )


def _merge(findings: list[Finding]) -> list[Finding]:
    """Sort, and drop an identifier finding fully covered by a secret (one report each)."""
    findings.sort(key=lambda f: (f.start, -f.end))
    out: list[Finding] = []
    for f in findings:
        if any(
            o.start <= f.start and f.end <= o.end and o.category == f.category and o != f
            for o in out
        ):
            continue
        out.append(f)
    return out


def mask(text: str, findings: list[Finding]) -> str:
    """Replace every non-space character in the findings' spans with '*' (same length)."""
    if not findings:
        return text
    chars = list(text)
    for f in findings:
        for i in range(f.start, f.end):
            if not chars[i].isspace():
                chars[i] = "*"
    return "".join(chars)


def sensitive_fields(catalog: Catalog) -> frozenset[str]:
    """Catalog paths (attributes and `collection.field`) whose sensitivity is not 'none'."""
    out = {p for p, a in catalog.attributes.items() if a.spec.sensitivity != "none"}
    for path, coll in catalog.collections.items():
        out |= {f"{path}.{f}" for f, spec in coll.spec.fields.items() if spec.sensitivity != "none"}
    return frozenset(out)
