"""`uac serve`'s settings: every one has a flag with its default in the help, and the
scheduler's summary counts in words."""

from __future__ import annotations

import pytest

from uac.runtime.api.server import REACTION_WAIT, _count
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # the CLI can open a workspace: both backends
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("a summary's wording alone: no log")


def test_serve_help_names_every_setting(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["serve", "--help"])
    assert done.value.code == 0
    shown = capsys.readouterr().out
    for flag in ("--reaction-wait", "--outbox-workers", "--outbox-horizon", "--webhook-timeout"):
        assert flag in shown, flag
    assert f"(default: {REACTION_WAIT:g})" in " ".join(shown.split())


def test_reaction_wait_refuses_a_negative_value(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["serve", "--reaction-wait", "-1"])
    assert (
        done.value.code == 1 and "uac: error: argument --reaction-wait" in capsys.readouterr().err
    )


@NO_LOG
def test_the_scheduler_summary_counts_in_words() -> None:
    assert [_count(n, "new alert") for n in (0, 1, 2)] == [
        "0 new alerts",
        "1 new alert",
        "2 new alerts",
    ]
