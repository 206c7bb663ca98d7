"""The operator console: server-rendered HTML pages under `/console` of `uac serve`.

One router, mounted by `create_app` with `mount(app, service)`. Pages are Jinja2 templates
in `templates/console/` (autoescaped), with one stylesheet and one small script served from
the same place: no build step, no external requests, and a Content-Security-Policy that
forbids any (`default-src 'self'`).

Auth is the API's: the operator logs in with an API key (or the server's admin token plus a
tenant). The key is checked once and never stored in the browser; the session cookie holds
the key's id, the tenant, an expiry and a nonce, signed with HMAC-SHA256 under a secret made
fresh by each server process (a restart logs everybody out; `console_sessions.py`). The
cookie is HttpOnly and SameSite=Strict; every POST form also carries a CSRF token derived
from the session nonce.
Each request re-reads the key, so a revoked key's session dies at once. A read-only key sees
the same pages without the acknowledge/snooze forms, and its POSTs are refused.

Reads go through `Memory` exactly like the HTTP verbs do; this module only arranges what
`Memory` returns into pages. The export ("what do you remember about me") masks every field
the catalog marks sensitive.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hmac
import inspect
import secrets
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from fastapi import APIRouter, FastAPI, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from uac.fact_log.addressing import check_name
from uac.fact_log.errors import InputError, NotFound, UacError
from uac.fact_log.store import utc_now
from uac.runtime.api import api_keys as keys
from uac.runtime.api import verbs
from uac.runtime.api.console_sessions import SESSION_SECONDS, Sessions
from uac.runtime.api.console_views import (
    export_data,
    fact_view,
    mask_note,
    paged,
    sensitivity,
    show,
    sort_rows,
    state_tree,
    subject_secrets,
    timeline,
)

if TYPE_CHECKING:
    from uac.runtime.api.memory import Memory

TEMPLATES = Path(__file__).with_name("templates") / "console"
COOKIE = "uac_console"
PRE_COOKIE = "uac_console_login"  # double-submit token of the login form (no session yet)
ROWS = 200  # rows of a collection (and events of a timeline) on one page
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters["show"] = show
_env.filters["q"] = lambda s: quote(str(s), safe="")


class Denied(Exception):
    """A console request that must go back to the login page (no or expired session)."""


class PageError(Exception):
    """A console request that fails with a status and one sentence for the page."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclasses.dataclass(frozen=True)
class Session:
    """A logged-in operator: the key's principal, the tenant it reads, its CSRF token."""

    principal: keys.Principal
    tenant: str
    csrf: str


