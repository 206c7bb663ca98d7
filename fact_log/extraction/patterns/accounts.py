"""Accounts and cards: a card's per-payment limit ("wise card has a $2,000 per payment
limit", "Starling card: £1,000 per-transaction cap"), an account the user is closing and when;
the account-name pattern the payment rules share. Listed in payments.RULES."""

from __future__ import annotations

import re

from uac.fact_log.extraction.patterns.purchases import card_limits
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    clause_ok,
    dates_in,
)
from uac.fact_log.extraction.values.money import amounts, find_money

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
ACCOUNT_RE = re.compile(ACCOUNT)


_PER_PAYMENT = re.compile(
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
_HOLDER = re.compile(
    r"^\s*(?:and\s+|also\s+|but\s+)?(?:" + ACCOUNT + r"|"
    # "wise card has ...", "Starling card: ...": a card named by its bank alone, as typed
    r"(?!(?:this|that|the|my|our|a|an|your|his|her|their|which|credit|debit|bank|new|old)\b)"
    r"(?P<acct2>[A-Za-z][A-Za-z0-9&]{1,20}\s+(?:card|account))(?=\s*:|\s+has\b))"
    r"\s*(?::|has|have|comes\s+with|only\s+allows|'s|"
    r"(?:only\s+)?(?:lets|allows)|won't|will\s+not|doesn't|does\s+not|can't|cannot)"
)
# "won't let me spend more than 750 in one go", "only lets me pay up to £300 at a time"
_CAPPED = re.compile(
    r"\b(?:let|lets|allow|allows)\s+me\s+(?:to\s+)?(?:pay|spend|transfer|send)\s+(?:more\s+than|"
    r"over|up\s+to|at\s+most)\s+(?P<amt>\S+)\s+(?:in\s+one\s+go|at\s+(?:a|one)\s+time|"
    r"per\s+(?:payment|transaction)|in\s+a\s+single\s+(?:payment|transaction))\b",
    re.IGNORECASE,
)
_CLOSING = re.compile(
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
    dates = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid]
    when = dates[0].date if dates else None
    if when is None:
        return
    value = {"name": name, "provider": _provider(name), "kind": kind_of(name), "closing_on": when}
    ctx.add("finance.bank_accounts", value, sent, 0.8)
