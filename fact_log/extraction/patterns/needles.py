"""A literal pre-check for the rules' regexes: skip a search that cannot match.

Most of the extractor's time is spent in a few hundred regexes searched in every sentence,
and nearly all of them find nothing there: "deadline" in no sentence of a trip. Every match
of a regex contains some literal text its syntax requires ("due" or "deadline" or "must ...
by"). `needs` reads that requirement off the parsed regex (the standard library's own
parser), as an and/or of lower-case strings, and `Gated` wraps the compiled regex: a search
of a text whose lower-cased form lacks the requirement answers "no match" at once, any other
search is the regex's own. `install` puts the wrapper in place of the regexes the rule
modules hold (patterns/__init__.py calls it once, at import).

Parsing ~650 regexes takes most of a second, too long for every process that imports the
extractor, so the requirements are written once as data, needles.json (one requirement per
regex, keyed by a digest of its source: a string, or ["and" | "or", parts]), by

    python -m uac.fact_log.extraction.patterns.needles

and built into one test per regex when the rules are first imported (`load_table`).
A regex not in the table (edited since) is simply not gated: the same answers, its old
speed; tests/test_extraction_needles.py fails until the table is written again. A regex a
rule tells apart by identity (`m.re is _X`) is never gated (the wrapper is another object).

It must never say no wrongly. The requirement is derived only from what a match must
consume (anchors and lookarounds consume nothing and count as no requirement, an optional
or unbounded part only by its required minimum), needles hold only ASCII or uncased
characters, and the few non-ASCII characters IGNORECASE matches to ASCII letters ("ı", "ſ",
the Kelvin sign, "İ") make every check pass. tests/test_extraction_needles.py compares
gated and plain answers over the corpora and hostile variants.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import marshal
import os
import pkgutil
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from re import _constants as sre  # the stdlib parser's opcodes (Python 3.11)
from re import _parser
from types import ModuleType
from typing import Any

from uac.fact_log.extraction.lazy import LazyRegex, compile_kept
from uac.fact_log.extraction.patterns.text import Guard
from uac.fact_log.extraction.prefilter import FOLDS_TO_ASCII
from uac.fact_log.parsed_data import cache_dir, store_whole

# A requirement: None (any text may match), a string the lower-cased text must contain, or
# ("and" | "or", parts).
Req = Any

_PRODUCT = 64  # an exact piece ("(?:my|our) (?:car|van)") expands to at most this many strings
_AND = 4  # the most selective parts of a sequence kept (each costs a substring test)
_UNCASED = frozenset({"Lo", "Sc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "So", "Nd"})
_FOLDS = compile_kept(f"[{FOLDS_TO_ASCII}]")
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)


def _plain(ch: str) -> bool:
    """Whether a character can be a needle: ASCII, or without case (matched only as itself)."""
    if ch.isascii():
        return True
    return ch.lower() == ch == ch.upper() and unicodedata.category(ch) in _UNCASED


def _exact(items: Any) -> frozenset[str] | None:
    """Every (lower-cased) string a piece of regex matches, when they are few; else None."""
    out = frozenset({""})
    for op, av in items:
        one = _exact_item(op, av)
        if one is None:
            return None
        out = frozenset(a + b for a in out for b in one)
        if len(out) > _PRODUCT:
            return None
    return out


def _exact_item(op: Any, av: Any) -> frozenset[str] | None:
    """_exact of one parsed item."""
    if op is sre.LITERAL:
        ch = chr(av)
        return frozenset({ch.lower()}) if _plain(ch) else None
    if op is sre.IN:
        if not all(o is sre.LITERAL and _plain(chr(c)) for o, c in av):
            return None  # ranges, categories, negations: not a short list of characters
        return frozenset(chr(c).lower() for _, c in av)
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return frozenset({""})  # consumes nothing
    if op is sre.BRANCH:
        found = set()
        for branch in av[1]:
            one = _exact(branch)
            if one is None:
                return None
            found |= one
        return frozenset(found) if len(found) <= _PRODUCT else None
    if op is sre.SUBPATTERN:
        return _exact(av[3])
    if op is sre.ATOMIC_GROUP:
        return _exact(av)
    if op in _REPEATS and av[1] <= 3:  # "x{2}", "(?:s)?": each count spelled out
        found: set[str] = set()
        for times in range(av[0], av[1] + 1):
            one = _exact(list(av[2]) * times)
            if one is None:
                return None
            found |= one
        return frozenset(found) if len(found) <= _PRODUCT else None
    return None


def needs(items: Any) -> Req:
    """What the lower-cased text must contain for the parsed regex (a sequence) to match."""
    parts: list[Req] = []
    run: frozenset[str] = frozenset({""})  # the exact strings of the items just read

    def close() -> None:
        if "" not in run:
            parts.append(_any(run))

    for op, av in items:
        one = _exact_item(op, av)
        if one is not None:
            joined = frozenset(a + b for a in run for b in one)
            if len(joined) <= _PRODUCT:
                run = joined
                continue
            close()
            run = one
            continue
        close()
        run = frozenset({""})
        parts.append(_needs_item(op, av))
    close()
    return _all(parts)


def _needs_item(op: Any, av: Any) -> Req:
    """needs of one parsed item that is not exact."""
    if op is sre.BRANCH:
        return _either([needs(branch) for branch in av[1]])
    if op is sre.SUBPATTERN:
        return needs(av[3])
    if op is sre.ATOMIC_GROUP:
        return needs(av)
    if op in _REPEATS and av[0] >= 1:
        return needs(av[2])
    return None  # a class, any character, a back-reference, a zero-width assertion


def _any(strings: frozenset[str]) -> Req:
    """One of the strings (a string that holds another is implied by it: dropped)."""
    kept = sorted(s for s in strings if not any(t != s and t in s for t in strings))
    return kept[0] if len(kept) == 1 else ("or", tuple(kept))


def _either(options: list[Req]) -> Req:
    """Any one of the requirements (None when one of them is none)."""
    if any(o is None for o in options):
        return None
    flat: list[Req] = []
    for o in options:
        flat.extend(o[1] if isinstance(o, tuple) and o[0] == "or" else (o,))
    if all(isinstance(o, str) for o in flat):
        return _any(frozenset(flat))
    return ("or", tuple(flat))


def _all(parts: list[Req]) -> Req:
    """Every requirement, the most selective few (a weaker requirement is still sound)."""
    flat: list[Req] = []
    for p in parts:
        if p is not None:
            flat.extend(p[1] if isinstance(p, tuple) and p[0] == "and" else (p,))
    flat = [p for p in flat if strength(p) >= 2]  # one letter is in nearly every text
    flat.sort(key=strength, reverse=True)
    flat = flat[:_AND]
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else ("and", tuple(flat))


def strength(req: Req) -> int:
    """How rare a requirement is, as the length of the shortest string that meets it."""
    if req is None:
        return 0
    if isinstance(req, str):
        return sum(1 if ch.isascii() else 3 for ch in req)  # one CJK character is rare
    op, parts = req
    scores = [strength(p) for p in parts]
    return min(scores) if op == "or" else max(scores)


def _source(req: Req) -> str:
    """The requirement as a Python expression over the lower-cased text `t`."""
    if isinstance(req, str):
        return f"{req!r} in t"
    op, parts = req
    return "(" + f" {op} ".join(_source(p) for p in parts) + ")"


def requirement(pattern: re.Pattern[str]) -> Req:
    """What a text must contain, lower-cased, for the compiled regex to match in it."""
    if not isinstance(pattern.pattern, str):
        return None
    try:
        parsed = _parser.parse(pattern.pattern, pattern.flags)
    except (re.error, RecursionError):  # pragma: no cover - it compiled once already
        return None
    req = needs(parsed)
    return req if strength(req) >= 2 else None  # one letter: in nearly every text


_LONG = 4096  # a text longer than any sentence read (MAX_SENTENCE)
_last: tuple[str, str] = ("", "")  # the latest text and its lower-cased form (shared)


def _checked(name: str, empty: Callable[[], Any] | None = None) -> Callable[..., Any]:
    """A method of Gated: the regex's own `name`, or no match (None, or `empty()`) when the
    lower-cased text lacks what the regex requires."""

    def method(self: Gated, string: Any, *args: Any, **kwargs: Any) -> Any:
        global _last
        if args or kwargs or type(string) is not str:
            if self._may(string, args or kwargs):
                return getattr(self.regex, name)(string, *args, **kwargs)
        else:  # the rules' usual call, _may written out (a function call less)
            last = _last
            if last[0] is not string:
                last = _last = (string, string.lower())
            if self.may(last[1]) or (not string.isascii() and _FOLDS.search(string) is not None):
                return getattr(self.regex, name)(string)
        return None if empty is None else empty()

    method.__name__ = name
    method.__doc__ = f"`re.Pattern.{name}`."
    return method


class Gated:
    """A compiled regex with its literal pre-check: the same answers, fewer searches.

    Attributes it does not define (`pattern`, `flags`, `sub`, `split`, ...) are the regex's.
    """

    __slots__ = ("may", "regex")

    def __init__(self, regex: re.Pattern[str], may: Callable[[str], bool]) -> None:
        self.regex = regex
        self.may = may  # the requirement, tested on the lower-cased text

    def _may(self, text: Any, window: tuple[Any, ...] | dict[str, Any] = ()) -> bool:
        """False only when no match can be in the text."""
        global _last
        if type(text) is not str or (window and len(text) > _LONG):
            # the regex says what is wrong with a non-text; and a search of part of a long
            # text (pos, endpos) is the regex's own: lower-casing all of it would cost more
            return True
        last = _last
        if last[0] is text:  # the rules ask many regexes about one sentence in a row
            low = last[1]
        else:
            low = text.lower()
            _last = (text, low)
        return self.may(low) or (not text.isascii() and _FOLDS.search(text) is not None)

    search = _checked("search")
    match = _checked("match")
    fullmatch = _checked("fullmatch")
    finditer = _checked("finditer", lambda: iter(()))
    findall = _checked("findall", list)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.regex, name)

    def __eq__(self, other: object) -> bool:
        return self.regex == (other.regex if isinstance(other, Gated) else other)

    def __hash__(self) -> int:
        return hash(self.regex)

    def __repr__(self) -> str:
        return f"Gated({self.regex!r})"


def key(regex: re.Pattern[str]) -> str:
    """The table's key for a regex: a digest of its flags and source."""
    said = f"{regex.flags}:{regex.pattern}".encode()
    return hashlib.sha1(said, usedforsecurity=False).hexdigest()[:16]


