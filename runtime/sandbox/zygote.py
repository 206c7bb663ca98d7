"""Layer 3: the warm parent that forks confined query workers, and their lifecycle.

Started by the host as `python runtime/sandbox/boot.py CHECKPOINT_DIR` with a scrubbed
environment (PYTHONHASHSEED=0, TZ=UTC). It imports exactly one checkpoint — so a worker can
hold no other subject's state — builds the policy, preloads everything a query can need
(nothing is imported after the fork, when the worker can no longer open files), freezes the
heap for copy-on-write and then serves requests, one JSON line each, on its stdin/stdout.

Requests go to a worker forked ahead of time and already confined
(runtime/sandbox/confine.py: privileges dropped, system-call allow-list loaded). A worker
serves many queries of this one checkpoint over its pipes (one length-prefixed frame
each way), so neither the fork, the confinement nor the teardown sits on a query's path.
Per query the zygote sets the worker's CPU limit to what it has used plus the query's
allowance and its address-space limit to what it holds plus the query's memory, and
enforces the wall clock with SIGKILL: `timeout_s` leaves out the time the worker waited
for a CPU (`Worker.overran`), `backstop_s` does not. A worker is replaced after any failed
query (an error, a limit, a death), after `max_queries`, or when its CPU budget or growth
runs out; between queries it drops everything the last one left (`reset_between_queries`).
With `max_queries=1` (UAC_SANDBOX_REUSE=0 on the host) every query gets a fresh process;
a one-shot host's zygote (`once`) answers one query, by the worker forked ahead, then ends.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import decimal
import functools
import gc
import json
import os
import select
import signal
import struct
import sys
import time
from collections.abc import Callable
from itertools import chain
from operator import attrgetter
from types import MappingProxyType
from typing import Any

from uac.runtime.sandbox.confine import Plan, Seccomp, confine, empty_root, make_plan
from uac.runtime.sandbox.engine import Limits, Policy, execute
from uac.runtime.sandbox.limits import backstop_s

# What a confined worker does with one request: request -> (ok, JSON reply).
Serve = Callable[[dict[str, Any]], tuple[bool, bytes]]

# A reused worker gets at most this much CPU in its life and this much growth of its
# address space past the zygote's before it is replaced (the host caps its queries).
_LIFETIME_CPU_S = 600
_GROWTH = 16 * 1024 * 1024
# A frame: length, status (1 ok, 0 failed), the request's number in the worker's life (the
# reply repeats it), then the bytes.
_HEADER = struct.Struct("<IBQ")


def _vm_bytes(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _cpu_seconds(pid: int) -> float:
    """CPU time a child has used so far (the process CPU clock of pid)."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)  # CPUCLOCK_SCHED of the process
    except OSError:  # a kernel that refuses another process's clock: /proc, in ticks
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _schedstat(pid: int) -> int:
    """A descriptor of a child's /proc/PID/schedstat (read with `_cpu_waited`), or -1."""
    try:
        return os.open(f"/proc/{pid}/schedstat", os.O_RDONLY)
    except OSError:
        return -1


