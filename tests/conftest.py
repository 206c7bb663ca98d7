"""Shared fixtures: every test gets real workspaces in its own temporary directory.

Every test module that opens a workspace uses the `backend` fixture (`pytestmark =
pytest.mark.usefixtures("backend")`; tests/test_suite_backends.py checks that none is
missed) and so runs once per log backend: the embedded DuckDB file and a real PostgreSQL
server (a throwaway cluster started once per session and xdist worker, tests/pg_cluster.py).
On postgres each test gets its own database (a copy of a migrated template), bound through
UAC_DB, which child processes (`uac serve`, the CLI) inherit; every workspace the test opens
is a node of that one log. A test that needs a second, independent log asks `fresh_log`.

A test that opens no workspace carries `@pytest.mark.no_workspace("reason")` and runs once,
with UAC_DB set to a value no workspace opens with (so the mark cannot be wrong silently).

`--backend=duckdb|postgres` picks one backend (default: both). A test that is about the
embedded file itself carries `@pytest.mark.duckdb_only("reason")`: its postgres run is
reported as skipped with that reason (`pytest -rs` lists them). A known product bug on
PostgreSQL carries `@pytest.mark.postgres_bug("reason")`: its postgres run is a strict xfail
(`-rx` lists them), so fixing the bug fails the run until the mark is removed. Modules
that use `pg_url` directly (multi-node, shared alerts and checkpoints) are about PostgreSQL
and run on it alone. Without a PostgreSQL 16+ binary the postgres runs are skipped locally,
with one line saying how to enable them, and fail under CI=true.
"""

from __future__ import annotations

import atexit
import datetime as dt
import inspect
import os
import shutil
import socket
import sys
import tempfile
import time
import types
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from pg_cluster import HOW_TO_ENABLE, Cluster, find_bin

from uac import Memory
from uac.fact_log.backends.pg_log import PgLog

BACKENDS = ("duckdb", "postgres")

# pytest caches each test module's assertion-rewritten bytecode in tests/__pycache__ (ignored by
# git); under PYTHONDONTWRITEBYTECODE every xdist worker rewrote and compiled every test module
# again at each run (~20 s of CPU of the fast tier's ~70 on 2 cores). The setting stays for the
# child processes the tests start (the environment is left alone).
sys.dont_write_bytecode = False

