"""People said in other shapes than "my sister Ana": lists, cards, known names, birthdays.

* a relation in the plural, then the names ("new neighbours moved in, Raj and Meena");
* a card: a full name, then a phone, an email or what they are to the user ("save this: Tomás
  Ribeiro, tomas@..., he's the new account manager"; "Gary Pike, 07700 900318"; dictated
  "new contact comma Doctor Ingrid Halvorsen comma she's my new dentist full stop phone ...");
* a name the session already knows, written in lower case ("raj's number is ...", "meena
  works at the hospital, she's a midwife");
* a named person's birthday with the year they were born ("Lou's birthday is the 9th of
  March, she was born in 1991");
* a doctor acting on the user ("Dr Patel started me on sertraline").
"""

from __future__ import annotations

import re
from typing import Any

from uac.fact_log.extraction.patterns.contacts import (
    OCCUPATIONS,
    RELATIONS,
    born_on,
    relationship,
)
from uac.fact_log.extraction.patterns.text import (
    NOT_NAMES,
    Ctx,
    Rule,
    Span,
    clause_ok,
    dates_in,
    emit,
    in_clause,
)
from uac.fact_log.extraction.timemodel import safe_date, this_year

_WORD = r"[A-ZĄĆČĘŁŃŚŠŹŻŽ][a-zà-ÿā-ž'’-]{1,20}"
_REL_LIST = re.compile(
    r"\b(?i:my|our|new|the)\s+(?:(?i:new)\s+)?(?P<rel>(?i:" + RELATIONS + r"))s\b[^.!?]{0,40}?"
    r"[,:]\s*(?P<a>" + _WORD + r")\s+(?:and|&)\s+(?P<b>" + _WORD + r")\b"
)
_FORMER = re.compile(r"\b(?:old|former|ex|late|previous)\s+\w*\s*$", re.I)
_CARD = re.compile(
    r"(?:^|(?i:save\s+this|new\s+contact|contact|add)\s*[,:]\s*|"
    # "New assistant: Ola Wiśniewska, ola@..., 512 345 678": a role as the card's label
    r"^(?i:(?:my\s+|our\s+)?(?:new\s+)?)(?P<role>(?i:" + OCCUPATIONS + r"|assistant|"
    r"employer))\s*:\s*)"
    r"(?:(?i:dr|doctor|mr|mrs|ms|prof|barr|engr)\.?\s+)?"
    r"(?P<name>" + _WORD + r"(?:\s" + _WORD + r"){1,2})\s*,\s*"
    r"(?=[\w.+-]{1,64}@|\+?\d[\d ()-]{5,18}\d|(?i:(?:she|he)['’]s|(?:she|he)\s+is)\b)"
)
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}")
_PHONE = re.compile(r"\+?\d[\d ()-]{5,18}\d")
_WHAT = re.compile(
    r"(?:she|he)(?:['’]s|\s+is)\s+(?P<det>my|our|the|a|an)\s+(?:new\s+)?"
    r"(?P<what>(?:[a-z]+\s)?(?:manager|director|lead|officer|analyst|consultant|engineer)|"
    + RELATIONS
    + r"|"
    + OCCUPATIONS
    + r")\b",
    re.I,
)
_KNOWN_DETAIL = re.compile(
    r"(?:^|[\s,;])(?P<name>[a-z][a-zà-ÿ]{1,20})['’]s\s+(?:(?P<email>e-?mail(?:\s+address)?)|"
    r"(?:phone\s+)?number|mobile)\s+is\s+(?P<value>[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}|"
    r"\+?\d[\d ()-]{5,18}\d)"
)
_KNOWN_JOB = re.compile(
    r"^(?P<name>[A-Za-z][a-zà-ÿ]{1,20})\b[^.?!]{0,60}?,\s*(?:she|he)(?:['’]s|\s+is)\s+an?\s+"
    r"(?P<role>" + OCCUPATIONS + r")\b",
    re.I,
)
# "Lou's birthday is ...", "Jocelyn birthday is on Sept 21" (the possessive left unsaid)
_BIRTHDAY = re.compile(
    # "the Queen's birthday", "King's birthday is a bank holiday": a title, no contact
    r"(?<!\b[Tt]he\s)\b(?!(?:Her|His|My|Your|Their|Our|The|Mum|Mom|Dad|King|Queen|Prince|"
    r"Princess|Google|Jesus|Christ)\b)(?P<name>[A-Z][a-zà-ÿ-]{1,20})"
    r"(?:['’]s)?\s+(?i:birthday|b-?day)(?:\s+is|['’]s)\b"
)
# "cousin jess bday is nov 9", "my sister ana's birthday is ...": a name typed in lower case
# after the user's relation
_REL_LOWER = re.compile(
    r"(?:^|\b(?:my|our)\s+)(?P<rel>" + RELATIONS + r")\s+(?!(?:next|last|first|own|whose|and|"
    r"or|the|big|little|new|old|real|actual|is|was)\b)(?P<name>[a-zà-ÿ]{2,20})(?:['’]s)?\s+"
    r"(?:birthday|b-?day)(?:\s+is|['’]s)\b",
    re.I,
)
# "Dad's birthday is 12 March", "my sister's bday is the 4th": the relation's name is the one
# the session gave them ("my dad Peter ..."); no name said or known, no contact
_REL_BIRTHDAY = re.compile(
    r"(?:^|\b(?:my|our)\s+)(?P<rel>" + RELATIONS + r")['’]s\s+(?:birthday|b-?day)(?:\s+is|['’]s)\b",
    re.I,
)
# "Pat's birthday is October 19. She will be 70.": the age said next gives the year
_WILL_BE = re.compile(
    r"^(?:and\s+)?(?:she|he)(?:['’]ll|\s+will)\s+be\s+(?P<n>\d{1,3})\b(?!\s*(?:%|percent|mins?))|"
    r"^(?:and\s+)?(?:she|he)(?:['’]s|\s+is)\s+turning\s+(?P<nth>\d{1,3})\b",
    re.I,
)
# "Anna's birthday is 23 April, she's my neighbour": the user's relation said beside it
_RELATED = re.compile(r"\b(?:my|our)\s+(?:" + RELATIONS + r")\b", re.I)
_BORN_IN = re.compile(r"\bborn\s+in\s+(?P<year>(?:19|20)\d\d)\b", re.I)
_DOCTOR_ACTS = re.compile(
    r"\b(?P<name>(?:Dr|Doctor)\.?\s" + _WORD + r")\s+(?i:started|put|prescribed|referred|"
    r"switched|took|has\s+(?:started|put|prescribed|referred))\s+(?i:me)\b"
)


