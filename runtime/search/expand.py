"""Context around hits: neighbouring turns of a hit, and names for a second search pass.

A hit can bring the items next to it (same session; for items without a session, items
without one within NEIGHBOUR_GAP): the answer to a question is often the next turn. A
multi-hop question ("where does the friend Sam met in May live?") can search again with the
names the first hits mention.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from uac.runtime.search.analyzer import Analyzer, split_speaker

# Neighbours of an item without a session: items without one within this time either side.
NEIGHBOUR_GAP = dt.timedelta(hours=2)
# A name in a hit, for the second hop: a capitalised word not opening a sentence, and the
# capitalised words following it ("Florence and the Machine" gives "Florence", "Machine").
_NAME = re.compile(r"(?<=[a-z0-9,;] )[A-Z][a-z]+(?: [A-Z][a-z]+)*")
MAX_HOP_NAMES = 6


@dataclass(frozen=True, slots=True)
class Neighbour:
    """An item next to a hit: same session (or close in time), `offset` turns away."""

    id: str
    kind: str
    text: str
    date: dt.datetime
    offset: int  # -1 the item just before the hit, +1 just after


def hop_names(analyzer: Analyzer, texts: list[str], text: str) -> list[str]:
    """Names the given hit texts mention that the query does not, in order (a few at most)."""
    asked = set(analyzer.query_terms(text))
    names: list[str] = []
    for body in texts:
        for name in _NAME.findall(split_speaker(body)[1]):
            terms = analyzer.query_terms(name)
            if terms and not set(terms) & asked and name not in names:
                names.append(name)
    return names[:MAX_HOP_NAMES]


def neighbours(
    con: Any,
    sid: int,
    top: list[int],
    found: dict[int, tuple[Any, ...]],
    dates: dict[int, dt.datetime],
    n: int,
) -> dict[int, tuple[Neighbour, ...]]:
    """Up to n items either side of each hit: same session, else within NEIGHBOUR_GAP."""
    sessions = sorted({found[d][3] for d in top if found[d][3] is not None})
    loose = [dates[d] for d in top if found[d][3] is None]
    params: list[Any] = [sid, sid, sessions]
    near = ""
    for at in loose:
        near += " OR (d.session IS NULL AND d.at_ts BETWEEN ? AND ?)"
        params += [at - NEIGHBOUR_GAP, at + NEIGHBOUR_GAP]
    rows = con.execute(
        f"""
        SELECT d.doc, d.item_id, d.kind, d.text, d.at_ts, d.session FROM search_docs d
        WHERE d.sid = ?
          AND d.doc NOT IN (SELECT doc FROM search_hidden WHERE sid = ? AND doc IS NOT NULL)
          -- session ids are user text: bound as a (short) list, never inlined
          AND (list_contains(?::VARCHAR[], d.session) {near})
        ORDER BY d.at_ts, d.doc
        """,
        params,
    ).fetchall()
    out: dict[int, tuple[Neighbour, ...]] = {}
    for doc in top:
        session = found[doc][3]
        line = [r for r in rows if r[5] == session]
        if session is None:
            at = dates[doc]
            line = [r for r in line if abs(r[4] - at) <= NEIGHBOUR_GAP]
        pos = next((i for i, r in enumerate(line) if r[0] == doc), None)
        if pos is None:
            continue
        out[doc] = tuple(
            Neighbour(id=r[1], kind=r[2], text=r[3], date=r[4], offset=i - pos)
            for i, r in enumerate(line[max(0, pos - n) : pos + n + 1], max(0, pos - n))
            if i != pos
        )
    return out
