"""Query worker reuse: one confined worker serves many queries, and no query changes what the
next one sees.

Each defence is tried on its own where it can be:
- the worker lifecycle (through the real zygote): one worker serves many queries; any failed
  query (error, limit, timeout) replaces it; per-query CPU, memory and wall limits hold on a
  worker that has already spent more than one query's allowance; reuse=False forks per query;
- a fresh namespace per query (globals, lambdas, generators and the builtins dict);
- the rewrite alone (layer 2, validator bypassed): stores to attributes and items of the
  persistent objects do not compile, mutating methods of persistent objects are refused;
- the reset between queries: leftover cycles (a suspended generator kept by a lambda) are
  collected, the decimal context and the recursion limit are restored;
- the deep-immutability check: a typed state holding a list or a mutable record is not
  reused (the zygote falls back to a fresh process per query).
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import decimal
import gc
import os
import signal
import sys
import time
import types
from pathlib import Path

import pytest

from uac import Memory
from uac.runtime.sandbox import Limits, Sandbox, zygote
from uac.runtime.sandbox.engine import Guards, NotAllowed, Policy, QueryFailure, execute, lower, run

pytestmark = [
    pytest.mark.usefixtures("module_backend"),
    pytest.mark.one_backend("a sandbox over a checkpoint's files: nothing of it reads the log"),
]
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("sandbox layers over a state in memory: no log")

TODAY = dt.date(2026, 11, 29)
TRIPS = [
    {"country": "JP", "city": "Tokyo", "depart": "2024-04-09", "cost": "2176.73"},
    {"country": "FR", "city": "Paris", "depart": "2024-06-15", "cost": "612.10"},
]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory, module_backend: str) -> Path:
    """A compiled subject with a name, a passport and two trips."""
    home = tmp_path_factory.mktemp("reuse") / "ws"
    with Memory(home, create=True, react=False) as mem:  # compiled below, once
        mem.set("alice", "identity.name", "Alice Liddell")
        mem.import_records("alice", "trips", TRIPS)
        mem.compile("alice")
        return mem.checkpoint("alice").directory


@pytest.fixture
def box(ckpt: Path):
    """A sandbox with worker reuse on, warmed by one query."""
    sandbox = Sandbox(ckpt, reuse=True)
    assert sandbox.max_queries > 1
    assert run_ok(sandbox, "1") == 1
    yield sandbox
    sandbox.close()


@pytest.fixture(scope="module")
def policy(ckpt: Path) -> Policy:
    """The policy a zygote builds for the checkpoint, in this process."""
    return zygote.load(ckpt)


def workers(box: Sandbox) -> set[int]:
    """Pids of the zygote's children: the current worker and the spare."""
    parent = box._proc.pid  # type: ignore[union-attr]
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            # A replaced worker lingers as a zombie until the zygote reaps it: not a worker.
            if int(ppid) == parent and state not in ("Z", "X"):
                found.add(int(name))
    return found


def settled_workers(box: Sandbox) -> set[int]:
    """The worker and its spare, once a worker retired by new limits has finished exiting
    (it is no zombie yet while it tears down: on a loaded host that can take a while)."""
    for _ in range(1200):  # up to 60 s: a bound, not a timing
        if len(found := workers(box)) <= 2:
            return found
        time.sleep(0.05)
    raise AssertionError(f"a retired worker never exited: {found}")


def run_ok(box: Sandbox, program: str, limits: Limits | None = None) -> object:
    """Run a program that must succeed; its result."""
    env = box.run(program, today=TODAY, limits=limits)
    assert env["ok"], env
    return env["result"]


def error(box: Sandbox, program: str, limits: Limits | None = None) -> dict:
    """Run a program that must fail; its error."""
    env = box.run(program, today=TODAY, limits=limits)
    assert env["ok"] is False, env
    return env["error"]


# -- lifecycle, through the real zygote ------------------------------------------------------


def test_one_worker_serves_many_queries(box: Sandbox) -> None:
    before = workers(box)
    assert len(before) == 2  # the worker and its spare
    for i in range(20):
        assert run_ok(box, f"len(user.trips) + {i}") == 2 + i
    assert workers(box) == before