# "scratch that last bit she's the hygienist not the dentist": what the person is, corrected
_NOT_THE = re.compile(
    r"\b(?:she|he)(?:['’]s|\s+is)\s+(?:the|my|our|a|an)\s+(?P<new>[a-z]{3,20})\s*,?\s+"
    r"not\s+(?:the|my|our|a|an)\s+(?P<old>[a-z]{3,20})\b",
    re.I,
)


def _corrected(ctx: Ctx, sent: Span) -> None:
    """The last contact whose relation or role was the rejected word, with the new one."""
    m = _NOT_THE.search(sent.text) if " not " in sent.text else None
    if m is None:
        return
    old = relationship(m["old"])
    for p in reversed(ctx.thread.mentions):
        if p.kind != "contact" or old not in (p.get("relationship"), p.get("role")):
            continue
        key = "relationship" if p.get("relationship") == old else "role"
        emit(ctx, sent, "contacts.contacts", {**p.record(), key: relationship(m["new"])})
        return


def _known(ctx: Ctx, word: str) -> str | None:
    """The name of a contact the session knows whose first name is `word` (any case)."""
    low = word.lower()
    for m in reversed(ctx.thread.mentions):
        name = m.get("name") if m.kind == "contact" else None
        if isinstance(name, str) and name.split()[0].lower() == low:
            return name
    return None


def _what(text: str) -> dict[str, str]:
    """What a card says the person is: the user's relation, or a role ("the new ... manager")."""
    m = _WHAT.search(text)
    if m is None:
        return {}
    what = m["what"].lower()
    if m["det"].lower() in ("my", "our") and re.fullmatch(RELATIONS, what, re.I):
        return {"relationship": relationship(what)}
    return {"role": what}


def _card(ctx: Ctx, sent: Span, parts: list[Span], m: re.Match[str]) -> None:
    """A name with the phone, email or relation said after it, up to the next sentences."""
    if not in_clause(m, parts, sent, "name"):
        return
    rest = ctx.text[sent.start + m.end() : sent.start + m.end() + 160]
    value: dict[str, Any] = {"name": m["name"], **_what(rest)}
    if m["role"]:
        value["role"] = m["role"].lower()
    if (email := _EMAIL.search(rest)) is not None:
        value["email"] = email[0]
    if (phone := _PHONE.search(rest)) is not None:
        value["phone"] = " ".join(phone[0].split())
    ctx.add("contacts.contacts", value, sent, 0.7)


