"""Vehicle patterns: make and model owned, mileage."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns.discourse import Mention, freeze
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    clause_of,
    clause_ok,
    complete_earlier,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.timemodel import add_months, count_word
from uac.fact_log.extraction.values.money import find_money
from uac.fact_log.extraction.values.quantities import GROUPED_NUMBER, GROUPED_THOUSANDS, grouped_int
from uac.fact_log.reference import vocabulary

MAKES: dict[str, str] = vocabulary()["vehicle_makes"]
MODEL_MAKES: dict[str, str] = vocabulary()["vehicle_models"]


_MAKE_RE = "|".join(sorted((re.escape(k) for k in MAKES), key=len, reverse=True))
_MODEL_RE = "|".join(sorted((re.escape(k) for k in MODEL_MAKES), key=len, reverse=True))
_VEHICLE = compile_kept(
    r"\b(?:i(?:\s+just)?\s+(?:drive|own|have|bought|got|lease|leased|picked\s+up|ride)|"
    r"^(?:just\s+)?(?:bought|picked\s+up|leased)|"
    r"i've\s+(?:just\s+)?(?:got|bought)|we\s+(?:drive|own|have|bought|got)|"
    r"my\s+(?:car|van|truck|motorbike|motorcycle|bike|ride|vehicle)\s+is|"
    r"my\s+(?:new\s+|old\s+)?(?:car|van)\s*,?|"
    # "My VW Passat from 2019 has now 112.400 km": the make right after "my"
    r"(?:my|our)(?=\s+(?:new\s+|old\s+)?(?:(?:19|20)\d\d\s+)?(?:" + _MAKE_RE + r")\s))\s+"
    r"(?:an?\s+|the\s+|my\s+|our\s+)?(?:new\s+|used\s+|old\s+|second-hand\s+)?"
    r"(?:(?P<year>(?:19|20)\d\d)\s+)?(?P<make>" + _MAKE_RE + r")\s+"
    r"(?P<model>[A-Za-z0-9][\w-]{0,20}(?:\s+(?:\d[\w-]{0,6}|Series|Class|Hybrid|Estate|"
    r"Touring|Sport|Plus|EV))?)",
    re.IGNORECASE,
)
_MY_MODEL = lazy(
    r"\b(?:my|our)\s+(?P<model>" + "|".join(re.escape(k) for k in MODEL_MAKES) + r")\b",
    re.IGNORECASE,
)
_KM_NUM = GROUPED_NUMBER  # "112,400", "112.400", "84 500"
_MILEAGE = lazy(
    r"(?<![\d.,])(" + _KM_NUM + r")\s?(k)?\s?(km|kms|kilometers|kilometres|"
    # "412,300 k's", "8,400 ks": kilometres as said in Australia
    r"miles|mi|k['’]s|ks(?=\s|$|[,.;!?]))\b",
    re.IGNORECASE,
)


# What makes a distance a target, not the reading: "needs a service at 60,000 miles", "next
# one due at 100k", "every 10,000 km", "warranty until 100,000 km" (said just before it)
_TARGET_BEFORE = lazy(
    r"\b(?:due|next|needs?|needed|every|until|till|interval|limit|warranty|(?<!-)max(?:imum)?|"
    r"service\s+(?:at|in|every)|(?:at|by)\s+the\s+latest)\b[^.;!?\d]{0,20}$",
    re.I,
)
# A reading said without its unit after a target in one ("..., it's on 58,200 now")
_BARE_READING = lazy(
    r"\b(?:it'?s\s+(?:on|at)|(?:is|currently|now)\s+(?:on|at)|currently|has\s+done|reads|"
    r"showing|shows|clocked)\s+(?P<n>\d{1,3}(?:[,.'’]\d{3}){1,2})\b(?!\s*(?:am|pm|[£$€%]))",
    re.I,
)


def odometer(text: str) -> int | None:
    """The odometer reading a sentence gives, in km: a distance that is not a target (a
    service or limit "at"/"due at"/"every" it) nor a distance away; None when none is."""
    unit = None
    for km in _MILEAGE.finditer(text):
        if re.match(r"\s*(?:away|from|to)\b", text[km.end() :]):
            continue
        if _TARGET_BEFORE.search(text, max(0, km.start() - 40), km.start()):
            unit = unit or km[3]  # the target's unit is the reading's when it has none
            continue
        return kilometres(km[1], km[3], bool(km[2]))
    if unit and (bare := _BARE_READING.search(text)):
        return kilometres(bare["n"], unit)
    return None


def kilometres(number: str, unit: str, thousands: bool = False) -> int:
    """An odometer reading in km ("45,000 km", "30k miles"): the catalog stores kilometres."""
    value = grouped_int(number) * (1000 if thousands else 1)
    if unit.lower().startswith("k") and unit[1:2] in ("'", "’", "s"):
        unit = "km"  # "412,300 k's"
    return round(value * 1.609344) if unit.lower().startswith("mi") else value


# "the jeep is a 2016 land cruiser, 212,400 km on her now", "my car is a 2019 VW Golf": a
# vehicle named by its kind, then what it is
_KIND_IS_A = lazy(
    r"\b(?:my|our|the)\s+(?:car|jeep|van|truck|pickup|pick-up|4x4|suv|motorbike|motorcycle|bike|"
    r"tractor|camper|campervan|motorhome)(?:\s+is|'s|’s)\s+(?:an?\s+)?(?P<year>(?:19|20)\d\d\s+)?"
    r"(?:(?P<make>" + _MAKE_RE + r")\s+)?(?P<model>" + _MODEL_RE + r")\b",
    re.IGNORECASE,
)


def _kind_is_a(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A vehicle said as "<the car/jeep/...> is a <year> <model>"; True when one was read."""
    m = _KIND_IS_A.search(sent.text)
    if m is None or not in_clause(m, parts, sent) or someone_else(sent.text[: m.start()]):
        return False
    model = m["model"]
    make = MODEL_MAKES[model.lower()]
    if m["make"] and MAKES[m["make"].lower()] != make:
        return False
    value: dict[str, Any] = {"make": make, "model": " ".join(w.capitalize() for w in model.split())}
    if m["year"]:
        value["year"] = int(m["year"])
    if (reading := odometer(sent.text)) is not None:
        value |= {"mileage": reading, "mileage_on": ctx.today}
    ctx.add("vehicles.vehicles", value, sent, 0.75)
    return True


