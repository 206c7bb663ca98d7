"""Rows kept from an earlier look at the log (fact_log/read_cache.py) answer a local read
exactly as the log does, and only while the log is unchanged.

Each lean read asked twice over a quiet log: the second answer comes without opening the
log and equals the verb's on a read-only `Memory`. After a write, an erasure, an entry
edited, made without the key or moved to another subject's or tenant's statement, or a log
that changes while a look is half served, the answer is the log's again (and the verb's).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from test_lean_reads import _outcome, _verb

from uac import Memory
from uac.fact_log import freshness
from uac.fact_log.chain_keys import KeyRing
from uac.fact_log.read_cache import ROWS, CachedLog, Changed
from uac.runtime.api import lean_reads, verbs

pytestmark = [
    pytest.mark.usefixtures("backend"),
    pytest.mark.duckdb_only(
        "the rows kept are the embedded file's; a PostgreSQL-bound workspace takes the verb"
    ),
]

T0 = dt.datetime(2026, 3, 1, 9, 0)
TODAY = dt.date(2026, 3, 2)
CALLS: list[tuple[str, str | None, dict[str, Any]]] = [
    ("facts", "alice", {}),
    ("facts", "alice", {"path": "identity.passport.expiry_date"}),
    ("facts", "group:family", {}),
    ("inputs", "alice", {}),
    ("rejections", "alice", {}),
    ("subjects", None, {}),
    ("erasures", None, {}),
    ("alerts", "alice", {"include_resolved": True, "today": TODAY}),
    ("questions", None, {}),
    ("manifest", "alice", {}),
    ("why", "alice", {"expr": "user.passport.expiry_date"}),
    ("diff", "alice", {}),
    ("context", "alice", {"today": TODAY}),
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Facts of several kinds (dates, decimals, evidence), an alert, two checkpoints, a
    group, and a second tenant."""
    home = tmp_path_factory.mktemp("cache") / "ws"
    with Memory(home, create=True) as mem:
        mem.set("alice", "identity.passport.expiry_date", "2026-04-01", now=T0)
        mem.add("alice", "I paid 12.50 EUR for lunch today.", now=T0 + dt.timedelta(hours=1))
        mem.remember("alice", "My passport renewal appointment is at the consulate", now=T0)
        rule = {"type": "reminder", "path": "passport.expiry_date", "days_before": 60}
        mem.add_rule("alice", rule, now=T0)
        mem.member_add("group:family", "alice", now=T0)
        mem.set("group:family", "identity.name", "The Liddells", now=T0)
        mem.set("alice", "identity.passport.expiry_date", "2026-04-02", now=T0)
    with Memory(home, "other") as mem:
        mem.set("carol", "identity.name", "Carol", now=T0)
    return home


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every time a lean read opens the log (the cache could not answer), and a log that
    counts as quiet at once (a test's writes are seconds old)."""
    calls: list[Path] = []
    connect = lean_reads._connect

    def counted(db: Path) -> Any:
        calls.append(db)
        return connect(db)

    monkeypatch.setattr(lean_reads, "_connect", counted)
    monkeypatch.setattr(freshness, "QUIET_S", 0.0)
    return calls


def _copy(workspace: Path, tmp_path: Path) -> Path:
    home = tmp_path / "ws"
    shutil.copytree(workspace, home)
    shutil.rmtree(home / ROWS, ignore_errors=True)
    return home


def _lean(home: Path, verb: str, subject: str | None, params: dict[str, Any], tenant: str) -> str:
    answer = lean_reads.answer(home, tenant, verb, subject, params)
    assert answer is not None, (verb, subject, params)
    return json.dumps(answer, sort_keys=True)


@pytest.mark.parametrize("tenant", ["default", "other"])
def test_kept_rows_answer_as_the_log_and_the_verb(
    workspace: Path, tmp_path: Path, opened: list[Path], tenant: str
) -> None:
    home = _copy(workspace, tmp_path)
    asked = 0
    for verb, subject, params in CALLS:
        if tenant == "other" and subject == "alice":
            subject = "carol"  # the other tenant's user
        args = (home, verb, subject, params, tenant)
        opened.clear()
        first = _outcome(lean_reads.answer, home, tenant, verb, subject, params)
        asked += len(opened)  # 0 when an earlier call kept every statement it runs
        second = _outcome(lean_reads.answer, home, tenant, verb, subject, params)
        assert len(opened) <= 1, verb  # the second never opens the log
        assert first == second == _outcome(_verb, *args), verb
        assert first[1] != "null", verb  # answered, not left to the verb
    assert asked >= 3  # the first calls asked the log and kept its rows
    assert any((home / ROWS).iterdir())


def test_verify_reads_the_log_every_time_and_reports_a_tampered_one(
    workspace: Path, tmp_path: Path, opened: list[Path]
) -> None:
    import duckdb

    home = _copy(workspace, tmp_path)
    first = _lean(home, "verify", None, {}, "default")
    assert _lean(home, "verify", None, {}, "default") == first and len(opened) == 2
    assert json.loads(first)["ok"] is True
    con = duckdb.connect(str(home / lean_reads.DB_FILE))  # out of band, as an attacker would
    con.execute("UPDATE facts SET value = '\"2099-01-01\"' WHERE seq = 1")
    con.close()
    tampered = _lean(home, "verify", None, {}, "default")
    assert len(opened) == 3 and json.loads(tampered)["ok"] is False
    assert tampered == json.dumps(_verb(home, "verify", None, {}, "default"), sort_keys=True)


def test_a_write_makes_every_kept_row_stale(
    workspace: Path, tmp_path: Path, opened: list[Path]
) -> None:
    home = _copy(workspace, tmp_path)
    before = _lean(home, "facts", "alice", {}, "default")
    _lean(home, "facts", "alice", {}, "default")
    assert len(opened) == 1
    with Memory(home) as mem:
        mem.set("alice", "identity.name", "Alice Liddell", now=T0)
    after = _lean(home, "facts", "alice", {}, "default")
    assert len(opened) == 2 and after != before and "Alice Liddell" in after
    assert after == json.dumps(_verb(home, "facts", "alice", {}, "default"), sort_keys=True)


def test_rows_are_kept_only_from_a_quiet_log(workspace: Path, tmp_path: Path) -> None:
    home = _copy(workspace, tmp_path)
    with Memory(home) as mem:  # a write just now: the log is not quiet yet
        mem.set("alice", "identity.name", "Alice Liddell", now=T0)
    assert freshness.QUIET_S > 0
    lean_reads.answer(home, "default", "facts", "alice", {})
    assert not (home / ROWS).exists() or not any((home / ROWS).iterdir())


def _entries(home: Path) -> list[Path]:
    return sorted((home / ROWS).iterdir())


def test_an_edited_or_unsigned_entry_is_not_served(
    workspace: Path, tmp_path: Path, opened: list[Path]
) -> None:
    home = _copy(workspace, tmp_path)
    truth = _lean(home, "facts", "alice", {}, "default")
    entries = _entries(home)
    assert entries
    for entry in entries:  # another value in the rows, the MAC kept
        entry.write_bytes(entry.read_bytes().replace(b"2026-04-02", b"2099-01-01"))
    assert _lean(home, "facts", "alice", {}, "default") == truth
    assert len(opened) == 2  # the log answered
    ring = KeyRing(home / "k", "k1", {"k1": b"x" * 32})  # signed with another key
    for entry in _entries(home):
        _, _, body = entry.read_bytes().partition(b"\n")
        forged = body.replace(b"2026-04-02", b"2099-01-01")
        entry.write_bytes(ring.sign(b"rows:" + forged).encode() + b"\n" + forged)
    assert _lean(home, "facts", "alice", {}, "default") == truth
    assert len(opened) == 3


def test_an_entry_moved_to_another_tenants_statement_is_not_served(
    workspace: Path, tmp_path: Path, opened: list[Path]
) -> None:
    home = _copy(workspace, tmp_path)
    _lean(home, "facts", "alice", {}, "default")
    alice = {p.name: p.read_bytes() for p in _entries(home)}
    carol = _lean(home, "facts", "carol", {}, "other")
    for path in _entries(home):
        if path.name not in alice:  # carol's statements get alice's signed rows
            path.write_bytes(max(alice.values(), key=len))
    opened.clear()
    assert _lean(home, "facts", "carol", {}, "other") == carol
    assert opened  # the log answered: the entry names alice's statement


def test_a_log_changed_while_half_served_is_read_again_whole(
    workspace: Path, tmp_path: Path, opened: list[Path]
) -> None:
    home = _copy(workspace, tmp_path)
    ring = KeyRing.load(home)
    look = CachedLog(home, ring, lambda: lean_reads._connect(home / lean_reads.DB_FILE))
    look.execute("SELECT count(*) FROM facts").fetchall()
    look.close()
    look = CachedLog(home, ring, lambda: lean_reads._connect(home / lean_reads.DB_FILE))
    assert look.execute("SELECT count(*) FROM facts").fetchall() and look.served == 1
    db = home / lean_reads.DB_FILE
    os.utime(db, ns=(db.stat().st_atime_ns, db.stat().st_mtime_ns + 1))  # the file changed
    with pytest.raises(Changed):
        look.execute("SELECT count(*) FROM inputs")
    look.close()


def test_an_erasure_deletes_every_kept_row(
    workspace: Path, tmp_path: Path, opened: list[Path]
) -> None:
    home = _copy(workspace, tmp_path)
    _lean(home, "facts", "alice", {}, "default")
    assert _entries(home)
    with Memory(home) as mem:
        fact = mem.set("alice", "identity.nationality", "GB", now=T0)
        mem.erase("alice", [fact.id], reason="asked to", now=T0)
    assert _entries(home) == []


def test_cells_keep_their_types() -> None:
    from uac.fact_log import read_cache

    rows = [
        (
            1,
            "a",
            1.5,
            True,
            dt.datetime(2026, 3, 1, 9, 0, 1, 5),
            dt.date(2026, 3, 1),
            Decimal("1.10"),
        ),
        (None, None, float("nan"), None, None, None, None),
    ]
    names = ["i", "s", "f", "b", "t", "d", "m"]
    kinds = read_cache._kinds(names, rows)
    assert kinds == [None, None, None, None, "datetime", "date", "decimal"]
    assert read_cache._kinds(["x"], [([1, 2],)]) is None  # a list cell: never kept
    aware = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    assert read_cache._kinds(["x"], [(aware,)]) is None  # only the log's naive times


_PROBE = """
import contextlib, io, sys
from uac.fact_log import freshness
from uac.runtime.cli import main

freshness.QUIET_S = 0.0
for _ in range(int(sys.argv[2])):
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--home", sys.argv[1], *sys.argv[3:]]) == 0
print(sorted(m for m in ("_duckdb", "duckdb", "uac.fact_log.duck") if m in sys.modules))
"""


@pytest.mark.parametrize(
    "argv",
    [
        ("facts", "alice"),
        ("why", "alice", "user.passport.expiry_date"),
        ("diff", "alice"),
        ("context", "alice", "--today", "2026-03-02"),
    ],
)
def test_a_read_the_cache_answers_never_loads_duckdb(
    workspace: Path, tmp_path: Path, argv: tuple[str, ...]
) -> None:
    home = _copy(workspace, tmp_path)

    def engine(times: int) -> str:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(_PROBE), str(home), str(times), *argv],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    assert engine(1) == "['_duckdb', 'uac.fact_log.duck']"  # the first asks the log
    assert engine(1) == "[]"  # the next is answered from its rows


