"""Purchase and account patterns: bank accounts and cards with their limits, warranties,
deliveries ("I got a new credit card from Chase", "The laptop has a two-year warranty")."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Rule,
    Span,
    clause_ok,
    dates_in,
    guarded,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.timemodel import add_months, count_word
from uac.fact_log.extraction.values.money import amounts
from uac.fact_log.reference import vocabulary

_ACCOUNT = re.compile(
    r"\b(?P<kind>(?i:credit\s+card|debit\s+card|savings\s+account|current\s+account|"
    r"checking\s+account|bank\s+account|overdraft))\b"
    r"(?:[^.;]{0,25}?\b(?i:from|with|at|on)\s+(?P<inst>[A-Z][\w&]+(?:\s[A-Z][\w&]+)?))?"
)
_CARD_BRAND = re.compile(
    r"\b(?:(?i:my|our)\s+(?P<brand>Amex|American\s+Express|Barclaycard|Visa|Mastercard|"
    r"[A-Z][a-z]+\s+(?:card|Visa|Mastercard))|(?i:the)\s+(?P<brand2>Amex|American\s+Express|"
    r"Barclaycard|[A-Z][a-z]+\s+(?:credit\s+)?card))\b"
)
_ISSUER_CARDS = ("amex", "american express", "barclaycard")  # a card named by its issuer
# "a £4,000 limit", "£2,500 credit limit": the amount said just before the word
_AMOUNT_BEFORE = re.compile(r"(?:a|an|the)?\s*(?:credit\s+)?$", re.I)
_LIMIT = re.compile(r"\b(?i:limit)\b")
_KINDS: dict[str, str] = vocabulary()["account_kinds"]
_FIRST_PERSON = re.compile(
    r"\b(?:i|my|i've|i'm|we|our)\b|^(?:just\s+|finally\s+)?(?:opened\s+|got\s+)?(?:a\s+)?new\b",
    re.I,
)


# A card as the user names it, any case: "my HDFC credit card", "My Swisscard Mastercard",
# "the BBVA card", "my discover card"
_HELD_CARD = re.compile(
    r"\b(?:my|the|our)\s+(?P<prov>[A-Za-z][\w&]{1,20}(?:\s[A-Za-z][\w&]{1,20})??)"
    r"(?:\s+(?:Mastercard|Visa|Amex))?\s+"
    r"(?P<kind>credit\s+card|debit\s+card|card|Mastercard|Visa)\b",
    re.I,
)
_NOT_ISSUERS = frozenset(vocabulary()["word_sets"]["purchases_not_issuers"])
# The cue an amount answers to, read clause by clause so each amount binds to its own cue
# ("limit is 2,50,000 INR and per transaction it is capped at 1 lakh")
_PER_ONE = re.compile(
    r"\b(?:per|each|a\s+single|any\s+single|for\s+one|for\s+a\s+single|one)[\s-]+"
    r"(?:transaction|payment|purchase)\b|\bin\s+one\s+go\b|\bat\s+a\s+time\b",
    re.I,
)
_LIMIT_CUE = re.compile(r"\b(?:credit\s+)?limit\b|\bcapped\b", re.I)
_LIMIT_CLAUSES = re.compile(r"[,;!](?=\s)|\band\b|\bbut\b", re.I)  # not "2,50,000"
_CASH_LIMIT = re.compile(r"\b(?:ATM|withdrawals?|cash|contactless|monthly)\b", re.I)
_DAILY_LIMIT = re.compile(r"\b(?:daily|(?:a|per|each)\s+day)\b", re.I)
# any limit that is not the card's credit limit: a cash, monthly or daily one
_OTHER_LIMIT = re.compile(rf"{_CASH_LIMIT.pattern}|\b(?:daily|day)\b", re.I)
# "$1500 limit", "The credit limit is £6,000": a limit said of the card just named
_BARE_LIMIT = re.compile(
    r"^\W*(?:(?:the|a|my)\s+)?(?:credit\s+)?limit\b|^\W*[£$€]?\d[\d,.']*\s*(?:[A-Z]{3}\s+)?"
    r"(?:credit\s+)?limit\b",
    re.I,
)


def card_limits(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A card's credit limit and per-payment cap, each amount bound to its own cue."""
    if _LIMIT_CUE.search(sent.text) is None:
        return False
    held = _HELD_CARD.search(sent.text)
    if held is not None and held["prov"].lower() in _NOT_ISSUERS:
        held = None
    value: dict[str, Any] = {}
    if held is not None:
        if not in_clause(held, parts, sent) or someone_else(sent.text[: held.start()]):
            return False
        kind = held["kind"].lower()
        value = {"name": held[0].split(None, 1)[1], "provider": held["prov"]}
        if "debit" in kind:
            value["kind"] = "debit_card"
        elif "credit" in kind:
            value["kind"] = "credit_card"
    elif _BARE_LIMIT.search(sent.text):
        before = ctx.text[: sent.start].rstrip().rstrip("!?.")
        start = max(before.rfind(". "), before.rfind("!"), before.rfind("\n")) + 1
        held = _HELD_CARD.search(before[start:])
        if held is not None and held["prov"].lower() not in _NOT_ISSUERS:
            value = {"name": held[0].split(None, 1)[1], "provider": held["prov"]}
        elif (earlier := ctx.thread.last("finance.bank_accounts")) is not None:
            value = {k: v for k, v in earlier.record().items() if k in ("name", "provider", "kind")}
        if not value or not clause_ok(parts, sent, sent.start):
            return False
    else:
        return False
    other = False  # a cash or monthly limit: read here, and no field holds it
    for clause in _LIMIT_CLAUSES.split(sent.text):
        said = amounts(clause)
        if not said:
            continue
        if _CASH_LIMIT.search(clause):
            other = True
            continue
        if _DAILY_LIMIT.search(clause):  # "a daily limit of €2,000": all payments of a day
            value["daily_limit"] = said[0].amount
        elif _PER_ONE.search(clause):
            value["per_transaction_limit"] = said[0].amount
        elif _LIMIT_CUE.search(clause):
            value["limit"] = said[0].amount
            value["kind"] = "credit_card"  # a card with a credit limit is a credit card
        else:
            continue
        if said[0].currency:
            value.setdefault("currency", said[0].currency)
    if not any(k in value for k in ("limit", "per_transaction_limit", "daily_limit")):
        return other
    if "limit" not in value and held is not None and held["kind"].lower() == "card":
        # a card with a cap and no credit limit, unless its issuer only issues credit cards
        issuer = held["prov"].lower() in _ISSUER_CARDS
        value.setdefault("kind", "credit_card" if issuer else "debit_card")
    ctx.add("finance.bank_accounts", value, sent, 0.8)
    return True


