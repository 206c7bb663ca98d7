"""Run agent-written Python against one subject's typed state, safely and deterministically.

    run_query(checkpoint_dir, "sum(t.cost for t in user.trips if t.depart.year == 2024)",
              today=date(2026, 11, 29))
    → {"ok": True, "result": "4123.50", "checkpoint": "v000003", "elapsed_ms": 2.1}

A program is an expression, or a few statements whose last expression is the result. It
sees `user` (the checkpoint's typed root), `today`, curated builtins, the facades `math`,
`statistics`, `datetime` (date, timedelta), `collections` (Counter, defaultdict),
`itertools` (groupby, islice, chain, pairwise, accumulate, capped combinations/product),
`date`, `timedelta`, `Counter`, `Decimal` and the helpers of `uac.runtime.sandbox.helpers`.

Result encoding (canonical JSON, keys sorted): dates and datetimes ISO strings; Decimals
their exact string (`"437.59"`, as everywhere in uac's canonical JSON); tuples as lists;
sets sorted by their JSON text; dict keys that are not strings become their JSON text
(`2024`→`"2024"`, `(2024, 1)`→`"[2024,1]"`); records as dicts of all their fields;
timedelta as `{"days": d, "seconds": s}`. Iterators, functions, classes, facades, NaN and
infinity are refused with `bad_result`.

Errors: `{"ok": False, "error": {"type": T, "message": one sentence, "line": n|None}}` with
T in syntax_error, not_allowed, runtime_error, limit_exceeded, bad_result, sandbox_error.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import datetime as dt
import functools
import json
import logging
import os
import queue
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from uac.runtime.sandbox.engine import Limits

__all__ = ["Limits", "Sandbox", "SandboxPool", "prestart", "reads_only", "run_query", "shutdown"]

_LOG = logging.getLogger("uac.sandbox")
_WARNED: set[str] = set()  # each confinement warning is logged once per host process
_HELLO_TIMEOUT_S = 30.0
_SLACK_S = 5.0  # beyond the query's own timeout before the host gives up on a zygote
MAX_QUERIES = 10_000  # queries one reused worker serves before it is replaced


def _env() -> dict[str, str]:
    # A scrubbed environment: nothing of the host's (tokens, keys) reaches the zygote.
    # boot.py finds uac's modules by its own path: no PYTHONPATH.
    return {"PYTHONHASHSEED": "0", "TZ": "UTC", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}


def _error(code: str, message: str, line: int | None = None) -> dict[str, Any]:
    return {"ok": False, "error": {"type": code, "message": message, "line": line}}


def _reuse() -> bool:
    # Operators who want a fresh process per query (no worker reuse) set UAC_SANDBOX_REUSE=0.
    return os.environ.get("UAC_SANDBOX_REUSE", "1") != "0"


class Sandbox:
    """One zygote process holding one checkpoint; serves one query at a time.

    With `reuse` (the default, unless UAC_SANDBOX_REUSE=0) a confined worker serves many
    queries of this checkpoint (runtime/sandbox/zygote.py says when it is replaced);
    without, every query runs in a freshly forked process.
    """

    def __init__(
        self,
        checkpoint_dir: Path,
        reuse: bool | None = None,
        wait: bool = True,
        only: frozenset[str] | None = None,
    ):
        self.directory = Path(checkpoint_dir).resolve()
        self.reuse = _reuse() if reuse is None else reuse
        self.only = only  # the only collections the zygote loads (None: all)
        self.max_queries = 1
        self.version = self.directory.name
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending = False  # started, its hello not read yet
        self._buf = b""
        self.seccomp = False
        self.confinement: dict[str, Any] = {}
        self.spawn()
        if wait:
            self._await_hello()

    def start(self) -> None:
        """Start (or restart) the zygote and wait until it has loaded the checkpoint."""
        self.spawn()
        self._await_hello()

    def spawn(self) -> None:
        """Start (or restart) the zygote without waiting for it (the first query waits)."""
        self.close()
        self._buf = b""
        from uac.compiler.loader import check_signature

        check_signature(self.directory)  # here: the chain key never enters the sandbox
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-S",
                "-s",
                str(Path(__file__).with_name("boot.py")),
                str(self.directory),
                str(MAX_QUERIES if self.reuse else 1),
                *([] if self.only is None else [",".join(sorted(self.only))]),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_env(),
            cwd=str(Path(__file__).resolve().parents[2]),
            close_fds=True,
        )
        self._pending = True

    def _await_hello(self) -> None:
        """Read the zygote's hello: it has loaded the checkpoint and can confine children."""
        self._pending = False
        hello = self._read_line(time.monotonic() + _HELLO_TIMEOUT_S, 1 << 16)
        info = json.loads(hello) if hello else {"ready": False, "message": "no answer"}
        if not info.get("ready"):
            self.close()
            raise RuntimeError(
                f"sandbox for {self.directory} failed to start: {info.get('message')}"
            )
        self.seccomp = bool(info.get("seccomp"))
        self.max_queries = int(info.get("max_queries", 1))
        self.confinement = info.get("confinement") or {}
        for warning in self.confinement.get("warnings", []):
            if warning not in _WARNED:
                _WARNED.add(warning)
                _LOG.warning("query sandbox: %s", warning)

    def close(self) -> None:
        """Stop the zygote (its children die with their pipes or are killed by it)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()  # type: ignore[union-attr]
            proc.wait(timeout=2)
        except Exception:
            proc.kill()
            proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]

    def _read_line(self, deadline: float, cap: int) -> bytes | None:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or len(self._buf) > cap:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def run(
        self, program: str, *, today: dt.date, limits: Limits | None = None, explain: bool = False
    ) -> dict[str, Any]:
        """Run one program; always returns an envelope, never raises for bad programs."""
        limits = limits or Limits()
        started = time.perf_counter()
        envelope = self._run(program, today, limits, explain)
        envelope["checkpoint"] = self.version
        envelope["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 3)
        return envelope

    def _run(self, program: str, today: dt.date, limits: Limits, explain: bool) -> dict[str, Any]:
        if not isinstance(program, str):
            return _error("syntax_error", "the program must be a string")
        if len(program) > limits.max_source:
            return _error("limit_exceeded", f"the program is longer than {limits.max_source}")
        if type(today) is not dt.date:
            return _error("sandbox_error", "today must be a datetime.date")
        request = {
            "program": program,
            "today": today.isoformat(),
            "limits": _limits_dict(limits),
            "explain": bool(explain),
        }
        with self._lock:
            if self._pending:
                self._await_hello()
            if self._proc is None or self._proc.poll() is not None:
                self.start()
            assert self._proc is not None and self._proc.stdin is not None
            try:
                self._proc.stdin.write(json.dumps(request).encode() + b"\n")
                self._proc.stdin.flush()
            except OSError:
                self.start()
                return _error("sandbox_error", "the sandbox was restarted; retry the query")
            cap = limits.max_result_bytes * 2 + 65536
            line = self._read_line(time.monotonic() + limits.timeout_s + _SLACK_S, cap)
            if line is None:
                self.start()  # a zygote that stops answering is replaced, never trusted
                return _error("sandbox_error", "the sandbox stopped answering and was restarted")
        return _envelope(line)


@functools.lru_cache(maxsize=64)
def _limits_dict(limits: Limits) -> dict[str, Any]:
    return dataclasses.asdict(limits)


def _envelope(line: bytes) -> dict[str, Any]:
    try:
        reply = json.loads(line)
        if reply.get("ok"):
            out: dict[str, Any] = {"ok": True, "result": json.loads(reply["result_json"])}
            if "explain" in reply:
                out["explain"] = reply["explain"]
            return out
        err = reply["error"]
        return _error(str(err["type"]), str(err["message"]), err.get("line"))
    except (ValueError, KeyError, TypeError, RecursionError):
        return _error("sandbox_error", "the sandbox answered with malformed JSON")


class SandboxPool:
    """Up to `size` zygotes for one checkpoint, so queries run on several cores at once."""

    def __init__(
        self,
        checkpoint_dir: Path,
        size: int = 2,
        reuse: bool | None = None,
        only: frozenset[str] | None = None,
    ):
        self.directory = Path(checkpoint_dir).resolve()
        self.size, self.reuse, self.only = size, reuse, only
        self._idle: queue.LifoQueue[Sandbox] = queue.LifoQueue()
        self._all: list[Sandbox] = []
        self._lock = threading.Lock()

    def run(self, program: str, **kwargs: Any) -> dict[str, Any]:
        """Run on an idle zygote, starting one if fewer than `size` exist."""
        try:
            box = self._idle.get_nowait()
        except queue.Empty:
            with self._lock:
                grow = len(self._all) < self.size
                if grow:
                    box = Sandbox(self.directory, reuse=self.reuse, only=self.only)
                    self._all.append(box)
            if not grow:
                box = self._idle.get()
        try:
            return box.run(program, **kwargs)
        finally:
            self._idle.put(box)

    def prestart(self) -> None:
        """Start one zygote now without waiting for it: it loads while the caller works."""
        with self._lock:
            if not self._all:
                box = Sandbox(self.directory, reuse=self.reuse, wait=False, only=self.only)
                self._all.append(box)
                self._idle.put(box)

    def close(self) -> None:
        """Stop every zygote."""
        with self._lock:
            for box in self._all:
                box.close()
            self._all.clear()


# A pool per checkpoint and set of collections loaded (None: all of them).
_POOLS: dict[tuple[Path, frozenset[str] | None], SandboxPool] = {}
_POOLS_LOCK = threading.Lock()
_MAX_POOLS = 8  # subjects kept warm; the least recently used is stopped beyond this


def _pool(
    checkpoint_dir: Path, reuse: bool | None = None, only: frozenset[str] | None = None
) -> SandboxPool:
    key = (Path(checkpoint_dir).resolve(), only)
    with _POOLS_LOCK:
        pool = _POOLS.pop(key, None)
        if pool is None:
            pool = SandboxPool(key[0], size=min(2, os.cpu_count() or 1), reuse=reuse, only=only)
        _POOLS[key] = pool  # re-insert: dict order is the LRU order
        while len(_POOLS) > _MAX_POOLS:
            _POOLS.pop(next(iter(_POOLS))).close()
        return pool


def run_query(
    checkpoint_dir: Path,
    program: str,
    *,
    today: dt.date,
    limits: Limits | None = None,
    explain: bool = False,
    only: frozenset[str] | None = None,
) -> dict[str, Any]:
    """Run an agent's program against one checkpoint in the sandbox; returns the envelope.

    `only`: `reads_only(program)` (a zygote loading just those collections serves it).
    """
    if only is not None and reads_only(program) != only:
        only = None  # never a program the partial state was not made for
    started = time.perf_counter()
    try:
        pool = _pool(checkpoint_dir, only=only)
        envelope = pool.run(program, today=today, limits=limits, explain=explain)
    except RuntimeError as exc:
        envelope = _error("sandbox_error", str(exc))
        envelope["checkpoint"] = Path(checkpoint_dir).name
    envelope["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return envelope


def prestart(
    checkpoint_dir: Path, *, reuse: bool | None = None, only: frozenset[str] | None = None
) -> None:
    """Start the checkpoint's zygote in the background, ahead of a `run_query` on it.

    A one-shot caller (the CLI) overlaps the zygote's start with its own work (opening the
    workspace, checking the subject is compiled); if it then queries another checkpoint,
    this zygote is simply stopped at exit.
    """
    with contextlib.suppress(Exception):  # best effort: run_query starts it again, and says
        _pool(checkpoint_dir, reuse, only).prestart()


def reads_only(program: str) -> frozenset[str] | None:
    """The attributes of `user` a program names, when it reaches the state only by them.

    All of the typed state is reached from the name `user`, and the rewrite lets a program
    read attributes by literal name only: when every `user` in the program is the left
    side of `user.NAME`, no collection but those NAMEs can be read, so a one-shot query's
    zygote needs to load only them. None (load everything) when `user` appears in any other
    way (bare, passed, bound, assigned), or when the program does not parse.
    """
    import ast

    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names: set[str] = set()
    attached: set[int] = set()
    for node in ast.walk(tree):
        value = getattr(node, "value", None)
        if isinstance(node, ast.Attribute) and isinstance(value, ast.Name) and value.id == "user":
            names.add(node.attr)
            attached.add(id(value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "user" and id(node) not in attached:
            return None
    return frozenset(names)


def shutdown() -> None:
    """Stop every warm zygote (also registered at exit)."""
    with _POOLS_LOCK:
        for pool in _POOLS.values():
            pool.close()
        _POOLS.clear()


atexit.register(shutdown)
