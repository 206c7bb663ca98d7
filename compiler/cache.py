"""What one compile of a subject keeps for the next compile of it in this process.

Both are exact, never approximations, and make the cost of a small change small:

- the subject's facts in log order, so the next compile reads only the rows appended since.
  The log is append-only and hash-chained (each hash covers the previous one), so the cached
  list is still a prefix of the log as long as its last fact has the same hash — checked
  with one query every time; anything else (a restored or rewritten database) drops it.
  A legal erase keeps the hashes but blanks content: it calls `drop()` for the subject;
- the fold memo of the subject's collection records (see `compiler.fold`): a record group
  whose facts are the same as last time is not merged and coerced again;
- the provenance lines rendered for a collection, by its part digest (`compiler.render`);
- the modules the subject's last preview built (`compiler.overlay`): the next preview
  executes again only the records modules whose collection changed.

Only the most recently compiled subjects are kept (LRU, at most `MAX_SUBJECTS` and
`MAX_FACTS` facts in all; the subject being compiled is always kept); a process that never
compiles twice (one CLI command) just pays one extra query.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.errors import LogIntegrityError
from uac.fact_log.store import Fact, Store

MAX_SUBJECTS = 16
MAX_FACTS = 100_000  # all subjects together: roughly 150-250 MB of facts and memo


@dataclass(slots=True)
class _Subject:
    facts: list[Fact] = field(default_factory=list)
    fold: dict[Any, Any] = field(default_factory=dict)
    preview: Any = None  # what compiler.overlay keeps (never read by a compile)


_LOCK = threading.Lock()
_SUBJECTS: OrderedDict[tuple[str, Address], _Subject] = OrderedDict()


def _key(store: Store, addr: Address) -> tuple[str, Address]:
    return (str(store.home.resolve()), addr)


def _entry(store: Store, addr: Address) -> _Subject:
    key = _key(store, addr)
    with _LOCK:
        entry = _SUBJECTS.pop(key, None) or _Subject()
        _SUBJECTS[key] = entry
        while len(_SUBJECTS) > MAX_SUBJECTS:
            _SUBJECTS.popitem(last=False)
    return entry


def read_facts(store: Store, addr: Address) -> list[Fact]:
    """The subject's facts in log order (a new list), reading only what was appended since.

    The rows read are verified first (`Store.verify_segment`, which also notices a log cut
    below what the subject's checkpoints folded): LogIntegrityError if they do not.
    """
    entry = _entry(store, addr)
    if entry.facts:
        last = entry.facts[-1]
        row = store.con.execute(
            "SELECT hash FROM facts WHERE seq = ? AND tenant = ? AND scope = ? AND subject = ?",
            [last.seq, addr.tenant, addr.scope, addr.subject],
        ).fetchone()
        if row is None or row[0] != last.hash:
            entry.facts, entry.fold = [], {}  # not the log we read before: start over
    before = entry.facts[-1] if entry.facts else None
    new = store.facts(addr, since_seq=before.seq if before else 0)
    # Fold only what verifies: the rows read now (the cached ones verified when read).
    problem = store.verify_segment(addr, new, before)
    if problem is not None:
        entry.facts, entry.fold = [], {}
        raise LogIntegrityError(f"log integrity: {problem}; the last good checkpoint stays")
    entry.facts.extend(new)
    with _LOCK:
        total = sum(len(e.facts) for e in _SUBJECTS.values())
        while total > MAX_FACTS and len(_SUBJECTS) > 1:
            _, oldest = _SUBJECTS.popitem(last=False)
            total -= len(oldest.facts)
    return list(entry.facts)


def fold_memo(store: Store, addr: Address) -> dict[Any, Any]:
    """The record-group memo the subject's last compile left (empty if none)."""
    return _entry(store, addr).fold


def keep_fold_memo(store: Store, addr: Address, memo: dict[Any, Any]) -> None:
    """Keep the memo of this compile (only the groups it used) for the next one."""
    _entry(store, addr).fold = memo


def preview_modules(store: Store, addr: Address) -> Any:
    """What the subject's last preview kept for the next one (None if nothing)."""
    return _entry(store, addr).preview


def keep_preview_modules(store: Store, addr: Address, kept: Any) -> None:
    """Keep what this preview built for the subject's next one."""
    _entry(store, addr).preview = kept


# Rendered provenance lines of a collection, by (attribute, part digest): the digest covers
# every record's key and fact ids, which is all the lines say, so equal digests give equal
# lines whichever subject they came from. Bounded by entries and by lines in all.
_LINES: OrderedDict[tuple[str, str], list[tuple[str, str]]] = OrderedDict()
MAX_LINES = 200_000


def provenance_lines(attr: str, digest: str) -> list[tuple[str, str]] | None:
    """The (key, line) pairs rendered for a collection with this digest, if still kept."""
    with _LOCK:
        lines = _LINES.get((attr, digest))
        if lines is not None:
            _LINES.move_to_end((attr, digest))
        return lines


def keep_provenance_lines(attr: str, digest: str, lines: list[tuple[str, str]]) -> None:
    """Keep a collection's rendered provenance lines for the next compile."""
    with _LOCK:
        _LINES[(attr, digest)] = lines
        total = sum(len(v) for v in _LINES.values())
        while total > MAX_LINES and len(_LINES) > 1:
            _, dropped = _LINES.popitem(last=False)
            total -= len(dropped)


def clear() -> None:
    """Forget everything (tests, or after rewriting a workspace outside this process)."""
    with _LOCK:
        _SUBJECTS.clear()
        _LINES.clear()


def drop(store: Store, addr: Address) -> None:
    """Forget one subject's cached facts and memo (a legal erase blanked some of them)."""
    with _LOCK:
        _SUBJECTS.pop(_key(store, addr), None)
