"""Layers 1 and 2 of the query sandbox, each alone, in process.

Layer 1 (the AST allow-list) is run without executing anything; layer 2 (the rewrite, the
guards and the curated builtins and facades) is run on programs the validator never saw,
for payload classes layer 1 normally stops first. Layer 3 alone is in
test_sandbox_confinement.py.
"""

from __future__ import annotations

import ast
import datetime as dt

import pytest

from uac import Memory
from uac.compiler import loader
from uac.runtime.sandbox.engine import (
    Guards,
    LimitExceeded,
    Limits,
    NotAllowed,
    Policy,
    QueryFailure,
    compile_program,
    lower,
    run,
    validate,
)

pytestmark = [
    pytest.mark.usefixtures("module_backend"),
    pytest.mark.one_backend("sandbox layers over a checkpoint's files: nothing reads the log"),
]

TODAY = dt.date(2026, 11, 29)

# Payloads layer 1 refuses; each is a different way out of the curated namespace.
ESCAPES = [
    "user.__class__",
    "().__class__.__bases__[0].__subclasses__()",
    "(lambda: 1).__globals__",
    "user.__reduce_ex__(2)",
    "(x for x in [1]).gi_frame",
    "'abc'.upper.__self__",
    "_g_attr.__globals__",
    "_g_attr.__closure__[0].cell_contents",
    "statistics.mean.__globals__",
    "math.__class__.__dict__",
    "date.today()",
    "math.factorial(10)",
    "statistics.sys",
    "user.trips[0].__dataclass_fields__",
    "len.__self__",
    "__import__('os')",
    "import os\nos",
    "from os import system\nsystem",
    "class A:\n    pass\nA",
    "def f():\n    return 1\nf.__code__",
    "try:\n    1 / 0\nexcept Exception as e:\n    x = e.__traceback__.tb_frame\nx",
    "user.trips = ()\n1",
]
# Payloads only layer 2 stops: names are checked for '_' but not against the builtins, a
# method name allowed on one type passes layer 1 for every receiver, and sizes are known
# only at run time.
GUARDED_ONLY = [
    "'{0.__class__}'.format(user)",
    "open('/etc/hostname')",
    "eval('1')",
    "'%999999999d' % 1",
    "'a' * 10**10",
    "[0] * 10**10",
    "user.trips.append(1)",
]


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory, module_backend: str) -> Policy:
    """The policy of a compiled subject with a few trips, loaded in this process."""
    home = tmp_path_factory.mktemp("layers") / "ws"
    with Memory(home, create=True, react=False) as mem:  # compiled below, once
        mem.import_records(
            "alice",
            "trips",
            [{"country": "JP", "city": "Tokyo", "depart": "2024-04-09", "cost": "2176.73"}],
        )
        mem.compile("alice")
        ckpt = mem.checkpoint("alice").directory
    package = loader.import_package(ckpt)
    return Policy(package.schema, package.state.user, Limits())


@pytest.mark.parametrize("program", ESCAPES)
def test_layer1_alone_refuses_before_running(policy: Policy, program: str) -> None:
    tree = ast.parse(program, "<query>", "exec")
    with pytest.raises(QueryFailure) as info:
        validate(tree, policy.all_attrs, Limits())
    assert info.value.code in ("not_allowed", "limit_exceeded"), info.value.message


def test_layer1_lets_the_guarded_only_payloads_through(policy: Policy) -> None:
    # So that GUARDED_ONLY really exercises layer 2 alone even in the full pipeline.
    for program in GUARDED_ONLY:
        validate(ast.parse(program, "<query>", "exec"), policy.all_attrs, Limits())


@pytest.mark.parametrize("program", ESCAPES + GUARDED_ONLY)
def test_layer2_alone_holds_when_the_validator_is_bypassed(policy: Policy, program: str) -> None:
    try:
        code = lower(ast.parse(program, "<query>", "exec"))
    except QueryFailure as exc:  # e.g. assignment to an attribute became a call: no program
        assert exc.code == "syntax_error"
        return
    guards = Guards(policy, Limits(), False)
    with pytest.raises((NotAllowed, LimitExceeded, ImportError, NameError)):
        value = run(code, guards, TODAY)
        pytest.fail(f"layer 2 let {program!r} through: {value!r}")


def test_layer2_still_answers_ordinary_programs(policy: Policy) -> None:
    code = lower(ast.parse("sum(t.cost for t in user.trips)", "<query>", "exec"))
    assert str(run(code, Guards(policy, Limits(), False), TODAY)) == "2176.73"
    # and the validated path agrees
    validated = compile_program("sum(t.cost for t in user.trips)", policy.all_attrs, Limits())
    assert str(run(validated, Guards(policy, Limits(), False), TODAY)) == "2176.73"


def test_facade_repr_hides_module_and_address(policy: Policy) -> None:
    for name, facade in policy.facades.items():
        assert repr(facade) == f"<uac facade {name}>" == str(facade)
