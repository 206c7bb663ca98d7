"""Accounts and cards, the one home of finance.bank_accounts: accounts and cards the user has
with the issuer and their limits ("I got a new credit card from Chase", "a £4,000 limit";
`rule_cards`), a card's per-payment limit ("wise card has a $2,000
per payment limit", "Starling card: £1,000 per-transaction cap"), an account the user is
closing and when (`rule_accounts`); the account-name pattern the
payment rules share."""

from __future__ import annotations

import re
from typing import Any

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    clause_ok,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.values.money import amounts, find_money
from uac.fact_log.reference import vocabulary

# A card named by its brand alone ("my Amex") is a card; "my Visa" is left out (a travel visa).
CARD_BRAND = r"(?-i:Amex|American\s+Express|Barclaycard)(?!\s+(?:card|account))"
ACCOUNT = (
    # "my N26 card": a bank's name may hold digits
    r"(?i:my|the|our)\s+(?P<acct>"
    + CARD_BRAND
    + r"|[A-Z](?:[A-Za-z0-9&]|[^\W\d_])(?:[A-Za-z0-9&]|[^\W\d_]){0,19}"
    r"(?:\s+[A-Z](?:[A-Za-z&]|[^\W\d_]){1,20})?\s+(?:current\s+|savings\s+|joint\s+|credit\s+|debit\s+)?"
    r"(?:account|(?i:acct|a/c)|card))"  # "the NatWest current acct"
)
ACCOUNT_RE = lazy(ACCOUNT)


_PER_PAYMENT = lazy(
    r"\b(?:a\s+)?(?P<amt>\S+)\s+limit\s+(?:per|on\s+each|for\s+each|on\s+any\s+single)\s+"
    r"(?:transaction|payment|purchase)\b|\bper[- ](?:transaction|payment)\s+limit\s+(?:of|is)\s+"
    r"(?P<amt2>\S+)|\blimit\s+of\s+(?P<amt3>\S+)(?:\s+(?:euros?|pounds?|dollars?|quid|eur|gbp|usd))?\s+"
    r"(?:per|a|each|for\s+each|on\s+each|on\s+any)\s+"
    r"(?:single\s+)?(?:transaction|payment|purchase)\b|"
    # "a 1000 EUR per-payment limit"
    r"\b(?:a\s+)?(?P<amt4>[£$€]?\d[\d,.]*)\s*(?:[A-Z]{3}\s+)?per[- ]"
    r"(?:transaction|payment|purchase)\s+(?:limit|cap)\b",
    re.IGNORECASE,
)
_HOLDER = lazy(
    r"^\s*(?:and\s+|also\s+|but\s+)?(?:" + ACCOUNT + r"|"
    # "wise card has ...", "Starling card: ...": a card named by its bank alone, as typed
    r"(?!(?:this|that|the|my|our|a|an|your|his|her|their|which|credit|debit|bank|new|old)\b)"
    r"(?P<acct2>[A-Za-z][A-Za-z0-9&]{1,20}\s+(?:card|account))(?=\s*:|\s+has\b))"
    r"\s*(?::|has|have|comes\s+with|only\s+allows|'s|"
    r"(?:only\s+)?(?:lets|allows)|won't|will\s+not|doesn't|does\s+not|can't|cannot)"
)
# "won't let me spend more than 750 in one go", "only lets me pay up to £300 at a time"
_CAPPED = lazy(
    r"\b(?:let|lets|allow|allows)\s+me\s+(?:to\s+)?(?:pay|spend|transfer|send)\s+(?:more\s+than|"
    r"over|up\s+to|at\s+most)\s+(?P<amt>\S+)\s+(?:in\s+one\s+go|at\s+(?:a|one)\s+time|"
    r"per\s+(?:payment|transaction)|in\s+a\s+single\s+(?:payment|transaction))\b",
    re.IGNORECASE,
)
_CLOSING = lazy(
    # "closing my Santander current account on 30 April" (a note: no "I'm" said)
    r"(?:\bi(?:'m|\s+am|'ll|\s+will)\s+(?:be\s+)?|(?:^|[,;:.]\s*)(?:and\s+)?)clos(?:ing|e)\s+"
    + ACCOUNT
    + r"|"
    r"\b" + ACCOUNT.replace("acct", "acct2") + r"\s+(?:closes|is\s+closing|will\s+close|"
    r"is\s+being\s+closed|"
    # "The MBNA card I shall close at the end of the month": the account said first
    r"(?:i|we)\s+(?:shall|will|'ll|am\s+going\s+to|must|need\s+to|want\s+to|plan\s+to)\s+close)\b|"
    # "the old one with NatWest closes on 30 September"
    r"\b(?:my|the|our)\s+(?:old\s+)?(?:one|account|bank\s+account)\s+(?:with|at)\s+"
    r"(?P<acct3>(?-i:[A-Z][A-Za-z&]{1,20}))\s+(?:closes|is\s+closing|will\s+close|"
    r"is\s+being\s+closed|shuts)\b|"
    # "the Nationwide one closes on 30 April": the bank's one, after the account was named
    r"\b(?:my|the|our)\s+(?:old\s+)?(?P<acct4>(?-i:[A-Z][A-Za-z&]{1,20}))\s+one\s+(?:closes|"
    r"is\s+closing|will\s+close|is\s+being\s+closed|shuts|gets\s+closed)\b",
    re.IGNORECASE,
)


