"""The HTTP routes of `uac serve`, as routers sharing one dependency: `principal`.

- `verb_router()`: one route per verb of the verb table (runtime/api/verbs.py), so routes,
  OpenAPI document, `Client` and CLI cannot drift apart: `POST /v1/subjects/{subject}/NAME`
  and, for tenant-wide verbs, `POST /v1/NAME`; earlier names answer too, out of the docs.
  Writes honour an `Idempotency-Key` (runtime/api/idempotency.py).
- `ops_router()`: liveness, readiness, long jobs' progress.
- `admin_router()`: API keys; `outbox_router()`: the alert outbox (the local admin token
  only).

Every route takes the `Service` (runtime/api/server.py) from the app and the caller's key
through `principal`, which refuses unknown keys and incompatible clients.
"""

from __future__ import annotations

import datetime as dt
import inspect
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Body, Depends, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

import uac
from uac.fact_log.backends import faults, write_keys
from uac.fact_log.errors import NotFound, UacError, WorkspaceError
from uac.fact_log.rows import utc_naive, utc_now
from uac.runtime.api import api_keys as keys
from uac.runtime.api import idempotency, outbox, verbs
from uac.runtime.api import readiness as health

if TYPE_CHECKING:
    from uac.runtime.api.memory import Memory

# The server's `Service` (runtime/api/server.py, which imports this module): the workspace
# (`mem`), its admin token, the job board, `memory_for(principal, request)`.
Service = Any

# What a refused caller does next (one sentence each, shared by the API, MCP and console).
NEW_KEY = "create one with: uac keys create --tenant TENANT"
ADMIN_ONLY = "only the local admin can manage keys; run uac keys on the server's machine"
SHUTTING_DOWN = "the server is starting or shutting down; retry once `uac serve` is up"

# The `code` of an error body, by HTTP status: what a program branches on (`error` is the
# sentence for people).
CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid",
    429: "too_many",
    500: "internal",
    503: "unavailable",
    507: "insufficient_storage",
}
TENANT_HEADER = "X-Uac-Tenant"  # the tenant an answer is about (the Client reads addresses in it)

CLOCK_SLACK = dt.timedelta(minutes=5)  # how far a client's clock may run ahead of ours


class NewKey(BaseModel):
    """A key to create: its tenant, optionally one subject, optionally read-only."""

    model_config = ConfigDict(extra="forbid")
    tenant: str
    subject: str | None = None
    read_only: bool = False
    label: str | None = None


class Refused(HTTPException):
    """An HTTP error whose JSON body says more than its sentence: a failed write's
    `committed` (true: saved; false: not saved; null: unknown)."""

    def __init__(self, status: int, detail: str, **extra: Any):
        super().__init__(status, detail)
        self.extra = extra


def compatible(a: str, b: str) -> bool:
    """Client and server speak the same protocol when major and minor versions agree."""
    return a.split(".")[:2] == b.split(".")[:2]


def service_of(request: Request) -> Service:
    """The `Service` the app serves."""
    return request.app.state.service  # type: ignore[no-any-return]


def principal(request: Request) -> keys.Principal:
    """The caller's key (Authorization: Bearer KEY), refused when unknown or revoked."""
    service = service_of(request)
    header = request.headers.get("authorization", "")
    token = header[7:].strip() if header.lower().startswith("bearer ") else None
    if service.mem is None:
        raise HTTPException(503, SHUTTING_DOWN)
    found = keys.resolve(service.mem.store, token, service.admin_token)
    if found is None:
        raise HTTPException(
            401, f"unknown or revoked API key (send Authorization: Bearer KEY); {NEW_KEY}"
        )
    client_version = request.headers.get("x-uac-client-version")
    if client_version and not compatible(client_version, uac.__version__):
        raise HTTPException(
            409,
            f"client version {client_version} cannot talk to server version "
            f"{uac.__version__}; use the same uac version on both sides",
        )
    request.state.principal = found
    return found


