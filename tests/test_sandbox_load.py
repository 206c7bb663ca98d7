"""The query sandbox's wall limit on a busy machine: waiting for a CPU is not the query's fault.

- a query that needs a little CPU still answers `ok` while CPU burners, pinned to the one
  core its zygote and workers are pinned to, keep it waiting for that core far longer than
  its wall limit (the wall limit leaves out the time a worker waits for a CPU);
- a worker that neither runs nor answers (stopped: no CPU used, none waited for) is still
  ended by the wall limit with `limit_exceeded`, and the next query gets a fresh worker;
- a program that runs on is still ended with `limit_exceeded` under load, by its CPU limit
  or by its wall limit (which counts the time it runs).

No wall-clock bounds: the burners make the query wait, and the outcome is asserted.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_sandbox_reuse import workers
from uac import Memory
from uac.runtime.sandbox import Limits, Sandbox

pytestmark = [
    pytest.mark.usefixtures("module_backend"),
    pytest.mark.one_backend("a sandbox over a checkpoint's files: nothing of it reads the log"),
]

TODAY = dt.date(2026, 11, 29)
# About a tenth of a second of CPU: nothing, alone; several seconds of wall time on a core
# shared with BURNERS processes that never sleep.
WORK = "sum(i % 7 for i in range(1000) for j in range(1000))"
BURNERS = 12
# Burners end by themselves after this many seconds, should the test never stop them.
BURNER_LIFE_S = 240


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory, module_backend: str) -> Path:
    """A compiled subject with a name."""
    home = tmp_path_factory.mktemp("load") / "ws"
    with Memory(home, create=True, react=False) as mem:  # compiled below, once
        mem.set("alice", "identity.name", "Alice Liddell")
        mem.compile("alice")
        return mem.checkpoint("alice").directory


@contextlib.contextmanager
def loaded_core(box: Sandbox, burners: int = BURNERS) -> Iterator[None]:
    """The sandbox's zygote and workers share one core with `burners` busy processes."""
    assert box._proc is not None
    core = {max(os.sched_getaffinity(0))}
    for pid in (box._proc.pid, *workers(box)):  # workers forked later inherit its core
        os.sched_setaffinity(pid, core)
    burn = f"import time\nend = time.monotonic() + {BURNER_LIFE_S}\n"
    burn += "while time.monotonic() < end: pass"
    procs = [subprocess.Popen([sys.executable, "-S", "-c", burn]) for _ in range(burners)]
    try:
        for proc in procs:
            os.sched_setaffinity(proc.pid, core)
        yield
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


@pytest.fixture
def box(ckpt: Path) -> Iterator[Sandbox]:
    """A sandbox with worker reuse on, warmed by one query."""
    sandbox = Sandbox(ckpt, reuse=True)
    assert sandbox.run("1", today=TODAY)["ok"]
    yield sandbox
    sandbox.close()


def test_a_query_waiting_for_a_busy_core_still_answers(box: Sandbox) -> None:
    # Alone, each query uses about a fifth of the wall limit; with the core shared 13 ways
    # each takes several times the limit in wall time, nearly all of it waiting for the core.
    limits = Limits(timeout_s=0.5, cpu_s=2)
    assert box.run(WORK, today=TODAY, limits=limits)["ok"]  # a worker with these limits
    with loaded_core(box):
        envelopes = [box.run(WORK, today=TODAY, limits=limits) for _ in range(2)]
    assert [e["ok"] for e in envelopes] == [True] * 2, envelopes
    assert {e["result"] for e in envelopes} == {sum(i % 7 for i in range(1000)) * 1000}


def test_a_runaway_under_load_is_still_stopped(box: Sandbox) -> None:
    runaway = "sum(1 for i in range(10**6) for j in range(10**6))"
    with loaded_core(box, burners=3):  # a quarter of the core: enough to show, and quicker
        by_cpu = box.run(runaway, today=TODAY, limits=Limits(timeout_s=30.0, cpu_s=1))
        by_wall = box.run(runaway, today=TODAY, limits=Limits(timeout_s=0.5, cpu_s=30))
    assert by_cpu["ok"] is False and by_cpu["error"]["type"] == "limit_exceeded", by_cpu
    assert "CPU" in by_cpu["error"]["message"], by_cpu
    assert by_wall["ok"] is False and by_wall["error"]["type"] == "limit_exceeded", by_wall
    assert "longer than 0.5 s" in by_wall["error"]["message"], by_wall


def test_a_worker_that_neither_runs_nor_answers_is_stopped_by_the_wall_limit(
    box: Sandbox,
) -> None:
    stopped = workers(box)
    assert stopped  # the worker that answered "1", and its spare
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)  # blocked: it uses no CPU and waits for none
    try:
        stuck = box.run("1", today=TODAY)
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    assert stuck["ok"] is False and stuck["error"]["type"] == "limit_exceeded", stuck
    assert f"longer than {Limits().timeout_s:g} s" in stuck["error"]["message"], stuck
    assert box.run("1 + 1", today=TODAY)["result"] == 2  # a fresh worker serves the next
