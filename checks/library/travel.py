"""Checks on trips themselves: stay limits, health certificates, travel insurance cover, and
hotel check-out against the flight home.

Reference data: fact_log/reference/data/travel_rules.toml (stay limits, certificates).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from uac.checks.library.common import (
    cap,
    days,
    draft,
    home_country,
    names_place,
    records,
    to_confirm,
    trip_end,
    trip_label,
    upcoming_trips,
)
from uac.checks.model import AlertDraft, CheckConfig
from uac.fact_log.reference import (
    country_name,
    mentions,
    normalise,
    travel_rules,
    vaccine_words,
)


def _first_overstay(stays: set[dt.date], limit: int, window: int, start: dt.date) -> Any:
    """(day, days in the window ending that day) of the first day from `start` past the limit."""
    for day in sorted(d for d in stays if d >= start):
        lo = day - dt.timedelta(days=window - 1)
        count = sum(1 for d in stays if lo <= d <= day)
        if count > limit:
            return day, count
    return None


def _bound(rule: dict[str, Any], home: str) -> bool:
    """Whether a stay-limit rule binds a national of `home`."""
    if home in rule.get("exempt", ()):
        return False
    who = rule.get("applies_to", "all")
    return who == "all" or home in who


def _days_in(trips: list[Any]) -> set[dt.date]:
    stays: set[dt.date] = set()
    for t in trips:
        length = (trip_end(t) - t.depart).days
        stays.update(t.depart + dt.timedelta(days=i) for i in range(length + 1))
    return stays


_OVERSTAY_WHY = "Overstaying brings fines, an entry ban and trouble with future visas."


def _rolling(rule: dict[str, Any], user: Any, today: dt.date, check: str) -> list[AlertDraft]:
    """Upcoming trips that take the days spent in the area over `days` in any `window`."""
    members = set(rule["countries"])
    trips = [t for t in records(user, "trips") if t.country in members]
    stays = _days_in(trips)
    out = []
    for trip in sorted(upcoming_trips(user, today), key=lambda t: t.depart):
        if trip.country not in members:
            continue
        found = _first_overstay(stays, rule["days"], rule["window"], max(trip.depart, today))
        if found is None or found[0] > trip_end(trip):
            continue
        day, count = found
        out.append(
            draft(
                check,
                rule.get("severity", "critical"),
                f"{cap(trip_label(trip))} would break the {rule['name']} limit of "
                f"{rule['days']} days in any {rule['window']}: by {day} you would have "
                f"spent {count} days in the area.",
                why=_OVERSTAY_WHY,
                next_step=f"Shorten the stay (leave the area by the day before {day}), or "
                "apply for a national long-stay visa of the country you stay in.",
                computation=f"days in {rule['name']} area from "
                f"{day - dt.timedelta(days=rule['window'] - 1)} to {day} = {count} > "
                f"{rule['days']} ({rule['source']})",
                keys=(rule["name"], trip.key),
                fact_ids=tuple(f for t in trips for f in t.fact_ids),
            )
        )
    return out


def _per_entry(rule: dict[str, Any], user: Any, today: dt.date, check: str) -> list[AlertDraft]:
    """Upcoming trips (with a return day) longer than one visit may last."""
    out = []
    for trip in sorted(upcoming_trips(user, today), key=lambda t: t.depart):
        if trip.country not in rule["countries"] or trip.return_date is None:
            continue
        if rule.get("count") == "after_entry":  # admitted until entry + days
            last = trip.depart + dt.timedelta(days=rule["days"])
            counted = f"admitted until {trip.depart} + {rule['days']} days = {last}"
        else:  # the arrival day is day 1
            last = trip.depart + dt.timedelta(days=rule["days"] - 1)
            counted = f"day 1 = {trip.depart}, day {rule['days']} = {last}"
        if trip.return_date <= last:
            continue
        stay = (trip.return_date - trip.depart).days + 1
        out.append(
            draft(
                check,
                rule.get("severity", "critical"),
                f"{cap(trip_label(trip))} is {days(stay)}, longer than the {rule['days']} days "
                f"the {rule['name']} rule allows per visit: you would have to leave by {last}.",
                why=_OVERSTAY_WHY,
                next_step=f"Leave by {last}, or apply for a visa that allows the longer stay "
                "before you travel.",
                computation=f"{counted} < return {trip.return_date} ({rule['source']})",
                keys=(rule["name"], trip.key),
                fact_ids=trip.fact_ids,
            )
        )
    return out


def _stay_limits(user: Any, today: dt.date, check: str) -> list[AlertDraft]:
    """Every stay-limit rule of travel_rules.toml reported by `check`, for the user's
    nationality, over every recorded trip; one alert per trip (the first rule it breaks)."""
    home = home_country(user)
    if home is None:
        return []  # visa_for_trip asks for the nationality once
    out: list[AlertDraft] = []
    said: set[str] = set()  # trips already reported (a visit's limit before the yearly one)
    for rule in travel_rules()["stay_limit"]:
        if rule.get("check", "stay_limit") != check or not _bound(rule, home):
            continue
        found = (_rolling if rule.get("per", "rolling") == "rolling" else _per_entry)(
            rule, user, today, check
        )
        for alert in found:
            if alert.record_keys[1] not in said:
                said.add(alert.record_keys[1])
                out.append(alert)
    return out


def schengen_stay_limit(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming stays that break the Schengen short-stay limit (90 days in any 180).

    Every recorded trip to a member country counts (arrival and departure days included);
    nationals of the area's exempt countries are not limited. The same mechanism as
    `stay_limit` (travel_rules.toml `[[stay_limit]]`), kept under its own name.
    """
    return _stay_limits(user, today, "schengen_stay_limit")


