"""What every console page shares: the session dependency, the subject it names, rendering.

A page handler declares what it needs as FastAPI dependencies instead of repeating a
preamble: `Depends(session)` (a logged-in operator, re-read from its key on every request),
`Depends(posted)` (the same, for a form: CSRF token checked, read-only keys refused),
`Depends(subject_page)` (the session, its tenant's `Memory` and the subject of the path,
checked against a key bound to one subject). Every console route is a `ConsoleRoute`, which
turns what a page or its dependencies raise into a page: the login page for no session,
one sentence and a status for bad input, a logged 500 for anything else.
"""

from __future__ import annotations

import dataclasses
import hmac
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from fastapi import Depends, Form, Request
from fastapi.exceptions import HTTPException, RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, select_autoescape

from uac.fact_log.errors import InputError, NotFound, UacError
from uac.runtime.api import api_keys as keys
from uac.runtime.api.console_sessions import SESSION_SECONDS, Sessions
from uac.runtime.api.console_views import show

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
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters["show"] = show
_env.filters["q"] = lambda s: quote(str(s), safe="")


def count(n: int, one: str, many: str | None = None) -> str:
    """A count with its noun in the right number: "1 alert", "4 alerts"."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


_env.filters["count"] = count


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


@dataclasses.dataclass(frozen=True)
class SubjectPage:
    """A page about one subject: the session, its tenant's memory, the subject's address."""

    session: Session
    mem: Memory
    name: str


class Console:
    """The console's state in one server: the service it reads and the session signer."""

    def __init__(self, service: Any):
        self.service = service
        self.sessions = Sessions()

    @staticmethod
    def now() -> float:
        """Seconds since the epoch (sessions expire by it)."""
        return time.time()


def console_of(request: Request) -> Console:
    """The console mounted on the request's app."""
    return request.app.state.uac_console  # type: ignore[no-any-return]


def render(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A template rendered as a page with the console's security headers."""
    html = _env.get_template(name).render(**context)
    return HTMLResponse(html, status_code=status, headers=HEADERS)


# -- the dependencies ----------------------------------------------------------------------------


def session(request: Request) -> Session:
    """The logged-in operator of this request (Denied without a live session)."""
    console = console_of(request)
    service = console.service
    if service.mem is None:
        raise PageError(503, "The server is starting or shutting down; try again shortly.")
    body = console.sessions.read(request.cookies.get(COOKIE), console.now())
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
    return Session(principal, str(body["t"]), console.sessions.csrf(str(body["n"])))


def posted(csrf: str = Form(""), s: Session = Depends(session)) -> Session:
    """The session of a form post: its CSRF token must match and its key may write."""
    if not hmac.compare_digest(csrf or "", s.csrf):
        raise PageError(403, "The form expired (CSRF token mismatch); reload the page.")
    if s.principal.read_only:
        raise PageError(
            403,
            "This key is read-only; to change alerts, log in with a key made by "
            "uac keys create --tenant TENANT (without --read-only).",
        )
    return s


def memory(request: Request, s: Session) -> Memory:
    """The memory of the session's tenant."""
    mem = console_of(request).service.mem
    assert mem is not None
    return mem.for_tenant(s.tenant)


def subject_of(s: Session, mem: Memory, subject: str) -> str:
    """The subject's address, if this key may open it and the tenant has it."""
    try:
        addr = mem.address(subject)
    except UacError as exc:
        raise PageError(400, str(exc)) from None
    if s.principal.subject is not None and str(addr) != s.principal.subject:
        raise PageError(403, f"This key is bound to another subject; open {s.principal.subject}.")
    known = {f"{i.scope}:{i.subject}" for i in mem.subjects()}
    if str(addr) not in known:
        raise PageError(
            404,
            f"Tenant {mem.tenant} has no subject {addr}; the Subjects page lists its subjects.",
        )
    return str(addr)


def subject_page(request: Request, subject: str, s: Session = Depends(session)) -> SubjectPage:
    """The session, memory and checked subject of a page under /console/s/{subject}."""
    mem = memory(request, s)
    return SubjectPage(s, mem, subject_of(s, mem, subject))


def page(request: Request, s: Session, name: str, **context: Any) -> HTMLResponse:
    """A page of a logged-in operator (the header shows the tenant and the key's limits)."""
    return render(
        name,
        session=s,
        tenant=s.tenant,
        read_only=s.principal.read_only,
        bound=s.principal.subject,
        path=request.url.path,
        **context,
    )


# -- errors as pages -----------------------------------------------------------------------------


class ConsoleRoute(APIRoute):
    """A console route: what its handler or dependencies raise is answered with a page."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handle(request)
            except (HTTPException, RequestValidationError):
                raise  # FastAPI's own answers (e.g. a malformed form)
            except Denied:
                return RedirectResponse("/console/login", status_code=303)
            except PageError as exc:
                return render("error.html", exc.status, message=exc.message, tenant=None)
            except NotFound as exc:
                return render("error.html", 404, message=str(exc), tenant=None)
            except (InputError, UacError) as exc:
                return render("error.html", 400, message=str(exc), tenant=None)
            except Exception as exc:  # a page must not end in a bare 500: log it, say so
                console_of(request).service.log(
                    {"event": "console_error", "path": request.url.path, "error": repr(exc)}
                )
                return render(
                    "error.html",
                    500,
                    message="This page failed on the server; its log names the error.",
                    tenant=None,
                )

        return guarded


# -- small helpers -------------------------------------------------------------------------------


def current(mem: Memory, subject: str) -> Any:
    """The subject's current checkpoint, compiled first when the log moved on (None if none)."""
    if mem.stale(subject):
        mem.compile(subject)  # like the query verb: pages show every saved write
    try:
        return mem.checkpoint(subject)
    except NotFound:
        return None


def number(text: str | None, what: str = "checkpoint version") -> int | None:
    """A whole number from a query parameter (None if absent)."""
    try:
        value = int(text) if text else None
    except ValueError:
        value = -1
    if value is not None and value < 0:
        raise PageError(400, f"A {what} is a whole number, got {text!r}.")
    return value


def cookie(
    request: Request, response: Response, name: str, value: str, max_age: int | None
) -> None:
    """Set one of the console's cookies (HttpOnly, SameSite=Strict, Secure over https)."""
    response.set_cookie(
        name,
        value,
        max_age=max_age if max_age is not None else SESSION_SECONDS,
        path="/console",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
