"""Money the user saw go out or come in, said as it happened: a charge ("boots charged me
£8.49", "they still took £24.99 off me"), income and refunds (negative), a shop and its
total, statement lines ("tesco 86.40 yesterday"), a spend without a verb ("Dishoom ...,
£86.40, my treat"), and payments the user made ("paid the Thames Water bill today",
"paid the council tax (182), the water bill 41.20 by DD"): the one home of
finance.transactions."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from uac.fact_log.calendar_words import MONTH_NAMES
from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns.budgets import BUDGET, PERIOD, another, carry_currency
from uac.fact_log.extraction.patterns.discourse import Mention, freeze
from uac.fact_log.extraction.patterns.text import (
    NAME,
    NOT_NAMES,
    UNCERTAIN,
    Ctx,
    Span,
    clause_money,
    clause_ok,
    in_clause,
    is_question,
    someone_else,
    unsay,
    word_set,
)
from uac.fact_log.extraction.timemodel import MONTHS, last_such_day
from uac.fact_log.extraction.values.money import (
    Amount,
    Money,
    amount_at,
    amounts,
    find_money,
    put_amount,
)
from uac.fact_log.extraction.values.places import lookup_place
from uac.fact_log.extraction.values.roles import who
from uac.fact_log.extraction.values.services import SERVICE
from uac.fact_log.reference import vocabulary
from uac.fact_log.reference.spending import category_of

_MERCHANT_NAME = r"(?P<merchant>(?-i:[A-Z][\w.&'-]{1,20}\+?(?:\s[A-Z][\w.&'+-]{1,20}){0,2}))"
_CHARGED = lazy(
    r"(?:\bi\s+(?:was|got|have\s+been|'ve\s+been|just\s+got)\s+|^(?:just\s+)?(?:got\s+|been\s+)?)"
    r"(?:just\s+)?charged\s+(?P<amt>\S+)\s+by\s+(?:" + _MERCHANT_NAME + "|"
    # "charged 39.99 by adobe today": the one "by" names is the merchant, however typed
    r"(?P<merchant3>[a-z][\w.&'+-]{1,20}))|"
    # at the start or after a lead-in ("hang on, Disney+ charged me £7.99")
    r"(?:^|^(?:hang\s+on|hold\s+on|wait|so|um|erm|oh|argh|wtf|ugh|and|also)[,!.]?\s+)"
    + _MERCHANT_NAME.replace("merchant", "merchant2")
    + r"\s+(?:just\s+|still\s+)?"
    r"(?:charged|billed|took)\s+(?:me\s+)?(?P<amt2>\S+)",
    re.IGNORECASE,
)


# "boots charged me £8.49", "they still took £24.99 off me": whoever opens the line, as typed
# (lower case too), charging the user; "they"/"it" is the service or shop just talked about.
_CHARGED_ME = lazy(
    r"^(?:(?:and|also|so|oh|but|then|now|wtf|omg|ugh|argh|ffs|hmm|ok|okay|um|hey|lol)[,!.]?\s+)?"
    r"(?P<who>[a-z][\w.&'+-]{1,20})\s+(?:still\s+|just\s+|"
    r"also\s+|even\s+|then\s+|have\s+|has\s+)?(?:charged|billed|took|taken|debited)\s+"
    r"(?:me\s+)?(?:another\s+|again\s+)?(?P<amt>[£$€]?\s?\d[\d,]*(?:\.\d\d)?\S*)"
    r"(?:\s+(?:off|from)\s+me)?",
    re.IGNORECASE,
)
_NOT_A_PAYEE = frozenset(vocabulary()["word_sets"]["charges_not_a_payee"])


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
    money: Sequence[Money | Amount] = (
        [x for x in find_money(sent.text) if x.start == m.start("amt")]
        or [
            x
            for x in amounts(sent.text)
            if x.start == m.start("amt") and "." in sent.text[x.start : x.end]
        ]
        or clause_money(sent.text, m.start("amt"))
    )  # "hulu charged me 17.99": pence say it is money
    day = _day(ctx, sent)
    # "wtf hulu charged me 17.99 on the 18th??": disbelief, not a question
    if (
        money
        and day is not None
        and not _WISH_WORD.search(sent.text)
        and not _ASKED.match(sent.text)
    ):
        value = {"date": day, "amount": money[0].amount, "currency": money[0].currency}
        ctx.add("finance.transactions", value | {"merchant": merchant}, sent, 0.7)


def rule_charges(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A charge the user saw ("I was charged £10.99 by Netflix on 3 April")."""
    m = _CHARGED.search(sent.text)
    if m is None:
        _charged_me(ctx, sent, parts)
        return
    if not in_clause(m, parts, sent):
        return
    at = m.start("amt") if m["amt"] else m.start("amt2")
    # "charged me twice last night, £23.40 each": the amount may come later in the sentence
    money: Sequence[Money | Amount]
    money = [x for x in find_money(sent.text) if x.start == at or (m["amt2"] and x.start > at)]
    if not money and m["amt"]:  # "charged 39.99 by adobe": pence say it is money
        money = [a for a in amounts(sent.text) if a.start == at and "." in m["amt"]]
    if not money:
        money = clause_money(sent.text, at)  # "Netflix charged me 15.49 yesterday"
    if m["merchant3"] and m["merchant3"].lower() in _NOT_A_PAYEE:
        return
    day = _day(ctx, sent)
    if not money or day is None:
        return
    merchant = m["merchant"] or m["merchant2"] or m["merchant3"].capitalize()
    value = put_amount({"date": day, "merchant": merchant}, money[0])
    ctx.add("finance.transactions", value, sent, 0.75)