def _cpu_waited(fd: int) -> float | None:
    """Seconds a child has spent ready to run but waiting for a CPU; None if not reported.

    The second field of /proc/PID/schedstat (the run-queue delay, in nanoseconds; each
    read from offset 0 is fresh), which includes time a CPU quota (a container's cgroup)
    held it back. A stopped or blocked process does not wait for a CPU: its time is not
    in it.
    """
    if fd < 0:
        return None
    try:
        return int(os.pread(fd, 128, 0).split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


class Confiner:
    """Everything a child needs to confine itself, prepared once in the zygote."""

    def __init__(self, plan: Plan, seccomp: Seccomp, base_vm: int):
        self.plan, self.seccomp, self.base_vm = plan, seccomp, base_vm

    def apply(self, limits: Limits, request_fd: int, result_fd: int, reused: bool = False) -> None:
        """Confine the calling child; the request is then on fd 0 and the result on fd 1.

        A reused worker's CPU rlimit is its lifetime budget and its address space has
        `_GROWTH` of slack for what earlier queries left; the zygote enforces each query's
        own CPU allowance (`Worker._read`) and replaces a worker that grew past the slack.
        """
        # Address-space cap relative to the zygote's size: the inherited heap is mapped.
        memory = self.base_vm + limits.memory_mb * 1024 * 1024 + (_GROWTH if reused else 0)
        cpu = _LIFETIME_CPU_S if reused else max(1, int(limits.cpu_s))
        # A query must not outlive its soft limit by ignoring the signal it raises.
        signal.signal(signal.SIGXCPU, signal.SIG_DFL)
        confine(self.plan, self.seccomp, request_fd, result_fd, memory, (cpu, cpu + 1))

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
        return _not_confined(status)


def _not_confined(status: int) -> str:
    """What went wrong with a child that did not answer once confined (its wait status)."""
    if os.WIFSIGNALED(status):
        return f"a confined child died with signal {os.WTERMSIG(status)}"
    return "a child could not be confined"


def _child(policy: Policy, request: dict[str, Any]) -> tuple[bool, bytes]:
    """Production `Serve`: layers 1 and 2 run the program; returns its envelope as JSON."""
    limits = Limits(**request["limits"])
    today = dt.date.fromisoformat(request["today"])
    try:
        sys.setrecursionlimit(400)
        reply = execute(request["program"], policy, today, limits, request["explain"])
        return bool(reply["ok"]), json.dumps(reply, ensure_ascii=False).encode()
    except BaseException as exc:
        return False, _error("sandbox_error", f"{type(exc).__name__} in the sandbox")


def reset_between_queries() -> None:
    """Drop what one query left behind before a reused worker reads the next request.

    The query's namespace is gone once `execute` returns, but cycles it made (a lambda
    holds its globals, a suspended generator its frame) live until the collector runs:
    collect them now, so nothing of this query is alive, or finalised, while the next one
    runs. The decimal context (its sticky flags) and the recursion limit are reset too.
    """
    gc.collect()
    decimal.setcontext(decimal.Context())
    sys.setrecursionlimit(400)


def _read_exactly(fd: int, size: int) -> bytes | None:
    parts: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 16))
        if not chunk:
            return None
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Worker:
    """A confined child serving up to `max_queries` requests of one checkpoint.

    With `max_queries=1` it closes its request pipe as soon as it has read its request, as
    a child forked per query did.
    """

    def __init__(
        self,
        confiner: Confiner,
        serve: Serve,
        limits: dict[str, Any],
        max_queries: int = 1,
        announce: bool = False,
    ):
        # Confined before it sees a request, so it only serves requests with these limits
        # (`fits`); others get a fresh worker.
        self.limits = limits
        self.max_queries, self.served, self.status = max_queries, 0, 0
        self.base_vm = confiner.base_vm
        self.deadline = 0.0
        req_r, self.req_w = os.pipe()
        self.res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 3
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the zygote's handler is its own
                os.close(self.req_w)  # or the request pipe never reaches EOF
                os.close(self.res_r)
                # Closes every other descriptor too: the zygote's protocol pipes and the
                # pipes of other workers.
                confiner.apply(Limits(**limits), req_r, res_w, reused=max_queries > 1)
                if announce:  # confined and still able to answer: the probe's "ok" (`ready`)
                    os.write(1, b"ok")
                self._loop(serve)
                code = 0
            finally:
                os._exit(code)
        os.close(req_r)
        os.close(res_w)
        self.pid = pid
        self.schedstat = _schedstat(pid)  # kept open: a read costs a microsecond, not ten

    def ready(self) -> str:
        """For a worker made with `announce`: '' once it says it is confined and can answer,
        else what went wrong (it is then killed), as `Confiner.probe` says it."""
        answer = b""
        while len(answer) < 2:
            chunk = os.read(self.res_r, 2 - len(answer))
            if not chunk:
                break
            answer += chunk
        if answer == b"ok":
            return ""
        if len(answer) < 2:  # it closed its end: it is exiting, and says how when reaped
            _, self.status = os.waitpid(self.pid, 0)
            self.pid = 0
        self.kill()
        return _not_confined(self.status)

    def _loop(self, serve: Serve) -> None:
        """In the child: read a frame, serve it, answer, reset; until EOF or the last one."""
        for n in range(self.max_queries):
            header = _read_exactly(0, _HEADER.size)
            size, _, number = _HEADER.unpack(header) if header else (0, 0, 0)
            raw = header and _read_exactly(0, size)
            if not raw:
                break  # retired by the zygote
            if n + 1 == self.max_queries:
                os.close(0)  # nothing more to read: the last query cannot reach the pipe
            ok, data = serve(json.loads(raw))
            _write_all(1, _HEADER.pack(len(data), int(ok), number) + data)
            if n + 1 < self.max_queries:  # after the last one there is nothing to reset for
                reset_between_queries()
        os.close(1)  # EOF now: the zygote answers before this process is torn down

    def fits(self, limits: dict[str, Any]) -> bool:
        """Whether the next query may run here: same limits, queries and headroom left."""
        if not self.pid or self.served >= self.max_queries or limits != self.limits:
            return False
        if not self.served:
            return True
        cpu_left = _LIFETIME_CPU_S - _cpu_seconds(self.pid)
        grown = _vm_bytes(self.pid) - self.base_vm
        return cpu_left > float(limits["cpu_s"]) + 1 and grown < _GROWTH

    def send(self, request: dict[str, Any], raw: bytes | None = None) -> None:
        """Hand the request (raw: its JSON as received) over; its wall clock and CPU start now."""
        limits = request["limits"]
        self.served += 1
        # RLIMIT_CPU counts the whole life of a reused worker: the zygote counts this
        # query's own CPU from its start (`_read`).
        self.cpu_start = _cpu_seconds(self.pid)
        self.waited = _cpu_waited(self.schedstat)
        self.started = time.monotonic()
        self.cpu_s = float(limits["cpu_s"])
        self.timeout_s = float(limits["timeout_s"])
        self.backstop = self.started + backstop_s(self.timeout_s, self.cpu_s)
        self.deadline = self.started + self.timeout_s
        data = raw or json.dumps(request).encode()
        _write_all(self.req_w, _HEADER.pack(len(data), 1, self.served) + data)

    def collect(self, request: dict[str, Any]) -> bytes:
        """The worker's reply (one line of JSON), or a typed error if it overran or died.

        A worker is never reused after a reply that is not `ok`, or no reply, or a reply
        numbered for another of its requests: it is killed.
        """
        limits = Limits(**request["limits"])
        cap = limits.max_result_bytes * 2 + 65536
        header = self._read(_HEADER.size)
        why = header if isinstance(header, str) else ""
        if not why:
            # The program has returned: only the backstop bounds the copy of its answer,
            # which a busy zygote may be slow to read.
            self.timeout_s = float("inf")
            size, ok, number = _HEADER.unpack(header)
            if number != self.served:
                body: bytes | str = "malformed"
            else:
                body = self._read(size) if size <= cap else "too_big"
            if isinstance(body, bytes) and b"\n" not in body:
                if not ok:
                    self.kill()
                elif self.served >= self.max_queries:
                    self.retire()
                return body
            why = body if isinstance(body, str) else "malformed"
        self.kill()
        if why == "timeout":
            return _error("limit_exceeded", f"the query took longer than {limits.timeout_s:g} s")
        if why == "backstop":
            return _error(
                "limit_exceeded",
                f"the query was still running after {limits.backstop_s:g} s on a busy machine",
            )
        if why == "too_big":
            return _error("bad_result", "the result is too large")
        cpu_text = f"the query used more than {limits.cpu_s} s of CPU"
        if why == "cpu":
            return _error("limit_exceeded", cpu_text)
        if why == "malformed":  # killed by us just now: its status says nothing
            return _error("sandbox_error", "the query process answered with malformed data")
        if os.WIFSIGNALED(self.status):
            sig = os.WTERMSIG(self.status)
            if sig in (signal.SIGXCPU, signal.SIGKILL):
                return _error("limit_exceeded", cpu_text)
            if sig == signal.SIGSYS:
                return _error("sandbox_error", "the query attempted a forbidden system call")
            return _error("sandbox_error", f"the query process died with signal {sig}")
        return _error("sandbox_error", "the query process returned no answer")

    def _read(self, size: int) -> bytes | str:
        """Exactly size bytes of the reply within the wall and CPU limits, or why not.

        What the worker has written is read before any limit is looked at: a zygote that
        was itself kept off the CPU past a deadline still takes an answer already there.
        """
        parts: list[bytes] = []
        # CPU used can never run ahead of wall time (one thread), so the CPU clock needs a
        # look only once as much wall time as the allowance has passed.
        cpu_check = self.started + self.cpu_s
        while size:
            wait = max(0.0, min(self.deadline, cpu_check) - time.monotonic())
            ready, _, _ = select.select([self.res_r], [], [], wait)
            if ready:
                chunk = os.read(self.res_r, min(size, 1 << 16))
                if not chunk:
                    return "eof"
                parts.append(chunk)
                size -= len(chunk)
                continue
            now = time.monotonic()
            if now >= self.deadline:
                why = self.overran(now)
                if why:
                    return why
            if now >= cpu_check:
                used = _cpu_seconds(self.pid) - self.cpu_start
                if used >= self.cpu_s:
                    return "cpu"
                cpu_check = now + (self.cpu_s - used)
        return b"".join(parts)

    def overran(self, now: float) -> str:
        """At the deadline: "timeout", "backstop", or "" with the deadline moved on.

        The wall limit counts the time since the hand-over less the time the worker spent
        waiting for a CPU, so a query is not failed because the machine is busy; a worker
        that is blocked or stopped waits for none, and a runaway one also meets its CPU
        limit. The backstop counts all of it.
        """
        if now >= self.backstop:
            return "backstop"
        waited = _cpu_waited(self.schedstat) if self.waited is not None else None
        counted = now - self.started - (0.0 if waited is None else waited - self.waited)
        if counted >= self.timeout_s:
            return "timeout"
        self.deadline = min(self.backstop, now + self.timeout_s - counted)
        return ""

    def kill(self) -> None:
        """Kill and reap the worker, keeping how it ended in `status`."""
        if self.pid:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if not done:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                _, status = os.waitpid(self.pid, 0)
            self.status, self.pid = status, 0
        self.retire()

    def retire(self) -> None:
        """Close the pipes: a healthy worker ends its loop at EOF (reap it later)."""
        for name in ("req_w", "res_r", "schedstat"):
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)

    def reap(self) -> bool:
        """Collect a retired worker without blocking; True once it is gone."""
        if self.pid:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.pid = 0
        return not self.pid