def status_of(exc: Exception) -> int:
    """The HTTP status of an error a verb raised."""
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, idempotency.Unknown):
        return 409
    if isinstance(exc, WorkspaceError):
        return 503
    return 400


# -- ops -------------------------------------------------------------------------------------


def ops_router() -> APIRouter:
    """Liveness, readiness, long jobs' progress."""
    router = APIRouter(tags=["ops"])

    @router.get("/healthz")
    def healthz() -> dict[str, Any]:
        """Liveness: the process answers."""
        return health.liveness()

    @router.get("/readyz")
    def readyz(request: Request) -> JSONResponse:
        """Readiness: the workspace is open, its storage takes writes (after a fault), its
        shared database (if any) answers and is migrated."""
        service = service_of(request)
        probe = service.fault is not None and service.mem is not None
        if probe and health.storage_probe(service.home) is None:  # takes writes again
            service.fault = None
        ready, body = health.readiness(service.mem, service.deliverer, service.fault)
        return JSONResponse(body, status_code=200 if ready else 503)

    @router.get("/v1/jobs/progress")
    def jobs_progress(
        request: Request, who: keys.Principal = Depends(principal)
    ) -> list[dict[str, Any]]:
        """Long jobs (imports, passes) running or last finished: the key's tenant's (admin: all)."""
        return service_of(request).jobs.visible(None if who.admin else who.tenant, who.subject)

    return router


# -- admin -----------------------------------------------------------------------------------


def admin_store(request: Request, who: keys.Principal = Depends(principal)) -> Any:
    """The workspace's store, for the local admin token only."""
    service = service_of(request)
    if not who.admin or service.mem is None:
        raise HTTPException(403, ADMIN_ONLY)
    return service.mem.store


class OutboxList(BaseModel):
    """Which outbox rows to list: of one status (default all), at most `limit`."""

    model_config = ConfigDict(extra="forbid")
    status: str | None = None
    limit: int = Field(default=50, ge=1, le=10_000)


class OutboxIds(BaseModel):
    """Outbox rows by id (retry: none names every dead row)."""

    model_config = ConfigDict(extra="forbid")
    ids: list[int] = Field(default_factory=list, max_length=10_000)


def outbox_router() -> APIRouter:
    """The alert outbox of the tenant the admin names (X-Uac-Tenant): list, retry, drop —
    what `uac outbox` does, for a workspace a running server holds."""
    router = APIRouter(prefix="/v1/admin/outbox", tags=["admin"])

    def tenant(request: Request) -> str:
        return request.headers.get("x-uac-tenant") or "default"

    @router.post("/list")
    def list_outbox(
        request: Request, body: OutboxList | None = None, store: Any = Depends(admin_store)
    ) -> dict[str, Any]:
        """The tenant's outbox rows, newest first, and its counts per status (admin only)."""
        body = body or OutboxList()
        try:
            found = outbox.rows(store, tenant(request), body.status, body.limit)
        except UacError as exc:
            raise HTTPException(status_of(exc), str(exc)) from None
        return {"counts": outbox.counts(store, tenant(request)), "rows": verbs.plain(found)}

    @router.post("/retry")
    def retry_outbox(
        request: Request, body: OutboxIds | None = None, store: Any = Depends(admin_store)
    ) -> dict[str, Any]:
        """Queue rows again, due now: the named ones, or every dead row (admin only)."""
        n = outbox.retry(store, tenant(request), (body or OutboxIds()).ids)
        deliverer = service_of(request).deliverer
        if deliverer is not None and n:
            deliverer.wake.set()  # due now: the deliverer need not wait for its next look
        return {"requeued": n}

    @router.post("/drop")
    def drop_outbox(
        request: Request, body: OutboxIds, store: Any = Depends(admin_store)
    ) -> dict[str, Any]:
        """Delete the named rows; their alerts stay stored (admin only)."""
        try:
            return {"dropped": outbox.drop(store, tenant(request), body.ids)}
        except UacError as exc:
            raise HTTPException(status_of(exc), str(exc)) from None

    return router


