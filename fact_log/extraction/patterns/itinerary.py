"""Trips said as a known place and its span of days, however the sentence is built.

People name a trip by its place and its days and leave the travel verb out: "oaxaca for day
of the dead!! fly out oct 27, home nov 4", "first use: Shanghai in June, 6th-13th", "Lima in
November!! 9th to the 23rd", "I'm in Dublin that week, 8th to the 12th, for work". The
construct is a place the reference data knows (fact_log/reference/data/places.toml, the list
the checks use) and two days that bound a stay (joined by a range word, or the second said as
the way home), in one sentence or in the sentence right after the place. It is the user's
plan unless a guard says otherwise (a question, a wish, the past, someone else's trip, a place
the user lives in or only passes through). `rule_trips` (travel.py) reads trips that have a
travel word; this rule runs after it and adds a trip only where that found none.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import Any

from uac.fact_log.extraction.candidate import validate
from uac.fact_log.extraction.patterns import travel
from uac.fact_log.extraction.patterns.text import (
    NAME,
    NOT_NAMES,
    Ctx,
    Rule,
    Span,
    clause_ok,
    clauses,
    dates_in,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.timemodel import DateMatch, clock
from uac.fact_log.extraction.values.places import CITIES, COUNTRIES, fold
from uac.fact_log.reference import vocabulary

_WORD = re.compile(r"[A-Za-z][\w'’.-]*")
# What may stand before a place that is not where the user goes: an origin, a layover, a home,
# a stay's neighbourhood ("villa near Lagos": Lagos may be another country's city).
_NOT_DESTINATION = re.compile(
    r"\b(?:from|via|through|thru|connect\w*|layover|stopover|live|lives|living|based|born|near|"
    # "flying out of Sydney", "leaving Nairobi": where the journey starts
    r"outside|(?:fly\w*|depart\w*|leav\w*|sail\w*|driv\w*|head\w*)\s+out\s+of|"
    r"departing|leaving)\s+(?:the\s+)?$",
    re.I,
)
_TOWARD = re.compile(r"(?:\bto|->|→|>)\s*$", re.I)
# The second day of a stay: after a range word, or said as the way home.
_SPAN_JOIN = re.compile(
    r"(?:[-–]|\b(?:to|till|til|until|through|thru|back|home|return\w*|flying\s+back)\b)"
    r"[^.!?\d]{0,14}$",
    re.I,
)
_HAS_DAY = re.compile(
    r"\d|first|second|third|(?:fif|six|seven|eigh|nin|ten|eleven|twelf|teen|tie)th\b|tomorrow|"
    r"today|monday|tuesday|wednesday|thursday|friday|saturday|sunday",
    re.I,
)
# The first word of every place name the reference data knows: a word that starts none is
# skipped without a lookup (most words of most sentences).
_FIRST_WORDS = frozenset(name.split()[0] for name in (*CITIES, *COUNTRIES))
_DOCUMENT = re.compile(
    r"\b(?:e-?visa|visa|passport|insurance|policy|cover|licen[cs]e|permit|esta|eta|valid)\b", re.I
)
MAX_STAY = dt.timedelta(days=370)


_FROM = re.compile(r"\bfrom\s+((?-i:[A-Z][\w'’.-]+)(?:\s[A-Z][\w'’.-]+)?)")


def _origin(sent: Span) -> str | None:
    """The known city a journey leaves from ("from Munich"), or None."""
    m = _FROM.search(sent.text)
    found = travel.known(m[1].split()) if m is not None else None
    return found[0] if found is not None else None


def places_in(sent: Span) -> list[tuple[str | None, str, int]]:
    """Known places in a sentence (city or None, country, absolute offset), destinations first:
    one after "to" or an arrow before any other, none that is an origin, layover or home."""
    words = list(_WORD.finditer(sent.text))
    toward: list[tuple[str | None, str, int]] = []
    other: list[tuple[str | None, str, int]] = []
    skip_to = -1
    for i, w in enumerate(words):
        if w.start() < skip_to:
            continue
        first = w[0].casefold().rstrip(".,'’!")
        if first not in _FIRST_WORDS and (first.isascii() or fold(first) not in _FIRST_WORDS):
            continue
        found = travel.known([x[0] for x in words[i : i + 3]])
        if found is None:
            continue
        skip_to = w.start() + len(" ".join(found[0].split()) if found[0] else w[0])
        head = sent.text[max(0, w.start() - 24) : w.start()]
        if _NOT_DESTINATION.search(head):
            continue
        (toward if _TOWARD.search(head) else other).append((*found, sent.start + w.start()))
    chain = _arrow_chain(sent, toward)
    if len(chain) > 1:  # "mexico city -> toronto -> london -> goa": the last is where to
        toward = [chain[-1], *(p for p in toward if p is not chain[-1])]
    return toward + other


_ARROW = re.compile(r"(?:->|→|>)\s*$")


def _arrow_chain(sent: Span, toward: list[tuple[str | None, str, int]]) -> list[Any]:
    """The places of a route written with arrows, in order."""
    if ">" not in sent.text and "→" not in sent.text:
        return []
    return [
        p
        for p in toward
        if _ARROW.search(sent.text[max(0, p[2] - sent.start - 4) : p[2] - sent.start])
    ]


def _via_arrows(sent: Span) -> list[str]:
    """The stops between the first and the last place of a route written with arrows."""
    chain = _arrow_chain(sent, [p for p in places_in(sent) if p[0]])
    return [p[0] for p in sorted(chain, key=lambda p: p[2])[:-1] if p[0]]


def span_of(dates: list[DateMatch], text: str, offset: int) -> tuple[dt.date, dt.date] | None:
    """The first two days that bound a stay (the second after a range word or "home")."""
    valid = [d for d in dates if d.valid and d.date is not None]
    for i, first in enumerate(valid):
        for last in valid[i + 1 :]:
            lead = text[max(first.end, last.start - 24) - offset : last.start - offset]
            if _SPAN_JOIN.search(lead) and first.date <= last.date <= first.date + MAX_STAY:  # type: ignore[operator]
                return first.date, last.date  # type: ignore[return-value]
        return None  # only the first day said can open the stay
    return None


def rule_place_span(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A trip said as a known place and the days it spans ("Mumbai 2-16 Feb")."""
    nxt = ctx.following
    if not _HAS_DAY.search(sent.text) and (nxt is None or not _HAS_DAY.search(nxt.text)):
        return  # no day in reach: skip the place lookups
    if "?" in sent.text or travel.said_here(ctx, sent, "travel.trips"):
        return
    if travel.PAST.search(sent.text) or travel.NOT_TRAVEL.search(sent.text):
        return
    found = places_in(sent)
    if not found:
        _topic_span(ctx, sent, parts)
        return
    city, country, at = found[0]
    if city is None:  # "home to Poland ..., at my mother in Gdańsk": the city of it said later
        city = next((c for c, k, _ in found[1:] if c and k == country), None)
    head = ctx.text[sent.start : at]
    if someone_else(head) or travel.OTHER_SUBJECT.match(sent.text) or not _stated(parts, sent, at):
        return
    window = sent
    dates = dates_in(sent, "future", ctx.today, ctx.anchor)
    stay = span_of(dates, ctx.text, 0)
    if stay is None and nxt is not None and not places_in(nxt) and "?" not in nxt.text:
        # "Lima in November!! 9th to the 23rd.": the days in the sentence after the place
        window = Span(sent.start, ctx.text[sent.start : nxt.end])
        if travel.PAST.search(nxt.text) or travel.WISH.search(nxt.text):
            return
        stay = span_of(dates_in(window, "future", ctx.today, ctx.anchor), ctx.text, 0)
    if _DOCUMENT.search(window.text):
        return  # "India: e-visa approved!! valid 10 Jan to 9 Jan": a document's validity
    if stay is None or travel.inside_a_trip(ctx, *stay) or claimed(ctx, sent, stay):
        return
    value: dict[str, Any] = {"country": country, "depart": stay[0], "return_date": stay[1]}
    if city:
        value["city"] = city
    if via := _via_arrows(sent):
        value["via"] = via
    if (why := travel.purpose(window.text)) is not None:
        value["purpose"] = why
    if mode := travel.transport(window.text):
        value["transport"] = mode
    ctx.add("travel.trips", value, sent, 0.75)


