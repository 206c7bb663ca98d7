"""The query sandbox: typed results, typed errors, and hostile programs contained.

Two subjects (alice, bob) are compiled in a temporary workspace; every query runs against
alice's checkpoint and bob's marker values must never appear in any answer.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import resource
from decimal import Decimal
from pathlib import Path

import pytest

from uac import Memory
from uac.runtime.sandbox import Limits, Sandbox, run_query, shutdown
from uac.runtime.sandbox.helpers import by_month, by_year, count_by, group_by, sum_by, top_k, window

pytestmark = pytest.mark.usefixtures("module_backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("sandbox helpers and its seccomp filter alone: no log")
# Queries over alice's compiled checkpoint: its files, no log. They run once; the two that
# check what the checkpoint holds (its values, nothing of bob) run on each backend's compile.
ONCE = pytest.mark.one_backend("a query over a checkpoint's files: nothing of it reads the log")

TODAY = dt.date(2026, 11, 29)
BOB_MARK = "Zzbobsecret"
# A runaway query is stopped by its CPU limit (1 s of its own CPU, which load cannot
# stretch) or by the wall limit, whichever comes first. At a 1 s wall limit a query that
# must answer (tens of ms of CPU) could fail when a loaded machine held its worker off
# the CPU; 10 s is ~8x such a query at load 50 on 2 cores, and caps a runaway's wait.
FAST = Limits(timeout_s=10.0, cpu_s=1, memory_mb=128)

ALICE_TRIPS = [
    {"country": "JP", "city": "Tokyo", "depart": "2024-04-09", "cost": "2176.73"},
    {"country": "JP", "city": "Kyoto", "depart": "2024-10-01", "cost": "1500.00"},
    {"country": "DE", "city": "Berlin", "depart": "2023-03-01", "cost": "437.59"},
    {"country": "FR", "city": "Paris", "depart": "2024-06-15", "cost": "612.10"},
    {"country": "FR", "city": "Lyon", "depart": "2022-01-20"},
]
BOB_TRIPS = [
    {"country": "NZ", "city": BOB_MARK, "depart": "2024-05-05", "cost": "987654.32"},
]


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory: pytest.TempPathFactory, module_backend: str) -> dict[str, Path]:
    """Checkpoint directories of alice and bob, compiled in one workspace."""
    home = tmp_path_factory.mktemp("sandbox") / "ws"
    with Memory(home, create=True, react=False) as mem:  # compiled below, once each
        mem.set("alice", "identity.name", "Alice Liddell")
        mem.set("alice", "identity.passport.expiry_date", "2031-05-01")
        mem.set("bob", "identity.name", f"Bob {BOB_MARK}")
        mem.import_records("alice", "trips", ALICE_TRIPS)
        mem.import_records("bob", "trips", BOB_TRIPS)
        mem.import_records(
            "alice",
            "transactions",
            [
                {"date": f"2024-{m:02d}-{d:02d}", "amount": f"{m}.{d:02d}", "category": c}
                for m in range(1, 13)
                for d, c in ((3, "dining"), (17, "groceries"))
            ],
        )
        mem.compile("alice")
        mem.compile("bob")
        dirs = {s: mem.checkpoint(s).directory for s in ("alice", "bob")}
    yield dirs
    shutdown()


@pytest.fixture(scope="module")
def alice(ckpts: dict[str, Path]) -> Path:
    """Alice's checkpoint directory."""
    return ckpts["alice"]


def q(ckpt: Path, program: str, limits: Limits | None = FAST, **kw: object) -> dict:
    """Run a query and check the envelope never leaks bob's data."""
    env = run_query(ckpt, program, today=TODAY, limits=limits, **kw)  # type: ignore[arg-type]
    text = json.dumps(env)
    assert BOB_MARK not in text and "987654" not in text
    assert set(env) >= {"ok", "checkpoint", "elapsed_ms"}
    return env


