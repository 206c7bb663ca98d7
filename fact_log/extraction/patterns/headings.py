"""Lists under a heading that names another person ("Mum's direct debits:", "Dad's meds:",
"my sister's subscriptions:"): the lines under it are that person's, not the user's records.

Only the people rules read such lines (a contact's details are still facts about them); the
user's own records (payments, medications, documents, ...) are not made of them. A heading
owns the lines after it up to a blank line, the next heading or a line where the user speaks
of themselves ("I pay ...", "My ..."); one with its items on the same line ("Mum's direct
debits: council tax £150 on the 1st") owns that sentence.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import NOT_NAMES, word_set
from uac.fact_log.reference import vocabulary

_RELATION = "|".join(vocabulary()["ordered_lists"]["heading_relations"])
# What a person's list holds: records of theirs (not an occasion: "Mum's birthday:" then
# "- buy flowers" is the user's to do)
_HELD = "|".join(vocabulary()["ordered_lists"]["heading_records"])
# "Mum's direct debits:", "my sister's new meds:", "Tom's bills:", "my parents' bills:",
# "Dad's standing orders (from his Barclays):"
_HEADING = lazy(
    r"^[ \t]*(?:[-*•][ \t]*)?(?:(?:my|our|his|her|their)[ \t]+)?"
    r"(?:(?:" + _RELATION + r")(?:['’]s|s['’])|(?:(?:my|our)[ \t]+(?:" + _RELATION + r")[ \t]+)?"
    r"(?P<name>(?-i:[A-Z][a-z]{1,15}))['’]s)"
    r"(?:[ \t]+[\w-]+){0,3}?[ \t]+(?:"
    + _HELD
    + r")(?:[ \t]*\([^()\n]{1,40}\))?(?:[ \t]+(?:are|is))?[ \t]*:"
    r"(?P<rest>[^\n]*)",
    re.I | re.M,
)
_ANY_HEADING = lazy(r"^[^\n]{1,80}:[ \t]*$", re.M)  # the next heading ends a list
# ... and so does a line in which the user speaks of themselves again ("I pay Spotify ...",
# "My direct debits: ...": not an item of the other person's list)
_USER_LINE = lazy(r"^[ \t]*(?:I\b|my\b|we\b|our\b)", re.I | re.M)
# An inline list ("Mum's direct debits are: water £30 a month. My ...") ends with its sentence.
_SENTENCE_END = lazy(r"[.!?](?=\s+\S)|\n")
_BLANK = lazy(r"\n[ \t]*\n")
# Capitalised possessives that name no person ("Sainsbury's bills:", "Today's list:")
_NOT_OWNERS = NOT_NAMES | word_set("Sainsbury Children Valentine Lloyd Everyone Nobody")


def theirs(text: str) -> Callable[[int], bool]:
    """A test of whether a sentence starting at an offset lies in a list a heading says is
    another person's (one scan of the message; each test is a binary search)."""
    if ":" not in text or not ("'" in text or "’" in text):
        return _nowhere
    starts: list[int] = []
    ends: list[int] = []
    blank = -1  # the next blank line after a heading (found once for all the headings before it)
    for m in _HEADING.finditer(text):
        if (m["name"] and m["name"] in _NOT_OWNERS) or (ends and m.start() < ends[-1]):
            continue
        if m["rest"].strip():
            stop = _SENTENCE_END.search(text, m.start("rest"), m.end())
            end = stop.start() + 1 if stop else m.end()
        else:  # the list stops at a blank line, the next heading or the user's own line
            if blank < m.end():
                found = _BLANK.search(text, m.end())
                blank = found.start() if found else len(text)
            following = [
                f.start()
                for f in (
                    _ANY_HEADING.search(text, m.end() + 1, blank),
                    _USER_LINE.search(text, m.end() + 1, blank),
                )
                if f is not None
            ]
            end = min(following, default=blank)
        starts.append(m.start())
        ends.append(end)
    if not starts:
        return _nowhere

    def inside(at: int) -> bool:
        i = bisect.bisect_right(starts, at) - 1
        return i >= 0 and at < ends[i]

    return inside


def _nowhere(at: int) -> bool:
    """No list in the message is another person's."""
    return False
