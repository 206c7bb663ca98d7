"""Journey patterns, the one home of travel.bookings: a hotel with check-in and check-out, a
flight on a day and time, the legs of a trip and the name a booking is under (`rule_legs`,
`rule_booking_name`, `rule_pasted_details`: run late, patterns/__init__.py); and what a
journey needs of the passport, the name printed in it and its blank pages. Trips themselves
are travel.py's."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import Any

from uac.fact_log.extraction.candidate import validate
from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns import travel
from uac.fact_log.extraction.patterns.text import (
    NAME,
    NEGATION,
    NOT_NAMES,
    THIRD_PARTY,
    Ctx,
    Span,
    clause_ok,
    dates_in,
    emit,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.patterns.travel import LODGING
from uac.fact_log.extraction.timemodel import DateMatch, add_months, clock, closest_nth, count_word
from uac.fact_log.extraction.values.places import lookup_place
from uac.fact_log.reference import vocabulary

# "Elena Sofía Martínez García": a passport's name may hold four words (two surnames)
_FOURTH = r"(?:[ \t](?-i:[A-Z][a-zà-ÿ'’-]{1,20}))?"
# a name as documents and pasted confirmations print it: "CHIDIEBERE OKONKWO"
_CAPS_NAME = r"(?-i:[A-Z][A-Z'’-]{1,20}(?:[ \t][A-Z][A-Z'’-]{1,20}){1,3})\b"
_FULL_NAME = lazy(
    # ("but passport has Rohan Krishnan Iyer": "my" goes unsaid)
    r"(?:\b|(?<=but\s))(?i:(?:my\s+|the\s+|^|(?<=but\s))passport\s+(?:says|reads|shows|has|"
    r"is\s+in\s+the\s+name(?:\s+of)?|has\s+my\s+name\s+as)"
    r"|the\s+name\s+(?:in|on)\s+my\s+passport\s+is|(?:on|in)\s+my\s+passport\s+i(?:'m|\s+am)"
    r"|(?:on|in)\s+my\s+passport,?\s+(?:the\s+|my\s+)?(?:full\s+)?name\s+is"
    r"|^passport\s+name\s*:|my\s+passport\s+name\s+is|(?:full\s+)?name\s+(?:in|on)\s+my\s+passport\s*"
    r"(?:is|:))\s+(?P<name>" + NAME + _FOURTH + r"|" + _CAPS_NAME + r")"
    # "name on the booking is Priya Sharma-Kaur, exactly like in my passport"
    r"|\b(?i:name\s+on\s+(?:the\s+booking|the\s+ticket|the\s+reservation|it)\s+is)\s+"
    r"(?P<same>" + NAME + r")"
    r"(?=[^.!?]{0,30}\b(?i:like|as|matches)\s+(?i:in\s+|on\s+)?(?i:my)\s+passport)"
)
_BLANK = lazy(
    r"\bmy\s+passport\s+(?:only\s+|just\s+)?has\s+(?:only\s+|just\s+)?(?P<n>\d{1,2}|no|zero|one|a|"
    r"two|three|four|five)\s+(?:blank|empty|free)\s+(?:visa\s+)?pages?\b|"
    r"\b(?:i(?:'ve|\s+have)?(?:\s+only|\s+just)?(?:\s+got|\s+have)|there(?:'s|\s+is|\s+are|'re))\s+"
    r"(?:only\s+|just\s+)?(?P<n2>\d{1,2}|no|zero|one|a|two|three|four|five)\s+(?:blank|empty|free)\s+"
    r"(?:visa\s+)?pages?\s+(?:left\s+)?(?:in|on)\s+my\s+passport\b|"
    # "my passport's only got 2 blank pages left", "my passport is full, one empty page left"
    r"\bmy\s+passport\b[^.!?]{0,40}?\b(?:only\s+|just\s+|literally\s+|like\s+|about\s+){0,3}"
    r"(?P<n3>\d{1,2}|no|zero|one|a|two|three|four|five)\s+(?:blank|empty|free)\s+(?:visa\s+)?"
    r"pages?\b",
    re.IGNORECASE,
)


def rule_passport_details(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The full name printed in the passport, and how many blank pages it has left."""
    m = _FULL_NAME.search(sent.text)
    if in_clause(m, parts, sent):
        ctx.add("identity.passport.full_name", m["name"] or m["same"], sent, 0.8)
    m = _BLANK.search(sent.text) or _blank_pages(ctx, sent)
    if in_clause(m, parts, sent):
        said = m.groupdict()
        raw = (said.get("n") or said.get("n2") or said["n3"]).lower()
        pages = 0 if raw in ("no", "zero") else count_word(raw)
        ctx.add("identity.passport.blank_pages", pages, sent, 0.8)


# "exactly one blank page left in my passport", "32 pages in the new one, all of them blank":
# a count of pages said blank, in a line about the passport (or right after it came up)
_PAGES = lazy(
    r"\b(?P<n3>\d{1,2}|no|zero|one|a|two|three|four|five)\s+(?:(?P<blank>blank|empty|free|clean)\s+)?"
    r"(?:visa\s+)?pages?\b(?P<rest>[^.!?]{0,40})",
    re.I,
)
_BLANK_AFTER = lazy(r"\b(?:blank|empty|free|unused|clean)\b", re.I)


_PAGES_FIELD = lazy(
    r"^(?:passport\s+)?(?:blank|empty|free)\s+(?:visa\s+)?pages?\s*[:=–-]\s*(?P<n3>\d{1,2})\b", re.I
)
_THEIR_PASSPORT = lazy(
    r"\b(?:his|her|their|\w+['’]s)\s+(?:\w+\s+)?passport\b|\b(?:he|she|they)\b", re.I
)


