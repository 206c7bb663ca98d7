"""Layer 3: the warm parent that forks one child per query, and the child's lifecycle.

Started by the host as `python runtime/sandbox/boot.py CHECKPOINT_DIR` with a scrubbed
environment (PYTHONHASHSEED=0, TZ=UTC). It imports exactly one checkpoint — so a child can
hold no other subject's state — builds the policy, preloads everything a query can need
(nothing is imported after the fork, when the child can no longer open files), freezes the
heap for copy-on-write and then serves requests, one JSON line each, on its stdin/stdout.
Per request it hands the program to a child forked ahead of time and already confined
(runtime/sandbox/confine.py: privileges dropped, system-call allow-list loaded); the child
writes canonical JSON to its result pipe; the zygote enforces the wall clock with SIGKILL
and answers the host with one JSON line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import gc
import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from uac.runtime.sandbox.confine import Plan, Seccomp, confine, empty_root, make_plan
from uac.runtime.sandbox.engine import Limits, Policy, execute

# What a confined child does with its one request: (request, result fd) -> None.
Serve = Callable[[dict[str, Any], int], None]


def _vm_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


class Confiner:
    """Everything a child needs to confine itself, prepared once in the zygote."""

    def __init__(self, plan: Plan, seccomp: Seccomp, base_vm: int):
        self.plan, self.seccomp, self.base_vm = plan, seccomp, base_vm

    def apply(self, limits: Limits, request_fd: int, result_fd: int) -> None:
        """Confine the calling child; the request is then on fd 0 and the result on fd 1."""
        # Address-space cap relative to the zygote's size: the inherited heap is mapped.
        memory = self.base_vm + limits.memory_mb * 1024 * 1024
        cpu = max(1, int(limits.cpu_s))
        confine(self.plan, self.seccomp, request_fd, result_fd, memory, cpu)

    def probe(self) -> str:
        """Confine a throwaway child and check it can still answer; '' or what went wrong."""
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 3
            try:
                self.apply(Limits(), req_r, res_w)
                os.write(1, b"ok")
                code = 0
            finally:
                os._exit(code)
        for fd in (req_r, res_w, req_w):
            os.close(fd)
        answer = b"".join(iter(lambda: os.read(res_r, 64), b""))
        os.close(res_r)
        _, status = os.waitpid(pid, 0)
        if answer == b"ok" and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            return ""
        if os.WIFSIGNALED(status):
            return f"a confined child died with signal {os.WTERMSIG(status)}"
        return "a child could not be confined"


def _child(policy: Policy, request: dict[str, Any], fd: int) -> None:
    """Production `Serve`: layers 1 and 2 run the program; its envelope goes to fd."""
    limits = Limits(**request["limits"])
    today = dt.date.fromisoformat(request["today"])
    try:
        sys.setrecursionlimit(400)
        reply = execute(request["program"], policy, today, limits, request["explain"])
        data = json.dumps(reply, ensure_ascii=False).encode()
    except BaseException as exc:
        message = f"{type(exc).__name__} in the sandbox"
        data = json.dumps(
            {"ok": False, "error": {"type": "sandbox_error", "message": message, "line": None}}
        ).encode()
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Spare:
    """A child forked ahead of time and already confined, waiting for its one request.

    The zygote forks the next spare while the current child runs, so neither the fork, the
    confinement nor the child's teardown sits on a query's critical path.
    """

    def __init__(self, confiner: Confiner, serve: Serve, limits: dict[str, Any]):
        # A spare is confined before it sees a request, so it only serves requests with
        # exactly these limits; others get a fresh spare.
        self.limits = limits
        req_r, self.req_w = os.pipe()
        self.res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 3
            try:
                os.close(self.req_w)  # or the request pipe never reaches EOF
                os.close(self.res_r)
                # Closes every other descriptor too: the zygote's protocol pipes and the
                # pipes of children still running.
                confiner.apply(Limits(**limits), req_r, res_w)
                raw = b"".join(iter(lambda: os.read(0, 1 << 16), b""))
                os.close(0)
                request = json.loads(raw)
                if request["limits"] != limits:
                    raise RuntimeError("a spare got a request with other limits")
                serve(request, 1)
                os.close(1)  # EOF now: the zygote answers before this process is torn down
                code = 0
            finally:
                os._exit(code)
        os.close(req_r)
        os.close(res_w)
        self.pid = pid

    def discard(self) -> None:
        """Kill and reap an unused spare."""
        for fd in (self.req_w, self.res_r):
            os.close(fd)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)

    def send(self, request: dict[str, Any]) -> None:
        """Hand the request to the child; its wall clock starts now."""
        self.deadline = time.monotonic() + float(request["limits"]["timeout_s"])
        try:
            os.write(self.req_w, json.dumps(request).encode())
        finally:
            os.close(self.req_w)

    def collect(self, request: dict[str, Any]) -> dict[str, Any]:
        """The child's answer, or a typed error if it overran, overflowed or died."""
        limits = Limits(**request["limits"])
        read_fd, pid = self.res_r, self.pid
        deadline = self.deadline
        chunks: list[bytes] = []
        size, killed, too_big, eof = 0, False, False, False
        cap = limits.max_result_bytes * 2 + 65536
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    killed = True
                    break
                ready, _, _ = select.select([read_fd], [], [], left)
                if not ready:
                    continue
                chunk = os.read(read_fd, 1 << 16)
                if not chunk:
                    eof = True
                    break
                size += len(chunk)
                if size > cap:
                    too_big = True
                    break
                chunks.append(chunk)
        finally:
            os.close(read_fd)
        if eof and chunks:
            try:
                reply = json.loads(b"".join(chunks))
            except ValueError:
                reply = None
            if reply is not None:
                return reply
        if killed or too_big:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        self.pid = 0
        if killed:
            return _error("limit_exceeded", f"the query took longer than {limits.timeout_s:g} s")
        if too_big:
            return _error("bad_result", "the result is too large")
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig in (signal.SIGXCPU, signal.SIGKILL):
                return _error("limit_exceeded", f"the query used more than {limits.cpu_s} s of CPU")
            if sig == signal.SIGSYS:
                return _error("sandbox_error", "the query attempted a forbidden system call")
            return _error("sandbox_error", f"the query process died with signal {sig}")
        return _error("sandbox_error", "the query process returned no answer")

    def reap(self) -> bool:
        """Collect the finished child without blocking; True once it is gone."""
        if not self.pid:
            return True
        done, _ = os.waitpid(self.pid, os.WNOHANG)
        return bool(done)


