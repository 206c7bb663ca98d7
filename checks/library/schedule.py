"""Schedule checks: events that conflict (once or recurring), events and deadlines while the
user is away, deadlines approaching, and vehicle services due.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from uac.checks.library.common import (
    days,
    distinct,
    draft,
    names_place,
    records,
    same_words,
    trip_end,
    trip_label,
    upcoming_trips,
)
from uac.checks.library.occurrences import (
    default_end,
    first_between,
    first_overlap,
    repeats,
    rhythm,
    user_zone,
)
from uac.checks.model import AlertDraft, CheckConfig
from uac.fact_log.calendar_words import weekday_name
from uac.fact_log.reference import country_name, mentions, normalise


def _end(event: Any, config: CheckConfig) -> dt.datetime:
    return default_end(event, config)


_repeats = repeats


def _at(event: Any) -> str:
    return f" at {event.location}" if getattr(event, "location", None) else ""


CONFLICT_WHY = "You cannot be in both places at once."


def _same_event(a: Any, b: Any) -> bool:
    """One event learned twice: same start and rhythm, one title's words within the other's."""
    return a.start == b.start and _repeats(a) == _repeats(b) and same_words(a.title, b.title)


def _events(user: Any) -> list[Any]:
    """The user's events, each learned twice counted once (the first record kept)."""
    return distinct(sorted(records(user, "events"), key=lambda e: e.key), _same_event)