# Property tests are timed by nothing: hypothesis's default 200 ms deadline per example and
# its too-slow check on drawing data measure the machine's load, not the code (a test that
# sets its own settings keeps them; unset fields come from here).
settings.register_profile(
    "uac", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("uac")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` runs one worker more than there are cores: much of the suite waits on child
    processes (`uac serve`, the CLI, PostgreSQL), and a third worker fills those waits
    (bench/RESULTS.md, "the suite's time")."""
    return (os.cpu_count() or 1) + 1


# The longest tests, longest first (seconds of a full run at load ~15 on 2 cores, 2026-12-02:
# only their ratios mean anything). Under `--dist worksteal` each worker is first given a
# contiguous share of the collection and an idle worker steals the *end* of the longest
# queue, so a long test late in a share starts late and ends the run alone. These are moved
# to the heads of the shares (each to the share with the least such work yet, as a greedy
# longest-first schedule would), so they start at once, side by side; every other test keeps
# its place and order. Only under xdist's worksteal: `-n 0` keeps the collected order.
LONGEST_FIRST: dict[str, float] = {
    "test_compiler_properties.py::test_warm_incremental_compiles_equal_a_cold_compile"
    "[postgres]": 406,
    "test_concurrency.py::test_threads_importing_checkpoints_of_different_subjects_never"
    "_collide": 358,
    "test_scope_leaks.py::test_no_read_returns_what_the_rules_do_not_share[postgres]": 343,
    "test_cli.py::test_demo_builds_refuses_to_overwrite_and_rebuilds_the_same_log[postgres]": 327,
    "test_serve.py::test_cli_mcp_clients_and_scheduler_work_while_serving[duckdb]": 250,
    "test_compiler_properties.py::test_fold_equals_reference_fold[postgres]": 239,
    "test_multi_node.py::test_two_serve_nodes_on_one_database_serve_each_others_writes": 218,
    "test_extraction_gate.py::test_hostile_64k_shapes_stay_linear[duckdb-dots-and-commas]": 217,
    "test_compiler_properties.py::test_warm_incremental_compiles_equal_a_cold_compile[duckdb]": 211,
    "test_secrets.py::test_imports_mask_every_string_field[postgres]": 209,
    "test_isolation.py::test_reads_return_only_the_named_subjects_rows[postgres]": 153,
}


def _xdist_shares(total: int, workers: int) -> list[int]:
    """The sizes of the contiguous shares worksteal hands out first (xdist's own split)."""
    sizes = []
    for i in range(workers):
        sizes.append(total // (workers - i))
        total -= sizes[-1]
    return sizes


@pytest.hookimpl(trylast=True)  # after pytest groups items by their module-scoped parameters
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers < 2 or config.getoption("dist", "no") != "worksteal":
        return
    weight = {item: LONGEST_FIRST.get(item.nodeid.split("/")[-1], 0.0) for item in items}
    heavy = sorted((i for i in items if weight[i]), key=lambda i: -weight[i])
    if not heavy:
        return
    sizes = _xdist_shares(len(items), workers)
    heads: list[list[pytest.Item]] = [[] for _ in sizes]
    load = [0.0] * len(sizes)
    for item in heavy:  # each to the least loaded share that has room for it
        share = min(
            (n for n in range(len(sizes)) if len(heads[n]) < sizes[n]), key=lambda n: load[n]
        )
        heads[share].append(item)
        load[share] += weight[item]
    rest = iter([i for i in items if not weight[i]])
    ordered: list[pytest.Item] = []
    for size, head in zip(sizes, heads, strict=True):
        ordered += head
        ordered += [next(rest) for _ in range(size - len(head))]
    assert len(ordered) == len(items) and set(ordered) == set(items)
    items[:] = ordered


# -- tiers -----------------------------------------------------------------------------------
# Every test carries tier marks (registered in pyproject.toml, strict), set here from what it
# uses, never by hand: `postgres` (a run on the PostgreSQL backend, or a test about PostgreSQL:
# `pg_url`), `browser` (drives chromium: the `driver` fixture), `service` (starts a real `uac
# serve`: calls `serving`, itself or through a helper or fixture of its own), `unit` (none of
# those: in-process, DuckDB files at most), and `slow` (listed in tests/slow_tests.txt, from the
# `--durations=0` report of one full run). `python -m pytest -m "not slow"` is the fast tier.
SLOW_TESTS = Path(__file__).with_name("slow_tests.txt")
_SERVER_STARTERS = frozenset({"serving"})


def _slow_test_ids() -> frozenset[str]:
    lines = SLOW_TESTS.read_text(encoding="utf-8").splitlines()
    return frozenset(ln.split(None, 1)[1] for ln in lines if ln.strip() and ln[0] != "#")


def _names_in(code: types.CodeType) -> set[str]:
    """Global names a function's code (nested functions and lambdas included) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_in(const)
    return names


# What `_starts_server` found per (function, starters): the suite's fixtures and helpers are
# shared by thousands of tests, so each is walked once per session, not once per test.
_STARTS: dict[tuple[object, frozenset[str]], bool] = {}
_HERE = Path(__file__).parent


def _starts_server(
    func: Callable[..., object], seen: set[object], starters: frozenset[str] = _SERVER_STARTERS
) -> bool:
    """Whether func calls `serving` (a starter), directly or through the tests' own helpers."""
    func = inspect.unwrap(func)
    code = getattr(func, "__code__", None)
    if code is None:
        return False
    known = _STARTS.get((func, starters))
    if known is not None:
        return known
    if func in seen:  # a cycle among helpers: found through its first caller, if at all
        return False
    seen.add(func)
    names = _names_in(code)
    found = bool(names & starters)
    for name in () if found else names:
        helper = getattr(func, "__globals__", {}).get(name)
        module = inspect.getmodule(helper) if callable(helper) else None
        origin = getattr(module, "__file__", None)
        if origin and Path(origin).parent == _HERE and _starts_server(helper, seen, starters):
            found = True
            break
    _STARTS[(func, starters)] = found
    return found


def _tiers(item: pytest.Item, slow: frozenset[str]) -> list[str]:
    names = set(getattr(item, "fixturenames", ()))
    params = getattr(getattr(item, "callspec", None), "params", {})
    marks = []
    if params.get("module_backend") == "postgres" or names & {"pg_url", "pg_server"}:
        marks.append("postgres")
    if "driver" in names:
        marks.append("browser")
    seen: set[object] = set()
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    funcs = [getattr(item, "function", None)] + [d.func for ds in defs.values() for d in ds]
    if any(f is not None and _starts_server(f, seen) for f in funcs):
        marks.append("service")
    if not marks:
        marks.append("unit")
    if item.nodeid in slow:
        marks.append("slow")
    return marks


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_itemcollected(item: pytest.Item) -> None:
    slow = item.config.stash.get(_SLOW_KEY, None)
    if slow is None:  # read once per session
        slow = item.config.stash[_SLOW_KEY] = _slow_test_ids()
    for name in _tiers(item, slow):
        item.add_marker(name)


_SLOW_KEY = pytest.StashKey[frozenset[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backend",
        choices=(*BACKENDS, "both"),
        default="both",
        help="log backend(s) for the tests that run on each (default: both)",
    )


# DuckDB syncs its file at every commit and checkpoint: 10-15 ms each on this machine's disk,
# under 1 ms on tmpfs, over thousands of commits a run. The workspaces stay real files either
# way (a killed process leaves the same bytes behind), so the suite's temporary directories go
# to tmpfs when the machine has one with room, unless TMPDIR names a place already.
_TMPFS = Path("/dev/shm")
_TMPFS_ROOM = 4 << 30


def _temporary_files_on_tmpfs() -> None:
    if os.environ.get("TMPDIR") or not os.access(_TMPFS, os.W_OK):
        return
    fs = os.statvfs(_TMPFS)
    if fs.f_bavail * fs.f_frsize >= _TMPFS_ROOM:
        os.environ["TMPDIR"] = str(_TMPFS)  # child processes (`uac serve`, the CLI) too
        tempfile.tempdir = None  # recomputed from TMPDIR by the next gettempdir()


# The processes the tests start (`uac serve`, the CLI, each query's sandbox zygote: thousands
# a run) import uac's modules; under PYTHONDONTWRITEBYTECODE none of them, nor the pytest
# processes for what conftest imports before it lifts the setting, writes a module's bytecode,
# so each compiled ~90 of them from source (~0.1 s of CPU a start, measured on `uac serve`).
# The session writes the product's bytecode once first, as an ordinary import would (the
# files go to the ignored __pycache__ folders; up to date, they are only checked).
_PRODUCT = Path(__file__).resolve().parents[1]  # the `uac` package (pyproject.toml)


def _product_bytecode_written() -> None:
    import compileall

    try:  # a checkout the run cannot write to keeps compiling in each process, as before
        for part in sorted(_PRODUCT.iterdir()):  # uac's own packages: not tests, bench, .venv
            if part.name not in ("tests", "bench") and (part / "__init__.py").is_file():
                compileall.compile_dir(part, quiet=2)
        compileall.compile_file(_PRODUCT / "__init__.py", quiet=2)
    except OSError:
        pass


def pytest_configure(config: pytest.Config) -> None:
    _temporary_files_on_tmpfs()
    if not hasattr(config, "workerinput"):  # once, in the process that starts the run
        _product_bytecode_written()
    config.addinivalue_line(
        "markers",
        "duckdb_only(reason): the test is about the embedded DuckDB file itself; its postgres"
        " run is skipped with the reason",
    )
    config.addinivalue_line(
        "markers",
        "no_workspace(reason): the test opens no workspace (nothing of it differs between the"
        " backends): it runs once, not once per backend, and any workspace open fails it",
    )
    config.addinivalue_line(
        "markers",
        "one_backend(reason): the test reads no log, only what its module's workspace fixture"
        " compiled (a checkpoint's files): it runs once, on the first backend chosen",
    )
    config.addinivalue_line(
        "markers",
        "postgres_bug(reason): a known product bug on PostgreSQL; its postgres run must fail"
        " (strict xfail) until the bug is fixed",
    )


# UAC_DB in a test marked `no_workspace`: not a log's URL, so any workspace the test opened
# would refuse to open, naming this.
NO_WORKSPACE = "no-workspace: this test is marked no_workspace and may open none"


def _strict_xfail(reason: str) -> pytest.MarkDecorator:
    # strict: the day the bug is fixed the test passes, the run fails, and the mark goes.
    return pytest.mark.xfail(reason=reason, strict=True)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # `backend` depends on `module_backend`, so one parameter serves both (module-scoped:
    # a module's tests run grouped per backend, and module fixtures are built once each).
    if "module_backend" in metafunc.fixturenames:
        choice = metafunc.config.getoption("backend")
        names = BACKENDS if choice == "both" else (choice,)
        for once in ("no_workspace", "one_backend"):  # nothing to run per backend: once
            found = metafunc.definition.get_closest_marker(once)
            if found is not None:  # on the first backend chosen
                assert found.args or found.kwargs, f"{metafunc.definition.nodeid}: {once}: why?"
                names = names[:1]
        params: list = list(names)
        for name, mark in (("duckdb_only", pytest.mark.skip), ("postgres_bug", _strict_xfail)):
            found = metafunc.definition.get_closest_marker(name)
            if found is None:
                continue
            reason = found.kwargs.get("reason") or (found.args[0] if found.args else "")
            assert reason, f"{metafunc.definition.nodeid}: {name} needs a reason"
            label = "DuckDB only" if name == "duckdb_only" else "known PostgreSQL bug"
            marks = mark(reason=f"{label}: {reason}")
            params = [pytest.param(n, marks=marks) if n == "postgres" else n for n in names]
        metafunc.parametrize("module_backend", params, indirect=True, scope="module")


TESTS_DB = "uac_tests"  # one database per cluster: each test's log is a schema of it


def _db_url(cluster: Cluster, name: str) -> str:
    return cluster.url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Cluster]:
    """One throwaway PostgreSQL cluster for the whole session, stopped at the end."""
    import psycopg

    bindir = find_bin()
    if bindir is None:
        if os.environ.get("CI") == "true":
            pytest.fail(HOW_TO_ENABLE)
        pytest.skip(HOW_TO_ENABLE)
    cluster = Cluster.start(bindir)
    try:
        with psycopg.connect(cluster.url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {TESTS_DB}")  # type: ignore[arg-type]
    except BaseException:
        cluster.stop()
        raise
    yield cluster
    _close_setup_connection(cluster)
    cluster.stop()


# One open connection per cluster's test database (per process), on which each new log's
# schema is created and migrated: a connection per log cost a server process start and end
# each time (~4 ms of the server's CPU per connection, two per log, measured), besides the
# client's pool and its thread.
_SETUP_CONNECTIONS: dict[str, Any] = {}


def _setup_connection(base: str) -> Any:
    import psycopg

    conn = _SETUP_CONNECTIONS.get(base)
    if conn is None or conn.closed:
        conn = _SETUP_CONNECTIONS[base] = psycopg.connect(base, autocommit=True)
    return conn


class _LogOnConnection:
    """What `PgLog.migrate` uses of a PgLog (a transaction, a name for errors), on the setup
    connection with one log's search path: the product's own migration, run there."""

    _version = staticmethod(PgLog._version)

    def __init__(self, conn: Any, schema: str) -> None:
        self.conn, self.schema, self.where = conn, schema, schema

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        with self.conn.transaction(), self.conn.cursor() as cur:
            cur.execute("SELECT set_config('search_path', %s, true)", [self.schema])
            yield cur


def new_database(cluster: Cluster) -> str:
    """The URL of a new log on the cluster, its tables migrated and empty.

    Each log is a schema of its own in one database, chosen by the URL's options (the
    search path): a third of the time of copying a template database per test, and the
    cluster's directory stays small (docs/testing.md). The schema is created and migrated
    (by `PgLog.migrate` itself) on one connection kept open for the whole run.
    """
    name = "t_" + uuid.uuid4().hex[:16]
    base = _db_url(cluster, TESTS_DB)
    conn = _setup_connection(base)
    conn.execute(f"CREATE SCHEMA {name}")
    PgLog.migrate(_LogOnConnection(conn, name))  # type: ignore[arg-type]
    return f"{base}?options=-csearch_path%3D{name}"


def _schema_of(url: str) -> str:
    """The schema a `new_database` URL names (its search path)."""
    schema = url.rsplit("search_path%3D", 1)[1]
    assert schema.startswith("t_") and schema.isidentifier(), url
    return schema


def copy_log(cluster: Cluster, source: str, target: str) -> None:
    """Make the log at `target` (a `new_database`, nothing written yet) a copy of the log at
    `source`: every table's rows and both sequences, byte for byte, in one transaction.

    For a module that builds one PostgreSQL-bound workspace and gives each test a copy of
    its own (the workspace's directory copied too, and bound to `target`: `rebind`), as a
    DuckDB workspace is copied by copying its directory.
    """
    src, dst = _schema_of(source), _schema_of(target)
    conn = _setup_connection(_db_url(cluster, TESTS_DB))
    with conn.transaction():
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s"
                " ORDER BY table_name",
                [src],
            ).fetchall()
        ]
        assert {"facts", "inputs", "uac_meta", "chain_heads"} <= set(tables), tables
        for table in tables:
            conn.execute(f'DELETE FROM {dst}."{table}"')  # type: ignore[arg-type]
            conn.execute(f'INSERT INTO {dst}."{table}" SELECT * FROM {src}."{table}"')  # type: ignore[arg-type]
        for seq in ("uac_fact_seq", "uac_input_seq"):
            value, called = conn.execute(
                f"SELECT last_value, is_called FROM {src}.{seq}"  # type: ignore[arg-type]
            ).fetchone()
            conn.execute("SELECT setval(%s, %s, %s)", [f"{dst}.{seq}", value, called])