def _render(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    html = _env.get_template(name).render(**context)
    return HTMLResponse(html, status_code=status, headers=_HEADERS)


_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


# -- the router --------------------------------------------------------------------------------


def mount(app: FastAPI, service: Any) -> None:
    """Serve the console under /console of a `uac serve` app (`service`: its `Service`)."""
    sessions = Sessions()
    router = APIRouter(prefix="/console", include_in_schema=False)

    def now() -> float:
        return time.time()

    def session(request: Request) -> Session:
        if service.mem is None:
            raise PageError(503, "The server is starting or shutting down; try again shortly.")
        body = sessions.read(request.cookies.get(COOKIE), now())
        if body is None:
            raise Denied
        key_id = body.get("k")
        if key_id == "admin":
            principal = keys.Principal("admin", None)
        else:
            # Where the keys live: the shared database on a node of a PostgreSQL log.
            found = keys.by_id(service.mem.store, str(key_id))
            if found is None:
                raise Denied
            principal = found
        request.state.principal = principal  # the access log names the key
        return Session(principal, str(body["t"]), sessions.csrf(str(body["n"])))

    def memory(s: Session) -> Memory:
        assert service.mem is not None
        return service.mem.for_tenant(s.tenant)

    def subject_of(s: Session, mem: Memory, subject: str) -> str:
        try:
            addr = mem.address(subject)
        except UacError as exc:
            raise PageError(400, str(exc)) from None
        if s.principal.subject is not None and str(addr) != s.principal.subject:
            raise PageError(
                403, f"This key is bound to another subject; open {s.principal.subject}."
            )
        known = {f"{i.scope}:{i.subject}" for i in mem.subjects()}
        if str(addr) not in known:
            raise PageError(
                404,
                f"Tenant {mem.tenant} has no subject {addr}; the Subjects page lists its subjects.",
            )
        return str(addr)

    def check_post(s: Session, token: str) -> None:
        if not hmac.compare_digest(token or "", s.csrf):
            raise PageError(403, "The form expired (CSRF token mismatch); reload the page.")
        if s.principal.read_only:
            raise PageError(
                403,
                "This key is read-only; to change alerts, log in with a key made by "
                "uac keys create --tenant TENANT (without --read-only).",
            )

    def page(request: Request, s: Session, name: str, **context: Any) -> HTMLResponse:
        return _render(
            name,
            session=s,
            tenant=s.tenant,
            read_only=s.principal.read_only,
            bound=s.principal.subject,
            path=request.url.path,
            **context,
        )

    def guarded(handler: Any) -> Any:
        # FastAPI reads the endpoint's signature: show it the handler's, without the session.
        def wrapper(request: Request, **kwargs: Any) -> Response:
            try:
                s = session(request)
                return handler(request, s, **kwargs)
            except Denied:
                return RedirectResponse("/console/login", status_code=303)
            except PageError as exc:
                return _render("error.html", exc.status, message=exc.message, tenant=None)
            except NotFound as exc:
                return _render("error.html", 404, message=str(exc), tenant=None)
            except (InputError, UacError) as exc:
                return _render("error.html", 400, message=str(exc), tenant=None)
            except Exception as exc:  # a page must not end in a bare 500: log it, say so
                service.log(
                    {"event": "console_error", "path": request.url.path, "error": repr(exc)}
                )
                return _render(
                    "error.html",
                    500,
                    message="This page failed on the server; its log names the error.",
                    tenant=None,
                )

        signature = inspect.signature(handler)
        params = [p for name, p in signature.parameters.items() if name != "s"]
        wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        wrapper.__name__ = handler.__name__
        wrapper.__doc__ = handler.__doc__
        return wrapper

    @router.get("/static/{name}")
    def static(name: str) -> Response:
        types = {"console.css": "text/css", "console.js": "text/javascript"}
        if name not in types:
            return Response("not found", status_code=404)
        text = (TEMPLATES / name).read_text(encoding="utf-8")
        return Response(text, media_type=types[name], headers={"Cache-Control": "max-age=300"})

    @router.get("/login")
    def login_form(request: Request) -> HTMLResponse:
        nonce = secrets.token_urlsafe(12)
        response = _render("login.html", csrf=sessions.csrf(nonce), error=None, tenant=None)
        _cookie(request, response, PRE_COOKIE, nonce, 600)
        return response

    @router.post("/login")
    def login(
        request: Request,
        key: str = Form(""),
        tenant: str = Form(""),
        csrf: str = Form(""),
    ) -> Response:
        nonce = request.cookies.get(PRE_COOKIE, "")
        if not nonce or not hmac.compare_digest(csrf, sessions.csrf(nonce)):
            return _render(
                "login.html",
                403,
                csrf=csrf,
                error="The login form expired; reload the page and try again.",
                tenant=None,
            )
        if service.mem is None:
            return _render(
                "error.html",
                503,
                message="The server is shutting down; retry once `uac serve` is up.",
                tenant=None,
            )
        who = keys.resolve(service.mem.store, key.strip(), service.admin_token)
        if who is None:
            retry = secrets.token_urlsafe(12)
            response = _render(
                "login.html",
                401,
                csrf=sessions.csrf(retry),
                error="Unknown or revoked API key; create one with: uac keys create --tenant T",
                tenant=None,
            )
            _cookie(request, response, PRE_COOKIE, retry, 600)
            return response
        name = who.tenant or tenant.strip() or "default"
        try:
            check_name("tenant", name)
        except InputError as exc:
            retry = secrets.token_urlsafe(12)
            response = _render(
                "login.html", 400, csrf=sessions.csrf(retry), error=str(exc), tenant=None
            )
            _cookie(request, response, PRE_COOKIE, retry, 600)
            return response
        response = RedirectResponse("/console/", status_code=303)
        _cookie(request, response, COOKIE, sessions.issue(who.key_id, name, now()), None)
        response.delete_cookie(PRE_COOKIE, path="/console")
        return response

    @router.post("/logout")
    def logout(request: Request, csrf: str = Form("")) -> Response:
        response = RedirectResponse("/console/login", status_code=303)
        body = sessions.read(request.cookies.get(COOKIE), now())
        if body is not None and hmac.compare_digest(csrf, sessions.csrf(str(body["n"]))):
            response.delete_cookie(COOKIE, path="/console")
        return response

    @router.get("/")
    @guarded
    def home(request: Request, s: Session) -> HTMLResponse:
        mem = memory(s)
        open_alerts = Counter(str(a.address) for a in mem.alerts(None))
        rows = []
        for info in mem.subjects():
            name = f"{info.scope}:{info.subject}"
            if s.principal.subject is not None and name != s.principal.subject:
                continue
            rows.append(
                {
                    "name": name,
                    "facts": info.facts,
                    "inputs": info.inputs,
                    "last": info.last_recorded_at,
                    "alerts": open_alerts.get(name, 0),
                }
            )
        shown, paging = paged(
            rows, _number(request.query_params.get("offset"), "offset") or 0, ROWS
        )
        jobs = service.jobs.visible(s.tenant, s.principal.subject)  # imports, passes: progress
        return page(
            request,
            s,
            "subjects.html",
            subjects=shown,
            paging=paging,
            jobs=jobs,
            title="Subjects",
        )

    @router.get("/s/{subject}")
    @guarded
    def subject_page(request: Request, s: Session, subject: str) -> HTMLResponse:
        mem = memory(s)
        name = subject_of(s, mem, subject)
        ckpt = _current(mem, name)
        # One collection at a time is paged and sorted on the server (?part=trips&offset=200
        # &sort=city&desc=1); the others show their first page.
        query = request.query_params
        paging = query.get("part", "")
        by, desc = query.get("sort", ""), query.get("desc") == "1"
        parts = state_tree(ckpt.user, sensitivity(mem, name)) if ckpt else []
        for part in parts:
            if part["kind"] == "collection":
                mine = part["name"] == paging
                if mine and by:
                    sort_rows(part["rows"], part["columns"], by, desc)
                part["sort"], part["desc"] = (by, desc) if mine else ("", False)
                offset = _number(query.get("offset"), "row offset") if mine else 0
                part["rows"], part["pager"] = paged(part["rows"], offset or 0, ROWS)
                part["total"] = part["pager"]["total"]
        alerts = mem.alerts(name)
        return page(
            request,
            s,
            "subject.html",
            subject=name,
            parts=parts,
            version=ckpt.version if ckpt else None,
            alerts=len(alerts),
            title=name,
            tab="state",
        )

    @router.get("/s/{subject}/why")
    @guarded
    def why_page(request: Request, s: Session, subject: str) -> HTMLResponse:
        mem = memory(s)
        name = subject_of(s, mem, subject)
        expr = request.query_params.get("expr", "")
        if not expr:
            raise PageError(400, "Name a value to explain, e.g. ?expr=user.passport.expiry_date.")
        _current(mem, name)
        found = mem.why(name, expr)
        value = found.value
        record = None
        if dataclasses.is_dataclass(value):
            record = [
                (f.name, show(getattr(value, f.name)))
                for f in dataclasses.fields(value)
                if f.name != "fact_ids"
            ]
        facts = [fact_view(f, found.statuses) for f in found.facts]
        older = [fact_view(f, found.statuses) for f in found.superseded]
        inputs = {i.id: i for i in mem.inputs(name) if i.id in {f.input_id for f in found.facts}}
        for f in facts:
            source = inputs.get(f["input_id"] or "")
            f["input_text"] = source.content[:2000] if source is not None else None
        return page(
            request,
            s,
            "why.html",
            subject=name,
            expr=found.expr,
            value=None if record else show(value),
            record=record,
            version=found.version,
            facts=facts,
            older=older,
            title=f"why {found.expr}",
            tab="state",
        )

    @router.get("/s/{subject}/timeline")
    @guarded
    def timeline_page(request: Request, s: Session, subject: str) -> HTMLResponse:
        mem = memory(s)
        name = subject_of(s, mem, subject)
        offset = _number(request.query_params.get("offset"), "event offset")
        data = timeline(mem, name, offset or 0, ROWS)
        return page(
            request,
            s,
            "timeline.html",
            subject=name,
            title=f"{name} timeline",
            tab="timeline",
            **data,
        )

    def alerts_view(request: Request, s: Session, subject: str | None) -> HTMLResponse:
        mem = memory(s)
        name = subject_of(s, mem, subject) if subject is not None else None
        if name is None and s.principal.subject is not None:
            name = s.principal.subject
        everything = request.query_params.get("resolved") == "1"
        found = mem.alerts(name, include_resolved=everything)
        today = utc_now().date()
        return page(
            request,
            s,
            "alerts.html",
            subject=name,
            alerts=found,
            resolved=everything,
            snooze_default=(today + dt.timedelta(days=7)).isoformat(),
            today=today.isoformat(),
            title="Alerts",
            tab="alerts",
        )

    @router.get("/alerts")
    @guarded
    def tenant_alerts(request: Request, s: Session) -> HTMLResponse:
        return alerts_view(request, s, None)

    @router.get("/s/{subject}/alerts")
    @guarded
    def subject_alerts(request: Request, s: Session, subject: str) -> HTMLResponse:
        return alerts_view(request, s, subject)

    @router.post("/s/{subject}/alerts/{alert_id}/{action}")
    @guarded
    def alert_action(
        request: Request,
        s: Session,
        subject: str,
        alert_id: str,
        action: str,
        csrf: str = Form(""),
        until: str = Form(""),
        back: str = Form(""),
    ) -> Response:
        check_post(s, csrf)
        mem = memory(s)
        name = subject_of(s, mem, subject)
        if action == "ack":
            mem.acknowledge(name, alert_id)
        elif action == "snooze":
            try:
                day = dt.date.fromisoformat(until)
            except ValueError:
                raise PageError(400, f"Snooze until {until!r}: give a YYYY-MM-DD date.") from None
            mem.snooze(name, alert_id, day)
        else:
            raise PageError(404, f"No alert action {action!r}; use ack or snooze.")
        target = back if back.startswith("/console/") else f"/console/s/{quote(name)}/alerts"
        return RedirectResponse(target, status_code=303)

    @router.get("/s/{subject}/search")
    @guarded
    def search_page(request: Request, s: Session, subject: str) -> HTMLResponse:
        mem = memory(s)
        name = subject_of(s, mem, subject)
        text = request.query_params.get("q", "").strip()
        kind = request.query_params.get("kind") or None
        if kind not in (None, "note", "input"):
            raise PageError(400, f"Search kind {kind!r}: use note or input.")
        if len(text) > verbs.MAX_TEXT:
            raise PageError(
                400, f"The search text is over {verbs.MAX_TEXT:,} characters; shorten it."
            )
        hits = mem.search(name, text, k=25, kind=kind) if text else []
        _current(mem, name)
        hidden = subject_secrets(mem, name)  # a hit may quote a sensitive value: masked
        shown = [mask_note(h.text, hidden) for h in hits]
        return page(
            request,
            s,
            "search.html",
            subject=name,
            q=text,
            kind=kind or "",
            hits=list(zip(hits, shown, strict=True)),
            title=f"search {name}",
            tab="search",
        )

    @router.get("/s/{subject}/diff")
    @guarded
    def diff_page(request: Request, s: Session, subject: str) -> HTMLResponse:
        mem = memory(s)
        name = subject_of(s, mem, subject)
        published = [
            c["version"]
            for c in mem.store.checkpoints(mem.address(name))
            if c["status"] == "published"
        ]
        v1 = _number(request.query_params.get("v1"))
        v2 = _number(request.query_params.get("v2"))
        lines: list[str] = []
        error = None
        old = new = None
        if len(published) >= 2 or (v1 and v2):
            try:
                old, new, lines = mem.diff(name, v1, v2)
            except (NotFound, InputError) as exc:
                error = str(exc)
        else:
            error = "Only one checkpoint so far: a diff needs two (the next write makes one)."
        return page(
            request,
            s,
            "diff.html",
            subject=name,
            versions=published[::-1],
            old=old,
            new=new,
            lines=lines,
            error=error,
            title=f"diff {name}",
            tab="diff",
        )

    @router.get("/s/{subject}/export")
    @guarded
    def export_page(request: Request, s: Session, subject: str) -> Response:
        mem = memory(s)
        name = subject_of(s, mem, subject)
        ckpt = _current(mem, name)
        data = export_data(mem, name, ckpt.user if ckpt else None)
        if request.query_params.get("format") == "json":
            return JSONResponse(
                data,
                headers={
                    **_HEADERS,
                    "Content-Disposition": f'attachment; filename="{name.replace(":", "-")}.json"',
                },
            )
        return page(
            request, s, "export.html", subject=name, data=data, title=f"export {name}", tab="export"
        )

    app.include_router(router)

    @app.get("/console", include_in_schema=False)
    def console_root() -> Response:
        return RedirectResponse("/console/", status_code=307)


def _current(mem: Memory, subject: str) -> Any:
    """The subject's current checkpoint, compiled first when the log moved on (None if none)."""
    if mem.stale(subject):
        mem.compile(subject)  # like the query verb: pages show every saved write
    try:
        return mem.checkpoint(subject)
    except NotFound:
        return None


def _number(text: str | None, what: str = "checkpoint version") -> int | None:
    try:
        value = int(text) if text else None
    except ValueError:
        value = -1
    if value is not None and value < 0:
        raise PageError(400, f"A {what} is a whole number, got {text!r}.")
    return value


def _cookie(
    request: Request, response: Response, name: str, value: str, max_age: int | None
) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age if max_age is not None else SESSION_SECONDS,
        path="/console",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