def rule_accounts(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Accounts and cards the user has, with the issuer and the limit when said."""
    if any(
        c.path == "finance.bank_accounts" and c.start == sent.start for c in ctx.out[ctx.here() :]
    ):
        return  # card_limits (run by payments.rule_accounts) read this sentence's card
    m = _ACCOUNT.search(sent.text)
    brand = _CARD_BRAND.search(sent.text)
    limit = _LIMIT.search(sent.text)
    if limit and _OTHER_LIMIT.search(sent.text[max(0, limit.start() - 12) : limit.start()]):
        limit = None  # "a daily limit of 600": no field holds it
    value: dict[str, Any] = {}
    inst = m and (m["inst"] or (_AT_BANK.search(sent.text) or [None, None])[1])
    known = inst and any(
        p.kind == "finance.bank_accounts" and p.get("provider") == inst for p in ctx.thread.mentions
    )
    if m is not None and (_FIRST_PERSON.search(sent.text) or known):
        kind = " ".join(m["kind"].lower().split())
        value["kind"] = _KINDS[kind]
        if inst:
            value["provider"] = inst
        if kind == "overdraft" and (said := [a for a in amounts(sent.text) if a.start > m.end()]):
            value["limit"] = said[0].amount  # "the overdraft on Starling is £500"
            if said[0].currency:
                value["currency"] = said[0].currency
    if brand is not None:
        said = brand["brand"] or brand["brand2"]
        value["name"] = said
        if said.lower() in _ISSUER_CARDS:
            value.setdefault("kind", "credit_card")
            value.setdefault("provider", said)  # as said: "Amex" stays "Amex"
        elif said.split()[0] not in ("Visa", "Mastercard", "Credit"):
            value.setdefault("provider", said.split()[0])  # "my Halifax card": Halifax's
    earlier = ctx.thread.last("finance.bank_accounts")
    if not value and limit is not None and earlier is not None and _IT.search(sent.text):
        value = earlier.record()  # "The limit on it is $5,000."
    if limit is not None and _PER_PAYMENT.search(sent.text):
        return  # a per-payment limit, not a credit limit: payments.rule_accounts
    anchor = m or brand or limit
    if not value or not in_clause(anchor, parts, sent):
        return
    if limit is not None:
        said = amounts(sent.text)
        found = [a for a in said if a.start > limit.start()] or [
            a
            for a in said
            if a.end <= limit.start() and _AMOUNT_BEFORE.fullmatch(sent.text[a.end : limit.start()])
        ]
        if found:
            if value.get("name", "").lower().endswith("card"):
                value.setdefault("kind", "credit_card")  # a card's own limit is credit
            value["limit"] = found[0].amount
            if found[0].currency:
                value["currency"] = found[0].currency
    # "my Visa card was declined", "insurance through my Amex card": a card in passing is no
    # record; an account said as had ("a new current account with Starling") or a limit is
    if "limit" in value or (m is not None and "provider" in value):
        ctx.add("finance.bank_accounts", value, sent, 0.75)


_PER_PAYMENT = re.compile(
    r"\b(?:per|each|any\s+single|a\s+single)[\s-]+(?:payment|transaction|purchase)\b", re.I
)
_AT_BANK = re.compile(r"\b(?:at|with)\s+([A-Z][\w&]+)")
_IT = re.compile(r"\b(?:it|its|the\s+card)\b", re.I)


# "2 year warranty", "2 yr parts & labour warranty", "3 years of garantía" (the writer's word)
_GUARANTEE = r"(?:warranty|guarantee|garant[ií]a|garantie|garanzia)"
# a year or a month in the writer's language ("2 ans de garantie", "3 años de garantía")
_UNIT = r"year|yr|month|ans?|años?|anni|jahre?|mois|meses|mesi|monate?"
_WARRANTY = re.compile(
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
_APPOSITIVE = re.compile(r",\s+(?P<model>[A-Z][\w-]*(?:\s[\w-]+){0,3}?),")
_ITEM_SUBJECT = re.compile(
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
_RETURN_DAYS = re.compile(
    r"\b(?P<n>\d{1,3}|[a-z]+(?:[\s-][a-z]+)?)\s+days?\s+(?:to\s+(?:return|send)\s+(?:it|them)(?:\s+back)?|"
    r"(?:for\s+)?returns?)\b",
    re.I,
)
# "... if I change my mind", "if I don't like it": the condition of a return, no hypothetical
_IF_RETURN = re.compile(r"\s+if\s+(?:i|we)\s+(?:change|don'?t|do\s+not|decide)\b.*$", re.I)


# what may open a line of terms after the item: "and", "it has", "they say", "they gave me"
_TERMS_LEAD = re.compile(
    r"(?:(?:and|plus|also|with|it\s+has|comes\s+with|(?:they|the\s+shop|the\s+seller|it)\s+"
    r"(?:say|says|said|gave\s+me|give\s+me|told\s+me))\s+)?(?:an?\s+)?",
    re.I,
)
# "till jan 15 to return it", "until 2 May to send it back": a return window's last day
_RETURN_UNTIL = re.compile(
    r"\b(?:till|until|til|by)\s+[^.,;]{2,20}?\s+to\s+(?:return|send\s+back|bring\s+back)\b", re.I
)


def _length(m: re.Match[str]) -> tuple[int | None, int]:
    """A warranty's length said in it: (count, months per unit); count None when none is."""
    said, unit = m["n"] or m["n2"], m["unit"] or m["unit2"]
    if said is None:
        return None, 12
    return count_word(said), 12 if unit.lower()[0] in "yaj" else 1  # year, an, año, Jahr


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
    if ret is not None and (n := count_word(ret["n"])) is not None:
        value["return_by"] = bought + dt.timedelta(days=n)
    if until is not None:  # "they gave me till jan 15 to return it": the day itself
        days = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid]
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
    dates = [d for d in dates_in(sent, "past", ctx.today, ctx.anchor) if d.date]
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
    else:
        until = [
            d
            for d in dates_in(sent, "future", ctx.today, ctx.anchor)
            if d.start > sent.start + m.start()
        ]
        if not until or until[0].date is None:
            return
        value["ends_on"] = until[0].date
    ctx.add("finance.warranties", value, sent, 0.75)


DELIVERED = re.compile(
    r"\b(?:gets?|will\s+be|is\s+being|should\s+be|being)\s+delivered\b|\bdelivery\s+is\b|"
    r"\barrives\b",
    re.I,
)


def rule_deliveries(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "it gets delivered on April 2": the delivery of the item last bought, as an event."""
    m = DELIVERED.search(sent.text)
    item = ctx.thread.last("item")
    if item is None or not in_clause(m, parts, sent):
        return
    dates = [
        d
        for d in dates_in(sent, "future", ctx.today, ctx.anchor)
        if d.start > sent.start + m.start()
    ]
    if not dates or dates[0].date is None:
        return
    title = f"{str(item.get('item')).capitalize()} delivery"
    start = dt.datetime.combine(dates[0].date, dt.time())
    ctx.add("schedule.events", {"title": title, "start": start}, sent, 0.75)


RULES: tuple[Rule, ...] = (rule_accounts, rule_warranties)
LATE_RULES: tuple[Rule, ...] = (rule_deliveries,)  # read the item named in the same sentence