def _error(code: str, message: str) -> bytes:
    reply = {"ok": False, "error": {"type": code, "message": message, "line": None}}
    return json.dumps(reply).encode()


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
)


def load(
    directory: str | os.PathLike[str],
    only: frozenset[str] | None = None,
    *,
    statistics: bool = True,
) -> Policy:
    """Import one checkpoint and warm every code path a query takes (before any fork).

    `only`: the collections to load (the host found its program reads no other, see
    `sandbox.reads_only`); every other collection is an empty tuple here. `statistics`:
    False when the host found its program does not name the module (`sandbox.
    names_statistics`): neither imported nor warmed.
    """
    from uac.compiler import loader

    stubs = () if only is None else loader.stubs_except(directory, only)
    # The state lives as long as the zygote: frozen out of the collector's sight before
    # it runs even once, so that no collection (the first one after the import's pause,
    # `prepare`'s, a later one) walks 200,000 records.
    gc.disable()
    try:
        # The host checked the signature; every file is still checked against files.json.
        # No check runs here: the constraints module is not imported.
        package = loader.import_package(directory, signed=False, stubs=stubs, constraints=False)
        gc.freeze()
    finally:
        gc.enable()
    user = package.state.user
    paths = _group_paths(directory, user)
    policy = Policy(package.schema, user, Limits(), paths, statistics=statistics)
    warm = [p for p in _WARM_UP if statistics or "statistics." not in p]
    for program in (*warm, _sample_program(user)):
        execute(program, policy, dt.date(2000, 1, 1), Limits(), True)
    return policy