# Money coming in: "wages came in, 2,100.40", "my pension landed today: £912", "Salary
# credited, 48,000", "pension's gone in", "wages in, £1,900" (negative). What is said between
# the income and its arrival (`gap`: "salary from the hospital, 3,100 €, came in", "pension
# of 900 credited") is read by `_income`.
_INCOME = lazy(
    r"\b(?P<what>salary|wages|pay|paycheck|paycheque|pension|bonus|dividends?|royalties|"
    r"per\s+diem|stipend|tax\s+refund|child\s+benefit|universal\s+credit|student\s+loan|"
    r"maternity\s+pay|sick\s+pay)(?:['’]s)?(?P<gap>(?:[^.!?;:\n]|(?<=\d)[.:](?=\d)){0,40}?)\s+"
    r"(?:has\s+|have\s+|just\s+|finally\s+|already\s+){0,2}(?P<verb>came|come|arrived|landed|"
    r"cleared|credited|deposited|went|gone|rolled|hit\s+(?:my|the)\s+(?:account|bank))\b"
    r"(?P<in>\s+in\b)?|"
    # "Wages in, £2,860", "salary in: 24,300": a ledger's line
    r"\b(?P<what2>salary|wages|pension|royalties)\s+in\s*[,:]",
    re.IGNORECASE,
)
# what may stand between an income and its arrival: its source and its amount, not a clause
_INCOME_GAP = lazy(r"^(?:,?\s+(?:of|from)\b|,?\s+(?:[^\s\d]{1,4}\s?)?\d)", re.I)
_INCOME_FROM = lazy(r"\bfrom\s+(?:the\s+)?([A-Z][\w.&'’-]{1,20}(?:[ \t][A-Z][\w.&'’-]{1,20}){0,2})")
_NOT_IN_GAP = lazy(r"\b(?:and|but|is|was|will|when|if|because|so|i|we|you|he|she|they)\b", re.I)


def _income(text: str) -> re.Match[str] | None:
    """The first income said to have come in: adjacent to its arrival, or with its source or
    amount between ("pension of Rs 900 credited"); "went", "gone" and "rolled" only with "in"
    ("my pay went on rent" is no income)."""
    for m in _INCOME.finditer(text):
        if m["what2"]:
            return m
        if m["verb"].lower() in ("went", "gone", "rolled") and not m["in"]:
            continue
        gap = m["gap"]
        if gap.strip(" ,") and (
            m["what"].lower() == "pay" or not _INCOME_GAP.match(gap) or _NOT_IN_GAP.search(gap)
        ):
            continue
        return m
    return None


# "they refunded one of them", "got my money back", "Argos refunded the £40"
_REFUND = lazy(
    r"\b(?:refunded|gave\s+me\s+(?:a\s+|my\s+)?refund|(?:got|received)\s+(?:a\s+|my\s+|the\s+)?"
    r"(?:full\s+)?refund|(?:got|have)\s+(?:my\s+|the\s+)?money\s+back)\b",
    re.IGNORECASE,
)
# "Tesco today was eighty four pounds twenty", "Boots came to £14.30": a shop, then its total
_SHOP_TOTAL = lazy(
    r"^(?:and\s+|also\s+)?(?P<m>(?-i:[A-Z][\w'’&]{1,20}(?:\s[A-Z][\w'’&]{1,20})?))\s+"
    r"(?:(?:shop|order|run|bill|delivery)\s+)?(?:(?:today|yesterday|this\s+morning|tonight|"
    r"last\s+night|earlier)\s+)?(?:was|came\s+to|cost(?:\s+me)?|set\s+me\s+back|totall?ed)\s+|"
    # "Serafe fee 335 CHF came today, paid by eBill": a named bill, its amount, then paid
    r"^(?:and\s+|also\s+)?(?P<m2>(?-i:[A-Z][\w'’&]{1,20}(?:\s[A-Z][\w'’&]{1,20})?))\s+(?:fee|bill|"
    r"invoice|licence\s+fee)\s+(?=[£$€]?\d[\d'’.,]*\s?(?:[A-Z]{3}\b|[£$€])?\s+(?:came|arrived|"
    r"went\s+out|was\s+(?:paid|taken)|paid|debited)\b[^.]*\bpaid\b|[£$€]?\d[\d'’.,]*\s?(?:[A-Z]{3}\b|"
    r"[£$€])?\s+(?:was\s+)?(?:paid|debited|taken))",
    re.IGNORECASE,
)


_REFUNDER = lazy(
    r"^(?:(?:and|so|oh|also)\s+)?(?P<who>[A-Za-z][\w.&'+-]{1,20})\s+(?:have\s+|has\s+|finally\s+|just\s+)?",
    re.I,
)


def _day(ctx: Ctx, sent: Span) -> Any:
    """The one past day a sentence names (the message's day when none); None when invalid."""
    dates = ctx.dates(sent, "past")
    if any(not d.valid for d in dates):
        return None
    if not dates and _LAST_NIGHT.search(sent.text):
        return ctx.today - dt.timedelta(days=1)  # a payment "last night" was yesterday's
    return last_such_day(dates[0], ctx.today).date if dates else ctx.today


_LAST_NIGHT = lazy(r"\blast\s+night\b", re.I)
_DIGIT = lazy(r"\d")


# Money paid to the user: "Client paid me 7000 PLN today", "the agency finally sent me
# €1,200", "got paid 850 for the shoot", "1 019 € arrived yesterday on the account"
_PAID_ME = lazy(
    r"(?P<before>\b(?:paid|sent|transferred|wired)\s+me\s+(?:back\s+)?(?:the\s+)?|"
    r"\b(?:i\s+)?(?:got|was|have\s+been|'ve\s+been)\s+paid\s+|"
    r"\bi\s+(?:received|got)\s+(?=[£$€]?\s?\d[^.!?]{0,25}\bfrom\b))(?=[£$€]?\s?\d)|"
    r"(?P<after>\s(?:arrived|came\s+in|landed|was\s+credited|got\s+credited)\b)"
    r"(?=[^.!?]{0,30}\b(?:account|bank|today|yesterday)\b|\s*[,.!]|\s*$)",
    re.IGNORECASE,
)


# "Got paid today: 2,340 euros", "I was paid on Friday, 1,850.00": the user paid (said by
# "I", "we" or no one: "the bill was paid" is paid by the user), the amount anywhere in its
# clause (clause_money)
_GOT_PAID = lazy(
    r"(?:^(?:(?:finally|just|so|and|also|yay|phew)[,!]?\s+){0,2}(?:got|get)"
    r"|\b(?:i|we)(?:'ve|\s+have|\s+had)?\s+(?:just\s+|finally\s+)?(?:got|get|was|were|been))"
    r"\s+paid\b(?!\s+(?:for|off|back)\b)",
    re.I,
)


