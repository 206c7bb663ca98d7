"""Purchase patterns, the one home of finance.warranties: warranties and return windows ("The
laptop has a two-year warranty", "returns accepted within 30 days")."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    guarded,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.timemodel import add_months, count_word
from uac.fact_log.extraction.values.money import words_to_number

# "2 year warranty", "2 yr parts & labour warranty", "3 years of garantía" (the writer's word)
_GUARANTEE = r"(?:warranty|guarantee|garant[ií]a|garantie|garanzia)"
# a year or a month in the writer's language ("2 ans de garantie", "3 años de garantía")
_UNIT = r"year|yr|month|ans?|años?|anni|jahre?|mois|meses|mesi|monate?"
_WARRANTY = lazy(
    r"\b(?P<n>\w+)[- ](?P<unit>"
    + _UNIT
    + r")s?(?:[- ](?:of|de|di))?(?:[- ][\w&]+){0,3}?[- ]"
    + _GUARANTEE
    + r"\b|"
    # "warranty is 3 years", "guarantee of two years", "the warranty lasts 24 months"
    r"\b(?:warranty|guarantee)\s+(?:is|of|lasts|for)\s+(?P<n2>\w+)[- ](?P<unit2>"
    + _UNIT
    + r")s?\b|"
    r"\b(?:warranty|guarantee)\s+(?:until|till|through|to|runs\s+until|expires\s+on)\b|"
    r"\b(?:warranty|guarantee)\s+(?:on|for)\s+(?:my|the|our)\s+[\w -]{2,40}?\s+"
    r"(?:ends|expires|runs\s+out)\b",
    re.I,
)
# the make and model said after the thing bought, between commas ("a new phone, Samsung
# Galaxy S27, 1.099 €"; "new lens, Sigma 24-70, for 4 299 zł")
_APPOSITIVE = lazy(r",\s+(?P<model>[A-Z][\w-]*(?:\s[\w-]+){0,3}?),")
_ITEM_SUBJECT = lazy(
    # "The warranty on my washing machine ends on 30 April": the item after "on"/"for".
    r"^(?i:the|my)\s+(?i:warranty|guarantee)\s+(?i:on|for)\s+(?i:my|the|our)\s+"
    r"(?P<item2>[A-Za-z][\w-]{1,20}(?:\s[a-z][\w-]{1,20})?)\s+(?i:ends|expires|runs\s+out|lasts)|"
    r"^(?i:the|my|our)\s+(?P<item>[A-Za-z][A-Za-z-]{1,20})\b(?:\s+(?i:i|we)\s+bought"
    r"(?:\s+(?:at|from)\s+(?P<merchant>[A-Z][\w.&'-]+))?)?|^(?i:it|this|that)\b|"
    # "Bought a Bosch washing machine, the warranty runs until ...": the item is the object.
    # (the article may be left out: "I bought new lens, ...")
    r"^(?i:(?:bonjour|hello|hi|hey|so|ok|okay|also|and)[,!]?\s+)?"  # after a greeting
    r"(?i:(?:i\s+)?(?:just\s+)?(?:bought|got|ordered))\s+(?:(?i:a|an|the|my|our)\s+)?(?i:new\s+)?"
    # "the poussette (stroller) Cybex": a word glossed in brackets, then the brand
    r"(?P<bought>[A-Za-z][\w-]{1,20}(?:\s[A-Za-z][\w-]{1,20}){0,2}?(?:\s\([^)]{1,20}\)\s[A-Z][\w-]{1,20})?)"
    r"(?=,|\s+(?i:and|with|today|yesterday|from|at|on|last|this|in|for)\b)"
    # "Got a new laptop from Currys yesterday": where it was bought, said after it
    r"(?:\s+(?i:from|at)\s+(?P<merchant3>[A-Z][\w.&'-]+(?:\s[A-Z][\w.&'-]+)?))?",
)


# "2 year guarantee and 35 days to return it", "30 days to send it back": the return window
_RETURN_DAYS = lazy(
    r"\b(?P<n>\d{1,3}|[a-z]+(?:[\s-][a-z]+)?)\s+days?\s+(?:to\s+(?:return|send)\s+(?:it|them)(?:\s+back)?|"
    r"(?:for\s+)?returns?)\b",
    re.I,
)
# "... if I change my mind", "if I don't like it": the condition of a return, no hypothetical
_IF_RETURN = lazy(r"\s+if\s+(?:i|we)\s+(?:change|don'?t|do\s+not|decide)\b.*$", re.I)


# what may open a line of terms after the item: "and", "it has", "they say", "they gave me"
_TERMS_LEAD = lazy(
    r"(?:(?:and|plus|also|with|it\s+has|comes\s+with|(?:they|the\s+shop|the\s+seller|it)\s+"
    r"(?:say|says|said|gave\s+me|give\s+me|told\s+me))\s+)?(?:an?\s+)?",
    re.I,
)
# "till jan 15 to return it", "until 2 May to send it back": a return window's last day
_RETURN_UNTIL = lazy(
    r"\b(?:till|until|til|by)\s+[^.,;]{2,20}?\s+to\s+(?:return|send\s+back|bring\s+back)\b", re.I
)


def _length(m: re.Match[str]) -> tuple[int | None, int]:
    """A warranty's length said in it: (count, months per unit); count None when none is."""
    said, unit = m["n"] or m["n2"], m["unit"] or m["unit2"]
    if said is None:
        return None, 12
    return count_word(said), 12 if unit.lower()[0] in "yaj" else 1  # year, an, año, Jahr