def _group_paths(directory: str | os.PathLike[str], user: Any) -> dict[str, list[str]]:
    """Fact ids of each field of a singleton group: all of provenance.json explain reads.

    Records name their own fact ids, so the file's one line per record (most of it on a
    big subject: 28 MB for 200,000 trips) is not parsed; the group fields' lines are
    found by their prefix (the file holds one entry per line, compiler/render.py).
    """
    try:
        with open(os.path.join(directory, "provenance.json"), "rb") as f:
            text = f.read()
    except OSError:
        return {}  # explain then names fields without their fact ids
    paths: dict[str, list[str]] = {}
    start = max(0, text.find(b'\n"paths":{'))
    groups = [
        f.name for f in dataclasses.fields(user) if dataclasses.is_dataclass(getattr(user, f.name))
    ]
    for name in sorted(groups):
        # Keys are sorted and "." sorts before any character of a name, so each group's
        # lines follow the previous group's: each search starts where those ended.
        needle = f'\n"user.{name}.'.encode()
        at = text.find(needle, start)
        while at >= 0:
            end = text.find(b"\n", at + 1)
            start = end if end >= 0 else len(text)
            with contextlib.suppress(ValueError):
                paths.update(json.loads(b"{" + text[at + 1 : start].rstrip(b",") + b"}"))
            at = text.find(needle, start) if text.startswith(needle, start) else -1
    return paths