def _paid_to_me(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """Money someone paid the user, stored negative; True when the sentence said so."""
    if not _DIGIT.search(sent.text):
        return False
    m = _PAID_ME.search(sent.text)
    anywhere = m is None
    if m is None:
        m = _GOT_PAID.search(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start + m.start()):
        return False
    if anywhere and someone_else(sent.text[: m.start()]):
        return False  # "my sister and her wife, they got paid": theirs
    if _WISH.search(sent.text) or _REFUND.search(sent.text):
        return False  # "if they paid me"; refunds are the refund rule's
    said = find_money(sent.text) or amounts(sent.text)
    # the amount the verb is about: right after "paid me", right before "arrived"; said
    # elsewhere in its clause or after a colon ("Got paid today: 2,340 euros") when written
    # as money is
    near: Sequence[Money | Amount]
    if anywhere:
        near = clause_money(sent.text, m.start())
    elif m["before"]:
        near = [a for a in said if a.start == m.end()]
    else:
        near = [a for a in said if 0 <= m.start() - a.end <= 2]
    day = _day(ctx, sent)
    if not near or day is None or near[0].amount <= 0:
        return False
    value = put_amount({"date": day}, near[0])
    value["amount"] = -value["amount"]
    ctx.add("finance.transactions", value, sent, 0.7)
    return True


# A bank's debit alert or a receipt, pasted: "Acct:**4471 DR NGN 45,000.00 POS/WEB DSTV
# MULTICHOICE 12-JUN-28 Bal: NGN 312,440.10", "Debit alert: EUR 39.00 at SPOTIFY on 3 Feb",
# "Your Uber trip receipt: NGN 6,850.00 charged to Visa ****2210, 20 Jan 2029"
_ALERT = lazy(
    r"(?:\b(?-i:DR|Dr)\b|\bdebit(?:ed)?\b(?:\s+alert)?:?|\b(?:purchase|txn|transaction|payment)\s+"
    r"(?:of|for)\b|(?P<receipt>\byour\s+(?P<brand>(?-i:[A-Z])[\w&]{1,20})(?:\s+\w+)?\s+receipt:?))"
    r"\s*(?P<amt>(?:[£$€]|\b(?-i:[A-Z]{3}))\s?\d[\d,]*(?:\.\d\d)?)"
    r"(?P<rest>[^'\"]{0,80})",
    re.IGNORECASE,
)
_ALERT_PAYEE = lazy(
    r"^\s*(?:(?:POS|WEB|POS/WEB|CARD|ONLINE|TRF|TRANSFER)(?:/\w+)?\s+|at\s+|to\s+)+"
    r"(?P<m>(?-i:[A-Z][A-Z0-9&.'-]{1,20})(?:\s(?-i:[A-Z][A-Z0-9&.'-]{1,20}))?)",
    re.IGNORECASE,
)
# "12-JUN-28", "03-FEB-2029": the day as alerts write it
_ALERT_DAY = lazy(r"\b(\d{1,2})-([A-Za-z]{3})-(\d{2}|\d{4})\b")


def _alert_day(ctx: Ctx, sent: Span, text: str) -> dt.date | None:
    """The day an alert names (its own form or any the date reader knows), else today."""
    if (m := _ALERT_DAY.search(text)) and m[2].lower() in MONTHS:
        year = int(m[3]) + (2000 if len(m[3]) == 2 else 0)
        try:
            return dt.date(year, MONTHS[m[2].lower()], int(m[1]))
        except ValueError:
            return None
    return _day(ctx, sent)


def _pasted_alert(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A debit alert or receipt pasted into the message; True when one was read."""
    m = _ALERT.search(sent.text) if _DIGIT.search(sent.text) else None
    if m is None or someone_else(sent.text[: m.start()]) or _WISH.search(sent.text[: m.start()]):
        return False
    if is_question(sent.text, sent.text):
        return False  # "Is the gym direct debit £32 on the 5th?" pastes no alert
    money = amount_at(m.string, m.start("amt"), m.end("amt"), currency=True)
    if not money or money[0].amount <= 0:
        return False
    payee = _ALERT_PAYEE.match(m["rest"])
    merchant = m["brand"] if m["receipt"] else (payee["m"] if payee else None)
    day = _alert_day(ctx, sent, m["rest"])
    if day is None:
        return False
    value = put_amount({"date": day}, money[0])
    if merchant:
        value["merchant"] = merchant
    ctx.add("finance.transactions", value, sent, 0.7)
    return True


def rule_money_in(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Income and refunds, stored as negative transactions; a shop named with its total."""
    if _paid_to_me(ctx, sent, parts) or _pasted_alert(ctx, sent, parts):
        return
    if (m := _income(sent.text)) and not someone_else(sent.text[: m.start()]):
        said = [a for a in amounts(sent.text) if a.amount > 0]
        if said and in_clause(m, parts, sent) and (day := _day(ctx, sent)):
            what = re.sub(r"\s+", " ", (m["what"] or m["what2"]).lower())
            value = {"date": day, "amount": -said[0].amount, "category": what}
            if (payer := _INCOME_FROM.search(sent.text, m.start())) and _merchant(payer[1]):
                value["merchant"] = _merchant(payer[1])  # "salary from Charité came in"
            if said[0].currency:
                value["currency"] = said[0].currency
            ctx.add("finance.transactions", value, sent, 0.7)
        return
    if (m := _REFUND.search(sent.text)) and in_clause(m, parts, sent):
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
    shop = m and (m["m"] or m["m2"])
    if m is None or shop.split()[0] in NOT_NAMES or not clause_ok(parts, sent, sent.start):
        _statement_lines(ctx, sent, parts)
        return
    money = [x for x in find_money(sent.text) if x.start == m.end()]
    if money and (day := _day(ctx, sent)) and not _WISH.search(sent.text):
        value = {"date": day, "amount": money[0].amount, "currency": money[0].currency}
        if (what := shop.lower()) in _NOT_A_SHOP:
            return  # "Rent was 1,000", "Total was 80": a word capitalised as the first
        # "Dinner was 80 euros", "Petrol came to £60": a kind of spending, not a shop's name
        kind = {"category": what} if what in _MEALS or category_of(what) else {"merchant": shop}
        ctx.add("finance.transactions", value | kind, sent, 0.7)


# A statement line: "tesco 86.40 yesterday, sainsburys 23.10 today", "statement check:
# Premier Inn £89.00 on the 3rd", "and AGAIN Premier Inn £89.00 on the 4th": a payee, an
# amount (a currency or pence), and maybe the day; no verb.
_WHEN_SAID = "|".join(vocabulary()["ordered_lists"]["when_said"])
_STATEMENT_ITEM = lazy(
    r"(?:^|[,;:]\s*|\s+(?=(?i:and)\s))(?i:and\s+)?(?i:again\s+)?"
    r"(?i:(?:big|weekly|small|quick|food|online)\s+)?"  # "big tesco shop £96.40"
    r"(?P<m>[A-Za-z][\w'’&.+-]{1,20}"
    r"(?:\s[A-Z][\w'’&.+-]{1,20}|"
    # "uber eats last night 31.50": a two-word name in lower case, then its day
    r"\s[a-z][\w'’&.+-]{1,20}(?=\s+(?i:" + _WHEN_SAID + r")\s+\d))?)"
    # "tesco big shop 138.62": what was bought there, in a word or two, before the amount
    r"(?:\s+(?i:big|weekly|food|online|grocery|quick|small)?\s*(?i:shop|order|run|delivery|"
    r"takeaway|groceries|top-?up))?"
    r"(?P<when0>\s+(?i:" + _WHEN_SAID + r"))?"
    # (not "2.14.1", a version, nor "18.20.1": the amount ends where its digits do)
    # "£46.20", "46.20", "19,99 €" (the currency after, a decimal comma)
    r"\s+(?P<amt>(?P<cur>[£$€])\s?\d[\d,]*(?:\.\d\d)?|\d[\d.]*,\d\d\s?(?P<cur2>[£$€])|"
    r"\d[\d,]*\.\d\d)(?!\.\d)"
    r"(?P<when>\s+(?i:" + _WHEN_SAID + r"))?"
    r"(?:\s+(?i:lol|haha|oops|ugh|smh|fml|rip|tho|though|again))?"
    # "doordash 23.80 tonight dont judge": after its day, a remark ends the line
    r"(?(when)(?:\s+[a-z' ]{2,30}?)?)"
    # "lidl £46.20 on the way home after shift": after money with its currency, a remark
    r"(?(cur)(?:\s+(?:on|after|before|for|at|from|with)\s+[a-z' ]{2,40}?)?|"
    r"(?(cur2)(?:\s+(?:on|after|before|for|at|from|with)\s+[a-z' ]{2,40}?)?))"
    r"\s*(?=$|[,;!?.]|\s+and\b)"
)
_NOT_A_SHOP = frozenset(vocabulary()["word_sets"]["charges_not_a_shop"])


# "Dishoom with the team today, £86.40, my treat", "friday was Hawksmoor for Ben's
# birthday, £134.50 my share": a place, then what the user paid there
_MY_SHARE = lazy(r"\b(?:my\s+treat|my\s+share|on\s+me|i\s+paid|i\s+covered\s+it)\b", re.I)
_PLACE_FIRST = lazy(
    r"^(?:(?:last\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+was\s+|yesterday\s+was\s+)?"
    r"(?P<m>(?-i:[A-Z][\w'’&.+-]{1,20})(?:\s(?-i:[A-Z])[\w'’&.+-]{1,20})?)\b",
    re.I,
)
# "and brunch yesterday was £41.50", "dinner last night came to £60": a meal the user paid
_MEALS = word_set("breakfast brunch lunch dinner drinks coffee takeaway")
_MEAL_COST = lazy(
    r"^(?:and\s+|also\s+)?(?P<c>" + "|".join(sorted(_MEALS)) + r")\s+"
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


# A purchase named by its shop and price with no verb for the payment: "switch 2 from best buy
# 449.99", "Rational iCombi from Nisbets, £9,840 inc vat", "1.099 € in MediaMarkt" (a verb of
# buying or receiving elsewhere in the sentence for the last form).
_SHOP_THEN_PRICE = compile_kept(
    r"\bfrom\s+(?P<m>[A-Za-z][\w'’&.+-]{1,20}(?:\s[A-Za-z][\w'’&.+-]{1,20}){0,2}?)\s*,?\s+"
    r"(?P<amt>[£$€]\s?\d[\d,.]*|\d[\d,.']*\s?(?:[£$€]|[A-Z]{3}\b)|\d[\d,]*\.\d\d)"
    r"(?:\s+(?i:inc|incl|including)\.?\s+(?i:vat|tax|delivery|shipping))?\s*(?=$|[,;.!?])"
)
_PRICE_AT_SHOP = lazy(
    r"(?P<amt>[£$€]\s?\d[\d,.]*|\d[\d,.']*\s?(?:[£$€]|[A-Z]{3}\b))\s+(?:in|at|from)\s+"
    r"(?P<m>(?-i:[A-Z][\w'’&.+-]{1,20})(?:\s(?-i:[A-Z])[\w'’&.+-]{1,20}){0,2})\s*(?=$|[,;.!?])"
)
_BUYING = lazy(
    r"\b(?:i\s+(?:buy|bought|got|paid|pay|ordered|purchased)|arrived|delivered|came|haul)\b", re.I
)
_MONTHS = frozenset(MONTH_NAMES)  # as written: capitalised


def _bought_at(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A purchase said as its shop and its price, with no verb for the payment."""
    m = _SHOP_THEN_PRICE.search(sent.text)
    if m is None and _BUYING.search(sent.text):
        m = _PRICE_AT_SHOP.search(sent.text)
    if m is None or _WISH.search(sent.text) or not clause_ok(parts, sent, sent.start):
        return False
    name = m["m"]
    if someone_else(sent.text[: m.start()]) or name.split()[0] in NOT_NAMES:
        return False
    if name.split()[0].lower() in _NOT_A_SHOP or name in _MONTHS or lookup_place(name):
        return False  # "a flight from Manchester, £450": a place, not a shop
    money = amount_at(m.string, m.start("amt"), m.end("amt"))
    day = _day(ctx, sent)
    if not money or day is None:
        return False
    value = put_amount({"date": day, "merchant": name}, money[0])
    ctx.add("finance.transactions", value, sent, 0.65)
    # what was bought, for a warranty or return window said next ("2 yr warranty")
    cut = m.start() if m.re is _SHOP_THEN_PRICE else m.start("amt")
    pieces = [p.strip() for p in _ITEM_SPLIT.split(sent.text[:cut]) if p.strip()]
    item = _ITEM_LEAD.sub("", pieces[-1]) if pieces else ""
    if item and len(item.split()) <= 4:
        bought = freeze({"item": item, "purchased_on": day, "merchant": name})
        ctx.thread = ctx.thread.with_([Mention("item", bought, ctx.today)])
    return True


_ITEM_SPLIT = lazy(r"\s[-–—]\s|[,:;]")
_ITEM_LEAD = lazy(r"^(?:(?:i\s+\w+\s+)?(?:a|an|the|my|new|some)\s+)+", re.I)


def _statement_lines(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Payments listed as "<payee> <amount> <day>", one transaction each."""
    if is_question(sent.text, sent.text):
        return  # "Is the gym direct debit £32 on the 5th?" lists nothing
    if any(
        c.path == "finance.transactions" and c.start == sent.start for c in ctx.out[ctx.here() :]
    ):
        return  # another rule read this sentence's payment already
    if _spent_at(ctx, sent, parts) or _bought_at(ctx, sent, parts):
        return
    for m in _STATEMENT_ITEM.finditer(sent.text):
        name = who(sent.text, *m.span("m"))
        if not name or name.lower() in _NOT_A_SHOP or name in NOT_NAMES or someone_else(name):
            continue
        if not in_clause(m, parts, sent, "m"):
            continue
        money = amount_at(m.string, m.start("amt"), m.end("amt"))
        item = Span(sent.start + m.start(), m[0])
        days = [last_such_day(d, ctx.today) for d in ctx.dates(item, "past") if d.valid]
        if not money:
            continue
        day = days[0].date if days else ctx.today
        when = m["when"] or m["when0"]
        if when and "last" in when.lower():  # "last night"; "tonight" is today
            day = ctx.today - dt.timedelta(days=1)
        value = {"date": day, "amount": money[0].amount, "merchant": name}
        if money[0].currency:
            value["currency"] = money[0].currency
        ctx.add("finance.transactions", value, sent, 0.65)


_WISH_WORD = lazy(r"\b(?:would|could|might|if|whether|will|'d|'ll)\b", re.I)
_ASKED = lazy(
    r"^\W*(?:did|has|have|was|were|is|are|will|would|could|can|do|does|why|when|how|what)\b", re.I
)
_WISH = lazy(r"\b(?:would|could|might|if|whether|will|'d|'ll)\b|\?", re.I)


# Money someone else paid: "Dinner was 80 euros, Tom paid", "my dad covered it", "work paid
# for the hotel", "it was on him", "paid by my company".
_OTHER_PAID = lazy(
    r"\b(?P<who>(?-i:[A-Z][a-z]{1,20})|he|she|they|work|(?:my|his|her|their)\s+[a-z]{2,12}|"
    r"the\s+(?:company|firm|office|client|boss))\s+(?:(?:kindly|generously|already|also)\s+)?"
    r"(?:paid(?!\s+(?:me|us)\b)|covered|treated(?!\s+(?:me\s+)?myself)|picked\s+up\s+the\s+"
    r"(?:bill|tab|check)|got\s+the\s+(?:bill|tab|check)|footed\s+the\s+bill)\b|"
    r"\b(?:paid|covered)\s+(?:for\s+)?by\s+(?:my\s+[a-z]{2,12}|him|her|them|work|the\s+"
    r"(?:company|firm|office|client))\b|"
    r"\b(?:it\s+was\s+|was\s+)?on\s+(?:him|her|them|the\s+company|work)\b(?!\s+\w)|"
    r"\b(?:his|her|their)\s+treat\b",
    re.IGNORECASE,
)
_ME_WORDS = word_set("I We i we Me Us Everyone Nobody Both")
# A spend said of another time: "Rent was 1,000 euros in 2019", "used to pay 40 a month",
# "back then it cost", "ten years ago"; with no day of its own it is not a payment today.
_OTHER_TIME = lazy(
    r"\b(?:in|back\s+in|during|since)\s+(?P<year>(?:19|20)\d\d)\b|\b(?:used\s+to|back\s+then|"
    r"years?\s+ago|last\s+year|when\s+i\s+was|in\s+the\s+(?:old\s+days|past))\b",
    re.IGNORECASE,
)


def paid_by_someone_else(text: str) -> bool:
    """Whether a sentence says someone other than the user paid ("Tom paid", "on him")."""
    for m in _OTHER_PAID.finditer(text):
        who = (m["who"] or "").split()
        if who and (who[0] in _ME_WORDS or (who[0] in NOT_NAMES and who[0] not in ("He", "She"))):
            continue
        if who and who[0].lower() in ("my", "our") and who[-1].lower() in ("card", "account"):
            continue  # "my card paid": the user's own means
        return True
    return False


def rule_not_the_users_spend(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Drop the payments this sentence yielded when someone else paid, or when it was at
    another time than the day the rules gave it ("Dinner was 80 euros, Tom paid")."""
    mine = [
        c
        for c in ctx.out[ctx.here() :]
        if c.path == "finance.transactions" and c.start >= sent.start
    ]
    if not mine:
        return
    other_time = _OTHER_TIME.search(sent.text)
    if other_time and other_time["year"] and int(other_time["year"]) >= ctx.today.year:
        other_time = None  # "in 2028" said in 2028: this year
    others = paid_by_someone_else(sent.text)
    if not (others or other_time):
        return
    drop = {
        id(c)
        for c in mine
        # what someone else paid the user (income, negative) is the user's
        if (others and c.value.get("amount", 0) > 0)
        or (other_time and c.value.get("date") == ctx.today)
    }
    ctx.out[:] = [c for c in ctx.out if id(c) not in drop]


# A corrected amount: "sorry 59.99 not 39.99", "make that £45", "actually it was 52 euros",
# "no wait, 185" (after a payment, a subscription, a standing order or a budget was told)
_AMOUNT_FIX = lazy(
    r"^(?:(?:oh|ah|hmm+|um+|ok|okay|lol)\s*,?\s+)?(?:sorry|oops|actually|correction|wait|no|"
    r"my\s+bad|typo)\b[,.!:]?\s*(?:(?:no|wait|sorry)\b[,.!]?\s*)?(?:it\s+(?:was|is)\s+|it's\s+|"
    r"make\s+(?:that|it)\s+|i\s+meant\s+|the\s+(?:price|amount|total)\s+(?:is|was)\s+)?"
    r"(?=[£$€]?\s?\d)|"
    r"^(?:make\s+(?:that|it)|i\s+meant)\s+(?=[£$€]?\s?\d)|"
    r"(?=[£$€]?\s?\d[\d,.]*\s?(?:[£$€]|[A-Z]{3})?\s*,?\s+not\s+[£$€]?\s?\d)",
    re.IGNORECASE,
)
_NOT_OLD = lazy(r"\s*,?\s+not\s+", re.I)
# After the new amount the correction ends ("sorry, 59.99."; "make that £60 a month"): a
# number with more words after it ("sorry 2 secs", "actually 2 people live here") is no amount.
_FIX_ENDS = lazy(r"\s*(?:[.!,;:)]|$|(?:a|per|each|every)\s+(?:month|week|year)\b)", re.I)
_ALONE = lazy(r"\s*(?:(?:a|per|each|every)\s+(?:month|week|year)\b)?\s*[.!]{0,3}\s*$", re.I)


def _near_in_size(new: Decimal, old: Any) -> bool:
    """Whether a bare number is of the size of the amount it would correct (within half to
    double: "950" for £900, not "3" for £900)."""
    return isinstance(old, (int, float, Decimal)) and 0 < abs(old) / 2 <= new <= abs(old) * 2


# what a money record was found as, and the path to propose it again under
_MONEY_KINDS = {
    "finance.transactions": "finance.transactions",
    "subscription": "finance.subscriptions",
    "finance.subscriptions": "finance.subscriptions",
    "finance.scheduled_payments": "finance.scheduled_payments",
    "finance.budgets": "finance.budgets",
}


def rule_amount_correction(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The records of the amount a correction replaces, proposed again with the new one;
    nothing when no earlier amount is there to correct (refused, not guessed)."""
    if not _DIGIT.search(sent.text):
        return  # most sentences: no amount, nothing to correct
    m = _AMOUNT_FIX.search(sent.text)
    if m is None or "?" in sent.text or _WISH.search(sent.text):
        return
    said = amounts(sent.text[m.end() :])
    if not said or said[0].start != 0 or said[0].amount <= 0:
        return
    new = said[0]
    old = None
    if (gap := _NOT_OLD.match(sent.text, m.end() + new.end)) is not None:
        rest = amounts(sent.text[gap.end() :])
        old = rest[0].amount if rest and rest[0].start == 0 else None
    shaped = new.currency or not sent.text[m.end() : m.end() + new.end].strip().isdigit()
    # "actually 950", "sorry, 950": a bare number that is all the correction says
    alone = old is None and not shaped and _ALONE.match(sent.text, m.end() + new.end)
    if old is None and not alone and not (shaped and _FIX_ENDS.match(sent.text, m.end() + new.end)):
        return  # "no 1 priority is the gym", "wait 10 min": a number, not a corrected amount
    money = [
        x for x in ctx.thread.mentions if x.kind in _MONEY_KINDS and x.get("amount") is not None
    ]
    if alone and not (money and _near_in_size(new.amount, money[-1].get("amount"))):
        return  # "no, 3" after "rent is £900 a month": not an amount of its size
    if old is not None:
        targets = [x for x in money if abs(x.get("amount")) == old]
    else:  # the latest amount told, and what was told with it
        targets = [x for x in money if money and x.get("amount") == money[-1].get("amount")]
    done = set()
    for target in targets:
        path = _MONEY_KINDS[target.kind]
        record = target.record()
        key = (path, repr(sorted(record.items())))
        if key in done:
            continue
        done.add(key)
        amount = -new.amount if record["amount"] < 0 else new.amount
        fixed = {**record, "amount": amount}
        if new.currency:
            fixed["currency"] = new.currency
        unsay(ctx, path, record)  # when said earlier in this message
        ctx.add(path, fixed, sent, 0.75, replaces=record)


# -- payments the user made ---------------------------------------------------------------------
_SPENT = lazy(
    r"\bi\s+(?:just\s+|also\s+)?(?:spent|paid|transferred|sent)\b|\bi\s+bought\b|"
    r"\bcost\s+me\b|^(?:(?:note\s+to\s+self|fyi|btw|ok(?:ay)?|so|update)[,:!-]?\s+)?"
    r"(?:just\s+|also\s+|already\s+|and\s+)?(?:spent|paid|bought|transferred)\b|"
    # "rent paid to Harbour Lettings, £1,250": the thing paid first
    r"^(?:the\s+|my\s+)?[a-z]+(?:\s+[a-z]+)?\s+paid\b(?=\s+(?:to|today|yesterday|on|at)\b)|"
    # "Rent went out, £1,325 to Foxtons", "£60 at Tesco and £12 on Etsy": a report of money gone
    r"\b(?:went|came)\s+out\b|\bleft\s+my\s+account\b|"
    # "Another £150 on groceries at Lidl": the amount first, its category between
    r"^(?:and\s+|plus\s+|also\s+|another\s+|then\s+)?(?=[£$€]\s?\d[\d,]*(?:\.\d\d)?\s+"
    r"(?:at|on|to)\s+(?:[a-z]{3,20}\s+(?:at|from)\s+)?(?-i:[A-Z]))",
    re.IGNORECASE,
)
_PAYEE = lazy(
    r"\s*(?:for\s+[a-z]+(?:\s[a-z]+)?\s+)?(?:at|to|from|on(?=\s+(?-i:[A-Z])))\s+(?:the\s+)?"
    r"(?P<m>[A-Z][\w.&'’-]+(?:\s[A-Z][\w.&'’-]+){0,2}|[a-z]{4,15}\b)"
)
_TITLE = r"(?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+)?"  # "rent to Mr Patel": a payee with a title
# A payee as named: "Foxtons", "John Lewis", "IKEA", "H&M".
_MERCHANT = lazy(
    r"\b(?:at|to|from)\s+(" + _TITLE + r"[A-Z][\w.&'’-]{1,20}(?:[ \t][A-Z][\w.&'’-]{1,20}){0,2})"
)
_NOUN_TO = lazy(r"\s+(?:for\s+)?(?:the\s+|my\s+)?([a-z]{3,15})\s+(?:to|at)\s+[A-Z]")
_PAYEE_ACCOUNT = lazy(
    r"(?:\b(?:to|into|at)\s+|,\s*)(?:(?:his|her|their|the|a|my)\s+)?(?:new\s+)?(?:bank\s+)?"
    r"(?:account|acct|a/c)\s+"  # "£925 bank transfer, acct 31559920"
    r"(?:number\s+|no\.?\s+)?(?P<acct>[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,3})?|\d{6,12})\b"
)


# "in Woodies", "in Cyfrowe.pl": where it was bought, said with "in" (a place is no shop)
_MERCHANT_IN = lazy(r"\bin\s+([A-Z][\w&'’-]{1,20}(?:\.[a-z]{2,3})?(?:[ \t][A-Z][\w&'’-]{1,20})?)")


def _shop_in(text: str, after: int) -> re.Match[str] | None:
    """The shop of "in <Name>" after the verb, unless the name is a place or a month."""
    m = _MERCHANT_IN.search(text, after)
    if m is None or lookup_place(m[1]) or m[1].split()[0].lower() in MONTHS:
        return None
    return m


def _merchant(raw: str) -> str | None:
    """A payee as named, without a trailing full stop; None for a pronoun or a non-name."""
    name = raw.rstrip(".,;:!?")
    bare = re.sub(r"^(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+", "", name)
    return None if not bare or bare.split()[0] in NOT_NAMES else name


# "Paid the Thames Water bill today": the payee named by its bill
_BILL_OF = lazy(
    r"\b(?i:paid|pay)\s+(?i:the|my|our)\s+([A-Z][\w&'’-]{1,20}(?:\s[A-Z][\w&'’-]{1,20}){0,2})\s+"
    r"(?:(?i:electric(?:ity)?|gas|water|energy|phone|mobile|internet|broadband|power|"
    r"heating|utility)\s+)?(?i:bill|invoice)\b"
)
_WOULD = lazy(r"\b(?:would|could|might|if|whether)\b|\?\s*$", re.I)
_SPEND_CATEGORY = lazy(r"\bon\s+(?:some\s+|my\s+)?([a-z]{3,20})\b")


# "paid the council tax (182), paid the water bill 41.20 by DD, sent mum 100": a list of
# payments, a verb each; in such a list a bare number is an amount
_LISTED_PAYMENT = lazy(r"(?:^|[,:;]\s*)(?:and\s+)?(?P<verb>paid|sent|spent|transferred)\b", re.I)


def _payment_list(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """Each payment of a list said in one sentence; True when the sentence is such a list."""
    starts = [m.start("verb") for m in _LISTED_PAYMENT.finditer(sent.text)]
    if len(starts) < 2 or not clause_ok(parts, sent, sent.start + starts[0]):
        return False
    for a in starts:
        # one item runs to the next comma ("sent mum 100 for her birthday, oh and ...")
        b = sent.text.find(",", a)
        item = Span(sent.start + a, sent.text[a : b if b > 0 else len(sent.text)])
        money = amounts(item.text)
        verb = _LISTED_PAYMENT.match(item.text)
        if not money or verb is None:
            continue
        dates = [d for d in ctx.dates(item, "past") if d.valid]
        value: dict[str, Any] = {
            "amount": money[0].amount,
            "date": dates[0].date if dates else ctx.today,
        }
        if money[0].currency:
            value["currency"] = money[0].currency
        inside = re.sub(r"[()]", " ", item.text)  # "the council tax (182)"
        spot = amounts(inside)[0]
        _paid_what(value, inside, verb.end(), spot.start, spot.end)
        # "sent mum 100": a relative named without "the/my"
        if "merchant" not in value and "category" not in value:
            who = re.match(
                r"\s+(?P<w>mum|mom|dad|nan|gran)\s+$", inside[verb.end() : spot.start], re.I
            )
            if who:
                value["merchant"] = who["w"]
        if "merchant" in value or "category" in value:
            ctx.add("finance.transactions", value, sent, 0.7)
    return True


def rule_transactions(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """One-off payments the user reports ("I spent £45 at Nando's yesterday")."""
    if _payment_list(ctx, sent, parts):
        return
    m = _SPENT.search(sent.text)
    if m is None:
        _another_payment(ctx, sent, parts)
        return
    if BUDGET.search(sent.text):
        return
    if (got := _GOT_PAID.search(sent.text)) is not None and got.end() == m.end():
        return  # "I got paid yesterday, 3.200,00 EUR": money in (rule_money_in), not out
    if (subject := _IT_WAS_PAID.match(sent.text)) is not None and in_clause(m, parts, sent):
        _paid_it(ctx, sent, subject)
        return
    if not in_clause(m, parts, sent) or PERIOD.search(sent.text):
        return
    if not m[0] and (_WOULD.search(sent.text) or UNCERTAIN.search(sent.text)):
        return  # "£60 at Tesco would be too much": no verb of its own, so the whole sentence
    money = amounts(sent.text)
    if not money:
        return
    dates = ctx.dates(sent, "past")
    if any(not d.valid for d in dates):
        return
    if SERVICE.search(sent.text) and not dates:
        return  # "I paid £10.99 for Netflix": the subscription; on a day said, one charge
    paired = [(a, _PAYEE.match(sent.text, a.end)) for a in money if a.start >= m.start()]
    if len([p for p in paired if p[1]]) > 1 or (paired and paired[0][1] and len(money) == 1):
        # "Spent 38 at the pharmacy and 120 at IKEA today": one payment per amount.
        for amount, payee in paired:
            if payee is None or (name := _merchant(who(sent.text, *payee.span("m")))) is None:
                continue
            value: dict[str, Any] = {
                "amount": amount.amount,
                "date": dates[0].date if dates else ctx.today,
                "merchant": name,
            }
            if amount.currency:
                value["currency"] = amount.currency
            if len(money) == 1:
                _payee_account(value, sent.text)
            ctx.add("finance.transactions", value, sent, 0.75 if dates else 0.7)
        return
    priced = sent.text[: money[0].start].rstrip().lower().endswith(" for")
    if (
        money[0].currency is None
        and not (priced and _MERCHANT.search(sent.text, m.end()))
        and not _SORT_CODE_ACCOUNT.search(sent.text)  # "paid ... 2,000 to 20-45-77 83920155"
    ):
        return  # a bare number is a price only as "from Argos for 35"
    value: dict[str, Any] = {
        "amount": money[0].amount,
        "date": dates[0].date if dates else ctx.today,
    }
    if money[0].currency is not None:
        value["currency"] = money[0].currency
    merchant = (
        _MERCHANT.search(sent.text, m.end())
        or _BILL_OF.search(sent.text)
        or _shop_in(sent.text, m.end())  # "bought a power washer in Woodies"
    )
    if merchant is None and _SORT_CODE_ACCOUNT.search(sent.text):
        merchant = _MERCHANT.search(sent.text)  # "an email from Harbour Lettings ... I paid"
    if merchant and (name := _merchant(merchant[1])) is not None:
        value["merchant"] = name
    category = _SPEND_CATEGORY.search(sent.text, m.end()) or _NOUN_TO.match(sent.text, money[0].end)
    if category:
        value["category"] = category[1].lower()
    _payee_account(value, sent.text)
    if "merchant" not in value and "category" not in value:
        _paid_what(value, sent.text, m.end(), money[0].start, money[0].end)
    if "merchant" not in value and "category" not in value:
        # "I paid 35 EUR for the taxi today", "Paid the exam fee today, 150 dollars": a payment
        # of the user's with its currency written and no payee said is one; what for, if said
        # (a thing bought or what something cost is the item's, said with where it was bought;
        # a payee named but not read, "Paid Croco Motors USD 640", "I paid him £60", is no
        # payment without its payee)
        if (
            money[0].currency is None
            or not _PAID_VERB.search(m[0])
            or _SOMEONE_PAID.search(sent.text, m.end())
        ):
            return
        _paid_for(value, sent.text, money[0].end)
    ctx.add("finance.transactions", value, sent, 0.75 if dates else 0.65)


# a name (not a currency code, not "I") or a person said after the verb: a payee
_SOMEONE_PAID = lazy(r"\b(?!I\b)(?-i:[A-Z](?![A-Z]{2}\b))|\b(?:him|her|them|us)\b", re.I)
_PAID_VERB = lazy(r"\b(?:paid|spent|transferred|sent)\b", re.I)
_PAID_FOR = lazy(r"^\s+for(?:\s+(?:the|my|our|a|an))?(?=\s)", re.I)


def _paid_for(value: dict[str, Any], text: str, end: int) -> None:
    """ "£35 for the taxi": what a payment was for, named right after its amount."""
    if (lead := _PAID_FOR.match(text[end:])) and (
        what := _THING_PAID.match(text[end + lead.end() :])
    ):
        value["category"] = what["what"].lower()


def _paid_it(ctx: Ctx, sent: Span, subject: re.Match[str]) -> None:
    """ "Deposit is three months rent, 4.140, I transferred it yesterday": what "it" is opens
    the sentence, and the last amount before "it" is what was paid."""
    said = [a for a in amounts(sent.text[: subject.end()]) if a.amount >= 1]
    dates = [d for d in ctx.dates(sent, "past") if d.valid]
    if not said:
        return
    value = put_amount({"date": dates[0].date if dates else ctx.today}, said[-1])
    ctx.add("finance.transactions", value | {"category": subject["what"].lower()}, sent, 0.65)


_IT_WAS_PAID = lazy(
    r"^(?:the\s+|my\s+)?(?P<what>[a-z]{3,20})\s+(?:is|was|came\s+to)\b(?:[^.]|(?<=\d)\.(?=\d))*"
    r"\bi\s+(?:paid|transferred|"
    r"sent)\s+it\b",
    re.I,
)
_PAID_WHOM = lazy(
    r"^\s+(?:the|my|our)\s+(?P<who>[a-z][a-z'’-]{1,20}(?:\s[a-z][a-z'’-]{2,20})?"
    r"(?:\s(?-i:[A-Z])[\w&.'’-]{1,20}){0,3})\s+$"  # "the builder Kowalski Ltd"
)
_THING_PAID = lazy(
    r"^\s+(?P<what>[a-z][a-z-]{2,20}"
    r"(?:\s(?!today|yesterday|this|last|on|at|for|to)[a-z][a-z-]{2,20})?)"
    r"(?=\s*(?:$|[,.;!]|\s(?:today|yesterday|this|last|on|at|for|to)\b))"
)


def _paid_what(value: dict[str, Any], text: str, verb_end: int, start: int, end: int) -> None:
    """ "paid the plumber £180": who, named between verb and amount; "paid the £45 parking
    fine": what, named after the amount."""
    if (who := _PAID_WHOM.match(text[verb_end:start])) is not None:
        value["merchant"] = who["who"]
    elif re.search(r"\b(?:the|my|our|a)\s+$", text[:start]) and (
        what := _THING_PAID.match(text[end:])
    ):
        value["category"] = what["what"].lower()


# A UK sort code and account number ("20-45-77 83920155"): an account whatever the words
_SORT_CODE_ACCOUNT = lazy(r"\b\d{2}-\d{2}-\d{2}[\s,]+(?P<acct>\d{8})\b")


def _payee_account(value: dict[str, Any], text: str) -> None:
    """The account number a payment went to, when the sentence gives one."""
    if (acct := _PAYEE_ACCOUNT.search(text) or _SORT_CODE_ACCOUNT.search(text)) is not None:
        value["payee_account"] = acct["acct"].replace(" ", "")


_ANOTHER_PAYMENT = lazy(
    r"^(?:and|plus|also|then)\s+(?:another\s+)?(?P<amt>[£$€]?\s?\d[\d,]*(?:\.\d\d)?)\s+"
    r"(?:at|to|in)\s+" + NAME.replace("[A-Z]", "(?-i:[A-Z])", 1),
    re.IGNORECASE,
)


def _another_payment(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "And 12 at Greggs", right after a payment: another one, said without its verb."""
    if (found := another(ctx, sent, parts, _ANOTHER_PAYMENT, "finance.transactions")) is None:
        return
    m, earlier = found
    money = amount_at(m.string, m.start("amt"), m.end("amt"))
    dates = ctx.dates(sent, "past")
    merchant = _MERCHANT.search(sent.text, m.start("amt"))
    if not money or any(not d.valid for d in dates) or merchant is None:
        return
    if (name := _merchant(merchant[1])) is None:
        return
    value: dict[str, Any] = {
        "amount": money[0].amount,
        "date": dates[0].date if dates else ctx.today,
        "merchant": name,
    }
    carry_currency(value, money[0].currency, earlier)
    ctx.add("finance.transactions", value, sent, 0.7)