def rule_people_shapes(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """People in a list, on a card, by a known name, by birthday, or by what they did."""
    said = {c.value.get("name") for c in ctx.of_path("contacts.contacts")}
    text = sent.text
    m = _REL_LIST.search(text) if (" and " in text or "&" in text) else None
    at = sent.start + m.start() if m else 0
    if m and not _FORMER.search(sent.text[: m.start("rel")]) and clause_ok(parts, sent, at):
        for name in (m["a"], m["b"]):
            if name not in NOT_NAMES and name not in said:
                value = {"name": name, "relationship": relationship(m["rel"])}
                ctx.add("contacts.contacts", value, sent, 0.7)
    m = _CARD.search(text) if "," in text else None
    if m and m["name"].split()[0] not in NOT_NAMES and m["name"] not in said:
        _card(ctx, sent, parts, m)
    owned = "'s" in text or "’s" in text
    if owned and (m := _KNOWN_DETAIL.search(text)) and (name := _known(ctx, m["name"])):
        key = "email" if m["email"] or "@" in m["value"] else "phone"
        emit(ctx, sent, "contacts.contacts", {"name": name, key: " ".join(m["value"].split())})
    elif "," in text and (m := _KNOWN_JOB.match(text)) and (name := _known(ctx, m["name"])):
        emit(ctx, sent, "contacts.contacts", {"name": name, "role": m["role"].lower()})
    if "irthday" in text or "day" in text:
        _birthdays(ctx, sent, parts, said)
    _corrected(ctx, sent)
    if "D" in text and (m := _DOCTOR_ACTS.search(text)) and in_clause(m, parts, sent):
        ctx.add("contacts.contacts", {"name": " ".join(m["name"].split())}, sent, 0.65)


def _birthdays(ctx: Ctx, sent: Span, parts: list[Span], said: set[Any]) -> None:
    """A birthday by the person's name, by a relation and a lower-case name, or by a relation
    whose name the session knows."""
    text = sent.text
    if (m := _BIRTHDAY.search(text)) and m["name"] not in said:
        _birthday(ctx, sent, parts, m)
    elif (m := _REL_LOWER.search(text)) and m["name"].capitalize() not in said:
        name = m["name"].capitalize()
        if name not in NOT_NAMES and in_clause(m, parts, sent):
            value = {"name": name, "relationship": relationship(m["rel"])}
            if (born := _born(ctx, sent, m)) is not None:
                value["birthday"] = born
            emit(ctx, sent, "contacts.contacts", value)
    elif (m := _REL_BIRTHDAY.search(text)) and in_clause(m, parts, sent):
        rel = relationship(m["rel"])
        name = next(
            (
                p.get("name")
                for p in reversed(ctx.thread.mentions)
                if p.kind == "contact" and p.get("relationship") == rel
            ),
            None,
        )
        if isinstance(name, str) and name not in said and (born := _born(ctx, sent, m)):
            emit(ctx, sent, "contacts.contacts", {"name": name, "birthday": born})


def _born(ctx: Ctx, sent: Span, m: re.Match[str]) -> Any:
    """The birthday said after the match: with the year the age said next gives ("... is
    October 19. She will be 70."), else this year's date; None without a day."""
    days = [
        d
        for d in dates_in(sent, "past", ctx.today)
        if d.valid and d.date and d.start > sent.start + m.start()
    ]
    if not days:
        return None
    if (age := _age_next(ctx, sent)) is not None:
        upcoming = next((d.date for d in dates_in(sent, "future", ctx.today) if d.valid), None)
        if (born := born_on(upcoming, age)) is not None:
            return born
    return this_year(days[0], ctx.today)


def _age_next(ctx: Ctx, sent: Span) -> re.Match[str] | None:
    """ "She will be 70" opening the next sentence (or the rest of this one after a comma)."""
    following = ctx.following.text if ctx.following is not None else ""
    if (age := _WILL_BE.match(following.strip())) is not None:
        return age
    _, _, rest = sent.text.partition(", ")
    return _WILL_BE.match(rest.strip()) if rest else None


def _knows(ctx: Ctx, sent: Span, m: re.Match[str], year: re.Match[str] | None) -> bool:
    """Whether a birthday's person is one the user knows: named in the session, said with
    the user's relation, noted without the possessive ("Grace birthday is on Nov 2"), or
    born within a lifetime ("Kim's birthday is 4 April, she was born in 1990")."""
    return bool(
        _known(ctx, m["name"])
        or _RELATED.search(sent.text)
        or not re.match(r"['’]s\b", sent.text[m.end("name") :])
        or (year and int(year["year"]) > ctx.today.year - 110)
    )


def _birthday(ctx: Ctx, sent: Span, parts: list[Span], m: re.Match[str]) -> None:
    """A named person's birthday: with the year they were born, else this year's date."""
    if m["name"] in NOT_NAMES or not in_clause(m, parts, sent):
        return
    year = _BORN_IN.search(sent.text)
    age = None if year else _age_next(ctx, sent)
    if not age and not _knows(ctx, sent, m, year):
        return  # "Shakespeare's birthday is 23 April": no one the user is said to know
    days = [
        d
        for d in dates_in(sent, "past", ctx.today)
        if d.valid and d.date and d.start > sent.start + m.start()
    ]
    if not days:
        return
    day = days[0].date
    born = (
        safe_date(int(year["year"]), day.month, day.day)  # type: ignore[union-attr]
        if year
        else _born(ctx, sent, m)
    )
    if born is not None:
        emit(ctx, sent, "contacts.contacts", {"name": m["name"], "birthday": born})


RULES: tuple[Rule, ...] = (rule_people_shapes,)
