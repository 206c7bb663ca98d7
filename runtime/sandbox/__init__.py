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
import itertools
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from uac.fact_log.errors import InputError
from uac.runtime.sandbox.limits import Limits

__all__ = [
    "Limits",
    "Sandbox",
    "SandboxPool",
    "Stopped",
    "names_statistics",
    "prestart",
    "reads_only",
    "run_query",
    "shutdown",
]

_WARNED: set[str] = set()  # each confinement warning is logged once per host process
_HELLO_TIMEOUT_S = 30.0
_SLACK_S = 5.0  # beyond the query's backstop before the host gives up on a zygote
MAX_QUERIES = 10_000  # queries one reused worker serves before it is replaced


def _env() -> dict[str, str]:
    # A scrubbed environment: nothing of the host's (tokens, keys) reaches the zygote.
    # boot.py finds uac's modules by its own path: no PYTHONPATH.
    return {"PYTHONHASHSEED": "0", "TZ": "UTC", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}


def _error(code: str, message: str, line: int | None = None) -> dict[str, Any]:
    return {"ok": False, "error": {"type": code, "message": message, "line": line}}


class Stopped(RuntimeError):
    """The query sandbox was stopped (the process is shutting down): no zygote is started."""


STOPPED = "the query sandbox is shutting down with its process; retry the query once it is back"


def _reuse() -> bool:
    # Operators who want a fresh process per query (no worker reuse) set UAC_SANDBOX_REUSE=0.
    return os.environ.get("UAC_SANDBOX_REUSE", "1") != "0"


