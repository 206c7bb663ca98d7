"""Bills paid on a schedule, said item by item: "the gym direct debit comes out of Santander,
£35 on the 5th", "the council tax is £160 a month by direct debit", "the TV licence I pay
yearly, £174.50, next due 1 April"; a message listing several bills gives one record each.

The construct: a bill named first (its noun phrase is the payee), then how it is paid (a
method, or "I pay" with a period); or a method with the payee inside it ("the Netflix direct
debit"), or "I pay £N into the X". Amount, period, day of month, next day and the account it
comes out of are read from the same item.
"""

from __future__ import annotations

import re
from typing import Any

from uac.fact_log.extraction.patterns.text import (
    HYPOTHETICAL,
    UNCERTAIN,
    Ctx,
    Span,
    dates_in,
    is_question,
    someone_else,
)
from uac.fact_log.extraction.values.money import amounts, find_money
from uac.fact_log.reference import vocabulary

_METHOD = re.compile(r"\b(?P<m>standing\s+order|direct\s+debit)s?\b", re.I)
_I_PAY = re.compile(r"\b(?:i|we)\s+(?:now\s+|also\s+)?pay\b", re.I)
_PERIODS = (
    # first: "every two months" and "every other week" hold "month" and "week"
    (
        re.compile(r"\b(?:every\s+(?:two|2|other|second)\s+months?)\b", re.I),
        "every_two_months",
    ),
    (
        re.compile(r"\b(?:fortnightly|every\s+(?:two|2|other|second)\s+weeks?|biweekly)\b", re.I),
        "fortnightly",
    ),
    (
        re.compile(r"\b(?:monthly|a\s+month|per\s+month|every\s+month|each\s+month)\b", re.I),
        "monthly",
    ),
    (
        re.compile(r"\b(?:yearly|annually|a\s+year|per\s+year|every\s+year|each\s+year)\b", re.I),
        "yearly",
    ),
    (re.compile(r"\b(?:quarterly|every\s+quarter|each\s+quarter)\b", re.I), "quarterly"),
    (re.compile(r"\b(?:weekly|a\s+week|per\s+week|every\s+week|each\s+week)\b", re.I), "weekly"),
)
# An item of a list of bills starts at a comma or "and" before "the/my/our".
_ITEM_SPLIT = re.compile(r",\s*(?:and\s+)?(?=(?:the|my|our)\s)|\s+and\s+(?=(?:the|my|our)\s)", re.I)
_WORDS = r"[A-Za-z][\w&'’+-]*(?:\s+[A-Za-z][\w&'’+-]*){0,3}?"
# "the Netflix direct debit", "the gym standing order"
_IN_METHOD = re.compile(
    # (not "the gym by direct debit": "by" says how, it names nothing)
    r"\b(?:the|my|our)\s+(?P<p>" + _WORDS + r")(?<!\bby)(?<!\bvia)(?<!\bwith)(?<!\bthrough)"
    r"\s+(?:direct\s+debit|standing\s+order)",
    re.I,
)
# "the council tax is", "the water rates I pay", "the EE bill which is",
# "the car insurance — Admiral — is" (the name between dashes is the payee)
_SUBJECT = re.compile(
    r"(?:^|:\s*)(?:right,?\s+|ok,?\s+|so\s+)?(?:also\s+|and\s+|plus\s+)?(?:(?:the|my|our)\s+|(?!(?:his|her|their|its|it|this|that|which|there|what)\b)(?=[a-z]))(?P<p>"
    + _WORDS
    + r")"
    r"(?:\s*[—–-]\s*(?P<named>[A-Z][\w&'’]+(?:\s[A-Z][\w&'’]+)?)\s*[—–-])?\s*,?\s+"
    r"(?:is|are|which\s+is|that\s+is|(?:i|we)\s+pay|goes\s+out|comes\s+out|costs?)\b",
    re.I,
)
# "I pay £250 into the Vanguard pension", "we pay £40 to the window cleaner"
_PAY_INTO = re.compile(
    r"\b(?:i|we)\s+pay\s+(?:[£$€]\s?[\d,.]+\s+|[\d,.]+\s+)?"
    r"(?:(?:a|per|every|each)\s+(?:month|week|year)\s+|monthly\s+)?"  # "£45 a month to the gym"
    r"(?:into|to|towards)\s+(?:the\s+|my\s+|our\s+)?"
    r"(?!every\b|each\b|a\s+month\b)(?P<p>" + _WORDS + r")"
    r"(?=\s+(?:every|each|on|by|from|monthly|yearly|a\s+month)\b|[,.;]|$)",
    re.I,
)
# "a standing order to Mum", "a direct debit for the gym"
_TO_PAYEE = re.compile(
    r"(?:standing\s+order|direct\s+debit)s?\s+(?:to|for|with)\s+(?:the\s+|my\s+|our\s+)?"
    r"(?P<p>" + _WORDS + r")(?=\s+(?:on|from|every|each|of|for|by|monthly)\b|[,.;]|$)",
    re.I,
)
_ON_NTH = re.compile(r"\bon\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\s+(?-i:[A-Z]))", re.I)
_NEXT_DUE = re.compile(
    r"\b(?:next\s+(?:one\s+|payment\s+|bill\s+)?(?:is\s+)?due|next\s+payment|due)\b", re.I
)
_OUT_OF = re.compile(
    r"\b(?:comes?\s+out\s+of|out\s+of|from|paid\s+from)\s+(?:the\s+|my\s+|our\s+)?"
    r"(?P<a>joint\s+account|savings\s+account|current\s+account|(?-i:[a-z]?[A-Z][\w&]+)(?:\s+(?:account|card))?|"
    # "out of my nationwide account": a bank typed in lower case, named by its account
    r"(?!(?:old|new|same|other|main|bank|that|this|one|it)\b)[a-z][\w&]{2,20}\s+(?:account|card))",
    re.I,
)
_CHANGED = re.compile(
    r"\b(?:mov(?:ed|ing)|switch(?:ed|ing)|chang(?:ed|ing)|transferr(?:ed|ing)|cancel(?:led|ed|ling)?|"
    r"stopp?(?:ed|ing)?|replac(?:ed|ing)|clos(?:ed|ing))\b",
    re.I,
)
_NOT_PAYEES = frozenset(vocabulary()["word_sets"]["bills_not_payees"])
# "water bill: Thames Water direct debit, £38 ...", "gym direct debit is £32": the payee
# named right before the method, at the start of a clause
_NAMED_METHOD = re.compile(
    r"(?:^|[:;]\s*)(?:(?:and|also|plus)\s+)?(?:(?:the|my|our)\s+)?"
    r"(?!(?:set|setting|cancel\w*|stop\w*|a|an)\b)(?P<p>"
    + _WORDS
    + r")\s+(?:direct\s+debit|standing\s+order)s?\b",
    re.I,
)
# "last payment 1 October", "the final one is on the 28th": the day it stops
_LAST_PAYMENT = re.compile(
    r"\b(?:last|final)\s+(?:payment|one|debit|charge)\s+(?:is\s+|was\s+|will\s+be\s+)?(?:on\s+)?",
    re.I,
)
# "comes out of that one", "from the same account": the account the thread just named
_THAT_ACCOUNT = re.compile(
    r"\b(?:out\s+of|from)\s+(?:that|this|the\s+same)\s+(?:one|account)\b", re.I
)
_TOO = re.compile(r"\b(?:too|as\s+well)\b", re.I)


