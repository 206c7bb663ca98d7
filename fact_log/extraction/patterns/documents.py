"""Document patterns, the one home of identity.visas and identity.insurance_policies: visas and
entry permits, insurance policies ("travel insurance with AXA until 31 December"); fragments
that complete the document just talked about ("number 550192834", "expires 2037-01-28",
"issued by Ireland"). The passport's issuing country said of the user is identity.py's."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from typing import Any

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.discourse import Mention
from uac.fact_log.extraction.patterns.identity import (
    NATIONS,
    country_code,
    others_document,
    passport_issued_by,
)
from uac.fact_log.extraction.patterns.text import (
    HYPOTHETICAL,
    NOT_NAMES,
    UNCERTAIN,
    Ctx,
    Span,
    dates_in,
    emit,
    in_clause,
    is_question,
)
from uac.fact_log.extraction.timemodel import count_word, shift
from uac.fact_log.extraction.values.places import NATIONALITIES, lookup_place

VISA = lazy(
    r"\b(?P<esta>ESTA)\b|"
    # electronic travel authorisations: Canada's eTA, New Zealand's NZeTA, Korea's K-ETA, the UK
    # ETA ("I have the eTA for Canada")
    r"\b(?:(?P<c3>UK|Canadian|Canada)\s+)?(?P<eta>eTA|ETA|NZeTA|K-ETA)\b"
    r"(?:\s+for\s+(?:the\s+)?(?P<c4>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?|UK))?|\b(?:(?P<c1>[A-Za-z][a-z]+|UK|US|USA)\s+)?(?:(?P<kind1>tourist|business|"
    r"work|student|transit|working\s+holiday)\s+)?(?P<word>e-?visa|visa)\b"
    r"(?:\s+for\s+(?:the\s+)?(?P<c2>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?|UK|US|USA))?",
)
_HOLDS = lazy(
    r"\b(?:got|have|received|approved|granted|issued|expires?|valid|runs?\s+out|came\s+through|"
    r"arrived|landed|came\s+in|sorted)\b",
    re.I,
)
_UNTIL = lazy(
    r"\b(?:valid\s+(?:until|till|through|to)|expires?(?:\s+on)?|runs?\s+(?:out|until)|"
    r"good\s+(?:until|till|through|to)|until|till|renews?(?:\s+on)?|covers?\s+(?:us|me)\s+until|"
    r"ends?(?:\s+on)?)\b",
    re.I,
)
_KIND_WORD = lazy(r"\b(tourist|business|work|student|transit)\b", re.I)
_ENTRIES = lazy(r"\b(single|double|multiple)[- ](?:entry|entries)\b", re.I)
# "ETA for Rome is 6pm", "Canada ETA 7pm": an estimated time of arrival, not an authorisation
_ARRIVAL_AFTER = lazy(
    r"[^.!?\n]{0,25}?(?:\b\d{1,2}(?::\d{2}|\s?(?:am|pm|h)\b)|\b(?:late|delayed|soon|tonight)\b)",
    re.I,
)


def arrival_time(m: re.Match[str], text: str) -> bool:
    """Whether an all-capitals ETA is a time of arrival: a clock time or delay follows it, or
    it names no country whose authorisation is called so (the UK's ETA, Canada's eTA)."""
    if m["eta"] != "ETA":
        return False
    if _ARRIVAL_AFTER.match(text, m.end()):
        return True
    return not (m["c3"] in ("UK", "Canada", "Canadian") or m["c4"] == "UK")


def visa_country(m: re.Match[str]) -> str | None:
    """The country a visa mention names ("my Indian visa", "a visa for India", "ESTA")."""
    if arrival_time(m, m.string):
        return None
    if m["esta"]:
        return "US"
    if m["eta"]:
        implied = {"eTA": "CA", "NZeTA": "NZ", "K-ETA": "KR"}.get(m["eta"])
        return country_code(m["c4"]) or country_code(m["c3"]) or implied
    return country_code(m["c1"]) or country_code(m["c2"])


def _valid_until(ctx: Ctx, sent: Span) -> Any:
    """The day after "valid until" / "expires on" in the sentence, or None."""
    m = _UNTIL.search(sent.text)
    if m is None:
        return None
    for d in ctx.dates(sent):
        if d.start >= sent.start + m.start():
            return d.date
    return None


def rule_visas(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Visas the user holds: "I got my ESTA approved", "my UK visa expires on ..."."""
    m = VISA.search(sent.text)
    if m is None or arrival_time(m, sent.text) or others_document(ctx, sent, m.start()):
        return
    nxt = ctx.following
    details = nxt is not None and _FRAGMENT.match(nxt.text) and _HOLDS.search(nxt.text)
    if not (_HOLDS.search(sent.text) or details):
        return  # ("China visa don land! Single entry, valid 1 April to ...": held, by its days)
    if not in_clause(m, parts, sent):
        return
    if re.search(r"\b(?:need|apply|applying|sort\s+out|his|her|their)\b", sent.text, re.I) and (
        not _HAVE_IT.search(sent.text, m.end())  # "I need a visa, I have it already" holds it
    ):
        return
    country = visa_country(m)
    if country is None and (office := _ISSUER.search(sent.text)) is not None:
        country = NATIONALITIES[office["nat"].lower()]  # "the German consulate gave it"
    if country is None:
        # "Update on India: e-visa approved": a country said before the visa in its sentence
        head = _CAPITALISED.findall(sent.text[: m.start()])
        country = next(
            filter(None, (country_code(w) for w in head)), None
        )  # 'Canadian visitor visa'
    if country is None:
        earlier = ctx.thread.last("visa")  # "Got the e-visa today" after "my visa for India"
        country = earlier.get("country") if earlier is not None else None
    if country is None:
        return
    value: dict[str, Any] = {"country": country}
    kind = "ESTA" if m["esta"] else (m["eta"] or m["kind1"] or "")
    if not kind and (k := _KIND_WORD.search(sent.text)):
        kind = k[1]
    if not kind and m["word"] and m["word"].lower().startswith("e"):
        kind = "e-visa"
    if kind:
        value["kind"] = kind if kind == "ESTA" or m["eta"] else kind.lower()
    nxt = ctx.following
    if not dates_in(sent, "future", ctx.today) and nxt is not None and _FRAGMENT.match(nxt.text):
        # "Vietnam visa approved!! e-visa, single entry, 3 Feb to 4 March": the details follow
        sent = Span(sent.start, ctx.text[sent.start : nxt.end])
    if (span := _validity(ctx, sent)) is not None:
        value["valid_from"], value["valid_until"] = span
    elif (until := _valid_until(ctx, sent)) is not None:
        value["valid_until"] = until
    elif (valid := _VALID_FOR.search(sent.text)) is not None and (
        start := _valid_from(ctx, sent, valid)
    ) is not None:
        # "approved, valid 2 years", "valid 3 months from today": valid from the day it came;
        # "valid 30 days from 1 April": from the day said
        n, unit = count_word(valid["n"]), valid["unit"]
        value["valid_from"] = start
        if n and (last := shift(start, n, unit)) is not None:
            value["valid_until"] = last
    if (entries := _ENTRIES.search(sent.text)) is not None:
        value["entries"] = entries[1].lower()
    ctx.add("identity.visas", value, sent, 0.8)


