"""The built-in checks: pure functions `(user, today, config) -> list[AlertDraft]`.

Each check reads only the typed state it is given and `today`; the same state and day always
give the same drafts. `REGISTRY` binds the names the catalog uses (`checks = [...]`) to them.
"""

from __future__ import annotations

import calendar
import datetime as dt
import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from typing import Any

from uac.checks.model import AlertDraft, Check, CheckConfig
from uac.checks.staleness import stale_value
from uac.fact_log.reference import (
    drug_data,
    food_data,
    mentions,
    normalise,
    passport_data,
    visa_data,
)


def _days(n: int) -> str:
    return f"{n} day" if abs(n) == 1 else f"{n} days"


def _home_country(user: Any) -> str | None:
    passport = getattr(user, "passport", None)
    identity = getattr(user, "identity", None)
    return getattr(passport, "issuing_country", None) or getattr(identity, "nationality", None)


def _upcoming_trips(user: Any, today: dt.date) -> list[Any]:
    # A trip matters until it is over: not yet departed, or still under way.
    return [t for t in user.trips if (t.return_date or t.depart) >= today]


# -- documents -----------------------------------------------------------------------------


def _latest(records: Iterable[Any], kind: Callable[[Any], str]) -> list[Any]:
    """Records with an end date that no later record of the same kind replaces (a renewal)."""
    last: dict[str, Any] = {}
    for rec in records:
        if rec.valid_until is not None:
            k = kind(rec)
            if k not in last or (rec.valid_until, rec.key) > (last[k].valid_until, last[k].key):
                last[k] = rec
    return [last[k] for k in sorted(last)]


