"""Promotions that end: an intro rate, a deal or a discount with its last day ("my 0% intro
rate on the Barclaycard ends 31 January", "Electric Ireland letter, the discounted rate ends
30 April"), the provider, the rate and what applies after. The one home of
finance.promotions."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    NOT_NAMES,
    Ctx,
    Span,
    clause_ok,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.patterns.vehicles import dotted_day
from uac.fact_log.extraction.timemodel import add_months, count_word
from uac.fact_log.extraction.values.money import find_money

_PRICE = r"[£$€]\s?\d[\d,]*(?:\.\d\d)?(?:\s+(?:a|per|each)\s+(?:month|year))?"
# "..., then it goes up to £45", "after that it's £30", "then it rises to £110 a month"
_THEN = lazy(
    r"\b(?:then|after\s+that|afterwards|from\s+then\s+on)\s*,?\s*(?:it\s*(?:'s|'ll\s+be|\s+is|"
    r"\s+will\s+be|\s+goes\s+up\s+to|\s+rises\s+to|\s+jumps\s+to|\s+reverts\s+to|\s+becomes)\s+)?"
    r"(?:up\s+to\s+)?(?P<then>" + _PRICE + r")",
    re.IGNORECASE,
)
_PROMO = lazy(
    r"\bmy\s+(?P<name>(?:\d{1,2}(?:\.\d)?%\s+)?(?:intro(?:ductory)?|promotional|promo|teaser|"
    r"balance\s+transfer|introductory)\s+(?:rate|offer|deal|price|tariff|period))\s+"
    r"(?:(?:on|with|from|at)\s+(?:the\s+|my\s+)?(?P<prov>[A-Z][A-Za-z]{1,20}(?:\s+[A-Z][A-Za-z]{1,20})?)\s+)?"
    r"(?:ends|expires|runs\s+out|finishes|is\s+over|stops)\b|"
    r"\bmy\s+(?P<prov2>(?-i:[A-Z][A-Za-z]{1,20}))\s+(?P<name2>(?:\d{1,2}%\s+)?(?:intro(?:ductory)?|"
    r"promotional|promo)?\s*(?:rate|offer|deal|price|tariff))\s+(?:ends|expires|runs\s+out)\b|"
    # "My broadband deal ends on 1 May", "My 12-month discount with Virgin Media ends ...",
    # "Sky's introductory offer runs out on 15 May"
    r"(?:\bmy|^(?P<prov3>(?-i:[A-Z][A-Za-z]{1,20}(?:\s[A-Z][A-Za-z]{1,20})?))(?:'s|’s))\s+"
    r"(?P<name3>(?:[\w%-]+\s+){0,2}(?:deal|discount|offer|tariff|intro\s+price|introductory\s+"
    r"price|promotional\s+price))(?:\s+(?:with|from|on)\s+(?P<prov4>(?-i:[A-Z][A-Za-z]{1,20}"
    r"(?:\s[A-Z][A-Za-z]{1,20})?)))?"
    # "... with BT at £25 a month ends": the promotional price said before the end
    r"(?:\s+(?:at|for)\s+(?P<rate>" + _PRICE + r"))?\s+(?:ends|expires|runs\s+out|finishes)\b",
    re.IGNORECASE,
)


# Said without "my": "Barclaycard 0% on purchases until 31 January", "broadband deal with
# Virgin ends 2 December"; the provider before the offer or after "with/from/on".
_PROVIDER = r"(?-i:[A-Z][A-Za-z]{1,20}(?:\s[A-Z][A-Za-z]{1,20})?)"
_OFFER = lazy(
    r"(?:(?P<prov>"
    + _PROVIDER
    + r")(?:'s|’s)?(?:\s+card)?:?\s+)?(?P<name>\d{1,2}(?:\.\d{1,2})?%(?:\s+(?:balance\s+"
    r"transfers?|purchases?|interest(?:-free)?|intro(?:ductory)?\s+rate|deal|offer))?(?:\s+(?:on|for)\s+"
    r"(?:(?:card\s+)?purchases|balance\s+transfers?|spending|everything|money\s+transfers?))?|"
    r"(?:[a-z]{3,15}\s+)?(?:deal|discount|offer|tariff|intro\s+rate|introductory\s+rate|"
    # "the discounted rate ends 30 April", "the fixed tariff ends"
    r"(?:discounted|reduced|special|fixed|promo(?:tional)?|teaser|bonus)\s+(?:rate|price|tariff)))"
    r"(?:\s+(?:with|from|on)\s+(?:my\s+|the\s+)?(?P<prov2>" + _PROVIDER + r")(?:\s+card)?)?\s+"
    r"(?:ends|expires|finishes|runs\s+out|until|till|til|lasts\s+until|is\s+over)\b",
    re.IGNORECASE,
)
_THEN_ANY = lazy(r"\b(?:then|after\s+that|afterwards)\b", re.I)
_RATE = lazy(r"\d{1,2}(?:[.,]\d{1,2})?%")  # "19,9%": a decimal comma


_UNTIL_DOTTED = lazy(
    r"\b(?:until|till|til|to|ends?|expires?|on)\s+(\d{1,2})\.(\d{1,2})\b(?![.,]?\d)", re.I
)
_SAID_BY = lazy(
    r"^(?P<p>" + _PROVIDER + r")\s+(?:letter|e-?mail|message|text|sms|notice|app|says|said|"
    r"sent|send|wrote|told\s+me)\b"
)


def _offer(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A promotion said plainly, and what applies after it."""
    m = _OFFER.search(sent.text)
    # "Electric Ireland letter, the discounted rate ends ...": who wrote is the provider
    said_by = _SAID_BY.match(sent.text)
    provider = m and (m["prov"] or m["prov2"] or (said_by and said_by["p"]))
    if m is None or not provider or provider.split()[0] in NOT_NAMES:
        return
    if not in_clause(m, parts, sent) or someone_else(sent.text[: m.start()]):
        return
    later = [d for d in ctx.dates(sent) if d.valid and d.start >= sent.start + m.end() - 8]
    # "until 31.08": a day written day-first with dots, after the word that ends the offer
    until = None if later else _UNTIL_DOTTED.search(sent.text, max(0, m.end() - 8))
    dotted = until and dotted_day(f"{until[1]}.{until[2]}.", ctx.today, "future")
    if not later and dotted is None:
        return
    value: dict[str, Any] = {
        "name": re.sub(r"^(?:the|my|our|a|an)\s+", "", " ".join(m["name"].split()), flags=re.I),
        "provider": provider,
        "ends_on": later[0].date if later else dotted,
    }
    if then := _after_then(sent.text, m.end()):
        value["then"] = then
    ctx.add("finance.promotions", value, sent, 0.75)


