"""Identity patterns, the one home of identity.name, identity.birth_date, identity.nationality
and the passport's issuing country ("I have a Turkish passport", "US passport holder")."""

from __future__ import annotations

import re

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    FOR_SOMEONE,
    NAME,
    NOT_NAMES,
    THIRD_PARTY,
    Ctx,
    Span,
    clause_ok,
    dates_in,
    guarded,
    in_clause,
)
from uac.fact_log.extraction.patterns.travel import home_city
from uac.fact_log.extraction.values.places import COUNTRIES, NATIONALITIES, lookup_place

# The nationality adjectives, longest first ("Northern Irish" before "Irish")
NATIONS = "|".join(sorted(NATIONALITIES, key=len, reverse=True))

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


# "Tom's China visa", "sorted for my son", "UK passport too, says my husband", "asking for my
# friend", "Tom's, not mine": the document is someone else's
_OTHERS = lazy(
    r"\b(?-i:[A-Z][a-z]+)(?:'s|’s)\s+(?:\w+\s+){0,2}(?:e-?visa|visa|passport)\b|"
    + FOR_SOMEONE
    + r"|\b(?:asking\s+for|says|said)\s+(?:my|a|his|her)\b|"
    r"\bnot\s+(?:mine|for\s+me)\b",
    re.I,
)


def others_document(ctx: Ctx, sent: Span, at: int) -> bool:
    """Whether the sentence, or a fragment right after it, gives the document named at `at`
    to another ("my son's visa"; "my visa, from my cousin's wedding" is still the user's)."""
    nxt = ctx.following
    return bool(
        THIRD_PARTY.search(sent.text[:at])
        or _OTHERS.search(sent.text)
        or (nxt is not None and len(nxt.text) < 80 and _OTHERS.search(nxt.text))
    )


_EXPIRY = lazy(
    r"\b(?:expir\w{0,6}|valid\s+(?:until|till|til|to|through|thru)|runs?\s+out|"
    r"(?:good|fine|ok|okay)\s+(?:until|till|through)|(?:is\s+)?due\s+to\s+expire|ends?)\b|"
    r"到期|过期",
    re.IGNORECASE,
)
_DOC = lazy(
    r"\b(?P<passport>passport)\b|\b(?P<licence>driv(?:ing|er'?s?)\s+licen[cs]e|licen[cs]e)\b|"
    r"(?P<cpassport>护照)|(?P<clicence>驾照|驾驶证)",
    re.IGNORECASE,
)
_DOC_NUMBER = lazy(
    r"\b(passport|driv(?:ing|er'?s?)\s+licen[cs]e|licen[cs]e)\s+(?:number|no\.?|#)\s*"
    r"(?:is\s+|:\s*)?([A-Z0-9]{5,12})\b",
    re.IGNORECASE,
)
_MY_NAME = lazy(r"\b(?i:my\s+(?:full\s+)?name\s+is)\s+(" + NAME + r")")
_BORN = lazy(
    r"\b(?:i\s+was\s+born\s+on|my\s+(?:birthday|date\s+of\s+birth|dob|birth\s+date)\s+is(?:\s+on)?)\b",
    re.IGNORECASE,
)
_DEMONYMS = "|".join(sorted(NATIONALITIES, key=len, reverse=True))
_NATIONALITY = lazy(
    r"\b(?:i(?:'?m|\s+am)\s+(?:on\s+)?(?:an?\s+)?|my\s+nationality\s+is\s+|i\s+hold\s+(?:a\s+|an\s+)?|"
    r"i\s+(?:have|travel\s+on|use)\s+(?:a\s+|an\s+)?)("
    + "|".join(sorted(NATIONALITIES, key=len, reverse=True))
    + r")"
    r"(?:\s+(citizen|national|citizenship|passport))?\b|"
    r"^(?P<holder>" + "|".join(sorted(NATIONALITIES, key=len, reverse=True)) + r")\s+passport\s+"
    r"holder\b",
    re.IGNORECASE,
)
# "Canadian here", "we're Irish btw", "We are German so ...": the user's people, said as a
# demonym that ends the phrase (not "we are Polish-speaking", "a Canadian friend").
_WE_ARE = lazy(
    r"(?:^(?P<here>"
    + _DEMONYMS
    + r")(?P<noun>\s+(?:citizen|national|passport\s+holder))?\s+here\b|"
    r"\bwe(?:'re|’re|\s+are)\s+(?:both\s+|all\s+)?(?P<we>"
    + _DEMONYMS
    + r"))(?![\w-])(?=\s*(?:$|[,.;!)]|\s(?:so|btw|by|and|too|citizens|"
    r"nationals|here|though|anyway|if)\b))",
    re.IGNORECASE,
)
# "My passport's a UK one", "my passport is German": the country that issued it; "My Turkish
# passport number is ...", "My passport (Japan) expires ...": said beside the passport.
_PASSPORT_OF = lazy(
    r"\bmy\s+passport(?:'s|’s|\s+is)\s+(?:an?\s+)?("
    + "|".join(sorted(NATIONALITIES, key=len, reverse=True))
    + r")(?:\s+one)?\b|"
    r"\bmy\s+(?:current\s+|new\s+|valid\s+)?(" + _DEMONYMS + r")\s+passport\b(?!\s+holder)|"
    r"\bmy\s+passport\s*\(("
    + _DEMONYMS
    + r"|"
    + "|".join(map(re.escape, sorted(COUNTRIES, key=len, reverse=True)))
    + r")\)",
    re.IGNORECASE,
)


