"""Regexes compiled on first use: importing the extractor compiles none of its ~650 rules.

Compiling the rules' regexes cost about a third of a second, paid by every process that
imported the extractor (a one-message `uac add`, any test), while a message only ever runs
the few whose literal pre-check passes (patterns/needles.py): the rest were compiled for
nothing. `lazy(source, flags)` stands in for `re.compile(source, flags)`: `pattern` and
`flags` are known at once (the pre-check's table is keyed by them), and the first search,
match or other use compiles the regex; from then on its methods are the compiled regex's
own (bound into the instance, no wrapper on the path).

A regex a rule tells apart by identity (`m.re is _X`) stays `re.compile`: a match's `re` is
the compiled regex, never this stand-in.
"""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")
# Global inline flags, which Python allows only at the start of a pattern ("(?i)...").
_INLINE = re.compile(r"\(\?([aiLmsux]+)\)")
_LETTERS = {
    "a": re.ASCII,
    "i": re.IGNORECASE,
    "L": re.LOCALE,
    "m": re.MULTILINE,
    "s": re.DOTALL,
    "u": re.UNICODE,
    "x": re.VERBOSE,
}


def _flags(source: str, flags: int) -> int:
    """The flags `re.compile(source, flags).flags` reports, without compiling."""
    at = 0
    while m := _INLINE.match(source, at):
        for letter in m[1]:
            flags |= _LETTERS[letter]
        at = m.end()
    if not flags & (re.ASCII | re.LOCALE):
        flags |= re.UNICODE
    return int(flags)


def _first_use(name: str) -> Any:
    """The stand-in for a regex method: compile, then call the compiled regex's own."""

    def method(self: LazyRegex, *args: Any, **kwargs: Any) -> Any:
        return getattr(self.compiled(), name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"`re.Pattern.{name}` (compiles the regex first)."
    return method


class LazyRegex:
    """`re.compile(source, flags)`, compiled at its first use (see the module docstring)."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self.pattern = source
        self.flags = _flags(source, flags)
        self._given = flags

    def compiled(self) -> re.Pattern[str]:
        """The compiled regex (compiled now if not yet): its methods replace the stand-ins."""
        found = self.__dict__.get("regex")
        if found is None:
            found = re.compile(self.pattern, self._given)
            self.__dict__.update({name: getattr(found, name) for name in _METHODS})
            self.__dict__["regex"] = found  # last: another thread sees all or nothing
        return found

    search = _first_use("search")
    match = _first_use("match")
    fullmatch = _first_use("fullmatch")
    finditer = _first_use("finditer")
    findall = _first_use("findall")
    sub = _first_use("sub")
    subn = _first_use("subn")
    split = _first_use("split")

    def __getattr__(self, name: str) -> Any:  # groups, groupindex, scanner
        if name.startswith("__") or name in ("regex", "pattern", "flags", "_given"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyRegex | re.Pattern):
            return (self.pattern, self.flags) == (other.pattern, other.flags)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._given})"


def lazy(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)` at the regex's first use."""
    # typed as the regex it stands in for: the rules use it wherever a Pattern goes
    return cast("re.Pattern[str]", LazyRegex(source, flags))