def _year_and_make(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "it's a 2018 Skoda", after the Octavia was named: that vehicle's year and make."""
    m = _IT_IS_A.search(sent.text)
    car = ctx.thread.last("vehicles.vehicles")
    if m is None or car is None or not in_clause(m, parts, sent):
        return
    said = (m["make"] or m["model"]).lower()
    if MAKES.get(said, MODEL_MAKES.get(said)) != car.get("make"):
        return  # another vehicle than the one talked about
    value = {"make": car.get("make"), "model": car.get("model"), "year": int(m["year"])}
    ctx.add("vehicles.vehicles", value, sent, 0.75)


_THE_MODEL = lazy(
    r"\bthe\s+(?P<model>" + "|".join(re.escape(k) for k in MODEL_MAKES) + r")\b|"
    r"^(?P<year>(?:19|20)\d\d)\s+(?:"
    + _MAKE_RE
    + r")\s+(?P<model2>"
    + "|".join(re.escape(k) for k in MODEL_MAKES)
    + r")\b",
    re.IGNORECASE,
)


def _said_model(ctx: Ctx, sent: Span) -> tuple[int, str, int | None, str | None] | None:
    """Where a model is named, the model and its year: "my Yaris", or "the Yaris" / "2019 VW
    Golf" once the thread has it as the user's vehicle."""
    if m := _MY_MODEL.search(sent.text):
        return m.start(), m["model"], None, None
    m = _THE_MODEL.search(sent.text)
    if m is None:
        return None
    model = m["model"] or m["model2"]
    known = [
        str(x.get("model") or x.get("vehicle") or "").lower()
        for x in ctx.thread.mentions
        if x.kind in ("vehicles.vehicles", "vehicles.services")
    ]
    # "the Yaris is on 75,400 km": a reading of a car named with "the" opens the line; in a
    # later session the thread no longer has it, but the definite article says it is known
    reading = re.match(
        r"\s+(?:is\s+(?:now\s+)?on|is\s+at|has\s+(?:now\s+)?(?:done|hit|passed)|just\s+(?:hit|passed)|"
        r"(?:now\s+)?(?:shows|reads|says|has)(?:\s+now)?)\s+\d",
        sent.text[m.end() :],
    )
    # "the Focus is on 55,000 km" opening the line, "... the Passat shows 129.300 km": a reading
    # of a car the user has ("the Focus I test drove was on" is not one)
    opens = m.start() == 0 or (reading and re.match(r"(?:shows|reads|says)", reading[0].strip()))
    if not any(model.lower() in k for k in known) and not (opens and reading):
        return None
    return m.start(), model, int(m["year"]) if m["year"] else None, None


# "the Kenworth T610 2021 model just ticked over 412,300 k's", "the T610 Kenworth's on
# 455,900", "2029 Kenworth T909, 8,400 k's on her": a make and a model code named with a
# reading (no "my" said) is the user's vehicle being read
_MAKE_AND_CODE = lazy(
    r"\b(?:(?P<year>(?:19|20)\d\d)\s+)?(?P<make>(?i:"
    + _MAKE_RE
    + r"))\s+(?P<model>[A-Z]{1,3}-?\d[\w-]{0,8}|"
    r"[A-Z]{1,3}-[A-Za-z0-9]{1,6}|[A-Z][a-z]{2,12})(?:\s+(?P<year2>(?:19|20)\d\d)(?:\s+model)?)?\b|"
    r"\bthe\s+(?P<model2>[A-Z]{1,3}-?\d[\w-]{0,8})\s+(?P<make2>(?i:" + _MAKE_RE + r"))\b"
)
# a vehicle read but not the user's: hired, for sale, looked at, asked about
_NOT_OWN = lazy(
    r"\b(?:hired?|rent(?:ed|al)?|for\s+sale|test[-\s]drove|test[-\s]drive|looking\s+at|borrowed|"
    r"courtesy|loan\s+car|selling|listing|listed|advert|ad|viewing|dealer\s+has)\b|\?",
    re.I,
)
_NOT_MODEL = frozenset({"is", "and", "with", "that", "which", "car", "truck", "dealer", "service"})


def _reading_of(sent: Span, parts: list[Span]) -> tuple[int, str, int | None, str] | None:
    """A make and model named in a sentence that gives a reading, not of someone else's."""
    m = _MAKE_AND_CODE.search(sent.text)
    if m is None or someone_else(sent.text[: m.start()]) or _NOT_OWN.search(sent.text):
        return None
    if odometer(sent.text) is None:
        return None
    make = MAKES.get((m["make"] or m["make2"]).lower())
    model = m["model"] or m["model2"]
    if make is None or model.lower() in _NOT_MODEL or not in_clause(m, parts, sent):
        return None
    year = m["year"] or m["year2"]
    return m.start(), model, int(year) if year else None, make


_BUILT = lazy(
    r"[^.;]{0,25}?\b(?:from|built\s+in|made\s+in|of|reg(?:istered)?\s+in)\s+((?:19|20)\d\d)\b"
    r"|\s*\(((?:19|20)\d\d)\)"  # "BMW 320d (2019)"
)
_MODEL_YEAR = lazy(r"(?P<model>[A-Za-z][\w-]{0,20})\s+(?P<year>(?:19|20)\d\d)")
# "30.06.2028", "14.02.": a day written day-first with dots (continental Europe)
_DOTTED = lazy(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})?(?!\d)")


