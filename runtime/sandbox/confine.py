"""Layer 3 of the query sandbox: what a forked query child can still do, decided default-deny.

A query child is confined before it reads its request (so after the zygote has loaded the
checkpoint and warmed every code path) by two independent parts, each meant to stop a
program that got past layers 1 and 2 on its own:

- privileges (`Plan.privileges`): the request and result pipes become fds 0 and 1 and every
  other inherited descriptor is closed (the zygote's protocol pipes, other children's pipes,
  anything a library left open); the root directory becomes an empty, read-only directory;
  the identity becomes uid/gid 65534 with no groups and no capabilities when the zygote is
  root, or a fresh user namespace otherwise; resource limits allow no new descriptors,
  processes, file bytes or core dumps; the process is not dumpable and has no_new_privs.
- the system-call filter (`Plan.seccomp`): a seccomp allow-list whose default is to kill
  the process. Allowed: read of fd 0, write of fd 1, close, exit, and anonymous,
  non-executable memory management, which is all a running query was seen to call (see
  docs/security.md for how the list was derived and how it is tested); open and openat
  fail with EACCES (CPython tries to open the source of a syntax error).

Kill rather than EPERM for everything else: a child that makes any other call is either
compromised or broken, and either way should stop at once; EPERM would let a hostile
program probe the filter and carry on. The zygote reports SIGSYS as a typed error.

Which parts this platform allows is decided once in the zygote (`make_plan`); a child that
cannot apply the plan it was given exits before running anything (fail closed). Parts the
platform does not allow are reported as warnings that the host logs.
"""

from __future__ import annotations

import ctypes
import dataclasses
import errno
import os
import resource
import signal
import sys

UNPRIVILEGED_ID = 65534  # "nobody": owns no files, so it can write none

# libseccomp's constants (seccomp.h), stable across its versions.
_ACT_ALLOW = 0x7FFF0000
_ACT_KILL_PROCESS = 0x80000000
_ACT_ERRNO = 0x00050000
_CMP_EQ = 4
_CMP_MASKED_EQ = 7
# mmap/mprotect bits; the same values on x86_64 and aarch64.
_PROT_EXEC = 0x4
_MAP_ANONYMOUS = 0x20

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_MODE_FILTER = 2
_CLONE_NEWUSER = 0x10000000

# Each entry: a system call and the argument checks that must all hold, as
# (argument index, comparison, value, masked value). Derived by tracing query children
# (strace -f over the hostile and ordinary query suites): read, write, close, exit_group,
# mmap, munmap, brk and mremap were the only calls; madvise and mprotect are what glibc's
# allocator may add under other allocation patterns, rt_sigreturn ends any signal handler.
ALLOWLIST: tuple[tuple[str, tuple[tuple[int, int, int, int], ...]], ...] = (
    ("read", ((0, _CMP_EQ, 0, 0),)),  # the request pipe only
    ("write", ((0, _CMP_EQ, 1, 0),)),  # the result pipe only
    ("close", ()),
    ("exit", ()),
    ("exit_group", ()),
    ("brk", ()),
    ("munmap", ()),
    ("mremap", ()),
    ("madvise", ()),
    # Anonymous memory only (a file mapping would read an fd without read()), never executable.
    (
        "mmap",
        ((2, _CMP_MASKED_EQ, _PROT_EXEC, 0), (3, _CMP_MASKED_EQ, _MAP_ANONYMOUS, _MAP_ANONYMOUS)),
    ),
    ("mprotect", ((2, _CMP_MASKED_EQ, _PROT_EXEC, 0),)),
    ("rt_sigreturn", ()),
)
# Refused with EACCES instead of killing: CPython itself opens the program's "file" to quote
# the line of a syntax error (and linecache for a warning), and carries on when it cannot.
# No file is ever opened either way.
REFUSED = ("open", "openat")
_VERIFIED_ARCHES = ("x86_64",)


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
]
_libc.unshare.argtypes = [ctypes.c_int]
_close_range = getattr(_libc, "close_range", None)  # glibc 2.34+
if _close_range is not None:
    _close_range.argtypes = [ctypes.c_uint, ctypes.c_uint, ctypes.c_int]