# "valid 2 years", "valid for 90 days from today": a length of validity, no first day said
_VALID_FOR = lazy(
    r"\bvalid\s+(?:for\s+)?(?P<n>\d{1,3}|one|two|three|four|five|six|ten|twelve)\s+"
    r"(?P<unit>day|week|month|year)s?\b(?:\s+from\s+(?P<from>today|now|(?=\S)))?",
    re.I,
)
_GRANTED = lazy(
    r"\b(?:approved|granted|got\s+(?:it|my|the)|came\s+through|arrived|issued|did\s+the|"
    r"received)\b",
    re.I,
)


def _valid_from(ctx: Ctx, sent: Span, valid: re.Match[str]) -> dt.date | None:
    """The first day of a validity said by its length: the day after "from", else the day
    the document came (when the message says it came), else none."""
    if valid["from"] == "":  # "valid 30 days from 1 April"
        at = sent.start + valid.start("from")
        days = [d for d in ctx.dates(sent) if d.start >= at]
        return days[0].date if days and days[0].valid else None
    if valid["from"] or _GRANTED.search(ctx.text):
        return ctx.today
    return None


_CAPITALISED = lazy(r"\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\b")
_HAVE_IT = lazy(r"\b(?:have|got)\s+(?:it|one)\b|\balready\s+(?:have|got)\b", re.I)
_FRAGMENT = lazy(r"^(?!(?:i|we|my|our|he|she|they|it|you|his|her|their)\b)[^?]*$", re.I)
_RANGE_JOIN = lazy(r"\s*(?:to|till|until|through|thru|[-–])\s*(?:the\s+)?", re.I)


