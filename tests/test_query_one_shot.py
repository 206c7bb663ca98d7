"""A one-shot `uac query` (the CLI answering in its own process, from a zygote that serves that
one query and ends) gives the envelope `Memory.query` gives: the same answers, typed errors,
error lines and limits, the same checkpoint; only `elapsed_ms` differs. The sandbox's hostile
programs are contained on the one-shot zygote as on the pooled one, under the same confinement.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_sandbox import HOSTILE  # type: ignore[import-not-found]

from uac.runtime.sandbox import Limits, Sandbox, names_statistics, run_query, shutdown

pytestmark = pytest.mark.usefixtures("module_backend")  # runs on DuckDB and PostgreSQL
# The zygotes' own tests query the compiled checkpoint's files (found once through Memory):
# they run once; the CLI's answers, compared with Memory.query's, run on each backend.
ONCE = pytest.mark.one_backend("zygotes over a checkpoint's files: nothing of it reads the log")

TODAY = dt.date(2026, 11, 29)
TRIPS = [
    {"city": "Paris", "country": "FR", "depart": "2025-03-05", "cost": "412.10"},
    {"city": "Kyoto", "country": "JP", "depart": "2027-01-12", "cost": "1830.00"},
    {"city": "Lyon", "country": "FR", "depart": "2024-06-01", "cost": "88.5"},
]
# Answers of every kind the encoder writes, and every error type a program can meet.
PROGRAMS = [
    "len(user.trips)",
    "sum(t.cost for t in user.trips if t.depart.year >= 2025)",
    "sorted({t.country for t in user.trips})",
    "[(t.city, t.depart) for t in user.trips if t.depart > today]",
    "Counter(t.country for t in user.trips).most_common(1)",
    "{t.depart.year: t.cost for t in user.trips}",
    "statistics.median(t.cost for t in user.trips)",  # its zygote loads `statistics`
    "statistics",  # bad_result: the facade itself
    "(user.passport.expiry_date - today, today)",
    "user.trips[:1]",
    "user.passport",
    "x = 1\ny = 0\nx / y",  # runtime_error, with its line
    "user.__class__",  # not_allowed
    "import os\n1",  # not_allowed
    "(",  # syntax_error
    "total = 0\nfor t in user.trips",  # syntax_error on line 2
    "int('9' * 5000)",  # limit_exceeded
    "'a' * 10**10",  # limit_exceeded (memory)
    "sum(range(10**12))",  # limit_exceeded (time)
    "lambda: 1",  # bad_result
    "float('nan')",  # bad_result
]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, module_backend: str) -> Iterator[Path]:
    """A workspace with alice compiled and up to date (so the CLI answers without Memory)."""
    from uac import Memory

    ws = tmp_path_factory.mktemp("oneshot") / "ws"
    with Memory(ws, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice Liddell")
        mem.set("alice", "identity.passport.expiry_date", "2027-04-18")
        mem.import_records("alice", "trips", TRIPS)
        mem.compile("alice")
    yield ws
    shutdown()


# Which of a runaway's limits stops it first (its CPU, the wall clock less the time it waited
# for a CPU, or on a very busy machine the backstop) is the load's doing, on either path.
_TIME_LIMITS = (
    "the query used more than ",
    "the query took longer than ",
    "the query was still running after ",
)


def _without_elapsed(envelope: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in envelope.items() if k != "elapsed_ms"}
    error = out.get("error") or {}
    if error.get("type") == "limit_exceeded" and error["message"].startswith(_TIME_LIMITS):
        out["error"] = {**error, "message": "a time or CPU limit"}
    return out


def _cli(home: Path, program: str, *flags: str) -> tuple[dict[str, Any], set[str]]:
    """`uac query --json` as its own process: its envelope and the modules it imported."""
    cli = [sys.executable, "-X", "importtime", "-m", "uac.runtime.cli", "--home", str(home)]
    done = subprocess.run(
        [*cli, "query", "--json", *flags, "alice", program, "--today", TODAY.isoformat()],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.stdout, done.stderr[-800:]
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()}
    assert "uac.runtime.sandbox" in imported  # the importtime format did not change under us
    return json.loads(done.stdout), imported


@pytest.mark.parametrize("program", PROGRAMS, ids=[p[:30] for p in PROGRAMS])
def test_one_shot_cli_envelope_is_memory_query_envelope(home: Path, program: str) -> None:
    from uac import Memory

    cli, imported = _cli(home, program)
    # Answered on the one-shot path: Memory was never imported.
    assert "uac.runtime.api.memory" not in imported
    with Memory(home, read_only=True) as mem:
        expected = mem.query("alice", program, today=TODAY)
    assert _without_elapsed(cli) == _without_elapsed(expected)
    assert json.dumps(cli.get("result"), sort_keys=True) == json.dumps(
        expected.get("result"), sort_keys=True
    )


def test_one_shot_explain_is_memory_query_explain(home: Path) -> None:
    from uac import Memory

    program = "sum(t.cost for t in user.trips if t.country == 'FR')"
    cli, imported = _cli(home, program, "--explain")
    assert "uac.runtime.api.memory" not in imported
    with Memory(home, read_only=True) as mem:
        expected = mem.query("alice", program, today=TODAY, explain=True)
    assert cli["explain"] and _without_elapsed(cli) == _without_elapsed(expected)


def _checkpoint(home: Path) -> Path:
    from uac import Memory

    with Memory(home, read_only=True) as mem:
        return Path(mem.checkpoint("alice").directory)


@ONCE
@pytest.mark.parametrize(("program", "expected"), HOSTILE, ids=[p[:40] for p, _ in HOSTILE])
def test_hostile_program_is_contained_on_the_one_shot_zygote(
    home: Path, program: str, expected: str
) -> None:
    directory = _checkpoint(home)
    # A runaway spends its whole CPU limit on each path: the smallest one (a second, not the
    # default two), the same on both, so the envelopes still compare.
    limits = Limits(cpu_s=1)
    once = run_query(directory, program, today=TODAY, limits=limits, once=True)
    pooled = run_query(directory, program, today=TODAY, limits=limits)
    assert once["ok"] is False and once["error"]["type"] == expected, once
    assert _without_elapsed(once) == _without_elapsed(pooled)


@ONCE
def test_one_shot_zygote_is_confined_as_a_pooled_one_and_serves_one_query(home: Path) -> None:
    directory = _checkpoint(home)
    once = Sandbox(directory, once=True)
    pooled = Sandbox(directory)
    try:
        assert once.seccomp and once.confinement == pooled.confinement
        first = once._proc
        assert once.run("len(user.trips)", today=TODAY)["result"] == 3
        assert first is not None and first.wait(timeout=30) == 0  # it ended after its query
        # A second query on the same sandbox gets a fresh zygote, and the same answer.
        assert once.run("len(user.trips)", today=TODAY)["result"] == 3
        assert once._proc is not first
    finally:
        once.close()
        pooled.close()


@ONCE
def test_one_shot_zygote_loads_statistics_only_for_a_program_naming_it(home: Path) -> None:
    # The facade is reached by its name alone: a program that does not name it cannot use
    # it, so a one-shot zygote for such a program leaves the module out; any other program
    # (or one that does not parse) gets a zygote with it.
    assert names_statistics("statistics.mean([1, 2])") and names_statistics("s = statistics")
    assert names_statistics("(")
    assert not names_statistics("len(user.trips)") and not names_statistics("user.statistics")
    directory = _checkpoint(home)
    lean = Sandbox(directory, once=True, statistics=False)
    try:
        assert lean.run("len(user.trips)", today=TODAY)["result"] == 3
        refused = lean.run("statistics.mean([1, 2])", today=TODAY)
        assert refused["ok"] is False and refused["error"]["type"] == "not_allowed", refused
    finally:
        lean.close()
    answered = run_query(directory, "statistics.mean([1, 2])", today=TODAY, once=True)
    assert answered["ok"] and answered["result"] == 1.5, answered


_ZYGOTE_LOAD = """
import datetime as dt, json, sys
from pathlib import Path
from uac.compiler import loader
from uac.runtime.sandbox import zygote