def _error(code: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": {"type": code, "message": message, "line": None}}


# Programs run once in the zygote so that every lazily imported module (identifier
# normalisation, strftime, statistics' internals) is loaded before the filter forbids open().
_WARM_UP = (
    "sorted(str(x) for x in [1.5, today, Decimal('1')])",
    "é = 1\nß = é + 1\nß",
    "f'{today:%Y %b %A}' + f'{1.5:.2f}{Decimal(1):>5}{2:,}'",
    "statistics.mean([1, 2]) + statistics.stdev([1.0, 2.0]) + statistics.median([Decimal(1)])",
    "Decimal('1.234').quantize(Decimal('0.01'))",
    "undefined_name",
    "1 / 0",
    "int('x')",
    "'a' * 10**10",
    "(",
    "user",
)


def load(directory: Path) -> Policy:
    """Import one checkpoint and warm every code path a query takes (before any fork)."""
    from uac.compiler import loader

    package = loader.import_package(directory, signed=False)  # the host checked it
    try:
        paths = json.loads((directory / "provenance.json").read_text("utf-8"))["paths"]
    except (OSError, ValueError, KeyError):
        paths = {}  # explain then names fields without their fact ids
    policy = Policy(package.schema, package.state.user, Limits(), paths)
    for program in _WARM_UP:
        execute(program, policy, dt.date(2000, 1, 1), Limits(), True)
    return policy


def prepare(root: str) -> Confiner:
    """Compile the filter, decide the plan and freeze the heap; call after `load`."""
    seccomp = Seccomp()
    plan = make_plan(root, seccomp)
    gc.collect()
    gc.freeze()  # keep the collector from touching (and so copying) inherited pages
    return Confiner(plan, seccomp, _vm_bytes())


def serve_forever(proto_in: Any, proto_out: Any, confiner: Confiner, serve: Serve) -> None:
    """Answer one request line with one reply line until EOF on proto_in."""
    spare = Spare(confiner, serve, dataclasses.asdict(Limits()))
    finished: list[Spare] = []
    for line in proto_in:
        current = spare
        try:
            request = json.loads(line)
            if request["limits"] != current.limits:
                current.discard()
                current = Spare(confiner, serve, request["limits"])
            current.send(request)
            # The next spare is forked while this query runs (on the other core).
            spare = Spare(confiner, serve, request["limits"])
            reply = current.collect(request)
        except Exception as exc:
            reply = _error("sandbox_error", f"the sandbox failed: {type(exc).__name__}")
            if spare is current:
                spare = Spare(confiner, serve, dataclasses.asdict(Limits()))
        proto_out.write(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
        proto_out.flush()
        finished.append(current)
        finished = [c for c in finished if not c.reap()]
        if len(finished) > 16:  # a child that closed its pipe but lingers is killed
            for c in finished:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(c.pid, signal.SIGKILL)
                os.waitpid(c.pid, 0)
            finished = []
    spare.discard()


def main() -> None:
    """Load one checkpoint, confine a probe child, report ready, then serve until EOF."""
    directory = Path(sys.argv[1])
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    root = ""
    try:
        try:
            policy = load(directory)
            root = empty_root()
            confiner = prepare(root)
            failure = confiner.probe()
            if failure:
                raise RuntimeError(f"query children cannot be confined: {failure}")
            hello = {
                "ready": True,
                "version": directory.name,
                "seccomp": confiner.plan.seccomp,
                "confinement": confiner.plan.describe(),
            }
        except Exception as exc:
            hello = {"ready": False, "message": f"{type(exc).__name__}: {exc}"}
        proto_out.write(json.dumps(hello).encode() + b"\n")
        proto_out.flush()
        if hello["ready"]:
            serve_forever(proto_in, proto_out, confiner, functools.partial(_child, policy))
    finally:
        if root:
            os.rmdir(root)


if __name__ == "__main__":
    main()