def admin_router() -> APIRouter:
    """API keys: create, list, revoke (the local admin token only)."""
    router = APIRouter(prefix="/v1/admin/keys", tags=["admin"])

    @router.post("")
    def create_key(body: NewKey, store: Any = Depends(admin_store)) -> dict[str, Any]:
        """Create an API key (the local admin only)."""
        try:
            key_id, token = keys.create(
                store, body.tenant, body.subject, read_only=body.read_only, label=body.label
            )
        except UacError as exc:
            raise HTTPException(status_of(exc), str(exc)) from None
        return {"id": key_id, "token": token}

    @router.post("/list")
    def list_keys(store: Any = Depends(admin_store)) -> list[dict[str, Any]]:
        """List keys (the local admin only; never the tokens)."""
        return verbs.plain(keys.listing(store))  # type: ignore[no-any-return]

    @router.post("/{key_id}/revoke")
    def revoke_key(key_id: str, store: Any = Depends(admin_store)) -> dict[str, Any]:
        """Revoke a key (the local admin only)."""
        try:
            keys.revoke(store, key_id)
        except UacError as exc:
            raise HTTPException(status_of(exc), str(exc)) from None
        return {"id": key_id, "revoked": True}

    return router


# -- verbs -----------------------------------------------------------------------------------


def verb_router() -> APIRouter:
    """One route per verb (and per earlier name of it, kept out of the OpenAPI document)."""
    router = APIRouter()

    @router.get("/v1/subjects/{subject}/reactions/{ticket}", tags=["reads"])
    def reaction(
        request: Request, subject: str, ticket: int, who: keys.Principal = Depends(principal)
    ) -> Any:
        """Whether the reaction to a write (its `ticket`) ran, and the alerts it changed."""
        mem = service_of(request).memory_for(who, request)
        try:
            addr = mem.address(subject)
            if who.subject is not None and str(addr) != who.subject:
                raise HTTPException(403, f"this key is bound to another subject; {NEW_KEY}")
            return verbs.plain(mem.reaction(str(addr), ticket))
        except UacError as exc:
            raise HTTPException(status_of(exc), str(exc)) from None

    for verb in verbs.VERBS.values():
        for name in (verb.name, *verb.aliases):
            modes = ("required", "none") if verb.subject == "optional" else (verb.subject,)
            for mode in modes:
                if name.startswith("tenant-") and mode == "required":
                    continue  # the tenant-wide verbs' earlier names had no subject form
                _route(router, verb, name, mode == "required", listed=name == verb.name)
    return router


def _checked(verb: verbs.Verb, who: keys.Principal, args: verbs.Args) -> None:
    """Refuse what the key may not do with these arguments (before anything runs)."""
    if verb.operator and not who.admin:
        raise HTTPException(
            403,
            f"{verb.name} reads every tenant's log: only the service's admin token may call it",
        )
    if (late := _future_now(args)) is not None:
        raise HTTPException(400, late)
    if who.read_only and verb.writes_with(args):
        raise HTTPException(403, f"this key is read-only and {verb.name} writes; {NEW_KEY}")
    if verb.admin_with(args) and who.subject is not None:
        raise HTTPException(
            403, f"this key is bound to one subject; {verb.name} needs a tenant key; {NEW_KEY}"
        )


def _subject(verb: verbs.Verb, mem: Memory, who: keys.Principal, subject: str | None) -> Any:
    """The subject a request names, resolved in the key's tenant and checked against it."""
    if subject is None:
        if who.subject is not None:
            raise HTTPException(
                403, f"this key is bound to one subject; {verb.name} is tenant-wide"
            )
        return None
    try:
        addr = mem.address(subject)
    except UacError as exc:
        raise HTTPException(400, str(exc)) from None
    if who.subject is not None and str(addr) != who.subject:
        raise HTTPException(403, f"this key is bound to another subject; {NEW_KEY} [--subject S]")
    return str(addr)