def event_overlap(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming one-off calendar events whose times overlap (recurring ones: see below)."""
    events = sorted(
        (e for e in _events(user) if _end(e, config).date() >= today and not _repeats(e)),
        key=lambda e: e.start,
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
                draft(
                    "event_overlap",
                    "warning",
                    f"Conflict on {b.start.date()}: '{a.title}'{_at(a)} at {a.start:%H:%M} and "
                    f"'{b.title}'{_at(b)} at {b.start:%H:%M} overlap by {minutes} min.",
                    why=CONFLICT_WHY,
                    next_step=f"Move or cancel one of '{a.title}' and '{b.title}'.",
                    computation=f"{a.title}: {a.start:%Y-%m-%d %H:%M}–{a_end:%H:%M}; {b.title}: "
                    f"{b.start:%H:%M}–{_end(b, config):%H:%M}; overlap {minutes} min",
                    keys=tuple(sorted((a.key, b.key))),
                    fact_ids=a.fact_ids + b.fact_ids,
                )
            )
    return out


def recurring_event_collision(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """A recurring event that collides with another event (recurring or one-off): both are
    expanded into occurrences (checks/library/occurrences.py) and the first day they meet
    is named."""
    until = today + dt.timedelta(weeks=config.collision_weeks)
    zone = user_zone(user)
    events = [e for e in _events(user) if _end(e, config).date() >= today or _repeats(e)]
    out = []
    for i, a in enumerate(events):
        for b in events[i + 1 :]:
            if not (_repeats(a) or _repeats(b)):
                continue  # two one-off events: event_overlap
            first = first_overlap(a, b, today, until, config, zone)
            if first is None:
                continue
            oa, ob = first
            day = max(oa, ob, key=lambda o: o.start).day
            length_a, length_b = oa.end - oa.start, ob.end - ob.start
            out.append(
                draft(
                    "recurring_event_collision",
                    "warning",
                    f"Conflict: '{a.title}' ({rhythm(a, zone)}) and '{b.title}' "
                    f"({rhythm(b, zone)}) collide, first on {weekday_name(day)} {day}.",
                    why=CONFLICT_WHY + " A recurring clash comes back every time.",
                    next_step=f"Move one of '{a.title}' and '{b.title}' to another time, or "
                    "skip one of them on the days they meet.",
                    computation=f"{a.title} {oa.start:%Y-%m-%d %H:%M}+{length_a}; {b.title} "
                    f"{ob.start:%Y-%m-%d %H:%M}+{length_b}; first overlap {day}",
                    keys=tuple(sorted((a.key, b.key))),
                    fact_ids=a.fact_ids + b.fact_ids,
                )
            )
    return out


def _at_destination(event: Any, trip: Any) -> bool:
    """Whether an event's place names the trip's destination (then it is part of the trip)."""
    place = event.location or ""
    return (
        names_place(place, trip.city)
        or names_place(place, trip.country)
        or names_place(place, country_name(trip.country))
    )


def _when(event: Any, occurrence: Any, zone: Any) -> str:
    """'on 2025-03-13' for a one-off, 'on Thursday 2025-03-13 (every Thursday 19:00)' for a
    series: the occurrence the alert is about is named."""
    if not _repeats(event):
        return f"on {occurrence.day}"
    return f"on {weekday_name(occurrence.day)} {occurrence.day} ({rhythm(event, zone)})"


def event_during_trip(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming events (one-off, or an occurrence of a series) that fall while the user is
    away: on a trip whose destination the event's place does not name, or in a time away
    (out of office, on leave) that no trip covers. Compound: events × trips × away periods."""
    out = []
    zone = user_zone(user)
    trips = upcoming_trips(user, today)
    away = [p for p in records(user, "away_periods") if (p.end or p.start) >= today]
    for event in _events(user):
        for trip in trips:
            if _at_destination(event, trip):
                continue  # the event is at the destination: part of the trip
            last = trip_end(trip)
            hit = first_between(event, max(trip.depart, today), last, config, zone)
            if hit is None:
                continue
            out.append(
                _while_away(
                    event,
                    hit,
                    zone,
                    f"on {trip_label(trip)}",
                    "change the trip dates",
                    f"{trip.depart} ≤ {hit.day} ≤ {last}; event location "
                    f"'{event.location or 'unknown'}' is not the destination",
                    trip,
                    trip.key,
                )
            )
        for period in away:
            end = period.end or period.start
            if any(t.depart <= period.start and end <= trip_end(t) for t in trips):
                continue  # a trip covers it: said above, with the trip's name
            place = getattr(period, "place", None)
            if place and names_place(event.location, place):
                continue  # the event is where the user will be
            hit = first_between(event, max(period.start, today), end, config, zone)
            if hit is None or any(t.depart <= hit.day <= trip_end(t) for t in trips):
                continue
            out.append(
                _while_away(
                    event,
                    hit,
                    zone,
                    _away_label(period),
                    "tell the people expecting you",
                    f"{period.start} ≤ {hit.day} ≤ {end} (time away)",
                    period,
                    f"away:{period.key}",
                )
            )
    return out


def _while_away(
    event: Any,
    hit: Any,
    zone: Any,
    where: str,
    instead: str,
    computation: str,
    away: Any,
    away_key: str,
) -> Any:
    """The alert of an event (its occurrence `hit`) that falls while the user is away."""
    return draft(
        "event_during_trip",
        "warning",
        f"Conflict: '{event.title}'{_at(event)} {_when(event, hit, zone)} is while "
        f"you are away {where}.",
        why="You will not be there for it.",
        next_step=f"Reschedule or cancel '{event.title}'"
        + (f" on {hit.day}" if _repeats(event) else "")
        + f", or {instead}.",
        computation=computation,
        keys=(event.key, away_key),
        fact_ids=event.fact_ids + away.fact_ids,
    )


def _open_tasks(user: Any) -> list[Any]:
    return [
        t
        for t in records(user, "tasks")
        if t.due_date is not None and t.status not in ("done", "dropped")
    ]


def deadline_approaching(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Open tasks that are overdue or due within the window."""
    out = []
    for task in _open_tasks(user):
        left = (task.due_date - today).days
        if left < 0:
            stage, severity = "overdue", "critical"
            message = f"'{task.goal}' was due on {task.due_date} and is not done."
            comp = f"{task.due_date} − {today} = {days(left)} (overdue)"
            step = f"Do '{task.goal}' now, or ask for an extension."
        elif left <= config.deadline_days:
            stage, severity = "due_soon", "warning"
            message = f"'{task.goal}' is due on {task.due_date}, in {days(left)}."
            comp = f"{task.due_date} − {today} = {days(left)} ≤ {config.deadline_days}-day window"
            step = f"Plan time for '{task.goal}' before {task.due_date}."
        else:
            continue
        out.append(
            draft(
                "deadline_approaching",
                severity,
                message,
                why="Missing a deadline can cost a fee, a penalty or the chance itself.",
                next_step=step,
                computation=comp,
                keys=(task.key, stage),
                fact_ids=task.fact_ids,
            )
        )
    return out


def _away_label(period: Any) -> str:
    """'(on holiday, 2025-03-10 to 2025-03-14)' for an away period."""
    why = f"{period.reason}, " if getattr(period, "reason", None) else ""
    end = f" to {period.end}" if period.end else ""
    return f"({why}{period.start}{end})"


def _due_while_away(
    task: Any, start: dt.date, end: dt.date, where: str, keys: Any, ids: Any
) -> Any:
    """The alert for a task due between the first and last day of a time away."""
    return draft(
        "deadline_while_away",
        "warning",
        f"'{task.goal}' is due on {task.due_date}, while you are away {where}.",
        why="Deadlines are easy to miss while you are away (time zones, no laptop).",
        next_step=f"Finish '{task.goal}' before you leave (by {start - dt.timedelta(days=1)}), "
        "or arrange to submit it from where you are, or ask for an extension now.",
        computation=f"{start} ≤ due {task.due_date} ≤ {end}",
        keys=keys,
        fact_ids=task.fact_ids + ids,
    )


def deadline_while_away(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Open deadlines that fall while the user is away on a trip, or in a time they said they
    are away (out of office, on leave) that no trip covers: compound, tasks × trips × away
    periods."""
    out = []
    trips = upcoming_trips(user, today)
    away = [p for p in records(user, "away_periods") if (p.end or p.start) >= today]
    for task in _open_tasks(user):
        if task.due_date < today:
            continue
        on_trips = [t for t in trips if t.depart <= task.due_date <= trip_end(t)]
        for trip in on_trips:
            where = f"on {trip_label(trip)}"
            keys = (task.key, trip.key)
            out.append(
                _due_while_away(task, trip.depart, trip_end(trip), where, keys, trip.fact_ids)
            )
        for period in [] if on_trips else away:
            end = period.end or period.start
            if period.start <= task.due_date <= end:
                keys = (task.key, f"away:{period.key}")
                where = _away_label(period)
                out.append(_due_while_away(task, period.start, end, where, keys, period.fact_ids))
    return out


_SERVICE_WHY = "Skipping a due service can void the warranty and hide faults."
_SERVICE_STEP = "Book the service with the garage."
_INSPECTION_WHY = "Driving without a valid inspection certificate can void the insurance."
_INSPECTION_STEP = "Book the inspection at a testing station."


def _due_on(
    what: str, due: dt.date, today: dt.date, config: CheckConfig, why: str, step: str, **ids: Any
) -> list[AlertDraft]:
    """An upkeep alert when a vehicle's dated obligation falls within the window."""
    left = (due - today).days
    if left > config.service_days:
        return []
    return [
        draft(
            "service_due",
            "warning",
            f"The {what} is {'overdue since' if left < 0 else 'due on'} {due}.",
            why=why,
            next_step=step,
            computation=f"{due} − {today} = {days(left)} ≤ {config.service_days}-day window",
            **ids,
        )
    ]


def service_due(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Vehicles whose latest service says the next one is due soon (by date or mileage), or
    whose roadworthiness inspection (MOT, TÜV) is due soon."""
    out = []
    for car in records(user, "vehicles"):
        if getattr(car, "inspection_due", None) is not None:
            what = f"{car.make} {car.model} inspection"
            ids = {"keys": (car.key, "inspection_due"), "fact_ids": car.fact_ids}
            out += _due_on(
                what, car.inspection_due, today, config, _INSPECTION_WHY, _INSPECTION_STEP, **ids
            )
    latest: dict[str, Any] = {}
    for svc in records(user, "services"):
        name = normalise(svc.vehicle)
        if name not in latest or svc.date > latest[name].date:
            latest[name] = svc
    for name, svc in sorted(latest.items()):
        if svc.next_due_date is not None:
            ids = {"keys": (svc.key, "date"), "fact_ids": svc.fact_ids}
            what, due = f"{svc.vehicle} service", svc.next_due_date
            out += _due_on(what, due, today, config, _SERVICE_WHY, _SERVICE_STEP, **ids)
        if svc.next_due_mileage is None:
            continue
        for vehicle in records(user, "vehicles"):
            if vehicle.mileage is None or not mentions(name, f"{vehicle.make} {vehicle.model}"):
                continue
            left_km = svc.next_due_mileage - vehicle.mileage
            if left_km <= config.service_km:
                out.append(
                    draft(
                        "service_due",
                        "warning",
                        f"The {svc.vehicle} is due a service at {svc.next_due_mileage} km "
                        f"(odometer {vehicle.mileage} km).",
                        why=_SERVICE_WHY,
                        next_step=_SERVICE_STEP,
                        computation=f"{svc.next_due_mileage} − {vehicle.mileage} = {left_km} km "
                        f"≤ {config.service_km} km margin",
                        keys=(svc.key, vehicle.key, "mileage"),
                        fact_ids=svc.fact_ids + vehicle.fact_ids,
                    )
                )
    return out
