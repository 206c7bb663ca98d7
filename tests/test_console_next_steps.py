"""No dead ends: an error a user can hit names the next command to run.

A handful of representative ones, each reached the way a user reaches it: an unknown or
read-only key over HTTP, a server that is not running, a diff with one checkpoint, an alert
id that does not exist, a workspace or checkpoint that is missing, and a subject with
inputs but no facts (the empty typed state, not an error). The console's own messages are
in test_console.py.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from test_serve import _admin, _key, serving

from uac import Client, Memory
from uac.fact_log.errors import NotFound
from uac.runtime.api import verbs
from uac.runtime.api.client import AccessDenied, ServiceError
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

DAY = dt.datetime(2026, 11, 20, 9)


def test_refused_keys_say_how_to_get_one(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    with Memory(home, tenant="acme", create=True) as mem:
        mem.set("maya", "identity.nationality", "GB", now=DAY)
    with serving(home) as info:
        admin = _admin(info)
        with pytest.raises(AccessDenied, match="create one with: uac keys create --tenant"):
            Client(info["url"], "uac_nope").call("facts", "maya")
        reader = Client(info["url"], _key(admin, "acme", read_only=True))
        with pytest.raises(AccessDenied, match="read-only and set writes; create one with"):
            reader.call("set", "maya", path="identity.nationality", value="FR")
        bound = Client(info["url"], _key(admin, "acme", subject="bob"))
        with pytest.raises(AccessDenied, match=r"bound to another subject; create one with"):
            bound.call("facts", "maya")
        with pytest.raises(AccessDenied, match="run uac keys on the server's machine"):
            reader.request("POST", "/v1/admin/keys", {"tenant": "acme"})


def test_a_server_that_is_not_running_says_how_to_start_one(dead_port: int) -> None:
    with pytest.raises(ServiceError, match=r"start it with uac serve \(or point UAC_URL"):
        Client(f"http://127.0.0.1:{dead_port}", "uac_x").call("facts", "maya")


def test_diff_alerts_and_checks_name_the_next_command(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        mem.set("maya", "identity.nationality", "GB", now=DAY)
        with pytest.raises(NotFound, match=r"a diff needs two: .* run 'uac compile user:maya'"):
            mem.diff("maya")
        with pytest.raises(NotFound, match="list them with: uac alerts --all"):
            verbs.run(mem, "tenant-ack", None, {"alert_id": "a_nope"})


def test_cli_errors_name_the_next_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "ws")
    assert main(["--home", home, "facts", "maya"]) != 0
    assert f"create one with: uac --home {home} init" in capsys.readouterr().err
    main(["--home", home, "init"])
    capsys.readouterr()
    assert main(["--home", home, "manifest", "ghost"]) != 0
    assert "run 'uac compile user:ghost'" in capsys.readouterr().err
    assert main(["--home", home, "compile", "ghost"]) != 0
    assert 'uac add user:ghost "' in capsys.readouterr().err  # nothing written: write first


def test_inputs_without_facts_answer_with_the_empty_state_over_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "ws")
    main(["--home", home, "init"])
    assert main(["--home", home, "add", "maya", "Hello, how are you?"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "query", "maya", "len(user.trips)"]) == 0
    assert capsys.readouterr().out.strip().endswith("0")
    assert main(["--home", home, "manifest", "maya"]) == 0
    assert "nothing is known yet" in capsys.readouterr().out