def dotted_day(text: str, today: dt.date, prefer: str) -> dt.date | None:
    """The first day-first dotted date in text ("30.06.2028"; "14.02." in the year that makes
    it past or future as preferred), or None."""
    for m in _DOTTED.finditer(text):
        day, month = int(m[1]), int(m[2])
        years = [int(m[3])] if m[3] else [today.year, today.year - 1, today.year + 1]
        for year in years:
            try:
                found = dt.date(year, month, day)
            except ValueError:
                break
            if m[3] or (found <= today if prefer == "past" else found >= today):
                return found
    return None


# "I sold my Golf", "gave away my old Corolla", "the Fiesta got scrapped": no longer owned
_PARTED_WITH = lazy(
    r"\b(?:sold|gave\s+away|given\s+away|scrapped|traded\s+in|part[- ]?exchanged|got\s+rid\s+of|"
    r"wrote\s+off|written\s+off|handed\s+back)\s+(?:[\w'’-]+\s+){0,4}$",
    re.I,
)
_PARTED_AFTER = lazy(
    r"(?:\s+[\w'’-]+){0,2}?\s+(?:is|was|got|has\s+been|'s\s+been|’s\s+been)\s+(?:now\s+)?"
    r"(?:sold|scrapped|written\s+off|gone)\b|\s+(?:away|to\s+(?:my|our|a|his|her)\b)",
    re.I,
)


