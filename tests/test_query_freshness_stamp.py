"""A one-shot `uac query` trusts a subject's freshness stamp (fact_log/freshness.py) instead of
opening DuckDB only when the stamp is genuine, names the current checkpoint and the log has
not been written since; anything else (a write, an edited, torn, copied or replayed stamp, a
missing key, a writer killed half-way, an erasure, a node's copy of a PostgreSQL log) takes
the look at the log again, and the answers are the full verb's.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from uac.compiler import loader
from uac.fact_log import freshness
from uac.fact_log.addressing import parse_subject
from uac.fact_log.chain_keys import KeyRing, key_path
from uac.fact_log.errors import WorkspaceError
from uac.runtime.cli import reads
from uac.runtime.cli.parser import build_parser
from uac.runtime.sandbox import shutdown

TODAY = dt.date(2026, 11, 29)
PROGRAM = "(len(user.trips), sum(t.cost for t in user.trips))"
ROOT = Path(__file__).resolve().parents[1]


def _trip(n: int) -> dict[str, str]:
    return {"city": f"City{n}", "country": "FR", "depart": f"2025-03-{n + 1:02d}", "cost": f"{n}.5"}


def _args(home: Path, subject: str = "alice", tenant: str = "default") -> Any:
    argv = ["query", "--home", str(home), "--tenant", tenant, subject, PROGRAM]
    args = build_parser("query").parse_args([*argv, "--today", TODAY.isoformat()])
    args.home_flag = True
    return args


def _without_elapsed(envelope: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in envelope.items() if k != "elapsed_ms"}


@pytest.fixture
def looks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every look the one-shot path takes at the log through DuckDB (the real look, counted);
    stamps are written at once (no quiet time asked of the log's files)."""
    seen: list[str] = []
    real = reads._current_in_log

    def counted(home: Path, addr: Any, *rest: Any) -> bool | None:
        seen.append(addr.subject)
        return real(home, addr, *rest)

    monkeypatch.setattr(reads, "_current_in_log", counted)
    monkeypatch.setattr(freshness, "QUIET_S", 0.0)
    return seen


def _workspace(tmp_path: Path) -> Iterator[Path]:
    from uac import Memory

    ws = tmp_path / "ws"
    with Memory(ws, create=True, react=False) as mem:
        for subject in ("alice", "bob"):
            mem.set(subject, "identity.name", subject.title())
            mem.import_records(subject, "trips", [_trip(1), _trip(2)])
            mem.compile(subject)
    yield ws
    shutdown()


@pytest.fixture
def shared(tmp_path: Path, backend: str) -> Iterator[Path]:
    """alice and bob compiled, on either backend."""
    yield from _workspace(tmp_path)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """alice and bob compiled, in a workspace whose file is its log (the stamped kind)."""
    yield from _workspace(tmp_path)


def _expected(home: Path, subject: str = "alice") -> dict[str, Any]:
    from uac import Memory

    with Memory(home, read_only=True) as mem:
        return _without_elapsed(mem.query(subject, PROGRAM, today=TODAY))


def _write(home: Path, change: Callable[[Any], Any]) -> None:
    from uac import Memory

    with Memory(home, react=False) as mem:
        change(mem)


def _stamp(home: Path, subject: str = "alice", tenant: str = "default") -> Path:
    return freshness.stamp_path(home, parse_subject(subject, tenant))


def _holds(home: Path, subject: str = "alice", tenant: str = "default") -> bool:
    addr = parse_subject(subject, tenant)
    version, directory = loader.version_dir(home, addr)
    return freshness.holds(home, addr, version, directory, KeyRing.load(home))


def test_stamp_spares_the_look_and_answers_as_the_full_verb(
    shared: Path, looks: list[str], backend: str
) -> None:
    home = shared
    expected = _expected(home)
    first = reads._query_here(_args(home), PROGRAM)
    second = reads._query_here(_args(home), PROGRAM)
    assert first is not None and second is not None
    assert _without_elapsed(first) == _without_elapsed(second) == expected
    assert json.dumps(second["result"]) == json.dumps(expected["result"])
    if backend == "duckdb":
        assert looks == ["alice"] and _holds(home)  # the second answered from the stamp
    else:  # a node's copy of a shared log: never stamped, every query looks
        assert looks == ["alice", "alice"] and not _stamp(home).parent.exists()