def _handle(
    request: Request,
    response: Response,
    who: keys.Principal,
    verb: verbs.Verb,
    subject: Any,
    body: Any,
) -> Any:
    service = service_of(request)
    args = body or verb.args()
    _checked(verb, who, args)
    mem = service.memory_for(who, request)
    subject = _subject(verb, mem, who, subject)
    response.headers[TENANT_HEADER] = mem.tenant
    key = request.headers.get(idempotency.HEADER)
    if not verb.writes_with(args):
        return _run(service, mem, verb, subject, args)
    if key is None:
        with write_keys.writing(write_keys.WriteMark(mem.tenant, who.key_id, None)) as mark:
            return _written(service, _run(service, mem, verb, subject, args, mark))
    held = idempotency.Claim(
        mem.tenant,
        who.key_id,
        key,
        idempotency.request_hash(verb.name, subject, args.model_dump(mode="json")),
    )
    try:
        stored = idempotency.claim(mem.store, held, utc_now())
    except Exception as exc:  # a full disk may refuse the claim itself: nothing is written
        raise _as_http(service, verb, exc, write_keys.WriteMark(mem.tenant, "", None)) from None
    if isinstance(stored, idempotency.Stored):  # a repeat: the first answer, never a second write
        return JSONResponse(
            stored.body,
            status_code=stored.status,
            headers={TENANT_HEADER: mem.tenant, "Idempotent-Replayed": "true"},
        )
    # A repeat of a run that committed but never answered (a killed server): run it again,
    # its committed batches handed back rather than written (fact_log/backends/write_keys.py).
    earlier = stored.earlier if isinstance(stored, idempotency.Resume) else []
    if earlier:
        response.headers["Idempotent-Replayed"] = "true"
    mark = write_keys.WriteMark(mem.tenant, who.key_id, key, list(earlier))
    try:
        with write_keys.writing(mark):
            out = _run(service, mem, verb, subject, args, mark)
    except BaseException as exc:
        _failed(service, mem, held, mark, exc)
        raise
    try:
        idempotency.finish(mem.store, held, 200, out)
    except Exception as exc:  # the write is saved: answer it; a repeat resumes to this answer
        idempotency.let_go(held)
        service.log({"event": "idempotency_answer_not_stored", "error": repr(exc)})
    return _written(service, out)


def _failed(
    service: Service,
    mem: Memory,
    held: idempotency.Claim,
    mark: write_keys.WriteMark,
    exc: BaseException,
) -> None:
    """A keyed write failed: keep its refusal as its answer (4xx), free the key if nothing
    was saved, else leave it for a repeat to resume. Never hides the write's own error."""
    try:
        if isinstance(exc, HTTPException) and exc.status_code < 500:
            body = {"error": exc.detail, "code": CODES.get(exc.status_code, "error")}
            idempotency.finish(mem.store, held, exc.status_code, body)
        elif mark.saved is False:  # nothing was written: the key may be sent again
            idempotency.release(mem.store, held)
        else:  # part of it was saved (or may have been): a repeat resumes it
            idempotency.let_go(held)
    except Exception as problem:  # the storage that failed the write may fail this too
        idempotency.let_go(held)
        service.log({"event": "idempotency_not_settled", "error": repr(problem)})


def _written(service: Service, out: Any) -> Any:
    """A write succeeded: the storage takes writes again (`/readyz`)."""
    service.fault = None
    return out


def _run(
    service: Service,
    mem: Memory,
    verb: verbs.Verb,
    subject: Any,
    args: Any,
    mark: write_keys.WriteMark | None = None,
) -> Any:
    """Run the verb; its errors as HTTP errors (a write's 5xx saying whether it was saved)."""
    try:
        if not verb.long:
            return verbs.execute(mem, verb, subject, args)
        with service.jobs.track(verb.name, mem.tenant, subject) as job:
            mem.progress = job.report  # this request's view: reported to the board
            return verbs.execute(mem, verb, subject, args)
    except Exception as exc:
        raise _as_http(service, verb, exc, mark) from None


