"""Contact patterns, the one home of contacts.contacts: people the user names with their
relationship ("my sister Ana"), and people said in other shapes: lists, cards, known names,
birthdays (`rule_people_shapes`, run late)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import Any

from uac.fact_log.extraction.candidate import validate
from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns.text import (
    NAME,
    NEGATION,
    NOT_NAMES,
    THIRD_PARTY,
    Ctx,
    Span,
    clause_of,
    clause_ok,
    dates_in,
    emit,
    in_clause,
    word_set,
)
from uac.fact_log.extraction.timemodel import safe_date, this_year
from uac.fact_log.extraction.values.places import CITIES, COUNTRIES
from uac.fact_log.reference import vocabulary

INITIALS = r"(?-i:(?:[A-Z]\.[ \t]?){0,2})"  # "M. Lopes", "J. R. Smith"
# what people put before a name they address with respect ("Ma'am Layla", "Barr. Funmi")
HONORIFIC = r"(?:dr|mr|mrs|ms|miss|prof|ma['’]?am|madam|sir|barr|engr|auntie|aunty)\.?"
RELATIONS = "|".join(vocabulary()["ordered_lists"]["relation_words"])

# One word per relationship, whatever the register ("my mum" and "my mother" are one person).
_CANONICAL: dict[str, str] = vocabulary()["relations"]


def relationship(word: str) -> str:
    """The canonical relationship word ("mum" -> "mother")."""
    low = re.sub(r"\s+in\s+law$", "-in-law", " ".join(word.lower().split()))
    return _CANONICAL.get(low, low)


_NAME_FIRST = lazy(
    r"(?:^|[\s,;(])(?P<name>" + INITIALS + NAME + r")\s+is\s+(?i:my)\s+"
    r"(?:(?i:older|younger|big|little|new|old)\s+)?(?P<rel>(?i:" + RELATIONS + r"))\b",
)
_EMAIL = lazy(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}")
# Where people meet, said before the relation ("an old uni friend").
_HOW = "uni|university|school|college|work|gym|church|football|running|yoga|choir|nct"
# "my new neighbour today, Aisha Khan", "an old uni friend, Marcus Lee": the name after a comma.
_APPOSITIVE = compile_kept(
    r"\b(?:my|our|an?)\s+(?:(?:new|old|good|close|dear|lovely|best)\s+)?"
    r"(?:(?P<how>" + _HOW + r")\s+)?(?P<rel>" + RELATIONS + r")s?"
    r"(?:\s+(?:today|yesterday|tonight|last\s+night|this\s+morning|earlier))?\s*,\s*"
    r"(?P<name>(?-i:" + NAME + r"))",
    re.IGNORECASE,
)
# Jobs people are introduced by ("she's a vet", "the instructor's called Bram").
OCCUPATIONS = "|".join(vocabulary()["ordered_lists"]["occupations"])

_FAMILY = frozenset(vocabulary()["word_sets"]["contacts_family"])
# "I'm Ana's godmother": the other person's side of the relation
_INVERSE: dict[str, str] = vocabulary()["relation_inverses"]


_REL_FIRST = lazy(
    # "our neighbour Doug Reimer", "our grandson Liam": the user's household's people too
    # ("mi sister Pearline": "my" as the writer spells it)
    r"\b(?:my|our|mi)\s+(?:(?:older|younger|big|little|oldest|youngest|eldest|twin|new|ex-?)\s+)?"
    r"(?P<rel>"
    + RELATIONS
    + r"|"
    + OCCUPATIONS
    + r")(?:'s(?=\s+(?:called|named|name)\b))?(?:\s+(?:here|there|now)(?=\s+is\b))?\s*,?\s+(?:is\s+"
    r"(?:called\s+|named\s+)?|called\s+|named\s+|name\s+is\s+)?(?:"
    + HONORIFIC
    + r"\s+)?(?P<name>"
    + INITIALS
    + r"(?-i:"
    + NAME
    + r"))",
    re.IGNORECASE,
)


# "Sister Rosalind's 50th: 17 June": a note-style line opening with the relation, "my" unsaid
_NOTE_REL = lazy(
    r"^(?P<rel>(?-i:Sister|Brother|Mum|Mom|Dad|Cousin|Aunt|Uncle|Niece|Nephew|Grandma|Grandpa|"
    r"Son|Daughter|Wife|Husband))\s+"
    # (not a family name before a given name: "Son Heung-min's 30th" is a footballer's)
    r"(?![A-Z][a-z]+-[a-z])(?P<name>" + NAME + r")"
    # ... shaped as a note: a field follows ("Mum Jeans are back", "Uncle Sam takes half my
    # salary", "Sister Act 2 is on TV" are no relatives)
    r"(?=(?:'s|’s)\s+[^:\n]{1,30}:|\s*[:–—-]\s)"
)


# "Mum (Grace Wambui) is turning 60", "my boss (Karen Holt) wants ...": the name in brackets
_PAREN = lazy(
    r"(?:^|\b(?i:my|our)\s+)(?P<rel>(?i:" + RELATIONS + r"))\s*\((?P<name>" + NAME + r")\)"
)


def rule_contacts(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """People and their relationship to the user ("my sister Priya")."""
    found: list[tuple[re.Match[str], str]] = []
    for m in [
        *_APPOSITIVE.finditer(sent.text),
        *_REL_FIRST.finditer(sent.text),
        *_NAME_FIRST.finditer(sent.text),
        *filter(None, [_NOTE_REL.match(sent.text)]),
        *(_PAREN.finditer(sent.text) if "(" in sent.text else ()),
    ]:
        # a match whose "name" is no name ("my accountant, mob 0791...") leaves the relation
        # to the next pattern
        if (name := _name_of(m)) and not any(_near(f, m) for f, _ in found):
            found.append((m, name))
    for m, name in found:
        if not _introduced(parts, sent, m) or _died(parts, sent, m):
            continue
        name = _full_form(sent.text, m.end("name"), name)
        value: dict[str, Any] = {"name": name, "relationship": relationship(m["rel"])}
        if re.fullmatch(OCCUPATIONS, m["rel"], re.I):
            value["role"] = m["rel"].lower()  # "my physio": who they are to the user and their job
        if m.re is _APPOSITIVE and m["how"]:
            value["how_met"] = f"from {m['how'].lower()}"
        if "how_met" not in value and (how := how_met(sent.text, m.end("name"))):
            value["how_met"] = how
        email = _EMAIL.search(sent.text)
        if email is not None:
            value["email"] = email[0]
        bday = re.search(r"\b(?:birthday|b-?day)\b", sent.text, re.I)
        if bday:
            dates = ctx.dates(sent, "past", after=bday.start() + 1)
            if dates and dates[0].valid and dates[0].date is not None:
                value["birthday"] = this_year(dates[0], ctx.today)
        if (age := _TURNS.search(sent.text)) is not None:
            day = next((d.date for d in dates_in(sent, "future", ctx.today) if d.valid), None)
            if (born := born_on(day, age)) is not None:
                value["birthday"] = born  # "my mum Helen turns 70 on 28 December"
        ctx.add("contacts.contacts", value, sent, 0.8)


# "my brother is Dan by the way, Daniel Whitaker": the full name after a comma
_LATER_FULL = lazy(r",\s*(?P<full>[A-Z][a-zà-ÿ'-]{1,20}(?:\s[A-Z][a-zà-ÿ'-]{1,20}){1,2})\b")


# "my friend Inès from the prenatal yoga", "..., we met in church", "met her at a workshop"
_FROM_WHERE = lazy(
    r"\s+from\s+(?:the\s+|my\s+|our\s+)?(?P<how>[a-zà-ÿ][\w'’ -]{1,30}?)(?=\s*(?:[,;.!]|$))"
)
_WE_MET = lazy(
    r"\b(?:we\s+met|i\s+met\s+(?:him|her|them))\s+(?P<how>(?:in|at|on|through|via)\s+"
    r"(?:the\s+|a\s+|an\s+|my\s+)?[\w'’ -]{2,30}?)(?=\s*(?:[,;.!]|$|\s(?:in|last|years?|when)\b))",
    re.I,
)


_MET_THEM = lazy(
    r"^(?:and\s+|oh\s+)?(?:i|we)\s+met\s+(?:him|her|them)\s+(?P<how>(?:on|at|in|through|via)\s+"
    r"(?:the\s+|a\s+|an\s+|my\s+)?[\w'’-]{2,20}(?:\s[a-z][\w'’-]{1,20}){0,2})",
    re.I,
)


def how_met(text: str, after: int) -> str | None:
    """How the user met the person named just before `after`, when the line says it."""
    m = _FROM_WHERE.match(text, after)
    if m is not None and not (m["how"].lower() in CITIES or m["how"].lower() in COUNTRIES):
        return f"from {m['how'].lower()}"
    m = _WE_MET.search(text, after)
    return " ".join(m["how"].split()) if m is not None else None


def _name_of(m: re.Match[str]) -> str:
    """The capitalised name a relation pattern matched ("" for none, a place or a title)."""
    # re.I lets the name pattern match lowercase words too: keep leading capitalised words
    # only, and stop at a possessive ("Leo's birthday").
    parts_ = []
    for word in m["name"].split():
        if not word[:1].isupper() or word in NOT_NAMES:
            break
        if word.endswith(("'s", "’s")):
            parts_.append(word[:-2])
            break
        parts_.append(word)
    if any(p.lower() in CITIES or p.lower() in COUNTRIES for p in parts_):
        return ""
    return " ".join(parts_)


# "my uncle Brendan passed away", "my late brother": no one to reach
DECEASED = lazy(r"\b(?:died|passed\s+(?:away|on)|my\s+late)\b", re.I)


def _introduced(parts: list[Span], sent: Span, m: re.Match[str]) -> bool:
    """Whether the clause says who the person is to the user: a person named with their
    relation is so whatever the rest of the clause asks, supposes or advises ("My wife Mirela
    says I should cut the sugar", "my friend Oskar asked if I could come"); a negation or
    another person said before the relation undoes it ("not my cousin Ana")."""
    clause = clause_of(parts, sent.start + m.start())
    if clause is None:
        return False
    head = clause.text[: sent.start + m.start() - clause.start]
    return NEGATION.search(head) is None and THIRD_PARTY.search(head) is None


def _died(parts: list[Span], sent: Span, m: re.Match[str]) -> bool:
    """Whether the clause naming the person says they died ("my late brother's estate" in
    another clause is about someone else)."""
    clause = clause_of(parts, sent.start + m.start())
    return clause is not None and DECEASED.search(clause.text) is not None


def _full_form(text: str, after: int, name: str) -> str:
    """The full name said later in the sentence for a short one ("Dan ..., Daniel Whitaker")."""
    m = _LATER_FULL.search(text, after)
    if m is None or " " in name or not m["full"].startswith(name[:3]):
        return name
    return m["full"]


# "she's turning 40" (on the birthday said before), "turns 70 on 28 December"
_TURNS = lazy(
    r"\b(?:turns|turning|will\s+be)\s+(?P<n>\d{1,3})\b(?!\s*(?:%|percent|mins?))|"
    # the bare verb of a second language and "become" ("she turn 30", "he become 10", "Marco
    # becomes 49"): an age closing its clause or said in years, not "turn 5 pages"
    r"\b(?:turn|becom(?:e|es|ing))\s+(?P<n2>\d{1,3})"
    r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:years?|yrs?|this|next|on|in|and|but|so)\b)|"
    # "Sister Rosalind's 50th: 17 June", "my dad's 70th is on the 15th": a round birthday
    r"['’]s\s+(?P<nth>\d{2,3})(?:st|nd|rd|th)\b(?:\s+birthday)?(?=\s*[:,–-]|\s+(?:is|on|was)\b)",
    re.I,
)


def born_on(birthday: dt.date | None, age: re.Match[str]) -> dt.date | None:
    """The date of birth of someone turning n on a day (None past the calendar)."""
    if birthday is None:
        return None
    said = age.groupdict()
    years = said.get("n") or said.get("n2") or said.get("nth")
    return safe_date(birthday.year - int(years or 0), birthday.month, birthday.day)


def _near(m: re.Match[str], other: re.Match[str]) -> bool:
    """Whether two matches name the same relation (one found by two patterns)."""
    return m.start("rel") < other.end() and other.start() < m.end("rel")


_MET = lazy(
    r"(?:\b(?i:i)\s+|^(?i:just\s+|so\s+)?)(?i:met|got\s+to\s+know)\s+(?:(?i:a|this)\s+"
    r"(?i:guy|woman|man|girl|lady|person|bloke)\s+)?"
    r"(?:(?P<called>(?i:called|named))\s+)?(?P<name>[A-Z][a-z]{1,20}(?:\s[A-Z][a-z]{1,20})?)"
    r"(?:\s+(?i:at|in|through|on)\s+(?P<how>(?:the\s+|a\s+)?[A-Za-z][\w'-]{2,20}(?:\s[\w'-]{2,20})?))?"
)
_ROLE_IS = lazy(
    r"^(?:(?i:and|also|oh)\s+)?(?:(?P<det>(?i:the|our|my))\s+)?(?:(?i:new)\s+)?(?P<role>(?i:"
    + RELATIONS
    + r"|"
    + OCCUPATIONS
    + r"|nanny|babysitter))\s*"
    r"(?:(?i:we|i)\s+(?i:use|see|go\s+to)\s+)?(?i:is|is\s+called|['’]s\s+called|is\s+named|"
    r"['’]s\s+name\s+is|['’]s)\s+(?:(?i:" + HONORIFIC + r")\s+)?"
    r"(?P<name>" + INITIALS + r"[A-Z][a-zà-ÿā-ž]{1,20}(?:\s[A-Z][a-zà-ÿā-ž]{1,20})?)\b(?!['’])"
)


def rule_people(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "I met a guy called Jonas Weber at the conference", "The plumber we use is Dave"."""
    m = _MET.search(sent.text)
    if m and (m["called"] or " " in m["name"]) and in_clause(m, parts, sent):
        value: dict[str, Any] = {"name": m["name"]}  # one name only after "called"
        if m["how"]:  # "at the conference", with its preposition
            value["how_met"] = sent.text[m.end("name") : m.end("how")].strip()
        if (job := _HIS_JOB.search(sent.text, m.end())) is not None:
            value["role"] = job["role"].lower()
        ctx.add("contacts.contacts", value, sent, 0.75)
    named = {c.value.get("name") for c in ctx.of_path("contacts.contacts")}
    m = _ROLE_IS.search(sent.text)
    if m and m["name"] in NOT_NAMES:
        m = None  # "my GP is Dr A. Okafor": the title is not the name
    if m and _POSSESSIVE.match(sent.text, m.end("role")) and _NOUN_AFTER.match(sent.text, m.end()):
        m = None  # "my wife's Monzo card": a possessive, not "my wife is Monzo"
    full = _full_form(sent.text, m.end("name"), m["name"]) if m else ""
    if m and full not in named and in_clause(m, parts, sent):
        role = m["role"].lower()
        value = {"name": full, "role": role}
        # "landlord is Mr Adeyemi": said without "my" at the start of a line, still the user's
        mine = m["det"] is None or m["det"].lower() in ("my", "our")
        if mine and re.fullmatch(RELATIONS + "|" + OCCUPATIONS, role, re.I):
            value["relationship"] = relationship(role)
        if (phone := _PHONE.search(sent.text, m.end())) is not None:
            value["phone"] = " ".join(phone[0].split())
        ctx.add("contacts.contacts", value, sent, 0.75)
    _people_said_apart(ctx, sent, parts)


# (the user's relation to someone, their relation to a third) -> the user's to the third
_KIN = {
    ("brother", "wife"): "sister-in-law",
    ("sister", "husband"): "brother-in-law",
    **{(sp, par): f"{par}-in-law" for sp in ("wife", "husband") for par in ("mother", "father")},
    **{(sp, sib): f"{sib}-in-law" for sp in ("wife", "husband") for sib in ("sister", "brother")},
    **{(par, "sister"): "aunt" for par in ("mother", "father")},
    **{(par, "brother"): "uncle" for par in ("mother", "father")},
    **{(sib, "son"): "nephew" for sib in ("sister", "brother")},
    **{(sib, "daughter"): "niece" for sib in ("sister", "brother")},
}
_POSSESSIVE = lazy(r"\s*['’]s\s")
_NOUN_AFTER = lazy(r"\s+[a-z]")
_PHONE = lazy(r"\+?\d[\d ()-]{5,18}\d")
EMAIL, PHONE = _EMAIL, _PHONE  # the frames' email and phone slots read the same patterns
# "Priya from finance sends me the numbers": a colleague named by their team
_FROM_TEAM = lazy(
    r"^(?P<name>[A-Z][a-z]{1,20})\s+from\s+(?i:finance|hr|accounts|legal|marketing|sales|it|"
    r"ops|operations|payroll|procurement|engineering|product|design|comms|work|the\s+office)\b"
)
# "her husband Marco", "his sister Ines": someone else's relation, named
_THEIR_REL = lazy(
    r"\b(?P<whose>(?i:his|her|their))\s+(?P<rel>(?i:"
    + RELATIONS
    + r"))\s+(?:(?i:is|'s)\s+)?(?P<name>[A-Z][a-z]{1,20})\b"
)
# "I'm Ana's godmother": the user's relation to someone, said from the user's side
_I_AM_THEIRS = lazy(
    r"\b(?i:i)(?:['’]m|\s+am)\s+(?P<name>[A-Z][a-z]{1,20})['’]s\s+(?P<rel>(?i:"
    + "|".join(_INVERSE)
    + r"))\b"
)
# "Sam covers for me while I'm away, she's my deputy": a name, then what they are to the user
_NAME_THEN_MY = lazy(
    r"^(?P<name>[A-Z][a-z]{1,20}(?:\s[A-Z][a-z]{1,20})?)\b[^.?!]{0,60}?,\s*(?i:(?:she|he)['’]s|(?:she|he)\s+is)\s+"
    r"(?i:my)\s+(?P<rel>(?i:" + RELATIONS + r"|" + OCCUPATIONS + r"))\b"
)
# "met a guy called Jonas at the climbing wall, he's a nurse": the job in the same line
_HIS_JOB = lazy(r",\s*(?:he|she)['’]s\s+an?\s+(?P<role>(?i:" + OCCUPATIONS + r"))\b", re.I)


def _people_said_apart(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """People named with their team, by someone else's relation, or by the user's to them."""
    value: dict[str, Any] | None = None
    if (m := _FROM_TEAM.match(sent.text)) is not None:
        value = {"name": m["name"], "relationship": "colleague"}
    elif (m := _I_AM_THEIRS.search(sent.text)) is not None:
        value = {"name": m["name"], "relationship": _INVERSE[m["rel"].lower()]}
    elif (m := _NAME_THEN_MY.match(sent.text)) is not None:
        rel = relationship(m["rel"])
        value = {"name": m["name"], "relationship": rel}
        if rel not in _FAMILY:
            value["role"] = rel
    elif (m := _THEIR_REL.search(sent.text)) is not None:
        # "her husband Marco" after Hannah: Hannah's husband; "my brother is Gareth, his wife
        # is Sian": the user's sister-in-law
        here = [c.value for c in ctx.out if c.path == "contacts.contacts" and c.start >= sent.start]
        person = here[-1] if here else ctx.thread.last("contact")
        owner = person.get("name") if person is not None else None
        if owner:
            rel = relationship(m["rel"])
            theirs = person.get("relationship") or next(
                (
                    p.get("relationship")
                    for p in reversed(ctx.thread.mentions)
                    if p.kind == "contact" and p.get("name") == owner and p.get("relationship")
                ),
                "",
            )
            kin = _KIN.get((str(theirs), rel))
            value = {"name": m["name"], "relationship": kin or f"{owner}'s {rel}"}
    if value is None or m is None or value["name"] in NOT_NAMES:
        return
    if any(c.path == "contacts.contacts" and c.value.get("name") == value["name"] for c in ctx.out):
        return  # named by another rule already
    if in_clause(m, parts, sent):
        ctx.add("contacts.contacts", value, sent, 0.7)


# -- follow-ups: the person the session just named (run after the domain rules) ------------

_FULL_NAME = lazy(r"^([A-Z][a-z]{1,20})\s+([A-Z][a-z]{1,20}(?:-[A-Z][a-z]{1,20})?)\b")
# "her number is ...", "we swapped numbers, his is ...": at the start of a clause.
_PRONOUN_PHONE = lazy(
    r"(?:^|[,;]\s*|\band\s+)(?:his|hers?)(?:\s+(?:phone(?:\s+number)?|number|mobile|cell))?"
    r"(?:\s+is|['’]s)\s+(\+?\d[\d ()-]{5,18}\d)"
    r"|^(?:his|her)\b[^.?!]{0,60}?\b(?:phone|tel|mobile|number)\s*:?\s*(\+?\d[\d ()-]{5,18}\d)",
    re.I,
)
_PRONOUN_EMAIL = lazy(
    r"^(?:his|her)\s+e-?mail\s+is\s+([\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4})", re.I
)
_PRONOUN_ROLE = lazy(
    r"^(?:he|she)(?:['’]s|\s+is|\s+works\s+(?:at\s+[A-Z]\w+\s+)?as)\s+(?:the\s+|our\s+|a\s+|an\s+)?"
    r"(?:new\s+)?(?:([a-z]+(?:\s[a-z]+)?\s(?:manager|engineer|developer|designer|director|"
    r"lead|officer|analyst|consultant))|(?:(?:junior|senior|trainee|qualified|locum|retired)\s+)?"
    r"(" + OCCUPATIONS + r"))\b",
    re.I,
)
# "Gareth's email is ...": a named person's address (someone the session knows, or "him/her").
_NAMED_CONTACT = lazy(
    r"(?:^|[\s,;])(?P<name>[A-Z][a-zà-ÿ]{1,20})['’]s\s+(?:(?P<email>e-?mail(?:\s+address)?)|"
    r"(?:phone\s+)?number|mobile)\s+is\s+(?P<value>[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}|"
    r"\+?\d[\d ()-]{5,18}\d)"
)
_PRONOUN_TURNS = lazy(
    r"^(?:and\s+)?(?:he|she)(?:['’]s|\s+is|\s+will\s+be)?\s+(?:turning|turns)\s+(?P<n>\d{1,3})\b",
    re.I,
)
_HIM_HER = lazy(r"\b(?:him|her|he|she)\b", re.I)


_WORD = r"[A-Z][a-zà-ÿ'’-]{1,20}(?:[A-Z][a-zà-ÿ'’]{1,20})?"
_PHONE_AT = lazy(r"(?<![\w.+/-])\+?\(?\d[\d ()-]{5,18}\d(?![\w%/-]|[.,]\d)")
# a date, or a sort code and an account number ("20-45-77 83920155")
_NOT_PHONE = lazy(
    r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{2,4}|\d{1,2}-\d{1,2}|\d\d-\d\d-\d\d\s.*"
)
# "Mrs Fiona McAllister of Brodies", "Dr Patel": a person by their title
_TITLED = lazy(
    r"\b(?:Dr|Mr|Mrs|Ms|Miss|Prof|Frau|Herr|Sr|Sra)\.?[ \t]+(?P<name>"
    + _WORD
    + r"(?:[ \t]"
    + _WORD
    + r")?)"
)
# "Ravi's number is ...", "kenji's # ...": whose number it is, before it
_WHOSE = lazy(
    r"\b(?P<name>[A-Z][a-zà-ÿ]{1,20})['’]s\s+(?:phone\s+|mobile\s+|cell\s+)?"
    r"(?:number|mobile|cell|phone|telephone|#|no\.?)"
)
# "Javier Ruiz, javier.ruiz@...": a first and last name
_FIRST_LAST = lazy(r"\b(?P<name>[A-Z][a-zà-ÿ'’-]{1,20}[ \t][A-Z][a-zà-ÿ'’-]{1,20})\b")


# how phone numbers are written: a trunk 0 or a +country code, or the US/Indian groupings
# ("614-555-0198", "312 555 0147", "98860 41234"); an IBAN's or a card's digits are not
# a US local number ("555-0142") and the three threes of many European mobiles ("512 345
# 678") too
_PHONE_SHAPE = lazy(
    r"(?:\+|0|\(0)[\d ()-]+|\(?\d{3}\)?[-. ]\d{3}[-. ]\d{4}|\d{5}[ -]\d{5}|\d{3}-\d{4}|"
    r"\d{3}[ -]\d{3}[ -]\d{3}"
)
_MONEY_AFTER = lazy(r"\s*(?:zł|zl|pln|eur|€|usd|\$|gbp|£|kr|chf|aed|php|ngn|inr)", re.I)
_ACCOUNT_CUE = lazy(
    r"\b(?:account|acct|a/c|iban|sort\s+code|card|ref(?:erence)?|policy|booking|order|invoice|"
    r"[A-Z]{2}\d{2}(?:\s[A-Z0-9]{4})?)\W*(?:\s\S+){0,3}\s*$",
    re.I,
)


_SEVEN_DIGITS = lazy(r"\d[\d ()-]{5,}\d")


def phone_in(text: str, start: int = 0) -> re.Match[str] | None:
    """The first phone number in text from start (7-15 digits; not a date, a time or an amount)."""
    for m in _PHONE_AT.finditer(text, start):
        said = m[0].strip()
        if (
            7 <= sum(ch.isdigit() for ch in said) <= 15
            and not _NOT_PHONE.fullmatch(said)
            and _PHONE_SHAPE.fullmatch(said)
            and not _ACCOUNT_CUE.search(text, max(0, m.start() - 30), m.start())
            and not _MONEY_AFTER.match(text, m.end())
        ):
            return m
    return None


def rule_contact_reach(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A number or an address in the line of the one person it names is how to reach them."""
    if "@" not in sent.text and _SEVEN_DIGITS.search(sent.text) is None:
        return  # nearly every line: no number long enough to call, no address
    phone, email = phone_in(sent.text), _EMAIL.search(sent.text)
    if phone is None and email is None:
        return
    reach = {"phone": " ".join(phone[0].split())} if phone else {}
    if email is not None:
        reach["email"] = email[0]
    here = [
        i for i, c in enumerate(ctx.out) if c.path == "contacts.contacts" and c.start == sent.start
    ]
    if len({str(ctx.out[i].value.get("name")) for i in here}) == 1:
        i = here[0]
        merged = {**reach, **ctx.out[i].value}
        if (typed := validate(ctx.catalog, "contacts.contacts", merged)) is not None:
            ctx.out[i] = replace(ctx.out[i], value=typed)
        return
    first = min(m.start() for m in (phone, email) if m is not None)
    names = [
        m
        for pattern in (_TITLED, _WHOSE, _FIRST_LAST)
        for m in pattern.finditer(sent.text, 0, first)
        if _person(m["name"])
    ]
    if here or not names:
        return  # two people named, or none: whose number it is is not said
    m = max(names, key=lambda n: n.start())  # the name nearest before the number
    if in_clause(m, parts, sent, "name") and not _died(parts, sent, m):
        ctx.add("contacts.contacts", {"name": m["name"], **reach}, sent, 0.7)


_COMPANY = word_set("ltd limited inc llc plc gmbh ag co corp sa bv llp")


def _person(name: str) -> bool:
    """Whether capitalised words can be a person's name (no weekday, month, title or place)."""
    words = name.split()
    if words[-1].lower().strip(".") in _COMPANY:
        return False  # "Kowalski Ltd": a firm's bank details, not a person's number
    return all(
        w not in NOT_NAMES and w.lower() not in CITIES and w.lower() not in COUNTRIES for w in words
    )


def _emit_contact(ctx: Ctx, sent: Span, value: dict[str, Any]) -> None:
    """Add what a follow-up says to the message's record of that person, or propose it."""
    for i, c in enumerate(ctx.out):
        if c.path == "contacts.contacts" and c.value.get("name") == value["name"]:
            typed = validate(ctx.catalog, "contacts.contacts", {**value, **c.value})
            if typed is not None:  # "My nephew Callum ...; his email is ...": one person
                ctx.out[i] = replace(c, value=typed)
                return
    emit(ctx, sent, "contacts.contacts", value)


def rule_contact_followup(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "Tom Becker, if you need his full name", "Her number is ...": the last contact."""
    if (m := _NAMED_CONTACT.search(sent.text)) and m["name"] not in NOT_NAMES:
        known = any(
            str(p.get("name") or "").split()[:1] == [m["name"]]
            for p in ctx.thread.mentions
            if p.kind == "contact"
        )
        if known or _HIM_HER.search(sent.text):
            key = "email" if m["email"] or "@" in m["value"] else "phone"
            _emit_contact(ctx, sent, {"name": m["name"], key: m["value"]})
            return
    person = ctx.thread.last("contact")
    if person is None:
        return
    fields = {"name": person.get("name")}
    if (m := _FULL_NAME.match(sent.text)) and person.get("name") == m[1]:
        rel = person.get("relationship")
        emit(
            ctx,
            sent,
            "contacts.contacts",
            {"name": f"{m[1]} {m[2]}", **({"relationship": rel} if rel else {})},
        )
    elif m := _PRONOUN_PHONE.search(sent.text):
        _emit_contact(ctx, sent, {**fields, "phone": " ".join((m[1] or m[2]).split())})
    elif m := _PRONOUN_EMAIL.match(sent.text):
        _emit_contact(ctx, sent, {**fields, "email": m[1]})
    elif m := _PRONOUN_ROLE.match(sent.text):
        emit(ctx, sent, "contacts.contacts", {**fields, "role": (m[1] or m[2]).lower()})
    elif (
        (m := _PRONOUN_TURNS.match(sent.text))
        and (day := ctx.thread.last("date")) is not None
        and (born := born_on(day.get("date"), m)) is not None
    ):
        emit(ctx, sent, "contacts.contacts", {**fields, "birthday": born})  # "she's turning 40"
    elif (m := _MET_THEM.match(sent.text)) is not None:
        # "I met her on a workshop in Kraków last year": how the user met the person just named
        emit(ctx, sent, "contacts.contacts", {**fields, "how_met": " ".join(m["how"].split())})


# -- people said in other shapes ---------------------------------------------------------------
# People said in other shapes than "my sister Ana": lists, cards, known names, birthdays.
#
# * a relation in the plural, then the names ("new neighbours moved in, Raj and Meena");
# * a card: a full name, then a phone, an email or what they are to the user ("save this: Tomás
#   Ribeiro, tomas@..., he's the new account manager"; "Gary Pike, 07700 900318"; dictated
#   "new contact comma Doctor Ingrid Halvorsen comma she's my new dentist full stop phone ...");
# * a name the session already knows, written in lower case ("raj's number is ...", "meena
#   works at the hospital, she's a midwife");
# * a named person's birthday with the year they were born ("Lou's birthday is the 9th of
#   March, she was born in 1991");
# * a doctor acting on the user ("Dr Patel started me on sertraline").

_NAME_WORD = r"[A-ZĄĆČĘŁŃŚŠŹŻŽ][a-zà-ÿā-ž'’-]{1,20}"
_REL_LIST = lazy(
    r"\b(?i:my|our|new|the)\s+(?:(?i:new)\s+)?(?P<rel>(?i:" + RELATIONS + r"))s\b[^.!?]{0,40}?"
    r"[,:]\s*(?P<a>" + _NAME_WORD + r")\s+(?:and|&)\s+(?P<b>" + _NAME_WORD + r")\b"
)
_FORMER = lazy(r"\b(?:old|former|ex|late|previous)\s+\w*\s*$", re.I)
_CARD = lazy(
    r"(?:^|(?i:save\s+this|new\s+contact|contact|add)\s*[,:]\s*|"
    # "New assistant: Ola Wiśniewska, ola@..., 512 345 678": a role as the card's label
    r"^(?i:(?:my\s+|our\s+)?(?:new\s+)?)(?P<role>(?i:" + OCCUPATIONS + r"|assistant|"
    r"employer))\s*:\s*)"
    r"(?:(?i:dr|doctor|mr|mrs|ms|prof|barr|engr)\.?\s+)?"
    r"(?P<name>" + _NAME_WORD + r"(?:\s" + _NAME_WORD + r"){1,2})\s*,\s*"
    r"(?=[\w.+-]{1,64}@|\+?\d[\d ()-]{5,18}\d|(?i:(?:she|he)['’]s|(?:she|he)\s+is)\b)"
)
_WHAT = lazy(
    r"(?:she|he)(?:['’]s|\s+is)\s+(?P<det>my|our|the|a|an)\s+(?:new\s+)?"
    r"(?P<what>(?:[a-z]+\s)?(?:manager|director|lead|officer|analyst|consultant|engineer)|"
    + RELATIONS
    + r"|"
    + OCCUPATIONS
    + r")\b",
    re.I,
)
_KNOWN_DETAIL = lazy(
    r"(?:^|[\s,;])(?P<name>[a-z][a-zà-ÿ]{1,20})['’]s\s+(?:(?P<email>e-?mail(?:\s+address)?)|"
    r"(?:phone\s+)?number|mobile)\s+is\s+(?P<value>[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}|"
    r"\+?\d[\d ()-]{5,18}\d)"
)
_KNOWN_JOB = lazy(
    r"^(?P<name>[A-Za-z][a-zà-ÿ]{1,20})\b[^.?!]{0,60}?,\s*(?:she|he)(?:['’]s|\s+is)\s+an?\s+"
    r"(?P<role>" + OCCUPATIONS + r")\b",
    re.I,
)
# "Lou's birthday is ...", "Jocelyn birthday is on Sept 21" (the possessive left unsaid)
_BIRTHDAY = lazy(
    # "the Queen's birthday", "King's birthday is a bank holiday": a title, no contact
    r"(?<!\b[Tt]he\s)\b(?!(?:Her|His|My|Your|Their|Our|The|Mum|Mom|Dad|King|Queen|Prince|"
    r"Princess|Google|Jesus|Christ)\b)(?P<name>[A-Z][a-zà-ÿ-]{1,20})"
    r"(?:['’]s)?\s+(?i:birthday|b-?day)(?:\s+is|['’]s)\b"
)
# "cousin jess bday is nov 9", "my sister ana's birthday is ...": a name typed in lower case
# after the user's relation
_REL_LOWER = lazy(
    r"(?:^|\b(?:my|our)\s+)(?P<rel>" + RELATIONS + r")\s+(?!(?:next|last|first|own|whose|and|"
    r"or|the|big|little|new|old|real|actual|is|was)\b)(?P<name>[a-zà-ÿ]{2,20})(?:['’]s)?\s+"
    r"(?:birthday|b-?day)(?:\s+is|['’]s)\b",
    re.I,
)
# "Dad's birthday is 12 March", "my sister's bday is the 4th": the relation's name is the one
# the session gave them ("my dad Peter ..."); no name said or known, no contact
_REL_BIRTHDAY = lazy(
    r"(?:^|\b(?:my|our)\s+)(?P<rel>" + RELATIONS + r")['’]s\s+(?:birthday|b-?day)(?:\s+is|['’]s)\b",
    re.I,
)
# "Pat's birthday is October 19. She will be 70.": the age said next gives the year
_WILL_BE = lazy(
    r"^(?:and\s+)?(?:she|he)(?:['’]ll|\s+will)\s+be\s+(?P<n>\d{1,3})\b(?!\s*(?:%|percent|mins?))|"
    r"^(?:and\s+)?(?:she|he)(?:['’]s|\s+is)\s+turning\s+(?P<nth>\d{1,3})\b",
    re.I,
)
# "Anna's birthday is 23 April, she's my neighbour": the user's relation said beside it
_RELATED = lazy(r"\b(?:my|our)\s+(?:" + RELATIONS + r")\b", re.I)
_BORN_IN = lazy(r"\bborn\s+in\s+(?P<year>(?:19|20)\d\d)\b", re.I)
_DOCTOR_ACTS = lazy(
    r"\b(?P<name>(?:Dr|Doctor)\.?\s" + _NAME_WORD + r")\s+(?i:started|put|prescribed|referred|"
    r"switched|took|has\s+(?:started|put|prescribed|referred))\s+(?i:me)\b"
)


# "scratch that last bit she's the hygienist not the dentist": what the person is, corrected
_NOT_THE = lazy(
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
