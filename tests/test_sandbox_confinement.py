"""Layer 3 alone: raw Python inside a confined query child, as if layers 1 and 2 had a hole.

tests/sandbox_escape_harness.py prepares like the production zygote and runs each payload
below as plain Python (full builtins, os, ctypes, libc) in a child confined by the real
`Confiner.apply`, in three modes: `full` (production), `filter` (the seccomp allow-list
only) and `privileges` (descriptors, empty root, uid 65534, rlimits, no_new_privs; no
filter). The host (this process) holds the workspace's DuckDB file open with another
subject's rows in it, a victim process runs as root, a TCP listener waits on 127.0.0.1, and
host files wait to be touched. A payload is blocked when it raised (privileges) or was
killed by SIGSYS / refused with EACCES (filter) AND nothing changed on the host.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import select
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from uac import Memory

pytestmark = [
    pytest.mark.skipif(
        sys.platform != "linux" or platform.machine() != "x86_64",
        reason="the payloads use x86_64 system-call numbers",
    ),
    pytest.mark.usefixtures("module_backend"),
    pytest.mark.one_backend("payloads against a checkpoint's zygote and host files: no log"),
]
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("a confinement plan alone: no log")

SECRET = "Zzsecretoutside"
BOB_MARK = "Zzbobtenantrow"
HARNESS = Path(__file__).with_name("sandbox_escape_harness.py")

# x86_64 system-call numbers the payloads call through libc.syscall.
SYS = {
    "ptrace": 101,
    "openat": 257,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "pidfd_send_signal": 424,
    "pidfd_open": 434,
    "pidfd_getfd": 438,
}
CHECK = """
def check(r):
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r
"""

# name -> (program, the layers that must each block it alone)
BOTH = ("filter", "privileges")
PAYLOADS: dict[str, tuple[str, tuple[str, ...]]] = {
    "mknodat": ("os.mknod(params['outside'] + '/fifo', 0o10666)\nresult = 'made'", BOTH),
    "create_file_outside": (
        "fd = os.open(params['outside'] + '/created', os.O_CREAT | os.O_WRONLY, 0o666)\n"
        "result = 'created'",
        BOTH,
    ),
    "create_file_in_root": (
        "fd = os.open('created', os.O_CREAT | os.O_WRONLY, 0o666)\nresult = 'created'",
        BOTH,
    ),
    "read_secret": ("result = open(params['secret']).read()", BOTH),
    "read_duckdb_file": ("result = open(params['duckdb'], 'rb').read(1 << 20).hex()", BOTH),
    "open_by_handle_at": (
        CHECK
        + "handle = bytes.fromhex(params['handle'])\n"
        + "buf = ctypes.create_string_buffer(128)\n"
        + "buf.raw = struct.pack('I', 120) + bytes(124)\n"
        + "mount = ctypes.c_int()\n"
        + "try:\n"
        + "    path = params['secret'].encode()\n"
        + "    check(libc.syscall(303, -100, path, buf, ctypes.byref(mount), 0))\n"
        + "    handle = buf.raw\n"
        + "except OSError:\n"
        + "    pass\n"
        + "fd = check(libc.syscall(304, -100, ctypes.create_string_buffer(handle), 0))\n"
        + "result = os.read(fd, 100).decode()",
        BOTH,
    ),
    "pidfd_getfd_host_duckdb": (
        CHECK
        + "pidfd = check(libc.syscall(434, params['host_pid'], 0))\n"
        + "fd = check(libc.syscall(438, pidfd, params['duck_fd'], 0))\n"
        + "result = os.pread(fd, 1 << 20, 0).hex()",
        BOTH,
    ),
    "pidfd_getfd_parent_stray": (
        CHECK
        + "pidfd = check(libc.syscall(434, os.getppid(), 0))\n"
        + "fd = check(libc.syscall(438, pidfd, params['stray_fd'], 0))\n"
        + "result = os.pread(fd, 100, 0).decode()",
        BOTH,
    ),
    "pidfd_send_signal": (
        CHECK
        + "pidfd = check(libc.syscall(434, params['victim'], 0))\n"
        + "result = check(libc.syscall(424, pidfd, 9, None, 0))",
        BOTH,
    ),
    "kill": ("os.kill(params['victim'], 9)\nresult = 'killed'", BOTH),
    "utimensat": ("os.utime(params['touch'], (0, 0))\nresult = 'touched'", BOTH),
    "setxattr": ("os.setxattr(params['touch'], 'user.uac_pwned', b'1')\nresult = 'set'", BOTH),
    # No network namespace: only the filter stops sockets (docs/security.md).
    "socket_connect": (
        "s = socket.create_connection(('127.0.0.1', params['port']), timeout=1)\n"
        "s.sendall(b'pwned')\nresult = 'connected'",
        ("filter",),
    ),
    "execve": (
        "os.execv('/bin/sh', ['sh', '-c', ': > ' + params['outside'] + '/exec_marker'])",
        BOTH,
    ),
    "ptrace_host": (
        CHECK + "result = check(libc.syscall(101, 0x4206, params['host_pid'], 0, 0))",
        BOTH,
    ),
    "proc_parent_fd": (
        "names = os.listdir(f'/proc/{os.getppid()}/fd')\n"
        "path = f\"/proc/{params['host_pid']}/fd/{params['duck_fd']}\"\n"
        "result = [names, open(path, 'rb').read(1 << 20).hex()]",
        BOTH,
    ),
    "inherited_fd_read": ("result = os.pread(params['stray_fd'], 100, 0).decode()", BOTH),
    "inherited_fd_scan": (
        "found = []\n"
        "for fd in range(2, 256):\n"
        "    try:\n"
        "        found.append(os.read(fd, 100).decode(errors='replace'))\n"
        "    except OSError:\n"
        "        pass\n"
        "if not found:\n"
        "    raise OSError(9, 'no descriptor to read')\n"
        "result = found",
        BOTH,
    ),
    "inherited_fd_mmap": (
        CHECK
        + "addr = libc.mmap(None, 4096, 1, 2, params['stray_fd'], 0)\n"
        + "if addr in (None, 2**64 - 1):\n"
        + "    check(-1)\n"
        + "result = ctypes.string_at(addr, 100).decode(errors='replace')",
        BOTH,
    ),
    "x32_abi_openat": (
        CHECK
        + "fd = check(libc.syscall(0x40000000 | 257, -100, params['secret'].encode(), 0))\n"
        + "result = os.read(fd, 100).decode()",
        BOTH,
    ),
    "chroot_escape": (
        "os.mkdir('x')\nos.chroot('x')\nos.chdir('/'.join(['..'] * 64))\nos.chroot('.')\n"
        "result = open(params['secret']).read()",
        BOTH,
    ),
    "regain_root": ("os.setresuid(0, 0, 0)\nresult = os.getresuid()", BOTH),
    "fork": (
        "pid = os.fork()\nif pid == 0:\n    os._exit(0)\nresult = pid",
        BOTH,
    ),
}


def _handle_of(path: Path) -> str:
    """The file handle of path (name_to_handle_at, as root on the host), hex-encoded."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    buf = ctypes.create_string_buffer(128)
    buf.raw = (120).to_bytes(4, "little") + bytes(124)
    mount = ctypes.c_int()
    rc = libc.syscall(
        SYS["name_to_handle_at"], -100, str(path).encode(), buf, ctypes.byref(mount), 0
    )
    if rc != 0:
        pytest.skip("this file system gives no file handles")
    size = int.from_bytes(buf.raw[:4], "little")
    return buf.raw[: 8 + size].hex()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, module_backend: str):
    """Host state to attack, an open workspace, and a running harness."""
    base = tmp_path_factory.mktemp("confine")
    outside = base / "outside"
    outside.mkdir()
    outside.chmod(0o777)  # writable by anyone: only the sandbox may stop a write here
    secret = base / "secret.txt"
    secret.write_text(SECRET)
    secret.chmod(0o644)  # readable by anyone: only the sandbox may stop a read
    touch = base / "touch.txt"
    touch.write_text("x")
    touch.chmod(0o666)
    os.utime(touch, (1_000_000_000, 1_000_000_000))
    base.chmod(0o755)
    mem = Memory(base / "ws", create=True, react=False)  # compiled below, once
    mem.set("alice", "identity.name", "Alice")
    mem.set("bob", "identity.name", f"Bob {BOB_MARK}")
    mem.compile("alice")
    ckpt = mem.checkpoint("alice").directory
    mem.store.con.execute("CHECKPOINT")  # bob's rows are in the main file now
    duck = next(p for p in (base / "ws").rglob("*.duckdb"))
    duck_fd = next(
        int(n)
        for n in os.listdir("/proc/self/fd")
        if os.path.realpath(f"/proc/self/fd/{n}") == os.path.realpath(duck)
    )
    assert BOB_MARK.encode() in duck.read_bytes()
    victim = subprocess.Popen(["sleep", "300"])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.setblocking(False)
    cwd = base / "cwd"
    cwd.mkdir()
    harness = subprocess.Popen(
        [sys.executable, str(HARNESS), str(ckpt), str(secret)],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        close_fds=True,
    )
    hello = json.loads(harness.stdout.readline())  # type: ignore[union-attr]
    params = {
        "outside": str(outside),
        "secret": str(secret),
        "duckdb": str(duck),
        "touch": str(touch),
        "handle": _handle_of(secret),
        "host_pid": os.getpid(),
        "duck_fd": duck_fd,
        "stray_fd": hello["stray_fd"],
        "victim": victim.pid,
        "port": listener.getsockname()[1],
    }
    state = {
        "params": params,
        "hello": hello,
        "harness": harness,
        "victim": victim,
        "listener": listener,
        "paths": {"outside": outside, "touch": touch, "root": Path(hello["root"]), "cwd": cwd},
    }
    yield state
    harness.stdin.close()  # type: ignore[union-attr]
    harness.wait(timeout=120)  # a bound for a stuck harness, not a timing
    victim.kill()
    victim.wait()
    listener.close()
    mem.close()


