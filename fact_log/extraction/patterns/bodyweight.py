"""Body weight the user reports: "I weigh 64 kg", "weighed on the ward scales at 4am,
58.4kg", "9 stone 4", "82.5kg this morning"; a target or someone else's is no reading.
The one home of health.body_weight."""

from __future__ import annotations

import re

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.values.money import words_to_number
from uac.fact_log.extraction.values.quantities import kilograms

_WEIGHT = lazy(
    r"\b(?:i\s+weigh(?:ed)?(?:\s+in)?(?:\s+at)?|weigh-?in:?|my\s+weight\s+is|i(?:'m|\s+am)"
    # "Weighed myself this morning, 45 kg"
    r"|^(?:just\s+)?weighed\s+(?:myself|in)(?:\s+(?:this|today|yesterday|last)(?:\s+[a-z]+)?)?,?"
    r"(?:\s+now)?(?:\s+at)?|i\s+was|"
    # "I'm down to 51 kg", "I've gone up to 88 kg", "Lost a lot, down to 60 kg now"
    r"(?:i(?:'m|\s+am|'ve|\s+have)\s+(?:now\s+|gone\s+|got\s+|come\s+)?|^(?:(?:lost|gained|put\s+on)"
    r"\b[^,.;]{0,30},\s+|(?:now\s+)?))(?:down|up)\s+to)\s+(?:about\s+|around\s+|roughly\s+|just\s+)?"
    r"(?P<n>\d{1,3}(?:[.,]\d{1,2})?)\s?(?P<unit>kg|kilos?|kilograms?|lbs?|pounds|st|stone)\b"
    r"(?:\s*(?P<lb>\d{1,2})(?:\s?(?:lbs?|pounds))?\b)?",
    re.I,
)


# A reading named by its noun, whoever's scale: "my weight this morning was 72.5 kg",
# "scales said 64.3kg", "weigh-in at the gym showed 91 kilos" (a target is no reading).
_WEIGHT_READING = lazy(
    r"\b(?:weight|weigh-?in|scales?|weighed(?:\s+myself|\s+in)?)\b"
    # "weighed on the ward scales at 4am, 58.4kg": a clock time may come before it
    r"(?P<mid>[^.!?;\d]{0,40}?(?:\d{1,2}(?:[:.]\d\d)?\s?(?:am|pm)\b[^.!?;\d]{0,25})?)"
    r"(?P<n>\d{1,3}(?:[.,]\d{1,2})?)\s?(?P<unit>kg|kilos?|kilograms?|lbs?|pounds|st|stone)\b"
    r"(?:\s*(?P<lb>\d{1,2})(?:\s?(?:lbs?|pounds))?\b)?",
    re.I,
)
_NOT_A_READING = lazy(
    r"\b(?:target|goal|ideal|aim|want|hope|healthy|should|limit|max|maximum|luggage|bag|baggage|"
    r"case|suitcase|allowance)\b",
    re.I,
)


# "82.5kg this morning", "71 kg today": a reading that opens the line, said with its day
_BARE_WEIGHT = lazy(
    # "I'm tiny, 44kg on a good day": after a self-description, a reading
    r"^(?:(?:i(?:'?m|\s+am)\s+(?:[a-z]+\s+)?[a-z]+,\s*(?:about\s+|around\s+|only\s+)?)|now\s+|still\s+|"
    # "And I've lost a bit, 68 kilos this morning": a change, then the reading
    r"(?:and\s+|so\s+)?(?:i(?:'?ve|\s+have)\s+)?(?:lost|gained|put\s+on|dropped)\b[^,.;]{0,25},\s*)?"
    r"(?P<n>\d{2,3}(?:[.,]\d{1,2})?)\s?(?P<unit>kg|kilos?|kilograms?|lbs?)"
    r"(?P<lb>(?!))?(?=\s+(?:this\s+morning|today|yesterday|now|on\s+the\s+scales?|on\s+a\s+good\s+day)\b|"
    r"\s*[.!]*$)",
    re.I,
)


# "they weighed me in at one hundred and twelve kilos": a dictated reading, in words
_WEIGHT_WORDS = lazy(
    r"\bweighed\s+me(?:\s+in)?(?:\s+at)?\s+(?P<w>(?:[a-z]+[\s-]+){1,6}?)"
    r"(?P<unit>kg|kilos?|kilograms?)\b",
    re.I,
)


def _weight_match(sent: Span) -> re.Match[str] | None:
    """The user's body-weight statement in a sentence, if any."""
    if m := _WEIGHT.search(sent.text) or _BARE_WEIGHT.search(sent.text):
        return m
    m = _WEIGHT_READING.search(sent.text) or _WEIGHT_WORDS.search(sent.text)
    # a wish said after the reading ("they want me to gain a bit") does not unsay it; "they
    # weighed me" is the user's weight whoever held the scales
    if (
        m is None
        or _NOT_A_READING.search(sent.text[: m.end()])
        or (
            someone_else(sent.text[: m.start()])
            and not re.match(r"weighed\s+me\b", sent.text[m.start() :], re.I)
        )
    ):
        return None
    return m


def rule_body_weight(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Body weight the user reports ("I weigh 64 kg", "Weekly weigh-in: 78.2 kg")."""
    m = _weight_match(sent)
    if not in_clause(m, parts, sent):
        return
    said = m.groupdict().get("n")
    number = words_to_number(m["w"]) if said is None else None
    if said is None and not number:
        return
    kg = float(said.replace(",", ".")) if said is not None else float(number or 0)
    unit = m["unit"].lower()
    if unit.startswith(("lb", "pound", "st")):  # "9 stone 4": 14 pounds to the stone
        kg = round(kilograms(kg, unit, int(m["lb"] or 0)), 1)
    # a reading is of today or a day gone by ("3 kg down in two weeks" names no day)
    dates = [d for d in ctx.dates(sent, "past") if d.valid and d.date <= ctx.today]
    day = dates[0].date if dates else ctx.today
    if 20 <= kg <= 350:
        ctx.add("health.body_weight", {"date": day, "kg": kg}, sent, 0.8)