def rule_vehicles(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Vehicles owned (make, model, year) and their odometer reading; none the user parted
    with (the catalog has no way to end a vehicle: a sold car is proposed as nothing)."""
    before = len(ctx.out)
    _vehicles(ctx, sent, parts)
    if len(ctx.out) > before:  # (rare: a vehicle is named)
        ctx.out[before:] = [c for c in ctx.out[before:] if not _parted_with(sent, parts, c)]


def _parted_with(sent: Span, parts: list[Span], cand: Any) -> bool:
    """Whether a vehicle found in the sentence is one the user says they sold or gave away."""
    if cand.path != "vehicles.vehicles":
        return False
    at = sent.text.lower().find(str(cand.value.get("model", "")).lower())
    own = clause_of(parts, sent.start + at) if at >= 0 else None
    if own is None:
        return False
    head = own.text[: sent.start + at - own.start]
    tail = own.text[sent.start + at - own.start + len(str(cand.value["model"])) :]
    return bool(_PARTED_WITH.search(head) or _PARTED_AFTER.match(tail))


def _vehicles(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Vehicles owned (make, model, year) and their odometer reading."""
    m = _VEHICLE.search(sent.text)
    if m is None and _kind_is_a(ctx, sent, parts):
        return
    if m is None and _IT_IS_A.search(sent.text):
        _year_and_make(ctx, sent, parts)
        return
    make = model = None
    year = None
    if m:
        if not in_clause(m, parts, sent):
            return
        make, model = MAKES[m["make"].lower()], m["model"]
        year = int(m["year"]) if m["year"] else None
        if (said_year := _MODEL_YEAR.fullmatch(model)) is not None:
            model = said_year["model"]  # "Octavia 2021": the model, then its year
            year = year or int(said_year["year"])
        if model.lower() in ("is", "and", "with", "that", "which", "car"):
            return
    else:
        said = _said_model(ctx, sent)
        mileage_here = _MILEAGE.search(sent.text)
        if not said and mileage_here and (named := _reading_of(sent, parts)):
            said = named  # "the Kenworth T610 just ticked over 412,300 k's": a reading of it
        if not said or not mileage_here or not clause_ok(parts, sent, sent.start + said[0]):
            _model_named(ctx, sent, parts)
            _plate(ctx, sent, parts)
            return
        make, model, year = said[3] or MODEL_MAKES[said[1].lower()], said[1], said[2]
    model = model[0].upper() + model[1:] if model.islower() else model
    value: dict[str, Any] = {"make": make, "model": model}
    if year is None and m and (built := _BUILT.match(sent.text, m.end())):
        year = int(built[1] or built[2])  # "a VW Passat Variant from 2019"
    if year:
        value["year"] = year
    if (reading := odometer(sent.text)) is not None:
        value["mileage"] = reading
        value["mileage_on"] = ctx.today
    ctx.add("vehicles.vehicles", value, sent, 0.85 if m else 0.7)
    service = ctx.thread.last("vehicles.services")
    if (
        "mileage" in value
        and service is not None
        and service.get("date") == ctx.today
        and not service.get("mileage")
        and service.get("vehicle") == f"{make} {model}"
    ):  # "went in for its service today. 2019 VW Golf, 84,200 km": the service's reading
        said = [c for c in ctx.out if c.path == "vehicles.services"]
        if said and said[-1].value.get("vehicle") == service.get("vehicle"):
            said[-1].value["mileage"] = value["mileage"]  # said in this message: complete it
        else:
            reading = {"vehicle": service.get("vehicle"), "date": ctx.today}
            ctx.add("vehicles.services", reading | {"mileage": value["mileage"]}, sent, 0.7)


# "admiral want £612 for the corsa", "my Astra failed": a model the user owns, named in passing
_OWN_MODEL = lazy(
    r"\b(?:my|our|the)\s+(?P<model>" + "|".join(re.escape(k) for k in MODEL_MAKES) + r")\b", re.I
)
# "reg is LV19 KDT", "number plate AB12 CDE", "Kennzeichen M-AB 1234"
_PLATE = lazy(
    r"\b(?:reg(?:istration)?(?:\s+(?:number|no\.?|plate))?|(?:number|licen[cs]e)\s+plate|plate|"
    r"kennzeichen)\s*(?:is|:|=)?\s*"
    r"(?P<plate>(?-i:[A-Z]{1,3}[- ]?[A-Z0-9]{1,4}[ -]?[A-Z0-9]{1,4}))\b",
    re.I,
)


# what owning a car costs or needs: the upkeep that makes "the corsa" the user's own
_KEEPING = lazy(
    r"\b(?:insurance|insure|renewal|policy|premium|mot|t[üu]v|road\s+tax|car\s+tax|service|tyres?|"
    r"repairs?|garage|parking\s+permit|breakdown\s+cover|finance\s+payment)\b",
    re.I,
)


def _model_named(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A vehicle the user owns named by its model alone ("the corsa"), once in a thread."""
    m = _OWN_MODEL.search(sent.text)
    if m is None or not in_clause(m, parts, sent) or someone_else(sent.text[: m.start()]):
        return
    if _SERVICED.search(sent.text) or _TOOK_IN.search(sent.text) or _INSPECTION.search(sent.text):
        return  # a service or an inspection of it: those rules record what is said
    if m[0].lower().startswith("the") and not _KEEPING.search(sent.text):
        return  # "the Focus I test drove": only its upkeep says a car named "the X" is the user's
    model = m["model"][0].upper() + m["model"][1:]
    known = ctx.thread.last("vehicles.vehicles")
    if known is not None and str(known.get("model")).lower() == model.lower():
        return  # already known: a record says nothing new
    ctx.add("vehicles.vehicles", {"make": MODEL_MAKES[model.lower()], "model": model}, sent, 0.7)


def _plate(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The registration of the vehicle the thread is about."""
    m = _PLATE.search(sent.text)
    car = ctx.thread.last("vehicles.vehicles")
    if m is None or car is None or not in_clause(m, parts, sent):
        return
    value = {"make": car.get("make"), "model": car.get("model"), "plate": m["plate"]}
    model = car.get("model")
    plate = {"plate": m["plate"]}
    if not complete_earlier(
        ctx, "vehicles.vehicles", lambda v: v.get("model") == model, plate, sent
    ):
        ctx.add("vehicles.vehicles", value, sent, 0.7)


_SERVICED = lazy(
    # "Toyota Yaris serviced today", "the Golf went in for its service today"
    r"^(?:the\s+|my\s+|our\s+)?(?:[A-Za-z]\w+\s+)?[A-Za-z]\w+\s+(?:was\s+|got\s+)?serviced\b|"
    r"(?:^|\b(?:the|my|our)\s+)\w+\s+(?:went|has\s+gone|is|was)\s+in\s+for\s+(?:its|a|the|her|his)\s+"
    r"(?:annual\s+|yearly\s+|full\s+|first\s+)?(?:service|mot|oil\s+change)\b|"
    r"\b(?:i\s+)?(?:had|got)\s+(?:the|my|our)\s+(?:car|van|bike|\w+)\s+serviced\b|"
    r"\b(?:my|our|the)\s+(?:car|van|bike|\w+)\s+(?:was|got)\s+serviced\b|"
    r"\b(?:i\s+)?had\s+(?:the|my|its)\s+(?:last\s+|latest\s+|first\s+|full\s+)?(?:annual\s+|yearly\s+)?"
    r"(?:service|oil\s+change|inspection)\b|"
    # "Last service was at the VW dealer on 14.02.": the last one, said as what it was
    r"^(?:(?:my|the|our|its)\s+)?(?:last|latest|most\s+recent)\s+(?:service|oil\s+change|"
    r"inspection)(?:\s+on\s+(?:her|him|it|the\s+\w+))?(?:\s+was\b|(?=\s+(?:on\s+)?\d))|"
    # "land cruiser service done too": the vehicle, then its service, done
    r"^(?:the\s+|my\s+)?[\w-]+(?:\s[\w-]+)?\s+(?:service|oil\s+change)\s+(?:done|finished|sorted)\b",
    re.IGNORECASE,
)
_NEXT_DUE = lazy(
    r"\bnext\s+(?:one|service)\s+(?:is\s+)?due\s+(?:in\s+(?P<n>\w+)\s+(?P<unit>month|year)s?|"
    r"at\s+(?P<km>" + GROUPED_THOUSANDS + r"|\d{4,7})\s?(?P<u>km|miles))",
    re.IGNORECASE,
)


# "took the Octavia in for a service", "dropped the car in for its MOT": a service done
_TOOK_IN = compile_kept(
    r"\b(?:took|dropped|put|had|brought)\s+(?:off\s+)?(?:the|my|our)\s+(?P<what>[\w-]{2,20})\s+"
    r"(?:in\s+|off\s+)?for\s+(?:a|an|its|the|her|his)?\s*(?:full\s+|annual\s+|yearly\s+|"
    r"major\s+|minor\s+)?(?:service|mot|repair|oil\s+change|inspection)\b",
    re.IGNORECASE,
)
_MODEL_WORD = lazy(r"\b(?:" + _MODEL_RE + r")\b", re.IGNORECASE)
# "it's a 2018 Skoda": the year and make of the vehicle just talked about
_IT_IS_A = lazy(
    r"\b(?:it's|it\s+is|she's|the\s+car's|the\s+car\s+is|mine's)\s+an?\s+(?P<year>(?:19|20)\d\d)\s+"
    r"(?:(?P<make>" + _MAKE_RE + r")|(?P<model>" + _MODEL_RE + r"))\b",
    re.IGNORECASE,
)
# after a service: "£289 for oil, filters and brake pads", "next one due in 12 months or
# 15,000 km" (relative to the service's day and reading), "at 60,000 km" (absolute)
_COST_FOR = lazy(
    r"^(?:and\s+|it\s+was\s+|that\s+was\s+|cost\s+)?(?P<rest>.{1,15}?)\s+(?:for|with|incl(?:uding|\.)?)\s+"
    r"(?P<work>[a-z][^.!?]{2,60})",
    re.I,
)
_DUE_IN = lazy(
    r"\bnext\s+(?:one|service|mot)\b(?:[^.!?]{0,20}?\bdue\b|\s+(?:is\s+)?(?:at|in)\b)|"
    r"\bnext\s+(?:at|in)\b",  # "they said the next at 215,000"
    re.I,
)
# "john deere 6155R", "Toyota Hilux": a make and the model said right after it
_MAKE_MODEL = lazy(
    r"\b(?P<make>" + _MAKE_RE + r")\s+(?P<model>(?=[\w-]*\d|(?-i:[A-Z]))[\w-]{1,15})\b", re.I
)
_DUE_MONTHS = lazy(r"\b(?:in|or)\s+(?P<n>\w+)\s+(?P<unit>month|year)s?\b", re.I)
# the unit may be left out after a reading in km ("next one at 100,000 or in a year")
_DUE_KM = lazy(
    r"\b(?P<rel>in|or|at)\s+(?P<km>" + GROUPED_THOUSANDS + r"|\d{4,7})\s?(?P<k>k)?\s?"
    r"(?:(?P<u>km|kms|miles)\b|(?=\s+or\b|\s*[,.;!]|\s*$))",
    re.IGNORECASE,
)


def _named_vehicle(ctx: Ctx, word: str | None) -> str | None:
    """ "Octavia" as "Skoda Octavia"; "car" or nothing as the vehicle the thread knows."""
    key = (word or "").lower()
    if key in MODEL_MAKES:
        return f"{MODEL_MAKES[key]} {' '.join(w[0].upper() + w[1:] for w in word.split())}"
    car = ctx.thread.last("vehicles.vehicles")
    if car is None or (key in MAKES and MAKES[key] != car.get("make")):
        return None
    return f"{car.get('make')} {car.get('model')}"


def _last_reading(ctx: Ctx, vehicle: Any) -> int | None:
    """The odometer reading of the vehicle's last service the thread knows."""
    for m in reversed(ctx.thread.mentions):
        if m.kind == "vehicles.services" and m.get("vehicle") == vehicle and m.get("mileage"):
            return int(m.get("mileage"))
    return None


def _service_follow_up(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The cost or the next due of the service just told, said in a later line."""
    last = ctx.thread.last("vehicles.services")
    if last is None or not clause_ok(parts, sent, sent.start):
        return
    value: dict[str, Any] = {"vehicle": last.get("vehicle"), "date": last.get("date")}
    cost = _COST_FOR.match(sent.text)
    money = cost and find_money(cost["rest"])
    if cost and money:
        value["cost"], value["currency"] = money[0].amount, money[0].currency
        value["work"] = " ".join(cost["work"].split())
    elif _DUE_IN.search(sent.text):
        if (due := _DUE_MONTHS.search(sent.text)) and (n := count_word(due["n"])):
            months = n * (12 if due["unit"].lower() == "year" else 1)
            value["next_due_date"] = add_months(last.get("date"), months)
        if km := _DUE_KM.search(sent.text):
            reading = kilometres(km["km"], km["u"] or "km", bool(km["k"]))
            if km["rel"].lower() == "at":
                value["next_due_mileage"] = reading
            elif (at := _last_reading(ctx, last.get("vehicle"))) is not None:
                value["next_due_mileage"] = at + reading  # "in 15,000 km": from the last reading
    if len(value) > 2:
        ctx.add("vehicles.services", value, sent, 0.7)


# a reading said without its unit, grouped in thousands, before the next service is named
_AT_READING = lazy(
    r"\bat\s+(\d{1,3}(?:[,.'’]\d{3}){1,2})\b(?!\s*(?:am|pm|[£$€]))(?=[^.]*?\bnext\b)"
)
_COST = lazy(r"\b(?:cost(?:\s+me)?|paid|bill\s+was|came\s+to)\b", re.I)
# a month without its day, gone by: "back in August", "last month"
_MONTH_ONLY = lazy(
    r"\b(?:back\s+)?in\s+(?:jan(?:uary)?|feb(?:ruary)?|march|april|may|june|july|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b(?!\s+\d)|\blast\s+(?:month|year)\b",
    re.I,
)


def rule_services(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Service records: "I had the car serviced today at 45,000 km, next one due in 12 months"."""
    m = _SERVICED.search(sent.text) or _TOOK_IN.search(sent.text)
    if m is None:
        _service_follow_up(ctx, sent, parts)
        return
    if not in_clause(m, parts, sent) or someone_else(sent.text[: m.start()]):
        return
    car = ctx.thread.last("vehicles.vehicles")
    vehicle = f"{car.get('make')} {car.get('model')}" if car is not None else None
    if m.re is _TOOK_IN:
        vehicle = _named_vehicle(ctx, m["what"])
        if vehicle:  # the car named here is the one later lines talk about
            make, _, model = vehicle.partition(" ")
            topic = Mention("vehicles.vehicles", freeze({"make": make, "model": model}), ctx.today)
            ctx.thread = ctx.thread.with_([topic])
    if (v := _VEHICLE.search(sent.text)) is not None:
        vehicle = f"{MAKES[v['make'].lower()]} {v['model']}"
    elif vehicle is None and (named := _MODEL_WORD.search(sent.text)):
        vehicle = _named_vehicle(ctx, named[0])  # "the Yaris had its service"
    said = [c.value for c in ctx.out if c.path == "vehicles.vehicles" and c.start == sent.start]
    if vehicle is None and said:  # "My Corolla had its last service": named in this sentence
        vehicle = f"{said[-1]['make']} {said[-1]['model']}"
    if vehicle is None and (mm := _MAKE_MODEL.search(sent.text)) is not None:
        # "tractor went in for the service tuesday, john deere 6155R": the vehicle, named here
        make, model = MAKES[mm["make"].lower()], mm["model"]
        vehicle = f"{make} {model}"
        ctx.add("vehicles.vehicles", {"make": make, "model": model}, sent, 0.7)
    if vehicle is None:
        return  # which vehicle? the service_due check needs to know
    dates = [d for d in ctx.dates(sent, "past") if d.valid]
    dotted = dotted_day(sent.text, ctx.today, "past")
    if not dates and dotted is None and _MONTH_ONLY.search(sent.text):
        return  # "had the service back in August": no day to key it by, and not today
    # "in February, on 14.02.": the dotted day is the more exact one
    day = dotted or (dates[0].date if dates else ctx.today)
    value: dict[str, Any] = {"vehicle": vehicle, "date": day, "work": "service"}
    cost = _COST.search(sent.text)
    money = find_money(sent.text[cost.end() :] if cost else sent.text)
    if money and (cost or len(money) == 1):  # "€640 all in": the one amount is its cost
        value["cost"], value["currency"] = money[0].amount, money[0].currency
    nxt = _DUE_IN.search(sent.text)
    upto = nxt.start() if nxt else len(sent.text)  # "next one at 130.000 km" is no reading
    if (km := _MILEAGE.search(sent.text, 0, upto)) is not None:
        value["mileage"] = kilometres(km[1], km[3], bool(km[2]))
    elif (at := _AT_READING.search(sent.text)) is not None:
        value["mileage"] = kilometres(at[1], "km")  # "on 14 March at 72,000": the reading
    if nxt and (km := _DUE_KM.search(sent.text, nxt.start())) and km["rel"].lower() == "at":
        value["next_due_mileage"] = kilometres(km["km"], km["u"] or "km", bool(km["k"]))
    ahead = ctx.dates(sent) if nxt else []
    if nxt and (later := [d for d in ahead if d.valid and d.start > sent.start + nxt.end()]):
        value["next_due_date"] = later[0].date  # "the next one is due 20 April 2027"
    elif (
        nxt
        and (more := _DUE_MONTHS.search(sent.text, nxt.start()))
        and (n := count_word(more["n"]))
    ):
        # "next at 244,850 or a year": a year from this service's day
        value["next_due_date"] = add_months(day, n * (12 if more["unit"].lower() == "year" else 1))
    if (due := _NEXT_DUE.search(sent.text)) is not None:
        if due["n"] and (n := count_word(due["n"])):
            value["next_due_date"] = add_months(
                day, n * (12 if due["unit"].lower() == "year" else 1)
            )
        elif due["km"]:
            value["next_due_mileage"] = kilometres(due["km"], due["u"])
        # "due at 76,000 km or in 12 months": the other limit, said after "or"
        rest = sent.text[due.end() :]
        if (more := _DUE_MONTHS.search(rest)) and (n := count_word(more["n"])):
            # counted from the service's day, not the message's
            value["next_due_date"] = add_months(
                day, n * (12 if more["unit"].lower() == "year" else 1)
            )
    ctx.add("vehicles.services", value, sent, 0.75)


# "the MOT is due 14 March", "TÜV runs out in May", "car inspection by the 30th": a
# roadworthiness inspection's due day (vehicles.vehicles.inspection_due, the service_due check)
_INSPECTION = lazy(
    # the test by its country's name: MOT (UK), NCT (Ireland), TÜV (Germany), ITV (Spain),
    # WOF (New Zealand), a state or smog inspection (US)
    r"\b(?:mot|nct|t[üu]v|itv|wof|smog\s+check|roadworthiness\s+(?:test|inspection)|"
    r"(?:state\s+|safety\s+|car\s+)inspection)\b[^.!?;]{0,40}?\b(?:due|runs?\s+out|expires?|ends?|valid\s+(?:until|till|"
    r"to)|needs?\s+(?:doing|renewing)|by|(?:be\s+)?done\s+(?:until|till|by|before))\b",
    re.IGNORECASE,
)


def rule_inspection(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A vehicle's next roadworthiness inspection (MOT, TÜV) said with its day."""
    m = _INSPECTION.search(sent.text)
    if not in_clause(m, parts, sent):
        return
    if someone_else(sent.text[: m.start()]):
        return
    later = [d for d in ctx.dates(sent) if d.valid and d.start >= sent.start + m.end()]
    due = later[0].date if later else dotted_day(sent.text[m.end() :], ctx.today, "future")
    if due is None:
        return
    named = _VEHICLE.search(sent.text) or _MODEL_WORD.search(sent.text)
    car = ctx.thread.last("vehicles.vehicles")
    word = (named["model"] if named.re is _VEHICLE else named[0]) if named else None
    vehicle = _named_vehicle(ctx, word)
    if vehicle is None:
        return  # which vehicle? a record needs its make and model
    make, _, model = vehicle.partition(" ")
    value: dict[str, Any] = {"make": make, "model": model, "inspection_due": due}
    if car is not None and car.get("make") == make and car.get("year"):
        value["year"] = car.get("year")  # the same record as the vehicle talked about
    ctx.add("vehicles.vehicles", value, sent, 0.75)