def _as_http(
    service: Service, verb: verbs.Verb, exc: Exception, mark: write_keys.WriteMark | None
) -> HTTPException:
    """A verb's error as the HTTP error that says it: the caller's (4xx), the storage's (507
    or 503, a write's saying whether it was saved), or re-raised as a bug."""
    fault = faults.storage_fault(exc)
    if fault is not None:  # a full or failing disk or database: said plainly, not a bug
        service.fault = fault.sentence()
        service.log({"event": "storage_fault", "verb": verb.name, "error": repr(exc)})
        status, message = fault.status, fault.sentence()
    elif isinstance(exc, UacError):
        status, message = status_of(exc), str(exc)
    else:
        raise exc
    if mark is None or status < 500:
        return HTTPException(status, message)
    saved = mark.saved
    said = {True: "it was saved: do not send it again (or send it with the same "
            "Idempotency-Key, which answers it)", False: "nothing of it was saved",
            None: "whether it was saved is unknown: look, or send it again with the "
            "same Idempotency-Key"}[saved]  # fmt: skip
    return Refused(status, f"{message}; {said}", committed=saved)


def _route(router: APIRouter, verb: verbs.Verb, name: str, scoped: bool, *, listed: bool) -> None:
    """Add the route of one verb at one path; its body is the verb's argument model."""
    if scoped:

        def endpoint(
            request: Request, response: Response, subject: str, body: Any, who: Any
        ) -> Any:
            return _handle(request, response, who, verb, subject, body)

        path = f"/v1/subjects/{{subject}}/{name}"
        params = ["request", "response", "subject", "body", "who"]
    else:

        def endpoint(request: Request, response: Response, body: Any, who: Any) -> Any:  # type: ignore[misc]
            return _handle(request, response, who, verb, None, body)

        path = f"/v1/{name}"
        params = ["request", "response", "body", "who"]
    required = any(f.is_required() for f in verb.args.model_fields.values())
    annotations = {
        "request": (Request, inspect.Parameter.empty),
        "response": (Response, inspect.Parameter.empty),
        "subject": (str, inspect.Parameter.empty),
        "body": (verb.args, Body(...) if required else Body(None)),
        "who": (keys.Principal, Depends(principal)),
    }
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                p,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                annotation=annotations[p][0],
                default=annotations[p][1],
            )
            for p in params
        ]
    )
    endpoint.__name__ = name.replace("-", "_") + ("" if scoped else "_tenant")
    endpoint.__doc__ = verb.summary
    router.post(
        path,
        tags=["writes" if verb.writes else "reads"],
        summary=verb.summary,
        name=name if scoped or verb.subject == "none" else f"{name} (tenant)",
        include_in_schema=listed,
        deprecated=not listed,
    )(endpoint)


def _future_now(args: Any) -> str | None:
    """Why a request's recording time cannot be taken: later than the server's clock.

    The log's clock is its latest `recorded_at`: one write dated 9999 would win every later
    conflict and end every membership for good. Clients may backdate (imports of old
    data), never date ahead. A naive time is UTC (as everywhere in uac), so a client ahead
    of UTC must send its offset: the error says so.
    """
    now = getattr(args, "now", None)
    if not isinstance(now, dt.datetime):
        return None
    limit = utc_now() + CLOCK_SLACK
    try:
        if utc_naive(now) <= limit:  # type: ignore[operator]
            return None
    except (OverflowError, ValueError):  # "9999-12-31T23:00:00-14:00" is past year 9999 in UTC
        return f"now: {now.isoformat()} is out of range once converted to UTC"
    if now.tzinfo is None:  # the likeliest cause: a client's local time sent without offset
        return (
            f"now: {now.isoformat()} has no UTC offset, so it is read as UTC, and that is later "
            f"than the server's clock ({limit:%Y-%m-%d %H:%M} UTC at most); send the offset "
            f"(e.g. {now:%Y-%m-%dT%H:%M:%S}+14:00) or leave it out to record the present"
        )
    return (
        f"now: {now.isoformat()} is later than the server's clock ({limit:%Y-%m-%d %H:%M} UTC "
        "at most); leave it out to record the present"
    )