directory = Path(sys.argv[1])
policy = zygote.load(directory)
answer = zygote.execute("len(user.trips)", policy, dt.date(2026, 11, 29), zygote.Limits(), False)
loaded = sorted(m for m in sys.modules if m.startswith("uac_checkpoint_"))
host = loader.import_package(directory)  # as the host imports it, checks and all
print(json.dumps({"answer": answer, "zygote": loaded, "host": sorted(
    m for m in sys.modules if m.startswith(host.__name__ + "."))}))
"""


@ONCE
def test_a_zygote_imports_the_checkpoint_without_its_constraints_module(home: Path) -> None:
    # No check runs in the sandbox: the module of the checks' functions (and what its rules
    # import) stays out of every zygote, while each file is still verified against files.json;
    # the host's import of the same checkpoint has it.
    done = subprocess.run(
        [sys.executable, "-c", _ZYGOTE_LOAD, str(_checkpoint(home))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["answer"] == {"ok": True, "result_json": "3"}, seen["answer"]
    parts = {m.rsplit(".", 1)[-1] for m in seen["zygote"] if "." in m}
    assert {"schema", "state", "records_trips"} <= parts and "constraints" not in parts
    assert {m.rsplit(".", 1)[-1] for m in seen["host"]} >= {"schema", "state", "constraints"}