class Seccomp:
    """The allow-list compiled once (libseccomp, in the zygote) to a BPF program.

    Compiling once and installing the raw program with prctl in each child keeps libseccomp's
    filter generation off the per-query path.
    """

    def __init__(self) -> None:
        self.program: bytes = b""
        self.reason = ""
        try:
            self.program = _compile_allowlist()
        except OSError as exc:
            self.reason = str(exc)
        # Built here so a child only makes the prctl calls.
        self._buffer = ctypes.create_string_buffer(self.program, len(self.program))
        self._fprog = _SockFprog(len(self.program) // 8, ctypes.addressof(self._buffer))

    @property
    def ok(self) -> bool:
        """True when a filter was compiled and can be loaded."""
        return bool(self.program)

    def load(self) -> bool:
        """Install the filter on the calling process (irreversible); False if unavailable."""
        if not self.program:
            return False
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        fprog = ctypes.addressof(self._fprog)
        return _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, fprog, 0, 0) == 0


def _compile_allowlist() -> bytes:
    # The usual soname first: find_library runs `ldconfig -p` in a subprocess (~60 ms of a
    # zygote's start on a busy machine).
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        from ctypes import util  # the fallback only: it imports subprocess, shutil and re

        name = util.find_library("seccomp")
        try:
            lib = ctypes.CDLL(name or "libseccomp.so.2", use_errno=True)
        except OSError:
            raise OSError("libseccomp not found") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    ctx = lib.seccomp_init(_ACT_KILL_PROCESS)
    if not ctx:
        raise OSError("seccomp_init failed")
    try:
        for call, checks in ALLOWLIST:
            number = lib.seccomp_syscall_resolve_name(call.encode())
            if number < 0:  # not on this architecture: nothing to allow
                continue
            array = (_ArgCmp * max(1, len(checks)))(*(_ArgCmp(*c) for c in checks))
            if lib.seccomp_rule_add_array(ctx, _ACT_ALLOW, number, len(checks), array) != 0:
                raise OSError(f"seccomp_rule_add({call}) failed")
        for call in REFUSED:
            number = lib.seccomp_syscall_resolve_name(call.encode())
            refuse = _ACT_ERRNO | errno.EACCES
            if number >= 0 and lib.seccomp_rule_add_array(ctx, refuse, number, 0, None) != 0:
                raise OSError(f"seccomp_rule_add({call}) failed")
        read_fd, write_fd = os.pipe()
        try:
            if lib.seccomp_export_bpf(ctx, write_fd) != 0:
                raise OSError("seccomp_export_bpf failed")
            os.close(write_fd)
            write_fd = -1
            program = b"".join(iter(lambda: os.read(read_fd, 1 << 16), b""))
        finally:
            os.close(read_fd)
            if write_fd >= 0:
                os.close(write_fd)
    finally:
        lib.seccomp_release(ctx)
    if not program or len(program) % 8:
        raise OSError("libseccomp produced no filter")
    return program


@dataclasses.dataclass(frozen=True)
class Plan:
    """Which confinement steps every query child must apply; decided once per zygote."""

    root: str  # an empty directory: the child's root (chroot) or at least its cwd
    seccomp: bool = True
    privileges: bool = True
    identity: str = "none"  # "uid 65534", "user namespace" or "none"
    chroot: bool = False
    warnings: tuple[str, ...] = ()

    def describe(self) -> dict[str, object]:
        """The plan as JSON for the zygote's hello line."""
        return {
            "seccomp": "allow-list" if self.seccomp else "none",
            "identity": self.identity if self.privileges else "none",
            "root": ("chroot" if self.chroot else "chdir") if self.privileges else "none",
            "warnings": list(self.warnings),
        }


