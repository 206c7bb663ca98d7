"""Finance patterns: subscriptions (started, cancelled, renewed, priced), the one home of
finance.subscriptions."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.budgets import (
    period_of,
)
from uac.fact_log.extraction.patterns.discourse import Mention, freeze
from uac.fact_log.extraction.patterns.text import (
    NOT_NAMES,
    Ctx,
    Span,
    clause_of,
    clause_ok,
    in_clause,
    someone_else,
    stop_ok,
    word_set,
)
from uac.fact_log.extraction.timemodel import next_day_of_month
from uac.fact_log.extraction.values.money import amount_at, amounts, find_money, put_amount
from uac.fact_log.extraction.values.services import SERVICE
from uac.fact_log.reference import vocabulary

_SUB_VERB = lazy(
    r"\b(?:i\s+(?:pay|'m\s+paying|am\s+paying|spend)|i\s+(?:just\s+)?(?:subscribed|signed\s+up)|"
    r"i(?:'m|\s+am)\s+subscribed|i\s+subscribe|my\s+\S+(?:\s+\S+)?\s+(?:subscription|membership|"
    r"plan)|subscription|membership|costs?\s+me|charges?\s+me|renews?|"
    r"^(?:just\s+|finally\s+|also\s+)?(?:subscribed|signed\s+up|joined))\b",
    re.IGNORECASE,
)
_SUB_CANCEL = lazy(
    r"\b(?:cancel(?:l)?ed|unsubscribed\s+from|stopped\s+paying\s+for|got\s+rid\s+of|ended)"
    r"(?:\s+(?:my\s+|the\s+|our\s+)?|[.!]?$)",
    re.IGNORECASE,
)
# "The Netflix one I cancelled on 20 May": the service said first, then the cancelling.
_CANCELLED_AFTER = lazy(
    r"(?:\s+(?:one|subscription|membership|plan))?\s+(?:(?:i|we)\s+|(?:is|now|'s)\s+)?"
    r"(?:just\s+|already\s+|finally\s+|now\s+)?"
    r"(?:cancel(?:l)?ed|stopped\s+paying\s+for|ended|got\s+rid\s+of)\b",
    re.IGNORECASE,
)
# "and 10.99 for Netflix, also monthly": a second one said without its verb
_AND_ANOTHER = lazy(r"^(?:and|plus|also|then)\b", re.IGNORECASE)
# "renews on", "renewd 12 feb" (typed fast), "next payment", "comes out on the 18th"
_RENEWS = lazy(
    r"\brenew(?:s|ing|d|al)?\b|\bnext\s+(?:payment|bill(?:ing)?|charge|debit)(?:\s+date)?\b|\b(?:comes?|goes|is\s+taken|"
    r"gets\s+taken|taken|charged|billed|debited)\s+(?:out\s+)?on\b",
    re.I,
)
_SIGNED_UP = lazy(
    r"(?:\b(?i:i)\s+|^)(?i:(?:just\s+)?(?:signed\s+up|joined|subscribed)\s+(?:at|for|with|to)\s+(?:the\s+)?)"
    r"(?P<name>[A-Z][\w+&'-]+(?:\s[A-Z][\w+&'-]+)?)"
)
_SERVICE_NAMES: dict[str, str] = vocabulary()["service_names"]


_COMMON_WORD_SERVICES = word_set("max sky calm medium slack notion tidal guardian")


def _service_name(raw: str) -> str:
    key = " ".join(raw.lower().split())
    if key.endswith(" plus") and key not in _SERVICE_NAMES and SERVICE.fullmatch(key[:-5] + "+"):
        key = key[:-5] + "+"  # "Paramount Plus" is the one written "Paramount+"
        raw = " ".join(raw.split()[:-1]) + "+"
    if key in _SERVICE_NAMES:
        return _SERVICE_NAMES[key]
    canonical = {
        "youtube premium": "YouTube Premium",
        "hbo max": "HBO Max",
        "chatgpt plus": "ChatGPT Plus",
        "github copilot": "GitHub Copilot",
        "linkedin premium": "LinkedIn Premium",
        "nordvpn": "NordVPN",
        "expressvpn": "ExpressVPN",
        "now tv": "NOW TV",
        "dazn": "DAZN",
        "1password": "1Password",
        "ps plus": "PlayStation Plus",
        "apple tv+": "Apple TV+",
    }
    if key in canonical:
        return canonical[key]
    return " ".join(w if w[:1].isupper() else w[:1].upper() + w[1:] for w in raw.split())


# "Square is 29/month, Canva pro 10.99/month, and Xero 33/month": each name with its own price
_PRICED_ITEM = lazy(
    r"^\s*(?:and\s+|plus\s+)?(?P<name>[A-Za-z][\w+&'’-]{1,20}"
    r"(?:\s(?!(?:is|at|costs?)\b)[A-Za-z][\w+&'’-]{1,20})?)\s+"
    r"(?:is\s+|at\s+|costs?\s+|=\s*)?(?P<amt>[£$€]?\s?\d{1,4}(?:[.,]\d{2})?\s?(?:[£€$]|[A-Z]{3})?)"
    r"\s*(?:/|a\s+|per\s+)\s*(?P<per>month|mo|year|yr|week|wk)\b"
    r"(?:\s+for\s+(?:the\s+|my\s+)?[a-z]+(?:\s[a-z]+)?)?\s*$",  # "33/month for the shop"
    re.I,
)
# "Xero is 33/month for the shop, renews 1st of the month": one priced name is a
# subscription when the sentence says it renews or is one
_SUB_CUE = lazy(r"\b(?:renews?|subscriptions?|sub|membership|plan)\b", re.I)
_RENEWS_ON = lazy(
    r"\brenews\s+(?:on\s+)?(?:the\s+)?(?P<n>\d{1,2})(?:st|nd|rd|th)?"
    r"(?:\s+of\s+(?:the|every|each)\s+month)?\b",
    re.I,
)
_LIST_HEAD = lazy(
    r"^[^:]{0,40}\b(?:subscriptions?|memberships?|monthlies)\b[^:]{0,20}:\s*|"
    r"^(?:i\s+(?:pay|have|'m\s+paying|am\s+paying)|paying)\s+(?:for\s+)?",
    re.I,
)
_ITEMS = lazy(r",\s*|;\s*|\s+and\s+")
_PERIODS = {"mo": "monthly", "month": "monthly", "year": "yearly", "yr": "yearly"}


def _priced_list(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """Subscriptions listed with a price and period each; True when the sentence is such a list."""
    head = _LIST_HEAD.match(sent.text)
    body = sent.text[head.end() :] if head else sent.text
    if "," not in body and " and " not in body:
        return False
    items = [_PRICED_ITEM.match(x) for x in _ITEMS.split(body) if x.strip()]
    found = [m for m in items if m is not None and m["name"].split()[0] not in NOT_NAMES]
    if len(found) < 2 and not (found and items[0] and _SUB_CUE.search(sent.text)):
        return False
    if someone_else(sent.text[: head.end()] if head else "") or not clause_ok(
        parts, sent, sent.start
    ):
        return True  # "my sister's subscriptions: ...": read, and none is the user's
    for m in found:
        money = amount_at(m.string, m.start("amt"), m.end("amt"))
        if not money:
            continue
        value = put_amount(
            {"name": m["name"], "period": _PERIODS.get(m["per"].lower(), "weekly")}, money[0]
        )
        renews = _RENEWS_ON.search(sent.text) if len(found) == 1 else None
        if renews and (day := next_day_of_month(ctx.today, int(renews["n"]))):
            value["renews_on"] = day
        ctx.add("finance.subscriptions", value, sent, 0.75)
    return True


# "Xero renews 1st of the month": a subscription of the thread named with its renewal
_NAMED_RENEWS = lazy(
    r"^(?:and\s+|also\s+)?(?P<name>[A-Za-z][\w+&'’-]{1,20})\s+(?:auto-?)?" + _RENEWS_ON.pattern[2:],
    re.I,
)


def _named_renews(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """The next renewal of a subscription the thread knows, said by the day of the month."""
    m = _NAMED_RENEWS.match(sent.text)
    if m is None or not in_clause(m, parts, sent):
        return False
    said = m["name"].lower()
    known = [
        x.get("name")
        for x in ctx.thread.mentions
        if x.kind in ("subscription", "finance.subscriptions")
        and str(x.get("name") or "").lower().split()[:1] == [said]
    ]
    day = next_day_of_month(ctx.today, int(m["n"]))
    if not known or day is None:
        return False
    ctx.add("finance.subscriptions", {"name": known[-1], "renews_on": day}, sent, 0.75)
    return True


# "will be cancelled", "gets cancelled on the 31st": a cancellation still to come
_CANCEL_TO_COME = lazy(
    r"\b(?:will\s+be|'ll\s+be|gets?|getting|to\s+be|going\s+to\s+be|is\s+being|be)\s+"
    r"cancel(?:l)?ed\b",
    re.I,
)


def cancel_day(ctx: Ctx, sent: Span) -> dt.date | None:
    """The day a done cancellation was made: the day said when it has passed, else the
    message's; None for one still to come. A later day is when the service ends ("Spotify
    ends on the 20th, I cancelled it") or a plan, never the day it was cancelled."""
    if _CANCEL_TO_COME.search(sent.text):
        return None
    days = [d.date for d in ctx.dates(sent, "past") if d.valid]
    past = [d for d in days if d is not None and d <= ctx.today]
    return past[0] if past else ctx.today


