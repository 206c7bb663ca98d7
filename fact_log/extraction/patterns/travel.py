"""Travel patterns, the one home of travel.trips: trips with destination, dates and purpose
("I'm flying to Tokyo on March 5"), a trip said as a known place and its span of days
(`rule_place_span`, `rule_next_stops`: run late, patterns/__init__.py), where the user lives
or is (places.address, places.location)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.discourse import Mention, freeze
from uac.fact_log.extraction.patterns.text import (
    THIRD_PARTY,
    Ctx,
    Span,
    clause_of,
    clause_ok,
    clauses,
    dates_in,
    guarded,
    in_clause,
    named_subject,
    someone_else,
)
from uac.fact_log.extraction.timemodel import DateMatch, Prefer, duration
from uac.fact_log.extraction.values.places import CITIES, COUNTRIES, fold, lookup_place
from uac.fact_log.extraction.values.roles import place_role
from uac.fact_log.reference import vocabulary

# A place to stay, as people name it (the chains too: "booked the Hilton in Rome")
LODGING = "(?:" + "|".join(vocabulary()["ordered_lists"]["lodging"]) + ")"

_TRAVEL = lazy(
    r"\b(?P<plane>fly(?:ing)?|flew|flights?|planes?|fares?)\b|\b(?P<train>train|eurostar|rail)\b|"
    r"\b(?P<car>drive|driving|drove|road\s+trip)\b|\b(?P<bus>bus|coach)\b|"
    r"\b(?P<boat>ferry|cruise|boat|sail(?:ing)?)\b|"
    r"\b(?P<other>travel(?:l?ing)?|travell?ed|going|go|heading|head|off|trip|visit(?:ing)?|"
    r"visited|holiday|vacation|booked|leaving|leave|went|was|were|be|back|returning|getaway|"
    r"taking|take|"  # "taking the missus to Lanzarote"
    r"staying|send(?:ing)?\s+me|sent\s+me|"
    # "I'm out of office 12-16 April, conference in Lisbon": away, and where
    r"out\s+of\s+(?:the\s+)?office|on\s+(?:annual\s+)?leave)\b|"
    r"(?P<cjk>出差|旅行|旅游|飞往|前往|去)",
    re.IGNORECASE,
)
_PLACE_INTRO = lazy(
    r"\b(?:to|into|in|visit(?:ing)?|visited|for|from)[ \t]{1,3}"
    r"(?:(?i:the[ \t]+)?(?i:south|north|east|west|south-west|south-east|north-west|north-east|"
    r"centre|center|middle|coast)[ \t]+of[ \t]+)?"  # "driving to the south of France"
    # (the words are looked at, not consumed: "to my dad in Gdańsk" still finds "in Gdańsk")
    r"(?=((?:[A-Za-z][\w'’.-]{0,20})"
    r"(?:[ \t]{1,2}[A-Za-z][\w'’.-]{0,20}){0,2}))"
    r"|(?:去|到|飞往|飞|前往)([\u4e00-\u9fff]{2,5})"
)
_RETURN = lazy(
    r"\b(?:back|return(?:ing)?|home|until|till|til|through|thru|to|and)\s+(?:on\s+)?(?:the\s+)?$|"
    r"[-–]\s*$",
    re.IGNORECASE,
)
# (what says it, the trip's purpose), from vocabulary.toml's [[trip_purposes]]
_PURPOSE = tuple(
    (lazy("".join(row["regex"]), re.I), row["value"]) for row in vocabulary()["trip_purposes"]
)
PAST = lazy(
    r"\b(?:went|was|were|visited|flew|drove|came\s+back|got\s+back|returned|had\s+been)\b|"
    # "last year", "last June", "the last time": a time gone by ("a last trip before the
    # baby", "a last minute week in Porto" are still to come)
    r"\blast\s+(?!minute\b|trip\b|chance\b|one\b|holiday\b|break\b|getaway\b|leg\b|"
    r"stop\b|day\b|night\b|flight\b|train\b|bit\b)\w+|\bthe\s+last\s+(?:time|day|night)\b",
    re.IGNORECASE,
)
_CONTINUES = lazy(
    r"(?:leaving|departing|departure|out|flying\s+out|(?:we|i)\s+(?:leave|fly|go|head)|going)\b|"
    r"(?:from\s+)?(?:the\s+)?(?:[A-Za-z]{3,9}\.?\s+)?\d{1,2}(?:st|nd|rd|th)?(?:\s+of\s+[A-Za-z]{3,9})?\s*"
    r"(?:[-–]|to|till|until)\s*(?:the\s+)?(?:[A-Za-z]{3,9}\.?\s+)?\d{1,2}",
    re.I,
)
_HOMEWARD = lazy(r"\s+(?:back|home)\b", re.I)
_BACK_ON = lazy(r"\b(?:back|home|return(?:ing)?)\s+(?:on\s+)?(?:the\s+)?$", re.I)
_STAY_FOR = lazy(
    r"\b(?:for|booked)\s+(?:a|an|the|one|two|three|four|five|six|ten|\d{1,2})\s+(?:nights?|days?|weeks?)\b|"
    r"\b(?:a|one|two|three)\s+weeks?\s+in\b",
    re.I,
)
NOT_TRAVEL = lazy(
    r"\b(?:moving|move|moved|live|lives|living|born|weather|table|car\s+hire|hire\s+car|"
    r"rental\s+car)\b|"  # a table booked in a city is a meal there; a hire car a booking
    # "booked a try-dive in Dahab": an activity booked there, not the journey
    r"\bbooked\s+(?:a|an)\s+(?!(?:trip|holiday|flight|flights|train|ticket|cruise|getaway|break|"
    r"week|weekend|few|couple|little|" + LODGING + r")\b)[\w-]+(?:\s[\w-]+)?\s+(?:in|at)\s",
    re.I,
)


_LAYOVER = lazy(
    r"\b(?:layover|stopover|stop-over|connection|connecting|change\s+of\s+planes?|"
    r"chang(?:es|ed)\s+planes?|changing\s+"
    r"(?:planes?\s+|trains?\s+)?|chang(?:es|e)|transit(?:ing)?)\s+(?:flight\s+)?(?:in|at|through)\s+$|"
    r"\bvia\s+$",
    re.IGNORECASE,
)
_VIA = lazy(
    r"\b(?:(?:layover|stopover|stop-over|connection|connecting|connects|changing(?:\s+planes)?|"
    r"chang(?:es|ed)\s+planes?|chang(?:es|e)|"  # "the route changes in Toronto"
    r"transit(?:ing)?)\s+(?:flight\s+)?(?:in|at|through)|via)[ \t]{1,3}"
    # ("cheapest was american via miami": a known place in lower case too)
    r"([A-Za-z][\w'’.-]{0,20}(?:[ \t]{1,2}[A-Za-z][\w'’.-]{0,20}){0,2})"
)
_BOOKED_PLACE = lazy(
    r"\b(?i:booked|booking)[ \t]{1,3}"
    r"([A-Za-z][\w'’.-]{0,20}(?:[ \t]{1,2}[A-Za-z][\w'’.-]{0,20}){0,2})"
)
# Place names that are also everyday words or first names: written in lower case they are
# not taken for the place ("nice", "turkey", "jordan").
_WORDS_TOO = frozenset(vocabulary()["word_sets"]["travel_words_too"])


def _lookup(name: str) -> tuple[str | None, str] | None:
    """A place as written, or in lower case unless the name is also a common word; a city
    written in lower case is given its capitals ("mexico city" -> "Mexico City")."""
    if name[:1].islower() and (name.casefold() in _WORDS_TOO or name.casefold() in _NOT_PLACES):
        return None
    found = lookup_place(name)
    if found is None or found[0] is None or not (found[0].islower() or found[0].isupper()):
        return found
    return found[0].title(), found[1]


_NOT_PLACES = frozenset(("us", "uk", "usa", "uae"))  # "to us" is not the United States


def known(words: list[str]) -> tuple[str | None, str] | None:
    """The longest known place the words begin with."""
    for n in range(len(words), 0, -1):
        found = _lookup(" ".join(words[:n]).rstrip(".,'’!"))
        if found is not None:
            return found
    return None


def _role(sent: Span, place: tuple[str | None, str, int]) -> str | None:
    """The part a place found in the sentence plays in the journey (values/roles.py)."""
    return place_role(sent.text, place[2] - sent.start)


def via_of(sent: Span) -> list[str]:
    """Where the journey changes planes ("with a layover in Dallas", "via Doha"), or goes on
    from ("to Toronto and further to Vancouver")."""
    found = list(_places(sent)) if "to" in sent.text else []
    out = [
        p[0] or p[1]
        for p, q in pairwise(found)
        if _role(sent, p) == "destination" and _role(sent, q) == "onward"
    ]
    for m in _VIA.finditer(sent.text):
        place = known(m[1].split())
        if place is not None:
            out.append(place[0] or place[1])
    return out


def _booked_place(text: str, offset: int) -> tuple[str | None, str, int] | None:
    """A place named right after "booked" ("Booked Mexico City!"), with its offset."""
    for m in _BOOKED_PLACE.finditer(text):
        found = known(m[1].split())
        if found is not None:
            return found[0], found[1], offset + m.start(1)
    return None


# How far past a match's start a search of _BOOKED_PLACE reads (77 characters of match, the
# word boundary before it and the few it peeks at after): a match starting further than this
# before a cut is found alike in the text and in the text cut there.
_BOOKED_REACH = 96


class _BookedScan:
    """_booked_place over a growing prefix of one message, each match read once."""

    __slots__ = ("cut", "done", "found", "matches", "pending", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.matches = _BOOKED_PLACE.finditer(text)
        self.pending = next(self.matches, None)  # the next match of the whole text
        self.done = 0  # where the whole text's matches read so far end
        self.found: tuple[str | None, str, int] | None = None  # the first known place
        self.cut = 0

    def before(self, end: int) -> tuple[str | None, str, int] | None:
        """`_booked_place(text[:end], 0)`, for `end` never smaller than the last one's."""
        if end < self.cut:
            return _booked_place(self.text[:end], 0)
        self.cut = end
        # the whole text's matches that start well before the cut are the cut text's
        while self.found is None and self.pending is not None:
            m = self.pending
            if m.start() + _BOOKED_REACH > end:
                break
            place = known(m[1].split())
            if place is not None:
                self.found = (place[0], place[1], m.start(1))
            self.done, self.pending = m.end(), next(self.matches, None)
        if self.found is not None:
            return self.found
        # the cut text's own matches near the cut (a name the cut may have shortened)
        for m in _BOOKED_PLACE.finditer(self.text, max(self.done, end - _BOOKED_REACH), end):
            place = known(m[1].split())
            if place is not None:
                return place[0], place[1], m.start(1)
        return None


