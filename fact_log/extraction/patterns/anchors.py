"""What an offset counts from ("14 days from the letter dated the 5th", "a month before the
lease ends", "28 days from service; served 7 Jan"): the day of the fact it names, said in the
message or held by the session's thread. Split from followups.py, which applies the offset."""

from __future__ import annotations

import datetime as dt
import re

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.discourse import day_of
from uac.fact_log.extraction.patterns.text import Ctx
from uac.fact_log.extraction.timemodel import find_dates

_ANCHOR_PRONOUN = lazy(r"^\s*(?:it|that|then|this|them)\b|^\s*[.!]?\s*$", re.I)
DATED_PAPER = lazy(
    r"^\s*(?:the|my|a|your|their)\s+[a-z]{3,15}\s+(?:(?:which|that)\s+(?:was|is)\s+)?"
    r"(?:dated|sent|received|issued)\s+(?:on\s+)?",
    re.I,
)
_ANCHOR_NOUN = lazy(r"^\s*(?:of\s+)?(?:the|my|our|her|his|its)?\s*([a-z]{3,})", re.I)


def anchor_day(ctx: Ctx, rest: str) -> dt.date | None:
    """The day an offset counts from: the fact it names, else the last one talked about."""
    said = find_dates(rest, ctx.today, "future", ctx.anchor)
    lead = rest[: said[0].start].strip().lower() if said else None
    if said and said[0].date and lead in ("", "the", "on", "on the"):  # "before the 15th of Feb"
        return said[0].date
    if (dated := DATED_PAPER.match(rest)) is not None:
        # "14 days from the letter which was dated the 5th": a paper's date is in the past
        past = find_dates(rest[dated.end() :], ctx.today, "past", ctx.today)
        return past[0].date if past and past[0].start == 0 else None
    if (m := _ANCHOR_NOUN.match(rest)) and not _ANCHOR_PRONOUN.match(rest):
        noun = m[1].lower().rstrip("s")[:6]
        for mention in reversed(ctx.thread.mentions):
            label = " ".join(str(v) for k, v in mention.value if isinstance(v, str)).lower()
            if noun and noun in label:
                return day_of(mention, _DAY_FIELDS)
        return _done_on(ctx, m[1])
    return _anchor_fallback(ctx, rest)


def _done_on(ctx: Ctx, noun: str) -> dt.date | None:
    """The day the message says the anchor happened, by its verb ("14 days from service;
    served 7 Jan", "28 days from delivery, delivered on the 3rd"); None when unsaid."""
    stem = re.escape(noun.lower()[:4])
    said = re.search(
        rf"\b{stem}[a-z]*ed\s+(?:on\s+)?(?=(?:the\s+)?\d|[a-z]{{3,9}}\s+\d)", ctx.text, re.I
    )
    if len(noun) < 5 or said is None:
        return None
    past = find_dates(ctx.text[said.end() :], ctx.today, "past", ctx.today)
    return past[0].date if past and past[0].start == 0 else None


def _anchor_fallback(ctx: Ctx, rest: str) -> dt.date | None:
    """The anchor of an offset named by no noun: the document, the item, the last day said."""
    if re.match(r"\s*(?:it|its)\b.{0,12}\bexpir", rest, re.I):
        doc = ctx.thread.last(
            "identity.visas",
            "identity.insurance_policies",
            "visa",
            "insurance",
            "identity.passport.expiry_date",
        )
        return day_of(doc, _DAY_FIELDS) if doc is not None else None
    if re.match(r"\s*(?:of\s+)?(?:delivery|purchase)", rest, re.I) is None and _RETURNS_OK(rest):
        item = ctx.thread.last("item")
        if item is not None:
            return item.get("purchased_on")
    return ctx.thread.last_date()


def _RETURNS_OK(rest: str) -> bool:
    return not rest.strip(" .!")


# what a document, a stay or a purchase is dated by, in the order a day is looked for
_DAY_FIELDS = (
    "date",
    "valid_until",
    "ends_on",
    "value",
    "start",
    "depart",
    "due_date",
    "purchased_on",
)
