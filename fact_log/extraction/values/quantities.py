"""Quantities said with a unit, converted: a weight in kilograms, pounds or stone (and pounds)
to kilograms; a count grouped in thousands as the writer's country groups it ("84 500",
"112.400", "112,400", "8'000"); a drug's strength, bare before how often it is taken or with
its unit and a decimal comma. The rules (body weight, odometer readings) and the frames'
slots read them through it."""

from __future__ import annotations

from uac.fact_log.extraction.lazy import lazy

# How often a dose is taken, said right after a bare strength ("metformin 850 two times a
# day", "aspirin 81 every morning", "sertraline 50 qd"): what makes the number a strength
DOSE_FREQUENCY = (
    r"(?:once|twice|(?:two|three|four|[1-4])\s+times|[1-4]\s?x)\s+(?:a|per|in\s+the)\s+day\b|"
    r"every\s+(?:morning|evening|night|day)\b|(?:daily|nightly)\b|at\s+night\b|"
    r"(?-i:qd|QD|qhs|QHS|od|OD|bd|BD|bid|BID|tds|TDS|tid|TID|qds|QDS|qid|QID|prn|PRN|nocte|mane)\b"
)
# a strength with its unit, a decimal comma as some countries write it ("2,5 mg")
STRENGTH = r"\d{1,4}(?:[.,]\d{1,3})?\s?(?:mg|mcg|µg|ug|g|ml|iu|units?)\b"

# "112,400", "112.400", "112'400", "84 500": thousands grouped as the writer's country does
GROUPED_THOUSANDS = r"\d{1,3}(?:[,.'’]\d{3}){1,2}|\d{1,3}(?:[ \u00a0\u202f]\d{3}){1,2}(?!\d|[.,]\d)"
GROUPED_NUMBER = GROUPED_THOUSANDS + r"|\d{1,7}"
_GROUPING = lazy(r"[,.'’ \u00a0\u202f]")


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