def _sample_program(user: Any) -> str:
    """A program whose result holds the groups and maps and one record of each collection.

    It warms the result encoder for every type the state holds, as `user` would, without
    encoding every record of a big subject.
    """
    parts = [
        f"user.{f.name}[:1]" if type(getattr(user, f.name)) is tuple else f"user.{f.name}"
        for f in dataclasses.fields(user)
    ]
    return "[" + ", ".join(parts) + "]"


_IMMUTABLE = frozenset(
    {type(None), bool, int, float, complex, str, bytes, decimal.Decimal, dt.date, dt.datetime,
     dt.time, dt.timedelta}
)  # fmt: skip


def deeply_immutable(policy: Policy) -> bool:
    """True when nothing reachable from the typed state can be changed in place.

    A reused worker keeps `user` between queries, so a list (`.append` is an allowed
    method) or a non-frozen record anywhere in it would let one query change what the next
    one reads: such a checkpoint gets a fresh worker per query instead.
    """
    stack: list[Any] = [policy.user]
    seen: set[int] = set()
    frozen: dict[type, bool] = {}

    def is_frozen(kind: type, obj: Any) -> bool:
        if kind not in frozen:
            params = getattr(kind, "__dataclass_params__", None)
            frozen[kind] = bool(params and params.frozen) and not hasattr(obj, "__dict__")
        return frozen[kind]

    while stack:
        obj = stack.pop()
        kind = type(obj)
        if kind in _IMMUTABLE:
            continue
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if kind is tuple and obj and {type(obj[0])} == set(map(type, obj)):
            # A collection: all records of one type, looked at a field at a time.
            fields = policy.records.get(type(obj[0]))
            if fields is not None:
                if not is_frozen(type(obj[0]), obj[0]):
                    return False
                for name in map(attrgetter, fields):
                    if not set(map(type, map(name, obj))) <= _IMMUTABLE:
                        stack.extend(_not_scalar(list(map(name, obj))))
                continue
        if kind is tuple or kind is frozenset:
            stack.extend(obj)
            continue
        if kind is MappingProxyType:  # a read-only view; the dict behind it is unreachable
            stack.extend(obj.keys())
            stack.extend(obj.values())
            continue
        fields = policy.records.get(kind)
        if fields is None or not is_frozen(kind, obj):
            return False
        stack.extend(getattr(obj, name) for name in fields)
    return True


