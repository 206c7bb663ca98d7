"""Quantities said with a unit, converted: a weight in kilograms, pounds or stone (and pounds)
to kilograms; a count grouped in thousands as the writer's country groups it ("84 500",
"112.400", "112,400", "8'000"). The rules (body weight, odometer readings) and the frames'
slots read them through it."""

from __future__ import annotations

import re

# "112,400", "112.400", "112'400", "84 500": thousands grouped as the writer's country does
GROUPED_THOUSANDS = r"\d{1,3}(?:[,.'’]\d{3}){1,2}|\d{1,3}(?:[ \u00a0\u202f]\d{3}){1,2}(?!\d|[.,]\d)"
GROUPED_NUMBER = GROUPED_THOUSANDS + r"|\d{1,7}"
_GROUPING = re.compile(r"[,.'’ \u00a0\u202f]")


def grouped_int(number: str) -> int:
    """A count matched by GROUPED_NUMBER as an int ("84 500" -> 84500)."""
    return int(_GROUPING.sub("", number))


POUND_KG = 0.45359237  # the international pound
STONE_POUNDS = 14


def kilograms(number: float, unit: str, pounds: float = 0.0) -> float:
    """A weight said in `unit` (kg, kilo(gram)s, lb(s), pounds, st, stone) in kilograms,
    unrounded; `pounds` are the pounds said after stones ("9 stone 4")."""
    unit = unit.lower()
    if unit.startswith(("lb", "pound")):
        return number * POUND_KG
    if unit in ("st", "stone"):
        return (number * STONE_POUNDS + pounds) * POUND_KG
    return number