def _items(sent: Span) -> list[Span]:
    """The sentence cut at the start of each "the/my <bill>" of a list."""
    out, start = [], 0
    for m in _ITEM_SPLIT.finditer(sent.text):
        out.append(Span(sent.start + start, sent.text[start : m.start()]))
        start = m.end()
    out.append(Span(sent.start + start, sent.text[start:]))
    return out


# "my wife also made a standing order": who made it and the making are no payee
_MADE = re.compile(r"\b(?:made|make|created|added|arranged|set)\b", re.I)
EVERY_NTH = re.compile(r"\b(?:every|each)\s+(\d{1,2})(?:st|nd|rd|th)\b", re.I)
_OWN_CLAUSE = re.compile(r"\s+(?:i|we)\s+(?:have|had|pay|put|set|made|make|keep)\b.*$", re.I)


def clean_payee(name: str) -> str:
    """A payee without the user's own clause or a preposition after it ("ZUS I have on" is
    "ZUS", "rent by standing order" is "rent")."""
    name = _OWN_CLAUSE.sub("", name).strip()
    return re.sub(r"\s+(?:by|via|with|through|thru|from|of)$", "", name, flags=re.I)  # "rent by"


def _payee(text: str, method: re.Match[str] | None) -> str | None:
    """Who a bill is paid to, as the item names it."""
    if method is not None and (m := _IN_METHOD.search(text)) and m.end() >= method.end() - 1:
        return m["p"]
    if method is not None and (m := _TO_PAYEE.match(text, method.start())):
        return m["p"]
    for m in _NAMED_METHOD.finditer(text) if method is not None else ():
        if m.end() >= method.end() - 1 and not re.search(r"\b(?:a|an|up)$", m["p"], re.I):
            return m["p"]
    if m := _SUBJECT.search(text):
        said = m["named"] or m["p"]
        # "Rent goes out ...": capitalised only as the sentence's first word
        return said.lower() if said[1:] == said[1:].lower() and " " not in said else said
    if m := _PAY_INTO.search(text):
        return m["p"]
    return None


