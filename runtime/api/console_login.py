"""The console's login, logout and static files (no session needed to reach them)."""

from __future__ import annotations

import hmac
import secrets

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from uac.fact_log.addressing import check_name
from uac.fact_log.errors import InputError
from uac.runtime.api import api_keys as keys
from uac.runtime.api.console_context import (
    COOKIE,
    PRE_COOKIE,
    TEMPLATES,
    ConsoleRoute,
    console_of,
    cookie,
    render,
)

router = APIRouter(prefix="/console", include_in_schema=False, route_class=ConsoleRoute)


@router.get("/static/{name}")
def static(name: str) -> Response:
    """The stylesheet and the script (nothing else is served from the templates)."""
    types = {"console.css": "text/css", "console.js": "text/javascript"}
    if name not in types:
        return Response("not found", status_code=404)
    text = (TEMPLATES / name).read_text(encoding="utf-8")
    return Response(text, media_type=types[name], headers={"Cache-Control": "max-age=300"})


@router.get("/login")
def login_form(request: Request) -> HTMLResponse:
    """The login form, with a double-submit CSRF token in a short-lived cookie."""
    nonce = secrets.token_urlsafe(12)
    response = render(
        "login.html", csrf=console_of(request).sessions.csrf(nonce), error=None, tenant=None
    )
    cookie(request, response, PRE_COOKIE, nonce, 600)
    return response


def _login_again(request: Request, status: int, error: str) -> Response:
    """The login form again, with one sentence on what was wrong and a fresh token."""
    retry = secrets.token_urlsafe(12)
    csrf = console_of(request).sessions.csrf(retry)
    response = render("login.html", status, csrf=csrf, error=error, tenant=None)
    cookie(request, response, PRE_COOKIE, retry, 600)
    return response


@router.post("/login")
def login(
    request: Request,
    key: str = Form(""),
    tenant: str = Form(""),
    csrf: str = Form(""),
) -> Response:
    """Check the key once; the session cookie holds its id, the tenant, expiry and nonce."""
    console = console_of(request)
    sessions, service = console.sessions, console.service
    nonce = request.cookies.get(PRE_COOKIE, "")
    if not nonce or not hmac.compare_digest(csrf, sessions.csrf(nonce)):
        return render(
            "login.html",
            403,
            csrf=csrf,
            error="The login form expired; reload the page and try again.",
            tenant=None,
        )
    if service.mem is None:
        return render(
            "error.html",
            503,
            message="The server is shutting down; retry once `uac serve` is up.",
            tenant=None,
        )
    who = keys.resolve(service.mem.store, key.strip(), service.admin_token)
    if who is None:
        return _login_again(
            request, 401, "Unknown or revoked API key; create one with: uac keys create --tenant T"
        )
    name = who.tenant or tenant.strip() or "default"
    try:
        check_name("tenant", name)
    except InputError as exc:
        return _login_again(request, 400, str(exc))
    response = RedirectResponse("/console/", status_code=303)
    cookie(request, response, COOKIE, sessions.issue(who.key_id, name, console.now()), None)
    response.delete_cookie(PRE_COOKIE, path="/console")
    return response


@router.post("/logout")
def logout(request: Request, csrf: str = Form("")) -> Response:
    """End the session (the form's token must match it: no logout by a foreign page)."""
    console = console_of(request)
    response = RedirectResponse("/console/login", status_code=303)
    body = console.sessions.read(request.cookies.get(COOKIE), console.now())
    if body is not None and hmac.compare_digest(csrf, console.sessions.csrf(str(body["n"]))):
        response.delete_cookie(COOKIE, path="/console")
    return response