def _booked_before(ctx: Ctx, end: int) -> tuple[str | None, str, int] | None:
    """A place named right after "booked" in the message before `end`: the first one, as
    `_booked_place(ctx.text[:end], 0)` finds it, in time linear in the message (a 64 KB
    message read sentence by sentence would otherwise be read once per sentence)."""
    scan = ctx.memo.get("booked")
    if scan is None:
        scan = ctx.memo["booked"] = _BookedScan(ctx.text)
    return scan.before(end)


def _place(sent: Span) -> tuple[str | None, str, int] | None:
    """The first known destination after 'to/in/visit' with its absolute offset; a country
    named first takes the city of it named later ("Off to Canada: flying to Toronto")."""
    found = list(_places(sent))
    first = found[0] if found else None
    if first is not None and first[0] is None:
        city = next((p for p in found if p[0] is not None and p[1] == first[1]), None)
        if city is not None:
            return city[0], city[1], first[2]
    # "to Toronto and further to Vancouver", "to Puglia, to Lecce": where it goes on to
    onward = [p for p in found[1:] if p[0] and _role(sent, p) in ("onward", "within")]
    if first is not None and onward and onward[-1][1] == first[1]:
        return onward[-1][0], onward[-1][1], first[2]
    return first


# "booked it: Rome, 3 to 8 September", "Bangkok from July 1st", "Lagos trip is on: ...": a
# place said just before its days (a range, or "from" a day), or named as the trip itself.
_DAY = r"(?:the[ \t]{1,3})?(?:[A-Z][a-z]{2,8}\.?[ \t]{1,3})?\d{1,2}(?:st|nd|rd|th)?"
_PLACE_DAYS = lazy(
    # "the trip itself is Hanoi 5 Feb to ...", "ok Rio is locked in"
    r"(?:^(?i:(?:ok(?:ay)?|so|right|yes|yay|and)[ \t,!]{1,3})?|[:,–-][ \t]{0,2}|"
    r"\b(?:in|to|is)[ \t]{1,3})"
    r"([A-Z][\w'’.-]{0,20}(?:[ \t]{1,2}[A-Z][\w'’.-]{0,20}){0,2})"
    # "Lisbon with the girls from 3 to 10 September"
    r"(?:(?:[ \t]{1,3}(?:with|for|on)[ \t]{1,3}(?:the[ \t]|my[ \t]|our[ \t]|a[ \t])?[a-z]{2,15}"
    r"(?:[ \t][a-z]{2,15})?)?"
    r",?[ \t]{1,3}(?=(?:from[ \t]{1,3}"
    + _DAY
    + r"|"
    + _DAY
    + r"(?:[ \t]{1,3}[A-Za-z]{3,9}\.?)?[ \t]{0,3}"
    r"(?:[-–]|to|till|until|through|thru)\b))|[ \t]{1,2}(?:trip|holiday|getaway)\b"
    r"|[ \t]{1,2}(?i:is[ \t]{1,3})?(?i:booked|sorted|confirmed|locked[ \t]+in)\b"
    r"|,?[ \t]{1,3}(?i:landing|arriving|getting[ \t]+in|flying[ \t]+in)\b"  # "Rome, landing Feb 15"
    r"|[ \t]*[!.]*[ \t]*$)"  # "Kyoto!!!": a place said alone, its days next
)
WISH = lazy(r"\b(?:would|could|might|maybe|if|someday|one\s+day)\b", re.I)


