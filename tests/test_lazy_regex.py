"""The rules' regexes compile at first use, and behave as `re.compile` would have."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from uac.fact_log.extraction.lazy import LazyRegex, compile_kept, lazy
from uac.fact_log.extraction.patterns.needles import Gated, rule_modules


def _lazies() -> list[tuple[str, LazyRegex]]:
    found = []
    for module in rule_modules():
        for name, value in vars(module).items():
            regex = value.regex if isinstance(value, Gated) else getattr(value, "pattern", value)
            regex = regex.regex if isinstance(regex, Gated) else regex
            if isinstance(regex, LazyRegex):
                found.append((f"{module.__name__}.{name}", regex))
    return found


def test_importing_the_extractor_compiles_none_of_the_rules() -> None:
    """Nor of the secret filter's patterns (the screen every write path imports)."""
    code = (
        "import uac.fact_log.extraction.patterns as p, uac.fact_log.extraction.screen as s;"
        "import uac.fact_log.extraction.lazy as l, gc;"
        "found = [o for o in gc.get_objects() if isinstance(o, l.LazyRegex)];"
        "print(len(found), sum('regex' in o.__dict__ for o in found))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    made, compiled = map(int, out.stdout.split())
    assert made > 500
    assert compiled == 0


def test_the_time_model_and_value_parsers_hold_no_regex_compiled_at_import() -> None:
    """Every top-level regex of timemodel/ and values/ is lazy, but those a rule tells apart
    by identity (`m.re is _X`, which must be the compiled regex itself)."""
    code = (
        "import importlib, pkgutil, re, sys;"
        "from uac.fact_log.extraction import timemodel, values;"
        "from uac.fact_log.extraction.patterns.needles import _COMPARED;"
        "mods = [importlib.import_module(p.__name__ + '.' + m.name)"
        " for p in (timemodel, values) for m in pkgutil.iter_modules(p.__path__)];"
        "eager = [(m.__name__, n) for m in mods for n, v in vars(m).items()"
        " if isinstance(v, re.Pattern) and n not in _COMPARED.findall(open(m.__file__).read())];"
        "print(len(mods), eager)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, eager = out.stdout.split(" ", 1)
    assert int(count) >= 8
    assert eager.strip() == "[]"


def test_the_slot_parsers_hold_no_regex_compiled_at_import() -> None:
    """slots.py's regexes (its module-level ones and those its parser factories build at
    import) compile at first use: a message whose frames fill no slot compiles none of them."""
    code = (
        "import re, uac.fact_log.extraction.slots as s, uac.fact_log.extraction.lazy as l;"
        "found = [v for v in vars(s).values() if isinstance(v, l.LazyRegex)];"
        "eager = [n for n, v in vars(s).items() if isinstance(v, re.Pattern)];"
        "print(len(found), sum('regex' in o.__dict__ for o in found), eager)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    made, compiled, eager = out.stdout.split(" ", 2)
    assert int(made) >= 40
    assert int(compiled) == 0
    assert eager.strip() == "[]"


def test_flags_are_the_compiled_regex_flags() -> None:
    """The pre-check's table is keyed by (flags, source): a lazy regex reports both exactly."""
    lazies = _lazies()
    assert len(lazies) > 500
    for name, regex in lazies:
        assert regex.flags == re.compile(regex.pattern, regex._given).flags, name
        assert type(regex.flags) is int, name
    for source, flags in [("(?i)x", 0), ("(?s)(?m)x", re.I), ("x", re.ASCII), (b"x".decode(), 0)]:
        assert lazy(source, flags).flags == re.compile(source, flags).flags, source


def test_a_lazy_regex_answers_as_the_compiled_one() -> None:
    source, flags = r"(?P<n>\d+)\s*(kg|lb)", re.IGNORECASE
    plain, late = re.compile(source, flags), lazy(source, flags)
    assert "regex" not in late.__dict__
    text = "12 KG, then 3lb and 40 st"
    assert late.search(text).group() == plain.search(text).group()  # type: ignore[union-attr]
    assert late.__dict__["regex"] == plain  # compiled once, now its methods are the regex's
    assert late.search.__self__ is late.__dict__["regex"]  # type: ignore[attr-defined]
    assert [m.span() for m in late.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert late.findall(text) == plain.findall(text)
    assert late.sub("#", text) == plain.sub("#", text)
    assert late.split(text) == plain.split(text)
    assert late.groupindex == plain.groupindex and late.groups == plain.groups
    assert late == plain and hash(late) == hash(lazy(source, flags))
    assert late.match("x") is None and late.fullmatch("12kg") is not None


def test_threads_that_first_use_one_lazy_regex_together_get_the_compiled_answers() -> None:
    import threading

    sources = [rf"(?i)\b(\w+)\s+expires?\s+on\s+(\d+)(?:st|nd|th)?\s*{n}" for n in range(40)]
    text = "My PASSPORT expires on 5th " + " ".join(str(n) for n in range(40))
    want = [[m.groups() for m in re.compile(s).finditer(text)] for s in sources]
    regexes = [lazy(s) for s in sources]  # none compiled yet: first use races in the threads
    start = threading.Barrier(8)
    got: list[list[list[tuple[object, ...]]]] = []

    def use() -> None:
        start.wait()
        got.append([[m.groups() for m in r.finditer(text)] for r in regexes])

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8
    assert all(answers == want for answers in got)
    assert any(w for w in want)  # the text matches some of them: the comparison has content


def test_a_kept_program_builds_the_regex_re_compile_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every rule's regex: compiled and kept, then built from the kept program, equals
    `re.compile`'s (a Pattern compares its flags, its source and its whole program)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    lazies = _lazies()
    for name, regex in lazies:
        made = compile_kept(regex.pattern, regex._given)
        again = compile_kept(regex.pattern, regex._given)
        plain = re.compile(regex.pattern, regex._given)
        assert made == plain and again == plain, name
        assert (again.groups, again.groupindex) == (plain.groups, plain.groupindex), name
    kept = list((tmp_path / "uac" / "regex").iterdir())
    assert len(kept) == len({(r.pattern, r._given) for _, r in lazies})


def test_a_damaged_or_unwritable_cache_compiles_as_re_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    source, flags = r"(?P<n>\d+)\s*(?:nights?|days?)\b", re.I
    compile_kept(source, flags)
    (entry,) = (tmp_path / "uac" / "regex").iterdir()
    for damaged in (b"", entry.read_bytes()[:-3], b"\x00" * 40):
        entry.write_bytes(damaged)
        assert compile_kept(source, flags) == re.compile(source, flags)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    found = compile_kept(source, flags).search("3 nights")
    assert found is not None and found["n"] == "3"


def test_processes_filling_the_regex_cache_at_once_one_killed_leave_only_whole_entries(
    tmp_path: Path,
) -> None:
    """Four processes keep every rule's regex in one empty cache at once, one killed wherever
    it was: the others build what `re.compile` builds, every entry left is whole and carries
    its own key, and a later process building from them gets `re.compile`'s regexes."""
    import hashlib
    import marshal
    import os

    code = (
        "import re, sys; sys.path.insert(0, sys.argv[1]); "
        "from test_lazy_regex import _lazies; "
        "from uac.fact_log.extraction.lazy import compile_kept; "
        "bad = [n for n, r in _lazies() "
        "if compile_kept(r.pattern, r._given) != re.compile(r.pattern, r._given)]; "
        "print('differ', len(bad), bad[:3])"
    )
    tests = str(Path(__file__).parent)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    run = [sys.executable, "-c", code, tests]
    procs = [subprocess.Popen(run, env=env, stdout=subprocess.PIPE, text=True) for _ in range(4)]
    procs[0].kill()  # wherever it was: before, during or after a write
    outs = [p.communicate()[0] for p in procs]
    assert outs[1:] == ["differ 0 []\n"] * 3
    kept = tmp_path / "uac" / "regex"
    entries = sorted(kept.glob("*.marshal"))
    # one per rule regex, and the module-level ones the extractor's import builds
    assert len(entries) >= len({(r.pattern, r._given) for _, r in _lazies()})
    for entry in entries:  # whole, and named by the key it carries
        key, _program = marshal.loads(entry.read_bytes())
        assert entry.name == f"{key[:32]}.marshal" and len(key) == len(hashlib.sha256().hexdigest())
    assert all(p.name.endswith(".part") for p in kept.iterdir() if p not in entries)
    later = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert later.stdout == "differ 0 []\n"
    assert sorted(kept.glob("*.marshal")) == entries  # built from the entries, none written
