"""The package's data files parsed once per machine (fact_log/parsed_data.py): the same
values as parsing them, kept only for shipped files, whole under concurrent writers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from uac.fact_log import parsed_data
from uac.fact_log.parsed_data import load_jsonl, load_toml

PACKAGE = Path(parsed_data.__file__).resolve().parents[1]
SHIPPED_TOML = sorted(
    [
        *PACKAGE.glob("fact_log/*.toml"),
        *PACKAGE.glob("fact_log/**/data/*.toml"),
        PACKAGE / "fact_log/extraction/policy.toml",
    ]
)
EXAMPLES = PACKAGE / "fact_log/frame_examples.jsonl"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "uac"


def _plain_jsonl(path: Path) -> list[object]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_every_shipped_file_loads_as_parsed_cold_and_from_the_cache(cache: Path) -> None:
    assert len(SHIPPED_TOML) >= 10
    for path in SHIPPED_TOML:
        want = tomllib.loads(path.read_text(encoding="utf-8"))
        cold = load_toml(path)
        warm = load_toml(path)
        # equal, in the same order (dicts keep the file's order), and a fresh copy each time
        assert cold == want and warm == want, path
        assert json.dumps(warm) == json.dumps(want), path
        assert warm is not load_toml(path)
    want_rows = _plain_jsonl(EXAMPLES)
    assert load_jsonl(EXAMPLES) == want_rows and load_jsonl(EXAMPLES) == want_rows
    kept = sorted(p.name.split("-")[0] for p in cache.iterdir())
    assert kept.count("toml") == len(SHIPPED_TOML) and kept.count("jsonl") == 1


def test_a_kept_value_is_what_a_later_process_reads(cache: Path) -> None:
    path = PACKAGE / "fact_log/catalog.toml"
    load_toml(path)
    (entry,) = cache.glob("toml-catalog-*.marshal")
    # a later process reads the entry, not the file: a planted entry under the file's key
    # with another value shows it (the key is checked, the value is not parsed again)
    import marshal

    key, value = marshal.loads(entry.read_bytes())
    entry.write_bytes(marshal.dumps((key, {"planted": True})))
    code = (
        "import json, pathlib; from uac.fact_log.parsed_data import load_toml; "
        f"print(json.dumps(load_toml(pathlib.Path({str(path)!r}))))"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache.parent)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert json.loads(out.stdout) == {"planted": True}
    # an entry carrying another key, a torn entry or garbage is parsed again and replaced
    for broken in (marshal.dumps(("another key", {"planted": True})), entry.read_bytes()[:9], b"x"):
        entry.write_bytes(broken)
        assert load_toml(path) == value
        assert marshal.loads(entry.read_bytes()) == (key, value)


def test_a_file_outside_the_package_is_parsed_and_never_kept(cache: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('[domain]\nname = "x"\n', encoding="utf-8")
    assert load_toml(mine) == {"domain": {"name": "x"}}
    mine.write_text('[domain]\nname = "y"\n', encoding="utf-8")
    assert load_toml(mine) == {"domain": {"name": "y"}}
    assert not cache.exists()
    bad = tmp_path / "bad.toml"
    bad.write_text("= nothing", encoding="utf-8")
    with pytest.raises(tomllib.TOMLDecodeError):
        load_toml(bad)
    with pytest.raises(FileNotFoundError):
        load_toml(tmp_path / "absent.toml")


def test_an_unwritable_cache_still_gives_the_parsed_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("", encoding="utf-8")  # the cache root is a file: nothing can be made
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    path = PACKAGE / "fact_log/frames.toml"
    assert load_toml(path) == tomllib.loads(path.read_text(encoding="utf-8"))


def test_processes_filling_the_cache_at_once_one_killed_leave_only_whole_entries(
    cache: Path,
) -> None:
    code = (
        "import pathlib, sys; from uac.fact_log import parsed_data as p; "
        "root = pathlib.Path(p.__file__).resolve().parents[1]; "
        "[p.load_toml(f) for f in sorted(root.glob('fact_log/**/data/*.toml'))]; "
        "p.load_jsonl(root / 'fact_log/frame_examples.jsonl'); print('done')"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache.parent)}
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    procs[0].kill()  # wherever it was: before, during or after a write
    outs = [p.communicate()[0] for p in procs]
    assert outs[1:] == ["done\n"] * 3
    # every entry there is whole and loads as the file parses; a killed writer's part file
    # at most is left, never read
    import marshal

    entries = sorted(cache.glob("*.marshal"))
    assert len(entries) == len(list(PACKAGE.glob("fact_log/**/data/*.toml"))) + 1
    for entry in entries:
        marshal.loads(entry.read_bytes())
    assert all(p.name.endswith(".part") for p in cache.iterdir() if p not in entries)
    assert load_jsonl(EXAMPLES) == _plain_jsonl(EXAMPLES)