FAILURES = [
    ("undefined_name", "runtime_error"),
    ("user.__class__", "not_allowed"),
    ("(", "syntax_error"),
    ("lambda: 1", "bad_result"),
    ("'a' * 10**10", "limit_exceeded"),
    ("sum(1 for i in range(10**6) for j in range(10**6))", "limit_exceeded"),
]


@pytest.mark.parametrize(("program", "kind"), FAILURES, ids=[p for p, _ in FAILURES])
def test_any_failed_query_replaces_the_worker(box: Sandbox, program: str, kind: str) -> None:
    first = workers(box)
    assert len(first) == 2  # the worker and its spare
    assert error(box, program)["type"] == kind
    assert len(first - workers(box)) == 1  # the worker that failed is gone (killed, reaped)
    run_ok(box, "1")
    assert len(workers(box)) == 2


def test_without_reuse_every_query_gets_a_fresh_process(ckpt: Path) -> None:
    box = Sandbox(ckpt, reuse=False)
    try:
        assert box.max_queries == 1
        seen: set[int] = set()
        for _ in range(4):
            run_ok(box, "len(user.trips)")
            # Each query's replacement was forked while it ran: a new pid after every one
            # (with reuse the set stays {worker, spare}: test_one_worker_serves_many_queries).
            seen |= workers(box)
        assert len(seen) >= 4
    finally:
        box.close()


class _Confining(zygote.Confiner):
    """A confiner whose `apply` does `how` instead of confining (the worker's side only)."""

    def __init__(self, how: str):
        self.how, self.base_vm = how, 0

    def apply(self, limits: Limits, request_fd: int, result_fd: int, reused: bool = False) -> None:
        os.dup2(request_fd, 0)
        os.dup2(result_fd, 1)
        if self.how == "refuse":
            raise OSError("cannot confine")
        if self.how == "die":
            os.kill(os.getpid(), signal.SIGSYS)


def _answer(request: dict) -> tuple[bool, bytes]:
    return True, b'{"ok": true, "result": 1}'


@NO_LOG
def test_a_one_shot_worker_is_its_own_probe() -> None:
    """`once`: the worker says "ok" once confined, then answers; one that cannot be
    confined, or dies confining itself, fails as the probe does, and is reaped."""
    limits = dataclasses.asdict(Limits())
    worker = zygote.Worker(_Confining("confine"), _answer, limits, announce=True)
    assert worker.ready() == ""
    request = {"limits": limits}
    worker.send(request)
    assert worker.collect(request) == b'{"ok": true, "result": 1}'
    assert os.waitpid(worker.pid, 0)[1] == 0
    for how, why in (
        ("refuse", "a child could not be confined"),
        ("die", f"a confined child died with signal {int(signal.SIGSYS)}"),
    ):
        worker = zygote.Worker(_Confining(how), _answer, limits, announce=True)
        assert worker.ready() == why
        assert worker.pid == 0 and worker.req_w == -1 and worker.res_r == -1


def test_cpu_limit_is_per_query_on_a_reused_worker(box: Sandbox) -> None:
    # Each query burns about a quarter of a second of CPU: together twice cpu_s, each well
    # within it (half a second each left a 2x margin, which a slower core or a hyperthread
    # sharing the core under load eats into). RLIMIT_CPU counts the whole process, so only
    # a per-query allowance lets the later ones run.
    limits = Limits(cpu_s=1, timeout_s=20.0)
    run_ok(box, "1", limits)  # a worker is confined with its limits: start one with these
    before = settled_workers(box)
    for _ in range(8):
        assert run_ok(box, "sum(i % 7 for i in range(2500) for j in range(1000))", limits) > 0
    assert workers(box) == before
    burn = "sum(1 for i in range(10**6) for j in range(10**6))"
    failure = error(box, burn, limits)
    assert failure["type"] == "limit_exceeded" and "CPU" in failure["message"]