def _place_days(sent: Span) -> tuple[str | None, str, int] | None:
    """A known place followed by its days, said as the user's plan (not past, not a wish)."""
    if PAST.search(sent.text) or WISH.search(sent.text):
        return None  # "Paris, 3 to 8 September, was the conference I missed"
    for m in _PLACE_DAYS.finditer(sent.text):
        found = known(m[1].split())
        alone = m.end() == len(sent.text) and not sent.text[m.end(1) :].strip(" \t!.")
        if alone and m.start(1) != 0:
            continue  # only a whole sentence that is a place stands for its trip
        if found is not None:
            return found[0], found[1], sent.start + m.start(1)
    return None


def _places(sent: Span) -> Iterator[tuple[str | None, str, int]]:
    """Known destinations after 'to/in/visit', in order, each with its absolute offset."""
    for m in _PLACE_INTRO.finditer(sent.text):
        if m[0].lower().startswith("from"):
            continue
        if _LAYOVER.search(sent.text[max(0, m.start() - 40) : m.start(1) if m[1] else m.end()]):
            continue  # "a layover in Dallas": where the plane stops, not where the user goes
        if m[2]:  # Chinese: no spaces, so try the longest known prefix of the characters
            for n in range(len(m[2]), 1, -1):
                found = lookup_place(m[2][:n])
                if found is not None:
                    yield found[0], found[1], sent.start + m.start(2)
                    break
            continue
        words = m[1].split()
        for n in range(len(words), 0, -1):
            name = " ".join(words[:n]).rstrip(".,'’")
            found = _lookup(name)
            if found is not None:
                yield found[0], found[1], sent.start + m.start(1)
                break


