"""Vaccinations received, from the vaccine words of the reference data the checks use: "I had
my yellow fever jab in 2019", "rabies dose 1", "my last tetanus was 2018"; a plan is none."""

from __future__ import annotations

import functools
import re

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    clause_of,
    clause_ok,
    dates_in,
    in_clause,
    someone_else,
)
from uac.fact_log.reference import vaccine_words


@functools.cache
def _vaccines() -> tuple[re.Pattern[str], dict[str, str]]:
    """A regex over every vaccine word (longest first) and word -> vaccine name."""
    table = {w.lower(): name for name, words in vaccine_words().items() for w in words}
    alternation = "|".join(re.escape(w) for w in sorted(table, key=len, reverse=True))
    return lazy(r"(?<![\w-])(?:" + alternation + r")(?![\w-])", re.I), table


# Received, not planned: "I had my yellow fever jab", "I'm vaccinated against typhoid",
# "Got my hep A shot today"; "I need the jab" / "booked for the jab" are plans (no match).
_VACCINATED = lazy(
    r"\b(?:i(?:'ve|\s+have)?\s+(?:already\s+|just\s+|finally\s+|also\s+)?(?:had|got|received|"
    r"gotten)|i(?:'m|\s+am|\s+was|'ve\s+been|\s+have\s+been)\s+(?:fully\s+|already\s+|now\s+|"
    r"also\s+)?(?:vaccinated|immuni[sz]ed|jabbed)|^(?:just\s+)?(?:got|had)\s+(?:my|the|a|both)|"
    # "we did get the flu shots", "I did get my booster", "the pharmacist gave me the shingles
    # vaccine": received, said otherwise
    r"\b(?:we|i)\s+(?:did\s+|both\s+|all\s+)?(?:get|got|had)\s+(?:our|my|the|a|both)|"
    r"\b(?:gave|given)\s+me\s+(?:the|my|a|an|both)\s+(?:[\w-]+\s+){0,3}(?:jabs?|shots?|vaccines?|"
    r"boosters?|injections?|doses?)\b|\bmy\s+(?=(?:[\w-]+\s+){1,3}certificate\b))\b",
    re.I,
)
_JAB = lazy(
    r"\b(?:jabs?|shots?|vaccines?|vaccinations?|vaccinated|immuni[sz](?:ed|ations?)|boosters?|"
    r"certificates?|doses?|injections?)\b",
    re.I,
)
_PLANNED = lazy(
    r"\b(?:booked|book|appointment|scheduled|going\s+to|will|'ll|need|next|tomorrow)\b", re.I
)


# "rabies dose 1", "first typhoid dose done", "my last tetanus was 2018": received, said by
# the dose or by when it was; the clause must not be a plan ("dose 2 is next week").
_DOSE_N = lazy(
    r"^\s*(?:jab\s+|shot\s+|vaccine\s+)?(?:dose|jab|shot)\s+(?:\d|one|two|three)\b|"
    r"^\s*(?:dose|jab|shot|booster)\s+(?:done|today|this\s+morning|yesterday)\b",
    re.I,
)
_NTH_DOSE = lazy(r"\b(?:first|second|third|1st|2nd|3rd|last)\s*$", re.I)
_WAS_WHEN = lazy(
    r"^\s*(?:jab\s+|shot\s+|booster\s+|vaccine\s+)?was\s+(?:in\s+)?(?=\d|[A-Z]|last|back)"
)