# A rule that tells regexes apart by identity ("if m.re is _MED_START"): those stay plain.
_COMPARED = compile_kept(r"\.re\s+is\s+(?:not\s+)?([A-Za-z_]\w*)")


def _regexes(module: ModuleType) -> Iterator[tuple[str, re.Pattern[str]]]:
    """The compiled regexes a module holds at top level, and in its guards, by name."""
    for name, value in vars(module).items():
        if isinstance(value, Gated):
            value = value.regex
        if isinstance(value, Guard):
            value = value.pattern.regex if isinstance(value.pattern, Gated) else value.pattern
        if isinstance(value, re.Pattern | LazyRegex) and isinstance(value.pattern, str):
            yield name, value  # type: ignore[misc]


def install(modules: list[ModuleType], table: dict[str, Callable[[str], bool]]) -> int:
    """Put the gated form of each regex the table knows in place of it, in every module
    (and its guards); the number gated. Regexes compared by identity stay plain."""
    plain: set[int] = set()
    for module in modules:
        try:
            source = Path(module.__file__ or "").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return 0  # no source to tell which regexes are compared by identity: none gated
        names = vars(module)
        plain |= {id(names[n]) for n in _COMPARED.findall(source) if n in names}
    gated: dict[int, Gated] = {}
    for module in modules:
        for name, value in list(vars(module).items()):
            regex = value.pattern if isinstance(value, Guard) else value
            if not isinstance(regex, re.Pattern | LazyRegex) or id(regex) in plain:
                continue
            may = table.get(key(regex))
            if may is None:
                continue
            if id(regex) not in gated:
                gated[id(regex)] = Gated(regex, may)
            if isinstance(value, Guard):
                value.pattern = gated[id(regex)]  # type: ignore[assignment]
            else:
                setattr(module, name, gated[id(regex)])
    return len(gated)


