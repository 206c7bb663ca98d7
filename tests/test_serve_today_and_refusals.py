"""The service's and CLI's `today` as a parameter and their one-sentence refusals, against real
parts: a far day is a preview that stores nothing, a busy port, an import in a query, a
workspace in use, group membership, a naive `now`, `init` on an existing directory."""

from __future__ import annotations

import datetime as dt
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_serve import ROOT, _admin, _key, child_env, serving

from uac import Client, Memory
from uac.runtime.api.client import AccessDenied

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL


@pytest.fixture(scope="module")
def running(
    tmp_path_factory: pytest.TempPathFactory, module_backend: str
) -> Iterator[dict[str, Any]]:
    """One server for the tests that need none of their own (each writes in a tenant of its
    own, so none sees another's subjects); on the module's log."""
    with serving(tmp_path_factory.mktemp("served") / "ws") as info:
        yield info


def _alert_rows(client: Client, subject: str) -> list[dict[str, Any]]:
    rows = client.call("alerts", subject, include_resolved=True)
    return sorted(rows, key=lambda a: a["id"])


def test_a_far_today_over_the_service_is_a_preview_that_stores_nothing(
    running: dict[str, Any],
) -> None:
    today = dt.datetime.now(dt.UTC).date()
    expiry = today + dt.timedelta(days=90)  # a passport expiring soon: an alert now
    c = Client(running["url"], _key(_admin(running), "far-today"))
    c.set("alice", "identity.passport.expiry_date", expiry.isoformat())
    (alert,) = [a for a in _alert_rows(c, "alice") if a["check"] == "document_expiry"]
    assert alert["status"] == "open"
    c.call("ack", "alice", alert_id=alert["id"])
    before = _alert_rows(c, "alice")
    assert [a["status"] for a in before if a["id"] == alert["id"]] == ["acknowledged"]

    # Year 1: the passport is not yet near expiry, so the alert would resolve; year 9999:
    # it is long expired. Both are answered as previews and change no stored alert.
    past = c.call("check", "alice", today="0001-01-01")
    assert past["preview"] is True and alert["id"] in [a["id"] for a in past["resolved"]]
    future = c.call("check", "alice", today="9999-12-31")
    assert future["preview"] is True
    assert _alert_rows(c, "alice") == before
    job = c.call("run-once", today="9999-12-31")
    assert job["preview"] is True and job["id"] == 0
    assert _alert_rows(c, "alice") == before
    # A backdated write (an import of old data) reacts as of the server's day, not 2001.
    c.call("set", "alice", path="identity.name", value="Alice", now="2001-01-01T00:00:00")
    assert _alert_rows(c, "alice") == before
    # The server's own day (a client's local date may be one day off) is stored as ever.
    for day in (today, today + dt.timedelta(days=1)):
        present = c.call("check", "alice", today=day.isoformat())
        assert present["preview"] is False and present["resolved"] == []
    assert [a["status"] for a in _alert_rows(c, "alice") if a["id"] == alert["id"]] == [
        "acknowledged"
    ]
    present = c.call("run-once", today=today.isoformat())
    assert present["preview"] is False and present["id"] >= 1


def test_embedded_today_is_a_parameter_and_is_stored(home: Path) -> None:
    # Embedded, the caller owns the workspace: demos and tests evaluate fixed days.
    with Memory(home, create=True) as mem:
        mem.set("alice", "identity.passport.expiry_date", "2030-03-01")
        result = mem.check("alice", today=dt.date(9999, 12, 31))
        assert result.preview is False
        assert any(a.first_seen == dt.date(9999, 12, 31) for a in mem.alerts("alice"))


def _uac(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "uac.runtime.cli", *argv],
        capture_output=True, text=True, env=child_env(), cwd=ROOT, timeout=timeout,
    )  # fmt: skip


@pytest.mark.no_workspace("the port is refused before any workspace is opened or created")
def test_serve_on_a_busy_port_fails_first_in_one_sentence(tmp_path: Path) -> None:
    # The port is held by a listening socket: what `uac serve` meets at a port another
    # process listens on (a server started to hold it cost ~1 s of CPU a run).
    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        other = tmp_path / "other"
        done = _uac("--home", str(other), "serve", "--port", str(port))
        assert done.returncode == 1
        assert done.stderr == (
            f"uac: error: cannot listen on 127.0.0.1:{port}: the port is in use; stop what "
            "listens there or pick another port with --port (0: any free one)\n"
        )
        assert not other.exists()  # refused before the workspace was created or announced


