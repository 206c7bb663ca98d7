"""Payment arrangements, the one home of finance.scheduled_payments: bills paid on a schedule,
said item by item ("the gym direct debit comes out of Santander, £35 on the 5th", "the TV
licence I pay yearly, £174.50, next due 1 April"; a message listing several bills gives one
record each), standing orders and direct debits, a planned card payment.

A bill: named first (its noun phrase is the payee), then how it is paid (a method, or "I pay"
with a period); or a method with the payee inside it ("the Netflix direct debit"), or "I pay
£N into the X". Amount, period, day of month, next day and the account it comes out of are
read from the same item."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns.accounts import ACCOUNT, ACCOUNT_RE, kind_of
from uac.fact_log.extraction.patterns.text import (
    HYPOTHETICAL,
    UNCERTAIN,
    Ctx,
    Span,
    clause_money,
    clause_ok,
    clause_span,
    in_clause,
    is_question,
    someone_else,
    word_set,
)
from uac.fact_log.extraction.timemodel import MONTHS
from uac.fact_log.extraction.values.money import (
    Amount,
    Money,
    amount_at,
    amounts,
    find_money,
    put_amount,
)
from uac.fact_log.reference import vocabulary

# -- bills paid on a schedule, said item by item -------------------------------------------------
_BILL_METHOD = lazy(r"\b(?P<m>standing\s+order|direct\s+debit)s?\b", re.I)
_I_PAY = lazy(r"\b(?:i|we)\s+(?:now\s+|also\s+)?pay\b", re.I)
# (what says it, the period), from vocabulary.toml's [[bill_periods]], tried in order
_PERIODS = tuple(
    (lazy("".join(row["regex"]), re.I), row["value"]) for row in vocabulary()["bill_periods"]
)
# An item of a list of bills starts at a comma or "and" before "the/my/our".
_ITEM_SPLIT = lazy(r",\s*(?:and\s+)?(?=(?:the|my|our)\s)|\s+and\s+(?=(?:the|my|our)\s)", re.I)
_WORDS = r"[A-Za-z][\w&'’+-]*(?:\s+[A-Za-z][\w&'’+-]*){0,3}?"
# "the Netflix direct debit", "the gym standing order"
_IN_METHOD = lazy(
    # (not "the gym by direct debit": "by" says how, it names nothing)
    r"\b(?:the|my|our)\s+(?P<p>" + _WORDS + r")(?<!\bby)(?<!\bvia)(?<!\bwith)(?<!\bthrough)"
    r"\s+(?:direct\s+debit|standing\s+order)",
    re.I,
)
# "the council tax is", "the water rates I pay", "the EE bill which is",
# "the car insurance — Admiral — is" (the name between dashes is the payee)
_SUBJECT = lazy(
    r"(?:^|:\s*)(?:right,?\s+|ok,?\s+|so\s+)?(?:also\s+|and\s+|plus\s+)?(?:(?:the|my|our)\s+|(?!(?:his|her|their|its|it|this|that|which|there|what)\b)(?=[a-z]))(?P<p>"
    + _WORDS
    + r")"
    r"(?:\s*[—–-]\s*(?P<named>[A-Z][\w&'’]+(?:\s[A-Z][\w&'’]+)?)\s*[—–-])?\s*,?\s+"
    r"(?:is|are|which\s+is|that\s+is|(?:i|we)\s+pay|goes\s+out|comes\s+out|costs?)\b",
    re.I,
)
# "I pay £250 into the Vanguard pension", "we pay £40 to the window cleaner"
_PAY_INTO = lazy(
    r"\b(?:i|we)\s+pay\s+(?:[£$€]\s?[\d,.]+\s+|[\d,.]+\s+)?"
    r"(?:(?:a|per|every|each)\s+(?:month|week|year)\s+|monthly\s+)?"  # "£45 a month to the gym"
    r"(?:into|to|towards)\s+(?:the\s+|my\s+|our\s+)?"
    r"(?!every\b|each\b|a\s+month\b)(?P<p>" + _WORDS + r")"
    r"(?=\s+(?:every|each|on|by|from|monthly|yearly|a\s+month)\b|[,.;]|$)",
    re.I,
)
# "a standing order to Mum", "a direct debit for the gym"
_TO_PAYEE = lazy(
    r"(?:standing\s+order|direct\s+debit)s?\s+(?:to|for|with)\s+(?:the\s+|my\s+|our\s+)?"
    r"(?P<p>" + _WORDS + r")(?=\s+(?:on|from|every|each|of|for|by|monthly)\b|[,.;]|$)",
    re.I,
)
_BILL_ON_NTH = lazy(r"\bon\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\s+(?-i:[A-Z]))", re.I)
_NEXT_DUE = lazy(
    r"\b(?:next\s+(?:one\s+|payment\s+|bill\s+)?(?:is\s+)?due|next\s+payment|due)\b", re.I
)
_OUT_OF = lazy(
    r"\b(?:comes?\s+out\s+of|out\s+of|from|paid\s+from)\s+(?:the\s+|my\s+|our\s+)?"
    r"(?P<a>joint\s+account|savings\s+account|current\s+account|(?-i:[a-z]?[A-Z][\w&]+)(?:\s+(?:account|card))?|"
    # "out of my nationwide account": a bank typed in lower case, named by its account
    r"(?!(?:old|new|same|other|main|bank|that|this|one|it)\b)[a-z][\w&]{2,20}\s+(?:account|card))",
    re.I,
)
_CHANGED = lazy(
    r"\b(?:mov(?:ed|ing)|switch(?:ed|ing)|chang(?:ed|ing)|transferr(?:ed|ing)|cancel(?:led|ed|ling)?|"
    r"stopp?(?:ed|ing)?|replac(?:ed|ing)|clos(?:ed|ing))\b",
    re.I,
)
_NOT_PAYEES = frozenset(vocabulary()["word_sets"]["bills_not_payees"])
# "water bill: Thames Water direct debit, £38 ...", "gym direct debit is £32": the payee
# named right before the method, at the start of a clause
_NAMED_METHOD = lazy(
    r"(?:^|[:;]\s*)(?:(?:and|also|plus)\s+)?(?:(?:the|my|our)\s+)?"
    r"(?!(?:set|setting|cancel\w*|stop\w*|a|an)\b)(?P<p>"
    + _WORDS
    + r")\s+(?:direct\s+debit|standing\s+order)s?\b",
    re.I,
)
# "last payment 1 October", "the final one is on the 28th": the day it stops
_LAST_PAYMENT = lazy(
    r"\b(?:last|final)\s+(?:payment|one|debit|charge)\s+(?:is\s+|was\s+|will\s+be\s+)?(?:on\s+)?",
    re.I,
)
# "comes out of that one", "from the same account": the account the thread just named
_THAT_ACCOUNT = lazy(r"\b(?:out\s+of|from)\s+(?:that|this|the\s+same)\s+(?:one|account)\b", re.I)
_TOO = lazy(r"\b(?:too|as\s+well)\b", re.I)


def _items(sent: Span) -> list[Span]:
    """The sentence cut at the start of each "the/my <bill>" of a list."""
    out, start = [], 0
    for m in _ITEM_SPLIT.finditer(sent.text):
        out.append(Span(sent.start + start, sent.text[start : m.start()]))
        start = m.end()
    out.append(Span(sent.start + start, sent.text[start:]))
    return out


# "my wife also made a standing order": who made it and the making are no payee
_MADE = lazy(r"\b(?:made|make|created|added|arranged|set)\b", re.I)
EVERY_NTH = lazy(r"\b(?:every|each)\s+(\d{1,2})(?:st|nd|rd|th)\b", re.I)
_OWN_CLAUSE = lazy(r"\s+(?:i|we)\s+(?:have|had|pay|put|set|made|make|keep)\b.*$", re.I)


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
    method = _BILL_METHOD.search(text)
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
    if (
        (nth := _BILL_ON_NTH.search(text))
        and 1 <= int(nth[1]) <= 31
        and period in (None, "monthly")
    ):
        value |= {"period": "monthly", "day_of_month": int(nth[1])}  # a day of every month
    elif (nth := EVERY_NTH.search(text)) and 1 <= int(nth[1]) <= 31 and period in (None, "monthly"):
        value |= {"period": "monthly", "day_of_month": int(nth[1])}  # "1600 zł every 15th"
    if due := _NEXT_DUE.search(text):
        days = ctx.dates(item, after=due.end())
        if days and days[0].valid:
            value["next_date"] = days[0].date
    if (acct := _OUT_OF.search(text)) and acct["a"].lower() != payee.lower():
        value["account"] = acct["a"]
    _from_thread(ctx, text, value)
    if last := _LAST_PAYMENT.search(text):
        days = [d for d in ctx.dates(item) if d.valid]
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
    if not (_BILL_METHOD.search(sent.text) or _I_PAY.search(sent.text)):
        return
    for item in _items(sent):
        if (value := bill(ctx, sent, item)) is not None:
            ctx.add("finance.scheduled_payments", value, sent, 0.75)


# A payment instruction as people name it: in full, abbreviated ("DD", "SO"), or in the word
# of the writer's bank ("Dauerauftrag", "SEPA Lastschrift", "prélèvement")
_METHOD_WORDS = "|".join(
    (
        r"standing\s+order",
        r"direct\s+debit",
        "dauerauftrag",
        r"(?:sepa[\s-]+)?(?:lastschrift|direct\s+debit|mandate)",
        r"pr[ée]l[èe]vement",
        r"domiciliaci[oó]n",
        r"orden\s+permanente",
        r"virement\s+permanent",
    )
)
_ABBREVIATED = r"(?-i:DD|SO)"
_METHOD = lazy(
    # "DD"/"SO" only as a payment's word ("by SO", "a DD for", "set up a DD"): "I was SO tired"
    r"\b(?P<m>"
    + _METHOD_WORDS
    + r"|(?:(?<=by\s)|(?<=via\s)|(?<=a\s)|(?<=the\s))"
    + _ABBREVIATED
    + r"|"
    + _ABBREVIATED
    + r"(?=\s+(?:for|to|of|from|on|comes|goes|is|was|out|payment|mandate|"
    r"each|every|monthly)\b))\b",
    re.IGNORECASE,
)
# The same words in a payee cut out of its sentence ("council tax DD"): there the
# abbreviation needs no context (the payee is already known to be a payment's).
_METHOD_IN_PAYEE = lazy(r"\s*\b(?:" + _METHOD_WORDS + "|" + _ABBREVIATED + r")\b", re.I)
_METHODS = {"dd": "direct_debit", "so": "standing_order", "dauerauftrag": "standing_order"}
_METHODS |= dict.fromkeys(("orden permanente", "virement permanent"), "standing_order")
_MONTHLY = lazy(
    r"\b(?:on\s+)?the\s+(?P<day>\d{1,2}(?=st|nd|rd|th|\s+of\s+(?:every|each))|first|second|third|"
    r"fourth|fifth|last)"
    r"(?:st|nd|rd|th)?\s+(?:of\s+)?(?:every|each|the)\s+month\b|"
    r"\b(?P<monthly>monthly|every\s+month|each\s+month|a\s+month|per\s+month)\b",
    re.IGNORECASE,
)
_PAYEE_TO = lazy(
    r"\bto\s+(?P<payee>(?:the\s+)?[A-Za-z][A-Za-z'&-]*(?:\s+[A-Za-z][A-Za-z'&-]*){0,3}?)"
    r"(?=\s+(?:on|from|every|each|monthly|for|by)\b|[,.;!]|$)"
)
_PAYEE_FOR = lazy(
    r"\bfor\s+(?:the\s+|my\s+|our\s+)?(?:[£$€]\s?\d[\d,]*(?:\.\d\d)?\s+)?"  # "the £180 council tax"
    r"(?P<payee>(?-i:[^\W\dA-Z_])[\w'&-]*(?:\s+[a-z][\w'&-]*){0,2}?)"  # "crèche"
    r"(?=\s+(?:on|from|every|each|monthly|to|by|at)\b|[,.;!]|$)"
)
_PAYEE_SUBJECT = compile_kept(
    r"^(?:my\s+|the\s+|our\s+)?(?P<payee>[^\W\d_][^\W\d_ ]*(?:\s[^\W\d_]+){0,3}?)\s+"
    r"(?:of\s+\S+\s+)?(?:goes\s+out|go\s+out|is\s+paid|are\s+paid|gets\s+paid|comes\s+out|takes|"
    # "The crèche will be 620 € per month by prélèvement": what it will cost, and how
    r"collects|leaves|will\s+be(?=\s+[£$€]?\s?\d))\b",
    re.IGNORECASE,
)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH_NAMES = r"(?:" + "|".join(_MONTHS) + r")[a-z]*"
# "from Sparkasse", "out of my halifax account": the account paid from, named by its bank
_FROM_KIND = lazy(
    r"\b(?:from|out\s+of)\s+(?:the|my|our)\s+((?:joint|savings|current|business)\s+account)\b", re.I
)
_GENERIC_ACCOUNT = (
    r"(?!(?:current|savings|joint|bank|old|new|same|other|main)\b)"
    # "from October", "from Monday": a time, not an account
    r"(?!(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|(?:mon|tues|wednes|thurs|fri|"
    r"satur|sun)day|next|today|tomorrow)\b)"
)
_FROM_BANK = lazy(
    r"\b(?:from|out\s+of)\s+(?:my\s+|the\s+|our\s+|his\s+|her\s+|their\s+)?(?P<acct>"
    + _GENERIC_ACCOUNT
    + r"(?:"
    r"(?-i:[a-z]?[A-Z][A-Za-z0-9&]{1,20})(?:\s+(?:current\s+|savings\s+)?account)?|"  # "mBank"
    r"[a-z][a-z0-9&]{2,20}\s+(?:current\s+|savings\s+)?account)|"
    # "comes out of halifax on the 1st": a bank typed in lower case, where money leaves
    r"(?<=out\sof\s)[a-z][a-z0-9&]{2,20}(?=\s+(?:on|every|each)\b|\s*[,.]|\s*$))\b",
    re.IGNORECASE,
)
# "Frau Albers wants now SEPA Lastschrift": the payee asks for the instruction the user gives
_PAYEE_WANTS = lazy(
    r"^(?P<payee>(?:(?:Frau|Herr|Mr|Mrs|Ms|Dr)\.?\s+)?(?-i:[A-Z])[\w'-]+(?:\s(?-i:[A-Z])[\w'-]+)?)\s+"
    r"(?:now\s+)?(?:wants|asked\s+for|asks\s+for|needs|requires)\b",
    re.IGNORECASE,
)
_ON_NTH = lazy(r"\bon\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\s+[A-Z])", re.I)
_FIRST_PERSON = lazy(r"\b(?:i|i've|i'm|my|we|our)\b", re.IGNORECASE)
# A spouse's payment instruction for the household's bill is the household's arrangement (two
# instructions for one bill is the risk); anyone else's is their own business.
_OTHER_SETS_UP = lazy(
    r"^(?:(?:oops|oh|and|also|so|hmm|ugh)[,!]?\s+)?my\s+(?:partner|wife|husband)\s+"
    r"(?:also\s+|has\s+|just\s+)*(?:set\s+up|made|created|added|arranged)\b",
    re.I,
)


_ENDED = lazy(r"\b(?:cancel(?:led|ed|ling)?|stopp?(?:ed|ing)?|replaced?|closed)\b", re.I)


def _method(text: str) -> str:
    """The catalog's word for a payment instruction as said ("DD", "SEPA Lastschrift")."""
    key = " ".join(text.lower().split())
    if key in _METHODS:
        return _METHODS[key]
    return "standing_order" if "standing" in key else "direct_debit"