def _days(ret: re.Match[str]) -> int | None:
    """The days of a return window, in digits or words ("And fifteen days", "twenty one")."""
    return count_word(ret["n"]) or words_to_number(ret["n"]) or None


def _terms_after(ctx: Ctx, sent: Span, parts: list[Span], m: re.Match[str] | None) -> bool:
    """A warranty or return window said alone after the item bought (the thread's item,
    followups.topics); True when one was."""
    item = ctx.thread.last("item")
    low = sent.text.lower()
    if item is None or not (m or " day" in low or "return" in low):
        return False  # most sentences: no item talked about, no warranty, no "days"
    ret = _RETURN_DAYS.search(sent.text)
    lead = (m or ret).start() if (m or ret) else -1
    until = _RETURN_UNTIL.search(sent.text)
    if until is not None:
        lead = until.start()
    said = _TERMS_LEAD.fullmatch(sent.text[:lead]) if lead >= 0 else None
    if said is None:
        return False
    head = _IF_RETURN.sub("", sent.text[said.end() :])  # "they say ...": the shop, not a person
    if guarded(head) or someone_else(head):
        return False
    value: dict[str, Any] = item.record()
    bought = value.get("purchased_on") or item.day
    if m is not None and (n := _length(m)[0]) is not None:
        value["ends_on"] = add_months(bought, n * _length(m)[1])
    if ret is not None and (n := _days(ret)) is not None:
        value["return_by"] = bought + dt.timedelta(days=n)
    if until is not None:  # "they gave me till jan 15 to return it": the day itself
        days = [d for d in ctx.dates(sent) if d.valid]
        if days:
            value["return_by"] = days[0].date
    if "ends_on" not in value and "return_by" not in value:
        return False
    ctx.add("finance.warranties", value, sent, 0.7)
    return True


def rule_warranties(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "The laptop has a two-year warranty", "It comes with a 5 year warranty"."""
    m = _WARRANTY.search(sent.text)
    subject = _ITEM_SUBJECT.search(sent.text)
    if (m is None or subject is None) and _terms_after(ctx, sent, parts, m):
        return
    if m is None or subject is None or not in_clause(m, parts, sent):
        return
    item = ctx.thread.last("item")
    named = subject["item"] or subject["bought"] or subject["item2"]
    if subject["bought"] and (model := _APPOSITIVE.match(sent.text, subject.end("bought"))):
        named = f"{model['model']} {named}"  # "new lens, Sigma 24-70, for ...": which lens
    value: dict[str, Any] = item.record() if item is not None else {}
    if named and (not value or named.lower() not in str(value.get("item", "")).lower()):
        value = {"item": named}
    if not value:
        return
    paid_here = [
        c.value.get("merchant")
        for c in ctx.out
        if c.path == "finance.transactions" and c.start == sent.start and c.value.get("merchant")
    ]  # "bought new lens for 4 299 zł in Cyfrowe.pl, 2 years guarantee": where it was paid
    if merchant := subject["merchant"] or subject["merchant3"] or (paid_here and paid_here[0]):
        value["merchant"] = merchant
    dates = [d for d in ctx.dates(sent, "past") if d.date]
    if subject["bought"]:  # "Bought a ... (on 2 March / yesterday)": that day, else today
        said = [d for d in dates if d.start < sent.start + m.start()]
        value["purchased_on"] = said[0].date if said else ctx.today
    bought = value.get("purchased_on")
    count, months = _length(m)
    if (dates and subject["merchant"] is not None) or (dates and count is None and len(dates) > 1):
        bought = dates[0].date
        value["purchased_on"] = bought
    if m["n"] or m["n2"]:
        if count is None:
            return
        if bought is None and len(dates) == 1:
            bought = value["purchased_on"] = dates[0].date  # "is from 20 March, one year warranty"
        start = bought or ctx.today
        value["ends_on"] = add_months(start, count * months)
        if (ret := _RETURN_DAYS.search(sent.text, m.end())) and (n := _days(ret)) is not None:
            value["return_by"] = start + dt.timedelta(days=n)  # "2 years warranty, 14 days return"
    else:
        until = ctx.dates(sent, after=m.start() + 1)
        if not until or until[0].date is None:
            return
        value["ends_on"] = until[0].date
    ctx.add("finance.warranties", value, sent, 0.75)
