"""Legal erase: the content leaves every table, file and read path; the chain still verifies.

The proof is a search for the erased bytes everywhere they could be: every column of every
table (cast to text), every file under the workspace — the DuckDB file and its WAL
included, since DuckDB leaves overwritten values in free blocks until the erase rewrites
the file — search results, context and the compiled state. Each search is first shown to
find the bytes before the erase, so it cannot pass by looking in the wrong place.
"""

from __future__ import annotations

import datetime as dt
import json
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from conftest import counts, rows
from test_secrets import _leaks

from uac import Memory
from uac.fact_log.errors import InputError, NotFound
from uac.runtime.api.outbox import OutboxSink
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

DAY = dt.datetime(2025, 1, 10, 9)
SECRET = "Zebraplum Quixotic Harbourmaster"
TRIP = {"city": "Bangkok", "country": "TH", "depart": "2025-03-01", "return_date": "2025-03-10"}


def _on_disk(home: Path, needle: str) -> list[str]:
    """Files under the workspace (the database file and WAL too) holding the raw bytes."""
    raw = needle.encode()
    return [str(p) for p in home.rglob("*") if p.is_file() and raw in p.read_bytes()]


def _everywhere(mem: Memory, needle: str) -> list[str]:
    mem.store.con.execute("CHECKPOINT")  # the WAL's rows into the file, as a reader would
    return _leaks(mem, mem.home, [needle]) + _on_disk(mem.home, needle)


def _reads(mem: Memory, subject: str, needle: str) -> list[str]:
    seen = [
        json.dumps([h.text for h in mem.search(subject, needle, k=50)]),
        mem.context(subject, query=needle, budget=4000),
        json.dumps(mem.query(subject, "str(user)"), default=str),
        json.dumps([i.content for i in mem.inputs(subject, show=True)]),
    ]
    return [text[:80] for text in seen if needle in text]


def test_erase_one_fact_leaves_no_trace_and_the_chain_verifies(mem: Memory) -> None:
    note = mem.add_note("alice", f"the locker code word is {SECRET}", now=DAY)
    kept = mem.add_note("alice", "I like jasmine tea in the morning", now=DAY)
    mem.set("alice", "preferences.verbosity", "short", now=DAY)
    mem.compile("alice")
    mem.compile("alice", as_of=DAY)  # a time-travel version holds it too
    assert mem.search("alice", "Zebraplum")  # indexed: postings, docs and vectors
    assert _everywhere(mem, SECRET)  # found in tables, the generated files and the db file
    report = mem.erase("alice", [note.id], reason="user asked (art. 17)")
    assert _everywhere(mem, SECRET) == []
    assert _reads(mem, "alice", SECRET) == []
    assert mem.verify().ok and report["verified"]
    assert SECRET not in json.dumps(report) and SECRET not in json.dumps(mem.erasures("alice"))
    assert [f["id"] for f in report["facts"]] == [note.id]
    assert report["where"]["facts"] == 1 and report["where"]["inputs"] == 1
    assert report["where"]["search_docs"] >= 1 and report["by"] == "api"
    assert report["where"]["checkpoint_versions_removed"] == 2
    assert [r["id"] for r in mem.erasures("alice")] == [report["id"]]
    # What was not erased is untouched and still found.
    assert [h.id for h in mem.search("alice", "jasmine tea")][:1] == [kept.id]
    assert mem.query("alice", "user.preferences.verbosity")["result"] == "short"
    assert [f.op for f in mem.facts("alice")] == ["erased", "assert", "assert"]