# A product named right after its maker's service, capitalised ("Adobe Lightroom", "Adobe
# Photoshop"); a plan's tier ("Spotify Premium") is the same subscription.
_PRODUCT = lazy(r"[ \t]+((?-i:[A-Z][a-z]{2,20}))\b")
_NOT_PRODUCT = (
    word_set(
        "Premium Family Plus Basic Standard Duo Student Individual Pro Ultimate Essential Annual "
        "Monthly Yearly Subscription Membership Plan Account Card Bill Sub"
    )
    | NOT_NAMES
)


def _pence(text: str) -> list[Any]:
    """The amounts of a text written with pence ("39.99"): money, though no currency is said."""
    return [a for a in amounts(text) if re.fullmatch(r"\d{1,5}[.,]\d\d", text[a.start : a.end])]


def _known_as(ctx: Ctx, name: str) -> str:
    """The name the thread knows a service by ("cancelled NOW TV" after "NOW TV Boost renews
    5 Dec": the Boost subscription ends), else the name said."""
    said = name.casefold()
    for m in reversed(ctx.thread.mentions):
        known = m.get("name") if m.kind in ("subscription", "finance.subscriptions") else None
        if isinstance(known, str) and known.casefold().startswith(said + " "):
            return known
    return name


# "I cancelled my gym membership today", "The climbing wall membership I cancelled on
# Monday": a done cancellation of something named by its subscription noun, not a known
# service; the record it ends when the user has one of that name, else a record of its own
# (the fold's endings: compiler/fold.py)
_NOUN = r"(?P<noun>membership|subscription|sub|plan|contract)\b"
_THING = r"(?P<name>[A-Za-z][\w&'+-]*(?:[ \t][A-Za-z][\w&'+-]*){0,2}?)"
_CANCELLED_NOUN = lazy(
    r"\b(?:cancel(?:l)?ed|unsubscribed\s+from|stopped\s+paying\s+for|got\s+rid\s+of|ended)"
    r"\s+(?:my|our|the)\s+"
    + _THING
    + r"\s+"
    + _NOUN
    + r"|^(?:my|our|the)\s+"
    + _THING.replace("name", "name2")
    + r"\s+"
    + _NOUN.replace("noun", "noun2")
    + r"\s+(?:i|we)\s+(?:just\s+|finally\s+|already\s+)?"
    r"(?:cancel(?:l)?ed|stopped\s+paying\s+for|ended|got\s+rid\s+of)\b",
    re.IGNORECASE,
)
# who cancelled, before the verb: the user ("I", "we") or no one said ("Finally cancelled my
# gym membership"), never someone named ("Jo cancelled the gym membership")
_USER_HEAD = lazy(
    r"(?:(?:so|and|also|ok|okay|btw|well|today|yesterday|finally|just)\b[,!]?\s*)*"
    r"(?:(?:i|we)(?:'ve|\s+have|\s+had)?\s+)?(?:(?:just|finally|already|also|actually)\s+)*",
    re.I,
)
# words before a subscription noun that say which one, not what: "my old gym membership"
_NOT_THE_THING = word_set("old current new monthly annual yearly free trial family premium")


