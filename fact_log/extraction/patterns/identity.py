"""Identity patterns: passport and ID documents (expiry, number), name, birth date, nationality."""

from __future__ import annotations

import re

from uac.fact_log.extraction.patterns.places import NATIONALITIES
from uac.fact_log.extraction.patterns.text import (
    NAME,
    NOT_NAMES,
    Ctx,
    Rule,
    Span,
    clause_ok,
    dates_in,
)

_EXPIRY = re.compile(
    r"\b(?:expir\w{0,6}|valid\s+(?:until|till|til|to|through|thru)|runs?\s+out|"
    r"good\s+(?:until|till|through)|(?:is\s+)?due\s+to\s+expire|ends?)\b|到期|过期",
    re.IGNORECASE,
)
_DOC = re.compile(
    r"\b(?P<passport>passport)\b|\b(?P<licence>driv(?:ing|er'?s?)\s+licen[cs]e|licen[cs]e)\b|"
    r"(?P<cpassport>护照)|(?P<clicence>驾照|驾驶证)",
    re.IGNORECASE,
)
_DOC_NUMBER = re.compile(
    r"\b(passport|driv(?:ing|er'?s?)\s+licen[cs]e|licen[cs]e)\s+(?:number|no\.?|#)\s*"
    r"(?:is\s+|:\s*)?([A-Z0-9]{5,12})\b",
    re.IGNORECASE,
)
_MY_NAME = re.compile(r"\b(?i:my\s+(?:full\s+)?name\s+is)\s+(" + NAME + r")")
_BORN = re.compile(
    r"\b(?:i\s+was\s+born\s+on|my\s+(?:birthday|date\s+of\s+birth|dob|birth\s+date)\s+is(?:\s+on)?)\b",
    re.IGNORECASE,
)
_NATIONALITY = re.compile(
    r"\b(?:i(?:'m|\s+am)\s+(?:an?\s+)?|my\s+nationality\s+is\s+|i\s+hold\s+(?:a\s+|an\s+)?|"
    r"i\s+(?:have|travel\s+on|use)\s+(?:a\s+|an\s+)?)("
    + "|".join(sorted(NATIONALITIES, key=len, reverse=True))
    + r")"
    r"(?:\s+(citizen|national|citizenship|passport))?\b|"
    r"^(?P<holder>" + "|".join(sorted(NATIONALITIES, key=len, reverse=True)) + r")\s+passport\s+"
    r"holder\b",
    re.IGNORECASE,
)
# "My passport's a UK one", "my passport is German": the country that issued it.
_PASSPORT_OF = re.compile(
    r"\bmy\s+passport(?:'s|’s|\s+is)\s+(?:an?\s+)?("
    + "|".join(sorted(NATIONALITIES, key=len, reverse=True))
    + r")(?:\s+one)?\b",
    re.IGNORECASE,
)


_NEEDS_NOUN = frozenset({"us", "uk", "usa"})


def rule_identity(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Passport / licence expiry and numbers, name, birth date, nationality."""
    docs = list(_DOC.finditer(sent.text))
    if docs and (exp := _EXPIRY.search(sent.text)):
        abs_exp = sent.start + exp.start()
        if clause_ok(parts, sent, abs_exp):
            dates = [
                d
                for d in dates_in(sent, "future", ctx.today, ctx.anchor)
                if d.start > sent.start + docs[0].start()
            ]
            if dates and dates[0].valid:
                # The document named closest before the date is the one that expires.
                doc = [m for m in docs if sent.start + m.start() < dates[0].start][-1]
                which = "passport" if doc["passport"] or doc["cpassport"] else "driver_licence"
                conf = 0.9 if dates[0].explicit_year else 0.7
                ctx.add(f"identity.{which}.expiry_date", dates[0].date, sent, conf)
    for m in _DOC_NUMBER.finditer(sent.text):
        if not clause_ok(parts, sent, sent.start + m.start()):
            continue
        which = "passport" if m[1].lower() == "passport" else "driver_licence"
        if any(ch.isdigit() for ch in m[2]):
            ctx.add(f"identity.{which}.number", m[2].upper(), sent, 0.85)
    m = _MY_NAME.search(sent.text)
    if m and clause_ok(parts, sent, sent.start + m.start()) and m[1].split()[0] not in NOT_NAMES:
        ctx.add("identity.name", m[1], sent, 0.85)
    if (m := _BORN.search(sent.text)) and clause_ok(parts, sent, sent.start + m.start()):
        dates = [
            d
            for d in dates_in(sent, "past", ctx.today, ctx.anchor)
            if d.start >= sent.start + m.end()
        ]
        if dates and dates[0].valid and dates[0].explicit_year:
            ctx.add("identity.birth_date", dates[0].date, sent, 0.9)
    m = _NATIONALITY.search(sent.text)
    # "I'm British" names a nationality; "I have a British passport" only with the noun, and
    # "US"/"UK" only with it ("I'm a US citizen").
    word = (m[1] or m["holder"]).lower() if m else ""
    if (
        m
        and clause_ok(parts, sent, sent.start + m.start())
        and (m[0].lower().startswith(("i'm", "i am", "my nationality")) or m[2] or m["holder"])
        and (m[2] or m["holder"] or word not in _NEEDS_NOUN)
    ):
        ctx.add("identity.nationality", NATIONALITIES[word], sent, 0.8)
        # "I travel on an Irish passport" names the passport used (a dual national may hold
        # two); "I have a Canadian passport" only the nationality.
        if (
            m[1]
            and (m[2] or "").lower() == "passport"
            and re.match(r"i\s+(?:travel\s+on|use)\b", m[0], re.I)
        ):
            ctx.add("identity.passport.issuing_country", NATIONALITIES[m[1].lower()], sent, 0.8)
    m = _PASSPORT_OF.search(sent.text)
    if m and clause_ok(parts, sent, sent.start + m.start()):
        ctx.add("identity.passport.issuing_country", NATIONALITIES[m[1].lower()], sent, 0.8)


RULES: tuple[Rule, ...] = (rule_identity,)
