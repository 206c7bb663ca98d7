"""What the checks of every domain share: wording helpers, trips, and "to confirm" questions.

A check reads whatever collections it needs through `getattr(user, name, ())`, so a subject
whose catalog lacks a collection (an old workspace, a custom catalog) simply has none.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from typing import Any

from uac.checks.model import AlertDraft, Severity
from uac.fact_log.reference import country_name, mentions, normalise


def days(n: int) -> str:
    """'1 day' / 'n days'."""
    return f"{n} day" if abs(n) == 1 else f"{n} days"


_FILLER = frozenset(
    {
        *("the", "a", "an", "my", "our", "new", "account", "card", "appointment"),
        *("weekly", "daily", "monthly", "fortnightly", "every", "regular", "usual"),
    }
)


def same_words(a: str | None, b: str | None) -> bool:
    """Whether two names say one thing, one's words within the other's ("Team call" and
    "Weekly team call", "Nationwide" and "Nationwide account"): the same thing learned twice
    (extracted and stated, or said in other words) is one thing, not a conflict."""
    if not (a and b):
        return a == b
    wa, wb = (set(normalise(x).split()) - _FILLER for x in (a, b))
    return wa <= wb or wb <= wa


def distinct(items: Iterable[Any], same: Callable[[Any, Any], bool]) -> list[Any]:
    """Items in order, each dropped when it is the same thing as one kept before it."""
    kept: list[Any] = []
    for item in items:
        if not any(same(k, item) for k in kept):
            kept.append(item)
    return kept


def records(user: Any, name: str) -> tuple[Any, ...]:
    """A collection of the user, or () when the catalog has none of that name."""
    return tuple(getattr(user, name, ()) or ())


def attr(user: Any, group: str, field: str) -> Any:
    """A field of an attribute group (user.passport.expiry_date), or None."""
    return getattr(getattr(user, group, None), field, None)


def home_country(user: Any) -> str | None:
    """The country of the user's passport, else their nationality."""
    return attr(user, "passport", "issuing_country") or attr(user, "identity", "nationality")


def trip_end(trip: Any) -> dt.date:
    """The last day of a trip (its departure day when no return is known)."""
    return trip.return_date or trip.depart


def upcoming_trips(user: Any, today: dt.date) -> list[Any]:
    """Trips not over yet: not departed, or still under way."""
    return [t for t in records(user, "trips") if trip_end(t) >= today]


def where(trip: Any) -> str:
    """'Delhi, India' or 'India' for a trip's destination."""
    country = country_name(trip.country)
    return f"{trip.city}, {country}" if trip.city else country


def cap(text: str) -> str:
    """Text with its first letter upper-cased (str.capitalize would lower the rest)."""
    return text[:1].upper() + text[1:]


def trip_label(trip: Any) -> str:
    """'your trip to Delhi, India (2025-03-12 to 2025-03-26)'."""
    end = trip.return_date
    span = f"{trip.depart} to {end}" if end else f"departing {trip.depart}"
    return f"your trip to {where(trip)} ({span})"


def names_place(text: str | None, place: str | None) -> bool:
    """Whether free text (a location, a booking's place) names a city or country name."""
    return bool(text and place and mentions(normalise(text), place))


def draft(
    check: str,
    severity: Severity,
    message: str,
    *,
    why: str,
    next_step: str,
    computation: str,
    keys: Iterable[str],
    fact_ids: Iterable[str] = (),
    paths: Iterable[str] = (),
) -> AlertDraft:
    """An alert draft with every part an agent needs: what, why, what to do, the numbers."""
    return AlertDraft(
        check,
        severity,
        message,
        computation,
        tuple(keys),
        tuple(dict.fromkeys(fact_ids)),
        tuple(paths),
        why,
        next_step,
    )


def to_confirm(
    check: str, fact: str, question: str, why: str, fact_ids: Iterable[str] = ()
) -> AlertDraft:
    """A low-severity question for the one fact a check lacks; fingerprinted on (check, fact),
    so it is asked once and resolves when the fact arrives."""
    return draft(
        check,
        "info",
        f"To confirm: {question}",
        why=why,
        next_step=f"Ask the user and record their {fact.replace('_', ' ')}.",
        computation=f"{check} needs {fact}; none is recorded",
        keys=("to_confirm", fact),
        fact_ids=fact_ids,
    )