_ACCOUNT = lazy(
    r"\b(?P<kind>(?i:credit\s+card|debit\s+card|savings\s+account|current\s+account|"
    r"checking\s+account|bank\s+account|overdraft))\b"
    r"(?:[^.;]{0,25}?\b(?i:from|with|at|on)\s+(?P<inst>[A-Z][\w&]+(?:\s[A-Z][\w&]+)?))?"
)
_CARD_BRAND = lazy(
    r"\b(?:(?i:my|our)\s+(?P<brand>Amex|American\s+Express|Barclaycard|Visa|Mastercard|"
    r"[A-Z][a-z]+\s+(?:card|Visa|Mastercard))|(?i:the)\s+(?P<brand2>Amex|American\s+Express|"
    r"Barclaycard|[A-Z][a-z]+\s+(?:credit\s+)?card))\b"
)
_ISSUER_CARDS = ("amex", "american express", "barclaycard")  # a card named by its issuer
# "a £4,000 limit", "£2,500 credit limit": the amount said just before the word
_AMOUNT_BEFORE = lazy(r"(?:a|an|the)?\s*(?:credit\s+)?$", re.I)
_LIMIT = lazy(r"\b(?i:limit)\b")
_KINDS: dict[str, str] = vocabulary()["account_kinds"]
_FIRST_PERSON = lazy(
    r"\b(?:i|my|i've|i'm|we|our)\b|^(?:just\s+|finally\s+)?(?:opened\s+|got\s+)?(?:a\s+)?new\b",
    re.I,
)


# A card as the user names it, any case: "my HDFC credit card", "My Swisscard Mastercard",
# "the BBVA card", "my discover card"
_HELD_CARD = lazy(
    r"\b(?:my|the|our)\s+(?P<prov>[A-Za-z][\w&]{1,20}(?:\s[A-Za-z][\w&]{1,20})??)"
    r"(?:\s+(?:Mastercard|Visa|Amex))?\s+"
    r"(?P<kind>credit\s+card|debit\s+card|card|Mastercard|Visa)\b",
    re.I,
)
_NOT_ISSUERS = frozenset(vocabulary()["word_sets"]["purchases_not_issuers"])
# The cue an amount answers to, read clause by clause so each amount binds to its own cue
# ("limit is 2,50,000 INR and per transaction it is capped at 1 lakh")
_PER_ONE = lazy(
    r"\b(?:per|each|a\s+single|any\s+single|for\s+one|for\s+a\s+single|one)[\s-]+"
    r"(?:transaction|payment|purchase)\b|\bin\s+one\s+go\b|\bat\s+a\s+time\b",
    re.I,
)
_LIMIT_CUE = lazy(r"\b(?:credit\s+)?limit\b|\bcapped\b", re.I)
_LIMIT_CLAUSES = lazy(r"[,;!](?=\s)|\band\b|\bbut\b", re.I)  # not "2,50,000"
_CASH_LIMIT = lazy(r"\b(?:ATM|withdrawals?|cash|contactless|monthly)\b", re.I)
_DAILY_LIMIT = lazy(r"\b(?:daily|(?:a|per|each)\s+day)\b", re.I)
# any limit that is not the card's credit limit: a cash, monthly or daily one
_OTHER_LIMIT = lazy(rf"{_CASH_LIMIT.pattern}|\b(?:daily|day)\b", re.I)
# "$1500 limit", "The credit limit is £6,000": a limit said of the card just named
_BARE_LIMIT = lazy(
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


def rule_cards(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Accounts and cards the user has, with the issuer and the limit when said."""
    if any(
        c.path == "finance.bank_accounts" and c.start == sent.start for c in ctx.out[ctx.here() :]
    ):
        return  # card_limits (run by rule_accounts) read this sentence's card
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
    if limit is not None and _PER_PAYMENT_SAID.search(sent.text):
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


_PER_PAYMENT_SAID = lazy(
    r"\b(?:per|each|any\s+single|a\s+single)[\s-]+(?:payment|transaction|purchase)\b", re.I
)
_AT_BANK = lazy(r"\b(?:at|with)\s+([A-Z][\w&]+)")
_IT = lazy(r"\b(?:it|its|the\s+card)\b", re.I)


def kind_of(name: str) -> str:
    """The catalog's kind of an account as named ("Amex", "Monzo card", "savings account")."""
    low = name.lower()
    if "credit" in low or low.startswith(("amex", "barclaycard")):
        return "credit_card"
    if low.endswith("card"):
        return "debit_card"
    return "savings" if "savings" in low else "current"


def _provider(name: str) -> str:
    """The issuer named by an account's first word, as the user names it ("Amex")."""
    first = name.split()[0]
    return "American Express" if first.lower() == "american" else first


def rule_accounts(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A card's per-payment limit, or an account the user is closing, and when."""
    if card_limits(ctx, sent, parts):
        return
    limit = _PER_PAYMENT.search(sent.text) or _CAPPED.search(sent.text)
    holder = _HOLDER.search(sent.text)
    if limit is not None and holder is not None:
        money = find_money(sent.text) or amounts(sent.text[limit.start() :])
        group = "acct" if holder["acct"] else "acct2"
        name = holder[group]
        if money and clause_ok(parts, sent, sent.start + holder.start(group)):
            value = {
                "name": name,
                "provider": _provider(name),
                "kind": kind_of(name),
                "per_transaction_limit": money[0].amount,
            }
            if money[0].currency:
                value["currency"] = money[0].currency
            ctx.add("finance.bank_accounts", value, sent, 0.8)
        return
    close = _CLOSING.search(sent.text)
    at = close.start() + max(0, close[0].lower().find("clos")) if close else 0  # past a comma
    if close is None or not clause_ok(parts, sent, sent.start + at):
        return
    name = close["acct"] or close["acct2"] or f"{close['acct3'] or close['acct4']} account"
    dates = [d for d in ctx.dates(sent) if d.valid]
    when = dates[0].date if dates else None
    if when is None:
        return
    value = {"name": name, "provider": _provider(name), "kind": kind_of(name), "closing_on": when}
    ctx.add("finance.bank_accounts", value, sent, 0.8)