# "back the 16th" is the way home; "back in India in May" a journey there
_WAY_HOME = lazy(r"(?:back|returning)\b(?!\s+(?:in|to)\s)", re.I)
_JOURNEY = lazy(r"\b(?:flights?|flying|fly|train|tickets?)\b[^.?!]{0,40}[.!]+\s*$", re.I)


def inside_a_trip(ctx: Ctx, start: dt.date, end: dt.date) -> bool:
    """Whether the days fall within a trip the session already has (a weekend away in the
    middle of a sabbatical is a stay there, not a new trip)."""
    trip = ctx.thread.last("travel.trips")
    if trip is None:
        return False
    depart, back = trip.get("depart"), trip.get("return_date")
    return (
        isinstance(depart, dt.date) and isinstance(back, dt.date) and depart < start <= end < back
    )


# "she's in Lisbon from the 3rd": someone else is the sentence's subject
OTHER_SUBJECT = lazy(r"\s*(?:he|she|they)(?:'s|’s|'re|’re|\s+(?:is|are|was|were|will|'ll)\b)", re.I)


_BY_DAY = lazy(r"\b(?:by|before)\s+(?:the\s+)?$", re.I)


def _asked(parts: list[Span], at: int) -> bool:
    """Whether the clause naming the place is itself a question ("Porto 3-8 July?")."""
    clause = clause_of(parts, at)
    return clause is not None and clause.text.rstrip().endswith("?")


def _city_alone(parts: list[Span], country: str) -> str | None:
    """A known city of the country said as a clause of its own ("India, Bangalore, ...")."""
    for clause in parts:
        name = clause.text.strip(" .!")
        found = lookup_place(name) if name[:1].isupper() and len(name) < 30 else None
        if found is not None and found[0] and found[1] == country:
            return found[0]
    return None


