"""Layer 3: the warm parent that forks one child per query, and the child's confinement.

Started by the host as `python -m runtime.sandbox.zygote CHECKPOINT_DIR` with a scrubbed
environment (PYTHONHASHSEED=0, TZ=UTC). It imports exactly one checkpoint — so a child can
hold no other subject's state — builds the policy, preloads everything a query can need
(nothing is imported after the fork, when the system-call filter forbids opening files),
freezes the heap for copy-on-write and then serves requests, one JSON line each, on its
stdin/stdout. Per request it forks a child that sets resource limits, loads the seccomp
filter, runs the program and writes canonical JSON to a private pipe; the zygote enforces
the wall clock with SIGKILL and answers the host with one JSON line.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import datetime as dt
import errno
import gc
import json
import os
import resource
import select
import signal
import sys
import time
from pathlib import Path
from typing import Any

from uac.runtime.sandbox.engine import Limits, Policy, execute

# System calls a query never needs. The filter is a deny-list (EPERM, or kill for exec and
# process creation) over a default of allow: an allow-list for CPython's allocator and
# signal paths is fragile across libc versions, and the other layers already keep programs
# away from any function that would make these calls.
_KILL = ("execve", "execveat", "fork", "vfork", "clone", "clone3", "ptrace")
_DENY = [
    "open",
    "openat",
    "openat2",
    "creat",
    "socket",
    "socketpair",
    "connect",
    "accept",
    "accept4",
    "bind",
    "listen",
    "sendto",
    "sendmsg",
    "sendmmsg",
    "recvfrom",
    "recvmsg",
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "mkdir",
    "mkdirat",
    "rmdir",
    "chmod",
    "fchmod",
    "fchmodat",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "truncate",
    "ftruncate",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setrlimit",
    "prlimit64",
    "process_vm_readv",
    "process_vm_writev",
    "kill",
    "tkill",
    "tgkill",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "io_uring_setup",
    "userfaultfd",
    "personality",
    "unshare",
    "setns",
    "memfd_create",
]
_ACT_ALLOW = 0x7FFF0000
_ACT_KILL_PROCESS = 0x80000000
_ACT_ERRNO = 0x00050000


class Seccomp:
    """A system-call filter built once in the zygote (via libseccomp) and loaded per child."""

    def __init__(self) -> None:
        self.ctx = None
        self.reason = "libseccomp not found"
        name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError:
            return
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_rule_add.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint32,
            ctypes.c_int,
            ctypes.c_uint,
        ]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        ctx = lib.seccomp_init(_ACT_ALLOW)
        if not ctx:
            self.reason = "seccomp_init failed"
            return
        for names, action in ((_KILL, _ACT_KILL_PROCESS), (_DENY, _ACT_ERRNO | errno.EPERM)):
            for call in names:
                number = lib.seccomp_syscall_resolve_name(call.encode())
                if number < 0:  # not on this architecture
                    continue
                if lib.seccomp_rule_add(ctx, action, number, 0) != 0:
                    self.reason = f"seccomp_rule_add({call}) failed"
                    return
        self.lib, self.ctx, self.reason = lib, ctx, ""

    def load(self) -> bool:
        """Install the filter on the calling process (irreversible); False if unavailable."""
        if self.ctx is None:
            return False
        return self.lib.seccomp_load(self.ctx) == 0


def _vm_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _confine(limits: Limits, seccomp: Seccomp, base_vm: int) -> None:
    # Address-space cap relative to the zygote's size: the inherited heap is already mapped.
    memory = base_vm + limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = max(1, int(limits.cpu_s))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    seccomp.load()


def _child(request: dict[str, Any], policy: Policy, fd: int) -> None:
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
    """A child forked ahead of time, waiting for its one request.

    The zygote forks the next spare while the current child runs, so neither the fork nor
    the child's teardown sits on a query's critical path.
    """

    def __init__(
        self,
        policy: Policy,
        seccomp: Seccomp,
        base_vm: int,
        keep: tuple[int, ...],
        limits: dict[str, Any],
    ):
        # A spare is confined (resource limits, then the filter) before it sees a request,
        # so it only serves requests with exactly these limits; others get a fresh spare.
        self.limits = limits
        req_r, self.req_w = os.pipe()
        self.res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                for fd in (self.req_w, self.res_r, *keep):
                    os.close(fd)
                devnull = os.open(os.devnull, os.O_RDWR)
                for std in (0, 1, 2):
                    os.dup2(devnull, std)
                os.close(devnull)
                _confine(Limits(**limits), seccomp, base_vm)
                raw = b"".join(iter(lambda: os.read(req_r, 1 << 16), b""))
                request = json.loads(raw)
                if request["limits"] != limits:
                    raise RuntimeError("a spare got a request with other limits")
                _child(request, policy, res_w)
                os.close(res_w)  # EOF now: the zygote answers before this process is torn down
            except BaseException:
                code = 3
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


def main() -> None:
    """Load one checkpoint, report ready, then serve one request per line until EOF."""
    from uac.compiler import loader

    directory = Path(sys.argv[1])
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    try:
        package = loader.import_package(directory, signed=False)  # the host checked it
        try:
            paths = json.loads((directory / "provenance.json").read_text("utf-8"))["paths"]
        except (OSError, ValueError, KeyError):
            paths = {}  # explain then names fields without their fact ids
        policy = Policy(package.schema, package.state.user, Limits(), paths)
        seccomp = Seccomp()
        # Warm every code path a query takes, so the child imports nothing after the fork.
        for program in _WARM_UP:
            execute(program, policy, dt.date(2000, 1, 1), Limits(), True)
        hello = {
            "ready": True,
            "version": directory.name,
            "seccomp": seccomp.ctx is not None,
            "seccomp_reason": seccomp.reason,
        }
    except Exception as exc:
        hello = {"ready": False, "message": f"{type(exc).__name__}: {exc}"}
    proto_out.write(json.dumps(hello).encode() + b"\n")
    proto_out.flush()
    if not hello["ready"]:
        return
    gc.collect()
    gc.freeze()  # keep the collector from touching (and so copying) inherited pages
    base_vm = _vm_bytes()
    keep = (proto_in.fileno(), proto_out.fileno())
    spare = Spare(policy, seccomp, base_vm, keep, dataclasses.asdict(Limits()))
    finished: list[Spare] = []
    for line in proto_in:
        current = spare
        try:
            request = json.loads(line)
            if request["limits"] != current.limits:
                current.discard()
                current = Spare(policy, seccomp, base_vm, keep, request["limits"])
            current.send(request)
            # The next spare is forked while this query runs (on the other core).
            spare = Spare(policy, seccomp, base_vm, keep, request["limits"])
            reply = current.collect(request)
        except Exception as exc:
            reply = _error("sandbox_error", f"the sandbox failed: {type(exc).__name__}")
            if spare is current:
                spare = Spare(policy, seccomp, base_vm, keep, dataclasses.asdict(Limits()))
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


if __name__ == "__main__":
    main()
