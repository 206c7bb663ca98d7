"""What a newcomer meets first: options anywhere, messages from stdin or files, --version,
readable errors that say what to do, and no stray files in the caller's directory."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import uac
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import NotFound
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("an error's wording alone: no log")


def test_global_options_go_before_or_after_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "ws")
    assert main(["init", "--home", home]) == 0
    assert main(["set", "alice", "identity.name", "Alice", "--home", home, "--tenant", "t1"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "--tenant", "t1", "facts", "alice", "--json"]) == 0
    assert '"Alice"' in capsys.readouterr().out
    assert main(["facts", "alice", "--home", home]) == 0  # tenant default: nothing there
    assert capsys.readouterr().out.startswith("no facts for alice;")


def test_messages_from_stdin_or_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = str(tmp_path / "ws")
    monkeypatch.setattr(sys, "stdin", io.StringIO("I'm allergic to penicillin"))
    assert main(["--home", home, "init"]) == 0
    assert main(["--home", home, "add", "alice", "-"]) == 0
    message = tmp_path / "m.txt"
    message.write_text("My passport expires on 2031-04-02", encoding="utf-8")
    assert main(["--home", home, "remember", "alice", "--file", str(message)]) == 0
    capsys.readouterr()
    assert main(["--home", home, "facts", "alice", "--json"]) == 0
    out = capsys.readouterr().out
    assert "penicillin" in out and "2031-04-02" in out
    assert main(["--home", home, "add", "alice", "x", "--file", str(message)]) == 1
    assert "not both" in capsys.readouterr().err
    assert main(["--home", home, "add", "alice"]) == 1
    assert "'-' to read stdin" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"uac {uac.__version__}"


@NO_LOG
def test_a_collection_named_as_an_attribute_says_how_to_write_it() -> None:
    catalog = Catalog.load(None)
    with pytest.raises(NotFound, match=r"travel\.trips is a collection.*uac import SUBJECT trips"):
        catalog.attribute("travel.trips")


def test_compiling_leaves_no_ruff_cache_in_the_callers_directory(tmp_path: Path) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    home = tmp_path / "ws"
    env = {**os.environ}
    env.pop("UAC_URL", None)
    for args in (["init"], ["set", "alice", "identity.name", "Alice"], ["compile", "alice"]):
        done = subprocess.run(
            [sys.executable, "-m", "uac.runtime.cli", "--home", str(home), *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    assert list(cwd.iterdir()) == []