def rebind(home: Path, url: str) -> None:
    """Bind a copied PostgreSQL-bound workspace directory to the log at `url` (a `copy_log`
    of the log it was bound to): the one row of its file that names its log."""
    import duckdb

    from uac.fact_log.backends.postgres import META_KEY
    from uac.fact_log.store import DB_FILE

    con = duckdb.connect(str(home / DB_FILE))
    try:
        assert con.execute("SELECT count(*) FROM meta WHERE key = ?", [META_KEY]).fetchone() == (1,)
        con.execute("UPDATE meta SET value = ? WHERE key = ?", [url, META_KEY])
    finally:
        con.close()


def _close_setup_connection(cluster: Cluster) -> None:
    conn = _SETUP_CONNECTIONS.pop(_db_url(cluster, TESTS_DB), None)
    if conn is not None:
        conn.close()


def _migrated(url: str) -> str:
    """The log at url with its tables created (what a first node's open would do)."""
    log = PgLog(url, max_size=1)
    try:
        log.migrate()
    finally:
        log.close()
    return url


def own_database(cluster: Cluster) -> str:
    """The URL of a new database of its own on the cluster, its log tables migrated.

    For the tests about what PostgreSQL keeps on disk: VACUUM can drop an old row version
    only once no open transaction in the same database may still see it, so a log that
    shares its database with other tests' logs (a schema, `new_database`) could be held back
    by a connection another test left open.
    """
    import psycopg

    name = "d_" + uuid.uuid4().hex[:16]
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    return _migrated(_db_url(cluster, name))