def _after_then(text: str, start: int) -> str | None:
    """What applies after an offer: the last price or rate said after "then"."""
    then = _THEN_ANY.search(text, start)
    if then is None:
        return None
    said = [x.group() for x in _RATE.finditer(text, then.end())]
    money = [text[x.start : x.end] for x in find_money(text) if x.start >= then.end()]
    found = money or said
    return " ".join(found[-1].split()) if found else None


def _then_after(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "then 22.9% apparently", after a promotion: what applies after it ends."""
    earlier = ctx.thread.last("finance.promotions")
    if earlier is None or not _THEN_ANY.match(sent.text) or not clause_ok(parts, sent, sent.start):
        return
    if then := _after_then(sent.text, 0):
        value = {"name": earlier.get("name"), "then": then}
        if earlier.get("provider"):
            value["provider"] = earlier.get("provider")
        ctx.add("finance.promotions", value, sent, 0.7)


# An offer said by how long it lasts: "at 29.90 instead of 59.90 for the first 12 months",
# "0% on transfers for 24 months, after which the rate reverts to 24.9% APR"
_FOR_FIRST = lazy(
    r"\bfor\s+(?:the\s+first\s+|the\s+next\s+)?(?P<n>\d{1,2}|[a-z]+)\s+(?P<unit>months?|years?)\b",
    re.I,
)
_PROMO_RATE = lazy(
    r"(?P<rate>\b\d{1,2}(?:\.\d{1,2})?\s?%|(?<![\w.,])[£$€]?\d{1,4}[.,]\d{2})(?:\s+(?:on|for)\s+"
    r"(?:balance\s+)?(?:transfers?|purchases|spending)|\s+(?:instead|a\s+month|/\s?mo))?",
    re.I,
)
_AFTER_OFFER = lazy(
    r"\binstead\s+of\s+(?P<then>[£$€]?\d{1,4}(?:[.,]\d{2})?(?:\s?%)?)|"
    r"\b(?:after\s+which|after\s+that|afterwards|then)\b[^.;]{0,40}?\b(?:reverts?\s+to|goes\s+"
    r"(?:up\s+)?to|rises\s+to|becomes|is)\s+(?P<then2>[£$€]?\d{1,4}(?:[.,]\d{1,2})?(?:\s?%)?"
    r"(?:\s+APR)?)",
    re.I,
)
_PROVIDER_SAID = lazy(
    r"^(?P<p>(?-i:[A-Z][A-Za-z]{1,20}(?:\s[A-Z][A-Za-z]{1,20})?))\s+(?:gave|gives|offered|put|"
    r"has\s+given|sold)\b|\b(?:with|from)\s+(?P<p2>(?-i:[A-Z][A-Za-z]{1,20}))\b",
    re.I,
)


_INSTEAD = lazy(r"(?:\s+instead)?$")


def _offer_for_months(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A promotional rate or price said with how long it lasts and what applies after."""
    span = _FOR_FIRST.search(sent.text)
    after = _AFTER_OFFER.search(sent.text)
    who = _PROVIDER_SAID.search(sent.text)
    if span is None or after is None or who is None or not clause_ok(parts, sent, sent.start):
        return False
    provider = who["p"] or who["p2"]
    rate = _PROMO_RATE.search(sent.text)
    months = count_word(span["n"]) if not span["n"].isdigit() else int(span["n"])
    if not months or provider.split()[0] in NOT_NAMES or someone_else(sent.text[: who.start()]):
        return False
    months *= 12 if span["unit"].lower().startswith("year") else 1
    starts = [d for d in ctx.dates(sent, "past") if d.valid]
    start = starts[0].date if starts else ctx.today
    value: dict[str, Any] = {
        "name": _INSTEAD.sub(" offer", " ".join(rate[0].split()), count=1)
        if rate
        else "intro offer",
        "provider": provider,
        "ends_on": add_months(start, months) - dt.timedelta(days=1),
        "then": " ".join((after["then"] or after["then2"]).split()),
    }
    if rate:
        value["rate"] = " ".join(rate["rate"].split())
    ctx.add("finance.promotions", value, sent, 0.75)
    return True


def rule_promotions(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A promotional rate or price that ends on a day ("my 0% intro rate ... ends on 1 March")."""
    m = _PROMO.search(sent.text)
    if m is None:
        if not _offer_for_months(ctx, sent, parts):
            _offer(ctx, sent, parts)
        _then_after(ctx, sent, parts)
        return
    if not in_clause(m, parts, sent):
        return
    dates = [d for d in ctx.dates(sent) if d.valid]
    later = [d for d in dates if d.start >= sent.start + m.end() - 8]
    if not later:
        return
    name = " ".join((m["name"] or m["name2"] or m["name3"]).split())
    value: dict[str, Any] = {"name": name, "ends_on": later[0].date}
    provider = m["prov"] or m["prov2"] or m["prov3"] or m["prov4"]
    if provider:
        value["provider"] = provider
    if m["rate"]:
        value["rate"] = " ".join(m["rate"].split())
    if (then := _THEN.search(sent.text, m.end())) is not None:
        value["then"] = " ".join(then["then"].split())
    ctx.add("finance.promotions", value, sent, 0.8)
