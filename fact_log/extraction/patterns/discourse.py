"""What the conversation is about: the thread of one session, and facts that need it.

People split a fact across sentences and messages: "My new passport finally arrived." /
"It's good until 14 May 2036." The second sentence names no document; the thread does.
A `Thread` is what the session's earlier sentences mentioned, most recent last: the records
the rules found (a trip, an event, a visa, a contact) and things named without a value yet
("my new passport", "the laptop", "my lease ends on June 30"). It is a pure function of the
session's earlier user messages in order (the caller reads them from the inputs table), never
hidden state: `thread_after(history)` folds them one by one, and the fold is memoised by
(message, day, thread before) only to save work, so replaying a session costs one read per
message.

The rules here (`RULES`, run after the domain rules on each sentence) resolve:
* follow-ups: a value with a pronoun or a bare noun phrase ("It's valid until ...", "Back
  home on the 20th.", "It takes 45 minutes.", "His number is ...", "I paid 899 for it.");
* corrections ("Actually, make that the 19th", "Sorry, I meant Thursday the 12th", "the
  dentist moved to Friday"): the corrected record is proposed again with the new value
  (same record key where the key allows, so the fold supersedes); a correction that names no
  earlier value yields nothing;
* offsets ("a month before the lease ends", "two weeks before the wedding", "within 14 days
  of delivery"): a dated task, event or return window, anchored on the fact they name.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

MAX_MENTIONS = 16  # older mentions fall out of the thread: nobody says "it" about them
OTHER = "other"  # a mention's `owner` when it was said of someone else or asked about


def freeze(value: Any) -> Any:
    """A hashable copy of a candidate value (dicts and lists become sorted tuples)."""
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> dict[str, Any]:
    """The dict a frozen record value came from (lists stay tuples: never mutated)."""
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in value}


@dataclass(frozen=True, slots=True)
class Mention:
    """One thing the session talked about: a record found, or a thing named without a value."""

    kind: str  # a catalog path, or a topic: passport, driver_licence, visa, item, anchor, ...
    value: tuple[tuple[str, Any], ...]  # frozen fields
    day: dt.date  # the day of the message that said it

    def get(self, key: str) -> Any:
        """One field of the mention, or None."""
        for k, v in self.value:
            if k == key:
                return v
        return None

    def record(self) -> dict[str, Any]:
        """The fields as a dict."""
        return thaw(self.value)


@dataclass(frozen=True, slots=True)
class Thread:
    """What a session mentioned, most recent last."""

    mentions: tuple[Mention, ...] = ()

    def last(self, *kinds: str) -> Mention | None:
        """The most recent mention of one of the kinds."""
        for m in reversed(self.mentions):
            if m.kind in kinds:
                return m
        return None

    def last_own(self, *kinds: str) -> Mention | None:
        """The most recent mention of one of the kinds when it is the user's, else None.

        A value said next completes only a record the user owns: after "My mum takes
        warfarin." or "Is ibuprofen okay?", "The dose is 3 mg" completes nothing (an older
        drug of the user's is not what the dose is about either).
        """
        found = self.last(*kinds)
        return None if found is None or found.get("owner") == OTHER else found

    def last_date(self) -> dt.date | None:
        """The most recent day the conversation named (an anchor for "the 20th")."""
        return next((d for m in reversed(self.mentions) if (d := day_of(m)) is not None), None)

    def with_(self, added: Iterable[Mention]) -> Thread:
        """The thread with new mentions appended (the oldest dropped past the cap)."""
        merged = (*self.mentions, *added)
        return Thread(merged[-MAX_MENTIONS:])


_DATE_FIELDS = (
    "return_date",
    "end",
    "start",
    "depart",
    "due_date",
    "valid_until",
    "ends_on",
    "date",
)


def day_of(mention: Mention, fields: Sequence[str] = _DATE_FIELDS) -> dt.date | None:
    """The first of `fields` a mention holds as a day (a moment's date)."""
    for key in fields:
        day = mention.get(key)
        if isinstance(day, dt.datetime):
            return day.date()
        if isinstance(day, dt.date):
            return day
    return None


class _Memo:
    """A bounded map from (text, day, thread) to what reading that message produced."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.data: OrderedDict[Any, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self.lock:
            found = self.data.get(key)
            if found is not None:
                self.data.move_to_end(key)
            return found

    def clear(self) -> None:
        """Forget every message read (a cold read)."""
        with self.lock:
            self.data.clear()

    def put(self, key: Any, value: Any) -> None:
        with self.lock:
            self.data[key] = value
            if len(self.data) > self.size:
                self.data.popitem(last=False)


MEMO = _Memo()


def fold(
    history: Sequence[tuple[str, dt.datetime]],
    read: Any,
    catalog_key: int,
) -> Thread:
    """The thread after the session's earlier messages, read one by one in order."""
    thread = Thread()
    for text, at in history:
        key = (catalog_key, text, at.date(), thread)
        found = MEMO.get(key)
        if found is None:
            found = read(text, at, thread)
            MEMO.put(key, found)
        thread = found
    return thread


def remember(catalog_key: int, text: str, at: dt.datetime, before: Thread, after: Thread) -> None:
    """Keep what reading a message did to the thread, as `fold` would have found it.

    The message read now is history for the session's next one: without this, every message
    of a session would be read twice, once as itself and once as the next one's history.
    """
    MEMO.put((catalog_key, text, at.date(), before), after)
