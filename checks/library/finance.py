"""Finance checks: budgets, duplicate or redirected payments, renewals, a charge after a
cancellation, card limits, payment instructions (an autopay from a closing account, two
instructions for one bill), and warranties and promotional rates that end.
"""

from __future__ import annotations

import calendar
import datetime as dt
import itertools
from collections import defaultdict
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from uac.checks.library.common import days, distinct, draft, records, same_words
from uac.checks.model import AlertDraft, CheckConfig
from uac.fact_log.reference import mentions, normalise
from uac.fact_log.reference.spending import same_spending


def _money(amount: Decimal, currency: str | None) -> str:
    return f"{amount} {currency}" if currency else str(amount)


def period_bounds(period: str, today: dt.date) -> tuple[dt.date, dt.date, str]:
    """(first day, last day, label) of the calendar week/month/year containing today."""
    if period in ("week", "calendar_week"):
        start = today - dt.timedelta(days=today.weekday())
        iso = today.isocalendar()
        return start, start + dt.timedelta(days=6), f"{iso.year}-W{iso.week:02d}"
    if period in ("month", "calendar_month"):
        last = calendar.monthrange(today.year, today.month)[1]
        return today.replace(day=1), today.replace(day=last), f"{today:%Y-%m}"
    if period in ("year", "calendar_year"):
        return dt.date(today.year, 1, 1), dt.date(today.year, 12, 31), str(today.year)
    raise ValueError(f"unknown period {period!r}")