def _day(value: object) -> object:
    """A datetime's day (an event from the 14th owns the 14th), anything else as it is."""
    return value.date() if isinstance(value, dt.datetime) else value


def claimed(ctx: Ctx, sent: Span, stay: tuple[dt.date, ...], prefix: str = "") -> bool:
    """Whether another record found in the sentence owns the days ("India e-visa approved,
    valid 10 Jan to 9 Jan": the visa's validity, not a trip)."""
    for c in reversed(ctx.out):
        if c.start < sent.start:
            return False
        if not c.path.startswith(prefix) or not isinstance(c.value, dict):
            continue
        if any(_day(v) in stay for v in c.value.values()):
            return True
    return False


_INTERJECTION = re.compile(r"^(?:oh\s+no|no\s+wait|wait\s+no|oh\s+god|oh\s+dear)\b[\s,!.]*", re.I)


def _stated(parts: list[Span], sent: Span, at: int) -> bool:
    """The clause guards pass before `at`; an opening "oh no" is a sigh, not a negation."""
    if clause_ok(parts, sent, at):
        return True
    sigh = _INTERJECTION.match(sent.text)
    if sigh is None:
        return False
    plain = Span(sent.start, " " * sigh.end() + sent.text[sigh.end() :])
    return clause_ok(clauses(plain), plain, at)