@pytest.fixture
def pg_url(pg_server: Cluster) -> str:
    """The URL of a new database on the session's cluster, holding the empty log tables."""
    return new_database(pg_server)


@pytest.fixture(scope="module")
def module_backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """The log backend of this module's run; for postgres, one database for the module.

    For module-scoped workspaces (built once, read by many tests); tests that open their own
    workspaces use `backend`, which binds each test to a database of its own.
    """
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "postgres":
            patch.setenv("UAC_DB", new_database(request.getfixturevalue("pg_server")))
            # Every workspace bound to one log is a node of it: they share one chain key file.
            key = request.getfixturevalue("tmp_path_factory").mktemp("key") / "chain.key"
            patch.setenv("UAC_CHAIN_KEY_FILE", str(key))
        else:
            patch.delenv("UAC_DB", raising=False)
        yield request.param


@pytest.fixture
def backend(
    module_backend: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> str:
    """The log backend of this run; for postgres, the test's workspaces bind to a new database.

    Every workspace a test opens on postgres is a node of that one log, so they share one
    chain key file (as a deployment's nodes must).
    """
    # one_backend is for tests reading what a module fixture compiled: a test with a log of
    # its own (this fixture) is storage behaviour, and runs on each backend
    assert request.node.get_closest_marker("one_backend") is None, (
        f"{request.node.nodeid}: one_backend, but the test has a log of its own (`backend`)"
    )
    if request.node.get_closest_marker("no_workspace") is not None:
        # the mark holds: opening a workspace (here or in a child process) fails at once
        monkeypatch.setenv("UAC_DB", NO_WORKSPACE)
        return module_backend
    if module_backend == "postgres":
        monkeypatch.setenv("UAC_DB", request.getfixturevalue("pg_url"))
        key = request.getfixturevalue("tmp_path_factory").mktemp("key") / "chain.key"
        monkeypatch.setenv("UAC_CHAIN_KEY_FILE", str(key))
    return module_backend


@pytest.fixture(autouse=True)
def _embedded_unless_asked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that asks for no backend runs on DuckDB, even among a module's postgres runs."""
    if "module_backend" not in request.fixturenames:
        monkeypatch.delenv("UAC_DB", raising=False)


@pytest.fixture
def fresh_log(
    backend: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Callable[[object], AbstractContextManager[None]]:
    """`with fresh_log(home): ...` binds the workspace at `home` to a log of its own.

    For tests that open two independent workspaces (two logs that must not see each
    other): on postgres the block binds UAC_DB to a new database per `home` (the same one
    when the workspace is reopened in another block); on DuckDB each workspace file is its
    own log already, and the block does nothing.
    """
    if backend != "postgres":
        return lambda home: nullcontext()

    cluster = request.getfixturevalue("pg_server")
    urls: dict[object, str] = {}

    @contextmanager
    def bind(home: object) -> Iterator[None]:
        if home not in urls:
            urls[home] = new_database(cluster)
        before = os.environ["UAC_DB"]
        monkeypatch.setenv("UAC_DB", urls[home])
        try:
            yield
        finally:
            monkeypatch.setenv("UAC_DB", before)

    return bind


T0 = dt.datetime(2025, 1, 1, 12, 0, 0)


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A 127.0.0.1 port that refuses every connection for the whole test.

    Held bound and never listening: a port found free and closed again could be taken by
    another process (an xdist worker's server) before the test connects to it.
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.fixture
def shared_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every node of one log signs with the same key file (as a deployment must)."""
    path = tmp_path / "chain.key"
    monkeypatch.setenv("UAC_CHAIN_KEY_FILE", str(path))
    return path


def pg_node(tmp_path: Path, name: str, url: str) -> Memory:
    """A workspace ("node") named `name` bound to the PostgreSQL log at `url`."""
    return Memory(tmp_path / name, create=True, react=False, log_db=url)


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
    the default, reacting Memory is tested in test_alert_wiring.py. It is a copy of the
    process's empty workspace (`new_workspace`: 3 ms of CPU against 120 ms to create; on
    PostgreSQL the open then binds the copy to the test's log).
    """
    with Memory(new_workspace(home), create=True, react=False) as memory:
        yield memory


# The empty workspaces each process copies (new_workspace), made on first use: unbound, and
# one for PostgreSQL runs whose key is a file of its own (as UAC_CHAIN_KEY_FILE names there).
_EMPTY_WORKSPACE: dict[str, Path] = {}


def _empty_workspace(kind: str) -> Path:
    if kind not in _EMPTY_WORKSPACE:
        template = Path(tempfile.mkdtemp(prefix="uac-empty-")) / "ws"
        atexit.register(shutil.rmtree, template.parent, True)
        with pytest.MonkeyPatch.context() as patch:
            patch.delenv("UAC_DB", raising=False)
            if kind == "keyed":
                patch.setenv("UAC_CHAIN_KEY_FILE", str(template.parent / "chain.key"))
            else:
                patch.delenv("UAC_CHAIN_KEY_FILE", raising=False)
            Memory(template, create=True, react=False).close()
        _EMPTY_WORKSPACE[kind] = template
    return _EMPTY_WORKSPACE[kind]


def new_workspace(home: Path) -> Path:
    """Make `home` an empty workspace as `Memory(home, create=True)` would; returns home.

    The workspace is a copy of one created once per process (a DuckDB workspace is its
    directory: ~3 ms of CPU to copy against ~120 ms to create, its tables' migration and a
    new chain key), so every copy signs with that one's key. Bound to PostgreSQL (UAC_DB, the
    `backend` fixture), the copy is of a workspace not bound yet whose key went to a file of
    its own; that key file is copied to where UAC_CHAIN_KEY_FILE points, and the test's own
    `Memory(home, create=True)` binds the copy to the log (the log's migration and keying are
    the product's, as at a create); a test's later workspaces (`fresh_log`, more nodes) share
    that key file and are copies too. Nothing is made when the key file named by
    UAC_CHAIN_KEY_FILE holds another key (made by the test's own opens), or is named without
    UAC_DB: the test's open creates the workspace.
    """
    key = os.environ.get("UAC_CHAIN_KEY_FILE")
    if key and not os.environ.get("UAC_DB"):
        return home
    template = _empty_workspace("keyed" if key else "plain")
    if key:
        ring = (template.parent / "chain.key").read_bytes()
        if not Path(key).exists():
            fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # as KeyRing does
            with os.fdopen(fd, "wb") as out:
                out.write(ring)
        elif Path(key).read_bytes() != ring:  # another key signs this test's logs
            return home
    shutil.copytree(template, home)
    return home


def write(path: Path, text: str | bytes) -> Path:
    """Write a test input file and return its path."""
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def rows(memory: Memory, table: str) -> int:
    """Rows of `outbox` or `jobs` where the workspace keeps them (PostgreSQL when bound)."""
    backend = memory.store.backend
    if backend.name != "postgres":
        return memory.store.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    with backend.log.pool.connection() as conn:
        return conn.execute(f"SELECT count(*) FROM uac_{table}").fetchone()[0]  # type: ignore[index]


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


def reads_linearly(read: Callable[[str], object], text: str) -> None:
    """Assert that reading `text` costs about 4x reading its first quarter, not 16x.

    A guard against a return to quadratic reading that a busy machine cannot trip: both
    reads are CPU time of this process, slowed alike by other load; an absolute bound
    flaked when CI shared the cores. Under a second of CPU nothing is asserted (no
    quadratic reading of 64 KiB is that fast).
    """
    times = []
    for part in (text[: len(text) // 4], text):
        start = time.process_time()
        read(part)
        times.append(time.process_time() - start)
    small, big = times
    assert big < 1.0 or big < 8 * max(small, 0.1), f"{small:.2f} s for a quarter, {big:.2f} s whole"