def test_erase_all_blanks_alerts_outbox_and_rejections(home: Path) -> None:
    with Memory(home, create=True, react=True) as mem:
        outbox = OutboxSink(mem.store, ["hook"])
        mem.sinks.append(outbox)
        mem.set("maya", "identity.passport.issuing_country", "GB", now=DAY)
        mem.set("maya", "identity.passport.expiry_date", "2025-06-01", now=DAY)
        mem.import_records("maya", "trips", [TRIP], now=DAY)
        (alert,) = mem.alerts("maya")
        assert "Bangkok" in alert.message or "TH" in alert.message
        assert rows(mem, "outbox") == 1
        mem.add("maya", "my password is Gr33nTea!Mug", now=DAY)  # refused: a rejection row
        assert mem.rejections("maya", show=True)
        report = mem.erase("maya", all=True, reason="account closed")
        assert _everywhere(mem, "Bangkok") == []
        assert report["where"]["alerts"] == 1 and report["where"]["outbox"] == 1
        (gone,) = mem.alerts("maya", include_resolved=True)
        assert gone.message == "(erased)" and gone.status == "resolved"
        assert all(r["detail"] is None for r in mem.rejections("maya", show=True))
        assert {f.op for f in mem.facts("maya")} == {"erased"}
        assert mem.query("maya", "len(user.trips)")["result"] == 0
        assert mem.verify().ok


def test_erasing_a_user_erases_the_copies_it_promoted_to_its_groups(mem: Memory) -> None:
    mem.member_add("group:family", "alice", now=DAY)
    mem.member_add("group:family", "bob", now=DAY)
    secret = mem.add_note("alice", f"the spare key is under {SECRET}", now=DAY)
    shared = mem.add_note("alice", "the wifi is on the fridge", now=DAY)
    direct = mem.add_note("group:family", "bins go out on Tuesday", now=DAY)
    mem.promote("alice", secret.id, "group:family", now=DAY)
    mem.promote("alice", shared.id, "group:family", now=DAY)
    mem.compile("bob")
    assert SECRET in json.dumps(mem.query("bob", "str(user)"), default=str)  # bob inherits it
    # An erase of one fact erases its copy only.
    one = mem.erase("alice", [secret.id], reason="user asked (art. 17)")
    assert len(one["promoted_copies"]) == 1
    (group_report,) = mem.erasures("group:family")
    assert group_report["id"] == one["promoted_copies"][0]
    assert "promoted from user:alice" in group_report["reason"]
    assert _everywhere(mem, SECRET) == []
    assert _reads(mem, "bob", SECRET) == []
    texts = [n.text for n in mem.checkpoint("bob").user.notes]
    assert "the wifi is on the fridge" in texts and "bins go out on Tuesday" in texts
    # Erasing the whole user takes the other copy; the group's own facts stay.
    every = mem.erase("alice", all=True, reason="account closed")
    assert len(every["promoted_copies"]) == 1 and mem.verify().ok
    assert [n.text for n in mem.checkpoint("bob").user.notes] == ["bins go out on Tuesday"]
    assert [f.id for f in mem.facts("group:family") if f.op == "assert"][-1] == direct.id


def test_an_unknown_fact_id_erases_nothing(mem: Memory) -> None:
    note = mem.add_note("alice", f"remember {SECRET}", now=DAY)
    before = counts(mem)
    with pytest.raises(NotFound, match=r"f_nope.*nothing was erased"):
        mem.erase("alice", [note.id, "f_nope"], reason="x")
    with pytest.raises(NotFound):  # another subject's fact is unknown here
        mem.erase("bob", [note.id], reason="x")
    with pytest.raises(InputError, match="reason"):
        mem.erase("alice", [note.id], reason="  ")
    with pytest.raises(InputError, match="--all"):
        mem.erase("alice", reason="x")
    assert counts(mem) == before and mem.erasures() == []
    assert mem.facts("alice")[0].text == f"remember {SECRET}"


