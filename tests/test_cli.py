"""The `uac` command line, run in-process and as the installed console script."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from conftest import write

from tests.demo_tour import assert_tour, head
from uac.runtime.cli import build_parser, main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_facts_verify_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "ws")
    assert run(capsys, "--home", home, "init")[0] == 0
    trips = write(
        tmp_path / "trips.csv",
        "city,country,depart,cost\nParis,FR,2025-03-05,412.10\nRome,IT,2025-05-01,380\n",
    )
    code, out, _ = run(capsys, "--home", home, "import", "alice", "trips", str(trips))
    assert (
        code == 0
        and "imported 2 records into travel.trips (catalog collection) for user:alice" in out
    )
    code, out, _ = run(
        capsys, "--home", home, "set", "alice", "identity.passport.expiry_date", "2027-03-01"
    )
    assert code == 0 and 'identity.passport.expiry_date = "2027-03-01"' in out
    code, out, _ = run(capsys, "--home", home, "facts", "alice", "--json")
    facts = json.loads(out)
    assert [f["path"] for f in facts] == [
        "travel.trips",
        "travel.trips",
        "identity.passport.expiry_date",
    ]
    assert facts[0]["value"] == {
        "city": "Paris",
        "country": "FR",
        "depart": "2025-03-05",
        "cost": "412.10",
    }
    code, out, _ = run(capsys, "--home", home, "facts", "alice")
    header, first = out.splitlines()[0].split(), out.splitlines()[1].split()
    assert header[:5] == ["seq", "id", "status", "origin", "op"] and "FR|Paris|2025-03-05" in out
    assert first[2:4] == ["active", "manual"]  # CLI writes compile at once; imported by the user
    code, out, _ = run(capsys, "--home", home, "inputs", "alice")
    assert code == 0 and "trips.csv" in out
    code, out, _ = run(capsys, "--home", home, "subjects")
    # 3 facts; 1 input: the file (a `set` is its own fact row, with no inputs row)
    assert out.splitlines()[1].split()[:4] == ["user", "alice", "3", "1"]
    code, out, _ = run(
        capsys, "--home", home, "forget", "alice", facts[2]["id"], "--reason", "typo"
    )
    assert code == 0 and f"retracts {facts[2]['id']}" in out
    code, out, _ = run(capsys, "--home", home, "verify")
    assert code == 0 and out.strip() == (
        "ok: hash chain verified over 4 facts; keyed digests and anchors verified"
    )


@pytest.mark.duckdb_only(
    "edits the embedded file; a log in PostgreSQL is tampered with in test_log_backends.py"
)
def test_verify_names_a_fact_edited_in_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "ws")
    assert run(capsys, "--home", home, "init")[0] == 0
    run(capsys, "--home", home, "set", "alice", "identity.name", "Alice")
    run(capsys, "--home", home, "set", "alice", "places.location.city", "Paris")
    code, out, _ = run(capsys, "--home", home, "facts", "alice", "--json")
    facts = json.loads(out)
    con = duckdb.connect(str(tmp_path / "ws" / "uac.duckdb"))
    con.execute('UPDATE facts SET value = \'{"city":"Nice"}\' WHERE seq = 2')
    con.close()
    code, out, _ = run(capsys, "--home", home, "verify")
    assert code == 1 and out.startswith(
        f"BROKEN at seq 2 ({facts[1]['id']}): its content does not match"
    )


def test_tenant_option_isolates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "ws")
    run(capsys, "--home", home, "init")
    run(capsys, "--home", home, "--tenant", "acme", "set", "alice", "identity.name", "Alice A")
    code, out, _ = run(capsys, "--home", home, "facts", "alice")
    assert code == 0 and out.strip().startswith("no facts for alice;")
    code, out, _ = run(capsys, "--home", home, "--tenant", "acme", "facts", "alice", "--json")
    assert [f["value"] for f in json.loads(out)] == ["Alice A"]


def test_an_explicit_home_beats_a_server_named_in_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = str(tmp_path / "ws")
    run(capsys, "--home", home, "init")
    monkeypatch.setenv("UAC_URL", "http://127.0.0.1:1")  # nothing listens there
    monkeypatch.setenv("UAC_API_KEY", "uac_x_y")
    code, _, _ = run(capsys, "--home", home, "set", "lena", "identity.name", "Lena")
    assert code == 0  # written here, not sent to the server the environment names
    monkeypatch.delenv("UAC_URL")
    code, out, _ = run(capsys, "--home", home, "facts", "lena", "--json")
    assert [f["value"] for f in json.loads(out)] == ["Lena"]
    # Without --home, the environment's server is the one asked (and it is down).
    monkeypatch.setenv("UAC_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("UAC_HOME", home)
    code, _, err = run(capsys, "facts", "lena")
    assert code == 1 and "127.0.0.1:1" in err


def test_an_empty_tenant_is_refused_not_read_as_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "ws")
    run(capsys, "--home", home, "init")
    code, out, err = run(capsys, "--home", home, "--tenant", " ", "facts", "alice")
    assert code == 1 and out == "" and "--tenant needs a name" in err


def test_a_server_file_whose_pid_is_now_another_process_is_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "ws"
    run(capsys, "--home", str(home), "init")
    # A crashed server's file, its pid reused by a live process that is no uac server (this
    # test's own parent): the workspace is not locked, so nobody serves it.
    stale = {"url": "http://127.0.0.1:1", "pid": os.getppid(), "admin_token": "x", "version": "0"}
    (home / "server.json").write_text(json.dumps(stale))
    code, _, err = run(capsys, "--home", str(home), "set", "lena", "identity.name", "Lena")
    assert code == 0, err  # done here, not forwarded to the dead address


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["set", "robot:x", "identity.name", "X"], "unknown subject form 'robot:x'"),
        (
            ["set", "alice", "identity.passport.expiry_date", "soon"],
            "identity.passport.expiry_date: Input should be a valid date",
        ),
        (
            ["set", "alice", "identity.pasport.expiry_date", "2025-01-01"],
            "did you mean identity.passport.expiry_date",
        ),
        (["forget", "alice", "f_nothere"], "subject user:alice has no fact 'f_nothere'"),
    ],
)
def test_errors_are_one_line_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    home = str(tmp_path / "ws")
    run(capsys, "--home", home, "init")
    code, out, err = run(capsys, "--home", home, *argv)
    assert code == 1 and out == ""
    assert err.startswith("uac: error: ") and message in err and len(err.strip().splitlines()) == 1


def test_commands_on_a_missing_workspace_say_how_to_create_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "--home", str(tmp_path / "none"), "facts", "alice")
    assert code == 1 and "no uac workspace at" in err and "init" in err
    assert not (tmp_path / "none").exists()


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {
        "init",
        "set",
        "import",
        "facts",
        "inputs",
        "subjects",
        "forget",
        "verify",
        "demo",
    } <= set(commands)
    for name, sub in commands.items():
        assert sub.description, name
        with pytest.raises(SystemExit) as exit_info:
            main([name, "--help"])
        assert exit_info.value.code == 0
        assert "usage: uac" in capsys.readouterr().out


@pytest.mark.parametrize("columns", ["60", "132"])
def test_each_command_built_alone_helps_as_in_the_full_parser(
    columns: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A call builds only the parser of the command it names; its help is the full parser's
    # text, and the help formatter (which reads the terminal's width only to format) words
    # it as argparse's stock formatter does, at any width.
    monkeypatch.setenv("COLUMNS", columns)
    full = build_parser()
    commands: dict[str, argparse.ArgumentParser]
    commands = full._subparsers._group_actions[0].choices  # type: ignore[union-attr,assignment]
    printed: dict[str, str] = {}
    for name in ("", *commands):
        with pytest.raises(SystemExit) as exit_info:
            main([name, "--help"] if name else ["--help"])
        assert exit_info.value.code == 0
        printed[name] = capsys.readouterr().out
    assert len(commands) > 40
    assert all(f"\n    {name}" in printed[""] for name in commands)
    assert all(printed[n].startswith(f"usage: {sub.prog}") for n, sub in commands.items())
    for parser in (full, *commands.values()):
        parser.formatter_class = argparse.HelpFormatter
    assert printed[""] == full.format_help()
    assert [n for n, sub in commands.items() if printed[n] != sub.format_help()] == []


def test_demo_builds_refuses_to_overwrite_and_rebuilds_the_same_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fresh_log, backend: str
) -> None:
    # What a demo run shows, that a second run refuses to overwrite unless --fresh, and that
    # a rebuild on a log of its own ends at the same chain head (same inputs => byte-identical
    # log), on PostgreSQL. On DuckDB the golden test builds the demo (once per run: ~20 s of
    # CPU a build) and checks the same tour and refusal (tests/demo_tour.py), and compares its
    # generated files, which quote the log's fact ids (chain hashes) and seqs, byte for byte
    # with the committed ones: a rebuild there proves nothing more; --fresh's replacing of the
    # workspace directory is the same code on either backend.
    if backend != "postgres":
        pytest.skip("on DuckDB: tests/test_golden.py builds the demo and checks this")
    home = str(tmp_path / "demo")
    with fresh_log("a"):
        code, out, _ = run(capsys, "--home", home, "demo")
        assert code == 0
        first = head(home)
    assert_tour(out)
    with fresh_log("a"):
        code, _, err = run(capsys, "--home", home, "demo")
        assert code == 1 and "pass --fresh" in err
        assert head(home) == first  # the refusal touched nothing
    other = tmp_path / "other"  # a log that holds the demo already is refused, not doubled
    with fresh_log("a"):
        for args in (("--home", str(other), "demo"), ("--home", home, "demo", "--fresh")):
            code, _, err = run(capsys, *args)
            assert code == 1 and "already holds maya's history" in err
        assert not other.exists() and head(home) == first  # nothing left, nothing lost
    with fresh_log("b"):  # the rebuilt workspace binds a new, empty log
        code, out, err = run(capsys, "--home", home, "demo", "--fresh", "--json")
        assert code == 0, err
        assert first is not None and head(home) == first
    # The rebuild's --json output is one document (json.loads refuses a second one after it):
    # the check tests/test_cli_json.py makes of every command (the demo's on DuckDB: test_golden).
    assert json.loads(out)["tour"]


def test_demo_into_a_file_fails_clearly_and_leaves_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "notes.txt"
    mine.write_text("mine")
    code, _, err = run(capsys, "--home", str(mine), "demo")
    assert code == 1 and "cannot create workspace" in err
    assert mine.read_text() == "mine" and sorted(tmp_path.iterdir()) == [mine]


def test_console_script_entry_point(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "uac.runtime.cli", "--home", str(tmp_path / "x"), "subjects"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 1 and done.stderr.startswith("uac: error: no uac workspace")


def test_a_local_write_command_ends_with_its_output_whole_and_its_write_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A local verb's process ends without the interpreter's teardown once its workspace is
    # closed: what it printed all arrives, the write is in the log a later open reads and
    # verifies, and the DuckDB file was closed (checkpointed) first, so no write-ahead log
    # is left for the next open to replay.
    home = tmp_path / "ws"
    assert run(capsys, "--home", str(home), "init")[0] == 0
    cli = [sys.executable, "-m", "uac.runtime.cli", "--home", str(home)]
    said = "My sister Ana lives in Porto."
    for argv in (
        ["add", "alice", said, "--json"],
        ["set", "alice", "places.address.city", "Porto", "--json"],
    ):
        done = subprocess.run([*cli, *argv], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)  # the whole document, parsed
        assert not (home / "uac.duckdb.wal").exists()
    failed = subprocess.run(
        [*cli, "set", "alice", "no.such.path", "x"], capture_output=True, text=True, check=False
    )
    assert failed.returncode == 1 and failed.stderr.startswith("uac: error:")
    assert run(capsys, "--home", str(home), "verify")[0] == 0
    code, out, _ = run(capsys, "--home", str(home), "facts", "alice", "--json")
    facts = json.loads(out)
    assert code == 0 and {f["path"] for f in facts} >= {"contacts.contacts", "places.address.city"}


def test_member_promote_and_why_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "ws")
    assert run(capsys, "--home", home, "init")[0] == 0
    code, out, _ = run(capsys, "--home", home, "member", "add", "group:family", "alice")
    assert code == 0 and "alice joins group:family" in out
    run(capsys, "--home", home, "member", "add", "group:family", "bob", "--from", "2025-01-01")
    code, out, _ = run(capsys, "--home", home, "member", "list", "group:family")
    assert code == 0 and "alice" in out and "bob" in out and "2025-01-01" in out
    run(capsys, "--home", home, "set", "group:family", "places.address.city", "Lisbon")
    code, out, _ = run(capsys, "--home", home, "why", "bob", "user.address.city")
    assert code == 0 and "'Lisbon'" in out and "inherited from group:family" in out
    code, _, err = run(
        capsys, "--home", home, "set", "group:family", "identity.passport.number", "X1"
    )
    assert code == 1 and "may not be written to group:family" in err
    code, _, err = run(capsys, "--home", home, "member", "remove", "group:family", "carol")
    assert code == 1 and "'carol' is not a member of group:family" in err


def _cli_query(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """`uac query` as its own process, with the modules it imported listed on stderr."""
    cli = [sys.executable, "-X", "importtime", "-m", "uac.runtime.cli", "--home", str(home)]
    return subprocess.run(
        [*cli, "query", *argv, "--today", "2026-11-29"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )


def test_query_one_shot_path_and_fallback(tmp_path: Path) -> None:
    from uac import Memory

    home = tmp_path / "ws"
    trips = [{"city": "Paris", "country": "FR", "depart": "2025-03-05", "cost": "412.10"}]
    with Memory(home, create=True, react=False) as mem:
        mem.import_records("alice", "trips", trips)
        mem.import_records("bob", "trips", trips)
        mem.compile("alice")
    # Compiled and up to date: answered without Memory, the store (pyarrow) or pydantic.
    done = _cli_query(home, "alice", "len(user.trips)")
    assert done.returncode == 0 and done.stdout.strip() == "1", done.stderr[-500:]
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()}
    assert "uac.runtime.api.memory" not in imported and "pyarrow" not in imported
    assert "uac.runtime.sandbox" in imported  # the line format did not change under us
    # A write the checkpoint does not hold yet: the full verb compiles, then answers.
    with Memory(home, react=False) as mem:
        mem.import_records("alice", "trips", [{**trips[0], "city": "Lyon"}])
    done = _cli_query(home, "alice", "sorted(t.city for t in user.trips)")
    assert done.returncode == 0 and json.loads(done.stdout) == ["Lyon", "Paris"]
    assert "uac.runtime.api.memory" in done.stderr
    # Never compiled: compiled on the way; a refused program is one typed line.
    assert _cli_query(home, "bob", "len(user.trips)").stdout.strip() == "1"
    done = _cli_query(home, "alice", "user.__class__")
    assert done.returncode == 1 and "uac: error: not_allowed (line 1): " in done.stderr
