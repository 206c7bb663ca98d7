"""`diff` between checkpoints of a user whose state has maps beside its records: values
inherited from a group (`inherited_from`) and values that go stale (`as_of`,
`stale_after_days`). Locally, from the command line, and through a real `uac serve`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import T0
from test_serve import _admin, serving

from uac import Memory
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

H = dt.timedelta(hours=1)

# What the second checkpoint adds over the first, line for line.
EXPECTED = [
    f'~ user.as_of["user.location.city"]: unset -> {T0.date().isoformat()}',
    '~ user.inherited_from["user.address.city"]: unset -> "group:family"',
    '~ user.location.city: unset -> "Faro"',
    '~ user.stale_after_days["user.location.city"]: unset -> 3',
]


def _two_versions(home: Path) -> None:
    """alice in group:family; v1 before the group's address and her stale city, v2 after."""
    with Memory(home, create=True, react=False) as mem:
        mem.member_add("group:family", "alice", now=T0)
        mem.set("alice", "identity.birth_date", "1990-04-01", now=T0)
        (first,) = mem.compile("alice")
        mem.set("group:family", "places.address.city", "Lisbon", now=T0 + H)
        mem.set("alice", "places.location.city", "Faro", now=T0 + H)
        (second,) = mem.compile("alice")
        assert (first.status, second.status) == ("published", "published"), second.error
        user = mem.checkpoint("alice").user
        assert user.inherited_from == {"user.address.city": "group:family"}
        assert user.stale_after_days == {"user.location.city": 3}


def _lines(home: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """`EXPECTED`'s lines of `uac diff alice`'s output (the address's own change too): the
    CLI's `main`, in this process."""
    code = main(["--home", str(home), "diff", "alice"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err, err
    assert out.startswith("alice: v1 -> v2: "), out
    return [line.strip() for line in out.splitlines()[1:]]


def test_diff_shows_inherited_and_stale_maps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "ws"
    _two_versions(home)
    with Memory(home, react=False) as mem:
        old, new, lines = mem.diff("alice")
        assert (old, new) == (1, 2)
        assert set(EXPECTED) <= set(lines), lines
        assert '~ user.address.city: unset -> "Lisbon"' in lines
        assert mem.diff("alice", 2, 2)[2] == []  # a version against itself: no change
    assert set(EXPECTED) <= set(_lines(home, capsys))


def test_diff_through_a_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "ws"
    _two_versions(home)
    with serving(home) as info:
        out = _admin(info).call("diff", "alice")
        assert (out["old"], out["new"]) == (1, 2)
        assert set(EXPECTED) <= set(out["changes"]), out["changes"]
        assert set(EXPECTED) <= set(_lines(home, capsys))  # the CLI, forwarded to the server