@pytest.mark.duckdb_only(
    "edits the embedded file; on PostgreSQL it is a node's copy (see test_log_backends.py)"
)
def test_an_erased_row_edited_later_fails_verify(mem: Memory) -> None:
    note = mem.add_note("alice", f"remember {SECRET}", now=DAY)
    mem.add_note("alice", "second", now=DAY)
    mem.erase("alice", [note.id], reason="x")
    assert mem.verify().ok
    con = mem.store.con
    con.execute("UPDATE facts SET text = 'planted' WHERE seq = 1")
    report = mem.verify()
    assert not report.ok and report.broken_seq == 1
    con.execute("UPDATE facts SET text = NULL WHERE seq = 1")
    assert mem.verify().ok
    con.execute("UPDATE erased_rows SET residual = 'x' WHERE seq = 1")  # a forged record
    assert not mem.verify().ok


def test_a_compile_running_during_an_erase_cannot_republish_it(mem: Memory) -> None:
    note = mem.add_note("alice", f"the locker code word is {SECRET}", now=DAY)
    mem.set("alice", "preferences.verbosity", "short", now=DAY)
    mem.compile("alice")
    errors: list[BaseException] = []
    started = threading.Event()

    def compiles() -> None:
        try:
            for _ in range(3):
                started.set()
                mem.compile("alice")
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    worker = threading.Thread(target=compiles)
    worker.start()
    started.wait()
    mem.erase("alice", [note.id], reason="x")
    worker.join()
    assert errors == []
    assert _on_disk(mem.home, SECRET) == []
    assert SECRET not in json.dumps(mem.query("alice", "str(user)"), default=str)


@pytest.mark.parametrize("stage", ["log", "search", "alerts", "checkpoints"])
def test_an_erase_killed_midway_is_finished_by_the_next_open(home: Path, stage: str) -> None:
    with Memory(home, create=True, react=False) as mem:
        note = mem.add_note("alice", f"the locker code word is {SECRET}", now=DAY)
        mem.set("alice", "preferences.verbosity", "short", now=DAY)
        mem.compile("alice")
        assert mem.search("alice", "Zebraplum")
    # A real process, SIGKILLed from its own progress callback once `stage` is done: the log
    # is blanked (committed), later steps never ran, no report was completed.
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from uac import Memory

        def die(stage, done, total):
            if stage == {stage!r}:
                os.kill(os.getpid(), signal.SIGKILL)

        with Memory(sys.argv[1], react=False) as mem:
            mem.erase("alice", [{note.id!r}], reason="user asked", progress=die)
        """
    )
    died = subprocess.run([sys.executable, "-c", script, str(home)], timeout=120)
    assert died.returncode == -signal.SIGKILL
    with Memory(home, read_only=True) as peek:  # half done: content left in derived data
        (pending,) = peek.erasures("alice")
        assert pending["status"] == "pending" and SECRET not in json.dumps(pending)
    with Memory(home, react=False) as mem:  # the next writable open finishes it
        (report,) = mem.erasures("alice")
        assert "status" not in report and [f["id"] for f in report["facts"]] == [note.id]
        assert _everywhere(mem, SECRET) == []
        assert _reads(mem, "alice", SECRET) == []
        assert mem.query("alice", "user.preferences.verbosity")["result"] == "short"
        assert mem.verify().ok


def test_cli_erase_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "ws")
    assert main(["--home", home, "init"]) == 0
    assert main(["--home", home, "remember", "alice", f"the code word is {SECRET}"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "facts", "alice", "--json"]) == 0
    (fact,) = json.loads(capsys.readouterr().out)
    assert main(["--home", home, "erase", "alice", "--fact", "f_nope", "--reason", "x"]) == 1
    err = capsys.readouterr().err
    assert "f_nope" in err and "nothing was erased" in err and "erasing" not in err
    code = main(["--home", home, "erase", "alice", "--fact", fact["id"], "--reason", "asked"])
    out = capsys.readouterr().out
    assert code == 0 and "erased user:alice" in out and "verify: ok" in out
    assert SECRET not in out
    assert main(["--home", home, "verify"]) == 0
    assert _on_disk(Path(home), SECRET) == []
    capsys.readouterr()
    assert main(["--home", home, "erasures", "alice"]) == 0
    out = capsys.readouterr().out
    assert "asked" in out and "cli" in out and SECRET not in out