def stay_limit(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming stays that break a country's visitor limit (UK, US visa waiver, Canada,
    Japan, Australia, ...): per visit, or in a rolling window over every recorded trip."""
    return _stay_limits(user, today, "stay_limit")


def _vaccinated(user: Any, vaccine: str) -> bool:
    words = vaccine_words()[vaccine]
    return any(
        any(mentions(normalise(v.name), w) for w in words) for v in records(user, "vaccinations")
    )


def health_certificate(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming trips to countries that require a vaccination certificate not on record.

    With no vaccination recorded at all the user may simply never have said so: the check
    asks once (a low-severity "to confirm" question) instead of warning; once any vaccination
    is on record, a missing certificate vaccine is a warning.
    """
    home = home_country(user)
    known = bool(records(user, "vaccinations"))
    out = []
    for rule in travel_rules()["certificate"]:
        if _vaccinated(user, rule["vaccine"]):
            continue  # yellow fever: one dose, certificate valid for life
        for trip in upcoming_trips(user, today):
            if trip.country not in rule["countries"] or trip.country == home:
                continue
            need = (
                f"{country_name(trip.country)} requires a {rule['name']} vaccination "
                f"certificate from every traveller"
            )
            why = (
                "Without the certificate you can be refused boarding or entry, or "
                "vaccinated at the border."
            )
            if not known:
                question = (
                    f"have you had the {rule['name']} vaccine, and do you have its "
                    f"certificate? {need} for {trip_label(trip)}."
                )
                out.append(
                    to_confirm(
                        "health_certificate",
                        f"{rule['name'].replace(' ', '_')}_vaccination",
                        question,
                        why + f" If not: book it at a travel clinic at least 10 days "
                        f"before {trip.depart}.",
                        trip.fact_ids,
                    )
                )
                break  # one question, asked once, whatever the number of trips
            out.append(
                draft(
                    "health_certificate",
                    "critical",
                    f"{need}, and none is recorded for {trip_label(trip)}.",
                    why=why,
                    next_step=f"Book a {rule['name']} vaccination at a travel clinic at least "
                    f"10 days before {trip.depart} and carry the certificate.",
                    computation=f"{trip.country} ∈ {rule['name']} certificate list "
                    f"({rule['source']}); no matching vaccination recorded",
                    keys=(rule["name"], trip.key),
                    fact_ids=trip.fact_ids,
                )
            )
    return out


def _uncovered(policies: list[Any], first: dt.date, last: dt.date) -> list[tuple[dt.date, dt.date]]:
    """The stretches of first..last (inclusive) no policy is in force on, in order: a sweep
    over the policies' intervals (an open end is in force for good), never a walk day by day."""
    spans = sorted((p.valid_from or dt.date.min, p.valid_until or dt.date.max) for p in policies)
    gaps, day = [], first
    for start, end in spans:
        if day > last:
            break
        if end < day:
            continue
        if start > day:
            gaps.append((day, min(start - dt.timedelta(days=1), last)))
        if end >= last:
            day = last + dt.timedelta(days=1)
            break
        day = max(day, end + dt.timedelta(days=1))
    if day <= last:
        gaps.append((day, last))
    return gaps