def test_memory_limit_is_per_query_on_a_reused_worker(box: Sandbox) -> None:
    limits = Limits(memory_mb=64, max_str=10**9, timeout_s=10.0)
    run_ok(box, "1", limits)
    before = settled_workers(box)
    for _ in range(5):
        assert run_ok(box, "len('x' * 40_000_000)", limits) == 40_000_000
    assert workers(box) == before
    failure = error(box, "len('x' * 120_000_000)", limits)
    assert failure["type"] == "limit_exceeded"
    assert run_ok(box, "len('x' * 40_000_000)", limits) == 40_000_000


def test_wall_clock_is_per_query_on_a_reused_worker(box: Sandbox) -> None:
    limits = Limits(timeout_s=0.5, cpu_s=5)
    failure = error(box, "sum(1 for i in range(10**6) for j in range(10**6))", limits)
    assert failure["type"] == "limit_exceeded" and "longer than" in failure["message"]
    assert run_ok(box, "len(user.trips)") == 2


# -- nothing of one query is visible to the next ---------------------------------------------

LEAKS = [
    ("x = 41\nx + 1", "x", "NameError"),
    ("f = lambda: user\n1", "f", "NameError"),
    ("g = (t for t in user.trips)\nnext(g)\n1", "g", "NameError"),
    ("xs = [1]\nkeep = lambda: xs\nxs.append(2)\nlen(xs)", "len(xs)", "NameError"),
    ("today = 5\n1", "today == date(2026, 11, 29)", None),
    ("len = sum\nlen([2, 3])", "len([2, 3])", None),
    ("Counter = list\n1", "Counter('aab')['a']", None),
    ("math = 1\nmath", "math.floor(2.5)", None),
    ("user = 0\nuser", "user.identity.name", None),
    ("sum_by = 0\n1", "sum_by(user.trips, 'country', 'cost')['JP']", None),
]


@pytest.mark.parametrize(("first", "second", "raised"), LEAKS, ids=[f for f, _, _ in LEAKS])
def test_a_query_cannot_leave_anything_for_the_next(
    box: Sandbox, first: str, second: str, raised: str | None
) -> None:
    before = workers(box)
    run_ok(box, first)
    assert workers(box) == before  # the second query runs in the same worker
    env = box.run(second, today=TODAY)
    if raised:
        assert env["ok"] is False and env["error"]["message"].startswith(raised), env
    else:
        assert env["ok"] and env["result"] in (True, 2, 5, "Alice Liddell", "2176.73"), env


def test_each_namespace_is_fresh(policy: Policy) -> None:
    first = Guards(policy, Limits(), False).namespace(TODAY)
    first["__builtins__"]["len"] = sum  # raw Python: past every layer
    first["math"] = None
    first["count_by"] = None
    second = Guards(policy, Limits(), False).namespace(TODAY)
    assert second["__builtins__"]["len"] is len and policy.builtins["len"] is len
    assert second["math"] is policy.facades["math"]
    assert second["count_by"] is not None and second["count_by"] is not first["count_by"]


# -- layer 2 alone: the persistent objects cannot be changed ---------------------------------

STORES = [
    "math.pi = 3\n1",
    "user.identity.name = 'x'\n1",
    "user.trips[0] = 1\n1",
    "date.min = 1\n1",
    "del math.floor\n1",
    "del user.trips[0]\n1",
]


@NO_LOG
@pytest.mark.parametrize("program", STORES)
def test_layer2_alone_stores_do_not_compile(program: str) -> None:
    with pytest.raises(QueryFailure) as info:
        lower(ast.parse(program))
    assert info.value.code == "syntax_error"


MUTATORS = [
    "user.trips.append(1)",
    "user.trips.extend([1])",
    "user.identity.replace(name='x')",
    "math.floor.update(1)",
    "statistics.mean.clear()",
    "Counter.update(Counter(), 'a')",
    "date.replace(date.min, year=2)",
    "range.append(1)",
    "itertools.chain.append(1)",
    "user.identity.name.join.update(1)",
    "__builtins__.update({'len': sum})",
    "__builtins__.clear()",
]