def _someone_elses(text: str, payee: str) -> bool:
    """ "my sister's rent" is hers; "a standing order to my son" is the user's."""
    head = text[: text.find(payee)]
    return someone_else(head) or bool(re.search(r"['’]s\b", payee) and someone_else(head + payee))


def bill(ctx: Ctx, sent: Span, item: Span) -> dict[str, Any] | None:
    """The payment instruction one item states, or None."""
    text = item.text
    if _CHANGED.search(text):
        return None  # a moved, cancelled or replaced instruction is not a standing one as said
    method = _METHOD.search(text)
    period = next((name for rx, name in _PERIODS if rx.search(text)), None)
    if method is None and not (period and _I_PAY.search(text)):
        return None
    payee = _payee(text, method)
    if payee is not None:  # "for the rent as well": the bill, not the adverb
        payee = clean_payee(re.sub(r"\s+(?:as\s+well|too|also)$", "", payee, flags=re.I))
    if payee is None or payee.lower() in _NOT_PAYEES or _MADE.search(payee):
        return None
    if _someone_elses(text, payee) or HYPOTHETICAL.search(text) or UNCERTAIN.search(text):
        return None
    if is_question(text, sent.text):
        return None
    value: dict[str, Any] = {"payee": payee}
    if method is not None:
        value["method"] = method["m"].lower().replace(" ", "_")
    money = find_money(text) or (amounts(text) if method else [])
    if money:
        value["amount"] = money[0].amount
        if money[0].currency:
            value["currency"] = money[0].currency
    if period:
        value["period"] = period
    if (nth := _ON_NTH.search(text)) and 1 <= int(nth[1]) <= 31 and period in (None, "monthly"):
        value["day_of_month"] = int(nth[1])
    elif (nth := EVERY_NTH.search(text)) and 1 <= int(nth[1]) <= 31 and period in (None, "monthly"):
        value |= {"period": "monthly", "day_of_month": int(nth[1])}  # "1600 zł every 15th"
    if due := _NEXT_DUE.search(text):
        days = [
            d
            for d in dates_in(item, "future", ctx.today, ctx.anchor)
            if d.start >= item.start + due.end()
        ]
        if days and days[0].valid:
            value["next_date"] = days[0].date
    if (acct := _OUT_OF.search(text)) and acct["a"].lower() != payee.lower():
        value["account"] = acct["a"]
    _from_thread(ctx, text, value)
    if last := _LAST_PAYMENT.search(text):
        days = [d for d in dates_in(item, "future", ctx.today, ctx.anchor) if d.valid]
        after = [d for d in days if d.start >= item.start + last.end()]
        if after:
            value["ends_on"] = after[0].date
    return value


def _from_thread(ctx: Ctx, text: str, value: dict[str, Any]) -> None:
    """The account said as "that one" (the account just named), or left out after "too"
    (the account of the instruction just named)."""
    if "account" in value:
        return
    if _THAT_ACCOUNT.search(text) and (acct := ctx.thread.last("finance.bank_accounts")):
        value["account"] = acct.get("name") or acct.get("provider")
    elif (
        _TOO.search(text)
        and (earlier := ctx.thread.last("finance.scheduled_payments"))
        and earlier.get("account")
    ):
        value["account"] = earlier.get("account")


def rule_bills(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Every bill a sentence says is paid on a schedule, one record per item."""
    if not (_METHOD.search(sent.text) or _I_PAY.search(sent.text)):
        return
    for item in _items(sent):
        if (value := bill(ctx, sent, item)) is not None:
            ctx.add("finance.scheduled_payments", value, sent, 0.75)
