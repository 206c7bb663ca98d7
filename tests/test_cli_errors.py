"""Every `uac` command, run with bad inputs, fails in one shape: one line on stderr that
starts `uac: error:`, exit status 1, nothing on stdout, never a traceback.

The commands are enumerated from the parser (a new command is covered without editing
this file); each one's arguments are filled from its own parser actions with bad values
of their kind: an unknown or malformed subject, a missing file, a file of bad JSON, an
impossible date, a number that is not one, an id that does not exist.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import copy_log, new_database, rebind

from uac.runtime.cli import build_parser, main

pytestmark = pytest.mark.usefixtures("backend")

# Bad values by argument name (a name not listed gets "x"); the first is the one used while
# another argument is the bad one (a subject that exists, so the bad value is reached).
BAD: dict[str, list[str]] = {
    "subject": ["alice", "nobody", "user:", "group:no such", "robot:x"],
    "path": ["no.such.path"],
    "value": ["not a value"],
    "fact_id": ["f_nothere"],
    "item_id": ["i_nothere"],
    "alert_id": ["a_nothere"],
    "key_id": ["nothere"],
    "collection": ["trips"],
    "group": ["group:nothing", "alice"],
    "rule": ["{not json", '{"type": "nonsense"}', "[]"],
    "program": ["1 +", "open('/etc/passwd').read()", "user.nothing"],
    "expr": ["user.nothing", "user.trips[99]", "((("],
    "text": ["hello"],
    "user": ["nobody", "group:x"],
    "v1": ["7"],
    "v2": ["9"],
    "ids": ["99999", "-1", "x"],
}
# Files: `MISSING` and `BAD_JSON` are paths under the test's directory.
FILE_ARGS = {"file", "anchor"}

# Commands that serve or loop until stopped: only arguments refused before they start.
BLOCKING: dict[str, list[list[str]]] = {
    "serve": [["--host", "0.0.0.0"], ["--every", "never"], ["--cron", "* *"], ["--port", "x"]],
    "schedule": [["--every", "never"], ["--cron", "61 * * * *"], []],
    "mcp": [["user:"], ["robot:x"], ["group:no such"]],
    "worker": [["--lease", "0"], ["--until-idle"]],
    "demo": [[]],  # --home is a file or an existing workspace: refused
}


def _commands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(words of the command, its parser), nested commands (episode add) included."""

    def walk(prefix: str, parser: argparse.ArgumentParser) -> Iterator[tuple[str, Any]]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield prefix, parser
            return
        for name, sub in subs[0].choices.items():
            yield from walk(f"{prefix} {name}".strip(), sub)

    yield from walk("", build_parser())


COMMANDS = dict(_commands())


def _variants(name: str, parser: argparse.ArgumentParser, tmp: Path) -> list[list[str]]:
    """Argument lists of bad inputs for one command (after its words)."""
    if name.split()[0] in BLOCKING:
        return BLOCKING[name.split()[0]]
    missing, bad_json = str(tmp / "missing.jsonl"), str(tmp / "bad.jsonl")
    positionals = [a for a in parser._actions if not a.option_strings and a.dest != "help"]
    required = []
    for group in parser._mutually_exclusive_groups:
        if group.required:
            required += [group._group_actions[0]]
    required += [a for a in parser._actions if a.option_strings and a.required]

    def fill(action: argparse.Action, bad: str | None = None) -> list[str]:
        if action.nargs == 0:  # a flag
            return []
        if bad is not None:
            return [bad]
        if action.choices is not None:
            return [str(next(iter(action.choices)))]
        if action.type is not None and action.type.__name__ in ("_date_arg", "_day_arg"):
            return ["2030-01-01"]
        if action.dest in FILE_ARGS:
            return [missing]
        return [BAD.get(action.dest, ["x"])[0]]

    def base(**bad: str) -> list[str]:
        args: list[str] = []
        for action in positionals:
            args += fill(action, bad.get(action.dest))
        for action in required:
            args += [action.option_strings[0], *fill(action, bad.get(action.dest))]
        return args

    variants = [base()]
    for action in positionals:
        for choice in list(action.choices or ())[1:]:  # every action of `keys`, `member`
            variants.append(base(**{action.dest: str(choice)}))
        for value in BAD.get(action.dest, [])[1:]:
            variants.append(base(**{action.dest: value}))
        if action.dest in FILE_ARGS:
            variants.append(base(**{action.dest: bad_json}))
    for action in parser._actions:
        if not action.option_strings or action.nargs == 0 or action.dest == "help":
            continue
        kind = getattr(action.type, "__name__", "")
        flag = action.option_strings[-1]
        if kind in ("_date_arg", "_day_arg"):
            variants.append([*base(), flag, "2025-13-45"])
        elif kind in ("int", "float", "_positive_int", "_positive_seconds"):
            variants.append([*base(), flag, "many"])
        elif action.dest in FILE_ARGS:
            variants += [[*base(), flag, missing], [*base(), flag, bad_json]]
    return variants


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: usage errors (and --help)
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def _assert_shape(argv: list[str], code: int, out: str, err: str) -> None:
    said = f"uac {' '.join(argv)}\nexit {code}\nstdout: {out!r}\nstderr: {err!r}"
    assert "Traceback" not in out + err, said
    if code == 0:
        return
    assert code == 1, said
    assert out == "", said
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("uac: error: "), said
    assert "internal error" not in err, said  # a bug: the input deserved its own sentence