def _topic_span(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The days of a destination an earlier line named without them ("study abroad in Seville
    is confirmed" / "the programme runs 1 September to 20 December")."""
    where = travel.latest(ctx, "destination")
    if where < 0 or where < travel.latest(ctx, "travel.trips") or travel.WISH.search(sent.text):
        return
    stay = span_of(dates_in(sent, "future", ctx.today, ctx.anchor), ctx.text, 0)
    if stay is None or not clause_ok(parts, sent, sent.start) or someone_else(sent.text):
        return
    fields = ctx.thread.mentions[where].record()
    ctx.add("travel.trips", {**fields, "depart": stay[0], "return_date": stay[1]}, sent, 0.7)


# A leg of a journey: a flight, train or ferry named as a thing (the verb "fly" is the trip)
# ("I fly with Wizz Air from Gdańsk 2.02 at 6:05": the verb names the service too)
_LEG = re.compile(r"\b(?P<kind>flights?|fly|flying|trains?|ferry|ferries|eurostar|coach)\b", re.I)
_LEG_KIND = {"f": "flight", "t": "train", "e": "train", "c": "bus"}
# A particular service: its carrier ("with JAL", "the BA flight") identifies it
_CARRIER = re.compile(
    r"\b(?:with|on)\s+(?:the\s+)?(?-i:[A-Z]{2,4}|[A-Z][a-z]{2,14}(?:\s[A-Z][a-z]{2,14})?)\b"
    r"(?!\s+(?:on|in)\b)|(?-i:\b[A-Z]{2,3})\s+(?:flight|train)\b"
)
_HOMEWARD = re.compile(r"\b(?:back|return\w*|home|homeward|inbound)\b[^.!?\d]{0,16}$", re.I)
_NAMED_AS = re.compile(
    r"\b(?:the\s+)?name\s+on\s+(?:it|the\s+(?:booking|ticket|reservation))\s+(?:is|says)\s+"
    r"|\bput\s+me\s+down\s+as\s+|\bbooked\s+(?:me\s+)?(?:in|under)\s+(?:the\s+name\s+)?"
    # "booked by the clerk under 'Henrietta Blake'": who booked it, then the name in quotes
    r"|\bbooked\s+by\s+(?:the\s+|my\s+|our\s+)?[\w-]{2,20}\s+under\s+(?:the\s+name\s+)?"
    r"|\bunder\s['‘\"“](?=[A-Z])"
)


_LEG_HOME = re.compile(r"\s+(?:home|back)\b", re.I)  # "the flight home is 1am on the 13th"
_BACK_FROM = re.compile(
    r"\b(?:back|home|return\w*)\s+from\s+([A-Za-z][\w'’.-]*(?:\s[A-Z][\w'’.-]*)?)"
)


def _home_from(sent: Span) -> str | None:
    """The city a way home leaves from ("back from Rome on 12 May"), or None."""
    m = _BACK_FROM.search(sent.text)
    found = travel.known(m[1].split()) if m is not None else None
    return found[0] if found is not None else None


def _leg_time(text: str, start: int, end: int) -> dt.time | None:
    """The clock time said with one leg's day: after it up to the next day, else before it."""
    when = clock(text[start:end])
    return when.start if when is not None else None


_THEIRS = re.compile(r"(?-i:\b[A-Z][a-zà-ÿ]{1,20})['’]s\s+(?:[a-z]+\s+)?$")


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
    days = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid and d.date]
    if not days or travel.PAST.search(sent.text):
        return
    where = places_in(sent)
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
        if not homeward and (origin := _origin(sent)) is not None and origin != city:
            leg["place"] = origin  # "Flight is with Lufthansa from Munich at 21:55 on the 6th"
        legs.append(leg)
    for leg in legs:
        if name is not None:
            leg["traveller_name"] = name[0].rstrip("'’\"”")
        ctx.add("travel.bookings", leg, sent, 0.7)


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


# "..., then Italy 16 July to 20 August", "and then in Berlin from 7 to 12 May", "then on to
# Rome on 10 June", "Tokyo 3-10 May and Seoul 10-15 May": where the journey goes next
_NEXT_STOP = re.compile(
    r"(?:[,;]\s*|\s+)(?:and\s+)?(?:then|after\s+that|afterwards)\b(?:\s+on)?(?:\s+(?:to|in))?\s+|"
    r"(?<=[\w.])\s+and\s+(?:then\s+)?(?:(?:on\s+)?to\s+|in\s+)?(?=(?-i:[A-Z]))",
    re.I,
)


def rule_next_stops(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The later stops of a journey said with the first ("In Spain from 1 June to 15 July,
    then Italy 16 July to 20 August"): each known place with its own days is a trip of its
    own, so the checks see every country visited."""
    here = ctx.out[ctx.here() :]
    first = next((c for c in here if c.path == "travel.trips" and c.start == sent.start), None)
    if first is None or "?" in sent.text:
        return
    stops = list(_NEXT_STOP.finditer(sent.text))
    seen = {(first.value.get("country"), first.value.get("city"))}
    for i, m in enumerate(stops):
        end = stops[i + 1].start() if i + 1 < len(stops) else len(sent.text)
        leg = Span(sent.start + m.end(), sent.text[m.end() : end])
        found = places_in(leg)
        if not found or found[0][2] - leg.start > 3:
            continue  # the stop opens with its place ("then Italy ...", "then in Berlin ...")
        city, country, _ = found[0]
        # the leg's days read in the whole sentence: "on 4 July ... on to Cairo on the 9th"
        # is 9 July (the month said before the leg)
        days = [
            d
            for d in dates_in(sent, "future", ctx.today, ctx.anchor)
            if d.valid and d.date and leg.start <= d.start < leg.start + len(leg.text)
        ]
        stay = span_of(days, ctx.text, 0)
        if stay is None and days:  # "then on to Rome on 10 June, home on 20 June"
            stay = (days[0].date, first.value.get("return_date") or days[0].date)  # type: ignore[assignment]
        if stay is None or (country, city) in seen or stay[1] < stay[0]:
            continue
        same = (first.value.get("depart"), first.value.get("return_date")) == stay
        if same and country == first.value.get("country"):
            continue  # "Kenya, Nairobi and Masai Mara, 3 to 17 March": places of one trip
        seen.add((country, city))
        value: dict[str, Any] = {"country": country, "depart": stay[0]}
        if stay[1] > stay[0] or first.value.get("return_date"):
            value["return_date"] = stay[1]  # a stop said with one day has no return of its own
        if city:
            value["city"] = city
        if mode := first.value.get("transport"):
            value["transport"] = mode
        ctx.add("travel.trips", value, leg, 0.7)


# A pasted confirmation: "Dear CHIDIEBERE OKONKWO, your booking QX7M2L is confirmed. ...",
# "Passenger: Anna Lopes"; the reference and the name belong to every leg the message books.
_NAME_WORDS = r"[A-Z][A-Za-zà-ÿ'’-]{1,20}(?:[ \t][A-Z][A-Za-zà-ÿ'’-]{1,20}){1,3}"
_PASSENGER = re.compile(
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
_BOOKING_REF = re.compile(
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


RULES: tuple[Rule, ...] = (
    rule_place_span,
    rule_legs,
    rule_next_stops,
    rule_booking_name,
    rule_pasted_details,
)