def test_query_import_is_not_allowed_and_feedback_names_the_bad_id(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from uac.runtime.cli import main

    with Memory(home, create=True) as mem:
        mem.set("alice", "identity.name", "Alice")
    for program in ("import os", "from os import path", "import os\nlen(user.trips)"):
        assert main(["--home", str(home), "query", "alice", program]) != 0
        err = capsys.readouterr().err
        assert err == "uac: error: not_allowed (line 1): import is not allowed in a query\n", err
    assert main(["--home", str(home), "query", "alice", "x = 1"]) != 0  # valid, allowed: no result
    assert (
        "syntax_error (line 1): the program must end with an expression" in capsys.readouterr().err
    )
    assert main(["--home", str(home), "feedback", "alice", "i_nope"]) == 1
    assert capsys.readouterr().err == (
        "uac: error: user:alice has no note or input with id 'i_nope'; feedback takes an id "
        "that 'uac search user:alice QUERY' shows\n"
    )


def test_workspace_in_use_quotes_the_holder_on_one_short_line(home: Path) -> None:
    Memory(home, create=True).close()
    script = (
        "import sys, time\n"
        "from uac import Memory\n"
        f"mem = Memory({str(home)!r})  # {'a long comment ' * 20}\n"
        "print('ready', flush=True)\n"
        "time.sleep(120)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=child_env(), cwd=ROOT
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        done = _uac("--home", str(home), "facts", "alice")
        assert done.returncode == 1
        (line,) = done.stderr.splitlines()  # one line, whatever the holder's command line holds
        assert line.startswith(f"uac: error: workspace {home} is in use by process {holder.pid} (")
        assert "import sys, time from uac import Memory" in line and "…)" in line
        assert line.endswith("; wait for it to finish or stop it")
        assert len(line) < 200 + len(str(home)) and "a long comment " * 20 not in line
    finally:
        holder.kill()
        holder.wait(timeout=60)


def test_only_a_tenant_key_changes_who_belongs_to_a_group(running: dict[str, Any]) -> None:
    admin = _admin(running)
    tenant = Client(running["url"], _key(admin, "membership"))
    group = Client(running["url"], _key(admin, "membership", subject="group:family"))
    tenant.set("alice", "identity.name", "Alice")
    tenant.set("group:family", "places.address.city", "Lisbon")
    # A key bound to the group would enrol any user of the tenant, who then inherits
    # whatever the group's key writes: membership takes a tenant key.
    with pytest.raises(AccessDenied, match="member-add needs a tenant key"):
        group.member_add("group:family", "alice")
    assert tenant.members("group:family") == []
    tenant.member_add("group:family", "alice")
    with pytest.raises(AccessDenied, match="member-remove needs a tenant key"):
        group.member_remove("group:family", "alice")
    assert [m["user"] for m in group.members("group:family")] == ["alice"]  # it may read
    assert tenant.query("alice", "user.address.city")["result"] == "Lisbon"
    tenant.member_remove("group:family", "alice")
    assert group.members("group:family") == []


def test_a_naive_now_is_utc_and_the_refusal_says_how_to_send_an_offset(
    running: dict[str, Any],
) -> None:
    from uac.fact_log.errors import InputError

    c = Client(running["url"], _key(_admin(running), "naive-now"))
    # A client at UTC+10 sends its local wall-clock time: without an offset it is read
    # as UTC, ten hours ahead of the server, and refused with the way out.
    local = dt.datetime.now(dt.UTC).astimezone(dt.timezone(dt.timedelta(hours=10)))
    naive = local.replace(tzinfo=None, microsecond=0)
    with pytest.raises(InputError) as refused:
        c.call("set", "alice", path="identity.name", value="Alice", now=naive.isoformat())
    message = str(refused.value)
    assert message.startswith(f"now: {naive.isoformat()} has no UTC offset, so it is read as")
    assert "later than the server's clock" in message
    assert f"send the offset (e.g. {naive.isoformat()}+14:00)" in message
    assert c.facts("alice") == []
    # The same moment with its offset is the present: recorded.
    aware = local.replace(microsecond=0).isoformat()
    c.call("set", "alice", path="identity.name", value="Alice", now=aware)
    assert [f.path for f in c.facts("alice")] == ["identity.name"]
    # An aware time ahead of the clock is refused without the naive-time advice.
    ahead = (local + dt.timedelta(hours=3)).isoformat()
    with pytest.raises(InputError, match="later than the server's clock") as refused:
        c.call("set", "alice", path="identity.name", value="Later", now=ahead)
    assert "offset" not in str(refused.value)


def test_init_on_an_existing_open_directory_keeps_its_mode_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from uac.runtime.cli import main

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    assert main(["--home", str(shared), "init"]) == 0
    assert shared.stat().st_mode & 0o777 == 0o755  # a user's directory is never chmod-ed
    err = capsys.readouterr().err
    assert f"note: {shared} existed already and keeps its mode 755" in err
    assert f"run chmod 700 {shared}" in err
    fresh = tmp_path / "fresh"
    assert main(["--home", str(fresh), "init"]) == 0
    assert fresh.stat().st_mode & 0o777 == 0o700 and "note:" not in capsys.readouterr().err
    assert main(["--home", str(fresh), "init"]) == 0  # again: its own 0700 needs no note
    assert "note:" not in capsys.readouterr().err
