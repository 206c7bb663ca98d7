"""The rule regexes' literal pre-check (patterns/needles.py) never says "no match" wrongly.

Every gated regex is checked against the corpora's sentences and hostile variants of them
(upper case, the non-ASCII letters IGNORECASE folds to ASCII), and the analysis itself
against random regexes and texts built from their own pieces (hypothesis)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from uac.fact_log.extraction import patterns
from uac.fact_log.extraction.patterns import health, needles, sentences, text
from uac.fact_log.extraction.patterns.needles import (
    Gated,
    _source,
    compile_tests,
    install,
    load_table,
    requirement,
)

DATA = Path(__file__).resolve().parents[1] / "bench" / "extraction_data"


def _gated() -> list[Gated]:
    """Every gated regex of the rule modules, once."""
    out: dict[int, Gated] = {}
    for module in needles.rule_modules():
        for value in vars(module).values():
            value = value.pattern if isinstance(value, text.Guard) else value
            if isinstance(value, Gated):
                out[id(value)] = value
    return list(out.values())


def _texts() -> list[str]:
    """Messages and their sentences from three sets, with hostile spellings of each."""
    said = []
    for name in ("dev", "heldout", "fresh"):
        for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                message = json.loads(line)["text"]
                said += [message, *(s.text for s in sentences(message))]
    folded = [s.replace("s", "ſ").replace("k", "\u212a").replace("i", "ı") for s in said]
    dotted = [s.replace("I", "\u0130") for s in said]
    return said + [s.upper() for s in said] + folded + dotted


def test_the_table_is_the_one_the_regexes_give(tmp_path: Path) -> None:
    # a regex edited since the table was written is not gated (slower, same answers):
    # `python -m uac.fact_log.extraction.patterns.needles` writes the table again
    path = tmp_path / "needles.json"
    needles.write_table(needles.rule_modules(), path)
    assert path.read_text(encoding="utf-8") == needles.TABLE_PATH.read_text(encoding="utf-8"), (
        "patterns/needles.json is stale: run python -m uac.fact_log.extraction.patterns.needles"
    )


def test_a_gated_regex_skips_only_texts_it_cannot_match() -> None:
    gated = _gated()
    assert len(gated) > 400  # nearly every rule regex has a literal to look for
    texts = _texts()
    skipped = 0
    for g in gated:
        for t in texts:
            if not g._may(t):
                skipped += 1
                assert g.regex.search(t) is None, (g.regex.pattern[:80], t)
    assert skipped > len(gated) * len(texts) // 2  # it does skip most searches


def _span(m: re.Match[str] | None) -> tuple[int, int] | None:
    return None if m is None else m.span()


def test_gated_methods_answer_as_the_regex() -> None:
    g = Gated(re.compile(r"\bdue\s+(\d+)", re.I), lambda t: "due" in t)
    for t in ("Rent DUE 5 and due 7", "nothing here", "", "ſ due 3"):
        assert [m.span() for m in g.finditer(t)] == [m.span() for m in g.regex.finditer(t)]
        assert g.findall(t) == g.regex.findall(t)
        assert _span(g.search(t)) == _span(g.regex.search(t))
        assert _span(g.search(t, 4)) == _span(g.regex.search(t, 4))
        assert _span(g.match(t)) == _span(g.regex.match(t))
        assert _span(g.fullmatch(t)) == _span(g.regex.fullmatch(t))
        assert g.sub("X", t) == g.regex.sub("X", t)
    assert g.pattern == r"\bdue\s+(\d+)" and g.groups == 1 and g == g.regex
    with pytest.raises(TypeError):
        g.search(None)  # type: ignore[arg-type]


def test_a_regex_told_apart_by_identity_or_missing_from_the_table_stays_plain() -> None:
    assert isinstance(health._MED_START, re.Pattern)  # `m.re is _MED_START` in health.py
    assert patterns.GATED > 400
    fresh = re.compile(r"\bnot in any table (\d+)")
    holder = type(health)("holder")
    holder.__file__ = __file__
    holder.X = fresh  # type: ignore[attr-defined]
    assert install([holder], load_table()) == 0 and holder.X is fresh  # type: ignore[attr-defined]
    assert install([holder], {needles.key(fresh): lambda t: "table" in t}) == 1
    assert isinstance(holder.X, Gated)  # type: ignore[attr-defined]
    unread = type(health)("unread")  # installed without its source (.pyc only): none gated
    unread.__file__ = str(Path(__file__).with_suffix(".pyc-missing"))
    unread.X = fresh  # type: ignore[attr-defined]
    assert install([unread], {needles.key(fresh): lambda t: "table" in t}) == 0
    assert unread.X is fresh  # type: ignore[attr-defined]


def test_every_identity_comparison_names_a_plain_regex() -> None:
    # `m.re is _X` must see the object `_X.search` made the match with: a comparison the
    # install cannot read (a local alias, `==`, `in`) would silently differ once `_X` is gated
    said = re.compile(r"\.re\b\s*(is\s+not|is|==|!=|not\s+in|in)\s*([^\s):,]+)")
    seen = 0
    for module in needles.rule_modules():
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        for op, name in said.findall(source):
            if module is needles:
                continue  # its own pattern for these comparisons
            seen += 1
            assert op in ("is", "is not"), (module.__name__, op, name)
            assert isinstance(vars(module).get(name), re.Pattern), (module.__name__, name)
    assert seen >= 12


def test_the_table_holds_requirements_only(tmp_path: Path) -> None:
    # the table is compiled into Python tests: anything but strings and and/or is refused
    path = tmp_path / "needles.json"
    path.write_text('{"k": ["or", ["due", ["and", ["by", "the"]]]]}', encoding="utf-8")
    may = load_table(path)["k"]
    assert may("rent due") and may("by the way") and not may("by now")
    for bad in ('["__import__", ["os"]]', '["or", []]', '["or", [1]]', '["and"]'):
        path.write_text('{"k": ' + bad + "}", encoding="utf-8")
        with pytest.raises((ValueError, TypeError)):
            load_table(path)
    assert load_table(tmp_path / "missing.json") == {}  # no table: nothing gated


def test_what_a_regex_requires() -> None:
    def need(pattern: str, flags: int = 0) -> str | None:
        req = requirement(re.compile(pattern, flags))
        return None if req is None else _source(req)

    assert need(r"\bdue\b") == "'due' in t"
    assert need(r"(?:is|are)\s+due(?=\s)") == "('due' in t and ('are' in t or 'is' in t))"
    assert need(r"Flight", re.I) == "'flight' in t"
    assert need(r"a?b?c?") is None  # may match the empty text
    assert need(r"(?:due|\d+)") is None  # one way needs no literal
    assert need(r"x+") is None  # one letter: in nearly every text
    assert need(r"(?<=due )\d+") is None  # a lookbehind consumes nothing
    assert need(r"如果") == "'如果' in t"
    assert need(r"ÉTÉ", re.I) is None  # a cased non-ASCII letter has case partners


# -- the analysis on random regexes -------------------------------------------------------

_PIECES = [
    "ab",
    "due",
    "by",
    "ski",
    "is",
    "K",
    "s",
    "i",
    "ſ",
    "ı",
    "İ",
    "\u212a",
    "é",
    "如",
    " ",
    "1",
]


def _regex(depth: int = 0) -> st.SearchStrategy[str]:
    """Random regex source over a few pieces (literals, classes, groups, repeats, anchors)."""
    atom = st.one_of(
        st.sampled_from(_PIECES).map(re.escape),
        st.sampled_from([r"\d", r"\s", r"\w", ".", "[abK]", "[^a]", r"\b", "^", "$", "[sS]"]),
    )
    if depth >= 2:
        return atom
    inner = _regex(depth + 1)
    return st.one_of(
        atom,
        st.lists(inner, min_size=1, max_size=4).map("".join),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")"),
        st.tuples(inner, st.sampled_from(["?", "*", "+", "{2}", "{1,3}", "??", "+?"])).map(
            lambda x: "(?:" + x[0] + ")" + x[1]
        ),
        inner.map(lambda x: "(?=" + x + ")"),
        inner.map(lambda x: "(?!" + x + ")"),
        inner.map(lambda x: "(?i:" + x + ")"),
    )


@settings(max_examples=400, deadline=None)
@example(source="ski", flags=re.I, words=["ſ\u212aı"]).via("the letters IGNORECASE folds")
@example(source="(?i:is)", flags=0, words=["ıſ"]).via("the letters IGNORECASE folds")
@given(
    source=_regex(),
    flags=st.sampled_from([0, re.I]),
    words=st.lists(
        st.sampled_from([*_PIECES, "AB", "DUE", "By", "k", "S", "I", "ſ\u212aı", "ıſ"]), max_size=8
    ),
)
def test_a_requirement_holds_in_every_text_the_regex_matches(
    source: str, flags: int, words: list[str]
) -> None:
    try:
        regex = re.compile(source, flags)
    except re.error:
        return  # ("(?:$)*": nothing to repeat)
    req = requirement(regex)
    if req is None:
        return
    g = Gated(regex, compile_tests(json.loads(json.dumps({"k": req})))["k"])  # as needles.json
    said = "".join(words)
    for t in (said, said.upper(), said.lower(), said.swapcase()):
        assert g._may(t) or regex.search(t) is None, (source, t)


def test_the_cached_table_answers_as_the_table_compiled_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shipped table's tests loaded from the bytecode cache, from a damaged cache and
    from the JSON itself answer alike; a damaged cache is replaced."""
    monkeypatch.setattr(needles.sys, "dont_write_bytecode", False)
    text = needles.TABLE_PATH.read_text(encoding="utf-8")
    fresh = compile_tests(json.loads(text))
    cache = needles._cache_path(text)
    samples = ["my passport expires in may", "due every 3rd month", "", "I paid £40 via card"]

    def answers(table: dict[str, Any]) -> dict[str, list[bool]]:
        return {k: [test(s.lower()) for s in samples] for k, test in table.items()}

    expected = answers(fresh)
    assert answers(load_table()) == expected
    assert cache.is_file()
    assert answers(load_table()) == expected  # from the cache
    cache.write_bytes(b"\x00damaged")
    assert answers(load_table()) == expected
    assert cache.read_bytes() != b"\x00damaged"


def test_a_read_only_install_keeps_the_compiled_table_in_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the package's folder cannot be written (or no bytecode is written), the compiled
    tests are kept in the user's cache directory and loaded from there, answering alike."""
    text = needles.TABLE_PATH.read_text(encoding="utf-8")
    name = needles._cache_path(text).name
    blocked = tmp_path / "site-packages"
    blocked.write_text("", encoding="utf-8")  # a file: nothing can be made under it
    monkeypatch.setattr(needles, "_cache_path", lambda _text: blocked / "__pycache__" / name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    samples = ["my passport expires in may", "due every 3rd month", "I paid £40 via card"]
    expected = {k: [f(s) for s in samples] for k, f in compile_tests(json.loads(text)).items()}
    for dont_write in (False, True):
        monkeypatch.setattr(needles.sys, "dont_write_bytecode", dont_write)
        kept = tmp_path / "cache" / "uac" / name
        kept.unlink(missing_ok=True)
        assert {k: [f(s) for s in samples] for k, f in load_table().items()} == expected
        assert kept.is_file()
        assert {k: [f(s) for s in samples] for k, f in load_table().items()} == expected
