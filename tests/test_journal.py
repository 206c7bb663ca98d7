"""Episodes, tasks that resume, and tentative preferences: written, learned, surfaced in context."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from uac import Memory
from uac.fact_log.errors import InputError
from uac.fact_log.extraction.patterns import extract
from uac.fact_log.extraction.patterns.progress import parse_progress
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("episode and progress patterns in memory: no log")

DAY = dt.datetime(2025, 3, 1, 9)
# No status: an update learned from conversation never overrides a field written by an
# explicit source (the fold's source precedence), so the status is left to the conversation.
TASK = {
    "goal": "Move to Lisbon",
    "steps": ["visa form", "bank letter", "rent a flat"],
    "due_date": "2025-03-05",
}


def _episodes(text: str) -> list[dict]:
    return [c.value for c in extract(text, DAY) if c.path == "support.episodes"]


@NO_LOG
def test_episode_patterns_need_a_first_person_problem_and_a_fix() -> None:
    (ep,) = _episodes(
        "Last week my VPN failed again. I tried restarting the router, but that didn't help;"
        " re-installing the profile fixed it."
    )
    assert ep["problem"] == "VPN failed" and ep["worked"] == "re-installing the profile"
    assert ep["failed"] == ["restarting the router"]
    assert ep["tried"] == ["restarting the router", "re-installing the profile"]
    assert _episodes("My printer stopped working and I fixed it by updating the driver.")
    assert _episodes("My VPN failed again today.") == []  # no fix: not an episode yet
    assert _episodes("My sister's car broke down and a new battery fixed it.") == []
    assert _episodes("The new battery fixed it.") == []


@NO_LOG
def test_progress_is_read_from_plain_words() -> None:
    said = parse_progress("done with the visa form, next is the bank letter")
    assert (said.done, said.next) == ("visa form", "bank letter")
    said = parse_progress("I finished the visa form. Next up: the bank letter.")
    assert (said.done, said.next) == ("visa form", "bank letter")
    assert parse_progress("the weather is nice today") is None


def test_an_episode_is_typed_searchable_and_recalled_when_it_comes_back(mem: Memory) -> None:
    mem.add_episode(
        "alice",
        "VPN fails to connect",
        tried=["restarting the router"],
        worked="re-installing the VPN profile",
        failed=["restarting the router"],
        date=dt.date(2025, 1, 5),
        now=DAY,
    )
    mem.compile("alice")
    (ep,) = mem.query("alice", "[e.worked for e in user.episodes]")["result"]
    assert ep == "re-installing the VPN profile"
    assert "VPN fails" in mem.search("alice", "vpn connect problem")[0].text
    block = mem.context("alice", query="my VPN won't connect again", today=DAY.date())
    assert "## Last time" in block
    assert "VPN fails to connect: re-installing the VPN profile fixed it" in block
    assert "restarting the router did not help" in block
    assert "## Last time" not in mem.context("alice", query="book a table", today=DAY.date())
    with pytest.raises(InputError, match="problem"):
        mem.add_episode("alice", "  ")


def test_an_episode_is_learned_from_conversation(mem: Memory) -> None:
    learned = mem.add("alice", "My phone wouldn't charge. Cleaning the port fixed it.", now=DAY)
    (fact,) = [f for f in learned.facts if f.path == "support.episodes"]
    assert fact.value["worked"] == "cleaning the port" and fact.source == "automatic_rule"
    mem.compile("alice")
    block = mem.context("alice", query="phone not charging", today=DAY.date())
    assert "cleaning the port fixed it" in block


def test_a_task_resumes_from_conversation_and_its_deadline_closes(home: Path) -> None:
    with Memory(home, create=True, react=True) as mem:
        mem.import_records("alice", "tasks", [TASK], now=DAY)
        assert [a.check for a in mem.alerts("alice")] == ["deadline_approaching"]
        learned = mem.add("alice", "done with the visa form, next is the bank letter", now=DAY)
        assert learned.facts[-1].path == "tasks.tasks"
        (task,) = mem.checkpoint("alice").user.tasks
        assert task.resume_point == "bank letter" and task.done_steps == ("visa form",)
        block = mem.context("alice", today=DAY.date())
        assert "- Move to Lisbon [in_progress]: pick up at bank letter (1/3 steps done)" in block
        assert "due 2025-03-05 (in 4 days)" in block
        mem.add("alice", "I finished the bank letter", now=DAY)
        (task,) = mem.checkpoint("alice").user.tasks
        assert task.resume_point == "rent a flat" and task.status == "in_progress"
        mem.add("alice", "done with rent a flat", now=DAY)
        (task,) = mem.checkpoint("alice").user.tasks
        assert task.status == "done"
        assert mem.alerts("alice") == []  # the deadline check stops at a finished task
        assert "## Open tasks" not in mem.context("alice", today=DAY.date())


def test_progress_on_a_step_two_tasks_share_changes_nothing(mem: Memory) -> None:
    other = {**TASK, "goal": "Open a bank account", "steps": ["bank letter", "visit branch"]}
    mem.import_records("alice", "tasks", [TASK, other], now=DAY)
    mem.compile("alice")
    learned = mem.add("alice", "done with the bank letter", now=DAY)
    assert [f.path for f in learned.facts] == []


def test_an_inferred_preference_is_a_question_until_confirmed(mem: Memory) -> None:
    mem.add("alice", "使用中文回答", now=DAY)  # a bare imperative: inferred, said once
    mem.compile("alice")
    block = mem.context("alice", today=DAY.date())
    assert "- language = zh? (inferred once" in block and "- language: zh" not in block
    mem.add("alice", "使用中文回答", now=DAY + dt.timedelta(days=1))  # said again: confirmed
    mem.compile("alice")
    block = mem.context("alice", today=DAY.date())
    assert "- language: zh" in block and "language = zh?" not in block


def test_the_user_confirms_an_inferred_preference(mem: Memory) -> None:
    mem.add("bob", "使用中文回答", now=DAY)
    fact = mem.confirm("bob", "preferences.language", now=DAY)
    assert fact.source == "explicit_command" and fact.value == "zh"
    mem.compile("bob")
    assert "- language: zh" in mem.context("bob", today=DAY.date())
    with pytest.raises(InputError, match="not an inferred preference"):
        mem.confirm("bob", "preferences.language")
    with pytest.raises(InputError, match="not a preference path"):
        mem.confirm("bob", "identity.name")
    # A durable statement ("from now on") is stated, not inferred: a rule at once.
    mem.add("carol", "From now on, answer in French.", now=DAY)
    mem.compile("carol")
    assert "- language: fr" in mem.context("carol", today=DAY.date())


def test_cli_episode_and_confirm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "ws")
    assert main(["--home", home, "init"]) == 0
    code = main(
        ["--home", home, "episode", "add", "alice", "--problem", "VPN fails to connect",
         "--tried", "restart router", "--worked", "reinstall profile"]
    )  # fmt: skip
    assert code == 0 and "episode: VPN fails to connect" in capsys.readouterr().out
    assert main(["--home", home, "context", "alice", "--query", "VPN down"]) == 0
    assert "reinstall profile fixed it" in capsys.readouterr().out
    assert main(["--home", home, "confirm", "alice", "preferences.language"]) == 1
    assert "not an inferred preference" in capsys.readouterr().err