@pytest.mark.parametrize("program", MUTATORS)
def test_layer2_alone_refuses_mutating_methods_of_persistent_objects(
    policy: Policy, program: str
) -> None:
    code = lower(ast.parse(program))
    with pytest.raises((NotAllowed, AttributeError)):
        run(code, Guards(policy, Limits(), False), TODAY)
    assert execute("len(user.trips)", policy, TODAY, Limits(), False)["result_json"] == "2"


# -- the reset between queries ---------------------------------------------------------------


def _query_generators() -> list[object]:
    return [
        o
        for o in gc.get_objects()
        if isinstance(o, types.GeneratorType) and o.gi_code.co_filename == "<query>"
    ]


def test_reset_collects_what_a_query_left_suspended(policy: Policy) -> None:
    program = "keep = lambda: gen\ngen = (t for t in user.trips)\nnext(gen).city"
    gc.disable()  # only the reset may collect here
    try:
        assert execute(program, policy, TODAY, Limits(), False)["ok"]
        assert _query_generators(), "the cycle (lambda -> globals -> lambda) keeps it alive"
        zygote.reset_between_queries()
        assert _query_generators() == []
    finally:
        gc.enable()


@NO_LOG
def test_reset_restores_decimal_context_and_recursion_limit() -> None:
    limit = sys.getrecursionlimit()
    try:
        context = decimal.getcontext()
        context.prec = 3
        context.traps[decimal.Inexact] = True
        decimal.Decimal(1) / decimal.Decimal(7)
    except decimal.Inexact:
        pass
    try:
        zygote.reset_between_queries()
        fresh = decimal.getcontext()
        assert fresh.prec == 28 and not fresh.traps[decimal.Inexact]
        assert not any(fresh.flags.values())
        assert sys.getrecursionlimit() == 400
    finally:
        sys.setrecursionlimit(limit)


# -- only a deeply immutable state is reused -------------------------------------------------


def _policy_of(user: object, *classes: type) -> Policy:
    schema = types.ModuleType("schema")
    for cls in (*classes, type(user)):
        setattr(schema, cls.__name__, cls)
    return Policy(schema, user, Limits())


@dataclasses.dataclass(frozen=True, slots=True)
class Tagged:
    key: str
    tags: object


@dataclasses.dataclass(frozen=True, slots=True)
class Root:
    items: tuple


@dataclasses.dataclass(slots=True)
class Loose:
    key: str


def test_the_compiled_state_is_deeply_immutable(policy: Policy) -> None:
    assert zygote.deeply_immutable(policy)


@NO_LOG
@pytest.mark.parametrize(
    "user",
    [
        Root((Tagged("a", ["x"]),)),
        Root((Tagged("a", {"x": 1}),)),
        Root((Tagged("a", (1, {2})),)),
        Root((Loose("a"),)),
    ],
    ids=["list", "dict", "set-in-tuple", "mutable-record"],
)
def test_a_state_with_anything_mutable_is_not_reused(user: Root) -> None:
    assert not zygote.deeply_immutable(_policy_of(user, Tagged, Loose))
    assert zygote.deeply_immutable(_policy_of(Root((Tagged("a", ("x",)),)), Tagged))


@pytest.mark.parametrize(
    "program",
    ["len(range(100))", "len(list(itertools.combinations(range(6), 2)))",
     "len(list(itertools.product(range(4), range(4))))"],
)  # fmt: skip
def test_a_query_gets_its_own_sequence_cap(policy: Policy, program: str) -> None:
    # The policy's capped functions are built once with the default cap; a request's own
    # max_seq must hold for them too (in either direction).
    small = execute(program, policy, TODAY, Limits(max_seq=10), False)
    assert small["ok"] is False and small["error"]["type"] == "limit_exceeded", small
    assert execute(program, policy, TODAY, Limits(), False)["ok"]
    big = execute("len(range(5_000_000))", policy, TODAY, Limits(max_seq=10**7), False)
    assert big["result_json"] == "5000000"
    assert execute(
        "len(list(itertools.chain([1], [2])))", policy, TODAY, Limits(max_seq=10), False
    )["ok"]