def budget_exceeded(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Budgets whose category spend in the current period exceeds the limit.

    A payment counts toward a budget when it names the same kind of spending, in the same
    or other words ("dining" budget, "restaurants" payment), or, naming none, was paid to a
    merchant of that kind ("£180 at Tesco" toward "groceries"): reference/data/spending.toml.
    """
    out = []
    for budget in records(user, "budgets"):
        start, end, label = period_bounds(budget.period, today)
        txs = [
            t
            for t in records(user, "transactions")
            if start <= t.date <= end
            and same_spending(budget.category, t.category, getattr(t, "merchant", None))
            and t.amount > 0
            and (budget.currency is None or t.currency in (None, budget.currency))
        ]
        spent = sum((t.amount for t in txs), Decimal(0))
        threshold = budget.limit * Decimal(str(config.budget_warn_fraction))
        if spent <= threshold:
            continue
        cur = f" {budget.currency}" if budget.currency else ""
        out.append(
            draft(
                "budget_exceeded",
                "warning",
                f"You have spent {spent}{cur} on {budget.category} in {label}, over your "
                f"{budget.limit}{cur} {budget.period}ly budget.",
                why=f"The {budget.category} budget you set is {spent - budget.limit}{cur} over "
                f"with {days((end - today).days)} of the {budget.period} left.",
                next_step=f"Hold {budget.category} spending until {end + dt.timedelta(days=1)}, "
                "or raise the budget if it no longer fits.",
                computation=f"sum of {len(txs)} {budget.category} payments {start} to {end} = "
                f"{spent}{cur} > {threshold}{cur}",
                keys=(budget.key, label),
                fact_ids=budget.fact_ids + tuple(f for t in txs for f in t.fact_ids),
            )
        )
    return out


def _account(text: str) -> str:
    # IBANs and account numbers are written with or without spaces and dashes.
    return "".join(c for c in text if c.isalnum()).upper()


def _accounts_differ(a: Any, b: Any) -> bool:
    return bool(
        a.payee_account
        and b.payee_account
        and _account(a.payee_account) != _account(b.payee_account)
    )


def _payment_pairs(
    user: Any, since: dt.date, account_known: bool = False
) -> Iterator[tuple[Decimal, str, Any, Any]]:
    """(amount, currency, earlier, later) for consecutive payments since a day to the same
    payee with the same amount and currency; with account_known, only transfers that name
    their destination account."""
    groups: dict[tuple[str, Decimal, str], list[Any]] = defaultdict(list)
    for tx in records(user, "transactions"):
        if tx.date >= since and tx.amount > 0 and tx.merchant:
            if account_known and not tx.payee_account:
                continue
            groups[(normalise(tx.merchant), tx.amount, tx.currency or "")].append(tx)
    for (_, amount, currency), txs in sorted(groups.items(), key=lambda kv: str(kv[0])):
        txs.sort(key=lambda t: (t.date, t.key))
        for a, b in itertools.pairwise(txs):
            yield amount, currency, a, b


def duplicate_payment(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Recent payments to the same merchant, same amount and currency, days apart."""
    out = []
    since = today - dt.timedelta(days=config.duplicate_lookback_days)
    for amount, currency, a, b in _payment_pairs(user, since):
        gap = (b.date - a.date).days
        if gap > config.duplicate_days or _accounts_differ(a, b):
            continue  # different destination accounts: payee_account_changed reports it
        out.append(
            draft(
                "duplicate_payment",
                "warning",
                f"Two payments of {amount} {currency} to {b.merchant} on {a.date} and "
                f"{b.date} may be a duplicate.",
                why="The same amount to the same merchant days apart is often a double charge.",
                next_step=f"Check the statement; if you were charged twice, ask {b.merchant} "
                "for a refund of one.",
                computation=f"same merchant and amount; {b.date} − {a.date} = {days(gap)} ≤ "
                f"{config.duplicate_days}",
                keys=(a.key, b.key),
                fact_ids=a.fact_ids + b.fact_ids,
            )
        )
    return out


def _tail(account: str) -> str:
    """An account number shown only by its last four characters (it is an identifier)."""
    return "…" + _account(account)[-4:]


def payee_account_changed(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Same payee and amount, but the money went to a different account than the time before.

    The pattern of invoice and rent fraud (new bank details) and of typos in a transfer.
    """
    out = []
    since = today - dt.timedelta(days=config.account_change_days)
    for amount, currency, a, b in _payment_pairs(user, since, account_known=True):
        if not _accounts_differ(a, b):
            continue
        out.append(
            draft(
                "payee_account_changed",
                "critical",
                f"The payment of {amount} {currency} to {b.merchant} on {b.date} went to a "
                f"different account ({_tail(b.payee_account)}) than on {a.date} "
                f"({_tail(a.payee_account)}): check the new bank details with the payee.",
                why="Changed bank details for a regular payee are the classic sign of invoice "
                "or rent fraud.",
                next_step=f"Call {b.merchant} on a number you already know (not one from the "
                "message) to confirm the new account; if it is not theirs, call your bank now.",
                computation=f"same payee and amount; account {_tail(a.payee_account)} ≠ "
                f"{_tail(b.payee_account)}; {b.date} − {a.date} = "
                f"{days((b.date - a.date).days)}, within the last "
                f"{config.account_change_days} days",
                keys=(a.key, b.key),
                fact_ids=a.fact_ids + b.fact_ids,
            )
        )
    return out


def subscription_renewal(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Active subscriptions that renew within the window."""
    out = []
    for sub in records(user, "subscriptions"):
        if sub.renews_on is None:
            continue
        if sub.cancelled_on is not None and sub.cancelled_on <= sub.renews_on:
            continue
        left = (sub.renews_on - today).days
        if not 0 <= left <= config.subscription_days:
            continue
        price = f" for {sub.amount} {sub.currency or ''}".rstrip() if sub.amount else ""
        out.append(
            draft(
                "subscription_renewal",
                "info",
                f"{sub.name} renews on {sub.renews_on}{price}.",
                why="A renewal charges the card unless it is cancelled before that day.",
                next_step=f"Keep it, or cancel {sub.name} before {sub.renews_on}.",
                computation=f"{sub.renews_on} − {today} = {days(left)} ≤ "
                f"{config.subscription_days}-day window",
                keys=(sub.key, str(sub.renews_on)),
                fact_ids=sub.fact_ids,
            )
        )
    return out


def _same_payee(a: str | None, b: str | None) -> bool:
    return bool(a and b and (mentions(normalise(a), b) or mentions(normalise(b), a)))


def _same_account(a: str | None, b: str | None) -> bool:
    """Whether two names of an account say one account: one within the other as a phrase,
    or one's words within the other's ("Nationwide account" and "Nationwide current
    account"; never "Nationwide savings" and "Nationwide current")."""
    return bool(a and b) and (_same_payee(a, b) or same_words(a, b))


def charge_after_cancellation(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Charges from a service after the day its subscription was cancelled."""
    since = today - dt.timedelta(days=config.charge_lookback_days)
    out = []
    for sub in records(user, "subscriptions"):
        if sub.cancelled_on is None:
            continue
        for tx in records(user, "transactions"):
            if not (tx.date > sub.cancelled_on and tx.date >= since and tx.amount > 0):
                continue
            if not _same_payee(tx.merchant, sub.name):
                continue
            amount = _money(tx.amount, tx.currency)
            out.append(
                draft(
                    "charge_after_cancellation",
                    "warning",
                    f"You cancelled {sub.name} on {sub.cancelled_on} but were charged {amount} "
                    f"by {tx.merchant} on {tx.date}.",
                    why="A charge after a cancellation is money you do not owe.",
                    next_step=f"Ask {sub.name} for a refund of {amount}, quoting the cancellation "
                    f"of {sub.cancelled_on}; if they refuse, dispute it with the card issuer.",
                    computation=f"charge {tx.date} > cancelled {sub.cancelled_on}",
                    keys=(sub.key, tx.key),
                    fact_ids=sub.fact_ids + tx.fact_ids,
                )
            )
    return out


def _payments(user: Any, today: dt.date) -> list[tuple[Any, dt.date | None, str]]:
    """(record, day, payee) of payments still to come: scheduled ones and dated transactions."""
    out: list[tuple[Any, dt.date | None, str]] = []
    for p in records(user, "scheduled_payments"):
        if (getattr(p, "ends_on", None) or dt.date.max) >= today:
            out.append((p, getattr(p, "next_date", None), p.payee))
    for tx in records(user, "transactions"):
        if tx.date >= today:
            out.append((tx, tx.date, tx.merchant or "a payee"))
    return out


def card_limit(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Payments still to come over a card's per-transaction limit, or together over its
    daily limit on one day."""
    out = []
    payments = _payments(user, today)
    for acct in records(user, "bank_accounts"):
        limit = getattr(acct, "per_transaction_limit", None)
        daily = getattr(acct, "daily_limit", None)
        if limit is None and daily is None:
            continue
        by_day: dict[tuple[dt.date, str | None], list[tuple[Any, str]]] = {}
        flagged: set[str] = set()  # payments already over the per-transaction limit
        for rec, day, payee in payments:
            if rec.amount is None or not _same_account(getattr(rec, "account", None), acct.name):
                continue
            if acct.currency is not None and rec.currency not in (None, acct.currency):
                continue
            if day is not None:  # one currency a sum: an account of unknown currency splits
                by_day.setdefault((day, acct.currency or rec.currency), []).append((rec, payee))
            if limit is None or rec.amount <= limit:
                continue
            flagged.add(rec.key)
            when = f" on {day}" if day else ""
            out.append(
                draft(
                    "card_limit",
                    "warning",
                    f"The {_money(rec.amount, rec.currency)} payment to {payee}{when} is over the "
                    f"{_money(limit, acct.currency)} per-transaction limit of your {acct.name}.",
                    why="The payment will be declined, which can cost a booking or a deposit.",
                    next_step=f"Pay with another card or by bank transfer, split it if {payee} "
                    f"agrees, or ask the bank to raise the {acct.name} limit beforehand.",
                    computation=f"{rec.amount} > limit {limit}",
                    keys=(acct.key, rec.key),
                    fact_ids=acct.fact_ids + rec.fact_ids,
                )
            )
        if daily is not None:
            out += _over_daily_limit(acct, daily, by_day, flagged)
    return out


def _over_daily_limit(
    acct: Any,
    daily: Decimal,
    by_day: dict[tuple[dt.date, str | None], list[tuple[Any, str]]],
    flagged: set[str],
) -> list[AlertDraft]:
    """One alert per day (and currency) whose payments from the account add up to more than
    its daily limit; a day of one payment already over the per-transaction limit has its
    alert."""
    out = []
    for day, currency in sorted(by_day, key=lambda dc: (dc[0], dc[1] or "")):
        day_payments = sorted(by_day[day, currency], key=lambda rp: rp[0].key)
        total = sum((rec.amount for rec, _ in day_payments), Decimal(0))
        if total <= daily or (len(day_payments) == 1 and day_payments[0][0].key in flagged):
            continue
        payees = ", ".join(payee for _, payee in day_payments)
        out.append(
            draft(
                "card_limit",
                "warning",
                f"Payments on {day} from your {acct.name} ({payees}) add up to "
                f"{_money(total, currency)}, over its {_money(daily, currency)} daily limit.",
                why="Payments past the daily limit are declined for the rest of the day.",
                next_step=f"Move one of them to another day or card, or ask the bank to raise "
                f"the {acct.name} daily limit for {day}.",
                computation=f"{' + '.join(str(r.amount) for r, _ in day_payments)} = {total} "
                f"> daily limit {daily}",
                keys=(
                    acct.key,
                    f"day:{day}" + (f":{currency}" if currency and not acct.currency else ""),
                ),
                fact_ids=acct.fact_ids + tuple(f for r, _ in day_payments for f in r.fact_ids),
            )
        )
    return out


_RECURRING = ("weekly", "fortnightly", "monthly", "every_two_months", "quarterly", "yearly")


def _next_after(p: Any, day: dt.date) -> dt.date | None:
    """The first due day on or after `day` of a recurring payment, when it can be worked out."""
    dom = getattr(p, "day_of_month", None)
    if dom:
        y, m = day.year, day.month
        for _ in range(13):
            last = calendar.monthrange(y, m)[1]
            due = dt.date(y, m, min(dom, last))
            if due >= day:
                return due
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    nxt = getattr(p, "next_date", None)
    return nxt if nxt is not None and nxt >= day else None


def autopay_from_closing_account(
    user: Any, today: dt.date, config: CheckConfig
) -> list[AlertDraft]:
    """Recurring payments (standing orders, direct debits) from an account being closed."""
    out = []
    for acct in records(user, "bank_accounts"):
        closing = getattr(acct, "closing_on", None)
        if closing is None:
            continue
        for p in records(user, "scheduled_payments"):
            recurring = getattr(p, "period", None) in _RECURRING or getattr(p, "method", None) in (
                "standing_order",
                "direct_debit",
            )
            if not recurring or not _same_account(getattr(p, "account", None), acct.name):
                continue
            if (getattr(p, "ends_on", None) or dt.date.max) <= closing:
                continue
            due = _next_after(p, max(closing, today))
            method = (getattr(p, "method", None) or "automatic payment").replace("_", " ")
            amount = f" of {_money(p.amount, p.currency)}" if p.amount is not None else ""
            fails = f"; the next one on {due} would fail" if due else ""
            out.append(
                draft(
                    "autopay_from_closing_account",
                    "critical",
                    f"Your {p.payee} {method}{amount} is paid from your {acct.name}, which is "
                    f"closing on {closing}{fails}.",
                    why="A payment from a closed account bounces: late fees, and for rent or "
                    "bills a missed payment on record.",
                    next_step=f"Move the {p.payee} {method} to the new account before {closing}.",
                    computation=f"{method} from '{p.account}' (recurring) and account closes "
                    f"{closing}" + (f"; next due {due}" if due else ""),
                    keys=(acct.key, p.key),
                    fact_ids=acct.fact_ids + p.fact_ids,
                )
            )
    return out


def _same_instruction(a: Any, b: Any) -> bool:
    """One instruction learned twice: same method and amount, the same account named."""
    amounts = {a.amount, b.amount} - {None}
    return (
        getattr(a, "method", None) == getattr(b, "method", None)
        and len(amounts) <= 1
        and same_words(getattr(a, "account", None), getattr(b, "account", None))
    )


def conflicting_payment_instructions(
    user: Any, today: dt.date, config: CheckConfig
) -> list[AlertDraft]:
    """Two live payment instructions for the same payee (a bill paid twice, or from where?)."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for p in records(user, "scheduled_payments"):
        if (getattr(p, "ends_on", None) or dt.date.max) >= today and p.payee:
            groups[normalise(p.payee)].append(p)
    out = []
    for _, items in sorted(groups.items()):
        items = distinct(sorted(items, key=lambda p: p.key), _same_instruction)
        for a, b in itertools.combinations(items, 2):

            def how(p: Any) -> str:
                method = (getattr(p, "method", None) or "payment").replace("_", " ")
                amount = f" of {_money(p.amount, p.currency)}" if p.amount is not None else ""
                src = f" from {p.account}" if getattr(p, "account", None) else ""
                return f"a {method}{amount}{src}"

            out.append(
                draft(
                    "conflicting_payment_instructions",
                    "warning",
                    f"Conflict: two payment instructions for {a.payee}: {how(a)} and {how(b)}.",
                    why="Both will run: the bill is paid twice, or from an account you meant "
                    "to stop using.",
                    next_step=f"Keep one instruction for {a.payee} and cancel the other with "
                    "the bank.",
                    computation=f"same payee '{a.payee}'; instructions {a.key} and {b.key} "
                    "both active",
                    keys=(a.key, b.key),
                    fact_ids=a.fact_ids + b.fact_ids,
                )
            )
    return out


def _ending(
    user: Any, today: dt.date, config: CheckConfig, collection: str
) -> Iterator[tuple[Any, int]]:
    for rec in records(user, collection):
        end = getattr(rec, "ends_on", None)
        if end is not None and 0 <= (end - today).days <= config.expiry_notice_days:
            yield rec, (end - today).days


def warranty_expiry(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Warranties that end within the notice window."""
    out = []
    for w, left in _ending(user, today, config, "warranties"):
        by = f" ({w.provider})" if getattr(w, "provider", None) else ""
        out.append(
            draft(
                "warranty_expiry",
                "warning",
                f"The warranty on your {w.item}{by} ends on {w.ends_on}, in {days(left)}.",
                why="Faults reported after that day are repaired at your cost.",
                next_step=f"Report any fault with the {w.item} to the seller or maker before "
                f"{w.ends_on}, with the receipt.",
                computation=f"{w.ends_on} − {today} = {days(left)} ≤ "
                f"{config.expiry_notice_days}-day window",
                keys=(w.key, str(w.ends_on)),
                fact_ids=w.fact_ids,
            )
        )
    return out


def promo_rate_expiry(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Promotional rates or prices (0% cards, intro tariffs) that end within the window."""
    out = []
    for p, left in _ending(user, today, config, "promotions"):
        by = f" on the {p.provider}" if getattr(p, "provider", None) else ""
        then = f"; then {p.then}" if getattr(p, "then", None) else ""
        out.append(
            draft(
                "promo_rate_expiry",
                "warning",
                f"Your {p.name}{by} ends on {p.ends_on}, in {days(left)}{then}.",
                why="After the promotional period the standard rate or price applies.",
                next_step=f"Before {p.ends_on}: pay off or move the balance, switch, or "
                "negotiate a new deal.",
                computation=f"{p.ends_on} − {today} = {days(left)} ≤ "
                f"{config.expiry_notice_days}-day window",
                keys=(p.key, str(p.ends_on)),
                fact_ids=p.fact_ids,
            )
        )
    return out