def test_the_kept_rows_are_bounded_in_size_and_number(
    workspace: Path, tmp_path: Path, opened: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from uac.fact_log import read_cache

    home = _copy(workspace, tmp_path)
    monkeypatch.setattr(read_cache, "MAX_BYTES", 1500)  # the small statements only
    truth = _lean(home, "facts", "alice", {}, "default")
    kept = _entries(home)
    assert kept and all(p.stat().st_size < 1600 for p in kept)  # not the facts
    assert _lean(home, "facts", "alice", {}, "default") == truth and len(opened) == 2
    monkeypatch.setattr(read_cache, "MAX_BYTES", 4 << 20)
    monkeypatch.setattr(read_cache, "MAX_ENTRIES", 4)
    for path in ("identity.passport.expiry_date", "identity.name", "a.b", "c.d", "e.f", "g.h"):
        _lean(home, "facts", "alice", {"path": path}, "default")
        assert len(_entries(home)) <= 4


# A reader process: answers `facts alice` again and again from a log that counts as quiet at
# once, and prints, per answer, the facts written before it began, the facts it holds, the
# facts written when it ended, and whether the log was opened (else kept rows answered).
_READER = """
import sys, time
from pathlib import Path
from uac.fact_log import freshness
from uac.fact_log.errors import WorkspaceInUse
from uac.runtime.api import lean_reads

home, marks, stop = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
freshness.QUIET_S = 0.0
opened = []
connect = lean_reads._connect
lean_reads._connect = lambda db: opened.append(db) or connect(db)
while not stop.exists():
    before = int((marks / "committed").read_text())
    opened.clear()
    try:
        answer = lean_reads.answer(home, "default", "facts", "alice", {})
    except WorkspaceInUse:  # the writer holds the file: the full verb would say so
        time.sleep(0.01)
        continue
    after = int((marks / "begun").read_text())
    print(before, len(answer), after, int(bool(opened)), flush=True)
"""

_WRITER = """
import os, sys, time
from pathlib import Path
from uac import Memory
from uac.fact_log.errors import WorkspaceInUse

home, marks, rounds = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])

def mark(name, n):  # whole or not at all: a reader never reads it half written
    (marks / ".tmp").write_text(str(n))
    os.replace(marks / ".tmp", marks / name)

for n in range(1, rounds + 1):
    while True:
        try:
            mem = Memory(home, react=False)
            break
        except WorkspaceInUse:
            time.sleep(0.02)
    with mem:
        mark("begun", n + 1)  # at most this many facts once the write below commits
        mem.set("alice", "identity.name", f"A{n}")
        mark("committed", n + 1)  # at least this many from now on
    time.sleep(0.05)  # room for the readers to keep and serve rows of this state
"""


def test_reader_processes_beside_a_writer_and_one_killed_never_serve_an_older_state(
    tmp_path: Path,
) -> None:
    """Three reader processes ask `facts` all the while a writer process appends, one of them
    killed (SIGKILL) mid-way. Every answer holds at least the facts written before it began
    (kept rows never outlive a write, whichever process kept them) and at most those written
    when it ended; some answers came from kept rows; afterwards the log and the kept rows
    answer as the verb does, twice."""
    import signal
    import time

    home = tmp_path / "ws"
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "A0", now=T0)
    marks, stop = tmp_path / "marks", tmp_path / "stop"
    marks.mkdir()
    for name in ("begun", "committed"):
        (marks / name).write_text("1")
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", _READER, str(home), str(marks), str(stop)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]

    def kill_half_way() -> None:  # one reader dies mid-loop: it may be writing an entry
        while int((marks / "committed").read_text()) < 5 and readers[2].poll() is None:
            time.sleep(0.01)
        readers[2].send_signal(signal.SIGKILL)

    killer = threading.Thread(target=kill_half_way)
    try:
        first = readers[0].stdout
        assert first is not None and first.readline()  # the first reader answers
        killer.start()
        writer = subprocess.run(
            [sys.executable, "-c", _WRITER, str(home), str(marks), "8"], timeout=300
        )
        killer.join()
        for _ in range(400):  # the quiet log's rows kept by the readers left (bounded wait)
            if any((home / ROWS).glob("*.json")):
                break
            time.sleep(0.05)
        time.sleep(0.2)  # a few more looks, answered from those rows
    finally:
        stop.touch()
        outputs = [r.communicate(timeout=120)[0] for r in readers]
    assert writer.returncode == 0 and readers[2].returncode == -signal.SIGKILL
    # the killed reader's pipe is block-buffered: SIGKILL can cut its last line short
    outputs[2] = outputs[2][: outputs[2].rfind("\n") + 1]
    answers = [tuple(map(int, line.split())) for out in outputs for line in out.splitlines()]
    assert all(len(answer) == 4 for answer in answers), [a for a in answers if len(a) != 4]
    assert answers
    for before, held, after, _opened in answers:
        assert before <= held <= after, (before, held, after)
    assert any(not opened for *_, opened in answers)  # kept rows answered some looks
    with Memory(home, read_only=True) as mem:
        truth = json.dumps(verbs.run(mem, "facts", "alice", {}), sort_keys=True)
    freshness_quiet = freshness.QUIET_S
    try:
        freshness.QUIET_S = 0.0
        assert _lean(home, "facts", "alice", {}, "default") == truth
        assert _lean(home, "facts", "alice", {}, "default") == truth
    finally:
        freshness.QUIET_S = freshness_quiet
    assert json.loads(truth)[-1]["value"] == "A8"
