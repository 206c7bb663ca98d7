"""Payment arrangement patterns: standing orders and direct debits, a planned card payment, a
card's per-payment limit, an account being closed, a promotional rate that ends."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

from uac.fact_log.extraction.patterns.bills import rule_bills
from uac.fact_log.extraction.patterns.health import last_such_day
from uac.fact_log.extraction.patterns.money import amounts, find_money
from uac.fact_log.extraction.patterns.text import (
    NOT_NAMES,
    Ctx,
    Rule,
    Span,
    clause_ok,
    dates_in,
    someone_else,
    word_set,
)

# A card named by its brand alone ("my Amex") is a card; "my Visa" is left out (a travel visa).
_CARD_BRAND = r"(?-i:Amex|American\s+Express|Barclaycard)(?!\s+(?:card|account))"
_ACCOUNT = (
    # "my N26 card": a bank's name may hold digits
    r"(?i:my|the|our)\s+(?P<acct>" + _CARD_BRAND + r"|[A-Z][A-Za-z0-9&]{1,20}"
    r"(?:\s+[A-Z][A-Za-z&]{1,20})?\s+(?:current\s+|savings\s+|joint\s+|credit\s+|debit\s+)?(?:account|card))"
)
_ACCOUNT_RE = re.compile(_ACCOUNT)
_METHOD = re.compile(r"\b(?P<m>standing\s+order|direct\s+debit)\b", re.IGNORECASE)
_MONTHLY = re.compile(
    r"\b(?:on\s+)?the\s+(?P<day>\d{1,2})(?:st|nd|rd|th)\s+(?:of\s+)?(?:every|each)\s+month\b|"
    r"\b(?P<monthly>monthly|every\s+month|each\s+month|a\s+month)\b",
    re.IGNORECASE,
)
_PAYEE_TO = re.compile(
    r"\bto\s+(?P<payee>(?:the\s+)?[A-Za-z][A-Za-z'&-]*(?:\s+[A-Za-z][A-Za-z'&-]*){0,3}?)"
    r"(?=\s+(?:on|from|every|each|monthly|for|by)\b|[,.;!]|$)"
)
_PAYEE_FOR = re.compile(
    r"\bfor\s+(?:the\s+|my\s+|our\s+)?(?:[£$€]\s?\d[\d,]*(?:\.\d\d)?\s+)?"  # "the £180 council tax"
    r"(?P<payee>[a-z][a-z'&-]*(?:\s+[a-z][a-z'&-]*){0,2}?)"
    r"(?=\s+(?:on|from|every|each|monthly|to|by|at)\b|[,.;!]|$)"
)
_PAYEE_SUBJECT = re.compile(
    r"^(?:my\s+|the\s+|our\s+)?(?P<payee>[A-Za-z][A-Za-z ]{1,30}?)\s+(?:of\s+\S+\s+)?"
    r"(?:goes\s+out|go\s+out|is\s+paid|are\s+paid|gets\s+paid|comes\s+out|takes|collects|"
    r"leaves)\b",
    re.IGNORECASE,
)
_ON_NTH = re.compile(r"\bon\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\s+[A-Z])", re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|i've|i'm|my|we|our)\b", re.IGNORECASE)
# A spouse's payment instruction for the household's bill is the household's arrangement (two
# instructions for one bill is the risk); anyone else's is their own business.
_OTHER_SETS_UP = re.compile(r"^(?:my\s+(?:partner|wife|husband)\s+(?:also\s+)?set\s+up)", re.I)


_ENDED = re.compile(r"\b(?:cancel(?:led|ed|ling)?|stopp?(?:ed|ing)?|replaced?|closed)\b", re.I)


def _method(text: str) -> str:
    return text.lower().replace(" ", "_")


def rule_standing_orders(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Standing orders and direct debits ("rent of £1,200 goes out by standing order ...")."""
    if any(c.path == "finance.scheduled_payments" and c.start == sent.start for c in ctx.out):
        return  # the bills rule (bills.py) read this sentence already
    if _moved(ctx, sent, parts):
        return
    m = _METHOD.search(sent.text)
    # "Rent goes out on the 28th by standing order": a bill named first is the user's own.
    own = _FIRST_PERSON.search(sent.text) or (
        (bill := _PAYEE_SUBJECT.match(sent.text)) is not None
        and bill.start("payee") == 0
        and not re.match(r"(?:his|her|their|its)\b", bill["payee"], re.I)
    )
    if m is None or not own or _ENDED.search(sent.text):
        return  # a cancelled or replaced instruction is not a standing one
    if not _OTHER_SETS_UP.search(sent.text) and (
        not clause_ok(parts, sent, sent.start + m.start()) or someone_else(sent.text[: m.start()])
    ):
        return  # "my sister's rent goes out by standing order": hers
    payee = (
        _PAYEE_TO.search(sent.text, m.end())
        or _PAYEE_SUBJECT.search(sent.text)
        or _PAYEE_FOR.search(sent.text, m.end())  # "a standing order of £650 for rent"
    )
    if payee is None:
        return
    name = re.sub(r"^the\s+", "", payee["payee"].strip(), flags=re.IGNORECASE)
    if payee.re is _PAYEE_SUBJECT and payee.start("payee") == 0 and name[1:] == name[1:].lower():
        # "Rent of £1,200 goes out", "Council tax of £180 is paid": capitalised only as the
        # first word of the sentence ("British Gas is paid ..." keeps its name)
        name = name.lower()
    if name.lower() in ("me", "my account", "it"):
        return
    value: dict[str, Any] = {"payee": name, "method": _method(m["m"])}
    money = find_money(sent.text)
    if money:
        value["amount"], value["currency"] = money[0].amount, money[0].currency
    acct = _ACCOUNT_RE.search(sent.text)
    if acct is not None:
        value["account"] = acct["acct"]
    period = _MONTHLY.search(sent.text)
    if period is not None:
        value["period"] = "monthly"
        if period["day"] and 1 <= int(period["day"]) <= 31:
            value["day_of_month"] = int(period["day"])
    elif (nth := _ON_NTH.search(sent.text)) is not None and 1 <= int(nth[1]) <= 31:
        value["day_of_month"] = int(nth[1])  # "goes out on the 28th": a day of every month
    ctx.add("finance.scheduled_payments", value, sent, 0.8)