def _blank_pages(ctx: Ctx, sent: Span) -> re.Match[str] | None:
    """A count of blank passport pages said in other words than _BLANK's, or None."""
    m = _PAGES.search(sent.text)
    if m is None and (field := _PAGES_FIELD.match(sent.text)) is not None:
        m = field  # "Blank pages: 5." (a field of the passport the session talks about)
    elif m is None or not (m["blank"] or _BLANK_AFTER.search(m["rest"])):
        return None
    if _THEIR_PASSPORT.search(sent.text):
        return None  # "my husband's passport ..., he only has 1 blank page left"
    about = "passport" in sent.text.lower() or any(
        "passport" in t.kind for t in ctx.thread.mentions[-3:]
    )
    return m if about else None


_PLACE = r"(?-i:[A-Z][\w'-]{1,20}(?:\s[A-Z][\w'-]{1,20})?)"  # capitalised, whatever the flags
_HOTEL = lazy(
    r"\b(?:my\s+|the\s+|a\s+|our\s+)?(?:hotel|hostel|airbnb|apartment|villa|b&b|guesthouse)\s+in\s+"
    r"(?P<place>"
    + _PLACE
    + r")\s+(?:is\s+)?booked\b|\bi(?:'ve|\s+have)?\s+booked\s+(?:a\s+|the\s+)?hotel\s+in\s+"
    r"(?P<place2>"
    + _PLACE
    + r")|\b(?:i(?:'ve|\s+have)?|we(?:'ve|\s+have)?)\s+(?:just\s+)?(?:booked|"
    r"reserved)\s+(?:a\s+room\s+at\s+)?(?:the\s+|a\s+)?(?:[\w'&-]+\s+){0,3}?(?:hotel|hostel|inn|"
    r"b&b|guesthouse|guest\s+house|airbnb|resort|apartment)(?:\s+[\w'&-]+){0,3}?\s+in\s+"
    r"(?P<place3>" + _PLACE + r")|"
    # "Hotel in Tokyo: check-in 3 April, ...", "Our Airbnb in Porto - check in ...": a stay
    # named, then its days (the days are required below)
    r"^(?:my\s+|our\s+|the\s+)?(?:hotel|hostel|airbnb|apartment|villa|b&b|guesthouse)\s+in\s+"
    r"(?P<place4>" + _PLACE + r")\s*(?:[:,–-]|\s(?=check))",
    re.IGNORECASE,
)
# "my flight to Lima on 5 October under Maria Lopes", "... is in the name of M. Lopes"
_UNDER_NAME = lazy(
    r"\b(?P<whose>my|the|our)\s+(?:(?P<dest2>" + _PLACE + r")\s+)?(?:return\s+)?"
    r"(?P<kind>flight|ticket|train|plane\s+ticket)\s+(?:(?:to|for)\s+(?P<dest>" + _PLACE + r")\b)?"
    r"[^.;?!]*?\b(?:under|in\s+the\s+name(?:\s+of)?|booked\s+as)\s+"
    r"(?:the\s+name\s+)?(?P<name>(?-i:(?:[A-Z]\.?\s)?" + NAME + r"))",
    re.IGNORECASE,
)
_RANGE_TO = lazy(r"(?:\b(?:to|till|until|through)|[-–])\s*(?:the\s+)?$", re.I)
_CHECK_IN = lazy(r"\bcheck(?:ing)?[- ]in\b", re.I)
_CHECK_OUT = lazy(r"\bcheck(?:ing)?[- ]out\b|(?:\b(?:and|then)|,)\s+out\b", re.I)
# A stay as the subject of its sentence: "hotel is the Casa Nova in Lapa, checking in the 3rd
# and out on the 9th", "the cottage is in Keswick, 4-11 July", "the apartment is near the
# station, four nights"; its place is a known one said in it, else the trip's.
_STAY = lazy(
    r"^(?:and\s+|so\s+|also\s+|ok(?:ay)?\s+)?(?:(?:the\s+|my\s+|our\s+)?"
    r"(?P<where>(?-i:[A-Z][a-z]{2,20})\s+)?"  # "Rome hotel booked: ..."
    + LODGING
    + r"\s+(?:is|'s|was\s+booked|booked)\b|"
    r"(?:i|we)(?:'ve|\s+have)?\s+(?:also\s+)?got\s+(?:a|an|the)\s+" + LODGING + r"\b|"
    # "Staying at the Hilton Rome 4-7 May", "we're staying in a guesthouse in Oban from the 3rd"
    r"(?:(?:i|we)(?:'m|'re|'ll\s+be|\s+am|\s+are|\s+will\s+be)\s+)?staying\s+(?:at|in)\s+"
    r"(?:the\s+|a\s+|an\s+)?(?:[\w'’&-]+\s+){0,2}?"
    + LODGING
    + r"\b(?:\s+(?P<named>(?-i:[A-Z][\w'’-]+)))?|"
    # "Hotel Le Marais, check-in 19 Oct, check-out 23 Oct"
    r"(?:the\s+)?" + LODGING + r"\s+(?-i:[A-Z][\w'’&-]+(?:\s+[A-Z][\w'’&-]+){0,3})\s*[,:–-]|"
    # "villa near Lagos from the 14th, 7 nights", "Hotel — Hyatt on the Bund, 6 nights from the
    # 6th", "airbnb is sorted too, same dates": a stay opening its sentence, with its days
    r"(?:the\s+|my\s+|our\s+|a\s+|an\s+)?" + LODGING + r"\b(?=[^.?!]*(?:\d|\bsame\s+dates\b)))",
    re.I,
)
# "booked a guesthouse in Porto for a long weekend, 6 to 9 Oct": a stay the user booked
_BOOKED_STAY = lazy(
    r"\b(?:i|we|i've|we've)?\s*(?:booked|reserved|found|got)\s+(?:us\s+|me\s+)?(?:a|an|the)\s+"
    r"(?:[a-z]+\s+)?" + LODGING + r"\b",
    re.I,
)
_LOOKED_BACK = lazy(r"\b(?:was|were)\b(?!\s+booked)|\b(?:stayed|loved|hated)\b", re.I)
_SAME_DATES = lazy(r"\bsame\s+(?:dates|days|nights)\b", re.I)
_REFERENCE = lazy(
    r"\b(?:booking\s+|confirmation\s+)?(?:ref(?:erence)?|confirmation)(?:\s+(?:number|no\.?|code))?"
    r"\s*[:#]?\s*(?-i:([A-Z0-9][A-Z0-9-]{4,19}))\b",
    re.I,
)
# ("a riad in the medina of Marrakech": the place of a quarter named by its kind)
_IN_PLACE = lazy(r"\bin\s+(?:the\s+[a-z]{3,12}\s+of\s+)?(" + _PLACE + r")")
_NIGHTS = lazy(r"\b(\w+)\s+nights?\b", re.I)
# "Car hire sorted - pick up at Faro airport 2 June 9:00, drop off 9 June"
_CAR_HIRE = lazy(
    r"\b(?:car\s+hire|hire\s+car|rental\s+car|car\s+rental|(?:rented|hired|booked)\s+a\s+car)\b",
    re.I,
)
_HIRED_IN = lazy(
    r"\b(?:car\s+hire|hire\s+car|rental\s+car|car\s+rental)\s+(?:in|at|from)\s+(" + _PLACE + r")",
    re.I,
)
_PICK_UP = lazy(r"\bpick(?:ing)?[- ]?up\b(?:\s+(?:at|from|in)\s+(?P<place>" + _PLACE + r"))?", re.I)
_DROP_OFF = lazy(
    r"\b(?:drop(?:ping)?[- ]?off|return(?:ing)?\s+it|hand(?:ing)?\s+it\s+back)\b", re.I
)
# "Emirates EK30 out of Heathrow, leaves 20:40": a flight number with its time
_DIGIT = lazy(r"\d")
_FLIGHT_NO = lazy(
    r"(?-i:\b(?:[A-Z]{2}|[A-Z]\d|\d[A-Z])\s?\d{2,4}\b)(?=[^.?!]*\b(?:leaves|departs|out\s+of|"
    r"takes\s+off|at\s+\d)|[^.?!]*\d{1,2}[:.]\d{2})",
    re.I,
)
_FLIGHT = lazy(
    r"(?:\bmy\s+|\bour\s+|\bthe\s+|^)(?:return\s+)?flight\s+(?:home\s+|back\s+)?from\s+"
    r"(?P<place>" + _PLACE + r")\s+(?:is|leaves|departs|goes)\b|"
    r"\bthe\s+(?:airline|flight)\s+booking\s+for\s+(?P<dest>" + _PLACE + r")"
    r"\b.*?\bunder\s+(?:the\s+name\s+)?(?P<name>" + NAME + r")",
    re.IGNORECASE,
)