def _cancelled_named(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A done cancellation of a subscription named by what it is for (`_CANCELLED_NOUN`)."""
    m = _CANCELLED_NOUN.search(sent.text)
    if m is None or not stop_ok(parts, sent, sent.start + m.start()):
        return
    if not _USER_HEAD.fullmatch(sent.text, 0, m.start()):
        return  # "my flatmate cancelled the gym membership": theirs; "I'll have cancelled"
    words = (m["name"] or m["name2"]).split()
    while words and words[0].lower() in _NOT_THE_THING:
        words = words[1:]
    if not words or words[0] in NOT_NAMES or (day := cancel_day(ctx, sent)) is None:
        return
    value = {"name": _known_as(ctx, " ".join(words)), "cancelled_on": day}
    ctx.add("finance.subscriptions", value, sent, 0.75, op="end")


def rule_subscriptions(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Recurring payments: price and period, renewal day, cancellation."""
    if _priced_list(ctx, sent, parts) or _named_renews(ctx, sent, parts):
        return
    service = SERVICE.search(sent.text)
    if service is None:
        _cancelled_named(ctx, sent, parts)
        _signed_up(ctx, sent, parts)
        _trial_end(ctx, sent, parts)
        _renews_next(ctx, sent, parts)
        return
    if service[1].lower() in _COMMON_WORD_SERVICES and not service[1][:1].isupper():
        return  # "max", "calm", "sky" in lowercase are words, not services
    name = _service_name(service[1])
    if (product := _PRODUCT.match(sent.text, service.end())) and product[1] not in _NOT_PRODUCT:
        name = f"{name} {product[1]}"  # "Adobe Lightroom yearly plan": the product subscribed
    if "?" not in sent.text:
        # "thinking of dropping Spotify" records nothing, but "cancelled it" next means Spotify
        topic = Mention("subscription", freeze({"name": name}), ctx.today)
        ctx.thread = ctx.thread.with_([topic])
    cancel = _SUB_CANCEL.search(sent.text)
    first = service.start() <= 8 or _clause_start(parts, sent.start + service.start())
    fronted = _CANCELLED_AFTER.match(sent.text, service.end()) if first else None
    if (
        cancel
        and (cancel.end() <= service.start() + 2 or fronted is not None)
        and stop_ok(parts, sent, sent.start + cancel.start())
    ):
        if (day := cancel_day(ctx, sent)) is not None:
            value = {"name": _known_as(ctx, name), "cancelled_on": day}
            ctx.add("finance.subscriptions", value, sent, 0.8, op="end")
        return
    verb = _SUB_VERB.search(sent.text)
    # "11.99 a month", "charged 39.99 by adobe today, ..., monthly": pence say it is a price
    priced = find_money(sent.text) or _BARE_PRICE.search(sent.text) or _pence(sent.text)
    if (
        verb is None
        and _PRICE_NOW.match(sent.text, service.end())
        and not someone_else(sent.text[: service.start()])  # "my flatmate says netflix is"
    ):
        verb = service  # "spotify family is 19.99 now", "Netflix went up to £12.99"
    if verb is None and priced and period_of(sent.text, "subscription"):
        verb = service  # "Netflix went up to £12.99/month": price and period say enough
    if (
        verb is None
        and _AND_ANOTHER.match(sent.text)
        and amounts(sent.text)
        and ctx.thread.last("subscription") is not None
    ):
        verb = service  # "and 10.99 for Netflix, also monthly", after one just said
    if not in_clause(verb, parts, sent):
        return
    if not in_clause(service, parts, sent):
        return
    value: dict[str, Any] = {"name": name}
    money = find_money(sent.text)
    if money:
        value["amount"] = money[0].amount
        value["currency"] = money[0].currency
    elif (bare := _BARE_PRICE.search(sent.text)) is not None:
        value["amount"] = Decimal(bare[1].replace(",", "."))  # "17.99 a month": no currency said
    elif verb is service and (said := amounts(sent.text)):
        value["amount"] = said[0].amount  # "and 10.99 for Netflix, also monthly"
    elif said := _pence(sent.text):
        value["amount"] = said[0].amount
    if (period := period_of(sent.text, "subscription")) is not None:
        value["period"] = period
    if (renew := _RENEWS.search(sent.text)) is not None:
        dates = ctx.dates(sent, after=renew.start() + 1)
        if dates and dates[0].valid:
            value["renews_on"] = dates[0].date
    if (began := _BEGAN.search(sent.text)) is not None:
        # "Signed up for Duolingo today": it started that day (the message's, when none said)
        dates = [d for d in ctx.dates(sent, "past") if d.valid]
        value["started_on"] = next((d.date for d in dates if d.start > began.start()), ctx.today)
    elif started := [
        d.date
        for d in ctx.dates(sent, "past")
        if d.date is not None
        and d.date <= ctx.today
        and _SINCE.search(sent.text, 0, d.start - sent.start)
    ]:
        value["started_on"] = started[0]  # "paying 12 a month for Spotify since January"
    if len(value) == 1:
        return  # "I subscribe to Netflix" alone says too little to be worth a record
    ctx.add("finance.subscriptions", value, sent, 0.85)


# a service's price said as it is now: "<service> (plan) is 19.99 now", "went up to £12.99"
_PRICE_NOW = lazy(
    r"(?:\s+(?:family|premium|plus|basic|standard|duo|student|individual))?\s+(?:is|went\s+up\s+to|"
    r"(?:has\s+)?gone\s+up\s+to|is\s+going\s+up\s+to|costs?)\s+(?:now\s+)?[£$€]?\s?\d{1,4}[.,]\d{2}\b",
    re.I,
)
# "signed up for Duolingo", "took out a disney+ sub ..., started today"
# a day said as when it began: "since January", "since 3 March" (right before the date)
_SINCE = lazy(r"\bsince[ \t]+$", re.I)
_BEGAN = lazy(r"\b(?:signed\s+up|subscribed|joined|started|took\s+out)\b", re.I)
# "the free trial ends on the 16th": the first charge of the subscription just named
_TRIAL_END = lazy(
    r"\b(?:free\s+)?trial\s+(?:ends|runs\s+out|is\s+over|finishes|expires|is\s+up)\b", re.I
)


# "renews on the 18th", "next payment is on 3 July": the subscription just talked about
_RENEWS_NEXT = lazy(
    r"^(?:and\s+|also\s+)?(?:it\s+|that\s+|which\s+)?(?:renews|auto-?renews|"
    r"(?:the\s+)?next\s+(?:payment|charge|bill|renewal)(?:\s+is|'s)?)\b",
    re.I,
)


_EVERY = lazy(r"\b(?:every|each)\s+(?:month|year|week)\b", re.I)


def _renews_next(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A renewal day said after the subscription it belongs to."""
    m = _RENEWS_NEXT.match(sent.text)
    last = ctx.thread.last("subscription")
    if m is None or last is None or not last.get("name") or not in_clause(m, parts, sent):
        return
    if _EVERY.search(sent.text):
        return  # "on the 4th of every month" is a day of each month, not the next renewal
    dates = [d for d in ctx.dates(sent) if d.start > m.start()]
    if dates and dates[0].valid:
        value = {"name": last.get("name"), "renews_on": dates[0].date}
        ctx.add("finance.subscriptions", value, sent, 0.75)


def _clause_start(parts: list[Span], at: int) -> bool:
    """Whether offset `at` opens its clause ("ok done, Netflix cancelled")."""
    clause = clause_of(parts, at)
    return clause is not None and clause.start == at


def _trial_end(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A trial's last day said after the subscription: when it first renews."""
    m = _TRIAL_END.search(sent.text)
    last = ctx.thread.last("subscription")
    if m is None or last is None or not last.get("name"):
        return
    if not in_clause(m, parts, sent):
        return
    dates = [d for d in ctx.dates(sent) if d.start > m.start()]
    if dates and dates[0].valid:
        value = {"name": last.get("name"), "renews_on": dates[0].date}
        ctx.add("finance.subscriptions", value, sent, 0.75)


_BARE_PRICE = lazy(
    r"(?<![\w.,])(\d{1,4}(?:[.,]\d{2})?)\s*(?:(?:a|per|/|each|every)\s*(?:month|mo|week|year|yr)|"
    r"monthly|weekly|yearly|annually)\b",
    re.I,
)


def _signed_up(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "I signed up at PureGym today, £24.99 a month": a service the list does not know."""
    m = _SIGNED_UP.search(sent.text)
    period = period_of(sent.text, "subscription")
    money = find_money(sent.text)
    if m is None or period is None or not money or not m["name"][:1].isupper():
        return
    if not in_clause(m, parts, sent):
        return
    dates = [d for d in ctx.dates(sent, "past") if d.valid]
    # "£1 for the first 3 months then £26 a month": the price per period is the one after "then"
    later = [x for x in money if re.search(r"\bthen\b", sent.text[money[0].end : x.start])]
    price = later[0] if later else money[0]
    value: dict[str, Any] = {
        "name": m["name"],
        "amount": price.amount,
        "currency": price.currency,
        "period": period,
        "started_on": dates[0].date if dates else ctx.today,
    }
    ctx.add("finance.subscriptions", value, sent, 0.8)