def err(env: dict) -> str:
    """The error type of a failed envelope."""
    assert env["ok"] is False, env
    assert isinstance(env["error"]["message"], str) and env["error"]["message"]
    return env["error"]["type"]


# -- ordinary queries ------------------------------------------------------------------------


def test_aggregates_and_encoding(alice: Path) -> None:
    env = q(alice, "sum(t.cost for t in user.trips if t.depart.year == 2024)")
    assert env["ok"] and env["result"] == "4288.83"
    assert env["checkpoint"] == alice.name
    assert q(alice, "Counter(t.country for t in user.trips).most_common(1)[0][0]")["result"] in (
        "JP",
        "FR",
    )
    assert q(alice, "user.passport.expiry_date")["result"] == "2031-05-01"
    assert q(alice, "{t.country for t in user.trips}")["result"] == ["DE", "FR", "JP"]
    assert q(alice, "{(1, 2): today}")["result"] == {"[1,2]": "2026-11-29"}
    trip = q(alice, "[t for t in user.trips if t.city == 'Paris'][0]")["result"]
    assert trip["cost"] == "612.10" and trip["depart"] == "2024-06-15" and trip["fact_ids"]


@ONCE
def test_statements_and_last_expression(alice: Path) -> None:
    prog = "total = 0\nfor t in user.trips:\n    if t.cost:\n        total += t.cost\ntotal"
    assert q(alice, prog)["result"] == "4726.42"
    assert q(alice, "f'{today:%Y}-{len(user.trips):03d}'")["result"] == "2026-005"
    assert err(q(alice, "x = 1")) == "syntax_error"


@ONCE
def test_facades_and_helpers_in_sandbox(alice: Path) -> None:
    assert q(alice, "statistics.median([1, 3, 2])")["result"] == 2
    assert q(alice, "math.inf > 10**9")["result"] is True
    assert q(alice, "(today - date(2026, 1, 1)).days")["result"] == 332
    assert q(alice, "count_by(user.trips, 'country')")["result"] == {"DE": 1, "FR": 2, "JP": 2}
    assert q(alice, "sum_by(user.transactions, 'category', 'amount')")["result"] == {
        "dining": "78.36",
        "groceries": "80.04",
    }
    top = q(alice, "[t.city for t in top_k(user.trips, 'cost', 2)]")["result"]
    assert top == ["Tokyo", "Kyoto"]
    months = q(alice, "{m: len(v) for m, v in by_month(user.trips, 'depart').items()}")["result"]
    assert list(months) == sorted(months) and months["2024-04"] == 1


@ONCE
def test_facades_and_functions_show_only_their_name(alice: Path) -> None:
    for name in ("math", "statistics", "datetime", "collections", "itertools"):
        for program in (f"repr({name})", f"str({name})", f"f'{{{name}}}'"):
            assert q(alice, program)["result"] == f"<uac facade {name}>", program
    # Helpers and size-capped functions too: no qualname, no address.
    for program, name in [
        ("repr(sum_by)", "sum_by"),
        ("str(range)", "range"),
        ("f'{itertools.combinations}'", "combinations"),
        ("repr(itertools.product)", "product"),
    ]:
        assert q(alice, program)["result"] == f"<uac function {name}>", program


@ONCE
def test_errors_are_typed_with_lines(alice: Path) -> None:
    env = q(alice, "x = 1\ny = (\n")
    assert err(env) == "syntax_error" and env["error"]["line"] is not None
    env = q(alice, "x = 1\ny = 1 / 0\nx")
    assert err(env) == "runtime_error" and env["error"]["line"] == 2
    env = q(alice, "a = 1\nb = a.__class__\nb")
    assert err(env) == "not_allowed" and env["error"]["line"] == 2


@ONCE
def test_explain_reports_records_and_fact_ids(alice: Path) -> None:
    env = q(alice, "sum(t.cost for t in user.trips if t.country == 'JP')", explain=True)
    ex = env["explain"]
    assert len(ex["records"]) == 5 and all(r.startswith("user.trips[") for r in ex["records"])
    assert len(ex["fact_ids"]) >= 5
    env = q(alice, "user.passport.expiry_date", explain=True)
    assert env["explain"]["fields"] == ["user.passport.expiry_date"]
    assert env["explain"]["fact_ids"]
    assert "explain" not in q(alice, "1")