@pytest.mark.usefixtures("looks")
def test_a_write_since_the_stamp_takes_the_look_and_the_full_verb(home: Path) -> None:
    assert reads._query_here(_args(home), PROGRAM) is not None
    _write(home, lambda mem: mem.import_records("alice", "trips", [_trip(3)]))
    assert not _holds(home)
    assert reads._query_here(_args(home), PROGRAM) is None  # not compiled: the full verb's turn
    _write(home, lambda mem: mem.compile("alice"))
    answer = reads._query_here(_args(home), PROGRAM)
    assert answer is not None and answer["result"] == [3, "7.5"]
    assert _without_elapsed(answer) == _expected(home)


@pytest.mark.usefixtures("looks")
def test_a_write_to_another_subject_makes_the_stamp_stale_too(home: Path) -> None:
    reads._query_here(_args(home), PROGRAM)
    assert _holds(home)
    _write(home, lambda mem: mem.set("bob", "identity.name", "Robert"))
    assert not _holds(home)


@pytest.mark.parametrize(
    "forge",
    [
        lambda raw: {**raw, "version": raw["version"] + 1},
        lambda raw: {**raw, "files": "0" * 64},
        lambda raw: {**raw, "mac": raw["mac"][:-1] + ("0" if raw["mac"][-1] != "0" else "1")},
        lambda raw: {**raw, "mac": "k9:" + raw["mac"].partition(":")[2]},
        lambda raw: {k: v for k, v in raw.items() if k != "mac"},
        lambda raw: [raw],
    ],
    ids=["version", "files", "mac", "key-id", "no-mac", "shape"],
)
def test_an_edited_stamp_is_not_trusted(home: Path, looks: list[str], forge: Callable) -> None:
    reads._query_here(_args(home), PROGRAM)
    path = _stamp(home)
    path.write_text(json.dumps(forge(json.loads(path.read_text()))))
    assert not _holds(home)
    answer = reads._query_here(_args(home), PROGRAM)
    assert looks == ["alice", "alice"]  # the log was asked again
    assert answer is not None and _without_elapsed(answer) == _expected(home)


@pytest.mark.usefixtures("looks")
def test_a_torn_or_temporary_stamp_is_not_trusted(home: Path) -> None:
    reads._query_here(_args(home), PROGRAM)
    path = _stamp(home)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    assert not _holds(home)
    # A writer killed before its rename leaves only a temporary file, which is never read.
    path.unlink()
    path.with_name(f".{path.name}.dead").write_bytes(whole)
    assert not _holds(home)


@pytest.mark.usefixtures("looks")
def test_a_stamp_copied_from_another_subject_or_tenant_is_not_trusted(home: Path) -> None:
    from uac import Memory

    with Memory(home, tenant="acme", react=False) as mem:
        mem.set("alice", "identity.name", "Other Alice")
        mem.import_records("alice", "trips", [_trip(1), _trip(2)])
        mem.compile("alice")
    for subject, tenant in (("alice", "default"), ("bob", "default"), ("alice", "acme")):
        assert reads._query_here(_args(home, subject, tenant), PROGRAM) is not None
        assert _holds(home, subject, tenant)
    alice = _stamp(home).read_bytes()
    for subject, tenant in (("bob", "default"), ("alice", "acme")):
        _stamp(home, subject, tenant).write_bytes(alice)
        assert not _holds(home, subject, tenant)


@pytest.mark.usefixtures("looks")
def test_without_the_key_no_stamp_is_trusted_or_written(home: Path) -> None:
    reads._query_here(_args(home), PROGRAM)
    assert _holds(home)
    key = key_path(home)
    key.rename(key.with_name("elsewhere"))
    try:
        assert not _holds(home)
        _stamp(home).unlink()
        with pytest.raises(WorkspaceError, match="chain key file"):  # refused, as before
            reads._query_here(_args(home), PROGRAM)
        assert not _stamp(home).exists()
    finally:
        key.with_name("elsewhere").rename(key)