def _not_scalar(values: list[Any], depth: int = 0) -> list[Any]:
    """The values not of an immutable scalar type, looking into tuples of them.

    The tuples themselves are immutable; each is replaced by its items, so a column of
    fact-id tuples is checked in bulk. Deeper nests are left to `deeply_immutable`'s walk.
    """
    kinds = set(map(type, values))
    if kinds <= _IMMUTABLE:
        return []
    if depth > 2 or not kinds <= _IMMUTABLE | {tuple}:
        return [v for v in values if type(v) not in _IMMUTABLE]
    inner = list(chain.from_iterable(v for v in values if type(v) is tuple))
    return _not_scalar(inner, depth + 1)


def prepare(root: str) -> Confiner:
    """Compile the filter, decide the plan and freeze the heap; call after `load`."""
    seccomp = Seccomp()
    plan = make_plan(root, seccomp)
    gc.collect()
    gc.freeze()  # keep the collector from touching (and so copying) inherited pages
    return Confiner(plan, seccomp, _vm_bytes())


def stamped(reply: bytes, request_id: Any, directory: str) -> bytes:
    """The reply line with the request's id and the checkpoint served as its last keys.

    The host accepts a reply only when both are its own (`Sandbox.accept`). Last, because a
    JSON object's last occurrence of a key is the one read: nothing a reply holds can
    stand in for them.
    """
    stamp = json.dumps({"id": request_id, "directory": directory}).encode()
    if len(reply) < 3 or not reply.startswith(b"{") or not reply.endswith(b"}"):
        reply = _error("sandbox_error", "the query process answered with malformed data")
    return reply[:-1] + b"," + stamp[1:]


@dataclasses.dataclass
class Crew:
    """A zygote's workers: the one serving, the one forked ahead, those winding down."""

    current: Worker | None = None
    spare: Worker | None = None
    finished: list[Worker] = dataclasses.field(default_factory=list)

    def kill(self) -> None:
        """Kill every worker (the zygote is stopping)."""
        for w in [self.current, self.spare, *self.finished]:
            if w is not None:
                w.kill()