def rule_trips(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Booked or past trips with a destination and a departure date."""
    travel = _TRAVEL.search(sent.text)
    while travel is not None and _WAY_HOME.match(sent.text, travel.start()):
        travel = _TRAVEL.search(sent.text, travel.end())  # the way home names no journey out
    days_place = _place_days(sent)
    before = ctx.text[max(0, sent.start - 80) : sent.start]  # the sentence just before only
    if travel is None and days_place is None and _JOURNEY.search(before):
        # "flights are sorted!! heathrow to delhi on the 4th of march": the journey word ended
        # the message's sentence before; the place stands where it would be
        days_place = _place(sent)
    if (travel is None and days_place is None) or NOT_TRAVEL.search(sent.text):
        return
    if _someone_travels(sent.text):
        return  # "Tom is flying to Rome on 3 July": Tom's trip
    if "since" in sent.text and _HERE_SINCE.search(sent.text):
        return  # "I'm in lisbon since sept 3": begun already (rule_here_since)
    # "Vietnam is happening: Hanoi, August 1 through August 25": a place and its days say trip
    # without a travel word; the place stands where the word would.
    trip_at = sent.start + travel.start() if travel is not None else days_place[2]  # type: ignore[index]
    place = _place(sent) or _booked_place(sent.text, sent.start) or days_place
    if place is None:
        # "Booked Mexico City! Flying out 3 June ...": the destination is the message's earlier
        # sentence, the dates this one.
        place = _booked_before(ctx, sent.start)
        if place is not None and not clause_ok(parts, sent, trip_at):
            return
        place = place and (place[0], place[1], trip_at)
    if place is None:
        return
    city, country, at = place
    if not clause_ok(parts, sent, at) or not clause_ok(parts, sent, trip_at):
        return
    # the tense of the journey's own clauses ("..., the name I put is X because the form was
    # short" says nothing about when the flight is)
    said = " ".join(c.text for c in parts if c.start <= max(at, trip_at) or not PAST.search(c.text))
    prefer: Prefer = "past" if PAST.search(said) else "future"
    dates = _not_since(ctx.text, dates_in(sent, prefer, ctx.today, ctx.anchor))
    nxt = ctx.following
    if not dates and nxt is not None and _CONTINUES.match(nxt.text):
        # "Booked flights to Bangkok! Leaving 14 February, coming home 2 March."
        sent = Span(sent.start, ctx.text[sent.start : nxt.end])
        parts = clauses(sent)
        dates = _not_since(ctx.text, dates_in(sent, prefer, ctx.today, ctx.anchor))
    # The departure is the first date in the clause that names the journey ("the conference
    # is 22-24 September, I'm taking the train there on the 21st"), else the first date.
    verbs = [
        sent.start + m.start()
        for m in _TRAVEL.finditer(sent.text)
        if not m["other"] and not _HOMEWARD.match(sent.text, m.end())  # "flying back 20 April"
    ]
    # Only a way home said ("Valencia from July 3rd, flying home on the 12th"): the departure
    # is in the place's clause.
    verbs = verbs or [at if place is days_place else trip_at]
    home = {id(clause_of(parts, v)) for v in verbs}
    dates.sort(key=lambda d: (id(clause_of(parts, d.start)) not in home, d.start))
    depart = ret = None
    for d in dates:
        lead = ctx.text[max(sent.start, d.start - 25) : d.start]
        if depart is not None and d.start > depart.start and _RETURN.search(lead):
            ret = d
            break
        if depart is None:
            depart = d
    if ret is not None:
        # "Tbilisi, 17-21 July, then I stay some days more ..., back 26th": the way home said
        # after the range is the return
        later = [d for d in dates if d.start > ret.start and d.valid]
        back = [d for d in later if _BACK_ON.search(ctx.text[max(ret.end, d.start - 20) : d.start])]
        ret = back[-1] if back else ret
    if depart is None or not depart.valid or (ret is not None and not ret.valid):
        return  # no departure day, or a day that does not exist: nothing to record
    if OTHER_SUBJECT.match(sent.text) or _asked(parts, at):
        return
    if _BY_DAY.search(ctx.text[max(sent.start, depart.start - 8) : depart.start]):
        return  # "need the car back by the 15th for the drive up": a deadline, not a departure
    if ret is not None and inside_a_trip(ctx, depart.date, ret.date):  # type: ignore[arg-type]
        return  # a stay within the trip the session already has
    value: dict[str, Any] = {"country": country, "depart": depart.date}
    city = city or _city_alone(parts, country)  # "to India in September, Bangalore, 6-17"
    if city:
        value["city"] = city
    if ret is None and _known_outbound(ctx, country, city, depart.date):  # type: ignore[arg-type]
        return  # "flight KL691 Amsterdam to Toronto 20 Sep": the known trip's way out, no trip
    if ret is not None and ret.date is not None and ret.date >= depart.date:  # type: ignore[operator]
        value["return_date"] = ret.date
    elif ret is None and (stay := _STAY_FOR.search(sent.text)) and depart.date is not None:
        # "going to Bali for two weeks from 3 March": the stay's length gives the return
        span = duration(re.sub(r"\bthe\b", "a", stay[0]))  # "for the week": a week
        if span is not None and span[0] >= dt.timedelta(days=1):
            value["return_date"] = depart.date + dt.timedelta(days=span[0].days)
    if via := via_of(sent):
        value["via"] = via
    if (why := purpose(sent.text)) is not None:
        value["purpose"] = why
    if mode := transport(sent.text):
        value["transport"] = mode
    ctx.add("travel.trips", value, sent, 0.85 if depart.explicit_year else 0.8)


def _known_outbound(ctx: Ctx, country: str, city: str | None, day: dt.date) -> bool:
    """Whether the session already has a trip to this place leaving that day (with its return):
    a flight to it said again is the trip's booking, not another trip."""
    return any(
        m.kind == "travel.trips"
        and m.get("depart") == day
        and m.get("country") == country
        and m.get("city") in (city, None)
        and m.get("return_date") is not None
        for m in ctx.thread.mentions
    )


# "by car", "by plane": the mode said outright wins over any travel verb of the sentence
_BY_MODE = lazy(
    r"\bby\s+(?:(?P<car>car)|(?P<plane>plane|air)|(?P<train>train|rail)|(?P<bus>bus|coach)|"
    r"(?P<boat>boat|ferry))\b",
    re.I,
)
# "I do not fly", "never flying", "don't drive": a mode the user does not take
_NOT_MODE = lazy(r"\b(?:not|never|n't|cannot|can't)\s+(?:\w+\s+)?$", re.I)
_MODES = ("plane", "train", "car", "bus", "boat")


def transport(text: str) -> str | None:
    """How the user travels: a mode said outright ("by car"), else the first travel word that
    names a mode and is not denied ("I do not fly"), or None."""
    for m in (*_BY_MODE.finditer(text), *_TRAVEL.finditer(text)):
        mode = next((name for name in _MODES if m[name]), None)
        if mode is not None and not _NOT_MODE.search(text[max(0, m.start() - 16) : m.start()]):
            return mode
    return None


_HERE_NOW = lazy(
    r"\b(?:i(?:'m|\s+am)\s+(?:currently\s+|now\s+|still\s+)?(?:in|back\s+in)|(?:^|\bi(?:'ve|\s+have)?\s+)"
    r"(?:just\s+)?(?:landed|arrived)\s+in)\s+(?P<place>(?-i:[A-Z][\w'-]{1,20}(?:\s[A-Z][\w'-]{1,20})?))",
    re.IGNORECASE,
)
_NOW = lazy(r"\b(?:now|right\s+now|currently|at\s+the\s+moment|just|landed|arrived)\b", re.I)
_LATER = lazy(r"\b(?:next|tomorrow|will|'ll|going\s+to|on\s+\w+day|until|till)\b", re.I)


def rule_location(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Where the user is right now ("Just landed in Lisbon", "I'm in Tokyo right now")."""
    m = _HERE_NOW.search(sent.text)
    if m is None or not _NOW.search(sent.text) or _LATER.search(sent.text):
        return  # "I'm in Tokyo next week" is a trip, not where the user is
    if not in_clause(m, parts, sent):
        return
    found = lookup_place(m["place"])
    if found is None:
        return
    city, country = found
    if city is not None:
        ctx.add("places.location.city", city, sent, 0.75)
    ctx.add("places.location.country", country, sent, 0.75)


# "ok so I'm in lisbon since sept 3, planning to stay till dec 20ish": where the user is now,
# and the trip that began on that day (a day said within the last half year: "in Berlin
# since 2019" is where they live)
_HERE_SINCE = lazy(
    r"\bi(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+(?:in|based\s+in)\s+"
    r"(?P<place>[A-Za-z][\w'’-]{1,20}(?:\s[A-Za-z][\w'’-]{1,20})?)\s+since\s",
    re.I,
)
_AWAY_FOR = dt.timedelta(days=183)
# "Back in Toronto since August": a day said after "since" is when a state began (the user
# is there: rule_here_since), no day of a journey
_SINCE_BEFORE = lazy(r"\bsince[ \t]+$", re.I)


def _not_since(text: str, dates: list[DateMatch]) -> list[DateMatch]:
    """The dates not said after "since" (positions in text)."""
    return [d for d in dates if not _SINCE_BEFORE.search(text, max(0, d.start - 8), d.start)]


def rule_here_since(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Where the user has been since a recent day: the current place, and the trip there."""
    m = _HERE_SINCE.search(sent.text) if "since" in sent.text else None
    if m is None or not in_clause(m, parts, sent) or said_here(ctx, sent, "travel.trips"):
        return
    found = known(m["place"].split())
    days = [d for d in ctx.dates(sent, "past", after=m.end() - 1) if d.valid and d.date]
    if found is None or not days or found[0] is None:
        return
    day = days[0].date
    if not ctx.today - _AWAY_FOR <= day <= ctx.today:  # type: ignore[operator]
        return
    ctx.add("places.location.city", found[0], sent, 0.7)
    value: dict[str, Any] = {"country": found[1], "city": found[0], "depart": day}
    ctx.add("travel.trips", value, sent, 0.7)


def purpose(text: str) -> str | None:
    """Why the user travels, from the words of the sentence, or None."""
    return next((purpose for purpose_re, purpose in _PURPOSE if purpose_re.search(text)), None)


_CONFIRMED = lazy(r"\b(?:is|are)\s+(?:booked|sorted|confirmed|on|happening|locked\s+in)\b", re.I)


def _someone_travels(text: str) -> bool:
    """Whether a named person other than the user is the sentence's traveller (a place as the
    subject, "Vietnam is happening", is the user's trip)."""
    name = named_subject(text)
    return name is not None and lookup_place(name) is None


def destination_topic(ctx: Ctx, sent: Span, found: list[Candidate]) -> list[Mention]:
    """A destination the user says they are going to without its days ("work is sending me
    to Lima at the end of April"): the place a later "out 26 April, back 7 May" is about."""
    if any(c.path == "travel.trips" for c in found):
        return []
    if _TRAVEL.search(sent.text) is None and not _CONFIRMED.search(sent.text):
        return []  # "study abroad in Seville is CONFIRMED": the place, its days to come
    if PAST.search(sent.text) or NOT_TRAVEL.search(sent.text) or _someone_travels(sent.text):
        return []  # the cheap refusals before the place lookups
    place = _place(sent) or _place_days(sent) or _booked_place(sent.text, sent.start)
    if place is None:
        return []
    head = sent.text[: place[2] - sent.start]
    if guarded(head, None, sent.text) or THIRD_PARTY.search(head) or WISH.search(head):
        return []
    city, country, _ = place
    fields: dict[str, Any] = {"country": country, **({"city": city} if city else {})}
    if (why := purpose(sent.text)) is not None:
        fields["purpose"] = why
    if mode := transport(sent.text):
        fields["transport"] = mode  # "we're driving to the south of France in June"
    return [Mention("destination", freeze(fields), ctx.today)]


_OUTWARD = lazy(
    r"\b(?:out|outbound|fly(?:ing)?|flights?|leav(?:e|ing)|depart(?:s|ing|ure)?|going)\b", re.I
)
# "back 7 May", "return flight lands 2 December", "flight back lands 11 September"
_HOMEBOUND = lazy(r"\b(?:back|return(?:ing)?|home)\b[^,;]{0,16}$", re.I)


def said_here(ctx: Ctx, sent: Span, path: str) -> bool:
    """Whether a rule already found a record of the path in this sentence (newest first)."""
    for c in reversed(ctx.out):
        if c.start < sent.start:
            return False
        if c.path == path:
            return True
    return False


def latest(ctx: Ctx, *kinds: str) -> int:
    """The position of the most recent mention of one of the kinds in the thread (-1 if none)."""
    found = [i for i, m in enumerate(ctx.thread.mentions) if m.kind in kinds]
    return found[-1] if found else -1


def rule_trip_from_thread(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The days of a trip whose destination an earlier line named ("The flight is on 9 April
    and I come back 23 April" after "I'm going to Germany next month to see my brother")."""
    out = _OUTWARD.search(sent.text)
    if out is None or (where := latest(ctx, "destination")) < 0:
        return
    if where < latest(ctx, "travel.trips") or said_here(ctx, sent, "travel.trips"):
        return
    if not in_clause(out, parts, sent) or WISH.search(sent.text):
        return
    dates = [d for d in ctx.dates(sent) if d.valid and d.date]
    if not dates or _place(sent) is not None:
        return
    fields = ctx.thread.mentions[where].record()
    back = [
        d for d in dates[1:] if _HOMEBOUND.search(ctx.text[max(sent.start, d.start - 20) : d.start])
    ]
    value = {**fields, "depart": dates[0].date}
    if back and back[0].date >= dates[0].date:  # type: ignore[operator]
        value["return_date"] = back[0].date
    ctx.add("travel.trips", value, sent, 0.75)


_VIA_ONLY = lazy(
    r"\b(?:go(?:ing)?|fly(?:ing)?|travel(?:l?ing)?|route|plan\s+is|connect(?:ing|s)?|layover|"
    r"stopover|chang(?:e|es|ing))\b",
    re.I,
)


def rule_trip_via(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "Plan is to go via Singapore": where the last trip's journey changes."""
    via = via_of(sent)
    if not via or (trip := ctx.thread.last("travel.trips")) is None:
        return
    if not _VIA_ONLY.search(sent.text) or WISH.search(sent.text):
        return
    if said_here(ctx, sent, "travel.trips"):
        return
    if not clause_ok(parts, sent, sent.start) or _place(sent) is not None:
        return
    value = trip.record()
    value["via"] = list(dict.fromkeys([*value.get("via", ()), *via]))
    ctx.add("travel.trips", value, sent, 0.75)


# "I live in Leeds", "living in Bristol", "we moved to Porto last year", "based in Oslo": home
_HOME = lazy(
    r"(?:\b(?:i|we)\s+(?:still\s+|now\s+|currently\s+)?live\s+in|\b(?:i(?:'m|\s+am)|we(?:'re|\s+are))\s+"
    r"(?:now\s+|currently\s+)?(?:living|based)\s+in|(?:^|,\s*|\band\s+)(?:living|based|live)\s+in|"
    r"\b(?:i|we)\s+(?:just\s+|recently\s+|finally\s+)?moved\s+to|\bmy\s+home\s+is\s+in)\s+"
    r"(?P<place>[A-Za-z][\w'’.-]{1,20}(?:\s[A-Z][\w'’.-]{1,20})?)",
    re.IGNORECASE,
)


# "living in Bristol", "I live in Leeds", "I'm based in Manchester": the home city, a city of
# the reference data (its country is the reference data's to say, not a fact the user said).
_LIVE_IN = lazy(
    r"(?:\bi\s+(?:now\s+|currently\s+|still\s+)?live\s+in|\bi(?:'m|\s+am)\s+(?:now\s+)?"
    r"(?:living|based)\s+in|(?:^|,\s*)(?:now\s+)?(?:living|based|live)\s+in|\bmy\s+home\s+is\s+in)\s+"
    r"(?P<city>(?-i:[A-Z][a-zà-ÿ'’-]{1,20}(?:\s[A-Z][a-zà-ÿ'’-]{1,20})?))",
    re.IGNORECASE,
)


def home_city(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The city the user lives in, said as "I live in Leeds" (read with the user's name,
    identity.py's `rule_identity`)."""
    m = _LIVE_IN.search(sent.text)
    if m is None or someone_else(sent.text[: m.start()]):
        return
    place = lookup_place(m["city"]) or lookup_place(m["city"].split()[0])
    if place is None or place[0] is None or not in_clause(m, parts, sent, "city"):
        return
    ctx.add("places.address.city", place[0], sent, 0.8)


def rule_home(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The city the user lives in ("quick intro: I'm Niamh, 36, living in Bristol")."""
    m = _HOME.search(sent.text)
    if not in_clause(m, parts, sent, "place"):
        return
    found = known(m["place"].split())
    if found is None or re.search(r"\bused\s+to\b|\bwhen\s+i\b", sent.text, re.I):
        return
    city, country = found
    if city is not None:  # what was said: the city ("Bristol"), or else the country
        ctx.add("places.address.city", city, sent, 0.75)
    else:
        ctx.add("places.address.country", country, sent, 0.75)


# -- trips said as a known place and its span of days -------------------------------------------
# Trips said as a known place and its span of days, however the sentence is built.
#
# People name a trip by its place and its days and leave the travel verb out: "oaxaca for day
# of the dead!! fly out oct 27, home nov 4", "first use: Shanghai in June, 6th-13th", "Lima in
# November!! 9th to the 23rd", "I'm in Dublin that week, 8th to the 12th, for work". The
# construct is a place the reference data knows (fact_log/reference/data/places.toml, the list
# the checks use) and two days that bound a stay (joined by a range word, or the second said as
# the way home), in one sentence or in the sentence right after the place. It is the user's
# plan unless a guard says otherwise (a question, a wish, the past, someone else's trip, a place
# the user lives in or only passes through). `rule_trips` (travel.py) reads trips that have a
# travel word; this rule runs after it and adds a trip only where that found none.

_WORD = lazy(r"[A-Za-z][\w'’.-]*")
# What may stand before a place that is not where the user goes: an origin, a layover, a home,
# a stay's neighbourhood ("villa near Lagos": Lagos may be another country's city).
_NOT_DESTINATION = lazy(
    r"\b(?:from|via|through|thru|connect\w*|layover|stopover|live|lives|living|based|born|near|"
    # "flying out of Sydney", "leaving Nairobi": where the journey starts
    r"outside|(?:fly\w*|depart\w*|leav\w*|sail\w*|driv\w*|head\w*)\s+out\s+of|"
    r"departing|leaving)\s+(?:the\s+)?$",
    re.I,
)
_TOWARD = lazy(r"(?:\bto|->|→|>)\s*$", re.I)
# The second day of a stay: after a range word, or said as the way home.
_SPAN_JOIN = lazy(
    r"(?:[-–]|\b(?:to|till|til|until|through|thru|back|home|return\w*|flying\s+back)\b)"
    r"[^.!?\d]{0,14}$",
    re.I,
)
_HAS_DAY = lazy(
    r"\d|first|second|third|(?:fif|six|seven|eigh|nin|ten|eleven|twelf|teen|tie)th\b|tomorrow|"
    r"today|monday|tuesday|wednesday|thursday|friday|saturday|sunday",
    re.I,
)
# The first word of every place name the reference data knows: a word that starts none is
# skipped without a lookup (most words of most sentences).
_FIRST_WORDS = frozenset(name.split()[0] for name in (*CITIES, *COUNTRIES))
_DOCUMENT = lazy(
    r"\b(?:e-?visa|visa|passport|insurance|policy|cover|licen[cs]e|permit|esta|eta|valid)\b", re.I
)
MAX_STAY = dt.timedelta(days=370)


_FROM = lazy(r"\bfrom\s+((?-i:[A-Z][\w'’.-]+)(?:\s[A-Z][\w'’.-]+)?)")


def origin_of(sent: Span) -> str | None:
    """The known city a journey leaves from ("from Munich"), or None."""
    m = _FROM.search(sent.text)
    found = known(m[1].split()) if m is not None else None
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
        found = known([x[0] for x in words[i : i + 3]])
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


_ARROW = lazy(r"(?:->|→|>)\s*$")


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
    if "?" in sent.text or said_here(ctx, sent, "travel.trips"):
        return
    if PAST.search(sent.text) or NOT_TRAVEL.search(sent.text):
        return
    found = places_in(sent)
    if not found:
        _topic_span(ctx, sent, parts)
        return
    city, country, at = found[0]
    if city is None:  # "home to Poland ..., at my mother in Gdańsk": the city of it said later
        city = next((c for c, k, _ in found[1:] if c and k == country), None)
    head = ctx.text[sent.start : at]
    if someone_else(head) or OTHER_SUBJECT.match(sent.text) or not _stated(parts, sent, at):
        return
    window = sent
    dates = ctx.dates(sent)
    stay = span_of(dates, ctx.text, 0)
    if stay is None and nxt is not None and not places_in(nxt) and "?" not in nxt.text:
        # "Lima in November!! 9th to the 23rd.": the days in the sentence after the place
        window = Span(sent.start, ctx.text[sent.start : nxt.end])
        if PAST.search(nxt.text) or WISH.search(nxt.text):
            return
        stay = span_of(ctx.dates(window), ctx.text, 0)
    if _DOCUMENT.search(window.text):
        return  # "India: e-visa approved!! valid 10 Jan to 9 Jan": a document's validity
    if stay is None or inside_a_trip(ctx, *stay) or claimed(ctx, sent, stay):
        return
    value: dict[str, Any] = {"country": country, "depart": stay[0], "return_date": stay[1]}
    if city:
        value["city"] = city
    if via := _via_arrows(sent) or via_of(sent):
        value["via"] = via
    if (why := purpose(window.text)) is not None:
        value["purpose"] = why
    if mode := transport(window.text):
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


_INTERJECTION = lazy(r"^(?:oh\s+no|no\s+wait|wait\s+no|oh\s+god|oh\s+dear)\b[\s,!.]*", re.I)


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
    where = latest(ctx, "destination")
    if where < 0 or where < latest(ctx, "travel.trips") or WISH.search(sent.text):
        return
    stay = span_of(ctx.dates(sent), ctx.text, 0)
    if stay is None or not clause_ok(parts, sent, sent.start) or someone_else(sent.text):
        return
    fields = ctx.thread.mentions[where].record()
    ctx.add("travel.trips", {**fields, "depart": stay[0], "return_date": stay[1]}, sent, 0.7)


# "..., then Italy 16 July to 20 August", "and then in Berlin from 7 to 12 May", "then on to
# Rome on 10 June", "Tokyo 3-10 May and Seoul 10-15 May": where the journey goes next
_NEXT_STOP = lazy(
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
            for d in ctx.dates(sent)
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