@pytest.mark.usefixtures("looks")
def test_an_old_stamp_put_back_with_a_rolled_back_pointer_is_not_trusted(home: Path) -> None:
    reads._query_here(_args(home), PROGRAM)
    addr = parse_subject("alice", "default")
    old_pointer = (loader.subject_dir(home, addr) / "current").read_text()
    old_stamp = _stamp(home).read_bytes()
    _write(home, lambda mem: mem.import_records("alice", "trips", [_trip(3)]))
    _write(home, lambda mem: mem.compile("alice"))
    assert reads._query_here(_args(home), PROGRAM) is not None and _holds(home)
    # Both files as they were: the log's change time moved on, so the stamp is stale.
    (loader.subject_dir(home, addr) / "current").write_text(old_pointer)
    _stamp(home).write_bytes(old_stamp)
    assert not _holds(home)
    assert reads._query_here(_args(home), PROGRAM) is None  # the full verb refuses the rollback


@pytest.mark.usefixtures("looks")
def test_a_writer_killed_after_its_commit_leaves_the_stamp_stale(home: Path) -> None:
    reads._query_here(_args(home), PROGRAM)
    assert _holds(home)
    killed = (
        "import os, sys\nfrom uac import Memory\n"
        "mem = Memory(sys.argv[1], react=False)\n"
        "mem.import_records('alice', 'trips', [{'city': 'X', 'country': 'FR',"
        " 'depart': '2025-04-01', 'cost': '1'}])\n"
        "os._exit(9)\n"
    )
    done = subprocess.run([sys.executable, "-c", killed, str(home)], cwd=ROOT)
    assert done.returncode == 9
    assert not _holds(home)
    assert reads._query_here(_args(home), PROGRAM) is None  # a fact the checkpoint lacks


@pytest.mark.usefixtures("looks")
def test_an_erasure_drops_the_stamps(home: Path) -> None:
    reads._query_here(_args(home), PROGRAM)
    reads._query_here(_args(home, "bob"), PROGRAM)
    assert _holds(home) and _holds(home, "bob")
    _write(home, lambda mem: mem.erase("bob", all=True, reason="asked to"))
    assert not _stamp(home).exists() and not _stamp(home, "bob").exists()
    answer = reads._query_here(_args(home), PROGRAM)
    assert answer is not None and _without_elapsed(answer) == _expected(home)


def test_only_a_quiet_log_is_stamped(tmp_path: Path) -> None:
    from uac import Memory

    ws = tmp_path / "ws"
    with Memory(ws, create=True, react=False) as mem:
        mem.import_records("alice", "trips", [_trip(1)])
        mem.compile("alice")
    addr = parse_subject("alice", "default")
    version, directory = loader.version_dir(ws, addr)
    state, ring = freshness.log_state(ws), KeyRing.load(ws)
    changed = max(max(part[3], part[4]) for part in state if part is not None)
    quiet_ns = int(freshness.QUIET_S * 1e9)
    # Within the quiet time of the log's last change: a write in the same clock tick might
    # leave its times as they were, so nothing is stamped.
    assert not freshness.record(ws, addr, version, directory, state, ring, changed + quiet_ns - 1)
    assert not freshness.holds(ws, addr, version, directory, ring)
    assert freshness.record(ws, addr, version, directory, state, ring, changed + quiet_ns)
    assert freshness.holds(ws, addr, version, directory, ring)


def _cli_query(home: Path) -> tuple[int, dict[str, Any] | None, bool]:
    """`uac query --json` as its own process: its status, envelope, and whether it opened DuckDB."""
    cli = [sys.executable, "-X", "importtime", "-m", "uac.runtime.cli", "--home", str(home)]
    done = subprocess.run(
        [*cli, "query", "--json", "alice", "len(user.trips)", "--today", TODAY.isoformat()],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()}
    assert "uac.runtime.cli" in imported  # the importtime format did not change under us
    envelope = json.loads(done.stdout) if done.stdout.startswith("{") else None
    return done.returncode, envelope, "_duckdb" in imported or "duckdb" in imported