TABLE_PATH = Path(__file__).with_name("needles.json")


def table_source(modules: list[ModuleType]) -> str:
    """The text of needles.json for the regexes the modules hold: one line per regex."""
    found: dict[str, Req] = {}
    for module in modules:
        for _, regex in _regexes(module):
            req = requirement(regex)
            if req is not None:
                found[key(regex)] = req
    lines = [f"{json.dumps(k)}: {json.dumps(found[k], ensure_ascii=False)}" for k in sorted(found)]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write_table(modules: list[ModuleType], path: Path) -> None:
    """Write needles.json."""
    path.write_text(table_source(modules), encoding="utf-8")


def _read(said: Any) -> Req:
    """A requirement as needles.json holds it (lists for tuples), checked."""
    if isinstance(said, str):
        return said
    op, parts = said
    if op not in ("and", "or") or not parts:
        raise ValueError(f"needles.json: {op!r} is not a requirement")
    return (op, tuple(_read(p) for p in parts))


def load_table(path: Path | None = None) -> dict[str, Callable[[str], bool]]:
    """The tests of needles.json (or `path`) by regex key; none when the file is missing.

    The shipped table's compiled tests are kept beside the package's bytecode
    (`__pycache__/needles.<digest>.<tag>.marshal`, keyed by the table's and this module's
    text): compiling the ~570 expressions cost ~0.04 s of every process that imports the
    rules, loading them ~2 ms. Where Python writes no bytecode or cannot write there, they
    are kept in the user's cache directory instead.
    """
    try:
        text = (path or TABLE_PATH).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    cache = _cache_path(text) if path in (None, TABLE_PATH) else None
    # beside the bytecode, else (PYTHONDONTWRITEBYTECODE, a read-only install) in the user's
    # cache directory (fact_log/parsed_data.py)
    kept = [cache] if cache is not None else []
    if cache is not None and not _writable_beside(cache):
        kept.append(cache_dir() / cache.name)
    for where in kept:
        with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
            return _evaluate(marshal.loads(where.read_bytes()))
    code = _tests_code(json.loads(text))
    if kept:
        _store(kept[-1], marshal.dumps(code))
    return _evaluate(code)


