"""Import generated checkpoints in isolation and digest them, without paying a fresh start.

A compile must prove its output imports on its own and rebuilds exactly the folded state.
Starting a new interpreter for that costs ~50 ms (start-up plus imports) on every compile,
most of the latency between a write and its alert. Instead one warm process per host
process (`python -I -S`: scrubbed environment, no site-packages) imports only the digest
code and then, for each request, forks a child that imports the checkpoint packages and
reports their digests. The warm process never imports generated code itself, so every child
starts as clean as a fresh interpreter would: nothing of an earlier checkpoint can leak into
the next check.

Only what changed is imported: record modules carried unchanged from the previous
(validated) version are stubbed (`loader.import_package(stubs=...)`), so a one-fact change
does not import 10,000 untouched records again.

Protocol: one JSON line per request, `[[directory, [part, ...], [stub, ...]], ...]`; one
JSON line per answer, `{"answers": [{"parts": {...}} | {"error": "..."}, ...]}` or
`{"error": "..."}` when the child died, plus the child's peak RSS (`maxrss_kib`, see
`last_child_maxrss_kib`). If the warm process itself dies it is started again on the next
request.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENV = {"PYTHONHASHSEED": "0", "TZ": "UTC"}

# The warm process. It must not import any generated module: only the forked child does.
# It runs without `site` (`-S`: no scan of site-packages, no editable-install finder, ~16 ms
# of its start), as a query's zygote does (runtime/sandbox/boot.py): `uac` is registered as
# a bare package over its directory (its `__init__` does not run), and everything the digest
# code and a checkpoint import is the standard library and uac's own modules.
_SERVER = """
import json, os, sys, types
from pathlib import Path
package = types.ModuleType("uac")
package.__path__ = [sys.argv[1]]
sys.modules["uac"] = package
from uac.compiler.canonical import package_parts
from uac.compiler.loader import import_package

def check(request):
    answers = []
    for directory, parts, stubs in request:
        try:
            package = import_package(Path(directory), verify=False, stubs=tuple(stubs))
            answers.append({"parts": package_parts(package, parts)})
        except BaseException as exc:
            answers.append({"error": f"{type(exc).__name__}: {exc}"})
    return answers

for line in sys.stdin:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            data = json.dumps({"answers": check(json.loads(line))}).encode()
        except BaseException as exc:
            data = json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode()
        with os.fdopen(write, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status, usage = os.wait4(pid, 0)
    answer = json.loads(data) if data else {"error": f"validator child died (status {status})"}
    answer["maxrss_kib"] = usage.ru_maxrss
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


class _Warm:
    """The warm validator process of this host process (started on first use)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[str] | None = None
        self.owner = 0  # pid that started it: a forked host must not share the pipes
        self.maxrss_kib: int | None = None  # peak RSS of the last validation child

    def _start(self) -> subprocess.Popen[str]:
        env = {**ENV, "PATH": os.environ.get("PATH", "")}
        return subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _SERVER, str(ROOT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )

    def ask(self, request: list[list[Any]]) -> dict[str, Any]:
        """Send one request; start (or restart, once) the warm process when needed."""
        line = json.dumps(request) + "\n"
        with self.lock:
            for _attempt in range(2):
                if self.proc is None or self.proc.poll() is not None or self.owner != os.getpid():
                    self.proc, self.owner = self._start(), os.getpid()
                stdin, stdout = self.proc.stdin, self.proc.stdout
                try:
                    if stdin is None or stdout is None:
                        raise OSError("validator pipes are closed")
                    stdin.write(line)
                    stdin.flush()
                    answer = stdout.readline()
                except OSError:  # includes BrokenPipeError: the process died under us
                    answer = ""
                if answer:
                    decoded = json.loads(answer)
                    self.maxrss_kib = decoded.get("maxrss_kib")
                    return decoded
                self.close_locked()
        return {"error": "the validator process exited unexpectedly"}

    def close_locked(self) -> None:
        """Stop the warm process (caller holds the lock)."""
        proc, self.proc = self.proc, None
        if proc is not None and self.owner == os.getpid():
            proc.kill()
            proc.wait()

    def close(self) -> None:
        """Stop the warm process."""
        with self.lock:
            self.close_locked()


_WARM = _Warm()
atexit.register(_WARM.close)


def validate(request: list[tuple[Path, list[str], list[str]]]) -> list[dict[str, Any]]:
    """For each (checkpoint directory, parts, record modules to stub): {"parts": digests}
    or {"error": text}."""
    answer = _WARM.ask([[str(directory), parts, stubs] for directory, parts, stubs in request])
    if "error" in answer:
        return [{"error": answer["error"]}] * len(request)
    return answer["answers"]


def last_child_maxrss_kib() -> int | None:
    """Peak resident size (KiB) of the child that ran the last validation, for benchmarks."""
    return _WARM.maxrss_kib


def stop() -> None:
    """Stop the warm validator (it starts again when next needed)."""
    _WARM.close()
