"""The console's pages for a logged-in operator: subjects, a subject's state, why, timeline,
alerts (acknowledge, snooze), search, diff and export. Each names what it needs as a
dependency (console_context.py); none repeats the session and subject checks."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import Counter
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from uac.fact_log.errors import InputError, NotFound
from uac.fact_log.store import utc_now
from uac.runtime.api import verbs
from uac.runtime.api.console_context import (
    HEADERS,
    ROWS,
    ConsoleRoute,
    PageError,
    Session,
    SubjectPage,
    console_of,
    current,
    memory,
    number,
    page,
    posted,
    session,
    subject_of,
    subject_page,
)
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

router = APIRouter(prefix="/console", include_in_schema=False, route_class=ConsoleRoute)


@router.get("/")
def home(request: Request, s: Session = Depends(session)) -> HTMLResponse:
    mem = memory(request, s)
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
    shown, paging = paged(rows, number(request.query_params.get("offset"), "offset") or 0, ROWS)
    jobs = console_of(request).service.jobs.visible(
        s.tenant, s.principal.subject
    )  # imports, passes: progress
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
def state_page(request: Request, v: SubjectPage = Depends(subject_page)) -> HTMLResponse:
    s, mem, name = v.session, v.mem, v.name
    ckpt = current(mem, name)
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
            offset = number(query.get("offset"), "row offset") if mine else 0
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
def why_page(request: Request, v: SubjectPage = Depends(subject_page)) -> HTMLResponse:
    s, mem, name = v.session, v.mem, v.name
    expr = request.query_params.get("expr", "")
    if not expr:
        raise PageError(400, "Name a value to explain, e.g. ?expr=user.passport.expiry_date.")
    current(mem, name)
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
def timeline_page(request: Request, v: SubjectPage = Depends(subject_page)) -> HTMLResponse:
    s, mem, name = v.session, v.mem, v.name
    offset = number(request.query_params.get("offset"), "event offset")
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
    mem = memory(request, s)
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
def tenant_alerts(request: Request, s: Session = Depends(session)) -> HTMLResponse:
    return alerts_view(request, s, None)


@router.get("/s/{subject}/alerts")
def subject_alerts(request: Request, subject: str, s: Session = Depends(session)) -> HTMLResponse:
    return alerts_view(request, s, subject)


@router.post("/s/{subject}/alerts/{alert_id}/{action}")
def alert_action(
    alert_id: str,
    action: str,
    s: Session = Depends(posted),
    v: SubjectPage = Depends(subject_page),
    until: str = Form(""),
    back: str = Form(""),
) -> Response:
    mem, name = v.mem, v.name
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
def search_page(request: Request, v: SubjectPage = Depends(subject_page)) -> HTMLResponse:
    s, mem, name = v.session, v.mem, v.name
    text = request.query_params.get("q", "").strip()
    kind = request.query_params.get("kind") or None
    if kind not in (None, "note", "input"):
        raise PageError(400, f"Search kind {kind!r}: use note or input.")
    if len(text) > verbs.MAX_TEXT:
        raise PageError(400, f"The search text is over {verbs.MAX_TEXT:,} characters; shorten it.")
    hits = mem.search(name, text, k=25, kind=kind) if text else []
    current(mem, name)
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
def diff_page(request: Request, v: SubjectPage = Depends(subject_page)) -> HTMLResponse:
    s, mem, name = v.session, v.mem, v.name
    published = [
        c["version"] for c in mem.store.checkpoints(mem.address(name)) if c["status"] == "published"
    ]
    v1 = number(request.query_params.get("v1"))
    v2 = number(request.query_params.get("v2"))
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
def export_page(request: Request, v: SubjectPage = Depends(subject_page)) -> Response:
    s, mem, name = v.session, v.mem, v.name
    ckpt = current(mem, name)
    data = export_data(mem, name, ckpt.user if ckpt else None)
    if request.query_params.get("format") == "json":
        return JSONResponse(
            data,
            headers={
                **HEADERS,
                "Content-Disposition": f'attachment; filename="{name.replace(":", "-")}.json"',
            },
        )
    return page(
        request, s, "export.html", subject=name, data=data, title=f"export {name}", tab="export"
    )
