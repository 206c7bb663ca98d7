"""Vehicle patterns: make and model owned, mileage."""

from __future__ import annotations

import re
from typing import Any

from uac.fact_log.extraction.patterns.dates import add_months, count_word
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Rule,
    Span,
    clause_ok,
    dates_in,
)

MAKES = {
    "toyota": "Toyota",
    "honda": "Honda",
    "ford": "Ford",
    "volkswagen": "Volkswagen",
    "vw": "Volkswagen",
    "bmw": "BMW",
    "audi": "Audi",
    "mercedes": "Mercedes-Benz",
    "mercedes-benz": "Mercedes-Benz",
    "tesla": "Tesla",
    "nissan": "Nissan",
    "hyundai": "Hyundai",
    "kia": "Kia",
    "mazda": "Mazda",
    "subaru": "Subaru",
    "volvo": "Volvo",
    "skoda": "Skoda",
    "škoda": "Skoda",
    "renault": "Renault",
    "peugeot": "Peugeot",
    "citroen": "Citroen",
    "citroën": "Citroen",
    "fiat": "Fiat",
    "chevrolet": "Chevrolet",
    "chevy": "Chevrolet",
    "jeep": "Jeep",
    "lexus": "Lexus",
    "mini": "Mini",
    "porsche": "Porsche",
    "seat": "SEAT",
    "opel": "Opel",
    "vauxhall": "Vauxhall",
    "suzuki": "Suzuki",
    "mitsubishi": "Mitsubishi",
    "dacia": "Dacia",
    "polestar": "Polestar",
    "byd": "BYD",
    "yamaha": "Yamaha",
    "ducati": "Ducati",
    "harley-davidson": "Harley-Davidson",
    "triumph": "Triumph",
    "land rover": "Land Rover",
    "range rover": "Land Rover",
    "jaguar": "Jaguar",
    "rivian": "Rivian",
}
MODEL_MAKES = {
    "civic": "Honda",
    "accord": "Honda",
    "cr-v": "Honda",
    "jazz": "Honda",
    "corolla": "Toyota",
    "camry": "Toyota",
    "prius": "Toyota",
    "rav4": "Toyota",
    "yaris": "Toyota",
    "golf": "Volkswagen",
    "polo": "Volkswagen",
    "passat": "Volkswagen",
    "tiguan": "Volkswagen",
    "fiesta": "Ford",
    "focus": "Ford",
    "mustang": "Ford",
    "f-150": "Ford",
    "octavia": "Skoda",
    "qashqai": "Nissan",
    "leaf": "Nissan",
    "outback": "Subaru",
    "forester": "Subaru",
    "clio": "Renault",
}


_MAKE_RE = "|".join(sorted((re.escape(k) for k in MAKES), key=len, reverse=True))
_VEHICLE = re.compile(
    r"\b(?:i(?:\s+just)?\s+(?:drive|own|have|bought|got|lease|leased|picked\s+up|ride)|"
    r"^(?:just\s+)?(?:bought|picked\s+up|leased)|"
    r"i've\s+(?:just\s+)?(?:got|bought)|we\s+(?:drive|own|have|bought|got)|"
    r"my\s+(?:car|van|truck|motorbike|motorcycle|bike|ride|vehicle)\s+is|"
    r"my\s+(?:new\s+|old\s+)?(?:car|van)\s*,?)\s+"
    r"(?:an?\s+|the\s+|my\s+|our\s+)?(?:new\s+|used\s+|old\s+|second-hand\s+)?"
    r"(?:(?P<year>(?:19|20)\d\d)\s+)?(?P<make>" + _MAKE_RE + r")\s+"
    r"(?P<model>[A-Za-z0-9][\w-]{0,20}(?:\s+(?:\d[\w-]{0,6}|Series|Class|Hybrid|Estate|"
    r"Touring|Sport|Plus|EV))?)",
    re.IGNORECASE,
)
_MY_MODEL = re.compile(
    r"\b(?:my|our)\s+(?P<model>" + "|".join(re.escape(k) for k in MODEL_MAKES) + r")\b",
    re.IGNORECASE,
)
_MILEAGE = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:,\d{3}){1,2}|\d{1,7})\s?(k)?\s?(km|kms|kilometers|kilometres|"
    r"miles|mi)\b",
    re.IGNORECASE,
)


