"""One machine-output convention: `--json` prints exactly one JSON document for every
command; `--jsonl` streams a listing command's rows, one JSON object a line, and is refused
elsewhere. Every command of the parser is run here (except the few that serve until
stopped), in one workspace, in an order where each finds what it needs; `demo`, which builds
a workspace of its own (seconds of CPU), where a demo is built already: tests/test_golden.py
builds it with --json on DuckDB, tests/test_cli.py's rebuild on PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_cli_errors import COMMANDS, _run

from uac.runtime.cli.common import LISTING

pytestmark = pytest.mark.usefixtures("backend")

# Commands not run here, and why.
SKIPPED = {
    "serve": "serves HTTP until stopped (tests/test_serve.py)",
    "schedule": "runs passes until stopped",
    "mcp": "speaks MCP over stdio",
    "worker": "needs a node bound to PostgreSQL (tests/test_workers.py checks its --json)",
    "workers": "needs a node bound to PostgreSQL (tests/test_workers.py checks its --json)",
}

TRIPS = '{"country": "FR", "city": "Lyon", "depart": "2025-03-05", "cost": "120"}\n'
RULE = '{"type": "reminder", "path": "passport.expiry_date", "days_before": 30}'


def _commands(tmp: Path, ids: dict[str, str]) -> list[list[str]]:
    """Each command once, in order; `{name}` is filled from `ids` when it is run."""
    return [
        ["init"],
        ["set", "alice", "identity.passport.expiry_date", "2020-01-01"],
        ["add", "alice", "使用中文回答"],
        ["remember", "alice", "the spare key is under the blue pot"],
        ["import", "alice", "trips", str(tmp / "trips.jsonl")],
        ["note", "alice", str(tmp / "me.md")],
        ["note", "alice", "--template"],
        ["prefer", "alice", "root cause first, then the steps"],
        ["episode", "add", "alice", "--problem", "VPN fails", "--worked", "new profile"],
        ["confirm", "alice", "preferences.language"],
        ["rule", "alice", RULE],
        ["member", "add", "group:family", "alice"],
        ["member", "list", "group:family"],
        ["promote", "alice", "{note}", "group:family"],
        ["demote", "alice", "{promoted}", "group:family"],
        ["member", "remove", "group:family", "alice"],
        ["facts", "alice"],
        ["inputs", "alice"],
        ["subjects"],
        ["rejections", "alice"],
        ["compile", "alice"],
        ["check", "alice", "--today", "2026-01-01"],
        ["alerts"],
        ["alerts", "alice", "--all"],
        ["questions", "alice", "--all"],
        ["preview", "alice", "--set", "identity.passport.expiry_date", "2031-01-01"],
        ["acknowledge", "{alert}"],
        ["ack", "{alert}"],  # its earlier name
        ["snooze", "{alert}", "--until", "2999-01-01"],
        ["run-once", "--today", "2026-01-02"],
        ["search", "alice", "spare key"],
        ["feedback", "alice", "{input}"],
        ["context", "alice", "--query", "where is the key"],
        ["query", "alice", "len(user.trips)"],
        ["query", "alice", "1 +"],  # a refusal is a document too (exit 1)
        ["manifest", "alice"],
        ["why", "alice", "user.passport.expiry_date"],
        ["diff", "alice"],
        ["forget", "alice", "{note}"],
        ["erase", "alice", "--fact", "{note}", "--reason", "asked to"],
        ["erasures", "alice"],
        ["verify"],
        ["anchor", "export"],
        ["tools"],
        ["gc"],
        ["outbox", "list"],
        ["outbox", "retry"],
        ["outbox", "drop", "999999"],
        ["migrate"],
        ["keys", "create", "--tenant", "default", "--read-only"],
        ["keys", "list"],
        ["keys", "revoke", "{key}"],
        ["keys", "rotate-chain"],
    ]


def _learn(ids: dict[str, str], argv: list[str], doc: Any) -> None:
    """Remember the ids later commands name."""
    if argv[0] == "remember":
        ids["note"] = doc["facts"][0]["id"]
        ids["input"] = doc["input_id"]
    elif argv[0] == "promote":
        ids["promoted"] = doc["id"]
    elif argv[0] == "alerts" and doc:
        ids["alert"] = doc[0]["id"]
    elif argv[:2] == ["keys", "create"]:
        ids["key"] = doc["id"]


def _document(full: list[str], out: str) -> Any:
    """The one JSON document a command printed."""
    try:
        return json.loads(out)  # "Extra data" if a second document follows
    except ValueError as exc:
        said = f"uac {' '.join(full)}: not one JSON document ({exc}):\n{out}"
        raise AssertionError(said) from None


def test_json_is_one_document_for_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("UAC_URL", raising=False)
    monkeypatch.delenv("UAC_API_KEY", raising=False)
    (tmp_path / "trips.jsonl").write_text(TRIPS, encoding="utf-8")
    (tmp_path / "me.md").write_text("## Notes\n- I climb on Sundays\n", encoding="utf-8")
    home = tmp_path / "ws"
    ids: dict[str, str] = {}
    ran: set[str] = set()
    for argv in _commands(tmp_path, ids):
        argv = [a.format(**ids) if "{" in a and not a.startswith('{"') else a for a in argv]
        words = " ".join(argv[:2]) if " ".join(argv[:2]) in COMMANDS else argv[0]
        ran.add(words)
        full = ["--home", str(home), *argv, "--json"]
        code, out, err = _run(capsys, full)
        assert code == (1 if argv[-1] == "1 +" else 0), (full, err)
        doc = _document(full, out)
        _learn(ids, argv, doc)
        if words in LISTING and (words not in ("keys", "member") or argv[1] == "list"):
            code, out, err = _run(capsys, [*full[:-1], "--jsonl"])
            assert code == 0, (full, err)
            rows = [json.loads(line) for line in out.splitlines()]
            assert rows == json.loads(json.dumps(doc)), full  # the same rows, streamed
    alone = {"demo"}  # tests/test_golden.py (DuckDB), tests/test_cli.py's rebuild (PostgreSQL)
    assert ran | set(SKIPPED) | alone == set(COMMANDS), "run each new command here, or say why not"
    assert {"alert", "key", "promoted"} <= set(ids)


def test_jsonl_is_refused_outside_listings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "ws")
    for argv in (["manifest", "alice"], ["keys", "create"], ["facts", "alice", "--json"]):
        code, out, err = _run(capsys, ["--home", home, *argv, "--jsonl"])
        assert code == 1 and out == "" and err.startswith("uac: error: --jsonl streams"), err
