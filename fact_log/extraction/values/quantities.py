"""Quantities said with a unit, converted: a weight in kilograms, pounds or stone (and pounds)
to kilograms. The rules (body weight) and the frames' weight slot read weights through it."""

from __future__ import annotations

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