def _writable_beside(cache: Path) -> bool:
    """Whether the compiled tests may be kept beside the package's bytecode."""
    if sys.dont_write_bytecode:
        return False
    folder = cache.parent if cache.parent.exists() else cache.parent.parent
    return folder.is_dir() and os.access(folder, os.W_OK)


def _cache_path(text: str) -> Path:
    said = text.encode() + b"\0" + Path(__file__).read_bytes()
    digest = hashlib.sha256(said).hexdigest()[:16]
    tag = sys.implementation.cache_tag
    return Path(__file__).with_name("__pycache__") / f"needles.{digest}.{tag}.marshal"


def _store(cache: Path, data: bytes) -> None:
    """Write the cache whole, dropping older ones; a read-only folder keeps none."""
    with contextlib.suppress(OSError):
        for old in cache.parent.glob("needles.*.marshal"):
            old.unlink(missing_ok=True)
    store_whole(cache, data)


def compile_tests(said: dict[str, Any]) -> dict[str, Callable[[str], bool]]:
    """Requirements by key as tests of the lower-cased text, compiled as Python expressions
    (a chain of `in` tests runs several times faster than the same test as nested closures)."""
    return _evaluate(_tests_code(said))


def _tests_code(said: dict[str, Any]) -> Any:
    tests = ",".join(f"{k!r}: lambda t: {_source(_read(r))}" for k, r in said.items())
    return compile("{" + tests + "}", "needles.json", "eval")


def _evaluate(code: Any) -> dict[str, Callable[[str], bool]]:
    return eval(code, {"__builtins__": {}})  # repr'd strings, "in", and/or only


def rule_modules() -> list[ModuleType]:
    """Every module of the patterns package and of the shared value parsers, imported."""
    from uac.fact_log.extraction import patterns, timemodel, values

    return [
        importlib.import_module(f"{package.__name__}.{name}")
        for package in (patterns, timemodel, values)
        for name in sorted(m.name for m in pkgutil.iter_modules(package.__path__))
    ]


if __name__ == "__main__":  # (run as a script: the package's own copy holds the regexes)
    from uac.fact_log.extraction.patterns import needles

    needles.write_table(needles.rule_modules(), needles.TABLE_PATH)
    print(f"wrote {needles.TABLE_PATH}")
