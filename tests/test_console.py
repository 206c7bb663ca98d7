"""The operator console of `uac serve` over real HTTP: sessions, CSRF, scoping, every page.

The server is a real subprocess on 127.0.0.1 (see test_serve.py); the workspace is seeded
in process first, so the pages have a passport with evidence and a superseded value, a trip
that raises an alert, a note, several checkpoints and a second tenant. The browser half
(keyboard, screenshots) is tests/test_console_browser.py.
"""

from __future__ import annotations

import datetime as dt
import html
import http.client
import json
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_serve import _admin, _key, serving

from uac import Client, Memory
from uac.fact_log.errors import NotFound

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

SECRET_NUMBER = "X1234567"  # identity.passport.number: sensitive (identifier)
OTHER_SECRET = "ZZ998877"  # the other tenant's


def seed(home: Path) -> None:
    """A small history: evidence, a superseded value, an alert, a note, two tenants."""
    day = dt.datetime(2026, 11, 20, 9)
    with Memory(home, tenant="acme", create=True) as mem:
        with mem.deferred():
            mem.set("maya", "identity.passport.issuing_country", "GB", now=day)
            mem.set("maya", "identity.passport.number", SECRET_NUMBER, now=day)
            mem.add("maya", "My passport expires on 1 June 2030.", now=day)
            mem.import_records(
                "maya",
                "trips",
                [{"city": "Bangkok", "country": "TH", "depart": "2027-03-01"}],
                now=day,
            )
            mem.remember("maya", "My climbing gym membership pauses every August.", now=day)
            # A note quoting a sensitive value: the safety scan does not see it as one (no
            # label), the catalog's sensitivity of passport.number does.
            mem.add_note(
                "maya", f"Booked Bangkok on passport {SECRET_NUMBER}; blue folder.", now=day
            )
        # A newer message supersedes the old expiry and leaves too little validity for Bangkok.
        mem.add("maya", "My passport expires on 18 April 2027.", now=day + dt.timedelta(days=1))
        assert [a.check for a in mem.alerts("maya")] == ["passport_validity_for_trip"]
        # A long collection: the console pages it (200 rows a page).
        mem.import_records("pat", "transactions", LEDGER, now=day)
    with Memory(home, tenant="other") as mem:
        mem.set("eve", "identity.passport.number", OTHER_SECRET, now=day)


LEDGER = [
    {
        "date": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
        "amount": f"{i}.25",
        "merchant": f"shop {i}",
    }
    for i in range(450)
]


class Browser:
    """A cookie-keeping HTTP client that does not follow redirects (to see them)."""

    def __init__(self, url: str):
        self.parts = urllib.parse.urlsplit(url)
        self.cookies: dict[str, str] = {}
        self.set_cookie: list[str] = []

    def request(
        self, method: str, path: str, form: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection(self.parts.hostname, self.parts.port, timeout=120)
        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        text = response.read().decode("utf-8")
        self.set_cookie = response.headers.get_all("set-cookie") or []
        for line in self.set_cookie:
            name, _, rest = line.partition("=")
            value = rest.split(";", 1)[0]
            if "max-age=0" in line.lower() or value in ("", '""'):
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        out = {k.lower(): v for k, v in response.getheaders()}
        conn.close()
        return response.status, out, text

    def get(self, path: str) -> tuple[int, dict[str, str], str]:
        """GET a page."""
        return self.request("GET", path)

    def post(self, path: str, form: dict[str, str]) -> tuple[int, dict[str, str], str]:
        """POST a form."""
        return self.request("POST", path, form)

    def login(self, key: str, tenant: str = "") -> tuple[int, dict[str, str], str]:
        """Open the login form and submit it with a key."""
        _, _, page = self.get("/console/login")
        return self.post("/console/login", {"key": key, "tenant": tenant, "csrf": csrf(page)})


def csrf(page: str) -> str:
    """The CSRF token of the first form of a page."""
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    assert match, "the page has no form with a CSRF token"
    return match.group(1)


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, module_backend: str
) -> Iterator[dict[str, Any]]:
    home = tmp_path_factory.mktemp("console") / "ws"
    seed(home)
    with serving(home) as info:
        admin = _admin(info)
        info["keys"] = {
            "rw": _key(admin, "acme"),
            "ro": _key(admin, "acme", read_only=True),
            "other": _key(admin, "other"),
            "bob": _key(admin, "acme", subject="bob"),
        }
        yield info


