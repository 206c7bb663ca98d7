"""Progress of long work (runtime/progress_display.py): a bar on a terminal, lines in a log, and the
service's job board at /v1/jobs/progress.

The clock is driven by the test; the CLI half runs real commands on a real workspace; the
service half a real `uac serve`.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from uac.runtime.cli import main
from uac.runtime.progress_display import Progress

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("progress reporting alone: no log")


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@NO_LOG
def test_terminal_bar_redraws_one_line_with_counts_rate_and_time_left() -> None:
    now = [100.0]
    stream = Terminal()
    bar = Progress("compiling", 200, stream=stream, clock=lambda: now[0])
    now[0] = 110.0
    bar.update(50)
    drawn = stream.getvalue()
    assert drawn.startswith("\rcompiling [######..................] 50/200 (25%) 5.0/s ~30.0s left")
    assert "\n" not in drawn  # redrawn in place
    now[0] = 140.0
    bar.update(200)
    bar.close()
    assert stream.getvalue().endswith("200/200 (100%) 5.0/s in 40.0s\x1b[K\n")


@NO_LOG
def test_log_gets_periodic_lines_and_a_last_one() -> None:
    now = [0.0]
    stream = io.StringIO()
    bar = Progress("importing", stream=stream, interval=10, clock=lambda: now[0])
    for second in range(1, 26):
        now[0] = float(second)
        bar.advance(100)
    bar.close(note="done")
    lines = stream.getvalue().splitlines()
    assert lines == [
        "importing 1,000 100.0/s in 10.0s",
        "importing 2,000 100.0/s in 20.0s",
        "importing 2,500 100.0/s in 25.0s done",
    ]
    assert "\r" not in stream.getvalue()


@NO_LOG
def test_quiet_prints_nothing() -> None:
    stream = Terminal()
    with Progress("x", 3, stream=stream, quiet=True) as bar:
        bar.update(3)
    assert stream.getvalue() == ""


def test_cli_compile_all_and_run_once_show_progress_unless_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "ws")
    main(["--home", home, "init"])
    for name in ("a", "b"):
        main(["--home", home, "set", name, "identity.name", name.upper()])
    capsys.readouterr()
    assert main(["--home", home, "compile", "--all", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "compiled 2 subject(s)" in out and err == ""
    assert main(["--home", home, "compile", "--all"]) == 0
    err = capsys.readouterr().err
    assert "[2/2] user:b" in err
    assert err.rstrip().splitlines()[-1].startswith("compiling 2/2 (100%)")

    from uac import Memory

    with Memory(home, react=False) as mem:  # a changed subject, left for the pass to compile
        mem.set("a", "identity.name", "Ann")
    capsys.readouterr()
    assert main(["--home", home, "run-once", "--today", "2026-11-20"]) == 0
    out, err = capsys.readouterr()
    assert "pass for 2026-11-20" in out
    assert err.startswith("scheduled pass done, compiling 1/1 in ")  # a log: the last line
    assert main(["--home", home, "run-once", "--quiet", "--today", "2026-11-21"]) == 0
    assert capsys.readouterr().err == ""


def test_server_exposes_the_progress_of_scheduled_passes(tmp_path: Path) -> None:
    import datetime as dt
    import time

    from test_serve import _admin, _key, serving

    from uac import Client, Memory

    home = tmp_path / "ws"
    day = dt.datetime(2026, 11, 20, 9)
    with Memory(home, tenant="acme", create=True, react=False) as mem:
        for name in ("a", "b", "c"):  # written without a reaction: the pass compiles them
            mem.set(name, "identity.nationality", "GB", now=day)
    with serving(home, "--every", "1h") as info:  # the first pass runs at once
        admin = _admin(info)
        acme = Client(info["url"], _key(admin, "acme"))
        other = Client(info["url"], _key(admin, "other"))
        deadline = time.monotonic() + 120
        passes: list = []
        while time.monotonic() < deadline:
            passes = acme.request("GET", "/v1/jobs/progress")
            if passes and passes[0]["finished_at"]:
                break
            time.sleep(0.2)
        (done,) = passes
        assert done["tenant"] == "acme" and done["kind"] == "scheduled pass"
        assert done["done"] == done["total"] == 3, done
        assert other.request("GET", "/v1/jobs/progress") == []  # another tenant sees nothing


@NO_LOG
def test_staged_work_names_its_stage_and_restarts_the_rate() -> None:
    now = [0.0]
    stream = Terminal()
    bar = Progress("importing", stream=stream, clock=lambda: now[0])
    now[0] = 1.0
    bar.report("validating", 0, 400)
    now[0] = 3.0
    bar.report("validating", 400, 400)
    assert "importing: validating [########################] 400/400 (100%) 200.0/s" in (
        stream.getvalue()
    )
    now[0] = 4.0
    bar.report("writing 400 facts", 0, 0)  # a stage with nothing to count
    assert stream.getvalue().endswith("\rimporting: writing 400 facts … (4.0s so far)\x1b[K")
    now[0] = 5.0
    bar.close()
    assert stream.getvalue().endswith("\rimporting done in 5.0s\x1b[K\n")


@NO_LOG
def test_terminal_redraws_at_most_ten_times_a_second() -> None:
    now = [0.0]
    stream = Terminal()
    bar = Progress("x", 1000, stream=stream, clock=lambda: now[0])
    for n in range(1, 1001):
        now[0] = n / 1000  # a thousand updates in one second
        bar.update(n)
    assert 9 <= stream.getvalue().count("\r") <= 12  # ~10 redraws, and the last (1000/1000)
    assert stream.getvalue().endswith("1,000/1,000 (100%) 1,000.0/s in 1.0s\x1b[K")


@NO_LOG
def test_a_failure_ends_the_line_without_saying_done() -> None:
    stream = Terminal()
    with pytest.raises(RuntimeError), Progress("importing", stream=stream) as bar:
        bar.report("validating", 3, 10)
        raise RuntimeError("bad record")
    assert stream.getvalue().endswith("\n") and "done" not in stream.getvalue()
    log = io.StringIO()
    with pytest.raises(RuntimeError), Progress("importing", stream=log) as bar:
        raise RuntimeError("bad record")
    assert log.getvalue() == ""


@NO_LOG
def test_counted_reports_every_n_and_the_end() -> None:
    from uac.fact_log.progress_callback import counted

    heard: list[tuple[str, int, int]] = []
    assert list(counted(range(2500), "x", lambda *a: heard.append(a), every=1000)) == list(
        range(2500)
    )
    assert heard == [("x", 0, 2500), ("x", 1000, 2500), ("x", 2000, 2500), ("x", 2500, 2500)]
    assert list(counted([1, 2], "x", None)) == [1, 2]


def _records(n: int) -> list[dict[str, str]]:
    return [
        {
            "date": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
            "amount": f"{i}.50",
            "merchant": f"m{i}",
        }
        for i in range(n)
    ]


def test_import_reports_each_stage_in_order(tmp_path: Path) -> None:
    import json

    from uac import Memory

    src = tmp_path / "tx.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in _records(2500)))
    heard: list[tuple[str, int, int]] = []
    with Memory(tmp_path / "ws", create=True) as mem:
        result = mem.import_file("ann", "transactions", src, progress=lambda *a: heard.append(a))
    assert result.facts == 2500
    stages = list(dict.fromkeys(stage for stage, _, _ in heard))
    assert stages == [
        "reading",
        "validating",
        "screening",
        "masking the archive",
        "writing 2,500 facts",
        "compiling",
    ]
    assert ("validating", 1000, 2500) in heard and ("validating", 2500, 2500) in heard
    assert heard[heard.index(("screening", 0, 2500)) - 1] == ("validating", 2500, 2500)


def test_cli_import_shows_progress_unless_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    home = str(tmp_path / "ws")
    main(["--home", home, "init"])
    src = tmp_path / "tx.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in _records(50)))
    capsys.readouterr()
    assert main(["--home", home, "import", "ann", "transactions", str(src)]) == 0
    out, err = capsys.readouterr()
    assert "imported 50 records" in out
    assert err.splitlines()[-1].startswith("importing done in ")  # not a terminal: a last line
    assert main(["--home", home, "--quiet", "import", "bob", "transactions", str(src)]) == 0
    out, err = capsys.readouterr()
    assert "imported 50 records" in out and "importing done" not in err


def test_imports_and_passes_asked_over_http_show_on_the_job_board(tmp_path: Path) -> None:
    import datetime as dt

    from test_serve import _admin, _key, serving

    from uac import Client, Memory
    from uac.fact_log.errors import UacError

    home = tmp_path / "ws"
    with Memory(home, tenant="acme", create=True, react=False) as mem:
        for name in ("a", "b"):  # written without a reaction: the pass compiles them
            mem.set(name, "identity.nationality", "GB", now=dt.datetime(2026, 11, 20, 9))
    with serving(home) as info:
        admin = _admin(info)
        acme = Client(info["url"], _key(admin, "acme"))
        bound = Client(info["url"], _key(admin, "acme", subject="user:a"))
        other = Client(info["url"], _key(admin, "other"))
        assert acme.request("GET", "/v1/jobs/progress") == []
        acme.import_records("ann", "transactions", _records(1200))
        acme.call("run-once", today="2026-11-21")
        jobs = {j["kind"]: j for j in acme.request("GET", "/v1/jobs/progress")}
        assert set(jobs) == {"import", "run-once"}, jobs
        imp, run = jobs["import"], jobs["run-once"]
        assert imp["tenant"] == "acme" and imp["subject"] == "user:ann"
        assert imp["stage"] == "compiling" and imp["finished_at"] and imp["error"] is None
        assert run["subject"] is None and run["stage"] == "compiling"
        assert run["done"] == run["total"] == 2, run
        assert other.request("GET", "/v1/jobs/progress") == []  # another tenant sees nothing
        assert bound.request("GET", "/v1/jobs/progress") == []  # nor another subject's key
        with pytest.raises(UacError, match="date"):  # no date: the import is refused
            acme.import_records("ann", "transactions", [{"amount": "1"}])
        (failed,) = [j for j in acme.request("GET", "/v1/jobs/progress") if j["kind"] == "import"]
        assert failed["finished_at"] and "date" in failed["error"]


@NO_LOG
def test_heartbeat_keeps_a_stage_without_counts_moving() -> None:
    import time

    log = io.StringIO()
    bar = Progress("importing", stream=log, interval=0.01, heartbeat=0.01)
    bar.report("compiling", 0, 0)  # then nothing reports for a while
    deadline = time.monotonic() + 60
    while log.getvalue().count("importing: compiling …") < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    bar.close()
    lines = log.getvalue().splitlines()
    assert len(lines) >= 4 and all("so far" in line for line in lines[:-1]), lines
    assert lines[-1].startswith("importing done in ")
    size = len(log.getvalue())
    time.sleep(0.05)
    assert len(log.getvalue()) == size  # closed: the heartbeat stopped


@NO_LOG
def test_the_job_board_keeps_running_jobs_and_a_bounded_history() -> None:
    from uac.runtime.progress_display import JobBoard

    board = JobBoard(keep=3)
    with board.track("import", "acme", "user:long") as running:
        running.report("validating", 5, 10)
        for n in range(5):  # five finished imports into other subjects
            with board.track("import", "acme", f"user:s{n}") as job:
                job.report("compiling", 0, 0)
        with pytest.raises(ValueError), board.track("run-once", "other"):
            raise ValueError("boom")
        jobs = board.visible("acme")
        assert [j["subject"] for j in jobs] == ["user:long", "user:s4"]  # and other's pass
        assert jobs[0]["finished_at"] is None and jobs[0]["done"] == 5  # running: kept
    assert board.visible("other")[0]["error"] == "boom"
    assert board.visible("acme", "user:s4")[0]["stage"] == "compiling"
    assert board.visible("nobody") == []


def test_a_cli_forwarded_to_the_server_imports_and_passes_quietly_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from test_serve import serving

    from uac import Memory

    home = tmp_path / "ws"
    Memory(home, create=True).close()
    src = tmp_path / "tx.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in _records(300)))
    with serving(home):
        assert (
            main(["--home", str(home), "--quiet", "import", "ann", "transactions", str(src)]) == 0
        )
        out, err = capsys.readouterr()
        assert "imported 300 records" in out and "importing:" not in err  # forwarded, quiet
        assert main(["--home", str(home), "run-once", "--today", "2026-11-21"]) == 0
        out, err = capsys.readouterr()
        assert "pass for 2026-11-21" in out and "Traceback" not in err
        missing = str(tmp_path / "no")  # a refused import ends with one clear error
        assert main(["--home", str(home), "import", "ann", "transactions", missing]) != 0
        err = capsys.readouterr().err
        assert err == f"uac: error: {missing}: no such file\n"  # as a local import says it
