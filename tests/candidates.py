"""What the pattern extractor finds in a line, for the extraction tests written by construct."""

from __future__ import annotations

import datetime as dt
from typing import Any

from uac.fact_log.extraction.patterns import extract

AT = dt.datetime(2025, 6, 1, 9)  # a Sunday
D = dt.date
T = dt.datetime


def found(text: str, *earlier: str, at: dt.datetime = AT) -> list[tuple[str, Any]]:
    """(path, value) of every asserted candidate in text, after the session's earlier lines."""
    history = [(line, at) for line in earlier]
    return [(c.path, c.value) for c in extract(text, at, history=history) if c.op == "assert"]


def of(path: str, cands: list[tuple[str, Any]]) -> list[Any]:
    """The values found for one path."""
    return [v for p, v in cands if p == path]


AT_2027 = dt.datetime(2027, 3, 10, 9)  # a Wednesday


def values(text: str, path: str, at: dt.datetime = AT_2027) -> list[Any]:
    """The values of one path in text alone (no session before it)."""
    return [c.value for c in extract(text, observed_at=at) if c.path == path]
