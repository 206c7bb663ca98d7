"""Document patterns: visas and entry permits, insurance policies ("travel insurance with AXA
until 31 December"). Passports and licences are identity.py's."""

from __future__ import annotations

import re
from typing import Any

from uac.fact_log.extraction.patterns.places import COUNTRIES, NATIONALITIES, lookup_place
from uac.fact_log.extraction.patterns.text import Ctx, Rule, Span, clause_ok, dates_in

VISA = re.compile(
    r"\b(?P<esta>ESTA)\b|\b(?:(?P<c1>[A-Z][a-z]+|UK|US|USA)\s+)?(?:(?P<kind1>tourist|business|"
    r"work|student|transit|working\s+holiday)\s+)?(?P<word>e-?visa|visa)\b"
    r"(?:\s+for\s+(?:the\s+)?(?P<c2>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?|UK|US|USA))?",
)
_HOLDS = re.compile(
    r"\b(?:got|have|received|approved|granted|issued|expires?|valid|runs?\s+out|came\s+through|"
    r"arrived)\b",
    re.I,
)
_UNTIL = re.compile(
    r"\b(?:valid\s+(?:until|till|through|to)|expires?(?:\s+on)?|runs?\s+(?:out|until)|"
    r"good\s+until|until|till|renews?(?:\s+on)?|covers?\s+(?:us|me)\s+until|ends?(?:\s+on)?)\b",
    re.I,
)
_KIND_WORD = re.compile(r"\b(tourist|business|work|student|transit)\b", re.I)
_ENTRIES = re.compile(r"\b(single|double|multiple)[- ](?:entry|entries)\b", re.I)
_CODES = {"UK": "GB", "US": "US", "USA": "US"}


def country_code(name: str | None) -> str | None:
    """ISO code of a country or city name ("India", "UK"), or None."""
    if not name:
        return None
    if name in _CODES:
        return _CODES[name]
    found = lookup_place(name)
    if found is not None:
        return found[1]
    # "my Chinese visa": the adjective names the country as well as the noun does.
    return COUNTRIES.get(name.lower()) or NATIONALITIES.get(name.lower())


def _valid_until(ctx: Ctx, sent: Span) -> Any:
    """The day after "valid until" / "expires on" in the sentence, or None."""
    m = _UNTIL.search(sent.text)
    if m is None:
        return None
    for d in dates_in(sent, "future", ctx.today, ctx.anchor):
        if d.start >= sent.start + m.start():
            return d.date
    return None


def rule_visas(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Visas the user holds: "I got my ESTA approved", "my UK visa expires on ..."."""
    m = VISA.search(sent.text)
    if m is None or not _HOLDS.search(sent.text):
        return
    if not clause_ok(parts, sent, sent.start + m.start()) or re.search(
        r"\b(?:need|apply|applying|sort\s+out|his|her|their)\b", sent.text, re.I
    ):
        return
    country = "US" if m["esta"] else country_code(m["c1"] or m["c2"])
    if country is None:
        earlier = ctx.thread.last("visa")  # "Got the e-visa today" after "my visa for India"
        country = earlier.get("country") if earlier is not None else None
    if country is None:
        return
    value: dict[str, Any] = {"country": country}
    kind = "ESTA" if m["esta"] else (m["kind1"] or "")
    if not kind and (k := _KIND_WORD.search(sent.text)):
        kind = k[1]
    if not kind and m["word"] and m["word"].lower().startswith("e"):
        kind = "e-visa"
    if kind:
        value["kind"] = kind.lower() if kind != "ESTA" else kind
    if (until := _valid_until(ctx, sent)) is not None:
        value["valid_until"] = until
    if (entries := _ENTRIES.search(sent.text)) is not None:
        value["entries"] = entries[1].lower()
    ctx.add("identity.visas", value, sent, 0.8)


_INSURANCE = re.compile(
    r"\b(?P<kind>(?i:travel|health|car|home|life|contents|motor|medical))\s+(?i:insurance)\b"
    r"[^.;]{0,30}?\b(?i:with|from|through|by|at)\s+(?P<provider>[A-Z][\w&]+(?:\s[A-Z][\w&]+)?)"
    r"|\b(?i:insurance)\s+(?:is\s+)?(?i:with|from|through)\s+(?P<provider2>[A-Z][\w&]+)"
    # "My AXA travel insurance runs until 15 August": the insurer said first
    r"|\b(?i:my|our)\s+(?P<provider3>[A-Z][\w&]+)\s+(?P<kind3>(?i:travel|health|car|home|life|"
    r"contents|motor|medical|pet))\s+(?i:insurance|cover)\b",
)
_INS_KIND = {"motor": "car", "contents": "home", "medical": "health"}


def rule_insurance(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Insurance the user holds, with the insurer and the last day of cover."""
    m = _INSURANCE.search(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start + m.start()):
        return
    if re.search(r"\b(?:his|her|their|partner's|wife's|husband's)\b", sent.text[: m.end()], re.I):
        return
    provider = m["provider"] or m["provider2"] or m["provider3"]
    if not provider[:1].isupper():
        return
    kind = (m["kind"] or m["kind3"] or "").lower()
    value: dict[str, Any] = {"kind": _INS_KIND.get(kind, kind) or "other", "provider": provider}
    if (until := _valid_until(ctx, sent)) is not None:
        value["valid_until"] = until
    ctx.add("identity.insurance_policies", value, sent, 0.8)


RULES: tuple[Rule, ...] = (rule_visas, rule_insurance)