def logged_in(server: dict[str, Any], which: str) -> Browser:
    browser = Browser(server["url"])
    status, headers, _ = browser.login(server["keys"][which])
    assert status == 303 and headers["location"] == "/console/", (status, headers)
    return browser


def test_login_session_cookie_and_csrf(server: dict[str, Any]) -> None:
    browser = Browser(server["url"])
    status, headers, _ = browser.get("/console/")
    assert status == 303 and headers["location"] == "/console/login"

    # the login form is itself CSRF-protected (a double-submit cookie)
    _, _, page = browser.get("/console/login")
    status, _, text = browser.post(
        "/console/login", {"key": server["keys"]["rw"], "csrf": "forged"}
    )
    assert status == 403 and "expired" in text
    assert "uac_console" not in browser.cookies

    status, _, text = browser.login("uac_nope_nope")
    assert status == 401 and "Unknown or revoked API key" in text

    status, headers, _ = browser.login(server["keys"]["rw"])
    assert status == 303
    (session_cookie,) = [c for c in browser.set_cookie if c.startswith("uac_console=")]
    flags = session_cookie.lower()
    assert "httponly" in flags and "samesite=strict" in flags and "path=/console" in flags
    assert server["keys"]["rw"] not in session_cookie  # the key never reaches the browser

    status, headers, page = browser.get("/console/")
    assert status == 200 and "user:maya" in page
    assert "default-src 'self'" in headers["content-security-policy"]
    assert not re.search(r'(src|href)="(https?:)?//', page), "no external requests"

    # a forged or altered session is no session
    real = browser.cookies["uac_console"]
    browser.cookies["uac_console"] = real[:-3] + ("AAA" if not real.endswith("AAA") else "BBB")
    assert browser.get("/console/")[0] == 303
    browser.cookies["uac_console"] = real

    # logout needs the CSRF token too
    assert browser.post("/console/logout", {"csrf": "forged"})[0] == 303
    assert browser.get("/console/")[0] == 200
    browser.post("/console/logout", {"csrf": csrf(page)})
    assert browser.get("/console/")[0] == 303


def test_subject_state_provenance_timeline_search_diff(server: dict[str, Any]) -> None:
    browser = logged_in(server, "rw")
    status, _, page = browser.get("/console/s/user:maya")
    assert status == 200
    assert "2027-04-18" in page and "Bangkok" in page
    assert SECRET_NUMBER not in page and "•••" in page  # sensitive values masked in the tree
    assert 'class="sortable"' in page  # collections are sortable tables
    why = re.search(r'href="(/console/s/user%3Amaya/why\?expr=user\.passport\.expiry_date)"', page)
    assert why, "the expiry date links to its provenance"

    status, _, page = browser.get(why.group(1))
    assert status == 200
    assert "My passport expires on 18 April 2027." in page  # the evidence quote
    assert "verified (exact)" in page
    assert "superseded by" in page and "2030-06-01" in page  # what it superseded

    status, _, page = browser.get("/console/s/user:maya/timeline")
    assert status == 200 and "<svg" in page and "Facts recorded per month" in page
    for kind in ("fact assert", "checkpoint published", "alert raised"):
        assert kind in page, kind
    assert SECRET_NUMBER not in page  # sensitive values masked in the overview too

    status, _, page = browser.get("/console/s/user:maya/search?q=climbing+gym")
    assert status == 200 and "climbing gym membership" in page
    for part in ("BM25 rank", "vector rank", "recency", "feedback", "RRF"):
        assert part in page, part

    status, _, page = browser.get("/console/s/user:maya/diff")
    assert status == 200 and "~ user.passport.expiry_date" in page

    status, _, page = browser.get("/console/s/user:maya/why?expr=user.nothing_here")
    assert status == 404 and "user has no" in page  # one sentence, not a traceback


def test_export_masks_sensitive_values(server: dict[str, Any]) -> None:
    browser = logged_in(server, "rw")
    status, _, page = browser.get("/console/s/user:maya/export")
    assert status == 200 and "What uac remembers about user:maya" in page
    assert SECRET_NUMBER not in page and "climbing gym" in page and "2027-04-18" in page
    status, headers, text = browser.get("/console/s/user:maya/export?format=json")
    assert status == 200 and "attachment" in headers["content-disposition"]
    data = json.loads(text)
    assert data["state"]["passport"]["number"] == "•••"
    assert data["state"]["passport"]["expiry_date"] == "2027-04-18"
    assert data["state"]["trips"][0]["city"] == "Bangkok"
    assert any("climbing gym" in n["text"] for n in data["notes"])
    assert "Booked Bangkok on passport •••; blue folder." in [n["text"] for n in data["notes"]]
    assert "passport.number" in data["masked"] and SECRET_NUMBER not in text
    for where in ("", "/timeline", "/search?q=blue+folder"):  # the other overviews mask it too
        status, _, page = browser.get("/console/s/user:maya" + where)
        assert status == 200 and "blue folder" in page and SECRET_NUMBER not in page, where