def _vaccination_said(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A vaccination told by its dose number or the year it was given."""
    pattern, table = _vaccines()
    for v in pattern.finditer(sent.text):
        clause = clause_of(parts, sent.start + v.start())
        if clause is None or _PLANNED.search(clause.text) or someone_else(sent.text[: v.start()]):
            continue
        after, before = sent.text[v.end() :], sent.text[: v.start()]
        given = _DOSE_N.match(after) or (
            _NTH_DOSE.search(before) and re.match(r"\s+(?:dose|jab|shot)\b", after)
        )
        past = re.search(r"\bmy\s+(?:last\s+)?$", before) and _WAS_WHEN.match(after)
        if not (given or past) or not in_clause(v, parts, sent):
            continue
        days = [d for d in ctx.dates(clause, "past") if d.valid]
        day = days[0].date if days else (None if past else ctx.today)
        if day is not None and day > ctx.today:
            continue
        ctx.add("health.vaccinations", {"name": table[v[0].lower()], "date": day}, sent, 0.75)


# "travel clinic today: hep A, typhoid and rabies", "jabs this morning - yellow fever": a
# heading with a place or jab word and a past day, then the vaccines given as a list.
_GIVEN_LIST = lazy(
    r"^(?:[\w' -]{0,30}?\b(?:clinic|jabs?|vaccinations?|vaccines?|shots?|surgery|pharmacy|"
    r"nurse|gp)\b[\w' ]{0,20}?\b(?:today|yesterday|this\s+(?:morning|afternoon))|"
    r"(?:today|yesterday)['’]?s?\s+(?:jabs?|vaccinations?|shots?))\s*(?::|-|–|—)\s*",
    re.I,
)


# "Vaccines I have: yellow fever from 2019, hepatitis A and typhoid last year", "my jabs so
# far - tetanus, hep B": the user's vaccinations listed under a heading that says they had them
_HAD_LIST = lazy(
    r"^(?:(?:my|the)\s+)?(?:vaccines?|vaccinations?|jabs?|shots?|immuni[sz]ations?)\s*"
    r"(?:(?:i(?:'ve|\s+have)(?:\s+(?:had|got))?|i\s+(?:had|got)|(?:i'm|i\s+am)\s+up\s+to\s+date\s+on|"
    r"done|so\s+far|up\s+to\s+date)\s*)?(?::|-|–|—)\s*",
    re.I,
)


def _had_list(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """Vaccinations listed under a heading of the user's own; True when found. Each keeps the
    day its own item says, none when the item names only a year ("from 2019")."""
    m = _HAD_LIST.match(sent.text)
    if m is None or _PLANNED.search(m[0]) or not clause_ok(parts, sent, sent.start):
        return False
    pattern, table = _vaccines()
    hits = list(pattern.finditer(sent.text, m.end()))
    for i, v in enumerate(hits):
        end = hits[i + 1].start() if i + 1 < len(hits) else len(sent.text)
        item = Span(sent.start + v.start(), sent.text[v.start() : end])
        days = [d for d in dates_in(item, "past", ctx.today) if d.valid and d.date <= ctx.today]
        value = {"name": table[v[0].lower()], "date": days[0].date if days else None}
        ctx.add("health.vaccinations", value, sent, 0.75)
    return bool(hits)


def _given_list(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """Vaccines listed after a heading that says where and which day; True when found."""
    m = _GIVEN_LIST.match(sent.text)
    if m is None or _PLANNED.search(m[0]) or someone_else(m[0]):
        return False
    if not clause_ok(parts, sent, sent.start):
        return False
    pattern, table = _vaccines()
    names = dict.fromkeys(table[v[0].lower()] for v in pattern.finditer(sent.text, m.end()))
    days = [d for d in dates_in(Span(sent.start, m[0]), "past", ctx.today) if d.valid]
    day = days[0].date if days else ctx.today
    for name in names:
        ctx.add("health.vaccinations", {"name": name, "date": day}, sent, 0.75)
    return bool(names)


# "this morning", "earlier today": a part of the message's day (no date parser reads them)
_EARLIER_TODAY = lazy(r"\b(?:this\s+(?:morning|afternoon|evening)|earlier\s+today|tonight)\b", re.I)


def rule_vaccinations(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Vaccinations received ("I had my yellow fever jab in 2019", "I'm vaccinated against
    typhoid"); a future date makes it a plan, not a vaccination."""
    if _given_list(ctx, sent, parts) or _had_list(ctx, sent, parts):
        return
    m = _VACCINATED.search(sent.text)
    if m is None or not _JAB.search(sent.text) or _PLANNED.search(sent.text):
        _vaccination_said(ctx, sent, parts)
        return
    if not in_clause(m, parts, sent):
        return
    pattern, table = _vaccines()
    names = dict.fromkeys(table[v[0].lower()] for v in pattern.finditer(sent.text, m.start()))
    if not names:
        return
    dates = [d for d in ctx.dates(sent, "past") if d.valid]
    if dates and dates[0].date > ctx.today:
        return
    day = dates[0].date if dates else (ctx.today if _EARLIER_TODAY.search(sent.text) else None)
    for name in names:
        value = {"name": name, "date": day}
        ctx.add("health.vaccinations", value, sent, 0.8 if dates else 0.75)