def insurance_for_trip(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming trips that the user's travel insurance does not cover from start to end.

    Cover is the union of the travel policies, so back-to-back policies (one ends on the 14th,
    the renewal starts on the 15th) cover a trip spanning both. Days already past are not
    counted (nothing can be done about them). Only when a travel policy is recorded: no
    policy at all is not assumed to be a gap.
    """
    policies = [p for p in records(user, "insurance_policies") if p.kind == "travel"]
    if not policies:
        return []
    out = []
    for trip in upcoming_trips(user, today):
        end = trip_end(trip)
        gaps = _uncovered(policies, max(trip.depart, today), end)
        if not gaps:
            continue
        first = gaps[0][0]
        missing = sum((b - a).days + 1 for a, b in gaps)
        ended = [p for p in policies if p.valid_until is not None and p.valid_until < first]
        later = [p for p in policies if p.valid_from is not None and first < p.valid_from <= end]
        if ended and (first > trip.depart or not later):
            # cover runs out: name the policy that ended last before the gap
            policy = max(ended, key=lambda p: (p.valid_until, p.key))
            until = policy.valid_until
            name = _policy_name(policy)
            if until < trip.depart:
                message = f"Your {name} ends on {until}, before {trip_label(trip)}."
            else:
                message = (
                    f"Your {name} ends on {until}, while you are away on {trip_label(trip)}: "
                    f"{days(missing)} without cover."
                )
            computation = f"cover ends {until} < trip end {end}"
        elif later:
            # nothing in force on the first day; the next policy starts during the trip
            policy = min(later, key=lambda p: (p.valid_from, p.key))
            name = _policy_name(policy)
            message = (
                f"Your {name} starts on {policy.valid_from}, after you leave for "
                f"{trip_label(trip)} on {trip.depart}: {days(missing)} without cover."
            )
            computation = f"cover starts {policy.valid_from} > trip start {trip.depart}"
        else:
            # every policy starts after the trip is over
            policy = min(policies, key=lambda p: (p.valid_from or dt.date.max, p.key))
            name = _policy_name(policy)
            message = (
                f"No travel insurance covers {trip_label(trip)}: your {name} starts on "
                f"{policy.valid_from}, after it."
            )
            computation = f"cover starts {policy.valid_from} > trip end {end}"
        out.append(
            draft(
                "insurance_for_trip",
                "warning",
                message,
                why="Medical care, cancellations and lost luggage abroad are not covered "
                "outside the policy's dates.",
                next_step=f"Renew or extend the {name} to cover {trip.depart} to {end}.",
                computation=computation,
                keys=(policy.key, trip.key),
                fact_ids=policy.fact_ids + trip.fact_ids,
            )
        )
    return out


def _policy_name(policy: Any) -> str:
    """'travel insurance with Aviva'."""
    return "travel insurance" + (f" with {policy.provider}" if policy.provider else "")


def checkout_vs_flight(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Hotel check-outs that do not meet the flight (or trip return) out of the same place."""
    bookings = records(user, "bookings")
    hotels = [b for b in bookings if getattr(b, "kind", None) == "hotel" and b.end is not None]
    flights = [
        (b.start.date(), "flight", b) for b in bookings if getattr(b, "kind", None) == "flight"
    ]
    out = []
    for hotel in hotels:
        checkout = hotel.end.date()
        if checkout < today:
            continue
        place = hotel.place or ""
        legs = [(day, what, b) for day, what, b in flights if names_place(b.place, place)]
        legs += [
            (t.return_date, "return", t)
            for t in records(user, "trips")
            if t.return_date and names_place(place, t.city or country_name(t.country))
        ]
        near = [leg for leg in legs if abs((leg[0] - checkout).days) <= config.checkout_gap_days]
        if not near or any(day == checkout for day, _, _ in near):
            continue
        day, what, rec = min(near, key=lambda leg: (abs((leg[0] - checkout).days), leg[0]))
        gap = (day - checkout).days
        if gap > 0:
            problem = f"{days(gap).replace('day', 'night')} with no booking"
            step = f"Extend the hotel stay to {day} or book somewhere for the gap."
        else:
            problem = f"you leave {days(-gap)} before check-out (nights paid but not used)"
            step = f"Move the check-out to {day} (ask for a refund of the unused nights)."
        leaving = "flight" if what == "flight" else "trip return (flight)"
        out.append(
            draft(
                "checkout_vs_flight",
                "warning",
                f"Conflict: check-out from your {place} hotel is on {checkout} but your "
                f"{leaving} from {place} is on {day}: {problem}.",
                why="Dates that do not meet leave you without a room or paying for nights "
                "you do not use.",
                next_step=step,
                computation=f"check-out {checkout} vs departure {day}: {gap:+d} days",
                keys=(hotel.key, rec.key),
                fact_ids=hotel.fact_ids + rec.fact_ids,
            )
        )
    return out