def attack(world: dict, mode: str, name: str, params: dict | None = None) -> dict:
    """Run one payload in one mode; the harness's reply envelope."""
    program = PAYLOADS[name][0]
    harness = world["harness"]
    params = params or world["params"]
    line = json.dumps({"mode": mode, "program": program, "params": params})
    harness.stdin.write(line + "\n")
    harness.stdin.flush()
    return json.loads(harness.stdout.readline())


def host_untouched(world: dict) -> list[str]:
    """What a payload changed on the host (empty when nothing)."""
    changed = []
    outside, touch, root = (world["paths"][k] for k in ("outside", "touch", "root"))
    if any(outside.iterdir()):
        changed.append(f"files appeared in {outside}: {sorted(os.listdir(outside))}")
    if any(root.iterdir()):
        changed.append("files appeared in the children's empty root")
    if touch.stat().st_mtime != 1_000_000_000:
        changed.append("touch.txt's times changed")
    if "user.uac_pwned" in os.listxattr(touch):
        changed.append("touch.txt gained an xattr")
    if world["victim"].poll() is not None:
        changed.append("the victim process died")
    if Path(f"/proc/{world['victim'].pid}/status").read_text().count("TracerPid:\t0") != 1:
        changed.append("the victim process is traced")
    if select.select([world["listener"]], [], [], 0.05)[0]:
        changed.append("the TCP listener got a connection")
    return changed