class Sandbox:
    """One zygote process holding one checkpoint; serves one query at a time.

    With `reuse` (the default, unless UAC_SANDBOX_REUSE=0) a confined worker serves many
    queries of this checkpoint (runtime/sandbox/zygote.py says when it is replaced);
    without, every query runs in a freshly forked process.

    Every request carries an id; the zygote's reply repeats it and names the checkpoint
    directory the zygote loaded, and `accept` refuses any other reply: an answer can only
    reach the caller that asked, about the checkpoint it asked about. The pipes are only
    opened, read, written and closed under `_lock`; `stop` only signals the process.
    """

    def __init__(
        self,
        checkpoint_dir: Path,
        reuse: bool | None = None,
        wait: bool = True,
        only: frozenset[str] | None = None,
        once: bool = False,
        statistics: bool = True,
    ):
        self.directory = Path(checkpoint_dir).resolve()
        self.reuse = _reuse() if reuse is None else reuse
        self.only = only  # the only collections the zygote loads (None: all)
        self.statistics = statistics  # False: the zygote leaves the `statistics` module out
        # A one-shot caller's zygote answers one query and ends (no spare worker forked);
        # a second query on this sandbox starts a fresh one.
        self.once = once
        self._answered = False
        self.max_queries = 1
        self.version = self.directory.name
        self._lock = threading.RLock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._ids = itertools.count(1)
        self._stopped = False
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
        with self._lock:
            self._spawn()

    def _loads(self) -> list[str]:
        """The zygote's last arguments: the collections it loads, and "no-statistics"."""
        listed = "*" if self.only is None else ",".join(sorted(self.only))
        if not self.statistics:
            return [listed, "no-statistics"]
        return [] if self.only is None else [listed]

    def _spawn(self) -> None:
        self.close()
        if self._stopped:
            raise Stopped(STOPPED)
        self._buf = b""
        self._answered = False
        from uac.compiler.loader import check_signature

        check_signature(self.directory)  # here: the chain key never enters the sandbox
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-S",
                "-s",
                str(Path(__file__).with_name("boot.py")),
                str(self.directory),
                "once" if self.once else str(MAX_QUERIES if self.reuse else 1),
                *self._loads(),
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
            if self._stopped:
                raise Stopped(STOPPED)
            raise RuntimeError(
                f"sandbox for {self.directory} failed to start: {info.get('message')}"
            )
        self.seccomp = bool(info.get("seccomp"))
        self.max_queries = int(info.get("max_queries", 1))
        self.confinement = info.get("confinement") or {}
        for warning in self.confinement.get("warnings", []):
            if warning not in _WARNED:
                _WARNED.add(warning)
                import logging  # only to warn: a one-shot query's host never pays for it

                logging.getLogger("uac.sandbox").warning("query sandbox: %s", warning)

    def close(self) -> None:
        """Stop the zygote (its children die with their pipes or are killed by it).

        Waits for a query in flight on this sandbox to end (`stop` first to cut it short).
        """
        with self._lock:
            proc, self._proc = self._proc, None
            self._pending = False
            if proc is None:
                return
            try:
                proc.stdin.close()  # type: ignore[union-attr]
                proc.wait(timeout=2)
            except Exception:
                proc.kill()
                proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]

    def stop(self) -> None:
        """Signal the zygote to stop now and start no other; safe from any thread.

        A query in flight ends with a `sandbox_error` envelope as soon as the zygote is
        gone; `close` then reaps it. No pipe is touched here: only the thread holding
        `_lock` ever does.
        """
        self._stopped = True
        proc = self._proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(OSError):
                proc.terminate()

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
        request = self.request(program, today=today, limits=limits, explain=explain)
        line = self.exchange(request)
        return line if isinstance(line, dict) else self.accept(line, request)

    def request(
        self, program: str, *, today: dt.date, limits: Limits | None = None, explain: bool = False
    ) -> dict[str, Any]:
        """The request line sent to the zygote for one program, with a fresh id."""
        return {
            "id": next(self._ids),
            "program": program,
            "today": today.isoformat(),
            "limits": _limits_dict(limits or Limits()),
            "explain": bool(explain),
        }

    def exchange(self, request: dict[str, Any]) -> bytes | dict[str, Any]:
        """Send one request and read one reply line; an error envelope when there is none.

        A zygote that cannot be written to or stops answering is replaced (never trusted
        again), unless the sandbox was stopped.
        """
        limits = Limits(**request["limits"])
        with self._lock:
            try:
                if self._pending:
                    self._await_hello()
                if self._proc is None or self._proc.poll() is not None or self._answered:
                    self.start()
            except Stopped:
                return _error("sandbox_error", STOPPED)
            assert self._proc is not None and self._proc.stdin is not None
            self._answered = self.once
            try:
                self._proc.stdin.write(json.dumps(request).encode() + b"\n")
                self._proc.stdin.flush()
            except OSError:
                return self._replace("the sandbox was restarted; retry the query")
            cap = limits.max_result_bytes * 2 + 65536
            # The zygote ends the query by its backstop at the latest (`Limits`).
            line = self._read_line(time.monotonic() + limits.backstop_s + _SLACK_S, cap)
            if line is None:
                return self._replace("the sandbox stopped answering and was restarted")
            return line

    def accept(self, line: bytes, request: dict[str, Any]) -> dict[str, Any]:
        """The envelope of a reply line, if it answers this request about this checkpoint.

        Any other reply (another request's id, another checkpoint's directory, no stamp)
        is an error, never an answer, and the zygote that gave it is replaced: what it
        says next cannot be trusted to line up with what it is asked.
        """
        try:
            reply = json.loads(line)
        except (ValueError, RecursionError):
            return _error("sandbox_error", "the sandbox answered with malformed JSON")
        if (
            not isinstance(reply, dict)
            or reply.get("id") != request["id"]
            or reply.get("directory") != str(self.directory)
        ):
            with self._lock:
                return self._replace("the sandbox answered another request and was restarted")
        return _envelope(reply)

    def _replace(self, message: str) -> dict[str, Any]:
        """Restart the zygote (unless stopped) and return the error envelope saying why."""
        if self._stopped:
            self.close()
            return _error("sandbox_error", STOPPED)
        try:
            self.start()
        except Stopped:
            return _error("sandbox_error", STOPPED)
        return _error("sandbox_error", message)


@functools.lru_cache(maxsize=64)
def _limits_dict(limits: Limits) -> dict[str, Any]:
    return dataclasses.asdict(limits)