def test_alerts_ack_and_snooze_need_a_writer_and_csrf(server: dict[str, Any]) -> None:
    client = Client(server["url"], server["keys"]["rw"])
    (alert,) = (a.as_dict() for a in client.alerts("maya"))

    ro = logged_in(server, "ro")
    status, _, page = ro.get("/console/s/user:maya/alerts")
    assert status == 200 and alert["message"] in page and "read-only" in page
    # What an agent or a person acts on: why it matters and the next step (escaped HTML).
    assert "Why it matters:" in page and "Next step:" in page and alert["next_step"]
    assert "Acknowledge" not in page and "Snooze" not in page
    ack = f"/console/s/user:maya/alerts/{alert['id']}/ack"
    status, _, text = ro.post(ack, {"csrf": csrf(page)})
    assert status == 403 and "read-only" in text and "uac keys create --tenant" in text

    rw = logged_in(server, "rw")
    status, _, page = rw.get("/console/s/user:maya/alerts")
    assert "Acknowledge" in page and "Computation" in page and alert["computation"][:20] in page
    assert rw.post(ack, {"csrf": "forged"})[0] == 403
    assert client.alerts("maya")[0].status == "open"  # nothing changed
    status, headers, _ = rw.post(ack, {"csrf": csrf(page), "back": "/console/alerts"})
    assert status == 303 and headers["location"] == "/console/alerts"
    assert client.alerts("maya")[0].status == "acknowledged"

    snooze = f"/console/s/user:maya/alerts/{alert['id']}/snooze"
    status, _, text = rw.post(snooze, {"csrf": csrf(page), "until": "next week"})
    assert status == 400 and "YYYY-MM-DD" in text
    status, _, _ = rw.post(snooze, {"csrf": csrf(page), "until": "2099-01-01"})
    assert status == 303
    snoozed = client.alerts("maya", include_resolved=True)[0].snoozed_until
    assert snoozed == dt.date(2099, 1, 1)


def test_other_tenant_and_other_subject_see_nothing(server: dict[str, Any]) -> None:
    other = logged_in(server, "other")
    status, _, page = other.get("/console/")
    assert status == 200 and "user:eve" in page and "maya" not in page
    for path in (
        "/console/s/user:maya",
        "/console/s/user:maya/timeline",
        "/console/s/user:maya/export?format=json",
        "/console/s/user:maya/why?expr=user.passport.number",
        "/console/s/user:maya/search?q=passport",
    ):
        status, _, text = other.get(path)
        assert status == 404, path
        assert "Bangkok" not in text and SECRET_NUMBER not in text and "2027" not in text
    status, _, page = other.get("/console/alerts")
    assert "Bangkok" not in page and "No open alerts" in page

    maya = logged_in(server, "rw")
    assert OTHER_SECRET not in maya.get("/console/s/user:eve")[2]
    assert maya.get("/console/s/user:eve")[0] == 404

    bound = logged_in(server, "bob")  # a key bound to another subject of the same tenant
    status, _, page = bound.get("/console/")
    assert "user:maya" not in page
    status, _, page = bound.get("/console/s/user:maya")
    assert status == 403 and "bound to another subject; open user:bob" in page
    status, _, page = maya.get("/console/s/user:nobody")
    assert status == 404 and "the Subjects page lists its subjects" in page


def test_revoked_key_ends_its_session(server: dict[str, Any]) -> None:
    # A key of its own, made and revoked here: the module's other keys stay valid.
    admin = _admin(server)
    created = admin.request("POST", "/v1/admin/keys", {"tenant": "acme"})
    browser = Browser(server["url"])
    assert browser.login(created["token"])[0] == 303
    assert browser.get("/console/s/user:maya")[0] == 200
    admin.request("POST", f"/v1/admin/keys/{created['id']}/revoke", {})
    status, headers, _ = browser.get("/console/s/user:maya")
    assert status == 303 and headers["location"] == "/console/login"
    # the admin token logs in for a tenant it names (a valid name)
    status, _, text = Browser(server["url"]).login(server["admin_token"], tenant="no such/x")
    assert status == 400 and "tenant" in text
    admin_browser = Browser(server["url"])
    assert admin_browser.login(server["admin_token"], tenant="acme")[0] == 303
    assert "user:maya" in admin_browser.get("/console/")[2]


