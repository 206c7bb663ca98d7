"""Budget patterns: spending limits per category and period ("max £250 a month on eating
out", a list under "my budgets for this year:", "and fifty a week on takeaways" after one),
per-payment caps; the period parser the other money rules share. The one home of
finance.budgets."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    HYPOTHETICAL,
    NEGATION,
    Ctx,
    Span,
    clause_of,
    clause_ok,
    guarded,
)
from uac.fact_log.extraction.values.money import amount_at, amounts, words_to_number
from uac.fact_log.reference import vocabulary

PERIOD = lazy(
    r"(?:\b(?:a|per|each|every|for\s+the)\s+|/\s?)(week|wk|month|mo|quarter|year|yr|annum)\b|"
    r"\b(weekly|monthly|quarterly|yearly|annually|annual)\b|每(周|月|年)",
    re.IGNORECASE,
)
BUDGET = lazy(
    r"\bbudget\b|预算",
    re.IGNORECASE,
)
_BUDGET_CAT_BEFORE = lazy(
    r"(?:\bmy|\bour|\bthe|\ba|\bset\s+(?:a|my|the))?\s*(?:(?:new|monthly|weekly|yearly|annual|"
    r"total)\s+)?([a-z][a-z&-]{2,20}(?:\s+[a-z][a-z&-]{2,20})?)\s+budget\b",
    re.IGNORECASE,
)
_BUDGET_CAT_AFTER = lazy(
    r"\b(?:for|on)\s+(?:the\s+|my\s+)?([a-z][a-z&-]{2,20}(?:\s+(?:and\s+)?[a-z][a-z&-]{2,20})?)",
    re.IGNORECASE,
)
# "setting a budget: eating out max £250 a month", "new budget - petrol 60 a week"
_BUDGET_CAT_COLON = lazy(
    r"\bbudgets?\s*[:–—-]\s*(?P<cat>[a-z][a-z&-]{2,20}"
    r"(?:\s+(?!max|maximum|up|limit|of|is|at)[a-z][a-z&-]{2,20})?)\s+"
    r"(?:max(?:imum)?\s+|up\s+to\s+|limit\s+|of\s+|is\s+|at\s+)?(?=[£$€]?\s?\d)",
    re.IGNORECASE,
)
_SPEND_LIMIT = lazy(
    r"\b(?:spend|spending)\s+(?:no\s+more\s+than|at\s+most|up\s+to|less\s+than|under|below|"
    r"max(?:imum)?(?:\s+of)?)\b|"
    # "new rule: max £200 a month on eating out"
    r"(?:^|:\s*)max(?:imum)?\s+(?=[£$€]?\s?\d)|"
    # "I want no more than two hundred dollars a month on ...", "I want maximum 300€ per
    # month for ...", "allow myself at most £50 a week for ...": a limit the user sets
    r"\b(?:i\s+|we\s+)?(?:want|allow\s+(?:myself|ourselves|us)|give\s+(?:myself|ourselves))\s+"
    r"(?:no\s+more\s+than|at\s+most|max(?:imum)?(?:\s+of)?|up\s+to)\s+(?=[£$€]?\s?\d|[a-z]+\s)",
    re.IGNORECASE,
)
_WANT = lazy(
    r"\b(?:i\s+)?(?:want|need|would\s+like|'d\s+like)\s+to\b|\bno(?:t)?\s+more\s+than\b",
    re.IGNORECASE,
)
_CATEGORY_JUNK = frozenset(vocabulary()["word_sets"]["budgets_category_junk"])


def period_of(text: str, kind: str) -> str | None:
    m = PERIOD.search(text)
    if m is None:
        return None
    word = (m[1] or m[2] or m[3] or "").lower()
    norm = {
        "week": "week",
        "wk": "week",
        "weekly": "week",
        "周": "week",
        "month": "month",
        "mo": "month",
        "monthly": "month",
        "月": "month",
        "quarter": "quarter",
        "quarterly": "quarter",
        "year": "year",
        "yr": "year",
        "annum": "year",
        "yearly": "year",
        "annually": "year",
        "annual": "year",
        "年": "year",
    }[word]
    if kind == "subscription":
        return {"week": "weekly", "month": "monthly", "quarter": "quarterly", "year": "yearly"}[
            norm
        ]
    return None if norm == "quarter" else norm


# "and forty a week for petrol", right after a budget: another one, in the same currency
_ANOTHER_BUDGET = lazy(
    r"^(?:and|plus|also|then)\s+(?P<amt>[£$€]?\s?\d[\d,.]*|[a-z]+(?:[\s-][a-z]+){0,3}?)\s+"
    r"(?:a|per|each|every)\s+(?P<per>week|month|year)\s+(?:on|for)\s+(?:the\s+|my\s+)?"
    r"(?P<cat>[a-z][a-z&-]{2,20}(?:\s+[a-z][a-z&-]{2,20})?)\s*[.!]?$",
    re.IGNORECASE,
)


def another(
    ctx: Ctx, sent: Span, parts: list[Span], said: re.Pattern[str], path: str
) -> tuple[re.Match[str], Any] | None:
    """A sentence that says another one of what the thread just named ("and fifty a week on
    takeaways" after a budget): its match and that earlier record, or None."""
    m = said.match(sent.text)
    earlier = ctx.thread.last(path)
    if m is None or earlier is None or not clause_ok(parts, sent, sent.start):
        return None
    return m, earlier


def carry_currency(value: dict[str, Any], said: str | None, earlier: Any) -> None:
    """The currency said, or else the earlier record's (an elliptic "and 12 at Greggs")."""
    if currency := said or earlier.get("currency"):
        value["currency"] = currency


def _another_budget(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A budget said elliptically after one ("and fifty a week on takeaways")."""
    if (found := another(ctx, sent, parts, _ANOTHER_BUDGET, "finance.budgets")) is None:
        return
    m, earlier = found
    said = amount_at(m.string, m.start("amt"), m.end("amt"))
    number = said[0].amount if said else words_to_number(m["amt"])
    if not number:
        return
    value: dict[str, Any] = {
        "category": _category(m["cat"]),
        "limit": Decimal(number),
        "period": m["per"].lower(),
    }
    carry_currency(value, said[0].currency if said else None, earlier)
    ctx.add("finance.budgets", value, sent, 0.75)


# A line of a list under a heading that names budgets ("my budgets for this year:" then
# "- groceries 400/month", "* petrol 60 a week", "clothes £600 for the year")
_LISTED_BUDGET = lazy(
    r"^(?:[-*•·]\s*|\d[.)]\s*)?(?P<cat>[a-z][a-z&-]{2,20}(?:\s+[a-z][a-z&-]{2,20})?)\s*[:-]?\s*"
    r"(?P<amt>[£$€]?\s?\d[\d,.]*\s*(?:[£$€]|euros?|pounds?|quid|dollars?|eur|gbp|usd)?)\s*"
    r"(?:/\s?|(?:a|per|each|every|for\s+the)\s+)(?P<per>week|wk|month|mo|year|yr)\s*[.!]?$",
    re.IGNORECASE,
)
_BUDGET_HEADING = lazy(r"\bbudgets?\b[^\n]*:\s*$", re.IGNORECASE)


def _listed_budget(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A budget given as a line of a list whose heading names budgets."""
    m = _LISTED_BUDGET.match(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start):
        return
    heading = ctx.text[: sent.start].rstrip().rsplit("\n\n", 1)[-1].split("\n", 1)[0]
    said = amount_at(m.string, m.start("amt"), m.end("amt"))
    if not _BUDGET_HEADING.search(heading) or not said:
        return
    per = period_of(m[0], "budget")  # "/month", "a week", "for the year"
    if per is None:
        return
    value: dict[str, Any] = {
        "category": _category(m["cat"]),
        "limit": said[0].amount,
        "period": per,
    }
    if said[0].currency:
        value["currency"] = said[0].currency
    ctx.add("finance.budgets", value, sent, 0.75)


def rule_budgets(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Spending limits per category and period."""
    kw = BUDGET.search(sent.text) or _SPEND_LIMIT.search(sent.text)
    if kw is None:
        _another_budget(ctx, sent, parts)
        _listed_budget(ctx, sent, parts)
        return
    # "I want to spend no more than $80 a week" states a limit, not a wish or a negation:
    # only here do "want to" and "no more than" not silence a clause.
    at = kw.start() + (kw[0].lower().find("max") if kw[0].startswith(":") else 0)  # past ":"
    clause = clause_of(parts, sent.start + at)
    if clause is None or guarded(_WANT.sub("", clause.text), sentence=sent.text):
        return
    money = amounts(sent.text)  # "budget for household stuff is 250": the currency is implied
    period = period_of(sent.text, "budget")
    if not money or period is None:
        return
    category = None
    if (colon := _BUDGET_CAT_COLON.search(sent.text)) is not None:
        category = colon["cat"].lower()
    elif (before := _BUDGET_CAT_BEFORE.search(sent.text)) is not None:
        words = [w for w in before[1].lower().split() if w not in _CATEGORY_JUNK]
        category = " ".join(words) or None
    if category is None:
        after = _BUDGET_CAT_AFTER.search(sent.text, kw.end())
        if after is not None:
            words = [w for w in after[1].lower().split() if w not in _CATEGORY_JUNK]
            category = " ".join(words) or None
    if category is None or category in ("week", "month", "year"):
        return
    value = {"category": _category(category), "limit": money[0].amount, "period": period}
    if money[0].currency:
        value["currency"] = money[0].currency
    ctx.add("finance.budgets", value, sent, 0.85)


def _category(text: str) -> str:
    """A spending category as said, without filler ("household stuff" is "household")."""
    return re.sub(r"\s+(?:stuff|things|spending)$", "", text.lower())


_KEEP_UNDER = lazy(
    r"(?:^(?:and\s+)?|\bkeep\s+)"
    r"(?P<cat>[a-z]{3,15}(?:\s[a-z]{3,15})?)\s+(?:spending\s+)?(?:under|below)\s+"
    r"(?P<amount>[£$€]?\s?\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?\s?(?:[£$€]|euros?|pounds?|dollars?)?)",
    re.I,
)


def rule_spending_caps(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "I want to keep groceries under €400 a month", then "And eating out under 150"."""
    m = _KEEP_UNDER.search(sent.text)
    if m is None or m["cat"].lower().split()[0] in _CATEGORY_JUNK | {"it", "that", "this"}:
        return
    if not re.search(r"\bkeep\b", sent.text, re.I) and ctx.thread.last("finance.budgets") is None:
        return  # "X under 150" is a cap only as a follow-up of one
    if HYPOTHETICAL.search(sent.text) or NEGATION.search(sent.text[: m.start("amount")]):
        return
    money = amount_at(m.string, m.start("amount"), m.end("amount"))
    earlier = ctx.thread.last("finance.budgets")
    period = period_of(sent.text, "budget") or (earlier.get("period") if earlier else None)
    if not money or period is None:
        return
    value = {"category": _category(m["cat"]), "limit": money[0].amount, "period": period}
    currency = money[0].currency or (earlier.get("currency") if earlier else None)
    if currency:
        value["currency"] = currency
    ctx.add("finance.budgets", value, sent, 0.8)