def _say(home: Path, *argv: str) -> str:
    """What a command that must succeed prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--home", str(home), *argv]) == 0, argv
    return out.getvalue()


def _build(home: Path) -> None:
    """The workspace every test starts from: made by `init`, with alice named."""
    for argv in (["init"], ["set", "alice", "identity.name", "Alice"]):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(["--home", str(home), *argv]) == 0, argv


@dataclass(frozen=True)
class Built:
    """The workspace built once for the module; on PostgreSQL, its log's URL and key file."""

    home: Path
    log: str | None = None
    key: Path | None = None


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, module_backend: str, request) -> Built:
    """The workspace built once for the module (0.22 s of CPU a build on DuckDB, more on
    PostgreSQL): each test gets a copy of its own (`_copy`). On PostgreSQL one copy is made
    here and checked: alice's whole log, bound, verified (a bad copy would fail every command
    in one line too, and pass the tests unseen)."""
    home = tmp_path_factory.mktemp("cli-errors") / "ws"
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("UAC_URL", raising=False)
        patch.delenv("UAC_API_KEY", raising=False)
        _build(home)
        if module_backend == "duckdb":
            return Built(home)
        built = Built(home, os.environ["UAC_DB"], Path(os.environ["UAC_CHAIN_KEY_FILE"]))
        cluster = request.getfixturevalue("pg_server")
        trial = tmp_path_factory.mktemp("cli-errors-copy") / "ws"
        patch.setenv("UAC_DB", new_database(cluster))
        patch.setenv("UAC_CHAIN_KEY_FILE", str(trial.parent / "chain.key"))
        _copy(built, trial, cluster)
        assert "Alice" in _say(trial, "facts", "alice") and _say(trial, "verify")
    return built


def _copy(built: Built, home: Path, cluster: Any) -> None:
    """A copy of the module's workspace at home; on PostgreSQL, bound to a copy of its log at
    UAC_DB (a new, empty log), signed with a copy of its key (UAC_CHAIN_KEY_FILE)."""
    shutil.copytree(built.home, home)
    if built.log is not None:
        assert built.key is not None and os.environ["UAC_DB"] != built.log
        copy_log(cluster, built.log, os.environ["UAC_DB"])
        shutil.copyfile(built.key, os.environ["UAC_CHAIN_KEY_FILE"])
        rebind(home, os.environ["UAC_DB"])


@pytest.fixture
def workspace(
    tmp_path: Path, built: Built, backend: str, monkeypatch: pytest.MonkeyPatch, request
) -> Path:
    monkeypatch.delenv("UAC_URL", raising=False)
    monkeypatch.delenv("UAC_API_KEY", raising=False)
    home = tmp_path / "ws"
    _copy(built, home, request.getfixturevalue("pg_server") if built.log else None)
    (tmp_path / "bad.jsonl").write_text('{"id": 1,\n{not json\n', encoding="utf-8")
    return home


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_bad_inputs_fail_in_one_line(
    name: str, workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words = name.split()
    homes = {
        "workspace": workspace,
        "a file": tmp_path / "bad.jsonl",  # --home names a file: a bad path
    }
    if words[0] not in ("init", "demo"):  # (those two create one)
        homes["no workspace"] = tmp_path / "none"
    reached = 0
    for variant in _variants(name, COMMANDS[name], tmp_path):
        for label, home in homes.items():
            if words[0] == "demo" and label == "no workspace":
                continue
            argv = ["--home", str(home), *words, *variant]
            code, out, err = _run(capsys, argv)
            _assert_shape(argv, code, out, err)
            reached += label == "workspace" and "--help)" not in err
        assert not (tmp_path / "none").exists(), "a failed command left a workspace behind"
    assert reached, f"no bad input reached {name}: each was refused by the argument parser"


def test_query_refusals_name_their_kind(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--home", str(workspace), "query", "alice", "1 +"]
    code, out, err = _run(capsys, argv)
    _assert_shape(argv, code, out, err)
    assert code == 1 and err.startswith("uac: error: syntax_error (line 1): "), err


def test_usage_errors_are_one_line_too(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        [],
        ["nonsense"],
        ["facts"],
        ["facts", "alice", "--bogus"],
        ["check", "alice", "--today", "2025-13-45"],
        ["--tenant", "", "facts", "alice"],
        ["manifest", "alice", "--jsonl"],
        ["facts", "alice", "--json", "--jsonl"],
        ["keys", "create", "--jsonl"],
    ):
        _assert_shape(argv, *_run(capsys, argv))
        assert _run(capsys, argv)[0] == 1, argv
