"""`uac serve`: one long-lived process that owns a workspace and serves many callers.

- An HTTP JSON API with one route per verb (`runtime/api/verbs.py`), generated from the
  verbs table so routes, OpenAPI document, `Client` and CLI cannot drift apart:
  `POST /v1/subjects/{subject}/{verb}` and tenant-wide `POST /v1/{verb}`; writes honour an
  `Idempotency-Key`. `create_app` composes routers (runtime/api/routes.py: ops, verbs,
  admin) that share one dependency, the caller's key (`routes.principal`).
- MCP over streamable HTTP at `/mcp`: the subject is the key's (a subject-bound key) or
  the one the host names for the connection in the `X-Uac-Subject` header (a tenant key);
  a tool argument can never choose it.
- The scheduler (`--every` / `--cron`) in a thread, and alert delivery through the outbox.
- Auth: `Authorization: Bearer <key>`; the tenant is always the key's. The local admin
  token (for the operator's CLI on this machine) is written, with the URL, to
  `<home>/server.json` (mode 0600) and names the tenant in `X-Uac-Tenant`.

Requests run in a thread pool on one shared, thread-safe `Memory`. SIGTERM stops accepting,
stops the query sandbox (a query in flight answers a `sandbox_error` saying the server is
stopping), lets other in-flight requests finish, stops the scheduler and the outbox worker,
then closes the workspace. Every request is logged as one JSON line on stderr.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import os
import secrets
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import iter_route_contexts
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import uac
from uac.checks import JsonLinesSink, WebhookSink
from uac.fact_log.errors import InputError, UacError, WorkspaceError
from uac.runtime import sandbox
from uac.runtime.api import api_keys as keys
from uac.runtime.api import metrics, outbox, routes
from uac.runtime.api.client import (
    MCP_IDLE_SECONDS,
    MCP_SESSIONS_PER_KEY,
    SERVER_FILE,
    live_server,
)
from uac.runtime.api.memory import Memory
from uac.runtime.api.routes import CODES, NEW_KEY, SHUTTING_DOWN, NewKey  # noqa: F401
from uac.runtime.progress_display import JobBoard

MAX_BODY = 32 * 1024 * 1024  # an import file or a message; larger imports: uac import locally
ECHO = 200  # characters of a caller's input a 422 repeats back, at most

VERSION_HEADER = "X-Uac-Version"
REACTION_WAIT = 10.0  # seconds a write waits for its reaction before answering with a ticket


@dataclass
class ServeOptions:
    """How `uac serve` runs: sinks for alerts, the schedule, limits."""

    webhooks: list[str] = field(default_factory=list)
    alerts_jsonl: str | None = None
    schedule: Any = None  # checks.scheduler.Every | Cron | None
    max_body: int = MAX_BODY
    log: Callable[[dict[str, Any]], None] | None = None
    mcp_sessions_per_key: int = MCP_SESSIONS_PER_KEY
    mcp_idle_seconds: float = MCP_IDLE_SECONDS
    # A write waits this long for its reaction (compile, checks), then answers with a
    # ticket to poll at /v1/subjects/{subject}/reactions/{ticket} (runtime/api/reactor.py).
    reaction_wait: float = REACTION_WAIT
    delivery: outbox.OutboxSettings = field(default_factory=outbox.OutboxSettings)


def _log_to_stderr(event: dict[str, Any]) -> None:
    event = {"ts": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"), **event}
    sys.stderr.write(json.dumps(event, default=str, ensure_ascii=False) + "\n")
    sys.stderr.flush()


class BodyLimit:
    """Refuse request bodies over a size (413) before the app reads them."""

    def __init__(self, app: ASGIApp, limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _too_large(send, self.limit)
            return
        seen = 0
        over = started = False

        async def counted() -> Message:
            nonlocal seen, over
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                over = True
                raise _BodyTooLarge
            return message

        async def answer(message: Message) -> None:
            # A body without a length (chunked) found too large while the app read it: the
            # app may have turned that into its own error (FastAPI's 400); the answer is 413.
            nonlocal started
            if over:
                if not started:
                    started = True
                    await _too_large(send, self.limit)
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, answer)
        except _BodyTooLarge:
            if not started:
                await _too_large(send, self.limit)


class _BodyTooLarge(Exception):
    pass


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps(
        {"error": f"request body over the {limit:,}-byte limit", "code": CODES[413]}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Service:
    """The state one server holds: the workspace, its admin token, workers."""

    def __init__(self, home: Path, options: ServeOptions):
        self.home = home
        self.options = options
        self.log = options.log or _log_to_stderr
        self.admin_token = "uac_admin_" + secrets.token_urlsafe(24)
        self.mem: Memory | None = None
        self.deliverer: outbox.Deliverer | None = None
        self.scheduler: threading.Thread | None = None
        self.vectors: threading.Thread | None = None  # completes the search vectors (below)
        self.stop = threading.Event()
        self.url: str | None = None
        self.jobs = JobBoard()  # long jobs' progress, for /v1/jobs/progress and the console
        self.last_pass: dict[str, Any] | None = None  # the scheduler's last (console: Operations)
        # The last storage fault a request met (a full disk): /readyz is not ready until a
        # write succeeds again, or its own probe write does (runtime/api/readiness.py).
        self.fault: str | None = None

    def start(self) -> None:
        """Open the workspace (refusing a second server), start the outbox and scheduler."""
        if self.mem is not None:
            return
        claim_server_file(self.home)
        sinks: dict[str, Any] = {}
        for n, url in enumerate(self.options.webhooks):
            sinks[f"webhook{n or ''}"] = WebhookSink(
                url, retries=0, timeout=self.options.delivery.timeout
            )
        if self.options.alerts_jsonl:
            sinks["jsonl"] = JsonLinesSink(self.options.alerts_jsonl)
        # Opening writable drains the reactions a killed server left queued.
        mem = Memory(
            self.home, create=True, actor="serve", reaction_wait=self.options.reaction_wait
        )
        mem.clock_days = TODAY_SLACK_DAYS  # far-off `today`s are previews (runtime/api/alerts.py)
        try:
            self.deliverer = outbox.Deliverer(
                mem.store, sinks, settings=self.options.delivery, log=self.log
            )
            mem.sinks = [outbox.OutboxSink(mem.store, list(sinks), self.deliverer.wake)]
            self.deliverer.start()
        except BaseException:
            mem.close()
            raise
        self.mem = mem
        self.vectors = threading.Thread(
            target=self._complete_vectors, name="uac-vectors", daemon=True
        )
        self.vectors.start()
        if self.options.schedule is not None:
            self.scheduler = threading.Thread(
                target=self._schedule, name="uac-scheduler", daemon=True
            )
            self.scheduler.start()

    def _complete_vectors(self) -> None:
        """Open the search index and embed, a step at a time, the notes it has no vectors for.

        A workspace indexed by another embedder (an upgrade) or a long import gets its dense
        vectors here, in the background and on the job board (admin: `GET /v1/jobs/progress`,
        kind "search vectors"), instead of one step per search; searches run between the
        steps, and `close` stops it between them.
        """
        assert self.mem is not None
        try:
            with self.jobs.track("search vectors", "*") as tracked:
                tracked.report("opening", 0, 0)
                index = self.mem.search_index  # opening embeds a first step (index.py)
                pending = index.vectors_pending()
                tracked.report("embedding", 0, pending)
                index.complete_vectors(
                    lambda done, total: tracked.report("embedding", done, total), stop=self.stop
                )
        except Exception as exc:  # a background nicety: searches still embed step by step
            self.log({"event": "search vectors", "error": f"{type(exc).__name__}: {exc}"})

    def _schedule(self) -> None:
        from uac.checks.scheduler import serve

        def tick(today: dt.date) -> str:
            assert self.mem is not None
            started = dt.datetime.now(dt.UTC)
            done = []
            for tenant in self.tenants():
                with self.jobs.track("scheduled pass", tenant) as tracked:
                    job = self.mem.for_tenant(tenant).run_once(today=today, progress=tracked.report)
                done.append(
                    f"{tenant}: {_count(job.subjects, 'subject')}, "
                    f"{_count(job.alerts_new, 'new alert')}"
                )
            summary = "; ".join(done) or "no tenants yet"
            self.last_pass = {"started": started, "summary": summary}
            return summary

        serve(
            self.home,
            self.options.schedule,
            tick,
            stop=self.stop,
            log=lambda line: self.log({"event": "scheduler", "message": line}),
        )

    def tenants(self) -> list[str]:
        """Tenants that have written anything (a `set` writes a fact and no input row)."""
        assert self.mem is not None
        rows = self.mem.store.con.execute(
            "SELECT tenant FROM facts UNION SELECT tenant FROM inputs ORDER BY tenant"
        ).fetchall()
        return [r[0] for r in rows]

    def close(self) -> None:
        """Stop workers, then release the workspace and the server file."""
        self.stop.set()
        if self.vectors is not None:
            self.vectors.join(timeout=30)  # ends between two steps
        if self.scheduler is not None:
            self.scheduler.join(timeout=30)
        if self.deliverer is not None:
            self.deliverer.stop()
        if self.mem is not None:
            self.mem.close()
            self.mem = None
        release_server_file(self.home)

    def publish(self, url: str) -> None:
        """Write `<home>/server.json` so CLIs on this machine forward to this server."""
        self.url = url
        path = self.home / SERVER_FILE
        tmp = path.with_name(f".{SERVER_FILE}.{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            json.dump(
                {
                    "url": url,
                    "pid": os.getpid(),
                    "version": uac.__version__,
                    "admin_token": self.admin_token,
                },
                fh,
            )
        os.replace(tmp, path)

    def memory_for(self, principal: keys.Principal, request: Request) -> Memory:
        """The tenant view a request works on (the key's tenant; the admin names one)."""
        if self.mem is None:
            raise HTTPException(503, SHUTTING_DOWN)
        tenant = principal.tenant
        if tenant is None:
            tenant = request.headers.get("x-uac-tenant") or "default"
        try:
            return self.mem.for_tenant(tenant)
        except UacError as exc:  # a bad X-Uac-Tenant: the caller's mistake, said in one line
            raise HTTPException(400, f"X-Uac-Tenant: {exc}") from None


class McpSessions:
    """The MCP sessions each key has open, so that no key takes more than its cap.

    The SDK's session manager keeps the live sessions (it ends idle ones and those a client
    deletes); this only remembers which key opened which, and how many opening requests of
    each key are under way (two concurrent ones must not both take the last place).
    """

    def __init__(self, manager: Any, options: ServeOptions):
        self.manager = manager  # the SDK's session manager; None until the first MCP request
        self.cap = options.mcp_sessions_per_key
        self.idle = options.mcp_idle_seconds
        self.lock = threading.Lock()
        self.open: dict[str, set[str]] = {}
        self.pending: dict[str, int] = {}

    def _live(self, key_id: str) -> set[str]:
        # The SDK's own table of sessions (a private attribute: tests/test_serve_sessions.py
        # fails if an SDK upgrade renames it, rather than the cap silently never freeing).
        alive = self.manager._server_instances if self.manager is not None else {}
        ids = {sid for sid in self.open.get(key_id, ()) if sid in alive}
        if ids:
            self.open[key_id] = ids
        else:
            self.open.pop(key_id, None)
        return ids

    def reserve(self, key_id: str) -> str | None:
        """Take a place for a session the key is opening, or say why it cannot have one."""
        with self.lock:
            taken = len(self._live(key_id)) + self.pending.get(key_id, 0)
            if taken >= self.cap:
                return (
                    f"this API key already has {self.cap} MCP sessions open, its limit "
                    "(uac serve --mcp-sessions-per-key); end one (DELETE /mcp with its "
                    f"Mcp-Session-Id) or wait until one is unused for {self.idle:g} seconds"
                )
            self.pending[key_id] = self.pending.get(key_id, 0) + 1
            return None

    def settle(self, key_id: str, session_id: str | None) -> None:
        """The opening request ended: count the session it opened (if any) as the key's."""
        with self.lock:
            left = self.pending.get(key_id, 1) - 1
            if left > 0:
                self.pending[key_id] = left
            else:
                self.pending.pop(key_id, None)
            if session_id:
                self.open.setdefault(key_id, set()).add(session_id)


class LazyMcp:
    """The `/mcp` endpoint: the MCP SDK is imported and its server built at the first request.

    Importing the SDK (its types, pydantic models of the whole protocol) was most of a
    server's start-up CPU, paid by every `uac serve` whether or not an agent ever connects.
    The SDK's session manager runs in a task of the lifespan's task group (started by the
    first request, ended at shutdown, both in that task), as `session_manager.run()` must.
    """

    def __init__(self, service: Service, sessions: McpSessions):
        self.service, self.sessions = service, sessions
        self.tasks: anyio.abc.TaskGroup | None = None  # the lifespan's, set while it runs
        self.app: Any = None  # the SDK's ASGI endpoint, once built
        self.building: anyio.Lock | None = None
        self.stopping: anyio.Event | None = None

    def open(self, tasks: anyio.abc.TaskGroup) -> None:
        """Serve from the lifespan's task group (its event loop's lock and event)."""
        self.tasks, self.building, self.stopping = tasks, anyio.Lock(), anyio.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.app is None:
            if self.building is None or self.tasks is None:
                raise HTTPException(503, SHUTTING_DOWN)
            async with self.building:
                if self.app is None:
                    await self._start(self.tasks)
        await self.app(scope, receive, send)

    async def _start(self, tasks: anyio.abc.TaskGroup) -> None:
        server = _mcp(self.service)
        starlette_app = server.streamable_http_app(
            streamable_http_path="/mcp", session_idle_timeout=self.service.options.mcp_idle_seconds
        )
        manager = server.session_manager
        await tasks.start(self._run, manager)
        self.sessions.manager = manager
        (route,) = starlette_app.routes  # the SDK's one route: /mcp, its session manager's app
        self.app = route.app

    async def _run(self, manager: Any, *, task_status: Any) -> None:
        assert self.stopping is not None
        async with manager.run():
            task_status.started()
            await self.stopping.wait()

    def stop(self) -> None:
        """End the session manager's task (if the first request started it)."""
        if self.stopping is not None:
            self.stopping.set()
        self.tasks = None


def claim_server_file(home: Path) -> None:
    """Refuse to start when another live server already serves this workspace."""
    info = live_server(home)
    if info is not None:
        raise WorkspaceError(
            f"workspace {home} is already served by uac serve (pid {info['pid']}) at "
            f"{info['url']}; stop it first, or use it: uac --home {home} <command>"
        )


def release_server_file(home: Path) -> None:
    """Remove the server file if it is this process's."""
    path = home / SERVER_FILE
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()


def _clip(text: str) -> str:
    return text if len(text) <= ECHO else text[:ECHO] + "…"


def _clipped(err: Any) -> dict[str, Any]:
    """One validation error as JSON, the caller's input in it cut to ECHO characters."""
    out = json.loads(json.dumps(err, default=str))
    for name in ("input", "loc", "ctx"):
        if name in out and len(json.dumps(out[name], ensure_ascii=False)) > ECHO:
            out[name] = _clip(json.dumps(out[name], ensure_ascii=False))
    out["msg"] = _clip(str(out.get("msg", "")))
    return out


def create_app(home: Path | str, options: ServeOptions | None = None) -> FastAPI:
    """The ASGI app serving one workspace (see the module docstring)."""
    service = Service(Path(home).expanduser(), options or ServeOptions())
    sessions = McpSessions(None, service.options)
    mcp = LazyMcp(service, sessions)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.start()
        service.log({"event": "started", "home": str(service.home), "version": uac.__version__})
        try:
            async with anyio.create_task_group() as tasks:
                mcp.open(tasks)
                try:
                    yield
                finally:
                    mcp.stop()
        finally:
            service.log({"event": "stopping"})
            service.close()
            service.log({"event": "stopped"})

    app = FastAPI(
        title="uac",
        version=uac.__version__,
        summary="Typed user-as-code memory: the verbs of `Memory` over HTTP.",
        lifespan=lifespan,
    )
    app.state.service = service
    _answer_errors(app, service)
    _mcp_needs_a_key(app, sessions)
    _access_log(app, service)
    app.include_router(routes.ops_router())
    metrics.install(app, lambda: service.mem.store if service.mem is not None else None)
    app.include_router(routes.verb_router())
    app.include_router(routes.admin_router())
    app.include_router(routes.outbox_router())

    from uac.runtime.api import console  # the operator console: HTML pages under /console

    console.mount(app, service)
    app.router.routes.append(Route("/mcp", endpoint=mcp))
    app.add_middleware(BodyLimit, limit=service.options.max_body)
    # FastAPI (>= 0.137) builds an included router's routes when a request first reaches
    # it; a fresh server's first requests then met a half-built route once (a 500 "Path
    # params must be of one of the supported types" on /v1/admin/keys). Build them all now,
    # as the OpenAPI document does: the same work, done before the first request.
    for _ in iter_route_contexts(app.routes):
        pass
    return app


def _answer_errors(app: FastAPI, service: Service) -> None:
    """Every error as one JSON body: {"error": sentence, "code": what a program branches on}."""

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        err = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        return JSONResponse(
            {
                "error": _clip(f"{where}: {err.get('msg')}"),
                "code": CODES[422],
                "detail": [_clipped(e) for e in exc.errors()[:20]],
            },
            status_code=422,
        )

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        # Never for a caller's input (those are 4xx above): a bug, said as JSON, logged.
        service.log({"event": "error", "path": request.url.path, "error": repr(exc)})
        return JSONResponse(
            {"error": f"internal error ({type(exc).__name__}); see the server's log",
             "code": CODES[500]},
            status_code=500,
        )  # fmt: skip

    @app.exception_handler(StarletteHTTPException)  # FastAPI's and the router's own
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no route {request.method} {request.url.path}; the verbs are at /docs"
        elif exc.status_code == 405 and detail == "Method Not Allowed":
            detail = f"{request.url.path} does not take {request.method}; see /docs"
        elif exc.status_code == 400 and detail == "There was an error parsing the body":
            detail = "body: not a JSON document this server can read"
        extra = getattr(exc, "extra", {})  # routes.Refused: a failed write's `committed`
        return JSONResponse(
            {"error": detail, "code": CODES.get(exc.status_code, "error"), **extra},
            status_code=exc.status_code,
            headers=exc.headers,
        )


def _mcp_needs_a_key(app: FastAPI, mcp_sessions: McpSessions) -> None:
    """An MCP session costs the server memory until it idles out: only a valid key opens
    one, within its key's cap (each tool call checks the key again, as it may be revoked
    meanwhile)."""

    @app.middleware("http")
    async def _mcp_key(request: Request, call_next: Any) -> Any:
        if request.url.path.rstrip("/") != "/mcp":
            return await call_next(request)
        try:
            who = await run_in_threadpool(routes.principal, request)
        except HTTPException as exc:
            return JSONResponse(
                {"error": exc.detail, "code": CODES.get(exc.status_code, "error")},
                status_code=exc.status_code,
            )
        if request.headers.get("mcp-session-id"):  # a request of a session already open
            return await call_next(request)
        refused = mcp_sessions.reserve(who.key_id)
        if refused is not None:
            return JSONResponse({"error": refused, "code": CODES[429]}, status_code=429)
        opened = None
        try:
            response = await call_next(request)
            if response.status_code < 400:
                opened = response.headers.get("mcp-session-id")
            return response
        finally:
            mcp_sessions.settle(who.key_id, opened)


def _access_log(app: FastAPI, service: Service) -> None:
    """Every request logged as one JSON line; every answer names the server's version."""

    @app.middleware("http")
    async def _log(request: Request, call_next: Any) -> Any:
        started = time.perf_counter()
        rid = uuid.uuid4().hex[:12]
        status = 500  # unless the handler answers: a request that raised is logged too
        try:
            response = await call_next(request)
            status = response.status_code
            response.headers[VERSION_HEADER] = uac.__version__
            return response
        finally:
            who = getattr(request.state, "principal", None)
            service.log(
                {
                    "event": "request",
                    "id": rid,
                    "method": request.method,
                    "path": request.url.path,
                    "status": status,
                    "ms": round((time.perf_counter() - started) * 1000, 2),
                    "key": who.key_id if who else None,
                    "tenant": who.tenant if who else None,
                }
            )


# How far a `today` may be from the server's UTC date and still be "today" for the stored
# alerts: a client's local date is at most a day off. Further off, check and run-once are
# previews (nothing stored or delivered) and a backdated write reacts as of the server's day.
TODAY_SLACK_DAYS = 1


def _mcp(service: Service) -> Any:
    """The MCP server: the agent tools, with the subject taken from the connection."""
    from uac.runtime.api.mcp_server import build_server
    from uac.runtime.api.tools import dispatch

    def run_tool(headers: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if service.mem is None:
            raise UacError(SHUTTING_DOWN)
        header = (headers or {}).get("authorization", "")
        token = header[7:].strip() if header.lower().startswith("bearer ") else None
        who = keys.resolve(service.mem.store, token, service.admin_token)
        if who is None:
            raise UacError(f"unknown or revoked API key; {NEW_KEY}")
        tenant = who.tenant or (headers or {}).get("x-uac-tenant") or "default"
        subject = who.subject or (headers or {}).get("x-uac-subject")
        if not subject:
            raise UacError(
                "name the subject of this connection in the X-Uac-Subject header, "
                "or use a key bound to one subject"
            )
        mem = service.mem.for_tenant(tenant)
        return dispatch(mem, subject, name, arguments, read_only=who.read_only)

    return build_server(run_tool)


def listen(host: str, port: int) -> socket.socket:
    """Bind the address `uac serve` listens on, or say in one sentence why it cannot."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        if exc.errno == errno.EADDRINUSE:
            raise InputError(
                f"cannot listen on {where}: the port is in use; stop what listens there or "
                "pick another port with --port (0: any free one)"
            ) from None
        reason = exc.strerror or str(exc)
        raise InputError(f"cannot listen on {where}: {reason}") from None
    return sock


def run(
    home: Path | str,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    options: ServeOptions | None = None,
    announce: Callable[[str], None] | None = None,
) -> int:
    """Serve until SIGTERM/SIGINT; returns the exit status.

    The port is bound and the workspace opened before anything is announced: a busy port
    or a workspace another server holds fails first, in one sentence. `announce(url)` is
    then called with the address bound (the port chosen for port 0).
    """
    sock = listen(host, port)
    try:
        return _serve(home, sock, options, announce)
    finally:
        sock.close()


def _serve(
    home: Path | str,
    sock: socket.socket,
    options: ServeOptions | None,
    announce: Callable[[str], None] | None,
) -> int:
    import uvicorn

    bound = sock.getsockname()
    host, port = bound[0], bound[1]
    app = create_app(home, options)
    service: Service = app.state.service
    service.start()  # before listening: a second server or a locked workspace fails clearly
    if announce is not None:
        announce(f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}")
    # ws="none": no route takes a WebSocket, and uvicorn's default imports a WebSocket
    # protocol library (wsproto) at every start.
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False, lifespan="on", ws="none"
    )
    server = uvicorn.Server(config)

    original = server.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets=sockets)
        if server.started:
            bound = server.servers[0].sockets[0].getsockname()
            url = f"http://{bound[0]}:{bound[1]}"
            service.publish(url)
            service.log({"event": "listening", "url": url})

    server.startup = startup  # type: ignore[method-assign]
    handle_exit = server.handle_exit

    def stop_queries(sig: int, frame: Any) -> None:
        # Queries in flight end now (a sandbox_error saying the server is stopping) and no
        # zygote starts again, so the graceful stop never waits on the query sandbox. In a
        # thread: a signal handler must not wait for the registry's lock.
        threading.Thread(target=sandbox.shutdown, kwargs={"final": True}, daemon=True).start()
        handle_exit(sig, frame)

    server.handle_exit = stop_queries  # type: ignore[method-assign]
    # uvicorn stops gracefully on SIGTERM/SIGINT and then re-raises the signal to the
    # handler that was there before it: make that a no-op so a clean stop exits 0.
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        service.close()  # already done by the lifespan unless uvicorn failed to start
    return 0 if server.started else 1


def _count(n: int, noun: str) -> str:
    """ "1 new alert", "2 new alerts": a count with its noun in the right number."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
