"""A pregnancy's due date (health.conditions.expected_end): "I'm 12 weeks pregnant" (due 28
weeks after the message), "the baby's due 27 July", "my due date is 14 February" once a
pregnancy was said; after the due date (and a grace) the checks stop taking it as current."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    complete_earlier,
    dates_in,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.timemodel import count_word

TERM_WEEKS = 40  # a pregnancy's length from the first day of the last period
_WEEKS = re.compile(
    r"\b(?P<n>\d{1,2}|[a-z]+(?:[- ][a-z]+)?)\s+weeks?\s+(?:pregnant|along)\b|"
    # "I am pregnant (11 weeks, ...)", "pregnant, 20 weeks": the weeks said after
    r"\bpregnant\s*[(,:-]\s*(?P<n2>\d{1,2})\s*(?:weeks?|wks?)\b",
    re.I,
)
_DUE = re.compile(
    r"\b(?:(?:the\s+|our\s+)?baby(?:'s|\s+is|\s+was)?\s+(?:now\s+)?due|(?:my|our|the)\s+due\s+"
    r"date(?:'s|\s+is|\s+was)?(?:\s+now)?|i(?:'m|\s+am)\s+due|we(?:'re|\s+are)\s+due|"
    # after a pregnancy: "due 27 August", "the midwife says the date is for 27 of August"
    # (a bare "due date is 22 April" stays unread: the fresh and blind3 writers record nothing
    # for it, the blind4 writer the due date; bench/extraction_data/README.md, session 8)
    r"^(?:and\s+|so\s+)?due(?=\s+(?:on\s+|in\s+|for\s+)?(?:the\s+)?\d)|"
    r"\bthe\s+date\s+(?:is|will\s+be)(?:\s+for)?|"
    # "the term is foreseen for the 29/08" (the French "le terme"), "term is 3 June"
    r"\b(?:the\s+)?term\s+(?:is\s+|was\s+)?(?:foreseen|expected|planned|predicted|set|due|now)?"
    r"(?:\s+(?:for|on))?(?=\s+(?:the\s+)?\d))\b",
    re.I,
)

_BARE_DUE = re.compile(r"\bdue\b", re.I)


def pregnancy(ctx: Ctx, sent: Span, pregnant_at: int | None) -> dict[str, Any] | None:
    """The pregnancy record a sentence gives: said pregnant (at that offset), or a due date
    after a pregnancy was said; None when it gives none."""
    due = _DUE.search(sent.text)
    if pregnant_at is None and (due is None or not _pregnancy_known(ctx, sent, due)):
        return None
    if due is None and pregnant_at is not None:  # "I'm pregnant, due on 9 January"
        due = _BARE_DUE.search(sent.text, pregnant_at)
    value: dict[str, Any] = {"name": "pregnancy", "status": "active"}
    weeks = _WEEKS.search(sent.text)
    said_n = weeks and (weeks["n"] or weeks["n2"])
    n = count_word(said_n.replace("-", " ")) if said_n else None
    if n is not None and 4 <= n <= 42:
        value["expected_end"] = ctx.today + dt.timedelta(weeks=TERM_WEEKS - n)
    if due is not None:
        after = sent.start + due.end()
        said = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid]
        if later := [d for d in said if d.start >= after]:
            value["expected_end"] = later[0].date
    return value


_CLINICIAN_SAYS = re.compile(
    r"\b(?:the\s+|my\s+)?(?:midwife|doctor|gp|nurse|consultant|obstetrician|sonographer)\s+"
    r"(?:said|says|say|told\s+me|thinks)\b",
    re.I,
)


def _pregnancy_known(ctx: Ctx, sent: Span, due: re.Match[str]) -> bool:
    """A due date is the user's pregnancy's: said of the baby, or after a pregnancy was said."""
    # "the midwife says the date is ...": a clinician telling the user's own due date
    head = _CLINICIAN_SAYS.sub("", sent.text[: due.start()])
    if someone_else(head):
        return False
    said = ctx.thread.last("health.conditions")
    baby = "baby" in due[0].lower()
    return baby or (said is not None and said.get("name") == "pregnancy")


def rule_due_date(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A due date said on its own ("the baby's due 27 July"), after or with the pregnancy."""
    due = _DUE.search(sent.text)
    if not in_clause(due, parts, sent):
        return
    if any(c.path == "health.conditions" and c.start == sent.start for c in ctx.out):
        return  # rule_states has read this sentence's pregnancy, due date included
    value = pregnancy(ctx, sent, None)
    if value is not None and "expected_end" in value:
        end = {"expected_end": value["expected_end"]}  # "I am pregnant!! due 27 August"
        # a day said beats one counted from the weeks ("pregnant (11 weeks), the term is
        # foreseen for the 29/08"): the earlier sentence's record loses its counted day
        for c in ctx.out:
            if c.path == "health.conditions" and c.start < sent.start and _is_pregnancy(c.value):
                c.value.pop("expected_end", None)
        if not complete_earlier(ctx, "health.conditions", _is_pregnancy, end, sent):
            ctx.add("health.conditions", value, sent, 0.8)


def _is_pregnancy(value: dict[str, Any]) -> bool:
    return value.get("name") == "pregnancy"


# A birth ends the pregnancy: "I gave birth on Tuesday", "our daughter was born on the 2nd",
# "baby girl, born on the 2nd of June", "had the baby!!"
_BORN = re.compile(
    r"\bi\s+(?:gave\s+birth|had\s+(?:the|our|a|my)\s+(?:baby|little\s+one))\b|"
    r"\b(?:our|my)\s+(?:baby|son|daughter|little\s+one|boy|girl)\s+(?:was\s+born|arrived|is\s+here)\b|"
    r"^(?:our\s+|my\s+)?baby\s+(?:girl|boy)\b[^.!?]{0,20}\b(?:born|arrived)\b",
    re.I,
)


def rule_birth(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The user's baby born: the pregnancy is over (no longer current for the checks)."""
    m = _BORN.search(sent.text)
    if m is None or someone_else(sent.text[: m.start()]):
        return
    if not in_clause(m, parts, sent):
        return
    ctx.add("health.conditions", {"name": "pregnancy", "status": "resolved"}, sent, 0.75)