def empty_root() -> str:
    """Create the empty, read-only directory children use as their root.

    In the temporary directory `tempfile` would choose, as `tempfile.mkdtemp` creates it (a
    fresh random name, made by this process alone, mode 0700 until it is made read-only).
    A zygote's scrubbed environment names no temporary directory: /tmp then, without
    importing `tempfile` (it pulls in shutil and random: ~4 ms of a zygote's start).
    """
    chosen = any(os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP"))
    if chosen or not os.access("/tmp", os.W_OK | os.X_OK):
        import tempfile

        base = tempfile.gettempdir()
    else:
        base = "/tmp"
    for _ in range(100):
        path = os.path.join(base, "uac-sandbox-root-" + os.urandom(8).hex())
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        os.chmod(path, 0o555)
        return path
    raise FileExistsError(f"no fresh directory name for a sandbox root in {base}")


def make_plan(root: str, seccomp: Seccomp) -> Plan:
    """The strongest confinement this process can apply to its children."""
    warnings: list[str] = []
    if not seccomp.ok:
        warnings.append(f"no system-call filter for query children: {seccomp.reason}")
    elif os.uname().machine not in _VERIFIED_ARCHES:
        warnings.append(
            f"the system-call allow-list was verified on x86_64 only; on {os.uname().machine} "
            "a query that needs another call is killed"
        )
    if os.geteuid() == 0:
        identity, chroot = f"uid {UNPRIVILEGED_ID}", True
    elif _user_namespace_works(root):
        identity, chroot = "user namespace", True
    else:
        identity, chroot = "none", False
        warnings.append(
            "user namespaces are not available: query children keep the host's user and "
            "only change into an empty directory"
        )
    return Plan(root, seccomp.ok, True, identity, chroot, tuple(warnings))


def _user_namespace_works(root: str) -> bool:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            if _libc.unshare(_CLONE_NEWUSER) == 0:
                os.chroot(root)
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def confine(
    plan: Plan,
    seccomp: Seccomp,
    request_fd: int,
    result_fd: int,
    memory: int,
    cpu_s: tuple[int, int],
) -> None:
    """Apply the plan to the calling (forked, single-threaded) child; raises if any step fails.

    Afterwards the request is on fd 0 and the result pipe on fd 1; nothing else is open.
    `cpu_s` is (soft, hard): SIGXCPU at the soft limit, SIGKILL at the hard one.
    """
    # Python must never write to a closed fd 2 (the filter would kill it): no std streams.
    sys.stdin = sys.stdout = sys.stderr = None  # type: ignore[assignment]
    os.dup2(request_fd, 0)
    os.dup2(result_fd, 1)
    if plan.privileges:
        _close_all_from(2)
        if plan.identity == "user namespace" and _libc.unshare(_CLONE_NEWUSER) != 0:
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER) failed")
        if plan.chroot:
            os.chroot(plan.root)
            os.chdir("/")
        else:
            os.chdir(plan.root)
        if plan.identity.startswith("uid "):
            ids = (UNPRIVILEGED_ID,) * 3
            os.setgroups([])
            os.setresgid(*ids)
            os.setresuid(*ids)
            if os.getresuid() != ids or os.getresgid() != ids or os.getgroups():
                raise OSError(errno.EPERM, "the query child kept its identity")
    elif request_fd > 1 and result_fd > 1:
        for fd in (request_fd, result_fd):
            os.close(fd)
    limits = [
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_CPU, cpu_s),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, 0),
    ]
    if plan.privileges:
        # No descriptor past the two pipes, no process, no locked or queued memory.
        limits += [
            (resource.RLIMIT_NOFILE, 2),
            (resource.RLIMIT_NPROC, 0),
            (resource.RLIMIT_MEMLOCK, 0),
            (resource.RLIMIT_MSGQUEUE, 0),
        ]
    for which, value in limits:
        resource.setrlimit(which, value if isinstance(value, tuple) else (value, value))
    # Dies with the zygote that forked it, even a killed one (after the identity change,
    # which clears this setting): no query outlives the host's stop.
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if plan.privileges:
        if _libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE) failed")
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if plan.seccomp and not seccomp.load():
        raise OSError(ctypes.get_errno(), "the system-call filter could not be loaded")


def _close_all_from(low: int) -> None:
    # close_range(2) is one call (Linux 5.9+); otherwise the highest open fd bounds the sweep
    # (the hard limit can be a million).
    if _close_range is not None and _close_range(low, 0xFFFFFFFF, 0) == 0:
        return
    try:
        high = max(int(name) for name in os.listdir("/proc/self/fd")) + 1
    except (OSError, ValueError):
        high = os.sysconf("SC_OPEN_MAX")
    os.closerange(low, max(low, high))