def _envelope(reply: dict[str, Any]) -> dict[str, Any]:
    try:
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
    """Up to `size` zygotes for one checkpoint, so queries run on several cores at once.

    A zygote is lent to one query at a time; `close` stops them all, waiting for queries
    in flight (after `stop`, those end at once with a `sandbox_error`). Callers waiting
    for a zygote of a closed pool get `Stopped`.
    """

    def __init__(
        self,
        checkpoint_dir: Path,
        size: int = 2,
        reuse: bool | None = None,
        only: frozenset[str] | None = None,
        once: bool = False,
        statistics: bool = True,
    ):
        self.directory = Path(checkpoint_dir).resolve()
        self.size, self.reuse, self.only, self.once = size, reuse, only, once
        self.statistics = statistics
        self.leases = 0  # queries holding this pool (`_leased`); it is closed only at 0
        self.closed = False
        self._idle: list[Sandbox] = []
        self._all: list[Sandbox] = []
        self._free = threading.Condition()

    def run(self, program: str, **kwargs: Any) -> dict[str, Any]:
        """Run on an idle zygote, starting one if fewer than `size` exist."""
        box = self._borrow()
        try:
            return box.run(program, **kwargs)
        finally:
            with self._free:
                if not self.closed:
                    self._idle.append(box)
                    self._free.notify()

    def _borrow(self) -> Sandbox:
        with self._free:
            while not self.closed:
                if self._idle:
                    return self._idle.pop()
                if len(self._all) < self.size:
                    box = self._sandbox()
                    self._all.append(box)
                    return box
                self._free.wait()
        raise Stopped(STOPPED)

    def _sandbox(self) -> Sandbox:
        # Started without waiting: the query waits for its hello, not the pool.
        return Sandbox(
            self.directory,
            self.reuse,
            wait=False,
            only=self.only,
            once=self.once,
            statistics=self.statistics,
        )

    def prestart(self) -> None:
        """Start one zygote now without waiting for it: it loads while the caller works."""
        with self._free:
            if not self._all and not self.closed:
                box = self._sandbox()
                self._all.append(box)
                self._idle.append(box)

    def stop(self) -> None:
        """Signal every zygote to stop now (queries in flight end with `sandbox_error`)."""
        with self._free:
            boxes = list(self._all)
        for box in boxes:
            box.stop()

    def close(self) -> None:
        """Stop every zygote, once each finishes the query it is serving."""
        with self._free:
            self.closed = True
            boxes, self._all, self._idle = self._all, [], []
            self._free.notify_all()
        for box in boxes:
            box.close()


# A pool per checkpoint, set of collections loaded (None: all of them), kind (one-shot
# zygotes or lasting ones) and whether `statistics` is loaded, least recently used first.
# A query leases its pool for as long as it runs (`_leased`): eviction beyond the bound
# only takes pools nobody holds, so no zygote is ever stopped under a query.
_POOLS: dict[tuple[Path, frozenset[str] | None, bool, bool], SandboxPool] = {}
_POOLS_LOCK = threading.Lock()
_MAX_POOLS = 8  # subjects kept warm (UAC_SANDBOX_POOLS); the least recently used is stopped
_STOPPING = False  # set by shutdown(final=True): no new zygote from then on


def _max_pools() -> int:
    raw = os.environ.get("UAC_SANDBOX_POOLS")
    if raw is None:
        return _MAX_POOLS
    if not raw.strip().isdigit() or int(raw) < 1:
        raise InputError(f"UAC_SANDBOX_POOLS must be a whole number of at least 1, not {raw!r}")
    return int(raw)