def serve_forever(
    proto_in: Any,
    proto_out: Any,
    confiner: Confiner,
    serve: Serve,
    max_queries: int = 1,
    directory: str = "",
    once: bool = False,
    spare: Worker | None = None,
) -> None:
    """Answer one request line with one reply line until EOF on proto_in (or SIGTERM).

    `current` serves queries while it is healthy and within its budgets; `spare` (forked
    and confined ahead of time) takes over when it is replaced. Every reply names the
    request it answers and the checkpoint directory this zygote loaded (`stamped`).
    `once` (a one-shot host's zygote): one request is answered, by the worker forked ahead,
    and no other worker is forked. `spare`: that worker, already forked (`main`).
    """
    default = dataclasses.asdict(Limits())
    crew = Crew()
    try:
        crew.spare = spare or Worker(confiner, serve, default, max_queries)
        for line in proto_in:
            limits = default
            request_id = None
            try:
                request = json.loads(line)
                request_id = request.get("id")
                limits = request["limits"]
                if crew.current is not None and not crew.current.fits(limits):
                    crew.current.retire()
                    crew.finished.append(crew.current)
                    crew.current = None
                if crew.spare is not None and crew.spare.limits != limits:
                    crew.spare.kill()
                    crew.spare = None
                if crew.current is None:
                    crew.current = crew.spare or Worker(confiner, serve, limits, max_queries)
                    crew.spare = None
                crew.current.send(request, line)
                if crew.spare is None and not once:
                    # The next spare is forked while this query runs (on the other core).
                    crew.spare = Worker(confiner, serve, limits, max_queries)
                reply = crew.current.collect(request)
            except Exception as exc:
                reply = _error("sandbox_error", f"the sandbox failed: {type(exc).__name__}")
                if crew.current is not None:
                    crew.current.kill()
            proto_out.write(stamped(reply, request_id, directory) + b"\n")
            proto_out.flush()
            if once:
                break
            current = crew.current
            if current is not None and (not current.pid or current.req_w < 0):
                crew.finished.append(current)  # killed after a failure, or retired after its last
                crew.current = None
            crew.spare = crew.spare or Worker(confiner, serve, limits, max_queries)
            crew.finished = [w for w in crew.finished if not w.reap()]
            if len(crew.finished) > 16:  # a worker that closed its pipe but lingers is killed
                for w in crew.finished:
                    w.kill()
                crew.finished = []
    finally:  # at EOF, and when the host stops this zygote with SIGTERM
        crew.kill()


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM from the host: unwind (workers killed, the empty root removed), then exit."""
    raise SystemExit(0)


def main() -> None:
    """Load one checkpoint, confine a probe child (`once`: the worker that will answer),
    report ready, then serve until EOF.

    argv: CHECKPOINT_DIR [MAX_QUERIES [COLLECTIONS [no-statistics]]] (queries per worker,
    1 = a fresh process per query, "once" = one query in all, then the zygote ends;
    COLLECTIONS: the only ones to load, comma-separated, "*" for all; "no-statistics": the
    `statistics` module is left out).
    """
    directory = sys.argv[1]  # a string: the zygote never imports `pathlib` (boot.py)
    once = len(sys.argv) > 2 and sys.argv[2] == "once"
    max_queries = 1 if once else int(sys.argv[2]) if len(sys.argv) > 2 else 1
    listed = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "*" else None
    only = None if listed is None else frozenset(filter(None, listed.split(",")))
    statistics = sys.argv[4:5] != ["no-statistics"]
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    root = ""
    first: Worker | None = None
    try:
        try:
            policy = load(directory, only, statistics=statistics)
            if max_queries > 1 and not deeply_immutable(policy):
                max_queries = 1
            root = empty_root()
            confiner = prepare(root)
            serve = functools.partial(_child, policy)
            if once:
                # The worker that will answer is the probe: it says when it is confined and
                # can answer (one child forked and confined, not two).
                first = Worker(confiner, serve, dataclasses.asdict(Limits()), announce=True)
                failure = first.ready()
            else:
                failure = confiner.probe()
            if failure:
                raise RuntimeError(f"query children cannot be confined: {failure}")
            hello = {
                "ready": True,
                "version": os.path.basename(directory),
                "seccomp": confiner.plan.seccomp,
                "confinement": confiner.plan.describe(),
                "max_queries": max_queries,
            }
        except Exception as exc:
            if first is not None:
                first.kill()
            hello = {"ready": False, "message": f"{type(exc).__name__}: {exc}"}
        proto_out.write(json.dumps(hello).encode() + b"\n")
        proto_out.flush()
        if hello["ready"]:
            signal.signal(signal.SIGTERM, _stop)
            serve_forever(proto_in, proto_out, confiner, serve, max_queries, directory, once, first)
    finally:
        if root:
            os.rmdir(root)


if __name__ == "__main__":
    main()
