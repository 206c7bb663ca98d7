"""Property tests of the query sandbox: agreement with plain CPython, robustness, determinism."""

from __future__ import annotations

import datetime as dt
import json
import statistics
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac import Memory
from uac.runtime.sandbox import Limits, Sandbox
from uac.runtime.sandbox.engine import Policy, encode_result
from uac.runtime.sandbox.helpers import make_helpers

pytestmark = [
    pytest.mark.usefixtures("module_backend"),
    pytest.mark.one_backend("a sandbox over a checkpoint's files: nothing of it reads the log"),
]

TODAY = dt.date(2026, 11, 29)
# A runaway query is stopped by its CPU limit (1 s of its own CPU, which load cannot
# stretch) or by the wall limit, whichever comes first. At a 1 s wall limit a query that
# must answer (tens of ms of CPU) could fail when a loaded machine held its worker off
# the CPU; 10 s is ~8x such a query at load 50 on 2 cores, and caps a runaway's wait.
FAST = Limits(timeout_s=10.0, cpu_s=1, memory_mb=128)
ERRORS = {"syntax_error", "not_allowed", "runtime_error", "limit_exceeded", "bad_result"}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, module_backend: str):
    """A compiled subject with varied trips, its loaded state, and a warm sandbox."""
    home = tmp_path_factory.mktemp("sbprop") / "ws"
    countries = ["JP", "FR", "DE", "US", "IT"]
    trips = [
        {
            "country": countries[i % 5],
            "city": f"City{i % 7}",
            "depart": f"{2021 + i % 4}-{1 + i % 12:02d}-{1 + i % 27:02d}",
            "cost": f"{(i * 37) % 900 + 10}.{i % 100:02d}",
        }
        for i in range(60)
    ]
    with Memory(home, create=True, react=False) as mem:  # compiled below, once
        mem.import_records("alice", "trips", trips)
        mem.compile("alice")
        ckpt = mem.checkpoint("alice")
    box = Sandbox(ckpt.directory)
    policy = Policy(ckpt.package.schema, ckpt.user, Limits())
    yield box, ckpt, policy
    box.close()


FIELDS = {"cost": "t.cost", "year": "t.depart.year", "month": "t.depart.month"}
KEYS = {"country": "t.country", "city": "t.city", "year": "t.depart.year"}


@st.composite
def aggregate(draw: st.DrawFn) -> str:
    """A small aggregate expression over user.trips."""
    cond = draw(
        st.sampled_from(
            [
                "True",
                f"t.country == {draw(st.sampled_from(['JP', 'FR', 'XX']))!r}",
                f"t.depart.year >= {draw(st.integers(2020, 2025))}",
                f"t.cost > {draw(st.integers(0, 900))}",
                "t.city.lower().endswith('1')",
            ]
        )
    )
    value = FIELDS[draw(st.sampled_from(sorted(FIELDS)))]
    key = KEYS[draw(st.sampled_from(sorted(KEYS)))]
    gen = f"for t in user.trips if {cond}"
    k = draw(st.integers(1, 4))
    return draw(
        st.sampled_from(
            [
                f"sum({value} {gen})",
                f"len([t {gen}])",
                f"max([{value} {gen}], default=None)",
                f"sorted({{{key} {gen}}})",
                f"Counter({key} {gen}).most_common({k})",
                f"sorted(({value}, t.key) {gen})[:{k}]",
                f"{{str({key}): {value} {gen}}}",
                f"count_by([t {gen}], lambda t: {key})",
                f"sum_by([t {gen}], lambda t: {key}, lambda t: {value})",
                f"[t.key for t in top_k([t {gen}], lambda t: {value}, {k})]",
                f"statistics.median([{value} {gen}] or [0])",
            ]
        )
    )


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(program=aggregate())
def test_sandbox_agrees_with_plain_python(world, program: str) -> None:
    box, ckpt, policy = world
    ns = {"user": ckpt.user, "Counter": Counter, "statistics": statistics, **make_helpers()}
    expected = json.loads(encode_result(eval(program, ns), policy, Limits()))
    env = box.run(program, today=TODAY, limits=FAST)
    assert env["ok"], env
    assert env["result"] == expected


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(program=st.text(max_size=80))
def test_random_text_never_crashes_the_host(world, program: str) -> None:
    box, _, _ = world
    env = box.run(program, today=TODAY, limits=FAST)
    assert env["ok"] or env["error"]["type"] in ERRORS, env


_TOKENS = st.sampled_from(
    ["user", ".", "trips", "(", ")", "[", "]", "0", "1", "*", "**", "+", "'a'", "t", "for",
     " in ", "if", "sum", "len", "__class__", "format", ",", "lambda", ":", "\n", "=", "x"]
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(parts=st.lists(_TOKENS, max_size=25))
def test_random_token_soup_is_typed(world, parts: list[str]) -> None:
    box, _, _ = world
    env = box.run(" ".join(parts), today=TODAY, limits=FAST)
    assert env["ok"] or env["error"]["type"] in ERRORS, env


def test_repeatable_across_runs_and_restarts(world) -> None:
    box, ckpt, _ = world
    programs = [
        "list({t.city for t in user.trips})",
        "Counter(t.country for t in user.trips).most_common()",
        "sum(t.cost for t in user.trips)",
    ]
    first = [box.run(p, today=TODAY)["result"] for p in programs]
    again = [box.run(p, today=TODAY)["result"] for p in programs]
    other = Sandbox(ckpt.directory)
    try:
        fresh = [other.run(p, today=TODAY)["result"] for p in programs]
    finally:
        other.close()
    assert first == again == fresh
