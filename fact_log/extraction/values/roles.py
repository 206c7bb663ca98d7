"""Which part a place or a name plays in what is said, from the words next to it.

A place in a journey, from the words right before it: "from Munich",
"leaving Nairobi" say where it starts; "via Doha", "a layover in Dallas" where it stops on the
way; "to Toronto", "into Rome" where it goes; "and further to Vancouver", "then on to Hue"
where it goes on to, past the place said before it; "to Puglia, to Lecce" where in it. One
reading for every rule that must tell origin, stop and destination apart among several places
of a sentence, beside the time model's start and end of a date (`timemodel/roles.py`).

A name in a payment: "to the landlord Mr. Haque", "to the dealer Autoamérica" say who is paid
by a role word with the name after it, and the name is the payee; "to their account", "RM 899"
name no one."""

from __future__ import annotations

import re

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.values.money import find_money

_ONWARD = lazy(
    r"\b(?:further|then|on|onwards?|later|after\s+that)(?:[ \t]+on)?[ \t]+to(?:[ \t]+the)?[ \t]*$",
    re.IGNORECASE,
)
_WITHIN = lazy(r",[ \t]*to(?:[ \t]+the)?[ \t]*$", re.IGNORECASE)
_ORIGIN = lazy(
    r"\b(?:from|leaving|departing|out[ \t]+of)(?:[ \t]+the)?[ \t]*$",
    re.IGNORECASE,
)
_VIA = lazy(
    r"\b(?:via|through|thru|(?:layover|stopover|connection|connecting|changing)[ \t]+(?:in|at))"
    r"(?:[ \t]+the)?[ \t]*$",
    re.IGNORECASE,
)
_TOWARD = lazy(r"(?:\b(?:to|into|for|visit(?:ing)?)|->|→)(?:[ \t]+the)?[ \t]*$", re.IGNORECASE)
_REACH = 24  # characters before a place read for its cue


def place_role(text: str, at: int) -> str | None:
    """ "onward", "within", "origin", "via", "destination" or None for the place said at
    text[at:], by the words before it: "onward" is a destination reached past the one said
    before it (which is then a stop on the way), "within" one inside it ("to Puglia, to
    Lecce")."""
    before = text[max(0, at - _REACH) : at]
    for cue, name in ((_ONWARD, "onward"), (_WITHIN, "within"), (_ORIGIN, "origin"), (_VIA, "via")):
        if cue.search(before):
            return name
    return "destination" if _TOWARD.search(before) else None


_NAME_AFTER = lazy(
    r"[ \t]+(?P<n>(?:(?:Mr|Mrs|Ms|Miss|Dr)\.?[ \t]+)?[A-Z][\w.&'’-]{1,20}"
    r"(?:[ \t][A-Z][\w.&'’-]{1,20}){0,2})"
)
_NO_ONE = frozenset(("his", "her", "their", "its", "our", "your", "my", "this", "that"))


def who(text: str, start: int, end: int) -> str:
    """The payee said at text[start:end]: the name after a role word in lower case ("landlord
    Mr. Haque" -> "Mr. Haque"), the words as said otherwise; "" for a possessive ("their") or
    the currency of the amount after it ("RM 1,299")."""
    said = text[start:end]
    if said.casefold() in _NO_ONE:
        return ""
    if (money := find_money(text[start : end + 24])) and money[0].start == 0:
        return ""  # "RM 1,299.00": the amount's currency
    if said[:1].islower() and (m := _NAME_AFTER.match(text, end)) is not None:
        return m["n"].rstrip(".,;:!?")
    return said