_NEEDS_NOUN = frozenset({"us", "uk", "usa"})
# "I'm Niamh Lowe", "my name's Sara Kim", "this is Aoife Byrne": a first and last name said
# as who the user is (one word alone after "I'm" is too often not a name).
_I_AM_NAMED = lazy(
    r"(?:^|[,:;]\s*|\b(?:hi|hello|hey)\s*,?\s*)(?:i'm|i\s+am|this\s+is)\s+"
    r"(?P<n>(?-i:[A-Z][a-zà-ÿ'’-]{1,20}(?:[ \t][A-Z][a-zà-ÿ'’-]{1,20}){1,2}))"
    r"(?=\s*(?:$|[,.;!]|\s(?:and|btw|here|from)\b))|"
    r"\bmy\s+name(?:'s|’s)\s+(?P<n2>(?-i:" + NAME + r"))",
    re.IGNORECASE,
)


def _name_and_home(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The user's name said as "I'm <first last>", and the city they live in (travel.py's)."""
    m = _I_AM_NAMED.search(sent.text)
    name = m and (m["n"] or m["n2"])
    if (
        name
        and not any(w in NOT_NAMES or w.lower() in NATIONALITIES for w in name.split())
        and lookup_place(name) is None
        and in_clause(m, parts, sent, "n" if m["n"] else "n2")
    ):
        ctx.add("identity.name", name, sent, 0.8)
    home_city(ctx, sent, parts)  # travel.py: where the user lives


# "Pat's passport arrived; mine is fine until 2029-11-02": the user's own of the document the
# sentence before named
_MINE = lazy(r"^(?:and\s+|but\s+|while\s+)?mine(?:['’]s|\s+is|\s+)", re.I)


def _mine_expires(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The expiry of the user's own document, said as "mine" after another person's."""
    exp = _EXPIRY.search(sent.text)
    if exp is None or not clause_ok(parts, sent, sent.start + exp.start()):
        return
    before = list(_DOC.finditer(ctx.text[max(0, sent.start - 80) : sent.start]))
    dates = [d for d in dates_in(sent, "future", ctx.today) if d.start > sent.start + exp.start()]
    if not before or not dates or not dates[0].valid:
        return
    doc = before[-1]
    which = "passport" if doc["passport"] or doc["cpassport"] else "driver_licence"
    ctx.add(f"identity.{which}.expiry_date", dates[0].date, sent, 0.75)


def rule_identity(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Passport / licence expiry and numbers, name, birth date, nationality."""
    if _MINE.match(sent.text):
        _mine_expires(ctx, sent, parts)
    docs = list(_DOC.finditer(sent.text))
    if docs and (exp := _EXPIRY.search(sent.text)):
        abs_exp = sent.start + exp.start()
        if clause_ok(parts, sent, abs_exp):
            dates = ctx.dates(sent, after=docs[0].start() + 1)
            if dates and dates[0].valid:
                # The document named closest before the date is the one that expires.
                doc = [m for m in docs if sent.start + m.start() < dates[0].start][-1]
                which = "passport" if doc["passport"] or doc["cpassport"] else "driver_licence"
                conf = 0.9 if dates[0].explicit_year else 0.7
                ctx.add(f"identity.{which}.expiry_date", dates[0].date, sent, conf)
    for m in _DOC_NUMBER.finditer(sent.text):
        if not in_clause(m, parts, sent):
            continue
        which = "passport" if m[1].lower() == "passport" else "driver_licence"
        if any(ch.isdigit() for ch in m[2]):
            ctx.add(f"identity.{which}.number", m[2].upper(), sent, 0.85)
    _name_and_home(ctx, sent, parts)
    m = _MY_NAME.search(sent.text)
    if in_clause(m, parts, sent) and m[1].split()[0] not in NOT_NAMES:
        ctx.add("identity.name", m[1], sent, 0.85)
    if (m := _BORN.search(sent.text)) and in_clause(m, parts, sent):
        dates = ctx.dates(sent, "past", after=m.end())
        if dates and dates[0].valid and dates[0].explicit_year:
            ctx.add("identity.birth_date", dates[0].date, sent, 0.9)
    m = _NATIONALITY.search(sent.text)
    # "I'm British" names a nationality; "I have a British passport" only with the noun, and
    # "US"/"UK" only with it ("I'm a US citizen").
    word = (m[1] or m["holder"]).lower() if m else ""
    if (
        m
        and in_clause(m, parts, sent)
        and (re.match(r"i'?m\b|i\s+am\b|my\s+nat", m[0], re.I) or m[2] or m["holder"])
        and (m[2] or m["holder"] or word not in _NEEDS_NOUN)
    ):
        # "I travel on an Irish passport", "I have Turkish passport", "I'm on a US passport":
        # the passport the user has (its issuing country), not a nationality (people hold
        # passports of countries they are not nationals of; both blind writers agree).
        # "Indian passport holder" too: the writers of blind2-4 record the passport's country
        if m["holder"] or (m[1] and (m[2] or "").lower() == "passport"):
            ctx.add("identity.passport.issuing_country", NATIONALITIES[word], sent, 0.8)
        else:
            ctx.add("identity.nationality", NATIONALITIES[word], sent, 0.8)
    m = _WE_ARE.search(sent.text)
    word = (m["here"] or m["we"]).lower() if m else ""
    # what follows the demonym ("so no problem with passports I think") does not unsay it
    if m and (word not in _NEEDS_NOUN or m["noun"]) and not guarded(sent.text[: m.end()]):
        path = "passport.issuing_country" if "passport" in (m["noun"] or "") else "nationality"
        ctx.add(f"identity.{path}", NATIONALITIES[word], sent, 0.75)
    m = _PASSPORT_OF.search(sent.text) if "assport" in sent.text else None
    if in_clause(m, parts, sent):
        word = (m[1] or m[2] or m[3]).lower()  # type: ignore[index]
        code = NATIONALITIES.get(word) or COUNTRIES.get(word)
        if code:
            ctx.add("identity.passport.issuing_country", code, sent, 0.8)


# "I have Turkish passport", "I'll travel on the French passport": the country that issued it
_PASSPORT_HELD = lazy(
    r"\b(?:i(?:'ll|\s+will)?\s+(?:have|hold|use|travel\s+on|fly\s+on|enter\s+on)|i(?:'ve|\s+have)\s+"
    r"got|i(?:'m|m|\s+am)\s+(?:(?:travel(?:l)?ing|flying)\s+)?on|(?P<it>it(?:'s|\s+is)))\s+"
    r"(?:a\s+|an\s+|the\s+|my\s+)?"
    r"(?P<adj>" + NATIONS + r")\s+passport\b"
    # "US passport holder", "British passport holder, living in Manchester"
    r"|(?:^|[,;]\s*|\b(?:i(?:'m|\s+am)\s+)?an?\s+)(?P<holder>"
    + NATIONS
    + r"|UK|US|USA)\s+passport\s+holder\b"
    # "Nigerian passport, expires 2031", "US passport obviously": the user's passport said as
    # the line's topic (a remark on it follows, never a verb of its own)
    r"|^(?:and\s+|also\s+|oh\s+|my\s+)?(?P<lead>" + NATIONS + r"|UK|US|USA)\s+passport\b"
    r"(?=\s*(?:[,.;!]|$)|\s+(?:obviously|too|btw|only|though|as\s+well|expires?|valid|good|"
    r"guy|girl|here|holder)\b)",
    re.IGNORECASE,
)


def rule_passport_country(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The country that issued the passport the user holds or travels on."""
    if "assport" not in sent.text and "ASSPORT" not in sent.text:
        return  # every form names the passport
    m = _PASSPORT_HELD.search(sent.text)
    if m is None or not in_clause(m, parts, sent, "holder" if m["holder"] else 0):
        return
    if m["it"] and ctx.thread.last("passport") is None:
        return  # "it is a Brazilian passport" says whose only after the user's passport came up
    if m["lead"] and ("?" in sent.text or others_document(ctx, sent, m.end())):
        return  # "US passport only? asking for my friend"
    said = m["adj"] or m["holder"] or m["lead"]
    code = NATIONALITIES.get(said.lower()) or country_code(said)
    if code is not None:
        ctx.add("identity.passport.issuing_country", code, sent, 0.8)


def passport_issued_by(ctx: Ctx, sent: Span, code: str, confidence: float) -> None:
    """The country that issued the user's passport, as a fragment said it ("issued by
    Ireland": documents.py reads the fragment)."""
    ctx.add("identity.passport.issuing_country", code, sent, confidence)
