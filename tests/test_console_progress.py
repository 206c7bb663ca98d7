"""Progress of long CLI work (runtime/progress.py): a bar on a terminal, lines in a log.

The clock is driven by the test; the CLI half runs real commands on a real workspace.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from uac.runtime.cli import main
from uac.runtime.progress import Progress


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


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

    main(["--home", home, "--quiet", "set", "a", "identity.name", "Ann"])  # a changed subject
    capsys.readouterr()
    assert main(["--home", home, "run-once", "--today", "2026-11-20"]) == 0
    out, err = capsys.readouterr()
    assert "pass for 2026-11-20" in out
    assert err.startswith("compiling changed subjects ")
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