def test_long_collections_and_timelines_are_paged_and_sorted_on_the_server(
    server: dict[str, Any],
) -> None:
    browser = logged_in(server, "ro")

    def get(path: str) -> tuple[int, str]:
        status, _, page = browser.get(path)
        return status, html.unescape(page)  # links as the browser follows them

    status, page = get("/console/s/user:pat")
    assert status == 200 and "transactions: 450 records, 1–200 shown" in page
    assert page.count("<tr>") == 201  # the header and one page of rows
    assert 'href="?part=transactions&offset=200#transactions" rel="next"' in page
    assert 'class="sortable"' not in page  # a page is sorted by the server, over all rows
    status, page = get("/console/s/user:pat?part=transactions&offset=400")
    assert "transactions 401–450 of 450" in page and 'rel="next"' not in page
    assert 'href="?part=transactions&offset=200#transactions" rel="prev"' in page
    status, page = get("/console/s/user:pat?part=transactions&sort=amount&desc=1")
    amounts = re.findall(r'<td data-sort="[^"]*">(\d+\.25)</td>', page)
    assert amounts[:3] == ["449.25", "448.25", "447.25"], amounts[:3]  # all 450, not a page
    assert 'aria-sort="descending"' in page
    assert "&sort=amount&desc=1&offset=200" in page  # the next page keeps the order
    status, page = get("/console/s/user:pat?part=transactions&offset=-3")
    assert status == 400 and "A row offset is a whole number, got '-3'." in page
    status, page = get("/console/s/user:pat?part=transactions&offset=9999")
    assert status == 200 and "transactions 401–450 of 450" in page  # past the end: the last

    status, page = get("/console/s/user:pat/timeline")
    assert status == 200 and 'rel="next"' in page and page.count('<li class="ev ') == 200
    status, page = get("/console/s/user:pat/timeline?offset=400")
    assert 'start="401"' in page and 'rel="prev"' in page


def test_long_work_asked_over_http_shows_on_the_subjects_page(server: dict[str, Any]) -> None:
    from uac import Client

    client = Client(server["url"], server["keys"]["rw"])
    client.import_records(
        "quinn", "trips", [{"city": "Oslo", "country": "NO", "depart": "2027-05-01"}]
    )
    status, _, page = logged_in(server, "ro").get("/console/")
    assert status == 200 and "Long work" in page
    row = re.search(r"<th scope=\"row\">import</th>.*?</tr>", page, re.S)
    assert row and "user:quinn" in row.group(0) and "compiling" in row.group(0), page
    assert "Long work" not in logged_in(server, "other").get("/console/")[2]


# -- no dead ends: inputs without typed facts are the empty typed state, not an error ---------


def test_inputs_without_typed_facts_compile_to_the_empty_state(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    day = dt.datetime(2026, 11, 20, 9)
    with Memory(home, tenant="acme", create=True) as mem:
        learned = mem.add("maya", "Hello there, how are you today?", now=day)
        assert learned.facts == []  # nothing typed in a greeting
        assert mem.checkpoint("maya").version == 1  # the write's reaction compiled it anyway
        assert "nothing is known yet" in mem.manifest("maya")
        answer = mem.query("maya", "len(user.trips)", today=day.date())
        assert answer["ok"] and answer["result"] == 0, answer
        assert mem.check("maya", today=day.date()).new == []

    with Memory(home, tenant="acme", react=False) as mem:
        mem.add("bob", "Good morning!", now=day)  # no reaction: nothing compiled yet
        assert {r.address.subject: r.status for r in mem.compile(all=True)}["bob"] == "published"
        assert mem.query("bob", "user.passport.number")["result"] is None
        mem.add("dan", "Good evening!", now=day)  # a query compiles what was never compiled
        assert mem.query("dan", "1")["result"] == 1 and mem.checkpoint("dan").version == 1
        with pytest.raises(NotFound, match='uac add user:carol "'):
            mem.compile("carol")  # no input at all: the error names the next command