# "The old rent to Hausverwaltung Krämer (1.150) I must stop after August": a payment the
# user will end, said object first, and the month it ends with
_STOP_AFTER = lazy(
    r"^(?:the\s+|my\s+)?(?:old\s+|current\s+)?(?P<what>[a-z]+(?:\s[a-z]+)?)\s+to\s+"
    r"(?P<payee>(?:(?-i:[A-Z])[\w'’-]+\s?){1,3}?)\s*(?:\((?P<amt>[^)]{1,15})\))?\s*,?\s+"
    r"(?:i|we)\s+(?:must\s+|will\s+|'ll\s+|need\s+to\s+|have\s+to\s+|shall\s+|am\s+going\s+to\s+)?"
    r"(?:stop|cancel|end)(?:\s+it)?\s+(?:after|at\s+the\s+end\s+of)\s+(?P<month>"
    + _MONTH_NAMES
    + r")",
    re.I,
)


def _stopped_after(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A payment the user ends after a month; True when one was read."""
    m = _STOP_AFTER.match(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start):
        return False
    month = MONTHS[m["month"][:3].lower()]
    year = ctx.today.year + (1 if month < ctx.today.month else 0)
    last = dt.date(year, month, calendar.monthrange(year, month)[1])
    value: dict[str, Any] = {"payee": m["payee"].strip(), "ends_on": last}
    if m["amt"] and (said := amount_at(m.string, m.start("amt"), m.end("amt"))):
        put_amount(value, said[0])
    ctx.add("finance.scheduled_payments", value, sent, 0.7)
    return True


# "my SIP of 10k goes every month on 7th from ICICI savings", "Rent goes out on the 28th every
# month, 1,150": a monthly payment said without naming the instruction; what it pays is the
# user's ("my", "our") or a bill (vocabulary bill_payees), its period and day anywhere in its
# clause, its amount anywhere in the sentence or the clause after it (clause_money)
_GOES_MONTHLY = lazy(
    r"^(?:also\s+|and\s+)?(?P<my>(?:my|our)\s+)?(?P<payee>[A-Za-z][\w ]{1,25}?)\s+"
    r"(?:of\s+(?P<amt>\S+)\s+)?(?:goes(?:\s+out)?|is\s+paid|is\s+taken|comes\s+out)\b",
    re.I,
)
_EVERY_MONTH = lazy(r"\b(?:every|each)\s+month\b|\bmonthly\b", re.I)
_ON_DAY = lazy(r"\bon\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\b(?!\s+(?:of\s+)?(?-i:[A-Z]))", re.I)
_BILLS = frozenset(vocabulary()["word_sets"]["bill_payees"])


# money that comes in, and people: no payment the user makes
_NOT_PAID_OUT = frozenset(vocabulary()["word_sets"]["payments_not_paid_out"])


# "I send money to my mama every month 2,000 AED thru Western Union, every 25th", "I pay my
# cleaner 80 every month": a monthly payment the user makes to someone, no instruction named
_I_PAY_MONTHLY = lazy(
    r"^(?:(?:and|also|so)\s+)?i\s+(?:send|pay|transfer|wire|give)\s+(?:(?:some\s+)?money\s+)?"
    r"(?:to\s+)?(?:my\s+)?(?P<payee>[a-z][\w'-]{1,20}(?:\s(?-i:[A-Z])[\w'-]{1,20})?)\s+"
    r"(?:[£$€]?\s?\d[\d,.]*\s?(?:[A-Z]{3}|[£$€])?\s+)?(?:every|each|a|per)\s+month\b",
    re.I,
)
_VIA = lazy(
    r"\b(?:by|via|thru|through)\s+(?:bank\s+)?(?:transfer|western\s+union|wise|remitly)", re.I
)
_PRONOUNS = word_set("her him them it that this you me us")


def _i_pay_monthly(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A monthly payment the user says they make; True when one was read."""
    m = _I_PAY_MONTHLY.match(sent.text)
    said = m and find_money(sent.text)
    if m is None or not said or not clause_ok(parts, sent, sent.start):
        return False
    payee = m["payee"]
    if payee.lower() in _PRONOUNS or _NOT_PAID_OUT & {payee.lower()} - _RELATIVES:
        return False  # "I pay her ...": who is not said here
    value = put_amount({"payee": payee, "period": "monthly"}, said[0])
    if (nth := EVERY_NTH.search(sent.text) or _ON_NTH.search(sent.text)) and 1 <= int(nth[1]) <= 31:
        value["day_of_month"] = int(nth[1])
    if _VIA.search(sent.text):
        value["method"] = "transfer"
    if (acct := _FROM_BANK.search(sent.text, m.end())) is not None:
        value["account"] = acct["acct"]
    ctx.add("finance.scheduled_payments", value, sent, 0.7)
    return True


_RELATIVES = word_set("mum mom dad mother father brother sister son daughter wife husband partner")


def _goes_monthly(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A monthly payment with no instruction named; True when one was read."""
    m = _GOES_MONTHLY.match(sent.text)
    if m is None or (not m["my"] and m["payee"].lower() not in _BILLS):
        return False
    end = clause_span(sent.text, m.end())[1]
    if not _EVERY_MONTH.search(sent.text, m.end(), end):
        return False
    said = (
        amount_at(m.string, m.start("amt"), m.end("amt"))
        if m["amt"]
        else find_money(sent.text) or clause_money(sent.text, m.end())
    )
    if not said or not clause_ok(parts, sent, sent.start):
        return False
    if _NOT_PAID_OUT & set(m["payee"].lower().split()):
        return False  # "my pension ... is paid every month" comes in; "my son goes" is a person
    payee = m["payee"] if m["my"] else m["payee"].lower()  # "Rent goes out": a capital opens it
    value = put_amount({"payee": payee, "period": "monthly"}, said[0])
    nth = _ON_DAY.search(sent.text, m.end(), end) or EVERY_NTH.search(sent.text, m.end(), end)
    if nth and 1 <= int(nth[1]) <= 31:
        value["day_of_month"] = int(nth[1])
    if (acct := _FROM_BANK.search(sent.text, m.end())) is not None:
        value["account"] = acct["acct"]
    ctx.add("finance.scheduled_payments", value, sent, 0.7)
    return True


# "DDs on NatWest: council tax £186/month (1st); Thames Water £38 (20th).": instructions
# listed under a heading that names the method (and the account); each item a payee, its
# amount, its day in brackets. The items after a ";" are sentences of their own.
_LIST_HEAD = lazy(
    r"(?:^|(?<=[.\n]\s))(?:my\s+|our\s+)?(?P<m>(?-i:DDs|SOs)|direct\s+debits|standing\s+orders)"
    r"(?:\s+(?:on|from|out\s+of)\s+(?:the\s+|my\s+|our\s+)?(?P<acct>(?-i:[a-z]?[A-Z][\w&]{1,20})"
    r"(?:\s+(?:current\s+|savings\s+|joint\s+)?account)?))?\s*:\s*",
    re.I,
)
_LIST_ITEM = lazy(
    r"(?P<payee>[A-Za-z][\w'&]*(?:\s[A-Za-z][\w'&]*){0,3}?)\s+"
    r"(?P<amt>[£$€]\s?\d[\d,]*(?:\.\d\d)?|\d[\d,.]*\s?(?:[£$€]|[A-Z]{3}\b))"
    r"(?:\s*/\s*(?:month|mo)|\s+(?:a|per)\s+month|\s+monthly)?"
    r"(?:\s*\((?:on\s+)?(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)?\))?\s*[,.;]?\s*$"
)


def _instruction_list(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """An item of a list of payment instructions under its heading; True when one was read."""
    here = _LIST_HEAD.search(sent.text) if _LIST_WORD.search(sent.text) else None
    if here is not None:
        head, item = here, sent.text[here.end() :]
    else:  # an item after the heading's own, in the same line of the message (a list's
        # items follow it closely: the look back is bounded, so long messages stay linear)
        if (
            "(" not in sent.text
            and "£" not in sent.text
            and not any(ch.isdigit() for ch in sent.text)
        ):
            return False
        line = ctx.text[max(0, sent.start - _LIST_REACH) : sent.start]
        line = line[line.rfind("\n") + 1 :]
        if not _LIST_WORD.search(line):
            return False
        head = next(_LIST_HEAD.finditer(line), None)
        if head is None or re.search(r"[.!?]\s", line[head.end() :]):
            return False
        item = sent.text
    m = _LIST_ITEM.match(item)
    if m is None or not clause_ok(parts, sent, sent.start) or someone_else(sent.text):
        return False
    money = amount_at(m.string, m.start("amt"), m.end("amt"))
    if not money:
        return False
    value: dict[str, Any] = {"payee": m["payee"], "method": _method(head["m"].rstrip("sS"))}
    put_amount(value, money[0])
    if head["acct"]:
        value["account"] = head["acct"]
    if m["day"] and 1 <= int(m["day"]) <= 31:
        value |= {"period": "monthly", "day_of_month": int(m["day"])}
    ctx.add("finance.scheduled_payments", value, sent, 0.75)
    return True


_LIST_REACH = 400  # how far back a list item looks for its heading (characters)
_LIST_WORD = lazy(r"DDs|SOs|debits|orders", re.I)  # a cheap test before the heading


def rule_standing_orders(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Standing orders and direct debits ("rent of £1,200 goes out by standing order ...")."""
    here = ctx.out[ctx.here() :]
    if any(c.path == "finance.scheduled_payments" and c.start == sent.start for c in here):
        return  # the bills rule (bills.py) read this sentence already
    if _moved(ctx, sent, parts) or _stopped_after(ctx, sent, parts):
        return
    if _instruction_list(ctx, sent, parts):
        return
    m = _METHOD.search(sent.text)
    if m is None:
        _goes_monthly(ctx, sent, parts) or _i_pay_monthly(ctx, sent, parts)
        return
    # "Rent goes out on the 28th by standing order": a bill named first is the user's own.
    own = _FIRST_PERSON.search(sent.text) or (
        (bill := _PAYEE_SUBJECT.match(sent.text)) is not None
        and not re.match(r"(?:his|her|their|its)\b", bill["payee"], re.I)
    )
    if not own or _ENDED.search(sent.text):
        return  # a cancelled or replaced instruction is not a standing one
    if not _OTHER_SETS_UP.search(sent.text) and (
        not in_clause(m, parts, sent) or someone_else(sent.text[: m.start()])
    ):
        return  # "my sister's rent goes out by standing order": hers
    payee = (
        _PAYEE_TO.search(sent.text, m.end())
        or _PAYEE_WANTS.match(sent.text)  # "Frau Albers wants now SEPA Lastschrift"
        or _PAYEE_SUBJECT.search(sent.text)
        or _PAYEE_FOR.search(sent.text, m.end())  # "a standing order of £650 for rent"
        or _PAYEE_TO.search(sent.text)  # "rent 1.380 EUR to Frau Albers, I made Dauerauftrag"
    )
    if payee is None:
        return
    name = re.sub(r"^the\s+", "", payee["payee"].strip(), flags=re.IGNORECASE)
    name = _METHOD_IN_PAYEE.sub("", name).strip()  # "council tax DD": the payee is the tax
    name = clean_payee(name)  # "ZUS I have on standing order": the user's clause is no name
    # "to my landlady Frau Albers": the payee is the name, not the role before it
    name = re.sub(r"^(?:my|our)\s+[a-z]+\s+(?=(?-i:[A-Z]))", "", name, flags=re.I)
    if payee.re is _PAYEE_SUBJECT and payee.start("payee") == 0 and name[1:] == name[1:].lower():
        # "Rent of £1,200 goes out", "Council tax of £180 is paid": capitalised only as the
        # first word of the sentence ("British Gas is paid ..." keeps its name)
        name = name.lower()
    if name.lower() in ("me", "my account", "it"):
        return
    value: dict[str, Any] = {"payee": name, "method": _method(m["m"])}
    money: Sequence[Money | Amount] = find_money(sent.text) or clause_money(sent.text, m.start())
    if money:
        put_amount(value, money[0])
    acct = ACCOUNT_RE.search(sent.text) or _FROM_BANK.search(sent.text)
    if acct is not None:
        value["account"] = acct["acct"]
    elif (kind := _FROM_KIND.search(sent.text)) is not None:
        value["account"] = kind[1]  # "from the joint account": the account by its kind
    period = _MONTHLY.search(sent.text)
    if period is not None:
        value["period"] = "monthly"
        day = _ORDINALS.get((period["day"] or "").lower()) or (
            int(period["day"]) if period["day"] and period["day"].isdigit() else None
        )
        if day and 1 <= day <= 31:
            value["day_of_month"] = day
    elif (nth := _ON_NTH.search(sent.text)) is not None and 1 <= int(nth[1]) <= 31:
        value |= {"period": "monthly", "day_of_month": int(nth[1])}  # "goes out on the 28th"
    elif (nth := EVERY_NTH.search(sent.text)) is not None and 1 <= int(nth[1]) <= 31:
        value |= {"period": "monthly", "day_of_month": int(nth[1])}  # "1600 zł every 15th"
    ctx.add("finance.scheduled_payments", value, sent, 0.8)


# "Moved the gym direct debit to Monzo", "switched my rent standing order over to Starling":
# the instruction named before goes on from the new account and ends on the old one.
_MOVED = lazy(
    r"\b(?:moved|switched|changed|transferred)\s+(?:the|my|our)\s+(?P<payee>[\w' ]{2,30}?)\s+"
    r"(?P<m>direct\s+debit|standing\s+order)s?\s+(?:from\s+(?:my\s+|the\s+)?(?-i:[A-Z][A-Za-z&]{1,20})"
    r"(?:\s+account)?\s+)?(?:over\s+)?(?:to|onto)\s+(?:my\s+|the\s+|a\s+)?"
    r"(?P<new>(?-i:[A-Z][A-Za-z&]{1,20}))",
    re.IGNORECASE,
)


_OLD_ACCOUNT = lazy(
    r"\bfrom\s+(?:my\s+|the\s+)?(?P<bank>(?-i:[A-Z][A-Za-z&]{1,20}))\b|"
    r"\b(?:last|old)\s+(?P<bank2>(?-i:[A-Z][A-Za-z&]{1,20}))\s+(?:one|payment|debit)\b",
    re.IGNORECASE,
)


# "Council tax moved to Starling today": an instruction the thread knows, said by its payee
_PAYEE_MOVED = lazy(
    r"^(?:the\s+|my\s+|our\s+)?(?P<payee>[A-Za-z][\w' ]{1,30}?)\s+(?:(?:has|have|got|is|was)\s+)?"
    r"(?:(?:now|already|just)\s+)?(?:moved|switched|transferred)\s+(?:over\s+)?(?:to|onto)\s+"
    r"(?:my\s+|the\s+)?(?P<new>(?-i:[a-z]?[A-Z][A-Za-z&]{1,20}))",
    re.I,
)


def _known_instruction(ctx: Ctx, payee: str) -> Any:
    """The latest instruction the thread knows for a payee (said in other case), or None."""
    for x in reversed(ctx.thread.mentions):
        if x.kind == "finance.scheduled_payments" and str(x.get("payee") or "").lower() == payee:
            return x
    return None


def _moved(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """An instruction moved to another account; True when the sentence said one."""
    m = _MOVED.search(sent.text)
    if m is None and (said := _PAYEE_MOVED.match(sent.text)) is not None:
        known = _known_instruction(ctx, said["payee"].strip().lower())
        if known is None or not in_clause(said, parts, sent):
            return False  # a payee the thread has no instruction for: nothing to move
        new = {k: known.get(k) for k in ("payee", "method", "amount", "currency", "period")}
        new = {k: v for k, v in new.items() if v is not None}
        if (old := known.get("account")) and not str(old).lower().startswith(said["new"].lower()):
            ended = {k: new[k] for k in ("payee", "method") if k in new}  # as _MOVED ends it
            ctx.add(
                "finance.scheduled_payments",
                ended | {"account": old, "ends_on": ctx.today},
                sent,
                0.75,
            )
        ctx.add("finance.scheduled_payments", new | {"account": said["new"]}, sent, 0.75)
        return True
    if not in_clause(m, parts, sent):
        return False
    earlier = ctx.thread.last("finance.scheduled_payments")
    payee = m["payee"].strip()
    method = _method(m["m"])
    new = {"payee": payee, "method": method, "account": f"{m['new']} account"}
    old = None
    if earlier is not None and str(earlier.get("payee") or "").lower() == payee.lower():
        new |= {k: earlier.get(k) for k in ("amount", "currency", "period") if earlier.get(k)}
        old = earlier.get("account")
    if old is None and (said := _OLD_ACCOUNT.search(sent.text)) is not None:
        old = f"{said['bank'] or said['bank2']} account"  # "the last Halifax one was 1 March"
    if old and not str(old).lower().startswith(m["new"].lower()):
        days = [d for d in ctx.dates(sent, "past") if d.valid]
        # the last payment from the old account, said ("was 1 March"), else today
        last = days[-1].date if days and days[-1].date < ctx.today else ctx.today
        ended = {"payee": payee, "method": method, "account": old, "ends_on": last}
        ctx.add("finance.scheduled_payments", ended, sent, 0.75)
    ctx.add("finance.scheduled_payments", new, sent, 0.75)
    return True


_PLAN_CARD = lazy(
    r"\b(?:i(?:'m|\s+am)\s+(?:going\s+to\s+pay|about\s+to\s+pay|paying)|i(?:'ll|\s+will)\s+pay|"
    # "Next week I must pay the deposit ..., with the Revolut" (non-native, a duty)
    r"i\s+(?:must|have\s+to|need\s+to|will\s+have\s+to)\s+pay|"
    # "..., I pay it with the Swisscard" (non-native present for a plan)
    r"i\s+pay(?=\s+(?:it|this|that|them|on|by)\b)|"
    # "mexico city airbnb: $2,140 ..., paying it on the wise card on dec 1" (a note)
    r"(?:^|(?<=,\s))paying(?=\s+(?:it|this|that|them)\b))\s+"
    r"(?:the\s+|a\s+)?(?P<what>(?:[^.;]|(?<=\d)[,.](?=\d)){2,80}?)\s*,?\s+"
    r"(?:with|on|using|from)\s+(?:"
    + ACCOUNT
    + r"|(?i:the|my)\s+(?P<bank>(?-i:[A-Z][A-Za-z0-9&]{1,20}))\b"
    + r"|(?i:the|my)\s+(?P<bank2>[a-z][a-z0-9&]{1,20}\s+card)\b)",  # "on the wise card"
    re.IGNORECASE,
)


# "Retreat deposit: £1,450 to the travel agent on 3 March, Starling card.": a payment
# planned as a note: what, the amount, (whom), the day, the card
_PLAN_NOTE = lazy(
    r"^(?P<what>[A-Za-z][\w' -]{2,40}):\s*"
    r"(?P<amt>[£$€]\s?\d[\d,.]*|\d[\d,.' ]*\s?(?:[£$€]|[A-Z]{3}))"
    r"[^.;]{0,60}?,\s*(?:on\s+|with\s+|by\s+)?(?:the\s+|my\s+)?"
    r"(?P<card>[A-Za-z][\w&]{1,20}\s+card)\s*[.!]?$",
)


def _planned_note(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A planned payment written as a note; True when one was read."""
    m = _PLAN_NOTE.match(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start):
        return False
    money = amount_at(m.string, m.start("amt"), m.end("amt"), currency=True)
    dates = [d for d in ctx.dates(sent) if d.valid]
    if not money or len(dates) != 1 or someone_else(sent.text):
        return False
    value = {
        "payee": m["what"].strip(),
        "account": m["card"],
        "method": "card",
        "period": "once",
        "next_date": dates[0].date,
    }
    ctx.add("finance.scheduled_payments", put_amount(value, money[0]), sent, 0.75)
    return True


def rule_planned_card_payment(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A one-off payment the user plans with a named card or account, on a day."""
    m = _PLAN_CARD.search(sent.text)
    if m is None and _planned_note(ctx, sent, parts):
        return
    if not in_clause(m, parts, sent):
        return
    said, what_at, what = sent, m.start("what"), m["what"]
    bare = what.strip().lower() in ("it", "this", "that", "them") or _ONLY_WHEN.fullmatch(what)
    lead = _LEAD.match(sent.text[: m.start()]) if bare else None
    if lead is not None and find_money(lead["lead"]):
        # "The chalet in Verbier wants the 6'200 CHF on 1 April, I pay it with the Swisscard",
        # "Villa balance for Goa, 1,35,000 rupees, I will pay on 5th December from the HDFC
        # card": what is paid, and how much, open the sentence
        said, what_at, what = Span(sent.start, sent.text[: m.start()]), 0, lead["what"]
        money = find_money(lead["lead"])
        dates = [d for d in ctx.dates(sent) if d.valid]
        if dates:
            _add_planned(ctx, sent, m, what, money[0], dates[0].date)
        return
    if what.strip().lower() in ("it", "this", "that", "them"):
        # "The balance for Casa Vela, 1850 euro, is due 20 June. I'll pay it with the N26
        # card": what "it" is, its amount and day, are the sentence before
        before = ctx.text[: sent.start].rstrip()
        start = max(before.rfind(". "), before.rfind("\n")) + 1
        said = Span(start, before[start:].strip())
        due = re.match(r"\s*(?P<w>[^,]{2,60}?)\s*(?:,|\s+(?:is|are)\s+due\b)", said.text)
        if due is None:
            return
        what_at, what = 0, said.text[: due.end("w")]
    money = [
        x for x in find_money(said.text) if said is not sent or what_at <= x.start < m.end("what")
    ]
    dates = [d for d in ctx.dates(said) if d.valid]
    if not money or not dates:
        return
    if said is sent:
        what = what[: money[0].start - what_at] + what[money[0].end - what_at :]
    _add_planned(ctx, sent, m, what, money[0], dates[0].date)


# "on 5th December": a plan's object said as its day only
_ONLY_WHEN = lazy(r"\s*(?:on|by|before)\s+(?:the\s+)?\d[^,]*", re.I)
# what opens the sentence before the plan: "The chalet in Verbier wants the 6'200 CHF ...",
# "Villa balance for Goa, 1,35,000 rupees, ..."
_LEAD = lazy(
    r"^\s*(?P<lead>(?:the\s+|my\s+|our\s+)?(?P<what>[A-Za-z][^,]{1,40}?)"
    r"(?:\s+(?:wants|needs|asks\s+for|is|costs?)\b|\s*,)(?:[^.;]|(?<=\d)\.(?=\d))*?)\s*,?\s*$",
    re.I,
)
# "from the same card", "with that card": the card the thread just named
_SAME_CARD = lazy(r"^(?:same|that|this)\s+(?:card|account)$", re.I)


def _add_planned(ctx: Ctx, sent: Span, m: re.Match[str], what: str, money: Any, day: Any) -> None:
    """The planned payment: its payee from what is paid, its account as named or the card
    the thread named ("the same card")."""
    what = re.sub(r"\s*\([^)]*\)", "", what).strip(" ,")  # "Casa Vela (the villa)"
    what = re.sub(r"\s*:.*$", "", what)  # "mexico city airbnb: $2,140 ...": what is paid
    what = re.sub(r",.*$|\s+(?:on|by|due)\s+(?:the\s+)?\d.*$", "", what)  # not its day
    head, _, tail = f" {what}".partition(" for ")  # "the deposit for the car": the car deposit
    words = f"{tail} {head}" if tail else head
    payee = " ".join(w for w in words.split() if w.lower() not in ("the", "a", "my", "our"))
    payee = re.sub(r"\s+of$", "", payee)  # "the villa deposit of €2,000": the villa deposit
    if not payee:
        return
    account = m["acct"] or m["bank"] or m["bank2"]  # "with the Swisscard": as named
    if _SAME_CARD.match(account) and (card := ctx.thread.last("finance.bank_accounts")):
        account = str(card.get("name") or f"{card.get('provider')} card")
    elif m["bank"]:  # "with the Swisscard": the card the thread knows by that issuer
        known = [
            x
            for x in ctx.thread.mentions
            if x.kind == "finance.bank_accounts"
            and str(x.get("provider") or "").lower() == m["bank"].lower()
            and x.get("name")
        ]
        if known:
            account = str(known[-1].get("name"))
    value = {
        "payee": payee,
        "amount": money.amount,
        "currency": money.currency,
        "account": account,
        "method": "card" if kind_of(account).endswith("card") else "transfer",
        "period": "once",
        "next_date": day,
    }
    ctx.add("finance.scheduled_payments", value, sent, 0.8)
