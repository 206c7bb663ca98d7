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

from typing import Any

from fastapi import FastAPI
from fastapi.responses import RedirectResponse, Response

from uac.runtime.api import console_login, console_ops, console_pages
from uac.runtime.api.console_context import Console


def mount(app: FastAPI, service: Any) -> None:
    """Serve the console under /console of a `uac serve` app (`service`: its `Service`).

    The pages are routers (console_login.py: login, logout, static; console_pages.py: the
    operator's pages; console_ops.py: the Operations page); what they share is in
    console_context.py, found through `app.state.uac_console`.
    """
    app.state.uac_console = Console(service)
    app.include_router(console_login.router)
    app.include_router(console_pages.router)
    app.include_router(console_ops.router)

    @app.get("/console", include_in_schema=False)
    def console_root() -> Response:
        return RedirectResponse("/console/", status_code=307)