def document_expiry(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Passport, driving licence, visas and insurance that expired or expire within the window.

    A visa or policy renewed by a later one of the same kind (visa: country; policy: kind and
    insurer) no longer counts.
    """
    docs: list[tuple[str, str, dt.date, tuple[str, ...], tuple[str, ...]]] = []
    for attr, label in (("passport", "passport"), ("driver_licence", "driving licence")):
        group = getattr(user, attr, None)
        expiry = getattr(group, "expiry_date", None)
        if expiry is not None:
            docs.append((attr, label, expiry, (), (f"user.{attr}.expiry_date",)))
    for visa in _latest(getattr(user, "visas", ()), lambda v: v.country):
        label = f"{visa.kind or 'visa'} for {visa.country}"
        docs.append((f"visa:{visa.key}", label, visa.valid_until, visa.fact_ids, ()))
    policies = getattr(user, "insurance_policies", ())
    for policy in _latest(policies, lambda p: f"{p.kind}|{normalise(p.provider or '')}"):
        label = f"{policy.kind} insurance" + (f" with {policy.provider}" if policy.provider else "")
        docs.append((f"insurance:{policy.key}", label, policy.valid_until, policy.fact_ids, ()))
    out = []
    for key, label, expiry, fact_ids, paths in docs:
        left = (expiry - today).days
        if left < 0:
            stage, severity = "expired", "critical"
            message = f"Your {label} expired on {expiry.isoformat()}."
            comp = f"{expiry} − {today} = {_days(left)} (< 0: expired)"
        elif left <= config.document_expiry_days:
            stage, severity = "expiring", "warning"
            message = f"Your {label} expires on {expiry.isoformat()}, in {_days(left)}."
            comp = f"{expiry} − {today} = {_days(left)} ≤ {config.document_expiry_days}-day window"
        else:
            continue
        out.append(
            AlertDraft("document_expiry", severity, message, comp, (key, stage), fact_ids, paths)
        )
    return out


def passport_validity_for_trip(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming trips for which the passport will not be valid long enough on entry."""
    data = passport_data()
    expiry = getattr(getattr(user, "passport", None), "expiry_date", None)
    home = _home_country(user)
    if expiry is None:
        return []  # nothing to compare; document_expiry and the manifest show the gap
    out = []
    for trip in _upcoming_trips(user, today):
        if trip.country == home:
            continue  # domestic: no passport needed
        if home in data.free_movement and trip.country in data.free_movement:
            continue  # EU/EEA/CH citizen inside the free-movement area
        rule = data.by_country.get(trip.country, data.default)
        if rule.rule == "three_months_after_departure":
            anchor, anchor_name = trip.return_date or trip.depart, "departure from the area"
        elif rule.rule == "six_months_after_arrival":
            anchor, anchor_name = trip.depart, "arrival"
        else:
            anchor, anchor_name = trip.return_date or trip.depart, "end of stay"
        margin = (expiry - anchor).days
        if margin >= rule.days:
            continue
        where = f"{trip.city}, {trip.country}" if trip.city else trip.country
        if rule.days:
            need = f"{rule.days} required after {anchor_name} ({rule.rule}; {rule.source})"
        else:
            need = f"valid until {anchor_name} required ({rule.source})"
        out.append(
            AlertDraft(
                "passport_validity_for_trip",
                "critical",
                f"Your passport (expires {expiry}) is not valid long enough for the trip to "
                f"{where} departing {trip.depart}.",
                f"{expiry} − {anchor} = {_days(margin)} < {need}",
                ("passport", trip.key),
                trip.fact_ids,
                ("user.passport.expiry_date",),
            )
        )
    return out


def visa_for_trip(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming trips to countries that need a visa or ETA the user does not hold."""
    _, table = visa_data()
    home = _home_country(user)
    if home is None:
        return []
    out = []
    for trip in _upcoming_trips(user, today):
        need, source = table.get((home, trip.country), ("none", ""))
        if need not in ("visa", "eta"):
            continue
        end = trip.return_date or trip.depart
        covering = [
            v
            for v in getattr(user, "visas", ())
            if v.country == trip.country
            and (v.valid_from is None or v.valid_from <= trip.depart)
            and (v.valid_until is None or v.valid_until >= end)
        ]
        if covering:
            continue
        partial = [v for v in getattr(user, "visas", ()) if v.country == trip.country]
        label = "a visa" if need == "visa" else "an electronic travel authorisation (ETA)"
        if partial:
            held = "; ".join(f"{v.valid_from or '…'} to {v.valid_until or '…'}" for v in partial)
            comp = f"held for {trip.country}: {held}; trip needs {trip.depart} to {end}"
        else:
            comp = f"{home} passport → {trip.country} needs {need} ({source}); none recorded"
        out.append(
            AlertDraft(
                "visa_for_trip",
                "critical" if need == "visa" else "warning",
                f"Your trip to {trip.country} departing {trip.depart} needs {label} that covers "
                f"it, and none is recorded.",
                comp,
                (trip.key, need),
                trip.fact_ids + tuple(f for v in partial for f in v.fact_ids),
                ("user.passport.issuing_country",),
            )
        )
    return out


# -- health --------------------------------------------------------------------------------


def _current_meds(user: Any, today: dt.date) -> list[Any]:
    # Stopped medications no longer matter; planned (future start) ones do.
    return [m for m in user.medications if m.stop_date is None or m.stop_date >= today]


def drug_allergy(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Current medications that are, or cross-react with, something the user is allergic to."""
    data = drug_data()
    out = []
    allergies = []
    for allergy in user.allergies:
        found = data.identify(allergy.substance)
        if found is not None:
            allergies.append((allergy, found[0], found[1]))
    if not allergies:
        return out
    for med in _current_meds(user, today):
        found = data.identify(med.name)
        if found is None:
            continue
        drug, classes = found
        for allergy, named, allergy_classes in allergies:
            ids = med.fact_ids + allergy.fact_ids
            keys = (med.key, allergy.key)
            if classes & allergy_classes:
                cls = next(iter(classes & allergy_classes))
                out.append(
                    AlertDraft(
                        "drug_allergy",
                        "critical",
                        f"{med.name} belongs to the {cls} class and you are allergic to "
                        f"{allergy.substance}"
                        + (f" ({allergy.reaction})." if allergy.reaction else "."),
                        f"{drug} ∈ {cls}; allergy '{allergy.substance}' → {named} ∈ {cls} "
                        f"({data.classes[cls]['source']})",
                        keys,
                        ids,
                    )
                )
                continue
            for rule in data.cross:
                if rule["drug_class"] in classes and rule["allergy_class"] in allergy_classes:
                    severity = rule["severity"]
                    if allergy.severity == "anaphylaxis":
                        severity = "critical"  # the source advises avoiding it entirely
                    out.append(
                        AlertDraft(
                            "drug_allergy",
                            severity,
                            f"{med.name} ({rule['drug_class']}) may cross-react with your "
                            f"{allergy.substance} allergy.",
                            f"{drug} ∈ {rule['drug_class']}; allergy → {rule['allergy_class']}; "
                            f"{rule['note']} ({rule['source']})",
                            keys,
                            ids,
                        )
                    )
    return out


def _span(med: Any) -> tuple[dt.date, dt.date]:
    return (med.start_date or dt.date.min, med.stop_date or dt.date.max)


def _matches(term: str, drug: str, classes: frozenset[str]) -> bool:
    return term == drug or term in classes


def drug_interaction(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Pairs of medications taken at the same time that interact dangerously."""
    data = drug_data()
    meds = []
    for med in _current_meds(user, today):
        found = data.identify(med.name)
        if found is not None:
            meds.append((med, *found))
    out = []
    for i, (a, drug_a, cls_a) in enumerate(meds):
        for b, drug_b, cls_b in meds[i + 1 :]:
            start = max(_span(a)[0], _span(b)[0])
            end = min(_span(a)[1], _span(b)[1])
            if start > end or end < today:
                continue  # never taken together from today on
            for pair in data.pairs:
                hit = (
                    _matches(pair["a"], drug_a, cls_a) and _matches(pair["b"], drug_b, cls_b)
                ) or (_matches(pair["a"], drug_b, cls_b) and _matches(pair["b"], drug_a, cls_a))
                if not hit:
                    continue
                overlap = f"{'…' if start == dt.date.min else start} to " + (
                    "ongoing" if end == dt.date.max else str(end)
                )
                out.append(
                    AlertDraft(
                        "drug_interaction",
                        pair["severity"],
                        f"{a.name} and {b.name} together: {pair['effect']}.",
                        f"{drug_a} + {drug_b} ({pair['a']} × {pair['b']}) overlap {overlap} "
                        f"({pair['source']})",
                        tuple(sorted((a.key, b.key))),
                        a.fact_ids + b.fact_ids,
                    )
                )
                break
    return out


def _allergens(user: Any) -> list[tuple[Any, str, list[str]]]:
    _, _, allergens = food_data()
    out = []
    for allergy in user.allergies:
        norm = normalise(allergy.substance)
        for name, spec in allergens.items():
            if any(mentions(norm, word) for word in spec["names"]):
                out.append((allergy, name, spec["signals"]))
    return out


def food_allergy(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming meal events or recent orders whose words reveal a food the user is allergic to."""
    found = _allergens(user)
    if not found:
        return []
    items: list[tuple[Any, str, str]] = []
    for event in getattr(user, "events", ()):
        if (event.end or event.start).date() >= today:
            text = " ".join(filter(None, (event.title, event.location)))
            items.append((event, text, f"event '{event.title}' on {event.start.date()}"))
    since = today - dt.timedelta(days=config.food_lookback_days)
    for tx in getattr(user, "transactions", ()):
        if tx.date >= since:
            text = " ".join(filter(None, (tx.merchant, tx.note)))
            items.append((tx, text, f"order at {tx.merchant} on {tx.date}"))
    out = []
    for record, text, label in items:
        norm = normalise(text)
        for allergy, allergen, signals in found:
            words = [w for w in signals if mentions(norm, w)]
            if not words:
                continue
            severe = allergy.severity in ("severe", "anaphylaxis")
            out.append(
                AlertDraft(
                    "food_allergy",
                    "critical" if severe else "warning",
                    f"The {label} may involve {allergen.replace('_', ' ')}, and you are "
                    f"allergic to {allergy.substance}.",
                    f"'{text}' mentions {', '.join(repr(w) for w in words)} → {allergen}; "
                    f"allergy '{allergy.substance}' (severity {allergy.severity or 'unknown'})",
                    (record.key, allergy.key),
                    record.fact_ids + allergy.fact_ids,
                )
            )
    return out


# -- schedule and deadlines ----------------------------------------------------------------


def _end(event: Any, config: CheckConfig) -> dt.datetime:
    return event.end or event.start + dt.timedelta(minutes=config.event_default_minutes)


def event_overlap(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming calendar events whose times overlap."""
    events = sorted(
        (e for e in user.events if _end(e, config).date() >= today), key=lambda e: e.start
    )
    out = []
    for i, a in enumerate(events):
        a_end = _end(a, config)
        for b in events[i + 1 :]:
            if b.start >= a_end:
                break  # sorted by start: nothing later overlaps a
            overlap = min(a_end, _end(b, config)) - b.start
            minutes = int(overlap.total_seconds() // 60)
            out.append(
                AlertDraft(
                    "event_overlap",
                    "warning",
                    f"'{a.title}' and '{b.title}' overlap on {b.start.date()}.",
                    f"{a.title}: {a.start:%Y-%m-%d %H:%M}–{a_end:%H:%M}; {b.title}: "
                    f"{b.start:%H:%M}–{_end(b, config):%H:%M}; overlap {minutes} min",
                    tuple(sorted((a.key, b.key))),
                    a.fact_ids + b.fact_ids,
                )
            )
    return out


def event_during_trip(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming events at home that fall while the user is away on a trip."""
    out = []
    trips = _upcoming_trips(user, today)
    for event in user.events:
        day = event.start.date()
        if day < today:
            continue
        for trip in trips:
            last = trip.return_date or trip.depart
            if not trip.depart <= day <= last:
                continue
            place = normalise(event.location or "")
            if (trip.city and mentions(place, trip.city)) or mentions(place, trip.country):
                continue  # the event is at the destination: part of the trip
            out.append(
                AlertDraft(
                    "event_during_trip",
                    "warning",
                    f"'{event.title}' on {day} falls during your trip to "
                    f"{trip.city or trip.country} ({trip.depart} to {last}).",
                    f"{trip.depart} ≤ {day} ≤ {last}; event location "
                    f"'{event.location or 'unknown'}' is not the destination",
                    (event.key, trip.key),
                    event.fact_ids + trip.fact_ids,
                )
            )
    return out


def deadline_approaching(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Open tasks that are overdue or due within the window."""
    out = []
    for task in user.tasks:
        if task.due_date is None or task.status in ("done", "dropped"):
            continue
        left = (task.due_date - today).days
        if left < 0:
            stage, severity = "overdue", "critical"
            message = f"'{task.goal}' was due on {task.due_date} and is not done."
            comp = f"{task.due_date} − {today} = {_days(left)} (overdue)"
        elif left <= config.deadline_days:
            stage, severity = "due_soon", "warning"
            message = f"'{task.goal}' is due on {task.due_date}, in {_days(left)}."
            comp = f"{task.due_date} − {today} = {_days(left)} ≤ {config.deadline_days}-day window"
        else:
            continue
        out.append(
            AlertDraft(
                "deadline_approaching", severity, message, comp, (task.key, stage), task.fact_ids
            )
        )
    return out


# -- finance -------------------------------------------------------------------------------


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
    """Budgets whose category spend in the current period exceeds the limit."""
    out = []
    for budget in user.budgets:
        start, end, label = period_bounds(budget.period, today)
        cat = budget.category.strip().lower()
        txs = [
            t
            for t in user.transactions
            if start <= t.date <= end
            and (t.category or "").strip().lower() == cat
            and t.amount > 0
            and (budget.currency is None or t.currency in (None, budget.currency))
        ]
        spent = sum((t.amount for t in txs), Decimal(0))
        threshold = budget.limit * Decimal(str(config.budget_warn_fraction))
        if spent <= threshold:
            continue
        cur = f" {budget.currency}" if budget.currency else ""
        out.append(
            AlertDraft(
                "budget_exceeded",
                "warning",
                f"You have spent {spent}{cur} on {budget.category} in {label}, over your "
                f"{budget.limit}{cur} {budget.period}ly budget.",
                f"sum of {len(txs)} {budget.category} payments {start} to {end} = {spent}{cur} "
                f"> {threshold}{cur}",
                (budget.key, label),
                budget.fact_ids + tuple(f for t in txs for f in t.fact_ids),
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
    for tx in user.transactions:
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
            AlertDraft(
                "duplicate_payment",
                "warning",
                f"Two payments of {amount} {currency} to {b.merchant} on {a.date} and "
                f"{b.date} may be a duplicate.",
                f"same merchant and amount; {b.date} − {a.date} = {_days(gap)} ≤ "
                f"{config.duplicate_days}",
                (a.key, b.key),
                a.fact_ids + b.fact_ids,
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
            AlertDraft(
                "payee_account_changed",
                "critical",
                f"The payment of {amount} {currency} to {b.merchant} on {b.date} went to a "
                f"different account ({_tail(b.payee_account)}) than on {a.date} "
                f"({_tail(a.payee_account)}): check the new bank details with the payee.",
                f"same payee and amount; account {_tail(a.payee_account)} ≠ "
                f"{_tail(b.payee_account)}; {b.date} − {a.date} = "
                f"{_days((b.date - a.date).days)}, within the last "
                f"{config.account_change_days} days",
                (a.key, b.key),
                a.fact_ids + b.fact_ids,
            )
        )
    return out


def subscription_renewal(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Active subscriptions that renew within the window."""
    out = []
    for sub in user.subscriptions:
        if sub.renews_on is None:
            continue
        if sub.cancelled_on is not None and sub.cancelled_on <= sub.renews_on:
            continue
        left = (sub.renews_on - today).days
        if not 0 <= left <= config.subscription_days:
            continue
        price = f" for {sub.amount} {sub.currency or ''}".rstrip() if sub.amount else ""
        out.append(
            AlertDraft(
                "subscription_renewal",
                "info",
                f"{sub.name} renews on {sub.renews_on}{price}.",
                f"{sub.renews_on} − {today} = {_days(left)} ≤ "
                f"{config.subscription_days}-day window",
                (sub.key, str(sub.renews_on)),
                sub.fact_ids,
            )
        )
    return out


def service_due(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Vehicles whose latest service says the next one is due soon (by date or mileage)."""
    latest: dict[str, Any] = {}
    for svc in user.services:
        name = normalise(svc.vehicle)
        if name not in latest or svc.date > latest[name].date:
            latest[name] = svc
    out = []
    for name, svc in sorted(latest.items()):
        if svc.next_due_date is not None:
            left = (svc.next_due_date - today).days
            if left <= config.service_days:
                overdue = left < 0
                out.append(
                    AlertDraft(
                        "service_due",
                        "warning",
                        f"The {svc.vehicle} service is {'overdue since' if overdue else 'due on'} "
                        f"{svc.next_due_date}.",
                        f"{svc.next_due_date} − {today} = {_days(left)} ≤ "
                        f"{config.service_days}-day window",
                        (svc.key, "date"),
                        svc.fact_ids,
                    )
                )
        if svc.next_due_mileage is None:
            continue
        for vehicle in user.vehicles:
            if vehicle.mileage is None or not mentions(name, f"{vehicle.make} {vehicle.model}"):
                continue
            left_km = svc.next_due_mileage - vehicle.mileage
            if left_km <= config.service_km:
                out.append(
                    AlertDraft(
                        "service_due",
                        "warning",
                        f"The {svc.vehicle} is due a service at {svc.next_due_mileage} km "
                        f"(odometer {vehicle.mileage} km).",
                        f"{svc.next_due_mileage} − {vehicle.mileage} = {left_km} km ≤ "
                        f"{config.service_km} km margin",
                        (svc.key, vehicle.key, "mileage"),
                        svc.fact_ids + vehicle.fact_ids,
                    )
                )
    return out


REGISTRY: dict[str, Check] = {
    "document_expiry": document_expiry,
    "passport_validity_for_trip": passport_validity_for_trip,
    "visa_for_trip": visa_for_trip,
    "drug_allergy": drug_allergy,
    "drug_interaction": drug_interaction,
    "food_allergy": food_allergy,
    "event_overlap": event_overlap,
    "event_during_trip": event_during_trip,
    "deadline_approaching": deadline_approaching,
    "budget_exceeded": budget_exceeded,
    "duplicate_payment": duplicate_payment,
    "payee_account_changed": payee_account_changed,
    "subscription_renewal": subscription_renewal,
    "service_due": service_due,
    "stale_value": stale_value,  # checks/staleness.py
}

# Checks whose result can change with nothing but the date (the scheduler re-runs these).
TIME_BASED: frozenset[str] = frozenset(REGISTRY)


def run_checks(
    names: Iterable[str], user: Any, today: dt.date, config: CheckConfig
) -> tuple[list[AlertDraft], dict[str, str]]:
    """Run the named checks; returns drafts and {check: error} for those that failed."""
    drafts: list[AlertDraft] = []
    errors: dict[str, str] = {}
    for name in names:
        check = REGISTRY.get(name)
        if check is None:
            errors[name] = f"unknown check {name!r}"
            continue
        try:
            drafts.extend(check(user, today, config))
        except Exception as exc:  # one broken check must not hide the others' alerts
            errors[name] = f"{type(exc).__name__}: {exc}"
    return drafts, errors