# -- hostile programs ------------------------------------------------------------------------

HOSTILE = [
    # import tricks
    ("import os\n1", "not_allowed"),
    ("from os import system\n1", "not_allowed"),
    ("__import__('os')", "not_allowed"),
    ("__builtins__", "not_allowed"),
    ("user.__class__", "not_allowed"),
    # object-graph walks
    ("().__class__.__bases__[0].__subclasses__()", "not_allowed"),
    ("(lambda: 1).__globals__", "not_allowed"),
    ("user.__reduce_ex__(2)", "not_allowed"),
    ("(x for x in []).gi_frame", "not_allowed"),
    ("g = (x for x in [1])\ng.gi_code", "not_allowed"),
    ("'abc'.upper.__self__", "not_allowed"),
    ("type(user)", "runtime_error"),
    ("getattr(user, 'trips')", "runtime_error"),
    ("vars(user)", "runtime_error"),
    ("statistics.mean.func_globals", "not_allowed"),
    ("[t for t in user.trips].tb_frame", "not_allowed"),
    ("str.format('{0.__class__}', 1)", "not_allowed"),
    ("date.today()", "not_allowed"),
    # format-string traversal
    ("'{0.__class__}'.format(user)", "not_allowed"),
    ("'{x}'.format_map({'x': user})", "not_allowed"),
    ("f'{user:{1}}'", "not_allowed"),
    ("format(user, 'x')", "runtime_error"),
    ("f'{1:>99999999}'", "limit_exceeded"),
    # module attributes without underscores
    ("statistics.sys", "not_allowed"),
    ("datetime.sys", "not_allowed"),
    ("itertools.count(1)", "not_allowed"),
    ("collections.abc", "not_allowed"),
    ("math.factorial(10**6)", "not_allowed"),
    # mutation of state and facades
    ("user.trips = ()\n1", "not_allowed"),
    ("user.trips[0].cost = 0\n1", "not_allowed"),
    ("object.__setattr__(user, 'trips', ())", "not_allowed"),
    ("math.pi = 3\n1", "not_allowed"),
    ("d = {}\nd['x'] = 1\nd", "not_allowed"),
    ("user.trips.append(1)", "not_allowed"),
    ("del user\n1", "not_allowed"),
    # returned objects that would run code later
    ("(x for x in [1])", "bad_result"),
    ("lambda: 1", "bad_result"),
    ("math", "bad_result"),
    ("len", "bad_result"),
    ("zip([1], [2])", "bad_result"),
    ("float('nan')", "bad_result"),
    ("{1: 'a', '1': 'b'}", "bad_result"),
    # BaseException escapes
    ("raise SystemExit\n1", "not_allowed"),
    ("SystemExit(1)", "runtime_error"),
    ("exit()", "runtime_error"),
    ("try:\n    x = 1\nexcept BaseException:\n    x = 2\nx", "not_allowed"),
    ("while True:\n    pass\n1", "not_allowed"),
    ("def f():\n    return 1\nf()", "not_allowed"),
    ("class A:\n    pass\nA", "not_allowed"),
    ("with x:\n    pass\n1", "not_allowed"),
    ("(y := 1)", "not_allowed"),
    ("a, *b = [1, 2]\nb", "not_allowed"),
    ("max(*[1, 2])", "not_allowed"),
    ("dict(**{'a': 1})", "not_allowed"),
    # memory bombs
    ("'a' * 10**10", "limit_exceeded"),
    ("[0] * 10**10", "limit_exceeded"),
    ("'%999999999d' % 1", "not_allowed"),
    ("f'{1:999999999}'", "limit_exceeded"),
    ("x = 'a' * 1000000\ny = x.replace('a', x)\nlen(y)", "limit_exceeded"),
    ("list(range(10**7))", "limit_exceeded"),
    ("x = 'ab' * 400000\nx + x + x", "limit_exceeded"),
    # CPU bombs
    ("10**10**8", "limit_exceeded"),
    ("2 << 10**9", "limit_exceeded"),
    ("sum(1 for i in range(10**6) for j in range(10**6))", "limit_exceeded"),
    ("xs = [0]\nsum(1 for x in xs if not xs.append(x))", "limit_exceeded"),
    ("len(list(itertools.combinations(range(1000), 5)))", "limit_exceeded"),
    ("x = 3\nfor i in range(30):\n    x = x * x\nx", "limit_exceeded"),
    # recursion, parser depth, huge int to string
    ("f = lambda n: f(n + 1)\nf(0)", "limit_exceeded"),
    ("[" * 5000 + "]" * 5000, "syntax_error"),
    ("1" + "+1" * 3000, "limit_exceeded"),
    ("str(10**100000)", "limit_exceeded"),
    ("int('9' * 5000)", "limit_exceeded"),
]