def _city(raw: str | None) -> str | None:
    found = lookup_place(raw.strip()) if raw else None
    return (found[0] or raw) if found is not None else None


# A hotel stay with no time said runs from the usual check-in to the usual check-out hour, so
# a check-out is never read as midnight (which would look like leaving the night before).
CHECK_IN_HOUR = dt.time(15, 0)
CHECK_OUT_HOUR = dt.time(11, 0)


def _at(day: dt.date, sent: Span, offset: int, default: dt.time = dt.time(0, 0)) -> dt.datetime:
    """The day at the clock time said right after offset, else at the default time."""
    when = clock(sent.text[offset - sent.start : offset - sent.start + 20])
    return dt.datetime.combine(day, when.start if when is not None else default)


def rule_bookings(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Hotel stays (check-in, check-out) and flights the user has booked."""
    m = _HOTEL.search(sent.text)
    if in_clause(m, parts, sent):
        place = _city(m["place"] or m["place2"] or m["place3"] or m["place4"])
        dates = [d for d in ctx.dates(sent) if d.valid]
        if m["place4"] and not (_CHECK_IN.search(sent.text) or len(dates) > 1):
            return  # "Hotel in Porto: any tips?": a stay is booked only with its days
        ins = [
            d
            for d in dates
            if (c := _CHECK_IN.search(sent.text)) and d.start > sent.start + c.start()
        ]
        outs = [
            d
            for d in dates
            if (c := _CHECK_OUT.search(sent.text)) and d.start > sent.start + c.start()
        ]
        if not outs and len(dates) > 1 and _RANGE_TO.search(ctx.text[: dates[1].start]):
            outs = [dates[1]]  # "from 14 March to 21 March"
        start = ins[0] if ins else (dates[0] if dates else None)
        if place is not None and start is not None:
            value: dict[str, Any] = {
                "kind": "hotel",
                "place": place,
                "start": _at(start.date, sent, start.end, CHECK_IN_HOUR),
            }
            if outs and outs[0] is not start:
                value["end"] = _at(outs[0].date, sent, outs[0].end, CHECK_OUT_HOUR)
            ctx.add("travel.bookings", value, sent, 0.8)
            return  # else a place the reference data does not know: read as a stay below
    if _booked_under(ctx, sent, parts) or _stay(ctx, sent, parts) or _car_hire(ctx, sent, parts):
        return
    if _flight_number(ctx, sent, parts) or _route_flight(ctx, sent, parts):
        return
    if _ticket(ctx, sent, parts) or _ticket_home(ctx, sent, parts):
        return
    m = _FLIGHT.search(sent.text)
    if not in_clause(m, parts, sent):
        return
    dates = [d for d in ctx.dates(sent) if d.valid]
    place = _city(m["place"] or m["dest"])
    if not dates or place is None:
        return
    start = _at(dates[0].date, sent, dates[0].end)
    if start.time() == dt.time(0, 0) and (said := clock(sent.text)) is not None:
        start = dt.datetime.combine(dates[0].date, said.start)  # "leaves at 7am on the 9th"
    value = {"kind": "flight", "place": place, "start": start}
    if m["name"]:
        value["traveller_name"] = m["name"]
    ctx.add("travel.bookings", value, sent, 0.8)


def _booked_under(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A ticket to a place on a day and the name it is under; True when one was added."""
    m = _UNDER_NAME.search(sent.text)
    if not in_clause(m, parts, sent, "kind"):
        return False
    dest = _city(m["dest"] or m["dest2"])  # "my flight to Dubai", "the Dubai flight"
    dates = [d for d in ctx.dates(sent) if d.valid]
    if dest is None or not dates or m["name"].split()[0] in NOT_NAMES:
        return False
    kind = "train" if m["kind"].lower() == "train" else "flight"
    value = {
        "kind": kind,
        "destination": dest,
        "start": _at(dates[0].date, sent, dates[0].end),
        "traveller_name": m["name"],
    }
    ctx.add("travel.bookings", value, sent, 0.8)
    return True


# "return flight: Porto to Stansted, Saturday 15 May, 16:40": a flight by its route
_ROUTE = lazy(
    r"\b(?:(?:return|outbound|my|the|our)\s+)?flight(?:\s+(?:home|back|out))?\s*[:,-]?\s*(?:is\s+)?"
    r"(?:from\s+)?(?P<origin>" + _PLACE + r")\s+to\s+(?P<dest>" + _PLACE + r")\b",
    re.I,
)


# "Booked Emirates BLR-DXB-CDG for 2nd October, dep 04:05": a route of airport codes
_CODE_ROUTE = compile_kept(
    r"(?-i:\b(?P<origin>[A-Z]{3})(?:\s?(?:-|–|->|>)\s?[A-Z]{3}){0,2}\s?(?:-|–|->|>)\s?"
    r"(?P<dest>[A-Z]{3})\b)"
)
_LEAVES_FROM = lazy(r"\bfrom\s+(" + _PLACE + r")", re.I)


def _route_flight(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A flight said by its route with its day and time; True when added."""
    m = _ROUTE.search(sent.text) or _CODE_ROUTE.search(sent.text)
    when = clock(sent.text[m.end() :]) if m is not None else None
    if m is None or when is None or not in_clause(m, parts, sent):
        return False
    days = [d for d in ctx.dates(sent) if d.valid]
    if not days:
        return False
    origin = _city(m["origin"]) or m["origin"]
    if m.re is _CODE_ROUTE and (said := _LEAVES_FROM.search(sent.text)) is not None:
        origin = _city(said[1]) or origin  # "... dep 04:05 from Bangalore"
    value = {
        "kind": "flight",
        "place": origin,
        "destination": _city(m["dest"]) or m["dest"],
        "start": dt.datetime.combine(days[0].date, when.start),  # type: ignore[arg-type]
    }
    ctx.add("travel.bookings", value, sent, 0.75)
    return True


# "the train to Paris is booked ... on the 18th of June at 8:01": a ticket with its day and time
_TICKET = lazy(
    r"\b(?:the|my|our)\s+(?P<kind>train|flight|ferry|coach|bus|plane)\s+(?:to|for)\s+"
    r"(?P<dest>" + _PLACE + r")\b(?=[^.?!]*\b(?:booked|leaves|departs|goes|is\s+at|is\s+on)\b)",
    re.I,
)
_KIND = {"plane": "flight", "coach": "bus", "ferry": "boat"}
# "coming back on the 21st at 19:13": the way home of the ticket just booked
_HOME_LEG = lazy(
    r"^(?:and\s+)?(?:(?:i'm|i\s+am|we're|we\s+are)\s+)?(?:coming\s+back|back|returning|"
    r"(?:the\s+)?return(?:\s+(?:train|flight|leg))?(?:\s+is)?)\b",
    re.I,
)


def _ticket(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A train, flight or ferry to a place, booked for a day and a time; True when added."""
    m = _TICKET.search(sent.text)
    if not in_clause(m, parts, sent):
        return False
    days = [d for d in ctx.dates(sent) if d.valid]
    when = clock(sent.text[m.end() :])
    if not days or when is None:
        return False
    kind = m["kind"].lower()
    value = {
        "kind": _KIND.get(kind, kind),
        "destination": _city(m["dest"]) or m["dest"],
        "start": dt.datetime.combine(days[0].date, when.start),  # type: ignore[arg-type]
    }
    ctx.add("travel.bookings", value, sent, 0.75)
    return True


def _ticket_home(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """The way back of the ticket the session just booked, on its day and time."""
    out = ctx.thread.last("travel.bookings")
    if _HOME_LEG.match(sent.text) is None or out is None or not out.get("destination"):
        return False
    if out.get("kind") not in ("train", "flight", "bus", "boat") or not clause_ok(
        parts, sent, sent.start
    ):
        return False
    days = [d for d in ctx.dates(sent) if d.valid]
    when = clock(sent.text)
    if not days or when is None:
        return False
    value = {
        "kind": out.get("kind"),
        "place": out.get("destination"),
        "start": dt.datetime.combine(days[0].date, when.start),  # type: ignore[arg-type]
    }
    ctx.add("travel.bookings", value, sent, 0.7)
    return True


def _trip_city(ctx: Ctx) -> tuple[str | None, dt.date | None]:
    """The city and departure day of the trip the session last talked about."""
    trip = ctx.thread.last("travel.trips")
    if trip is None:
        return None, None
    return trip.get("city"), trip.get("depart")


_LANDMARK = lazy(
    r"\b(?:square|street|st|road|rd|avenue|ave|park|station|centre|center|quarter|district|"
    r"beach|bay|harbour|harbor|airport|market|bridge|hill|gardens?|old\s+town)$",
    re.I,
)


def _stay(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A stay named as its sentence's subject, with its days or nights; True when added."""
    booked = _BOOKED_STAY.search(sent.text) if _STAY.match(sent.text) is None else None
    if booked is None and _STAY.match(sent.text) is None:
        return False
    if not clause_ok(parts, sent, sent.start + (booked.start() if booked else 0)):
        return False
    if _LOOKED_BACK.search(sent.text):
        return False  # "the hotel was awful on the 3rd": a stay remembered, not booked
    city, depart = _trip_city(ctx)
    said = _IN_PLACE.search(sent.text)
    place = (_city(said[1]) or said[1]) if said else city
    if said and city and not _city(said[1]) and _LANDMARK.search(said[1]):
        place = city  # "the Pod in Times Square": a spot in the trip's city, not a place
    if (head := _STAY.match(sent.text)) is not None and head["where"]:
        place = _city(head["where"].strip()) or place
    if not (said or place) and head is not None:
        place = _named_city(sent.text[: head.end() + 40])  # "Hotel Riu Plaza, Madrid, ..."
    if head is not None and head["named"] and not said:
        place = _city(head["named"]) or place  # "the Hilton Rome": the chain, then its city
    dates = [d for d in ctx.dates(sent) if d.valid]
    check_in = _CHECK_IN.search(sent.text)
    ins = [d for d in dates if check_in and d.start > sent.start + check_in.start()]
    out_cue = _CHECK_OUT.search(sent.text)
    outs = [d for d in dates if out_cue and d.start > sent.start + out_cue.start()]
    if not outs and len(dates) > 1 and _RANGE_TO.search(ctx.text[: dates[1].start]):
        outs = [dates[1]]  # "4-11 July"
    if not dates and (around := depart or ctx.anchor) is not None:
        ins, outs = _check_days(sent, around)  # "check in 29, check out 5": the trip's days
        dates = ins
    first = (ins or dates or [None])[0]
    nights = [count_word(n[1]) for n in _NIGHTS.finditer(sent.text)]
    trip = ctx.thread.last("travel.trips")
    if first is None and trip is not None and _SAME_DATES.search(sent.text):
        # "airbnb is sorted too, same dates": the trip's days
        back = trip.get("return_date")
        if depart is not None and isinstance(back, dt.date) and back > depart:
            value = {"kind": "hotel", "start": _at(depart, sent, sent.end, CHECK_IN_HOUR)}
            value |= {"end": dt.datetime.combine(back, CHECK_OUT_HOUR)}
            ctx.add("travel.bookings", {**value, **({"place": city} if city else {})}, sent, 0.7)
            return True
    if first is not None:
        start = first.date
    elif depart is not None and nights and nights[-1]:
        start = depart  # "two nights, hmm no, three nights": the trip's first night on
    else:
        return False
    value: dict[str, Any] = {"kind": "hotel", "start": _at(start, sent, sent.end, CHECK_IN_HOUR)}
    if place:
        value["place"] = place
    last = outs[0].date if outs and outs[0] is not first else None
    if last is None and nights and nights[-1]:
        last = start + dt.timedelta(days=nights[-1])
    if last is not None and last > start:
        value["end"] = dt.datetime.combine(last, CHECK_OUT_HOUR)
    if (ref := _REFERENCE.search(sent.text)) is not None and any(ch.isdigit() for ch in ref[1]):
        value["reference"] = ref[1]
    ctx.add("travel.bookings", value, sent, 0.75)
    return True


# "check in 29, check out 5": bare day numbers, the days of the trip being talked about
_CHECK_DAY = lazy(
    r"\bcheck(?:ing)?[- ]?(?P<io>in|out)\s*(?:on\s+)?(?:the\s+)?(?P<n>\d{1,2})\b"
    r"(?![:.]\d|\s*(?:am|pm|h|hrs|o'clock)\b)",
    re.I,
)


def _check_days(sent: Span, anchor: dt.date) -> tuple[list[DateMatch], list[DateMatch]]:
    """Check-in and check-out days said as bare numbers, each the one nearest the anchor."""
    ins: list[DateMatch] = []
    outs: list[DateMatch] = []
    for m in _CHECK_DAY.finditer(sent.text):
        day = closest_nth(anchor, int(m["n"]))
        if ins and day is not None and day <= ins[0].date:  # type: ignore[operator]
            day = closest_nth(add_months(day, 1), int(m["n"]))  # "check out 5" of next month
        if day is not None:
            found = DateMatch(sent.start + m.start("n"), sent.start + m.end("n"), m["n"], day)
            (ins if m["io"].lower() == "in" else outs).append(found)
    return (ins, outs) if ins and outs else ([], [])


def stay_corrected(ctx: Ctx, sent: Span, day: dt.date | None) -> bool:
    """ "wait, three nights from the eighth": the session's hotel stay again; True when added."""
    said = _NIGHTS.search(sent.text)
    stay = ctx.thread.last("travel.bookings")
    nights = count_word(said[1]) if said is not None else None
    if not nights or stay is None or stay.get("kind") != "hotel":
        return False
    fields = stay.record()
    start = fields.get("start")
    first = day or (start.date() if isinstance(start, dt.datetime) else None)
    if first is None:
        return False
    fields["start"] = dt.datetime.combine(first, CHECK_IN_HOUR)
    fields["end"] = dt.datetime.combine(first + dt.timedelta(days=nights), CHECK_OUT_HOUR)
    emit(ctx, sent, "travel.bookings", fields, 0.8, replaces=stay.record())
    return True


def _car_hire(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A hire car with its pick-up (place, day, time) and drop-off day; True when added."""
    m = _CAR_HIRE.search(sent.text)
    pick = _PICK_UP.search(sent.text)
    if m is None or pick is None or not in_clause(m, parts, sent):
        return False
    dates = [d for d in ctx.dates(sent) if d.valid]
    after = [d for d in dates if d.start > sent.start + pick.start()]
    if not after:
        return False
    value: dict[str, Any] = {"kind": "car", "start": _at(after[0].date, sent, after[0].end)}
    hired_in = _HIRED_IN.search(sent.text)
    place = _city(pick["place"]) or pick["place"] or (hired_in and _city(hired_in[1]))
    place = place or _trip_city(ctx)[0]
    if place:
        value["place"] = place
    drop = _DROP_OFF.search(sent.text)
    back = [d for d in dates if drop and d.start > sent.start + drop.start()]
    if back and back[0].date >= after[0].date:
        value["end"] = _at(back[0].date, sent, back[0].end)
    ctx.add("travel.bookings", value, sent, 0.75)
    return True


def _flight_number(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A flight said by its number and time, on the day said or the trip's departure day."""
    m = _FLIGHT_NO.search(sent.text) if _DIGIT.search(sent.text) else None
    when = clock(sent.text[m.end() :]) if m is not None else None
    if m is None or when is None or not in_clause(m, parts, sent):
        return False
    city, depart = _trip_city(ctx)
    # "on the 19th" is the 19th nearest the trip's departure, not its return
    dates = [d for d in dates_in(sent, "future", ctx.today, depart or ctx.anchor) if d.valid]
    day = dates[0].date if dates else depart
    if day is None:
        return False
    value: dict[str, Any] = {"kind": "flight", "start": dt.datetime.combine(day, when.start)}
    if (route := _NUMBER_ROUTE.match(sent.text, m.end())) is not None and _places(route):
        value["place"], value["destination"] = route["a"], route["b"]
    elif not dates and city:
        value["destination"] = city
    ctx.add("travel.bookings", value, sent, 0.7)
    return True


# "KL691 Amsterdam to Toronto", "BA117: London - New York": the route after the number
_NUMBER_ROUTE = lazy(
    r"[ \t]*[:,]?[ \t]*(?:from[ \t]+)?(?P<a>(?-i:[A-Z][\w'’.-]+(?:[ \t][A-Z][\w'’.-]+)?))"
    r"[ \t]*(?:\([A-Z]{3}\))?[ \t]*(?:to|[-–→>])[ \t]*"
    r"(?P<b>(?-i:[A-Z][\w'’.-]+(?:[ \t][A-Z][\w'’.-]+)?))",
    re.I,
)


def _places(route: re.Match[str]) -> bool:
    """Whether both ends of a route are places the reference data knows."""
    return all(
        lookup_place(route[k]) is not None or lookup_place(route[k].split()[0]) is not None
        for k in ("a", "b")
    )


# A pasted confirmation lists a stay's fields a line each: "Hotel Riu Plaza, Madrid. Check-in:
# 14 Oct 2025. Check-out: 17 Oct 2025. Ref: HX4471": one stay, read over the whole message
_FIELD_IN = lazy(r"^check[- ]?in\s*(?::|on\b)", re.I)
_LODGING_AT = lazy(r"\b" + LODGING + r"\b", re.I)


# A confirmation's fields sit close together: the hotel's line is looked for this far back,
# and the fields read this far after it (a long paste costs one window per field line).
_PASTE_BACK, _PASTE_SPAN = 400, 1200


def rule_pasted_stay(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A stay whose check-in and check-out are field lines of a pasted confirmation."""
    if not _FIELD_IN.match(sent.text) or said_stay(ctx):
        return
    back = max(0, sent.start - _PASTE_BACK)
    head = _LODGING_AT.search(ctx.text, back, sent.start)
    # "Forwarding my colleague's booking:" - someone else's stay
    if head is None or THIRD_PARTY.search(ctx.text[back : sent.start]):
        return
    window = Span(head.start(), ctx.text[head.start() : head.start() + _PASTE_SPAN])
    days = [d for d in ctx.dates(window) if d.valid and d.date]
    cue_in, cue_out = _CHECK_IN.search(window.text), _CHECK_OUT.search(window.text)
    ins = [d for d in days if cue_in and d.start > window.start + cue_in.start()]
    outs = [d for d in days if cue_out and d.start > window.start + cue_out.start()]
    if not ins or not outs or outs[0].date <= ins[0].date:  # type: ignore[operator]
        return
    value: dict[str, Any] = {
        "kind": "hotel",
        "start": _at(ins[0].date, sent, ins[0].end, CHECK_IN_HOUR),  # type: ignore[arg-type]
        "end": dt.datetime.combine(outs[0].date, CHECK_OUT_HOUR),  # type: ignore[arg-type]
    }
    if place := _named_city(ctx.text[head.start() : sent.start]):
        value["place"] = place
    if (ref := _REFERENCE.search(window.text)) is not None and any(ch.isdigit() for ch in ref[1]):
        value["reference"] = ref[1]
    ctx.add("travel.bookings", value, sent, 0.7)


def _named_city(text: str) -> str | None:
    """The first known city set off by a comma after a name ("Hotel Riu Plaza, Madrid"; not
    "the Fairmont Royal York", a name that holds a city's)."""
    words = re.findall(r",\s*([A-Z][\w'’-]+)", text)
    return next((c for w in words if (found := lookup_place(w)) and (c := found[0])), None)


def said_stay(ctx: Ctx) -> bool:
    """Whether the message already gave a hotel stay."""
    return any(c.path == "travel.bookings" and c.value.get("kind") == "hotel" for c in ctx.out)


# -- legs and booking details said of a trip ----------------------------------------------------
# A leg of a journey: a flight, train or ferry named as a thing (the verb "fly" is the trip)
# ("I fly with Wizz Air from Gdańsk 2.02 at 6:05": the verb names the service too)
_LEG = lazy(r"\b(?P<kind>flights?|fly|flying|trains?|ferry|ferries|eurostar|coach)\b", re.I)
_LEG_KIND = {"f": "flight", "t": "train", "e": "train", "c": "bus"}
# A particular service: its carrier ("with JAL", "the BA flight") identifies it
_CARRIER = lazy(
    r"\b(?:with|on)\s+(?:the\s+)?(?-i:[A-Z]{2,4}|[A-Z][a-z]{2,14}(?:\s[A-Z][a-z]{2,14})?)\b"
    r"(?!\s+(?:on|in)\b)|(?-i:\b[A-Z]{2,3})\s+(?:flight|train)\b"
)
_HOMEWARD = lazy(r"\b(?:back|return\w*|home|homeward|inbound)\b[^.!?\d]{0,16}$", re.I)
_NAMED_AS = lazy(
    r"\b(?:the\s+)?name\s+on\s+(?:it|the\s+(?:booking|ticket|reservation))\s+(?:is|says)\s+"
    r"|\bput\s+me\s+down\s+as\s+|\bbooked\s+(?:me\s+)?(?:in|under)\s+(?:the\s+name\s+)?"
    # "booked by the clerk under 'Henrietta Blake'": who booked it, then the name in quotes
    r"|\bbooked\s+by\s+(?:the\s+|my\s+|our\s+)?[\w-]{2,20}\s+under\s+(?:the\s+name\s+)?"
    r"|\bunder\s['‘\"“](?=[A-Z])"
)


_LEG_HOME = lazy(r"\s+(?:home|back)\b", re.I)  # "the flight home is 1am on the 13th"
_BACK_FROM = lazy(r"\b(?:back|home|return\w*)\s+from\s+([A-Za-z][\w'’.-]*(?:\s[A-Z][\w'’.-]*)?)")


def _home_from(sent: Span) -> str | None:
    """The city a way home leaves from ("back from Rome on 12 May"), or None."""
    m = _BACK_FROM.search(sent.text)
    found = travel.known(m[1].split()) if m is not None else None
    return found[0] if found is not None else None


def _leg_time(text: str, start: int, end: int) -> dt.time | None:
    """The clock time said with one leg's day: after it up to the next day, else before it."""
    when = clock(text[start:end])
    return when.start if when is not None else None


_THEIRS = lazy(r"(?-i:\b[A-Z][a-zà-ÿ]{1,20})['’]s\s+(?:[a-z]+\s+)?$")


def rule_legs(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The flights or trains of a journey, when a particular service is said (its time or its
    carrier): "flights gatwick to faro on the 14th at 07:15 and back on the 21st at 18:40"."""
    m = _LEG.search(sent.text)
    if m is None or "?" in sent.text or travel.said_here(ctx, sent, "travel.bookings"):
        return
    at = sent.start + m.start()
    if someone_else(ctx.text[sent.start : at]) or not clause_ok(parts, sent, at):
        return
    if _THEIRS.search(ctx.text, sent.start, at):
        return  # "Tom's flight lands at 6pm": someone else's journey
    days = [d for d in ctx.dates(sent) if d.valid and d.date]
    if not days or travel.PAST.search(sent.text):
        return
    where = travel.places_in(sent)
    trip = next((c.value for c in reversed(ctx.out) if c.path == "travel.trips"), None)
    if trip is None and not where and (last := ctx.thread.last("travel.trips")) is not None:
        trip = last.record()
    city = where[0][0] if where else (trip or {}).get("city") or _home_from(sent)
    if city is None and (stay := ctx.thread.last("travel.bookings")) is not None:
        city = stay.get("place")  # "flights: out on 8 May ..." after the hotel in Rome
    carrier = next(
        (c for c in _CARRIER.finditer(sent.text) if c[0].split()[-1] not in NOT_NAMES), None
    )
    named = _NAMED_AS.search(sent.text)
    name = re.match(NAME, sent.text[named.end() :].lstrip("'‘\"“")) if named is not None else None
    if name is not None and name[0].split()[0] in NOT_NAMES:
        name = None
    first_home = _LEG_HOME.match(sent.text, m.end()) is not None
    kind = _LEG_KIND.get(m["kind"][0].lower(), "boat")
    bounds = [sent.start, *(d.end for d in days)]
    ends = [*(d.start for d in days[1:]), sent.end]
    legs: list[dict[str, Any]] = []
    for i, d in enumerate(days[:2]):
        lead = ctx.text[max(bounds[i], d.start - 24) : d.start]
        homeward = (i == 0 and first_home) or bool(_HOMEWARD.search(lead))
        if i > 0 and not homeward:
            break
        when = _leg_time(ctx.text, d.end, ends[i])
        if when is None and i == 0:  # "11:50 on the 14th"; the way back's time follows its day
            when = _leg_time(ctx.text, bounds[i], d.start)
        if (
            when is None
            and (carrier is None or m["kind"].lower().startswith("fly"))
            and name is None
        ):
            continue  # "flights to Crete are booked for the 4th": the trip, no one service
        leg: dict[str, Any] = {
            "kind": kind,
            "start": dt.datetime.combine(d.date, when or dt.time()),
        }  # type: ignore[arg-type]
        if city:
            leg["place" if homeward else "destination"] = city
        if not homeward and (origin := travel.origin_of(sent)) is not None and origin != city:
            leg["place"] = origin  # "Flight is with Lufthansa from Munich at 21:55 on the 6th"
        legs.append(leg)
    for leg in legs:
        if name is not None:
            leg["traveller_name"] = name[0].rstrip("'’\"”")
        ctx.add("travel.bookings", leg, sent, 0.7)


# "flights booked", "tickets bought with LATAM", "I bought the tickets today": the journey the
# sentence tells is flown on a ticket the user holds
_TICKET_BOOKED = lazy(
    r"\b(?:flights?|tickets?|passages?)\b[^.\n]{0,25}?\b(?:booked|bought|paid|confirmed)\b|"
    r"\b(?:booked|bought)\b[^.\n]{0,30}?\b(?:flights?|tickets?|passages?)\b",
    re.I,
)


# the airline or the flight said ("Kenya Airways", "Air Canada", "SQ618"; `_CARRIER`: "with LOT")
_AIRLINE = lazy(
    r"(?-i:\b[A-Z][A-Za-z]+\s+(?:Airlines|Airways)\b|\bAir\s+[A-Z][A-Za-z]+|\b[A-Z]{2}\s?\d{2,4}\b)"
)


def rule_ticket_booked(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A trip said with its flight booked or its tickets bought, on a particular service
    ("Rome 3 to 10 July, tickets bought with Norwegian"): the flight out, booked for the
    trip's first day, unless a booking rule read the flight itself (with its time: "booked
    a flight to Rome on 3 July at 9:40"). "flights to Crete are booked" names no service:
    the trip alone."""
    said = _TICKET_BOOKED.search(sent.text)
    if said is None or not in_clause(said, parts, sent) or NEGATION.search(said[0]):
        return
    carrier = any(c[0].split()[-1] not in NOT_NAMES for c in _CARRIER.finditer(sent.text))
    if not carrier and _AIRLINE.search(sent.text) is None:
        return
    here = [c for c in ctx.out[ctx.here() :] if c.start >= sent.start]
    if any(c.path == "travel.bookings" and c.value.get("kind") == "flight" for c in here):
        return
    trip = next((c for c in here if c.path == "travel.trips" and c.value.get("depart")), None)
    if trip is None:
        return
    value = {"kind": "flight", "start": trip.value["depart"]}
    if city := trip.value.get("city"):
        value["destination"] = city
    if (origin := travel.origin_of(sent)) is not None and origin != city:
        value["place"] = origin  # "Mumbai to Melbourne": where the flight leaves from
    ctx.add("travel.bookings", value, sent, 0.7)


def rule_booking_name(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "name on the booking is Priya Sharma-Kaur": the name on the session's last ticket."""
    named = _NAMED_AS.search(sent.text)
    if named is None or _LEG.search(sent.text) or "?" in sent.text:
        return
    name = re.match(NAME, sent.text[named.end() :])
    last = ctx.thread.last("travel.bookings")
    if name is None or name[0].split()[0] in NOT_NAMES or last is None:
        return
    if last.get("kind") not in ("flight", "train", "bus", "boat"):
        return
    if not in_clause(named, parts, sent):
        return
    ctx.add("travel.bookings", {**last.record(), "traveller_name": name[0]}, sent, 0.7)


# A pasted confirmation: "Dear CHIDIEBERE OKONKWO, your booking QX7M2L is confirmed. ...",
# "Passenger: Anna Lopes"; the reference and the name belong to every leg the message books.
_NAME_WORDS = r"[A-Z][A-Za-zà-ÿ'’-]{1,20}(?:[ \t][A-Z][A-Za-zà-ÿ'’-]{1,20}){1,3}"
_PASSENGER = lazy(
    r"\b(?i:passenger|traveller|traveler|guest)(?:\s+name)?\s*:\s+"
    r"(?:(?i:mr|mrs|ms|miss|dr)\.?\s+)?(?P<name>(?-i:" + _NAME_WORDS + r"))\b"
    # "Dear" greets the passenger only as a confirmation does: by title and full name, or in
    # capitals ("Dear CHIDIEBERE OKONKWO"); a letter the user writes greets someone else
    r"|\bDear\s+(?:(?i:mr|mrs|ms|miss|dr)\.?\s+(?P<titled>(?-i:" + _NAME_WORDS + r"))"
    r"|(?P<caps>[A-Z][A-Z'’-]{1,20}(?:[ \t][A-Z][A-Z'’-]{1,20}){1,3}))\b"
)
# "Dear Valued Customer", "Passenger: Hotel Manager": a role, not a name
_ROLE_WORDS = frozenset(vocabulary()["word_sets"]["roles"])
# A confirmation's fields sit close together: looked for this far around the leg's sentence.
_DETAILS_REACH = 1200
_BOOKING_REF = lazy(
    r"\b(?i:booking|reservation|confirmation|PNR)(?:\s+(?i:ref(?:erence)?|code|number|no\.?))?"
    r"\s*(?:(?i:is)\s+)?[:#]?\s*(?P<ref>(?-i:[A-Z0-9]{5,8}))\b(?=[^\d]|$)"
)


def rule_pasted_details(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The passenger and the reference a pasted confirmation gives, on the legs it books."""
    legs = [
        i
        for i, c in enumerate(ctx.out[ctx.here() :], ctx.here())
        if c.path == "travel.bookings" and c.start >= sent.start and c.value.get("kind") == "flight"
    ]
    if not legs:
        return
    near = ctx.text[max(0, sent.start - _DETAILS_REACH) : sent.end + _DETAILS_REACH]
    who, ref = _PASSENGER.search(near), _BOOKING_REF.search(near)
    said = {}
    name = who and (who["name"] or who["titled"] or who["caps"])
    words = name.split() if name else []
    if words and words[0] not in NOT_NAMES and not _ROLE_WORDS & {w.lower() for w in words}:
        said["traveller_name"] = name
    if ref is not None and any(ch.isdigit() for ch in ref["ref"]):
        said["reference"] = ref["ref"]
    for i in legs if said else []:
        value = {**said, **ctx.out[i].value}
        if (typed := validate(ctx.catalog, "travel.bookings", value)) is not None:
            ctx.out[i] = replace(ctx.out[i], value=typed)
