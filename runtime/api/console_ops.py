"""The console's Operations page: health and version, the scheduler, the alert outbox, jobs,
and (for the admin) API keys.

A tenant-wide key sees its tenant's outbox and jobs; a key that may write can queue outbox
rows again or drop them. Keys are listed, created and revoked only by the server's admin
(logged in with the admin token). Forms post back here with the session's CSRF token.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

import uac
from uac.fact_log.backends import pg_jobs
from uac.fact_log.errors import InputError, WorkspaceError
from uac.fact_log.store import utc_now
from uac.runtime.api import api_keys as keys
from uac.runtime.api import outbox
from uac.runtime.api.console_context import (
    ConsoleRoute,
    PageError,
    Session,
    console_of,
    page,
    posted,
    session,
)

router = APIRouter(prefix="/console/ops", include_in_schema=False, route_class=ConsoleRoute)
OUTBOX_ROWS = 50


def tenant_wide(s: Session = Depends(session)) -> Session:
    """A session whose key reads the whole tenant (the outbox and jobs span its subjects)."""
    if s.principal.subject is not None:
        raise PageError(
            403, f"This key is bound to {s.principal.subject}; Operations needs a tenant key."
        )
    return s


def admin(s: Session = Depends(posted)) -> Session:
    """A form post by the server's admin (keys are the admin's)."""
    if not s.principal.admin:
        raise PageError(403, "Only the server's admin manages keys; log in with the admin token.")
    return s


@router.get("")
@router.get("/")
def ops_page(request: Request, s: Session = Depends(tenant_wide)) -> HTMLResponse:
    """Everything an operator checks: is it up, what ran, what waits, who may call."""
    return page(request, s, "ops.html", title="Operations", **_view(request, s))


def _view(request: Request, s: Session, made: dict[str, Any] | None = None) -> dict[str, Any]:
    service = console_of(request).service
    store = service.mem.store
    queue = store.backend.job_status(tenant=s.tenant)  # None: no shared job queue
    shared = queue is not None
    return {
        "health": {
            "version": uac.__version__,
            "log": "PostgreSQL (shared by every node)" if shared else "DuckDB workspace file",
            "ready": service.mem is not None,
            "outbox_pending": service.deliverer.pending() if service.deliverer else None,
        },
        "scheduler": _scheduler(service),
        "counts": outbox.counts(store, s.tenant),
        "rows": outbox.rows(store, s.tenant, limit=OUTBOX_ROWS),
        "sinks": sorted(service.deliverer.sinks) if service.deliverer else [],
        "jobs": service.jobs.visible(s.tenant, None),
        "queue": queue.as_dict() if queue is not None else None,
        "keys": keys.listing(store) if s.principal.admin else None,
        "made": made,
    }


def _scheduler(service: Any) -> dict[str, Any]:
    """The schedule, the last pass (start, summary) and when the next one falls due."""
    schedule = service.options.schedule
    last = getattr(service, "last_pass", None)
    if schedule is None:
        return {"schedule": None, "last": None, "next": None}
    started = last["started"] if last else None
    now = dt.datetime.now(dt.UTC)
    if started is not None and started.tzinfo is None:
        started = started.replace(tzinfo=dt.UTC)
    due = schedule.next_run(started, now)
    return {"schedule": str(schedule), "last": last, "next": due.strftime("%Y-%m-%d %H:%M:%S UTC")}


def _ids(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split()]
    except ValueError:
        raise PageError(400, f"Outbox row ids are whole numbers, got {text!r}.") from None


@router.post("/outbox/{action}")
def outbox_action(
    request: Request, action: str, s: Session = Depends(posted), ids: str = Form("")
) -> Response:
    """Queue rows again (the named ones, or every dead row) or drop the named rows."""
    tenant_wide(s)
    store = console_of(request).service.mem.store
    if action == "retry":
        outbox.retry(store, s.tenant, _ids(ids), now=utc_now())
    elif action == "drop":
        try:
            outbox.drop(store, s.tenant, _ids(ids))
        except InputError as exc:
            raise PageError(400, str(exc)) from None
    else:
        raise PageError(404, f"No outbox action {action!r}; use retry or drop.")
    service = console_of(request).service
    if service.deliverer is not None:
        service.deliverer.wake.set()
    return RedirectResponse("/console/ops#outbox", status_code=303)


@router.post("/jobs/retry")
def jobs_retry(request: Request, s: Session = Depends(posted)) -> Response:
    """Queue the tenant's dead-lettered jobs again (a workspace bound to PostgreSQL)."""
    tenant_wide(s)
    store = console_of(request).service.mem.store
    try:
        log = store.backend.job_log()
    except WorkspaceError:
        raise PageError(
            404, "This workspace has no job queue (it is not bound to PostgreSQL)."
        ) from None
    pg_jobs.retry_dead(log, s.tenant)
    return RedirectResponse("/console/ops#jobs", status_code=303)


@router.post("/keys")
def key_create(
    request: Request,
    s: Session = Depends(admin),
    tenant: str = Form(""),
    subject: str = Form(""),
    read_only: str = Form(""),
    label: str = Form(""),
) -> HTMLResponse:
    """Create a key; its token is shown on this one page and never again."""
    store = console_of(request).service.mem.store
    key_id, token = keys.create(
        store,
        tenant.strip() or s.tenant,
        subject.strip() or None,
        read_only=read_only == "1",
        label=label.strip() or None,
    )
    made = {"id": key_id, "token": token}
    return page(request, s, "ops.html", title="Operations", **_view(request, s, made))


@router.post("/keys/{key_id}/revoke")
def key_revoke(request: Request, key_id: str, s: Session = Depends(admin)) -> Response:
    """Revoke a key (its sessions end at their next request)."""
    keys.revoke(console_of(request).service.mem.store, key_id)
    return RedirectResponse("/console/ops#keys", status_code=303)