@ONCE
@pytest.mark.parametrize(("program", "expected"), HOSTILE, ids=[p[:40] for p, _ in HOSTILE])
def test_hostile_program_is_contained(alice: Path, program: str, expected: str) -> None:
    env = q(alice, program)
    assert err(env) == expected, env
    # Stopped by the sandbox's own limits, before the host's deadline (timeout + slack): a run
    # the host gives up on is a sandbox_error, not limit_exceeded. No wall-clock bound here:
    # load stretches every run alike.
    if env["error"]["message"].startswith("the query took longer"):
        assert f"{FAST.timeout_s:g} s" in env["error"]["message"], env


@ONCE
def test_parser_bomb_sources(alice: Path) -> None:
    bomb = "(" * 100_000 + ")" * 100_000
    assert err(q(alice, bomb)) == "limit_exceeded"  # over max_source, refused by the host
    big = Limits(timeout_s=2.0, cpu_s=1, max_source=300_000)
    assert err(q(alice, bomb, limits=big)) in ("syntax_error", "limit_exceeded")


@ONCE
def test_state_is_not_mutated_between_queries(alice: Path) -> None:
    assert q(alice, "xs = list(user.trips)\nxs.append(1)\nlen(xs)")["result"] == 6
    assert q(alice, "c = Counter()\nc.update({'a': 1})\nc")["ok"] is False
    assert q(alice, "len(user.trips)")["result"] == 5