@contextlib.contextmanager
def _leased(
    checkpoint_dir: Path,
    reuse: bool | None = None,
    only: frozenset[str] | None = None,
    once: bool = False,
    statistics: bool = True,
) -> Iterator[SandboxPool]:
    """The checkpoint's pool, held: it is not closed before the lease ends."""
    limit = _max_pools()
    key = (Path(checkpoint_dir).resolve(), only, once, statistics)
    with _POOLS_LOCK:
        if _STOPPING:
            raise Stopped(STOPPED)
        pool = _POOLS.pop(key, None)
        if pool is None:
            size = 1 if once else min(2, os.cpu_count() or 1)
            pool = SandboxPool(key[0], size, reuse, only, once, statistics)
        _POOLS[key] = pool  # re-insert: dict order is the LRU order
        pool.leases += 1
        evicted = _evict(limit)
    _close(evicted)
    try:
        yield pool
    finally:
        with _POOLS_LOCK:
            pool.leases -= 1
            evicted = _evict(limit)
        _close(evicted)


def _evict(limit: int) -> list[SandboxPool]:
    """Take the least recently used pools nobody holds out, down to `limit` (under the lock).

    Held pools stay even past the bound; the release of the last lease evicts them.
    """
    evicted = []
    for key in [k for k, p in _POOLS.items() if p.leases == 0]:
        if len(_POOLS) <= limit:
            break
        evicted.append(_POOLS.pop(key))
    return evicted


def _close(pools: list[SandboxPool]) -> None:
    # Outside the registry's lock: stopping a zygote waits for its process.
    for pool in pools:
        pool.close()


def run_query(
    checkpoint_dir: Path,
    program: str,
    *,
    today: dt.date,
    limits: Limits | None = None,
    explain: bool = False,
    only: frozenset[str] | None = None,
    once: bool = False,
) -> dict[str, Any]:
    """Run an agent's program against one checkpoint in the sandbox; returns the envelope.

    `only`: `reads_only(program)` (a zygote loading just those collections serves it).
    `once`: the caller's only query (the CLI's one-shot path, after `prestart(once=True)`):
    its zygote answers it and ends, forking no worker for a next query, and loads the
    `statistics` module only if the program names it (`names_statistics`).
    """
    if only is not None and reads_only(program) != only:
        only = None  # never a program the partial state was not made for
    statistics = not once or names_statistics(program)
    started = time.perf_counter()
    try:
        with _leased(checkpoint_dir, only=only, once=once, statistics=statistics) as pool:
            envelope = pool.run(program, today=today, limits=limits, explain=explain)
    except RuntimeError as exc:
        envelope = _error("sandbox_error", str(exc))
        envelope["checkpoint"] = Path(checkpoint_dir).name
    envelope["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return envelope


def prestart(
    checkpoint_dir: Path,
    *,
    reuse: bool | None = None,
    only: frozenset[str] | None = None,
    once: bool = False,
    statistics: bool = True,
) -> None:
    """Start the checkpoint's zygote in the background, ahead of a `run_query` on it
    (`statistics`: False for a one-shot program that does not name the module, as
    `run_query` decides it).

    A one-shot caller (the CLI) overlaps the zygote's start with its own work (opening the
    workspace, checking the subject is compiled); if it then queries another checkpoint,
    this zygote is simply stopped at exit.
    """
    leased = _leased(checkpoint_dir, reuse, only, once, statistics)
    with contextlib.suppress(Exception), leased as pool:
        pool.prestart()  # best effort: run_query starts it again, and says what failed


def names_statistics(program: str) -> bool:
    """Whether a program may use the `statistics` facade: it names `statistics` (a program
    reaches a facade only by its name), or does not parse (the zygote then says why)."""
    import ast

    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return any(isinstance(n, ast.Name) and n.id == "statistics" for n in ast.walk(tree))


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


def shutdown(*, final: bool = False) -> None:
    """Stop every warm zygote and wait until they are gone.

    `final` (at exit, and when `uac serve` receives SIGTERM): queries in flight are cut
    short and no zygote starts afterwards; each such query gets a `sandbox_error` saying
    the server is shutting down. Without it (tests, benchmarks), queries in flight finish
    first and a later query starts a fresh pool.
    """
    global _STOPPING
    with _POOLS_LOCK:
        _STOPPING = _STOPPING or final
        pools = list(_POOLS.values())
        _POOLS.clear()
    if final:
        for pool in pools:
            pool.stop()
    _close(pools)


atexit.register(functools.partial(shutdown, final=True))
