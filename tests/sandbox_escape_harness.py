"""Test-only zygote that runs RAW Python in confined query children: layers 1 and 2 are gone.

Used by tests/test_sandbox_confinement.py to play a program that has already escaped the
AST allow-list and the guards. It prepares exactly like the production zygote (the same
`load` of the checkpoint, the same `prepare` of the filter and plan, the same `Worker`
children confined by the same `Confiner.apply`) but serves each request by exec'ing the
program with full builtins and libc through ctypes. It lives under tests/ and nothing in
the package imports it, so production code can never reach it.

    python tests/sandbox_escape_harness.py CHECKPOINT_DIR STRAY_FILE

STRAY_FILE is opened and left open before any child is forked, as a descriptor the zygote
might hold by accident. The first line out is a hello with that fd's number and the root
directory children use; then one request line in ({"mode", "program", "params"}, and
"reuse": true to run it in a worker kept for that mode, as production reuses them) gives
one reply line out.
"""

from __future__ import annotations

import builtins
import ctypes
import dataclasses
import errno
import json
import os
import socket
import stat
import struct
import sys
from pathlib import Path
from typing import Any

from uac.runtime.sandbox.confine import empty_root
from uac.runtime.sandbox.engine import Limits
from uac.runtime.sandbox.zygote import Confiner, Worker, load, prepare

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]


def serve_raw(request: dict[str, Any]) -> tuple[bool, bytes]:
    """Run the program as plain Python (no validator, no guards); report what happened."""
    ns: dict[str, Any] = {
        "__builtins__": builtins,
        "os": os,
        "ctypes": ctypes,
        "errno": errno,
        "socket": socket,
        "stat": stat,
        "struct": struct,
        "libc": LIBC,
        "params": request["params"],
        "result": None,
    }
    try:
        exec(request["program"], ns)
        outcome: dict[str, Any] = {"raised": None, "result": ns["result"]}
    except BaseException as exc:  # the payload's failure is the evidence
        outcome = {"raised": f"{type(exc).__name__}: {exc}", "errno": getattr(exc, "errno", None)}
    return True, json.dumps({"ok": True, "outcome": outcome}, default=repr).encode()


def main() -> None:
    """Prepare like the zygote, then run one raw payload per request line."""
    directory, stray = Path(sys.argv[1]), sys.argv[2]
    stray_fd = os.open(stray, os.O_RDONLY)
    root = empty_root()
    try:
        load(directory)
        confiner = prepare(root)
        plans = {
            "full": confiner.plan,
            "filter": dataclasses.replace(confiner.plan, privileges=False),
            "privileges": dataclasses.replace(confiner.plan, seccomp=False),
            # Only for the controls that prove each payload works when nothing confines it.
            "none": dataclasses.replace(confiner.plan, seccomp=False, privileges=False),
        }
        hello = {"stray_fd": stray_fd, "root": root, "plan": confiner.plan.describe()}
        sys.stdout.write(json.dumps(hello) + "\n")
        sys.stdout.flush()
        limits = dataclasses.asdict(Limits())
        reused: dict[str, Worker] = {}  # mode -> a worker kept across requests ("reuse")
        for line in sys.stdin:
            request = json.loads(line)
            variant = Confiner(plans[request["mode"]], confiner.seccomp, confiner.base_vm)
            request["limits"] = limits
            if request.get("reuse"):
                worker = reused.get(request["mode"])
                if worker is None or not worker.fits(limits):
                    worker = reused[request["mode"]] = Worker(variant, serve_raw, limits, 100)
            else:
                worker = Worker(variant, serve_raw, limits)
            worker.send(request)
            reply = worker.collect(request).decode()
            if not request.get("reuse") and not worker.reap():
                os.waitpid(worker.pid, 0)
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()
        for worker in reused.values():
            worker.kill()
    finally:
        os.rmdir(root)


if __name__ == "__main__":
    main()