@ONCE
def test_host_survives_bombs_without_growing(alice: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for program in ("'a' * 10**10", "x = 'a' * 1000000\nx.replace('a', x)", "10**10**8"):
        assert q(alice, program)["ok"] is False
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert after - before < 50_000  # KiB
    assert q(alice, "1 + 1")["result"] == 2


def test_subjects_are_isolated(ckpts: dict[str, Path]) -> None:
    everything = q(ckpts["alice"], "user", limits=None)
    assert everything["ok"] and everything["result"]["identity"]["name"] == "Alice Liddell"
    bob = run_query(ckpts["bob"], "user.identity.name", today=TODAY)
    assert bob["result"] == f"Bob {BOB_MARK}"
    assert q(ckpts["alice"], "user.identity.name")["result"] == "Alice Liddell"


@ONCE
def test_determinism_across_runs_and_restarts(alice: Path) -> None:
    prog = "list({t.city for t in user.trips}) + [str(hash('x') % 7)]"
    first = q(alice, prog)
    assert err(first) == "runtime_error"  # hash is not a builtin
    prog = "list({t.city for t in user.trips})"
    runs = [q(alice, prog)["result"] for _ in range(3)]
    box = Sandbox(alice)
    try:
        runs.append(box.run(prog, today=TODAY)["result"])
        box.start()  # a restarted zygote must answer the same
        runs.append(box.run(prog, today=TODAY)["result"])
    finally:
        box.close()
    assert all(r == runs[0] for r in runs)


@ONCE
def test_seccomp_filter_is_loaded(alice: Path) -> None:
    box = Sandbox(alice)
    try:
        assert box.seccomp, "libseccomp is expected on Linux test machines"
        plan = box.confinement
        assert plan["seccomp"] == "allow-list" and plan["warnings"] == [], plan
        if os.geteuid() == 0:  # CI: children drop to nobody inside an empty root
            assert plan["identity"] == "uid 65534" and plan["root"] == "chroot", plan
    finally:
        box.close()


# -- helpers, in process ---------------------------------------------------------------------


@NO_LOG
def test_helpers_semantics() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class R:
        key: str
        day: dt.date | None
        n: Decimal | None
        cat: str

    rows = [
        R("b", dt.date(2024, 1, 31), Decimal("1.10"), "x"),
        R("a", dt.date(2024, 2, 1), Decimal("1.10"), "y"),
        R("c", None, None, "x"),
        R("d", dt.date(2025, 2, 1), Decimal("0.05"), "x"),
    ]
    assert [r.key for r in top_k(rows, "n", 2)] == ["a", "b"]  # tie broken by key ascending
    assert [r.key for r in top_k(rows, "n", 1, smallest=True)] == ["d"]
    assert top_k({"x": 2, "a": 2, "m": 1}, None, 2) == [("a", 2), ("x", 2)]
    assert count_by(rows, "cat") == {"x": 3, "y": 1}
    assert sum_by(rows, "cat", "n") == {"x": Decimal("1.15"), "y": Decimal("1.10")}
    assert list(group_by(rows, lambda r: r.day is None)) == [False, True]
    assert [r.key for r in window(rows, "day", dt.date(2024, 1, 31), dt.date(2024, 2, 1))] == [
        "b",
        "a",
    ]
    assert list(by_month(rows, "day")) == ["2024-01", "2024-02", "2025-02"]
    assert list(by_year(rows, "day")) == [2024, 2025]
    with pytest.raises(AttributeError):
        count_by(rows, "__class__")


@NO_LOG
def test_seccomp_filter_blocks_files_and_exec() -> None:
    import os
    import signal

    from uac.runtime.sandbox.confine import Seccomp

    filt = Seccomp()
    assert filt.ok, filt.reason
    for action in ("open", "exec"):
        pid = os.fork()
        if pid == 0:  # only raw system calls in the child: the test process may have threads
            code = 1
            try:
                filt.load()
                if action == "open":
                    try:
                        os.open("/etc/hostname", os.O_RDONLY)
                    except PermissionError:
                        code = 0
                else:
                    os.execv("/bin/true", ["/bin/true"])
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if action == "open":
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        else:
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSYS


@ONCE
def test_explain_tracks_reads_made_by_helpers(alice: Path) -> None:
    env = q(alice, "count_by(user.trips, 'country')", explain=True)
    assert len(env["explain"]["records"]) == 5


@ONCE
def test_concurrent_queries_agree(alice: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    prog = "sorted((t.city, t.cost) for t in user.trips if t.cost)"
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: q(alice, prog)["result"], range(12)))
    assert all(r == results[0] for r in results) and len(results[0]) == 4


@ONCE
@pytest.mark.parametrize(
    "program",
    [
        "repr(map(str, [1]))",
        "str((x for x in [1]))",
        "repr('a'.upper)",
        "f'{filter(None, [1])}'",
        "{repr(zip([1], [2])): 1}",
        "[repr(enumerate([1])), repr(reversed([1]))]",
    ],
)
def test_results_never_show_a_memory_address(alice: Path, program: str) -> None:
    env = q(alice, program)
    assert env["ok"] is True, env
    assert "0x" not in json.dumps(env["result"]), env["result"]


@ONCE
def test_errors_name_a_helper_not_the_host_function_that_made_it(alice: Path) -> None:
    env = q(alice, "top_k(1, 2, 3, 4)")
    assert err(env) == "runtime_error"
    assert "top_k()" in env["error"]["message"] and "<locals>" not in env["error"]["message"]