# "Moved the gym direct debit to Monzo", "switched my rent standing order over to Starling":
# the instruction named before goes on from the new account and ends on the old one.
_MOVED = re.compile(
    r"\b(?:moved|switched|changed|transferred)\s+(?:the|my|our)\s+(?P<payee>[\w' ]{2,30}?)\s+"
    r"(?P<m>direct\s+debit|standing\s+order)s?\s+(?:from\s+(?:my\s+|the\s+)?(?-i:[A-Z][A-Za-z&]{1,20})"
    r"(?:\s+account)?\s+)?(?:over\s+)?(?:to|onto)\s+(?:my\s+|the\s+|a\s+)?"
    r"(?P<new>(?-i:[A-Z][A-Za-z&]{1,20}))",
    re.IGNORECASE,
)


_OLD_ACCOUNT = re.compile(
    r"\bfrom\s+(?:my\s+|the\s+)?(?P<bank>(?-i:[A-Z][A-Za-z&]{1,20}))\b|"
    r"\b(?:last|old)\s+(?P<bank2>(?-i:[A-Z][A-Za-z&]{1,20}))\s+(?:one|payment|debit)\b",
    re.IGNORECASE,
)


def _moved(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """An instruction moved to another account; True when the sentence said one."""
    m = _MOVED.search(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start + m.start()):
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
        days = [d for d in dates_in(sent, "past", ctx.today, ctx.anchor) if d.valid]
        # the last payment from the old account, said ("was 1 March"), else today
        last = days[-1].date if days and days[-1].date < ctx.today else ctx.today
        ended = {"payee": payee, "method": method, "account": old, "ends_on": last}
        ctx.add("finance.scheduled_payments", ended, sent, 0.75)
    ctx.add("finance.scheduled_payments", new, sent, 0.75)
    return True


_PLAN_CARD = re.compile(
    r"\b(?:i(?:'m|\s+am)\s+(?:going\s+to\s+pay|about\s+to\s+pay|paying)|i(?:'ll|\s+will)\s+pay|"
    # "Next week I must pay the deposit ..., with the Revolut" (non-native, a duty)
    r"i\s+(?:must|have\s+to|need\s+to|will\s+have\s+to)\s+pay)\s+"
    r"(?:the\s+|a\s+)?(?P<what>(?:[^.;]|(?<=\d)[,.](?=\d)){2,80}?)\s*,?\s+"
    r"(?:with|on|using|from)\s+(?:"
    + _ACCOUNT
    + r"|(?i:the|my)\s+(?P<bank>(?-i:[A-Z][A-Za-z0-9&]{1,20}))\b)",
    re.IGNORECASE,
)


def rule_planned_card_payment(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A one-off payment the user plans with a named card or account, on a day."""
    m = _PLAN_CARD.search(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start + m.start()):
        return
    said, what_at, what = sent, m.start("what"), m["what"]
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
    dates = [d for d in dates_in(said, "future", ctx.today, ctx.anchor) if d.valid]
    if not money or not dates:
        return
    if said is sent:
        what = what[: money[0].start - what_at] + what[money[0].end - what_at :]
    what = re.sub(r"\s*\([^)]*\)", "", what).strip(" ,")  # "Casa Vela (the villa)"
    what = re.sub(r",.*$|\s+(?:on|by|due)\s+(?:the\s+)?\d.*$", "", what)  # not its day
    head, _, tail = f" {what}".partition(" for ")  # "the deposit for the car": the car deposit
    words = f"{tail} {head}" if tail else head
    payee = " ".join(w for w in words.split() if w.lower() not in ("the", "a", "my", "our"))
    payee = re.sub(r"\s+of$", "", payee)  # "the villa deposit of €2,000": the villa deposit
    if not payee:
        return
    account = m["acct"] or f"{m['bank']} account"
    value = {
        "payee": payee,
        "amount": money[0].amount,
        "currency": money[0].currency,
        "account": account,
        "method": "card" if _kind(account).endswith("card") else "transfer",
        "period": "once",
        "next_date": dates[0].date,
    }
    ctx.add("finance.scheduled_payments", value, sent, 0.8)


_PER_PAYMENT = re.compile(
    r"\b(?:a\s+)?(?P<amt>\S+)\s+limit\s+(?:per|on\s+each|for\s+each|on\s+any\s+single)\s+"
    r"(?:transaction|payment|purchase)\b|\bper[- ](?:transaction|payment)\s+limit\s+(?:of|is)\s+"
    r"(?P<amt2>\S+)|\blimit\s+of\s+(?P<amt3>\S+)(?:\s+(?:euros?|pounds?|dollars?|quid|eur|gbp|usd))?\s+"
    r"(?:per|a|each|for\s+each|on\s+each|on\s+any)\s+"
    r"(?:single\s+)?(?:transaction|payment|purchase)\b|"
    # "a 1000 EUR per-payment limit"
    r"\b(?:a\s+)?(?P<amt4>[£$€]?\d[\d,.]*)\s*(?:[A-Z]{3}\s+)?per[- ]"
    r"(?:transaction|payment|purchase)\s+limit\b",
    re.IGNORECASE,
)
_HOLDER = re.compile(
    r"^\s*(?:and\s+|also\s+|but\s+)?" + _ACCOUNT + r"\s+(?:has|have|comes\s+with|only\s+allows|'s|"
    r"(?:only\s+)?(?:lets|allows)|won't|will\s+not|doesn't|does\s+not|can't|cannot)\b"
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
    + _ACCOUNT
    + r"|"
    r"\b" + _ACCOUNT.replace("acct", "acct2") + r"\s+(?:closes|is\s+closing|will\s+close|"
    r"is\s+being\s+closed)\b|"
    # "the old one with NatWest closes on 30 September"
    r"\b(?:my|the|our)\s+(?:old\s+)?(?:one|account|bank\s+account)\s+(?:with|at)\s+"
    r"(?P<acct3>(?-i:[A-Z][A-Za-z&]{1,20}))\s+(?:closes|is\s+closing|will\s+close|"
    r"is\s+being\s+closed|shuts)\b",
    re.IGNORECASE,
)


def _kind(name: str) -> str:
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
    limit = _PER_PAYMENT.search(sent.text) or _CAPPED.search(sent.text)
    holder = _HOLDER.search(sent.text)
    if limit is not None and holder is not None:
        money = find_money(sent.text) or amounts(sent.text[limit.start() :])
        if money and clause_ok(parts, sent, sent.start + holder.end("acct")):
            value = {
                "name": holder["acct"],
                "provider": _provider(holder["acct"]),
                "kind": _kind(holder["acct"]),
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
    name = close["acct"] or close["acct2"] or f"{close['acct3']} account"
    dates = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid]
    when = dates[0].date if dates else None
    if when is None:
        return
    value = {"name": name, "provider": _provider(name), "kind": _kind(name), "closing_on": when}
    ctx.add("finance.bank_accounts", value, sent, 0.8)


_PRICE = r"[£$€]\s?\d[\d,]*(?:\.\d\d)?(?:\s+(?:a|per|each)\s+(?:month|year))?"
# "..., then it goes up to £45", "after that it's £30", "then it rises to £110 a month"
_THEN = re.compile(
    r"\b(?:then|after\s+that|afterwards|from\s+then\s+on)\s*,?\s*(?:it\s*(?:'s|'ll\s+be|\s+is|"
    r"\s+will\s+be|\s+goes\s+up\s+to|\s+rises\s+to|\s+jumps\s+to|\s+reverts\s+to|\s+becomes)\s+)?"
    r"(?:up\s+to\s+)?(?P<then>" + _PRICE + r")",
    re.IGNORECASE,
)
_PROMO = re.compile(
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
_OFFER = re.compile(
    r"(?:(?P<prov>"
    + _PROVIDER
    + r")(?:'s|’s)?(?:\s+card)?:?\s+)?(?P<name>\d{1,2}(?:\.\d{1,2})?%(?:\s+(?:balance\s+"
    r"transfers?|purchases?|interest(?:-free)?|intro(?:ductory)?\s+rate|deal|offer))?(?:\s+(?:on|for)\s+"
    r"(?:purchases|balance\s+transfers?|spending|everything|money\s+transfers?))?|(?:[a-z]{3,15}\s+)?"
    r"(?:deal|discount|offer|tariff|intro\s+rate|introductory\s+rate|promo(?:tional)?\s+rate))"
    r"(?:\s+(?:with|from|on)\s+(?:my\s+|the\s+)?(?P<prov2>" + _PROVIDER + r")(?:\s+card)?)?\s+"
    r"(?:ends|expires|finishes|runs\s+out|until|till|til|lasts\s+until|is\s+over)\b",
    re.IGNORECASE,
)
_THEN_ANY = re.compile(r"\b(?:then|after\s+that|afterwards)\b", re.I)
_RATE = re.compile(r"\d{1,2}(?:\.\d{1,2})?%")


def _offer(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A promotion said plainly, and what applies after it."""
    m = _OFFER.search(sent.text)
    provider = m and (m["prov"] or m["prov2"])
    if m is None or not provider or provider.split()[0] in NOT_NAMES:
        return
    if not clause_ok(parts, sent, sent.start + m.start()) or someone_else(sent.text[: m.start()]):
        return
    later = [
        d
        for d in dates_in(sent, "future", ctx.today, ctx.anchor)
        if d.valid and d.start >= sent.start + m.end() - 8
    ]
    if not later:
        return
    value: dict[str, Any] = {
        "name": " ".join(m["name"].split()),
        "provider": provider,
        "ends_on": later[0].date,
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


def rule_promotions(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A promotional rate or price that ends on a day ("my 0% intro rate ... ends on 1 March")."""
    m = _PROMO.search(sent.text)
    if m is None:
        _offer(ctx, sent, parts)
        _then_after(ctx, sent, parts)
        return
    if not clause_ok(parts, sent, sent.start + m.start()):
        return
    dates = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid]
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


_MERCHANT_NAME = r"(?P<merchant>(?-i:[A-Z][\w.&'-]{1,20}\+?(?:\s[A-Z][\w.&'+-]{1,20}){0,2}))"
_CHARGED = re.compile(
    r"(?:\bi\s+(?:was|got|have\s+been|'ve\s+been|just\s+got)|^(?:just\s+)?got)\s+(?:just\s+)?"
    r"charged\s+(?P<amt>\S+)\s+by\s+" + _MERCHANT_NAME + "|"
    # at the start or after a lead-in ("hang on, Disney+ charged me £7.99")
    r"(?:^|^(?:hang\s+on|hold\s+on|wait|so|um|erm|oh|argh|wtf|ugh|and|also)[,!.]?\s+)"
    + _MERCHANT_NAME.replace("merchant", "merchant2")
    + r"\s+(?:just\s+|still\s+)?"
    r"(?:charged|billed|took)\s+(?:me\s+)?(?P<amt2>\S+)",
    re.IGNORECASE,
)


# "boots charged me £8.49", "they still took £24.99 off me": whoever opens the line, as typed
# (lower case too), charging the user; "they"/"it" is the service or shop just talked about.
_CHARGED_ME = re.compile(
    r"^(?:(?:and|also|so|oh|but|then|now)\s+)?(?P<who>[a-z][\w.&'+-]{1,20})\s+(?:still\s+|just\s+|"
    r"also\s+|even\s+|then\s+|have\s+|has\s+)?(?:charged|billed|took|taken|debited)\s+"
    r"(?:me\s+)?(?:another\s+|again\s+)?(?P<amt>[£$€]?\s?\d[\d,]*(?:\.\d\d)?\S*)"
    r"(?:\s+(?:off|from)\s+me)?",
    re.IGNORECASE,
)
_NOT_A_PAYEE = word_set(
    "i we you he she mum mom dad my the someone somebody nobody wife husband partner friend "
    "brother sister son daughter boss"
)


def _charged_me(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A charge said as "<shop or they> charged/took <amount> (off me)"."""
    m = _CHARGED_ME.match(sent.text)
    if m is None or m["who"].lower() in _NOT_A_PAYEE or not clause_ok(parts, sent, sent.start):
        return
    merchant: Any = m["who"]
    if merchant.lower() in ("they", "it", "that", "this"):
        last = ctx.thread.last("subscription", "finance.subscriptions", "finance.transactions")
        merchant = last and (last.get("name") or last.get("merchant"))
        if not merchant:
            return
    money = [x for x in find_money(sent.text) if x.start == m.start("amt")]
    day = _day(ctx, sent)
    if money and day is not None and not _WISH.search(sent.text):
        value = {"date": day, "amount": money[0].amount, "currency": money[0].currency}
        ctx.add("finance.transactions", value | {"merchant": merchant}, sent, 0.7)


def rule_charges(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A charge the user saw ("I was charged £10.99 by Netflix on 3 April")."""
    m = _CHARGED.search(sent.text)
    if m is None:
        _charged_me(ctx, sent, parts)
        return
    if not clause_ok(parts, sent, sent.start + m.start()):
        return
    at = m.start("amt") if m["amt"] else m.start("amt2")
    # "charged me twice last night, £23.40 each": the amount may come later in the sentence
    money = [x for x in find_money(sent.text) if x.start == at or (m["amt2"] and x.start > at)]
    day = _day(ctx, sent)
    if not money or day is None:
        return
    value = {
        "date": day,
        "amount": money[0].amount,
        "currency": money[0].currency,
        "merchant": m["merchant"] or m["merchant2"],
    }
    ctx.add("finance.transactions", value, sent, 0.75)


# Money coming in: "wages came in, 2,100.40", "my pension landed today: £912" (negative).
_INCOME = re.compile(
    r"\b(?P<what>salary|wages|pay|paycheck|paycheque|pension|bonus|dividends?|tax\s+refund|"
    r"child\s+benefit|universal\s+credit|student\s+loan|maternity\s+pay|sick\s+pay)\s+"
    r"(?:has\s+|have\s+|just\s+|finally\s+|already\s+){0,2}(?:came|come|arrived|landed|cleared|"
    r"went|gone|hit\s+(?:my|the)\s+(?:account|bank))\b(?:\s+in\b)?",
    re.IGNORECASE,
)
# "they refunded one of them", "got my money back", "Argos refunded the £40"
_REFUND = re.compile(
    r"\b(?:refunded|gave\s+me\s+(?:a\s+|my\s+)?refund|(?:got|received)\s+(?:a\s+|my\s+|the\s+)?"
    r"(?:full\s+)?refund|(?:got|have)\s+(?:my\s+|the\s+)?money\s+back)\b",
    re.IGNORECASE,
)
# "Tesco today was eighty four pounds twenty", "Boots came to £14.30": a shop, then its total
_SHOP_TOTAL = re.compile(
    r"^(?:and\s+|also\s+)?(?P<m>(?-i:[A-Z][\w'’&]{1,20}(?:\s[A-Z][\w'’&]{1,20})?))\s+"
    r"(?:(?:shop|order|run|bill|delivery)\s+)?(?:(?:today|yesterday|this\s+morning|tonight|"
    r"last\s+night|earlier)\s+)?(?:was|came\s+to|cost(?:\s+me)?|set\s+me\s+back|totall?ed)\s+",
    re.IGNORECASE,
)


_REFUNDER = re.compile(
    r"^(?:(?:and|so|oh|also)\s+)?(?P<who>[A-Za-z][\w.&'+-]{1,20})\s+(?:have\s+|has\s+|finally\s+|just\s+)?",
    re.I,
)


def _day(ctx: Ctx, sent: Span) -> Any:
    """The one past day a sentence names (the message's day when none); None when invalid."""
    dates = dates_in(sent, "past", ctx.today, ctx.anchor)
    if any(not d.valid for d in dates):
        return None
    if not dates and _LAST_NIGHT.search(sent.text):
        return ctx.today - dt.timedelta(days=1)  # a payment "last night" was yesterday's
    return last_such_day(dates[0], ctx.today).date if dates else ctx.today


_LAST_NIGHT = re.compile(r"\blast\s+night\b", re.I)


def rule_money_in(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Income and refunds, stored as negative transactions; a shop named with its total."""
    if (m := _INCOME.search(sent.text)) and not someone_else(sent.text[: m.start()]):
        said = [a for a in amounts(sent.text) if a.amount > 0]
        if said and clause_ok(parts, sent, sent.start + m.start()) and (day := _day(ctx, sent)):
            value = {"date": day, "amount": -said[0].amount, "category": m["what"].lower()}
            if said[0].currency:
                value["currency"] = said[0].currency
            ctx.add("finance.transactions", value, sent, 0.7)
        return
    if (m := _REFUND.search(sent.text)) and clause_ok(parts, sent, sent.start + m.start()):
        if _WISH.search(sent.text):
            return  # "hopefully they'll have refunded it by Friday?"
        said = find_money(sent.text) or [a for a in amounts(sent.text[m.end() :]) if a.amount > 0]
        earlier = ctx.thread.last("finance.transactions")
        if not said and (earlier is None or not earlier.get("amount")):
            return
        value = {"date": _day(ctx, sent)}
        if said:
            value |= {"amount": -said[0].amount}
            if said[0].currency:
                value["currency"] = said[0].currency
            # "amazon refunded the headphones, 59.99 back": the shop that refunded
            who = _REFUNDER.match(sent.text)
            if who and who["who"].lower() not in _NOT_A_PAYEE and who.end() == m.start():
                value["merchant"] = who["who"]
        else:  # "they refunded one of them": the payment just talked about, coming back
            value["amount"] = -abs(Decimal(str(earlier.get("amount"))))
            value |= {k: earlier.get(k) for k in ("merchant", "currency") if earlier.get(k)}
        if value["date"] is not None:
            ctx.add("finance.transactions", value, sent, 0.7)
        return
    m = _SHOP_TOTAL.match(sent.text)
    if m is None or m["m"].split()[0] in NOT_NAMES or not clause_ok(parts, sent, sent.start):
        _statement_lines(ctx, sent, parts)
        return
    money = [x for x in find_money(sent.text) if x.start == m.end()]
    if money and (day := _day(ctx, sent)) and not _WISH.search(sent.text):
        value = {"date": day, "amount": money[0].amount, "currency": money[0].currency}
        ctx.add("finance.transactions", value | {"merchant": m["m"]}, sent, 0.7)


# A statement line: "tesco 86.40 yesterday, sainsburys 23.10 today", "statement check:
# Premier Inn £89.00 on the 3rd", "and AGAIN Premier Inn £89.00 on the 4th": a payee, an
# amount (a currency or pence), and maybe the day; no verb.
_STATEMENT_ITEM = re.compile(
    r"(?:^|[,;:]\s*)(?i:and\s+)?(?i:again\s+)?(?P<m>[A-Za-z][\w'’&.+-]{1,20}"
    r"(?:\s[A-Z][\w'’&.+-]{1,20})?)\s+(?P<amt>[£$€]\s?\d[\d,]*(?:\.\d\d)?|\d[\d,]*\.\d\d)"
    r"(?P<when>\s+(?i:yesterday|today|last\s+night|this\s+morning|on\s+the\s+\d{1,2}(?:st|nd|rd|th)|"
    r"on\s+(?:mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6}))?\s*(?=$|[,;!?.]|\s+and\b)"
)
_NOT_A_SHOP = word_set(
    "paid spent cost costs was is for about around only just total me it that this and the my "
    "i we at pay payment bill rent today yesterday limit budget max balance owe fee"
)


# "Dishoom with the team today, £86.40, my treat", "friday was Hawksmoor for Ben's
# birthday, £134.50 my share": a place, then what the user paid there
_MY_SHARE = re.compile(r"\b(?:my\s+treat|my\s+share|on\s+me|i\s+paid|i\s+covered\s+it)\b", re.I)
_PLACE_FIRST = re.compile(
    r"^(?:(?:last\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+was\s+|yesterday\s+was\s+)?"
    r"(?P<m>(?-i:[A-Z][\w'’&.+-]{1,20})(?:\s(?-i:[A-Z])[\w'’&.+-]{1,20})?)\b",
    re.I,
)
# "and brunch yesterday was £41.50", "dinner last night came to £60": a meal the user paid
_MEAL_COST = re.compile(
    r"^(?:and\s+|also\s+)?(?P<c>breakfast|brunch|lunch|dinner|drinks|coffee|takeaway)\s+"
    r"(?:(?:today|yesterday|last\s+night|this\s+morning|on\s+\w+day)\s+)?(?:was|came\s+to|cost(?:\s+me)?)\s+"
    r"(?=[£$€]\s?\d)",
    re.I,
)


def _spent_at(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A place and the user's share said without a verb, or a meal and what it cost."""
    money = find_money(sent.text)
    if not money or _WISH.search(sent.text) or not clause_ok(parts, sent, sent.start):
        return False
    day = _day(ctx, sent)
    value: dict[str, Any] = {"date": day, "amount": money[0].amount, "currency": money[0].currency}
    if (meal := _MEAL_COST.match(sent.text)) and money[0].start == meal.end() and day:
        ctx.add("finance.transactions", value | {"category": meal["c"].lower()}, sent, 0.65)
        return True
    place = _PLACE_FIRST.match(sent.text)
    if place is None or not _MY_SHARE.search(sent.text, money[0].start) or day is None:
        return False
    if place["m"].split()[0] in NOT_NAMES or someone_else(place["m"]):
        return False
    ctx.add("finance.transactions", value | {"merchant": place["m"]}, sent, 0.65)
    return True


def _statement_lines(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Payments listed as "<payee> <amount> <day>", one transaction each."""
    if any(c.path == "finance.transactions" and c.start == sent.start for c in ctx.out):
        return  # another rule read this sentence's payment already
    if _spent_at(ctx, sent, parts):
        return
    for m in _STATEMENT_ITEM.finditer(sent.text):
        name = m["m"]
        if name.lower() in _NOT_A_SHOP or name in NOT_NAMES or someone_else(name):
            continue
        if not clause_ok(parts, sent, sent.start + m.start("m")):
            continue
        money = [x for x in find_money(m["amt"])] or amounts(m["amt"])
        item = Span(sent.start + m.start(), m[0])
        days = [
            last_such_day(d, ctx.today)
            for d in dates_in(item, "past", ctx.today, ctx.anchor)
            if d.valid
        ]
        if not money:
            continue
        day = days[0].date if days else ctx.today
        if m["when"] and "night" in m["when"].lower():
            day = ctx.today - dt.timedelta(days=1)
        value = {"date": day, "amount": money[0].amount, "merchant": name}
        if money[0].currency:
            value["currency"] = money[0].currency
        ctx.add("finance.transactions", value, sent, 0.65)


_WISH = re.compile(r"\b(?:would|could|might|if|whether|will|'d|'ll)\b|\?", re.I)


RULES: tuple[Rule, ...] = (
    rule_bills,
    rule_money_in,
    rule_charges,
    rule_standing_orders,
    rule_planned_card_payment,
    rule_accounts,
    rule_promotions,
)