@pytest.mark.usefixtures("backend")
def test_many_writers_and_readers_never_see_a_state_older_than_the_last_write(
    tmp_path: Path,
) -> None:
    """A writer process adds a trip and compiles, again and again; reader processes query
    all the while. Each answer counts at least the trips written before the query began
    (never a stamp outliving a write), at most those written when it ended. Half-way the
    writer waits until a reader was answered from a stamp, then writes on."""
    from uac import Memory

    ws = tmp_path / "ws"
    with Memory(ws, create=True, react=False) as mem:
        mem.import_records("alice", "trips", [_trip(0)])
        mem.compile("alice")
    written = tmp_path / "written"
    written.write_text("1")
    rounds = 6
    # Each round opens the workspace anew (an embedded file has one process at a time: the
    # writer waits its turn while a reader looks), writes, marks, compiles, closes.
    writer = (
        "import sys, time\nfrom pathlib import Path\nfrom uac import Memory\n"
        "from uac.fact_log.errors import WorkspaceInUse\n"
        "home, mark, rounds = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])\n"
        "for n in range(1, rounds + 1):\n"
        "    while True:\n"
        "        try:\n"
        "            mem = Memory(home, react=False)\n"
        "            break\n"
        "        except WorkspaceInUse:\n"
        "            time.sleep(0.02)\n"
        "    with mem:\n"
        "        mem.import_records('alice', 'trips', [{'city': f'C{n}', 'country': 'FR',"
        " 'depart': '2025-05-01', 'cost': '1'}])\n"
        "        mark.write_text(str(n + 1))\n"
        "        mem.compile('alice')\n"
        "    if n == rounds // 2:  # go on once a reader was answered from a stamp\n"
        "        while not (mark.parent / 'lean').exists():\n"
        "            time.sleep(0.02)\n"
    )
    answers: list[tuple[int, int, int]] = []  # (written before, answer, written after)
    refused: list[int] = []
    served_lean: list[bool] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            before = int(written.read_text())
            status, envelope, opened = _cli_query(ws)
            after = int(written.read_text())
            if status == 0 and envelope is not None and envelope["ok"]:
                answers.append((before, envelope["result"], after))
                served_lean.append(not opened)
                if not opened or os.environ.get("UAC_DB"):  # PostgreSQL: never stamped
                    (tmp_path / "lean").touch()
            else:  # the workspace was held by the writer: the full verb says so
                refused.append(status)

    readers = [threading.Thread(target=read) for _ in range(2)]
    for t in readers:
        t.start()
    try:
        run = subprocess.run(
            [sys.executable, "-c", writer, str(ws), str(written), str(rounds)], cwd=ROOT
        )
    finally:
        done.set()
        for t in readers:
            t.join()
    assert run.returncode == 0
    assert answers, refused
    for before, answer, after in answers:
        assert before <= answer <= after, (before, answer, after)
    # Writes followed answers from a stamp: the rounds after it were read correctly too.
    assert any(served_lean) == (os.environ.get("UAC_DB") is None)
    # The log quiet again: a look stamps, and the stamp then answers without DuckDB.
    freshness_wait = os.environ.get("UAC_DB") is None
    final = []
    for _ in range(40 if freshness_wait else 2):
        status, envelope, opened = _cli_query(ws)
        assert status == 0 and envelope is not None and envelope["result"] == rounds + 1
        final.append(opened)
        if freshness_wait and not opened:
            break
    assert (not final[-1]) == freshness_wait  # PostgreSQL: never stamped, always looks


@pytest.mark.usefixtures("looks")
def test_a_copied_workspace_does_not_trust_the_stamps_it_was_copied_with(
    home: Path, tmp_path: Path
) -> None:
    import shutil

    reads._query_here(_args(home), PROGRAM)
    assert _holds(home)
    copy = tmp_path / "copy"
    shutil.copytree(home, copy, symlinks=True)
    assert _stamp(copy).read_bytes() == _stamp(home).read_bytes()
    assert not _holds(copy)  # another file (inode): the log there was never looked at
    answer = reads._query_here(_args(copy), PROGRAM)
    assert answer is not None and _holds(copy)
