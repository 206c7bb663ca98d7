"""Shared fixtures: every test gets real DuckDB workspaces in its own temporary directory."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from uac import Memory

T0 = dt.datetime(2025, 1, 1, 12, 0, 0)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A path for a workspace that does not exist yet."""
    return tmp_path / "ws"


@pytest.fixture
def mem(home: Path):
    """A fresh workspace opened for tenant 'default', with reactions to writes turned off.

    Component tests drive compile and evaluate themselves (with their own `today`);
    the default, reacting Memory is tested in test_alert_wiring.py.
    """
    with Memory(home, create=True, react=False) as memory:
        yield memory


def write(path: Path, text: str | bytes) -> Path:
    """Write a test input file and return its path."""
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def counts(memory: Memory) -> tuple[int, int, int]:
    """Rows in facts, inputs and schemas: to prove a failed write left nothing behind."""
    con = memory.store.con
    return tuple(  # type: ignore[return-value]
        con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        for t in ("facts", "inputs", "schemas")
    )


def append_to_state(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """Make every compile render `text` at the end of the generated state.py (to break it)."""
    import uac.compiler.checkpoint as ckpt_module

    real = ckpt_module.render

    def render(*args, **kwargs):
        files = real(*args, **kwargs)
        files["state.py"] += text
        return files

    monkeypatch.setattr(ckpt_module, "render", render)
