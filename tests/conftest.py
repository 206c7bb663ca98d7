"""Shared fixtures: every test gets real DuckDB workspaces in its own temporary directory.

A test module that uses the `backend` fixture (`pytestmark = pytest.mark.usefixtures(
"backend")`) runs once per log backend: the embedded DuckDB file and a real PostgreSQL
server (a throwaway cluster started once per session, tests/pg_cluster.py; each test gets
its own database, bound through UAC_DB). `--backend=duckdb|postgres` picks one. Without a
PostgreSQL 16+ binary the postgres runs are skipped locally and fail under CI=true.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_cluster import HOW_TO_ENABLE, Cluster, find_bin

from uac import Memory

BACKENDS = ("duckdb", "postgres")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backend",
        choices=(*BACKENDS, "both"),
        default="both",
        help="log backend(s) for the tests that run on each (default: both)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        choice = metafunc.config.getoption("backend")
        names = BACKENDS if choice == "both" else (choice,)
        metafunc.parametrize("backend", names, indirect=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Cluster]:
    """One throwaway PostgreSQL cluster for the whole session, stopped at the end."""
    bindir = find_bin()
    if bindir is None:
        if os.environ.get("CI") == "true":
            pytest.fail(HOW_TO_ENABLE)
        pytest.skip(HOW_TO_ENABLE)
    cluster = Cluster.start(bindir)
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_server: Cluster) -> str:
    """The URL of a new, empty database on the session's cluster."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:16]
    with psycopg.connect(pg_server.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    return pg_server.url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The log backend of this run; for postgres, new workspaces bind to a fresh database.

    Every workspace a test opens on postgres is a node of that one log, so they share one
    chain key file (as a deployment's nodes must).
    """
    if request.param == "postgres":
        monkeypatch.setenv("UAC_DB", request.getfixturevalue("pg_url"))
        key = request.getfixturevalue("tmp_path_factory").mktemp("key") / "chain.key"
        monkeypatch.setenv("UAC_CHAIN_KEY_FILE", str(key))
    else:
        monkeypatch.delenv("UAC_DB", raising=False)
    return request.param


T0 = dt.datetime(2025, 1, 1, 12, 0, 0)


@pytest.fixture
def home(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A path for a workspace that does not exist yet (on this run's backend, if any)."""
    if "backend" in request.fixturenames:
        request.getfixturevalue("backend")  # bind UAC_DB before anything opens the workspace
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