CASES = [(mode, name) for name, (_, blockers) in PAYLOADS.items() for mode in ("full", *blockers)]


def test_harness_runs_the_production_plan(world: dict) -> None:
    plan = world["hello"]["plan"]
    assert plan["seccomp"] == "allow-list" and not plan["warnings"], plan
    if os.geteuid() == 0:
        assert plan["identity"] == "uid 65534" and plan["root"] == "chroot"
    # A harmless raw payload does run in every mode: the harness itself is not what blocks.
    for mode in ("full", "filter", "privileges"):
        world["harness"].stdin.write(
            json.dumps({"mode": mode, "program": "result = 6 * 7", "params": {}}) + "\n"
        )
        world["harness"].stdin.flush()
        reply = json.loads(world["harness"].stdout.readline())
        assert reply == {"ok": True, "outcome": {"raised": None, "result": 42}}, (mode, reply)


@pytest.mark.parametrize(("mode", "name"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_payload_is_blocked(world: dict, mode: str, name: str) -> None:
    reply = attack(world, mode, name)
    text = json.dumps(reply)
    assert SECRET not in text and BOB_MARK not in text
    assert BOB_MARK.encode().hex() not in text and b"DUCK".hex() not in text
    assert host_untouched(world) == [], (mode, name, reply)
    killed = not reply["ok"] and "forbidden system call" in reply["error"]["message"]
    if reply["ok"]:
        outcome = reply["outcome"]
        assert outcome["raised"], f"{name} succeeded in mode {mode}: {outcome}"
    if mode == "privileges":
        # No filter in this mode: the payload ran and the kernel refused it.
        assert reply["ok"] and reply["outcome"]["raised"], reply
    elif mode == "filter":
        # The filter either killed the child or refused an open with EACCES.
        refused = reply["ok"] and reply["outcome"].get("errno") == 13
        assert killed or refused, reply
    else:
        assert killed or reply["ok"], reply


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_payload_works_when_nothing_confines_it(world: dict, name: str, tmp_path: Path) -> None:
    """The control: unconfined, each payload really does what it tries (so a block is real)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    touch = tmp_path / "touch.txt"
    touch.write_text("x")
    os.utime(touch, (1_000_000_000, 1_000_000_000))
    victim = subprocess.Popen(["sleep", "300"])
    params = {**world["params"], "outside": str(outside), "touch": str(touch), "victim": victim.pid}
    try:
        reply = attack(world, "none", name, params)
        if name == "execve":  # the child became sh: no answer, but the marker is there
            assert (outside / "exec_marker").exists()
            return
        assert reply["ok"], reply
        outcome = reply["outcome"]
        if name == "x32_abi_openat" and outcome.get("errno") == 38:
            pytest.skip("this kernel has no x32 system calls")
        assert outcome["raised"] is None, (name, outcome)
        text = json.dumps(outcome)
        if name in ("read_secret", "open_by_handle_at", "pidfd_getfd_parent_stray"):
            assert SECRET in text
        if name in ("read_duckdb_file", "pidfd_getfd_host_duckdb", "proc_parent_fd"):
            assert BOB_MARK.encode().hex() in text
        if name == "create_file_in_root":
            (world["paths"]["cwd"] / "created").unlink(missing_ok=True)
        if name in ("kill", "pidfd_send_signal"):
            assert victim.wait(timeout=60) == -9  # a bound for a stuck wait, not a timing
        if name == "socket_connect":
            conn, _ = world["listener"].accept()
            conn.close()
        if name == "utimensat":
            assert touch.stat().st_mtime == 0
        if name in ("mknodat", "create_file_outside"):
            assert any(outside.iterdir())
        if name == "setxattr":
            assert "user.uac_pwned" in os.listxattr(touch)
    finally:
        victim.kill()
        victim.wait()


@NO_LOG
def test_plan_for_a_zygote_that_is_not_root() -> None:
    """As another user: a user namespace (or a logged warning), and the filter still holds."""
    if os.geteuid() != 0:
        pytest.skip("becoming another user needs root")
    from uac.runtime.sandbox.confine import Seccomp, confine, make_plan

    # pytest's tmp_path sits under a root-only directory: the user must reach its root dir.
    root = Path(tempfile.mkdtemp(prefix="uac-test-root-"))
    root.chmod(0o555)
    os.chown(root, 65534, 65534)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # only this thread survives the fork: unshare(CLONE_NEWUSER) is allowed
        code = 1
        try:
            ids = (65534,) * 3
            os.setgroups([])
            os.setresgid(*ids)
            os.setresuid(*ids)
            seccomp = Seccomp()
            plan = make_plan(str(root), seccomp)
            req_r, _req_w = os.pipe()
            memory = resource_vm() + (256 << 20)
            confine(plan, seccomp, req_r, write_fd, memory, 1)
            try:
                os.open("/etc/hostname", os.O_RDONLY)
                opened: object = "opened"
            except OSError as exc:
                opened = exc.errno
            report = {"plan": plan.describe(), "open": opened}
            os.write(1, json.dumps(report).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    data = b"".join(iter(lambda: os.read(read_fd, 4096), b""))
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    root.rmdir()
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    report = json.loads(data)
    plan = report["plan"]
    assert plan["seccomp"] == "allow-list"
    if plan["identity"] == "user namespace":
        assert plan["root"] == "chroot" and not plan["warnings"]
    else:  # degraded: said so
        assert plan["root"] == "chdir" and "user namespaces" in plan["warnings"][0]
    assert report["open"] == 13  # EACCES from the filter


def resource_vm() -> int:
    """This process's address-space size in bytes."""
    pages = int(Path("/proc/self/statm").read_text().split()[0])
    return pages * os.sysconf("SC_PAGE_SIZE")


# Lists the open descriptors (fstat is outside the allow-list: run with the filter off).
OPEN_FDS = (
    "found = []\n"
    "for fd in range(4096):\n"
    "    try:\n"
    "        os.fstat(fd)\n"
    "        found.append(fd)\n"
    "    except OSError:\n"
    "        pass\n"
)


def test_only_the_result_pipe_is_open_while_a_query_runs(world: dict) -> None:
    # fstat is outside the allow-list, so count descriptors with the filter off.
    program = OPEN_FDS + "result = found"
    harness = world["harness"]
    harness.stdin.write(json.dumps({"mode": "privileges", "program": program, "params": {}}))
    harness.stdin.write("\n")
    harness.stdin.flush()
    reply = json.loads(harness.stdout.readline())
    assert reply == {"ok": True, "outcome": {"raised": None, "result": [1]}}, reply


def test_a_reused_worker_holds_only_its_two_pipes_between_and_during_queries(world: dict) -> None:
    # A reused worker keeps its request pipe (fd 0) for the next query; nothing else opens.
    program = OPEN_FDS + "result = [found, os.getpid()]"
    harness = world["harness"]
    answers = []
    for _ in range(3):
        request = {"mode": "privileges", "reuse": True, "program": program, "params": {}}
        harness.stdin.write(json.dumps(request) + "\n")
        harness.stdin.flush()
        answers.append(json.loads(harness.stdout.readline()))
    for reply in answers:
        assert reply["ok"] and reply["outcome"]["raised"] is None, reply
        assert reply["outcome"]["result"][0] == [0, 1]
    assert len({reply["outcome"]["result"][1] for reply in answers}) == 1  # one worker served all