def _validity(ctx: Ctx, sent: Span) -> tuple[Any, Any] | None:
    """First and last day of validity said as a range ("valid from 1 April until 30 April")."""
    days = ctx.dates(sent)
    for first, last in itertools.pairwise(days):
        between = ctx.text[first.end : last.start]
        if first.date and last.date and first.date <= last.date and _RANGE_JOIN.fullmatch(between):
            return first.date, last.date
    return None


_INSURANCE = lazy(
    r"\b(?P<kind>(?i:travel|health|car|home|life|contents|motor|medical))\s+(?i:insurance|cover|policy)\b"
    # ("bought travel insurance in PZU": "in" as non-native writers say "from")
    r"[^.;]{0,45}?\b(?i:with|from|through|by|at|in)\s+(?i:my\s+)?(?P<provider>[A-Z][\w&]+(?:\s[A-Z][\w&]+)?)"
    # "travel insurance is through work, it's AXA": the insurer named by "it's"
    r"|\b(?P<kind4>(?i:travel|health|car|home|life|contents|motor|medical|pet))\s+(?i:insurance|cover|policy)\b"
    r"[^.;]{0,40}?\b(?i:it's|it\s+is|insurer\s+is|provider\s+is)\s+(?P<provider4>[A-Z][\w&]+)"
    # "my travel insurance is PZU, only till 20 July", "Travel insurance is AXA Mansard, ..."
    r"|\b(?P<kind6>(?i:travel|health|car|home|life|contents|motor|medical|pet))\s+"
    r"(?i:insurance|cover|policy)\s+(?i:is|=)\s+(?P<provider6>[A-Z][\w&]+(?:\s[A-Z][\w&]+)?)"
    r"(?=\s*(?:[,;.!]|$|\s(?i:till|until|from|valid|to)\b))"
    # "the car insurance — Admiral — is now £42": the insurer set off by a dash or a colon
    r"|\b(?P<kind5>(?i:travel|health|car|home|life|contents|motor|medical|pet))\s+(?i:insurance|cover|policy)"
    r"[^.;—–:(]{0,30}?(?:[—–:(]|\s-\s)\s*(?P<provider5>[A-Z][\w&]+)"
    r"|\b(?i:insurance|(?P<de>\w{0,30})versicherung)\s+(?:is\s+)?(?i:with|from|through)\s+"
    r"(?P<provider2>[A-Z][\w&]+)"
    # "My AXA travel insurance runs until 15 August": the insurer said first
    r"|\b(?i:my|our)\s+(?P<provider3>[A-Z][\w&]+)\s+(?P<kind3>(?i:travel|health|car|home|life|"
    r"contents|motor|medical|pet))\s+(?i:insurance|cover|policy)\b",
)
_DE_KIND = (("reise", "travel"), ("ausland", "travel"), ("kranken", "health"), ("kfz", "car"))
_LOWER_NAME = lazy(
    r"(\b(?:with|from|through)\s+)(?!(?:the|a|an|my|our|your|his|her|their|work|them|it|us|me|"
    r"him|now|next|last|this|today|tomorrow|january|february|march|april|may|june|july|august|"
    r"september|october|november|december)\b)([a-z])"
)
_INS_KIND = {"motor": "car", "contents": "home", "medical": "health"}
_POLICY_NUMBER = lazy(
    r"\bpolicy(?:\s+(?:number|no\.?|#))?\s*(?:is\s+|:\s*)?((?-i:[A-Z0-9][A-Z0-9/-]{4,24}))\b", re.I
)