def kilometres(number: str, unit: str, thousands: bool = False) -> int:
    """An odometer reading in km ("45,000 km", "30k miles"): the catalog stores kilometres."""
    value = int(number.replace(",", "")) * (1000 if thousands else 1)
    return round(value * 1.609344) if unit.lower().startswith("mi") else value


def rule_vehicles(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Vehicles owned (make, model, year) and their odometer reading."""
    m = _VEHICLE.search(sent.text)
    make = model = None
    year = None
    if m:
        if not clause_ok(parts, sent, sent.start + m.start()):
            return
        make, model = MAKES[m["make"].lower()], m["model"]
        year = int(m["year"]) if m["year"] else None
        if model.lower() in ("is", "and", "with", "that", "which", "car"):
            return
    else:
        mm = _MY_MODEL.search(sent.text)
        mileage_here = _MILEAGE.search(sent.text)
        if not mm or not mileage_here or not clause_ok(parts, sent, sent.start + mm.start()):
            return
        make, model = MODEL_MAKES[mm["model"].lower()], mm["model"]
    model = model[0].upper() + model[1:] if model.islower() else model
    value: dict[str, Any] = {"make": make, "model": model}
    if year:
        value["year"] = year
    if (km := _MILEAGE.search(sent.text)) and not re.match(
        r"\s*(?:away|from|to)\b", sent.text[km.end() :]
    ):
        value["mileage"] = kilometres(km[1], km[3], bool(km[2]))
        value["mileage_on"] = ctx.today
    ctx.add("vehicles.vehicles", value, sent, 0.85 if m else 0.7)


_SERVICED = re.compile(
    r"\b(?:i\s+)?(?:had|got)\s+(?:the|my|our)\s+(?:car|van|bike|\w+)\s+serviced\b|"
    r"\b(?:my|our|the)\s+(?:car|van|bike|\w+)\s+(?:was|got)\s+serviced\b|"
    r"\b(?:i\s+)?had\s+(?:the|my|its)\s+(?:last\s+|latest\s+|first\s+|full\s+)?(?:annual\s+|yearly\s+)?"
    r"(?:service|oil\s+change|inspection)\b",
    re.IGNORECASE,
)
_NEXT_DUE = re.compile(
    r"\bnext\s+(?:one|service)\s+(?:is\s+)?due\s+(?:in\s+(?P<n>\w+)\s+(?P<unit>month|year)s?|"
    r"at\s+(?P<km>\d{1,3}(?:,\d{3}){1,2}|\d{4,7})\s?(?P<u>km|miles))",
    re.IGNORECASE,
)


def rule_services(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Service records: "I had the car serviced today at 45,000 km, next one due in 12 months"."""
    m = _SERVICED.search(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start + m.start()):
        return
    car = ctx.thread.last("vehicles.vehicles")
    vehicle = f"{car.get('make')} {car.get('model')}" if car is not None else None
    if (v := _VEHICLE.search(sent.text)) is not None:
        vehicle = f"{MAKES[v['make'].lower()]} {v['model']}"
    said = [c.value for c in ctx.out if c.path == "vehicles.vehicles" and c.start == sent.start]
    if vehicle is None and said:  # "My Corolla had its last service": named in this sentence
        vehicle = f"{said[-1]['make']} {said[-1]['model']}"
    if vehicle is None:
        return  # which vehicle? the service_due check needs to know
    dates = [d for d in dates_in(sent, "past", ctx.today, ctx.anchor) if d.valid]
    day = dates[0].date if dates else ctx.today
    value: dict[str, Any] = {"vehicle": vehicle, "date": day, "work": "service"}
    if (km := _MILEAGE.search(sent.text)) is not None:
        value["mileage"] = kilometres(km[1], km[3], bool(km[2]))
    if (due := _NEXT_DUE.search(sent.text)) is not None:
        if due["n"] and (n := count_word(due["n"])):
            value["next_due_date"] = add_months(
                day, n * (12 if due["unit"].lower() == "year" else 1)
            )
        elif due["km"]:
            value["next_due_mileage"] = kilometres(due["km"], due["u"])
    ctx.add("vehicles.services", value, sent, 0.75)


RULES: tuple[Rule, ...] = (rule_vehicles, rule_services)
