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

What a first use compiles is kept between processes (`compile_kept`): `re` parses a pattern
and generates its program in pure Python (~0.5 ms a regex, 25-45 ms of the regexes one
message reaches), and only then hands the program to the C engine (`_sre.compile`). The
program of each (pattern, flags) is kept in the user's cache (`parsed_data.cache_dir()`,
beside the parsed data files) as `marshal` data keyed by the pattern, the flags and the
Python, so a later process builds the same regex from it, without parsing: the same program,
so the regex compares equal to `re.compile`'s (tests/test_lazy_regex.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import re
import sys
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
            found = compile_kept(self.pattern, self._given)
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


# The engine's identity: another Python (its parser, code generator or engine) is another key.
_ENGINE = f"{sys.implementation.cache_tag}:{sys.version}:{marshal.version}"


def compile_kept(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, its program kept between processes (module docstring).

    An entry that does not load or does not carry its own key is compiled again; nothing is
    kept when the cache cannot be written, or for a pattern `re` builds otherwise (bytes, a
    debug flag) or a Python whose `re` internals differ: then it is `re.compile`'s."""
    if not isinstance(source, str) or flags & re.DEBUG:
        return re.compile(source, flags)
    key = hashlib.sha256(f"{_ENGINE}\0{int(flags)}\0{source}".encode()).hexdigest()
    # parsed_data.cache_dir() as text (pathlib would cost about what the entry saves)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    entry = os.path.join(base, "uac", "regex", f"{key[:32]}.marshal")
    with contextlib.suppress(OSError, ValueError, EOFError, TypeError, RuntimeError):
        with open(entry, "rb") as file:
            kept, program = marshal.loads(file.read())
        if kept == key:
            return _built(source, program)
    try:
        program = _program(source, int(flags))
        found = _built(source, program)
    except (AttributeError, TypeError):  # another Python's `re` internals: compiled as usual
        return re.compile(source, flags)
    from pathlib import Path

    from uac.fact_log.parsed_data import store_whole

    store_whole(Path(entry), marshal.dumps((key, program)))
    return found


def _program(source: str, flags: int) -> tuple[Any, ...]:
    """What `re._compiler.compile` hands `_sre.compile` for `source` (Python 3.11-3.13)."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(source, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]  # opcodes are int subclasses
    names = dict(parsed.state.groupdict)
    order: list[str | None] = [None] * parsed.state.groups
    for name, index in names.items():
        order[index] = name
    return (flags | parsed.state.flags, code, parsed.state.groups - 1, names, tuple(order))


def _built(source: str, program: tuple[Any, ...]) -> re.Pattern[str]:
    import _sre  # type: ignore[import-not-found]  # the engine `re` itself compiles with

    flags, code, groups, names, order = program
    return cast("re.Pattern[str]", _sre.compile(source, flags, code, groups, names, order))


def lazy(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)` at the regex's first use."""
    # typed as the regex it stands in for: the rules use it wherever a Pattern goes
    return cast("re.Pattern[str]", LazyRegex(source, flags))