_PROVIDERS = ("provider", "provider2", "provider3", "provider4", "provider5", "provider6")
_KINDS = ("kind", "kind3", "kind4", "kind5", "kind6")
_INSURED = lazy(r"insur|versicherung|\bcover\b|\bpolicy\b", re.I)


def rule_insurance(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Insurance the user holds, with the insurer and the last day of cover."""
    if not _INSURED.search(sent.text):
        return  # no insurance word: nearly every line
    m = _INSURANCE.search(sent.text)
    # (the whole message is scanned only for a sentence about insurance: once a sentence
    # would make a long lower-case message quadratic)
    if m is None and _INSURED.search(sent.text) and not any(ch.isupper() for ch in ctx.text):
        # "car insurance is with admiral": a writer who never capitalises names the insurer
        # in lower case; read the word after "with/from/through" as the name it is
        m = _INSURANCE.search(_LOWER_NAME.sub(lambda w: w[1] + w[2].upper(), sent.text))
    if not in_clause(m, parts, sent):
        return
    if re.search(r"\b(?:his|her|their|partner's|wife's|husband's)\b", sent.text[: m.end()], re.I):
        return
    said = m.groupdict()
    provider = next(said[k] for k in _PROVIDERS if said[k])
    if lookup_place(provider) is not None:
        return  # "travel insurance in Spain": where, not who
    if not provider[:1].isupper() or provider.split()[0] in NOT_NAMES:
        return
    kind = next((said[k] for k in _KINDS if said[k]), "").lower()
    if said["provider6"] and not ctx.dates(sent):
        return  # "my travel insurance is Expensive": an insurer by "is" only with its days
    if m["de"] is not None:  # "Auslandskrankenversicherung": abroad + health, a travel cover
        kind = next((k for w, k in _DE_KIND if w in m["de"].lower()), "")
    value: dict[str, Any] = {"kind": _INS_KIND.get(kind, kind) or "other", "provider": provider}
    if (number := _POLICY_NUMBER.search(sent.text)) is not None:
        value["policy_number"] = number[1]
    if (span := _validity(ctx, sent)) is not None:
        value["valid_from"], value["valid_until"] = span  # "runs 1 July 2028 to 30 June 2029"
    elif (until := _valid_until(ctx, sent)) is not None:
        value["valid_until"] = until
    elif (begins := _FROM_DAY.search(sent.text)) is not None:
        days = [
            d
            for d in dates_in(sent, "future", ctx.today)
            if d.start >= sent.start + begins.end() - 1
        ]
        if days and days[0].date is not None:
            value["valid_from"] = days[0].date  # "£612 for the year with Direct Line from 19 Nov"
            if (last := _cover_ends(days[0].date, sent.text)) is not None:
                value["valid_until"] = last  # "from 1 September ... for another twelve months"
    ctx.add("identity.insurance_policies", value, sent, 0.8)


_FOR_LENGTH = lazy(
    r"\bfor\s+(?:another\s+|a\s+further\s+|the\s+next\s+)?(?:(?P<n>\d{1,2}|one|two|three|six|"
    r"twelve|a)\s+)?(?P<unit>months?|years?)\b",
    re.I,
)


def _cover_ends(first: dt.date, text: str) -> dt.date | None:
    """The last day of cover said as a length from its first day (the day before it ends)."""
    m = _FOR_LENGTH.search(text)
    n = count_word(m["n"] or "1") if m is not None else None
    end = shift(first, n, m["unit"].rstrip("sS")) if m is not None and n else None
    return end - dt.timedelta(days=1) if end is not None else None


_FROM_DAY = lazy(r"\b(?:from|starting|starts)\s", re.I)


_ISSUER = lazy(
    r"\b(?P<nat>" + NATIONS + r")\s+(?:consulate|embassy|high\s+commission)\b", re.IGNORECASE
)
# Fragments that complete the document just talked about, each a field said by its name:
# "number 550192834", "expires 2037-01-28", "issued by Ireland", "valid till 3 May 2030".
_FRAGMENT_NUMBER = lazy(
    r"^(?:and\s+|oh\s+|also\s+)?(?:number|no\.?|#)\s*(?::|is\s+)?\s*([A-Z0-9]{6,12})\s*(?:[.!,;]|$)",
    re.I,
)
_FRAGMENT_EXPIRY = lazy(
    r"^(?:and\s+|so\s+|it\s+)?(?:expires?|expiry(?:\s+date)?|valid\s+(?:until|till|to|through)|"
    r"good\s+(?:until|till)|runs?\s+(?:until|till|to))\b|"
    # "The validity is ten years, it is written until 1 February 2038."
    r"^(?:the\s+)?validity\b[^.!?]{0,40}\b(?:until|till|to)\b",
    re.I,
)
_FRAGMENT_ISSUER = lazy(
    r"^(?:and\s+|it\s+was\s+|it's\s+)?issued\s+(?:by|in)\s+(?:the\s+)?(?P<c>[A-Z][A-Za-z]+"
    r"(?:\s[A-Z][a-z]+)?|UK|US|USA)\b"
)
# "nvm found it: 14 Nov 2031": a full date said alone right after the document came up
_FILLER = lazy(
    r"^(?:\s|[,:;.!-]|nvm|never\s*mind|ok(?:ay)?|oh|ah|right|found\s+it|here\s+it\s+is|"
    r"it's|its|it\s+is|that's|expiry)*$",
    re.I,
)


def rule_document_fragments(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Verbless fragments naming fields of the passport or licence last talked about."""
    doc = ctx.thread.last("passport", "driver_licence")
    asked = (
        is_question(sent.text, sent.text) or ctx.text[sent.end : sent.end + 2].strip()[:1] == "?"
    )
    if doc is None or HYPOTHETICAL.search(sent.text) or asked or sent.text.endswith("?"):
        return
    _fragment(ctx, sent, doc)
    # "For the record: number 561234987, expiry 19 August 2037, issued in the United
    # Kingdom.": a list of fields, one a clause
    for clause in parts[1:] if len(parts) > 1 and _FIELD_LIST.search(sent.text) else ():
        _fragment(ctx, clause, doc)


# two or more fields named in one line
_FIELD_LIST = lazy(
    r"(?:^|[,:;]\s*)(?:number|no\.?|expiry|expires|issued|valid)\b[^,;]*[,;]\s*"
    r"(?:and\s+)?(?:number|no\.?|expiry|expires|issued|valid)\b",
    re.I,
)


def _fragment(ctx: Ctx, sent: Span, doc: Mention) -> None:
    """One fragment (a sentence or a clause of a list) naming a field of the document."""
    last = ctx.thread.mentions[-1] if ctx.thread.mentions else None
    if (num := _FRAGMENT_NUMBER.match(sent.text)) and any(ch.isdigit() for ch in num[1]):
        ctx.add(f"identity.{doc.kind}.number", num[1].upper(), sent, 0.75)
        return  # what follows it ("it is Brazilian passport") the other rules read
    if doc.kind == "passport" and (m := _FRAGMENT_ISSUER.match(sent.text)):
        if (code := country_code(m["c"])) is not None:
            passport_issued_by(ctx, sent, code, 0.75)
        return
    named = _FRAGMENT_EXPIRY.match(sent.text)
    if not (named or last is doc) or UNCERTAIN.search(sent.text):
        return  # neither "expires ..." nor a line right after the document came up
    dates = [d for d in ctx.dates(sent) if d.valid]
    if not dates:
        return
    rest = sent.text[: dates[0].start - sent.start] + sent.text[dates[0].end - sent.start :]
    said_alone = last is doc and dates[0].explicit_year and _FILLER.match(rest)
    if named or said_alone:
        emit(ctx, sent, f"identity.{doc.kind}.expiry_date", dates[0].date, 0.75)
